//! The TCP store's wire format: the [`Frame`]s a client and a server exchange, a pure
//! [`decode`]r that can be fed arbitrary bytes (and fuzzed), and its inverse,
//! [`encode`].
//!
//! Every frame is `u32` little-endian body length, then the body: one opcode byte and
//! the opcode's fields, in order. Field encodings:
//!
//! | field | bytes |
//! |---|---|
//! | `u32`, `u64`, `i64` | little-endian, 4 or 8 bytes |
//! | bool | one byte, `0` or `1` |
//! | bytes, string | `u32` LE length, then the bytes (strings are UTF-8) |
//! | optional bytes/string | one tag byte, `0` = absent, `1` = present, then the value |
//! | list of strings | `u32` LE count, then each string |
//!
//! Requests (client to server) have opcodes `0x01..=0x0b`, replies `0x81..=0x87`; see
//! [`Frame`] for each. A length over [`Limits::max_frame`] is rejected as soon as the
//! four length bytes are in, before anything is allocated for the body; nothing a
//! decoder allocates is larger than the body it was given.

use std::fmt;

/// The protocol version a client announces in its [`Frame::Hello`].
pub const PROTOCOL_VERSION: u32 = 3;

/// The default largest frame body, in bytes: 16 MiB.
pub const DEFAULT_MAX_FRAME: u32 = 16 << 20;

/// Bytes of the length prefix that precedes every body.
pub const HEADER_LEN: usize = 4;

/// What a decoder (and an encoder) accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest body length (opcode and fields, not the 4-byte prefix) accepted.
    pub max_frame: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame: DEFAULT_MAX_FRAME,
        }
    }
}

/// Why a server refused a request, in a [`Frame::Error`] reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The connection is not authenticated (missing or wrong token); it is closed.
    Rejected,
    /// The request made no sense here (a reply opcode, a second hello, a wrong
    /// protocol version); the connection is closed.
    Protocol,
    /// The key is empty or otherwise unusable; the connection stays open.
    InvalidKey,
    /// `add` on a value that is not a decimal `i64`, or an overflow; the connection
    /// stays open.
    Counter,
    /// The server is at its connection limit; the connection is closed. Worth retrying.
    Busy,
    /// The client belongs to another job than the one the server serves (the job
    /// names of the hellos differ); the connection is closed. Never worth retrying.
    Clash,
}

impl ErrorCode {
    fn to_u8(self) -> u8 {
        match self {
            ErrorCode::Rejected => 1,
            ErrorCode::Protocol => 2,
            ErrorCode::InvalidKey => 3,
            ErrorCode::Counter => 4,
            ErrorCode::Busy => 5,
            ErrorCode::Clash => 6,
        }
    }

    fn from_u8(code: u8) -> Option<ErrorCode> {
        Some(match code {
            1 => ErrorCode::Rejected,
            2 => ErrorCode::Protocol,
            3 => ErrorCode::InvalidKey,
            4 => ErrorCode::Counter,
            5 => ErrorCode::Busy,
            6 => ErrorCode::Clash,
            _ => return None,
        })
    }
}

