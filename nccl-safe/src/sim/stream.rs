//! Simulated streams (in-order worker threads behind bounded queues), events and
//! gates, and the device-side work of copies, fills and elementwise ops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{SimDevice, platform, wait_until};
use crate::driver::types::Elementwise;
use crate::sync::lock;
use crate::{DType, Error, Result};

/// What a stream worker runs. An `Err` becomes the stream's sticky error.
pub(crate) type Task = Box<dyn FnOnce() -> std::result::Result<(), String> + Send>;

#[derive(Default)]
struct Progress {
    submitted: u64,
    completed: u64,
    error: Option<String>,
}

struct StreamState {
    progress: Mutex<Progress>,
    done: Condvar,
}

/// A simulated stream: an in-order worker thread behind a bounded queue.
pub(crate) struct SimStream {
    pub device: Arc<SimDevice>,
    queue: Mutex<SyncSender<Task>>,
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
        let index = device.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = sync_channel::<Task>(depth);
        let state = Arc::new(StreamState {
            progress: Mutex::new(Progress::default()),
            done: Condvar::new(),
        });
        let seed = seed ^ (device.ordinal as u64) << 48 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let worker_state = state.clone();
        std::thread::Builder::new()
            .name(format!("sim{}-stream{index}", device.ordinal))
            .spawn(move || worker(rx, worker_state, seed, jitter))
            .map_err(|e| Error::Sim {
                op: "stream create",
                reason: format!("cannot start a worker thread: {e}"),
            })?;
        Ok(SimStream {
            device,
            queue: Mutex::new(tx),
            state,
        })
    }

    /// A number that identifies this stream while it lives.
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.state) as usize
    }

    /// Enqueues a task; blocks while the launch queue is full.
    pub fn submit(&self, task: Task) -> Result<()> {
        let queue = lock(&self.queue);
        lock(&self.state.progress).submitted += 1;
        queue.send(task).map_err(|_| Error::Sim {
            op: "launch",
            reason: "the stream's worker has stopped".into(),
        })
    }

    fn take_error(progress: &Progress, op: &'static str) -> Result<()> {
        match &progress.error {
            Some(e) => Err(Error::Sim {
                op,
                reason: e.clone(),
            }),
            None => Ok(()),
        }
    }

    pub fn query(&self) -> Result<bool> {
        let p = lock(&self.state.progress);
        Self::take_error(&p, "stream query")?;
        Ok(p.completed >= p.submitted)
    }

    /// Waits until everything submitted before the call has run.
    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        let p = lock(&self.state.progress);
        let target = p.submitted;
        let p = wait_until(&self.state.done, p, timeout, "stream synchronize", |p| {
            p.completed >= target
        })?;
        Self::take_error(&p, "stream synchronize")
    }
}

fn worker(rx: Receiver<Task>, state: Arc<StreamState>, seed: u64, jitter: bool) {
    let mut rng = seed | 1;
    while let Ok(task) = rx.recv() {
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
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task))
            .unwrap_or_else(|_| Err("a host function panicked".into()));
        let mut p = lock(&state.progress);
        p.completed += 1;
        if let Err(e) = result {
            p.error.get_or_insert(e);
        }
        drop(p);
        state.done.notify_all();
    }
}

#[derive(Default)]
struct EventProgress {
    recorded: u64,
    completed: u64,
    completed_at: Option<Instant>,
}

/// A simulated event: how often it was recorded and how many records completed.
#[derive(Clone)]
pub(crate) struct SimEvent {
    state: Arc<(Mutex<EventProgress>, Condvar)>,
}

impl SimEvent {
    pub fn new() -> SimEvent {
        SimEvent {
            state: Arc::new((Mutex::new(EventProgress::default()), Condvar::new())),
        }
    }

    pub fn record(&self, stream: &SimStream) -> Result<()> {
        let generation = {
            let mut p = lock(&self.state.0);
            p.recorded += 1;
            p.recorded
        };
        let state = self.state.clone();
        stream.submit(Box::new(move || {
            let mut p = lock(&state.0);
            if generation > p.completed {
                p.completed = generation;
                p.completed_at = Some(Instant::now());
            }
            drop(p);
            state.1.notify_all();
            Ok(())
        }))
    }

    /// Makes `stream` wait for the most recent record (a no-op if never recorded).
    pub fn wait_on(&self, stream: &SimStream) -> Result<()> {
        let target = lock(&self.state.0).recorded;
        let state = self.state.clone();
        stream.submit(Box::new(move || {
            let mut p = lock(&state.0);
            while p.completed < target {
                p = state.1.wait(p).unwrap_or_else(|e| e.into_inner());
            }
            Ok(())
        }))
    }

    pub fn query(&self) -> bool {
        let p = lock(&self.state.0);
        p.completed >= p.recorded
    }

