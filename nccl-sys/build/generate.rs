//! Generating the bindings with bindgen (feature `buildtime-bindgen` only): runs
//! bindgen on `wrapper.h` (see that file for why the runtime headers are stubbed
//! out), then turns every prototype into an optional entry of a function table that
//! the run-time loader fills with `dlsym`, plus a method that calls it or returns an
//! error naming the function when the loaded library lacks it. Functions are never
//! emitted as `extern` blocks: nothing is linked.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use quote::ToTokens;

use crate::fail;
use crate::search::{self, Search};

/// Environment variables the generator reads besides the header search's. Each one
/// gets a `cargo:rerun-if-env-changed`.
pub const ENV_VARS: &[&str] = &["PYTHON", "LIBCLANG_PATH"];

/// CUDA driver API functions the safe layer needs. cuda.h renames several of them
/// with macros (`cuStreamDestroy` is declared as `cuStreamDestroy_v2`, and so on);
/// the allowlist accepts those versioned names, which are also the exported symbols.
const CUDA_FUNCTIONS: &[&str] = &[
    // init, version, errors
    "cuInit",
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    // devices
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem",
    "cuDeviceGetUuid",
    "cuDeviceGetPCIBusId",
    "cuDeviceCanAccessPeer",
    // primary context and current context
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxGetState",
    "cuDevicePrimaryCtxSetFlags",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxGetDevice",
    "cuCtxSynchronize",
    "cuCtxGetStreamPriorityRange",
    // streams
    "cuStreamCreate",
    "cuStreamCreateWithPriority",
    "cuStreamDestroy",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamGetPriority",
    "cuStreamGetFlags",
    "cuStreamWaitEvent",
    "cuStreamWaitValue32",
    "cuStreamWriteValue32",
    "cuLaunchHostFunc",
    // events
    "cuEventCreate",
    "cuEventRecord",
    "cuEventQuery",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuEventDestroy",
    // stream-ordered memory and pools
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemAllocFromPoolAsync",
    "cuMemPoolCreate",
    "cuMemPoolDestroy",
    "cuMemPoolSetAttribute",
    "cuMemPoolGetAttribute",
    "cuMemPoolTrimTo",
    "cuDeviceGetDefaultMemPool",
    "cuDeviceGetMemPool",
    "cuDeviceSetMemPool",
    "cuMemGetInfo",
    "cuMemGetAddressRange",
    "cuPointerGetAttribute",
    // pinned host memory
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemHostGetDevicePointer",
    "cuMemHostRegister",
    "cuMemHostUnregister",
    // asynchronous copies and memsets
    "cuMemcpyAsync",
    "cuMemcpyHtoDAsync",
    "cuMemcpyDtoHAsync",
    "cuMemcpyDtoDAsync",
    "cuMemsetD8Async",
    "cuMemsetD16Async",
    "cuMemsetD32Async",
    // stream capture and graphs
    "cuStreamBeginCapture",
    "cuStreamEndCapture",
    "cuGraphInstantiateWithFlags",
    "cuGraphLaunch",
    "cuGraphExecDestroy",
    "cuGraphDestroy",
    // modules and kernel launch
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuLaunchKernel",
    "cuFuncGetAttribute",
];

/// Driver API types that no allowlisted prototype mentions but whose values the safe
/// layer passes as flags or attributes.
const CUDA_TYPES: &[&str] = &[
    "CUresult",
    "CUstream_flags",
    "CUevent_flags",
    "CUevent_wait_flags",
    "CUevent_record_flags",
    "CUstreamWaitValue_flags",
    "CUstreamWriteValue_flags",
    "CUmemPool_attribute",
    "CUmemAllocationType",
    "CUmemLocationType",
    "CUmemAllocationHandleType",
    "CUmemPoolProps",
    "CUdevice_attribute",
    "CUctx_flags",
    "CUjit_option",
    "CUpointer_attribute",
    "CUfunction_attribute",
    "CUstreamCaptureMode",
];

