//! NCCL on the sim driver: in-process ranks that rendezvous on the unique id and
//! compute real results.
//!
//! Longer than 600 lines because one communicator's state, the launches that register
//! in it and the stream task that reads it share private types (slots, parts); they
//! are one protocol and are read together.
//!
//! A collective completes only when every rank has issued it; its stream task (on the
//! rank's simulated stream) contributes the rank's input, waits for the others like a
//! GPU kernel spinning on its peers, and writes the rank's output. The usage rules of
//! NCCL are checked, each naming both sides of a violation:
//! - every rank issues the same op, count, type, reduction and root at the same
//!   position ("Collective Operations": "must be called ... with the same count and
//!   datatype", in the same order on every rank);
//! - communicators that share devices are launched in the same order on each device
//!   ("Using multiple NCCL communicators concurrently": operations must be issued in
//!   the same order everywhere, or they can deadlock);
//! - one thread inside NCCL per device ("Thread safety");
//! - no split while the parent has work outstanding ("ncclCommSplit": the parent must
//!   not be used concurrently);
//! - destroy is collective ("ncclCommDestroy"/"ncclCommFinalize"): a collective that
//!   needs a rank whose communicator is gone fails instead of hanging.
//!   Abort is local, as in NCCL: it wakes this rank's blocked operations with an error;
//!   peers need their own timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use super::reduce::{compute, premultiply};
use super::rules::{Inside, check_launch_order};
use super::{SimDevice, SimStream, wait_until};
use crate::comm::op::{Kind, LaunchOp, OpDesc, RedOp};
use crate::sync::lock;
use crate::{Error, Result};

fn next_group_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// One communicator shared by all its ranks.
pub(crate) struct Shared {
    pub id: u64,
    pub size: usize,
    pub devices: Vec<usize>,
    state: Mutex<State>,
    cv: Condvar,
}

#[derive(Default)]
struct Slot {
    /// What each rank issued at this position.
    descs: Vec<Option<OpDesc>>,
    inputs: Vec<Option<Vec<u8>>>,
    outputs: Option<Vec<Option<Vec<u8>>>>,
    taken: usize,
    error: Option<String>,
}

struct State {
    colls: HashMap<u64, Slot>,
    /// Point-to-point: (from, to, n-th message between them).
    p2p: HashMap<(usize, usize, u64), P2p>,
    aborted: Vec<bool>,
    destroyed: Vec<bool>,
    splits: HashMap<u64, SplitSlot>,
}

#[derive(Default)]
struct P2p {
    send: Option<(OpDesc, Option<Vec<u8>>)>,
    recv: Option<OpDesc>,
    consumed: bool,
    error: Option<String>,
}

/// A new rank, its communicator's size, and the communicator.
type SplitResult = Option<(usize, usize, Arc<Shared>)>;

#[derive(Default)]
struct SplitSlot {
    asks: Vec<Option<(Option<u32>, i32)>>,
    results: Option<Vec<SplitResult>>,
}

impl Shared {
    fn new(devices: Vec<usize>) -> Arc<Shared> {
        let size = devices.len();
        Arc::new(Shared {
            id: next_group_id(),
            size,
            devices,
            state: Mutex::new(State {
                colls: HashMap::new(),
                p2p: HashMap::new(),
                aborted: vec![false; size],
                destroyed: vec![false; size],
                splits: HashMap::new(),
            }),
            cv: Condvar::new(),
        })
    }
}

/// A pending rendezvous on one unique id.
struct Rendezvous {
    size: usize,
    devices: Vec<Option<usize>>,
    first: Option<usize>,
    shared: Option<Arc<Shared>>,
}

type Meeting = Arc<(Mutex<Rendezvous>, Condvar)>;

fn meetings() -> &'static Mutex<HashMap<[u8; 128], Meeting>> {
    static M: OnceLock<Mutex<HashMap<[u8; 128], Meeting>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// A rank that has joined a rendezvous; ready once every rank has.
pub(crate) struct Joining {
    meeting: Meeting,
}

