//! The TCP store's client, [`TcpStore`]. One connection per client, on which the
//! requests of its threads take turns in the order they come; connecting retries with
//! capped exponential backoff until a deadline. A wait holds the connection on the
//! server for as long as it lasts (no polling); a thread that wants the connection
//! meanwhile nudges it ([`Frame::Nudge`]), and the waiting thread asks again after it.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::frame::{self, ErrorCode, Frame, Limits, PROTOCOL_VERSION};
use super::options::ClientOptions;
use super::{Store, StoreError, check_key, deadline_after, lock, short};

/// The first pause between connection attempts; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// Why the connection of a [`TcpStore`] is gone after [`TcpStore::close`].
const CLOSED_BY_CLOSE: &str = "closed by TcpStore::close";
/// How often a wait in progress looks whether another thread waits to wait: it then
/// steps aside (a wait is not cut short at once for another wait, which would then
/// cut it short in turn).
const WAIT_SLICE: Duration = Duration::from_millis(100);
/// The longest one TCP connection attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a hello may go unanswered: a store answers at once, so a listener that
/// stays silent this long is some other program.
const HELLO_WAIT: Duration = Duration::from_secs(5);
/// Connections in a row that the listener closed before answering the hello, after
/// which it is taken for another program (a store only does that while it stops).
const MAX_HANGUPS: u32 = 3;
/// The text of an [`StoreError::Io`] for a reply that did not come in time.
const NO_REPLY: &str = "no reply in time";
/// What a listener that does not speak the protocol is taken for.
const NOT_A_STORE: &str = "the process listening there is not a store of this library \
     (another program holds the port, e.g. torchrun's agent store, which \
     TORCHELASTIC_USE_AGENT_STORE=True tells from_env to use)";

/// A client of a [`TcpStoreServer`](super::TcpStoreServer). `Send + Sync`: threads
/// share it, and their requests take turns on its one connection. A `wait` costs the
/// server nothing while it lasts (one request, answered when the keys are there), and
/// it steps aside for a request of another thread of the client (which nudges it), so
/// one thread may wait for a key that another thread sets through the same client.
///
/// The connection is never silently replaced: after an I/O error, a reply timeout or a
/// protocol error every later call fails with [`StoreError::Closed`], because a new
/// connection would have lost this one's [`on_disconnect_create`](Self::on_disconnect_create)
/// registrations (which the server carries out as the old one drops).
#[derive(Debug)]
pub struct TcpStore {
    addr: String,
    options: ClientOptions,
    conn: Mutex<Conn>,
    /// Signalled when a request ends, for the next in line.
    next_turn: Condvar,
    /// A second handle of the connection's socket, for nudges; every write to the
    /// socket holds this lock, so that a nudge never lands inside another frame.
    writer: Mutex<Option<TcpStream>>,
    /// A wait of this client is in progress on the server.
    waiting: AtomicBool,
    /// Threads that want a turn and have not got it yet.
    queued: AtomicUsize,
    /// Of those, the ones that want it for a wait.
    queued_waits: AtomicUsize,
    /// The next turn's number: turns are served in the order they are asked for.
    tickets: AtomicU64,
}

#[derive(Debug)]
struct Conn {
    stream: Option<TcpStream>,
    buf: Vec<u8>,
    closed: String,
    /// The ticket served now. Requests take turns in the order they arrive (their
    /// ticket, taken before the lock): a plain mutex lets the thread that just
    /// released it take it again at once, which can starve the others.
    serving: u64,
}

/// The connection, held for one request, handed to the next in line when dropped.
struct Turn<'a> {
    conn: MutexGuard<'a, Conn>,
    next_turn: &'a Condvar,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.conn.serving += 1;
        self.next_turn.notify_all();
    }
}

/// How one connection attempt failed.
enum Attempt {
    /// Worth another try (refused, reset, busy server): the error's text.
    Retry(String),
    /// Not worth another (wrong token, wrong protocol).
    Fatal(StoreError),
    /// Connected, but the hello went unanswered for [`HELLO_WAIT`].
    Silent,
    /// Connected, but the listener closed the connection without answering.
    Hangup,
}

