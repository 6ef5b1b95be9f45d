//! Suspend and resume: values before and after on 1-8 ranks, every operation refused
//! while suspended, the state machine's wrong moves, a rank that never suspends, a
//! split that shares resources, memory statistics, and an emulated NCCL older than
//! 2.29.7; on cuda, two GPUs.

use std::time::Duration;

use crate::common::expect_err;
use crate::on_ranks;
use nccl_safe::{
    Blocks, Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream,
    Version, group,
};

fn invalid_usage(r: Result<(), Error>, what: &str, says: &str) {
    let e = expect_err(r, what);
    assert!(
        matches!(e, Error::InvalidUsage { .. }) && e.to_string().contains(says),
        "{what}: {e}"
    );
}

fn suspend_and_resume_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as u64 + 1; 5]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        assert!(!comm.is_suspended());
        comm.suspend().unwrap();
        assert!(comm.is_suspended());
        assert!(comm.mem_stats().unwrap().suspended);
        comm.resume().unwrap();
        assert!(!comm.is_suspended() && !comm.mem_stats().unwrap().suspended);
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let v = x.to_vec(&s).unwrap();
        comm.close().unwrap();
        v
    });
    let once = (n * (n + 1) / 2) as u64;
    for (rank, v) in got.into_iter().enumerate() {
        assert_eq!(v, vec![once * n as u64; 5], "rank {rank} of {n}");
    }
}

#[test]
fn a_suspended_and_resumed_communicator_gives_the_same_values_on_one_to_eight_ranks() {
    for n in 1..=8 {
        suspend_and_resume_on(DriverKind::Sim, n);
    }
}

#[test]
fn nothing_is_issued_on_a_suspended_communicator_and_wrong_moves_are_refused() {
    on_ranks(DriverKind::Sim, 2, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
        let mut y = DeviceBuffer::<i32>::zeroed(&s, 8).unwrap();
        invalid_usage(comm.resume(), "resume while active", "not suspended");
        comm.suspend().unwrap();
        let says = "suspended; resume it first";
        invalid_usage(
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
            "all_reduce",
            says,
        );
        invalid_usage(comm.broadcast(&mut x, 0, &s), "broadcast", says);
        invalid_usage(comm.all_gather(&x, &mut y, &s), "all_gather", says);
        invalid_usage(comm.send(&x, 1 - rank, &s), "send", says);
        let b = Blocks::packed(&[2, 2]).unwrap();
        invalid_usage(
            comm.all_to_allv(&x, &b, &mut y, &b, &s),
            "all_to_allv",
            says,
        );
        invalid_usage(
            group(|_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)),
            "group",
            says,
        );
        invalid_usage(
            comm.split(Some(0), 0, &Config::new()).map(drop),
            "split",
            says,
        );
        invalid_usage(comm.suspend(), "suspend twice", "suspended already");
        // The refusals launched nothing: after resuming, the ranks still agree.
        comm.resume().unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        assert_eq!(x.to_vec(&s).unwrap(), vec![2; 4]);
        // Teardown works while suspended.
        comm.suspend().unwrap();
        if rank == 0 {
            comm.abort().unwrap();
        } else {
            comm.close().unwrap();
        }
    });
}

#[test]
fn a_rank_late_to_suspend_meets_an_aborted_communicator_not_a_stale_barrier() {
    // Rank 0 gives up after the call timeout; its barrier stays pending, so the
    // communicator is aborted: rank 1, late, must not meet that barrier and suspend
    // alone.
    let config = Config::new().call_timeout(Duration::from_millis(300));
    let got = on_ranks(DriverKind::Sim, 2, config, |rank, dev, comm| {
        if rank == 1 {
            std::thread::sleep(Duration::from_millis(700));
        }
        let r = comm.suspend();
        let suspended = comm.is_suspended();
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u8]).unwrap();
        let after = comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s);
        let _ = comm.abort();
        (r, suspended, after)
    });
    let (r0, suspended0, after0) = &got[0];
    assert!(
        matches!(r0, Err(Error::Timeout { op: "suspend", .. })),
        "{r0:?}"
    );
    assert!(!suspended0);
    assert!(matches!(after0, Err(Error::Aborted { .. })), "{after0:?}");
    let (r1, suspended1, _) = &got[1];
    assert!(r1.is_err() && !suspended1, "rank 1 suspended alone: {r1:?}");
}

