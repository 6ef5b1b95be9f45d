//! [`Communicator::init_scalable`]: a communicator's init with several unique ids,
//! one bootstrap root each (`ncclCommInitRankScalable`, NCCL 2.23.4).

use crate::comm::communicator::check_rank;
use crate::features::Feature;
use crate::{Communicator, Config, Device, Error, Result, UniqueId};

impl Communicator {
    /// Joins rank `rank` of a `size`-rank communicator whose bootstrap is spread over
    /// `ids.len()` roots instead of one: NCCL's handshake at init then funnels
    /// `size / ids.len()` ranks through each root instead of all through one, which is
    /// what makes init of thousands of ranks fast. Each id is made by a different rank
    /// ([`UniqueId::new`] on the rank that hosts that root), and every rank passes the
    /// same ids in the same order. One id is [`Communicator::init`].
    ///
    /// On cuda this is `ncclCommInitRankScalable`. The sim meets under one root named
    /// by the whole list: ranks given different lists (or the same ids in another
    /// order) never meet, and a blocking init ends in [`Error::InitTimeout`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for no ids, more ids than ranks, ids of both drivers,
    /// or the errors of [`Communicator::init`] for `rank` and `size`;
    /// [`Error::UnsupportedByNccl`] when the loaded NCCL (on the sim: the version
    /// [`Config::emulate_nccl_version`] emulates) is older than 2.23.4 or lacks the
    /// function; the errors of [`Communicator::init`].
    ///
    /// # Examples
    ///
    /// ```
    /// use nccl_safe::{Communicator, Config, Device, DriverKind, UniqueId};
    ///
    /// // Two roots for four ranks; in a job each root's id comes from its own rank.
    /// let ids = [UniqueId::random(), UniqueId::random()];
    /// let ranks: Vec<_> = (0..4)
    ///     .map(|rank| {
    ///         std::thread::spawn(move || {
    ///             let device = Device::with_driver(DriverKind::Sim, rank)?;
    ///             let comm = Communicator::init_scalable(&device, rank, 4, &ids, &Config::new())?;
    ///             Ok::<_, nccl_safe::Error>(comm.size())
    ///         })
    ///     })
    ///     .collect();
    /// for r in ranks {
    ///     assert_eq!(r.join().unwrap()?, 4);
    /// }
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    pub fn init_scalable(
        device: &Device,
        rank: usize,
        size: usize,
        ids: &[UniqueId],
        config: &Config,
    ) -> Result<Communicator> {
        let invalid = |reason: String| Error::InvalidArgument {
            op: "communicator init",
            reason,
        };
        match ids {
            [] => return Err(invalid("no unique id".into())),
            [id] => return Communicator::init(device, rank, size, id, config),
            _ => {}
        }
        if size == 0 {
            return Err(invalid("world size 0".into()));
        }
        check_rank("communicator init", "rank", rank, size)?;
        if ids.len() > size {
            return Err(invalid(format!(
                "{} unique ids for {size} ranks: at most one root per rank",
                ids.len()
            )));
        }
        let sim = ids.iter().filter(|id| id.is_sim()).count();
        if sim != 0 && sim != ids.len() {
            return Err(invalid(format!(
                "{sim} of the {} unique ids were made for the sim driver and the others \
                 by NCCL: every root's id comes from the same driver",
                ids.len()
            )));
        }
        crate::features::require(
            device.driver(),
            config.sim_nccl_version,
            Feature::ScalableInit,
        )?;
        let raw: Vec<[u8; 128]> = ids.iter().map(|id| *id.as_bytes()).collect();
        Communicator::init_ids(device, rank, size, &raw, config)
    }
}
