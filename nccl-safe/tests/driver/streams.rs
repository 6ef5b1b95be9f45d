//! Streams and events: timeouts, queries and host functions in stream order, events'
//! record, synchronize and timing; on the sim, errors reported on the stream.

use std::sync::{Arc, Mutex};

use crate::common::{self, Devices, PATIENCE, expect_err};
use nccl_safe::{DeviceBuffer, Error, Event, Gate, HostBuffer, Stream, StreamOptions};

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

#[test]
fn sim_host_function_that_panics_fails_its_stream() {
    let d = common::sim();
    let s = Stream::new(&d.dev).unwrap();
    s.launch_host_fn(|| panic!("deliberate")).unwrap();
    let e = expect_err(s.synchronize(), "panicking host function");
    assert!(e.to_string().contains("panicked"), "{e}");
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