#[test]
fn a_callers_per_call_config_does_not_reach_the_suspend_barrier() {
    // Suspend needs NCCL 2.29.7, a per-call config 2.32.3: the barrier is the
    // library's own all-reduce and takes no config of the caller's.
    let config = Config::new().emulate_nccl_version(Version::new(2, 30, 4));
    on_ranks(DriverKind::Sim, 2, config, |rank, _, comm| {
        let cfg = nccl_safe::CollConfig::new().max_ctas(rank as u32 + 1);
        nccl_safe::with_coll_config(&cfg, || comm.suspend()).unwrap();
        nccl_safe::with_coll_config(&cfg, || comm.resume()).unwrap();
        comm.close().unwrap();
    });
}

#[test]
fn a_communicator_that_shares_resources_through_a_split_is_not_suspended() {
    // NCCL reads split_share from the parent's config.
    on_ranks(
        DriverKind::Sim,
        2,
        Config::new().split_share(true),
        |_, _, comm| {
            let child = comm.split(Some(0), 0, &Config::new()).unwrap().unwrap();
            invalid_usage(comm.suspend(), "parent", "split_share");
            invalid_usage(child.suspend(), "child", "split_share");
            assert!(!comm.is_suspended() && !child.is_suspended());
            child.close().unwrap();
            comm.close().unwrap();
        },
    );
    // Without sharing (split_share on the child's config changes nothing), a split's
    // child and parent suspend on their own.
    on_ranks(DriverKind::Sim, 2, Config::new(), |_, _, comm| {
        let child = comm
            .split(Some(0), 0, &Config::new().split_share(true))
            .unwrap()
            .unwrap();
        child.suspend().unwrap();
        assert!(child.is_suspended() && !comm.is_suspended());
        child.resume().unwrap();
        child.close().unwrap();
        comm.close().unwrap();
    });
}

#[test]
fn suspend_resume_and_stats_need_nccl_2_29_7() {
    let dev = Device::sim(6).unwrap();
    let cfg = Config::new().emulate_nccl_version(Version::new(2, 29, 6));
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &cfg)
        .unwrap()
        .pop()
        .unwrap();
    for (what, r) in [
        ("suspend", comm.suspend()),
        ("resume", comm.resume()),
        ("mem_stats", comm.mem_stats().map(drop)),
    ] {
        let e = expect_err(r, what);
        assert!(
            matches!(
                e,
                Error::UnsupportedByNccl {
                    feature: "suspend and resume",
                    ..
                }
            ) && e.to_string().contains("2.29.7"),
            "{what}: {e}"
        );
    }
    let stats = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
        .unwrap()
        .pop()
        .unwrap()
        .mem_stats()
        .unwrap();
    assert_eq!((stats.total, stats.suspended), (0, false));
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_suspend_frees_memory_and_resume_restores_it() {
    suspend_and_resume_on(DriverKind::Cuda, 2);
    let stats = on_ranks(DriverKind::Cuda, 2, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as f32; 1 << 20]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        s.synchronize().unwrap();
        let before = comm.mem_stats().unwrap();
        comm.suspend().unwrap();
        let during = comm.mem_stats().unwrap();
        comm.resume().unwrap();
        comm.close().unwrap();
        (before, during)
    });
    for (before, during) in stats {
        assert!(
            !before.suspended && during.suspended,
            "{before:?} {during:?}"
        );
        assert!(before.total >= before.persistent, "{before:?}");
    }
}
