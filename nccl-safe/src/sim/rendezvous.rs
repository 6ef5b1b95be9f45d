//! How sim ranks find each other: the unique id names a rendezvous root, as NCCL's id
//! holds its bootstrap root's address. (Over 600 lines because the joiner's and the
//! root's halves of one small protocol are read together.)
//!
//! - The root is an abstract Unix socket, `nccl-rs-sim-<uid>-<digest of the id>`, so
//!   any process of the host can reach it and nothing is left in the file system: the
//!   name vanishes with the socket, even after a SIGKILL.
//! - The first rank to join hosts the root on a thread of its process; later ranks
//!   connect. The root lives until every rank has joined, then goes away (ids are
//!   single-use, as NCCL's are).
//! - Only the same user can join: both sides check the other's credentials
//!   (`SO_PEERCRED`).
//! - A joiner sends its rank, the world size, its device, its pid, its process's
//!   random nonce (which tells ranks of one process from those of others, whatever
//!   pid namespaces they are in), its device's memory and its process's lifeline
//!   (descriptors; the lifeline hangs up when the process dies). The root checks the world size, duplicate ranks and two
//!   ranks on one device, naming both sides; it tells every joiner which ranks are in
//!   so far; when all are, it makes the communicator's control segment and sends it,
//!   with every rank's device memory and lifeline, to every rank.
//!
//! Past 600 lines with its tests only.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::memory::Arena;
use super::os;
use super::segment::{ALIVE, Segment};
use crate::sync::lock;
use crate::{Error, Result};

const JOIN_MAGIC: u64 = 0x6e63_636c_7273_6a31; // "ncclrsj1"
const HELLO_LEN: usize = 48;
/// Replies of the root.
const ACK: u8 = 1;
const REFUSED: u8 = 2;
const STATUS: u8 = 3;
const COMPLETE: u8 = 4;
/// Every rank's lifeline, in rank order, just before `COMPLETE`.
const LIFELINES: u8 = 5;

/// What every rank learns about every other when the rendezvous completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Member {
    /// Its pid, in its own pid namespace (for messages).
    pub pid: u32,
    /// Its process's nonce: equal to this process's for ranks of this process.
    pub nonce: u64,
    pub device: u32,
}

/// A completed rendezvous: the control segment and every rank's device memory.
pub(super) struct Joined {
    pub segment: Segment,
    pub members: Vec<Member>,
    pub arenas: Vec<OwnedFd>,
    /// Every rank's lifeline (hangs up when its process dies).
    pub lifelines: Vec<OwnedFd>,
}

fn digest(id: &[u8; 128]) -> String {
    let fnv = |seed: u64| {
        id.iter().fold(seed, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        })
    };
    format!(
        "{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x84222325cbf29ce4)
    )
}

/// The abstract socket name of `id`'s root.
pub(crate) fn root_name(id: &[u8; 128]) -> String {
    format!("nccl-rs-sim-{}-{}", os::uid(), digest(id))
}

fn address(id: &[u8; 128]) -> Result<SocketAddr> {
    let name = root_name(id);
    SocketAddr::from_abstract_name(name.as_bytes()).map_err(|e| io_err("rendezvous address", e))
}

fn io_err(op: &'static str, e: std::io::Error) -> Error {
    Error::Sim {
        op,
        reason: e.to_string(),
    }
}

struct Hello {
    rank: u32,
    size: u32,
    device: u32,
    pid: u32,
    nonce: u64,
}

