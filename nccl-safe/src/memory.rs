//! Device buffers that are safe by construction, their views, and pinned host buffers.
//!
//! Every buffer tracks, per byte range, the reads and writes still pending on each
//! stream (as events). Every operation this library enqueues first makes its stream
//! wait for the conflicting ones of other streams (a write conflicts with everything,
//! a read with writes), then records its own. So work on a buffer from several streams
//! is ordered without explicit waits, and disjoint views (from `split_at_mut`) stay
//! independent. Allocation and free are stream-ordered on the device's internal
//! stream, the free after every pending use; dropping a buffer never blocks the host.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::cuda::{ElementwiseKernel, PinnedHost};
use crate::device::DeviceImpl;
use crate::dtype::DataType;
use crate::lock;
use crate::sim::POISON;
use crate::stream::{EventImpl, StreamImpl, StreamInner, check_same_device};
use crate::{Device, Error, Result, Stream};

/// A pending use of a byte range.
struct Access {
    range: Range<usize>,
    write: bool,
    stream: u64,
    event: Arc<EventImpl>,
}

/// Pending accesses of one buffer (device or host).
#[derive(Default)]
pub(crate) struct Tracker {
    accesses: Vec<Access>,
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

impl Tracker {
    /// Forgets accesses whose events have completed.
    fn prune(&mut self) {
        self.accesses
            .retain(|a| !matches!(a.event.query(), Ok(true)));
    }

    /// Incomplete events of other streams that a use of `range` must wait for.
    fn conflicts(&mut self, range: &Range<usize>, write: bool, stream: u64) -> Vec<Arc<EventImpl>> {
        self.prune();
        self.accesses
            .iter()
            .filter(|a| a.stream != stream && (write || a.write) && overlaps(&a.range, range))
            .map(|a| a.event.clone())
            .collect()
    }

    /// Whether nothing at all is pending on `range`.
    fn idle(&mut self, range: &Range<usize>) -> bool {
        self.prune();
        !self.accesses.iter().any(|a| overlaps(&a.range, range))
    }

    fn add(&mut self, range: Range<usize>, write: bool, stream: u64, event: Arc<EventImpl>) {
        // An earlier access of the same stream inside the new range completes before
        // the new one, so waiting for the new one covers it, unless the earlier one
        // wrote and the new one only reads: readers on other streams do not wait for
        // reads, so that write must stay visible.
        self.accesses.retain(|a| {
            let covered =
                a.stream == stream && a.range.start >= range.start && a.range.end <= range.end;
            !(covered && (write || !a.write))
        });
        self.accesses.push(Access {
            range,
            write,
            stream,
            event,
        });
    }

    fn pending(&mut self) -> Vec<Arc<EventImpl>> {
        self.prune();
        self.accesses.iter().map(|a| a.event.clone()).collect()
    }
}

/// One use of a tracked buffer by an operation.
pub(crate) struct Use<'a> {
    tracker: &'a Mutex<Tracker>,
    range: Range<usize>,
    write: bool,
    /// For the sim: the device address of `range`, poisoned at enqueue when the
    /// operation overwrites it and nothing else is pending on it.
    poison: Option<u64>,
}

/// A use that owns its buffer's allocation, for operations collected before they are
/// enqueued (groups).
pub(crate) struct OwnedUse {
    alloc: Arc<Allocation>,
    range: Range<usize>,
    write: bool,
    poison: Option<u64>,
}

impl OwnedUse {
    pub(crate) fn borrow(&self) -> Use<'_> {
        Use {
            tracker: &self.alloc.tracker,
            range: self.range.clone(),
            write: self.write,
            poison: self.poison,
        }
    }
}

impl Use<'_> {
    pub(crate) fn owned(&self, alloc: &Arc<Allocation>) -> OwnedUse {
        OwnedUse {
            alloc: alloc.clone(),
            range: self.range.clone(),
            write: self.write,
            poison: self.poison,
        }
    }
}

