//! The one place that dispatches between the drivers. Every public type holds one of
//! the enums below and calls their methods; nothing outside `cuda/` and `sim/` names a
//! driver's internals except through them.
//!
//! - `select.rs`: `NCCL_RS_DRIVER` and the choice of a driver (Decision 9).
//!
//! Over 600 lines on purpose: it is one table of `match`es, one per driver operation,
//! and its value is that there is exactly one such table.

pub(crate) mod select;

use std::sync::Arc;
use std::time::Duration;

use nccl_sys as sys;

use crate::base::config::Config;
use crate::base::host_fn::Deferred;
use crate::base::op::LaunchOp;
use crate::base::types::{DriverKind, Elementwise};
use crate::cuda::comm::CudaComm;
use crate::cuda::{CudaDevice, CudaEvent, CudaGate, CudaStream, PinnedHost};
use crate::sim::comm::SimCommunicator;
use crate::sim::{SimDevice, SimEvent, SimGate, SimStream};
use crate::{DType, Error, Result};

pub use select::{DriverSelection, selected_driver};

/// An event shared by trackers and works; dropped in a host function, it is
/// destroyed on the reaper thread instead (`host_fn`).
pub(crate) type SharedEvent = Arc<Deferred<EventImpl>>;

fn mixed(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        reason: "objects of the cuda and the sim driver cannot be mixed".into(),
    }
}

/// A device of either driver.
pub(crate) enum DeviceImpl {
    Cuda(Arc<CudaDevice>),
    Sim(Arc<SimDevice>),
}

impl DeviceImpl {
    /// Opens device `ordinal` of `driver`.
    pub fn open(driver: DriverKind, ordinal: usize) -> Result<DeviceImpl> {
        Ok(match driver {
            DriverKind::Cuda => DeviceImpl::Cuda(Arc::new(CudaDevice::open(ordinal)?)),
            DriverKind::Sim => DeviceImpl::Sim(crate::sim::platform()?.visible(ordinal)?),
        })
    }

    /// How many devices `driver` has.
    pub fn count(driver: DriverKind) -> Result<usize> {
        match driver {
            DriverKind::Cuda => crate::cuda::device_count(),
            DriverKind::Sim => Ok(crate::sim::platform()?.count()),
        }
    }

    pub fn kind(&self) -> DriverKind {
        match self {
            DeviceImpl::Cuda(_) => DriverKind::Cuda,
            DeviceImpl::Sim(_) => DriverKind::Sim,
        }
    }

    pub fn ordinal(&self) -> usize {
        match self {
            DeviceImpl::Cuda(d) => d.ordinal,
            DeviceImpl::Sim(d) => d.ordinal,
        }
    }

