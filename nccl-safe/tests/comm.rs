//! Communicators and collectives: results against a host reference, orderings, init,
//! abort, split, mismatches, misuse, groups. Multi-rank scenarios run one thread per
//! rank; on cuda they need one GPU per rank.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use common::reference::{check_all, check_every_type};
use common::{PATIENCE, assert_held, expect_err};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, Gate, HostBuffer, ReduceOp,
    Stream, UniqueId, group,
};

/// Runs `f(rank, device, comm)` on `n` ranks, one thread each, and returns their
/// results in rank order.
fn on_ranks<R: Send + 'static>(
    driver: DriverKind,
    n: usize,
    config: Config,
    f: impl Fn(usize, Device, Communicator) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let id = match driver {
        DriverKind::Sim => UniqueId::random(),
        DriverKind::Cuda => UniqueId::new().unwrap(),
    };
    let f = Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let (f, config) = (f.clone(), config.clone());
            thread::spawn(move || {
                let dev = Device::with_driver(driver, rank).unwrap();
                let comm = Communicator::init(&dev, rank, n, &id, &config).unwrap();
                f(rank, dev, comm)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("rank thread"))
        .collect()
}

#[test]
fn every_collective_type_and_op_on_world_sizes_1_to_8() {
    for n in 1..=8 {
        on_ranks(DriverKind::Sim, n, Config::new(), move |rank, dev, comm| {
            check_every_type(rank, &dev, &comm, 5 + n);
        });
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_every_collective_type_and_op_on_one_gpu() {
    on_ranks(DriverKind::Cuda, 1, Config::new(), |rank, dev, comm| {
        check_every_type(rank, &dev, &comm, 37)
    });
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_every_collective_type_and_op() {
    on_ranks(DriverKind::Cuda, 2, Config::new(), |rank, dev, comm| {
        check_every_type(rank, &dev, &comm, 37)
    });
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn random_sizes_and_counts(n in 1usize..=5, count in 0usize..40) {
            on_ranks(DriverKind::Sim, n, Config::new(), move |rank, dev, comm| {
                check_all::<i32>(rank, &dev, &comm, count);
                check_all::<f32>(rank, &dev, &comm, count);
            });
        }
    }
}

#[test]
fn a_late_rank_is_waited_for_without_explicit_waits() {
    let (tx, rx) = mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(Some(rx));
    let tx = std::sync::Mutex::new(Some(tx));
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 64]).unwrap();
        if rank == 1 {
            // Rank 1 issues its all_reduce only after rank 0's call returned.
            rx.lock().unwrap().take().unwrap().recv().unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            return x.to_vec(&s).unwrap();
        }
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        // The result, read on another stream with no explicit wait.
        let other = Stream::new(&dev).unwrap();
        let mut host = HostBuffer::new(&dev, 64).unwrap();
        x.as_view().copy_to_host_async(&other, &mut host).unwrap();
        assert_held(
            &other,
            "the copy waits for the all_reduce, which waits for rank 1",
        );
        tx.lock().unwrap().take().unwrap().send(()).unwrap();
        host.wait_timeout(PATIENCE).unwrap();
        host.to_vec().unwrap()
    });
    assert_eq!(out, vec![vec![3.0; 64], vec![3.0; 64]]);
}

#[test]
fn dropping_buffers_and_communicators_with_work_pending_neither_blocks_nor_frees_early() {
    let (tx, rx) = mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(Some(rx));
    let tx = std::sync::Mutex::new(Some(tx));
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        if rank == 1 {
            rx.lock().unwrap().take().unwrap().recv().unwrap();
            let x = DeviceBuffer::from_slice(&s, &[5i64; 16]).unwrap();
            let mut y = DeviceBuffer::<i64>::alloc(&dev, 16).unwrap();
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap();
            return y.to_vec(&s).unwrap();
        }
        let x = DeviceBuffer::from_slice(&s, &[2i64; 16]).unwrap();
        let mut y = DeviceBuffer::<i64>::alloc(&dev, 16).unwrap();
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap();
        drop(x); // its pending read keeps the memory alive
        drop(comm); // teardown waits in the background
        // Both drops returned although rank 1 has not issued its all_reduce yet.
        assert_held(&s, "the collective still waits for rank 1");
        tx.lock().unwrap().take().unwrap().send(()).unwrap();
        y.to_vec(&s).unwrap()
    });
    assert_eq!(out, vec![vec![7; 16], vec![7; 16]]);
}

