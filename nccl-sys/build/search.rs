//! Where the build looks for `nccl.h` and `cuda.h`, and what it says when they are
//! missing. Shared by `build.rs` and the crate's tests (`tests/header_search.rs`),
//! so it reads the environment only through the `Env` it is given.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Reads one environment variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// Where headers are looked for, in order.
pub struct Search {
    /// Explicit and install-prefix folders come from here.
    env_values: Vec<(&'static str, Option<PathBuf>)>,
    /// Folders that may hold the pip wheels' `nvidia/` tree, in search order.
    pub sites: Vec<PathBuf>,
    /// Whether the active Python could be asked for its site folders.
    pub python_found: bool,
}

/// A header that was not found: every folder tried, or the explicit setting that
/// pointed at the wrong place.
#[derive(Debug)]
pub struct NotFound {
    pub header: &'static str,
    pub tried: Vec<(String, PathBuf)>,
    pub explicit: Option<(&'static str, PathBuf)>,
}

/// The variables the search reads (besides those the Python discovery reads).
pub const SEARCH_VARS: &[&str] = &[
    "NCCL_INCLUDE_DIR",
    "CUDA_INCLUDE_DIR",
    "NCCL_HOME",
    "CUDA_HOME",
    "CUDA_PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "NCCL_RS_DEPS_DIR",
];

impl Search {
    /// `python_sites`: the active Python's site-packages folders (`None` when there is
    /// no Python). `workspace`: the folder whose `.deps/python` `ci/setup` fills.
    pub fn new(env: Env<'_>, python_sites: Option<Vec<PathBuf>>, workspace: Option<&Path>) -> Self {
        let env_values = SEARCH_VARS
            .iter()
            .map(|v| (*v, env(v).map(PathBuf::from)))
            .collect();
        let python_found = python_sites.is_some();
        let mut sites = python_sites.unwrap_or_default();
        for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
            if let Some(prefix) = env(var) {
                sites.extend(site_packages_under(Path::new(&prefix)));
            }
        }
        // The folder ci/setup installs into comes last: a user's own install wins.
        match env("NCCL_RS_DEPS_DIR") {
            Some(dir) => sites.push(PathBuf::from(dir).join("python")),
            None => {
                if let Some(root) = workspace {
                    sites.push(root.join(".deps").join("python"));
                }
            }
        }
        dedup(&mut sites);
        Search {
            env_values,
            sites,
            python_found,
        }
    }

    fn var(&self, name: &str) -> Option<&PathBuf> {
        self.env_values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_ref())
    }

    /// Finds the folder holding `nccl.h`.
    pub fn find_nccl(&self) -> Result<PathBuf, NotFound> {
        self.find(
            "nccl.h",
            "NCCL_INCLUDE_DIR",
            &["NCCL_HOME", "CUDA_HOME", "CUDA_PATH"],
            &["nvidia/nccl/include", "nvidia/cu13/include"],
        )
    }

    /// Finds the folder holding `cuda.h`.
    pub fn find_cuda(&self) -> Result<PathBuf, NotFound> {
        self.find(
            "cuda.h",
            "CUDA_INCLUDE_DIR",
            &["CUDA_HOME", "CUDA_PATH", "NCCL_HOME"],
            &["nvidia/cuda_runtime/include", "nvidia/cu13/include"],
        )
    }