impl Joining {
    /// Registers `rank` of `size` on `device` under `id`.
    pub fn join(id: &[u8; 128], rank: usize, size: usize, device: usize) -> Result<Joining> {
        let meeting = lock(meetings())
            .entry(*id)
            .or_insert_with(|| {
                Arc::new((
                    Mutex::new(Rendezvous {
                        size,
                        devices: vec![None; size],
                        first: None,
                        shared: None,
                    }),
                    Condvar::new(),
                ))
            })
            .clone();
        {
            let mut r = lock(&meeting.0);
            if r.size != size {
                return Err(Error::Mismatch {
                    what: "communicator init".into(),
                    detail: format!(
                        "rank {rank} says the world size is {size}, rank {} said {}",
                        r.first.unwrap_or(0),
                        r.size
                    ),
                });
            }
            if r.devices[rank].is_some() {
                return Err(Error::InvalidUsage {
                    op: "communicator init",
                    reason: format!("rank {rank} joined this unique id twice"),
                });
            }
            // NCCL refuses two ranks of one communicator on one GPU.
            if let Some(other) = r.devices.iter().position(|d| *d == Some(device)) {
                return Err(Error::InvalidUsage {
                    op: "communicator init",
                    reason: format!("ranks {other} and {rank} are both on sim device {device}"),
                });
            }
            r.devices[rank] = Some(device);
            r.first.get_or_insert(rank);
            if r.devices.iter().all(Option::is_some) {
                let devices = r.devices.iter().map(|d| d.unwrap_or_default()).collect();
                r.shared = Some(Shared::new(devices));
                lock(meetings()).remove(id);
                meeting.1.notify_all();
            }
        }
        Ok(Joining { meeting })
    }

    pub fn poll(&self) -> Option<Arc<Shared>> {
        lock(&self.meeting.0).shared.clone()
    }

    /// Waits for every rank; `None` waits forever (a blocking init is not abortable).
    pub fn wait(&self, timeout: Option<Duration>) -> Result<Arc<Shared>> {
        let r = lock(&self.meeting.0);
        match wait_until(&self.meeting.1, r, timeout, "communicator init", |r| {
            r.shared.is_some()
        }) {
            Ok(r) => Ok(r.shared.clone().expect("waited for it")),
            Err(_) => {
                let r = lock(&self.meeting.0);
                let missing = r
                    .devices
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.is_none())
                    .map(|(i, _)| i)
                    .collect();
                Err(Error::InitTimeout {
                    waited: timeout.unwrap_or_default(),
                    missing,
                })
            }
        }
    }
}

/// One rank's communicator on the sim driver, from joining to teardown.
pub(crate) struct SimCommunicator {
    rank: usize,
    device: Arc<SimDevice>,
    /// The rendezvous, until every rank has joined.
    joining: Mutex<Option<Joining>>,
    comm: OnceLock<SimComm>,
}

impl SimCommunicator {
    /// Joins rank `rank` of `size` on `device` under `id`; with `wait`, returns only
    /// once every rank has joined (not abortable, as a blocking NCCL init).
    pub fn join(
        id: &[u8; 128],
        rank: usize,
        size: usize,
        device: &Arc<SimDevice>,
        wait: bool,
    ) -> Result<SimCommunicator> {
        let joining = Joining::join(id, rank, size, device.ordinal)?;
        if wait {
            joining.wait(None)?;
        }
        Ok(SimCommunicator {
            rank,
            device: device.clone(),
            joining: Mutex::new(Some(joining)),
            comm: OnceLock::new(),
        })
    }

    /// The communicator, once every rank has joined.
    fn comm(&self, op: &'static str) -> Result<&SimComm> {
        if let Some(c) = self.comm.get() {
            return Ok(c);
        }
        let mut j = lock(&self.joining);
        if let Some(shared) = j.as_ref().and_then(Joining::poll) {
            *j = None;
            let _ = self
                .comm
                .set(SimComm::new(shared, self.rank, self.device.clone()));
            return Ok(self.comm.get().expect("just set"));
        }
        Err(Error::InvalidUsage {
            op,
            reason: "the communicator is not ready: not every rank has joined (wait_ready)".into(),
        })
    }

