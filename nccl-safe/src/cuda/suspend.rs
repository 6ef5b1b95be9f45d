//! Suspend, resume and memory statistics of a communicator on the cuda driver
//! (`ncclCommSuspend`, `ncclCommResume`, `ncclCommMemStats`), and NCCL's cost
//! estimate of a group (`ncclGroupSimulateEnd`).

use nccl_sys as sys;

use super::CudaDevice;
use super::comm::{CudaComm, lib};
use crate::base::types::MemStats;
use crate::{Result, check};

impl CudaComm {
    /// `ncclCommSuspend` with `NCCL_SUSPEND_MEM`. NCCL synchronizes the device and
    /// meets every rank inside; the caller has met them already, so the wait is short.
    pub fn suspend(&self, device: &CudaDevice) -> Result<()> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let raw = self.raw()?;
        let _ctx = device.bind()?;
        // SAFETY: a live communicator (the lock keeps abort and destroy out); frees
        // only memory NCCL owns.
        check("ncclCommSuspend", unsafe {
            lib.ncclCommSuspend(raw, sys::NCCL_SUSPEND_MEM as i32)?
        })
    }

    /// `ncclCommResume`: every rank meets inside NCCL, without a timeout of its own.
    pub fn resume(&self, device: &CudaDevice) -> Result<()> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let raw = self.raw()?;
        let _ctx = device.bind()?;
        // SAFETY: a live communicator (the lock keeps abort and destroy out).
        check("ncclCommResume", unsafe { lib.ncclCommResume(raw)? })
    }

    /// The four `ncclCommMemStats` values.
    pub fn mem_stats(&self, device: &CudaDevice) -> Result<MemStats> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let raw = self.raw()?;
        let read = |stat: sys::ncclCommMemStat_t| -> Result<u64> {
            let mut value = 0u64;
            // SAFETY: a live communicator; writes one u64.
            check("ncclCommMemStats", unsafe {
                lib.ncclCommMemStats(raw, stat, &mut value)?
            })?;
            Ok(value)
        };
        Ok(MemStats {
            suspendable: read(sys::ncclStatGpuMemSuspend)?,
            persistent: read(sys::ncclStatGpuMemPersist)?,
            total: read(sys::ncclStatGpuMemTotal)?,
            suspended: read(sys::ncclStatGpuMemSuspended)? != 0,
        })
    }
}

/// NCCL's estimate, in microseconds, of the calls of `parts` issued as one group
/// (`ncclGroupSimulateEnd`): NCCL plans them and launches nothing.
pub(crate) fn simulate_group(parts: &[super::comm::Part<'_>]) -> Result<f32> {
    let lib = lib()?;
    let mut devices: Vec<&CudaDevice> = Vec::new();
    for (_, d, ..) in parts {
        if !devices.iter().any(|e| std::ptr::eq(*e, *d)) {
            devices.push(d);
        }
    }
    devices.sort_by_key(|d| d.ordinal);
    let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
    let mut raws = Vec::with_capacity(parts.len());
    for (comm, ..) in parts {
        raws.push(comm.raw()?);
    }
    let mut info = sys::ncclSimInfo_t {
        size: std::mem::size_of::<sys::ncclSimInfo_t>(),
        // NCCL's NCCL_SIM_INFO_INITIALIZER: its magic, the header's version, and the
        // undefined time.
        magic: 0x7468_5283,
        version: sys::NCCL_VERSION_CODE,
        estimatedTime: sys::NCCL_UNDEF_FLOAT as f32,
    };
    let mut created = Vec::new();
    // SAFETY: no arguments.
    check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
    let mut result = Ok(());
    'outer: for ((_, _, stream, calls, _), raw) in parts.iter().zip(&raws) {
        let _ctx = match stream.device.bind() {
            Ok(c) => c,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        for call in *calls {
            if let Err(e) = super::issue::issue(lib, *raw, stream.raw, call, &mut created) {
                result = Err(e);
                break 'outer;
            }
        }
    }
    // The group always ends, also after an error.
    // SAFETY: closes the group opened above; `info` is initialized as NCCL requires
    // and outlives the call.
    let end = unsafe { lib.ncclGroupSimulateEnd(&mut info) }
        .map_err(crate::Error::from)
        .and_then(|rc| check("ncclGroupSimulateEnd", rc));
    let held: Vec<&CudaComm> = parts.iter().map(|(c, ..)| *c).collect();
    super::comm::destroy_ops_locked(created, &held);
    result.and(end)?;
    Ok(info.estimatedTime)
}
