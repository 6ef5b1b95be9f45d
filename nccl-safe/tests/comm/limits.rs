//! The sim's limits on pending operations ([`SIM_PENDING_COLLECTIVES`] per
//! communicator, [`SIM_PENDING_MESSAGES`] per ordered pair of ranks): a launch past
//! them waits at most the call timeout, then fails naming the limit and what the
//! oldest operation waits for, having launched nothing; the same call made again once
//! there is room runs, in sequence.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::common::{PATIENCE, expect_err};
use nccl_safe::{
    Communicator, Config, DeviceBuffer, DriverKind, Error, Gate, ReduceOp, SIM_PENDING_COLLECTIVES,
    SIM_PENDING_MESSAGES, Stream,
};

use super::on_ranks;

const SHORT: Duration = Duration::from_millis(300);

/// The fields of a `PendingLimit`, or a panic naming what came instead.
fn pending_limit(e: Error) -> (&'static str, usize, Duration, String) {
    match e {
        Error::PendingLimit {
            op,
            limit,
            waited,
            oldest,
            ..
        } => (op, limit, waited, oldest),
        other => panic!("expected PendingLimit, got {other:?}"),
    }
}

/// Makes `call` until it is not refused for want of room (at most PATIENCE): what a
/// program does once the operation the refusal named can finish.
fn again(mut call: impl FnMut() -> nccl_safe::Result<()>) {
    let start = std::time::Instant::now();
    loop {
        match call() {
            Err(Error::PendingLimit { .. }) if start.elapsed() < PATIENCE => {}
            other => return other.unwrap(),
        }
    }
}

#[test]
fn a_held_back_stream_fills_the_ring_and_the_next_launch_fails_in_time_having_launched_nothing() {
    // One rank: the oldest collectives wait behind a gate on stream `a` (the program
    // opens it later), the newer ones run on stream `b`. Once the ring is full, a
    // launch waits for its position: on a GPU nothing would ever free it.
    let dev = nccl_safe::Device::sim(0).unwrap();
    let config = Config::new().call_timeout(SHORT);
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &config)
        .unwrap()
        .pop()
        .unwrap();
    let (a, b) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    let x = DeviceBuffer::from_slice(&a, &[7i64; 2]).unwrap();
    let (mut ya, mut yb) = (
        DeviceBuffer::<i64>::alloc(&dev, 2).unwrap(),
        DeviceBuffer::<i64>::alloc(&dev, 2).unwrap(),
    );
    let gate = Gate::new(&dev).unwrap();
    a.wait_gate(&gate).unwrap();
    let held = 1000;
    for _ in 0..held {
        comm.all_reduce(&x, &mut ya, ReduceOp::Sum, &a).unwrap();
    }
    for _ in held..SIM_PENDING_COLLECTIVES {
        comm.all_reduce(&x, &mut yb, ReduceOp::Sum, &b).unwrap();
    }
    b.synchronize_timeout(PATIENCE).unwrap();
    let mut z = DeviceBuffer::from_slice(&b, &[5i64, 5]).unwrap();
    let e = expect_err(
        comm.all_reduce(&x, &mut z, ReduceOp::Sum, &b),
        "a launch past the limit",
    );
    let text = e.to_string();
    let (op, limit, waited, oldest) = pending_limit(e);
    assert_eq!((op, limit), ("collective", SIM_PENDING_COLLECTIVES));
    assert!(waited >= SHORT, "{text}");
    assert!(
        oldest.contains(&format!("collective #{}", SIM_PENDING_COLLECTIVES + 1))
            && oldest.contains("held by collective #1,")
            && oldest.contains("rank 0 issued it and its stream has not reached it"),
        "{text}"
    );
    assert!(
        text.contains("2048 pending collectives per communicator"),
        "{text}"
    );
    // Nothing was enqueued: `z` was neither poisoned nor given a pending write (this
    // read would wait for one), and the gated work runs once the gate opens.
    assert_eq!(z.to_vec(&b).unwrap(), [5, 5]);
    gate.open();
    a.synchronize_timeout(PATIENCE).unwrap();
    // The same call again: room now, and it runs.
    comm.all_reduce(&x, &mut z, ReduceOp::Sum, &b).unwrap();
    assert_eq!(z.to_vec(&b).unwrap(), [7, 7]);
    assert_eq!(ya.to_vec(&b).unwrap(), [7, 7]);
    comm.close().unwrap();
}

