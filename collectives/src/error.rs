//! The collectives layer's error type.

use std::time::Duration;

/// What went wrong with a group or one of its operations. Every variant about an
/// operation names the group, the rank, the operation, its sequence number and the
/// call site.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error of the layer below (arguments, drivers, NCCL, mismatches on the sim).
    #[error(transparent)]
    Safe(#[from] nccl_safe::Error),
    /// A host-wait gave up, or the watchdog saw an operation run past the timeout.
    #[error("{op} #{seq} ({call_site}) on rank {rank} of group {group} timed out after {waited:?}")]
    Timeout {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The operation.
        op: String,
        /// Its sequence number.
        seq: u64,
        /// How long it was waited for.
        waited: Duration,
        /// Where it was issued.
        call_site: String,
    },
    /// The operation was failed by an abort (local, by policy, or by an abort handle).
    #[error("{op} #{seq} ({call_site}) on rank {rank} of group {group} was aborted: {reason}")]
    Aborted {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The operation.
        op: String,
        /// Its sequence number.
        seq: u64,
        /// Where it was issued.
        call_site: String,
        /// Why the group was aborted.
        reason: String,
    },
    /// The operation failed asynchronously (an NCCL async error, a failed stream, a
    /// mismatch the sim found while it ran).
    #[error("{op} #{seq} ({call_site}) on rank {rank} of group {group} failed: {reason}")]
    Failed {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The operation.
        op: String,
        /// Its sequence number.
        seq: u64,
        /// Where it was issued.
        call_site: String,
        /// The error's text.
        reason: String,
    },
    /// The group refuses new work (it was aborted, or its stream failed); names the
    /// operation refused and where it was called.
    #[error("{op} ({call_site}) refused: group {group} on rank {rank} is aborted: {reason}")]
    GroupAborted {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The operation refused.
        op: String,
        /// Where it was called.
        call_site: String,
        /// Why the group refuses work.
        reason: String,
    },
    /// Ranks issued different operations at one position (found by the sim): names
    /// this side, and in `detail` both sides with their ranks, pids and call sites.
    #[error("{op} #{seq} ({call_site}) on rank {rank} of group {group}: {detail}")]
    Mismatch {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// This rank's operation.
        op: String,
        /// Its sequence number.
        seq: u64,
        /// Where it was issued.
        call_site: String,
        /// Both sides.
        detail: String,
    },
    /// [`Options::check_finite`](crate::Options::check_finite): an input of the
    /// operation held a value that is not finite (NaN or infinity) when the operation
    /// started. The operation itself ran (the check never holds the stream back);
    /// its `Work` reports this instead of success. The group goes on.
    #[error(
        "{op} #{seq} ({call_site}) on rank {rank} of group {group}: its input is not finite \
         at element {index} (NaN or infinity)"
    )]
    NonFinite {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The operation.
        op: String,
        /// Its sequence number.
        seq: u64,
        /// Where it was issued.
        call_site: String,
        /// The index of the first element that is not finite.
        index: u64,
    },
    /// The group was used from two threads at once (or from a second thread while the
    /// first one's operations were in flight): the ranks could not agree on one order
    /// of operations, so this is refused instead of computing wrong results.
    #[error(
        "{call_site}: group {group} on rank {rank} is in use by another thread ({other_call_site}): {reason}"
    )]
    ConcurrentUse {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The refused call.
        call_site: String,
        /// The other thread's call.
        other_call_site: String,
        /// What the rule is.
        reason: String,
    },
    /// A turn of a [`SharedGroup`](crate::SharedGroup) could not be taken: it was
    /// taken already, or the turns before it did not end within the group's timeout.
    #[error("turn {turn} of group {group} on rank {rank}: {reason}")]
    Turn {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// The turn asked for.
        turn: u64,
        /// Why it could not be taken (names the next turn due).
        reason: String,
    },
    /// An option is out of range; names it and its value.
    #[error("option {option} = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Its value.
        value: String,
        /// What is allowed.
        reason: String,
    },
    /// Too many operations in flight for too long (backpressure).
    #[error(
        "group {group} on rank {rank}: {in_flight} operations still in flight after {waited:?} (cap {cap})"
    )]
    InFlightCap {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// Operations in flight.
        in_flight: usize,
        /// The configured cap.
        cap: usize,
        /// How long the call waited for room.
        waited: Duration,
    },
    /// The launcher's environment is missing, partial or contradictory.
    #[error(transparent)]
    Launch(#[from] crate::launch::LaunchError),
    /// The launcher's PMIx server could not be used: libpmix is missing, there is no
    /// server, or a call failed (a fence's timeout among them).
    #[error("PMIx: {op}: {what}")]
    Pmix {
        /// What was done.
        op: String,
        /// What PMIx (or the loader) said.
        what: String,
    },
    /// The rendezvous store failed (connect, I/O, protocol, token).
    #[error("rendezvous store {addr}: {error}")]
    Store {
        /// The store's address (`tcp://host:port` or `file:///path`).
        addr: String,
        /// What the store said.
        error: crate::store::StoreError,
    },
    /// Ranks did not arrive at the rendezvous in time.
    #[error(
        "rendezvous at {addr} (group {group}, rank {rank}): {what} after {waited:?}; missing ranks {missing:?}"
    )]
    Rendezvous {
        /// The store's address.
        addr: String,
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// What was waited for.
        what: String,
        /// The ranks that never arrived.
        missing: Vec<usize>,
        /// How long this rank waited.
        waited: Duration,
    },
    /// A job of several ranks with no rendezvous address.
    #[error(
        "no rendezvous address for {launch}: set NCCL_RS_STORE (tcp://host:port or \
         file:///path), or MASTER_ADDR and MASTER_PORT"
    )]
    NoRendezvous {
        /// The launch as read (values and their sources).
        launch: String,
    },
    /// A process has more local ranks than its node has devices.
    #[error(
        "{local_world_size} local ranks but only {devices} {driver} devices on this node \
         (local rank {local_rank}); start at most one rank per device"
    )]
    TooFewDevices {
        /// Ranks on this node.
        local_world_size: usize,
        /// Devices visible to this process.
        devices: usize,
        /// The driver.
        driver: nccl_safe::DriverKind,
        /// This process's local rank.
        local_rank: usize,
    },
    /// An operation on a group that a shrink or a grow replaced: the group it
    /// returned is the one to use.
    #[error(
        "{op} ({call_site}) refused: group {group} on rank {rank} was replaced by its {by} \
         into epoch {epoch} ({size} ranks, this rank now rank {new_rank}); issue on the group \
         ProcessGroup::{by} returned"
    )]
    Replaced {
        /// Group name.
        group: String,
        /// This rank (in the replaced group).
        rank: usize,
        /// The operation refused.
        op: String,
        /// Where it was called.
        call_site: String,
        /// The call that replaced it.
        by: ReplacedBy,
        /// The epoch of the group that replaced it.
        epoch: u64,
        /// Its size.
        size: usize,
        /// This rank's rank in it.
        new_rank: usize,
    },
    /// A shrink or a grow that could not be made: who is gone could not be agreed on
    /// in time, this rank was left out, there is no store to agree through, or a
    /// replacement was not admitted in time.
    #[error("{op} of group {group} on rank {rank} (epoch {epoch}): {reason}")]
    Reshape {
        /// Group name.
        group: String,
        /// This rank.
        rank: usize,
        /// `shrink`, `admit` or `join` (a replacement joining).
        op: &'static str,
        /// The epoch of the group it started from.
        epoch: u64,
        /// What went wrong, naming the ranks concerned.
        reason: String,
        /// Ranks that neither came nor are known gone (empty when that is not the
        /// reason).
        late: Vec<usize>,
    },
}

