//! nccl-perf: bandwidth of every collective, with nccl-tests' flags and output, on the
//! cuda or the sim driver, through the raw `Communicator` or the `ProcessGroup`
//! (`--layer`), with ranks as threads of this process (`-t`), as processes it starts
//! itself (`--procs`), or as the processes of a launcher (`nccl-run`, `srun`,
//! `mpirun`: every rank runs nccl-perf and they meet through the job's store).
//!
//! Each row: size and count (nccl-tests' convention: the whole gathered or scattered
//! data for all-gather, reduce-scatter, all-to-all, gather and scatter), type,
//! reduction, root, then time per operation (µs), algorithm bandwidth (size / time)
//! and bus bandwidth (algbw times nccl-tests' factor for the collective), and the
//! number of wrong elements, out of place and in place (`N/A` where the API has only
//! the other form). The footer gives the average bus bandwidth.

mod args;
mod run;

use std::io::Write;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Barrier, Mutex};

use args::{Args, Coll};
use nccl_safe::{DType, DataType, Device, DriverKind, UniqueId};
use run::{Rank, Row};

const CHILD: &str = "NCCL_RS_PERF_CHILD";
const CHILD_ID: &str = "NCCL_RS_PERF_ID";

macro_rules! with_dtype {
    ($dt:expr, $f:ident, $($a:expr),*) => {
        match $dt {
            DType::I8 => $f::<i8>($($a),*),
            DType::U8 => $f::<u8>($($a),*),
            DType::I32 => $f::<i32>($($a),*),
            DType::U32 => $f::<u32>($($a),*),
            DType::I64 => $f::<i64>($($a),*),
            DType::U64 => $f::<u64>($($a),*),
            DType::F16 => $f::<nccl_safe::half::f16>($($a),*),
            DType::BF16 => $f::<nccl_safe::half::bf16>($($a),*),
            DType::F32 => $f::<f32>($($a),*),
            DType::F64 => $f::<f64>($($a),*),
            _ => Err(collectives::Error::Safe(nccl_safe::Error::InvalidArgument {
                op: "nccl-perf",
                reason: format!("type {} is not measured", $dt),
            })),
        }
    };
}

fn type_name(d: DType) -> &'static str {
    match d {
        DType::I8 => "int8",
        DType::U8 => "uint8",
        DType::I32 => "int32",
        DType::U32 => "uint32",
        DType::I64 => "int64",
        DType::U64 => "uint64",
        DType::F16 => "half",
        DType::BF16 => "bfloat16",
        DType::F32 => "float",
        DType::F64 => "double",
        _ => "?",
    }
}

fn driver(a: &Args) -> Result<(DriverKind, String), String> {
    match a.driver.as_deref() {
        Some("cuda") => Ok((DriverKind::Cuda, "--driver cuda".into())),
        Some("sim") => Ok((DriverKind::Sim, "--driver sim".into())),
        Some("auto") | None => nccl_safe::selected_driver()
            .map(|s| (s.kind, s.reason))
            .map_err(|e| e.to_string()),
        Some(other) => Err(format!("--driver {other:?} is not cuda, sim or auto")),
    }
}

/// This host's copy bandwidth (bytes copied per second), best of 3 copies of 128 MiB.
fn copy_bandwidth() -> f64 {
    let n = 128 << 20;
    let src = vec![1u8; n];
    let mut dst = vec![0u8; n];
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        dst.copy_from_slice(&src);
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&mut dst);
    }
    n as f64 / best
}

/// Bytes every rank together must at least read and write for one operation.
fn min_traffic(c: Coll, bytes: usize, n: usize) -> f64 {
    let (b, n) = (bytes as f64, n as f64);
    match c {
        Coll::AllReduce | Coll::AllToAll | Coll::SendRecv => 2.0 * n * b,
        Coll::AllGather | Coll::Broadcast => b + n * b,
        Coll::ReduceScatter | Coll::Reduce => n * b + b,
        Coll::Gather | Coll::Scatter => 2.0 * b,
    }
}

