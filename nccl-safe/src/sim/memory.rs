//! Simulated device memory.
//!
//! Each simulated device of a process owns an *arena*: one anonymous shared-memory
//! file (`memfd`), mapped into this process and, for communicators, into its peers'
//! processes (as CUDA IPC does), so that collectives move data between ranks without
//! extra copies. Allocations are ranges of the arena behind opaque device addresses
//! that are never host pointers and never reused; every access is resolved and
//! bounds-checked when it executes, so a bad address is an error on the stream, never
//! undefined behaviour.
//!
//! Every access to arena bytes is atomic, so a racing, untracked access through the
//! unsafe raw-pointer API, or a peer in another process, is still defined behaviour:
//! - on x86-64, bulk moves are one `rep movsb` / `rep stosb`: every byte access these
//!   instructions make is an atomic access on x86-64, so each is a byte-wise atomic
//!   memcpy (relaxed, per byte: the semantics proposed for C++'s
//!   `atomic_load_per_byte_memcpy`), never a data race; and fast-string moves stream
//!   large blocks near memory bandwidth without reading the destination first;
//! - elsewhere, relaxed machine-word atomics (bytes at the edges).
//!
//! Past 600 lines with its tests: every raw access to simulated memory stays in this
//! one file, so that its `unsafe` is reviewed in one place.

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock};

use super::os::{self, Mapping};
use crate::base::types::DriverKind;
use crate::sync::lock;
use crate::{Error, Result};

/// Where each device's addresses start: far from any host mapping, 1 TiB apart.
pub(super) const ADDRESS_BASE: u64 = 0x5a00_0000_0000;
pub(super) const DEVICE_SPAN: u64 = 1 << 40;
/// Space left between addresses of allocations, so that running off the end never
/// lands in a neighbour.
pub(super) const GUARD: u64 = 4096;
/// Alignment of allocations in the arena (as `cuMemAlloc`'s 256 bytes).
const ALIGN: usize = 256;
/// Frees of at least this many bytes give their pages back to the system.
const PUNCH_AT: usize = 4 << 20;

/// The byte poisoned outputs are filled with: `-1` for integers, NaN for floats.
pub(crate) const POISON: u8 = 0xff;

// ---------------------------------------------------------------------------------
// Word-atomic access to shared bytes.

const WORD: usize = 8;

/// Copies `len` bytes from `src` to `dst` as a byte-wise atomic memcpy: `rep movsb`
/// makes byte accesses only, and every byte access of x86-64 is atomic, so this races
/// with no other access (atomic or byte-wise atomic) to the same bytes. Overlap is the
/// caller's to avoid (it copies forwards).
///
/// # Safety
///
/// Both ranges must be live memory of `len` bytes.
#[cfg(all(target_arch = "x86_64", not(miri)))]
unsafe fn rep_movsb(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: the caller's ranges; the direction flag is clear (the ABI guarantees it
    // at every call boundary); rdi/rsi/rcx are declared clobbered.
    unsafe {
        std::arch::asm!(
            "rep movsb",
            inout("rcx") len => _,
            inout("rdi") dst => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        )
    };
}

/// Below this, outputs are stored through the cache (a reader soon wants them there).
const STREAM_AT: usize = 256 << 10;

