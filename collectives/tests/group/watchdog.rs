//! The watchdog, dumps and the hang report: pending work of a missing peer failed and
//! dumped, the rank that skipped a collective and a mismatch named (in the library's
//! report and by `nccl-hang-report`).

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common;
use collectives::{Options, State, hang_report};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

use super::{PATIENCE, channel_pair, on_ranks};

/// The `nccl-hang-report` program (see `common::program`).
fn hang_report_program() -> std::path::PathBuf {
    common::program("nccl-hang-report", env!("CARGO_BIN_EXE_nccl-hang-report"))
}

/// Every dump of `group` in `dir`, once each of `ranks` ranks has written at least one
/// (dumps are written in the background).
fn dumps_of(dir: &std::path::Path, group: &str, ranks: usize) -> Vec<collectives::Dump> {
    let start = Instant::now();
    loop {
        let dumps: Vec<collectives::Dump> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(&format!("{group}-rank"))
            })
            .map(|p| collectives::Dump::read(&p).unwrap())
            .collect();
        if (0..ranks).all(|r| dumps.iter().any(|d| d.rank == r)) {
            return dumps;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "dumps of {group}: {} files",
            dumps.len()
        );
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_watchdog_fails_every_pending_work_of_a_missing_peer_and_writes_a_dump() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("wd")
        .timeout(Duration::from_millis(300))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir.path());
    let (tx, rx) = channel_pair();
    on_ranks(6, 2, options, move |rank, pg| {
        if rank == 1 {
            // Present at init, then never issues anything.
            rx.lock()
                .unwrap()
                .take()
                .unwrap()
                .recv_timeout(PATIENCE)
                .unwrap();
            return;
        }
        let s = Stream::new(pg.device()).unwrap();
        let mut bufs: Vec<DeviceBuffer<f32>> = (0..3)
            .map(|_| DeviceBuffer::zeroed(&s, 4).unwrap())
            .collect();
        let works: Vec<_> = bufs
            .iter_mut()
            .map(|b| pg.all_reduce(b, ReduceOp::Sum).unwrap())
            .collect();
        // Nobody waits: the watchdog must notice.
        let start = Instant::now();
        while works.iter().any(|w| matches!(w.is_completed(), Ok(false))) {
            assert!(start.elapsed() < PATIENCE, "the watchdog never fired");
            thread::sleep(Duration::from_millis(10));
        }
        for w in &works {
            assert!(w.is_completed().is_err(), "{w:?} failed");
        }
        let states: Vec<State> = pg
            .flight_record()
            .iter()
            .filter(|e| e.op == "all_reduce")
            .map(|e| e.state)
            .collect();
        assert!(
            states
                .iter()
                .all(|s| matches!(s, State::TimedOut | State::Failed)),
            "{states:?}"
        );
        tx.lock().unwrap().take().unwrap().send(true).unwrap();
    });
    let dumps = dumps_of(dir.path(), "wd", 1);
    let dump = dumps
        .iter()
        .filter(|d| d.rank == 0)
        .min_by_key(|d| d.dumped_ms)
        .expect("a dump was written");
    assert!(dump.reason.contains("watchdog timeout"), "{}", dump.reason);
    assert!(dump.entries.iter().any(|e| e.state == State::TimedOut));
}

#[test]
fn the_hang_report_names_the_rank_that_skipped_a_collective_and_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("hang")
        .timeout(Duration::from_millis(400))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir.path());
    let lines_of_sites = Arc::new(Mutex::new((0u32, 0u32)));
    let sites = lines_of_sites.clone();
    on_ranks(0, 4, options, move |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
        let b = pg.broadcast(&mut x, 0).unwrap();
        let broadcast_line = line!() - 1;
        b.wait_host(PATIENCE).unwrap();
        if rank == 1 {
            // Skips the all-reduce; its record shows its last collective.
            thread::sleep(Duration::from_millis(900));
            pg.dump_flight_record("rank 1 on request");
            return;
        }
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        let all_reduce_line = line!() - 1;
        *sites.lock().unwrap() = (broadcast_line, all_reduce_line);
        assert!(w.wait_host(PATIENCE).is_err(), "rank 1 never arrives");
    });
    let (bl, al) = *lines_of_sites.lock().unwrap();
    let dumps = dumps_of(dir.path(), "hang", 4);
    let lines = hang_report(&dumps);
    let file = file!();
    let expected = format!(
        "all_reduce #2 ({file}:{al}): ranks 0,2,3 waiting; rank 1 never issued it (last: broadcast #1 at {file}:{bl})"
    );
    assert!(
        lines.contains(&expected),
        "expected {expected:?} in {lines:#?}"
    );

    // The same through the command-line program.
    let out = std::process::Command::new(hang_report_program())
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "something is stuck");
    assert!(String::from_utf8_lossy(&out.stdout).contains(&expected));

    // A mismatch: rank 2 issues an all-gather where the others all-reduce. Every
    // rank is made before any issues, and failures stay on their rank: rank 2's
    // mismatch, published at once, could otherwise end a slower rank's construction
    // or its all-reduce before the record the report compares (seen once in CI).
    let dir2 = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("mismatch")
        .timeout(Duration::from_millis(400))
        .watchdog_interval(Duration::from_millis(20))
        .propagate_failures(false)
        .dump_dir(dir2.path());
    let made = Arc::new(std::sync::Barrier::new(4));
    on_ranks(4, 4, options, move |rank, pg| {
        made.wait();
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(&s, 16).unwrap();
        let r = if rank == 2 {
            pg.all_gather(&x, &mut y)
        } else {
            pg.all_reduce_into(&x, &mut y.view_mut(0..4).unwrap(), ReduceOp::Sum)
        };
        if let Ok(w) = r {
            let _ = w.wait_host(PATIENCE);
        }
        pg.dump_flight_record("after the mismatch");
    });
    let dumps = dumps_of(dir2.path(), "mismatch", 4);
    let lines = hang_report(&dumps);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("rank 2 issued all_gather")
                && l.contains("ranks 0,1,3 issued all_reduce")),
        "{lines:#?}"
    );
}
