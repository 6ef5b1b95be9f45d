//! How a group made by [`ProcessGroup::from_env`](crate::ProcessGroup::from_env)
//! shares failures with the job through the rendezvous store (Decision 14).
//!
//! - The job has one failure key, [`FAILED_KEY`]: its value is a [`JobFailure`] in
//!   JSON, and the first one set stays. The first rank whose group fails (timeout,
//!   asynchronous error, mismatch, an abort on request, a drop while panicking or
//!   with work in flight) sets it with compare-and-set at once, before its dump,
//!   before its waiters wake and before its communicator aborts (which peers see),
//!   then writes its flight record to [`dump_key`]. A record names the rank the
//!   failure goes back to when the communicator knows it (`cause`: on the sim, the
//!   rank that died or aborted first). Only a remote error that names no rank (NCCL's)
//!   waits 200 ms first, as the echo of another rank's failure whose own record should
//!   win. With a TCP store, each rank also registers the key with the server for the
//!   case its connection drops without an orderly close: a killed, crashed or
//!   early-exiting process is published by the server itself, unless a failure is
//!   published already.
//! - A thread per group reads the key every watchdog interval (100 ms by default).
//!   When another rank's failure appears, it takes this rank's flight record, writes
//!   it to the store (so that `nccl-run` can print one hang report for the job),
//!   closes its connection, and then aborts the group with a reason naming that rank
//!   (pending works fail with it, new ones are refused).
//! - A rank that has published or seen a failure closes its connection in an orderly
//!   way, so that its own exit later does not overwrite the culprit. Dropping the
//!   group closes it too; the rank hosting the store keeps serving until the other
//!   ranks have left (at most [`HOST_GRACE`]).
//!
//! - Without `nccl-run` (under `srun`, `mpirun`, torchrun), rank 0 prints the job's
//!   one hang report itself: after the failure, on its link thread, it reads every
//!   rank's flight record from the store (over a connection of its own, as its
//!   registered one is closed; waiting at most [`REPORT_WAIT`] for records that are
//!   still to come, but not for ranks whose connection dropped), and writes the
//!   merged report to standard error in one write, each line starting
//!   `nccl-rs: hang report: `, after a first line, written at once, that names the
//!   first failure. Then it sets a key
//!   that says so. The other ranks, once their record is in the store, wait for that
//!   key (bounded: rank 0's waits and a second) before their failure reaches their program: a launcher that
//!   ends the job as soon as one rank exits (`srun -K`, torchrun, mpirun) would
//!   otherwise cut the report off. Under `nccl-run` the launcher prints it instead.
//!
//! A lost store connection stops the watching (logged): a rank whose store host is
//! gone still has its own timeouts. A file store has no disconnect registration, so
//! there a dead process is noticed only through the timeouts of the others.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::recorder::Dump;
use crate::state::{Failure, FailureSink, Inner, JobStore, lock};
use crate::store::{Store, StoreError, TcpStore, TcpStoreServer};

/// How long a group's failure waits for its publication before its waiters wake.
const PUBLISH_WAIT: Duration = Duration::from_secs(2);
/// The longest one wait of the watching thread on the failure key lasts, on a store
/// that watches without polling (it ends at once when the key is set, or when
/// interrupted).
const WATCH_ROUND: Duration = Duration::from_secs(600);
/// How often stopping the watching thread nudges its wait again.
const NUDGE_AGAIN: Duration = Duration::from_millis(50);

/// How long a remote failure that names no rank waits before it is published.
const ECHO_DELAY: Duration = Duration::from_millis(200);

/// The job-wide key holding the first failure, a [`JobFailure`] in JSON.
pub const FAILED_KEY: &str = "nccl-rs/failed";

/// How long rank 0 waits for the other ranks' flight records before it prints the
/// hang report with those it has (a killed rank never writes one).
pub const REPORT_WAIT: Duration = Duration::from_secs(3);

/// What a rank other than 0 allows, beyond rank 0's own waits, for rank 0's hang
/// report before its failure reaches its program.
const AWAIT_SPARE: Duration = Duration::from_secs(1);

/// How long the rank hosting the store keeps serving, when its group is dropped, for
/// the other ranks to leave.
pub const HOST_GRACE: Duration = Duration::from_secs(5);