/// Enqueues one operation on `stream` with the tracking protocol: wait for conflicts
/// of other streams, poison idle outputs (sim), run, record the uses.
pub(crate) fn enqueue(
    stream: &StreamInner,
    uses: &[Use<'_>],
    run: impl FnOnce(&StreamImpl) -> Result<()>,
) -> Result<()> {
    enqueue_waits(stream, uses)?;
    run(&stream.imp)?;
    enqueue_record(stream, uses)
}

/// First half of [`enqueue`]: wait for conflicts of other streams, poison idle outputs
/// (sim).
pub(crate) fn enqueue_waits(stream: &StreamInner, uses: &[Use<'_>]) -> Result<()> {
    let mut waits: Vec<Arc<EventImpl>> = Vec::new();
    for u in uses {
        for e in lock(u.tracker).conflicts(&u.range, u.write, stream.id) {
            if !waits.iter().any(|w| Arc::ptr_eq(w, &e)) {
                waits.push(e);
            }
        }
    }
    for e in &waits {
        stream.wait(e)?;
    }
    if let StreamImpl::Sim(s) = &stream.imp {
        for u in uses.iter().filter(|u| u.write) {
            if let Some(addr) = u.poison {
                if lock(u.tracker).idle(&u.range) {
                    s.device
                        .fill_bytes(addr, u.range.len(), POISON)
                        .map_err(|reason| Error::Sim {
                            op: "poison",
                            reason,
                        })?;
                }
            }
        }
    }
    Ok(())
}

/// Second half of [`enqueue`]: record the operation's uses after it.
pub(crate) fn enqueue_record(stream: &StreamInner, uses: &[Use<'_>]) -> Result<()> {
    let event = stream.record_new()?;
    for u in uses {
        lock(u.tracker).add(u.range.clone(), u.write, stream.id, event.clone());
    }
    Ok(())
}

/// A device allocation and its tracker; freed, stream-ordered, when dropped.
pub(crate) struct Allocation {
    device: Device,
    ptr: u64,
    bytes: usize,
    tracker: Mutex<Tracker>,
}

impl Allocation {
    fn new(device: &Device, bytes: usize) -> Result<Arc<Allocation>> {
        let internal = device.internal_stream()?;
        let ptr = match &internal.imp {
            StreamImpl::Cuda(s) => s.alloc(bytes)?,
            StreamImpl::Sim(s) => s.device.allocate(bytes)?,
        };
        let alloc = Arc::new(Allocation {
            device: device.clone(),
            ptr,
            bytes,
            tracker: Mutex::new(Tracker::default()),
        });
        // First uses on other streams wait for the allocation itself.
        let event = internal.record_new()?;
        lock(&alloc.tracker).add(0..bytes, true, internal.id, event);
        Ok(alloc)
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let pending = lock(&self.tracker).pending();
        let result = self.device.internal_stream().and_then(|internal| {
            for e in &pending {
                internal.wait(e)?;
            }
            match &internal.imp {
                StreamImpl::Cuda(s) => s.free(self.ptr),
                StreamImpl::Sim(s) => {
                    let (device, ptr) = (s.device.clone(), self.ptr);
                    s.submit(Box::new(move || device.release(ptr)))
                }
            }
        });
        if let Err(e) = result {
            log::warn!(
                "{}: freeing {} bytes at {:#x} failed: {e}",
                self.device,
                self.bytes,
                self.ptr
            );
        }
    }
}

/// A raw device address, for foreign kernels. On cuda it is a `CUdeviceptr`; on the
/// sim an opaque number that only the sim understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DevicePtr(pub u64);

fn resolve_range(
    op: &'static str,
    range: impl RangeBounds<usize>,
    len: usize,
) -> Result<Range<usize>> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::OutOfRange {
            op,
            start,
            end,
            len,
        });
    }
    Ok(start..end)
}

fn check_len(op: &'static str, expected: usize, actual: usize) -> Result<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            expected,
            actual,
        })
    }
}

fn user_stream<'s>(
    op: &'static str,
    stream: &'s Stream,
    device: &Device,
) -> Result<&'s StreamInner> {
    check_same_device(op, device, stream.device())?;
    Ok(&stream.inner)
}

