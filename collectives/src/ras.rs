//! NCCL's RAS (reliability, availability and serviceability) service, asked what it
//! thinks of the job when a collective times out.
//!
//! Since NCCL 2.24 every process of a job runs a RAS thread; the threads watch each
//! other, and answer queries on `localhost:28028` (`NCCL_RAS_ADDR` moves it,
//! `NCCL_RAS_ENABLE=0` turns it off) in a line-based text protocol: the client says
//! `CLIENT PROTOCOL 2`, the server `SERVER PROTOCOL 2`; `TIMEOUT <s>` and
//! `SET FORMAT json` (NCCL 2.28.7 and later) are answered `OK`; `STATUS` is answered
//! with the job's status, and the connection closes. [`query`] speaks it, with a
//! deadline; [`RasStatus::parse`] reads the JSON status; [`RasStatus::verdict`] says,
//! one line per finding, which ranks RAS considers dead, unresponsive, failed or
//! behind.
//!
//! A group on the cuda driver asks RAS when one of its operations times out (unless
//! `NCCL_RAS_ENABLE=0`), on its dump thread, and writes the verdict into the dump
//! ([`Dump::ras`](crate::Dump::ras)), which the hang report prints. On the sim there
//! is no RAS: a group there asks only when `NCCL_RAS_ADDR` names a server.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The port NCCL's RAS listens on when `NCCL_RAS_ADDR` does not say.
pub const DEFAULT_PORT: u16 = 28028;

/// The protocol version this client speaks (NCCL 2.24 and later).
const PROTOCOL: u32 = 2;

/// Why a RAS query gave no status.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RasError {
    /// Nothing answered at the address (no NCCL process here, or RAS is off).
    #[error("NCCL RAS at {addr}: cannot connect: {reason}")]
    Connect {
        /// The address tried.
        addr: String,
        /// The system's reason.
        reason: String,
    },
    /// The deadline passed.
    #[error("NCCL RAS at {addr}: no answer within {waited:?}")]
    Timeout {
        /// The address asked.
        addr: String,
        /// How long it waited.
        waited: Duration,
    },
    /// The server answered something this client does not understand.
    #[error("NCCL RAS at {addr}: {reason}")]
    Protocol {
        /// The address asked.
        addr: String,
        /// What was wrong.
        reason: String,
    },
    /// The loaded NCCL's RAS has no JSON status (before NCCL 2.28.7).
    #[error("NCCL RAS at {addr} has no JSON status (NCCL 2.28.7 and later): {answer}")]
    NoJson {
        /// The address asked.
        addr: String,
        /// The server's answer to `SET FORMAT json`.
        answer: String,
    },
    /// The status is not the JSON this client reads.
    #[error("NCCL RAS status: {0}")]
    Parse(String),
}

/// A rank of a communicator that RAS heard from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RasRank {
    /// Its rank in the communicator.
    pub rank: usize,
    /// Its node.
    pub host: String,
    /// Its process (`None` when RAS does not know it).
    pub pid: Option<u64>,
    /// `ncclSuccess` (0) when initialized, `ncclInProgress` (7) while initializing,
    /// else the error init ended with.
    pub init_state: i64,
    /// What `ncclCommGetAsyncError` would return there.
    pub async_error: i64,
    /// Whether the communicator was aborted there.
    pub aborted: bool,
    /// Collectives launched there so far, by NCCL's name of the collective.
    pub collective_counts: BTreeMap<String, u64>,
}

/// A rank of a communicator that RAS did not hear from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RasMissingRank {
    /// Its rank in the communicator.
    pub rank: usize,
    /// Its node.
    pub host: String,
    /// Its process (`None` when RAS does not know it).
    pub pid: Option<u64>,
    /// RAS could not reach it when collecting.
    pub unresponsive: bool,
    /// RAS gave up on it (unreachable for about a minute).
    pub considered_dead: bool,
}

