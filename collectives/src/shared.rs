//! [`SharedGroup`]: one process group used by several threads of a rank, in an order
//! every rank agrees on.

use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::process_group::ProcessGroup;
use crate::state::{deadline_after, lock};
use crate::{Error, Result};

/// A [`ProcessGroup`] that threads of one rank share, taking numbered turns.
///
/// Every rank pairs its n-th operation with the n-th of every other rank, so threads
/// that share a group must issue in one order on every rank. Here that order is
/// explicit: a thread calls [`SharedGroup::turn`] with a turn number (0, 1, 2, ... in
/// all), waits until every earlier turn has ended, issues its operations on the
/// [`Turn`] it gets, and ends the turn by dropping it. **The rule: every rank's
/// threads take the same turns for the same operations** (for example, thread A takes
/// the even turns and thread B the odd ones on every rank); each turn issues the same
/// operations on every rank. A turn waits at most the group's timeout for the turns
/// before it; asking for a turn that was taken already is refused. Waiting for a
/// turn's [`Work`](crate::Work) happens outside the turn, so threads overlap their
/// waits.
///
/// ```
/// use std::{sync::Arc, thread, time::Duration};
/// use collectives::{Options, ProcessGroup, SharedGroup};
/// use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// let id = UniqueId::random();
/// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> collectives::Result<()> {
///     let dev = Device::sim(rank)?;
///     let shared = Arc::new(SharedGroup::new(ProcessGroup::new(&dev, rank, 2, &id, Options::new())?));
///     // Two threads of this rank: one takes the even turns, the other the odd ones.
///     let threads: Vec<_> = (0..2u64).map(|t| {
///         let (shared, dev) = (shared.clone(), dev.clone());
///         thread::spawn(move || -> collectives::Result<()> {
///             let s = Stream::new(&dev)?;
///             let mut x = DeviceBuffer::from_slice(&s, &[t as f32 + 1.0; 4])?;
///             for k in 0..3 {
///                 let work = shared.turn(2 * k + t)?.all_reduce(&mut x, ReduceOp::Sum)?;
///                 work.wait_host(Duration::from_secs(10))?;
///             }
///             assert_eq!(x.to_vec(&s)?, vec![(t as f32 + 1.0) * 8.0; 4]);
///             Ok(())
///         })
///     }).collect();
///     for t in threads {
///         t.join().unwrap()?;
///     }
///     Ok(())
/// })).collect();
/// for r in ranks {
///     r.join().unwrap()?;
/// }
/// # Ok::<(), collectives::Error>(())
/// ```
pub struct SharedGroup {
    group: Mutex<ProcessGroup>,
    /// The next turn due, and whether a turn is being taken now.
    next: Mutex<(u64, bool)>,
    turned: Condvar,
    timeout: Duration,
    name: String,
    rank: usize,
}

/// One turn of a [`SharedGroup`]: the group, for this thread alone until it is
/// dropped (which ends the turn and lets the next one begin).
pub struct Turn<'a> {
    group: Option<MutexGuard<'a, ProcessGroup>>,
    shared: &'a SharedGroup,
}

impl SharedGroup {
    /// Shares `group`; the first turn is 0.
    pub fn new(group: ProcessGroup) -> SharedGroup {
        group.inner.turns.store(true, Ordering::Release);
        SharedGroup {
            timeout: group.inner.options.timeout,
            name: group.inner.options.name.clone(),
            rank: group.rank(),
            group: Mutex::new(group),
            next: Mutex::new((0, false)),
            turned: Condvar::new(),
        }
    }

    /// Waits until every turn before `turn` has ended (at most the group's timeout),
    /// then gives this thread the group for turn `turn`.
    ///
    /// # Errors
    ///
    /// [`Error::Turn`] when `turn` was taken already, or when the turns before it
    /// did not end within the group's timeout (naming the turn due).
    pub fn turn(&self, turn: u64) -> Result<Turn<'_>> {
        let refuse = |reason: String| Error::Turn {
            group: self.name.clone(),
            rank: self.rank,
            turn,
            reason,
        };
        let deadline = deadline_after(self.timeout);
        let mut next = lock(&self.next);
        loop {
            let (due, held) = *next;
            if turn < due || (turn == due && held) {
                return Err(refuse(format!(
                    "taken already (turns are taken once each, in order; the next is {})",
                    if held { due + 1 } else { due }
                )));
            }
            if turn == due {
                next.1 = true;
                break;
            }
            let wait = match deadline {
                Some(d) => match d.checked_duration_since(std::time::Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => {
                        return Err(refuse(format!(
                            "timed out after {:?} waiting for turn {} to end (does every \
                             rank's thread take the turns before it?)",
                            self.timeout, next.0
                        )));
                    }
                },
                None => Duration::from_secs(3600),
            };
            next = self
                .turned
                .wait_timeout(next, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(next);
        Ok(Turn {
            group: Some(lock(&self.group)),
            shared: self,
        })
    }

    /// The next turn due (turns before it have ended).
    pub fn next_turn(&self) -> u64 {
        lock(&self.next).0
    }

    /// The group back, for one thread again.
    pub fn into_inner(self) -> ProcessGroup {
        let group = self.group.into_inner().unwrap_or_else(|e| e.into_inner());
        group.inner.turns.store(false, Ordering::Release);
        group
    }
}

impl std::ops::Deref for Turn<'_> {
    type Target = ProcessGroup;

    fn deref(&self) -> &ProcessGroup {
        self.group
            .as_deref()
            .expect("held until the turn is dropped")
    }
}

impl Drop for Turn<'_> {
    /// Ends the turn (also when the thread panics inside it): the next may begin.
    fn drop(&mut self) {
        drop(self.group.take());
        let mut next = lock(&self.shared.next);
        *next = (next.0 + 1, false);
        drop(next);
        self.shared.turned.notify_all();
    }
}

impl std::fmt::Debug for SharedGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SharedGroup({} rank {}, next turn {})",
            self.name,
            self.rank,
            self.next_turn()
        )
    }
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Turn of {:?}", self.shared)
    }
}