struct Printer {
    args: Args,
    n: usize,
    copy_bw: Option<f64>,
    rows: Vec<Row>,
    wrong: u64,
    busbw: Vec<f64>,
}

impl Printer {
    fn header(&self, driver: &str, devices: &[(u64, u64)], names: &[String]) {
        let a = &self.args;
        println!(
            "# nccl-perf {}: layer {}, driver {driver}",
            a.coll.name(),
            if a.layer == args::Layer::Raw {
                "raw (Communicator)"
            } else {
                "group (ProcessGroup)"
            }
        );
        println!(
            "# nThread {} nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0",
            a.threads,
            a.gpus,
            a.min_bytes,
            a.max_bytes,
            if a.step_bytes > 0 {
                a.step_bytes
            } else {
                a.factor
            },
            if a.step_bytes > 0 { "bytes" } else { "factor" },
            a.warmup,
            a.iters,
            u8::from(a.check)
        );
        if self.args.floor {
            println!(
                "# floor: time of the minimum traffic (inputs read once, outputs written once) at \
                 this host's copy bandwidth, measured before each size, over the time measured"
            );
        }
        println!("#\n# Using devices");
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .trim()
            .to_string();
        for (r, ((pid, ord), name)) in devices.iter().zip(names).enumerate() {
            println!("#  Rank {r:2} Group  0 Pid {pid:6} on {host:>10} device {ord:2} [{name}]");
        }
        println!("#");
        let floor = if self.args.floor {
            " floor:oop     ip"
        } else {
            ""
        };
        println!("#{:>79}{:>32}", "out-of-place", "in-place");
        println!(
            "#{:>12} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}{floor}",
            "size",
            "count",
            "type",
            "redop",
            "root",
            "time",
            "algbw",
            "busbw",
            "#wrong",
            "time",
            "algbw",
            "busbw",
            "#wrong"
        );
        println!(
            "#{:>12} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}",
            "(B)",
            "(elements)",
            "",
            "",
            "",
            "(us)",
            "(GB/s)",
            "(GB/s)",
            "",
            "(us)",
            "(GB/s)",
            "(GB/s)",
            ""
        );
    }

    fn row(&mut self, r: Row) {
        let a = &self.args;
        let factor = a.coll.bus_factor(self.n);
        let mut line = format!(
            " {:>12} {:>12} {:>8} {:>6} {:>6}",
            r.bytes,
            r.count,
            type_name(a.dtype),
            r.red.map_or("none", |x| x.name()),
            if a.coll.rooted() {
                (a.root % self.n) as i64
            } else {
                -1
            }
        );
        for m in [r.oop, r.ip] {
            match m {
                Some((t, w)) => {
                    let algbw = r.bytes as f64 / (t * 1e-6) / 1e9;
                    let busbw = algbw * factor;
                    self.busbw.push(busbw);
                    self.wrong += w;
                    line += &format!(" {t:>8.2} {algbw:>7.2} {busbw:>7.2} {w:>6}");
                }
                None => line += &format!(" {:>8} {:>7} {:>7} {:>6}", "N/A", "N/A", "N/A", "N/A"),
            }
        }
        if let Some(bw) = r.copy_bw.or(self.copy_bw) {
            // The minimum traffic at this host's copy bandwidth over the measured time,
            // out of place and in place.
            let floor = min_traffic(a.coll, r.bytes, self.n) / (2.0 * bw);
            for m in [r.oop, r.ip] {
                match m {
                    Some((t, _)) => line += &format!(" {:>6.3}", floor / (t * 1e-6)),
                    None => line += &format!(" {:>6}", "N/A"),
                }
            }
        }
        println!("{line}");
        let _ = std::io::stdout().flush();
        self.rows.push(r);
    }

    fn footer(&self) {
        let avg = if self.busbw.is_empty() {
            0.0
        } else {
            self.busbw.iter().sum::<f64>() / self.busbw.len() as f64
        };
        println!(
            "# Out of bounds values : {} {}",
            self.wrong,
            if self.wrong == 0 { "OK" } else { "FAILED" }
        );
        println!("# Avg bus bandwidth    : {avg:.3}");
        println!("#");
    }

