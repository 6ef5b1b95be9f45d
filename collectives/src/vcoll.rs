//! The v-collectives of a [`ProcessGroup`]: all-to-all, all-gather and
//! reduce-scatter with a block per rank ([`Blocks`]), each one [`Work`] and one
//! flight-record entry, as any other collective.

use std::panic::Location;

use nccl_safe::{AsDeviceView, AsDeviceViewMut, Blocks, DataType, ReduceOp};

use crate::process_group::{OpInfo, ProcessGroup};
use crate::{Result, Work};

impl ProcessGroup {
    /// All-to-all with a count and displacement per rank
    /// ([`Communicator::all_to_allv`](nccl_safe::Communicator::all_to_allv)): rank
    /// `r`'s block of `send` goes to rank `r`; rank `i`'s `send_blocks.count(j)` must
    /// equal rank `j`'s `recv_blocks.count(i)`.
    ///
    /// The flight record's entry has the elements this rank sends as its count and
    /// those it receives as its `out_count`; PyTorch's analyzer sees an
    /// `all_to_all_single`, whose sizes it checks summed over the group.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{Options, ProcessGroup};
    /// use collectives::nccl_safe::{Blocks, Device, DeviceBuffer, UniqueId};
    /// let (id, n) = (UniqueId::random(), 2);
    /// let ranks: Vec<_> = (0..n).map(|me| thread::spawn(move || -> collectives::Result<Vec<u8>> {
    ///     let pg = ProcessGroup::new(&Device::sim(me)?, me, n, &id, Options::new().name("moe"))?;
    ///     // Rank 0 routes 1 token to itself and 3 to rank 1; rank 1 keeps all 2 of its own.
    ///     let (sends, recvs) = if me == 0 { ([1, 3], [1, 0]) } else { ([0, 2], [3, 2]) };
    ///     let (sb, rb) = (Blocks::packed(&sends)?, Blocks::packed(&recvs)?);
    ///     let s = pg.comm_stream();
    ///     let send = DeviceBuffer::from_slice(s, &vec![me as u8 + 1; sb.total()])?;
    ///     let mut recv = DeviceBuffer::zeroed(s, rb.total())?;
    ///     pg.all_to_allv(&send, &sb, &mut recv, &rb)?.wait_host(Duration::from_secs(10))?;
    ///     Ok(recv.to_vec(s)?)
    /// })).collect();
    /// let got: Vec<_> = ranks.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(got, vec![vec![1], vec![1, 1, 1, 2, 2]]);
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The argument errors of `nccl_safe` (naming the rank whose block is wrong);
    /// as [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn all_to_allv<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        send_blocks: &Blocks,
        recv: &mut impl AsDeviceViewMut<T>,
        recv_blocks: &Blocks,
    ) -> Result<Work> {
        self.submit_scanned(
            OpInfo::new(
                "all_to_allv",
                T::DTYPE,
                send_blocks.total(),
                Location::caller(),
            )
            .out_count(recv_blocks.total()),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.all_to_allv(send, send_blocks, recv, recv_blocks, s)
            },
        )
    }

    /// All-gather with a block per rank
    /// ([`Communicator::all_gather_v`](nccl_safe::Communicator::all_gather_v)):
    /// `send` has this rank's count of `recv_blocks`, and every rank passes the same
    /// blocks. The flight record's count is the total of the blocks.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_to_allv`].
    #[track_caller]
    pub fn all_gather_v<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        recv: &mut impl AsDeviceViewMut<T>,
        recv_blocks: &Blocks,
    ) -> Result<Work> {
        self.submit_scanned(
            OpInfo::new(
                "all_gather_v",
                T::DTYPE,
                recv_blocks.total(),
                Location::caller(),
            ),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.all_gather_v(send, recv, recv_blocks, s)
            },
        )
    }

    /// Reduce-scatter with a block per rank
    /// ([`Communicator::reduce_scatter_v`](nccl_safe::Communicator::reduce_scatter_v)):
    /// `recv` has this rank's count of `send_blocks`, and every rank passes the same
    /// blocks. The flight record's count is the total of the blocks.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::all_to_allv`].
    #[track_caller]
    pub fn reduce_scatter_v<T: DataType>(
        &self,
        send: &impl AsDeviceView<T>,
        send_blocks: &Blocks,
        recv: &mut impl AsDeviceViewMut<T>,
        op: ReduceOp<'_, T>,
    ) -> Result<Work> {
        self.submit_scanned(
            OpInfo::new(
                "reduce_scatter_v",
                T::DTYPE,
                send_blocks.total(),
                Location::caller(),
            ),
            |c, s, scan| {
                scan.input(&send.device_view(), s)?;
                c.reduce_scatter_v(send, send_blocks, recv, op, s)
            },
        )
    }
}
