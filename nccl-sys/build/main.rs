//! Build script of `nccl-sys`.
//!
//! By default the crate uses the bindings kept in `src/bundled/`, which our own
//! generator (`generate.rs`) made from the pinned headers (`ci/regen-bindings`):
//! the build then needs no headers, no libclang and no Python, and it copies those
//! two files into `OUT_DIR`. With the feature `buildtime-bindgen` the generator runs
//! here instead, on the `nccl.h` and `cuda.h` found on this machine (`search.rs`),
//! and writes the same two files. `src/lib.rs` includes them from `OUT_DIR` either
//! way.
//!
//! `links = "nccl"` metadata for dependents' build scripts: `DEP_NCCL_VERSION_CODE`
//! and `DEP_NCCL_CUDA_VERSION` (the headers' versions) always; `DEP_NCCL_INCLUDE`
//! and `DEP_NCCL_CUDA_INCLUDE` only when the headers of this machine were used.

use std::env;
use std::path::PathBuf;

mod bundled;
#[cfg(feature = "buildtime-bindgen")]
mod generate;
#[cfg(feature = "buildtime-bindgen")]
mod search;

fn main() {
    println!("cargo:rerun-if-changed=build");
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));

    #[cfg(feature = "buildtime-bindgen")]
    {
        let generated = generate::run(&manifest_dir, &out_dir);
        println!("cargo:include={}", generated.nccl_dir.display());
        println!("cargo:cuda_include={}", generated.cuda_dir.display());
        // Only with headers of this machine do these facts mean anything: the crate
        // shows them (`HEADER_*_INCLUDE_DIR`) and the loader tries these wheel
        // folders before searching at run time.
        let joined = env::join_paths(&generated.wheel_lib_dirs)
            .unwrap_or_else(|e| fail(&format!("a wheel folder cannot be joined into a list: {e}")));
        println!(
            "cargo:rustc-env=NCCL_RS_WHEEL_LIB_DIRS={}",
            joined.to_string_lossy()
        );
        println!(
            "cargo:rustc-env=NCCL_RS_NCCL_INCLUDE_DIR={}",
            generated.nccl_dir.display()
        );
        println!(
            "cargo:rustc-env=NCCL_RS_CUDA_INCLUDE_DIR={}",
            generated.cuda_dir.display()
        );
    }
    #[cfg(not(feature = "buildtime-bindgen"))]
    bundled::copy(&manifest_dir, &out_dir);

    let versions = bundled::versions(&out_dir.join("bindings.rs"));
    println!("cargo:version_code={}", versions.nccl);
    println!("cargo:cuda_version={}", versions.cuda);
}

/// Prints a message as the build script's error and stops the build.
fn fail(message: &str) -> ! {
    eprintln!("\nerror: nccl-sys cannot build\n\n{message}\n");
    std::process::exit(1);
}
