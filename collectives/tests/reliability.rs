//! Reliability of process groups: the policy before the waiters, dumps that never hold
//! anything up and never overwrite each other, every rank dumping when one times out,
//! sequence numbers only for launched operations, no phantom entries, mismatches with
//! both sides, concurrent use refused, options refused by name, and the warm-up as the
//! library's own step.

use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{
    Error, ErrorPolicy, InitWait, Options, ProcessGroup, State, WorkSet, hang_report,
};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

const PATIENCE: Duration = Duration::from_secs(30);

/// `f(rank, group)` on `n` sim ranks (devices `first..first+n`), one thread each.
fn on_ranks<R: Send + 'static>(
    first: usize,
    n: usize,
    options: Options,
    f: impl Fn(usize, ProcessGroup) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let id = UniqueId::random();
    let f = Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let (f, options) = (f.clone(), options.clone());
            thread::spawn(move || {
                let dev = Device::sim(first + rank).unwrap();
                let pg = ProcessGroup::new(&dev, rank, n, &id, options).unwrap();
                f(rank, pg)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn single(dev: usize, options: Options) -> ProcessGroup {
    ProcessGroup::new(
        &Device::sim(dev).unwrap(),
        0,
        1,
        &UniqueId::random(),
        options,
    )
    .unwrap()
}

fn dumps_in(dir: &std::path::Path) -> Vec<collectives::Dump> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| collectives::Dump::read(&p).unwrap())
        .collect()
}

#[test]
fn after_a_timeout_under_the_abort_policy_the_group_always_refuses_new_work_with_its_call_site() {
    for attempt in 0..10 {
        let pg = single(1, Options::new().name("policy"));
        let gate = Gate::new(pg.device()).unwrap();
        pg.comm_stream().wait_gate(&gate).unwrap();
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        assert!(matches!(
            w.wait_host(Duration::from_millis(20)),
            Err(Error::Timeout { .. })
        ));
        // Whoever saw the error sees the group refuse work: every time, at once.
        let refused = pg.barrier().unwrap_err();
        let line = line!() - 1;
        match &refused {
            Error::GroupAborted { op, call_site, .. } => {
                assert_eq!(op, "barrier", "attempt {attempt}");
                assert_eq!(*call_site, format!("{}:{line}", file!()));
            }
            other => panic!("attempt {attempt}: {other}"),
        }
        gate.open();
    }
}

