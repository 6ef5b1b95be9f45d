//! How a failure is applied (in the order the docs of `state` give), and the aborts:
//! on request, for another rank's failure, on a drop that is not an orderly close.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use nccl_safe::AbortHandle;

use super::dumps::RAS_DEADLINE;
use super::{Failure, Inner, Outcome, Refusal, WorkState, lock};
use crate::Error;
use crate::hooks::HookPoint;
use crate::options::ErrorPolicy;
use crate::recorder::State;

/// Set once the first failure of a group has been published (or there was nothing
/// to publish to): other paths that fail the group wait for it before they wake
/// their waiters.
#[derive(Default)]
pub(crate) struct Published {
    done: Mutex<bool>,
    cv: Condvar,
}

impl Published {
    pub(crate) fn set(&self) {
        *lock(&self.done) = true;
        self.cv.notify_all();
    }

    /// Waits at most `limit` for the first publication.
    pub(crate) fn wait(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut done = lock(&self.done);
        while !*done {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            done = self
                .cv
                .wait_timeout(done, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// How long a second failure path waits for the first one's publication.
const PUBLISHED_WAIT: Duration = Duration::from_secs(3);

impl Inner {
    /// A failure: the policy first, then the works (their waiters wake), then the
    /// communicator's abort and the dumps in the background.
    pub(crate) fn fail(&self, culprit: Option<&WorkState>, err: Error, why: &str) {
        // The culprit is claimed first: from here on nothing settles it as done, and
        // no second path (the watchdog and a host-wait past its deadline at once)
        // reports it again. Its waiters wake once the hooks have run.
        if let Some(w) = culprit {
            if !w.begin_failing() {
                return; // already settled or being failed: reported once
            }
        }
        let _span = crate::trace::watchdog(&self.options.name, self.rank, why, &err);
        let timeout = matches!(err, Error::Timeout { .. });
        let first_abort = match self.options.on_error {
            ErrorPolicy::Abort => self.refuse(err.to_string()),
            ErrorPolicy::Shrink => self.refuse(format!(
                "{err}; ProcessGroup::shrink on every surviving rank makes the group of the \
                 survivors"
            )),
            // Report keeps the group for a late operation; a failed stream or
            // communicator cannot run anything again (the sim's and CUDA's errors are
            // sticky), so it refuses new work, saying why.
            ErrorPolicy::Report if !timeout => {
                self.refuse(format!(
                    "an operation failed and the communication stream cannot be used again: {err}"
                ));
                false
            }
            ErrorPolicy::Report => false,
        };
        log::error!("{err}");
        // The culprit's record says what happened to it before the record is taken.
        if let Some(w) = culprit {
            let state = if timeout {
                State::TimedOut
            } else {
                State::Failed
            };
            self.recorder.set_state(w.entry, state);
        }
        // The job's store hears of it first, before the dump, before any waiter
        // wakes and before the communicator aborts (which peers see): the first
        // failure published is the root cause, and a program that exits at once on
        // its error has published it.
        let first_abort = first_abort && !self.aborting.swap(true, Ordering::AcqRel);
        if first_abort {
            self.publish(err.to_string(), why, timeout);
        } else {
            // Another path is publishing the group's first failure: its waiters must
            // not wake (and perhaps exit) before that is done.
            self.published.wait(PUBLISHED_WAIT);
        }
        self.dump_asking_ras(&format!("{why}: {err}"), timeout);
        if timeout {
            self.ask_peers_to_dump(&err);
            let _ = self.hooks.run(HookPoint::OnTimeout, || {
                self.hook_event(HookPoint::OnTimeout, culprit, Some(err.to_string()))
            });
        }
        if first_abort {
            self.abort_hooks(culprit, &err.to_string());
        }
        if let Some(w) = culprit {
            w.finish_failing(err.clone());
        }
        if first_abort {
            self.fail_pending(&err.to_string());
            self.stop_comm_in_background(self.remote_cause());
        }
    }

    /// Publishes this rank's failure through the group's sink (a group of
    /// `from_env`), synchronously: whom it goes back to, if the communicator knows.
    fn publish(&self, reason: String, why: &str, timeout: bool) {
        let Some(sink) = self.sink.get() else {
            self.published.set();
            return;
        };
        let (cause, maybe_echo) = if timeout {
            (None, false)
        } else {
            match self.with_comm(|c| c.async_error()).unwrap_or(Ok(None)) {
                Ok(Some(nccl_safe::Error::Remote { rank, .. })) if rank != self.rank => {
                    (Some(rank), false)
                }
                Ok(Some(nccl_safe::Error::Nccl { code, .. })) => {
                    (None, code.0 == nccl_sys::ncclRemoteError)
                }
                _ => (None, false),
            }
        };
        sink.failed(Failure {
            reason,
            dump: self.snapshot(why),
            cause,
            maybe_echo,
        });
        self.published.set();
    }

    /// The other rank this rank's communicator failed because of, when it names one
    /// (so that peers that see this rank's abort are told whose failure it follows).
    fn remote_cause(&self) -> Option<usize> {
        match self.with_comm(|c| c.async_error()) {
            Some(Ok(Some(nccl_safe::Error::Remote { rank, .. }))) if rank != self.rank => {
                Some(rank)
            }
            _ => None,
        }
    }

    fn abort_comm_in_background(&self) {
        self.abort_comm_after(None, false);
    }

    /// Stops the communicator after a failure, as the policy says: revoked under
    /// [`ErrorPolicy::Shrink`] (so that it can be shrunk), else aborted.
    fn stop_comm_in_background(&self, cause: Option<usize>) {
        let revoke = self.options.on_error == ErrorPolicy::Shrink;
        self.abort_comm_after(cause, revoke);
    }

    /// Aborts (or with `revoke`, revokes) the communicator on a thread of its own;
    /// `cause`: the rank whose failure this follows, when known (the sim then names it
    /// to the peers). A revoke the loaded NCCL lacks is an abort (the group cannot be
    /// shrunk then; the shrink says so).
    fn abort_comm_after(&self, cause: Option<usize>, revoke: bool) {
        let run = move |abort: &AbortHandle| match (cause, revoke) {
            (_, true) => match cause.map_or_else(|| abort.revoke(), |c| abort.revoke_after(c)) {
                // (A group under ErrorPolicy::Shrink is refused where NCCL has no
                // revoke; this is the belt to that.)
                Err(e @ nccl_safe::Error::UnsupportedByNccl { .. }) => {
                    log::error!("revoke: {e}; aborting instead");
                    abort.abort()
                }
                // The communicator stays revoked; the shrink says what NCCL makes of it.
                other => other,
            },
            (Some(c), false) => abort.abort_after(c),
            (None, false) => abort.abort(),
        };
        let abort = self.abort.clone();
        let name = self.options.name.clone();
        let asking_ras = self.asking_ras.clone();
        let spawned = std::thread::Builder::new()
            .name("nccl-rs-abort".into())
            .spawn(move || {
                // A RAS query about this failure reads the communicator's state:
                // aborting it first would take it out of what RAS reports.
                asking_ras.wait(RAS_DEADLINE + Duration::from_millis(500));
                if let Err(e) = run(&abort) {
                    log::error!("group {name}: abort: {e}");
                }
            });
        if spawned.is_err() {
            let _ = run(&self.abort);
        }
    }

    /// The group's handle is dropped while its thread panics, or with operations in
    /// flight that nothing waits for any more (no `Work`, `WorkSet` or future of
    /// theirs is left: the program returned early): not an orderly close. Publishes
    /// it as this rank's failure (peers then stop waiting for operations this rank
    /// will never finish), dumps, fails what is pending and aborts. `false` when
    /// nothing was wrong or the group had failed already.
    pub(crate) fn fail_on_drop(&self) -> bool {
        let panicking = std::thread::panicking();
        let _ = self.in_flight(); // settles what has completed
        let (abandoned, oldest) = {
            let p = lock(&self.pending);
            // Nothing waits for it: never waited on (by a stream or the host), and
            // no handle left (only this list holds it).
            let mut left = p
                .iter()
                .filter(|w| !w.waited.load(Ordering::Acquire) && Arc::strong_count(w) == 1);
            let oldest = left
                .next()
                .map(|w| format!(" (the oldest: {} #{} at {})", w.op, w.seq, w.call_site));
            (oldest.iter().count() + left.count(), oldest)
        };
        if !panicking && abandoned == 0 {
            return false;
        }
        let reason = format!(
            "rank {} dropped its group {}{} with {abandoned} operation(s) in flight that \
             nothing waits for{}",
            self.rank,
            self.options.name,
            if panicking { " while panicking" } else { "" },
            oldest.unwrap_or_default(),
        );
        self.refuse(reason.clone());
        if self.aborting.swap(true, Ordering::AcqRel) {
            return false; // failed and aborted already: published then
        }
        log::error!("{reason}");
        self.publish(reason.clone(), "dropped", false);
        self.dump(&reason);
        self.abort_hooks(None, &reason);
        self.fail_pending(&reason);
        self.abort_comm_in_background();
        true
    }

    /// Refuses new work from now on; `true` the first time.
    pub(crate) fn refuse(&self, reason: String) -> bool {
        let mut r = lock(&self.refused);
        if r.is_some() {
            return false;
        }
        *r = Some(Refusal { reason });
        true
    }

    /// Fails `w`, launched as the group aborted, as the abort failed the others.
    pub(crate) fn fail_late_work(&self, w: &WorkState) {
        let reason = lock(&self.refused)
            .as_ref()
            .map_or_else(|| "the group aborted".to_string(), |r| r.reason.clone());
        self.fail_aborted(w, &reason);
    }

    /// Fails `w` with [`Error::Aborted`] for `reason` (if it is still pending).
    fn fail_aborted(&self, w: &WorkState, reason: &str) {
        let aborted = Error::Aborted {
            group: self.options.name.clone(),
            rank: self.rank,
            op: w.op.to_string(),
            seq: w.seq,
            call_site: w.call_site.to_string(),
            reason: reason.to_string(),
        };
        if w.settle(Outcome::Failed(aborted)) {
            self.recorder.set_state(w.entry, State::Failed);
        }
    }

    /// Fails every pending work as aborted (their waiters wake).
    pub(crate) fn fail_pending(&self, reason: &str) {
        let pending: Vec<_> = lock(&self.pending).drain(..).collect();
        for w in pending {
            self.fail_aborted(&w, reason);
        }
    }

    /// Aborts the group now (local): refuses new work, fails the pending, aborts the
    /// communicator in the background.
    /// [`ProcessGroup::abort`](crate::ProcessGroup::abort): publishes it as this
    /// rank's failure (a group of `from_env`), dumps, then aborts the group.
    pub(crate) fn abort_on_request(&self, reason: &str) {
        log::error!(
            "group {} rank {}: aborted: {reason}",
            self.options.name,
            self.rank
        );
        let text = format!("rank {} aborted its group on request: {reason}", self.rank);
        self.refuse(reason.to_string());
        if !self.aborting.swap(true, Ordering::AcqRel) {
            self.publish(text.clone(), "aborted on request", false);
            self.dump(&text);
            self.abort_hooks(None, &text);
            self.fail_pending(reason);
            self.abort_comm_in_background();
        } else {
            self.fail_pending(reason);
        }
    }

    /// Aborts the group for another rank's failure (seen through the store):
    /// `cause`, the rank it goes back to.
    pub(crate) fn abort_group(&self, reason: &str, cause: Option<usize>) {
        let _span = crate::trace::watchdog(&self.options.name, self.rank, "abort", &reason);
        self.refuse(reason.to_string());
        let first = !self.aborting.swap(true, Ordering::AcqRel);
        if let (true, Some(c)) = (first, cause) {
            // Before any waiter wakes (the program may exit at once): peers that see
            // this rank's process end then blame `c`, not this rank. The abort itself
            // may come later (it waits for a RAS query).
            self.abort.note_cause(c);
        }
        if first {
            self.abort_hooks(None, reason);
        }
        self.settle_completed();
        self.fail_pending(reason);
        if first {
            self.published.set(); // nothing of this rank's own to publish
            self.stop_comm_in_background(cause);
        }
    }
}
