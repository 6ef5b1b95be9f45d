//! The `sim` driver: simulated GPUs on host threads that move real data.
//!
//! Modelled on CUDA's semantics, and stricter where CUDA is undefined:
//! - A stream is an in-order worker thread fed through a bounded queue; a full queue
//!   blocks the host, as a full launch queue does on a GPU.
//! - Events are completion counters; a stream waiting on an event waits for the
//!   event's most recent record at the time of the wait (as `cuStreamWaitEvent`).
//! - Device memory lives on the host behind opaque addresses that are never host
//!   pointers and never reused. Every access is resolved and bounds-checked when it
//!   executes: an out-of-bounds, freed or other-device address is an error on the
//!   stream (like CUDA's sticky errors), never undefined behaviour. Bytes are atomics,
//!   so even a racing, untracked access through the unsafe raw API is defined.
//! - Workers add seeded scheduling jitter before tasks, so tests that depend on
//!   lucky timing fail; `NCCL_RS_SIM_SEED` reproduces a run.
//!
//! Not mirrored: kernels run one at a time per stream with no intra-kernel
//! parallelism; streams of one device run truly in parallel (a GPU may serialise
//! them); priorities are accepted and ignored; there is no peer access between
//! devices; a host function that panics fails its stream instead of aborting.
//!
//! - this file: configuration (`NCCL_RS_SIM_*`) and the platform of devices;
//! - `memory.rs`: device memory behind opaque, bounds-checked addresses;
//! - `stream.rs`: streams (in-order workers), events, gates and the device-side work
//!   of copies, fills and elementwise ops;
//! - `reduce.rs`: typed arithmetic on raw bytes (reductions, elementwise ops);
//! - `os.rs`: memfds, shared mappings, futexes, abstract sockets with descriptor
//!   passing, process liveness (all of the sim's FFI);
//! - `rendezvous.rs`: how ranks in threads or processes find each other by the id;
//! - `segment.rs`: a communicator's shared control segment;
//! - `comm.rs` (lifecycle), `live.rs` (a joined communicator), `launch.rs`
//!   (registration and rules), `entry.rs` (operations in the segment), `task.rs`
//!   (the stream task), `collective.rs` (data movement);
//! - `onesided.rs`: puts, signals and waits on windows (NCCL's one-sided operations);
//! - `ops.rs`: the device-side work of memory operations;
//! - `rules.rs`: NCCL's usage rules that are not part of one communicator.

mod collective;
pub(crate) mod comm;
mod entry;
mod launch;
mod live;
mod memory;
mod onesided;
mod ops;
mod os;
mod reduce;
mod rendezvous;
mod rules;
mod segment;
mod stream;
mod task;

// Device memory is read and written as little-endian words, as GPUs lay it out.
#[cfg(target_endian = "big")]
compile_error!("the sim driver needs a little-endian host");

use std::sync::{Arc, Condvar, OnceLock};
use std::time::{Duration, Instant};

use crate::{Error, Result};

pub(crate) use memory::{HostAlloc, POISON, SimDevice};
pub(crate) use onesided::Put;
pub(crate) use rendezvous::{combined_id, is_grow_id, root_name};
pub(crate) use stream::{SimEvent, SimGate, SimStream};

/// The sim's settings, read once from the environment.
#[derive(Clone, Debug)]
pub(crate) struct SimConfig {
    pub devices: usize,
    /// The simulated devices this process sees, in ordinal order
    /// (`NCCL_RS_SIM_VISIBLE_DEVICES`; all of them by default).
    pub visible: Vec<usize>,
    pub memory: usize,
    pub queue_depth: usize,
    pub seed: u64,
    pub jitter: bool,
}

/// The compute capability a simulated device reports (a Hopper GPU's).
pub const COMPUTE_CAPABILITY: (u32, u32) = (9, 0);

/// Default number of simulated devices.
pub const DEFAULT_DEVICES: usize = 8;
/// Default memory of each simulated device: 4 GiB.
pub const DEFAULT_MEMORY: usize = 4 << 30;
/// Default launch-queue depth of a simulated stream (GPUs queue about a thousand).
pub const DEFAULT_QUEUE_DEPTH: usize = 1024;

