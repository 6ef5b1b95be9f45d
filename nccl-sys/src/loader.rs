//! The run-time loader: opens libnccl and the CUDA driver, resolves every function.

use std::ffi::{OsStr, OsString, c_int, c_void};
use std::fmt;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

#[allow(unused_imports)]
use crate::bindings::*;

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// One place the loader tried, and why it failed there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// What the library was asked for: a path, or a file name for the system loader.
    pub name: OsString,
    /// Why this place is on the list (`NCCL_LIBRARY`, `system loader`, `pip wheel`, ...).
    pub source: &'static str,
    /// The loader's message.
    pub error: String,
}

/// Loading a library, or finding a function in it, failed.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// No candidate could be opened. `tried` lists them all, in order.
    NotFound {
        /// `"libnccl"` or `"libcuda"`.
        library: &'static str,
        /// Every place tried, in order.
        tried: Vec<Attempt>,
        /// What to do about it.
        hint: &'static str,
    },
    /// The loaded library does not export a function of the headers (an older
    /// library than the headers, or a function a driver does not have).
    MissingSymbol {
        /// The function's name.
        symbol: String,
        /// `"libnccl"` or `"libcuda"`.
        library: &'static str,
        /// The file that was loaded.
        path: PathBuf,
        /// The loaded library's version, formatted (`"unknown"` when it cannot say).
        loaded_version: String,
        /// The version of the header the bindings were generated from.
        header_version: String,
    },
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match self {
            LoadError::NotFound { .. } => "NotFound",
            LoadError::MissingSymbol { .. } => "MissingSymbol",
        };
        write!(f, "LoadError::{variant}: {self}")
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound {
                library,
                tried,
                hint,
            } => {
                write!(f, "could not load {library}; tried, in order:")?;
                for attempt in tried {
                    write!(
                        f,
                        "\n  {} ({}): {}",
                        Path::new(&attempt.name).display(),
                        attempt.source,
                        attempt.error
                    )?;
                }
                write!(f, "\n{hint}")
            }
            LoadError::MissingSymbol {
                symbol,
                library,
                path,
                loaded_version,
                header_version,
            } => write!(
                f,
                "{library} at {} (version {loaded_version}) has no function `{symbol}`; \
                 the bindings were generated from headers of version {header_version}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// Formats an NCCL version code: `23203` is `"2.32.3"`, `2708` is `"2.7.8"`.
pub fn format_nccl_version(code: c_int) -> String {
    // NCCL_VERSION(X,Y,Z) is X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after.
    if code < 10000 {
        format!("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100)
    }
}

/// Formats a CUDA version as `cuDriverGetVersion` and `CUDA_VERSION` give it:
/// `12090` is `"12.9"`.
pub fn format_cuda_version(code: c_int) -> String {
    format!("{}.{}", code / 1000, code % 1000 / 10)
}

/// Looks one symbol up; `None` when the library lacks it.
///
/// # Safety
///
/// `T` must be the symbol's true type (a function pointer of its C prototype).
pub(crate) unsafe fn symbol<T: Copy>(lib: &Library, name: &[u8]) -> Option<T> {
    // SAFETY: the caller guarantees that `T` is the symbol's type. The value is copied
    // out of the `Symbol` guard; that is sound because the library is never unloaded
    // (`Nccl` and `Cuda` keep it in `ManuallyDrop`).
    unsafe { lib.get::<T>(name).ok().map(|s| *s) }
}

/// Opens `name` with the system's dynamic loader.
fn open(name: &OsStr) -> Result<Library, String> {
    // SAFETY: opening a library runs its initialisers. The loader opens only the NCCL
    // and CUDA driver libraries (or a path the user named for exactly that purpose in
    // NCCL_LIBRARY / CUDA_DRIVER_LIBRARY), whose initialisers have no preconditions.
    unsafe { Library::new(name) }.map_err(|e| e.to_string())
}

/// Where the pip wheels keep `libnccl.so.2`, below a site-packages folder.
const WHEEL_LIB_DIRS: [&str; 2] = ["nvidia/nccl/lib", "nvidia/cu13/lib"];

/// The `libnccl.so.2` files of the pip wheels, searched at run time, in order:
///
/// 1. the wheel folders the header search saw, when the bindings were generated on
///    this machine (feature `buildtime-bindgen`; nothing otherwise);
/// 2. `NCCL_RS_DEPS_DIR/python` (where `ci/setup` installs the wheels);
/// 3. the site-packages of `VIRTUAL_ENV`, then `CONDA_PREFIX`;
/// 4. the site-packages of each Python found on `PATH` (the environment it is in,
///    then the installation its executable resolves to), and on Debian-style systems
///    `/usr/local/lib/python3*/dist-packages`;
/// 5. the user's site-packages under `HOME/.local/lib`.
///
/// Only folders are read: no Python is started. Each site-packages folder gives
/// both wheels' candidate files, found or not, so that a failed load lists every
/// place the wheels were looked for.
fn wheel_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = option_env!("NCCL_RS_WHEEL_LIB_DIRS")
        .map(|dirs| std::env::split_paths(dirs).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|dir| dir.join("libnccl.so.2"))
        .collect();
    let mut sites = Vec::new();
    if let Some(deps) = env("NCCL_RS_DEPS_DIR") {
        sites.push(Path::new(&deps).join("python"));
    }
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = env(var) {
            sites.extend(site_packages(Path::new(&prefix)));
        }
    }
    for prefix in python_prefixes(env("PATH").as_deref()) {
        sites.extend(site_packages(&prefix));
    }
    if let Some(home) = env("HOME") {
        sites.extend(site_packages(&Path::new(&home).join(".local")));
    }
    for site in sites {
        for sub in WHEEL_LIB_DIRS {
            let file = site.join(sub).join("libnccl.so.2");
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// The installation prefixes of the Pythons on `path`: for each folder holding a
/// `python3` (or `python`), its parent (a virtual environment's root, or the
/// installation's), then the parent of the folder the executable resolves to, when
/// that differs. A system Python in `/usr/bin` adds `/usr/local`, where its pip
/// installs.
fn python_prefixes(path: Option<&OsStr>) -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if !prefixes.contains(&p) {
            prefixes.push(p);
        }
    };
    for dir in path.map(std::env::split_paths).into_iter().flatten() {
        let Some(exe) = ["python3", "python"]
            .iter()
            .map(|name| dir.join(name))
            .find(|exe| exe.is_file())
        else {
            continue;
        };
        // `/bin` is `/usr/bin` on merged-usr systems: the folder's own real path.
        let dir = dir.canonicalize().unwrap_or(dir);
        let mut found = vec![dir.parent().map(Path::to_path_buf)];
        if let Ok(real) = exe.canonicalize() {
            found.push(real.parent().and_then(Path::parent).map(Path::to_path_buf));
        }
        for prefix in found.into_iter().flatten() {
            if prefix == Path::new("/usr") {
                add(PathBuf::from("/usr/local"));
            }
            add(prefix);
        }
    }
    prefixes
}

/// `lib/python3*/site-packages` and `lib/python3*/dist-packages` under a prefix, and
/// Debian's version-less `lib/python3/dist-packages`; newest Python first.
fn site_packages(prefix: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
        return found;
    };
    let mut pythons: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    // python3.12 before python3.9: compare the minor version as a number.
    pythons.sort_by_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let minor = name
            .as_deref()
            .and_then(|n| n.strip_prefix("python3."))
            .and_then(|m| m.parse::<u32>().ok());
        std::cmp::Reverse(minor)
    });
    for python in pythons {
        for sub in ["site-packages", "dist-packages"] {
            let dir = python.join(sub);
            if dir.is_dir() {
                found.push(dir);
            }
        }
    }
    found
}

