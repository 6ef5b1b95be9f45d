//! Locking helpers shared by every layer.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poison: a panic elsewhere (a user's host function, a failed
/// test thread) must not make every later call panic too.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `now + timeout`, or `None` ("no deadline") when that is not representable: a huge
/// timeout such as `Duration::MAX` means waiting without a deadline, never a panic.
pub(crate) fn deadline(timeout: std::time::Duration) -> Option<std::time::Instant> {
    std::time::Instant::now().checked_add(timeout)
}

/// Time left until `deadline` (`Duration::MAX` without one).
pub(crate) fn left(deadline: Option<std::time::Instant>) -> std::time::Duration {
    deadline.map_or(std::time::Duration::MAX, |d| {
        d.saturating_duration_since(std::time::Instant::now())
    })
}
