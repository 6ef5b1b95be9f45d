//! World-size-1 scenarios for one GPU, with the late peer emulated by a gate on the
//! communication stream.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{assert_held, expect_err};
use nccl_safe::{Communicator, Config, Device, DeviceBuffer, Error, Gate, ReduceOp, Stream};

fn gated_collective_returns_and_dropping_does_not_block(dev: Device) {
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let compute = Stream::new(&dev).unwrap();
    let gate = Gate::new(&dev).unwrap();
    let x = DeviceBuffer::from_slice(&s, &[4.0f32; 256]).unwrap();
    let mut y = DeviceBuffer::<f32>::alloc(&dev, 256).unwrap();
    s.wait_gate(&gate).unwrap(); // the "late peer"
    comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap(); // returns
    compute.wait_event(&s.record_event().unwrap()).unwrap(); // a stream-wait returns at once
    y.add_scalar(&compute, 100.0).unwrap();
    drop(x); // does not block
    assert_held(&compute, "compute waits for the gated collective");
    gate.open();
    assert_eq!(y.to_vec(&compute).unwrap(), vec![104.0; 256]);
    comm.close().unwrap();
}

fn abort_with_gated_work(dev: Device) {
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let gate = Gate::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1i32; 16]).unwrap();
    s.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    // The gate's rule: aborting frees memory, which waits for all work on the
    // device, including the gated stream. Arm a thread to open it first.
    let gate = Arc::new(gate);
    let opener = {
        let gate = gate.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            gate.open();
        })
    };
    comm.abort_handle().unwrap().abort().unwrap();
    opener.join().unwrap();
    let e = expect_err(
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
        "after abort",
    );
    assert!(matches!(e, Error::Aborted { .. }), "{e}");
}

#[test]
fn sim_gated_collective_returns_and_dropping_does_not_block() {
    gated_collective_returns_and_dropping_does_not_block(Device::sim(2).unwrap());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_gated_collective_returns_and_dropping_does_not_block() {
    gated_collective_returns_and_dropping_does_not_block(Device::cuda(0).unwrap());
}

#[test]
fn sim_abort_with_gated_work() {
    abort_with_gated_work(Device::sim(3).unwrap());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_abort_with_gated_work() {
    abort_with_gated_work(Device::cuda(0).unwrap());
}
