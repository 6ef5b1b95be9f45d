//! The control plane at scale (issue 25): N simulated ranks against one TCP store on
//! this machine, for N = 1,024, 4,096 and 16,384 (`NCCL_RS_SCALE_SIZES=...` for
//! others, e.g. `256` for CI's smoke pass).
//!
//! The store is served by this process, with the limits a job of N ranks gets
//! ([`ServerOptions::for_job`]); the ranks are threads of a few client processes
//! (this binary again, at most 8,192 ranks each), each a real [`TcpStore`] doing what
//! a rank of `ProcessGroup::from_env` does with its store:
//!
//! 1. connect (and say hello);
//! 2. meet ([`store::rendezvous`], rank 0's value standing for the unique id);
//! 3. watch the job's failure key with one long wait that returns the record
//!    (`wait_get`), as the failure link does.
//!
//! Printed per N: the time to connect every rank, the time from "go" until every rank
//! has met (and per rank), the server's resident memory and threads with every rank
//! connected and watching, the store's requests per second and the CPU it uses while
//! the job is idle (2 s), and the time from a failure record being set until every
//! rank has read it.
//!
//! Run with `cargo bench -p collectives --bench scale`; `cargo test` runs it as a
//! smoke pass of 256 ranks, which fails if a rank fails, if the serving process has
//! more than its two threads, or if the idle store receives any request.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use collectives::store::{self, ClientOptions, ServerOptions, Store, TcpStore, TcpStoreServer};

/// Ranks per client process at most.
const PER_PROCESS: usize = 8192;
/// The key a failure is published under (as the failure link's).
const FAILED: &str = "scale/failed";
/// How long the idle store is watched.
const IDLE: Duration = Duration::from_secs(2);
/// The stack of a rank's thread.
const STACK: usize = 128 * 1024;
/// Goals on this machine for 16,384 ranks (issue 25).
const GOAL_RENDEZVOUS: Duration = Duration::from_secs(5);
const GOAL_FAILURE: Duration = Duration::from_secs(1);
const GOAL_IDLE_CPU: f64 = 5.0;

fn main() {
    if std::env::var("NCCL_RS_SCALE_CLIENT").is_ok() {
        client();
        return;
    }
    // `cargo test` runs benches without `--bench`: a smoke pass of 256 ranks.
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<usize> = std::env::var("NCCL_RS_SCALE_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| {
            if full {
                vec![1024, 4096, 16384]
            } else {
                vec![256]
            }
        });
    println!(
        "{:>6} | {:>10} | {:>12} | {:>9} | {:>10} | {:>7} | {:>9} | {:>8} | {:>11}",
        "ranks",
        "connect s",
        "rendezvous s",
        "us/rank",
        "server MiB",
        "threads",
        "idle rq/s",
        "idle CPU",
        "failure ms"
    );
    let mut rows = Vec::new();
    for n in sizes {
        let row = run(n);
        println!(
            "{:>6} | {:>10.2} | {:>12.3} | {:>9.1} | {:>10.1} | {:>7} | {:>9.1} | {:>7.2}% | {:>11.1}",
            n,
            row.connect.as_secs_f64(),
            row.rendezvous.as_secs_f64(),
            row.rendezvous.as_secs_f64() * 1e6 / n as f64,
            row.rss_kib as f64 / 1024.0,
            row.threads,
            row.idle_requests,
            row.idle_cpu,
            row.failure.as_secs_f64() * 1e3
        );
        rows.push((n, row));
    }
    if let Some((n, r)) = rows.iter().find(|(n, _)| *n == 16384) {
        let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
        println!(
            "goals at {n} ranks: rendezvous < {GOAL_RENDEZVOUS:?}: {}; failure to all < \
             {GOAL_FAILURE:?}: {}; idle store < {GOAL_IDLE_CPU}% of a core: {}",
            verdict(r.rendezvous < GOAL_RENDEZVOUS),
            verdict(r.failure < GOAL_FAILURE),
            verdict(r.idle_cpu < GOAL_IDLE_CPU)
        );
    }
    if rows.len() > 1 {
        let (n0, r0) = &rows[0];
        let (n1, r1) = &rows[rows.len() - 1];
        let per = |r: &Row, n: usize| r.rendezvous.as_secs_f64() / n as f64;
        println!(
            "growth from {n0} to {n1} ranks: rendezvous time per rank x{:.2}, failure time \
             x{:.2}, server memory per rank x{:.2}",
            per(r1, *n1) / per(r0, *n0),
            r1.failure.as_secs_f64() / r0.failure.as_secs_f64(),
            (r1.rss_kib as f64 / *n1 as f64) / (r0.rss_kib as f64 / *n0 as f64)
        );
    }
}

