//! The server's event loop: accepting, reading and writing without blocking, the
//! deadlines of every connection in one timer heap, and the end of a connection (its
//! on-disconnect records set). What a request does is in `requests.rs`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

use super::super::frame::{self, Frame, FrameError, Limits};
use super::super::options::{MAX_TOKEN_LEN, ServerOptions};
use super::super::short;
use super::super::table::{Table, cost};
use super::{Shared, evicted_notice, not_now, protocol_error};

/// The listener's token.
const LISTENER: Token = Token(0);
/// The token of the waker that [`TcpStoreServer`](super::TcpStoreServer)'s drop uses.
pub(super) const WAKER: Token = Token(1);
/// The first connection id (ids are tokens).
const FIRST_CONN: u64 = 2;
/// The largest hello: opcode, version, then the token and the job name, each a tag,
/// a length and at most MAX_TOKEN_LEN bytes.
const MAX_HELLO: u32 = 5 + 2 * (5 + MAX_TOKEN_LEN as u32);
/// Frames up to this size are not counted in [`ServerOptions::max_buffered`].
const SMALL_FRAME: u64 = 64 * 1024;
/// Bytes read from a socket at a time.
const CHUNK: usize = 64 * 1024;
/// A connection's buffers are given back once empty when they grew past this.
const KEEP_BUF: usize = 4096;
/// What a connection whose wait is in progress may send before the server stops
/// reading it (a client sends nothing then but nudges).
const WAITING_READ_CAP: usize = 64 * 1024;
/// Frames (or reads) one connection gets before the others have their turn.
const BUDGET: usize = 64;
/// Connections accepted before the others have their turn.
const ACCEPT_BUDGET: usize = 256;
/// The pause before accepting again when accepting failed (out of descriptors).
const ACCEPT_RETRY: Duration = Duration::from_millis(10);

/// How a connection ends: `Ok` for an orderly end, `Err` with why otherwise.
pub(super) type End = Result<(), String>;

/// The loop's state; it runs on the server's one thread.
pub(super) struct Loop {
    poll: Poll,
    listener: TcpListener,
    pub(super) options: ServerOptions,
    pub(super) shared: Arc<Shared>,
    pub(super) table: Table,
    conns: HashMap<u64, Conn>,
    /// Connections that have not said hello yet, oldest first; ids of connections no
    /// longer pending (their `Conn::pending` is false, or they are gone) are skipped
    /// and compacted away.
    pending: VecDeque<u64>,
    /// How many connections are pending.
    pending_count: usize,
    /// Connections that have said hello (counted against `max_connections`).
    pub(super) authenticated: usize,
    /// For each key, the connections whose wait is still missing it.
    waiters: HashMap<String, HashSet<u64>>,
    /// Deadlines: when, and whose (entries a connection no longer has are skipped).
    timers: BinaryHeap<Reverse<(Instant, u64)>>,
    /// Bytes of unfinished frames over [`SMALL_FRAME`] held over all connections.
    buffered: u64,
    /// Connections whose large frame waits for room in `buffered`.
    room_waiters: VecDeque<u64>,
    /// Connections with something to do now, in order.
    ready: VecDeque<u64>,
    scratch: Vec<u8>,
    next_id: u64,
    accept_retry: Option<Instant>,
}

/// One connection's state.
pub(super) struct Conn {
    stream: TcpStream,
    pub(super) peer: SocketAddr,
    inbuf: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    /// Since when a reply has waited for the socket to take it.
    out_since: Option<Instant>,
    writable: bool,
    /// Bytes of `buffered` held for the frame being read.
    reserved: u64,
    /// Since when its large frame has waited for room.
    room_since: Option<Instant>,
    in_room_queue: bool,
    /// The server closed it for lack of room: not the client's death, so its
    /// disconnect records are not set.
    pub(super) refused: bool,
    opened: Instant,
    /// Since when a begun frame has been incomplete.
    frame_since: Option<Instant>,
    pub(super) authenticated: bool,
    pub(super) hello_seen: bool,
    pub(super) goodbye: bool,
    eof: bool,
    /// Close once the replies queued are written.
    pub(super) closing: Option<End>,
    pub(super) wait: Option<Wait>,
    pub(super) on_disconnect: Vec<(String, Vec<u8>)>,
    /// The deadline in the timer heap for it.
    timer_at: Option<Instant>,
    /// It has not said hello yet (and was not evicted).
    pub(super) pending: bool,
}

