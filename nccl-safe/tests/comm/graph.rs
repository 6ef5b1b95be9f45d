//! Graphs of collectives: replays give the reference values on 1-8 ranks, a graph
//! holds its buffers and is ordered like any operation, ranks that replay different
//! graphs get a mismatch on the sim, and misuse is typed; on cuda, one GPU.

use std::time::Duration;

use crate::common::expect_err;
use crate::on_ranks;
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream, group,
};

fn replays_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as u64 + 1; 6]).unwrap();
        let mut all = DeviceBuffer::<u64>::zeroed(&s, 6 * n).unwrap();
        let graph = comm
            .capture(&s, |_| {
                comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)?;
                comm.all_gather(&x, &mut all, &s)
            })
            .unwrap();
        assert_eq!((graph.ops(), graph.launches()), (2, 0));
        // Nothing ran at capture.
        assert_eq!(x.to_vec(&s).unwrap(), vec![rank as u64 + 1; 6]);
        for _ in 0..3 {
            graph.launch(&s).unwrap();
        }
        assert_eq!(graph.launches(), 3);
        let got = (x.to_vec(&s).unwrap(), all.to_vec(&s).unwrap());
        drop(graph);
        comm.close().unwrap();
        got
    });
    // Each replay sums x over the ranks: after three, sum × n².
    let sum = (n * (n + 1) / 2) as u64;
    let want = sum * (n as u64).pow(2);
    for (rank, (x, all)) in got.into_iter().enumerate() {
        assert_eq!(x, vec![want; 6], "rank {rank} of {n}");
        assert_eq!(all, vec![want; 6 * n], "rank {rank} of {n}");
    }
}

#[test]
fn replayed_graphs_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        replays_on(DriverKind::Sim, n);
    }
}

#[test]
fn ranks_that_replay_different_graphs_get_a_mismatch() {
    let config = Config::new().call_timeout(Duration::from_secs(5));
    let errs = on_ranks(DriverKind::Sim, 2, config, |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
        let graph = if rank == 0 {
            comm.capture(&s, |_| comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))
        } else {
            comm.capture(&s, |_| comm.broadcast(&mut x, 0, &s))
        }
        .unwrap();
        let r = graph.launch(&s).and_then(|()| s.synchronize());
        let _ = comm.abort();
        r.err().map(|e| e.to_string())
    });
    let texts: Vec<String> = errs.into_iter().flatten().collect();
    assert!(
        texts.iter().any(|t| t.contains("mismatch")),
        "no rank saw the mismatch: {texts:?}"
    );
}

#[test]
fn captures_that_cannot_be_made_are_typed_errors() {
    let devs = [Device::sim(5).unwrap(), Device::sim(6).unwrap()];
    let comms = Communicator::init_all(&devs, &Config::new()).unwrap();
    let one = Communicator::init_all(std::slice::from_ref(&devs[0]), &Config::new())
        .unwrap()
        .pop()
        .unwrap();
    let (s, s2) = (
        Stream::new(&devs[0]).unwrap(),
        Stream::new(&devs[0]).unwrap(),
    );
    let mut x = DeviceBuffer::<u8>::zeroed(&s, 4).unwrap();
    let e = expect_err(one.capture(&s, |_| Ok(())), "empty");
    assert!(
        matches!(e, Error::InvalidArgument { op: "capture", .. }),
        "{e}"
    );
    let e = expect_err(
        one.capture(&s, |_| {
            comms[0].all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        }),
        "other communicator",
    );
    assert!(e.to_string().contains("another communicator"), "{e}");
    let e = expect_err(
        one.capture(&s, |_| one.all_reduce_in_place(&mut x, ReduceOp::Sum, &s2)),
        "other stream",
    );
    assert!(e.to_string().contains("another stream"), "{e}");
    let e = expect_err(
        group(|_| {
            one.capture(&s, |_| one.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))
                .map(drop)
        }),
        "nested",
    );
    assert!(e.to_string().contains("groups do not nest"), "{e}");
    // A replay on a closed communicator is refused.
    let graph = one
        .capture(&s, |_| one.all_reduce_in_place(&mut x, ReduceOp::Sum, &s))
        .unwrap();
    one.suspend().unwrap();
    let e = expect_err(graph.launch(&s), "suspended");
    assert!(e.to_string().contains("suspended"), "{e}");
    one.resume().unwrap();
    graph.launch(&s).unwrap();
    s.synchronize().unwrap();
    one.close().unwrap();
    let e = expect_err(graph.launch(&s), "closed");
    assert!(e.to_string().contains("closed"), "{e}");
    for c in comms {
        c.abort().unwrap();
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_graph_replays_on_one_gpu() {
    replays_on(DriverKind::Cuda, 1);
}
