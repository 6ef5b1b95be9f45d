//! Revoke, shrink and grow (NCCL's fault-tolerance calls) on sim ranks in threads:
//! values on the new communicators, the rank map, the rules NCCL states and the sim
//! enforces (each refusal names its rule), version gates. The cuda twins need two GPUs
//! for shrink and grow (one GPU holds one NCCL rank); revoke runs on one.

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::thread;

use super::on_ranks;
use crate::common::{PATIENCE, expect_err};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, Gate, GrowId, RankMap, ReduceOp,
    Stream, UniqueId, Version,
};

/// The tests here stop work and abort, which on the sim (as on a GPU) waits for the
/// device's other work, and may stop another communicator's stalled work on it: they
/// run one at a time, so that none of them waits for another's deliberately stuck
/// collective.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stuck all-reduce on `comm`: its stream waits for peers that never issue theirs.
fn stuck_all_reduce(comm: &Communicator, dev: &Device) -> (Stream, DeviceBuffer<f32>) {
    let s = Stream::new(dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 8]).unwrap();
    s.synchronize().unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    (s, x)
}

fn sum_on(comm: &Communicator, dev: &Device, value: i64) -> Vec<i64> {
    let s = Stream::new(dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[value; 3]).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    x.to_vec(&s).unwrap()
}

#[test]
fn rank_maps_keep_the_survivors_order() {
    let m = RankMap::without(5, &[3, 1]);
    assert_eq!(m.survivors(), [0, 2, 4]);
    assert_eq!(m.excluded(), [1, 3]);
    assert_eq!((m.old_size(), m.new_size()), (5, 3));
    assert_eq!(
        (0..5).map(|r| m.new_rank(r)).collect::<Vec<_>>(),
        [Some(0), None, Some(1), None, Some(2)]
    );
    assert_eq!(m.old_rank(2), Some(4));
    assert_eq!(m.old_rank(3), None);
}

#[test]
fn a_default_shrink_renumbers_the_survivors_in_order_and_keeps_the_parent() {
    let _serial = one_at_a_time();
    // Rank 1 of 4 leaves; the others make a 3-rank communicator, in their old order.
    let left = Arc::new(Barrier::new(4));
    let out = on_ranks(DriverKind::Sim, 4, Config::new(), move |rank, dev, comm| {
        if rank == 1 {
            left.wait(); // stays until the survivors are done, then drops its rank
            return None;
        }
        let shrunk = comm.shrink(&[1], &Config::new()).unwrap();
        let got = (
            shrunk.comm.rank(),
            shrunk.comm.size(),
            shrunk.ranks.survivors().to_vec(),
            sum_on(&shrunk.comm, &dev, rank as i64 * 10),
        );
        // The parent stays usable in default mode.
        assert!(comm.async_error().unwrap().is_none());
        shrunk.comm.close().unwrap();
        left.wait();
        Some(got)
    });
    let want = |new| Some((new, 3, vec![0, 2, 3], vec![50; 3]));
    assert_eq!(out, [want(0), None, want(1), want(2)]);
}

#[test]
fn a_default_shrink_is_refused_with_work_outstanding_and_abort_mode_stops_it() {
    let _serial = one_at_a_time();
    // Rank 2 never issues the all-reduce the others wait in (a hung or dead rank).
    let gone = Arc::new(Barrier::new(3));
    // Both survivors are refused before either stops its work (which fails the
    // other's all-reduce, leaving nothing outstanding there).
    let refused = Arc::new(Barrier::new(2));
    let out = on_ranks(DriverKind::Sim, 3, Config::new(), move |rank, dev, comm| {
        if rank == 2 {
            gone.wait();
            return None;
        }
        let (s, _x) = stuck_all_reduce(&comm, &dev);
        let e = expect_err(comm.shrink(&[2], &Config::new()), "default shrink");
        assert!(
            matches!(&e, Error::InvalidUsage { op: "shrink", reason }
                if reason.contains("1 operation(s) outstanding") && reason.contains("shrink_abort")),
            "{e}"
        );
        refused.wait();
        let (shrunk, parent) = comm.shrink_abort(&[2], &Config::new()).unwrap();
        // What the abort mode stopped never reports success.
        let stopped = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
        assert!(
            stopped.contains("revoke") || stopped.contains("aborted its communicator"),
            "{stopped}"
        );
        // The parent is revoked: nothing but shrink, abort and drop.
        assert_eq!((parent.rank(), parent.size()), (rank, 3));
        let sum = sum_on(&shrunk.comm, &dev, 1);
        gone.wait();
        drop(parent); // aborts
        Some((shrunk.comm.rank(), shrunk.comm.size(), sum))
    });
    assert_eq!(
        out,
        [Some((0, 2, vec![2; 3])), Some((1, 2, vec![2; 3])), None]
    );
}

