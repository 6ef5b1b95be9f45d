//! Interop with the [`cudarc`] crate (cargo feature `cudarc`): streams in both
//! directions, collectives on cudarc device memory, and this library's buffers lent
//! to cudarc kernels. Nothing is copied, and the ordering guarantees of tracked
//! memory hold on both sides.
//!
//! The feature builds without CUDA installed (cudarc's driver API, loaded at run
//! time, like this crate's). It needs Rust 1.88 or newer (cudarc depends on
//! `libloading` 0.9), newer than the workspace's 1.85. The bindings' CUDA version is
//! asked of `nvcc` when one is on the path, else cudarc's latest is used; set
//! `CUDARC_CUDA_VERSION` (for example `12080`) to choose. The [`cudarc`] crate is
//! re-exported here, so that the versions always match.
//!
//! # The rules
//!
//! These are the only rules of the interop; the rest of this library's documentation
//! applies unchanged.
//!
//! 1. **One context.** This library works in each GPU's *primary* context, as
//!    `cudarc::driver::CudaContext::new(ordinal)` does. A cudarc object of another
//!    device, or of a non-primary context, is refused with [`Error::WrongDevice`]. On
//!    the sim driver no cudarc object can exist: every entry point returns
//!    [`Error::Unsupported`] naming the driver before it touches cudarc. cudarc
//!    finds `libcuda` by its own search (not `CUDA_DRIVER_LIBRARY`) and panics when
//!    there is none: open the [`Device`] with [`Device::cuda`] first, which answers
//!    an error instead.
//! 2. **Streams from cudarc.** [`Stream::from_cudarc`] wraps a cudarc stream without
//!    copying anything and holds its `Arc` for as long as the [`Stream`] or a clone
//!    of it lives; [`Stream::cudarc_stream`] gives it back. Work this library enqueues
//!    on it is tracked as on any stream. The per-thread default stream is refused
//!    (which queue it means depends on the calling thread).
//! 3. **Streams to cudarc.** [`Stream::to_cudarc`] lends one of this library's
//!    streams to cudarc. It is `unsafe`: cudarc's wrapper does not keep the stream
//!    alive, so the caller must drop every clone of the wrapper before the last
//!    [`Stream`] handle. A stream that came from cudarc is returned as it was.
//! 4. **cudarc memory in collectives.** [`CudarcBuffer::new`] takes a
//!    `CudaSlice<T>` and tracks it exactly like a [`DeviceBuffer`]:
//!    views, splits, copies, elementwise ops and collectives wait for conflicting
//!    work of other streams, with no explicit waits. Its first tracked use is a write
//!    on the slice's own stream, after everything cudarc had pending on the slice (its
//!    stream order, and cudarc's events when the context tracks them). Dropping the
//!    buffer never blocks: the slice is dropped (and freed by cudarc) once every
//!    pending use completed, never by making a stream wait. cudarc then frees it in
//!    stream order (`cuMemFreeAsync`): it would synchronise the slice's stream only on a
//!    device without memory pools, and [`Device::cuda`](crate::Device::cuda) refuses
//!    such devices (it makes its own pool). [`CudarcBuffer::into_inner`]
//!    hands the slice back: its stream first waits for the pending uses, and cudarc's
//!    own write event is recorded after that wait, so cudarc's other streams wait too.
//! 5. **Tracked memory in cudarc kernels.** `with_cudarc` (read) and
//!    `with_cudarc_mut` (write), on [`DeviceView`], [`DeviceViewMut`],
//!    [`DeviceBuffer`] and [`CudarcBuffer`], lend a cudarc view of
//!    the memory to a closure, as `with_device_ptr` lends a raw address: the stream
//!    (which must come from [`Stream::from_cudarc`], so that the cudarc stream given to
//!    the closure stays valid) first waits for conflicting work of other streams; the
//!    closure enqueues its work; then that work is recorded as the view's read or
//!    write. The view lives only for the call. Enqueue on the stream given. Work the
//!    closure puts on other cudarc streams is ordered only through cudarc's own event
//!    tracking (on when the context tracks events and has created a stream of its
//!    own; cudarc keeps that state per `CudaContext` object, so use the one the
//!    stream came from); the closure's view is prepared for it, but without it that
//!    work is not ordered.
//! 6. **The `unsafe` boundary** is exactly where cudarc's own kernels touch tracked
//!    memory: launching a kernel is `unsafe` in cudarc, and there the caller promises
//!    that the kernel touches only the elements of the view it was given, only reads
//!    a view from `with_cudarc`, and runs on the stream given (or another stream
//!    that cudarc orders, rule 5). cudarc's safe calls (copies, memsets) on the view
//!    need no promise. [`Stream::to_cudarc`] and the raw pointers of
//!    [`DeviceView::device_ptr`] are the other `unsafe` entry points; nothing else in
//!    this module is `unsafe` to call.
//!
//! ```no_run
//! use std::sync::Arc;
//! use nccl_safe::cudarc_interop::{CudarcBuffer, cudarc::driver::CudaContext};
//! use nccl_safe::{Device, Stream};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dev = Device::cuda(0)?;
//! let ctx = CudaContext::new(0)?;
//! let cu = ctx.new_stream()?;
//! let stream = Stream::from_cudarc(&dev, &cu)?;
//! // cudarc's memory, tracked here: collectives on it wait for cudarc's copy.
//! let mut grads = CudarcBuffer::new(&dev, cu.clone_htod(&[1.0f32, 2.0, 3.0])?)?;
//! grads.scale(&stream, 2.0)?;
//! // ... comm.all_reduce_in_place(&mut grads, ReduceOp::Sum, &comm_stream)? ...
//! let back = grads.with_cudarc(&stream, |cu, view| cu.clone_dtoh(&view))??;
//! assert_eq!(back, [2.0, 4.0, 6.0]);
//! # Ok(())
//! # }
//! ```

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;

