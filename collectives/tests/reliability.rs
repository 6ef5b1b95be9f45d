//! Reliability of process groups: the policy before the waiters, dumps that never hold
//! anything up and never overwrite each other, every rank dumping when one times out,
//! sequence numbers only for launched operations, no phantom entries, mismatches with
//! both sides, concurrent use refused, options refused by name, and the warm-up as the
//! library's own step.
//! By concept: the error policies, options and readiness in `reliability/policy.rs`;
//! dumps and flight-record entries in `reliability/records.rs`; `SharedGroup`'s turns
//! in `reliability/turns.rs`. The tests that check call sites name this file
//! (`reliability.rs`) stay here.

use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::Duration;

use collectives::{Error, Options, ProcessGroup, WorkSet};
use nccl_safe::{Device, DeviceBuffer, ReduceOp, Stream, UniqueId};

#[path = "reliability/policy.rs"]
mod policy;
#[path = "reliability/records.rs"]
mod records;
#[path = "reliability/turns.rs"]
mod turns;

mod common;
use common::on_ranks;

const PATIENCE: Duration = Duration::from_secs(30);

fn single(dev: usize, options: Options) -> ProcessGroup {
    ProcessGroup::new(
        &Device::sim(dev).unwrap(),
        0,
        1,
        &UniqueId::random(),
        options,
    )
    .unwrap()
}

fn dumps_in(dir: &std::path::Path) -> Vec<collectives::Dump> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| collectives::Dump::read(&p).unwrap())
        .collect()
}

#[test]
fn a_group_used_by_a_second_thread_while_the_first_ones_work_is_in_flight_refuses() {
    // `ProcessGroup` is not `Sync`: sharing it takes a wrapper. A mutex lets a second
    // thread issue while the first one's operations are in flight: refused.
    // The group's stream waits on a gate until both threads have issued, so the first
    // thread's operations are still in flight whenever the second one issues, however
    // the two are scheduled (on a loaded machine one could otherwise issue all of
    // its operations, and see them complete, before the other ran at all).
    let pg = Arc::new(Mutex::new(single(3, Options::new().name("threads"))));
    let gate = nccl_safe::Gate::new(pg.lock().unwrap().device()).unwrap();
    pg.lock().unwrap().comm_stream().wait_gate(&gate).unwrap();
    let start = Arc::new(Barrier::new(2));
    let issued = Arc::new(Barrier::new(3));
    let refused = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (pg, start, refused) = (pg.clone(), start.clone(), refused.clone());
            let issued = issued.clone();
            thread::spawn(move || {
                let dev = pg.lock().unwrap().device().clone();
                let s = Stream::new(&dev).unwrap();
                let mut bufs: Vec<DeviceBuffer<i64>> = (0..150)
                    .map(|i| DeviceBuffer::from_slice(&s, &[(t * 1000 + i) as i64; 2]).unwrap())
                    .collect();
                start.wait();
                let mut works = WorkSet::new();
                for b in bufs.iter_mut() {
                    match pg.lock().unwrap().all_reduce(b, ReduceOp::Sum) {
                        Ok(w) => works.push(w),
                        Err(e) => refused.lock().unwrap().push(e),
                    }
                }
                issued.wait();
                works.wait_host(PATIENCE).unwrap();
                // Every operation that ran computed the right value (one rank: itself).
                for (i, b) in bufs.iter().enumerate() {
                    assert_eq!(b.to_vec(&s).unwrap(), vec![(t * 1000 + i) as i64; 2]);
                }
            })
        })
        .collect();
    issued.wait();
    gate.open();
    for t in threads {
        t.join().unwrap();
    }
    let refused = refused.lock().unwrap();
    assert!(!refused.is_empty(), "concurrent use must be detected");
    for e in refused.iter() {
        match e {
            Error::ConcurrentUse {
                call_site,
                other_call_site,
                ..
            } => assert!(
                call_site.contains("reliability.rs") && other_call_site.contains("reliability.rs"),
                "{e}"
            ),
            other => panic!("{other}"),
        }
    }
}

