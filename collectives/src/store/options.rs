//! The settings of the TCP store: [`ServerOptions`] for a
//! [`TcpStoreServer`](super::TcpStoreServer) and [`ClientOptions`] for a
//! [`TcpStore`](super::TcpStore), with their defaults and the checks that refuse
//! values out of range.

use std::time::Duration;

use super::StoreError;
use super::frame;

/// The longest token accepted (it travels in the hello frame).
pub(crate) const MAX_TOKEN_LEN: usize = 4096;
/// The smallest `max_frame` accepted: room for the longest key and some value.
pub(crate) const MIN_MAX_FRAME: u32 = 4096;
/// The largest `max_frame` accepted.
pub(crate) const MAX_MAX_FRAME: u32 = 1 << 30;

/// Settings of a [`TcpStoreServer`](super::TcpStoreServer), checked by
/// [`TcpStoreServer::bind`](super::TcpStoreServer::bind).
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub(crate) token: Option<String>,
    pub(crate) job: Option<String>,
    pub(crate) allow_no_token: bool,
    pub(crate) max_frame: u32,
    pub(crate) max_stored_bytes: u64,
    pub(crate) max_keys: usize,
    pub(crate) max_connections: usize,
    pub(crate) max_pending: usize,
    pub(crate) max_buffered: u64,
    pub(crate) frame_deadline: Duration,
    pub(crate) hello_deadline: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions::new()
    }
}

impl ServerOptions {
    /// Defaults: no token (so only a loopback address may be bound), no job name,
    /// frames up to 16 MiB, 64 MiB of frames buffered over all connections at once,
    /// 256 MiB of keys and values, 1,000,000 keys, 1024 connections, 64 of them
    /// waiting for their hello, 2 s to send the hello, 10 s to finish a frame once it
    /// has begun.
    pub fn new() -> ServerOptions {
        ServerOptions {
            token: None,
            job: None,
            allow_no_token: false,
            max_frame: frame::DEFAULT_MAX_FRAME,
            max_stored_bytes: 256 << 20,
            max_keys: 1_000_000,
            max_connections: 1024,
            max_pending: 64,
            max_buffered: 64 << 20,
            frame_deadline: Duration::from_secs(10),
            hello_deadline: Duration::from_secs(2),
        }
    }

    /// Limits sized for a job of `world_size` ranks (the defaults of [`new`](Self::new)
    /// where they are larger): room for two connections per rank (a rank's requests,
    /// and its watch of the job's failure record) plus 64 for tools and reports, all
    /// of which may be waiting for their hello at once as a job starts; 64 keys and 64 KiB of keys and values per rank (a flight
    /// record each, and the rendezvous). What [`ProcessGroup::from_env`] and
    /// `nccl-run` serve their jobs with.
    ///
    /// [`ProcessGroup::from_env`]: crate::ProcessGroup::from_env
    pub fn for_job(world_size: usize) -> ServerOptions {
        let d = ServerOptions::new();
        let room = world_size.saturating_mul(2).saturating_add(64);
        ServerOptions {
            max_connections: room.max(d.max_connections),
            max_pending: room.max(d.max_pending),
            max_keys: world_size.saturating_mul(64).max(d.max_keys),
            max_stored_bytes: (world_size as u64)
                .saturating_mul(64 << 10)
                .max(d.max_stored_bytes),
            ..d
        }
    }

    /// A shared secret every client must present in its hello (compared in constant
    /// time); connections without it are closed before any request runs. 1 to 4096
    /// bytes.
    pub fn token(mut self, token: &str) -> ServerOptions {
        self.token = Some(token.to_string());
        self
    }

    /// The name of the one job this server serves (its launcher's job id and world
    /// size, say): a client whose hello names another job is refused with
    /// [`StoreError::Clash`](super::StoreError::Clash) and closed, so that two jobs that
    /// computed the same address fail at once instead of joining each other. A
    /// client that names no job is served (a tool reading the store). 1 to 4096
    /// bytes.
    pub fn job(mut self, job: &str) -> ServerOptions {
        self.job = Some(job.to_string());
        self
    }

