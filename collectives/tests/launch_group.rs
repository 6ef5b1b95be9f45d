//! `ProcessGroup::from_env` in real processes without `nccl-run`: torchrun-style
//! variables with rank 0 hosting the store (and a token), a file store, Slurm's
//! derived address, a rank that never arrives, the opt-out of failure propagation,
//! and rank 0 printing the job's hang report when no `nccl-run` does. This test binary re-runs itself as each rank (`child`, an entry
//! point that normal runs show as ignored); ranks report on lines starting with `@@`.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

const SCENARIO: &str = "NCCL_RS_TEST_SCENARIO";
const PATIENCE: Duration = Duration::from_secs(60);

mod common;
use common::free_port;

fn spawn(scenario: &str, env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        "child",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(SCENARIO, scenario)
    .env("NCCL_RS_DRIVER", "sim")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("the test binary re-runs itself")
}

/// Waits for a child (killing it past `PATIENCE`): success and its `@@` lines.
fn finish(mut child: Child) -> (bool, Vec<String>, String) {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let lines = text
        .lines()
        .filter_map(|l| l.find("@@ ").map(|i| l[i + 3..].to_string()))
        .collect();
    (out.status.success(), lines, text)
}

/// torchrun-style variables for `rank` of `size` on one node.
fn torchrun(rank: usize, size: usize, port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("RANK", rank.to_string()),
        ("WORLD_SIZE", size.to_string()),
        ("LOCAL_RANK", rank.to_string()),
        ("LOCAL_WORLD_SIZE", size.to_string()),
        ("MASTER_ADDR", "127.0.0.1".into()),
        ("MASTER_PORT", port.to_string()),
    ]
}

#[test]
#[ignore = "the entry point of this file's child processes (run by the other tests)"]
fn child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let timeout = Duration::from_millis(
        std::env::var("TEST_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30_000),
    );
    let opts = Options::new()
        .timeout(timeout)
        .propagate_failures(scenario != "opt-out");
    let pg = match ProcessGroup::from_env(opts) {
        Ok(pg) => pg,
        Err(e) => {
            println!("@@ error: {e}");
            std::process::exit(1);
        }
    };
    let (rank, size) = (pg.rank(), pg.size());
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[rank as i64 + 1; 3]).unwrap();
    pg.all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    let n = size as i64;
    if scenario == "missing" || scenario == "killed" {
        // Rank 1 never issues the second all-reduce; the others time out ("missing"),
        // or it dies first, leaving its group unclosed ("killed").
        if rank == 1 && scenario == "killed" {
            std::thread::sleep(Duration::from_millis(900));
            std::process::exit(3);
        }
        if rank == 1 {
            let start = Instant::now();
            while pg.aborted().is_none() && start.elapsed() < PATIENCE {
                std::thread::sleep(Duration::from_millis(10));
            }
            drop(pg);
            std::process::exit(1);
        }
        let err = pg
            .all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap_err();
        println!("@@ error: {err}");
        drop(pg); // waits for rank 0's report, which is printed on the group's link
        std::process::exit(1);
    }
    println!("@@ sum {}", x.to_vec(&s).unwrap()[0]);
    assert_eq!(x.to_vec(&s).unwrap(), vec![n * (n + 1) / 2; 3]);
    if scenario == "idle" {
        std::thread::sleep(Duration::from_secs(3));
        let start = Instant::now();
        drop(pg);
        println!("@@ closed in ms {}", start.elapsed().as_millis());
        return;
    }
    if scenario == "opt-out" {
        if rank == 1 {
            // SAFETY: kill(2) has no memory effects; this process ends here.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_secs(2));
        println!("@@ aborted {:?}", pg.aborted());
    }
}

#[test]
fn torchrun_style_rank_zero_hosts_the_store_with_a_token() {
    let port = free_port();
    let kids: Vec<Child> = (0..3)
        .map(|r| {
            let mut env = torchrun(r, 3, port);
            env.push(("NCCL_RS_STORE_TOKEN", "s3cret".into()));
            spawn("sum", &env)
        })
        .collect();
    for (rank, kid) in kids.into_iter().enumerate() {
        let (ok, lines, text) = finish(kid);
        assert!(ok, "rank {rank}: {text}");
        assert_eq!(lines, ["sum 6"], "rank {rank}");
    }
}

