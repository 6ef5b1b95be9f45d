//! Small types every layer shares: which driver, and which built-in elementwise op.
//! A leaf: it depends on nothing in the crate, so errors and both drivers can name
//! these without an import cycle.

use std::fmt;

/// Which driver runs a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DriverKind {
    /// Real GPUs through the CUDA driver API (`libcuda.so.1`).
    Cuda,
    /// Simulated GPUs on host threads that move and reduce real data.
    Sim,
}

impl fmt::Display for DriverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DriverKind::Cuda => "cuda",
            DriverKind::Sim => "sim",
        })
    }
}

/// The built-in in-place elementwise ops (besides fill and copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elementwise {
    /// `x[i] = x[i] + s`
    AddScalar,
    /// `x[i] = x[i] * s`
    Scale,
}

/// NCCL's memory statistics of one communicator ([`Communicator::mem_stats`](crate::Communicator::mem_stats)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemStats {
    /// Bytes of device memory NCCL frees on suspend (`ncclStatGpuMemSuspend`).
    pub suspendable: u64,
    /// Bytes NCCL keeps while suspended (`ncclStatGpuMemPersist`).
    pub persistent: u64,
    /// All the device memory NCCL tracks for it (`ncclStatGpuMemTotal`).
    pub total: u64,
    /// Whether its memory is suspended now (`ncclStatGpuMemSuspended`).
    pub suspended: bool,
}
