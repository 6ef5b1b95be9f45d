//! One launch's NCCL calls, issued inside an open group: each call descriptor becomes
//! its NCCL function (or, on an NCCL without native all-to-all, gather or scatter,
//! the same exchange as grouped sends and receives), and PreMulSum reductions their
//! ops, which the caller destroys after the group ends (`comm.rs`).

use std::ffi::c_void;
use std::ptr;

use nccl_sys as sys;

use crate::base::op::{Kind, LaunchOp, RedOp};
use crate::{Error, Result, check};

/// Accepts `ncclSuccess` and `ncclInProgress` (every communicator is non-blocking).
pub(super) fn started(op: &'static str, rc: sys::ncclResult_t) -> Result<()> {
    if rc == sys::ncclInProgress {
        Ok(())
    } else {
        check(op, rc)
    }
}

/// A reduction op for one call; PreMulSum ops are created here and destroyed after
/// the group ends.
fn red_op(
    lib: &sys::Nccl,
    op: &RedOp,
    dtype: sys::ncclDataType_t,
    scalar: Option<u64>,
    comm: sys::ncclComm_t,
    created: &mut Vec<(sys::ncclRedOp_t, usize)>,
) -> Result<sys::ncclRedOp_t> {
    let (residence, ptr): (sys::ncclScalarResidence_t, *mut c_void) = match (op, scalar) {
        (RedOp::Sum | RedOp::None, _) => return Ok(sys::ncclSum),
        (RedOp::Prod, _) => return Ok(sys::ncclProd),
        (RedOp::Max, _) => return Ok(sys::ncclMax),
        (RedOp::Min, _) => return Ok(sys::ncclMin),
        (RedOp::Avg, _) => return Ok(sys::ncclAvg),
        (RedOp::PreMulSumHost(bytes), _) => {
            (sys::ncclScalarHostImmediate, bytes.as_ptr() as *mut c_void)
        }
        (RedOp::PreMulSumDevice, Some(addr)) => (sys::ncclScalarDevice, addr as *mut c_void),
        (RedOp::PreMulSumDevice, None) => {
            return Err(Error::InvalidArgument {
                op: "premulsum",
                reason: "no device scalar".into(),
            });
        }
    };
    let mut out: sys::ncclRedOp_t = 0;
    // SAFETY: a host scalar is read during the call (NCCL copies it); a device scalar
    // is a tracked, live device address of one element.
    check("ncclRedOpCreatePreMulSum", unsafe {
        lib.ncclRedOpCreatePreMulSum(&mut out, ptr, dtype, residence, comm)?
    })?;
    created.push((out, comm as usize));
    Ok(out)
}

