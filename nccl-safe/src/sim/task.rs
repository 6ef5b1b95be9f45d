//! The stream task of a sim launch, in four phases so that a group never deadlocks on
//! itself: arrive (publish where this rank's buffers are), share (each collective's
//! data movement, each receive's copy), complete (wait until every rank did its share
//! and every send was received), leave (the last rank to leave frees the position).
//! A small collective (at most `ONE_RANK_MAX` bytes per rank) has no share round: the
//! rank that arrives last does every rank's share at once, marks every part done and
//! rings; the others go straight to completion.
//!
//! Every wait also watches for this rank's abort, peers that destroyed or aborted their
//! communicator or whose process died, and cycles of sends that each wait for a
//! receive queued behind another send on the same stream; each ends the wait with an
//! error naming the ranks (and pids) concerned.

use std::sync::atomic::Ordering;

use super::collective::{Buffers, ONE_RANK_MAX, Share, fan_out, lengths};
use super::entry::{Part, issued, op_name};
use super::live::Live;
use super::reduce::{Combine, permutation_into};
use super::segment::{ABORTED, ARRIVED, DONE, Entry, FAILED, NONE, REGISTERED, clear};
use crate::base::op::{LaunchOp, RedOp};

/// Marks this rank's part of `part` failed, unless it already finished it.
pub(super) fn fail_entry(live: &Live, part: Part) {
    let e = match part {
        Part::Coll { seq } => {
            let (head, entry) = live.seg.slot(seq);
            if head.seq.load(Ordering::Acquire) != seq + 1 {
                return;
            }
            entry(live.rank)
        }
        Part::Send { to, n } => {
            let s = live.seg.p2p(live.rank, to, n);
            if s.seq.load(Ordering::Acquire) != n + 1 {
                return;
            }
            &s.send
        }
        Part::Recv { from, n } => {
            let s = live.seg.p2p(from, live.rank, n);
            if s.seq.load(Ordering::Acquire) != n + 1 {
                return;
            }
            &s.recv
        }
    };
    let _ = e
        .state
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
            matches!(s, REGISTERED | ARRIVED).then_some(FAILED)
        });
}

/// Waits until `ready`, or fails with why it never will; `what` names the wait in
/// errors (built only for one: formatting every wait's name cost small operations).
pub(super) fn wait(
    live: &Live,
    what: &dyn Fn() -> String,
    needed: &dyn Fn(usize) -> bool,
    ready: &mut dyn FnMut() -> std::result::Result<bool, String>,
    extra: &mut dyn FnMut() -> Option<String>,
) -> std::result::Result<(), String> {
    let (n, me) = (live.size(), live.rank);
    loop {
        let seen = live.seg.bell();
        // Checked before readiness: a rank told it is part of a deadlock fails even if
        // the cycle's breaking lets its own wait finish.
        if let Some(e) = extra() {
            return Err(e);
        }
        if live.seg.rank(me).state.load(Ordering::Acquire) == ABORTED {
            let how = if live.revoked.load(Ordering::Acquire) {
                "revoked"
            } else {
                "aborted"
            };
            return Err(format!(
                "rank {me}: the communicator was {how} while {}",
                what()
            ));
        }
        // The root cause first: a needed peer that is gone explains why others failed.
        live.look_at_peers((0..n).filter(|&r| r != me && needed(r)));
        if let Some((root, g)) = live.blame((0..n).filter(|&r| r != me && needed(r))) {
            // A peer finishes its part before it destroys its communicator (or
            // exits): seen gone, what it did is visible now, so look once more. (An
            // error it reports now is a consequence: the gone peer is the root cause.)
            if let Ok(true) = ready() {
                return Ok(());
            }
            live.note_cause(root);
            return Err(format!("{}: {g}", what()));
        }
        if ready()? {
            return Ok(());
        }
        live.seg.wait_bell(seen);
    }
}

/// The stream task of one launch.
pub(super) fn run(
    live: &Live,
    parts: &[Part],
    ops: &[LaunchOp],
) -> std::result::Result<(), String> {
    LAST_SCRATCH.with(|last| {
        let mut last = last.borrow_mut();
        last.clear();
        last.resize(parts.len(), false);
        run_with(live, parts, ops, &mut last)
    })
}

thread_local! {
    /// Each stream worker's flags of the parts it arrived at last, kept from one
    /// launch to the next.
    static LAST_SCRATCH: std::cell::RefCell<Vec<bool>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`run`], with `last` (one `false` per part) to fill.
