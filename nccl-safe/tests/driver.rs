//! The driver layer's behaviour, through bodies shared by the `sim` and `cuda` drivers.
//! Late work is emulated with gates; every check is an ordering, never a timing.

mod common;

use std::sync::{Arc, Mutex};

use common::{Devices, PATIENCE, assert_held, expect_err};
use nccl_safe::{DataType, DeviceBuffer, Error, Event, Gate, HostBuffer, Stream, StreamOptions};

on_both_drivers!(
    write_on_one_stream_is_seen_by_a_read_on_another,
    read_on_one_stream_is_not_overwritten_by_a_later_write_on_another,
    a_read_on_the_writing_stream_does_not_hide_the_write_from_other_readers,
    independent_halves_run_concurrently,
    dropping_a_buffer_with_pending_work_does_not_block_and_the_work_completes,
    async_copy_to_host_arrives_after_the_producer,
    async_copy_from_host_is_read_before_the_host_may_write,
    elementwise_ops_compute_every_dtype,
    views_out_of_range_and_length_mismatches_are_typed_errors,
    objects_of_another_device_are_refused,
    allocating_too_much_is_out_of_memory,
    stream_basics_timeout_query_and_host_functions_in_order,
    events_record_query_synchronize_and_time,
    raw_device_pointers_are_lent_with_the_waits_inserted,
);

mod bodies {
    use super::*;

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

    fn check_dtype<T: DataType>(d: &Devices, values: &[i64], add: i64, mul: i64) {
        let s = Stream::new(&d.dev).unwrap();
        let host: Vec<T> = values.iter().map(|&v| T::from_i64(v)).collect();
        let (add, mul) = (T::from_i64(add), T::from_i64(mul));
        let mut buf = DeviceBuffer::from_slice(&s, &host).unwrap();
        assert_eq!(buf.to_vec(&s).unwrap(), host, "{}: round trip", T::DTYPE);
        buf.add_scalar(&s, add).unwrap();
        let expect: Vec<T> = host.iter().map(|&x| x.add(add)).collect();
        assert_eq!(buf.to_vec(&s).unwrap(), expect, "{}: add_scalar", T::DTYPE);
        buf.scale(&s, mul).unwrap();
        let expect: Vec<T> = expect.iter().map(|&x| x.mul(mul)).collect();
        assert_eq!(buf.to_vec(&s).unwrap(), expect, "{}: scale", T::DTYPE);
        let mut copy = DeviceBuffer::<T>::alloc(&d.dev, host.len()).unwrap();
        copy.as_view_mut().copy_from(&s, &buf.as_view()).unwrap();
        assert_eq!(copy.to_vec(&s).unwrap(), expect, "{}: copy", T::DTYPE);
        let v = T::from_i64(values[1]);
        copy.fill(&s, v).unwrap();
        assert_eq!(
            copy.to_vec(&s).unwrap(),
            vec![v; host.len()],
            "{}: fill",
            T::DTYPE
        );
        let zero = DeviceBuffer::<T>::zeroed(&s, 5).unwrap();
        assert_eq!(
            zero.to_vec(&s).unwrap(),
            vec![T::default(); 5],
            "{}: zeroed",
            T::DTYPE
        );
    }

    pub fn elementwise_ops_compute_every_dtype(d: &Devices) {
        // Values that wrap for the narrow integers and round for the halves.
        let values: Vec<i64> = (0..1000).map(|i| (i * 37) % 251 - 120).collect();
        check_dtype::<i8>(d, &values, 100, 3);
        check_dtype::<u8>(d, &values, 200, 7);
        check_dtype::<i32>(d, &values, -5, 1 << 20);
        check_dtype::<u32>(d, &values, 17, 65537);
        check_dtype::<i64>(d, &values, 1 << 40, -3);
        check_dtype::<u64>(d, &values, 5, 1 << 33);
        check_dtype::<f32>(d, &values, 100, 3);
        check_dtype::<f64>(d, &values, -7, 11);
        check_dtype::<half::f16>(d, &values, 100, 3);
        check_dtype::<half::bf16>(d, &values, 100, 3);
    }

