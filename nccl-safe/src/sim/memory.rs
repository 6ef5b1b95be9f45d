//! Simulated device memory: allocations behind opaque addresses that are never host
//! pointers and never reused, resolved and bounds-checked at every access; and the
//! host memory the sim's `HostBuffer`s use.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::driver::types::DriverKind;
use crate::sync::lock;
use crate::{Error, Result};

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
    pub(super) fn read(&self, offset: usize, out: &mut [u8]) {
        for (o, b) in out.iter_mut().zip(&self.bytes[offset..]) {
            *o = b.load(Ordering::Relaxed);
        }
    }

    pub(super) fn write(&self, offset: usize, data: &[u8]) {
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
    pub(super) next_stream: AtomicU64,
    /// Serialises every NCCL call on this device (Decision 7).
    nccl: Mutex<()>,
}

impl SimDevice {
    pub(super) fn new(ordinal: usize, capacity: usize) -> SimDevice {
        SimDevice {
            ordinal,
            capacity,
            used: Mutex::new(0),
            allocs: RwLock::new(BTreeMap::new()),
            next: AtomicU64::new(ADDRESS_BASE + ordinal as u64 * DEVICE_SPAN + GUARD),
            next_stream: AtomicU64::new(0),
            nccl: Mutex::new(()),
        }
    }

    /// Holds this device's NCCL lock (Decision 7).
    pub fn nccl_lock(&self) -> MutexGuard<'_, ()> {
        lock(&self.nccl)
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
                    driver: DriverKind::Sim,
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

/// Host memory of a sim `HostBuffer`: 64-byte aligned heap memory, zeroed.
pub(crate) struct HostAlloc {
    pub ptr: *mut u8,
    bytes: usize,
}

// SAFETY: plain memory; every access is ordered by the owning buffer's tracker.
unsafe impl Send for HostAlloc {}
// SAFETY: as above.
unsafe impl Sync for HostAlloc {}

const HOST_ALIGN: usize = 64;

impl HostAlloc {
    pub fn new(ordinal: usize, bytes: usize) -> Result<HostAlloc> {
        let layout =
            std::alloc::Layout::from_size_align(bytes.max(1), HOST_ALIGN).map_err(|_| {
                Error::InvalidArgument {
                    op: "host alloc",
                    reason: format!("{bytes} bytes is too large"),
                }
            })?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::OutOfMemory {
                driver: DriverKind::Sim,
                ordinal,
                requested: bytes,
                available: 0,
            });
        }
        Ok(HostAlloc { ptr, bytes })
    }
}

impl Drop for HostAlloc {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::from_size_align(self.bytes.max(1), HOST_ALIGN)
            .expect("the layout was valid at allocation");
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr, layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
