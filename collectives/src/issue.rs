//! Issuing one operation: the one path every operation of a [`ProcessGroup`] takes
//! (the issuing thread's mark, readiness, room, hooks, the flight record, the NaN
//! scan, the launch, the `Work`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use nccl_safe::{CallLabel, Communicator, Stream};

use crate::finite::Scan;
use crate::hooks::{HookEvent, HookOp, HookPoint};
use crate::process_group::{OpInfo, ProcessGroup};
use crate::recorder::{Record, State, now_ms};
use crate::state::{Caller, Inner, Outcome, WorkState, lock};
use crate::work::Work;
use crate::{Error, Result};

/// The operations that are one NCCL collective, launched last in their call: they
/// get a launch-completion event under
/// [`Options::launch_events`](crate::Options::launch_events), and their `Work`
/// completes with the event recorded after their launch (`with_completion_event`).
/// An operation that enqueues anything after its launch must not be listed.
const SINGLE_LAUNCH_OPS: [&str; 8] = [
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
    "gather",
    "scatter",
];

/// The last call site asked for (the address of its `Location`, its text), and every
/// one so far.
type Sites = (usize, Option<Arc<str>>, HashMap<usize, Arc<str>>);

thread_local! {
    /// The call sites this thread has issued from, as text (`file:line`), by the
    /// address of their `Location`: formatted once per site, then shared; and the
    /// last one asked for, which a loop asks for again.
    static SITES: RefCell<Sites> = RefCell::new((0, None, HashMap::new()));
}

/// `site` as `file:line`, shared: an operation's call site goes into its flight
/// record, its `Work`, its label and the issuing mark, and a program issues from a
/// few sites many times, so each site's text is made once per thread.
pub(crate) fn call_site_of(site: &'static Location<'static>) -> Arc<str> {
    let key = std::ptr::from_ref(site) as usize;
    let text = || Arc::from(format!("{}:{}", site.file(), site.line()));
    // While this thread's locals are being destroyed, made afresh each time.
    SITES
        .try_with(|m| {
            let (last_key, last, all) = &mut *m.borrow_mut();
            if let Some(text) = last.as_ref().filter(|_| *last_key == key) {
                return text.clone();
            }
            let made = all.entry(key).or_insert_with(text).clone();
            (*last_key, *last) = (key, Some(made.clone()));
            made
        })
        .unwrap_or_else(|_| text())
}

/// The label the sim keeps beside an operation for mismatch messages: `op #seq at
/// site (rank r of group)`, its text around the number made once per operation and
/// site: the sim writes the digits into its record of the operation, and formats the
/// whole only for a message.
fn label_of(inner: &Inner, op: &'static str, seq: u64, call_site: &Arc<str>) -> CallLabel {
    let (head, tail) = lock(&inner.labels).parts(op, call_site, || {
        let head = Arc::from(format!("{op} #"));
        let tail = Arc::from(format!(
            " at {call_site} (rank {} of {})",
            inner.rank, inner.options.name
        ));
        (head, tail)
    });
    CallLabel::numbered(head, seq, tail)
}