    pub fn synchronize(&self, timeout: Option<Duration>) -> Result<()> {
        let p = lock(&self.state.0);
        let target = p.recorded;
        let _guard = wait_until(&self.state.1, p, timeout, "event synchronize", |p| {
            p.completed >= target
        })?;
        Ok(())
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
        stream.submit(Box::new(move || {
            let mut open = lock(&state.0);
            while !*open {
                open = state.1.wait(open).unwrap_or_else(|e| e.into_inner());
            }
            Ok(())
        }))
    }
}

/// Keeps host memory alive while a task that copies into or out of it is queued.
pub(crate) type KeepAlive = Arc<dyn Send + Sync>;

fn sim_err(op: &'static str) -> impl Fn(String) -> Error {
    move |reason| Error::Sim { op, reason }
}

/// The device-side work of memory operations, each one task on the stream.
impl SimStream {
    /// Reserves device memory (at once, as `cuMemAllocAsync` reports out of memory).
    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        self.device.allocate(bytes)
    }

    /// Releases an allocation when the stream reaches this point.
    pub fn free(&self, ptr: u64) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || device.release(ptr)))
    }

    /// Fills `[addr, addr + len)` with poison now (the range is idle: nothing is
    /// pending on it).
    pub fn poison(&self, addr: u64, len: usize) -> Result<()> {
        self.device
            .fill_bytes(addr, len, super::POISON)
            .map_err(sim_err("poison"))
    }

    /// Sets `count` elements at `dst` to `pattern` (one element's bytes).
    pub fn fill(&self, dst: u64, count: usize, pattern: Vec<u8>) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let mut bytes = vec![0u8; count * pattern.len()];
            for chunk in bytes.chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(&pattern);
            }
            device.write(dst, &bytes)
        }))
    }

    /// Applies `op` with `scalar` to `count` elements of `dtype` at `dst`, in place.
    pub fn elementwise(
        &self,
        op: Elementwise,
        dtype: DType,
        dst: u64,
        count: usize,
        scalar: Vec<u8>,
    ) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let (a, off) = device.resolve(dst, count * dtype.size())?;
            let mut buf = vec![0u8; count * dtype.size()];
            a.read(off, &mut buf);
            super::reduce::elementwise(op, dtype, &mut buf, &scalar);
            a.write(off, &buf);
            Ok(())
        }))
    }

    /// Copies `bytes` from `src` to `dst` on this device.
    pub fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let device = self.device.clone();
        self.submit(Box::new(move || {
            let mut tmp = vec![0u8; bytes];
            device.read(src, &mut tmp)?;
            device.write(dst, &tmp)
        }))
    }

    /// Copies `bytes` of host memory at `src` to `dst`.
    ///
    /// # Safety
    ///
    /// `src` must address `bytes` readable bytes that `keep` keeps alive, and nothing
    /// may write them until this task has run.
    pub unsafe fn copy_htod(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        keep: KeepAlive,
    ) -> Result<()> {
        let (device, src) = (self.device.clone(), src as usize);
        self.submit(Box::new(move || {
            let _keep = keep;
            // SAFETY: the caller keeps `bytes` bytes at `src` alive and unwritten until
            // this task has run.
            let data = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
            device.write(dst, data)
        }))
    }

    /// Copies `bytes` at `src` into host memory at `dst`.
    ///
    /// # Safety
    ///
    /// `dst` must address `bytes` writable bytes that `keep` keeps alive, and nothing
    /// may read or write them until this task has run.
    pub unsafe fn copy_dtoh(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        keep: KeepAlive,
    ) -> Result<()> {
        let (device, dst) = (self.device.clone(), dst as usize);
        self.submit(Box::new(move || {
            let _keep = keep;
            // SAFETY: the caller keeps `bytes` bytes at `dst` alive and untouched until
            // this task has run.
            let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
            device.read(src, out)
        }))
    }

    /// Runs a host function in stream order.
    pub fn launch_host_fn(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        self.submit(Box::new(move || {
            f();
            Ok(())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_launch_queue_blocks_the_host_until_the_stream_drains() {
        let dev = Arc::new(SimDevice::new(0, 1 << 20));
        let stream = Arc::new(SimStream::with_settings(dev, 2, 1, true).unwrap());
        let gate = SimGate::new();
        gate.wait_on(&stream).unwrap(); // the worker takes this and blocks on it
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
        // Two tasks fit in the queue (a third may sit in the worker's hands at most
        // transiently); the submitter must then block until the gate opens.
        let mut accepted = Vec::new();
        while let Ok(i) = rx.recv_timeout(Duration::from_millis(200)) {
            accepted.push(i);
        }
        assert!(
            accepted.len() <= 3,
            "the host was not held back: {accepted:?}"
        );
        gate.open();
        submitter.join().unwrap();
        stream.synchronize(Some(Duration::from_secs(20))).unwrap();
    }
}