/// What distinguishes the two libraries in messages and version numbers.
struct Kind {
    /// `"libnccl"` or `"libcuda"`.
    library: &'static str,
    /// What to do when it cannot be loaded.
    hint: &'static str,
    /// Formats the library's version code.
    format: fn(c_int) -> String,
    /// The version code of the header the bindings came from.
    header_version: c_int,
}

const NCCL_KIND: Kind = Kind {
    library: "libnccl",
    hint: "Set NCCL_LIBRARY to the path of libnccl.so.2, or install it: the pip wheel \
           nvidia-nccl-cu12 (or nvidia-nccl-cu13) into the active virtual environment, \
           conda environment, Python or user site, a CUDA toolkit, or the libnccl2 package.",
    format: format_nccl_version,
    header_version: crate::HEADER_NCCL_VERSION_CODE,
};

const CUDA_KIND: Kind = Kind {
    library: "libcuda",
    hint: "The CUDA driver library comes with the NVIDIA GPU driver; on a machine without \
           a GPU use the sim driver (NCCL_RS_DRIVER=sim). CUDA_DRIVER_LIBRARY names the \
           library's path explicitly.",
    format: format_cuda_version,
    header_version: crate::HEADER_CUDA_VERSION,
};

/// An opened library: never unloaded (`ManuallyDrop`), because NCCL and the driver
/// start threads that would outlive an unload, and because function pointers are
/// copied out of it.
struct Opened {
    lib: ManuallyDrop<Library>,
    path: PathBuf,
    version: Option<c_int>,
    kind: &'static Kind,
}