/// How many collectives one communicator of the sim holds pending: issued on some rank
/// and not yet finished by all. A launch past it waits, at most the communicator's
/// [`Config::call_timeout`](crate::Config::call_timeout), for the oldest to finish,
/// then fails with [`Error::PendingLimit`](crate::Error::PendingLimit) having launched
/// nothing. A GPU has no such count (its stream's launch queue, about a thousand
/// operations, blocks the host first); the sim's is twice its default queue depth, so
/// that one stream per rank meets its queue first, as on a GPU.
pub const SIM_PENDING_COLLECTIVES: usize = segment::SLOTS;

/// How many messages (`send`/`recv` pairs) the sim holds pending between one ordered
/// pair of ranks of a communicator: sent or posted on one side and not yet finished on
/// both. Past it, as with [`SIM_PENDING_COLLECTIVES`], a launch waits at most the call
/// timeout, then fails with [`Error::PendingLimit`](crate::Error::PendingLimit).
pub const SIM_PENDING_MESSAGES: usize = segment::P2P_SLOTS;

/// Parses sizes such as `4096`, `512MiB`, `4GiB`, `1G`.
pub(crate) fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: usize = num.parse().ok()?;
    let mult: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

impl SimConfig {
    pub(crate) fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<SimConfig> {
        fn bad(var: &'static str, value: String, expected: &str) -> Error {
            Error::InvalidArgument {
                op: "sim driver configuration",
                reason: format!("{var}={value:?} is not {expected}"),
            }
        }
        let devices = match env("NCCL_RS_SIM_DEVICES") {
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if (1..=64).contains(&n) => n,
                _ => return Err(bad("NCCL_RS_SIM_DEVICES", v, "a device count from 1 to 64")),
            },
            None => DEFAULT_DEVICES,
        };
        let memory = match env("NCCL_RS_SIM_MEMORY") {
            Some(v) => match parse_size(&v) {
                Some(n) if n > 0 && n <= (1 << 40) => n,
                _ => {
                    return Err(bad(
                        "NCCL_RS_SIM_MEMORY",
                        v,
                        "a size such as 4GiB (at most 1TiB)",
                    ));
                }
            },
            None => DEFAULT_MEMORY,
        };
        let queue_depth = match env("NCCL_RS_SIM_QUEUE_DEPTH") {
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(bad("NCCL_RS_SIM_QUEUE_DEPTH", v, "a positive integer")),
            },
            None => DEFAULT_QUEUE_DEPTH,
        };
        let seed = match env("NCCL_RS_SIM_SEED") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) => n,
                Err(_) => return Err(bad("NCCL_RS_SIM_SEED", v, "an unsigned integer")),
            },
            None => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0x9e37_79b9);
                nanos ^ u64::from(std::process::id()) << 32
            }
        };
        let jitter = match env("NCCL_RS_SIM_JITTER").as_deref().map(str::trim) {
            None | Some("1") | Some("on") => true,
            Some("0") | Some("off") => false,
            Some(v) => return Err(bad("NCCL_RS_SIM_JITTER", v.to_string(), "on/off or 1/0")),
        };
        let visible = match env("NCCL_RS_SIM_VISIBLE_DEVICES") {
            None => (0..devices).collect(),
            Some(v) => {
                let mut list = Vec::new();
                for item in v.split(',') {
                    match item.trim().parse::<usize>() {
                        Ok(d) if d < devices && !list.contains(&d) => list.push(d),
                        _ => {
                            let what = format!(
                                "a comma-separated list of distinct devices below {devices}"
                            );
                            return Err(bad("NCCL_RS_SIM_VISIBLE_DEVICES", v, &what));
                        }
                    }
                }
                list
            }
        };
        Ok(SimConfig {
            devices,
            visible,
            memory,
            queue_depth,
            seed,
            jitter,
        })
    }
}

/// All simulated devices of the process, each created on first use.
pub(crate) struct Platform {
    pub config: SimConfig,
    devices: Vec<OnceLock<std::result::Result<Arc<SimDevice>, Error>>>,
}

impl Platform {
    /// How many devices this process sees (`NCCL_RS_SIM_VISIBLE_DEVICES`).
    pub fn count(&self) -> usize {
        self.config.visible.len()
    }

    /// The device this process sees as `ordinal`: the simulated device at that place
    /// of `NCCL_RS_SIM_VISIBLE_DEVICES` (which is also the ordinal it reports, the
    /// number that tells the devices of several processes apart).
    pub fn visible(&self, ordinal: usize) -> Result<Arc<SimDevice>> {
        let physical = self.config.visible.get(ordinal).ok_or(Error::NoDevice {
            driver: crate::base::types::DriverKind::Sim,
            ordinal,
            count: self.config.visible.len(),
        })?;
        self.device(*physical)
    }

