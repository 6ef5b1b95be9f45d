//! Orderings between streams that the tracker inserts: a read after a write, a write
//! after a read, independent halves, frees after pending work, host copies, lent raw
//! pointers; on the sim, the poison a read that skips them sees, and memory returned
//! only after a dropped buffer's work.

use crate::common::{self, Devices, PATIENCE, assert_held};
use nccl_safe::{DeviceBuffer, Gate, HostBuffer, Stream};

pub fn write_on_one_stream_is_seen_by_a_read_on_another(d: &Devices) {
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<u32>::zeroed(&a, 1024).unwrap();
    a.wait_gate(&gate).unwrap();
    buf.fill(&a, 7).unwrap(); // held back by the gate
    let mut host = HostBuffer::new(&d.dev, 1024).unwrap();
    buf.as_view().copy_to_host_async(&b, &mut host).unwrap(); // no explicit wait
    assert_held(&b, "the read waits for the gated write");
    assert!(!host.is_ready());
    gate.open();
    host.wait_timeout(PATIENCE).unwrap();
    assert!(host.as_slice().unwrap().iter().all(|&x| x == 7));
}

pub fn read_on_one_stream_is_not_overwritten_by_a_later_write_on_another(d: &Devices) {
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::from_slice(&a, &[1i64; 512]).unwrap();
    a.wait_gate(&gate).unwrap();
    let mut seen = HostBuffer::new(&d.dev, 512).unwrap();
    buf.as_view().copy_to_host_async(&a, &mut seen).unwrap(); // gated read
    buf.fill(&b, 5).unwrap(); // must wait for the read
    assert_held(&b, "the write waits for the gated read");
    gate.open();
    b.synchronize_timeout(PATIENCE).unwrap();
    assert!(
        seen.as_slice().unwrap().iter().all(|&x| x == 1),
        "read saw the old values"
    );
    assert!(buf.to_vec(&b).unwrap().iter().all(|&x| x == 5));
}

pub fn a_read_on_the_writing_stream_does_not_hide_the_write_from_other_readers(d: &Devices) {
    // Found by the property test: a later read on the writer's own stream must
    // not replace the pending write in the tracker.
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<i32>::zeroed(&a, 8).unwrap();
    a.synchronize().unwrap();
    a.wait_gate(&gate).unwrap();
    buf.view_mut(2..4).unwrap().fill(&a, 3).unwrap();
    let mut on_a = HostBuffer::new(&d.dev, 8).unwrap();
    buf.as_view().copy_to_host_async(&a, &mut on_a).unwrap();
    let mut on_b = HostBuffer::new(&d.dev, 8).unwrap();
    buf.as_view().copy_to_host_async(&b, &mut on_b).unwrap();
    assert_held(&b, "the read on b waits for the write on a");
    gate.open();
    let expect = vec![0, 0, 3, 3, 0, 0, 0, 0];
    assert_eq!(on_a.to_vec().unwrap(), expect);
    assert_eq!(on_b.to_vec().unwrap(), expect);
}

pub fn independent_halves_run_concurrently(d: &Devices) {
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<f32>::zeroed(&a, 2048).unwrap();
    a.synchronize().unwrap();
    {
        let (mut left, mut right) = buf.split_at_mut(1024).unwrap();
        a.wait_gate(&gate).unwrap();
        left.fill(&a, 1.0).unwrap(); // blocked
        right.fill(&b, 2.0).unwrap(); // must not wait for the left half
        right.add_scalar(&b, 0.5).unwrap();
    }
    b.synchronize_timeout(PATIENCE)
        .expect("the right half completes while the left is gated");
    assert!(!a.query().unwrap(), "the left half is still gated");
    gate.open();
    let v = buf.to_vec(&b).unwrap();
    assert!(v[..1024].iter().all(|&x| x == 1.0));
    assert!(v[1024..].iter().all(|&x| x == 2.5));
}

pub fn dropping_a_buffer_with_pending_work_does_not_block_and_the_work_completes(d: &Devices) {
    let a = Stream::new(&d.dev).unwrap();
    let gate = Gate::new(&d.dev).unwrap();
    let mut dst = DeviceBuffer::<i32>::zeroed(&a, 4096).unwrap();
    let mut src = DeviceBuffer::<i32>::alloc(&d.dev, 4096).unwrap();
    a.wait_gate(&gate).unwrap();
    src.fill(&a, 41).unwrap();
    src.add_scalar(&a, 1).unwrap();
    dst.as_view_mut().copy_from(&a, &src.as_view()).unwrap();
    drop(src); // pending work reads it: the free is ordered after that work
    assert!(
        !gate.is_open() && !a.query().unwrap(),
        "drop returned while the work is gated"
    );
    gate.open();
    assert!(
        dst.to_vec(&a).unwrap().iter().all(|&x| x == 42),
        "no early free"
    );
}

