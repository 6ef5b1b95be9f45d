//! The flight recorder: a bounded record of a group's operations, dumped as JSON, and
//! (see [`DumpFormat`](crate::DumpFormat)) in the format of PyTorch's flight recorder.

pub(crate) mod pickle;
pub(crate) mod torch;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Where an operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Enqueued; not known to be complete.
    Scheduled,
    /// Completed.
    Completed,
    /// Failed (an error of the stream or the communicator, or an abort).
    Failed,
    /// Ran past the group's timeout.
    TimedOut,
}

/// One operation of a group, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's number in its group's record on this rank, from 1, in the order
    /// recorded: the same operation has the same number on every rank, and the first
    /// number in a dump says how many earlier entries were evicted.
    #[serde(default)]
    pub record_id: u64,
    /// Position among the group's collectives (`None` for point-to-point).
    pub seq: Option<u64>,
    /// For point-to-point: the peer and the position among messages to/from it.
    pub p2p: Option<(usize, u64)>,
    /// The operation (`all_reduce`, `send`, ...).
    pub op: String,
    /// Element type.
    pub dtype: String,
    /// Element count as the operation was called. For the v-collectives: the
    /// elements this rank sends (`all_to_allv`), or the total of every rank's block,
    /// the same on every rank (`all_gather_v`, `reduce_scatter_v`).
    pub count: usize,
    /// The elements received where that is not implied by `count` and the group's
    /// size: this rank's receive total in an `all_to_allv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_count: Option<usize>,
    /// Root of a rooted collective.
    pub root: Option<usize>,
    /// Where the public API was called from (`file:line`).
    pub call_site: String,
    /// When it was enqueued, in milliseconds since the Unix epoch.
    pub enqueued_ms: u64,
    /// When it was seen complete, if it was.
    pub completed_ms: Option<u64>,
    /// Whether the group learns when NCCL has launched it (a launch-completion
    /// event: [`Options::launch_events`](crate::Options::launch_events), collectives
    /// only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tracks_launch: bool,
    /// When it was seen launched (NCCL had launched its kernel: it was running,
    /// waiting for its peers or moving data), if it was and the group tracks launches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
    /// Where it stands.
    pub state: State,
}

impl Entry {
    /// Whether the operation is still pending.
    pub fn is_pending(&self) -> bool {
        self.state == State::Scheduled
    }

    /// Whether NCCL had launched it when last seen: `None` where the group does not
    /// track launches (see [`Entry::tracks_launch`]).
    pub fn launched(&self) -> Option<bool> {
        self.tracks_launch
            .then(|| self.started_ms.is_some() || self.state == State::Completed)
    }
}

/// All a rank knows about its group when dumped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dump {
    /// Group name.
    pub group: String,
    /// This rank.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
    /// The driver (`cuda` or `sim`).
    pub driver: String,
    /// Why it was dumped.
    pub reason: String,
    /// The group's epoch: how many shrinks and grows made it from the job's first
    /// group (see [`ProcessGroup::epoch`](crate::ProcessGroup::epoch)).
    #[serde(default)]
    pub epoch: u64,
    /// When, in milliseconds since the Unix epoch.
    pub dumped_ms: u64,
    /// The group's timeout in milliseconds (`u64::MAX`: none).
    #[serde(default)]
    pub timeout_ms: u64,
    /// The communication library: `nccl <version>` as loaded (cuda), or `sim`.
    #[serde(default)]
    pub comm_lib: String,
    /// What NCCL's RAS service said of the job when an operation of this rank timed
    /// out ([`crate::ras`]): one line per finding, or why it could not be asked;
    /// empty when it was not asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ras: Vec<String>,
    /// The operations, oldest first.
    pub entries: Vec<Entry>,
}

impl Dump {
    /// Reads a dump written by a process group (on a timeout, into the dump folder, or
    /// by [`crate::ProcessGroup::dump_flight_record`]).
    ///
    /// # Errors
    ///
    /// An I/O or JSON error, as text naming the file.
    pub fn read(path: &Path) -> Result<Dump, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// This dump in the format of PyTorch's flight recorder, version 2.10: the pickle
    /// that PyTorch's analyzer (`torchfrtrace`, `torch.distributed.flight_recorder`)
    /// reads, one file per rank. Op names, sizes and dtypes are PyTorch's; `state` is
    /// `completed` or `scheduled` (PyTorch has no failed or timed-out state: ours is
    /// kept in the extra key `nccl_rs_state`); the call site is the one frame. The
    /// warm-up's connections and changes of membership have no counterpart there and
    /// are left out. [`DumpFormat`](crate::DumpFormat) has groups write these
    /// themselves.
    pub fn to_torch_pickle(&self) -> Vec<u8> {
        pickle::to_bytes(&torch::to_value(self))
    }

