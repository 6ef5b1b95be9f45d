//! Graphs of collectives: the calls a closure issues, captured once
//! ([`Communicator::capture`]) and replayed ([`Graph::launch`]) without issuing them
//! again: a CUDA graph on cuda, the same operations launched again on the sim.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Communicator;
use super::communicator::{Call, CommInner};
use super::group::Group;
use crate::base::op::LaunchOp;
use crate::driver::GraphImpl;
use crate::{Error, Result, Stream};

/// The collectives of one communicator captured into a graph
/// ([`Communicator::capture`]), replayed with [`Graph::launch`].
///
/// A graph holds every buffer its calls use, so none can be freed while the graph
/// exists (a graph replayed after its buffers were freed is what this prevents).
/// Each replay is ordered like any other operation: it waits for the pending work of
/// other streams on those buffers, and later work waits for it. It holds the
/// communicator too; once that is closed or aborted, a replay is refused.
///
/// ```
/// use std::thread;
/// use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// let id = UniqueId::random();
/// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<u64>> {
///     let dev = Device::sim(rank)?;
///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
///     let s = Stream::new(&dev)?;
///     let mut x = DeviceBuffer::from_slice(&s, &[1u64; 4])?;
///     // Captured once (nothing runs yet), replayed three times: each replay doubles x.
///     let graph = comm.capture(&s, |_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))?;
///     for _ in 0..3 {
///         graph.launch(&s)?;
///     }
///     drop(graph);
///     x.to_vec(&s)
/// })).collect();
/// for r in ranks {
///     assert_eq!(r.join().unwrap()?, vec![8; 4]);
/// }
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub struct Graph {
    comm: Arc<CommInner>,
    calls: Vec<Call>,
    imp: GraphImpl,
    launches: AtomicU64,
}

impl Communicator {
    /// Captures the calls `f` issues on this communicator, on `stream`, as one group,
    /// into a [`Graph`]; nothing runs until [`Graph::launch`]. Every rank captures the
    /// same calls and replays its graph as often as the others (on the sim, a replay
    /// that differs from another rank's is a [`Error::Mismatch`]).
    ///
    /// On cuda the calls are issued once under CUDA stream capture (thread-local
    /// mode) and instantiated; NCCL supports graphs of its calls. On the sim the
    /// operations are kept and launched again at each replay.
    ///
    /// # Errors
    ///
    /// `f`'s error; [`Error::InvalidArgument`] when `f` issues nothing;
    /// [`Error::InvalidUsage`] inside an open group, for a call on another
    /// communicator or stream, or a finalize; the calls' own argument errors; errors
    /// of the capture.
    pub fn capture(&self, stream: &Stream, f: impl FnOnce(&Group) -> Result<()>) -> Result<Graph> {
        const OP: &str = "capture";
        let ((), pending, finalizes) = super::group::collect(OP, f)?;
        if !finalizes.is_empty() {
            return Err(Error::InvalidUsage {
                op: OP,
                reason: "a finalize inside a capture".into(),
            });
        }
        if pending.is_empty() {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: "the closure issued no operation: there is nothing to capture".into(),
            });
        }
        let mut calls = Vec::with_capacity(pending.len());
        for (comm, s, call) in pending {
            if !Arc::ptr_eq(&comm, &self.inner) {
                return Err(Error::InvalidUsage {
                    op: OP,
                    reason: format!(
                        "a call on another communicator (rank {} of {}): a graph holds one \
                         communicator's calls",
                        comm.rank, comm.size
                    ),
                });
            }
            if !Arc::ptr_eq(&s.inner, &stream.inner) {
                return Err(Error::InvalidUsage {
                    op: OP,
                    reason: "a call on another stream than the one captured".into(),
                });
            }
            calls.push(call);
        }
        let inner = &self.inner;
        inner.check_issuable(OP)?;
        crate::stream::check_same_device(OP, &inner.device, stream.device())?;
        inner.imp.check_ready(OP)?;
        let mark = super::communicator::select_launch_event(&mut calls, &inner.device)?;
        let ops: Vec<LaunchOp> = calls.iter().map(|c| c.op.clone()).collect();
        crate::features::check_ops(inner.imp.kind(), inner.config.sim_nccl_version, &ops)?;
        let mark = mark.as_deref().map(|m| &**m);
        let imp = inner
            .imp
            .capture(&stream.inner.imp, &ops, &inner.config, mark)?;
        Ok(Graph {
            comm: inner.clone(),
            calls,
            imp,
            launches: AtomicU64::new(0),
        })
    }
}

impl Graph {
    /// Replays the graph on `stream` (a stream of the communicator's device): its
    /// calls run again, in order after the stream's earlier work and the pending
    /// work of other streams on the graph's buffers.
    ///
    /// # Errors
    ///
    /// [`Error::WrongDevice`]; a communicator that cannot take calls (aborted,
    /// closed, suspended); errors of the launch.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.comm
            .launch_graph(stream, self.calls.clone(), &self.imp)?;
        self.launches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// How many operations the graph holds.
    pub fn ops(&self) -> usize {
        self.calls.len()
    }

    /// How many times it was launched.
    pub fn launches(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    /// The rank and size of its communicator.
    pub fn rank_and_size(&self) -> (usize, usize) {
        (self.comm.rank, self.comm.size)
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Graph({} ops, rank {} of {}, launched {} times)",
            self.calls.len(),
            self.comm.rank,
            self.comm.size,
            self.launches()
        )
    }
}
