//! The sim across processes: ranks in separate processes of this host, joined by the
//! unique id alone (passed as hex in the environment, as a launcher would). This test
//! binary re-runs itself as each rank (`child`, an entry point that normal runs show as
//! ignored). Children report on lines starting with `@@`.

mod common;

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::PATIENCE;
use common::reference::{check_all, check_every_type};
use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

const SCENARIO: &str = "NCCL_RS_TEST_SCENARIO";

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// A rank in a child process.
struct Rank {
    rank: usize,
    child: Child,
}

fn spawn(scenario: &str, rank: usize, size: usize, id: &UniqueId, device: usize) -> Rank {
    spawn_with(None, scenario, rank, size, id, device)
}

/// As [`spawn`], the child started by `wrapper` (e.g. `unshare ...`) when given.
fn spawn_with(
    wrapper: Option<&[&str]>,
    scenario: &str,
    rank: usize,
    size: usize,
    id: &UniqueId,
    device: usize,
) -> Rank {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match wrapper {
        Some(w) => {
            let mut c = Command::new(w[0]);
            c.args(&w[1..]).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    let child = cmd
        .args([
            "--ignored",
            "--exact",
            "child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, scenario)
        .env("RANK", rank.to_string())
        .env("WORLD_SIZE", size.to_string())
        .env("SIM_DEVICE", device.to_string())
        .env("NCCL_RS_TEST_ID", id.to_hex())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary re-runs itself");
    Rank { rank, child }
}

/// Waits for a child (killing it past `PATIENCE`); its `@@` lines and exit status.
fn finish(mut r: Rank) -> (usize, bool, Vec<String>) {
    let start = Instant::now();
    loop {
        match r.child.try_wait().unwrap() {
            Some(_) => break,
            None if start.elapsed() > PATIENCE => {
                let _ = r.child.kill();
                break;
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let out = r.child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.find("@@ ").map(|i| l[i + 3..].to_string()))
        .collect();
    if !out.status.success() {
        eprintln!("rank {} failed:\n{text}", r.rank);
    }
    (r.rank, out.status.success(), lines)
}

/// Runs `scenario` on `n` processes (rank r on sim device r); every `@@` line by rank.
fn run(scenario: &str, n: usize) -> BTreeMap<usize, Vec<String>> {
    let id = UniqueId::random();
    let ranks: Vec<Rank> = (0..n).map(|r| spawn(scenario, r, n, &id, r)).collect();
    let mut out = BTreeMap::new();
    for r in ranks {
        let (rank, ok, lines) = finish(r);
        assert!(ok, "rank {rank} of {scenario} failed: {lines:?}");
        out.insert(rank, lines);
    }
    out
}

fn env_usize(name: &str) -> usize {
    std::env::var(name).unwrap().parse().unwrap()
}

/// What a child runs.
#[test]
#[ignore = "the entry point of this file's child processes (run by the other tests)"]
fn child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let (rank, size) = (env_usize("RANK"), env_usize("WORLD_SIZE"));
    let dev = Device::sim(env_usize("SIM_DEVICE")).unwrap();
    let id = UniqueId::from_hex(&std::env::var("NCCL_RS_TEST_ID").unwrap()).unwrap();
    let s = Stream::new(&dev).unwrap();
    let init = |cfg: &Config| Communicator::init(&dev, rank, size, &id, cfg);
    match scenario.as_str() {
        "every-collective" => {
            let comm = init(&Config::new()).unwrap();
            check_every_type(rank, &dev, &comm, 5 + size);
            // A group of mixed operations.
            let mut a = DeviceBuffer::from_slice(&s, &[rank as i64 + 1; 6]).unwrap();
            let mut b = DeviceBuffer::from_slice(&s, &[rank as f32; 3]).unwrap();
            let out = DeviceBuffer::from_slice(&s, &[rank as u8; 4]).unwrap();
            let mut inb = DeviceBuffer::<u8>::zeroed(&s, 4).unwrap();
            let (next, prev) = ((rank + 1) % size, (rank + size - 1) % size);
            nccl_safe::group(|_| {
                comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s)?;
                comm.broadcast(&mut b, size - 1, &s)?;
                comm.send(&out, next, &s)?;
                comm.recv(&mut inb, prev, &s)
            })
            .unwrap();
            let sum = (1..=size as i64).sum::<i64>();
            assert_eq!(a.to_vec(&s).unwrap(), vec![sum; 6]);
            assert_eq!(b.to_vec(&s).unwrap(), vec![(size - 1) as f32; 3]);
            assert_eq!(inb.to_vec(&s).unwrap(), vec![prev as u8; 4]);
            // Split across processes: even and odd ranks.
            let sub = comm
                .split(Some(rank as u32 % 2), 0, &Config::new())
                .unwrap()
                .unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[rank as u32; 2]).unwrap();
            sub.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            let want: u32 = (0..size as u32).filter(|r| r % 2 == rank as u32 % 2).sum();
            assert_eq!(x.to_vec(&s).unwrap(), vec![want; 2]);
            check_all::<i32>(sub.rank(), &dev, &sub, 3);
            sub.close().unwrap();
            comm.close().unwrap();
            println!("@@ ok");
        }
        "mismatch" => {
            let comm = init(&Config::new().blocking(false)).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
            let mut y = DeviceBuffer::<f32>::zeroed(&s, 8).unwrap();
            let r = nccl_safe::with_call_label(&format!("rank {rank}'s call"), || {
                if rank == 1 {
                    comm.all_gather(&x, &mut y, &s)
                } else {
                    comm.all_reduce(&x, &mut y.view_mut(0..4).unwrap(), ReduceOp::Sum, &s)
                }
            });
            let e = match r {
                Err(e) => e,
                Ok(()) => s.synchronize_timeout(PATIENCE).unwrap_err(),
            };
            println!("@@ {e}");
            comm.abort_handle().unwrap().abort().unwrap();
        }
        "size-mismatch" => {
            // Rank 1 says the world has three ranks.
            let size = if rank == 1 { 3 } else { 2 };
            let cfg = Config::new().blocking(false);
            match Communicator::init(&dev, rank, size, &id, &cfg) {
                Err(e) => println!("@@ {e}"),
                Ok(c) => {
                    let e = c.wait_ready(Duration::from_millis(1500)).unwrap_err();
                    println!("@@ {e}");
                }
            }
        }
        "destroyed" => {
            let comm = init(&Config::new()).unwrap();
            if rank == 1 {
                comm.close().unwrap();
                println!("@@ closed");
                return;
            }
            // Give rank 1 the time to close (it need not have: the collective waits).
            std::thread::sleep(Duration::from_millis(100));
            let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            println!("@@ {}", s.synchronize_timeout(PATIENCE).unwrap_err());
        }
        "kill" => {
            let comm = init(&Config::new().blocking(false)).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            if rank == size - 1 {
                println!("@@ ready");
                std::thread::sleep(Duration::from_secs(3600)); // killed by the parent
                return;
            }
            let mut x = DeviceBuffer::from_slice(&s, &[1i64; 1 << 12]).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            println!("@@ issued");
            let e = s.synchronize_timeout(PATIENCE).unwrap_err();
            println!("@@ at {} {e}", now_ms());
            let remote = comm.async_error().unwrap();
            println!(
                "@@ async {}",
                remote.map(|e| e.to_string()).unwrap_or_default()
            );
            // Stay until the other survivor has reported too (exiting is a death to it).
            std::thread::sleep(Duration::from_millis(500));
        }
        "abort" => {
            let comm = init(&Config::new().blocking(false)).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            if rank == 0 {
                std::thread::sleep(Duration::from_millis(300));
                println!("@@ aborting at {}", now_ms());
                comm.abort_handle().unwrap().abort().unwrap();
                return;
            }
            let mut x = DeviceBuffer::from_slice(&s, &[1u8; 16]).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            let e = s.synchronize_timeout(PATIENCE).unwrap_err();
            println!("@@ at {} {e}", now_ms());
        }
        "late" => {
            let started = Instant::now();
            let comm = init(&Config::new().blocking(false)).unwrap();
            let returned = started.elapsed();
            comm.wait_ready(PATIENCE).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[rank as u64 + 1; 8]).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            assert_eq!(x.to_vec(&s).unwrap(), vec![3; 8]);
            println!(
                "@@ init returned after {} ms, ready after {} ms",
                returned.as_millis(),
                started.elapsed().as_millis()
            );
        }
        "init-timeout" => {
            let comm = match init(&Config::new().blocking(false)) {
                Ok(c) => c,
                Err(e) => {
                    println!("@@ {e}");
                    return;
                }
            };
            let e = comm.wait_ready(Duration::from_millis(700)).unwrap_err();
            println!("@@ {e}");
            // The root lives in the first rank's process: stay until the others are done.
            std::thread::sleep(Duration::from_millis(700));
            comm.abort_handle().unwrap().abort().unwrap();
        }
        "stopped-root" => {
            if rank == 0 {
                // Hosts the rendezvous root (the first to join), then is stopped by
                // the parent with SIGSTOP and later killed.
                let _comm = init(&Config::new().blocking(false)).unwrap();
                println!("@@ hosting");
                std::thread::sleep(Duration::from_secs(3600));
                return;
            }
            let started = Instant::now();
            let comm = init(&Config::new().blocking(false)).unwrap();
            println!(
                "@@ init returned after {} ms",
                started.elapsed().as_millis()
            );
            let e = comm.wait_ready(Duration::from_millis(500)).unwrap_err();
            println!("@@ wait_ready {e}");
            let aborting = Instant::now();
            comm.abort_handle().unwrap().abort().unwrap();
            println!("@@ aborted in {} ms", aborting.elapsed().as_millis());
        }
        "join-and-leave" => {
            // Rank 1 gives up early and leaves; rank 0 (hosting the root) waits longer.
            let comm = init(&Config::new().blocking(false)).unwrap();
            println!("@@ joining");
            let patience = if rank == 1 { 300 } else { 1500 };
            let e = comm
                .wait_ready(Duration::from_millis(patience))
                .unwrap_err();
            println!("@@ {e}");
            comm.abort_handle().unwrap().abort().unwrap();
        }
        "sum" => {
            let comm = init(&Config::new()).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 4]).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            println!(
                "@@ sum {:?} pid {}",
                x.to_vec(&s).unwrap(),
                std::process::id()
            );
            comm.close().unwrap();
        }
        "many" => {
            let comm = init(&Config::new()).unwrap();
            let round = |k: usize| {
                let mut bufs: Vec<DeviceBuffer<i32>> = (0..1000)
                    .map(|i| {
                        DeviceBuffer::from_slice(&s, &[(rank * 10_000 + i) as i32; 2]).unwrap()
                    })
                    .collect();
                for b in bufs.iter_mut() {
                    comm.all_reduce_in_place(b, ReduceOp::Sum, &s).unwrap();
                }
                s.synchronize_timeout(PATIENCE).unwrap();
                let base: i32 = (0..size as i32).map(|r| r * 10_000).sum();
                for (i, b) in bufs.iter().enumerate() {
                    assert_eq!(
                        b.to_vec(&s).unwrap(),
                        vec![base + (size * i) as i32; 2],
                        "round {k}"
                    );
                }
            };
            // Open descriptors, and shared-memory mappings (device memory and control
            // segments are memfds): neither may grow with the number of operations.
            let counts = || {
                let fds = std::fs::read_dir("/proc/self/fd").unwrap().count();
                let maps = std::fs::read_to_string("/proc/self/maps")
                    .unwrap()
                    .lines()
                    .filter(|l| l.contains("memfd:"))
                    .count();
                (fds, maps)
            };
            round(0);
            let before = counts();
            round(1);
            round(2);
            let after = counts();
            println!(
                "@@ fds {} -> {}, maps {} -> {}",
                before.0, after.0, before.1, after.1
            );
            comm.close().unwrap();
        }
        other => panic!("unknown scenario {other}"),
    }
}

