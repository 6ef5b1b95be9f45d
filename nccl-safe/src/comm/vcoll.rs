//! The v-collectives: all-to-all, all-gather and reduce-scatter with a count and a
//! displacement per rank ([`Blocks`]). NCCL has no call for them; each is a group of
//! NCCL calls that NCCL does have (sends and receives, broadcasts, reduces), so they
//! run on every NCCL release and on both drivers, with the same checks.

use super::communicator::Call;
use super::group::{group, group_open};
use super::{Communicator, ReduceOp};
use crate::base::op::{Kind, OpDesc, RedOp};
use crate::memory::{AsDeviceView, AsDeviceViewMut};
use crate::{DataType, Error, Result, Stream};

/// Where each rank's block lies in the buffer of a v-collective: a count and a
/// displacement per rank, in elements (as MPI's `counts` and `displs`).
///
/// ```
/// use nccl_safe::Blocks;
/// let b = Blocks::packed(&[2, 0, 3])?;
/// assert_eq!((b.count(2), b.displacement(2), b.extent()), (3, 2, 5));
/// let gaps = Blocks::new(&[2, 1], &[4, 0])?;
/// assert_eq!(gaps.extent(), 6);
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks {
    counts: Vec<usize>,
    displs: Vec<usize>,
}

impl Blocks {
    /// Blocks of `counts[r]` elements at `displs[r]`, for as many ranks as there are
    /// counts. Blocks may leave gaps and may overlap; a collective that writes them
    /// refuses overlapping blocks when it is called.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when the two lists differ in length or a block's end
    /// overflows `usize` (naming the rank).
    pub fn new(counts: &[usize], displs: &[usize]) -> Result<Blocks> {
        if counts.len() != displs.len() {
            return Err(Error::InvalidArgument {
                op: "blocks",
                reason: format!("{} counts but {} displacements", counts.len(), displs.len()),
            });
        }
        for (r, (&c, &d)) in counts.iter().zip(displs).enumerate() {
            if d.checked_add(c).is_none() {
                return Err(Error::InvalidArgument {
                    op: "blocks",
                    reason: format!("the block of rank {r} ({c} elements at {d}) overflows"),
                });
            }
        }
        Ok(Blocks {
            counts: counts.to_vec(),
            displs: displs.to_vec(),
        })
    }

    /// Blocks of `counts[r]` elements laid end to end in rank order, from element 0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when the total overflows `usize`.
    pub fn packed(counts: &[usize]) -> Result<Blocks> {
        let mut displs = Vec::with_capacity(counts.len());
        let mut at = 0usize;
        for (r, &c) in counts.iter().enumerate() {
            displs.push(at);
            at = at.checked_add(c).ok_or_else(|| Error::InvalidArgument {
                op: "blocks",
                reason: format!("the blocks up to rank {r} overflow"),
            })?;
        }
        Ok(Blocks {
            counts: counts.to_vec(),
            displs,
        })
    }

    /// The number of ranks described.
    pub fn ranks(&self) -> usize {
        self.counts.len()
    }

    /// Rank `rank`'s count (0 for a rank not described).
    pub fn count(&self, rank: usize) -> usize {
        self.counts.get(rank).copied().unwrap_or(0)
    }

    /// Rank `rank`'s displacement (0 for a rank not described).
    pub fn displacement(&self, rank: usize) -> usize {
        self.displs.get(rank).copied().unwrap_or(0)
    }

    /// The counts, in rank order.
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// The displacements, in rank order.
    pub fn displacements(&self) -> &[usize] {
        &self.displs
    }

    /// The sum of the counts.
    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The smallest buffer length that holds every block (the largest block end; 0
    /// when every block is empty).
    pub fn extent(&self) -> usize {
        self.range_iter()
            .filter(|(_, r)| !r.is_empty())
            .map(|(_, r)| r.end)
            .max()
            .unwrap_or(0)
    }

    fn range(&self, rank: usize) -> std::ops::Range<usize> {
        let d = self.displacement(rank);
        d..d + self.count(rank)
    }

    fn range_iter(&self) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
        (0..self.ranks()).map(|r| (r, self.range(r)))
    }