    fn json(&self, driver: &str) -> serde_json::Value {
        let a = &self.args;
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let side = |m: Option<(f64, u64)>| {
                    m.map(|(t, w)| {
                        let algbw = r.bytes as f64 / (t * 1e-6) / 1e9;
                        serde_json::json!({"time_us": t, "algbw": algbw,
                            "busbw": algbw * a.coll.bus_factor(self.n), "wrong": w})
                    })
                };
                serde_json::json!({
                    "size": r.bytes, "count": r.count, "type": type_name(a.dtype),
                    "redop": r.red.map(|x| x.name()), "root": a.coll.rooted().then_some(a.root % self.n),
                    "out_of_place": side(r.oop), "in_place": side(r.ip),
                })
            })
            .collect();
        serde_json::json!({
            "collective": a.coll.name(), "driver": driver, "ranks": self.n,
            "layer": if a.layer == args::Layer::Raw { "raw" } else { "group" },
            "copy_bandwidth": self.copy_bw, "rows": rows,
            "wrong": self.wrong,
            "avg_busbw": if self.busbw.is_empty() { 0.0 } else { self.busbw.iter().sum::<f64>() / self.busbw.len() as f64 },
        })
    }
}

fn sweep_rank<T: DataType>(
    rank: &Rank,
    a: &Args,
    printer: Option<&Mutex<Printer>>,
) -> collectives::Result<()> {
    rank.sweep::<T>(a, &copy_bandwidth, |row| {
        if let Some(p) = printer {
            p.lock().unwrap_or_else(|e| e.into_inner()).row(row);
        }
    })
}

/// Where a rank runs.
struct Place<'a> {
    kind: DriverKind,
    reason: &'a str,
    rank: usize,
    n: usize,
    ordinal: usize,
}

/// Runs one rank; rank 0 prints.
fn rank_main(
    a: &Args,
    p: &Place<'_>,
    id: &UniqueId,
    printer: Option<&Mutex<Printer>>,
) -> collectives::Result<()> {
    let (kind, reason) = (p.kind, p.reason);
    let device = Device::with_driver(kind, p.ordinal)?;
    let r = run::join(a, &device, p.rank, p.n, id)?;
    let devs = r.gather_all(u64::from(std::process::id()) << 16 | p.ordinal as u64)?;
    if let Some(p) = printer {
        let pairs: Vec<(u64, u64)> = devs.iter().map(|x| (x >> 16, x & 0xffff)).collect();
        let names: Vec<String> = pairs
            .iter()
            .map(|(_, o)| {
                Device::with_driver(kind, *o as usize)
                    .and_then(|d| d.name())
                    .unwrap_or_default()
            })
            .collect();
        p.lock().unwrap_or_else(|e| e.into_inner()).header(
            &format!("{kind} ({reason})"),
            &pairs,
            &names,
        );
    }
    with_dtype!(a.dtype, sweep_rank, &r, a, printer)
}

