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

impl CudaComm {
    /// `ncclCommWindowRegister`: collective, so the communicator (non-blocking) is
    /// polled until every rank has registered, under the call timeout. The window's
    /// out-slot lives on the heap until then (NCCL writes it when the registration
    /// completes); after any error it is leaked, as NCCL may still write it. 0 when
    /// NCCL made no window.
    pub fn register_window(
        &self,
        device: &CudaDevice,
        addr: u64,
        bytes: usize,
        flags: i32,
        timeout: std::time::Duration,
    ) -> Result<usize> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let raw = self.raw()?;
        let ctx = device.bind()?;
        let slot: Box<nccl_sys::ncclWindow_t> = Box::new(ptr::null_mut());
        let slot = Box::into_raw(slot);
        let rc = {
            let (_guard, _ctx) = (_guard, ctx);
            // SAFETY: a live communicator; the memory is a live allocation of this
            // device that the window holds; `slot` stays valid until NCCL is done.
            unsafe { lib.ncclCommWindowRegister(raw, addr as *mut c_void, bytes, slot, flags)? }
        };
        let done = super::issue::started("ncclCommWindowRegister", rc)
            .and_then(|()| super::comm::poll(self, device, timeout, "ncclCommWindowRegister"));
        match done {
            Ok(()) => {
                // SAFETY: NCCL completed the registration: the slot is written and
                // no longer NCCL's.
                let win = unsafe { Box::from_raw(slot) };
                Ok(*win as usize)
            }
            // On any error NCCL's registration job may still write the slot (a
            // timeout; an abort from another thread, seen here as the communicator
            // gone, while the job runs): its 8 bytes are leaked, never freed under it.
            Err(e) => Err(e),
        }
    }

    /// `ncclCommWindowDeregister`; nothing when the communicator is gone.
    pub fn deregister_window(&self, device: &CudaDevice, win: usize) -> Result<()> {
        let lib = lib()?;
        let _guard = device.nccl_lock();
        let Ok(raw) = self.raw() else {
            return Ok(());
        };
        let _ctx = device.bind()?;
        // SAFETY: a live communicator and a window its registration returned,
        // released once, after every operation issued on its memory completed.
        check("ncclCommWindowDeregister", unsafe {
            lib.ncclCommWindowDeregister(raw, win as nccl_sys::ncclWindow_t)?
        })
    }
}
