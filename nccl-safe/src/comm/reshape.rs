//! Changing who is in a communicator: revoke, shrink and grow (NCCL's fault-tolerance
//! calls), with NCCL's rules carried by the types where they can be:
//!
//! - [`Communicator::revoke`] consumes the communicator and returns a [`Revoked`]
//!   one, which can only be shrunk, aborted or dropped; dropping it aborts, never
//!   destroys (NCCL 2.31.2 and later can block forever destroying such a parent, in an
//!   intra-node barrier that the excluded ranks never join).
//! - [`Communicator::shrink`] (NCCL's default mode) keeps the parent usable and
//!   refuses while it has work outstanding; [`Communicator::shrink_abort`] (NCCL's
//!   abort mode) stops that work first and hands the parent back as [`Revoked`].
//! - A shrink returns the new communicator with its [`RankMap`] (old rank to new).
//! - [`Communicator::grow_id`], [`Communicator::grow`] and
//!   [`Communicator::join_grown`]: one existing rank makes a [`GrowId`] (a different
//!   type from [`UniqueId`], so that neither is passed where the other belongs), the
//!   existing ranks keep their ranks and new ranks take the ranks above.
//!
//! Each call is version-gated: [`Error::UnsupportedByNccl`] below the NCCL release
//! that has it (on the sim, below the version a [`Config`] emulates).

use std::fmt;
use std::sync::Arc;

use super::communicator::{CommInner, Communicator, check_rank};
use crate::base::config::Config;
use crate::base::id::UniqueId;
use crate::features::{Feature, NcclFeatures};
use crate::sync::lock;
use crate::{AbortHandle, Device, Error, Result};

/// The id new ranks join a grow with: made by one existing rank
/// ([`Communicator::grow_id`], NCCL's `ncclCommGetUniqueId`) and sent to the new
/// ranks out of band, as a [`UniqueId`] is. Each is used by one grow.
///
/// ```
/// # use nccl_safe::GrowId;
/// let text = "00".repeat(128);
/// let id = GrowId::from_hex(&text)?;
/// assert_eq!(id.to_hex(), text);
/// assert_eq!(GrowId::from_bytes(id.as_bytes())?, id);
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrowId(UniqueId);

impl GrowId {
    /// The id as text (256 hex digits).
    pub fn to_hex(&self) -> String {
        self.0.to_hex()
    }

    /// An id from [`GrowId::to_hex`]'s text.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming what is wrong with the text.
    pub fn from_hex(text: &str) -> Result<GrowId> {
        UniqueId::from_hex(text).map(GrowId)
    }

    /// An id received from the rank that made it.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] unless `bytes` has exactly 128 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<GrowId> {
        UniqueId::from_bytes(bytes).map(GrowId)
    }

    /// The 128 bytes, to send to the new ranks.
    pub fn as_bytes(&self) -> &[u8; 128] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for GrowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = format!("{:?}", self.0);
        write!(f, "Grow{}", inner.trim_start_matches("Unique"))
    }
}

/// Where each rank of a shrunk communicator came from: ranks keep their order, and
/// the survivors are renumbered from 0 (as NCCL does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankMap {
    old_size: usize,
    survivors: Vec<usize>,
}

impl RankMap {
    /// The map of a shrink of `old_size` ranks without those of `excluded`.
    pub fn without(old_size: usize, excluded: &[usize]) -> RankMap {
        RankMap {
            old_size,
            survivors: (0..old_size).filter(|r| !excluded.contains(r)).collect(),
        }
    }

    /// The new rank of old rank `old`; `None` for an excluded rank (or one not below
    /// the old size).
    pub fn new_rank(&self, old: usize) -> Option<usize> {
        self.survivors.binary_search(&old).ok()
    }

    /// The old rank of new rank `new`; `None` when `new` is not below the new size.
    pub fn old_rank(&self, new: usize) -> Option<usize> {
        self.survivors.get(new).copied()
    }

    /// The old ranks that are in the new communicator, in new-rank order.
    pub fn survivors(&self) -> &[usize] {
        &self.survivors
    }

    /// The old ranks that are not.
    pub fn excluded(&self) -> Vec<usize> {
        (0..self.old_size)
            .filter(|r| self.survivors.binary_search(r).is_err())
            .collect()
    }

    /// The parent's size.
    pub fn old_size(&self) -> usize {
        self.old_size
    }

    /// The new communicator's size.
    pub fn new_size(&self) -> usize {
        self.survivors.len()
    }
}

