//! `nccl-run` end to end on the sim: real processes that find their place with
//! `ProcessGroup::from_env` through the store `nccl-run` hosts. The launcher re-runs
//! this test binary as each rank (`child`, an entry point that normal runs show as
//! ignored); ranks report on lines starting with `@@`.

use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod common;

/// The `nccl-run` program (see `common::program`).
fn nccl_run_program() -> std::path::PathBuf {
    common::program("nccl-run", env!("CARGO_BIN_EXE_nccl-run"))
}

use collectives::{Launch, Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

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
            for i in 0.. {
                let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
                if rank == 2 && i == 3 {
                    // SAFETY: kill(2) has no memory effects; this process ends here.
                    unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
                }
                if let Err(e) = work.wait_host(LONG) {
                    println!("@@ error: {e}");
                    println!("@@ aborted: {}", pg.aborted().unwrap_or_default());
                    std::process::exit(1);
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

#[test]
fn four_ranks_run_every_collective() {
    let (out, _) = nccl_run(&["-n", "4"], "every-collective");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let by_rank = reports(&out);
    assert_eq!(by_rank.len(), 4, "{by_rank:?}\n{err}");
    for (rank, lines) in &by_rank {
        assert!(lines.iter().any(|l| l == "ok"), "rank {rank}: {lines:?}");
        // Local rank r on sim device r.
        assert_eq!(field(lines, "device "), Some(rank.to_string().as_str()));
    }
    assert!(
        err.contains("4 ranks") && err.contains("every rank exited with status 0"),
        "{err}"
    );
}

#[test]
fn a_failing_rank_stops_the_others_and_sets_the_status() {
    let (out, took) = nccl_run(&["-n", "4", "--grace", "1"], "exit-nonzero");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("rank 2 failed first (exit status 3)"),
        "summary: {err}"
    );
    assert!(err.contains("ranks 0,1,3 stopped by nccl-run"), "{err}");
    // The others sleep for a minute unless stopped.
    assert!(took < Duration::from_secs(30), "took {took:?}");
    // Rank 2's exit without closing its group was published by the store.
    assert!(err.contains("nccl-run: rank 2 (pid"), "{err}");
}

#[test]
fn a_killed_rank_is_named_by_every_other_rank_within_a_second() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "sigkill");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(128 + 9), "{err}");
    assert!(
        err.contains("rank 2 failed first (killed by SIGKILL)"),
        "{err}"
    );
    let by_rank = reports(&out);
    let killed: u128 = field(&by_rank[&2], "leaving at ").unwrap().parse().unwrap();
    for rank in [0, 1, 3] {
        let lines = &by_rank[&rank];
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let (at, text) = e.split_once(": ").unwrap();
        let after = at.parse::<u128>().unwrap().saturating_sub(killed);
        eprintln!("rank {rank} saw the kill after {after} ms: {text}");
        assert!(after < 1000, "rank {rank} took {after} ms: {text}");
        assert!(text.contains("rank 2 (pid "), "rank {rank}: {text}");
        let refused = field(lines, "refused: ").unwrap();
        assert!(refused.contains("is aborted: rank 2 (pid "), "{refused}");
    }
}

#[test]
fn a_rank_that_never_issues_is_named_in_the_report() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "1"], "missing");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    let by_rank = reports(&out);
    for rank in [0, 2, 3] {
        let lines = &by_rank[&rank];
        let issued: u128 = field(lines, "issued at ").unwrap().parse().unwrap();
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let at: u128 = e.split_once(": ").unwrap().0.parse().unwrap();
        // The group's timeout is 2 s.
        assert!(at - issued < 3000, "rank {rank}: {}", at - issued);
    }
    // The summary names the rank whose timeout was published first.
    let summary = err.lines().last().unwrap();
    assert!(
        summary.contains("first failure published: rank ") && summary.contains("timed out"),
        "{summary}"
    );
    let report: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("nccl-run: hang report: "))
        .collect();
    eprintln!("{}", report.join("\n"));
    assert!(
        report.iter().any(|l| l.contains("all_reduce #2")
            && l.contains("ranks 0,2,3 waiting; rank 1 never issued it (last: broadcast #1 at ")
            && l.contains("nccl_run.rs:")),
        "{err}"
    );
}

