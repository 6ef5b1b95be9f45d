//! Process groups, work handles and the watchdog.

use std::collections::{HashMap, VecDeque};
use std::panic::Location;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nccl_safe::{
    AbortHandle, AsDeviceView, AsDeviceViewMut, Communicator, Config, DType, DataType, Device,
    DeviceBuffer, DeviceView, DeviceViewMut, Event, ReduceOp, Stream, StreamOptions, UniqueId,
};

use crate::recorder::{Dump, Entry, FlightRecorder, State, now_ms};
use crate::{Error, Result};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How group creation waits for the other ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitWait {
    /// Return once every rank has joined (within the timeout).
    Block,
    /// Return at once; the group becomes usable when every rank has joined (the first
    /// operation waits for that, within the timeout).
    Return,
}

/// What the watchdog does when an operation times out or fails asynchronously.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Abort the communicator (local), fail every pending operation, refuse new ones.
    Abort,
    /// Fail the operation concerned and record it; leave the communicator alone.
    Report,
}

/// Settings of a [`ProcessGroup`].
#[derive(Clone, Debug)]
pub struct Options {
    name: String,
    timeout: Duration,
    init_wait: InitWait,
    eager_connect: bool,
    p2p: bool,
    on_error: ErrorPolicy,
    max_in_flight: usize,
    watchdog_interval: Duration,
    dump_dir: Option<PathBuf>,
    recorder_capacity: usize,
}

/// Builder methods that set one field of [`Options`].
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Options {
                self.$name = value;
                self
            }
        )*
    };
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// Defaults: name `default`, timeout 10 min, blocking init, eager connection,
    /// abort on error, 1024 operations in flight, watchdog every 100 ms, dumps to
    /// `NCCL_RS_TRACE_DIR` when set, 2000 recorder entries.
    pub fn new() -> Options {
        Options {
            name: "default".into(),
            timeout: Duration::from_secs(600),
            init_wait: InitWait::Block,
            eager_connect: true,
            p2p: false,
            on_error: ErrorPolicy::Abort,
            max_in_flight: 1024,
            watchdog_interval: Duration::from_millis(100),
            dump_dir: std::env::var_os("NCCL_RS_TRACE_DIR").map(PathBuf::from),
            recorder_capacity: 2000,
        }
    }

    /// The group's name (in errors, logs and dumps).
    pub fn name(mut self, name: &str) -> Options {
        self.name = name.to_string();
        self
    }

    setters! {
        /// The default timeout: of init, of host-waits without their own, and the age
        /// at which the watchdog declares an operation hung.
        timeout: Duration;
        /// How creation waits for the other ranks.
        init_wait: InitWait;
        /// Connect peers at creation when NCCL would connect lazily (Decision 6).
        eager_connect: bool;
        /// Also connect every peer for point-to-point at creation.
        p2p: bool;
        /// What to do on a timeout or an asynchronous error.
        on_error: ErrorPolicy;
        /// How often the watchdog looks at pending operations.
        watchdog_interval: Duration;
        /// Entries the flight recorder keeps (pending ones are never evicted).
        recorder_capacity: usize;
    }

    /// How many operations may be in flight before a new call waits for room (at most
    /// the timeout). GPUs stall the host invisibly past about a thousand pending
    /// launches; this cap makes the wait explicit and bounded.
    pub fn max_in_flight(mut self, cap: usize) -> Options {
        self.max_in_flight = cap.max(1);
        self
    }

    /// Where the flight recorder is dumped on a timeout (overrides
    /// `NCCL_RS_TRACE_DIR`).
    pub fn dump_dir(mut self, dir: impl Into<PathBuf>) -> Options {
        self.dump_dir = Some(dir.into());
        self
    }
}

#[derive(Clone, Debug)]
enum Outcome {
    Pending,
    Done,
    Failed(Error),
}

struct WorkState {
    op: String,
    seq: u64,
    call_site: String,
    entry: u64,
    event: Event,
    enqueued: Instant,
    outcome: Mutex<Outcome>,
    changed: Condvar,
}