#[test]
fn a_rank_far_ahead_of_a_late_peer_is_told_which_rank_has_not_issued_the_oldest() {
    // Rank 0 issues a whole ring of collectives (on two streams: one stream's launch
    // queue, 1024 deep, would hold it back first) while rank 1 has issued none. Its
    // next launch fails naming rank 1; once rank 1 catches up, the same call runs, and
    // every collective pairs with the same position on rank 1.
    // Rank 1 starts once rank 0 has seen its refusal.
    let go = Arc::new(Barrier::new(2));
    let config = Config::new().blocking(false).call_timeout(SHORT);
    let out = on_ranks(DriverKind::Sim, 2, config, move |rank, dev, comm| {
        comm.wait_ready(PATIENCE).unwrap();
        let (a, b) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
        let x = DeviceBuffer::from_slice(&a, &[rank as i64 + 1; 3]).unwrap();
        let (mut ya, mut yb, mut z) = (
            DeviceBuffer::<i64>::alloc(&dev, 3).unwrap(),
            DeviceBuffer::<i64>::alloc(&dev, 3).unwrap(),
            DeviceBuffer::<i64>::alloc(&dev, 3).unwrap(),
        );
        let half = SIM_PENDING_COLLECTIVES / 2;
        if rank == 1 {
            go.wait();
        }
        for i in 0..SIM_PENDING_COLLECTIVES {
            let (s, y) = if i < half {
                (&a, &mut ya)
            } else {
                (&b, &mut yb)
            };
            comm.all_reduce(&x, y, ReduceOp::Sum, s).unwrap();
        }
        let mut refused = None;
        if rank == 0 {
            let e = expect_err(
                comm.all_reduce(&x, &mut z, ReduceOp::Sum, &b),
                "rank 0 past the limit",
            );
            refused = Some(e.to_string());
            let (_, limit, _, oldest) = pending_limit(e);
            assert_eq!(limit, SIM_PENDING_COLLECTIVES);
            assert!(
                oldest.contains("rank 1 has not issued it")
                    && oldest.contains("rank 0 is running it"),
                "{oldest}"
            );
            go.wait();
        }
        again(|| comm.all_reduce(&x, &mut z, ReduceOp::Sum, &b));
        let got = (
            ya.to_vec(&a).unwrap(),
            yb.to_vec(&b).unwrap(),
            z.to_vec(&b).unwrap(),
        );
        comm.close().unwrap();
        (got, refused)
    });
    for ((ya, yb, z), _) in &out {
        assert_eq!((ya, yb, z), (&vec![3; 3], &vec![3; 3], &vec![3; 3]));
    }
    assert!(out[0].1.is_some() && out[1].1.is_none());
}

#[test]
fn messages_to_a_peer_that_posts_no_receive_stop_at_the_pair_limit_with_a_typed_error() {
    // Outside a group NCCL's send waits, on its stream, for the receive: the host may
    // queue more. The sim holds SIM_PENDING_MESSAGES per ordered pair; the next send
    // fails naming the receiver that has not posted the oldest, and runs once it has.
    // Rank 1 starts once rank 0 has seen its refusal.
    let go = Arc::new(Barrier::new(2));
    let config = Config::new().blocking(false).call_timeout(SHORT);
    let n = SIM_PENDING_MESSAGES;
    let out = on_ranks(DriverKind::Sim, 2, config, move |rank, dev, comm| {
        comm.wait_ready(PATIENCE).unwrap();
        let s = Stream::new(&dev).unwrap();
        let mut got = Vec::new();
        if rank == 0 {
            let msgs: Vec<_> = (0..=n)
                .map(|i| DeviceBuffer::from_slice(&s, &[i as i32; 5]).unwrap())
                .collect();
            for m in &msgs[..n] {
                comm.send(m, 1, &s).unwrap();
            }
            let e = expect_err(comm.send(&msgs[n], 1, &s), "a send past the pair limit");
            let text = e.to_string();
            let (op, limit, waited, oldest) = pending_limit(e);
            assert_eq!((op, limit), ("send", SIM_PENDING_MESSAGES));
            assert!(waited >= SHORT, "{text}");
            assert!(
                oldest.contains(&format!("message #{} from rank 0 to rank 1", n + 1))
                    && oldest.contains("held by message #1:")
                    && oldest.contains("rank 1 has not posted it"),
                "{text}"
            );
            go.wait();
            again(|| comm.send(&msgs[n], 1, &s));
            s.synchronize_timeout(PATIENCE).unwrap();
        } else {
            go.wait();
            let mut bufs: Vec<_> = (0..=n)
                .map(|_| DeviceBuffer::<i32>::alloc(&dev, 5).unwrap())
                .collect();
            for b in &mut bufs {
                comm.recv(b, 0, &s).unwrap();
            }
            got = bufs.iter().map(|b| b.to_vec(&s).unwrap()[0]).collect();
        }
        comm.close().unwrap();
        got
    });
    assert_eq!(out[1], (0..=n as i32).collect::<Vec<_>>());
}