fn run_with(
    live: &Live,
    parts: &[Part],
    ops: &[LaunchOp],
    last: &mut [bool],
) -> std::result::Result<(), String> {
    let (n, me) = (live.size(), live.rank);
    let dev = &live.device;
    // Phase 1: arrive. The rank that arrives last at a small collective does all of
    // it (see `ONE_RANK_MAX`).
    for (i, (part, op)) in parts.iter().zip(ops).enumerate() {
        let d = &op.desc;
        let esz = d.dtype.size();
        let (slen, rlen) = lengths(d.kind, d.count, esz, n, d.root == Some(me));
        let send = match op.send {
            Some(a) if slen > 0 => dev.resolve(a, slen)?,
            _ => NONE,
        };
        let recv = match op.recv {
            Some(a) if rlen > 0 => dev.resolve(a, rlen)?,
            _ => NONE,
        };
        let scalar = match (&d.op, op.scalar) {
            (RedOp::PreMulSumHost(b), _) => {
                let mut w = [0u8; 8];
                w[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
                u64::from_le_bytes(w)
            }
            (RedOp::PreMulSumDevice, Some(a)) => {
                let mut w = [0u8; 8];
                dev.read(a, &mut w[..esz])?;
                u64::from_le_bytes(w)
            }
            _ => 0,
        };
        let entry = entry_of(live, *part, true);
        entry.send.store(send, Ordering::Relaxed);
        entry.recv.store(recv, Ordering::Relaxed);
        entry.scalar.store(scalar, Ordering::Relaxed);
        entry.state.store(ARRIVED, Ordering::Release);
        if let Part::Coll { seq } = part {
            let before = live.seg.slot(*seq).0.arrived.fetch_add(1, Ordering::AcqRel);
            last[i] = before as usize + 1 == n;
        }
    }
    // Waits look at the arrival counts and the point-to-point states; nobody waits for
    // a count that is not complete yet, nor for the arrivals of a small collective
    // (its last rank rings once it is done, below).
    let rung = parts
        .iter()
        .zip(ops)
        .zip(last.iter())
        .any(|((p, op), &l)| match p {
            Part::Coll { .. } => l && !one_rank(op, n),
            _ => true,
        });
    if rung {
        live.seg.ring();
    }
    // Phase 2: shares and receives.
    for (i, (part, op)) in parts.iter().zip(ops).enumerate() {
        match *part {
            Part::Coll { seq } if one_rank(op, n) => {
                if last[i] {
                    // Every rank has arrived (this one last): nobody to wait for. It
                    // does every rank's share, then marks each rank's part done
                    // (unless that rank failed it meanwhile: then the collective
                    // fails on every rank, as when a rank fails before its share).
                    coll_failure(live, seq, &|| coll_name(op, seq))?;
                    share(live, seq, op, 0..n)?;
                    let (head, entry) = live.seg.slot(seq);
                    for r in 0..n {
                        let _ = entry(r).state.compare_exchange(
                            ARRIVED,
                            DONE,
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        );
                    }
                    head.done.store(n as u32, Ordering::Release);
                    live.seg.ring();
                }
                // The others wait for it in phase 3, their parts still `ARRIVED`:
                // one that fails or aborts meanwhile fails the collective everywhere.
            }
            Part::Coll { seq } => {
                let (head, entry) = live.seg.slot(seq);
                let name = || coll_name(op, seq);
                wait(
                    live,
                    &|| format!("{} waited for every rank to issue it", name()),
                    &|r| entry(r).state.load(Ordering::Acquire) < ARRIVED,
                    &mut || {
                        coll_failure(live, seq, &name)?;
                        Ok(head.arrived.load(Ordering::Acquire) as usize == n)
                    },
                    &mut || None,
                )?;
                share(live, seq, op, me..me + 1)?;
                entry(me).state.store(DONE, Ordering::Release);
                if head.done.fetch_add(1, Ordering::AcqRel) as usize + 1 == n {
                    live.seg.ring();
                }
            }
            Part::Recv { from, n: msg } => {
                let slot = live.seg.p2p(from, me, msg);
                let what = || {
                    let name = op_name(&op.label, || {
                        format!("receive #{} from rank {from}", msg + 1)
                    });
                    format!("{name} waited for rank {from}'s send")
                };
                wait(
                    live,
                    &what,
                    &|r| r == from && slot.send.state.load(Ordering::Acquire) < ARRIVED,
                    &mut || match slot.send.state.load(Ordering::Acquire) {
                        FAILED => Err(format!("{}: {}'s send failed", what(), live.who(from))),
                        ARRIVED | DONE => Ok(true),
                        _ => Ok(false),
                    },
                    &mut || None,
                )?;
                let len = op.desc.count * op.desc.dtype.size();
                if len > 0 {
                    let src = live.arenas[from].at(slot.send.send.load(Ordering::Acquire), len)?;
                    let dst = live.arenas[me].at(slot.recv.recv.load(Ordering::Relaxed), len)?;
                    fan_out(src, &[dst], len);
                }
                slot.recv.state.store(DONE, Ordering::Release);
                live.seg.ring();
            }
            Part::Send { .. } => {}
        }
    }
    // Phase 3: completion.
    for (part, op) in parts.iter().zip(ops) {
        match *part {
            Part::Coll { seq } => {
                let (head, entry) = live.seg.slot(seq);
                let name = || coll_name(op, seq);
                wait(
                    live,
                    &|| format!("{} waited for every rank to finish its share", name()),
                    &|r| entry(r).state.load(Ordering::Acquire) < DONE,
                    &mut || {
                        coll_failure(live, seq, &name)?;
                        Ok(head.done.load(Ordering::Acquire) as usize == n)
                    },
                    &mut || None,
                )?;
            }
            Part::Send { to, n: msg } => {
                let slot = live.seg.p2p(me, to, msg);
                let info = live.seg.rank(me);
                info.blocked_msg.store(msg, Ordering::Relaxed);
                info.blocked_stream
                    .store(slot.send.stream.load(Ordering::Relaxed), Ordering::Relaxed);
                info.blocked_peer.store(to as u64 + 1, Ordering::Release);
                let what = || {
                    let name = op_name(&op.label, || format!("send #{} to rank {to}", msg + 1));
                    format!("{name} waited for rank {to}'s receive")
                };
                let waited = wait(
                    live,
                    &what,
                    &|r| r == to,
                    &mut || match slot.recv.state.load(Ordering::Acquire) {
                        FAILED => Err(format!("{}: {}'s receive failed", what(), live.who(to))),
                        DONE => Ok(true),
                        _ => Ok(false),
                    },
                    &mut || send_cycle(live, to, msg),
                );
                info.blocked_peer.store(0, Ordering::Release);
                waited?;
            }
            Part::Recv { .. } => {}
        }
    }
    // Phase 4: leave.
    for part in parts {
        match *part {
            Part::Coll { seq } => {
                let (head, entry) = live.seg.slot(seq);
                if head.left.fetch_add(1, Ordering::AcqRel) + 1 == n as u32 {
                    for r in 0..n {
                        clear(entry(r));
                    }
                    head.arrived.store(0, Ordering::Relaxed);
                    head.done.store(0, Ordering::Relaxed);
                    head.left.store(0, Ordering::Relaxed);
                    head.error.store(0, Ordering::Relaxed);
                    head.seq.store(0, Ordering::Release);
                    // Only launches waiting for room wait for a position to free.
                    live.seg.ring_room();
                }
            }
            Part::Send { to, n: msg } => {
                let slot = live.seg.p2p(me, to, msg);
                clear(&slot.send);
                clear(&slot.recv);
                slot.seq.store(0, Ordering::Release);
                live.seg.ring();
            }
            Part::Recv { .. } => {}
        }
    }
    Ok(())
}

/// This rank's entry for `part`.
fn entry_of(live: &Live, part: Part, _mine: bool) -> &Entry {
    match part {
        Part::Coll { seq } => live.seg.slot(seq).1(live.rank),
        Part::Send { to, n } => &live.seg.p2p(live.rank, to, n).send,
        Part::Recv { from, n } => &live.seg.p2p(from, live.rank, n).recv,
    }
}

/// How this rank's messages name collective `seq` (its caller's label when set).
fn coll_name(op: &LaunchOp, seq: u64) -> String {
    op_name(&op.label, || format!("collective #{}", seq + 1))
}

/// A mismatch or a failed rank at collective `seq` (called `name()`), as the error
/// text.
fn coll_failure(
    live: &Live,
    seq: u64,
    name: &dyn Fn() -> String,
) -> std::result::Result<(), String> {
    let (head, entry) = live.seg.slot(seq);
    let err = head.error.load(Ordering::Acquire);
    if err & 0xff == 1 {
        let (a, b) = ((err >> 8 & 0xffff) as usize, (err >> 24 & 0xffff) as usize);
        if a < live.size() && b < live.size() {
            return Err(format!(
                "mismatch in {}: {} where {}",
                name(),
                issued(live, a, entry(a)),
                issued(live, b, entry(b))
            ));
        }
    }
    if let Some(r) = (0..live.size()).find(|&r| entry(r).state.load(Ordering::Acquire) == FAILED) {
        // A part fails because its rank saw a peer die or abort: that peer is the
        // root cause, not the rank whose part failed.
        live.look_at_peers((0..live.size()).filter(|&p| p != live.rank));
        if let Some((root, g)) = live.blame((0..live.size()).filter(|&p| p != live.rank)) {
            live.note_cause(root);
            return Err(format!("{}: {g}", name()));
        }
        return Err(format!(
            "{}: {} failed its part (see that rank's error)",
            name(),
            live.who(r)
        ));
    }
    Ok(())
}

/// Whether collective `op` of `n` ranks is small enough for one rank to do it all:
/// then its hand-offs, not its data, bound it.
fn one_rank(op: &LaunchOp, n: usize) -> bool {
    let d = &op.desc;
    let (slen, rlen) = lengths(d.kind, d.count, d.dtype.size(), n, true);
    slen.max(rlen) <= ONE_RANK_MAX
}

/// Does the shares of `ranks` in collective `seq` (each rank its own, or the last to
/// arrive every rank's, of a small one).
fn share(
    live: &Live,
    seq: u64,
    op: &LaunchOp,
    ranks: std::ops::Range<usize>,
) -> std::result::Result<(), String> {
    SHARE_SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let (bufs, scalars, order) = &mut *scratch;
        share_with(live, seq, op, ranks, bufs, scalars, order)
    })
}

