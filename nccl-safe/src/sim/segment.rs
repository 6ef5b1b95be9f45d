//! A communicator's control segment: the state its ranks share, laid out in one
//! anonymous shared-memory file that every rank maps, whether it is a thread of this
//! process or another process of the host. Everything in it is an atomic, so any
//! rank may read or write any field; a futex word (the *bell*) is rung after every
//! change, and every wait also wakes periodically to notice ranks whose process died.
//!
//! Layout (all little structs are `repr(C)` and made of atomics only, so an all-zero
//! file is a valid, empty state):
//!
//! ```text
//! Header | RankInfo x n | (SlotHead + Entry x n) x SLOTS | P2pSlot x (n*n*P2P_SLOTS)
//!        | (SplitHead + SplitEntry x n) x SPLIT_SLOTS | signal counter x (n*n)
//!        | WindowSlot x (n*WINDOW_SLOTS)
//! ```

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::os::{self, Mapping};
use super::{SPIN, spin_until};
use crate::base::op::CallLabel;
use crate::{Error, Result};

pub(super) const MAGIC: u64 = 0x6e63_636c_7273_6735; // "ncclrsg5" (signal counters and windows)
/// Collective positions that can be registered and not yet finished, per communicator
/// (public as [`crate::SIM_PENDING_COLLECTIVES`]).
pub(super) const SLOTS: usize = 2048;
/// Messages in flight between one ordered pair of ranks (public as
/// [`crate::SIM_PENDING_MESSAGES`]).
pub(super) const P2P_SLOTS: usize = 64;
pub(super) const SPLIT_SLOTS: usize = 4;
/// How often a wait looks at its peers' processes.
pub(super) const LIVENESS_TICK: Duration = Duration::from_millis(50);
/// Words of a caller's label kept per operation (for messages naming both sides).
pub(super) const LABEL_WORDS: usize = 16;
/// Symmetric windows one rank of a communicator may hold registered at once (the
/// sim's table of them, which one-sided puts read).
pub(super) const WINDOW_SLOTS: usize = 32;

/// Rank states.
pub(super) const ALIVE: u32 = 1;
pub(super) const DESTROYED: u32 = 2;
pub(super) const ABORTED: u32 = 3;
/// The rank's process died, or its connection closed before the communicator existed.
pub(super) const DEAD: u32 = 4;

/// "No address" in entries.
pub(super) const NONE: u64 = u64::MAX;

#[repr(C)]
pub(super) struct Header {
    pub magic: AtomicU64,
    pub size: AtomicU32,
    /// The futex word every state change rings.
    pub bell: AtomicU32,
    pub uuid: [AtomicU64; 2],
    /// Waits asleep on the bell (a ring with none skips the wake-up system call).
    pub sleepers: AtomicU32,
    /// The futex word rung when a position is freed (and by every ring of the main
    /// bell): launches waiting for room sleep on it, so that freeing a position, once
    /// per operation, does not wake every wait of every rank.
    pub room_bell: AtomicU32,
    /// Waits asleep on the room bell.
    pub room_sleepers: AtomicU32,
    pub _pad: AtomicU32,
}

#[repr(C)]
pub(super) struct RankInfo {
    pub pid: AtomicU32,
    pub state: AtomicU32,
    pub device: AtomicU32,
    /// Set when this rank aborts after another rank's failure: that rank + 1 (the
    /// root cause, followed along the chain of aborts); 0 when none is known.
    pub cause: AtomicU32,
    pub nonce: AtomicU64,
    /// While this rank's stream runs a send that waits for its receiver:
    /// `peer + 1` (0 when none), and the stream it runs on.
    pub blocked_peer: AtomicU64,
    pub blocked_stream: AtomicU64,
    pub blocked_msg: AtomicU64,
    /// Set by whoever finds a deadlock cycle through this rank: the cycle's ranks as a
    /// bit mask (ranks below 64).
    pub deadlock: AtomicU64,
}

/// Per-operation entry states.
pub(super) const EMPTY: u32 = 0;
pub(super) const REGISTERED: u32 = 1;
pub(super) const ARRIVED: u32 = 2;
pub(super) const DONE: u32 = 3;
pub(super) const FAILED: u32 = 4;

#[repr(C)]
pub(super) struct SlotHead {
    /// A spin lock for registration (holder's pid, 0 when free).
    pub lock: AtomicU32,
    pub arrived: AtomicU32,
    /// `seq + 1` of the collective holding the slot; 0 when free.
    pub seq: AtomicU64,
    /// 0, or `1 | rank_a << 8 | rank_b << 24` for a mismatch between two ranks.
    pub error: AtomicU64,
    pub done: AtomicU32,
    pub left: AtomicU32,
}

