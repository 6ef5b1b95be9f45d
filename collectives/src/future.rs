//! [`Work`] and [`WorkSet`] as futures: `work.await` in any executor (no runtime
//! dependency), woken when the operation completes.
//!
//! The waker is registered with the work; the driver's completion signal (the one
//! that wakes [`Work::wait_host`]) wakes it, and so does a failure or an abort of the
//! group. The deadline is kept by one process-wide timer thread. While the group's
//! watchdog runs, it notices a peer's failure and wakes the future through the work;
//! once the group is dropped, the future re-checks every 100 ms instead, as
//! [`Work::wait_host`] does. Dropping a future only drops its [`Work`]: the operation
//! runs on, its buffers stay tracked, and its waker and timer entry are released.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::Result;
use crate::state::{Outcome, deadline_after, lock};
use crate::timer::{self, TimerKey};
use crate::work::{Work, WorkSet};

/// How often a future re-checks for a peer's failure when no watchdog runs.
const RECHECK: Duration = Duration::from_millis(100);

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A [`Work`] awaited: resolves to what [`Work::wait_host`] would return, with the
/// same timeout error (recorded, dumped, and handled by the group's policy). Made by
/// `work.await` (the group's [`Options::timeout`](crate::Options::timeout)) or
/// [`Work::wait_async`]; the deadline counts from then.
///
/// ```
/// use collectives::{Options, ProcessGroup};
/// use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// # use std::future::Future;
/// # use std::task::{Context, Poll, Wake, Waker};
/// # use std::sync::Arc;
/// # struct Unpark(std::thread::Thread);
/// # impl Wake for Unpark { fn wake(self: Arc<Self>) { self.0.unpark() } }
/// # fn block_on<F: Future>(f: F) -> F::Output {
/// #     let mut f = std::pin::pin!(f);
/// #     let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
/// #     loop {
/// #         if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(&waker)) { return v; }
/// #         std::thread::park();
/// #     }
/// # }
/// let dev = Device::sim(0)?;
/// let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), Options::new())?;
/// let s = Stream::new(&dev)?;
/// let mut x = DeviceBuffer::from_slice(&s, &[1.5f32; 8])?;
/// let work = pg.all_reduce(&mut x, ReduceOp::Sum)?;
/// block_on(async { work.await })?; // any executor: tokio, futures, smol...
/// assert_eq!(x.to_vec(&s)?, vec![1.5; 8]);
/// # Ok::<(), collectives::Error>(())
/// ```
#[must_use = "a future does nothing unless awaited; dropping it leaves the operation running"]
#[derive(Debug)]
pub struct WorkFuture {
    work: Work,
    id: u64,
    timeout: Duration,
    deadline: Option<Instant>,
    armed: Option<TimerKey>,
}

impl Work {
    /// This work as a future with its own `timeout` (counted from now);
    /// `Duration::MAX` waits without a deadline. `work.await` uses the group's
    /// [`Options::timeout`](crate::Options::timeout).
    pub fn wait_async(self, timeout: Duration) -> WorkFuture {
        WorkFuture {
            work: self,
            id: next_id(),
            timeout,
            deadline: deadline_after(timeout),
            armed: None,
        }
    }
}

impl IntoFuture for Work {
    type Output = Result<()>;
    type IntoFuture = WorkFuture;

    fn into_future(self) -> WorkFuture {
        let timeout = self.group.options.timeout;
        self.wait_async(timeout)
    }
}

impl WorkFuture {
    /// The work awaited.
    pub fn work(&self) -> &Work {
        &self.work
    }

    /// Releases the waker and the timer entry.
    fn release(&mut self) {
        if let Some(key) = self.armed.take() {
            timer::cancel(key);
        }
        self.work.state.forget_waker(self.id);
    }

    fn resolve(&mut self, r: Result<()>) -> Poll<Result<()>> {
        self.release();
        Poll::Ready(r)
    }

    #[cfg(test)]
    pub(crate) fn armed(&self) -> Option<TimerKey> {
        self.armed
    }
}

