//! A group that heals: [`ProcessGroup::shrink`] after a failure, [`ProcessGroup::admit`]
//! to let replacements in, and the explicit forms under them. Each makes a new group,
//! one *epoch* later, and the old one refuses every operation from then on with
//! [`Error::Replaced`], naming the call that replaced it.
//!
//! # Agreeing who is gone (`shrink`)
//!
//! Through the job's store, under the keys of the epoch that ended
//! (`{prefix}/shrink/...`): every surviving rank says it is alive; a rank is gone when
//! the store saw its connection drop without an orderly close (the TCP store's
//! disconnect records, set the moment a process dies), or when the epoch's failure
//! record says its process exited. The first rank that knows, for every rank, that it
//! is alive or gone proposes the members with compare-and-set; everyone takes the
//! proposal that won. A rank that neither came nor is known gone within the group's
//! timeout is waited for, and then named in the error, unless
//! [`Options::shrink_excludes_late`] lets the others go on without it (it learns so when
//! it comes). With a file store or PyTorch's store nothing tells a dead rank from a
//! late one, so only `shrink_excludes_late` lets those shrink.
//!
//! Then every member revokes its communicator (if the failure did not already) and
//! shrinks it (`ncclCommShrink` in abort mode); the revoked parent is released by
//! abort. Sequence numbers go on where they were, and each rank's flight record of
//! the new group starts with the change.
//!
//! # Letting replacements in (`admit`)
//!
//! A replacement (a process `nccl-run --max-restarts` restarted, or any process whose
//! launch says it was restarted) takes a ticket under the group's first keys
//! (`{base}/join/...`) and waits. `admit` is collective over the members: rank 0 reads
//! how many tickets wait, an all-reduce tells everyone, and if any wait, rank 0 makes
//! the grow's id (`ncclCommGetUniqueId`), grants each ticket its rank (from the
//! group's size up), and everyone grows (`ncclCommGrow`); the replacements join with
//! their grant. The store carries only the control: the id, the ranks, the sequence
//! number to go on from.
//!
//! The store must outlive the ranks that fail: `nccl-run`'s does; one hosted by rank 0
//! (plain launchers) goes with rank 0.

mod grow;

pub(crate) use grow::join_as_replacement;

use std::panic::Location;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nccl_safe::{Communicator, Feature};

use crate::launch::{Link, Place, eprint_all, gone_key};
use crate::process_group::{Lineage, group_config};
use crate::recorder::{Entry, State, now_ms};
use crate::state::{Inner, JobStore, Replacement, epoch_prefix, lock};
use crate::store::{Store, StoreError, TcpStore};
use crate::{Error, ProcessGroup, ReplacedBy, Result};

/// How long one wait on the store lasts before the state is read again.
const SLICE: Duration = Duration::from_millis(20);

fn store_error(js: &JobStore) -> impl Fn(StoreError) -> Error + '_ {
    move |error| Error::Store {
        addr: js.addr.clone(),
        error,
    }
}

fn ranks_list(ranks: &[usize]) -> String {
    ranks
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_list(text: &[u8]) -> Option<Vec<usize>> {
    let text = std::str::from_utf8(text).ok()?;
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',').map(|r| r.parse().ok()).collect()
}

/// The flight-record entry of a change of membership (completed when recorded: the
/// hang report never takes it for a stuck operation).
fn change_entry(op: &str, size: usize, site: &str) -> Entry {
    let now = now_ms();
    Entry {
        record_id: 0,
        seq: None,
        p2p: None,
        op: op.to_string(),
        dtype: "-".into(),
        count: size,
        out_count: None,
        root: None,
        call_site: site.to_string(),
        enqueued_ms: now,
        completed_ms: Some(now),
        tracks_launch: false,
        started_ms: None,
        state: State::Completed,
    }
}

