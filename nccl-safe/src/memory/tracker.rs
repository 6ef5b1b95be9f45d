//! Range tracking: the pending reads and writes of every buffer, per byte range and
//! stream, and the protocol every enqueued operation follows (wait for conflicting
//! work of other streams, poison idle outputs on the sim, run, record the uses).
//!
//! The pending uses of a buffer are kept as an ordered map of disjoint byte segments;
//! each segment holds, per stream, only that stream's latest use and latest write.
//! Work recorded later on one stream completes after work recorded earlier on it, so
//! the latest use of a stream stands for all of its earlier ones: a segment holds at
//! most one entry per stream, and a write, which first waited for every other stream's
//! pending uses of its range, replaces the whole segment. An operation therefore costs
//! O(log n + segments it covers), never a scan of every pending use, and each conflict
//! is one wait per other stream. Completed uses are pruned in one pass whenever the
//! number of segments doubles, which keeps the cost amortised and the memory bounded.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::Result;
use crate::driver::{SharedEvent, StreamImpl};
use crate::stream::StreamInner;
use crate::sync::lock;

/// An event with its place in the order in which this tracker recorded it.
#[derive(Clone)]
struct Stamp {
    seq: u64,
    event: SharedEvent,
}

impl Stamp {
    fn done(&self) -> bool {
        matches!(self.event.query(), Ok(true))
    }
}

/// One stream's pending uses of a segment: its latest use, and its latest write.
#[derive(Clone)]
struct Entry {
    stream: u64,
    last: Stamp,
    write: Option<Stamp>,
}

/// Uses of the bytes `start..end` (the map key is `start`).
#[derive(Clone)]
struct Segment {
    end: usize,
    entries: Vec<Entry>,
}

/// Segments below this count are never pruned.
const PRUNE_FLOOR: usize = 64;

/// Pending accesses of one buffer (device or host).
pub(crate) struct Tracker {
    segments: BTreeMap<usize, Segment>,
    next_seq: u64,
    prune_at: usize,
}

impl Default for Tracker {
    fn default() -> Tracker {
        Tracker {
            segments: BTreeMap::new(),
            next_seq: 0,
            prune_at: PRUNE_FLOOR,
        }
    }
}

/// Keeps, per stream, the latest stamp offered.
fn keep_latest<'a>(latest: &mut Vec<(u64, &'a Stamp)>, stream: u64, stamp: &'a Stamp) {
    match latest.iter_mut().find(|(s, _)| *s == stream) {
        Some((_, have)) if have.seq >= stamp.seq => {}
        Some((_, have)) => *have = stamp,
        None => latest.push((stream, stamp)),
    }
}

/// Removed segments above this count are dropped on the reaper thread, so that an op
/// that replaces many segments does not pay for releasing their events.
const DROP_ELSEWHERE: usize = 256;

/// Drops `removed` (`n` segments), on the reaper thread when they are many.
fn drop_removed(n: usize, removed: impl Send + 'static) {
    if n > DROP_ELSEWHERE {
        crate::base::host_fn::defer(Box::new(move || drop(removed)));
    }
}

impl Tracker {
    /// Segments overlapping `range`, in order.
    fn overlapping(&self, range: &Range<usize>) -> impl Iterator<Item = (&usize, &Segment)> {
        let first = self
            .segments
            .range(..=range.start)
            .next_back()
            .filter(|(_, s)| s.end > range.start)
            .map_or(range.start, |(k, _)| *k);
        self.segments
            .range(first..range.end)
            .filter(move |(_, s)| s.end > range.start)
    }