    /// Writes [`Dump::to_torch_pickle`] to `<dir>/torch/<group>/nccl_trace_rank_<rank>`
    /// (`<group>` as in [`Options::dump_dir`](crate::Options::dump_dir), with
    /// `-epoch<e>` after it for later epochs of a group that shrank or grew), the
    /// folder to give `torchfrtrace`. A later dump of the same group and rank replaces
    /// the file, as PyTorch's do; it is written whole and renamed into place.
    ///
    /// # Errors
    ///
    /// The file system's.
    pub fn write_torch(&self, dir: &Path) -> std::io::Result<PathBuf> {
        torch::write_under(dir, self)
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What a dump says of its group besides the entries.
pub(crate) struct GroupFacts {
    pub name: String,
    pub rank: usize,
    pub size: usize,
    pub epoch: u64,
    pub driver: String,
    pub timeout_ms: u64,
    pub comm_lib: String,
}

/// An [`Entry`] as the recorder keeps it: the operation's name and element type are
/// the library's own static strings and the call site is shared with the `Work`, so
/// recording an operation copies no text (an [`Entry`] is made when one is read).
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub record_id: u64,
    pub seq: Option<u64>,
    pub p2p: Option<(usize, u64)>,
    pub op: Cow<'static, str>,
    pub dtype: Cow<'static, str>,
    pub count: usize,
    pub out_count: Option<usize>,
    pub root: Option<usize>,
    pub call_site: Arc<str>,
    pub enqueued_ms: u64,
    pub completed_ms: Option<u64>,
    pub tracks_launch: bool,
    pub started_ms: Option<u64>,
    pub state: State,
}

impl Record {
    fn is_pending(&self) -> bool {
        self.state == State::Scheduled
    }

    fn to_entry(&self) -> Entry {
        Entry {
            record_id: self.record_id,
            seq: self.seq,
            p2p: self.p2p,
            op: self.op.to_string(),
            dtype: self.dtype.to_string(),
            count: self.count,
            out_count: self.out_count,
            root: self.root,
            call_site: self.call_site.to_string(),
            enqueued_ms: self.enqueued_ms,
            completed_ms: self.completed_ms,
            tracks_launch: self.tracks_launch,
            started_ms: self.started_ms,
            state: self.state,
        }
    }
}

impl From<Entry> for Record {
    fn from(e: Entry) -> Record {
        Record {
            record_id: e.record_id,
            seq: e.seq,
            p2p: e.p2p,
            op: Cow::Owned(e.op),
            dtype: Cow::Owned(e.dtype),
            count: e.count,
            out_count: e.out_count,
            root: e.root,
            call_site: Arc::from(e.call_site),
            enqueued_ms: e.enqueued_ms,
            completed_ms: e.completed_ms,
            tracks_launch: e.tracks_launch,
            started_ms: e.started_ms,
            state: e.state,
        }
    }
}

/// A bounded ring of entries that never evicts an entry still pending: when full, the
/// oldest finished entries go first; pending ones stay even past the capacity.
pub(crate) struct FlightRecorder {
    capacity: usize,
    /// Sorted by `record_id`, which only grows.
    entries: Mutex<VecDeque<Record>>,
    next_id: Mutex<u64>,
}

impl FlightRecorder {
    /// The next dump number of `group`'s rank `rank` in this process.
    pub fn next_dump(group: &str, rank: usize) -> u64 {
        static COUNTS: std::sync::OnceLock<Mutex<std::collections::HashMap<(String, usize), u64>>> =
            std::sync::OnceLock::new();
        let mut c = COUNTS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let n = c.entry((group.to_string(), rank)).or_insert(0);
        *n += 1;
        *n - 1
    }