    pub fn views_out_of_range_and_length_mismatches_are_typed_errors(d: &Devices) {
        let s = Stream::new(&d.dev).unwrap();
        let mut buf = DeviceBuffer::<f32>::zeroed(&s, 10).unwrap();
        let e = expect_err(buf.view(5..11), "view past the end");
        assert!(
            matches!(
                e,
                Error::OutOfRange {
                    start: 5,
                    end: 11,
                    len: 10,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string().contains("5..11") && e.to_string().contains("10"),
            "{e}"
        );
        #[allow(clippy::reversed_empty_ranges)]
        let e = expect_err(buf.view(7..3), "reversed range");
        assert!(matches!(e, Error::OutOfRange { .. }), "{e}");
        let e = expect_err(buf.split_at_mut(11), "split past the end");
        assert!(matches!(e, Error::OutOfRange { start: 11, .. }), "{e}");
        let view = buf.view(2..8).unwrap();
        let e = expect_err(view.slice(0..7), "slice of a view past its end");
        assert!(matches!(e, Error::OutOfRange { len: 6, .. }), "{e}");
        let e = expect_err(buf.copy_from_slice(&s, &[1.0; 9]), "short slice");
        assert!(
            matches!(
                e,
                Error::LengthMismatch {
                    expected: 10,
                    actual: 9,
                    ..
                }
            ),
            "{e}"
        );
        let mut host = HostBuffer::<f32>::new(&d.dev, 3).unwrap();
        let e = expect_err(
            buf.as_view().copy_to_host_async(&s, &mut host),
            "host too short",
        );
        assert!(
            matches!(
                e,
                Error::LengthMismatch {
                    expected: 10,
                    actual: 3,
                    ..
                }
            ),
            "{e}"
        );
        let other = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
        let e = expect_err(
            buf.as_view_mut().copy_from(&s, &other.as_view()),
            "d2d lengths",
        );
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
        // Empty views are fine and do nothing.
        let mut empty = buf.view_mut(4..4).unwrap();
        empty.fill(&s, 1.0).unwrap();
        assert_eq!(buf.to_vec(&s).unwrap(), vec![0.0; 10]);
    }

    pub fn objects_of_another_device_are_refused(d: &Devices) {
        let s = Stream::new(&d.dev).unwrap();
        let s_other = Stream::new(&d.other).unwrap();
        let mut buf = DeviceBuffer::<i32>::zeroed(&s, 8).unwrap();
        let e = expect_err(buf.fill(&s_other, 1), "fill on another device's stream");
        match &e {
            Error::WrongDevice {
                expected, actual, ..
            } => {
                assert_eq!(*expected, d.dev.to_string());
                assert_eq!(*actual, d.other.to_string());
            }
            other => panic!("expected WrongDevice, got {other}"),
        }
        let other_buf = DeviceBuffer::<i32>::zeroed(&s_other, 8).unwrap();
        let e = expect_err(
            buf.as_view_mut().copy_from(&s, &other_buf.as_view()),
            "d2d across devices",
        );
        assert!(matches!(e, Error::WrongDevice { .. }), "{e}");
        let mut host = HostBuffer::<i32>::new(&d.other, 8).unwrap();
        let e = expect_err(
            buf.as_view().copy_to_host_async(&s, &mut host),
            "host buffer of another device",
        );
        assert!(matches!(e, Error::WrongDevice { .. }), "{e}");
        let ev = Event::new(&d.other, false).unwrap();
        assert!(matches!(
            expect_err(s.wait_event(&ev), "event"),
            Error::WrongDevice { .. }
        ));
        assert!(matches!(
            expect_err(ev.record(&s), "record"),
            Error::WrongDevice { .. }
        ));
        let gate = Gate::new(&d.other).unwrap();
        assert!(matches!(
            expect_err(s.wait_gate(&gate), "gate"),
            Error::WrongDevice { .. }
        ));
        // Nothing was enqueued by the refused calls.
        assert_eq!(buf.to_vec(&s).unwrap(), vec![0; 8]);
    }

    pub fn allocating_too_much_is_out_of_memory(d: &Devices) {
        let total = d.dev.total_memory().unwrap();
        let e = expect_err(
            DeviceBuffer::<u8>::alloc(&d.dev, total + 1),
            "alloc past capacity",
        );
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        assert!(
            e.to_string().contains(&d.dev.driver().to_string()),
            "names the driver: {e}"
        );
        let e = expect_err(
            DeviceBuffer::<u64>::alloc(&d.dev, usize::MAX / 4),
            "size overflow",
        );
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        // The device is still usable.
        let s = Stream::new(&d.dev).unwrap();
        assert_eq!(
            DeviceBuffer::from_slice(&s, &[1u8, 2])
                .unwrap()
                .to_vec(&s)
                .unwrap(),
            [1, 2]
        );
    }

    pub fn stream_basics_timeout_query_and_host_functions_in_order(d: &Devices) {
        let s = Stream::with_options(
            &d.dev,
            StreamOptions {
                non_blocking: true,
                priority: 0,
            },
        )
        .unwrap();
        assert!(s.query().unwrap(), "a new stream is idle");
        let gate = Gate::new(&d.dev).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        s.wait_gate(&gate).unwrap();
        for i in 0..5 {
            let log = log.clone();
            s.launch_host_fn(move || log.lock().unwrap().push(i))
                .unwrap();
        }
        assert!(!s.query().unwrap());
        let e = expect_err(
            s.synchronize_timeout(std::time::Duration::from_millis(30)),
            "gated",
        );
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        assert!(
            log.lock().unwrap().is_empty(),
            "nothing ran behind the gate"
        );
        gate.open();
        s.synchronize_timeout(PATIENCE).unwrap();
        assert_eq!(*log.lock().unwrap(), vec![0, 1, 2, 3, 4], "stream order");
        assert!(s.query().unwrap());
    }

    pub fn events_record_query_synchronize_and_time(d: &Devices) {
        let s = Stream::new(&d.dev).unwrap();
        let gate = Gate::new(&d.dev).unwrap();
        let (start, end) = (
            Event::new(&d.dev, true).unwrap(),
            Event::new(&d.dev, true).unwrap(),
        );
        assert!(end.query().unwrap(), "never recorded counts as complete");
        start.record(&s).unwrap();
        start.synchronize().unwrap(); // completes before the timeout below starts
        s.wait_gate(&gate).unwrap();
        end.record(&s).unwrap();
        assert!(!end.query().unwrap());
        let e = expect_err(
            end.synchronize_timeout(std::time::Duration::from_millis(20)),
            "gated",
        );
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        gate.open();
        end.synchronize().unwrap();
        assert!(end.query().unwrap());
        let elapsed = start.elapsed(&end).unwrap();
        assert!(
            elapsed >= std::time::Duration::from_millis(20),
            "the gate held for the timeout: {elapsed:?}"
        );
        let untimed = Event::new(&d.dev, false).unwrap();
        assert!(matches!(
            expect_err(start.elapsed(&untimed), "no timing"),
            Error::InvalidArgument { .. }
        ));
        // Another stream can wait on a recorded event.
        let other = Stream::new(&d.dev).unwrap();
        let ev = s.record_event().unwrap();
        other.wait_event(&ev).unwrap();
        other.synchronize_timeout(PATIENCE).unwrap();
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
fn sim_reports_bad_addresses_on_the_stream_instead_of_crashing() {
    let d = common::sim();
    let s = Stream::new(&d.dev).unwrap();
    let buf = DeviceBuffer::<u8>::zeroed(&s, 16).unwrap();
    // SAFETY: only used for the deliberately bad copy below.
    let ptr = unsafe { buf.as_view().device_ptr() };
    let mut host = HostBuffer::<u8>::new(&d.dev, 64).unwrap();
    // SAFETY: deliberately violated: reads 64 bytes of a 16-byte allocation; the sim
    // must turn it into an error.
    unsafe { host.copy_from_device_raw(&s, ptr).unwrap() };
    let e = expect_err(s.synchronize(), "out-of-bounds raw read");
    assert!(matches!(e, Error::Sim { .. }), "{e}");
    assert!(e.to_string().contains("out of bounds"), "{e}");
}

#[test]
fn sim_host_function_that_panics_fails_its_stream() {
    let d = common::sim();
    let s = Stream::new(&d.dev).unwrap();
    s.launch_host_fn(|| panic!("deliberate")).unwrap();
    let e = expect_err(s.synchronize(), "panicking host function");
    assert!(e.to_string().contains("panicked"), "{e}");
}

#[test]
fn sim_devices_are_counted_and_unknown_ordinals_refused() {
    use nccl_safe::{Device, DriverKind};
    let n = Device::count(DriverKind::Sim).unwrap();
    assert!(n >= 2);
    let e = expect_err(Device::sim(n), "ordinal past the count");
    assert!(
        matches!(e, Error::NoDevice { driver: DriverKind::Sim, count, .. } if count == n),
        "{e}"
    );
    assert_eq!(
        Device::sim(0).unwrap(),
        Device::sim(0).unwrap(),
        "one Device per device"
    );
    assert_ne!(Device::sim(0).unwrap(), Device::sim(1).unwrap());
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

#[test]
fn public_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<nccl_safe::Device>();
    assert_sync::<nccl_safe::Device>();
    assert_send::<Stream>();
    assert_sync::<Stream>();
    assert_send::<Event>();
    assert_sync::<Event>();
    assert_send::<Gate>();
    assert_sync::<Gate>();
    assert_send::<DeviceBuffer<f32>>();
    assert_sync::<DeviceBuffer<f32>>();
    assert_send::<HostBuffer<half::bf16>>();
    assert_sync::<HostBuffer<half::bf16>>();
    assert_send::<nccl_safe::DeviceView<'static, u8>>();
    assert_send::<nccl_safe::DeviceViewMut<'static, u8>>();
    assert_send::<Error>();
    assert_sync::<Error>();
}

#[test]
fn cuda_driver_is_used_where_present_and_named_where_absent() {
    use nccl_safe::{Device, DriverKind};
    let driver_loads = nccl_sys::cuda().is_ok();
    match Device::cuda(0) {
        Ok(dev) => {
            assert!(driver_loads);
            assert_eq!(dev.driver(), DriverKind::Cuda);
        }
        Err(Error::Load(e)) => {
            assert!(!driver_loads);
            assert!(e.to_string().contains("libcuda.so.1"), "{e}");
        }
        // A driver without a usable GPU (a container with the library only).
        Err(e) => assert!(driver_loads, "unexpected: {e}"),
    }
    let has_nodes = std::fs::read_dir("/dev")
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("nvidia"))
        })
        .unwrap_or(false);
    match (
        std::env::var("NCCL_RS_DRIVER").ok().as_deref(),
        driver_loads,
        has_nodes,
    ) {
        (None | Some("auto"), false, false) => {
            let choice = nccl_safe::selected_driver().unwrap();
            assert_eq!(choice.kind, DriverKind::Sim);
            assert!(
                choice.reason.contains("sim driver runs"),
                "{}",
                choice.reason
            );
            assert_eq!(Device::from_env(0).unwrap().driver(), DriverKind::Sim);
        }
        (None | Some("auto"), true, _) => {
            assert_eq!(nccl_safe::selected_driver().unwrap().kind, DriverKind::Cuda);
        }
        _ => {} // explicit settings and broken installs are covered by unit tests
    }
}
