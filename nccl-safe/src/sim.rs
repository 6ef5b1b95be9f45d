//! The `sim` driver: simulated GPUs on host threads that move real data.
//!
//! Modelled on CUDA's semantics, and stricter where CUDA is undefined:
//! - A stream is an in-order worker thread fed through a bounded queue; a full queue
//!   blocks the host, as a full launch queue does on a GPU.
//! - Events are completion counters; a stream waiting on an event waits for the
//!   event's most recent record at the time of the wait (as `cuStreamWaitEvent`).
//! - Device memory lives on the host behind opaque addresses that are never host
//!   pointers and never reused. Every access is resolved and bounds-checked when it
//!   executes: an out-of-bounds, freed or other-device address is an error on the
//!   stream (like CUDA's sticky errors), never undefined behaviour. Bytes are atomics,
//!   so even a racing, untracked access through the unsafe raw API is defined.
//! - Workers add seeded scheduling jitter before tasks, so tests that depend on
//!   lucky timing fail; `NCCL_RS_SIM_SEED` reproduces a run.
//!
//! Not mirrored: kernels run one at a time per stream with no intra-kernel
//! parallelism; streams of one device run truly in parallel (a GPU may serialise
//! them); priorities are accepted and ignored; there is no peer access between
//! devices; a host function that panics fails its stream instead of aborting.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use crate::lock;
use crate::{DType, Error, Result};

/// The sim's settings, read once from the environment.
#[derive(Clone, Debug)]
pub(crate) struct SimConfig {
    pub devices: usize,
    pub memory: usize,
    pub queue_depth: usize,
    pub seed: u64,
    pub jitter: bool,
}

/// Default number of simulated devices.
pub const DEFAULT_DEVICES: usize = 8;
/// Default memory of each simulated device: 4 GiB.
pub const DEFAULT_MEMORY: usize = 4 << 30;
/// Default launch-queue depth of a simulated stream (GPUs queue about a thousand).
pub const DEFAULT_QUEUE_DEPTH: usize = 1024;

/// Parses sizes such as `4096`, `512MiB`, `4GiB`, `1G`.
pub(crate) fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: usize = num.parse().ok()?;
    let mult: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

impl SimConfig {
    pub(crate) fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<SimConfig> {
        fn bad(var: &'static str, value: String, expected: &str) -> Error {
            Error::InvalidArgument {
                op: "sim driver configuration",
                reason: format!("{var}={value:?} is not {expected}"),
            }
        }
        let devices = match env("NCCL_RS_SIM_DEVICES") {
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if (1..=64).contains(&n) => n,
                _ => return Err(bad("NCCL_RS_SIM_DEVICES", v, "a device count from 1 to 64")),
            },
            None => DEFAULT_DEVICES,
        };
        let memory = match env("NCCL_RS_SIM_MEMORY") {
            Some(v) => match parse_size(&v) {
                Some(n) if n > 0 && n <= (1 << 40) => n,
                _ => {
                    return Err(bad(
                        "NCCL_RS_SIM_MEMORY",
                        v,
                        "a size such as 4GiB (at most 1TiB)",
                    ));
                }
            },
            None => DEFAULT_MEMORY,
        };
        let queue_depth = match env("NCCL_RS_SIM_QUEUE_DEPTH") {
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(bad("NCCL_RS_SIM_QUEUE_DEPTH", v, "a positive integer")),
            },
            None => DEFAULT_QUEUE_DEPTH,
        };
        let seed = match env("NCCL_RS_SIM_SEED") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) => n,
                Err(_) => return Err(bad("NCCL_RS_SIM_SEED", v, "an unsigned integer")),
            },
            None => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0x9e37_79b9);
                nanos ^ u64::from(std::process::id()) << 32
            }
        };
        let jitter = match env("NCCL_RS_SIM_JITTER").as_deref().map(str::trim) {
            None | Some("1") | Some("on") => true,
            Some("0") | Some("off") => false,
            Some(v) => return Err(bad("NCCL_RS_SIM_JITTER", v.to_string(), "on/off or 1/0")),
        };
        Ok(SimConfig {
            devices,
            memory,
            queue_depth,
            seed,
            jitter,
        })
    }
}

/// All simulated devices of the process, created on first use.
pub(crate) struct Platform {
    pub config: SimConfig,
    pub devices: Vec<Arc<SimDevice>>,
}