/// One communicator as RAS sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RasCommunicator {
    /// NCCL's hash of it (as in `NCCL_DEBUG` output).
    pub hash: String,
    /// Its number of ranks.
    pub size: usize,
    /// The ranks RAS heard from.
    pub ranks: Vec<RasRank>,
    /// The ranks it did not.
    pub missing: Vec<RasMissingRank>,
}

/// The job's status as RAS reports it (`SET FORMAT json`, then `STATUS`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RasStatus {
    /// The NCCL version of the answering process.
    pub nccl_version: String,
    /// Every communicator of the job.
    pub communicators: Vec<RasCommunicator>,
    /// How many of RAS's own exchanges timed out while it collected this.
    pub timeouts: u64,
}

fn text(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn int(v: &Value, key: &str) -> Result<i64, String> {
    v[key]
        .as_i64()
        .ok_or_else(|| format!("{key:?} is not an integer in {v}"))
}

fn flag(v: &Value, key: &str) -> bool {
    v[key].as_bool().unwrap_or(false)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

/// A process id; NCCL writes -1 for one it does not know.
fn pid(v: &Value) -> Option<u64> {
    v["pid"].as_u64()
}

/// `rank 3 (pid 5201 on 10.0.0.2)`, or `(pid ? on ...)` for an unknown process.
fn who(rank: usize, pid: Option<u64>, host: &str) -> String {
    match pid {
        Some(p) => format!("rank {rank} (pid {p} on {host})"),
        None => format!("rank {rank} (pid ? on {host})"),
    }
}

fn index(v: &Value, key: &str) -> Result<usize, String> {
    usize::try_from(int(v, key)?).map_err(|_| format!("{key:?} is negative in {v}"))
}

impl RasStatus {
    /// Reads RAS's JSON status (NCCL 2.28.7 and later). Fields this client does not
    /// use are ignored; those it uses must be there.
    ///
    /// # Errors
    ///
    /// [`RasError::Parse`] naming what is wrong.
    pub fn parse(json: &str) -> Result<RasStatus, RasError> {
        let v: Value = serde_json::from_str(json).map_err(|e| RasError::Parse(e.to_string()))?;
        let parse = || -> Result<RasStatus, String> {
            if !v.is_object() {
                return Err(format!("not a JSON object: {v}"));
            }
            let mut communicators = Vec::new();
            for c in list(&v, "communicators") {
                let mut ranks = Vec::new();
                for r in list(c, "ranks") {
                    let status = &r["status"];
                    let collective_counts = r["collective_counts"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .filter_map(|(k, n)| Some((k.clone(), n.as_u64()?)))
                                .collect()
                        })
                        .unwrap_or_default();
                    ranks.push(RasRank {
                        rank: index(r, "rank")?,
                        host: text(r, "host"),
                        pid: pid(r),
                        init_state: int(status, "init_state").unwrap_or(0),
                        async_error: int(status, "async_error").unwrap_or(0),
                        aborted: flag(status, "abort_flag"),
                        collective_counts,
                    });
                }
                let mut missing = Vec::new();
                for r in list(c, "missing_ranks") {
                    missing.push(RasMissingRank {
                        rank: index(r, "rank")?,
                        host: text(r, "host"),
                        pid: pid(r),
                        unresponsive: flag(&r["status"], "unresponsive"),
                        considered_dead: flag(&r["status"], "considered_dead"),
                    });
                }
                communicators.push(RasCommunicator {
                    hash: text(c, "hash"),
                    size: index(c, "size")?,
                    ranks,
                    missing,
                });
            }
            Ok(RasStatus {
                nccl_version: text(&v, "nccl_version"),
                communicators,
                timeouts: v["ras"]["timeouts_count"].as_u64().unwrap_or(0),
            })
        };
        parse().map_err(RasError::Parse)
    }

    /// One line per finding, per communicator: ranks considered dead, unresponsive
    /// or otherwise missing; ranks with an asynchronous error, a failed init or an
    /// abort; ranks behind the others in launched collectives (by collective). A
    /// communicator with none of these gets one line saying all its ranks answered;
    /// a status with no communicator, a line saying so.
    pub fn verdict(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for c in &self.communicators {
            let name = format!("communicator {} ({} ranks)", c.hash, c.size);
            let before = lines.len();
            for m in &c.missing {
                let what = if m.considered_dead {
                    "considered dead (unreachable)"
                } else if m.unresponsive {
                    "unresponsive"
                } else {
                    "missing (reachable, but not a member now)"
                };
                lines.push(format!("{name}: {} {what}", who(m.rank, m.pid, &m.host)));
            }
            for r in &c.ranks {
                let at = who(r.rank, r.pid, &r.host);
                if r.init_state != 0 && r.init_state != 7 {
                    lines.push(format!(
                        "{name}: {at} failed init: {}",
                        result_name(r.init_state)
                    ));
                }
                if r.async_error != 0 && r.async_error != 7 {
                    lines.push(format!(
                        "{name}: {at} has asynchronous error {}",
                        result_name(r.async_error)
                    ));
                }
                if r.aborted {
                    lines.push(format!("{name}: {at} aborted it"));
                }
            }
            // Behind: fewer launches of a collective than the most any rank made.
            let kinds: std::collections::BTreeSet<&String> = c
                .ranks
                .iter()
                .flat_map(|r| r.collective_counts.keys())
                .collect();
            for kind in kinds {
                let count = |r: &RasRank| r.collective_counts.get(kind).copied().unwrap_or(0);
                let most = c.ranks.iter().map(count).max().unwrap_or(0);
                for r in c.ranks.iter().filter(|r| count(r) < most) {
                    lines.push(format!(
                        "{name}: {} is behind: {} {kind} launched, {most} on other ranks",
                        who(r.rank, r.pid, &r.host),
                        count(r)
                    ));
                }
            }
            if lines.len() == before {
                lines.push(format!("{name}: all ranks answered, none failed or behind"));
            }
        }
        if self.communicators.is_empty() {
            lines.push(
                "RAS knows no communicator of the job (all were destroyed or aborted before \
                 it collected)"
                    .into(),
            );
        }
        if self.timeouts > 0 {
            lines.push(format!(
                "RAS's own exchanges timed out {} time(s) while collecting this",
                self.timeouts
            ));
        }
        lines
    }
}

/// NCCL's name of a `ncclResult_t`.
fn result_name(code: i64) -> String {
    let name = match code {
        1 => "ncclUnhandledCudaError",
        2 => "ncclSystemError",
        3 => "ncclInternalError",
        4 => "ncclInvalidArgument",
        5 => "ncclInvalidUsage",
        6 => "ncclRemoteError",
        7 => "ncclInProgress",
        _ => return format!("{code}"),
    };
    format!("{code} ({name})")
}

/// Where this process's RAS listens: `NCCL_RAS_ADDR` (`host:port`), else
/// `localhost:28028`; `None` when `NCCL_RAS_ENABLE=0`.
pub fn address() -> Option<String> {
    if std::env::var("NCCL_RAS_ENABLE").is_ok_and(|v| v.trim() == "0") {
        return None;
    }
    Some(
        std::env::var("NCCL_RAS_ADDR")
            .ok()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| format!("localhost:{DEFAULT_PORT}")),
    )
}