/// The key under which a new epoch's ranks in this process find each other to dump.
fn epoch_key(key: Option<[u8; 128]>, epoch: u64) -> Option<[u8; 128]> {
    key.map(|mut k| {
        k[120..128].copy_from_slice(&epoch.to_le_bytes());
        k
    })
}

impl ProcessGroup {
    /// How many shrinks and grows made this group from the job's first one (0 for
    /// it).
    pub fn epoch(&self) -> u64 {
        self.inner.epoch
    }

    /// Whether this rank came in through a grow ([`ProcessGroup::admit`] on the
    /// others): a replacement, which has none of the state the others built and
    /// receives it from them (a broadcast, say) as its first operations.
    pub fn joined_by_grow(&self) -> bool {
        self.inner.joined_by_grow
    }

    fn reshape_error(&self, op: &'static str, reason: String, late: Vec<usize>) -> Error {
        Error::Reshape {
            group: self.inner.options.name.clone(),
            rank: self.inner.rank,
            op,
            epoch: self.inner.epoch,
            reason,
            late,
        }
    }

    fn job_store(&self, op: &'static str, instead: &str) -> Result<JobStore> {
        self.inner
            .sink
            .get()
            .and_then(|s| s.job_store())
            .ok_or_else(|| {
                self.reshape_error(
                    op,
                    format!(
                        "the group has no store to agree through (it was not made by \
                         ProcessGroup::from_env, or failures are not propagated); {instead}"
                    ),
                    Vec::new(),
                )
            })
    }

    /// Makes the group of the survivors after a failure, on every surviving rank:
    /// they agree through the job's store on who is gone (see the module docs of
    /// `heal`), then shrink the communicator without those ranks. Returns the new
    /// group, one epoch later, whose ranks are the survivors in their old order from
    /// 0; sequence numbers go on where they were. This group refuses every operation
    /// from then on ([`Error::Replaced`]).
    ///
    /// Usually called after an operation failed under
    /// [`ErrorPolicy::Shrink`](crate::ErrorPolicy::Shrink); called on a working group
    /// it first stops it (its pending operations fail).
    ///
    /// # Errors
    ///
    /// [`Error::Reshape`] when the group has no store (use
    /// [`ProcessGroup::shrink_excluding`]), when ranks neither came nor are known gone
    /// within the timeout (named in `late`; see [`Options::shrink_excludes_late`]), or
    /// when the others agreed without this rank; [`Error::Replaced`] for a group
    /// replaced already; store errors; the errors of the shrink
    /// ([`nccl_safe::Communicator::shrink`]).
    ///
    /// [`Options::shrink_excludes_late`]: crate::Options::shrink_excludes_late
    #[track_caller]
    pub fn shrink(&self) -> Result<ProcessGroup> {
        let site = Location::caller();
        let js = self.job_store("shrink", "use ProcessGroup::shrink_excluding")?;
        self.stop_for("shrink", site)?;
        let excluded = self.agree_on_survivors(&js)?;
        self.shrink_to(&excluded, site, Some(js))
    }