struct Row {
    connect: Duration,
    rendezvous: Duration,
    rss_kib: u64,
    threads: u64,
    idle_requests: f64,
    idle_cpu: f64,
    failure: Duration,
}

/// One client process: its stdin (commands) and its stdout (reports).
struct Proc {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Proc {
    /// The next report line, which must start with `what`; returns the rest.
    fn expect(&mut self, what: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            if self.out.read_line(&mut line).unwrap_or(0) == 0 {
                panic!("a client process ended before saying {what:?}");
            }
            if let Some(rest) = line.trim_end().strip_prefix(what) {
                return rest.trim().to_string();
            }
        }
    }

    fn tell(&mut self, what: &str) {
        writeln!(self.stdin, "{what}").expect("telling a client process");
        self.stdin.flush().expect("telling a client process");
    }
}

fn run(n: usize) -> Row {
    let server = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::for_job(n)).unwrap();
    let addr = server.local_addr().to_string();
    let procs_n = n.div_ceil(PER_PROCESS).max(2).min(n);
    let exe = std::env::current_exe().unwrap();
    let start = Instant::now();
    let mut procs: Vec<Proc> = (0..procs_n)
        .map(|p| {
            let first = p * n / procs_n;
            let count = (p + 1) * n / procs_n - first;
            let mut child = Command::new(&exe)
                .env("NCCL_RS_SCALE_CLIENT", "1")
                .env("NCCL_RS_SCALE_ADDR", &addr)
                .env("NCCL_RS_SCALE_FIRST", first.to_string())
                .env("NCCL_RS_SCALE_COUNT", count.to_string())
                .env("NCCL_RS_SCALE_SIZE", n.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("starting a client process");
            let stdin = child.stdin.take().unwrap();
            let out = BufReader::new(child.stdout.take().unwrap());
            Proc { child, stdin, out }
        })
        .collect();
    for p in &mut procs {
        p.expect("connected");
    }
    let connect = start.elapsed();
    let start = Instant::now();
    for p in &mut procs {
        p.tell("go");
    }
    for p in &mut procs {
        p.expect("met");
    }
    let rendezvous = start.elapsed();
    for p in &mut procs {
        p.expect("watching");
    }
    // The ranks' waits have reached the server once it has served them all.
    thread::sleep(Duration::from_millis(300));
    let (rss_kib, threads) = memory_and_threads();
    let (requests0, cpu0, t0) = (server.requests(), cpu_seconds(), Instant::now());
    thread::sleep(IDLE);
    let (requests1, cpu1, t1) = (server.requests(), cpu_seconds(), Instant::now());
    let idle_s = (t1 - t0).as_secs_f64();
    let idle_requests = (requests1 - requests0) as f64 / idle_s;
    let idle_cpu = 100.0 * (cpu1 - cpu0) / idle_s;
    // A rank fails: its record is published as the failure link does.
    let failing = TcpStore::connect(&addr, ClientOptions::new()).unwrap();
    let set_at = now_ns();
    failing
        .compare_set(FAILED, None, b"rank 7 failed")
        .expect("publishing the failure");
    let mut last_seen = 0u64;
    for p in &mut procs {
        last_seen = last_seen.max(p.expect("seen").parse().unwrap());
    }
    let failure = Duration::from_nanos(last_seen.saturating_sub(set_at));
    let _ = failing.close();
    for p in &mut procs {
        p.tell("exit");
    }
    for mut p in procs {
        let status = p.child.wait().expect("waiting for a client process");
        assert!(status.success(), "a client process failed: {status}");
    }
    // What the design promises, whatever the machine's speed: one thread serves every
    // connection, and idle ranks send the store nothing.
    assert!(threads <= 2, "{threads} threads in the serving process");
    assert_eq!(requests1, requests0, "requests to an idle store");
    Row {
        connect,
        rendezvous,
        rss_kib,
        threads,
        idle_requests,
        idle_cpu,
        failure,
    }
}

/// This process's resident memory (KiB) and thread count.
fn memory_and_threads() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("Threads:"))
}

/// CPU seconds this process has used (user and system).
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

