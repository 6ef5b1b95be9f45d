//! `Work` and `WorkSet` as futures on the sim driver: with a minimal hand-written
//! executor (counting its wake-ups) and with tokio; completion wakes them, timeouts
//! and abort resolve them with `wait_host`'s errors, and dropping one leaves the
//! operation running.

use std::future::{Future, IntoFuture};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Error, Options, ProcessGroup, WorkSet};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

const PATIENCE: Duration = Duration::from_secs(30);

/// Wakes the executor's thread and counts the wake-ups.
struct Unpark {
    thread: thread::Thread,
    wakes: AtomicUsize,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.thread.unpark();
    }
}

/// The smallest executor: polls, parks until woken. Returns the output and how many
/// times the future was woken.
fn block_on<F: Future>(f: F) -> (F::Output, usize) {
    let mut f = pin!(f);
    let unpark = Arc::new(Unpark {
        thread: thread::current(),
        wakes: AtomicUsize::new(0),
    });
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return (v, unpark.wakes.load(Ordering::SeqCst));
        }
        // park may return spuriously: the future is polled again, as executors do.
        thread::park();
    }
}

/// A single-rank group on sim device `dev` whose communication stream waits for a
/// gate (its operations complete only when the test opens it).
fn gated(dev: usize, options: Options) -> (ProcessGroup, Gate, Stream) {
    let dev = Device::sim(dev).unwrap();
    let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options).unwrap();
    let gate = Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let s = Stream::new(&dev).unwrap();
    (pg, gate, s)
}

#[test]
fn completion_wakes_the_future_without_polling_ticks() {
    let (pg, gate, s) = gated(0, Options::new());
    let mut x = DeviceBuffer::from_slice(&s, &[3.0f32; 64]).unwrap();
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let opener = thread::spawn(move || {
        thread::sleep(Duration::from_millis(600));
        let opened = Instant::now();
        gate.open();
        opened
    });
    let (r, wakes) = block_on(work.into_future());
    let resolved = Instant::now();
    r.unwrap();
    let opened = opener.join().unwrap();
    assert!(
        resolved >= opened,
        "resolved before the operation could run"
    );
    // A 100 ms polling tick would have woken it about 6 times while the gate was shut;
    // completion wakes it once (the watchdog's settling may wake it once more).
    assert!((1..=3).contains(&wakes), "woken {wakes} times");
    assert_eq!(x.to_vec(&s).unwrap(), vec![3.0; 64]);
}

