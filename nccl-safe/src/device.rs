//! Devices on the `cuda` or `sim` driver, and how a driver is chosen.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::cuda::CudaDevice;
use crate::sim::{self, SimDevice, SimStream};
use crate::{Error, Result};

/// Which driver runs a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DriverKind {
    /// Real GPUs through the CUDA driver API (`libcuda.so.1`).
    Cuda,
    /// Simulated GPUs on host threads that move and reduce real data.
    Sim,
}

impl fmt::Display for DriverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DriverKind::Cuda => "cuda",
            DriverKind::Sim => "sim",
        })
    }
}

/// The outcome of resolving `NCCL_RS_DRIVER`: the driver and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverSelection {
    /// The chosen driver.
    pub kind: DriverKind,
    /// A sentence saying why, for logs.
    pub reason: String,
}

/// What `auto` looks at; separated from the machine so that tests can pose as any.
pub(crate) struct Probe {
    /// `Ok` when the CUDA driver library loads, else the loader's message.
    pub driver: std::result::Result<(), String>,
    /// `/dev/nvidia*` entries present.
    pub device_nodes: Vec<String>,
}

impl Probe {
    pub(crate) fn machine() -> Probe {
        let driver = nccl_sys::cuda().map(|_| ()).map_err(|e| e.to_string());
        let mut device_nodes: Vec<String> = std::fs::read_dir(Path::new("/dev"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("nvidia"))
                    .collect()
            })
            .unwrap_or_default();
        device_nodes.sort();
        Probe {
            driver,
            device_nodes,
        }
    }
}

/// Resolves a value of `NCCL_RS_DRIVER` (`cuda`, `sim`, `auto`; unset means
/// `auto`) against a probe of the machine.
///
/// `auto` picks `cuda` when the driver library loads; `sim` only when no driver
/// library loads *and* no `/dev/nvidia*` exists; anything else (GPU device nodes
/// but no loadable driver) is an error, because silently simulating on a GPU node
/// hides a broken install.
pub(crate) fn select_with(setting: Option<&str>, probe: &Probe) -> Result<DriverSelection> {
    let value = setting.map(str::trim).unwrap_or("auto");
    match value.to_ascii_lowercase().as_str() {
        "cuda" => Ok(DriverSelection {
            kind: DriverKind::Cuda,
            reason: "NCCL_RS_DRIVER=cuda".into(),
        }),
        "sim" => Ok(DriverSelection {
            kind: DriverKind::Sim,
            reason: "NCCL_RS_DRIVER=sim".into(),
        }),
        "auto" | "" => match (&probe.driver, probe.device_nodes.is_empty()) {
            (Ok(()), _) => Ok(DriverSelection {
                kind: DriverKind::Cuda,
                reason: "NCCL_RS_DRIVER=auto: the CUDA driver library (libcuda.so.1) loaded".into(),
            }),
            (Err(e), true) => Ok(DriverSelection {
                kind: DriverKind::Sim,
                reason: format!(
                    "NCCL_RS_DRIVER=auto: no CUDA driver library loads and no /dev/nvidia* exists, \
                     so the sim driver runs ({})",
                    e.lines()
                        .nth(1)
                        .or_else(|| e.lines().next())
                        .unwrap_or_default()
                        .trim()
                ),
            }),
            (Err(e), false) => Err(Error::DriverChoice {
                setting: value.to_string(),
                reason: format!(
                    "GPU device nodes exist ({}) but the CUDA driver library does not load: {e}. \
                     Fix the driver install, or set NCCL_RS_DRIVER=sim to simulate on purpose",
                    probe.device_nodes.join(", ")
                ),
            }),
        },
        _ => Err(Error::DriverChoice {
            setting: value.to_string(),
            reason: "NCCL_RS_DRIVER must be cuda, sim or auto".into(),
        }),
    }
}

/// Resolves `NCCL_RS_DRIVER` on this machine, once per process, and logs the choice.
///
/// # Errors
///
/// [`Error::DriverChoice`] for an unknown value, or for `auto` on a machine with GPU
/// device nodes whose driver library does not load.
pub fn selected_driver() -> Result<DriverSelection> {
    static CHOICE: OnceLock<Result<DriverSelection>> = OnceLock::new();
    CHOICE
        .get_or_init(|| {
            let setting = std::env::var("NCCL_RS_DRIVER").ok();
            let choice = select_with(setting.as_deref(), &Probe::machine());
            match &choice {
                Ok(c) => log::info!("nccl-rs driver: {} ({})", c.kind, c.reason),
                Err(e) => log::error!("nccl-rs driver: {e}"),
            }
            choice
        })
        .clone()
}

