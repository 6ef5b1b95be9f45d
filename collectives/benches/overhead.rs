//! Host overhead of the process-group layer over the raw communicator (issue 13,
//! row 1 and deliverable 6), 1 rank, 8 B f32 all-reduces on the selected driver:
//!
//! - per op: `ProcessGroup::all_reduce` + `Work::wait_host`, and the `wait_stream`
//!   variant (+ `Stream::synchronize`), over `Communicator::all_reduce_in_place` +
//!   `Stream::synchronize`;
//! - bursts of 100 and 1000 ops, waited once at the end (a `WorkSet` / one
//!   synchronize);
//! - the wake latency of a host wait: from the stream passing a gate that held the
//!   operation until `Work::wait_host` (or, side by side, `Stream::synchronize`)
//!   returns (an upper bound: it includes running the operation);
//! - on 2 ranks (threads of this process, each with its group and communicator):
//!   single ops waited each time and bursts of 100, group / raw, as rank 0 sees them.
//!
//! Every figure is the median of 7 repetitions that interleave the variants, and
//! each ratio is printed next to its two times. Run with
//! `cargo bench -p collectives --bench overhead` (`NCCL_RS_SIM_JITTER=off` for the
//! sim without its scheduling jitter).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup, WorkSet};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Gate, ReduceOp, Stream, UniqueId,
};

/// Repetitions, ops per figure, and host waits per wake figure; `cargo test` (which
/// runs benches without `--bench`) gets a quick smoke run of every path instead.
fn sizes() -> (usize, usize, usize) {
    if std::env::args().any(|a| a == "--bench") {
        (7, 2000, 200)
    } else {
        (1, 20, 3)
    }
}
const LONG: Duration = Duration::from_secs(60);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Setup {
    stream: Stream,
    other: Stream,
    comm: Communicator,
    pg: ProcessGroup,
    raw_buf: DeviceBuffer<f32>,
    pg_buf: DeviceBuffer<f32>,
}