pub(crate) fn platform() -> Result<&'static Platform> {
    static PLATFORM: OnceLock<Result<Platform>> = OnceLock::new();
    PLATFORM
        .get_or_init(|| {
            let config = SimConfig::from_env(|v| std::env::var(v).ok())?;
            log::info!(
                "sim driver: {} devices of {} MiB, queue depth {}, seed {} (NCCL_RS_SIM_SEED), jitter {}",
                config.devices,
                config.memory >> 20,
                config.queue_depth,
                config.seed,
                if config.jitter { "on" } else { "off" }
            );
            let devices = (0..config.devices)
                .map(|i| Arc::new(SimDevice::new(i, config.memory)))
                .collect();
            Ok(Platform { config, devices })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Where each device's addresses start: far from any host mapping, 1 TiB apart.
const ADDRESS_BASE: u64 = 0x5a00_0000_0000;
const DEVICE_SPAN: u64 = 1 << 40;
/// Space left between allocations, so that running off the end never lands in a
/// neighbour.
const GUARD: u64 = 4096;

/// The byte poisoned outputs are filled with: `-1` for integers, NaN for floats.
pub(crate) const POISON: u8 = 0xff;

/// One allocation's bytes.
pub(crate) struct SimAlloc {
    base: u64,
    bytes: Box<[AtomicU8]>,
}

impl SimAlloc {
    fn read(&self, offset: usize, out: &mut [u8]) {
        for (o, b) in out.iter_mut().zip(&self.bytes[offset..]) {
            *o = b.load(Ordering::Relaxed);
        }
    }

    fn write(&self, offset: usize, data: &[u8]) {
        for (b, d) in self.bytes[offset..].iter().zip(data) {
            b.store(*d, Ordering::Relaxed);
        }
    }

    fn fill(&self, offset: usize, len: usize, value: u8) {
        for b in &self.bytes[offset..offset + len] {
            b.store(value, Ordering::Relaxed);
        }
    }
}

/// A simulated GPU: its memory and address space.
pub(crate) struct SimDevice {
    pub ordinal: usize,
    pub capacity: usize,
    used: Mutex<usize>,
    allocs: RwLock<BTreeMap<u64, Arc<SimAlloc>>>,
    next: AtomicU64,
    next_stream: AtomicU64,
}

impl SimDevice {
    fn new(ordinal: usize, capacity: usize) -> SimDevice {
        SimDevice {
            ordinal,
            capacity,
            used: Mutex::new(0),
            allocs: RwLock::new(BTreeMap::new()),
            next: AtomicU64::new(ADDRESS_BASE + ordinal as u64 * DEVICE_SPAN + GUARD),
            next_stream: AtomicU64::new(0),
        }
    }

    /// Bytes allocated and not yet freed.
    pub fn used(&self) -> usize {
        *lock(&self.used)
    }

    /// Reserves `bytes` and returns the new allocation's address. Out of memory is an
    /// error at once, as `cuMemAllocAsync` reports it.
    pub fn allocate(&self, bytes: usize) -> Result<u64> {
        {
            let mut used = lock(&self.used);
            if bytes > self.capacity - *used {
                return Err(Error::OutOfMemory {
                    driver: crate::DriverKind::Sim,
                    ordinal: self.ordinal,
                    requested: bytes,
                    available: self.capacity - *used,
                });
            }
            *used += bytes;
        }
        let span = (bytes as u64).div_ceil(GUARD) * GUARD + GUARD;
        let base = self.next.fetch_add(span.max(GUARD), Ordering::Relaxed);
        let cells: Box<[AtomicU8]> = (0..bytes).map(|_| AtomicU8::new(POISON)).collect();
        let alloc = Arc::new(SimAlloc { base, bytes: cells });
        write_lock(&self.allocs).insert(base, alloc);
        Ok(base)
    }

    /// Releases an allocation (when its stream-ordered free executes).
    pub fn release(&self, base: u64) -> std::result::Result<(), String> {
        match write_lock(&self.allocs).remove(&base) {
            Some(a) => {
                *lock(&self.used) -= a.bytes.len();
                Ok(())
            }
            None => Err(format!(
                "free of {base:#x}, which is not an allocation of sim device {}",
                self.ordinal
            )),
        }
    }

    /// The allocation holding `[addr, addr + len)`, and the offset of `addr` in it.
    pub fn resolve(
        &self,
        addr: u64,
        len: usize,
    ) -> std::result::Result<(Arc<SimAlloc>, usize), String> {
        let allocs = read_lock(&self.allocs);
        if let Some((_, a)) = allocs.range(..=addr).next_back() {
            let offset = (addr - a.base) as usize;
            if offset <= a.bytes.len() && len <= a.bytes.len() - offset {
                return Ok((a.clone(), offset));
            }
            if offset < a.bytes.len() + GUARD as usize {
                return Err(format!(
                    "out of bounds: [{addr:#x}, {:#x}) runs past the allocation [{:#x}, {:#x}) on sim device {}",
                    addr + len as u64,
                    a.base,
                    a.base + a.bytes.len() as u64,
                    self.ordinal
                ));
            }
        }
        let owner = addr.checked_sub(ADDRESS_BASE).map(|d| d / DEVICE_SPAN);
        match owner {
            Some(o) if o as usize != self.ordinal => Err(format!(
                "address {addr:#x} belongs to sim device {o}, not sim device {}",
                self.ordinal
            )),
            _ => Err(format!(
                "address {addr:#x} is not allocated on sim device {} (freed, or never allocated)",
                self.ordinal
            )),
        }
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> std::result::Result<(), String> {
        let (a, off) = self.resolve(addr, out.len())?;
        a.read(off, out);
        Ok(())
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> std::result::Result<(), String> {
        let (a, off) = self.resolve(addr, data.len())?;
        a.write(off, data);
        Ok(())
    }

    pub fn fill_bytes(&self, addr: u64, len: usize, value: u8) -> std::result::Result<(), String> {
        let (a, off) = self.resolve(addr, len)?;
        a.fill(off, len, value);
        Ok(())
    }
}

fn read_lock<T>(m: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(|e| e.into_inner())
}

fn write_lock<T>(m: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(|e| e.into_inner())
}

/// Waits on `cv` until `done(&guard)` holds, or `timeout` passes (`None`: forever).
pub(crate) fn wait_until<'a, T>(
    cv: &Condvar,
    mut guard: std::sync::MutexGuard<'a, T>,
    timeout: Option<Duration>,
    op: &'static str,
    done: impl Fn(&T) -> bool,
) -> Result<std::sync::MutexGuard<'a, T>> {
    let deadline = timeout.map(|t| Instant::now() + t);
    while !done(&guard) {
        guard = match deadline {
            None => cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    return Err(Error::Timeout {
                        op,
                        waited: timeout.unwrap_or_default(),
                    });
                }
                cv.wait_timeout(guard, d - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
    Ok(guard)
}

/// What a stream worker runs. An `Err` becomes the stream's sticky error.
pub(crate) type Task = Box<dyn FnOnce() -> std::result::Result<(), String> + Send>;

#[derive(Default)]
struct Progress {
    submitted: u64,
    completed: u64,
    error: Option<String>,
}

struct StreamState {
    progress: Mutex<Progress>,
    done: Condvar,
}

/// A simulated stream: an in-order worker thread behind a bounded queue.
pub(crate) struct SimStream {
    pub device: Arc<SimDevice>,
    queue: Mutex<SyncSender<Task>>,
    state: Arc<StreamState>,
}

impl SimStream {
    pub fn new(device: Arc<SimDevice>) -> Result<SimStream> {
        let c = &platform()?.config;
        Self::with_settings(device, c.queue_depth, c.seed, c.jitter)
    }

    pub fn with_settings(
        device: Arc<SimDevice>,
        depth: usize,
        seed: u64,
        jitter: bool,
    ) -> Result<SimStream> {
        let index = device.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = sync_channel::<Task>(depth);
        let state = Arc::new(StreamState {
            progress: Mutex::new(Progress::default()),
            done: Condvar::new(),
        });
        let seed = seed ^ (device.ordinal as u64) << 48 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let worker_state = state.clone();
        std::thread::Builder::new()
            .name(format!("sim{}-stream{index}", device.ordinal))
            .spawn(move || worker(rx, worker_state, seed, jitter))
            .map_err(|e| Error::Sim {
                op: "stream create",
                reason: format!("cannot start a worker thread: {e}"),
            })?;
        Ok(SimStream {
            device,
            queue: Mutex::new(tx),
            state,
        })
    }

    /// A number that identifies this stream while it lives.
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.state) as usize
    }

    /// Enqueues a task; blocks while the launch queue is full.
    pub fn submit(&self, task: Task) -> Result<()> {
        let queue = lock(&self.queue);
        lock(&self.state.progress).submitted += 1;
        queue.send(task).map_err(|_| Error::Sim {
            op: "launch",
            reason: "the stream's worker has stopped".into(),
        })
    }

    fn take_error(progress: &Progress, op: &'static str) -> Result<()> {
        match &progress.error {
            Some(e) => Err(Error::Sim {
                op,
                reason: e.clone(),
            }),
            None => Ok(()),
        }
    }

    pub fn query(&self) -> Result<bool> {
        let p = lock(&self.state.progress);
        Self::take_error(&p, "stream query")?;
        Ok(p.completed >= p.submitted)
    }

    /// Waits until everything submitted before the call has run.
    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        let p = lock(&self.state.progress);
        let target = p.submitted;
        let p = wait_until(&self.state.done, p, timeout, "stream synchronize", |p| {
            p.completed >= target
        })?;
        Self::take_error(&p, "stream synchronize")
    }
}

fn worker(rx: Receiver<Task>, state: Arc<StreamState>, seed: u64, jitter: bool) {
    let mut rng = seed | 1;
    while let Ok(task) = rx.recv() {
        if jitter {
            // xorshift64: a quarter of the tasks start late, by up to 200 µs.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            match rng % 8 {
                0 => std::thread::sleep(Duration::from_micros(rng % 200)),
                1 => std::thread::yield_now(),
                _ => {}
            }
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task))
            .unwrap_or_else(|_| Err("a host function panicked".into()));
        let mut p = lock(&state.progress);
        p.completed += 1;
        if let Err(e) = result {
            p.error.get_or_insert(e);
        }
        drop(p);
        state.done.notify_all();
    }
}

