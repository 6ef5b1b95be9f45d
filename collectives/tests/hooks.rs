//! Hooks on the sim: the points, their order and threads, removal by the handle (also
//! from inside the hook), hooks that call back into the group without deadlock, a hook
//! that aborts before issue, a panicking hook, and hooks ending with the group.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Error, HookEvent, HookHandle, HookPoint, Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

const PATIENCE: Duration = Duration::from_secs(30);

fn one_rank(options: Options) -> ProcessGroup {
    ProcessGroup::new(&Device::sim(0).unwrap(), 0, 1, &UniqueId::random(), options).unwrap()
}

/// Every event a hook saw, with the name of the thread it ran on.
type Seen = Arc<Mutex<Vec<(HookEvent, String)>>>;

/// One all-reduce of `x`, waited on the host; the operation's call site is the
/// caller's.
#[track_caller]
fn sum_once(pg: &ProcessGroup, x: &mut DeviceBuffer<f32>) {
    pg.all_reduce(x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
}

fn recorder(seen: &Seen) -> impl Fn(&HookEvent) + Send + Sync + 'static {
    let seen = seen.clone();
    move |e| {
        let name = thread::current().name().unwrap_or("").to_string();
        seen.lock().unwrap().push((e.clone(), name));
    }
}

#[test]
fn before_issue_and_after_completion_see_each_operation_once_in_order() {
    let pg = one_rank(Options::new());
    let seen: Seen = Default::default();
    let _before = pg.add_hook(HookPoint::BeforeIssue, recorder(&seen));
    let _after = pg.add_hook(HookPoint::AfterCompletion, recorder(&seen));
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 8]).unwrap();
    let me = thread::current().name().unwrap().to_string();
    let line = line!() + 2;
    for _ in 0..3 {
        sum_once(&pg, &mut x);
    }
    let seen = seen.lock().unwrap().clone();
    let points: Vec<(HookPoint, u64)> = seen
        .iter()
        .map(|(e, _)| (e.point, e.op.as_ref().unwrap().seq))
        .collect();
    use HookPoint::*;
    assert_eq!(
        points,
        [
            (BeforeIssue, 1),
            (AfterCompletion, 1),
            (BeforeIssue, 2),
            (AfterCompletion, 2),
            (BeforeIssue, 3),
            (AfterCompletion, 3)
        ]
    );
    for (e, thread) in &seen {
        let op = e.op.as_ref().unwrap();
        assert_eq!((e.group.as_str(), e.rank), ("default", 0));
        assert_eq!(
            (op.op.as_str(), op.dtype.as_str(), op.count),
            ("all_reduce", "f32", 8)
        );
        assert_eq!(op.call_site, format!("{}:{line}", file!()));
        assert_eq!(e.reason, None);
        if e.point == BeforeIssue {
            // On the issuing thread, before anything ran.
            assert_eq!(thread, &me);
            assert_eq!(op.age, Duration::ZERO);
        }
    }
}

/// Runs `issue` with the group's stream held, then lets everything it issued complete
/// at once, and has the group settle it (`in_flight`).
fn completing_together<T>(pg: &ProcessGroup, issue: impl FnOnce() -> T) -> T {
    let gate = nccl_safe::Gate::new(pg.device()).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let issued = issue();
    gate.open();
    pg.comm_stream().synchronize().unwrap();
    assert_eq!(pg.in_flight(), 0);
    issued
}

/// The sequence numbers of the operations the hooks saw, in order.
fn seqs(seen: &Seen) -> Vec<u64> {
    let seen = seen.lock().unwrap();
    seen.iter()
        .map(|(e, _)| e.op.as_ref().unwrap().seq)
        .collect()
}

