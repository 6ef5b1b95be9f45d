//! The watchdog: a thread per group that settles completed works, fails those that
//! run past the timeout, and applies the group's policy. It holds the group weakly and
//! stops at once when the group is dropped.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;

use crate::state::{Inner, Outcome, lock};

impl Inner {
    /// One watchdog pass: note launches, settle completed works, time out old ones.
    fn watch(&self) {
        let works: Vec<_> = lock(&self.pending).iter().cloned().collect();
        for w in works {
            // Noted before completion is, so that a launch seen on this pass is in
            // the record even when the operation then completes.
            self.observe_launch(&w);
            match self.observe(&w) {
                Ok(true) => {}
                Ok(false) if w.enqueued.elapsed() > self.options.timeout => {
                    let err = self.timeout_error(&w, w.enqueued.elapsed());
                    self.fail(Some(&w), err, "watchdog timeout");
                }
                Ok(false) | Err(_) => {}
            }
        }
        lock(&self.pending).retain(|w| matches!(*lock(&w.outcome), Outcome::Pending));
    }
}

/// A running watchdog; stopping it wakes it at once.
pub(crate) struct Watchdog {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
    group: Weak<Inner>,
}

impl Watchdog {
    /// Starts watching `inner` every `options.watchdog_interval`.
    pub(crate) fn start(inner: &Arc<Inner>) -> Watchdog {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let weak: Weak<Inner> = Arc::downgrade(inner);
        let interval = inner.options.watchdog_interval;
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name(format!("nccl-rs-watchdog-{}", inner.options.name))
                .spawn(move || {
                    loop {
                        match weak.upgrade() {
                            Some(inner) => inner.watch(),
                            None => return,
                        }
                        let stopped = lock(&stop.0);
                        if *stopped {
                            return;
                        }
                        let (stopped, _) = stop
                            .1
                            .wait_timeout(stopped, interval)
                            .unwrap_or_else(|e| e.into_inner());
                        if *stopped {
                            return;
                        }
                    }
                })
                .ok()
        };
        inner.watched.store(thread.is_some(), Ordering::Release);
        Watchdog {
            stop,
            thread,
            group: Arc::downgrade(inner),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        *lock(&self.stop.0) = true;
        self.stop.1.notify_all();
        if let Some(h) = self.thread.take() {
            // Wakes at once and ends after at most one pass.
            let _ = h.join();
        }
        // Futures still awaiting the group's works re-arm with their own re-check
        // (nobody else will notice a remote failure now).
        if let Some(inner) = self.group.upgrade() {
            inner.watched.store(false, Ordering::Release);
            let works: Vec<_> = lock(&inner.pending).iter().cloned().collect();
            for w in works {
                w.notify();
            }
        }
    }
}
