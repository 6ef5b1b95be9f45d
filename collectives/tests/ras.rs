//! A timed-out operation asks NCCL's RAS service about the job, and the dump and the
//! hang report carry its verdict: on the sim against a server that answers as RAS
//! does (there is no RAS on the sim; `NCCL_RAS_ADDR` names this one), and on a GPU
//! against NCCL's own (ignored without one). Each case runs in a child process (this
//! test binary again, `child`), so that its environment is its own.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Dump, Error, Options, ProcessGroup, hang_report};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, UniqueId};

const PATIENCE: Duration = Duration::from_secs(30);

/// A job status as NCCL's RAS writes it (`SET FORMAT json`): rank 1 of a 2-rank
/// communicator unresponsive.
const STATUS: &str = r#"{"nccl_version": "2.29.2", "communicators": [{"hash": "0x77",
  "size": 2, "ranks": [{"rank": 0, "host": "127.0.0.1", "pid": 10, "status":
  {"init_state": 0, "async_error": 0, "abort_flag": false}, "collective_counts":
  {"AllReduce": 2}}], "missing_ranks": [{"rank": 1, "host": "127.0.0.1", "pid": 11,
  "status": {"unresponsive": true, "considered_dead": false}}]}], "ras":
  {"timeouts_count": 0}}"#;

#[test]
#[ignore = "the entry point of this file's child processes (run by the other tests)"]
fn child() {
    let Ok(driver) = std::env::var("RAS_TEST_DRIVER") else {
        return;
    };
    let dev = match driver.as_str() {
        "cuda" => Device::cuda(0).unwrap(),
        _ => Device::sim(0).unwrap(),
    };
    let opts = Options::new()
        .name("ras")
        .timeout(Duration::from_millis(500))
        .watchdog_interval(Duration::from_millis(20));
    let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), opts).unwrap();
    let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1.0f32; 4]).unwrap();
    // The communication stream waits for a gate nobody opens: the all-reduce hangs.
    let gate = Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let err = pg
        .all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    // The verdict is written on the dump thread after the first dump: wait for it.
    let dir = std::env::var_os("NCCL_RS_TRACE_DIR").unwrap();
    let start = Instant::now();
    while dumps(Path::new(&dir)).iter().all(|d| d.ras.is_empty()) {
        assert!(start.elapsed() < PATIENCE, "no RAS verdict in the dump");
        thread::sleep(Duration::from_millis(20));
    }
    gate.open();
}

fn dumps(dir: &Path) -> Vec<Dump> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .filter_map(|p| Dump::read(&p).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `child` on `driver` with `env`; the dumps it wrote.
fn run_child(driver: &str, env: &[(&str, &str)]) -> Vec<Dump> {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--ignored", "--exact", "child", "--nocapture"])
        .env("RAS_TEST_DRIVER", driver)
        .env("NCCL_RS_DRIVER", driver)
        .env("NCCL_RS_TRACE_DIR", dir.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "child on {driver}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    dumps(dir.path())
}

/// A server on a loopback port that answers one client as NCCL's RAS does.
fn fake_ras() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut out = conn.try_clone().unwrap();
        for line in BufReader::new(conn).lines() {
            let line = line.unwrap().to_ascii_uppercase();
            let answer = if line == "CLIENT PROTOCOL 2" {
                "SERVER PROTOCOL 2\n"
            } else if line == "STATUS" {
                out.write_all(STATUS.as_bytes()).unwrap();
                return;
            } else {
                "OK\n"
            };
            out.write_all(answer.as_bytes()).unwrap();
        }
    });
    addr
}

#[test]
fn a_timeout_asks_ras_and_the_dump_and_report_carry_its_verdict() {
    let addr = fake_ras();
    let dumps = run_child("sim", &[("NCCL_RAS_ADDR", &addr)]);
    let with = dumps
        .iter()
        .find(|d| !d.ras.is_empty())
        .expect("a dump with RAS");
    assert_eq!(
        with.ras,
        ["communicator 0x77 (2 ranks): rank 1 (pid 11 on 127.0.0.1) unresponsive"]
    );
    let report = hang_report(std::slice::from_ref(with));
    assert_eq!(
        report.last().unwrap(),
        "NCCL RAS (asked by rank 0): communicator 0x77 (2 ranks): rank 1 (pid 11 on \
         127.0.0.1) unresponsive",
        "{report:?}"
    );
}

#[test]
fn without_a_ras_address_the_sim_asks_nobody() {
    let dumps = run_child_no_wait();
    assert!(!dumps.is_empty());
    assert!(dumps.iter().all(|d| d.ras.is_empty()), "{dumps:?}");
}

/// The sim child without `NCCL_RAS_ADDR`: it times out, and its dump has no verdict
/// (the child would wait for one forever: it is told not to).
fn run_child_no_wait() -> Vec<Dump> {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::new()
        .name("no-ras")
        .timeout(Duration::from_millis(300))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir.path());
    let dev = Device::sim(1).unwrap();
    let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), opts).unwrap();
    let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1.0f32; 4]).unwrap();
    let gate = Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    assert!(w.wait_host(PATIENCE).is_err());
    gate.open();
    drop(pg); // waits for the dump's files
    dumps(dir.path())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_timeout_asks_nccls_own_ras_about_the_job() {
    let dumps = run_child("cuda", &[]);
    let with = dumps
        .iter()
        .find(|d| !d.ras.is_empty())
        .expect("a dump with RAS");
    eprintln!("{:#?}", with.ras);
    assert!(
        with.ras.iter().all(|l| !l.starts_with("not asked")),
        "RAS did not answer: {:?}",
        with.ras
    );
    assert!(
        with.ras.iter().any(|l| l.starts_with("communicator 0x")),
        "{:?}",
        with.ras
    );
}
