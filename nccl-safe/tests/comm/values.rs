//! Collective results against the host reference (every type and op, world sizes 1 to
//! 8), orderings with a late rank, drops with work pending, fused groups, and a send
//! whose receiver closed right after.

use std::sync::mpsc;

use crate::common::reference::check_every_type;
use crate::common::{PATIENCE, assert_held};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, HostBuffer, ReduceOp, Stream,
    group,
};

use super::on_ranks;

#[test]
fn every_collective_type_and_op_on_world_sizes_1_to_8() {
    for n in 1..=8 {
        on_ranks(DriverKind::Sim, n, Config::new(), move |rank, dev, comm| {
            check_every_type(rank, &dev, &comm, 5 + n);
        });
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_every_collective_type_and_op_on_one_gpu() {
    on_ranks(DriverKind::Cuda, 1, Config::new(), |rank, dev, comm| {
        check_every_type(rank, &dev, &comm, 37)
    });
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_every_collective_type_and_op() {
    on_ranks(DriverKind::Cuda, 2, Config::new(), |rank, dev, comm| {
        check_every_type(rank, &dev, &comm, 37)
    });
}

#[test]
fn a_late_rank_is_waited_for_without_explicit_waits() {
    let (tx, rx) = mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(Some(rx));
    let tx = std::sync::Mutex::new(Some(tx));
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 64]).unwrap();
        if rank == 1 {
            // Rank 1 issues its all_reduce only after rank 0's call returned.
            rx.lock().unwrap().take().unwrap().recv().unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            return x.to_vec(&s).unwrap();
        }
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        // The result, read on another stream with no explicit wait.
        let other = Stream::new(&dev).unwrap();
        let mut host = HostBuffer::new(&dev, 64).unwrap();
        x.as_view().copy_to_host_async(&other, &mut host).unwrap();
        assert_held(
            &other,
            "the copy waits for the all_reduce, which waits for rank 1",
        );
        tx.lock().unwrap().take().unwrap().send(()).unwrap();
        host.wait_timeout(PATIENCE).unwrap();
        host.to_vec().unwrap()
    });
    assert_eq!(out, vec![vec![3.0; 64], vec![3.0; 64]]);
}

#[test]
fn dropping_buffers_and_communicators_with_work_pending_neither_blocks_nor_frees_early() {
    let (tx, rx) = mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(Some(rx));
    let tx = std::sync::Mutex::new(Some(tx));
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        if rank == 1 {
            rx.lock().unwrap().take().unwrap().recv().unwrap();
            let x = DeviceBuffer::from_slice(&s, &[5i64; 16]).unwrap();
            let mut y = DeviceBuffer::<i64>::alloc(&dev, 16).unwrap();
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap();
            return y.to_vec(&s).unwrap();
        }
        let x = DeviceBuffer::from_slice(&s, &[2i64; 16]).unwrap();
        let mut y = DeviceBuffer::<i64>::alloc(&dev, 16).unwrap();
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s).unwrap();
        drop(x); // its pending read keeps the memory alive
        drop(comm); // teardown waits in the background
        // Both drops returned although rank 1 has not issued its all_reduce yet.
        assert_held(&s, "the collective still waits for rank 1");
        tx.lock().unwrap().take().unwrap().send(()).unwrap();
        y.to_vec(&s).unwrap()
    });
    assert_eq!(out, vec![vec![7; 16], vec![7; 16]]);
}

#[test]
fn a_group_fuses_all_reduces_and_an_error_inside_still_ends_it() {
    let out = on_ranks(DriverKind::Sim, 2, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut a = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 4]).unwrap();
        let mut b = DeviceBuffer::from_slice(&s, &[10 * (rank as i32 + 1); 4]).unwrap();
        group(|g| {
            comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s)?;
            comm.all_reduce_in_place(&mut b, ReduceOp::Max, &s)?;
            assert_eq!(g.len(), 2, "collected, not launched");
            assert_eq!(comm.outstanding(), 0);
            Ok(())
        })
        .unwrap();
        let fused = (a.to_vec(&s).unwrap(), b.to_vec(&s).unwrap());
        // An error inside: nothing it collected is launched, and the thread is out of
        // the group afterwards (the next collective runs at once).
        let e = group(|_| -> nccl_safe::Result<()> {
            comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s)?;
            Err(Error::InvalidArgument {
                op: "test",
                reason: "deliberate".into(),
            })
        })
        .unwrap_err();
        assert!(e.to_string().contains("deliberate"));
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            group(|_| -> nccl_safe::Result<()> { panic!("deliberate") })
        }));
        assert!(panicked.is_err());
        comm.all_reduce_in_place(&mut a, ReduceOp::Sum, &s).unwrap();
        (fused, a.to_vec(&s).unwrap())
    });
    for (fused, after) in out {
        assert_eq!(fused, (vec![3; 4], vec![20; 4]));
        assert_eq!(after, vec![6; 4], "the failed group's all_reduce never ran");
    }
}

#[test]
fn a_send_whose_receiver_took_the_data_and_then_closed_succeeds() {
    // The receiver finishes its part before it destroys its communicator; the sender,
    // still looking, must see the receive done rather than a destroyed peer.
    for round in 0..120 {
        let devs = [Device::sim(6).unwrap(), Device::sim(7).unwrap()];
        let mut comms = Communicator::init_all(&devs, &Config::new()).unwrap();
        let (s0, s1) = (
            Stream::new(&devs[0]).unwrap(),
            Stream::new(&devs[1]).unwrap(),
        );
        let x = DeviceBuffer::from_slice(&s0, &[round as u32; 256]).unwrap();
        let mut y = DeviceBuffer::<u32>::zeroed(&s1, 256).unwrap();
        comms[0].send(&x, 1, &s0).unwrap();
        comms[1].recv(&mut y, 0, &s1).unwrap();
        assert_eq!(y.to_vec(&s1).unwrap(), vec![round as u32; 256]);
        comms.pop().unwrap().close().unwrap();
        s0.synchronize_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        comms.pop().unwrap().close().unwrap();
    }
}
