//! Runs the `async-buckets` program and checks its timeline's order (not its times):
//! on rank 0, buckets 2 and 1 are reduced (and their steps start) before the slow
//! rank 1 even issued bucket 0, and every bucket ends averaged.

use std::process::Command;

#[test]
fn the_fast_buckets_step_while_the_slow_bucket_is_in_flight() {
    let out = Command::new(env!("CARGO_BIN_EXE_async-buckets"))
        .args(["--lag", "1000"])
        .output()
        .expect("async-buckets runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "async-buckets failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |rank: usize, what: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(&format!("[rank {rank} ")) && l.contains(what))
            .unwrap_or_else(|| panic!("no {what:?} from rank {rank} in:\n{stdout}"))
    };
    let slow_issue = at(1, "bucket 0 issued");
    assert!(at(0, "bucket 2 reduced") < slow_issue, "{stdout}");
    assert!(at(0, "bucket 1 reduced") < slow_issue, "{stdout}");
    assert!(at(0, "bucket 0 reduced") > slow_issue, "{stdout}");
    for rank in 0..2 {
        at(rank, "every bucket averaged: 1.5");
    }
}

#[test]
fn a_bad_argument_is_refused_naming_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_async-buckets"))
        .args(["--lag", "soon"])
        .output()
        .expect("async-buckets runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"soon\""));
}
