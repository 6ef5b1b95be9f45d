//! A joined sim communicator, as one rank sees it: the shared control segment, every
//! rank's device memory mapped in this process, this rank's counters, and the split
//! protocol. `comm.rs` (lifecycle) and `launch.rs` (operations) build on it.

use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::memory::Arena;
use super::rendezvous::{Joined, Member};
use super::segment::{
    ABORTED, ALIVE, DEAD, DESTROYED, EMPTY, REGISTERED, Segment, SpinGuard, SplitEntry,
};
use super::{SimDevice, os};
use crate::sync::lock;
use crate::{Error, Result};

/// A peer's device memory as this process sees it.
pub(super) enum PeerArena {
    /// A device of this process (a rank on a thread here).
    Local(Arc<SimDevice>),
    /// Another process's device, mapped here.
    Mapped(Arc<Arena>),
}

impl PeerArena {
    /// The address of `[offset, offset + len)` of the peer's memory, checked.
    pub(super) fn at(&self, offset: u64, len: usize) -> std::result::Result<*mut u8, String> {
        match self {
            PeerArena::Local(d) => d.arena().at(offset, len),
            PeerArena::Mapped(a) => a.at(offset, len),
        }
    }
}

/// A peer process's device: its process nonce and the device's ordinal.
type MapKey = (u64, u32);

/// Other processes' arenas mapped here, shared by every communicator that needs them.
fn mapped_arenas() -> &'static Mutex<HashMap<MapKey, Weak<Arena>>> {
    static M: OnceLock<Mutex<HashMap<MapKey, Weak<Arena>>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// Whether `m` is a rank of this process: decided by the process nonce, never by
/// the pid (processes of different pid namespaces may share one).
fn is_local(m: &Member) -> bool {
    m.nonce == os::process_nonce()
}

/// A joined communicator: the shared segment, every rank's memory, this rank's
/// counters.
pub(crate) struct Live {
    pub seg: Segment,
    pub rank: usize,
    pub members: Vec<Member>,
    /// Every rank's device ordinal (index = rank), for the launch-order rule.
    pub devices: Vec<usize>,
    pub arenas: Vec<PeerArena>,
    /// Every rank's lifeline: hangs up when that rank's process dies.
    lifelines: Vec<std::os::fd::OwnedFd>,
    pub device: Arc<SimDevice>,
    /// A number naming this communicator, the same on every rank (for the
    /// launch-order rule).
    pub id: u64,
    pub coll_seq: AtomicU64,
    pub launches: AtomicU64,
    /// Messages counted per (from, to, is_send).
    pub p2p_seq: Mutex<HashMap<(usize, usize, bool), u64>>,
    split_seq: AtomicU64,
    /// Shrinks and grows of this communicator so far (each derives its child's id).
    pub shrink_seq: AtomicU64,
    pub grow_seq: AtomicU64,
    /// Set when this rank's abort state came from a revoke (messages say so; peers
    /// see an aborted rank either way).
    pub revoked: AtomicBool,
    /// When a wait last looked at its peers' processes.
    pub last_liveness: Mutex<Instant>,
    /// Windows registered so far (each one's ordinal, the same on every rank).
    pub window_seq: AtomicU64,
    /// Signals from each peer that this rank's waits have asked for so far: a wait
    /// for `k` more ends when the peer's count reaches the sum (as NCCL's does).
    pub expected: Mutex<Vec<u64>>,
}

impl Live {
    pub(super) fn new(joined: Joined, rank: usize, device: &Arc<SimDevice>) -> Result<Live> {
        let platform = super::platform()?;
        let mut arenas = Vec::with_capacity(joined.members.len());
        for (m, fd) in joined.members.iter().zip(joined.arenas) {
            if is_local(m) {
                arenas.push(PeerArena::Local(platform.device(m.device as usize)?));
                continue;
            }
            let key = (m.nonce, m.device);
            let mut cache = lock(mapped_arenas());
            cache.retain(|_, w| w.strong_count() > 0);
            let arena = match cache.get(&key).and_then(Weak::upgrade) {
                Some(a) => a,
                None => {
                    let a = Arc::new(Arena::open(fd)?);
                    cache.insert(key, Arc::downgrade(&a));
                    a
                }
            };
            arenas.push(PeerArena::Mapped(arena));
        }
        let id = joined.segment.header().uuid[0].load(Ordering::Relaxed);
        Ok(Live {
            seg: joined.segment,
            rank,
            devices: joined.members.iter().map(|m| m.device as usize).collect(),
            members: joined.members,
            arenas,
            lifelines: joined.lifelines,
            device: device.clone(),
            id,
            coll_seq: AtomicU64::new(0),
            launches: AtomicU64::new(0),
            p2p_seq: Mutex::new(HashMap::new()),
            split_seq: AtomicU64::new(0),
            shrink_seq: AtomicU64::new(0),
            grow_seq: AtomicU64::new(0),
            revoked: AtomicBool::new(false),
            last_liveness: Mutex::new(Instant::now()),
            window_seq: AtomicU64::new(0),
            expected: Mutex::new(Vec::new()),
        })
    }