/// Issue 18 item 2: the same scenario through a `Mutex` (which orders threads by who
/// comes first, differently on each rank). With `check_call_sites`, the sim never
/// pairs one thread's operation with the other's silently: every operation either
/// computes the right value or fails with a mismatch naming both call sites.
#[test]
fn a_mutex_shared_group_with_checked_call_sites_never_computes_wrong_values_silently() {
    for round in 0..3 {
        let options = Options::new()
            .name("mutex")
            .check_call_sites(true)
            .timeout(Duration::from_secs(5));
        let out = on_ranks(5, 2, options, move |rank, pg| {
            let pg = Arc::new(Mutex::new(pg));
            let threads: Vec<_> = (0..2u64)
                .map(|t| {
                    let pg = pg.clone();
                    thread::spawn(move || {
                        let dev = pg.lock().unwrap().device().clone();
                        let s = Stream::new(&dev).unwrap();
                        let (mut right, mut wrong, mut mismatches) = (0, 0, Vec::new());
                        for k in 1..100u64 {
                            let v = (t * 1_000_000 + k * 10 + rank as u64) as i64;
                            let mut x = DeviceBuffer::from_slice(&s, &[v; 2]).unwrap();
                            // The two threads issue from different lines: the
                            // blocks differ in their call sites, which is the point.
                            #[allow(clippy::if_same_then_else)]
                            let issued = if t == 0 {
                                pg.lock().unwrap().all_reduce(&mut x, ReduceOp::Sum)
                            } else {
                                pg.lock().unwrap().all_reduce(&mut x, ReduceOp::Sum)
                            };
                            let done = issued.and_then(|w| w.wait_host(PATIENCE));
                            match done {
                                Ok(()) => {
                                    let want = (2 * (t * 1_000_000 + k * 10) + 1) as i64;
                                    if x.to_vec(&s).unwrap() == vec![want; 2] {
                                        right += 1;
                                    } else {
                                        wrong += 1;
                                    }
                                }
                                Err(e) => {
                                    mismatches.push(e.to_string());
                                    break; // the group is aborted now
                                }
                            }
                        }
                        (right, wrong, mismatches)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        });
        let mut failures = Vec::new();
        for (rank, per_thread) in out.iter().enumerate() {
            for (t, (right, wrong, errors)) in per_thread.iter().enumerate() {
                eprintln!("round {round} rank {rank} thread {t}: {right} right, {wrong} wrong");
                assert_eq!(
                    *wrong, 0,
                    "round {round} rank {rank} thread {t}: {errors:?}"
                );
                failures.extend(errors.iter().cloned());
            }
        }
        // What fails is refused (the other thread's work in flight), or a mismatch
        // naming both call sites, or an abort that follows one.
        let mismatch = failures.iter().find(|e| e.contains("mismatch"));
        if let Some(m) = mismatch {
            assert!(m.matches("reliability.rs:").count() >= 3, "{m}");
        }
        for e in &failures {
            assert!(
                e.contains("in use by another thread") || mismatch.is_some(),
                "round {round}: {e}"
            );
        }
        eprintln!("round {round}: {failures:?}");
    }
}

#[test]
fn both_sides_of_a_mismatch_get_one_shape_naming_group_rank_op_seq_and_both_call_sites() {
    let out = on_ranks(0, 2, Options::new().name("shapes"), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(&s, 8).unwrap();
        let r = if rank == 0 {
            pg.all_reduce_into(&x, &mut y.view_mut(0..4).unwrap(), ReduceOp::Sum)
        } else {
            pg.all_gather(&x, &mut y)
        };
        r.and_then(|w| w.wait_host(PATIENCE)).unwrap_err()
    });
    for (rank, e) in out.iter().enumerate() {
        match e {
            Error::Mismatch {
                group,
                rank: r,
                op,
                seq,
                call_site,
                detail,
            } => {
                assert_eq!((group.as_str(), *r, *seq), ("shapes", rank, 1));
                assert_eq!(
                    op,
                    if rank == 0 {
                        "all_reduce"
                    } else {
                        "all_gather"
                    }
                );
                assert!(call_site.contains("reliability.rs"), "{call_site}");
                assert!(
                    detail.matches("reliability.rs").count() >= 2,
                    "both call sites: {detail}"
                );
            }
            other => panic!("rank {rank}: {other}"),
        }
    }
}
