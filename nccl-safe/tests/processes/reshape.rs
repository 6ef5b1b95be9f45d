//! Shrink and grow across processes: survivors of a killed process revoke, shrink and
//! go on; two processes grow into three with a third process joining, and a late
//! process with the used id is refused naming the rule.

use std::time::Duration;

use nccl_safe::UniqueId;

use super::{Rank, finish, read_until, spawn};

#[test]
fn survivors_of_a_killed_process_revoke_shrink_and_go_on() {
    let id = UniqueId::random();
    let mut ranks: Vec<Rank> = (0..4)
        .map(|r| spawn("shrink-after-kill", r, 4, &id, r))
        .collect();
    let mut victim = ranks.remove(2);
    let pid = victim.child.id();
    let (_, rest) = read_until(&mut victim, "@@ ready");
    std::thread::sleep(Duration::from_millis(200)); // the others wait in the collective
    victim.child.kill().unwrap();
    victim.child.wait().unwrap();
    drop(rest);
    for (i, r) in ranks.into_iter().enumerate() {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "rank {rank}: {lines:?}");
        assert!(
            lines[0].contains(&format!("rank 2 (pid {pid}) died")),
            "rank {rank}: {lines:?}"
        );
        // Old ranks 0, 1, 3 are new ranks 0, 1, 2; their sum is 0 + 1 + 3.
        assert_eq!(
            lines[1],
            format!("shrunk {i} 3 [4, 4, 4, 4]"),
            "rank {rank}"
        );
    }
}

#[test]
fn a_survivor_that_dies_during_the_shrink_ends_it_in_an_error_not_a_hang() {
    let id = UniqueId::random();
    let mut ranks: Vec<Rank> = (0..4)
        .map(|r| spawn("shrink-member-dies", r, 4, &id, r))
        .collect();
    let mut victim = ranks.remove(3);
    let (_, rest) = read_until(&mut victim, "@@ ready");
    std::thread::sleep(Duration::from_millis(200));
    victim.child.kill().unwrap();
    victim.child.wait().unwrap();
    drop(rest);
    for r in ranks {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "rank {rank}: {lines:?}");
        if rank == 2 {
            assert_eq!(lines, ["leaving"]);
            continue;
        }
        let line = &lines[0];
        let (ms, text) = line
            .strip_prefix("after ")
            .and_then(|l| l.split_once(" ms: "))
            .unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        // Rank 2 never joins the shrunk communicator: named, within the timeout.
        assert!(
            text.contains("[2]") || text.contains("rank 2"),
            "rank {rank}: {text}"
        );
        assert!(ms.parse::<u64>().unwrap() < 10_000, "rank {rank}: {line}");
    }
}

#[test]
fn two_processes_grow_into_three_and_a_late_joiner_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("grow-id");
    let id = UniqueId::random();
    let start = |rank: usize, device: usize| {
        super::spawn_env(
            "grow",
            rank,
            3,
            &id,
            device,
            &[
                ("NCCL_RS_TEST_FILE", file.to_str().unwrap()),
                ("NCCL_RS_TEST_STAY_MS", "1500"),
            ],
        )
    };
    let mut procs: Vec<Rank> = (0..3).map(|r| start(r, r)).collect();
    let mut lines = Vec::new();
    // Once the three are in (their sums printed), a fourth process tries the id.
    let mut first = procs.remove(0);
    let (seen, rest0) = read_until(&mut first, "@@ grown");
    let late = start(2, 3);
    let (rank, ok, late_lines) = finish(late);
    assert!(ok, "late rank {rank}: {late_lines:?}");
    assert!(
        late_lines[0].contains("used by a completed grow into 3 ranks")
            && late_lines[0].contains("used once"),
        "{late_lines:?}"
    );
    lines.push(seen);
    let _ = first.child.wait();
    drop(rest0);
    for r in procs {
        let (rank, ok, out) = finish(r);
        assert!(ok, "rank {rank}: {out:?}");
        lines.push(out);
    }
    assert_eq!(lines[0], ["grown 0 [6, 6, 6, 6]"]);
    assert_eq!(lines[1], ["grown 1 [6, 6, 6, 6]"]);
    assert_eq!(lines[2], ["grown 2 [6, 6, 6, 6]"]);
}
