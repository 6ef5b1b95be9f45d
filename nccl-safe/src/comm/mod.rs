//! Communicators, stream-ordered collectives and groups.

pub(crate) mod cuda;
pub(crate) mod sim;

use std::cell::RefCell;
use std::ffi::CString;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::device::DeviceImpl;
use crate::lock;
use crate::memory::{OwnedUse, Use, enqueue};
use crate::stream::{EventImpl, StreamImpl, check_same_device};
use crate::{
    DType, DataType, Device, DeviceBuffer, DeviceView, DeviceViewMut, DriverKind, Error, Result,
    Stream,
};

/// The 128 bytes that name a communicator's rendezvous. Rank 0 creates it and sends
/// it to the others out of band.
///
/// ```
/// let id = nccl_safe::UniqueId::random();
/// let copy = nccl_safe::UniqueId::from_bytes(id.as_bytes())?;
/// assert_eq!(id, copy);
/// assert!(!format!("{id:?}").contains(", ")); // Debug prints a fingerprint only
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId([u8; 128]);

impl UniqueId {
    /// A new id from NCCL (`ncclGetUniqueId`), usable on both drivers. Needs libnccl
    /// (not a GPU).
    ///
    /// # Errors
    ///
    /// [`Error::Load`] without libnccl; [`Error::Nccl`] if NCCL fails (no network
    /// interface for its bootstrap, for instance).
    pub fn new() -> Result<UniqueId> {
        let lib = nccl_sys::nccl()?;
        let mut raw = nccl_sys::ncclUniqueId::default();
        // SAFETY: writes one ncclUniqueId.
        crate::check("ncclGetUniqueId", unsafe { lib.ncclGetUniqueId(&mut raw)? })?;
        let mut bytes = [0u8; 128];
        for (b, c) in bytes.iter_mut().zip(raw.internal.iter()) {
            *b = *c as u8;
        }
        Ok(UniqueId(bytes))
    }

    /// A random id, without libnccl: good for the sim driver only (NCCL rejects it).
    pub fn random() -> UniqueId {
        use std::hash::{BuildHasher, Hasher};
        let state = std::collections::hash_map::RandomState::new();
        let mut bytes = [0u8; 128];
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = state.build_hasher();
            h.write_usize(i);
            h.write_u128(Instant::now().elapsed().as_nanos());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
        bytes[..8].copy_from_slice(b"ncclrsim");
        UniqueId(bytes)
    }

    /// An id received from rank 0.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] unless `bytes` has exactly 128 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let arr: [u8; 128] = bytes.try_into().map_err(|_| Error::LengthMismatch {
            op: "unique id from bytes",
            expected: 128,
            actual: bytes.len(),
        })?;
        Ok(UniqueId(arr))
    }

    /// The 128 bytes, to send to the other ranks.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    fn raw(&self) -> nccl_sys::ncclUniqueId {
        let mut raw = nccl_sys::ncclUniqueId::default();
        for (c, b) in raw.internal.iter_mut().zip(self.0.iter()) {
            *c = *b as std::ffi::c_char;
        }
        raw
    }

    fn fingerprint(&self) -> u64 {
        self.0.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        })
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId({:016x})", self.fingerprint())
    }
}

/// Communicator settings: NCCL's `ncclConfig_t` fields, filled exactly as
/// `NCCL_CONFIG_INITIALIZER` (unset fields stay "undefined", so NCCL picks its
/// defaults), plus this library's own deadlines.
///
/// The struct carries the header's size and version; an older loaded NCCL reads only
/// the fields its version knows and ignores newer ones.
///
/// ```
/// use nccl_safe::Config;
/// let config = Config::new().blocking(false).comm_name("grads").max_ctas(16);
/// assert!(!config.is_blocking());
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    blocking: Option<bool>,
    cga_cluster_size: Option<u32>,
    min_ctas: Option<u32>,
    max_ctas: Option<u32>,
    net_name: Option<String>,
    split_share: Option<bool>,
    traffic_class: Option<u32>,
    comm_name: Option<String>,
    collnet_enable: Option<bool>,
    call_timeout: Duration,
    teardown_timeout: Duration,
}

