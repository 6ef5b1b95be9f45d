//! The device-side work of memory operations on the sim: allocation and free, poison,
//! fills, elementwise ops, copies, host functions. Each is one task on the stream;
//! every access to device memory is resolved, bounds-checked and word-atomic.

use std::sync::Arc;

use super::SimStream;
use crate::base::host_fn;
use crate::base::types::Elementwise;
use crate::{DType, Error, Result};

/// Keeps host memory alive while a task that copies into or out of it is queued.
pub(crate) type KeepAlive = Arc<dyn Send + Sync>;

/// The index of the first little-endian element of `size` bytes in `data` with every
/// bit of `mask` set.
fn first_match(data: &[u8], size: usize, mask: u64) -> Option<usize> {
    fn find<const N: usize>(
        data: &[u8],
        mask: u64,
        bits: impl Fn([u8; N]) -> u64,
    ) -> Option<usize> {
        let hit = |c: &[u8]| <[u8; N]>::try_from(c).is_ok_and(|a| bits(a) & mask == mask);
        // Whole runs first, without an early exit (the compiler vectorises it), then
        // the position inside the run that has one.
        let run = 64 * N;
        data.chunks(run)
            .enumerate()
            .find(|(_, r)| r.chunks_exact(N).fold(false, |any, c| any | hit(c)))
            .and_then(|(i, r)| Some(i * 64 + r.chunks_exact(N).position(hit)?))
    }
    match size {
        1 => find::<1>(data, mask, |a| u64::from(a[0])),
        2 => find::<2>(data, mask, |a| u64::from(u16::from_le_bytes(a))),
        4 => find::<4>(data, mask, |a| u64::from(u32::from_le_bytes(a))),
        _ => find::<8>(data, mask, u64::from_le_bytes),
    }
}

/// The device-side work of memory operations, each one task on the stream.
impl SimStream {
    /// Reserves device memory (at once, as `cuMemAllocAsync` reports out of memory).
    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        host_fn::check("memory allocate")?;
        self.device.allocate(bytes)
    }

    /// Releases an allocation now (its uses have completed).
    pub fn free(&self, ptr: u64) -> Result<()> {
        host_fn::check("memory free")?;
        self.device.release(ptr).map_err(|reason| Error::Sim {
            op: "memory free",
            reason,
        })
    }

    /// Fills `[addr, addr + len)` with poison now (nothing is pending on the range).
    pub fn poison(&self, addr: u64, len: usize) -> Result<()> {
        self.device
            .fill_bytes(addr, len, super::POISON)
            .map_err(|reason| Error::Sim {
                op: "poison",
                reason,
            })
    }

    /// Sets `count` elements at `dst` to `pattern` (one element's bytes).
    pub fn fill(&self, dst: u64, count: usize, pattern: Vec<u8>) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let size = pattern.len();
            let p = device.ptr(dst, count * size)?;
            let block: Vec<u8> = pattern
                .iter()
                .copied()
                .cycle()
                .take(super::memory::BLOCK / size * size)
                .collect();
            let mut off = 0;
            while off < count * size {
                let n = block.len().min(count * size - off);
                // SAFETY: a checked range of this device's arena.
                unsafe { super::memory::store(p.add(off), &block[..n]) };
                off += n;
            }
            Ok(())
        }))
    }

    /// Applies `op` with `scalar` to `count` elements of `dtype` at `dst`, in place.
    pub fn elementwise(
        &self,
        op: Elementwise,
        dtype: DType,
        dst: u64,
        count: usize,
        scalar: Vec<u8>,
    ) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let bytes = count * dtype.size();
            let p = device.ptr(dst, bytes)?;
            let step = super::memory::BLOCK / dtype.size() * dtype.size();
            let mut buf = vec![0u8; step.min(bytes)];
            let mut off = 0;
            while off < bytes {
                let n = step.min(bytes - off);
                // SAFETY: a checked range of this device's arena.
                unsafe { super::memory::load(p.add(off), &mut buf[..n]) };
                super::reduce::elementwise(op, dtype, &mut buf[..n], &scalar);
                // SAFETY: as above.
                unsafe { super::memory::store(p.add(off), &buf[..n]) };
                off += n;
            }
            Ok(())
        }))
    }

    /// Lowers the `u64` at `out` to the index of the first of `count` elements of
    /// `dtype` at `src` that is not finite (no change when all are).
    pub fn find_non_finite(&self, dtype: DType, src: u64, count: usize, out: u64) -> Result<()> {
        let Some(mask) = dtype.non_finite_mask() else {
            return Ok(());
        };
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let size = dtype.size();
            let p = device.ptr(src, count * size)?;
            let step = super::memory::BLOCK / size * size;
            let mut buf = vec![0u8; step.min(count * size)];
            let (mut off, mut found) = (0, None);
            while off < count * size && found.is_none() {
                let n = step.min(count * size - off);
                // SAFETY: a checked range of this device's arena.
                unsafe { super::memory::load(p.add(off), &mut buf[..n]) };
                found = first_match(&buf[..n], size, mask).map(|i| (off / size + i) as u64);
                off += n;
            }
            if let Some(index) = found {
                let o = device.ptr(out, 8)?;
                let mut cur = [0u8; 8];
                // SAFETY: a checked 8-byte range of this device's arena.
                unsafe { super::memory::load(o, &mut cur) };
                if index < u64::from_le_bytes(cur) {
                    // SAFETY: as above.
                    unsafe { super::memory::store(o, &index.to_le_bytes()) };
                }
            }
            Ok(())
        }))
    }

    /// Copies `bytes` from `src` to `dst` on this device.
    pub fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let s = device.ptr(src, bytes)?;
            let d = device.ptr(dst, bytes)?;
            let mut scratch = Vec::new();
            // SAFETY: two checked ranges of this device's arena.
            unsafe { super::memory::copy(d, s, bytes, &mut scratch) };
            Ok(())
        }))
    }

    /// Copies `bytes` of host memory at `src` to `dst`.
    ///
    /// # Safety
    ///
    /// `src` must address `bytes` readable bytes that `keep` keeps alive, and nothing
    /// may write them until this task has run.
    pub unsafe fn copy_htod(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        keep: KeepAlive,
    ) -> Result<()> {
        let (device, src) = (self.device.clone(), src as usize);
        self.submit(Box::new(move || {
            let _keep = keep;
            // SAFETY: the caller keeps `bytes` bytes at `src` alive and unwritten until
            // this task has run.
            let data = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
            device.write(dst, data)
        }))
    }

    /// Copies `bytes` at `src` into host memory at `dst`.
    ///
    /// # Safety
    ///
    /// `dst` must address `bytes` writable bytes that `keep` keeps alive, and nothing
    /// may read or write them until this task has run.
    pub unsafe fn copy_dtoh(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        keep: KeepAlive,
    ) -> Result<()> {
        let (device, dst) = (self.device.clone(), dst as usize);
        self.submit(Box::new(move || {
            let _keep = keep;
            // SAFETY: the caller keeps `bytes` bytes at `dst` alive and untouched until
            // this task has run.
            let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
            device.read(src, out)
        }))
    }

    /// Runs a host function in stream order. A driver call made from it is refused,
    /// and fails the stream with the rule's name.
    pub fn launch_host_fn(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        self.submit(Box::new(move || {
            let inside = host_fn::Inside::enter();
            f();
            match inside.violation() {
                Some(v) => Err(v),
                None => Ok(()),
            }
        }))
    }
}