    /// Makes the group without the ranks of `exclude`, which every surviving rank
    /// passes alike (the caller agreed on it: this is [`ProcessGroup::shrink`]
    /// without the store). Excluded ranks do not call it.
    ///
    /// ```
    /// use std::{thread, time::Duration};
    /// use collectives::{ErrorPolicy, Options, ProcessGroup};
    /// use nccl_safe::{Device, DeviceBuffer, ReduceOp, UniqueId};
    /// let id = UniqueId::random();
    /// let ranks: Vec<_> = (0..3).map(|rank| thread::spawn(move || -> collectives::Result<_> {
    ///     let dev = Device::sim(rank)?;
    ///     let opts = Options::new().on_error(ErrorPolicy::Shrink);
    ///     let pg = ProcessGroup::new(&dev, rank, 3, &id, opts)?;
    ///     if rank == 1 {
    ///         return Ok(None); // rank 1 leaves
    ///     }
    ///     let pg = pg.shrink_excluding(&[1])?;
    ///     let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[rank as u32; 2])?;
    ///     pg.all_reduce(&mut x, ReduceOp::Sum)?.wait_host(Duration::from_secs(20))?;
    ///     Ok(Some((pg.rank(), pg.size(), pg.epoch(), x.to_vec(pg.comm_stream())?)))
    /// })).collect();
    /// let out: Vec<_> = ranks.into_iter().map(|t| t.join().unwrap()).collect::<Result<_, _>>()?;
    /// assert_eq!(out, [Some((0, 2, 1, vec![2, 2])), None, Some((1, 2, 1, vec![2, 2]))]);
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// An empty list makes a new communicator of the same ranks when the group has a
    /// store to exchange its id through (what [`ProcessGroup::shrink`] does when
    /// nobody is gone); without one it is refused.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::shrink`], and [`nccl_safe::Error::InvalidArgument`] for a
    /// list nccl-safe refuses (empty without a store, a rank twice or out of range,
    /// this rank).
    #[track_caller]
    pub fn shrink_excluding(&self, exclude: &[usize]) -> Result<ProcessGroup> {
        let site = Location::caller();
        let js = self.inner.sink.get().and_then(|s| s.job_store());
        self.stop_for("shrink", site)?;
        self.shrink_to(exclude, site, js)
    }

    /// Refuses new work (saying a shrink is under way, unless the group refuses work
    /// already) and stops the communicator's work, so that it can be shrunk.
    fn stop_for(&self, op: &'static str, site: &Location<'_>) -> Result<()> {
        let inner = &self.inner;
        if let Some(e @ Error::Replaced { .. }) = inner.refusal(op, &site.to_string()) {
            return Err(e);
        }
        inner.refuse(format!(
            "the group is being replaced by a {op} at {}:{}",
            site.file(),
            site.line()
        ));
        inner.fail_pending(&format!("the group was stopped for a {op}"));
        Ok(())
    }

    /// The ranks gone, as the survivors agree through the store.
    fn agree_on_survivors(&self, js: &JobStore) -> Result<Vec<usize>> {
        let inner = &self.inner;
        let (rank, size) = (inner.rank, inner.size);
        let prefix = epoch_prefix(&js.base, inner.epoch);
        let err = store_error(js);
        let alive_key = |r: usize| format!("{prefix}/shrink/alive/{r}");
        let members_key = format!("{prefix}/shrink/members");
        let failed_key = crate::launch::epoch_failed_key(&prefix);
        js.store
            .set(&alive_key(rank), std::process::id().to_string().as_bytes())
            .map_err(&err)?;
        let start = Instant::now();
        loop {
            if let Some(v) = js.store.get(&members_key).map_err(&err)? {
                let members = parse_list(&v).ok_or_else(|| {
                    self.reshape_error(
                        "shrink",
                        format!("the store holds no list of members at {members_key}"),
                        Vec::new(),
                    )
                })?;
                if !members.contains(&rank) {
                    return Err(self.reshape_error(
                        "shrink",
                        format!(
                            "ranks {} agreed on the survivors without this rank (it came \
                             after the group's timeout of {:?}, and \
                             Options::shrink_excludes_late let them go on)",
                            ranks_list(&members),
                            inner.options.timeout
                        ),
                        Vec::new(),
                    ));
                }
                return Ok((0..size).filter(|r| !members.contains(r)).collect());
            }
            let exited = js
                .store
                .get(&failed_key)
                .map_err(&err)?
                .and_then(|b| crate::launch::JobFailure::parse(&b).ok())
                .filter(|f| f.exited)
                .map(|f| f.rank);
            let mut alive = Vec::new();
            let mut unknown = Vec::new();
            for r in 0..size {
                // Gone wins over alive: a rank that came and then died is gone.
                let gone = r != rank
                    && (Some(r) == exited
                        || js.store.get(&gone_key(&prefix, r)).map_err(&err)?.is_some());
                if gone {
                    continue;
                }
                if js.store.get(&alive_key(r)).map_err(&err)?.is_some() {
                    alive.push(r);
                } else {
                    unknown.push(r);
                }
            }
            let late = start.elapsed() >= inner.options.timeout;
            if unknown.is_empty() || (late && inner.options.shrink_excludes_late) {
                if alive.len() == size {
                    // Nobody is gone: the ranks go on together on a new communicator.
                    log::warn!(
                        "group {} rank {rank}: shrink with every rank alive",
                        inner.options.name
                    );
                }
                let _ = js
                    .store
                    .compare_set(&members_key, None, ranks_list(&alive).as_bytes())
                    .map_err(&err)?;
                continue; // the winner's list is read above
            }
            if late {
                return Err(self.reshape_error(
                    "shrink",
                    format!(
                        "rank(s) {} neither came to the shrink nor are known gone after \
                         {:?} (a rank that is only slow is not left out unless \
                         Options::shrink_excludes_late says so)",
                        ranks_list(&unknown),
                        inner.options.timeout
                    ),
                    unknown,
                ));
            }
            match js.store.wait(&[&members_key], SLICE) {
                Ok(()) | Err(StoreError::Timeout { .. }) => {}
                Err(e) => return Err(err(e)),
            }
        }
    }