/// Builder methods that set one optional `ncclConfig_t` field.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Config {
                self.$name = Some(value);
                self
            }
        )*
    };
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// Everything unset: a blocking communicator with NCCL's defaults.
    pub fn new() -> Config {
        Config {
            blocking: None,
            cga_cluster_size: None,
            min_ctas: None,
            max_ctas: None,
            net_name: None,
            split_share: None,
            traffic_class: None,
            comm_name: None,
            collnet_enable: None,
            call_timeout: Duration::from_secs(300),
            teardown_timeout: Duration::from_secs(30),
        }
    }

    /// `false` makes the communicator non-blocking: init returns before every rank
    /// joined ([`Communicator::wait_ready`]), and it can be aborted from another
    /// thread ([`Communicator::abort_handle`]).
    pub fn blocking(mut self, blocking: bool) -> Config {
        self.blocking = Some(blocking);
        self
    }

    /// Whether communicators made with this config block (the default).
    pub fn is_blocking(&self) -> bool {
        self.blocking.unwrap_or(true)
    }

    setters! {
        /// Thread-block cluster size (`cgaClusterSize`, 0..=8).
        cga_cluster_size: u32;
        /// Minimum number of CTAs (`minCTAs`).
        min_ctas: u32;
        /// Maximum number of CTAs (`maxCTAs`).
        max_ctas: u32;
        /// Share resources with the parent in `split` (`splitShare`).
        split_share: bool;
        /// Network traffic class (`trafficClass`).
        traffic_class: u32;
        /// Enable CollNet (`collnetEnable`).
        collnet_enable: bool;
    }

    /// Network plugin name (`netName`).
    pub fn net_name(mut self, name: &str) -> Config {
        self.net_name = Some(name.to_string());
        self
    }

    /// A name for logs and profilers (`commName`).
    pub fn comm_name(mut self, name: &str) -> Config {
        self.comm_name = Some(name.to_string());
        self
    }

    /// How long a call on a non-blocking communicator may stay in progress before it
    /// is reported as a timeout (default 300 s).
    pub fn call_timeout(mut self, timeout: Duration) -> Config {
        self.call_timeout = timeout;
        self
    }

    /// How long `Drop` and [`Communicator::close`] wait for outstanding work before
    /// aborting (default 30 s).
    pub fn teardown_timeout(mut self, timeout: Duration) -> Config {
        self.teardown_timeout = timeout;
        self
    }

    /// Checks the values NCCL would reject, before any driver call.
    fn validate(&self) -> Result<()> {
        let bad = |reason: String| {
            Err(Error::InvalidArgument {
                op: "config",
                reason,
            })
        };
        if let Some(c) = self.cga_cluster_size {
            if c > 8 {
                return bad(format!("cga_cluster_size {c} is above 8"));
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_ctas, self.max_ctas) {
            if lo > hi {
                return bad(format!("min_ctas {lo} is above max_ctas {hi}"));
            }
        }
        for (what, v) in [("min_ctas", self.min_ctas), ("max_ctas", self.max_ctas)] {
            if v == Some(0) || v.is_some_and(|v| v > i32::MAX as u32) {
                return bad(format!(
                    "{what} {} must be at least 1",
                    v.unwrap_or_default()
                ));
            }
        }
        for (what, v) in [("comm_name", &self.comm_name), ("net_name", &self.net_name)] {
            if v.as_ref().is_some_and(|s| s.contains('\0')) {
                return bad(format!("{what} {v:?} contains a NUL byte"));
            }
        }
        Ok(())
    }

    /// The `ncclConfig_t`, and the strings it points into (keep them alive while it is
    /// used).
    pub(crate) fn to_raw(&self) -> Result<(nccl_sys::ncclConfig_t, Vec<CString>)> {
        self.validate()?;
        const UNDEF: i32 = i32::MIN;
        let int = |v: Option<u32>| v.map_or(UNDEF, |v| v as i32);
        let flag = |v: Option<bool>| v.map_or(UNDEF, i32::from);
        let mut strings = Vec::new();
        let mut text = |v: &Option<String>| -> *const std::ffi::c_char {
            match v {
                Some(s) => {
                    let c = CString::new(s.as_str()).expect("validated: no NUL");
                    let p = c.as_ptr();
                    strings.push(c);
                    p
                }
                None => std::ptr::null(),
            }
        };
        let mut raw = nccl_sys::ncclConfig_t {
            size: std::mem::size_of::<nccl_sys::ncclConfig_t>(),
            magic: nccl_sys::NCCL_API_MAGIC,
            version: nccl_sys::NCCL_VERSION_CODE,
            blocking: flag(self.blocking),
            cgaClusterSize: int(self.cga_cluster_size),
            minCTAs: int(self.min_ctas),
            maxCTAs: int(self.max_ctas),
            netName: text(&self.net_name),
            splitShare: flag(self.split_share),
            trafficClass: int(self.traffic_class),
            commName: text(&self.comm_name),
            collnetEnable: flag(self.collnet_enable),
            ..nccl_sys::ncclConfig_t::default()
        };
        // Every remaining field is an int that the initializer leaves undefined.
        fill_undefined_tail(&mut raw);
        Ok((raw, strings))
    }
}

/// Sets every `int` field after `collnetEnable` to `NCCL_CONFIG_UNDEF_INT`, as the
/// header's initializer does (the fields differ between NCCL releases; all are ints).
fn fill_undefined_tail(raw: &mut nccl_sys::ncclConfig_t) {
    let start = std::mem::offset_of!(nccl_sys::ncclConfig_t, collnetEnable) + 4;
    let end = std::mem::size_of::<nccl_sys::ncclConfig_t>();
    let base = (raw as *mut nccl_sys::ncclConfig_t).cast::<u8>();
    let mut off = start;
    while off + 4 <= end {
        // SAFETY: `off` stays inside the struct; every field from there on is a
        // 4-byte-aligned `int` (checked by the layout test in this module).
        unsafe { base.add(off).cast::<i32>().write(i32::MIN) };
        off += 4;
    }
}

/// A reduction for the reducing collectives.
#[derive(Clone, Copy, Debug)]
pub enum ReduceOp<'a, T: DataType> {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Average (sum divided by the number of ranks; integer averages truncate).
    Avg,
    /// Each rank's input times its own scalar, then summed. An op is created per
    /// call and destroyed right after it (NCCL copies its state at the call).
    PreMulSum(T),
    /// As `PreMulSum`, with the scalar read from a one-element device buffer when the
    /// collective runs (a tracked read of that buffer).
    PreMulSumDevice(DeviceView<'a, T>),
}

/// What kind of operation; the sim compares these across ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Gather,
    Scatter,
    Send,
    Recv,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::AllReduce => "all_reduce",
            Kind::Broadcast => "broadcast",
            Kind::Reduce => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter => "reduce_scatter",
            Kind::AllToAll => "all_to_all",
            Kind::Gather => "gather",
            Kind::Scatter => "scatter",
            Kind::Send => "send",
            Kind::Recv => "recv",
        }
    }
}

/// A reduction as the backends see it.
#[derive(Clone, Debug)]
pub(crate) enum RedOp {
    None,
    Sum,
    Prod,
    Max,
    Min,
    Avg,
    PreMulSumHost(Vec<u8>),
    PreMulSumDevice,
}

impl RedOp {
    fn name(&self) -> &'static str {
        match self {
            RedOp::None => "",
            RedOp::Sum => "sum",
            RedOp::Prod => "prod",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::Avg => "avg",
            RedOp::PreMulSumHost(_) | RedOp::PreMulSumDevice => "premulsum",
        }
    }
}

