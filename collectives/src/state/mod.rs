//! The state a process group shares with its works and its watchdog, and how a failure
//! is applied, in this order:
//!
//! 1. the policy: the group refuses new work (abort), or, under `Report`, refuses it
//!    only when the stream or communicator failed (a late operation just fails);
//! 2. the flight record is taken and written on a thread of its own (a stuck file
//!    system must not hold up the policy, a wait or a drop), and the group's other
//!    ranks in this process are asked to dump theirs;
//! 3. the works concerned fail, which wakes their waiters (so whoever saw the error
//!    sees the group refuse new work, and every record was taken);
//! 4. the communicator is aborted on a thread of its own (aborting waits for the
//!    device, which must never hold up a waiter).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock, Weak};
use std::task::Waker;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use nccl_safe::{AbortHandle, Communicator, Device, DeviceBuffer, Event, Stream};

use crate::hooks::{HookEvent, HookOp, HookPoint, Hooks};

mod dumps;
mod fail;

use crate::options::Options;
use crate::recorder::{Dump, FlightRecorder, State};
use crate::{Error, Result};
pub(crate) use dumps::{DUMP_WAIT, Writing};
pub(crate) use fail::Published;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) use nccl_safe::sync::{SPIN, spin_until};

/// `Instant::now() + timeout`, or `None` ("no deadline") when that overflows.
pub(crate) fn deadline_after(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    Pending,
    /// A failure path has claimed it (a timeout): it publishes, dumps and runs the
    /// hooks, then fails it. Observers see it pending; nothing else settles it.
    Failing,
    Done,
    Failed(Error),
}

pub(crate) struct WorkState {
    pub(crate) op: &'static str,
    pub(crate) seq: u64,
    pub(crate) call_site: Arc<str>,
    pub(crate) dtype: nccl_safe::DType,
    pub(crate) count: usize,
    /// What the NaN check of its input wrote (taken when the work is seen complete).
    pub(crate) probe: Mutex<Option<nccl_safe::DeviceBuffer<u64>>>,
    pub(crate) entry: u64,
    pub(crate) event: Event,
    /// The launch-completion event NCCL records once it has launched the operation
    /// ([`Options::launch_events`](crate::Options::launch_events)), if it records one.
    pub(crate) launch: Option<Event>,
    /// Set once the operation was seen launched (noted in the flight record then).
    pub(crate) started: AtomicBool,
    pub(crate) enqueued: Instant,
    pub(crate) outcome: Mutex<Outcome>,
    pub(crate) changed: Condvar,
    /// The wakers of futures awaiting this work, by future id; taken and woken when
    /// the work settles or its operation completes.
    pub(crate) wakers: Mutex<Vec<(u64, Waker)>>,
    /// Threads waiting on `changed` (changed under `outcome`'s lock): a notification
    /// with nobody waiting is skipped, which saves a system call per operation.
    pub(crate) waiters: AtomicUsize,
    /// Set when the work settles or its operation completes (before its waiters are
    /// woken): what a host wait spins on before it sleeps.
    pub(crate) signalled: AtomicBool,
    /// Set once something waited for it (a stream or the host): then it is not
    /// abandoned, even once its handle is gone.
    pub(crate) waited: AtomicBool,
}

impl WorkState {
    /// Claims the work for a failure path: `false` if it is no longer pending (done,
    /// failed, or claimed by another path).
    pub(crate) fn begin_failing(&self) -> bool {
        let mut o = lock(&self.outcome);
        if matches!(*o, Outcome::Pending) {
            *o = Outcome::Failing;
            true
        } else {
            false
        }
    }

    /// Fails a work [`WorkState::begin_failing`] claimed, and wakes its waiters.
    pub(crate) fn finish_failing(&self, err: Error) {
        {
            let mut o = lock(&self.outcome);
            if !matches!(*o, Outcome::Failing) {
                return;
            }
            *o = Outcome::Failed(err);
            self.wake(o);
        }
        self.wake_futures();
    }

