//! [`DeviceBuffer`]: the owner of a device allocation.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::alloc::Allocation;
use super::view::{AsDeviceView, AsDeviceViewMut, DeviceView, DeviceViewMut};
use crate::dtype::DataType;
use crate::{Device, Error, Result, Stream};

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

/// The methods a buffer that owns its whole allocation has, written once for
/// [`DeviceBuffer`] and the cudarc interop's `CudarcBuffer`: each goes through the
/// type's `as_view`/`as_view_mut` (so through the same tracking); the type has a `len`
/// field.
macro_rules! whole_buffer_methods {
    () => {
        /// Number of elements.
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether the buffer has no elements.
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// Elements `range`, read-only.
        ///
        /// # Errors
        ///
        /// [`Error::OutOfRange`](crate::Error::OutOfRange).
        pub fn view(
            &self,
            range: impl std::ops::RangeBounds<usize>,
        ) -> $crate::Result<$crate::DeviceView<'_, T>> {
            self.as_view().slice(range)
        }

        /// Elements `range`, writable.
        ///
        /// # Errors
        ///
        /// [`Error::OutOfRange`](crate::Error::OutOfRange).
        pub fn view_mut(
            &mut self,
            range: impl std::ops::RangeBounds<usize>,
        ) -> $crate::Result<$crate::DeviceViewMut<'_, T>> {
            self.as_view_mut().into_slice(range)
        }

        /// Two independent writable halves, `[0, mid)` and `[mid, len)`: work on one
        /// never waits for work on the other.
        ///
        /// # Errors
        ///
        /// [`Error::OutOfRange`](crate::Error::OutOfRange) when `mid > len`.
        pub fn split_at_mut(
            &mut self,
            mid: usize,
        ) -> $crate::Result<($crate::DeviceViewMut<'_, T>, $crate::DeviceViewMut<'_, T>)> {
            self.as_view_mut().split_at_mut(mid)
        }

        /// Copies the buffer to a `Vec`, blocking until the copy is done.
        ///
        /// # Errors
        ///
        /// As [`DeviceView::to_vec`](crate::DeviceView::to_vec).
        pub fn to_vec(&self, stream: &$crate::Stream) -> $crate::Result<Vec<T>> {
            self.as_view().to_vec(stream)
        }

        /// Sets every element to `value`.
        ///
        /// # Errors
        ///
        /// As [`DeviceViewMut::fill`](crate::DeviceViewMut::fill).
        pub fn fill(&mut self, stream: &$crate::Stream, value: T) -> $crate::Result<()> {
            self.as_view_mut().fill(stream, value)
        }

        /// Adds `value` to every element.
        ///
        /// # Errors
        ///
        /// As [`DeviceViewMut::add_scalar`](crate::DeviceViewMut::add_scalar).
        pub fn add_scalar(&mut self, stream: &$crate::Stream, value: T) -> $crate::Result<()> {
            self.as_view_mut().add_scalar(stream, value)
        }

        /// Multiplies every element by `value`.
        ///
        /// # Errors
        ///
        /// As [`DeviceViewMut::scale`](crate::DeviceViewMut::scale).
        pub fn scale(&mut self, stream: &$crate::Stream, value: T) -> $crate::Result<()> {
            self.as_view_mut().scale(stream, value)
        }
    };
}
#[cfg(feature = "cudarc")]
pub(crate) use whole_buffer_methods;

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

    /// `len` uninitialised elements that NCCL allocates (`ncclMemAlloc`): memory
    /// NCCL's buffer registration and symmetric windows use at their best (on
    /// NVLink, multicast-capable pages).
    ///
    /// It differs from [`DeviceBuffer::alloc`] in one way: `ncclMemAlloc` is not
    /// stream-ordered. It returns once the memory exists, and `ncclMemFree` may wait
    /// for the device. Its uses are ordered as any buffer's, and dropping it never
    /// blocks: it is freed once its pending uses have completed, on the thread that
    /// next allocates or frees on the device. On the sim it is an ordinary
    /// allocation, marked as NCCL's ([`DeviceBuffer::is_nccl_memory`]).
    ///
    /// # Errors
    ///
    /// As [`DeviceBuffer::alloc`]; NCCL's errors (`ncclMemAlloc` needs NCCL 2.19.1).
    pub fn alloc_nccl(device: &Device, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len
            .checked_mul(T::DTYPE.size())
            .ok_or_else(|| Error::InvalidArgument {
                op: "alloc_nccl",
                reason: format!("{len} elements of {} overflow the address space", T::DTYPE),
            })?;
        if device.driver() == crate::DriverKind::Cuda {
            crate::features::require(crate::DriverKind::Cuda, None, crate::Feature::Registration)?;
        }
        Ok(DeviceBuffer {
            alloc: Allocation::new_nccl(device, bytes)?,
            len,
            _t: PhantomData,
        })
    }

    /// Whether NCCL allocated this buffer ([`DeviceBuffer::alloc_nccl`]).
    pub fn is_nccl_memory(&self) -> bool {
        self.alloc.is_nccl()
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

    /// Overwrites the buffer with `data`, blocking until the copy is done.
    ///
    /// # Errors
    ///
    /// As [`DeviceViewMut::copy_from_slice`].
    pub fn copy_from_slice(&mut self, stream: &Stream, data: &[T]) -> Result<()> {
        self.as_view_mut().copy_from_slice(stream, data)
    }

    whole_buffer_methods!();
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

impl<T: DataType> AsDeviceView<T> for DeviceBuffer<T> {
    fn device_view(&self) -> DeviceView<'_, T> {
        self.as_view()
    }
}

impl<T: DataType> AsDeviceViewMut<T> for DeviceBuffer<T> {
    fn device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.as_view_mut()
    }
}