    pub fn new(capacity: usize) -> FlightRecorder {
        FlightRecorder {
            capacity,
            entries: Mutex::new(VecDeque::new()),
            next_id: Mutex::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Record>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn push(&self, entry: impl Into<Record>) -> u64 {
        // The id is taken under the entries' lock, so that entries stay sorted by id.
        let mut entries = self.lock();
        let id = {
            let mut n = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            *n
        };
        entries.push_back(Record {
            record_id: id,
            ..entry.into()
        });
        while entries.len() > self.capacity {
            match entries.iter().position(|e| !e.is_pending()) {
                Some(0) => {
                    entries.pop_front();
                }
                Some(i) => {
                    entries.remove(i);
                }
                None => break,
            }
        }
        id
    }

    /// Forgets an entry (an operation that was not launched after all). The newest
    /// entry's id is given back, so that the ids of launched operations stay the same
    /// on every rank (PyTorch's analyzer aligns ranks by them).
    pub fn remove(&self, id: u64) {
        let mut entries = self.lock();
        entries.retain(|e| e.record_id != id);
        let mut next = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
        if *next == id {
            *next -= 1;
        }
    }

    /// Notes that entry `id`'s operation was seen launched (once; its first sighting).
    pub fn set_started(&self, id: u64) {
        let mut entries = self.lock();
        let found = entries.binary_search_by_key(&id, |e| e.record_id).ok();
        if let Some(e) = found.and_then(|at| entries.get_mut(at)) {
            if e.started_ms.is_none() {
                e.started_ms = Some(now_ms());
            }
        }
    }

    /// Notes entries `ids` completed, under one lock and one clock read:
    /// as [`Self::set_state`] with [`State::Completed`] for each.
    pub fn set_completed(&self, ids: impl IntoIterator<Item = u64>) {
        let mut entries = self.lock();
        let mut now = None;
        for id in ids {
            let found = entries.binary_search_by_key(&id, |e| e.record_id).ok();
            if let Some(e) = found.and_then(|at| entries.get_mut(at)) {
                if e.state == State::Scheduled {
                    e.state = State::Completed;
                    e.completed_ms = Some(*now.get_or_insert_with(now_ms));
                }
            }
        }
    }

    pub fn set_state(&self, id: u64, state: State) {
        let mut entries = self.lock();
        let found = entries.binary_search_by_key(&id, |e| e.record_id).ok();
        if let Some(e) = found.and_then(|at| entries.get_mut(at)) {
            if e.state == State::Scheduled || state != State::Completed {
                e.state = state;
                if state == State::Completed {
                    e.completed_ms = Some(now_ms());
                }
            }
        }
    }

    pub fn entries(&self) -> Vec<Entry> {
        self.lock().iter().map(Record::to_entry).collect()
    }

    pub fn dump(&self, group: GroupFacts, reason: &str) -> Dump {
        Dump {
            group: group.name,
            rank: group.rank,
            size: group.size,
            driver: group.driver,
            reason: reason.to_string(),
            epoch: group.epoch,
            dumped_ms: now_ms(),
            timeout_ms: group.timeout_ms,
            comm_lib: group.comm_lib,
            ras: Vec::new(),
            entries: self.entries(),
        }
    }

    /// Writes `dump` to `<dir>/<group>-rank<rank>-<pid>-<n>.json` (every dump a file of
    /// its own, never overwritten: `n` counts the dumps of this group and rank in this
    /// process; written whole to `.<name>.tmp`, then renamed into place).
    pub fn dump_to(dir: &Path, dump: &Dump, n: u64) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let name = format!(
            "{}-rank{}-{}-{n}.json",
            sanitize(&dump.group),
            dump.rank,
            std::process::id()
        );
        let path = dir.join(&name);
        let tmp = dir.join(format!(".{name}.tmp"));
        let text = serde_json::to_string_pretty(dump).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, state: State) -> Entry {
        Entry {
            record_id: 0,
            seq: Some(seq),
            p2p: None,
            op: "all_reduce".into(),
            dtype: "f32".into(),
            count: 4,
            out_count: None,
            root: None,
            call_site: "x.rs:1".into(),
            enqueued_ms: 0,
            completed_ms: None,
            tracks_launch: false,
            started_ms: None,
            state,
        }
    }

    pub(crate) fn facts(name: &str, rank: usize, size: usize) -> GroupFacts {
        GroupFacts {
            name: name.into(),
            rank,
            size,
            epoch: 0,
            driver: "sim".into(),
            timeout_ms: 1000,
            comm_lib: "sim".into(),
        }
    }

    #[test]
    fn the_ring_is_bounded_but_never_evicts_a_pending_entry() {
        let r = FlightRecorder::new(3);
        let first = r.push(entry(0, State::Scheduled));
        for i in 1..10 {
            let id = r.push(entry(i, State::Scheduled));
            r.set_state(id, State::Completed);
        }
        let e = r.entries();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].seq, Some(0), "the pending entry survived");
        assert_eq!(e[2].seq, Some(9));
        r.set_state(first, State::TimedOut);
        assert_eq!(r.entries()[0].state, State::TimedOut);
        // All pending: the ring grows past its capacity rather than lose one.
        let r = FlightRecorder::new(2);
        for i in 0..5 {
            r.push(entry(i, State::Scheduled));
        }
        assert_eq!(r.entries().len(), 5);
    }

    #[test]
    fn a_forgotten_entry_gives_its_id_back() {
        let r = FlightRecorder::new(8);
        let a = r.push(entry(1, State::Completed));
        let refused = r.push(entry(2, State::Scheduled));
        r.remove(refused);
        let b = r.push(entry(2, State::Scheduled));
        assert_eq!((a, b), (1, 2));
        let ids: Vec<u64> = r.entries().iter().map(|e| e.record_id).collect();
        assert_eq!(ids, [1, 2]);
    }

    #[test]
    fn dumps_round_trip_through_json_files() {
        let r = FlightRecorder::new(8);
        r.push(entry(0, State::Scheduled));
        let dump = r.dump(facts("train/g", 3, 4), "on request");
        let dir = tempfile::tempdir().unwrap();
        let path = FlightRecorder::dump_to(dir.path(), &dump, 7).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("train_g-rank3-") && name.ends_with("-7.json"),
            "{name}"
        );
        let again = FlightRecorder::dump_to(dir.path(), &dump, 8).unwrap();
        assert_ne!(path, again, "a later dump never overwrites an earlier one");
        assert_eq!(Dump::read(&path).unwrap(), dump);
        assert!(
            Dump::read(&dir.path().join("missing.json"))
                .unwrap_err()
                .contains("missing.json")
        );
    }
}