/// Stores private `src` into shared memory at `dst` with streaming stores (large
/// outputs: written without reading their cache lines first), then fences so that they
/// are visible before anything stored after. Byte-wise atomic like [`store`]: every
/// byte of a `movntdq` is written as a unit.
///
/// # Safety
///
/// As [`store`].
pub(super) unsafe fn store_stream(dst: *mut u8, src: &[u8], total: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if total >= STREAM_AT {
        let len = src.len();
        let head = dst.align_offset(16).min(len);
        let body = (len - head) / 64 * 64;
        // SAFETY: the caller's range at `dst` and `src` hold `len` bytes; the body
        // starts 16-byte aligned at `dst + head` (movntdq needs it; the private source
        // is read unaligned) and covers whole 64-byte steps; the rest is copied with
        // `rep movsb`; `sfence` orders the streaming stores before later stores.
        unsafe {
            rep_movsb(dst, src.as_ptr(), head);
            if body > 0 {
                std::arch::asm!(
                    "2:",
                    "movdqu xmm0, [rsi]",
                    "movdqu xmm1, [rsi + 16]",
                    "movdqu xmm2, [rsi + 32]",
                    "movdqu xmm3, [rsi + 48]",
                    "movntdq [rdi], xmm0",
                    "movntdq [rdi + 16], xmm1",
                    "movntdq [rdi + 32], xmm2",
                    "movntdq [rdi + 48], xmm3",
                    "add rsi, 64",
                    "add rdi, 64",
                    "sub rcx, 64",
                    "jnz 2b",
                    inout("rcx") body => _,
                    inout("rdi") dst.add(head) => _,
                    inout("rsi") src.as_ptr().add(head) => _,
                    out("xmm0") _,
                    out("xmm1") _,
                    out("xmm2") _,
                    out("xmm3") _,
                    options(nostack)
                );
            }
            rep_movsb(
                dst.add(head + body),
                src.as_ptr().add(head + body),
                len - head - body,
            );
            std::arch::asm!("sfence", options(nostack, preserves_flags));
        }
        return;
    }
    let _ = total;
    // SAFETY: as the caller's.
    unsafe { store(dst, src) }
}

/// Copies `dst.len()` bytes from shared memory at `src` into private memory.
///
/// # Safety
///
/// `src` must address `dst.len()` bytes of live shared memory that is only ever
/// accessed atomically (arena memory).
pub(super) unsafe fn load(src: *const u8, dst: &mut [u8]) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: the caller's range at `src`, and `dst`, hold `dst.len()` bytes.
        unsafe { rep_movsb(dst.as_mut_ptr(), src, dst.len()) };
        #[allow(clippy::needless_return)]
        return;
    }
    #[allow(unreachable_code)]
    let len = dst.len();
    if src.align_offset(WORD) == 0 && dst.as_ptr().align_offset(WORD) == 0 {
        let words = len / WORD;
        // SAFETY: both word-aligned; `words` words fit in the caller's range and in
        // `dst` (private memory, viewed as the words it is made of).
        let (ws, ds) = unsafe {
            (
                std::slice::from_raw_parts(src.cast::<AtomicU64>(), words),
                std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u64>(), words),
            )
        };
        for (d, w) in ds.iter_mut().zip(ws) {
            *d = w.load(Ordering::Relaxed);
        }
        for (i, d) in dst.iter_mut().enumerate().skip(words * WORD) {
            // SAFETY: inside the caller's range.
            *d = unsafe { (*src.add(i).cast::<AtomicU8>()).load(Ordering::Relaxed) };
        }
        return;
    }
    let head = (src.align_offset(WORD)).min(len);
    for (i, d) in dst[..head].iter_mut().enumerate() {
        // SAFETY: inside the caller's range; byte atomics need no alignment.
        *d = unsafe { (*src.add(i).cast::<AtomicU8>()).load(Ordering::Relaxed) };
    }
    let words = if head < len { (len - head) / WORD } else { 0 };
    let ws: &[AtomicU64] = if words == 0 {
        &[]
    } else {
        // SAFETY: `src + head` is word-aligned and `words` words fit in the range.
        unsafe { std::slice::from_raw_parts(src.add(head).cast::<AtomicU64>(), words) }
    };
    for (chunk, w) in dst[head..head + words * WORD]
        .chunks_exact_mut(WORD)
        .zip(ws)
    {
        chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_ne_bytes());
    }
    for (i, d) in dst.iter_mut().enumerate().skip(head + words * WORD) {
        // SAFETY: inside the caller's range.
        *d = unsafe { (*src.add(i).cast::<AtomicU8>()).load(Ordering::Relaxed) };
    }
}