#[test]
fn dropping_a_group_never_waits_for_a_stuck_dump() {
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
fn under_the_report_policy_a_failed_stream_makes_the_group_refuse_work_saying_why() {
    let out = on_ranks(
        2,
        2,
        Options::new().name("report").on_error(ErrorPolicy::Report),
        |rank, pg| {
            let s = Stream::new(pg.device()).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
            let mut y = DeviceBuffer::<i32>::zeroed(&s, 8).unwrap();
            let first = if rank == 0 {
                pg.all_reduce_into(&x, &mut y.view_mut(0..4).unwrap(), ReduceOp::Sum)
                    .and_then(|w| w.wait_host(PATIENCE))
            } else {
                pg.all_gather(&x, &mut y)
                    .and_then(|w| w.wait_host(PATIENCE))
            };
            let later = pg.barrier().map(drop);
            (first.unwrap_err(), later.unwrap_err())
        },
    );
    for (first, later) in out {
        assert!(matches!(first, Error::Mismatch { .. }), "{first}");
        match later {
            Error::GroupAborted { reason, .. } => {
                assert!(reason.contains("cannot be used again"), "{reason}")
            }
            other => panic!("{other}"),
        }
    }
}

#[test]
fn a_group_used_by_a_second_thread_while_the_first_ones_work_is_in_flight_refuses() {
    // `ProcessGroup` is not `Sync`: sharing it takes a wrapper. A mutex lets a second
    // thread issue while the first one's operations are in flight: refused.
    let pg = Arc::new(Mutex::new(single(3, Options::new().name("threads"))));
    let start = Arc::new(Barrier::new(2));
    let refused = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (pg, start, refused) = (pg.clone(), start.clone(), refused.clone());
            thread::spawn(move || {
                let dev = pg.lock().unwrap().device().clone();
                let s = Stream::new(&dev).unwrap();
                let mut bufs: Vec<DeviceBuffer<i64>> = (0..150)
                    .map(|i| DeviceBuffer::from_slice(&s, &[(t * 1000 + i) as i64; 2]).unwrap())
                    .collect();
                start.wait();
                let mut works = WorkSet::new();
                for b in bufs.iter_mut() {
                    match pg.lock().unwrap().all_reduce(b, ReduceOp::Sum) {
                        Ok(w) => works.push(w),
                        Err(e) => refused.lock().unwrap().push(e),
                    }
                }
                works.wait_host(PATIENCE).unwrap();
                // Every operation that ran computed the right value (one rank: itself).
                for (i, b) in bufs.iter().enumerate() {
                    assert_eq!(b.to_vec(&s).unwrap(), vec![(t * 1000 + i) as i64; 2]);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let refused = refused.lock().unwrap();
    assert!(!refused.is_empty(), "concurrent use must be detected");
    for e in refused.iter() {
        match e {
            Error::ConcurrentUse {
                call_site,
                other_call_site,
                ..
            } => assert!(
                call_site.contains("reliability.rs") && other_call_site.contains("reliability.rs"),
                "{e}"
            ),
            other => panic!("{other}"),
        }
    }
}

/// Issue 18 item 2, the scenario: on each of two ranks, two threads take turns on one
/// group, each waiting for its own operation before issuing the next. With a
/// `SharedGroup` and the same turns on every rank, every value is right.
#[test]
fn threads_that_take_numbered_turns_on_a_shared_group_compute_right_values() {
    let wrong = on_ranks(5, 2, Options::new().name("turns"), |rank, pg| {
        let shared = Arc::new(collectives::SharedGroup::new(pg));
        let threads: Vec<_> = (0..2u64)
            .map(|t| {
                let shared = shared.clone();
                thread::spawn(move || {
                    let dev = shared.turn(t).map(|g| g.device().clone()).unwrap();
                    let s = Stream::new(&dev).unwrap();
                    let mut wrong = 0;
                    for k in 1..300u64 {
                        let v = (t * 1_000_000 + k * 10 + rank as u64) as i64;
                        let mut x = DeviceBuffer::from_slice(&s, &[v; 2]).unwrap();
                        let w = shared
                            .turn(2 * k + t)
                            .unwrap()
                            .all_reduce(&mut x, ReduceOp::Sum)
                            .unwrap();
                        w.wait_host(PATIENCE).unwrap();
                        let want = (2 * (t * 1_000_000 + k * 10) + 1) as i64;
                        wrong += x.to_vec(&s).unwrap().iter().filter(|&&y| y != want).count();
                    }
                    wrong
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(wrong, vec![0, 0]);
}

/// Issue 18 item 2: the same scenario through a `Mutex` (which orders threads by who
/// comes first, differently on each rank). With `check_call_sites`, the sim never
/// pairs one thread's operation with the other's silently: every operation either
/// computes the right value or fails with a mismatch naming both call sites.
#[test]
fn a_mutex_shared_group_with_checked_call_sites_never_computes_wrong_values_silently() {
    for round in 0..3 {
        let options = Options::new()
            .name("mutex")
            .check_call_sites(true)
            .timeout(Duration::from_secs(5));
        let out = on_ranks(5, 2, options, move |rank, pg| {
            let pg = Arc::new(Mutex::new(pg));
            let threads: Vec<_> = (0..2u64)
                .map(|t| {
                    let pg = pg.clone();
                    thread::spawn(move || {
                        let dev = pg.lock().unwrap().device().clone();
                        let s = Stream::new(&dev).unwrap();
                        let (mut right, mut wrong, mut mismatches) = (0, 0, Vec::new());
                        for k in 1..100u64 {
                            let v = (t * 1_000_000 + k * 10 + rank as u64) as i64;
                            let mut x = DeviceBuffer::from_slice(&s, &[v; 2]).unwrap();
                            // The two threads issue from different lines: the
                            // blocks differ in their call sites, which is the point.
                            #[allow(clippy::if_same_then_else)]
                            let issued = if t == 0 {
                                pg.lock().unwrap().all_reduce(&mut x, ReduceOp::Sum)
                            } else {
                                pg.lock().unwrap().all_reduce(&mut x, ReduceOp::Sum)
                            };
                            let done = issued.and_then(|w| w.wait_host(PATIENCE));
                            match done {
                                Ok(()) => {
                                    let want = (2 * (t * 1_000_000 + k * 10) + 1) as i64;
                                    if x.to_vec(&s).unwrap() == vec![want; 2] {
                                        right += 1;
                                    } else {
                                        wrong += 1;
                                    }
                                }
                                Err(e) => {
                                    mismatches.push(e.to_string());
                                    break; // the group is aborted now
                                }
                            }
                        }
                        (right, wrong, mismatches)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        });
        let mut failures = Vec::new();
        for (rank, per_thread) in out.iter().enumerate() {
            for (t, (right, wrong, errors)) in per_thread.iter().enumerate() {
                eprintln!("round {round} rank {rank} thread {t}: {right} right, {wrong} wrong");
                assert_eq!(
                    *wrong, 0,
                    "round {round} rank {rank} thread {t}: {errors:?}"
                );
                failures.extend(errors.iter().cloned());
            }
        }
        // What fails is refused (the other thread's work in flight), or a mismatch
        // naming both call sites, or an abort that follows one.
        let mismatch = failures.iter().find(|e| e.contains("mismatch"));
        if let Some(m) = mismatch {
            assert!(m.matches("reliability.rs:").count() >= 3, "{m}");
        }
        for e in &failures {
            assert!(
                e.contains("in use by another thread") || mismatch.is_some(),
                "round {round}: {e}"
            );
        }
        eprintln!("round {round}: {failures:?}");
    }
}

#[test]
fn options_out_of_range_are_refused_naming_them() {
    let dev = Device::sim(4).unwrap();
    for (options, name) in [
        (Options::new().max_in_flight(0), "max_in_flight"),
        (Options::new().recorder_capacity(0), "recorder_capacity"),
        (
            Options::new().watchdog_interval(Duration::ZERO),
            "watchdog_interval",
        ),
        (Options::new().timeout(Duration::ZERO), "timeout"),
        (Options::new().name(""), "name"),
    ] {
        let e = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options).unwrap_err();
        match &e {
            Error::InvalidOption { option, .. } => assert_eq!(*option, name),
            other => panic!("{name}: {other}"),
        }
        assert!(e.to_string().contains(name), "{e}");
    }
    // A huge timeout means no deadline.
    let pg = single(4, Options::new().timeout(Duration::MAX));
    pg.barrier().unwrap().wait_host(Duration::MAX).unwrap();
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

#[test]
fn both_sides_of_a_mismatch_get_one_shape_naming_group_rank_op_seq_and_both_call_sites() {
    let out = on_ranks(0, 2, Options::new().name("shapes"), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(&s, 8).unwrap();
        let r = if rank == 0 {
            pg.all_reduce_into(&x, &mut y.view_mut(0..4).unwrap(), ReduceOp::Sum)
        } else {
            pg.all_gather(&x, &mut y)
        };
        r.and_then(|w| w.wait_host(PATIENCE)).unwrap_err()
    });
    for (rank, e) in out.iter().enumerate() {
        match e {
            Error::Mismatch {
                group,
                rank: r,
                op,
                seq,
                call_site,
                detail,
            } => {
                assert_eq!((group.as_str(), *r, *seq), ("shapes", rank, 1));
                assert_eq!(
                    op,
                    if rank == 0 {
                        "all_reduce"
                    } else {
                        "all_gather"
                    }
                );
                assert!(call_site.contains("reliability.rs"), "{call_site}");
                assert!(
                    detail.matches("reliability.rs").count() >= 2,
                    "both call sites: {detail}"
                );
            }
            other => panic!("rank {rank}: {other}"),
        }
    }
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

#[test]
fn a_group_stalled_on_a_missing_rank_times_out_even_while_another_group_on_its_device_closes() {
    // Group "stalled" (devices 6 and 7) waits for rank 1, which never issues; group
    // "closing" on device 6 is closed meanwhile with work of its own, so its teardown
    // watches the device's other communicators. The stalled group must still end in its
    // own timeout (which names the missing rank in the hang report), not be stopped
    // first by the unrelated teardown.
    let dir = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("stalled")
        .timeout(Duration::from_millis(300))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir.path());
    let issued = Arc::new(Barrier::new(2));
    let issued2 = issued.clone();
    let closer = thread::spawn(move || {
        let pg = single(6, Options::new().name("closing"));
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 16]).unwrap();
        issued2.wait(); // the stalled group's operation is in flight
        for _ in 0..20 {
            drop(pg.all_reduce(&mut x, ReduceOp::Sum).unwrap()); // not cancelled
        }
        drop(pg); // teardown while the other group is stalled
    });
    let done = Arc::new(Barrier::new(2)); // rank 1 keeps its communicator till then
    let out = on_ranks(6, 2, options, move |rank, pg| {
        let err = if rank == 0 {
            let s = Stream::new(pg.device()).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
            let w = pg.all_reduce(&mut x, ReduceOp::Max).unwrap();
            issued.wait();
            Some(w.wait_host(PATIENCE).unwrap_err())
        } else {
            None
        };
        done.wait();
        err
    });
    closer.join().unwrap();
    match out[0].as_ref().unwrap() {
        Error::Timeout {
            group, rank, op, ..
        } => {
            assert_eq!(
                (group.as_str(), *rank, op.as_str()),
                ("stalled", 0, "all_reduce")
            )
        }
        other => panic!("expected the group's own timeout, got: {other}"),
    }
}

#[test]
fn is_ready_never_blocks_while_the_first_operation_of_a_returning_group_waits_for_init() {
    let id = UniqueId::random();
    let late_id = id;
    let late = thread::spawn(move || {
        thread::sleep(Duration::from_secs(1)); // rank 1 joins a second late
        let dev = Device::sim(4).unwrap();
        let pg = ProcessGroup::new(&dev, 1, 2, &late_id, Options::new().name("late")).unwrap();
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[2i32; 8]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        x.to_vec(&s).unwrap()
    });
    let dev = Device::sim(3).unwrap();
    let options = Options::new().name("late").init_wait(InitWait::Return);
    let pg = ProcessGroup::new(&dev, 0, 2, &id, options).unwrap();
    let pg_handle = pg.handle();
    assert!(!pg.is_ready().unwrap(), "rank 1 has not joined yet");
    let first = {
        thread::spawn(move || {
            let s = Stream::new(pg.device()).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1i32; 8]).unwrap();
            // Waits for the init inside (InitWait::Return).
            pg.all_reduce(&mut x, ReduceOp::Sum)
                .unwrap()
                .wait_host(PATIENCE)
                .unwrap();
            x.to_vec(&s).unwrap()
        })
    };
    thread::sleep(Duration::from_millis(100)); // the first operation now waits
    let start = Instant::now();
    for _ in 0..100 {
        assert!(!pg_handle.is_ready().unwrap());
    }
    let took = start.elapsed();
    assert!(
        took < Duration::from_millis(500),
        "100 calls of is_ready took {took:?} while the first operation waited"
    );
    assert!(
        !first.is_finished(),
        "the first operation still waits for rank 1"
    );
    assert_eq!(first.join().unwrap(), vec![3; 8]);
    assert_eq!(late.join().unwrap(), vec![3; 8]);
    assert!(pg_handle.is_ready().unwrap());
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

/// A turn is given once: asked again while held, or after, it is refused; a turn
/// whose predecessors never come times out naming the turn due.
#[test]
fn shared_group_turns_are_given_once_and_waits_for_them_are_bounded() {
    let shared = collectives::SharedGroup::new(single(
        2,
        Options::new()
            .name("turns")
            .timeout(Duration::from_millis(300)),
    ));
    let held = shared.turn(0).unwrap();
    let again = shared.turn(0).unwrap_err();
    assert!(
        matches!(&again, Error::Turn { turn: 0, .. })
            && again.to_string().contains("taken already"),
        "{again}"
    );
    drop(held);
    assert!(shared.turn(0).is_err(), "turn 0 is over");
    let started = Instant::now();
    let late = shared.turn(5).unwrap_err();
    assert!(late.to_string().contains("waiting for turn 1"), "{late}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(shared.next_turn(), 1);
    shared
        .turn(1)
        .unwrap()
        .barrier()
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    assert_eq!(shared.into_inner().rank(), 0);
}