/// The result of a shrink: the new communicator and where its ranks came from.
#[derive(Debug)]
pub struct Shrunk {
    /// The communicator of the survivors.
    pub comm: Communicator,
    /// Old rank to new rank, and back.
    pub ranks: RankMap,
}

/// A communicator whose operations were stopped, by [`Communicator::revoke`] or
/// [`Communicator::shrink_abort`]: NCCL allows nothing on it but a shrink (or a split)
/// and its release, so this type offers only [`Revoked::shrink`],
/// [`Revoked::abort`] and its drop, which aborts (on a thread of its own, as a
/// [`Communicator`]'s drop tears down): destroying such a parent can block forever
/// since NCCL 2.31.2.
///
/// ```compile_fail
/// # use nccl_safe::*;
/// fn no_collectives(r: &Revoked, x: &mut DeviceBuffer<f32>, s: &Stream) {
///     r.all_reduce_in_place(x, ReduceOp::Sum, s); // error: no such method
/// }
/// ```
pub struct Revoked {
    /// The communicator, marked revoked: its operations are refused, and its drop
    /// (`teardown`) aborts instead of destroying.
    comm: Communicator,
}

impl Revoked {
    fn inner(&self) -> &Arc<CommInner> {
        &self.comm.inner
    }

    /// This rank (in the revoked communicator).
    pub fn rank(&self) -> usize {
        self.inner().rank
    }

    /// The revoked communicator's size.
    pub fn size(&self) -> usize {
        self.inner().size
    }

    /// The device of this rank.
    pub fn device(&self) -> &Device {
        &self.inner().device
    }

    /// Shrinks: the ranks not in `exclude` make a new communicator, and this one
    /// stays revoked. Every surviving rank calls it with the same list; excluded
    /// ranks do not call it. On cuda this is `ncclCommShrink` in abort mode
    /// (`NCCL_SHRINK_ABORT`: nothing is left running to wait for).
    ///
    /// A shrink that fails ends this communicator on cuda (NCCL refuses every call on
    /// a communicator whose last call failed, so the library aborts it then); only
    /// the sim lets it be shrunk again.
    ///
    /// # Errors
    ///
    /// As [`Communicator::shrink`], but never for outstanding work (it was stopped).
    pub fn shrink(&self, exclude: &[usize], config: &Config) -> Result<Shrunk> {
        shrink_inner(self.inner(), exclude, true, config)
    }

    /// Aborts now and releases the communicator.
    ///
    /// # Errors
    ///
    /// A driver error from `ncclCommAbort`.
    pub fn abort(self) -> Result<()> {
        self.inner().abort_now()
    }
}

impl fmt::Debug for Revoked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Revoked(rank {} of {} on {})",
            self.rank(),
            self.size(),
            self.device()
        )
    }
}

/// Refuses a call that needs `feature` when the NCCL behind `inner` lacks it.
fn require(inner: &CommInner, feature: Feature) -> Result<()> {
    crate::features::require(inner.imp.kind(), inner.config.sim_nccl_version, feature)
}

/// Refuses a call NCCL forbids while the communicator has work outstanding.
fn refuse_outstanding(inner: &CommInner, op: &'static str, rule: &str) -> Result<()> {
    let outstanding = inner.outstanding();
    if outstanding == 0 {
        return Ok(());
    }
    Err(Error::InvalidUsage {
        op,
        reason: format!(
            "rank {} has {outstanding} operation(s) outstanding; {rule}",
            inner.rank
        ),
    })
}

/// `exclude` checked and sorted: not empty, every rank below the size, none twice,
/// not this rank (excluded ranks do not call shrink).
fn checked_exclude(inner: &CommInner, exclude: &[usize]) -> Result<Vec<usize>> {
    let op = "shrink";
    if exclude.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            reason: "no rank to exclude (NCCL's ncclCommShrink needs at least one)".into(),
        });
    }
    let mut list = exclude.to_vec();
    list.sort_unstable();
    for (i, &r) in list.iter().enumerate() {
        check_rank(op, "excluded rank", r, inner.size)?;
        if i > 0 && list[i - 1] == r {
            return Err(Error::InvalidArgument {
                op,
                reason: format!("rank {r} is excluded twice"),
            });
        }
        if r == inner.rank {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "rank {r} is in its own exclude list: excluded ranks do not call shrink \
                     (NCCL's ncclCommShrink)"
                ),
            });
        }
    }
    Ok(list)
}

