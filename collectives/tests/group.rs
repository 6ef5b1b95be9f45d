//! Process groups on the sim driver (and, where one GPU fits, on cuda): orderings,
//! both waits, timeouts and abort, the watchdog, dumps and the hang report.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{
    Error, ErrorPolicy, Options, ProcessGroup, State, WaitMode, WorkSet, hang_report,
};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

const PATIENCE: Duration = Duration::from_secs(30);

mod common;

/// The `nccl-hang-report` program (see `common::program`).
fn hang_report_program() -> std::path::PathBuf {
    common::program("nccl-hang-report", env!("CARGO_BIN_EXE_nccl-hang-report"))
}

/// Runs `f(rank, group)` on `n` sim ranks (devices `first..first+n`), one thread each.
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
    handles
        .into_iter()
        .map(|h| h.join().expect("rank thread"))
        .collect()
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

type Shared<T> = Arc<Mutex<Option<T>>>;

fn channel_pair() -> (Shared<mpsc::Sender<bool>>, Shared<mpsc::Receiver<bool>>) {
    let (tx, rx) = mpsc::channel();
    (
        Arc::new(Mutex::new(Some(tx))),
        Arc::new(Mutex::new(Some(rx))),
    )
}

#[test]
fn seed_property_rank_1_issues_only_after_rank_0_returned_and_nothing_deadlocks() {
    let (tx, rx) = channel_pair();
    let out = on_ranks(0, 2, Options::new(), move |rank, pg| {
        let dev = pg.device().clone();
        let compute = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&compute, &[rank as f32; 8]).unwrap();
        if rank == 1 {
            assert!(
                rx.lock()
                    .unwrap()
                    .take()
                    .unwrap()
                    .recv_timeout(PATIENCE)
                    .unwrap()
            );
        }
        let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        if rank == 0 {
            // Our call returned although rank 1 has not issued its own: tell it now.
            tx.lock().unwrap().take().unwrap().send(true).unwrap();
        }
        work.wait_stream(&compute).unwrap();
        x.add_scalar(&compute, 100.0).unwrap();
        x.to_vec(&compute).unwrap()
    });
    assert_eq!(out, vec![vec![101.0; 8], vec![101.0; 8]]);
}

#[test]
fn lazy_init_in_the_same_scenario_ends_in_a_detected_timeout() {
    // The classic: rank 0 creates its communicator inside its first collective, so its
    // call cannot return before rank 1 joins, and rank 1 waits for that return.
    let id = UniqueId::random();
    let (tx, rx) = channel_pair();
    let rank1 = thread::spawn(move || {
        // Waits for rank 0's call to return (it never does), then gives up.
        let signal = rx.lock().unwrap().take().unwrap().recv_timeout(PATIENCE);
        assert_eq!(signal, Ok(false), "rank 0 reports that its call failed");
    });
    let dev = Device::sim(0).unwrap();
    let lazy = ProcessGroup::new(
        &dev,
        0,
        2,
        &id,
        Options::new().timeout(Duration::from_millis(300)),
    );
    let err = lazy.expect_err("rank 0 cannot finish init: rank 1 waits for it");
    tx.lock().unwrap().take().unwrap().send(false).unwrap();
    rank1.join().unwrap();
    let text = err.to_string();
    assert!(
        text.contains("timed out") && text.contains("[1]"),
        "names the missing rank: {text}"
    );
}

