//! PyTorch's own flight-recorder analyzer (`torchfrtrace`, from the PyTorch that
//! ci/setup installs into `.deps/torch`, or the Python in `NCCL_RS_TORCH_PYTHON`) reads
//! the dumps of 4 sim processes written with `NCCL_RS_TRACE_FORMAT=both`, and names
//! the same rank, op and sequence number as our hang report: in a job where one rank
//! never issues a collective, in one where a rank issues a different one, and in one
//! where that missing collective follows v-collectives whose counts differ by rank, and
//! in one whose groups learn when NCCL launched each collective (PyTorch's `started`
//! state). These
//! need PyTorch, so plain `cargo test` shows them as ignored; ci/test runs them with
//! `--ignored`. The test binary re-runs itself as each rank (`child`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use collectives::{Dump, ProcessGroup, hang_report};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

mod common;
use common::{free_port, torch_python};

const SCENARIO: &str = "NCCL_RS_TEST_SCENARIO";
const PATIENCE: Duration = Duration::from_secs(60);
const RANKS: usize = 4;

#[test]
#[ignore = "the entry point of this file's child processes (run by the other tests)"]
fn child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    // In the mismatch, no rank's failure reaches the others through the store: rank
    // 2's mismatch, published at once, could otherwise abort a rank still waiting for
    // its send before it issued the collective the report compares (seen once in
    // CI: rank 0 then counted as missing, not rank 2 as different). Each rank's own
    // mismatch or timeout ends it instead.
    let opts = collectives::Options::new()
        .timeout(Duration::from_millis(1500))
        .launch_events(scenario == "launched")
        .propagate_failures(scenario != "mismatch");
    let pg = ProcessGroup::from_env(opts).expect("the group forms");
    let rank = pg.rank();
    let s = Stream::new(pg.device()).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
    let mut all = DeviceBuffer::<f32>::zeroed(&s, 4 * RANKS).unwrap();
    pg.all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    // Point-to-point between the collectives (0 -> 1, 2 -> 3): left out of PyTorch's
    // format, whose analyzer cannot pair them outside coalesced groups.
    let peer = rank ^ 1;
    let p2p = if rank % 2 == 0 {
        pg.send(&x, peer)
    } else {
        pg.recv(&mut x, peer)
    };
    p2p.unwrap().wait_host(PATIENCE).unwrap();
    if scenario == "uneven" {
        uneven_collectives(&pg, &s);
    }
    let second = match (scenario.as_str(), rank) {
        // Rank 3 never issues the second all-reduce: it waits for the others' failure.
        ("missing" | "uneven" | "launched", 3) => {
            let start = Instant::now();
            while pg.aborted().is_none() && start.elapsed() < PATIENCE {
                std::thread::sleep(Duration::from_millis(10));
            }
            drop(pg);
            std::process::exit(1);
        }
        // Rank 2 all-gathers where the others all-reduce.
        ("mismatch", 2) => pg.all_gather(&x, &mut all),
        _ => pg.all_reduce(&mut x, ReduceOp::Sum),
    };
    let err = second.unwrap().wait_host(PATIENCE).unwrap_err();
    println!("@@ error: {err}");
    drop(pg);
    std::process::exit(1);
}

