//! Launches on the sim: registering a launch's operations in the communicator's
//! segment, where NCCL's rules are checked at the call (the same operation at the
//! same position on every rank, matching messages, a send to itself queued behind its
//! own receive), then enqueueing the stream task (`task.rs`) that runs them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::SimStream;
use super::entry::{Part, issued, same, stream_id, write_entry};
use super::live::Live;
use super::segment::{ABORTED, ALIVE, ARRIVED, EMPTY, FAILED, P2P_SLOTS, REGISTERED, SLOTS};
use super::task::{fail_entry, run};
use crate::base::op::{Kind, LaunchOp};
use crate::{Error, Result};

/// Registers `ops` (checking them against the other ranks'), then enqueues one task
/// that runs them together on `stream`.
pub(super) fn launch(live: &Arc<Live>, stream: &SimStream, ops: Vec<LaunchOp>) -> Result<()> {
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
    let mut next = live.coll_seq.load(Ordering::Relaxed);
    let mut p2p = crate::sync::lock(&live.p2p_seq);
    let mut p2p_next: HashMap<(usize, usize, bool), u64> = HashMap::new();
    let mut parts = Vec::with_capacity(ops.len());
    for op in &ops {
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
    let done = Arc::new(AtomicBool::new(false));
    let devices: Vec<usize> = live.members.iter().map(|m| m.device as usize).collect();
    let launch_no = live.launches.fetch_add(1, Ordering::Relaxed);
    super::rules::check_launch_order(
        live.id,
        &devices,
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
    live.seg.ring();
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

/// Waits, on the host, for a ring position to be free (the ring is full only while a
/// rank is thousands of operations ahead).
fn wait_for_slot(live: &Live) -> Result<()> {
    let seen = live.seg.bell();
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
    live.seg.wait_bell(seen);
    Ok(())
}

fn register(live: &Live, part: Part, op: &LaunchOp, sid: u64, grouped: bool) -> Result<()> {
    let me = live.rank;
    match part {
        Part::Coll { seq } => {
            let (head, entry) = live.seg.slot(seq);
            loop {
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
                wait_for_slot(live)?;
            }
        }
        Part::Send { to, n } | Part::Recv { from: to, n } => {
            let send = matches!(part, Part::Send { .. });
            let (from, to) = if send { (me, to) } else { (to, me) };
            let slot = live.seg.p2p(from, to, n);
            loop {
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
                wait_for_slot(live)?;
            }
        }
    }
}