    pub fn is_ready(&self) -> bool {
        self.comm("is_ready").is_ok()
    }

    pub fn wait_ready(&self, timeout: Duration) -> Result<()> {
        if self.comm("wait_ready").is_ok() {
            return Ok(());
        }
        let j = lock(&self.joining).as_ref().map(|j| j.wait(Some(timeout)));
        if let Some(r) = j {
            r?;
        }
        self.comm("wait_ready").map(|_| ())
    }

    /// Refuses a launch before anything is enqueued when the communicator is not
    /// ready.
    pub fn check_ready(&self, op: &'static str) -> Result<()> {
        self.comm(op).map(|_| ())
    }

    /// Launches `ops` as one group on `stream`, under the device's NCCL lock.
    pub fn launch(&self, stream: &SimStream, ops: Vec<LaunchOp>) -> Result<()> {
        let _guard = self.device.nccl_lock();
        let comm = self.comm("collective")?;
        let _inside = Inside::enter(self.device.ordinal, "collective")?;
        comm.launch(stream, ops)
    }

    pub fn abort(&self) {
        if let Some(c) = self.comm.get() {
            c.abort();
        }
    }

    pub fn destroy(&self) {
        if let Some(c) = self.comm.get() {
            c.destroy();
        }
    }

    /// Splits (see [`SimComm::split`]): this rank's new communicator, if it has a
    /// colour.
    pub fn split(
        &self,
        color: Option<u32>,
        key: i32,
        timeout: Option<Duration>,
    ) -> Result<Option<(usize, usize, SimCommunicator)>> {
        let comm = self.comm("split")?;
        let Some((rank, shared)) = comm.split(color, key, timeout)? else {
            return Ok(None);
        };
        let size = shared.size;
        let child = SimCommunicator {
            rank,
            device: self.device.clone(),
            joining: Mutex::new(None),
            comm: OnceLock::new(),
        };
        let _ = child
            .comm
            .set(SimComm::new(shared, rank, self.device.clone()));
        Ok(Some((rank, size, child)))
    }
}

/// One rank's communicator.
struct SimComm {
    pub shared: Arc<Shared>,
    pub rank: usize,
    pub device: Arc<SimDevice>,
    coll_seq: AtomicU64,
    launches: AtomicU64,
    /// Messages counted per (from, to, is_send): a rank sending to itself counts its
    /// sends and its receives apart.
    p2p_seq: Mutex<HashMap<(usize, usize, bool), u64>>,
    split_seq: AtomicU64,
}

enum Part {
    Coll(u64),
    Send { key: (usize, usize, u64) },
    Recv { key: (usize, usize, u64) },
}

impl SimComm {
    fn new(shared: Arc<Shared>, rank: usize, device: Arc<SimDevice>) -> SimComm {
        SimComm {
            shared,
            rank,
            device,
            coll_seq: AtomicU64::new(0),
            launches: AtomicU64::new(0),
            p2p_seq: Mutex::new(HashMap::new()),
            split_seq: AtomicU64::new(0),
        }
    }

    fn check_alive(&self, st: &State, op: &str) -> Result<()> {
        if st.aborted[self.rank] {
            return Err(Error::Aborted {
                what: format!("{op} on rank {}", self.rank),
            });
        }
        if st.destroyed[self.rank] {
            return Err(Error::InvalidUsage {
                op: "collective",
                reason: "the communicator was destroyed".into(),
            });
        }
        Ok(())
    }