    pub fn size(&self) -> usize {
        self.members.len()
    }

    /// `rank r (pid p)`, for messages.
    pub fn who(&self, r: usize) -> String {
        format!("rank {r} (pid {})", self.members[r].pid)
    }

    /// Why rank `r` can no longer take part, if it cannot.
    pub fn gone(&self, r: usize) -> Option<String> {
        let what = match self.seg.rank(r).state.load(Ordering::Acquire) {
            DESTROYED => "destroyed its communicator",
            ABORTED => "aborted its communicator",
            DEAD => "died (its process exited or was killed)",
            _ => return None,
        };
        Some(format!("{} {what}", self.who(r)))
    }

    /// The rank whose failure rank `r`'s state goes back to: itself, unless `r`
    /// aborted after another rank failed (followed along the chain).
    pub fn root_cause(&self, r: usize) -> usize {
        let mut cur = r;
        for _ in 0..self.size() {
            let c = self.seg.rank(cur).cause.load(Ordering::Acquire) as usize;
            if c == 0 || c - 1 == cur || c > self.size() {
                break;
            }
            cur = c - 1;
        }
        cur
    }

    /// Why one of `ranks` can no longer take part, naming the root cause first: the
    /// rank blamed, and the text. Each gone rank stands for the rank its failure goes
    /// back to ([`Live::root_cause`]); a dead one comes first (whichever rank noticed
    /// first, the death is why the others failed), then an aborted one, then one
    /// that destroyed its communicator.
    pub fn blame(&self, ranks: impl Iterator<Item = usize>) -> Option<(usize, String)> {
        let state = |r: usize| self.seg.rank(r).state.load(Ordering::Acquire);
        let rank_of = |s: u32| match s {
            DEAD => 0,
            ABORTED => 1,
            _ => 2,
        };
        let (r, root) = ranks
            .filter(|&r| matches!(state(r), DESTROYED | ABORTED | DEAD))
            .map(|r| (r, self.root_cause(r)))
            .min_by_key(|&(r, root)| (rank_of(state(root)), root != r))?;
        let text = self.gone(r)?;
        if root == r {
            return Some((r, text));
        }
        let why = self
            .gone(root)
            .unwrap_or_else(|| format!("{} failed", self.who(root)));
        Some((root, format!("{why}; {text} after it")))
    }