#[test]
fn a_timeout_resolves_like_wait_host_and_the_group_then_refuses_work() {
    let (pg, gate, s) = gated(1, Options::new().name("fut-timeout"));
    let mut x = DeviceBuffer::from_slice(&s, &[1i64; 8]).unwrap();
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let seq = work.seq();
    let start = Instant::now();
    let (r, _) = block_on(work.wait_async(Duration::from_millis(200)));
    let waited = start.elapsed();
    match r {
        Err(Error::Timeout {
            op, seq: s2, group, ..
        }) => {
            assert_eq!(
                (op.as_str(), s2, group.as_str()),
                ("all_reduce", seq, "fut-timeout")
            );
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(waited >= Duration::from_millis(200), "{waited:?}");
    assert!(waited < PATIENCE, "{waited:?}");
    // The group's policy (abort) was applied, as after a host-wait timeout.
    assert!(matches!(pg.barrier(), Err(Error::GroupAborted { .. })));
    gate.open();
}

#[test]
fn into_future_uses_the_group_timeout() {
    let (pg, gate, s) = gated(2, Options::new().timeout(Duration::from_millis(300)));
    let mut x = DeviceBuffer::from_slice(&s, &[1u8; 8]).unwrap();
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let (r, _) = block_on(async { work.await });
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    gate.open();
}

#[test]
fn abort_resolves_a_pending_future_at_once_with_aborted() {
    let (pg, gate, s) = gated(3, Options::new());
    let mut x = DeviceBuffer::from_slice(&s, &[1u32; 8]).unwrap();
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let seq = work.seq();
    let waiter = thread::spawn(move || {
        let (r, _) = block_on(work.into_future());
        (r, Instant::now())
    });
    thread::sleep(Duration::from_millis(200));
    let aborted = Instant::now();
    pg.abort("test says stop");
    let (r, resolved) = waiter.join().unwrap();
    match r {
        Err(Error::Aborted {
            seq: s2, reason, ..
        }) => {
            assert_eq!(s2, seq);
            assert!(reason.contains("test says stop"), "{reason}");
        }
        other => panic!("expected an abort, got {other:?}"),
    }
    assert!(resolved >= aborted);
    gate.open();
}

#[test]
fn a_future_outliving_its_group_still_resolves_when_the_work_completes() {
    let (pg, gate, s) = gated(4, Options::new());
    let mut x = DeviceBuffer::from_slice(&s, &[5i32; 8]).unwrap();
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let waiter = thread::spawn(move || block_on(work.into_future()).0);
    thread::sleep(Duration::from_millis(100));
    drop(pg); // the watchdog stops; the future re-checks on its own
    thread::sleep(Duration::from_millis(200));
    gate.open();
    waiter.join().unwrap().unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![5; 8]);
}

#[test]
fn a_work_set_resolves_when_all_are_done_and_times_out_as_one() {
    let (pg, gate, s) = gated(5, Options::new());
    let mut a = DeviceBuffer::from_slice(&s, &[1.0f64; 32]).unwrap();
    let (mut lo, mut hi) = a.split_at_mut(16).unwrap();
    let set: WorkSet = [
        pg.all_reduce(&mut lo, ReduceOp::Sum).unwrap(),
        pg.all_reduce(&mut hi, ReduceOp::Max).unwrap(),
    ]
    .into_iter()
    .collect();
    let fut = set.wait_async(Duration::from_millis(150));
    assert_eq!(fut.remaining(), 2);
    let (r, _) = block_on(fut);
    assert!(matches!(r, Err(Error::Timeout { seq: 1, .. })), "{r:?}");
    gate.open();
    drop(pg);

    let (pg, gate, s) = gated(5, Options::new());
    let mut b = DeviceBuffer::from_slice(&s, &[2.0f64; 32]).unwrap();
    let (mut lo, mut hi) = b.split_at_mut(16).unwrap();
    let set: WorkSet = [
        pg.all_reduce(&mut lo, ReduceOp::Sum).unwrap(),
        pg.all_reduce(&mut hi, ReduceOp::Sum).unwrap(),
    ]
    .into_iter()
    .collect();
    let opener = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        gate.open();
    });
    block_on(set.into_future()).0.unwrap();
    opener.join().unwrap();
    assert_eq!(b.to_vec(&s).unwrap(), vec![2.0; 32]);
}

#[test]
fn tokio_overlaps_two_ranks_buckets_with_join() {
    let id = UniqueId::random();
    let ranks: Vec<_> = (0..2)
        .map(|rank| {
            thread::spawn(move || {
                let dev = Device::sim(6 + rank).unwrap();
                let pg = ProcessGroup::new(&dev, rank, 2, &id, Options::new()).unwrap();
                let s = Stream::new(&dev).unwrap();
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let mut grads = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 1000]).unwrap();
                let (mut b0, mut b1) = grads.split_at_mut(600).unwrap();
                let w0 = pg.all_reduce(&mut b0, ReduceOp::Sum).unwrap();
                let w1 = pg.all_reduce(&mut b1, ReduceOp::Max).unwrap();
                let (r0, r1) = rt.block_on(async { tokio::join!(w0, w1) });
                r0.unwrap();
                r1.unwrap();
                let v = grads.to_vec(&s).unwrap();
                // The future is Send: it can be spawned on a multi-threaded runtime.
                let mt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .build()
                    .unwrap();
                let mut y = DeviceBuffer::from_slice(&s, &[rank as i32; 4]).unwrap();
                let w = pg.all_reduce(&mut y, ReduceOp::Sum).unwrap();
                mt.block_on(mt.spawn(w.into_future())).unwrap().unwrap();
                (v, y.to_vec(&s).unwrap())
            })
        })
        .collect();
    for h in ranks {
        let (v, y) = h.join().unwrap();
        assert_eq!(&v[..600], &[3.0; 600][..]);
        assert_eq!(&v[600..], &[2.0; 400][..]);
        assert_eq!(y, vec![1; 4]);
    }
}