/// Elements of type `T` in device memory. Not `Clone`: one owner; shared access
/// through views. Dropping it never blocks; the memory is freed after pending work.
///
/// ```
/// use nccl_safe::{Device, DeviceBuffer, Stream};
/// let dev = Device::sim(0)?;
/// let s = Stream::new(&dev)?;
/// let mut buf = DeviceBuffer::from_slice(&s, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let (mut left, mut right) = buf.split_at_mut(2)?;
/// left.scale(&s, 10.0)?;
/// right.add_scalar(&s, 100.0)?;
/// assert_eq!(buf.to_vec(&s)?, vec![10.0, 20.0, 103.0, 104.0]);
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct DeviceBuffer<T: DataType> {
    alloc: Arc<Allocation>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DataType> DeviceBuffer<T> {
    /// `len` uninitialised elements on `device` (the sim fills them with poison).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`]; [`Error::InvalidArgument`] when the size overflows.
    pub fn alloc(device: &Device, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len
            .checked_mul(T::DTYPE.size())
            .ok_or_else(|| Error::InvalidArgument {
                op: "alloc",
                reason: format!("{len} elements of {} overflow the address space", T::DTYPE),
            })?;
        Ok(DeviceBuffer {
            alloc: Allocation::new(device, bytes)?,
            len,
            _t: PhantomData,
        })
    }

    /// `len` zeroes, written on `stream`.
    ///
    /// # Errors
    ///
    /// As [`DeviceBuffer::alloc`].
    pub fn zeroed(stream: &Stream, len: usize) -> Result<DeviceBuffer<T>> {
        let mut buf = Self::alloc(stream.device(), len)?;
        buf.fill(stream, T::default())?;
        Ok(buf)
    }

    /// A copy of `data`, written on `stream`. Blocks until the copy is done (it
    /// reads the borrowed slice).
    ///
    /// # Errors
    ///
    /// As [`DeviceBuffer::alloc`], and errors of the stream's work.
    pub fn from_slice(stream: &Stream, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = Self::alloc(stream.device(), data.len())?;
        buf.copy_from_slice(stream, data)?;
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device holding the buffer.
    pub fn device(&self) -> &Device {
        &self.alloc.device
    }

    /// The whole buffer, read-only.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            alloc: &self.alloc,
            start: 0,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// The whole buffer, writable.
    pub fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut {
            alloc: &self.alloc,
            start: 0,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// Elements `range`, read-only.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`].
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
        self.as_view().slice(range)
    }

    /// Elements `range`, writable.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`].
    pub fn view_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'_, T>> {
        self.as_view_mut().into_slice(range)
    }

    /// Two independent writable halves, `[0, mid)` and `[mid, len)`: work on one never
    /// waits for work on the other.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(DeviceViewMut<'_, T>, DeviceViewMut<'_, T>)> {
        self.as_view_mut().split_at_mut(mid)
    }

    /// Copies the buffer to a `Vec`, blocking until the copy is done.
    ///
    /// # Errors
    ///
    /// As [`DeviceView::to_vec`].
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        self.as_view().to_vec(stream)
    }

    /// Overwrites the buffer with `data`, blocking until the copy is done.
    ///
    /// # Errors
    ///
    /// As [`DeviceViewMut::copy_from_slice`].
    pub fn copy_from_slice(&mut self, stream: &Stream, data: &[T]) -> Result<()> {
        self.as_view_mut().copy_from_slice(stream, data)
    }

    /// Sets every element to `value`.
    ///
    /// # Errors
    ///
    /// As [`DeviceViewMut::fill`].
    pub fn fill(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.as_view_mut().fill(stream, value)
    }

    /// Adds `value` to every element.
    ///
    /// # Errors
    ///
    /// As [`DeviceViewMut::add_scalar`].
    pub fn add_scalar(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.as_view_mut().add_scalar(stream, value)
    }

    /// Multiplies every element by `value`.
    ///
    /// # Errors
    ///
    /// As [`DeviceViewMut::scale`].
    pub fn scale(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.as_view_mut().scale(stream, value)
    }
}

impl<T: DataType> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>({} elements on {})",
            T::DTYPE,
            self.len,
            self.alloc.device
        )
    }
}

/// A read-only window on a device buffer.
#[derive(Clone, Copy)]
pub struct DeviceView<'a, T: DataType> {
    alloc: &'a Arc<Allocation>,
    start: usize,
    len: usize,
    _t: PhantomData<&'a T>,
}

