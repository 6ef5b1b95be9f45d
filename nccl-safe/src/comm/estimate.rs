//! [`estimate`]: how long a group of calls would take, by a model, without launching
//! anything (the sim's; NCCL's `ncclGroupSimulateEnd` cannot be used, see below).

use std::time::Duration;

use super::group::Group;
use crate::base::op::{Kind, LaunchOp};
use crate::base::types::DriverKind;
use crate::features::Feature;
use crate::stream::check_same_device;
use crate::{Error, Result};

/// The sim's model of one step of a ring or a message: its latency.
pub const SIM_STEP_LATENCY: Duration = Duration::from_micros(5);
/// The sim's model of the bandwidth of one rank's link, in bytes per second.
pub const SIM_LINK_BANDWIDTH: f64 = 25e9;

/// Runs `f`, collecting the calls it issues on this thread as [`group`](crate::group())
/// does, and returns how long they would take as one group, by NCCL's model, without
/// launching them: no stream runs anything, no buffer is read or written, and no
/// other rank takes part (the estimate is local to this rank).
///
/// On cuda it is refused: NCCL's `ncclGroupSimulateEnd` estimates only a blocking
/// group, and every communicator of this library is non-blocking underneath, for
/// which NCCL would launch the calls for real. The sim has no hardware to model; it
/// estimates each call as ring steps of [`SIM_STEP_LATENCY`] plus the
/// bytes this rank sends over a link of [`SIM_LINK_BANDWIDTH`] (an all-reduce sends
/// `2 (n - 1) / n` of its buffer in `2 (n - 1)` steps), summed over the calls; one
/// rank sends nothing and is estimated at zero. The sim's figures compare calls with
/// one another; they say nothing of a GPU.
///
/// ```
/// use nccl_safe::{estimate, Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream};
/// let devs = [Device::sim(0)?, Device::sim(1)?];
/// let comms = Communicator::init_all(&devs, &Config::new())?;
/// let s = Stream::new(&devs[0])?;
/// let mut small = DeviceBuffer::from_slice(&s, &[1.0f32; 256])?;
/// let mut large = DeviceBuffer::from_slice(&s, &[1.0f32; 1 << 20])?;
/// let t_small = estimate(|_| comms[0].all_reduce_in_place(&mut small, ReduceOp::Sum, &s))?;
/// let t_large = estimate(|_| comms[0].all_reduce_in_place(&mut large, ReduceOp::Sum, &s))?;
/// assert!(t_small < t_large);
/// // Nothing ran: the buffers are as they were.
/// assert_eq!(small.to_vec(&s)?, vec![1.0; 256]);
/// # for c in comms { c.abort()?; }
/// # Ok::<(), nccl_safe::Error>(())
/// ```
///
/// # Errors
///
/// `f`'s error; [`Error::Unsupported`] on cuda; [`Error::UnsupportedByNccl`] on the
/// sim below the NCCL version a communicator's config emulates, if older than 2.22.3; [`Error::InvalidUsage`] inside an
/// open group, for a finalize inside `f`, for two streams of one communicator, or a
/// communicator that cannot take calls (suspended, finalized, aborted); NCCL's
/// errors.
pub fn estimate(f: impl FnOnce(&Group) -> Result<()>) -> Result<Duration> {
    let ((), pending, finalizes) = super::group::collect("estimate", f)?;
    if !finalizes.is_empty() {
        return Err(Error::InvalidUsage {
            op: "estimate",
            reason: "a finalize inside an estimate (nothing is launched, so nothing \
                     would be finalized)"
                .into(),
        });
    }
    let per_comm = super::group::per_comm("estimate", pending)?;
    let mut ops: Vec<Vec<LaunchOp>> = Vec::with_capacity(per_comm.len());
    for (comm, stream, calls) in &per_comm {
        comm.check_issuable("estimate")?;
        check_same_device("estimate", &comm.device, stream.device())?;
        comm.imp.check_ready("estimate")?;
        crate::features::require(
            comm.imp.kind(),
            comm.config.sim_nccl_version,
            Feature::GroupSimulate,
        )?;
        let these: Vec<LaunchOp> = calls.iter().map(|c| c.op.clone()).collect();
        crate::features::check_ops(comm.imp.kind(), comm.config.sim_nccl_version, &these)?;
        ops.push(these);
    }
    if per_comm
        .iter()
        .any(|(c, _, _)| c.imp.kind() == DriverKind::Cuda)
    {
        // NCCL estimates only a blocking group: a non-blocking one (every communicator
        // of this library, Decision 5) ends in a background job that launches the
        // calls for real and ignores the estimate's struct (group.cc,
        // ncclGroupEndInternal).
        return Err(Error::Unsupported {
            driver: DriverKind::Cuda,
            what: "a cost estimate (NCCL's ncclGroupSimulateEnd launches the calls of a \
                   non-blocking communicator, and every communicator here is one)",
        });
    }
    let mut total = Duration::ZERO;
    for ((comm, _, _), ops) in per_comm.iter().zip(&ops) {
        for op in ops {
            total += sim_cost(op, comm.size);
        }
    }
    Ok(total)
}

/// The sim's model of one call on `n` ranks: ring steps and the bytes this rank
/// sends.
fn sim_cost(op: &LaunchOp, n: usize) -> Duration {
    let d = &op.desc;
    let b = (d.count * d.dtype.size()) as f64;
    let m = n.saturating_sub(1) as f64;
    let nf = n as f64;
    let (steps, bytes) = match d.kind {
        Kind::AllReduce => (2.0 * m, 2.0 * m / nf * b),
        // Per-rank blocks of `b` bytes: n - 1 of them cross this rank's link.
        Kind::AllGather | Kind::ReduceScatter | Kind::AllToAll => (m, m * b),
        Kind::Gather | Kind::Scatter => (m, b),
        Kind::Broadcast | Kind::Reduce => (m, if n > 1 { b } else { 0.0 }),
        Kind::Send | Kind::Recv => (1.0, b),
    };
    if n == 1 && !matches!(d.kind, Kind::Send | Kind::Recv) {
        return Duration::ZERO;
    }
    SIM_STEP_LATENCY.mul_f64(steps) + Duration::from_secs_f64(bytes / SIM_LINK_BANDWIDTH)
}