/// Copies private `src` into shared memory at `dst`.
///
/// # Safety
///
/// As [`load`], for `src.len()` bytes at `dst`.
pub(super) unsafe fn store(dst: *mut u8, src: &[u8]) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: the caller's range at `dst`, and `src`, hold `src.len()` bytes.
        unsafe { rep_movsb(dst, src.as_ptr(), src.len()) };
        #[allow(clippy::needless_return)]
        return;
    }
    #[allow(unreachable_code)]
    let len = src.len();
    if dst.align_offset(WORD) == 0 && src.as_ptr().align_offset(WORD) == 0 {
        let words = len / WORD;
        // SAFETY: both word-aligned; `words` words fit in the caller's range and in
        // `src` (private memory, read as the words it is made of).
        let (ws, ss) = unsafe {
            (
                std::slice::from_raw_parts(dst.cast::<AtomicU64>(), words),
                std::slice::from_raw_parts(src.as_ptr().cast::<u64>(), words),
            )
        };
        for (w, s) in ws.iter().zip(ss) {
            w.store(*s, Ordering::Relaxed);
        }
        for (i, s) in src.iter().enumerate().skip(words * WORD) {
            // SAFETY: inside the caller's range.
            unsafe { (*dst.add(i).cast::<AtomicU8>()).store(*s, Ordering::Relaxed) };
        }
        return;
    }
    let head = (dst.align_offset(WORD)).min(len);
    for (i, s) in src[..head].iter().enumerate() {
        // SAFETY: inside the caller's range.
        unsafe { (*dst.add(i).cast::<AtomicU8>()).store(*s, Ordering::Relaxed) };
    }
    let words = if head < len { (len - head) / WORD } else { 0 };
    let ws: &[AtomicU64] = if words == 0 {
        &[]
    } else {
        // SAFETY: `dst + head` is word-aligned and `words` words fit in the range.
        unsafe { std::slice::from_raw_parts(dst.add(head).cast::<AtomicU64>(), words) }
    };
    for (chunk, w) in src[head..head + words * WORD].chunks_exact(WORD).zip(ws) {
        let mut b = [0u8; WORD];
        b.copy_from_slice(chunk);
        w.store(u64::from_ne_bytes(b), Ordering::Relaxed);
    }
    for (i, s) in src.iter().enumerate().skip(head + words * WORD) {
        // SAFETY: inside the caller's range.
        unsafe { (*dst.add(i).cast::<AtomicU8>()).store(*s, Ordering::Relaxed) };
    }
}

/// Sets `len` bytes of shared memory at `dst` to `value`.
///
/// # Safety
///
/// As [`load`], for `len` bytes at `dst`.
pub(super) unsafe fn fill(dst: *mut u8, len: usize, value: u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: the caller's range at `dst` holds `len` bytes. `rep stosb` stores
        // bytes, each an atomic access on x86-64 (see the module's documentation).
        unsafe {
            std::arch::asm!(
                "rep stosb",
                inout("rcx") len => _,
                inout("rdi") dst => _,
                in("al") value,
                options(nostack, preserves_flags)
            )
        };
        #[allow(clippy::needless_return)]
        return;
    }
    #[allow(unreachable_code)]
    let head = (dst.align_offset(WORD)).min(len);
    let word = u64::from_ne_bytes([value; WORD]);
    for i in 0..head {
        // SAFETY: inside the caller's range.
        unsafe { (*dst.add(i).cast::<AtomicU8>()).store(value, Ordering::Relaxed) };
    }
    let words = if head < len { (len - head) / WORD } else { 0 };
    let ws: &[AtomicU64] = if words == 0 {
        &[]
    } else {
        // SAFETY: aligned and in range.
        unsafe { std::slice::from_raw_parts(dst.add(head).cast::<AtomicU64>(), words) }
    };
    for w in ws {
        w.store(word, Ordering::Relaxed);
    }
    for i in head + words * WORD..len {
        // SAFETY: inside the caller's range.
        unsafe { (*dst.add(i).cast::<AtomicU8>()).store(value, Ordering::Relaxed) };
    }
}