/// A writable window on a device buffer.
pub struct DeviceViewMut<'a, T: DataType> {
    alloc: &'a Arc<Allocation>,
    start: usize,
    len: usize,
    _t: PhantomData<&'a mut T>,
}

/// What both view kinds share.
macro_rules! view_common {
    ($view:ident) => {
        impl<'a, T: DataType> $view<'a, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view has no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// The device holding the buffer.
            pub fn device(&self) -> &Device {
                &self.alloc.device
            }

            /// The device address of the first element, **without tracking**: work
            /// enqueued through it neither waits for this buffer's pending work nor is
            /// waited for. Prefer `with_device_ptr`.
            ///
            /// # Safety
            ///
            /// Whoever uses the address must order that use against every other use
            /// of the memory, and must not use it after the buffer is dropped.
            pub unsafe fn device_ptr(&self) -> DevicePtr {
                DevicePtr(self.addr())
            }

            pub(crate) fn addr(&self) -> u64 {
                self.alloc.ptr + (self.start * T::DTYPE.size()) as u64
            }

            pub(crate) fn bytes(&self) -> Range<usize> {
                let size = T::DTYPE.size();
                self.start * size..(self.start + self.len) * size
            }
        }

        impl<T: DataType> fmt::Debug for $view<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "{}<{}>([{}..{}) on {})",
                    stringify!($view),
                    T::DTYPE,
                    self.start,
                    self.start + self.len,
                    self.alloc.device
                )
            }
        }
    };
}

view_common!(DeviceView);
view_common!(DeviceViewMut);

impl<'a, T: DataType> DeviceView<'a, T> {
    /// This view's read, owning the allocation (for calls collected before enqueue).
    pub(crate) fn owned_read(&self) -> OwnedUse {
        self.read_use().owned(self.alloc)
    }

    pub(crate) fn read_use(&self) -> Use<'a> {
        Use {
            tracker: &self.alloc.tracker,
            range: self.bytes(),
            write: false,
            poison: None,
        }
    }

    /// Elements `range` of this view.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`].
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'a, T>> {
        let r = resolve_range("view", range, self.len)?;
        Ok(DeviceView {
            alloc: self.alloc,
            start: self.start + r.start,
            len: r.len(),
            _t: PhantomData,
        })
    }

    /// Copies the view into a `Vec`, blocking until the copy (and the work it waits
    /// for) is done.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; errors of the stream's work.
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut host = HostBuffer::<T>::new(self.device(), self.len)?;
        self.copy_to_host_async(stream, &mut host)?;
        host.to_vec()
    }

    /// Enqueues a copy into `host`; returns at once. `host` is readable once the copy
    /// is done ([`HostBuffer::as_slice`] waits for it).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`], [`Error::WrongDevice`].
    pub fn copy_to_host_async(&self, stream: &Stream, host: &mut HostBuffer<T>) -> Result<()> {
        check_len("copy to host", self.len, host.len)?;
        check_same_device("copy to host", self.device(), &host.device)?;
        let s = user_stream("copy to host", stream, self.device())?;
        let bytes = self.len * T::DTYPE.size();
        let host_use = Use {
            tracker: &host.tracker,
            range: 0..bytes,
            write: true,
            poison: None,
        };
        let (src, mem) = (self.addr(), host.mem.clone());
        enqueue(s, &[self.read_use(), host_use], |imp| {
            copy_dtoh(imp, &mem, src, bytes)
        })
    }

    /// Lends the device address to `f` for a foreign kernel that **reads** the view,
    /// enqueued by `f` on `stream`: this stream first waits for pending writes by
    /// other streams, and the use is recorded after `f` returns.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn with_device_ptr<R>(&self, stream: &Stream, f: impl FnOnce(DevicePtr) -> R) -> Result<R> {
        let s = user_stream("with_device_ptr", stream, self.device())?;
        let mut out = None;
        let addr = self.addr();
        enqueue(s, &[self.read_use()], |_| {
            out = Some(f(DevicePtr(addr)));
            Ok(())
        })?;
        Ok(out.expect("run was called"))
    }
}