pub use cudarc;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtrMut};
use nccl_sys as sys;

use crate::dtype::DataType;
use crate::memory::alloc::Allocation;
use crate::memory::tracker::{Use, enqueue};
use crate::stream::check_same_device;
use crate::{
    AsDeviceView, AsDeviceViewMut, Device, DeviceBuffer, DeviceView, DeviceViewMut, DriverKind,
    Error, Result, Stream,
};

/// `CU_STREAM_PER_THREAD`: a handle whose queue depends on the calling thread.
const PER_THREAD_STREAM: usize = 0x2;

/// What the sim (or any driver without CUDA contexts) answers.
fn no_cudarc(device: &Device) -> Error {
    Error::Unsupported {
        driver: device.driver(),
        what: "cudarc interop (cudarc objects live on a CUDA GPU)",
    }
}

/// Checks that `ctx` is `device`'s primary context (rule 1).
fn check_context(op: &'static str, device: &Device, ctx: &CudaContext) -> Result<()> {
    let Some(ours) = device.inner.imp.raw_context() else {
        return Err(no_cudarc(device));
    };
    if ctx.is_primary() && ctx.cu_ctx().cast::<c_void>() == ours.cast::<c_void>() {
        return Ok(());
    }
    let kind = if ctx.is_primary() {
        "primary"
    } else {
        "non-primary"
    };
    Err(Error::WrongDevice {
        op,
        expected: format!("{device} (its primary context)"),
        actual: format!("a cudarc {kind} context of GPU {}", ctx.ordinal()),
    })
}

/// The cudarc stream behind `stream`, for lending to a closure (rule 5).
fn lent_stream<'s>(
    op: &'static str,
    stream: &'s Stream,
    device: &Device,
) -> Result<&'s Arc<CudaStream>> {
    if device.driver() != DriverKind::Cuda {
        return Err(no_cudarc(device));
    }
    check_same_device(op, device, stream.device())?;
    stream
        .cudarc_stream()
        .ok_or_else(|| Error::InvalidArgument {
            op,
            reason: format!(
                "{stream:?} was not made from a cudarc stream; make it with Stream::from_cudarc, \
             so that the cudarc stream lent to the closure stays valid"
            ),
        })
}