    /// Whether a waiter should sleep: the work is pending and its operation not seen
    /// complete, or a failure path is failing it.
    pub(crate) fn still_waiting(&self, o: &Outcome) -> bool {
        match o {
            Outcome::Failing => true,
            Outcome::Pending => !matches!(self.event.query(), Ok(true)),
            _ => false,
        }
    }

    pub(crate) fn settle(&self, outcome: Outcome) -> bool {
        let settled = {
            let mut o = lock(&self.outcome);
            if matches!(*o, Outcome::Pending) {
                *o = outcome;
                self.wake(o);
                true
            } else {
                false
            }
        };
        if settled {
            self.wake_futures();
        }
        settled
    }

    /// Wakes the work's waiters (its operation completed: they look again).
    pub(crate) fn notify(&self) {
        self.wake(lock(&self.outcome));
        self.wake_futures();
    }

    /// Wakes the futures awaiting this work, with no lock held (a waker may poll at
    /// once).
    fn wake_futures(&self) {
        let wakers = std::mem::take(&mut *lock(&self.wakers));
        for (_, w) in wakers {
            w.wake();
        }
    }

    /// Registers (or replaces) the waker of future `id`.
    pub(crate) fn register_waker(&self, id: u64, waker: &Waker) {
        let mut ws = lock(&self.wakers);
        match ws.iter_mut().find(|(i, _)| *i == id) {
            Some((_, w)) => w.clone_from(waker),
            None => ws.push((id, waker.clone())),
        }
    }

    /// Forgets the waker of future `id` (the future was dropped or resolved).
    pub(crate) fn forget_waker(&self, id: u64) {
        lock(&self.wakers).retain(|(i, _)| *i != id);
    }

    /// Notifies `changed` if anyone waits, after unlocking the outcome (`held`): a
    /// waiter woken while the lock is still held would only block on it again. No
    /// wake is lost: a waiter counted here is inside its wait, and one that comes
    /// later sees the new state before it would wait.
    fn wake(&self, held: MutexGuard<'_, Outcome>) {
        self.signalled.store(true, Ordering::Release);
        let waiting = self.waiters.load(Ordering::Relaxed) > 0;
        drop(held);
        if waiting {
            self.changed.notify_all();
        }
    }

    /// Waits on `changed` for at most `slice`, counted as a waiter.
    pub(crate) fn wait_changed<'a>(
        &self,
        held: MutexGuard<'a, Outcome>,
        slice: Duration,
    ) -> MutexGuard<'a, Outcome> {
        self.waiters.fetch_add(1, Ordering::Relaxed);
        let held = match self.changed.wait_timeout(held, slice) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        held
    }
}

/// Why a group refuses new work.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub(crate) reason: String,
}

/// A failure of this rank's group as it is published beyond this process.
pub(crate) struct Failure {
    /// What happened (the error's text).
    pub(crate) reason: String,
    /// The flight record, taken when it happened.
    pub(crate) dump: Dump,
    /// The rank the failure goes back to, when another's and known (the sim names
    /// the rank that died or aborted first; NCCL's remote error names none).
    pub(crate) cause: Option<usize>,
    /// Whether it may be the echo of an unknown other rank's failure (a remote error
    /// naming no rank), whose own record should win.
    pub(crate) maybe_echo: bool,
}

/// Where a group reports its own failure beyond this process (the job's store, see
/// `launch::link`): called once, when the group aborts, before any of its waiters
/// wakes, with the flight record taken then. Publishes before it returns (a program
/// that exits on its error must find its failure published), waiting at most a
/// couple of seconds for a stalled store.
pub(crate) trait FailureSink: Send + Sync {
    /// Publishes this rank's failure, unless another rank's was seen first.
    fn failed(&self, failure: Failure);

    /// The group's handle is being dropped: finish what is under way (bounded).
    fn finish(&self) {}

    /// The job's store and the keys of this group's epoch, for a shrink or a grow to
    /// agree through.
    fn job_store(&self) -> Option<JobStore> {
        None
    }

