//! Launches on the sim: registering a launch's operations in the communicator's
//! segment, where NCCL's rules are checked at the call (the same operation at the
//! same position on every rank, matching messages, a send to itself queued behind its
//! own receive), then enqueueing the stream task (`task.rs`) that runs them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::SimStream;
use super::entry::{Part, issued, same, stream_id, write_entry};
use super::live::Live;
use super::segment::{ABORTED, ALIVE, ARRIVED, DONE, EMPTY, FAILED, P2P_SLOTS, REGISTERED, SLOTS};
use super::task::{fail_entry, run};
use crate::base::op::{Kind, LaunchOp};
use crate::{Error, Result};

/// Registers `ops` (checking them against the other ranks'), then enqueues one task
/// that runs them together on `stream`, after recording `mark` (the launch's
/// launch-completion event) there. First waits, at most `timeout`, until every
/// ring position the launch takes is free (`wait_for_room`): a launch refused there
/// has taken nothing.
pub(super) fn launch(
    live: &Arc<Live>,
    stream: &SimStream,
    ops: Vec<LaunchOp>,
    timeout: Duration,
    mark: Option<&super::stream::SimEvent>,
) -> Result<()> {
    let me = live.rank;
    match live.seg.rank(me).state.load(Ordering::Acquire) {
        ALIVE => {}
        ABORTED => {
            return Err(Error::Aborted {
                what: format!("launch on rank {me}"),
            });
        }
        _ => {
            return Err(Error::InvalidUsage {
                op: "collective",
                reason: "the communicator was destroyed".into(),
            });
        }
    }
    let sid = stream_id(stream);
    let grouped = ops.len() > 1;
    // Positions, committed only once the launch is accepted.
    let mut p2p = crate::sync::lock(&live.p2p_seq);
    let Plan {
        parts,
        next,
        p2p_next,
    } = plan(live, &ops, &p2p);
    let colls = parts
        .iter()
        .filter(|p| matches!(p, Part::Coll { .. }))
        .count();
    let per_pair = p2p_next
        .iter()
        .map(|(k, v)| v - p2p.get(k).copied().unwrap_or(0))
        .max()
        .unwrap_or(0);
    if colls > SLOTS / 2 || per_pair > P2P_SLOTS as u64 / 2 {
        return Err(Error::InvalidUsage {
            op: "group",
            reason: format!(
                "one launch of {colls} collectives and up to {per_pair} messages to one peer; \
                 the sim holds at most {} and {} per group",
                SLOTS / 2,
                P2P_SLOTS / 2
            ),
        });
    }
    wait_for_room(live, &parts, &ops, timeout)?;
    let done = Arc::new(AtomicBool::new(false));
    let launch_no = live.launches.fetch_add(1, Ordering::Relaxed);
    super::rules::check_launch_order(
        live.id,
        &live.devices,
        me,
        launch_no,
        stream.identity(),
        done.clone(),
    )?;
    live.coll_seq.store(next, Ordering::Relaxed);
    for (k, v) in p2p_next {
        p2p.insert(k, v);
    }
    drop(p2p);
    for (i, (part, op)) in parts.iter().zip(&ops).enumerate() {
        if let Err(e) = register(live, *part, op, sid, grouped) {
            // Peers must not wait for the operations registered before this one.
            for earlier in &parts[..i] {
                fail_entry(live, *earlier);
            }
            live.seg.ring();
            return Err(e);
        }
    }
    // A registered message may close a cycle of sends that a peer's wait looks for;
    // a registered collective changes nothing any wait looks at (a mismatch rang
    // above), so it rings nobody: one ring per rank and collective woke every
    // sleeping wait of every rank for nothing.
    if parts.iter().any(|p| !matches!(p, Part::Coll { .. })) {
        live.seg.ring();
    }
    // The launch-completion event: recorded when the stream reaches the operations,
    // as a GPU records it when their kernel has launched. A record fails only inside a
    // host function, where `Inside::enter` refused this launch already.
    if let Some(e) = mark {
        let _ = e.record(stream);
    }
    let task_live = live.clone();
    stream.submit(Box::new(move || {
        let result = run(&task_live, &parts, &ops);
        if result.is_err() {
            for p in &parts {
                fail_entry(&task_live, *p);
            }
            task_live.seg.ring();
        }
        done.store(true, Ordering::Release);
        result
    }))
}

