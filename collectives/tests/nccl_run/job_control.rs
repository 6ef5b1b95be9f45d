//! The job around the ranks: `--timeout`, SIGTERM and SIGHUP forwarded to every rank,
//! ranks that die with a killed nccl-run, a rank's background child that neither
//! stalls the timeout nor outlives the job.

use std::process::Command;
use std::time::{Duration, Instant};

use super::{LONG, SCENARIO, nccl_run, nccl_run_program, stderr};

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