fn one(lines: &[String]) -> &str {
    lines.first().map(String::as_str).unwrap_or("")
}

#[test]
fn every_collective_and_point_to_point_operation_on_2_3_and_4_processes() {
    for n in 2..=4 {
        let out = run("every-collective", n);
        assert!(
            out.values().all(|l| l.contains(&"ok".to_string())),
            "{out:?}"
        );
    }
}

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

/// Reads a child's stdout until a line with `marker`: the `@@` lines so far, and a
/// thread that collects the later ones (until the child closes its stdout).
fn read_until(r: &mut Rank, marker: &str) -> (Vec<String>, std::thread::JoinHandle<Vec<String>>) {
    use std::io::BufRead;
    let stdout = r.child.stdout.take().expect("stdout not yet taken");
    let mut reader = std::io::BufReader::new(stdout);
    let mut lines = Vec::new();
    let start = Instant::now();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap();
        assert!(
            n > 0 && start.elapsed() < PATIENCE,
            "rank {} ended before printing {marker:?}: {lines:?}",
            r.rank
        );
        if let Some(i) = line.find("@@ ") {
            lines.push(line[i + 3..].trim_end().to_string());
        }
        if line.contains(marker) {
            // Keep reading in the background so the child never blocks on a full pipe.
            let rest = std::thread::spawn(move || {
                reader
                    .lines()
                    .map_while(|l| l.ok())
                    .filter_map(|l| l.find("@@ ").map(|i| l[i + 3..].to_string()))
                    .collect()
            });
            return (lines, rest);
        }
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

#[test]
fn a_thousand_async_all_reduces_on_four_processes_leak_no_descriptor_or_mapping() {
    let out = run("many", 4);
    for (rank, lines) in out {
        let l = one(&lines);
        let nums: Vec<usize> = l
            .split(|c: char| !c.is_ascii_digit())
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(nums.len(), 4, "{l}");
        assert_eq!(nums[0], nums[1], "rank {rank}: descriptors grew: {l}");
        assert_eq!(nums[2], nums[3], "rank {rank}: mappings grew: {l}");
    }
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