/// One message of the protocol. Requests first, then replies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// `0x01`: the first frame of a connection: the client's protocol version, its
    /// token when it has one, and the name of the job it belongs to when it knows
    /// one. Reply: [`Frame::Ok`] or [`Frame::Error`].
    Hello {
        /// [`PROTOCOL_VERSION`] of the client.
        version: u32,
        /// The shared secret, if any.
        token: Option<String>,
        /// The job's name (its launcher's job id and world size), if any; a server
        /// that serves another job refuses with [`ErrorCode::Clash`].
        job: Option<String>,
    },
    /// `0x02`: store `value` under `key`. Reply: [`Frame::Ok`].
    Set {
        /// The key.
        key: String,
        /// The value.
        value: Vec<u8>,
    },
    /// `0x03`: read `key`. Reply: [`Frame::Value`].
    Get {
        /// The key.
        key: String,
    },
    /// `0x04`: block until every key exists, at most `timeout_ms`. Reply: [`Frame::Ok`]
    /// or [`Frame::WaitTimeout`].
    Wait {
        /// The keys.
        keys: Vec<String>,
        /// How long the server waits, in milliseconds.
        timeout_ms: u64,
    },
    /// `0x05`: add `delta` to the decimal counter at `key`. Reply: [`Frame::Int`].
    Add {
        /// The key.
        key: String,
        /// The increment.
        delta: i64,
    },
    /// `0x06`: set `key` to `new` iff it holds `expected` (absent = `None`). Reply:
    /// [`Frame::Value`] with the value after the call.
    CompareSet {
        /// The key.
        key: String,
        /// The value required for the swap; `None` requires the key to be absent.
        expected: Option<Vec<u8>>,
        /// The value stored on a match.
        new: Vec<u8>,
    },
    /// `0x07`: remove `key`. Reply: [`Frame::Bool`], whether it existed.
    Delete {
        /// The key.
        key: String,
    },
    /// `0x08`: when this connection ends without [`Frame::Goodbye`], the server sets
    /// `key` to `value` unless `key` exists then (the first record of a failure
    /// stays). Reply: [`Frame::Ok`].
    OnDisconnectCreate {
        /// The key.
        key: String,
        /// The value.
        value: Vec<u8>,
    },
    /// `0x09`: an orderly close: the server drops this connection's
    /// [`Frame::OnDisconnectCreate`] registrations. Reply: [`Frame::Ok`].
    Goodbye,
    /// `0x0a`: ends this connection's [`Frame::Wait`] in progress at once, as if its
    /// time had run out (the wait's reply is [`Frame::WaitTimeout`]); ignored when no
    /// wait is in progress. It has no reply of its own, and it is the one frame a client
    /// may send while a wait is in progress: a client whose threads share one
    /// connection sends it so that another thread's request need not wait for the
    /// wait's end.
    Nudge,
    /// `0x0b`: block until `key` exists, at most `timeout_ms`, and read it. Reply:
    /// [`Frame::Value`] with its value, or [`Frame::WaitTimeout`] (also when nudged).
    /// What a rank watching the job's failure record uses: one request, no read after.
    WaitGet {
        /// The key.
        key: String,
        /// How long the server waits, in milliseconds.
        timeout_ms: u64,
    },
    /// `0x81`: the request succeeded and has nothing to return.
    Ok,
    /// `0x82`: a value, or its absence.
    Value(Option<Vec<u8>>),
    /// `0x83`: a counter's new value.
    Int(i64),
    /// `0x84`: a yes or no.
    Bool(bool),
    /// `0x85`: a wait ran out of time; these keys were still missing.
    WaitTimeout {
        /// The keys that did not exist when the wait gave up.
        missing: Vec<String>,
    },
    /// `0x86`: the request would exceed a limit of the server.
    TooLarge {
        /// What is too large (`"stored bytes"`, `"key count"`, ...).
        what: String,
        /// The size it would have.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// `0x87`: the request was refused.
    Error {
        /// Why, in one word.
        code: ErrorCode,
        /// Why, in words.
        message: String,
    },
}

/// Why bytes are not a valid frame. A server closes the connection that sent them.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The length prefix (or, when encoding, the body) is over [`Limits::max_frame`].
    #[error("frame body of {size} bytes is over the limit of {limit} bytes")]
    TooLarge {
        /// The body length.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The body does not parse: unknown opcode, a field running past the body,
    /// trailing bytes, invalid UTF-8, a bad tag.
    #[error("malformed frame: {0}")]
    Malformed(String),
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match self {
            FrameError::TooLarge { .. } => "TooLarge",
            FrameError::Malformed(..) => "Malformed",
        };
        write!(f, "FrameError::{variant}: {self}")
    }
}