#[test]
fn blocking_init_returns_only_after_every_rank_joined() {
    let id = UniqueId::random();
    let done = Arc::new(AtomicBool::new(false));
    let d2 = done.clone();
    let rank0 = thread::spawn(move || {
        let c = Communicator::init(&Device::sim(0).unwrap(), 0, 2, &id, &Config::new()).unwrap();
        d2.store(true, Ordering::SeqCst);
        c
    });
    thread::sleep(Duration::from_millis(100));
    assert!(
        !done.load(Ordering::SeqCst),
        "rank 0 returned before rank 1 joined"
    );
    let c1 = Communicator::init(&Device::sim(1).unwrap(), 1, 2, &id, &Config::new()).unwrap();
    let c0 = rank0.join().unwrap();
    assert!(done.load(Ordering::SeqCst));
    assert!(c0.is_ready().unwrap() && c1.is_ready().unwrap());
    assert_eq!((c0.rank(), c0.size(), c1.rank()), (0, 2, 1));
}

#[test]
fn non_blocking_init_returns_before_and_becomes_ready_after() {
    let id = UniqueId::random();
    let cfg = Config::new().blocking(false);
    let dev0 = Device::sim(0).unwrap();
    let c0 = Communicator::init(&dev0, 0, 2, &id, &cfg).unwrap(); // returns at once
    assert!(!c0.is_ready().unwrap());
    let s = Stream::new(&dev0).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
    let e = expect_err(
        c0.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
        "collective before ready",
    );
    assert!(matches!(e, Error::InvalidUsage { .. }), "{e}");
    let e = expect_err(c0.wait_ready(Duration::from_millis(30)), "peer missing");
    assert!(
        matches!(&e, Error::InitTimeout { missing, .. } if *missing == vec![1]),
        "{e}"
    );
    let c1 = Communicator::init(&Device::sim(1).unwrap(), 1, 2, &id, &cfg).unwrap();
    c0.wait_ready(PATIENCE).unwrap();
    c1.wait_ready(PATIENCE).unwrap();
    assert!(c0.is_ready().unwrap());
}

#[test]
fn an_abort_handle_from_another_thread_wakes_a_rank_waiting_for_its_peer() {
    // Blocking or not: NCCL's communicator is non-blocking underneath either way.
    for cfg in [Config::new().blocking(false), Config::new()] {
        abort_handle_wakes_a_waiting_rank(&cfg);
    }
}

fn abort_handle_wakes_a_waiting_rank(cfg: &Config) {
    let devs = [Device::sim(0).unwrap(), Device::sim(1).unwrap()];
    let comms = Communicator::init_all(&devs, cfg).unwrap();
    assert_eq!(comms[0].is_blocking(), cfg.is_blocking());
    let s = Stream::new(&devs[0]).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f64; 8]).unwrap();
    comms[0]
        .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        .unwrap(); // rank 1 never joins in
    assert_held(&s, "rank 0 waits for rank 1");
    let handle = comms[0].abort_handle().unwrap();
    thread::spawn(move || handle.abort().unwrap())
        .join()
        .unwrap();
    let e = expect_err(s.synchronize_timeout(PATIENCE), "aborted collective");
    assert!(e.to_string().contains("aborted"), "{e}");
    let e = expect_err(
        comms[0].all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
        "use after abort",
    );
    assert!(matches!(e, Error::Aborted { .. }), "{e}");
    assert!(matches!(
        comms[0].async_error().unwrap(),
        Some(Error::Aborted { .. })
    ));
}

