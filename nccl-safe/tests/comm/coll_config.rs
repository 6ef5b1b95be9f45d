//! Per-call configs (`with_coll_config`): values unchanged on 1-8 ranks, a config
//! that differs between ranks is a mismatch on the sim, bad configs are typed errors
//! naming the value, and an emulated NCCL older than 2.32.3 refuses them; on cuda,
//! one GPU.

use std::time::Duration;

use crate::common::{assert_unsupported, expect_err};
use crate::on_ranks;
use nccl_safe::{
    CollConfig, Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream,
    Version, group, with_coll_config,
};

fn configured_collectives_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let cfg = CollConfig::new()
            .min_ctas(1)
            .max_ctas(2)
            .algorithms(&["Ring", "tree"])
            .lenient_selection()
            .profiler_tag(7);
        let mut x = DeviceBuffer::from_slice(&s, &[rank as i32 + 1; 10]).unwrap();
        let mut all = DeviceBuffer::<i32>::zeroed(&s, 10 * n).unwrap();
        with_coll_config(&cfg, || -> nccl_safe::Result<()> {
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
            comm.all_gather(&x, &mut all, &s)?;
            comm.broadcast(&mut x, n - 1, &s)
        })
        .unwrap();
        let got = (x.to_vec(&s).unwrap(), all.to_vec(&s).unwrap());
        comm.close().unwrap();
        got
    });
    let sum = (n * (n + 1) / 2) as i32;
    for (rank, (x, all)) in got.into_iter().enumerate() {
        assert_eq!(x, vec![sum; 10], "rank {rank} of {n}");
        assert_eq!(all, vec![sum; 10 * n], "rank {rank} of {n}");
    }
}

#[test]
fn configured_collectives_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        configured_collectives_on(DriverKind::Sim, n);
    }
}

#[test]
fn ranks_with_different_configs_for_one_collective_get_a_mismatch() {
    let config = Config::new().call_timeout(Duration::from_secs(5));
    let errs = on_ranks(DriverKind::Sim, 2, config, |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        let mut issue = || comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s);
        let r = if rank == 0 {
            with_coll_config(&CollConfig::new().max_ctas(2), issue)
        } else {
            issue()
        };
        let r = r.and_then(|()| s.synchronize());
        let _ = comm.abort();
        r.err()
    });
    let errs: Vec<Error> = errs.into_iter().flatten().collect();
    assert!(!errs.is_empty(), "no rank saw the mismatch");
    let text: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    assert!(
        text.iter().any(|t| t.contains("with per-call config #")),
        "{text:?}"
    );
}

#[test]
fn bad_configs_are_typed_errors_that_name_the_value() {
    let dev = Device::sim(2).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new().max_ctas(8))
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let cases = [
        (
            CollConfig::new().min_ctas(4).max_ctas(2),
            "min_ctas 4 is above max_ctas 2",
        ),
        (
            CollConfig::new().max_ctas(16),
            "max_ctas 16 is above the communicator's max_ctas 8",
        ),
        (
            CollConfig::new().min_ctas(0),
            "min_ctas 0 must be at least 1",
        ),
        (
            CollConfig::new().cga_cluster_size(9),
            "cga_cluster_size 9 is above 8",
        ),
        (
            CollConfig::new().algorithms(&["ring", "rings"]),
            "unknown algorithm \"rings\"",
        ),
        (
            CollConfig::new().excluding_algorithms(&["bogus"]),
            "unknown algorithm \"bogus\"",
        ),
        (CollConfig::new().profiler_tag(1 << 63), "top bit set"),
    ];
    for (cfg, says) in cases {
        let e = expect_err(
            with_coll_config(&cfg, || comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)),
            says,
        );
        assert!(
            matches!(
                e,
                Error::InvalidArgument {
                    op: "coll_config",
                    ..
                }
            ) && e.to_string().contains(says),
            "{says}: {e}"
        );
    }
    // Point-to-point calls have no config in NCCL.
    let e = expect_err(
        with_coll_config(&CollConfig::new(), || {
            group(|_| {
                comm.send(&x, 0, &s)?;
                comm.recv(&mut x, 0, &s)
            })
        }),
        "send",
    );
    assert!(
        e.to_string().contains("a send takes no per-call config"),
        "{e}"
    );
    // One group's collectives must agree on the thread-block cluster size.
    let mut y = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let e = expect_err(
        group(|_| {
            with_coll_config(&CollConfig::new().cga_cluster_size(4), || {
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
            })?;
            with_coll_config(&CollConfig::new().cga_cluster_size(2), || {
                comm.all_reduce_in_place(&mut y, ReduceOp::Sum, &s)
            })
        }),
        "cga sizes",
    );
    assert!(e.to_string().contains("cga_cluster_size 4 and 2"), "{e}");
    // Nothing was launched by the refusals, and the config ends with the closure.
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    s.synchronize().unwrap();
    let old = Communicator::init_all(
        std::slice::from_ref(&dev),
        &Config::new().emulate_nccl_version(Version::new(2, 32, 2)),
    )
    .unwrap()
    .pop()
    .unwrap();
    let e = expect_err(
        with_coll_config(&CollConfig::new().max_ctas(1), || {
            old.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        }),
        "old NCCL",
    );
    assert_unsupported(&e, "per-call config", "2.32.3");
    old.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
    s.synchronize().unwrap();
    comm.close().unwrap();
    old.close().unwrap();
}

#[test]
fn configs_describe_themselves() {
    assert_eq!(CollConfig::new().to_string(), "defaults");
    assert_eq!(
        CollConfig::new()
            .nvls_ctas(2)
            .excluding_algorithms(&["NVLS"])
            .lenient_selection()
            .profiler_tag(255)
            .to_string(),
        "nvls_ctas 2, algorithms ^nvls, lenient, profiler tag 0xff"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_configured_collectives_on_one_gpu() {
    configured_collectives_on(DriverKind::Cuda, 1);
}