/// One rank's part of one operation: what it issued and where its buffers are.
#[repr(C)]
#[derive(Default)]
pub(super) struct Entry {
    pub state: AtomicU32,
    /// `kind | dtype << 8 | op << 16 | has_root << 24`.
    pub desc: AtomicU32,
    pub root: AtomicU32,
    /// The checked call site's number (0: unchecked).
    pub site: AtomicU32,
    pub count: AtomicU64,
    /// A PreMulSum scalar's bytes (little-endian, zero-extended).
    pub scalar: AtomicU64,
    /// Arena offsets of this rank's buffers, or `NONE`.
    pub send: AtomicU64,
    pub recv: AtomicU64,
    pub stream: AtomicU64,
    /// The per-call config's key (0: none), see `CollConfig::key`.
    pub config: AtomicU64,
    pub label: [AtomicU64; LABEL_WORDS],
}

#[repr(C)]
pub(super) struct P2pSlot {
    pub lock: AtomicU32,
    pub _pad: AtomicU32,
    /// `n + 1` of the message holding the slot; 0 when free.
    pub seq: AtomicU64,
    pub send: Entry,
    pub recv: Entry,
}

#[repr(C)]
pub(super) struct SplitHead {
    pub lock: AtomicU32,
    pub left: AtomicU32,
    pub seq: AtomicU64,
}

#[repr(C)]
pub(super) struct SplitEntry {
    pub state: AtomicU32,
    pub key: AtomicU32,
    /// `color + 1`, or 0 for "no colour".
    pub color: AtomicU64,
}

/// One rank's registered window, as its peers' puts find it.
#[repr(C)]
pub(super) struct WindowSlot {
    /// `ordinal + 1` of the window while it is registered (the communicator's windows
    /// are numbered in registration order, the same on every rank); 0 when free.
    pub ordinal: AtomicU64,
    /// Where it is: an offset into its rank's arena, and its length.
    pub offset: AtomicU64,
    pub bytes: AtomicU64,
    /// Puts writing into it now: its release waits for them.
    pub users: AtomicU64,
}

fn size_of<T>() -> usize {
    std::mem::size_of::<T>()
}

/// Byte offsets of the parts of a segment for `n` ranks.
#[derive(Clone, Copy)]
struct Layout {
    n: usize,
    ranks: usize,
    slots: usize,
    slot_len: usize,
    p2p: usize,
    splits: usize,
    split_len: usize,
    signals: usize,
    windows: usize,
    total: usize,
}

impl Layout {
    fn new(n: usize) -> Layout {
        let ranks = size_of::<Header>();
        let slots = ranks + n * size_of::<RankInfo>();
        let slot_len = size_of::<SlotHead>() + n * size_of::<Entry>();
        let p2p = slots + SLOTS * slot_len;
        let splits = p2p + n * n * P2P_SLOTS * size_of::<P2pSlot>();
        let split_len = size_of::<SplitHead>() + n * size_of::<SplitEntry>();
        let signals = splits + SPLIT_SLOTS * split_len;
        let windows = signals + n * n * size_of::<AtomicU64>();
        let total = windows + n * WINDOW_SLOTS * size_of::<WindowSlot>();
        Layout {
            n,
            ranks,
            slots,
            slot_len,
            p2p,
            splits,
            split_len,
            signals,
            windows,
            total: total.div_ceil(4096) * 4096,
        }
    }
}

/// A mapped control segment.
pub(super) struct Segment {
    fd: OwnedFd,
    map: Mapping,
    layout: Layout,
}

impl Segment {
    /// A new segment for `n` ranks (the rendezvous root makes it).
    pub fn create(n: usize) -> Result<Segment> {
        let layout = Layout::new(n);
        let fd = os::memfd("nccl-rs-sim-communicator", layout.total).map_err(seg_err)?;
        let map = Mapping::new(&fd, layout.total).map_err(seg_err)?;
        let seg = Segment { fd, map, layout };
        seg.header().size.store(n as u32, Ordering::Relaxed);
        seg.header().magic.store(MAGIC, Ordering::Release);
        Ok(seg)
    }