#[test]
fn a_wrong_token_is_refused_naming_the_store() {
    let port = free_port();
    let mut env0 = torchrun(0, 2, port);
    env0.push(("NCCL_RS_STORE_TOKEN", "right".into()));
    env0.push(("TEST_TIMEOUT_MS", "3000".into()));
    let mut env1 = torchrun(1, 2, port);
    env1.push(("NCCL_RS_STORE_TOKEN", "wrong".into()));
    env1.push(("TEST_TIMEOUT_MS", "3000".into()));
    let (k0, k1) = (spawn("sum", &env0), spawn("sum", &env1));
    let (ok1, lines1, text1) = finish(k1);
    let (ok0, lines0, _) = finish(k0);
    assert!(!ok1 && !ok0, "{text1}");
    let e1 = lines1[0].as_str();
    assert!(
        e1.contains(&format!("tcp://127.0.0.1:{port}")) && e1.contains("rejected"),
        "{e1}"
    );
    // Rank 0 waited for rank 1, which never joined.
    let e0 = lines0[0].as_str();
    assert!(e0.contains("missing ranks [1]"), "{e0}");
}

#[test]
fn a_rank_that_never_arrives_is_named_with_the_address() {
    let port = free_port();
    let kids: Vec<Child> = [0, 2]
        .into_iter()
        .map(|r| {
            let mut env = torchrun(r, 3, port);
            env.push(("TEST_TIMEOUT_MS", "2000".into()));
            spawn("sum", &env)
        })
        .collect();
    for kid in kids {
        let (ok, lines, text) = finish(kid);
        assert!(!ok, "{text}");
        let e = lines[0].as_str();
        // Rank 0 times out; rank 2 too, or sees the store close as rank 0 gives up.
        assert!(
            e.contains(&format!("rendezvous at tcp://127.0.0.1:{port}"))
                && e.contains("every rank to join")
                && e.contains("missing ranks [1]"),
            "{e}"
        );
    }
}

/// Open MPI's variables for rank `r` of `size` on one node, with the store at `url`.
fn ompi_env(r: usize, size: usize, url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OMPI_COMM_WORLD_RANK", r.to_string()),
        ("OMPI_COMM_WORLD_SIZE", size.to_string()),
        ("OMPI_COMM_WORLD_LOCAL_RANK", r.to_string()),
        ("OMPI_COMM_WORLD_LOCAL_SIZE", size.to_string()),
        ("NCCL_RS_STORE", url.to_string()),
    ]
}

#[test]
fn a_file_store_on_a_shared_folder() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().display());
    let kids: Vec<Child> = (0..2)
        .map(|r| spawn("sum", &ompi_env(r, 2, &url)))
        .collect();
    for kid in kids {
        let (ok, lines, text) = finish(kid);
        assert!(ok, "{text}");
        assert_eq!(lines, ["sum 3"]);
    }
    assert!(dir.path().read_dir().unwrap().next().is_some());
}

#[test]
fn slurm_ranks_meet_at_the_derived_address() {
    // A job id of our own so that concurrent runs pick different ports.
    let job = (std::process::id() % 1000).to_string();
    let kids: Vec<Child> = (0..2)
        .map(|r| {
            let env = [
                ("SLURM_PROCID", r.to_string()),
                ("SLURM_NTASKS", "2".into()),
                ("SLURM_LOCALID", r.to_string()),
                ("SLURM_NODEID", "0".into()),
                ("SLURM_STEP_TASKS_PER_NODE", "2".into()),
                ("SLURM_STEP_NODELIST", "localhost".into()),
                ("SLURM_JOB_ID", job.clone()),
                ("SLURM_STEP_ID", "0".into()),
            ];
            spawn("sum", &env)
        })
        .collect();
    for kid in kids {
        let (ok, lines, text) = finish(kid);
        assert!(ok, "{text}");
        assert_eq!(lines, ["sum 3"]);
    }
}

