//! What `Options::check_finite` costs on the sim, per GB of input: 1 rank, f32
//! all-reduces in place of 16 and 64 MiB, waited on the host, with the check on and
//! off side by side (interleaved, medians of 5), and the scan alone
//! (`DeviceView::find_non_finite`, then reading its one-element result). Run with
//! `cargo bench -p collectives --bench finite` (`NCCL_RS_SIM_JITTER=off` for the sim
//! without its scheduling jitter); `cargo test` runs it once, small.

use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

const LONG: Duration = Duration::from_secs(120);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let full = std::env::args().any(|a| a == "--bench");
    let (reps, sizes_mib): (usize, &[usize]) = if full { (5, &[16, 64]) } else { (1, &[1]) };
    let dev = Device::sim(0)?;
    let group = |check: bool| {
        ProcessGroup::new(
            &dev,
            0,
            1,
            &UniqueId::random(),
            Options::new().name("finite-bench").check_finite(check),
        )
    };
    let (off, on) = (group(false)?, group(true)?);
    let s = Stream::new(&dev)?;
    println!("size     off (ms)   on (ms)   ratio   check per GB (ms)   scan alone per GB (ms)");
    for &mib in sizes_mib {
        let n = mib << 20 >> 2;
        let gb = (mib as f64) / 1024.0;
        let mut x = DeviceBuffer::from_slice(&s, &vec![1.0f32; n])?;
        x.as_view().to_vec(&s)?; // the copy in has landed
        let mut slot = DeviceBuffer::<u64>::zeroed(&s, 1)?;
        let (mut t_off, mut t_on, mut t_scan) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..reps {
            for (pg, times) in [(&off, &mut t_off), (&on, &mut t_on)] {
                let t = Instant::now();
                pg.all_reduce(&mut x, ReduceOp::Max)?.wait_host(LONG)?;
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let t = Instant::now();
            x.as_view().find_non_finite(&s, &mut slot.as_view_mut())?;
            assert_eq!(slot.to_vec(&s)?, [u64::MAX]);
            t_scan.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let (a, b, c) = (median(t_off), median(t_on), median(t_scan));
        println!(
            "{mib:>3} MiB {a:>10.2} {b:>9.2} {:>7.2} {:>19.1} {:>24.1}",
            b / a,
            (b - a) / gb,
            c / gb
        );
    }
    Ok(())
}