    /// Maps a segment received from the root, checking it is one for `n` ranks.
    pub fn open(fd: OwnedFd, n: usize) -> Result<Segment> {
        let layout = Layout::new(n);
        let len = os::file_len(&fd).map_err(seg_err)?;
        if len < layout.total {
            return Err(Error::Sim {
                op: "communicator init",
                reason: format!(
                    "the control segment has {len} bytes, {} expected",
                    layout.total
                ),
            });
        }
        let map = Mapping::new(&fd, layout.total).map_err(seg_err)?;
        let seg = Segment { fd, map, layout };
        let h = seg.header();
        if h.magic.load(Ordering::Acquire) != MAGIC || h.size.load(Ordering::Relaxed) as usize != n
        {
            return Err(Error::Sim {
                op: "communicator init",
                reason: "the control segment is not one of this communicator".into(),
            });
        }
        Ok(seg)
    }

    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// # Safety
    ///
    /// `off` must be the offset of a `T` inside the segment (from `Layout`).
    unsafe fn at<T>(&self, off: usize) -> &T {
        debug_assert!(off + size_of::<T>() <= self.map.len());
        // SAFETY: inside the live mapping, 8-byte aligned (every struct's size is a
        // multiple of 8 and the mapping is page-aligned); an all-zero or any other
        // bit pattern is a valid value of these all-atomic structs.
        unsafe { &*(self.map.ptr().add(off) as *const T) }
    }

    pub fn header(&self) -> &Header {
        // SAFETY: the header is at offset 0.
        unsafe { self.at(0) }
    }

    pub fn rank(&self, r: usize) -> &RankInfo {
        assert!(r < self.layout.n);
        // SAFETY: rank infos follow the header, one per rank.
        unsafe { self.at(self.layout.ranks + r * size_of::<RankInfo>()) }
    }

    pub fn slot<'a>(&'a self, seq: u64) -> (&'a SlotHead, impl Fn(usize) -> &'a Entry + 'a) {
        let base = self.layout.slots + (seq as usize % SLOTS) * self.layout.slot_len;
        // SAFETY: slot heads are laid out every `slot_len` bytes.
        let head: &SlotHead = unsafe { self.at(base) };
        let entries = base + size_of::<SlotHead>();
        (head, move |r: usize| {
            assert!(r < self.layout.n);
            // SAFETY: `n` entries follow each slot head.
            unsafe { self.at(entries + r * size_of::<Entry>()) }
        })
    }

    pub fn p2p(&self, from: usize, to: usize, n: u64) -> &P2pSlot {
        let k = self.layout.n;
        assert!(from < k && to < k);
        let index = (from * k + to) * P2P_SLOTS + (n as usize % P2P_SLOTS);
        // SAFETY: `n*n*P2P_SLOTS` slots laid out contiguously.
        unsafe { self.at(self.layout.p2p + index * size_of::<P2pSlot>()) }
    }

    pub fn split<'a>(&'a self, seq: u64) -> (&'a SplitHead, impl Fn(usize) -> &'a SplitEntry + 'a) {
        let base = self.layout.splits + (seq as usize % SPLIT_SLOTS) * self.layout.split_len;
        // SAFETY: split heads every `split_len` bytes.
        let head: &SplitHead = unsafe { self.at(base) };
        let entries = base + size_of::<SplitHead>();
        (head, move |r: usize| {
            assert!(r < self.layout.n);
            // SAFETY: `n` entries follow each split head.
            unsafe { self.at(entries + r * size_of::<SplitEntry>()) }
        })
    }

    /// The signals rank `from` has sent rank `to` (one-sided puts and signals), in all.
    pub fn signals(&self, to: usize, from: usize) -> &AtomicU64 {
        let k = self.layout.n;
        assert!(from < k && to < k);
        // SAFETY: `n*n` counters laid out contiguously.
        unsafe { self.at(self.layout.signals + (to * k + from) * size_of::<AtomicU64>()) }
    }

    /// Slot `i` (below [`WINDOW_SLOTS`]) of rank `rank`'s table of windows.
    pub fn window(&self, rank: usize, i: usize) -> &WindowSlot {
        assert!(rank < self.layout.n && i < WINDOW_SLOTS);
        let index = rank * WINDOW_SLOTS + i;
        // SAFETY: `n*WINDOW_SLOTS` slots laid out contiguously.
        unsafe { self.at(self.layout.windows + index * size_of::<WindowSlot>()) }
    }

    /// Rings the bell: wakes every wait of every rank. Spinning waits see the new
    /// value; the futex is woken only when some wait sleeps on it. (Both sides use
    /// sequentially consistent operations: a sleeper counted after the ring saw the
    /// rung value in `futex_wait`'s own check and does not sleep; one counted before
    /// is seen here.) Waits for room are woken too: whatever a ring announces (an
    /// abort, a failure, a peer gone) may end them.
    pub fn ring(&self) {
        let h = self.header();
        ring_word(&h.bell, &h.sleepers);
        self.ring_room();
    }

    /// Rings only the room bell: a position was freed. Waits for an operation's
    /// progress do not wake for it.
    pub fn ring_room(&self) {
        let h = self.header();
        ring_word(&h.room_bell, &h.room_sleepers);
    }

    /// The bell's current value, to wait on after looking at the state.
    pub fn bell(&self) -> u32 {
        self.header().bell.load(Ordering::Acquire)
    }

    /// The room bell's current value, to wait on after looking for room.
    pub fn room_bell(&self) -> u32 {
        self.header().room_bell.load(Ordering::Acquire)
    }

    /// Waits until the bell rings after `seen`, or a liveness tick passes: spins for
    /// [`SPIN`] first, then sleeps on the futex.
    pub fn wait_bell(&self, seen: u32) {
        let h = self.header();
        wait_word(&h.bell, &h.sleepers, seen);
    }

    /// As [`Segment::wait_bell`], on the room bell.
    pub fn wait_room_bell(&self, seen: u32) {
        let h = self.header();
        wait_word(&h.room_bell, &h.room_sleepers, seen);
    }
}

