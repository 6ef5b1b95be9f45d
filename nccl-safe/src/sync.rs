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

/// Counts of recent yields and of the slow ones among them; both halve whenever the
/// count reaches [`YIELD_WINDOW`], so they describe the last few dozen yields.
struct YieldShare {
    yields: std::sync::atomic::AtomicU32,
    slow: std::sync::atomic::AtomicU32,
}

impl YieldShare {
    const fn new() -> YieldShare {
        YieldShare {
            yields: std::sync::atomic::AtomicU32::new(0),
            slow: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// Counts a yield (`slow`: it took more than [`CONTENDED_YIELD`]); returns
    /// whether at least an eighth of the recent yields were slow (two at least).
    fn note(&self, slow: bool) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if self.yields.fetch_add(1, Relaxed) + 1 >= YIELD_WINDOW {
            // Races may lose a count: the share stays approximate, as it need be.
            self.yields.store(YIELD_WINDOW / 2, Relaxed);
            self.slow.store(self.slow.load(Relaxed) / 2, Relaxed);
        }
        if !slow {
            return false;
        }
        let slow_ones = self.slow.fetch_add(1, Relaxed) + 1;
        slow_ones >= 2 && slow_ones * 8 >= self.yields.load(Relaxed)
    }
}

/// The process's recent yields.
static YIELDS: YieldShare = YieldShare::new();

/// How many recent yields the share of slow ones is taken over.
const YIELD_WINDOW: u32 = 64;

/// Counts a yield that came back at `at` (`slow`: after more than
/// [`CONTENDED_YIELD`]); returns whether spinning is now off. Spinning turns off when
/// at least an eighth of the recent yields were slow: on cores taken by other
/// processes most yields are, while a rare slow one (this process's own threads, busy
/// for a millisecond) turned spinning off, when it did at each, for about 40% of the
/// waits of 4 thread ranks alone on 2 cores.
fn note_yield(at: std::time::Instant, slow: bool) -> bool {
    YIELDS.note(slow) && slow_yield(at)
}

/// Notes a slow yield at `now`: spinning is off for the next back-off period, twice
/// the latest one if this yield came within that long of its end (the cores are still
/// taken), else [`SPIN_BACKOFF_MIN`]; never more than [`SPIN_BACKOFF`]. Returns `true`
/// (spinning is now off). Threads racing here may each set a period: any of them is
/// a fair estimate.
fn slow_yield(now: std::time::Instant) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let at = nanos(now);
    let period = next_period(at, BACKOFF.load(Relaxed), CONTENDED_UNTIL.load(Relaxed));
    BACKOFF.store(period, Relaxed);
    CONTENDED_UNTIL.fetch_max(at.saturating_add(period), Relaxed);
    true
}

/// The back-off period (nanoseconds) after a slow yield at `at`, when the latest
/// period lasted `last` and ends (or ended) at `ended`.
fn next_period(at: u64, last: u64, ended: u64) -> u64 {
    let (min, max) = (
        SPIN_BACKOFF_MIN.as_nanos() as u64,
        SPIN_BACKOFF.as_nanos() as u64,
    );
    if last > 0 && at < ended.saturating_add(last) {
        last.saturating_mul(2).clamp(min, max)
    } else {
        min
    }
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

        use std::sync::atomic::Ordering::Relaxed;
        let now = std::time::Instant::now();
        assert!(slow_yield(now));
        assert!(contended(now));
        // Held off for good while the next part looks (a back-off of 4 ms could pass
        // before it starts, on a busy machine).
        CONTENDED_UNTIL.store(u64::MAX, Relaxed);
        let mut calls = 0;
        let held = spin_until(std::time::Duration::from_secs(3600), || {
            calls += 1;
            false
        });
        assert!(!held);
        assert_eq!(calls, 1, "one look, then it returns to sleep");
        // The rest of this binary's tests spin again.
        CONTENDED_UNTIL.store(0, Relaxed);
        BACKOFF.store(0, Relaxed);
        assert!(!contended(std::time::Instant::now()));
    }

    #[test]
    fn the_back_off_doubles_while_yields_stay_slow_and_starts_over_after_a_pause() {
        let ns = |d: std::time::Duration| d.as_nanos() as u64;
        let (min, max) = (ns(SPIN_BACKOFF_MIN), ns(SPIN_BACKOFF));
        let ms = 1_000_000u64;
        assert_eq!(next_period(5 * ms, 0, 0), min, "the first one");
        // Each slow yield within a period's length of the last one's end doubles it.
        let (mut at, mut last, mut ended) = (5 * ms, min, 5 * ms + min);
        for _ in 0..8 {
            at = ended + ms;
            let p = next_period(at, last, ended);
            assert_eq!(p, (last * 2).min(max));
            (last, ended) = (p, at + p);
        }
        assert_eq!(last, max, "it stops at the maximum");
        // Long after a period: the minimum again.
        assert_eq!(next_period(ended + last + ms, last, ended), min);
        assert_eq!(next_period(at + 10_000 * ms, last, ended), min);
    }

    #[test]
    fn spinning_turns_off_only_when_an_eighth_of_the_recent_yields_were_slow() {
        let share = YieldShare::new();
        for _ in 0..200 {
            assert!(!share.note(false), "fast yields never turn it off");
        }
        assert!(!share.note(true), "one slow yield among many fast ones");
        for _ in 0..20 {
            assert!(!share.note(false));
        }
        assert!(!share.note(true), "two, among dozens");
        // A quarter of them slow: off within the first few slow ones.
        let share = YieldShare::new();
        let first = (0..64).position(|i| share.note(i % 4 == 0));
        assert_eq!(first, Some(4), "the second slow yield, 2 of 5");
        // An old burst of slow yields fades as fast ones follow.
        let share = YieldShare::new();
        for _ in 0..6 {
            share.note(true);
        }
        for _ in 0..200 {
            share.note(false);
        }
        assert!(!share.note(true));
    }
}