impl Opened {
    fn load(
        kind: &'static Kind,
        candidates: Vec<(OsString, &'static str)>,
    ) -> Result<Opened, LoadError> {
        let mut tried = Vec::new();
        for (name, source) in candidates {
            match open(&name) {
                Ok(lib) => {
                    let lib = ManuallyDrop::new(lib);
                    return Ok(Opened {
                        lib,
                        path: PathBuf::from(name),
                        version: None,
                        kind,
                    });
                }
                Err(error) => tried.push(Attempt {
                    name,
                    source,
                    error,
                }),
            }
        }
        Err(LoadError::NotFound {
            library: kind.library,
            tried,
            hint: kind.hint,
        })
    }

    fn explicit(kind: &'static Kind, path: &Path) -> Result<Opened, LoadError> {
        Self::load(kind, vec![(path.as_os_str().to_owned(), "explicit path")])
    }

    fn lookup(&self, name: &str) -> Result<*mut c_void, LoadError> {
        let mut bytes = name.as_bytes().to_vec();
        bytes.push(0);
        // SAFETY: the symbol is returned as an untyped address; nothing is called.
        unsafe { symbol::<*mut c_void>(&self.lib, &bytes) }.ok_or_else(|| self.missing(name))
    }

    fn missing(&self, symbol: &str) -> LoadError {
        LoadError::MissingSymbol {
            symbol: symbol.to_string(),
            library: self.kind.library,
            path: self.path.clone(),
            loaded_version: self
                .version
                .map(self.kind.format)
                .unwrap_or_else(|| "unknown".into()),
            header_version: (self.kind.format)(self.kind.header_version),
        }
    }

    fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("path", &self.path)
            .field("version", &self.version.map(self.kind.format))
            .finish_non_exhaustive()
    }
}