mod op {
    pub const HELLO: u8 = 0x01;
    pub const SET: u8 = 0x02;
    pub const GET: u8 = 0x03;
    pub const WAIT: u8 = 0x04;
    pub const ADD: u8 = 0x05;
    pub const COMPARE_SET: u8 = 0x06;
    pub const DELETE: u8 = 0x07;
    pub const ON_DISCONNECT_CREATE: u8 = 0x08;
    pub const GOODBYE: u8 = 0x09;
    pub const NUDGE: u8 = 0x0a;
    pub const WAIT_GET: u8 = 0x0b;
    pub const OK: u8 = 0x81;
    pub const VALUE: u8 = 0x82;
    pub const INT: u8 = 0x83;
    pub const BOOL: u8 = 0x84;
    pub const WAIT_TIMEOUT: u8 = 0x85;
    pub const TOO_LARGE: u8 = 0x86;
    pub const ERROR: u8 = 0x87;
}

/// One field of a body, for [`encode`] and [`encoded_len`].
enum Field<'a> {
    U8(u8),
    U32(u32),
    U64(u64),
    Bytes(&'a [u8]),
    OptBytes(Option<&'a [u8]>),
    Strings(&'a [String]),
}

impl Field<'_> {
    fn len(&self) -> u64 {
        match self {
            Field::U8(_) => 1,
            Field::U32(_) => 4,
            Field::U64(_) => 8,
            Field::Bytes(b) => 4 + b.len() as u64,
            Field::OptBytes(b) => 1 + b.map_or(0, |b| 4 + b.len() as u64),
            Field::Strings(v) => 4 + v.iter().map(|s| 4 + s.len() as u64).sum::<u64>(),
        }
    }

    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Field::U8(v) => out.push(*v),
            Field::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Field::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Field::Bytes(b) => put_bytes(out, b),
            Field::OptBytes(None) => out.push(0),
            Field::OptBytes(Some(b)) => {
                out.push(1);
                put_bytes(out, b);
            }
            Field::Strings(v) => {
                out.extend_from_slice(&(v.len() as u32).to_le_bytes());
                for s in v.iter() {
                    put_bytes(out, s.as_bytes());
                }
            }
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// The opcode and fields of `frame`.
fn fields(frame: &Frame) -> (u8, Vec<Field<'_>>) {
    use Field::*;
    match frame {
        Frame::Hello {
            version,
            token,
            job,
        } => (
            op::HELLO,
            vec![
                U32(*version),
                OptBytes(token.as_deref().map(str::as_bytes)),
                OptBytes(job.as_deref().map(str::as_bytes)),
            ],
        ),
        Frame::Set { key, value } => (op::SET, vec![Bytes(key.as_bytes()), Bytes(value)]),
        Frame::Get { key } => (op::GET, vec![Bytes(key.as_bytes())]),
        Frame::Wait { keys, timeout_ms } => (op::WAIT, vec![Strings(keys), U64(*timeout_ms)]),
        Frame::Add { key, delta } => (op::ADD, vec![Bytes(key.as_bytes()), U64(*delta as u64)]),
        Frame::CompareSet { key, expected, new } => (
            op::COMPARE_SET,
            vec![
                Bytes(key.as_bytes()),
                OptBytes(expected.as_deref()),
                Bytes(new),
            ],
        ),
        Frame::Delete { key } => (op::DELETE, vec![Bytes(key.as_bytes())]),
        Frame::OnDisconnectCreate { key, value } => (
            op::ON_DISCONNECT_CREATE,
            vec![Bytes(key.as_bytes()), Bytes(value)],
        ),
        Frame::Goodbye => (op::GOODBYE, vec![]),
        Frame::Nudge => (op::NUDGE, vec![]),
        Frame::WaitGet { key, timeout_ms } => {
            (op::WAIT_GET, vec![Bytes(key.as_bytes()), U64(*timeout_ms)])
        }
        Frame::Ok => (op::OK, vec![]),
        Frame::Value(v) => (op::VALUE, vec![OptBytes(v.as_deref())]),
        Frame::Int(v) => (op::INT, vec![U64(*v as u64)]),
        Frame::Bool(b) => (op::BOOL, vec![U8(u8::from(*b))]),
        Frame::WaitTimeout { missing } => (op::WAIT_TIMEOUT, vec![Strings(missing)]),
        Frame::TooLarge { what, size, limit } => (
            op::TOO_LARGE,
            vec![Bytes(what.as_bytes()), U64(*size), U64(*limit)],
        ),
        Frame::Error { code, message } => {
            (op::ERROR, vec![U8(code.to_u8()), Bytes(message.as_bytes())])
        }
    }
}

/// Bytes `frame` takes on the wire, the 4-byte length prefix included.
pub fn encoded_len(frame: &Frame) -> u64 {
    let (_, fields) = fields(frame);
    HEADER_LEN as u64 + 1 + fields.iter().map(Field::len).sum::<u64>()
}

/// The bytes of `frame` on the wire, or [`FrameError::TooLarge`] (before anything is
/// allocated) when its body is over `limits.max_frame`. [`decode`] is its inverse.
pub fn encode(frame: &Frame, limits: &Limits) -> Result<Vec<u8>, FrameError> {
    let total = encoded_len(frame);
    let body = total - HEADER_LEN as u64;
    if body > u64::from(limits.max_frame) {
        return Err(FrameError::TooLarge {
            size: body,
            limit: u64::from(limits.max_frame),
        });
    }
    let (opcode, fields) = fields(frame);
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&(body as u32).to_le_bytes());
    out.push(opcode);
    for f in &fields {
        f.put(&mut out);
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out)
}

/// Decodes the first frame of `buf`: `Ok(None)` when `buf` holds only part of one
/// (read more bytes and call again), `Ok(Some((frame, consumed)))` when it holds a
/// whole frame of `consumed` bytes (`consumed <= buf.len()`), an error when the bytes
/// cannot become a valid frame however many follow (a length over the limit is
/// reported as soon as the prefix is in). Never panics; allocates at most the body's
/// length.
pub fn decode(buf: &[u8], limits: &Limits) -> Result<Option<(Frame, usize)>, FrameError> {
    let Some(prefix) = buf.first_chunk::<HEADER_LEN>() else {
        return Ok(None);
    };
    let len = u32::from_le_bytes(*prefix);
    if len == 0 {
        return Err(malformed(format_args!("empty frame: no opcode")));
    }
    if len > limits.max_frame {
        return Err(FrameError::TooLarge {
            size: u64::from(len),
            limit: u64::from(limits.max_frame),
        });
    }
    let Some(total) = HEADER_LEN.checked_add(len as usize) else {
        return Err(FrameError::TooLarge {
            size: u64::from(len),
            limit: u64::from(limits.max_frame),
        });
    };
    let Some(body) = buf.get(HEADER_LEN..total) else {
        return Ok(None);
    };
    let mut r = Reader { body, pos: 0 };
    let opcode = r.u8("opcode")?;
    let frame = match opcode {
        op::HELLO => Frame::Hello {
            version: r.u32("version")?,
            token: r
                .opt_bytes("token")?
                .map(|t| utf8(t, "token"))
                .transpose()?,
            job: r.opt_bytes("job")?.map(|t| utf8(t, "job")).transpose()?,
        },
        op::SET => Frame::Set {
            key: r.string("key")?,
            value: r.bytes("value")?,
        },
        op::GET => Frame::Get {
            key: r.string("key")?,
        },
        op::WAIT => Frame::Wait {
            keys: r.strings("keys")?,
            timeout_ms: r.u64("timeout_ms")?,
        },
        op::ADD => Frame::Add {
            key: r.string("key")?,
            delta: r.u64("delta")? as i64,
        },
        op::COMPARE_SET => Frame::CompareSet {
            key: r.string("key")?,
            expected: r.opt_bytes("expected")?,
            new: r.bytes("new")?,
        },
        op::DELETE => Frame::Delete {
            key: r.string("key")?,
        },
        op::ON_DISCONNECT_CREATE => Frame::OnDisconnectCreate {
            key: r.string("key")?,
            value: r.bytes("value")?,
        },
        op::GOODBYE => Frame::Goodbye,
        op::NUDGE => Frame::Nudge,
        op::WAIT_GET => Frame::WaitGet {
            key: r.string("key")?,
            timeout_ms: r.u64("timeout_ms")?,
        },
        op::OK => Frame::Ok,
        op::VALUE => Frame::Value(r.opt_bytes("value")?),
        op::INT => Frame::Int(r.u64("value")? as i64),
        op::BOOL => Frame::Bool(match r.u8("bool")? {
            0 => false,
            1 => true,
            other => return Err(malformed(format_args!("bool byte is {other}, not 0 or 1"))),
        }),
        op::WAIT_TIMEOUT => Frame::WaitTimeout {
            missing: r.strings("missing")?,
        },
        op::TOO_LARGE => Frame::TooLarge {
            what: r.string("what")?,
            size: r.u64("size")?,
            limit: r.u64("limit")?,
        },
        op::ERROR => {
            let raw = r.u8("error code")?;
            let code = ErrorCode::from_u8(raw)
                .ok_or_else(|| malformed(format_args!("unknown error code {raw}")))?;
            Frame::Error {
                code,
                message: r.string("message")?,
            }
        }
        other => return Err(malformed(format_args!("unknown opcode {other:#04x}"))),
    };
    if r.pos != body.len() {
        return Err(malformed(format_args!(
            "{} trailing bytes after a frame of opcode {opcode:#04x}",
            body.len() - r.pos
        )));
    }
    Ok(Some((frame, total)))
}

fn malformed(what: fmt::Arguments<'_>) -> FrameError {
    FrameError::Malformed(what.to_string())
}

fn utf8(bytes: Vec<u8>, field: &str) -> Result<String, FrameError> {
    String::from_utf8(bytes)
        .map_err(|e| malformed(format_args!("field `{field}` is not UTF-8: {e}")))
}

/// Reads fields off a body whose length is already known to be within the limit.
struct Reader<'a> {
    body: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, field: &str) -> Result<&[u8], FrameError> {
        let left = self.body.len() - self.pos;
        if n > left {
            return Err(malformed(format_args!(
                "field `{field}` needs {n} bytes, only {left} are left in the body"
            )));
        }
        let out = &self.body[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn u8(&mut self, field: &str) -> Result<u8, FrameError> {
        Ok(self.take(1, field)?[0])
    }

    fn u32(&mut self, field: &str) -> Result<u32, FrameError> {
        let b = self.take(4, field)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, field: &str) -> Result<u64, FrameError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, field)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-prefixed byte string: the length is checked against what is left of
    /// the body before anything is allocated.
    fn bytes(&mut self, field: &str) -> Result<Vec<u8>, FrameError> {
        let n = self.u32(field)? as usize;
        Ok(self.take(n, field)?.to_vec())
    }

    fn string(&mut self, field: &str) -> Result<String, FrameError> {
        let b = self.bytes(field)?;
        utf8(b, field)
    }

    fn opt_bytes(&mut self, field: &str) -> Result<Option<Vec<u8>>, FrameError> {
        match self.u8(field)? {
            0 => Ok(None),
            1 => self.bytes(field).map(Some),
            tag => Err(malformed(format_args!(
                "field `{field}` has option tag {tag}, not 0 or 1"
            ))),
        }
    }

    /// A counted list of strings: the count is checked against what is left (each
    /// string takes at least 4 bytes) before the list is allocated.
    fn strings(&mut self, field: &str) -> Result<Vec<String>, FrameError> {
        let count = self.u32(field)? as usize;
        let left = self.body.len() - self.pos;
        if count > left / 4 {
            return Err(malformed(format_args!(
                "field `{field}` claims {count} strings, but only {left} bytes are left"
            )));
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            out.push(self.string(field)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
