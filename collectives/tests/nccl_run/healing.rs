//! Jobs that heal, under `nccl-run` on the sim: the `elastic` example (a training loop
//! whose rank 2 is SIGKILLed at step 50) with and without `--max-restarts`; the
//! agreement on who is gone (a slow rank is not dropped unless the options say so; two
//! deaths); and failures of the recovery itself (a replacement that dies before it
//! joins), which end in an error, never a hang.

use std::time::{Duration, Instant};

use collectives::store::{ClientOptions, Store};
use collectives::{Error, ErrorPolicy, Launch, Options, ProcessGroup};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

use super::{nccl_run, nccl_run_program, reports, stderr};

/// The `elastic` example program: beside the prebuilt tests in `../tools` (a GPU
/// node's archive), else built now by cargo into this test binary's target folder
/// (`cargo test` builds examples only as tests; a no-op when it is up to date).
fn elastic() -> std::path::PathBuf {
    static BUILT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            let profile_dir = exe.parent().and_then(|d| d.parent()).unwrap();
            let carried = profile_dir.join("tools/elastic");
            if profile_dir.join("gpu-check").exists() && carried.exists() {
                return carried;
            }
            let release = profile_dir.ends_with("release");
            let mut cargo = std::process::Command::new(env!("CARGO"));
            cargo
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "collectives",
                    "--example",
                    "elastic",
                ])
                .arg("--manifest-path")
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
                .env("CARGO_TARGET_DIR", profile_dir.parent().unwrap());
            if release {
                cargo.arg("--release");
            }
            let status = cargo.status().expect("cargo runs");
            assert!(status.success(), "building the elastic example failed");
            let built = profile_dir.join("examples/elastic");
            crate::common::program("elastic", built.to_str().unwrap())
        })
        .clone()
}

/// Runs `nccl-run -n N FLAGS -- elastic ARGS`.
fn run_elastic(n: usize, flags: &[&str], args: &[&str]) -> (std::process::Output, Duration) {
    let start = Instant::now();
    let out = std::process::Command::new(nccl_run_program())
        .args(["-n", &n.to_string(), "--driver", "sim"])
        .args(flags)
        .arg("--")
        .arg(elastic())
        .args(args)
        .output()
        .expect("nccl-run starts");
    (out, start.elapsed())
}

/// The lines of `elastic`'s timeline: (launch rank, text).
fn timeline(out: &std::process::Output) -> Vec<(usize, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("[rank ")?;
            let (rank, rest) = rest.split_once(' ')?;
            let text = rest.split_once("] ")?.1;
            Some((rank.parse().ok()?, text.to_string()))
        })
        .collect()
}

/// The parameters' checksums of the ranks that finished, by launch rank.
fn finished(lines: &[(usize, String)]) -> Vec<(usize, String)> {
    lines
        .iter()
        .filter(|(_, t)| t.starts_with("done: step 200"))
        .map(|(r, t)| (*r, t.rsplit(' ').next().unwrap().to_string()))
        .collect()
}

