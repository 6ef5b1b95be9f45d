//! NCCL on the sim driver: a communicator's lifecycle. Ranks are threads of this
//! process or other processes of the host; they find each other through the unique
//! id (`rendezvous.rs`), share a control segment (`segment.rs`) and map each other's
//! device memory, so one code path serves both and gives the same results. The joined
//! state is in `live.rs`; launches and the collectives' stream tasks in `launch.rs`.
//!
//! NCCL's rules the sim enforces, each naming both sides (with their pids):
//! - every rank issues the same op, count, type, reduction and root at the same
//!   position ("Collective Operations"), and matching counts and types per message;
//! - every rank agrees on the world size; one rank per device ("Creating a
//!   Communicator": the same device twice may hang);
//! - destroy is collective ("ncclCommDestroy"): an operation that needs a rank whose
//!   communicator is gone fails instead of hanging; so does one that needs a rank whose
//!   process died (within a second), or that aborted (as a remote error);
//! - abort is local ("ncclCommAbort"): it wakes this rank's blocked operations at once;
//! - a blocking init cannot be interrupted (as in NCCL); a non-blocking one can.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::live::Live;
use super::rendezvous::{GROW_TAG, Join};
use super::segment::{ABORTED, ALIVE, DESTROYED};
use super::{SimDevice, SimStream};
use crate::base::op::LaunchOp;
use crate::sync::lock;
use crate::{Error, Result};

/// One rank's communicator on the sim driver, from joining to teardown.
pub(crate) struct SimCommunicator {
    rank: usize,
    size: usize,
    device: Arc<SimDevice>,
    join: Join,
    /// Serialises turning a completed join into `live` (short; never held in waits).
    building: Mutex<()>,
    live: OnceLock<Arc<Live>>,
    aborted: AtomicBool,
    /// As cuda's flag of a launch that failed once issued (`CommImpl::take_needs_abort`).
    /// A sim launch fails before it enqueues anything, so only tests set it, to drive
    /// the owner's abort path as a failed cuda launch does.
    needs_abort: AtomicBool,
}

impl SimCommunicator {
    /// Joins rank `rank` of `size` on `device` under `id`; with `wait`, returns only
    /// once every rank has joined, or fails once that timeout passes (not abortable, as
    /// a blocking NCCL init).
    pub fn join(
        id: &[u8; 128],
        rank: usize,
        size: usize,
        device: &Arc<SimDevice>,
        wait: Option<Duration>,
    ) -> Result<SimCommunicator> {
        let join = Join::start(id, rank, size, device.ordinal, device.arena())?;
        let comm = SimCommunicator {
            rank,
            size,
            device: device.clone(),
            join,
            building: Mutex::new(()),
            live: OnceLock::new(),
            aborted: AtomicBool::new(false),
            needs_abort: AtomicBool::new(false),
        };
        if let Some(timeout) = wait {
            comm.join.wait_done(Some(timeout))?;
            comm.live("communicator init")?;
        }
        Ok(comm)
    }

    /// The communicator, once every rank has joined. Never blocks for long.
    pub(super) fn live(&self, op: &'static str) -> Result<&Arc<Live>> {
        if let Some(l) = self.live.get() {
            return Ok(l);
        }
        if self.aborted.load(Ordering::Acquire) {
            return Err(Error::Aborted {
                what: format!("{op} on rank {} of {}", self.rank, self.size),
            });
        }
        let _b = lock(&self.building);
        if let Some(l) = self.live.get() {
            return Ok(l);
        }
        match self.join.try_take() {
            Some(Ok(joined)) => {
                let live = Arc::new(Live::new(joined, self.rank, &self.device)?);
                self.join.release();
                let _ = self.live.set(live);
                Ok(self.live.get().expect("just set"))
            }
            Some(Err(e)) => Err(e),
            None => Err(Error::InvalidUsage {
                op,
                reason: "the communicator is not ready: not every rank has joined (wait_ready)"
                    .into(),
            }),
        }
    }

    pub fn is_ready(&self) -> bool {
        self.live.get().is_some() || (self.join.is_complete() && self.live("is_ready").is_ok())
    }

    pub fn wait_ready(&self, timeout: Duration) -> Result<()> {
        if self.live.get().is_some() {
            return Ok(());
        }
        self.join.wait_done(Some(timeout))?;
        self.live("wait_ready").map(|_| ())
    }

    /// Refuses a launch before anything is enqueued when the communicator is not
    /// ready.
    pub fn check_ready(&self, op: &'static str) -> Result<()> {
        self.live(op).map(|_| ())
    }

    /// Waits, at most `timeout` and without the device's lock, for room for the
    /// positions `ops` would take (before the launch enqueues anything).
    pub fn room_before_launch(&self, ops: &[LaunchOp], timeout: Duration) -> Result<()> {
        let live = self.live("collective")?.clone();
        super::launch::room_before_launch(&live, ops, timeout)
    }

