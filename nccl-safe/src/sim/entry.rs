//! How one rank's part of an operation is written in the control segment (packed
//! descriptions, labels), read back for messages that name both sides, and the
//! positions (`Part`) a launch takes.

use std::sync::atomic::Ordering;

use super::SimStream;
use super::live::Live;
use super::segment::{Entry, NONE, label, set_label};
use crate::DType;
use crate::base::op::{CallLabel, Kind, LaunchOp, OpDesc, RedOp};

/// One operation of a launch, with its position.
#[derive(Clone, Copy, Debug)]
pub(super) enum Part {
    Coll { seq: u64 },
    Send { to: usize, n: u64 },
    Recv { from: usize, n: u64 },
}

/// A stream's identity across processes: its process's nonce (not the pid, which
/// processes of different pid namespaces may share), device, index.
pub(super) fn stream_id(stream: &SimStream) -> u64 {
    (super::os::process_nonce() as u32 as u64) << 32
        | (stream.device.ordinal as u64 & 0xff) << 24
        | (stream.index() & 0xff_ffff)
}

fn kind_code(k: Kind) -> u32 {
    Kind::ALL.iter().position(|x| *x == k).unwrap_or(0) as u32
}

fn op_code(op: &RedOp) -> u32 {
    match op {
        RedOp::None => 0,
        RedOp::Sum => 1,
        RedOp::Prod => 2,
        RedOp::Max => 3,
        RedOp::Min => 4,
        RedOp::Avg => 5,
        RedOp::PreMulSumHost(_) | RedOp::PreMulSumDevice => 6,
    }
}

fn pack(desc: &OpDesc) -> u32 {
    let dtype = DType::EVERY
        .iter()
        .position(|d| *d == desc.dtype)
        .unwrap_or(0) as u32;
    kind_code(desc.kind)
        | dtype << 8
        | op_code(&desc.op) << 16
        | u32::from(desc.root.is_some()) << 24
}

/// The description an entry holds, for messages.
pub(super) fn unpack(e: &Entry) -> OpDesc {
    let d = e.desc.load(Ordering::Relaxed);
    let op = match d >> 16 & 0xff {
        1 => RedOp::Sum,
        2 => RedOp::Prod,
        3 => RedOp::Max,
        4 => RedOp::Min,
        5 => RedOp::Avg,
        6 => RedOp::PreMulSumDevice,
        _ => RedOp::None,
    };
    OpDesc {
        kind: Kind::ALL[(d & 0xff) as usize % Kind::ALL.len()],
        dtype: DType::EVERY[(d >> 8 & 0xff) as usize % DType::EVERY.len()],
        count: e.count.load(Ordering::Relaxed) as usize,
        root: (d >> 24 & 1 == 1).then(|| e.root.load(Ordering::Relaxed) as usize),
        op,
    }
}

/// Whether two ranks' entries describe one operation: the same description and,
/// when both were issued under a checked call site, the same site.
pub(super) fn same(a: &Entry, b: &Entry) -> bool {
    let (sa, sb) = (
        a.site.load(Ordering::Relaxed),
        b.site.load(Ordering::Relaxed),
    );
    a.desc.load(Ordering::Relaxed) == b.desc.load(Ordering::Relaxed)
        && a.config.load(Ordering::Relaxed) == b.config.load(Ordering::Relaxed)
        && a.root.load(Ordering::Relaxed) == b.root.load(Ordering::Relaxed)
        && a.count.load(Ordering::Relaxed) == b.count.load(Ordering::Relaxed)
        && (sa == 0 || sb == 0 || sa == sb)
}

/// `rank r (pid p) issued all_reduce(...) (label)`.
/// How this rank's messages name an operation: the caller's label (the collectives
/// layer's `all_reduce #7 at train.rs:57 (...)`: one number per operation, the
/// user's), else `fallback` (the sim's own count, from 1).
pub(super) fn op_name(label: &CallLabel, fallback: impl FnOnce() -> String) -> String {
    if label.is_empty() {
        fallback()
    } else {
        label.to_string()
    }
}

pub(super) fn issued(live: &Live, r: usize, e: &Entry) -> String {
    let l = label(e);
    let at = if l.is_empty() {
        String::new()
    } else {
        format!(" [{l}]")
    };
    let key = e.config.load(Ordering::Relaxed);
    let config = match key & !LAUNCH_EVENT_BIT {
        0 => String::new(),
        key => format!(" with per-call config #{key:016x}"),
    };
    let config = if key & LAUNCH_EVENT_BIT != 0 {
        format!("{config} recording a launch event")
    } else {
        config
    };
    format!("{} issued {}{config}{at}", live.who(r), unpack(e))
}

/// The bit of an entry's config key that says the operation records its launch's
/// launch-completion event (NCCL: every rank gives one, or none does).
const LAUNCH_EVENT_BIT: u64 = 1 << 63;

/// What of `op`'s per-call settings must agree across ranks, as one number (0: none):
/// the config's key, and whether it records a launch event.
fn config_key(op: &LaunchOp) -> u64 {
    let config = op
        .config
        .as_ref()
        .map_or(0, |c| (c.key() & !LAUNCH_EVENT_BIT).max(1));
    if op.launch_event {
        config | LAUNCH_EVENT_BIT
    } else {
        config
    }
}

pub(super) fn write_entry(e: &Entry, op: &LaunchOp, stream: u64) {
    e.desc.store(pack(&op.desc), Ordering::Relaxed);
    e.root
        .store(op.desc.root.unwrap_or(0) as u32, Ordering::Relaxed);
    e.count.store(op.desc.count as u64, Ordering::Relaxed);
    e.site.store(op.site, Ordering::Relaxed);
    e.config.store(config_key(op), Ordering::Relaxed);
    e.stream.store(stream, Ordering::Relaxed);
    e.send.store(NONE, Ordering::Relaxed);
    e.recv.store(NONE, Ordering::Relaxed);
    set_label(e, &op.label);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::op::LaunchOp;

    #[test]
    fn descriptions_survive_packing() {
        for kind in Kind::ALL {
            for dtype in DType::EVERY {
                let d = OpDesc {
                    kind,
                    count: 12345,
                    dtype,
                    root: Some(3),
                    op: RedOp::Max,
                };
                let e: Entry = Entry::default();
                write_entry(
                    &e,
                    &LaunchOp {
                        desc: d.clone(),
                        send_len: 0,
                        send: None,
                        recv: None,
                        scalar: None,
                        label: "x".into(),
                        site: 0,
                        config: None,
                        launch_event: false,
                    },
                    7,
                );
                assert_eq!(unpack(&e), d);
                assert_eq!(unpack(&e).to_string(), d.to_string());
            }
        }
    }
}