fn shrink_inner(
    inner: &Arc<CommInner>,
    exclude: &[usize],
    abort_mode: bool,
    config: &Config,
) -> Result<Shrunk> {
    require(inner, Feature::Shrink)?;
    config.validate()?;
    inner.check_not_freed("shrink")?;
    let list = checked_exclude(inner, exclude)?;
    let (rank, size, imp) = inner.imp.shrink(&list, abort_mode, config, &inner.config)?;
    let ranks = RankMap::without(inner.size, &list);
    debug_assert_eq!(
        (Some(rank), size),
        (ranks.new_rank(inner.rank), ranks.new_size())
    );
    Ok(Shrunk {
        comm: Communicator {
            inner: CommInner::new(
                inner.device.clone(),
                rank,
                size,
                config.clone(),
                imp,
                inner.together,
            ),
        },
        ranks,
    })
}

impl Communicator {
    /// What the NCCL behind this communicator can do: the loaded library on cuda; on
    /// the sim, the version its [`Config`] emulates (every feature without one). Ask it
    /// before a call that consumes the communicator, such as
    /// [`Communicator::revoke`].
    ///
    /// # Errors
    ///
    /// On cuda, libnccl's version cannot be read.
    pub fn nccl_features(&self) -> Result<NcclFeatures> {
        match (self.inner.imp.kind(), self.inner.config.sim_nccl_version) {
            (crate::DriverKind::Cuda, _) => crate::nccl_features(),
            (crate::DriverKind::Sim, Some(v)) => Ok(NcclFeatures::of(v, |_| true)),
            (crate::DriverKind::Sim, None) => {
                Ok(NcclFeatures::of(crate::nccl_header_version(), |_| true))
            }
        }
    }

    /// Revokes (`ncclCommRevoke`, NCCL 2.28.7): stops this rank's in-flight
    /// operations and waits, at most the call timeout, until the communicator is
    /// quiescent. The operations it stopped never report success: their streams fail
    /// from now on (NCCL's revoked kernels end without a CUDA error and leave their
    /// outputs undefined). Local, as in NCCL: every rank revokes its own (on the sim,
    /// a peer waiting in an operation with this rank fails at once, naming it).
    ///
    /// The result can only be shrunk, aborted or dropped ([`Revoked`]). From another
    /// thread, [`AbortHandle::revoke`] does the same to a communicator it does not own.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] below NCCL 2.28.7 (the communicator is then
    /// released as a drop does: check [`Communicator::nccl_features`] first to keep
    /// it); [`Error::Timeout`] when it does not become quiescent within the call
    /// timeout (it is then released by abort: a communicator still stopping cannot be
    /// shrunk); driver errors.
    pub fn revoke(self) -> Result<Revoked> {
        require(&self.inner, Feature::Revoke)?;
        self.inner.revoke_now()?;
        Ok(Revoked { comm: self })
    }

    /// Shrinks in NCCL's default mode (`ncclCommShrink`, NCCL 2.27): the ranks not in
    /// `exclude` make a new communicator, numbered in their old order from 0; this
    /// one stays usable. Every surviving rank calls it with the same list; excluded
    /// ranks do not call it (they release their communicator themselves). Waits, at
    /// most this communicator's call timeout, for every survivor.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..3).map(|rank| thread::spawn(move || -> nccl_safe::Result<_> {
    ///     let dev = Device::sim(rank)?;
    ///     let comm = Communicator::init(&dev, rank, 3, &id, &Config::new())?;
    ///     if rank == 1 {
    ///         return Ok(None); // rank 1 leaves
    ///     }
    ///     let shrunk = comm.shrink(&[1], &Config::new())?;
    ///     assert_eq!(shrunk.ranks.new_rank(rank), Some(shrunk.comm.rank()));
    ///     let s = Stream::new(&dev)?;
    ///     let mut x = DeviceBuffer::from_slice(&s, &[rank as f32; 2])?;
    ///     shrunk.comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
    ///     Ok(Some(x.to_vec(&s)?))
    /// })).collect();
    /// let out: Vec<_> = ranks.into_iter().map(|t| t.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(out, [Some(vec![2.0; 2]), None, Some(vec![2.0; 2])]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an empty list, a rank not below the size or
    /// twice, or this rank itself; [`Error::InvalidUsage`] while this communicator
    /// has work outstanding (NCCL's default mode may deadlock then: wait for it, or use
    /// [`Communicator::shrink_abort`]); [`Error::Mismatch`] on the sim when survivors
    /// excluded different ranks; [`Error::UnsupportedByNccl`] below NCCL 2.27;
    /// timeouts and driver errors.
    pub fn shrink(&self, exclude: &[usize], config: &Config) -> Result<Shrunk> {
        self.inner.check_issuable("shrink")?;
        refuse_outstanding(
            &self.inner,
            "shrink",
            "NCCL's default-mode shrink may deadlock with operations outstanding: wait \
             for them, or use shrink_abort (NCCL_SHRINK_ABORT)",
        )?;
        shrink_inner(&self.inner, exclude, false, config)
    }

