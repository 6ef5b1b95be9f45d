//! Errors and versions against the real libnccl of this machine.

use nccl_safe::{Error, Version};
use nccl_sys as sys;

#[test]
fn loaded_and_header_versions_are_reported() {
    let loaded = nccl_safe::nccl_version().expect("libnccl loads here");
    assert_eq!(loaded.major, 2);
    let header = nccl_safe::nccl_header_version();
    assert_eq!(
        (header.major, header.minor, header.patch),
        (sys::NCCL_MAJOR, sys::NCCL_MINOR, sys::NCCL_PATCH)
    );
    let lib = sys::nccl().unwrap();
    assert_eq!(
        Some(loaded),
        lib.version_code().map(Version::from_nccl_code)
    );
}

#[test]
fn version_codes_decode_both_encodings() {
    let v = |a, b, c| Version {
        major: a,
        minor: b,
        patch: c,
    };
    assert_eq!(Version::from_nccl_code(23203), v(2, 32, 3));
    assert_eq!(Version::from_nccl_code(2804), v(2, 8, 4));
    assert_eq!(Version::from_nccl_code(-1), v(0, 0, 0));
    assert_eq!(Version::from_cuda_code(12090), v(12, 9, 0));
    assert_eq!(Version::from_cuda_code(13010), v(13, 1, 0));
    assert!(v(2, 32, 3) > v(2, 9, 0));
    assert_eq!(v(2, 32, 3).to_string(), "2.32.3");
}

#[test]
fn cuda_driver_version_or_an_error_naming_the_driver_library() {
    match nccl_safe::cuda_driver_version() {
        Ok(v) => assert!(v.major >= 11, "driver supports CUDA {v}"),
        Err(Error::Load(e)) => assert!(e.to_string().contains("libcuda.so.1"), "{e}"),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn errors_and_versions_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<Error>();
    assert_sync::<Error>();
    assert_send::<Version>();
    assert_sync::<Version>();
}
