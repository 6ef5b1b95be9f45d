//! [`Communicator`]: one rank of an NCCL communicator, its lifecycle (init, readiness,
//! split, finalize, close, abort) and its outstanding work. The collectives are in
//! `collectives.rs`, groups in `group.rs`.
//!
//! Past 600 lines with its tests: the lifecycle and the teardown rules (quiescing the
//! device's other communicators, stop versus abort) share `CommInner`'s flags and are
//! easier to check side by side than split over files.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use crate::base::config::Config;
use crate::base::id::UniqueId;
use crate::base::op::{Kind, LaunchOp, OpDesc};
use crate::base::types::DriverKind;
use crate::driver::{CommImpl, DeviceImpl, SharedEvent};
use crate::memory::alloc::OwnedUse;
use crate::memory::tracker::{Use, enqueue_keeping};
use crate::stream::StreamFailure;
use crate::stream::check_same_device;
use crate::sync::lock;
use crate::{Device, Error, Result, Stream};

/// One operation, ready to launch: what it is, where, and the buffer uses it makes.
#[derive(Clone)]
pub(crate) struct Call {
    pub op: LaunchOp,
    pub uses: Vec<OwnedUse>,
    /// The launch-completion event attached by
    /// [`with_launch_event`](crate::with_launch_event) when the call was made.
    pub mark: Option<super::launch_event::Mark>,
}

impl Call {
    pub(super) fn new(desc: OpDesc, uses: Vec<OwnedUse>) -> Call {
        Call {
            op: LaunchOp {
                desc,
                send: None,
                send_len: 0,
                recv: None,
                scalar: None,
                label: super::label::current(),
                site: super::label::current_site(),
                config: crate::base::coll_config::current(),
                launch_event: false,
            },
            uses,
            mark: super::launch_event::current(),
        }
    }

    pub(super) fn send(mut self, addr: Option<u64>, len: usize) -> Call {
        self.op.send = addr;
        self.op.send_len = len;
        self
    }

    pub(super) fn recv(mut self, addr: Option<u64>) -> Call {
        self.op.recv = addr;
        self
    }

    pub(super) fn scalar(mut self, addr: Option<u64>) -> Call {
        self.op.scalar = addr;
        self
    }

    /// The buffer uses of `calls`, borrowed for the tracker.
    pub(super) fn uses(calls: &[Call]) -> Vec<Use<'_>> {
        calls
            .iter()
            .flat_map(|c| c.uses.iter().map(OwnedUse::borrow))
            .collect()
    }
}

/// Every live communicator of this process (to find those sharing a device).
fn live_comms() -> &'static Mutex<Vec<Weak<CommInner>>> {
    static LIVE: OnceLock<Mutex<Vec<Weak<CommInner>>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// The live communicators on `device`.
fn live_on(device: &Device) -> Vec<Arc<CommInner>> {
    lock(live_comms())
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|c| c.device == *device)
        .collect()
}

/// What ended a communicator's unfinished launches, as their streams' errors say it.
const BY_ABORT: &str = "an abort";
const BY_STOP: &str = "a stop (another communicator's teardown on the device)";
const BY_REVOKE: &str = "a revoke";

/// A launch this communicator remembers until it completes.
#[derive(Clone)]
pub(crate) struct Launched {
    pub(super) event: SharedEvent,
    failure: Arc<StreamFailure>,
}

impl Launched {
    fn done(&self) -> bool {
        matches!(self.event.query(), Ok(true))
    }
}

pub(crate) struct CommInner {
    pub(super) device: Device,
    pub(super) rank: usize,
    pub(super) size: usize,
    pub(super) config: Config,
    pub(super) imp: CommImpl,
    aborted: AtomicBool,
    closed: AtomicBool,
    /// Set when another communicator's teardown stopped this one's stalled work
    /// (`quiesce_device`): no more operations; teardown still frees it.
    stopped: AtomicBool,
    /// Launches made so far (with `outstanding`, tells whether work progresses).
    launches: AtomicUsize,
    /// Set by `finalize`: no more operations.
    finalized: AtomicBool,
    /// Set by a revoke or a shrink in abort mode: no more operations; teardown
    /// aborts (never destroys, which can block forever on such a parent).
    pub(super) revoked: AtomicBool,
    /// How the revoke that set `revoked` ended, once it has (`None` while it runs on
    /// the thread that set the flag): a second revoker waits for it, so that nobody
    /// shrinks a communicator that is not quiescent yet.
    revoke_outcome: (Mutex<Option<Result<()>>>, std::sync::Condvar),
    /// The id `grow_id` made for this communicator's next grow, until a grow uses it
    /// (NCCL: no second id while one is unused).
    pub(super) grow_id: Mutex<Option<[u8; 128]>>,
    /// Each launch's completion event and its stream's [`StreamFailure`]: the work still
    /// outstanding, and where to say that an abort or stop cut it short.
    pub(super) pending: Mutex<Vec<Launched>>,
    /// The length at which `pending` is next pruned.
    prune_at: AtomicUsize,
    /// How many communicators the call that made this one made (more than one for
    /// [`Communicator::init_all`]).
    pub(super) together: usize,
    /// Active, suspended, or between the two (`suspend.rs`).
    pub(super) suspend_state: std::sync::atomic::AtomicU8,
    /// Set on both sides of a split that shares resources (`split_share`): NCCL
    /// suspends neither.
    pub(super) shares: AtomicBool,
    /// Live [`Registration`](super::Registration)s of this communicator.
    pub(super) registrations: AtomicUsize,
    /// Live [`Window`](super::Window)s of this communicator.
    pub(super) windows: AtomicUsize,
    /// Where this communicator's live window handles are (start address, bytes,
    /// symmetric): a put's source must lie in a symmetric one.
    pub(super) window_spans: Mutex<Vec<(u64, usize, bool)>>,
    /// Held (read) by every launch from its state check until NCCL took its calls;
    /// a suspend takes it (write) once it has refused new launches, so that none
    /// that passed the check before is still on its way to NCCL.
    pub(super) fence: std::sync::RwLock<()>,
}

