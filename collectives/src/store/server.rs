//! The TCP store's server, [`TcpStoreServer`]. One thread accepts, one thread serves
//! each connection; the data sits behind one mutex, and a condition variable wakes
//! waits when a key changes. A connection that breaks the protocol, stalls inside a
//! frame, or fails authentication is closed alone; the other clients never notice.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::frame::{self, ErrorCode, Frame, FrameError, Limits, PROTOCOL_VERSION};
use super::options::{MAX_TOKEN_LEN, ServerOptions};
use super::table::{Table, cost};
use super::{StoreError, add_counter, check_key, deadline_after, lock, short};

/// How often a server-side wait checks that its client is still connected.
const PEER_CHECK: Duration = Duration::from_millis(50);
/// The largest hello: opcode, version, then the token and the job name, each a tag,
/// a length and at most MAX_TOKEN_LEN bytes.
const MAX_HELLO: u32 = 5 + 2 * (5 + MAX_TOKEN_LEN as u32);
/// Frames up to this size are not counted in [`ServerOptions::max_buffered`].
const SMALL_FRAME: u64 = 64 * 1024;
/// Open files kept beyond the connections for everything else of the process.
const FD_MARGIN: usize = 256;
/// The stack of a connection's thread (it reads into a 64 KiB buffer on it).
const CONN_STACK: usize = 256 * 1024;
/// How long dropping a server waits for its connection threads to finish.
const STOP_PATIENCE: Duration = Duration::from_secs(2);

/// A store served over TCP from a background thread. Dropping it stops it: the
/// listener closes, every connection is shut down, and the drop returns within about
/// two seconds whatever the clients do.
#[derive(Debug)]
pub struct TcpStoreServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    options: ServerOptions,
    data: Mutex<Table>,
    changed: Condvar,
    stopping: AtomicBool,
    conns: Mutex<Conns>,
    conn_gone: Condvar,
    /// Bytes of unfinished frames held over all connections.
    buffered: AtomicU64,
}

/// The open connections (a clone of each stream, to shut it down on stop).
#[derive(Debug, Default)]
struct Conns {
    open: HashMap<u64, TcpStream>,
    /// The connections that have not said hello yet, oldest first.
    pending: VecDeque<u64>,
    /// Connections closed to make room among the pending ones: told they may retry.
    evicted: HashSet<u64>,
    next_id: u64,
}

/// A reply to send, or a refusal to turn into one.
type Reply = Result<Frame, StoreError>;

