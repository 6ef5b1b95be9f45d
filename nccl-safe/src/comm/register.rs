//! Buffer registration (`ncclCommRegister`/`ncclCommDeregister`): a [`Registration`]
//! keeps the registered memory allocated, and is released when the memory goes,
//! after every operation on it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Communicator;
use super::communicator::CommInner;
use crate::features::Feature;
use crate::memory::AsDeviceView;
use crate::memory::alloc::Allocation;
use crate::stream::check_same_device;
use crate::{DataType, Error, Result};

/// A buffer registered with a communicator ([`Communicator::register`]): NCCL may
/// then move its data without staging copies (zero-copy point-to-point, NVLink
/// SHARP, CollNet). Nothing else changes: collectives take the buffer as before, and
/// NCCL finds the registration by address.
///
/// The registration holds the buffer's memory: dropping the
/// [`DeviceBuffer`](crate::DeviceBuffer) while it is registered frees nothing, so
/// NCCL never holds a registration of freed memory. Dropping the registration (or
/// [`Registration::deregister`]) never blocks, and its release waits for the memory
/// to go: NCCL finds registrations by address, so one released while its buffer can
/// still be used could be found by a later call and released under it. It is
/// released once neither the buffer nor the registration holds the memory and every
/// operation on it has completed, then the memory is freed: register a buffer once,
/// not once per step. Closing or aborting the communicator releases its
/// registrations (NCCL releases them with it).
#[must_use = "dropping a Registration releases it at once"]
pub struct Registration {
    comm: Arc<CommInner>,
    // Held for the registration's life: the memory it names stays allocated.
    _alloc: Arc<Allocation>,
    bytes: usize,
    handle: usize,
    released: bool,
}

impl Communicator {
    /// Registers the memory of `buf` (a buffer or a view of one) with this
    /// communicator (`ncclCommRegister`). Local: no other rank takes part.
    ///
    /// ```
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream};
    /// let dev = Device::sim(0)?;
    /// let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())?.remove(0);
    /// let s = Stream::new(&dev)?;
    /// let mut grads = DeviceBuffer::<f32>::alloc_nccl(&dev, 1024)?;
    /// grads.fill(&s, 1.0)?;
    /// let reg = comm.register(&grads)?;
    /// comm.all_reduce_in_place(&mut grads, ReduceOp::Sum, &s)?; // as before
    /// assert_eq!(comm.registrations(), 1);
    /// drop(grads); // the memory stays: the registration holds it
    /// reg.deregister(); // released when the memory goes, after the all-reduce
    /// s.synchronize()?;
    /// # comm.close()?;
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an empty buffer; [`Error::WrongDevice`];
    /// [`Error::UnsupportedByNccl`] below NCCL 2.19.1; a communicator that cannot
    /// take calls (aborted, closed, finalized, suspended); NCCL's errors.
    pub fn register<T: DataType>(&self, buf: &impl AsDeviceView<T>) -> Result<Registration> {
        const OP: &str = "register";
        let inner = &self.inner;
        let v = buf.device_view();
        registrable(inner, OP, Feature::Registration, &v)?;
        let bytes = v.bytes().len();
        let handle = inner.imp.register(v.addr(), bytes)?;
        inner.registrations.fetch_add(1, Ordering::AcqRel);
        Ok(Registration {
            comm: inner.clone(),
            _alloc: v.allocation().clone(),
            bytes,
            handle,
            released: false,
        })
    }

    /// How many registrations this communicator holds: those made and not yet
    /// released (a dropped [`Registration`] is released when its memory goes).
    pub fn registrations(&self) -> usize {
        self.inner.registrations.load(Ordering::Acquire)
    }
}

impl Registration {
    /// The bytes registered.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Releases the registration: its deregistration (`ncclCommDeregister`) runs
    /// when its memory goes, once nothing holds the buffer (so no call can find the
    /// registration any more) and every operation on it has completed; NCCL's error
    /// then, if any, is logged. Dropping the registration does the same.
    pub fn deregister(self) {
        drop(self);
    }

    fn release(&mut self) {
        if !std::mem::replace(&mut self.released, true) {
            let handle = self.handle;
            release_with_memory(&self._alloc, &self.comm, "registration", move |c| {
                (&c.registrations, c.imp.deregister(handle))
            });
        }
    }
}

/// The checks every registration of `v` with `inner` makes first (`feature` is the
/// NCCL feature it needs).
pub(super) fn registrable<T: DataType>(
    inner: &CommInner,
    op: &'static str,
    feature: Feature,
    v: &crate::DeviceView<'_, T>,
) -> Result<()> {
    crate::features::require(inner.imp.kind(), inner.config.sim_nccl_version, feature)?;
    inner.check_issuable(op)?;
    check_same_device(op, &inner.device, v.device())?;
    if v.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            reason: "the buffer is empty: there is nothing to register".into(),
        });
    }
    Ok(())
}

/// Hands `alloc` a release of something `comm` registered (a `what`), to run when the
/// memory goes: `release` deregisters and names the count to lower.
pub(super) fn release_with_memory(
    alloc: &Allocation,
    comm: &Arc<CommInner>,
    what: &'static str,
    release: impl FnOnce(&CommInner) -> (&std::sync::atomic::AtomicUsize, Result<()>)
    + Send
    + Sync
    + 'static,
) {
    let comm = comm.clone();
    alloc.before_free(Box::new(move || {
        let (count, released) = release(&comm);
        count.fetch_sub(1, Ordering::AcqRel);
        if let Err(e) = released {
            log::warn!("releasing a {what} failed: {e}");
        }
    }));
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.release();
    }
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Registration({} bytes with rank {} of {})",
            self.bytes, self.comm.rank, self.comm.size
        )
    }
}
