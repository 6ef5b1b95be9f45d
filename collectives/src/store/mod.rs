//! The job's rendezvous store: a small key-value service for the control plane
//! (rendezvous, failure propagation, collecting flight records). Tensor data never goes
//! through it.
//!
//! - [`Store`] is what every backend offers: `set`, `get`, `wait` (with a timeout that
//!   names the missing keys), `add` on decimal counters, `compare_set`, `delete`.
//! - [`TcpStoreServer`] serves a store from one process (usually rank 0, or the
//!   launcher); [`TcpStore`] is a client of it. A client can register a key the server
//!   sets when the client's connection drops without [`TcpStore::close`]
//!   ([`TcpStore::on_disconnect_create`]): that is how the death of a rank becomes visible
//!   to the others. The wire format is in [`frame`].
//! - [`FileStore`] keeps the keys as files in a directory on a shared file system.
//! - [`TorchStore`] is a client of PyTorch's c10d `TCPStore` (its own wire format).
//! - [`connect`] opens one from a URL: `tcp://host:port`, `torch+tcp://host:port` or
//!   `file:///abs/path`.
//!
//! Keys are non-empty UTF-8 strings of at most [`MAX_KEY_LEN`] bytes; values are bytes.
//! Counters written by [`Store::add`] are stored as decimal ASCII (`"42"`), so `get`
//! reads them and `set` can seed them.
//!
//! A [`TcpStoreServer`] refuses to listen where other hosts can reach it unless it has
//! a token ([`StoreError::NeedsToken`]; [`ServerOptions::allow_no_token`] opts out);
//! with a job name ([`ServerOptions::job`]) it refuses clients of another job
//! ([`StoreError::Clash`]). Connections yet to say hello have a quota and a deadline,
//! and what clients may buffer is bounded in all. There is no encryption: the token
//! keeps strangers and other jobs out, but travels in clear text. [`TorchStore`] is a
//! client of PyTorch's `TCPStore` (torchrun's agent store), which has no token.
//!
//! ```
//! use std::time::Duration;
//! use collectives::store::{self, ClientOptions, ServerOptions, Store, TcpStore, TcpStoreServer};
//!
//! let server = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::new())?;
//! let rank1 = TcpStore::connect(&server.local_addr().to_string(), ClientOptions::new())?;
//! rank1.on_disconnect_create("failed/1", b"rank 1 died")?;
//! rank1.set("addr/1", b"10.0.0.2:4000")?;
//!
//! let rank0 = store::connect(&server.url(), &ClientOptions::new())?;
//! rank0.wait(&["addr/1"], Duration::from_secs(10))?;
//! assert_eq!(rank0.add("arrived", 1)?, 1);
//! rank1.close()?; // an orderly exit: "failed/1" stays unset
//! # Ok::<(), store::StoreError>(())
//! ```

mod file;
pub mod frame;
mod options;
mod rendezvous;
mod server;
mod table;
mod tcp;
mod torch;

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use file::FileStore;
pub use options::{ClientOptions, ServerOptions};
pub use rendezvous::{RendezvousError, rendezvous};
pub use server::TcpStoreServer;
pub use tcp::TcpStore;
pub use torch::TorchStore;

/// The longest key, in bytes.
pub const MAX_KEY_LEN: usize = 1024;

/// A key-value store shared by the processes of a job. Every method may be called from
/// several threads at once; each call is atomic with respect to the others on the same
/// key.
pub trait Store: Send + Sync {
    /// Stores `value` under `key`, replacing what was there.
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError>;

    /// The value of `key`, or `None` when it does not exist.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Blocks until every key of `keys` exists or `timeout` passes; the
    /// [`StoreError::Timeout`] names the keys still missing then. An empty `keys`
    /// returns at once.
    fn wait(&self, keys: &[&str], timeout: Duration) -> Result<(), StoreError>;

    /// Adds `delta` to the decimal counter at `key` (absent counts as 0) and returns
    /// the new value. A value that is not a decimal `i64`, or an overflow, is a
    /// [`StoreError::Counter`].
    fn add(&self, key: &str, delta: i64) -> Result<i64, StoreError>;

