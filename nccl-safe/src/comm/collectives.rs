//! The collectives and point-to-point operations of a [`Communicator`], and the
//! reductions they take ([`ReduceOp`]). Each checks its arguments, describes itself
//! (an [`OpDesc`] and the buffer uses), and is launched at once or collected by an
//! open [`group`](crate::group())(super::group()).

use super::communicator::{Call, check_count, check_rank};
use super::group::GROUP;
use crate::base::op::{Kind, OpDesc, RedOp};
use crate::memory::alloc::OwnedUse;
use crate::memory::{AsDeviceView, AsDeviceViewMut};
use crate::stream::check_same_device;
use crate::{DataType, Device, DeviceView, Error, Result, Stream};

use super::Communicator;

/// A reduction for the reducing collectives.
#[derive(Clone, Copy, Debug)]
pub enum ReduceOp<'a, T: DataType> {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Average (sum divided by the number of ranks; integer averages truncate).
    Avg,
    /// Each rank's input times its own scalar, then summed. An op is created per
    /// call and destroyed right after it (NCCL copies its state at the call).
    PreMulSum(T),
    /// As `PreMulSum`, with the scalar read from a one-element device buffer when the
    /// collective runs (a tracked read of that buffer).
    PreMulSumDevice(DeviceView<'a, T>),
}

impl Communicator {
    pub(super) fn check_buffer(&self, op: &'static str, device: &Device) -> Result<()> {
        check_same_device(op, &self.inner.device, device)
    }

    fn desc<T: DataType>(
        &self,
        kind: Kind,
        count: usize,
        root: Option<usize>,
        op: RedOp,
    ) -> OpDesc {
        OpDesc {
            kind,
            count,
            dtype: T::DTYPE,
            root,
            op,
        }
    }

    fn red_op<T: DataType>(
        &self,
        op: &ReduceOp<'_, T>,
        uses: &mut Vec<OwnedUse>,
    ) -> Result<(RedOp, Option<u64>)> {
        Ok(match op {
            ReduceOp::Sum => (RedOp::Sum, None),
            ReduceOp::Prod => (RedOp::Prod, None),
            ReduceOp::Max => (RedOp::Max, None),
            ReduceOp::Min => (RedOp::Min, None),
            ReduceOp::Avg => (RedOp::Avg, None),
            ReduceOp::PreMulSum(s) => {
                let mut b = vec![0u8; T::DTYPE.size()];
                s.write_le(&mut b);
                (RedOp::PreMulSumHost(b), None)
            }
            ReduceOp::PreMulSumDevice(v) => {
                if v.len() != 1 {
                    return Err(Error::InvalidArgument {
                        op: "premulsum",
                        reason: format!("the device scalar has {} elements, expected 1", v.len()),
                    });
                }
                self.check_buffer("premulsum scalar", v.device())?;
                uses.push(v.owned_read());
                (RedOp::PreMulSumDevice, Some(v.addr()))
            }
        })
    }