    /// Registers the ops of one launch (checking them against the other ranks'), then
    /// enqueues one task that runs them together on `stream`.
    pub fn launch(&self, stream: &SimStream, ops: Vec<LaunchOp>) -> Result<()> {
        let shared = self.shared.clone();
        let rank = self.rank;
        let done = Arc::new(AtomicBool::new(false));
        let mut parts = Vec::with_capacity(ops.len());
        {
            let mut st = lock(&shared.state);
            self.check_alive(&st, "launch")?;
            // Check everything before registering anything, so that a refused launch
            // leaves no trace.
            let mut next = self.coll_seq.load(Ordering::Relaxed);
            let mut p2p = lock(&self.p2p_seq);
            let mut p2p_next: HashMap<(usize, usize, bool), u64> = HashMap::new();
            for op in &ops {
                match op.desc.kind {
                    Kind::Send | Kind::Recv => {
                        let peer = op.desc.root.unwrap_or(0);
                        let pair = if op.desc.kind == Kind::Send {
                            (rank, peer)
                        } else {
                            (peer, rank)
                        };
                        let counter = (pair.0, pair.1, op.desc.kind == Kind::Send);
                        let n = p2p_next
                            .entry(counter)
                            .or_insert_with(|| *p2p.get(&counter).unwrap_or(&0));
                        let key = (pair.0, pair.1, *n);
                        *n += 1;
                        if let Some(slot) = st.p2p.get(&key) {
                            let other = if op.desc.kind == Kind::Send {
                                slot.recv.as_ref()
                            } else {
                                slot.send.as_ref().map(|(d, _)| d)
                            };
                            if let Some(o) = other {
                                if o.count != op.desc.count || o.dtype != op.desc.dtype {
                                    return Err(Error::Mismatch {
                                        what: format!(
                                            "message #{} from rank {} to rank {}",
                                            key.2, key.0, key.1
                                        ),
                                        detail: format!(
                                            "rank {rank} issued {} but rank {peer} issued {}",
                                            op.desc, o
                                        ),
                                    });
                                }
                            }
                        }
                        parts.push(if op.desc.kind == Kind::Send {
                            Part::Send { key }
                        } else {
                            Part::Recv { key }
                        });
                    }
                    _ => {
                        let seq = next;
                        next += 1;
                        if let Some(slot) = st.colls.get(&seq) {
                            if let Some((other, d)) = slot
                                .descs
                                .iter()
                                .enumerate()
                                .find_map(|(r, d)| d.as_ref().map(|d| (r, d)))
                            {
                                if *d != op.desc {
                                    let err = Error::Mismatch {
                                        what: format!("collective #{seq}"),
                                        detail: format!(
                                            "rank {rank} issued {} where rank {other} issued {}",
                                            op.desc, d
                                        ),
                                    };
                                    st.colls.get_mut(&seq).expect("present").error =
                                        Some(err.to_string());
                                    shared.cv.notify_all();
                                    return Err(err);
                                }
                            }
                        }
                        parts.push(Part::Coll(seq));
                    }
                }
            }
            let launch = self.launches.fetch_add(1, Ordering::Relaxed);
            check_launch_order(
                shared.id,
                &shared.devices,
                rank,
                launch,
                stream.identity(),
                done.clone(),
            )?;
            // Register.
            self.coll_seq.store(next, Ordering::Relaxed);
            for (pair, n) in p2p_next {
                p2p.insert(pair, n);
            }
            for (op, part) in ops.iter().zip(&parts) {
                match part {
                    Part::Coll(seq) => {
                        let slot = st.colls.entry(*seq).or_insert_with(|| Slot {
                            descs: vec![None; shared.size],
                            inputs: vec![None; shared.size],
                            ..Slot::default()
                        });
                        slot.descs[rank] = Some(op.desc.clone());
                    }
                    Part::Send { key } => {
                        st.p2p.entry(*key).or_default().send = Some((op.desc.clone(), None));
                    }
                    Part::Recv { key } => {
                        st.p2p.entry(*key).or_default().recv = Some(op.desc.clone());
                    }
                }
            }
        }
        let device = self.device.clone();
        stream.submit(Box::new(move || {
            let result = run_launch(&shared, rank, &device, &ops, &parts);
            done.store(true, Ordering::Release);
            result
        }))
    }

    pub fn abort(&self) {
        let mut st = lock(&self.shared.state);
        st.aborted[self.rank] = true;
        drop(st);
        self.shared.cv.notify_all();
    }

    pub fn destroy(&self) {
        let mut st = lock(&self.shared.state);
        st.destroyed[self.rank] = true;
        drop(st);
        self.shared.cv.notify_all();
    }

