//! [`Config`]: a communicator's `ncclConfig_t` and this library's deadlines.

use std::ffi::CString;
use std::time::Duration;

use crate::{Error, Result};

/// Communicator settings: NCCL's `ncclConfig_t` fields, filled exactly as
/// `NCCL_CONFIG_INITIALIZER` (unset fields stay "undefined", so NCCL picks its
/// defaults), plus this library's own deadlines.
///
/// The struct carries the header's size and version; an older loaded NCCL reads only
/// the fields its version knows and ignores newer ones.
///
/// ```
/// use nccl_safe::Config;
/// let config = Config::new().blocking(false).comm_name("grads").max_ctas(16);
/// assert!(!config.is_blocking());
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    blocking: Option<bool>,
    cga_cluster_size: Option<u32>,
    min_ctas: Option<u32>,
    max_ctas: Option<u32>,
    net_name: Option<String>,
    split_share: Option<bool>,
    traffic_class: Option<u32>,
    comm_name: Option<String>,
    collnet_enable: Option<bool>,
    pub(crate) call_timeout: Duration,
    pub(crate) teardown_timeout: Duration,
    pub(crate) sim_nccl_version: Option<crate::version::Version>,
    pub(crate) sim_no_symmetric: bool,
}

/// Builder methods that set one optional `ncclConfig_t` field.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Config {
                self.$name = Some(value);
                self
            }
        )*
    };
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// Everything unset: a blocking communicator with NCCL's defaults.
    pub fn new() -> Config {
        Config {
            blocking: None,
            cga_cluster_size: None,
            min_ctas: None,
            max_ctas: None,
            net_name: None,
            split_share: None,
            traffic_class: None,
            comm_name: None,
            collnet_enable: None,
            call_timeout: Duration::from_secs(300),
            teardown_timeout: Duration::from_secs(30),
            sim_nccl_version: None,
            sim_no_symmetric: false,
        }
    }

    /// On the sim driver, refuse what NCCL `version` could not do, as the cuda driver
    /// does with the loaded library ([`Error::UnsupportedByNccl`](crate::Error::UnsupportedByNccl)):
    /// to test a program against an older NCCL without one. Ignored on cuda.
    pub fn emulate_nccl_version(mut self, version: crate::version::Version) -> Config {
        self.sim_nccl_version = Some(version);
        self
    }

    /// On the sim driver, a communicator without symmetric-memory support (as NCCL's
    /// is without NVLink peers or CUDA VMM): window registration gives no window, an
    /// [`Error::WindowUnsupported`](crate::Error::WindowUnsupported). Ignored on cuda,
    /// where NCCL decides.
    pub fn emulate_no_symmetric_memory(mut self) -> Config {
        self.sim_no_symmetric = true;
        self
    }

    /// `false` makes the communicator non-blocking: init returns before every rank
    /// joined ([`Communicator::wait_ready`](crate::Communicator::wait_ready)).
    /// Underneath, NCCL's communicator is non-blocking either way (Decision 5): a
    /// blocking one is one whose init this library waits for (at most
    /// [`Config::call_timeout`]), and every communicator can be aborted from another
    /// thread ([`Communicator::abort_handle`](crate::Communicator::abort_handle)).
    pub fn blocking(mut self, blocking: bool) -> Config {
        self.blocking = Some(blocking);
        self
    }

    /// Whether communicators made with this config block (the default).
    pub fn is_blocking(&self) -> bool {
        self.blocking.unwrap_or(true)
    }

    /// The `max_ctas` set, if any.
    pub(crate) fn max_ctas_value(&self) -> Option<u32> {
        self.max_ctas
    }

    /// Whether a split with this config shares resources with its parent.
    pub(crate) fn shares_split(&self) -> bool {
        self.split_share == Some(true)
    }

    setters! {
        /// Thread-block cluster size (`cgaClusterSize`, 0..=8).
        cga_cluster_size: u32;
        /// Minimum number of CTAs (`minCTAs`).
        min_ctas: u32;
        /// Maximum number of CTAs (`maxCTAs`).
        max_ctas: u32;
        /// Share resources with the children `split` makes of a communicator made with
        /// this config (`splitShare`: NCCL reads it from the parent's config).
        split_share: bool;
        /// Network traffic class (`trafficClass`).
        traffic_class: u32;
        /// Enable CollNet (`collnetEnable`).
        collnet_enable: bool;
    }

    /// Network plugin name (`netName`).
    pub fn net_name(mut self, name: &str) -> Config {
        self.net_name = Some(name.to_string());
        self
    }

    /// A name for logs and profilers (`commName`).
    pub fn comm_name(mut self, name: &str) -> Config {
        self.comm_name = Some(name.to_string());
        self
    }

    /// How long a call may stay in progress before it is reported as a timeout
    /// (default 300 s): a blocking init ([`Error::InitTimeout`](crate::Error::InitTimeout)
    /// naming the ranks that did not join, where the driver knows them), a call on a
    /// non-blocking communicator, and on the sim a launch waiting for room among the
    /// operations it holds pending ([`Error::PendingLimit`](crate::Error::PendingLimit)).
    pub fn call_timeout(mut self, timeout: Duration) -> Config {
        self.call_timeout = timeout;
        self
    }

    /// How long `Drop` and [`Communicator::close`](crate::Communicator::close) wait for outstanding work before
    /// aborting (default 30 s). It is also how long this communicator's work may make no
    /// progress while another communicator on its device is torn down before that
    /// teardown stops it (freeing memory waits for the whole device).
    pub fn teardown_timeout(mut self, timeout: Duration) -> Config {
        self.teardown_timeout = timeout;
        self
    }

    /// Checks the values NCCL would reject, before any driver call.
    pub(crate) fn validate(&self) -> Result<()> {
        let bad = |reason: String| {
            Err(Error::InvalidArgument {
                op: "config",
                reason,
            })
        };
        if let Some(c) = self.cga_cluster_size {
            if c > 8 {
                return bad(format!("cga_cluster_size {c} is above 8"));
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_ctas, self.max_ctas) {
            if lo > hi {
                return bad(format!("min_ctas {lo} is above max_ctas {hi}"));
            }
        }
        for (what, v) in [("min_ctas", self.min_ctas), ("max_ctas", self.max_ctas)] {
            if v == Some(0) || v.is_some_and(|v| v > i32::MAX as u32) {
                return bad(format!(
                    "{what} {} must be at least 1",
                    v.unwrap_or_default()
                ));
            }
        }
        for (what, v) in [("comm_name", &self.comm_name), ("net_name", &self.net_name)] {
            if v.as_ref().is_some_and(|s| s.contains('\0')) {
                return bad(format!("{what} {v:?} contains a NUL byte"));
            }
        }
        Ok(())
    }

    /// The `ncclConfig_t`, and the strings it points into (keep them alive while it is
    /// used).
    pub(crate) fn to_raw(&self) -> Result<(nccl_sys::ncclConfig_t, Vec<CString>)> {
        self.validate()?;
        const UNDEF: i32 = i32::MIN;
        let int = |v: Option<u32>| v.map_or(UNDEF, |v| v as i32);
        let flag = |v: Option<bool>| v.map_or(UNDEF, i32::from);
        // The strings are moved to their final place first and pointed to afterwards:
        // a pointer taken before a move would not be valid after it (Stacked Borrows).
        let owned = [&self.net_name, &self.comm_name].map(|v| {
            v.as_ref()
                .map(|s| CString::new(s.as_str()).expect("validated: no NUL"))
        });
        let strings: Vec<CString> = owned.iter().flatten().cloned().collect();
        let mut next = strings.iter();
        let mut text = |v: &Option<CString>| -> *const std::ffi::c_char {
            match v {
                Some(_) => next.next().map_or(std::ptr::null(), |c| c.as_ptr()),
                None => std::ptr::null(),
            }
        };
        let (net_name, comm_name) = (text(&owned[0]), text(&owned[1]));
        let mut raw = nccl_sys::ncclConfig_t {
            size: std::mem::size_of::<nccl_sys::ncclConfig_t>(),
            magic: nccl_sys::NCCL_API_MAGIC,
            version: nccl_sys::NCCL_VERSION_CODE,
            blocking: flag(self.blocking),
            cgaClusterSize: int(self.cga_cluster_size),
            minCTAs: int(self.min_ctas),
            maxCTAs: int(self.max_ctas),
            netName: net_name,
            splitShare: flag(self.split_share),
            trafficClass: int(self.traffic_class),
            commName: comm_name,
            collnetEnable: flag(self.collnet_enable),
            ..nccl_sys::ncclConfig_t::default()
        };
        // Every remaining field is an int that the initializer leaves undefined.
        fill_undefined_tail(&mut raw);
        Ok((raw, strings))
    }
}