pub fn async_copy_to_host_arrives_after_the_producer(d: &Devices) {
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<u8>::alloc(&d.dev, 300).unwrap();
    a.wait_gate(&gate).unwrap();
    buf.fill(&a, 3).unwrap();
    buf.scale(&a, 4).unwrap();
    let mut host = HostBuffer::new(&d.dev, 300).unwrap();
    buf.as_view().copy_to_host_async(&b, &mut host).unwrap();
    assert_held(&b, "the copy waits for the producer");
    assert!(!host.is_ready());
    gate.open();
    assert_eq!(host.to_vec().unwrap(), vec![12u8; 300]);
}

pub fn async_copy_from_host_is_read_before_the_host_may_write(d: &Devices) {
    let a = Stream::new(&d.dev).unwrap();
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<u64>::alloc(&d.dev, 64).unwrap();
    let mut host = HostBuffer::from_slice(&d.dev, &(0..64).collect::<Vec<u64>>()).unwrap();
    a.wait_gate(&gate).unwrap();
    buf.as_view_mut().copy_from_host_async(&a, &host).unwrap();
    assert!(!host.is_ready(), "the copy still reads the host buffer");
    assert_held(&a, "the copy is gated");
    // Writing the host buffer must wait for the copy: open the gate from another
    // thread, so that the wait below can end.
    let opener = std::thread::spawn(move || {
        // Late enough that a host write that did not wait would land first.
        std::thread::sleep(std::time::Duration::from_millis(50));
        gate.open();
        gate
    });
    host.as_mut_slice().unwrap().fill(999);
    let _gate = opener.join().unwrap();
    assert_eq!(
        buf.to_vec(&a).unwrap(),
        (0..64).collect::<Vec<u64>>(),
        "the device got the old contents"
    );
}

pub fn raw_device_pointers_are_lent_with_the_waits_inserted(d: &Devices) {
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<u32>::zeroed(&a, 16).unwrap();
    a.wait_gate(&gate).unwrap();
    buf.fill(&a, 9).unwrap();
    let mut host = HostBuffer::<u32>::new(&d.dev, 16).unwrap();
    // A "foreign kernel" on b reading the buffer through its raw pointer: the
    // lending API makes b wait for a's pending write first.
    buf.as_view()
        // SAFETY: the copy reads 16 elements at the lent address, on stream b,
        // which the lending API has ordered after the pending write.
        .with_device_ptr(&b, |ptr| unsafe { host.copy_from_device_raw(&b, ptr) })
        .unwrap()
        .unwrap();
    assert_held(&b, "the foreign read waits for the pending write");
    assert!(!host.is_ready());
    gate.open();
    assert_eq!(host.to_vec().unwrap(), vec![9; 16]);
}

#[test]
fn poisoning_exposes_a_read_that_bypasses_the_tracker() {
    // The sim poisons an operation's output when it is enqueued; a reader that skips
    // the dependency (possible only through the unsafe raw API) sees poison, not a
    // plausible stale value.
    let d = common::sim();
    let (a, b) = (Stream::new(&d.dev).unwrap(), Stream::new(&d.dev).unwrap());
    let gate = Gate::new(&d.dev).unwrap();
    let mut buf = DeviceBuffer::<u32>::from_slice(&a, &[5; 32]).unwrap();
    a.wait_gate(&gate).unwrap();
    buf.fill(&a, 7).unwrap();
    let mut host = HostBuffer::<u32>::new(&d.dev, 32).unwrap();
    // SAFETY: the address is live for the whole test; the missing ordering is the
    // point of the test (on the sim a racing read is defined: bytes are atomics).
    unsafe {
        host.copy_from_device_raw(&b, buf.as_view().device_ptr())
            .unwrap()
    };
    b.synchronize_timeout(PATIENCE).unwrap();
    assert_eq!(
        host.to_vec().unwrap(),
        vec![u32::MAX; 32],
        "poison, neither 5 nor 7"
    );
    gate.open();
    assert_eq!(buf.to_vec(&b).unwrap(), vec![7; 32]);
}

#[test]
fn sim_memory_is_returned_after_a_dropped_buffers_pending_work() {
    use nccl_safe::Device;
    // A device no other test uses, so that its memory count is this test's alone.
    let dev = Device::sim(7).unwrap();
    let s = Stream::new(&dev).unwrap();
    let before = dev.memory_in_use().unwrap();
    let gate = Gate::new(&dev).unwrap();
    let mut buf = DeviceBuffer::<f64>::alloc(&dev, 1 << 16).unwrap();
    assert_eq!(dev.memory_in_use().unwrap(), before + (8 << 16));
    s.wait_gate(&gate).unwrap();
    buf.fill(&s, 1.0).unwrap();
    drop(buf);
    assert_eq!(
        dev.memory_in_use().unwrap(),
        before + (8 << 16),
        "not freed under pending work"
    );
    gate.open();
    let deadline = std::time::Instant::now() + PATIENCE;
    while dev.memory_in_use().unwrap() != before {
        assert!(
            std::time::Instant::now() < deadline,
            "memory never returned"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