fn finish(printer: &Mutex<Printer>, a: &Args, kind: DriverKind) -> ExitCode {
    let p = printer.lock().unwrap_or_else(|e| e.into_inner());
    p.footer();
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&p.json(&kind.to_string())).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("nccl-perf: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    if p.wrong > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let a = match args::parse(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (kind, reason) = match driver(&a) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("nccl-perf: {e}");
            return ExitCode::from(2);
        }
    };
    let copy_bw: Option<f64> = None;
    let fail = |e: collectives::Error| {
        eprintln!("nccl-perf: {e}");
        ExitCode::from(1)
    };
    // A rank started by --procs.
    if let Ok(spec) = std::env::var(CHILD) {
        let mut it = spec.split(',').filter_map(|x| x.parse::<usize>().ok());
        let (Some(rank), Some(n)) = (it.next(), it.next()) else {
            eprintln!("nccl-perf: bad {CHILD}={spec:?}");
            return ExitCode::from(2);
        };
        let id = match std::env::var(CHILD_ID)
            .map_err(|e| e.to_string())
            .and_then(|h| UniqueId::from_hex(&h).map_err(|e| e.to_string()))
        {
            Ok(id) => id,
            Err(e) => {
                eprintln!("nccl-perf: {CHILD_ID}: {e}");
                return ExitCode::from(2);
            }
        };
        let printer = (rank == 0).then(|| {
            Mutex::new(Printer {
                args: a.clone(),
                n,
                copy_bw,
                rows: vec![],
                wrong: 0,
                busbw: vec![],
            })
        });
        let ordinal = if kind == DriverKind::Cuda {
            rank % Device::count(kind).unwrap_or(1).max(1)
        } else {
            rank
        };
        if let Err(e) = rank_main(
            &a,
            &Place {
                kind,
                reason: &reason,
                rank,
                n,
                ordinal,
            },
            &id,
            printer.as_ref(),
        ) {
            return fail(e);
        }
        return match printer {
            Some(p) => finish(&p, &a, kind),
            None => ExitCode::SUCCESS,
        };
    }
    let copy_bw = None;
    let id = match UniqueId::for_driver(kind) {
        Ok(id) => id,
        Err(e) => return fail(e.into()),
    };
    if a.procs > 0 {
        // Ranks as processes: this program again, once per rank; rank 0 prints.
        let exe = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("nccl-perf: {e}");
                return ExitCode::from(1);
            }
        };
        let mut children = Vec::new();
        for rank in 0..a.procs {
            let mut cmd = Command::new(&exe);
            let mut rest = Vec::new();
            let mut skip = false;
            for x in &argv {
                if std::mem::take(&mut skip) {
                    continue;
                }
                if x == "--procs" {
                    skip = true;
                    continue;
                }
                rest.push(x.clone());
            }
            cmd.args(rest);
            cmd.env(CHILD, format!("{rank},{}", a.procs))
                .env(CHILD_ID, id.to_hex())
                .env("NCCL_RS_DRIVER", kind.to_string());
            if rank > 0 {
                cmd.stdout(Stdio::null());
            }
            match cmd.spawn() {
                Ok(c) => children.push(c),
                Err(e) => {
                    eprintln!("nccl-perf: cannot start rank {rank}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        let mut code = ExitCode::SUCCESS;
        for (rank, mut c) in children.into_iter().enumerate() {
            match c.wait() {
                Ok(s) if s.success() => {}
                Ok(s) => {
                    eprintln!("nccl-perf: rank {rank} exited with {s}");
                    code = ExitCode::from(1);
                }
                Err(e) => {
                    eprintln!("nccl-perf: rank {rank}: {e}");
                    code = ExitCode::from(1);
                }
            }
        }
        return code;
    }
    // Ranks as threads.
    let n = a.threads * a.gpus;
    let printer = Arc::new(Mutex::new(Printer {
        args: a.clone(),
        n,
        copy_bw,
        rows: vec![],
        wrong: 0,
        busbw: vec![],
    }));
    let start = Arc::new(Barrier::new(n));
    let results: Vec<_> = (0..n)
        .map(|rank| {
            let (a, reason, printer, start) =
                (a.clone(), reason.clone(), printer.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let ordinal = if kind == DriverKind::Cuda {
                    rank % Device::count(kind).unwrap_or(1).max(1)
                } else {
                    rank
                };
                rank_main(
                    &a,
                    &Place {
                        kind,
                        reason: &reason,
                        rank,
                        n,
                        ordinal,
                    },
                    &id,
                    (rank == 0).then_some(&*printer),
                )
            })
        })
        .collect();
    for (rank, h) in results.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return fail(e),
            Err(_) => {
                eprintln!("nccl-perf: rank {rank} panicked");
                return ExitCode::from(1);
            }
        }
    }
    finish(&printer, &a, kind)
}
