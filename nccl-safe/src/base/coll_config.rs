//! [`CollConfig`]: NCCL's per-collective configuration (`ncclCollConfig_t`), attached
//! to the collectives a closure issues by [`with_coll_config`].

use std::cell::RefCell;
use std::ffi::CString;
use std::fmt;
use std::sync::Arc;

use super::config::Config;
use crate::{Error, Result};

/// The configuration of individual collectives (NCCL's `ncclCollConfig_t`): CTA
/// bounds and which algorithms a call may use. Attach it with [`with_coll_config`];
/// every rank must attach the same one to the same collective (NCCL checks only
/// locally; the sim checks across ranks, as a mismatch).
///
/// ```
/// use nccl_safe::CollConfig;
/// let c = CollConfig::new().max_ctas(4).algorithms(&["ring", "tree"]);
/// assert_eq!(c.to_string(), "max_ctas 4, algorithms ring,tree");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CollConfig {
    min_ctas: Option<u32>,
    max_ctas: Option<u32>,
    nvls_ctas: Option<u32>,
    cga_cluster_size: Option<u32>,
    /// NCCL's selection string: `ring,tree`, or `^ring` for all but ring.
    selection: Option<String>,
    /// An unsatisfiable selection is NCCL's error (`true`, NCCL's default) rather
    /// than ignored.
    lenient: bool,
    profiler_tag: u64,
}

impl CollConfig {
    /// The algorithms NCCL knows by name (as `NCCL_ALGO` spells them).
    pub const ALGORITHMS: [&'static str; 7] = [
        "ring",
        "tree",
        "collnetdirect",
        "collnetchain",
        "nvls",
        "nvlstree",
        "pat",
    ];

    /// Nothing set: NCCL decides everything, as for a call without a config.
    pub fn new() -> CollConfig {
        CollConfig::default()
    }

    /// Use at least `n` CTAs (channels).
    pub fn min_ctas(mut self, n: u32) -> CollConfig {
        self.min_ctas = Some(n);
        self
    }

    /// Use at most `n` CTAs; at most the communicator's own `max_ctas`.
    pub fn max_ctas(mut self, n: u32) -> CollConfig {
        self.max_ctas = Some(n);
        self
    }

    /// At most `n` CTAs of NVLink SHARP's own pool.
    pub fn nvls_ctas(mut self, n: u32) -> CollConfig {
        self.nvls_ctas = Some(n);
        self
    }

    /// The thread-block-cluster size (Hopper and later, 0..=8); the same for every
    /// collective of a group.
    pub fn cga_cluster_size(mut self, n: u32) -> CollConfig {
        self.cga_cluster_size = Some(n);
        self
    }

    /// Only these algorithms (names of [`CollConfig::ALGORITHMS`], any case); none
    /// leaves the choice to NCCL.
    pub fn algorithms(mut self, names: &[&str]) -> CollConfig {
        self.selection = (!names.is_empty()).then(|| names.join(",").to_ascii_lowercase());
        self
    }

    /// Any algorithm but these; none leaves the choice to NCCL.
    pub fn excluding_algorithms(mut self, names: &[&str]) -> CollConfig {
        self.selection =
            (!names.is_empty()).then(|| format!("^{}", names.join(",").to_ascii_lowercase()));
        self
    }

    /// The thread-block cluster size asked for, if any.
    pub(crate) fn cga(&self) -> Option<u32> {
        self.cga_cluster_size
    }

    /// When no algorithm of the selection fits the call, let NCCL pick another
    /// instead of failing the call (NCCL's default is to fail it).
    pub fn lenient_selection(mut self) -> CollConfig {
        self.lenient = true;
        self
    }

    /// An opaque tag handed to NCCL's profiler plugins with this call's events; the
    /// top bit is NCCL's.
    pub fn profiler_tag(mut self, tag: u64) -> CollConfig {
        self.profiler_tag = tag;
        self
    }