/// What one rank issued; equal descriptions on every rank are NCCL's contract.
#[derive(Clone, Debug)]
pub(crate) struct OpDesc {
    pub kind: Kind,
    pub count: usize,
    pub dtype: DType,
    /// Root of rooted collectives, peer of send/recv.
    pub root: Option<usize>,
    pub op: RedOp,
}

impl PartialEq for OpDesc {
    fn eq(&self, o: &OpDesc) -> bool {
        // Scalars of PreMulSum are each rank's own; the kind of op must agree.
        self.kind == o.kind
            && self.count == o.count
            && self.dtype == o.dtype
            && self.root == o.root
            && self.op.name() == o.op.name()
    }
}

impl fmt::Display for OpDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}(count {}, {}",
            self.kind.name(),
            self.count,
            self.dtype
        )?;
        if !matches!(self.op, RedOp::None) {
            write!(f, ", {}", self.op.name())?;
        }
        match (self.kind, self.root) {
            (Kind::Send | Kind::Recv, Some(p)) => write!(f, ", peer {p}")?,
            (_, Some(r)) => write!(f, ", root {r}")?,
            _ => {}
        }
        f.write_str(")")
    }
}

/// Things that can be read as a device view: buffers and views.
pub trait AsDeviceView<T: DataType> {
    /// The whole of it, read-only.
    fn device_view(&self) -> DeviceView<'_, T>;
}

/// Things that can be written as a device view: buffers and writable views.
pub trait AsDeviceViewMut<T: DataType>: AsDeviceView<T> {
    /// The whole of it, writable.
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T>;
}

impl<T: DataType> AsDeviceView<T> for DeviceBuffer<T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        self.as_view()
    }
}

impl<T: DataType> AsDeviceViewMut<T> for DeviceBuffer<T> {
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.as_view_mut()
    }
}

impl<T: DataType> AsDeviceView<T> for DeviceView<'_, T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        *self
    }
}

impl<T: DataType> AsDeviceView<T> for DeviceViewMut<'_, T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        self.as_view()
    }
}

impl<T: DataType> AsDeviceViewMut<T> for DeviceViewMut<'_, T> {
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.reborrow()
    }
}

/// One operation, ready to launch: what it is, where, and the buffer uses it makes.
pub(crate) struct Call {
    pub desc: OpDesc,
    pub send: Option<u64>,
    pub send_len: usize,
    pub recv: Option<u64>,
    pub scalar: Option<u64>,
    uses: Vec<OwnedUse>,
}

impl Call {
    fn new(desc: OpDesc, uses: Vec<OwnedUse>) -> Call {
        Call {
            desc,
            send: None,
            send_len: 0,
            recv: None,
            scalar: None,
            uses,
        }
    }

    fn send(mut self, addr: Option<u64>, len: usize) -> Call {
        self.send = addr;
        self.send_len = len;
        self
    }

    fn recv(mut self, addr: Option<u64>) -> Call {
        self.recv = addr;
        self
    }

    fn scalar(mut self, addr: Option<u64>) -> Call {
        self.scalar = addr;
        self
    }
}

enum Backend {
    Sim {
        joining: Mutex<Option<sim::Joining>>,
        comm: OnceLock<sim::SimComm>,
    },
    Cuda(cuda::CudaComm),
}

pub(crate) struct CommInner {
    device: Device,
    rank: usize,
    size: usize,
    config: Config,
    backend: Backend,
    aborted: AtomicBool,
    closed: AtomicBool,
    /// Events after each launch: the work still outstanding.
    pending: Mutex<Vec<Arc<EventImpl>>>,
}

impl CommInner {
    fn new(
        device: Device,
        rank: usize,
        size: usize,
        config: Config,
        backend: Backend,
    ) -> Arc<CommInner> {
        Arc::new(CommInner {
            device,
            rank,
            size,
            config,
            backend,
            aborted: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            pending: Mutex::new(Vec::new()),
        })
    }

    fn outstanding(&self) -> usize {
        let mut p = lock(&self.pending);
        p.retain(|e| !matches!(e.query(), Ok(true)));
        p.len()
    }

