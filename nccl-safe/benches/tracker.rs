//! Host cost per operation with many accesses pending on one buffer (issue 13, row 4;
//! issue 26, item 2): 4,096 fills of distinct views of a 64 MiB buffer on a gated
//! (held) stream, then one whole-buffer fill on another stream, which must wait for
//! all of them. The buffer is reused across repetitions, as real code reuses its
//! buffers: each round starts with the last round's uses tracked. Prints, per
//! repetition and as the median of 5: the cost of the last tenth of the views over the
//! first tenth, and the time of the joining op. Run with
//! `cargo bench -p nccl-safe --bench tracker`.

use std::time::{Duration, Instant};

use nccl_safe::{Device, DeviceBuffer, Gate, Stream};

/// Views, buffer bytes and repetitions; `cargo test` (which runs benches without
/// `--bench`) gets a small smoke run instead.
fn sizes() -> (usize, usize, usize) {
    if std::env::args().any(|a| a == "--bench") {
        (4096, 64 << 20, 5)
    } else {
        (256, 1 << 20, 1)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One repetition on `buf`: (last tenth / first tenth, joining op, the same op alone).
fn once(dev: &Device, buf: &mut DeviceBuffer<u8>) -> (f64, Duration, Duration) {
    let (views, bytes, _) = sizes();
    let (held, other) = (Stream::new(dev).unwrap(), Stream::new(dev).unwrap());
    let gate = Gate::new(dev).unwrap();
    held.synchronize().unwrap();
    // The same whole-buffer op with nothing pending, for comparison.
    let t = Instant::now();
    buf.fill(&other, 3).unwrap();
    let alone = t.elapsed();
    other.synchronize().unwrap();
    held.wait_gate(&gate).unwrap();
    let chunk = bytes / views;
    let mut cost = Vec::with_capacity(views);
    for i in 0..views {
        let t = Instant::now();
        buf.view_mut(i * chunk..(i + 1) * chunk)
            .unwrap()
            .fill(&held, 1)
            .unwrap();
        cost.push(t.elapsed());
    }
    let tenth = views / 10;
    let first: Duration = cost[..tenth].iter().sum();
    let last: Duration = cost[views - tenth..].iter().sum();
    let t = Instant::now();
    buf.fill(&other, 2).unwrap();
    let join = t.elapsed();
    gate.open();
    other.synchronize().unwrap();
    held.synchronize().unwrap();
    (last.as_secs_f64() / first.as_secs_f64(), join, alone)
}

fn main() {
    // SAFETY: set before any other thread exists; the held stream must hold every
    // operation (4,096 fills with their poisons and events) without blocking the host.
    unsafe { std::env::set_var("NCCL_RS_SIM_QUEUE_DEPTH", "100000") };
    let dev = Device::sim(0).unwrap();
    let (views, bytes, reps) = sizes();
    let (mut ratios, mut joins) = (Vec::new(), Vec::new());
    let setup = Stream::new(&dev).unwrap();
    let mut buf = DeviceBuffer::<u8>::zeroed(&setup, bytes).unwrap();
    setup.synchronize().unwrap();
    for rep in 0..reps {
        let (ratio, join, alone) = once(&dev, &mut buf);
        println!(
            "rep {rep}: last/first tenth {ratio:.2}  joining op {:.3} ms  (the same op with nothing pending {:.3} ms)",
            join.as_secs_f64() * 1e3,
            alone.as_secs_f64() * 1e3
        );
        ratios.push(ratio);
        joins.push(join.as_secs_f64() * 1e3);
    }
    println!(
        "tracker, {views} views of {} MiB pending: last/first tenth {:.2} (target <= 1.5), joining op {:.3} ms (target <= 0.5), median of {reps}",
        bytes >> 20,
        median(&mut ratios),
        median(&mut joins)
    );
}