/// Microseconds per op of `f` run `n` times.
fn per_op(n: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// The driver `NCCL_RS_BENCH_DRIVER` names (the sim by default).
fn driver() -> DriverKind {
    match std::env::var("NCCL_RS_BENCH_DRIVER").as_deref() {
        Ok("cuda") => DriverKind::Cuda,
        _ => DriverKind::Sim,
    }
}

impl Setup {
    /// On the driver `NCCL_RS_BENCH_DRIVER` names, with ids of that driver: NCCL
    /// refuses a sim id.
    fn new() -> Result<Setup, Box<dyn std::error::Error>> {
        let driver = driver();
        let ids = (UniqueId::for_driver(driver)?, UniqueId::for_driver(driver)?);
        Setup::rank(driver, 0, 1, &ids)
    }

    /// Rank `rank` of `size` on device `rank`: `ids` are the communicator's and the
    /// group's.
    fn rank(
        driver: DriverKind,
        rank: usize,
        size: usize,
        ids: &(UniqueId, UniqueId),
    ) -> Result<Setup, Box<dyn std::error::Error>> {
        let dev = Device::with_driver(driver, rank)?;
        let stream = Stream::new(&dev)?;
        let cfg = Config::new().blocking(false);
        let comm = Communicator::init(&dev, rank, size, &ids.0, &cfg)?;
        comm.wait_ready(LONG)?;
        let pg = ProcessGroup::new(&dev, rank, size, &ids.1, Options::new().name("bench"))?;
        let raw_buf = DeviceBuffer::from_slice(&stream, &[1.0f32, 2.0])?;
        let pg_buf = DeviceBuffer::from_slice(&stream, &[1.0f32, 2.0])?;
        stream.synchronize()?;
        Ok(Setup {
            other: Stream::new(&dev)?,
            stream,
            comm,
            pg,
            raw_buf,
            pg_buf,
        })
    }

    fn raw_sync(&mut self, n: usize) -> f64 {
        let (c, s, b) = (&self.comm, &self.stream, &mut self.raw_buf);
        per_op(n, || {
            c.all_reduce_in_place(b, ReduceOp::Sum, s).unwrap();
            s.synchronize().unwrap();
        })
    }

    fn pg_host(&mut self, n: usize) -> f64 {
        let (pg, b) = (&self.pg, &mut self.pg_buf);
        per_op(n, || {
            pg.all_reduce(b, ReduceOp::Sum)
                .unwrap()
                .wait_host(LONG)
                .unwrap();
        })
    }

    fn pg_stream(&mut self, n: usize) -> f64 {
        let (pg, s, b) = (&self.pg, &self.stream, &mut self.pg_buf);
        per_op(n, || {
            pg.all_reduce(b, ReduceOp::Sum)
                .unwrap()
                .wait_stream(s)
                .unwrap();
            s.synchronize().unwrap();
        })
    }

    /// The raw analogue of `pg_stream`: the all-reduce on a second stream, which this
    /// stream waits for through an event.
    fn raw_two_streams(&mut self, n: usize) -> f64 {
        let (c, s, o, b) = (&self.comm, &self.stream, &self.other, &mut self.raw_buf);
        per_op(n, || {
            c.all_reduce_in_place(b, ReduceOp::Sum, o).unwrap();
            s.wait_event(&o.record_event().unwrap()).unwrap();
            s.synchronize().unwrap();
        })
    }

    /// Microseconds per op of a burst of `n` ops waited once, and of its issuing
    /// alone (the calls, before the wait).
    fn raw_burst(&mut self, n: usize) -> (f64, f64) {
        let t = Instant::now();
        for _ in 0..n {
            self.comm
                .all_reduce_in_place(&mut self.raw_buf, ReduceOp::Sum, &self.stream)
                .unwrap();
        }
        let issued = t.elapsed();
        self.stream.synchronize().unwrap();
        let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        (per(t.elapsed()), per(issued))
    }

    fn pg_burst(&mut self, n: usize) -> (f64, f64) {
        let t = Instant::now();
        let mut set = WorkSet::new();
        for _ in 0..n {
            set.push(self.pg.all_reduce(&mut self.pg_buf, ReduceOp::Sum).unwrap());
        }
        let issued = t.elapsed();
        set.wait_host(LONG).unwrap();
        let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        (per(t.elapsed()), per(issued))
    }

    /// Median microseconds from the moment the stream passes a gate that held one
    /// all-reduce until the host wait returns: `Work::wait_host` (`host`) or
    /// `Stream::synchronize`. The instant is taken by a stream callback registered
    /// before the all-reduce, so the figure bounds the wake latency from above (it
    /// includes running the 8 B all-reduce).
    fn wake(&mut self, host: bool) -> f64 {
        let dev = self.pg.device().clone();
        let wakes = sizes().2;
        let mut v = Vec::with_capacity(wakes);
        for _ in 0..wakes {
            let gate = Gate::new(&dev).unwrap();
            self.pg.comm_stream().wait_gate(&gate).unwrap();
            let (tx, rx) = mpsc::channel();
            self.pg
                .comm_stream()
                .on_complete(move || {
                    let _ = tx.send(Instant::now());
                })
                .unwrap();
            let work = self.pg.all_reduce(&mut self.pg_buf, ReduceOp::Sum).unwrap();
            let opener = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_micros(300));
                gate.open();
            });
            if host {
                work.wait_host(LONG).unwrap();
            } else {
                self.pg.comm_stream().synchronize().unwrap();
            }
            let back = Instant::now();
            let passed = rx.recv().unwrap();
            opener.join().unwrap();
            v.push(back.saturating_duration_since(passed).as_secs_f64() * 1e6);
        }
        median(v)
    }
}