    /// The group was replaced by a shrink or a grow: stop watching, close the store
    /// connection in order (its on-disconnect records are this epoch's), and hand over
    /// the store server this rank hosts, if any, to the new group's link.
    fn retire(&self) -> Option<crate::store::TcpStoreServer> {
        None
    }
}

/// A group's place in the job's store (see `launch::link`).
#[derive(Clone)]
pub(crate) struct JobStore {
    /// The store.
    pub(crate) store: Arc<dyn crate::store::Store>,
    /// The same, when it is a TCP store (a new epoch opens a connection of its own).
    pub(crate) tcp: Option<Arc<crate::store::TcpStore>>,
    /// Where the store is, for errors.
    pub(crate) addr: String,
    /// The keys of the group's first epoch start with this.
    pub(crate) base: String,
    /// Whether rank 0 prints the hang report (not under `nccl-run`).
    pub(crate) report: bool,
}

/// The prefix of the keys of epoch `epoch` of the group whose keys start with `base`.
pub(crate) fn epoch_prefix(base: &str, epoch: u64) -> String {
    if epoch == 0 {
        base.to_string()
    } else {
        format!("{base}/e{epoch}")
    }
}

/// What replaced a group (its operations are refused with [`Error::Replaced`]).
#[derive(Clone, Debug)]
pub(crate) struct Replacement {
    pub(crate) by: crate::ReplacedBy,
    pub(crate) epoch: u64,
    pub(crate) size: usize,
    pub(crate) new_rank: usize,
}

/// The thread issuing an operation right now, and where.
pub(crate) struct Caller {
    pub(crate) thread: ThreadId,
    pub(crate) site: Arc<str>,
}

pub(crate) struct Inner {
    /// The first failure's publication (see [`Published`]).
    pub(crate) published: Published,
    /// Dumps being written (see [`Writing`]).
    pub(crate) writing: Arc<Writing>,
    /// Queries of NCCL's RAS under way (the communicator's abort waits for them, so
    /// that RAS still knows it while it collects).
    pub(crate) asking_ras: Arc<Writing>,
    /// The program's hooks.
    pub(crate) hooks: Arc<Hooks>,
    /// The stream NaN checks are read on (see `finite`), made at the first.
    pub(crate) probe_stream: OnceLock<Stream>,
    /// Set by the first path that publishes a failure and aborts (whatever
    /// `refused` says: the Report policy refuses work without aborting).
    pub(crate) aborting: AtomicBool,
    /// Set while a [`SharedGroup`](crate::SharedGroup) orders the threads by turns:
    /// then a switch of threads with work in flight is allowed.
    pub(crate) turns: std::sync::atomic::AtomicBool,
    pub(crate) options: Options,
    pub(crate) rank: usize,
    pub(crate) size: usize,
    pub(crate) device: Device,
    /// The communicator; taken (`None`) when a shrink or grow replaced the group.
    pub(crate) comm: RwLock<Option<Communicator>>,
    pub(crate) abort: AbortHandle,
    /// How many shrinks and grows made this group from the first one (0 for it).
    pub(crate) epoch: u64,
    /// Whether this rank came in through a grow (a replacement: it has none of the
    /// state the others built).
    pub(crate) joined_by_grow: bool,
    /// Set when a shrink or grow replaced this group.
    pub(crate) replaced: Mutex<Option<Replacement>>,
    pub(crate) stream: Stream,
    pub(crate) recorder: FlightRecorder,
    /// The next collective's sequence number (the warm-up is #0, users start at #1).
    pub(crate) seq: AtomicU64,
    pub(crate) p2p_seq: Mutex<HashMap<(usize, bool), u64>>,
    /// One-sided operations counted per (peer, operation), as messages are.
    pub(crate) one_sided_seq: Mutex<HashMap<(usize, &'static str), u64>>,
    pub(crate) pending: Mutex<VecDeque<Arc<WorkState>>>,
    pub(crate) refused: Mutex<Option<Refusal>>,
    pub(crate) ready: AtomicBool,
    pub(crate) barrier: Mutex<Option<DeviceBuffer<u8>>>,
    /// The thread inside an issuing call, if any (concurrent use is refused).
    pub(crate) issuing: Mutex<Option<Caller>>,
    /// The thread that issued last (switching threads with work in flight is refused).
    pub(crate) last_issuer: Mutex<Option<Caller>>,
    /// The group's id, shared by its ranks in this process (for dump requests).
    pub(crate) peers_key: Option<[u8; 128]>,
    /// Whether the watchdog runs (it notices remote failures; futures rely on it).
    pub(crate) watched: AtomicBool,
    /// Tells the job's other processes when this group aborts (set by `from_env`).
    pub(crate) sink: OnceLock<Box<dyn FailureSink>>,
    /// The text of the sim's labels around their numbers, per operation and site.
    pub(crate) labels: Mutex<crate::labels::LabelParts>,
}

type Registry = Mutex<HashMap<[u8; 128], Vec<Weak<Inner>>>>;

/// The groups of this process, by id, so that a failing rank can ask its peers here to
/// dump their flight records too.
fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Default::default)
}