    pub fn name(&self) -> Result<String> {
        match self {
            DeviceImpl::Cuda(d) => d.name(),
            DeviceImpl::Sim(d) => Ok(format!("sim device {}", d.ordinal)),
        }
    }

    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        match self {
            DeviceImpl::Cuda(d) => d.compute_capability(),
            DeviceImpl::Sim(_) => Ok(crate::sim::COMPUTE_CAPABILITY),
        }
    }

    /// Waits for all work on the device (`cuCtxSynchronize`).
    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        match self {
            DeviceImpl::Cuda(d) => d.synchronize(timeout),
            DeviceImpl::Sim(d) => d.synchronize_all("device synchronize", timeout),
        }
    }

    pub fn total_memory(&self) -> Result<usize> {
        match self {
            DeviceImpl::Cuda(d) => d.total_memory(),
            DeviceImpl::Sim(d) => Ok(d.capacity),
        }
    }

    pub fn memory_in_use(&self) -> Option<usize> {
        match self {
            DeviceImpl::Cuda(_) => None,
            DeviceImpl::Sim(d) => Some(d.used()),
        }
    }

    pub fn new_stream(&self, non_blocking: bool, priority: i32) -> Result<StreamImpl> {
        Ok(match self {
            DeviceImpl::Cuda(d) => {
                StreamImpl::Cuda(CudaStream::new(d.clone(), non_blocking, priority)?)
            }
            DeviceImpl::Sim(d) => StreamImpl::Sim(SimStream::new(d.clone())?),
        })
    }

    /// Wraps a raw CUDA stream.
    ///
    /// # Safety
    ///
    /// As [`crate::Stream::from_raw`].
    pub unsafe fn stream_from_raw(&self, raw: sys::CUstream) -> Result<StreamImpl> {
        match self {
            // SAFETY: the caller guarantees `raw`'s validity and lifetime.
            DeviceImpl::Cuda(d) => Ok(StreamImpl::Cuda(unsafe {
                CudaStream::borrowed(d.clone(), raw)
            })),
            DeviceImpl::Sim(_) => Err(Error::Unsupported {
                driver: DriverKind::Sim,
                what: "wrapping a raw CUDA stream",
            }),
        }
    }

    /// The CUDA primary context this device's objects live in; `None` on the sim.
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub fn raw_context(&self) -> Option<sys::CUcontext> {
        match self {
            DeviceImpl::Cuda(d) => Some(d.context()),
            DeviceImpl::Sim(_) => None,
        }
    }

    pub fn new_event(&self, timing: bool) -> Result<EventImpl> {
        Ok(match self {
            DeviceImpl::Cuda(d) => EventImpl::Cuda(CudaEvent::new(d.clone(), timing)?),
            DeviceImpl::Sim(_) => EventImpl::Sim(SimEvent::new()),
        })
    }

    pub fn new_gate(&self) -> Result<GateImpl> {
        Ok(match self {
            DeviceImpl::Cuda(d) => GateImpl::Cuda(CudaGate::new(d.clone())?),
            DeviceImpl::Sim(_) => GateImpl::Sim(SimGate::new()),
        })
    }

    /// Host memory for asynchronous copies: pinned on cuda, aligned heap on the sim.
    pub fn alloc_host(&self, bytes: usize) -> Result<HostAlloc> {
        Ok(match self {
            DeviceImpl::Cuda(d) => HostAlloc::Pinned(PinnedHost::new(d.clone(), bytes)?),
            DeviceImpl::Sim(d) => HostAlloc::Sim(crate::sim::HostAlloc::new(d.ordinal, bytes)?),
        })
    }

    /// Starts joining rank `rank` of `size` under `ids` (one, or one per bootstrap
    /// root). On the sim, `wait` blocks until every rank has joined, at most
    /// `config`'s call timeout; cuda's `config` says whether NCCL blocks.
    pub fn init_comm(
        &self,
        ids: &[[u8; 128]],
        rank: usize,
        size: usize,
        config: &Config,
        wait: bool,
    ) -> Result<CommImpl> {
        match self {
            DeviceImpl::Sim(d) => {
                if ids.iter().any(crate::sim::is_grow_id) {
                    return Err(Error::InvalidArgument {
                        op: "communicator init",
                        reason: "this id was made by grow_id for a grow: a new rank joins \
                                 with Communicator::join_grown"
                            .into(),
                    });
                }
                // Several roots meet at one root named by the whole list: ranks that
                // were given different lists do not meet (and time out).
                let id = match ids {
                    [id] => *id,
                    _ => crate::sim::combined_id(ids),
                };
                // A blocking init waits at most the call timeout, as on cuda.
                let wait = wait.then_some(config.call_timeout);
                Ok(CommImpl::Sim(SimCommunicator::join(
                    &id, rank, size, d, wait,
                )?))
            }
            DeviceImpl::Cuda(d) => {
                ids.iter().try_for_each(refuse_sim_id)?;
                let raw: Vec<_> = ids.iter().map(crate::cuda::raw_id).collect();
                let comm = CudaComm::init(d, rank, size, &raw, config)?;
                Ok(CommImpl::Cuda {
                    comm,
                    device: d.clone(),
                })
            }
        }
    }
}

/// NCCL would try to reach the "address" in a sim id and hang until its bootstrap
/// timeout: refuse it at once instead.
fn refuse_sim_id(id: &[u8; 128]) -> Result<()> {
    if &id[..8] == crate::base::id::SIM_MAGIC {
        return Err(Error::InvalidArgument {
            op: "communicator init",
            reason: "this unique id was made for the sim driver (UniqueId::random, or \
                     UniqueId::new with NCCL_RS_DRIVER=sim); the cuda driver needs NCCL's \
                     (UniqueId::nccl, or UniqueId::new on cuda)"
                .into(),
        });
    }
    Ok(())
}

/// One communicator of one process over several cuda devices, created in one NCCL
/// group (non-blocking; the caller waits for readiness).
pub(crate) fn init_cuda_comms(
    devices: &[&DeviceImpl],
    id: &[u8; 128],
    config: &Config,
) -> Result<Vec<CommImpl>> {
    let cuda: Vec<Arc<CudaDevice>> = devices
        .iter()
        .map(|d| match d {
            DeviceImpl::Cuda(c) => Ok(c.clone()),
            DeviceImpl::Sim(_) => Err(mixed("init_all")),
        })
        .collect::<Result<_>>()?;
    refuse_sim_id(id)?;
    let comms = CudaComm::init_all(&cuda, &crate::cuda::raw_id(id), config)?;
    Ok(comms
        .into_iter()
        .zip(cuda)
        .map(|(comm, device)| CommImpl::Cuda { comm, device })
        .collect())
}

