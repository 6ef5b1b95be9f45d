//! Launch-completion events (`with_launch_event`): the event completes when the
//! stream reaches the collective, before the collective completes; values unchanged
//! on 1-8 ranks; NCCL's rules as typed errors; a rank without the event is a mismatch
//! on the sim; graphs record it at each replay; on cuda, one GPU.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::common::{assert_unsupported, expect_err, one_rank};
use crate::on_ranks;
use nccl_safe::{
    Blocks, Config, Device, DeviceBuffer, DriverKind, Error, Event, Gate, ReduceOp, Stream,
    Version, group, with_launch_event,
};

const SOON: Duration = Duration::from_secs(10);

#[test]
fn the_event_completes_when_the_collective_starts_not_when_it_ends() {
    let met = Arc::new(Barrier::new(2));
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 6]).unwrap();
        if rank == 0 {
            let gate = Gate::new(&dev).unwrap();
            s.wait_gate(&gate).unwrap(); // earlier work on the stream
            let launched = Event::new(&dev, false).unwrap();
            with_launch_event(&launched, || {
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
            })
            .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            assert!(!launched.query().unwrap(), "launched behind a closed gate");
            gate.open();
            launched.synchronize_timeout(SOON).unwrap();
            // Launched, and still waiting for rank 1, which has not issued yet.
            std::thread::sleep(Duration::from_millis(50));
            assert!(!s.query().unwrap(), "completed without its peer");
            drop(launched); // the launch keeps it alive
            met.wait();
        } else {
            met.wait();
            // Every rank gives an event, or none does (NCCL's rule).
            let launched = Event::new(&dev, false).unwrap();
            with_launch_event(&launched, || {
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
            })
            .unwrap();
        }
        s.synchronize_timeout(SOON).unwrap();
        let v = x.to_vec(&s).unwrap();
        comm.close().unwrap();
        v
    });
    assert_eq!(got, vec![vec![3; 6]; 2]);
}

#[test]
fn values_with_launch_events_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        let got = on_ranks(DriverKind::Sim, n, Config::new(), move |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let evs: Vec<Event> = (0..3).map(|_| Event::new(&dev, false).unwrap()).collect();
            let mut x = DeviceBuffer::from_slice(&s, &[rank as i64 + 1; 5]).unwrap();
            let mut all = DeviceBuffer::<i64>::zeroed(&s, 5 * n).unwrap();
            let mut v = DeviceBuffer::<i64>::zeroed(&s, n * (n + 1) / 2).unwrap();
            let counts: Vec<usize> = (1..=n).collect();
            let mine = DeviceBuffer::from_slice(&s, &vec![rank as i64; rank + 1]).unwrap();
            // Everything behind a closed gate: no event may complete before it opens.
            let gate = Gate::new(&dev).unwrap();
            s.wait_gate(&gate).unwrap();
            with_launch_event(&evs[0], || {
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
            })
            .unwrap();
            // One event for a group of several collectives on one communicator.
            with_launch_event(&evs[1], || {
                group(|_| {
                    comm.all_gather(&x, &mut all, &s)?;
                    comm.broadcast(&mut x, n - 1, &s)
                })
            })
            .unwrap();
            // A v-collective made of broadcasts records it too.
            with_launch_event(&evs[2], || {
                comm.all_gather_v(&mine, &mut v, &Blocks::packed(&counts).unwrap(), &s)
            })
            .unwrap();
            std::thread::sleep(Duration::from_millis(20));
            for (i, ev) in evs.iter().enumerate() {
                assert!(!ev.query().unwrap(), "event {i} before the gate opened");
            }
            gate.open();
            for ev in &evs {
                ev.synchronize_timeout(SOON).unwrap();
            }
            s.synchronize_timeout(SOON).unwrap();
            let got = (
                x.to_vec(&s).unwrap(),
                all.to_vec(&s).unwrap(),
                v.to_vec(&s).unwrap(),
            );
            comm.close().unwrap();
            got
        });
        let sum = (n * (n + 1) / 2) as i64;
        let gathered: Vec<i64> = (0..n).flat_map(|r| vec![r as i64; r + 1]).collect();
        for (rank, (x, all, v)) in got.into_iter().enumerate() {
            assert_eq!(x, vec![sum; 5], "rank {rank} of {n}");
            assert_eq!(all, vec![sum; 5 * n], "rank {rank} of {n}");
            assert_eq!(v, gathered, "rank {rank} of {n}");
        }
    }
}