pub(crate) enum DeviceImpl {
    Cuda(Arc<CudaDevice>),
    Sim(Arc<SimDevice>),
}

pub(crate) struct DeviceInner {
    pub imp: DeviceImpl,
    /// Serialises every NCCL call on this device (NCCL: one thread at a time per
    /// device, for all its communicators).
    nccl: Mutex<()>,
    /// The internal stream that orders allocations and frees.
    internal: OnceLock<Result<Arc<crate::stream::StreamInner>>>,
}

/// A GPU, real or simulated. Cheap to clone; clones are the same device.
///
/// ```
/// use nccl_safe::{Device, DriverKind};
/// let gpu = Device::sim(0)?;
/// assert_eq!(gpu.driver(), DriverKind::Sim);
/// assert_eq!(gpu.to_string(), "sim:0");
/// # Ok::<(), nccl_safe::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

type Registry = Mutex<HashMap<(DriverKind, usize), Weak<DeviceInner>>>;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Device {
    /// GPU `ordinal` through the CUDA driver.
    ///
    /// # Errors
    ///
    /// [`Error::Load`] naming `libcuda.so.1` when there is no driver;
    /// [`Error::NoDevice`] when `ordinal` is not below the device count.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Self::with_driver(DriverKind::Cuda, ordinal)
    }

    /// Simulated GPU `ordinal` (`NCCL_RS_SIM_DEVICES`, default 8, exist).
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`] when `ordinal` is out of range; [`Error::InvalidArgument`]
    /// for a malformed `NCCL_RS_SIM_*` variable.
    pub fn sim(ordinal: usize) -> Result<Device> {
        Self::with_driver(DriverKind::Sim, ordinal)
    }

    /// Device `ordinal` on the driver `NCCL_RS_DRIVER` selects (see
    /// [`selected_driver`]).
    ///
    /// # Errors
    ///
    /// As [`selected_driver`], then as [`Device::cuda`] or [`Device::sim`].
    pub fn from_env(ordinal: usize) -> Result<Device> {
        Self::with_driver(selected_driver()?.kind, ordinal)
    }

    /// Device `ordinal` on `driver`. One process holds one `Device` per physical (or
    /// simulated) device: asking twice gives the same one.
    ///
    /// # Errors
    ///
    /// As [`Device::cuda`] or [`Device::sim`].
    pub fn with_driver(driver: DriverKind, ordinal: usize) -> Result<Device> {
        let mut map = crate::lock(registry());
        if let Some(inner) = map.get(&(driver, ordinal)).and_then(Weak::upgrade) {
            return Ok(Device { inner });
        }
        let imp = match driver {
            DriverKind::Cuda => DeviceImpl::Cuda(Arc::new(CudaDevice::open(ordinal)?)),
            DriverKind::Sim => {
                let platform = sim::platform()?;
                let dev = platform.devices.get(ordinal).ok_or(Error::NoDevice {
                    driver,
                    ordinal,
                    count: platform.devices.len(),
                })?;
                DeviceImpl::Sim(dev.clone())
            }
        };
        let inner = Arc::new(DeviceInner {
            imp,
            nccl: Mutex::new(()),
            internal: OnceLock::new(),
        });
        map.insert((driver, ordinal), Arc::downgrade(&inner));
        Ok(Device { inner })
    }

    /// How many devices `driver` has.
    ///
    /// # Errors
    ///
    /// [`Error::Load`] for `cuda` without a driver library.
    pub fn count(driver: DriverKind) -> Result<usize> {
        match driver {
            DriverKind::Cuda => crate::cuda::device_count(),
            DriverKind::Sim => Ok(sim::platform()?.devices.len()),
        }
    }

    /// The driver running this device.
    pub fn driver(&self) -> DriverKind {
        match self.inner.imp {
            DeviceImpl::Cuda(_) => DriverKind::Cuda,
            DeviceImpl::Sim(_) => DriverKind::Sim,
        }
    }

    /// The device's ordinal on its driver.
    pub fn ordinal(&self) -> usize {
        match &self.inner.imp {
            DeviceImpl::Cuda(d) => d.ordinal,
            DeviceImpl::Sim(d) => d.ordinal,
        }
    }

    /// The device's name (`"sim device 0"` on the sim).
    ///
    /// # Errors
    ///
    /// [`Error::Cuda`] if the driver cannot say.
    pub fn name(&self) -> Result<String> {
        match &self.inner.imp {
            DeviceImpl::Cuda(d) => d.name(),
            DeviceImpl::Sim(d) => Ok(format!("sim device {}", d.ordinal)),
        }
    }

    /// Total device memory in bytes (`NCCL_RS_SIM_MEMORY` on the sim).
    ///
    /// # Errors
    ///
    /// [`Error::Cuda`] if the driver cannot say.
    pub fn total_memory(&self) -> Result<usize> {
        match &self.inner.imp {
            DeviceImpl::Cuda(d) => d.total_memory(),
            DeviceImpl::Sim(d) => Ok(d.capacity),
        }
    }

    /// Bytes of device memory in use by this process's buffers (sim only: the CUDA
    /// driver's pools do not say; `None` there).
    pub fn memory_in_use(&self) -> Option<usize> {
        match &self.inner.imp {
            DeviceImpl::Cuda(_) => None,
            DeviceImpl::Sim(d) => Some(d.used()),
        }
    }

    /// The internal stream that orders this device's allocations and frees.
    pub(crate) fn internal_stream(&self) -> Result<Arc<crate::stream::StreamInner>> {
        self.inner
            .internal
            .get_or_init(|| {
                let imp = match &self.inner.imp {
                    DeviceImpl::Cuda(d) => crate::stream::StreamImpl::Cuda(
                        crate::cuda::CudaStream::new(d.clone(), true, 0)?,
                    ),
                    DeviceImpl::Sim(d) => {
                        crate::stream::StreamImpl::Sim(SimStream::new(d.clone())?)
                    }
                };
                // The internal stream does not hold the `Device` (that would be a
                // cycle); its users carry the device themselves.
                Ok(Arc::new(crate::stream::StreamInner::detached(imp)))
            })
            .clone()
    }

    /// Holds the device's NCCL lock (Decision 7).
    pub(crate) fn nccl_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        crate::lock(&self.inner.nccl)
    }

    pub(crate) fn same_as(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.same_as(other)
    }
}

impl Eq for Device {}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.driver(), self.ordinal())
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(driver: std::result::Result<(), &str>, nodes: &[&str]) -> Probe {
        Probe {
            driver: driver.map_err(str::to_string),
            device_nodes: nodes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn explicit_settings_win() {
        let p = probe(Err("no libcuda.so.1"), &[]);
        assert_eq!(
            select_with(Some("cuda"), &p).unwrap().kind,
            DriverKind::Cuda
        );
        assert_eq!(select_with(Some("SIM"), &p).unwrap().kind, DriverKind::Sim);
    }

    #[test]
    fn auto_prefers_a_loadable_driver() {
        let p = probe(Ok(()), &["nvidia0", "nvidiactl"]);
        let s = select_with(Some("auto"), &p).unwrap();
        assert_eq!(s.kind, DriverKind::Cuda);
        assert!(s.reason.contains("libcuda.so.1"), "{}", s.reason);
    }

    #[test]
    fn auto_simulates_only_without_driver_and_device_nodes_and_says_so() {
        let p = probe(Err("could not load libcuda; tried libcuda.so.1"), &[]);
        let s = select_with(None, &p).unwrap();
        assert_eq!(s.kind, DriverKind::Sim);
        assert!(s.reason.contains("sim driver runs"), "{}", s.reason);
        assert!(s.reason.contains("libcuda.so.1"), "{}", s.reason);
    }

    #[test]
    fn auto_refuses_device_nodes_without_a_driver() {
        let p = probe(Err("could not load libcuda"), &["nvidia0", "nvidiactl"]);
        let err = select_with(Some("auto"), &p).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("nvidia0") && text.contains("NCCL_RS_DRIVER=sim"),
            "{text}"
        );
    }

    #[test]
    fn unknown_setting_is_an_error_naming_it() {
        let err = select_with(Some("opencl"), &probe(Ok(()), &[])).unwrap_err();
        assert!(err.to_string().contains("opencl"), "{err}");
    }
}