/// What replaced a group ([`Error::Replaced`]): the [`ProcessGroup`](crate::ProcessGroup)
/// method whose result is the group to use now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplacedBy {
    /// [`ProcessGroup::shrink`](crate::ProcessGroup::shrink) (or `shrink_excluding`).
    Shrink,
    /// [`ProcessGroup::admit`](crate::ProcessGroup::admit).
    Admit,
    /// [`ProcessGroup::grow`](crate::ProcessGroup::grow).
    Grow,
}

impl std::fmt::Display for ReplacedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReplacedBy::Shrink => "shrink",
            ReplacedBy::Admit => "admit",
            ReplacedBy::Grow => "grow",
        })
    }
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A wrapped error prints as itself (its own variant and text) inside.
        match self {
            Error::Safe(e) => return write!(f, "Error::Safe({e:?})"),
            Error::Launch(e) => return write!(f, "Error::Launch({e:?})"),
            _ => {}
        }
        let variant = match self {
            Error::Safe(..) => "Safe",
            Error::Timeout { .. } => "Timeout",
            Error::Aborted { .. } => "Aborted",
            Error::Failed { .. } => "Failed",
            Error::GroupAborted { .. } => "GroupAborted",
            Error::Mismatch { .. } => "Mismatch",
            Error::NonFinite { .. } => "NonFinite",
            Error::ConcurrentUse { .. } => "ConcurrentUse",
            Error::Turn { .. } => "Turn",
            Error::InvalidOption { .. } => "InvalidOption",
            Error::InFlightCap { .. } => "InFlightCap",
            Error::Launch(..) => "Launch",
            Error::Store { .. } => "Store",
            Error::Pmix { .. } => "Pmix",
            Error::Rendezvous { .. } => "Rendezvous",
            Error::NoRendezvous { .. } => "NoRendezvous",
            Error::TooFewDevices { .. } => "TooFewDevices",
            Error::Replaced { .. } => "Replaced",
            Error::Reshape { .. } => "Reshape",
        };
        write!(f, "Error::{variant}: {self}")
    }
}

/// What the collectives layer returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;