impl Inner {
    /// Registers this rank so that peers in this process can ask it to dump.
    pub(crate) fn register(self: &Arc<Inner>) {
        if let Some(key) = self.peers_key {
            let mut r = lock(registry());
            let list = r.entry(key).or_default();
            list.retain(|w| w.strong_count() > 0);
            list.push(Arc::downgrade(self));
        }
    }

    /// Runs `f` on the communicator; `None` once a shrink or grow took it.
    pub(crate) fn with_comm<R>(&self, f: impl FnOnce(&Communicator) -> R) -> Option<R> {
        let c = self.comm.read().unwrap_or_else(|e| e.into_inner());
        c.as_ref().map(f)
    }

    /// The error of a use of the communicator after a shrink or grow took it.
    fn comm_gone(&self, op: &'static str) -> nccl_safe::Error {
        nccl_safe::Error::InvalidUsage {
            op,
            reason: format!(
                "group {} rank {} was replaced by a shrink or grow",
                self.options.name, self.rank
            ),
        }
    }

    /// The error refusing a new operation `op` at `site`, if the group refuses work.
    pub(crate) fn refusal(&self, op: &str, site: &str) -> Option<Error> {
        if let Some(r) = lock(&self.replaced).clone() {
            return Some(Error::Replaced {
                group: self.options.name.clone(),
                rank: self.rank,
                op: op.to_string(),
                call_site: site.to_string(),
                by: r.by,
                epoch: r.epoch,
                size: r.size,
                new_rank: r.new_rank,
            });
        }
        lock(&self.refused).as_ref().map(|r| Error::GroupAborted {
            group: self.options.name.clone(),
            rank: self.rank,
            op: op.to_string(),
            call_site: site.to_string(),
            reason: r.reason.clone(),
        })
    }

    pub(crate) fn timeout_error(&self, w: &WorkState, waited: Duration) -> Error {
        Error::Timeout {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.to_string(),
            seq: w.seq,
            waited,
            call_site: w.call_site.to_string(),
        }
    }

    /// The error of work `w` that failed with `text` (a mismatch when the driver says
    /// so).
    pub(crate) fn failed_error(&self, w: &WorkState, text: String) -> Error {
        if text.contains("mismatch in ") {
            return Error::Mismatch {
                group: self.options.name.clone(),
                rank: self.rank,
                op: w.op.to_string(),
                seq: w.seq,
                call_site: w.call_site.to_string(),
                detail: text,
            };
        }
        Error::Failed {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.to_string(),
            seq: w.seq,
            call_site: w.call_site.to_string(),
            reason: text,
        }
    }

    /// What a hook at `point` is told of work `w` (if any).
    pub(crate) fn hook_event(
        &self,
        point: HookPoint,
        w: Option<&WorkState>,
        reason: Option<String>,
    ) -> HookEvent {
        HookEvent {
            point,
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.map(|w| HookOp {
                op: w.op.to_string(),
                seq: w.seq,
                call_site: w.call_site.to_string(),
                dtype: w.dtype.to_string(),
                count: w.count,
                age: w.enqueued.elapsed(),
            }),
            reason,
        }
    }

