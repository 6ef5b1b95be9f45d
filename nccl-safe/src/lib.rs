//! Safe bindings to NCCL.
//!
//! Today this crate reports what was loaded ([`nccl_version`], [`cuda_driver_version`])
//! and turns NCCL's return codes into [`Error`] through one path. Devices, streams,
//! events, buffers and communicators on the `cuda` and `sim` drivers build on it.
//!
//! ```
//! let header = nccl_safe::nccl_header_version();
//! let loaded = nccl_safe::nccl_version()?;
//! println!("NCCL {loaded} loaded, built against {header}");
//! # Ok::<(), nccl_safe::Error>(())
//! ```

mod error;
mod version;

pub use error::{Error, Result, ResultCode};
pub use version::{
    Version, cuda_driver_version, cuda_header_version, nccl_header_version, nccl_version,
};

pub(crate) use error::check;