#[test]
fn a_rank_whose_watchdog_times_out_aborts_the_others_within_a_second() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "timeout-publishes");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let by_rank = reports(&out);
    let t = field(&by_rank[&2], "timed out at ").unwrap();
    let (at, text) = t.split_once(": ").unwrap();
    assert!(text.contains("timed out"), "{text}");
    let timed_out: u128 = at.parse().unwrap();
    for rank in [0, 1, 3] {
        let lines = &by_rank[&rank];
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let (at, text) = e.split_once(": ").unwrap();
        let after = at.parse::<u128>().unwrap().saturating_sub(timed_out);
        eprintln!("rank {rank} saw rank 2's timeout after {after} ms: {text}");
        assert!(after < 1000, "rank {rank} took {after} ms: {text}");
        assert!(
            text.contains("rank 2 (pid ")
                && text.contains("all_reduce #1")
                && text.contains("timed out"),
            "rank {rank}: {text}"
        );
    }
    assert!(err.contains("nccl-run: rank 2 (pid "), "{err}");
}

#[test]
fn the_job_timeout_stops_every_rank_with_status_124() {
    let (out, took) = nccl_run(&["-n", "2", "--timeout", "3"], "sleep");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(err.contains("--timeout 3.0 s reached"), "{err}");
    assert!(
        err.contains("2 ranks") && err.contains("stopped by --timeout"),
        "{err}"
    );
    // The ranks sleep for a minute unless stopped.
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
fn sigterm_is_forwarded_to_every_rank() {
    let exe = std::env::current_exe().unwrap();
    let child = Command::new(nccl_run_program())
        .args(["-n", "2", "--driver", "sim", "--tag-output", "--"])
        .arg(exe)
        .args([
            "--ignored",
            "--exact",
            "child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, "sleep")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let pid = i32::try_from(child.id()).unwrap();
    let start = Instant::now();
    // SAFETY: kill(2) has no memory effects; the pid is our child's.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(128 + 15), "{err}");
    assert!(
        err.contains("SIGTERM received, forwarding to every rank"),
        "{err}"
    );
    assert!(err.contains("stopped by SIGTERM"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn two_nodes_meet_at_the_master_address() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let exe = std::env::current_exe().unwrap();
    let master = format!("127.0.0.1:{port}");
    let node = |k: &str| {
        Command::new(nccl_run_program())
            .args([
                "-n",
                "2",
                "--nnodes",
                "2",
                "--node-rank",
                k,
                "--master",
                &master,
            ])
            .args(["--driver", "sim", "--tag-output", "--"])
            .arg(&exe)
            .args([
                "--ignored",
                "--exact",
                "child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SCENARIO, "multi-node")
            .env("NCCL_RS_STORE_TOKEN", "two-node-secret")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (n0, n1) = (node("0"), node("1"));
    let (o1, o0) = (
        n1.wait_with_output().unwrap(),
        n0.wait_with_output().unwrap(),
    );
    for (k, out) in [(0, &o0), (1, &o1)] {
        assert!(out.status.success(), "node {k}: {}", stderr(out));
        let by_rank = reports(out);
        let ranks: Vec<usize> = by_rank.keys().copied().collect();
        assert_eq!(ranks, [2 * k, 2 * k + 1], "node {k}");
        for (rank, lines) in by_rank {
            let want = format!("node {k} local {} sum 10", rank - 2 * k);
            assert_eq!(lines, [want], "rank {rank}");
        }
    }
}

/// The first rank a failure text names, past the failing operation's own names
/// ("on rank R of group G", "(rank R of G)").
fn first_blamed(text: &str) -> Option<usize> {
    text.match_indices("rank ").find_map(|(i, _)| {
        let digits: String = text[i + 5..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let own = text[i + 5 + digits.len()..].starts_with(" of ");
        if own { None } else { digits.parse().ok() }
    })
}

/// Issue 18 item 5: whichever survivor notices first, every survivor's error and
/// its `aborted()` reason name the killed rank first (30 runs).
#[test]
fn a_rank_killed_mid_collective_is_the_one_every_survivor_names() {
    assert_eq!(
        first_blamed("x on rank 0 of group default failed: a: rank 2 (pid 9)"),
        Some(2)
    );
    for run in 0..30 {
        let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "kill-mid-collective");
        let err = stderr(&out);
        let by_rank = reports(&out);
        for rank in [0, 1, 3] {
            let lines = by_rank.get(&rank).cloned().unwrap_or_default();
            let e = field(&lines, "error: ")
                .unwrap_or_else(|| panic!("run {run} rank {rank}: {lines:?}\n{err}"));
            let a = field(&lines, "aborted: ").unwrap();
            assert_eq!(first_blamed(e), Some(2), "run {run} rank {rank}: {e}");
            assert_eq!(first_blamed(a), Some(2), "run {run} rank {rank}: {a}");
        }
        assert!(
            err.contains("rank 2 failed first (killed by SIGKILL)"),
            "run {run}: {err}"
        );
    }
}

/// Issue 18 item 6: ranks that exit at once on their timeout publish the timeout;
/// their exits never replace it (5 runs).
#[test]
fn the_first_failure_published_stays_when_ranks_exit_on_their_error() {
    for run in 0..5 {
        let (out, _) = nccl_run(&["-n", "3", "--grace", "1"], "exit-on-timeout");
        let err = stderr(&out);
        let published = err
            .lines()
            .find(|l| l.contains("failed first, group default"))
            .unwrap_or_else(|| panic!("run {run}: nothing published: {err}"));
        assert!(
            published.contains("all_reduce #2") && published.contains("timed out"),
            "run {run}: {published}"
        );
        assert!(
            !published.contains("exited without closing"),
            "run {run}: {published}"
        );
    }
}

/// Issue 18 item 7: a rank that panics, or returns early with work that nothing
/// waits for, publishes a failure; the others stop within seconds, not at their
/// own (one minute) timeout.
#[test]
fn a_rank_that_panics_or_returns_early_is_a_failure_for_the_others() {
    for scenario in ["panic", "early-return"] {
        let (out, took) = nccl_run(&["-n", "3", "--grace", "5"], scenario);
        let err = stderr(&out);
        let by_rank = reports(&out);
        let left: u128 = field(&by_rank[&1], "leaving at ").unwrap().parse().unwrap();
        for rank in [0, 2] {
            let lines = &by_rank[&rank];
            let e = field(lines, "error at ")
                .unwrap_or_else(|| panic!("{scenario} rank {rank}: {lines:?}\n{err}"));
            let (at, text) = e.split_once(": ").unwrap();
            let after = at.parse::<u128>().unwrap().saturating_sub(left);
            assert!(
                after < 3000,
                "{scenario} rank {rank} took {after} ms: {text}"
            );
            assert!(text.contains("rank 1"), "{scenario} rank {rank}: {text}");
        }
        let want = if scenario == "panic" {
            "while panicking"
        } else {
            "nothing waits for"
        };
        assert!(err.contains(want), "{scenario}: {err}");
        assert!(took < Duration::from_secs(30), "{scenario}: {took:?}");
    }
}

/// Whether process `pid` exists (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|st| {
        !st.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// Starts nccl-run on `scenario` with its output piped; its stdout lines arrive on
/// the returned channel.
fn spawn_nccl_run(
    flags: &[&str],
    scenario: &str,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = Command::new(nccl_run_program())
        .args(flags)
        .args(["--driver", "sim", "--tag-output", "--"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, scenario)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// The `@@ KEY N` numbers printed, until `n` of them have come.
fn numbers_printed(rx: &std::sync::mpsc::Receiver<String>, key: &str, n: usize) -> Vec<u32> {
    let mut got = Vec::new();
    while got.len() < n {
        let line = rx.recv_timeout(LONG).expect("the ranks print");
        if let Some(i) = line.find(&format!("@@ {key} ")) {
            got.push(line[i + key.len() + 4..].trim().parse().unwrap());
        }
    }
    got
}

/// Issue 18 item 10: killing nccl-run with SIGKILL takes its ranks with it.
#[test]
fn ranks_die_with_a_killed_nccl_run() {
    let (mut run, rx) = spawn_nccl_run(&["-n", "2"], "sleep");
    let pids = numbers_printed(&rx, "sleeping", 2);
    run.kill().unwrap();
    run.wait().unwrap();
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "ranks {pids:?} outlived nccl-run"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!("the ranks were gone {:?} after nccl-run", start.elapsed());
}

/// Issue 18 item 10: a rank's background child holding the output pipe neither
/// outlives the job nor holds up `--timeout`.
#[test]
fn a_ranks_background_child_neither_stalls_the_timeout_nor_outlives_the_job() {
    let started = Instant::now();
    let (mut run, rx) = spawn_nccl_run(&["-n", "2", "--timeout", "2"], "background");
    let child = numbers_printed(&rx, "child", 1)[0];
    let status = run.wait().unwrap();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(124));
    eprintln!("nccl-run --timeout 2 ended after {took:?}");
    assert!(took < Duration::from_secs(6), "{took:?}");
    let start = Instant::now();
    while alive(child) {
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "the child {child} outlived the job"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Issue 18 item 10: SIGHUP is forwarded like SIGTERM.
#[test]
fn sighup_is_forwarded_to_every_rank() {
    let (run, rx) = spawn_nccl_run(&["-n", "2"], "sleep");
    let pids = numbers_printed(&rx, "sleeping", 2);
    // SAFETY: kill(2) has no memory effects; the pid is our child's.
    unsafe { libc::kill(i32::try_from(run.id()).unwrap(), libc::SIGHUP) };
    let out = run.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(128 + 1), "{err}");
    assert!(
        err.contains("SIGHUP received, forwarding to every rank"),
        "{err}"
    );
    assert!(pids.iter().all(|&p| !alive(p)));
}

/// Issue 18 item 11: with the defaults, a job whose rank never issues ends (report
/// printed) soon after the group's timeout, and a job with a killed rank soon after
/// the kill. The figures are printed; the bounds are generous.
#[test]
fn hung_and_killed_jobs_end_soon_with_the_defaults() {
    let (out, _) = nccl_run(&["-n", "4"], "missing");
    let ended = now_ms();
    let err = stderr(&out);
    assert!(
        err.contains("nccl-run: hang report: all_reduce #2"),
        "{err}"
    );
    let issued: u128 = field(&reports(&out)[&0], "issued at ")
        .unwrap()
        .parse()
        .unwrap();
    let after_timeout = ended.saturating_sub(issued).saturating_sub(2000);
    eprintln!("the hung job ended {after_timeout} ms after its 2 s timeout");
    assert!(after_timeout < 2000, "{after_timeout} ms\n{err}");

    let (out, _) = nccl_run(&["-n", "4"], "sigkill");
    let ended = now_ms();
    let err = stderr(&out);
    assert!(
        err.contains("rank 2 failed first (killed by SIGKILL)"),
        "{err}"
    );
    let killed: u128 = field(&reports(&out)[&2], "leaving at ")
        .unwrap()
        .parse()
        .unwrap();
    let after = ended.saturating_sub(killed);
    eprintln!("the job with a killed rank ended {after} ms after the kill");
    assert!(after < 2000, "{after} ms\n{err}");
}

#[test]
fn several_nodes_without_a_token_are_refused_saying_how_to_set_one() {
    // Node 0 of two would serve the store on every interface: not without a token.
    let out = Command::new(nccl_run_program())
        .args(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master"])
        .arg(format!("0.0.0.0:{}", common::free_port()))
        .args(["--driver", "sim", "--", "true"])
        .env_remove("NCCL_RS_STORE_TOKEN")
        .env_remove("NCCL_RS_STORE_INSECURE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("without a token") && err.contains("NCCL_RS_STORE_TOKEN"),
        "{err}"
    );
}
