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
use crate::options::{ErrorPolicy, Options};
use crate::recorder::{Dump, FlightRecorder, State};
use crate::{Error, Result};

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
    Done,
    Failed(Error),
}

pub(crate) struct WorkState {
    pub(crate) op: String,
    pub(crate) seq: u64,
    pub(crate) call_site: String,
    pub(crate) dtype: nccl_safe::DType,
    pub(crate) count: usize,
    /// What the NaN check of its input wrote (taken when the work is seen complete).
    pub(crate) probe: Mutex<Option<nccl_safe::DeviceBuffer<u64>>>,
    pub(crate) entry: u64,
    pub(crate) event: Event,
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
    pub(crate) site: String,
}

/// Set once the first failure of a group has been published (or there was nothing
/// to publish to): other paths that fail the group wait for it before they wake
/// their waiters.
#[derive(Default)]
pub(crate) struct Published {
    done: Mutex<bool>,
    cv: Condvar,
}

impl Published {
    pub(crate) fn set(&self) {
        *lock(&self.done) = true;
        self.cv.notify_all();
    }

    /// Waits at most `limit` for the first publication.
    pub(crate) fn wait(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut done = lock(&self.done);
        while !*done {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            done = self
                .cv
                .wait_timeout(done, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Dumps being written (each on a thread of its own): the group's handle waits for
/// them, bounded, as it goes, so that a program exiting on its error leaves them whole.
#[derive(Default)]
pub(crate) struct Writing {
    count: Mutex<usize>,
    cv: Condvar,
}

/// Counts one dump being written until dropped.
pub(crate) struct WritingOne(Arc<Writing>);

impl Writing {
    pub(crate) fn start(self: &Arc<Self>) -> WritingOne {
        *lock(&self.count) += 1;
        WritingOne(self.clone())
    }

    /// Waits at most `limit` for every dump under way; `false` if some are left.
    pub(crate) fn wait(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut n = lock(&self.count);
        while *n > 0 {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            n = self
                .cv
                .wait_timeout(n, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

impl Drop for WritingOne {
    fn drop(&mut self) {
        *lock(&self.0.count) -= 1;
        self.0.cv.notify_all();
    }
}

/// How long a group's handle waits, as it goes, for dumps being written.
pub(crate) const DUMP_WAIT: Duration = Duration::from_secs(1);

/// How long a timed-out rank's dump thread waits for NCCL's RAS service.
pub(crate) const RAS_DEADLINE: Duration = Duration::from_secs(3);

/// Where a group on `driver` asks NCCL's RAS service after a timeout: on cuda, where
/// NCCL runs it ([`crate::ras::address`]); on the sim, only where `NCCL_RAS_ADDR`
/// names a server (there is no RAS there otherwise).
fn ras_address(driver: nccl_safe::DriverKind) -> Option<String> {
    match driver {
        nccl_safe::DriverKind::Cuda => crate::ras::address(),
        _ => std::env::var_os("NCCL_RAS_ADDR").and_then(|_| crate::ras::address()),
    }
}

/// How long a second failure path waits for the first one's publication.
const PUBLISHED_WAIT: Duration = Duration::from_secs(3);

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
    /// Where NaN checks are read (see `finite`).
    pub(crate) probes: crate::finite::Probes,
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
            op: w.op.clone(),
            seq: w.seq,
            waited,
            call_site: w.call_site.clone(),
        }
    }

    /// The error of work `w` that failed with `text` (a mismatch when the driver says
    /// so).
    pub(crate) fn failed_error(&self, w: &WorkState, text: String) -> Error {
        if text.contains("mismatch in ") {
            return Error::Mismatch {
                group: self.options.name.clone(),
                rank: self.rank,
                op: w.op.clone(),
                seq: w.seq,
                call_site: w.call_site.clone(),
                detail: text,
            };
        }
        Error::Failed {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.clone(),
            seq: w.seq,
            call_site: w.call_site.clone(),
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
                op: w.op.clone(),
                seq: w.seq,
                call_site: w.call_site.clone(),
                dtype: w.dtype.to_string(),
                count: w.count,
                age: w.enqueued.elapsed(),
            }),
            reason,
        }
    }

    /// Runs the abort hooks (once per group: the caller won the `aborting` flag).
    fn abort_hooks(&self, w: Option<&WorkState>, reason: &str) {
        let _ = self.hooks.run(HookPoint::OnAbort, || {
            self.hook_event(HookPoint::OnAbort, w, Some(reason.to_string()))
        });
    }

    /// Looks at one work: settles it when done or failed; `Ok(true)` when done.
    pub(crate) fn observe(&self, w: &WorkState) -> Result<bool> {
        match lock(&w.outcome).clone() {
            Outcome::Done => return Ok(true),
            Outcome::Failed(e) => return Err(e),
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

    /// A failure: the policy first, then the works (their waiters wake), then the
    /// communicator's abort and the dumps in the background.
    pub(crate) fn fail(&self, culprit: Option<&WorkState>, err: Error, why: &str) {
        if let Some(w) = culprit {
            if !matches!(*lock(&w.outcome), Outcome::Pending) {
                return; // already settled: reported once
            }
        }
        let _span = crate::trace::watchdog(&self.options.name, self.rank, why, &err);
        let timeout = matches!(err, Error::Timeout { .. });
        let first_abort = match self.options.on_error {
            ErrorPolicy::Abort => self.refuse(err.to_string()),
            ErrorPolicy::Shrink => self.refuse(format!(
                "{err}; ProcessGroup::shrink on every surviving rank makes the group of the \
                 survivors"
            )),
            // Report keeps the group for a late operation; a failed stream or
            // communicator cannot run anything again (the sim's and CUDA's errors are
            // sticky), so it refuses new work, saying why.
            ErrorPolicy::Report if !timeout => {
                self.refuse(format!(
                    "an operation failed and the communication stream cannot be used again: {err}"
                ));
                false
            }
            ErrorPolicy::Report => false,
        };
        log::error!("{err}");
        // The culprit's record says what happened to it before the record is taken.
        if let Some(w) = culprit {
            let state = if timeout {
                State::TimedOut
            } else {
                State::Failed
            };
            self.recorder.set_state(w.entry, state);
        }
        // The job's store hears of it first, before the dump, before any waiter
        // wakes and before the communicator aborts (which peers see): the first
        // failure published is the root cause, and a program that exits at once on
        // its error has published it.
        let first_abort = first_abort && !self.aborting.swap(true, Ordering::AcqRel);
        if first_abort {
            self.publish(err.to_string(), why, timeout);
        } else {
            // Another path is publishing the group's first failure: its waiters must
            // not wake (and perhaps exit) before that is done.
            self.published.wait(PUBLISHED_WAIT);
        }
        self.dump_asking_ras(&format!("{why}: {err}"), timeout);
        if let Some(w) = culprit.filter(|_| self.hooks.any()) {
            // A hook that aborts the group again must not settle the culprit with
            // its reason: the culprit leaves the pending list before hooks run.
            lock(&self.pending).retain(|p| !std::ptr::eq(Arc::as_ptr(p), w));
        }
        if timeout {
            self.ask_peers_to_dump(&err);
            let _ = self.hooks.run(HookPoint::OnTimeout, || {
                self.hook_event(HookPoint::OnTimeout, culprit, Some(err.to_string()))
            });
        }
        if first_abort {
            self.abort_hooks(culprit, &err.to_string());
        }
        if let Some(w) = culprit {
            w.settle(Outcome::Failed(err.clone()));
        }
        if first_abort {
            self.fail_pending(&err.to_string());
            self.stop_comm_in_background(self.remote_cause());
        }
    }

    /// Publishes this rank's failure through the group's sink (a group of
    /// `from_env`), synchronously: whom it goes back to, if the communicator knows.
    fn publish(&self, reason: String, why: &str, timeout: bool) {
        let Some(sink) = self.sink.get() else {
            self.published.set();
            return;
        };
        let (cause, maybe_echo) = if timeout {
            (None, false)
        } else {
            match self.with_comm(|c| c.async_error()).unwrap_or(Ok(None)) {
                Ok(Some(nccl_safe::Error::Remote { rank, .. })) if rank != self.rank => {
                    (Some(rank), false)
                }
                Ok(Some(nccl_safe::Error::Nccl { code, .. })) => {
                    (None, code.0 == nccl_sys::ncclRemoteError)
                }
                _ => (None, false),
            }
        };
        sink.failed(Failure {
            reason,
            dump: self.snapshot(why),
            cause,
            maybe_echo,
        });
        self.published.set();
    }

    /// The other rank this rank's communicator failed because of, when it names one
    /// (so that peers that see this rank's abort are told whose failure it follows).
    fn remote_cause(&self) -> Option<usize> {
        match self.with_comm(|c| c.async_error()) {
            Some(Ok(Some(nccl_safe::Error::Remote { rank, .. }))) if rank != self.rank => {
                Some(rank)
            }
            _ => None,
        }
    }

    fn abort_comm_in_background(&self) {
        self.abort_comm_after(None, false);
    }

    /// Stops the communicator after a failure, as the policy says: revoked under
    /// [`ErrorPolicy::Shrink`] (so that it can be shrunk), else aborted.
    fn stop_comm_in_background(&self, cause: Option<usize>) {
        let revoke = self.options.on_error == ErrorPolicy::Shrink;
        self.abort_comm_after(cause, revoke);
    }

    /// Aborts (or with `revoke`, revokes) the communicator on a thread of its own;
    /// `cause`: the rank whose failure this follows, when known (the sim then names it
    /// to the peers). A revoke the loaded NCCL lacks is an abort (the group cannot be
    /// shrunk then; the shrink says so).
    fn abort_comm_after(&self, cause: Option<usize>, revoke: bool) {
        let run = move |abort: &AbortHandle| match (cause, revoke) {
            (_, true) => match cause.map_or_else(|| abort.revoke(), |c| abort.revoke_after(c)) {
                // (A group under ErrorPolicy::Shrink is refused where NCCL has no
                // revoke; this is the belt to that.)
                Err(e @ nccl_safe::Error::UnsupportedByNccl { .. }) => {
                    log::error!("revoke: {e}; aborting instead");
                    abort.abort()
                }
                // The communicator stays revoked; the shrink says what NCCL makes of it.
                other => other,
            },
            (Some(c), false) => abort.abort_after(c),
            (None, false) => abort.abort(),
        };
        let abort = self.abort.clone();
        let name = self.options.name.clone();
        let asking_ras = self.asking_ras.clone();
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-abort".into())
            .spawn(move || {
                // A RAS query about this failure reads the communicator's state:
                // aborting it first would take it out of what RAS reports.
                asking_ras.wait(RAS_DEADLINE + Duration::from_millis(500));
                if let Err(e) = run(&abort) {
                    log::error!("group {name}: abort: {e}");
                }
            });
        if spawned.is_err() {
            let _ = run(&self.abort);
        }
    }

    /// The group's handle is dropped while its thread panics, or with operations in
    /// flight that nothing waits for any more (no `Work`, `WorkSet` or future of
    /// theirs is left: the program returned early): not an orderly close. Publishes
    /// it as this rank's failure (peers then stop waiting for operations this rank
    /// will never finish), dumps, fails what is pending and aborts. `false` when
    /// nothing was wrong or the group had failed already.
    pub(crate) fn fail_on_drop(&self) -> bool {
        let panicking = std::thread::panicking();
        let _ = self.in_flight(); // settles what has completed
        let (abandoned, oldest) = {
            let p = lock(&self.pending);
            // Nothing waits for it: never waited on (by a stream or the host), and
            // no handle left (only this list holds it).
            let mut left = p
                .iter()
                .filter(|w| !w.waited.load(Ordering::Acquire) && Arc::strong_count(w) == 1);
            let oldest = left
                .next()
                .map(|w| format!(" (the oldest: {} #{} at {})", w.op, w.seq, w.call_site));
            (oldest.iter().count() + left.count(), oldest)
        };
        if !panicking && abandoned == 0 {
            return false;
        }
        let reason = format!(
            "rank {} dropped its group {}{} with {abandoned} operation(s) in flight that \
             nothing waits for{}",
            self.rank,
            self.options.name,
            if panicking { " while panicking" } else { "" },
            oldest.unwrap_or_default(),
        );
        self.refuse(reason.clone());
        if self.aborting.swap(true, Ordering::AcqRel) {
            return false; // failed and aborted already: published then
        }
        log::error!("{reason}");
        self.publish(reason.clone(), "dropped", false);
        self.dump(&reason);
        self.abort_hooks(None, &reason);
        self.fail_pending(&reason);
        self.abort_comm_in_background();
        true
    }

    /// Refuses new work from now on; `true` the first time.
    pub(crate) fn refuse(&self, reason: String) -> bool {
        let mut r = lock(&self.refused);
        if r.is_some() {
            return false;
        }
        *r = Some(Refusal { reason });
        true
    }

    /// Fails every pending work as aborted (their waiters wake).
    pub(crate) fn fail_pending(&self, reason: &str) {
        let pending: Vec<_> = lock(&self.pending).drain(..).collect();
        for w in pending {
            let aborted = Error::Aborted {
                group: self.options.name.clone(),
                rank: self.rank,
                op: w.op.clone(),
                seq: w.seq,
                call_site: w.call_site.clone(),
                reason: reason.to_string(),
            };
            if w.settle(Outcome::Failed(aborted)) {
                self.recorder.set_state(w.entry, State::Failed);
            }
        }
    }

    /// Aborts the group now (local): refuses new work, fails the pending, aborts the
    /// communicator in the background.
    /// [`ProcessGroup::abort`](crate::ProcessGroup::abort): publishes it as this
    /// rank's failure (a group of `from_env`), dumps, then aborts the group.
    pub(crate) fn abort_on_request(&self, reason: &str) {
        log::error!(
            "group {} rank {}: aborted: {reason}",
            self.options.name,
            self.rank
        );
        let text = format!("rank {} aborted its group on request: {reason}", self.rank);
        self.refuse(reason.to_string());
        if !self.aborting.swap(true, Ordering::AcqRel) {
            self.publish(text.clone(), "aborted on request", false);
            self.dump(&text);
            self.abort_hooks(None, &text);
            self.fail_pending(reason);
            self.abort_comm_in_background();
        } else {
            self.fail_pending(reason);
        }
    }

    /// Aborts the group for another rank's failure (seen through the store):
    /// `cause`, the rank it goes back to.
    pub(crate) fn abort_group(&self, reason: &str, cause: Option<usize>) {
        let _span = crate::trace::watchdog(&self.options.name, self.rank, "abort", &reason);
        self.refuse(reason.to_string());
        let first = !self.aborting.swap(true, Ordering::AcqRel);
        if first {
            self.abort_hooks(None, reason);
        }
        self.fail_pending(reason);
        if first {
            self.published.set(); // nothing of this rank's own to publish
            self.stop_comm_in_background(cause);
        }
    }

    /// Writes the flight record to the dump folder, if one is configured, on a thread
    /// of its own (never waited for), in the group's formats: every JSON dump has a
    /// file of its own; PyTorch's has one per rank.
    pub(crate) fn dump(&self, reason: &str) {
        self.dump_asking_ras(reason, false);
    }

    /// [`Inner::dump`]; with `ask_ras` (an operation timed out), NCCL's RAS service is
    /// then asked what it thinks of the job (bounded by [`RAS_DEADLINE`], still on
    /// the dump thread), and the dump is written again with its verdict.
    pub(crate) fn dump_asking_ras(&self, reason: &str, ask_ras: bool) {
        let Some(dir) = self.options.dump_dir.clone() else {
            return;
        };
        let mut dump = self.snapshot(reason);
        let format = self.options.dump_format;
        let n = format
            .json()
            .then(|| FlightRecorder::next_dump(&self.options.name, self.rank));
        let ras = ask_ras.then(|| ras_address(self.device.driver())).flatten();
        let name = self.options.name.clone();
        let one = self.writing.start();
        let asking = ras.is_some().then(|| self.asking_ras.start());
        let write = move || {
            let write_all = |dump: &Dump| {
                let mut written = Vec::new();
                if let Some(n) = n {
                    written.push(FlightRecorder::dump_to(&dir, dump, n));
                }
                if format.torch() {
                    written.push(dump.write_torch(&dir));
                }
                for w in written {
                    match w {
                        Ok(path) => log::error!(
                            "group {name}: flight recorder dumped to {}",
                            path.display()
                        ),
                        Err(e) => log::error!("group {name}: flight recorder dump failed: {e}"),
                    }
                }
            };
            write_all(&dump);
            // The group's drop waits for the files, not for RAS.
            drop(one);
            if let Some(addr) = ras {
                dump.ras = match crate::ras::query(&addr, RAS_DEADLINE) {
                    Ok(status) => status.verdict(),
                    Err(e) => vec![format!("not asked: {e}")],
                };
                drop(asking);
                for line in &dump.ras {
                    log::error!("group {name}: NCCL RAS: {line}");
                }
                write_all(&dump);
            }
        };
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-dump".into())
            .spawn(write);
        if let Err(e) = spawned {
            log::error!(
                "group {}: cannot start a dump thread: {e}",
                self.options.name
            );
        }
    }

    /// Asks the group's other ranks in this process to dump (their records show what
    /// they had issued when this rank gave up).
    fn ask_peers_to_dump(&self, err: &Error) {
        let Some(key) = self.peers_key else {
            return;
        };
        let peers: Vec<Arc<Inner>> = lock(registry())
            .get(&key)
            .map(|l| l.iter().filter_map(Weak::upgrade).collect())
            .unwrap_or_default();
        for p in peers.iter().filter(|p| p.rank != self.rank) {
            p.dump(&format!("rank {} of the group failed: {err}", self.rank));
        }
    }

    pub(crate) fn snapshot(&self, reason: &str) -> Dump {
        let driver = self.device.driver().to_string();
        let comm_lib = if driver == "sim" {
            "sim".to_string()
        } else {
            match nccl_safe::nccl_version() {
                Ok(v) => format!("nccl {v}"),
                Err(_) => "nccl".to_string(),
            }
        };
        let facts = crate::recorder::GroupFacts {
            name: self.options.name.clone(),
            rank: self.rank,
            size: self.size,
            epoch: self.epoch,
            driver,
            timeout_ms: u64::try_from(self.options.timeout.as_millis()).unwrap_or(u64::MAX),
            comm_lib,
        };
        self.recorder.dump(facts, reason)
    }

    /// The flight record as a dump, also written to the dump folder (if any).
    pub(crate) fn dump_on_request(&self, reason: &str) -> Dump {
        self.dump(reason);
        self.snapshot(reason)
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
    /// amortised per operation instead of a scan of every work in flight. Returns the
    /// completed works that are not settled yet, to be observed once the list is
    /// unlocked (observing may fail the group, which takes the list's lock).
    fn prune_front(p: &mut VecDeque<Arc<WorkState>>) -> Vec<Arc<WorkState>> {
        let mut done = Vec::new();
        while let Some(w) = p.front() {
            let settled = !matches!(*lock(&w.outcome), Outcome::Pending);
            if !settled && !matches!(w.event.query(), Ok(true)) {
                break;
            }
            let w = p.pop_front().expect("front exists");
            if !settled {
                done.push(w);
            }
        }
        done
    }

    /// Settles the works [`Inner::prune_front`] took off the list.
    fn settle_done(&self, done: Vec<Arc<WorkState>>) {
        for w in done {
            let _ = self.observe(&w);
        }
    }

    /// Operations in flight: issued and not yet complete.
    pub(crate) fn in_flight(&self) -> usize {
        let (done, n) = {
            let mut p = lock(&self.pending);
            (Self::prune_front(&mut p), p.len())
        };
        self.settle_done(done);
        n
    }

    /// Waits, under the timeout, until fewer than the cap are in flight.
    pub(crate) fn make_room(&self) -> Result<()> {
        let start = Instant::now();
        loop {
            let (done, oldest) = {
                let mut p = lock(&self.pending);
                let done = Self::prune_front(&mut p);
                let room = p.len() < self.options.max_in_flight;
                (done, (!room).then(|| p.front().cloned()))
            };
            self.settle_done(done);
            let Some(oldest) = oldest else {
                return Ok(());
            };
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
                    if matches!(*o, Outcome::Pending) && !matches!(w.event.query(), Ok(true)) {
                        drop(w.wait_changed(o, left.min(Duration::from_millis(50))));
                    }
                }
                let _ = self.observe(&w);
            }
        }
    }
}
