//! The build script's header search, exercised on folders made for the test.

#[allow(dead_code)]
#[path = "../build/search.rs"]
mod search;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use search::Search;

fn touch(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn env_of(pairs: Vec<(&'static str, PathBuf)>) -> impl Fn(&str) -> Option<OsString> {
    move |var| {
        pairs
            .iter()
            .find(|(k, _)| *k == var)
            .map(|(_, v)| v.clone().into_os_string())
    }
}

#[test]
fn explicit_include_dir_is_used_and_is_the_only_candidate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nccl-include");
    touch(&dir.join("nccl.h"), "#define NCCL_VERSION_CODE 22703\n");
    let env = env_of(vec![("NCCL_INCLUDE_DIR", dir.clone())]);
    let search = Search::new(&env, None, None);
    assert_eq!(search.find_nccl().unwrap(), dir);
    let candidates =
        search.candidates("NCCL_INCLUDE_DIR", &["NCCL_HOME"], &["nvidia/nccl/include"]);
    assert_eq!(candidates, vec![("NCCL_INCLUDE_DIR".to_string(), dir)]);
}

#[test]
fn a_wrong_explicit_dir_is_an_error_naming_the_variable_not_a_fallback() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_of(vec![("CUDA_INCLUDE_DIR", tmp.path().join("empty"))]);
    let search = Search::new(&env, None, None);
    let err = search.find_cuda().unwrap_err();
    assert_eq!(err.header, "cuda.h");
    assert_eq!(err.explicit.as_ref().unwrap().0, "CUDA_INCLUDE_DIR");
    let msg = search.missing_headers_message(None, Some(err));
    assert!(msg.contains("CUDA_INCLUDE_DIR is set to"), "{msg}");
    assert!(
        msg.contains(&tmp.path().join("empty").display().to_string()),
        "{msg}"
    );
    assert!(msg.contains("nvidia-cuda-runtime-cu12"), "{msg}");
}

#[test]
fn search_order_is_homes_then_cuda_then_system_then_wheels() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = tmp.path().join("venv");
    fs::create_dir_all(venv.join("lib/python3.12/site-packages")).unwrap();
    let env = env_of(vec![
        ("NCCL_HOME", tmp.path().join("nccl")),
        ("CUDA_HOME", tmp.path().join("cuda")),
        ("CUDA_PATH", tmp.path().join("cudapath")),
        ("VIRTUAL_ENV", venv.clone()),
    ]);
    let python = vec![tmp.path().join("py-site")];
    let search = Search::new(&env, Some(python), Some(&tmp.path().join("ws")));
    let got: Vec<PathBuf> = search
        .candidates(
            "NCCL_INCLUDE_DIR",
            &["NCCL_HOME", "CUDA_HOME", "CUDA_PATH"],
            &["nvidia/nccl/include", "nvidia/cu13/include"],
        )
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    let t = tmp.path();
    let expected: Vec<PathBuf> = vec![
        t.join("nccl/include"),
        t.join("cuda/include"),
        t.join("cudapath/include"),
        "/usr/local/cuda/include".into(),
        "/usr/include".into(),
        "/usr/local/include".into(),
        "/opt/cuda/include".into(),
        t.join("py-site/nvidia/nccl/include"),
        t.join("py-site/nvidia/cu13/include"),
        venv.join("lib/python3.12/site-packages/nvidia/nccl/include"),
        venv.join("lib/python3.12/site-packages/nvidia/cu13/include"),
        t.join("ws/.deps/python/nvidia/nccl/include"),
        t.join("ws/.deps/python/nvidia/cu13/include"),
    ];
    assert_eq!(got, expected);
}

#[test]
fn a_home_wins_over_later_places_and_cu13_wheels_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    touch(&home.join("include/nccl.h"), "");
    // A CUDA 13 wheel tree holds both headers in one folder.
    let site = tmp.path().join("site");
    touch(&site.join("nvidia/cu13/include/nccl.h"), "");
    touch(&site.join("nvidia/cu13/include/cuda.h"), "");
    touch(&site.join("nvidia/cu13/lib/libnccl.so.2"), "");

    let env = env_of(vec![("NCCL_HOME", home.clone())]);
    let search = Search::new(&env, Some(vec![site.clone()]), None);
    assert_eq!(search.find_nccl().unwrap(), home.join("include"));

    // Without the home, the wheel's folder is where nccl.h is found unless this
    // machine has one in a system folder (a GPU node may); either way its lib
    // folder is known to the loader.
    let search = Search::new(&|_: &str| None, Some(vec![site.clone()]), None);
    let found = search.find_nccl().unwrap();
    let system = [
        "/usr/local/cuda/include",
        "/usr/include",
        "/usr/local/include",
        "/opt/cuda/include",
    ];
    if !system.iter().any(|d| Path::new(d).join("nccl.h").is_file()) {
        assert_eq!(found, site.join("nvidia/cu13/include"));
        assert_eq!(
            search.wheel_lib_dirs(&found),
            vec![site.join("nvidia/cu13/lib")]
        );
    }
}

#[test]
fn not_found_lists_every_folder_tried_and_the_packages_to_install() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_of(vec![("NCCL_RS_DEPS_DIR", tmp.path().join("deps"))]);
    let search = Search::new(&env, None, None);
    let err = match search.find_nccl() {
        Err(e) => e,
        // A machine with a system-wide nccl.h finds it; nothing to check then.
        Ok(_) => return,
    };
    assert!(err.explicit.is_none());
    let deps_wheel = tmp.path().join("deps/python/nvidia/nccl/include");
    assert!(err.tried.iter().any(|(_, p)| *p == deps_wheel));
    let msg = search.missing_headers_message(Some(err), None);
    for needle in [
        "nccl.h not found. Searched, in order:",
        "/usr/local/cuda/include",
        "(pip wheel)",
        "no Python was found",
        "NCCL_INCLUDE_DIR",
        "NCCL_HOME",
        "ci/setup",
        "nvidia-nccl-cu12",
    ] {
        assert!(msg.contains(needle), "{needle:?} missing from:\n{msg}");
    }
    assert!(msg.contains(&deps_wheel.display().to_string()), "{msg}");
}

#[test]
fn version_defines_are_read_from_headers() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("nccl.h");
    touch(
        &h,
        "#define NCCL_MAJOR 2\n#define NCCL_VERSION_CODE 22703\n#define NCCL_VERSION(X,Y,Z) x\n",
    );
    assert_eq!(search::read_define(&h, "NCCL_VERSION_CODE"), Some(22703));
    assert_eq!(search::read_define(&h, "NCCL_VERSION"), None);
    assert_eq!(search::read_define(&h, "NCCL_MINOR"), None);
}