fn ring_word(word: &AtomicU32, sleepers: &AtomicU32) {
    word.fetch_add(1, Ordering::SeqCst);
    if sleepers.load(Ordering::SeqCst) > 0 {
        os::futex_wake_all(word);
    }
}

fn wait_word(word: &AtomicU32, sleepers: &AtomicU32, seen: u32) {
    if spin_until(SPIN, || word.load(Ordering::Acquire) != seen) {
        return;
    }
    sleepers.fetch_add(1, Ordering::SeqCst);
    os::futex_wait(word, seen, LIVENESS_TICK);
    sleepers.fetch_sub(1, Ordering::SeqCst);
}

fn seg_err(e: std::io::Error) -> Error {
    Error::Sim {
        op: "communicator segment",
        reason: e.to_string(),
    }
}

/// A spin lock in shared memory whose holder may be another process: the word holds
/// the holder's id (a rank + 1, never a pid, which processes of different pid
/// namespaces may share); a holder that `dead` says has died is overtaken.
pub(super) struct SpinGuard<'a>(&'a AtomicU32);

impl<'a> SpinGuard<'a> {
    pub fn lock(word: &'a AtomicU32, me: u32, dead: impl Fn(u32) -> bool) -> SpinGuard<'a> {
        let mut spins = 0u32;
        let started = Instant::now();
        loop {
            match word.compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return SpinGuard(word),
                Err(holder) => {
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                    if holder != 0
                        && holder != me
                        && started.elapsed() > Duration::from_millis(200)
                        && dead(holder)
                    {
                        // The holder died inside the critical section: take over.
                        let _ =
                            word.compare_exchange(holder, 0, Ordering::AcqRel, Ordering::Relaxed);
                    }
                }
            }
        }
    }
}

impl Drop for SpinGuard<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Release);
    }
}

/// Packs up to `LABEL_WORDS * 8` bytes of `label` into an entry.
pub(super) fn set_label(entry: &Entry, label: &CallLabel) {
    let mut bytes = [0u8; LABEL_WORDS * 8];
    label.write_into(&mut bytes);
    for (w, chunk) in entry.label.iter().zip(bytes.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        w.store(u64::from_le_bytes(b), Ordering::Relaxed);
    }
}

