//! Hooks: callbacks a program registers on a group, called before each operation is
//! issued, when one is seen complete, when one times out, and when the group aborts.
//!
//! Rules, the same for every point:
//! - a hook runs with no lock of the library held, so it may call back into the group
//!   (through a [`GroupHandle`](crate::GroupHandle): look at it, dump it, abort it);
//! - a hook that panics is caught and logged; the group goes on;
//! - the [`HookHandle`] that registration returns removes the hook when dropped
//!   (also from inside the hook itself); [`HookHandle::keep`] keeps it for the
//!   group's life: every hook is removed when the `ProcessGroup` is dropped;
//! - with no hook registered, the cost per operation is one atomic load.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

/// Where in an operation's life a hook runs, and on which thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HookPoint {
    /// On the issuing thread, after the call is accepted (it has its sequence number)
    /// and before it is launched. A hook that aborts the group here makes this call
    /// fail with the abort's error; nothing is launched.
    BeforeIssue,
    /// On the thread that first sees the operation complete: one waiting for it
    /// (`Work::wait_host`, `Work::is_completed`, an `.await`), one asking
    /// `ProcessGroup::in_flight`, the issuing thread making room under
    /// `Options::max_in_flight`, or the watchdog thread. Once per operation, and only
    /// for operations the library sees complete and succeed (not for one whose
    /// `Work` the NaN check failed; none after the group is dropped).
    AfterCompletion,
    /// On the thread that declares the timeout (the watchdog, or a thread whose
    /// `wait_host` ran past the group's timeout), before the waiters of the operation
    /// wake with [`Error::Timeout`](crate::Error::Timeout).
    OnTimeout,
    /// On the thread that aborts the group (after a failure: the one that saw it;
    /// `ProcessGroup::abort`: the caller; another rank's failure: the job-store
    /// watcher), once per group, before the pending operations' waiters wake.
    OnAbort,
}

/// An operation as a hook sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookOp {
    /// The operation (`all_reduce`, `send`, ...).
    pub op: String,
    /// Its sequence number among the group's collectives (for point-to-point, among
    /// the messages to or from its peer).
    pub seq: u64,
    /// Where it was called (`file:line`).
    pub call_site: String,
    /// Element type.
    pub dtype: String,
    /// Element count as called.
    pub count: usize,
    /// Time since it was issued (zero before it is).
    pub age: Duration,
}

/// What a hook is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookEvent {
    /// Where it runs.
    pub point: HookPoint,
    /// The group's name.
    pub group: String,
    /// This rank.
    pub rank: usize,
    /// The operation concerned: always but for [`HookPoint::OnAbort`], where it is
    /// the one whose failure aborted the group, when there is one.
    pub op: Option<HookOp>,
    /// What happened ([`HookPoint::OnTimeout`] and [`HookPoint::OnAbort`]): the
    /// error's text, or the reason given to `ProcessGroup::abort`.
    pub reason: Option<String>,
}

type Callback = Arc<dyn Fn(&HookEvent) + Send + Sync>;

/// A group's hooks.
#[derive(Default)]
pub(crate) struct Hooks {
    /// Whether any hook is registered (read before anything else is done).
    any: AtomicBool,
    next: AtomicU64,
    list: RwLock<Vec<(u64, HookPoint, Callback)>>,
}

impl Hooks {
    pub(crate) fn add(
        self: &Arc<Self>,
        point: HookPoint,
        hook: impl Fn(&HookEvent) + Send + Sync + 'static,
    ) -> HookHandle {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        list.push((id, point, Arc::new(hook)));
        self.any.store(true, Ordering::Release);
        HookHandle {
            hooks: Arc::downgrade(self),
            id: Some(id),
        }
    }

    /// Whether any hook is registered.
    pub(crate) fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// Removes every hook (the group's handle is dropped).
    pub(crate) fn clear(&self) {
        let taken = std::mem::take(&mut *self.list.write().unwrap_or_else(|e| e.into_inner()));
        self.any.store(false, Ordering::Release);
        drop(taken); // outside the lock: a hook's captures may drop a group handle
    }

    fn remove(&self, id: u64) {
        let removed = {
            let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
            let at = list.iter().position(|(i, _, _)| *i == id);
            let removed = at.map(|at| list.remove(at));
            self.any.store(!list.is_empty(), Ordering::Release);
            removed
        };
        drop(removed); // outside the lock, as in `clear`
    }

    /// Runs the hooks of `point` on `event()`, none of the library's locks held (the
    /// list is copied out first). Panics are caught and logged. `true` if any ran.
    pub(crate) fn run(&self, point: HookPoint, event: impl FnOnce() -> HookEvent) -> bool {
        if !self.any.load(Ordering::Acquire) {
            return false;
        }
        let hooks: Vec<Callback> = self
            .list
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|(_, p, _)| *p == point)
            .map(|(_, _, h)| h.clone())
            .collect();
        if hooks.is_empty() {
            return false;
        }
        let event = event();
        for h in hooks {
            if catch_unwind(AssertUnwindSafe(|| h(&event))).is_err() {
                log::error!(
                    "group {} rank {}: a {point:?} hook panicked; the group goes on",
                    event.group,
                    event.rank
                );
            }
        }
        true
    }
}

/// A registered hook: dropping it removes the hook (at once; a call under way on
/// another thread finishes). Made by
/// [`ProcessGroup::add_hook`](crate::ProcessGroup::add_hook).
#[must_use = "dropping the handle removes the hook at once; HookHandle::keep keeps it"]
pub struct HookHandle {
    hooks: Weak<Hooks>,
    id: Option<u64>,
}

impl HookHandle {
    /// Keeps the hook for the rest of the group's life.
    pub fn keep(mut self) {
        self.id = None;
    }
}

impl std::fmt::Debug for HookHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookHandle").field("id", &self.id).finish()
    }
}

impl Drop for HookHandle {
    fn drop(&mut self) {
        if let (Some(id), Some(hooks)) = (self.id, self.hooks.upgrade()) {
            hooks.remove(id);
        }
    }
}