/// The wall clock in nanoseconds (one clock for every process of this machine).
fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A flag the main thread raises once, for the ranks to wait on. Each rank parks on
/// its own (a shared mutex and condition variable would have thousands of threads
/// contend for one lock, and the harness measure itself).
#[derive(Default)]
struct Signal {
    up: AtomicBool,
}

impl Signal {
    fn raise(&self, ranks: &[thread::JoinHandle<()>]) {
        self.up.store(true, Ordering::SeqCst);
        for r in ranks {
            r.thread().unpark();
        }
    }

    fn wait(&self) {
        while !self.up.load(Ordering::SeqCst) {
            thread::park();
        }
    }
}

/// A client process: `COUNT` ranks from `FIRST` of a job of `SIZE`.
fn client() {
    let var = |name: &str| std::env::var(name).expect(name);
    let addr = var("NCCL_RS_SCALE_ADDR");
    let first: usize = var("NCCL_RS_SCALE_FIRST").parse().unwrap();
    let count: usize = var("NCCL_RS_SCALE_COUNT").parse().unwrap();
    let size: usize = var("NCCL_RS_SCALE_SIZE").parse().unwrap();
    let go = Arc::new(Signal::default());
    let exit = Arc::new(Signal::default());
    let connected = Arc::new(AtomicUsize::new(0));
    let met = Arc::new(AtomicUsize::new(0));
    let watching = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(0));
    let last_seen = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let ranks: Vec<_> = (first..first + count)
        .map(|rank| {
            let (addr, go, exit) = (addr.clone(), go.clone(), exit.clone());
            let (connected, met, watching) = (connected.clone(), met.clone(), watching.clone());
            let (seen, last_seen, failed) = (seen.clone(), last_seen.clone(), failed.clone());
            thread::Builder::new()
                .stack_size(STACK)
                .spawn(move || {
                    let opts = ClientOptions::new().connect_timeout(Duration::from_secs(120));
                    let s = match TcpStore::connect(&addr, opts) {
                        Ok(s) => s,
                        Err(e) => {
                            eprintln!("rank {rank}: {e}");
                            failed.store(true, Ordering::SeqCst);
                            connected.fetch_add(1, Ordering::SeqCst);
                            return;
                        }
                    };
                    connected.fetch_add(1, Ordering::SeqCst);
                    go.wait();
                    let id = (rank == 0).then_some(&b"unique id"[..]);
                    let got = store::rendezvous(
                        &s,
                        "scale/meet",
                        rank,
                        size,
                        id,
                        Duration::from_secs(120),
                    );
                    if !matches!(got.as_deref(), Ok(b"unique id")) {
                        eprintln!("rank {rank}: rendezvous: {got:?}");
                        failed.store(true, Ordering::SeqCst);
                    }
                    met.fetch_add(1, Ordering::SeqCst);
                    let mut announced = false;
                    loop {
                        if !announced {
                            watching.fetch_add(1, Ordering::SeqCst);
                            announced = true;
                        }
                        match s.wait_get(FAILED, Duration::from_secs(600)) {
                            Ok(Some(_)) => break,
                            Ok(None) => continue,
                            Err(e) => {
                                eprintln!("rank {rank}: watching: {e}");
                                failed.store(true, Ordering::SeqCst);
                                break;
                            }
                        }
                    }
                    last_seen.fetch_max(now_ns(), Ordering::SeqCst);
                    seen.fetch_add(1, Ordering::SeqCst);
                    exit.wait();
                    let _ = s.close();
                })
                .expect("starting a rank's thread")
        })
        .collect();
    let until = |counter: &AtomicUsize| {
        while counter.load(Ordering::SeqCst) < count {
            thread::sleep(Duration::from_millis(2));
        }
    };
    let say = |what: String| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{what}");
        let _ = out.flush();
    };
    let stdin = std::io::stdin();
    let mut line = String::new();
    let mut read = |want: &str| loop {
        line.clear();
        if stdin.read_line(&mut line).unwrap_or(0) == 0 || line.trim() == want {
            return;
        }
    };
    until(&connected);
    say("connected".into());
    read("go");
    go.raise(&ranks);
    until(&met);
    say("met".into());
    until(&watching);
    say("watching".into());
    until(&seen);
    say(format!("seen {}", last_seen.load(Ordering::SeqCst)));
    read("exit");
    exit.raise(&ranks);
    for r in ranks {
        let _ = r.join();
    }
    if failed.load(Ordering::SeqCst) {
        eprintln!("some ranks failed (see above)");
        std::process::exit(1);
    }
}