/// Medians on 2 ranks (threads), as rank 0 sees them: single ops waited each time
/// (group, raw) and bursts of 100 (group, raw). The ranks start each variant
/// together.
fn two_ranks(reps: usize, ops: usize) -> Result<[Vec<f64>; 4], String> {
    let driver = driver();
    let ids = (
        UniqueId::for_driver(driver).map_err(|e| e.to_string())?,
        UniqueId::for_driver(driver).map_err(|e| e.to_string())?,
    );
    let together = std::sync::Barrier::new(2);
    std::thread::scope(|sc| {
        let ranks: Vec<_> = (0..2)
            .map(|rank| {
                let (ids, together) = (&ids, &together);
                sc.spawn(move || -> Result<[Vec<f64>; 4], String> {
                    let run = || {
                        let mut s = Setup::rank(driver, rank, 2, ids)?;
                        s.pg_host(20);
                        s.raw_sync(20);
                        let mut m: [Vec<f64>; 4] = Default::default();
                        for _ in 0..reps {
                            together.wait();
                            m[0].push(s.pg_host(ops));
                            together.wait();
                            m[1].push(s.raw_sync(ops));
                            together.wait();
                            m[2].push(s.pg_burst(100).0);
                            together.wait();
                            m[3].push(s.raw_burst(100).0);
                        }
                        Ok::<_, Box<dyn std::error::Error>>(m)
                    };
                    // A rank that fails ends the bench: its peer would wait for it
                    // at the next barrier, or in its next collective, for ever.
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                        Ok(Ok(m)) => Ok(m),
                        Ok(Err(e)) => {
                            eprintln!("bench overhead: rank {rank} of 2 failed: {e}");
                            std::process::exit(1)
                        }
                        Err(_) => {
                            eprintln!("bench overhead: rank {rank} of 2 panicked");
                            std::process::exit(1)
                        }
                    }
                })
            })
            .collect();
        let mut got: Vec<_> = ranks
            .into_iter()
            .map(|r| r.join().unwrap_or_else(|_| Err("a rank panicked".into())))
            .collect();
        got.swap_remove(0)
    })
}

/// The goal of issue 26 for a group/raw ratio.
const TARGET: &str = "(target <= 1.10x)";

fn row(what: &str, a: &[f64], b: &[f64], target: &str) {
    let (ma, mb) = (median(a.to_vec()), median(b.to_vec()));
    println!(
        "{what:<44} {ma:>10.2} us {mb:>10.2} us {:>8.2}x  {target}",
        ma / mb
    );
}

fn main() {
    let (reps, ops, _) = sizes();
    let mut s = match Setup::new() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bench overhead: cannot set up on the selected driver: {e}");
            std::process::exit(1);
        }
    };
    // Warm up every path once.
    s.raw_sync(50);
    s.pg_host(50);
    s.pg_stream(50);
    s.raw_two_streams(50);
    let mut m: [Vec<f64>; 12] = Default::default();
    for _ in 0..reps {
        m[0].push(s.pg_host(ops));
        m[1].push(s.raw_sync(ops));
        m[2].push(s.pg_stream(ops));
        m[3].push(s.pg_burst(100).0);
        m[4].push(s.raw_burst(100).0);
        let (all, issuing) = s.pg_burst(1000);
        m[5].push(all);
        m[10].push(issuing);
        let (all, issuing) = s.raw_burst(1000);
        m[6].push(all);
        m[11].push(issuing);
        m[7].push(s.wake(true));
        m[8].push(s.wake(false));
        m[9].push(s.raw_two_streams(ops));
    }
    println!(
        "1 rank, 8 B f32 all-reduce on {:?}, median of {reps} interleaved repetitions",
        s.pg.device()
    );
    println!(
        "{:<44} {:>13} {:>13} {:>9}",
        "what", "group", "raw", "ratio"
    );
    let rows = [
        ("per op: wait_host / synchronize", 0, 1, TARGET),
        ("per op: wait_stream+synchronize / synchronize", 2, 1, ""),
        ("  the same / raw on a 2nd stream + wait_event", 2, 9, ""),
        ("burst of 100, per op: WorkSet / synchronize", 3, 4, TARGET),
        ("burst of 1000, per op: WorkSet / synchronize", 5, 6, TARGET),
        (
            "  its issuing alone (the calls, before the wait)",
            10,
            11,
            "",
        ),
        (
            "wake (gate passed to return): wait_host / sync",
            7,
            8,
            "(target <= 20 us)",
        ),
    ];
    for (what, a, b, target) in rows {
        row(what, &m[a], &m[b], target);
    }
    if s.pg.device().driver() == DriverKind::Cuda {
        return; // one GPU: 2 ranks need two
    }
    drop(s);
    match two_ranks(reps, ops / 2) {
        Ok(m) => {
            println!("2 ranks (threads), as rank 0 sees them");
            row("per op: wait_host / synchronize", &m[0], &m[1], TARGET);
            row(
                "burst of 100, per op: WorkSet / synchronize",
                &m[2],
                &m[3],
                TARGET,
            );
        }
        Err(e) => {
            eprintln!("bench overhead: 2 ranks failed: {e}");
            std::process::exit(1);
        }
    }
}
