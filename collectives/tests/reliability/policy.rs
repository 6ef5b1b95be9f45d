//! What a failure does to the group, by policy: refused work after a timeout (abort)
//! or a failed stream (report), a stalled group's own timeout while another group on
//! its device closes; options refused by name; `is_ready` that never blocks.

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Error, ErrorPolicy, InitWait, Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

use super::{PATIENCE, on_ranks, single};

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