/// The positions a launch of `ops` would take, and the counters after it.
struct Plan {
    parts: Vec<Part>,
    /// The next collective position.
    next: u64,
    /// The next message number of each `(from, to, send)` the launch touches.
    p2p_next: HashMap<(usize, usize, bool), u64>,
}

fn plan(live: &Live, ops: &[LaunchOp], p2p: &HashMap<(usize, usize, bool), u64>) -> Plan {
    let me = live.rank;
    let mut next = live.coll_seq.load(Ordering::Relaxed);
    let mut p2p_next: HashMap<(usize, usize, bool), u64> = HashMap::new();
    let mut parts = Vec::with_capacity(ops.len());
    for op in ops {
        match op.desc.kind {
            Kind::Send | Kind::Recv => {
                let send = op.desc.kind == Kind::Send;
                let peer = op.desc.root.unwrap_or(0);
                let (from, to) = if send { (me, peer) } else { (peer, me) };
                let counter = (from, to, send);
                let n = p2p_next
                    .entry(counter)
                    .or_insert_with(|| *p2p.get(&counter).unwrap_or(&0));
                let part = if send {
                    Part::Send { to, n: *n }
                } else {
                    Part::Recv { from, n: *n }
                };
                *n += 1;
                parts.push(part);
            }
            _ => {
                parts.push(Part::Coll { seq: next });
                next += 1;
            }
        }
    }
    Plan {
        parts,
        next,
        p2p_next,
    }
}

/// Before a launch enqueues anything (its buffers' waits and poison included): waits,
/// at most `timeout`, for room for every position `ops` would take, without the
/// device's lock, so that a refusal leaves the buffers and the communicator as they
/// were. The launch checks again under the lock (`launch`); it finds room unless
/// another thread launched on this communicator meanwhile, which NCCL forbids.
pub(super) fn room_before_launch(live: &Live, ops: &[LaunchOp], timeout: Duration) -> Result<()> {
    // The common case, room at once, allocates nothing: a launch of one collective.
    if let [op] = ops {
        if !matches!(op.desc.kind, Kind::Send | Kind::Recv) {
            let seq = live.coll_seq.load(Ordering::Relaxed);
            if has_room(live, Part::Coll { seq }) {
                return Ok(());
            }
        }
    }
    let parts = plan(live, ops, &crate::sync::lock(&live.p2p_seq)).parts;
    wait_for_room(live, &parts, ops, timeout)
}

/// Whether `part`'s ring position is free for it: empty, or already taken by a peer
/// for the same operation. Once it is, it stays so until this rank registers there
/// (the position's next user is this operation, which cannot finish without it).
fn has_room(live: &Live, part: Part) -> bool {
    let (cur, at) = match part {
        Part::Coll { seq } => (live.seg.slot(seq).0.seq.load(Ordering::Acquire), seq),
        Part::Send { to, n } => (
            live.seg.p2p(live.rank, to, n).seq.load(Ordering::Acquire),
            n,
        ),
        Part::Recv { from, n } => (
            live.seg.p2p(from, live.rank, n).seq.load(Ordering::Acquire),
            n,
        ),
    };
    cur == 0 || cur == at + 1
}

/// Waits, at most `timeout`, until every position of `parts` has room: the ring is full
/// while some rank is thousands of collectives (or dozens of messages to one peer)
/// ahead of the slowest, or while this rank's own stream is held back (by a gate the
/// program opens later, say). Nothing is taken before it returns `Ok`, so a refusal
/// leaves the communicator as it was.
fn wait_for_room(live: &Live, parts: &[Part], ops: &[LaunchOp], timeout: Duration) -> Result<()> {
    let start = Instant::now();
    let deadline = crate::sync::deadline(timeout);
    loop {
        let seen = live.seg.room_bell();
        let Some(i) = parts.iter().position(|p| !has_room(live, *p)) else {
            return Ok(());
        };
        if deadline.is_some_and(|d| Instant::now() >= d) {
            let err = pending_limit(live, parts[i], &ops[i], start.elapsed());
            // The message describes the slot as it was read; if it freed meanwhile,
            // the launch goes ahead instead.
            if !has_room(live, parts[i]) {
                return Err(err);
            }
            continue;
        }
        wait_for_slot(live, seen)?;
    }
}

