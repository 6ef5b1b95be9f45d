//! Eager connection (Decision 6): whether NCCL connects peers lazily, and the warm-up
//! operations a group runs at creation when it does.

use std::panic::Location;

use nccl_safe::{DType, DeviceBuffer, ReduceOp};

use crate::Result;
use crate::process_group::{OpInfo, ProcessGroup};
use crate::work::WorkSet;

/// Whether NCCL connects peers lazily (`NCCL_RUNTIME_CONNECT`, 1 by default since
/// NCCL 2.22), and where the answer came from.
pub fn runtime_connect() -> (bool, &'static str) {
    if let Ok(lib) = nccl_sys::nccl() {
        if lib.has_function("ncclParamBind") == Some(true) {
            for key in [c"RUNTIME_CONNECT", c"NCCL_RUNTIME_CONNECT"] {
                let mut handle: nccl_sys::ncclParamHandle_t = std::ptr::null_mut();
                // SAFETY: a NUL-terminated key and a valid out-pointer.
                let bound = unsafe { lib.ncclParamBind(&mut handle, key.as_ptr()) };
                if bound == Ok(nccl_sys::ncclSuccess) {
                    let mut v: i64 = 0;
                    // SAFETY: a bound handle; writes one i64.
                    if unsafe { lib.ncclParamGetI64(handle, &mut v) } == Ok(nccl_sys::ncclSuccess) {
                        return (v != 0, "NCCL's parameter API");
                    }
                }
            }
        }
    }
    match std::env::var("NCCL_RUNTIME_CONNECT")
        .ok()
        .as_deref()
        .map(str::trim)
    {
        Some("0") => (false, "NCCL_RUNTIME_CONNECT=0 in the environment"),
        Some(_) => (true, "NCCL_RUNTIME_CONNECT in the environment"),
        None => (true, "NCCL's default (NCCL_RUNTIME_CONNECT unset)"),
    }
}

impl ProcessGroup {
    /// Decision 6: when NCCL would connect lazily, connect now with warm-up
    /// operations, so that no later call blocks the host on a peer.
    #[track_caller]
    pub(crate) fn connect(&self) -> Result<()> {
        let (lazy, source) = runtime_connect();
        let _span = crate::trace::connect(&self.inner.options.name, self.inner.rank, lazy);
        if !lazy || !self.inner.options.eager_connect {
            log::info!(
                "group {}: peers connect {} ({source})",
                self.inner.options.name,
                if lazy {
                    "lazily (eager_connect off)"
                } else {
                    "at init"
                }
            );
            return Ok(());
        }
        let _warmup = crate::trace::warmup(
            &self.inner.options.name,
            self.inner.rank,
            self.inner.options.p2p,
        );
        let mut warm = DeviceBuffer::<u8>::zeroed(&self.inner.stream, 1)?;
        let mut works = WorkSet::new();
        let info = OpInfo::new("warmup", DType::U8, 1, Location::caller())
            .library("<process group warm-up>");
        works.push(self.submit(info, |c, s| {
            c.all_reduce_in_place(&mut warm, ReduceOp::Sum, s)
        })?);
        if self.inner.options.p2p && self.inner.size > 1 {
            let n = self.inner.size;
            let send = DeviceBuffer::<u8>::zeroed(&self.inner.stream, n)?;
            let mut recv = DeviceBuffer::<u8>::zeroed(&self.inner.stream, n)?;
            // A send to and a receive from every peer, in one group.
            let rank = self.inner.rank;
            let info = OpInfo::new("warmup_p2p", DType::U8, n, Location::caller())
                .library("<process group warm-up>");
            works.push(self.submit(info, |comm, stream| {
                nccl_safe::group(|_| {
                    let mut rv = recv.as_view_mut();
                    for peer in (0..n).filter(|&p| p != rank) {
                        comm.send(&send.view(peer..peer + 1)?, peer, stream)?;
                        comm.recv(&mut rv.slice_mut(peer..peer + 1)?, peer, stream)?;
                    }
                    Ok(())
                })
            })?);
        }
        works.wait_host(self.inner.options.timeout)?;
        log::info!(
            "group {}: NCCL connects lazily ({source}); ran warm-up collectives at creation{}; \
             other algorithms may still connect lazily (set NCCL_RUNTIME_CONNECT=0 before start)",
            self.inner.options.name,
            if self.inner.options.p2p {
                " and a send/recv with every peer"
            } else {
                ""
            }
        );
        Ok(())
    }
}