#[test]
fn failure_propagation_can_be_turned_off() {
    let port = free_port();
    let kids: Vec<Child> = (0..2)
        .map(|r| spawn("opt-out", &torchrun(r, 2, port)))
        .collect();
    let mut results = kids.into_iter().map(finish);
    let (ok0, lines0, text0) = results.next().unwrap();
    assert!(ok0, "{text0}");
    // Rank 1 was killed, and rank 0 was not told: no abort.
    assert_eq!(lines0, ["sum 3", "aborted None"], "{text0}");
    let (ok1, lines1, _) = results.next().unwrap();
    assert!(!ok1);
    assert_eq!(lines1, ["sum 3"]);
}

/// `scenario` on three torchrun-style ranks with a group timeout of `timeout_ms`;
/// each rank's whole output.
fn three_torchrun_ranks(scenario: &str, timeout_ms: &str) -> Vec<String> {
    let port = free_port();
    let kids: Vec<Child> = (0..3)
        .map(|r| {
            let mut env = torchrun(r, 3, port);
            env.push(("TEST_TIMEOUT_MS", timeout_ms.into()));
            spawn(scenario, &env)
        })
        .collect();
    kids.into_iter().map(|kid| finish(kid).2).collect()
}

#[test]
fn without_nccl_run_rank_zero_prints_the_jobs_hang_report_naming_the_missing_rank() {
    let texts = three_torchrun_ranks("missing", "1000");
    let report: Vec<&str> = texts[0]
        .lines()
        .filter(|l| l.starts_with("nccl-rs: hang report: "))
        .collect();
    assert!(
        report.iter().any(|l| l.contains("all_reduce #2 (")
            && l.contains("launch_group.rs")
            && l.contains("ranks 0,2 waiting; rank 1 never issued it (last: all_reduce #1 at")),
        "rank 0's output: {}",
        texts[0]
    );
    eprintln!("{}", report.join("\n"));
    // Only rank 0 prints it.
    for (rank, text) in texts.iter().enumerate().skip(1) {
        assert!(
            !text.contains("nccl-rs: hang report"),
            "rank {rank}: {text}"
        );
    }
}

#[test]
fn without_nccl_run_rank_zero_reports_once_even_when_the_missing_rank_died() {
    // Rank 1 dies (its connection drops without a goodbye) before the others' 5 s
    // timeout: they learn it through the store, rank 0 drops its group and exits at
    // once, and its report must still come out, once, before the exit.
    let texts = three_torchrun_ranks("killed", "5000");
    let rank0 = &texts[0];
    // Rank 0 learns it from the store, or first from rank 2's abort (the sim shows a
    // peer's abort to the collective's other ranks).
    assert!(rank0.contains("@@ error:"), "rank 0 failed: {rank0}");
    let report: Vec<&str> = rank0
        .lines()
        .filter(|l| l.starts_with("nccl-rs: hang report: "))
        .collect();
    // The merged record's line for the stuck op comes out once. (The "first failure"
    // line may quote the op too: when rank 0's own failure reaches the store before
    // the store's note of rank 1's death, that failure is the first one recorded.)
    let stuck = report
        .iter()
        .filter(|l| {
            l.starts_with("nccl-rs: hang report: all_reduce #2 (") && l.contains("launch_group.rs")
        })
        .count();
    assert_eq!(stuck, 1, "one report line for all_reduce #2: {rank0}");
    let first: Vec<&&str> = report
        .iter()
        .filter(|l| l.starts_with("nccl-rs: hang report: first failure: "))
        .collect();
    assert_eq!(first.len(), 1, "one first-failure line: {rank0}");
    assert!(
        first[0].contains("first failure: rank 1 "),
        "the culprit is rank 1, whoever reported it: {rank0}"
    );
    assert_eq!(
        report
            .iter()
            .filter(|l| l.contains("no flight record from rank(s) 1 "))
            .count(),
        1,
        "the dead rank's record is said to be missing, once: {rank0}"
    );
    eprintln!("{}", report.join("\n"));
}

/// Slurm's variables of task `rank` of a `size`-task step `job`.0 on one node named
/// `localhost` (the derived port repeats every 1000 job ids).
fn slurm_vars(job: u64, rank: usize, size: usize) -> Vec<(&'static str, String)> {
    vec![
        ("SLURM_JOB_ID", job.to_string()),
        ("SLURM_STEP_ID", "0".into()),
        ("SLURM_PROCID", rank.to_string()),
        ("SLURM_NTASKS", size.to_string()),
        ("SLURM_LOCALID", rank.to_string()),
        ("SLURM_NODEID", "0".into()),
        ("SLURM_STEP_TASKS_PER_NODE", size.to_string()),
        ("SLURM_STEP_NODELIST", "localhost".into()),
    ]
}

