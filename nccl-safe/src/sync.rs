//! Locking and waiting helpers shared by every layer. Public: the bounded spin that
//! every waiting call of the library makes before it sleeps ([`SPIN`],
//! [`spin_until`]), which the collectives layer's host waits share.

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

/// How long a waiter spins before it sleeps: a wait that ends within it (the common
/// case for small operations, whose hand-offs take a few microseconds) skips the
/// sleep and the wake-up, each a system call and a context switch. Bounded, and
/// spinning yields the core (`sched_yield`) after a few rounds, so that on a machine
/// with fewer cores than threads the thread being waited for gets to run (a spin
/// that never yields made 8 B all-reduces of 4 thread ranks on 2 cores 100x slower on
/// the sim). Spinning costs CPU: up to this much per wait that does not end within it.
pub const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// Spins (see [`SPIN`]) until `ready()` holds or `limit` passes; returns whether it
/// holds. The first rounds only spin; later ones read the clock and yield.
///
/// ```
/// use std::time::Duration;
/// assert!(nccl_safe::sync::spin_until(Duration::from_micros(50), || true));
/// assert!(!nccl_safe::sync::spin_until(Duration::ZERO, || false));
/// ```
pub fn spin_until(limit: std::time::Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    let mut round = 0u32;
    loop {
        if ready() {
            return true;
        }
        round = round.wrapping_add(1);
        if round < 4 {
            std::hint::spin_loop();
            continue;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::yield_now();
    }
}
