//! [`Version`]: a library version and how NCCL and CUDA encode it. (Which versions
//! are loaded, and what they can do, is `features.rs`.)

use std::fmt;

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
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

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
