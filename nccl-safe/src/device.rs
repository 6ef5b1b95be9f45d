//! Devices on the `cuda` or `sim` driver: the public [`Device`], one per physical (or
//! simulated) device and process.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::Result;
use crate::base::host_fn::{self, Deferred};
use crate::base::types::DriverKind;
use crate::driver::{DeviceImpl, EventImpl, SharedEvent, StreamImpl, selected_driver};

/// A device's internal stream, which orders its allocations and frees, and the
/// stream's identity for buffer tracking.
pub(crate) struct InternalStream {
    pub imp: Deferred<StreamImpl>,
    pub id: u64,
}

/// Memory whose buffer was dropped while work still used it: freed once that work
/// completes, never by making a stream wait (Decision 3: nothing unrelated ever queues
/// behind a late peer's work).
struct PendingFree {
    what: Freed,
    events: Vec<SharedEvent>,
}

/// What a [`PendingFree`] releases.
enum Freed {
    /// Our own allocation, freed on the internal stream.
    Ptr(u64),
    /// Another library's object owning the memory (a cudarc slice), dropped.
    Owner(Box<dyn std::any::Any + Send + Sync>),
}

pub(crate) struct DeviceInner {
    pub imp: Deferred<DeviceImpl>,
    /// The internal stream that orders allocations and frees. It never waits for
    /// anything, so allocations never queue behind other work.
    internal: OnceLock<Result<Arc<InternalStream>>>,
    /// Frees waiting for their buffers' last uses.
    frees: Mutex<Vec<PendingFree>>,
}

/// A GPU, real or simulated. Cheap to clone; clones are the same device.
///
/// ```
/// use nccl_safe::{Device, DriverKind};
/// let gpu = Device::sim(0)?;
/// assert_eq!(gpu.driver(), DriverKind::Sim);
/// assert_eq!(gpu.to_string(), "sim:0");
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