    /// Sets `key` to `new` if and only if its current value is `expected` (`None`:
    /// the key must be absent). Returns the value after the call: `Some(new)` when the
    /// swap happened (or the value already was `new`), otherwise the current value,
    /// `None` when the key is absent.
    fn compare_set(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<Option<Vec<u8>>, StoreError>;

    /// Removes `key`; returns whether it existed.
    fn delete(&self, key: &str) -> Result<bool, StoreError>;

    /// Waits for `key`, at most `timeout`, and returns its value: `Ok(None)` when the
    /// time ran out or [`interrupt_watch`](Self::interrupt_watch) cut the wait short.
    /// Where [`watches_without_polling`](Self::watches_without_polling) says so, the
    /// wait costs the store nothing while it lasts, however long: how a rank watches
    /// the job's failure record. The default waits with [`wait`](Self::wait), then
    /// reads.
    fn watch_get(&self, key: &str, timeout: Duration) -> Result<Option<Vec<u8>>, StoreError> {
        match self.wait(&[key], timeout) {
            Ok(()) => self.get(key),
            Err(StoreError::Timeout { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Ends a [`watch_get`](Self::watch_get) of another thread now, where the backend
    /// can (a no-op by default). One that begins after this call is not ended by it.
    fn interrupt_watch(&self) {}

    /// Whether [`watch_get`](Self::watch_get) waits without polling the store: a
    /// [`TcpStore`] (one request the server answers when the key is set) and a
    /// [`TorchStore`] (PyTorch's `WAIT` on a connection of its own) do; the default
    /// and a [`FileStore`] poll.
    fn watches_without_polling(&self) -> bool {
        false
    }
}

/// What went wrong with a store. Each variant names the value at fault.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No connection could be made before the deadline.
    #[error("could not connect to the store at {addr} (tried for {waited:?}): {last_error}")]
    Connect {
        /// The address tried.
        addr: String,
        /// How long it was tried.
        waited: Duration,
        /// The last error seen (the OS's, or the server's refusal).
        last_error: String,
    },
    /// A wait ran out of time.
    #[error("timed out after {waited:?} waiting for keys {missing:?}")]
    Timeout {
        /// The keys that still did not exist.
        missing: Vec<String>,
        /// How long it waited.
        waited: Duration,
    },
    /// The server refused this client (wrong or missing token).
    #[error("the store at {addr} rejected this client: {reason}")]
    Rejected {
        /// The server's address.
        addr: String,
        /// Why, as the server said.
        reason: String,
    },
    /// The store serves another job than this client's: two jobs computed the same
    /// rendezvous address (the same `MASTER_PORT`, or Slurm's port derived from job
    /// ids that repeat modulo 1000). Never retried.
    #[error(
        "the store at {addr} serves another job: {reason}; two jobs computed the same \
         rendezvous address: give this one its own (MASTER_PORT, or NCCL_RS_STORE)"
    )]
    Clash {
        /// The server's address.
        addr: String,
        /// Which job the server serves and which this client belongs to.
        reason: String,
    },
    /// A TCP store was to listen where other hosts can reach it without a token.
    #[error(
        "refusing to serve the store on {addr} without a token: any host that reaches \
         it could read the job's unique id and abort the job. Give every rank the same \
         secret in NCCL_RS_STORE_TOKEN (e.g. `export NCCL_RS_STORE_TOKEN=$(openssl rand \
         -hex 16)` before srun; mpirun also needs `-x NCCL_RS_STORE_TOKEN`), use a \
         loopback address for a job on one host, or set NCCL_RS_STORE_INSECURE=1 \
         (ServerOptions::allow_no_token) where every host of the network is trusted"
    )]
    NeedsToken {
        /// The address it was to listen on.
        addr: String,
    },
    /// A file store's directory or file that other users could read or change.
    #[error("file store {path}: {reason}")]
    Unsafe {
        /// The directory or file.
        path: String,
        /// What is wrong with it, and how to fix it.
        reason: String,
    },
    /// The peer broke the protocol (an unexpected or malformed frame).
    #[error("store protocol error: {what}")]
    Protocol {
        /// What was wrong.
        what: String,
    },
    /// Something is over a limit: a frame, the store's bytes, its key count, a key.
    #[error("{what}: {size} is over the limit of {limit}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An I/O operation failed.
    #[error("store I/O error in {op}: {error}")]
    Io {
        /// The operation (and its path or address).
        op: String,
        /// The error's text.
        error: String,
    },
    /// The connection is closed (by [`TcpStore::close`], by the server, or after an
    /// earlier error left it in an unknown state).
    #[error("the store connection to {addr} is closed: {reason}")]
    Closed {
        /// The server's address.
        addr: String,
        /// Why it is closed.
        reason: String,
    },
    /// A key is unusable.
    #[error("invalid store key {key:?}: {reason}")]
    InvalidKey {
        /// The key (its first 64 characters).
        key: String,
        /// Why.
        reason: String,
    },
    /// `add` on a value that is no counter, or an overflow.
    #[error("counter {key:?}: {reason}")]
    Counter {
        /// The key.
        key: String,
        /// Why.
        reason: String,
    },
    /// A store URL that does not parse.
    #[error("invalid store URL {url:?}: {reason} (expected tcp://host:port or file:///abs/path)")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An option out of range.
    #[error("invalid store option {option} = {value}: {reason}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why it is refused.
        reason: String,
    },
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match self {
            StoreError::Connect { .. } => "Connect",
            StoreError::Timeout { .. } => "Timeout",
            StoreError::Rejected { .. } => "Rejected",
            StoreError::Clash { .. } => "Clash",
            StoreError::NeedsToken { .. } => "NeedsToken",
            StoreError::Unsafe { .. } => "Unsafe",
            StoreError::Protocol { .. } => "Protocol",
            StoreError::TooLarge { .. } => "TooLarge",
            StoreError::Io { .. } => "Io",
            StoreError::Closed { .. } => "Closed",
            StoreError::InvalidKey { .. } => "InvalidKey",
            StoreError::Counter { .. } => "Counter",
            StoreError::InvalidUrl { .. } => "InvalidUrl",
            StoreError::InvalidOption { .. } => "InvalidOption",
        };
        write!(f, "StoreError::{variant}: {self}")
    }
}

