//! The process-wide timer of the futures: one thread that wakes a [`Waker`] at an
//! instant (a future's deadline, or its re-check when no watchdog runs). No async
//! runtime is needed; the thread starts on first use and sleeps while nothing is due.
//! A future cancels its entry when it resolves or is dropped, so nothing is kept for
//! a future that is gone.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::Waker;
use std::time::Instant;

use crate::state::lock;

/// An entry of the timer: its instant and a number unique in the process.
pub(crate) type TimerKey = (Instant, u64);

#[derive(Default)]
struct Queue {
    due: BTreeMap<TimerKey, Waker>,
    next: u64,
}

struct Timer {
    queue: Mutex<Queue>,
    changed: Condvar,
    /// Whether the thread started (if it could not, wakers are woken at once).
    running: bool,
}

fn timer() -> &'static Timer {
    static T: OnceLock<Timer> = OnceLock::new();
    T.get_or_init(|| {
        let running = std::thread::Builder::new()
            .name("nccl-rs-timer".into())
            .spawn(run)
            .is_ok();
        if !running {
            log::error!("cannot start the timer thread: futures re-poll at once");
        }
        Timer {
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
            running,
        }
    })
}

/// The thread: wakes what is due, then sleeps until the next instant or a new
/// earlier one. Wakers are woken with no lock held.
fn run() {
    let t = timer();
    let mut q = lock(&t.queue);
    loop {
        let now = Instant::now();
        let mut due = Vec::new();
        while let Some(entry) = q.due.first_entry() {
            if entry.key().0 > now {
                break;
            }
            due.push(entry.remove());
        }
        if !due.is_empty() {
            drop(q);
            due.into_iter().for_each(Waker::wake);
            q = lock(&t.queue);
            continue;
        }
        q = match q.due.keys().next().map(|k| k.0 - now) {
            Some(d) => {
                t.changed
                    .wait_timeout(q, d)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => t.changed.wait(q).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

/// Wakes `waker` at `at`; the key cancels it. Without a timer thread (it could not
/// start) the waker is woken at once and `None` comes back.
pub(crate) fn wake_at(at: Instant, waker: &Waker) -> Option<TimerKey> {
    let t = timer();
    if !t.running {
        waker.wake_by_ref();
        return None;
    }
    let mut q = lock(&t.queue);
    let earliest = q.due.keys().next().is_none_or(|k| at < k.0);
    let key = (at, q.next);
    q.next += 1;
    q.due.insert(key, waker.clone());
    drop(q);
    if earliest {
        t.changed.notify_one();
    }
    Some(key)
}

/// Cancels an entry (nothing happens if it already fired).
pub(crate) fn cancel(key: TimerKey) {
    lock(&timer().queue).due.remove(&key);
}

/// Whether an entry waits in the timer.
#[cfg(test)]
pub(crate) fn is_armed(key: TimerKey) -> bool {
    lock(&timer().queue).due.contains_key(&key)
}
