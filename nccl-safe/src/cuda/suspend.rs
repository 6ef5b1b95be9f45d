//! Suspend, resume and memory statistics of a communicator on the cuda driver
//! (`ncclCommSuspend`, `ncclCommResume`, `ncclCommMemStats`).

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
