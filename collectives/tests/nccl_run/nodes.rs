//! Where ranks run: four ranks of one node on their sim devices running every
//! collective, two nodes meeting at the master address, and several nodes refused
//! without a store token.

use std::process::Command;

use crate::common;

use super::{SCENARIO, field, nccl_run, nccl_run_program, reports, stderr};

#[test]
fn four_ranks_run_every_collective() {
    let (out, _) = nccl_run(&["-n", "4"], "every-collective");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let by_rank = reports(&out);
    assert_eq!(by_rank.len(), 4, "{by_rank:?}\n{err}");
    for (rank, lines) in &by_rank {
        assert!(lines.iter().any(|l| l == "ok"), "rank {rank}: {lines:?}");
        // Local rank r on sim device r.
        assert_eq!(field(lines, "device "), Some(rank.to_string().as_str()));
    }
    assert!(
        err.contains("4 ranks") && err.contains("every rank exited with status 0"),
        "{err}"
    );
}

#[test]
fn two_nodes_meet_at_the_master_address() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let exe = std::env::current_exe().unwrap();
    let master = format!("127.0.0.1:{port}");
    let node = |k: &str| {
        Command::new(nccl_run_program())
            .args([
                "-n",
                "2",
                "--nnodes",
                "2",
                "--node-rank",
                k,
                "--master",
                &master,
            ])
            .args(["--driver", "sim", "--tag-output", "--"])
            .arg(&exe)
            .args([
                "--ignored",
                "--exact",
                "child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SCENARIO, "multi-node")
            .env("NCCL_RS_STORE_TOKEN", "two-node-secret")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (n0, n1) = (node("0"), node("1"));
    let (o1, o0) = (
        n1.wait_with_output().unwrap(),
        n0.wait_with_output().unwrap(),
    );
    for (k, out) in [(0, &o0), (1, &o1)] {
        assert!(out.status.success(), "node {k}: {}", stderr(out));
        let by_rank = reports(out);
        let ranks: Vec<usize> = by_rank.keys().copied().collect();
        assert_eq!(ranks, [2 * k, 2 * k + 1], "node {k}");
        for (rank, lines) in by_rank {
            let want = format!("node {k} local {} sum 10", rank - 2 * k);
            assert_eq!(lines, [want], "rank {rank}");
        }
    }
}

#[test]
fn several_nodes_without_a_token_are_refused_saying_how_to_set_one() {
    // Node 0 of two would serve the store on every interface: not without a token.
    let out = Command::new(nccl_run_program())
        .args(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master"])
        .arg(format!("0.0.0.0:{}", common::free_port()))
        .args(["--driver", "sim", "--", "true"])
        .env_remove("NCCL_RS_STORE_TOKEN")
        .env_remove("NCCL_RS_STORE_INSECURE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("without a token") && err.contains("NCCL_RS_STORE_TOKEN"),
        "{err}"
    );
}
