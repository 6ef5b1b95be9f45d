//! Suspend and resume (NCCL 2.29.7's `ncclCommSuspend`/`ncclCommResume`): a
//! communicator frees the device memory NCCL can give back between phases of a job
//! (reinforcement learning's generation and training), and takes it back. Its state
//! machine is enforced here: nothing is issued on a suspended communicator.

use std::sync::atomic::Ordering;

use super::{Communicator, ReduceOp};
use crate::features::Feature;
use crate::{DeviceBuffer, Error, Result, Stream};

use super::group::refuse_in_group;
use super::suspend_state::{ACTIVE, CHANGING, IN_BARRIER, SUSPENDED};
pub use crate::base::types::MemStats;

impl Communicator {
    /// Suspends the communicator: NCCL frees the device memory it can
    /// (`ncclCommSuspend` with `NCCL_SUSPEND_MEM`), and nothing may be issued on it
    /// until [`Communicator::resume`]; an operation meanwhile is refused with
    /// [`Error::InvalidUsage`]. Abort, close and drop still work.
    ///
    /// Collective: every rank suspends. It waits for the device's work (as NCCL does),
    /// then for every rank, through a one-byte all-reduce bounded by
    /// [`Config::call_timeout`](crate::Config::call_timeout), so that a rank that never
    /// suspends is a timeout here, not a hang inside NCCL's own barrier; then it calls
    /// NCCL. After such a timeout the communicator is aborted: its ranks are out of
    /// step (a late rank would meet the stale barrier), as after any collective that
    /// timed out.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, Error, ReduceOp, Stream, UniqueId};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<f32>> {
    ///     let dev = Device::sim(rank)?;
    ///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4])?;
    ///     comm.suspend()?;
    ///     assert!(comm.is_suspended() && comm.mem_stats()?.suspended);
    ///     // Nothing is issued on a suspended communicator.
    ///     let refused = comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s);
    ///     assert!(matches!(refused, Err(Error::InvalidUsage { .. })));
    ///     comm.resume()?;
    ///     comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
    ///     x.to_vec(&s)
    /// })).collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, vec![2.0; 4]);
    /// }
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] below NCCL 2.29.7 (on the sim, below
    /// [`Config::emulate_nccl_version`](crate::Config::emulate_nccl_version));
    /// [`Error::InvalidUsage`] inside an open group, when it is suspended already,
    /// another thread is suspending or resuming it, or it shares resources through a split with
    /// `split_share` (NCCL suspends none of those); [`Error::Timeout`] when the
    /// device's work or another rank does not arrive within the call timeout; an abort
    /// meanwhile; NCCL's errors (also when its memory manager is disabled).
    pub fn suspend(&self) -> Result<()> {
        const OP: &str = "suspend";
        let inner = &self.inner;
        self.may_change(OP)?;
        if inner.shares.load(Ordering::Acquire) {
            return Err(Error::InvalidUsage {
                op: OP,
                reason: "the communicator shares its resources with a split made with \
                         split_share; NCCL suspends none of them"
                    .into(),
            });
        }
        self.change(OP, ACTIVE, SUSPENDED, |comm| {
            comm.inner
                .device
                .synchronize_timeout(comm.inner.config.call_timeout)?;
            comm.barrier(OP)?;
            comm.inner.imp.suspend()
        })
    }

    /// Resumes a suspended communicator: NCCL takes its memory back
    /// (`ncclCommResume`) and operations may be issued again.
    ///
    /// Collective: every rank resumes. On the sim the ranks meet under the call
    /// timeout. On cuda they meet inside NCCL, which has no timeout of its own and
    /// cannot be aborted while it waits (the communicator's memory is gone, so no
    /// collective of ours can meet them first), and the device's other communicators
    /// wait meanwhile (the call holds the device's NCCL lock): resume on every rank.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] as [`Communicator::suspend`];
    /// [`Error::InvalidUsage`] inside an open group or when it is not suspended;
    /// [`Error::Timeout`] on the sim
    /// when another rank does not resume within the call timeout (it stays suspended
    /// then); an abort; NCCL's errors.
    pub fn resume(&self) -> Result<()> {
        const OP: &str = "resume";
        self.may_change(OP)?;
        self.change(OP, SUSPENDED, ACTIVE, |comm| {
            if comm.inner.imp.kind() == crate::DriverKind::Sim {
                comm.barrier(OP)?;
            }
            comm.inner.imp.resume()
        })
    }

    /// Whether the communicator is suspended (or being suspended or resumed).
    pub fn is_suspended(&self) -> bool {
        self.inner.suspend_state.load(Ordering::Acquire) != ACTIVE
    }

    /// NCCL's statistics of the device memory this communicator holds
    /// (`ncclCommMemStats`). The sim's communicators hold no device memory of their
    /// own: every count is 0 there, and `suspended` follows the state.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] as [`Communicator::suspend`]; an aborted or
    /// closed communicator; NCCL's errors.
    pub fn mem_stats(&self) -> Result<MemStats> {
        let inner = &self.inner;
        self.require_suspend()?;
        inner.check_usable("mem_stats")?;
        let suspended = inner.suspend_state.load(Ordering::Acquire) == SUSPENDED;
        inner.imp.mem_stats(suspended)
    }

    /// What a suspend or a resume checks first: NCCL has it, the communicator is
    /// usable, and no group is open.
    fn may_change(&self, op: &'static str) -> Result<()> {
        self.require_suspend()?;
        self.inner.check_usable(op)?;
        refuse_in_group(op)
    }

    /// The loaded (or emulated) NCCL has suspend, resume and memory statistics.
    fn require_suspend(&self) -> Result<()> {
        let inner = &self.inner;
        crate::features::require(
            inner.imp.kind(),
            inner.config.sim_nccl_version,
            Feature::Suspend,
        )
    }

    /// Moves the state from `from` to `to` around `step`; back to `from` if it fails.
    fn change(
        &self,
        op: &'static str,
        from: u8,
        to: u8,
        step: impl FnOnce(&Communicator) -> Result<()>,
    ) -> Result<()> {
        let state = &self.inner.suspend_state;
        if let Err(now) =
            state.compare_exchange(from, CHANGING, Ordering::AcqRel, Ordering::Acquire)
        {
            return Err(Error::InvalidUsage {
                op,
                reason: match now {
                    SUSPENDED => "the communicator is suspended already".into(),
                    ACTIVE => "the communicator is not suspended".into(),
                    _ => "another thread is suspending or resuming the communicator".into(),
                },
            });
        }
        // Back to `from` unless the step succeeds, also when it panics.
        struct Settle<'a> {
            state: &'a std::sync::atomic::AtomicU8,
            value: u8,
        }
        impl Drop for Settle<'_> {
            fn drop(&mut self) {
                self.state.store(self.value, Ordering::Release);
            }
        }
        let mut settle = Settle { state, value: from };
        // A launch that passed its state check before the change holds the fence
        // until NCCL took its calls: wait for it (later ones are refused).
        drop(self.inner.fence.write().unwrap_or_else(|e| e.into_inner()));
        let result = step(self);
        if result.is_ok() {
            settle.value = to;
        }
        result
    }

    /// Every rank meets in a one-word all-reduce on a stream of its own, under the
    /// call timeout.
    pub(super) fn barrier(&self, op: &'static str) -> Result<()> {
        self.meet(op, &[0]).map(drop)
    }

    /// Every rank meets in an all-reduce of `values` (the maximum of each across the
    /// ranks, which it returns) on a stream of its own, under the call timeout.
    pub(super) fn meet(&self, op: &'static str, values: &[u64]) -> Result<Vec<u64>> {
        refuse_in_group(op)?;
        let stream = Stream::new(&self.inner.device)?;
        let mut one = DeviceBuffer::<u64>::from_slice(&stream, values)?;
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                IN_BARRIER.with(|b| b.set(false));
            }
        }
        IN_BARRIER.with(|b| b.set(true));
        let leave = Leave;
        let label = format!("the barrier of {op}");
        // The library's own all-reduce: no caller's per-call config or launch event
        // applies.
        let issued = crate::base::coll_config::without_coll_config(|| {
            super::launch_event::without_launch_event(|| {
                super::with_call_label(label.as_str(), || {
                    self.all_reduce_in_place(&mut one, ReduceOp::Max, &stream)
                })
            })
        });
        drop(leave);
        issued?;
        let waited = self.inner.config.call_timeout;
        stream.synchronize_timeout(waited).map_err(|e| match e {
            Error::Timeout { .. } => {
                // The barrier stays pending: a late rank would meet it and go on
                // alone. The ranks are out of step, as after any collective that
                // timed out, so the communicator is aborted.
                let _ = self.inner.abort_now();
                Error::Timeout { op, waited }
            }
            other => other,
        })?;
        one.to_vec(&stream)
    }
}