    /// Simulated device `ordinal`, created (its memory mapped) on first use.
    pub fn device(&self, ordinal: usize) -> Result<Arc<SimDevice>> {
        let cell = self.devices.get(ordinal).ok_or(Error::NoDevice {
            driver: crate::base::types::DriverKind::Sim,
            ordinal,
            count: self.devices.len(),
        })?;
        cell.get_or_init(|| SimDevice::new(ordinal, self.config.memory).map(Arc::new))
            .clone()
    }
}

pub(crate) fn platform() -> Result<&'static Platform> {
    static PLATFORM: OnceLock<Result<Platform>> = OnceLock::new();
    PLATFORM
        .get_or_init(|| {
            let config = SimConfig::from_env(|v| std::env::var(v).ok())?;
            log::info!(
                "sim driver: {} devices of {} MiB, queue depth {}, seed {} (NCCL_RS_SIM_SEED), jitter {}",
                config.devices,
                config.memory >> 20,
                config.queue_depth,
                config.seed,
                if config.jitter { "on" } else { "off" }
            );
            let devices = (0..config.devices).map(|_| OnceLock::new()).collect();
            Ok(Platform { config, devices })
        })
        .as_ref()
        .map_err(Clone::clone)
}

pub(crate) use crate::sync::{SPIN, spin_until};

/// Waits on `cv` until `done(&guard)` holds, or `timeout` passes (`None`: forever).
pub(crate) fn wait_until<'a, T>(
    cv: &Condvar,
    mut guard: std::sync::MutexGuard<'a, T>,
    timeout: Option<Duration>,
    op: &'static str,
    done: impl Fn(&T) -> bool,
) -> Result<std::sync::MutexGuard<'a, T>> {
    let deadline = timeout.and_then(crate::sync::deadline);
    while !done(&guard) {
        guard = match deadline {
            None => cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    return Err(Error::Timeout {
                        op,
                        waited: timeout.unwrap_or_default(),
                    });
                }
                cv.wait_timeout(guard, d - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_devices_pick_and_order_the_simulated_ones() {
        let cfg = |v: &'static str| {
            SimConfig::from_env(move |name| match name {
                "NCCL_RS_SIM_DEVICES" => Some("4".into()),
                "NCCL_RS_SIM_VISIBLE_DEVICES" => Some(v.into()),
                _ => None,
            })
        };
        assert_eq!(cfg("3,1").unwrap().visible, [3, 1]);
        assert_eq!(cfg(" 2 ").unwrap().visible, [2]);
        for bad in ["4", "1,1", "", "GPU-0", "0,,1"] {
            let e = cfg(bad).unwrap_err().to_string();
            assert!(e.contains("NCCL_RS_SIM_VISIBLE_DEVICES"), "{bad:?}: {e}");
        }
        let all = SimConfig::from_env(|n| (n == "NCCL_RS_SIM_DEVICES").then(|| "3".into()));
        assert_eq!(all.unwrap().visible, [0, 1, 2]);
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("4GiB"), Some(4 << 30));
        assert_eq!(parse_size("512 MiB"), Some(512 << 20));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("12parsecs"), None);
    }

    #[test]
    fn bad_configuration_names_the_variable_and_value() {
        let err = SimConfig::from_env(|v| (v == "NCCL_RS_SIM_DEVICES").then(|| "zero".to_string()))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("NCCL_RS_SIM_DEVICES") && text.contains("zero"),
            "{text}"
        );
        let err =
            SimConfig::from_env(|v| (v == "NCCL_RS_SIM_MEMORY").then(|| "4 parsecs".to_string()))
                .unwrap_err();
        assert!(err.to_string().contains("NCCL_RS_SIM_MEMORY"), "{err}");
        let ok = SimConfig::from_env(|v| match v {
            "NCCL_RS_SIM_DEVICES" => Some("2".into()),
            "NCCL_RS_SIM_MEMORY" => Some("1MiB".into()),
            "NCCL_RS_SIM_SEED" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            (ok.devices, ok.memory, ok.seed, ok.jitter),
            (2, 1 << 20, 7, true)
        );
    }
}