/// Sets every `int` field after `collnetEnable` to `NCCL_CONFIG_UNDEF_INT`, as the
/// header's initializer does (the fields differ between NCCL releases; all are ints).
fn fill_undefined_tail(raw: &mut nccl_sys::ncclConfig_t) {
    let start = std::mem::offset_of!(nccl_sys::ncclConfig_t, collnetEnable) + 4;
    let end = std::mem::size_of::<nccl_sys::ncclConfig_t>();
    let base = (raw as *mut nccl_sys::ncclConfig_t).cast::<u8>();
    let mut off = start;
    while off + 4 <= end {
        // SAFETY: `off` stays inside the struct; every field from there on is a
        // 4-byte-aligned `int` (checked by the layout test in this module).
        unsafe { base.add(off).cast::<i32>().write(i32::MIN) };
        off += 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_is_filled_as_the_initializer_does() {
        let (raw, strings) = Config::new().to_raw().unwrap();
        assert_eq!(raw.size, std::mem::size_of::<nccl_sys::ncclConfig_t>());
        assert_eq!(raw.magic, nccl_sys::NCCL_API_MAGIC);
        assert_eq!(raw.version, nccl_sys::NCCL_VERSION_CODE);
        assert_eq!(raw.blocking, i32::MIN);
        assert_eq!(raw.maxCTAs, i32::MIN);
        assert!(raw.netName.is_null() && raw.commName.is_null());
        assert_eq!(
            raw.nvlsCTAs,
            i32::MIN,
            "fields after collnetEnable are undefined too"
        );
        assert!(strings.is_empty());
        let (raw, strings) = Config::new()
            .blocking(false)
            .comm_name("g")
            .net_name("IB")
            .max_ctas(4)
            .to_raw()
            .unwrap();
        assert_eq!((raw.blocking, raw.maxCTAs), (0, 4));
        assert_eq!(strings.len(), 2);
        // SAFETY: both point into `strings`, alive here (under Miri this also checks
        // that the pointers were taken after the strings reached their place).
        let (name, net) = unsafe {
            (
                std::ffi::CStr::from_ptr(raw.commName),
                std::ffi::CStr::from_ptr(raw.netName),
            )
        };
        assert_eq!((name.to_str().unwrap(), net.to_str().unwrap()), ("g", "IB"));
    }

    #[test]
    fn every_field_after_collnet_enable_is_an_int() {
        // `fill_undefined_tail` relies on it; a new header that breaks it fails here.
        let start = std::mem::offset_of!(nccl_sys::ncclConfig_t, collnetEnable) + 4;
        assert_eq!(
            (std::mem::size_of::<nccl_sys::ncclConfig_t>() - start) % 4,
            0
        );
        assert_eq!(start % 4, 0);
    }

    #[test]
    fn bad_configs_are_refused_with_the_values() {
        let e = Config::new().min_ctas(8).max_ctas(2).to_raw().unwrap_err();
        assert!(
            e.to_string().contains("min_ctas 8 is above max_ctas 2"),
            "{e}"
        );
        let e = Config::new().cga_cluster_size(9).to_raw().unwrap_err();
        assert!(e.to_string().contains("9"), "{e}");
        let e = Config::new().comm_name("a\0b").to_raw().unwrap_err();
        assert!(e.to_string().contains("NUL"), "{e}");
        let e = Config::new().max_ctas(0).to_raw().unwrap_err();
        assert!(e.to_string().contains("max_ctas 0"), "{e}");
    }
}
