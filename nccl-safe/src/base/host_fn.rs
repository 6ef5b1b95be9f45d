//! The host-function rule: CUDA forbids any driver call from a host function
//! (`cuLaunchHostFunc`). A closure given to `Stream::launch_host_fn` may still own
//! library objects (a buffer, a stream, an event, a device) whose drop would make such
//! calls; those drops are moved to a reaper thread instead. The sim checks the rule
//! (its driver entry points refuse calls made from a host function, and fail the
//! stream that ran it).
//!
//! A leaf: both drivers and the public types depend on it.

use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, OnceLock};

thread_local! {
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    static VIOLATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks this thread as running a host function until dropped.
pub(crate) struct Inside {
    was: bool,
}

impl Inside {
    pub(crate) fn enter() -> Inside {
        VIOLATION.with(|v| v.borrow_mut().take());
        Inside {
            was: INSIDE.with(|c| c.replace(true)),
        }
    }

    /// The first driver call the host function made, if any (the sim records them).
    pub(crate) fn violation(&self) -> Option<String> {
        VIOLATION.with(|v| v.borrow_mut().take())
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|c| c.set(self.was));
    }
}

/// The first driver call the running host function made, if any, left in place for
/// [`Inside::violation`].
pub(crate) fn peek_violation() -> Option<String> {
    VIOLATION.with(|v| v.borrow().clone())
}

/// Driver calls refused inside host functions, process-wide.
static REFUSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many driver calls this process refused because a host function made them.
///
/// CUDA forbids driver calls inside host functions ([`crate::Stream::launch_host_fn`]);
/// the library moves the drops of its own handles out of them (to a reaper thread),
/// so this stays 0 unless a closure called into the library itself. Such a call is
/// refused with [`crate::Error::InvalidUsage`] and fails the stream that ran the
/// host function.
pub fn refused_host_fn_calls() -> usize {
    REFUSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether this thread is running a host function.
pub(crate) fn inside() -> bool {
    INSIDE.with(Cell::get)
}

/// Checks the rule at a driver entry point: outside a host function `Ok`; inside, the
/// call is recorded as a violation (the sim fails the host function's stream with it)
/// and refused.
pub(crate) fn check(op: &'static str) -> crate::Result<()> {
    if !inside() {
        return Ok(());
    }
    REFUSED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let reason = format!(
        "{op} was called from a host function; CUDA forbids driver calls in host functions \
         (cuLaunchHostFunc): do the work after the stream reaches the host function, not \
         inside it"
    );
    VIOLATION.with(|v| {
        v.borrow_mut().get_or_insert_with(|| reason.clone());
    });
    Err(crate::Error::InvalidUsage { op, reason })
}

type Job = Box<dyn FnOnce() + Send>;

/// The reaper's queue, and whether a reaper thread is draining it.
struct Reaper {
    jobs: std::collections::VecDeque<Job>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn reaper() -> &'static Mutex<Reaper> {
    static REAPER: OnceLock<Mutex<Reaper>> = OnceLock::new();
    REAPER.get_or_init(|| {
        Mutex::new(Reaper {
            jobs: std::collections::VecDeque::new(),
            thread: None,
        })
    })
}

/// Runs `job` on the reaper thread, never on this one. The reaper is started when
/// there is work and ends when the queue is empty, so no thread of the library is
/// left running at exit.
pub(crate) fn defer(job: Job) {
    let mut r = crate::sync::lock(reaper());
    r.jobs.push_back(job);
    if r.thread.as_ref().is_some_and(|t| !t.is_finished()) {
        return; // the running reaper takes it before it ends (it looks under the lock)
    }
    let spawned = std::thread::Builder::new()
        .name("nccl-rs-reaper".into())
        .spawn(|| {
            loop {
                let job = {
                    let mut r = crate::sync::lock(reaper());
                    match r.jobs.pop_front() {
                        Some(j) => j,
                        None => {
                            // Ends under the lock: a job queued after this sees the
                            // thread finishing and starts another.
                            r.thread = None;
                            return;
                        }
                    }
                };
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
        });
    match spawned {
        Ok(t) => r.thread = Some(t),
        Err(e) => {
            // No reaper: leaking is the only option that makes no driver call here.
            log::error!("cannot start the reaper thread ({e}); deferred drops leak");
            std::mem::forget(r.jobs.pop_back());
        }
    }
}

/// Waits until the reaper has nothing left to do (tests).
#[cfg(test)]
fn wait_idle() {
    loop {
        let t = crate::sync::lock(reaper()).thread.take();
        match t {
            Some(t) => {
                let _ = t.join();
            }
            None => return,
        }
    }
}

/// Owns a `T` whose drop makes driver calls; dropped inside a host function, the `T`
/// goes to the reaper thread instead.
pub(crate) struct Deferred<T: Send + 'static>(ManuallyDrop<T>);

impl<T: Send + 'static> Deferred<T> {
    pub(crate) fn new(value: T) -> Deferred<T> {
        Deferred(ManuallyDrop::new(value))
    }
}

impl<T: Send + 'static> Deref for Deferred<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + 'static> DerefMut for Deferred<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Send + 'static> Drop for Deferred<T> {
    fn drop(&mut self) {
        // SAFETY: taken exactly once, here; the field is never used again.
        let value = unsafe { ManuallyDrop::take(&mut self.0) };
        if inside() {
            defer(Box::new(move || drop(value)));
        } else {
            drop(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Sender, channel};

    #[test]
    fn calls_inside_are_refused_and_recorded_and_drops_are_deferred() {
        assert!(check("outside").is_ok());
        let (tx, rx) = channel();
        struct Probe(Sender<String>);
        impl Drop for Probe {
            fn drop(&mut self) {
                let name = std::thread::current().name().unwrap_or("").to_string();
                let _ = self.0.send(name);
            }
        }
        let owned = Deferred::new(Probe(tx));
        {
            let guard = Inside::enter();
            let e = check("stream synchronize").unwrap_err();
            assert!(e.to_string().contains("host function"), "{e}");
            assert!(guard.violation().unwrap().contains("stream synchronize"));
            drop(owned);
        }
        assert!(!inside());
        let dropped_on = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert_eq!(dropped_on, "nccl-rs-reaper");
        wait_idle();
        assert!(
            lock_reaper_is_idle(),
            "the reaper ends when its queue is empty"
        );
    }

    fn lock_reaper_is_idle() -> bool {
        let r = crate::sync::lock(reaper());
        r.jobs.is_empty() && r.thread.is_none()
    }
}