/// The store key of `rank`'s flight record (a [`Dump`] in JSON) for the group whose
/// keys start with `prefix`.
pub fn dump_key(prefix: &str, rank: usize) -> String {
    format!("{prefix}/dump/{rank}")
}

/// Writes `text` to standard error in one write (other output cannot come between
/// its lines), ignoring errors.
pub(crate) fn eprint_all(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// The key rank 0 sets once it has printed the hang report of the group whose keys
/// start with `prefix`; the other ranks wait for it (bounded) before their failure
/// reaches their program.
fn reported_key(prefix: &str) -> String {
    format!("{prefix}/reported")
}

/// The key the TCP store's server sets when `rank`'s connection drops without an
/// orderly close: that rank will never write its flight record.
pub(crate) fn gone_key(prefix: &str, rank: usize) -> String {
    format!("{prefix}/gone/{rank}")
}

/// The job's hang report, from the flight records its ranks wrote to the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobReport {
    /// The merged report ([`crate::hang_report`] of the records found); a line saying
    /// that nothing is pending when the records show nothing stuck.
    pub lines: Vec<String>,
    /// How many ranks' records were found.
    pub records: usize,
    /// The ranks whose record never came (a killed rank's never does).
    pub missing: Vec<usize>,
}

impl JobReport {
    /// Reads the records of the `size` ranks of the group whose keys start with
    /// `prefix` ([`dump_key`]), waiting at most `wait` for records still to come, and
    /// merges them.
    pub fn read(store: &dyn Store, prefix: &str, size: usize, wait: Duration) -> JobReport {
        let keys: Vec<String> = (0..size).map(|r| dump_key(prefix, r)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let _ = store.wait(&refs, wait);
        Self::merge(store, &keys)
    }

    /// Like [`JobReport::read`], but waits only for the ranks for which `gone` says
    /// `false`: a rank whose process has ended without a record (killed) never writes
    /// one, and waiting for it would only delay the report. Records of gone ranks
    /// that are there are read all the same. `gone` is asked again as time passes.
    pub fn read_waiting_for_live(
        store: &dyn Store,
        prefix: &str,
        size: usize,
        wait: Duration,
        gone: &dyn Fn(usize) -> bool,
    ) -> JobReport {
        let keys: Vec<String> = (0..size).map(|r| dump_key(prefix, r)).collect();
        let deadline = Instant::now() + wait;
        let mut have = vec![false; size];
        loop {
            for (r, key) in keys.iter().enumerate() {
                if !have[r] {
                    have[r] = matches!(store.get(key), Ok(Some(_)));
                }
            }
            let waiting = (0..size).any(|r| !have[r] && !gone(r));
            if !waiting || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Self::merge(store, &keys)
    }

    fn merge(store: &dyn Store, keys: &[String]) -> JobReport {
        let mut dumps = Vec::new();
        let mut missing = Vec::new();
        for (rank, key) in keys.iter().enumerate() {
            match store
                .get(key)
                .ok()
                .flatten()
                .map(|b| serde_json::from_slice::<Dump>(&b))
            {
                Some(Ok(d)) => dumps.push(d),
                _ => missing.push(rank),
            }
        }
        let mut lines = crate::report::hang_report(&dumps);
        if lines.is_empty() && !dumps.is_empty() {
            lines.push(format!(
                "nothing pending in {} flight record(s)",
                dumps.len()
            ));
        }
        JobReport {
            lines,
            records: dumps.len(),
            missing,
        }
    }
}

/// A failure as published under [`FAILED_KEY`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobFailure {
    /// The rank that failed.
    pub rank: usize,
    /// Its process id.
    pub pid: u32,
    /// The group's name.
    pub group: String,
    /// The group's key prefix in the store (its flight records are under
    /// [`dump_key`]).
    pub prefix: String,
    /// The group's number of ranks.
    pub size: usize,
    /// What happened.
    pub reason: String,
    /// The rank whose failure this one goes back to, when it is another rank's and
    /// known (on the sim: the rank that died, or aborted first); `None` when the
    /// failure is `rank`'s own or its origin is unknown.
    #[serde(default)]
    pub cause: Option<usize>,
    /// Set in the record the store's server writes for a rank whose connection
    /// dropped without an orderly close (killed, crashed, exited early): that rank
    /// wrote no flight record, and never will.
    #[serde(default)]
    pub exited: bool,
    /// The group's epoch (shrinks and grows since its first): a group under
    /// [`ErrorPolicy::Shrink`](crate::ErrorPolicy::Shrink) publishes each epoch's
    /// first failure under [`epoch_failed_key`], not [`FAILED_KEY`].
    #[serde(default)]
    pub epoch: u64,
}

/// The job-wide key that says its groups heal (set by every group under
/// [`ErrorPolicy::Shrink`](crate::ErrorPolicy::Shrink) made by `from_env`):
/// `nccl-run` then lets the other ranks go on when one dies, and restarts it with
/// `--max-restarts`.
pub const HEALS_KEY: &str = "nccl-rs/heals";

/// The key of the first failure of the epoch whose keys start with `prefix`, for a
/// group that heals (the job's [`FAILED_KEY`] is never set by it).
pub fn epoch_failed_key(prefix: &str) -> String {
    format!("{prefix}/failed")
}

impl JobFailure {
    /// Parses a value of [`FAILED_KEY`].
    ///
    /// # Errors
    ///
    /// The JSON error's text, when the value is not a failure record.
    pub fn parse(bytes: &[u8]) -> Result<JobFailure, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("not a failure record: {e}"))
    }

    fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The rank to blame: [`JobFailure::cause`] when known, else [`JobFailure::rank`].
    pub fn origin(&self) -> usize {
        self.cause.unwrap_or(self.rank)
    }

    /// One line naming the rank to blame first: `rank 2 failed, as rank 0 (pid N)
    /// reported: ...` when the record is another rank's report of it, else
    /// `rank 2 (pid N) failed: ...`.
    pub fn describe(&self) -> String {
        match self.cause {
            Some(c) if c != self.rank => format!(
                "rank {c} failed, as rank {} (pid {}) reported: {}",
                self.rank, self.pid, self.reason
            ),
            _ => format!(
                "rank {} (pid {}) failed: {}",
                self.rank, self.pid, self.reason
            ),
        }
    }
}