/// The accessors both libraries share.
macro_rules! common_accessors {
    ($library:ident, $table:ident, $prefix:literal) => {
        impl $library {
            /// The file that was opened (as given to the loader).
            pub fn path(&self) -> &Path {
                &self.opened.path
            }

            /// The loaded library's own version code, if it could say.
            pub fn version_code(&self) -> Option<c_int> {
                self.opened.version
            }

            #[doc = concat!("Whether the library exports `name`, one of the bound `", $prefix, "*` functions")]
            /// (by its exported name). `None` when `name` is not a function of the
            /// bindings.
            pub fn has_function(&self, name: &str) -> Option<bool> {
                self.functions.has(name)
            }

            /// Names of the bound functions that the loaded library lacks.
            pub fn missing_functions(&self) -> Vec<&'static str> {
                $table::NAMES
                    .iter()
                    .copied()
                    .filter(|n| self.functions.has(n) == Some(false))
                    .collect()
            }

            /// Looks any symbol up by name, as `dlsym` would.
            ///
            /// # Errors
            ///
            /// [`LoadError::MissingSymbol`] naming `name`, the loaded and the header
            /// version.
            pub fn lookup(&self, name: &str) -> Result<*mut c_void, LoadError> {
                self.opened.lookup(name)
            }

            pub(crate) fn missing(&self, symbol: &str) -> LoadError {
                self.opened.missing(symbol)
            }
        }

        impl fmt::Debug for $library {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.opened.debug(stringify!($library), f)
            }
        }
    };
}

/// libnccl, opened and resolved. Obtain the process-wide one with [`nccl()`].
///
/// Dropping a `Nccl` never unloads the library: NCCL starts threads that would
/// outlive an unload.
pub struct Nccl {
    opened: Opened,
    pub(crate) functions: NcclFunctions,
}

common_accessors!(Nccl, NcclFunctions, "nccl");

impl Nccl {
    /// Opens libnccl as the process environment says: `NCCL_LIBRARY` (a path) when
    /// set, and nothing else then; otherwise `libnccl.so.2`, then `libnccl.so`,
    /// through the system loader; then the pip wheels' folders.
    ///
    /// Each call opens the library anew; [`nccl()`] caches one for the process.
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] listing every place tried.
    pub fn load() -> Result<Nccl, LoadError> {
        Self::load_with_env(|var| std::env::var_os(var))
    }

    /// [`Nccl::load`] with the environment read through `env` instead of the
    /// process's (for tests and embedders that configure the loader themselves).
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] listing every place tried.
    pub fn load_with_env(env: impl Fn(&str) -> Option<OsString>) -> Result<Nccl, LoadError> {
        let candidates = match env("NCCL_LIBRARY") {
            Some(path) => vec![(path, "NCCL_LIBRARY")],
            None => {
                let mut c: Vec<(OsString, &'static str)> = vec![
                    ("libnccl.so.2".into(), "system loader"),
                    ("libnccl.so".into(), "system loader"),
                ];
                c.extend(
                    wheel_candidates(&env)
                        .into_iter()
                        .map(|p| (p.into(), "pip wheel")),
                );
                c
            }
        };
        Opened::load(&NCCL_KIND, candidates).map(Self::resolve)
    }

    /// Opens the library at `path` and nothing else. Functions it lacks are reported
    /// when called.
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] naming `path` when it cannot be opened.
    pub fn open(path: impl AsRef<Path>) -> Result<Nccl, LoadError> {
        Opened::explicit(&NCCL_KIND, path.as_ref()).map(Self::resolve)
    }

    fn resolve(opened: Opened) -> Nccl {
        let functions = NcclFunctions::resolve(&opened.lib);
        let mut nccl = Nccl { opened, functions };
        let mut code: c_int = 0;
        // SAFETY: ncclGetVersion writes one int through a valid pointer.
        if let Ok(crate::ncclSuccess) = unsafe { nccl.ncclGetVersion(&mut code) } {
            nccl.opened.version = Some(code);
        }
        nccl
    }
}

/// The CUDA driver library (`libcuda`), opened and resolved. Obtain the process-wide
/// one with [`cuda()`].
///
/// Dropping a `Cuda` never unloads the library.
pub struct Cuda {
    opened: Opened,
    pub(crate) functions: CudaFunctions,
}

common_accessors!(Cuda, CudaFunctions, "cu");

