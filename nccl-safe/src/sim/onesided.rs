//! One-sided operations on the sim (NCCL's `ncclPutSignal`, `ncclSignal` and
//! `ncclWaitSignal`): a put writes straight into the peer's window in its arena and
//! then counts a signal in the segment; a wait waits until a peer's count reaches
//! what this rank's waits have asked of it so far, as NCCL's cumulative counters do.
//!
//! Windows are numbered in registration order, which is the same on every rank (the
//! registration is collective). Each rank publishes its symmetric windows in the
//! segment's table ([`WindowSlot`]), where a put finds the peer's window by number
//! and checks its bounds when it runs. A window's release empties its slot first and waits for
//! the puts writing into it, so no put writes into memory given back.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::SimStream;
use super::collective::fan_out;
use super::live::Live;
use super::segment::{WINDOW_SLOTS, WindowSlot};
use super::task::wait;
use crate::sync::lock;
use crate::{Error, Result};

/// Registers this rank's next window (`bytes` at device address `addr`), published
/// for the peers' puts when it is symmetric; its number plus one (never 0), the sim's
/// window handle.
pub(super) fn register_window(
    live: &Live,
    addr: u64,
    bytes: usize,
    symmetric: bool,
) -> Result<usize> {
    let offset = live
        .device
        .resolve(addr, bytes)
        .map_err(|reason| Error::InvalidArgument {
            op: "register_window",
            reason,
        })?;
    let ordinal = live.window_seq.fetch_add(1, Ordering::AcqRel);
    let handle = ordinal + 1;
    if symmetric {
        let free = (0..WINDOW_SLOTS)
            .map(|i| live.seg.window(live.rank, i))
            .find(|w| w.ordinal.load(Ordering::SeqCst) == 0);
        let Some(slot) = free else {
            return Err(Error::InvalidUsage {
                op: "register_window",
                reason: format!(
                    "the sim holds at most {WINDOW_SLOTS} symmetric windows of one \
                     communicator registered at once on a rank"
                ),
            });
        };
        slot.offset.store(offset, Ordering::Relaxed);
        slot.bytes.store(bytes as u64, Ordering::Relaxed);
        slot.ordinal.store(handle, Ordering::SeqCst);
    }
    Ok(handle as usize)
}

/// Rank `rank`'s published window with handle `handle`, if it is registered.
fn find(live: &Live, rank: usize, handle: usize) -> Option<&WindowSlot> {
    (0..WINDOW_SLOTS)
        .map(|i| live.seg.window(rank, i))
        .find(|w| w.ordinal.load(Ordering::SeqCst) == handle as u64)
}

/// Takes window `handle` (from [`register_window`]) out of its peers' reach, then
/// waits for the puts writing into it (each writes one block, without waiting on
/// anything). A put whose process died mid-copy never finishes: the wait ends once
/// a peer is seen gone.
pub(super) fn release_window(live: &Live, handle: usize) {
    let Some(slot) = find(live, live.rank, handle) else {
        return;
    };
    slot.ordinal.store(0, Ordering::SeqCst);
    let start = std::time::Instant::now();
    while slot.users.load(Ordering::SeqCst) != 0 {
        std::thread::yield_now();
        if start.elapsed() > super::segment::LIVENESS_TICK {
            let peers = || (0..live.size()).filter(|&r| r != live.rank);
            live.look_at_peers(peers());
            if live.blame(peers()).is_some() {
                return;
            }
        }
    }
}

/// What one put or signal does when its stream reaches it.
pub(crate) struct Put {
    /// The data: a device address and a length (none for a signal).
    pub src: Option<(u64, usize)>,
    pub peer: usize,
    /// The peer's window (its handle) and the byte offset into it.
    pub window: usize,
    pub offset: usize,
}

/// Enqueues `put` on `stream`: the bytes land in the peer's window, then the peer's
/// count of this rank's signals goes up by one.
pub(super) fn put(live: &Arc<Live>, stream: &SimStream, put: Put) -> Result<()> {
    let live = live.clone();
    stream.submit(Box::new(move || {
        let me = live.rank;
        let Put {
            src,
            peer,
            window,
            offset,
        } = put;
        if let Some((addr, len)) = src {
            let ordinal = window as u64 - 1;
            let released =
                || format!("put_signal to rank {peer}: its window #{ordinal} is released");
            let slot = find(&live, peer, window).ok_or_else(released)?;
            // Counted as writing first, then the slot checked again: a release that
            // emptied it meanwhile is seen here, or waits for this put (both sides
            // sequentially consistent).
            slot.users.fetch_add(1, Ordering::SeqCst);
            let wrote = (|| {
                if slot.ordinal.load(Ordering::SeqCst) != window as u64 {
                    return Err(released());
                }
                let bytes = slot.bytes.load(Ordering::Relaxed) as usize;
                if offset > bytes || len > bytes - offset {
                    return Err(format!(
                        "put_signal of {len} bytes at offset {offset} runs past the end of \
                         rank {peer}'s window #{ordinal} ({bytes} bytes)"
                    ));
                }
                let from = live.device.resolve(addr, len)?;
                let src = live.arenas[me].at(from, len)?;
                let dst = live.arenas[peer]
                    .at(slot.offset.load(Ordering::Relaxed) + offset as u64, len)?;
                fan_out(src, &[dst], len);
                Ok(())
            })();
            slot.users.fetch_sub(1, Ordering::SeqCst);
            wrote?;
        }
        live.seg.signals(peer, me).fetch_add(1, Ordering::AcqRel);
        live.seg.ring();
        Ok(())
    }))
}

/// Enqueues a wait on `stream` for `count` more signals from each `(peer, count)`:
/// it ends when every peer's count reaches what this rank's waits have asked of it,
/// fails when a peer is gone or the communicator aborts, and otherwise waits (the
/// caller's timeout, a process group's watchdog, bounds it).
pub(super) fn wait_signal(
    live: &Arc<Live>,
    stream: &SimStream,
    waits: &[(usize, u32)],
) -> Result<()> {
    let targets: Vec<(usize, u64)> = {
        let mut expected = lock(&live.expected);
        expected.resize(live.size(), 0);
        waits
            .iter()
            .map(|&(peer, count)| {
                expected[peer] += u64::from(count);
                (peer, expected[peer])
            })
            .collect()
    };
    let task_live = live.clone();
    let submitted = stream.submit(Box::new(move || {
        let live = task_live;
        let me = live.rank;
        for &(peer, target) in &targets {
            let counter = live.seg.signals(me, peer);
            wait(
                &live,
                &|| {
                    format!(
                        "wait_signal waited for signal #{target} from rank {peer} ({} arrived)",
                        counter.load(Ordering::Acquire)
                    )
                },
                &|r| r == peer,
                &mut || Ok(counter.load(Ordering::Acquire) >= target),
                &mut || None,
            )?;
        }
        Ok(())
    }));
    if submitted.is_err() {
        // Not enqueued: what it asked for is asked no more.
        let mut expected = lock(&live.expected);
        for &(peer, count) in waits {
            expected[peer] -= u64::from(count);
        }
    }
    submitted
}