/// A stream of either driver.
pub(crate) enum StreamImpl {
    Cuda(CudaStream),
    Sim(SimStream),
}

impl StreamImpl {
    pub fn new_event(&self, timing: bool) -> Result<EventImpl> {
        Ok(match self {
            StreamImpl::Cuda(s) => EventImpl::Cuda(CudaEvent::new(s.device.clone(), timing)?),
            StreamImpl::Sim(_) => EventImpl::Sim(SimEvent::new()),
        })
    }

    /// Records a fresh event after everything enqueued so far.
    pub fn record_new(&self) -> Result<SharedEvent> {
        let e = self.new_event(false)?;
        self.record(&e)?;
        Ok(Arc::new(Deferred::new(e)))
    }

    pub fn record(&self, event: &EventImpl) -> Result<()> {
        match (self, event) {
            (StreamImpl::Cuda(s), EventImpl::Cuda(e)) => e.record(s),
            (StreamImpl::Sim(s), EventImpl::Sim(e)) => e.record(s),
            _ => Err(mixed("event record")),
        }
    }

    pub fn wait(&self, event: &EventImpl) -> Result<()> {
        match (self, event) {
            (StreamImpl::Cuda(s), EventImpl::Cuda(e)) => s.wait_event(e),
            (StreamImpl::Sim(s), EventImpl::Sim(e)) => e.wait_on(s),
            _ => Err(mixed("stream wait event")),
        }
    }

    pub fn wait_gate(&self, gate: &GateImpl) -> Result<()> {
        match (self, gate) {
            (StreamImpl::Cuda(s), GateImpl::Cuda(g)) => g.wait_on(s),
            (StreamImpl::Sim(s), GateImpl::Sim(g)) => g.wait_on(s),
            _ => Err(mixed("stream wait gate")),
        }
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.synchronize(timeout),
            StreamImpl::Sim(s) => s.synchronize(timeout),
        }
    }

    pub fn query(&self) -> Result<bool> {
        match self {
            StreamImpl::Cuda(s) => s.query(),
            StreamImpl::Sim(s) => s.query(),
        }
    }

    /// Runs `f` on a driver thread once everything enqueued so far has completed;
    /// the stream never waits for `f`.
    pub fn on_complete(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => {
                let e = CudaEvent::new(s.device.clone(), false)?;
                e.record(s)?;
                crate::cuda::poller::Poller::of(&s.device).add(e, f);
                Ok(())
            }
            StreamImpl::Sim(s) => {
                s.on_complete(f);
                Ok(())
            }
        }
    }

    pub fn launch_host_fn(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.launch_host_fn(f),
            StreamImpl::Sim(s) => s.launch_host_fn(f),
        }
    }

    pub fn as_raw(&self) -> Option<sys::CUstream> {
        match self {
            StreamImpl::Cuda(s) => Some(s.raw),
            StreamImpl::Sim(_) => None,
        }
    }

    /// Allocates `bytes` of device memory, ordered on this stream.
    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        match self {
            StreamImpl::Cuda(s) => s.alloc(bytes),
            StreamImpl::Sim(s) => s.alloc(bytes),
        }
    }

    /// Frees `ptr` when this stream reaches this point.
    pub fn free(&self, ptr: u64) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.free(ptr),
            StreamImpl::Sim(s) => s.free(ptr),
        }
    }

    /// Whether this driver poisons outputs at enqueue (the sim does).
    pub fn poisons(&self) -> bool {
        matches!(self, StreamImpl::Sim(_))
    }

    /// Poisons an idle output range at enqueue (the sim's guard; nothing on cuda).
    pub fn poison(&self, addr: u64, len: usize) -> Result<()> {
        match self {
            StreamImpl::Cuda(_) => Ok(()),
            StreamImpl::Sim(s) => s.poison(addr, len),
        }
    }

    pub fn fill(&self, dst: u64, count: usize, pattern: Vec<u8>) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.fill(dst, count, &pattern),
            StreamImpl::Sim(s) => s.fill(dst, count, pattern),
        }
    }

    pub fn elementwise(
        &self,
        op: Elementwise,
        dtype: DType,
        dst: u64,
        count: usize,
        scalar: Vec<u8>,
    ) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.elementwise(op, dtype, dst, count, &scalar),
            StreamImpl::Sim(s) => s.elementwise(op, dtype, dst, count, scalar),
        }
    }

    pub fn find_non_finite(&self, dtype: DType, src: u64, count: usize, out: u64) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.find_non_finite(dtype, src, count, out),
            StreamImpl::Sim(s) => s.find_non_finite(dtype, src, count, out),
        }
    }

    pub fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        match self {
            StreamImpl::Cuda(s) => s.copy_dtod(dst, src, bytes),
            StreamImpl::Sim(s) => s.copy_dtod(dst, src, bytes),
        }
    }

    /// Copies `bytes` from host memory `src` (kept alive by the `Arc`) to `dst`.
    ///
    /// # Safety
    ///
    /// Nothing may write `src` until the copy has executed (its owner's tracker waits
    /// for the copy's event before handing out the memory again).
    pub unsafe fn copy_htod(&self, dst: u64, src: &Arc<HostAlloc>, bytes: usize) -> Result<()> {
        match self {
            // SAFETY: the caller keeps the memory unwritten until the copy executes;
            // its owner defers freeing pinned memory until the copy's event completes.
            StreamImpl::Cuda(s) => unsafe { s.copy_htod(dst, src.ptr(), bytes) },
            // SAFETY: as above; the task keeps the allocation alive.
            StreamImpl::Sim(s) => unsafe { s.copy_htod(dst, src.ptr(), bytes, src.clone()) },
        }
    }

    /// Copies `bytes` at `src` into host memory `dst` (kept alive by the `Arc`).
    ///
    /// # Safety
    ///
    /// Nothing may read or write `dst` until the copy has executed.
    pub unsafe fn copy_dtoh(&self, dst: &Arc<HostAlloc>, src: u64, bytes: usize) -> Result<()> {
        match self {
            // SAFETY: as in `copy_htod`.
            StreamImpl::Cuda(s) => unsafe { s.copy_dtoh(dst.ptr(), src, bytes) },
            // SAFETY: as in `copy_htod`.
            StreamImpl::Sim(s) => unsafe { s.copy_dtoh(dst.ptr(), src, bytes, dst.clone()) },
        }
    }
}