impl TcpStore {
    /// Connects to `addr` (`host:port`), retrying with exponential backoff (10 ms
    /// doubling to 1 s) until [`ClientOptions::connect_timeout`] has passed, then says the
    /// hello (with the token, if any). A refused token is [`StoreError::Rejected`] at
    /// once; running out of time is [`StoreError::Connect`] naming the address, the
    /// time tried and the last error.
    pub fn connect(addr: &str, options: ClientOptions) -> Result<TcpStore, StoreError> {
        options.validate()?;
        let start = Instant::now();
        let deadline = deadline_after(options.connect_timeout);
        let mut backoff = FIRST_BACKOFF;
        let mut hangups = 0;
        loop {
            let foreign = |what: String| StoreError::Protocol {
                what: format!("{addr} {what}: {NOT_A_STORE}"),
            };
            let last_error = match attempt(addr, &options, deadline) {
                Ok(stream) => {
                    let writer = stream.try_clone().map_err(|e| StoreError::Io {
                        op: format!("setting up the connection to {addr}"),
                        error: e.to_string(),
                    })?;
                    return Ok(TcpStore {
                        addr: addr.to_string(),
                        options,
                        next_turn: Condvar::new(),
                        writer: Mutex::new(Some(writer)),
                        waiting: AtomicBool::new(false),
                        queued: AtomicUsize::new(0),
                        queued_waits: AtomicUsize::new(0),
                        tickets: AtomicU64::new(0),
                        conn: Mutex::new(Conn {
                            stream: Some(stream),
                            buf: Vec::new(),
                            closed: String::new(),
                            serving: 0,
                        }),
                    });
                }
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry(why)) => {
                    hangups = 0;
                    why
                }
                Err(Attempt::Silent) => {
                    return Err(foreign(format!(
                        "accepted the connection but did not answer the hello within \
                         {HELLO_WAIT:?}"
                    )));
                }
                Err(Attempt::Hangup) => {
                    hangups += 1;
                    if hangups >= MAX_HANGUPS {
                        return Err(foreign(format!(
                            "closed {hangups} connections in a row without answering the hello"
                        )));
                    }
                    "the server closed the connection before answering the hello".into()
                }
            };
            let left =
                deadline.map_or(MAX_BACKOFF, |d| d.saturating_duration_since(Instant::now()));
            if left.is_zero() {
                return Err(StoreError::Connect {
                    addr: addr.to_string(),
                    waited: start.elapsed(),
                    last_error,
                });
            }
            log::debug!("store client: {addr} not ready ({last_error}); retrying");
            thread::sleep(backoff.min(left));
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// The address it was connected to, as given.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The settings it was connected with.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Registers that the *server* creates `key` with `value` if this client's
    /// connection ends without [`close`](Self::close) (the process was killed,
    /// crashed, panicked, dropped this `TcpStore`, or the connection broke) and `key`
    /// does not exist then: a value already there (the first record of a failure)
    /// stays. Other ranks `wait` on `key` to learn of the failure. A second
    /// registration of the same key replaces the first.
    /// Registrations count against the server's byte and key limits while they are
    /// held. The server notices a dead client when its operating system closes the
    /// socket (at once for a killed process on a live host; a vanished host is noticed
    /// only once TCP gives up).
    pub fn on_disconnect_create(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        check_key(key)?;
        let request = Frame::OnDisconnectCreate {
            key: key.to_string(),
            value: value.to_vec(),
        };
        self.call(
            &request,
            "on_disconnect_create",
            Duration::ZERO,
            key,
            |reply| match reply {
                Frame::Ok => Ok(()),
                other => Err(other),
            },
        )
    }

    /// Closes the connection in an orderly way: a goodbye tells the server to drop this
    /// client's on-disconnect registrations. Later calls fail with
    /// [`StoreError::Closed`]; closing again is a no-op.
    ///
    /// On a connection already broken by an error it returns that
    /// [`StoreError::Closed`]: the server has carried out the registrations then.
    pub fn close(&self) -> Result<(), StoreError> {
        let mut turn = self.turn(false);
        if turn.conn.stream.is_none() && turn.conn.closed == CLOSED_BY_CLOSE {
            return Ok(());
        }
        match self.exchange_in(&mut turn.conn, &Frame::Goodbye, Duration::ZERO, "", false)? {
            Frame::Ok => {
                turn.conn.break_with(CLOSED_BY_CLOSE.into());
                Ok(())
            }
            other => Err(turn.conn.unexpected(other, "goodbye")),
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            max_frame: self.options.max_frame,
        }
    }

    /// Sends `request` in this thread's turn and returns what `pick` takes from the
    /// reply; a reply `pick` does not want breaks the connection. `op` names the request
    /// in that error, `key` the key in refusals; `extra` is added to the reply deadline
    /// (a wait's timeout).
    fn call<T>(
        &self,
        request: &Frame,
        op: &str,
        extra: Duration,
        key: &str,
        pick: impl FnOnce(Frame) -> Result<T, Frame>,
    ) -> Result<T, StoreError> {
        let waits = matches!(request, Frame::Wait { .. } | Frame::WaitGet { .. });
        // A wait shorter than a slice (a check of what is there) queues as a request.
        let mut turn = self.turn(waits && extra >= WAIT_SLICE);
        let reply = self.exchange_in(&mut turn.conn, request, extra, key, waits)?;
        pick(reply).map_err(|other| turn.conn.unexpected(other, op))
    }

    /// Sends `request` on `conn` (this thread's turn) and returns its reply; refusals
    /// become errors, and errors that leave the connection in doubt break it. A
    /// request that `waits` on the server may be nudged by other threads meanwhile.
    fn exchange_in(
        &self,
        conn: &mut Conn,
        request: &Frame,
        extra: Duration,
        key: &str,
        waits: bool,
    ) -> Result<Frame, StoreError> {
        let bytes = frame::encode(request, &self.limits()).map_err(|e| match e {
            frame::FrameError::TooLarge { size, limit } => StoreError::TooLarge {
                what: "request frame body".into(),
                size,
                limit,
            },
            other => StoreError::Protocol {
                what: other.to_string(),
            },
        })?;
        let Some(stream) = conn.stream.as_ref() else {
            return Err(StoreError::Closed {
                addr: self.addr.clone(),
                reason: conn.closed.clone(),
            });
        };
        let deadline = self
            .options
            .request_timeout
            .checked_add(extra)
            .and_then(deadline_after);
        let limits = self.limits();
        let sent = {
            let _writer = lock(&self.writer);
            send(stream, &bytes, &self.addr)
        };
        let result = sent.and_then(|()| {
            let waiting = waits.then(|| self.begin_waiting());
            // A wait steps aside for a wait of another thread already in line after
            // a slice (reading in slices only then: a lone wait sleeps in its read).
            let step_aside = || self.interrupt_wait();
            let tick: Option<&dyn Fn()> = match &waiting {
                Some((_, true)) => Some(&step_aside),
                _ => None,
            };
            receive(stream, &mut conn.buf, deadline, &limits, &self.addr, tick)
        });
        let reply = match result {
            Ok(reply) => reply,
            Err(e) => {
                conn.break_with(e.to_string());
                return Err(e);
            }
        };
        let (code, message) = match reply {
            Frame::TooLarge { what, size, limit } => {
                return Err(StoreError::TooLarge { what, size, limit });
            }
            Frame::Error { code, message } => (code, message),
            other => return Ok(other),
        };
        Err(match code {
            ErrorCode::InvalidKey => StoreError::InvalidKey {
                key: short(key),
                reason: message,
            },
            ErrorCode::Counter => StoreError::Counter {
                key: short(key),
                reason: message,
            },
            ErrorCode::Clash => {
                conn.break_with(format!("the server serves another job: {message}"));
                StoreError::Clash {
                    addr: self.addr.clone(),
                    reason: message,
                }
            }
            ErrorCode::Rejected | ErrorCode::Busy => {
                conn.break_with(format!("the server refused: {message}"));
                StoreError::Rejected {
                    addr: self.addr.clone(),
                    reason: message,
                }
            }
            ErrorCode::Protocol => {
                conn.break_with(format!("protocol error: {message}"));
                StoreError::Protocol { what: message }
            }
        })
    }

    /// Waits for this thread's turn on the connection (in the order asked for). A
    /// request other than a wait (`for_wait` false) nudges a wait in progress at once;
    /// a wait lets the wait in progress step aside at its next slice.
    fn turn(&self, for_wait: bool) -> Turn<'_> {
        // Announced before looking, as the waiting thread sets `waiting` before it
        // looks at `queued`: one of the two sees the other and nudges.
        // (`queued` first and `queued_waits` last on the way in, the other way out: a
        // thread between the two counts as a request, which at worst cuts a wait
        // short once, never as a wait that hides a request.)
        self.queued.fetch_add(1, Ordering::SeqCst);
        if for_wait {
            self.queued_waits.fetch_add(1, Ordering::SeqCst);
        }
        if self.waiting.load(Ordering::SeqCst) {
            if for_wait {
                // Another wait: the one in progress gets a slice first (two waits
                // that cut each other short at once would do nothing else).
                thread::sleep(WAIT_SLICE);
            }
            if self.waiting.load(Ordering::SeqCst) {
                self.interrupt_wait();
            }
        }
        let ticket = self.tickets.fetch_add(1, Ordering::SeqCst);
        let mut conn = lock(&self.conn);
        while conn.serving != ticket {
            conn = self.next_turn.wait(conn).unwrap_or_else(|e| e.into_inner());
        }
        if for_wait {
            self.queued_waits.fetch_sub(1, Ordering::SeqCst);
        }
        self.queued.fetch_sub(1, Ordering::SeqCst);
        Turn {
            conn,
            next_turn: &self.next_turn,
        }
    }

