//! A communicator's suspend state (active, suspended, changing) and the check every
//! operation makes against it; the moves between states are in `suspend.rs`.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::{Error, Result};

pub(super) const ACTIVE: u8 = 0;
pub(super) const SUSPENDED: u8 = 1;
/// A suspend or a resume is under way on some thread.
pub(super) const CHANGING: u8 = 2;

thread_local! {
    /// Set while this thread runs the barrier of a suspend or resume, whose
    /// all-reduce is the one operation a communicator between states takes.
    pub(super) static IN_BARRIER: Cell<bool> = const { Cell::new(false) };
}

/// Refuses operations on a communicator that is suspended, or being suspended or
/// resumed (except the barrier of that change).
pub(super) fn check_active(
    state: &AtomicU8,
    rank: usize,
    size: usize,
    op: &'static str,
) -> Result<()> {
    match state.load(Ordering::Acquire) {
        ACTIVE => Ok(()),
        _ if IN_BARRIER.with(Cell::get) => Ok(()),
        SUSPENDED => Err(Error::InvalidUsage {
            op,
            reason: format!(
                "rank {rank} of {size}: the communicator is suspended; resume it first"
            ),
        }),
        _ => Err(Error::InvalidUsage {
            op,
            reason: format!(
                "rank {rank} of {size}: the communicator is being suspended or resumed"
            ),
        }),
    }
}
