//! The `cuda` driver: the CUDA driver API through nccl-sys, nothing more than error
//! mapping and the architecture's decisions (primary context made current on the
//! calling thread before every call; stream-ordered allocation; no device-wide
//! synchronisation anywhere).
//!
//! - this file: the loaded driver, devices (primary context, NCCL lock, pinned cache)
//!   and pinned host memory;
//! - `stream.rs`: streams (copies, fills, kernels, host functions), events, gates;
//! - `kernels.rs` and `ptx.rs`: the built-in elementwise kernels;
//! - `comm.rs`: NCCL communicators and launches; `issue.rs`: one launch's NCCL calls;
//!   `onesided.rs`: puts, signals and waits on windows.

pub(crate) mod comm;
pub(crate) mod graph;
mod issue;
mod kernels;
mod onesided;
pub(crate) mod poller;
pub(crate) mod ptx;
mod register;
mod reshape;
mod stream;
mod suspend;

pub(crate) use register::{nccl_mem_alloc, nccl_mem_free};

pub(crate) use reshape::{join_grown, raw_id};

use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use nccl_sys as sys;

use crate::error::check_cuda;
use crate::{Error, Result};

use kernels::Kernels;
pub(crate) use stream::{CudaEvent, CudaGate, CudaStream};

/// The loaded driver, initialised once (`cuInit`).
pub(crate) fn driver() -> Result<&'static sys::Cuda> {
    static INIT: OnceLock<Result<()>> = OnceLock::new();
    let lib = sys::cuda()?;
    INIT.get_or_init(|| {
        // SAFETY: cuInit takes flags (must be 0) and has no other precondition.
        check_cuda("cuInit", unsafe { lib.cuInit(0)? })
    })
    .clone()?;
    Ok(lib)
}

