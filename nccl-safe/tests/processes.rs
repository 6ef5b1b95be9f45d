//! The sim across processes: ranks in separate processes of this host, joined by the
//! unique id alone (passed as hex in the environment, as a launcher would). This test
//! binary re-runs itself as each rank (`child`, an entry point that normal runs show as
//! ignored). Children report on lines starting with `@@`.
//! The tests are by concept: every operation and leaks across processes in
//! `processes/operations.rs`, disagreements between processes in
//! `processes/mismatches.rs`, deaths, aborts and destroyed peers in
//! `processes/failures.rs`, late, stopped and missing ranks at init in
//! `processes/init.rs`; shrinking after a death and growing with a new process in
//! `processes/reshape.rs`. `child` stays here: the parents run it with `--exact child`.

mod common;

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::PATIENCE;
use common::reference::{check_all, check_every_type};
use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

#[path = "processes/failures.rs"]
mod failures;
#[path = "processes/init.rs"]
mod init;
#[path = "processes/mismatches.rs"]
mod mismatches;
#[path = "processes/operations.rs"]
mod operations;
#[path = "processes/reshape.rs"]
mod reshape;

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

/// As [`spawn`], with more variables in the child's environment.
fn spawn_env(
    scenario: &str,
    rank: usize,
    size: usize,
    id: &UniqueId,
    device: usize,
    env: &[(&str, &str)],
) -> Rank {
    spawn_full(None, scenario, rank, size, id, device, env)
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
    spawn_full(wrapper, scenario, rank, size, id, device, &[])
}

fn spawn_full(
    wrapper: Option<&[&str]>,
    scenario: &str,
    rank: usize,
    size: usize,
    id: &UniqueId,
    device: usize,
    env: &[(&str, &str)],
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
        .envs(env.iter().copied())
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
            let r = nccl_safe::with_call_label(format!("rank {rank}'s call"), || {
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
        "shrink-after-kill" => {
            let cfg = Config::new().blocking(false);
            let Some((comm, e)) = outlive_a_victim(rank, 2, init(&cfg).unwrap(), &s) else {
                return;
            };
            println!("@@ failed {e}");
            let revoked = comm.revoke().unwrap();
            let shrunk = revoked.shrink(&[2], &Config::new()).unwrap();
            let s2 = Stream::new(&dev).unwrap();
            let mut y = DeviceBuffer::from_slice(&s2, &[rank as u32; 4]).unwrap();
            shrunk
                .comm
                .all_reduce_in_place(&mut y, ReduceOp::Sum, &s2)
                .unwrap();
            println!(
                "@@ shrunk {} {} {:?}",
                shrunk.comm.rank(),
                shrunk.comm.size(),
                y.to_vec(&s2).unwrap()
            );
            shrunk.comm.close().unwrap();
            drop(revoked);
        }
        "shrink-member-dies" => {
            // Rank 3 is killed by the parent; rank 2 leaves after the failure, before
            // it shrinks (a death during the recovery). Ranks 0 and 1 shrink without
            // rank 3 only, and wait for rank 2 at most their call timeout (1.5 s).
            let cfg = Config::new()
                .blocking(false)
                .call_timeout(Duration::from_millis(1500));
            let Some((comm, _)) = outlive_a_victim(rank, 3, init(&cfg).unwrap(), &s) else {
                return;
            };
            if rank == 2 {
                println!("@@ leaving");
                std::process::exit(0);
            }
            let revoked = comm.revoke().unwrap();
            let started = Instant::now();
            let e = revoked.shrink(&[3], &Config::new()).unwrap_err();
            println!("@@ after {} ms: {e}", started.elapsed().as_millis());
        }
        "grow" => {
            // Ranks 0 and 1 grow into 3; rank 2 joins with the id rank 0 writes.
            let file = std::path::PathBuf::from(std::env::var("NCCL_RS_TEST_FILE").unwrap());
            let grown = if rank < 2 {
                let comm = Communicator::init(&dev, rank, 2, &id, &Config::new()).unwrap();
                let made = (rank == 0).then(|| comm.grow_id().unwrap());
                if let Some(g) = made {
                    let tmp = file.with_extension("tmp");
                    std::fs::write(&tmp, g.to_hex()).unwrap();
                    std::fs::rename(&tmp, &file).unwrap();
                }
                comm.grow(3, made.as_ref(), &Config::new()).unwrap()
            } else {
                let g = loop {
                    match std::fs::read_to_string(&file) {
                        Ok(t) => break nccl_safe::GrowId::from_hex(&t).unwrap(),
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                };
                let cfg = Config::new().call_timeout(PATIENCE);
                match Communicator::join_grown(&dev, rank, 3, &g, &cfg) {
                    Ok(c) => c,
                    Err(e) => {
                        println!("@@ refused {e}");
                        return;
                    }
                }
            };
            let mut y = DeviceBuffer::from_slice(&s, &[rank as u32 + 1; 4]).unwrap();
            grown
                .all_reduce_in_place(&mut y, ReduceOp::Sum, &s)
                .unwrap();
            println!("@@ grown {} {:?}", grown.rank(), y.to_vec(&s).unwrap());
            // Stay until the parent tried a late joiner (its refusal comes from the
            // grow's root, which lives as long as a process of the grow does).
            std::thread::sleep(Duration::from_millis(
                std::env::var("NCCL_RS_TEST_STAY_MS").map_or(0, |v| v.parse().unwrap()),
            ));
            grown.close().unwrap();
        }
        other => panic!("unknown scenario {other}"),
    }
}

/// The shrink scenarios' start: every rank is ready; `victim` says so and waits to
/// be killed by the parent (`None` for it); the others issue an all-reduce, which the
/// death fails, and get the communicator back with that error.
fn outlive_a_victim(
    rank: usize,
    victim: usize,
    comm: Communicator,
    s: &Stream,
) -> Option<(Communicator, nccl_safe::Error)> {
    comm.wait_ready(PATIENCE).unwrap();
    if rank == victim {
        println!("@@ ready");
        std::thread::sleep(Duration::from_secs(3600)); // killed by the parent
        return None;
    }
    let mut x = DeviceBuffer::from_slice(s, &[1u32; 64]).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, s).unwrap();
    let e = s.synchronize_timeout(PATIENCE).unwrap_err();
    Some((comm, e))
}

fn one(lines: &[String]) -> &str {
    lines.first().map(String::as_str).unwrap_or("")
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