/// An entry's label.
pub(super) fn label(entry: &Entry) -> String {
    let mut bytes = Vec::with_capacity(LABEL_WORDS * 8);
    for w in &entry.label {
        bytes.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
    }
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Resets an entry to empty.
pub(super) fn clear(entry: &Entry) {
    entry.desc.store(0, Ordering::Relaxed);
    entry.root.store(0, Ordering::Relaxed);
    entry.count.store(0, Ordering::Relaxed);
    entry.scalar.store(0, Ordering::Relaxed);
    entry.send.store(NONE, Ordering::Relaxed);
    entry.recv.store(NONE, Ordering::Relaxed);
    entry.stream.store(0, Ordering::Relaxed);
    entry.config.store(0, Ordering::Relaxed);
    for w in &entry.label {
        w.store(0, Ordering::Relaxed);
    }
    entry.state.store(EMPTY, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_maps_twice_onto_the_same_state() {
        let a = Segment::create(3).unwrap();
        let fd = a.fd().try_clone().unwrap();
        let b = Segment::open(fd, 3).unwrap();
        a.rank(2).pid.store(42, Ordering::Relaxed);
        assert_eq!(b.rank(2).pid.load(Ordering::Relaxed), 42);
        let (head, entry) = a.slot(SLOTS as u64 + 5);
        head.seq.store(6, Ordering::Relaxed);
        set_label(entry(1), &CallLabel::from("all_reduce #5 at a.rs:1"));
        let (head_b, entry_b) = b.slot(5);
        assert_eq!(head_b.seq.load(Ordering::Relaxed), 6, "the ring wraps");
        assert_eq!(label(entry_b(1)), "all_reduce #5 at a.rs:1");
        assert!(Segment::open(a.fd().try_clone().unwrap(), 4).is_err());
        let long = "é".repeat(200);
        set_label(entry(0), &CallLabel::from(long.as_str()));
        assert!(long.starts_with(&label(entry(0))));
        // A numbered label is written in place, cut at a character's boundary too.
        let (head, tail) = ("é".repeat(60), "é".repeat(10));
        let numbered = CallLabel::numbered(head.as_str().into(), 12345, tail.as_str().into());
        set_label(entry(0), &numbered);
        assert_eq!(label(entry(0)), format!("{head}12345é"));
        assert_eq!(numbered.to_string(), format!("{head}12345{tail}"));
        set_label(entry(0), &CallLabel::numbered("op #".into(), 0, "".into()));
        assert_eq!(label(entry(0)), "op #0");
        // Cut inside the head (nothing after it), and inside the digits.
        let numbered = CallLabel::numbered("é".repeat(70).as_str().into(), 7, "x".into());
        set_label(entry(0), &numbered);
        assert_eq!(label(entry(0)), "é".repeat(64));
        let head = "a".repeat(125);
        let numbered = CallLabel::numbered(head.as_str().into(), 123_456, "x".into());
        set_label(entry(0), &numbered);
        assert_eq!(label(entry(0)), format!("{head}123"));
    }

    #[test]
    fn a_ring_reaches_a_wait_asleep_on_another_mapping_and_sleepers_are_counted_out() {
        let a = Segment::create(2).unwrap();
        let b = Segment::open(a.fd().try_clone().unwrap(), 2).unwrap();
        let seen = a.bell();
        let waiter = std::thread::spawn(move || {
            // Past the spin, asleep on the futex (woken by the ring or a tick).
            while b.bell() == seen {
                b.wait_bell(seen);
            }
            b.header().sleepers.load(Ordering::SeqCst)
        });
        let start = Instant::now();
        while a.header().sleepers.load(Ordering::SeqCst) == 0
            && start.elapsed() < Duration::from_secs(10)
        {
            std::thread::yield_now();
        }
        a.ring();
        assert_eq!(waiter.join().unwrap(), 0, "the waiter counted itself out");
        // A ring with nobody asleep still moves the bell (spinning waits see it).
        let before = a.bell();
        a.ring();
        assert_eq!(a.bell(), before.wrapping_add(1));
    }

    #[test]
    fn a_freed_position_rings_only_the_room_bell_and_every_ring_rings_both() {
        let a = Segment::create(2).unwrap();
        let (bell, room) = (a.bell(), a.room_bell());
        a.ring_room();
        assert_eq!((a.bell(), a.room_bell()), (bell, room.wrapping_add(1)));
        a.ring();
        assert_eq!(
            (a.bell(), a.room_bell()),
            (bell.wrapping_add(1), room.wrapping_add(2))
        );
        // A wait for room asleep on another mapping wakes for a ring of either kind.
        let b = Segment::open(a.fd().try_clone().unwrap(), 2).unwrap();
        let seen = b.room_bell();
        let waiter = std::thread::spawn(move || {
            while b.room_bell() == seen {
                b.wait_room_bell(seen);
            }
        });
        let start = Instant::now();
        while a.header().room_sleepers.load(Ordering::SeqCst) == 0
            && start.elapsed() < Duration::from_secs(10)
        {
            std::thread::yield_now();
        }
        a.ring_room();
        waiter.join().unwrap();
        assert_eq!(a.header().room_sleepers.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn the_spin_lock_excludes_and_a_dead_holder_is_overtaken() {
        let word = AtomicU32::new(0);
        {
            let _g = SpinGuard::lock(&word, 3, |_| false);
            assert_eq!(word.load(Ordering::Relaxed), 3);
        }
        assert_eq!(word.load(Ordering::Relaxed), 0);
        word.store(7, Ordering::Relaxed); // held by rank 6, whose process died
        let _g = SpinGuard::lock(&word, 3, |holder| holder == 7);
        assert_eq!(word.load(Ordering::Relaxed), 3);
    }
}
