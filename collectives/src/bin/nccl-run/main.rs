//! nccl-run: starts the ranks of a job on this node and supervises them.
//!
//! - Hosts the job's TCP store (node 0; on an ephemeral port of 127.0.0.1 for a
//!   single node, at `--master`'s port and on its interface for several), with a
//!   random job token for a single node, else `NCCL_RS_STORE_TOKEN`, which every node
//!   must share (without it, a store that other hosts reach is refused, unless
//!   `NCCL_RS_STORE_INSECURE=1`).
//! - Gives each rank the `NCCL_RS_*` variables ([`collectives::Launch`]'s `nccl-run`
//!   convention), `NCCL_RUNTIME_CONNECT=0` unless set, `--driver` as
//!   `NCCL_RS_DRIVER`, and on the sim enough devices (`NCCL_RS_SIM_DEVICES`).
//! - Watches the store's failure key: the first failure is printed at once with the
//!   merged hang report of the flight records the ranks wrote to the store.
//! - Forwards SIGINT/SIGTERM/SIGHUP; when a rank fails (or a failure is published),
//!   stops the others after `--grace` (0.5 s by default); exits with the first
//!   failure's status (128 + signal for a killed rank) and prints one summary line.
//! - Its ranks die with it (`PR_SET_PDEATHSIG`), even when it is killed with SIGKILL;
//!   what is left of a rank's process group is killed when the job ends.
//! - In a job whose groups heal (`ErrorPolicy::Shrink`, said in the store under
//!   `HEALS_KEY`), a rank whose process fails does not end the job: the others shrink
//!   and go on, and with `--max-restarts` its process is restarted with
//!   `NCCL_RS_RESTART_COUNT`, to join through a grow. The summary says what happened.

mod args;
mod procs;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use collectives::launch::{FAILED_KEY, HEALS_KEY, JobFailure, JobReport, RESTART};
use collectives::store::{ClientOptions, ServerOptions, Store, TcpStore, TcpStoreServer};
use procs::Rank;

/// How long nccl-run waits for the ranks' flight records after a failure.
const DUMP_WAIT: Duration = Duration::from_secs(3);
/// Between SIGTERM and SIGKILL when stopping ranks.
const KILL_AFTER: Duration = Duration::from_millis(500);

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match args::parse(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("nccl-run: {e}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("nccl-run: {e}");
            ExitCode::from(2)
        }
    }
}

/// A random token: 16 bytes of the kernel's randomness, in hex.
fn random_token() -> Result<String, String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("cannot read /dev/urandom for the job token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Where node 0 listens for `--master HOST`: that address when it is one; loopback
/// for `localhost` (the nodes are launchers on this host); for any other name every
/// interface, since other hosts resolve it to this host's address even where this
/// host's `/etc/hosts` maps it to loopback.
fn listen_host(host: &str) -> String {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return host.to_string();
    }
    if host.eq_ignore_ascii_case("localhost") || host.starts_with("localhost.") {
        return "127.0.0.1".to_string();
    }
    "0.0.0.0".to_string()
}

