//! The bindings kept in `src/bundled/`: copied into `OUT_DIR` by default, and read
//! back for the header versions whichever way they were made.

use std::fs;
use std::path::Path;

use crate::fail;

/// The two files the generator writes and `src/lib.rs` includes.
pub const FILES: [&str; 2] = ["bindings.rs", "functions.rs"];

/// Copies the bundled bindings into `out_dir`.
#[cfg_attr(feature = "buildtime-bindgen", allow(dead_code))]
pub fn copy(manifest_dir: &Path, out_dir: &Path) {
    for name in FILES {
        let from = manifest_dir.join("src").join("bundled").join(name);
        println!("cargo:rerun-if-changed={}", from.display());
        if let Err(e) = fs::copy(&from, out_dir.join(name)) {
            fail(&format!(
                "the bundled bindings {} cannot be copied: {e}\n\
                 (they are part of the crate; `ci/regen-bindings` makes them)",
                from.display()
            ));
        }
    }
}

/// The header versions the bindings were generated from.
pub struct Versions {
    /// `NCCL_VERSION_CODE` of nccl.h.
    pub nccl: u32,
    /// `CUDA_VERSION` of cuda.h.
    pub cuda: u32,
}

/// Reads `NCCL_VERSION_CODE` and `CUDA_VERSION` from generated bindings.
pub fn versions(bindings: &Path) -> Versions {
    let text = fs::read_to_string(bindings)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", bindings.display())));
    let constant = |name: &str| {
        text.lines()
            .find_map(|line| {
                let rest = line.trim().strip_prefix("pub const ")?.strip_prefix(name)?;
                let value = rest.strip_prefix(':')?.split('=').nth(1)?;
                value.trim().trim_end_matches(';').trim().parse().ok()
            })
            .unwrap_or_else(|| {
                fail(&format!(
                    "{} defines no `{name}` constant",
                    bindings.display()
                ))
            })
    };
    Versions {
        nccl: constant("NCCL_VERSION_CODE"),
        cuda: constant("CUDA_VERSION"),
    }
}