#[test]
fn the_elastic_example_survives_a_kill_and_takes_a_replacement_back() {
    let (out, _) = run_elastic(
        4,
        &["--max-restarts", "1"],
        &["--kill-rank", "2", "--kill-at", "50"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines = timeline(&out);
    let all = String::from_utf8_lossy(&out.stdout);
    // The survivors shrank and redid step 50; the replacement joined and got the
    // state; every rank ended at step 200 with the same parameters, 4 ranks again.
    for r in [0, 1, 3] {
        assert!(
            lines
                .iter()
                .any(|(x, t)| *x == r && t.starts_with("shrunk to 3 ranks (epoch 1)")),
            "rank {r}: {all}"
        );
        assert!(
            lines
                .iter()
                .any(|(x, t)| *x == r && t.starts_with("resumed: step 50 done on the shrunk group")),
            "rank {r}: {all}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|(x, t)| *x == 2 && t.starts_with("replacement joined as rank 3 of 4 (epoch 2)")),
        "{all}"
    );
    let done = finished(&lines);
    assert_eq!(done.len(), 4, "{all}");
    assert!(done.iter().all(|(_, sum)| *sum == done[0].1), "{done:?}");
    assert!(
        lines
            .iter()
            .filter(|(_, t)| t.starts_with("done:"))
            .all(|(_, t)| t.contains("of 4 (epoch 2)")),
        "{all}"
    );
    assert!(
        err.contains("rank 2 killed by SIGKILL at") && err.contains("and was restarted"),
        "{err}"
    );
    assert!(err.contains("4 rank(s) exited with status 0"), "{err}");
}

#[test]
fn without_restarts_the_survivors_finish_alone() {
    let (out, _) = run_elastic(4, &[], &["--kill-rank", "2", "--kill-at", "50"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let done = finished(&timeline(&out));
    assert_eq!(
        done.iter()
            .map(|(r, _)| *r)
            .collect::<std::collections::BTreeSet<_>>(),
        [0, 1, 3].into_iter().collect(),
        "{done:?}"
    );
    assert!(done.iter().all(|(_, sum)| *sum == done[0].1), "{done:?}");
    assert!(
        err.contains("the others go on without it") && err.contains("was left behind"),
        "{err}"
    );
}

/// The heal scenarios' ranks (`heal-*`).
pub(super) fn child(scenario: &str, launch: &Launch) {
    let rank = launch.rank();
    let timeout = Duration::from_secs(if scenario == "heal-dead-ticket" {
        2
    } else {
        30
    });
    let late = scenario == "heal-late-excluded";
    let options = Options::new()
        .on_error(ErrorPolicy::Shrink)
        .timeout(if scenario.starts_with("heal-late") {
            Duration::from_secs(1)
        } else {
            timeout
        })
        .shrink_excludes_late(late);
    let pg = ProcessGroup::from_launch(launch, options).unwrap();
    let s = Stream::new(pg.device()).unwrap();
    let sum = |pg: &ProcessGroup| -> collectives::Result<u64> {
        let mut x = DeviceBuffer::from_slice(&s, &[1u64; 4])?;
        pg.all_reduce(&mut x, ReduceOp::Sum)?
            .wait_host(Duration::from_secs(30))?;
        Ok(x.to_vec(&s)?[0])
    };
    assert_eq!(sum(&pg).unwrap(), launch.world_size() as u64);
    let die = || {
        // SAFETY: kill(2) has no memory effects; this process ends here.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    };
    match scenario {
        "heal-late" | "heal-late-excluded" => {
            // Rank 3 dies; rank 2 comes to the shrink 3 s late (the timeout is 1 s).
            if rank == 3 {
                die();
            }
            if rank == 2 {
                std::thread::sleep(Duration::from_secs(3));
            } else {
                println!("@@ failed: {}", sum(&pg).unwrap_err());
            }
            match pg.shrink() {
                Ok(next) => println!(
                    "@@ shrunk {} of {}: sum {}",
                    next.rank(),
                    next.size(),
                    sum(&next).unwrap()
                ),
                Err(e @ Error::Reshape { .. }) => {
                    let Error::Reshape { late, .. } = &e else {
                        unreachable!()
                    };
                    println!("@@ refused late {late:?}: {e}");
                }
                Err(e) => println!("@@ other error: {e}"),
            }
        }
        "heal-two-deaths" => {
            // Rank 3 dies; rank 2 dies too, after its all-reduce failed and before it
            // comes to the shrink. The two others shrink without both.
            if rank == 3 {
                die();
            }
            let e = sum(&pg).unwrap_err();
            if rank == 2 {
                die();
            }
            println!("@@ failed: {e}");
            let next = pg.shrink().unwrap();
            println!(
                "@@ shrunk {} of {}: sum {}",
                next.rank(),
                next.size(),
                sum(&next).unwrap()
            );
        }
        "heal-exit-error" => {
            // Rank 1 exits with status 3 (a bug, not a death); the others shrink and
            // finish. nccl-run lets them, but the job's status is rank 1's.
            if rank == 1 {
                std::process::exit(3);
            }
            println!("@@ failed: {}", sum(&pg).unwrap_err());
            let next = pg.shrink().unwrap();
            println!(
                "@@ shrunk {} of {}: sum {}",
                next.rank(),
                next.size(),
                sum(&next).unwrap()
            );
        }
        "heal-void-ticket" => {
            // Rank 2 takes a ticket as a replacement would and its connection drops
            // before a grant (its holder died): the ticket is void, and admit lets
            // nobody in instead of waiting for it.
            if rank == 2 {
                let url = std::env::var("NCCL_RS_STORE").unwrap();
                let token = std::env::var("NCCL_RS_STORE_TOKEN").unwrap();
                let addr = url.strip_prefix("tcp://").unwrap();
                let holder =
                    collectives::store::TcpStore::connect(addr, ClientOptions::new().token(&token))
                        .unwrap();
                let t = holder.add("nccl-rs/default/1/join/tickets", 1).unwrap();
                holder
                    .on_disconnect_create(&format!("nccl-rs/default/1/join/grant/{t}"), b"void")
                    .unwrap();
                drop(holder); // no orderly close: as a killed process's
            }
            std::thread::sleep(Duration::from_millis(200));
            pg.barrier().unwrap().wait_host(timeout).unwrap();
            println!("@@ admitted {}", pg.admit().unwrap().is_some());
        }
        "heal-dead-ticket" => {
            // Rank 2 takes a replacement's ticket in the store, as a restarted process
            // does, and that "replacement" never joins (it died). The admit's grow waits
            // for it, at most the group's timeout (2 s), and fails on every rank.
            if rank == 2 {
                let url = std::env::var("NCCL_RS_STORE").unwrap();
                let token = std::env::var("NCCL_RS_STORE_TOKEN").unwrap();
                let store =
                    collectives::store::connect(&url, &ClientOptions::new().token(&token)).unwrap();
                store.add("nccl-rs/default/1/join/tickets", 1).unwrap();
            }
            let started = Instant::now();
            let e = pg.barrier().unwrap().wait_host(timeout); // the ticket is in
            e.unwrap();
            match pg.admit() {
                Ok(g) => println!("@@ admitted? {}", g.is_some()),
                Err(e) => println!(
                    "@@ admit failed after {} ms: {e}",
                    started.elapsed().as_millis()
                ),
            }
        }
        other => panic!("unknown heal scenario {other}"),
    }
}

#[test]
fn a_slow_rank_is_not_dropped_unless_the_options_say_so() {
    let (out, _) = nccl_run(&["-n", "4"], "heal-late");
    let by_rank = reports(&out);
    for r in [0, 1] {
        let lines = by_rank
            .get(&r)
            .unwrap_or_else(|| panic!("rank {r} reported nothing: {by_rank:?}\n{}", stderr(&out)));
        let refused = lines
            .iter()
            .find(|l| l.starts_with("refused late"))
            .unwrap_or_else(|| panic!("rank {r}: {lines:?}\n{}", stderr(&out)));
        assert!(
            refused.starts_with("refused late [2]")
                && refused.contains("rank(s) 2 neither came to the shrink nor are known gone"),
            "rank {r}: {refused}"
        );
    }
}

#[test]
fn with_shrink_excludes_late_the_others_go_on_and_the_late_rank_is_told() {
    let (out, _) = nccl_run(&["-n", "4"], "heal-late-excluded");
    let by_rank = reports(&out);
    for r in [0, 1] {
        assert!(
            by_rank[&r]
                .iter()
                .any(|l| l == &format!("shrunk {r} of 2: sum 2")),
            "rank {r}: {:?}\n{}",
            by_rank[&r],
            stderr(&out)
        );
    }
    let late = &by_rank[&2];
    assert!(
        late.iter()
            .any(|l| l.contains("agreed on the survivors without this rank")),
        "{late:?}"
    );
}

#[test]
fn two_deaths_leave_two_survivors_that_go_on() {
    let (out, _) = nccl_run(&["-n", "4"], "heal-two-deaths");
    let by_rank = reports(&out);
    for r in [0, 1] {
        assert!(
            by_rank[&r]
                .iter()
                .any(|l| l == &format!("shrunk {r} of 2: sum 2")),
            "rank {r}: {:?}\n{}",
            by_rank[&r],
            stderr(&out)
        );
    }
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_error_exit_is_healed_over_but_stays_the_jobs_status() {
    let (out, _) = nccl_run(&["-n", "3"], "heal-exit-error");
    let by_rank = reports(&out);
    let err = stderr(&out);
    for r in [0, 2] {
        let want = format!("shrunk {} of 2: sum 2", r / 2);
        assert!(
            by_rank[&r].contains(&want),
            "rank {r}: {:?}\n{err}",
            by_rank[&r]
        );
    }
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("rank 1 exit status 3 at") && err.contains("the job went on"),
        "{err}"
    );
}

#[test]
fn a_ticket_whose_holder_is_gone_is_void_and_nobody_waits_for_it() {
    let (out, _) = nccl_run(&["-n", "3"], "heal-void-ticket");
    let by_rank = reports(&out);
    for r in 0..3 {
        assert!(
            by_rank[&r].contains(&"admitted false".to_string()),
            "rank {r}: {:?}\n{}",
            by_rank[&r],
            stderr(&out)
        );
    }
}

#[test]
fn a_replacement_that_dies_before_joining_ends_the_grow_in_an_error() {
    let (out, took) = nccl_run(&["-n", "3"], "heal-dead-ticket");
    let by_rank = reports(&out);
    for r in 0..3 {
        let line = by_rank[&r]
            .iter()
            .find(|l| l.starts_with("admit failed after"))
            .unwrap_or_else(|| panic!("rank {r}: {:?}\n{}", by_rank[&r], stderr(&out)));
        assert!(
            line.contains("timed out") || line.contains("not joined"),
            "{line}"
        );
    }
    assert!(took < Duration::from_secs(30), "took {took:?}");
}
