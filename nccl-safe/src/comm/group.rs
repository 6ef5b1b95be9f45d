//! Groups: [`group`] collects the operations a closure issues on this thread and
//! launches them together when it returns (as NCCL's `ncclGroupStart`/`End`).

use std::cell::RefCell;
use std::sync::Arc;

use super::communicator::{Call, CommInner, Communicator};
use crate::base::op::LaunchOp;
use crate::base::types::DriverKind;
use crate::memory::tracker::{enqueue_record, enqueue_waits};
use crate::stream::check_same_device;
use crate::{Error, Result, Stream};

pub(super) type Pending = Vec<(Arc<CommInner>, Stream, Call)>;

thread_local! {
    pub(super) static GROUP: RefCell<Option<Pending>> = const { RefCell::new(None) };
    /// Communicators finalized inside the open group (run when it ends).
    static FINALIZES: RefCell<Vec<Arc<CommInner>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a group is open on this thread.
pub(super) fn group_open() -> bool {
    GROUP.with(|g| g.borrow().is_some())
}

/// Refuses `op`, which meets the other ranks at once, inside an open group (there
/// the meeting would wait for the group's end, and the group's end for the call).
pub(super) fn refuse_in_group(op: &'static str) -> Result<()> {
    if group_open() {
        return Err(Error::InvalidUsage {
            op,
            reason: "called inside an open group: it meets the other ranks at once, so call \
                     it outside the group"
                .into(),
        });
    }
    Ok(())
}

/// Collects a finalize issued inside an open group; `false` outside one.
pub(super) fn defer_finalize(comm: &Arc<CommInner>) -> bool {
    let open = group_open();
    if open {
        FINALIZES.with(|f| f.borrow_mut().push(comm.clone()));
    }
    open
}

impl Communicator {
    /// Waits (up to the teardown deadline) until this rank's work has completed.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`]; errors of the work.
    ///
    /// Inside a [`group`](crate::group()), the finalize is collected and runs when the
    /// group ends, after the group's operations.
    pub fn finalize(&self) -> Result<()> {
        if defer_finalize(&self.inner) {
            return Ok(());
        }
        self.inner.finalize()
    }
}

/// The scope of a [`group`]: collectives issued on this thread while it is open are
/// launched together when the group ends.
#[derive(Debug)]
pub struct Group {
    _private: (),
}

impl Group {
    /// Number of operations collected so far.
    pub fn len(&self) -> usize {
        GROUP.with(|g| g.borrow().as_ref().map_or(0, Vec::len))
    }

    /// Whether nothing was collected yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct GroupReset;

impl Drop for GroupReset {
    fn drop(&mut self) {
        GROUP.with(|g| g.borrow_mut().take());
        FINALIZES.with(|f| f.borrow_mut().clear());
    }
}

/// Runs `f`, collecting the collectives it issues on this thread, and launches them
/// as one NCCL group when it returns (fused all-reduces; point-to-point exchanges that
/// would deadlock one by one). The group always ends: if `f` fails or panics, nothing
/// it collected is launched. Buffer uses are recorded after the group has ended.
/// Groups do not nest; each communicator's operations in a group share one stream.
/// A [`Communicator::finalize`](crate::Communicator::finalize) inside the group is
/// collected too and runs after the group's operations are launched (on cuda, all the
/// group's finalizes in one NCCL group, as NCCL's examples finalize every communicator
/// of a process).
///
/// # Errors
///
/// `f`'s error; [`Error::InvalidUsage`] for a nested group or two streams for one
/// communicator; errors of the launch.
///
/// ```
/// use std::thread;
/// use nccl_safe::{group, Communicator, Config, Device, DeviceBuffer, Stream, UniqueId};
/// let id = UniqueId::random();
/// let handles: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<i32>> {
///     let dev = Device::sim(rank)?;
///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
///     let s = Stream::new(&dev)?;
///     let out = DeviceBuffer::from_slice(&s, &[rank as i32; 3])?;
///     let mut inb = DeviceBuffer::zeroed(&s, 3)?;
///     let peer = 1 - rank;
///     group(|_| {
///         comm.send(&out, peer, &s)?;     // each sends first: fine inside a group
///         comm.recv(&mut inb, peer, &s)
///     })?;
///     inb.to_vec(&s)
/// })).collect();
/// let got: Vec<_> = handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect();
/// assert_eq!(got, vec![vec![1; 3], vec![0; 3]]);
/// ```
pub fn group<R>(f: impl FnOnce(&Group) -> Result<R>) -> Result<R> {
    let (value, pending, finalizes) = collect("group", f)?;
    launch_group(pending)?;
    CommInner::finalize_all(&finalizes)?;
    Ok(value)
}

/// Runs `f` with a group open on this thread: its value, the calls it collected, and
/// the finalizes it deferred. Nothing is launched; on `f`'s error nothing collected
/// is returned.
pub(super) fn collect<R>(
    op: &'static str,
    f: impl FnOnce(&Group) -> Result<R>,
) -> Result<(R, Pending, Vec<Arc<CommInner>>)> {
    let nested = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.is_some() {
            return true;
        }
        *g = Some(Vec::new());
        false
    });
    if nested {
        return Err(Error::InvalidUsage {
            op,
            reason: "groups do not nest".into(),
        });
    }
    let reset = GroupReset;
    let result = f(&Group { _private: () });
    let pending = GROUP.with(|g| g.borrow_mut().take()).unwrap_or_default();
    let finalizes = FINALIZES.with(|f| std::mem::take(&mut *f.borrow_mut()));
    drop(reset);
    Ok((result?, pending, finalizes))
}