    /// Launches `ops` as one group on `stream`, under the device's NCCL lock; waits at
    /// most `timeout` for room among the pending operations.
    /// `mark`: an event to record on `stream` just before the operations, once the
    /// launch is accepted (its launch-completion event).
    pub fn launch(
        &self,
        stream: &SimStream,
        ops: Vec<LaunchOp>,
        timeout: Duration,
        mark: Option<&super::stream::SimEvent>,
    ) -> Result<()> {
        let _guard = self.device.nccl_lock();
        let live = self.live("collective")?.clone();
        let _inside = super::rules::Inside::enter(self.device.ordinal, "collective")?;
        super::launch::launch(&live, stream, ops, timeout, mark)
    }

    /// Publishes a window of this rank for its peers' puts; its handle.
    pub fn register_window(&self, addr: u64, bytes: usize, symmetric: bool) -> Result<usize> {
        let live = self.live("register_window")?.clone();
        super::onesided::register_window(&live, addr, bytes, symmetric)
    }

    /// Takes a window out of its peers' reach (nothing once the communicator is gone).
    pub fn release_window(&self, handle: usize) {
        if let Some(live) = self.live.get() {
            super::onesided::release_window(live, handle);
        }
    }

    /// Enqueues a put (with data) or a signal (without) to a peer's window.
    pub fn put(&self, stream: &SimStream, put: super::onesided::Put) -> Result<()> {
        let _guard = self.device.nccl_lock();
        let live = self.live("put_signal")?.clone();
        let _inside = super::rules::Inside::enter(self.device.ordinal, "put_signal")?;
        super::onesided::put(&live, stream, put)
    }

    /// Enqueues a wait for `(peer, count)` more signals from each peer.
    pub fn wait_signal(&self, stream: &SimStream, waits: &[(usize, u32)]) -> Result<()> {
        let _guard = self.device.nccl_lock();
        let live = self.live("wait_signal")?.clone();
        let _inside = super::rules::Inside::enter(self.device.ordinal, "wait_signal")?;
        super::onesided::wait_signal(&live, stream, waits)
    }

    /// Aborts (local): wakes this rank's waits at once; peers see a remote failure.
    /// Then, as `ncclCommAbort`'s frees do, waits for all work on the device (at most
    /// `timeout`; the error names what it waited for).
    pub fn abort(&self, timeout: Duration) -> Result<()> {
        self.signal_abort();
        self.device.synchronize_all("ncclCommAbort", Some(timeout))
    }

    /// Whether the communicator is to be aborted by its owner (see `needs_abort`).
    pub fn needs_abort(&self) -> bool {
        self.needs_abort.load(Ordering::Acquire)
    }

    /// Marks the communicator as a failed cuda launch does (tests of the owner's path).
    #[cfg(test)]
    pub fn mark_needs_abort(&self) {
        self.needs_abort.store(true, Ordering::Release);
    }

    /// Records that this rank's abort follows rank `cause`'s failure.
    pub fn note_cause(&self, cause: usize) {
        if let Some(l) = self.live.get() {
            if cause < l.size() {
                l.note_cause(cause);
            }
        }
    }

    /// The abort flag alone: wakes this rank's waits at once; peers see a remote
    /// failure. Never blocks.
    pub fn signal_abort(&self) {
        self.aborted.store(true, Ordering::Release);
        self.join.abort();
        if let Some(l) = self.live.get() {
            l.record_cause();
            l.seg
                .rank(self.rank)
                .state
                .store(ABORTED, Ordering::Release);
            l.seg.ring();
        }
    }

    /// A revoke: the abort flag, with this rank's messages saying "revoked".
    pub fn signal_revoke(&self) {
        if let Some(l) = self.live.get() {
            l.revoked.store(true, Ordering::Release);
        }
        self.signal_abort();
    }

    /// Destroys (collective: peers that still need this rank fail), then waits for all
    /// work on the device as `ncclCommDestroy`'s frees do.
    pub fn destroy(&self, timeout: Duration) -> Result<()> {
        if let Some(l) = self.live.get() {
            let state = &l.seg.rank(self.rank).state;
            let _ = state.compare_exchange(ALIVE, DESTROYED, Ordering::AcqRel, Ordering::Acquire);
            l.seg.ring();
        }
        self.join.abort();
        self.device
            .synchronize_all("ncclCommDestroy", Some(timeout))
    }

    /// A peer's failure (its process died, or it aborted), as NCCL's remote error.
    pub fn async_error(&self) -> Option<Error> {
        self.live.get().and_then(|l| l.remote_failure())
    }