/// What a generation found, for the build's metadata and the crate's constants.
pub struct Generated {
    /// The folder of the `nccl.h` used.
    pub nccl_dir: PathBuf,
    /// The folder of the `cuda.h` used.
    pub cuda_dir: PathBuf,
    /// Folders of the pip wheels' `libnccl.so.2` seen by the header search.
    pub wheel_lib_dirs: Vec<PathBuf>,
}

/// Finds the headers (`search.rs`), generates both files into `out_dir`, and says
/// where the headers were.
pub fn run(manifest_dir: &Path, out_dir: &Path) -> Generated {
    for var in ENV_VARS.iter().chain(search::SEARCH_VARS) {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=wrapper.h");
    let env_lookup = |var: &str| env::var_os(var);
    let search = Search::new(&env_lookup, python_site_packages(), manifest_dir.parent());
    let (nccl_dir, cuda_dir) = match (search.find_nccl(), search.find_cuda()) {
        (Ok(n), Ok(c)) => (n, c),
        (n, c) => fail(&search.missing_headers_message(n.err(), c.err())),
    };
    for header in [nccl_dir.join("nccl.h"), cuda_dir.join("cuda.h")] {
        println!("cargo:rerun-if-changed={}", header.display());
    }
    let nccl_version = search::read_define(&nccl_dir.join("nccl.h"), "NCCL_VERSION_CODE")
        .unwrap_or_else(|| fail("nccl.h does not define NCCL_VERSION_CODE as a number"));
    let cuda_version = search::read_define(&cuda_dir.join("cuda.h"), "CUDA_VERSION")
        .unwrap_or_else(|| fail("cuda.h does not define CUDA_VERSION as a number"));

    let bindings = generate(manifest_dir, &nccl_dir, &cuda_dir);
    let split = split_functions(&bindings);
    // The same first lines whichever headers were used: no folder names, so that the
    // files generated from the pinned headers are exactly the bundled ones.
    let banner = format!(
        "// Generated with bindgen by nccl-sys's build script (feature `buildtime-bindgen`)\n\
         // from nccl.h with NCCL_VERSION_CODE {nccl_version} and cuda.h with CUDA_VERSION {cuda_version}.\n\
         // Do not edit: `ci/regen-bindings` rewrites the bundled copy in src/bundled/ from the\n\
         // pinned headers, and `ci/regen-bindings --check` (run by ci/test) fails on any drift.\n\n",
    );
    let write = |name: &str, text: &str| {
        std::fs::write(out_dir.join(name), format!("{banner}{text}"))
            .unwrap_or_else(|e| fail(&format!("cannot write {name} into OUT_DIR: {e}")))
    };
    write("bindings.rs", &split.items);
    write("functions.rs", &split.tables);
    let wheel_lib_dirs = search.wheel_lib_dirs(&nccl_dir);
    Generated {
        nccl_dir,
        cuda_dir,
        wheel_lib_dirs,
    }
}

/// The active Python's site-packages folders (`PYTHON`, else `python3`); `None` when
/// there is no Python: the wheels are only one of several places.
fn python_site_packages() -> Option<Vec<PathBuf>> {
    let python = env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let script = "import site\n\
                  paths = list(getattr(site, 'getsitepackages', lambda: [])())\n\
                  paths.append(site.getusersitepackages())\n\
                  print('\\n'.join(paths))";
    let out = Command::new(python).arg("-c").arg(script).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .collect(),
    )
}

