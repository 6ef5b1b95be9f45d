//! Streams, events and gates on the cuda driver.

use std::ffi::{c_uint, c_void};
use std::ptr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nccl_sys as sys;

use super::{CudaDevice, PinnedHost};
use crate::base::types::Elementwise;
use crate::error::check_cuda;
use crate::{DType, Error, Result};

/// A stream; destroyed on drop unless borrowed through `from_raw`.
pub(crate) struct CudaStream {
    pub device: Arc<CudaDevice>,
    pub raw: sys::CUstream,
    owned: bool,
}

// SAFETY: CUDA streams may be used from any thread once their context is current,
// which every method ensures.
unsafe impl Send for CudaStream {}
// SAFETY: the driver serialises concurrent launches into one stream itself.
unsafe impl Sync for CudaStream {}

impl CudaStream {
    pub fn new(device: Arc<CudaDevice>, non_blocking: bool, priority: i32) -> Result<CudaStream> {
        let _ctx = device.bind()?;
        let lib = device.lib;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: writes two ints.
        check_cuda("cuCtxGetStreamPriorityRange", unsafe {
            lib.cuCtxGetStreamPriorityRange(&mut least, &mut greatest)?
        })?;
        // CUDA: lower numbers are higher priorities; `greatest` <= `least`.
        if priority < greatest || priority > least {
            return Err(Error::InvalidArgument {
                op: "stream create",
                reason: format!(
                    "priority {priority} is outside the device's range {greatest}..={least}"
                ),
            });
        }
        let flags = if non_blocking {
            sys::CU_STREAM_NON_BLOCKING
        } else {
            sys::CU_STREAM_DEFAULT
        };
        let mut raw = ptr::null_mut();
        // SAFETY: writes one stream handle.
        check_cuda("cuStreamCreateWithPriority", unsafe {
            lib.cuStreamCreateWithPriority(&mut raw, flags, priority)?
        })?;
        Ok(CudaStream {
            device,
            raw,
            owned: true,
        })
    }

    /// # Safety
    ///
    /// `raw` must be a stream of `device`'s primary context that outlives the result.
    pub unsafe fn borrowed(device: Arc<CudaDevice>, raw: sys::CUstream) -> CudaStream {
        CudaStream {
            device,
            raw,
            owned: false,
        }
    }