/// Asks the RAS service at `addr` (`host:port`) for the job's status, all within
/// `deadline`.
///
/// # Errors
///
/// [`RasError`]: nothing listening, the deadline, a protocol this client does not
/// speak, an NCCL whose RAS has no JSON status, or a status it cannot read.
pub fn query(addr: &str, deadline: Duration) -> Result<RasStatus, RasError> {
    let start = Instant::now();
    let timeout = || RasError::Timeout {
        addr: addr.to_string(),
        waited: start.elapsed(),
    };
    // The time left, or the timeout error when none is.
    let left = || {
        let l = deadline.saturating_sub(start.elapsed());
        if l.is_zero() { Err(timeout()) } else { Ok(l) }
    };
    let protocol = |reason: String| RasError::Protocol {
        addr: addr.to_string(),
        reason,
    };
    let connect_err = |reason: String| RasError::Connect {
        addr: addr.to_string(),
        reason,
    };
    let targets = resolve(addr, left()?).map_err(|e| match e {
        None => timeout(),
        Some(reason) => connect_err(reason),
    })?;
    let mut last = String::from("the address resolves to nothing");
    let mut stream = None;
    for t in targets {
        match TcpStream::connect_timeout(&t, left()?) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e.to_string(),
        }
    }
    let mut s = stream.ok_or_else(|| connect_err(last))?;
    let io = |e: std::io::Error| {
        if matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            timeout()
        } else {
            protocol(e.to_string())
        }
    };
    // Ask RAS to give up on slow peers well within our deadline (whole seconds, at
    // least one).
    let ras_timeout = (deadline.as_secs() / 2).max(1);
    let say = |s: &mut TcpStream, line: &str| -> Result<String, RasError> {
        s.set_write_timeout(Some(left()?)).map_err(io)?;
        s.write_all(line.as_bytes()).map_err(io)?;
        read_line(s, &|| left().ok()).map_err(io)
    };
    let hello = say(&mut s, &format!("CLIENT PROTOCOL {PROTOCOL}\n"))?;
    let version = hello
        .strip_prefix("SERVER PROTOCOL ")
        .ok_or_else(|| protocol(format!("not a RAS server: it said {hello:?}")))?;
    if version.trim() != PROTOCOL.to_string() {
        return Err(protocol(format!(
            "server protocol {version}, this client speaks {PROTOCOL}"
        )));
    }
    let ok = say(&mut s, &format!("TIMEOUT {ras_timeout}\n"))?;
    if ok != "OK" {
        return Err(protocol(format!("TIMEOUT answered {ok:?}")));
    }
    let ok = say(&mut s, "SET FORMAT json\n")?;
    if ok != "OK" {
        return Err(RasError::NoJson {
            addr: addr.to_string(),
            answer: ok,
        });
    }
    s.set_write_timeout(Some(left()?)).map_err(io)?;
    s.write_all(b"STATUS\n").map_err(io)?;
    let mut body = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        s.set_read_timeout(Some(left()?)).map_err(io)?;
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) if body.len() + n > MAX_STATUS => {
                return Err(protocol(format!(
                    "a status of over {MAX_STATUS} bytes (not read further)"
                )));
            }
            Ok(n) => body.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    RasStatus::parse(&String::from_utf8_lossy(&body))
}

