//! [`GroupHandle`]: what other threads may do with a group without issuing.

use std::sync::Arc;

use crate::Result;
use crate::process_group::ProcessGroup;
use crate::recorder::{Dump, Entry};
use crate::state::{Inner, lock};

/// A handle to a [`ProcessGroup`] for other threads: it looks at the group, dumps its
/// flight record and aborts it, but issues nothing, so it leaves the group's order of
/// operations to the thread that owns the group. `Clone`, `Send` and `Sync`.
///
/// ```
/// use collectives::{Options, ProcessGroup};
/// use nccl_safe::{Device, UniqueId};
/// let pg = ProcessGroup::new(&Device::sim(0)?, 0, 1, &UniqueId::random(), Options::new())?;
/// let handle = pg.handle();
/// let watcher = std::thread::spawn(move || {
///     handle.abort("the watcher gives up");
///     handle.aborted()
/// });
/// assert_eq!(watcher.join().unwrap().as_deref(), Some("the watcher gives up"));
/// assert!(pg.barrier().is_err(), "an aborted group refuses new work");
/// # Ok::<(), collectives::Error>(())
/// ```
#[derive(Clone)]
pub struct GroupHandle {
    inner: Arc<Inner>,
}

impl ProcessGroup {
    /// A handle for other threads (see [`GroupHandle`]).
    pub fn handle(&self) -> GroupHandle {
        GroupHandle {
            inner: self.inner.clone(),
        }
    }
}

impl GroupHandle {
    /// This rank.
    pub fn rank(&self) -> usize {
        self.inner.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// As [`ProcessGroup::is_ready`]. Never blocks.
    ///
    /// # Errors
    ///
    /// An init error.
    pub fn is_ready(&self) -> Result<bool> {
        self.inner.is_ready()
    }

    /// As [`ProcessGroup::in_flight`].
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    /// As [`ProcessGroup::aborted`]. Never blocks.
    pub fn aborted(&self) -> Option<String> {
        lock(&self.inner.refused).as_ref().map(|r| r.reason.clone())
    }

    /// As [`ProcessGroup::flight_record`].
    pub fn flight_record(&self) -> Vec<Entry> {
        self.inner.recorder.entries()
    }

    /// As [`ProcessGroup::dump_flight_record`].
    pub fn dump_flight_record(&self, reason: &str) -> Dump {
        self.inner.dump_on_request(reason)
    }

    /// As [`ProcessGroup::abort`].
    pub fn abort(&self, reason: &str) {
        self.inner.abort_on_request(reason);
    }
}

impl std::fmt::Debug for GroupHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GroupHandle({} rank {} of {})",
            self.inner.options.name, self.inner.rank, self.inner.size
        )
    }
}