/// An event of either driver.
pub(crate) enum EventImpl {
    Cuda(CudaEvent),
    Sim(SimEvent),
}

impl EventImpl {
    pub fn query(&self) -> Result<bool> {
        match self {
            EventImpl::Cuda(e) => e.query(),
            EventImpl::Sim(e) => Ok(e.query()),
        }
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        match self {
            EventImpl::Cuda(e) => e.synchronize(timeout),
            EventImpl::Sim(e) => e.synchronize(timeout),
        }
    }

    /// Runs `f` when the shared event's most recent record completes: the sim's
    /// streams run it as they pass the event; on cuda the device's poller thread
    /// queries the event (which it keeps alive meanwhile).
    pub fn on_complete(event: &SharedEvent, f: Box<dyn FnOnce() + Send>) {
        match &***event {
            EventImpl::Cuda(e) => {
                let watched = event.clone();
                crate::cuda::poller::Poller::of(&e.device)
                    .add_query(Box::new(move || !matches!(watched.query(), Ok(false))), f);
            }
            EventImpl::Sim(e) => e.on_complete(f),
        }
    }

    /// Time from this event's completion to `end`'s.
    pub fn elapsed(&self, end: &EventImpl) -> Result<Duration> {
        match (self, end) {
            (EventImpl::Cuda(a), EventImpl::Cuda(b)) => {
                let ms = a.elapsed_ms(b)?;
                Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1000.0))
            }
            (EventImpl::Sim(a), EventImpl::Sim(b)) => match (a.completed_at(), b.completed_at()) {
                (Some(x), Some(y)) if y >= x => Ok(y - x),
                (Some(_), Some(_)) => Err(Error::InvalidArgument {
                    op: "event elapsed",
                    reason: "the end event completed before the start event".into(),
                }),
                _ => Err(Error::InvalidArgument {
                    op: "event elapsed",
                    reason: "both events must be recorded and completed".into(),
                }),
            },
            _ => Err(mixed("event elapsed")),
        }
    }
}

/// A gate of either driver.
pub(crate) enum GateImpl {
    Cuda(CudaGate),
    Sim(SimGate),
}

impl GateImpl {
    pub fn open(&self) {
        match self {
            GateImpl::Cuda(g) => g.open(),
            GateImpl::Sim(g) => g.open(),
        }
    }

    pub fn is_open(&self) -> bool {
        match self {
            GateImpl::Cuda(g) => g.is_open(),
            GateImpl::Sim(g) => g.is_open(),
        }
    }
}

/// Host memory owned by the library for asynchronous copies.
pub(crate) enum HostAlloc {
    Pinned(PinnedHost),
    Sim(crate::sim::HostAlloc),
}

