//! [`TorchStore`]: a client of PyTorch's c10d `TCPStore`, the store torchrun's agent
//! serves to its workers (`TORCHELASTIC_USE_AGENT_STORE=True`, at `MASTER_ADDR:MASTER_PORT`).
//!
//! The wire format, as PyTorch's server reads it: a request is one command byte and
//! its fields; integers are little-endian (`u32` for the handshake's numbers, `u64`
//! for lengths and counts, `i64` for counters); strings and values are a `u64` length
//! and the bytes. A connection starts with the validation command and PyTorch's magic
//! number (no reply), then a ping whose number the server echoes. `set` has no reply;
//! `get` of a missing key returns an empty value, so presence is asked with `check`
//! first. The server closes the connection on anything it does not like, without a
//! reply.
//!
//! Differences from this library's own [`TcpStore`](super::TcpStore), which the
//! server decides: no token (anyone who reaches the port may use the store), no
//! disconnect records (the death of a rank is seen by torchrun, which stops the other
//! workers), values up to 8 MiB, and a `wait` (and `watch_get`) that is PyTorch's
//! `WAIT` on a connection of its own, opened for it and closed after, so that other
//! threads keep the main connection and the store is not polled. An empty
//! value counts as absent for `compare_set`, and two calls make one where PyTorch's
//! answer is ambiguous (`compare_set` with `expected == new` on an absent key; `add`
//! checks first that the value is a number): another client's write between them
//! is not seen. Keys of
//! every call are put under the client's namespace, so that this library's keys
//! never meet PyTorch's, nor those of an earlier attempt of a restarted job (the
//! agent's store outlives its workers).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use super::{ClientOptions, Store, StoreError, check_key, deadline_after, lock};

/// PyTorch's number that a new connection must send first.
const MAGIC: u32 = 0x3C85_F7CE;
/// The largest value PyTorch's server accepts.
pub(crate) const MAX_VALUE: usize = 8 << 20;
/// How long the ping of the handshake may go unanswered.
const PING_WAIT: Duration = Duration::from_secs(5);
/// PyTorch's answer to a `WAIT` once every key exists.
const STOP_WAITING: u8 = 0;

/// PyTorch's command bytes.
mod cmd {
    pub const VALIDATE: u8 = 0;
    pub const SET: u8 = 1;
    pub const COMPARE_SET: u8 = 2;
    pub const GET: u8 = 3;
    pub const ADD: u8 = 4;
    pub const CHECK: u8 = 5;
    pub const WAIT: u8 = 6;
    pub const DELETE_KEY: u8 = 8;
    pub const PING: u8 = 13;
}

/// `check`'s reply when every key exists.
const READY: u8 = 0;

/// A client of PyTorch's `TCPStore`. `Send + Sync`: requests of several threads take
/// turns on its one connection. After an I/O error or a reply that makes no sense,
/// every later call fails with [`StoreError::Closed`].
#[derive(Debug)]
pub struct TorchStore {
    addr: String,
    namespace: String,
    request_timeout: Duration,
    conn: Mutex<Conn>,
    /// The connections of the `watch_get`s in progress (by number), for
    /// [`Store::interrupt_watch`], and the next number.
    waiting: Mutex<(Vec<(u64, TcpStream)>, u64)>,
}

#[derive(Debug)]
struct Conn {
    stream: Option<TcpStream>,
    closed: String,
}

