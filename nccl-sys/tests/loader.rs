//! The loader against the real libraries of this machine: libnccl from the pip wheel
//! (no GPU needed), and the CUDA driver where one is installed.

use std::collections::HashSet;
use std::ffi::{CStr, OsString};
use std::path::Path;

use nccl_sys::*;

fn env_with<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
    move |var| {
        pairs
            .iter()
            .find(|(k, _)| *k == var)
            .map(|(_, v)| OsString::from(v))
    }
}

fn loaded() -> &'static Nccl {
    match nccl() {
        Ok(lib) => lib,
        Err(e) => panic!("libnccl must load on this machine (run ci/setup): {e}"),
    }
}

#[test]
fn loaded_version_is_reported_and_compared_with_the_header() {
    let lib = loaded();
    let mut code = 0;
    // SAFETY: writes one int.
    let rc = unsafe { lib.ncclGetVersion(&mut code) }.expect("ncclGetVersion exists");
    assert_eq!(rc, ncclSuccess);
    assert_eq!(
        lib.version_code(),
        Some(code),
        "the loader records ncclGetVersion"
    );
    let loaded = format_nccl_version(code);
    let header = format_nccl_version(HEADER_NCCL_VERSION_CODE);
    assert_eq!(header, format!("{NCCL_MAJOR}.{NCCL_MINOR}.{NCCL_PATCH}"));
    eprintln!(
        "loaded libnccl {loaded} from {}; header {header}",
        lib.path().display()
    );
    // Any NCCL that has the functions we call is 2.x.
    assert_eq!(loaded.split('.').next(), Some("2"), "loaded {loaded}");

    // When the library is the one that ships with the header the bindings came from
    // (the pip wheel beside the header with `buildtime-bindgen`; the pinned wheel in
    // NCCL_RS_DEPS_DIR for the bundled bindings), the two versions must agree exactly.
    let sibling = match HEADER_NCCL_INCLUDE_DIR {
        Some(include) => Path::new(include)
            .parent()
            .map(|p| p.join("lib").join("libnccl.so.2")),
        None => std::env::var_os("NCCL_RS_DEPS_DIR")
            .map(|d| Path::new(&d).join("python/nvidia/nccl/lib/libnccl.so.2")),
    };
    let same_install = match (
        sibling.and_then(|s| s.canonicalize().ok()),
        lib.path().canonicalize(),
    ) {
        (Some(a), Ok(b)) => a == b,
        _ => false,
    };
    if same_install {
        assert_eq!(
            code, HEADER_NCCL_VERSION_CODE,
            "library and header of one install"
        );
    }
}

#[test]
fn error_string_for_every_result_code_is_non_empty_and_distinct() {
    let lib = loaded();
    let mut seen = HashSet::new();
    for code in ncclSuccess..ncclNumResults {
        // SAFETY: ncclGetErrorString takes any code and returns a static string.
        let ptr = unsafe { lib.ncclGetErrorString(code) }.expect("ncclGetErrorString exists");
        assert!(!ptr.is_null(), "code {code}");
        // SAFETY: non-null, NUL-terminated, static.
        let text = unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned();
        assert!(!text.trim().is_empty(), "code {code} has an empty string");
        assert!(seen.insert(text.clone()), "code {code} repeats {text:?}");
    }
    assert_eq!(seen.len(), ncclNumResults as usize);
}

#[test]
fn result_codes_are_plain_integers_so_unknown_codes_are_representable() {
    // A code from a newer library than the header: must be a value, not UB.
    let unknown: ncclResult_t = ncclNumResults + 100;
    let lib = loaded();
    // SAFETY: ncclGetErrorString accepts any code.
    let ptr = unsafe { lib.ncclGetErrorString(unknown) }.expect("exists");
    assert!(!ptr.is_null());
    // Aliases of data types and run-time reduction ops are plain values too.
    assert_eq!(ncclInt8, ncclChar);
    let runtime_op: ncclRedOp_t = ncclNumOps + 3;
    assert!(runtime_op > ncclAvg);
    let cuda_code: CUresult = 999_999;
    assert_ne!(cuda_code, CUDA_SUCCESS);
}