/// Runs bindgen; a missing libclang becomes a clear error instead of a panic trace.
fn generate(manifest_dir: &Path, nccl_dir: &Path, cuda_dir: &Path) -> String {
    let mut builder = bindgen::Builder::default()
        .header(manifest_dir.join("wrapper.h").to_string_lossy())
        .rust_target(bindgen::RustTarget::stable(85, 0).unwrap_or_else(|e| fail(&e.to_string())))
        .rust_edition(bindgen::RustEdition::Edition2024)
        // Result codes, data types and reduction ops stay plain integers: a newer
        // library can return codes this header does not know, ncclInt8/ncclChar
        // alias, and PreMulSum ops are created at run time.
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        .layout_tests(true)
        .generate_cstr(true)
        .parse_callbacks(Box::new(HeaderComments))
        .allowlist_function("nccl.*")
        .allowlist_type("nccl.*")
        .allowlist_var("NCCL_.*")
        .allowlist_var("CUDA_VERSION")
        .allowlist_var("CU_MEMHOSTALLOC_.*")
        .allowlist_var("CU_MEMHOSTREGISTER_.*")
        .allowlist_var("CU_EVENT_.*")
        .allowlist_var("CU_STREAM_.*");
    for f in CUDA_FUNCTIONS {
        builder = builder.allowlist_function(format!("{f}(_v[0-9]+)?"));
    }
    for t in CUDA_TYPES {
        builder = builder.allowlist_type(t);
    }
    for dir in [cuda_dir, nccl_dir] {
        // Adding the default system folders with -I would reorder clang's own search.
        if dir != Path::new("/usr/include") && dir != Path::new("/usr/local/include") {
            builder = builder.clang_arg(format!("-I{}", dir.display()));
        }
    }

    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || builder.generate()));
    std::panic::set_hook(previous_hook);
    match result {
        Ok(Ok(bindings)) => bindings.to_string(),
        Ok(Err(e)) => fail(&format!(
            "bindgen could not parse wrapper.h with nccl.h from {} and cuda.h from {}: {e}",
            nccl_dir.display(),
            cuda_dir.display()
        )),
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            if text.contains("libclang") {
                fail(&format!(
                    "bindgen needs libclang and could not load it:\n  {text}\n\n\
                     Install it (Debian/Ubuntu: apt-get install libclang-dev; ci/setup does\n\
                     this), or set LIBCLANG_PATH to the folder holding libclang.so."
                ))
            } else {
                fail(&format!("bindgen failed: {text}"))
            }
        }
    }
}

/// Keeps the headers' comments as documentation, fenced as plain text: they are C
/// prose whose indented lines rustdoc would otherwise try to compile as doctests.
#[derive(Debug)]
struct HeaderComments;

impl bindgen::callbacks::ParseCallbacks for HeaderComments {
    fn process_comment(&self, comment: &str) -> Option<String> {
        let text = comment.trim_matches('\n');
        if text.trim().is_empty() {
            return None;
        }
        Some(format!("```text\n{}\n```", text.replace("```", "'''")))
    }
}

/// The generated bindings with the prototypes taken out, and the function tables.
struct Split {
    items: String,
    tables: String,
}

struct Function {
    name: String,
    docs: Vec<syn::Attribute>,
    args: Vec<(String, String)>,
    output: Option<String>,
}

impl Function {
    fn fn_type(&self) -> String {
        let args: Vec<_> = self.args.iter().map(|(_, ty)| ty.as_str()).collect();
        let ret = match &self.output {
            Some(ty) => format!(" -> {ty}"),
            None => String::new(),
        };
        format!("unsafe extern \"C\" fn({}){ret}", args.join(", "))
    }
}