/// The three v-collectives, each rank with counts of its own (rank `i` sends `i + 2j`
/// elements to rank `j`: what a rank sends and receives differ), all completed: records the analyzer must find consistent.
fn uneven_collectives(pg: &ProcessGroup, s: &Stream) {
    use nccl_safe::Blocks;
    let me = pg.rank();
    let sends = Blocks::packed(&(0..RANKS).map(|j| me + 2 * j).collect::<Vec<_>>()).unwrap();
    let recvs = Blocks::packed(&(0..RANKS).map(|i| i + 2 * me).collect::<Vec<_>>()).unwrap();
    let send = DeviceBuffer::from_slice(s, &vec![me as f32; sends.total()]).unwrap();
    let mut recv = DeviceBuffer::<f32>::zeroed(s, recvs.total()).unwrap();
    pg.all_to_allv(&send, &sends, &mut recv, &recvs)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    let blocks = Blocks::packed(&[1, 2, 3, 4]).unwrap();
    let mine = DeviceBuffer::from_slice(s, &vec![1.0f32; blocks.count(me)]).unwrap();
    let mut all = DeviceBuffer::<f32>::zeroed(s, blocks.total()).unwrap();
    pg.all_gather_v(&mine, &mut all, &blocks)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    let mut part = DeviceBuffer::<f32>::zeroed(s, blocks.count(me)).unwrap();
    pg.reduce_scatter_v(&all, &blocks, &mut part, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    assert_eq!(part.to_vec(s).unwrap(), vec![RANKS as f32; me + 1]);
}

/// Runs `scenario` on 4 torchrun-style ranks dumping into `dir` in both formats.
fn run_job(scenario: &str, dir: &Path) {
    let port = free_port();
    let kids: Vec<Child> = (0..RANKS)
        .map(|rank| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--ignored", "--exact", "child", "--nocapture"])
                .env(SCENARIO, scenario)
                .env("NCCL_RS_DRIVER", "sim")
                .env("NCCL_RS_TRACE_DIR", dir)
                .env("NCCL_RS_TRACE_FORMAT", "both")
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", RANKS.to_string())
                .env("LOCAL_RANK", rank.to_string())
                .env("LOCAL_WORLD_SIZE", RANKS.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the test binary re-runs itself")
        })
        .collect();
    for mut kid in kids {
        let start = Instant::now();
        while kid.try_wait().unwrap().is_none() {
            if start.elapsed() > PATIENCE {
                let _ = kid.kill();
                panic!("a rank of {scenario} did not end within {PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Dumps are written on threads of their own; a rank's exit may race its last one.
    let torch = dir.join("torch/default");
    let start = Instant::now();
    while (0..RANKS).any(|r| !torch.join(format!("nccl_trace_rank_{r}")).exists()) {
        assert!(
            start.elapsed() < PATIENCE,
            "no PyTorch dump of every rank in {}",
            torch.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Our hang report of the JSON dumps in `dir`.
fn our_report(dir: &Path) -> Vec<String> {
    let dumps: Vec<Dump> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| Dump::read(&p).unwrap())
        .collect();
    assert_eq!(
        dumps.iter().map(|d| d.rank).collect::<BTreeSet<_>>().len(),
        RANKS
    );
    hang_report(&dumps)
}

/// `torchfrtrace <dir>/torch/default`: its whole output. A leftover of a writer
/// killed half-way, named as ours name them, is put in the folder first: the analyzer
/// must not read it.
fn torchfrtrace(dir: &Path) -> String {
    std::fs::write(
        dir.join("torch/default/.writing-rank9-123-4.partial"),
        b"\x80\x02}",
    )
    .unwrap();
    let py = torch_python();
    // The `torchfrtrace` script beside the Python, run through that Python (its first
    // line names the folder the environment was made in, which a moved environment no
    // longer is); a Python without the script (a system one) runs the module the
    // script runs.
    let tool = py.with_file_name("torchfrtrace");
    let mut cmd = Command::new(&py);
    if tool.exists() {
        cmd.arg(&tool);
    } else {
        cmd.args(["-m", "torch.distributed.flight_recorder.fr_trace"]);
    }
    let out = cmd
        .arg(dir.join("torch/default"))
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "torchfrtrace failed:\n{text}");
    text
}

/// The value after `key` on the analyzer's first line that has it.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.split_once(key).map(|(_, v)| v.trim()))
        .unwrap_or_else(|| panic!("no {key:?} in the analyzer's output:\n{text}"))
}

/// `{3}` or `{0, 1}` as ranks.
fn rank_set(text: &str) -> BTreeSet<usize> {
    text.trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .map(|r| r.trim().parse().unwrap())
        .collect()
}

/// Runs `scenario`: the line of our report that contains `finding`, and the
/// analyzer's whole output.
fn both_reports(scenario: &str, finding: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    run_job(scenario, dir.path());
    let ours = our_report(dir.path());
    let line = ours
        .iter()
        .find(|l| l.contains(finding))
        .unwrap_or_else(|| panic!("our report: {ours:#?}"))
        .clone();
    let theirs = torchfrtrace(dir.path());
    eprintln!(
        "our report:\n{}\nPyTorch's analyzer:\n{theirs}",
        ours.join("\n")
    );
    (line, theirs)
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn pytorchs_analyzer_names_the_rank_that_never_issued_the_collective_as_we_do() {
    let (line, theirs) = both_reports("missing", "never issued it");
    assert!(
        line.starts_with("all_reduce #2 (") && line.contains("rank 3 never issued it"),
        "{line}"
    );
    assert_eq!(
        field(
            &theirs,
            "Not all ranks joining collective, sequence number:"
        ),
        "2",
        "{theirs}"
    );
    assert_eq!(field(&theirs, "collective:"), "nccl:all_reduce", "{theirs}");
    assert_eq!(
        rank_set(field(&theirs, "missing ranks:")),
        BTreeSet::from([3]),
        "{theirs}"
    );
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn pytorchs_analyzer_names_the_rank_that_issued_another_collective_as_we_do() {
    let (line, theirs) = both_reports("mismatch", " where ");
    assert!(
        line.starts_with("rank 2 issued all_gather (") && line.contains("issued all_reduce"),
        "{line}"
    );
    assert_eq!(
        field(&theirs, "Collective sequence number:"),
        "2 has errors",
        "{theirs}"
    );
    // The analyzer compares every rank with the first rank it read: the rank that
    // differs is the one culprit, or, when every other rank is a culprit, that first
    // rank itself (the order in which it reads the files is the folder's).
    let msg = field(&theirs, "error msg:");
    let culprits: BTreeSet<usize> = msg
        .split("Culprit rank ")
        .skip(1)
        .map(|c| c.split(';').next().unwrap().trim().parse().unwrap())
        .collect();
    let expected = rank_set(field(&theirs, "expected ranks:"));
    let reference: BTreeSet<usize> = expected.difference(&culprits).copied().collect();
    let (odd, odd_op) = if culprits.len() == 1 {
        (culprits, "all_gather")
    } else {
        (reference, "all_gather")
    };
    assert_eq!(odd, BTreeSet::from([2]), "{theirs}");
    assert!(
        msg.contains("COLLECTIVE_TYPE_MISMATCH")
            && msg.contains(&format!("'{odd_op}'"))
            && msg.contains("'all_reduce'"),
        "{theirs}"
    );
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn pytorchs_analyzer_reads_uneven_collectives_as_consistent_and_finds_the_later_missing_rank() {
    // The v-collectives (sequence numbers 2-4) have counts that differ from rank to
    // rank; neither report may call them a mismatch, and both name rank 3 as missing
    // from the all-reduce after them.
    let (line, theirs) = both_reports("uneven", "never issued it");
    assert!(
        line.starts_with("all_reduce #5 (") && line.contains("rank 3 never issued it"),
        "{line}"
    );
    assert_eq!(
        field(
            &theirs,
            "Not all ranks joining collective, sequence number:"
        ),
        "5",
        "{theirs}"
    );
    assert!(
        !theirs.contains("MISMATCH") && !theirs.contains("has errors"),
        "{theirs}"
    );
    assert_eq!(
        rank_set(field(&theirs, "missing ranks:")),
        BTreeSet::from([3]),
        "{theirs}"
    );
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn pytorchs_analyzer_reads_launched_collectives_and_names_the_missing_rank_as_we_do() {
    // With launch events the waiting ranks' all-reduce is `started` in PyTorch's
    // format (launched, waiting for rank 3): all three agree, so the analyzer finds no
    // state mismatch, and both reports name rank 3.
    let (line, theirs) = both_reports("launched", "never issued it");
    assert!(
        line.starts_with("all_reduce #2 (")
            && line.contains("rank 3 never issued it")
            && line.contains("[launched on ranks 0,1,2 (running, waiting for peers)]"),
        "{line}"
    );
    assert_eq!(
        field(
            &theirs,
            "Not all ranks joining collective, sequence number:"
        ),
        "2",
        "{theirs}"
    );
    assert_eq!(field(&theirs, "collective state:"), "started", "{theirs}");
    assert!(
        !theirs.contains("MISMATCH") && !theirs.contains("has errors"),
        "{theirs}"
    );
    assert_eq!(
        rank_set(field(&theirs, "missing ranks:")),
        BTreeSet::from([3]),
        "{theirs}"
    );
}
