//! Groups that heal, on sim ranks in threads (the store-based agreement and
//! replacements in real processes are in `nccl_run/healing.rs`): under
//! `ErrorPolicy::Shrink` a failure revokes the communicator instead of aborting it;
//! `shrink_excluding` makes the group of the survivors, whose ranks keep their order
//! and whose sequence numbers go on; the old group refuses everything naming what
//! replaced it; `grow`/`join_grown` let a new rank in; each epoch's flight record
//! starts with the change, and the hang report reads one epoch at a time.

use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use collectives::{
    Dump, Entry, Error, ErrorPolicy, Options, ProcessGroup, ReplacedBy, State, hang_report,
};
use nccl_safe::{Device, DeviceBuffer, GrowId, ReduceOp, UniqueId};

mod common;
use common::on_ranks;

const PATIENCE: Duration = Duration::from_secs(30);

fn shrinking() -> Options {
    Options::new()
        .on_error(ErrorPolicy::Shrink)
        .timeout(PATIENCE)
}

fn sum(pg: &ProcessGroup, value: u64) -> collectives::Result<(u64, Vec<u64>)> {
    let mut x = DeviceBuffer::from_slice(pg.comm_stream(), &[value; 3])?;
    let work = pg.all_reduce(&mut x, ReduceOp::Sum)?;
    let seq = work.seq();
    work.wait_host(PATIENCE)?;
    Ok((seq, x.to_vec(pg.comm_stream())?))
}

#[test]
fn survivors_of_a_failure_shrink_and_go_on_with_their_sequence_numbers() {
    // Rank 2 of 4 leaves after the first all-reduce; the next one fails on the
    // others (their communicator is revoked, not aborted, under ErrorPolicy::Shrink),
    // and they shrink without it.
    let out = on_ranks(0, 4, shrinking(), |rank, pg| {
        let (seq, first) = sum(&pg, 1).unwrap();
        assert_eq!((seq, first), (1, vec![4; 3]));
        if rank == 2 {
            return None; // drops its group: destroyed, as a process that exits
        }
        let e = sum(&pg, 1).unwrap_err();
        assert!(e.to_string().contains("rank 2"), "rank {rank}: {e}");
        let refused = sum(&pg, 1).unwrap_err();
        assert!(
            refused.to_string().contains("ProcessGroup::shrink"),
            "rank {rank}: {refused}"
        );
        let next = pg.shrink_excluding(&[2]).unwrap();
        assert_eq!(next.epoch(), 1);
        assert!(!next.joined_by_grow());
        let got = (next.rank(), next.size(), sum(&next, rank as u64).unwrap());
        // The old group refuses everything, naming what replaced it.
        let e = sum(&pg, 1).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::Replaced {
                    by: ReplacedBy::Shrink,
                    epoch: 1,
                    size: 3,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string().contains("ProcessGroup::shrink returned"),
            "{e}"
        );
        // The new group's record starts with the change; its dump says the epoch.
        let record = next.flight_record();
        assert_eq!((record[0].op.as_str(), record[0].count), ("shrink", 3));
        assert_eq!(record[0].state, State::Completed);
        assert_eq!(next.dump_flight_record("test").epoch, 1);
        Some(got)
    });
    // Old ranks 0, 1, 3 are new ranks 0, 1, 2; the failed all-reduce took #2.
    let want = |new| Some((new, 3, (3, vec![4; 3])));
    assert_eq!(out, [want(0), want(1), None, want(2)]);
}

#[test]
fn a_failure_under_the_abort_policy_leaves_nothing_to_shrink() {
    let out = on_ranks(4, 2, Options::new().timeout(PATIENCE), |rank, pg| {
        if rank == 1 {
            return None;
        }
        let e = sum(&pg, 1).unwrap_err();
        assert!(e.to_string().contains("rank 1"), "{e}");
        // The communicator was aborted: a shrink cannot use it.
        std::thread::sleep(Duration::from_millis(200));
        Some(pg.shrink_excluding(&[1]).map(drop).unwrap_err())
    });
    let e = out[0].as_ref().unwrap();
    assert!(e.to_string().contains("abort"), "{e}");
}

#[test]
fn shrink_without_a_store_needs_the_list() {
    let out = on_ranks(6, 1, shrinking(), |_, pg| {
        pg.shrink().map(drop).unwrap_err()
    });
    assert!(
        matches!(
            &out[0],
            Error::Reshape {
                op: "shrink",
                epoch: 0,
                ..
            }
        ) && out[0].to_string().contains("shrink_excluding"),
        "{}",
        out[0]
    );
}

/// A grow id handed from the coordinator to the new ranks.
#[derive(Default)]
struct Post(Mutex<Option<GrowId>>, Condvar);

impl Post {
    fn put(&self, g: GrowId) {
        *self.0.lock().unwrap() = Some(g);
        self.1.notify_all();
    }

    fn take(&self) -> GrowId {
        let mut g = self.0.lock().unwrap();
        loop {
            if let Some(id) = *g {
                return id;
            }
            g = self.1.wait(g).unwrap();
        }
    }
}