impl Hello {
    fn encode(&self) -> [u8; HELLO_LEN] {
        let mut b = [0u8; HELLO_LEN];
        b[0..8].copy_from_slice(&JOIN_MAGIC.to_le_bytes());
        b[8..12].copy_from_slice(&self.rank.to_le_bytes());
        b[12..16].copy_from_slice(&self.size.to_le_bytes());
        b[16..20].copy_from_slice(&self.device.to_le_bytes());
        b[20..24].copy_from_slice(&self.pid.to_le_bytes());
        b[24..32].copy_from_slice(&self.nonce.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Option<Hello> {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        if b.len() != HELLO_LEN || b[0..8] != JOIN_MAGIC.to_le_bytes() {
            return None;
        }
        Some(Hello {
            rank: u32_at(8),
            size: u32_at(12),
            device: u32_at(16),
            pid: u32_at(20),
            nonce: u64::from_le_bytes(b[24..32].try_into().ok()?),
        })
    }
}

fn write_msg(
    stream: &UnixStream,
    kind: u8,
    body: &[u8],
    fds: &[std::os::fd::RawFd],
) -> std::io::Result<()> {
    let mut data = Vec::with_capacity(5 + body.len());
    data.push(kind);
    data.extend_from_slice(&(body.len() as u32).to_le_bytes());
    data.extend_from_slice(body);
    os::send_with_fds(stream, &data, fds)
}

/// Reads one reply: kind, body, descriptors.
fn read_msg(stream: &UnixStream) -> std::io::Result<(u8, Vec<u8>, Vec<OwnedFd>)> {
    let (head, mut fds) = os::recv_with_fds(stream, 5, os::MAX_FDS)?;
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > 1 << 20 {
        return Err(std::io::Error::other("oversized rendezvous message"));
    }
    let (body, more) = os::recv_with_fds(stream, len, os::MAX_FDS)?;
    fds.extend(more);
    Ok((head[0], body, fds))
}

/// Where a join stands.
enum Phase {
    /// Before the root's answer (`accepted` false), and while ranks are joining:
    /// those in, and those that were in and left again.
    Waiting {
        accepted: bool,
        joined: Vec<usize>,
        left: Vec<usize>,
    },
    Complete(Joined),
    Taken,
    Failed(Error),
    Aborted,
}

fn aborted() -> Error {
    Error::Aborted {
        what: "communicator init (aborted while waiting for the other ranks)".into(),
    }
}

/// A rank that has joined a rendezvous and waits for the others.
pub(super) struct Join {
    size: usize,
    state: Arc<(Mutex<Phase>, Condvar)>,
    stream: UnixStream,
}

impl Join {
    /// Joins rank `rank` of `size` on sim device `device`, whose memory is `arena`.
    /// Returns once the hello is sent; the root's answer (a refusal is an error of
    /// the join, seen by [`Join::wait_done`] and [`Join::try_take`]) and the rest
    /// happen in the background, so this never waits for the root.
    pub fn start(
        id: &[u8; 128],
        rank: usize,
        size: usize,
        device: usize,
        arena: &Arena,
    ) -> Result<Join> {
        let addr = address(id)?;
        let stream = connect_or_host(&addr, is_grow_id(id))?;
        let (uid, _) = os::peer_cred(&stream).map_err(|e| io_err("communicator init", e))?;
        if uid != os::uid() {
            return Err(Error::InvalidUsage {
                op: "communicator init",
                reason: format!(
                    "the rendezvous root of this id belongs to user {uid}, not to this user \
                     ({}): sim communicators join only processes of the same user",
                    os::uid()
                ),
            });
        }
        let hello = Hello {
            rank: rank as u32,
            size: size as u32,
            device: device as u32,
            pid: os::pid(),
            nonce: os::process_nonce(),
        };
        let lifeline = os::lifeline().map_err(|e| io_err("communicator init (lifeline)", e))?;
        os::send_with_fds(
            &stream,
            &hello.encode(),
            &[arena.fd().as_raw_fd(), lifeline],
        )
        .map_err(|e| io_err("communicator init", e))?;
        // The root's answer (accepted or refused) is read in the background like the
        // rest: a root whose process is stopped must not hold up a non-blocking init.
        let state = Arc::new((
            Mutex::new(Phase::Waiting {
                accepted: false,
                joined: vec![rank],
                left: Vec::new(),
            }),
            Condvar::new(),
        ));
        let reader = stream
            .try_clone()
            .map_err(|e| io_err("communicator init", e))?;
        let st = state.clone();
        std::thread::Builder::new()
            .name(format!("nccl-rs-sim-join-r{rank}"))
            .spawn(move || listen(reader, size, st))
            .map_err(|e| io_err("communicator init", e))?;
        Ok(Join {
            size,
            state,
            stream,
        })
    }

    /// Whether every rank has joined. Never blocks (beyond a short lock).
    pub fn is_complete(&self) -> bool {
        matches!(*lock(&self.state.0), Phase::Complete(_))
    }

    /// Waits until every rank has joined (`None`: forever), or the join fails or is
    /// aborted. Does not take the result ([`Join::try_take`] does).
    pub fn wait_done(&self, timeout: Option<Duration>) -> Result<()> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut p = lock(&self.state.0);
        loop {
            match &*p {
                Phase::Waiting { .. } => {}
                Phase::Complete(_) | Phase::Taken => return Ok(()),
                Phase::Failed(e) => return Err(e.clone()),
                Phase::Aborted => return Err(aborted()),
            }
            p = match deadline {
                None => self.state.1.wait(p).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        let Phase::Waiting {
                            accepted,
                            joined,
                            left,
                        } = &*p
                        else {
                            continue;
                        };
                        if !accepted {
                            return Err(Error::Timeout {
                                op: "communicator init (the rendezvous root never answered \
                                     this rank's hello: the process hosting it, the first \
                                     rank to join, may be stopped or overloaded)",
                                waited: timeout.unwrap_or_default(),
                            });
                        }
                        let missing = (0..self.size)
                            .filter(|r| !joined.contains(r) && !left.contains(r))
                            .collect();
                        return Err(Error::InitTimeout {
                            waited: timeout.unwrap_or_default(),
                            missing,
                            left: left.clone(),
                        });
                    }
                    self.state
                        .1
                        .wait_timeout(p, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }

    /// Takes the completed rendezvous (once); `None` while it is still waiting (or
    /// after it was taken).
    pub fn try_take(&self) -> Option<Result<Joined>> {
        let mut p = lock(&self.state.0);
        match &*p {
            Phase::Waiting { .. } | Phase::Taken => None,
            Phase::Failed(e) => Some(Err(e.clone())),
            Phase::Aborted => Some(Err(aborted())),
            Phase::Complete(_) => {
                let Phase::Complete(j) = std::mem::replace(&mut *p, Phase::Taken) else {
                    unreachable!("matched above");
                };
                Some(Ok(j))
            }
        }
    }

    /// Closes the connection to the root (once the result is taken).
    pub fn release(&self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Gives up: wakes every wait with [`Error::Aborted`] at once.
    pub fn abort(&self) {
        {
            let mut p = lock(&self.state.0);
            if matches!(*p, Phase::Waiting { .. }) {
                *p = Phase::Aborted;
            }
        }
        self.state.1.notify_all();
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

impl Drop for Join {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// The background reader of a joiner: the root's answer, status updates, then the
/// completion.
fn listen(stream: UnixStream, size: usize, state: Arc<(Mutex<Phase>, Condvar)>) {
    let outcome = match answer(&stream) {
        Err(e) => Err(e),
        Ok(()) => {
            if let Phase::Waiting { accepted, .. } = &mut *lock(&state.0) {
                *accepted = true;
            }
            let mut lifelines = Vec::new();
            let mut heard = false;
            loop {
                match read_msg(&stream) {
                    Ok((LIFELINES, _, fds)) => lifelines = fds,
                    Ok((STATUS, body, _)) => {
                        heard = true;
                        let (joined, left) = decode_status(&body);
                        if let Phase::Waiting {
                            joined: j, left: l, ..
                        } = &mut *lock(&state.0)
                        {
                            *j = joined;
                            *l = left;
                        }
                        state.1.notify_all();
                    }
                    Ok((COMPLETE, body, mut fds)) => {
                        break complete(size, &body, &mut fds, lifelines);
                    }
                    Ok((kind, ..)) => {
                        break Err(Error::Sim {
                            op: "communicator init",
                            reason: format!("unexpected message {kind} from the rendezvous root"),
                        });
                    }
                    Err(e) => {
                        // Who was still missing, as the last status said: the root's
                        // host most likely gave up waiting for them.
                        let missing = match &*lock(&state.0) {
                            Phase::Waiting { joined, left, .. } if heard => (0..size)
                                .filter(|r| !joined.contains(r) && !left.contains(r))
                                .collect(),
                            _ => Vec::new(),
                        };
                        break Err(root_gone(&e, &missing));
                    }
                }
            }
        }
    };
    let mut p = lock(&state.0);
    if matches!(*p, Phase::Waiting { .. }) {
        *p = match outcome {
            Ok(j) => Phase::Complete(j),
            Err(e) => Phase::Failed(e),
        };
    }
    drop(p);
    state.1.notify_all();
}

/// The error of a joiner whose connection to the root broke; `missing`: the ranks the
/// root's last status said had not joined (empty before the first status came).
fn root_gone(e: &std::io::Error, missing: &[usize]) -> Error {
    let not_joined = match missing {
        [] => String::new(),
        m => format!("; ranks {m:?} had not joined"),
    };
    Error::Sim {
        op: "communicator init",
        reason: format!(
            "the rendezvous root went away before every rank joined ({e}){not_joined}; the \
             process hosting it (the first rank to join) exited, or gave up waiting"
        ),
    }
}

/// The root's answer to the hello: accepted, or the refusal as the error.
fn answer(stream: &UnixStream) -> Result<()> {
    let (kind, body, _) = read_msg(stream).map_err(|e| root_gone(&e, &[]))?;
    match kind {
        ACK => Ok(()),
        REFUSED => {
            let text = String::from_utf8_lossy(&body).into_owned();
            Err(if let Some(detail) = text.strip_prefix("mismatch: ") {
                Error::Mismatch {
                    what: "communicator init".into(),
                    detail: detail.to_string(),
                }
            } else {
                Error::InvalidUsage {
                    op: "communicator init",
                    reason: text,
                }
            })
        }
        other => Err(Error::Sim {
            op: "communicator init",
            reason: format!("unexpected reply {other} from the rendezvous root"),
        }),
    }
}

/// A status message: the ranks in, and those that were in and left again.
fn encode_status(joined: &[usize], left: &[usize]) -> Vec<u8> {
    let mut body = (joined.len() as u32).to_le_bytes().to_vec();
    for r in joined.iter().chain(left) {
        body.extend_from_slice(&(*r as u32).to_le_bytes());
    }
    body
}

fn decode_status(body: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let words: Vec<usize> = body
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
        .collect();
    let Some((&n, ranks)) = words.split_first() else {
        return (Vec::new(), Vec::new());
    };
    let n = n.min(ranks.len());
    (ranks[..n].to_vec(), ranks[n..].to_vec())
}

fn complete(
    size: usize,
    body: &[u8],
    fds: &mut Vec<OwnedFd>,
    lifelines: Vec<OwnedFd>,
) -> Result<Joined> {
    if fds.len() != size + 1 || body.len() != size * 16 || lifelines.len() != size {
        return Err(Error::Sim {
            op: "communicator init",
            reason: format!(
                "the rendezvous root sent {} descriptors, {} lifelines and {} bytes for \
                 {size} ranks",
                fds.len(),
                lifelines.len(),
                body.len()
            ),
        });
    }
    let members = body
        .chunks_exact(16)
        .map(|c| Member {
            pid: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            device: u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            nonce: u64::from_le_bytes(c[8..16].try_into().unwrap_or_default()),
        })
        .collect();
    let arenas = fds.split_off(1);
    let segment = Segment::open(fds.remove(0), size)?;
    Ok(Joined {
        segment,
        members,
        arenas,
        lifelines,
    })
}

/// The tag of the ids the sim derives for a grow (`Live::derived_id` puts it at 40).
pub(super) const GROW_TAG: &[u8; 5] = b"grow!";

/// Whether `id` is one the sim made for a grow: only `Communicator::join_grown` and the
/// existing ranks' grow may use it, once.
pub(crate) fn is_grow_id(id: &[u8; 128]) -> bool {
    id[..8] == *crate::base::id::SIM_MAGIC && id[40..45] == *GROW_TAG
}

/// The one id under which the sim's ranks meet when given several
/// (`Communicator::init_scalable`): a hash of the whole list, in order, so that ranks
/// given the same list meet and ranks given different lists do not.
pub(crate) fn combined_id(ids: &[[u8; 128]]) -> [u8; 128] {
    let mut out = [0u8; 128];
    out[..8].copy_from_slice(crate::base::id::SIM_MAGIC);
    for (i, chunk) in out[8..].chunks_mut(8).enumerate() {
        let seed = 0xcbf2_9ce4_8422_2325u64 ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let h = ids.iter().flatten().fold(seed, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        });
        chunk.copy_from_slice(&h.to_le_bytes());
    }
    out
}

/// Connects to the root of `addr`, hosting it first when there is none. The root of
/// a grow's id (`spent_after`) keeps its name once the grow completed, refusing later
/// joiners (NCCL: each id from `ncclCommGetUniqueId` is used once).
fn connect_or_host(addr: &SocketAddr, spent_after: bool) -> Result<UnixStream> {
    let started = Instant::now();
    let mut nap = Duration::from_micros(50);
    loop {
        match UnixStream::connect_addr(addr) {
            Ok(s) => return Ok(s),
            Err(e) if started.elapsed() > Duration::from_secs(30) => {
                return Err(io_err(
                    "communicator init (connect to the rendezvous root)",
                    e,
                ));
            }
            Err(_) => {}
        }
        match UnixListener::bind_addr(addr) {
            Ok(listener) => {
                std::thread::Builder::new()
                    .name("nccl-rs-sim-root".into())
                    .spawn(move || {
                        Root {
                            spent_after,
                            ..Root::default()
                        }
                        .serve(listener)
                    })
                    .map_err(|e| io_err("communicator init", e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                // Another process is becoming the root: connect again shortly.
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
            }
            Err(e) => return Err(io_err("communicator init (host the rendezvous root)", e)),
        }
    }
}

#[derive(Default)]
struct Root {
    size: Option<(usize, usize, u32)>,
    /// Each joiner's hello, device memory, connection and lifeline.
    members: BTreeMap<usize, (Hello, OwnedFd, UnixStream, OwnedFd)>,
    /// Ranks that joined and left again (until they join anew).
    left: std::collections::BTreeSet<usize>,
    /// A grow's root: once complete, it refuses later joiners (see `refuse_later`).
    spent_after: bool,
}

impl Root {
    fn serve(mut self, listener: UnixListener) {
        // Joiners whose connection closes before completion are dropped from the set;
        // each connection gets a watcher that reports its end.
        let (gone_tx, gone_rx) = std::sync::mpsc::channel::<usize>();
        let mut admitted_any = false;
        loop {
            while let Ok(rank) = gone_rx.try_recv() {
                if self.members.remove(&rank).is_some() {
                    self.left.insert(rank);
                    self.broadcast_status();
                }
            }
            if admitted_any && self.members.is_empty() {
                // Everyone who joined has left: nobody waits for this root any more.
                return;
            }
            if !os::poll_readable(listener.as_raw_fd(), Duration::from_millis(20)) {
                continue;
            }
            let Ok((conn, _)) = listener.accept() else {
                continue;
            };
            let Some(rank) = self.admit(&conn) else {
                continue;
            };
            admitted_any = true;
            if let Ok(watch) = conn.try_clone() {
                let tx = gone_tx.clone();
                let _ = std::thread::Builder::new()
                    .name("nccl-rs-sim-watch".into())
                    .spawn(move || {
                        let mut b = [0u8; 1];
                        // A joiner never writes after its hello: any return is its end.
                        let _ = (&watch).read(&mut b);
                        let _ = tx.send(rank);
                    });
            }
            let _ = write_msg(&conn, ACK, &[], &[]);
            self.broadcast_status();
            if self.size.is_some_and(|(n, ..)| self.members.len() == n) {
                // Completes, then returns: the listener (and its name) goes away,
                // unless the id was a grow's.
                self.finish();
                if self.spent_after {
                    self.refuse_later(&listener);
                }
                return;
            }
        }
    }

    /// Reads a joiner's hello and checks it; `None` when refused (told why).
    fn admit(&mut self, conn: &UnixStream) -> Option<usize> {
        let refuse = |text: String| {
            let _ = write_msg(conn, REFUSED, text.as_bytes(), &[]);
            None
        };
        match os::peer_cred(conn) {
            Ok((uid, _)) if uid == os::uid() => {}
            _ => return refuse("only processes of the same user may join".into()),
        }
        let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
        let (data, mut fds) = match os::recv_with_fds(conn, HELLO_LEN, 2) {
            Ok(x) => x,
            Err(_) => return None,
        };
        let _ = conn.set_read_timeout(None);
        let (Some(h), Some(lifeline), Some(arena)) = (Hello::decode(&data), fds.pop(), fds.pop())
        else {
            return refuse("malformed join message".into());
        };
        let (rank, size) = (h.rank as usize, h.size as usize);
        let who = |r: usize, pid: u32| format!("rank {r} (pid {pid})");
        match self.size {
            Some((n, first, first_pid)) if n != size => {
                return refuse(format!(
                    "mismatch: {} says the world size is {size}, {} said {n}",
                    who(rank, h.pid),
                    who(first, first_pid)
                ));
            }
            _ => {}
        }
        if size == 0 || rank >= size {
            return refuse(format!("rank {rank} is not below the world size {size}"));
        }
        if let Some((other, ..)) = self.members.get(&rank) {
            return refuse(format!(
                "{} and {} both joined this unique id as rank {rank}",
                who(rank, other.pid),
                who(rank, h.pid)
            ));
        }
        if let Some((r, (m, ..))) = self
            .members
            .iter()
            .find(|(_, (m, ..))| m.device == h.device)
        {
            return refuse(format!(
                "{} and {} are both on sim device {} (one rank per device, as NCCL requires \
                 one rank per GPU)",
                who(*r, m.pid),
                who(rank, h.pid),
                h.device
            ));
        }
        self.size.get_or_insert((size, rank, h.pid));
        let stream = conn.try_clone().ok()?;
        self.left.remove(&rank);
        self.members.insert(rank, (h, arena, stream, lifeline));
        Some(rank)
    }

    fn broadcast_status(&self) {
        let joined: Vec<usize> = self.members.keys().copied().collect();
        let left: Vec<usize> = self.left.iter().copied().collect();
        let body = encode_status(&joined, &left);
        for (_, _, s, _) in self.members.values() {
            let _ = write_msg(s, STATUS, &body, &[]);
        }
    }

    /// After a grow completed: answers every later joiner of its id with a refusal
    /// naming the rule, for as long as a process of the grown communicator lives
    /// (their lifelines tell); without it a late joiner would host a rendezvous of its
    /// own and wait there until its timeout.
    fn refuse_later(&self, listener: &UnixListener) {
        let n = self.members.len();
        let reason = format!(
            "this grow id was used by a completed grow into {n} ranks: each id from \
             grow_id is used once (the coordinator makes a new one with grow_id on the \
             grown communicator)"
        );
        let lifelines: Vec<i32> = self.members.values().map(|m| m.3.as_raw_fd()).collect();
        loop {
            // A lifeline becomes readable (end of file) when its process is gone.
            if lifelines
                .iter()
                .all(|&fd| os::poll_readable(fd, Duration::ZERO))
            {
                return;
            }
            if !os::poll_readable(listener.as_raw_fd(), Duration::from_millis(100)) {
                continue;
            }
            let Ok((conn, _)) = listener.accept() else {
                continue;
            };
            let _ = conn.set_read_timeout(Some(Duration::from_secs(1)));
            // The hello (and its descriptors, closed here) comes first.
            let _ = os::recv_with_fds(&conn, HELLO_LEN, 2);
            let _ = write_msg(&conn, REFUSED, reason.as_bytes(), &[]);
        }
    }

    fn finish(&mut self) {
        let n = self.members.len();
        let failed = |e: String| {
            for (_, _, s, _) in self.members.values() {
                let _ = write_msg(s, REFUSED, e.as_bytes(), &[]);
            }
        };
        let segment = match Segment::create(n) {
            Ok(s) => s,
            Err(e) => return failed(e.to_string()),
        };
        for (i, w) in segment.header().uuid.iter().enumerate() {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u32(os::pid());
            w.store(h.finish(), Ordering::Relaxed);
        }
        let mut body = Vec::with_capacity(n * 16);
        let mut fds = vec![segment.fd().as_raw_fd()];
        let lifelines: Vec<_> = self.members.values().map(|m| m.3.as_raw_fd()).collect();
        for (r, (h, arena, ..)) in &self.members {
            let info = segment.rank(*r);
            info.pid.store(h.pid, Ordering::Relaxed);
            info.device.store(h.device, Ordering::Relaxed);
            info.nonce.store(h.nonce, Ordering::Relaxed);
            info.state.store(ALIVE, Ordering::Release);
            body.extend_from_slice(&h.pid.to_le_bytes());
            body.extend_from_slice(&h.device.to_le_bytes());
            body.extend_from_slice(&h.nonce.to_le_bytes());
            fds.push(arena.as_raw_fd());
        }
        for (_, _, s, _) in self.members.values() {
            let _ = write_msg(s, LIFELINES, &[], &lifelines);
            let _ = write_msg(s, COMPLETE, &body, &fds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joiner_that_loses_the_root_names_who_had_not_joined() {
        // What a rank of another process hears when the rank hosting the rendezvous
        // gave up (its init timed out) and closed it: the missing ranks, from the
        // root's last status.
        let e = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        let text = root_gone(&e, &[3]).to_string();
        assert!(
            text.contains("went away") && text.contains("ranks [3] had not joined"),
            "{text}"
        );
        assert!(!root_gone(&e, &[]).to_string().contains("had not joined"));
    }

    #[test]
    fn ids_name_distinct_roots_of_this_user() {
        let mut a = [0u8; 128];
        let b = a;
        a[127] = 1;
        assert_ne!(digest(&a), digest(&b));
        assert_eq!(digest(&a).len(), 32);
        assert!(address(&a).is_ok());
    }

    #[test]
    fn hellos_round_trip_and_garbage_is_refused() {
        let h = Hello {
            rank: 3,
            size: 4,
            device: 7,
            pid: 99,
            nonce: 12345,
        };
        let d = Hello::decode(&h.encode()).unwrap();
        assert_eq!(
            (d.rank, d.size, d.device, d.pid, d.nonce),
            (3, 4, 7, 99, 12345)
        );
        assert!(Hello::decode(&[0u8; HELLO_LEN]).is_none());
        assert!(Hello::decode(&[1u8; 3]).is_none());
    }

    #[test]
    fn status_messages_carry_who_is_in_and_who_left() {
        let body = encode_status(&[1, 3], &[0]);
        assert_eq!(decode_status(&body), (vec![1, 3], vec![0]));
        assert_eq!(decode_status(&encode_status(&[], &[])), (vec![], vec![]));
        assert_eq!(decode_status(&[9]), (vec![], vec![]), "garbage is nobody");
    }

    #[test]
    fn a_status_write_to_a_closed_peer_does_not_fail_the_root() {
        let (a, b) = UnixStream::pair().unwrap();
        drop(b);
        assert!(write_msg(&a, STATUS, &[1, 2], &[]).is_err());
    }
}
