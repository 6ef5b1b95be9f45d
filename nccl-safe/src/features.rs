//! What the loaded NCCL can do, read at run time: the versions of the loaded libraries
//! and of the headers, [`nccl_features`] (each [`Feature`] with the NCCL version that
//! introduced it), and the check that refuses a call the loaded NCCL cannot make with
//! [`Error::UnsupportedByNccl`] ("unsupported by NCCL x.y.z, needs a.b.c").
//!
//! The minimum versions come from NCCL's release notes (the message of each release's
//! commit in NVIDIA's repository) and, for the parameter API, from the release tags'
//! `nccl.h`:
//!
//! | feature | first release | release notes |
//! |---|---|---|
//! | several bootstrap roots (`ncclCommInitRankScalable`) | 2.23.4 | the 2.23.4 release's `nccl.h` first declares it ("Allows to use more than one ncclUniqueId") |
//! | fp8 data types (`ncclFloat8e4m3`, `ncclFloat8e5m2`) | 2.24.3 | "Add support for e5m2 and e4m3 8-bit floating point operations" |
//! | shrink (`ncclCommShrink`) | 2.27.3 | "Add a new ncclCommShrink() API call" |
//! | window registration (`ncclCommWindowRegister`) | 2.27.3 | "ncclCommWindowRegister() and ncclCommWindowDeregister()" |
//! | native all-to-all, gather, scatter (`ncclAlltoAll`, `ncclGather`, `ncclScatter`) | 2.28.3 | "Introduce new host collective APIs: ncclAlltoAll, ncclScatter, ncclGather" |
//! | revoke (`ncclCommRevoke`) | 2.28.7 | "New ncclCommRevoke API for fault tolerance" |
//! | grow (`ncclCommGrow`, `ncclCommGetUniqueId`) | 2.29.2 | the 2.29 user guide's "Growing a communicator"; the release tag's `nccl.h` declares both |
//! | parameter API (`ncclParamBind`, `ncclParamGet*`) | 2.30.4 | first declared in `nccl.h` by release 2.30.4 (commit "Move NCCL Parameter API to nccl.h"; 2.30.3 had it only internally) |
//! | one-sided put and signal (`ncclPutSignal`, `ncclSignal`, `ncclWaitSignal`) | 2.29.2 | the release's commit ("NCCL v2.29.2-1 Release") adds the three calls, with their checks (signal index, context and flags 0) |
//! | per-call config and launch-completion events (`ncclAllReduceConfig` and the other `nccl*Config` calls; the config's `launchCompletionEvent`) | 2.32.3 | the oldest `nccl.h` read that declares them (2.32.3, `ncclCollConfig_v23200`): the history of 2.31 and 2.32 was not available, so the gate may be later than NCCL's first release with them |
//!
//! A feature counts as supported when the loaded library is at least that version
//! and, for a feature that is a function, exports it (a library built without it
//! says so by its symbols, whatever its version).

use std::fmt;
use std::sync::OnceLock;

use nccl_sys as sys;

use crate::base::op::LaunchOp;
use crate::base::types::DriverKind;
use crate::error::{Error, check, check_cuda};
use crate::version::Version;
use crate::{DType, Result};

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

/// An NCCL feature that depends on the version (the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    /// `ncclMemAlloc` and `ncclCommRegister`: memory NCCL allocates
    /// ([`DeviceBuffer::alloc_nccl`](crate::DeviceBuffer::alloc_nccl)) and buffer
    /// registration ([`Communicator::register`](crate::Communicator::register)).
    Registration,
    /// `ncclGroupSimulateEnd`: NCCL's estimate of a group's time. NCCL makes it
    /// only for blocking communicators, so [`estimate`](crate::estimate) refuses
    /// cuda's; the sim's estimate honours the version its config emulates.
    GroupSimulate,
    /// `ncclCommInitRankScalable`: a communicator's init with several unique ids, one
    /// bootstrap root each ([`Communicator::init_scalable`](crate::Communicator::init_scalable)).
    ScalableInit,
    /// The fp8 data types ([`F8E4M3`](crate::F8E4M3), [`F8E5M2`](crate::F8E5M2)).
    Fp8,
    /// `ncclCommShrink`.
    Shrink,
    /// `ncclCommWindowRegister`.
    WindowRegistration,
    /// Native `ncclAlltoAll` (older libraries: grouped send/recv, which this library
    /// uses instead).
    AllToAll,
    /// Native `ncclGather` (older: grouped send/recv).
    Gather,
    /// Native `ncclScatter` (older: grouped send/recv).
    Scatter,
    /// `ncclCommRevoke` (older: only a full abort stops the kernels).
    Revoke,
    /// `ncclCommGrow` with `ncclCommGetUniqueId` (new ranks join a running
    /// communicator).
    Grow,
    /// `ncclCommSuspend`, `ncclCommResume` and `ncclCommMemStats`
    /// ([`Communicator::suspend`](crate::Communicator::suspend)).
    Suspend,
    /// The parameter API (`ncclParamBind`; older: the environment decides).
    ParamApi,
    /// Per-call configuration of collectives (`ncclAllReduceConfig` and the other
    /// `nccl*Config` calls, [`with_coll_config`](crate::with_coll_config)).
    CollConfig,
    /// Launch-completion events: NCCL records an event once it has launched a
    /// collective (the per-call config's `launchCompletionEvent`,
    /// [`with_launch_event`](crate::with_launch_event)).
    LaunchEvent,
    /// One-sided operations on windows (`ncclPutSignal`, `ncclSignal`,
    /// `ncclWaitSignal`, [`Communicator::put_signal`](crate::Communicator::put_signal)).
    OneSided,
}