    /// Shrinks in NCCL's abort mode (`NCCL_SHRINK_ABORT`): this rank's outstanding
    /// operations are stopped first (they fail, as after [`Communicator::revoke`]),
    /// then the survivors make a new communicator as in [`Communicator::shrink`].
    /// Returns it with the parent as [`Revoked`], which can be shrunk again, aborted
    /// or dropped (never destroyed).
    ///
    /// # Errors
    ///
    /// As [`Communicator::shrink`], but never for outstanding work. On an error the
    /// parent is released (aborted); to keep it for another try, use
    /// [`Communicator::revoke`] and then [`Revoked::shrink`].
    pub fn shrink_abort(self, exclude: &[usize], config: &Config) -> Result<(Shrunk, Revoked)> {
        require(&self.inner, Feature::Shrink)?;
        config.validate()?;
        checked_exclude(&self.inner, exclude)?;
        // NCCL_SHRINK_ABORT stops the outstanding work (the sim's driver stops it
        // too); what it cuts short is remembered first. A revoke under way on another
        // thread is waited for.
        if self.inner.mark_revoked() {
            self.inner.revoked_with(Ok(()));
        } else {
            self.inner.revoke_now()?;
        }
        let parent = Revoked { comm: self };
        let shrunk = parent.shrink(exclude, config)?;
        Ok((shrunk, parent))
    }

    /// Makes the id of this communicator's next grow (`ncclCommGetUniqueId`, NCCL
    /// 2.29.2), on one existing rank (the coordinator), to be sent to the new ranks.
    /// One id per grow: no second one until a grow used it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUsage`] with work outstanding (NCCL forbids it), or while an
    /// id made earlier is unused; [`Error::UnsupportedByNccl`] below NCCL 2.29.2;
    /// driver errors.
    pub fn grow_id(&self) -> Result<GrowId> {
        self.inner.check_issuable("grow_id")?;
        require(&self.inner, Feature::Grow)?;
        refuse_outstanding(
            &self.inner,
            "grow_id",
            "NCCL allows no operation outstanding during a grow: wait for them first",
        )?;
        let mut slot = lock(&self.inner.grow_id);
        if slot.is_some() {
            return Err(Error::InvalidUsage {
                op: "grow_id",
                reason: "an id made earlier by grow_id is unused: grow with it first \
                         (NCCL makes one id per grow)"
                    .into(),
            });
        }
        let bytes = self.inner.imp.grow_id()?;
        *slot = Some(bytes);
        Ok(GrowId(UniqueId(bytes)))
    }

    /// Grows to `size` ranks (`ncclCommGrow`, NCCL 2.29.2), as an existing rank: it
    /// keeps its rank, and the new ranks, which call [`Communicator::join_grown`],
    /// take the ranks from this communicator's size up. Every existing rank calls it;
    /// the coordinator passes the id it made with [`Communicator::grow_id`], the
    /// others `None`. This communicator stays usable (NCCL asks that it be destroyed
    /// once the grow is done: drop or close it). Waits, at most the call timeout, for
    /// every rank.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] unless `size` is above this communicator's;
    /// [`Error::InvalidUsage`] with work outstanding, or for an id that is not this
    /// communicator's unused one (ids are used once); [`Error::UnsupportedByNccl`]
    /// below NCCL 2.29.2; timeouts and driver errors.
    pub fn grow(&self, size: usize, id: Option<&GrowId>, config: &Config) -> Result<Communicator> {
        self.inner.check_issuable("grow")?;
        require(&self.inner, Feature::Grow)?;
        config.validate()?;
        if size <= self.inner.size {
            return Err(Error::InvalidArgument {
                op: "grow",
                reason: format!(
                    "new size {size} is not above the communicator's size {}",
                    self.inner.size
                ),
            });
        }
        refuse_outstanding(
            &self.inner,
            "grow",
            "NCCL allows no operation outstanding during a grow: wait for them first",
        )?;
        if let Some(id) = id {
            let mut slot = lock(&self.inner.grow_id);
            if *slot != Some(*id.as_bytes()) {
                return Err(Error::InvalidUsage {
                    op: "grow",
                    reason: "this id is not one this rank's grow_id made and no grow used \
                             yet (each id is used by one grow; make a new one with grow_id)"
                        .into(),
                });
            }
            *slot = None;
        }
        let imp =
            self.inner
                .imp
                .grow(size, id.map(GrowId::as_bytes), config, &self.inner.config)?;
        Ok(Communicator {
            inner: CommInner::new(
                self.inner.device.clone(),
                self.inner.rank,
                size,
                config.clone(),
                imp,
                self.inner.together,
            ),
        })
    }