/// Lends `len` elements at `addr` to `f` as a cudarc slice on `cu`, enqueued on
/// `stream` with `uses` tracked: waits first, the uses recorded after `f` (also when
/// `f` panics; the panic then continues).
fn lend<T, R>(
    stream: &Stream,
    uses: &[Use<'_>],
    cu: &Arc<CudaStream>,
    (addr, len): (u64, usize),
    f: impl FnOnce(&mut CudaSlice<T>) -> R,
) -> Result<R> {
    let mut out = None;
    enqueue(&stream.inner, uses, |_| {
        // SAFETY: `addr` holds `len` elements of `T` of an allocation that the caller's
        // view borrows, in `cu`'s context (checked when `stream` was made from `cu`).
        // The slice is never dropped (it is leaked below, or left in its ManuallyDrop
        // by a panic), so cudarc never frees memory it does not own.
        let mut slice = ManuallyDrop::new(unsafe { cu.upgrade_device_ptr::<T>(addr, len) });
        // cudarc's write event of the slice, recorded after this stream's waits: work
        // that the closure puts on other cudarc streams waits for it (rule 5).
        drop(slice.device_ptr_mut(cu).1);
        out = Some(catch_unwind(AssertUnwindSafe(|| f(&mut slice))));
        // The stream waits for what cudarc recorded on the slice's events (the
        // closure's work on other streams), then our use is recorded after it.
        let _ = ManuallyDrop::into_inner(slice).leak();
        Ok(())
    })?;
    match out.expect("the enqueue ran the closure") {
        Ok(r) => Ok(r),
        Err(panic) => resume_unwind(panic),
    }
}

impl Stream {
    /// Wraps a cudarc stream, holding its `Arc` while this `Stream` or a clone lives
    /// (rule 2 of the [module docs](crate::cudarc_interop)).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] on the sim driver; [`Error::WrongDevice`] for a stream
    /// of another device or of a non-primary context; [`Error::InvalidArgument`] for
    /// the per-thread default stream.
    pub fn from_cudarc(device: &Device, stream: &Arc<CudaStream>) -> Result<Stream> {
        const OP: &str = "Stream::from_cudarc";
        check_context(OP, device, stream.context())?;
        let raw = stream.cu_stream();
        if raw as usize == PER_THREAD_STREAM {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: "the per-thread default stream means another queue on every thread; \
                         use a stream of its own (CudaContext::new_stream)"
                    .into(),
            });
        }
        // SAFETY: `raw` is a stream of `device`'s primary context (checked above), and
        // the `Arc` kept by the new stream keeps it alive as long as the stream.
        unsafe {
            Stream::from_raw_kept(
                device,
                raw.cast::<sys::CUstream_st>(),
                Box::new(stream.clone()),
            )
        }
    }

    /// The cudarc stream this stream was made from ([`Stream::from_cudarc`]); `None`
    /// for a stream made by this library.
    pub fn cudarc_stream(&self) -> Option<&Arc<CudaStream>> {
        self.kept()?.downcast_ref::<Arc<CudaStream>>()
    }

    /// This stream as a cudarc stream of `ctx`, for cudarc's own calls (rule 3). A
    /// stream made from cudarc is returned as it was; any other is wrapped, borrowed.
    /// Work that cudarc enqueues on it is not tracked by this library's buffers
    /// (lend those with `with_cudarc`).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] on the sim driver; [`Error::WrongDevice`] when `ctx` is
    /// not the primary context of this stream's device.
    ///
    /// # Safety
    ///
    /// Unless the stream came from cudarc, the returned wrapper does not keep this
    /// stream alive: it, and every clone of it, must be dropped before the last
    /// handle to this [`Stream`], and no work may be enqueued through it after that.
    pub unsafe fn to_cudarc(&self, ctx: &Arc<CudaContext>) -> Result<Arc<CudaStream>> {
        const OP: &str = "Stream::to_cudarc";
        check_context(OP, self.device(), ctx)?;
        if let Some(cu) = self.cudarc_stream() {
            return Ok(cu.clone());
        }
        let raw = self.as_raw().ok_or_else(|| no_cudarc(self.device()))?;
        // SAFETY: `raw` is a valid stream of `ctx` (its device's primary context,
        // checked above); the caller keeps it alive as long as the wrapper.
        Ok(unsafe { ctx.wrap_borrowed_stream(raw.cast()) })
    }
}

