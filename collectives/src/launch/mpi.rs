//! [`ProcessGroup::from_mpi`] (cargo feature `mpi`): a group over the ranks of an MPI
//! communicator, for sites whose jobs already run MPI. The unique id is broadcast from
//! rank 0 over MPI (no store), and the local rank and local size come from a
//! shared-memory split of the communicator (`MPI_Comm_split_type` with
//! `MPI_COMM_TYPE_SHARED`), which groups the processes of one node.
//!
//! Built on the `mpi` crate (rsmpi) rather than hand-written FFI: MPI's ABI differs
//! between implementations (Open MPI's handles are pointers, MPICH's are integers),
//! and the crate's build generates the bindings from the installed `mpi.h`.
//!
//! Failures are not propagated through a store here: a rank's timeout aborts its own
//! group, and `MPI_Abort` is the program's call to make.

use std::time::Duration;

use mpi::topology::Communicator as MpiCommunicator;
use mpi::traits::Root;
use nccl_safe::UniqueId;

use super::{Launch, Overrides};
use crate::{Error, Options, ProcessGroup, Result};

impl ProcessGroup {
    /// Creates a group over the ranks of `comm` (collective over `comm`: every rank
    /// calls it): rank and size from `comm`, the device from the node-local rank
    /// ([`Launch::device`]), the unique id made by rank 0 and broadcast over MPI.
    ///
    /// # Errors
    ///
    /// As [`Launch::device`] and [`ProcessGroup::new`].
    pub fn from_mpi<C: MpiCommunicator>(comm: &C, options: Options) -> Result<ProcessGroup> {
        let launch = launch_of(comm)?;
        let device = launch.device()?;
        // The id and a last byte saying whether rank 0 could make one (an error there
        // must not leave the others waiting in the group's init).
        let mut bytes = [0u8; 129];
        let made = if launch.rank() == 0 {
            let id = UniqueId::for_driver(device.driver());
            if let Ok(id) = &id {
                bytes[..128].copy_from_slice(id.as_bytes());
                bytes[128] = 1;
            }
            Some(id)
        } else {
            None
        };
        comm.process_at_rank(0).broadcast_into(&mut bytes[..]);
        if let Some(Err(e)) = made {
            return Err(e.into());
        }
        if bytes[128] != 1 {
            return Err(Error::Rendezvous {
                addr: "MPI".into(),
                group: options.name.clone(),
                rank: launch.rank(),
                what: "rank 0 could not make the unique id (see its error)".into(),
                missing: vec![0],
                waited: Duration::ZERO,
            });
        }
        let id = UniqueId::from_bytes(&bytes[..128])?;
        ProcessGroup::new(&device, launch.rank(), launch.world_size(), &id, options)
    }
}

/// The [`Launch`] of this process in `comm`: rank and size, and the local ones from a
/// shared-memory split.
pub fn launch_of<C: MpiCommunicator>(comm: &C) -> Result<Launch> {
    let rank = usize::try_from(comm.rank()).unwrap_or(0);
    let size = usize::try_from(comm.size()).unwrap_or(1);
    let node = comm.split_shared(comm.rank());
    let overrides = Overrides {
        rank: Some(rank),
        world_size: Some(size),
        local_rank: Some(usize::try_from(node.rank()).unwrap_or(0)),
        local_world_size: Some(usize::try_from(node.size()).unwrap_or(1)),
        ..Overrides::default()
    };
    Ok(Launch::from_vars(&|_| None, &overrides)?)
}
