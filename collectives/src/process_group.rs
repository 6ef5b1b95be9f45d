//! [`ProcessGroup`]: the public face of a group. Creation (init, readiness, warm-up),
//! and every operation, each returning a [`Work`] once enqueued.
//!
//! Past 600 lines: it is the group's public surface, one short method per operation
//! (each documented), all through the one `submit` path (`issue.rs`).

use std::collections::{HashMap, VecDeque};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nccl_safe::{
    AsDeviceView, AsDeviceViewMut, Communicator, Config, DType, DataType, Device, DeviceBuffer,
    ReduceOp, Stream, StreamOptions, UniqueId,
};

use crate::hooks::{HookHandle, HookPoint};
use crate::options::{InitWait, Options};
use crate::recorder::{Entry, FlightRecorder};
use crate::state::{Inner, lock};
use crate::watchdog::Watchdog;
use crate::work::Work;
use crate::{Dump, Result};

/// What the flight recorder and errors say about one operation.
pub(crate) struct OpInfo {
    pub(crate) op: &'static str,
    pub(crate) dtype: DType,
    pub(crate) count: usize,
    pub(crate) out_count: Option<usize>,
    pub(crate) root: Option<usize>,
    pub(crate) p2p: Option<(usize, bool)>,
    /// For a one-sided operation: the peer (numbered per peer and operation).
    pub(crate) one_sided: Option<usize>,
    pub(crate) site: &'static Location<'static>,
    /// The library's own steps (the warm-up) name themselves instead of a call site.
    pub(crate) library: Option<&'static str>,
}

impl OpInfo {
    pub(crate) fn new(
        op: &'static str,
        dtype: DType,
        count: usize,
        site: &'static Location<'static>,
    ) -> OpInfo {
        OpInfo {
            op,
            dtype,
            count,
            out_count: None,
            root: None,
            p2p: None,
            one_sided: None,
            site,
            library: None,
        }
    }

    /// Marks a step of the library's own (recorded under `name`, not a call site).
    pub(crate) fn library(mut self, name: &'static str) -> OpInfo {
        self.library = Some(name);
        self
    }

    /// The elements received, where `count` and the size do not imply it.
    pub(crate) fn out_count(mut self, n: usize) -> OpInfo {
        self.out_count = Some(n);
        self
    }

    pub(crate) fn root(mut self, root: usize) -> OpInfo {
        self.root = Some(root);
        self
    }

    pub(crate) fn p2p(mut self, peer: usize, send: bool) -> OpInfo {
        self.p2p = Some((peer, send));
        self
    }

    pub(crate) fn one_sided(mut self, peer: usize) -> OpInfo {
        self.one_sided = Some(peer);
        self
    }
}

/// Where a group starts: the first of its line (epoch 0), or one a shrink or a grow
/// made from another.
pub(crate) struct Lineage {
    /// Shrinks and grows since the first group.
    pub(crate) epoch: u64,
    /// The next collective's sequence number (users continue where they were).
    pub(crate) seq: u64,
    /// Whether this rank came in through a grow.
    pub(crate) joined_by_grow: bool,
    /// The flight-record entry of the change that made it.
    pub(crate) change: Option<Entry>,
}

impl Lineage {
    fn first() -> Lineage {
        Lineage {
            epoch: 0,
            seq: 1,
            joined_by_grow: false,
            change: None,
        }
    }
}