/// The state the watching thread and the group share.
struct Shared {
    store: Arc<dyn Store>,
    tcp: Option<Arc<TcpStore>>,
    /// What the watching thread waits on: a TCP store's second connection of its own
    /// (so that its long wait never holds up this rank's other requests, nor theirs
    /// it, and breaking it sets no disconnect record), else the store itself.
    watcher: Arc<dyn Store>,
    /// That second connection, when there is one.
    watcher_tcp: Option<Arc<TcpStore>>,
    /// The store's address (for errors).
    addr: String,
    /// The keys of the group's first epoch start with this.
    base: String,
    /// The key of the failure this group publishes and watches: [`FAILED_KEY`], or
    /// for a group that heals its epoch's ([`epoch_failed_key`]).
    failed_key: String,
    /// Whether the group heals (`ErrorPolicy::Shrink`): a failure ends its epoch, not
    /// the job. It keeps its connection for the shrink, and prints no report.
    heals: bool,
    me: JobFailure,
    interval: Duration,
    /// Whether this rank prints the job's hang report (rank 0, not under `nccl-run`).
    report: bool,
    /// Whether this rank waits for rank 0's report before its failure reaches its
    /// program (the others, not under `nccl-run`): a launcher that ends the job when
    /// the first rank exits (`srun -K`, torchrun) would cut the report off.
    await_report: bool,
    /// This rank's own failure was published: the link thread prints the report.
    own: Mutex<bool>,
    /// A failure of this group was dealt with: its own published, or another rank's
    /// seen (its record written); a later own failure is then an echo and stays local.
    handled: AtomicBool,
    /// The hang report was printed (once).
    reported: AtomicBool,
    /// This rank's flight record is in the store (after a failure was handled).
    recorded: Mutex<bool>,
    recorded_cv: Condvar,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// The link of one group to the job's store; lives as long as the group.
pub(crate) struct Link {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The store this rank hosts, handed over to the next epoch's link.
    server: Mutex<Option<TcpStoreServer>>,
}

/// Where a link's group is in the job's store.
pub(crate) struct Place {
    /// The store's address (for errors).
    pub(crate) addr: String,
    /// The keys of the group's first epoch start with this.
    pub(crate) base: String,
    /// The group's epoch.
    pub(crate) epoch: u64,
}

impl Link {
    /// Registers the disconnect record (TCP), starts watching, and installs the link
    /// in `inner` (its failures are published from now on).
    pub(crate) fn attach(
        inner: &Arc<Inner>,
        store: Arc<dyn Store>,
        tcp: Option<Arc<TcpStore>>,
        server: Option<TcpStoreServer>,
        place: Place,
        report: bool,
    ) -> crate::Result<()> {
        let heals = inner.options.on_error == crate::ErrorPolicy::Shrink;
        let prefix = crate::state::epoch_prefix(&place.base, place.epoch);
        let failed_key = if heals {
            epoch_failed_key(&prefix)
        } else {
            FAILED_KEY.to_string()
        };
        let me = JobFailure {
            rank: inner.rank,
            pid: std::process::id(),
            group: inner.options.name.clone(),
            prefix,
            size: inner.size,
            reason: "its process exited without closing its group (killed, crashed, or \
                     exited early)"
                .into(),
            cause: None,
            exited: true,
            epoch: place.epoch,
        };
        let store_err = |error| crate::Error::Store {
            addr: place.addr.clone(),
            error,
        };
        if heals {
            store
                .set(HEALS_KEY, inner.options.name.as_bytes())
                .map_err(store_err)?;
        }
        if let Some(tcp) = &tcp {
            let gone = gone_key(&me.prefix, me.rank);
            tcp.on_disconnect_create(&failed_key, &me.to_json())
                .and_then(|()| tcp.on_disconnect_create(&gone, b"gone"))
                .map_err(store_err)?;
        }
        // A group that heals prints no report (its failures end an epoch, not the
        // job), and nobody waits for one.
        let report = report && !heals;
        let watcher_tcp = tcp.as_ref().and_then(|t| {
            TcpStore::connect(t.addr(), t.options().clone())
                .map_err(|e| {
                    log::warn!(
                        "group {} rank {}: no second connection to the job's store for \
                         watching failures ({e}); the first one is shared",
                        inner.options.name,
                        inner.rank
                    );
                })
                .ok()
                .map(Arc::new)
        });
        let watcher: Arc<dyn Store> = match &watcher_tcp {
            Some(w) => w.clone(),
            None => store.clone(),
        };
        let shared = Arc::new(Shared {
            store,
            tcp,
            watcher,
            watcher_tcp,
            addr: place.addr,
            base: place.base,
            failed_key,
            heals,
            me,
            interval: inner.options.watchdog_interval,
            report: report && inner.rank == 0,
            await_report: report && inner.rank != 0,
            own: Mutex::new(false),
            handled: AtomicBool::new(false),
            reported: AtomicBool::new(false),
            recorded: Mutex::new(false),
            recorded_cv: Condvar::new(),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let weak = Arc::downgrade(inner);
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("nccl-rs-link-{}", inner.options.name))
                .spawn(move || shared.watch(&weak))
                .ok()
        };
        let link = Link {
            shared,
            thread: Mutex::new(thread),
            server: Mutex::new(server),
        };
        let _ = inner.sink.set(Box::new(link));
        Ok(())
    }
}

impl FailureSink for Link {
    fn failed(&self, failure: Failure) {
        if self.shared.handled.swap(true, Ordering::AcqRel) {
            // Another rank's failure was seen first: this is its echo. Its handling
            // writes this rank's record; wait for that (bounded), as the program may
            // exit as soon as its waiter wakes.
            self.shared.wait_recorded(PUBLISH_WAIT);
            return;
        }
        // Published on a thread of its own, waited for at most PUBLISH_WAIT: at once
        // with a live store, and never longer than that with a stalled one (whose
        // requests time out only after the store's request timeout).
        let shared = self.shared.clone();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let publish = move || {
            shared.publish_own(failure);
            shared.await_report();
            // Its own exit must not overwrite the record: an orderly close withdraws
            // the disconnect registration. (A group that heals keeps it for the
            // shrink: its records are this epoch's, set only if absent.)
            if !shared.heals {
                shared.close();
            }
            shared.set_recorded();
            *lock(&shared.own) = true;
            let _s = lock(&shared.stop);
            shared.wake.notify_all();
            let _ = done_tx.send(());
        };
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-publish".into())
            .spawn(publish);
        match spawned {
            Ok(_) => {
                let wait = if self.shared.await_report {
                    PUBLISH_WAIT + self.shared.report_patience()
                } else {
                    PUBLISH_WAIT
                };
                if done_rx.recv_timeout(wait).is_err() {
                    log::error!(
                        "rank {}: publishing its failure takes over {PUBLISH_WAIT:?} (the \
                         store is slow or stalled); going on while it finishes",
                        self.shared.me.rank
                    );
                }
            }
            Err(e) => log::error!(
                "rank {}: cannot publish its failure: {e}",
                self.shared.me.rank
            ),
        }
    }