impl TorchStore {
    /// Connects to the `TCPStore` at `addr` (`host:port`), retrying until
    /// [`ClientOptions::connect_timeout`], and says PyTorch's handshake. Every key is
    /// stored as `namespace` followed by the key.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidOption`] for a token (PyTorch's store has none) or a bad
    /// option; [`StoreError::Connect`] naming the address when nothing answered in
    /// time; [`StoreError::Protocol`] when the listener does not answer the ping as
    /// PyTorch's store does.
    pub fn connect(
        addr: &str,
        namespace: &str,
        options: &ClientOptions,
    ) -> Result<TorchStore, StoreError> {
        options.validate()?;
        if options.has_token() {
            return Err(StoreError::InvalidOption {
                option: "token",
                value: "<redacted>".into(),
                reason: "PyTorch's TCPStore has no token; leave it unset for a torch+tcp:// \
                         store"
                    .into(),
            });
        }
        let start = Instant::now();
        let deadline = deadline_after(options.connect_timeout);
        let mut pause = Duration::from_millis(10);
        loop {
            let error = match handshake(addr, options.request_timeout) {
                Ok(stream) => {
                    return Ok(TorchStore {
                        addr: addr.to_string(),
                        namespace: namespace.to_string(),
                        request_timeout: options.request_timeout,
                        conn: Mutex::new(Conn {
                            stream: Some(stream),
                            closed: String::new(),
                        }),
                        waiting: Mutex::new((Vec::new(), 0)),
                    });
                }
                Err(Handshake::Fatal(e)) => return Err(e),
                Err(Handshake::Retry(why)) => why,
            };
            let left = deadline.map_or(pause, |d| d.saturating_duration_since(Instant::now()));
            if left.is_zero() {
                return Err(StoreError::Connect {
                    addr: addr.to_string(),
                    waited: start.elapsed(),
                    last_error: error,
                });
            }
            thread::sleep(pause.min(left));
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// The address it was connected to, as given.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The namespace every key is put under.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Closes the connection; later calls fail with [`StoreError::Closed`].
    pub fn close(&self) {
        let mut conn = lock(&self.conn);
        if let Some(s) = conn.stream.take() {
            let _ = s.shutdown(Shutdown::Both);
        }
        conn.closed = "closed by TorchStore::close".into();
    }

    fn key(&self, key: &str) -> Result<Vec<u8>, StoreError> {
        check_key(key)?;
        Ok(format!("{}{key}", self.namespace).into_bytes())
    }

    /// Sends `request` and reads the reply `read` takes from the connection, with the
    /// request timeout; any failure closes the connection for good.
    fn call<T>(
        &self,
        request: &[u8],
        read: impl FnOnce(&mut Reply<'_>) -> std::io::Result<T>,
    ) -> Result<T, StoreError> {
        let mut conn = lock(&self.conn);
        let Some(stream) = conn.stream.as_ref() else {
            return Err(StoreError::Closed {
                addr: self.addr.clone(),
                reason: conn.closed.clone(),
            });
        };
        let result = stream
            .set_read_timeout(Some(self.request_timeout))
            .and_then(|()| stream.set_write_timeout(Some(self.request_timeout)))
            .and_then(|()| (&*stream).write_all(request))
            .and_then(|()| read(&mut Reply { stream }));
        result.map_err(|e| {
            let why = match e.kind() {
                ErrorKind::WouldBlock | ErrorKind::TimedOut => {
                    format!("no reply within {:?}", self.request_timeout)
                }
                ErrorKind::UnexpectedEof => {
                    "the server closed the connection (PyTorch's store does that on a \
                     request it refuses)"
                        .into()
                }
                _ => e.to_string(),
            };
            if let Some(s) = conn.stream.take() {
                let _ = s.shutdown(Shutdown::Both);
            }
            conn.closed = why.clone();
            StoreError::Io {
                op: format!("a request to PyTorch's store at {}", self.addr),
                error: why,
            }
        })
    }

    /// PyTorch's `WAIT` for every key of `names` (namespaced already) on a connection
    /// of its own, at most `timeout`: `Ok(true)` once they all exist, `Ok(false)` when
    /// the time ran out or (for a `watch`, the one wait [`Store::interrupt_watch`]
    /// ends) the connection was shut. The connection is closed after (PyTorch's
    /// server drops the wait with it).
    fn wait_apart(
        &self,
        names: &[Vec<u8>],
        timeout: Duration,
        watch: bool,
    ) -> Result<bool, StoreError> {
        let io = |op: &str, e: String| StoreError::Io {
            op: format!("{op} PyTorch's store at {}", self.addr),
            error: e,
        };
        let stream = handshake(&self.addr, self.request_timeout).map_err(|h| match h {
            Handshake::Fatal(e) => e,
            Handshake::Retry(why) => io("opening a waiting connection to", why),
        })?;
        let mut req = vec![cmd::WAIT];
        put_u64(&mut req, names.len() as u64);
        for n in names {
            put_bytes(&mut req, n);
        }
        (&stream)
            .write_all(&req)
            .map_err(|e| io("sending a wait to", e.to_string()))?;
        let slot = if watch {
            let mut w = lock(&self.waiting);
            let n = w.1;
            w.1 += 1;
            let clone = stream
                .try_clone()
                .map_err(|e| io("setting up a waiting connection to", e.to_string()))?;
            w.0.push((n, clone));
            Some(n)
        } else {
            None
        };
        let deadline = deadline_after(timeout);
        let answer = loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                break Ok(false);
            }
            // (A zero read timeout means none: at least a millisecond.)
            let set = stream.set_read_timeout(left.map(|l| l.max(Duration::from_millis(1))));
            if let Err(e) = set {
                break Err(io("waiting on", e.to_string()));
            }
            let mut b = [0u8; 1];
            match (&stream).read(&mut b) {
                Ok(1) if b[0] == STOP_WAITING => break Ok(true),
                Ok(1) => break Err(io("waiting on", format!("an answer of {} to WAIT", b[0]))),
                // Shut by interrupt_watch, or closed by the server (one that does not
                // know WAIT closes the connection: an error, not a wait's end).
                Ok(_)
                    if slot
                        .is_some_and(|n| !lock(&self.waiting).0.iter().any(|(m, _)| *m == n)) =>
                {
                    break Ok(false);
                }
                Ok(_) => {
                    break Err(StoreError::Closed {
                        addr: self.addr.clone(),
                        reason: "PyTorch's store closed the connection of a WAIT".into(),
                    });
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => break Err(io("waiting on", e.to_string())),
            }
        };
        if let Some(n) = slot {
            lock(&self.waiting).0.retain(|(m, _)| *m != n);
        }
        let _ = stream.shutdown(Shutdown::Both);
        answer
    }

    /// Whether every one of `keys` (namespaced already) exists.
    fn check(&self, keys: &[Vec<u8>]) -> Result<bool, StoreError> {
        let mut req = vec![cmd::CHECK];
        put_u64(&mut req, keys.len() as u64);
        for k in keys {
            put_bytes(&mut req, k);
        }
        self.call(&req, |r| r.u8()).map(|b| b == READY)
    }

    fn get_raw(&self, key: &[u8]) -> Result<Vec<u8>, StoreError> {
        let mut req = vec![cmd::GET];
        put_bytes(&mut req, key);
        self.call(&req, |r| r.bytes())
    }
}

impl Drop for TorchStore {
    fn drop(&mut self) {
        self.close();
    }
}

impl Store for TorchStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let k = self.key(key)?;
        check_value(value)?;
        let mut req = vec![cmd::SET];
        put_bytes(&mut req, &k);
        put_bytes(&mut req, value);
        self.call(&req, |_| Ok(()))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let k = self.key(key)?;
        if !self.check(std::slice::from_ref(&k))? {
            return Ok(None);
        }
        self.get_raw(&k).map(Some)
    }

