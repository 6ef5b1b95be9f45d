//! nccl-mpi-check: a process group from MPI (`ProcessGroup::from_mpi`), checked under
//! `mpirun -n N` (ci/test runs it with 4 ranks on the sim): the launch each rank sees
//! (local ranks from the shared-memory split), then an all-reduce, a broadcast and an
//! all-gather whose values are checked. Prints one line per rank; exits with 1 when a
//! value is wrong, 2 on an error. Needs the `mpi` feature.

use std::process::ExitCode;
use std::time::Duration;

use collectives::{Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

fn main() -> ExitCode {
    let Some(universe) = mpi::initialize() else {
        eprintln!("nccl-mpi-check: MPI was already initialized");
        return ExitCode::from(2);
    };
    let world = universe.world();
    match check(&world) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("nccl-mpi-check: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(world: &mpi::topology::SimpleCommunicator) -> collectives::Result<bool> {
    let launch = collectives::launch::mpi_launch(world)?;
    let pg = ProcessGroup::from_mpi(world, Options::new().timeout(Duration::from_secs(60)))?;
    let (rank, size) = (pg.rank(), pg.size());
    let s = Stream::new(pg.device())?;
    let wait = Duration::from_secs(60);
    let r = rank as i64;
    let n = size as i64;
    let mut a = DeviceBuffer::from_slice(&s, &[r + 1; 4])?;
    pg.all_reduce(&mut a, ReduceOp::Sum)?.wait_host(wait)?;
    let mut b = DeviceBuffer::from_slice(&s, &[r * 3; 2])?;
    pg.broadcast(&mut b, size - 1)?.wait_host(wait)?;
    let one = DeviceBuffer::from_slice(&s, &[r])?;
    let mut all = DeviceBuffer::<i64>::zeroed(&s, size)?;
    pg.all_gather(&one, &mut all)?.wait_host(wait)?;
    let ok = a.to_vec(&s)? == vec![n * (n + 1) / 2; 4]
        && b.to_vec(&s)? == vec![(n - 1) * 3; 2]
        && all.to_vec(&s)? == (0..n).collect::<Vec<_>>();
    println!(
        "nccl-mpi-check: rank {rank} of {size}, local rank {} of {}, {} device {}: {}",
        launch.local_rank(),
        launch.local_world_size(),
        pg.device().driver(),
        pg.device().ordinal(),
        if ok {
            "all-reduce, broadcast, all-gather correct"
        } else {
            "WRONG VALUES"
        }
    );
    Ok(ok)
}
