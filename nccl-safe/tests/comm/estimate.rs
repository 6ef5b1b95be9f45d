//! `estimate`: nothing is launched (buffers, streams and peers untouched), the sim's
//! model against its formula and its orderings, v-collectives and groups of calls,
//! and the refusals; on cuda, the refusal (NCCL would launch a non-blocking group).

use std::time::Duration;

use crate::common::{assert_unsupported, expect_err};
use crate::on_ranks;
use nccl_safe::{
    Blocks, Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp,
    SIM_LINK_BANDWIDTH, SIM_STEP_LATENCY, Stream, Version, estimate, group,
};

/// The sim's model of an all-reduce of `bytes` on `n` ranks, from its documented
/// constants.
fn ring_all_reduce(bytes: usize, n: usize) -> Duration {
    let m = (n - 1) as f64;
    SIM_STEP_LATENCY.mul_f64(2.0 * m)
        + Duration::from_secs_f64(2.0 * m / n as f64 * bytes as f64 / SIM_LINK_BANDWIDTH)
}

fn close_to(a: Duration, b: Duration) -> bool {
    a.abs_diff(b) <= Duration::from_nanos(10)
}

#[test]
fn an_estimate_launches_nothing_and_takes_no_part_of_the_peers() {
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as u32 + 1; 64]).unwrap();
        if rank == 0 {
            // Only rank 0 estimates: had anything been launched, it would wait for
            // rank 1, and rank 1's all-reduce below would meet it instead.
            let t = estimate(|_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)).unwrap();
            assert!(close_to(t, ring_all_reduce(256, 2)), "{t:?}");
            assert!(s.query().unwrap() && comm.outstanding() == 0);
            assert_eq!(x.to_vec(&s).unwrap(), vec![1; 64]);
        }
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let v = x.to_vec(&s).unwrap();
        comm.close().unwrap();
        v
    });
    assert_eq!(got, vec![vec![3; 64]; 2]);
}

#[test]
fn the_sims_estimates_follow_its_model() {
    let got = on_ranks(DriverKind::Sim, 4, Config::new(), |_, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut small = DeviceBuffer::<f32>::zeroed(&s, 256).unwrap();
        let mut large = DeviceBuffer::<f32>::zeroed(&s, 1 << 18).unwrap();
        let one = |buf: &mut DeviceBuffer<f32>| {
            estimate(|_| comm.all_reduce_in_place(buf, ReduceOp::Sum, &s)).unwrap()
        };
        let (t_small, t_large) = (one(&mut small), one(&mut large));
        let both = estimate(|_| {
            comm.all_reduce_in_place(&mut small, ReduceOp::Sum, &s)?;
            comm.all_reduce_in_place(&mut large, ReduceOp::Sum, &s)
        })
        .unwrap();
        // A v-collective joins the estimate's group: 4 sends and 4 receives of
        // 2 elements each.
        let b = Blocks::packed(&[2; 4]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeroed(&s, 8).unwrap();
        let v = estimate(|_| comm.all_to_allv(&small.view(0..8).unwrap(), &b, &mut out, &b, &s))
            .unwrap();
        comm.close().unwrap();
        (t_small, t_large, both, v)
    });
    let message = SIM_STEP_LATENCY + Duration::from_secs_f64(8.0 / SIM_LINK_BANDWIDTH);
    for (t_small, t_large, both, v) in got {
        assert!(close_to(t_small, ring_all_reduce(1024, 4)), "{t_small:?}");
        assert!(
            close_to(t_large, ring_all_reduce(1 << 20, 4)),
            "{t_large:?}"
        );
        assert!(t_small < t_large);
        assert!(close_to(both, t_small + t_large), "{both:?}");
        assert!(close_to(v, message * 8), "{v:?}");
    }
    // One rank sends nothing.
    let dev = Device::sim(5).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::<f32>::zeroed(&s, 1000).unwrap();
    let t = estimate(|_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)).unwrap();
    assert_eq!(t, Duration::ZERO);
}

#[test]
fn estimates_that_cannot_be_made_are_refused() {
    let dev = Device::sim(6).unwrap();
    let one = |cfg: &Config| {
        Communicator::init_all(std::slice::from_ref(&dev), cfg)
            .unwrap()
            .pop()
            .unwrap()
    };
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let old = one(&Config::new().emulate_nccl_version(Version::new(2, 22, 2)));
    let e = expect_err(
        estimate(|_| old.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)),
        "old NCCL",
    );
    assert_unsupported(&e, "group cost estimate", "2.22.3");
    let comm = one(&Config::new());
    let e = expect_err(
        group(|_| estimate(|_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)).map(drop)),
        "nested",
    );
    assert!(e.to_string().contains("groups do not nest"), "{e}");
    let e = expect_err(estimate(|_| comm.finalize()), "finalize");
    assert!(
        matches!(e, Error::InvalidUsage { op: "estimate", .. })
            && e.to_string().contains("finalize"),
        "{e}"
    );
    let e = expect_err(
        estimate(|_| {
            Err(Error::InvalidArgument {
                op: "mine",
                reason: "stop".into(),
            })
        }),
        "f fails",
    );
    assert!(
        matches!(e, Error::InvalidArgument { op: "mine", .. }),
        "{e}"
    );
    comm.suspend().unwrap();
    let e = expect_err(
        estimate(|_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)),
        "suspended",
    );
    assert!(e.to_string().contains("suspended"), "{e}");
    comm.resume().unwrap();
    // Still usable: the refused estimates left nothing behind.
    assert_eq!(
        estimate(|_| Ok(())).unwrap(),
        Duration::ZERO,
        "an empty estimate"
    );
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    s.synchronize().unwrap();
    comm.close().unwrap();
    old.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_refuses_an_estimate_and_launches_nothing() {
    let dev = Device::cuda(0).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new())
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let send = DeviceBuffer::from_slice(&s, &[1.0f32; 256]).unwrap();
    let mut recv = DeviceBuffer::<f32>::zeroed(&s, 256).unwrap();
    let e = expect_err(
        estimate(|_| comm.all_reduce(&send, &mut recv, ReduceOp::Sum, &s)),
        "cuda estimate",
    );
    assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
    s.synchronize().unwrap();
    assert_eq!(
        recv.to_vec(&s).unwrap(),
        vec![0.0; 256],
        "the all-reduce ran"
    );
    comm.close().unwrap();
}