impl<T: DataType> DeviceView<'_, T> {
    /// Lends this view to `f` as a cudarc view, for cudarc work that **reads** it,
    /// enqueued by `f` on `stream` (rule 5 of the [module docs](crate::cudarc_interop)):
    /// `stream` first waits for pending writes of other streams, and the read is
    /// recorded after `f` returns.
    ///
    /// ```
    /// use nccl_safe::{Device, DeviceBuffer, DriverKind, Error, Stream};
    /// let dev = Device::sim(0)?;
    /// let s = Stream::new(&dev)?;
    /// let buf = DeviceBuffer::from_slice(&s, &[1.0f32, 2.0])?;
    /// // No cudarc object can exist on the sim: a typed error, and `f` never runs.
    /// let err = buf.as_view().with_cudarc(&s, |_, _| 0).unwrap_err();
    /// assert!(matches!(err, Error::Unsupported { driver: DriverKind::Sim, .. }));
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] on the sim driver; [`Error::WrongDevice`];
    /// [`Error::InvalidArgument`] for a stream not made from cudarc; a driver error.
    pub fn with_cudarc<R>(
        &self,
        stream: &Stream,
        f: impl FnOnce(&Arc<CudaStream>, CudaView<'_, T>) -> R,
    ) -> Result<R> {
        let cu = lent_stream("with_cudarc", stream, self.device())?;
        lend(
            stream,
            &[self.read_use()],
            cu,
            (self.addr(), self.len()),
            |s| f(cu, s.as_view()),
        )
    }
}

impl<T: DataType> DeviceViewMut<'_, T> {
    /// As [`DeviceView::with_cudarc`] for cudarc work that **writes** the view:
    /// `stream` first waits for every pending use by other streams, and the write is
    /// recorded after `f` returns.
    ///
    /// # Errors
    ///
    /// As [`DeviceView::with_cudarc`].
    pub fn with_cudarc_mut<R>(
        &mut self,
        stream: &Stream,
        f: impl FnOnce(&Arc<CudaStream>, CudaViewMut<'_, T>) -> R,
    ) -> Result<R> {
        let cu = lent_stream("with_cudarc_mut", stream, self.device())?;
        let place = (self.addr(), self.len());
        lend(stream, &[self.write_use(false)], cu, place, |s| {
            f(cu, s.as_view_mut())
        })
    }
}