    /// A `check`, then (if a key is missing) PyTorch's `WAIT` on a connection of its
    /// own: the store answers when the keys exist, and is not polled meanwhile.
    fn wait(&self, keys: &[&str], timeout: Duration) -> Result<(), StoreError> {
        let names: Vec<Vec<u8>> = keys.iter().map(|k| self.key(k)).collect::<Result<_, _>>()?;
        if names.is_empty() || self.check(&names)? {
            return Ok(());
        }
        let start = Instant::now();
        if self.wait_apart(&names, timeout, false)? {
            return Ok(());
        }
        let mut missing = Vec::new();
        for (key, name) in keys.iter().zip(&names) {
            if !self.check(std::slice::from_ref(name))? {
                missing.push((*key).to_string());
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        Err(StoreError::Timeout {
            missing,
            waited: start.elapsed(),
        })
    }

    /// PyTorch's `WAIT` on a connection of its own, then a read.
    fn watch_get(&self, key: &str, timeout: Duration) -> Result<Option<Vec<u8>>, StoreError> {
        let name = self.key(key)?;
        let names = std::slice::from_ref(&name);
        if self.check(names)? || self.wait_apart(names, timeout, true)? {
            return self.get_raw(&name).map(Some);
        }
        Ok(None)
    }

    /// Shuts the connections of the `watch_get`s in progress (not a `wait`'s).
    fn interrupt_watch(&self) {
        // Taken out of the list first: their reads then tell an interrupt from the
        // server closing the connection.
        let taken = std::mem::take(&mut lock(&self.waiting).0);
        for (_, s) in taken {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn watches_without_polling(&self) -> bool {
        true
    }

    fn add(&self, key: &str, delta: i64) -> Result<i64, StoreError> {
        let k = self.key(key)?;
        // PyTorch's server closes the connection on a value that is not a number;
        // refuse that here instead, with the error the other stores give.
        if let Some(current) = self.get(key)? {
            super::add_counter(key, Some(&current), 0)?;
        }
        let mut req = vec![cmd::ADD];
        put_bytes(&mut req, &k);
        req.extend_from_slice(&delta.to_le_bytes());
        self.call(&req, |r| r.i64())
    }

    fn compare_set(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let k = self.key(key)?;
        check_value(new)?;
        let mut req = vec![cmd::COMPARE_SET];
        put_bytes(&mut req, &k);
        put_bytes(&mut req, expected.unwrap_or(&[]));
        put_bytes(&mut req, new);
        let reply = self.call(&req, |r| r.bytes())?;
        // For an absent key, PyTorch's server answers a non-empty `expected` with
        // `expected` itself (had the key held it, the swap would have happened).
        if let Some(e) = expected.filter(|e| !e.is_empty()) {
            if reply == e && (e != new || !self.check(std::slice::from_ref(&k))?) {
                return Ok(None);
            }
        }
        Ok(Some(reply))
    }

    fn delete(&self, key: &str) -> Result<bool, StoreError> {
        let k = self.key(key)?;
        let mut req = vec![cmd::DELETE_KEY];
        put_bytes(&mut req, &k);
        self.call(&req, |r| r.i64()).map(|n| n > 0)
    }
}

fn check_value(value: &[u8]) -> Result<(), StoreError> {
    if value.len() > MAX_VALUE {
        return Err(StoreError::TooLarge {
            what: "a value for PyTorch's TCPStore".into(),
            size: value.len() as u64,
            limit: MAX_VALUE as u64,
        });
    }
    Ok(())
}

enum Handshake {
    Retry(String),
    Fatal(StoreError),
}

/// Connects to `addr`, validates and pings.
fn handshake(addr: &str, request_timeout: Duration) -> Result<TcpStream, Handshake> {
    let stream = super::dial(addr, Duration::from_secs(5)).map_err(Handshake::Retry)?;
    let not_torch = |why: String| {
        Handshake::Fatal(StoreError::Protocol {
            what: format!("{addr} {why}: it is not PyTorch's TCPStore"),
        })
    };
    let wait = PING_WAIT.min(request_timeout);
    let io = |e: std::io::Error| Handshake::Retry(format!("setting up the connection: {e}"));
    stream.set_nodelay(true).map_err(io)?;
    stream.set_read_timeout(Some(wait)).map_err(io)?;
    stream.set_write_timeout(Some(wait)).map_err(io)?;
    // The validation must arrive in one piece: the server parses what it has.
    let mut hello = vec![cmd::VALIDATE];
    hello.extend_from_slice(&MAGIC.to_le_bytes());
    let nonce = std::process::id();
    hello.push(cmd::PING);
    hello.extend_from_slice(&nonce.to_le_bytes());
    (&stream)
        .write_all(&hello)
        .map_err(|e| Handshake::Retry(format!("sending the handshake to {addr}: {e}")))?;
    let mut echo = [0u8; 4];
    match (&stream).read_exact(&mut echo) {
        Ok(()) if u32::from_le_bytes(echo) == nonce => Ok(stream),
        Ok(()) => Err(not_torch(format!(
            "answered the ping {nonce} with {}",
            u32::from_le_bytes(echo)
        ))),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Err(
            not_torch(format!("did not answer the ping within {wait:?}")),
        ),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
            Err(not_torch("closed the connection at the handshake".into()))
        }
        Err(e) => Err(Handshake::Retry(format!("reading the ping of {addr}: {e}"))),
    }
}

fn put_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads the parts of a reply.
struct Reply<'a> {
    stream: &'a TcpStream,
}

impl Reply<'_> {
    fn exact<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.stream.read_exact(&mut b)?;
        Ok(b)
    }