    /// Marks a wait in progress (until the guard goes), nudging it at once if a
    /// thread is in line already for something other than a wait. Says whether a
    /// wait is in line already: the wait then steps aside after a slice (a wait that
    /// comes later sees this one and nudges it after a slice itself).
    fn begin_waiting(&self) -> (Waiting<'_>, bool) {
        self.waiting.store(true, Ordering::SeqCst);
        let waits = self.queued_waits.load(Ordering::SeqCst);
        let queued = self.queued.load(Ordering::SeqCst);
        if queued > waits.min(queued) {
            self.interrupt_wait();
        }
        (Waiting(&self.waiting), waits > 0)
    }

    /// Ends a wait of this client in progress on the server at once, as if its time
    /// had run out: [`wait_once`](Self::wait_once) returns `Ok(false)`, and
    /// [`Store::wait`] asks again (after other threads' requests). Does nothing when no
    /// wait is in progress, or after the connection broke. Another thread's request
    /// does this by itself; call it to stop a thread that waits in `wait_once`.
    pub fn interrupt_wait(&self) {
        let Ok(bytes) = frame::encode(&Frame::Nudge, &self.limits()) else {
            return;
        };
        let writer = lock(&self.writer);
        if let Some(mut stream) = writer.as_ref() {
            // A failure here is the connection's: the waiting thread sees it.
            let _ = stream.write_all(&bytes);
        }
    }