type Registry = Mutex<HashMap<(DriverKind, usize), Weak<DeviceInner>>>;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Device {
    /// GPU `ordinal` through the CUDA driver.
    ///
    /// # Errors
    ///
    /// [`Error::Load`](crate::Error::Load) naming `libcuda.so.1` when there is no driver;
    /// [`Error::NoDevice`](crate::Error::NoDevice) when `ordinal` is not below the device count.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Self::with_driver(DriverKind::Cuda, ordinal)
    }

    /// Simulated GPU `ordinal` (`NCCL_RS_SIM_DEVICES`, default 8, exist).
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`](crate::Error::NoDevice) when `ordinal` is out of range; [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for a malformed `NCCL_RS_SIM_*` variable.
    pub fn sim(ordinal: usize) -> Result<Device> {
        Self::with_driver(DriverKind::Sim, ordinal)
    }

    /// Device `ordinal` on the driver `NCCL_RS_DRIVER` selects (see
    /// [`selected_driver`]).
    ///
    /// # Errors
    ///
    /// As [`selected_driver`], then as [`Device::cuda`] or [`Device::sim`].
    pub fn from_env(ordinal: usize) -> Result<Device> {
        Self::with_driver(selected_driver()?.kind, ordinal)
    }

    /// Device `ordinal` on `driver`. One process holds one `Device` per physical (or
    /// simulated) device: asking twice gives the same one.
    ///
    /// # Errors
    ///
    /// As [`Device::cuda`] or [`Device::sim`].
    pub fn with_driver(driver: DriverKind, ordinal: usize) -> Result<Device> {
        let mut map = crate::sync::lock(registry());
        if let Some(inner) = map.get(&(driver, ordinal)).and_then(Weak::upgrade) {
            return Ok(Device { inner });
        }
        let inner = Arc::new(DeviceInner {
            imp: Deferred::new(DeviceImpl::open(driver, ordinal)?),
            internal: OnceLock::new(),
            frees: Mutex::new(Vec::new()),
        });
        map.insert((driver, ordinal), Arc::downgrade(&inner));
        Ok(Device { inner })
    }

    /// How many devices `driver` has.
    ///
    /// # Errors
    ///
    /// [`Error::Load`](crate::Error::Load) for `cuda` without a driver library.
    pub fn count(driver: DriverKind) -> Result<usize> {
        DeviceImpl::count(driver)
    }

    /// The driver running this device.
    pub fn driver(&self) -> DriverKind {
        self.inner.imp.kind()
    }

    /// The device's ordinal on its driver.
    pub fn ordinal(&self) -> usize {
        self.inner.imp.ordinal()
    }

    /// The device's name (`"sim device 0"` on the sim).
    ///
    /// # Errors
    ///
    /// [`Error::Cuda`](crate::Error::Cuda) if the driver cannot say.
    pub fn name(&self) -> Result<String> {
        self.inner.imp.name()
    }

    /// The device's compute capability, `(major, minor)` (`(9, 0)` on the sim).
    ///
    /// # Errors
    ///
    /// [`Error::Cuda`](crate::Error::Cuda) if the driver cannot say.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        self.inner.imp.compute_capability()
    }

    /// Blocks until all work on the device, of every stream, has completed
    /// (`cuCtxSynchronize`). Nothing in this library calls it: frees and teardown never
    /// wait for the whole device.
    ///
    /// # Errors
    ///
    /// An error of the work (CUDA's sticky errors).
    pub fn synchronize(&self) -> Result<()> {
        self.inner.imp.synchronize(None)
    }

    /// As [`Device::synchronize`], giving up after `timeout` (the work stays).
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`](crate::Error::Timeout) naming what was waited for.
    pub fn synchronize_timeout(&self, timeout: std::time::Duration) -> Result<()> {
        self.inner.imp.synchronize(Some(timeout))
    }

    /// Total device memory in bytes (`NCCL_RS_SIM_MEMORY` on the sim).
    ///
    /// # Errors
    ///
    /// [`Error::Cuda`](crate::Error::Cuda) if the driver cannot say.
    pub fn total_memory(&self) -> Result<usize> {
        self.inner.imp.total_memory()
    }

    /// Bytes of device memory in use by this process's buffers (sim only: the CUDA
    /// driver's pools do not say; `None` there).
    pub fn memory_in_use(&self) -> Option<usize> {
        self.sweep_frees();
        self.inner.imp.memory_in_use()
    }

    /// The internal stream that orders this device's allocations and frees.
    pub(crate) fn internal_stream(&self) -> Result<Arc<InternalStream>> {
        self.inner
            .internal
            .get_or_init(|| {
                // The internal stream does not hold the `Device` (that would be a
                // cycle); its users carry the device themselves.
                Ok(Arc::new(InternalStream {
                    imp: Deferred::new(self.inner.imp.new_stream(true, 0)?),
                    id: crate::stream::next_stream_id(),
                }))
            })
            .clone()
    }

    /// Frees `ptr` once `events` (its buffer's last uses) have completed: at once when
    /// they have; else when the driver reports their completion (the sim's stream, or
    /// the cuda device's poller thread), or at the next allocation, free or memory
    /// query on this device, whichever comes first. No stream waits.
    pub(crate) fn free_after(&self, ptr: u64, events: Vec<SharedEvent>) {
        self.release(Freed::Ptr(ptr), events);
    }

    /// As [`Device::free_after`] for memory another library owns: `owner` is dropped
    /// once `events` have completed.
    pub(crate) fn release_after(
        &self,
        owner: Box<dyn std::any::Any + Send + Sync>,
        events: Vec<SharedEvent>,
    ) {
        self.release(Freed::Owner(owner), events);
    }

    fn release(&self, what: Freed, events: Vec<SharedEvent>) {
        if events.iter().all(|e| matches!(e.query(), Ok(true))) {
            self.free_now(what);
            return;
        }
        let watch: Vec<SharedEvent> = events.clone();
        crate::sync::lock(&self.inner.frees).push(PendingFree { what, events });
        for e in watch {
            let weak = Arc::downgrade(&self.inner);
            let sweep = Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    Device { inner }.sweep_frees();
                }
            });
            EventImpl::on_complete(&e, sweep);
        }
    }

    /// Frees every pending free whose uses have completed.
    pub(crate) fn sweep_frees(&self) {
        let ready: Vec<Freed> = {
            let mut frees = crate::sync::lock(&self.inner.frees);
            let (ready, waiting) = std::mem::take(&mut *frees)
                .into_iter()
                .partition(|f| f.events.iter().all(|e| matches!(e.query(), Ok(true))));
            *frees = waiting;
            ready.into_iter().map(|f: PendingFree| f.what).collect()
        };
        for what in ready {
            self.free_now(what);
        }
    }

    fn free_now(&self, what: Freed) {
        match what {
            Freed::Ptr(ptr) => {
                let result = self.internal_stream().and_then(|s| s.imp.free(ptr));
                if let Err(e) = result {
                    log::warn!("{self}: freeing {ptr:#x} failed: {e}");
                }
            }
            Freed::Owner(owner) => drop(owner),
        }
    }

    pub(crate) fn same_as(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // The last handle: every buffer and stream is gone. Free what still waited for
        // work that outlived its streams (bounded; leaked rather than hang).
        let frees = std::mem::take(self.frees.get_mut().unwrap_or_else(|e| e.into_inner()));
        let Some(Ok(internal)) = self.internal.get() else {
            return;
        };
        for f in frees {
            let done = f.events.iter().all(|e| {
                e.synchronize(Some(std::time::Duration::from_secs(5)))
                    .is_ok()
            });
            match f.what {
                Freed::Ptr(ptr) if done && !host_fn::inside() => {
                    let _ = internal.imp.free(ptr);
                }
                Freed::Owner(owner) if done && !host_fn::inside() => drop(owner),
                // Still in use (or no driver calls allowed here): leaked, never freed
                // under running work.
                Freed::Owner(owner) => std::mem::forget(owner),
                Freed::Ptr(_) => {}
            }
        }
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.same_as(other)
    }
}

impl Eq for Device {}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.driver(), self.ordinal())
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({self})")
    }
}