#[test]
fn split_builds_sub_communicators_and_opted_out_ranks_get_none() {
    let out = on_ranks(DriverKind::Sim, 4, Config::new(), |rank, dev, comm| {
        // ranks 0 and 2: colour 0 (keys reverse their order); rank 1: colour 1 alone;
        // rank 3 opts out.
        let color = [Some(0), Some(1), Some(0), None][rank];
        let key = [5, 0, 1, 0][rank];
        let sub = comm.split(color, key, &Config::new()).unwrap();
        let sub = sub?;
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 3]).unwrap();
        sub.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        Some((sub.rank(), sub.size(), x.to_vec(&s).unwrap()))
    });
    assert_eq!(out[0], Some((1, 2, vec![4; 3])), "key 5 sorts after key 1");
    assert_eq!(out[2], Some((0, 2, vec![4; 3])));
    assert_eq!(out[1], Some((0, 1, vec![2; 3])));
    assert_eq!(out[3], None);
}

#[test]
fn split_is_refused_while_the_parent_has_outstanding_work() {
    let dev = Device::sim(3).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let gate = Gate::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
    s.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    assert_eq!(comm.outstanding(), 1);
    let e = expect_err(
        comm.split(Some(0), 0, &Config::new()),
        "split with work in flight",
    );
    assert!(
        matches!(e, Error::InvalidUsage { .. }) && e.to_string().contains("outstanding"),
        "{e}"
    );
    gate.open();
    s.synchronize_timeout(PATIENCE).unwrap();
    assert!(comm.split(Some(0), 0, &Config::new()).unwrap().is_some());
}

/// Runs two ranks that issue different things; returns the error either saw.
fn mismatch(
    issue: impl Fn(usize, &Communicator, &Stream, &Device) -> nccl_safe::Result<()>
    + Send
    + Sync
    + 'static,
) -> String {
    let errors = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        match issue(rank, &comm, &s, &dev) {
            Err(e) => Some(e),
            Ok(()) => s.synchronize_timeout(PATIENCE).err(),
        }
    });
    let texts: Vec<String> = errors
        .into_iter()
        .flatten()
        .map(|e| e.to_string())
        .collect();
    assert!(!texts.is_empty(), "a mismatch must be reported");
    texts.join(" | ")
}

#[test]
fn mismatched_op_count_dtype_and_root_are_reported_naming_both_sides() {
    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &[1.0f32; 4])?;
        let op = if rank == 0 {
            ReduceOp::Sum
        } else {
            ReduceOp::Max
        };
        comm.all_reduce_in_place(&mut x, op, s)
    });
    assert!(
        t.contains("sum") && t.contains("max") && t.contains("collective #1"),
        "{t}"
    );

    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &vec![1i32; 4 + rank])?;
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, s)
    });
    assert!(t.contains("count 4") && t.contains("count 5"), "{t}");

    let t = mismatch(|rank, comm, s, _| {
        if rank == 0 {
            comm.all_reduce_in_place(
                &mut DeviceBuffer::from_slice(s, &[1.0f32; 4])?,
                ReduceOp::Sum,
                s,
            )
        } else {
            comm.all_reduce_in_place(
                &mut DeviceBuffer::from_slice(s, &[1i32; 4])?,
                ReduceOp::Sum,
                s,
            )
        }
    });
    assert!(t.contains("f32") && t.contains("i32"), "{t}");

    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &[1u64; 4])?;
        comm.broadcast(&mut x, rank, s) // each rank names itself the root
    });
    assert!(t.contains("root 0") && t.contains("root 1"), "{t}");

    let t = mismatch(|rank, comm, s, dev| {
        let x = DeviceBuffer::from_slice(s, &[1u8; 4])?;
        if rank == 0 {
            let mut y = DeviceBuffer::<u8>::alloc(dev, 8)?;
            comm.all_gather(&x, &mut y, s)
        } else {
            let mut y = DeviceBuffer::<u8>::alloc(dev, 4)?;
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, s)
        }
    });
    assert!(t.contains("all_gather") && t.contains("all_reduce"), "{t}");
}

