//! Memory NCCL allocates (`ncclMemAlloc`/`ncclMemFree`) and buffer registration
//! (`ncclCommRegister`/`ncclCommDeregister`) on the cuda driver.

use std::ffi::c_void;
use std::ptr;

use super::CudaDevice;
use super::comm::{CudaComm, lib};
use crate::{Result, check};

/// `ncclMemAlloc` of `bytes` on `device` (synchronous; memory NCCL's registration
/// and symmetric kernels can use at their best).
pub(crate) fn nccl_mem_alloc(device: &CudaDevice, bytes: usize) -> Result<u64> {
    let lib = lib()?;
    let _ctx = device.bind()?;
    let mut p: *mut c_void = ptr::null_mut();
    // SAFETY: writes one pointer; the device's context is current.
    check("ncclMemAlloc", unsafe {
        lib.ncclMemAlloc(&mut p, bytes.max(1))?
    })?;
    Ok(p as u64)
}

/// `ncclMemFree` of memory [`nccl_mem_alloc`] returned, once nothing uses it.
pub(crate) fn nccl_mem_free(device: &CudaDevice, addr: u64) -> Result<()> {
    let lib = lib()?;
    let _ctx = device.bind()?;
    // SAFETY: `addr` came from ncclMemAlloc and every use of it has completed (the
    // caller frees after the allocation's pending events).
    check("ncclMemFree", unsafe {
        lib.ncclMemFree(addr as *mut c_void)?
    })
}

impl CudaComm {
    /// `ncclCommRegister` of `bytes` at `addr`: NCCL's handle.
    pub fn register(&self, device: &CudaDevice, addr: u64, bytes: usize) -> Result<usize> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let raw = self.raw()?;
        let _ctx = device.bind()?;
        let mut handle: *mut c_void = ptr::null_mut();
        // SAFETY: a live communicator (the lock keeps abort and destroy out); the
        // range is a live allocation of this device, which the registration keeps
        // allocated until it is deregistered.
        check("ncclCommRegister", unsafe {
            lib.ncclCommRegister(raw, addr as *mut c_void, bytes, &mut handle)?
        })?;
        Ok(handle as usize)
    }

    /// `ncclCommDeregister` of `handle`; nothing when the communicator is gone (NCCL
    /// released its registrations with it).
    pub fn deregister(&self, device: &CudaDevice, handle: usize) -> Result<()> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let Ok(raw) = self.raw() else {
            return Ok(());
        };
        let _ctx = device.bind()?;
        // SAFETY: a live communicator and a handle its ncclCommRegister returned,
        // deregistered once.
        check("ncclCommDeregister", unsafe {
            lib.ncclCommDeregister(raw, handle as *mut c_void)?
        })
    }
}