    /// Splits: every rank of this communicator must call it (blocking), with a colour
    /// (`None` opts out) and a key ordering the new ranks.
    pub fn split(
        &self,
        color: Option<u32>,
        key: i32,
        timeout: Option<Duration>,
    ) -> Result<Option<(usize, Arc<Shared>)>> {
        let seq = self.split_seq.fetch_add(1, Ordering::Relaxed);
        let shared = &self.shared;
        let mut st = lock(&shared.state);
        self.check_alive(&st, "split")?;
        let slot = st.splits.entry(seq).or_insert_with(|| SplitSlot {
            asks: vec![None; shared.size],
            results: None,
        });
        slot.asks[self.rank] = Some((color, key));
        if slot.asks.iter().all(Option::is_some) {
            let asks: Vec<_> = slot.asks.iter().map(|a| a.unwrap_or((None, 0))).collect();
            let mut results = vec![None; shared.size];
            let mut colors: Vec<u32> = asks.iter().filter_map(|a| a.0).collect();
            colors.sort_unstable();
            colors.dedup();
            for c in colors {
                let mut members: Vec<usize> =
                    (0..shared.size).filter(|&r| asks[r].0 == Some(c)).collect();
                members.sort_by_key(|&r| (asks[r].1, r));
                let devices = members.iter().map(|&r| shared.devices[r]).collect();
                let sub = Shared::new(devices);
                for (new_rank, &r) in members.iter().enumerate() {
                    results[r] = Some((new_rank, members.len(), sub.clone()));
                }
            }
            slot.results = Some(results);
            shared.cv.notify_all();
        }
        let rank = self.rank;
        let st = wait_until(&shared.cv, st, timeout, "communicator split", |st| {
            st.aborted[rank]
                || st.destroyed[rank]
                || st.splits.get(&seq).is_some_and(|s| s.results.is_some())
        })?;
        self.check_alive(&st, "split")?;
        let results = st
            .splits
            .get(&seq)
            .and_then(|s| s.results.as_ref())
            .expect("waited for them");
        Ok(results[rank].clone().map(|(r, _, s)| (r, s)))
    }
}

