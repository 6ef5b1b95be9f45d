//! Device allocations: stream-ordered on the device's internal stream, freed after
//! their pending uses; uses that own their allocation (for calls collected before they
//! are enqueued); and the argument checks every memory operation shares.

use std::any::Any;
use std::ops::{Bound, Range, RangeBounds};
use std::sync::{Arc, Mutex};

use super::tracker::{Tracker, Use};
use crate::base::host_fn;
use crate::stream::{StreamInner, check_same_device};
use crate::sync::lock;
use crate::{Device, Error, Result, Stream};

/// A use that owns its buffer's allocation, for operations collected before they are
/// enqueued (groups), or enqueued again (graphs).
#[derive(Clone)]
pub(crate) struct OwnedUse {
    alloc: Arc<Allocation>,
    range: Range<usize>,
    write: bool,
    poison: Option<u64>,
}

impl OwnedUse {
    pub(crate) fn borrow(&self) -> Use<'_> {
        Use {
            tracker: self.alloc.tracker(),
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

/// Who owns the memory of an [`Allocation`].
enum Backing {
    /// This library: freed, stream-ordered, after the last pending use.
    Owned,
    /// Another library's object (a cudarc slice), dropped after the last pending use;
    /// `None` once handed back (`Allocation::take_foreign`).
    Foreign(Option<Box<dyn Any + Send + Sync>>),
    /// `ncclMemAlloc`'s memory on cuda: `ncclMemFree`d after the last pending use.
    Nccl,
}

/// Memory from `ncclMemAlloc`, freed with `ncclMemFree` when dropped (by the device's
/// release after the allocation's pending uses).
struct NcclMem {
    device: Arc<crate::cuda::CudaDevice>,
    ptr: u64,
}

impl Drop for NcclMem {
    fn drop(&mut self) {
        if let Err(e) = crate::cuda::nccl_mem_free(&self.device, self.ptr) {
            log::warn!("ncclMemFree of {:#x} failed: {e}", self.ptr);
        }
    }
}

/// A device allocation and its tracker; freed, stream-ordered, when dropped.
pub(crate) struct Allocation {
    pub(super) device: Device,
    pub(super) ptr: u64,
    tracker: Mutex<Tracker>,
    backing: Backing,
    /// Allocated by NCCL (`ncclMemAlloc` on cuda; marked so on the sim).
    nccl: std::sync::atomic::AtomicBool,
    /// Run when the memory goes, after its last use and before it is freed
    /// (releases of NCCL registrations of it).
    before_free: Mutex<Vec<BeforeFree>>,
}

/// A release that must happen before the memory goes ([`Allocation::before_free`]).
pub(crate) type BeforeFree = Box<dyn FnOnce() + Send + Sync>;

/// What [`Allocation`]'s drop hands the device when releases must come first: they
/// run, then the memory is freed (or its owner dropped).
struct ReleaseThenFree {
    releases: Vec<BeforeFree>,
    device: Device,
    ptr: u64,
    owner: Option<Box<dyn Any + Send + Sync>>,
}

impl Drop for ReleaseThenFree {
    fn drop(&mut self) {
        for release in self.releases.drain(..) {
            release();
        }
        match self.owner.take() {
            Some(owner) => drop(owner),
            None => self.device.free_after(self.ptr, Vec::new()),
        }
    }
}

impl Allocation {
    /// Tracks `bytes` at `ptr` that `owner` owns (memory of another library): the
    /// first use is `first`, a write by stream `stream` completed by its event. When
    /// the allocation is dropped, `owner` is dropped once every pending use completed
    /// (never by making a stream wait, as for our own frees).
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) fn foreign(
        device: &Device,
        ptr: u64,
        bytes: usize,
        owner: Box<dyn Any + Send + Sync>,
        stream: u64,
        first: crate::driver::SharedEvent,
    ) -> Arc<Allocation> {
        let alloc = Arc::new(Allocation {
            device: device.clone(),
            ptr,
            tracker: Mutex::new(Tracker::default()),
            backing: Backing::Foreign(Some(owner)),
            nccl: std::sync::atomic::AtomicBool::new(false),
            before_free: Mutex::new(Vec::new()),
        });
        lock(&alloc.tracker).add(0..bytes, true, stream, first);
        alloc
    }

    /// Hands a foreign allocation's owner back with the events its pending uses
    /// complete with; `Err(alloc)` while someone else (an operation collected in a
    /// group) still holds the allocation, or for memory this library owns.
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    #[allow(clippy::type_complexity)]
    pub(crate) fn take_foreign(
        alloc: Arc<Allocation>,
    ) -> std::result::Result<
        (Box<dyn Any + Send + Sync>, Vec<crate::driver::SharedEvent>),
        Arc<Allocation>,
    > {
        let mut alloc = Arc::try_unwrap(alloc)?;
        let owner = match &mut alloc.backing {
            Backing::Foreign(owner) => owner.take(),
            Backing::Owned | Backing::Nccl => None,
        };
        let Some(owner) = owner else {
            return Err(Arc::new(alloc));
        };
        let pending = lock(&alloc.tracker).pending();
        Ok((owner, pending))
    }

    /// The device holding the memory.
    #[cfg_attr(not(feature = "cudarc"), allow(dead_code))]
    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Runs `release` when the memory goes: once nothing holds the allocation any
    /// more (so no new use can be issued) and every use of it has completed, before
    /// the memory is freed.
    pub(crate) fn before_free(&self, release: BeforeFree) {
        lock(&self.before_free).push(release);
    }

    pub(super) fn tracker(&self) -> &Mutex<Tracker> {
        &self.tracker
    }

    /// `bytes` that NCCL allocates (`ncclMemAlloc`, synchronous) on cuda; on the sim
    /// an allocation like any other, marked as NCCL's.
    pub(super) fn new_nccl(device: &Device, bytes: usize) -> Result<Arc<Allocation>> {
        let cuda = match &*device.inner.imp {
            crate::driver::DeviceImpl::Cuda(d) => d.clone(),
            crate::driver::DeviceImpl::Sim(_) => {
                let alloc = Allocation::new(device, bytes)?;
                alloc.nccl.store(true, std::sync::atomic::Ordering::Release);
                return Ok(alloc);
            }
        };
        device.sweep_frees();
        let ptr = crate::cuda::nccl_mem_alloc(&cuda, bytes)?;
        Ok(Arc::new(Allocation {
            device: device.clone(),
            ptr,
            tracker: Mutex::new(Tracker::default()),
            backing: Backing::Nccl,
            nccl: std::sync::atomic::AtomicBool::new(true),
            before_free: Mutex::new(Vec::new()),
        }))
    }

    /// Whether NCCL allocated the memory ([`Allocation::new_nccl`]).
    pub(crate) fn is_nccl(&self) -> bool {
        self.nccl.load(std::sync::atomic::Ordering::Acquire)
    }

    pub(super) fn new(device: &Device, bytes: usize) -> Result<Arc<Allocation>> {
        device.sweep_frees();
        let internal = device.internal_stream()?;
        let ptr = internal.imp.alloc(bytes)?;
        let alloc = Arc::new(Allocation {
            device: device.clone(),
            ptr,
            tracker: Mutex::new(Tracker::default()),
            backing: Backing::Owned,
            nccl: std::sync::atomic::AtomicBool::new(false),
            before_free: Mutex::new(Vec::new()),
        });
        // First uses on other streams wait for the allocation itself.
        let event = internal.imp.record_new()?;
        lock(&alloc.tracker).add(0..bytes, true, internal.id, event);
        Ok(alloc)
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // Freed after this buffer's own pending uses, and only those: no stream waits,
        // so later allocations never queue behind a late peer's work (Decision 3).
        // Memory of another library is released the same way: its owner is dropped
        // once the pending uses completed.
        let owner = match &mut self.backing {
            Backing::Owned => None,
            Backing::Nccl => match &*self.device.inner.imp {
                crate::driver::DeviceImpl::Cuda(d) => Some(Box::new(NcclMem {
                    device: d.clone(),
                    ptr: self.ptr,
                })
                    as Box<dyn Any + Send + Sync>),
                crate::driver::DeviceImpl::Sim(_) => None,
            },
            Backing::Foreign(owner) => match owner.take() {
                Some(owner) => Some(owner),
                None => return, // handed back to its owner
            },
        };
        let pending = lock(&self.tracker).pending();
        let (device, ptr) = (self.device.clone(), self.ptr);
        let releases = std::mem::take(&mut *lock(&self.before_free));
        let free = move || match (owner, releases.is_empty()) {
            (None, true) => device.free_after(ptr, pending),
            (Some(owner), true) => device.release_after(owner, pending),
            (owner, false) => {
                let then = ReleaseThenFree {
                    releases,
                    device: device.clone(),
                    ptr,
                    owner,
                };
                device.release_after(Box::new(then), pending)
            }
        };
        if host_fn::inside() {
            host_fn::defer(Box::new(free));
        } else {
            free();
        }
    }
}

/// A raw device address, for foreign kernels. On cuda it is a `CUdeviceptr`; on the
/// sim an opaque number that only the sim understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DevicePtr(pub u64);

pub(super) fn resolve_range(
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

pub(super) fn check_len(op: &'static str, expected: usize, actual: usize) -> Result<()> {
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

pub(super) fn user_stream<'s>(
    op: &'static str,
    stream: &'s Stream,
    device: &Device,
) -> Result<&'s StreamInner> {
    check_same_device(op, device, stream.device())?;
    Ok(&stream.inner)
}

#[cfg(test)]
mod tests {
    //! The foreign-owner hook (memory another library owns, tracked here): on the sim,
    //! where no other library exists, a probe stands in for the owner and a buffer of
    //! ours for its memory.
    use std::sync::mpsc::{Receiver, Sender, channel};
    use std::time::Duration;