impl ProcessGroup {
    /// Marks this thread as issuing; refuses a second thread, and a switch of threads
    /// while the first one's operations are in flight (the ranks could not agree on
    /// one order of calls made from several threads).
    pub(crate) fn enter(&self, site: &Arc<str>) -> Result<Issuing<'_>> {
        let inner = &self.inner;
        let me = std::thread::current().id();
        let mut cur = lock(&inner.issuing);
        if let Some(c) = &*cur {
            if c.thread == me {
                return Ok(Issuing {
                    inner,
                    outer: false,
                }); // a warm-up inside a call
            }
            return Err(Error::ConcurrentUse {
                group: inner.options.name.clone(),
                rank: inner.rank,
                call_site: site.to_string(),
                other_call_site: c.site.to_string(),
                reason: "two threads issued operations at the same time; every rank must \
                         issue them in one order, which threads cannot guarantee"
                    .into(),
            });
        }
        // A switch of threads is checked with no lock held: `in_flight` settles what
        // completed, which runs hooks.
        let switched = lock(&inner.last_issuer)
            .as_ref()
            .filter(|l| l.thread != me && !inner.turns.load(Ordering::Acquire))
            .map(|l| l.site.to_string());
        *cur = Some(Caller {
            thread: me,
            site: site.clone(),
        });
        drop(cur);
        if let Some(other_call_site) = switched {
            if inner.in_flight() > 0 {
                // Refused: the mark goes, and the last issuer stays the other thread.
                lock(&inner.issuing).take();
                return Err(Error::ConcurrentUse {
                    group: inner.options.name.clone(),
                    rank: inner.rank,
                    call_site: site.to_string(),
                    other_call_site,
                    reason: "another thread's operations are still in flight; wait for them \
                             before issuing from this thread (the ranks must see one order)"
                        .into(),
                });
            }
        }
        Ok(Issuing { inner, outer: true })
    }

    /// Issues one operation: readiness, room, record, enqueue, a Work. A refused call
    /// takes no sequence number and leaves nothing in the flight record.
    pub(crate) fn submit(
        &self,
        info: OpInfo,
        enqueue: impl FnOnce(&Communicator, &Stream) -> nccl_safe::Result<()>,
    ) -> Result<Work> {
        self.submit_scanned(info, |c, s, _| enqueue(c, s))
    }

    /// [`ProcessGroup::submit`], where `enqueue` may scan its input first
    /// ([`Scan::input`], for [`Options::check_finite`]).
    pub(crate) fn submit_scanned(
        &self,
        info: OpInfo,
        enqueue: impl FnOnce(&Communicator, &Stream, &mut Scan<'_>) -> nccl_safe::Result<()>,
    ) -> Result<Work> {
        let OpInfo {
            op,
            dtype,
            count,
            out_count,
            root,
            p2p,
            one_sided,
            site,
            library,
        } = info;
        let inner = &self.inner;
        let call_site: Arc<str> = match library {
            Some(step) => Arc::from(step),
            None => call_site_of(site),
        };
        let _issuing = self.enter(&call_site)?;
        if let Some(e) = inner.refusal(op, &call_site) {
            return Err(e);
        }
        if !inner.ready.load(Ordering::Acquire) {
            inner.ensure_ready()?;
            self.connect()?;
        }
        inner.make_room()?;
        let (seq, p2p_key) = match (p2p, library) {
            (Some((peer, send)), _) => {
                let n = *lock(&inner.p2p_seq).get(&(peer, send)).unwrap_or(&0);
                (n, Some((peer, n)))
            }
            (None, _) if one_sided.is_some() => {
                let peer = one_sided.unwrap_or_default();
                let n = *lock(&inner.one_sided_seq).get(&(peer, op)).unwrap_or(&0);
                (n, Some((peer, n)))
            }
            (None, Some(_)) => (0, None),
            (None, None) => (inner.seq.load(Ordering::Acquire), None),
        };
        let hooked = inner.hooks.run(HookPoint::BeforeIssue, || HookEvent {
            point: HookPoint::BeforeIssue,
            group: inner.options.name.clone(),
            rank: inner.rank,
            op: Some(HookOp {
                op: op.to_string(),
                seq,
                call_site: call_site.to_string(),
                dtype: dtype.to_string(),
                count,
                age: Duration::ZERO,
            }),
            reason: None,
        });
        // A hook (this one, or one that ran while room was made) may have aborted the
        // group: nothing is launched then.
        if hooked || inner.hooks.any() {
            if let Some(e) = inner.refusal(op, &call_site) {
                return Err(e);
            }
        }
        let _span = crate::trace::collective(
            &inner.options.name,
            inner.rank,
            op,
            seq,
            count * dtype.size(),
            &call_site,
        );
        // A launch-completion event, for the collectives NCCL launches as one call
        // (not point-to-point, the v-collectives, graphs, `grouped` or the library's
        // own steps).
        let single = p2p.is_none() && library.is_none() && SINGLE_LAUNCH_OPS.contains(&op);
        let launch = if inner.options.launch_events && single {
            Some(nccl_safe::Event::new(inner.stream.device(), false)?)
        } else {
            None
        };
        let recorded = Recorded {
            inner,
            id: inner.recorder.push(Record {
                record_id: 0, // numbered by the recorder
                seq: (p2p_key.is_none() && !(library.is_some() && op != "warmup")).then_some(seq),
                p2p: p2p_key,
                op: Cow::Borrowed(op),
                dtype: Cow::Borrowed(dtype.name()),
                count,
                out_count,
                root,
                call_site: call_site.clone(),
                enqueued_ms: now_ms(),
                completed_ms: None,
                tracks_launch: launch.is_some(),
                started_ms: None,
                state: State::Scheduled,
            }),
            launched: false,
        };
        // Only the sim reads labels (for its mismatch messages); NCCL has none.
        let labelled = inner.stream.device().driver() == nccl_safe::DriverKind::Sim;
        let mut scan = Scan::new(inner);
        let run = || {
            inner
                .with_comm(|c| match &launch {
                    Some(ev) => {
                        nccl_safe::with_launch_event(ev, || enqueue(c, &inner.stream, &mut scan))
                    }
                    None => enqueue(c, &inner.stream, &mut scan),
                })
                .unwrap_or_else(|| {
                    Err(nccl_safe::Error::InvalidUsage {
                        op: "collective",
                        reason: "the group was replaced by a shrink or grow".into(),
                    })
                })
        };
        let labelled_run = || {
            if !labelled {
                return run();
            }
            let label = label_of(inner, op, seq, &call_site);
            if inner.options.check_call_sites {
                nccl_safe::with_checked_call_label(label, &call_site, run)
            } else {
                nccl_safe::with_call_label(label, run)
            }
        };
        // A collective that is one launch takes the event recorded after it as its
        // completion event; other operations (several launches, or work after one)
        // record their own below.
        let (launched, completion) = if single {
            nccl_safe::with_completion_event(labelled_run)
        } else {
            (labelled_run(), None)
        };
        if let Err(e) = launched {
            return Err(match e {
                // The position was taken (the communicator consumed it): the record
                // keeps the refused call, so the hang report can show both sides.
                nccl_safe::Error::Mismatch { what, detail } => {
                    let entry = recorded.launched();
                    inner.recorder.set_state(entry, State::Failed);
                    match p2p {
                        Some((peer, send)) => {
                            lock(&inner.p2p_seq).insert((peer, send), seq + 1);
                        }
                        // A library step (the warm-up) has no place in the sequence.
                        None if one_sided.is_none() && library.is_none() => {
                            inner.seq.store(seq + 1, Ordering::Release)
                        }
                        None => {}
                    }
                    let err = Error::Mismatch {
                        group: inner.options.name.clone(),
                        rank: inner.rank,
                        op: op.to_string(),
                        seq,
                        call_site: call_site.to_string(),
                        detail: format!("mismatch in {what}: {detail}"),
                    };
                    inner.fail(None, err.clone(), "mismatch");
                    err
                }
                // The group was aborted while this call was on its way (another
                // rank's failure, seen through the store): the refusal says why.
                other @ nccl_safe::Error::Aborted { .. } => inner
                    .refusal(op, &call_site)
                    .unwrap_or_else(|| other.into()),
                other => other.into(),
            });
        }
        let entry = recorded.launched();
        match (p2p, one_sided) {
            (Some((peer, send)), _) => {
                lock(&inner.p2p_seq).insert((peer, send), seq + 1);
            }
            (None, Some(peer)) => {
                lock(&inner.one_sided_seq).insert((peer, op), seq + 1);
            }
            (None, None) if library.is_none() => inner.seq.store(seq + 1, Ordering::Release),
            (None, None) => {}
        }
        let event = match completion {
            Some(e) => e,
            None => inner.stream.record_event()?,
        };
        let state = Arc::new(WorkState {
            op,
            seq,
            call_site,
            dtype,
            count,
            probe: Mutex::new(scan.slot.take()),
            entry,
            event,
            launch,
            started: Default::default(),
            enqueued: Instant::now(),
            outcome: Mutex::new(Outcome::Pending),
            changed: Condvar::new(),
            wakers: Mutex::new(Vec::new()),
            waiters: Default::default(),
            signalled: Default::default(),
            waited: Default::default(),
        });
        // Waiters wake when the operation completes, not on a tick.
        let weak = Arc::downgrade(&state);
        state.event.on_complete(move || {
            if let Some(s) = weak.upgrade() {
                s.notify();
            }
        });
        lock(&inner.pending).push_back(state.clone());
        // Aborted meanwhile (by another thread, or the watchdog) after the pending works
        // were failed: this one is failed here, or nothing would ever settle it.
        if inner.aborting.load(Ordering::Acquire) {
            inner.fail_late_work(&state);
        }
        Ok(Work {
            state,
            group: inner.clone(),
        })
    }
}

/// While a call is issuing: clears the mark when it ends (also on a panic).
pub(crate) struct Issuing<'a> {
    inner: &'a Inner,
    outer: bool,
}

impl Drop for Issuing<'_> {
    fn drop(&mut self) {
        if self.outer {
            let caller = lock(&self.inner.issuing).take();
            *lock(&self.inner.last_issuer) = caller;
        }
    }
}

/// A flight-record entry that is removed again unless its operation is launched (a
/// refused call, or a panic inside a `grouped` closure, leaves nothing behind).
struct Recorded<'a> {
    inner: &'a Inner,
    id: u64,
    launched: bool,
}

impl Recorded<'_> {
    fn launched(mut self) -> u64 {
        self.launched = true;
        self.id
    }
}

impl Drop for Recorded<'_> {
    fn drop(&mut self) {
        if !self.launched {
            self.inner.recorder.remove(self.id);
        }
    }
}