#[test]
fn communicators_sharing_devices_launched_in_different_orders_are_reported() {
    let devs = [Device::sim(4).unwrap(), Device::sim(5).unwrap()];
    let a = Communicator::init_all(&devs, &Config::new()).unwrap();
    let b = Communicator::init_all(&devs, &Config::new()).unwrap();
    let s: Vec<Stream> = devs.iter().map(|d| Stream::new(d).unwrap()).collect();
    let mut bufs: Vec<DeviceBuffer<f32>> = s
        .iter()
        .map(|st| DeviceBuffer::from_slice(st, &[1.0; 4]).unwrap())
        .collect();
    // Device 4: A then B. Device 5: B then A.
    a[0].all_reduce_in_place(&mut bufs[0], ReduceOp::Sum, &s[0])
        .unwrap();
    b[0].all_reduce_in_place(&mut bufs[0], ReduceOp::Sum, &s[0])
        .unwrap();
    b[1].all_reduce_in_place(&mut bufs[1], ReduceOp::Sum, &s[1])
        .unwrap();
    let e = expect_err(
        a[1].all_reduce_in_place(&mut bufs[1], ReduceOp::Sum, &s[1]),
        "launch order",
    );
    let t = e.to_string();
    assert!(
        matches!(e, Error::Mismatch { .. })
            && t.contains("sim device 4")
            && t.contains("sim device 5"),
        "{t}"
    );
    for c in a.into_iter().chain(b) {
        c.abort().unwrap();
    }
}

#[test]
fn a_collective_that_needs_a_destroyed_rank_fails_instead_of_hanging() {
    let devs = [Device::sim(4).unwrap(), Device::sim(5).unwrap()];
    let mut comms = Communicator::init_all(&devs, &Config::new()).unwrap();
    comms.pop().unwrap().close().unwrap(); // rank 1 leaves (destroy is collective)
    let s = Stream::new(&devs[0]).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
    comms[0]
        .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        .unwrap();
    let e = expect_err(s.synchronize_timeout(PATIENCE), "peer destroyed");
    let pid = std::process::id();
    assert!(
        e.to_string()
            .contains(&format!("rank 1 (pid {pid}) destroyed its communicator")),
        "{e}"
    );
}