impl<'a, T: DataType> DeviceViewMut<'a, T> {
    /// This view, read-only.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            alloc: self.alloc,
            start: self.start,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// A shorter-lived writable view of the same elements.
    pub fn reborrow(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut {
            alloc: self.alloc,
            start: self.start,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// Elements `range` of this view, writable.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`].
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'_, T>> {
        self.reborrow().into_slice(range)
    }

    /// Consumes the view into elements `range` of it.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`].
    pub fn into_slice(self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'a, T>> {
        let r = resolve_range("view", range, self.len)?;
        Ok(DeviceViewMut {
            alloc: self.alloc,
            start: self.start + r.start,
            len: r.len(),
            _t: PhantomData,
        })
    }

    /// Splits into `[0, mid)` and `[mid, len)`, independent of each other.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at_mut(self, mid: usize) -> Result<(DeviceViewMut<'a, T>, DeviceViewMut<'a, T>)> {
        if mid > self.len {
            return Err(Error::OutOfRange {
                op: "split_at_mut",
                start: mid,
                end: mid,
                len: self.len,
            });
        }
        let left = DeviceViewMut {
            alloc: self.alloc,
            start: self.start,
            len: mid,
            _t: PhantomData,
        };
        let right = DeviceViewMut {
            alloc: self.alloc,
            start: self.start + mid,
            len: self.len - mid,
            _t: PhantomData,
        };
        Ok((left, right))
    }

    /// This view's write, owning the allocation (for calls collected before enqueue).
    pub(crate) fn owned_write(&self, poison: bool) -> OwnedUse {
        self.write_use(poison).owned(self.alloc)
    }