#[test]
fn revoke_fails_in_flight_work_and_leaves_only_shrink() {
    let _serial = one_at_a_time();
    let gone = Arc::new(Barrier::new(2));
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        if rank == 1 {
            gone.wait();
            return None;
        }
        let (s, mut x) = stuck_all_reduce(&comm, &dev);
        // Revoked from another thread, as a watchdog would: the owner's next call is
        // refused, saying why.
        let handle = comm.abort_handle().unwrap();
        thread::spawn(move || handle.revoke())
            .join()
            .unwrap()
            .unwrap();
        let e = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
        assert!(e.contains("revoke"), "{e}");
        let refused = expect_err(
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
            "collective after revoke",
        );
        assert!(
            refused.to_string().contains("revoked") && refused.to_string().contains("shrink"),
            "{refused}"
        );
        // The owner takes its revoked form (no second revoke) and shrinks it.
        let revoked = comm.revoke().unwrap();
        let shrunk = revoked.shrink(&[1], &Config::new()).unwrap();
        let sum = sum_on(&shrunk.comm, &dev, 7);
        revoked.abort().unwrap();
        gone.wait();
        Some((shrunk.ranks.survivors().to_vec(), sum))
    });
    assert_eq!(out[0], Some((vec![0], vec![7; 3])));
}

#[test]
fn an_aborted_communicator_cannot_be_shrunk() {
    let _serial = one_at_a_time();
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), |rank, _dev, comm| {
        if rank == 1 {
            return None;
        }
        comm.abort_handle().unwrap().abort().unwrap();
        let revoked = comm.revoke().unwrap(); // nothing left to stop
        Some(expect_err(
            revoked.shrink(&[1], &Config::new()),
            "shrink after abort",
        ))
    });
    let e = out[0].as_ref().unwrap();
    assert!(
        matches!(e, Error::Aborted { .. }) && e.to_string().contains("only a revoked one"),
        "{e}"
    );
}

#[test]
fn a_survivor_that_excluded_another_survivor_is_a_mismatch_naming_both() {
    let _serial = one_at_a_time();
    // Of 5 ranks, 0, 1 and 3 shrink; 0 and 3 exclude [2, 4] but 1 excludes [2, 3].
    // Their new ranks and sizes agree (0, 1, 2 of 3), so they meet: the lists differ.
    let done = Arc::new(Barrier::new(5));
    let out = on_ranks(
        DriverKind::Sim,
        5,
        Config::new(),
        move |rank, _dev, comm| {
            let list: &[usize] = match rank {
                0 | 3 => &[2, 4],
                1 => &[2, 3],
                _ => {
                    done.wait();
                    return None;
                }
            };
            let r = comm.shrink(list, &Config::new().call_timeout(PATIENCE));
            done.wait();
            Some(expect_err(r, "shrink with different lists"))
        },
    );
    for rank in [0, 1, 3] {
        let e = out[rank].as_ref().unwrap();
        assert!(matches!(e, Error::Mismatch { .. }), "rank {rank}: {e}");
        let text = e.to_string();
        assert!(
            text.contains("excluded other ranks than") && text.contains("which excluded ["),
            "rank {rank}: {text}"
        );
    }
}

#[test]
fn exclude_lists_are_checked_naming_the_wrong_value() {
    let _serial = one_at_a_time();
    let out = on_ranks(DriverKind::Sim, 3, Config::new(), |rank, _dev, comm| {
        if rank != 0 {
            return Vec::new();
        }
        let cfg = Config::new();
        [&[][..], &[3], &[1, 1], &[0, 2]]
            .iter()
            .map(|list| expect_err(comm.shrink(list, &cfg), "bad exclude list").to_string())
            .collect()
    });
    let e = &out[0];
    assert!(e[0].contains("no rank to exclude"), "{}", e[0]);
    assert!(
        e[1].contains("excluded rank 3 is not below the world size 3"),
        "{}",
        e[1]
    );
    assert!(e[2].contains("rank 1 is excluded twice"), "{}", e[2]);
    assert!(
        e[3].contains("rank 0 is in its own exclude list"),
        "{}",
        e[3]
    );
}

