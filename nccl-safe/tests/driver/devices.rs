//! Devices and drivers: the sim's device count, the public types that cross threads,
//! and the cuda driver used where present and named where absent.

use crate::common::expect_err;
use nccl_safe::{DeviceBuffer, Error, Event, Gate, HostBuffer, Stream};

#[test]
fn sim_devices_are_counted_and_unknown_ordinals_refused() {
    use nccl_safe::{Device, DriverKind};
    let n = Device::count(DriverKind::Sim).unwrap();
    assert!(n >= 2);
    let e = expect_err(Device::sim(n), "ordinal past the count");
    assert!(
        matches!(e, Error::NoDevice { driver: DriverKind::Sim, count, .. } if count == n),
        "{e}"
    );
    assert_eq!(
        Device::sim(0).unwrap(),
        Device::sim(0).unwrap(),
        "one Device per device"
    );
    assert_ne!(Device::sim(0).unwrap(), Device::sim(1).unwrap());
}

#[test]
fn public_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<nccl_safe::Device>();
    assert_sync::<nccl_safe::Device>();
    assert_send::<Stream>();
    assert_sync::<Stream>();
    assert_send::<Event>();
    assert_sync::<Event>();
    assert_send::<Gate>();
    assert_sync::<Gate>();
    assert_send::<DeviceBuffer<f32>>();
    assert_sync::<DeviceBuffer<f32>>();
    assert_send::<HostBuffer<half::bf16>>();
    assert_sync::<HostBuffer<half::bf16>>();
    assert_send::<nccl_safe::DeviceView<'static, u8>>();
    assert_send::<nccl_safe::DeviceViewMut<'static, u8>>();
    assert_send::<Error>();
    assert_sync::<Error>();
}

#[test]
fn cuda_driver_is_used_where_present_and_named_where_absent() {
    use nccl_safe::{Device, DriverKind};
    let driver_loads = nccl_sys::cuda().is_ok();
    match Device::cuda(0) {
        Ok(dev) => {
            assert!(driver_loads);
            assert_eq!(dev.driver(), DriverKind::Cuda);
        }
        Err(Error::Load(e)) => {
            assert!(!driver_loads);
            assert!(e.to_string().contains("libcuda.so.1"), "{e}");
        }
        // A driver without a usable GPU (a container with the library only).
        Err(e) => assert!(driver_loads, "unexpected: {e}"),
    }
    let has_nodes = std::fs::read_dir("/dev")
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("nvidia"))
        })
        .unwrap_or(false);
    match (
        std::env::var("NCCL_RS_DRIVER").ok().as_deref(),
        driver_loads,
        has_nodes,
    ) {
        (None | Some("auto"), false, false) => {
            let choice = nccl_safe::selected_driver().unwrap();
            assert_eq!(choice.kind, DriverKind::Sim);
            assert!(
                choice.reason.contains("sim driver runs"),
                "{}",
                choice.reason
            );
            assert_eq!(Device::from_env(0).unwrap().driver(), DriverKind::Sim);
        }
        (None | Some("auto"), true, _) => {
            assert_eq!(nccl_safe::selected_driver().unwrap().kind, DriverKind::Cuda);
        }
        _ => {} // explicit settings and broken installs are covered by unit tests
    }
}