    pub(crate) fn write_use(&self, poison: bool) -> Use<'a> {
        let poison = poison.then(|| self.addr());
        Use {
            tracker: &self.alloc.tracker,
            range: self.bytes(),
            write: true,
            poison,
        }
    }

    /// Sets every element to `value`.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn fill(&mut self, stream: &Stream, value: T) -> Result<()> {
        let s = user_stream("fill", stream, self.device())?;
        let mut pattern = vec![0u8; T::DTYPE.size()];
        value.write_le(&mut pattern);
        let (dst, count) = (self.addr(), self.len);
        enqueue(s, &[self.write_use(true)], |imp| match imp {
            StreamImpl::Cuda(c) => c.fill(dst, count, &pattern),
            StreamImpl::Sim(sim) => {
                let device = sim.device.clone();
                sim.submit(Box::new(move || {
                    let mut bytes = vec![0u8; count * pattern.len()];
                    for chunk in bytes.chunks_exact_mut(pattern.len()) {
                        chunk.copy_from_slice(&pattern);
                    }
                    device.write(dst, &bytes)
                }))
            }
        })
    }

    /// Adds `value` to every element (integers wrap; floats round to nearest).
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn add_scalar(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.elementwise(
            "add_scalar",
            stream,
            ElementwiseKernel::AddScalar,
            value,
            |x, v| x.add(v),
        )
    }

    /// Multiplies every element by `value` (integers wrap; floats round to nearest).
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn scale(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.elementwise("scale", stream, ElementwiseKernel::Scale, value, |x, v| {
            x.mul(v)
        })
    }

    fn elementwise(
        &mut self,
        op: &'static str,
        stream: &Stream,
        kernel: ElementwiseKernel,
        value: T,
        f: fn(T, T) -> T,
    ) -> Result<()> {
        let s = user_stream(op, stream, self.device())?;
        let mut scalar = vec![0u8; T::DTYPE.size()];
        value.write_le(&mut scalar);
        let (dst, count) = (self.addr(), self.len);
        // In place: the input is the output, so it is not poisoned.
        enqueue(s, &[self.write_use(false)], |imp| match imp {
            StreamImpl::Cuda(c) => c.elementwise(kernel, T::DTYPE, dst, count, &scalar),
            StreamImpl::Sim(sim) => {
                let device = sim.device.clone();
                sim.submit(Box::new(move || {
                    let apply = move |chunk: &mut [u8]| f(T::read_le(chunk), value).write_le(chunk);
                    crate::sim::elementwise(&device, dst, count, T::DTYPE, &apply)
                }))
            }
        })
    }

    /// Copies `src` (same length, same device) into this view.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`], [`Error::WrongDevice`].
    pub fn copy_from(&mut self, stream: &Stream, src: &DeviceView<'_, T>) -> Result<()> {
        check_len("copy device to device", self.len, src.len)?;
        check_same_device("copy device to device", self.device(), src.device())?;
        let s = user_stream("copy device to device", stream, self.device())?;
        let (dst, from, bytes) = (self.addr(), src.addr(), self.len * T::DTYPE.size());
        enqueue(
            s,
            &[src.read_use(), self.write_use(true)],
            |imp| match imp {
                StreamImpl::Cuda(c) => c.copy_dtod(dst, from, bytes),
                StreamImpl::Sim(sim) => {
                    let device = sim.device.clone();
                    sim.submit(Box::new(move || {
                        let mut tmp = vec![0u8; bytes];
                        device.read(from, &mut tmp)?;
                        device.write(dst, &tmp)
                    }))
                }
            },
        )
    }

    /// Overwrites the view with `data`, blocking until the copy is done.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`], [`Error::WrongDevice`]; errors of the stream's work.
    pub fn copy_from_slice(&mut self, stream: &Stream, data: &[T]) -> Result<()> {
        check_len("copy from slice", self.len, data.len())?;
        let host = HostBuffer::from_slice(self.device(), data)?;
        self.copy_from_host_async(stream, &host)?;
        host.wait()
    }

    /// Enqueues a copy from `host`; returns at once. `host` stays readable; writing
    /// it ([`HostBuffer::as_mut_slice`]) waits for the copy.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`], [`Error::WrongDevice`].
    pub fn copy_from_host_async(&mut self, stream: &Stream, host: &HostBuffer<T>) -> Result<()> {
        check_len("copy from host", self.len, host.len)?;
        check_same_device("copy from host", self.device(), &host.device)?;
        let s = user_stream("copy from host", stream, self.device())?;
        let bytes = self.len * T::DTYPE.size();
        let host_use = Use {
            tracker: &host.tracker,
            range: 0..bytes,
            write: false,
            poison: None,
        };
        let (dst, mem) = (self.addr(), host.mem.clone());
        enqueue(s, &[host_use, self.write_use(true)], |imp| {
            copy_htod(imp, dst, &mem, bytes)
        })
    }

    /// Lends the device address to `f` for a foreign kernel that **writes** the view,
    /// enqueued by `f` on `stream`: this stream first waits for every pending use by
    /// other streams, and the write is recorded after `f` returns.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn with_device_ptr_mut<R>(
        &mut self,
        stream: &Stream,
        f: impl FnOnce(DevicePtr) -> R,
    ) -> Result<R> {
        let s = user_stream("with_device_ptr_mut", stream, self.device())?;
        let mut out = None;
        let addr = self.addr();
        enqueue(s, &[self.write_use(false)], |_| {
            out = Some(f(DevicePtr(addr)));
            Ok(())
        })?;
        Ok(out.expect("run was called"))
    }
}

fn copy_htod(imp: &StreamImpl, dst: u64, mem: &Arc<HostMem>, bytes: usize) -> Result<()> {
    match imp {
        // SAFETY: `mem` outlives the copy: its owner's tracker holds the copy's event
        // and defers freeing pinned memory until it completes.
        StreamImpl::Cuda(c) => unsafe { c.copy_htod(dst, mem.ptr, bytes) },
        StreamImpl::Sim(sim) => {
            let (device, mem) = (sim.device.clone(), mem.clone());
            sim.submit(Box::new(move || {
                // SAFETY: `mem` holds `bytes` bytes and is kept alive by this task;
                // host-side access waits for this task's event.
                let src = unsafe { std::slice::from_raw_parts(mem.ptr, bytes) };
                device.write(dst, src)
            }))
        }
    }
}

