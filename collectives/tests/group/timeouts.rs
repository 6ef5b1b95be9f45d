//! Timeouts and abort: lazy init that ends in a detected timeout, `wait_host` timing
//! out naming the operation, the abort policy and a new group after it, the report
//! policy, and the one number an operation is named by everywhere.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use collectives::{Error, ErrorPolicy, Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

use super::{PATIENCE, channel_pair, on_ranks};

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
