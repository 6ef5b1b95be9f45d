//! nccl-perf's command line: nccl-tests' flags, plus the collective, the layer, the
//! driver and the number of processes.

use std::path::PathBuf;

use nccl_safe::DType;

/// The collectives nccl-perf measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coll {
    AllReduce,
    AllGather,
    Broadcast,
    Reduce,
    ReduceScatter,
    AllToAll,
    Gather,
    Scatter,
    SendRecv,
}

impl Coll {
    pub const ALL: [Coll; 9] = [
        Coll::AllReduce,
        Coll::AllGather,
        Coll::Broadcast,
        Coll::Reduce,
        Coll::ReduceScatter,
        Coll::AllToAll,
        Coll::Gather,
        Coll::Scatter,
        Coll::SendRecv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Coll::AllReduce => "all_reduce",
            Coll::AllGather => "all_gather",
            Coll::Broadcast => "broadcast",
            Coll::Reduce => "reduce",
            Coll::ReduceScatter => "reduce_scatter",
            Coll::AllToAll => "alltoall",
            Coll::Gather => "gather",
            Coll::Scatter => "scatter",
            Coll::SendRecv => "sendrecv",
        }
    }

    /// nccl-tests' bus-bandwidth factor for `n` ranks.
    pub fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Coll::AllReduce => 2.0 * (n - 1.0) / n,
            Coll::AllGather
            | Coll::ReduceScatter
            | Coll::AllToAll
            | Coll::Gather
            | Coll::Scatter => (n - 1.0) / n,
            Coll::Broadcast | Coll::Reduce | Coll::SendRecv => 1.0,
        }
    }

    /// Whether the size names the whole of the gathered/scattered data (then it is a
    /// multiple of the ranks).
    pub fn size_is_total(self) -> bool {
        matches!(
            self,
            Coll::AllGather | Coll::ReduceScatter | Coll::AllToAll | Coll::Gather | Coll::Scatter
        )
    }

    pub fn reduces(self) -> bool {
        matches!(self, Coll::AllReduce | Coll::Reduce | Coll::ReduceScatter)
    }

    pub fn rooted(self) -> bool {
        matches!(
            self,
            Coll::Broadcast | Coll::Reduce | Coll::Gather | Coll::Scatter
        )
    }
}

/// Reductions (`-o`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Red {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
}

impl Red {
    pub fn name(self) -> &'static str {
        match self {
            Red::Sum => "sum",
            Red::Prod => "prod",
            Red::Max => "max",
            Red::Min => "min",
            Red::Avg => "avg",
        }
    }
}

/// Which layer runs the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// `Communicator` calls and `Stream::synchronize`.
    Raw,
    /// `ProcessGroup` calls and `WorkSet::wait_host`.
    Group,
}

#[derive(Clone, Debug)]
pub struct Args {
    pub coll: Coll,
    pub min_bytes: usize,
    pub max_bytes: usize,
    pub factor: usize,
    pub step_bytes: usize,
    pub iters: usize,
    pub warmup: usize,
    pub check: bool,
    pub dtype: DType,
    pub ops: Vec<Red>,
    pub root: usize,
    pub gpus: usize,
    pub threads: usize,
    pub json: Option<PathBuf>,
    pub layer: Layer,
    pub driver: Option<String>,
    pub procs: usize,
    pub floor: bool,
}

pub const USAGE: &str = "usage: nccl-perf COLLECTIVE [options]
  COLLECTIVE: all_reduce all_gather broadcast reduce reduce_scatter alltoall gather
              scatter sendrecv
  -b BYTES    minimum size (default 32M; K, M, G suffixes)
  -e BYTES    maximum size (default 32M)
  -f FACTOR   multiply the size by FACTOR between steps (default 2)
  -i BYTES    add BYTES between steps instead (0: use -f)
  -n ITERS    timed iterations per size (default 20)
  -w ITERS    warm-up iterations per size (default 5)
  -c 0|1      check the results (default 1)
  -d TYPE     int8 uint8 int32 uint32 int64 uint64 half bfloat16 float double (default float)
  -o OP       sum prod max min avg all (default sum)
  -r ROOT     root of rooted collectives (default 0)
  -g GPUS     devices per thread (default 1)
  -t THREADS  ranks as threads of this process (default 1)
  -J FILE     also write the results as JSON
  --layer raw|group   the Communicator, or the ProcessGroup (default raw)
  --driver cuda|sim|auto   (default: NCCL_RS_DRIVER, else auto)
  --procs N   ranks as N processes started by nccl-perf itself (one device each)
  --floor     also print the minimum-traffic floor at this host's copy bandwidth
              over the measured time (the sim's efficiency)";

fn size(v: &str) -> Result<usize, String> {
    let t = v.trim();
    let (num, mult) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("{v:?} is not a size (such as 8, 64K, 32M, 1G)"))
}

fn number(flag: &str, v: &str) -> Result<usize, String> {
    v.parse()
        .map_err(|_| format!("{flag} {v:?} is not a non-negative integer"))
}

