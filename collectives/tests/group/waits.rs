//! Orderings and both waits: a call that returns before the late rank issued,
//! `wait_stream` ordering compute work, a thousand collectives waited in random order
//! under the in-flight cap.

use collectives::{Options, WaitMode, WorkSet};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

use super::{PATIENCE, channel_pair, on_ranks};

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
