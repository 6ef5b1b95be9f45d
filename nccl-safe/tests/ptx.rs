//! The built-in kernels' PTX must assemble for old and new GPUs. Uses `ptxas` (from a
//! CUDA toolkit, or the pip wheel nvidia-cuda-nvcc-cu12 that ci/setup installs into
//! .deps/nvcc); it runs on the CPU, so no GPU is needed. Required under CI.

use std::path::PathBuf;
use std::process::Command;

fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates = vec![
        workspace.join(".deps/nvcc/nvidia/cuda_nvcc/bin/ptxas"),
        workspace.join(".deps/nvcc/nvidia/cu13/bin/ptxas"),
        PathBuf::from("/usr/local/cuda/bin/ptxas"),
    ];
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    candidates.into_iter().find(|p| p.is_file())
}

#[test]
fn builtin_kernels_assemble_for_every_architecture_family() {
    let Some(ptxas) = find_ptxas() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have ptxas (ci/setup installs it)"
        );
        eprintln!("ptxas not found: PTX not assembled (run ci/setup)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("kernels.ptx");
    std::fs::write(&ptx, nccl_safe::builtin_kernels_ptx()).unwrap();
    for arch in ["sm_50", "sm_80", "sm_90"] {
        let out = Command::new(&ptxas)
            .arg("--gpu-name")
            .arg(arch)
            .arg(&ptx)
            .arg("-o")
            .arg(dir.path().join(format!("kernels.{arch}.cubin")))
            .output()
            .expect("ptxas runs");
        assert!(
            out.status.success(),
            "ptxas {arch} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