impl HostAlloc {
    pub fn ptr(&self) -> *mut u8 {
        match self {
            HostAlloc::Pinned(p) => p.ptr,
            HostAlloc::Sim(h) => h.ptr,
        }
    }

    /// Whether freeing it may have to wait for copies (pinned memory).
    pub fn is_pinned(&self) -> bool {
        matches!(self, HostAlloc::Pinned(_))
    }
}

/// A communicator rank of either driver.
/// A captured graph of either driver (`CommImpl::capture`).
pub(crate) enum GraphImpl {
    /// The sim replays the captured operations themselves.
    Sim,
    Cuda(crate::cuda::graph::CudaGraphExec),
}

pub(crate) enum CommImpl {
    Cuda {
        comm: CudaComm,
        device: Arc<CudaDevice>,
    },
    Sim(SimCommunicator),
}

impl CommImpl {
    pub fn kind(&self) -> DriverKind {
        match self {
            CommImpl::Cuda { .. } => DriverKind::Cuda,
            CommImpl::Sim(_) => DriverKind::Sim,
        }
    }

    pub fn is_ready(&self) -> Result<bool> {
        match self {
            CommImpl::Sim(c) => Ok(c.is_ready()),
            CommImpl::Cuda { comm, device } => {
                let _guard = device.nccl_lock();
                comm.is_ready()
            }
        }
    }

    /// Waits for every rank on the sim; `None` means the caller polls (cuda).
    pub fn wait_ready_sim(&self, timeout: Duration) -> Option<Result<()>> {
        match self {
            CommImpl::Sim(c) => Some(c.wait_ready(timeout)),
            CommImpl::Cuda { .. } => None,
        }
    }

    /// Refuses a launch before anything is enqueued when the communicator cannot take
    /// one (the sim before every rank joined).
    pub fn check_ready(&self, op: &'static str) -> Result<()> {
        match self {
            CommImpl::Sim(c) => c.check_ready(op),
            CommImpl::Cuda { .. } => Ok(()),
        }
    }

    /// Before a launch enqueues anything: on the sim, waits at most the call timeout for
    /// room among the operations it holds pending ([`Error::PendingLimit`] if none
    /// comes); nothing on cuda, whose launch queue is the only limit.
    pub fn room_before_launch(&self, ops: &[LaunchOp], config: &Config) -> Result<()> {
        match self {
            CommImpl::Sim(c) => c.room_before_launch(ops, config.call_timeout),
            CommImpl::Cuda { .. } => Ok(()),
        }
    }

