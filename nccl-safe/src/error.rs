//! The one error type, and the one place NCCL return codes become errors.

use std::ffi::CStr;
use std::fmt;

use nccl_sys as sys;

/// What every fallible call in this crate returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An NCCL result code (`ncclResult_t`). Codes newer than the headers stay
/// representable and print as `unknown result code N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResultCode(pub sys::ncclResult_t);

impl ResultCode {
    /// The code's name in `nccl.h`, if the headers know it.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            sys::ncclSuccess => "ncclSuccess",
            sys::ncclUnhandledCudaError => "ncclUnhandledCudaError",
            sys::ncclSystemError => "ncclSystemError",
            sys::ncclInternalError => "ncclInternalError",
            sys::ncclInvalidArgument => "ncclInvalidArgument",
            sys::ncclInvalidUsage => "ncclInvalidUsage",
            sys::ncclRemoteError => "ncclRemoteError",
            sys::ncclInProgress => "ncclInProgress",
            sys::ncclTimeout => "ncclTimeout",
            _ => return None,
        })
    }
}

impl fmt::Display for ResultCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "unknown result code {}", self.0),
        }
    }
}

/// Everything that can go wrong.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// libnccl or the CUDA driver could not be loaded, or lacks a function.
    #[error(transparent)]
    Load(#[from] sys::LoadError),
    /// An NCCL call returned an error code.
    #[error("{call} failed: {code}: {text}{}", detail_suffix(.detail))]
    Nccl {
        /// The NCCL function that failed.
        call: &'static str,
        /// Its return code.
        code: ResultCode,
        /// `ncclGetErrorString` of the code.
        text: String,
        /// `ncclGetLastError`, when NCCL had more to say.
        detail: Option<String>,
    },
    /// A CUDA driver call returned an error code.
    #[error("cuda driver: {call} failed: {name} ({code}): {text}")]
    Cuda {
        /// The driver function that failed.
        call: &'static str,
        /// Its `CUresult`.
        code: sys::CUresult,
        /// `cuGetErrorName` of the code (`CUDA_ERROR_...`), or `unknown CUresult`.
        name: String,
        /// `cuGetErrorString` of the code.
        text: String,
    },
    /// Work on a simulated device failed (a bad address, a freed buffer, a host
    /// function that panicked): the sim's counterpart of CUDA's sticky errors.
    #[error("sim driver: {op}: {reason}")]
    Sim {
        /// What was being done.
        op: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// An argument was rejected before any driver call.
    #[error("{op}: invalid argument: {reason}")]
    InvalidArgument {
        /// What was being done.
        op: &'static str,
        /// What is wrong, with the values.
        reason: String,
    },
    /// A range of elements does not fit the buffer or view it indexes.
    #[error("{op}: range {start}..{end} is out of bounds for length {len}")]
    OutOfRange {
        /// What was being done.
        op: &'static str,
        /// First element of the range.
        start: usize,
        /// One past the last element.
        end: usize,
        /// Length of what was indexed.
        len: usize,
    },
    /// Two buffers (or a buffer and a host buffer) that must have one length do not.
    #[error("{op}: length mismatch: expected {expected} elements, got {actual}")]
    LengthMismatch {
        /// What was being done.
        op: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// An object of one device was used with a stream or object of another.
    #[error("{op}: wrong device: expected {expected}, got {actual}")]
    WrongDevice {
        /// What was being done.
        op: &'static str,
        /// The device required (`driver:ordinal`).
        expected: String,
        /// The device of the object given.
        actual: String,
    },
    /// There is no device with this ordinal.
    #[error("{driver} driver: no device {ordinal} (the driver has {count})")]
    NoDevice {
        /// The driver asked.
        driver: crate::base::types::DriverKind,
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver has.
        count: usize,
    },
    /// A device allocation did not fit.
    #[error(
        "{driver} driver: out of memory on device {ordinal}: {requested} bytes requested, {available} available"
    )]
    OutOfMemory {
        /// The driver.
        driver: crate::base::types::DriverKind,
        /// The device.
        ordinal: usize,
        /// Bytes asked for.
        requested: usize,
        /// Bytes free at the time (0 when the driver does not say).
        available: usize,
    },
    /// A wait gave up.
    #[error("{op}: timed out after {waited:?}")]
    Timeout {
        /// What was being waited for.
        op: &'static str,
        /// How long.
        waited: std::time::Duration,
    },
    /// A launch on the sim found no room among the operations a communicator holds
    /// pending (issued on some rank and not yet finished by every rank it involves) for
    /// the whole of its [`Config::call_timeout`](crate::Config::call_timeout). The sim
    /// holds [`SIM_PENDING_COLLECTIVES`](crate::SIM_PENDING_COLLECTIVES) collectives per
    /// communicator and [`SIM_PENDING_MESSAGES`](crate::SIM_PENDING_MESSAGES) messages
    /// per ordered pair of ranks. Nothing of the launch was enqueued and it took no
    /// position: the communicator stays usable, and the call may be made again once the
    /// oldest operation can finish. `oldest` says what it waits for.
    #[error(
        "{op}: the sim holds at most {limit} {what}, and no room came within {waited:?}: \
         {oldest}; nothing was launched"
    )]
    PendingLimit {
        /// The operation refused (`collective`, `send`, `recv`).
        op: &'static str,
        /// The limit reached.
        limit: usize,
        /// What it counts (`pending collectives per communicator`, or the messages
        /// between two ranks).
        what: String,
        /// How long the launch waited for room.
        waited: std::time::Duration,
        /// The oldest pending operation, and which ranks have not issued it or not yet
        /// run it.
        oldest: String,
    },
    /// Ranks disagree: a different collective, count, type, reduction or root at the
    /// same position, or communicators launched in different orders on shared
    /// devices. Names both sides.
    #[error("mismatch in {what}: {detail}")]
    Mismatch {
        /// Where the ranks disagree.
        what: String,
        /// Both sides.
        detail: String,
    },
    /// A call that NCCL's usage rules forbid in this state.
    #[error("{op}: invalid usage: {reason}")]
    InvalidUsage {
        /// What was being done.
        op: &'static str,
        /// Which rule, with the values.
        reason: String,
    },
    /// The communicator was aborted (locally, or by an abort handle).
    #[error("aborted: {what}")]
    Aborted {
        /// What was interrupted.
        what: String,
    },
    /// Not every rank joined a communicator in time.
    #[error(
        "communicator init: timed out after {waited:?}; ranks {missing:?} have not joined{}",
        left_suffix(.left)
    )]
    InitTimeout {
        /// How long it waited.
        waited: std::time::Duration,
        /// Ranks that never joined (known on the sim; empty on cuda).
        missing: Vec<usize>,
        /// Ranks that joined and then left before every rank was there (their own
        /// init gave up, or their process exited); known on the sim.
        left: Vec<usize>,
    },
    /// `NCCL_RS_DRIVER` could not be honoured.
    #[error("driver choice (NCCL_RS_DRIVER={setting}): {reason}")]
    DriverChoice {
        /// The setting, `auto` when unset.
        setting: String,
        /// Why no driver was chosen.
        reason: String,
    },
    /// A peer failed: its process died, or it aborted its communicator (NCCL's
    /// `ncclRemoteError`). Names the rank (and, on the sim, its pid).
    #[error("remote failure of rank {rank}: {reason}")]
    Remote {
        /// The peer that failed.
        rank: usize,
        /// What happened to it.
        reason: String,
    },
    /// The loaded NCCL is older than a feature asked for needs (see
    /// [`nccl_features`](crate::nccl_features)).
    #[error("{feature} unsupported by NCCL {loaded}, needs {needs}")]
    UnsupportedByNccl {
        /// What was asked (a feature, or a data type such as `f8e4m3`).
        feature: &'static str,
        /// The loaded (or, on the sim, emulated) NCCL's version.
        loaded: crate::version::Version,
        /// The first version with it.
        needs: crate::version::Version,
    },
    /// NCCL made no window for a registration (`ncclCommWindowRegister` gave a null
    /// window, as NCCL 2.29 and later do where the communicator has no symmetric-memory
    /// support): the reason, never a null window used later.
    #[error("window unsupported: {reason}")]
    WindowUnsupported {
        /// Why, as far as this library can tell.
        reason: String,
    },
    /// The driver cannot do this.
    #[error("{driver} driver: {what} is not supported")]
    Unsupported {
        /// The driver.
        driver: crate::base::types::DriverKind,
        /// What was asked.
        what: &'static str,
    },
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Error::Load(e) = self {
            return write!(f, "Error::Load({e:?})");
        }
        let variant = match self {
            Error::Load(..) => "Load",
            Error::Nccl { .. } => "Nccl",
            Error::Cuda { .. } => "Cuda",
            Error::Sim { .. } => "Sim",
            Error::InvalidArgument { .. } => "InvalidArgument",
            Error::OutOfRange { .. } => "OutOfRange",
            Error::LengthMismatch { .. } => "LengthMismatch",
            Error::WrongDevice { .. } => "WrongDevice",
            Error::NoDevice { .. } => "NoDevice",
            Error::OutOfMemory { .. } => "OutOfMemory",
            Error::Timeout { .. } => "Timeout",
            Error::PendingLimit { .. } => "PendingLimit",
            Error::Mismatch { .. } => "Mismatch",
            Error::InvalidUsage { .. } => "InvalidUsage",
            Error::Aborted { .. } => "Aborted",
            Error::InitTimeout { .. } => "InitTimeout",
            Error::DriverChoice { .. } => "DriverChoice",
            Error::Remote { .. } => "Remote",
            Error::UnsupportedByNccl { .. } => "UnsupportedByNccl",
            Error::WindowUnsupported { .. } => "WindowUnsupported",
            Error::Unsupported { .. } => "Unsupported",
        };
        write!(f, "Error::{variant}: {self}")
    }
}

