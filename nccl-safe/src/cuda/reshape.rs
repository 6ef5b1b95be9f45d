//! Changing a communicator's membership on the cuda driver: `ncclCommRevoke` to
//! quiescence, `ncclCommShrink`, `ncclCommGetUniqueId` and `ncclCommGrow`. Each new
//! communicator is made as a split's is (`comm.rs`): non-blocking, polled without the
//! NCCL lock, its out-slot on the heap and kept with the parent when the parent's
//! poll cannot confirm that NCCL is done with it.

use std::ptr;
use std::time::Duration;

use nccl_sys as sys;

use super::CudaDevice;
use super::comm::{CudaComm, RawConfig, lib, poll, settle};
use super::issue::started;
use crate::base::config::Config;
use crate::{Error, Result, check};

/// NCCL returned without a communicator for a rank that must get one.
fn no_child(call: &'static str) -> Error {
    Error::InvalidUsage {
        op: call,
        reason: "NCCL made no communicator for this rank".into(),
    }
}

/// The raw form of a 128-byte id.
pub(crate) fn raw_id(id: &[u8; 128]) -> sys::ncclUniqueId {
    let mut raw = sys::ncclUniqueId::default();
    for (c, b) in raw.internal.iter_mut().zip(id.iter()) {
        *c = *b as std::ffi::c_char;
    }
    raw
}

impl CudaComm {
    /// `ncclCommRevoke`, then polls until NCCL reports the communicator quiescent
    /// (its state leaves `ncclInProgress`), at most `timeout`. A communicator revoked
    /// after a peer's failure may settle in that failure's error rather than
    /// `ncclSuccess`: quiescent all the same (the error is the reason for the revoke,
    /// and the shrink that follows says whether NCCL can still use it).
    pub fn revoke_quiesced(&self, device: &CudaDevice, timeout: Duration) -> Result<()> {
        if !self.revoke(device) {
            return Err(Error::InvalidUsage {
                op: "revoke",
                reason: "ncclCommRevoke failed (or the loaded NCCL lacks it)".into(),
            });
        }
        let state = settle(self, device, timeout, "ncclCommRevoke")?;
        if state != sys::ncclSuccess {
            log::debug!("ncclCommRevoke: the communicator settled in state {state}");
        }
        Ok(())
    }

    /// `ncclCommShrink` without the ranks of `exclude`; `abort_first` passes
    /// `NCCL_SHRINK_ABORT` (in-flight operations of the parent are stopped first).
    pub fn shrink(
        &self,
        device: &CudaDevice,
        exclude: &[usize],
        abort_first: bool,
        config: &Config,
        timeout: Duration,
    ) -> Result<(usize, usize, CudaComm)> {
        let lib = lib()?;
        let mut list: Vec<i32> = exclude.iter().map(|&r| r as i32).collect();
        let flags = if abort_first {
            sys::NCCL_SHRINK_ABORT
        } else {
            sys::NCCL_SHRINK_DEFAULT
        } as i32;
        let child = self.child(
            device,
            "ncclCommShrink",
            config,
            timeout,
            |parent, slot, cfg| {
                // SAFETY: a live parent; the list is read (and sorted) during the
                // call; the out-slot and the config are on the heap and outlive NCCL's
                // use of them.
                Ok(unsafe {
                    lib.ncclCommShrink(
                        parent,
                        list.as_mut_ptr(),
                        list.len() as i32,
                        slot,
                        cfg,
                        flags,
                    )?
                })
            },
        )?;
        child.ok_or_else(|| no_child("ncclCommShrink"))
    }

    /// `ncclCommGetUniqueId`: the id a grow's new ranks join with.
    pub fn grow_id(&self, device: &CudaDevice) -> Result<[u8; 128]> {
        let lib = lib()?;
        let mut raw = sys::ncclUniqueId::default();
        {
            let _guard = device.nccl_lock();
            let comm = self.raw()?;
            let _ctx = device.bind()?;
            // SAFETY: a live communicator; writes one id.
            check("ncclCommGetUniqueId", unsafe {
                lib.ncclCommGetUniqueId(comm, &mut raw)?
            })?;
        }
        let mut id = [0u8; 128];
        for (b, c) in id.iter_mut().zip(raw.internal.iter()) {
            *b = *c as u8;
        }
        Ok(id)
    }

    /// `ncclCommGrow` as an existing rank: `id` on the rank that made it, `None` on
    /// the others.
    pub fn grow(
        &self,
        device: &CudaDevice,
        size: usize,
        id: Option<&[u8; 128]>,
        config: &Config,
        timeout: Duration,
    ) -> Result<CudaComm> {
        let lib = lib()?;
        let raw = id.map(raw_id);
        let child = self.child(
            device,
            "ncclCommGrow",
            config,
            timeout,
            |parent, slot, cfg| {
                let id_ptr = raw
                    .as_ref()
                    .map_or(ptr::null(), |r| r as *const sys::ncclUniqueId);
                // SAFETY: a live parent; the id (or null, as NCCL asks of the ranks that
                // did not make it) is read during the call; slot and config as in `child`.
                Ok(unsafe { lib.ncclCommGrow(parent, size as i32, id_ptr, -1, slot, cfg)? })
            },
        )?;
        child
            .map(|(_, _, c)| c)
            .ok_or_else(|| no_child("ncclCommGrow"))
    }
}

/// `ncclCommGrow` as a new rank `rank` of `size`, with the id an existing rank made.
pub(crate) fn join_grown(
    device: &CudaDevice,
    rank: usize,
    size: usize,
    id: &[u8; 128],
    config: &Config,
    timeout: Duration,
) -> Result<CudaComm> {
    let lib = lib()?;
    let mut cfg = RawConfig::new(config)?;
    let mut comm: sys::ncclComm_t = ptr::null_mut();
    let raw = raw_id(id);
    let rc = {
        let _guard = device.nccl_lock();
        let _ctx = device.bind()?;
        // SAFETY: no parent (null, as NCCL asks of new ranks); a valid id and
        // out-pointer; the config stays on the heap with the communicator.
        unsafe {
            lib.ncclCommGrow(
                ptr::null_mut(),
                size as i32,
                &raw,
                rank as i32,
                &mut comm,
                cfg.as_mut_ptr(),
            )?
        }
    };
    let created = CudaComm::from_parts(comm, cfg);
    if let Err(e) = started("ncclCommGrow", rc) {
        if !comm.is_null() {
            let _ = created.abort(device);
        }
        return Err(e);
    }
    if let Err(e) = poll(&created, device, timeout, "ncclCommGrow") {
        let _ = created.abort(device);
        return Err(e);
    }
    Ok(created)
}
