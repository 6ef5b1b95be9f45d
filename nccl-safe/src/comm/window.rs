//! Windows (`ncclCommWindowRegister`, NCCL 2.27.3): a buffer registered with every
//! rank of a communicator, which NCCL's symmetric kernels and one-sided operations
//! address on any rank. A [`Window`] keeps its memory allocated, and is released only
//! when the memory goes, after every operation on it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Communicator;
use super::communicator::CommInner;
use crate::features::Feature;
use crate::memory::AsDeviceView;
use crate::memory::alloc::Allocation;
use crate::sync::lock;
use crate::{DataType, DriverKind, Error, Result};

/// The alignment NCCL requires of a window's start (`NCCL_WIN_REQUIRED_ALIGNMENT`).
pub const WINDOW_ALIGNMENT: usize = 4096;

/// How a window is registered ([`Communicator::register_window`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowFlags {
    symmetric: bool,
    strict_ordering: bool,
}

impl WindowFlags {
    /// No flags (`NCCL_WIN_DEFAULT`).
    pub fn new() -> WindowFlags {
        WindowFlags::default()
    }

    /// For NCCL's symmetric collective kernels (`NCCL_WIN_COLL_SYMMETRIC`): every
    /// rank registers a buffer of the same size, and a collective whose buffers lie
    /// at the same offset of such windows on every rank may use them.
    pub fn symmetric(mut self) -> WindowFlags {
        self.symmetric = true;
        self
    }

    /// One-sided operations on the window complete in the order they were issued
    /// (`NCCL_WIN_STRICT_ORDERING`).
    pub fn strict_ordering(mut self) -> WindowFlags {
        self.strict_ordering = true;
        self
    }

    /// Whether it is symmetric ([`WindowFlags::symmetric`]).
    pub fn is_symmetric(self) -> bool {
        self.symmetric
    }

    /// NCCL's `winFlags`.
    pub fn bits(self) -> i32 {
        (if self.symmetric { 0x01 } else { 0 }) | (if self.strict_ordering { 0x02 } else { 0 })
    }
}

/// A buffer registered as a window with every rank of a communicator
/// ([`Communicator::register_window`]).
///
/// It holds the buffer's memory, as a [`Registration`](crate::Registration) does.
/// Dropping it (or [`Window::deregister`]) never blocks, and its release waits for
/// the memory to go: NCCL finds windows by address, so a window released while its
/// buffer can still be used could be found by a later call and released under it.
/// It is released once neither the buffer nor the window holds the memory and every
/// operation issued on it has completed, then the memory is freed. Closing or
/// aborting the communicator releases its windows with it.
#[must_use = "dropping a Window releases it"]
pub struct Window {
    pub(super) comm: Arc<CommInner>,
    alloc: Arc<Allocation>,
    /// Its device address.
    addr: u64,
    bytes: usize,
    flags: WindowFlags,
    pub(super) raw: usize,
    released: bool,
}

