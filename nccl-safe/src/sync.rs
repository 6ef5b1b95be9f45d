//! Locking helpers shared by every layer.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poison: a panic elsewhere (a user's host function, a failed
/// test thread) must not make every later call panic too.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
