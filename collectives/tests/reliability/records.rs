//! Dumps and flight records: a stuck dump holds up a drop at most a second, every rank dumps when
//! one times out, dumps never overwrite each other, and only launched operations take
//! a sequence number or an entry.

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Options, State, hang_report};
use nccl_safe::{DeviceBuffer, Gate, ReduceOp, Stream};

use super::{PATIENCE, dumps_in, on_ranks, single};

#[test]
fn dropping_a_group_waits_for_a_stuck_dump_at_most_a_second() {
    // A dump directory on a stuck file system: a named pipe where the first dump's
    // file is written blocks the writer until someone reads it.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join(format!(
        ".stuck-dump-rank0-{}-0.json.tmp",
        std::process::id()
    ));
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let pg = single(2, Options::new().name("stuck-dump").dump_dir(dir.path()));
    let start = Instant::now();
    pg.abort("test"); // dumps (the writer blocks on the pipe), then aborts
    drop(pg);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "abort and drop waited {:?} for the dump",
        start.elapsed()
    );
    // Unblock the writer: read the pipe.
    let _ = std::fs::read(&fifo);
}

#[test]
fn when_one_rank_times_out_every_rank_dumps_and_dumps_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("alldump")
        .timeout(Duration::from_millis(300))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir.path());
    let done = Arc::new(Barrier::new(3));
    // Devices of its own (5-7): its collective stalls past its timeout on purpose, and
    // a teardown of another test's communicator on a shared device would stop it
    // (teardown stops a device's communicators stalled past their own teardown
    // timeout), which fails it with an abort instead of its own timeout.
    on_ranks(5, 3, options, move |rank, pg| {
        if rank < 2 {
            let s = Stream::new(pg.device()).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
            let w = pg.all_reduce(&mut x, ReduceOp::Max).unwrap(); // rank 2 never issues
            assert!(w.wait_host(PATIENCE).is_err());
        }
        done.wait();
        pg.dump_flight_record("again, on request"); // a second dump of every rank
    });
    let start = Instant::now();
    let dumps = loop {
        let d = dumps_in(dir.path());
        if (0..3).all(|r| d.iter().filter(|x| x.rank == r).count() >= 2) {
            break d;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{} dumps: {:?}",
            d.len(),
            d.iter().map(|x| (x.rank, &x.reason)).collect::<Vec<_>>()
        );
        thread::sleep(Duration::from_millis(10));
    };
    // Rank 2 issued nothing, yet it dumped when its peers timed out.
    assert!(
        dumps
            .iter()
            .any(|d| d.rank == 2 && d.reason.contains("failed")),
        "{dumps:#?}"
    );
    let lines = hang_report(&dumps);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ranks 0,1 waiting; rank 2 never issued it")),
        "{lines:#?}"
    );
}

/// The dump triggers and file names `Options::dump_dir` documents: an abort on
/// request, and a drop with work that nothing waits for, each a file of its own
/// named `<group>-rank<rank>-<pid>-<n>.json`, nothing half-written left behind.
#[test]
fn dumps_on_abort_and_on_a_drop_with_abandoned_work_are_files_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let pg = single(6, Options::new().name("dump me").dump_dir(dir.path()));
    pg.abort("asked to");
    let gated = single(7, Options::new().name("dump me").dump_dir(dir.path()));
    let gate = Gate::new(gated.device()).unwrap();
    gated.comm_stream().wait_gate(&gate).unwrap();
    let s = Stream::new(gated.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
    drop(gated.all_reduce(&mut x, ReduceOp::Sum).unwrap());
    drop(gated); // the all-reduce is held by the gate: abandoned
    gate.open();
    let pid = std::process::id();
    let start = Instant::now();
    let names = loop {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        if names.len() >= 2 && names.iter().all(|n| !n.ends_with(".tmp")) {
            break names;
        }
        assert!(start.elapsed() < PATIENCE, "{names:?}");
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(
        names,
        [
            format!("dump_me-rank0-{pid}-0.json"),
            format!("dump_me-rank0-{pid}-1.json")
        ]
    );
    let reasons: Vec<String> = dumps_in(dir.path()).into_iter().map(|d| d.reason).collect();
    assert!(
        reasons.iter().any(|r| r.contains("asked to")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("nothing waits for")),
        "{reasons:?}"
    );
}

#[test]
fn a_refused_call_takes_no_sequence_number_and_a_panic_in_grouped_leaves_no_entry() {
    let out = on_ranks(3, 2, Options::new().name("seq"), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        if rank == 0 {
            // Refused for its arguments: no number, nothing recorded.
            let mut short = DeviceBuffer::<u8>::zeroed(&s, 3).unwrap();
            assert!(pg.all_reduce_into(&x, &mut short, ReduceOp::Sum).is_err());
            // A panic inside a grouped closure: nothing recorded either.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _ = pg.grouped(|_, _| panic!("deliberate"));
            }));
            assert!(r.is_err());
        }
        let mut y = DeviceBuffer::<u8>::zeroed(&s, 4).unwrap();
        let w = pg.all_reduce_into(&x, &mut y, ReduceOp::Sum).unwrap();
        w.wait_host(PATIENCE).unwrap();
        assert_eq!(w.seq(), 1, "users' first collective is #1 on every rank");
        pg.dump_flight_record("end")
    });
    for d in &out {
        assert!(
            d.entries.iter().all(|e| e.state != State::Scheduled),
            "{d:?}"
        );
        let user: Vec<_> = d.entries.iter().filter(|e| e.op != "warmup").collect();
        assert_eq!(user.len(), 1, "one launched operation recorded: {user:?}");
        if let Some(w) = d.entries.iter().find(|e| e.op == "warmup") {
            assert_eq!(
                (w.seq, w.call_site.as_str()),
                (Some(0), "<process group warm-up>")
            );
        }
    }
    assert!(hang_report(&out).is_empty(), "{:?}", hang_report(&out));
}