/// A group's calls sorted by communicator, in first-issue order, each with its one
/// stream.
pub(super) type PerComm = Vec<(Arc<CommInner>, Stream, Vec<Call>)>;

/// Sorts `pending` by communicator ([`PerComm`]); `op` names the refusal of a
/// communicator that used two streams.
pub(super) fn per_comm(op: &'static str, pending: Pending) -> Result<PerComm> {
    let mut per_comm: PerComm = Vec::new();
    for (comm, stream, call) in pending {
        match per_comm.iter_mut().find(|(c, _, _)| Arc::ptr_eq(c, &comm)) {
            Some((_, s, calls)) => {
                if !Arc::ptr_eq(&s.inner, &stream.inner) {
                    return Err(Error::InvalidUsage {
                        op,
                        reason: format!(
                            "rank {} of one communicator used two streams in one group",
                            comm.rank
                        ),
                    });
                }
                calls.push(call);
            }
            None => per_comm.push((comm, stream, vec![call])),
        }
    }
    Ok(per_comm)
}

fn launch_group(pending: Pending) -> Result<()> {
    // One launch per communicator, in first-issue order.
    let per_comm = per_comm("group", pending)?;
    let on_cuda = per_comm
        .iter()
        .filter(|(c, _, _)| c.imp.kind() == DriverKind::Cuda)
        .count();
    if on_cuda > 1 {
        return launch_cuda_group(per_comm);
    }
    // Every communicator's part is checked, and has room on the sim, before any is
    // launched, so that a refused group launched nothing and can be made again (each
    // launch checks again; the choice of the launch event is the same then).
    let mut per_comm = per_comm;
    for (comm, stream, calls) in &mut per_comm {
        super::communicator::check_group_configs(calls)?;
        check_same_device("collective", &comm.device, stream.device())?;
        super::communicator::select_launch_event(calls, &comm.device)?;
        let ops: Vec<_> = calls.iter().map(|c| c.op.clone()).collect();
        crate::features::check_ops(comm.imp.kind(), comm.config.sim_nccl_version, &ops)?;
        comm.imp.room_before_launch(&ops, &comm.config)?;
    }
    for (comm, stream, calls) in per_comm {
        comm.launch(&stream, calls)?;
    }
    Ok(())
}

/// Several cuda communicators in one NCCL group (one process driving several GPUs):
/// every stream waits for its buffers' conflicts, then one `ncclGroupStart`/`End`
/// around all the calls, then the buffers' uses are recorded.
fn launch_cuda_group(mut per_comm: Vec<(Arc<CommInner>, Stream, Vec<Call>)>) -> Result<()> {
    let comms: Vec<Arc<CommInner>> = per_comm.iter().map(|(c, _, _)| c.clone()).collect();
    let _fences: Vec<_> = comms.iter().map(|c| c.fence_read()).collect();
    let mut marks = Vec::with_capacity(per_comm.len());
    for (comm, stream, calls) in &mut per_comm {
        comm.check_issuable("group")?;
        super::communicator::check_group_configs(calls)?;
        check_same_device("collective", &comm.device, stream.device())?;
        marks.push(super::communicator::select_launch_event(
            calls,
            &comm.device,
        )?);
        let ops: Vec<LaunchOp> = calls.iter().map(|c| c.op.clone()).collect();
        crate::features::check_ops(comm.imp.kind(), comm.config.sim_nccl_version, &ops)?;
    }
    for (_, stream, calls) in &per_comm {
        enqueue_waits(&stream.inner, &Call::uses(calls))?;
    }
    let ops: Vec<Vec<LaunchOp>> = per_comm
        .iter()
        .map(|(_, _, calls)| calls.iter().map(|c| c.op.clone()).collect())
        .collect();
    let launches: Vec<_> = per_comm
        .iter()
        .zip(&ops)
        .zip(&marks)
        .map(|(((comm, stream, _), ops), mark)| {
            let mark = mark.as_deref().map(|m| &**m);
            (
                &comm.imp,
                &*stream.inner.imp,
                ops.as_slice(),
                &comm.config,
                mark,
            )
        })
        .collect();
    let launched = crate::driver::launch_cuda_group(&launches);
    // A failed launch's aborts first, so that the uses recorded next come after what
    // it left running (see `CommInner::abort_if_launch_failed`).
    for (comm, stream, _) in &per_comm {
        comm.abort_if_launch_failed(stream);
    }
    // Recorded whatever the result (see `memory::tracker::enqueue`), every part even
    // after one fails.
    let mut noted = Ok(());
    for ((comm, stream, calls), mark) in per_comm.iter().zip(marks) {
        let (recorded, event) = enqueue_record(&stream.inner, &Call::uses(calls));
        if let Some(m) = mark {
            super::launch_event::keep(stream, event.as_ref(), m);
        }
        let step = recorded.and_then(|()| comm.note_launch(stream, event));
        noted = noted.and(step);
    }
    noted?;
    launched
}
