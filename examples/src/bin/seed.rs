//! The seed scenario: "I call an asynchronous all-reduce, yet my process still blocks
//! until the slow rank arrives."
//!
//! Two ranks. Rank 1 is slow: it sleeps before its all-reduce. Rank 0 prints "begin
//! async all-reduce", issues the all-reduce, and prints "async check". Then it makes a
//! compute stream wait for the result (a stream-wait: returns at once), adds 100 on
//! that stream (the seed's `output.add_(100)`), and prints the value: 101, as the
//! values are the ranks (0 + 1 + 100).
//!
//! By default the process group is created up front, which is where the ranks wait for
//! each other: rank 0's "async check" follows "begin" at once, and only reading the
//! value waits for rank 1. With `--lazy-init` the group is created inside the first
//! collective, as frameworks do: rank 0 is then blocked in its "asynchronous" call for
//! the whole sleep.
//!
//! Usage: `seed [--sleep SECONDS] [--lazy-init]`. Started by a launcher (`nccl-run -n
//! 2`, `srun -n 2`, `mpirun -n 2`, torchrun-style variables), each process is one
//! rank and the group comes from `ProcessGroup::from_env`; times are then counted
//! from each process's start. Started alone, it runs both ranks as threads, on two
//! GPUs when there are two, else on the sim driver (it says which).

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Launch, Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, DriverKind, ReduceOp, Stream, UniqueId};

struct Args {
    sleep: Duration,
    lazy: bool,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        sleep: Duration::from_secs(5),
        lazy: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--lazy-init" => args.lazy = true,
            "--sleep" => {
                let v = it.next().ok_or("--sleep needs a number of seconds")?;
                let secs: f64 = v
                    .parse()
                    .map_err(|_| format!("--sleep {v:?} is not a number of seconds"))?;
                if !(0.0..=3600.0).contains(&secs) {
                    return Err(format!("--sleep {secs} is outside 0..=3600"));
                }
                args.sleep = Duration::from_secs_f64(secs);
            }
            "-h" | "--help" => return Err("usage: seed [--sleep SECONDS] [--lazy-init]".into()),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: seed [--sleep SECONDS] [--lazy-init]"
                ));
            }
        }
    }
    Ok(args)
}

fn driver() -> DriverKind {
    match nccl_safe::selected_driver() {
        Ok(choice) if choice.kind == DriverKind::Cuda => match Device::count(DriverKind::Cuda) {
            Ok(n) if n >= 2 => DriverKind::Cuda,
            Ok(n) => {
                println!("driver: cuda has {n} GPU(s); two ranks need two, so the sim driver runs");
                DriverKind::Sim
            }
            Err(e) => {
                println!("driver: cuda unusable ({e}); the sim driver runs");
                DriverKind::Sim
            }
        },
        Ok(choice) => {
            println!("driver: {} ({})", choice.kind, choice.reason);
            choice.kind
        }
        Err(e) => {
            println!("driver: {e}; the sim driver runs");
            DriverKind::Sim
        }
    }
}

fn main() -> std::process::ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    if let Ok(launch) = Launch::from_env() {
        return run_launched(&launch, &args);
    }
    let kind = driver();
    let id = match kind {
        DriverKind::Cuda => match UniqueId::new() {
            Ok(id) => id,
            Err(e) => {
                eprintln!("unique id: {e}");
                return std::process::ExitCode::FAILURE;
            }
        },
        DriverKind::Sim => UniqueId::random(),
    };
    println!(
        "mode: {} (rank 1 sleeps {:.1} s before its all-reduce)",
        if args.lazy {
            "--lazy-init: group created inside the first collective"
        } else {
            "group created up front"
        },
        args.sleep.as_secs_f64()
    );
    let start = Instant::now();
    let args = Arc::new(args);
    let ranks: Vec<_> = (0..2)
        .map(|rank| {
            let args = args.clone();
            thread::spawn(move || run(rank, kind, id, &args, start))
        })
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

/// One rank per process, as a launcher started it.
fn run_launched(launch: &Launch, args: &Args) -> std::process::ExitCode {
    let start = Instant::now();
    let rank = launch.rank();
    println!("[rank {rank}] {launch}");
    let result = launch.device().and_then(|dev| {
        let make = || ProcessGroup::from_launch_on(launch, &dev, options(args));
        run_rank(rank, &dev, make, args, start)
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rank {rank}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn options(args: &Args) -> Options {
    Options::new()
        .name("seed")
        .timeout(args.sleep * 4 + Duration::from_secs(30))
}

fn run(
    rank: usize,
    kind: DriverKind,
    id: UniqueId,
    args: &Args,
    start: Instant,
) -> collectives::Result<()> {
    let dev = Device::with_driver(kind, rank)?;
    let make = || ProcessGroup::new(&dev, rank, 2, &id, options(args));
    run_rank(rank, &dev, make, args, start)
}

/// The scenario on one rank; `make` creates the group (up front, or inside the first
/// collective with `--lazy-init`).
fn run_rank(
    rank: usize,
    dev: &Device,
    make: impl Fn() -> collectives::Result<ProcessGroup>,
    args: &Args,
    start: Instant,
) -> collectives::Result<()> {
    let say = |msg: &str| println!("[rank {rank} +{:>5} ms] {msg}", start.elapsed().as_millis());
    let make_group = || -> collectives::Result<ProcessGroup> {
        say("creating the process group (init waits for every rank)");
        let pg = make()?;
        say("process group ready");
        Ok(pg)
    };
    let mut pg = if args.lazy { None } else { Some(make_group()?) };
    let compute = Stream::new(dev)?;
    let mut x = DeviceBuffer::from_slice(&compute, &[rank as f32; 4])?;
    if rank == 1 {
        say(&format!("sleeping {:.1} s", args.sleep.as_secs_f64()));
        thread::sleep(args.sleep);
    }
    say("begin async all-reduce");
    if pg.is_none() {
        pg = Some(make_group()?); // the classic: the communicator is made on first use
    }
    let pg = pg.expect("made above");
    let work = pg.all_reduce(&mut x, ReduceOp::Sum)?;
    say("async check");
    work.wait_stream(&compute)?;
    say("wait_stream returned (the compute stream now depends on the all-reduce)");
    x.add_scalar(&compute, 100.0)?;
    let v = x.to_vec(&compute)?; // the host waits here, for the value
    say(&format!("value {} (the host waited for it here)", v[0]));
    Ok(())
}