    /// Per stream, the latest stamp that `pick` selects among the segments
    /// overlapping `range` (all segments for `None`).
    fn latest<'a>(
        &'a self,
        range: Option<&Range<usize>>,
        mut pick: impl FnMut(&'a Entry) -> Option<&'a Stamp>,
    ) -> Vec<(u64, &'a Stamp)> {
        let mut latest = Vec::new();
        let mut visit = |seg: &'a Segment| {
            for e in &seg.entries {
                if let Some(stamp) = pick(e) {
                    keep_latest(&mut latest, e.stream, stamp);
                }
            }
        };
        match range {
            Some(r) => self.overlapping(r).for_each(|(_, s)| visit(s)),
            None => self.segments.values().for_each(visit),
        }
        latest
    }

    /// Incomplete events of other streams that a use of `range` must wait for: per
    /// other stream, its latest write (for a read) or its latest use (for a write).
    fn conflicts(&self, range: &Range<usize>, write: bool, stream: u64) -> Vec<SharedEvent> {
        self.latest(Some(range), |e| match (e.stream == stream, write) {
            (true, _) => None,
            (false, true) => Some(&e.last),
            (false, false) => e.write.as_ref(),
        })
        .into_iter()
        .filter(|(_, s)| !s.done())
        .map(|(_, s)| s.event.clone())
        .collect()
    }

    /// Whether nothing at all is pending on `range`.
    fn idle(&self, range: &Range<usize>) -> bool {
        self.latest(Some(range), |e| Some(&e.last))
            .iter()
            .all(|(_, s)| s.done())
    }

    /// Splits the segment containing `at` (if any) so that a segment starts at `at`.
    fn split_at(&mut self, at: usize) {
        let Some((&key, seg)) = self.segments.range(..at).next_back() else {
            return;
        };
        if seg.end > at {
            let mut tail = seg.clone();
            self.segments.get_mut(&key).expect("segment just found").end = at;
            tail.end = tail.end.max(at);
            self.segments.insert(at, tail);
        }
    }

    /// Records a use of `range` by `stream`, completed by `event`, which was recorded
    /// after every earlier use of this tracker by `stream`, and, for a write, after the
    /// stream waited for every other stream's pending use of `range` (what
    /// [`Tracker::conflicts`] returned).
    pub(super) fn add(
        &mut self,
        range: Range<usize>,
        write: bool,
        stream: u64,
        event: SharedEvent,
    ) {
        if range.is_empty() {
            return;
        }
        let stamp = Stamp {
            seq: self.next_seq,
            event,
        };
        self.next_seq += 1;
        self.split_at(range.start);
        self.split_at(range.end);
        if write {
            // Every other stream's use of the range completes before this write (it
            // waited for them), and anyone who must wait for them must also wait for
            // the write: the write alone stands for the whole range.
            // The covered segments go: one by one (O(log n) each) when they are few
            // against the rest of the map; by splitting the map and appending the
            // rest back (which rebuilds the rest) when they are most of it, as for a
            // write of the whole buffer. Either way a write costs no more than what it
            // covers, whatever is tracked after it.
            let half = self.segments.len() / 2;
            let most = self
                .segments
                .range(range.start..range.end)
                .nth(half)
                .is_some();
            if most {
                let mut inside = self.segments.split_off(&range.start);
                let mut after = inside.split_off(&range.end);
                self.segments.append(&mut after);
                drop_removed(inside.len(), inside);
            } else {
                let keys: Vec<usize> = self
                    .segments
                    .range(range.start..range.end)
                    .map(|(k, _)| *k)
                    .collect();
                let inside: Vec<Segment> = keys
                    .iter()
                    .filter_map(|k| self.segments.remove(k))
                    .collect();
                drop_removed(inside.len(), inside);
            }
            let entry = Entry {
                stream,
                last: stamp.clone(),
                write: Some(stamp),
            };
            self.segments.insert(
                range.start,
                Segment {
                    end: range.end,
                    entries: vec![entry],
                },
            );
        } else {
            // A read joins the segments it covers: it becomes its stream's latest use
            // there, leaving that stream's latest write visible to other readers.
            let mut at = range.start;
            let mut gaps = Vec::new();
            for (&k, seg) in self.segments.range_mut(range.start..range.end) {
                if k > at {
                    gaps.push(at..k);
                }
                at = seg.end;
                match seg.entries.iter_mut().find(|e| e.stream == stream) {
                    Some(e) => e.last = stamp.clone(),
                    None => seg.entries.push(Entry {
                        stream,
                        last: stamp.clone(),
                        write: None,
                    }),
                }
            }
            if at < range.end {
                gaps.push(at..range.end);
            }
            for gap in gaps {
                let entry = Entry {
                    stream,
                    last: stamp.clone(),
                    write: None,
                };
                self.segments.insert(
                    gap.start,
                    Segment {
                        end: gap.end,
                        entries: vec![entry],
                    },
                );
            }
        }
        if self.segments.len() > self.prune_at {
            self.prune();
            self.prune_at = (2 * self.segments.len()).max(PRUNE_FLOOR);
        }
    }

    /// Forgets completed uses, drops empty segments, and joins neighbouring segments
    /// that hold the same uses.
    fn prune(&mut self) {
        let old = std::mem::take(&mut self.segments);
        let mut prev: Option<(usize, Segment)> = None;
        for (start, mut seg) in old {
            seg.entries.retain_mut(|e| {
                if e.last.done() {
                    return false; // the latest write is no later than the latest use
                }
                if e.write.as_ref().is_some_and(Stamp::done) {
                    e.write = None;
                }
                true
            });
            if seg.entries.is_empty() {
                continue;
            }
            if let Some((pstart, p)) = prev.as_mut() {
                if p.end == start && same_entries(&p.entries, &seg.entries) {
                    p.end = seg.end;
                    continue;
                }
                self.segments
                    .insert(*pstart, prev.take().expect("just matched").1);
            }
            prev = Some((start, seg));
        }
        if let Some((start, seg)) = prev {
            self.segments.insert(start, seg);
        }
    }

    /// Incomplete events that everything pending on the buffer completes with: one
    /// per stream, the latest.
    pub(super) fn pending(&mut self) -> Vec<SharedEvent> {
        self.latest(None, |e| Some(&e.last))
            .into_iter()
            .filter(|(_, s)| !s.done())
            .map(|(_, s)| s.event.clone())
            .collect()
    }

    /// How many disjoint segments are tracked (for tests of pruning).
    #[cfg(test)]
    fn segment_count(&self) -> usize {
        self.segments.len()
    }
}

