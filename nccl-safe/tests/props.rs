//! Random sequences of copies, views and elementwise ops on several streams, some of
//! them held back by gates, checked against a plain host model. The tracker must
//! order everything so that the result equals sequential execution.

mod common;

use common::PATIENCE;
use nccl_safe::{DataType, Device, DeviceBuffer, Gate, HostBuffer, Stream};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Fill {
        at: (u16, u16),
        value: i32,
        stream: usize,
    },
    Add {
        at: (u16, u16),
        value: i32,
        stream: usize,
    },
    Scale {
        at: (u16, u16),
        value: i32,
        stream: usize,
    },
    /// Copy between the two halves of a split at `mid`.
    Copy {
        mid: u16,
        len: u16,
        left_to_right: bool,
        stream: usize,
    },
    /// An asynchronous copy of a range to the host, checked at the end.
    Snapshot { at: (u16, u16), stream: usize },
}

const STREAMS: usize = 3;

fn op() -> impl Strategy<Value = Op> {
    let at = (any::<u16>(), any::<u16>());
    let s = 0..STREAMS;
    prop_oneof![
        (at, -50i32..50, s.clone()).prop_map(|(at, value, stream)| Op::Fill { at, value, stream }),
        (at, -50i32..50, s.clone()).prop_map(|(at, value, stream)| Op::Add { at, value, stream }),
        (at, -3i32..4, s.clone()).prop_map(|(at, value, stream)| Op::Scale { at, value, stream }),
        (any::<u16>(), any::<u16>(), any::<bool>(), s.clone()).prop_map(
            |(mid, len, left_to_right, stream)| Op::Copy {
                mid,
                len,
                left_to_right,
                stream
            }
        ),
        (at, s).prop_map(|(at, stream)| Op::Snapshot { at, stream }),
    ]
}

fn range(at: (u16, u16), n: usize) -> std::ops::Range<usize> {
    let (a, b) = (at.0 as usize % (n + 1), at.1 as usize % (n + 1));
    a.min(b)..a.max(b)
}

fn run(device: &Device, init: Vec<i32>, ops: Vec<Op>, gated: [bool; STREAMS]) {
    let n = init.len();
    let streams: Vec<Stream> = (0..STREAMS).map(|_| Stream::new(device).unwrap()).collect();
    let gate = Gate::new(device).unwrap();
    let mut buf = DeviceBuffer::from_slice(&streams[0], &init).unwrap();
    for (s, g) in streams.iter().zip(gated) {
        if g {
            s.wait_gate(&gate).unwrap();
        }
    }
    let mut model = init;
    let mut snapshots = Vec::new();
    for op in ops {
        match op {
            Op::Fill { at, value, stream } => {
                let r = range(at, n);
                buf.view_mut(r.clone())
                    .unwrap()
                    .fill(&streams[stream], value)
                    .unwrap();
                model[r].iter_mut().for_each(|x| *x = value);
            }
            Op::Add { at, value, stream } => {
                let r = range(at, n);
                buf.view_mut(r.clone())
                    .unwrap()
                    .add_scalar(&streams[stream], value)
                    .unwrap();
                model[r].iter_mut().for_each(|x| *x = x.add(value));
            }
            Op::Scale { at, value, stream } => {
                let r = range(at, n);
                buf.view_mut(r.clone())
                    .unwrap()
                    .scale(&streams[stream], value)
                    .unwrap();
                model[r].iter_mut().for_each(|x| *x = x.mul(value));
            }
            Op::Copy {
                mid,
                len,
                left_to_right,
                stream,
            } => {
                let mid = mid as usize % (n + 1);
                let len = (len as usize) % (mid.min(n - mid) + 1);
                let (mut left, mut right) = buf.split_at_mut(mid).unwrap();
                let (mut l, mut r) = (
                    left.slice_mut(0..len).unwrap(),
                    right.slice_mut(0..len).unwrap(),
                );
                if left_to_right {
                    r.copy_from(&streams[stream], &l.as_view()).unwrap();
                    let src = model[0..len].to_vec();
                    model[mid..mid + len].copy_from_slice(&src);
                } else {
                    l.copy_from(&streams[stream], &r.as_view()).unwrap();
                    let src = model[mid..mid + len].to_vec();
                    model[0..len].copy_from_slice(&src);
                }
            }
            Op::Snapshot { at, stream } => {
                let r = range(at, n);
                let mut host = HostBuffer::new(device, r.len()).unwrap();
                buf.view(r.clone())
                    .unwrap()
                    .copy_to_host_async(&streams[stream], &mut host)
                    .unwrap();
                snapshots.push((host, model[r].to_vec()));
            }
        }
    }
    gate.open();
    for (i, (host, expected)) in snapshots.iter().enumerate() {
        host.wait_timeout(PATIENCE).unwrap();
        assert_eq!(host.as_slice().unwrap(), &expected[..], "snapshot {i}");
    }
    let reader = &streams[STREAMS - 1];
    assert_eq!(buf.to_vec(reader).unwrap(), model, "final contents");
}

fn case() -> impl Strategy<Value = (Vec<i32>, Vec<Op>, [bool; STREAMS])> {
    (
        prop::collection::vec(-1000i32..1000, 1..300),
        prop::collection::vec(op(), 1..40),
        [any::<bool>(), any::<bool>(), any::<bool>()],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn sim_random_sequences_match_the_host_model((init, ops, gated) in case()) {
        run(&Device::sim(2).unwrap(), init, ops, gated);
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn cuda_random_sequences_match_the_host_model((init, ops, gated) in case()) {
        run(&Device::cuda(0).unwrap(), init, ops, gated);
    }
}
