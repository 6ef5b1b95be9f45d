//! Completion events (`with_completion_event`) and `Event::on_complete`: the event
//! handed back completes with the last launch, not before (a peer that has not issued
//! holds it); it is never recorded again; nothing launched gives none; the
//! captures nest (an inner capture's launch counts for the outer one); the callback
//! runs once the event's work is done, and a panicking one is contained.

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::common::{expect_err, one_rank};
use crate::on_ranks;
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, Event, Gate, ReduceOp, Stream,
    group, with_completion_event, with_launch_event,
};

const SOON: Duration = Duration::from_secs(10);
const A_WHILE: Duration = Duration::from_millis(50);

/// A sim device, a communicator of one rank on it, and a stream.
fn one_rank_with_stream() -> (Device, Communicator, Stream) {
    let dev = Device::sim(0).unwrap();
    let comm = one_rank(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    (dev, comm, s)
}

#[test]
fn the_event_completes_with_the_collective_and_its_callback_runs_then() {
    let met = Arc::new(Barrier::new(2));
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 5]).unwrap();
        if rank == 0 {
            let (issued, done) =
                with_completion_event(|| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s));
            issued.unwrap();
            let done = done.expect("one launch, one event");
            let (tx, rx) = mpsc::channel();
            done.on_complete(move || tx.send(()).unwrap());
            // Rank 1 has not issued: the all-reduce cannot complete, nor its event.
            std::thread::sleep(A_WHILE);
            assert!(!done.query().unwrap(), "complete without its peer");
            assert!(rx.recv_timeout(A_WHILE).is_err(), "the callback ran early");
            met.wait();
            rx.recv_timeout(SOON)
                .expect("the callback runs once it completes");
            assert!(done.query().unwrap());
        } else {
            met.wait();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        }
        s.synchronize_timeout(SOON).unwrap();
        let v = x.to_vec(&s).unwrap();
        comm.close().unwrap();
        v
    });
    assert_eq!(got, vec![vec![3; 5]; 2]);
}

#[test]
fn a_completion_event_is_never_recorded_again_nor_used_as_a_launch_event() {
    let (dev, comm, s) = one_rank_with_stream();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
    let (issued, done) =
        with_completion_event(|| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s));
    issued.unwrap();
    let done = done.unwrap();
    match expect_err(done.record(&s), "recording a launch's own event") {
        Error::InvalidUsage { op, reason } => {
            assert_eq!(op, "event record");
            assert!(reason.contains("with_completion_event"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let refused = with_launch_event(&done, || {
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
    });
    match expect_err(refused, "a launch's own event as a launch event") {
        Error::InvalidArgument { op, reason } => {
            assert_eq!(op, "launch event");
            assert!(reason.contains("with_completion_event"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // A stream may wait for it, and an event of one's own is recorded as ever.
    let other = Stream::new(&dev).unwrap();
    other.wait_event(&done).unwrap();
    Event::new(&dev, false).unwrap().record(&other).unwrap();
    s.synchronize_timeout(SOON).unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![1.0; 4]);
    comm.close().unwrap();
}

#[test]
fn nothing_launched_gives_no_event_and_captures_nest() {
    let (dev, comm, s) = one_rank_with_stream();
    let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
    let mut empty = DeviceBuffer::<i32>::alloc(&dev, 0).unwrap();
    // Zero elements: NCCL launches nothing, nor does this layer.
    let (r, e) = with_completion_event(|| comm.all_reduce_in_place(&mut empty, ReduceOp::Sum, &s));
    r.unwrap();
    assert!(e.is_none());
    // Refused before launching.
    let (r, e) = with_completion_event(|| comm.broadcast(&mut x, 3, &s));
    assert!(r.is_err());
    assert!(e.is_none());
    // Inside an open group the calls wait for its end: no launch yet.
    let r = group(|_| {
        let (r, e) = with_completion_event(|| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s));
        assert!(e.is_none());
        r
    });
    r.unwrap();
    // Nested: the inner capture takes its own launch; the outer one the last of all.
    let gate = Gate::new(&dev).unwrap();
    let (inner, outer) = with_completion_event(|| {
        let (_, first) =
            with_completion_event(|| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s));
        s.wait_gate(&gate).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        first.unwrap()
    });
    let outer = outer.unwrap();
    inner.synchronize_timeout(SOON).unwrap(); // before the gate
    assert!(
        !outer.query().unwrap(),
        "the last launch waits behind the gate"
    );
    gate.open();
    outer.synchronize_timeout(SOON).unwrap();
    // The last launch made inside the inner capture is the outer one's last too.
    let gate = Gate::new(&dev).unwrap();
    let (inner, outer) = with_completion_event(|| {
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        s.wait_gate(&gate).unwrap();
        let (r, last) =
            with_completion_event(|| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s));
        r.unwrap();
        last.unwrap()
    });
    let outer = outer.expect("the inner capture's launch is the outer one's last");
    std::thread::sleep(A_WHILE);
    assert!(
        !inner.query().unwrap() && !outer.query().unwrap(),
        "behind the gate"
    );
    gate.open();
    outer.synchronize_timeout(SOON).unwrap();
    s.synchronize_timeout(SOON).unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![1; 4]);
    comm.close().unwrap();
}

#[test]
fn an_event_runs_its_callback_once_done_and_at_once_when_done_already() {
    let dev = Device::sim(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let gate = Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    let e = s.record_event().unwrap();
    let (tx, rx) = mpsc::channel();
    e.on_complete(move || tx.send(1).unwrap());
    assert!(
        rx.recv_timeout(A_WHILE).is_err(),
        "ran behind a closed gate"
    );
    gate.open();
    assert_eq!(rx.recv_timeout(SOON), Ok(1));
    let (tx, rx) = mpsc::channel();
    e.on_complete(move || tx.send(2).unwrap());
    assert_eq!(rx.try_recv(), Ok(2), "the sim runs it at once when done");
}

#[test]
fn a_panicking_callback_leaves_the_stream_working() {
    let dev = Device::sim(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let gate = Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    let e = s.record_event().unwrap();
    e.on_complete(|| panic!("a user's callback panics"));
    gate.open();
    e.synchronize_timeout(SOON).unwrap();
    // The stream's worker ran the callback: it must still run later work.
    let x = DeviceBuffer::from_slice(&s, &[7u8; 3]).unwrap();
    s.synchronize_timeout(SOON).unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![7; 3]);
    // Run at once on this thread when done already: contained here too.
    e.on_complete(|| panic!("again"));
}