impl Communicator {
    /// Every rank meets after registering a window of `bytes` (`failed`: this rank
    /// could not), and learns whether every rank registered one and, for a
    /// symmetric window, whether all have one size.
    fn agree_on_window(
        &self,
        op: &'static str,
        bytes: usize,
        failed: bool,
        flags: WindowFlags,
    ) -> Result<()> {
        let b = bytes as u64;
        let all = self.meet(op, &[b, u64::MAX - b, u64::from(failed)])?;
        let (largest, smallest) = (all[0], u64::MAX - all[1]);
        if all[2] != 0 && !failed {
            return Err(Error::InvalidUsage {
                op,
                reason: "another rank could not register its window (the sim holds a \
                         limited number of windows per communicator at once)"
                    .into(),
            });
        }
        if flags.symmetric && largest != smallest {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "the ranks registered symmetric windows of {smallest} to {largest} bytes \
                     (this rank {bytes}): a symmetric window has one size on every rank"
                ),
            });
        }
        Ok(())
    }

    /// Registers `buf` (a buffer or a view of one) as a window with every rank
    /// (`ncclCommWindowRegister`). Collective: every rank registers its buffer in the
    /// same order, and the call returns once all have.
    ///
    /// It first waits (at most the call timeout) for the writes still pending on the
    /// buffer, so that a peer's one-sided put, which may land as soon as every rank
    /// has registered, is never overwritten by one of them.
    ///
    /// The window's start must be aligned to [`WINDOW_ALIGNMENT`] bytes (a buffer
    /// from [`DeviceBuffer::alloc_nccl`](crate::DeviceBuffer::alloc_nccl) is, and so is
    /// a view at a multiple of 4096 bytes into it). Collectives on buffers inside a
    /// symmetric window are issued as on any buffer; NCCL finds the window by address.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId, WindowFlags};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<f32>> {
    ///     let dev = Device::sim(rank)?;
    ///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let mut buf = DeviceBuffer::<f32>::alloc_nccl(&dev, 1024)?;
    ///     let win = comm.register_window(&buf, WindowFlags::new().symmetric())?;
    ///     buf.fill(&s, 1.0)?;
    ///     comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &s)?;
    ///     let v = buf.to_vec(&s)?;
    ///     win.deregister();
    ///     Ok(v)
    /// })).collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, vec![2.0; 1024]);
    /// }
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an empty buffer, a start off the alignment
    /// (naming the offset), or, on the sim, memory that NCCL did not allocate
    /// (NCCL's windows need CUDA VMM memory); [`Error::WrongDevice`];
    /// [`Error::UnsupportedByNccl`] below 2.27.3; [`Error::WindowUnsupported`] when
    /// NCCL makes no window (the communicator has no symmetric-memory support);
    /// [`Error::Timeout`] when the other ranks do not register within the call
    /// timeout (the communicator is aborted then: its ranks are out of step);
    /// [`Error::InvalidUsage`] inside an open group; a communicator that cannot take
    /// calls; NCCL's errors.
    pub fn register_window<T: DataType>(
        &self,
        buf: &impl AsDeviceView<T>,
        flags: WindowFlags,
    ) -> Result<Window> {
        const OP: &str = "register_window";
        let inner = &self.inner;
        let v = buf.device_view();
        super::register::registrable(inner, OP, Feature::WindowRegistration, &v)?;
        super::group::refuse_in_group(OP)?;
        let addr = v.addr();
        let off = (addr % WINDOW_ALIGNMENT as u64) as usize;
        if off != 0 {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: format!(
                    "the window starts {off} bytes past a {WINDOW_ALIGNMENT}-byte boundary \
                     (byte {} of its allocation); NCCL needs {WINDOW_ALIGNMENT}-byte alignment",
                    v.bytes().start
                ),
            });
        }
        let bytes = v.bytes().len();
        // The buffer's pending writes complete first (on every rank, before they
        // meet): once registered, a peer's one-sided put may land in it at any time,
        // and a write still queued here would overwrite it.
        crate::memory::tracker::wait_for_conflicts(&v.read_use(), inner.config.call_timeout)?;
        let raw = match inner.imp.kind() {
            DriverKind::Sim => {
                if !v.allocation().is_nccl() {
                    return Err(Error::InvalidArgument {
                        op: OP,
                        reason: "the memory was not allocated by NCCL \
                                 (DeviceBuffer::alloc_nccl): NCCL's windows need CUDA VMM \
                                 memory"
                            .into(),
                    });
                }
                // Published for the peers' puts first; then every rank meets, as
                // NCCL's ranks do, and learns whether all could register.
                let made =
                    inner
                        .imp
                        .register_window(addr, bytes, flags.bits(), inner.config.call_timeout);
                let handle = *made.as_ref().unwrap_or(&0);
                let agreed = self.agree_on_window(OP, bytes, made.is_err(), flags);
                let failed = made.err().or(agreed.err());
                if let Some(e) = failed {
                    if handle != 0 {
                        let _ = inner.imp.deregister_window(handle);
                    }
                    return Err(e);
                }
                if inner.config.sim_no_symmetric {
                    let _ = inner.imp.deregister_window(handle);
                    return Err(no_window());
                }
                handle
            }
            DriverKind::Cuda => {
                let made = {
                    let _fence = inner.fence_read();
                    inner
                        .imp
                        .register_window(addr, bytes, flags.bits(), inner.config.call_timeout)
                };
                match made {
                    Ok(0) => return Err(no_window()),
                    Ok(raw) => {
                        // NCCL registers a symmetric window of each rank's size, and a
                        // peer's put is only bounded by this rank's: the ranks check
                        // that the sizes agree (all of them, so all refuse together).
                        if flags.symmetric {
                            if let Err(e) = self.agree_on_window(OP, bytes, false, flags) {
                                let _ = inner.imp.deregister_window(raw);
                                return Err(e);
                            }
                        }
                        raw
                    }
                    Err(e) => {
                        // NCCL's registration is a group left in progress: nothing may
                        // be issued on the communicator before it ends, so it is
                        // aborted, as after a launch NCCL did not confirm.
                        if matches!(e, Error::Timeout { .. }) {
                            let _ = inner.abort_now();
                        }
                        return Err(e);
                    }
                }
            }
        };
        inner.windows.fetch_add(1, Ordering::AcqRel);
        lock(&inner.window_spans).push((addr, bytes, flags.symmetric));
        Ok(Window {
            comm: inner.clone(),
            alloc: v.allocation().clone(),
            addr,
            bytes,
            flags,
            raw,
            released: false,
        })
    }

    /// How many windows this communicator holds: those registered and not yet
    /// released (a dropped [`Window`] is released when its memory goes).
    pub fn windows(&self) -> usize {
        self.inner.windows.load(Ordering::Acquire)
    }
}

fn no_window() -> Error {
    Error::WindowUnsupported {
        reason: "NCCL made no window: this communicator has no symmetric-memory support \
                 (NCCL needs CUDA VMM memory and peers it can map, over NVLink)"
            .into(),
    }
}

impl Window {
    /// The bytes registered.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The flags it was registered with.
    pub fn flags(&self) -> WindowFlags {
        self.flags
    }

    /// Releases the window: its deregistration (`ncclCommWindowDeregister`) runs
    /// when its memory goes, once nothing holds the buffer (so no call can find the
    /// window any more) and every operation on it has completed; NCCL's error then,
    /// if any, is logged. Dropping the window does the same.
    pub fn deregister(self) {
        drop(self);
    }

    /// The allocation it holds.
    pub(super) fn allocation(&self) -> &Arc<Allocation> {
        &self.alloc
    }

    fn release(&mut self) {
        if !std::mem::replace(&mut self.released, true) {
            let mut spans = lock(&self.comm.window_spans);
            let mine = (self.addr, self.bytes, self.flags.symmetric);
            if let Some(i) = spans.iter().position(|s| *s == mine) {
                spans.swap_remove(i);
            }
            drop(spans);
            let raw = self.raw;
            super::register::release_with_memory(&self.alloc, &self.comm, "window", move |c| {
                (&c.windows, c.imp.deregister_window(raw))
            });
        }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        self.release();
    }
}

impl std::fmt::Debug for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Window({} bytes, {:?}, rank {} of {})",
            self.bytes, self.flags, self.comm.rank, self.comm.size
        )
    }
}
