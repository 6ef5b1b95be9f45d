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
/// Spinning backs off when the cores are oversubscribed: a yield that comes back only
/// after more than a millisecond means that a thread ran a whole time slice meanwhile
/// (another process's build or tests), and yielding again would hand the core to it
/// instead of to the thread being waited for. When at least an eighth of the
/// process's recent yields (the last few dozen) were that slow, for a back-off period
/// every `spin_until` of the process checks `ready()` once and returns, so waiters
/// sleep at once and are woken first. (Without this, 1000 sim all-reduces on 4
/// processes took over 20 s instead of 6 s on 2 cores shared with two CPU-bound
/// processes.) The period adapts: [`SPIN_BACKOFF_MIN`] at first, doubled, up to
/// [`SPIN_BACKOFF`], by each slow yield soon after a period ends, as long as the
/// cores stay taken. A rare slow yield (this process's own threads busy for a
/// millisecond) does not turn spinning off: when every slow yield did, for a fixed
/// 100 ms, spinning was off for about 40% of the waits of 4 thread ranks alone on 2
/// cores, and their small all-reduces took twice as long.
///
/// ```
/// use std::time::Duration;
/// assert!(nccl_safe::sync::spin_until(Duration::from_micros(50), || true));
/// assert!(!nccl_safe::sync::spin_until(Duration::ZERO, || false));
/// ```
pub fn spin_until(limit: std::time::Duration, mut ready: impl FnMut() -> bool) -> bool {
    if ready() {
        return true;
    }
    let start = std::time::Instant::now();
    if contended(start) {
        return false;
    }
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
        let before = std::time::Instant::now();
        if before.duration_since(start) >= limit {
            return false;
        }
        std::thread::yield_now();
        let after = std::time::Instant::now();
        if note_yield(after, after.duration_since(before) > CONTENDED_YIELD) {
            return ready();
        }
    }
}

/// A yield that takes longer than this handed the core to a thread that ran a time
/// slice, not to one that did a few microseconds of work and slept.
const CONTENDED_YIELD: std::time::Duration = std::time::Duration::from_millis(1);

/// The longest that spinning stays off after yields showed the cores were taken (see
/// [`spin_until`]).
pub const SPIN_BACKOFF: std::time::Duration = std::time::Duration::from_millis(100);

/// How long spinning stays off after an isolated slow yield (see [`spin_until`]).
pub const SPIN_BACKOFF_MIN: std::time::Duration = std::time::Duration::from_millis(4);

/// Process-wide: the time (nanoseconds since [`epoch`]) until which spinning is off.
static CONTENDED_UNTIL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Process-wide: the length (nanoseconds) of the latest back-off period; 0 before any.
static BACKOFF: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn epoch() -> std::time::Instant {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

fn nanos(at: std::time::Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(epoch()).as_nanos()).unwrap_or(u64::MAX)
}

fn contended(now: std::time::Instant) -> bool {
    nanos(now) < CONTENDED_UNTIL.load(std::sync::atomic::Ordering::Relaxed)
}

/// Recent yields of the process, and the slow ones among them; both halve whenever
/// the count reaches [`YIELD_WINDOW`], so they describe the last few dozen yields.
static YIELDS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static SLOW_YIELDS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// How many recent yields the share of slow ones is taken over.
const YIELD_WINDOW: u32 = 64;

/// Counts a yield that came back at `at` (`slow`: after more than
/// [`CONTENDED_YIELD`]); returns whether spinning is now off. Spinning turns off when
/// at least an eighth of the recent yields were slow (two at least): on cores taken by
/// other processes most yields are, while a rare slow one (this process's own
/// threads, busy for a millisecond) turned spinning off, when it did at each, for
/// about 40% of the waits of 4 thread ranks alone on 2 cores.
fn note_yield(at: std::time::Instant, slow: bool) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    if YIELDS.fetch_add(1, Relaxed) + 1 >= YIELD_WINDOW {
        // Races may lose a count: the shares stay approximate, as they need to be.
        YIELDS.store(YIELD_WINDOW / 2, Relaxed);
        SLOW_YIELDS.store(SLOW_YIELDS.load(Relaxed) / 2, Relaxed);
    }
    if !slow {
        return false;
    }
    let slow_ones = SLOW_YIELDS.fetch_add(1, Relaxed) + 1;
    slow_ones >= 2 && slow_ones * 8 >= YIELDS.load(Relaxed) && slow_yield(at)
}

