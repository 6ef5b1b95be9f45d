//! `tracing` spans (the default-off `tracing` feature): group creation (`init`,
//! `connect`, `warmup`), every operation (`collective`: op, seq, bytes, call site),
//! host-waits (`wait`), and the watchdog's actions (`watchdog`: why, the error).
//! Without the feature each function returns a unit guard and nothing is recorded;
//! the `log` lines are written either way.

/// An entered span (the unit guard without the feature); the span ends on drop.
#[cfg(feature = "tracing")]
pub(crate) type Guard = tracing::span::EnteredSpan;
/// An entered span (the unit guard without the feature); the span ends on drop.
#[cfg(not(feature = "tracing"))]
pub(crate) struct Guard;

/// Creating a group (`ProcessGroup::new`): the communicator's init and the connect.
pub(crate) fn init(group: &str, rank: usize, size: usize) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::info_span!("init", group, rank, size).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, size);
        Guard
    }
}

/// Connecting peers at creation (Decision 6); `lazy` says whether NCCL would connect
/// lazily (then warm-up operations run inside).
pub(crate) fn connect(group: &str, rank: usize, lazy: bool) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::info_span!("connect", group, rank, lazy).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, lazy);
        Guard
    }
}

/// The warm-up operations of the connect step.
pub(crate) fn warmup(group: &str, rank: usize, p2p: bool) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::info_span!("warmup", group, rank, p2p).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, p2p);
        Guard
    }
}

/// Issuing one operation (until it is enqueued).
pub(crate) fn collective(
    group: &str,
    rank: usize,
    op: &str,
    seq: u64,
    bytes: usize,
    call_site: &str,
) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::info_span!("collective", group, rank, op, seq, bytes, call_site).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, op, seq, bytes, call_site);
        Guard
    }
}

/// A host-wait on one operation.
pub(crate) fn wait(group: &str, rank: usize, op: &str, seq: u64, call_site: &str) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::info_span!("wait", group, rank, op, seq, call_site).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, op, seq, call_site);
        Guard
    }
}

/// The watchdog (or a waiter) acting on a failure: `why` and the error.
pub(crate) fn watchdog(
    group: &str,
    rank: usize,
    why: &str,
    error: &dyn std::fmt::Display,
) -> Guard {
    #[cfg(feature = "tracing")]
    return tracing::warn_span!("watchdog", group, rank, why, error = %error).entered();
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (group, rank, why, error);
        Guard
    }
}
