//! Suspend and resume of a [`ProcessGroup`]'s communicator (NCCL 2.29.7): its device
//! memory given back between phases of a job, with every operation refused meanwhile.

use nccl_safe::MemStats;

use crate::Result;
use crate::process_group::ProcessGroup;

impl ProcessGroup {
    /// Suspends the group's communicator
    /// ([`Communicator::suspend`](nccl_safe::Communicator::suspend)): NCCL frees the
    /// device memory it can until [`ProcessGroup::resume`], and every operation of the
    /// group meanwhile is refused with a typed error (`InvalidUsage`, "suspended"),
    /// taking no sequence number and leaving no flight-record entry, so the ranks stay
    /// in step. Collective: every rank suspends. It waits for the device's work (the
    /// group's operations in flight included) and for every rank, each under the
    /// group's call timeout.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{Options, ProcessGroup};
    /// use collectives::nccl_safe::{Device, DeviceBuffer, ReduceOp, UniqueId};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> collectives::Result<Vec<f32>> {
    ///     let pg = ProcessGroup::new(&Device::sim(rank)?, rank, 2, &id, Options::new())?;
    ///     let s = pg.comm_stream();
    ///     let mut x = DeviceBuffer::from_slice(s, &[1.0f32; 4])?;
    ///     pg.suspend()?; // between phases: NCCL's memory is given back
    ///     assert!(pg.all_reduce(&mut x, ReduceOp::Sum).is_err());
    ///     pg.resume()?;
    ///     pg.all_reduce(&mut x, ReduceOp::Sum)?.wait_host(Duration::from_secs(10))?;
    ///     Ok(x.to_vec(s)?)
    /// })).collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, vec![2.0; 4]);
    /// }
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Communicator::suspend`](nccl_safe::Communicator::suspend); the group's
    /// refusal once it failed or was replaced.
    pub fn suspend(&self) -> Result<()> {
        self.with_group_comm("suspend", |c| c.suspend())
    }

    /// Resumes the group's communicator
    /// ([`Communicator::resume`](nccl_safe::Communicator::resume)); operations may be
    /// issued again. Collective.
    ///
    /// # Errors
    ///
    /// As [`Communicator::resume`](nccl_safe::Communicator::resume).
    pub fn resume(&self) -> Result<()> {
        self.with_group_comm("resume", |c| c.resume())
    }

    /// Whether the group's communicator is suspended.
    pub fn is_suspended(&self) -> bool {
        self.inner.with_comm(|c| c.is_suspended()).unwrap_or(false)
    }

    /// NCCL's statistics of the device memory the group's communicator holds
    /// ([`Communicator::mem_stats`](nccl_safe::Communicator::mem_stats)).
    ///
    /// # Errors
    ///
    /// As [`Communicator::mem_stats`](nccl_safe::Communicator::mem_stats).
    pub fn mem_stats(&self) -> Result<MemStats> {
        self.with_group_comm("mem_stats", |c| c.mem_stats())
    }

    /// Runs `f` on the group's communicator, unless the group refuses work.
    pub(crate) fn with_group_comm<R>(
        &self,
        op: &'static str,
        f: impl FnOnce(&nccl_safe::Communicator) -> nccl_safe::Result<R>,
    ) -> Result<R> {
        if let Some(e) = self.inner.refusal(op, op) {
            return Err(e);
        }
        match self.inner.with_comm(f) {
            Some(r) => Ok(r?),
            None => Err(nccl_safe::Error::InvalidUsage {
                op,
                reason: "the group was replaced by a shrink or grow".into(),
            }
            .into()),
        }
    }
}