/// A group of ranks with a communication stream of its own, whose operations return
/// [`Work`] handles: the calling thread never waits for a peer inside them.
///
/// # One order of operations
///
/// Every rank must issue the group's operations in one order: the n-th operation of
/// each rank is paired with the n-th of every other, whatever each was meant to be.
/// A `ProcessGroup` is therefore [`Send`] but not [`Sync`]: one thread at a time owns
/// it, so its order is that thread's program order. Threads that share a group must
/// agree on an order explicitly, through [`SharedGroup`](crate::SharedGroup), whose
/// numbered turns every rank takes in the same sequence. (Wrapping it in a `Mutex`
/// compiles, but a mutex orders threads by who comes first, which differs between
/// ranks: such a program may pair one thread's operation with another thread's on
/// the peer. The sim catches that with
/// [`Options::check_call_sites`](crate::Options::check_call_sites); NCCL cannot.) Two
/// threads issuing at the same moment, or one issuing while the other's operations
/// are in flight, are refused with [`Error::ConcurrentUse`](crate::Error::ConcurrentUse).
/// Other threads that only look at the group, dump it or abort it use a
/// [`GroupHandle`](crate::GroupHandle) ([`ProcessGroup::handle`]).
///
/// ```compile_fail
/// # use collectives::ProcessGroup;
/// fn share(pg: &ProcessGroup) {
///     std::thread::scope(|s| {
///         s.spawn(|| pg.barrier()); // error: `ProcessGroup` is not `Sync`
///     });
/// }
/// ```
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
    pub(crate) inner: Arc<Inner>,
    /// Stops (and joins) the watchdog when the group is dropped.
    _watchdog: Watchdog,
    /// `Send` but not `Sync`: one thread at a time issues (see the type's docs).
    _one_thread: std::marker::PhantomData<std::cell::Cell<()>>,
}

/// The communicator's teardown timeout: how long its teardown waits, and how long its
/// work may make no progress before another communicator's teardown on the device stops
/// it. It outlasts the group's own timeout by a grace (when the timeout is under the 30 s
/// cap), so that a collective stalled on a missing rank is reported by the group's
/// watchdog as a timeout (dumps on every rank, a hang report naming the rank) rather
/// than first stopped by an unrelated group that is being closed.
fn teardown_timeout(options: &Options) -> Duration {
    let grace = (options.watchdog_interval * 4).max(Duration::from_secs(1));
    options
        .timeout
        .saturating_add(grace)
        .min(Duration::from_secs(30))
}

/// The configuration of a group's communicator: non-blocking underneath, named after
/// the group, with its timeouts.
pub(crate) fn group_config(options: &Options) -> Config {
    Config::new()
        .blocking(false)
        .comm_name(&options.name)
        .call_timeout(options.timeout)
        .teardown_timeout(teardown_timeout(options))
}

