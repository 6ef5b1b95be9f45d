//! Streams, events and gates: the public, driver-independent types.

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use nccl_sys as sys;

use crate::base::host_fn::Deferred;
use crate::driver::{EventImpl, GateImpl, SharedEvent, StreamImpl};
use crate::{Device, Error, Result};

/// A number that identifies a stream for buffer tracking while it lives.
pub(crate) fn next_stream_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A stream's failure that this library knows of and the driver does not report: a
/// communicator's abort or stop cut short an operation enqueued on the stream
/// (NCCL's aborted or revoked kernels end without a CUDA error, leaving undefined
/// outputs), or a host function on it made a driver call (refused: CUDA forbids
/// them). Once set it stays, as a CUDA sticky error does; shared with the
/// communicators that remember launches on the stream.
#[derive(Debug, Default)]
pub(crate) struct StreamFailure(OnceLock<Error>);

impl StreamFailure {
    /// Records `error` as the stream's failure (the first one recorded stays).
    pub fn set(&self, error: Error) {
        let _ = self.0.set(error);
    }

    pub fn get(&self) -> Option<&Error> {
        self.0.get()
    }
}

pub(crate) struct StreamInner {
    pub device: Device,
    /// Set when an operation on this stream was cut short or a host function broke
    /// the host-function rule (see [`StreamFailure`]).
    pub failure: Arc<StreamFailure>,
    pub imp: Deferred<StreamImpl>,
    pub id: u64,
    /// Held from recording an operation's event until its uses are tracked, so that
    /// trackers see one stream's uses in the order the stream runs them.
    pub record_lock: Mutex<()>,
    /// What a borrowed stream's owner handed over to keep the stream alive while this
    /// one lives (a cudarc stream: `cudarc_interop`); dropped after `imp`.
    pub keep: Option<Deferred<Box<dyn Any + Send + Sync>>>,
}

impl StreamInner {
    /// Records a fresh event after everything enqueued so far.
    pub fn record_new(&self) -> Result<SharedEvent> {
        self.imp.record_new()
    }

    /// Records a fresh event and hands it to `track` before any other thread can
    /// record on this stream.
    pub fn record_and(&self, track: impl FnOnce(SharedEvent)) -> Result<()> {
        let _order = crate::sync::lock(&self.record_lock);
        track(self.imp.record_new()?);
        Ok(())
    }

    pub fn wait(&self, event: &EventImpl) -> Result<()> {
        self.imp.wait(event)
    }

    /// The failure of an operation cut short on this stream, if one was.
    pub fn check_failure(&self) -> Result<()> {
        match self.failure.get() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

/// Options for [`Stream::with_options`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamOptions {
    /// Do not synchronise with the legacy default stream (`CU_STREAM_NON_BLOCKING`).
    pub non_blocking: bool,
    /// CUDA priority: 0 is the default; lower numbers are higher priorities, within
    /// the device's range. The sim accepts any value and ignores it.
    pub priority: i32,
}

/// An in-order queue of work on one device.
///
/// Work enqueued by this library on a stream first waits for conflicting work that
/// other streams have pending on the same buffers, so no explicit waits are needed
/// for correctness. `Stream` is cheap to clone (clones are the same stream), `Send`
/// and `Sync`.
///
/// ```
/// use nccl_safe::{Device, Stream};
/// let stream = Stream::new(&Device::sim(0)?)?;
/// let (tx, rx) = std::sync::mpsc::channel();
/// stream.launch_host_fn(move || tx.send(42).unwrap())?;
/// stream.synchronize()?;
/// assert_eq!(rx.recv().unwrap(), 42);
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<StreamInner>,
}

impl Stream {
    /// A new blocking-flag, default-priority stream on `device`.
    ///
    /// # Errors
    ///
    /// A driver error creating it.
    pub fn new(device: &Device) -> Result<Stream> {
        Self::with_options(device, StreamOptions::default())
    }

    /// A new stream with `options`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a priority outside the device's range; a
    /// driver error creating it.
    pub fn with_options(device: &Device, options: StreamOptions) -> Result<Stream> {
        let imp = device
            .inner
            .imp
            .new_stream(options.non_blocking, options.priority)?;
        Ok(Stream {
            inner: Arc::new(StreamInner {
                device: device.clone(),
                failure: Arc::default(),
                imp: Deferred::new(imp),
                id: next_stream_id(),
                record_lock: Mutex::new(()),
                keep: None,
            }),
        })
    }