    /// Serve on an address other hosts can reach without a token. By default
    /// [`TcpStoreServer::bind`](super::TcpStoreServer::bind) refuses that
    /// ([`StoreError::NeedsToken`](super::StoreError::NeedsToken)): anyone who can
    /// reach the port could read the job's unique id and abort the job. Only for a
    /// network where every host is trusted.
    pub fn allow_no_token(mut self) -> ServerOptions {
        self.allow_no_token = true;
        self
    }

    /// The largest frame body accepted, in bytes (4 KiB to 1 GiB); a connection that
    /// announces a larger one is closed.
    pub fn max_frame(mut self, bytes: u32) -> ServerOptions {
        self.max_frame = bytes;
        self
    }

    /// The most bytes of keys and values stored at once (at least 1); a write past it
    /// fails with [`StoreError::TooLarge`]. Registrations of
    /// [`TcpStore::on_disconnect_create`](super::TcpStore::on_disconnect_create) count too.
    pub fn max_stored_bytes(mut self, bytes: u64) -> ServerOptions {
        self.max_stored_bytes = bytes;
        self
    }

    /// The most keys stored at once (at least 1), registrations included.
    pub fn max_keys(mut self, keys: usize) -> ServerOptions {
        self.max_keys = keys;
        self
    }

    /// The most connections served at once (at least 1); one more is told the server
    /// is busy and closed. The server raises the process's open-file limit (up to
    /// its hard limit) to fit them.
    pub fn max_connections(mut self, connections: usize) -> ServerOptions {
        self.max_connections = connections;
        self
    }

    /// The most connections that have not yet sent their hello (at least 1). One
    /// more closes the oldest of them: connections that never say hello cannot lock
    /// out the clients that do.
    pub fn max_pending(mut self, connections: usize) -> ServerOptions {
        self.max_pending = connections;
        self
    }

    /// The most bytes of unfinished frames over 64 KiB the server holds over all
    /// connections at once (at least one frame of [`ServerOptions::max_frame`]). A
    /// large frame that finds no room waits for it (its bytes wait in the socket)
    /// until the frame deadline, then is refused and its connection closed. Smaller
    /// frames never wait: one per connection, they are bounded by the connection
    /// limit.
    pub fn max_buffered(mut self, bytes: u64) -> ServerOptions {
        self.max_buffered = bytes;
        self
    }

    /// How long a new connection has to send its hello (more than zero); past it the
    /// connection is closed.
    pub fn hello_deadline(mut self, deadline: Duration) -> ServerOptions {
        self.hello_deadline = deadline;
        self
    }

    /// How long a client has to finish a frame once its first byte arrived; past it
    /// the connection is closed. Idle connections between frames are kept. More than
    /// zero.
    pub fn frame_deadline(mut self, deadline: Duration) -> ServerOptions {
        self.frame_deadline = deadline;
        self
    }

    /// Checks every option; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), StoreError> {
        check_token_and_frame(self.token.as_deref(), self.max_frame)?;
        check_job(self.job.as_deref())?;
        if self.max_stored_bytes == 0 {
            return bad("max_stored_bytes", "0".into(), "must be at least 1");
        }
        if self.max_keys == 0 {
            return bad("max_keys", "0".into(), "must be at least 1");
        }
        if self.max_connections == 0 {
            return bad("max_connections", "0".into(), "must be at least 1");
        }
        if self.max_pending == 0 {
            return bad("max_pending", "0".into(), "must be at least 1");
        }
        if self.max_buffered < u64::from(self.max_frame) {
            let value = self.max_buffered.to_string();
            let reason = format!(
                "must hold at least one frame of max_frame ({})",
                self.max_frame
            );
            return bad("max_buffered", value, &reason);
        }
        if self.frame_deadline.is_zero() {
            return bad("frame_deadline", "0s".into(), "must be more than zero");
        }
        if self.hello_deadline.is_zero() {
            return bad("hello_deadline", "0s".into(), "must be more than zero");
        }
        Ok(())
    }
}

/// Settings of a [`TcpStore`](super::TcpStore) client.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub(crate) token: Option<String>,
    pub(crate) job: Option<String>,
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_frame: u32,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions::new()
    }
}