fn copy_dtoh(imp: &StreamImpl, mem: &Arc<HostMem>, src: u64, bytes: usize) -> Result<()> {
    match imp {
        // SAFETY: as in `copy_htod`.
        StreamImpl::Cuda(c) => unsafe { c.copy_dtoh(mem.ptr, src, bytes) },
        StreamImpl::Sim(sim) => {
            let (device, mem) = (sim.device.clone(), mem.clone());
            sim.submit(Box::new(move || {
                // SAFETY: as above; no host reference to the memory exists while the
                // copy is pending (host access waits for it).
                let dst = unsafe { std::slice::from_raw_parts_mut(mem.ptr, bytes) };
                device.read(src, dst)
            }))
        }
    }
}

/// Host memory owned by the library: page-locked on cuda, 64-byte aligned heap
/// memory on the sim.
pub(crate) struct HostMem {
    ptr: *mut u8,
    bytes: usize,
    pinned: Option<PinnedHost>,
}

// SAFETY: plain memory; every access is ordered by the owning buffer's tracker.
unsafe impl Send for HostMem {}
// SAFETY: as above.
unsafe impl Sync for HostMem {}

const HOST_ALIGN: usize = 64;

impl HostMem {
    fn new(device: &Device, bytes: usize) -> Result<HostMem> {
        match &device.inner.imp {
            DeviceImpl::Cuda(d) => {
                let pinned = PinnedHost::new(d.clone(), bytes)?;
                Ok(HostMem {
                    ptr: pinned.ptr,
                    bytes,
                    pinned: Some(pinned),
                })
            }
            DeviceImpl::Sim(_) => {
                let layout = std::alloc::Layout::from_size_align(bytes.max(1), HOST_ALIGN)
                    .map_err(|_| Error::InvalidArgument {
                        op: "host alloc",
                        reason: format!("{bytes} bytes is too large"),
                    })?;
                // SAFETY: the layout has a non-zero size.
                let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
                if ptr.is_null() {
                    return Err(Error::OutOfMemory {
                        driver: crate::DriverKind::Sim,
                        ordinal: device.ordinal(),
                        requested: bytes,
                        available: 0,
                    });
                }
                Ok(HostMem {
                    ptr,
                    bytes,
                    pinned: None,
                })
            }
        }
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        if self.pinned.is_none() {
            let layout = std::alloc::Layout::from_size_align(self.bytes.max(1), HOST_ALIGN)
                .expect("the layout was valid at allocation");
            // SAFETY: allocated in `new` with this layout, freed once.
            unsafe { std::alloc::dealloc(self.ptr, layout) };
        }
    }
}

/// Pinned host memory whose cuda copies are still in flight when their owner was
/// dropped: freed once those copies complete (never from a driver callback, never by
/// blocking the dropping thread).
type Graves = Mutex<Vec<(Arc<HostMem>, Vec<Arc<EventImpl>>)>>;

fn graveyard() -> &'static Graves {
    static GRAVES: OnceLock<Graves> = OnceLock::new();
    GRAVES.get_or_init(|| Mutex::new(Vec::new()))
}

fn sweep_graveyard() {
    lock(graveyard()).retain(|(_, events)| events.iter().any(|e| !matches!(e.query(), Ok(true))));
}

/// Elements of `T` in host memory that the library owns, for asynchronous copies.
///
/// Because the memory belongs to the library, a copy in flight can never outlive it:
/// reading waits for pending copies into it, writing waits for pending copies out of
/// it, and dropping it with copies pending defers the free.
///
/// ```
/// use nccl_safe::{Device, DeviceBuffer, HostBuffer, Stream};
/// let dev = Device::sim(0)?;
/// let s = Stream::new(&dev)?;
/// let buf = DeviceBuffer::from_slice(&s, &[7u32; 4])?;
/// let mut host = HostBuffer::new(&dev, 4)?;
/// buf.as_view().copy_to_host_async(&s, &mut host)?; // returns at once
/// assert_eq!(host.as_slice()?, &[7, 7, 7, 7]);         // waits for the copy
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct HostBuffer<T: DataType> {
    device: Device,
    mem: Arc<HostMem>,
    len: usize,
    tracker: Mutex<Tracker>,
    _t: PhantomData<T>,
}

