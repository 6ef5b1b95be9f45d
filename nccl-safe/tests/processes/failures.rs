//! Peers that fail: one that destroyed its communicator, a killed process (named within
//! a second, nothing left behind), an abort, a death across pid namespaces.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::PATIENCE;
use nccl_safe::UniqueId;

use super::{Rank, finish, now_ms, one, read_until, run, spawn, spawn_with};

#[test]
fn a_peer_that_destroyed_its_communicator_is_named_with_its_pid() {
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2).map(|r| spawn("destroyed", r, 2, &id, r)).collect();
    let pid1 = ranks[1].child.id();
    let out: Vec<_> = ranks.into_iter().map(finish).collect();
    let e = one(&out[0].2);
    assert!(
        e.contains(&format!("rank 1 (pid {pid1}) destroyed its communicator")),
        "{e}"
    );
}

/// Names in /dev/shm and /tmp that mention nccl (the sim must leave none).
fn leftovers() -> Vec<String> {
    ["/dev/shm", "/tmp"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("nccl"))
        .collect()
}

#[test]
fn a_killed_process_is_named_within_a_second_and_leaves_nothing_behind() {
    let before = leftovers();
    let id = UniqueId::random();
    let mut ranks: Vec<Rank> = (0..3).map(|r| spawn("kill", r, 3, &id, r)).collect();
    // Wait until the victim is in and the others have issued their all-reduce.
    let victim = ranks.pop().unwrap();
    let pid = victim.child.id();
    let mut victim = victim;
    let mut stdout = victim.child.stdout.take().unwrap();
    let mut buf = [0u8; 4096];
    let mut seen = String::new();
    let start = Instant::now();
    while !seen.contains("@@ ready") {
        use std::io::Read;
        let n = stdout.read(&mut buf).unwrap();
        assert!(
            n > 0 && start.elapsed() < PATIENCE,
            "the victim never got ready: {seen}"
        );
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    std::thread::sleep(Duration::from_millis(300)); // the others now wait in the collective
    victim.child.kill().unwrap();
    let killed_at = now_ms();
    victim.child.wait().unwrap();
    for r in ranks {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "{lines:?}");
        let at = lines
            .iter()
            .find_map(|l| l.strip_prefix("at "))
            .expect("an error");
        let (ms, text) = at.split_once(' ').unwrap();
        let ms: u128 = ms.parse().unwrap();
        assert!(
            text.contains(&format!("rank 2 (pid {pid}) died")),
            "rank {rank}: {text}"
        );
        let after = ms.saturating_sub(killed_at);
        eprintln!("rank {rank} learned of the kill {after} ms after it");
        assert!(
            after < 1000,
            "rank {rank} learned it {after} ms after the kill"
        );
        let remote = lines.iter().find_map(|l| l.strip_prefix("async ")).unwrap();
        assert!(
            remote.contains("rank 2"),
            "async_error names the dead rank: {remote}"
        );
    }
    assert_eq!(leftovers(), before, "nothing left in /dev/shm or /tmp");
    let sockets = std::fs::read_to_string("/proc/net/unix").unwrap();
    assert!(
        !sockets.contains(&id.sim_root_name()),
        "the rendezvous socket is gone"
    );
}

#[test]
fn an_abort_is_a_remote_failure_for_the_peers_within_a_second() {
    let out = run("abort", 2);
    let aborted_at: u128 = out[&0]
        .iter()
        .find_map(|l| l.strip_prefix("aborting at "))
        .unwrap()
        .parse()
        .unwrap();
    let at = out[&1].iter().find_map(|l| l.strip_prefix("at ")).unwrap();
    let (ms, text) = at.split_once(' ').unwrap();
    assert!(
        text.contains("rank 0 (pid") && text.contains("aborted"),
        "{text}"
    );
    let after = ms.parse::<u128>().unwrap().saturating_sub(aborted_at);
    eprintln!("rank 1 learned of rank 0's abort {after} ms after it");
    assert!(after < 1000, "{after} ms");
}

/// `unshare` giving each child its own user and pid namespace (and /proc), as
/// containers of one pod that share the network namespace have.
const OWN_PID_NAMESPACE: &[&str] = &["unshare", "-Urpf", "--mount-proc", "--kill-child"];

fn pid_namespaces_available() -> bool {
    let ok = Command::new(OWN_PID_NAMESPACE[0])
        .args(&OWN_PID_NAMESPACE[1..])
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok || std::env::var_os("NCCL_RS_NO_USER_NAMESPACES").is_some(),
        "`unshare -Urpf --mount-proc true` failed: this machine refuses user namespaces; \
         set NCCL_RS_NO_USER_NAMESPACES=1 to skip the pid-namespace tests (the locality \
         decision is still covered by the sim's unit tests)"
    );
    ok
}

/// Issue 18 item 3: ranks in different pid namespaces (both pid 1) tell their own
/// memory from the peer's, and see each other die.
#[test]
fn ranks_in_separate_pid_namespaces_reduce_right_and_see_a_death() {
    if !pid_namespaces_available() {
        eprintln!("skipped: no user namespaces here");
        return;
    }
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..2)
        .map(|r| spawn_with(Some(OWN_PID_NAMESPACE), "sum", r, 2, &id, r))
        .collect();
    for r in ranks {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "rank {rank}: {lines:?}");
        assert_eq!(one(&lines), "sum [3.0, 3.0, 3.0, 3.0] pid 1", "rank {rank}");
    }
    // A death across namespaces: rank 1 is killed while rank 0 waits for it.
    let id = UniqueId::random();
    let survivor = spawn_with(Some(OWN_PID_NAMESPACE), "kill", 0, 2, &id, 0);
    let mut victim = spawn_with(Some(OWN_PID_NAMESPACE), "kill", 1, 2, &id, 1);
    let _ = read_until(&mut victim, "@@ ready");
    std::thread::sleep(Duration::from_millis(300));
    victim.child.kill().unwrap(); // kills unshare, whose child (pid 1 there) goes with it
    let killed_at = now_ms();
    victim.child.wait().unwrap();
    let (_, ok, lines) = finish(survivor);
    assert!(ok, "{lines:?}");
    let at = lines.iter().find_map(|l| l.strip_prefix("at ")).unwrap();
    let (ms, text) = at.split_once(' ').unwrap();
    assert!(text.contains("rank 1 (pid 1) died"), "{text}");
    let after = ms.parse::<u128>().unwrap().saturating_sub(killed_at);
    eprintln!("the survivor learned of the kill across namespaces {after} ms after it");
    assert!(after < 2000, "{after} ms");
}
