//! Buffers' contents and refusals: elementwise ops on every dtype, views out of range
//! and length mismatches, objects of another device, allocations past capacity.

use crate::common::{Devices, expect_err};
use nccl_safe::{DataType, DeviceBuffer, Error, Event, Gate, HostBuffer, Stream};

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

/// Where the first non-finite element of `values` is found (`u64::MAX`: none).
fn first_non_finite<T: DataType>(d: &Devices, values: &[T]) -> u64 {
    let s = Stream::new(&d.dev).unwrap();
    let buf = DeviceBuffer::from_slice(&s, values).unwrap();
    let mut out = DeviceBuffer::<u64>::from_slice(&s, &[7, 7]).unwrap();
    buf.as_view()
        .find_non_finite(&s, &mut out.as_view_mut())
        .unwrap();
    let got = out.to_vec(&s).unwrap();
    assert_eq!(got[1], 7, "only out[0] is written");
    got[0]
}

pub fn find_non_finite_names_the_first_nan_or_infinity_of_every_float_type(d: &Devices) {
    use nccl_safe::{F8E4M3, F8E5M2, half};
    // Past the sim's copy block (1 MiB), so that a later block's index is right too.
    let n = 300_000;
    let mut x = vec![1.5f32; n];
    assert_eq!(first_non_finite(d, &x), u64::MAX, "all finite");
    x[n - 3] = f32::NEG_INFINITY;
    x[n - 1] = f32::NAN;
    assert_eq!(first_non_finite(d, &x), (n - 3) as u64, "f32 -inf");
    x[n / 2] = f32::INFINITY;
    assert_eq!(first_non_finite(d, &x), (n / 2) as u64, "f32 +inf");
    assert_eq!(
        first_non_finite(d, &[0.0f64, f64::MAX, -f64::NAN]),
        2,
        "f64"
    );
    assert_eq!(
        first_non_finite(d, &[f64::MIN_POSITIVE, f64::MAX]),
        u64::MAX
    );
    let h = |v: f32| half::f16::from_f32(v);
    assert_eq!(
        first_non_finite(d, &[h(65504.0), h(f32::INFINITY)]),
        1,
        "f16"
    );
    let b = |v: f32| half::bf16::from_f32(v);
    assert_eq!(first_non_finite(d, &[b(f32::NAN), b(1.0)]), 0, "bf16");
    assert_eq!(first_non_finite(d, &[b(3.0e38), b(-1.0)]), u64::MAX);
    // E4M3 has no infinity: 0x7e is 448, its largest value; 0xff its NaN.
    let e4 = |bits: u8| F8E4M3::from_bits(bits);
    assert_eq!(
        first_non_finite(d, &[e4(0x7e), e4(0x7e), e4(0xff)]),
        2,
        "e4m3"
    );
    // E5M2: 0x7b is 57344, its largest; 0x7c infinity.
    let e5 = |bits: u8| F8E5M2::from_bits(bits);
    assert_eq!(first_non_finite(d, &[e5(0x7b), e5(0xfc)]), 1, "e5m2");
    // Integers are finite whatever their bits.
    assert_eq!(first_non_finite(d, &[u32::MAX, 0x7f80_0000]), u64::MAX);
    // Nothing to write into is a typed error.
    let s = Stream::new(&d.dev).unwrap();
    let buf = DeviceBuffer::from_slice(&s, &[1.0f32]).unwrap();
    let mut out = DeviceBuffer::<u64>::zeroed(&s, 2).unwrap();
    let mut empty = out.as_view_mut();
    let mut empty = empty.slice_mut(0..0).unwrap();
    let e = expect_err(
        buf.as_view().find_non_finite(&s, &mut empty),
        "an empty output",
    );
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
}
