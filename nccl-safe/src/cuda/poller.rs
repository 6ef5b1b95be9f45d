//! Completion callbacks on the cuda driver: a thread per device polls the events of
//! pending callbacks (`cuEventQuery`), napping 20 µs when it starts polling (an idle
//! poller sleeps on a condition variable until a callback arrives) or after one
//! completes, doubling the nap up to 1 ms while none completes, and runs each callback
//! when its event completes. No stream ever waits
//! for it (unlike `cuLaunchHostFunc`, which holds the stream until the host function
//! has run).

use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Duration;

use super::{CudaDevice, CudaEvent};
use crate::sync::lock;

type Callback = Box<dyn FnOnce() + Send>;

/// Whether the watched work has completed (or can no longer be queried).
type Done = Box<dyn Fn() -> bool + Send>;

#[derive(Default)]
struct Pending {
    items: Vec<(Done, Callback)>,
}

/// One device's poller.
pub(crate) struct Poller {
    pending: Mutex<Pending>,
    wake: Condvar,
}

impl Poller {
    /// The poller of `device`, started on first use.
    pub(crate) fn of(device: &Arc<CudaDevice>) -> Arc<Poller> {
        device
            .poller
            .get_or_init(|| {
                let poller = Arc::new(Poller {
                    pending: Mutex::new(Pending::default()),
                    wake: Condvar::new(),
                });
                let weak = Arc::downgrade(&poller);
                let spawned = std::thread::Builder::new()
                    .name(format!("nccl-rs-cuda{}-poller", device.ordinal))
                    .spawn(move || run(weak));
                if let Err(e) = spawned {
                    log::error!(
                        "cuda:{}: cannot start the event poller: {e}",
                        device.ordinal
                    );
                }
                poller
            })
            .clone()
    }

    /// Runs `f` once `event` completes (or fails to be queried).
    pub(crate) fn add(&self, event: CudaEvent, f: Callback) {
        self.add_query(Box::new(move || !matches!(event.query(), Ok(false))), f);
    }

    /// Runs `f` once `done` says so (it owns what it queries).
    pub(crate) fn add_query(&self, done: Done, f: Callback) {
        let was_idle = {
            let mut pending = lock(&self.pending);
            let idle = pending.items.is_empty();
            pending.items.push((done, f));
            idle
        };
        // The poller sleeps on the condition variable only when it found no items
        // (under this lock): waking it for an item added beside others would cost a
        // system call per callback, one per `Work` of a process group.
        if was_idle {
            self.wake.notify_one();
        }
    }
}

fn run(poller: Weak<Poller>) {
    let mut nap = Duration::from_micros(20);
    loop {
        let Some(p) = poller.upgrade() else { return };
        let ready: Vec<Callback> = {
            let mut pending = lock(&p.pending);
            if pending.items.is_empty() {
                nap = Duration::from_micros(20);
                let (guard, _) = p
                    .wake
                    .wait_timeout(pending, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner());
                pending = guard;
            }
            let (done, left): (Vec<_>, Vec<_>) = std::mem::take(&mut pending.items)
                .into_iter()
                .partition(|(done, _)| done());
            pending.items = left;
            done.into_iter().map(|(_, f)| f).collect()
        };
        let any = !ready.is_empty();
        for f in ready {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        }
        drop(p);
        if any {
            nap = Duration::from_micros(20);
        } else {
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(1));
        }
    }
}

/// Where a device keeps its poller.
pub(crate) type PollerCell = OnceLock<Arc<Poller>>;
