//! [`UniqueId`]: the 128 bytes that name a communicator's rendezvous.

use std::fmt;
use std::time::Instant;

use crate::{Error, Result};

/// The first bytes of every id made for the sim driver.
pub(crate) const SIM_MAGIC: &[u8; 8] = b"ncclrsim";

/// The 128 bytes that name a communicator's rendezvous. Rank 0 creates it and sends
/// it to the others out of band.
///
/// ```
/// let id = nccl_safe::UniqueId::random();
/// let copy = nccl_safe::UniqueId::from_bytes(id.as_bytes())?;
/// assert_eq!(id, copy);
/// assert!(!format!("{id:?}").contains(", ")); // Debug prints a fingerprint only
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId([u8; 128]);

impl UniqueId {
    /// A new id from NCCL (`ncclGetUniqueId`), usable on both drivers. Needs libnccl
    /// (not a GPU).
    ///
    /// # Errors
    ///
    /// [`Error::Load`] without libnccl; [`Error::Nccl`] if NCCL fails (no network
    /// interface for its bootstrap, for instance).
    pub fn new() -> Result<UniqueId> {
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

    /// A random id, without libnccl: good for the sim driver only (NCCL rejects it).
    pub fn random() -> UniqueId {
        use std::hash::{BuildHasher, Hasher};
        let state = std::collections::hash_map::RandomState::new();
        let mut bytes = [0u8; 128];
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = state.build_hasher();
            h.write_usize(i);
            h.write_u128(Instant::now().elapsed().as_nanos());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
        bytes[..8].copy_from_slice(SIM_MAGIC);
        UniqueId(bytes)
    }

    /// An id received from rank 0.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] unless `bytes` has exactly 128 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let arr: [u8; 128] = bytes.try_into().map_err(|_| Error::LengthMismatch {
            op: "unique id from bytes",
            expected: 128,
            actual: bytes.len(),
        })?;
        Ok(UniqueId(arr))
    }

    /// The 128 bytes, to send to the other ranks.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    fn fingerprint(&self) -> u64 {
        self.0.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        })
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId({:016x})", self.fingerprint())
    }
}
