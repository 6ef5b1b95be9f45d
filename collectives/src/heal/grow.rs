//! Letting ranks in: [`ProcessGroup::admit`] (replacements that wait in the job's
//! store, with their tickets and grants), the explicit [`ProcessGroup::grow_id`],
//! [`ProcessGroup::grow`] and [`ProcessGroup::join_grown`], and a restarted process's
//! way in (`join_as_replacement`). See the parent module for the protocol.

use std::panic::Location;
use std::time::{Duration, Instant};

use nccl_safe::{Communicator, DType, DeviceBuffer, GrowId, ReduceOp};

use super::{attach, change_entry, epoch_key, store_error};
use crate::launch::eprint_all;
use crate::process_group::{Lineage, OpInfo, group_config};
use crate::state::JobStore;
use crate::store::StoreError;
use crate::{Error, ProcessGroup, ReplacedBy, Result};

/// A grant to a replacement: the epoch it joins, its rank, the new size, the next
/// sequence number and the grow's id.
struct Grant {
    epoch: u64,
    rank: usize,
    size: usize,
    seq: u64,
    id: GrowId,
}

impl Grant {
    fn encode(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.epoch,
            self.rank,
            self.size,
            self.seq,
            self.id.to_hex()
        )
    }

    fn decode(text: &[u8]) -> Option<Grant> {
        let text = std::str::from_utf8(text).ok()?;
        let mut it = text.split(' ');
        Some(Grant {
            epoch: it.next()?.parse().ok()?,
            rank: it.next()?.parse().ok()?,
            size: it.next()?.parse().ok()?,
            seq: it.next()?.parse().ok()?,
            id: GrowId::from_hex(it.next()?).ok()?,
        })
    }
}

fn tickets_key(base: &str) -> String {
    format!("{base}/join/tickets")
}

fn admitted_key(base: &str) -> String {
    format!("{base}/join/admitted")
}

fn grant_key(base: &str, ticket: i64) -> String {
    format!("{base}/join/grant/{ticket}")
}

impl ProcessGroup {
    /// Lets the replacements that wait in the job's store into the group: collective
    /// over the group's ranks, at a point where every rank calls it (between steps of
    /// a loop, say). Returns `None` when none waits (after one small all-reduce); else
    /// the grown group, one epoch later, in which the ranks keep their ranks and the
    /// replacements take those from the old size up: the program then brings them up
    /// to date (a broadcast of its state), as they do on their side
    /// ([`ProcessGroup::joined_by_grow`]). This group refuses every operation from
    /// then on ([`Error::Replaced`]). A replacement comes from a restarted process's
    /// [`ProcessGroup::from_env`] (`nccl-run --max-restarts`).
    ///
    /// # Errors
    ///
    /// [`Error::Reshape`] without a store; the errors of the all-reduce and of the
    /// grow ([`nccl_safe::Communicator::grow`]: a replacement that does not join
    /// within the timeout, say); store errors.
    #[track_caller]
    pub fn admit(&self) -> Result<Option<ProcessGroup>> {
        let site = Location::caller();
        let js = self.job_store("admit", "use ProcessGroup::grow")?;
        let inner = &self.inner;
        let err = store_error(&js);
        // Rank 0 counts the tickets not yet granted; an all-reduce tells everyone.
        // Tickets up to `tickets` were looked at by an earlier admit: granted, or
        // void then (its holder gone).
        let (waiting, live, tickets) = if inner.rank == 0 {
            let read = |key: &str| -> Result<i64> {
                Ok(js
                    .store
                    .get(key)
                    .map_err(&err)?
                    .and_then(|v| String::from_utf8_lossy(&v).parse().ok())
                    .unwrap_or(0))
            };
            let admitted = read(&admitted_key(&js.base))?;
            let tickets = read(&tickets_key(&js.base))?;
            let mut live = Vec::new();
            for t in admitted + 1..=tickets {
                if js
                    .store
                    .get(&grant_key(&js.base, t))
                    .map_err(&err)?
                    .is_none()
                {
                    live.push(t);
                }
            }
            (live.len() as u64, live, tickets)
        } else {
            (0, Vec::new(), 0)
        };
        let mut count = DeviceBuffer::from_slice(&inner.stream, &[waiting])?;
        let info = OpInfo::new("admit", DType::U64, 1, site).library("admit");
        self.submit(info, |c, s| {
            c.all_reduce_in_place(&mut count, ReduceOp::Max, s)
        })?
        .wait_host(inner.options.timeout)?;
        let waiting = count.to_vec(&inner.stream)?[0] as usize;
        if waiting == 0 {
            return Ok(None);
        }
        let size = inner.size + waiting;
        let seq = inner.seq.load(std::sync::atomic::Ordering::Acquire);
        let epoch = inner.epoch + 1;
        let site_text = crate::issue::call_site_of(site);
        let _issuing = self.enter(&site_text)?;
        let made = if inner.rank == 0 {
            let id = self.inner.with_comm(|c| c.grow_id()).ok_or_else(|| {
                self.reshape_error("admit", "the group was replaced".into(), vec![])
            })??;
            for (i, &ticket) in live.iter().enumerate() {
                let grant = Grant {
                    epoch,
                    rank: inner.size + i,
                    size,
                    seq,
                    id,
                };
                // A holder gone since it was counted leaves the grow waiting for it
                // (at most the timeout); the grant says who is expected.
                let key = grant_key(&js.base, ticket);
                let set = js
                    .store
                    .compare_set(&key, None, grant.encode().as_bytes())
                    .map_err(&err)?;
                if set.as_deref() == Some(VOID) {
                    log::error!(
                        "group {}: replacement ticket {ticket} went void while admitted; the \
                         grow waits for rank {} until its timeout",
                        inner.options.name,
                        inner.size + i
                    );
                }
            }
            js.store
                .set(&admitted_key(&js.base), tickets.to_string().as_bytes())
                .map_err(&err)?;
            Some(id)
        } else {
            None
        };
        let options = inner.options.clone();
        let config = group_config(&options);
        let comm = inner
            .with_comm(|c| c.grow(size, made.as_ref(), &config))
            .ok_or_else(|| {
                self.reshape_error("admit", "the group was replaced".into(), vec![])
            })??;
        let lineage = Lineage {
            epoch,
            seq,
            joined_by_grow: false,
            change: Some(change_entry("grow", size, &site_text)),
        };
        let pg = ProcessGroup::build(comm, options, epoch_key(inner.peers_key, epoch), lineage)?;
        inner.refuse(format!("the group was replaced by a grow at {site_text}"));
        drop(err);
        self.hand_over(&pg, ReplacedBy::Admit, Some(js));
        if pg.rank() == 0 {
            eprint_all(&format!(
                "nccl-rs: group {} epoch {epoch}: grew from {} to {size} ranks\n",
                inner.options.name, inner.size
            ));
        }
        Ok(Some(pg))
    }

