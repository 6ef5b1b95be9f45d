//! A dump in the format of PyTorch's flight recorder, version 2.10 (the pickle that
//! `torchfrtrace`, i.e. `torch.distributed.flight_recorder`, reads): one file per
//! rank named `nccl_trace_rank_<rank>`, holding `version`, `comm_lib_version`,
//! `pg_config`, `pg_status` and `entries`.
//!
//! What maps how:
//! - each dump is one process group (`pg_config` has one group, named after ours; its
//!   `desc` says which of our groups and epoch); ranks are the group's;
//! - an entry's `profiling_name` is `nccl:<op>`, with PyTorch's op names; our warm-up
//!   is the 1-byte all-reduce it is, and a `grouped` call is a `coalesced` op;
//! - point-to-point operations are left out: the analyzer pairs a send with a receive
//!   only inside a coalesced group, and takes a lone one whose number equals the
//!   collective before it for part of a group with it, which stops it with an error
//!   (our own hang report lists pending point-to-point operations). So are entries of
//!   no collective sequence (the warm-up's connections, changes of membership);
//! - sizes are flat (`[[n]]`), gathered sides `size × n`, as PyTorch's flat
//!   (`_base`) collectives record them; dtypes are PyTorch's names (`Float`, ...);
//! - `state` is `completed` for a completed operation, `started` for one seen
//!   launched (a group with `Options::launch_events`: NCCL's launch-completion event,
//!   with `time_discovered_started_ns`), and `scheduled` otherwise; PyTorch has no
//!   state for a failed or timed-out one (our own state is kept in the extra key
//!   `nccl_rs_state`, which the analyzer ignores);
//! - `frames` is the call site (`file:line`) under the name of the public call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::pickle::{Value, dict, to_bytes};
use super::{Dump, Entry, State, sanitize};

/// The format's version, as PyTorch 2.8 and later write it.
pub(crate) const VERSION: &str = "2.10";

/// The file name PyTorch's analyzer expects by default: this prefix, then the rank.
pub const FILE_PREFIX: &str = "nccl_trace_rank_";

/// PyTorch's name of an element type (`c10::toString` of its scalar type).
fn torch_dtype(ours: &str) -> &str {
    match ours {
        "i8" => "Char",
        "u8" => "Byte",
        "i32" => "Int",
        "u32" => "UInt32",
        "i64" => "Long",
        "u64" => "UInt64",
        "f16" => "Half",
        "bf16" => "BFloat16",
        "f32" => "Float",
        "f64" => "Double",
        "f8e4m3" => "Float8_e4m3fn",
        "f8e5m2" => "Float8_e5m2",
        other => other,
    }
}

fn sizes(list: &[i64]) -> Value {
    Value::List(
        list.iter()
            .map(|&n| Value::List(vec![Value::Int(n)]))
            .collect(),
    )
}

/// PyTorch's op name, and the input and output sizes (one flat tensor each; none on a
/// rank that has no such side), for an entry of a group of `size` on `rank`.
fn shape(e: &Entry, rank: usize, size: usize) -> Option<(String, Vec<i64>, Vec<i64>)> {
    let n = e.count as i64;
    let all = n.saturating_mul(size as i64);
    let on_root = e.root == Some(rank);
    Some(match e.op.as_str() {
        "all_reduce" | "broadcast" | "reduce" => (e.op.clone(), vec![n], vec![n]),
        "warmup" => ("all_reduce".into(), vec![n], vec![n]),
        "barrier" => ("barrier".into(), vec![n], vec![n]),
        "all_gather" => ("all_gather".into(), vec![n], vec![all]),
        "reduce_scatter" => ("reduce_scatter".into(), vec![all], vec![n]),
        "all_to_all" => ("all_to_all_single".into(), vec![n], vec![n]),
        // The analyzer checks an all-to-all's sizes only summed over the group, as
        // an uneven one needs: what every rank sent against what every rank received.
        "all_to_allv" => (
            "all_to_all_single".into(),
            vec![n],
            vec![e.out_count.map_or(n, |m| m as i64)],
        ),
        // `count` is the total of every rank's block, the same on every rank: the
        // analyzer compares it across ranks, as it compares an even one's sizes.
        "all_gather_v" | "reduce_scatter_v" => (e.op.clone(), vec![n], vec![n]),
        "gather" => (
            "gather".into(),
            vec![n],
            if on_root { vec![all] } else { vec![] },
        ),
        "scatter" => (
            "scatter".into(),
            if on_root { vec![all] } else { vec![] },
            vec![n],
        ),
        "group" => ("coalesced".into(), vec![], vec![]),
        _ => return None,
    })
}

/// The public call an op goes through (the frame's function name).
fn call_name(op: &str) -> String {
    match op {
        "warmup" => "ProcessGroup::connect (warm-up)".into(),
        "group" => "ProcessGroup::grouped".into(),
        other => format!("ProcessGroup::{other}"),
    }
}

/// `file:line` as PyTorch's frame (`name`, `filename`, `line`); a step of the
/// library's own (`<process group warm-up>`) has line 0.
fn frame(op: &str, call_site: &str) -> Value {
    let (file, line) = match call_site.rsplit_once(':') {
        Some((f, l)) if l.parse::<i64>().is_ok() => (f, l.parse().unwrap_or(0)),
        _ => (call_site, 0),
    };
    dict([
        ("name", call_name(op).into()),
        ("filename", file.into()),
        ("line", Value::Int(line)),
    ])
}

fn ms_to_ns(ms: u64) -> i64 {
    (ms as i64).saturating_mul(1_000_000)
}

