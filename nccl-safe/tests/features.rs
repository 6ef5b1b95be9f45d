//! What the loaded NCCL can do: the feature table for given versions and symbols, the
//! typed error, and the real libnccl loaded here.

use nccl_safe::{Error, Feature, NcclFeatures, Version};

#[test]
fn each_feature_needs_its_version_and_its_symbol() {
    let all = |_: &str| true;
    let old = NcclFeatures::of(Version::new(2, 19, 0), all);
    assert!(Feature::ALL.iter().all(|&f| !old.supports(f)), "{old:?}");
    let v2191 = NcclFeatures::of(Version::new(2, 19, 1), all);
    assert!(v2191.supports(Feature::Registration) && !v2191.supports(Feature::GroupSimulate));
    assert!(!NcclFeatures::of(Version::new(2, 22, 2), all).supports(Feature::GroupSimulate));
    assert!(NcclFeatures::of(Version::new(2, 22, 3), all).supports(Feature::GroupSimulate));
    assert!(!NcclFeatures::of(Version::new(2, 29, 6), all).supports(Feature::Suspend));
    assert!(NcclFeatures::of(Version::new(2, 29, 7), all).supports(Feature::Suspend));
    assert!(!NcclFeatures::of(Version::new(2, 32, 2), all).supports(Feature::CollConfig));
    assert!(NcclFeatures::of(Version::new(2, 32, 3), all).supports(Feature::CollConfig));
    assert!(!NcclFeatures::of(Version::new(2, 32, 2), all).supports(Feature::LaunchEvent));
    assert!(!NcclFeatures::of(Version::new(2, 29, 1), all).supports(Feature::OneSided));
    assert!(NcclFeatures::of(Version::new(2, 29, 2), all).supports(Feature::OneSided));
    assert!(NcclFeatures::of(Version::new(2, 32, 3), all).supports(Feature::LaunchEvent));
    let v2234 = NcclFeatures::of(Version::new(2, 23, 4), all);
    assert!(v2234.supports(Feature::ScalableInit) && !v2234.supports(Feature::Fp8));
    let v224 = NcclFeatures::of(Version::new(2, 24, 3), all);
    assert!(v224.supports(Feature::Fp8));
    assert!(!v224.supports(Feature::Shrink));
    let v227 = NcclFeatures::of(Version::new(2, 27, 3), all);
    assert!(v227.supports(Feature::Shrink) && v227.supports(Feature::WindowRegistration));
    assert!(!v227.supports(Feature::AllToAll));
    let v2283 = NcclFeatures::of(Version::new(2, 28, 3), all);
    assert!(v2283.supports(Feature::AllToAll) && v2283.supports(Feature::Scatter));
    assert!(!v2283.supports(Feature::Revoke));
    assert!(NcclFeatures::of(Version::new(2, 28, 7), all).supports(Feature::Revoke));
    assert!(!NcclFeatures::of(Version::new(2, 30, 3), all).supports(Feature::ParamApi));
    assert!(NcclFeatures::of(Version::new(2, 30, 4), all).supports(Feature::ParamApi));
    // A new version built without a function lacks that feature.
    let stripped = NcclFeatures::of(Version::new(2, 32, 3), |s| s != "ncclGather");
    assert!(!stripped.supports(Feature::Gather));
    assert!(stripped.supports(Feature::Scatter) && stripped.supports(Feature::Fp8));
}

#[test]
fn require_names_the_loaded_and_the_needed_version() {
    let f = NcclFeatures::of(Version::new(2, 26, 2), |_| true);
    f.require(Feature::Fp8).unwrap();
    let e = f.require(Feature::Shrink).unwrap_err();
    assert!(matches!(
        e,
        Error::UnsupportedByNccl {
            feature: "shrink",
            loaded: Version {
                major: 2,
                minor: 26,
                patch: 2
            },
            needs: Version {
                major: 2,
                minor: 27,
                patch: 3
            },
        }
    ));
    assert_eq!(
        e.to_string(),
        "shrink unsupported by NCCL 2.26.2, needs 2.27.3"
    );
}

#[test]
fn the_loaded_library_reports_its_version_and_symbols() {
    let features = nccl_safe::nccl_features().expect("libnccl loads here (ci/setup)");
    assert_eq!(features.version, nccl_safe::nccl_version().unwrap());
    assert_eq!(features.supported.len(), Feature::ALL.len());
    let lib = nccl_sys::nccl().unwrap();
    for &(f, has) in &features.supported {
        let exported = f.symbol().is_none_or(|s| lib.has_function(s) == Some(true));
        assert_eq!(
            has,
            features.version >= f.min_version() && exported,
            "{f} on NCCL {}",
            features.version
        );
    }
    // The wheel ci/setup installs is 2.24 or newer: fp8 is there.
    assert!(features.supports(Feature::Fp8), "{features:?}");
}
