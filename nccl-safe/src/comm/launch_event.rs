//! Launch-completion events: [`with_launch_event`] hands NCCL an [`Event`] to record
//! once it has launched a collective's kernel (the `launchCompletionEvent` of NCCL's
//! per-call config, since 2.32.3). Such an event tells "NCCL has launched it and it
//! is running, waiting for its peers" apart from "not launched yet" (the stream is
//! still busy with earlier work, or NCCL has not launched the group).
//!
//! NCCL's rules, enforced at each launch before NCCL sees it (`select_launch_event`
//! in `communicator.rs`, beside the launch, which keeps this file free of it): the event is made without
//! timing, on the communicator's device; one launch (a group) of one communicator
//! records at most one event; a launch of only sends and receives records none
//! (NCCL attaches the event through a collective's per-call config). NCCL's rule that
//! every rank gives an event or none does is checked across ranks on the sim.

use std::cell::RefCell;

use crate::driver::{EventImpl, SharedEvent};
use crate::{Device, Event, Stream};

/// An event attached to a call: the driver's event (shared, so that the launch keeps
/// it alive), its device, and whether it was made with timing.
#[derive(Clone)]
pub(crate) struct Mark {
    pub(super) event: SharedEvent,
    pub(super) device: Device,
    pub(super) timing: bool,
    /// A launch's own event ([`Event::of_launch`]), which must not be recorded again.
    pub(super) fixed: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<Mark>> = const { RefCell::new(None) };
}

/// The event attached on this thread, if any.
pub(crate) fn current() -> Option<Mark> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Sets this thread's event to `mark` while `f` runs, then puts back the one before.
fn with_mark<R>(mark: Option<Mark>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Mark>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(mark)));
    f()
}

/// Runs `f` with no event attached (the library's own operations inside a caller's
/// [`with_launch_event`]).
pub(crate) fn without_launch_event<R>(f: impl FnOnce() -> R) -> R {
    with_mark(None, f)
}

/// Runs `f`, having each launch of collectives it makes record `event` once NCCL has
/// launched it: a query of the event then says whether the collective has started
/// running on the device, which is earlier than its completion (a collective runs
/// until its peers arrive). One launch is one call, or one [`group`](crate::group)'s
/// calls on one communicator.
///
/// On cuda the loaded NCCL records it (NCCL 2.32.3 and later; with a CUDA driver
/// older than 12.3 NCCL records it just before the launch). On the sim the stream
/// records it when it reaches the collective, all earlier work on the stream done.
///
/// Rules, each a typed error of the call that breaks it:
/// - the event is made without timing (`Event::new(device, false)`), on the
///   communicator's device ([`Error::InvalidArgument`](crate::Error::InvalidArgument),
///   [`Error::WrongDevice`](crate::Error::WrongDevice));
/// - a launch records at most one event ([`Error::InvalidArgument`](crate::Error::InvalidArgument));
/// - a launch of only sends and receives records none: NCCL attaches the event
///   through a collective's per-call config, which they do not take
///   ([`Error::InvalidArgument`](crate::Error::InvalidArgument));
/// - the loaded NCCL (or the version the sim emulates) is 2.32.3 or later
///   ([`Error::UnsupportedByNccl`](crate::Error::UnsupportedByNccl));
/// - every rank attaches an event to the same collective, or none does (NCCL's rule;
///   the sim reports a rank that differs as an [`Error::Mismatch`](crate::Error::Mismatch)).
///
/// The launch keeps the event alive until it completes, so the event may be dropped
/// at any time. Recording the event elsewhere meanwhile makes its queries answer for
/// that record instead, as CUDA events do.
///
/// What records nothing: a collective of no elements (NCCL launches nothing for it,
/// so an event never recorded reads as complete), a graph replay (it records the
/// event chosen when it was captured) and the one-sided operations.
///
/// ```
/// use nccl_safe::{with_launch_event, Communicator, Config, Device, DeviceBuffer,
///                 Event, Gate, ReduceOp, Stream, UniqueId};
/// let dev = Device::sim(0)?;
/// let comm = Communicator::init(&dev, 0, 1, &UniqueId::random(), &Config::new())?;
/// let s = Stream::new(&dev)?;
/// let mut buf = DeviceBuffer::from_slice(&s, &[1.0f32; 4])?;
/// let gate = Gate::new(&dev)?;
/// s.wait_gate(&gate)?; // earlier work on the stream, not done yet
/// let launched = Event::new(&dev, false)?;
/// with_launch_event(&launched, || comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &s))?;
/// assert!(!launched.query()?); // the stream has not reached the all-reduce
/// gate.open();
/// launched.synchronize()?;
/// s.synchronize()?;
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub fn with_launch_event<R>(event: &Event, f: impl FnOnce() -> R) -> R {
    with_mark(
        Some(Mark {
            event: event.shared().clone(),
            device: event.device().clone(),
            timing: event.timing(),
            fixed: event.fixed(),
        }),
        f,
    )
}

/// Keeps `event` (a launch's launch-completion event) alive until the launch, whose
/// completion `after` marks, has completed: NCCL may record it until then. Without
/// `after` (nothing was recorded), an event recorded on `stream` now marks it.
pub(super) fn keep(stream: &Stream, after: Option<&SharedEvent>, event: SharedEvent) {
    let after = match after {
        Some(a) => a.clone(),
        None => match stream.inner.record_new() {
            Ok(a) => a,
            // Nothing marks the launch's end: kept for as long as the process runs,
            // rather than freed under NCCL.
            Err(_) => {
                std::mem::forget(event);
                return;
            }
        },
    };
    EventImpl::on_complete(&after, Box::new(move || drop(event)));
}
