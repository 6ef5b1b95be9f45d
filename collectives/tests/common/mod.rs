//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A program of this package a test starts (`nccl-run`, `nccl-perf`,
/// `nccl-hang-report`). Prebuilt test binaries carried to another machine by
/// `ci/gpu-build` find it in `../tools/` beside them, which is looked at first, so a
/// rehearsal from the packed archive uses what the archive holds; a normal
/// `cargo test` uses the path cargo built (`built`, from `env!("CARGO_BIN_EXE_...")`).
#[allow(dead_code)] // not every test binary that includes this module needs it
pub fn program(name: &str, built: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    if let Some(dir) = exe.parent() {
        let carried = dir.join("../tools").join(name);
        if dir.join("../gpu-check").exists() && carried.exists() {
            return carried;
        }
    }
    let built = PathBuf::from(built);
    assert!(
        built.exists(),
        "{name} is neither at {} nor in ../tools beside {}",
        built.display(),
        exe.display()
    );
    built
}

/// A port of 127.0.0.1 that was free a moment ago.
#[allow(dead_code)] // not every test binary that includes this module needs it
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs `f(rank, group)` on `n` sim ranks (devices `first..first+n`), one thread each,
/// and returns their results in rank order.
#[allow(dead_code)] // not every test binary that includes this module needs it
pub fn on_ranks<R: Send + 'static>(
    first: usize,
    n: usize,
    options: collectives::Options,
    f: impl Fn(usize, collectives::ProcessGroup) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let id = nccl_safe::UniqueId::random();
    let f = std::sync::Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let (f, options) = (f.clone(), options.clone());
            std::thread::spawn(move || {
                let dev = nccl_safe::Device::sim(first + rank).unwrap();
                let pg = collectives::ProcessGroup::new(&dev, rank, n, &id, options).unwrap();
                f(rank, pg)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("rank thread"))
        .collect()
}

/// The Python that has PyTorch: `NCCL_RS_TORCH_PYTHON`, else the environment ci/setup
/// makes in `.deps/torch`.
#[allow(dead_code)] // not every test binary that includes this module needs it
pub fn torch_python() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("NCCL_RS_TORCH_PYTHON") {
        return p.into();
    }
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.deps/torch/bin/python");
    assert!(
        p.exists(),
        "PyTorch not found at {} (run ci/setup, or set NCCL_RS_TORCH_PYTHON)",
        p.display()
    );
    p
}