/// Notes a slow yield at `now`: spinning is off for the next back-off period, twice
/// the latest one if this yield came within that long of its end (the cores are still
/// taken), else [`SPIN_BACKOFF_MIN`]; never more than [`SPIN_BACKOFF`]. Returns `true`
/// (spinning is now off). Threads racing here may each set a period: any of them is
/// a fair estimate.
fn slow_yield(now: std::time::Instant) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let at = nanos(now);
    let (min, max) = (
        SPIN_BACKOFF_MIN.as_nanos() as u64,
        SPIN_BACKOFF.as_nanos() as u64,
    );
    let last = BACKOFF.load(Relaxed);
    let ended = CONTENDED_UNTIL.load(Relaxed);
    let period = if last > 0 && at < ended.saturating_add(last) {
        last.saturating_mul(2).clamp(min, max)
    } else {
        min
    };
    BACKOFF.store(period, Relaxed);
    CONTENDED_UNTIL.fetch_max(at.saturating_add(period), Relaxed);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test, so that no other test of this module changes the process-wide
    /// back-off in between (the sim's own waits may still set it: the first part
    /// retries until it ran without).
    #[test]
    fn a_spin_looks_until_ready_and_after_a_slow_yield_looks_once() {
        assert!(spin_until(SPIN, || true));
        let mut calls = 0;
        for _ in 0..1000 {
            CONTENDED_UNTIL.store(0, std::sync::atomic::Ordering::Relaxed);
            calls = 0;
            // Ready at the third look: within the first rounds, which never yield.
            if spin_until(std::time::Duration::from_secs(10), || {
                calls += 1;
                calls == 3
            }) {
                break;
            }
        }
        assert_eq!(calls, 3, "it looks again until ready");
        assert!(!spin_until(std::time::Duration::ZERO, || false));

        let now = std::time::Instant::now();
        assert!(slow_yield(now));
        assert!(contended(now));
        let mut calls = 0;
        let held = spin_until(std::time::Duration::from_secs(3600), || {
            calls += 1;
            false
        });
        assert!(!held);
        assert_eq!(calls, 1, "one look, then it returns to sleep");
        // Once the back-off has passed, spinning is on again.
        assert!(!contended(
            now + SPIN_BACKOFF + std::time::Duration::from_millis(1)
        ));

        // The period: the minimum after an isolated slow yield, doubled by each one
        // that follows soon after a period's end, never past the maximum.
        let ms = std::time::Duration::from_millis;
        let base = now + ms(1000);
        BACKOFF.store(0, std::sync::atomic::Ordering::Relaxed);
        CONTENDED_UNTIL.store(0, std::sync::atomic::Ordering::Relaxed);
        slow_yield(base);
        assert!(contended(base + SPIN_BACKOFF_MIN - ms(1)));
        assert!(!contended(base + SPIN_BACKOFF_MIN));
        let mut at = base + SPIN_BACKOFF_MIN + ms(1);
        let mut expect = SPIN_BACKOFF_MIN;
        for _ in 0..8 {
            slow_yield(at);
            expect = (expect * 2).min(SPIN_BACKOFF);
            assert!(
                contended(at + expect - ms(1)),
                "the period doubled to {expect:?}"
            );
            assert!(!contended(at + expect));
            at += expect + ms(1);
        }
        assert_eq!(expect, SPIN_BACKOFF, "it stops at the maximum");
        // Long after the last period: an isolated slow yield again.
        let later = at + ms(10_000);
        slow_yield(later);
        assert!(!contended(later + SPIN_BACKOFF_MIN));

        // Whether a slow yield turns spinning off follows the share of slow ones.
        let reset = || {
            YIELDS.store(0, std::sync::atomic::Ordering::Relaxed);
            SLOW_YIELDS.store(0, std::sync::atomic::Ordering::Relaxed);
        };
        reset();
        let t = later + ms(10_000);
        for _ in 0..200 {
            assert!(!note_yield(t, false), "fast yields never turn it off");
        }
        assert!(!note_yield(t, true), "one slow yield among many fast ones");
        for _ in 0..20 {
            assert!(!note_yield(t, false));
        }
        assert!(!note_yield(t, true), "two, among dozens");
        reset();
        let mut off = false;
        // (Other tests' yields may dilute the share meanwhile; it stays high enough.)
        for i in 0..1000 {
            off = note_yield(t, i % 4 == 0); // a quarter of them slow
            if off {
                break;
            }
        }
        assert!(off, "a quarter of the yields slow turns spinning off");
        assert!(contended(t));
    }
}