#[test]
fn a_burst_that_completes_at_once_settles_each_operation_once_in_order() {
    // Twenty all-reduces held behind a gate complete together; the next issue (or
    // `in_flight`) settles them as one batch: each gets its AfterCompletion hook once,
    // in issue order, and its flight-record entry is completed with a time. (The
    // watchdog, which settles too, is kept out of the way.)
    let pg = one_rank(Options::new().watchdog_interval(Duration::from_secs(3600)));
    let seen: Seen = Default::default();
    let _after = pg.add_hook(HookPoint::AfterCompletion, recorder(&seen));
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
    s.synchronize().unwrap();
    let works = completing_together(&pg, || {
        let works: Vec<_> = (0..20)
            .map(|_| pg.all_reduce(&mut x, ReduceOp::Sum).unwrap())
            .collect();
        assert_eq!(pg.in_flight(), 20);
        assert!(seen.lock().unwrap().is_empty());
        works
    });
    assert_eq!(seqs(&seen), (1..=20).collect::<Vec<u64>>());
    for w in &works {
        assert!(w.is_completed().unwrap());
        w.wait_host(PATIENCE).unwrap();
    }
    // Waiting settled nothing twice.
    assert_eq!(seen.lock().unwrap().len(), 20);
    let record = pg.flight_record();
    let ours: Vec<_> = record
        .iter()
        .filter(|e| e.seq.is_some_and(|n| n >= 1))
        .collect();
    assert_eq!(ours.len(), 20);
    for e in ours {
        assert_eq!(e.state, collectives::State::Completed, "{e:?}");
        assert!(e.completed_ms.is_some_and(|t| t >= e.enqueued_ms), "{e:?}");
    }
}

#[test]
fn in_a_burst_settled_at_once_a_failed_nan_check_fails_only_its_own_work() {
    // Three all-reduces complete together; the second's input held a NaN. Settled as
    // one batch, its Work fails with NonFinite and gets no AfterCompletion hook; the
    // others are done with theirs; all three operations are completed in the record.
    let pg = one_rank(
        Options::new()
            .check_finite(true)
            .watchdog_interval(Duration::from_secs(3600)),
    );
    let seen: Seen = Default::default();
    let _after = pg.add_hook(HookPoint::AfterCompletion, recorder(&seen));
    let s = Stream::new(pg.device()).unwrap();
    let mut bufs: Vec<DeviceBuffer<f32>> = [1.0, f32::NAN, 3.0]
        .iter()
        .map(|v| DeviceBuffer::from_slice(&s, &[*v; 4]).unwrap())
        .collect();
    s.synchronize().unwrap();
    let works: Vec<_> = completing_together(&pg, || {
        bufs.iter_mut()
            .map(|b| pg.all_reduce(b, ReduceOp::Sum).unwrap())
            .collect()
    });
    assert_eq!(seqs(&seen), [1, 3]);
    assert!(works[0].wait_host(PATIENCE).is_ok());
    assert!(
        matches!(
            works[1].wait_host(PATIENCE),
            Err(Error::NonFinite { seq: 2, .. })
        ),
        "{:?}",
        works[1].wait_host(PATIENCE)
    );
    assert!(works[2].wait_host(PATIENCE).is_ok());
    let record = pg.flight_record();
    let states: Vec<_> = record
        .iter()
        .filter(|e| e.seq.is_some_and(|n| n >= 1))
        .map(|e| (e.seq, e.state, e.completed_ms.is_some()))
        .collect();
    use collectives::State::Completed;
    assert_eq!(
        states,
        [
            (Some(1), Completed, true),
            (Some(2), Completed, true),
            (Some(3), Completed, true)
        ]
    );
    assert!(pg.aborted().is_none());
}

#[test]
fn completion_of_work_nobody_waits_for_on_the_host_is_seen_by_the_watchdog() {
    let pg = one_rank(Options::new().watchdog_interval(Duration::from_millis(5)));
    let seen: Seen = Default::default();
    let _after = pg.add_hook(HookPoint::AfterCompletion, recorder(&seen));
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 8]).unwrap();
    pg.all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_stream(&s)
        .unwrap();
    let start = Instant::now();
    while seen.lock().unwrap().is_empty() && start.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(5));
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].1.starts_with("nccl-rs-watchdog"),
        "ran on {}",
        seen[0].1
    );
}

#[test]
fn dropping_the_handle_removes_the_hook_even_from_inside_it_and_keep_keeps_it() {
    let pg = one_rank(Options::new());
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    let once = Arc::new(AtomicUsize::new(0));
    let kept = Arc::new(AtomicUsize::new(0));
    // A hook that removes itself the first time it runs.
    let slot: Arc<Mutex<Option<HookHandle>>> = Default::default();
    let handle = {
        let (once, slot) = (once.clone(), slot.clone());
        pg.add_hook(HookPoint::BeforeIssue, move |_| {
            once.fetch_add(1, Ordering::SeqCst);
            drop(slot.lock().unwrap().take());
        })
    };
    *slot.lock().unwrap() = Some(handle);
    {
        let kept = kept.clone();
        pg.add_hook(HookPoint::BeforeIssue, move |_| {
            kept.fetch_add(1, Ordering::SeqCst);
        })
        .keep();
    }
    for _ in 0..3 {
        sum_once(&pg, &mut x);
    }
    assert_eq!(once.load(Ordering::SeqCst), 1);
    assert_eq!(kept.load(Ordering::SeqCst), 3);
}