#[derive(Default)]
struct EventProgress {
    recorded: u64,
    completed: u64,
    completed_at: Option<Instant>,
}

/// A simulated event: how often it was recorded and how many records completed.
#[derive(Clone)]
pub(crate) struct SimEvent {
    state: Arc<(Mutex<EventProgress>, Condvar)>,
}

impl SimEvent {
    pub fn new() -> SimEvent {
        SimEvent {
            state: Arc::new((Mutex::new(EventProgress::default()), Condvar::new())),
        }
    }

    pub fn record(&self, stream: &SimStream) -> Result<()> {
        let generation = {
            let mut p = lock(&self.state.0);
            p.recorded += 1;
            p.recorded
        };
        let state = self.state.clone();
        stream.submit(Box::new(move || {
            let mut p = lock(&state.0);
            if generation > p.completed {
                p.completed = generation;
                p.completed_at = Some(Instant::now());
            }
            drop(p);
            state.1.notify_all();
            Ok(())
        }))
    }

    /// Makes `stream` wait for the most recent record (a no-op if never recorded).
    pub fn wait_on(&self, stream: &SimStream) -> Result<()> {
        let target = lock(&self.state.0).recorded;
        let state = self.state.clone();
        stream.submit(Box::new(move || {
            let mut p = lock(&state.0);
            while p.completed < target {
                p = state.1.wait(p).unwrap_or_else(|e| e.into_inner());
            }
            Ok(())
        }))
    }

