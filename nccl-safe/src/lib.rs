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
//! Versions: [`nccl_version`] (loaded library), [`nccl_header_version`],
//! [`cuda_driver_version`].

mod comm;
mod cuda;
mod device;
mod dtype;
mod error;
mod memory;
mod ptx;
mod sim;
mod stream;
mod version;

pub use comm::{
    AbortHandle, AsDeviceView, AsDeviceViewMut, Communicator, Config, Group, ReduceOp, UniqueId,
    group,
};
pub use device::{Device, DriverKind, DriverSelection, selected_driver};
pub use dtype::{DType, DataType};
pub use error::{Error, Result, ResultCode};
pub use memory::{DeviceBuffer, DevicePtr, DeviceView, DeviceViewMut, HostBuffer};
pub use stream::{Event, Gate, Stream, StreamOptions};
pub use version::{
    Version, cuda_driver_version, cuda_header_version, nccl_header_version, nccl_version,
};

pub(crate) use error::check;

/// Locks a mutex, ignoring poison: a panic elsewhere (a user's host function, a
/// failed test thread) must not make every later call panic too.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `half` crate, whose `f16` and `bf16` are data types here.
pub use half;

/// The PTX of the built-in elementwise kernels (for inspection and for checking it
/// with `ptxas`).
pub fn builtin_kernels_ptx() -> String {
    ptx::module()
}