    fn u8(&mut self) -> std::io::Result<u8> {
        Ok(self.exact::<1>()?[0])
    }

    fn i64(&mut self) -> std::io::Result<i64> {
        Ok(i64::from_le_bytes(self.exact::<8>()?))
    }

    fn bytes(&mut self) -> std::io::Result<Vec<u8>> {
        let len = u64::from_le_bytes(self.exact::<8>()?);
        if len > MAX_VALUE as u64 {
            return Err(std::io::Error::new(
                ErrorKind::InvalidData,
                format!("a value of {len} bytes, over PyTorch's limit of {MAX_VALUE}"),
            ));
        }
        let mut v = vec![0u8; len as usize];
        self.stream.read_exact(&mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_laid_out_as_pytorch_reads_them() {
        let mut req = vec![cmd::SET];
        put_bytes(&mut req, b"ab");
        put_bytes(&mut req, b"xyz");
        assert_eq!(
            req,
            [
                1, 2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b', 3, 0, 0, 0, 0, 0, 0, 0, b'x', b'y', b'z'
            ]
        );
    }

    #[test]
    fn values_over_the_servers_limit_are_refused_before_sending() {
        let e = check_value(&vec![0u8; MAX_VALUE + 1]).unwrap_err();
        assert!(matches!(e, StoreError::TooLarge { size, .. } if size == MAX_VALUE as u64 + 1));
        check_value(&vec![0u8; MAX_VALUE]).unwrap();
    }
}