    pub fn query(&self) -> bool {
        let p = lock(&self.state.0);
        p.completed >= p.recorded
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        let p = lock(&self.state.0);
        let target = p.recorded;
        let _guard = wait_until(&self.state.1, p, timeout, "event synchronize", |p| {
            p.completed >= target
        })?;
        Ok(())
    }

    /// When the last record completed, if it has.
    pub fn completed_at(&self) -> Option<Instant> {
        let p = lock(&self.state.0);
        if p.recorded > 0 && p.completed >= p.recorded {
            p.completed_at
        } else {
            None
        }
    }
}

/// A host-released flag that streams can wait on.
#[derive(Clone)]
pub(crate) struct SimGate {
    state: Arc<(Mutex<bool>, Condvar)>,
    opened: Arc<AtomicBool>,
}

impl SimGate {
    pub fn new() -> SimGate {
        SimGate {
            state: Arc::new((Mutex::new(false), Condvar::new())),
            opened: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn open(&self) {
        *lock(&self.state.0) = true;
        self.opened.store(true, Ordering::Release);
        self.state.1.notify_all();
    }

    pub fn is_open(&self) -> bool {
        self.opened.load(Ordering::Acquire)
    }

    pub fn wait_on(&self, stream: &SimStream) -> Result<()> {
        let state = self.state.clone();
        stream.submit(Box::new(move || {
            let mut open = lock(&state.0);
            while !*open {
                open = state.1.wait(open).unwrap_or_else(|e| e.into_inner());
            }
            Ok(())
        }))
    }
}

/// Applies an in-place elementwise op to `count` elements at `addr` (host code: the
/// sim's kernel).
pub(crate) fn elementwise(
    device: &SimDevice,
    addr: u64,
    count: usize,
    dtype: DType,
    apply: &(dyn Fn(&mut [u8]) + Sync),
) -> std::result::Result<(), String> {
    let size = dtype.size();
    let (a, off) = device.resolve(addr, count * size)?;
    let mut buf = vec![0u8; count * size];
    a.read(off, &mut buf);
    for chunk in buf.chunks_exact_mut(size) {
        apply(chunk);
    }
    a.write(off, &buf);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("4GiB"), Some(4 << 30));
        assert_eq!(parse_size("512 MiB"), Some(512 << 20));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("12parsecs"), None);
    }

    #[test]
    fn bad_configuration_names_the_variable_and_value() {
        let err = SimConfig::from_env(|v| (v == "NCCL_RS_SIM_DEVICES").then(|| "zero".to_string()))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("NCCL_RS_SIM_DEVICES") && text.contains("zero"),
            "{text}"
        );
        let err =
            SimConfig::from_env(|v| (v == "NCCL_RS_SIM_MEMORY").then(|| "4 parsecs".to_string()))
                .unwrap_err();
        assert!(err.to_string().contains("NCCL_RS_SIM_MEMORY"), "{err}");
        let ok = SimConfig::from_env(|v| match v {
            "NCCL_RS_SIM_DEVICES" => Some("2".into()),
            "NCCL_RS_SIM_MEMORY" => Some("1MiB".into()),
            "NCCL_RS_SIM_SEED" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            (ok.devices, ok.memory, ok.seed, ok.jitter),
            (2, 1 << 20, 7, true)
        );
    }

    #[test]
    fn addresses_are_opaque_bounds_checked_and_never_reused() {
        let dev = SimDevice::new(3, 1 << 20);
        let a = dev.allocate(100).unwrap();
        assert!(
            a >= ADDRESS_BASE + 3 * DEVICE_SPAN,
            "address in device 3's span"
        );
        let mut out = [0u8; 4];
        assert!(dev.read(a + 96, &mut out).is_ok());
        let err = dev.read(a + 98, &mut out).unwrap_err();
        assert!(err.contains("out of bounds"), "{err}");
        dev.release(a).unwrap();
        let err = dev.read(a, &mut out).unwrap_err();
        assert!(err.contains("not allocated"), "{err}");
        let b = dev.allocate(100).unwrap();
        assert_ne!(a, b, "addresses are never reused");
        let other = ADDRESS_BASE + 5 * DEVICE_SPAN + GUARD;
        let err = dev.read(other, &mut out).unwrap_err();
        assert!(err.contains("belongs to sim device 5"), "{err}");
        assert_eq!(dev.used(), 100);
    }

    #[test]
    fn a_full_launch_queue_blocks_the_host_until_the_stream_drains() {
        let dev = Arc::new(SimDevice::new(0, 1 << 20));
        let stream = Arc::new(SimStream::with_settings(dev, 2, 1, true).unwrap());
        let gate = SimGate::new();
        gate.wait_on(&stream).unwrap(); // the worker takes this and blocks on it
        let (tx, rx) = std::sync::mpsc::channel();
        let submitter = {
            let stream = stream.clone();
            std::thread::spawn(move || {
                for i in 0..6 {
                    stream.submit(Box::new(|| Ok(()))).unwrap();
                    tx.send(i).unwrap();
                }
            })
        };
        // Two tasks fit in the queue (a third may sit in the worker's hands at most
        // transiently); the submitter must then block until the gate opens.
        let mut accepted = Vec::new();
        while let Ok(i) = rx.recv_timeout(Duration::from_millis(200)) {
            accepted.push(i);
        }
        assert!(
            accepted.len() <= 3,
            "the host was not held back: {accepted:?}"
        );
        gate.open();
        submitter.join().unwrap();
        stream.synchronize(Some(Duration::from_secs(20))).unwrap();
    }

    #[test]
    fn allocating_past_capacity_is_out_of_memory() {
        let dev = SimDevice::new(0, 1000);
        let _a = dev.allocate(600).unwrap();
        let err = dev.allocate(600).unwrap_err();
        assert!(
            matches!(
                err,
                Error::OutOfMemory {
                    requested: 600,
                    available: 400,
                    ..
                }
            ),
            "{err}"
        );
    }
}