fn split_functions(bindings: &str) -> Split {
    let file = syn::parse_file(bindings).unwrap_or_else(|e| fail(&format!("bindgen output: {e}")));
    let mut kept = Vec::new();
    let mut functions = Vec::new();
    for item in file.items {
        let syn::Item::ForeignMod(foreign) = item else {
            kept.push(item);
            continue;
        };
        for foreign_item in foreign.items {
            let syn::ForeignItem::Fn(f) = foreign_item else {
                fail("bindgen emitted a foreign item that is not a function");
            };
            if f.sig.variadic.is_some() {
                fail(&format!(
                    "variadic function {} is not supported",
                    f.sig.ident
                ));
            }
            let args = f
                .sig
                .inputs
                .iter()
                .enumerate()
                .map(|(i, arg)| match arg {
                    syn::FnArg::Typed(pt) => {
                        let name = match &*pt.pat {
                            syn::Pat::Ident(id) => id.ident.to_string(),
                            _ => format!("arg{i}"),
                        };
                        (name, pt.ty.to_token_stream().to_string())
                    }
                    syn::FnArg::Receiver(_) => fail("receiver in a foreign function"),
                })
                .collect();
            let output = match &f.sig.output {
                syn::ReturnType::Default => None,
                syn::ReturnType::Type(_, ty) => Some(ty.to_token_stream().to_string()),
            };
            let docs = f
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("doc"))
                .cloned()
                .collect();
            functions.push(Function {
                name: f.sig.ident.to_string(),
                docs,
                args,
                output,
            });
        }
    }
    let items = syn::File {
        shebang: None,
        attrs: file.attrs,
        items: kept,
    };
    add_missing_aliases(&mut functions);
    let mut nccl = Vec::new();
    let mut cuda = Vec::new();
    for f in functions {
        if f.name.starts_with("nccl") {
            nccl.push(f);
        } else if f.name.starts_with("cu") {
            cuda.push(f);
        } else {
            fail(&format!("unexpected function {} in the bindings", f.name));
        }
    }
    let mut tables = String::new();
    tables.push_str(&table("NcclFunctions", "Nccl", "libnccl", &nccl));
    tables.push_str(&table(
        "CudaFunctions",
        "Cuda",
        "the CUDA driver (libcuda)",
        &cuda,
    ));
    Split {
        items: annotate_unsafe(&prettyplease::unparse(&items)),
        tables,
    }
}

/// The one `unsafe` block bindgen writes outside the function tables, in the
/// `Default` of a C type it cannot derive it for (one with a union or a large
/// array): zeroing the value in place. Each gets the `// SAFETY:` comment the project
/// puts on every unsafe block; any other unsafe block stops the build, to be looked at.
fn annotate_unsafe(items: &str) -> String {
    const ZEROED: &str =
        "        unsafe {\n            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);";
    const SAFETY: &str = "        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for\n        // which all-zero bytes are a valid value, as its C users rely on.\n";
    let annotated = items.replace(ZEROED, &format!("{SAFETY}{ZEROED}"));
    let blocks = annotated.matches("unsafe {").count();
    let known = annotated.matches(SAFETY).count();
    if blocks != known {
        fail(&format!(
            "bindgen emitted {} unsafe block(s) of a kind the generator does not know; \
             add a SAFETY comment for them in annotate_unsafe",
            blocks - known
        ));
    }
    annotated
}

/// Entry points that cuda.h declares under one name or the other depending on its
/// release, with one signature under both: CUDA 12.8+ adds `cuEventElapsedTime_v2`
/// and CUDA 13's cuda.h `#define`s the old name to it, so its bindings lack the old
/// one, while headers before 12.8 lack the new one. Every driver that exports a name
/// exports it with this signature, so both entries are always generated and the safe
/// layer picks whichever the loaded driver has.
const SAME_SIGNATURE_ALIASES: &[(&str, &str)] = &[("cuEventElapsedTime", "cuEventElapsedTime_v2")];

/// Adds the missing name of each pair of [`SAME_SIGNATURE_ALIASES`] with the other's
/// signature.
fn add_missing_aliases(functions: &mut Vec<Function>) {
    for (old, new) in SAME_SIGNATURE_ALIASES {
        let has = |name: &str, fs: &[Function]| fs.iter().any(|f| f.name == name);
        for (present, missing) in [(old, new), (new, old)] {
            if has(missing, functions) {
                continue;
            }
            let Some(f) = functions.iter().find(|f| f.name == *present) else {
                continue;
            };
            let doc: syn::Attribute = syn::parse_quote! {
                #[doc = "The same entry point under its other name (see `SAME_SIGNATURE_ALIASES` in nccl-sys's build script); the header in use declares only the other one."]
            };
            let alias = Function {
                name: missing.to_string(),
                docs: vec![doc],
                args: f.args.clone(),
                output: f.output.clone(),
            };
            functions.push(alias);
        }
    }
}