    /// The shrink itself, once `excluded` is agreed: the communicator revoked and
    /// shrunk (or, with nobody excluded, a new one made through the store), the new
    /// group built and linked, this one marked replaced.
    fn shrink_to(
        &self,
        excluded: &[usize],
        site: &'static Location<'static>,
        js: Option<JobStore>,
    ) -> Result<ProcessGroup> {
        let inner = &self.inner;
        let site_text = crate::issue::call_site_of(site);
        let _issuing = self.enter(&site_text)?;
        let options = inner.options.clone();
        let config = group_config(&options);
        let epoch = inner.epoch + 1;
        let comm = self.take_comm("shrink", site)?;
        let comm = if excluded.is_empty() {
            // Nothing to shrink away (every rank came): a new communicator of the same
            // ranks, its id through the store.
            let Some(js) = &js else {
                return Err(nccl_safe::Error::InvalidArgument {
                    op: "shrink_excluding",
                    reason: "no rank to exclude".into(),
                }
                .into());
            };
            drop(comm.abort());
            self.fresh_comm(js, epoch, &config)?
        } else if comm.nccl_features()?.supports(Feature::Revoke) {
            let revoked = comm.revoke()?;
            let shrunk = revoked.shrink(excluded, &config)?;
            drop(revoked); // released by abort, on a thread of its own
            shrunk.comm
        } else {
            // NCCL 2.27 to 2.28.6: no revoke, but the abort mode of shrink.
            let (shrunk, parent) = comm.shrink_abort(excluded, &config)?;
            drop(parent);
            shrunk.comm
        };
        let new_rank = comm.rank();
        let lineage = Lineage {
            epoch,
            seq: inner.seq.load(std::sync::atomic::Ordering::Acquire),
            joined_by_grow: false,
            change: Some(change_entry("shrink", comm.size(), &site_text)),
        };
        let size = comm.size();
        let pg = ProcessGroup::build(comm, options, epoch_key(inner.peers_key, epoch), lineage)?;
        self.hand_over(&pg, ReplacedBy::Shrink, js);
        if new_rank == 0 {
            eprint_all(&format!(
                "nccl-rs: group {} epoch {epoch}: shrunk from {} to {size} ranks{}\n",
                inner.options.name,
                inner.size,
                if excluded.is_empty() {
                    String::new()
                } else {
                    format!(" without rank(s) {}", ranks_list(excluded))
                }
            ));
        }
        Ok(pg)
    }