/// Refuses what the device's driver cannot honour: on the sim, a cap on operations in
/// flight above the collectives its communicator holds pending
/// ([`nccl_safe::SIM_PENDING_COLLECTIVES`]), where the cap would no longer be where
/// the host first waits.
fn check_for_driver(options: &Options, device: &Device) -> Result<()> {
    let limit = nccl_safe::SIM_PENDING_COLLECTIVES;
    if device.driver() == nccl_safe::DriverKind::Sim && options.max_in_flight > limit {
        return Err(crate::Error::InvalidOption {
            option: "max_in_flight",
            value: options.max_in_flight.to_string(),
            reason: format!(
                "the sim driver holds at most {limit} pending collectives per communicator \
                 (nccl_safe::SIM_PENDING_COLLECTIVES); a cap above it would never be reached"
            ),
        });
    }
    Ok(())
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
        let config = group_config(&options);
        options.validate()?;
        check_for_driver(&options, device)?;
        let _span = crate::trace::init(&options.name, rank, size);
        let comm = Communicator::init(device, rank, size, id, &config)?;
        Self::build(comm, options, Some(*id.as_bytes()), Lineage::first())
    }

    /// Joins rank `rank` of `size` whose communicator's bootstrap is spread over
    /// several roots, one per id of `ids`
    /// ([`Communicator::init_scalable`]: each id made by a different rank, every rank
    /// passing the same ids in the same order); one id is [`ProcessGroup::new`].
    /// [`ProcessGroup::from_env`] does this by itself for jobs of more than
    /// `NCCL_RS_RANKS_PER_ROOT` ranks (128 by default).
    ///
    /// # Errors
    ///
    /// As [`Communicator::init_scalable`] and [`ProcessGroup::new`].
    pub fn new_scalable(
        device: &Device,
        rank: usize,
        size: usize,
        ids: &[UniqueId],
        options: Options,
    ) -> Result<ProcessGroup> {
        if let [id] = ids {
            return Self::new(device, rank, size, id, options);
        }
        let config = group_config(&options);
        options.validate()?;
        check_for_driver(&options, device)?;
        let _span = crate::trace::init(&options.name, rank, size);
        let comm = Communicator::init_scalable(device, rank, size, ids, &config)?;
        let key = ids.first().map(|id| *id.as_bytes());
        Self::build(comm, options, key, Lineage::first())
    }

    /// A group over an existing communicator, blocking or not (both can be aborted on
    /// a timeout: the library's communicators are non-blocking underneath). Like
    /// [`ProcessGroup::new`], building is collective: with [`InitWait::Block`] and
    /// eager connection it waits, within the group's timeout, for every rank to build
    /// its group over its communicator, so each rank does so on its own thread or
    /// process.
    ///
    /// # Errors
    ///
    /// [`nccl_safe::Error::InvalidUsage`] for a communicator of
    /// [`Communicator::init_all`] (ranks one thread drives together, whose calls must
    /// be grouped: a group's operations each wait on the others' ranks, so such a
    /// thread would wait for itself); [`Error::Timeout`](crate::Error::Timeout) when a peer does not build
    /// its group in time; the errors of [`ProcessGroup::new`].
    pub fn from_communicator(comm: Communicator, options: Options) -> Result<ProcessGroup> {
        if let Some(n) = comm.init_all_size() {
            return Err(nccl_safe::Error::InvalidUsage {
                op: "ProcessGroup::from_communicator",
                reason: format!(
                    "rank {} is one of {n} communicators that one Communicator::init_all call \
                     made, which one thread drives together; a process group's operations \
                     each wait on every rank, so that thread would wait for itself. Make \
                     one communicator per rank with Communicator::init (or \
                     ProcessGroup::new), each on its own thread or process",
                    comm.rank()
                ),
            }
            .into());
        }
        Self::build(comm, options, None, Lineage::first())
    }

    pub(crate) fn build(
        comm: Communicator,
        options: Options,
        peers_key: Option<[u8; 128]>,
        lineage: Lineage,
    ) -> Result<ProcessGroup> {
        options.validate()?;
        check_for_driver(&options, comm.device())?;
        if options.on_error == crate::ErrorPolicy::Shrink {
            // A failure must leave the communicator revoked, not aborted, for the
            // survivors to shrink it.
            comm.nccl_features()?.require(nccl_safe::Feature::Revoke)?;
        }
        if options.launch_events {
            comm.nccl_features()?
                .require(nccl_safe::Feature::LaunchEvent)?;
        }
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
            published: Default::default(),
            probe_stream: std::sync::OnceLock::new(),
            writing: Default::default(),
            asking_ras: Default::default(),
            hooks: Default::default(),
            aborting: AtomicBool::new(false),
            turns: AtomicBool::new(false),
            rank: comm.rank(),
            size: comm.size(),
            device,
            recorder: FlightRecorder::new(options.recorder_capacity),
            options,
            comm: std::sync::RwLock::new(Some(comm)),
            abort,
            epoch: lineage.epoch,
            joined_by_grow: lineage.joined_by_grow,
            replaced: Mutex::new(None),
            stream,
            seq: AtomicU64::new(lineage.seq),
            p2p_seq: Mutex::new(HashMap::new()),
            one_sided_seq: Mutex::new(HashMap::new()),
            pending: Mutex::new(VecDeque::new()),
            refused: Mutex::new(None),
            ready: AtomicBool::new(false),
            barrier: Mutex::new(None),
            issuing: Mutex::new(None),
            last_issuer: Mutex::new(None),
            peers_key,
            watched: AtomicBool::new(false),
            sink: std::sync::OnceLock::new(),
            labels: Mutex::default(),
        });
        if let Some(change) = lineage.change {
            inner.recorder.push(change);
        }
        inner.register();
        let watchdog = Watchdog::start(&inner);
        let pg = ProcessGroup {
            inner,
            _watchdog: watchdog,
            _one_thread: std::marker::PhantomData,
        };
        if pg.inner.options.init_wait == InitWait::Block {
            pg.inner.ensure_ready()?;
            pg.connect()?;
        }
        Ok(pg)
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
        self.inner.is_ready()
    }

    /// Operations issued and not yet seen complete.
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    /// The flight recorder's entries, oldest first.
    pub fn flight_record(&self) -> Vec<Entry> {
        self.inner.recorder.entries()
    }

    /// Registers `hook` to run at `point` of every operation of this group from now on
    /// (or when the group aborts), until the returned handle is dropped. See
    /// [`HookPoint`] for the thread each point runs on. A hook runs with none of the
    /// library's locks held: it may call back into the group through a
    /// [`GroupHandle`](crate::GroupHandle) (look at it, dump it, abort it). A hook that
    /// panics is caught and logged. With no hooks, an operation pays one atomic load.
    ///
    /// ```
    /// # use collectives::{HookPoint, Options, ProcessGroup};
    /// # use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    ///
    /// let pg = ProcessGroup::new(&Device::sim(0)?, 0, 1, &UniqueId::random(), Options::new())?;
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let hook = pg.add_hook(HookPoint::BeforeIssue, move |e| {
    ///     let op = e.op.as_ref().unwrap();
    ///     log.lock().unwrap().push(format!("{} #{}", op.op, op.seq));
    /// });
    /// let s = Stream::new(pg.device())?;
    /// let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4])?;
    /// pg.all_reduce(&mut x, ReduceOp::Sum)?.wait_host(Duration::from_secs(60))?;
    /// drop(hook); // removed: the next operation is not seen
    /// pg.all_reduce(&mut x, ReduceOp::Sum)?.wait_host(Duration::from_secs(60))?;
    /// assert_eq!(*seen.lock().unwrap(), ["all_reduce #1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_hook(
        &self,
        point: HookPoint,
        hook: impl Fn(&crate::HookEvent) + Send + Sync + 'static,
    ) -> HookHandle {
        self.inner.hooks.add(point, hook)
    }

    /// The flight recorder as a dump (for [`crate::hang_report`]), and written to the
    /// dump folder when one is configured (on a thread of its own: this call never
    /// waits for the file system).
    pub fn dump_flight_record(&self, reason: &str) -> Dump {
        self.inner.dump_on_request(reason)
    }

    /// Aborts the group now: pending operations fail with `reason`, new ones are
    /// refused, the communicator is aborted, and the flight record is dumped (when
    /// a dump folder is set). What the peers learn:
    ///
    /// - a group of [`ProcessGroup::from_env`] (with
    ///   [`Options::propagate_failures`], the default) publishes the abort through
    ///   the job's store before aborting; every other rank's group then aborts within
    ///   its watchdog interval, naming this rank;
    /// - on the sim driver, a peer waiting in an operation with this rank fails at
    ///   once, naming this rank as aborted;
    /// - on the cuda driver without the store, NCCL tells the peers nothing: they
    ///   need their own timeout.
    pub fn abort(&self, reason: &str) {
        self.inner.abort_on_request(reason);
    }

    /// In-place all-reduce.
    ///
    /// # Errors
    ///
    /// Argument errors of `nccl_safe`; [`Error::GroupAborted`](crate::Error::GroupAborted); init or in-flight
    /// timeouts.
    #[track_caller]
    pub fn all_reduce<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
    ) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit_scanned(
            OpInfo::new("all_reduce", T::DTYPE, n, Location::caller()),
            |c, s, scan| {
                scan.input(&buf.device_view(), s)?;
                c.all_reduce_in_place(buf, op, s)
            },
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
        self.submit_scanned(
            OpInfo::new("all_reduce", T::DTYPE, n, Location::caller()),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.all_reduce(send, recv, op, s)
            },
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
        self.submit_scanned(
            OpInfo::new("broadcast", T::DTYPE, n, Location::caller()).root(root),
            |c, s, scan| {
                if self.rank() == root {
                    scan.input(&buf.device_view(), s)?;
                }
                c.broadcast(buf, root, s)
            },
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
        recv: Option<&mut dyn AsDeviceViewMut<T>>,
        op: ReduceOp<'_, T>,
        root: usize,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit_scanned(
            OpInfo::new("reduce", T::DTYPE, n, Location::caller()).root(root),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.reduce(send, recv, op, root, s)
            },
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
        self.submit_scanned(
            OpInfo::new("all_gather", T::DTYPE, n, Location::caller()),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.all_gather(send, recv, s)
            },
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
        self.submit_scanned(
            OpInfo::new("reduce_scatter", T::DTYPE, n, Location::caller()),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.reduce_scatter(send, recv, op, s)
            },
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
        self.submit_scanned(
            OpInfo::new("all_to_all", T::DTYPE, n, Location::caller()),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.all_to_all(send, recv, s)
            },
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
        recv: Option<&mut dyn AsDeviceViewMut<T>>,
        root: usize,
    ) -> Result<Work> {
        let n = send.device_view().len();
        self.submit_scanned(
            OpInfo::new("gather", T::DTYPE, n, Location::caller()).root(root),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.gather(send, recv, root, s)
            },
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
        send: Option<&dyn AsDeviceView<T>>,
        recv: &mut impl AsDeviceViewMut<T>,
        root: usize,
    ) -> Result<Work> {
        let n = recv.device_view().len();
        self.submit_scanned(
            OpInfo::new("scatter", T::DTYPE, n, Location::caller()).root(root),
            |c, s, scan| {
                if let Some(send) = send.filter(|_| self.rank() == root) {
                    scan.input(&send.device_view(), s)?;
                }
                c.scatter(send, recv, root, s)
            },
        )
    }

    /// Sends to `peer`.
    ///
    /// Each call is a launch of its own, as in NCCL: a send that waits for a receive
    /// the peer issues only after its own send deadlocks (the sim names the cycle).
    /// Exchanges go inside [`ProcessGroup::grouped`], which launches them together.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn send<T: DataType>(&self, buf: &impl AsDeviceView<T>, peer: usize) -> Result<Work> {
        let n = buf.device_view().len();
        self.submit_scanned(
            OpInfo::new("send", T::DTYPE, n, Location::caller()).p2p(peer, true),
            |c, s, scan| {
                scan.input(&buf.device_view(), s)?;
                c.send(buf, peer, s)
            },
        )
    }

    /// Receives from `peer`. Each call is a launch of its own; see
    /// [`ProcessGroup::send`] for exchanges.
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
    /// A drop while the thread panics, or with operations in flight that nothing
    /// waits for any more (their `Work`s, `WorkSet`s and futures are gone, as when a
    /// program returns early on an error), is not an orderly close: it counts as this
    /// rank's failure,
    /// published through the job's store like any other (peers stop waiting for work
    /// this rank will never finish), and the communicator is aborted.
    ///
    /// Then it finishes the group's link to the job's store (a group made by
    /// [`ProcessGroup::from_env`]): a failure is published and, on rank 0 without
    /// `nccl-run`, the job's hang report printed before the handle goes, so that a
    /// program that exits right after dropping its group still reports. Bounded by the
    /// store's timeouts and [`crate::launch::REPORT_WAIT`]; then the watchdog stops.
    ///
    /// Last, it removes the group's hooks and waits for flight-record dumps still being
    /// written (at most 1 s: a stuck file system holds it up no longer), so that a
    /// program that exits on its error leaves its dumps whole.
    fn drop(&mut self) {
        // A drop while panicking or with work in flight is a failure of this rank
        // (peers would wait for its operations until their timeout): published and
        // aborted, not closed in order.
        self.inner.fail_on_drop();
        if let Some(sink) = self.inner.sink.get() {
            sink.finish();
        }
        // Hooks end with the handle (one that holds a GroupHandle would otherwise keep
        // the group's state, and its communicator, alive).
        self.inner.hooks.clear();
        if !self.inner.writing.wait(crate::state::DUMP_WAIT) {
            log::error!(
                "group {} rank {}: flight-record dumps still being written after {:?}; not \
                 waiting longer",
                self.inner.options.name,
                self.inner.rank,
                crate::state::DUMP_WAIT
            );
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
