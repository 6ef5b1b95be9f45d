//! Communicators' lifecycle: blocking and non-blocking init, abort from another
//! thread, split, unique ids, and the types that cross threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use crate::common::{PATIENCE, assert_held, expect_err};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, Gate, ReduceOp, Stream, UniqueId,
};

use super::on_ranks;

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

#[test]
fn a_blocking_init_gives_up_at_its_call_timeout_naming_who_never_joined_and_who_left() {
    // Rank 0 joins first with a short timeout, rank 1 with a longer one, and rank 2
    // never comes. Each blocking init fails at its own call timeout (before, the sim's
    // waited forever), naming rank 2; rank 1 also names rank 0 as one that left.
    let id = UniqueId::random();
    let rank0 = thread::spawn(move || {
        let config = Config::new().call_timeout(Duration::from_millis(1000));
        Communicator::init(&Device::sim(5).unwrap(), 0, 3, &id, &config).map(drop)
    });
    thread::sleep(Duration::from_millis(100));
    let config = Config::new().call_timeout(Duration::from_millis(2500));
    let e1 = expect_err(
        Communicator::init(&Device::sim(6).unwrap(), 1, 3, &id, &config).map(drop),
        "rank 1 past its timeout",
    );
    let e0 = expect_err(rank0.join().unwrap(), "rank 0 past its timeout");
    match (&e0, &e1) {
        (
            Error::InitTimeout {
                missing: m0,
                waited: w0,
                ..
            },
            Error::InitTimeout {
                missing: m1,
                left: l1,
                waited: w1,
            },
        ) => {
            assert_eq!(
                (m0.as_slice(), m1.as_slice(), l1.as_slice()),
                (&[2][..], &[2][..], &[0][..])
            );
            assert_eq!(
                (*w0, *w1),
                (Duration::from_millis(1000), Duration::from_millis(2500))
            );
        }
        _ => panic!("expected two InitTimeouts: {e0:?} | {e1:?}"),
    }
}