fn run(a: &args::Args) -> Result<u8, String> {
    // One node: a token of its own. Several: the one all nodes were given (the store
    // refuses to serve other hosts without one, saying how to set it).
    let token = match std::env::var("NCCL_RS_STORE_TOKEN") {
        Ok(t) if !t.is_empty() => Some(t),
        _ if a.nnodes == 1 => Some(random_token()?),
        _ => None,
    };
    let (bind, connect_host, port) = match &a.master {
        Some((host, port)) => (listen_host(host), host.clone(), *port),
        None => ("127.0.0.1".to_string(), "127.0.0.1".to_string(), 0),
    };
    let server = if a.node_rank == 0 {
        let mut opts = ServerOptions::for_job(a.nproc * a.nnodes);
        if let Some(t) = &token {
            opts = opts.token(t);
        }
        if std::env::var("NCCL_RS_STORE_INSECURE").is_ok_and(|v| v == "1") {
            opts = opts.allow_no_token();
        }
        let hostport = if bind.contains(':') {
            format!("[{bind}]:{port}")
        } else {
            format!("{bind}:{port}")
        };
        let s = TcpStoreServer::bind(&hostport, opts)
            .map_err(|e| format!("cannot host the store at {bind}:{port}: {e}"))?;
        Some(s)
    } else {
        None
    };
    let port = server.as_ref().map_or(port, |s| s.local_addr().port());
    let addr = if connect_host.contains(':') {
        format!("[{connect_host}]:{port}")
    } else {
        format!("{connect_host}:{port}")
    };
    let mut copts = ClientOptions::new().connect_timeout(Duration::from_secs(60));
    if let Some(t) = &token {
        copts = copts.token(t);
    }
    let store =
        TcpStore::connect(&addr, copts).map_err(|e| format!("cannot reach the store: {e}"))?;

    let world = a.nproc * a.nnodes;
    let mut common: Vec<(String, String)> = vec![
        ("NCCL_RS_WORLD_SIZE".into(), world.to_string()),
        ("NCCL_RS_LOCAL_WORLD_SIZE".into(), a.nproc.to_string()),
        ("NCCL_RS_NODE_RANK".into(), a.node_rank.to_string()),
        ("NCCL_RS_NNODES".into(), a.nnodes.to_string()),
        ("NCCL_RS_STORE".into(), format!("tcp://{addr}")),
    ];
    if let Some(t) = &token {
        common.push(("NCCL_RS_STORE_TOKEN".into(), t.clone()));
    }
    if std::env::var_os("NCCL_RUNTIME_CONNECT").is_none() {
        common.push(("NCCL_RUNTIME_CONNECT".into(), "0".into()));
    }
    if let Some(d) = &a.driver {
        common.push(("NCCL_RS_DRIVER".into(), d.clone()));
    }
    let sim_devices = std::env::var("NCCL_RS_SIM_DEVICES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(8);
    if a.nproc > sim_devices {
        common.push(("NCCL_RS_SIM_DEVICES".into(), a.nproc.min(64).to_string()));
    }

    procs::catch_signals();
    let start = Instant::now();
    let mut ranks = Vec::new();
    let mut envs = Vec::new();
    for local in 0..a.nproc {
        let rank = a.node_rank * a.nproc + local;
        let mut env = common.clone();
        env.push(("NCCL_RS_RANK".into(), rank.to_string()));
        env.push(("NCCL_RS_LOCAL_RANK".into(), local.to_string()));
        let spawned = Rank::spawn(&a.program, rank, &env, a.tag_output);
        envs.push(env);
        match spawned {
            Ok(r) => ranks.push(r),
            Err(e) => {
                for r in &ranks {
                    r.signal(libc::SIGKILL);
                }
                return Err(e);
            }
        }
    }
    let code = supervise(a, &mut ranks, &envs, &store, start);
    let _ = store.close();
    if let Some(server) = server {
        // Other nodes' launchers and ranks may still be finishing.
        let t = Instant::now();
        while server.connections() > 0 && t.elapsed() < a.grace {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Ok(code)
}

/// Why ranks are being stopped, and since when.
struct Stopping {
    since: Instant,
    termed: bool,
    killed: bool,
}

/// Whether the job's groups heal (`ErrorPolicy::Shrink`): they say so in the store
/// when they are made.
fn heals(store: &TcpStore) -> bool {
    matches!(store.get(HEALS_KEY), Ok(Some(_)))
}

/// What the healing did, for the summary.
struct Healing {
    /// Restarts made so far (at most `--max-restarts`).
    restarts: usize,
    /// Restarts per slot (the next one's `NCCL_RS_RESTART_COUNT`).
    per_slot: Vec<usize>,
    /// The ranks' processes restarted (reaped at the end with the others).
    retired: Vec<Rank>,
    /// One phrase per failure healed over.
    events: Vec<String>,
    /// The first failure healed over that was an error exit (not a death by a
    /// signal): the job's status, though the others went on.
    error_exit: Option<std::process::ExitStatus>,
}

impl Healing {
    /// A rank whose process failed in a job whose groups heal: restarted while
    /// `--max-restarts` allows, else left behind (the others shrink and go on).
    /// `true` when a new process runs in its slot.
    fn failed(
        &mut self,
        a: &args::Args,
        ranks: &mut [Rank],
        slot: usize,
        env: &[(String, String)],
        elapsed: Duration,
    ) -> bool {
        let r = &mut ranks[slot];
        r.healed_over = true;
        let (rank, status) = (r.rank, r.status.map(|(s, _)| s));
        if let Some(s) = status.filter(|s| s.code().is_some()) {
            self.error_exit.get_or_insert(s);
        }
        let what = status.map_or("ended".to_string(), procs::describe);
        let at = elapsed.as_secs_f64();
        if self.restarts < a.max_restarts {
            self.restarts += 1;
            self.per_slot[slot] += 1;
            let mut env = env.to_vec();
            env.push((RESTART.into(), self.per_slot[slot].to_string()));
            match Rank::spawn(&a.program, rank, &env, a.tag_output) {
                Ok(new) => {
                    eprintln!(
                        "nccl-run: rank {rank} {what} after {at:.1} s; restarting it (restart \
                         {} of {}): it joins the running group when the others admit it",
                        self.restarts, a.max_restarts
                    );
                    self.retired.push(std::mem::replace(&mut ranks[slot], new));
                    self.events
                        .push(format!("rank {rank} {what} at {at:.1} s and was restarted"));
                    return true;
                }
                Err(e) => {
                    eprintln!("nccl-run: rank {rank} {what} after {at:.1} s; {e}");
                    self.events.push(format!(
                        "rank {rank} {what} at {at:.1} s and could not be restarted"
                    ));
                }
            }
        } else {
            eprintln!(
                "nccl-run: rank {rank} {what} after {at:.1} s; the others go on without it \
                 (their groups shrink){}",
                if a.max_restarts > 0 {
                    "; no restarts left"
                } else {
                    ""
                }
            );
            self.events.push(format!(
                "rank {rank} {what} at {at:.1} s and was left behind"
            ));
        }
        false
    }
}

/// Supervises the ranks until all have ended: forwards signals, notices the first
/// failure (a rank's error exit or death, or a failure published in the store),
/// prints the published failure and the job's hang report (on a thread of its own:
/// reading the records never holds up the supervision), stops the others after
/// `--grace` (once the report has its records), and enforces `--timeout`. In a job
/// whose groups heal, a rank that fails is restarted (`--max-restarts`) or left
/// behind instead, and the others go on. Then kills what is left of each rank's
/// process group.
fn supervise(
    a: &args::Args,
    ranks: &mut [Rank],
    envs: &[Vec<(String, String)>],
    store: &TcpStore,
    start: Instant,
) -> u8 {
    use std::sync::atomic::{AtomicBool, Ordering};
    let ended: Vec<AtomicBool> = ranks.iter().map(|_| AtomicBool::new(false)).collect();
    let first_rank = ranks.first().map_or(0, |r| r.rank);
    let report_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut first_failure: Option<(usize, std::process::ExitStatus)> = None;
        let mut stopping: Option<Stopping> = None;
        let mut timed_out = false;
        let mut published: Option<JobFailure> = None;
        let mut reporting = false;
        let mut interrupted = None;
        let mut healing = Healing {
            restarts: 0,
            per_slot: vec![0; ranks.len()],
            retired: Vec::new(),
            events: Vec::new(),
            error_exit: None,
        };
        let fail_at = |stopping: &mut Option<Stopping>| {
            stopping.get_or_insert(Stopping {
                since: Instant::now() + a.grace,
                termed: false,
                killed: false,
            });
        };
        while ranks.iter().any(|r| r.status.is_none()) {
            if let Some(sig) = procs::take_signal() {
                eprintln!(
                    "nccl-run: {} received, forwarding to every rank",
                    procs::signal_name(sig)
                );
                for r in ranks.iter_mut() {
                    r.stopped = true;
                    r.signal(sig);
                }
                interrupted = Some(sig);
                stopping.get_or_insert(Stopping {
                    since: Instant::now(),
                    termed: true,
                    killed: false,
                });
            }
            // Of the ranks seen ending in one look, one killed by a signal is taken as
            // the first failure (the others most likely failed because of it).
            let mut seen: Vec<(usize, std::process::ExitStatus)> = Vec::new();
            for r in ranks.iter_mut() {
                if r.poll() {
                    ended[r.rank - first_rank].store(true, Ordering::Release);
                    let (status, _) = r.status.expect("just seen");
                    if !status.success() && !r.stopped {
                        seen.push((r.rank, status));
                    }
                }
            }
            seen.sort_by_key(|(_, s)| s.code().is_some());
            // A job whose groups heal goes on: the failed rank is restarted or left
            // behind (its failure was published under its group's epoch, not the job's).
            if !seen.is_empty()
                && first_failure.is_none()
                && stopping.is_none()
                && published.is_none()
                && heals(store)
            {
                for (rank, _) in seen.drain(..) {
                    let slot = rank - first_rank;
                    if healing.failed(a, ranks, slot, &envs[slot], start.elapsed()) {
                        ended[slot].store(false, Ordering::Release);
                    }
                }
            }
            if first_failure.is_none() {
                if let Some(&(rank, status)) = seen.first() {
                    first_failure = Some((rank, status));
                    eprintln!(
                        "nccl-run: rank {} {} after {:.1} s; stopping the others in {:.1} s",
                        rank,
                        procs::describe(status),
                        start.elapsed().as_secs_f64(),
                        a.grace.as_secs_f64()
                    );
                    fail_at(&mut stopping);
                }
            }
            if published.is_none() {
                if let Ok(Some(bytes)) = store.get(FAILED_KEY) {
                    published = announce(&bytes);
                    if let Some(f) = published.clone() {
                        fail_at(&mut stopping);
                        reporting = true;
                        let (ended, report_done) = (&ended, &report_done);
                        scope.spawn(move || {
                            // Set however the report ends (a panic too): the ranks
                            // are stopped once it is done.
                            struct Done<'a>(&'a AtomicBool);
                            impl Drop for Done<'_> {
                                fn drop(&mut self) {
                                    self.0.store(true, Ordering::Release);
                                }
                            }
                            let _done = Done(report_done);
                            print_report(store, &f, &|r| {
                                (f.exited && r == f.rank)
                                    || r.checked_sub(first_rank)
                                        .and_then(|i| ended.get(i))
                                        .is_some_and(|e| e.load(Ordering::Acquire))
                            });
                        });
                    }
                }
            }
            if let Some(limit) = a.timeout {
                if !timed_out && start.elapsed() > limit {
                    timed_out = true;
                    eprintln!(
                        "nccl-run: --timeout {:.1} s reached, stopping every rank",
                        limit.as_secs_f64()
                    );
                    stopping = Some(Stopping {
                        since: Instant::now(),
                        termed: false,
                        killed: false,
                    });
                }
            }
            // The report's records come from the ranks still running: they are
            // stopped once it has them (or gave up waiting), unless it is the timeout.
            let report_ready = !reporting || report_done.load(Ordering::Acquire);
            if let Some(s) = &mut stopping {
                let now = Instant::now();
                if now >= s.since && !s.termed && (report_ready || timed_out) {
                    s.termed = true;
                    s.since = now;
                    for r in ranks.iter_mut().filter(|r| r.status.is_none()) {
                        r.stopped = true;
                        r.signal(libc::SIGTERM);
                    }
                }
                if s.termed && now >= s.since + KILL_AFTER && !s.killed {
                    s.killed = true;
                    for r in ranks.iter_mut().filter(|r| r.status.is_none()) {
                        r.stopped = true;
                        r.signal(libc::SIGKILL);
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The key may have been set just before the last rank ended.
        if published.is_none() {
            if let Ok(Some(bytes)) = store.get(FAILED_KEY) {
                published = announce(&bytes);
                if let Some(f) = &published {
                    print_report(store, f, &|_| true);
                }
            }
        }
        // Background children of the ranks go with the job; their output is
        // relayed until then.
        let deadline = Instant::now() + Duration::from_millis(500);
        for r in ranks.iter_mut().chain(healing.retired.iter_mut()) {
            r.finish(deadline);
        }
        if !healing.events.is_empty()
            && first_failure.is_none()
            && published.is_none()
            && !timed_out
            && interrupted.is_none()
        {
            return healed_summary(ranks, &healing, start);
        }
        summary(
            ranks,
            published,
            first_failure,
            timed_out,
            interrupted,
            start,
        )
    })
}

/// Prints the first failure published (at once, when it is seen).
fn announce(bytes: &[u8]) -> Option<JobFailure> {
    let failure = match JobFailure::parse(bytes) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("nccl-run: a rank published a failure that does not parse: {e}");
            return None;
        }
    };
    match failure.cause {
        Some(c) if c != failure.rank => eprintln!(
            "nccl-run: rank {c} failed first, group {}, as rank {} (pid {}) reported: {}",
            failure.group, failure.rank, failure.pid, failure.reason
        ),
        _ => eprintln!(
            "nccl-run: rank {} (pid {}) failed first, group {}: {}",
            failure.rank, failure.pid, failure.group, failure.reason
        ),
    }
    Some(failure)
}

/// The merged hang report of the ranks' flight records: waits at most
/// [`DUMP_WAIT`] for the records of the ranks that are not `gone`.
fn print_report(store: &TcpStore, failure: &JobFailure, gone: &dyn Fn(usize) -> bool) {
    let report =
        JobReport::read_waiting_for_live(store, &failure.prefix, failure.size, DUMP_WAIT, gone);
    for l in report.lines {
        eprintln!("nccl-run: hang report: {l}");
    }
}

/// The summary line of a job whose groups healed over failures; returns the exit
/// code: 0 when the failures healed over were deaths (killed by a signal), every
/// rank's last process that was not left behind exited with 0, and at least one did;
/// else the status of the first error exit.
fn healed_summary(ranks: &[Rank], healing: &Healing, start: Instant) -> u8 {
    let events = &healing.events;
    let n = ranks.len();
    let secs = start.elapsed().as_secs_f64();
    let failed: Vec<&Rank> = ranks
        .iter()
        .filter(|r| !r.healed_over && !r.succeeded())
        .collect();
    let ok = ranks.iter().filter(|r| r.succeeded()).count();
    let happened = events.join("; ");
    if let Some(r) = failed.first() {
        let status = r.status.map(|(s, _)| s);
        eprintln!(
            "nccl-run: {n} ranks, {secs:.1} s: {happened}; then rank {} {}",
            r.rank,
            status.map_or("ended".to_string(), procs::describe)
        );
        return status.map_or(1, procs::exit_code);
    }
    if ok == 0 {
        eprintln!("nccl-run: {n} ranks, {secs:.1} s: {happened}; no rank finished");
        return 1;
    }
    eprintln!(
        "nccl-run: {n} ranks, {secs:.1} s: {happened}; the job went on and {ok} rank(s) \
         exited with status 0"
    );
    // An error exit is the job's status even when the others went on without it.
    healing.error_exit.map_or(0, procs::exit_code)
}

/// The summary line; returns the exit code.
fn summary(
    ranks: &[Rank],
    published: Option<JobFailure>,
    first_failure: Option<(usize, std::process::ExitStatus)>,
    timed_out: bool,
    interrupted: Option<i32>,
    start: Instant,
) -> u8 {
    let n = ranks.len();
    let secs = start.elapsed().as_secs_f64();
    // The store orders failures; exits are seen by looking at the processes, in
    // whatever order the looks find them. When the rank of the first failure published
    // failed too, it failed first: the others learn of it through the store, and may
    // exit before a look sees it gone.
    let first_failure = match (&published, first_failure) {
        (Some(f), Some((seen, _))) if f.origin() != seen => ranks
            .iter()
            .find(|r| r.rank == f.origin() && !r.stopped)
            .and_then(|r| r.status.map(|(s, _)| s))
            .filter(|s| !s.success())
            .map(|s| (f.origin(), s))
            .or(first_failure),
        _ => first_failure,
    };
    if let Some((rank, status)) = first_failure {
        let list = |pick: &dyn Fn(&Rank) -> bool| -> Option<String> {
            let rs: Vec<String> = ranks
                .iter()
                .filter(|r| pick(r))
                .map(|r| r.rank.to_string())
                .collect();
            match rs.len() {
                0 => None,
                1 => Some(format!("rank {}", rs[0])),
                _ => Some(format!("ranks {}", rs.join(","))),
            }
        };
        let failed_too = list(&|r| !r.stopped && !r.succeeded() && r.rank != rank);
        let stopped = list(&|r| r.stopped);
        let cause = published.map(|f| {
            let by = match f.cause {
                Some(c) if c != f.rank => format!(", as rank {} reported", f.rank),
                _ => String::new(),
            };
            format!(
                "; first failure published: rank {}{by} ({})",
                f.origin(),
                f.reason
            )
        });
        eprintln!(
            "nccl-run: {n} ranks, {secs:.1} s: rank {rank} failed first ({}){}{}{}",
            procs::describe(status),
            failed_too.map_or(String::new(), |r| format!("; {r} failed after it")),
            stopped.map_or(String::new(), |r| format!("; {r} stopped by nccl-run")),
            cause.unwrap_or_default(),
        );
        return procs::exit_code(status);
    }
    if let Some(f) = published.filter(|_| !timed_out && interrupted.is_none()) {
        // Every rank was stopped by nccl-run after a failure was published.
        let by = match f.cause {
            Some(c) if c != f.rank => format!(", as rank {} reported", f.rank),
            _ => String::new(),
        };
        let stopped = ranks.iter().filter(|r| r.stopped).count();
        eprintln!(
            "nccl-run: {n} ranks, {secs:.1} s: rank {}{by} failed first ({}); {}",
            f.origin(),
            f.reason,
            if stopped > 0 {
                format!("{stopped} rank(s) stopped by nccl-run")
            } else {
                "every rank exited with status 0 after it".to_string()
            }
        );
        return 1;
    }
    if timed_out {
        eprintln!("nccl-run: {n} ranks, {secs:.1} s: stopped by --timeout");
        return 124;
    }
    if let Some(sig) = interrupted {
        eprintln!(
            "nccl-run: {n} ranks, {secs:.1} s: stopped by {}",
            procs::signal_name(sig)
        );
        return u8::try_from(128 + sig).unwrap_or(255);
    }
    eprintln!("nccl-run: {n} ranks, {secs:.1} s: every rank exited with status 0");
    0
}