    /// Records that this rank's work failed because of rank `root` (kept if one is
    /// recorded already): peers that see this rank gone later blame `root`.
    pub fn note_cause(&self, root: usize) {
        if root != self.rank {
            let _ = self.seg.rank(self.rank).cause.compare_exchange(
                0,
                root as u32 + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    /// Records, before this rank aborts, the failure it follows: a dead or aborted
    /// peer's root cause (nothing when no peer is gone: the abort is this rank's own).
    pub fn record_cause(&self) {
        let me = self.rank;
        if let Some((root, _)) = self.blame((0..self.size()).filter(|&r| r != me)) {
            let state = self.seg.rank(root).state.load(Ordering::Acquire);
            if matches!(state, ABORTED | DEAD) {
                self.note_cause(root);
            }
        }
    }

    /// Looks at the processes of `ranks` if the last look is older than a tick.
    pub fn look_at_peers(&self, ranks: impl Iterator<Item = usize>) {
        let mut last = lock(&self.last_liveness);
        if last.elapsed() >= super::segment::LIVENESS_TICK {
            *last = Instant::now();
            drop(last);
            self.check_alive(ranks);
        }
    }

    /// Marks the ranks among `ranks` whose process has died as `DEAD` (and rings):
    /// their lifeline hung up. Ranks of this process, and ranks that destroyed or
    /// aborted their communicator (they may exit: reported as what they did), are
    /// not looked at.
    pub fn check_alive(&self, ranks: impl Iterator<Item = usize>) {
        for r in ranks {
            let info = self.seg.rank(r);
            if is_local(&self.members[r]) || info.state.load(Ordering::Acquire) != ALIVE {
                continue;
            }
            if self
                .lifelines
                .get(r)
                .is_some_and(|l| os::hung_up(l.as_raw_fd()))
            {
                info.state.store(DEAD, Ordering::Release);
                self.seg.ring();
            }
        }
    }

    /// Whether rank `r`'s process has died (its lifeline hung up).
    fn process_dead(&self, r: usize) -> bool {
        !is_local(&self.members[r])
            && self
                .lifelines
                .get(r)
                .is_some_and(|l| os::hung_up(l.as_raw_fd()))
    }

    /// Takes a spin lock of the segment as this rank; a holder whose process died is
    /// overtaken.
    pub fn spin_lock<'a>(&self, word: &'a std::sync::atomic::AtomicU32) -> SpinGuard<'a> {
        let n = self.size();
        SpinGuard::lock(word, self.rank as u32 + 1, |holder| {
            let r = holder as usize - 1;
            r < n && self.process_dead(r)
        })
    }

    /// A failure of a peer that makes this communicator unusable (NCCL's remote
    /// error), if any.
    pub(super) fn remote_failure(&self) -> Option<Error> {
        let peers = || (0..self.size()).filter(|&r| r != self.rank);
        self.check_alive(peers());
        let failed = peers().filter(|&r| {
            matches!(
                self.seg.rank(r).state.load(Ordering::Acquire),
                ABORTED | DEAD
            )
        });
        let (rank, reason) = self.blame(failed)?;
        Some(Error::Remote { rank, reason })
    }

    /// The split protocol: every rank publishes its colour and key; each computes its
    /// own new rank and size; the last to read frees the slot.
    pub(super) fn split(
        &self,
        color: Option<u32>,
        key: i32,
        aborted: &AtomicBool,
        timeout: Option<Duration>,
    ) -> Result<Option<(usize, usize, [u8; 128])>> {
        let word = color.map_or(0, |c| u64::from(c) + 1);
        let (seq, asks) = self.exchange("split", word, key, aborted, timeout)?;
        let my_color = asks[self.rank].0;
        if my_color == 0 {
            return Ok(None);
        }
        let n = self.size();
        let mut members: Vec<usize> = (0..n).filter(|&r| asks[r].0 == my_color).collect();
        members.sort_by_key(|&r| (asks[r].1, r));
        let new_rank = members.iter().position(|&r| r == self.rank).unwrap_or(0);
        let id = self.derived_id(seq, my_color, b"split");
        Ok(Some((new_rank, members.len(), id)))
    }

    /// An id derived from this communicator's: the same on every rank that derives it
    /// with the same `seq`, `salt` and `tag` (five bytes), distinct otherwise.
    pub(super) fn derived_id(&self, seq: u64, salt: u64, tag: &[u8; 5]) -> [u8; 128] {
        let mut id = [0u8; 128];
        id[..8].copy_from_slice(crate::base::id::SIM_MAGIC);
        id[8..16].copy_from_slice(
            &self.seg.header().uuid[0]
                .load(Ordering::Relaxed)
                .to_le_bytes(),
        );
        id[16..24].copy_from_slice(
            &self.seg.header().uuid[1]
                .load(Ordering::Relaxed)
                .to_le_bytes(),
        );
        id[24..32].copy_from_slice(&seq.to_le_bytes());
        id[32..40].copy_from_slice(&salt.to_le_bytes());
        id[40..45].copy_from_slice(tag);
        id
    }

    /// One round of the split slots: every rank publishes a word and a key, and each
    /// reads every rank's (the split's sequence number, then the pairs in rank order);
    /// the last to read frees the slot. Every rank of the communicator must take part:
    /// `op` names the call in errors.
    pub(super) fn exchange(
        &self,
        op: &'static str,
        word: u64,
        key: i32,
        aborted: &AtomicBool,
        timeout: Option<Duration>,
    ) -> Result<(u64, Vec<(u64, i32)>)> {
        let n = self.size();
        let seq = self.split_seq.fetch_add(1, Ordering::Relaxed);
        let (head, entry) = self.seg.split(seq);
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let give_up = |what: &str| -> Result<()> {
            if aborted.load(Ordering::Acquire) {
                return Err(Error::Aborted {
                    what: format!("{op} on rank {}", self.rank),
                });
            }
            if let Some((_, gone)) = self.blame(0..n) {
                return Err(Error::InvalidUsage {
                    op,
                    reason: format!("{gone} while {what}"),
                });
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::Timeout {
                    op,
                    waited: timeout.unwrap_or_default(),
                });
            }
            Ok(())
        };
        // Claim the slot for split #seq.
        loop {
            let seen = self.seg.bell();
            {
                let _g = self.spin_lock(&head.lock);
                let cur = head.seq.load(Ordering::Acquire);
                if cur == 0 || cur == seq + 1 {
                    head.seq.store(seq + 1, Ordering::Release);
                    let mine: &SplitEntry = entry(self.rank);
                    mine.color.store(word, Ordering::Relaxed);
                    mine.key.store(key as u32, Ordering::Relaxed);
                    mine.state.store(REGISTERED, Ordering::Release);
                    break;
                }
            }
            give_up("waiting for an earlier split or shrink")?;
            self.look_at_peers(0..n);
            self.seg.wait_bell(seen);
        }
        self.seg.ring();
        loop {
            let seen = self.seg.bell();
            if (0..n).all(|r| entry(r).state.load(Ordering::Acquire) == REGISTERED) {
                break;
            }
            give_up("waiting for every rank to take part")?;
            self.look_at_peers(0..n);
            self.seg.wait_bell(seen);
        }
        let asks: Vec<(u64, i32)> = (0..n)
            .map(|r| {
                let e = entry(r);
                (
                    e.color.load(Ordering::Relaxed),
                    e.key.load(Ordering::Relaxed) as i32,
                )
            })
            .collect();
        if head.left.fetch_add(1, Ordering::AcqRel) + 1 == n as u32 {
            for r in 0..n {
                let e = entry(r);
                e.color.store(0, Ordering::Relaxed);
                e.key.store(0, Ordering::Relaxed);
                e.state.store(EMPTY, Ordering::Relaxed);
            }
            head.left.store(0, Ordering::Relaxed);
            head.seq.store(0, Ordering::Release);
            self.seg.ring();
        }
        Ok((seq, asks))
    }
}