    /// Runs the abort hooks (once per group: the caller won the `aborting` flag).
    pub(super) fn abort_hooks(&self, w: Option<&WorkState>, reason: &str) {
        let _ = self.hooks.run(HookPoint::OnAbort, || {
            self.hook_event(HookPoint::OnAbort, w, Some(reason.to_string()))
        });
    }

    /// Whether NCCL has launched `w` (`None`: the group records no launch event for
    /// it); a first sighting is noted in the flight record. A completed operation was
    /// launched; a failed one answers from its event.
    pub(crate) fn observe_launch(&self, w: &WorkState) -> Option<bool> {
        let launch = w.launch.as_ref()?;
        if w.started.load(Ordering::Acquire) {
            return Some(true);
        }
        let seen = matches!(*lock(&w.outcome), Outcome::Done) || launch.query().unwrap_or(false);
        if seen && !w.started.swap(true, Ordering::AcqRel) {
            self.recorder.set_started(w.entry);
        }
        Some(seen)
    }

    /// Looks at one work: settles it when done or failed; `Ok(true)` when done.
    pub(crate) fn observe(&self, w: &WorkState) -> Result<bool> {
        match lock(&w.outcome).clone() {
            Outcome::Done => return Ok(true),
            Outcome::Failed(e) => return Err(e),
            Outcome::Failing => return Ok(false),
            Outcome::Pending => {}
        }
        match w.event.query() {
            Ok(true) => {
                // The event completes even after a failed operation on the sim: the
                // stream's sticky error tells.
                if let Err(e) = self.stream.query() {
                    let err = self.failed_error(w, e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    return Err(err);
                }
                self.check_scan(w);
                if w.settle(Outcome::Done) {
                    self.recorder.set_state(w.entry, State::Completed);
                    let _ = self.hooks.run(HookPoint::AfterCompletion, || {
                        self.hook_event(HookPoint::AfterCompletion, Some(w), None)
                    });
                }
                match &*lock(&w.outcome) {
                    Outcome::Failed(e) => Err(e.clone()),
                    _ => Ok(true),
                }
            }
            Ok(false) => match self.with_comm(|c| c.async_error()).unwrap_or(Ok(None)) {
                Ok(None) => Ok(false),
                Ok(Some(e)) | Err(e) => {
                    let err = self.failed_error(w, e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    Err(err)
                }
            },
            Err(e) => {
                let err = self.failed_error(w, e.to_string());
                self.fail(Some(w), err.clone(), "asynchronous error");
                Err(err)
            }
        }
    }

    /// Whether every rank has joined. Never blocks.
    pub(crate) fn is_ready(&self) -> Result<bool> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(true);
        }
        let ready = self.with_comm(|c| c.is_ready());
        Ok(ready.ok_or_else(|| self.comm_gone("is_ready"))??)
    }

