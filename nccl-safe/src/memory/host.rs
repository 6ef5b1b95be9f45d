//! [`HostBuffer`]: host memory owned by the library (pinned on cuda) for asynchronous
//! copies, so that a copy in flight can never outlive the memory it uses.

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::alloc::{DevicePtr, user_stream};
use super::tracker::{Tracker, Use, enqueue};
use crate::driver::{HostAlloc, SharedEvent};
use crate::dtype::DataType;
use crate::sync::lock;
use crate::{Device, Error, Result, Stream};

/// Pinned host memory whose cuda copies are still in flight when their owner was
/// dropped: freed once those copies complete (never from a driver callback, never by
/// blocking the dropping thread).
type Graves = Mutex<Vec<(Arc<HostAlloc>, Vec<SharedEvent>)>>;

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
    pub(super) device: Device,
    pub(super) mem: Arc<HostAlloc>,
    pub(super) len: usize,
    pub(super) tracker: Mutex<Tracker>,
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
        let mem = Arc::new(device.inner.imp.alloc_host(bytes)?);
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
        let deadline = crate::sync::deadline(timeout);
        let pending = lock(&self.tracker).pending();
        for e in pending {
            let left = crate::sync::left(deadline);
            e.synchronize((left != Duration::MAX).then_some(left))
                .map_err(|err| match err {
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
        Ok(unsafe { std::slice::from_raw_parts(self.mem.ptr().cast::<T>(), self.len) })
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
        Ok(unsafe { std::slice::from_raw_parts_mut(self.mem.ptr().cast::<T>(), self.len) })
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
        // SAFETY: this buffer's tracker holds the copy's write until it completes; the
        // caller vouches for the device side.
        enqueue(s, &[host_use], |imp| unsafe {
            imp.copy_dtoh(&mem, src.0, bytes)
        })
    }
}

impl<T: DataType> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        let pending = lock(&self.tracker).pending();
        if self.mem.is_pinned() && !pending.is_empty() {
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