#[test]
fn breaking_nccls_rules_is_a_typed_error() {
    let dev = Device::sim(4).unwrap();
    let comm = one_rank(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let invalid = |e: &Error, says: &str| {
        assert!(
            matches!(
                e,
                Error::InvalidArgument {
                    op: "launch event",
                    ..
                }
            ) && e.to_string().contains(says),
            "{says}: {e}"
        );
    };
    // Made with timing.
    let timed = Event::new(&dev, true).unwrap();
    let e = expect_err(
        with_launch_event(&timed, || {
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        }),
        "timing",
    );
    invalid(&e, "made with timing");
    // Of another device.
    let other = Event::new(&Device::sim(5).unwrap(), false).unwrap();
    let e = expect_err(
        with_launch_event(&other, || {
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        }),
        "device",
    );
    assert!(
        matches!(
            e,
            Error::WrongDevice {
                op: "launch event",
                ..
            }
        ),
        "{e}"
    );
    // Two events in one group on one communicator.
    let (a, b) = (
        Event::new(&dev, false).unwrap(),
        Event::new(&dev, false).unwrap(),
    );
    let e = expect_err(
        group(|_| {
            with_launch_event(&a, || comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))?;
            with_launch_event(&b, || comm.all_reduce_in_place(&mut y, ReduceOp::Sum, &s))
        }),
        "two events",
    );
    invalid(&e, "at most one launch event");
    // Only sends and receives: a group of them, and an all-to-allv made of them.
    let e = expect_err(
        with_launch_event(&a, || {
            group(|_| {
                comm.send(&x, 0, &s)?;
                comm.recv(&mut y, 0, &s)
            })
        }),
        "p2p",
    );
    invalid(&e, "only sends and receives");
    let blocks = Blocks::packed(&[4]).unwrap();
    let e = expect_err(
        with_launch_event(&a, || comm.all_to_allv(&x, &blocks, &mut y, &blocks, &s)),
        "all_to_allv",
    );
    invalid(&e, "only sends and receives");
    // The library's own barrier inside suspend takes no caller's event.
    with_launch_event(&timed, || comm.suspend()).unwrap();
    comm.resume().unwrap();
    // Nothing was launched by the refusals; the event ends with the closure.
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    s.synchronize().unwrap();
    // An NCCL older than 2.32.3.
    let old = one_rank(
        &dev,
        &Config::new().emulate_nccl_version(Version::new(2, 32, 2)),
    );
    let e = expect_err(
        with_launch_event(&a, || old.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)),
        "old NCCL",
    );
    assert_unsupported(&e, "launch-completion event", "2.32.3");
    old.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    s.synchronize().unwrap();
    comm.close().unwrap();
    old.close().unwrap();
}

#[test]
fn a_rank_without_the_event_gets_a_mismatch() {
    let config = Config::new().call_timeout(Duration::from_secs(5));
    let errs = on_ranks(DriverKind::Sim, 2, config, |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        let ev = Event::new(&dev, false).unwrap();
        let mut issue = || comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s);
        let r = if rank == 0 {
            with_launch_event(&ev, issue)
        } else {
            issue()
        };
        let r = r.and_then(|()| s.synchronize());
        let _ = comm.abort();
        r.err()
    });
    let text: Vec<String> = errs.into_iter().flatten().map(|e| e.to_string()).collect();
    assert!(
        text.iter().any(|t| t.contains("recording a launch event")),
        "{text:?}"
    );
}

#[test]
fn a_graph_records_its_event_at_each_replay() {
    let dev = Device::sim(6).unwrap();
    let comm = one_rank(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[2u32; 3]).unwrap();
    let ev = Event::new(&dev, false).unwrap();
    let graph = with_launch_event(&ev, || {
        comm.capture(&s, |_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))
    })
    .unwrap();
    // A capture launches nothing: the event was never recorded.
    assert!(ev.query().unwrap());
    for _ in 0..3 {
        let gate = Gate::new(&dev).unwrap();
        s.wait_gate(&gate).unwrap();
        graph.launch(&s).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            !ev.query().unwrap(),
            "a replay behind a closed gate launched"
        );
        gate.open();
        ev.synchronize_timeout(SOON).unwrap();
        s.synchronize_timeout(SOON).unwrap();
    }
    drop(graph);
    assert_eq!(x.to_vec(&s).unwrap(), vec![2; 3]);
    comm.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_launch_event_on_one_gpu() {
    let dev = Device::cuda(0).unwrap();
    let comm = one_rank(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 1024]).unwrap();
    let gate = Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    let launched = Event::new(&dev, false).unwrap();
    match with_launch_event(&launched, || {
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
    }) {
        Err(Error::UnsupportedByNccl { .. }) => {
            gate.open();
            s.synchronize().unwrap();
            comm.close().unwrap();
            eprintln!("the loaded NCCL has no launch-completion events");
            return;
        }
        other => other.unwrap(),
    }
    std::thread::sleep(Duration::from_millis(50));
    assert!(!launched.query().unwrap(), "launched behind a closed gate");
    gate.open();
    launched.synchronize_timeout(SOON).unwrap();
    s.synchronize_timeout(SOON).unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![1.0; 1024]);
    comm.close().unwrap();
}

#[test]
fn a_group_refused_on_one_communicator_launches_nothing_on_the_others() {
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
        if rank == 0 {
            // A communicator of its own, whose part of the group breaks a rule (two
            // events), next to a fine part on the shared communicator.
            let own = one_rank(&Device::sim(6).unwrap(), &Config::new());
            let s6 = Stream::new(own.device()).unwrap();
            let mut y = DeviceBuffer::<f32>::zeroed(&s6, 4).unwrap();
            let mut z = DeviceBuffer::<f32>::zeroed(&s6, 4).unwrap();
            let (a, b) = (
                Event::new(own.device(), false).unwrap(),
                Event::new(own.device(), false).unwrap(),
            );
            let e = expect_err(
                group(|_| {
                    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
                    with_launch_event(&a, || own.all_reduce_in_place(&mut y, ReduceOp::Sum, &s6))?;
                    with_launch_event(&b, || own.all_reduce_in_place(&mut z, ReduceOp::Sum, &s6))
                }),
                "two events",
            );
            assert!(e.to_string().contains("at most one launch event"), "{e}");
            own.close().unwrap();
        }
        // Had rank 0's part on the shared communicator launched, rank 0 would be one
        // all-reduce ahead, and this one would never complete.
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        s.synchronize_timeout(SOON).unwrap();
        let v = x.to_vec(&s).unwrap();
        comm.close().unwrap();
        v
    });
    assert_eq!(got, vec![vec![2; 4]; 2]);
}
