//! Simulated streams, events and gates, and the device-side work of memory operations.
//!
//! A stream is an in-order worker thread fed by a bounded queue. The bound counts
//! *operations* (kernels, copies, collectives, host functions): event records, event
//! waits and gate waits are free, so the queue depth is exactly the number of
//! operations a stream holds before the host blocks, as a full launch queue blocks it
//! on a GPU. Every queued item has a position; an event is a position in a stream, and
//! completes (running its callbacks) the moment the worker passes it, so waiters wake
//! on completion, not on a polling tick. Condition variables are notified only when a
//! thread waits on them (each notification is a system call).
//!
//! With its tests this file runs past 600 lines: the streams, events and gates share
//! the queue's private state and its waiter counts, which a split would expose.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::{SPIN, SimDevice, platform, spin_until, wait_until};
use crate::base::host_fn;
use crate::sync::lock;
use crate::{Error, Result};

/// What a stream worker runs. An `Err` becomes the stream's sticky error.
pub(crate) type Task = Box<dyn FnOnce() -> std::result::Result<(), String> + Send>;

/// Runs when a position completes, with the time it did.
type Callback = Box<dyn FnOnce(Instant) + Send>;

struct Item {
    task: Task,
    counted: bool,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    /// Counted items waiting in `items` (the bound applies to these).
    queued_ops: usize,
    /// Positions handed out (every item has one).
    submitted: u64,
    /// Positions completed.
    completed: u64,
    error: Option<String>,
    /// Callbacks and the positions they wait for, in the order registered, which is
    /// the order of their positions (each waits for the position current then).
    callbacks: VecDeque<(u64, Callback)>,
    closed: bool,
    /// Threads waiting on `changed`, on `space`, and whether the worker waits on
    /// `work`: a notification nobody waits for is skipped (each costs a system call,
    /// and small operations are bound by them).
    watchers: usize,
    /// The earliest position a thread waiting on `changed` waits for (`u64::MAX` when
    /// none): the worker notifies once it passes it, not after every operation (a
    /// host waiting for the last of a thousand queued operations slept and woke a
    /// thousand times).
    watched: u64,
    blocked: usize,
    worker_idle: bool,
}

/// A stream's queue and progress, shared with its worker and its events.
pub(crate) struct StreamState {
    queue: Mutex<Queue>,
    work: Condvar,
    space: Condvar,
    changed: Condvar,
    depth: usize,
    pub(crate) index: u64,
    /// Copies of the queue's `submitted` and `completed`, read without its lock by
    /// waiters that spin before they sleep.
    pushed: AtomicU64,
    passed: AtomicU64,
}

impl StreamState {
    /// Runs `f` once everything submitted so far has completed (at once if it has).
    fn on_current(&self, f: Callback) {
        let mut q = lock(&self.queue);
        if q.completed >= q.submitted {
            drop(q);
            f(Instant::now());
        } else {
            let at = q.submitted;
            q.callbacks.push_back((at, f));
        }
    }

    /// Waits until position `at` has completed, or the deadline passes.
    fn wait_for(&self, at: u64, deadline: Option<Instant>) -> bool {
        let limit = deadline.map_or(SPIN, |d| {
            SPIN.min(d.saturating_duration_since(Instant::now()))
        });
        if spin_until(limit, || self.passed.load(Ordering::Acquire) >= at) {
            return true;
        }
        let mut q = lock(&self.queue);
        while q.completed < at {
            q.watchers += 1;
            q.watched = q.watched.min(at);
            q = match deadline {
                None => self.changed.wait(q).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        q.watchers -= 1;
                        return false;
                    }
                    self.changed
                        .wait_timeout(q, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
            q.watchers -= 1;
        }
        true
    }

    /// `(submitted, completed)`.
    pub(crate) fn positions(&self) -> (u64, u64) {
        let q = lock(&self.queue);
        (q.submitted, q.completed)
    }
}

/// The live streams of each device of this process, for device-wide synchronisation.
fn registry() -> &'static Mutex<HashMap<usize, Vec<Weak<StreamState>>>> {
    static R: OnceLock<Mutex<HashMap<usize, Vec<Weak<StreamState>>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// A simulated stream: an in-order worker thread behind a bounded queue.
pub(crate) struct SimStream {
    pub device: Arc<SimDevice>,
    state: Arc<StreamState>,
}

impl SimStream {
    pub fn new(device: Arc<SimDevice>) -> Result<SimStream> {
        let c = &platform()?.config;
        Self::with_settings(device, c.queue_depth, c.seed, c.jitter)
    }

