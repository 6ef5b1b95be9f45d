//! What each request does to the table and to its connection: the hello's checks,
//! the key operations, waits parked on their keys, registrations, goodbye.

use std::time::Duration;

use super::super::frame::{Frame, PROTOCOL_VERSION};
use super::super::table::cost;
use super::super::{StoreError, add_counter, check_key};
use super::event_loop::{Conn, Loop};
use super::{constant_time_eq, evicted_notice, protocol_error, refusal, rejected};

/// A reply to send, or a refusal to turn into one.
type Reply = Result<Frame, StoreError>;

impl Loop {
    /// Serves `request` from connection `id`: queues its reply (a wait may be parked
    /// instead) and marks the connection for closing where the request ends it.
    pub(super) fn handle(&mut self, id: u64, c: &mut Conn, request: Frame) {
        let limits = self.limits();
        if let Frame::Hello {
            version,
            token,
            job,
        } = &request
        {
            let refused = self.hello(c, *version, token.as_deref(), job.as_deref());
            match refused {
                None => c.queue(&Frame::Ok, &limits),
                Some(reply) => {
                    c.queue(&reply, &limits);
                    c.closing = Some(Err(format!("{reply:?}")));
                }
            }
            return;
        }
        if !c.authenticated {
            let reply = rejected("the first frame must be a hello with the token");
            c.queue(&reply, &limits);
            c.closing = Some(Err(format!("{reply:?}")));
            return;
        }
        let reply: Reply = match request {
            Frame::Set { key, value } => check_key(&key).and_then(|()| {
                self.table.put(&key, value)?;
                self.key_set(&key);
                Ok(Frame::Ok)
            }),
            Frame::Get { key } => {
                check_key(&key).map(|()| Frame::Value(self.table.get(&key).cloned()))
            }
            Frame::Wait { keys, timeout_ms } => {
                if let Err(e) = keys.iter().try_for_each(|k| check_key(k)) {
                    c.queue(&refusal(&e), &limits);
                    return;
                }
                if keys.iter().all(|k| self.table.contains(k)) {
                    Ok(Frame::Ok)
                } else if timeout_ms == 0 {
                    let missing = keys
                        .into_iter()
                        .filter(|k| !self.table.contains(k))
                        .collect();
                    Ok(Frame::WaitTimeout { missing })
                } else {
                    self.park(id, c, keys, Duration::from_millis(timeout_ms), false);
                    return;
                }
            }
            Frame::WaitGet { key, timeout_ms } => {
                if let Err(e) = check_key(&key) {
                    c.queue(&refusal(&e), &limits);
                    return;
                }
                if let Some(v) = self.table.get(&key) {
                    Ok(Frame::Value(Some(v.clone())))
                } else if timeout_ms == 0 {
                    Ok(Frame::WaitTimeout { missing: vec![key] })
                } else {
                    self.park(id, c, vec![key], Duration::from_millis(timeout_ms), true);
                    return;
                }
            }
            Frame::Add { key, delta } => check_key(&key).and_then(|()| {
                let (new, bytes) =
                    add_counter(&key, self.table.get(&key).map(Vec::as_slice), delta)?;
                self.table.put(&key, bytes)?;
                self.key_set(&key);
                Ok(Frame::Int(new))
            }),
            Frame::CompareSet { key, expected, new } => check_key(&key).and_then(|()| {
                let current = self.table.get(&key);
                if current.map(Vec::as_slice) != expected.as_deref() {
                    return Ok(Frame::Value(current.cloned()));
                }
                self.table.put(&key, new.clone())?;
                self.key_set(&key);
                Ok(Frame::Value(Some(new)))
            }),
            Frame::Delete { key } => check_key(&key).map(|()| Frame::Bool(self.table.remove(&key))),
            Frame::OnDisconnectCreate { key, value } => {
                check_key(&key).and_then(|()| self.register(c, key, value))
            }
            Frame::Goodbye => {
                c.goodbye = true;
                c.queue(&Frame::Ok, &limits);
                c.closing = Some(Ok(()));
                return;
            }
            // A nudge that found no wait in progress (the wait ended meanwhile).
            Frame::Nudge => return,
            other => {
                let reply = protocol_error(format!("{other:?} is a reply, not a request"));
                c.queue(&reply, &limits);
                c.closing = Some(Err(format!("{reply:?}")));
                return;
            }
        };
        c.queue(&reply.unwrap_or_else(|e| refusal(&e)), &limits);
    }

    /// The checks of a hello: `None` when the client is in, else the reply that
    /// refuses it (and closes the connection).
    fn hello(
        &mut self,
        c: &mut Conn,
        version: u32,
        token: Option<&str>,
        job: Option<&str>,
    ) -> Option<Frame> {
        let o = &self.options;
        if c.hello_seen {
            return Some(protocol_error("a second hello".into()));
        }
        c.hello_seen = true;
        if version != PROTOCOL_VERSION {
            let m = format!("client speaks version {version}, server {PROTOCOL_VERSION}");
            return Some(protocol_error(m));
        }
        if let Some(expected) = &o.token {
            let given = token.unwrap_or("");
            if token.is_none() || !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
                let m = if token.is_none() {
                    "a token is required"
                } else {
                    "wrong token"
                };
                return Some(rejected(m));
            }
        }
        if let (Some(serves), Some(theirs)) = (&o.job, job) {
            if serves != theirs {
                let m = format!("it serves job {serves:?}, this client belongs to job {theirs:?}");
                return Some(Frame::Error {
                    code: super::super::frame::ErrorCode::Clash,
                    message: m,
                });
            }
        }
        if !c.pending {
            // Evicted from the pending ones while its hello was on the way.
            return Some(evicted_notice(o));
        }
        self.note_hello(c);
        c.authenticated = true;
        self.authenticated += 1;
        None
    }

    /// Reserves room for an on-disconnect registration (replacing one for the same key).
    fn register(&mut self, c: &mut Conn, key: String, value: Vec<u8>) -> Reply {
        if let Some(i) = c.on_disconnect.iter().position(|(k, _)| *k == key) {
            let (k, v) = c.on_disconnect.swap_remove(i);
            self.table.release(cost(&k, &v));
        }
        self.table.reserve(cost(&key, &value))?;
        c.on_disconnect.push((key, value));
        Ok(Frame::Ok)
    }
}