/// Bytes moved per step of shared-to-shared copies and reductions (fits in L1/L2).
pub(super) const BLOCK: usize = 256 << 10;

/// Copies `len` bytes of shared memory from `src` to `dst` (which may overlap only if
/// equal), through a private buffer.
///
/// # Safety
///
/// As [`load`] for `src` and [`store`] for `dst`.
pub(super) unsafe fn copy(dst: *mut u8, src: *const u8, len: usize, scratch: &mut Vec<u8>) {
    if std::ptr::eq(dst, src) || len == 0 {
        return;
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let _ = scratch;
        // SAFETY: the caller's two ranges of `len` bytes.
        unsafe { rep_movsb(dst, src, len) };
        #[allow(clippy::needless_return)]
        return;
    }
    #[allow(unreachable_code)]
    scratch.resize(BLOCK.min(len), 0);
    let mut off = 0;
    while off < len {
        let n = BLOCK.min(len - off);
        // SAFETY: the caller's ranges cover `off..off + n`.
        unsafe {
            load(src.add(off), &mut scratch[..n]);
            store(dst.add(off), &scratch[..n]);
        }
        off += n;
    }
}

// ---------------------------------------------------------------------------------
// Arenas.

/// One device's memory in one process: a memfd mapped shared. Peers map it too.
pub(crate) struct Arena {
    fd: OwnedFd,
    map: Mapping,
}

impl Arena {
    /// A new, sparse arena of `len` bytes.
    fn create(name: &str, len: usize) -> Result<Arena> {
        let fd = os::memfd(name, len).map_err(|e| sim_error("arena", e))?;
        let map = Mapping::new(&fd, len).map_err(|e| sim_error("arena", e))?;
        Ok(Arena { fd, map })
    }

    /// Maps a peer's arena received as a descriptor.
    pub(crate) fn open(fd: OwnedFd) -> Result<Arena> {
        let len = os::file_len(&fd).map_err(|e| sim_error("peer arena", e))?;
        let map = Mapping::new(&fd, len).map_err(|e| sim_error("peer arena", e))?;
        Ok(Arena { fd, map })
    }

    pub(crate) fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The address of `[offset, offset + len)` in this process, checked against the
    /// arena (a peer's offsets come from shared memory and are checked too).
    pub(crate) fn at(&self, offset: u64, len: usize) -> std::result::Result<*mut u8, String> {
        let off = usize::try_from(offset).map_err(|_| "offset too large".to_string())?;
        if off > self.map.len() || len > self.map.len() - off {
            return Err(format!(
                "range [{off:#x}, +{len}) is outside the arena of {} bytes",
                self.map.len()
            ));
        }
        // SAFETY: checked to lie inside the mapping.
        Ok(unsafe { self.map.ptr().add(off) })
    }
}

fn sim_error(op: &'static str, e: std::io::Error) -> Error {
    Error::Sim {
        op,
        reason: e.to_string(),
    }
}

/// First-fit allocation of arena offsets, with neighbours coalesced on free.
struct Allocator {
    /// Free ranges: offset -> length.
    free: BTreeMap<usize, usize>,
}

impl Allocator {
    fn new(len: usize) -> Allocator {
        Allocator {
            free: BTreeMap::from([(0, len)]),
        }
    }

    fn reserve(&mut self, len: usize) -> Option<usize> {
        let len = len.max(1).div_ceil(ALIGN) * ALIGN;
        let (&off, &have) = self.free.iter().find(|(_, l)| **l >= len)?;
        self.free.remove(&off);
        if have > len {
            self.free.insert(off + len, have - len);
        }
        Some(off)
    }

