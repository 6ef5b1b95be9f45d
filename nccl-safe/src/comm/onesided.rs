//! One-sided operations on windows (`ncclPutSignal`, `ncclSignal`, `ncclWaitSignal`,
//! NCCL 2.29.2): a rank writes into a peer's window and signals it, without the peer
//! taking part; the peer's stream waits for the signals before it reads.
//!
//! What the types hold: a put names the peer's window through the local [`Window`]
//! of the same collective registration, so it cannot be issued on a window this rank
//! released; the put's source is a tracked read, kept allocated until the put has
//! run, and the window it names stays registered until then. A wait makes a write of
//! the elements it receives into on the waiting stream, so every later use of them on
//! another stream is ordered after the data arrived (the buffer tracker's rule, as
//! for any write). What is checked at run time: on the sim, that
//! the peer's window is still registered and the bytes fit in it when the put runs;
//! a wait for signals that never come ends with an error when the peer is gone or
//! the communicator aborts, and otherwise waits (a process group's watchdog bounds
//! it with the group's timeout).

use super::Communicator;
use super::communicator::check_rank;
use super::window::Window;
use std::sync::Arc;

use crate::driver::{CommImpl, EventImpl, StreamImpl};
use crate::features::Feature;
use crate::memory::alloc::{Allocation, OwnedUse};
use crate::memory::tracker::{Use, enqueue_keeping};
use crate::memory::{AsDeviceView, AsDeviceViewMut};
use crate::stream::check_same_device;
use crate::sync::lock;
use crate::{DataType, Error, Result, Stream};

/// How many more signals a wait expects from one peer
/// ([`Communicator::wait_signal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalWait {
    /// The rank the signals come from.
    pub peer: usize,
    /// How many more of its signals to wait for (at least 1).
    pub count: u32,
}

impl SignalWait {
    /// `count` more signals from `peer`.
    pub fn new(peer: usize, count: u32) -> SignalWait {
        SignalWait { peer, count }
    }
}

