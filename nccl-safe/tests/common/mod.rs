//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod reference;

use std::time::Duration;

use nccl_safe::{Communicator, Config, Device, Error};

/// Generous bound for waits that must succeed; a hang fails the test instead of
/// hanging it.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The device a scenario runs on, and one of another device (or driver) for
/// wrong-device checks.
pub struct Devices {
    pub dev: Device,
    pub other: Device,
}

pub fn sim() -> Devices {
    Devices {
        dev: Device::sim(0).expect("sim device 0"),
        other: Device::sim(1).expect("sim device 1"),
    }
}

/// On one GPU, the "other" device is a sim device: a different device all the same.
pub fn cuda() -> Devices {
    Devices {
        dev: Device::cuda(0).expect("a CUDA GPU"),
        other: Device::sim(0).expect("sim device 0"),
    }
}

/// Runs each named body of `bodies` once per driver: on sim as a normal test, on
/// cuda as a test ignored unless asked for (`--ignored` on a GPU node).
#[macro_export]
macro_rules! on_both_drivers {
    ($($name:ident),* $(,)?) => {
        mod sim {
            $(
                #[test]
                fn $name() {
                    super::bodies::$name(&$crate::common::sim());
                }
            )*
        }
        mod cuda {
            $(
                #[test]
                #[ignore = "needs a CUDA GPU"]
                fn $name() {
                    super::bodies::$name(&$crate::common::cuda());
                }
            )*
        }
    };
}

/// Asserts a typed error and returns it for further checks.
pub fn expect_err<T: std::fmt::Debug>(r: Result<T, Error>, what: &str) -> Error {
    match r {
        Ok(v) => panic!("{what}: expected an error, got Ok({v:?})"),
        Err(e) => e,
    }
}

/// Asserts that `e` refuses `feature` as the loaded (or emulated) NCCL's lack, naming
/// `needs`, the release that brings it.
pub fn assert_unsupported(e: &Error, feature: &str, needs: &str) {
    assert!(
        matches!(e, Error::UnsupportedByNccl { feature: f, .. } if *f == feature)
            && e.to_string().contains(needs),
        "{feature} needs {needs}: {e}"
    );
}

/// Asserts that `stream` is held back: it cannot finish within a short wait. With
/// correct ordering it never finishes before its gate opens, so this never fails
/// spuriously; work that wrongly skips the wait finishes well within it.
pub fn assert_held(stream: &nccl_safe::Stream, what: &str) {
    match stream.synchronize_timeout(Duration::from_millis(100)) {
        Err(Error::Timeout { .. }) => {}
        other => panic!("{what}: expected the stream to be held back, got {other:?}"),
    }
}

/// A communicator of one rank on `dev`, made with `config`.
pub fn one_rank(dev: &Device, config: &Config) -> Communicator {
    Communicator::init_all(std::slice::from_ref(dev), config)
        .unwrap()
        .pop()
        .unwrap()
}