impl ClientOptions {
    /// Defaults: no token, keep trying to connect for 60 s, wait 60 s for each reply
    /// (plus the timeout of a `wait`), frames up to 16 MiB (keep it at least the
    /// server's).
    pub fn new() -> ClientOptions {
        ClientOptions {
            token: None,
            job: None,
            connect_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(60),
            max_frame: frame::DEFAULT_MAX_FRAME,
        }
    }

    /// The server's shared secret (1 to 4096 bytes), sent in the hello frame.
    pub fn token(mut self, token: &str) -> ClientOptions {
        self.token = Some(token.to_string());
        self
    }

    /// The name of the job this client belongs to, sent in the hello: a server that
    /// serves another job refuses it at once with
    /// [`StoreError::Clash`](super::StoreError::Clash). 1 to 4096 bytes.
    pub fn job(mut self, job: &str) -> ClientOptions {
        self.job = Some(job.to_string());
        self
    }

    /// How long [`TcpStore::connect`](super::TcpStore::connect) keeps trying (the
    /// server may not be up yet).
    pub fn connect_timeout(mut self, timeout: Duration) -> ClientOptions {
        self.connect_timeout = timeout;
        self
    }

    /// How long a request waits for its reply (a `wait` adds its own timeout); past it
    /// the connection is closed. More than zero.
    pub fn request_timeout(mut self, timeout: Duration) -> ClientOptions {
        self.request_timeout = timeout;
        self
    }

    /// The largest frame body sent or accepted, in bytes (4 KiB to 1 GiB).
    pub fn max_frame(mut self, bytes: u32) -> ClientOptions {
        self.max_frame = bytes;
        self
    }

    pub(crate) fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// Checks every option; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), StoreError> {
        check_token_and_frame(self.token.as_deref(), self.max_frame)?;
        check_job(self.job.as_deref())?;
        if self.request_timeout.is_zero() {
            return bad("request_timeout", "0s".into(), "must be more than zero");
        }
        Ok(())
    }
}

fn bad(option: &'static str, value: String, reason: &str) -> Result<(), StoreError> {
    Err(StoreError::InvalidOption {
        option,
        value,
        reason: reason.to_string(),
    })
}

fn check_job(job: Option<&str>) -> Result<(), StoreError> {
    match job {
        Some(j) if j.is_empty() || j.len() > MAX_TOKEN_LEN => bad(
            "job",
            format!("{} bytes", j.len()),
            "must be 1 to 4096 bytes",
        ),
        _ => Ok(()),
    }
}

/// The checks both sides share.
fn check_token_and_frame(token: Option<&str>, max_frame: u32) -> Result<(), StoreError> {
    if let Some(t) = token {
        if t.is_empty() || t.len() > MAX_TOKEN_LEN {
            let value = format!("{} bytes", t.len());
            return bad("token", value, "must be 1 to 4096 bytes");
        }
    }
    if !(MIN_MAX_FRAME..=MAX_MAX_FRAME).contains(&max_frame) {
        let value = max_frame.to_string();
        return bad("max_frame", value, "must be 4096 to 1073741824 bytes");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_out_of_range_are_named() {
        let cases = [
            (ServerOptions::new().token(""), "token"),
            (ServerOptions::new().max_frame(10), "max_frame"),
            (ServerOptions::new().max_frame(u32::MAX), "max_frame"),
            (ServerOptions::new().max_stored_bytes(0), "max_stored_bytes"),
            (ServerOptions::new().max_keys(0), "max_keys"),
            (ServerOptions::new().max_connections(0), "max_connections"),
            (
                ServerOptions::new().frame_deadline(Duration::ZERO),
                "frame_deadline",
            ),
        ];
        for (options, name) in cases {
            match options.validate() {
                Err(StoreError::InvalidOption { option, .. }) => assert_eq!(option, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        assert!(ServerOptions::new().validate().is_ok());
        let cases = [
            (ClientOptions::new().token(&"t".repeat(4097)), "token"),
            (ClientOptions::new().max_frame(4095), "max_frame"),
            (
                ClientOptions::new().request_timeout(Duration::ZERO),
                "request_timeout",
            ),
        ];
        for (options, name) in cases {
            match options.validate() {
                Err(StoreError::InvalidOption { option, .. }) => assert_eq!(option, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        assert!(ClientOptions::new().validate().is_ok());
    }
}