    fn check_usable(&self, op: &'static str) -> Result<()> {
        if self.aborted.load(Ordering::Acquire) {
            return Err(Error::Aborted {
                what: format!("{op} on rank {} of {}", self.rank, self.size),
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

    fn sim(&self, op: &'static str) -> Result<&sim::SimComm> {
        match &self.backend {
            Backend::Sim { joining, comm } => {
                if let Some(c) = comm.get() {
                    return Ok(c);
                }
                let mut j = lock(joining);
                if let Some(shared) = j.as_ref().and_then(sim::Joining::poll) {
                    *j = None;
                    let dev = match &self.device.inner.imp {
                        DeviceImpl::Sim(d) => d.clone(),
                        DeviceImpl::Cuda(_) => unreachable!("sim backend on a sim device"),
                    };
                    let _ = comm.set(sim::SimComm::new(shared, self.rank, dev));
                    return Ok(comm.get().expect("just set"));
                }
                Err(Error::InvalidUsage {
                    op,
                    reason: "the communicator is not ready: not every rank has joined (wait_ready)"
                        .into(),
                })
            }
            Backend::Cuda(_) => Err(Error::Unsupported {
                driver: DriverKind::Cuda,
                what: "sim communicator",
            }),
        }
    }

    fn is_ready(&self) -> Result<bool> {
        self.check_usable("is_ready")?;
        match &self.backend {
            Backend::Sim { .. } => Ok(self.sim("is_ready").is_ok()),
            Backend::Cuda(c) => {
                let _guard = self.device.nccl_lock();
                c.is_ready()
            }
        }
    }

    fn wait_ready(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        match &self.backend {
            Backend::Sim { joining, .. } => {
                if self.sim("wait_ready").is_ok() {
                    return Ok(());
                }
                let j = lock(joining).as_ref().map(|j| j.wait(Some(timeout)));
                if let Some(r) = j {
                    r?;
                }
                self.sim("wait_ready").map(|_| ())
            }
            Backend::Cuda(_) => loop {
                if self.is_ready()? {
                    return Ok(());
                }
                if Instant::now() >= deadline {
                    return Err(Error::InitTimeout {
                        waited: timeout,
                        missing: Vec::new(),
                    });
                }
                std::thread::sleep(Duration::from_micros(200));
            },
        }
    }

    /// Launches `calls` on `stream` now: tracked waits, the backend's launch, the
    /// buffers' new uses.
    fn launch(&self, stream: &Stream, calls: Vec<Call>) -> Result<()> {
        self.check_usable("launch")?;
        check_same_device("collective", &self.device, stream.device())?;
        let owned: Vec<&OwnedUse> = calls.iter().flat_map(|c| c.uses.iter()).collect();
        let uses: Vec<Use<'_>> = owned.iter().map(|u| u.borrow()).collect();
        match &self.backend {
            Backend::Sim { .. } => {
                let _guard = self.device.nccl_lock();
                let comm = self.sim("collective")?;
                let _inside = sim::Inside::enter(self.device.ordinal(), "collective")?;
                enqueue(&stream.inner, &uses, |imp| match imp {
                    StreamImpl::Sim(s) => comm.launch(
                        s,
                        calls
                            .iter()
                            .map(|c| sim::SimOp {
                                desc: c.desc.clone(),
                                send_len: c.send_len,
                                send: c.send,
                                recv: c.recv,
                                scalar: c.scalar,
                            })
                            .collect(),
                    ),
                    StreamImpl::Cuda(_) => Err(Error::Unsupported {
                        driver: DriverKind::Cuda,
                        what: "sim launch",
                    }),
                })?;
            }
            Backend::Cuda(c) => {
                enqueue(&stream.inner, &uses, |imp| match imp {
                    StreamImpl::Cuda(s) => c.launch(&self.device, s, &calls, &self.config),
                    StreamImpl::Sim(_) => Err(Error::Unsupported {
                        driver: DriverKind::Sim,
                        what: "cuda launch",
                    }),
                })?;
            }
        }
        let event = stream.inner.record_new()?;
        lock(&self.pending).push(event);
        Ok(())
    }

    fn abort_now(&self) -> Result<()> {
        if self.aborted.swap(true, Ordering::AcqRel) || self.closed.load(Ordering::Acquire) {
            return Ok(());
        }
        match &self.backend {
            Backend::Sim { comm, .. } => {
                if let Some(c) = comm.get() {
                    c.abort();
                }
                Ok(())
            }
            Backend::Cuda(c) => c.abort(&self.device),
        }
    }

    /// Waits for outstanding work up to the teardown deadline.
    fn finalize(&self) -> Result<()> {
        self.check_usable("finalize")?;
        match &self.backend {
            Backend::Sim { .. } => {
                let deadline = Instant::now() + self.config.teardown_timeout;
                let pending: Vec<_> = lock(&self.pending).clone();
                for e in pending {
                    let left = deadline.saturating_duration_since(Instant::now());
                    e.synchronize(Some(left)).map_err(|err| match err {
                        Error::Timeout { .. } => Error::Timeout {
                            op: "communicator finalize",
                            waited: self.config.teardown_timeout,
                        },
                        other => other,
                    })?;
                }
                Ok(())
            }
            Backend::Cuda(c) => c.finalize(&self.device, self.config.teardown_timeout),
        }
    }

    fn destroy(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        match &self.backend {
            Backend::Sim { comm, .. } => {
                if let Some(c) = comm.get() {
                    c.destroy();
                }
                Ok(())
            }
            Backend::Cuda(c) => c.destroy(&self.device),
        }
    }

    /// Decision 8: finalize under a deadline, then destroy; on error or deadline,
    /// abort.
    fn teardown(&self) -> Result<()> {
        if self.aborted.load(Ordering::Acquire) || self.closed.load(Ordering::Acquire) {
            self.closed.store(true, Ordering::Release);
            return Ok(());
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
    inner: Arc<CommInner>,
}

/// Aborts a non-blocking communicator from any thread ([`Communicator::abort_handle`]).
/// Abort is local: it fails this rank's pending and blocked operations; peers need
/// their own timeout.
#[derive(Clone)]
pub struct AbortHandle {
    inner: Arc<CommInner>,
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

fn check_rank(op: &'static str, what: &str, value: usize, size: usize) -> Result<()> {
    if value < size {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            reason: format!("{what} {value} is not below the world size {size}"),
        })
    }
}

fn check_count(op: &'static str, what: &str, expected: usize, actual: usize) -> Result<()> {
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
    /// [`Error::Mismatch`] when ranks disagree on the size (sim); driver errors.
    pub fn init(
        device: &Device,
        rank: usize,
        size: usize,
        id: &UniqueId,
        config: &Config,
    ) -> Result<Communicator> {
        Self::init_inner(device, rank, size, id, config, config.is_blocking())
    }

    fn init_inner(
        device: &Device,
        rank: usize,
        size: usize,
        id: &UniqueId,
        config: &Config,
        wait: bool,
    ) -> Result<Communicator> {
        if size == 0 {
            return Err(Error::InvalidArgument {
                op: "communicator init",
                reason: "world size 0".into(),
            });
        }
        check_rank("communicator init", "rank", rank, size)?;
        config.validate()?;
        let backend = match &device.inner.imp {
            DeviceImpl::Sim(_) => {
                let joining = sim::Joining::join(id.as_bytes(), rank, size, device.ordinal())?;
                if wait {
                    joining.wait(None)?;
                }
                Backend::Sim {
                    joining: Mutex::new(Some(joining)),
                    comm: OnceLock::new(),
                }
            }
            DeviceImpl::Cuda(_) => {
                let _guard = device.nccl_lock();
                Backend::Cuda(cuda::CudaComm::init(device, rank, size, &id.raw(), config)?)
            }
        };
        let comm = Communicator {
            inner: CommInner::new(device.clone(), rank, size, config.clone(), backend),
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
        let id = match devices[0].driver() {
            DriverKind::Sim => UniqueId::random(),
            DriverKind::Cuda => UniqueId::new()?,
        };
        let n = devices.len();
        let nonblocking = config.clone().blocking(false);
        if devices[0].driver() == DriverKind::Cuda {
            let raw = cuda::CudaComm::init_all(devices, &id.raw(), &nonblocking)?;
            let comms: Vec<Communicator> = raw
                .into_iter()
                .enumerate()
                .map(|(rank, c)| Communicator {
                    inner: CommInner::new(
                        devices[rank].clone(),
                        rank,
                        n,
                        config.clone(),
                        Backend::Cuda(c),
                    ),
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
            .map(|(rank, d)| Communicator::init_inner(d, rank, n, &id, config, false))
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
    /// [`Error::InitTimeout`] (naming the missing ranks on the sim); errors of the init.
    pub fn wait_ready(&self, timeout: Duration) -> Result<()> {
        self.inner.wait_ready(timeout)
    }

    /// A handle that aborts this communicator from another thread. Only non-blocking
    /// communicators have one: a blocking call cannot be interrupted safely.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUsage`] for a blocking communicator.
    pub fn abort_handle(&self) -> Result<AbortHandle> {
        if self.is_blocking() {
            return Err(Error::InvalidUsage {
                op: "abort_handle",
                reason:
                    "only non-blocking communicators (Config::blocking(false)) can be aborted from \
                         another thread"
                        .into(),
            });
        }
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
        if self.inner.aborted.load(Ordering::Acquire) {
            return Ok(Some(Error::Aborted {
                what: format!("rank {}", self.inner.rank),
            }));
        }
        match &self.inner.backend {
            Backend::Sim { .. } => Ok(None),
            Backend::Cuda(c) => {
                let _guard = self.inner.device.nccl_lock();
                c.async_error()
            }
        }
    }

    /// Number of launched operations whose work has not completed.
    pub fn outstanding(&self) -> usize {
        self.inner.outstanding()
    }

    /// Waits (up to the teardown deadline) until this rank's work has completed.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`]; errors of the work.
    pub fn finalize(&self) -> Result<()> {
        self.inner.finalize()
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
        self.inner.check_usable("split")?;
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
        let device = self.inner.device.clone();
        let made = |rank: usize, size: usize, backend: Backend| Communicator {
            inner: CommInner::new(device.clone(), rank, size, config.clone(), backend),
        };
        match &self.inner.backend {
            Backend::Sim { .. } => {
                let comm = self.inner.sim("split")?;
                let timeout = (!self.is_blocking()).then_some(self.inner.config.call_timeout);
                let Some((rank, shared)) = comm.split(color, key, timeout)? else {
                    return Ok(None);
                };
                let size = shared.size;
                let dev = comm.device.clone();
                let cell = OnceLock::new();
                let _ = cell.set(sim::SimComm::new(shared, rank, dev));
                Ok(Some(made(
                    rank,
                    size,
                    Backend::Sim {
                        joining: Mutex::new(None),
                        comm: cell,
                    },
                )))
            }
            Backend::Cuda(c) => {
                let out = c.split(
                    &self.inner.device,
                    color,
                    key,
                    config,
                    self.inner.config.call_timeout,
                )?;
                Ok(out.map(|(rank, size, raw)| made(rank, size, Backend::Cuda(raw))))
            }
        }
    }

    fn check_buffer(&self, op: &'static str, device: &Device) -> Result<()> {
        check_same_device(op, &self.inner.device, device)
    }

    fn desc<T: DataType>(
        &self,
        kind: Kind,
        count: usize,
        root: Option<usize>,
        op: RedOp,
    ) -> OpDesc {
        OpDesc {
            kind,
            count,
            dtype: T::DTYPE,
            root,
            op,
        }
    }

    fn red_op<T: DataType>(
        &self,
        op: &ReduceOp<'_, T>,
        uses: &mut Vec<OwnedUse>,
    ) -> Result<(RedOp, Option<u64>)> {
        Ok(match op {
            ReduceOp::Sum => (RedOp::Sum, None),
            ReduceOp::Prod => (RedOp::Prod, None),
            ReduceOp::Max => (RedOp::Max, None),
            ReduceOp::Min => (RedOp::Min, None),
            ReduceOp::Avg => (RedOp::Avg, None),
            ReduceOp::PreMulSum(s) => {
                let mut b = vec![0u8; T::DTYPE.size()];
                s.write_le(&mut b);
                (RedOp::PreMulSumHost(b), None)
            }
            ReduceOp::PreMulSumDevice(v) => {
                if v.len() != 1 {
                    return Err(Error::InvalidArgument {
                        op: "premulsum",
                        reason: format!("the device scalar has {} elements, expected 1", v.len()),
                    });
                }
                self.check_buffer("premulsum scalar", v.device())?;
                uses.push(v.owned_read());
                (RedOp::PreMulSumDevice, Some(v.addr()))
            }
        })
    }

    fn issue(&self, stream: &Stream, call: Call) -> Result<()> {
        GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if let Some(pending) = g.as_mut() {
                pending.push((self.inner.clone(), stream.clone(), call));
                return Ok(());
            }
            drop(g);
            self.inner.launch(stream, vec![call])
        })
    }

    /// `recv = op(send of every rank)`, elementwise; `send` and `recv` have one length.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; [`Error::WrongDevice`]; usage and
    /// driver errors.
    pub fn all_reduce<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_reduce", "recv", s.len(), r.len())?;
        self.check_buffer("all_reduce", s.device())?;
        self.check_buffer("all_reduce", r.device())?;
        let mut uses = vec![s.owned_read(), r.owned_write(true)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::AllReduce, s.len(), None, red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr()))
                .scalar(scalar),
        )
    }

    /// `buf = op(buf of every rank)`, in place.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce`].
    pub fn all_reduce_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        self.check_buffer("all_reduce", b.device())?;
        let mut uses = vec![b.owned_write(false)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::AllReduce, b.len(), None, red);
        let send_len = b.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(b.addr()))
                .scalar(scalar),
        )
    }

    /// Copies `buf` of rank `root` into `buf` of every rank.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a root out of range; as [`Communicator::all_reduce`].
    pub fn broadcast<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("broadcast", "root", root, self.size())?;
        let b = buf.device_view_mut();
        self.check_buffer("broadcast", b.device())?;
        let is_root = root == self.rank();
        let uses = vec![b.owned_write(!is_root)];
        let desc = self.desc::<T>(Kind::Broadcast, b.len(), Some(root), RedOp::None);
        let send_len = if is_root { b.bytes().len() } else { 0 };
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(b.addr())),
        )
    }

    /// `recv` of rank `root` = `op(send of every rank)`; other ranks pass `None` for
    /// `recv` (or a buffer, left untouched).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths (the root must pass `recv`).
    pub fn reduce<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut DeviceViewMut<'_, T>>,
        op: ReduceOp<'_, T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("reduce", "root", root, self.size())?;
        let s = send.device_view();
        self.check_buffer("reduce", s.device())?;
        let mut uses = vec![s.owned_read()];
        let recv_addr = match (recv, root == self.rank()) {
            (Some(r), true) => {
                check_count("reduce", "recv", s.len(), r.len())?;
                self.check_buffer("reduce", r.device())?;
                uses.push(r.owned_write(true));
                Some(r.addr())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "reduce",
                    reason: format!("root {root} must pass recv"),
                });
            }
            (_, false) => None,
        };
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::Reduce, s.len(), Some(root), red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(recv_addr)
                .scalar(scalar),
        )
    }

    /// `recv` = every rank's `send`, concatenated in rank order; `recv` has
    /// `size × send.len()` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn all_gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_gather", "recv", s.len() * self.size(), r.len())?;
        self.check_buffer("all_gather", s.device())?;
        self.check_buffer("all_gather", r.device())?;
        let uses = vec![s.owned_read(), r.owned_write(true)];
        let desc = self.desc::<T>(Kind::AllGather, s.len(), None, RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr())),
        )
    }

    /// In-place all-gather: this rank's block is `buf[rank × n .. (rank+1) × n]`
    /// where `n = buf.len() / size` (the offset is computed, so it cannot be wrong).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `buf.len()` is not a multiple of the size.
    pub fn all_gather_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        let n = self.block("all_gather", b.len())?;
        self.check_buffer("all_gather", b.device())?;
        let mine = b.as_view().slice(self.rank() * n..(self.rank() + 1) * n)?;
        let uses = vec![b.owned_write(false)];
        let desc = self.desc::<T>(Kind::AllGather, n, None, RedOp::None);
        let send_len = mine.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(mine.addr()), send_len)
                .recv(Some(b.addr())),
        )
    }

    fn block(&self, op: &'static str, len: usize) -> Result<usize> {
        if len % self.size() != 0 {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "length {len} is not a multiple of the world size {}",
                    self.size()
                ),
            });
        }
        Ok(len / self.size())
    }

    /// `recv` of rank r = block r of `op(send of every rank)`; `send` has
    /// `size × recv.len()` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn reduce_scatter<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("reduce_scatter", "send", r.len() * self.size(), s.len())?;
        self.check_buffer("reduce_scatter", s.device())?;
        self.check_buffer("reduce_scatter", r.device())?;
        let mut uses = vec![s.owned_read(), r.owned_write(true)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::ReduceScatter, r.len(), None, red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr()))
                .scalar(scalar),
        )
    }

    /// In-place reduce-scatter: `buf` has `size × n` elements; this rank's reduced
    /// block lands in `buf[rank × n .. (rank+1) × n]` (the rest is left as it was).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `buf.len()` is not a multiple of the size.
    pub fn reduce_scatter_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        let n = self.block("reduce_scatter", b.len())?;
        self.check_buffer("reduce_scatter", b.device())?;
        let mine = b.as_view().slice(self.rank() * n..(self.rank() + 1) * n)?;
        let mut uses = vec![b.owned_write(false)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::ReduceScatter, n, None, red);
        let send_len = b.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(mine.addr()))
                .scalar(scalar),
        )
    }

    /// Block s of `recv` = block r of rank s's `send` (r = this rank); both have
    /// `size × n` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn all_to_all<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_to_all", "recv", s.len(), r.len())?;
        let n = self.block("all_to_all", s.len())?;
        self.check_buffer("all_to_all", s.device())?;
        self.check_buffer("all_to_all", r.device())?;
        let uses = vec![s.owned_read(), r.owned_write(true)];
        let desc = self.desc::<T>(Kind::AllToAll, n, None, RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr())),
        )
    }

    /// `recv` of `root` = every rank's `send`, concatenated (`size × send.len()`
    /// elements); other ranks pass `None`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths.
    pub fn gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut DeviceViewMut<'_, T>>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("gather", "root", root, self.size())?;
        let s = send.device_view();
        self.check_buffer("gather", s.device())?;
        let mut uses = vec![s.owned_read()];
        let recv_addr = match (recv, root == self.rank()) {
            (Some(r), true) => {
                check_count("gather", "recv", s.len() * self.size(), r.len())?;
                self.check_buffer("gather", r.device())?;
                uses.push(r.owned_write(true));
                Some(r.addr())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "gather",
                    reason: format!("root {root} must pass recv"),
                });
            }
            (_, false) => None,
        };
        let desc = self.desc::<T>(Kind::Gather, s.len(), Some(root), RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(recv_addr),
        )
    }

    /// `recv` of rank r = block r of `send` of `root` (`size × recv.len()`
    /// elements); other ranks pass `None` for `send`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths.
    pub fn scatter<T: DataType>(
        &self,
        send: Option<&DeviceView<'_, T>>,
        recv: &mut impl AsDeviceViewMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("scatter", "root", root, self.size())?;
        let r = recv.device_view_mut();
        self.check_buffer("scatter", r.device())?;
        let mut uses = vec![r.owned_write(true)];
        let (send_addr, send_len) = match (send, root == self.rank()) {
            (Some(s), true) => {
                check_count("scatter", "send", r.len() * self.size(), s.len())?;
                self.check_buffer("scatter", s.device())?;
                uses.push(s.owned_read());
                (Some(s.addr()), s.bytes().len())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "scatter",
                    reason: format!("root {root} must pass send"),
                });
            }
            (_, false) => (None, 0),
        };
        let desc = self.desc::<T>(Kind::Scatter, r.len(), Some(root), RedOp::None);
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(send_addr, send_len)
                .recv(Some(r.addr())),
        )
    }

    /// Sends `send` to rank `peer`, which must post a matching [`Communicator::recv`].
    /// Outside a [`group`], a send waits for its receiver: two ranks sending to each
    /// other first deadlock (as in NCCL).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a peer out of range.
    pub fn send<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("send", "peer", peer, self.size())?;
        let s = send.device_view();
        self.check_buffer("send", s.device())?;
        let uses = vec![s.owned_read()];
        let desc = self.desc::<T>(Kind::Send, s.len(), Some(peer), RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(None),
        )
    }

    /// Receives into `recv` what rank `peer` sends.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a peer out of range.
    pub fn recv<T: DataType>(
        &self,
        recv: &mut impl AsDeviceViewMut<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("recv", "peer", peer, self.size())?;
        let r = recv.device_view_mut();
        self.check_buffer("recv", r.device())?;
        let uses = vec![r.owned_write(true)];
        let desc = self.desc::<T>(Kind::Recv, r.len(), Some(peer), RedOp::None);
        self.issue(
            stream,
            Call::new(desc, uses).send(None, 0).recv(Some(r.addr())),
        )
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        // Only the last owner tears down (abort handles share the inner state).
        if self.inner.closed.load(Ordering::Acquire) {
            return;
        }
        let inner = self.inner.clone();
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-teardown".into())
            .spawn(move || {
                if let Err(e) = inner.teardown() {
                    log::warn!(
                        "{}: communicator rank {} teardown: {e}",
                        inner.device,
                        inner.rank
                    );
                }
            });
        if spawned.is_err() {
            // No thread: abort, which never waits for peers.
            let _ = self.inner.abort_now();
        }
    }
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

