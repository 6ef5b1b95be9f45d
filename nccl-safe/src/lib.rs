//! Safe bindings to NCCL on a real or simulated GPU driver.
//!
//! - [`Device`]: a GPU on the `cuda` driver (the CUDA driver API, loaded at run
//!   time) or the `sim` driver (simulated GPUs on host threads that move real data).
//!   [`Device::from_env`] follows `NCCL_RS_DRIVER=cuda|sim|auto`.
//! - [`Stream`], [`Event`], [`Gate`]: in-order queues, markers, and a host-released
//!   flag that holds a stream back (a late peer on one GPU).
//! - [`DeviceBuffer`] and its views, [`HostBuffer`]: memory that is safe by
//!   construction. Work on one buffer from several streams is ordered without
//!   explicit waits; disjoint views stay independent; dropping never blocks the host.
//! - [`DataType`]: the element types NCCL reduces.
//! - [`Communicator`]: one rank of an NCCL communicator, its stream-ordered
//!   collectives, and revoke, shrink and grow with NCCL's rules in the types
//!   ([`Revoked`], [`Shrunk`], [`GrowId`]).
//! - [`Error`]: the one error type; every driver and NCCL return code becomes one in
//!   one place.
//!
//! ```
//! use nccl_safe::{Device, DeviceBuffer, Stream};
//! let dev = Device::sim(0)?;
//! let (a, b) = (Stream::new(&dev)?, Stream::new(&dev)?);
//! let mut x = DeviceBuffer::from_slice(&a, &[1i32, 2, 3])?;
//! x.add_scalar(&a, 100)?;           // enqueued on stream a
//! assert_eq!(x.to_vec(&b)?, [101, 102, 103]); // b waits for a by itself
//! # Ok::<(), nccl_safe::Error>(())
//! ```
//!
//! With the `cudarc` feature, the module `cudarc_interop` connects this library's streams and
//! buffers with the [`cudarc`](https://docs.rs/cudarc) crate's, keeping the ordering
//! guarantees (its module docs hold the rules).
//!
//! Versions: [`nccl_version`] (loaded library), [`nccl_header_version`],
//! [`cuda_driver_version`].
//!
//! Layers, top first: `comm/` (communicators) over `device.rs`, `stream.rs` and
//! `memory/` (devices, streams, buffers), over `driver/` (the one dispatch) and
//! `features.rs`, over `cuda/` | `sim/` (the drivers, which never name each other),
//! over `base/` (the shared vocabulary) and the leaves `dtype`, `error`, `fp8`, `sync`,
//! `version`. Each layer imports only from those below it (`ci/import-graph` checks
//! it); crate-root items such as `crate::Error` are fine from anywhere.

// docs.rs marks what each feature adds.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod base;
mod comm;
mod cuda;
#[cfg(feature = "cudarc")]
pub mod cudarc_interop;
mod device;
mod driver;
mod dtype;
mod error;
mod features;
mod fp8;
mod memory;
mod sim;
mod stream;
pub mod sync;
mod version;

pub use base::coll_config::{CollConfig, with_coll_config};
pub use base::config::Config;
pub use base::host_fn::refused_host_fn_calls;
pub use base::id::UniqueId;
pub use base::op::CallLabel;
pub use base::types::DriverKind;
pub use comm::{
    AbortHandle, Blocks, Communicator, Graph, Group, GrowId, MemStats, RankMap, ReduceOp,
    Registration, Revoked, SIM_LINK_BANDWIDTH, SIM_STEP_LATENCY, Shrunk, SignalWait,
    WINDOW_ALIGNMENT, Window, WindowFlags, estimate, group, wait_for_teardowns, with_call_label,
    with_checked_call_label, with_completion_event, with_launch_event,
};
pub use device::Device;
pub use driver::{DriverSelection, selected_driver};
pub use dtype::{DType, DataType};
pub use error::{Error, Result, ResultCode};
pub use features::{
    Feature, NcclFeatures, cuda_driver_version, cuda_header_version, nccl_features,
    nccl_header_version, nccl_version,
};
pub use fp8::{F8E4M3, F8E5M2};
pub use memory::{
    AsDeviceView, AsDeviceViewMut, DeviceBuffer, DevicePtr, DeviceView, DeviceViewMut, HostBuffer,
};
pub use sim::{SIM_PENDING_COLLECTIVES, SIM_PENDING_MESSAGES};
pub use stream::{Event, Gate, Stream, StreamOptions};
pub use version::Version;

pub(crate) use error::check;

/// The `half` crate, whose `f16` and `bf16` are data types here.
pub use half;

/// The PTX of the built-in elementwise kernels (for inspection and for checking it
/// with `ptxas`).
pub fn builtin_kernels_ptx() -> String {
    cuda::ptx::module()
}