    /// Shuts the connection down at once, whatever request is in progress (it fails,
    /// and so does every later one): what a request without a reply in time does. The
    /// server sees the connection end without a goodbye, and sets its records.
    pub(crate) fn break_connection(&self) {
        if let Some(s) = lock(&self.writer).as_ref() {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// One wait on the server for every key of `keys`, at most `timeout`: `Ok(true)`
    /// when they all exist, `Ok(false)` when the time ran out or the wait was cut
    /// short ([`interrupt_wait`](Self::interrupt_wait), or a request of another
    /// thread of this client). It costs the server one request however long it
    /// lasts, and is the way to watch a key (a failure record, say) without polling.
    ///
    /// # Errors
    ///
    /// As [`Store::wait`], except that running out of time is `Ok(false)`.
    pub fn wait_once(&self, keys: &[&str], timeout: Duration) -> Result<bool, StoreError> {
        if keys.is_empty() {
            return Ok(true);
        }
        keys.iter().try_for_each(|k| check_key(k))?;
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        Ok(self.wait_round(keys, timeout)?.is_none())
    }

    /// One wait on the server for `key`, at most `timeout`, that returns its value:
    /// `Ok(Some(value))` once it exists, `Ok(None)` when the time ran out or the wait
    /// was cut short (as [`wait_once`](Self::wait_once)). One request however long it
    /// lasts, and none after: how a rank watches the job's failure record.
    ///
    /// # Errors
    ///
    /// As [`Store::get`].
    pub fn wait_get(&self, key: &str, timeout: Duration) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        let request = Frame::WaitGet {
            key: key.to_string(),
            timeout_ms: u64::try_from(timeout.as_micros().div_ceil(1000)).unwrap_or(u64::MAX),
        };
        self.call(&request, "wait_get", timeout, key, |reply| match reply {
            Frame::Value(v) => Ok(v),
            Frame::WaitTimeout { .. } => Ok(None),
            other => Err(other),
        })
    }

    /// One wait request: `None` when every key exists, else the keys still missing.
    fn wait_round(
        &self,
        keys: Vec<String>,
        timeout: Duration,
    ) -> Result<Option<Vec<String>>, StoreError> {
        let first = keys[0].clone();
        let request = Frame::Wait {
            keys,
            timeout_ms: u64::try_from(timeout.as_micros().div_ceil(1000)).unwrap_or(u64::MAX),
        };
        self.call(&request, "wait", timeout, &first, |reply| match reply {
            Frame::Ok => Ok(None),
            Frame::WaitTimeout { missing } => Ok(Some(missing)),
            other => Err(other),
        })
    }
}

/// A wait in progress, while it lives.
struct Waiting<'a>(&'a AtomicBool);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Conn {
    /// A reply of the wrong kind: the connection can no longer be trusted.
    fn unexpected(&mut self, reply: Frame, op: &str) -> StoreError {
        let what = format!("unexpected reply to {op}: {reply:?}");
        self.break_with(what.clone());
        StoreError::Protocol { what }
    }

