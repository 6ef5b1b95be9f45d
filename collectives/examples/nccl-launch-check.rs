//! nccl-launch-check: a process group from whatever launcher started this process
//! (`ProcessGroup::from_env`), checked with values; what ci/test runs under the real
//! torchrun, srun, sbatch and mpirun. Each rank prints one line: its launch, then
//! whether an all-reduce, a broadcast and an all-gather gave the right values.
//!
//! Faults on request, for the failure scenarios (`r` is a rank):
//! - `NCCL_RS_CHECK_KILL=r`: after the group is made and one all-reduce is done, rank
//!   `r` kills itself (SIGKILL) while the others enter the next all-reduce; they must
//!   end naming rank `r`.
//! - `NCCL_RS_CHECK_KILL_ONCE=1` with it: only in the first attempt of a job that
//!   torchrun restarts (`TORCHELASTIC_RESTART_COUNT=0`); the next attempt must pass.
//! - `NCCL_RS_CHECK_STALL=r`: rank `r` joins, does the first all-reduce, then sleeps
//!   instead of entering the second; the others' all-reduce times out, and the hang
//!   report names rank `r` as the one that never issued it.
//! - `NCCL_RS_CHECK_ABORT=r`: rank `r` aborts its group (`ProcessGroup::abort`) where
//!   the others enter the second all-reduce, then waits a second before it exits; the
//!   others must end at once naming rank `r`, through the store or PMIx.
//! - `NCCL_RS_CHECK_MISSING=r`: rank `r` sleeps instead of joining; the others' group
//!   creation times out naming it.
//!
//! `NCCL_RS_CHECK_PMIX=1` makes the group with `ProcessGroup::from_pmix` (the
//! launcher's PMIx server, no store) instead of `from_env`.
//!
//! `NCCL_RS_CHECK_TIMEOUT` (seconds, default 30) is the group's timeout. Exit status:
//! 0 when the values are right, 1 when one is wrong, 2 on an error (printed).

use std::process::ExitCode;
use std::time::Duration;

use collectives::{Launch, Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("nccl-launch-check: {e}");
            ExitCode::from(2)
        }
    }
}

fn rank_var(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn run() -> collectives::Result<bool> {
    let pmix = std::env::var("NCCL_RS_CHECK_PMIX").is_ok_and(|v| v == "1");
    let launch = if pmix {
        collectives::launch::pmix_launch()?
    } else {
        Launch::from_env()?
    };
    let rank = launch.rank();
    let timeout = std::env::var("NCCL_RS_CHECK_TIMEOUT")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(Duration::from_secs(30), Duration::from_secs_f64);
    if rank_var("NCCL_RS_CHECK_MISSING") == Some(rank) {
        println!("nccl-launch-check: rank {rank}: not joining (NCCL_RS_CHECK_MISSING)");
        std::thread::sleep(timeout * 4);
        return Ok(false);
    }
    let options = Options::new().timeout(timeout);
    let pg = if pmix {
        ProcessGroup::from_pmix(options)?
    } else {
        ProcessGroup::from_launch(&launch, options)?
    };
    let size = pg.size();
    let s = Stream::new(pg.device())?;
    let r = rank as i64;
    let n = size as i64;
    let mut a = DeviceBuffer::from_slice(&s, &[r + 1; 4])?;
    pg.all_reduce(&mut a, ReduceOp::Sum)?.wait_host(timeout)?;
    let kill = rank_var("NCCL_RS_CHECK_KILL").filter(|_| {
        std::env::var("NCCL_RS_CHECK_KILL_ONCE").is_err()
            || rank_var("TORCHELASTIC_RESTART_COUNT") == Some(0)
    });
    if kill == Some(rank) {
        println!("nccl-launch-check: rank {rank}: killing itself (NCCL_RS_CHECK_KILL)");
        // SAFETY: kill and getpid have no memory preconditions.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    }
    let abort = rank_var("NCCL_RS_CHECK_ABORT");
    if abort == Some(rank) {
        println!("nccl-launch-check: rank {rank}: aborting its group (NCCL_RS_CHECK_ABORT)");
        pg.abort("asked to by NCCL_RS_CHECK_ABORT");
        std::thread::sleep(Duration::from_secs(1));
        return Ok(false);
    }
    let stall = rank_var("NCCL_RS_CHECK_STALL");
    if stall == Some(rank) {
        println!("nccl-launch-check: rank {rank}: stalling (NCCL_RS_CHECK_STALL)");
        std::thread::sleep(timeout * 4);
        return Ok(false);
    }
    if kill.is_some() || stall.is_some() || abort.is_some() {
        // The killed rank never enters this one: the survivors must be told.
        std::thread::sleep(Duration::from_millis(200));
        let mut c = DeviceBuffer::from_slice(&s, &[1i64; 4])?;
        pg.all_reduce(&mut c, ReduceOp::Sum)?.wait_host(timeout)?;
        return Ok(false);
    }
    let mut b = DeviceBuffer::from_slice(&s, &[r * 3; 2])?;
    pg.broadcast(&mut b, size - 1)?.wait_host(timeout)?;
    let one = DeviceBuffer::from_slice(&s, &[r])?;
    let mut all = DeviceBuffer::<i64>::zeroed(&s, size)?;
    pg.all_gather(&one, &mut all)?.wait_host(timeout)?;
    let ok = a.to_vec(&s)? == vec![n * (n + 1) / 2; 4]
        && b.to_vec(&s)? == vec![(n - 1) * 3; 2]
        && all.to_vec(&s)? == (0..n).collect::<Vec<_>>();
    println!(
        "nccl-launch-check: rank {rank} of {size} ({}, local rank {} of {}, store {}), {} \
         device {}: {}",
        launch.launcher,
        launch.local_rank(),
        launch.local_world_size(),
        launch
            .rendezvous()
            .map_or("none".to_string(), |r| r.to_string()),
        pg.device().driver(),
        pg.device().ordinal(),
        if ok {
            "all-reduce, broadcast, all-gather correct"
        } else {
            "WRONG VALUES"
        }
    );
    drop(pg);
    Ok(ok)
}
