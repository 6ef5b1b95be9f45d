use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::thread;

use super::*;

/// A status in the shape NCCL's RAS documents for `SET FORMAT json` (NCCL 2.28.7+):
/// one 4-rank communicator where rank 3 is unresponsive, rank 2 has a remote error
/// and rank 1 launched one all-reduce fewer; one 2-rank communicator in good health.
const STATUS: &str = r#"{
  "nccl_version": "2.29.2",
  "cuda_runtime_version": 12090,
  "cuda_driver_version": 13000,
  "timestamp": "2026-12-06 10:00:00",
  "communicators_count": 2,
  "communicators": [
    {
      "hash": "0x1f2e3d4c5b6a7988",
      "secondary_hash": "0x1:0x2",
      "size": 4,
      "ranks_count": 3,
      "missing_ranks_count": 1,
      "ranks": [
        {"rank": 0, "host": "10.0.0.1", "pid": 4100, "cuda_dev": 0, "nvml_dev": 0,
         "status": {"init_state": 0, "async_error": 0, "finalize_called": false,
                    "destroy_flag": false, "abort_flag": false},
         "collective_counts": {"Broadcast": 1, "AllReduce": 12}},
        {"rank": 1, "host": "10.0.0.1", "pid": 4101, "cuda_dev": 1, "nvml_dev": 1,
         "status": {"init_state": 0, "async_error": 0, "finalize_called": false,
                    "destroy_flag": false, "abort_flag": false},
         "collective_counts": {"Broadcast": 1, "AllReduce": 11}},
        {"rank": 2, "host": "10.0.0.2", "pid": 5200, "cuda_dev": 0, "nvml_dev": 0,
         "status": {"init_state": 0, "async_error": 6, "finalize_called": false,
                    "destroy_flag": false, "abort_flag": true},
         "collective_counts": {"Broadcast": 1, "AllReduce": 12}}
      ],
      "missing_ranks": [
        {"rank": 3, "host": "10.0.0.2", "pid": 5201, "cuda_dev": 1, "nvml_dev": 1,
         "status": {"unresponsive": true, "considered_dead": false}}
      ]
    },
    {
      "hash": "0xabc",
      "secondary_hash": "0x3:0x4",
      "size": 2,
      "ranks_count": 2,
      "missing_ranks_count": 0,
      "ranks": [
        {"rank": 0, "host": "10.0.0.1", "pid": 4100, "status": {"init_state": 0, "async_error": 0},
         "collective_counts": {"AllReduce": 3}},
        {"rank": 1, "host": "10.0.0.2", "pid": 5200, "status": {"init_state": 0, "async_error": 0},
         "collective_counts": {"AllReduce": 3}}
      ],
      "missing_ranks": []
    }
  ],
  "ras": {"collection_time_sec": 2.013, "timeouts_count": 2}
}"#;

#[test]
fn the_documented_json_status_is_read_and_judged() {
    let s = RasStatus::parse(STATUS).unwrap();
    assert_eq!(s.nccl_version, "2.29.2");
    assert_eq!(s.timeouts, 2);
    assert_eq!(s.communicators.len(), 2);
    let c = &s.communicators[0];
    assert_eq!(
        (c.hash.as_str(), c.size, c.ranks.len()),
        ("0x1f2e3d4c5b6a7988", 4, 3)
    );
    assert_eq!(
        c.missing,
        [RasMissingRank {
            rank: 3,
            host: "10.0.0.2".into(),
            pid: Some(5201),
            unresponsive: true,
            considered_dead: false
        }]
    );
    assert_eq!(c.ranks[1].collective_counts["AllReduce"], 11);
    assert_eq!(
        s.verdict(),
        [
            "communicator 0x1f2e3d4c5b6a7988 (4 ranks): rank 3 (pid 5201 on 10.0.0.2) unresponsive",
            "communicator 0x1f2e3d4c5b6a7988 (4 ranks): rank 2 (pid 5200 on 10.0.0.2) has \
             asynchronous error 6 (ncclRemoteError)",
            "communicator 0x1f2e3d4c5b6a7988 (4 ranks): rank 2 (pid 5200 on 10.0.0.2) aborted it",
            "communicator 0x1f2e3d4c5b6a7988 (4 ranks): rank 1 (pid 4101 on 10.0.0.1) is behind: \
             11 AllReduce launched, 12 on other ranks",
            "communicator 0xabc (2 ranks): all ranks answered, none failed or behind",
            "RAS's own exchanges timed out 2 time(s) while collecting this",
        ]
    );
}

