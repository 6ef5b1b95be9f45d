//! How a driver is chosen: `NCCL_RS_DRIVER=cuda|sim|auto`, resolved once per process
//! against a probe of the machine (Decision 9).

use std::path::Path;
use std::sync::OnceLock;

use crate::base::types::DriverKind;
use crate::{Error, Result};

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
