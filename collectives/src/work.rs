//! [`Work`]: an operation in flight, with its two waits; [`WorkSet`]: several waited
//! together.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use nccl_safe::Stream;

use crate::Result;
use crate::state::{Inner, Outcome, SPIN, WorkState, deadline_after, lock, spin_until};

/// How long a host wait past its deadline waits for another path (the watchdog) that
/// is failing the same operation to finish: to publish the failure, dump the flight
/// record and run the hooks.
const FAILING_WAIT: Duration = Duration::from_secs(3);

/// How to wait for a [`Work`], chosen at run time.
#[derive(Clone, Copy, Debug)]
pub enum WaitMode<'a> {
    /// Make this stream depend on the work; returns at once.
    Stream(&'a Stream),
    /// Block the calling thread until the work is done, failed, or the time is up.
    Host(Duration),
}

/// An operation in flight. It exists only once its kernels are enqueued, so
/// [`Work::wait_stream`] is exact and returns at once; [`Work::wait_host`] blocks.
/// Dropping a `Work` without waiting is safe: buffers are tracked, and the watchdog
/// still sees its errors.
#[must_use = "a Work is the only way to learn that an operation failed; wait on it or keep it in a WorkSet"]
pub struct Work {
    pub(crate) state: Arc<WorkState>,
    pub(crate) group: Arc<Inner>,
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Work({} #{} at {})",
            self.state.op, self.state.seq, self.state.call_site
        )
    }
}

impl Work {
    /// The operation's name.
    pub fn op(&self) -> &str {
        self.state.op
    }

    /// Its sequence number in the group.
    pub fn seq(&self) -> u64 {
        self.state.seq
    }

    /// Where it was issued (`file:line`).
    pub fn call_site(&self) -> &str {
        &self.state.call_site
    }

    /// Whether it has completed. Never blocks.
    ///
    /// # Errors
    ///
    /// Its failure: an asynchronous error, a timeout or abort seen by the watchdog.
    pub fn is_completed(&self) -> Result<bool> {
        self.group.observe(&self.state)
    }

    /// Whether NCCL has launched the operation: `Some(true)` once it is running on
    /// the device (or done), `Some(false)` while it is still behind earlier work on
    /// its stream or NCCL has not launched it, `None` where the group does not learn
    /// it ([`Options::launch_events`](crate::Options::launch_events) off, or an
    /// operation that carries no launch-completion event). Launched and not
    /// completed means waiting for peers or moving data. Never blocks.
    ///
    /// ```
    /// use collectives::{Options, ProcessGroup};
    /// use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, UniqueId};
    /// let dev = Device::sim(0)?;
    /// let options = Options::new().launch_events(true);
    /// let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options)?;
    /// let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1.0f32; 4])?;
    /// let gate = Gate::new(&dev)?;
    /// pg.comm_stream().wait_gate(&gate)?; // earlier work on the group's stream
    /// let work = pg.all_reduce(&mut x, ReduceOp::Sum)?;
    /// assert_eq!(work.is_launched()?, Some(false));
    /// gate.open();
    /// work.wait_host(std::time::Duration::from_secs(10))?;
    /// assert_eq!(work.is_launched()?, Some(true));
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Its failure, as [`Work::is_completed`].
    pub fn is_launched(&self) -> Result<Option<bool>> {
        if let Outcome::Failed(e) = lock(&self.state.outcome).clone() {
            return Err(e);
        }
        Ok(self.group.observe_launch(&self.state))
    }

    /// Makes `stream` wait for this operation; returns at once.
    ///
    /// # Errors
    ///
    /// Its failure, if already known; a stream of another device.
    pub fn wait_stream(&self, stream: &Stream) -> Result<()> {
        if let Outcome::Failed(e) = lock(&self.state.outcome).clone() {
            return Err(e);
        }
        stream.wait_event(&self.state.event)?;
        self.state.waited.store(true, Ordering::Release);
        Ok(())
    }