#[test]
fn a_new_rank_joins_a_running_group_and_receives_its_state() {
    let post = Arc::new(Post::default());
    let newcomer = {
        let post = post.clone();
        thread::spawn(move || {
            let dev = Device::sim(2).unwrap();
            let id = post.take();
            // The others' epoch is 0 and their next sequence number 2: the grown
            // group is epoch 1 from #2.
            let pg = ProcessGroup::join_grown(&dev, 2, 3, &id, (1, 2), shrinking()).unwrap();
            assert!(pg.joined_by_grow());
            assert_eq!(pg.flight_record()[0].op, "join");
            // Its first operation receives the state (a broadcast from rank 0).
            let mut state = DeviceBuffer::<u64>::zeroed(pg.comm_stream(), 4).unwrap();
            let w = pg.broadcast(&mut state, 0).unwrap();
            assert_eq!(w.seq(), 2);
            w.wait_host(PATIENCE).unwrap();
            (
                pg.rank(),
                pg.epoch(),
                state.to_vec(pg.comm_stream()).unwrap(),
            )
        })
    };
    let out = on_ranks(0, 2, shrinking(), move |rank, pg| {
        let (seq, _) = sum(&pg, 1).unwrap();
        assert_eq!(seq, 1);
        let made = (rank == 0).then(|| pg.grow_id().unwrap());
        if let Some(g) = made {
            post.put(g);
        }
        let grown = pg.grow(3, made.as_ref()).unwrap();
        let e = sum(&pg, 1).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Replaced {
                    by: ReplacedBy::Grow,
                    ..
                }
            ),
            "{e}"
        );
        let mut state = DeviceBuffer::from_slice(grown.comm_stream(), &[7u64, 8, 9, 10]).unwrap();
        grown
            .broadcast(&mut state, 0)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        (
            grown.rank(),
            grown.epoch(),
            grown.flight_record()[0].op.clone(),
        )
    });
    assert_eq!(
        out,
        [(0, 1, "grow".to_string()), (1, 1, "grow".to_string())]
    );
    assert_eq!(newcomer.join().unwrap(), (2, 1, vec![7, 8, 9, 10]));
}

#[test]
fn a_shrink_that_another_survivor_does_not_make_ends_in_an_error_not_a_hang() {
    // Of 4 ranks, 0 and 1 shrink without rank 3; rank 2, a survivor by their list,
    // neither leaves nor shrinks (it is stuck elsewhere): their shrink cannot meet it
    // and fails within their timeout, naming it.
    let hold = Arc::new(Barrier::new(4));
    let opts = shrinking().timeout(Duration::from_secs(1));
    let out = on_ranks(4, 4, opts, move |rank, pg| {
        if rank >= 2 {
            hold.wait();
            return None;
        }
        let r = pg.shrink_excluding(&[3]).map(drop);
        hold.wait();
        Some(r.unwrap_err().to_string())
    });
    for e in [&out[0], &out[1]] {
        let e = e.as_ref().unwrap();
        assert!(e.contains("timed out") && e.contains("[2]"), "{e}");
    }
}

fn entry(seq: u64, op: &str, state: State) -> Entry {
    Entry {
        record_id: 0,
        seq: Some(seq),
        p2p: None,
        op: op.into(),
        dtype: "f32".into(),
        count: 4,
        out_count: None,
        root: None,
        call_site: "train.rs:9".into(),
        enqueued_ms: 0,
        completed_ms: None,
        tracks_launch: false,
        started_ms: None,
        state,
    }
}

fn dump(rank: usize, size: usize, epoch: u64, entries: Vec<Entry>) -> Dump {
    Dump {
        group: "g".into(),
        rank,
        size,
        driver: "sim".into(),
        reason: "timeout".into(),
        epoch,
        dumped_ms: 0,
        timeout_ms: 1000,
        comm_lib: "sim".into(),
        ras: Vec::new(),
        entries,
    }
}

#[test]
fn the_hang_report_reads_the_latest_epoch_and_says_so() {
    let old = dump(3, 4, 0, vec![entry(5, "all_reduce", State::Scheduled)]);
    let a = dump(0, 3, 1, vec![entry(9, "all_reduce", State::Scheduled)]);
    let b = dump(1, 3, 1, vec![entry(9, "all_reduce", State::Scheduled)]);
    let lines = hang_report(&[old, a, b]);
    assert!(
        lines[0].starts_with("epoch 1 of the group") && lines[0].contains("1 dump(s) of earlier"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("all_reduce #9") && l.contains("rank 2")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("#5")), "{lines:?}");
}

#[test]
fn the_shrink_policy_needs_an_nccl_with_revoke() {
    use nccl_safe::{Communicator, Config, Version};
    let dev = Device::sim(7).unwrap();
    let old = Config::new().emulate_nccl_version(Version::new(2, 28, 3));
    let comm = Communicator::init(&dev, 0, 1, &UniqueId::random(), &old).unwrap();
    let e = ProcessGroup::from_communicator(comm, shrinking()).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Safe(nccl_safe::Error::UnsupportedByNccl {
                feature: "revoke",
                ..
            })
        ),
        "{e}"
    );
    // The default policy does not need it.
    let comm = Communicator::init(&dev, 0, 1, &UniqueId::random(), &old).unwrap();
    assert!(ProcessGroup::from_communicator(comm, Options::new()).is_ok());
}
