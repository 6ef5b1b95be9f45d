//! The built-in elementwise kernels: the PTX of `ptx.rs`, loaded into the device's
//! primary context when the device is opened.

use std::ffi::CString;
use std::ptr;

use nccl_sys as sys;

use super::CudaDevice;
use crate::base::types::Elementwise;
use crate::error::check_cuda;
use crate::{DType, Error, Result};

/// The loaded module and its functions.
pub(super) struct Kernels {
    _module: sys::CUmodule,
    pub(super) fill64: sys::CUfunction,
    table: Vec<(Elementwise, DType, sys::CUfunction)>,
    non_finite: Vec<(DType, sys::CUfunction)>,
}

// SAFETY: module and function handles are immutable driver objects.
unsafe impl Send for Kernels {}
// SAFETY: as above.
unsafe impl Sync for Kernels {}

impl Kernels {
    pub(super) fn load(device: &CudaDevice) -> Result<Kernels> {
        let _ctx = device.bind()?;
        let lib = device.lib;
        let ptx = CString::new(super::ptx::module()).map_err(|_| Error::InvalidArgument {
            op: "kernel load",
            reason: "the PTX contains a NUL byte".into(),
        })?;
        let mut module = ptr::null_mut();
        // SAFETY: a NUL-terminated PTX image; writes one module handle.
        check_cuda("cuModuleLoadData", unsafe {
            lib.cuModuleLoadData(&mut module, ptx.as_ptr().cast())?
        })?;
        let get = |name: &str| -> Result<sys::CUfunction> {
            let cname = CString::new(name).expect("kernel names have no NUL");
            let mut f = ptr::null_mut();
            // SAFETY: a loaded module and a NUL-terminated name.
            check_cuda("cuModuleGetFunction", unsafe {
                lib.cuModuleGetFunction(&mut f, module, cname.as_ptr())?
            })?;
            Ok(f)
        };
        let fill64 = get("nccl_rs_fill64")?;
        let mut table = Vec::new();
        for dtype in DType::ALL {
            for op in [Elementwise::AddScalar, Elementwise::Scale] {
                table.push((op, dtype, get(&super::ptx::kernel_name(op, dtype))?));
            }
        }
        let mut non_finite = Vec::new();
        for dtype in super::ptx::FLOATS {
            non_finite.push((dtype, get(&super::ptx::non_finite_name(dtype))?));
        }
        Ok(Kernels {
            _module: module,
            fill64,
            table,
            non_finite,
        })
    }

    /// Unloads the module (the device's context must be current).
    pub(super) fn unload(self, lib: &sys::Cuda) {
        // SAFETY: the module was loaded by `load` and no kernel of it is launched
        // again (the device is being dropped).
        let _ = unsafe { lib.cuModuleUnload(self._module) };
    }

    /// The non-finite scan of float type `dtype`.
    pub(super) fn non_finite(&self, dtype: DType) -> Option<sys::CUfunction> {
        self.non_finite
            .iter()
            .find(|(d, _)| *d == dtype)
            .map(|(_, f)| *f)
    }

    /// The kernel of `op` on `dtype`; the fp8 types have none.
    pub(super) fn get(&self, op: Elementwise, dtype: DType) -> Result<sys::CUfunction> {
        self.table
            .iter()
            .find(|(o, d, _)| *o == op && *d == dtype)
            .map(|(_, _, f)| *f)
            .ok_or(Error::Unsupported {
                driver: crate::base::types::DriverKind::Cuda,
                what: "built-in elementwise ops on fp8",
            })
    }
}