impl TcpStoreServer {
    /// Listens on `addr` (e.g. `"127.0.0.1:29500"`, or port 0 for any free port) and
    /// serves on a background thread until dropped.
    ///
    /// # Errors
    ///
    /// [`StoreError::NeedsToken`] for an address that is not loopback when `options`
    /// has no token (and no [`ServerOptions::allow_no_token`]); [`StoreError::Io`]
    /// when the address cannot be bound (taken, or not an address of this host);
    /// [`StoreError::InvalidOption`].
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
        let table = Table::new(options.max_stored_bytes, options.max_keys);
        let shared = Arc::new(Shared {
            options,
            data: Mutex::new(table),
            changed: Condvar::new(),
            stopping: AtomicBool::new(false),
            conns: Mutex::new(Conns::default()),
            conn_gone: Condvar::new(),
            buffered: AtomicU64::new(0),
        });
        let s = shared.clone();
        let accept = thread::Builder::new()
            .name(format!("store-accept-{}", local.port()))
            .spawn(move || accept_loop(listener, s))
            .map_err(|e| io("starting the accept thread for", e))?;
        log::debug!("store server listening on {local}");
        Ok(TcpStoreServer {
            addr: local,
            shared,
            accept: Some(accept),
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

    /// Connections served at the moment.
    pub fn connections(&self) -> usize {
        lock(&self.shared.conns).open.len()
    }
}

impl Drop for TcpStoreServer {
    fn drop(&mut self) {
        let shared = &self.shared;
        shared.stopping.store(true, Ordering::SeqCst);
        {
            let _data = lock(&shared.data);
            shared.changed.notify_all();
        }
        // Wake the blocking accept with a connection of our own; it sees `stopping`.
        let wake = SocketAddr::new(loopback_for(self.addr.ip()), self.addr.port());
        if TcpStream::connect_timeout(&wake, Duration::from_secs(1)).is_ok() {
            if let Some(handle) = self.accept.take() {
                let _ = handle.join();
            }
        } else {
            log::warn!(
                "store server {}: could not wake its accept thread",
                self.addr
            );
        }
        let mut conns = lock(&shared.conns);
        for stream in conns.open.values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let deadline = Instant::now() + STOP_PATIENCE;
        while !conns.open.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                log::warn!(
                    "store server {}: {} connections linger",
                    self.addr,
                    conns.open.len()
                );
                break;
            }
            conns = shared
                .conn_gone
                .wait_timeout(conns, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
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

fn loopback_for(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        other => other,
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let accepted = listener.accept();
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok((stream, peer)) => admit(&shared, stream, peer),
            Err(e) => {
                // Out of descriptors and the like: say so, and do not spin.
                log::warn!("store server: accept failed: {e}");
                thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

fn admit(shared: &Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let mut conns = lock(&shared.conns);
    let o = &shared.options;
    if conns.open.len() - conns.pending.len() >= o.max_connections {
        drop(conns);
        log::warn!("store server: refusing {peer}: at the connection limit");
        let message = format!(
            "the server is at its limit of {} connections",
            o.max_connections
        );
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        if let Ok(bytes) = frame::encode(
            &Frame::Error {
                code: ErrorCode::Busy,
                message,
            },
            &Limits::default(),
        ) {
            let _ = (&stream).write_all(&bytes);
        }
        let _ = stream.shutdown(Shutdown::Write);
        return;
    }
    // Room among the connections yet to say hello: the oldest of them goes. Its
    // thread sees its reading end shut and tells it the server is busy (a client
    // of the job, merely slow to say hello in a crowd, then retries).
    while conns.pending.len() >= o.max_pending {
        let Some(oldest) = conns.pending.pop_front() else {
            break;
        };
        // Out of the count at once: its thread may take a moment to notice.
        if let Some(s) = conns.open.remove(&oldest) {
            log::debug!("store server: closing a connection that has not said hello");
            conns.evicted.insert(oldest);
            let _ = s.shutdown(Shutdown::Read);
        }
    }
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let id = conns.next_id;
    conns.next_id += 1;
    conns.open.insert(id, clone);
    conns.pending.push_back(id);
    drop(conns);
    let s = shared.clone();
    let spawned = thread::Builder::new()
        .name(format!("store-conn-{id}"))
        .stack_size(CONN_STACK)
        .spawn(move || serve(s, id, stream, peer));
    if let Err(e) = spawned {
        log::warn!("store server: no thread for {peer}: {e}");
        let mut conns = lock(&shared.conns);
        conns.open.remove(&id);
        conns.pending.retain(|p| *p != id);
    }
}

/// One connection's state, on its own thread.
struct Conn {
    id: u64,
    stream: TcpStream,
    peer: SocketAddr,
    buf: Vec<u8>,
    /// Bytes of [`Shared::buffered`] held for the frame being read.
    reserved: u64,
    /// The server closed it for lack of room: not the client's death, so its
    /// disconnect records are not set.
    refused: bool,
    opened: Instant,
    authenticated: bool,
    hello_seen: bool,
    goodbye: bool,
    on_disconnect: Vec<(String, Vec<u8>)>,
}

/// How a connection ends: `Ok` for an orderly end, `Err` with why otherwise.
type End = Result<(), String>;

fn serve(shared: Arc<Shared>, id: u64, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_write_timeout(Some(shared.options.frame_deadline));
    let mut conn = Conn {
        id,
        stream,
        peer,
        buf: Vec::new(),
        reserved: 0,
        refused: false,
        opened: Instant::now(),
        authenticated: false,
        hello_seen: false,
        goodbye: false,
        on_disconnect: Vec::new(),
    };
    let end = conn.run(&shared);
    if lock(&shared.conns).evicted.remove(&id) {
        let _ = conn.send(&evicted_notice(&shared.options), &Limits::default());
    }
    match &end {
        Ok(()) => log::debug!("store server: {peer} left"),
        Err(why) => log::debug!("store server: closed {peer}: {why}"),
    }
    let _ = conn.stream.shutdown(Shutdown::Both);
    conn.release(&shared);
    {
        let mut data = lock(&shared.data);
        let fire = !conn.goodbye && !conn.refused && !shared.stopping.load(Ordering::SeqCst);
        for (key, value) in conn.on_disconnect.drain(..) {
            data.release(cost(&key, &value));
            // Create-if-absent: a record already there (the first failure) stays.
            if fire && !data.contains(&key) {
                log::info!("store server: {peer} dropped; setting {:?}", short(&key));
                data.put_unchecked(&key, value);
            } else if fire {
                log::info!(
                    "store server: {peer} dropped; {:?} is set already and stays",
                    short(&key)
                );
            }
        }
        shared.changed.notify_all();
    }
    {
        let mut conns = lock(&shared.conns);
        conns.open.remove(&id);
        conns.pending.retain(|p| *p != id);
        conns.evicted.remove(&id);
    }
    shared.conn_gone.notify_all();
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

impl Conn {
    fn run(&mut self, shared: &Shared) -> End {
        let limits = Limits {
            max_frame: shared.options.max_frame,
        };
        // Until a client has shown its token, it may send nothing bigger than a hello.
        let hello_limits = Limits {
            max_frame: shared.options.max_frame.min(MAX_HELLO),
        };
        loop {
            let now = if self.authenticated {
                &limits
            } else {
                &hello_limits
            };
            let request = match self.read_frame(shared, now) {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(()),
                Err(why) => return Err(why),
            };
            let (reply, close) = match self.handle(shared, request) {
                Step::Reply(r) => (r, false),
                Step::ReplyAndClose(r) => (r, true),
                Step::Close(why) => return Err(why),
            };
            let reply = reply.unwrap_or_else(|e| refusal(&e));
            self.send(&reply, &limits)?;
            if close {
                return if self.goodbye {
                    Ok(())
                } else {
                    Err(format!("{reply:?}"))
                };
            }
        }
    }

    /// The next frame, `None` at a clean end of stream, or why the connection must go.
    fn read_frame(&mut self, shared: &Shared, limits: &Limits) -> Result<Option<Frame>, String> {
        let d = shared.options.frame_deadline;
        let mut started: Option<Instant> = None;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match frame::decode(&self.buf, limits) {
                Ok(Some((f, used))) => {
                    self.buf.drain(..used);
                    self.release(shared);
                    return Ok(Some(f));
                }
                Ok(None) => self.reserve(shared, limits)?,
                Err(e) => {
                    let reply = match &e {
                        FrameError::TooLarge { size, limit } => Frame::TooLarge {
                            what: "frame body".into(),
                            size: *size,
                            limit: *limit,
                        },
                        other => protocol_error(other.to_string()),
                    };
                    let _ = self.send(&reply, limits);
                    return Err(e.to_string());
                }
            }
            // The hello of a client that has not authenticated must come in time from
            // the connection on, a begun frame in time from its first byte. An idle,
            // authenticated connection waits freely.
            let deadline = if !self.authenticated {
                Some(self.opened + shared.options.hello_deadline)
            } else if !self.buf.is_empty() {
                Some(*started.get_or_insert_with(Instant::now) + d)
            } else {
                None
            };
            let timeout = match deadline {
                Some(t) => match t.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ if !self.authenticated => {
                        let h = shared.options.hello_deadline;
                        return Err(format!("no hello within {h:?}"));
                    }
                    _ => return Err(format!("no complete frame within {d:?}")),
                },
                None => None,
            };
            self.stream
                .set_read_timeout(timeout)
                .map_err(|e| e.to_string())?;
            match self.stream.read(&mut chunk) {
                Ok(0) if self.buf.is_empty() => return Ok(None),
                Ok(0) => {
                    return Err(format!(
                        "end of stream inside a frame ({} bytes)",
                        self.buf.len()
                    ));
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    /// Holds room in [`Shared::buffered`] for the frame whose length prefix is in. When
    /// the connections together hold too much, it waits for room (the client's frame
    /// then waits in the socket) until the frame deadline; past it the frame is
    /// refused and the connection closed, as the server's doing.
    fn reserve(&mut self, shared: &Shared, limits: &Limits) -> End {
        if self.reserved > 0 || self.buf.len() < frame::HEADER_LEN {
            // (A frame's body is what is held; its 4-byte prefix is not counted.)
            return Ok(());
        }
        let mut len = [0u8; frame::HEADER_LEN];
        len.copy_from_slice(&self.buf[..frame::HEADER_LEN]);
        let size = u64::from(u32::from_le_bytes(len));
        if size <= SMALL_FRAME {
            // Small frames are bounded by the connection count alone: they never wait
            // behind large ones (keys, ids and failure records are small).
            return Ok(());
        }
        let limit = shared.options.max_buffered;
        let deadline = Instant::now() + shared.options.frame_deadline;
        loop {
            let taken = shared
                .buffered
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| {
                    (b + size <= limit).then_some(b + size)
                });
            match taken {
                Ok(_) => {
                    self.reserved = size;
                    return Ok(());
                }
                Err(held)
                    if Instant::now() >= deadline || shared.stopping.load(Ordering::SeqCst) =>
                {
                    let reply = Frame::TooLarge {
                        what: "unfinished frames over all connections".into(),
                        size: held + size,
                        limit,
                    };
                    let _ = self.send(&reply, limits);
                    self.refused = true;
                    return Err(format!(
                        "a frame of {size} bytes found no room within {:?} under the {limit} \
                         buffered bytes",
                        shared.options.frame_deadline
                    ));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Gives back this connection's room in [`Shared::buffered`].
    fn release(&mut self, shared: &Shared) {
        if self.reserved > 0 {
            shared.buffered.fetch_sub(self.reserved, Ordering::SeqCst);
            self.reserved = 0;
        }
    }

    fn send(&mut self, reply: &Frame, limits: &Limits) -> End {
        let bytes = frame::encode(reply, limits)
            .or_else(|e| frame::encode(&protocol_error(e.to_string()), limits))
            .map_err(|e| e.to_string())?;
        self.stream
            .write_all(&bytes)
            .map_err(|e| format!("writing a reply: {e}"))
    }

    fn handle(&mut self, shared: &Shared, request: Frame) -> Step {
        let o = &shared.options;
        if let Frame::Hello {
            version,
            token,
            job,
        } = &request
        {
            if self.hello_seen {
                return Step::ReplyAndClose(Ok(protocol_error("a second hello".into())));
            }
            self.hello_seen = true;
            if *version != PROTOCOL_VERSION {
                let m = format!("client speaks version {version}, server {PROTOCOL_VERSION}");
                return Step::ReplyAndClose(Ok(protocol_error(m)));
            }
            if let Some(expected) = &o.token {
                let given = token.as_deref().unwrap_or("");
                if token.is_none() || !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
                    let m = if token.is_none() {
                        "a token is required"
                    } else {
                        "wrong token"
                    };
                    return Step::ReplyAndClose(Ok(rejected(m)));
                }
            }
            if let (Some(serves), Some(theirs)) = (&o.job, job) {
                if serves != theirs {
                    let m =
                        format!("it serves job {serves:?}, this client belongs to job {theirs:?}");
                    return Step::ReplyAndClose(Ok(Frame::Error {
                        code: ErrorCode::Clash,
                        message: m,
                    }));
                }
            }
            {
                let mut conns = lock(&shared.conns);
                if conns.evicted.remove(&self.id) {
                    return Step::ReplyAndClose(Ok(evicted_notice(o)));
                }
                conns.pending.retain(|p| *p != self.id);
            }
            self.authenticated = true;
            return Step::Reply(Ok(Frame::Ok));
        }
        if !self.authenticated {
            return Step::ReplyAndClose(Ok(rejected(
                "the first frame must be a hello with the token",
            )));
        }
        let reply = match request {
            Frame::Set { key, value } => check_key(&key).and_then(|()| {
                lock(&shared.data).put(&key, value)?;
                shared.changed.notify_all();
                Ok(Frame::Ok)
            }),
            Frame::Get { key } => {
                check_key(&key).map(|()| Frame::Value(lock(&shared.data).get(&key).cloned()))
            }
            Frame::Wait { keys, timeout_ms } => {
                if let Err(e) = keys.iter().try_for_each(|k| check_key(k)) {
                    return Step::Reply(Err(e));
                }
                return self.wait(shared, &keys, Duration::from_millis(timeout_ms));
            }
            Frame::Add { key, delta } => check_key(&key).and_then(|()| {
                let mut data = lock(&shared.data);
                let (new, bytes) = add_counter(&key, data.get(&key).map(Vec::as_slice), delta)?;
                data.put(&key, bytes)?;
                shared.changed.notify_all();
                Ok(Frame::Int(new))
            }),
            Frame::CompareSet { key, expected, new } => check_key(&key).and_then(|()| {
                let mut data = lock(&shared.data);
                let current = data.get(&key);
                if current.map(Vec::as_slice) != expected.as_deref() {
                    return Ok(Frame::Value(current.cloned()));
                }
                data.put(&key, new.clone())?;
                shared.changed.notify_all();
                Ok(Frame::Value(Some(new)))
            }),
            Frame::Delete { key } => {
                check_key(&key).map(|()| Frame::Bool(lock(&shared.data).remove(&key)))
            }
            Frame::OnDisconnectCreate { key, value } => {
                check_key(&key).and_then(|()| self.register(shared, key, value))
            }
            Frame::Goodbye => {
                self.goodbye = true;
                return Step::ReplyAndClose(Ok(Frame::Ok));
            }
            other => {
                let m = format!("{other:?} is a reply, not a request");
                return Step::ReplyAndClose(Ok(protocol_error(m)));
            }
        };
        Step::Reply(reply)
    }

    /// Reserves room for an on-disconnect registration (replacing one for the same key).
    fn register(&mut self, shared: &Shared, key: String, value: Vec<u8>) -> Reply {
        let mut data = lock(&shared.data);
        if let Some(i) = self.on_disconnect.iter().position(|(k, _)| *k == key) {
            let (k, v) = self.on_disconnect.swap_remove(i);
            data.release(cost(&k, &v));
        }
        data.reserve(cost(&key, &value))?;
        self.on_disconnect.push((key, value));
        Ok(Frame::Ok)
    }

    /// Waits for `keys`, checking every [`PEER_CHECK`] that the client is still there
    /// (so that its on-disconnect keys are set promptly even while it waits).
    fn wait(&mut self, shared: &Shared, keys: &[String], timeout: Duration) -> Step {
        let deadline = deadline_after(timeout);
        loop {
            {
                let data = lock(&shared.data);
                let missing: Vec<String> =
                    keys.iter().filter(|k| !data.contains(k)).cloned().collect();
                if missing.is_empty() {
                    return Step::Reply(Ok(Frame::Ok));
                }
                if shared.stopping.load(Ordering::SeqCst) {
                    return Step::Close("the server is stopping".into());
                }
                let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                if left.is_some_and(|l| l.is_zero()) {
                    return Step::Reply(Ok(Frame::WaitTimeout { missing }));
                }
                let tick = left.map_or(PEER_CHECK, |l| l.min(PEER_CHECK));
                drop(shared.changed.wait_timeout(data, tick));
            }
            if self.peer_gone() {
                return Step::Close(format!("{} went away during a wait", self.peer));
            }
        }
    }

    /// Whether the client closed its end (or the socket failed), without consuming
    /// anything it sent.
    fn peer_gone(&self) -> bool {
        if self.stream.set_nonblocking(true).is_err() {
            return true;
        }
        let r = self.stream.peek(&mut [0u8; 1]);
        let _ = self.stream.set_nonblocking(false);
        match r {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted),
        }
    }
}

/// What to do after a request.
enum Step {
    Reply(Reply),
    ReplyAndClose(Reply),
    Close(String),
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