    /// Wraps a CUDA stream created elsewhere (by another library). The stream is
    /// borrowed: dropping the `Stream` does not destroy it.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] on a sim device.
    ///
    /// # Safety
    ///
    /// `raw` must be a valid stream of `device`'s primary context, and must outlive
    /// the returned `Stream`, its clones, and all work enqueued through them.
    pub unsafe fn from_raw(device: &Device, raw: sys::CUstream) -> Result<Stream> {
        // SAFETY: the caller guarantees `raw`'s validity and lifetime.
        unsafe { Self::wrap_raw(device, raw, None) }
    }

    /// Wraps `raw`, holding `keep` (if any) as long as the stream lives.
    ///
    /// # Safety
    ///
    /// As [`Stream::from_raw`], with "outlive" satisfied by `keep` where given.
    unsafe fn wrap_raw(
        device: &Device,
        raw: sys::CUstream,
        keep: Option<Box<dyn Any + Send + Sync>>,
    ) -> Result<Stream> {
        // SAFETY: the callers pass on the guarantees of `raw`'s validity and lifetime.
        let imp = unsafe { device.inner.imp.stream_from_raw(raw)? };
        Ok(Stream {
            inner: Arc::new(StreamInner {
                device: device.clone(),
                failure: Arc::default(),
                imp: Deferred::new(imp),
                id: next_stream_id(),
                record_lock: Mutex::new(()),
                keep: keep.map(Deferred::new),
            }),
        })
    }

    /// Wraps a CUDA stream owned by `keep`, which this `Stream` (and its clones)
    /// holds until the last of them is dropped.
    ///
    /// # Safety
    ///
    /// `raw` must be a valid stream of `device`'s primary context that lives at least
    /// as long as `keep`.
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) unsafe fn from_raw_kept(
        device: &Device,
        raw: sys::CUstream,
        keep: Box<dyn Any + Send + Sync>,
    ) -> Result<Stream> {
        // SAFETY: the caller guarantees `raw`'s validity; `keep` keeps it alive while
        // the returned stream holds `keep`.
        unsafe { Self::wrap_raw(device, raw, Some(keep)) }
    }

    /// What [`Stream::from_raw_kept`] was given to keep.
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) fn kept(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.inner.keep.as_deref().map(|b| &**b)
    }

    /// The raw `CUstream` for interop with other CUDA libraries; `None` on the sim.
    /// Work enqueued on it directly is not tracked by this library's buffers.
    pub fn as_raw(&self) -> Option<sys::CUstream> {
        self.inner.imp.as_raw()
    }

    /// The device this stream runs on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// Blocks the calling thread until all work enqueued so far has completed.
    ///
    /// # Errors
    ///
    /// An error of the work itself (CUDA's sticky errors; the sim's failed accesses),
    /// and [`Error::Aborted`] once a communicator's abort or stop cut short an
    /// operation on this stream: NCCL's aborted kernels end without a CUDA error and
    /// leave their outputs undefined, so this library remembers them and fails the
    /// stream from then on, on both drivers.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.imp.synchronize(None)?;
        self.inner.check_failure()
    }

    /// As [`Stream::synchronize`], giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`] when the work has not completed in time (it stays
    /// enqueued); errors of the work itself, and a cut-short operation's
    /// [`Error::Aborted`], as [`Stream::synchronize`].
    pub fn synchronize_timeout(&self, timeout: Duration) -> Result<()> {
        self.inner.imp.synchronize(Some(timeout))?;
        self.inner.check_failure()
    }

    /// Whether all work enqueued so far has completed. Never blocks.
    ///
    /// # Errors
    ///
    /// An error of the work itself; [`Error::Aborted`] at once when an operation on
    /// this stream was cut short (see [`Stream::synchronize`]).
    pub fn query(&self) -> Result<bool> {
        let done = self.inner.imp.query()?;
        self.inner.check_failure()?;
        Ok(done)
    }

    /// Runs `f` on a driver thread once all work enqueued before it has completed;
    /// later work waits for `f`. `f` must not call into this library's stream
    /// operations (CUDA forbids driver calls from host functions). A panic in `f` is
    /// contained.
    ///
    /// # Errors
    ///
    /// A driver error enqueueing it.
    pub fn launch_host_fn(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        let failure = self.inner.failure.clone();
        self.inner.imp.launch_host_fn(Box::new(move || {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            // The drops of what `f` owned ran inside too: a driver call among them
            // was refused and is the stream's failure on both drivers (the sim also
            // fails the stream itself).
            if let Some(reason) = crate::base::host_fn::peek_violation() {
                failure.set(Error::InvalidUsage {
                    op: "host function",
                    reason,
                });
            }
            if let Err(panic) = ran {
                std::panic::resume_unwind(panic); // contained by the driver's trampoline
            }
        }))
    }

    /// Runs `f` once all work enqueued so far has completed, on a driver thread (the
    /// sim's stream worker, which passes the point; on cuda, the device's event poller,
    /// which spins briefly and then polls every 20 µs to 1 ms). The stream never waits
    /// for `f` (unlike a host function), so `f` must be quick: wake a thread, set a
    /// flag, send on a channel. It runs even if the work failed.
    ///
    /// ```
    /// use nccl_safe::{Device, Stream};
    /// let stream = Stream::new(&Device::sim(0)?)?;
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// stream.on_complete(move || tx.send("done").unwrap())?;
    /// assert_eq!(rx.recv().unwrap(), "done");
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A driver error recording the point.
    pub fn on_complete(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        self.inner.imp.on_complete(Box::new(f))
    }

    /// Records a new event after all work enqueued so far.
    ///
    /// # Errors
    ///
    /// A driver error.
    pub fn record_event(&self) -> Result<Event> {
        let event = Event::new(self.device(), false)?;
        event.record(self)?;
        Ok(event)
    }

    /// Makes all later work on this stream wait for `event`'s most recent record.
    /// Returns at once.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`] for an event of another device.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        check_same_device("stream wait event", self.device(), &event.device)?;
        self.inner.wait(&event.imp)
    }

    /// Makes all later work on this stream wait until `gate` is opened by the host
    /// (`cuStreamWaitValue32` on cuda). Emulates a late peer in tests on one GPU.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`] for a gate of another device; a driver error (devices
    /// without stream memory operations report `CUDA_ERROR_NOT_SUPPORTED`).
    pub fn wait_gate(&self, gate: &Gate) -> Result<()> {
        check_same_device("stream wait gate", self.device(), &gate.device)?;
        self.inner.imp.wait_gate(&gate.imp)
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Stream({} #{})", self.device(), self.inner.id)
    }
}

