//! Memory over a long run (issue 9, item 1): 1,000,000 8 B all-reduces on one rank,
//! through a `ProcessGroup` (`Work`s waited in bursts of 1,000 with a `WorkSet`) and
//! through a bare `Communicator` (a stream synchronize per burst). Prints the resident
//! set size every 100,000 operations and the growth from the first sample (after
//! warm-up) to the last, per operation. Run with
//! `cargo bench -p collectives --bench rss` (`NCCL_RS_BENCH_OPS=N` for another count).

use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup, WorkSet};
use nccl_safe::{Communicator, Config, Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

const BURST: usize = 1000;
const SAMPLE: usize = 100_000;
const LONG: Duration = Duration::from_secs(600);

/// Resident set size in KiB, from `/proc/self/status`.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `ops` operations as bursts of `burst_fn`, sampling the RSS.
fn run(what: &str, ops: usize, mut burst_fn: impl FnMut()) {
    let t = Instant::now();
    let mut samples = Vec::new();
    for done in (BURST..=ops).step_by(BURST) {
        burst_fn();
        if done % SAMPLE == 0 || done == ops {
            samples.push((done, rss_kib()));
        }
    }
    let line: Vec<String> = samples
        .iter()
        .map(|(n, kib)| format!("{}k:{:.1}", n / 1000, *kib as f64 / 1024.0))
        .collect();
    println!("{what}: RSS MiB at ops {}", line.join(" "));
    if let (Some(first), Some(last)) = (samples.first(), samples.last()) {
        let grew = last.1 as f64 - first.1 as f64;
        println!(
            "{what}: {} ops in {:.1} s; RSS {:+.1} MiB from {}k to {}k ops ({:+.2} bytes/op)",
            ops,
            t.elapsed().as_secs_f64(),
            grew / 1024.0,
            first.0 / 1000,
            last.0 / 1000,
            grew * 1024.0 / (last.0 - first.0).max(1) as f64
        );
    }
}

fn main() {
    let ops: usize = std::env::var("NCCL_RS_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if std::env::args().any(|a| a == "--bench") {
            1_000_000
        } else {
            2_000 // `cargo test` runs benches without `--bench`: a smoke run
        });
    let dev = Device::sim(0).unwrap();
    let stream = Stream::new(&dev).unwrap();
    let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), Options::new()).unwrap();
    let mut buf = DeviceBuffer::from_slice(&stream, &[1.0f32, 2.0]).unwrap();
    stream.synchronize().unwrap();
    run("ProcessGroup", ops, || {
        let mut set = WorkSet::new();
        for _ in 0..BURST {
            set.push(pg.all_reduce(&mut buf, ReduceOp::Sum).unwrap());
        }
        set.wait_host(LONG).unwrap();
    });
    drop(pg);
    let cfg = Config::new().blocking(false);
    let comm = Communicator::init(&dev, 0, 1, &UniqueId::random(), &cfg).unwrap();
    comm.wait_ready(LONG).unwrap();
    run("Communicator", ops, || {
        for _ in 0..BURST {
            comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &stream)
                .unwrap();
        }
        stream.synchronize().unwrap();
    });
}