#[test]
fn unique_ids_are_generated_and_differ() {
    let lib = loaded();
    let mut a = ncclUniqueId::default();
    let mut b = ncclUniqueId::default();
    // SAFETY: writes one ncclUniqueId each.
    unsafe {
        assert_eq!(lib.ncclGetUniqueId(&mut a).expect("exists"), ncclSuccess);
        assert_eq!(lib.ncclGetUniqueId(&mut b).expect("exists"), ncclSuccess);
    }
    assert!(a.internal.iter().any(|&c| c != 0), "id is not all zero");
    assert_ne!(a.internal, b.internal, "two ids differ");
}

#[test]
fn process_wide_library_is_loaded_once_from_any_thread() {
    let first = loaded() as *const Nccl as usize;
    let handles: Vec<_> = (0..8)
        .map(|_| std::thread::spawn(|| nccl().map(|l| l as *const Nccl as usize)))
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic").expect("loads"), first);
    }
}

#[test]
fn cuda_driver_loads_where_present_and_names_libcuda_where_absent() {
    match Cuda::load() {
        Ok(cuda) => {
            // A GPU node: the driver reports its version through the loaded table.
            let mut code = 0;
            // SAFETY: writes one int; needs no cuInit.
            let rc = unsafe { cuda.cuDriverGetVersion(&mut code) }.expect("exists");
            assert_eq!(rc, CUDA_SUCCESS);
            assert!(code >= 11000, "driver version {code}");
            assert_eq!(cuda.version_code(), Some(code));
            eprintln!(
                "CUDA driver {} at {}",
                format_cuda_version(code),
                cuda.path().display()
            );
        }
        Err(e) => {
            let LoadError::NotFound { library, tried, .. } = &e else {
                panic!("expected NotFound, got {e:?}");
            };
            assert_eq!(*library, "libcuda");
            let names: Vec<_> = tried
                .iter()
                .map(|a| a.name.to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["libcuda.so.1", "libcuda.so"]);
            let text = e.to_string();
            assert!(text.contains("libcuda.so.1"), "{text}");
            assert!(text.contains("system loader"), "{text}");
            assert!(tried.iter().all(|a| !a.error.is_empty()));
            // The process-wide accessor reports the same error, without panicking.
            assert_eq!(cuda().unwrap_err(), e);
        }
    }
}

#[test]
fn nccl_library_variable_is_the_only_place_tried_and_is_named() {
    let env = env_with(&[("NCCL_LIBRARY", "/nonexistent/libnccl.so")]);
    let err = Nccl::load_with_env(env).unwrap_err();
    let LoadError::NotFound { library, tried, .. } = &err else {
        panic!("expected NotFound, got {err:?}");
    };
    assert_eq!(*library, "libnccl");
    assert_eq!(
        tried.len(),
        1,
        "an explicit path is not silently replaced: {tried:?}"
    );
    assert_eq!(tried[0].name, OsString::from("/nonexistent/libnccl.so"));
    assert_eq!(tried[0].source, "NCCL_LIBRARY");
    let text = err.to_string();
    assert!(text.contains("/nonexistent/libnccl.so"), "{text}");
    assert!(text.contains("NCCL_LIBRARY"), "{text}");
}

#[test]
fn without_the_variable_the_system_loader_then_the_wheels_are_tried() {
    // An environment without NCCL_LIBRARY: the search falls through the system
    // loader's names, then the wheels' folders. Where the process was told the library
    // through NCCL_LIBRARY (GPU nodes often keep libnccl inside a Python environment,
    // and ci/gpu-check exports it), the search may rightly find nothing; it must then
    // say that it tried the system loader before the wheels.
    // What the run-time wheel search reads (PATH, HOME, NCCL_RS_DEPS_DIR,
    // VIRTUAL_ENV, CONDA_PREFIX) is this process's.
    match Nccl::load_with_env(|var| {
        (var != "NCCL_LIBRARY")
            .then(|| std::env::var_os(var))
            .flatten()
    }) {
        Ok(lib) => assert!(lib.version_code().is_some()),
        Err(LoadError::NotFound { tried, .. }) if std::env::var_os("NCCL_LIBRARY").is_some() => {
            let sources: Vec<&str> = tried.iter().map(|t| t.source).collect();
            assert_eq!(sources.first(), Some(&"system loader"), "{sources:?}");
            let last_system = sources.iter().rposition(|s| *s == "system loader");
            let first_wheel = sources.iter().position(|s| *s == "pip wheel");
            if let (Some(a), Some(b)) = (last_system, first_wheel) {
                assert!(a < b, "system loader before wheels: {sources:?}");
            }
            assert!(
                loaded().version_code().is_some(),
                "found through NCCL_LIBRARY"
            );
        }
        Err(e) => panic!("libnccl must load by search on this machine (run ci/setup): {e}"),
    }
    let attempts = match Nccl::load_with_env(|var| {
        (var == "NCCL_LIBRARY").then(|| OsString::from("/nonexistent/x.so"))
    }) {
        Err(LoadError::NotFound { tried, .. }) => tried.len(),
        other => panic!("expected NotFound, got {other:?}"),
    };
    assert_eq!(attempts, 1);
}

