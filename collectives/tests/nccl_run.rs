//! `nccl-run` end to end on the sim: real processes that find their place with
//! `ProcessGroup::from_env` through the store `nccl-run` hosts. The launcher re-runs
//! this test binary as each rank (`child`, an entry point that normal runs show as
//! ignored); ranks report on lines starting with `@@`.
//! By concept: where ranks run (one node's devices, two nodes, the token several need)
//! in `nccl_run/nodes.rs`; failing, killed, hung and missing ranks and what every other
//! rank and the summary name in `nccl_run/failures.rs`; the job timeout, signals and
//! the ranks' lifetimes in `nccl_run/job_control.rs`; jobs that heal (shrink, restart,
//! the `elastic` example) in `nccl_run/healing.rs`. `child` stays here: nccl-run
//! runs it with `--exact child`, and the hang report's call sites name this file.

use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use collectives::{Launch, Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

mod common;

#[path = "nccl_run/failures.rs"]
mod failures;
#[path = "nccl_run/healing.rs"]
mod healing;
#[path = "nccl_run/job_control.rs"]
mod job_control;
#[path = "nccl_run/nodes.rs"]
mod nodes;

/// The `nccl-run` program (see `common::program`).
fn nccl_run_program() -> std::path::PathBuf {
    common::program("nccl-run", env!("CARGO_BIN_EXE_nccl-run"))
}

const SCENARIO: &str = "NCCL_RS_TEST_SCENARIO";
const LONG: Duration = Duration::from_secs(60);

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// Runs `nccl-run FLAGS -- <this binary as child>` with `scenario`.
fn nccl_run(flags: &[&str], scenario: &str) -> (Output, Duration) {
    let exe = std::env::current_exe().unwrap();
    let start = Instant::now();
    let out = Command::new(nccl_run_program())
        .args(flags)
        .args(["--driver", "sim", "--tag-output", "--"])
        .arg(exe)
        .args([
            "--ignored",
            "--exact",
            "child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, scenario)
        .output()
        .expect("nccl-run starts");
    (out, start.elapsed())
}

/// The `@@` lines of each rank (from nccl-run's `[rank R] ` tags).
fn reports(out: &Output) -> BTreeMap<usize, Vec<String>> {
    let mut by_rank: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("[rank ") else {
            continue;
        };
        let Some((rank, msg)) = rest.split_once("] ") else {
            continue;
        };
        if let (Ok(rank), Some(i)) = (rank.parse(), msg.find("@@ ")) {
            by_rank
                .entry(rank)
                .or_default()
                .push(msg[i + 3..].to_string());
        }
    }
    by_rank
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn field<'a>(lines: &'a [String], key: &str) -> Option<&'a str> {
    lines.iter().find_map(|l| l.strip_prefix(key))
}

/// What each rank runs.
#[test]
#[ignore = "the entry point of nccl-run's ranks in this file's tests"]
fn child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let launch = Launch::from_env().unwrap();
    let (rank, size) = (launch.rank(), launch.world_size());
    if scenario == "multi-node" {
        // Two "nodes" on one host would map their local ranks to the same sim
        // devices, which one group refuses: here each rank takes the device of its
        // global rank.
        let dev = nccl_safe::Device::sim(rank).unwrap();
        let pg = ProcessGroup::from_launch_on(&launch, &dev, Options::new().timeout(LONG)).unwrap();
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as i64 + 1; 2]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(LONG)
            .unwrap();
        println!(
            "@@ node {} local {} sum {}",
            launch.node().unwrap(),
            launch.local_rank(),
            x.to_vec(&s).unwrap()[0]
        );
        return;
    }
    if scenario.starts_with("heal-") {
        return healing::child(&scenario, &launch);
    }
    let timeout = match scenario.as_str() {
        "missing" => Duration::from_secs(2),
        "timeout-publishes" if rank == 2 => Duration::from_secs(1),
        "exit-on-timeout" => Duration::from_secs(1),
        _ => LONG,
    };
    let pg = ProcessGroup::from_launch(&launch, Options::new().timeout(timeout)).unwrap();
    println!("@@ device {}", pg.device().ordinal());
    let s = Stream::new(pg.device()).unwrap();
    match scenario.as_str() {
        "every-collective" => every_collective(&pg, &s, rank, size),
        "exit-nonzero" => {
            if rank == 2 {
                std::process::exit(3);
            }
            std::thread::sleep(LONG);
        }
        "sigkill" => {
            // The others have nothing in flight: only the store can tell them.
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64; 4]).unwrap();
            pg.broadcast(&mut x, 0).unwrap().wait_host(LONG).unwrap();
            if rank == 2 {
                std::thread::sleep(Duration::from_millis(300));
                println!("@@ leaving at {}", now_ms());
                // SAFETY: kill(2) has no memory effects; this process ends here.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            }
            let start = Instant::now();
            while start.elapsed() < LONG {
                if let Some(reason) = pg.aborted() {
                    println!("@@ error at {}: {reason}", now_ms());
                    let err = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap_err();
                    println!("@@ refused: {err}");
                    drop(pg);
                    std::process::exit(1);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        "sleep" => {
            println!("@@ sleeping {}", std::process::id());
            std::thread::sleep(LONG);
        }
        "background" => {
            // Rank 0 leaves a background child holding its output pipe and exits;
            // rank 1 sleeps until nccl-run stops it.
            if rank == 0 {
                let child = Command::new("sleep").arg("600").spawn().unwrap();
                println!("@@ child {}", child.id());
                std::mem::forget(child);
                return;
            }
            std::thread::sleep(LONG);
        }
        "timeout-publishes" => {
            // Rank 2 issues an all-reduce nobody else does; its watchdog times it out
            // after 1 s. The others have nothing in flight: only the store tells them.
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64; 4]).unwrap();
            if rank == 2 {
                let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
                let err = work.wait_host(LONG).unwrap_err();
                println!("@@ timed out at {}: {err}", now_ms());
                drop((work, pg));
                std::process::exit(1);
            }
            let start = Instant::now();
            while start.elapsed() < LONG {
                if let Some(reason) = pg.aborted() {
                    println!("@@ error at {}: {reason}", now_ms());
                    drop(pg);
                    std::process::exit(1);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        "missing" => {
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64; 4]).unwrap();
            pg.broadcast(&mut x, 0).unwrap().wait_host(LONG).unwrap();
            if rank == 1 {
                std::thread::sleep(LONG);
                return;
            }
            println!("@@ issued at {}", now_ms());
            let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
            let err = work.wait_host(LONG).unwrap_err();
            println!("@@ error at {}: {err}", now_ms());
            // As a program's `?` would: the group is dropped (its flight record and
            // failure reach the store), then the process fails.
            drop((work, pg));
            std::process::exit(1);
        }
        "kill-mid-collective" => {
            // All-reduces in a loop; rank 2 kills itself with one issued.
            let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 1 << 10]).unwrap();
            fn fail(pg: &ProcessGroup, e: collectives::Error) -> ! {
                println!("@@ error: {e}");
                println!("@@ aborted: {}", pg.aborted().unwrap_or_default());
                std::process::exit(1);
            }
            for i in 0.. {
                // (A survivor may learn of the death between two all-reduces: the
                // next one is refused then, naming the dead rank.)
                let work = pg
                    .all_reduce(&mut x, ReduceOp::Sum)
                    .unwrap_or_else(|e| fail(&pg, e));
                if rank == 2 && i == 3 {
                    // SAFETY: kill(2) has no memory effects; this process ends here.
                    unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
                }
                if let Err(e) = work.wait_host(LONG) {
                    fail(&pg, e);
                }
            }
        }
        "exit-on-timeout" => {
            // Rank 2 never issues the second all-reduce; the others time out (1 s)
            // and exit at once on their error, without dropping anything.
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64; 4]).unwrap();
            pg.all_reduce(&mut x, ReduceOp::Sum)
                .unwrap()
                .wait_host(LONG)
                .unwrap();
            if rank == 2 {
                std::thread::sleep(LONG);
                return;
            }
            let err = pg
                .all_reduce(&mut x, ReduceOp::Sum)
                .unwrap()
                .wait_host(LONG)
                .unwrap_err();
            println!("@@ error: {err}");
            std::process::exit(1);
        }
        "panic" | "early-return" => {
            // Rank 1 leaves: by a panic, or by returning early with a receive that
            // nothing waits for. The others wait in an all-reduce it never issues.
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64; 4]).unwrap();
            if rank == 1 {
                std::thread::sleep(Duration::from_millis(300));
                println!("@@ leaving at {}", now_ms());
                if scenario == "panic" {
                    panic!("rank 1 gives up");
                }
                let _ = pg.recv(&mut x, 0).unwrap();
                return; // the Work is dropped first, then the group
            }
            let err = pg
                .all_reduce(&mut x, ReduceOp::Sum)
                .unwrap()
                .wait_host(LONG)
                .unwrap_err();
            println!("@@ error at {}: {err}", now_ms());
            drop(pg);
            std::process::exit(1);
        }
        other => panic!("unknown scenario {other}"),
    }
    println!("@@ ok");
}