    /// Blocks until the operation is done, fails, or `timeout` passes. A timeout is
    /// reported with the operation, its sequence number and call site, recorded,
    /// dumped, and handled by the group's error policy.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`](crate::Error::Timeout), [`Error::Aborted`](crate::Error::Aborted), [`Error::Failed`](crate::Error::Failed).
    ///
    /// The thread wakes when the operation completes (the driver signals it: at once
    /// on the sim; on cuda the device's event poller, within 20 µs to 1 ms), when the
    /// group aborts, or at the deadline; it never sleeps on a polling tick.
    /// `Duration::MAX` waits without a deadline.
    pub fn wait_host(&self, timeout: Duration) -> Result<()> {
        let _span = crate::trace::wait(
            &self.group.options.name,
            self.group.rank,
            self.state.op,
            self.state.seq,
            &self.state.call_site,
        );
        self.state.waited.store(true, Ordering::Release);
        let deadline = deadline_after(timeout);
        let mut spun = false;
        loop {
            if self.group.observe(&self.state)? {
                return Ok(());
            }
            if !spun {
                // Once, before the first sleep: a wait that ends within the spin skips
                // the sleep and the wake-up (system calls and context switches).
                spun = true;
                let limit = deadline.map_or(SPIN, |d| {
                    SPIN.min(d.saturating_duration_since(Instant::now()))
                });
                if spin_until(limit, || self.state.signalled.load(Ordering::Acquire)) {
                    continue;
                }
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                let err = self.group.timeout_error(&self.state, timeout);
                self.group
                    .fail(Some(&self.state), err.clone(), "host-wait timed out");
                // The watchdog may have claimed this failure first and still be
                // publishing it, dumping and running hooks: the waiter returns after
                // that (bounded), or a program that exits on this error would take
                // the job's record of it along.
                let until = Instant::now() + FAILING_WAIT;
                let mut o = lock(&self.state.outcome);
                while matches!(*o, Outcome::Failing) {
                    let Some(left) = until.checked_duration_since(Instant::now()) else {
                        break;
                    };
                    o = self.state.wait_changed(o, left);
                }
                return Err(err);
            }
            let o = lock(&self.state.outcome);
            if self.state.still_waiting(&o) {
                // Bounded slices only so that a peer's remote failure is also noticed.
                let slice = deadline.map_or(Duration::from_millis(100), |d| d - now);
                drop(
                    self.state
                        .wait_changed(o, slice.min(Duration::from_millis(100))),
                );
            }
        }
    }

    /// Waits as `mode` says.
    ///
    /// # Errors
    ///
    /// As [`Work::wait_stream`] or [`Work::wait_host`].
    pub fn wait(&self, mode: WaitMode<'_>) -> Result<()> {
        match mode {
            WaitMode::Stream(s) => self.wait_stream(s),
            WaitMode::Host(t) => self.wait_host(t),
        }
    }
}

/// Several works waited together (the buckets of a gradient all-reduce).
#[derive(Debug, Default)]
pub struct WorkSet {
    works: Vec<Work>,
}

impl WorkSet {
    /// An empty set.
    pub fn new() -> WorkSet {
        WorkSet::default()
    }

    /// Adds a work.
    pub fn push(&mut self, work: Work) {
        self.works.push(work);
    }

    /// Number of works.
    pub fn len(&self) -> usize {
        self.works.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.works.is_empty()
    }

    /// The works, in the order they were added.
    pub fn into_works(self) -> Vec<Work> {
        self.works
    }

    /// Whether every work has completed. Never blocks.
    ///
    /// # Errors
    ///
    /// The first failure.
    pub fn is_completed(&self) -> Result<bool> {
        for w in &self.works {
            if !w.is_completed()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Makes `stream` wait for every work; returns at once.
    ///
    /// # Errors
    ///
    /// The first failure already known.
    pub fn wait_stream(&self, stream: &Stream) -> Result<()> {
        self.works.iter().try_for_each(|w| w.wait_stream(stream))
    }

    /// Blocks until every work is done, with one deadline for all.
    ///
    /// # Errors
    ///
    /// The first failure or timeout.
    pub fn wait_host(&self, timeout: Duration) -> Result<()> {
        let deadline = deadline_after(timeout);
        for w in &self.works {
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            w.wait_host(left)?;
        }
        Ok(())
    }
}

impl Extend<Work> for WorkSet {
    fn extend<I: IntoIterator<Item = Work>>(&mut self, iter: I) {
        self.works.extend(iter);
    }
}

impl FromIterator<Work> for WorkSet {
    fn from_iter<I: IntoIterator<Item = Work>>(iter: I) -> Self {
        WorkSet {
            works: iter.into_iter().collect(),
        }
    }
}
