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
    ///     let v = grads.to_vec(pg.comm_stream())?;
    ///     drop(window); // released when `grads` goes, after every operation on it
    ///     Ok(v)
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

impl ProcessGroup {
    /// Captures the calls `f` makes on the group's communicator and stream into a
    /// [`Graph`](nccl_safe::Graph) ([`Communicator::capture`](nccl_safe::Communicator::capture));
    /// nothing runs, and the group's sequence and flight record are untouched until
    /// [`ProcessGroup::replay`].
    ///
    /// # Errors
    ///
    /// As [`Communicator::capture`](nccl_safe::Communicator::capture).
    pub fn capture(
        &self,
        f: impl FnOnce(&Communicator, &Stream) -> nccl_safe::Result<()>,
    ) -> Result<nccl_safe::Graph> {
        let stream = self.comm_stream();
        self.with_group_comm("capture", |c| c.capture(stream, |_| f(c, stream)))
    }

    /// Replays `graph` on the group's stream as one operation: a [`Work`](crate::Work)
    /// with its flight-record entry (`graph`, the count being the graph's operations),
    /// covered by the watchdog and the group's timeout like any collective. Every
    /// rank replays the same graph in the same place of its sequence.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{Options, ProcessGroup};
    /// use collectives::nccl_safe::{Device, DeviceBuffer, ReduceOp, UniqueId};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> collectives::Result<Vec<i32>> {
    ///     let pg = ProcessGroup::new(&Device::sim(rank)?, rank, 2, &id, Options::new())?;
    ///     let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[1i32; 4])?;
    ///     let graph = pg.capture(|c, s| c.all_reduce_in_place(&mut x, ReduceOp::Sum, s))?;
    ///     for _ in 0..4 {
    ///         pg.replay(&graph)?.wait_host(Duration::from_secs(10))?;
    ///     }
    ///     Ok(x.to_vec(pg.comm_stream())?)
    /// })).collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, vec![16; 4]);
    /// }
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Graph::launch`](nccl_safe::Graph::launch); as
    /// [`ProcessGroup::all_reduce`].
    #[track_caller]
    pub fn replay(&self, graph: &nccl_safe::Graph) -> Result<crate::Work> {
        use crate::process_group::OpInfo;
        self.submit(
            OpInfo::new(
                "graph",
                nccl_safe::DType::U8,
                graph.ops(),
                std::panic::Location::caller(),
            ),
            |_, s| graph.launch(s),
        )
    }
}