impl Future for WorkFuture {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = &mut *self;
        let (state, group) = (&this.work.state, &this.work.group);
        // Registered before looking, so that a completion in between wakes us.
        state.register_waker(this.id, cx.waker());
        match group.observe(state) {
            Ok(true) => return this.resolve(Ok(())),
            Err(e) => return this.resolve(Err(e)),
            Ok(false) => {}
        }
        let now = Instant::now();
        if this.deadline.is_some_and(|d| now >= d) {
            let err = group.timeout_error(state, this.timeout);
            group.fail(Some(state), err.clone(), "async wait timed out");
            let r = match lock(&state.outcome).clone() {
                Outcome::Done => Ok(()),
                Outcome::Failed(e) => Err(e),
                Outcome::Pending | Outcome::Failing => Err(err),
            };
            return this.resolve(r);
        }
        let wake = if group.watched.load(Ordering::Acquire) {
            this.deadline
        } else {
            Some(
                this.deadline
                    .map_or(now + RECHECK, |d| d.min(now + RECHECK)),
            )
        };
        if let Some(key) = this.armed.take() {
            timer::cancel(key);
        }
        this.armed = wake.and_then(|at| timer::wake_at(at, cx.waker()));
        Poll::Pending
    }
}

impl Drop for WorkFuture {
    fn drop(&mut self) {
        self.release();
    }
}

/// A [`WorkSet`] awaited: resolves once every work is done, or with the first failure
/// it sees (in the order of the works when several are known at once; the root
/// cause, where [`WorkSet::wait_host`] may report a later work's abort). Made by
/// `set.await` (each work under its group's timeout) or [`WorkSet::wait_async`] (one
/// deadline for all).
#[must_use = "a future does nothing unless awaited; dropping it leaves the operations running"]
#[derive(Debug)]
pub struct WorkSetFuture {
    pending: Vec<WorkFuture>,
}

impl WorkSet {
    /// This set as a future with one `timeout` for all its works (counted from now).
    pub fn wait_async(self, timeout: Duration) -> WorkSetFuture {
        let deadline = deadline_after(timeout);
        WorkSetFuture {
            pending: self
                .into_works()
                .into_iter()
                .map(|w| {
                    let mut f = w.wait_async(timeout);
                    f.deadline = deadline;
                    f
                })
                .collect(),
        }
    }
}

impl IntoFuture for WorkSet {
    type Output = Result<()>;
    type IntoFuture = WorkSetFuture;

    fn into_future(self) -> WorkSetFuture {
        WorkSetFuture {
            pending: self
                .into_works()
                .into_iter()
                .map(IntoFuture::into_future)
                .collect(),
        }
    }
}

impl WorkSetFuture {
    /// Works not yet seen complete.
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}

impl Future for WorkSetFuture {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let mut i = 0;
        while i < self.pending.len() {
            match Pin::new(&mut self.pending[i]).poll(cx) {
                Poll::Ready(Ok(())) => {
                    drop(self.pending.remove(i));
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => i += 1,
            }
        }
        if self.pending.is_empty() {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, ProcessGroup};
    use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};
    use std::task::Waker;

    #[test]
    fn a_dropped_future_releases_its_waker_and_timer_entry_and_the_work_runs_on() {
        let dev = Device::sim(7).unwrap();
        let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), Options::new()).unwrap();
        let gate = Gate::new(&dev).unwrap();
        pg.comm_stream().wait_gate(&gate).unwrap();
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[2i32; 16]).unwrap();
        let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        let state = work.state.clone();
        let mut fut = work.wait_async(Duration::from_secs(60));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut fut).poll(&mut cx).is_pending());
        let key = fut.armed().expect("the deadline is armed");
        assert!(timer::is_armed(key));
        assert_eq!(lock(&state.wakers).len(), 1);
        drop(fut);
        assert!(!timer::is_armed(key), "the timer entry is cancelled");
        assert!(lock(&state.wakers).is_empty(), "the waker is released");
        assert!(matches!(*lock(&state.outcome), Outcome::Pending));
        gate.open();
        // The operation was not cancelled: it completes and its result is there.
        assert_eq!(x.to_vec(&s).unwrap(), vec![2; 16]);
    }
}