    fn give_back(&mut self, off: usize, len: usize) {
        let mut start = off;
        let mut len = len.max(1).div_ceil(ALIGN) * ALIGN;
        if let Some((&prev, &plen)) = self.free.range(..off).next_back() {
            if prev + plen == off {
                self.free.remove(&prev);
                start = prev;
                len += plen;
            }
        }
        if let Some(&next_len) = self.free.get(&(start + len)) {
            self.free.remove(&(start + len));
            len += next_len;
        }
        self.free.insert(start, len);
    }
}

/// One allocation: its length and where it lives in the arena.
#[derive(Clone, Copy)]
struct Alloc {
    len: usize,
    offset: usize,
}

/// A simulated GPU of this process: its memory and address space.
pub(crate) struct SimDevice {
    pub ordinal: usize,
    pub capacity: usize,
    arena: Arena,
    allocator: Mutex<Allocator>,
    used: Mutex<usize>,
    table: RwLock<BTreeMap<u64, Alloc>>,
    next: AtomicU64,
    pub(super) next_stream: AtomicU64,
    /// Serialises every NCCL call on this device (Decision 7).
    nccl: Mutex<()>,
}

impl SimDevice {
    pub(super) fn new(ordinal: usize, capacity: usize) -> Result<SimDevice> {
        // Twice the capacity of address space, so that fragmentation never refuses an
        // allocation the capacity allows (pages cost memory only once touched).
        let arena = Arena::create(&format!("nccl-rs-sim-device-{ordinal}"), capacity * 2)?;
        Ok(SimDevice {
            ordinal,
            capacity,
            allocator: Mutex::new(Allocator::new(arena.len())),
            arena,
            used: Mutex::new(0),
            table: RwLock::new(BTreeMap::new()),
            next: AtomicU64::new(ADDRESS_BASE + ordinal as u64 * DEVICE_SPAN + GUARD),
            next_stream: AtomicU64::new(0),
            nccl: Mutex::new(()),
        })
    }

