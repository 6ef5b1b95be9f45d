//! Which device a process of a job uses: its local rank mapped to a device ordinal of
//! the selected driver ([`Launch::device_ordinal`], [`Launch::device`]).
//!
//! The ordinal is an index into the devices this process can see. On cuda the CUDA
//! driver itself applies `CUDA_VISIBLE_DEVICES` (device 0 is the first one listed
//! there), so the library never reads it: a launcher that gives each process one
//! visible GPU (as `srun --gpus-per-task=1` does) makes every local rank see a single
//! device 0, and local rank `r` of a launcher that shows every GPU gets device `r`.
//! `CUDA_VISIBLE_DEVICES` is read only to tell those two cases apart: when it lists
//! exactly one device, this process was given a GPU of its own.

use nccl_safe::{Device, DriverKind};

use super::Launch;
use crate::Error;

impl Launch {
    /// The device ordinal of this process among `devices` devices of `driver`;
    /// `own_device` says the launcher gave this process a device of its own (what
    /// [`Launch::device`] passes when `CUDA_VISIBLE_DEVICES` lists exactly one).
    ///
    /// - With `own_device` and one visible device, that device (ordinal 0).
    /// - Otherwise local rank `r` uses device `r`.
    /// - On cuda, more local ranks than devices is an error naming both counts: two
    ///   ranks of one job must not share a GPU.
    /// - On the sim it is allowed: local rank `r` uses device `r % devices`. The sim
    ///   still refuses two ranks of one communicator on one device (as NCCL does), so
    ///   a job on one node needs `NCCL_RS_SIM_DEVICES` at least its local world size;
    ///   `nccl-run` sets it.
    ///
    /// ```
    /// use collectives::{Launch, Overrides};
    /// use nccl_safe::DriverKind;
    ///
    /// let vars = [("RANK", "5"), ("WORLD_SIZE", "8"), ("LOCAL_RANK", "1"), ("LOCAL_WORLD_SIZE", "4")];
    /// let env = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
    /// let launch = Launch::from_vars(&env, &Overrides::default())?;
    /// assert_eq!(launch.device_ordinal(DriverKind::Cuda, 4, false)?, 1);
    /// assert_eq!(launch.device_ordinal(DriverKind::Cuda, 1, true)?, 0);
    /// assert!(launch.device_ordinal(DriverKind::Cuda, 1, false).is_err());
    /// assert!(launch.device_ordinal(DriverKind::Cuda, 2, false).is_err());
    /// assert_eq!(launch.device_ordinal(DriverKind::Sim, 2, false)?, 1);
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::TooFewDevices`] on cuda with more local ranks than devices, or with no
    /// device at all on either driver.
    pub fn device_ordinal(
        &self,
        driver: DriverKind,
        devices: usize,
        own_device: bool,
    ) -> Result<usize, Error> {
        let (local_rank, local_world_size) = (self.local_rank(), self.local_world_size());
        let too_few = || Error::TooFewDevices {
            local_world_size,
            devices,
            driver,
            local_rank,
        };
        match (driver, devices) {
            (_, 0) => Err(too_few()),
            (_, 1) if own_device => Ok(0),
            (DriverKind::Cuda, n) if local_world_size > n => Err(too_few()),
            (DriverKind::Cuda, _) => Ok(local_rank),
            (DriverKind::Sim, n) => Ok(local_rank % n),
        }
    }

    /// Opens this process's device on the driver `NCCL_RS_DRIVER` selects
    /// ([`nccl_safe::selected_driver`]), at [`Launch::device_ordinal`].
    ///
    /// # Errors
    ///
    /// The driver choice's error, the device count's, [`Error::TooFewDevices`], or the
    /// device's own.
    pub fn device(&self) -> Result<Device, Error> {
        let driver = nccl_safe::selected_driver()?.kind;
        let own_device = std::env::var("CUDA_VISIBLE_DEVICES")
            .is_ok_and(|v| !v.trim().is_empty() && !v.contains(','));
        let ordinal = self.device_ordinal(driver, Device::count(driver)?, own_device)?;
        log::info!(
            "rank {} (local rank {} of {}): {driver} device {ordinal}",
            self.rank(),
            self.local_rank(),
            self.local_world_size()
        );
        Ok(Device::with_driver(driver, ordinal)?)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, Launch, Overrides};
    use nccl_safe::DriverKind;

    fn launch(local_rank: usize, local_world_size: usize) -> Launch {
        let o = Overrides {
            rank: Some(local_rank),
            world_size: Some(local_world_size),
            local_rank: Some(local_rank),
            local_world_size: Some(local_world_size),
            ..Overrides::default()
        };
        Launch::from_vars(&|_| None, &o).unwrap()
    }

    #[test]
    fn local_ranks_map_to_ordinals() {
        for r in 0..4 {
            let l = launch(r, 4);
            assert_eq!(l.device_ordinal(DriverKind::Cuda, 4, false).unwrap(), r);
            assert_eq!(l.device_ordinal(DriverKind::Cuda, 8, false).unwrap(), r);
            // One visible device each (CUDA_VISIBLE_DEVICES per rank).
            assert_eq!(l.device_ordinal(DriverKind::Cuda, 1, true).unwrap(), 0);
            assert_eq!(l.device_ordinal(DriverKind::Sim, 3, false).unwrap(), r % 3);
        }
    }

    #[test]
    fn too_many_local_ranks_is_an_error_on_cuda_only() {
        let err = launch(2, 3)
            .device_ordinal(DriverKind::Cuda, 2, false)
            .unwrap_err();
        assert!(matches!(
            err,
            Error::TooFewDevices {
                local_world_size: 3,
                devices: 2,
                driver: DriverKind::Cuda,
                local_rank: 2
            }
        ));
        let text = err.to_string();
        assert!(
            text.contains("3 local ranks but only 2 cuda devices"),
            "{text}"
        );
        assert_eq!(
            launch(2, 3)
                .device_ordinal(DriverKind::Sim, 2, false)
                .unwrap(),
            0
        );
        // A single GPU shared by four ranks, not given to each.
        assert!(
            launch(1, 4)
                .device_ordinal(DriverKind::Cuda, 1, false)
                .is_err()
        );
        for driver in [DriverKind::Cuda, DriverKind::Sim] {
            assert!(matches!(
                launch(0, 1).device_ordinal(driver, 0, true),
                Err(Error::TooFewDevices { devices: 0, .. })
            ));
        }
    }
}