fn detail_suffix(detail: &Option<String>) -> String {
    match detail {
        Some(d) => format!(" ({d})"),
        None => String::new(),
    }
}

fn c_text(ptr: *const std::ffi::c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: NCCL returns NUL-terminated strings that live as long as the library.
    let text = unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .trim()
        .to_string();
    (!text.is_empty()).then_some(text)
}

/// Turns the return code of the NCCL function `call` into a `Result`. This is the
/// only place an `ncclResult_t` becomes an [`Error`].
///
/// # Errors
///
/// [`Error::Nccl`] for any code but `ncclSuccess`, with NCCL's text for it.
pub(crate) fn check(call: &'static str, rc: sys::ncclResult_t) -> Result<()> {
    if rc == sys::ncclSuccess {
        return Ok(());
    }
    let lib = sys::nccl()?;
    // SAFETY: ncclGetErrorString takes any code and returns a static string.
    let text = unsafe { lib.ncclGetErrorString(rc) }
        .ok()
        .and_then(c_text)
        .unwrap_or_else(|| "no description".into());
    // SAFETY: ncclGetLastError ignores its communicator argument, which may be null.
    let detail = unsafe { lib.ncclGetLastError(std::ptr::null_mut()) }
        .ok()
        .and_then(c_text);
    Err(Error::Nccl {
        call,
        code: ResultCode(rc),
        text,
        detail,
    })
}