thread_local! {
    /// Each stream worker's lists for [`share`], kept from one collective to the next
    /// (three allocations per collective otherwise).
    static SHARE_SCRATCH: std::cell::RefCell<(Vec<Buffers>, Vec<u64>, Vec<usize>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

fn share_with(
    live: &Live,
    seq: u64,
    op: &LaunchOp,
    ranks: std::ops::Range<usize>,
    bufs: &mut Vec<Buffers>,
    scalars: &mut Vec<u64>,
    order: &mut Vec<usize>,
) -> std::result::Result<(), String> {
    let n = live.size();
    let entry = live.seg.slot(seq).1;
    let d = &op.desc;
    let esz = d.dtype.size();
    let root = d.root.unwrap_or(0);
    bufs.clear();
    scalars.clear();
    for r in 0..n {
        let e = entry(r);
        let (slen, rlen) = lengths(d.kind, d.count, esz, n, r == root && d.root.is_some());
        let at = |off: u64, len: usize| -> std::result::Result<Option<*mut u8>, String> {
            if off == NONE || len == 0 {
                Ok(None)
            } else {
                live.arenas[r].at(off, len).map(Some)
            }
        };
        bufs.push(Buffers {
            send: at(e.send.load(Ordering::Acquire), slen)?,
            recv: at(e.recv.load(Ordering::Acquire), rlen)?,
        });
        scalars.push(e.scalar.load(Ordering::Acquire));
    }
    permutation_into(n, seq, order);
    for me in ranks {
        Share {
            kind: d.kind,
            dtype: d.dtype,
            count: d.count,
            root,
            op: Combine::of(&d.op),
            me,
            bufs,
            scalars,
            order,
        }
        .run()?;
    }
    Ok(())
}

/// The deadlock message for the ranks of `mask`.
fn deadlock_text(live: &Live, mask: u64) -> String {
    let ranks: Vec<String> = (0..live.size().min(64))
        .filter(|r| mask >> r & 1 == 1)
        .map(|r| live.who(r))
        .collect();
    format!(
        "deadlock: {} each wait in a send for a receive queued behind their own send on the \
         same stream (outside a group NCCL's send waits for its receiver); issue the sends and \
         receives in one group, or order them",
        ranks.join(", ")
    )
}

/// A cycle of ranks, through this one, each blocked in a send whose receive is queued
/// behind that rank's own blocked send on the same stream: a certain deadlock. Every
/// rank of the cycle is told (so each fails with the same message).
fn send_cycle(live: &Live, to: usize, msg: u64) -> Option<String> {
    let me = live.rank;
    let told = live.seg.rank(me).deadlock.swap(0, Ordering::AcqRel);
    if told != 0 {
        return Some(deadlock_text(live, told));
    }
    let mut path = vec![me];
    let (mut cur, mut peer, mut m) = (me, to, msg);
    for _ in 0..live.size() {
        let slot = live.seg.p2p(cur, peer, m);
        if slot.seq.load(Ordering::Acquire) != m + 1
            || slot.recv.state.load(Ordering::Acquire) != REGISTERED
        {
            return None;
        }
        let info = live.seg.rank(peer);
        let blocked = info.blocked_peer.load(Ordering::Acquire);
        if blocked == 0
            || info.blocked_stream.load(Ordering::Relaxed)
                != slot.recv.stream.load(Ordering::Relaxed)
        {
            return None;
        }
        if peer == me {
            let mask = path
                .iter()
                .filter(|r| **r < 64)
                .fold(0u64, |m, r| m | 1 << r);
            for &r in &path {
                if r != me {
                    live.seg.rank(r).deadlock.store(mask, Ordering::Release);
                }
            }
            live.seg.ring();
            return Some(deadlock_text(live, mask));
        }
        if path.contains(&peer) {
            return None;
        }
        path.push(peer);
        cur = peer;
        peer = (blocked - 1) as usize;
        m = info.blocked_msg.load(Ordering::Relaxed);
    }
    None
}