/// The refusal of a launch that found `part`'s position full: the limit, and what the
/// operation holding the position waits for.
fn pending_limit(live: &Live, part: Part, op: &LaunchOp, waited: Duration) -> Error {
    let me = live.rank;
    // The first few ranks of a list (a communicator may have thousands).
    let ranks = |v: &[usize]| {
        let list: Vec<String> = v.iter().take(8).map(|r| r.to_string()).collect();
        let more = match v.len().saturating_sub(8) {
            0 => String::new(),
            k => format!(" and {k} more"),
        };
        match v.len() {
            1 => format!("rank {}", list[0]),
            _ => format!("ranks {}{more}", list.join(", ")),
        }
    };
    let state_text = |state: u32| match state {
        EMPTY => "has not issued it",
        REGISTERED => "issued it and its stream has not reached it",
        ARRIVED => "is running it",
        _ => "has finished it",
    };
    match part {
        Part::Coll { seq } => {
            let (head, entry) = live.seg.slot(seq);
            let held = head.seq.load(Ordering::Acquire).saturating_sub(1);
            let mut by_state: Vec<(u32, Vec<usize>)> = Vec::new();
            for r in 0..live.size() {
                let st = entry(r).state.load(Ordering::Acquire);
                let st = if st == FAILED { DONE } else { st };
                match by_state.iter_mut().find(|(s, _)| *s == st) {
                    Some((_, v)) => v.push(r),
                    None => by_state.push((st, vec![r])),
                }
            }
            by_state.sort();
            let waits: Vec<String> = by_state
                .iter()
                .filter(|(s, _)| *s < DONE)
                .map(|(s, v)| format!("{} {}", ranks(v), state_text(*s)))
                .collect();
            Error::PendingLimit {
                op: "collective",
                limit: SLOTS,
                what: "pending collectives per communicator".into(),
                waited,
                oldest: format!(
                    "{} (rank {me}'s collective #{}) waits for its position, held by collective \
                     #{}, of which {}",
                    super::entry::op_name(&op.label, || op.desc.to_string()),
                    seq + 1,
                    held + 1,
                    if waits.is_empty() {
                        "every rank is leaving".to_string()
                    } else {
                        waits.join("; ")
                    }
                ),
            }
        }
        Part::Send { to: peer, n } | Part::Recv { from: peer, n } => {
            let send = matches!(part, Part::Send { .. });
            let (from, to) = if send { (me, peer) } else { (peer, me) };
            let slot = live.seg.p2p(from, to, n);
            let held = slot.seq.load(Ordering::Acquire).saturating_sub(1);
            let side = |e: &super::segment::Entry, r: usize, (verb, noun): (&str, &str)| match e
                .state
                .load(Ordering::Acquire)
            {
                EMPTY => format!("rank {r} has not {verb} it"),
                REGISTERED => format!("rank {r} {verb} it and its stream has not reached it"),
                ARRIVED => format!("rank {r} is running its {noun}"),
                _ => format!("rank {r} has finished its {noun}"),
            };
            Error::PendingLimit {
                op: if send { "send" } else { "recv" },
                limit: P2P_SLOTS,
                what: format!(
                    "pending messages from one rank to another (rank {from} to rank {to})"
                ),
                waited,
                oldest: format!(
                    "{} (message #{} from rank {from} to rank {to}) waits for its position, held \
                     by message #{}: {}; {}",
                    super::entry::op_name(&op.label, || op.desc.to_string()),
                    n + 1,
                    held + 1,
                    side(&slot.send, from, ("sent", "send")),
                    side(&slot.recv, to, ("posted", "receive")),
                ),
            }
        }
    }
}

/// Waits on the host for the ring to change after `seen` (at most a liveness tick),
/// failing when this rank was aborted or a peer is gone.
fn wait_for_slot(live: &Live, seen: u32) -> Result<()> {
    if live.seg.rank(live.rank).state.load(Ordering::Acquire) == ABORTED {
        return Err(Error::Aborted {
            what: format!("launch on rank {}", live.rank),
        });
    }
    if let Some((_, g)) = live.blame(0..live.size()) {
        return Err(Error::InvalidUsage {
            op: "collective",
            reason: format!("{g}; its earlier operations can never complete"),
        });
    }
    live.look_at_peers(0..live.size());
    live.seg.wait_room_bell(seen);
    Ok(())
}