pub(crate) fn check_same_device(
    op: &'static str,
    expected: &Device,
    actual: &Device,
) -> Result<()> {
    if expected.same_as(actual) {
        Ok(())
    } else {
        Err(Error::WrongDevice {
            op,
            expected: expected.to_string(),
            actual: actual.to_string(),
        })
    }
}

/// A marker in a stream: completes when the work before its record has.
///
/// ```
/// use nccl_safe::{Device, Event, Stream};
/// let dev = Device::sim(0)?;
/// let s = Stream::new(&dev)?;
/// let (start, end) = (Event::new(&dev, true)?, Event::new(&dev, true)?);
/// start.record(&s)?;
/// s.launch_host_fn(|| std::thread::sleep(std::time::Duration::from_millis(5)))?;
/// end.record(&s)?;
/// end.synchronize()?;
/// assert!(start.elapsed(&end)? >= std::time::Duration::from_millis(5));
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct Event {
    device: Device,
    /// Shared: a launch that records this event as its launch-completion event keeps
    /// it alive until the launch completes (see `comm::launch_event`).
    imp: SharedEvent,
    timing: bool,
    /// The event recorded after a launch (see
    /// [`with_completion_event`](crate::with_completion_event)): never recorded again.
    fixed: bool,
}

impl Event {
    /// A new event; `timing` enables [`Event::elapsed`] (CUDA events without timing
    /// are cheaper).
    ///
    /// # Errors
    ///
    /// A driver error.
    pub fn new(device: &Device, timing: bool) -> Result<Event> {
        let imp = device.inner.imp.new_event(timing)?;
        Ok(Event {
            device: device.clone(),
            imp: Arc::new(Deferred::new(imp)),
            timing,
            fixed: false,
        })
    }

    /// The event the library recorded after a launch on `device`, handed to a caller
    /// that may wait for it but not record it again.
    pub(crate) fn of_launch(device: &Device, imp: SharedEvent) -> Event {
        Event {
            device: device.clone(),
            imp,
            timing: false,
            fixed: true,
        }
    }

    /// Whether it is a launch's own event, which is never recorded again.
    pub(crate) fn fixed(&self) -> bool {
        self.fixed
    }

    /// The driver's event, shared.
    pub(crate) fn shared(&self) -> &SharedEvent {
        &self.imp
    }

    /// Whether it was made with timing (NCCL's launch-completion events must not be).
    pub(crate) fn timing(&self) -> bool {
        self.timing
    }

