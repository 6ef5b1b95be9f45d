//! Ranks that fail: a nonzero exit, a kill (also mid-collective), a rank that never
//! issues, a watchdog timeout, a panic or early return; who every survivor names,
//! what the summary publishes first, and how soon the job ends.

use std::time::Duration;

use super::{field, nccl_run, now_ms, reports, stderr};

#[test]
fn a_failing_rank_stops_the_others_and_sets_the_status() {
    let (out, took) = nccl_run(&["-n", "4", "--grace", "1"], "exit-nonzero");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("rank 2 failed first (exit status 3)"),
        "summary: {err}"
    );
    assert!(err.contains("ranks 0,1,3 stopped by nccl-run"), "{err}");
    // The others sleep for a minute unless stopped.
    assert!(took < Duration::from_secs(30), "took {took:?}");
    // Rank 2's exit without closing its group was published by the store.
    assert!(err.contains("nccl-run: rank 2 (pid"), "{err}");
}

#[test]
fn a_killed_rank_is_named_by_every_other_rank_within_a_second() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "sigkill");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(128 + 9), "{err}");
    assert!(
        err.contains("rank 2 failed first (killed by SIGKILL)"),
        "{err}"
    );
    let by_rank = reports(&out);
    let killed: u128 = field(&by_rank[&2], "leaving at ").unwrap().parse().unwrap();
    for rank in [0, 1, 3] {
        let lines = &by_rank[&rank];
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let (at, text) = e.split_once(": ").unwrap();
        let after = at.parse::<u128>().unwrap().saturating_sub(killed);
        eprintln!("rank {rank} saw the kill after {after} ms: {text}");
        assert!(after < 1000, "rank {rank} took {after} ms: {text}");
        assert!(text.contains("rank 2 (pid "), "rank {rank}: {text}");
        let refused = field(lines, "refused: ").unwrap();
        assert!(refused.contains("is aborted: rank 2 (pid "), "{refused}");
    }
}

#[test]
fn a_rank_that_never_issues_is_named_in_the_report() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "1"], "missing");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    let by_rank = reports(&out);
    for rank in [0, 2, 3] {
        let lines = &by_rank[&rank];
        let issued: u128 = field(lines, "issued at ").unwrap().parse().unwrap();
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let at: u128 = e.split_once(": ").unwrap().0.parse().unwrap();
        // The group's timeout is 2 s.
        assert!(at - issued < 3000, "rank {rank}: {}", at - issued);
    }
    // The summary names the rank whose timeout was published first.
    let summary = err.lines().last().unwrap();
    assert!(
        summary.contains("first failure published: rank ") && summary.contains("timed out"),
        "{summary}"
    );
    let report: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("nccl-run: hang report: "))
        .collect();
    eprintln!("{}", report.join("\n"));
    assert!(
        report.iter().any(|l| l.contains("all_reduce #2")
            && l.contains("ranks 0,2,3 waiting; rank 1 never issued it (last: broadcast #1 at ")
            && l.contains("nccl_run.rs:")),
        "{err}"
    );
}

#[test]
fn a_rank_whose_watchdog_times_out_aborts_the_others_within_a_second() {
    let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "timeout-publishes");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let by_rank = reports(&out);
    let t = field(&by_rank[&2], "timed out at ").unwrap();
    let (at, text) = t.split_once(": ").unwrap();
    assert!(text.contains("timed out"), "{text}");
    let timed_out: u128 = at.parse().unwrap();
    for rank in [0, 1, 3] {
        let lines = &by_rank[&rank];
        let e = field(lines, "error at ").unwrap_or_else(|| panic!("rank {rank}: {lines:?}"));
        let (at, text) = e.split_once(": ").unwrap();
        let after = at.parse::<u128>().unwrap().saturating_sub(timed_out);
        eprintln!("rank {rank} saw rank 2's timeout after {after} ms: {text}");
        assert!(after < 1000, "rank {rank} took {after} ms: {text}");
        assert!(
            text.contains("rank 2 (pid ")
                && text.contains("all_reduce #1")
                && text.contains("timed out"),
            "rank {rank}: {text}"
        );
    }
    assert!(err.contains("nccl-run: rank 2 (pid "), "{err}");
}

