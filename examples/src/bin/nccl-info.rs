//! Prints what this build and this machine provide: the NCCL header the bindings came
//! from, the libnccl loaded at run time and the features it has (with the version
//! each needs), whether a CUDA driver was found, and which
//! driver (`cuda` or `sim`) `NCCL_RS_DRIVER` selects.
//!
//! Exits with status 1 when libnccl cannot be loaded (the message lists every place
//! tried); a missing CUDA driver is reported but is not an error: the sim driver
//! runs without one.

use std::process::ExitCode;

use nccl_sys as sys;

fn main() -> ExitCode {
    println!("nccl-rs {}", env!("CARGO_PKG_VERSION"));
    println!(
        "NCCL header:  {} ({})",
        nccl_safe::nccl_header_version(),
        header_source(sys::HEADER_NCCL_INCLUDE_DIR)
    );
    let nccl_ok = match sys::nccl() {
        Ok(lib) => match nccl_safe::nccl_version() {
            Ok(v) => {
                println!("NCCL library: {v} ({})", lib.path().display());
                let header = nccl_safe::nccl_header_version();
                if v != header {
                    println!("              differs from the header {header}");
                }
                let missing = lib.missing_functions();
                if !missing.is_empty() {
                    println!(
                        "              lacks {} function(s) of the header: {}",
                        missing.len(),
                        missing.join(", ")
                    );
                }
                if let Ok(features) = nccl_safe::nccl_features() {
                    println!("NCCL features of {}:", features.version);
                    for (feature, has) in &features.supported {
                        println!(
                            "  {:<22} {:<3}  (needs {})",
                            feature.name(),
                            if *has { "yes" } else { "no" },
                            feature.min_version()
                        );
                    }
                }
                true
            }
            Err(e) => {
                eprintln!(
                    "NCCL library: loaded from {} but: {e}",
                    lib.path().display()
                );
                false
            }
        },
        Err(e) => {
            eprintln!("NCCL library: not loaded: {e}");
            false
        }
    };
    let cuda_header = nccl_safe::cuda_header_version();
    println!(
        "CUDA header:  {}.{} ({})",
        cuda_header.major,
        cuda_header.minor,
        header_source(sys::HEADER_CUDA_INCLUDE_DIR)
    );
    match (sys::cuda(), nccl_safe::cuda_driver_version()) {
        (Ok(lib), Ok(v)) => {
            println!(
                "CUDA driver:  found, supports CUDA {}.{} ({})",
                v.major,
                v.minor,
                lib.path().display()
            )
        }
        (_, Err(e)) => {
            println!("CUDA driver:  not found");
            for line in e.to_string().lines() {
                println!("              {line}");
            }
        }
        (Err(e), Ok(_)) => println!("CUDA driver:  not found: {e}"),
    }
    match nccl_safe::selected_driver() {
        Ok(choice) => {
            println!("Driver:       {} ({})", choice.kind, choice.reason);
            match nccl_safe::Device::from_env(0) {
                Ok(dev) => println!(
                    "Device 0:     {dev}, {}, {} MiB",
                    dev.name().unwrap_or_else(|e| e.to_string()),
                    dev.total_memory().map(|b| b >> 20).unwrap_or(0)
                ),
                Err(e) => println!("Device 0:     unavailable: {e}"),
            }
        }
        Err(e) => println!("Driver:       none: {e}"),
    }
    if nccl_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Where the bindings' header came from: this machine's folder with the feature
/// `buildtime-bindgen`, else the bundled bindings.
fn header_source(dir: Option<&str>) -> String {
    match dir {
        Some(dir) => dir.to_string(),
        None => "bundled bindings".to_string(),
    }
}
