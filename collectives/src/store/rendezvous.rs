//! [`rendezvous`]: every rank of a job meets in a store and gets rank 0's value, at
//! a constant number of requests per rank whatever the job's size.

use std::time::{Duration, Instant};

use super::{Store, StoreError};

/// What the `all` key holds, before rank 0's value, once every rank has joined.
const ALL_JOINED: &[u8] = b"ok:";
/// How long rank 0, having given up, waits for the waiting ranks to read whom it
/// missed before it returns (and, typically, takes its store away).
const VERDICT_WAIT: Duration = Duration::from_secs(2);

/// Why a [`rendezvous`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RendezvousError {
    /// Not every rank joined within the timeout (or rank 0 gave up on them first,
    /// and said so).
    #[error("{what} after {waited:?}; missing ranks {missing:?}")]
    Missing {
        /// What this rank waited for, and how it learned of the failure.
        what: String,
        /// The ranks that never joined (empty when it cannot be known: the store
        /// went away first).
        missing: Vec<usize>,
        /// How long this rank waited.
        waited: Duration,
    },
    /// The store refused a request or could not be reached.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The arguments do not describe a rank of a job.
    #[error("rank {rank} of {size}: {reason}")]
    InvalidArgument {
        /// The rank given.
        rank: usize,
        /// The size given.
        size: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Every rank of a job of `size` calls this with its `rank`; each returns when all
/// have joined, with the value rank 0 gave as `root_value` (the job's unique id,
/// say). Keys live under `prefix`, which must be fresh for each meeting.
///
/// Each rank makes three requests whatever `size` is: it sets its own
/// `{prefix}/joined/{rank}` key (used only to name the missing), adds one to the
/// counter `{prefix}/joined`, and waits for one key, `{prefix}/all`, which the rank
/// that brings the counter to `size` sets to rank 0's value ([`Store::watch_get`]:
/// on a [`TcpStore`](super::TcpStore) one request answered when the key appears, with
/// its value; no rank polls). Rank 0 also sets `{prefix}/value` first, which the last
/// rank reads.
///
/// The first rank to give up (at its timeout) reads every rank's `joined` key once
/// and writes the ranks it missed into `all`: every rank still waiting fails at once
/// naming them, and a rank that comes later fails too instead of completing the
/// count. Rank 0 (usually the store's host) waits, at most two seconds, until the
/// waiting ranks have read the verdict before it returns.
///
/// # Errors
///
/// [`RendezvousError::Missing`] when not every rank joined in time (or rank 0 gave
/// up first); [`RendezvousError::Store`] for a failure of the store;
/// [`RendezvousError::InvalidArgument`] for a rank not below `size`, or rank 0
/// without a value.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use collectives::store::{rendezvous, ClientOptions, ServerOptions, TcpStore, TcpStoreServer};
///
/// let server = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::new())?;
/// let addr = server.local_addr().to_string();
/// let ranks: Vec<_> = (0..4)
///     .map(|rank| {
///         let addr = addr.clone();
///         std::thread::spawn(move || {
///             let store = TcpStore::connect(&addr, ClientOptions::new()).unwrap();
///             let id = (rank == 0).then_some(&b"the job's id"[..]);
///             rendezvous(&store, "job/7", rank, 4, id, Duration::from_secs(10)).unwrap()
///         })
///     })
///     .collect();
/// for r in ranks {
///     assert_eq!(r.join().unwrap(), b"the job's id");
/// }
/// # Ok::<(), collectives::store::StoreError>(())
/// ```
pub fn rendezvous(
    store: &dyn Store,
    prefix: &str,
    rank: usize,
    size: usize,
    root_value: Option<&[u8]>,
    timeout: Duration,
) -> Result<Vec<u8>, RendezvousError> {
    let invalid = |reason: &str| RendezvousError::InvalidArgument {
        rank,
        size,
        reason: reason.to_string(),
    };
    if rank >= size {
        return Err(invalid("the rank must be below the size"));
    }
    if rank == 0 && root_value.is_none() {
        return Err(invalid("rank 0 must give the value the others receive"));
    }
    let value_key = format!("{prefix}/value");
    let all_key = format!("{prefix}/all");
    if let (0, Some(value)) = (rank, root_value) {
        store.set(&value_key, value)?;
    }
    store.set(
        &format!("{prefix}/joined/{rank}"),
        std::process::id().to_string().as_bytes(),
    )?;
    if store.add(&format!("{prefix}/joined"), 1)? == size as i64 {
        // Every rank has joined, rank 0 (which set the value first) too: `all` gets
        // the value, so that each rank's one wait brings it. Unless a rank gave up on
        // the job already (then this rank reads its verdict).
        let all = match store.get(&value_key)? {
            Some(value) => [ALL_JOINED, &value].concat(),
            // Only a rank that joined twice (or a prefix used before) gets here.
            None => b"missing 0".to_vec(),
        };
        store.compare_set(&all_key, None, &all)?;
    }
    let start = Instant::now();
    let missing_error = |what: &str, missing: Vec<usize>| RendezvousError::Missing {
        what: what.to_string(),
        missing,
        waited: start.elapsed(),
    };
    const WHAT: &str = "waiting for every rank to join";
    // Whether this rank wrote the verdict (else another rank gave up first).
    let mut wrote = false;
    let outcome = match watch(store, &all_key, timeout) {
        Ok(Some(all)) => all,
        Ok(None) => {
            // The first rank to give up writes the verdict, so that a rank arriving
            // later cannot complete the count and go on alone.
            let missing = missing_ranks(store, prefix, size)?;
            let late = if missing.is_empty() {
                // Every rank has set its key: the last one is between that and its
                // count. It gets a moment before anyone gives up on it.
                watch(store, &all_key, VERDICT_WAIT)?
            } else {
                None
            };
            match late {
                Some(all) => all,
                None => {
                    let verdict = format!("missing {}", join_ranks(&missing));
                    let now = store.compare_set(&all_key, None, verdict.as_bytes())?;
                    // (Unless the last rank counted itself meanwhile.)
                    let now = now.unwrap_or_default();
                    wrote = now == verdict.as_bytes();
                    now
                }
            }
        }
        Err(StoreError::Closed { .. }) if rank != 0 => {
            return Err(missing_error(
                "the store closed while this rank waited for every rank to join (its \
                 host gave up or exited; which ranks were missing is unknown here)",
                Vec::new(),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(value) = outcome.strip_prefix(ALL_JOINED) {
        return Ok(value.to_vec());
    }
    let missing = parse_verdict(&outcome).unwrap_or_default();
    if rank == 0 {
        // The store's host keeps it until the waiting ranks have read the verdict.
        if size > missing.len() + 1 {
            let _ = store.wait(&[&format!("{prefix}/told")], VERDICT_WAIT);
        }
    } else {
        told(store, prefix, size, rank, &missing);
    }
    if wrote {
        Err(missing_error(WHAT, missing))
    } else {
        Err(missing_error(
            "waiting for every rank to join (another rank gave up)",
            missing,
        ))
    }
}

/// `key`'s value once it exists, `None` when `timeout` passed first: one
/// [`Store::watch_get`] (again if cut short before the time was up).
fn watch(store: &dyn Store, key: &str, timeout: Duration) -> Result<Option<Vec<u8>>, StoreError> {
    let deadline = super::deadline_after(timeout);
    loop {
        let left = deadline.map_or(Duration::MAX, |d| {
            d.saturating_duration_since(Instant::now())
        });
        match store.watch_get(key, left)? {
            Some(v) => return Ok(Some(v)),
            None if left.is_zero() || deadline.is_some_and(|d| Instant::now() >= d) => {
                return Ok(None);
            }
            None => {}
        }
    }
}

/// The ranks a verdict names as missing; `None` for [`ALL_JOINED`] and its value (or
/// anything that is no verdict).
fn parse_verdict(v: &[u8]) -> Option<Vec<usize>> {
    let text = v.strip_prefix(b"missing ")?;
    Some(
        String::from_utf8_lossy(text)
            .split(',')
            .filter_map(|r| r.trim().parse().ok())
            .collect(),
    )
}

/// The ranks whose `joined/{rank}` key is absent (one request, with every key).
fn missing_ranks(store: &dyn Store, prefix: &str, size: usize) -> Result<Vec<usize>, StoreError> {
    let keys: Vec<String> = (0..size).map(|p| format!("{prefix}/joined/{p}")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    match store.wait(&refs, Duration::ZERO) {
        Ok(()) => Ok(Vec::new()),
        Err(StoreError::Timeout { missing, .. }) => Ok(missing
            .iter()
            .filter_map(|k| k.rsplit('/').next()?.parse().ok())
            .collect()),
        Err(e) => Err(e),
    }
}

/// Counts `rank` among the ranks that joined and know the rendezvous failed (rank 0,
/// which waits for them, and ranks the verdict names do not count); the last of
/// them sets `told`.
fn told(store: &dyn Store, prefix: &str, size: usize, rank: usize, missing: &[usize]) {
    if rank == 0 || missing.contains(&rank) {
        return;
    }
    let others = size.saturating_sub(missing.len() + 1) as i64;
    if store.add(&format!("{prefix}/told_count"), 1).ok() == Some(others) {
        let _ = store.set(&format!("{prefix}/told"), b"");
    }
}

/// `1,3,5`.
fn join_ranks(ranks: &[usize]) -> String {
    ranks
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