    /// Takes the communicator out of this group (a shrink releases it).
    fn take_comm(&self, op: &'static str, site: &Location<'_>) -> Result<Communicator> {
        let taken = self
            .inner
            .comm
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        taken.ok_or_else(|| {
            self.inner
                .refusal(op, &site.to_string())
                .unwrap_or_else(|| self.reshape_error(op, "the group was replaced".into(), vec![]))
        })
    }

    /// A new communicator of the same ranks (a shrink with nobody gone): rank 0 puts a
    /// new id under the new epoch's keys, the others read it.
    fn fresh_comm(
        &self,
        js: &JobStore,
        epoch: u64,
        config: &nccl_safe::Config,
    ) -> Result<Communicator> {
        let inner = &self.inner;
        let key = format!("{}/id", epoch_prefix(&js.base, epoch));
        let err = store_error(js);
        let id = if inner.rank == 0 {
            let id = nccl_safe::UniqueId::for_driver(inner.device.driver())?;
            js.store.set(&key, id.to_hex().as_bytes()).map_err(&err)?;
            id
        } else {
            js.store
                .wait(&[&key], inner.options.timeout)
                .map_err(&err)?;
            let hex = js.store.get(&key).map_err(&err)?.unwrap_or_default();
            nccl_safe::UniqueId::from_hex(&String::from_utf8_lossy(&hex))?
        };
        Ok(Communicator::init(
            &inner.device,
            inner.rank,
            inner.size,
            &id,
            config,
        )?)
    }

    /// Marks this group replaced by `pg` and moves its link to the job's store (with a
    /// connection of its own, and the store server this rank hosts) to `pg`. A link
    /// that cannot be made is logged, not returned: `pg` works without it (its
    /// failures then reach the other ranks through their timeouts), which is better
    /// than losing both groups.
    fn hand_over(&self, pg: &ProcessGroup, by: ReplacedBy, js: Option<JobStore>) {
        *lock(&self.inner.replaced) = Some(Replacement {
            by,
            epoch: pg.inner.epoch,
            size: pg.inner.size,
            new_rank: pg.inner.rank,
        });
        let server = self.inner.sink.get().and_then(|s| s.retire());
        if let Some(js) = js {
            if let Err(e) = attach(&pg.inner, js, server, pg.inner.epoch) {
                log::error!(
                    "group {} rank {} epoch {}: no link to the job's store ({e}); failures \
                     of other ranks reach this group only through its timeouts",
                    pg.inner.options.name,
                    pg.inner.rank,
                    pg.inner.epoch
                );
            }
        }
    }
}

/// Links `inner` (a new epoch's group) to the job's store: a connection of its own to
/// a TCP store (the old one's on-disconnect records were the old epoch's), and the
/// store server this rank hosts, if any.
fn attach(
    inner: &Arc<Inner>,
    js: JobStore,
    server: Option<crate::store::TcpStoreServer>,
    epoch: u64,
) -> Result<()> {
    let (store, tcp): (Arc<dyn Store>, _) = match &js.tcp {
        Some(tcp) => {
            let fresh = Arc::new(
                TcpStore::connect(tcp.addr(), tcp.options().clone()).map_err(store_error(&js))?,
            );
            (fresh.clone(), Some(fresh))
        }
        None => (js.store.clone(), None),
    };
    let place = Place {
        addr: js.addr.clone(),
        base: js.base.clone(),
        epoch,
    };
    Link::attach(inner, store, tcp, server, place, js.report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_prefixes_round_trip_and_garbage_is_none() {
        assert_eq!(parse_list(b"0,1,3"), Some(vec![0, 1, 3]));
        assert_eq!(parse_list(b""), Some(vec![]));
        assert_eq!(parse_list(b"0,x"), None);
        assert_eq!(ranks_list(&[0, 2]), "0,2");
        assert_eq!(epoch_prefix("nccl-rs/g/1", 0), "nccl-rs/g/1");
        assert_eq!(epoch_prefix("nccl-rs/g/1", 2), "nccl-rs/g/1/e2");
    }
}
