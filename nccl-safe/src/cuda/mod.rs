//! The `cuda` driver: the CUDA driver API through nccl-sys, nothing more than error
//! mapping and the architecture's decisions (primary context made current on the
//! calling thread before every call; stream-ordered allocation; no device-wide
//! synchronisation anywhere).
//!
//! - this file: the loaded driver, devices (primary context, NCCL lock, pinned cache)
//!   and pinned host memory;
//! - `stream.rs`: streams (copies, fills, kernels, host functions), events, gates;
//! - `kernels.rs` and `ptx.rs`: the built-in elementwise kernels;
//! - `comm.rs`: NCCL communicators and launches.

pub(crate) mod comm;
mod kernels;
pub(crate) mod poller;
pub(crate) mod ptx;
mod stream;

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
    /// Freed pinned blocks by capacity, reused instead of returned to the driver:
    /// freeing page-locked memory can synchronise the whole context, which would
    /// block the host behind any pending (or gated) work. Freed with the device.
    pinned_cache: Mutex<std::collections::HashMap<usize, Vec<usize>>>,
    /// Serialises every NCCL call on this device (Decision 7).
    nccl: Mutex<()>,
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
        let device = CudaDevice {
            lib,
            ordinal,
            dev,
            ctx,
            kernels: OnceLock::new(),
            pinned_cache: Default::default(),
            nccl: Mutex::new(()),
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
        Ok(device)
    }

    /// Makes the primary context current on this thread (cheap when it already is).
    pub fn bind(&self) -> Result<()> {
        // SAFETY: the context is retained for as long as `self` lives.
        check_cuda("cuCtxSetCurrent", unsafe {
            self.lib.cuCtxSetCurrent(self.ctx)?
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
                d.bind()?;
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
        let cache = std::mem::take(
            self.pinned_cache
                .get_mut()
                .unwrap_or_else(|e| e.into_inner()),
        );
        if self.bind().is_ok() {
            for ptr in cache.into_values().flatten() {
                // SAFETY: cached blocks came from cuMemHostAlloc and are no longer
                // used by anyone (they were returned after their copies completed).
                let _ = unsafe { self.lib.cuMemFreeHost(ptr as *mut c_void) };
            }
        }
        // SAFETY: releases the retain taken in `open`; errors cannot be reported.
        let _ = unsafe { self.lib.cuDevicePrimaryCtxRelease_v2(self.dev) };
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

impl PinnedHost {
    pub fn new(device: Arc<CudaDevice>, bytes: usize) -> Result<PinnedHost> {
        let capacity = bytes.max(4096).next_power_of_two();
        let cached = crate::sync::lock(&device.pinned_cache)
            .get_mut(&capacity)
            .and_then(Vec::pop);
        let p = match cached {
            Some(p) => p as *mut c_void,
            None => {
                device.bind()?;
                let mut p = ptr::null_mut();
                let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
                // SAFETY: writes one pointer to `capacity` bytes of pinned memory.
                check_cuda("cuMemHostAlloc", unsafe {
                    device.lib.cuMemHostAlloc(&mut p, capacity, flags)?
                })?;
                p
            }
        };
        // SAFETY: `capacity` bytes owned by this block; zeroed so that reads before
        // any copy are defined.
        unsafe { ptr::write_bytes(p.cast::<u8>(), 0, capacity) };
        Ok(PinnedHost {
            device,
            ptr: p.cast(),
            capacity,
        })
    }

    pub fn device_alias(&self) -> Result<u64> {
        self.device.bind()?;
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
        // to the device's cache (see `CudaDevice::pinned_cache`).
        let mut cache = crate::sync::lock(&self.device.pinned_cache);
        cache
            .entry(self.capacity)
            .or_default()
            .push(self.ptr as usize);
    }
}
