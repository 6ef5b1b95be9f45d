//! Data-parallel training that survives a rank's death: the survivors shrink their
//! group and go on, and a replacement joins and receives the model.
//!
//! ```text
//! cargo build --example elastic
//! nccl-run -n 4 --max-restarts 1 --driver sim -- target/debug/examples/elastic --kill-rank 2 --kill-at 50
//! ```
//!
//! Each rank holds the model (a flat buffer of parameters) and, each step, computes
//! its gradient (here a function of its launch rank and the step), all-reduces the
//! gradients, and applies their mean. After every step the ranks check that their
//! parameters are identical (an all-reduce of a checksum, its minimum and maximum),
//! then let any replacement in ([`ProcessGroup::admit`]).
//!
//! The group runs under [`ErrorPolicy::Shrink`]: when a rank dies (`--kill-rank R
//! --kill-at S` makes launch rank R kill itself with SIGKILL at the start of step S),
//! the step's all-reduce fails on the others, who call [`ProcessGroup::shrink`], take
//! the model and step of the shrunk group's rank 0 (a step is committed only once the
//! checksums agree, but a rank may fail in the checksum after another passed it), and
//! go on; a failure anywhere in a step, the admit included, takes the same path. `nccl-run --max-restarts 1` restarts the dead
//! process; its [`ProcessGroup::from_env`] joins the running group through a grow
//! when the others next call `admit`, and the first thing it does is receive the
//! parameters and the step by broadcast. Every rank ends at the last step with the
//! same parameters.
//!
//! Each line is `[rank R +T ms]`, R the launch rank (a process slot: a replacement
//! takes its predecessor's) and T the time since the job's first rank started (a
//! shared clock kept in the job's store). The figures the issue asked for are printed
//! as they happen: from the death to the survivors' first successful collective on
//! the shrunk group, and from the replacement's start to its first collective.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use collectives::store::{ClientOptions, Store};
use collectives::{ErrorPolicy, Launch, Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

const TIMEOUT: Duration = Duration::from_secs(30);
const LR: f32 = 0.05;
/// The store keys of this example's own clock and of the death it injects.
const T0_KEY: &str = "elastic/t0_ms";
const KILLED_KEY: &str = "elastic/killed_ms";

struct Args {
    steps: u64,
    params: usize,
    kill: Option<(usize, u64)>,
}

const USAGE: &str =
    "usage: elastic [--steps N] [--params N] [--kill-rank R --kill-at STEP] (under a launcher)";

fn parse() -> Result<Args, String> {
    let mut a = Args {
        steps: 200,
        params: 4096,
        kill: None,
    };
    let (mut rank, mut at) = (None, None);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut number = |what: &str| -> Result<u64, String> {
            let v = it.next().ok_or(format!("{what} needs a number"))?;
            v.parse().map_err(|_| format!("{what} {v:?}: not a number"))
        };
        match flag.as_str() {
            "--steps" => a.steps = number("--steps")?,
            "--params" => a.params = number("--params")? as usize,
            "--kill-rank" => rank = Some(number("--kill-rank")? as usize),
            "--kill-at" => at = Some(number("--kill-at")?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    a.kill = match (rank, at) {
        (Some(r), Some(s)) => Some((r, s)),
        (None, None) => None,
        _ => return Err(format!("--kill-rank and --kill-at go together; {USAGE}")),
    };
    if a.params == 0 || a.steps == 0 {
        return Err(format!("--steps and --params must be above 0; {USAGE}"));
    }
    Ok(a)
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The job's store (the one `nccl-run` hosts), for this example's clock and the time
/// of the death it injects; `None` without one.
fn job_store() -> Option<Box<dyn Store>> {
    let url = std::env::var("NCCL_RS_STORE").ok()?;
    let mut opts = ClientOptions::new();
    if let Ok(token) = std::env::var("NCCL_RS_STORE_TOKEN") {
        opts = opts.token(&token);
    }
    collectives::store::connect(&url, &opts).ok()
}

fn read_ms(store: &dyn Store, key: &str) -> Option<u64> {
    let v = store.get(key).ok()??;
    String::from_utf8_lossy(&v).parse().ok()
}

/// Timeline lines against the job's clock.
struct Clock {
    slot: usize,
    t0_ms: u64,
}

impl Clock {
    fn say(&self, what: &str) {
        println!(
            "[rank {} +{:6} ms] {what}",
            self.slot,
            unix_ms().saturating_sub(self.t0_ms)
        );
    }
}

/// This rank's gradient at `step`: any function of the rank and the step will do.
fn gradient(slot: usize, step: u64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((step as usize * 31 + slot * 7 + i) % 97) as f32 / 97.0 - 0.5)
        .collect()
}

/// A checksum of the parameters' bits.
fn checksum(params: &[f32]) -> u64 {
    params.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, p| {
        (h ^ u64::from(p.to_bits())).wrapping_mul(0x100_0000_01b3)
    })
}

/// One training step: the gradients all-reduced, their mean applied.
fn train_step(
    pg: &ProcessGroup,
    stream: &Stream,
    params: &mut [f32],
    slot: usize,
    step: u64,
) -> collectives::Result<()> {
    let mut grads = DeviceBuffer::from_slice(stream, &gradient(slot, step, params.len()))?;
    pg.all_reduce(&mut grads, ReduceOp::Sum)?
        .wait_host(TIMEOUT)?;
    let sum = grads.to_vec(stream)?;
    let scale = LR / pg.size() as f32;
    for (p, g) in params.iter_mut().zip(sum) {
        *p -= scale * g;
    }
    Ok(())
}

/// Every rank's parameters are the same: the minimum and the maximum of their
/// checksums agree.
fn check_equal(pg: &ProcessGroup, stream: &Stream, params: &[f32]) -> collectives::Result<u64> {
    let mine = checksum(params);
    let mut lo = DeviceBuffer::from_slice(stream, &[mine])?;
    let mut hi = DeviceBuffer::from_slice(stream, &[mine])?;
    let min = pg.all_reduce(&mut lo, ReduceOp::Min)?;
    pg.all_reduce(&mut hi, ReduceOp::Max)?.wait_host(TIMEOUT)?;
    min.wait_host(TIMEOUT)?;
    let (lo, hi) = (lo.to_vec(stream)?[0], hi.to_vec(stream)?[0]);
    if lo != hi {
        return Err(nccl_safe::Error::InvalidUsage {
            op: "elastic",
            reason: format!("parameters differ between ranks: checksums {lo:016x} and {hi:016x}"),
        }
        .into());
    }
    Ok(mine)
}

/// The model and the step, from rank 0 to every rank (a replacement's first
/// operations; the others' right after they admitted it).
fn share_state(
    pg: &ProcessGroup,
    stream: &Stream,
    params: &mut Vec<f32>,
    step: &mut u64,
) -> collectives::Result<()> {
    let mut p = DeviceBuffer::from_slice(stream, params)?;
    let mut s = DeviceBuffer::from_slice(stream, &[*step])?;
    let model = pg.broadcast(&mut p, 0)?;
    pg.broadcast(&mut s, 0)?.wait_host(TIMEOUT)?;
    model.wait_host(TIMEOUT)?;
    *params = p.to_vec(stream)?;
    *step = s.to_vec(stream)?[0];
    Ok(())
}

/// One step, committed only once every rank's parameters agree: the gradients
/// all-reduced and applied, the parameters compared; then any waiting replacement
/// admitted (the grown group, when one came in).
fn advance(
    pg: &ProcessGroup,
    stream: &Stream,
    params: &mut Vec<f32>,
    slot: usize,
    step: &mut u64,
) -> collectives::Result<Option<ProcessGroup>> {
    let mut next = params.clone();
    train_step(pg, stream, &mut next, slot, *step)?;
    check_equal(pg, stream, &next)?;
    *params = next;
    *step += 1;
    pg.admit()
}

fn kill_myself() {
    // SAFETY: kill has no memory effects; it ends this process at once, as a crash or
    // the OOM killer would.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}

fn run(args: &Args) -> collectives::Result<()> {
    let started = Instant::now();
    let launch = Launch::from_env()?;
    let slot = launch.rank();
    let store = job_store();
    let t0_ms = store.as_deref().map_or(unix_ms(), |s| {
        let _ = s.compare_set(T0_KEY, None, unix_ms().to_string().as_bytes());
        read_ms(s, T0_KEY).unwrap_or_else(unix_ms)
    });
    let clock = Clock { slot, t0_ms };
    let options = Options::new()
        .name("train")
        .on_error(ErrorPolicy::Shrink)
        .timeout(TIMEOUT);
    let mut pg = ProcessGroup::from_launch(&launch, options)?;
    let stream = Stream::new(pg.device())?;
    let mut params = vec![1.0f32; args.params];
    let mut step = 0u64;
    if pg.joined_by_grow() {
        share_state(&pg, &stream, &mut params, &mut step)?;
        clock.say(&format!(
            "replacement joined as rank {} of {} (epoch {}) at step {step}; first collective \
             {} ms after this process started",
            pg.rank(),
            pg.size(),
            pg.epoch(),
            started.elapsed().as_millis()
        ));
    } else {
        clock.say(&format!("rank {} of {} ready", pg.rank(), pg.size()));
    }
    let mut resuming = false;
    while step < args.steps {
        if args.kill == Some((slot, step)) && launch.restart_count() == 0 {
            if let Some(s) = &store {
                let _ = s.set(KILLED_KEY, unix_ms().to_string().as_bytes());
            }
            clock.say(&format!("step {step}: killing myself (SIGKILL)"));
            kill_myself();
        }
        match advance(&pg, &stream, &mut params, slot, &mut step) {
            Ok(grown) => {
                if resuming {
                    resuming = false;
                    let since = store
                        .as_deref()
                        .and_then(|s| read_ms(s, KILLED_KEY))
                        .map(|k| format!(" {} ms after the death", unix_ms().saturating_sub(k)))
                        .unwrap_or_default();
                    clock.say(&format!(
                        "resumed: step {} done on the shrunk group{since}",
                        step - 1
                    ));
                }
                if let Some(grown) = grown {
                    pg = grown;
                    share_state(&pg, &stream, &mut params, &mut step)?;
                    clock.say(&format!(
                        "admitted a replacement: {} ranks (epoch {}) from step {step}",
                        pg.size(),
                        pg.epoch()
                    ));
                }
            }
            Err(e) => {
                clock.say(&format!("step {step} failed: {e}"));
                // The survivors may disagree by one step on what completed (a rank can
                // fail in the checksum after another passed it): the shrunk group
                // takes its new rank 0's model and step. A death during this recovery
                // shrinks again.
                loop {
                    pg = pg.shrink()?;
                    if share_state(&pg, &stream, &mut params, &mut step).is_ok() {
                        break;
                    }
                }
                clock.say(&format!(
                    "shrunk to {} ranks (epoch {}), now rank {}; going on from step {step}",
                    pg.size(),
                    pg.epoch(),
                    pg.rank()
                ));
                resuming = true;
            }
        }
    }
    let sum = check_equal(&pg, &stream, &params)?;
    clock.say(&format!(
        "done: step {step}, rank {} of {} (epoch {}), parameters {sum:016x}",
        pg.rank(),
        pg.size(),
        pg.epoch()
    ));
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("elastic: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("elastic: {e}");
            ExitCode::FAILURE
        }
    }
}