/// The most of a status this client reads (RAS's JSON for thousands of ranks is a
/// few MB).
const MAX_STATUS: usize = 64 << 20;

/// `addr` resolved within `limit`, on a thread of its own (a host name may wait for
/// DNS). `Err(None)`: the time ran out; `Err(Some(reason))`: it does not resolve.
fn resolve(addr: &str, limit: Duration) -> Result<Vec<std::net::SocketAddr>, Option<String>> {
    if let Ok(a) = addr.parse::<std::net::SocketAddr>() {
        return Ok(vec![a]);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let name = addr.to_string();
    std::thread::Builder::new()
        .name("nccl-rs-ras-resolve".into())
        .spawn(move || {
            let r = name
                .to_socket_addrs()
                .map(|a| a.collect::<Vec<_>>())
                .map_err(|e| e.to_string());
            let _ = tx.send(r);
        })
        .map_err(|e| Some(e.to_string()))?;
    match rx.recv_timeout(limit) {
        Ok(r) => r.map_err(Some),
        Err(_) => Err(None),
    }
}

/// One line, without its newline, within the time `left` gives (`None`: none left).
fn read_line(s: &mut TcpStream, left: &dyn Fn() -> Option<Duration>) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        let l = left().ok_or(std::io::ErrorKind::TimedOut)?;
        s.set_read_timeout(Some(l))?;
        match s.read(&mut byte) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if line.len() < 4096 => line.push(byte[0]),
            Ok(_) => return Err(std::io::Error::other("a line longer than 4096 bytes")),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line)
        .trim_end_matches('\r')
        .to_string())
}

#[cfg(test)]
mod tests;