impl Feature {
    /// Every feature, oldest first.
    pub const ALL: [Feature; 16] = [
        Feature::Registration,
        Feature::GroupSimulate,
        Feature::ScalableInit,
        Feature::Fp8,
        Feature::Shrink,
        Feature::WindowRegistration,
        Feature::AllToAll,
        Feature::Gather,
        Feature::Scatter,
        Feature::Revoke,
        Feature::Grow,
        Feature::OneSided,
        Feature::Suspend,
        Feature::ParamApi,
        Feature::CollConfig,
        Feature::LaunchEvent,
    ];

    /// The first NCCL release with it (the module's table).
    pub const fn min_version(self) -> Version {
        match self {
            Feature::Registration => Version::new(2, 19, 1),
            Feature::GroupSimulate => Version::new(2, 22, 3),
            Feature::ScalableInit => Version::new(2, 23, 4),
            Feature::Fp8 => Version::new(2, 24, 3),
            Feature::Shrink | Feature::WindowRegistration => Version::new(2, 27, 3),
            Feature::AllToAll | Feature::Gather | Feature::Scatter => Version::new(2, 28, 3),
            Feature::Revoke => Version::new(2, 28, 7),
            Feature::Grow | Feature::OneSided => Version::new(2, 29, 2),
            Feature::Suspend => Version::new(2, 29, 7),
            Feature::ParamApi => Version::new(2, 30, 4),
            Feature::CollConfig | Feature::LaunchEvent => Version::new(2, 32, 3),
        }
    }