    /// Launches `ops` as one group on `stream`, polled until enqueued.
    ///
    /// `mark`: the launch's launch-completion event (carried by the op whose
    /// `launch_event` is set).
    pub fn launch(
        &self,
        stream: &StreamImpl,
        ops: Vec<LaunchOp>,
        config: &Config,
        mark: Option<&EventImpl>,
    ) -> Result<()> {
        match (self, stream, mark) {
            (CommImpl::Sim(c), StreamImpl::Sim(s), None) => {
                c.launch(s, ops, config.call_timeout, None)
            }
            (CommImpl::Sim(c), StreamImpl::Sim(s), Some(EventImpl::Sim(e))) => {
                c.launch(s, ops, config.call_timeout, Some(e))
            }
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s), None) => {
                comm.launch(device, s, &ops, config, None)
            }
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s), Some(EventImpl::Cuda(e))) => {
                comm.launch(device, s, &ops, config, Some(e.raw))
            }
            _ => Err(mixed("collective")),
        }
    }

    /// Captures `ops` into a graph without running them: on cuda a CUDA graph of the
    /// NCCL calls issued on `stream`; on the sim the operations themselves, launched
    /// again at each replay.
    pub fn capture(
        &self,
        stream: &StreamImpl,
        ops: &[LaunchOp],
        config: &Config,
        mark: Option<&EventImpl>,
    ) -> Result<GraphImpl> {
        match (self, stream) {
            (CommImpl::Sim(_), StreamImpl::Sim(_)) => Ok(GraphImpl::Sim),
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s)) => {
                let event = match mark {
                    None => None,
                    Some(EventImpl::Cuda(e)) => Some(e.raw),
                    Some(EventImpl::Sim(_)) => return Err(mixed("capture")),
                };
                let part: crate::cuda::comm::Part<'_> = (comm, device, s, ops, config, event);
                Ok(GraphImpl::Cuda(crate::cuda::graph::capture(&part)?))
            }
            _ => Err(mixed("capture")),
        }
    }

    /// Replays a graph on `stream`: the sim launches `ops` again; cuda launches the
    /// CUDA graph.
    pub fn launch_graph(
        &self,
        stream: &StreamImpl,
        graph: &GraphImpl,
        ops: Vec<LaunchOp>,
        config: &Config,
        mark: Option<&EventImpl>,
    ) -> Result<()> {
        match (graph, stream) {
            (GraphImpl::Sim, _) => self.launch(stream, ops, config, mark),
            (GraphImpl::Cuda(exec), StreamImpl::Cuda(s)) => exec.launch(s),
            _ => Err(mixed("graph launch")),
        }
    }

    /// Whether a failed launch left this communicator to be aborted by its owner (on
    /// cuda, once calls were issued: see `cuda::comm::launch_group`; the sim fails a
    /// launch before it enqueues anything, and only tests set it there). It stays set:
    /// the abort ends the communicator.
    pub fn needs_abort(&self) -> bool {
        match self {
            CommImpl::Sim(c) => c.needs_abort(),
            CommImpl::Cuda { comm, .. } => comm.needs_abort(),
        }
    }

    /// Records that this rank's coming abort follows rank `cause`'s failure (the sim
    /// then names `cause` to peers that see this abort; NCCL has no such notion).
    pub fn note_cause(&self, cause: usize) {
        if let CommImpl::Sim(c) = self {
            c.note_cause(cause);
        }
    }

    /// Stops this communicator's operations without freeing anything, so never waits
    /// for the device: the sim's abort flag; on cuda `ncclCommRevoke` where the loaded
    /// NCCL has it (`false` when it has not: only a full abort can stop the kernels).
    pub fn signal_abort(&self) -> bool {
        match self {
            CommImpl::Sim(c) => {
                c.signal_abort();
                true
            }
            CommImpl::Cuda { comm, device } => comm.revoke(device),
        }
    }

    /// Aborts and frees; frees wait for the device's work (CUDA's implicit
    /// synchronisation; the sim models it, at most `timeout`).
    pub fn abort(&self, timeout: Duration) -> Result<()> {
        match self {
            CommImpl::Sim(c) => c.abort(timeout),
            CommImpl::Cuda { comm, device } => comm.abort(device),
        }
    }

    /// Finalizes on cuda; `None` on the sim, where the caller waits for its own events.
    pub fn finalize_cuda(&self, timeout: Duration) -> Option<Result<()>> {
        match self {
            CommImpl::Sim(_) => None,
            CommImpl::Cuda { comm, device } => Some(comm.finalize(device, timeout)),
        }
    }

    /// Destroys; on the sim, then waits (at most `timeout`) for the device's work, as
    /// `ncclCommDestroy`'s frees do on a GPU.
    pub fn destroy(&self, timeout: Duration) -> Result<()> {
        match self {
            CommImpl::Sim(c) => c.destroy(timeout),
            CommImpl::Cuda { comm, device } => comm.destroy(device),
        }
    }

    pub fn async_error(&self) -> Result<Option<Error>> {
        match self {
            CommImpl::Sim(c) => Ok(c.async_error()),
            CommImpl::Cuda { comm, device } => {
                let _guard = device.nccl_lock();
                comm.async_error()
            }
        }
    }

    /// Splits: this rank's new rank, size and communicator, if it has a colour.
    pub fn split(
        &self,
        color: Option<u32>,
        key: i32,
        config: &Config,
        parent_config: &Config,
    ) -> Result<Option<(usize, usize, CommImpl)>> {
        match self {
            CommImpl::Sim(c) => {
                // As on cuda: the split waits for the other ranks at most the parent's
                // call timeout, blocking or not.
                let timeout = Some(parent_config.call_timeout);
                Ok(c.split(color, key, timeout)?
                    .map(|(rank, size, c)| (rank, size, CommImpl::Sim(c))))
            }
            CommImpl::Cuda { comm, device } => {
                let out = comm.split(device, color, key, config, parent_config.call_timeout)?;
                Ok(out.map(|(rank, size, comm)| {
                    (
                        rank,
                        size,
                        CommImpl::Cuda {
                            comm,
                            device: device.clone(),
                        },
                    )
                }))
            }
        }
    }
}

impl CommImpl {
    /// Registers `bytes` at `addr` with NCCL: its handle (0 on the sim, where the
    /// safe layer keeps the registry).
    pub fn register(&self, addr: u64, bytes: usize) -> Result<usize> {
        match self {
            CommImpl::Sim(_) => Ok(0),
            CommImpl::Cuda { comm, device } => comm.register(device, addr, bytes),
        }
    }