/// Number of CUDA devices.
pub(crate) fn device_count() -> Result<usize> {
    let lib = driver()?;
    let mut n = 0;
    // SAFETY: writes one int.
    check_cuda("cuDeviceGetCount", unsafe { lib.cuDeviceGetCount(&mut n)? })?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// One GPU: its handle and retained primary context.
pub(crate) struct CudaDevice {
    pub lib: &'static sys::Cuda,
    pub ordinal: usize,
    pub dev: sys::CUdevice,
    ctx: sys::CUcontext,
    /// The built-in kernels, or why they could not be loaded (reported when an
    /// elementwise op is used; communicators and copies work without them).
    kernels: OnceLock<Result<Kernels>>,
    /// Freed pinned blocks, reused instead of returned to the driver: freeing
    /// page-locked memory can synchronise the whole context, which would block the
    /// host behind any pending (or gated) work. At most [`PINNED_CACHE_LIMIT`] bytes;
    /// blocks beyond it are freed on a thread of their own. Freed with the device.
    pinned_cache: Mutex<PinnedCache>,
    /// The device's own memory pool for stream-ordered allocation (see `open`).
    pool: sys::CUmemoryPool,
    /// Serialises every NCCL call on this device (Decision 7).
    nccl: Mutex<()>,
    /// Set when a built-in kernel may still be queued after every handle is gone (a
    /// stream destroyed with work pending, or a kernel on a user's stream): unloading
    /// a module in use is undefined, so the module is then left loaded.
    keep_module: std::sync::atomic::AtomicBool,
    /// Orders launches on this device: held from a launch's `ncclGroupStart` until
    /// NCCL confirmed its enqueue (see `comm::launch_group`). Taken before `nccl`.
    launch: Mutex<()>,
    /// Runs completion callbacks (`poller.rs`).
    pub(crate) poller: poller::PollerCell,
}

// SAFETY: a primary context may be made current and used on any thread; the handles
// are plain driver identifiers, and the driver API is thread-safe.
unsafe impl Send for CudaDevice {}
// SAFETY: as above; nothing here is mutated without the driver's own locking.
unsafe impl Sync for CudaDevice {}

impl CudaDevice {
    pub fn open(ordinal: usize) -> Result<CudaDevice> {
        let lib = driver()?;
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice {
                driver: crate::DriverKind::Cuda,
                ordinal,
                count,
            });
        }
        let mut dev = 0;
        // SAFETY: writes one device handle; the ordinal was range-checked.
        check_cuda("cuDeviceGet", unsafe {
            lib.cuDeviceGet(&mut dev, ordinal as i32)?
        })?;
        let mut ctx = ptr::null_mut();
        // SAFETY: writes one context handle for a valid device.
        check_cuda("cuDevicePrimaryCtxRetain", unsafe {
            lib.cuDevicePrimaryCtxRetain(&mut ctx, dev)?
        })?;
        let pool = match Self::create_pool(lib, ordinal, ctx) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: releases the retain taken above.
                let _ = unsafe { lib.cuDevicePrimaryCtxRelease_v2(dev) };
                return Err(e);
            }
        };
        let device = CudaDevice {
            lib,
            ordinal,
            dev,
            ctx,
            kernels: OnceLock::new(),
            pinned_cache: Default::default(),
            pool,
            nccl: Mutex::new(()),
            launch: Mutex::new(()),
            keep_module: Default::default(),
            poller: Default::default(),
        };
        // Load the built-in kernels now: loading a module later, while some stream
        // is held back by a gate or a late peer, could synchronise the context.
        let kernels = Kernels::load(&device);
        if let Err(e) = &kernels {
            log::warn!(
                "cuda:{ordinal}: the built-in kernels did not load ({e}); elementwise ops will fail"
            );
        }
        let _ = device.kernels.set(kernels);
        device.prewarm_pinned();
        Ok(device)
    }

    /// Fills the pinned cache with a few small blocks now ([`PREWARM_PINNED`]): a first
    /// `cuMemHostAlloc` later, while a stream is held back by a gate or a late peer,
    /// can wait behind that stream, and host buffers of these sizes (a test's, a
    /// small `to_vec`'s) are then served from the cache. Best effort: a failure only
    /// leaves the cache colder.
    fn prewarm_pinned(&self) {
        let Ok(_ctx) = self.bind() else { return };
        let mut cache = crate::sync::lock(&self.pinned_cache);
        for &capacity in PREWARM_PINNED {
            let mut p = ptr::null_mut();
            let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
            // SAFETY: writes one pointer to `capacity` bytes of pinned memory.
            let rc = unsafe { self.lib.cuMemHostAlloc(&mut p, capacity, flags) };
            if !matches!(rc, Ok(sys::CUDA_SUCCESS)) || !cache.put(p as usize, capacity) {
                break;
            }
        }
    }

    /// A memory pool of this library's own, so that nothing else changes its settings
    /// (the device's default pool is shared with every library of the process), with
    /// a release threshold of "never": the default of 0 returns freed memory to the
    /// system at every synchronisation, and the next allocation pays for it again;
    /// and with no internal dependencies, so that reusing a block freed on another
    /// stream never makes this allocation wait for that stream (which may be held up
    /// by a late peer: Decision 3).
    fn create_pool(
        lib: &'static sys::Cuda,
        ordinal: usize,
        ctx: sys::CUcontext,
    ) -> Result<sys::CUmemoryPool> {
        let mut current = ptr::null_mut();
        // SAFETY: writes one context handle; the retained context is made current for
        // the calls below and the previous one restored after.
        unsafe {
            check_cuda("cuCtxGetCurrent", lib.cuCtxGetCurrent(&mut current)?)?;
            check_cuda("cuCtxSetCurrent", lib.cuCtxSetCurrent(ctx)?)?;
        }
        let result = (|| {
            let props = sys::CUmemPoolProps {
                allocType: sys::CU_MEM_ALLOCATION_TYPE_PINNED,
                handleTypes: sys::CU_MEM_HANDLE_TYPE_NONE,
                location: sys::device_location(ordinal as i32),
                ..Default::default()
            };
            let mut pool = ptr::null_mut();
            // SAFETY: valid properties; writes one pool handle.
            check_cuda("cuMemPoolCreate", unsafe {
                lib.cuMemPoolCreate(&mut pool, &props)?
            })?;
            let mut threshold = u64::MAX;
            let mut no: i32 = 0;
            // SAFETY: a live pool; the release threshold is a cuuint64_t and the reuse
            // flag an int, as the attributes' documentation says.
            let set = unsafe {
                check_cuda(
                    "cuMemPoolSetAttribute",
                    lib.cuMemPoolSetAttribute(
                        pool,
                        sys::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                        (&mut threshold as *mut u64).cast(),
                    )?,
                )
                .and(check_cuda(
                    "cuMemPoolSetAttribute",
                    lib.cuMemPoolSetAttribute(
                        pool,
                        sys::CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,
                        (&mut no as *mut i32).cast(),
                    )?,
                ))
            };
            if let Err(e) = set {
                // SAFETY: a pool with no allocations.
                let _ = unsafe { lib.cuMemPoolDestroy(pool) };
                return Err(e);
            }
            Ok(pool)
        })();
        // SAFETY: restores the thread's previous context (or none).
        let _ = unsafe { lib.cuCtxSetCurrent(current) };
        result
    }

    /// This device's memory pool (see `create_pool`).
    pub fn pool(&self) -> sys::CUmemoryPool {
        self.pool
    }

    /// Makes the primary context current on this thread until the returned guard
    /// drops, which makes the thread's previous context current again: a program that
    /// also uses the runtime API or another CUDA library on this thread keeps its own
    /// context. Cheap when it already is current (nothing is changed then).
    pub fn bind(&self) -> Result<Bound> {
        // Every cuda entry point binds first: none may run inside a host function.
        crate::base::host_fn::check("a CUDA driver call")?;
        let mut current = ptr::null_mut();
        // SAFETY: writes one context handle (null when none is current).
        check_cuda("cuCtxGetCurrent", unsafe {
            self.lib.cuCtxGetCurrent(&mut current)?
        })?;
        if current == self.ctx {
            return Ok(Bound {
                lib: self.lib,
                previous: None,
            });
        }
        // SAFETY: the context is retained for as long as `self` lives.
        check_cuda("cuCtxSetCurrent", unsafe {
            self.lib.cuCtxSetCurrent(self.ctx)?
        })?;
        Ok(Bound {
            lib: self.lib,
            previous: Some(current),
        })
    }

    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 256];
        // SAFETY: the buffer holds 256 bytes and its length is passed.
        check_cuda("cuDeviceGetName", unsafe {
            self.lib.cuDeviceGetName(buf.as_mut_ptr(), 256, self.dev)?
        })?;
        // SAFETY: the driver wrote a NUL-terminated string into the buffer.
        Ok(unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        let attr = |a: sys::CUdevice_attribute| -> Result<u32> {
            let mut v = 0;
            // SAFETY: writes one int for a valid device and attribute.
            check_cuda("cuDeviceGetAttribute", unsafe {
                self.lib.cuDeviceGetAttribute(&mut v, a, self.dev)?
            })?;
            Ok(u32::try_from(v).unwrap_or(0))
        };
        Ok((
            attr(sys::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(sys::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    /// Waits for all work of the primary context; with a timeout, polls the device's
    /// streams' completion through a recorded event on each... the driver has no timed
    /// context synchronise, so the wait runs on a helper thread and is abandoned (still
    /// running) past the deadline.
    pub fn synchronize(self: &Arc<Self>, timeout: Option<std::time::Duration>) -> Result<()> {
        let run = {
            let d = self.clone();
            move || -> Result<()> {
                let _ctx = d.bind()?;
                // SAFETY: the primary context is current on this thread.
                check_cuda("cuCtxSynchronize", unsafe { d.lib.cuCtxSynchronize()? })
            }
        };
        let Some(t) = timeout else { return run() };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("nccl-rs-cuda-sync".into())
            .spawn(move || {
                let _ = tx.send(run());
            })
            .map_err(|e| Error::InvalidUsage {
                op: "device synchronize",
                reason: format!("cannot start a thread: {e}"),
            })?;
        rx.recv_timeout(t).unwrap_or(Err(Error::Timeout {
            op: "device synchronize",
            waited: t,
        }))
    }

    pub fn total_memory(&self) -> Result<usize> {
        let mut bytes = 0usize;
        // SAFETY: writes one size.
        check_cuda("cuDeviceTotalMem", unsafe {
            self.lib.cuDeviceTotalMem_v2(&mut bytes, self.dev)?
        })?;
        Ok(bytes)
    }

    /// Holds this device's NCCL lock (Decision 7).
    pub fn nccl_lock(&self) -> MutexGuard<'_, ()> {
        crate::sync::lock(&self.nccl)
    }

    /// The retained primary context (for checks that a foreign object, such as a
    /// cudarc stream, belongs to it).
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub fn context(&self) -> sys::CUcontext {
        self.ctx
    }

    /// Leaves the kernel module loaded when the device drops (see `keep_module`).
    pub fn keep_module(&self) {
        self.keep_module
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Holds this device's launch-order lock (see `comm::launch_group`); take it
    /// before the NCCL lock, and on several devices in ordinal order.
    pub fn launch_lock(&self) -> MutexGuard<'_, ()> {
        crate::sync::lock(&self.launch)
    }

    fn kernels(&self) -> Result<&Kernels> {
        match self.kernels.get() {
            Some(Ok(k)) => Ok(k),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::InvalidArgument {
                op: "kernel launch",
                reason: "the built-in kernels were not loaded".into(),
            }),
        }
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        if crate::base::host_fn::inside() {
            // The last handle went inside a host function (a closure owned the last
            // host buffer, say): every release below is a driver call, which CUDA
            // forbids there, so the whole drop moves to the reaper thread in a value
            // that owns what it releases. What stays here is empty.
            let moved = CudaDevice {
                lib: self.lib,
                ordinal: self.ordinal,
                dev: self.dev,
                ctx: self.ctx,
                kernels: std::mem::take(&mut self.kernels),
                pinned_cache: Mutex::new(std::mem::take(
                    self.pinned_cache
                        .get_mut()
                        .unwrap_or_else(|e| e.into_inner()),
                )),
                pool: self.pool,
                nccl: Mutex::new(()),
                keep_module: std::sync::atomic::AtomicBool::new(
                    self.keep_module.load(std::sync::atomic::Ordering::Acquire),
                ),
                launch: Mutex::new(()),
                poller: std::mem::take(&mut self.poller),
            };
            crate::base::host_fn::defer(Box::new(move || drop(moved)));
            return;
        }
        let cache = std::mem::take(
            self.pinned_cache
                .get_mut()
                .unwrap_or_else(|e| e.into_inner()),
        );
        let kernels = self.kernels.take();
        if let Ok(_ctx) = self.bind() {
            for (ptr, _) in cache.blocks {
                // SAFETY: cached blocks came from cuMemHostAlloc and are no longer
                // used by anyone (they were returned after their copies completed).
                let _ = unsafe { self.lib.cuMemFreeHost(ptr as *mut c_void) };
            }
            if let Some(Ok(k)) = kernels {
                if !self.keep_module.load(std::sync::atomic::Ordering::Acquire) {
                    k.unload(self.lib);
                }
            }
            // SAFETY: the pool is ours; blocks still allocated from it (none when
            // every buffer was dropped) keep it alive until they are freed.
            let _ = unsafe { self.lib.cuMemPoolDestroy(self.pool) };
        }
        // SAFETY: releases the retain taken in `open`; errors cannot be reported.
        let _ = unsafe { self.lib.cuDevicePrimaryCtxRelease_v2(self.dev) };
    }
}

/// A device's primary context made current on this thread by [`CudaDevice::bind`];
/// dropping it makes the previous one (possibly none) current again.
#[must_use = "the context is current only while the guard lives"]
pub(crate) struct Bound {
    lib: &'static sys::Cuda,
    previous: Option<sys::CUcontext>,
}

impl Drop for Bound {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            // SAFETY: `previous` was current on this thread when the guard was made (a
            // context the caller keeps alive), or null, which unbinds.
            let _ = unsafe { self.lib.cuCtxSetCurrent(previous) };
        }
    }
}