    fn break_with(&mut self, why: String) {
        if let Some(stream) = self.stream.take() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        self.buf.clear();
        self.closed = why;
    }
}

/// One connection attempt: resolve, connect, hello.
fn attempt(
    addr: &str,
    options: &ClientOptions,
    deadline: Option<Instant>,
) -> Result<TcpStream, Attempt> {
    let left = || {
        deadline
            .map_or(ATTEMPT_TIMEOUT, |d| {
                d.saturating_duration_since(Instant::now())
            })
            .clamp(Duration::from_millis(10), ATTEMPT_TIMEOUT)
    };
    let stream = super::dial(addr, left()).map_err(Attempt::Retry)?;
    let io = |e: std::io::Error| Attempt::Retry(format!("setting up the connection: {e}"));
    stream.set_nodelay(true).map_err(io)?;
    stream
        .set_write_timeout(Some(options.request_timeout))
        .map_err(io)?;
    let hello = Frame::Hello {
        version: PROTOCOL_VERSION,
        token: options.token.clone(),
        job: options.job.clone(),
    };
    let limits = Limits {
        max_frame: options.max_frame,
    };
    let bytes = frame::encode(&hello, &limits).map_err(|e| {
        Attempt::Fatal(StoreError::Protocol {
            what: format!("the hello does not fit: {e}"),
        })
    })?;
    // The hello must be answered within HELLO_WAIT (a store answers at once), the
    // request timeout, and (unless that leaves less than a second) the connection
    // deadline.
    let hello_wait = options
        .request_timeout
        .min(HELLO_WAIT)
        .min(left().max(Duration::from_secs(1)));
    let hello_deadline = deadline_after(hello_wait);
    let mut buf = Vec::new();
    let reply = send(&stream, &bytes, addr)
        .and_then(|()| receive(&stream, &mut buf, hello_deadline, &limits, addr, None));
    match reply {
        Ok(Frame::Ok) => Ok(stream),
        Ok(Frame::Error {
            code: ErrorCode::Busy,
            message,
        }) => Err(Attempt::Retry(message)),
        Ok(Frame::Error {
            code: ErrorCode::Rejected,
            message,
        }) => Err(Attempt::Fatal(StoreError::Rejected {
            addr: addr.to_string(),
            reason: message,
        })),
        Ok(Frame::Error {
            code: ErrorCode::Clash,
            message,
        }) => Err(Attempt::Fatal(StoreError::Clash {
            addr: addr.to_string(),
            reason: message,
        })),
        Ok(other) => Err(Attempt::Fatal(StoreError::Protocol {
            what: format!("the server answered the hello with {other:?}"),
        })),
        Err(StoreError::Protocol { what }) => Err(Attempt::Fatal(StoreError::Protocol {
            what: format!("{what}: {NOT_A_STORE}"),
        })),
        Err(StoreError::Io { error, .. }) if error == NO_REPLY => Err(Attempt::Silent),
        // Connected, then closed or reset before any reply.
        Err(StoreError::Closed { .. } | StoreError::Io { .. }) => Err(Attempt::Hangup),
        Err(e) => Err(Attempt::Retry(e.to_string())),
    }
}

fn io_error(op: &str, addr: &str, e: std::io::Error) -> StoreError {
    StoreError::Io {
        op: format!("{op} {addr}"),
        error: e.to_string(),
    }
}

/// Writes `request`.
fn send(mut stream: &TcpStream, request: &[u8], addr: &str) -> Result<(), StoreError> {
    stream
        .write_all(request)
        .map_err(|e| io_error("sending a request to", addr, e))
}