    /// `ncclCommWindowRegister` (cuda only; the sim's windows live in the safe layer):
    /// the window, 0 for none.
    pub fn register_window(
        &self,
        addr: u64,
        bytes: usize,
        flags: i32,
        timeout: Duration,
    ) -> Result<usize> {
        match self {
            CommImpl::Sim(c) => c.register_window(addr, bytes, flags & 0x01 != 0),
            CommImpl::Cuda { comm, device } => {
                comm.register_window(device, addr, bytes, flags, timeout)
            }
        }
    }

    /// Releases a window; nothing once NCCL's communicator is gone.
    pub fn deregister_window(&self, raw: usize) -> Result<()> {
        match self {
            CommImpl::Sim(c) => {
                c.release_window(raw);
                Ok(())
            }
            CommImpl::Cuda { comm, device } => comm.deregister_window(device, raw),
        }
    }

    /// A one-sided put of `src` (device address, elements, type) into window `win` of
    /// `peer` at byte `offset`, then a signal to it; without `src`, the signal alone.
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal(
        &self,
        stream: &StreamImpl,
        config: &Config,
        src: Option<(u64, usize, DType)>,
        peer: usize,
        win: usize,
        offset: usize,
    ) -> Result<()> {
        match (self, stream) {
            (CommImpl::Sim(c), StreamImpl::Sim(s)) => c.put(
                s,
                crate::sim::Put {
                    src: src.map(|(addr, count, dtype)| (addr, count * dtype.size())),
                    peer,
                    window: win,
                    offset,
                },
            ),
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s)) => {
                comm.put_signal(device, s, config, src, peer, win, offset)
            }
            _ => Err(mixed("put_signal")),
        }
    }

    /// Waits on `stream` for `count` more signals from each `(peer, count)`.
    pub fn wait_signal(
        &self,
        stream: &StreamImpl,
        config: &Config,
        waits: &[(usize, u32)],
    ) -> Result<()> {
        match (self, stream) {
            (CommImpl::Sim(c), StreamImpl::Sim(s)) => c.wait_signal(s, waits),
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s)) => {
                comm.wait_signal(device, s, config, waits)
            }
            _ => Err(mixed("wait_signal")),
        }
    }

    /// Releases a registration; nothing once NCCL's communicator is gone.
    pub fn deregister(&self, handle: usize) -> Result<()> {
        match self {
            CommImpl::Sim(_) => Ok(()),
            CommImpl::Cuda { comm, device } => comm.deregister(device, handle),
        }
    }

    /// NCCL's suspend of the communicator's memory; the sim holds none to free. The
    /// caller has met every rank and enforces the state.
    pub fn suspend(&self) -> Result<()> {
        match self {
            CommImpl::Sim(_) => Ok(()),
            CommImpl::Cuda { comm, device } => comm.suspend(device),
        }
    }

    /// NCCL's resume (every rank meets inside it); nothing to take back on the sim.
    pub fn resume(&self) -> Result<()> {
        match self {
            CommImpl::Sim(_) => Ok(()),
            CommImpl::Cuda { comm, device } => comm.resume(device),
        }
    }

    /// NCCL's memory statistics; on the sim, no memory and the state's flag.
    pub fn mem_stats(&self, suspended: bool) -> Result<crate::base::types::MemStats> {
        match self {
            CommImpl::Sim(_) => Ok(crate::base::types::MemStats {
                suspendable: 0,
                persistent: 0,
                total: 0,
                suspended,
            }),
            CommImpl::Cuda { comm, device } => comm.mem_stats(device),
        }
    }

    /// Stops this rank's operations and waits (at most `timeout`) until the
    /// communicator is quiescent: the sim's abort flag; cuda's `ncclCommRevoke`
    /// polled until NCCL reports it quiescent.
    pub fn revoke(&self, timeout: Duration) -> Result<()> {
        match self {
            CommImpl::Sim(c) => {
                c.signal_revoke();
                Ok(())
            }
            CommImpl::Cuda { comm, device } => comm.revoke_quiesced(device, timeout),
        }
    }

    /// Shrinks without the (sorted, checked) ranks of `exclude`: this rank's new rank,
    /// the new size, the new communicator. `abort_first`: the parent's work is stopped
    /// first (cuda's `NCCL_SHRINK_ABORT`; the sim's abort flag).
    pub fn shrink(
        &self,
        exclude: &[usize],
        abort_first: bool,
        config: &Config,
        parent_config: &Config,
    ) -> Result<(usize, usize, CommImpl)> {
        let timeout = parent_config.call_timeout;
        match self {
            CommImpl::Sim(c) => {
                if abort_first {
                    c.signal_revoke();
                }
                let (rank, size, c) = c.shrink(exclude, Some(timeout))?;
                Ok((rank, size, CommImpl::Sim(c)))
            }
            CommImpl::Cuda { comm, device } => {
                let (rank, size, comm) =
                    comm.shrink(device, exclude, abort_first, config, timeout)?;
                Ok((
                    rank,
                    size,
                    CommImpl::Cuda {
                        comm,
                        device: device.clone(),
                    },
                ))
            }
        }
    }

    /// The id of this communicator's next grow (`ncclCommGetUniqueId`).
    pub fn grow_id(&self) -> Result<[u8; 128]> {
        match self {
            CommImpl::Sim(c) => c.grow_id(),
            CommImpl::Cuda { comm, device } => comm.grow_id(device),
        }
    }

    /// Grows to `size` ranks, as an existing rank (`id` on the rank that made it).
    pub fn grow(
        &self,
        size: usize,
        id: Option<&[u8; 128]>,
        config: &Config,
        parent_config: &Config,
    ) -> Result<CommImpl> {
        let timeout = parent_config.call_timeout;
        match self {
            CommImpl::Sim(c) => Ok(CommImpl::Sim(c.grow(size, id, Some(timeout))?)),
            CommImpl::Cuda { comm, device } => {
                let comm = comm.grow(device, size, id, config, timeout)?;
                Ok(CommImpl::Cuda {
                    comm,
                    device: device.clone(),
                })
            }
        }
    }
}