    /// Holds this device's NCCL lock (Decision 7).
    pub fn nccl_lock(&self) -> MutexGuard<'_, ()> {
        lock(&self.nccl)
    }

    /// This device's arena (peers map it).
    pub(crate) fn arena(&self) -> &Arena {
        &self.arena
    }

    /// Bytes allocated and not yet freed.
    pub fn used(&self) -> usize {
        *lock(&self.used)
    }

    /// Reserves `bytes`, poisons them, and returns the new allocation's address. Out of
    /// memory is an error at once, as `cuMemAllocAsync` reports it.
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
        let Some(offset) = lock(&self.allocator).reserve(bytes) else {
            *lock(&self.used) -= bytes;
            return Err(Error::OutOfMemory {
                driver: DriverKind::Sim,
                ordinal: self.ordinal,
                requested: bytes,
                available: 0,
            });
        };
        let span = (bytes as u64).div_ceil(GUARD) * GUARD + GUARD;
        let base = self.next.fetch_add(span.max(GUARD), Ordering::Relaxed);
        if let Ok(p) = self.arena.at(offset as u64, bytes) {
            // SAFETY: the range was just reserved in this arena.
            unsafe { fill(p, bytes, POISON) };
        }
        write_lock(&self.table).insert(base, Alloc { len: bytes, offset });
        Ok(base)
    }

    /// Releases an allocation (when its stream-ordered free executes).
    pub fn release(&self, base: u64) -> std::result::Result<(), String> {
        let Some(a) = write_lock(&self.table).remove(&base) else {
            return Err(format!(
                "free of {base:#x}, which is not an allocation of sim device {}",
                self.ordinal
            ));
        };
        if a.len >= PUNCH_AT {
            // Give whole pages back; the rest is poisoned again on reuse.
            let page = 4096;
            let start = a.offset.div_ceil(page) * page;
            let end = (a.offset + a.len) / page * page;
            if end > start {
                os::punch_hole(self.arena.fd(), start, end - start);
            }
        }
        lock(&self.allocator).give_back(a.offset, a.len);
        *lock(&self.used) -= a.len;
        Ok(())
    }

    /// The arena offset of `[addr, addr + len)`, checked against its allocation.
    pub fn resolve(&self, addr: u64, len: usize) -> std::result::Result<u64, String> {
        let table = read_lock(&self.table);
        if let Some((base, a)) = table.range(..=addr).next_back() {
            let offset = (addr - base) as usize;
            if offset <= a.len && len <= a.len - offset {
                return Ok((a.offset + offset) as u64);
            }
            if offset < a.len + GUARD as usize {
                return Err(format!(
                    "out of bounds: [{addr:#x}, {:#x}) runs past the allocation [{base:#x}, {:#x}) on sim device {}",
                    addr + len as u64,
                    base + a.len as u64,
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

    /// The host address of `[addr, addr + len)` in this process, checked.
    pub fn ptr(&self, addr: u64, len: usize) -> std::result::Result<*mut u8, String> {
        let off = self.resolve(addr, len)?;
        self.arena.at(off, len)
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> std::result::Result<(), String> {
        let p = self.ptr(addr, out.len())?;
        // SAFETY: a checked range of this device's arena.
        unsafe { load(p, out) };
        Ok(())
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> std::result::Result<(), String> {
        let p = self.ptr(addr, data.len())?;
        // SAFETY: a checked range of this device's arena.
        unsafe { store(p, data) };
        Ok(())
    }

    pub fn fill_bytes(&self, addr: u64, len: usize, value: u8) -> std::result::Result<(), String> {
        let p = self.ptr(addr, len)?;
        // SAFETY: a checked range of this device's arena.
        unsafe { fill(p, len, value) };
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
        let dev = SimDevice::new(3, 1 << 20).unwrap();
        let a = dev.allocate(100).unwrap();
        assert!(
            a >= ADDRESS_BASE + 3 * DEVICE_SPAN,
            "address in device 3's span"
        );
        let mut out = [0u8; 4];
        assert!(dev.read(a + 96, &mut out).is_ok());
        assert_eq!(out, [POISON; 4], "new memory is poisoned");
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
        let dev = SimDevice::new(0, 1000).unwrap();
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

    #[test]
    fn word_atomic_copies_are_exact_at_every_alignment() {
        let dev = SimDevice::new(1, 1 << 20).unwrap();
        let a = dev.allocate(4096).unwrap();
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for start in 0..17u64 {
            for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 300] {
                dev.fill_bytes(a, 4096, 0).unwrap();
                dev.write(a + start, &data[..len]).unwrap();
                let mut back = vec![0u8; len + 2];
                dev.read(a + start, &mut back[..len]).unwrap();
                assert_eq!(&back[..len], &data[..len], "start {start} len {len}");
                let mut around = [1u8; 1];
                if start > 0 {
                    dev.read(a + start - 1, &mut around).unwrap();
                    assert_eq!(around[0], 0, "no write before the range");
                }
            }
        }
        let mut scratch = Vec::new();
        let src = dev.ptr(a + 3, 200).unwrap();
        let dst = dev.ptr(a + 1000, 200).unwrap();
        // SAFETY: two checked ranges of one arena.
        unsafe { copy(dst, src, 200, &mut scratch) };
        let (mut x, mut y) = (vec![0u8; 200], vec![0u8; 200]);
        dev.read(a + 3, &mut x).unwrap();
        dev.read(a + 1000, &mut y).unwrap();
        assert_eq!(x, y);
    }

    #[test]
    fn freed_ranges_are_reused_and_coalesced() {
        let mut al = Allocator::new(4096);
        let a = al.reserve(1000).unwrap();
        let b = al.reserve(1000).unwrap();
        let c = al.reserve(1000).unwrap();
        assert!(al.reserve(2000).is_none());
        al.give_back(b, 1000);
        al.give_back(a, 1000);
        al.give_back(c, 1000);
        assert_eq!(al.free.len(), 1, "everything coalesced: {:?}", al.free);
        assert_eq!(al.reserve(4096), Some(0));
    }
}