fn same_entries(a: &[Entry], b: &[Entry]) -> bool {
    let same = |x: &Option<Stamp>, y: &Option<Stamp>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => x.seq == y.seq,
        _ => false,
    };
    a.len() == b.len()
        && a.iter().all(|x| {
            b.iter().any(|y| {
                x.stream == y.stream && x.last.seq == y.last.seq && same(&x.write, &y.write)
            })
        })
}

/// One use of a tracked buffer by an operation.
pub(crate) struct Use<'a> {
    pub(super) tracker: &'a Mutex<Tracker>,
    pub(super) range: Range<usize>,
    pub(super) write: bool,
    /// For the sim: the device address of `range`, poisoned at enqueue when the
    /// operation overwrites it and nothing else is pending on it.
    pub(super) poison: Option<u64>,
}

/// Enqueues one operation on `stream` with the tracking protocol: wait for conflicts
/// of other streams, poison idle outputs (sim), run, record the uses.
///
/// The uses are recorded even when `run` fails: a launch can fail after part of it
/// was enqueued (NCCL launches the calls of a group issued before a failing one, and
/// a launch whose confirmation fails may still run), and buffers must not be freed
/// under such work. An event recorded after nothing completes at once.
pub(crate) fn enqueue(
    stream: &StreamInner,
    uses: &[Use<'_>],
    run: impl FnOnce(&StreamImpl) -> Result<()>,
) -> Result<()> {
    enqueue_keeping(stream, uses, run).0
}

/// [`enqueue`], also handing back the event recorded right after the operation (for
/// a caller that needs one there too: one event serves both), or `None` when nothing
/// was recorded.
pub(crate) fn enqueue_keeping(
    stream: &StreamInner,
    uses: &[Use<'_>],
    run: impl FnOnce(&StreamImpl) -> Result<()>,
) -> (Result<()>, Option<SharedEvent>) {
    if let Err(e) = enqueue_waits(stream, uses) {
        return (Err(e), None);
    }
    let ran = run(&stream.imp);
    let (recorded, event) = enqueue_record(stream, uses);
    (ran.and(recorded), event)
}

/// Waits on the host, at most `timeout`, until what `u` conflicts with on any stream
/// has completed (for a read: the pending writes).
pub(crate) fn wait_for_conflicts(u: &Use<'_>, timeout: std::time::Duration) -> Result<()> {
    // No stream has id 0: every pending use counts.
    let events = lock(u.tracker).conflicts(&u.range, u.write, 0);
    for e in events {
        e.synchronize(Some(timeout))?;
    }
    Ok(())
}

/// First half of [`enqueue`]: wait for conflicts of other streams, poison idle outputs
/// (sim).
pub(crate) fn enqueue_waits(stream: &StreamInner, uses: &[Use<'_>]) -> Result<()> {
    let mut waits: Vec<SharedEvent> = Vec::new();
    for u in uses {
        for e in lock(u.tracker).conflicts(&u.range, u.write, stream.id) {
            if !waits.iter().any(|w| Arc::ptr_eq(w, &e)) {
                waits.push(e);
            }
        }
    }
    for e in &waits {
        stream.wait(e)?;
    }
    if stream.imp.poisons() {
        for u in uses.iter().filter(|u| u.write) {
            if let Some(addr) = u.poison {
                if lock(u.tracker).idle(&u.range) {
                    stream.imp.poison(addr, u.range.len())?;
                }
            }
        }
    }
    Ok(())
}

/// Second half of [`enqueue`]: record the operation's uses after it.
///
/// Recording and tracking happen under the stream's record lock, so that each tracker
/// sees one stream's uses in the order the stream runs them, even when several threads
/// enqueue on the same stream at once; no tracker stays locked while recording blocks.
/// Returns the event recorded (`None` when recording failed).
pub(crate) fn enqueue_record(
    stream: &StreamInner,
    uses: &[Use<'_>],
) -> (Result<()>, Option<SharedEvent>) {
    let mut kept = None;
    let recorded = stream.record_and(|event| {
        for u in uses {
            lock(u.tracker).add(u.range.clone(), u.write, stream.id, event.clone());
        }
        kept = Some(event);
    });
    (recorded, kept)
}

#[cfg(test)]
mod tests {
    //! The segment map's ordering semantics, against gated (never completing) events,
    //! and against a model that tracks, per operation, every earlier operation it is
    //! ordered after.
    use super::*;
    use crate::{Device, Gate, Stream};

    /// A sim device no other unit test of this crate holds streams on (held streams
    /// would show up in their device-wide synchronisations).
    const ORDINAL: usize = 6;

    struct Streams {
        streams: Vec<Stream>,
        gate: Gate,
    }

    impl Streams {
        fn new(n: usize) -> Streams {
            let dev = Device::sim(ORDINAL).unwrap();
            let gate = Gate::new(&dev).unwrap();
            let streams: Vec<Stream> = (0..n).map(|_| Stream::new(&dev).unwrap()).collect();
            for s in &streams {
                s.wait_gate(&gate).unwrap();
            }
            Streams { streams, gate }
        }
        fn id(&self, i: usize) -> u64 {
            self.streams[i].inner.id
        }
        fn event(&self, i: usize) -> SharedEvent {
            self.streams[i].inner.record_new().unwrap()
        }
    }

    impl Drop for Streams {
        fn drop(&mut self) {
            self.gate.open();
        }
    }

    fn same(got: &[SharedEvent], want: &[&SharedEvent]) -> bool {
        got.len() == want.len() && want.iter().all(|w| got.iter().any(|g| Arc::ptr_eq(g, w)))
    }

    #[test]
    fn overlapping_views_conflict_and_disjoint_ones_do_not() {
        let s = Streams::new(3);
        let mut t = Tracker::default();
        let w_a = s.event(0);
        t.add(0..100, true, s.id(0), w_a.clone());
        let w_b = s.event(1);
        t.add(50..60, true, s.id(1), w_b.clone());
        // A read on a third stream waits for each writer whose bytes it touches.
        assert!(same(&t.conflicts(&(0..100), false, s.id(2)), &[&w_a, &w_b]));
        assert!(same(&t.conflicts(&(0..50), false, s.id(2)), &[&w_a]));
        assert!(same(&t.conflicts(&(55..56), false, s.id(2)), &[&w_b]));
        assert!(same(&t.conflicts(&(59..61), false, s.id(2)), &[&w_a, &w_b]));
        assert!(t.conflicts(&(100..200), true, s.id(2)).is_empty());
        // A stream never waits for itself.
        assert!(same(&t.conflicts(&(0..100), true, s.id(0)), &[&w_b]));
        assert!(!t.idle(&(99..101)) && t.idle(&(100..101)));
    }

    #[test]
    fn reads_wait_for_writes_only_and_writes_wait_for_both() {
        let s = Streams::new(3);
        let mut t = Tracker::default();
        let r_a = s.event(0);
        t.add(0..100, false, s.id(0), r_a.clone());
        assert!(
            t.conflicts(&(0..100), false, s.id(1)).is_empty(),
            "reads share"
        );
        assert!(same(&t.conflicts(&(10..20), true, s.id(1)), &[&r_a]));
        // A write and then a read on one stream: other readers still see the write,
        // other writers wait for the later read.
        let w_b = s.event(1);
        t.add(200..300, true, s.id(1), w_b.clone());
        let r_b = s.event(1);
        t.add(150..250, false, s.id(1), r_b.clone());
        assert!(same(&t.conflicts(&(200..300), false, s.id(2)), &[&w_b]));
        assert!(t.conflicts(&(150..200), false, s.id(2)).is_empty());
        assert!(same(&t.conflicts(&(150..300), true, s.id(2)), &[&r_b]));
    }

    #[test]
    fn a_write_stands_for_the_uses_it_waited_for() {
        let s = Streams::new(3);
        let mut t = Tracker::default();
        t.add(0..50, false, s.id(0), s.event(0));
        t.add(50..100, true, s.id(0), s.event(0));
        let w_b = s.event(1); // recorded after waiting for stream 0's uses
        t.add(0..100, true, s.id(1), w_b.clone());
        assert!(same(&t.conflicts(&(0..100), false, s.id(2)), &[&w_b]));
        assert!(same(&t.conflicts(&(0..100), true, s.id(2)), &[&w_b]));
        assert!(same(&t.conflicts(&(0..100), true, s.id(0)), &[&w_b]));
        assert_eq!(t.segment_count(), 1);
    }

    #[test]
    fn many_pending_views_of_one_stream_are_one_wait_for_the_latest() {
        let s = Streams::new(2);
        let mut t = Tracker::default();
        // Fewer under Miri, which interprets every step.
        let n = if cfg!(miri) { 256 } else { 4096 };
        let events: Vec<SharedEvent> = (0..n).map(|_| s.event(0)).collect();
        for (i, e) in events.iter().enumerate() {
            t.add(i * 16..(i + 1) * 16, true, s.id(0), e.clone());
        }
        let (first, last) = (&events[0], &events[n - 1]);
        assert!(same(&t.conflicts(&(0..n * 16), true, s.id(1)), &[last]));
        assert!(same(&t.conflicts(&(0..16), false, s.id(1)), &[first]));
        assert!(same(&t.pending(), &[last]));
    }

    #[test]
    fn completed_uses_are_pruned_and_neighbours_joined() {
        let dev = Device::sim(ORDINAL).unwrap();
        let stream = Stream::new(&dev).unwrap();
        let mut t = Tracker::default();
        // Fewer under Miri (still past the pruning floor, so pruning runs).
        let n = if cfg!(miri) {
            4 * PRUNE_FLOOR.max(200)
        } else {
            10_000
        };
        for i in 0..n {
            let e = stream.inner.record_new().unwrap();
            t.add(i * 8..i * 8 + 8, i % 3 == 0, stream.inner.id, e);
            if i % 100 == 0 {
                stream.synchronize().unwrap();
            }
        }
        assert!(
            t.segment_count() <= 2 * PRUNE_FLOOR.max(200),
            "{} segments kept",
            t.segment_count()
        );
        stream.synchronize().unwrap();
        assert!(t.pending().is_empty());
        assert!(t.idle(&(0..n * 8)));
    }

    /// Every pending use that a naive scan would wait for is covered by a returned
    /// event: one of the same stream recorded no earlier, or one that was itself
    /// ordered after it.
    #[test]
    fn random_uses_match_a_model_of_every_earlier_use() {
        const STREAMS: usize = 3;
        let s = Streams::new(STREAMS);
        let mut t = Tracker::default();
        // Per operation: range, write, stream, and the operations it is ordered after.
        struct Op {
            range: Range<usize>,
            write: bool,
            stream: usize,
            event: SharedEvent,
            after: Vec<usize>,
        }
        let mut ops: Vec<Op> = Vec::new();
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n) as usize
        };
        // Fewer steps under Miri, which interprets every one.
        for _ in 0..if cfg!(miri) { 60 } else { 400 } {
            let (a, b) = (next(64), next(64));
            let range = a.min(b)..a.max(b) + 1;
            let write = next(2) == 0;
            let stream = next(STREAMS as u64);
            let waits = t.conflicts(&range, write, s.id(stream));
            // The naive set: every earlier op of another stream that conflicts.
            for (i, op) in ops.iter().enumerate() {
                let conflicting = op.stream != stream
                    && (write || op.write)
                    && op.range.start < range.end
                    && range.start < op.range.end;
                if !conflicting {
                    continue;
                }
                // Covered by a wait, or by this stream's own earlier operations.
                let own = ops
                    .iter()
                    .any(|o| o.stream == stream && o.after.contains(&i));
                let covered = own
                    || waits.iter().any(|w| {
                        let j = ops.iter().position(|o| Arc::ptr_eq(&o.event, w)).unwrap();
                        j == i || ops[j].after.contains(&i)
                    });
                assert!(
                    covered,
                    "op {} ({range:?}, {write}) misses op {i}",
                    ops.len()
                );
            }
            // This op is ordered after what it waited for, and after its own stream.
            let mut after: Vec<usize> = Vec::new();
            for (j, op) in ops.iter().enumerate() {
                let waited = waits.iter().any(|w| Arc::ptr_eq(w, &op.event));
                if waited || op.stream == stream {
                    after.push(j);
                    after.extend(&op.after);
                }
            }
            after.sort_unstable();
            after.dedup();
            let event = s.event(stream);
            t.add(range.clone(), write, s.id(stream), event.clone());
            ops.push(Op {
                range,
                write,
                stream,
                event,
                after,
            });
        }
    }
}