/// Opens the store a URL names: `tcp://host:port` (a [`TcpStore`] client, with
/// `options`), `torch+tcp://host:port` (a [`TorchStore`], keys as given) or `file:///abs/path` (a [`FileStore`] on that directory, created when
/// missing; a file store has no token, so `options` must not set one). File paths are
/// taken literally (no percent-decoding).
pub fn connect(url: &str, options: &ClientOptions) -> Result<Box<dyn Store>, StoreError> {
    let bad = |reason: &str| StoreError::InvalidUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    if let Some(rest) = url.strip_prefix("torch+tcp://") {
        check_hostport(rest).map_err(&bad)?;
        return Ok(Box::new(TorchStore::connect(rest, "", options)?));
    }
    if let Some(rest) = url.strip_prefix("tcp://") {
        check_hostport(rest).map_err(&bad)?;
        return Ok(Box::new(TcpStore::connect(rest, options.clone())?));
    }
    if let Some(path) = url.strip_prefix("file://") {
        if !path.starts_with('/') {
            return Err(bad("a file URL needs an absolute path and no host"));
        }
        if path.contains('\0') {
            return Err(bad("the path contains NUL"));
        }
        if options.has_token() {
            return Err(StoreError::InvalidOption {
                option: "token",
                value: "(set)".into(),
                reason: format!(
                    "{url} is a file store, which has no token; protect its directory with \
                     file permissions"
                ),
            });
        }
        return Ok(Box::new(FileStore::open(path)?));
    }
    Err(bad("unknown scheme"))
}

/// Connects to the first address `addr` (`host:port`) resolves to that accepts, each
/// try bounded by `timeout`; the error text says what failed last.
pub(crate) fn dial(addr: &str, timeout: Duration) -> Result<std::net::TcpStream, String> {
    use std::net::{TcpStream, ToSocketAddrs};
    let addrs = addr
        .to_socket_addrs()
        .map_err(|e| format!("resolving {addr}: {e}"))?;
    let mut last = format!("{addr} resolves to no address");
    for sa in addrs {
        match TcpStream::connect_timeout(&sa, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("connecting to {sa}: {e}"),
        }
    }
    Err(last)
}