#[test]
fn cuda_driver_library_variable_is_the_only_place_tried_and_is_named() {
    let env = env_with(&[("CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1")]);
    let err = Cuda::load_with_env(env).unwrap_err();
    let LoadError::NotFound { tried, .. } = &err else {
        panic!("expected NotFound, got {err:?}");
    };
    assert_eq!(tried.len(), 1);
    assert_eq!(tried[0].source, "CUDA_DRIVER_LIBRARY");
    assert!(err.to_string().contains("/nonexistent/libcuda.so.1"));
}

#[test]
fn lookup_of_a_name_the_library_lacks_names_function_and_versions() {
    let lib = loaded();
    assert!(lib.lookup("ncclGetVersion").is_ok());
    let err = lib.lookup("ncclFunctionFromTheFuture").unwrap_err();
    match &err {
        LoadError::MissingSymbol {
            symbol,
            library,
            loaded_version,
            header_version,
            ..
        } => {
            assert_eq!(symbol, "ncclFunctionFromTheFuture");
            assert_eq!(*library, "libnccl");
            assert_eq!(
                *loaded_version,
                format_nccl_version(lib.version_code().unwrap())
            );
            assert_eq!(
                *header_version,
                format_nccl_version(HEADER_NCCL_VERSION_CODE)
            );
        }
        other => panic!("expected MissingSymbol, got {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("ncclFunctionFromTheFuture"), "{text}");
    assert!(
        text.contains(&format_nccl_version(HEADER_NCCL_VERSION_CODE)),
        "{text}"
    );
}

#[test]
fn calling_a_function_the_library_lacks_is_an_error_not_a_crash() {
    // Open a library that is not NCCL at all: every nccl* entry is missing, which is
    // what an NCCL older than the headers looks like for the newer functions.
    let lib = Nccl::open("libc.so.6").expect("libc opens");
    assert_eq!(lib.version_code(), None);
    let mut code = 0;
    // SAFETY: the call does not happen; the entry is missing.
    let err = unsafe { lib.ncclGetVersion(&mut code) }.unwrap_err();
    match &err {
        LoadError::MissingSymbol {
            symbol,
            loaded_version,
            ..
        } => {
            assert_eq!(symbol, "ncclGetVersion");
            assert_eq!(loaded_version, "unknown");
        }
        other => panic!("expected MissingSymbol, got {other:?}"),
    }
    assert!(err.to_string().contains("ncclGetVersion"));
    let missing = lib.missing_functions();
    assert!(missing.contains(&"ncclAllReduce") && missing.contains(&"ncclGetUniqueId"));
}

#[test]
fn function_table_knows_what_the_real_library_has() {
    let lib = loaded();
    assert_eq!(lib.has_function("ncclAllReduce"), Some(true));
    assert_eq!(lib.has_function("ncclCommInitRankConfig"), Some(true));
    assert_eq!(lib.has_function("notAnNcclFunction"), None);
    // The wheel and the header are one release: nothing is missing.
    let missing = lib.missing_functions();
    if lib.version_code() == Some(HEADER_NCCL_VERSION_CODE) {
        assert!(missing.is_empty(), "{missing:?}");
    }
}

#[test]
fn open_names_the_path_it_could_not_open() {
    let err = Nccl::open("/nonexistent/dir/libnccl.so.2").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/dir/libnccl.so.2"));
    let err = Cuda::open("/nonexistent/dir/libcuda.so.1").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/dir/libcuda.so.1"));
}

#[test]
fn versioned_driver_names_are_bound() {
    // cuda.h's macros turn these into their _v2 symbols; the methods must exist with
    // those names (a compile-time check) and the table must know them.
    let _: unsafe fn(&Cuda, CUstream) -> Result<CUresult, LoadError> = Cuda::cuStreamDestroy_v2;
    let _: unsafe fn(&Cuda, CUevent) -> Result<CUresult, LoadError> = Cuda::cuEventDestroy_v2;
    let _ = Cuda::cuStreamWaitValue32_v2;
    let _ = Cuda::cuMemAllocAsync;
    let _ = Cuda::cuMemFreeAsync;
    let _ = Cuda::cuLaunchHostFunc;
    let _ = Cuda::cuModuleLoadData;
    let _ = Cuda::cuLaunchKernel;
    let _ = Cuda::cuDevicePrimaryCtxRelease_v2;
    let _ = Cuda::cuMemcpyHtoDAsync_v2;
}

#[test]
fn layouts_match_the_headers() {
    // bindgen's own layout assertions are compile-time constants in the bindings;
    // these repeat the ones the safe layer relies on most.
    assert_eq!(
        std::mem::size_of::<ncclUniqueId>(),
        NCCL_UNIQUE_ID_BYTES as usize
    );
    assert_eq!(std::mem::size_of::<CUdeviceptr>(), 8);
    assert_eq!(
        std::mem::size_of::<cudaStream_t>(),
        std::mem::size_of::<CUstream>()
    );
    let config = ncclConfig_t::default();
    assert_eq!(
        config.size, 0,
        "Default is all zero; nccl-safe fills the initializer"
    );
}

#[test]
fn versions_format_as_their_libraries_print_them() {
    assert_eq!(format_nccl_version(23203), "2.32.3");
    assert_eq!(format_nccl_version(21903), "2.19.3");
    assert_eq!(format_nccl_version(2708), "2.7.8");
    assert_eq!(format_cuda_version(12090), "12.9");
    assert_eq!(format_cuda_version(13000), "13.0");
}

#[test]
fn handles_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<Nccl>();
    assert_sync::<Nccl>();
    assert_send::<Cuda>();
    assert_sync::<Cuda>();
    assert_send::<LoadError>();
    assert_sync::<LoadError>();
}

/// The real wheel's library, found at run time through a virtual environment the
/// loader was never told about at build time, and through a Python on `PATH`.
#[test]
fn a_wheel_in_a_virtual_environment_or_beside_a_python_on_path_is_found_at_run_time() {
    let real = loaded()
        .path()
        .canonicalize()
        .expect("the loaded libnccl exists");
    let tmp = tempfile::tempdir().unwrap();
    let venv = tmp.path().join("venv");
    let lib_dir = venv.join("lib/python3.12/site-packages/nvidia/nccl/lib");
    std::fs::create_dir_all(&lib_dir).unwrap();
    std::os::unix::fs::symlink(&real, lib_dir.join("libnccl.so.2")).unwrap();
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("bin/python3"), "").unwrap();
    let expected = lib_dir.join("libnccl.so.2");

    let venv_s = venv.to_string_lossy().into_owned();
    let path_s = venv.join("bin").to_string_lossy().into_owned();
    for pairs in [
        vec![("VIRTUAL_ENV", venv_s.as_str())],
        vec![("PATH", path_s.as_str())],
    ] {
        let lib = Nccl::load_with_env(env_with(&pairs));
        match lib {
            // A system libnccl is found first where one is installed.
            Ok(lib) if lib.path() != expected => {
                assert!(
                    lib.path().to_string_lossy().starts_with("libnccl"),
                    "{lib:?}"
                )
            }
            Ok(lib) => assert!(lib.version_code().is_some()),
            Err(e) => panic!("{pairs:?}: {e}"),
        }
    }
    // Nothing to go on: the wheel is not found, and the error lists the system
    // loader's names only.
    if let Err(LoadError::NotFound { tried, .. }) = Nccl::load_with_env(|_| None) {
        assert!(
            tried.iter().all(|t| t.source == "system loader"),
            "{tried:?}"
        );
    }
}