    /// Stops the watching thread and waits for it (it may be printing the report),
    /// then publishes and reports a failure it left. Called when the group's handle
    /// is dropped, before its last reference goes, so that the program cannot exit
    /// (or drop the store it hosts) before the report; bounded by the store's
    /// timeouts and [`REPORT_WAIT`].
    fn finish(&self) {
        self.stop_watching();
        if self.shared.handle_own() {
            return;
        }
        self.shared.close();
    }

    fn job_store(&self) -> Option<JobStore> {
        Some(JobStore {
            store: self.shared.store.clone(),
            tcp: self.shared.tcp.clone(),
            addr: self.shared.addr.clone(),
            base: self.shared.base.clone(),
            report: self.shared.report || self.shared.await_report,
        })
    }

    fn retire(&self) -> Option<TcpStoreServer> {
        self.stop_watching();
        self.shared.close();
        lock(&self.server).take()
    }
}

impl Link {
    /// Stops the watching thread and waits for it.
    fn stop_watching(&self) {
        *lock(&self.shared.stop) = true;
        self.shared.wake.notify_all();
        let thread = lock(&self.thread).take();
        if let Some(h) = thread {
            // The last reference may go on the link's own thread (it holds the group
            // briefly); it cannot wait for itself.
            if h.thread().id() != std::thread::current().id() {
                let store = &self.shared.watcher;
                if store.watches_without_polling() {
                    // Its wait on the store ends when interrupted; an interruption just
                    // before the wait began is lost, so interrupt until it is done. A
                    // TCP store that answers nothing for its request timeout is gone
                    // (frozen, or cut off): its connection is broken, as any request
                    // without a reply breaks it, and the wait ends with it.
                    let begun = Instant::now();
                    let patience = self
                        .shared
                        .watcher_tcp
                        .as_ref()
                        .map(|t| t.options().request_timeout);
                    let mut nudged: Option<Instant> = None;
                    let mut broken = false;
                    while !h.is_finished() {
                        if let (Some(tcp), Some(p), false) =
                            (&self.shared.watcher_tcp, patience, broken)
                        {
                            if begun.elapsed() >= p {
                                tcp.break_connection();
                                broken = true;
                            }
                        }
                        if nudged.is_none_or(|t| t.elapsed() >= NUDGE_AGAIN) {
                            store.interrupt_watch();
                            nudged = Some(Instant::now());
                        }
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
                let _ = h.join();
            }
        }
    }
}

impl Shared {
    /// The watching loop; ends on stop, after a failure, or when the store is lost.
    fn watch(&self, group: &Weak<Inner>) {
        loop {
            {
                let stop = lock(&self.stop);
                if *stop && !*lock(&self.own) {
                    return; // Link::finish prints what is left
                }
                // A store that can is watched by a wait on the failure key (below),
                // which costs it nothing while it lasts; other stores are polled.
                if !self.watcher.watches_without_polling() && !*lock(&self.own) {
                    let (stop, _) = self
                        .wake
                        .wait_timeout(stop, self.interval)
                        .unwrap_or_else(|e| e.into_inner());
                    if *stop && !*lock(&self.own) {
                        return;
                    }
                }
            }
            if self.handle_own() {
                return;
            }
            let record = if self.watcher.watches_without_polling() {
                // One wait that returns the record once it is set.
                match self.watcher.watch_get(&self.failed_key, WATCH_ROUND) {
                    // Cut short (a request of this process, or the stop), or a round
                    // without news: look at the stop and this rank's own failure.
                    Ok(None) => continue,
                    other => other,
                }
            } else {
                self.store.get(&self.failed_key)
            };
            match record {
                Ok(None) => {}
                Ok(Some(bytes)) => {
                    let (other, origin) = match JobFailure::parse(&bytes) {
                        Ok(f) if f.pid == self.me.pid && f.rank == self.me.rank => {
                            // This rank's own record: its publication ends this loop
                            // (`handle_own`) once it is done; until then, sleep.
                            let stop = lock(&self.stop);
                            if !*stop && !*lock(&self.own) {
                                let _ = self.wake.wait_timeout(stop, self.interval);
                            }
                            continue;
                        }
                        Ok(f) => (f.describe(), Some(f.origin())),
                        Err(e) => (format!("a rank failed ({e})"), None),
                    };
                    let Some(inner) = group.upgrade() else {
                        self.close();
                        return;
                    };
                    if self.handled.swap(true, Ordering::AcqRel) {
                        // This rank's own failure was published meanwhile.
                        self.handle_own();
                        return;
                    }
                    // The record is taken before the abort changes it, and written,
                    // and this rank's disconnect record withdrawn, before the abort
                    // wakes the program (which may exit at once).
                    let why = format!("another rank failed: {other}");
                    let dump = inner.snapshot(&why);
                    self.put_dump(&dump);
                    self.await_report();
                    if !self.heals {
                        self.close();
                    }
                    self.set_recorded();
                    inner.dump(&why);
                    inner.abort_group(&other, origin);
                    drop(inner);
                    self.print_report();
                    return;
                }
                Err(_) if self.handled.load(Ordering::Acquire) => {
                    // This rank's own failure closed the connection meanwhile.
                    self.handle_own();
                    return;
                }
                Err(e) => {
                    self.lost_store(&e);
                    return;
                }
            }
        }
    }

    fn lost_store(&self, e: &StoreError) {
        log::warn!(
            "group {} rank {}: lost the job's store ({e}); failures of other ranks are no \
             longer seen here",
            self.me.group,
            self.me.rank
        );
    }

    fn set_recorded(&self) {
        *lock(&self.recorded) = true;
        self.recorded_cv.notify_all();
    }

    /// Waits at most `limit` for this rank's record to be in the store.
    fn wait_recorded(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut done = lock(&self.recorded);
        while !*done {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            done = self
                .recorded_cv
                .wait_timeout(done, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// After this rank's own failure was published: prints the report (rank 0);
    /// `true` if there was one.
    fn handle_own(&self) -> bool {
        if !std::mem::take(&mut *lock(&self.own)) {
            return false;
        }
        self.print_report();
        true
    }

    /// Sets the failure key unless a failure is there already, then writes this
    /// rank's flight record. A remote error that names no rank may be the echo of
    /// another rank's failure: it waits [`ECHO_DELAY`] first, so that the root cause,
    /// published at once, wins.
    fn publish_own(&self, failure: Failure) {
        if failure.maybe_echo {
            std::thread::sleep(ECHO_DELAY);
        }
        let record = JobFailure {
            reason: failure.reason,
            cause: failure.cause,
            exited: false,
            ..self.me.clone()
        };
        match self
            .store
            .compare_set(&self.failed_key, None, &record.to_json())
        {
            Ok(_) => {}
            Err(e) => log::error!("rank {}: could not publish its failure: {e}", self.me.rank),
        }
        self.put_dump(&failure.dump);
    }

    /// Waits, at most [`AWAIT_REPORT`], for rank 0 to say it printed the hang report
    /// (when [`Shared::await_report`]); a store that is gone (rank 0 with it) ends
    /// the wait at once.
    fn await_report(&self) {
        if !self.await_report {
            return;
        }
        let key = reported_key(&self.me.prefix);
        if let Err(e) = self.store.wait(&[&key], self.report_patience()) {
            log::debug!("rank {}: no hang report from rank 0: {e}", self.me.rank);
        }
    }

    /// How long a rank waits for rank 0's report: what rank 0 may take to see the
    /// failure (a watchdog interval, the echo delay), to connect afresh and to wait
    /// for the records ([`REPORT_WAIT`]), with a second to spare.
    fn report_patience(&self) -> Duration {
        REPORT_WAIT + self.interval + ECHO_DELAY + AWAIT_SPARE
    }

    fn put_dump(&self, dump: &Dump) {
        let key = dump_key(&self.me.prefix, self.me.rank);
        match serde_json::to_vec(dump) {
            Ok(json) => {
                if let Err(e) = self.store.set(&key, &json) {
                    log::error!(
                        "rank {}: could not store its flight record: {e}",
                        self.me.rank
                    );
                }
            }
            Err(e) => log::error!("rank {}: flight record: {e}", self.me.rank),
        }
    }

    /// Rank 0's hang report of the job (when [`Shared::report`]): every rank's flight
    /// record as far as they arrive within [`REPORT_WAIT`], merged, on standard error.
    fn print_report(&self) {
        if !self.report || self.reported.swap(true, Ordering::AcqRel) {
            return;
        }
        // The registered connection is closed (so that this process's exit cannot
        // overwrite the culprit): a TCP store is read over a new one.
        let fresh = match &self.tcp {
            Some(tcp) => {
                let opts = tcp
                    .options()
                    .clone()
                    .connect_timeout(REPORT_WAIT)
                    .request_timeout(REPORT_WAIT);
                match TcpStore::connect(tcp.addr(), opts) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        eprintln!("nccl-rs: hang report: cannot read the flight records: {e}");
                        return;
                    }
                }
            }
            None => None,
        };
        let store: &dyn Store = match &fresh {
            Some(s) => s,
            None => &*self.store,
        };
        let first = store
            .get(FAILED_KEY)
            .ok()
            .flatten()
            .and_then(|b| JobFailure::parse(&b).ok())
            .filter(|f| f.prefix == self.me.prefix);
        // Said at once: a launcher may end the job any moment now (`srun -K` ends it
        // about 100 ms after a task dies), and this line names the culprit.
        if let Some(f) = &first {
            eprint_all(&format!(
                "nccl-rs: hang report: first failure: {}\n",
                f.describe()
            ));
        }
        // A rank the store saw die never writes its record: not waited for.
        let dead = first.as_ref().filter(|f| f.exited).map(|f| f.rank);
        // Nor does one whose connection dropped.
        let gone = |r: usize| {
            Some(r) == dead || matches!(store.get(&gone_key(&self.me.prefix, r)), Ok(Some(_)))
        };
        let report = JobReport::read_waiting_for_live(
            store,
            &self.me.prefix,
            self.me.size,
            REPORT_WAIT,
            &gone,
        );
        // One write, so that lines of other ranks' output cannot come in between.
        let mut text = String::new();
        for l in &report.lines {
            text.push_str(&format!("nccl-rs: hang report: {l}\n"));
        }
        if !report.missing.is_empty() {
            let missing: Vec<String> = report.missing.iter().map(|r| r.to_string()).collect();
            text.push_str(&format!(
                "nccl-rs: hang report: no flight record from rank(s) {} (gone, or none within \
                 {:?})\n",
                missing.join(","),
                REPORT_WAIT
            ));
        }
        eprint_all(&text);
        // The other ranks may go on (and exit) now.
        if let Err(e) = store.set(&reported_key(&self.me.prefix), b"1") {
            log::debug!("rank 0: could not say the report is out: {e}");
        }
        if let Some(s) = &fresh {
            let _ = s.close();
        }
    }

    fn close(&self) {
        if let Some(tcp) = &self.tcp {
            let _ = tcp.close();
        }
        if let Some(w) = &self.watcher_tcp {
            let _ = w.close();
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Usually done already by the group's handle; a failure recorded since (the
        // watchdog runs until the group's last reference goes) is published here.
        self.finish();
        if let Some(server) = lock(&self.server).take() {
            let start = Instant::now();
            while server.connections() > 0 && start.elapsed() < HOST_GRACE {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}
