//! Processes that disagree: a mismatched collective naming both processes and their
//! call labels, a world size that differs, two processes on one sim device.

use nccl_safe::UniqueId;

use super::{Rank, finish, one, spawn};

#[test]
fn a_mismatch_names_both_processes_and_their_call_labels() {
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2).map(|r| spawn("mismatch", r, 2, &id, r)).collect();
    let pids: Vec<u32> = ranks.iter().map(|r| r.child.id()).collect();
    for r in ranks {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "{lines:?}");
        let e = one(&lines);
        for (p, pid) in pids.iter().enumerate() {
            assert!(
                e.contains(&format!("rank {p} (pid {pid})")),
                "rank {rank}: {e}"
            );
        }
        assert!(e.contains("all_gather") && e.contains("all_reduce"), "{e}");
        assert!(
            e.contains("rank 0's call") && e.contains("rank 1's call"),
            "{e}"
        );
    }
}

#[test]
fn world_size_disagreement_and_two_processes_on_one_sim_device_are_refused_naming_both() {
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2)
        .map(|r| spawn("size-mismatch", r, 2, &id, r))
        .collect();
    let pids: Vec<u32> = ranks.iter().map(|r| r.child.id()).collect();
    let out: Vec<_> = ranks.into_iter().map(finish).collect();
    let texts: Vec<&str> = out.iter().map(|(_, _, l)| one(l)).collect();
    let refusal = texts
        .iter()
        .find(|t| t.contains("world size"))
        .expect("a refusal");
    assert!(
        refusal.contains(&format!("rank 1 (pid {})", pids[1]))
            && refusal.contains(&format!("rank 0 (pid {})", pids[0])),
        "{refusal}"
    );
    // Two processes that both open sim device 0 for one communicator.
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2)
        .map(|r| spawn("init-timeout", r, 2, &id, 0))
        .collect();
    let pids: Vec<u32> = ranks.iter().map(|r| r.child.id()).collect();
    let out: Vec<_> = ranks.into_iter().map(finish).collect();
    let all: String = out.iter().map(|(_, _, l)| format!("{l:?}")).collect();
    assert!(all.contains("both on sim device 0"), "{all}");
    assert!(pids.iter().all(|p| all.contains(&p.to_string())), "{all}");
}
