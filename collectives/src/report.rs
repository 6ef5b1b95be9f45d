//! The hang report: merges the flight-recorder dumps of all ranks of a group and says,
//! one line per finding, who is waiting, who never arrived, and who issued something
//! else.

use std::collections::BTreeMap;

use crate::recorder::{Dump, Entry, State};

fn ranks_text(ranks: &[usize]) -> String {
    let list: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
    let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{noun} {}", list.join(","))
}

/// For a collective pending on `pending`: on which of them NCCL had launched it, where
/// their groups track launches (`Options::launch_events`); empty otherwise.
fn launch_note(here: &[(usize, &Entry)], pending: &[usize]) -> String {
    let (mut launched, mut not) = (Vec::new(), Vec::new());
    for (r, e) in here.iter().filter(|(r, _)| pending.contains(r)) {
        match e.launched() {
            Some(true) => launched.push(*r),
            Some(false) => not.push(*r),
            None => {}
        }
    }
    let mut parts = Vec::new();
    if !launched.is_empty() {
        parts.push(format!(
            "launched on {} (running, waiting for peers)",
            ranks_text(&launched)
        ));
    }
    if !not.is_empty() {
        parts.push(format!(
            "not launched on {} (behind earlier work on its stream, or not yet launched by \
             NCCL)",
            ranks_text(&not)
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" [{}]", parts.join("; "))
    }
}

/// One line per finding, earliest collective first:
/// - `all_reduce #7 (train.rs:57): ranks 0,2,3 waiting; rank 1 never issued it (last:
///   broadcast #6 at train.rs:41)`
/// - `rank 2 issued all_gather (count 4, f32) at #7 (train.rs:60) where ranks 0,1,3
///   issued all_reduce (count 4, f32) (train.rs:57)`
/// - `all_reduce #9 (train.rs:57): issued by every rank, still pending on ranks 0,1`
///
/// Where the ranks' groups learn when NCCL launched each collective
/// ([`Options::launch_events`](crate::Options::launch_events)), a pending collective's
/// line ends with who had launched it: `[launched on ranks 0,2 (running, waiting for
/// peers); not launched on rank 1 (behind earlier work on its stream, or not yet
/// launched by NCCL)]`.
///
/// Ranks missing from `dumps` are reported once, and never counted as having issued
/// anything: `all_reduce #9 (a.rs:1): ranks 0,1,2 waiting; no dump from rank 3: it may
/// not have issued it`. A rank with several dumps (each failure writes its own) is read
/// from its earliest, the one that explains the first failure. Point-to-point
/// operations are listed when they are still pending.
///
/// A group that shrank or grew numbers its ranks anew in each epoch
/// ([`Dump::epoch`]): only the latest epoch's dumps are read together, and a report of
/// a later epoch starts with a line that says which, and how many dumps of earlier
/// epochs were left out.
///
/// Last come the verdicts of NCCL's RAS service that timed-out ranks wrote into their
/// dumps ([`Dump::ras`], cuda driver), each line once:
/// `NCCL RAS (asked by rank 0): communicator 0x1f2e (4 ranks): rank 3 (pid 5201 on
/// 10.0.0.2) unresponsive`.
pub fn hang_report(dumps: &[Dump]) -> Vec<String> {
    let latest = dumps.iter().map(|d| d.epoch).max().unwrap_or(0);
    let current: Vec<Dump> = dumps
        .iter()
        .filter(|d| d.epoch == latest)
        .cloned()
        .collect();
    let mut lines = report_of(&current);
    let older = dumps.len() - current.len();
    if latest > 0 && !lines.is_empty() {
        lines.insert(
            0,
            format!(
                "epoch {latest} of the group (after {latest} shrink(s) or grow(s)){}",
                if older > 0 {
                    format!("; {older} dump(s) of earlier epochs left out")
                } else {
                    String::new()
                }
            ),
        );
    }
    let mut said = std::collections::HashSet::new();
    for d in &current {
        for l in &d.ras {
            if said.insert(l.as_str()) {
                lines.push(format!("NCCL RAS (asked by rank {}): {l}", d.rank));
            }
        }
    }
    lines
}

/// The report of the dumps of one epoch.
fn report_of(dumps: &[Dump]) -> Vec<String> {
    let mut lines = Vec::new();
    if dumps.is_empty() {
        return lines;
    }
    let size = dumps.iter().map(|d| d.size).max().unwrap_or(0);
    let mut by_rank: BTreeMap<usize, &Dump> = BTreeMap::new();
    for d in dumps {
        let keep = by_rank
            .get(&d.rank)
            .is_some_and(|e| e.dumped_ms <= d.dumped_ms);
        if !keep {
            by_rank.insert(d.rank, d);
        }
    }
    let absent: Vec<usize> = (0..size).filter(|r| !by_rank.contains_key(r)).collect();
    if !absent.is_empty() {
        lines.push(format!(
            "no dump from {} (of {size}): they are left out below",
            ranks_text(&absent)
        ));
    }
    // Per rank: collective entries by sequence number.
    let colls: BTreeMap<usize, BTreeMap<u64, &Entry>> = by_rank
        .iter()
        .map(|(&r, d)| {
            (
                r,
                d.entries
                    .iter()
                    .filter_map(|e| e.seq.map(|s| (s, e)))
                    .collect(),
            )
        })
        .collect();
    // The sequence numbers recorded by any rank, in order: the work is proportional
    // to the entries recorded, whatever the numbers reach.
    let seqs: std::collections::BTreeSet<u64> =
        colls.values().flat_map(|m| m.keys().copied()).collect();
    let mut reported_missing: Vec<usize> = Vec::new();
    {
        for seq in seqs {
            let here: Vec<(usize, &Entry)> = colls
                .iter()
                .filter_map(|(&r, m)| m.get(&seq).map(|e| (r, *e)))
                .collect();
            if here.is_empty() {
                continue;
            }
            // Which operation do most ranks say this is?
            let mut kinds: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (r, e) in &here {
                kinds.entry(describe(e)).or_default().push(*r);
            }
            let (main_desc, main_ranks) = kinds
                .iter()
                .max_by_key(|(_, rs)| rs.len())
                .map(|(k, v)| (k.clone(), v.clone()))
                .unwrap_or_default();
            let main_entry = here
                .iter()
                .find(|(r, _)| main_ranks.contains(r))
                .map(|(_, e)| *e);
            for (desc, ranks) in &kinds {
                if *desc == main_desc {
                    continue;
                }
                let their = here
                    .iter()
                    .find(|(r, _)| ranks.contains(r))
                    .map(|(_, e)| *e);
                lines.push(format!(
                    "{} issued {desc} at #{seq} ({}) where {} issued {main_desc} ({})",
                    ranks_text(ranks),
                    their.map_or("?", |e| e.call_site.as_str()),
                    ranks_text(&main_ranks),
                    main_entry.map_or("?", |e| e.call_site.as_str()),
                ));
            }
            // Not completed: still scheduled, or given up on (timed out, failed).
            let pending: Vec<usize> = here
                .iter()
                .filter(|(_, e)| e.state != State::Completed)
                .map(|(r, _)| *r)
                .collect();
            if pending.is_empty() {
                continue;
            }
            let missing: Vec<usize> = colls
                .keys()
                .copied()
                .filter(|r| !colls[r].contains_key(&seq))
                .collect();
            let Some(main) = main_entry else { continue };
            let head = format!("{} #{seq} ({})", main.op, main.call_site);
            if missing.is_empty() {
                if kinds.len() != 1 {
                    continue;
                }
                let unknown: Vec<usize> = absent
                    .iter()
                    .copied()
                    .filter(|r| !reported_missing.contains(r))
                    .collect();
                if absent.is_empty() {
                    lines.push(format!(
                        "{head}: issued by every rank, still pending on {}{}",
                        ranks_text(&pending),
                        launch_note(&here, &pending)
                    ));
                } else if !unknown.is_empty() {
                    let pronoun = if unknown.len() == 1 { "it" } else { "they" };
                    lines.push(format!(
                        "{head}: {} waiting; no dump from {}: {pronoun} may not have issued it{}",
                        ranks_text(&pending),
                        ranks_text(&unknown),
                        launch_note(&here, &pending)
                    ));
                    reported_missing.extend(unknown);
                }
                continue;
            }
            let new_missing: Vec<usize> = missing
                .iter()
                .copied()
                .filter(|r| !reported_missing.contains(r))
                .collect();
            if new_missing.is_empty() {
                continue;
            }
            let mut parts = Vec::new();
            for r in &new_missing {
                let last = colls[r].range(..seq).next_back();
                parts.push(match last {
                    Some((s, e)) => format!(
                        "rank {r} never issued it (last: {} #{s} at {})",
                        e.op, e.call_site
                    ),
                    None => format!("rank {r} never issued it (no collective before it)"),
                });
            }
            lines.push(format!(
                "{head}: {} waiting; {}{}",
                ranks_text(&pending),
                parts.join("; "),
                launch_note(&here, &pending)
            ));
            reported_missing.extend(new_missing);
        }
    }
    for (r, d) in &by_rank {
        for e in d
            .entries
            .iter()
            .filter(|e| e.seq.is_none() && e.state != State::Completed)
        {
            if let Some((peer, n)) = e.p2p {
                lines.push(format!(
                    "rank {r}: {} #{n} with rank {peer} ({}) still pending",
                    e.op, e.call_site
                ));
            }
        }
    }
    lines
}

/// An entry as the report compares it across ranks: what every rank of a matching
/// call has in common (an `all_to_allv`'s counts differ from rank to rank).
fn describe(e: &Entry) -> String {
    if e.out_count.is_some() {
        return format!("{} ({})", e.op, e.dtype);
    }
    match e.root {
        Some(root) => format!("{} (count {}, {}, root {root})", e.op, e.count, e.dtype),
        None => format!("{} (count {}, {})", e.op, e.count, e.dtype),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(seq: u64, op: &str, site: &str, state: State) -> Entry {
        Entry {
            record_id: 0,
            seq: Some(seq),
            p2p: None,
            op: op.into(),
            dtype: "f32".into(),
            count: 4,
            out_count: None,
            root: None,
            call_site: site.into(),
            enqueued_ms: 0,
            completed_ms: None,
            tracks_launch: false,
            started_ms: None,
            state,
        }
    }

    fn dump(rank: usize, entries: Vec<Entry>) -> Dump {
        Dump {
            group: "g".into(),
            rank,
            size: 4,
            driver: "sim".into(),
            reason: "timeout".into(),
            epoch: 0,
            dumped_ms: 0,
            timeout_ms: 1000,
            comm_lib: "sim".into(),
            ras: Vec::new(),
            entries,
        }
    }

    #[test]
    fn ras_verdicts_come_last_each_line_once() {
        let mut a = dump(0, vec![e(1, "all_reduce", "a.rs:1", State::TimedOut)]);
        let mut b = dump(1, vec![e(1, "all_reduce", "a.rs:1", State::TimedOut)]);
        a.ras = vec!["communicator 0x1 (4 ranks): rank 3 (pid 9 on h) unresponsive".into()];
        b.ras = a.ras.clone();
        b.ras
            .push("communicator 0x1 (4 ranks): rank 2 (pid 8 on h) aborted it".into());
        let lines = hang_report(&[a, b]);
        let ras: Vec<&String> = lines.iter().filter(|l| l.starts_with("NCCL RAS")).collect();
        assert_eq!(
            ras,
            [
                "NCCL RAS (asked by rank 0): communicator 0x1 (4 ranks): rank 3 (pid 9 on h) \
                 unresponsive",
                "NCCL RAS (asked by rank 1): communicator 0x1 (4 ranks): rank 2 (pid 8 on h) \
                 aborted it",
            ]
        );
        assert!(lines.last().unwrap().starts_with("NCCL RAS"), "{lines:?}");
    }

    #[test]
    fn a_rank_that_skipped_a_collective_is_named_with_both_call_sites() {
        use State::*;
        let full = |rank| {
            dump(
                rank,
                vec![
                    e(6, "broadcast", "train.rs:41", Completed),
                    e(7, "all_reduce", "train.rs:57", Scheduled),
                ],
            )
        };
        let dumps = vec![
            full(0),
            dump(1, vec![e(6, "broadcast", "train.rs:41", Completed)]),
            full(2),
            full(3),
        ];
        let lines = hang_report(&dumps);
        assert_eq!(
            lines,
            vec![
                "all_reduce #7 (train.rs:57): ranks 0,2,3 waiting; rank 1 never issued it (last: broadcast #6 at \
                 train.rs:41)"
            ]
        );
    }

    #[test]
    fn an_all_to_allv_whose_counts_differ_by_rank_is_no_mismatch() {
        let v = |rank: usize, state| {
            let mut x = e(3, "all_to_allv", "moe.rs:9", state);
            (x.count, x.out_count) = (rank + 1, Some(10 - rank));
            dump(rank, vec![x])
        };
        let lines = hang_report(&[
            v(0, State::TimedOut),
            v(1, State::TimedOut),
            v(2, State::TimedOut),
            dump(3, vec![]),
        ]);
        assert_eq!(
            lines,
            vec![
                "all_to_allv #3 (moe.rs:9): ranks 0,1,2 waiting; rank 3 never issued it (no \
                  collective before it)"
            ]
        );
    }

    #[test]
    fn a_mismatch_names_both_operations() {
        use State::*;
        let ar = |rank| dump(rank, vec![e(7, "all_reduce", "train.rs:57", Scheduled)]);
        let dumps = vec![
            ar(0),
            ar(1),
            dump(2, vec![e(7, "all_gather", "train.rs:60", Scheduled)]),
            ar(3),
        ];
        let lines = hang_report(&dumps);
        assert_eq!(
            lines[0],
            "rank 2 issued all_gather (count 4, f32) at #7 (train.rs:60) where ranks 0,1,3 issued all_reduce \
             (count 4, f32) (train.rs:57)"
        );
    }

    #[test]
    fn launch_tracking_says_which_ranks_had_launched_a_pending_collective() {
        use State::*;
        let tracked = |rank, started: Option<u64>, state| {
            let mut x = e(4, "all_reduce", "a.rs:3", state);
            x.tracks_launch = true;
            x.started_ms = started;
            dump(rank, vec![x])
        };
        let lines = hang_report(&[
            tracked(0, Some(5), TimedOut),
            tracked(1, None, Scheduled),
            tracked(2, Some(6), Scheduled),
            dump(3, vec![e(3, "broadcast", "a.rs:2", Completed)]),
        ]);
        assert_eq!(
            lines,
            vec![
                "all_reduce #4 (a.rs:3): ranks 0,1,2 waiting; rank 3 never issued it (last: \
                 broadcast #3 at a.rs:2) [launched on ranks 0,2 (running, waiting for peers); \
                 not launched on rank 1 (behind earlier work on its stream, or not yet \
                 launched by NCCL)]"
            ]
        );
        // Without launch tracking, nothing is said about launches.
        let plain = hang_report(&[
            dump(0, vec![e(4, "all_reduce", "a.rs:3", Scheduled)]),
            dump(1, vec![e(4, "all_reduce", "a.rs:3", Scheduled)]),
        ]);
        assert!(plain.iter().all(|l| !l.contains("launched")), "{plain:?}");
    }

    #[test]
    fn a_rank_without_a_dump_is_never_said_to_have_issued_anything() {
        use State::*;
        let waiting = |rank| dump(rank, vec![e(9, "all_reduce", "a.rs:1", Scheduled)]);
        let lines = hang_report(&[waiting(0), waiting(1), waiting(2)]);
        assert_eq!(
            lines,
            vec![
                "no dump from rank 3 (of 4): they are left out below",
                "all_reduce #9 (a.rs:1): ranks 0,1,2 waiting; no dump from rank 3: it may not have \
                 issued it"
            ]
        );
        assert!(lines.iter().all(|l| !l.contains("every rank")));
    }

    #[test]
    fn the_earliest_dump_of_a_rank_explains_the_first_failure() {
        use State::*;
        let mut first = dump(1, vec![e(6, "broadcast", "t.rs:41", Completed)]);
        first.dumped_ms = 100;
        // A later dump of the same rank after an aborted follow-up must not hide it.
        let mut later = dump(
            1,
            vec![
                e(6, "broadcast", "t.rs:41", Completed),
                e(7, "all_reduce", "t.rs:57", Failed),
            ],
        );
        later.dumped_ms = 200;
        let waiting = |rank| {
            dump(
                rank,
                vec![
                    e(6, "broadcast", "t.rs:41", Completed),
                    e(7, "all_reduce", "t.rs:57", TimedOut),
                ],
            )
        };
        let lines = hang_report(&[waiting(0), later, first, waiting(2), waiting(3)]);
        assert_eq!(
            lines,
            vec![
                "all_reduce #7 (t.rs:57): ranks 0,2,3 waiting; rank 1 never issued it (last: \
                 broadcast #6 at t.rs:41)"
            ]
        );
    }

    #[test]
    fn completed_histories_report_nothing_and_missing_dumps_are_said() {
        use State::*;
        let done = |rank| dump(rank, vec![e(0, "all_reduce", "a.rs:1", Completed)]);
        assert!(hang_report(&[done(0), done(1), done(2), done(3)]).is_empty());
        let lines = hang_report(&[done(0), done(1)]);
        assert_eq!(
            lines,
            vec!["no dump from ranks 2,3 (of 4): they are left out below"]
        );
        assert!(hang_report(&[]).is_empty());
    }

    /// Issue 18 item 12: the report walks the sequence numbers recorded, not every
    /// number up to the highest (64 ranks near #10^12 would never finish that way).
    #[test]
    fn a_report_of_huge_sequence_numbers_reads_only_the_recorded_ones() {
        use State::*;
        let base = 1_000_000_000_000u64;
        // Fewer ranks under Miri, which interprets every step.
        let n = if cfg!(miri) { 8 } else { 64 };
        let ranks: Vec<Dump> = (0..n)
            .map(|rank| {
                let mut entries: Vec<Entry> = (0..20)
                    .map(|k| e(base + k, "all_reduce", "t.rs:9", Completed))
                    .collect();
                if rank != 5 {
                    entries.push(e(base + 20, "all_reduce", "t.rs:10", TimedOut));
                }
                let mut d = dump(rank, entries);
                d.size = n;
                d
            })
            .collect();
        let lines = hang_report(&ranks);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(&format!(
                "all_reduce #{} (t.rs:10): ranks 0,1,2,3,4,6,",
                base + 20
            )) && lines[0].ends_with(&format!(
                "rank 5 never issued it (last: all_reduce #{} at t.rs:9)",
                base + 19
            )),
            "{}",
            lines[0]
        );
    }
}