/// The most bytes of freed pinned blocks a device keeps for reuse.
pub(crate) const PINNED_CACHE_LIMIT: usize = 256 << 20;

/// The blocks a device pins when it opens (see `CudaDevice::prewarm_pinned`): two of
/// each power of two from 4 KiB to 1 MiB, about 4 MiB, so that every host buffer up to
/// 1 MiB finds a block (the cache serves a request from a block at most twice its size).
const PREWARM_PINNED: &[usize] = &[
    4 << 10,
    4 << 10,
    8 << 10,
    8 << 10,
    16 << 10,
    16 << 10,
    32 << 10,
    32 << 10,
    64 << 10,
    64 << 10,
    128 << 10,
    128 << 10,
    256 << 10,
    256 << 10,
    512 << 10,
    512 << 10,
    1 << 20,
    1 << 20,
];

/// Freed pinned blocks (address, capacity) and their total size.
#[derive(Default)]
pub(crate) struct PinnedCache {
    blocks: Vec<(usize, usize)>,
    bytes: usize,
}

impl PinnedCache {
    /// The smallest cached block of at least `capacity` bytes and at most twice that
    /// (a bigger one would waste more than it saves).
    fn take(&mut self, capacity: usize) -> Option<(usize, usize)> {
        let i = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, (_, c))| *c >= capacity && *c / 2 <= capacity)
            .min_by_key(|(_, (_, c))| *c)
            .map(|(i, _)| i)?;
        let block = self.blocks.swap_remove(i);
        self.bytes -= block.1;
        Some(block)
    }

    /// Keeps the block if it fits under the limit; `false` when the caller must free
    /// it.
    fn put(&mut self, ptr: usize, capacity: usize) -> bool {
        if self.bytes + capacity > PINNED_CACHE_LIMIT {
            return false;
        }
        self.blocks.push((ptr, capacity));
        self.bytes += capacity;
        true
    }
}