impl DeviceImpl {
    /// Joins a grow as new rank `rank` of `size` with `id` (made by an existing
    /// rank), waiting at most the config's call timeout.
    pub fn join_grown(
        &self,
        id: &[u8; 128],
        rank: usize,
        size: usize,
        config: &Config,
    ) -> Result<CommImpl> {
        let timeout = config.call_timeout;
        match self {
            DeviceImpl::Sim(_) if !crate::sim::is_grow_id(id) => Err(Error::InvalidArgument {
                op: "join_grown",
                reason: "this id was not made by grow_id (an existing rank's \
                             Communicator::grow_id makes it); a new communicator is made \
                             with Communicator::init"
                    .into(),
            }),
            DeviceImpl::Sim(d) => Ok(CommImpl::Sim(SimCommunicator::join_grown(
                id,
                rank,
                size,
                d,
                Some(timeout),
            )?)),
            DeviceImpl::Cuda(d) => {
                refuse_sim_id(id)?;
                let comm = crate::cuda::join_grown(d, rank, size, id, config, timeout)?;
                Ok(CommImpl::Cuda {
                    comm,
                    device: d.clone(),
                })
            }
        }
    }
}

/// One communicator's part of [`launch_cuda_group`]: its stream, operations, config and
/// launch-completion event.
pub(crate) type CudaLaunch<'a> = (
    &'a CommImpl,
    &'a StreamImpl,
    &'a [LaunchOp],
    &'a Config,
    Option<&'a EventImpl>,
);

/// Launches the calls of several cuda communicators of this process in one NCCL group
/// (one process driving several GPUs). The caller has inserted the buffers' waits.
pub(crate) fn launch_cuda_group(launches: &[CudaLaunch<'_>]) -> Result<()> {
    let mut parts = Vec::with_capacity(launches.len());
    for (comm, stream, ops, config, mark) in launches {
        let event = match mark {
            None => None,
            Some(EventImpl::Cuda(e)) => Some(e.raw),
            Some(EventImpl::Sim(_)) => return Err(mixed("group")),
        };
        match (comm, stream) {
            (CommImpl::Cuda { comm, device }, StreamImpl::Cuda(s)) => {
                parts.push((comm, device, s, *ops, *config, event));
            }
            _ => {
                return Err(Error::InvalidUsage {
                    op: "group",
                    reason: "sim and cuda communicators in one group".into(),
                });
            }
        }
    }
    let parts: Vec<crate::cuda::comm::Part<'_>> = parts
        .iter()
        .map(|(c, d, s, ops, cfg, ev)| (*c, d.as_ref(), *s, *ops, *cfg, *ev))
        .collect();
    crate::cuda::comm::launch_group(&parts)
}

/// Finalizes several cuda communicators of this process in one NCCL group, then polls
/// each under its deadline.
pub(crate) fn finalize_cuda_group(comms: &[(&CommImpl, Duration)]) -> Result<()> {
    let mut parts = Vec::with_capacity(comms.len());
    for (c, timeout) in comms {
        match c {
            CommImpl::Cuda { comm, device } => parts.push((comm, device.as_ref(), *timeout)),
            CommImpl::Sim(_) => return Err(mixed("group finalize")),
        }
    }
    crate::cuda::comm::finalize_many(&parts)
}