#[test]
fn misuse_is_a_typed_error_naming_the_values() {
    let dev = Device::sim(6).unwrap();
    let other = Device::sim(7).unwrap();
    let s = Stream::new(&dev).unwrap();
    let s_other = Stream::new(&other).unwrap();
    let id = UniqueId::random();
    let mut cases: Vec<(&str, Error)> = Vec::new();
    let mut case =
        |name: &'static str, r: nccl_safe::Result<()>| cases.push((name, expect_err(r, name)));

    case(
        "rank >= size",
        Communicator::init(&dev, 2, 2, &id, &Config::new()).map(drop),
    );
    case(
        "world size 0",
        Communicator::init(&dev, 0, 0, &id, &Config::new()).map(drop),
    );
    case(
        "min > max ctas",
        Communicator::init(&dev, 0, 1, &id, &Config::new().min_ctas(4).max_ctas(2)).map(drop),
    );
    case("id of 5 bytes", UniqueId::from_bytes(&[0; 5]).map(drop));
    case(
        "init_all of nothing",
        Communicator::init_all(&[], &Config::new()).map(drop),
    );
    case(
        "init_all device twice",
        Communicator::init_all(&[dev.clone(), dev.clone()], &Config::new()).map(drop),
    );

    let comm = Communicator::init_all(&[dev.clone(), other.clone()], &Config::new()).unwrap();
    let c = &comm[0];
    let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
    let mut y3 = DeviceBuffer::<f32>::alloc(&dev, 3).unwrap();
    let mut y4 = DeviceBuffer::<f32>::alloc(&dev, 4).unwrap();
    let mut y8 = DeviceBuffer::<f32>::alloc(&dev, 8).unwrap();
    let far = DeviceBuffer::from_slice(&s_other, &[1.0f32; 4]).unwrap();
    let two = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    let mut odd = DeviceBuffer::<f32>::alloc(&dev, 5).unwrap();

    case(
        "all_reduce lengths",
        c.all_reduce(&x, &mut y3, ReduceOp::Sum, &s),
    );
    case(
        "all_reduce buffer of another device",
        c.all_reduce(&far, &mut y4, ReduceOp::Sum, &s),
    );
    case(
        "stream of another device",
        c.all_reduce(&x, &mut y4, ReduceOp::Sum, &s_other),
    );
    case("broadcast root 2", c.broadcast(&mut y4, 2, &s));
    case("reduce root 9", c.reduce(&x, None, ReduceOp::Sum, 9, &s));
    case(
        "reduce root without recv",
        c.reduce(&x, None, ReduceOp::Sum, 0, &s),
    );
    case("all_gather recv length", c.all_gather(&x, &mut y4, &s));
    case(
        "all_gather in place, odd length",
        c.all_gather_in_place(&mut odd, &s),
    );
    case(
        "reduce_scatter send length",
        c.reduce_scatter(&x, &mut y4, ReduceOp::Sum, &s),
    );
    case(
        "all_to_all odd length",
        c.all_to_all(
            &odd.as_view(),
            &mut DeviceBuffer::<f32>::alloc(&dev, 5).unwrap(),
            &s,
        ),
    );
    case(
        "gather recv length",
        c.gather(&x, Some(&mut y4.as_view_mut()), 0, &s),
    );
    case(
        "scatter send length",
        c.scatter(Some(&x.as_view()), &mut y4, 0, &s),
    );
    case("scatter root without send", c.scatter(None, &mut y4, 0, &s));
    case("send to peer 2", c.send(&x, 2, &s));
    case("recv from peer 5", c.recv(&mut y4, 5, &s));
    case(
        "premulsum device scalar of 2",
        c.all_reduce(&x, &mut y4, ReduceOp::PreMulSumDevice(two.as_view()), &s),
    );
    case(
        "split color above i32::MAX",
        c.split(Some(u32::MAX), 0, &Config::new()).map(drop),
    );
    case("nested group", group(|_| group(|_| Ok(()))));
    case(
        "NUL in comm name",
        Communicator::init(&dev, 0, 1, &id, &Config::new().comm_name("a\0")).map(drop),
    );
    let _ = &mut y8;

    for (name, e) in &cases {
        let typed = matches!(
            e,
            Error::InvalidArgument { .. }
                | Error::LengthMismatch { .. }
                | Error::WrongDevice { .. }
                | Error::InvalidUsage { .. }
        );
        assert!(typed, "{name}: {e:?}");
    }
    let texts: Vec<String> = cases.iter().map(|(_, e)| e.to_string()).collect();
    assert!(
        texts[0].contains("rank 2") && texts[0].contains("world size 2"),
        "{}",
        texts[0]
    );
    assert!(texts.iter().any(|t| t.contains("root 2")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("peer 5")), "{texts:?}");
    assert!(cases.len() >= 20, "{} cases", cases.len());
    // Nothing was launched by the refused calls: the communicator still works.
    for c in comm {
        c.abort().unwrap();
    }
}

#[test]
fn a_group_fuses_all_reduces_and_an_error_inside_still_ends_it() {
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut a = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 4]).unwrap();
        let mut b = DeviceBuffer::from_slice(&s, &[10 * (rank as i32 + 1); 4]).unwrap();
        group(|g| {
            comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s)?;
            comm.all_reduce_in_place(&mut b, ReduceOp::Max, &s)?;
            assert_eq!(g.len(), 2, "collected, not launched");
            assert_eq!(comm.outstanding(), 0);
            Ok(())
        })
        .unwrap();
        let fused = (a.to_vec(&s).unwrap(), b.to_vec(&s).unwrap());
        // An error inside: nothing it collected is launched, and the thread is out of
        // the group afterwards (the next collective runs at once).
        let e = group(|_| -> nccl_safe::Result<()> {
            comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s)?;
            Err(Error::InvalidArgument {
                op: "test",
                reason: "deliberate".into(),
            })
        })
        .unwrap_err();
        assert!(e.to_string().contains("deliberate"));
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            group(|_| -> nccl_safe::Result<()> { panic!("deliberate") })
        }));
        assert!(panicked.is_err());
        comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s).unwrap();
        (fused, a.to_vec(&s).unwrap())
    });
    for (fused, after) in out {
        assert_eq!(fused, (vec![3; 4], vec![20; 4]));
        assert_eq!(after, vec![6; 4], "the failed group's all_reduce never ran");
    }
}

