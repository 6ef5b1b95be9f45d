//! Bootstrap through the launcher's own PMIx server, no store of ours:
//! [`ProcessGroup::from_pmix`], and [`Rendezvous::Pmix`] for
//! [`ProcessGroup::from_env`] (chosen by `NCCL_RS_STORE=pmix:`, or when the process has
//! a PMIx server, `PMIX_NAMESPACE`, and no other rendezvous address).
//!
//! Open MPI's `mpirun` (through its PMIx server) and Slurm's `srun --mpi=pmix` serve
//! their processes PMIx. The client library, `libpmix.so.2`, is loaded at run time
//! (`NCCL_RS_PMIX_LIBRARY` names another file), so nothing of PMIx is needed to build;
//! when it cannot be loaded, [`Error::Pmix`] says so. What is used of it:
//!
//! - `PMIx_Init` (once per process; `PMIx_Finalize` runs at exit): this process's
//!   namespace and rank; `PMIx_Get` of the job size, the local rank and size, the node
//!   index and the number of nodes.
//! - The unique id: every rank puts a `joined` key, rank 0 also the id (global
//!   scope), and commits; every rank enters a fence over the job's namespace with
//!   `pmix.timeout` (the group's timeout, in whole seconds); the others then get rank
//!   0's value. PMIx does not say who kept a fence from completing: after a failed
//!   fence, the ranks whose `joined` cannot be read within a second are named missing
//!   ([`Error::Rendezvous`]).
//! - Failures: none go through PMIx. Measured here with a rank killed mid-job: under
//!   Open MPI 4.1's `mpirun` and Slurm 22.05's `srun --mpi=pmix` the launcher ends the
//!   whole job itself and no PMIx event (process aborted or terminated) reaches the
//!   survivors first; an event raised by a client to tell the others makes Slurm's PMIx
//!   plugin cancel the step, and leaves that `mpirun` hanging at the end of the job. So
//!   a failed rank is seen through the communicator (NCCL's errors; on the sim, the
//!   death or abort of a peer), each group's own timeouts, and the launcher ending the
//!   job. There is no hang report on this path either (no store to gather the flight
//!   records in): use `from_env` with a store for that.
//!
//! The C types below are PMIx 4's ABI (`pmix_common.h`); ci/test checks their sizes and
//! offsets against the installed header.

use std::ffi::{CStr, CString, c_char};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libloading::Library;
use nccl_safe::{Device, UniqueId};

use super::{Launch, Overrides, Rendezvous};
use crate::{Error, Options, ProcessGroup, Result};

const NSLEN: usize = 256;
const KEYLEN: usize = 512;
const RANK_WILDCARD: u32 = u32::MAX - 1;
const SUCCESS: i32 = 0;
const GLOBAL: u8 = 3;
const T_INT: u16 = 6;
const T_UINT16: u16 = 13;
const T_UINT32: u16 = 14;
const T_BYTE_OBJECT: u16 = 27;
const T_PROC_RANK: u16 = 40;
/// `pmix_proc_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Proc {
    nspace: [c_char; NSLEN],
    rank: u32,
}

/// `pmix_byte_object_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ByteObject {
    bytes: *mut c_char,
    size: usize,
}

/// The members of `pmix_value_t`'s union that are used here; `_size` gives it the
/// union's size (its largest member, `pmix_envar_t`, is 24 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
union Data {
    flag: bool,
    integer: i32,
    uint16: u16,
    uint32: u32,
    rank: u32,
    bo: ByteObject,
    _size: [u64; 3],
}

/// `pmix_value_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Value {
    kind: u16,
    data: Data,
}

/// `pmix_info_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Info {
    key: [c_char; KEYLEN],
    flags: u32,
    value: Value,
}

/// The functions of libpmix that are used.
struct Api {
    init: unsafe extern "C" fn(*mut Proc, *mut Info, usize) -> i32,
    finalize: unsafe extern "C" fn(*const Info, usize) -> i32,
    get: unsafe extern "C" fn(
        *const Proc,
        *const c_char,
        *const Info,
        usize,
        *mut *mut Value,
    ) -> i32,
    put: unsafe extern "C" fn(u8, *const c_char, *mut Value) -> i32,
    commit: unsafe extern "C" fn() -> i32,
    fence: unsafe extern "C" fn(*const Proc, usize, *const Info, usize) -> i32,
    error_string: unsafe extern "C" fn(i32) -> *const c_char,
    value_destruct: unsafe extern "C" fn(*mut Value),
    _lib: Library,
}