#[test]
fn a_hook_that_aborts_before_issue_fails_the_call_and_launches_nothing() {
    let pg = one_rank(Options::new());
    let handle = pg.handle();
    let _h = pg.add_hook(HookPoint::BeforeIssue, move |e| {
        if e.op.as_ref().unwrap().seq == 2 {
            handle.abort("the hook says no");
        }
    });
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    sum_once(&pg, &mut x);
    match pg.all_reduce(&mut x, ReduceOp::Sum) {
        Err(Error::GroupAborted { reason, op, .. }) => {
            assert_eq!(op, "all_reduce");
            assert!(reason.contains("the hook says no"), "{reason}");
        }
        other => panic!("expected GroupAborted, got {other:?}"),
    }
    let ops: Vec<Option<u64>> = pg
        .flight_record()
        .iter()
        .filter(|e| e.op == "all_reduce")
        .map(|e| e.seq)
        .collect();
    assert_eq!(
        ops,
        [Some(1)],
        "the refused call left nothing in the record"
    );
}

#[test]
fn a_panicking_hook_is_caught_and_the_group_goes_on() {
    let pg = one_rank(Options::new());
    let _h = pg.add_hook(HookPoint::AfterCompletion, |_| panic!("a bad hook"));
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    for _ in 0..2 {
        sum_once(&pg, &mut x);
    }
    assert_eq!(x.to_vec(&s).unwrap(), [1.0, 1.0]);
    assert!(pg.aborted().is_none());
}

#[test]
fn timeout_and_abort_hooks_run_once_before_the_waiter_wakes_and_may_call_back_in() {
    // Rank 1 never issues the second all-reduce: rank 0 times out.
    let id = UniqueId::random();
    let opts = || {
        Options::new()
            .timeout(Duration::from_millis(300))
            .watchdog_interval(Duration::from_millis(10))
    };
    let rank1_done = Arc::new(AtomicBool::new(false));
    let other = {
        let (id, done) = (id, rank1_done.clone());
        thread::spawn(move || {
            let pg = ProcessGroup::new(&Device::sim(1).unwrap(), 1, 2, &id, opts()).unwrap();
            let s = Stream::new(pg.device()).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
            sum_once(&pg, &mut x);
            let start = Instant::now();
            while !done.load(Ordering::SeqCst) && start.elapsed() < PATIENCE {
                thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let pg = ProcessGroup::new(&Device::sim(0).unwrap(), 0, 2, &id, opts()).unwrap();
    let seen: Seen = Default::default();
    let called_back = Arc::new(AtomicUsize::new(0));
    let reentrant = |point| {
        let (seen, handle, called_back) = (seen.clone(), pg.handle(), called_back.clone());
        move |e: &HookEvent| {
            let name = thread::current().name().unwrap_or("").to_string();
            seen.lock().unwrap().push((e.clone(), name));
            // Back into the group from inside the hook: none of this may deadlock.
            let _ = handle.in_flight();
            let dump = handle.dump_flight_record("from a hook");
            assert!(!dump.entries.is_empty());
            handle.abort(&format!("again, from the {point:?} hook"));
            called_back.fetch_add(1, Ordering::SeqCst);
        }
    };
    let _t = pg.add_hook(HookPoint::OnTimeout, reentrant(HookPoint::OnTimeout));
    let _a = pg.add_hook(HookPoint::OnAbort, reentrant(HookPoint::OnAbort));
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    sum_once(&pg, &mut x);
    let err = pg
        .all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { seq: 2, .. }), "{err}");
    // Both ran, and had finished, before the waiter woke.
    assert_eq!(called_back.load(Ordering::SeqCst), 2);
    let seen = seen.lock().unwrap().clone();
    let points: Vec<HookPoint> = seen.iter().map(|(e, _)| e.point).collect();
    assert_eq!(points, [HookPoint::OnTimeout, HookPoint::OnAbort]);
    for (e, thread) in &seen {
        let op = e.op.as_ref().expect("the timed-out operation");
        assert_eq!((op.op.as_str(), op.seq), ("all_reduce", 2));
        assert!(op.age >= Duration::from_millis(300), "{:?}", op.age);
        assert!(e.reason.as_deref().unwrap().contains("timed out"), "{e:?}");
        assert!(thread.starts_with("nccl-rs-watchdog"), "ran on {thread}");
    }
    rank1_done.store(true, Ordering::SeqCst);
    other.join().unwrap();
}

#[test]
fn abort_on_request_runs_the_abort_hooks_on_the_caller_once() {
    let pg = one_rank(Options::new());
    let seen: Seen = Default::default();
    let _a = pg.add_hook(HookPoint::OnAbort, recorder(&seen));
    pg.abort("enough");
    pg.abort("twice");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0.op, None);
    assert!(seen[0].0.reason.as_deref().unwrap().contains("enough"));
    assert_eq!(seen[0].1, thread::current().name().unwrap());
}

#[test]
fn hooks_end_with_the_group_even_when_kept_and_holding_a_handle() {
    let marker = Arc::new(());
    {
        let pg = one_rank(Options::new());
        let (m, handle) = (marker.clone(), pg.handle());
        pg.add_hook(HookPoint::BeforeIssue, move |_| {
            let _ = (&m, handle.in_flight());
        })
        .keep();
        assert_eq!(Arc::strong_count(&marker), 2);
    }
    // The hook (and the group handle it held) went with the group.
    assert_eq!(Arc::strong_count(&marker), 1);
}

#[test]
fn hook_handles_and_events_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<HookHandle>();
    assert_send_sync::<HookEvent>();
}