fn check_hostport(rest: &str) -> Result<(), &'static str> {
    let Some((host, port)) = rest.rsplit_once(':') else {
        return Err("no port");
    };
    if host.is_empty() || host.contains(['/', '@', '?', '#']) {
        return Err("the host must be a name or an address, without a path");
    }
    if port.parse::<u16>().map_or(true, |p| p == 0) {
        return Err("the port must be a number from 1 to 65535");
    }
    Ok(())
}

/// Checks a key against the rules of every backend: non-empty, at most [`MAX_KEY_LEN`]
/// bytes.
pub(crate) fn check_key(key: &str) -> Result<(), StoreError> {
    if key.is_empty() {
        return Err(StoreError::InvalidKey {
            key: String::new(),
            reason: "keys must not be empty".into(),
        });
    }
    if key.len() > MAX_KEY_LEN {
        return Err(StoreError::TooLarge {
            what: format!("length in bytes of key {:?}...", short(key)),
            size: key.len() as u64,
            limit: MAX_KEY_LEN as u64,
        });
    }
    Ok(())
}

/// The first 64 characters of `s`, for error messages.
pub(crate) fn short(s: &str) -> String {
    s.chars().take(64).collect()
}

/// `current + delta` for the counter at `key`: the new value and its stored bytes.
pub(crate) fn add_counter(
    key: &str,
    current: Option<&[u8]>,
    delta: i64,
) -> Result<(i64, Vec<u8>), StoreError> {
    let old = match current {
        None => 0,
        Some(bytes) => std::str::from_utf8(bytes)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| StoreError::Counter {
                key: short(key),
                reason: format!(
                    "its value {:?} is not a decimal i64",
                    short(&String::from_utf8_lossy(bytes))
                ),
            })?,
    };
    let new = old.checked_add(delta).ok_or_else(|| StoreError::Counter {
        key: short(key),
        reason: format!("{old} + {delta} overflows i64"),
    })?;
    Ok((new, new.to_string().into_bytes()))
}

/// The instant `timeout` from now, or `None` when that is beyond what `Instant` holds
/// (wait forever).
pub(crate) fn deadline_after(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

/// Locks `m`, taking over the data of a thread that panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_parsed_or_named_in_the_error() {
        let opts = ClientOptions::new().connect_timeout(Duration::from_millis(10));
        for url in [
            "tcp://",
            "tcp://host",
            "tcp://:80",
            "tcp://host:0",
            "tcp://host:99999",
            "tcp://host:80/path",
            "file://relative/path",
            "file://",
            "http://x:1",
            "",
        ] {
            match connect(url, &opts) {
                Err(StoreError::InvalidUrl { url: u, .. }) => assert_eq!(u, url),
                Err(other) => panic!("{url}: {other}"),
                Ok(_) => panic!("{url} was accepted"),
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}", dir.path().display());
        let store = connect(&url, &opts).unwrap();
        store.set("k", b"v").unwrap();
        assert_eq!(store.get("k").unwrap().as_deref(), Some(&b"v"[..]));
        let err = connect(&url, &opts.clone().token("secret")).err().unwrap();
        assert!(matches!(
            err,
            StoreError::InvalidOption {
                option: "token",
                ..
            }
        ));
    }

    #[test]
    fn counters_parse_add_and_refuse_overflow() {
        assert_eq!(add_counter("c", None, 5).unwrap(), (5, b"5".to_vec()));
        assert_eq!(add_counter("c", Some(b"-7"), 2).unwrap().0, -5);
        assert!(matches!(
            add_counter("c", Some(b"x1"), 1),
            Err(StoreError::Counter { .. })
        ));
        assert!(matches!(
            add_counter("c", Some(i64::MAX.to_string().as_bytes()), 1),
            Err(StoreError::Counter { .. })
        ));
        assert!(check_key("").is_err());
        assert!(check_key(&"k".repeat(MAX_KEY_LEN)).is_ok());
        assert!(check_key(&"k".repeat(MAX_KEY_LEN + 1)).is_err());
    }
}
