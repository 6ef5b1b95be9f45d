//! Gradient buckets awaited with `async`/`await`: a `Work` is a future, so the
//! all-reduces of several buckets are awaited together with `join`, each bucket's
//! optimizer step starting as soon as its own all-reduce is done.
//!
//! Two ranks. "Backward" produces the buckets last layer first (bucket 2, 1, 0); each
//! rank issues a bucket's all-reduce as soon as the bucket is ready. Rank 1 is slow to
//! produce bucket 0 (`--lag MS`, 300 by default), so on rank 0 buckets 2 and 1 finish
//! first and their steps run while bucket 0 is still in flight; the executor's thread
//! is never blocked by a wait. Each step averages the bucket (a scale by 1/2 on the
//! compute stream, ordered after the all-reduce); the values are the ranks plus one,
//! so every averaged gradient is 1.5.
//!
//! Usage: `async-buckets [--lag MS]`. Runs on the sim driver (tokio as the executor;
//! any executor works: the futures need no runtime).

use std::thread;
use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup, Work};
use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

const BUCKETS: [usize; 3] = [4096, 2048, 1024];

fn parse() -> Result<Duration, String> {
    let mut lag = Duration::from_millis(300);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--lag" => {
                let v = it.next().ok_or("--lag needs a number of milliseconds")?;
                let ms: u64 = v
                    .parse()
                    .map_err(|_| format!("--lag {v:?} is not a number of milliseconds"))?;
                if ms > 60_000 {
                    return Err(format!("--lag {ms} is over 60000 ms"));
                }
                lag = Duration::from_millis(ms);
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: async-buckets [--lag MS]"
                ));
            }
        }
    }
    Ok(lag)
}

fn main() -> std::process::ExitCode {
    let lag = match parse() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let id = UniqueId::random();
    let start = Instant::now();
    let ranks: Vec<_> = (0..2)
        .map(|rank| thread::spawn(move || run(rank, id, lag, start)))
        .collect();
    let mut ok = true;
    for (rank, h) in ranks.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                eprintln!("rank {rank}: {e}");
                ok = false;
            }
            Err(_) => {
                eprintln!("rank {rank}: panicked");
                ok = false;
            }
        }
    }
    if ok {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

/// Awaits one bucket's all-reduce, then queues its step (the average).
async fn step(
    k: usize,
    work: Work,
    bucket: &mut DeviceBuffer<f32>,
    compute: &Stream,
    say: &(dyn Fn(&str) + Sync),
) -> collectives::Result<()> {
    work.await?; // the executor runs other tasks meanwhile
    say(&format!("bucket {k} reduced; its step starts"));
    bucket.scale(compute, 0.5)?;
    Ok(())
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn run(rank: usize, id: UniqueId, lag: Duration, start: Instant) -> Result<(), BoxError> {
    let say =
        move |msg: &str| println!("[rank {rank} +{:>5} ms] {msg}", start.elapsed().as_millis());
    let dev = Device::sim(rank)?;
    let pg = ProcessGroup::new(&dev, rank, 2, &id, Options::new().name("buckets"))?;
    let compute = Stream::new(&dev)?;
    let mut buckets = BUCKETS
        .iter()
        .map(|&n| DeviceBuffer::from_slice(&compute, &vec![rank as f32 + 1.0; n]))
        .collect::<nccl_safe::Result<Vec<_>>>()?;
    // Backward: the last bucket is ready first; rank 1 is slow with bucket 0.
    let mut works: Vec<Option<Work>> = vec![None, None, None];
    for k in (0..BUCKETS.len()).rev() {
        if k == 0 && rank == 1 {
            thread::sleep(lag);
        }
        works[k] = Some(pg.all_reduce(&mut buckets[k], ReduceOp::Sum)?);
        say(&format!("bucket {k} issued"));
    }
    let [w0, w1, w2] = [0, 1, 2].map(|k| works[k].take().expect("issued above"));
    let [b0, b1, b2] = &mut buckets[..] else {
        unreachable!("three buckets")
    };
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let (r0, r1, r2) = rt.block_on(async {
        tokio::join!(
            step(0, w0, b0, &compute, &say),
            step(1, w1, b1, &compute, &say),
            step(2, w2, b2, &compute, &say),
        )
    });
    r0?;
    r1?;
    r2?;
    for (k, b) in buckets.iter().enumerate() {
        let v = b.to_vec(&compute)?;
        if v.iter().any(|&x| x != 1.5) {
            return Err(format!("bucket {k}: expected every value 1.5, got {:?}", &v[..4]).into());
        }
    }
    say("every bucket averaged: 1.5");
    Ok(())
}