fn register(live: &Live, part: Part, op: &LaunchOp, sid: u64, grouped: bool) -> Result<()> {
    let me = live.rank;
    match part {
        Part::Coll { seq } => {
            let (head, entry) = live.seg.slot(seq);
            loop {
                let seen = live.seg.room_bell();
                {
                    let _g = live.spin_lock(&head.lock);
                    let cur = head.seq.load(Ordering::Acquire);
                    if cur == 0 || cur == seq + 1 {
                        head.seq.store(seq + 1, Ordering::Release);
                        let mine = entry(me);
                        write_entry(mine, op, sid);
                        let other = (0..live.size())
                            .filter(|&r| r != me)
                            .find(|&r| entry(r).state.load(Ordering::Acquire) != EMPTY);
                        if let Some(r) = other.filter(|&r| !same(entry(r), mine)) {
                            mine.state.store(FAILED, Ordering::Release);
                            head.error
                                .store(1 | (me as u64) << 8 | (r as u64) << 24, Ordering::Release);
                            return Err(Error::Mismatch {
                                what: super::entry::op_name(&op.label, || {
                                    format!("collective #{}", seq + 1)
                                }),
                                detail: format!(
                                    "{} where {}",
                                    issued(live, me, mine),
                                    issued(live, r, entry(r))
                                ),
                            });
                        }
                        mine.state.store(REGISTERED, Ordering::Release);
                        return Ok(());
                    }
                }
                wait_for_slot(live, seen)?;
            }
        }
        Part::Send { to, n } | Part::Recv { from: to, n } => {
            let send = matches!(part, Part::Send { .. });
            let (from, to) = if send { (me, to) } else { (to, me) };
            let slot = live.seg.p2p(from, to, n);
            loop {
                let seen = live.seg.room_bell();
                {
                    let _g = live.spin_lock(&slot.lock);
                    let cur = slot.seq.load(Ordering::Acquire);
                    if cur == 0 || cur == n + 1 {
                        slot.seq.store(n + 1, Ordering::Release);
                        let (mine, other) = if send {
                            (&slot.send, &slot.recv)
                        } else {
                            (&slot.recv, &slot.send)
                        };
                        write_entry(mine, op, sid);
                        let peer = if send { to } else { from };
                        let state = other.state.load(Ordering::Acquire);
                        let differ = mine.count.load(Ordering::Relaxed)
                            != other.count.load(Ordering::Relaxed)
                            || (mine.desc.load(Ordering::Relaxed) >> 8 & 0xff)
                                != (other.desc.load(Ordering::Relaxed) >> 8 & 0xff);
                        if state != EMPTY && differ {
                            mine.state.store(FAILED, Ordering::Release);
                            return Err(Error::Mismatch {
                                what: format!("message #{n} from rank {from} to rank {to}"),
                                detail: format!(
                                    "{} but {}",
                                    issued(live, me, mine),
                                    issued(live, peer, other)
                                ),
                            });
                        }
                        // A send to itself and its receive on one stream, outside a
                        // group: the first waits for the second, queued behind it.
                        if from == to
                            && !grouped
                            && matches!(state, REGISTERED | ARRIVED)
                            && other.stream.load(Ordering::Relaxed) == sid
                        {
                            mine.state.store(FAILED, Ordering::Release);
                            return Err(Error::InvalidUsage {
                                op: if send { "send" } else { "recv" },
                                reason: format!(
                                    "deadlock: rank {me} {} message #{n} to itself on the stream \
                                     that already runs the matching {}, which waits for it \
                                     (outside a group NCCL's send waits for its receiver); issue \
                                     both in one group",
                                    if send { "sends" } else { "receives" },
                                    if send { "receive" } else { "send" },
                                ),
                            });
                        }
                        mine.state.store(REGISTERED, Ordering::Release);
                        return Ok(());
                    }
                }
                wait_for_slot(live, seen)?;
            }
        }
    }
}
