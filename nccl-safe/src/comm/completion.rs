//! Completion events of launches: [`with_completion_event`] hands back the event the
//! library records after a launch anyway (for the buffers it uses), so a caller that
//! wants to know when the launch completes needs no event of its own.

use std::cell::RefCell;

use crate::driver::SharedEvent;
use crate::{Event, Stream};

thread_local! {
    /// While a [`with_completion_event`] runs on this thread: the last launch's
    /// event so far (`Some(None)` before the first).
    static LAST: RefCell<Option<Option<Event>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, an event that completes when the last
/// launch `f` made on this thread has completed: the event this library records
/// right after every launch to track the buffers it used, so taking it costs
/// nothing more. `None` when `f` launched nothing (it failed first, issued a
/// collective of zero elements, or its calls are waiting in an open
/// [`group`](crate::group)).
///
/// The event marks the launch only: anything `f` enqueues on a stream after its
/// last launch is not covered. It cannot be recorded again: [`Event::record`]
/// refuses it, since the library's own ordering of that launch's buffers rests on it.
///
/// ```
/// use nccl_safe::{with_completion_event, Communicator, Config, Device, DeviceBuffer,
///                 Gate, ReduceOp, Stream, UniqueId};
/// let dev = Device::sim(0)?;
/// let comm = Communicator::init(&dev, 0, 1, &UniqueId::random(), &Config::new())?;
/// let s = Stream::new(&dev)?;
/// let mut buf = DeviceBuffer::from_slice(&s, &[1.0f32; 4])?;
/// let gate = Gate::new(&dev)?;
/// s.wait_gate(&gate)?;
/// let (issued, done) =
///     with_completion_event(|| comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &s));
/// issued?;
/// let done = done.expect("the all-reduce was launched");
/// assert!(!done.query()?); // held behind the gate
/// assert!(done.record(&s).is_err()); // the launch's own event: not re-recorded
/// gate.open();
/// done.synchronize()?;
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub fn with_completion_event<R>(f: impl FnOnce() -> R) -> (R, Option<Event>) {
    struct Restore(Option<Option<Event>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            LAST.with(|l| *l.borrow_mut() = outer);
        }
    }
    let Ok(outer) = LAST.try_with(|l| l.replace(Some(None))) else {
        // This thread's locals are being destroyed: nothing can be captured.
        return (f(), None);
    };
    let mut restore = Restore(outer);
    let r = f();
    let event = LAST.with(|l| l.borrow_mut().as_mut().and_then(Option::take));
    // An enclosing capture's last launch is this one's, if this one saw any.
    if let (Some(e), Some(outer)) = (&event, restore.0.as_mut()) {
        *outer = Some(Event::of_launch(e.device(), e.shared().clone()));
    }
    drop(restore);
    (r, event)
}

/// Called for every launch, with the event recorded after it on `stream`: kept as
/// the last launch's event when a [`with_completion_event`] runs on this thread.
pub(super) fn offer(stream: &Stream, event: &SharedEvent) {
    // Not while this thread's locals are being destroyed (no capture runs then).
    let _ = LAST.try_with(|l| {
        if let Some(last) = l.borrow_mut().as_mut() {
            *last = Some(Event::of_launch(stream.device(), event.clone()));
        }
    });
}