fn every_collective(pg: &ProcessGroup, s: &Stream, rank: usize, size: usize) {
    let r = rank as i64;
    let n = size as i64;
    let host = Duration::from_secs(30);
    let mut a = DeviceBuffer::from_slice(s, &[r + 1; 5]).unwrap();
    pg.all_reduce(&mut a, ReduceOp::Sum)
        .unwrap()
        .wait_host(host)
        .unwrap();
    assert_eq!(a.to_vec(s).unwrap(), vec![n * (n + 1) / 2; 5]);

    let mut b = DeviceBuffer::from_slice(s, &[r * 10; 3]).unwrap();
    pg.broadcast(&mut b, size - 1)
        .unwrap()
        .wait_host(host)
        .unwrap();
    assert_eq!(b.to_vec(s).unwrap(), vec![(n - 1) * 10; 3]);

    let send = DeviceBuffer::from_slice(s, &[r; 2]).unwrap();
    let mut out = DeviceBuffer::<i64>::zeroed(s, 2).unwrap();
    let root = 1 % size;
    let recv: Option<&mut dyn nccl_safe::AsDeviceViewMut<i64>> =
        (rank == root).then_some(&mut out as _);
    pg.reduce(&send, recv, ReduceOp::Sum, root)
        .unwrap()
        .wait_host(host)
        .unwrap();
    if rank == root {
        assert_eq!(out.to_vec(s).unwrap(), vec![n * (n - 1) / 2; 2]);
    }

    let mut gathered = DeviceBuffer::<i64>::zeroed(s, 2 * size).unwrap();
    pg.all_gather(&send, &mut gathered)
        .unwrap()
        .wait_host(host)
        .unwrap();
    let expect: Vec<i64> = (0..n).flat_map(|p| [p, p]).collect();
    assert_eq!(gathered.to_vec(s).unwrap(), expect);

    let rs: Vec<i64> = (0..2 * n).map(|i| i + r).collect();
    let rs = DeviceBuffer::from_slice(s, &rs).unwrap();
    let mut mine = DeviceBuffer::<i64>::zeroed(s, 2).unwrap();
    pg.reduce_scatter(&rs, &mut mine, ReduceOp::Sum)
        .unwrap()
        .wait_host(host)
        .unwrap();
    let expect: Vec<i64> = (0..2).map(|j| n * (2 * r + j) + n * (n - 1) / 2).collect();
    assert_eq!(mine.to_vec(s).unwrap(), expect);

    let a2a: Vec<i64> = (0..n).map(|p| r * 10 + p).collect();
    let a2a = DeviceBuffer::from_slice(s, &a2a).unwrap();
    let mut got = DeviceBuffer::<i64>::zeroed(s, size).unwrap();
    pg.all_to_all(&a2a, &mut got)
        .unwrap()
        .wait_host(host)
        .unwrap();
    let expect: Vec<i64> = (0..n).map(|p| p * 10 + r).collect();
    assert_eq!(got.to_vec(s).unwrap(), expect);

    let one = DeviceBuffer::from_slice(s, &[r]).unwrap();
    let mut all = DeviceBuffer::<i64>::zeroed(s, size).unwrap();
    let recv: Option<&mut dyn nccl_safe::AsDeviceViewMut<i64>> =
        (rank == 0).then_some(&mut all as _);
    pg.gather(&one, recv, 0).unwrap().wait_host(host).unwrap();
    if rank == 0 {
        assert_eq!(all.to_vec(s).unwrap(), (0..n).collect::<Vec<_>>());
    }

    let root = 2 % size;
    let src: Vec<i64> = (0..n).map(|p| 100 + p).collect();
    let src = DeviceBuffer::from_slice(s, &src).unwrap();
    let mut part = DeviceBuffer::<i64>::zeroed(s, 1).unwrap();
    let send: Option<&dyn nccl_safe::AsDeviceView<i64>> = (rank == root).then_some(&src as _);
    pg.scatter(send, &mut part, root)
        .unwrap()
        .wait_host(host)
        .unwrap();
    assert_eq!(part.to_vec(s).unwrap(), vec![100 + r]);

    // A ring of sends and receives: even ranks send first, odd ranks receive first.
    let (next, prev) = ((rank + 1) % size, (rank + size - 1) % size);
    let token = DeviceBuffer::from_slice(s, &[r * 7; 3]).unwrap();
    let mut from_prev = DeviceBuffer::<i64>::zeroed(s, 3).unwrap();
    let works = if rank % 2 == 0 {
        [
            pg.send(&token, next).unwrap(),
            pg.recv(&mut from_prev, prev).unwrap(),
        ]
    } else {
        let w = pg.recv(&mut from_prev, prev).unwrap();
        [w, pg.send(&token, next).unwrap()]
    };
    for w in works {
        w.wait_host(host).unwrap();
    }
    // No rank may destroy its communicator while a peer's send still waits for the
    // receive's acknowledgement.
    pg.barrier().unwrap().wait_host(host).unwrap();
    assert_eq!(from_prev.to_vec(s).unwrap(), vec![prev as i64 * 7; 3]);
}
