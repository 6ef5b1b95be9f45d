//! Windows on device buffers ([`DeviceView`], [`DeviceViewMut`]) and the operations
//! enqueued on them: copies, fills, elementwise ops, raw pointers lent with their
//! waits inserted.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Range, RangeBounds};
use std::sync::Arc;

use super::alloc::{Allocation, DevicePtr, OwnedUse, check_len, resolve_range, user_stream};
use super::host::HostBuffer;
use super::tracker::{Use, enqueue};
use crate::base::types::Elementwise;
use crate::dtype::DataType;
use crate::stream::check_same_device;
use crate::{Device, Error, Result, Stream};

/// A read-only window on a device buffer.
#[derive(Clone, Copy)]
pub struct DeviceView<'a, T: DataType> {
    pub(super) alloc: &'a Arc<Allocation>,
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) _t: PhantomData<&'a T>,
}

/// A writable window on a device buffer.
pub struct DeviceViewMut<'a, T: DataType> {
    pub(super) alloc: &'a Arc<Allocation>,
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) _t: PhantomData<&'a mut T>,
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

            /// The allocation the view is a window on.
            #[allow(dead_code)] // registration takes read-only views
            pub(crate) fn allocation(&self) -> &Arc<super::alloc::Allocation> {
                self.alloc
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
    /// All `len` elements of `alloc` (for adapters of other libraries' memory).
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) fn whole(alloc: &'a Arc<Allocation>, len: usize) -> DeviceView<'a, T> {
        DeviceView {
            alloc,
            start: 0,
            len,
            _t: PhantomData,
        }
    }

    /// This view's read, owning the allocation (for calls collected before enqueue).
    pub(crate) fn owned_read(&self) -> OwnedUse {
        self.read_use().owned(self.alloc)
    }

    pub(crate) fn read_use(&self) -> Use<'a> {
        Use {
            tracker: self.alloc.tracker(),
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
    /// [`Error::WrongDevice`]; errors of the stream's work, and [`Error::Aborted`] when
    /// an abort cut short an operation on `stream` (see [`Stream::synchronize`]).
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut host = HostBuffer::<T>::new(self.device(), self.len)?;
        self.copy_to_host_async(stream, &mut host)?;
        let values = host.to_vec()?;
        // What an abort cut short on this stream left undefined (see
        // `Stream::synchronize`) is not returned as values.
        stream.inner.check_failure()?;
        Ok(values)
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
        if bytes == 0 {
            return Ok(()); // nothing to copy (and nothing a free must wait for)
        }
        let (src, mem) = (self.addr(), host.mem.clone());
        // SAFETY: the host buffer's tracker holds the copy's write until it completes:
        // nothing reads or writes `mem` before, and a drop defers the free.
        enqueue(s, &[self.read_use(), host_use], |imp| unsafe {
            imp.copy_dtoh(&mem, src, bytes)
        })
    }

    /// Enqueues on `stream` a scan of the view for values that are not finite (NaN or
    /// infinity): when it has run, `out[0]` holds the index of the first such element,
    /// or `u64::MAX` when every element is finite. Returns at once; the host never
    /// waits (read `out` once the stream has passed the scan). Integer views are
    /// finite: nothing is scanned. On the sim the scan runs on the stream's thread; on
    /// cuda it is a kernel.
    ///
    /// ```
    /// # use nccl_safe::{Device, DeviceBuffer, Stream};
    /// let s = Stream::new(&Device::sim(0)?)?;
    /// let x = DeviceBuffer::from_slice(&s, &[1.0f32, 2.0, f32::NAN, f32::INFINITY])?;
    /// let mut first = DeviceBuffer::<u64>::zeroed(&s, 1)?;
    /// x.as_view().find_non_finite(&s, &mut first.as_view_mut())?;
    /// assert_eq!(first.to_vec(&s)?, [2]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `out` is empty; [`Error::WrongDevice`]; a driver
    /// error.
    pub fn find_non_finite(&self, stream: &Stream, out: &mut DeviceViewMut<'_, u64>) -> Result<()> {
        check_same_device("find non-finite", self.device(), out.device())?;
        if out.len == 0 {
            return Err(Error::LengthMismatch {
                op: "find non-finite",
                expected: 1,
                actual: 0,
            });
        }
        let mut first = out.slice_mut(0..1)?;
        first.fill(stream, u64::MAX)?;
        if T::DTYPE.non_finite_mask().is_none() || self.len == 0 {
            return Ok(());
        }
        let s = user_stream("find non-finite", stream, self.device())?;
        let (src, count, dst) = (self.addr(), self.len, first.addr());
        enqueue(s, &[self.read_use(), first.write_use(false)], |imp| {
            imp.find_non_finite(T::DTYPE, src, count, dst)
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
    /// All `len` elements of `alloc`, writable (for adapters of other libraries'
    /// memory; the caller holds the only handle).
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) fn whole(alloc: &'a Arc<Allocation>, len: usize) -> DeviceViewMut<'a, T> {
        DeviceViewMut {
            alloc,
            start: 0,
            len,
            _t: PhantomData,
        }
    }

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
            tracker: self.alloc.tracker(),
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
        if count == 0 {
            return Ok(()); // empty: nothing to do, nothing a free must wait for
        }
        enqueue(s, &[self.write_use(true)], |imp| {
            imp.fill(dst, count, pattern)
        })
    }

    /// Adds `value` to every element (integers wrap; floats round to nearest).
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn add_scalar(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.elementwise("add_scalar", stream, Elementwise::AddScalar, value)
    }

    /// Multiplies every element by `value` (integers wrap; floats round to nearest).
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a driver error.
    pub fn scale(&mut self, stream: &Stream, value: T) -> Result<()> {
        self.elementwise("scale", stream, Elementwise::Scale, value)
    }

    fn elementwise(
        &mut self,
        op: &'static str,
        stream: &Stream,
        kernel: Elementwise,
        value: T,
    ) -> Result<()> {
        let s = user_stream(op, stream, self.device())?;
        let mut scalar = vec![0u8; T::DTYPE.size()];
        value.write_le(&mut scalar);
        let (dst, count) = (self.addr(), self.len);
        if count == 0 {
            return Ok(());
        }
        // In place: the input is the output, so it is not poisoned.
        enqueue(s, &[self.write_use(false)], |imp| {
            imp.elementwise(kernel, T::DTYPE, dst, count, scalar)
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
        if bytes == 0 {
            return Ok(());
        }
        enqueue(s, &[src.read_use(), self.write_use(true)], |imp| {
            imp.copy_dtod(dst, from, bytes)
        })
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
        if bytes == 0 {
            return Ok(());
        }
        let (dst, mem) = (self.addr(), host.mem.clone());
        // SAFETY: the host buffer's tracker holds the copy's read until it completes:
        // nothing writes `mem` before, and a drop defers the free.
        enqueue(s, &[host_use, self.write_use(true)], |imp| unsafe {
            imp.copy_htod(dst, &mem, bytes)
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

/// Things that can be read as a device view: buffers and views.
pub trait AsDeviceView<T: DataType> {
    /// The whole of it, read-only.
    fn device_view(&self) -> DeviceView<'_, T>;
}

/// Things that can be written as a device view: buffers and writable views.
pub trait AsDeviceViewMut<T: DataType>: AsDeviceView<T> {
    /// The whole of it, writable.
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T>;
}

impl<T: DataType> AsDeviceView<T> for DeviceView<'_, T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        *self
    }
}

impl<T: DataType> AsDeviceView<T> for DeviceViewMut<'_, T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        self.as_view()
    }
}

impl<T: DataType> AsDeviceViewMut<T> for DeviceViewMut<'_, T> {
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.reborrow()
    }
}
