//! The built-in kernels' PTX must assemble for old and new GPUs (the architectures
//! the ptxas found still supports: sm_50 up to CUDA 12, sm_75 up from CUDA 13). Uses `ptxas` (from a
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
    let version = Command::new(&ptxas)
        .arg("--version")
        .output()
        .expect("ptxas --version runs");
    let text = String::from_utf8_lossy(&version.stdout);
    let major = release_major(&text).unwrap_or_else(|| panic!("no release in {text:?}"));
    let arches = architectures(major);
    assert!(arches.contains(&"sm_90"));
    eprintln!("ptxas release {major}: assembling for {arches:?}");
    for arch in arches {
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

/// The major release in `ptxas --version`'s "Cuda compilation tools, release 12.9, ...".
fn release_major(text: &str) -> Option<u32> {
    let rest = &text[text.find("release ")? + "release ".len()..];
    rest.split(['.', ',']).next()?.trim().parse().ok()
}

/// The oldest, a middle and the newest datacenter families the toolkit still
/// assembles for: CUDA 13 dropped everything before Turing (sm_75); sm_90 always.
fn architectures(major: u32) -> &'static [&'static str] {
    if major >= 13 {
        &["sm_75", "sm_80", "sm_90"]
    } else {
        &["sm_50", "sm_75", "sm_80", "sm_90"]
    }
}

#[test]
fn the_architectures_follow_the_ptxas_release() {
    let v12 = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 12.9, V12.9.86\n";
    let v13 = "Cuda compilation tools, release 13.5, V13.5.37\n";
    assert_eq!(release_major(v12), Some(12));
    assert_eq!(release_major(v13), Some(13));
    assert_eq!(release_major("garbage"), None);
    assert!(architectures(12).contains(&"sm_50"));
    assert!(!architectures(13).contains(&"sm_50"));
    assert_eq!(architectures(13)[0], "sm_75");
    for m in [11, 12, 13, 14] {
        assert!(architectures(m).contains(&"sm_90"));
    }
}
