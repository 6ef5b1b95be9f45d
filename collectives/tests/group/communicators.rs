//! What a group is built on: eager connection's warm-ups, groups over a blocking
//! communicator (working, timing out, a peer that never joins), and communicators of
//! `init_all` refused.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Error, Options, ProcessGroup, State};
use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

use super::{PATIENCE, on_ranks};

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
