//! NCCL's one-sided operations (`ncclPutSignal`, `ncclSignal`, `ncclWaitSignal`,
//! NCCL 2.29.2), each issued in a group of its own as a launch is, so that a
//! non-blocking communicator's enqueue is polled and confirmed the same way.

use std::ffi::c_void;

use nccl_sys as sys;

use super::CudaDevice;
use super::comm::{CudaComm, launch_group_with};
use super::issue::started;
use super::stream::CudaStream;
use crate::base::config::Config;
use crate::{DType, Result};

impl CudaComm {
    /// `ncclPutSignal` of `count` elements of `dtype` at `src` into window `win` of
    /// `peer` at byte `offset`, or `ncclSignal` without `src`. Signal index, context
    /// and flags are 0, the only values NCCL takes.
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal(
        &self,
        device: &CudaDevice,
        stream: &CudaStream,
        config: &Config,
        src: Option<(u64, usize, DType)>,
        peer: usize,
        win: usize,
        offset: usize,
    ) -> Result<()> {
        let part = (self, device, stream, &[][..], config, None);
        launch_group_with(&[part], &|lib, raw, s, _, _| match src {
            Some((addr, count, dtype)) => {
                // SAFETY: a live communicator and stream of this device; `src` lies
                // in a live symmetric window of this communicator that the caller's
                // tracked use keeps allocated until the put completes; `win` is a
                // live window of this communicator (the caller holds it) and the
                // bytes fit in it.
                let rc = unsafe {
                    lib.ncclPutSignal(
                        addr as *const c_void,
                        count,
                        dtype.to_nccl(),
                        peer as i32,
                        win as sys::ncclWindow_t,
                        offset,
                        0,
                        0,
                        0,
                        raw,
                        s,
                    )?
                };
                started("ncclPutSignal", rc)
            }
            None => {
                // SAFETY: a live communicator and stream of this device; no memory.
                let rc = unsafe { lib.ncclSignal(peer as i32, 0, 0, 0, raw, s)? };
                started("ncclSignal", rc)
            }
        })
    }

    /// `ncclWaitSignal` for `count` more signals from each `(peer, count)`.
    pub fn wait_signal(
        &self,
        device: &CudaDevice,
        stream: &CudaStream,
        config: &Config,
        waits: &[(usize, u32)],
    ) -> Result<()> {
        let descs: Vec<sys::ncclWaitSignalDesc_t> = waits
            .iter()
            .map(|&(peer, count)| sys::ncclWaitSignalDesc_t {
                opCnt: count as i32,
                peer: peer as i32,
                sigIdx: 0,
                ctx: 0,
            })
            .collect();
        let part = (self, device, stream, &[][..], config, None);
        launch_group_with(&[part], &|lib, raw, s, _, _| {
            // SAFETY: a live communicator and stream of this device; `descs` holds
            // `descs.len()` descriptors that outlive the call, and NCCL only reads them.
            let rc = unsafe {
                lib.ncclWaitSignal(descs.len() as i32, descs.as_ptr().cast_mut(), raw, s)?
            };
            started("ncclWaitSignal", rc)
        })
    }
}