/// Turns the return code of the CUDA driver function `call` into a `Result`: the
/// only place a `CUresult` becomes an [`Error`].
///
/// # Errors
///
/// [`Error::Cuda`] for any code but `CUDA_SUCCESS`, with the driver's name and text.
pub(crate) fn check_cuda(call: &'static str, rc: sys::CUresult) -> Result<()> {
    if rc == sys::CUDA_SUCCESS {
        return Ok(());
    }
    let lib = sys::cuda()?;
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: both write one pointer to a static string, or fail for unknown codes
    // and leave it null.
    let (name, text) = unsafe {
        let _ = lib.cuGetErrorName(rc, &mut name);
        let _ = lib.cuGetErrorString(rc, &mut text);
        (c_text(name), c_text(text))
    };
    Err(Error::Cuda {
        call,
        code: rc,
        name: name.unwrap_or_else(|| "unknown CUresult".into()),
        text: text.unwrap_or_else(|| "no description".into()),
    })
}

fn left_suffix(left: &[usize]) -> String {
    if left.is_empty() {
        String::new()
    } else {
        format!(
            "; ranks {left:?} joined and left again before every rank was there (their own \
             init gave up, or their process exited)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_is_ok_and_every_failure_code_is_a_typed_error_naming_the_call() {
        assert!(check("ncclGetVersion", sys::ncclSuccess).is_ok());
        for rc in sys::ncclUnhandledCudaError..sys::ncclNumResults {
            let err = check("ncclAllReduce", rc).unwrap_err();
            let Error::Nccl {
                call, code, text, ..
            } = &err
            else {
                panic!("expected Error::Nccl, got {err:?}");
            };
            assert_eq!(*call, "ncclAllReduce");
            assert_eq!(*code, ResultCode(rc));
            assert!(!text.is_empty());
            let shown = err.to_string();
            assert!(shown.starts_with("ncclAllReduce failed: "), "{shown}");
            assert!(shown.contains(code.name().unwrap()), "{shown}");
        }
    }

    #[test]
    fn codes_from_a_newer_library_are_errors_not_panics() {
        let err = check("ncclCommInitRank", 4242).unwrap_err();
        assert!(
            err.to_string().contains("unknown result code 4242"),
            "{err}"
        );
        assert_eq!(ResultCode(4242).name(), None);
        assert_eq!(
            ResultCode(sys::ncclInvalidUsage).to_string(),
            "ncclInvalidUsage"
        );
    }
}
