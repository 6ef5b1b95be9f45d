//! Memory NCCL allocates and buffer registration: the registered memory outlives its
//! buffer until the registration goes, values of collectives on registered buffers on
//! 1-8 ranks, the refusals, and a registration that outlives its communicator; on
//! cuda, one GPU.

use crate::common::expect_err;
use crate::on_ranks;
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Registration, Stream,
    Version,
};

fn one(dev: &Device, cfg: &Config) -> Communicator {
    Communicator::init_all(std::slice::from_ref(dev), cfg)
        .unwrap()
        .pop()
        .unwrap()
}

#[test]
fn registered_memory_outlives_its_buffer_until_the_registration_goes() {
    let dev = Device::sim(3).unwrap();
    let comm = one(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    assert!(!DeviceBuffer::<f64>::zeroed(&s, 1).unwrap().is_nccl_memory());
    s.synchronize().unwrap();
    let base = dev.memory_in_use().unwrap();
    let buf = DeviceBuffer::<f64>::alloc_nccl(&dev, 4096).unwrap();
    assert!(buf.is_nccl_memory());
    let held = dev.memory_in_use().unwrap();
    assert!(held >= base + 4096 * 8, "{base} -> {held}");
    let whole = comm.register(&buf).unwrap();
    let part = comm.register(&buf.view(8..16).unwrap()).unwrap();
    assert_eq!(
        (whole.bytes(), part.bytes(), comm.registrations()),
        (32768, 64, 2)
    );
    drop(buf);
    s.synchronize().unwrap();
    assert!(
        dev.memory_in_use().unwrap() >= held,
        "freed while registered"
    );
    whole.deregister().unwrap();
    assert!(
        dev.memory_in_use().unwrap() >= held,
        "freed while still registered"
    );
    drop(part);
    assert_eq!(comm.registrations(), 0);
    assert!(
        dev.memory_in_use().unwrap() < held,
        "not freed after the last release"
    );
    comm.close().unwrap();
}

fn registered_all_reduce_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::<i64>::alloc_nccl(&dev, 1000).unwrap();
        x.fill(&s, rank as i64 + 1).unwrap();
        let reg = comm.register(&x).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let v = x.to_vec(&s).unwrap();
        reg.deregister().unwrap();
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
    comm.suspend().unwrap();
    let e = expect_err(comm.register(&buf), "suspended");
    assert!(e.to_string().contains("suspended"), "{e}");
    comm.resume().unwrap();
    let old = one(
        &dev,
        &Config::new().emulate_nccl_version(Version::new(2, 19, 0)),
    );
    let e = expect_err(old.register(&buf), "old NCCL");
    assert!(
        matches!(
            e,
            Error::UnsupportedByNccl {
                feature: "buffer registration",
                ..
            }
        ) && e.to_string().contains("2.19.1"),
        "{e}"
    );
    let handle = comm.abort_handle().unwrap();
    handle.abort().unwrap();
    let e = expect_err(comm.register(&buf), "aborted");
    assert!(matches!(e, Error::Aborted { .. }), "{e:?}");
    assert_eq!(comm.registrations(), 0);
    old.close().unwrap();
}

#[test]
fn a_registration_may_outlive_its_communicator() {
    let dev = Device::sim(6).unwrap();
    let comm = one(&dev, &Config::new());
    let base = dev.memory_in_use().unwrap();
    let buf = DeviceBuffer::<u32>::alloc_nccl(&dev, 256).unwrap();
    let reg = comm.register(&buf).unwrap();
    drop(buf);
    comm.close().unwrap(); // NCCL releases the registration with the communicator
    assert!(dev.memory_in_use().unwrap() >= base + 1024);
    drop(reg); // only lets the memory go
    assert!(dev.memory_in_use().unwrap() < base + 1024);
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
fn a_registration_is_released_after_the_operations_issued_on_its_memory() {
    let dev = Device::sim(7).unwrap();
    let comm = one(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut buf = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap();
    let reg = comm.register(&buf).unwrap();
    let gate = nccl_safe::Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut buf, ReduceOp::Max, &s)
        .unwrap();
    drop(reg); // returns at once; NCCL keeps it until the all-reduce is done
    assert_eq!(comm.registrations(), 1);
    gate.open();
    s.synchronize().unwrap();
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap()); // the device's next free runs it
    s.synchronize().unwrap();
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    assert_eq!(comm.registrations(), 0);
    comm.close().unwrap();
}