impl Communicator {
    /// Writes `src` into rank `peer`'s part of `window`, `offset` bytes from its start,
    /// then signals `peer` (`ncclPutSignal`); the peer does not take part, and learns
    /// of the data by [`Communicator::wait_signal`]. Enqueued on `stream`; returns at
    /// once.
    ///
    /// `window` is this rank's handle of a symmetric window every rank registered
    /// together ([`Communicator::register_window`] with
    /// [`WindowFlags::symmetric`](crate::WindowFlags::symmetric)): the data lands in
    /// the buffer `peer` registered in the same call. `src` must itself lie inside a
    /// symmetric window of this communicator, as NCCL requires.
    ///
    /// The peer's window must still be registered when the put runs: on the sim a put
    /// into a released window fails its stream; on cuda nothing checks it, so a
    /// program keeps each window until it has waited ([`Communicator::wait_signal`])
    /// for every put into it.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, SignalWait, Stream,
    ///                 UniqueId, WindowFlags};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<i32>> {
    ///     let dev = Device::sim(rank)?;
    ///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let mut buf = DeviceBuffer::<i32>::alloc_nccl(&dev, 2048)?;
    ///     buf.fill(&s, -1)?;
    ///     let win = comm.register_window(&buf, WindowFlags::new().symmetric())?;
    ///     if rank == 0 {
    ///         // The first 4 elements, into rank 1's buffer from element 4 on.
    ///         buf.view_mut(0..4)?.copy_from_slice(&s, &[7, 8, 9, 10])?;
    ///         comm.put_signal(&buf.view(0..4)?, 1, &win, 16, &s)?;
    ///     } else {
    ///         comm.wait_signal(&mut buf.view_mut(4..8)?, &[SignalWait::new(0, 1)], &s)?;
    ///     }
    ///     let got = buf.view(4..8)?.to_vec(&s)?;
    ///     s.synchronize()?;
    ///     Ok(got)
    /// })).collect();
    /// let got: Vec<_> = ranks.into_iter().map(|r| r.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(got, vec![vec![-1; 4], vec![7, 8, 9, 10]]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the value: a peer out of range, a window of
    /// another communicator or not symmetric, a source outside this communicator's
    /// symmetric windows, bytes past the window's end; [`Error::WrongDevice`];
    /// [`Error::UnsupportedByNccl`] below 2.29.2; [`Error::InvalidUsage`] inside an
    /// open group; a communicator that cannot take calls. On the sim, a put that finds
    /// the peer's window released, or too small, fails its stream.
    pub fn put_signal<T: DataType>(
        &self,
        src: &impl AsDeviceView<T>,
        peer: usize,
        window: &Window,
        offset: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "put_signal";
        let s = src.device_view();
        check_rank(OP, "peer", peer, self.size())?;
        self.check_window(OP, window)?;
        check_same_device(OP, &self.inner.device, s.device())?;
        let len = s.bytes().len();
        if offset > window.bytes() || len > window.bytes() - offset {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: format!(
                    "{len} bytes at offset {offset} run past the end of the window ({} bytes)",
                    window.bytes()
                ),
            });
        }
        let addr = s.addr();
        self.check_in_window(OP, "source", addr, len)?;
        let (win, count) = (window.raw, s.len());
        // The window's memory, and so its registration, stays until the put has run:
        // the put names the window by this rank's handle. (Not a tracked use: the put
        // touches the peer's memory, not this rank's, and must not wait for this
        // rank's own uses of the window.)
        let keep = Some(window.allocation().clone());
        self.one_sided(
            OP,
            stream,
            vec![s.owned_read()],
            keep,
            |comm, imp, config| {
                comm.put_signal(
                    imp,
                    config,
                    Some((addr, count, T::DTYPE)),
                    peer,
                    win,
                    offset,
                )
            },
        )
    }

    /// Signals rank `peer` without data (`ncclSignal`): it counts as one signal for
    /// the peer's [`Communicator::wait_signal`], ordered after this rank's earlier puts
    /// to it on `stream`. Enqueued on `stream`; returns at once.
    ///
    /// # Errors
    ///
    /// As [`Communicator::put_signal`], for the peer, the version and the stream.
    pub fn signal(&self, peer: usize, stream: &Stream) -> Result<()> {
        const OP: &str = "signal";
        check_rank(OP, "peer", peer, self.size())?;
        self.one_sided(OP, stream, Vec::new(), None, |comm, imp, config| {
            comm.put_signal(imp, config, None, peer, 0, 0)
        })
    }

    /// Makes `stream` wait until every `waits` peer has sent `count` more signals
    /// (puts or signals) than this rank's earlier waits asked of it
    /// (`ncclWaitSignal`): signals are counted per peer from the communicator's start,
    /// and waits for the same peer, in one call or several, add up.
    ///
    /// `into` is where the peers' puts land (inside a symmetric window of this
    /// communicator; an empty view for signals without data): the wait counts as a
    /// write of it on `stream`, so a later use of those elements on another stream
    /// waits for the data to have arrived, as it would wait for any write. The rest
    /// of the window is not touched, so this rank may put from it meanwhile.
    ///
    /// A wait for signals that never come waits until a peer it waits for is gone or
    /// the communicator is aborted, then fails its stream; NCCL's own wait has no
    /// deadline either. Put a deadline on it through a process group (its watchdog)
    /// or [`Stream::synchronize_timeout`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for no waits, a count of 0 or above `i32::MAX`, a
    /// peer out of range, `into` outside this communicator's symmetric windows;
    /// [`Error::WrongDevice`]; [`Error::UnsupportedByNccl`] below 2.29.2;
    /// [`Error::InvalidUsage`] inside an open group; a communicator that cannot take
    /// calls.
    pub fn wait_signal<T: DataType>(
        &self,
        into: &mut impl AsDeviceViewMut<T>,
        waits: &[SignalWait],
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "wait_signal";
        let r = into.device_view_mut();
        check_same_device(OP, &self.inner.device, r.device())?;
        let bad = |reason: String| Err(Error::InvalidArgument { op: OP, reason });
        if waits.is_empty() {
            return bad("no peer to wait for".into());
        }
        for w in waits {
            check_rank(OP, "peer", w.peer, self.size())?;
            if w.count == 0 || w.count > i32::MAX as u32 {
                return bad(format!(
                    "a wait for {} signals from rank {}: the count must be 1 to {}",
                    w.count,
                    w.peer,
                    i32::MAX
                ));
            }
        }
        self.check_in_window(OP, "destination", r.addr(), r.bytes().len())?;
        let pairs: Vec<(usize, u32)> = waits.iter().map(|w| (w.peer, w.count)).collect();
        // A write of `into`, never poisoned: the data is the peers'.
        let uses = vec![r.owned_write(false)];
        self.one_sided(OP, stream, uses, None, |comm, imp, config| {
            comm.wait_signal(imp, config, &pairs)
        })
    }

    /// Refuses `len` bytes at `addr` (the `what` of a call) outside this
    /// communicator's symmetric windows.
    fn check_in_window(&self, op: &'static str, what: &str, addr: u64, len: usize) -> Result<()> {
        let inside = lock(&self.inner.window_spans)
            .iter()
            .any(|&(start, bytes, symmetric)| {
                symmetric && addr >= start && addr + len as u64 <= start + bytes as u64
            });
        if inside {
            Ok(())
        } else {
            Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "the {what} ({len} bytes at {addr:#x}) is not inside a symmetric window of \
                     this communicator, as NCCL requires"
                ),
            })
        }
    }

    /// Refuses a window of another communicator, or one that is not symmetric.
    fn check_window(&self, op: &'static str, window: &Window) -> Result<()> {
        if !std::sync::Arc::ptr_eq(&window.comm, &self.inner) {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "the window belongs to another communicator (rank {} of {})",
                    window.comm.rank, window.comm.size
                ),
            });
        }
        if !window.flags().is_symmetric() {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "the window ({} bytes) was registered without WindowFlags::symmetric; \
                     one-sided operations need a symmetric window, NCCL refuses others",
                    window.bytes()
                ),
            });
        }
        Ok(())
    }

    /// Enqueues a one-sided operation on `stream`: the checks every launch makes, the
    /// buffer uses' waits and records around `run`.
    fn one_sided(
        &self,
        op: &'static str,
        stream: &Stream,
        uses: Vec<OwnedUse>,
        keep: Option<Arc<Allocation>>,
        run: impl FnOnce(&CommImpl, &StreamImpl, &crate::Config) -> Result<()>,
    ) -> Result<()> {
        let inner = &self.inner;
        super::group::refuse_in_group(op)?;
        let _fence = inner.fence_read();
        inner.check_issuable(op)?;
        check_same_device(op, &inner.device, stream.device())?;
        crate::features::require(
            inner.imp.kind(),
            inner.config.sim_nccl_version,
            Feature::OneSided,
        )?;
        inner.imp.check_ready(op)?;
        let borrowed: Vec<Use<'_>> = uses.iter().map(OwnedUse::borrow).collect();
        let (ran, event) = enqueue_keeping(&stream.inner, &borrowed, |imp| {
            let ran = run(&inner.imp, imp, &inner.config);
            inner.abort_if_launch_failed(stream);
            ran
        });
        if let Some(alloc) = keep {
            match &event {
                Some(e) => EventImpl::on_complete(e, Box::new(move || drop(alloc))),
                // Nothing marks the operation's end: kept for good rather than freed
                // under it.
                None => std::mem::forget(alloc),
            }
        }
        inner.note_launch(stream, event)?;
        ran
    }
}