    pub fn with_settings(
        device: Arc<SimDevice>,
        depth: usize,
        seed: u64,
        jitter: bool,
    ) -> Result<SimStream> {
        host_fn::check("stream create")?;
        let index = device.next_stream.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(StreamState {
            queue: Mutex::new(Queue {
                watched: u64::MAX,
                ..Queue::default()
            }),
            work: Condvar::new(),
            space: Condvar::new(),
            changed: Condvar::new(),
            depth: depth.max(1),
            index,
            pushed: AtomicU64::new(0),
            passed: AtomicU64::new(0),
        });
        let seed = seed ^ (device.ordinal as u64) << 48 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let worker_state = state.clone();
        std::thread::Builder::new()
            .name(format!("sim{}-stream{index}", device.ordinal))
            .spawn(move || worker(&worker_state, seed, jitter))
            .map_err(|e| Error::Sim {
                op: "stream create",
                reason: format!("cannot start a worker thread: {e}"),
            })?;
        {
            let mut all = lock(registry());
            let streams = all.entry(device.ordinal).or_default();
            streams.retain(|w| w.strong_count() > 0);
            streams.push(Arc::downgrade(&state));
        }
        Ok(SimStream { device, state })
    }

    /// A number that identifies this stream while it lives.
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.state) as usize
    }

    /// The stream's index on its device (`#n` in messages).
    pub fn index(&self) -> u64 {
        self.state.index
    }

    /// Enqueues a task; an operation (`counted`) blocks while the queue holds `depth`
    /// operations. Returns the task's position.
    fn push(&self, task: Task, counted: bool) -> Result<u64> {
        host_fn::check("launch")?;
        let mut q = lock(&self.state.queue);
        while counted && q.queued_ops >= self.state.depth && !q.closed {
            q.blocked += 1;
            q = self.state.space.wait(q).unwrap_or_else(|e| e.into_inner());
            q.blocked -= 1;
        }
        if q.closed {
            return Err(Error::Sim {
                op: "launch",
                reason: "the stream's worker has stopped".into(),
            });
        }
        q.items.push_back(Item { task, counted });
        q.submitted += 1;
        self.state.pushed.store(q.submitted, Ordering::Release);
        if counted {
            q.queued_ops += 1;
        }
        let at = q.submitted;
        let idle = q.worker_idle;
        drop(q);
        if idle {
            self.state.work.notify_one();
        }
        Ok(at)
    }

    /// Enqueues an operation (it counts against the queue depth).
    pub fn submit(&self, task: Task) -> Result<()> {
        self.push(task, true).map(drop)
    }

    /// Enqueues a wait or marker (free: it does not count against the depth).
    pub fn submit_free(&self, task: Task) -> Result<()> {
        self.push(task, false).map(drop)
    }

    /// Runs `f` once everything submitted so far has completed (at once if it has),
    /// on the worker thread.
    pub fn on_complete(&self, f: Box<dyn FnOnce() + Send>) {
        self.state.on_current(Box::new(move |_| f()));
    }

    fn take_error(q: &Queue, op: &'static str) -> Result<()> {
        match &q.error {
            Some(e) => Err(Error::Sim {
                op,
                reason: e.clone(),
            }),
            None => Ok(()),
        }
    }

    pub fn query(&self) -> Result<bool> {
        let q = lock(&self.state.queue);
        Self::take_error(&q, "stream query")?;
        Ok(q.completed >= q.submitted)
    }

    /// Waits until everything submitted before the call has run.
    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        host_fn::check("stream synchronize")?;
        let q = lock(&self.state.queue);
        let target = q.submitted;
        drop(q);
        let deadline = timeout.and_then(crate::sync::deadline);
        if !self.state.wait_for(target, deadline) {
            return Err(Error::Timeout {
                op: "stream synchronize",
                waited: timeout.unwrap_or_default(),
            });
        }
        Self::take_error(&lock(&self.state.queue), "stream synchronize")
    }
}

