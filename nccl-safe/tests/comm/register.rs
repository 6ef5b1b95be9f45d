//! Memory NCCL allocates and buffer registration: the registered memory outlives its
//! buffer until the registration goes, values of collectives on registered buffers on
//! 1-8 ranks, the refusals, and a registration that outlives its communicator; on
//! cuda, one GPU.

use crate::common::{assert_unsupported, expect_err, one_rank as one};
use crate::on_ranks;
use nccl_safe::{
    Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Registration, Stream, Version,
};

fn registered_all_reduce_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::<i64>::alloc_nccl(&dev, 1000).unwrap();
        x.fill(&s, rank as i64 + 1).unwrap();
        let reg = comm.register(&x).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let v = x.to_vec(&s).unwrap();
        drop(x);
        reg.deregister(); // the memory goes now: nothing else holds it
        assert_eq!(comm.registrations(), 0);
        comm.close().unwrap();
        v
    });
    let want = (n * (n + 1) / 2) as i64;
    for (rank, v) in got.into_iter().enumerate() {
        assert_eq!(v, vec![want; 1000], "rank {rank} of {n}");
    }
}

#[test]
fn collectives_on_registered_buffers_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        registered_all_reduce_on(DriverKind::Sim, n);
    }
}

#[test]
fn registrations_that_cannot_be_made_are_typed_errors() {
    let dev = Device::sim(4).unwrap();
    let other = Device::sim(5).unwrap();
    let s = Stream::new(&dev).unwrap();
    let comm = one(&dev, &Config::new());
    let empty = DeviceBuffer::<u8>::alloc_nccl(&dev, 0).unwrap();
    let e = expect_err(comm.register(&empty), "empty");
    assert!(
        matches!(e, Error::InvalidArgument { op: "register", .. })
            && e.to_string().contains("empty"),
        "{e}"
    );
    let elsewhere = DeviceBuffer::<u8>::alloc_nccl(&other, 8).unwrap();
    let e = expect_err(comm.register(&elsewhere), "other device");
    assert!(matches!(e, Error::WrongDevice { .. }), "{e:?}");
    let e = expect_err(
        DeviceBuffer::<u64>::alloc_nccl(&dev, usize::MAX / 4),
        "overflow",
    );
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                op: "alloc_nccl",
                ..
            }
        ),
        "{e}"
    );
    let buf = DeviceBuffer::<u8>::zeroed(&s, 8).unwrap();
    assert!(!buf.is_nccl_memory() && elsewhere.is_nccl_memory());
    comm.suspend().unwrap();
    let e = expect_err(comm.register(&buf), "suspended");
    assert!(e.to_string().contains("suspended"), "{e}");
    comm.resume().unwrap();
    let old = one(
        &dev,
        &Config::new().emulate_nccl_version(Version::new(2, 19, 0)),
    );
    let e = expect_err(old.register(&buf), "old NCCL");
    assert_unsupported(&e, "buffer registration", "2.19.1");
    let handle = comm.abort_handle().unwrap();
    handle.abort().unwrap();
    let e = expect_err(comm.register(&buf), "aborted");
    assert!(matches!(e, Error::Aborted { .. }), "{e:?}");
    assert_eq!(comm.registrations(), 0);
    old.close().unwrap();
}

#[test]
fn registrations_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<Registration>();
    assert_sync::<Registration>();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_nccl_memory_registered_with_one_gpu() {
    registered_all_reduce_on(DriverKind::Cuda, 1);
}

#[test]
fn a_registration_is_released_when_its_memory_goes_after_every_operation() {
    let dev = Device::sim(7).unwrap();
    let comm = one(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut buf = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap();
    let reg = comm.register(&buf).unwrap();
    let gate = nccl_safe::Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut buf, ReduceOp::Max, &s)
        .unwrap();
    drop(reg); // returns at once; NCCL keeps it while the buffer can still be used
    assert_eq!(comm.registrations(), 1);
    // An operation issued after the drop finds the registration by address in NCCL:
    // it must still be there.
    comm.all_reduce_in_place(&mut buf, ReduceOp::Max, &s)
        .unwrap();
    gate.open();
    s.synchronize().unwrap();
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    assert_eq!(comm.registrations(), 1, "released while the buffer lives");
    drop(buf); // the memory goes, and the registration first
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    assert_eq!(comm.registrations(), 0);
    comm.close().unwrap();
}