/// This process's PMIx client, initialised once.
pub(crate) struct Client {
    api: Api,
    me: Proc,
}

// Send and Sync by its fields (function pointers, the library, plain data): PMIx's
// client calls are thread-safe (it shifts them to its progress thread).

static CLIENT: OnceLock<std::result::Result<Client, String>> = OnceLock::new();

/// The library to load: `NCCL_RS_PMIX_LIBRARY`, else `libpmix.so.2`.
fn library_name() -> String {
    std::env::var("NCCL_RS_PMIX_LIBRARY").unwrap_or_else(|_| "libpmix.so.2".into())
}

fn load(name: &str) -> std::result::Result<Api, String> {
    // SAFETY: loading libpmix runs its initialisers, which have no preconditions.
    let lib = unsafe { Library::new(name) }.map_err(|e| {
        format!("{name} could not be loaded ({e}); install libpmix2 or set NCCL_RS_PMIX_LIBRARY")
    })?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol is PMIx's function of that name, whose C signature
            // is the field's type (pmix.h of PMIx 4).
            *unsafe { lib.get($name) }.map_err(|e| {
                format!(
                    "{name} has no {}: {e}",
                    String::from_utf8_lossy(&$name[..$name.len() - 1])
                )
            })?
        };
    }
    Ok(Api {
        init: sym!(b"PMIx_Init\0"),
        finalize: sym!(b"PMIx_Finalize\0"),
        get: sym!(b"PMIx_Get\0"),
        put: sym!(b"PMIx_Put\0"),
        commit: sym!(b"PMIx_Commit\0"),
        fence: sym!(b"PMIx_Fence\0"),
        error_string: sym!(b"PMIx_Error_string\0"),
        value_destruct: sym!(b"PMIx_Value_destruct\0"),
        _lib: lib,
    })
}

extern "C" fn finalize_at_exit() {
    if let Some(Ok(c)) = CLIENT.get() {
        // SAFETY: the client was initialised; no info is passed.
        unsafe { (c.api.finalize)(std::ptr::null(), 0) };
    }
}

/// The process's PMIx client, initialising it on first use.
pub(crate) fn client() -> Result<&'static Client> {
    let made = CLIENT.get_or_init(|| {
        let api = load(&library_name())?;
        // SAFETY: all-zero is a valid `pmix_proc_t` for PMIx_Init to fill in.
        let mut me: Proc = unsafe { std::mem::zeroed() };
        // SAFETY: `me` is a valid out-pointer; no info is passed.
        let rc = unsafe { (api.init)(&mut me, std::ptr::null_mut(), 0) };
        if rc != SUCCESS {
            return Err(format!(
                "PMIx_Init failed: {} (is this process started by a launcher with a PMIx \
                 server, e.g. mpirun or srun --mpi=pmix?)",
                status_text(&api, rc)
            ));
        }
        // SAFETY: registering a plain extern "C" function with no state.
        unsafe { libc::atexit(finalize_at_exit) };
        Ok(Client { api, me })
    });
    made.as_ref().map_err(|what| Error::Pmix {
        op: "initialising the PMIx client".into(),
        what: what.clone(),
    })
}