impl Drop for SimStream {
    fn drop(&mut self) {
        // Destroying a stream is a driver call: refused (recorded) in a host function.
        let _ = host_fn::check("stream destroy");
        // As cuStreamDestroy: returns at once; queued work still completes.
        lock(&self.state.queue).closed = true;
        self.state.work.notify_all();
        self.state.space.notify_all();
    }
}

fn worker(state: &StreamState, seed: u64, jitter: bool) {
    let mut rng = seed | 1;
    loop {
        let (item, wake_blocked) = {
            let mut q = lock(&state.queue);
            loop {
                if let Some(item) = q.items.pop_front() {
                    if item.counted {
                        q.queued_ops -= 1;
                    }
                    break (item, q.blocked > 0);
                }
                if q.closed {
                    return;
                }
                // Spin a little before sleeping: the next task often comes at once.
                let seen = q.submitted;
                drop(q);
                let more = || state.pushed.load(Ordering::Acquire) != seen;
                let came = spin_until(SPIN, more);
                q = lock(&state.queue);
                if came || !q.items.is_empty() || q.closed {
                    continue;
                }
                q.worker_idle = true;
                q = state.work.wait(q).unwrap_or_else(|e| e.into_inner());
                q.worker_idle = false;
            }
        };
        if item.counted && wake_blocked {
            state.space.notify_one();
        }
        if jitter {
            // xorshift64: a quarter of the tasks start late, by up to 200 µs.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            match rng % 8 {
                0 => std::thread::sleep(Duration::from_micros(rng % 200)),
                1 => std::thread::yield_now(),
                _ => {}
            }
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(item.task))
            .unwrap_or_else(|_| Err("a host function panicked".into()));
        let now = Instant::now();
        let (ready, watched) = {
            let mut q = lock(&state.queue);
            q.completed += 1;
            state.passed.store(q.completed, Ordering::Release);
            if let Err(e) = result {
                q.error.get_or_insert(e);
            }
            let done = q.completed;
            let due = q.callbacks.iter().take_while(|(at, _)| *at <= done).count();
            let ready: Vec<Callback> = q.callbacks.drain(..due).map(|(_, f)| f).collect();
            // Every waiter wakes; those not yet due set `watched` again.
            let wake = q.watchers > 0 && done >= q.watched;
            if wake {
                q.watched = u64::MAX;
            }
            (ready, wake)
        };
        if watched {
            state.changed.notify_all();
        }
        for f in ready {
            f(now);
        }
    }
}

#[derive(Default)]
struct EventProgress {
    recorded: u64,
    /// Where the most recent record sits: its stream and position there.
    target: Option<(Arc<StreamState>, u64)>,
    completed: u64,
    completed_at: Option<Instant>,
    /// Callbacks waiting for a generation to complete.
    waiters: Vec<(u64, Box<dyn FnOnce() + Send>)>,
    /// Threads waiting on the condition variable (it is notified only when some are).
    watchers: usize,
}

/// A simulated event: a position in a stream, recorded any number of times.
#[derive(Clone)]
pub(crate) struct SimEvent {
    /// The progress, its condition variable, and a copy of `completed` read without
    /// the lock by waiters that spin first (one allocation per event).
    state: Arc<(Mutex<EventProgress>, Condvar, AtomicU64)>,
}

