//! The TCP store's server, [`TcpStoreServer`]: one thread runs an event loop (`mio`:
//! epoll on Linux) over the listener and every connection. Nothing blocks it: reads
//! and writes are non-blocking, a `wait` is parked on the keys it waits for and
//! answered when the last of them is set (or its deadline passes, or the client
//! nudges it), and deadlines sit in a timer heap. A connection that breaks the
//! protocol, stalls inside a frame, or fails authentication is closed alone; the other
//! clients never notice.
//!
//! Why an event loop and why `mio`: a thread per connection costs a stack and a
//! scheduler entry per rank (16,384 threads for as many ranks) and woke every waiting
//! thread at every change of any key; one poller costs a few hundred bytes per idle
//! connection, and a change wakes only the waits on its key. The standard library has
//! non-blocking sockets but no poller; `mio` is the small, widely used one (epoll on
//! Linux, kqueue on the BSDs and macOS) with no runtime of its own.

mod event_loop;
mod requests;

use std::io::ErrorKind;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};

use super::StoreError;
use super::frame::{ErrorCode, Frame};
use super::options::ServerOptions;

/// Open files kept beyond the connections for everything else of the process.
const FD_MARGIN: usize = 256;

/// A store served over TCP from one background thread (an event loop). Dropping it
/// stops it: the listener and every connection close, and the drop returns as soon as
/// the loop has seen the stop (within milliseconds, whatever the clients do).
#[derive(Debug)]
pub struct TcpStoreServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// What the server's thread and its handle share.
#[derive(Debug)]
struct Shared {
    stopping: AtomicBool,
    waker: mio::Waker,
    /// Open connections, those yet to say hello included.
    connections: AtomicUsize,
    /// Requests served since the server started (hellos and nudges included).
    requests: AtomicU64,
}

impl TcpStoreServer {
    /// Listens on `addr` (e.g. `"127.0.0.1:29500"`, or port 0 for any free port) and
    /// serves on a background thread until dropped.
    ///
    /// # Errors
    ///
    /// [`StoreError::NeedsToken`] for an address that is not loopback when `options`
    /// has no token (and no [`ServerOptions::allow_no_token`]); [`StoreError::Io`]
    /// when the address cannot be bound (taken, or not an address of this host) or
    /// the event loop cannot start; [`StoreError::InvalidOption`].
    pub fn bind(addr: &str, options: ServerOptions) -> Result<TcpStoreServer, StoreError> {
        options.validate()?;
        let io = |op: &str, e: std::io::Error| StoreError::Io {
            op: format!("{op} {addr}"),
            error: e.to_string(),
        };
        let listener = TcpListener::bind(addr).map_err(|e| io("binding", e))?;
        let local = listener
            .local_addr()
            .map_err(|e| io("reading the address of", e))?;
        if options.token.is_none() && !options.allow_no_token && !local.ip().is_loopback() {
            return Err(StoreError::NeedsToken {
                addr: local.to_string(),
            });
        }
        let wanted = options.max_connections + options.max_pending + FD_MARGIN;
        if let Err(e) = raise_open_files(wanted) {
            log::warn!("store server {local}: {e}; connections past the limit will fail");
        }
        widen_backlog(&listener, options.max_connections + options.max_pending);
        listener
            .set_nonblocking(true)
            .map_err(|e| io("configuring the listener of", e))?;
        let poll = mio::Poll::new().map_err(|e| io("starting the event loop of", e))?;
        let waker = mio::Waker::new(poll.registry(), event_loop::WAKER)
            .map_err(|e| io("starting the event loop of", e))?;
        let shared = Arc::new(Shared {
            stopping: AtomicBool::new(false),
            waker,
            connections: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
        });
        let mut ev = event_loop::Loop::new(
            poll,
            mio::net::TcpListener::from_std(listener),
            options,
            shared.clone(),
        )
        .map_err(|e| io("registering the listener of", e))?;
        let thread = thread::Builder::new()
            .name(format!("store-server-{}", local.port()))
            .spawn(move || ev.run())
            .map_err(|e| io("starting the thread of", e))?;
        log::debug!("store server listening on {local}");
        Ok(TcpStoreServer {
            addr: local,
            shared,
            thread: Some(thread),
        })
    }