impl<T: DataType> HostBuffer<T> {
    /// `len` zeroed elements, usable with streams of `device`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when the size overflows; a driver error.
    pub fn new(device: &Device, len: usize) -> Result<HostBuffer<T>> {
        sweep_graveyard();
        let bytes = len
            .checked_mul(T::DTYPE.size())
            .ok_or_else(|| Error::InvalidArgument {
                op: "host alloc",
                reason: format!("{len} elements of {} overflow the address space", T::DTYPE),
            })?;
        let mem = Arc::new(HostMem::new(device, bytes)?);
        Ok(HostBuffer {
            device: device.clone(),
            mem,
            len,
            tracker: Mutex::new(Tracker::default()),
            _t: PhantomData,
        })
    }

    /// A host buffer holding a copy of `data`.
    ///
    /// # Errors
    ///
    /// As [`HostBuffer::new`].
    pub fn from_slice(device: &Device, data: &[T]) -> Result<HostBuffer<T>> {
        let mut h = Self::new(device, data.len())?;
        h.as_mut_slice()?.copy_from_slice(data);
        Ok(h)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether no copy into or out of the buffer is pending. Never blocks.
    pub fn is_ready(&self) -> bool {
        lock(&self.tracker).pending().is_empty()
    }

    /// Blocks until no copy into or out of the buffer is pending.
    ///
    /// # Errors
    ///
    /// A driver error.
    pub fn wait(&self) -> Result<()> {
        let pending = lock(&self.tracker).pending();
        for e in pending {
            e.synchronize(None)?;
        }
        Ok(())
    }

    /// As [`HostBuffer::wait`], giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`].
    pub fn wait_timeout(&self, timeout: Duration) -> Result<()> {
        let deadline = std::time::Instant::now() + timeout;
        let pending = lock(&self.tracker).pending();
        for e in pending {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            e.synchronize(Some(left)).map_err(|err| match err {
                Error::Timeout { op, .. } => Error::Timeout {
                    op,
                    waited: timeout,
                },
                other => other,
            })?;
        }
        Ok(())
    }

    /// The elements, after waiting for pending copies.
    ///
    /// # Errors
    ///
    /// As [`HostBuffer::wait`].
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        // SAFETY: the memory holds `len` initialised elements (zeroed at allocation,
        // and every bit pattern is a valid `T`: all `DataType`s are plain numbers),
        // is aligned to 64 bytes, and no copy writes it any more (waited above; new
        // copies into it need `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(self.mem.ptr.cast::<T>(), self.len) })
    }

    /// The elements, writable, after waiting for pending copies.
    ///
    /// # Errors
    ///
    /// As [`HostBuffer::wait`].
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as in `as_slice`; `&mut self` excludes every other access, and no
        // copy reads or writes it any more (waited above).
        Ok(unsafe { std::slice::from_raw_parts_mut(self.mem.ptr.cast::<T>(), self.len) })
    }

    /// The elements in a `Vec`, after waiting for pending copies.
    ///
    /// # Errors
    ///
    /// As [`HostBuffer::wait`].
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Enqueues a copy of `len` elements from the raw device address `src` into this
    /// buffer, **without** tracking the device side (the host side is tracked).
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error (the sim reports a bad address when the
    /// copy runs, on the stream).
    ///
    /// # Safety
    ///
    /// `src` must address `len` elements of live memory on the stream's device, and
    /// the caller must order this read against writes to it.
    pub unsafe fn copy_from_device_raw(&mut self, stream: &Stream, src: DevicePtr) -> Result<()> {
        let s = user_stream("raw copy to host", stream, &self.device)?;
        let bytes = self.len * T::DTYPE.size();
        let host_use = Use {
            tracker: &self.tracker,
            range: 0..bytes,
            write: true,
            poison: None,
        };
        let mem = self.mem.clone();
        enqueue(s, &[host_use], |imp| copy_dtoh(imp, &mem, src.0, bytes))
    }
}

impl<T: DataType> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        let pending = lock(&self.tracker).pending();
        if self.mem.pinned.is_some() && !pending.is_empty() {
            lock(graveyard()).push((self.mem.clone(), pending));
        }
    }
}

impl<T: DataType> fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HostBuffer<{}>({} elements for {})",
            T::DTYPE,
            self.len,
            self.device
        )
    }
}