    /// Checks the blocks against a world of `size` ranks and a buffer of `len`
    /// elements (an empty block too must start inside it, or at its end);
    /// `disjoint` for blocks that are written.
    fn check(
        &self,
        op: &'static str,
        what: &str,
        size: usize,
        len: usize,
        disjoint: bool,
    ) -> Result<()> {
        let bad = |reason: String| Err(Error::InvalidArgument { op, reason });
        if self.ranks() != size {
            return bad(format!(
                "{what} describes {} ranks, the world size is {size}",
                self.ranks()
            ));
        }
        for (r, range) in self.range_iter() {
            if range.end > len {
                return bad(format!(
                    "{what}: rank {r}'s block [{}, {}) ends past the buffer's {len} elements",
                    range.start, range.end
                ));
            }
        }
        if disjoint {
            let mut order: Vec<_> = self.range_iter().filter(|(_, r)| !r.is_empty()).collect();
            order.sort_by_key(|(_, r)| r.start);
            for pair in order.windows(2) {
                let ((a, ra), (b, rb)) = (&pair[0], &pair[1]);
                if rb.start < ra.end {
                    return bad(format!(
                        "{what}: the blocks of rank {a} [{}, {}) and rank {b} [{}, {}) \
                         overlap (both would be written)",
                        ra.start, ra.end, rb.start, rb.end
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Runs `f` inside a group: the caller's open one, or one of its own.
fn in_group(f: impl FnOnce() -> Result<()>) -> Result<()> {
    if group_open() { f() } else { group(|_| f()) }
}

impl Communicator {
    /// All-to-all with a block per rank: rank `r`'s block of `send`
    /// (`send_blocks`) goes to rank `r`, which receives it into its block for this
    /// rank (its `recv_blocks`). Rank `i`'s `send_blocks.count(j)` must equal rank
    /// `j`'s `recv_blocks.count(i)`; empty blocks are allowed (mixture-of-experts
    /// routing sends nothing to most ranks).
    ///
    /// A group of one send and one receive per rank (its own included), so it runs on
    /// any NCCL release. Inside an open [`group`](crate::group()) it joins that group.
    /// A [`with_coll_config`](crate::with_coll_config) config does not apply: NCCL has
    /// none for sends and receives. Every pair exchanges, empty blocks included, so
    /// that a count that two ranks disagree on is caught (on the sim, [`Error::Mismatch`] naming both ranks and
    /// their counts) rather than left to hang.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Blocks, Communicator, Config, Device, DeviceBuffer, Stream, UniqueId};
    /// let (id, n) = (UniqueId::random(), 3);
    /// let ranks: Vec<_> = (0..n).map(|me| thread::spawn(move || -> nccl_safe::Result<Vec<u32>> {
    ///     let dev = Device::sim(me)?;
    ///     let comm = Communicator::init(&dev, me, n, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     // Rank `me` sends `to + 1` copies of its rank number to rank `to`.
    ///     let send_blocks = Blocks::packed(&(0..n).map(|to| to + 1).collect::<Vec<_>>())?;
    ///     let send = DeviceBuffer::from_slice(&s, &vec![me as u32; send_blocks.total()])?;
    ///     // ... so it receives `me + 1` elements from every rank.
    ///     let recv_blocks = Blocks::packed(&vec![me + 1; n])?;
    ///     let mut recv = DeviceBuffer::zeroed(&s, recv_blocks.total())?;
    ///     comm.all_to_allv(&send, &send_blocks, &mut recv, &recv_blocks, &s)?;
    ///     recv.to_vec(&s)
    /// })).collect();
    /// let got: Vec<_> = ranks.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(got[1], vec![0, 0, 1, 1, 2, 2]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for blocks that do not describe every rank, a block
    /// past its buffer's end, or receive blocks that overlap (each names the rank);
    /// [`Error::WrongDevice`]; errors of the sends and receives.
    pub fn all_to_allv<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        send_blocks: &Blocks,
        recv: &mut impl AsDeviceViewMut<T>,
        recv_blocks: &Blocks,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "all_to_allv";
        let n = self.size();
        let s = send.device_view();
        let mut r = recv.device_view_mut();
        send_blocks.check(OP, "send_blocks", n, s.len(), false)?;
        recv_blocks.check(OP, "recv_blocks", n, r.len(), true)?;
        // Sends and receives take no per-call config in NCCL: a caller's config
        // does not apply to them.
        crate::base::coll_config::without_coll_config(|| {
            in_group(|| {
                for peer in 0..n {
                    self.send(&s.slice(send_blocks.range(peer))?, peer, stream)?;
                    self.recv(&mut r.slice_mut(recv_blocks.range(peer))?, peer, stream)?;
                }
                Ok(())
            })
        })
    }

    /// All-gather with a block per rank: every rank's `recv` receives rank `r`'s
    /// `send` in rank `r`'s block of `recv_blocks`; `send` has
    /// `recv_blocks.count(rank)` elements, and every rank passes the same counts.
    /// Elements of `recv` outside every block are left as they were.
    ///
    /// A group of one broadcast per rank, so it runs on any NCCL release; inside an
    /// open [`group`](crate::group()) it joins that group. Ranks that disagree on a
    /// nonzero count fail with [`Error::Mismatch`] on the sim. An empty block's
    /// broadcast is skipped, as NCCL skips every empty collective, so a rank alone in
    /// counting a block empty leaves the ranks' next collectives out of step (the sim
    /// reports that mismatch; NCCL hangs until the group's timeout).
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Blocks, Communicator, Config, Device, DeviceBuffer, Stream, UniqueId};
    /// let (id, n) = (UniqueId::random(), 3);
    /// let ranks: Vec<_> = (0..n).map(|me| thread::spawn(move || -> nccl_safe::Result<Vec<i64>> {
    ///     let dev = Device::sim(me)?;
    ///     let comm = Communicator::init(&dev, me, n, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let blocks = Blocks::packed(&[1, 0, 2])?; // rank 1 contributes nothing
    ///     let send = DeviceBuffer::from_slice(&s, &vec![10 * me as i64; blocks.count(me)])?;
    ///     let mut recv = DeviceBuffer::zeroed(&s, blocks.extent())?;
    ///     comm.all_gather_v(&send, &mut recv, &blocks, &s)?;
    ///     recv.to_vec(&s)
    /// })).collect();
    /// for h in ranks {
    ///     assert_eq!(h.join().unwrap()?, vec![0, 20, 20]);
    /// }
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `send`'s length is not this rank's count, and
    /// for blocks as [`Communicator::all_to_allv`]; [`Error::WrongDevice`]; errors of
    /// the broadcasts.
    pub fn all_gather_v<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        recv_blocks: &Blocks,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "all_gather_v";
        let (n, me) = (self.size(), self.rank());
        let s = send.device_view();
        let mut r = recv.device_view_mut();
        recv_blocks.check(OP, "recv_blocks", n, r.len(), true)?;
        if s.len() != recv_blocks.count(me) {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: format!(
                    "send has {} elements, but recv_blocks gives this rank ({me}) {}",
                    s.len(),
                    recv_blocks.count(me)
                ),
            });
        }
        self.check_buffer(OP, s.device())?;
        self.check_buffer(OP, r.device())?;
        in_group(|| {
            for root in 0..n {
                let block = r.slice_mut(recv_blocks.range(root))?;
                let count = block.len();
                let desc = OpDesc {
                    kind: Kind::Broadcast,
                    count,
                    dtype: T::DTYPE,
                    root: Some(root),
                    op: RedOp::None,
                };
                // Out of place on the root (its send lands in its own block too, as
                // NCCL's broadcast writes the root's receive buffer); the other ranks
                // name their block as both buffers and send nothing from it.
                let call = if root == me {
                    Call::new(desc, vec![s.owned_read(), block.owned_write(true)])
                        .send(Some(s.addr()), s.bytes().len())
                        .recv(Some(block.addr()))
                } else {
                    Call::new(desc, vec![block.owned_write(true)])
                        .send(Some(block.addr()), 0)
                        .recv(Some(block.addr()))
                };
                self.issue(stream, call)?;
            }
            Ok(())
        })
    }

    /// Reduce-scatter with a block per rank: rank `r`'s `recv` receives `op` over
    /// every rank's block `r` of `send` (`send_blocks`); `recv` has
    /// `send_blocks.count(rank)` elements, and every rank passes the same counts.
    ///
    /// A group of one reduce per rank (rank `r` the root of the reduce of block `r`),
    /// so it runs on any NCCL release; inside an open [`group`](crate::group()) it
    /// joins that group. Ranks that disagree on a nonzero count fail with
    /// [`Error::Mismatch`] on the sim; empty blocks are skipped, as in
    /// [`Communicator::all_gather_v`].
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Blocks, Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
    /// let (id, n) = (UniqueId::random(), 2);
    /// let ranks: Vec<_> = (0..n).map(|me| thread::spawn(move || -> nccl_safe::Result<Vec<f32>> {
    ///     let dev = Device::sim(me)?;
    ///     let comm = Communicator::init(&dev, me, n, &id, &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let blocks = Blocks::packed(&[3, 1])?;
    ///     let send = DeviceBuffer::from_slice(&s, &[1.0, 2.0, 3.0, 4.0])?;
    ///     let mut recv = DeviceBuffer::zeroed(&s, blocks.count(me))?;
    ///     comm.reduce_scatter_v(&send, &blocks, &mut recv, ReduceOp::Sum, &s)?;
    ///     recv.to_vec(&s)
    /// })).collect();
    /// let got: Vec<_> = ranks.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(got, vec![vec![2.0, 4.0, 6.0], vec![8.0]]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `recv`'s length is not this rank's count, and
    /// for blocks as [`Communicator::all_to_allv`]; [`Error::WrongDevice`]; errors of
    /// the reduces.
    pub fn reduce_scatter_v<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        send_blocks: &Blocks,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "reduce_scatter_v";
        let (n, me) = (self.size(), self.rank());
        let s = send.device_view();
        let mut r = recv.device_view_mut();
        send_blocks.check(OP, "send_blocks", n, s.len(), false)?;
        if r.len() != send_blocks.count(me) {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: format!(
                    "recv has {} elements, but send_blocks gives this rank ({me}) {}",
                    r.len(),
                    send_blocks.count(me)
                ),
            });
        }
        in_group(|| {
            for root in 0..n {
                let block = s.slice(send_blocks.range(root))?;
                if root == me {
                    self.reduce(
                        &block,
                        Some(&mut r as &mut dyn AsDeviceViewMut<T>),
                        op,
                        root,
                        stream,
                    )?;
                } else {
                    self.reduce(&block, None, op, root, stream)?;
                }
            }
            Ok(())
        })
    }
}