    /// Checks the config against a call named `call` (point-to-point or not) on a
    /// communicator made with `comm`.
    pub(crate) fn check(&self, call: &str, point_to_point: bool, comm: &Config) -> Result<()> {
        let bad = |reason: String| {
            Err(Error::InvalidArgument {
                op: "coll_config",
                reason,
            })
        };
        if point_to_point {
            return bad(format!(
                "a {call} takes no per-call config (NCCL has none for point-to-point calls)"
            ));
        }
        for (what, v) in [
            ("min_ctas", self.min_ctas),
            ("max_ctas", self.max_ctas),
            ("nvls_ctas", self.nvls_ctas),
        ] {
            if v == Some(0) {
                return bad(format!("{what} 0 must be at least 1"));
            }
            if let Some(v) = v.filter(|&v| v > i32::MAX as u32) {
                return bad(format!("{what} {v} is above {}", i32::MAX));
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_ctas, self.max_ctas) {
            if lo > hi {
                return bad(format!("min_ctas {lo} is above max_ctas {hi}"));
            }
        }
        if let (Some(hi), Some(comm_hi)) = (self.max_ctas, comm.max_ctas_value()) {
            if hi > comm_hi {
                return bad(format!(
                    "max_ctas {hi} is above the communicator's max_ctas {comm_hi}"
                ));
            }
        }
        if let Some(c) = self.cga_cluster_size.filter(|&c| c > 8) {
            return bad(format!("cga_cluster_size {c} is above 8"));
        }
        if self.profiler_tag >> 63 == 1 {
            return bad(format!(
                "profiler tag {:#x} has its top bit set, which NCCL reserves",
                self.profiler_tag
            ));
        }
        if let Some(sel) = &self.selection {
            let names = sel.strip_prefix('^').unwrap_or(sel);
            for name in names.split(',') {
                if !Self::ALGORITHMS.contains(&name) {
                    return bad(format!(
                        "unknown algorithm {name:?} (NCCL's are {})",
                        Self::ALGORITHMS.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }

    /// A nonzero number for what of the config must agree across ranks (all but the
    /// profiler tag, which is rank-local and changes nothing): equal configs give
    /// equal numbers (the sim compares ranks' configs by it).
    pub(crate) fn key(&self) -> u64 {
        let shared = CollConfig {
            profiler_tag: 0,
            ..self.clone()
        };
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in shared.to_string().bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h.max(1)
    }

    /// The raw struct, and the string it points into (keep it alive while the struct
    /// is used).
    pub(crate) fn to_raw(&self) -> Result<(nccl_sys::ncclCollConfig_t, Option<CString>)> {
        const UNDEF: i32 = i32::MIN;
        let int = |v: Option<u32>| v.map_or(UNDEF, |v| v as i32);
        let selection = match &self.selection {
            Some(s) => Some(
                CString::new(s.as_str()).map_err(|_| Error::InvalidArgument {
                    op: "coll_config",
                    reason: format!("algorithm selection {s:?} contains a NUL byte"),
                })?,
            ),
            None => None,
        };
        let raw = nccl_sys::ncclCollConfig_t {
            size: std::mem::size_of::<nccl_sys::ncclCollConfig_t>(),
            magic: nccl_sys::NCCL_API_MAGIC,
            version: nccl_sys::NCCL_VERSION_CODE,
            ext: std::ptr::null_mut(),
            minCTAs: int(self.min_ctas),
            maxCTAs: int(self.max_ctas),
            nvlsCTAs: int(self.nvls_ctas),
            cgaClusterSize: int(self.cga_cluster_size),
            algSelection: selection.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            forceAlgSelection: i32::from(!self.lenient),
            CTAPolicy: UNDEF,
            userProfilerTag: self.profiler_tag,
            launchCompletionEvent: std::ptr::null_mut(),
        };
        Ok((raw, selection))
    }
}

impl fmt::Display for CollConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for (what, v) in [
            ("min_ctas", self.min_ctas),
            ("max_ctas", self.max_ctas),
            ("nvls_ctas", self.nvls_ctas),
            ("cga_cluster_size", self.cga_cluster_size),
        ] {
            if let Some(v) = v {
                parts.push(format!("{what} {v}"));
            }
        }
        if let Some(s) = &self.selection {
            parts.push(format!("algorithms {s}"));
            if self.lenient {
                parts.push("lenient".into());
            }
        }
        if self.profiler_tag != 0 {
            parts.push(format!("profiler tag {:#x}", self.profiler_tag));
        }
        if parts.is_empty() {
            f.write_str("defaults")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<CollConfig>>> = const { RefCell::new(None) };
}

/// The config attached on this thread, if any.
pub(crate) fn current() -> Option<Arc<CollConfig>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `f` with no config attached (the library's own operations inside a
/// caller's [`with_coll_config`]).
pub(crate) fn without_coll_config<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<CollConfig>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(None)));
    f()
}

/// Runs `f` with `config` attached to every collective it issues on this thread
/// (NCCL's `nccl*Config` calls, NCCL 2.32.3). Point-to-point calls refuse a config.
///
/// ```
/// use std::thread;
/// use nccl_safe::{with_coll_config, CollConfig, Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};
/// let id = UniqueId::random();
/// let ranks: Vec<_> = (0..2).map(|rank| thread::spawn(move || -> nccl_safe::Result<Vec<u32>> {
///     let dev = Device::sim(rank)?;
///     let comm = Communicator::init(&dev, rank, 2, &id, &Config::new())?;
///     let s = Stream::new(&dev)?;
///     let mut x = DeviceBuffer::from_slice(&s, &[1u32; 8])?;
///     let small = CollConfig::new().max_ctas(2).algorithms(&["ring"]);
///     with_coll_config(&small, || comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))?;
///     x.to_vec(&s)
/// })).collect();
/// for r in ranks {
///     assert_eq!(r.join().unwrap()?, vec![2; 8]);
/// }
/// # Ok::<(), nccl_safe::Error>(())
/// ```
pub fn with_coll_config<R>(config: &CollConfig, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<CollConfig>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(Arc::new(config.clone())))));
    f()
}