    /// The address it listens on (with the port chosen when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `tcp://` and the address, for [`connect`](super::connect).
    pub fn url(&self) -> String {
        format!("tcp://{}", self.addr)
    }

    /// Connections served at the moment (those yet to say hello included).
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::Relaxed)
    }

    /// Requests served since the server started: every frame a client sent that the
    /// server acted on (hellos and nudges included). Sampled twice, it gives the load
    /// of a job on its store, e.g. what idle ranks cost it.
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Ordering::Relaxed)
    }
}

impl Drop for TcpStoreServer {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Err(e) = self.shared.waker.wake() {
            // Cannot happen short of a broken event loop: the thread is left running
            // rather than this drop hanging.
            log::warn!("store server {}: could not wake its loop: {e}", self.addr);
            return;
        }
        if let Some(handle) = self.thread.take() {
            let _ = handle.join();
        }
    }
}

/// Asks for a listen backlog of `wanted` connections (the kernel caps it at
/// `net.core.somaxconn`) instead of the standard library's 128: a job's ranks connect
/// at once, and connections past the backlog wait a second for their retried SYN.
fn widen_backlog(listener: &TcpListener, wanted: usize) {
    use std::os::fd::AsRawFd;
    let backlog = libc::c_int::try_from(wanted.max(128)).unwrap_or(libc::c_int::MAX);
    // SAFETY: `listen` on the descriptor this listener owns and keeps open; a second
    // call on a listening socket only sets its backlog.
    if unsafe { libc::listen(listener.as_raw_fd(), backlog) } != 0 {
        log::debug!(
            "store server: keeping the default backlog: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Raises the soft limit on open files to `wanted` (at most the hard limit) when it
/// is lower.
fn raise_open_files(wanted: usize) -> Result<(), String> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(format!("getrlimit: {}", std::io::Error::last_os_error()));
    }
    let wanted = wanted as libc::rlim_t;
    if lim.rlim_cur >= wanted {
        return Ok(());
    }
    let raised = libc::rlimit {
        rlim_cur: wanted.min(lim.rlim_max),
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit reads the rlimit it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        return Err(format!("setrlimit: {}", std::io::Error::last_os_error()));
    }
    if raised.rlim_cur < wanted {
        return Err(format!(
            "the open-file limit is {} (hard), below the {wanted} the connections need",
            lim.rlim_max
        ));
    }
    Ok(())
}

/// The reply frame of a refused request.
fn refusal(e: &StoreError) -> Frame {
    match e {
        StoreError::InvalidKey { reason, .. } => Frame::Error {
            code: ErrorCode::InvalidKey,
            message: reason.clone(),
        },
        StoreError::Counter { reason, .. } => Frame::Error {
            code: ErrorCode::Counter,
            message: reason.clone(),
        },
        StoreError::TooLarge { what, size, limit } => Frame::TooLarge {
            what: what.clone(),
            size: *size,
            limit: *limit,
        },
        other => protocol_error(other.to_string()),
    }
}

fn protocol_error(message: String) -> Frame {
    Frame::Error {
        code: ErrorCode::Protocol,
        message,
    }
}

fn rejected(message: &str) -> Frame {
    Frame::Error {
        code: ErrorCode::Rejected,
        message: message.to_string(),
    }
}

/// What a connection closed to make room among the pending ones is told.
fn evicted_notice(o: &ServerOptions) -> Frame {
    Frame::Error {
        code: ErrorCode::Busy,
        message: format!(
            "closed to make room: more than {} connections had not said hello",
            o.max_pending
        ),
    }
}

/// Whether an I/O error only means "not now" on a non-blocking socket.
fn not_now(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

/// Equality whose time depends on the lengths only, not on where the bytes differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u64;
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= u64::from(x ^ y);
        diff = std::hint::black_box(diff);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_eq_compares_bytes_and_lengths() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret\0"));
        assert!(!constant_time_eq(b"", b"x"));
        assert!(constant_time_eq(b"", b""));
    }
}