pub fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        coll: Coll::AllReduce,
        min_bytes: 32 << 20,
        max_bytes: 32 << 20,
        factor: 2,
        step_bytes: 0,
        iters: 20,
        warmup: 5,
        check: true,
        dtype: DType::F32,
        ops: vec![Red::Sum],
        root: 0,
        gpus: 1,
        threads: 1,
        json: None,
        layer: Layer::Raw,
        driver: None,
        procs: 0,
        floor: false,
    };
    let mut coll = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "-b" => a.min_bytes = size(&value()?)?,
            "-e" => a.max_bytes = size(&value()?)?,
            "-f" => a.factor = number("-f", &value()?)?,
            "-i" => a.step_bytes = size(&value()?)?,
            "-n" => a.iters = number("-n", &value()?)?,
            "-w" => a.warmup = number("-w", &value()?)?,
            "-c" => a.check = number("-c", &value()?)? != 0,
            "-r" => a.root = number("-r", &value()?)?,
            "-g" => a.gpus = number("-g", &value()?)?,
            "-t" => a.threads = number("-t", &value()?)?,
            "-J" => a.json = Some(PathBuf::from(value()?)),
            "--procs" => a.procs = number("--procs", &value()?)?,
            "--floor" => a.floor = true,
            "--driver" => a.driver = Some(value()?),
            "--layer" => {
                a.layer = match value()?.as_str() {
                    "raw" => Layer::Raw,
                    "group" => Layer::Group,
                    v => return Err(format!("--layer {v:?} is not raw or group")),
                }
            }
            "-d" => {
                let v = value()?;
                a.dtype = match v.as_str() {
                    "int8" => DType::I8,
                    "uint8" => DType::U8,
                    "int32" | "int" => DType::I32,
                    "uint32" => DType::U32,
                    "int64" => DType::I64,
                    "uint64" => DType::U64,
                    "half" | "float16" => DType::F16,
                    "bfloat16" => DType::BF16,
                    "float" | "float32" => DType::F32,
                    "double" | "float64" => DType::F64,
                    _ => return Err(format!("-d {v:?} is not a type nccl-perf knows")),
                }
            }
            "-o" => {
                let v = value()?;
                a.ops = match v.as_str() {
                    "sum" => vec![Red::Sum],
                    "prod" => vec![Red::Prod],
                    "max" => vec![Red::Max],
                    "min" => vec![Red::Min],
                    "avg" => vec![Red::Avg],
                    "all" => vec![Red::Sum, Red::Prod, Red::Max, Red::Min, Red::Avg],
                    _ => return Err(format!("-o {v:?} is not sum, prod, max, min, avg or all")),
                }
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other if !other.starts_with('-') && coll.is_none() => {
                coll = Some(
                    Coll::ALL
                        .iter()
                        .copied()
                        .find(|c| c.name() == other || c.name().replace('_', "") == other)
                        .ok_or_else(|| format!("{other:?} is not a collective\n{USAGE}"))?,
                );
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    a.coll = coll.ok_or_else(|| format!("which collective?\n{USAGE}"))?;
    if a.min_bytes > a.max_bytes {
        return Err(format!("-b {} is above -e {}", a.min_bytes, a.max_bytes));
    }
    if a.step_bytes == 0 && a.factor < 2 {
        return Err(format!("-f {} must be at least 2 (or use -i)", a.factor));
    }
    if a.iters == 0 || a.threads == 0 || a.gpus == 0 {
        return Err("-n, -t and -g must be at least 1".into());
    }
    if a.procs > 0 && (a.threads > 1 || a.gpus > 1) {
        return Err("--procs runs one rank per process: leave -t and -g at 1".into());
    }
    if a.layer == Layer::Group && a.gpus > 1 {
        return Err("--layer group drives one device per rank: leave -g at 1".into());
    }
    if !a.coll.reduces() {
        a.ops.truncate(1);
    }
    Ok(a)
}

/// The sizes of the sweep.
pub fn sizes(a: &Args) -> Vec<usize> {
    let mut out = Vec::new();
    let mut s = a.min_bytes.max(1);
    loop {
        out.push(s);
        let next = if a.step_bytes > 0 {
            s.saturating_add(a.step_bytes)
        } else {
            s.saturating_mul(a.factor)
        };
        if next > a.max_bytes || next == s {
            break;
        }
        s = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Args, String> {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn flags_parse_like_nccl_tests() {
        let a = p("all_reduce -b 8 -e 128M -f 2 -n 5 -w 1 -c 0 -d half -o all -t 4").unwrap();
        assert_eq!(
            (a.min_bytes, a.max_bytes, a.iters, a.warmup),
            (8, 128 << 20, 5, 1)
        );
        assert_eq!(
            (a.dtype, a.ops.len(), a.threads, a.check),
            (DType::F16, 5, 4, false)
        );
        assert_eq!(sizes(&a).len(), 25);
        assert!(p("all_reduce -b 1G -e 1M").unwrap_err().contains("above"));
        assert!(p("all_reduce -d char").unwrap_err().contains("char"));
        assert!(p("allgather -o all").unwrap().ops.len() == 1);
        assert!(p("--layer raw").unwrap_err().contains("which collective"));
    }

    #[test]
    fn bus_factors_are_nccl_tests_ones() {
        assert_eq!(Coll::AllReduce.bus_factor(4), 1.5);
        assert_eq!(Coll::AllGather.bus_factor(4), 0.75);
        assert_eq!(Coll::Broadcast.bus_factor(4), 1.0);
    }
}