fn launch_of(vars: &[(&'static str, String)]) -> collectives::Launch {
    let env = |name: &str| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    collectives::Launch::from_vars(&env, &collectives::Overrides::default()).unwrap()
}

fn sim_device(ordinal: usize) -> nccl_safe::Device {
    nccl_safe::Device::with_driver(nccl_safe::DriverKind::Sim, ordinal).unwrap()
}

#[test]
fn two_jobs_that_derive_one_port_fail_at_once_naming_the_clash() {
    // Job 41's rank 0 hosts the store; job 1041's rank 1 derives the same address.
    let a = launch_of(&slurm_vars(41, 0, 2));
    let b = launch_of(&slurm_vars(1041, 1, 2));
    assert_eq!(a.rendezvous(), b.rendezvous());
    assert!(a.job().unwrap().contains("41.0") && b.job().unwrap().contains("1041.0"));
    let host = std::thread::spawn(move || {
        let opts = Options::new().timeout(Duration::from_secs(4));
        ProcessGroup::from_launch_on(&a, &sim_device(0), opts).map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let opts = Options::new().timeout(Duration::from_secs(30));
    let err = ProcessGroup::from_launch_on(&b, &sim_device(1), opts).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let text = err.to_string();
    assert!(
        text.contains("serves another job")
            && text.contains("Slurm 41.0")
            && text.contains("1041.0"),
        "{text}"
    );
    // Job 41 was left alone: it times out waiting for its own rank 1.
    let e = host.join().unwrap().unwrap_err().to_string();
    assert!(e.contains("missing ranks [1]"), "{e}");
}

#[test]
fn a_loopback_rendezvous_is_served_on_loopback_only() {
    let port = free_port();
    let a = launch_of(&torchrun(0, 2, port));
    let host = std::thread::spawn(move || {
        let opts = Options::new().timeout(Duration::from_secs(2));
        ProcessGroup::from_launch_on(&a, &sim_device(0), opts).map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    // Every other address of this host is refused.
    let others: Vec<std::net::IpAddr> = local_addresses()
        .into_iter()
        .filter(|ip| !ip.is_loopback())
        .collect();
    for ip in &others {
        assert!(
            std::net::TcpStream::connect((*ip, port)).is_err(),
            "the store answered on {ip}"
        );
    }
    assert!(host.join().unwrap().is_err());
}

/// This host's addresses, from `hostname -I` (empty when it prints none).
fn local_addresses() -> Vec<std::net::IpAddr> {
    Command::new("hostname")
        .arg("-I")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter_map(|a| a.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_rendezvous_other_hosts_can_reach_needs_the_token() {
    let port = free_port();
    let mut vars = torchrun(0, 2, port);
    vars.retain(|(k, _)| *k != "MASTER_ADDR");
    vars.push(("MASTER_ADDR", "0.0.0.0".into()));
    let err = ProcessGroup::from_launch_on(&launch_of(&vars), &sim_device(0), Options::new())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("without a token") && err.contains("NCCL_RS_STORE_TOKEN"),
        "{err}"
    );
    vars.push(("NCCL_RS_STORE_TOKEN", "s3cret".into()));
    let opts = Options::new().timeout(Duration::from_millis(500));
    let err = ProcessGroup::from_launch_on(&launch_of(&vars), &sim_device(0), opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing ranks [1]"), "{err}");
}

#[test]
fn when_rank_zero_cannot_bind_the_others_fail_fast_naming_the_address() {
    // Another program holds the port and closes what it accepts.
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in holder.incoming() {
            drop(s);
        }
    });
    let e0 = ProcessGroup::from_launch_on(
        &launch_of(&torchrun(0, 2, port)),
        &sim_device(0),
        Options::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e0.contains(&format!("127.0.0.1:{port}")) && e0.contains("binding"),
        "{e0}"
    );
    let t = Instant::now();
    let e1 = ProcessGroup::from_launch_on(
        &launch_of(&torchrun(1, 2, port)),
        &sim_device(1),
        Options::new().timeout(Duration::from_secs(60)),
    )
    .unwrap_err()
    .to_string();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(
        e1.contains(&format!("127.0.0.1:{port}")) && e1.contains("not a store"),
        "{e1}"
    );
}

#[test]
fn a_job_on_one_host_meets_on_loopback_whatever_its_host_name_resolves_to() {
    // A one-node Slurm step whose node name this host cannot even resolve (on a
    // cluster it resolves to the node's address, which would need a token): every
    // rank is here, so the store is served and reached on loopback.
    let job = 500 + u64::from(free_port() % 400);
    let children: Vec<Child> = (0..3)
        .map(|rank| {
            let mut env = slurm_vars(job, rank, 3);
            env.retain(|(k, _)| *k != "SLURM_STEP_NODELIST");
            env.push(("SLURM_STEP_NODELIST", "gpu-node-0-does-not-resolve".into()));
            spawn("sum", &env)
        })
        .collect();
    for (rank, c) in children.into_iter().enumerate() {
        let (ok, lines, text) = finish(c);
        assert!(ok, "rank {rank}: {text}");
        assert_eq!(lines, ["sum 6"], "rank {rank}");
    }
}

#[test]
fn linked_groups_send_an_idle_store_nothing_and_close_at_once() {
    // Each rank watches the job's failure record with one wait on the store: an idle
    // job costs the store no request (it read the record every watchdog interval,
    // 100 ms, before), and closing the group ends the wait at once.
    use collectives::store::{ClientOptions, ServerOptions, Store, TcpStore, TcpStoreServer};
    let server = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::new()).unwrap();
    let kids: Vec<Child> = (0..2)
        .map(|r| spawn("idle", &ompi_env(r, 2, &server.url())))
        .collect();
    // Every rank has met once `all` is set; then a first all-reduce, and the groups
    // idle for 3 s.
    let watcher =
        TcpStore::connect(&server.local_addr().to_string(), ClientOptions::new()).unwrap();
    watcher
        .wait(&["nccl-rs/default/1/all"], Duration::from_secs(30))
        .unwrap();
    watcher.close().unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let before = server.requests();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(server.requests(), before, "requests from an idle job");
    for kid in kids {
        let (ok, lines, text) = finish(kid);
        assert!(ok, "{text}");
        let closed: u64 = lines
            .iter()
            .find_map(|l| l.strip_prefix("closed in ms "))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        assert!(closed < 3000, "closing took {closed} ms");
    }
}

#[test]
fn a_job_past_the_ranks_per_root_meets_with_one_bootstrap_root_each() {
    // NCCL_RS_RANKS_PER_ROOT=1: each of the 3 ranks hosts a root (the default, 128,
    // would give a job this small one root).
    use collectives::store::{ClientOptions, ServerOptions, Store, TcpStore, TcpStoreServer};
    let server = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::new()).unwrap();
    let env_of = |r: usize, per_root: &str| {
        let mut env = ompi_env(r, 3, &server.url());
        env.push(("NCCL_RS_RANKS_PER_ROOT", per_root.to_string()));
        env
    };
    let kids: Vec<Child> = (0..3).map(|r| spawn("sum", &env_of(r, "1"))).collect();
    for kid in kids {
        let (ok, lines, text) = finish(kid);
        assert!(ok, "{text}");
        assert_eq!(lines, ["sum 6"]);
    }
    let c = TcpStore::connect(&server.local_addr().to_string(), ClientOptions::new()).unwrap();
    let ids = c.get("nccl-rs/default/1/value").unwrap().unwrap();
    let ids = String::from_utf8(ids).unwrap();
    let ids: Vec<&str> = ids.split(',').collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    for (k, id) in ids.iter().enumerate().skip(1) {
        let root = c
            .get(&format!("nccl-rs/default/1/root/{k}"))
            .unwrap()
            .unwrap();
        assert_eq!(root, id.as_bytes(), "root {k}");
    }
    // A value that is not a count of ranks is refused, naming the variable.
    let (ok, lines, text) = finish(spawn("sum", &env_of(0, "0")));
    assert!(!ok, "{text}");
    assert!(
        lines[0].contains("NCCL_RS_RANKS_PER_ROOT = 0 is invalid"),
        "{text}"
    );
}
