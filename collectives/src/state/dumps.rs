//! Flight-record dumps: written on threads of their own in the group's formats, the
//! wait for them as the group goes, and NCCL's RAS asked after a timeout.

use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use super::{Inner, lock, registry};
use crate::Error;
use crate::recorder::{Dump, FlightRecorder};

/// Dumps being written (each on a thread of its own): the group's handle waits for
/// them, bounded, as it goes, so that a program exiting on its error leaves them whole.
#[derive(Default)]
pub(crate) struct Writing {
    count: Mutex<usize>,
    cv: Condvar,
}

/// Counts one dump being written until dropped.
pub(crate) struct WritingOne(Arc<Writing>);

impl Writing {
    pub(crate) fn start(self: &Arc<Self>) -> WritingOne {
        *lock(&self.count) += 1;
        WritingOne(self.clone())
    }

    /// Waits at most `limit` for every dump under way; `false` if some are left.
    pub(crate) fn wait(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut n = lock(&self.count);
        while *n > 0 {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            n = self
                .cv
                .wait_timeout(n, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

impl Drop for WritingOne {
    fn drop(&mut self) {
        *lock(&self.0.count) -= 1;
        self.0.cv.notify_all();
    }
}

/// How long a group's handle waits, as it goes, for dumps being written.
pub(crate) const DUMP_WAIT: Duration = Duration::from_secs(1);

/// How long a timed-out rank's dump thread waits for NCCL's RAS service.
pub(crate) const RAS_DEADLINE: Duration = Duration::from_secs(3);

/// Where a group on `driver` asks NCCL's RAS service after a timeout: on cuda, where
/// NCCL runs it ([`crate::ras::address`]); on the sim, only where `NCCL_RAS_ADDR`
/// names a server (there is no RAS there otherwise).
fn ras_address(driver: nccl_safe::DriverKind) -> Option<String> {
    match driver {
        nccl_safe::DriverKind::Cuda => crate::ras::address(),
        _ => std::env::var_os("NCCL_RAS_ADDR").and_then(|_| crate::ras::address()),
    }
}

/// Writes `dump` in `format` under `dir` (`n`: the JSON file's number), logging where.
fn write_dump(
    dir: &std::path::Path,
    dump: &Dump,
    n: Option<u64>,
    format: crate::DumpFormat,
    name: &str,
) {
    let mut written = Vec::new();
    if let Some(n) = n {
        written.push(FlightRecorder::dump_to(dir, dump, n));
    }
    if format.torch() {
        written.push(dump.write_torch(dir));
    }
    for w in written {
        match w {
            Ok(path) => log::error!("group {name}: flight recorder dumped to {}", path.display()),
            Err(e) => log::error!("group {name}: flight recorder dump failed: {e}"),
        }
    }
}

/// Runs `f` on a thread named `thread`, or logs why it could not start (what `f`
/// owns is dropped then, counters included).
fn spawn_named(thread: &str, group: &str, f: impl FnOnce() + Send + 'static) {
    if let Err(e) = std::thread::Builder::new().name(thread.into()).spawn(f) {
        log::error!("group {group}: cannot start a thread for the flight recorder: {e}");
    }
}

impl Inner {
    /// Writes the flight record to the dump folder, if one is configured, on a thread
    /// of its own (never waited for), in the group's formats: every JSON dump has a
    /// file of its own; PyTorch's has one per rank.
    pub(crate) fn dump(&self, reason: &str) {
        self.dump_asking_ras(reason, false);
    }

    /// [`Inner::dump`]; with `ask_ras` (an operation timed out), NCCL's RAS service is
    /// then asked what it thinks of the job (bounded by [`RAS_DEADLINE`], still on
    /// the dump thread), and the dump is written again with its verdict.
    pub(crate) fn dump_asking_ras(&self, reason: &str, ask_ras: bool) {
        let ras = ask_ras.then(|| ras_address(self.device.driver())).flatten();
        let dir = self.options.dump_dir.clone();
        if dir.is_none() && ras.is_none() {
            return;
        }
        let dump = self.snapshot(reason);
        let format = self.options.dump_format;
        let n = (dir.is_some() && format.json())
            .then(|| FlightRecorder::next_dump(&self.options.name, self.rank));
        let name = self.options.name.clone();
        // The files are written at once, on a thread the group's drop waits for; RAS
        // is asked on another, which the communicator's abort waits for (neither waits
        // for the other), and the files are written again with its answer.
        let (written, first_written) = std::sync::mpsc::channel::<()>();
        if let Some(dir) = dir.clone() {
            let (dump, name) = (dump.clone(), name.clone());
            let one = self.writing.start();
            spawn_named("nccl-rs-dump", &self.options.name, move || {
                write_dump(&dir, &dump, n, format, &name);
                drop(one);
                let _ = written.send(());
            });
        }
        if let Some(addr) = ras {
            let asking = self.asking_ras.start();
            let mut dump = dump;
            spawn_named("nccl-rs-ras", &self.options.name, move || {
                dump.ras = match crate::ras::query(&addr, RAS_DEADLINE) {
                    Ok(status) => status.verdict(),
                    Err(e) => vec![format!("not asked: {e}")],
                };
                drop(asking);
                for line in &dump.ras {
                    log::error!("group {name}: NCCL RAS: {line}");
                }
                if let Some(dir) = dir {
                    // After the first write, so that it cannot replace this one.
                    let _ = first_written.recv_timeout(RAS_DEADLINE);
                    write_dump(&dir, &dump, n, format, &name);
                }
            });
        }
    }

    /// Asks the group's other ranks in this process to dump (their records show what
    /// they had issued when this rank gave up).
    pub(super) fn ask_peers_to_dump(&self, err: &Error) {
        let Some(key) = self.peers_key else {
            return;
        };
        let peers: Vec<Arc<Inner>> = lock(registry())
            .get(&key)
            .map(|l| l.iter().filter_map(Weak::upgrade).collect())
            .unwrap_or_default();
        for p in peers.iter().filter(|p| p.rank != self.rank) {
            p.dump(&format!("rank {} of the group failed: {err}", self.rank));
        }
    }

    pub(crate) fn snapshot(&self, reason: &str) -> Dump {
        let driver = self.device.driver().to_string();
        let comm_lib = if driver == "sim" {
            "sim".to_string()
        } else {
            match nccl_safe::nccl_version() {
                Ok(v) => format!("nccl {v}"),
                Err(_) => "nccl".to_string(),
            }
        };
        let facts = crate::recorder::GroupFacts {
            name: self.options.name.clone(),
            rank: self.rank,
            size: self.size,
            epoch: self.epoch,
            driver,
            timeout_ms: u64::try_from(self.options.timeout.as_millis()).unwrap_or(u64::MAX),
            comm_lib,
        };
        self.recorder.dump(facts, reason)
    }

    /// The flight record as a dump, also written to the dump folder (if any).
    pub(crate) fn dump_on_request(&self, reason: &str) -> Dump {
        self.dump(reason);
        self.snapshot(reason)
    }
}
