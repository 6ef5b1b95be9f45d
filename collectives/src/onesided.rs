//! One-sided operations of a [`ProcessGroup`] on windows: puts, signals and waits
//! ([`Communicator::put_signal`](nccl_safe::Communicator::put_signal)), each one
//! [`Work`] with one flight-record entry, numbered per peer and operation as messages
//! are. A wait for signals that never come is bounded by the group's timeout: the
//! watchdog fails it, and the hang report lists it as pending, naming the peer.

use std::panic::Location;

use nccl_safe::{AsDeviceView, AsDeviceViewMut, DType, DataType, SignalWait, Window};

use crate::process_group::{OpInfo, ProcessGroup};
use crate::{Result, Work};

impl ProcessGroup {
    /// Writes `src` into rank `peer`'s part of `window`, `offset` bytes from its
    /// start, then signals it
    /// ([`Communicator::put_signal`](nccl_safe::Communicator::put_signal)); the peer
    /// does not take part. `window` is a symmetric window of this group
    /// ([`ProcessGroup::register_window`]) and `src` lies in one.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{Options, ProcessGroup};
    /// use collectives::nccl_safe::{Device, DeviceBuffer, UniqueId, WindowFlags};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..2).map(|me| thread::spawn(move || -> collectives::Result<Vec<f32>> {
    ///     let dev = Device::sim(me)?;
    ///     let pg = ProcessGroup::new(&dev, me, 2, &id, Options::new())?;
    ///     let s = pg.comm_stream();
    ///     // Two pages: rank 0's put lands in the first, it puts from the second.
    ///     let mut kv = DeviceBuffer::<f32>::alloc_nccl(&dev, 2048)?;
    ///     kv.fill(s, me as f32)?;
    ///     let window = pg.register_window(&kv, WindowFlags::new().symmetric())?;
    ///     let done = if me == 0 {
    ///         pg.put_signal(&kv.view(1024..2048)?, 1, &window, 0)?
    ///     } else {
    ///         pg.wait_signal(&mut kv.view_mut(0..1024)?, 0, 1)?
    ///     };
    ///     done.wait_host(Duration::from_secs(10))?;
    ///     Ok(kv.view(0..4)?.to_vec(s)?)
    /// })).collect();
    /// let got: Vec<_> = ranks.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(got, vec![vec![0.0; 4], vec![0.0; 4]]);
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Communicator::put_signal`](nccl_safe::Communicator::put_signal); the
    /// group's refusal once it failed or was replaced.
    #[track_caller]
    pub fn put_signal<T: DataType>(
        &self,
        src: &impl AsDeviceView<T>,
        peer: usize,
        window: &Window,
        offset: usize,
    ) -> Result<Work> {
        let n = src.device_view().len();
        self.submit(
            OpInfo::new("put_signal", T::DTYPE, n, Location::caller()).one_sided(peer),
            |c, s| c.put_signal(src, peer, window, offset, s),
        )
    }

    /// Signals rank `peer` without data
    /// ([`Communicator::signal`](nccl_safe::Communicator::signal)).
    ///
    /// # Errors
    ///
    /// As [`Communicator::signal`](nccl_safe::Communicator::signal); the group's
    /// refusal once it failed or was replaced.
    #[track_caller]
    pub fn signal(&self, peer: usize) -> Result<Work> {
        self.submit(
            OpInfo::new("signal", DType::U8, 0, Location::caller()).one_sided(peer),
            |c, s| c.signal(peer, s),
        )
    }

    /// Waits for `count` more signals from rank `peer`, whose puts land in `into`
    /// ([`Communicator::wait_signal`](nccl_safe::Communicator::wait_signal)): the
    /// `Work` completes when they have arrived, and the group's stream, with every
    /// later use of `into` ordered after it, goes on then. Its flight-record entry counts
    /// the signals. Signals that never come make it time out as any operation of the
    /// group does; the hang report lists it as pending with the peer.
    ///
    /// # Errors
    ///
    /// As [`Communicator::wait_signal`](nccl_safe::Communicator::wait_signal); the
    /// group's refusal once it failed or was replaced.
    #[track_caller]
    pub fn wait_signal<T: DataType>(
        &self,
        into: &mut impl AsDeviceViewMut<T>,
        peer: usize,
        count: u32,
    ) -> Result<Work> {
        self.submit(
            OpInfo::new("wait_signal", DType::U8, count as usize, Location::caller())
                .one_sided(peer),
            |c, s| c.wait_signal(into, &[SignalWait::new(peer, count)], s),
        )
    }
}