#[test]
fn wait_stream_orders_compute_work_and_the_host_returns_before_the_late_rank_issued() {
    let (tx, rx) = channel_pair();
    let out = on_ranks(2, 2, Options::new(), move |rank, pg| {
        let dev = pg.device().clone();
        let compute = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&compute, &[rank as i64 + 1; 16]).unwrap();
        if rank == 1 {
            rx.lock()
                .unwrap()
                .take()
                .unwrap()
                .recv_timeout(PATIENCE)
                .unwrap();
            let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
            w.wait_host(PATIENCE).unwrap();
            return x.to_vec(&compute).unwrap();
        }
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        w.wait(WaitMode::Stream(&compute)).unwrap();
        x.scale(&compute, 10).unwrap();
        assert!(!w.is_completed().unwrap(), "rank 1 has not issued yet");
        let mut host = nccl_safe::HostBuffer::new(&dev, 16).unwrap();
        x.as_view().copy_to_host_async(&compute, &mut host).unwrap();
        assert!(
            !host.is_ready(),
            "the compute stream waits for the all-reduce"
        );
        tx.lock().unwrap().take().unwrap().send(true).unwrap();
        host.wait_timeout(PATIENCE).unwrap();
        host.to_vec().unwrap()
    });
    assert_eq!(out[0], vec![30; 16]);
    assert_eq!(out[1], vec![3; 16]);
}

#[test]
fn wait_host_times_out_naming_the_operation_then_the_group_is_aborted_and_a_new_one_works() {
    let (tx, rx) = channel_pair();
    let id2 = UniqueId::random();
    let out = on_ranks(
        4,
        2,
        Options::new().watchdog_interval(Duration::from_secs(3600)),
        move |rank, pg| {
            let dev = pg.device().clone();
            let s = Stream::new(&dev).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
            if rank == 0 {
                let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap(); // rank 1 never issues
                let line = line!() - 1;
                let err = work.wait_host(Duration::from_millis(200)).unwrap_err();
                match &err {
                    Error::Timeout {
                        op, seq, call_site, ..
                    } => {
                        assert_eq!(op, "all_reduce");
                        assert_eq!(*seq, work.seq());
                        assert_eq!(*call_site, format!("{}:{line}", file!()));
                    }
                    other => panic!("expected a timeout, got {other}"),
                }
                // Policy: abort. The group refuses new work; the old work stays failed.
                assert!(matches!(
                    pg.all_reduce(&mut x, ReduceOp::Sum),
                    Err(Error::GroupAborted { .. })
                ));
                assert!(work.is_completed().is_err());
            }
            if rank == 0 {
                tx.lock().unwrap().take().unwrap().send(true).unwrap();
            } else {
                rx.lock()
                    .unwrap()
                    .take()
                    .unwrap()
                    .recv_timeout(PATIENCE)
                    .unwrap();
            }
            // A new group over the same devices works.
            drop(pg);
            let pg2 =
                ProcessGroup::new(&dev, rank, 2, &id2, Options::new().name("second")).unwrap();
            let mut y = DeviceBuffer::from_slice(&s, &[rank as u32 + 1; 4]).unwrap();
            pg2.all_reduce(&mut y, ReduceOp::Sum)
                .unwrap()
                .wait_host(PATIENCE)
                .unwrap();
            y.to_vec(&s).unwrap()
        },
    );
    assert_eq!(out, vec![vec![3; 4], vec![3; 4]]);
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

    // A mismatch: rank 2 issues an all-gather where the others all-reduce.
    let dir2 = tempfile::tempdir().unwrap();
    let options = Options::new()
        .name("mismatch")
        .timeout(Duration::from_millis(400))
        .watchdog_interval(Duration::from_millis(20))
        .dump_dir(dir2.path());
    on_ranks(4, 4, options, |rank, pg| {
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

#[test]
fn a_thousand_async_collectives_on_four_ranks_waited_in_random_order_honour_the_cap() {
    const N: usize = 1000;
    const CAP: usize = 48;
    let out = on_ranks(0, 4, Options::new().max_in_flight(CAP), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut bufs: Vec<DeviceBuffer<i32>> = (0..N)
            .map(|i| DeviceBuffer::from_slice(&s, &[(rank * 1000 + i) as i32; 2]).unwrap())
            .collect();
        let mut works = Vec::with_capacity(N);
        let mut max_seen = 0;
        for b in bufs.iter_mut() {
            works.push(Some(pg.all_reduce(b, ReduceOp::Sum).unwrap()));
            max_seen = max_seen.max(pg.in_flight());
        }
        // Wait in a shuffled order.
        let mut order: Vec<usize> = (0..N).collect();
        let mut x = 0x2545_f491_4f6c_dd1du64 ^ rank as u64;
        for i in (1..N).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let mut set = WorkSet::new();
        for i in order {
            set.push(works[i].take().unwrap());
        }
        set.wait_host(PATIENCE).unwrap();
        assert!(set.is_completed().unwrap());
        let ok = bufs
            .iter()
            .enumerate()
            .all(|(i, b)| b.to_vec(&s).unwrap() == vec![(6000 + 4 * i) as i32; 2]);
        (ok, max_seen)
    });
    for (rank, (ok, max_seen)) in out.into_iter().enumerate() {
        assert!(ok, "rank {rank}: every result is the sum");
        assert!(
            max_seen <= CAP,
            "rank {rank}: {max_seen} in flight, cap {CAP}"
        );
    }
}

#[test]
fn errors_of_arguments_come_back_typed_and_nothing_is_recorded_as_pending() {
    on_ranks(6, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        let mut y = DeviceBuffer::<u8>::zeroed(&s, 3).unwrap();
        let e = pg.all_reduce_into(&x, &mut y, ReduceOp::Sum).unwrap_err();
        assert!(
            matches!(e, Error::Safe(nccl_safe::Error::InvalidArgument { .. })),
            "{e}"
        );
        assert!(pg.flight_record().iter().all(|e| !e.is_pending()));
        assert_eq!(pg.in_flight(), 0);
    });
}

#[test]
fn eager_connection_with_point_to_point_warms_up_every_peer_and_records_it() {
    let out = on_ranks(0, 3, Options::new().p2p(true), |rank, pg| {
        let record = pg.flight_record();
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as u16 as i32; 2]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        (record, x.to_vec(&s).unwrap())
    });
    let (lazy, _) = collectives::runtime_connect();
    for (record, x) in out {
        assert_eq!(x, vec![3; 2]);
        let ops: Vec<&str> = record.iter().map(|e| e.op.as_str()).collect();
        if lazy {
            assert_eq!(ops, ["warmup", "warmup_p2p"], "warm-ups at creation");
            assert!(record.iter().all(|e| e.state == State::Completed));
        } else {
            assert!(ops.is_empty(), "eager NCCL needs no warm-up: {ops:?}");
        }
    }
}

