//! Runs the `cudarc-interop` program as a user would. Without a GPU (the sim driver)
//! it must say that cudarc needs one, show the interop's typed error, and exit 0.
#![cfg(feature = "cudarc")]

use std::process::Command;

#[test]
fn on_the_sim_it_explains_that_cudarc_needs_a_gpu_and_exits_zero() {
    let out = Command::new(env!("CARGO_BIN_EXE_cudarc-interop"))
        .env("NCCL_RS_DRIVER", "sim")
        .output()
        .expect("cudarc-interop runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("driver: sim"), "{stdout}");
    assert!(stdout.contains("cudarc needs a CUDA GPU"), "{stdout}");
    assert!(
        stdout.contains("sim driver: cudarc interop") && stdout.contains("not supported"),
        "{stdout}"
    );
}
