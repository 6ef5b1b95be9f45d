//! NCCL on the cuda driver: libnccl through nccl-sys.
//!
//! Every call runs under the device's NCCL lock (taken by the caller). On a
//! non-blocking communicator a call may return `ncclInProgress`; it is polled with
//! `ncclCommGetAsyncError` until it succeeds, fails, or the deadline passes (Decision
//! 5), releasing nothing in between: the abort handle takes the lock between calls,
//! not inside one.

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nccl_sys as sys;

use super::{CudaDevice, CudaStream};
use crate::comm::config::Config;
use crate::comm::op::{Kind, LaunchOp, RedOp};
use crate::{Error, Result, check};

fn lib() -> Result<&'static sys::Nccl> {
    Ok(sys::nccl()?)
}

/// A raw communicator; `None` once destroyed or aborted.
pub(crate) struct CudaComm {
    raw: Mutex<Option<usize>>,
}

// SAFETY: an ncclComm_t may be used from any thread; NCCL's rule that one thread at a
// time calls into NCCL per device is kept by the device's NCCL lock, which every
// method's caller holds.
unsafe impl Send for CudaComm {}
// SAFETY: as above.
unsafe impl Sync for CudaComm {}

/// Polls `comm` (on `device`) until its state leaves `ncclInProgress`, under
/// `timeout`. The device's NCCL lock is taken for each poll and released between
/// polls, so an abort handle can get in (Decision 7); an aborted communicator ends
/// the wait with [`Error::Aborted`].
fn poll(comm: &CudaComm, device: &CudaDevice, timeout: Duration, op: &'static str) -> Result<()> {
    let lib = lib()?;
    let start = Instant::now();
    loop {
        let state = {
            let _guard = device.nccl_lock();
            let raw = comm.raw()?;
            let mut state = sys::ncclSuccess;
            // SAFETY: a live communicator (the lock keeps abort out); writes one code.
            check("ncclCommGetAsyncError", unsafe {
                lib.ncclCommGetAsyncError(raw, &mut state)?
            })?;
            state
        };
        if state != sys::ncclInProgress {
            return check(op, state);
        }
        if start.elapsed() >= timeout {
            return Err(Error::Timeout {
                op,
                waited: timeout,
            });
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Accepts `ncclSuccess` and, on a non-blocking communicator, `ncclInProgress`.
fn started(op: &'static str, rc: sys::ncclResult_t) -> Result<()> {
    if rc == sys::ncclInProgress {
        Ok(())
    } else {
        check(op, rc)
    }
}

impl CudaComm {
    fn raw(&self) -> Result<sys::ncclComm_t> {
        match *crate::sync::lock(&self.raw) {
            Some(p) => Ok(p as sys::ncclComm_t),
            None => Err(Error::Aborted {
                what: "the communicator was aborted or destroyed".into(),
            }),
        }
    }

    fn take(&self) -> Option<sys::ncclComm_t> {
        crate::sync::lock(&self.raw)
            .take()
            .map(|p| p as sys::ncclComm_t)
    }

    pub fn init(
        device: &CudaDevice,
        rank: usize,
        size: usize,
        id: &sys::ncclUniqueId,
        config: &Config,
    ) -> Result<CudaComm> {
        device.bind()?;
        let lib = lib()?;
        let (mut raw_config, _strings) = config.to_raw()?;
        let mut comm: sys::ncclComm_t = ptr::null_mut();
        // SAFETY: valid out-pointer, id and config (its strings live in `_strings`).
        let rc = unsafe {
            lib.ncclCommInitRankConfig(&mut comm, size as i32, *id, rank as i32, &mut raw_config)?
        };
        started("ncclCommInitRankConfig", rc)?;
        Ok(CudaComm {
            raw: Mutex::new(Some(comm as usize)),
        })
    }

    /// One communicator per device, created in one group (non-blocking; the caller
    /// waits for readiness).
    pub fn init_all(
        devices: &[std::sync::Arc<CudaDevice>],
        id: &sys::ncclUniqueId,
        config: &Config,
    ) -> Result<Vec<CudaComm>> {
        let lib = lib()?;
        let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
        let (mut raw_config, _strings) = config.to_raw()?;
        let mut comms = Vec::with_capacity(devices.len());
        // SAFETY: group calls have no arguments.
        check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
        for (rank, d) in devices.iter().enumerate() {
            d.bind()?;
            let mut comm: sys::ncclComm_t = ptr::null_mut();
            // SAFETY: as in `init`.
            let rc = unsafe {
                lib.ncclCommInitRankConfig(
                    &mut comm,
                    devices.len() as i32,
                    *id,
                    rank as i32,
                    &mut raw_config,
                )?
            };
            if let Err(e) = started("ncclCommInitRankConfig", rc) {
                // SAFETY: closes the group opened above.
                let _ = unsafe { lib.ncclGroupEnd() };
                return Err(e);
            }
            comms.push(CudaComm {
                raw: Mutex::new(Some(comm as usize)),
            });
        }
        // SAFETY: closes the group.
        started("ncclGroupEnd", unsafe { lib.ncclGroupEnd()? })?;
        Ok(comms)
    }

    pub fn is_ready(&self) -> Result<bool> {
        let lib = lib()?;
        let mut state = sys::ncclSuccess;
        // SAFETY: a live communicator; writes one result code.
        check("ncclCommGetAsyncError", unsafe {
            lib.ncclCommGetAsyncError(self.raw()?, &mut state)?
        })?;
        if state == sys::ncclInProgress {
            return Ok(false);
        }
        check("ncclCommInitRankConfig", state)?;
        Ok(true)
    }

    pub fn async_error(&self) -> Result<Option<Error>> {
        let lib = lib()?;
        let mut state = sys::ncclSuccess;
        // SAFETY: as above.
        check("ncclCommGetAsyncError", unsafe {
            lib.ncclCommGetAsyncError(self.raw()?, &mut state)?
        })?;
        Ok(match state {
            sys::ncclSuccess | sys::ncclInProgress => None,
            rc => check("asynchronous error", rc).err(),
        })
    }

    /// Launches `calls` in one NCCL group on `stream`, polled to completion of the
    /// enqueue.
    pub fn launch(
        &self,
        device: &CudaDevice,
        stream: &CudaStream,
        calls: &[LaunchOp],
        config: &Config,
    ) -> Result<()> {
        let created = {
            let _guard = device.nccl_lock();
            launch_many(&[(self, stream, calls, config)])?
        };
        let result = poll(self, device, config.call_timeout, "ncclGroupEnd");
        let _guard = device.nccl_lock();
        destroy_ops_locked(created);
        result
    }

    /// `ncclCommRevoke`: stops in-flight operations without freeing (so without
    /// waiting for the device). `false` when the loaded NCCL lacks it or it fails.
    pub fn revoke(&self, device: &CudaDevice) -> bool {
        let Ok(lib) = lib() else { return false };
        if lib.has_function("ncclCommRevoke") != Some(true) {
            return false;
        }
        let _guard = device.nccl_lock();
        let Ok(raw) = self.raw() else { return false };
        if device.bind().is_err() {
            return false;
        }
        // SAFETY: a live communicator; revoke frees nothing.
        let rc = unsafe { lib.ncclCommRevoke(raw, sys::NCCL_REVOKE_DEFAULT as i32) };
        matches!(rc, Ok(sys::ncclSuccess | sys::ncclInProgress))
    }

    pub fn abort(&self, device: &CudaDevice) -> Result<()> {
        // SAFETY: abort frees a live communicator, even with work pending.
        self.give_up(device, "ncclCommAbort", |lib, comm| unsafe {
            lib.ncclCommAbort(comm)
        })
    }

    /// Takes the communicator out (later calls see it gone: taking it happens under the
    /// device's NCCL lock) and frees it with `free` *without* the lock: abort and
    /// destroy free memory, which waits for the whole device, and another
    /// communicator's watchdog or abort handle must still get the lock meanwhile.
    /// A no-op when it is already gone.
    fn give_up(
        &self,
        device: &CudaDevice,
        call: &'static str,
        free: impl FnOnce(
            &sys::Nccl,
            sys::ncclComm_t,
        ) -> std::result::Result<sys::ncclResult_t, sys::LoadError>,
    ) -> Result<()> {
        let comm = {
            let _guard = device.nccl_lock();
            self.take()
        };
        let Some(comm) = comm else {
            return Ok(());
        };
        device.bind()?;
        check(call, free(lib()?, comm)?)
    }

    pub fn finalize(&self, device: &CudaDevice, timeout: Duration) -> Result<()> {
        {
            let _guard = device.nccl_lock();
            device.bind()?;
            let comm = self.raw()?;
            // SAFETY: a live communicator.
            started("ncclCommFinalize", unsafe {
                lib()?.ncclCommFinalize(comm)?
            })?;
        }
        poll(self, device, timeout, "ncclCommFinalize")
    }

    pub fn destroy(&self, device: &CudaDevice) -> Result<()> {
        // SAFETY: destroy frees a live, finalized communicator.
        self.give_up(device, "ncclCommDestroy", |lib, comm| unsafe {
            lib.ncclCommDestroy(comm)
        })
    }

    pub fn split(
        &self,
        device: &CudaDevice,
        color: Option<u32>,
        key: i32,
        config: &Config,
        timeout: Duration,
    ) -> Result<Option<(usize, usize, CudaComm)>> {
        let lib = lib()?;
        let (mut raw_config, _strings) = config.to_raw()?;
        let mut new: sys::ncclComm_t = ptr::null_mut();
        let color = color.map_or(sys::NCCL_SPLIT_NOCOLOR, |c| c as i32);
        {
            let _guard = device.nccl_lock();
            device.bind()?;
            let parent = self.raw()?;
            // SAFETY: a live parent, valid out-pointer and config.
            started("ncclCommSplit", unsafe {
                lib.ncclCommSplit(parent, color, key, &mut new, &mut raw_config)?
            })?;
        }
        poll(self, device, timeout, "ncclCommSplit")?;
        if new.is_null() {
            return Ok(None);
        }
        let child = CudaComm {
            raw: Mutex::new(Some(new as usize)),
        };
        poll(&child, device, timeout, "ncclCommSplit")?;
        let (mut rank, mut size) = (0, 0);
        {
            let _guard = device.nccl_lock();
            // SAFETY: a live communicator; each writes one int.
            unsafe {
                check("ncclCommUserRank", lib.ncclCommUserRank(new, &mut rank)?)?;
                check("ncclCommCount", lib.ncclCommCount(new, &mut size)?)?;
            }
        }
        Ok(Some((rank as usize, size as usize, child)))
    }
}

/// Destroys the PreMulSum ops of a launch, after its group ended and was polled.
/// The caller holds the NCCL lock of every device involved.
pub(crate) fn destroy_ops_locked(created: Vec<(sys::ncclRedOp_t, usize)>) {
    let Ok(lib) = lib() else { return };
    for (op, comm) in created {
        // SAFETY: created for this live communicator; NCCL copied its state at the call.
        let _ = unsafe { lib.ncclRedOpDestroy(op, comm as sys::ncclComm_t) };
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
fn issue(
    lib: &sys::Nccl,
    comm: sys::ncclComm_t,
    stream: sys::CUstream,
    call: &LaunchOp,
    created: &mut Vec<(sys::ncclRedOp_t, usize)>,
) -> Result<()> {
    let d = &call.desc;
    let dt = d.dtype.to_nccl();
    let send = call.send.map_or(ptr::null(), |a| a as *const c_void);
    let recv = call.recv.map_or(ptr::null_mut(), |a| a as *mut c_void);
    let root = d.root.unwrap_or(0) as i32;
    let n = d.count;
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

/// Issues the calls of several communicators in one NCCL group. The caller holds
/// every device's NCCL lock and has inserted the buffers' waits; it polls the
/// communicators afterwards (without the locks) and then destroys the returned
/// PreMulSum ops.
pub(crate) fn launch_many(
    launches: &[(&CudaComm, &CudaStream, &[LaunchOp], &Config)],
) -> Result<Vec<(sys::ncclRedOp_t, usize)>> {
    let lib = lib()?;
    let mut created = Vec::new();
    // SAFETY: no arguments.
    check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
    let mut result = Ok(());
    'outer: for (comm, stream, calls, _) in launches {
        let raw = match comm.raw().and_then(|r| stream.device.bind().map(|_| r)) {
            Ok(r) => r,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        for call in *calls {
            if let Err(e) = issue(lib, raw, stream.raw, call, &mut created) {
                result = Err(e);
                break 'outer;
            }
        }
    }
    // The group always ends, also after an error.
    // SAFETY: closes the group opened above.
    let end = unsafe { lib.ncclGroupEnd() };
    result?;
    started("ncclGroupEnd", end?)?;
    Ok(created)
}

/// Polls every communicator of a group launch (see [`launch_many`]).
pub(crate) fn poll_many(launches: &[(&CudaComm, &CudaDevice, &Config)]) -> Result<()> {
    for (comm, device, config) in launches {
        poll(comm, device, config.call_timeout, "ncclGroupEnd")?;
    }
    Ok(())
}

/// `ncclCommFinalize` on several communicators in one NCCL group (under their devices'
/// locks, taken in ordinal order and released before polling), then each polled.
pub(crate) fn finalize_many(comms: &[(&CudaComm, &CudaDevice, Duration)]) -> Result<()> {
    let lib = lib()?;
    {
        let mut devices: Vec<&CudaDevice> = Vec::new();
        for (_, d, _) in comms {
            if !devices.iter().any(|e| std::ptr::eq(*e, *d)) {
                devices.push(d);
            }
        }
        devices.sort_by_key(|d| d.ordinal);
        let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
        // SAFETY: no arguments.
        check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
        let mut result = Ok(());
        for (comm, device, _) in comms {
            let step = device.bind().and_then(|_| comm.raw()).and_then(|raw| {
                // SAFETY: a live communicator.
                started("ncclCommFinalize", unsafe { lib.ncclCommFinalize(raw)? })
            });
            if let Err(e) = step {
                result = Err(e);
                break;
            }
        }
        // The group always ends.
        // SAFETY: closes the group opened above.
        let end = unsafe { lib.ncclGroupEnd() };
        result?;
        started("ncclGroupEnd", end?)?;
    }
    for (comm, device, timeout) in comms {
        poll(comm, device, *timeout, "ncclCommFinalize")?;
    }
    Ok(())
}