type Pending = Vec<(Arc<CommInner>, Stream, Call)>;

thread_local! {
    static GROUP: RefCell<Option<Pending>> = const { RefCell::new(None) };
}

/// The scope of a [`group`]: collectives issued on this thread while it is open are
/// launched together when the group ends.
#[derive(Debug)]
pub struct Group {
    _private: (),
}

impl Group {
    /// Number of operations collected so far.
    pub fn len(&self) -> usize {
        GROUP.with(|g| g.borrow().as_ref().map_or(0, Vec::len))
    }

    /// Whether nothing was collected yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct GroupReset;

impl Drop for GroupReset {
    fn drop(&mut self) {
        GROUP.with(|g| g.borrow_mut().take());
    }
}

/// Runs `f`, collecting the collectives it issues on this thread, and launches them
/// as one NCCL group when it returns (fused all-reduces; point-to-point exchanges that
/// would deadlock one by one). The group always ends: if `f` fails or panics, nothing
/// it collected is launched. Buffer uses are recorded after the group has ended.
/// Groups do not nest; each communicator's operations in a group share one stream.
///
/// # Errors
///
/// `f`'s error; [`Error::InvalidUsage`] for a nested group or two streams for one
/// communicator; errors of the launch.
///
/// ```
/// use std::thread;
/// use nccl_safe::{group, Communicator, Config, Device, DeviceBuffer, Stream, UniqueId};
/// let id = UniqueId::random();
/// let handles: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<i32>> {
///     let dev = Device::sim(rank)?;
///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
///     let s = Stream::new(&dev)?;
///     let out = DeviceBuffer::from_slice(&s, &[rank as i32; 3])?;
///     let mut inb = DeviceBuffer::zeroed(&s, 3)?;
///     let peer = 1 - rank;
///     group(|_| {
///         comm.send(&out, peer, &s)?;     // each sends first: fine inside a group
///         comm.recv(&mut inb, peer, &s)
///     })?;
///     inb.to_vec(&s)
/// })).collect();
/// let got: Vec<_> = handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect();
/// assert_eq!(got, vec![vec![1; 3], vec![0; 3]]);
/// ```
pub fn group<R>(f: impl FnOnce(&Group) -> Result<R>) -> Result<R> {
    let nested = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.is_some() {
            return true;
        }
        *g = Some(Vec::new());
        false
    });
    if nested {
        return Err(Error::InvalidUsage {
            op: "group",
            reason: "groups do not nest".into(),
        });
    }
    let reset = GroupReset;
    let result = f(&Group { _private: () });
    let pending = GROUP.with(|g| g.borrow_mut().take()).unwrap_or_default();
    drop(reset);
    let value = result?;
    launch_group(pending)?;
    Ok(value)
}

