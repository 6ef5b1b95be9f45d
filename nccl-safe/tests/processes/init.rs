//! Joining across processes: a process two seconds late, ranks that never join or
//! that joined and left, a root in a stopped process.

use std::process::Command;
use std::time::Duration;

use nccl_safe::UniqueId;

use super::{Rank, finish, one, read_until, spawn};

#[test]
fn non_blocking_init_waits_for_a_process_that_starts_two_seconds_late() {
    let id = UniqueId::random();
    let first = spawn("late", 0, 2, &id, 0);
    std::thread::sleep(Duration::from_secs(2));
    let second = spawn("late", 1, 2, &id, 1);
    let (_, ok0, l0) = finish(first);
    let (_, ok1, l1) = finish(second);
    assert!(ok0 && ok1, "{l0:?} {l1:?}");
    let returned: u128 = one(&l0).split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(returned < 1000, "init returned at once: {l0:?}");
    assert!(one(&l0).contains("ready after"), "{l0:?}");
}

#[test]
fn an_init_timeout_names_the_ranks_that_never_joined() {
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2)
        .map(|r| spawn("init-timeout", r, 3, &id, r))
        .collect();
    for r in ranks {
        let (_, ok, lines) = finish(r);
        assert!(ok, "{lines:?}");
        assert!(one(&lines).contains("[2]"), "{lines:?}");
    }
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// Issue 18 item 8: a non-blocking init that joins a root in a stopped process
/// returns at once; `wait_ready` then times out saying the root never answered, and
/// abort returns promptly.
#[test]
fn a_non_blocking_init_returns_when_the_root_process_is_stopped() {
    let id = UniqueId::random();
    let mut host = spawn("stopped-root", 0, 2, &id, 0);
    read_until(&mut host, "@@ hosting");
    let host_pid = host.child.id();
    signal(host_pid, "-STOP");
    let joiner = spawn("stopped-root", 1, 2, &id, 1);
    let (_, ok, lines) = finish(joiner);
    signal(host_pid, "-KILL");
    let _ = host.child.wait();
    assert!(ok, "{lines:?}");
    let ms = |prefix: &str| -> u128 {
        let l = lines.iter().find_map(|l| l.strip_prefix(prefix)).unwrap();
        l.split_whitespace().next().unwrap().parse().unwrap()
    };
    assert!(ms("init returned after ") < 1000, "{lines:?}");
    assert!(ms("aborted in ") < 1000, "{lines:?}");
    let e = lines
        .iter()
        .find_map(|l| l.strip_prefix("wait_ready "))
        .unwrap();
    assert!(e.contains("never answered"), "{e}");
}

/// Issue 18 item 9: a rank that joined and left at its own deadline is not named as
/// one that never joined.
#[test]
fn an_init_timeout_tells_ranks_that_left_from_ranks_that_never_joined() {
    for round in 0..3 {
        let id = UniqueId::random();
        let mut host = spawn("join-and-leave", 0, 3, &id, 0);
        let (_, rest) = read_until(&mut host, "@@ joining");
        let leaver = spawn("join-and-leave", 1, 3, &id, 1);
        let (_, ok1, l1) = finish(leaver);
        let (_, ok0, _) = finish(host);
        let l0 = rest.join().unwrap();
        assert!(ok0 && ok1, "{l0:?} {l1:?}");
        let e = l0.iter().find(|l| l.contains("timed out")).unwrap();
        assert!(
            e.contains("ranks [2] have not joined") && e.contains("ranks [1] joined and left"),
            "round {round}: {e}"
        );
        // The leaver itself timed out with rank 2 missing, while rank 0 was in.
        assert!(
            one(&l1[1..]).contains("ranks [2] have not joined"),
            "{l1:?}"
        );
    }
}