    pub(super) fn issue(&self, stream: &Stream, call: Call) -> Result<()> {
        if let Some(c) = &call.op.config {
            let kind = call.op.desc.kind;
            let p2p = matches!(kind, Kind::Send | Kind::Recv);
            c.check(kind.name(), p2p, &self.inner.config)?;
        }
        if call.op.desc.count == 0 && !matches!(call.op.desc.kind, Kind::Send | Kind::Recv) {
            // NCCL discards an empty collective (no kernel, no rank waits for another),
            // after checking its arguments: so does this layer, on both drivers. An
            // empty send or receive still pairs with its peer, as in NCCL.
            self.inner.check_issuable(call.op.desc.kind.name())?;
            check_same_device("collective", &self.inner.device, stream.device())?;
            return crate::features::check_ops(
                self.inner.imp.kind(),
                self.inner.config.sim_nccl_version,
                std::slice::from_ref(&call.op),
            );
        }
        GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if let Some(pending) = g.as_mut() {
                pending.push((self.inner.clone(), stream.clone(), call));
                return Ok(());
            }
            drop(g);
            self.inner.launch(stream, vec![call])
        })
    }

    /// `recv = op(send of every rank)`, elementwise; `send` and `recv` have one length.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; [`Error::WrongDevice`]; usage and
    /// driver errors.
    pub fn all_reduce<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_reduce", "recv", s.len(), r.len())?;
        self.check_buffer("all_reduce", s.device())?;
        self.check_buffer("all_reduce", r.device())?;
        let mut uses = vec![s.owned_read(), r.owned_write(true)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::AllReduce, s.len(), None, red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr()))
                .scalar(scalar),
        )
    }

    /// `buf = op(buf of every rank)`, in place.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce`].
    pub fn all_reduce_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        self.check_buffer("all_reduce", b.device())?;
        let mut uses = vec![b.owned_write(false)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::AllReduce, b.len(), None, red);
        let send_len = b.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(b.addr()))
                .scalar(scalar),
        )
    }

    /// Copies `buf` of rank `root` into `buf` of every rank.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a root out of range; as [`Communicator::all_reduce`].
    pub fn broadcast<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("broadcast", "root", root, self.size())?;
        let b = buf.device_view_mut();
        self.check_buffer("broadcast", b.device())?;
        let is_root = root == self.rank();
        let uses = vec![b.owned_write(!is_root)];
        let desc = self.desc::<T>(Kind::Broadcast, b.len(), Some(root), RedOp::None);
        let send_len = if is_root { b.bytes().len() } else { 0 };
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(b.addr())),
        )
    }

    /// `recv` of rank `root` = `op(send of every rank)`; other ranks pass `None` for
    /// `recv` (or a buffer, left untouched). `recv` is any buffer or writable view, as
    /// everywhere: `Some(&mut out)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths (the root must pass `recv`).
    pub fn reduce<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut dyn AsDeviceViewMut<T>>,
        op: ReduceOp<'_, T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("reduce", "root", root, self.size())?;
        let s = send.device_view();
        self.check_buffer("reduce", s.device())?;
        let mut uses = vec![s.owned_read()];
        let recv_addr = match (recv, root == self.rank()) {
            (Some(r), true) => {
                let r = r.device_view_mut();
                check_count("reduce", "recv", s.len(), r.len())?;
                self.check_buffer("reduce", r.device())?;
                uses.push(r.owned_write(true));
                Some(r.addr())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "reduce",
                    reason: format!("root {root} must pass recv"),
                });
            }
            (_, false) => None,
        };
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::Reduce, s.len(), Some(root), red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(recv_addr)
                .scalar(scalar),
        )
    }

    /// `recv` = every rank's `send`, concatenated in rank order; `recv` has
    /// `size × send.len()` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn all_gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_gather", "recv", s.len() * self.size(), r.len())?;
        self.check_buffer("all_gather", s.device())?;
        self.check_buffer("all_gather", r.device())?;
        let uses = vec![s.owned_read(), r.owned_write(true)];
        let desc = self.desc::<T>(Kind::AllGather, s.len(), None, RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr())),
        )
    }

    /// In-place all-gather: this rank's block is `buf[rank × n .. (rank+1) × n]`
    /// where `n = buf.len() / size` (the offset is computed, so it cannot be wrong).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `buf.len()` is not a multiple of the size.
    pub fn all_gather_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        let n = self.block("all_gather", b.len())?;
        self.check_buffer("all_gather", b.device())?;
        let mine = b.as_view().slice(self.rank() * n..(self.rank() + 1) * n)?;
        let uses = vec![b.owned_write(false)];
        let desc = self.desc::<T>(Kind::AllGather, n, None, RedOp::None);
        let send_len = mine.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(mine.addr()), send_len)
                .recv(Some(b.addr())),
        )
    }

    fn block(&self, op: &'static str, len: usize) -> Result<usize> {
        if len % self.size() != 0 {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "length {len} is not a multiple of the world size {}",
                    self.size()
                ),
            });
        }
        Ok(len / self.size())
    }

    /// `recv` of rank r = block r of `op(send of every rank)`; `send` has
    /// `size × recv.len()` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn reduce_scatter<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("reduce_scatter", "send", r.len() * self.size(), s.len())?;
        self.check_buffer("reduce_scatter", s.device())?;
        self.check_buffer("reduce_scatter", r.device())?;
        let mut uses = vec![s.owned_read(), r.owned_write(true)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::ReduceScatter, r.len(), None, red);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr()))
                .scalar(scalar),
        )
    }

    /// In-place reduce-scatter: `buf` has `size × n` elements; this rank's reduced
    /// block lands in `buf[rank × n .. (rank+1) × n]` (the rest is left as it was).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `buf.len()` is not a multiple of the size.
    pub fn reduce_scatter_in_place<T: DataType>(
        &self,
        buf: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        let b = buf.device_view_mut();
        let n = self.block("reduce_scatter", b.len())?;
        self.check_buffer("reduce_scatter", b.device())?;
        let mine = b.as_view().slice(self.rank() * n..(self.rank() + 1) * n)?;
        let mut uses = vec![b.owned_write(false)];
        let (red, scalar) = self.red_op(&op, &mut uses)?;
        let desc = self.desc::<T>(Kind::ReduceScatter, n, None, red);
        let send_len = b.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(b.addr()), send_len)
                .recv(Some(mine.addr()))
                .scalar(scalar),
        )
    }

    /// Block s of `recv` = block r of rank s's `send` (r = this rank); both have
    /// `size × n` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for lengths; as [`Communicator::all_reduce`].
    pub fn all_to_all<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        let (s, r) = (send.device_view(), recv.device_view_mut());
        check_count("all_to_all", "recv", s.len(), r.len())?;
        let n = self.block("all_to_all", s.len())?;
        self.check_buffer("all_to_all", s.device())?;
        self.check_buffer("all_to_all", r.device())?;
        let uses = vec![s.owned_read(), r.owned_write(true)];
        let desc = self.desc::<T>(Kind::AllToAll, n, None, RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(Some(r.addr())),
        )
    }

    /// `recv` of `root` = every rank's `send`, concatenated (`size × send.len()`
    /// elements); other ranks pass `None`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths.
    pub fn gather<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: Option<&mut dyn AsDeviceViewMut<T>>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("gather", "root", root, self.size())?;
        let s = send.device_view();
        self.check_buffer("gather", s.device())?;
        let mut uses = vec![s.owned_read()];
        let recv_addr = match (recv, root == self.rank()) {
            (Some(r), true) => {
                let r = r.device_view_mut();
                check_count("gather", "recv", s.len() * self.size(), r.len())?;
                self.check_buffer("gather", r.device())?;
                uses.push(r.owned_write(true));
                Some(r.addr())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "gather",
                    reason: format!("root {root} must pass recv"),
                });
            }
            (_, false) => None,
        };
        let desc = self.desc::<T>(Kind::Gather, s.len(), Some(root), RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(recv_addr),
        )
    }

    /// `recv` of rank r = block r of `send` of `root` (`size × recv.len()`
    /// elements); other ranks pass `None` for `send`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for the root or lengths.
    pub fn scatter<T: DataType>(
        &self,
        send: Option<&dyn AsDeviceView<T>>,
        recv: &mut impl AsDeviceViewMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("scatter", "root", root, self.size())?;
        let r = recv.device_view_mut();
        self.check_buffer("scatter", r.device())?;
        let mut uses = vec![r.owned_write(true)];
        let (send_addr, send_len) = match (send, root == self.rank()) {
            (Some(s), true) => {
                let s = s.device_view();
                check_count("scatter", "send", r.len() * self.size(), s.len())?;
                self.check_buffer("scatter", s.device())?;
                uses.push(s.owned_read());
                (Some(s.addr()), s.bytes().len())
            }
            (None, true) => {
                return Err(Error::InvalidArgument {
                    op: "scatter",
                    reason: format!("root {root} must pass send"),
                });
            }
            (_, false) => (None, 0),
        };
        let desc = self.desc::<T>(Kind::Scatter, r.len(), Some(root), RedOp::None);
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(send_addr, send_len)
                .recv(Some(r.addr())),
        )
    }

    /// Sends `send` to rank `peer`, which must post a matching [`Communicator::recv`]
    /// (same count and type).
    ///
    /// Outside a [`group`](crate::group()), each send and each receive is its own
    /// launch, and a send holds its stream until the peer's matching receive has taken
    /// the data (NCCL's sends are rendezvous). So a ring in which every rank sends
    /// before it receives, on one stream, deadlocks in NCCL (the sim reports it within
    /// a second, naming the ranks of the cycle). Issue a ring's sends and receives in
    /// one group (or order them so that some rank receives first):
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{group, Communicator, Config, Device, DeviceBuffer, Stream, UniqueId};
    /// let (id, n) = (UniqueId::random(), 3);
    /// let ranks: Vec<_> = (0..n).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<u32>> {
    ///     let dev = Device::sim(rank)?;
    ///     let comm = Communicator::init(&dev, rank, n, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let mine = DeviceBuffer::from_slice(&s, &[rank as u32; 4])?;
    ///     let mut from_prev = DeviceBuffer::zeroed(&s, 4)?;
    ///     group(|_| {
    ///         comm.send(&mine, (rank + 1) % n, &s)?;
    ///         comm.recv(&mut from_prev, (rank + n - 1) % n, &s)
    ///     })?;
    ///     from_prev.to_vec(&s)
    /// })).collect();
    /// for (rank, r) in ranks.into_iter().enumerate() {
    ///     assert_eq!(r.join().unwrap()?, vec![((rank + n - 1) % n) as u32; 4]);
    /// }
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a peer out of range; on the sim,
    /// [`Error::InvalidUsage`] for a send to itself on the stream that already runs its
    /// matching receive, outside a group (a certain deadlock).
    pub fn send<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("send", "peer", peer, self.size())?;
        let s = send.device_view();
        self.check_buffer("send", s.device())?;
        let uses = vec![s.owned_read()];
        let desc = self.desc::<T>(Kind::Send, s.len(), Some(peer), RedOp::None);
        let send_len = s.bytes().len();
        self.issue(
            stream,
            Call::new(desc, uses)
                .send(Some(s.addr()), send_len)
                .recv(None),
        )
    }

    /// Receives into `recv` what rank `peer` sends.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a peer out of range.
    pub fn recv<T: DataType>(
        &self,
        recv: &mut impl AsDeviceViewMut<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        check_rank("recv", "peer", peer, self.size())?;
        let r = recv.device_view_mut();
        self.check_buffer("recv", r.device())?;
        let uses = vec![r.owned_write(true)];
        let desc = self.desc::<T>(Kind::Recv, r.len(), Some(peer), RedOp::None);
        self.issue(
            stream,
            Call::new(desc, uses).send(None, 0).recv(Some(r.addr())),
        )
    }
}