    /// Records the event after all work enqueued on `stream` so far.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`] for a stream of another device;
    /// [`Error::InvalidUsage`] for an event from
    /// [`with_completion_event`](crate::with_completion_event) (the library's own
    /// record of a launch, which orders that launch's buffers).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if self.fixed {
            return Err(Error::InvalidUsage {
                op: "event record",
                reason: "this event is the one recorded after a launch (from \
                         with_completion_event); the library orders that launch's \
                         buffers by it, so it is never recorded again: make an Event \
                         of your own"
                    .into(),
            });
        }
        check_same_device("event record", &self.device, stream.device())?;
        stream.inner.imp.record(&self.imp)
    }

    /// Whether the work before the most recent record has completed (`true` for an
    /// event never recorded). Never blocks.
    ///
    /// # Errors
    ///
    /// A driver error.
    pub fn query(&self) -> Result<bool> {
        self.imp.query()
    }

    /// Runs `f` on a thread of this library once the work before the event's most
    /// recent record has completed, also when that work failed (ask the stream for
    /// its error); on the sim at once, on this thread, when it already has. Costs no
    /// event and no stream operation of its own, where [`Stream::on_complete`] costs
    /// both on cuda.
    ///
    /// `f` should be quick and must not block: on the sim it runs on the thread that
    /// runs the stream's work, on cuda on the device's poller thread, which serves
    /// every callback of the device. A panic in `f` is caught there and logged. Meant
    /// for an event that is not recorded again before `f` runs: a later record of it
    /// may make `f` wait for that record (cuda) or run as soon as either completes
    /// (sim).
    ///
    /// ```
    /// use nccl_safe::{Device, Stream};
    /// let stream = Stream::new(&Device::sim(0)?)?;
    /// let event = stream.record_event()?;
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// event.on_complete(move || tx.send("done").unwrap());
    /// assert_eq!(rx.recv().unwrap(), "done");
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    pub fn on_complete(&self, f: impl FnOnce() + Send + 'static) {
        EventImpl::on_complete(
            &self.imp,
            Box::new(move || {
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
                    log::error!("an event's completion callback panicked");
                }
            }),
        );
    }

    /// Blocks until the most recent record has completed.
    ///
    /// # Errors
    ///
    /// A driver error.
    pub fn synchronize(&self) -> Result<()> {
        self.imp.synchronize(None)
    }

    /// As [`Event::synchronize`], giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`].
    pub fn synchronize_timeout(&self, timeout: Duration) -> Result<()> {
        self.imp.synchronize(Some(timeout))
    }

    /// Time between this event's completion and `end`'s. Both must have timing
    /// enabled and have completed.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] without timing, for events of two devices, or for
    /// events not completed (or completed in the other order).
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        if !self.timing || !end.timing {
            return Err(Error::InvalidArgument {
                op: "event elapsed",
                reason: "both events need timing enabled (Event::new(device, true))".into(),
            });
        }
        check_same_device("event elapsed", &self.device, &end.device)?;
        self.imp.elapsed(&end.imp)
    }

    /// The device of this event.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Event({})", self.device)
    }
}

/// A flag the host opens and streams can wait on ([`Stream::wait_gate`]): holds a
/// stream back until the host says so. On one GPU it emulates a peer that arrives
/// late. Dropping a gate opens it, so nothing waits forever.
///
/// **The gate's rule:** whatever synchronises the device waits for every stream,
/// including one a gate holds: aborting or destroying a communicator (NCCL frees its
/// memory), freeing pinned host memory, unloading kernels, [`Device::synchronize`].
/// Open the gate, or arm a thread to open it, before such a teardown; on a GPU it
/// would hang, and the sim fails it after the teardown deadline, naming this rule.
///
/// ```
/// use nccl_safe::{Device, Gate, Stream};
/// let dev = Device::sim(0)?;
/// let (s, gate) = (Stream::new(&dev)?, Gate::new(&dev)?);
/// s.wait_gate(&gate)?;
/// assert!(!s.query()?);   // held back
/// gate.open();
/// s.synchronize()?;
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct Gate {
    device: Device,
    imp: Deferred<GateImpl>,
}

impl Gate {
    /// A closed gate on `device`.
    ///
    /// # Errors
    ///
    /// A driver error allocating the flag.
    pub fn new(device: &Device) -> Result<Gate> {
        let imp = device.inner.imp.new_gate()?;
        Ok(Gate {
            device: device.clone(),
            imp: Deferred::new(imp),
        })
    }

    /// Opens the gate: waiting streams proceed. Idempotent.
    pub fn open(&self) {
        self.imp.open();
    }

    /// Whether [`Gate::open`] was called.
    pub fn is_open(&self) -> bool {
        self.imp.is_open()
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // Dropping opens the gate, so that no stream waits forever (the cuda gate then
        // frees its flag once no stream can still read it).
        self.open();
    }
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gate({}, open: {})", self.device, self.is_open())
    }
}