impl Cuda {
    /// Opens the CUDA driver as the process environment says: `CUDA_DRIVER_LIBRARY`
    /// (a path) when set, and nothing else then; otherwise `libcuda.so.1`, then
    /// `libcuda.so`, through the system loader.
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] listing every place tried.
    pub fn load() -> Result<Cuda, LoadError> {
        Self::load_with_env(|var| std::env::var_os(var))
    }

    /// [`Cuda::load`] with the environment read through `env`.
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] listing every place tried.
    pub fn load_with_env(env: impl Fn(&str) -> Option<OsString>) -> Result<Cuda, LoadError> {
        let candidates = match env("CUDA_DRIVER_LIBRARY") {
            Some(path) => vec![(path, "CUDA_DRIVER_LIBRARY")],
            None => vec![
                ("libcuda.so.1".into(), "system loader"),
                ("libcuda.so".into(), "system loader"),
            ],
        };
        Opened::load(&CUDA_KIND, candidates).map(Self::resolve)
    }

    /// Opens the library at `path` and nothing else.
    ///
    /// # Errors
    ///
    /// [`LoadError::NotFound`] naming `path` when it cannot be opened.
    pub fn open(path: impl AsRef<Path>) -> Result<Cuda, LoadError> {
        Opened::explicit(&CUDA_KIND, path.as_ref()).map(Self::resolve)
    }

    fn resolve(opened: Opened) -> Cuda {
        let functions = CudaFunctions::resolve(&opened.lib);
        let mut cuda = Cuda { opened, functions };
        let mut code: c_int = 0;
        // SAFETY: cuDriverGetVersion writes one int through a valid pointer and needs
        // no cuInit.
        if let Ok(crate::CUDA_SUCCESS) = unsafe { cuda.cuDriverGetVersion(&mut code) } {
            cuda.opened.version = Some(code);
        }
        cuda
    }
}

/// The process-wide libnccl, opened on first use by [`Nccl::load`]. Later calls return
/// the same library, or the same error: the environment is read once.
///
/// # Errors
///
/// The first load's [`LoadError`], every time.
pub fn nccl() -> Result<&'static Nccl, LoadError> {
    static NCCL: OnceLock<Result<Nccl, LoadError>> = OnceLock::new();
    NCCL.get_or_init(Nccl::load).as_ref().map_err(Clone::clone)
}