    fn lib(&self) -> &'static sys::Cuda {
        self.device.lib
    }

    pub fn query(&self) -> Result<bool> {
        let _ctx = self.device.bind()?;
        // SAFETY: a valid stream.
        match unsafe { self.lib().cuStreamQuery(self.raw)? } {
            sys::CUDA_SUCCESS => Ok(true),
            sys::CUDA_ERROR_NOT_READY => Ok(false),
            rc => check_cuda("cuStreamQuery", rc).map(|_| false),
        }
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        match timeout {
            None => {
                let _ctx = self.device.bind()?;
                // SAFETY: a valid stream.
                check_cuda("cuStreamSynchronize", unsafe {
                    self.lib().cuStreamSynchronize(self.raw)?
                })
            }
            Some(t) => poll_until(t, "stream synchronize", || self.query()),
        }
    }

    pub fn wait_event(&self, event: &CudaEvent) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: valid stream and event of the same context.
        check_cuda("cuStreamWaitEvent", unsafe {
            self.lib().cuStreamWaitEvent(self.raw, event.raw, 0)?
        })
    }

    pub fn launch_host_fn(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        unsafe extern "C" fn trampoline(data: *mut c_void) {
            // Inside the callback the driver forbids driver calls: what the closure
            // owns and drops (streams, events, buffers, devices) goes to the reaper
            // thread (`host_fn::Deferred`), and the library's entry points refuse.
            let _inside = crate::base::host_fn::Inside::enter();
            // SAFETY: `data` came from Box::into_raw below and is run exactly once.
            let f = unsafe { Box::from_raw(data.cast::<Box<dyn FnOnce() + Send>>()) };
            // A panic must not unwind into the driver; the closure and everything it
            // owns is dropped here, inside the marked scope.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        }
        let _ctx = self.device.bind()?;
        let data = Box::into_raw(Box::new(f)).cast::<c_void>();
        // SAFETY: the trampoline matches CUhostFn and takes ownership of `data`.
        let rc = unsafe {
            self.lib()
                .cuLaunchHostFunc(self.raw, Some(trampoline), data)
        };
        match rc {
            Ok(sys::CUDA_SUCCESS) => Ok(()),
            other => {
                // Not enqueued: reclaim the closure.
                // SAFETY: the driver did not take `data`.
                drop(unsafe { Box::from_raw(data.cast::<Box<dyn FnOnce() + Send>>()) });
                check_cuda("cuLaunchHostFunc", other?)
            }
        }
    }

    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        let _ctx = self.device.bind()?;
        let mut ptr = 0;
        // SAFETY: writes one device pointer; the allocation is ordered on this stream
        // and comes from the device's own pool (see `CudaDevice::create_pool`).
        let rc = unsafe {
            self.lib().cuMemAllocFromPoolAsync(
                &mut ptr,
                bytes.max(1),
                self.device.pool(),
                self.raw,
            )?
        };
        if rc == sys::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(Error::OutOfMemory {
                driver: crate::DriverKind::Cuda,
                ordinal: self.device.ordinal,
                requested: bytes,
                available: 0,
            });
        }
        check_cuda("cuMemAllocFromPoolAsync", rc)?;
        Ok(ptr)
    }

    pub fn free(&self, ptr: u64) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: `ptr` came from cuMemAllocAsync and is freed once, in stream order.
        check_cuda("cuMemFreeAsync", unsafe {
            self.lib().cuMemFreeAsync(ptr, self.raw)?
        })
    }

    /// # Safety
    ///
    /// `src` must stay valid and unchanged until the copy executes.
    pub unsafe fn copy_htod(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: the caller keeps `src` valid; `dst` is a checked device range.
        check_cuda("cuMemcpyHtoDAsync", unsafe {
            self.lib()
                .cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, self.raw)?
        })
    }

    /// # Safety
    ///
    /// `dst` must stay valid and untouched until the copy executes.
    pub unsafe fn copy_dtoh(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: the caller keeps `dst` valid; `src` is a checked device range.
        check_cuda("cuMemcpyDtoHAsync", unsafe {
            self.lib()
                .cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, self.raw)?
        })
    }

    pub fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: both ranges were checked against their allocations by the caller.
        check_cuda("cuMemcpyDtoDAsync", unsafe {
            self.lib().cuMemcpyDtoDAsync_v2(dst, src, bytes, self.raw)?
        })
    }

    /// Fills `count` elements of `size` bytes with `pattern` (little-endian bytes).
    pub fn fill(&self, dst: u64, count: usize, pattern: &[u8]) -> Result<()> {
        let _ctx = self.device.bind()?;
        let lib = self.lib();
        match pattern.len() {
            1 => {
                // SAFETY: the range was checked against its allocation by the caller.
                check_cuda("cuMemsetD8Async", unsafe {
                    lib.cuMemsetD8Async(dst, pattern[0], count, self.raw)?
                })
            }
            2 => {
                let v = u16::from_le_bytes([pattern[0], pattern[1]]);
                // SAFETY: the range was checked against its allocation by the caller.
                check_cuda("cuMemsetD16Async", unsafe {
                    lib.cuMemsetD16Async(dst, v, count, self.raw)?
                })
            }
            4 => {
                let v = u32::from_le_bytes([pattern[0], pattern[1], pattern[2], pattern[3]]);
                // SAFETY: the range was checked against its allocation by the caller.
                check_cuda("cuMemsetD32Async", unsafe {
                    lib.cuMemsetD32Async(dst, v, count, self.raw)?
                })
            }
            _ => {
                let mut v = [0u8; 8];
                v.copy_from_slice(pattern);
                let value = u64::from_le_bytes(v);
                let k = self.device.kernels()?;
                self.launch(k.fill64, dst, count, &value as *const u64 as *mut c_void)
            }
        }
    }

    /// `x[i] = x[i] + s` or `x[i] = x[i] * s` over `count` elements of `dtype`.
    pub fn elementwise(
        &self,
        op: Elementwise,
        dtype: DType,
        dst: u64,
        count: usize,
        scalar: &[u8],
    ) -> Result<()> {
        let _ctx = self.device.bind()?;
        let kernels = self.device.kernels()?;
        let f = kernels.get(op, dtype)?;
        // The scalar parameter is 8 bytes for 64-bit types, else 4 (narrower scalars
        // are widened: f16/bf16 to f32, 8-bit integers zero-extended).
        let mut param = [0u8; 8];
        match dtype {
            DType::F16 | DType::BF16 => {
                let bits = u16::from_le_bytes([scalar[0], scalar[1]]);
                let f = widen_half(dtype, bits);
                param[..4].copy_from_slice(&f.to_le_bytes());
            }
            _ => param[..scalar.len()].copy_from_slice(scalar),
        }
        self.launch(f, dst, count, param.as_mut_ptr().cast())
    }

    /// Lowers the `u64` at `out` to the index of the first of `count` elements of
    /// `dtype` at `src` that is not finite (a kernel; integers: nothing to do).
    pub fn find_non_finite(&self, dtype: DType, src: u64, count: usize, out: u64) -> Result<()> {
        let _ctx = self.device.bind()?;
        let kernels = self.device.kernels()?;
        let Some(f) = kernels.non_finite(dtype) else {
            return Ok(());
        };
        let mut out = out;
        self.launch(f, src, count, (&mut out as *mut u64).cast())
    }

    fn launch(
        &self,
        f: sys::CUfunction,
        dst: u64,
        count: usize,
        scalar: *mut c_void,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let mut dst = dst;
        let mut n = count as u64;
        let mut params = [
            (&mut dst as *mut u64).cast::<c_void>(),
            (&mut n as *mut u64).cast(),
            scalar,
        ];
        if !self.owned {
            // The user's stream may outlive the device: its module stays loaded.
            self.device.keep_module();
        }
        let block: c_uint = 256;
        let grid = count.div_ceil(block as usize).min(65_535 * 8) as c_uint;
        // SAFETY: the kernel takes (u64 ptr, u64 n, scalar) and uses a grid-stride
        // loop, so any grid size covers `count`; the parameters outlive the call
        // (the driver copies them at launch).
        check_cuda("cuLaunchKernel", unsafe {
            self.lib().cuLaunchKernel(
                f,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                self.raw,
                params.as_mut_ptr(),
                ptr::null_mut(),
            )?
        })
    }

    /// Makes the stream wait until the 32-bit word at device address `flag` is >= 1.
    pub fn wait_value(&self, flag: u64) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: `flag` is the device alias of live pinned host memory (a Gate).
        check_cuda("cuStreamWaitValue32", unsafe {
            self.lib()
                .cuStreamWaitValue32_v2(self.raw, flag, 1, sys::CU_STREAM_WAIT_VALUE_GEQ)?
        })
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if let Ok(_ctx) = self.device.bind() {
            // SAFETY: a valid stream; queries without waiting.
            let idle = matches!(
                unsafe { self.lib().cuStreamQuery(self.raw) },
                Ok(sys::CUDA_SUCCESS)
            );
            if !idle {
                // Work (possibly a built-in kernel) still runs after the destroy.
                self.device.keep_module();
            }
            // SAFETY: an owned stream, destroyed once; pending work still completes
            // (cuStreamDestroy returns at once).
            let _ = unsafe { self.lib().cuStreamDestroy_v2(self.raw) };
        }
    }
}

