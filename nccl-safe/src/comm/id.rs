//! The ways to make a [`UniqueId`] that ask a driver or NCCL; the id itself, as plain
//! data, is `base/id.rs`.

use crate::base::types::DriverKind;
use crate::{Result, UniqueId};

impl UniqueId {
    /// A new id for the driver `NCCL_RS_DRIVER` selects ([`crate::selected_driver`]):
    /// NCCL's own on cuda ([`UniqueId::nccl`]), a sim id on the sim
    /// ([`UniqueId::random`]).
    ///
    /// # Errors
    ///
    /// As [`crate::selected_driver`]; on cuda as [`UniqueId::nccl`].
    pub fn new() -> Result<UniqueId> {
        Self::for_driver(crate::selected_driver()?.kind)
    }

    /// A new id for `driver`.
    ///
    /// # Errors
    ///
    /// On cuda as [`UniqueId::nccl`].
    pub fn for_driver(driver: DriverKind) -> Result<UniqueId> {
        match driver {
            DriverKind::Cuda => Self::nccl(),
            DriverKind::Sim => Ok(Self::random()),
        }
    }

    /// A new id from NCCL (`ncclGetUniqueId`): names the bootstrap root NCCL starts in
    /// this process. Needs libnccl (not a GPU). The sim accepts it too.
    ///
    /// # Errors
    ///
    /// [`Error::Load`](crate::Error::Load) without libnccl;
    /// [`Error::Nccl`](crate::Error::Nccl) if NCCL fails (no network interface for its
    /// bootstrap, for instance).
    pub fn nccl() -> Result<UniqueId> {
        let lib = nccl_sys::nccl()?;
        let mut raw = nccl_sys::ncclUniqueId::default();
        // SAFETY: writes one ncclUniqueId.
        crate::check("ncclGetUniqueId", unsafe { lib.ncclGetUniqueId(&mut raw)? })?;
        let mut bytes = [0u8; 128];
        for (b, c) in bytes.iter_mut().zip(raw.internal.iter()) {
            *b = *c as u8;
        }
        Ok(UniqueId(bytes))
    }

    /// The name of the abstract Unix socket of this id's sim rendezvous root (as
    /// `/proc/net/unix` shows it, with a leading `@`), for diagnostics: it exists only
    /// while a rank of this host hosts the root.
    pub fn sim_root_name(&self) -> String {
        format!("@{}", crate::sim::root_name(&self.0))
    }
}
