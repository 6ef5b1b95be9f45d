//! Range tracking: the pending reads and writes of every buffer, per byte range and
//! stream, and the protocol every enqueued operation follows (wait for conflicting
//! work of other streams, poison idle outputs on the sim, run, record the uses).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::Result;
use crate::driver::{SharedEvent, StreamImpl};
use crate::stream::StreamInner;
use crate::sync::lock;

/// A pending use of a byte range.
struct Access {
    range: Range<usize>,
    write: bool,
    stream: u64,
    event: SharedEvent,
}

/// Pending accesses of one buffer (device or host).
#[derive(Default)]
pub(crate) struct Tracker {
    accesses: Vec<Access>,
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

impl Tracker {
    /// Forgets accesses whose events have completed.
    pub(super) fn prune(&mut self) {
        self.accesses
            .retain(|a| !matches!(a.event.query(), Ok(true)));
    }

    /// Incomplete events of other streams that a use of `range` must wait for.
    fn conflicts(&mut self, range: &Range<usize>, write: bool, stream: u64) -> Vec<SharedEvent> {
        self.prune();
        self.accesses
            .iter()
            .filter(|a| a.stream != stream && (write || a.write) && overlaps(&a.range, range))
            .map(|a| a.event.clone())
            .collect()
    }

    /// Whether nothing at all is pending on `range`.
    fn idle(&mut self, range: &Range<usize>) -> bool {
        self.prune();
        !self.accesses.iter().any(|a| overlaps(&a.range, range))
    }

    pub(super) fn add(
        &mut self,
        range: Range<usize>,
        write: bool,
        stream: u64,
        event: SharedEvent,
    ) {
        // An earlier access of the same stream inside the new range completes before
        // the new one, so waiting for the new one covers it, unless the earlier one
        // wrote and the new one only reads: readers on other streams do not wait for
        // reads, so that write must stay visible.
        self.accesses.retain(|a| {
            let covered =
                a.stream == stream && a.range.start >= range.start && a.range.end <= range.end;
            !(covered && (write || !a.write))
        });
        self.accesses.push(Access {
            range,
            write,
            stream,
            event,
        });
    }

    pub(super) fn pending(&mut self) -> Vec<SharedEvent> {
        self.prune();
        self.accesses.iter().map(|a| a.event.clone()).collect()
    }
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
    enqueue_waits(stream, uses)?;
    let ran = run(&stream.imp);
    let recorded = enqueue_record(stream, uses);
    ran.and(recorded)
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
pub(crate) fn enqueue_record(stream: &StreamInner, uses: &[Use<'_>]) -> Result<()> {
    let event = stream.record_new()?;
    for u in uses {
        lock(u.tracker).add(u.range.clone(), u.write, stream.id, event.clone());
    }
    Ok(())
}