/// The first rank a failure text names, past the failing operation's own names
/// ("on rank R of group G", "(rank R of G)", "on rank R is aborted").
fn first_blamed(text: &str) -> Option<usize> {
    text.match_indices("rank ").find_map(|(i, _)| {
        let digits: String = text[i + 5..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let rest = &text[i + 5 + digits.len()..];
        let own = rest.starts_with(" of ") || rest.starts_with(" is aborted");
        if own { None } else { digits.parse().ok() }
    })
}

/// Issue 18 item 5: whichever survivor notices first, every survivor's error and
/// its `aborted()` reason name the killed rank first (30 runs).
#[test]
fn a_rank_killed_mid_collective_is_the_one_every_survivor_names() {
    assert_eq!(
        first_blamed("x on rank 0 of group default failed: a: rank 2 (pid 9)"),
        Some(2)
    );
    for run in 0..30 {
        let (out, _) = nccl_run(&["-n", "4", "--grace", "5"], "kill-mid-collective");
        let err = stderr(&out);
        let by_rank = reports(&out);
        for rank in [0, 1, 3] {
            let lines = by_rank.get(&rank).cloned().unwrap_or_default();
            let e = field(&lines, "error: ")
                .unwrap_or_else(|| panic!("run {run} rank {rank}: {lines:?}\n{err}"));
            let a = field(&lines, "aborted: ").unwrap();
            assert_eq!(first_blamed(e), Some(2), "run {run} rank {rank}: {e}");
            assert_eq!(first_blamed(a), Some(2), "run {run} rank {rank}: {a}");
        }
        assert!(
            err.contains("rank 2 failed first (killed by SIGKILL)"),
            "run {run}: {err}"
        );
    }
}

/// Issue 18 item 6: ranks that exit at once on their timeout publish the timeout;
/// their exits never replace it (5 runs).
#[test]
fn the_first_failure_published_stays_when_ranks_exit_on_their_error() {
    for run in 0..5 {
        let (out, _) = nccl_run(&["-n", "3", "--grace", "1"], "exit-on-timeout");
        let err = stderr(&out);
        let published = err
            .lines()
            .find(|l| l.contains("failed first, group default"))
            .unwrap_or_else(|| panic!("run {run}: nothing published: {err}"));
        assert!(
            published.contains("all_reduce #2") && published.contains("timed out"),
            "run {run}: {published}"
        );
        assert!(
            !published.contains("exited without closing"),
            "run {run}: {published}"
        );
    }
}

/// Issue 18 item 7: a rank that panics, or returns early with work that nothing
/// waits for, publishes a failure; the others stop within seconds, not at their
/// own (one minute) timeout.
#[test]
fn a_rank_that_panics_or_returns_early_is_a_failure_for_the_others() {
    for scenario in ["panic", "early-return"] {
        let (out, took) = nccl_run(&["-n", "3", "--grace", "5"], scenario);
        let err = stderr(&out);
        let by_rank = reports(&out);
        let left: u128 = field(&by_rank[&1], "leaving at ").unwrap().parse().unwrap();
        for rank in [0, 2] {
            let lines = &by_rank[&rank];
            let e = field(lines, "error at ")
                .unwrap_or_else(|| panic!("{scenario} rank {rank}: {lines:?}\n{err}"));
            let (at, text) = e.split_once(": ").unwrap();
            let after = at.parse::<u128>().unwrap().saturating_sub(left);
            assert!(
                after < 3000,
                "{scenario} rank {rank} took {after} ms: {text}"
            );
            assert!(text.contains("rank 1"), "{scenario} rank {rank}: {text}");
        }
        let want = if scenario == "panic" {
            "while panicking"
        } else {
            "nothing waits for"
        };
        assert!(err.contains(want), "{scenario}: {err}");
        assert!(took < Duration::from_secs(30), "{scenario}: {took:?}");
    }
}

/// Issue 18 item 11: with the defaults, a job whose rank never issues ends (report
/// printed) soon after the group's timeout, and a job with a killed rank soon after
/// the kill. The figures are printed; the bounds are generous.
#[test]
fn hung_and_killed_jobs_end_soon_with_the_defaults() {
    let (out, _) = nccl_run(&["-n", "4"], "missing");
    let ended = now_ms();
    let err = stderr(&out);
    assert!(
        err.contains("nccl-run: hang report: all_reduce #2"),
        "{err}"
    );
    let issued: u128 = field(&reports(&out)[&0], "issued at ")
        .unwrap()
        .parse()
        .unwrap();
    let after_timeout = ended.saturating_sub(issued).saturating_sub(2000);
    eprintln!("the hung job ended {after_timeout} ms after its 2 s timeout");
    assert!(after_timeout < 2000, "{after_timeout} ms\n{err}");

    let (out, _) = nccl_run(&["-n", "4"], "sigkill");
    let ended = now_ms();
    let err = stderr(&out);
    assert!(
        err.contains("rank 2 failed first (killed by SIGKILL)"),
        "{err}"
    );
    let killed: u128 = field(&reports(&out)[&2], "leaving at ")
        .unwrap()
        .parse()
        .unwrap();
    let after = ended.saturating_sub(killed);
    eprintln!("the job with a killed rank ended {after} ms after the kill");
    assert!(after < 2000, "{after} ms\n{err}");
}