fn widen_half(dtype: DType, bits: u16) -> f32 {
    match dtype {
        DType::BF16 => f32::from_bits(u32::from(bits) << 16),
        _ => {
            // IEEE binary16 to binary32, exactly.
            let sign = u32::from(bits >> 15) << 31;
            let exp = u32::from((bits >> 10) & 0x1f);
            let man = u32::from(bits & 0x3ff);
            let v = match (exp, man) {
                (0, 0) => sign,
                (0, m) => {
                    // Subnormal: value = m * 2^-24.
                    let f = m as f32 * f32::from_bits(0x3380_0000);
                    return if sign != 0 { -f } else { f };
                }
                (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
                (e, m) => sign | ((e + 112) << 23) | (m << 13),
            };
            f32::from_bits(v)
        }
    }
}

/// Polls `done` with a growing sleep until it returns true or `timeout` passes.
fn poll_until(
    timeout: Duration,
    op: &'static str,
    mut done: impl FnMut() -> Result<bool>,
) -> Result<()> {
    let start = Instant::now();
    let mut nap = Duration::from_micros(20);
    loop {
        if done()? {
            return Ok(());
        }
        if start.elapsed() >= timeout {
            return Err(Error::Timeout {
                op,
                waited: timeout,
            });
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(2));
    }
}

/// An event.
pub(crate) struct CudaEvent {
    pub device: Arc<CudaDevice>,
    pub raw: sys::CUevent,
}

// SAFETY: events are driver handles usable from any thread with the context current.
unsafe impl Send for CudaEvent {}
// SAFETY: as above; the driver synchronises concurrent use.
unsafe impl Sync for CudaEvent {}

impl CudaEvent {
    pub fn new(device: Arc<CudaDevice>, timing: bool) -> Result<CudaEvent> {
        let _ctx = device.bind()?;
        let flags = if timing {
            sys::CU_EVENT_DEFAULT
        } else {
            sys::CU_EVENT_DISABLE_TIMING
        };
        let mut raw = ptr::null_mut();
        // SAFETY: writes one event handle.
        check_cuda("cuEventCreate", unsafe {
            device.lib.cuEventCreate(&mut raw, flags)?
        })?;
        Ok(CudaEvent { device, raw })
    }

    pub fn record(&self, stream: &CudaStream) -> Result<()> {
        let _ctx = self.device.bind()?;
        // SAFETY: valid event and stream of one context.
        check_cuda("cuEventRecord", unsafe {
            self.device.lib.cuEventRecord(self.raw, stream.raw)?
        })
    }

    pub fn query(&self) -> Result<bool> {
        let _ctx = self.device.bind()?;
        // SAFETY: a valid event.
        match unsafe { self.device.lib.cuEventQuery(self.raw)? } {
            sys::CUDA_SUCCESS => Ok(true),
            sys::CUDA_ERROR_NOT_READY => Ok(false),
            rc => check_cuda("cuEventQuery", rc).map(|_| false),
        }
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        match timeout {
            None => {
                let _ctx = self.device.bind()?;
                // SAFETY: a valid event.
                check_cuda("cuEventSynchronize", unsafe {
                    self.device.lib.cuEventSynchronize(self.raw)?
                })
            }
            Some(t) => poll_until(t, "event synchronize", || self.query()),
        }
    }

    pub fn elapsed_ms(&self, end: &CudaEvent) -> Result<f32> {
        let _ctx = self.device.bind()?;
        let lib = self.device.lib;
        let mut ms = 0f32;
        // CUDA 12.8+ drivers export `_v2` (the only name CUDA 13's cuda.h declares);
        // older ones only the original, which has the same signature.
        // SAFETY: two valid timing events; writes one float.
        let rc = unsafe {
            if lib.has_function("cuEventElapsedTime_v2") == Some(true) {
                lib.cuEventElapsedTime_v2(&mut ms, self.raw, end.raw)?
            } else {
                lib.cuEventElapsedTime(&mut ms, self.raw, end.raw)?
            }
        };
        check_cuda("cuEventElapsedTime", rc)?;
        Ok(ms)
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if let Ok(_ctx) = self.device.bind() {
            // SAFETY: destroyed once; safe even if a record is pending.
            let _ = unsafe { self.device.lib.cuEventDestroy_v2(self.raw) };
        }
    }
}

/// A host-released flag: 4 bytes of mapped pinned memory that streams wait on with
/// `cuStreamWaitValue32`.
pub(crate) struct CudaGate {
    device: Arc<CudaDevice>,
    host: std::mem::ManuallyDrop<PinnedHost>,
    alias: u64,
    /// Events recorded right after each wait, so that the flag is freed only when no
    /// stream can still read it.
    waits: Mutex<Vec<CudaEvent>>,
}

impl CudaGate {
    pub fn new(device: Arc<CudaDevice>) -> Result<CudaGate> {
        let host = PinnedHost::new(device.clone(), 4)?;
        let alias = host.device_alias()?;
        Ok(CudaGate {
            device,
            host: std::mem::ManuallyDrop::new(host),
            alias,
            waits: Mutex::new(Vec::new()),
        })
    }

    pub fn open(&self) {
        // SAFETY: the flag is 4 bytes of live pinned memory, aligned; the GPU reads it
        // with stream memory operations, so a volatile store is the documented way to
        // release it.
        unsafe { std::ptr::write_volatile(self.host.ptr.cast::<u32>(), 1) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_open(&self) -> bool {
        // SAFETY: as in `open`; a volatile load of the flag.
        let flag = unsafe { std::ptr::read_volatile(self.host.ptr.cast::<u32>()) };
        flag != 0
    }

    pub fn wait_on(&self, stream: &CudaStream) -> Result<()> {
        stream.wait_value(self.alias)?;
        let after = CudaEvent::new(self.device.clone(), false)?;
        after.record(stream)?;
        crate::sync::lock(&self.waits).push(after);
        Ok(())
    }
}

impl Drop for CudaGate {
    fn drop(&mut self) {
        self.open();
        // Free the flag only once every stream that waited on it is past the wait; a
        // stream still held up by other work keeps it (4 bytes leak) rather than have
        // the page freed under it. Never blocks for long.
        let waits = std::mem::take(self.waits.get_mut().unwrap_or_else(|e| e.into_inner()));
        let passed = waits
            .iter()
            .all(|e| e.synchronize(Some(Duration::from_millis(100))).is_ok());
        if passed {
            // SAFETY: taken once, here, in drop.
            drop(unsafe { std::mem::ManuallyDrop::take(&mut self.host) });
        } else {
            log::warn!(
                "cuda:{}: a stream is still behind a dropped gate; its flag is leaked",
                self.device.ordinal
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_widening_is_exact() {
        for v in [0.0f32, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            let h = half::f16::from_f32(v);
            assert_eq!(widen_half(DType::F16, h.to_bits()), h.to_f32(), "{v}");
            let b = half::bf16::from_f32(v);
            assert_eq!(widen_half(DType::BF16, b.to_bits()), b.to_f32(), "{v}");
        }
        assert!(widen_half(DType::F16, 0x7e00).is_nan());
        assert_eq!(widen_half(DType::F16, 0xfc00), f32::NEG_INFINITY);
    }
}