#[test]
fn sends_to_each_other_outside_a_group_deadlock_as_in_nccl_and_the_sim_names_the_cycle() {
    // Both ranks send first: NCCL's sends wait for their receivers, so this hangs. The
    // sim sees the cycle (each receive is queued behind its rank's own blocked send on
    // the same stream) and fails both streams, naming the ranks, within a second.
    let out = on_ranks(
        DriverKind::Sim,
        2,
        Config::new().blocking(false),
        |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[1u16 as i32; 4]).unwrap();
            let mut y = DeviceBuffer::<i32>::alloc(&dev, 4).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            comm.send(&x, 1 - rank, &s).unwrap();
            comm.recv(&mut y, 1 - rank, &s).unwrap();
            let start = std::time::Instant::now();
            let e = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
            let took = start.elapsed();
            comm.abort_handle().unwrap().abort().unwrap();
            (e, took)
        },
    );
    let pid = std::process::id();
    for (e, took) in out {
        assert!(
            e.contains("deadlock")
                && e.contains(&format!("rank 0 (pid {pid})"))
                && e.contains(&format!("rank 1 (pid {pid})")),
            "{e}"
        );
        assert!(took < Duration::from_secs(1), "reported after {took:?}");
    }
}

#[test]
fn a_ring_of_sends_before_receives_is_a_reported_deadlock_and_a_self_send_is_refused_at_the_call() {
    // NCCL's ring example without its group: every rank sends to the next before it
    // receives from the previous, all on one stream.
    let out = on_ranks(
        DriverKind::Sim,
        3,
        Config::new().blocking(false),
        |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[rank as i64; 8]).unwrap();
            let mut y = DeviceBuffer::<i64>::alloc(&dev, 8).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            comm.send(&x, (rank + 1) % 3, &s).unwrap();
            comm.recv(&mut y, (rank + 2) % 3, &s).unwrap();
            let e = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
            comm.abort_handle().unwrap().abort().unwrap();
            e
        },
    );
    for e in out {
        assert!(e.contains("deadlock"), "{e}");
        for r in 0..3 {
            assert!(
                e.contains(&format!("rank {r} (pid")),
                "names every rank: {e}"
            );
        }
    }
    // A send to itself then its receive, on one stream: refused at the receive.
    let dev = Device::sim(3).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
    let mut y = DeviceBuffer::<u8>::alloc(&dev, 4).unwrap();
    comm.send(&x, 0, &s).unwrap();
    let e = expect_err(comm.recv(&mut y, 0, &s), "self receive behind the send");
    assert!(
        matches!(e, Error::InvalidUsage { .. }) && e.to_string().contains("deadlock"),
        "{e}"
    );
    let e = expect_err(
        s.synchronize_timeout(PATIENCE),
        "the send's receive was refused",
    );
    assert!(e.to_string().contains("receive failed"), "{e}");
    comm.abort_handle().unwrap().abort().unwrap();
}

#[test]
fn unique_ids_from_nccl_and_random_ones() {
    let a = UniqueId::nccl().expect("libnccl makes ids without a GPU");
    let b = UniqueId::nccl().unwrap();
    assert!(!a.is_sim());
    assert_ne!(a, b);
    assert_eq!(UniqueId::from_bytes(a.as_bytes()).unwrap(), a);
    let text = format!("{a:?}");
    assert!(text.starts_with("UniqueId(") && text.len() < 40, "{text}");
    assert_ne!(UniqueId::random(), UniqueId::random());
    // Text round trip, and typed errors naming what is wrong.
    let r = UniqueId::random();
    assert_eq!(UniqueId::from_hex(&r.to_hex()).unwrap(), r);
    assert!(
        UniqueId::from_hex("abc")
            .unwrap_err()
            .to_string()
            .contains("3 hex digits")
    );
    // The sim joins NCCL's ids too (the two kinds interoperate on the sim).
    let devs = [Device::sim(4).unwrap()];
    let c = Communicator::init(&devs[0], 0, 1, &a, &Config::new()).unwrap();
    c.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_sim_id_is_refused_at_once() {
    let e = expect_err(
        Communicator::init(
            &Device::cuda(0).unwrap(),
            0,
            1,
            &UniqueId::random(),
            &Config::new(),
        ),
        "sim id on cuda",
    );
    assert!(e.to_string().contains("made for the sim driver"), "{e}");
}

#[test]
fn communicator_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<Communicator>();
    assert_sync::<Communicator>();
    assert_send::<nccl_safe::AbortHandle>();
    assert_sync::<nccl_safe::AbortHandle>();
    assert_send::<UniqueId>();
    assert_send::<Config>();
}