/// The process-wide CUDA driver, opened on first use by [`Cuda::load`]. Later calls
/// return the same library, or the same error.
///
/// # Errors
///
/// The first load's [`LoadError`], every time.
pub fn cuda() -> Result<&'static Cuda, LoadError> {
    static CUDA: OnceLock<Result<Cuda, LoadError>> = OnceLock::new();
    CUDA.get_or_init(Cuda::load).as_ref().map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A site-packages folder under `prefix` holding an (empty) wheel library.
    fn wheel_under(prefix: &Path, python: &str, packages: &str) -> PathBuf {
        let dir = prefix
            .join("lib")
            .join(python)
            .join(packages)
            .join("nvidia/nccl/lib");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("libnccl.so.2");
        std::fs::write(&file, "").unwrap();
        file
    }

    #[test]
    fn the_run_time_wheel_search_reads_each_place_in_its_order() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let deps = root.join("deps");
        let deps_file = deps.join("python/nvidia/nccl/lib/libnccl.so.2");
        std::fs::create_dir_all(deps_file.parent().unwrap()).unwrap();
        std::fs::write(&deps_file, "").unwrap();
        let venv_file = wheel_under(&root.join("venv"), "python3.11", "site-packages");
        let conda_file = wheel_under(&root.join("conda"), "python3.10", "site-packages");
        let on_path = root.join("py");
        std::fs::create_dir_all(on_path.join("bin")).unwrap();
        std::fs::write(on_path.join("bin/python3"), "").unwrap();
        let path_file = wheel_under(&on_path, "python3.12", "dist-packages");
        let user_file = wheel_under(&root.join("home/.local"), "python3.12", "site-packages");
        // A Python folder without the wheel adds nothing.
        std::fs::create_dir_all(root.join("venv/lib/python3.9/site-packages")).unwrap();

        let vars: Vec<(&str, OsString)> = vec![
            ("NCCL_RS_DEPS_DIR", deps.into()),
            ("VIRTUAL_ENV", root.join("venv").into()),
            ("CONDA_PREFIX", root.join("conda").into()),
            (
                "PATH",
                std::env::join_paths([root.join("nothing"), on_path.join("bin")]).unwrap(),
            ),
            ("HOME", root.join("home").into()),
        ];
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        };
        let candidates = wheel_candidates(&env);
        let baked = option_env!("NCCL_RS_WHEEL_LIB_DIRS").map_or(0, |d| {
            std::env::split_paths(d)
                .filter(|p| !p.as_os_str().is_empty())
                .count()
        });
        // Each site folder gives both wheel layouts, found or not.
        assert!(
            candidates[baked..]
                .iter()
                .any(|f| f.ends_with("nvidia/cu13/lib/libnccl.so.2") && !f.exists())
        );
        let found: Vec<_> = candidates[baked..]
            .iter()
            .filter(|f| f.is_file())
            .cloned()
            .collect();
        assert_eq!(
            found,
            [deps_file, venv_file, conda_file, path_file, user_file],
            "{candidates:?}"
        );
        // Nothing set: only what a buildtime-bindgen build saw.
        assert_eq!(wheel_candidates(&|_| None).len(), baked);
    }

    #[test]
    fn newer_pythons_come_first_and_debian_folders_count() {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = tmp.path();
        for (python, packages) in [
            ("python3.9", "site-packages"),
            ("python3.12", "site-packages"),
            ("python3", "dist-packages"),
            ("python3.12", "dist-packages"),
        ] {
            std::fs::create_dir_all(prefix.join("lib").join(python).join(packages)).unwrap();
        }
        std::fs::create_dir_all(prefix.join("lib/perl5")).unwrap();
        let names: Vec<String> = site_packages(prefix)
            .iter()
            .map(|p| p.strip_prefix(prefix).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "lib/python3.12/site-packages",
                "lib/python3.12/dist-packages",
                "lib/python3.9/site-packages",
                "lib/python3/dist-packages",
            ]
        );
    }

    #[test]
    fn a_system_python_on_path_adds_the_prefix_its_pip_installs_into() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("env/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("python"), "").unwrap();
        let path = std::env::join_paths([bin.as_path(), Path::new("/usr/bin")]).unwrap();
        let prefixes = python_prefixes(Some(&path));
        assert_eq!(prefixes[0], tmp.path().join("env"));
        if Path::new("/usr/bin/python3").is_file() {
            assert!(
                prefixes.contains(&PathBuf::from("/usr/local")),
                "{prefixes:?}"
            );
            assert!(prefixes.contains(&PathBuf::from("/usr")), "{prefixes:?}");
        }
        assert!(python_prefixes(None).is_empty());
    }

    #[test]
    fn a_device_location_carries_type_and_ordinal_in_either_layout() {
        let loc = crate::device_location(3);
        assert_eq!(loc.type_, crate::CU_MEM_LOCATION_TYPE_DEVICE);
        let base = (&loc as *const crate::CUmemLocation).cast::<u8>();
        // SAFETY: reads the 4 bytes after the type inside the 8-byte struct.
        let id = unsafe { base.add(4).cast::<i32>().read() };
        assert_eq!(id, 3);
        assert_eq!(std::mem::size_of_val(&loc), 8);
    }

    /// CUDA 13's cuda.h declares only `cuEventElapsedTime_v2`, headers before 12.8 only
    /// `cuEventElapsedTime`: both entries exist whichever header the build used.
    #[test]
    fn both_names_of_event_elapsed_time_are_bound_whatever_the_header() {
        for name in ["cuEventElapsedTime", "cuEventElapsedTime_v2"] {
            assert!(CudaFunctions::NAMES.contains(&name), "{name} missing");
        }
    }
}