/// The stream task of one launch: contribute, wait for the peers, write outputs.
fn run_launch(
    shared: &Shared,
    rank: usize,
    device: &SimDevice,
    ops: &[LaunchOp],
    parts: &[Part],
) -> std::result::Result<(), String> {
    // Phase 1: read inputs (in stream order) and contribute them.
    let mut inputs = Vec::with_capacity(ops.len());
    for op in ops {
        let input = match (op.send, op.send_len) {
            (Some(addr), n) if n > 0 => {
                let mut buf = vec![0u8; n];
                device.read(addr, &mut buf)?;
                Some(buf)
            }
            _ => None,
        };
        let scalar = match op.scalar {
            Some(addr) => {
                let mut b = vec![0u8; op.desc.dtype.size()];
                device.read(addr, &mut b)?;
                Some(b)
            }
            None => None,
        };
        inputs.push((input, scalar));
    }
    let mut st = lock(&shared.state);
    for ((op, part), (input, scalar)) in ops.iter().zip(parts).zip(inputs) {
        match part {
            Part::Coll(seq) => {
                let size = shared.size;
                let slot = st.colls.get_mut(seq).ok_or("collective slot vanished")?;
                let mut input = input.unwrap_or_default();
                // PreMulSum: each rank's input times its own scalar, then a sum.
                match (&op.desc.op, scalar) {
                    (RedOp::PreMulSumHost(s), _) => premultiply(op.desc.dtype, &mut input, s),
                    (RedOp::PreMulSumDevice, Some(s)) => premultiply(op.desc.dtype, &mut input, &s),
                    _ => {}
                }
                slot.inputs[rank] = Some(input);
                if slot.outputs.is_none()
                    && slot.inputs.iter().all(Option::is_some)
                    && slot.descs.iter().all(Option::is_some)
                {
                    let ins: Vec<&[u8]> = slot
                        .inputs
                        .iter()
                        .map(|i| i.as_deref().unwrap_or_default())
                        .collect();
                    let descs: Vec<&OpDesc> = slot
                        .descs
                        .iter()
                        .map(|d| d.as_ref().expect("all present"))
                        .collect();
                    slot.outputs = Some(compute(&descs, &ins, size, *seq));
                    shared.cv.notify_all();
                }
            }
            Part::Send { key } => {
                let slot = st.p2p.entry(*key).or_default();
                if let Some((_, data)) = &mut slot.send {
                    *data = Some(input.unwrap_or_default());
                }
                shared.cv.notify_all();
            }
            Part::Recv { .. } => {}
        }
    }
    // Phase 2: wait until every output this rank needs exists.
    loop {
        if st.aborted[rank] {
            return Err(format!(
                "rank {rank}: the communicator was aborted while its collective waited"
            ));
        }
        let mut ready = true;
        for part in parts {
            match part {
                Part::Coll(seq) => {
                    let slot = st.colls.get(seq).ok_or("collective slot vanished")?;
                    if let Some(e) = &slot.error {
                        return Err(e.clone());
                    }
                    if slot.outputs.is_none() {
                        if let Some(gone) = missing_destroyed(&st, &slot.inputs) {
                            return Err(format!(
                                "collective #{seq} can never complete: rank {gone} destroyed its communicator"
                            ));
                        }
                        ready = false;
                    }
                }
                Part::Recv { key } => {
                    let slot = st.p2p.get(key).ok_or("message slot vanished")?;
                    if slot.send.as_ref().and_then(|(_, d)| d.as_ref()).is_none() {
                        if st.destroyed[key.0] {
                            return Err(format!(
                                "rank {} destroyed its communicator before sending",
                                key.0
                            ));
                        }
                        ready = false;
                    }
                }
                Part::Send { .. } => {}
            }
        }
        if ready {
            break;
        }
        st = shared.cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
    // Phase 3: write outputs.
    let mut writes: Vec<(u64, Vec<u8>)> = Vec::new();
    for (op, part) in ops.iter().zip(parts) {
        match part {
            Part::Coll(seq) => {
                let size = shared.size;
                let slot = st.colls.get_mut(seq).ok_or("collective slot vanished")?;
                let out = slot.outputs.as_mut().and_then(|o| o[rank].take());
                if let (Some(addr), Some(out)) = (op.recv, out) {
                    writes.push((addr, out));
                }
                slot.taken += 1;
                if slot.taken == size {
                    st.colls.remove(seq);
                }
            }
            Part::Recv { key } => {
                let slot = st.p2p.get_mut(key).ok_or("message slot vanished")?;
                let data = slot
                    .send
                    .as_mut()
                    .and_then(|(_, d)| d.take())
                    .unwrap_or_default();
                slot.consumed = true;
                if let Some(addr) = op.recv {
                    writes.push((addr, data));
                }
                shared.cv.notify_all();
            }
            Part::Send { .. } => {}
        }
    }
    drop(st);
    for (addr, data) in writes {
        device.write(addr, &data)?;
    }
    // Phase 4: a send completes when its receiver has taken the data (NCCL sends
    // are rendezvous: outside a group, a send to a rank that first sends to us hangs).
    let mut st = lock(&shared.state);
    loop {
        if st.aborted[rank] {
            return Err(format!(
                "rank {rank}: the communicator was aborted while a send waited"
            ));
        }
        let mut done = true;
        for part in parts {
            if let Part::Send { key } = part {
                let slot = st.p2p.get(key).ok_or("message slot vanished")?;
                if let Some(e) = &slot.error {
                    return Err(e.clone());
                }
                if !slot.consumed {
                    if st.destroyed[key.1] {
                        return Err(format!(
                            "rank {} destroyed its communicator before receiving",
                            key.1
                        ));
                    }
                    done = false;
                }
            }
        }
        if done {
            for part in parts {
                if let Part::Send { key } = part {
                    st.p2p.remove(key);
                }
            }
            return Ok(());
        }
        st = shared.cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

fn missing_destroyed(st: &State, inputs: &[Option<Vec<u8>>]) -> Option<usize> {
    inputs
        .iter()
        .enumerate()
        .find(|(r, i)| i.is_none() && st.destroyed[*r])
        .map(|(r, _)| r)
}