    /// Splits: this rank's new rank, size and communicator, if it has a colour. The
    /// children find each other through an id derived from the parent's.
    pub fn split(
        &self,
        color: Option<u32>,
        key: i32,
        timeout: Option<Duration>,
    ) -> Result<Option<(usize, usize, SimCommunicator)>> {
        let live = self.live("split")?.clone();
        let Some((rank, size, id)) = live.split(color, key, &self.aborted, timeout)? else {
            return Ok(None);
        };
        let child = SimCommunicator::join(&id, rank, size, &self.device, None)?;
        match timeout {
            None => child.join.wait_done(None)?,
            Some(t) => child.join.wait_done(Some(t))?,
        }
        child.live("split")?;
        Ok(Some((rank, size, child)))
    }

    /// The joined state, also after an abort or revoke (shrink needs it then).
    fn joined(&self, op: &'static str) -> Result<Arc<Live>> {
        match self.live.get() {
            Some(l) => Ok(l.clone()),
            None => self.live(op).cloned(),
        }
    }

    /// Waits for a child's join (at most `timeout`), then builds it.
    fn finish_join(
        child: &SimCommunicator,
        op: &'static str,
        timeout: Option<Duration>,
    ) -> Result<()> {
        child.join.wait_done(timeout)?;
        child.live(op)?;
        Ok(())
    }

    /// Shrinks: the ranks not in `exclude` (sorted, without this rank: the caller
    /// checked) join a new communicator, numbered in their old order, through an id
    /// derived from this one's. Excluded ranks take no part, whatever their state.
    /// Then the new ranks compare their lists: a rank that excluded others fails the
    /// shrink on every rank with [`Error::Mismatch`].
    pub fn shrink(
        &self,
        exclude: &[usize],
        timeout: Option<Duration>,
    ) -> Result<(usize, usize, SimCommunicator)> {
        let live = self.joined("shrink")?;
        let seq = live.shrink_seq.fetch_add(1, Ordering::Relaxed);
        let id = live.derived_id(seq, 0, b"shrnk");
        let size = live.size() - exclude.len();
        let rank = (0..self.rank).filter(|r| !exclude.contains(r)).count();
        let child = SimCommunicator::join(&id, rank, size, &self.device, None)?;
        Self::finish_join(&child, "shrink", timeout)?;
        let digest = exclude.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &r| {
            (h ^ r as u64).wrapping_mul(0x100_0000_01b3)
        }) | 1;
        let new = child.live("shrink")?.clone();
        let (_, asks) =
            new.exchange("shrink", digest, self.rank as i32, &child.aborted, timeout)?;
        if let Some((other, &(_, old))) = asks.iter().enumerate().find(|(_, a)| a.0 != digest) {
            let list: Vec<String> = exclude.iter().map(|r| r.to_string()).collect();
            child.signal_abort();
            return Err(Error::Mismatch {
                what: "shrink".into(),
                detail: format!(
                    "new rank {other} (old rank {old}, pid {}) excluded other ranks than \
                     new rank {rank} (old rank {}, pid {}), which excluded [{}]",
                    new.members[other].pid,
                    self.rank,
                    new.members[rank].pid,
                    list.join(",")
                ),
            });
        }
        Ok((rank, size, child))
    }

    /// The id of this communicator's next grow (`ncclCommGetUniqueId`): derived from
    /// this one's, so every existing rank finds it without being told.
    pub fn grow_id(&self) -> Result<[u8; 128]> {
        let live = self.joined("grow_id")?;
        Ok(live.derived_id(live.grow_seq.load(Ordering::Acquire), 0, GROW_TAG))
    }

    /// Grows, as an existing rank (keeping its rank): `made` is the id when this rank
    /// made it with [`SimCommunicator::grow_id`]. The grow's rendezvous root refuses
    /// later joiners of the id (`rendezvous.rs`).
    pub fn grow(
        &self,
        size: usize,
        made: Option<&[u8; 128]>,
        timeout: Option<Duration>,
    ) -> Result<SimCommunicator> {
        let live = self.joined("grow")?;
        let seq = live.grow_seq.fetch_add(1, Ordering::AcqRel);
        let id = live.derived_id(seq, 0, GROW_TAG);
        if made.is_some_and(|m| *m != id) {
            return Err(Error::InvalidUsage {
                op: "grow",
                reason: "the id is not this communicator's id for this grow (grow_id makes \
                         it, once per grow)"
                    .into(),
            });
        }
        let child = SimCommunicator::join(&id, self.rank, size, &self.device, None)?;
        Self::finish_join(&child, "grow", timeout)?;
        Ok(child)
    }

    /// Joins a grow as a new rank `rank` of `size`, with the id an existing rank made.
    pub fn join_grown(
        id: &[u8; 128],
        rank: usize,
        size: usize,
        device: &Arc<SimDevice>,
        timeout: Option<Duration>,
    ) -> Result<SimCommunicator> {
        let child = SimCommunicator::join(id, rank, size, device, None)?;
        Self::finish_join(&child, "join_grown", timeout)?;
        Ok(child)
    }
}