impl SimEvent {
    pub fn new() -> SimEvent {
        SimEvent {
            state: Arc::new((
                Mutex::new(EventProgress::default()),
                Condvar::new(),
                AtomicU64::new(0),
            )),
        }
    }

    pub fn record(&self, stream: &SimStream) -> Result<()> {
        host_fn::check("event record")?;
        let generation = {
            let mut p = lock(&self.state.0);
            p.recorded += 1;
            let (submitted, _) = stream.state.positions();
            p.target = Some((stream.state.clone(), submitted));
            p.recorded
        };
        let state = self.state.clone();
        stream.state.on_current(Box::new(move |at| {
            let ready = {
                let mut p = lock(&state.0);
                if generation > p.completed {
                    p.completed = generation;
                    p.completed_at = Some(at);
                    state.2.store(generation, Ordering::Release);
                }
                let done = p.completed;
                let ready = if p.waiters.iter().all(|(g, _)| *g <= done) {
                    // Usually: every callback waits for this record (no new lists).
                    std::mem::take(&mut p.waiters)
                } else {
                    let (ready, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut p.waiters)
                        .into_iter()
                        .partition(|(g, _)| *g <= done);
                    p.waiters = rest;
                    ready
                };
                (ready, p.watchers > 0)
            };
            let (ready, watched) = ready;
            if watched {
                state.1.notify_all();
            }
            for (_, f) in ready {
                f();
            }
        }));
        Ok(())
    }

    /// Makes `stream` wait for the most recent record (a no-op if never recorded).
    pub fn wait_on(&self, stream: &SimStream) -> Result<()> {
        let target = lock(&self.state.0).recorded;
        let state = self.state.clone();
        stream.submit_free(Box::new(move || {
            if spin_until(SPIN, || state.2.load(Ordering::Acquire) >= target) {
                return Ok(());
            }
            let mut p = lock(&state.0);
            while p.completed < target {
                p.watchers += 1;
                p = state.1.wait(p).unwrap_or_else(|e| e.into_inner());
                p.watchers -= 1;
            }
            Ok(())
        }))
    }

    /// Whether the most recent record has completed: its stream has passed its
    /// position (so a stream synchronize that returned implies it, as on CUDA).
    pub fn query(&self) -> bool {
        let p = lock(&self.state.0);
        match &p.target {
            Some((stream, at)) => stream.positions().1 >= *at,
            None => true,
        }
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        host_fn::check("event synchronize")?;
        let target = lock(&self.state.0).recorded;
        let limit = timeout.map_or(SPIN, |t| t.min(SPIN));
        if spin_until(limit, || self.state.2.load(Ordering::Acquire) >= target) {
            return Ok(());
        }
        let mut p = lock(&self.state.0);
        p.watchers += 1;
        let waited = wait_until(&self.state.1, p, timeout, "event synchronize", |p| {
            p.completed >= target
        });
        // On a timeout the guard is gone: count this waiter out under a fresh lock.
        match waited {
            Ok(mut p) => {
                p.watchers -= 1;
                Ok(())
            }
            Err(e) => {
                lock(&self.state.0).watchers -= 1;
                Err(e)
            }
        }
    }

    /// Runs `f` when the most recent record completes (at once if it has).
    pub fn on_complete(&self, f: Box<dyn FnOnce() + Send>) {
        let mut p = lock(&self.state.0);
        let passed = match &p.target {
            Some((stream, at)) => stream.positions().1 >= *at,
            None => true,
        };
        if p.completed >= p.recorded || passed {
            drop(p);
            f();
        } else {
            let g = p.recorded;
            p.waiters.push((g, f));
        }
    }

    /// When the last record completed, if it has.
    pub fn completed_at(&self) -> Option<Instant> {
        let p = lock(&self.state.0);
        if p.recorded > 0 && p.completed >= p.recorded {
            p.completed_at
        } else {
            None
        }
    }
}