impl WorkState {
    fn settle(&self, outcome: Outcome) -> bool {
        let mut o = lock(&self.outcome);
        if matches!(*o, Outcome::Pending) {
            *o = outcome;
            self.changed.notify_all();
            true
        } else {
            false
        }
    }
}

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
    state: Arc<WorkState>,
    group: Arc<Inner>,
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
        &self.state.op
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
        Ok(())
    }

    /// Blocks until the operation is done, fails, or `timeout` passes. A timeout is
    /// reported with the operation, its sequence number and call site, recorded,
    /// dumped, and handled by the group's error policy.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`], [`Error::Aborted`], [`Error::Failed`].
    pub fn wait_host(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.group.observe(&self.state)? {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                let err = self.group.timeout_error(&self.state, timeout);
                self.group
                    .fail(Some(&self.state), err.clone(), "host-wait timed out");
                return Err(err);
            }
            let slice = (deadline - now).min(Duration::from_millis(5));
            let o = lock(&self.state.outcome);
            if matches!(*o, Outcome::Pending) {
                let _ = self.state.changed.wait_timeout(o, slice);
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
        let deadline = Instant::now() + timeout;
        for w in &self.works {
            w.wait_host(deadline.saturating_duration_since(Instant::now()))?;
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

struct Inner {
    options: Options,
    rank: usize,
    size: usize,
    device: Device,
    comm: Communicator,
    abort: AbortHandle,
    stream: Stream,
    recorder: FlightRecorder,
    seq: AtomicU64,
    p2p_seq: Mutex<HashMap<(usize, bool), u64>>,
    pending: Mutex<VecDeque<Arc<WorkState>>>,
    aborted: Mutex<Option<String>>,
    ready: AtomicBool,
    barrier: Mutex<Option<DeviceBuffer<u8>>>,
}

impl Inner {
    fn group_aborted(&self) -> Option<Error> {
        lock(&self.aborted)
            .as_ref()
            .map(|reason| Error::GroupAborted {
                group: self.options.name.clone(),
                rank: self.rank,
                reason: reason.clone(),
            })
    }

    fn timeout_error(&self, w: &WorkState, waited: Duration) -> Error {
        Error::Timeout {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.clone(),
            seq: w.seq,
            waited,
            call_site: w.call_site.clone(),
        }
    }

    /// Looks at one work: settles it when done or failed; `Ok(true)` when done.
    fn observe(&self, w: &WorkState) -> Result<bool> {
        match lock(&w.outcome).clone() {
            Outcome::Done => return Ok(true),
            Outcome::Failed(e) => return Err(e),
            Outcome::Pending => {}
        }
        let failed = |reason: String| Error::Failed {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.clone(),
            seq: w.seq,
            call_site: w.call_site.clone(),
            reason,
        };
        match w.event.query() {
            Ok(true) => {
                // The event completes even after a failed operation on the sim: the
                // stream's sticky error tells.
                if let Err(e) = self.stream.query() {
                    let err = failed(e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    return Err(err);
                }
                if w.settle(Outcome::Done) {
                    self.recorder.set_state(w.entry, State::Completed);
                }
                Ok(true)
            }
            Ok(false) => match self.comm.async_error() {
                Ok(None) => Ok(false),
                Ok(Some(e)) | Err(e) => {
                    let err = failed(e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    Err(err)
                }
            },
            Err(e) => {
                let err = failed(e.to_string());
                self.fail(Some(w), err.clone(), "asynchronous error");
                Err(err)
            }
        }
    }

    /// A failure: record and dump it, apply the policy, fail the works concerned.
    fn fail(&self, culprit: Option<&WorkState>, err: Error, why: &str) {
        if let Some(w) = culprit {
            let state = if matches!(err, Error::Timeout { .. }) {
                State::TimedOut
            } else {
                State::Failed
            };
            self.recorder.set_state(w.entry, state);
            w.settle(Outcome::Failed(err.clone()));
        }
        log::error!("{err}");
        self.dump(&format!("{why}: {err}"));
        if self.options.on_error == ErrorPolicy::Abort {
            self.abort_group(&err.to_string());
        }
    }

    /// Aborts the communicator (once), fails every pending work, refuses new ones.
    fn abort_group(&self, reason: &str) {
        let first = {
            let mut a = lock(&self.aborted);
            let first = a.is_none();
            a.get_or_insert_with(|| reason.to_string());
            first
        };
        if first {
            if let Err(e) = self.abort.abort() {
                log::error!("group {}: abort failed: {e}", self.options.name);
            }
        }
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

    fn dump(&self, reason: &str) -> Option<PathBuf> {
        let dir = self.options.dump_dir.as_ref()?;
        let dump = self.snapshot(reason);
        match FlightRecorder::dump_to(dir, &dump) {
            Ok(path) => {
                log::error!(
                    "group {}: flight recorder dumped to {}",
                    self.options.name,
                    path.display()
                );
                Some(path)
            }
            Err(e) => {
                log::error!(
                    "group {}: flight recorder dump failed: {e}",
                    self.options.name
                );
                None
            }
        }
    }

    fn snapshot(&self, reason: &str) -> Dump {
        self.recorder.dump(
            &self.options.name,
            self.rank,
            self.size,
            &self.device.driver().to_string(),
            reason,
        )
    }

    /// One watchdog pass: settle completed works, time out old ones.
    fn watch(&self) {
        let works: Vec<_> = lock(&self.pending).iter().cloned().collect();
        for w in works {
            match self.observe(&w) {
                Ok(true) => {}
                Ok(false) if w.enqueued.elapsed() > self.options.timeout => {
                    let err = self.timeout_error(&w, w.enqueued.elapsed());
                    self.fail(Some(&w), err, "watchdog timeout");
                }
                Ok(false) | Err(_) => {}
            }
        }
        lock(&self.pending).retain(|w| matches!(*lock(&w.outcome), Outcome::Pending));
    }

    fn ensure_ready(&self) -> Result<()> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(());
        }
        self.comm.wait_ready(self.options.timeout)?;
        self.ready.store(true, Ordering::Release);
        Ok(())
    }

    /// Waits, under the timeout, until fewer than the cap are in flight.
    fn make_room(&self) -> Result<()> {
        let start = Instant::now();
        loop {
            let oldest = {
                let mut p = lock(&self.pending);
                p.retain(|w| matches!(*lock(&w.outcome), Outcome::Pending));
                if p.len() < self.options.max_in_flight {
                    return Ok(());
                }
                p.front().cloned()
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
                let _ = w
                    .event
                    .synchronize_timeout(left.min(Duration::from_millis(20)));
                let _ = self.observe(&w);
            }
        }
    }
}

/// What the flight recorder and errors say about one operation.
struct OpInfo {
    op: &'static str,
    dtype: DType,
    count: usize,
    root: Option<usize>,
    p2p: Option<(usize, bool)>,
    site: &'static Location<'static>,
}

impl OpInfo {
    fn new(
        op: &'static str,
        dtype: DType,
        count: usize,
        site: &'static Location<'static>,
    ) -> OpInfo {
        OpInfo {
            op,
            dtype,
            count,
            root: None,
            p2p: None,
            site,
        }
    }

    fn root(mut self, root: usize) -> OpInfo {
        self.root = Some(root);
        self
    }

    fn p2p(mut self, peer: usize, send: bool) -> OpInfo {
        self.p2p = Some((peer, send));
        self
    }
}

/// A group of ranks with a communication stream of its own, whose operations return
/// [`Work`] handles: the calling thread never waits for a peer inside them.
///
/// ```
/// use std::{thread, time::Duration};
/// use collectives::{Options, ProcessGroup};
/// use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// let id = UniqueId::random();
/// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> collectives::Result<Vec<f32>> {
///     let dev = Device::sim(rank)?;
///     let pg = ProcessGroup::new(&dev, rank, 2, &id, Options::new())?;
///     let compute = Stream::new(&dev)?;
///     let mut x = DeviceBuffer::from_slice(&compute, &[rank as f32; 4])?;
///     let work = pg.all_reduce(&mut x, ReduceOp::Sum)?; // returns once enqueued
///     work.wait_stream(&compute)?;                      // returns at once
///     x.add_scalar(&compute, 100.0)?;
///     Ok(x.to_vec(&compute)?)
/// })).collect();
/// for r in ranks {
///     assert_eq!(r.join().unwrap()?, vec![101.0; 4]);
/// }
/// # Ok::<(), collectives::Error>(())
/// ```
pub struct ProcessGroup {
    inner: Arc<Inner>,
    stop: Arc<(Mutex<bool>, Condvar)>,
    watchdog: Option<JoinHandle<()>>,
}

/// Whether NCCL connects peers lazily (`NCCL_RUNTIME_CONNECT`, 1 by default since
/// NCCL 2.22), and where the answer came from.
pub fn runtime_connect() -> (bool, &'static str) {
    if let Ok(lib) = nccl_sys::nccl() {
        if lib.has_function("ncclParamBind") == Some(true) {
            for key in [c"RUNTIME_CONNECT", c"NCCL_RUNTIME_CONNECT"] {
                let mut handle: nccl_sys::ncclParamHandle_t = std::ptr::null_mut();
                // SAFETY: a NUL-terminated key and a valid out-pointer.
                let bound = unsafe { lib.ncclParamBind(&mut handle, key.as_ptr()) };
                if bound == Ok(nccl_sys::ncclSuccess) {
                    let mut v: i64 = 0;
                    // SAFETY: a bound handle; writes one i64.
                    if unsafe { lib.ncclParamGetI64(handle, &mut v) } == Ok(nccl_sys::ncclSuccess) {
                        return (v != 0, "NCCL's parameter API");
                    }
                }
            }
        }
    }
    match std::env::var("NCCL_RUNTIME_CONNECT")
        .ok()
        .as_deref()
        .map(str::trim)
    {
        Some("0") => (false, "NCCL_RUNTIME_CONNECT=0 in the environment"),
        Some(_) => (true, "NCCL_RUNTIME_CONNECT in the environment"),
        None => (true, "NCCL's default (NCCL_RUNTIME_CONNECT unset)"),
    }
}

impl ProcessGroup {
    /// Joins rank `rank` of `size` named by `id` on `device`, with a non-blocking
    /// communicator underneath.
    ///
    /// # Errors
    ///
    /// Init errors; with [`InitWait::Block`], a timeout naming the missing ranks.
    pub fn new(
        device: &Device,
        rank: usize,
        size: usize,
        id: &UniqueId,
        options: Options,
    ) -> Result<ProcessGroup> {
        let config = Config::new()
            .blocking(false)
            .comm_name(&options.name)
            .call_timeout(options.timeout)
            .teardown_timeout(options.timeout.min(Duration::from_secs(30)));
        let comm = Communicator::init(device, rank, size, id, &config)?;
        Self::build(comm, options)
    }

    /// A group over an existing non-blocking communicator.
    ///
    /// # Errors
    ///
    /// [`nccl_safe::Error::InvalidUsage`] for a blocking communicator (it could not be
    /// aborted on a timeout).
    pub fn from_communicator(comm: Communicator, options: Options) -> Result<ProcessGroup> {
        Self::build(comm, options)
    }

    fn build(comm: Communicator, options: Options) -> Result<ProcessGroup> {
        let abort = comm.abort_handle()?;
        let device = comm.device().clone();
        let stream = Stream::with_options(
            &device,
            StreamOptions {
                non_blocking: true,
                priority: 0,
            },
        )?;
        let inner = Arc::new(Inner {
            rank: comm.rank(),
            size: comm.size(),
            device,
            recorder: FlightRecorder::new(options.recorder_capacity),
            options,
            comm,
            abort,
            stream,
            seq: AtomicU64::new(0),
            p2p_seq: Mutex::new(HashMap::new()),
            pending: Mutex::new(VecDeque::new()),
            aborted: Mutex::new(None),
            ready: AtomicBool::new(false),
            barrier: Mutex::new(None),
        });
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let watchdog = {
            let weak: Weak<Inner> = Arc::downgrade(&inner);
            let stop = stop.clone();
            let interval = inner.options.watchdog_interval;
            std::thread::Builder::new()
                .name(format!("nccl-rs-watchdog-{}", inner.options.name))
                .spawn(move || {
                    loop {
                        match weak.upgrade() {
                            Some(inner) => inner.watch(),
                            None => return,
                        }
                        let stopped = lock(&stop.0);
                        if *stopped {
                            return;
                        }
                        let (stopped, _) = stop
                            .1
                            .wait_timeout(stopped, interval)
                            .unwrap_or_else(|e| e.into_inner());
                        if *stopped {
                            return;
                        }
                    }
                })
                .ok()
        };
        let pg = ProcessGroup {
            inner,
            stop,
            watchdog,
        };
        if pg.inner.options.init_wait == InitWait::Block {
            pg.inner.ensure_ready()?;
            pg.connect()?;
        }
        Ok(pg)
    }

    /// Decision 6: when NCCL would connect lazily, connect now with warm-up
    /// operations, so that no later call blocks the host on a peer.
    #[track_caller]
    fn connect(&self) -> Result<()> {
        let (lazy, source) = runtime_connect();
        if !lazy || !self.inner.options.eager_connect {
            log::info!(
                "group {}: peers connect {} ({source})",
                self.inner.options.name,
                if lazy {
                    "lazily (eager_connect off)"
                } else {
                    "at init"
                }
            );
            return Ok(());
        }
        let mut warm = DeviceBuffer::<u8>::zeroed(&self.inner.stream, 1)?;
        let mut works = WorkSet::new();
        let info = OpInfo::new("warmup", DType::U8, 1, Location::caller());
        works.push(self.submit(info, |c, s| {
            c.all_reduce_in_place(&mut warm, ReduceOp::Sum, s)
        })?);
        if self.inner.options.p2p && self.inner.size > 1 {
            let n = self.inner.size;
            let send = DeviceBuffer::<u8>::zeroed(&self.inner.stream, n)?;
            let mut recv = DeviceBuffer::<u8>::zeroed(&self.inner.stream, n)?;
            // A send to and a receive from every peer, in one group.
            let rank = self.inner.rank;
            let info = OpInfo::new("warmup_p2p", DType::U8, n, Location::caller());
            works.push(self.submit(info, |comm, stream| {
                nccl_safe::group(|_| {
                    let mut rv = recv.as_view_mut();
                    for peer in (0..n).filter(|&p| p != rank) {
                        comm.send(&send.view(peer..peer + 1)?, peer, stream)?;
                        comm.recv(&mut rv.slice_mut(peer..peer + 1)?, peer, stream)?;
                    }
                    Ok(())
                })
            })?);
        }
        works.wait_host(self.inner.options.timeout)?;
        log::info!(
            "group {}: NCCL connects lazily ({source}); ran warm-up collectives at creation{}; \
             other algorithms may still connect lazily (set NCCL_RUNTIME_CONNECT=0 before start)",
            self.inner.options.name,
            if self.inner.options.p2p {
                " and a send/recv with every peer"
            } else {
                ""
            }
        );
        Ok(())
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.inner.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The group's own communication stream (to gate it in tests, or to wait on).
    pub fn comm_stream(&self) -> &Stream {
        &self.inner.stream
    }

    /// Whether every rank has joined. Never blocks.
    ///
    /// # Errors
    ///
    /// An init error.
    pub fn is_ready(&self) -> Result<bool> {
        Ok(self.inner.ready.load(Ordering::Acquire) || self.inner.comm.is_ready()?)
    }

    /// Operations issued and not yet seen complete.
    pub fn in_flight(&self) -> usize {
        let mut p = lock(&self.inner.pending);
        p.retain(|w| matches!(*lock(&w.outcome), Outcome::Pending));
        p.len()
    }

    /// The flight recorder's entries, oldest first.
    pub fn flight_record(&self) -> Vec<Entry> {
        self.inner.recorder.entries()
    }

    /// The flight recorder as a dump (for [`crate::hang_report`]), and written to the
    /// dump folder when one is configured.
    pub fn dump_flight_record(&self, reason: &str) -> Dump {
        self.inner.dump(reason);
        self.inner.snapshot(reason)
    }

    /// Aborts the group now (local): pending operations fail, new ones are refused.
    /// Peers are not told; they need their own timeout.
    pub fn abort(&self, reason: &str) {
        log::error!(
            "group {} rank {}: aborted: {reason}",
            self.inner.options.name,
            self.inner.rank
        );
        self.inner.dump(&format!("aborted on request: {reason}"));
        self.inner.abort_group(reason);
    }

    /// Issues one operation: readiness, room, record, enqueue, a Work.
    fn submit(
        &self,
        info: OpInfo,
        enqueue: impl FnOnce(&Communicator, &Stream) -> nccl_safe::Result<()>,
    ) -> Result<Work> {
        let OpInfo {
            op,
            dtype,
            count,
            root,
            p2p,
            site,
        } = info;
        let inner = &self.inner;
        if let Some(e) = inner.group_aborted() {
            return Err(e);
        }
        if !inner.ready.load(Ordering::Acquire) {
            inner.ensure_ready()?;
            self.connect()?;
        }
        inner.make_room()?;
        let (seq, p2p_key) = match p2p {
            None => (inner.seq.fetch_add(1, Ordering::AcqRel), None),
            Some((peer, send)) => {
                let mut m = lock(&inner.p2p_seq);
                let n = m.entry((peer, send)).or_insert(0);
                *n += 1;
                (*n - 1, Some((peer, *n - 1)))
            }
        };
        let call_site = format!("{}:{}", site.file(), site.line());
        let entry = inner.recorder.push(Entry {
            seq: p2p_key.is_none().then_some(seq),
            p2p: p2p_key,
            op: op.to_string(),
            dtype: dtype.to_string(),
            count,
            root,
            call_site: call_site.clone(),
            enqueued_ms: now_ms(),
            completed_ms: None,
            state: State::Scheduled,
        });
        if let Err(e) = enqueue(&inner.comm, &inner.stream) {
            inner.recorder.set_state(entry, State::Failed);
            return Err(e.into());
        }
        let event = inner.stream.record_event()?;
        let state = Arc::new(WorkState {
            op: op.to_string(),
            seq,
            call_site,
            entry,
            event,
            enqueued: Instant::now(),
            outcome: Mutex::new(Outcome::Pending),
            changed: Condvar::new(),
        });
        lock(&inner.pending).push_back(state.clone());
        Ok(Work {
            state,
            group: inner.clone(),
        })
    }

    /// In-place all-reduce.
    ///
    /// # Errors
    ///
    /// Argument errors of `nccl_safe`; [`Error::GroupAborted`]; init or in-flight
    /// timeouts.
    #[track_caller]
    pub fn all_reduce<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
    ) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit(
            OpInfo::new("all_reduce", T::DTYPE, n, Location::caller()),
            |c, s| c.all_reduce_in_place(buf, op, s),
        )
    }

    /// Out-of-place all-reduce.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn all_reduce_into<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit(
            OpInfo::new("all_reduce", T::DTYPE, n, Location::caller()),
            |c, s| c.all_reduce(send, recv, op, s),
        )
    }

    /// Broadcast from `root`, in place.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn broadcast<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        root: usize,
    ) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit(
            OpInfo::new("broadcast", T::DTYPE, n, Location::caller()).root(root),
            |c, s| c.broadcast(buf, root, s),
        )
    }

    /// Reduce to `root` (`recv` on the root only).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn reduce<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut DeviceViewMut<'_, T>>,
        op: ReduceOp<'_, T>,
        root: usize,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit(
            OpInfo::new("reduce", T::DTYPE, n, Location::caller()).root(root),
            |c, s| c.reduce(send, recv, op, root, s),
        )
    }

    /// All-gather (`recv` has `size × send.len()` elements).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn all_gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit(
            OpInfo::new("all_gather", T::DTYPE, n, Location::caller()),
            |c, s| c.all_gather(send, recv, s),
        )
    }

    /// Reduce-scatter (`send` has `size × recv.len()` elements).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn reduce_scatter<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
    ) -> Result<Work> {
        let n = recv.device_view().len();
        self.submit(
            OpInfo::new("reduce_scatter", T::DTYPE, n, Location::caller()),
            |c, s| c.reduce_scatter(send, recv, op, s),
        )
    }

    /// All-to-all.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn all_to_all<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit(
            OpInfo::new("all_to_all", T::DTYPE, n, Location::caller()),
            |c, s| c.all_to_all(send, recv, s),
        )
    }

    /// Gather to `root` (`recv` on the root only).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut DeviceViewMut<'_, T>>,
        root: usize,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit(
            OpInfo::new("gather", T::DTYPE, n, Location::caller()).root(root),
            |c, s| c.gather(send, recv, root, s),
        )
    }

    /// Scatter from `root` (`send` on the root only).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn scatter<T: DataType>(
        &self,
        send: Option<&DeviceView<'_, T>>,
        recv: &mut impl AsDeviceViewMut<T>,
        root: usize,
    ) -> Result<Work> {
        let n = recv.device_view().len();
        self.submit(
            OpInfo::new("scatter", T::DTYPE, n, Location::caller()).root(root),
            |c, s| c.scatter(send, recv, root, s),
        )
    }

    /// Sends to `peer`.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn send<T: DataType>(&self, buf: &impl AsDeviceView<T>, peer: usize) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit(
            OpInfo::new("send", T::DTYPE, n, Location::caller()).p2p(peer, true),
            |c, s| c.send(buf, peer, s),
        )
    }

    /// Receives from `peer`.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn recv<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        peer: usize,
    ) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit(
            OpInfo::new("recv", T::DTYPE, n, Location::caller()).p2p(peer, false),
            |c, s| c.recv(buf, peer, s),
        )
    }

    /// A barrier: completes when every rank has reached it (an all-reduce of one byte).
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn barrier(&self) -> Result<Work> {
        let site = Location::caller();
        let mut slot = lock(&self.inner.barrier);
        if slot.is_none() {
            *slot = Some(DeviceBuffer::<u8>::zeroed(&self.inner.stream, 1)?);
        }
        let buf = slot.as_mut().expect("just set");
        self.submit(OpInfo::new("barrier", DType::U8, 1, site), |c, s| {
            c.all_reduce_in_place(buf, ReduceOp::Max, s)
        })
    }

    /// Issues the operations `f` makes through the communicator as one NCCL group, and
    /// returns one Work for all (e.g. a halo exchange of sends and receives).
    ///
    /// # Errors
    ///
    /// `f`'s errors; as [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn grouped(
        &self,
        f: impl FnOnce(&Communicator, &Stream) -> nccl_safe::Result<()>,
    ) -> Result<Work> {
        self.submit(
            OpInfo::new("group", DType::U8, 0, Location::caller()),
            |c, s| nccl_safe::group(|_| f(c, s)),
        )
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        *lock(&self.stop.0) = true;
        self.stop.1.notify_all();
        if let Some(h) = self.watchdog.take() {
            // Wakes at once and ends after at most one pass.
            let _ = h.join();
        }
    }
}

impl std::fmt::Debug for ProcessGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ProcessGroup({} rank {} of {} on {})",
            self.inner.options.name, self.inner.rank, self.inner.size, self.inner.device
        )
    }
}
