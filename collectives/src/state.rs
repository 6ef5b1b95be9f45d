//! The state a process group shares with its works and its watchdog, and how a failure
//! is applied: recorded, dumped, the policy carried out, the works concerned failed.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nccl_safe::{AbortHandle, Communicator, Device, DeviceBuffer, Event, Stream};

use crate::options::{ErrorPolicy, Options};
use crate::recorder::{Dump, FlightRecorder, State};
use crate::{Error, Result};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    Pending,
    Done,
    Failed(Error),
}

pub(crate) struct WorkState {
    pub(crate) op: String,
    pub(crate) seq: u64,
    pub(crate) call_site: String,
    pub(crate) entry: u64,
    pub(crate) event: Event,
    pub(crate) enqueued: Instant,
    pub(crate) outcome: Mutex<Outcome>,
    pub(crate) changed: Condvar,
}

impl WorkState {
    pub(crate) fn settle(&self, outcome: Outcome) -> bool {
        let mut o = lock(&self.outcome);
        if matches!(*o, Outcome::Pending) {
            *o = outcome;
            self.changed.notify_all();
            true
        } else {
            false
        }
    }
}

pub(crate) struct Inner {
    pub(crate) options: Options,
    pub(crate) rank: usize,
    pub(crate) size: usize,
    pub(crate) device: Device,
    pub(crate) comm: Communicator,
    pub(crate) abort: AbortHandle,
    pub(crate) stream: Stream,
    pub(crate) recorder: FlightRecorder,
    pub(crate) seq: AtomicU64,
    pub(crate) p2p_seq: Mutex<HashMap<(usize, bool), u64>>,
    pub(crate) pending: Mutex<VecDeque<Arc<WorkState>>>,
    pub(crate) aborted: Mutex<Option<String>>,
    pub(crate) ready: AtomicBool,
    pub(crate) barrier: Mutex<Option<DeviceBuffer<u8>>>,
}

impl Inner {
    pub(crate) fn group_aborted(&self) -> Option<Error> {
        lock(&self.aborted)
            .as_ref()
            .map(|reason| Error::GroupAborted {
                group: self.options.name.clone(),
                rank: self.rank,
                reason: reason.clone(),
            })
    }

    pub(crate) fn timeout_error(&self, w: &WorkState, waited: Duration) -> Error {
        Error::Timeout {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.clone(),
            seq: w.seq,
            waited,
            call_site: w.call_site.clone(),
        }
    }

    /// Looks at one work: settles it when done or failed; `Ok(true)` when done.
    pub(crate) fn observe(&self, w: &WorkState) -> Result<bool> {
        match lock(&w.outcome).clone() {
            Outcome::Done => return Ok(true),
            Outcome::Failed(e) => return Err(e),
            Outcome::Pending => {}
        }
        let failed = |reason: String| Error::Failed {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.clone(),
            seq: w.seq,
            call_site: w.call_site.clone(),
            reason,
        };
        match w.event.query() {
            Ok(true) => {
                // The event completes even after a failed operation on the sim: the
                // stream's sticky error tells.
                if let Err(e) = self.stream.query() {
                    let err = failed(e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    return Err(err);
                }
                if w.settle(Outcome::Done) {
                    self.recorder.set_state(w.entry, State::Completed);
                }
                Ok(true)
            }
            Ok(false) => match self.comm.async_error() {
                Ok(None) => Ok(false),
                Ok(Some(e)) | Err(e) => {
                    let err = failed(e.to_string());
                    self.fail(Some(w), err.clone(), "asynchronous error");
                    Err(err)
                }
            },
            Err(e) => {
                let err = failed(e.to_string());
                self.fail(Some(w), err.clone(), "asynchronous error");
                Err(err)
            }
        }
    }

    /// A failure: record and dump it, apply the policy, fail the works concerned.
    pub(crate) fn fail(&self, culprit: Option<&WorkState>, err: Error, why: &str) {
        if let Some(w) = culprit {
            let state = if matches!(err, Error::Timeout { .. }) {
                State::TimedOut
            } else {
                State::Failed
            };
            self.recorder.set_state(w.entry, state);
            w.settle(Outcome::Failed(err.clone()));
        }
        log::error!("{err}");
        self.dump(&format!("{why}: {err}"));
        if self.options.on_error == ErrorPolicy::Abort {
            self.abort_group(&err.to_string());
        }
    }

    /// Aborts the communicator (once), fails every pending work, refuses new ones.
    pub(crate) fn abort_group(&self, reason: &str) {
        let first = {
            let mut a = lock(&self.aborted);
            let first = a.is_none();
            a.get_or_insert_with(|| reason.to_string());
            first
        };
        if first {
            if let Err(e) = self.abort.abort() {
                log::error!("group {}: abort failed: {e}", self.options.name);
            }
        }
        let pending: Vec<_> = lock(&self.pending).drain(..).collect();
        for w in pending {
            let aborted = Error::Aborted {
                group: self.options.name.clone(),
                rank: self.rank,
                op: w.op.clone(),
                seq: w.seq,
                call_site: w.call_site.clone(),
                reason: reason.to_string(),
            };
            if w.settle(Outcome::Failed(aborted)) {
                self.recorder.set_state(w.entry, State::Failed);
            }
        }
    }

    pub(crate) fn dump(&self, reason: &str) -> Option<PathBuf> {
        let dir = self.options.dump_dir.as_ref()?;
        let dump = self.snapshot(reason);
        match FlightRecorder::dump_to(dir, &dump) {
            Ok(path) => {
                log::error!(
                    "group {}: flight recorder dumped to {}",
                    self.options.name,
                    path.display()
                );
                Some(path)
            }
            Err(e) => {
                log::error!(
                    "group {}: flight recorder dump failed: {e}",
                    self.options.name
                );
                None
            }
        }
    }

    pub(crate) fn snapshot(&self, reason: &str) -> Dump {
        self.recorder.dump(
            &self.options.name,
            self.rank,
            self.size,
            &self.device.driver().to_string(),
            reason,
        )
    }

    pub(crate) fn ensure_ready(&self) -> Result<()> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(());
        }
        self.comm.wait_ready(self.options.timeout)?;
        self.ready.store(true, Ordering::Release);
        Ok(())
    }

    /// Waits, under the timeout, until fewer than the cap are in flight.
    pub(crate) fn make_room(&self) -> Result<()> {
        let start = Instant::now();
        loop {
            let oldest = {
                let mut p = lock(&self.pending);
                p.retain(|w| matches!(*lock(&w.outcome), Outcome::Pending));
                if p.len() < self.options.max_in_flight {
                    return Ok(());
                }
                p.front().cloned()
            };
            if let Some(w) = oldest {
                let left = self.options.timeout.saturating_sub(start.elapsed());
                if left.is_zero() {
                    return Err(Error::InFlightCap {
                        group: self.options.name.clone(),
                        rank: self.rank,
                        in_flight: lock(&self.pending).len(),
                        cap: self.options.max_in_flight,
                        waited: start.elapsed(),
                    });
                }
                let _ = w
                    .event
                    .synchronize_timeout(left.min(Duration::from_millis(20)));
                let _ = self.observe(&w);
            }
        }
    }
}