#[test]
fn an_abort_by_a_completion_hook_refuses_the_next_call() {
    let pg = one_rank(Options::new());
    let handle = pg.handle();
    let _h = pg.add_hook(HookPoint::AfterCompletion, move |_| {
        handle.abort("the completion hook says stop");
    });
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    // #1 completes while nobody waits: the next call makes room, which sees it
    // complete and runs the hook.
    let _w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    pg.comm_stream().synchronize().unwrap(); // complete, and not yet seen so
    match pg.all_reduce(&mut x, ReduceOp::Sum) {
        Err(Error::GroupAborted { reason, .. }) => {
            assert!(reason.contains("the completion hook says stop"), "{reason}")
        }
        other => panic!("expected GroupAborted, got {other:?}"),
    }
    assert_eq!(pg.in_flight(), 0);
}

#[test]
fn a_host_wait_past_its_deadline_returns_after_the_watchdogs_failure_path_ran() {
    // The watchdog claims the timeout first (at 200 ms) and runs the timeout hook for
    // 400 ms; the host wait's own deadline (300 ms) passes meanwhile. It returns once
    // the hook ran: a program that exits on the error must not cut the failure's
    // publication short (a job's hang report then missed this rank's record).
    let opts = Options::new()
        .timeout(Duration::from_millis(200))
        .watchdog_interval(Duration::from_millis(10));
    let pg = one_rank(opts);
    let dev = pg.device().clone();
    let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1.0f32; 2]).unwrap();
    let gate = nccl_safe::Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let hook_done = Arc::new(AtomicBool::new(false));
    let _t = {
        let hook_done = hook_done.clone();
        pg.add_hook(HookPoint::OnTimeout, move |_| {
            thread::sleep(Duration::from_millis(400));
            hook_done.store(true, Ordering::SeqCst);
        })
    };
    let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let e = work.wait_host(Duration::from_millis(300)).unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(
        hook_done.load(Ordering::SeqCst),
        "the wait returned while the watchdog's failure path still ran"
    );
    gate.open();
}

#[test]
fn a_timeout_stays_a_timeout_even_when_the_operation_completes_during_the_hooks() {
    let opts = Options::new()
        .timeout(Duration::from_millis(200))
        .watchdog_interval(Duration::from_millis(10));
    let pg = one_rank(opts);
    let dev = pg.device().clone();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1.0f32; 2]).unwrap();
    let gate = Arc::new(nccl_safe::Gate::new(&dev).unwrap());
    pg.comm_stream().wait_gate(&gate).unwrap();
    let completed = Arc::new(AtomicBool::new(false));
    let _t = {
        let gate = gate.clone();
        pg.add_hook(HookPoint::OnTimeout, move |_| {
            // The operation completes while the failure is being applied.
            gate.open();
            thread::sleep(Duration::from_millis(200));
        })
    };
    let _c = {
        let completed = completed.clone();
        pg.add_hook(HookPoint::AfterCompletion, move |_| {
            completed.store(true, Ordering::SeqCst);
        })
    };
    let e = pg
        .all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(
        !completed.load(Ordering::SeqCst),
        "a timed-out op was also reported done"
    );
    drop(s);
}