#[test]
fn a_dead_rank_and_a_failed_init_are_named() {
    let s = RasStatus::parse(
        r#"{"nccl_version": "2.28.9", "communicators": [{"hash": "0x9", "size": 2,
        "ranks": [{"rank": 0, "host": "h", "pid": 1, "status": {"init_state": 2, "async_error": 0}}],
        "missing_ranks": [{"rank": 1, "host": "h", "pid": 2,
                           "status": {"unresponsive": true, "considered_dead": true}},
                          {"rank": 2, "host": "h", "pid": -1,
                           "status": {"unresponsive": false, "considered_dead": false}}]}]}"#,
    )
    .unwrap();
    assert_eq!(
        s.verdict(),
        [
            "communicator 0x9 (2 ranks): rank 1 (pid 2 on h) considered dead (unreachable)",
            "communicator 0x9 (2 ranks): rank 2 (pid ? on h) missing (reachable, but not a \
             member now)",
            "communicator 0x9 (2 ranks): rank 0 (pid 1 on h) failed init: 2 (ncclSystemError)",
        ]
    );
}

#[test]
fn what_is_not_a_status_is_refused_naming_the_problem() {
    assert!(matches!(
        RasStatus::parse("Job summary\n==="),
        Err(RasError::Parse(_))
    ));
    assert!(matches!(
        RasStatus::parse("[1, 2]"),
        Err(RasError::Parse(_))
    ));
    let e = RasStatus::parse(
        r#"{"communicators": [{"hash": "0x1", "size": 2, "ranks": [{"host": "h", "pid": 1}]}]}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("\"rank\""), "{e}");
}

/// A RAS server on a loopback port that answers as NCCL's does, except where
/// `format_answer` (the answer to `SET FORMAT json`) or `stall` say otherwise.
fn fake_ras(format_answer: &'static str, stall: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut out = conn.try_clone().unwrap();
        let mut lines = BufReader::new(conn).lines();
        while let Some(Ok(line)) = lines.next() {
            if stall {
                thread::sleep(Duration::from_secs(5));
                return;
            }
            let answer = match line.to_ascii_uppercase().as_str() {
                "CLIENT PROTOCOL 2" => "SERVER PROTOCOL 2\n".to_string(),
                l if l.starts_with("TIMEOUT ") => "OK\n".into(),
                "SET FORMAT JSON" => format_answer.to_string(),
                "STATUS" => {
                    out.write_all(STATUS.as_bytes()).unwrap();
                    return; // the connection closes: the end of the status
                }
                other => format!("ERROR: Unknown command {other}\n"),
            };
            out.write_all(answer.as_bytes()).unwrap();
        }
    });
    addr
}

#[test]
fn the_client_speaks_the_protocol_and_reads_the_status() {
    let addr = fake_ras("OK\n", false);
    let s = query(&addr, Duration::from_secs(10)).unwrap();
    assert_eq!(s, RasStatus::parse(STATUS).unwrap());
    // By host name, as NCCL_RAS_ADDR's default names it.
    let port = fake_ras("OK\n", false)
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let s = query(&format!("localhost:{port}"), Duration::from_secs(10)).unwrap();
    assert_eq!(s.communicators.len(), 2);
}

#[test]
fn an_nccl_without_json_status_is_a_typed_error() {
    let addr = fake_ras("ERROR: Unknown command SET FORMAT json\n", false);
    match query(&addr, Duration::from_secs(10)) {
        Err(RasError::NoJson { answer, .. }) => assert!(answer.starts_with("ERROR")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_silent_server_ends_at_the_deadline_and_nothing_listening_at_once() {
    let addr = fake_ras("OK\n", true);
    let start = Instant::now();
    let e = query(&addr, Duration::from_millis(300)).unwrap_err();
    assert!(matches!(e, RasError::Timeout { .. }), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    // A port nobody listens on (bound, then released).
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let e = query(&free.to_string(), Duration::from_secs(5)).unwrap_err();
    assert!(matches!(e, RasError::Connect { .. }), "{e}");
    assert!(e.to_string().contains(&free.to_string()), "{e}");
}