/// `with_cudarc` and `with_cudarc_mut` on a whole buffer, written once for
/// [`DeviceBuffer`] and [`CudarcBuffer`].
macro_rules! lend_whole_buffer {
    () => {
        /// [`DeviceView::with_cudarc`] on the whole buffer.
        ///
        /// # Errors
        ///
        /// As [`DeviceView::with_cudarc`].
        pub fn with_cudarc<R>(
            &self,
            stream: &Stream,
            f: impl FnOnce(&Arc<CudaStream>, CudaView<'_, T>) -> R,
        ) -> Result<R> {
            self.as_view().with_cudarc(stream, f)
        }

        /// [`DeviceViewMut::with_cudarc_mut`] on the whole buffer.
        ///
        /// # Errors
        ///
        /// As [`DeviceView::with_cudarc`].
        pub fn with_cudarc_mut<R>(
            &mut self,
            stream: &Stream,
            f: impl FnOnce(&Arc<CudaStream>, CudaViewMut<'_, T>) -> R,
        ) -> Result<R> {
            self.as_view_mut().with_cudarc_mut(stream, f)
        }
    };
}

impl<T: DataType> DeviceBuffer<T> {
    lend_whole_buffer!();
}

/// A cudarc `CudaSlice<T>` tracked like a [`DeviceBuffer`]: collectives, copies and
/// elementwise ops take it (or its views) and order themselves against every other
/// tracked use, with no explicit waits (rule 4 of the
/// [module docs](crate::cudarc_interop)). Dropping it never blocks; the slice is
/// dropped once its pending uses completed. `Send` and `Sync`, not `Clone`.
pub struct CudarcBuffer<T: DataType> {
    alloc: Arc<Allocation>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DataType> CudarcBuffer<T> {
    /// Takes `slice` for tracking on `device`. Its first tracked use is a write on
    /// the slice's own stream, after everything cudarc had pending on it.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] on the sim driver; [`Error::WrongDevice`] for a slice of
    /// another device or context; a driver error recording the first use. The slice
    /// is dropped (freed by cudarc) with the error.
    pub fn new(device: &Device, mut slice: CudaSlice<T>) -> Result<CudarcBuffer<T>> {
        const OP: &str = "CudarcBuffer::new";
        check_context(OP, device, slice.context())?;
        let (len, bytes) = (slice.len(), slice.num_bytes());
        debug_assert_eq!(std::mem::size_of::<T>(), T::DTYPE.size());
        let cu = slice.stream().clone();
        let own = Stream::from_cudarc(device, &cu)?;
        // The slice's stream waits for cudarc's pending uses of it on other streams
        // (when the context tracks events); cudarc's write event is then recorded.
        let (ptr, record) = slice.device_ptr_mut(&cu);
        drop(record);
        let first = own.inner.record_new()?;
        let alloc = Allocation::foreign(device, ptr, bytes, Box::new(slice), own.inner.id, first);
        Ok(CudarcBuffer {
            alloc,
            len,
            _t: PhantomData,
        })
    }

    /// Hands the slice back once its stream waits for every pending tracked use;
    /// cudarc's write event is recorded after that wait, so that cudarc's other streams
    /// wait too. Never blocks the host.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUsage`] while an operation collected in an open
    /// [`group`](crate::group) still holds the buffer (the buffer is then released
    /// after its pending work, as by a drop); a driver error inserting the waits (the
    /// slice is then likewise released after the pending work, never under it).
    pub fn into_inner(self) -> Result<CudaSlice<T>> {
        const OP: &str = "CudarcBuffer::into_inner";
        let device = self.device().clone();
        let (owner, pending) =
            Allocation::take_foreign(self.alloc).map_err(|_| Error::InvalidUsage {
                op: OP,
                reason: "an operation collected in an open group still uses the buffer; \
                     take the slice back after the group"
                    .into(),
            })?;
        let mut slice = match owner.downcast::<CudaSlice<T>>() {
            Ok(slice) => *slice,
            Err(other) => {
                device.release_after(other, pending);
                return Err(Error::InvalidUsage {
                    op: OP,
                    reason: "the tracked memory is not a cudarc slice of this type".into(),
                });
            }
        };
        let cu = slice.stream().clone();
        let waited = Stream::from_cudarc(&device, &cu)
            .and_then(|s| pending.iter().try_for_each(|e| s.inner.wait(e)));
        if let Err(e) = waited {
            device.release_after(Box::new(slice), pending);
            return Err(e);
        }
        drop(slice.device_ptr_mut(&cu).1);
        Ok(slice)
    }

    /// The device holding the buffer.
    pub fn device(&self) -> &Device {
        self.alloc.device()
    }

    /// The whole buffer, read-only.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView::whole(&self.alloc, self.len)
    }

    /// The whole buffer, writable.
    pub fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut::whole(&self.alloc, self.len)
    }

    crate::memory::whole_buffer_methods!();

    lend_whole_buffer!();
}

impl<T: DataType> fmt::Debug for CudarcBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CudarcBuffer<{}>({} elements on {})",
            T::DTYPE,
            self.len,
            self.device()
        )
    }
}

impl<T: DataType> AsDeviceView<T> for CudarcBuffer<T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        self.as_view()
    }
}

impl<T: DataType> AsDeviceViewMut<T> for CudarcBuffer<T> {
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.as_view_mut()
    }
}