fn status_text(api: &Api, rc: i32) -> String {
    // SAFETY: PMIx_Error_string returns a static string for any status.
    let p = unsafe { (api.error_string)(rc) };
    if p.is_null() {
        return format!("status {rc}");
    }
    // SAFETY: a NUL-terminated static string.
    format!("{} ({rc})", unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

fn info(key: &str, value: Value) -> Info {
    // SAFETY: all-zero is a valid `pmix_info_t` (an empty key, no flags, PMIX_UNDEF).
    let mut i: Info = unsafe { std::mem::zeroed() };
    for (d, s) in i.key.iter_mut().zip(key.bytes().take(KEYLEN - 1)) {
        *d = s as c_char;
    }
    i.value = value;
    i
}

/// `key` as PMIx takes it: a C string of at most 511 bytes.
fn pmix_key(key: &str) -> Result<CString> {
    let bad = |why: &str| Error::Pmix {
        op: format!("the key {key:?}"),
        what: why.to_string(),
    };
    if key.len() >= KEYLEN {
        return Err(bad(
            "longer than PMIx's 511 bytes (is the group name that long?)",
        ));
    }
    CString::new(key).map_err(|_| bad("contains a NUL byte (the group name?)"))
}

/// `pmix.timeout`: whole seconds, at least one.
fn timeout_info(timeout: Duration) -> Info {
    let secs = timeout.as_secs_f64().ceil().clamp(1.0, f64::from(i32::MAX)) as i32;
    info("pmix.timeout", value(T_INT, Data { integer: secs }))
}

fn value(kind: u16, data: Data) -> Value {
    Value { kind, data }
}

impl Client {
    /// This process's rank in its namespace.
    pub(crate) fn rank(&self) -> u32 {
        self.me.rank
    }

    /// This process's namespace.
    pub(crate) fn namespace(&self) -> String {
        // SAFETY: PMIx fills the namespace NUL-terminated within its array.
        unsafe { CStr::from_ptr(self.me.nspace.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    fn proc_of(&self, rank: u32) -> Proc {
        Proc {
            nspace: self.me.nspace,
            rank,
        }
    }

    fn fail(&self, op: String, rc: i32) -> Error {
        Error::Pmix {
            op,
            what: status_text(&self.api, rc),
        }
    }

    /// `PMIx_Get` of `key` for `rank` (wildcard for the job's values), with `infos`.
    fn get_raw<T>(
        &self,
        rank: u32,
        key: &str,
        infos: &[Info],
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<T> {
        let k = pmix_key(key)?;
        let p = self.proc_of(rank);
        let mut out: *mut Value = std::ptr::null_mut();
        // SAFETY: valid proc, key and info array; `out` receives a value PMIx
        // allocates, released below.
        let rc = unsafe { (self.api.get)(&p, k.as_ptr(), infos.as_ptr(), infos.len(), &mut out) };
        if rc != SUCCESS || out.is_null() {
            return Err(self.fail(format!("PMIx_Get({key}) of rank {rank}"), rc));
        }
        // SAFETY: PMIx returned a valid value.
        let got = read(unsafe { &*out });
        // SAFETY: the value is PMIx's to destruct; the struct itself is malloc'ed
        // (PMIX_VALUE_RELEASE: destruct, then free).
        unsafe {
            (self.api.value_destruct)(out);
            libc::free(out.cast());
        }
        got.ok_or_else(|| Error::Pmix {
            op: format!("PMIx_Get({key}) of rank {rank}"),
            what: "a value of an unexpected type".into(),
        })
    }

    fn get_u32(&self, rank: u32, key: &str) -> Result<u32> {
        self.get_raw(rank, key, &[], |v| {
            // SAFETY: the member read is the one `kind` says is set.
            unsafe {
                match v.kind {
                    T_UINT32 => Some(v.data.uint32),
                    T_UINT16 => Some(u32::from(v.data.uint16)),
                    T_PROC_RANK => Some(v.data.rank),
                    _ => None,
                }
            }
        })
    }

    /// The ranks (but this one) whose `key` cannot be read within a second, asked
    /// from 64 threads at a time.
    fn missing(&self, key: &str) -> Vec<usize> {
        let Ok(size) = self.get_u32(RANK_WILDCARD, "pmix.job.size") else {
            return Vec::new();
        };
        let others: Vec<u32> = (0..size).filter(|r| *r != self.me.rank).collect();
        let mut missing = Vec::new();
        for chunk in others.chunks(64) {
            let found: Vec<(u32, bool)> = std::thread::scope(|s| {
                let asks: Vec<_> = chunk
                    .iter()
                    .map(|&r| {
                        s.spawn(move || {
                            let infos = [timeout_info(Duration::from_secs(1))];
                            (r, self.get_raw(r, key, &infos, |_| Some(())).is_ok())
                        })
                    })
                    .collect();
                asks.into_iter().filter_map(|a| a.join().ok()).collect()
            });
            missing.extend(
                found
                    .into_iter()
                    .filter(|(_, ok)| !ok)
                    .map(|(r, _)| r as usize),
            );
        }
        missing
    }

    /// This process's launch as PMIx describes it.
    pub(crate) fn launch(&self) -> Result<Launch> {
        let me = self.me.rank;
        let size = self.get_u32(RANK_WILDCARD, "pmix.job.size")?;
        let local_rank = self.get_u32(me, "pmix.lrank")?;
        let local_size = self.get_u32(RANK_WILDCARD, "pmix.local.size")?;
        let node = self.get_u32(me, "pmix.nodeid").ok();
        let nodes = self.get_u32(RANK_WILDCARD, "pmix.num.nodes").ok();
        let overrides = Overrides {
            rank: Some(me as usize),
            world_size: Some(size as usize),
            local_rank: Some(local_rank as usize),
            local_world_size: Some(local_size as usize),
            node: node.map(|n| n as usize),
            nodes: nodes.map(|n| n as usize),
            rendezvous: Some(Rendezvous::Pmix),
            ..Overrides::default()
        };
        Ok(Launch::from_vars(&|_| None, &overrides)?)
    }

    fn put(&self, key: &str, mut v: Value) -> Result<()> {
        let k = pmix_key(key)?;
        // SAFETY: a valid key and value; PMIx copies what the value points to.
        let rc = unsafe { (self.api.put)(GLOBAL, k.as_ptr(), &mut v) };
        if rc != SUCCESS {
            return Err(self.fail(format!("PMIx_Put({key})"), rc));
        }
        Ok(())
    }

    /// Every rank says it joined (`{prefix}/joined`), rank 0 publishes `id` under
    /// `{prefix}/id`; every rank fences (within `timeout`); the others read the id.
    /// After a fence that timed out, the ranks whose `joined` cannot be read within a
    /// second are named missing.
    pub(crate) fn exchange(
        &self,
        prefix: &str,
        group: &str,
        id: Option<&UniqueId>,
        timeout: Duration,
    ) -> Result<UniqueId> {
        let key = format!("{prefix}/id");
        let joined = format!("{prefix}/joined");
        self.put(
            &joined,
            value(
                T_UINT32,
                Data {
                    uint32: std::process::id(),
                },
            ),
        )?;
        if let Some(id) = id {
            let mut bytes = id.as_bytes().to_vec();
            let bo = ByteObject {
                bytes: bytes.as_mut_ptr().cast(),
                size: bytes.len(),
            };
            self.put(&key, value(T_BYTE_OBJECT, Data { bo }))?;
        }
        // SAFETY: no arguments.
        let rc = unsafe { (self.api.commit)() };
        if rc != SUCCESS {
            return Err(self.fail("PMIx_Commit".into(), rc));
        }
        let infos = [timeout_info(timeout)];
        let all = self.proc_of(RANK_WILDCARD);
        let start = Instant::now();
        // SAFETY: one valid proc (every rank of the namespace) and a valid info array.
        let rc = unsafe { (self.api.fence)(&all, 1, infos.as_ptr(), infos.len()) };
        if rc != SUCCESS {
            let missing = self.missing(&joined);
            return Err(Error::Rendezvous {
                addr: format!("pmix: (namespace {})", self.namespace()),
                group: group.to_string(),
                rank: self.me.rank as usize,
                what: format!(
                    "the PMIx fence failed ({}); missing are the ranks whose `joined` could \
                     not be read within a second",
                    status_text(&self.api, rc)
                ),
                missing,
                waited: start.elapsed(),
            });
        }
        if let Some(id) = id {
            return Ok(*id);
        }
        let bytes = self.get_raw(0, &key, &infos, |v| {
            // SAFETY: the member read is the one `kind` says is set, and a byte
            // object's pointer holds `size` bytes.
            unsafe {
                (v.kind == T_BYTE_OBJECT && !v.data.bo.bytes.is_null()).then(|| {
                    std::slice::from_raw_parts(v.data.bo.bytes.cast::<u8>(), v.data.bo.size)
                        .to_vec()
                })
            }
        })?;
        Ok(UniqueId::from_bytes(&bytes)?)
    }
}

impl ProcessGroup {
    /// Creates a group over the processes of this PMIx namespace (collective: every
    /// rank of the job calls it): rank, size, local rank and size from the launcher's
    /// PMIx server, the device from the local rank ([`Launch::device`]), and the
    /// unique id exchanged through PMIx (put by rank 0, a fence, a get) — no store.
    /// Works under `mpirun` (Open MPI) and `srun --mpi=pmix`. See the module
    /// documentation of `launch::pmix` for what it can and cannot report.
    ///
    /// # Errors
    ///
    /// [`Error::Pmix`] when libpmix cannot be loaded or initialised (no PMIx server),
    /// or a PMIx call fails; [`Error::Rendezvous`] naming the missing ranks when the
    /// fence fails (its timeout is the group's); as [`Launch::device`] and
    /// [`ProcessGroup::new`].
    pub fn from_pmix(options: Options) -> Result<ProcessGroup> {
        let launch = client()?.launch()?;
        let device = launch.device()?;
        ProcessGroup::from_launch_on(&launch, &device, options)
    }
}

/// This process's [`Launch`] as the launcher's PMIx server describes it (initialising
/// the PMIx client): rank, world size, local rank and size, node and nodes, with
/// [`Rendezvous::Pmix`].
///
/// # Errors
///
/// [`Error::Pmix`] when libpmix cannot be loaded, there is no PMIx server, or a value
/// is missing.
pub fn launch_of() -> Result<Launch> {
    client()?.launch()
}

/// The unique id of group `prefix` through PMIx, for [`ProcessGroup::from_launch_on`]:
/// checks that PMIx agrees with `launch` on the rank first.
pub(crate) fn exchange_id(
    launch: &Launch,
    prefix: &str,
    device: &Device,
    options: &Options,
) -> Result<UniqueId> {
    let c = client()?;
    if c.rank() as usize != launch.rank() {
        return Err(Error::Pmix {
            op: "checking the launch against PMIx".into(),
            what: format!(
                "the launch says rank {} but PMIx says rank {} of namespace {}",
                launch.rank(),
                c.rank(),
                c.namespace()
            ),
        });
    }
    let id = if launch.rank() == 0 {
        Some(UniqueId::for_driver(device.driver())?)
    } else {
        None
    };
    let id = c.exchange(prefix, &options.name, id.as_ref(), options.timeout)?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes and offsets of the C types, as ci/test compares them with the
    /// installed `pmix_common.h` (`ci/pmix-abi.c` prints the same lines).
    pub(crate) fn abi_lines() -> String {
        let i: Info = info("k", value(0, Data { _size: [0; 3] }));
        let base = std::ptr::addr_of!(i) as usize;
        format!(
            "proc {} {}\nvalue {} {}\ninfo {} {} {}\nbyte_object {}\nlengths {NSLEN} {KEYLEN} \
             wildcard {RANK_WILDCARD} global {GLOBAL}\ntypes {T_INT} {T_UINT16} {T_UINT32} \
             {T_BYTE_OBJECT} {T_PROC_RANK}\n",
            std::mem::size_of::<Proc>(),
            std::mem::offset_of!(Proc, rank),
            std::mem::size_of::<Value>(),
            std::mem::offset_of!(Value, data),
            std::mem::size_of::<Info>(),
            std::ptr::addr_of!(i.flags) as usize - base,
            std::ptr::addr_of!(i.value) as usize - base,
            std::mem::size_of::<ByteObject>(),
        )
    }

    #[test]
    fn the_c_types_match_pmix_4s_layout_on_64_bit_linux() {
        let lines = abi_lines();
        assert!(
            lines.starts_with("proc 260 256\nvalue 32 8\ninfo 552 512 520\nbyte_object 16\n"),
            "{lines}"
        );
    }

    #[test]
    #[ignore = "needs PMIx's headers and a C compiler (ci/test runs it with --ignored)"]
    fn the_c_types_match_the_installed_header() {
        let include = std::env::var("NCCL_RS_PMIX_INCLUDE")
            .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/pmix2/include".into());
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("pmix-abi");
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../ci/pmix-abi.c");
        let built = std::process::Command::new("cc")
            .args([src, "-I", &include, "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(built.success(), "cc {src} -I {include}");
        let out = std::process::Command::new(&exe).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), abi_lines());
    }

    #[test]
    fn keys_with_a_nul_or_too_long_are_errors_naming_them_not_panics() {
        assert!(pmix_key("nccl-rs/default/1/id").is_ok());
        let e = pmix_key("nccl-rs/a\0b/1/id").unwrap_err().to_string();
        assert!(e.contains("NUL") && e.contains("a\\0b"), "{e}");
        let e = pmix_key(&"k".repeat(600)).unwrap_err().to_string();
        assert!(e.contains("511"), "{e}");
    }

    #[test]
    #[cfg_attr(miri, ignore = "loads a shared library")]
    fn a_missing_library_is_a_typed_error_naming_it() {
        // The loader alone (the client is process-wide): a file that is not there.
        let Err(e) = load("/nonexistent/libpmix.so.2") else {
            panic!("loaded a library that does not exist");
        };
        assert!(
            e.contains("/nonexistent/libpmix.so.2") && e.contains("NCCL_RS_PMIX_LIBRARY"),
            "{e}"
        );
    }
}
