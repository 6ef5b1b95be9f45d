//! NCCL's usage rules that span communicators: one thread inside NCCL per device
//! ("Thread safety"), and the same launch order for communicators that share devices
//! ("Using multiple NCCL communicators concurrently"). The rules of one communicator
//! (matching operations, world size, devices, destroyed peers) are checked where its
//! state lives, in `comm.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::sync::lock;
use crate::{Error, Result};

/// Per-device launch logs for the launch-order rule.
struct LogEntry {
    key: (u64, u64),
    /// The stream it was launched on (two launches on one stream run in order).
    stream: usize,
    /// Set when the launch's task has finished.
    done: Arc<AtomicBool>,
}

/// A fast hasher for the launch log's `(communicator, sequence)` keys, made by this
/// process (so not resistant to chosen keys, which the default hasher pays for on
/// every launch).
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// A map with [`KeyHasher`] (the rules' maps are looked up on every launch).
type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

type Positions = FastMap<(u64, u64), usize>;

#[derive(Default)]
struct DeviceLog {
    order: Vec<LogEntry>,
    position: Positions,
    /// The communicators with launches in `order`: with one, there is nothing to check.
    comms: Vec<u64>,
}

const LOG_LIMIT: usize = 1 << 14;

fn device_logs() -> &'static Mutex<FastMap<usize, DeviceLog>> {
    static L: OnceLock<Mutex<FastMap<usize, DeviceLog>>> = OnceLock::new();
    L.get_or_init(Default::default)
}

fn inside_flags() -> &'static Mutex<FastMap<usize, Arc<AtomicBool>>> {
    static F: OnceLock<Mutex<FastMap<usize, Arc<AtomicBool>>>> = OnceLock::new();
    F.get_or_init(Default::default)
}

/// Marks this thread as inside NCCL on `device` until dropped.
#[derive(Debug)]
pub(crate) struct Inside(Arc<AtomicBool>);

impl Inside {
    pub fn enter(device: usize, op: &'static str) -> Result<Inside> {
        let flag = lock(inside_flags()).entry(device).or_default().clone();
        if flag.swap(true, Ordering::AcqRel) {
            return Err(Error::InvalidUsage {
                op,
                reason: format!(
                    "a second thread entered NCCL on sim device {device} while another was inside \
                     (NCCL allows one thread per device at a time)"
                ),
            });
        }
        Ok(Inside(flag))
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Records launch `seq` of `shared` on this rank's device and checks it against the
/// same communicators' launches on their other devices. Reported: an earlier launch of
/// another communicator, still running on this device's stream, that was launched
/// *after* this one on a device where this one already runs on the same stream. Both
/// streams then wait for each other: a certain deadlock (launches that already
/// finished, or run on other streams, cannot deadlock this way and are not reported).
pub(super) fn check_launch_order(
    comm_id: u64,
    devices: &[usize],
    rank: usize,
    seq: u64,
    stream: usize,
    done: Arc<AtomicBool>,
) -> Result<()> {
    let device = devices[rank];
    let mut logs = lock(device_logs());
    let me = (comm_id, seq);
    if let Some(log) = logs
        .get(&device)
        .filter(|l| l.comms.iter().any(|&c| c != comm_id))
    {
        let earlier = log.order.iter().rev().take(256).filter(|e| {
            e.key.0 != comm_id && e.stream == stream && !e.done.load(Ordering::Acquire)
        });
        for other in earlier {
            for (&d2, log2) in logs.iter() {
                if d2 == device || !devices.contains(&d2) {
                    continue;
                }
                let Some(&mine_there) = log2.position.get(&me) else {
                    continue;
                };
                let mine = &log2.order[mine_there];
                let later_there = log2.order[mine_there + 1..]
                    .iter()
                    .any(|e| e.key == other.key && e.stream == mine.stream);
                let mine_running = !mine.done.load(Ordering::Acquire);
                if later_there && mine_running {
                    return Err(Error::Mismatch {
                        what: "launch order of communicators sharing devices".into(),
                        detail: format!(
                            "on sim device {device} communicator {} op #{} was launched before communicator {} \
                             op #{seq}, but on sim device {d2} after it, on the same stream: each waits for the other",
                            other.key.0, other.key.1, comm_id
                        ),
                    });
                }
            }
        }
    }
    let log = logs.entry(device).or_default();
    log.position.insert(me, log.order.len());
    if !log.comms.contains(&comm_id) {
        log.comms.push(comm_id);
    }
    log.order.push(LogEntry {
        key: me,
        stream,
        done,
    });
    if log.order.len() > LOG_LIMIT {
        log.order.drain(..LOG_LIMIT / 2);
        log.position = log
            .order
            .iter()
            .enumerate()
            .map(|(i, e)| (e.key, i))
            .collect();
        log.comms.clear();
        for e in &log.order {
            if !log.comms.contains(&e.key.0) {
                log.comms.push(e.key.0);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_thread_inside_nccl_on_one_device_is_refused() {
        let first = Inside::enter(63, "test").unwrap();
        let err = Inside::enter(63, "all_reduce").unwrap_err();
        assert!(err.to_string().contains("second thread"), "{err}");
        drop(first);
        assert!(Inside::enter(63, "test").is_ok());
    }
}
