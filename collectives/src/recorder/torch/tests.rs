use std::io::Write;
use std::process::{Command, Stdio};

use super::super::tests::facts;
use super::super::{Dump, Entry, FlightRecorder, State};

fn entry(op: &str, seq: Option<u64>, count: usize, state: State) -> Entry {
    Entry {
        record_id: 0,
        seq,
        p2p: None,
        op: op.into(),
        dtype: "f32".into(),
        count,
        out_count: None,
        root: None,
        call_site: "src/train.rs:57".into(),
        enqueued_ms: 5,
        completed_ms: (state == State::Completed).then_some(7),
        tracks_launch: false,
        started_ms: None,
        state,
    }
}

/// A dump of rank 1 of 4: the warm-up and its connections, two all-reduces (one
/// complete), an all-gather, a send and a receive, a gather rooted elsewhere, a
/// shrink record.
fn sample() -> Dump {
    let r = FlightRecorder::new(64);
    let mut warm = entry("warmup", Some(0), 1, State::Completed);
    warm.dtype = "u8".into();
    warm.call_site = "<process group warm-up>".into();
    r.push(warm);
    r.push(entry("warmup_p2p", None, 4, State::Completed));
    r.push(entry("all_reduce", Some(1), 8, State::Completed));
    r.push(entry("all_reduce", Some(2), 8, State::TimedOut));
    r.push(entry("all_gather", Some(3), 8, State::Failed));
    let mut send = entry("send", None, 3, State::Scheduled);
    send.p2p = Some((2, 0));
    r.push(send);
    let mut recv = entry("recv", None, 3, State::Scheduled);
    recv.p2p = Some((0, 0));
    r.push(recv);
    let mut gather = entry("gather", Some(4), 2, State::Scheduled);
    gather.root = Some(0);
    r.push(gather);
    r.push(entry("shrink", None, 3, State::Completed));
    r.dump(facts("train", 1, 4), "timeout")
}

