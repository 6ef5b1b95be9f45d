//! Runs the seed program in both modes and checks the order of its timeline (not the
//! times): up front, rank 0's "async check" comes before rank 1 even begins; with
//! --lazy-init it comes only after rank 1 began.

use std::process::Command;

fn timeline(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_seed"))
        .args(args)
        .env("NCCL_RS_DRIVER", "sim")
        .output()
        .expect("seed runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "seed failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().map(str::to_string).collect()
}

fn position(lines: &[String], rank: usize, what: &str) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with(&format!("[rank {rank} ")) && l.contains(what))
        .unwrap_or_else(|| panic!("no {what:?} from rank {rank} in:\n{}", lines.join("\n")))
}

#[test]
fn up_front_group_rank_0_checks_before_rank_1_begins() {
    let lines = timeline(&["--sleep", "0.5"]);
    assert!(position(&lines, 0, "async check") < position(&lines, 1, "begin async all-reduce"));
    assert!(position(&lines, 0, "value 101") > position(&lines, 1, "begin async all-reduce"));
    assert!(position(&lines, 1, "value 101") > 0);
}

#[test]
fn lazy_init_rank_0_is_blocked_until_rank_1_begins() {
    let lines = timeline(&["--sleep", "0.5", "--lazy-init"]);
    assert!(position(&lines, 0, "async check") > position(&lines, 1, "begin async all-reduce"));
    assert!(position(&lines, 0, "value 101") > 0);
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_seed"))
        .args(["--sleep", "soon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"soon\""));
}