    /// The NCCL function that provides it (`None` for the fp8 data types).
    pub const fn symbol(self) -> Option<&'static str> {
        match self {
            Feature::Registration => Some("ncclCommRegister"),
            Feature::GroupSimulate => Some("ncclGroupSimulateEnd"),
            Feature::ScalableInit => Some("ncclCommInitRankScalable"),
            Feature::Fp8 => None,
            Feature::Shrink => Some("ncclCommShrink"),
            Feature::WindowRegistration => Some("ncclCommWindowRegister"),
            Feature::AllToAll => Some("ncclAlltoAll"),
            Feature::Gather => Some("ncclGather"),
            Feature::Scatter => Some("ncclScatter"),
            Feature::Revoke => Some("ncclCommRevoke"),
            Feature::Grow => Some("ncclCommGrow"),
            Feature::OneSided => Some("ncclPutSignal"),
            Feature::Suspend => Some("ncclCommSuspend"),
            Feature::ParamApi => Some("ncclParamBind"),
            Feature::CollConfig | Feature::LaunchEvent => Some("ncclAllReduceConfig"),
        }
    }

    /// A short name.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Registration => "buffer registration",
            Feature::GroupSimulate => "group cost estimate",
            Feature::ScalableInit => "several bootstrap roots",
            Feature::Fp8 => "fp8 data types",
            Feature::Shrink => "shrink",
            Feature::WindowRegistration => "window registration",
            Feature::AllToAll => "native all-to-all",
            Feature::Gather => "native gather",
            Feature::Scatter => "native scatter",
            Feature::Revoke => "revoke",
            Feature::Grow => "grow",
            Feature::OneSided => "one-sided put and signal",
            Feature::Suspend => "suspend and resume",
            Feature::ParamApi => "parameter API",
            Feature::CollConfig => "per-call config",
            Feature::LaunchEvent => "launch-completion event",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one NCCL version (and its symbols) can do: see [`nccl_features`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NcclFeatures {
    /// The library's version.
    pub version: Version,
    /// Each feature of [`Feature::ALL`] and whether the library has it.
    pub supported: Vec<(Feature, bool)>,
}

impl NcclFeatures {
    /// The features of a library of `version` that exports the functions for which
    /// `exports` says `true`.
    pub fn of(version: Version, exports: impl Fn(&str) -> bool) -> NcclFeatures {
        NcclFeatures {
            version,
            supported: Feature::ALL
                .iter()
                .map(|&f| {
                    let has = version >= f.min_version() && f.symbol().is_none_or(&exports);
                    (f, has)
                })
                .collect(),
        }
    }

    /// Whether `feature` is supported.
    pub fn supports(&self, feature: Feature) -> bool {
        self.supported.iter().any(|&(f, has)| f == feature && has)
    }

    /// `Ok` when `feature` is supported.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedByNccl`] naming the feature, this version and the one
    /// needed.
    pub fn require(&self, feature: Feature) -> Result<()> {
        if self.supports(feature) {
            return Ok(());
        }
        Err(Error::UnsupportedByNccl {
            feature: feature.name(),
            loaded: self.version,
            needs: feature.min_version(),
        })
    }

    /// `Ok` when every operation's data type is supported (fp8 needs 2.24).
    pub(crate) fn require_ops(&self, ops: &[LaunchOp]) -> Result<()> {
        for op in ops {
            if op.config.is_some() {
                self.require(Feature::CollConfig)?;
            }
            if op.launch_event {
                self.require(Feature::LaunchEvent)?;
            }
            if DType::FP8.contains(&op.desc.dtype) && !self.supports(Feature::Fp8) {
                return Err(Error::UnsupportedByNccl {
                    feature: op.desc.dtype.name(),
                    loaded: self.version,
                    needs: Feature::Fp8.min_version(),
                });
            }
        }
        Ok(())
    }
}

/// What the loaded libnccl can do: its version and every [`Feature`], read now from
/// the library itself (its `ncclGetVersion` and its symbols).
///
/// ```no_run
/// let features = nccl_safe::nccl_features()?;
/// for (feature, has) in &features.supported {
///     println!("{feature}: {has}");
/// }
/// # Ok::<(), nccl_safe::Error>(())
/// ```
///
/// # Errors
///
/// As [`nccl_version`]: libnccl cannot be loaded.
pub fn nccl_features() -> Result<NcclFeatures> {
    let version = nccl_version()?;
    let lib = sys::nccl()?;
    Ok(NcclFeatures::of(version, |name| {
        lib.has_function(name) == Some(true)
    }))
}

/// The loaded library's features, read once (the cuda driver's launches check them).
fn loaded() -> Result<&'static NcclFeatures> {
    static LOADED: OnceLock<std::result::Result<NcclFeatures, String>> = OnceLock::new();
    LOADED
        .get_or_init(|| nccl_features().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Error::InvalidUsage {
            op: "collective",
            reason: format!("the loaded NCCL's features are unknown: {e}"),
        })
}

/// Refuses `ops` that the NCCL behind `driver` cannot run: on cuda the loaded
/// library; on the sim, the version it emulates (`emulated`), if any (the sim itself
/// runs everything).
pub(crate) fn check_ops(
    driver: DriverKind,
    emulated: Option<Version>,
    ops: &[LaunchOp],
) -> Result<()> {
    // The common case (no fp8, no per-call config, no launch event) asks nothing of
    // the library.
    if !ops
        .iter()
        .any(|o| o.config.is_some() || o.launch_event || DType::FP8.contains(&o.desc.dtype))
    {
        return Ok(());
    }
    match (driver, emulated) {
        (DriverKind::Cuda, _) => loaded()?.require_ops(ops),
        (DriverKind::Sim, Some(v)) => NcclFeatures::of(v, |_| true).require_ops(ops),
        (DriverKind::Sim, None) => Ok(()),
    }
}

/// Refuses a call that needs `feature` when the NCCL behind `driver` lacks it: on cuda
/// the loaded library; on the sim, the version it emulates (`emulated`), if any.
pub(crate) fn require(
    driver: DriverKind,
    emulated: Option<Version>,
    feature: Feature,
) -> Result<()> {
    match (driver, emulated) {
        (DriverKind::Cuda, _) => loaded()?.require(feature),
        (DriverKind::Sim, Some(v)) => NcclFeatures::of(v, |_| true).require(feature),
        (DriverKind::Sim, None) => Ok(()),
    }
}
