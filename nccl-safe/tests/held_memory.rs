//! What holds device memory: a registration, a window and a graph each keep their
//! buffer's memory until they go, and a window is released only after the operations
//! issued on its memory. These read the sim device's memory in use, so they run in a
//! test binary of their own, one at a time (other tests' allocations would move it).

use nccl_safe::{Config, Device, DeviceBuffer, Gate, ReduceOp, Stream, Window, WindowFlags};

mod common;
use common::one_rank as one;

/// One test at a time: each reads the device's memory in use.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn registered_memory_outlives_its_buffer_until_the_registration_goes() {
    let _serial = one_at_a_time();
    let dev = Device::sim(3).unwrap();
    let comm = one(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
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
    whole.deregister();
    assert!(
        dev.memory_in_use().unwrap() >= held,
        "freed while still registered"
    );
    assert_eq!(comm.registrations(), 2, "released while its memory is held");
    drop(part);
    assert_eq!(comm.registrations(), 0);
    assert!(
        dev.memory_in_use().unwrap() < held,
        "not freed after the last release"
    );
    comm.close().unwrap();
}

#[test]
fn a_registration_may_outlive_its_communicator() {
    let _serial = one_at_a_time();
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
fn a_window_is_released_after_the_operations_issued_on_its_memory() {
    let _serial = one_at_a_time();
    let dev = Device::sim(3).unwrap();
    let comm = one(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let mut buf = DeviceBuffer::<u8>::alloc_nccl(&dev, 1 << 16).unwrap();
    let win: Window = comm.register_window(&buf, WindowFlags::new()).unwrap();
    let gate = Gate::new(&dev).unwrap();
    s.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &s)
        .unwrap();
    let held = dev.memory_in_use().unwrap();
    drop(buf);
    win.deregister(); // returns at once: the all-reduce is held back
    assert_eq!(comm.windows(), 1, "released under a pending all-reduce");
    assert!(
        dev.memory_in_use().unwrap() >= held,
        "freed under a pending all-reduce"
    );
    gate.open();
    s.synchronize().unwrap();
    // The release runs once the device next frees or allocates.
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    s.synchronize().unwrap();
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    assert_eq!(comm.windows(), 0, "not released after the all-reduce");
    assert!(
        dev.memory_in_use().unwrap() < held - (1 << 15),
        "not freed after the all-reduce"
    );
    comm.close().unwrap();
}

#[test]
fn a_graph_holds_its_buffers_and_its_replays_are_ordered() {
    let _serial = one_at_a_time();
    let dev = Device::sim(4).unwrap();
    let comm = one(&dev, &Config::new());
    let (s, other) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    let base = dev.memory_in_use().unwrap();
    let mut x = DeviceBuffer::<f32>::zeroed(&s, 1 << 16).unwrap();
    s.synchronize().unwrap();
    let graph = comm
        .capture(&s, |_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))
        .unwrap();
    // A write on another stream, held back by a gate: the replay waits for it.
    let gate = Gate::new(&dev).unwrap();
    other.wait_gate(&gate).unwrap();
    x.fill(&other, 3.0).unwrap();
    graph.launch(&s).unwrap();
    common::assert_held(&s, "the replay after a pending write");
    gate.open();
    s.synchronize().unwrap();
    assert_eq!(x.to_vec(&s).unwrap(), vec![3.0; 1 << 16]);
    // The graph holds the buffer: dropped, it is not freed until the graph goes.
    drop(x);
    s.synchronize().unwrap();
    assert!(dev.memory_in_use().unwrap() >= base + (1 << 18));
    graph.launch(&s).unwrap();
    s.synchronize().unwrap();
    drop(graph);
    drop(DeviceBuffer::<u8>::zeroed(&s, 1).unwrap());
    assert!(dev.memory_in_use().unwrap() < base + (1 << 18));
    comm.close().unwrap();
}