/// Issues one call's NCCL functions (inside an open group).
pub(super) fn issue(
    lib: &sys::Nccl,
    comm: sys::ncclComm_t,
    stream: sys::CUstream,
    call: &LaunchOp,
    launch_event: Option<sys::CUevent>,
    created: &mut Vec<(sys::ncclRedOp_t, usize)>,
) -> Result<()> {
    let d = &call.desc;
    let dt = d.dtype.to_nccl();
    let send = call.send.map_or(ptr::null(), |a| a as *const c_void);
    let recv = call.recv.map_or(ptr::null_mut(), |a| a as *mut c_void);
    let root = d.root.unwrap_or(0) as i32;
    let n = d.count;
    if call.config.is_some() || launch_event.is_some() {
        let (mut raw, _selection) = call
            .config
            .as_deref()
            .cloned()
            .unwrap_or_default()
            .to_raw()?;
        if let Some(event) = launch_event {
            raw.launchCompletionEvent = event;
        }
        let c: *const sys::ncclCollConfig_t = &raw;
        // SAFETY: as below; `raw` and the selection string it points into outlive
        // the call (NCCL reads the config during it); the launch-completion event is
        // a live event of this device made without timing, kept alive by the caller
        // until the launch completes (`comm::launch_event::keep`, or the graph).
        let rc = unsafe {
            match d.kind {
                Kind::AllReduce => {
                    let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                    lib.ncclAllReduceConfig(send, recv, n, dt, op, comm, stream, c)?
                }
                Kind::Broadcast => {
                    lib.ncclBroadcastConfig(send, recv, n, dt, root, comm, stream, c)?
                }
                Kind::Reduce => {
                    let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                    lib.ncclReduceConfig(send, recv, n, dt, op, root, comm, stream, c)?
                }
                Kind::AllGather => lib.ncclAllGatherConfig(send, recv, n, dt, comm, stream, c)?,
                Kind::ReduceScatter => {
                    let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                    lib.ncclReduceScatterConfig(send, recv, n, dt, op, comm, stream, c)?
                }
                Kind::AllToAll => lib.ncclAlltoAllConfig(send, recv, n, dt, comm, stream, c)?,
                Kind::Gather => lib.ncclGatherConfig(send, recv, n, dt, root, comm, stream, c)?,
                Kind::Scatter => lib.ncclScatterConfig(send, recv, n, dt, root, comm, stream, c)?,
                Kind::Send | Kind::Recv => {
                    return Err(Error::InvalidArgument {
                        op: "coll_config",
                        reason: "point-to-point calls take no per-call config".into(),
                    });
                }
            }
        };
        return started(nccl_name(d.kind), rc);
    }
    let mut nranks = 0;
    // SAFETY: a live communicator; writes one int.
    check("ncclCommCount", unsafe {
        lib.ncclCommCount(comm, &mut nranks)?
    })?;
    let nranks = nranks as usize;
    let mut myrank = 0;
    // SAFETY: as above.
    check("ncclCommUserRank", unsafe {
        lib.ncclCommUserRank(comm, &mut myrank)?
    })?;
    let block = (n * d.dtype.size()) as u64;
    // SAFETY: (every call in this block) the buffers were checked against the counts,
    // the communicator's device and each other by the caller, their pending uses are
    // ordered before this stream's work by the tracker, and they stay allocated until
    // the events recorded after this launch complete.
    let rc = unsafe {
        match d.kind {
            Kind::AllReduce => {
                let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                lib.ncclAllReduce(send, recv, n, dt, op, comm, stream)?
            }
            Kind::Broadcast => lib.ncclBroadcast(send, recv, n, dt, root, comm, stream)?,
            Kind::Reduce => {
                let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                lib.ncclReduce(send, recv, n, dt, op, root, comm, stream)?
            }
            Kind::AllGather => lib.ncclAllGather(send, recv, n, dt, comm, stream)?,
            Kind::ReduceScatter => {
                let op = red_op(lib, &d.op, dt, call.scalar, comm, created)?;
                lib.ncclReduceScatter(send, recv, n, dt, op, comm, stream)?
            }
            Kind::Send => lib.ncclSend(send, n, dt, root, comm, stream)?,
            Kind::Recv => lib.ncclRecv(recv, n, dt, root, comm, stream)?,
            Kind::AllToAll if lib.has_function("ncclAlltoAll") == Some(true) => {
                lib.ncclAlltoAll(send, recv, n, dt, comm, stream)?
            }
            Kind::Gather if lib.has_function("ncclGather") == Some(true) => {
                lib.ncclGather(send, recv, n, dt, root, comm, stream)?
            }
            Kind::Scatter if lib.has_function("ncclScatter") == Some(true) => {
                lib.ncclScatter(send, recv, n, dt, root, comm, stream)?
            }
            // Older NCCL: the same exchange as grouped sends and receives.
            Kind::AllToAll => {
                for p in 0..nranks {
                    let off = p as u64 * block;
                    check(
                        "ncclSend",
                        lib.ncclSend(
                            (call.send.unwrap_or(0) + off) as *const c_void,
                            n,
                            dt,
                            p as i32,
                            comm,
                            stream,
                        )?,
                    )?;
                    check(
                        "ncclRecv",
                        lib.ncclRecv(
                            (call.recv.unwrap_or(0) + off) as *mut c_void,
                            n,
                            dt,
                            p as i32,
                            comm,
                            stream,
                        )?,
                    )?;
                }
                sys::ncclSuccess
            }
            Kind::Gather => {
                check("ncclSend", lib.ncclSend(send, n, dt, root, comm, stream)?)?;
                if myrank == root {
                    for p in 0..nranks {
                        let dst = (call.recv.unwrap_or(0) + p as u64 * block) as *mut c_void;
                        check(
                            "ncclRecv",
                            lib.ncclRecv(dst, n, dt, p as i32, comm, stream)?,
                        )?;
                    }
                }
                sys::ncclSuccess
            }
            Kind::Scatter => {
                if myrank == root {
                    for p in 0..nranks {
                        let src = (call.send.unwrap_or(0) + p as u64 * block) as *const c_void;
                        check(
                            "ncclSend",
                            lib.ncclSend(src, n, dt, p as i32, comm, stream)?,
                        )?;
                    }
                }
                lib.ncclRecv(recv, n, dt, root, comm, stream)?
            }
        }
    };
    started(nccl_name(d.kind), rc)
}

fn nccl_name(kind: Kind) -> &'static str {
    match kind {
        Kind::AllReduce => "ncclAllReduce",
        Kind::Broadcast => "ncclBroadcast",
        Kind::Reduce => "ncclReduce",
        Kind::AllGather => "ncclAllGather",
        Kind::ReduceScatter => "ncclReduceScatter",
        Kind::AllToAll => "ncclAlltoAll",
        Kind::Gather => "ncclGather",
        Kind::Scatter => "ncclScatter",
        Kind::Send => "ncclSend",
        Kind::Recv => "ncclRecv",
    }
}