/// A wait in progress.
pub(super) struct Wait {
    pub(super) keys: Vec<String>,
    pub(super) deadline: Option<Instant>,
    /// A [`Frame::WaitGet`]: its reply is the value of its one key.
    pub(super) get: bool,
}

impl Loop {
    pub(super) fn new(
        poll: Poll,
        mut listener: TcpListener,
        options: ServerOptions,
        shared: Arc<Shared>,
    ) -> std::io::Result<Loop> {
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        let table = Table::new(options.max_stored_bytes, options.max_keys);
        Ok(Loop {
            poll,
            listener,
            options,
            shared,
            table,
            conns: HashMap::new(),
            pending: VecDeque::new(),
            pending_count: 0,
            authenticated: 0,
            waiters: HashMap::new(),
            timers: BinaryHeap::new(),
            buffered: 0,
            room_waiters: VecDeque::new(),
            ready: VecDeque::new(),
            scratch: vec![0; CHUNK],
            next_id: FIRST_CONN,
            accept_retry: None,
        })
    }

    /// Serves until the server is dropped.
    pub(super) fn run(&mut self) {
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = self.next_timeout();
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    log::error!("store server: its event loop failed ({e}); it stops serving");
                    break;
                }
            }
            if self.shared.stopping.load(Ordering::SeqCst) {
                break;
            }
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    Token(t) => self.ready.push_back(t as u64),
                }
            }
            let now = Instant::now();
            if self.accept_retry.is_some_and(|t| t <= now) {
                self.accept();
            }
            self.expire(now);
            // Only the connections ready at the start of the round: one that keeps
            // sending (and so puts itself back) must not keep the loop from polling
            // (the others' events, accepts, deadlines, the stop).
            for _ in 0..self.ready.len() {
                let Some(id) = self.ready.pop_front() else {
                    break;
                };
                self.drive(id);
            }
        }
        self.stop();
    }

    /// How long the poll may sleep: until the next deadline, or for ever.
    fn next_timeout(&self) -> Option<Duration> {
        if !self.ready.is_empty() {
            return Some(Duration::ZERO);
        }
        let next = self.timers.peek().map(|Reverse((t, _))| *t);
        let next = match (next, self.accept_retry) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        next.map(|t| t.saturating_duration_since(Instant::now()))
    }

    fn accept(&mut self) {
        self.accept_retry = None;
        for _ in 0..ACCEPT_BUDGET {
            match self.listener.accept() {
                Ok((stream, peer)) => self.admit(stream, peer),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Out of descriptors and the like: say so, and try again shortly
                    // (the backlog is not announced again).
                    log::warn!("store server: accept failed: {e}");
                    self.accept_retry = Some(Instant::now() + ACCEPT_RETRY);
                    return;
                }
            }
        }
        self.accept_retry = Some(Instant::now());
    }

    fn admit(&mut self, mut stream: TcpStream, peer: SocketAddr) {
        let _ = stream.set_nodelay(true);
        let o = &self.options;
        if self.authenticated >= o.max_connections {
            log::warn!("store server: refusing {peer}: at the connection limit");
            let message = format!(
                "the server is at its limit of {} connections",
                o.max_connections
            );
            let busy = Frame::Error {
                code: frame::ErrorCode::Busy,
                message,
            };
            if let Ok(bytes) = frame::encode(&busy, &Limits::default()) {
                // A fresh socket's buffer takes these few bytes at once.
                let _ = stream.write(&bytes);
            }
            let _ = stream.shutdown(Shutdown::Write);
            return;
        }
        // Room among the connections yet to say hello: the oldest of them is told the
        // server is busy and closed (a client of the job, merely slow to say hello in
        // a crowd, then retries).
        while self.pending_count >= self.options.max_pending {
            let Some(oldest) = self.pending.pop_front() else {
                break;
            };
            if let Some(c) = self.conns.get_mut(&oldest).filter(|c| c.pending) {
                log::debug!("store server: closing a connection that has not said hello");
                c.pending = false;
                self.pending_count -= 1;
                c.queue(&evicted_notice(&self.options), &Limits::default());
                c.closing = Some(Err("closed to make room among the pending".into()));
                self.ready.push_back(oldest);
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        if let Err(e) =
            self.poll
                .registry()
                .register(&mut stream, Token(id as usize), Interest::READABLE)
        {
            log::warn!("store server: cannot watch the connection of {peer}: {e}");
            return;
        }
        let mut conn = Conn {
            stream,
            peer,
            inbuf: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            out_since: None,
            writable: false,
            reserved: 0,
            room_since: None,
            in_room_queue: false,
            refused: false,
            opened: Instant::now(),
            frame_since: None,
            authenticated: false,
            hello_seen: false,
            goodbye: false,
            eof: false,
            closing: None,
            wait: None,
            on_disconnect: Vec::new(),
            timer_at: None,
            pending: true,
        };
        self.schedule(id, &mut conn);
        self.conns.insert(id, conn);
        self.pending.push_back(id);
        self.pending_count += 1;
        if self.pending.len() > 2 * self.pending_count + 64 {
            let conns = &self.conns;
            self.pending
                .retain(|p| conns.get(p).is_some_and(|c| c.pending) || *p == id);
        }
        self.shared.connections.fetch_add(1, Ordering::Relaxed);
        self.ready.push_back(id);
    }

    /// Does what connection `id` can do now: write its replies, serve its frames,
    /// read more.
    fn drive(&mut self, id: u64) {
        let Some(mut c) = self.conns.remove(&id) else {
            return;
        };
        match self.step(id, &mut c) {
            Ok(()) => {
                self.schedule(id, &mut c);
                self.conns.insert(id, c);
            }
            Err(end) => self.close(id, c, end),
        }
    }

    /// The work of [`drive`](Self::drive); `Err` closes the connection with that end.
    fn step(&mut self, id: u64, c: &mut Conn) -> Result<(), End> {
        for _ in 0..BUDGET {
            if !self.flush(id, c)? {
                return Ok(()); // the socket is full: its writable event comes back here
            }
            if let Some(end) = c.closing.take() {
                return Err(end);
            }
            if c.wait.is_some() {
                if self.take_nudge(id, c) {
                    continue;
                }
            } else if self.next_frame(id, c)? {
                continue;
            }
            if c.room_since.is_some() {
                return Ok(()); // its bytes wait in the socket until there is room
            }
            if c.eof {
                return Err(if c.wait.is_some() {
                    Err(format!("{} went away during a wait", c.peer))
                } else if c.inbuf.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "end of stream inside a frame ({} bytes)",
                        c.inbuf.len()
                    ))
                });
            }
            if c.wait.is_some() && c.inbuf.len() >= WAITING_READ_CAP {
                return Ok(());
            }
            match c.stream.read(&mut self.scratch) {
                Ok(0) => c.eof = true,
                Ok(n) => {
                    if c.inbuf.is_empty() {
                        c.frame_since = Some(Instant::now());
                    }
                    c.inbuf.extend_from_slice(&self.scratch[..n]);
                }
                Err(e) if not_now(&e) && e.kind() == std::io::ErrorKind::WouldBlock => {
                    return Ok(());
                }
                Err(e) if not_now(&e) => {}
                Err(e) => return Err(Err(e.to_string())),
            }
        }
        // Its budget is spent: the others go first.
        self.ready.push_back(id);
        Ok(())
    }

    /// Writes what `c` has queued; `Ok(true)` once all is written.
    fn flush(&mut self, id: u64, c: &mut Conn) -> Result<bool, End> {
        while c.out_pos < c.out.len() {
            match c.stream.write(&c.out[c.out_pos..]) {
                Ok(0) => return Err(Err("writing a reply: the socket took nothing".into())),
                Ok(n) => {
                    c.out_pos += n;
                    // The deadline is for a reply that makes no progress.
                    if c.out_since.is_some() {
                        c.out_since = Some(Instant::now());
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    c.out_since.get_or_insert_with(Instant::now);
                    if !c.writable {
                        c.writable = true;
                        self.interest(id, c, Interest::READABLE | Interest::WRITABLE)?;
                    }
                    return Ok(false);
                }
                Err(e) if not_now(&e) => {}
                Err(e) => return Err(Err(format!("writing a reply: {e}"))),
            }
        }
        c.out.clear();
        c.out_pos = 0;
        c.out_since = None;
        if c.out.capacity() > KEEP_BUF {
            c.out = Vec::new();
        }
        if c.writable {
            c.writable = false;
            self.interest(id, c, Interest::READABLE)?;
        }
        Ok(true)
    }

    fn interest(&self, id: u64, c: &mut Conn, interest: Interest) -> Result<(), End> {
        self.poll
            .registry()
            .reregister(&mut c.stream, Token(id as usize), interest)
            .map_err(|e| Err(format!("watching the connection: {e}")))
    }

    /// Serves the next complete frame of `c`, if any: `Ok(true)` when one was served.
    fn next_frame(&mut self, id: u64, c: &mut Conn) -> Result<bool, End> {
        let limits = if c.authenticated {
            Limits {
                max_frame: self.options.max_frame,
            }
        } else {
            // Until a client has shown its token, it may send nothing bigger than a hello.
            Limits {
                max_frame: self.options.max_frame.min(MAX_HELLO),
            }
        };
        match frame::decode(&c.inbuf, &limits) {
            Ok(Some((request, used))) => {
                c.inbuf.drain(..used);
                if c.inbuf.is_empty() {
                    c.frame_since = None;
                    if c.inbuf.capacity() > KEEP_BUF {
                        c.inbuf = Vec::new();
                    }
                } else {
                    c.frame_since = Some(Instant::now());
                }
                self.release(c);
                self.shared.requests.fetch_add(1, Ordering::Relaxed);
                self.handle(id, c, request);
                Ok(true)
            }
            Ok(None) => {
                self.reserve(id, c);
                Ok(false)
            }
            Err(e) => {
                let reply = match &e {
                    FrameError::TooLarge { size, limit } => Frame::TooLarge {
                        what: "frame body".into(),
                        size: *size,
                        limit: *limit,
                    },
                    other => protocol_error(other.to_string()),
                };
                c.queue(&reply, &limits);
                c.inbuf.clear();
                c.closing = Some(Err(e.to_string()));
                Ok(true)
            }
        }
    }

    /// While a wait is in progress, a nudge ends it; `true` when one did.
    fn take_nudge(&mut self, id: u64, c: &mut Conn) -> bool {
        let limits = Limits {
            max_frame: self.options.max_frame,
        };
        match frame::decode(&c.inbuf, &limits) {
            Ok(Some((Frame::Nudge, used))) => {
                c.inbuf.drain(..used);
                c.frame_since = (!c.inbuf.is_empty()).then(Instant::now);
                self.shared.requests.fetch_add(1, Ordering::Relaxed);
                self.end_wait(id, c);
                true
            }
            _ => false,
        }
    }

    /// Holds room in `buffered` for the large frame whose length prefix is in; when
    /// the connections together hold too much, it waits for room (the client's frame
    /// then waits in the socket) until the frame deadline.
    fn reserve(&mut self, id: u64, c: &mut Conn) {
        if c.reserved > 0 || c.inbuf.len() < frame::HEADER_LEN {
            // (A frame's body is what is held; its 4-byte prefix is not counted.)
            return;
        }
        let Some(len) = c.inbuf.first_chunk::<{ frame::HEADER_LEN }>() else {
            return;
        };
        let size = u64::from(u32::from_le_bytes(*len));
        if size <= SMALL_FRAME {
            // Small frames are bounded by the connection count alone: they never wait
            // behind large ones (keys, ids and failure records are small).
            return;
        }
        if self.buffered + size <= self.options.max_buffered {
            self.buffered += size;
            c.reserved = size;
            c.room_since = None;
            return;
        }
        c.room_since.get_or_insert_with(Instant::now);
        if !c.in_room_queue {
            c.in_room_queue = true;
            self.room_waiters.push_back(id);
        }
    }

    /// Gives back the room `c` held in `buffered`; the connections waiting for room
    /// try again.
    fn release(&mut self, c: &mut Conn) {
        if c.reserved == 0 {
            return;
        }
        self.buffered -= c.reserved;
        c.reserved = 0;
        while let Some(id) = self.room_waiters.pop_front() {
            if let Some(w) = self.conns.get_mut(&id) {
                w.in_room_queue = false;
                self.ready.push_back(id);
            }
        }
    }

    /// Ends the wait of `c`: `Frame::Ok` when every key is there (the value of a
    /// [`Frame::WaitGet`]'s key), else [`Frame::WaitTimeout`] with the missing ones (its
    /// time ran out, or a nudge).
    pub(super) fn end_wait(&mut self, id: u64, c: &mut Conn) {
        let Some(wait) = c.wait.take() else {
            return;
        };
        for key in &wait.keys {
            if let Some(set) = self.waiters.get_mut(key) {
                set.remove(&id);
                if set.is_empty() {
                    self.waiters.remove(key);
                }
            }
        }
        let reply = if wait.get && wait.keys.len() == 1 {
            match self.table.get(&wait.keys[0]) {
                Some(v) => Frame::Value(Some(v.clone())),
                None => Frame::WaitTimeout { missing: wait.keys },
            }
        } else {
            let missing: Vec<String> = wait
                .keys
                .into_iter()
                .filter(|k| !self.table.contains(k))
                .collect();
            if missing.is_empty() {
                Frame::Ok
            } else {
                Frame::WaitTimeout { missing }
            }
        };
        c.queue(&reply, &self.limits());
    }

    /// Parks the wait of `c` on the keys it misses.
    pub(super) fn park(
        &mut self,
        id: u64,
        c: &mut Conn,
        keys: Vec<String>,
        timeout: Duration,
        get: bool,
    ) {
        for key in keys.iter().filter(|k| !self.table.contains(k)) {
            self.waiters.entry(key.clone()).or_default().insert(id);
        }
        c.wait = Some(Wait {
            keys,
            deadline: super::super::deadline_after(timeout),
            get,
        });
    }

    /// `key` was created or changed: the waits that now have all their keys end.
    pub(super) fn key_set(&mut self, key: &str) {
        let Some(ids) = self.waiters.get(key) else {
            return;
        };
        let ids: Vec<u64> = ids.iter().copied().collect();
        for id in ids {
            let Some(mut c) = self.conns.remove(&id) else {
                continue;
            };
            let done = c
                .wait
                .as_ref()
                .is_some_and(|w| w.keys.iter().all(|k| self.table.contains(k)));
            if done {
                self.end_wait(id, &mut c);
                self.ready.push_back(id);
            } else if let Some(w) = &c.wait {
                // A key it had was deleted since it parked: it waits for that one too.
                for k in w.keys.iter().filter(|k| !self.table.contains(k)) {
                    self.waiters.entry(k.clone()).or_default().insert(id);
                }
            }
            self.conns.insert(id, c);
        }
    }

    /// `c` said its hello: no longer pending.
    pub(super) fn note_hello(&mut self, c: &mut Conn) {
        if c.pending {
            c.pending = false;
            self.pending_count -= 1;
        }
    }

    pub(super) fn limits(&self) -> Limits {
        Limits {
            max_frame: self.options.max_frame,
        }
    }

    /// Puts `c`'s next deadline in the timer heap, unless an earlier entry is there.
    fn schedule(&mut self, id: u64, c: &mut Conn) {
        let Some(d) = c.deadline(&self.options) else {
            return;
        };
        if c.timer_at.is_none_or(|t| d < t) {
            c.timer_at = Some(d);
            self.timers.push(Reverse((d, id)));
            if self.timers.len() > 2 * self.conns.len() + 64 {
                self.rebuild_timers(id, d);
            }
        }
    }

    /// The timer heap again, one entry per connection with a deadline: entries a
    /// connection replaced by earlier ones would otherwise pile up until their (far)
    /// time. `id`, out of the map now, has its entry at `d`.
    fn rebuild_timers(&mut self, id: u64, d: Instant) {
        let mut timers = BinaryHeap::with_capacity(self.conns.len() + 1);
        timers.push(Reverse((d, id)));
        for (&other, c) in self.conns.iter_mut() {
            c.timer_at = c.deadline(&self.options);
            if let Some(t) = c.timer_at {
                timers.push(Reverse((t, other)));
            }
        }
        self.timers = timers;
    }

    /// Acts on the deadlines that have passed.
    fn expire(&mut self, now: Instant) {
        while let Some(Reverse((t, id))) = self.timers.peek().copied() {
            if t > now {
                return;
            }
            self.timers.pop();
            let Some(mut c) = self.conns.remove(&id) else {
                continue;
            };
            if c.timer_at != Some(t) {
                self.conns.insert(id, c); // a stale entry: a newer one is queued
                continue;
            }
            c.timer_at = None;
            match self.expired(id, &mut c, now) {
                Ok(()) => {
                    self.schedule(id, &mut c);
                    self.conns.insert(id, c);
                }
                Err(end) => self.close(id, c, end),
            }
        }
    }

    /// What passing its deadline does to `c`.
    fn expired(&mut self, id: u64, c: &mut Conn, now: Instant) -> Result<(), End> {
        let o = &self.options;
        let past = |since: Option<Instant>, d: Duration| since.is_some_and(|s| s + d <= now);
        if past(c.out_since, o.frame_deadline) {
            return Err(Err(format!(
                "a reply waited over {:?} for the client to read it",
                o.frame_deadline
            )));
        }
        if !c.authenticated && c.closing.is_none() && past(Some(c.opened), o.hello_deadline) {
            return Err(Err(format!("no hello within {:?}", o.hello_deadline)));
        }
        if past(c.room_since, o.frame_deadline) {
            let size = c
                .inbuf
                .first_chunk::<{ frame::HEADER_LEN }>()
                .map_or(0, |b| u64::from(u32::from_le_bytes(*b)));
            let limit = o.max_buffered;
            let reply = Frame::TooLarge {
                what: "unfinished frames over all connections".into(),
                size: self.buffered + size,
                limit,
            };
            let why = format!(
                "a frame of {size} bytes found no room within {:?} under the {limit} buffered \
                 bytes",
                o.frame_deadline
            );
            c.queue(&reply, &self.limits());
            c.refused = true;
            c.room_since = None;
            c.closing = Some(Err(why));
            self.ready.push_back(id);
            return Ok(());
        }
        if c.wait
            .as_ref()
            .is_some_and(|w| past(w.deadline, Duration::ZERO))
        {
            self.end_wait(id, c);
            self.ready.push_back(id);
            return Ok(());
        }
        if c.authenticated && c.wait.is_none() && past(c.frame_since, o.frame_deadline) {
            return Err(Err(format!(
                "no complete frame within {:?}",
                o.frame_deadline
            )));
        }
        Ok(())
    }

    /// Closes `c`: its room and its waits are given back, and unless it said goodbye
    /// (or the server refused it, or the server stops) its on-disconnect records are
    /// set.
    fn close(&mut self, id: u64, mut c: Conn, end: End) {
        let _ = self.poll.registry().deregister(&mut c.stream);
        let _ = c.stream.shutdown(Shutdown::Both);
        self.release(&mut c);
        if c.wait.is_some() {
            self.end_wait(id, &mut c);
        }
        if c.authenticated {
            self.authenticated -= 1;
        }
        if c.pending {
            self.pending_count -= 1;
        }
        self.shared.connections.fetch_sub(1, Ordering::Relaxed);
        let peer = c.peer;
        match &end {
            Ok(()) => log::debug!("store server: {peer} left"),
            Err(why) => log::debug!("store server: closed {peer}: {why}"),
        }
        let fire = !c.goodbye && !c.refused && !self.shared.stopping.load(Ordering::SeqCst);
        for (key, value) in std::mem::take(&mut c.on_disconnect) {
            self.table.release(cost(&key, &value));
            // Create-if-absent: a record already there (the first failure) stays.
            if fire && !self.table.contains(&key) {
                log::info!("store server: {peer} dropped; setting {:?}", short(&key));
                self.table.put_unchecked(&key, value);
                self.key_set(&key);
            } else if fire {
                log::info!(
                    "store server: {peer} dropped; {:?} is set already and stays",
                    short(&key)
                );
            }
        }
    }

    /// The server stops: every connection is shut down, no record is set.
    fn stop(&mut self) {
        for (_, c) in self.conns.drain() {
            let _ = c.stream.shutdown(Shutdown::Both);
        }
        self.shared.connections.store(0, Ordering::Relaxed);
    }
}

impl Conn {
    /// Queues `reply` (or, should it not fit `limits`, a protocol error saying why).
    pub(super) fn queue(&mut self, reply: &Frame, limits: &Limits) {
        match frame::encode(reply, limits) {
            Ok(bytes) => self.out.extend_from_slice(&bytes),
            Err(e) => {
                if let Ok(bytes) = frame::encode(&protocol_error(e.to_string()), limits) {
                    self.out.extend_from_slice(&bytes);
                }
            }
        }
    }

    /// The earliest deadline it has, if any.
    fn deadline(&self, o: &ServerOptions) -> Option<Instant> {
        let mut at: Option<Instant> = None;
        let mut take = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        if let Some(s) = self.out_since {
            take(s + o.frame_deadline);
        }
        if !self.authenticated && self.closing.is_none() {
            take(self.opened + o.hello_deadline);
        }
        if let Some(s) = self.room_since {
            take(s + o.frame_deadline);
        }
        if let Some(d) = self.wait.as_ref().and_then(|w| w.deadline) {
            take(d);
        }
        if self.authenticated && self.wait.is_none() {
            if let Some(s) = self.frame_since {
                take(s + o.frame_deadline);
            }
        }
        at
    }
}