/// Page-locked host memory, mapped into the device's address space.
pub(crate) struct PinnedHost {
    pub device: Arc<CudaDevice>,
    pub ptr: *mut u8,
    capacity: usize,
}

// SAFETY: plain host memory; access is coordinated by the owner's events.
unsafe impl Send for PinnedHost {}
// SAFETY: as above.
unsafe impl Sync for PinnedHost {}

/// `bytes` rounded up to whole pages (the unit the driver pins).
fn page_round(bytes: usize) -> usize {
    const PAGE: usize = 4096;
    bytes.max(1).div_ceil(PAGE) * PAGE
}

impl PinnedHost {
    pub fn new(device: Arc<CudaDevice>, bytes: usize) -> Result<PinnedHost> {
        let wanted = page_round(bytes);
        let cached = crate::sync::lock(&device.pinned_cache).take(wanted);
        let (p, capacity) = match cached {
            Some((p, c)) => (p as *mut c_void, c),
            None => {
                let _ctx = device.bind()?;
                let mut p = ptr::null_mut();
                let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
                // SAFETY: writes one pointer to `wanted` bytes of pinned memory.
                check_cuda("cuMemHostAlloc", unsafe {
                    device.lib.cuMemHostAlloc(&mut p, wanted, flags)?
                })?;
                (p, wanted)
            }
        };
        // SAFETY: the block holds at least `bytes`, owned by this allocation; zeroed
        // so that reads before any copy are defined (the rest is never read).
        unsafe { ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
        Ok(PinnedHost {
            device,
            ptr: p.cast(),
            capacity,
        })
    }

    pub fn device_alias(&self) -> Result<u64> {
        let _ctx = self.device.bind()?;
        let mut d = 0;
        // SAFETY: `ptr` is mapped pinned memory (DEVICEMAP).
        check_cuda("cuMemHostGetDevicePointer", unsafe {
            self.device
                .lib
                .cuMemHostGetDevicePointer_v2(&mut d, self.ptr.cast(), 0)?
        })?;
        Ok(d)
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // Owners drop a block only after its pending copies completed; it goes back
        // to the device's cache (see `CudaDevice::pinned_cache`), or, past the cache's
        // limit, to a thread that frees it (the free may wait for the whole device).
        let kept =
            crate::sync::lock(&self.device.pinned_cache).put(self.ptr as usize, self.capacity);
        if kept {
            return;
        }
        free_pinned_later(self.device.clone(), self.ptr as usize);
    }
}

/// Frees a pinned block on the one thread that does so (started on first use): the
/// free may wait for the whole device, which no caller's thread should.
fn free_pinned_later(device: Arc<CudaDevice>, ptr: usize) {
    type Job = (Arc<CudaDevice>, usize);
    static FREER: OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    let tx = FREER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-pinned-free".into())
            .spawn(move || {
                while let Ok((device, ptr)) = rx.recv() {
                    if let Ok(_ctx) = device.bind() {
                        // SAFETY: the block came from cuMemHostAlloc and nobody uses it.
                        let _ = unsafe { device.lib.cuMemFreeHost(ptr as *mut c_void) };
                    }
                }
            });
        if let Err(e) = spawned {
            log::warn!("cannot start the thread that frees pinned memory ({e}); blocks leak");
        }
        Mutex::new(tx)
    });
    if crate::sync::lock(tx).send((device, ptr)).is_err() {
        log::warn!("the thread that frees pinned memory is gone; a block leaks");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prewarmed_blocks_serve_every_host_buffer_up_to_a_mebibyte() {
        let mut c = PinnedCache::default();
        for (i, &cap) in PREWARM_PINNED.iter().enumerate() {
            assert!(c.put(0x1000 * (i + 1), cap));
        }
        assert!(c.bytes < 5 << 20, "about 4 MiB, not {}", c.bytes);
        for bytes in [1, 4096, 4097, 10_000, 100_000, 700_000, 1 << 20] {
            let wanted = page_round(bytes);
            let (p, cap) = c
                .take(wanted)
                .unwrap_or_else(|| panic!("{bytes} B found no block"));
            assert!(cap >= wanted && cap / 2 <= wanted);
            assert!(c.put(p, cap));
        }
        assert!(c.take(page_round((1 << 20) + 1)).is_none());
    }

    #[test]
    fn pinned_blocks_are_page_rounded_and_the_cache_is_bounded_and_tight() {
        assert_eq!(page_round(0), 4096);
        assert_eq!(page_round(1), 4096);
        assert_eq!(page_round(4096), 4096);
        assert_eq!(page_round(4097), 8192);
        assert_eq!(page_round(5 << 20 | 1), (5 << 20) + 4096);

        let mut c = PinnedCache::default();
        assert!(c.put(0x1000, 8192));
        assert!(c.put(0x9000, 1 << 20));
        // Best fit, and never more than twice the request.
        assert_eq!(c.take(4096), Some((0x1000, 8192)));
        assert_eq!(c.take(4096), None, "1 MiB is too big for 4 KiB");
        assert_eq!(c.take(600 << 10), Some((0x9000, 1 << 20)));
        assert_eq!(c.bytes, 0);
        // The limit: blocks past it are refused (the caller frees them).
        assert!(c.put(0x100000, PINNED_CACHE_LIMIT));
        assert!(!c.put(0x200000, 4096));
        assert_eq!(c.bytes, PINNED_CACHE_LIMIT);
    }
}