    use super::*;
    use crate::memory::view::DeviceViewMut;
    use crate::{DeviceBuffer, Gate};

    /// A sim device that no other unit test of this crate holds streams on.
    const ORDINAL: usize = 5;

    struct Probe(Sender<()>);

    impl Drop for Probe {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }

    struct Setup {
        dev: Device,
        s: Stream,
        backing: DeviceBuffer<f32>,
        gated: Stream,
        gate: Gate,
    }

    fn setup() -> Setup {
        let dev = Device::sim(ORDINAL).unwrap();
        let s = Stream::new(&dev).unwrap();
        let backing = DeviceBuffer::<f32>::zeroed(&s, 64).unwrap();
        let (gated, gate) = (Stream::new(&dev).unwrap(), Gate::new(&dev).unwrap());
        gated.wait_gate(&gate).unwrap();
        Setup {
            dev,
            s,
            backing,
            gated,
            gate,
        }
    }

    /// A foreign allocation over `backing`'s memory, owned by a probe, with a fill
    /// pending on the gated stream.
    fn foreign_with_pending_fill(t: &Setup) -> (Arc<Allocation>, Receiver<()>) {
        let (tx, rx) = channel();
        let first = t.s.inner.record_new().unwrap();
        let ptr = t.backing.as_view().addr();
        let alloc = Allocation::foreign(&t.dev, ptr, 256, Box::new(Probe(tx)), t.s.inner.id, first);
        DeviceViewMut::<f32>::whole(&alloc, 64)
            .fill(&t.gated, 3.0)
            .unwrap();
        (alloc, rx)
    }

