//! Versions of the loaded libraries and of the headers the bindings came from.

use std::fmt;

use nccl_sys as sys;

use crate::error::check_cuda;
use crate::{Result, check};

/// A library version, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch level (0 for CUDA versions, which have none).
    pub patch: u32,
}

impl Version {
    /// Decodes `NCCL_VERSION_CODE` / `ncclGetVersion`: `major*10000 + minor*100 +
    /// patch` since 2.9, `major*1000 + minor*100 + patch` before. Negative codes,
    /// which no library returns, decode as 0.0.0.
    pub fn from_nccl_code(code: i32) -> Version {
        let code = u32::try_from(code).unwrap_or(0);
        if code < 10000 {
            Version {
                major: code / 1000,
                minor: code % 1000 / 100,
                patch: code % 100,
            }
        } else {
            Version {
                major: code / 10000,
                minor: code % 10000 / 100,
                patch: code % 100,
            }
        }
    }

    /// Decodes `CUDA_VERSION` / `cuDriverGetVersion`: `major*1000 + minor*10`.
    pub fn from_cuda_code(code: i32) -> Version {
        let code = u32::try_from(code).unwrap_or(0);
        Version {
            major: code / 1000,
            minor: code % 1000 / 10,
            patch: 0,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The version of the libnccl loaded at run time (`ncclGetVersion`).
///
/// # Errors
///
/// [`Error::Load`](crate::Error::Load) when libnccl cannot be loaded,
/// [`Error::Nccl`](crate::Error::Nccl) when the call fails.
pub fn nccl_version() -> Result<Version> {
    let lib = sys::nccl()?;
    let mut code = 0;
    // SAFETY: ncclGetVersion writes one int through a valid pointer.
    check("ncclGetVersion", unsafe { lib.ncclGetVersion(&mut code)? })?;
    Ok(Version::from_nccl_code(code))
}

/// The version of the `nccl.h` the bindings were generated from.
pub fn nccl_header_version() -> Version {
    Version::from_nccl_code(sys::HEADER_NCCL_VERSION_CODE)
}

/// The newest CUDA version the installed GPU driver supports (`cuDriverGetVersion`).
///
/// # Errors
///
/// [`Error::Load`](crate::Error::Load) when there is no CUDA driver library, as on a
/// machine without a GPU; the error names every library tried.
/// [`Error::Cuda`](crate::Error::Cuda) when the driver fails the call.
pub fn cuda_driver_version() -> Result<Version> {
    let lib = sys::cuda()?;
    let mut code = 0;
    // SAFETY: cuDriverGetVersion writes one int and needs no cuInit.
    check_cuda("cuDriverGetVersion", unsafe {
        lib.cuDriverGetVersion(&mut code)?
    })?;
    Ok(Version::from_cuda_code(code))
}

/// The `CUDA_VERSION` of the `cuda.h` the bindings were generated from.
pub fn cuda_header_version() -> Version {
    Version::from_cuda_code(sys::HEADER_CUDA_VERSION)
}