impl CommInner {
    pub(super) fn new(
        device: Device,
        rank: usize,
        size: usize,
        config: Config,
        imp: CommImpl,
        together: usize,
    ) -> Arc<CommInner> {
        let inner = Arc::new(CommInner {
            device,
            rank,
            size,
            config,
            imp,
            aborted: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            launches: AtomicUsize::new(0),
            finalized: AtomicBool::new(false),
            revoked: AtomicBool::new(false),
            revoke_outcome: (Mutex::new(None), std::sync::Condvar::new()),
            grow_id: Mutex::new(None),
            pending: Mutex::new(Vec::new()),
            prune_at: AtomicUsize::new(64),
            together,
            suspend_state: std::sync::atomic::AtomicU8::new(super::suspend_state::ACTIVE),
            shares: AtomicBool::new(false),
            registrations: AtomicUsize::new(0),
            windows: AtomicUsize::new(0),
            window_spans: Mutex::new(Vec::new()),
            fence: std::sync::RwLock::new(()),
        });
        let mut live = lock(live_comms());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&inner));
        inner
    }

    pub(super) fn outstanding(&self) -> usize {
        let mut p = lock(&self.pending);
        p.retain(|l| !l.done());
        p.len()
    }

    /// Remembers that `how` (an abort, a stop) cut short every launch not completed
    /// yet: NCCL's aborted or revoked kernels end without an error on the stream and
    /// leave their outputs undefined, so their streams fail from now on (the sim
    /// fails them itself too; this makes both drivers say so). The caller has set
    /// the flag that refuses new launches first, so a launch racing this one sees it
    /// in `note_launch`.
    pub(super) fn cut_short(&self, how: &str) {
        let p = lock(&self.pending);
        for l in p.iter().filter(|l| !l.done()) {
            l.failure.set(self.cut_error(how));
        }
    }

    fn cut_error(&self, how: &str) -> Error {
        Error::Aborted {
            what: format!(
                "rank {} of {}: {how} cut short an operation of this communicator on this \
                 stream before it completed; its outputs are undefined",
                self.rank, self.size
            ),
        }
    }

    /// How the communicator was ended, if it was (aborted, stopped or revoked).
    fn ended_by(&self) -> Option<&'static str> {
        if self.stopped.load(Ordering::Acquire) {
            Some(BY_STOP)
        } else if self.aborted.load(Ordering::Acquire) {
            Some(BY_ABORT)
        } else if self.revoked.load(Ordering::Acquire) {
            Some(BY_REVOKE)
        } else {
            None
        }
    }

    /// Launches that completed (or were forgotten as completed).
    fn completed(&self) -> usize {
        let outstanding = self.outstanding();
        self.launches
            .load(Ordering::Acquire)
            .saturating_sub(outstanding)
    }

    pub(super) fn check_usable(&self, op: &'static str) -> Result<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Err(Error::Aborted {
                what: format!(
                    "{op} on rank {} of {}: the communicator was stopped because another \
                     communicator on {} was torn down while this one's work made no \
                     progress for its teardown timeout",
                    self.rank, self.size, self.device
                ),
            });
        }
        if self.aborted.load(Ordering::Acquire) {
            return Err(Error::Aborted {
                what: format!("{op} on rank {} of {}", self.rank, self.size),
            });
        }
        if self.revoked.load(Ordering::Acquire) {
            return Err(Error::Aborted {
                what: format!(
                    "{op} on rank {} of {}: the communicator was revoked (or shrunk in abort \
                     mode); only shrink, abort and drop remain",
                    self.rank, self.size
                ),
            });
        }
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::InvalidUsage {
                op,
                reason: "the communicator was closed".into(),
            });
        }
        Ok(())
    }

    /// Refuses to make a new communicator from this one once it was aborted, stopped
    /// or closed (NCCL freed it: nothing is left to shrink or grow). A revoked one is
    /// fine: revoking frees nothing.
    pub(super) fn check_not_freed(&self, op: &'static str) -> Result<()> {
        let freed = self.aborted.load(Ordering::Acquire)
            || self.stopped.load(Ordering::Acquire)
            || self.closed.load(Ordering::Acquire);
        if freed {
            return Err(Error::Aborted {
                what: format!(
                    "{op} on rank {} of {}: the communicator was aborted or closed, which \
                     frees it; only a revoked one can still be shrunk",
                    self.rank, self.size
                ),
            });
        }
        Ok(())
    }

    /// As `check_usable`, and refuses new operations after `finalize` (NCCL: nothing
    /// may be issued after `ncclCommFinalize`).
    pub(super) fn check_issuable(&self, op: &'static str) -> Result<()> {
        self.check_usable(op)?;
        if self.finalized.load(Ordering::Acquire) {
            return Err(Error::InvalidUsage {
                op,
                reason: "the communicator was finalized: no operation may be issued after \
                         finalize (close it, or make a new one)"
                    .into(),
            });
        }
        super::suspend_state::check_active(&self.suspend_state, self.rank, self.size, op)
    }

    fn is_ready(&self) -> Result<bool> {
        self.check_usable("is_ready")?;
        self.imp.is_ready()
    }

    fn wait_ready(&self, timeout: Duration) -> Result<()> {
        if let Some(r) = self.imp.wait_ready_sim(timeout) {
            return r;
        }
        let deadline = crate::sync::deadline(timeout);
        loop {
            if self.is_ready()? {
                return Ok(());
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::InitTimeout {
                    waited: timeout,
                    missing: Vec::new(),
                    left: Vec::new(),
                });
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Launches `calls` on `stream` now: tracked waits, the driver's launch, the
    /// buffers' new uses.
    pub(super) fn launch(&self, stream: &Stream, mut calls: Vec<Call>) -> Result<()> {
        let _fence = self.fence_read();
        self.check_issuable("launch")?;
        check_group_configs(&calls)?;
        check_same_device("collective", &self.device, stream.device())?;
        let mark = select_launch_event(&mut calls, &self.device)?;
        self.imp.check_ready("collective")?;
        let uses = Call::uses(&calls);
        let ops: Vec<LaunchOp> = calls.iter().map(|c| c.op.clone()).collect();
        crate::features::check_ops(self.imp.kind(), self.config.sim_nccl_version, &ops)?;
        self.imp.room_before_launch(&ops, &self.config)?;
        let (launched, event) = enqueue_keeping(&stream.inner, &uses, |imp| {
            let launched = self
                .imp
                .launch(imp, ops, &self.config, mark.as_deref().map(|m| &**m));
            // Before the buffers' uses are recorded, so that their events come after
            // whatever the failed launch left running (the abort waits for it).
            self.abort_if_launch_failed(stream);
            launched
        });
        if let Some(m) = mark {
            super::launch_event::keep(stream, event.as_ref(), m);
        }
        // Remembered whatever the result: a failed launch may have enqueued work
        // (see `memory::tracker::enqueue`), which finalize must wait for.
        self.note_launch(stream, event)?;
        launched
    }

    /// The fence, read: held across a launch (see `fence`).
    pub(super) fn fence_read(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.fence.read().unwrap_or_else(|e| e.into_inner())
    }

    /// [`CommInner::launch`] of a captured graph's operations: the buffers' waits and
    /// records around the driver's replay.
    pub(super) fn launch_graph(
        &self,
        stream: &Stream,
        calls: Vec<Call>,
        graph: &crate::driver::GraphImpl,
    ) -> Result<()> {
        let _fence = self.fence_read();
        self.check_issuable("graph launch")?;
        check_same_device("graph launch", &self.device, stream.device())?;
        self.imp.check_ready("graph launch")?;
        let uses = Call::uses(&calls);
        let ops: Vec<LaunchOp> = calls.iter().map(|c| c.op.clone()).collect();
        self.imp.room_before_launch(&ops, &self.config)?;
        // The launch-completion event the capture chose: the graph's calls hold it,
        // and each replay holds it too until it completes (the graph may go first).
        let mark = launch_event_of(&calls);
        let (launched, event) = enqueue_keeping(&stream.inner, &uses, |imp| {
            let mark = mark.as_deref().map(|m| &**m);
            let launched = self.imp.launch_graph(imp, graph, ops, &self.config, mark);
            self.abort_if_launch_failed(stream);
            launched
        });
        if let Some(m) = mark {
            super::launch_event::keep(stream, event.as_ref(), m);
        }
        self.note_launch(stream, event)?;
        launched
    }

    /// Right after a launch returned (the launch locks released): a cuda launch that
    /// failed once its calls were issued left the communicator to be aborted, which
    /// runs here through the same path as every abort (what was cut short
    /// remembered, revoke, the device's other communicators quiesced, then the abort
    /// that frees); the launch's own stream fails too, as its kernels may have run in
    /// part. Until then the driver refuses further launches on it.
    pub(super) fn abort_if_launch_failed(&self, stream: &Stream) {
        if self.imp.needs_abort() {
            let _ = self.abort_now();
            stream
                .inner
                .failure
                .set(self.cut_error("the abort of a launch that failed once issued"));
        }
    }

    /// Remembers a launch's completion event as outstanding work, forgetting the
    /// completed ones as the list grows (amortized: the list stays within twice the
    /// work actually outstanding, plus 64). `recorded`: the event the buffers' uses
    /// were recorded with right after the launch, which serves here too (one event
    /// per launch instead of two); `None` records one.
    pub(super) fn note_launch(&self, stream: &Stream, recorded: Option<SharedEvent>) -> Result<()> {
        let event = match recorded {
            Some(e) => e,
            None => stream.inner.record_new()?,
        };
        super::completion::offer(stream, &event);
        let launched = Launched {
            event,
            failure: stream.inner.failure.clone(),
        };
        let mut p = lock(&self.pending);
        if p.len() >= self.prune_at.load(Ordering::Relaxed) {
            p.retain(|l| !l.done());
            self.prune_at
                .store((2 * p.len()).max(64), Ordering::Relaxed);
        }
        p.push(launched.clone());
        self.launches.fetch_add(1, Ordering::AcqRel);
        // An abort or stop that began while this launch was made may have looked at
        // the list before it was here (it sets its flag before it looks).
        if let Some(how) = self.ended_by() {
            if !launched.done() {
                launched.failure.set(self.cut_error(how));
            }
        }
        Ok(())
    }

    /// Launches remembered (outstanding or not yet forgotten).
    #[cfg(test)]
    pub(super) fn remembered(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Aborts (local): the abort flag first (it never waits), then the device's other
    /// communicators are settled (`quiesce_device`), then the abort that frees. No
    /// lock is held across anything that can block.
    pub(super) fn abort_now(&self) -> Result<()> {
        if self.aborted.swap(true, Ordering::AcqRel) || self.closed.load(Ordering::Acquire) {
            return Ok(());
        }
        self.cut_short(BY_ABORT);
        self.imp.signal_abort();
        self.quiesce_device("aborted", self.config.teardown_timeout);
        self.imp.abort(self.config.teardown_timeout)
    }

    /// Revokes (local): refuses new operations, remembers what is cut short (its
    /// streams fail: NCCL's revoked kernels end without an error), then stops the
    /// in-flight work and waits, at most the call timeout, until the communicator is
    /// quiescent (`ncclCommRevoke`; the sim's abort flag). Idempotent; a no-op on an
    /// aborted or closed communicator, which has nothing left to stop.
    pub(super) fn revoke_now(&self) -> Result<()> {
        if !self.mark_revoked() {
            return self.wait_revoked();
        }
        let outcome = self.imp.revoke(self.config.call_timeout);
        self.revoked_with(outcome.clone());
        outcome
    }

    /// Marks the communicator revoked (new operations refused, its teardown an abort)
    /// and remembers what that cuts short; `false` when it was revoked already, or
    /// aborted or closed (nothing left to stop). A caller that gets `true` stops the
    /// work and then says how that ended with [`CommInner::revoked_with`].
    pub(super) fn mark_revoked(&self) -> bool {
        if self.revoked.swap(true, Ordering::AcqRel)
            || self.aborted.load(Ordering::Acquire)
            || self.closed.load(Ordering::Acquire)
        {
            return false;
        }
        self.cut_short(BY_REVOKE);
        true
    }

    /// Says how the revoke of the thread that marked the communicator ended, and
    /// wakes the others waiting for it.
    pub(super) fn revoked_with(&self, outcome: Result<()>) {
        *lock(&self.revoke_outcome.0) = Some(outcome);
        self.revoke_outcome.1.notify_all();
    }

    /// Waits, at most the call timeout, for a revoke under way on another thread;
    /// at once when it ended, or when the communicator was aborted or closed.
    fn wait_revoked(&self) -> Result<()> {
        let deadline = crate::sync::deadline(self.config.call_timeout);
        let mut outcome = lock(&self.revoke_outcome.0);
        loop {
            if let Some(r) = &*outcome {
                return r.clone();
            }
            if self.aborted.load(Ordering::Acquire) || self.closed.load(Ordering::Acquire) {
                return Ok(());
            }
            // Slices, so that an abort (which does not notify) is seen soon.
            let left = crate::sync::left(deadline).min(Duration::from_millis(20));
            if left.is_zero() {
                return Err(Error::Timeout {
                    op: "revoke (waiting for the revoke under way on another thread)",
                    waited: self.config.call_timeout,
                });
            }
            outcome = self
                .revoke_outcome
                .1
                .wait_timeout(outcome, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Before this communicator's teardown synchronises the device (freeing memory
    /// waits for all of the device's work): watches the device's other communicators
    /// with outstanding work for up to `limit`. One whose work completes nothing for
    /// its own teardown timeout is stopped, since only an abort could release it; one
    /// whose work progresses is left alone (the teardown's free then waits for it, as
    /// on a GPU).
    fn quiesce_device(&self, why: &str, limit: Duration) {
        let busy = |c: &CommInner| {
            !c.aborted.load(Ordering::Acquire)
                && !c.closed.load(Ordering::Acquire)
                && !c.stopped.load(Ordering::Acquire)
                && c.outstanding() > 0
        };
        let start = Instant::now();
        let mut watch: Vec<(Arc<CommInner>, usize, Instant)> = live_on(&self.device)
            .into_iter()
            .filter(|c| !std::ptr::eq(&**c, self) && busy(c))
            .map(|c| {
                let done = c.completed();
                (c, done, start)
            })
            .collect();
        let deadline = crate::sync::deadline(limit);
        loop {
            let now = Instant::now();
            let mut keep = Vec::with_capacity(watch.len());
            for (c, done, since) in watch {
                if !busy(&c) {
                    continue;
                }
                let now_done = c.completed();
                let (done, since) = if now_done != done {
                    (now_done, now)
                } else {
                    (done, since)
                };
                let stalled = now.saturating_duration_since(since);
                if stalled >= c.config.teardown_timeout {
                    c.stop(&self.device, why, stalled);
                } else {
                    keep.push((c, done, since));
                }
            }
            watch = keep;
            if watch.is_empty() || deadline.is_some_and(|d| now >= d) {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Stops this communicator's stalled work because another one on its device is
    /// being torn down: the abort flag (or revoke) without freeing; where the driver has
    /// no such flag, a full abort on a thread of its own. Its own teardown still frees.
    fn stop(self: &Arc<Self>, device: &Device, why: &str, stalled: Duration) {
        log::warn!(
            "{device}: communicator rank {} of {} is stopped because another communicator \
             on the device is being {why} while this one's work made no progress for \
             {stalled:?} (tearing down frees memory, which waits for the whole device)",
            self.rank,
            self.size
        );
        if self.stopped.swap(true, Ordering::AcqRel) {
            return;
        }
        self.cut_short(BY_STOP);
        if !self.imp.signal_abort() && !self.aborted.swap(true, Ordering::AcqRel) {
            let stopped = self.clone();
            let _ = std::thread::Builder::new()
                .name("nccl-rs-abort".into())
                .spawn(move || {
                    let _ = stopped.imp.abort(stopped.config.teardown_timeout);
                });
        }
    }

    /// Waits for outstanding work up to the teardown deadline.
    /// Waits for this rank's work (the sim) or runs `ncclCommFinalize` (cuda), once: a
    /// second call does nothing, on both drivers.
    pub(super) fn finalize(&self) -> Result<()> {
        self.check_usable("finalize")?;
        if self.finalized.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        match self.imp.finalize_cuda(self.config.teardown_timeout) {
            Some(result) => result,
            None => {
                let deadline = crate::sync::deadline(self.config.teardown_timeout);
                let pending: Vec<_> = lock(&self.pending).clone();
                for e in pending.into_iter().map(|l| l.event) {
                    let left = crate::sync::left(deadline);
                    e.synchronize((left != Duration::MAX).then_some(left))
                        .map_err(|err| match err {
                            Error::Timeout { .. } => Error::Timeout {
                                op: "communicator finalize",
                                waited: self.config.teardown_timeout,
                            },
                            other => other,
                        })?;
                }
                Ok(())
            }
        }
    }

    /// Finalizes `comms` (a group's): on cuda all together in one NCCL group.
    pub(super) fn finalize_all(comms: &[Arc<CommInner>]) -> Result<()> {
        let cuda = comms.len() > 1 && comms.iter().all(|c| c.imp.kind() == DriverKind::Cuda);
        if !cuda {
            return comms.iter().try_for_each(|c| c.finalize());
        }
        let mut todo = Vec::new();
        for c in comms {
            c.check_usable("finalize")?;
            if !c.finalized.swap(true, Ordering::AcqRel) {
                todo.push(c);
            }
        }
        let imps: Vec<(&CommImpl, Duration)> = todo
            .iter()
            .map(|c| (&c.imp, c.config.teardown_timeout))
            .collect();
        crate::driver::finalize_cuda_group(&imps)
    }

    fn destroy(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.quiesce_device("closed", self.config.teardown_timeout);
        self.imp.destroy(self.config.teardown_timeout)
    }

    /// Decision 8: finalize under a deadline, then destroy; on error or deadline,
    /// abort.
    pub(super) fn teardown(&self) -> Result<()> {
        if self.aborted.load(Ordering::Acquire) || self.closed.load(Ordering::Acquire) {
            self.closed.store(true, Ordering::Release);
            return Ok(());
        }
        if self.revoked.load(Ordering::Acquire) {
            // A revoked parent, or one shrunk in abort mode, is released with abort:
            // destroy on it can block forever (NCCL 2.31.2 and later wait in an
            // intra-node barrier for ranks that are gone).
            let result = self.abort_now();
            self.closed.store(true, Ordering::Release);
            return result;
        }
        match self.finalize() {
            Ok(()) => self.destroy(),
            Err(e) => {
                let _ = self.abort_now();
                self.closed.store(true, Ordering::Release);
                Err(e)
            }
        }
    }
}

/// A rank of an NCCL communicator, on one device.
///
/// Every NCCL call on a communicator is serialised with every other NCCL call on its
/// device (one lock per device, as NCCL requires), so a `Communicator` is `Send` and
/// `Sync`. Calls on a non-blocking communicator are polled to completion under a
/// deadline before they return: the work exists on the stream when a call returns,
/// and "in progress" never leaks out.
///
/// Dropping a communicator never blocks and never hangs: teardown (finalize under a
/// deadline, then destroy, or abort) runs on a background thread. [`close`] does the
/// same in the calling thread and reports errors.
///
/// [`close`]: Communicator::close
///
/// ```
/// use std::thread;
/// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// let id = UniqueId::random();
/// let ranks: Vec<_> = (0..2)
///     .map(|rank| {
///         thread::spawn(move || -> nccl_safe::Result<Vec<f32>> {
///             let dev = Device::sim(rank)?;
///             let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
///             let s = Stream::new(&dev)?;
///             let mut x = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 4])?;
///             comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
///             x.to_vec(&s)
///         })
///     })
///     .collect();
/// for r in ranks {
///     assert_eq!(r.join().unwrap()?, vec![3.0; 4]);
/// }
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct Communicator {
    pub(super) inner: Arc<CommInner>,
}

/// Aborts a communicator, blocking or not, from any thread
/// ([`Communicator::abort_handle`]). It fails this rank's pending and blocked
/// operations. What peers learn depends on the driver: on the sim, a peer waiting in
/// a collective with this rank fails at once with an error naming this rank as
/// aborted; on cuda, NCCL tells peers nothing, and they need their own timeout (or
/// the `collectives` layer's failure propagation through its store).
#[derive(Clone)]
pub struct AbortHandle {
    pub(super) inner: Arc<CommInner>,
}

impl AbortHandle {
    /// Aborts the communicator. Idempotent; a no-op after close.
    ///
    /// # Errors
    ///
    /// A driver error from `ncclCommAbort`.
    pub fn abort(&self) -> Result<()> {
        self.inner.abort_now()
    }

    /// Aborts the communicator because rank `cause` failed first (its process died,
    /// it timed out, it aborted): on the sim, peers that see this rank's abort name
    /// `cause` as the root of it; NCCL has no such notion, and on cuda this is
    /// [`AbortHandle::abort`]. A `cause` that is this rank or not below the world
    /// size is ignored.
    ///
    /// # Errors
    ///
    /// As [`AbortHandle::abort`].
    pub fn abort_after(&self, cause: usize) -> Result<()> {
        self.note_cause(cause);
        self.inner.abort_now()
    }

    /// Records, without aborting, that what this rank does next follows rank
    /// `cause`'s failure: on the sim, peers that later see this rank abort or its
    /// process end name `cause` as the root of it (record it before the program can
    /// exit on the failure; [`AbortHandle::abort_after`] records it too, but an abort
    /// may come later). The first cause recorded stays. A no-op on cuda, and for a
    /// `cause` that is this rank or not below the world size.
    pub fn note_cause(&self, cause: usize) {
        if cause != self.inner.rank {
            self.inner.imp.note_cause(cause);
        }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "AbortHandle(rank {} of {} on {})",
            self.inner.rank, self.inner.size, self.inner.device
        )
    }
}

/// Refuses a group whose collectives carry per-call configs with different thread-block
/// cluster sizes (NCCL: undefined behaviour within one group).
pub(super) fn check_group_configs(calls: &[Call]) -> Result<()> {
    let mut sizes = calls
        .iter()
        .map(|c| c.op.config.as_ref().and_then(|cfg| cfg.cga()));
    let Some(first) = sizes.next() else {
        return Ok(());
    };
    match sizes.find(|s| *s != first) {
        Some(other) => Err(Error::InvalidArgument {
            op: "coll_config",
            reason: format!(
                "one group's collectives ask for cga_cluster_size {} and {}: NCCL needs one \
                 size for a whole group",
                first.map_or("unset".into(), |v| v.to_string()),
                other.map_or("unset".into(), |v| v.to_string())
            ),
        }),
        None => Ok(()),
    }
}

/// The event that the launch of `calls` on a communicator of `device` records, after
/// checking NCCL's rules; marks the first collective as the one that carries it.
pub(super) fn select_launch_event(
    calls: &mut [Call],
    device: &Device,
) -> Result<Option<SharedEvent>> {
    let mut marks = calls.iter().filter_map(|c| c.mark.as_ref());
    let Some(first) = marks.next() else {
        return Ok(None);
    };
    let bad = |reason: &str| {
        Err(Error::InvalidArgument {
            op: "launch event",
            reason: reason.into(),
        })
    };
    if marks.any(|m| !Arc::ptr_eq(&m.event, &first.event)) {
        return bad(
            "one launch (a group's calls on one communicator) records at most one launch \
             event, and its calls carry two (NCCL supports one per communicator and group)",
        );
    }
    check_same_device("launch event", device, &first.device)?;
    if first.fixed {
        return bad(
            "the launch event is the one recorded after an earlier launch (from \
             with_completion_event), which is never recorded again: make an Event of \
             your own",
        );
    }
    if first.timing {
        return bad(
            "the launch event was made with timing (Event::new(device, true)); NCCL records \
             launch-completion events only on events made without timing",
        );
    }
    let first = first.clone();
    let event = first.event.clone();
    match calls
        .iter_mut()
        .find(|c| !matches!(c.op.desc.kind, Kind::Send | Kind::Recv))
    {
        Some(c) => {
            c.op.launch_event = true;
            c.mark = Some(first);
        }
        None => {
            return bad(
                "a launch of only sends and receives records no launch event: NCCL records \
                 it through a collective's per-call config, which point-to-point calls do \
                 not take",
            );
        }
    }
    Ok(Some(event))
}

/// The event that a captured graph's calls record at each replay (`select_launch_event` chose it
/// at the capture).
pub(super) fn launch_event_of(calls: &[Call]) -> Option<SharedEvent> {
    calls
        .iter()
        .find(|c| c.op.launch_event)
        .and_then(|c| c.mark.as_ref())
        .map(|m| m.event.clone())
}

pub(super) fn check_rank(op: &'static str, what: &str, value: usize, size: usize) -> Result<()> {
    if value < size {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            reason: format!("{what} {value} is not below the world size {size}"),
        })
    }
}

pub(super) fn check_count(
    op: &'static str,
    what: &str,
    expected: usize,
    actual: usize,
) -> Result<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            reason: format!("{what} has {actual} elements, expected {expected}"),
        })
    }
}

impl Communicator {
    /// Joins rank `rank` of a `size`-rank communicator named by `id`, on `device`.
    ///
    /// Blocking (the default config): returns once every rank has joined, and cannot
    /// be interrupted (as in NCCL). Non-blocking (`Config::blocking(false)`): returns
    /// at once; [`Communicator::is_ready`] / [`Communicator::wait_ready`] tell when
    /// it can be used.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for `rank >= size` or `size == 0`;
    /// [`Error::Mismatch`] when ranks disagree on the size (sim);
    /// [`Error::InitTimeout`] when a blocking init waited its
    /// [`Config::call_timeout`]; driver errors.
    pub fn init(
        device: &Device,
        rank: usize,
        size: usize,
        id: &UniqueId,
        config: &Config,
    ) -> Result<Communicator> {
        Self::init_inner(device, rank, size, id, config, config.is_blocking(), 1)
    }

    fn init_inner(
        device: &Device,
        rank: usize,
        size: usize,
        id: &UniqueId,
        config: &Config,
        wait: bool,
        together: usize,
    ) -> Result<Communicator> {
        if size == 0 {
            return Err(Error::InvalidArgument {
                op: "communicator init",
                reason: "world size 0".into(),
            });
        }
        check_rank("communicator init", "rank", rank, size)?;
        Self::init_checked(
            device,
            rank,
            size,
            std::slice::from_ref(id.as_bytes()),
            config,
            wait,
            together,
        )
    }

    /// [`Communicator::init_scalable`]'s init, its arguments checked.
    pub(super) fn init_ids(
        device: &Device,
        rank: usize,
        size: usize,
        ids: &[[u8; 128]],
        config: &Config,
    ) -> Result<Communicator> {
        Self::init_checked(device, rank, size, ids, config, config.is_blocking(), 1)
    }

    fn init_checked(
        device: &Device,
        rank: usize,
        size: usize,
        ids: &[[u8; 128]],
        config: &Config,
        wait: bool,
        together: usize,
    ) -> Result<Communicator> {
        config.validate()?;
        let imp = device.inner.imp.init_comm(ids, rank, size, config, wait)?;
        let comm = Communicator {
            inner: CommInner::new(device.clone(), rank, size, config.clone(), imp, together),
        };
        if wait {
            comm.inner.wait_ready(config.call_timeout)?;
        }
        Ok(comm)
    }

    /// One communicator over `devices` (rank i on `devices[i]`), for a process that
    /// drives them all. Returns when every rank is ready.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for no devices, a device twice, or devices of two
    /// drivers; driver errors.
    pub fn init_all(devices: &[Device], config: &Config) -> Result<Vec<Communicator>> {
        if devices.is_empty() {
            return Err(Error::InvalidArgument {
                op: "init_all",
                reason: "no devices".into(),
            });
        }
        for (i, d) in devices.iter().enumerate() {
            if let Some(j) = devices[..i].iter().position(|e| e == d) {
                return Err(Error::InvalidArgument {
                    op: "init_all",
                    reason: format!("device {d} is listed twice (ranks {j} and {i})"),
                });
            }
            if d.driver() != devices[0].driver() {
                return Err(Error::InvalidArgument {
                    op: "init_all",
                    reason: format!("devices of two drivers: {} and {d}", devices[0]),
                });
            }
        }
        let id = UniqueId::for_driver(devices[0].driver())?;
        let n = devices.len();
        let nonblocking = config.clone().blocking(false);
        if devices[0].driver() == DriverKind::Cuda {
            let imps: Vec<&DeviceImpl> = devices.iter().map(|d| &*d.inner.imp).collect();
            let raw = crate::driver::init_cuda_comms(&imps, id.as_bytes(), &nonblocking)?;
            let comms: Vec<Communicator> = raw
                .into_iter()
                .enumerate()
                .map(|(rank, imp)| Communicator {
                    inner: CommInner::new(devices[rank].clone(), rank, n, config.clone(), imp, n),
                })
                .collect();
            for c in &comms {
                c.inner.wait_ready(config.call_timeout)?;
            }
            return Ok(comms);
        }
        let comms: Vec<Communicator> = devices
            .iter()
            .enumerate()
            .map(|(rank, d)| Communicator::init_inner(d, rank, n, &id, config, false, n))
            .collect::<Result<_>>()?;
        for c in &comms {
            c.inner.wait_ready(config.call_timeout)?;
        }
        Ok(comms)
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.inner.rank
    }

    /// `Some(n)` when this communicator is one of the `n` that one
    /// [`Communicator::init_all`] call made: ranks one thread drives together (their
    /// calls grouped with [`group`](crate::group)), or one split from such a
    /// communicator; `None` for one made by [`Communicator::init`].
    pub fn init_all_size(&self) -> Option<usize> {
        (self.inner.together > 1).then_some(self.inner.together)
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// The device of this rank.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// Whether the communicator is blocking.
    pub fn is_blocking(&self) -> bool {
        self.inner.config.is_blocking()
    }

    /// Whether every rank has joined (always true for a blocking communicator).
    /// Never blocks.
    ///
    /// # Errors
    ///
    /// [`Error::Aborted`]; an asynchronous NCCL error of the init.
    pub fn is_ready(&self) -> Result<bool> {
        self.inner.is_ready()
    }

    /// Waits until every rank has joined, for at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`Error::InitTimeout`] (on the sim it names the ranks that never joined, and
    /// apart from them those that joined and left again); on the sim across processes,
    /// [`Error::Timeout`] when the rendezvous root (hosted by the first process to
    /// join) never answered this rank, as when that process is stopped; a refusal by
    /// the root ([`Error::Mismatch`], [`Error::InvalidUsage`]); other errors of the init.
    pub fn wait_ready(&self, timeout: Duration) -> Result<()> {
        self.inner.wait_ready(timeout)
    }

    /// A handle that aborts this communicator from another thread: a wait for a
    /// late peer, a stream held by its collective, or a teardown then ends at once.
    /// Every communicator has one, blocking or not: NCCL's communicator is always
    /// non-blocking underneath (a blocking one differs only in that its init waits
    /// for every rank), so no call of this library is stuck inside NCCL where an abort
    /// cannot reach it.
    ///
    /// # Errors
    ///
    /// None today; the `Result` leaves room for drivers that cannot abort.
    pub fn abort_handle(&self) -> Result<AbortHandle> {
        Ok(AbortHandle {
            inner: self.inner.clone(),
        })
    }

    /// Aborts now: pending and blocked operations of this rank fail. Local.
    ///
    /// # Errors
    ///
    /// A driver error from `ncclCommAbort`.
    pub fn abort(self) -> Result<()> {
        self.inner.abort_now()
    }

    /// An asynchronous error of the communicator, if one happened (a failed peer, an
    /// abort). Never blocks.
    ///
    /// # Errors
    ///
    /// A driver error asking.
    pub fn async_error(&self) -> Result<Option<Error>> {
        if self.inner.stopped.load(Ordering::Acquire) {
            return Ok(Some(Error::Aborted {
                what: format!(
                    "rank {}: stopped because another communicator on {} was torn down \
                     while this one's work made no progress",
                    self.inner.rank, self.inner.device
                ),
            }));
        }
        if self.inner.aborted.load(Ordering::Acquire) {
            return Ok(Some(Error::Aborted {
                what: format!("rank {}", self.inner.rank),
            }));
        }
        self.inner.imp.async_error()
    }

    /// Number of launched operations whose work has not completed.
    pub fn outstanding(&self) -> usize {
        self.inner.outstanding()
    }

    /// Finalizes under the deadline, then destroys; on error or deadline, aborts.
    ///
    /// # Errors
    ///
    /// The finalize error (the communicator is aborted then).
    pub fn close(self) -> Result<()> {
        self.inner.teardown()
    }

    /// Splits into sub-communicators: every rank of this one must call it. Ranks
    /// with the same `color` form one, ordered by `key` (then by rank); `color: None`
    /// takes part in the call and gets no communicator.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUsage`] while this communicator has outstanding work (NCCL
    /// forbids splitting then); errors of the call.
    pub fn split(
        &self,
        color: Option<u32>,
        key: i32,
        config: &Config,
    ) -> Result<Option<Communicator>> {
        self.inner.check_issuable("split")?;
        config.validate()?;
        let outstanding = self.inner.outstanding();
        if outstanding > 0 {
            return Err(Error::InvalidUsage {
                op: "split",
                reason: format!(
                    "the parent has {outstanding} operations outstanding; wait for them first"
                ),
            });
        }
        if color.is_some_and(|c| c > i32::MAX as u32) {
            return Err(Error::InvalidArgument {
                op: "split",
                reason: format!("color {color:?} is above i32::MAX"),
            });
        }
        let out = self
            .inner
            .imp
            .split(color, key, config, &self.inner.config)?;
        let device = &self.inner.device;
        let child = out.map(|(rank, size, imp)| Communicator {
            inner: CommInner::new(
                device.clone(),
                rank,
                size,
                config.clone(),
                imp,
                self.inner.together,
            ),
        });
        // NCCL shares when the parent's config asks it to (`comm->config.splitShare`).
        if self.inner.config.shares_split() && child.is_some() {
            self.inner.shares.store(true, Ordering::Release);
            if let Some(c) = &child {
                c.inner.shares.store(true, Ordering::Release);
            }
        }
        Ok(child)
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        release(&self.inner);
    }
}

/// Tears `inner` down on a thread of its own (what dropping its owner does; abort
/// handles share the inner state but never tear it down): finalize and destroy, or
/// abort for a revoked communicator (see [`CommInner::teardown`]).
fn release(inner: &Arc<CommInner>) {
    if inner.closed.load(Ordering::Acquire) {
        return;
    }
    if inner.imp.kind() == DriverKind::Cuda {
        wait_for_teardowns_at_exit();
    }
    *lock(&TEARDOWNS.0) += 1;
    let moved = inner.clone();
    let spawned = std::thread::Builder::new()
        .name("nccl-rs-teardown".into())
        .spawn(move || {
            let _count = TeardownRunning;
            if let Err(e) = moved.teardown() {
                log::warn!(
                    "{}: communicator rank {} teardown: {e}",
                    moved.device,
                    moved.rank
                );
            }
        });
    if spawned.is_err() {
        drop(TeardownRunning);
        // No thread: abort, which never waits for peers.
        let _ = inner.abort_now();
    }
}

/// Teardowns of dropped communicators still running on their threads, and the
/// signal each gives as it ends.
static TEARDOWNS: (Mutex<usize>, std::sync::Condvar) = (Mutex::new(0), std::sync::Condvar::new());

/// Counts one running teardown down when dropped (also when the teardown panics).
struct TeardownRunning;

impl Drop for TeardownRunning {
    fn drop(&mut self) {
        let mut n = lock(&TEARDOWNS.0);
        *n = n.saturating_sub(1);
        TEARDOWNS.1.notify_all();
    }
}

/// Waits until every communicator dropped so far has been torn down on its
/// background thread, at most `timeout`; `true` when none is left.
///
/// Dropping a [`Communicator`] returns at once and tears it down on a thread of its
/// own. A process that exits meanwhile ends that thread wherever it is, possibly
/// inside NCCL or the CUDA driver. The library waits at exit for cuda teardowns (at
/// most 10 s, from an `atexit` handler registered with the first one); call this to
/// wait earlier, or with another bound.
pub fn wait_for_teardowns(timeout: Duration) -> bool {
    let deadline = crate::sync::deadline(timeout);
    let mut n = lock(&TEARDOWNS.0);
    while *n > 0 {
        match deadline {
            None => n = TEARDOWNS.1.wait(n).unwrap_or_else(|e| e.into_inner()),
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    return false;
                }
                n = TEARDOWNS
                    .1
                    .wait_timeout(n, d - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
    }
    true
}

/// How long the process waits at exit for cuda teardowns still running.
const EXIT_WAIT: Duration = Duration::from_secs(10);

/// Registers, once, an `atexit` handler that waits (at most [`EXIT_WAIT`]) for the
/// teardowns still running, so that a test binary or a program returning from `main`
/// does not end a thread inside NCCL's destroy or the driver.
fn wait_for_teardowns_at_exit() {
    extern "C" fn at_exit() {
        if !wait_for_teardowns(EXIT_WAIT) {
            log::warn!("exiting with communicator teardowns still running after {EXIT_WAIT:?}");
        }
    }
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: registers a handler that takes only this module's lock and
        // condition variable, which live as long as the process.
        unsafe { libc::atexit(at_exit) };
    });
}

impl fmt::Debug for Communicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Communicator(rank {} of {} on {})",
            self.inner.rank, self.inner.size, self.inner.device
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DeviceBuffer, Gate, ReduceOp};

    /// A one-rank communicator on sim device 7 (these tests' own), a stream held by
    /// a closed gate with an all-reduce behind it, and a second stream whose
    /// all-reduce completed.
    fn cut_setup() -> (Communicator, Gate, Stream, Stream, DeviceBuffer<u32>) {
        let dev = Device::sim(7).unwrap();
        let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
            .unwrap()
            .pop()
            .unwrap();
        let done = Stream::new(&dev).unwrap();
        let mut y = DeviceBuffer::from_slice(&done, &[1u32; 4]).unwrap();
        comm.all_reduce_in_place(&mut y, ReduceOp::Sum, &done)
            .unwrap();
        done.synchronize().unwrap();
        let mut x = DeviceBuffer::from_slice(&done, &[1u32; 4]).unwrap();
        done.synchronize().unwrap();
        let gated = Stream::new(&dev).unwrap();
        let gate = Gate::new(&dev).unwrap();
        gated.wait_gate(&gate).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &gated)
            .unwrap();
        (comm, gate, gated, done, x)
    }

    /// Waits (bounded) until `s` reports a cut-short operation, the gate still closed.
    fn wait_cut(s: &Stream) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while s.inner.failure.get().is_none() {
            assert!(
                Instant::now() < deadline,
                "the launch was never marked cut short"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn an_abort_fails_the_stream_of_each_launch_it_cut_short_and_only_those() {
        // Issue 19 item 3: NCCL's aborted kernels end without a CUDA error, so the
        // stream reported success with undefined outputs. The launch behind the gate
        // is cut short: its stream fails from then on, whatever the driver says; the
        // stream whose launch had completed stays usable.
        let (comm, gate, gated, done, _x) = cut_setup();
        let handle = comm.abort_handle().unwrap();
        let abort = std::thread::spawn(move || handle.abort());
        wait_cut(&gated);
        let e = gated.query().unwrap_err();
        assert!(
            matches!(&e, Error::Aborted { what } if what.contains("an abort cut short")),
            "{e}"
        );
        gate.open();
        abort.join().unwrap().unwrap();
        // The sim fails the stream itself too, and its error comes first; cuda's
        // stream has no error of its own, and this one is what it reports.
        assert!(gated.synchronize().is_err());
        assert!(gated.inner.failure.get().is_some());
        assert!(gated.synchronize_timeout(Duration::from_secs(5)).is_err());
        assert!(done.inner.failure.get().is_none());
        done.synchronize().unwrap();
        assert!(matches!(
            comm.async_error(),
            Ok(Some(Error::Aborted { .. }))
        ));
    }

    #[test]
    fn a_failed_launch_is_aborted_through_the_teardown_path_after_it() {
        // Issue 19 item 5: a cuda launch that failed once issued aborted its
        // communicators inside the launch, under the launch lock, skipping what every
        // abort does. Now it marks them, and the owner aborts after the launch: the
        // outstanding launch is remembered as cut short, and the abort flag is set.
        let (comm, gate, gated, _done, _x) = cut_setup();
        let CommImpl::Sim(sim) = &comm.inner.imp else {
            unreachable!("a sim device")
        };
        sim.mark_needs_abort();
        let inner = comm.inner.clone();
        let launching = Stream::new(comm.device()).unwrap();
        let in_thread = launching.clone();
        let owner = std::thread::spawn(move || inner.abort_if_launch_failed(&in_thread));
        wait_cut(&gated);
        gate.open();
        owner.join().unwrap();
        assert!(comm.inner.aborted.load(Ordering::Acquire));
        assert!(gated.synchronize().is_err());
        let e = launching.synchronize().unwrap_err();
        assert!(
            e.to_string().contains("a launch that failed once issued"),
            "{e}"
        );
    }

    #[test]
    fn a_launch_noted_after_an_abort_began_is_cut_short_too() {
        // The race an abort has with a launch being made: the abort sets its flag,
        // then looks at the list; a launch noted after it looked sees the flag.
        let (comm, gate, gated, _done, _x) = cut_setup();
        comm.inner.aborted.store(true, Ordering::Release);
        let late = Stream::new(comm.device()).unwrap();
        late.wait_gate(&gate).unwrap();
        comm.inner.note_launch(&late, None).unwrap();
        assert!(late.inner.failure.get().is_some());
        assert!(
            gated.inner.failure.get().is_none(),
            "nothing looked at the list yet"
        );
        gate.open();
        comm.inner.aborted.store(false, Ordering::Release);
    }

    #[test]
    fn a_revoked_communicator_is_released_by_abort_and_a_live_one_by_destroy() {
        // Decision 15: destroying a revoked (or shrunk-with-abort) parent can block
        // forever since NCCL 2.31.2; its drop aborts. A live one's drop destroys.
        let one = |ordinal| {
            let dev = Device::sim(ordinal).unwrap();
            Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
                .unwrap()
                .pop()
                .unwrap()
        };
        let (revoked, live) = (one(4), one(5));
        let (a, b) = (revoked.inner.clone(), live.inner.clone());
        drop(revoked.revoke().unwrap());
        drop(live);
        assert!(wait_for_teardowns(Duration::from_secs(20)));
        assert!(a.aborted.load(Ordering::Acquire), "released by abort");
        assert!(!b.aborted.load(Ordering::Acquire), "released by destroy");
        assert!(a.closed.load(Ordering::Acquire) && b.closed.load(Ordering::Acquire));
    }

    #[test]
    fn the_pending_list_of_a_long_run_stays_bounded() {
        // Issue: every launch pushed an event, pruned only by `outstanding()`, which a
        // process group never calls; memory grew with every operation.
        let dev = Device::sim(6).unwrap();
        let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
            .unwrap()
            .pop()
            .unwrap();
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u32; 2]).unwrap();
        let mut most = 0;
        for i in 0..5000 {
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            if i % 100 == 99 {
                s.synchronize().unwrap();
            }
            most = most.max(comm.inner.remembered());
        }
        assert!(
            most <= 300,
            "at most twice the outstanding plus 64, saw {most}"
        );
    }
}