    #[test]
    fn a_foreign_owner_is_dropped_only_after_its_pending_uses() {
        let t = setup();
        let (alloc, rx) = foreign_with_pending_fill(&t);
        drop(alloc); // never blocks
        assert!(
            rx.recv_timeout(Duration::from_millis(100)).is_err(),
            "the owner was dropped under pending work"
        );
        t.gate.open();
        rx.recv_timeout(Duration::from_secs(30))
            .expect("the owner is dropped once the work completed");
        assert_eq!(t.backing.to_vec(&t.s).unwrap(), vec![3.0; 64]);
    }

    #[test]
    fn a_foreign_owner_is_handed_back_with_its_pending_events_and_not_while_shared() {
        let t = setup();
        let (alloc, rx) = foreign_with_pending_fill(&t);
        let shared = alloc.clone(); // as an operation collected in a group holds it
        let alloc = Allocation::take_foreign(alloc)
            .err()
            .expect("refused while shared");
        drop(shared);
        let (owner, pending) = Allocation::take_foreign(alloc).ok().expect("handed back");
        assert!(!pending.is_empty(), "the gated fill is pending");
        assert!(pending.iter().any(|e| !matches!(e.query(), Ok(true))));
        let probe = owner.downcast::<Probe>().expect("the owner given");
        t.gate.open();
        for e in &pending {
            e.synchronize(Some(Duration::from_secs(30))).unwrap();
        }
        assert!(rx.try_recv().is_err(), "the caller holds the owner now");
        drop(probe);
        rx.recv_timeout(Duration::from_secs(1)).unwrap();
        // Memory this library owns is never handed out.
        let ours = Allocation::new(&t.dev, 16).unwrap();
        assert!(Allocation::take_foreign(ours).is_err());
    }
}