/// A grow id, handed from the coordinator to however many new ranks ask.
#[derive(Default)]
struct Post(std::sync::Mutex<Option<GrowId>>, std::sync::Condvar);

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
fn a_grow_keeps_the_existing_ranks_and_the_new_ones_take_the_ranks_above() {
    let _serial = one_at_a_time();
    // Two ranks grow into four; ranks 2 and 3 join.
    let id = UniqueId::random();
    let post = Arc::new(Post::default());
    let new: Vec<_> = (2..4)
        .map(|rank| {
            let post = post.clone();
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                let g = post.take();
                let comm = Communicator::join_grown(&dev, rank, 4, &g, &Config::new()).unwrap();
                (comm.rank(), comm.size(), sum_on(&comm, &dev, rank as i64))
            })
        })
        .collect();
    let old: Vec<_> = (0..2)
        .map(|rank| {
            let post = post.clone();
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                let comm = Communicator::init(&dev, rank, 2, &id, &Config::new()).unwrap();
                let made = (rank == 0).then(|| comm.grow_id().unwrap());
                if let Some(g) = made {
                    // One id per grow: no second while this one is unused.
                    let e = expect_err(comm.grow_id(), "a second grow id");
                    assert!(e.to_string().contains("is unused"), "{e}");
                    post.put(g);
                }
                let e = expect_err(comm.grow(2, None, &Config::new()), "grow to the same size");
                assert!(e.to_string().contains("new size 2 is not above"), "{e}");
                let grown = comm.grow(4, made.as_ref(), &Config::new()).unwrap();
                let got = (
                    grown.rank(),
                    grown.size(),
                    sum_on(&grown, &dev, rank as i64),
                );
                if let Some(g) = made {
                    // The id was used: this rank may not grow with it again.
                    let e = expect_err(comm.grow(5, Some(&g), &Config::new()), "reused id");
                    assert!(e.to_string().contains("each id is used by one grow"), "{e}");
                }
                got
            })
        })
        .collect();
    for (rank, t) in old.into_iter().enumerate() {
        assert_eq!(t.join().unwrap(), (rank, 4, vec![6; 3]));
    }
    for (i, t) in new.into_iter().enumerate() {
        assert_eq!(t.join().unwrap(), (i + 2, 4, vec![6; 3]));
    }
}

#[test]
fn a_late_joiner_of_a_used_grow_id_is_refused_naming_the_rule() {
    let _serial = one_at_a_time();
    let id = UniqueId::random();
    let (tx, rx) = mpsc::channel::<GrowId>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let done_rx = Arc::new(std::sync::Mutex::new(done_rx));
    let old: Vec<_> = (0..2)
        .map(|rank| {
            let (tx, done_rx) = (tx.clone(), done_rx.clone());
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                let comm = Communicator::init(&dev, rank, 2, &id, &Config::new()).unwrap();
                let made = (rank == 0).then(|| comm.grow_id().unwrap());
                if let Some(g) = made {
                    tx.send(g).unwrap();
                    tx.send(g).unwrap();
                }
                let grown = comm.grow(3, made.as_ref(), &Config::new()).unwrap();
                // Held until the late joiner was answered.
                done_rx.lock().unwrap().recv().unwrap();
                drop(grown);
            })
        })
        .collect();
    let g = rx.recv().unwrap();
    let dev = Device::sim(2).unwrap();
    let joined = Communicator::join_grown(&dev, 2, 3, &g, &Config::new()).unwrap();
    let late_dev = Device::sim(3).unwrap();
    let g2 = rx.recv().unwrap();
    let e = expect_err(
        Communicator::join_grown(&late_dev, 2, 3, &g2, &Config::new().call_timeout(PATIENCE)),
        "a used grow id",
    );
    assert!(
        e.to_string()
            .contains("used by a completed grow into 3 ranks")
            && e.to_string().contains("used once"),
        "{e}"
    );
    done_tx.send(()).unwrap();
    done_tx.send(()).unwrap();
    drop(joined);
    for t in old {
        t.join().unwrap();
    }
}

#[test]
fn grow_ids_and_unique_ids_are_not_interchangeable_on_the_sim() {
    let _serial = one_at_a_time();
    let dev = Device::sim(5).unwrap();
    let plain = GrowId::from_bytes(UniqueId::random().as_bytes()).unwrap();
    let e = expect_err(
        Communicator::join_grown(&dev, 1, 2, &plain, &Config::new()),
        "join_grown with a plain id",
    );
    assert!(e.to_string().contains("not made by grow_id"), "{e}");
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
        .unwrap()
        .pop()
        .unwrap();
    let g = comm.grow_id().unwrap();
    let as_unique = UniqueId::from_bytes(g.as_bytes()).unwrap();
    let e = expect_err(
        Communicator::init(&Device::sim(6).unwrap(), 0, 1, &as_unique, &Config::new()),
        "init with a grow id",
    );
    assert!(e.to_string().contains("join_grown"), "{e}");
}

