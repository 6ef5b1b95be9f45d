//! `Communicator::init_scalable`: several bootstrap roots. Values on 1-8 ranks with
//! several root counts, ranks given different lists never meet, bad arguments and an
//! emulated NCCL older than 2.23.4 are typed errors; on cuda, two GPUs.

use std::thread;
use std::time::Duration;

use crate::common::expect_err;
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream, UniqueId,
    Version,
};

/// Every rank of `n` joins with `ids`, all-reduces `rank + 1` and returns the sums.
fn sums(driver: DriverKind, n: usize, ids: Vec<UniqueId>) -> Vec<Vec<u64>> {
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let ids = ids.clone();
            thread::spawn(move || {
                let dev = Device::with_driver(driver, rank).unwrap();
                let comm =
                    Communicator::init_scalable(&dev, rank, n, &ids, &Config::new()).unwrap();
                assert_eq!((comm.rank(), comm.size()), (rank, n));
                let s = Stream::new(&dev).unwrap();
                let mut x = DeviceBuffer::from_slice(&s, &[rank as u64 + 1; 33]).unwrap();
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
                let v = x.to_vec(&s).unwrap();
                comm.close().unwrap();
                v
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn several_roots_make_one_communicator_on_one_to_eight_ranks() {
    for n in 1..=8usize {
        for roots in [1, 2, n.div_ceil(2), n] {
            if roots > n {
                continue;
            }
            let ids: Vec<UniqueId> = (0..roots).map(|_| UniqueId::random()).collect();
            let want = (n * (n + 1) / 2) as u64;
            for (rank, v) in sums(DriverKind::Sim, n, ids).into_iter().enumerate() {
                assert_eq!(v, vec![want; 33], "rank {rank} of {n} with {roots} roots");
            }
        }
    }
}

#[test]
fn ranks_given_different_lists_never_meet() {
    let (a, b) = (UniqueId::random(), UniqueId::random());
    let config = Config::new().call_timeout(Duration::from_millis(500));
    let handles: Vec<_> = (0..4)
        .map(|rank| {
            // Ranks 2 and 3 have the same ids in the other order.
            let ids = if rank < 2 { [a, b] } else { [b, a] };
            let config = config.clone();
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                Communicator::init_scalable(&dev, rank, 4, &ids, &config).map(|_| ())
            })
        })
        .collect();
    for h in handles {
        let e = expect_err(h.join().unwrap(), "a split job");
        assert!(matches!(e, Error::InitTimeout { .. }), "{e:?}");
    }
}

#[test]
fn bad_id_lists_and_an_older_nccl_are_typed_errors() {
    let dev = Device::sim(0).unwrap();
    let c = Config::new();
    let e = expect_err(Communicator::init_scalable(&dev, 0, 2, &[], &c), "no ids");
    assert!(
        matches!(&e, Error::InvalidArgument { reason, .. } if reason.contains("no unique id")),
        "{e}"
    );
    let three = [UniqueId::random(), UniqueId::random(), UniqueId::random()];
    let e = expect_err(
        Communicator::init_scalable(&dev, 0, 2, &three, &c),
        "3 ids, 2 ranks",
    );
    assert!(e.to_string().contains("3 unique ids for 2 ranks"), "{e}");
    let e = expect_err(
        Communicator::init_scalable(&dev, 2, 2, &three[..2], &c),
        "rank 2 of 2",
    );
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // NCCL's own id (the real libnccl loads here) beside a sim id.
    let nccl = UniqueId::nccl().expect("libnccl loads here (ci/setup)");
    let e = expect_err(
        Communicator::init_scalable(&dev, 0, 2, &[three[0], nccl], &c),
        "mixed drivers",
    );
    assert!(
        e.to_string()
            .contains("1 of the 2 unique ids were made for the sim"),
        "{e}"
    );
    let old = c.clone().emulate_nccl_version(Version::new(2, 22, 3));
    let e = expect_err(
        Communicator::init_scalable(&dev, 0, 2, &three[..2], &old),
        "2.22",
    );
    assert_eq!(
        e.to_string(),
        "several bootstrap roots unsupported by NCCL 2.22.3, needs 2.23.4"
    );
    // One id is a plain init, whatever the version.
    let one = [UniqueId::random()];
    Communicator::init_scalable(&dev, 0, 1, &one, &old)
        .unwrap()
        .close()
        .unwrap();
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_two_roots_make_one_communicator() {
    // Each root's id from NCCL, as each root rank would make it.
    let ids = vec![UniqueId::nccl().unwrap(), UniqueId::nccl().unwrap()];
    for v in sums(DriverKind::Cuda, 2, ids) {
        assert_eq!(v, vec![3; 33]);
    }
}
