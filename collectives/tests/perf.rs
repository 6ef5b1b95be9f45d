//! nccl-perf end to end on the sim: every collective, both layers, ranks as threads and
//! as processes, results checked (`#wrong` 0), nccl-tests' output format. Sizes are
//! tiny: this tests the tool, it measures nothing.

use std::process::Command;

mod common;

/// The `nccl-perf` program (see `common::program`).
fn nccl_perf() -> std::path::PathBuf {
    common::program("nccl-perf", env!("CARGO_BIN_EXE_nccl-perf"))
}

fn perf(args: &[&str]) -> String {
    let out = Command::new(nccl_perf())
        .args(args)
        .env("NCCL_RS_DRIVER", "sim")
        .output()
        .expect("nccl-perf runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "nccl-perf {args:?} failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The data rows: (size, count, #wrong out of place, #wrong in place).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

#[test]
fn every_collective_on_both_layers_as_threads_checks_out() {
    let colls = [
        "all_reduce",
        "all_gather",
        "broadcast",
        "reduce",
        "reduce_scatter",
        "alltoall",
        "gather",
        "scatter",
        "sendrecv",
    ];
    for coll in colls {
        for layer in ["raw", "group"] {
            let text = perf(&[
                coll, "-b", "64", "-e", "4K", "-f", "4", "-n", "2", "-w", "1", "-t", "3",
                "--layer", layer,
            ]);
            assert!(
                text.contains("# Out of bounds values : 0 OK"),
                "{coll} {layer}:\n{text}"
            );
            assert!(text.contains("# Avg bus bandwidth"), "{text}");
            let rows = rows(&text);
            assert_eq!(rows.len(), 4, "64, 256, 1K, 4K: {text}");
            for r in &rows {
                assert_eq!(
                    r.len(),
                    13,
                    "size count type redop root + 2 x (time algbw busbw #wrong): {r:?}"
                );
                assert_eq!(r[2], "float");
            }
        }
    }
}

#[test]
fn ranks_as_processes_every_reduction_and_a_json_record() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let text = perf(&[
        "all_reduce",
        "-b",
        "8",
        "-e",
        "1K",
        "-f",
        "8",
        "-n",
        "2",
        "-w",
        "1",
        "-o",
        "all",
        "-d",
        "int32",
        "--procs",
        "3",
        "-J",
        json.to_str().unwrap(),
    ]);
    assert!(text.contains("# Out of bounds values : 0 OK"), "{text}");
    assert_eq!(
        text.matches("Rank ").count(),
        3,
        "one device line per rank: {text}"
    );
    let rows = rows(&text);
    assert_eq!(rows.len(), 3 * 5, "8, 64, 512 bytes x 5 reductions: {text}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["ranks"], 3);
    assert_eq!(v["rows"].as_array().unwrap().len(), 15);
    assert_eq!(v["wrong"], 0);
}

#[test]
fn bad_flags_are_refused_naming_them() {
    let out = Command::new(nccl_perf())
        .args(["all_reduce", "-d", "char"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"char\""));
}