#[test]
fn group_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<ProcessGroup>();
    // Not `Sync` (one order of operations; a compile_fail doctest shows it): threads
    // share a group through `SharedGroup`.
    assert_send::<collectives::SharedGroup>();
    assert_sync::<collectives::SharedGroup>();
    assert_send::<collectives::Work>();
    assert_send::<WorkSet>();
    assert_send::<Error>();
    assert_sync::<Error>();
}

/// One device, a gate as the late peer: the call and `wait_stream` return while the
/// gate is closed; `wait_host` times out and the policy aborts; then a new group works.
fn gated_single_rank(dev: Device) {
    let run =
        |name: &str| ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), Options::new().name(name));
    let sim = dev.driver() == nccl_safe::DriverKind::Sim;
    let id = if sim {
        UniqueId::random()
    } else {
        UniqueId::new().unwrap()
    };
    let pg = ProcessGroup::new(&dev, 0, 1, &id, Options::new().name("gated")).unwrap();
    let gate = Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let compute = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&compute, &[2.0f64; 32]).unwrap();
    let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap(); // returns with the gate closed
    w.wait_stream(&compute).unwrap(); // returns at once
    assert!(!w.is_completed().unwrap());
    let e = w.wait_host(Duration::from_millis(150)).unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(matches!(pg.barrier(), Err(Error::GroupAborted { .. })));
    gate.open();
    drop(pg);
    if sim {
        let pg2 = run("recovered").unwrap();
        let mut y = DeviceBuffer::from_slice(&compute, &[3.0f64; 4]).unwrap();
        pg2.all_reduce(&mut y, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        assert_eq!(y.to_vec(&compute).unwrap(), vec![3.0; 4]);
    } else {
        let pg2 = ProcessGroup::new(
            &dev,
            0,
            1,
            &UniqueId::new().unwrap(),
            Options::new().name("recovered"),
        )
        .unwrap();
        let mut y = DeviceBuffer::from_slice(&compute, &[3.0f64; 4]).unwrap();
        pg2.all_reduce(&mut y, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        assert_eq!(y.to_vec(&compute).unwrap(), vec![3.0; 4]);
    }
}

#[test]
fn sim_gated_single_rank_returns_times_out_aborts_and_recovers() {
    gated_single_rank(Device::sim(5).unwrap());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_gated_single_rank_returns_times_out_aborts_and_recovers() {
    gated_single_rank(Device::cuda(0).unwrap());
}

#[test]
fn policy_report_fails_only_the_late_work_and_keeps_the_group() {
    on_ranks(
        7,
        1,
        Options::new().on_error(ErrorPolicy::Report),
        |_, pg| {
            let dev = pg.device().clone();
            let gate = Gate::new(&dev).unwrap();
            pg.comm_stream().wait_gate(&gate).unwrap();
            let s = Stream::new(&dev).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
            let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
            assert!(matches!(
                w.wait_host(Duration::from_millis(100)),
                Err(Error::Timeout { .. })
            ));
            gate.open();
            let w2 = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap(); // still usable
            w2.wait_host(PATIENCE).unwrap();
            assert_eq!(x.to_vec(&s).unwrap(), vec![1; 4]);
        },
    );
}

/// Issue 18 item 4: a group over a blocking communicator works (NCCL's communicator
/// is non-blocking underneath, so its abort reaches it), and its timeout ends a wait
/// for a rank that never issues instead of hanging.
#[test]
fn a_group_over_a_blocking_communicator_works_and_times_out() {
    use nccl_safe::{Communicator, Config};
    let id = UniqueId::random();
    let (tx, rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let done_rx = Arc::new(Mutex::new(done_rx));
    for rank in 0..2 {
        let (tx, done_rx) = (tx.clone(), done_rx.clone());
        thread::spawn(move || {
            let dev = Device::sim(6 + rank).unwrap();
            let comm = Communicator::init(&dev, rank, 2, &id, &Config::new()).unwrap();
            let options = Options::default().timeout(Duration::from_millis(800));
            let pg = ProcessGroup::from_communicator(comm, options).unwrap();
            let s = Stream::new(&dev).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 8]).unwrap();
            let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
            w.wait_host(PATIENCE).unwrap();
            let sum = x.to_vec(&s).unwrap();
            // Rank 1 never issues the second (and stays until rank 0 is done).
            let late = if rank == 0 {
                let started = Instant::now();
                let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
                let e = w.wait_host(PATIENCE).unwrap_err();
                Some((e.to_string(), started.elapsed()))
            } else {
                let _ = done_rx.lock().unwrap().recv_timeout(PATIENCE);
                None
            };
            tx.send((rank, sum, late)).unwrap();
            drop(pg);
        });
    }
    let mut got = 0;
    while got < 2 {
        let (rank, sum, late) = rx.recv_timeout(PATIENCE).expect("no hang");
        got += 1;
        assert_eq!(sum, vec![3.0; 8], "rank {rank}");
        if let Some((e, took)) = late {
            done_tx.send(()).unwrap();
            assert!(e.contains("timed out"), "{e}");
            assert!(took < Duration::from_secs(5), "{took:?}: {e}");
        }
    }
}

/// Issue 18 item 4: building a group over a blocking communicator whose peer never
/// builds its own ends within the group's timeout.
#[test]
fn a_group_over_a_blocking_communicator_whose_peer_never_joins_times_out() {
    use nccl_safe::{Communicator, Config};
    let id = UniqueId::random();
    let (tx, rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let dev = Device::sim(7).unwrap();
        let comm = Communicator::init(&dev, 1, 2, &id, &Config::new()).unwrap();
        let _ = done_rx.recv_timeout(PATIENCE);
        drop(comm);
    });
    thread::spawn(move || {
        let dev = Device::sim(6).unwrap();
        let comm = Communicator::init(&dev, 0, 2, &id, &Config::new()).unwrap();
        let started = Instant::now();
        let options = Options::default().timeout(Duration::from_millis(800));
        let r = ProcessGroup::from_communicator(comm, options).map(|_| ());
        tx.send((r.map_err(|e| e.to_string()), started.elapsed()))
            .unwrap();
    });
    let (r, took) = rx.recv_timeout(PATIENCE).expect("no hang");
    done_tx.send(()).unwrap();
    peer.join().unwrap();
    let e = r.unwrap_err();
    assert!(e.contains("timed out"), "{e}");
    assert!(took < Duration::from_secs(5), "{took:?}: {e}");
}

