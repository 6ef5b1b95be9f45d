//! cudarc and nccl-rs on the same GPUs, without copies: cudarc makes the "gradients"
//! on its own stream, nccl-rs all-reduces them on a communication stream and averages
//! them, and cudarc reads the result back, with no explicit waits anywhere: the
//! ordering comes from the tracking of `nccl_safe::cudarc_interop` (its module docs
//! hold the rules).
//!
//! One rank per GPU, up to two, in one process. Rank `r` starts with `r + 1` in every
//! element, so every averaged element is the mean of `1..=ranks`.
//!
//! Usage: `cargo run -p nccl-examples --features cudarc --bin cudarc-interop`. cudarc
//! needs a CUDA GPU: where `NCCL_RS_DRIVER` (default `auto`) picks the sim driver, the
//! program says so, shows the typed error the interop answers there, and exits 0.

use std::process::ExitCode;
use std::time::Instant;

use nccl_safe::cudarc_interop::CudarcBuffer;
use nccl_safe::cudarc_interop::cudarc::driver::CudaContext;
use nccl_safe::{Communicator, Config, Device, DeviceBuffer, DriverKind, ReduceOp, Stream, group};

/// Elements per rank.
const N: usize = 1 << 20;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let choice = match nccl_safe::selected_driver() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cudarc-interop: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("driver: {} ({})", choice.kind, choice.reason);
    let result = match choice.kind {
        DriverKind::Sim => explain_sim(),
        DriverKind::Cuda => run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cudarc-interop: {e}");
            ExitCode::FAILURE
        }
    }
}

/// No cudarc object can exist on the sim: say so, and show the interop's answer.
fn explain_sim() -> AnyResult<()> {
    println!(
        "cudarc-interop: cudarc needs a CUDA GPU and its driver; this machine runs the sim \
         driver, so there is nothing to interoperate with (NCCL_RS_DRIVER=cuda on a GPU node)."
    );
    let dev = Device::sim(0)?;
    let s = Stream::new(&dev)?;
    let buf = DeviceBuffer::from_slice(&s, &[1.0f32; 4])?;
    match buf.with_cudarc(&s, |_, _| ()) {
        Err(e) => println!("cudarc-interop: on the sim every interop call returns an error: {e}"),
        Ok(()) => return Err("the sim lent a buffer to cudarc".into()),
    }
    Ok(())
}

/// One rank's objects: its device, cudarc's stream (as ours), the communication
/// stream, and the gradients cudarc allocated.
struct Rank {
    dev: Device,
    compute: Stream,
    comm_stream: Stream,
    grads: CudarcBuffer<f32>,
}

fn run() -> AnyResult<()> {
    let ranks = Device::count(DriverKind::Cuda)?.min(2);
    if ranks == 0 {
        return Err("the cuda driver was chosen but it has no GPU".into());
    }
    let start = Instant::now();
    let at = || format!("{:8.3} ms", start.elapsed().as_secs_f64() * 1e3);
    let devices: Vec<Device> = (0..ranks).map(Device::cuda).collect::<Result<_, _>>()?;
    let comms = Communicator::init_all(&devices, &Config::new())?;
    println!("{}  {ranks} rank(s) ready on {devices:?}", at());

    let mut all = Vec::with_capacity(ranks);
    for (r, dev) in devices.into_iter().enumerate() {
        // cudarc's side: its context (the GPU's primary context, which nccl-rs uses
        // too), its stream, its memory, filled by a copy on its stream.
        let ctx = CudaContext::new(dev.ordinal())?;
        let cu = ctx.new_stream()?;
        let slice = cu.clone_htod(&vec![(r + 1) as f32; N])?;
        // The same stream as ours, and the slice tracked: no copy of either.
        let compute = Stream::from_cudarc(&dev, &cu)?;
        let grads = CudarcBuffer::new(&dev, slice)?;
        let comm_stream = Stream::new(&dev)?;
        all.push(Rank {
            dev,
            compute,
            comm_stream,
            grads,
        });
    }
    println!("{}  cudarc filled {N} f32 per rank on its streams", at());

    // The all-reduce runs on the communication stream and waits for cudarc's copy by
    // itself; one group because one thread drives every GPU.
    group(|_| {
        for (rank, comm) in all.iter_mut().zip(&comms) {
            comm.all_reduce_in_place(&mut rank.grads, ReduceOp::Sum, &rank.comm_stream)?;
        }
        Ok(())
    })?;
    println!("{}  all-reduces enqueued (returned at once)", at());

    let mean = (1..=ranks).sum::<usize>() as f32 / ranks as f32;
    for (r, rank) in all.iter_mut().enumerate() {
        // Our op on cudarc's stream waits for the all-reduce; cudarc's copy back on the
        // same stream then follows it in stream order.
        rank.grads.scale(&rank.compute, 1.0 / ranks as f32)?;
        let host = rank
            .grads
            .with_cudarc(&rank.compute, |cu, view| cu.clone_dtoh(&view))??;
        let wrong = host.iter().filter(|&&x| (x - mean).abs() > 1e-6).count();
        if wrong > 0 {
            return Err(format!(
                "rank {r} on {}: {wrong} of {N} elements differ from {mean}",
                rank.dev
            )
            .into());
        }
        println!(
            "{}  rank {r}: cudarc read back {N} x {mean} (the mean)",
            at()
        );
    }

    // cudarc takes its memory back; its stream waits for anything still pending.
    for rank in all {
        let slice = rank.grads.into_inner()?;
        drop(slice);
    }
    // Teardown is collective: every rank's communicator closes at once.
    let closers: Vec<_> = comms
        .into_iter()
        .map(|comm| std::thread::spawn(move || comm.close()))
        .collect();
    for closer in closers {
        closer
            .join()
            .map_err(|_| "closing a communicator panicked")??;
    }
    println!("{}  done", at());
    Ok(())
}