    /// Joins a grow as new rank `rank` of `size`, on `device`, with the id an
    /// existing rank made ([`Communicator::grow_id`]). New ranks take the ranks from
    /// the old size up. Waits, at most the config's call timeout, for every rank.
    ///
    /// ```
    /// use std::thread;
    /// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, GrowId, ReduceOp, Stream, UniqueId};
    /// let id = UniqueId::random();
    /// let (tx, rx) = std::sync::mpsc::channel::<GrowId>();
    /// let newcomer = thread::spawn(move || -> nccl_safe::Result<Vec<i32>> {
    ///     let dev = Device::sim(2)?;
    ///     let comm = Communicator::join_grown(&dev, 2, 3, &rx.recv().unwrap(), &Config::new())?;
    ///     let s = Stream::new(&dev)?;
    ///     let mut x = DeviceBuffer::from_slice(&s, &[10])?;
    ///     comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
    ///     x.to_vec(&s)
    /// });
    /// let old: Vec<_> = (0..2).map(|rank| {
    ///     let tx = tx.clone();
    ///     thread::spawn(move || -> nccl_safe::Result<Vec<i32>> {
    ///         let dev = Device::sim(rank)?;
    ///         let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
    ///         let made = if rank == 0 { Some(comm.grow_id()?) } else { None };
    ///         if let Some(g) = made {
    ///             tx.send(g).unwrap();
    ///         }
    ///         let grown = comm.grow(3, made.as_ref(), &Config::new())?;
    ///         let s = Stream::new(&dev)?;
    ///         let mut x = DeviceBuffer::from_slice(&s, &[rank as i32])?;
    ///         grown.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
    ///         x.to_vec(&s)
    ///     })
    /// }).collect();
    /// for t in old {
    ///     assert_eq!(t.join().unwrap()?, [11]);
    /// }
    /// assert_eq!(newcomer.join().unwrap()?, [11]);
    /// # Ok::<(), nccl_safe::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for `rank >= size`, or (sim) an id that no grow_id
    /// made; [`Error::InvalidUsage`] (sim) for an id a grow already used;
    /// [`Error::UnsupportedByNccl`] below NCCL 2.29.2; timeouts and driver errors.
    pub fn join_grown(
        device: &Device,
        rank: usize,
        size: usize,
        id: &GrowId,
        config: &Config,
    ) -> Result<Communicator> {
        crate::features::require(device.driver(), config.sim_nccl_version, Feature::Grow)?;
        config.validate()?;
        check_rank("join_grown", "rank", rank, size)?;
        let imp = device
            .inner
            .imp
            .join_grown(id.as_bytes(), rank, size, config)?;
        Ok(Communicator {
            inner: CommInner::new(device.clone(), rank, size, config.clone(), imp, 1),
        })
    }
}

impl AbortHandle {
    /// Revokes the communicator from any thread (as [`Communicator::revoke`] does,
    /// without owning it): in-flight operations stop and fail, and the owner's
    /// operations are refused from then on, saying it was revoked; the owner then
    /// turns it into its [`Revoked`] form with [`Communicator::revoke`] to shrink it.
    /// NCCL is asked once: a second revoke, here or by the owner, waits (at most the
    /// call timeout) for the first to leave the communicator quiescent, and returns
    /// how it ended.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] below NCCL 2.28.7; as [`Communicator::revoke`].
    pub fn revoke(&self) -> Result<()> {
        require(&self.inner, Feature::Revoke)?;
        self.inner.revoke_now()
    }

    /// As [`AbortHandle::revoke`], after the failure of rank `cause` (as
    /// [`AbortHandle::abort_after`]: on the sim, peers that see this revocation are
    /// told it goes back to `cause`; NCCL is told nothing more).
    ///
    /// # Errors
    ///
    /// As [`AbortHandle::revoke`].
    pub fn revoke_after(&self, cause: usize) -> Result<()> {
        require(&self.inner, Feature::Revoke)?;
        if cause != self.inner.rank {
            self.inner.imp.note_cause(cause);
        }
        self.inner.revoke_now()
    }
}