/// World-size-1 scenarios for one GPU, with the late peer emulated by a gate on the
/// communication stream.
mod size_one {
    use super::*;

    fn gated_collective_returns_and_dropping_does_not_block(dev: Device) {
        let comm =
            Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
                .unwrap()
                .pop()
                .unwrap();
        let s = Stream::new(&dev).unwrap();
        let compute = Stream::new(&dev).unwrap();
        let gate = Gate::new(&dev).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[4.0f32; 256]).unwrap();
        let mut y = DeviceBuffer::<f32>::alloc(&dev, 256).unwrap();
        s.wait_gate(&gate).unwrap(); // the "late peer"
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap(); // returns
        compute.wait_event(&s.record_event().unwrap()).unwrap(); // a stream-wait returns at once
        y.add_scalar(&compute, 100.0).unwrap();
        drop(x); // does not block
        assert_held(&compute, "compute waits for the gated collective");
        gate.open();
        assert_eq!(y.to_vec(&compute).unwrap(), vec![104.0; 256]);
        comm.close().unwrap();
    }

    fn abort_with_gated_work(dev: Device) {
        let comm =
            Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
                .unwrap()
                .pop()
                .unwrap();
        let s = Stream::new(&dev).unwrap();
        let gate = Gate::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1i32; 16]).unwrap();
        s.wait_gate(&gate).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        // The gate's rule: aborting frees memory, which waits for all work on the
        // device, including the gated stream. Arm a thread to open it first.
        let gate = Arc::new(gate);
        let opener = {
            let gate = gate.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                gate.open();
            })
        };
        comm.abort_handle().unwrap().abort().unwrap();
        opener.join().unwrap();
        let e = expect_err(
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
            "after abort",
        );
        assert!(matches!(e, Error::Aborted { .. }), "{e}");
    }

    #[test]
    fn sim_gated_collective_returns_and_dropping_does_not_block() {
        gated_collective_returns_and_dropping_does_not_block(Device::sim(2).unwrap());
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn cuda_gated_collective_returns_and_dropping_does_not_block() {
        gated_collective_returns_and_dropping_does_not_block(Device::cuda(0).unwrap());
    }

    #[test]
    fn sim_abort_with_gated_work() {
        abort_with_gated_work(Device::sim(3).unwrap());
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn cuda_abort_with_gated_work() {
        abort_with_gated_work(Device::cuda(0).unwrap());
    }
}

#[test]
fn a_send_whose_receiver_took_the_data_and_then_closed_succeeds() {
    // The receiver finishes its part before it destroys its communicator; the sender,
    // still looking, must see the receive done rather than a destroyed peer.
    for round in 0..120 {
        let devs = [Device::sim(6).unwrap(), Device::sim(7).unwrap()];
        let mut comms = Communicator::init_all(&devs, &Config::new()).unwrap();
        let (s0, s1) = (
            Stream::new(&devs[0]).unwrap(),
            Stream::new(&devs[1]).unwrap(),
        );
        let x = DeviceBuffer::from_slice(&s0, &[round as u32; 256]).unwrap();
        let mut y = DeviceBuffer::<u32>::zeroed(&s1, 256).unwrap();
        comms[0].send(&x, 1, &s0).unwrap();
        comms[1].recv(&mut y, 0, &s1).unwrap();
        assert_eq!(y.to_vec(&s1).unwrap(), vec![round as u32; 256]);
        comms.pop().unwrap().close().unwrap();
        s0.synchronize_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        comms.pop().unwrap().close().unwrap();
    }
}