/// One library's function table, its resolver, and a calling method per function.
fn table(table: &str, library: &str, what: &str, functions: &[Function]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/// Entry points of {what}, each `None` when the library lacks it."
    );
    let _ = writeln!(s, "#[derive(Clone, Copy)]");
    let _ = writeln!(s, "#[allow(non_snake_case, clippy::type_complexity)]");
    let _ = writeln!(s, "pub(crate) struct {table} {{");
    for f in functions {
        let _ = writeln!(s, "    pub(crate) {}: Option<{}>,", f.name, f.fn_type());
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(s, "impl {table} {{");
    let _ = writeln!(
        s,
        "    /// Names of every function in this table, in header order."
    );
    let _ = writeln!(
        s,
        "    pub(crate) const NAMES: &'static [&'static str] = &["
    );
    for f in functions {
        let _ = writeln!(s, "        {:?},", f.name);
    }
    let _ = writeln!(s, "    ];\n");
    let _ = writeln!(s, "    /// Looks every function up in `lib`.");
    let _ = writeln!(
        s,
        "    pub(crate) fn resolve(lib: &::libloading::Library) -> Self {{"
    );
    let _ = writeln!(s, "        Self {{");
    for f in functions {
        let _ = writeln!(
            s,
            "            // SAFETY: the pointer type is the prototype bindgen generated from"
        );
        let _ = writeln!(s, "            // the header that declares this symbol.");
        let _ = writeln!(
            s,
            "            {}: unsafe {{ crate::loader::symbol::<{}>(lib, b\"{}\\0\") }},",
            f.name,
            f.fn_type(),
            f.name
        );
    }
    let _ = writeln!(s, "        }}\n    }}\n");
    let _ = writeln!(s, "    /// Whether the function named `name` was found.");
    let _ = writeln!(
        s,
        "    pub(crate) fn has(&self, name: &str) -> Option<bool> {{"
    );
    let _ = writeln!(s, "        match name {{");
    for f in functions {
        let _ = writeln!(
            s,
            "            {:?} => Some(self.{}.is_some()),",
            f.name, f.name
        );
    }
    let _ = writeln!(s, "            _ => None,\n        }}\n    }}\n}}\n");

    let _ = writeln!(s, "#[allow(non_snake_case, clippy::too_many_arguments)]");
    let _ = writeln!(s, "impl crate::{library} {{");
    for f in functions {
        for doc in &f.docs {
            let _ = writeln!(s, "    {}", doc.to_token_stream());
        }
        if !f.docs.is_empty() {
            let _ = writeln!(s, "    ///");
        }
        let _ = writeln!(s, "    /// Calls `{}` in the loaded library.", f.name);
        let _ = writeln!(s, "    ///");
        let _ = writeln!(s, "    /// # Errors");
        let _ = writeln!(s, "    ///");
        let _ = writeln!(
            s,
            "    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the \
             loaded library does not export `{}`; the function is not called then.",
            f.name
        );
        let _ = writeln!(s, "    ///");
        let _ = writeln!(s, "    /// # Safety");
        let _ = writeln!(s, "    ///");
        let _ = writeln!(
            s,
            "    /// The C function's own contract: valid pointers and handles as `{}` \
             documents them in {what}.",
            f.name
        );
        let params: Vec<_> = f.args.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let names: Vec<_> = f.args.iter().map(|(n, _)| n.as_str()).collect();
        let ret = f.output.clone().unwrap_or_else(|| "()".into());
        let _ = writeln!(
            s,
            "    pub unsafe fn {}(&self, {}) -> Result<{ret}, crate::LoadError> {{",
            f.name,
            params.join(", ")
        );
        let _ = writeln!(s, "        match self.functions.{} {{", f.name);
        let call = format!("callee__({})", names.join(", "));
        let _ = writeln!(s, "            Some(callee__) => {{");
        let _ = writeln!(
            s,
            "                // SAFETY: the caller upholds the C function's contract."
        );
        if f.output.is_some() {
            let _ = writeln!(s, "                Ok(unsafe {{ {call} }})");
        } else {
            let _ = writeln!(s, "                unsafe {{ {call} }};");
            let _ = writeln!(s, "                Ok(())");
        }
        let _ = writeln!(s, "            }}");
        let _ = writeln!(s, "            None => Err(self.missing({:?})),", f.name);
        let _ = writeln!(s, "        }}\n    }}\n");
    }
    let _ = writeln!(s, "}}\n");
    s
}