    pub(crate) fn ensure_ready(&self) -> Result<()> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(());
        }
        self.with_comm(|c| c.wait_ready(self.options.timeout))
            .ok_or_else(|| self.comm_gone("wait_ready"))??;
        self.ready.store(true, Ordering::Release);
        Ok(())
    }

    /// Forgets settled and completed works, from the oldest on, stopping at the first
    /// still running: works of one stream complete in order, so this costs O(1)
    /// amortised per operation instead of a scan of every work in flight. The
    /// completed works that are not settled yet are all taken off first, then
    /// settled with the list unlocked (settling may fail the group, which takes the
    /// list's lock and fails what is still listed: a work that completed must not be
    /// among those). Returns how many are left.
    fn prune(&self) -> usize {
        // The first completed work (often the only one: an operation is issued per
        // completion) is kept without allocating a list; any after it go to one.
        let mut first: Option<Arc<WorkState>> = None;
        let mut rest: Vec<Arc<WorkState>> = Vec::new();
        let left = {
            let mut p = lock(&self.pending);
            while let Some(w) = p.front() {
                let settled = !matches!(*lock(&w.outcome), Outcome::Pending);
                if !settled && !matches!(w.event.query(), Ok(true)) {
                    break;
                }
                let w = p.pop_front().expect("front exists");
                if !settled {
                    if first.is_none() {
                        first = Some(w);
                    } else {
                        rest.push(w);
                    }
                }
            }
            p.len()
        };
        if first.is_some() {
            self.settle_done(first.iter().chain(&rest));
        }
        left
    }

    /// Settles works whose event completed, as [`Inner::observe`] would one by one,
    /// with one stream query, one flight-recorder lock and one clock read for all of
    /// them. A stream with an error takes the one-by-one path, which fails them.
    ///
    /// In three passes, so that a waiter woken by the last finds its work's record
    /// completed: the NaN checks of those still pending (a check may read the device,
    /// and a failed one settles its work itself), the record of those still pending
    /// (their operations completed, whoever settles them), then settling, with the
    /// AfterCompletion hooks of those this call settled (another thread may have
    /// settled some first).
    fn settle_done<'a>(&self, done: impl Iterator<Item = &'a Arc<WorkState>> + Clone) {
        if self.stream.query().is_err() {
            for w in done {
                let _ = self.observe(w);
            }
            return;
        }
        let pending = |w: &&Arc<WorkState>| matches!(*lock(&w.outcome), Outcome::Pending);
        for w in done.clone().filter(pending) {
            self.check_scan(w);
        }
        self.recorder
            .set_completed(done.clone().filter(pending).map(|w| w.entry));
        for w in done {
            if w.settle(Outcome::Done) {
                let _ = self.hooks.run(HookPoint::AfterCompletion, || {
                    self.hook_event(HookPoint::AfterCompletion, Some(w), None)
                });
            }
        }
    }

    /// Settles as done the works at the front of the list whose operation completed,
    /// while the stream has no error: before an abort for another rank's failure, so
    /// that what finished (on every rank: the failed one may have died after) is not
    /// reported aborted. Unlike [`Inner::observe`] it never fails a work (that path
    /// waits for the abort's own publication).
    pub(crate) fn settle_completed(&self) {
        if self.stream.query().is_err() {
            return;
        }
        let done: Vec<Arc<WorkState>> = {
            let mut p = lock(&self.pending);
            let mut done = Vec::new();
            while let Some(w) = p.front() {
                let pending = matches!(*lock(&w.outcome), Outcome::Pending);
                if !pending || !matches!(w.event.query(), Ok(true)) {
                    break;
                }
                done.extend(p.pop_front());
            }
            done
        };
        for w in done {
            if w.settle(Outcome::Done) {
                self.recorder.set_state(w.entry, State::Completed);
            }
        }
    }

    /// Operations in flight: issued and not yet complete.
    pub(crate) fn in_flight(&self) -> usize {
        self.prune()
    }

    /// Waits, under the timeout, until fewer than the cap are in flight.
    pub(crate) fn make_room(&self) -> Result<()> {
        if self.prune() < self.options.max_in_flight {
            return Ok(());
        }
        let start = Instant::now();
        loop {
            let oldest = lock(&self.pending).front().cloned();
            if let Some(w) = oldest {
                let left = self.options.timeout.saturating_sub(start.elapsed());
                if left.is_zero() {
                    return Err(Error::InFlightCap {
                        group: self.options.name.clone(),
                        rank: self.rank,
                        in_flight: lock(&self.pending).len(),
                        cap: self.options.max_in_flight,
                        waited: start.elapsed(),
                    });
                }
                {
                    // Woken when the oldest completes (or fails).
                    let o = lock(&w.outcome);
                    if w.still_waiting(&o) {
                        drop(w.wait_changed(o, left.min(Duration::from_millis(50))));
                    }
                }
                let _ = self.observe(&w);
            }
            if self.prune() < self.options.max_in_flight {
                return Ok(());
            }
        }
    }
}
