//! Runs the `nccl-info` program as a user would, with the real environment variables.

use std::process::Command;

fn run(envs: &[(&str, &str)]) -> (bool, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nccl-info"));
    cmd.env_remove("NCCL_LIBRARY")
        .env_remove("CUDA_DRIVER_LIBRARY");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("nccl-info runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prints_header_and_loaded_versions_and_the_driver_status() {
    let (ok, stdout, stderr) = run(&[]);
    assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let header = nccl_safe::nccl_header_version().to_string();
    let loaded = nccl_safe::nccl_version().unwrap().to_string();
    let source = nccl_sys::HEADER_NCCL_INCLUDE_DIR.unwrap_or("bundled bindings");
    assert!(
        stdout.contains(&format!("NCCL header:  {header} ({source})")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("NCCL library: {loaded}")),
        "{stdout}"
    );
    let features = nccl_safe::nccl_features().unwrap();
    assert!(
        stdout.contains(&format!("NCCL features of {loaded}:")),
        "{stdout}"
    );
    for (feature, has) in &features.supported {
        let row = format!(
            "  {:<22} {:<3}  (needs {})",
            feature.name(),
            if *has { "yes" } else { "no" },
            feature.min_version()
        );
        assert!(stdout.contains(&row), "no row {row:?} in:\n{stdout}");
    }
    match nccl_safe::cuda_driver_version() {
        Ok(_) => assert!(stdout.contains("CUDA driver:  found"), "{stdout}"),
        Err(_) => {
            assert!(stdout.contains("CUDA driver:  not found"), "{stdout}");
            assert!(stdout.contains("libcuda.so.1"), "{stdout}");
        }
    }
    if let Ok(choice) = nccl_safe::selected_driver() {
        assert!(
            stdout.contains(&format!("Driver:       {} (", choice.kind)),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("Device 0:     {}:0", choice.kind)),
            "{stdout}"
        );
    }
}

#[test]
fn nccl_library_variable_pointing_nowhere_fails_naming_the_path() {
    let (ok, _stdout, stderr) = run(&[("NCCL_LIBRARY", "/nonexistent/libnccl.so")]);
    assert!(!ok, "a libnccl that cannot load is a failure");
    assert!(stderr.contains("/nonexistent/libnccl.so"), "{stderr}");
    assert!(stderr.contains("NCCL_LIBRARY"), "{stderr}");
}

#[test]
fn cuda_driver_variable_pointing_nowhere_is_reported_not_fatal() {
    let (ok, stdout, _) = run(&[("CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1")]);
    assert!(
        ok,
        "no CUDA driver is not an error: the sim driver needs none"
    );
    assert!(stdout.contains("CUDA driver:  not found"), "{stdout}");
    assert!(stdout.contains("/nonexistent/libcuda.so.1"), "{stdout}");
}
