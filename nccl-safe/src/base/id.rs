//! [`UniqueId`]: the 128 bytes that name a communicator's rendezvous, as plain data:
//! a random sim id, the sim's magic prefix (which the drivers read), and the checked
//! conversions from and to bytes and hex. The ways to make an id that ask a driver or
//! NCCL (`UniqueId::new`, `for_driver`, `nccl`, `sim_root_name`) are in `comm/id.rs`.

use std::fmt;
use std::time::Instant;

use crate::{Error, Result};

/// The first bytes of every id made for the sim driver.
pub(crate) const SIM_MAGIC: &[u8; 8] = b"ncclrsim";

/// The 128 bytes that name a communicator's rendezvous. Rank 0 creates it and sends
/// it to the others out of band (a file, a pipe, the environment, a store, MPI).
///
/// As NCCL's id holds the address of its bootstrap root, a sim id names a rendezvous
/// root that any process of this host, run by the same user, can reach: passing the
/// 128 bytes is all a multi-process program needs, whatever the driver. The root is an
/// abstract Unix socket derived from the id (nothing in the file system, gone with
/// the process that hosts it, even after a SIGKILL), hosted by the first rank to join
/// until every rank has joined; both sides check each other's user id. Ids are
/// single-use, as NCCL's are.
///
/// ```
/// let id = nccl_safe::UniqueId::random();
/// let copy = nccl_safe::UniqueId::from_bytes(id.as_bytes())?;
/// assert_eq!(id, copy);
/// assert!(id.is_sim());
/// assert!(!format!("{id:?}").contains(", ")); // Debug prints a fingerprint only
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId(pub(crate) [u8; 128]);

impl UniqueId {
    /// A random sim id, without libnccl. Ranks in threads of this process and in other
    /// processes of this host join it alike. NCCL refuses it (the cuda driver says so
    /// at init instead of trying to reach an address that is not one).
    pub fn random() -> UniqueId {
        use std::hash::{BuildHasher, Hasher};
        let state = std::collections::hash_map::RandomState::new();
        let mut bytes = [0u8; 128];
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = state.build_hasher();
            h.write_usize(i);
            h.write_u128(Instant::now().elapsed().as_nanos());
            h.write_u32(std::process::id());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
        bytes[..8].copy_from_slice(SIM_MAGIC);
        UniqueId(bytes)
    }

    /// Whether this id was made for the sim driver.
    pub fn is_sim(&self) -> bool {
        &self.0[..8] == SIM_MAGIC
    }

    /// The id as text (256 hex digits), to pass through an environment variable or a
    /// command line; [`UniqueId::from_hex`] reads it back.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// An id from [`UniqueId::to_hex`]'s text.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming what is wrong with the text.
    pub fn from_hex(text: &str) -> Result<UniqueId> {
        let t = text.trim();
        let bad = |reason: String| Error::InvalidArgument {
            op: "unique id from hex",
            reason,
        };
        if t.len() != 256 {
            return Err(bad(format!("{} hex digits, 256 expected", t.len())));
        }
        let mut bytes = [0u8; 128];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&t[2 * i..2 * i + 2], 16).map_err(|_| {
                bad(format!(
                    "{:?} at {} is not hex",
                    &t[2 * i..2 * i + 2],
                    2 * i
                ))
            })?;
        }
        Ok(UniqueId(bytes))
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