/// Issue 18 item 4: communicators of `init_all` (one thread drives them together)
/// are refused at once instead of building a group that waits for itself.
#[test]
fn a_group_over_init_all_communicators_is_refused_at_once() {
    use nccl_safe::{Communicator, Config};
    let devices = [Device::sim(6).unwrap(), Device::sim(7).unwrap()];
    let comms = Communicator::init_all(&devices, &Config::new()).unwrap();
    assert_eq!(comms[0].init_all_size(), Some(2));
    for comm in comms {
        let rank = comm.rank();
        let e = ProcessGroup::from_communicator(comm, Options::default()).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, Error::Safe(nccl_safe::Error::InvalidUsage { .. }))
                && text.contains(&format!("rank {rank} is one of 2"))
                && text.contains("Communicator::init"),
            "{text}"
        );
    }
    // One made by Communicator::init is not one of a set.
    let id = UniqueId::random();
    let comm = Communicator::init(&devices[0], 0, 1, &id, &Config::new()).unwrap();
    assert_eq!(comm.init_all_size(), None);
    let pg = ProcessGroup::from_communicator(comm, Options::default()).unwrap();
    let s = Stream::new(&devices[0]).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[2u32; 3]).unwrap();
    pg.all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![2; 3]);
}

/// The numbers (`#N`) a text mentions.
fn numbers(text: &str) -> Vec<u64> {
    text.match_indices('#')
        .filter_map(|(i, _)| {
            let d: String = text[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            d.parse().ok()
        })
        .collect()
}

/// Issue 18 item 13: an operation's error carries one number, the user's, also
/// where the sim explains it (with or without the warm-up collective).
#[test]
fn an_operation_is_named_by_one_number_everywhere() {
    for eager in [true, false] {
        let (tx, rx) = mpsc::channel::<()>();
        let rx = Arc::new(Mutex::new(rx));
        let texts = on_ranks(
            6,
            2,
            Options::new().eager_connect(eager).timeout(PATIENCE),
            move |rank, pg| {
                let s = Stream::new(pg.device()).unwrap();
                let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
                for _ in 0..3 {
                    pg.all_reduce(&mut x, ReduceOp::Sum)
                        .unwrap()
                        .wait_host(PATIENCE)
                        .unwrap();
                }
                if rank == 1 {
                    let _ = rx.lock().unwrap().recv_timeout(PATIENCE);
                    pg.abort("rank 1 stops here");
                    return String::new();
                }
                let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
                let _ = tx.send(());
                w.wait_host(PATIENCE).unwrap_err().to_string()
            },
        );
        let e = &texts[0];
        eprintln!("{e}");
        // Rank 1's abort, or its communicator's teardown when the group goes right
        // after, whichever the sim sees first.
        assert!(
            e.contains("all_reduce #4") && e.contains("rank 1 (pid"),
            "{e}"
        );
        assert!(numbers(e).iter().all(|&n| n == 4), "eager {eager}: {e}");
    }
}