/// A host-released flag that streams can wait on.
#[derive(Clone)]
pub(crate) struct SimGate {
    state: Arc<(Mutex<bool>, Condvar)>,
    opened: Arc<AtomicBool>,
}

impl SimGate {
    pub fn new() -> SimGate {
        SimGate {
            state: Arc::new((Mutex::new(false), Condvar::new())),
            opened: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn open(&self) {
        *lock(&self.state.0) = true;
        self.opened.store(true, Ordering::Release);
        self.state.1.notify_all();
    }

    pub fn is_open(&self) -> bool {
        self.opened.load(Ordering::Acquire)
    }

    pub fn wait_on(&self, stream: &SimStream) -> Result<()> {
        let state = self.state.clone();
        let opened = self.opened.clone();
        stream.submit_free(Box::new(move || {
            if spin_until(SPIN, || opened.load(Ordering::Acquire)) {
                return Ok(());
            }
            let mut open = lock(&state.0);
            while !*open {
                open = state.1.wait(open).unwrap_or_else(|e| e.into_inner());
            }
            Ok(())
        }))
    }
}

impl SimDevice {
    /// Waits until every stream of the device has completed what was submitted before
    /// the call, as CUDA's implicit synchronisation of frees and teardown does. On
    /// timeout the error names the operation, the rule, and a stream still busy.
    pub fn synchronize_all(&self, op: &'static str, timeout: Option<Duration>) -> Result<()> {
        let streams: Vec<Arc<StreamState>> = lock(registry())
            .get(&self.ordinal)
            .map(|l| l.iter().filter_map(Weak::upgrade).collect())
            .unwrap_or_default();
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        for s in streams {
            let (submitted, _) = s.positions();
            if !s.wait_for(submitted, deadline) {
                let (submitted, completed) = s.positions();
                return Err(Error::InvalidUsage {
                    op,
                    reason: format!(
                        "{op} waits for all work on sim device {} (as CUDA's implicit \
                         synchronisation of frees does), but stream #{} still has {} \
                         operations pending after {:?} (held by a gate or waiting for a late \
                         peer): open gates, and abort communicators that wait for peers, before \
                         tearing down",
                        self.ordinal,
                        s.index,
                        submitted.saturating_sub(completed),
                        timeout.unwrap_or_default()
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device() -> Arc<SimDevice> {
        Arc::new(SimDevice::new(0, 1 << 20).unwrap())
    }

    #[test]
    fn a_full_launch_queue_blocks_the_host_until_the_stream_drains() {
        let stream = Arc::new(SimStream::with_settings(device(), 2, 1, true).unwrap());
        let gate = SimGate::new();
        // The worker takes an operation and blocks in it.
        let g = gate.clone();
        stream
            .submit(Box::new(move || {
                let mut open = lock(&g.state.0);
                while !*open {
                    open = g.state.1.wait(open).unwrap_or_else(|e| e.into_inner());
                }
                Ok(())
            }))
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let submitter = {
            let stream = stream.clone();
            std::thread::spawn(move || {
                for i in 0..6 {
                    stream.submit(Box::new(|| Ok(()))).unwrap();
                    tx.send(i).unwrap();
                }
            })
        };
        // Exactly the depth (2) fits behind the running one; then the host waits.
        let mut accepted = Vec::new();
        while let Ok(i) = rx.recv_timeout(Duration::from_millis(200)) {
            accepted.push(i);
        }
        assert_eq!(accepted, vec![0, 1], "the host was held back at the depth");
        gate.open();
        submitter.join().unwrap();
        stream.synchronize(Some(Duration::from_secs(20))).unwrap();
    }

    /// An operation that finishes once a permit comes through `permits`.
    fn held(permits: &Arc<Mutex<std::sync::mpsc::Receiver<()>>>) -> Task {
        let permits = permits.clone();
        Box::new(move || {
            lock(&permits)
                .recv_timeout(Duration::from_secs(20))
                .map_err(|e| format!("no permit came: {e:?}"))
        })
    }

    #[test]
    fn hosts_waiting_for_different_positions_each_return_when_theirs_completes() {
        let (permit, permits) = std::sync::mpsc::channel();
        let permits = Arc::new(Mutex::new(permits));
        // A device of its own: the device-wide test must not see this stream held.
        let dev = Arc::new(SimDevice::new(7, 1 << 20).unwrap());
        let stream = Arc::new(SimStream::with_settings(dev, 8, 1, false).unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = |name: &'static str| {
            let (stream, tx) = (stream.clone(), tx.clone());
            std::thread::spawn(move || {
                stream.synchronize(Some(Duration::from_secs(20))).unwrap();
                tx.send(name).unwrap();
            })
        };
        // Until `n` hosts sleep on the stream (past their spin).
        let asleep = |n: usize| {
            let start = Instant::now();
            while lock(&stream.state.queue).watchers < n {
                assert!(start.elapsed() < Duration::from_secs(20), "no waiter slept");
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        stream.submit(held(&permits)).unwrap();
        let near = waiter("near"); // waits for position 1
        asleep(1);
        for _ in 0..4 {
            stream.submit(held(&permits)).unwrap();
        }
        let far = waiter("far"); // waits for position 5
        asleep(2);
        permit.send(()).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok("near"));
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "far waits on"
        );
        for _ in 0..4 {
            permit.send(()).unwrap();
        }
        assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok("far"));
        near.join().unwrap();
        far.join().unwrap();
    }

    #[test]
    fn event_records_and_waits_do_not_count_against_the_depth() {
        let stream = Arc::new(SimStream::with_settings(device(), 1, 1, false).unwrap());
        let gate = SimGate::new();
        gate.wait_on(&stream).unwrap();
        for _ in 0..100 {
            let e = SimEvent::new();
            e.record(&stream).unwrap();
            e.wait_on(&stream).unwrap();
        }
        stream.submit(Box::new(|| Ok(()))).unwrap(); // the one operation that fits
        gate.open();
        stream.synchronize(Some(Duration::from_secs(20))).unwrap();
    }

    #[test]
    fn an_event_wakes_its_callbacks_when_the_stream_passes_it() {
        let stream = SimStream::with_settings(device(), 8, 1, false).unwrap();
        let gate = SimGate::new();
        gate.wait_on(&stream).unwrap();
        let e = SimEvent::new();
        e.record(&stream).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        e.on_complete(Box::new(move || tx.send(Instant::now()).unwrap()));
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        let opened = Instant::now();
        gate.open();
        let woke = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(woke >= opened);
        assert!(e.query());
    }

    #[test]
    fn after_a_stream_synchronize_every_event_recorded_before_it_has_completed() {
        // As on CUDA; the events' own callbacks may still be running at that moment.
        let stream = SimStream::with_settings(device(), 64, 7, true).unwrap();
        for _ in 0..2000 {
            stream.submit(Box::new(|| Ok(()))).unwrap();
            let e = SimEvent::new();
            e.record(&stream).unwrap();
            stream.synchronize(None).unwrap();
            assert!(e.query());
        }
    }

    #[test]
    fn device_synchronisation_waits_for_every_stream_and_names_a_held_one() {
        let dev = device();
        let stream = SimStream::with_settings(dev.clone(), 8, 1, false).unwrap();
        let gate = SimGate::new();
        gate.wait_on(&stream).unwrap();
        stream.submit(Box::new(|| Ok(()))).unwrap();
        let e = dev
            .synchronize_all("communicator abort", Some(Duration::from_millis(50)))
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("communicator abort") && text.contains(&format!("#{}", stream.index())),
            "{text}"
        );
        gate.open();
        dev.synchronize_all("test", Some(Duration::from_secs(10)))
            .unwrap();
    }
}
