//! A [`ProcessGroup`]'s buffers registered with its communicator (registrations and
//! windows), and NCCL's cost estimate of calls on it.

use std::time::Duration;

use nccl_safe::{AsDeviceView, Communicator, DataType, Registration, Stream, Window, WindowFlags};

use crate::Result;
use crate::process_group::ProcessGroup;

impl ProcessGroup {
    /// Registers `buf` with the group's communicator
    /// ([`Communicator::register`](nccl_safe::Communicator::register)): the
    /// [`Registration`] holds the buffer's memory until it is released.
    ///
    /// # Errors
    ///
    /// As [`Communicator::register`](nccl_safe::Communicator::register); the group's
    /// refusal once it failed or was replaced.
    pub fn register<T: DataType>(&self, buf: &impl AsDeviceView<T>) -> Result<Registration> {
        self.with_group_comm("register", |c| c.register(buf))
    }

    /// Registers `buf` as a window with every rank of the group
    /// ([`Communicator::register_window`](nccl_safe::Communicator::register_window));
    /// collective.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{Options, ProcessGroup};
    /// use collectives::nccl_safe::{Device, DeviceBuffer, ReduceOp, UniqueId, WindowFlags};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> collectives::Result<Vec<f32>> {
    ///     let dev = Device::sim(rank)?;
    ///     let pg = ProcessGroup::new(&dev, rank, 2, &id, Options::new())?;
    ///     let mut grads = DeviceBuffer::<f32>::alloc_nccl(&dev, 1024)?;
    ///     let window = pg.register_window(&grads, WindowFlags::new().symmetric())?;
    ///     grads.fill(pg.comm_stream(), 0.5)?;
    ///     pg.all_reduce(&mut grads, ReduceOp::Sum)?.wait_host(Duration::from_secs(10))?;
    ///     drop(window); // released once the all-reduce is done
    ///     Ok(grads.to_vec(pg.comm_stream())?)
    /// })).collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, vec![1.0; 1024]);
    /// }
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Communicator::register_window`](nccl_safe::Communicator::register_window).
    pub fn register_window<T: DataType>(
        &self,
        buf: &impl AsDeviceView<T>,
        flags: WindowFlags,
    ) -> Result<Window> {
        self.with_group_comm("register_window", |c| c.register_window(buf, flags))
    }

    /// NCCL's estimate of the calls `f` makes on the group's communicator and stream,
    /// as one group, launching nothing ([`nccl_safe::estimate`]); the group's
    /// sequence and flight record are untouched.
    ///
    /// # Errors
    ///
    /// As [`nccl_safe::estimate`].
    pub fn estimate(
        &self,
        f: impl FnOnce(&Communicator, &Stream) -> nccl_safe::Result<()>,
    ) -> Result<Duration> {
        let stream = self.comm_stream();
        self.with_group_comm("estimate", |c| nccl_safe::estimate(|_| f(c, stream)))
    }
}