fn launch_group(pending: Pending) -> Result<()> {
    // One launch per communicator, in first-issue order.
    let mut per_comm: Vec<(Arc<CommInner>, Stream, Vec<Call>)> = Vec::new();
    for (comm, stream, call) in pending {
        match per_comm.iter_mut().find(|(c, _, _)| Arc::ptr_eq(c, &comm)) {
            Some((_, s, calls)) => {
                if !Arc::ptr_eq(&s.inner, &stream.inner) {
                    return Err(Error::InvalidUsage {
                        op: "group",
                        reason: format!(
                            "rank {} of one communicator used two streams in one group",
                            comm.rank
                        ),
                    });
                }
                calls.push(call);
            }
            None => per_comm.push((comm, stream, vec![call])),
        }
    }
    let on_cuda = per_comm
        .iter()
        .filter(|(c, _, _)| matches!(c.backend, Backend::Cuda(_)))
        .count();
    if on_cuda > 1 {
        return launch_cuda_group(per_comm);
    }
    for (comm, stream, calls) in per_comm {
        comm.launch(&stream, calls)?;
    }
    Ok(())
}

/// Several cuda communicators in one NCCL group (one process driving several GPUs):
/// every stream waits for its buffers' conflicts, then one `ncclGroupStart`/`End`
/// around all the calls, then the buffers' uses are recorded.
fn launch_cuda_group(per_comm: Vec<(Arc<CommInner>, Stream, Vec<Call>)>) -> Result<()> {
    let mut devices: Vec<&Device> = Vec::new();
    for (comm, stream, _) in &per_comm {
        comm.check_usable("group")?;
        check_same_device("collective", &comm.device, stream.device())?;
        if !devices.iter().any(|d| *d == &comm.device) {
            devices.push(&comm.device);
        }
    }
    devices.sort_by_key(|d| d.ordinal());
    let guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
    for (_, stream, calls) in &per_comm {
        let uses: Vec<Use<'_>> = calls
            .iter()
            .flat_map(|c| c.uses.iter().map(OwnedUse::borrow))
            .collect();
        crate::memory::enqueue_waits(&stream.inner, &uses)?;
    }
    let launches: Vec<(&cuda::CudaComm, &crate::cuda::CudaStream, &[Call], &Config)> = per_comm
        .iter()
        .map(
            |(comm, stream, calls)| match (&comm.backend, &stream.inner.imp) {
                (Backend::Cuda(c), StreamImpl::Cuda(s)) => {
                    Ok((c, s, calls.as_slice(), &comm.config))
                }
                _ => Err(Error::InvalidUsage {
                    op: "group",
                    reason: "sim and cuda communicators in one group".into(),
                }),
            },
        )
        .collect::<Result<_>>()?;
    let created = cuda::launch_many(&launches)?;
    drop(guards);
    let polls: Vec<(&cuda::CudaComm, &Device, &Config)> = per_comm
        .iter()
        .zip(&launches)
        .map(|((comm, _, _), l)| (l.0, &comm.device, &comm.config))
        .collect();
    let polled = cuda::poll_many(&polls);
    {
        let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
        cuda::destroy_ops_locked(created);
    }
    polled?;
    for (comm, stream, calls) in &per_comm {
        let uses: Vec<Use<'_>> = calls
            .iter()
            .flat_map(|c| c.uses.iter().map(OwnedUse::borrow))
            .collect();
        crate::memory::enqueue_record(&stream.inner, &uses)?;
        let event = stream.inner.record_new()?;
        lock(&comm.pending).push(event);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_is_filled_as_the_initializer_does() {
        let (raw, strings) = Config::new().to_raw().unwrap();
        assert_eq!(raw.size, std::mem::size_of::<nccl_sys::ncclConfig_t>());
        assert_eq!(raw.magic, nccl_sys::NCCL_API_MAGIC);
        assert_eq!(raw.version, nccl_sys::NCCL_VERSION_CODE);
        assert_eq!(raw.blocking, i32::MIN);
        assert_eq!(raw.maxCTAs, i32::MIN);
        assert!(raw.netName.is_null() && raw.commName.is_null());
        assert_eq!(
            raw.nvlsCTAs,
            i32::MIN,
            "fields after collnetEnable are undefined too"
        );
        assert!(strings.is_empty());
        let (raw, strings) = Config::new()
            .blocking(false)
            .comm_name("g")
            .max_ctas(4)
            .to_raw()
            .unwrap();
        assert_eq!((raw.blocking, raw.maxCTAs), (0, 4));
        assert_eq!(strings.len(), 1);
        // SAFETY: points into `strings`, alive here.
        let name = unsafe { std::ffi::CStr::from_ptr(raw.commName) };
        assert_eq!(name.to_str().unwrap(), "g");
    }

    #[test]
    fn every_field_after_collnet_enable_is_an_int() {
        // `fill_undefined_tail` relies on it; a new header that breaks it fails here.
        let start = std::mem::offset_of!(nccl_sys::ncclConfig_t, collnetEnable) + 4;
        assert_eq!(
            (std::mem::size_of::<nccl_sys::ncclConfig_t>() - start) % 4,
            0
        );
        assert_eq!(start % 4, 0);
    }

    #[test]
    fn bad_configs_are_refused_with_the_values() {
        let e = Config::new().min_ctas(8).max_ctas(2).to_raw().unwrap_err();
        assert!(
            e.to_string().contains("min_ctas 8 is above max_ctas 2"),
            "{e}"
        );
        let e = Config::new().cga_cluster_size(9).to_raw().unwrap_err();
        assert!(e.to_string().contains("9"), "{e}");
        let e = Config::new().comm_name("a\0b").to_raw().unwrap_err();
        assert!(e.to_string().contains("NUL"), "{e}");
        let e = Config::new().max_ctas(0).to_raw().unwrap_err();
        assert!(e.to_string().contains("max_ctas 0"), "{e}");
    }

    #[test]
    fn descriptions_name_the_operation() {
        let d = OpDesc {
            kind: Kind::Reduce,
            count: 4,
            dtype: DType::F32,
            root: Some(0),
            op: RedOp::Sum,
        };
        assert_eq!(d.to_string(), "reduce(count 4, f32, sum, root 0)");
        let s = OpDesc {
            kind: Kind::Send,
            count: 2,
            dtype: DType::U8,
            root: Some(3),
            op: RedOp::None,
        };
        assert_eq!(s.to_string(), "send(count 2, u8, peer 3)");
    }
}