    /// Makes the id of a grow, on one rank of the group (the coordinator), to send to
    /// the new ranks ([`ProcessGroup::join_grown`]); [`ProcessGroup::admit`] does this
    /// through the store.
    ///
    /// # Errors
    ///
    /// As [`nccl_safe::Communicator::grow_id`].
    pub fn grow_id(&self) -> Result<GrowId> {
        self.inner
            .with_comm(|c| c.grow_id())
            .ok_or_else(|| self.reshape_error("grow", "the group was replaced".into(), vec![]))?
            .map_err(Error::from)
    }

    /// Grows the group to `size` ranks, on every rank of it (the coordinator passes
    /// the id it made with [`ProcessGroup::grow_id`], the others `None`); the new ranks
    /// call [`ProcessGroup::join_grown`]. Returns the grown group, one epoch later.
    /// This group refuses every operation from then on.
    ///
    /// # Errors
    ///
    /// As [`nccl_safe::Communicator::grow`]; its operations must be complete first
    /// (wait for them).
    #[track_caller]
    pub fn grow(&self, size: usize, id: Option<&GrowId>) -> Result<ProcessGroup> {
        let site = Location::caller();
        let inner = &self.inner;
        let site_text = crate::issue::call_site_of(site);
        let _issuing = self.enter(&site_text)?;
        let options = inner.options.clone();
        let config = group_config(&options);
        let comm = inner
            .with_comm(|c| c.grow(size, id, &config))
            .ok_or_else(|| self.reshape_error("grow", "the group was replaced".into(), vec![]))??;
        let epoch = inner.epoch + 1;
        let lineage = Lineage {
            epoch,
            seq: inner.seq.load(std::sync::atomic::Ordering::Acquire),
            joined_by_grow: false,
            change: Some(change_entry("grow", size, &site_text)),
        };
        let pg = ProcessGroup::build(comm, options, epoch_key(inner.peers_key, epoch), lineage)?;
        inner.refuse(format!("the group was replaced by a grow at {site_text}"));
        let js = inner.sink.get().and_then(|s| s.job_store());
        self.hand_over(&pg, ReplacedBy::Grow, js);
        Ok(pg)
    }