/// The pickle as Python reads it, back as JSON (tuples become lists).
fn python_reads(bytes: &[u8]) -> serde_json::Value {
    let mut py = Command::new("python3")
        .args([
            "-c",
            "import json, pickle, sys; print(json.dumps(pickle.load(sys.stdin.buffer)))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 (ci/setup needs it too) reads the pickle");
    py.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "pickle.load failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_launched_collective_is_started_with_the_time_it_was_seen_launched() {
    let r = FlightRecorder::new(8);
    let tracked = |seq, state, started| {
        let mut e = entry("all_reduce", Some(seq), 8, state);
        e.tracks_launch = true;
        e.started_ms = started;
        e
    };
    r.push(tracked(1, State::Completed, Some(6)));
    r.push(tracked(2, State::Scheduled, Some(9)));
    r.push(tracked(3, State::Scheduled, None));
    let v = python_reads(&r.dump(facts("train", 1, 4), "timeout").to_torch_pickle());
    let e = &v["entries"];
    assert_eq!(e[0]["state"], "completed");
    assert_eq!(e[0]["time_discovered_started_ns"], 6_000_000);
    assert_eq!(e[1]["state"], "started");
    assert_eq!(e[1]["time_discovered_started_ns"], 9_000_000);
    assert_eq!(e[1]["retired"], false);
    assert_eq!(e[2]["state"], "scheduled");
    assert_eq!(e[2]["time_discovered_started_ns"], serde_json::Value::Null);
    assert_eq!(v["pg_status"]["0"]["last_enqueued_collective"], 3);
    assert_eq!(v["pg_status"]["0"]["last_started_collective"], 2);
    assert_eq!(v["pg_status"]["0"]["last_completed_collective"], 1);
}

#[test]
fn python_reads_the_dump_with_pytorchs_keys_and_values() {
    let v = python_reads(&sample().to_torch_pickle());
    assert_eq!(v["version"], "2.10");
    assert_eq!(v["comm_lib_version"], "sim");
    assert_eq!(v["pg_config"]["train"]["name"], "train");
    assert_eq!(v["pg_config"]["train"]["ranks"], "[0, 1, 2, 3]");
    assert_eq!(v["pg_status"]["0"]["last_enqueued_collective"], 4);
    assert_eq!(v["pg_status"]["0"]["last_completed_collective"], 1);
    let names: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["profiling_name"].as_str().unwrap())
        .collect();
    // The warm-up's connections, the shrink, and point-to-point operations (which
    // the analyzer cannot pair outside coalesced groups) are left out.
    assert_eq!(
        names,
        [
            "nccl:all_reduce",
            "nccl:all_reduce",
            "nccl:all_reduce",
            "nccl:all_gather",
            "nccl:gather",
        ]
    );
    let e = &v["entries"];
    // Record ids are the recorder's, gaps and all.
    assert_eq!(e[0]["record_id"], 1);
    assert_eq!(e[1]["record_id"], 3);
    assert_eq!(e[0]["input_dtypes"], serde_json::json!(["Byte"]));
    assert_eq!(e[0]["frames"][0]["filename"], "<process group warm-up>");
    assert_eq!(e[1]["state"], "completed");
    assert_eq!(e[1]["time_discovered_completed_ns"], 7_000_000);
    assert_eq!(e[1]["time_created_ns"], 5_000_000);
    assert_eq!(e[1]["input_sizes"], serde_json::json!([[8]]));
    assert_eq!(e[1]["input_dtypes"], serde_json::json!(["Float"]));
    assert_eq!(
        e[1]["frames"],
        serde_json::json!([{"name": "ProcessGroup::all_reduce", "filename": "src/train.rs", "line": 57}])
    );
    assert_eq!(
        e[1]["process_group"],
        serde_json::json!(["train", "nccl-rs group train (epoch 0, sim driver)"])
    );
    // Not complete: scheduled, whatever became of it; ours is kept aside.
    assert_eq!(e[2]["state"], "scheduled");
    assert_eq!(e[2]["nccl_rs_state"], "timed_out");
    assert_eq!(
        e[2]["time_discovered_completed_ns"],
        serde_json::Value::Null
    );
    assert_eq!(e[2]["retired"], true);
    assert_eq!(e[2]["timeout_ms"], 1000);
    assert_eq!(e[2]["is_p2p"], false);
    // An all-gather's output is the group's size times its input.
    assert_eq!(e[3]["input_sizes"], serde_json::json!([[8]]));
    assert_eq!(e[3]["output_sizes"], serde_json::json!([[32]]));
    assert_eq!(e[3]["collective_seq_id"], 3);
    assert_eq!(e[3]["is_p2p"], false);
    // A gather away from its root has no output.
    assert_eq!(e[4]["collective_seq_id"], 4);
    assert_eq!(e[4]["retired"], false);
    assert_eq!(e[4]["output_sizes"], serde_json::json!([]));
    assert_eq!(e[4]["output_dtypes"], serde_json::json!([]));
}

#[test]
fn each_group_and_epoch_has_its_folder_and_a_later_dump_replaces_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = sample();
    let first = d.write_torch(dir.path()).unwrap();
    assert_eq!(first, dir.path().join("torch/train/nccl_trace_rank_1"));
    d.entries.truncate(1);
    assert_eq!(d.write_torch(dir.path()).unwrap(), first);
    let back = python_reads(&std::fs::read(&first).unwrap());
    assert_eq!(back["entries"].as_array().unwrap().len(), 1);
    // Nothing else is left in the folder (no temporary files).
    assert_eq!(
        std::fs::read_dir(first.parent().unwrap()).unwrap().count(),
        1
    );
    d.epoch = 2;
    d.group = "tp/0".into();
    let later = d.write_torch(dir.path()).unwrap();
    assert_eq!(
        later,
        dir.path().join("torch/tp_0-epoch2/nccl_trace_rank_1")
    );
    let back = python_reads(&std::fs::read(&later).unwrap());
    assert!(back["pg_config"]["tp/0-epoch2"].is_object(), "{back}");
}