fn our_state(s: State) -> &'static str {
    match s {
        State::Scheduled => "scheduled",
        State::Completed => "completed",
        State::Failed => "failed",
        State::TimedOut => "timed_out",
    }
}

/// The group's name in PyTorch's `pg_config` (one per epoch: an epoch's ranks are
/// numbered anew).
pub(crate) fn pg_name(dump: &Dump) -> String {
    if dump.epoch == 0 {
        dump.group.clone()
    } else {
        format!("{}-epoch{}", dump.group, dump.epoch)
    }
}

/// `dump` as the value PyTorch's flight recorder pickles.
pub(crate) fn to_value(dump: &Dump) -> Value {
    let name = pg_name(dump);
    let desc = format!(
        "nccl-rs group {} (epoch {}, {} driver)",
        dump.group, dump.epoch, dump.driver
    );
    let timeout_ms = i64::try_from(dump.timeout_ms).unwrap_or(i64::MAX);
    let mut entries = Vec::new();
    let (mut enqueued, mut started, mut completed) = (-1i64, -1i64, -1i64);
    for e in &dump.entries {
        let Some(seq) = e.seq.filter(|_| e.p2p.is_none()) else {
            continue;
        };
        let Some((op, ins, outs)) = shape(e, dump.rank, dump.size) else {
            continue;
        };
        let seq = seq as i64;
        enqueued = enqueued.max(seq);
        let done = e.state == State::Completed;
        if done {
            completed = completed.max(seq);
        }
        if e.launched() == Some(true) {
            started = started.max(seq);
        }
        let dtypes = |side: &[i64]| {
            Value::List(
                side.iter()
                    .map(|_| Value::from(torch_dtype(&e.dtype)))
                    .collect(),
            )
        };
        let state = match (done, e.started_ms) {
            (true, _) => "completed",
            (false, Some(_)) => "started",
            (false, None) => "scheduled",
        };
        entries.push(dict([
            ("frames", Value::List(vec![frame(&e.op, &e.call_site)])),
            ("record_id", Value::Int(e.record_id as i64)),
            ("pg_id", Value::Int(0)),
            (
                "process_group",
                Value::Tuple(vec![name.clone().into(), desc.clone().into()]),
            ),
            ("collective_seq_id", Value::Int(seq)),
            ("p2p_seq_id", Value::Int(0)),
            ("op_id", Value::Int(e.record_id as i64)),
            ("profiling_name", format!("nccl:{op}").into()),
            ("time_created_ns", Value::Int(ms_to_ns(e.enqueued_ms))),
            ("input_sizes", sizes(&ins)),
            ("input_dtypes", dtypes(&ins)),
            ("output_sizes", sizes(&outs)),
            ("output_dtypes", dtypes(&outs)),
            ("state", state.into()),
            (
                "time_discovered_started_ns",
                e.started_ms.map(ms_to_ns).into(),
            ),
            (
                "time_discovered_completed_ns",
                e.completed_ms.filter(|_| done).map(ms_to_ns).into(),
            ),
            ("retired", Value::Bool(e.state != State::Scheduled)),
            ("timeout_ms", Value::Int(timeout_ms)),
            ("is_p2p", Value::Bool(false)),
            ("nccl_rs_state", our_state(e.state).into()),
        ]));
    }
    let ranks: Vec<String> = (0..dump.size).map(|r| r.to_string()).collect();
    let mut top = dict([
        ("version", VERSION.into()),
        ("comm_lib_version", dump.comm_lib.clone().into()),
        (
            "pg_config",
            Value::Dict(vec![(
                name.clone().into(),
                dict([
                    ("name", name.into()),
                    ("desc", desc.into()),
                    ("ranks", format!("[{}]", ranks.join(", ")).into()),
                ]),
            )]),
        ),
        (
            "pg_status",
            Value::Dict(vec![(
                "0".into(),
                dict([
                    ("last_enqueued_collective", Value::Int(enqueued)),
                    (
                        "last_started_collective",
                        Value::Int(started.max(completed)),
                    ),
                    ("last_completed_collective", Value::Int(completed)),
                ]),
            )]),
        ),
        ("entries", Value::List(entries)),
    ]);
    if !dump.ras.is_empty() {
        if let Value::Dict(items) = &mut top {
            let lines = dump.ras.iter().map(|l| l.clone().into()).collect();
            items.push(("nccl_rs_ras".into(), Value::List(lines)));
        }
    }
    top
}

/// Where `dump` goes under `dir`: `<dir>/torch/<group>/nccl_trace_rank_<rank>`, with
/// `-epoch<e>` after the group's name for later epochs (the folder to give
/// `torchfrtrace`).
pub(crate) fn path_under(dir: &Path, dump: &Dump) -> PathBuf {
    dir.join("torch")
        .join(sanitize(&pg_name(dump)))
        .join(format!("{FILE_PREFIX}{}", dump.rank))
}

/// Writes `dump` to [`path_under`]`(dir)`, whole (a hidden temporary file renamed into
/// place); a later dump of the same rank replaces it, as PyTorch's do.
pub(crate) fn write_under(dir: &Path, dump: &Dump) -> std::io::Result<PathBuf> {
    let path = path_under(dir, dump);
    let folder = path.parent().unwrap_or(dir);
    std::fs::create_dir_all(folder)?;
    // Two dumps of one rank may be written at once (each on a thread of its own). The
    // name neither holds the file prefix nor ends in digits: the analyzer reads every
    // file of the folder that does, and a leftover of a killed writer would stop it.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let tmp = folder.join(format!(
        ".writing-rank{}-{}-{}.partial",
        dump.rank,
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, to_bytes(&to_value(dump)))?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests;