/// Reads one reply frame before `deadline`, calling `tick` (when given) every
/// [`WAIT_SLICE`] without one.
fn receive(
    mut stream: &TcpStream,
    buf: &mut Vec<u8>,
    deadline: Option<Instant>,
    limits: &Limits,
    addr: &str,
    tick: Option<&dyn Fn()>,
) -> Result<Frame, StoreError> {
    let io = |op: &str, e: std::io::Error| io_error(op, addr, e);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match frame::decode(buf, limits) {
            Ok(Some((reply, used))) => {
                buf.drain(..used);
                return Ok(reply);
            }
            Ok(None) => {}
            Err(e) => {
                return Err(StoreError::Protocol {
                    what: format!("reply from {addr}: {e}"),
                });
            }
        }
        let timeout = match deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => {
                    return Err(StoreError::Io {
                        op: format!("waiting for the reply of {addr}"),
                        error: NO_REPLY.into(),
                    });
                }
            },
            None => None,
        };
        let timeout = match tick {
            Some(_) => Some(timeout.map_or(WAIT_SLICE, |t| t.min(WAIT_SLICE))),
            None => timeout,
        };
        stream
            .set_read_timeout(timeout)
            .map_err(|e| io("configuring the connection to", e))?;
        match stream.read(&mut chunk) {
            Ok(0) => {
                return Err(StoreError::Closed {
                    addr: addr.to_string(),
                    reason: "the server closed the connection".into(),
                });
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if let Some(tick) = tick {
                    tick();
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(io("reading the reply of", e)),
        }
    }
}

impl Store for TcpStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        check_key(key)?;
        let request = Frame::Set {
            key: key.to_string(),
            value: value.to_vec(),
        };
        self.call(&request, "set", Duration::ZERO, key, |reply| match reply {
            Frame::Ok => Ok(()),
            other => Err(other),
        })
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        let request = Frame::Get {
            key: key.to_string(),
        };
        self.call(&request, "get", Duration::ZERO, key, |reply| match reply {
            Frame::Value(v) => Ok(v),
            other => Err(other),
        })
    }

    /// One request that the server answers when the keys are there or the time is
    /// up; a request of another thread of this client cuts it short, and it asks again
    /// after that request.
    fn wait(&self, keys: &[&str], timeout: Duration) -> Result<(), StoreError> {
        if keys.is_empty() {
            return Ok(());
        }
        keys.iter().try_for_each(|k| check_key(k))?;
        let start = Instant::now();
        let deadline = deadline_after(timeout);
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        loop {
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            let Some(missing) = self.wait_round(keys.clone(), left)? else {
                return Ok(());
            };
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(StoreError::Timeout {
                    missing,
                    waited: start.elapsed(),
                });
            }
            // Cut short for another thread's request: let it have its turn first.
            thread::yield_now();
        }
    }

    fn add(&self, key: &str, delta: i64) -> Result<i64, StoreError> {
        check_key(key)?;
        let request = Frame::Add {
            key: key.to_string(),
            delta,
        };
        self.call(&request, "add", Duration::ZERO, key, |reply| match reply {
            Frame::Int(v) => Ok(v),
            other => Err(other),
        })
    }

    fn compare_set(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        let request = Frame::CompareSet {
            key: key.to_string(),
            expected: expected.map(<[u8]>::to_vec),
            new: new.to_vec(),
        };
        self.call(
            &request,
            "compare_set",
            Duration::ZERO,
            key,
            |reply| match reply {
                Frame::Value(v) => Ok(v),
                other => Err(other),
            },
        )
    }

    fn delete(&self, key: &str) -> Result<bool, StoreError> {
        check_key(key)?;
        let request = Frame::Delete {
            key: key.to_string(),
        };
        self.call(
            &request,
            "delete",
            Duration::ZERO,
            key,
            |reply| match reply {
                Frame::Bool(existed) => Ok(existed),
                other => Err(other),
            },
        )
    }

    /// One [`TcpStore::wait_get`]: a request the server answers when the key is set.
    fn watch_get(&self, key: &str, timeout: Duration) -> Result<Option<Vec<u8>>, StoreError> {
        self.wait_get(key, timeout)
    }

    /// [`TcpStore::interrupt_wait`].
    fn interrupt_watch(&self) {
        self.interrupt_wait();
    }

    fn watches_without_polling(&self) -> bool {
        true
    }
}