#[test]
fn each_call_is_refused_below_the_nccl_release_that_has_it() {
    let _serial = one_at_a_time();
    let at = |v: Version| Config::new().emulate_nccl_version(v);
    let one = |cfg: Config, dev: usize| {
        let dev = Device::sim(dev).unwrap();
        Communicator::init_all(std::slice::from_ref(&dev), &cfg)
            .unwrap()
            .pop()
            .unwrap()
    };
    let unsupported = |r: Result<(), Error>, feature: &str, needs: &str| {
        let e = expect_err(r, feature);
        assert!(
            matches!(&e, Error::UnsupportedByNccl { feature: f, .. } if *f == feature)
                && e.to_string().contains(needs),
            "{e}"
        );
    };
    let c = one(at(Version::new(2, 27, 0)), 7);
    unsupported(
        c.shrink(&[0], &Config::new()).map(drop),
        "shrink",
        "needs 2.27.3",
    );
    let c = one(at(Version::new(2, 28, 3)), 7);
    assert!(
        !c.nccl_features()
            .unwrap()
            .supports(nccl_safe::Feature::Revoke)
    );
    unsupported(c.revoke().map(drop), "revoke", "needs 2.28.7");
    let c = one(at(Version::new(2, 29, 0)), 7);
    unsupported(c.grow_id().map(drop), "grow", "needs 2.29.2");
    unsupported(
        Communicator::join_grown(
            &Device::sim(7).unwrap(),
            1,
            2,
            &GrowId::from_bytes(&[0; 128]).unwrap(),
            &at(Version::new(2, 29, 0)),
        )
        .map(drop),
        "grow",
        "needs 2.29.2",
    );
    let c = one(at(Version::new(2, 29, 2)), 7);
    assert!(
        c.nccl_features()
            .unwrap()
            .supports(nccl_safe::Feature::Grow)
    );
}

#[test]
fn reshaping_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<nccl_safe::Revoked>();
    assert_sync::<nccl_safe::Revoked>();
    assert_send::<nccl_safe::Shrunk>();
    assert_send::<GrowId>();
    assert_sync::<GrowId>();
}

/// The cuda twins. Revoke needs one GPU (a gate holds the one rank's collective);
/// shrink and grow need a rank per GPU, so two GPUs.
mod cuda {
    use super::*;

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn revoke_fails_a_gated_collective_on_one_gpu() {
        let dev = Device::cuda(0).unwrap();
        let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
            .unwrap()
            .pop()
            .unwrap();
        if !comm
            .nccl_features()
            .unwrap()
            .supports(nccl_safe::Feature::Revoke)
        {
            panic!("the loaded NCCL has no ncclCommRevoke (2.28.7)");
        }
        let s = Stream::new(&dev).unwrap();
        let gate = Gate::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 1024]).unwrap();
        s.wait_gate(&gate).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let revoked = comm.revoke().unwrap();
        gate.open();
        let e = s.synchronize_timeout(PATIENCE).unwrap_err();
        assert!(e.to_string().contains("a revoke cut short"), "{e}");
        revoked.abort().unwrap();
    }

    /// Two ranks on two GPUs: rank 1 leaves, rank 0 shrinks to one rank; then that
    /// rank grows back to two with rank 1 joining.
    #[test]
    #[ignore = "needs two CUDA GPUs (one NCCL rank per GPU)"]
    fn shrink_then_grow_on_two_gpus() {
        assert!(
            Device::count(DriverKind::Cuda).unwrap() >= 2,
            "this test needs two CUDA GPUs"
        );
        let id = UniqueId::new().unwrap();
        let (tx, rx) = mpsc::channel::<GrowId>();
        let leaver = thread::spawn(move || {
            let dev = Device::cuda(1).unwrap();
            let comm = Communicator::init(&dev, 1, 2, &id, &Config::new()).unwrap();
            drop(comm.abort()); // rank 1 goes
            let g = rx.recv().unwrap();
            let back = Communicator::join_grown(&dev, 1, 2, &g, &Config::new()).unwrap();
            sum_on(&back, &dev, 5)
        });
        let dev = Device::cuda(0).unwrap();
        let comm = Communicator::init(&dev, 0, 2, &id, &Config::new()).unwrap();
        let (shrunk, parent) = comm.shrink_abort(&[1], &Config::new()).unwrap();
        drop(parent);
        assert_eq!(sum_on(&shrunk.comm, &dev, 3), vec![3; 3]);
        let g = shrunk.comm.grow_id().unwrap();
        tx.send(g).unwrap();
        let grown = shrunk.comm.grow(2, Some(&g), &Config::new()).unwrap();
        assert_eq!(sum_on(&grown, &dev, 3), vec![8; 3]);
        assert_eq!(leaver.join().unwrap(), vec![8; 3]);
    }
}
