//! The cuda path's defects that the sim cannot show (issue "The cuda path, made right
//! before its first GPU run"): each test needs a GPU and is ignored without one. The
//! sim-visible ones are tested on the sim next to the behaviour they cover.

use std::ptr;
use std::time::Duration;

use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, Event, Gate, ReduceOp, Stream, UniqueId,
};

const PATIENCE: Duration = Duration::from_secs(30);

/// The context current on this thread (null when none).
fn current_context() -> nccl_sys::CUcontext {
    let lib = nccl_sys::cuda().expect("libcuda loads on a GPU node");
    let mut ctx = ptr::null_mut();
    // SAFETY: writes one context handle.
    let rc = unsafe { lib.cuCtxGetCurrent(&mut ctx) }.expect("cuCtxGetCurrent exists");
    assert_eq!(rc, nccl_sys::CUDA_SUCCESS);
    ctx
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_library_calls_leave_the_callers_current_context_as_it_was() {
    // A program that also uses the runtime API or another CUDA library on this thread
    // must find its own context current after each of our calls (here: none).
    let dev = Device::cuda(0).unwrap();
    let lib = nccl_sys::cuda().unwrap();
    // SAFETY: unbinding (a null context) is always allowed.
    let rc = unsafe { lib.cuCtxSetCurrent(ptr::null_mut()) }.unwrap();
    assert_eq!(rc, nccl_sys::CUDA_SUCCESS);
    let s = Stream::new(&dev).unwrap();
    assert!(current_context().is_null(), "Stream::new left its context");
    let x = DeviceBuffer::from_slice(&s, &[3u32; 1024]).unwrap();
    assert!(current_context().is_null(), "from_slice left its context");
    assert_eq!(x.to_vec(&s).unwrap(), vec![3; 1024]);
    let comm = Communicator::init(&dev, 0, 1, &UniqueId::nccl().unwrap(), &Config::new()).unwrap();
    assert!(current_context().is_null(), "init left its context");
    comm.close().unwrap();
    assert!(current_context().is_null(), "close left its context");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_event_timing_uses_the_entry_point_the_driver_has() {
    // Built against CUDA 13 headers only `cuEventElapsedTime_v2` is declared; older
    // drivers only export the original. Either way the elapsed time is measured.
    let dev = Device::cuda(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let a = Event::new(&dev, true).unwrap();
    let b = Event::new(&dev, true).unwrap();
    a.record(&s).unwrap();
    let _x = DeviceBuffer::from_slice(&s, &vec![1u8; 64 << 20]).unwrap();
    b.record(&s).unwrap();
    s.synchronize_timeout(PATIENCE).unwrap();
    let t = a.elapsed(&b).unwrap();
    assert!(t > Duration::ZERO && t < PATIENCE, "{t:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_blocking_communicator_is_non_blocking_underneath_and_keeps_its_name() {
    // NCCL gets a non-blocking config (so every wait can time out and be aborted);
    // the user's "blocking" means init waited. The name's string must outlive init:
    // NCCL reads it later (NCCL_DEBUG=INFO shows it).
    let dev = Device::cuda(0).unwrap();
    let cfg = Config::new().comm_name("nccl-rs-cuda-path-test");
    let comms = Communicator::init_all(std::slice::from_ref(&dev), &cfg).unwrap();
    assert!(comms[0].is_blocking());
    assert!(comms[0].is_ready().unwrap());
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[2.0f32; 256]).unwrap();
    comms[0]
        .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        .unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![2.0; 256]);
    // An abort handle exists for it, and aborts a collective held back by a gate
    // (opened first: the gate rule).
    let gate = Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    comms[0]
        .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        .unwrap();
    let handle = comms[0].abort_handle().unwrap();
    gate.open();
    handle.abort().unwrap();
    let _ = s.synchronize_timeout(PATIENCE);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_communicator_split_and_torn_down_repeatedly_leaves_the_device_usable() {
    // Splits keep their out-slot and config on the heap; the child's and the parent's
    // teardown free them; devices unload their kernel module when dropped.
    for round in 0..3 {
        let dev = Device::cuda(0).unwrap();
        let parent =
            Communicator::init(&dev, 0, 1, &UniqueId::nccl().unwrap(), &Config::new()).unwrap();
        let child = parent
            .split(Some(0), 0, &Config::new().comm_name("child"))
            .unwrap()
            .expect("colour 0 gets a communicator");
        assert_eq!((child.rank(), child.size()), (0, 1));
        assert!(
            parent.split(None, 0, &Config::new()).unwrap().is_none(),
            "round {round}"
        );
        child.close().unwrap();
        parent.close().unwrap();
        drop(dev);
    }
    let dev = Device::cuda(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let x = DeviceBuffer::from_slice(&s, &[5i64; 16]).unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![5; 16]);
}