    /// Every folder searched for `header`, in order, with why it is searched. An
    /// explicit variable, when set, is the only entry.
    pub fn candidates(
        &self,
        explicit_var: &'static str,
        home_vars: &[&'static str],
        wheel_dirs: &[&str],
    ) -> Vec<(String, PathBuf)> {
        if let Some(dir) = self.var(explicit_var) {
            return vec![(explicit_var.to_string(), dir.clone())];
        }
        let mut candidates = Vec::new();
        for var in home_vars {
            if let Some(home) = self.var(var) {
                candidates.push(((*var).to_string(), home.join("include")));
            }
        }
        candidates.push((
            "default CUDA install".into(),
            "/usr/local/cuda/include".into(),
        ));
        for dir in ["/usr/include", "/usr/local/include", "/opt/cuda/include"] {
            candidates.push(("system include folder".into(), dir.into()));
        }
        for site in &self.sites {
            for sub in wheel_dirs {
                candidates.push(("pip wheel".into(), site.join(sub)));
            }
        }
        candidates
    }

    fn find(
        &self,
        header: &'static str,
        explicit_var: &'static str,
        home_vars: &[&'static str],
        wheel_dirs: &[&str],
    ) -> Result<PathBuf, NotFound> {
        let candidates = self.candidates(explicit_var, home_vars, wheel_dirs);
        let explicit = self.var(explicit_var).map(|d| (explicit_var, d.clone()));
        let mut tried = Vec::new();
        for (why, dir) in candidates {
            if dir.join(header).is_file() {
                return Ok(dir);
            }
            tried.push((why, dir));
        }
        // An explicit setting that is wrong is an error, never a hint to look on.
        Err(NotFound {
            header,
            tried,
            explicit,
        })
    }

    /// Folders of the wheels' `libnccl.so.2`, the one next to the header first.
    pub fn wheel_lib_dirs(&self, nccl_include: &Path) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        if let Some(parent) = nccl_include.parent() {
            dirs.push(parent.join("lib"));
        }
        for site in &self.sites {
            for sub in ["nvidia/nccl/lib", "nvidia/cu13/lib"] {
                dirs.push(site.join(sub));
            }
        }
        dirs.retain(|d| d.join("libnccl.so.2").is_file());
        dedup(&mut dirs);
        dirs
    }

    /// The multi-line message for headers that were not found.
    pub fn missing_headers_message(
        &self,
        nccl: Option<NotFound>,
        cuda: Option<NotFound>,
    ) -> String {
        let mut msg = String::new();
        let searched = [&nccl, &cuda]
            .iter()
            .any(|nf| nf.as_ref().is_some_and(|n| n.explicit.is_none()));
        for nf in [nccl, cuda].into_iter().flatten() {
            match &nf.explicit {
                Some((var, dir)) => {
                    let _ = writeln!(
                        msg,
                        "{} not found: {var} is set to {}, which has no {}.",
                        nf.header,
                        dir.display(),
                        nf.header
                    );
                }
                None => {
                    let _ = writeln!(msg, "{} not found. Searched, in order:", nf.header);
                    for (why, dir) in &nf.tried {
                        let _ = writeln!(msg, "  {:<60} ({why})", dir.display().to_string());
                    }
                }
            }
            msg.push('\n');
        }
        let sites = if self.sites.is_empty() {
            "none".to_string()
        } else {
            let list: Vec<_> = self.sites.iter().map(|s| s.display().to_string()).collect();
            list.join(", ")
        };
        let python = if self.python_found {
            ""
        } else {
            " (no Python was found)"
        };
        if searched {
            let _ = write!(
                msg,
                "Site folders searched for the pip wheels{python}: {sites}\n\n"
            );
        }
        let _ = write!(
            msg,
            "To fix it, either:\n\
             \x20 * point the build at an install: NCCL_INCLUDE_DIR / CUDA_INCLUDE_DIR (the\n\
             \x20   folders holding nccl.h / cuda.h), or NCCL_HOME / CUDA_HOME / CUDA_PATH\n\
             \x20   (their include/ is searched);\n\
             \x20 * or run ci/setup, which installs the pip wheels nvidia-nccl-cu12 (nccl.h and\n\
             \x20   libnccl.so.2) and nvidia-cuda-runtime-cu12 (cuda.h) into .deps/ of the\n\
             \x20   workspace. A CUDA toolkit, or Debian's non-free packages nvidia-cuda-dev\n\
             \x20   and libnccl-dev, provide the same headers."
        );
        msg
    }
}

/// `lib/python*/site-packages` under an environment prefix.
pub fn site_packages_under(prefix: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = fs::read_dir(prefix.join("lib")) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("python") {
                found.push(entry.path().join("site-packages"));
            }
        }
    }
    found.sort();
    found
}

fn dedup(paths: &mut Vec<PathBuf>) {
    let mut seen = Vec::new();
    paths.retain(|p| {
        let key = p.canonicalize().unwrap_or_else(|_| p.clone());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
}

/// The integer value of `#define NAME value` in a header, if it is a literal.
pub fn read_define(header: &Path, name: &str) -> Option<u32> {
    let text = fs::read_to_string(header).ok()?;
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        if words.next()? != "#define" || words.next()? != name {
            return None;
        }
        words.next()?.parse().ok()
    })
}
