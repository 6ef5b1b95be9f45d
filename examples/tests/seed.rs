//! Runs the seed program in both modes and checks the order of its timeline (not the
//! times): up front, rank 0's "async check" comes before rank 1 even begins; with
//! --lazy-init it comes only after rank 1 began. The same as two processes that find
//! their place with `ProcessGroup::from_env` (torchrun-style variables), by the times
//! each prints (margins of a second).

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

/// Runs the seed as two processes with torchrun-style variables (rank 0 hosts the
/// store), as a launcher would; each rank's lines with their times since its start.
fn two_processes(args: &[&str]) -> Vec<(usize, u64, String)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let kids: Vec<_> = (0..2)
        .map(|rank| {
            Command::new(env!("CARGO_BIN_EXE_seed"))
                .args(args)
                .env("NCCL_RS_DRIVER", "sim")
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", "2")
                .env("LOCAL_RANK", rank.to_string())
                .env("LOCAL_WORLD_SIZE", "2")
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("seed runs")
        })
        .collect();
    let mut lines = Vec::new();
    for kid in kids {
        let out = kid.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "seed failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for l in stdout.lines() {
            // "[rank R +  123 ms] what"
            let Some(rest) = l.strip_prefix("[rank ") else {
                continue;
            };
            let Some((head, what)) = rest.split_once(" ms] ") else {
                continue;
            };
            let Some((rank, ms)) = head.split_once(" +") else {
                continue;
            };
            lines.push((
                rank.parse().unwrap(),
                ms.trim().parse().unwrap(),
                what.to_string(),
            ));
        }
    }
    lines
}

fn at(lines: &[(usize, u64, String)], rank: usize, what: &str) -> u64 {
    lines
        .iter()
        .find(|(r, _, w)| *r == rank && w.contains(what))
        .map(|(_, ms, _)| *ms)
        .unwrap_or_else(|| panic!("no {what:?} from rank {rank} in {lines:?}"))
}

#[test]
fn as_two_processes_rank_0_checks_while_rank_1_sleeps() {
    let lines = two_processes(&["--sleep", "2"]);
    let (check, begin) = (at(&lines, 0, "async check"), at(&lines, 1, "begin async"));
    // Rank 1 begins after its 2 s sleep; rank 0's check comes long before.
    assert!(begin >= 2000, "{lines:?}");
    assert!(check + 1000 < begin, "{lines:?}");
    assert!(at(&lines, 0, "value 101") + 1000 > begin, "{lines:?}");
}

#[test]
fn as_two_processes_lazy_init_blocks_rank_0_for_the_sleep() {
    let lines = two_processes(&["--sleep", "2", "--lazy-init"]);
    assert!(at(&lines, 0, "async check") >= 1500, "{lines:?}");
    assert!(at(&lines, 0, "value 101") >= 1500, "{lines:?}");
}