    /// Joins a group's grow as new rank `rank` of `size` on `device`, with the id its
    /// coordinator made ([`ProcessGroup::grow_id`]). `epoch` and `seq` are the grown
    /// group's epoch and next sequence number (the others' epoch plus one, and their
    /// next sequence number), so that every rank's records line up.
    ///
    /// # Errors
    ///
    /// As [`nccl_safe::Communicator::join_grown`].
    #[track_caller]
    pub fn join_grown(
        device: &nccl_safe::Device,
        rank: usize,
        size: usize,
        id: &GrowId,
        (epoch, seq): (u64, u64),
        options: crate::Options,
    ) -> Result<ProcessGroup> {
        options.validate()?;
        let site = Location::caller();
        let config = group_config(&options);
        let comm = Communicator::join_grown(device, rank, size, id, &config)?;
        let lineage = Lineage {
            epoch,
            seq,
            joined_by_grow: true,
            change: Some(change_entry(
                "join",
                size,
                &crate::issue::call_site_of(site),
            )),
        };
        ProcessGroup::build(comm, options, None, lineage)
    }
}

/// A replacement's way in (`from_env` in a restarted process): a ticket under the
/// group's first keys, a wait for its grant, then the grow.
pub(crate) fn join_as_replacement(
    device: &nccl_safe::Device,
    js: JobStore,
    server: Option<crate::store::TcpStoreServer>,
    options: crate::Options,
) -> Result<ProcessGroup> {
    let grant = wait_for_grant(&js, &options)?;
    log::info!(
        "group {}: replacement joins as rank {} of {} (epoch {})",
        options.name,
        grant.rank,
        grant.size,
        grant.epoch
    );
    let propagate = options.propagate_failures;
    let pg = ProcessGroup::join_grown(
        device,
        grant.rank,
        grant.size,
        &grant.id,
        (grant.epoch, grant.seq),
        options,
    )?;
    if propagate {
        attach(&pg.inner, js, server, grant.epoch)?;
    }
    Ok(pg)
}

/// Takes a ticket and waits (at most the group's timeout) for its grant.
///
/// A ticket whose holder is gone is void, so that no grow waits for it: the holder's
/// TCP connection leaves [`VOID`] at the grant's key should it drop (the server sets
/// it only if no grant is there yet), and a holder that gives up puts it there itself
/// unless a grant came first (compare-and-set, as rank 0 grants).
fn wait_for_grant(js: &JobStore, options: &crate::Options) -> Result<Grant> {
    let err = store_error(js);
    let ticket = js.store.add(&tickets_key(&js.base), 1).map_err(&err)?;
    let key = grant_key(&js.base, ticket);
    if let Some(tcp) = &js.tcp {
        tcp.on_disconnect_create(&key, VOID).map_err(&err)?;
    }
    let refused = |reason: String| Error::Reshape {
        group: options.name.clone(),
        rank: usize::MAX,
        op: "join",
        epoch: 0,
        reason,
        late: Vec::new(),
    };
    let decode = |value: Vec<u8>| {
        Grant::decode(&value).ok_or_else(|| refused(format!("the grant at {key} does not parse")))
    };
    let start = Instant::now();
    loop {
        match js.store.wait(&[&key], Duration::from_millis(250)) {
            Ok(()) => return decode(js.store.get(&key).map_err(&err)?.unwrap_or_default()),
            Err(StoreError::Timeout { .. }) if start.elapsed() < options.timeout => {}
            Err(StoreError::Timeout { .. }) => {
                // Withdrawn, unless granted in the meantime.
                return match js.store.compare_set(&key, None, VOID).map_err(&err)? {
                    Some(v) if v != VOID => decode(v),
                    _ => Err(refused(format!(
                        "ticket {ticket} was not admitted within {:?} (the group's ranks let \
                         replacements in with ProcessGroup::admit); withdrawn",
                        options.timeout
                    ))),
                };
            }
            Err(e) => return Err(err(e)),
        }
    }
}

/// What a void ticket's grant key holds (its holder gave up, or its connection
/// dropped before a grant).
const VOID: &[u8] = b"void";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_round_trip_and_garbage_is_none() {
        let id = GrowId::from_bytes(&[7u8; 128]).unwrap();
        let g = Grant {
            epoch: 2,
            rank: 3,
            size: 4,
            seq: 51,
            id,
        };
        let back = Grant::decode(g.encode().as_bytes()).unwrap();
        assert_eq!(
            (back.epoch, back.rank, back.size, back.seq, back.id),
            (2, 3, 4, 51, id)
        );
        assert!(Grant::decode(b"2 3 4").is_none());
        assert!(Grant::decode(b"x 3 4 5 00").is_none());
    }
}
