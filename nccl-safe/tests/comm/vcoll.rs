//! The v-collectives (`all_to_allv`, `all_gather_v`, `reduce_scatter_v`): values
//! against a host reference on 1-8 ranks with empty blocks, gaps and blocks out of
//! rank order; argument errors naming the rank; ranks that disagree on a count; a
//! v-collective inside an open group; on cuda, two GPUs.

use std::time::Duration;

use crate::common::expect_err;
use crate::on_ranks;
use nccl_safe::{
    Blocks, Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream, group,
};

/// How many elements rank `from` sends rank `to` (zero for about a third of the pairs).
fn pair_count(from: usize, to: usize) -> usize {
    (from * 3 + to * 5 + 1) % 4
}

/// Element `k` of what rank `from` sends rank `to`.
fn pair_value(from: usize, to: usize, k: usize) -> i64 {
    (from * 10_000 + to * 100 + k) as i64
}

/// Blocks in reverse rank order with a gap of `gap` elements before each.
fn reversed_with_gaps(counts: &[usize], gap: usize) -> Blocks {
    let mut displs = vec![0; counts.len()];
    let mut at = 0;
    for r in (0..counts.len()).rev() {
        at += gap;
        displs[r] = at;
        at += counts[r];
    }
    Blocks::new(counts, &displs).unwrap()
}

const UNTOUCHED: i64 = -7;

fn all_to_allv_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let send_blocks =
            Blocks::packed(&(0..n).map(|to| pair_count(me, to)).collect::<Vec<_>>()).unwrap();
        let mut send = Vec::new();
        for to in 0..n {
            send.extend((0..pair_count(me, to)).map(|k| pair_value(me, to, k)));
        }
        let send = DeviceBuffer::from_slice(&s, &send).unwrap();
        let recv_counts: Vec<usize> = (0..n).map(|from| pair_count(from, me)).collect();
        let recv_blocks = reversed_with_gaps(&recv_counts, 1);
        let mut recv =
            DeviceBuffer::from_slice(&s, &vec![UNTOUCHED; recv_blocks.extent() + 1]).unwrap();
        comm.all_to_allv(&send, &send_blocks, &mut recv, &recv_blocks, &s)
            .unwrap();
        let got = recv.to_vec(&s).unwrap();
        comm.close().unwrap();
        (recv_blocks, got)
    });
    for (me, (blocks, got)) in got.into_iter().enumerate() {
        let mut want = vec![UNTOUCHED; got.len()];
        for from in 0..n {
            for k in 0..blocks.count(from) {
                want[blocks.displacement(from) + k] = pair_value(from, me, k);
            }
        }
        assert_eq!(got, want, "rank {me} of {n}");
    }
}

#[test]
fn all_to_allv_matches_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        all_to_allv_on(DriverKind::Sim, n);
    }
}

fn all_gather_v_on(driver: DriverKind, n: usize) {
    let counts: Vec<usize> = (0..n).map(|r| (r * 7 + 2) % 5).collect();
    let got = on_ranks(driver, n, Config::new(), {
        let counts = counts.clone();
        move |me, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let blocks = reversed_with_gaps(&counts, 2);
            let mine: Vec<f64> = (0..counts[me]).map(|k| (me * 100 + k) as f64).collect();
            let send = DeviceBuffer::from_slice(&s, &mine).unwrap();
            let mut recv = DeviceBuffer::from_slice(&s, &vec![-1.0; blocks.extent()]).unwrap();
            comm.all_gather_v(&send, &mut recv, &blocks, &s).unwrap();
            let got = recv.to_vec(&s).unwrap();
            comm.close().unwrap();
            got
        }
    });
    let blocks = reversed_with_gaps(&counts, 2);
    let mut want = vec![-1.0; blocks.extent()];
    for r in 0..n {
        for k in 0..counts[r] {
            want[blocks.displacement(r) + k] = (r * 100 + k) as f64;
        }
    }
    for (me, got) in got.into_iter().enumerate() {
        assert_eq!(got, want, "rank {me} of {n}");
    }
}

#[test]
fn all_gather_v_matches_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        all_gather_v_on(DriverKind::Sim, n);
    }
}

/// Element `i` of rank `r`'s send buffer in the reduce-scatter tests.
fn rs_input(r: usize, i: usize) -> i64 {
    ((r + 1) * (i + 3) % 17) as i64 - 8
}

fn reduce_scatter_v_on(driver: DriverKind, n: usize, max: bool) {
    let counts: Vec<usize> = (0..n).map(|r| (r * 5 + 3) % 4).collect();
    // Overlapping blocks of the send buffer are allowed (they are only read): each
    // block starts one element after the previous one's start.
    let displs: Vec<usize> = (0..n).collect();
    let blocks = Blocks::new(&counts, &displs).unwrap();
    let len = blocks.extent();
    let got = on_ranks(driver, n, Config::new(), {
        let blocks = blocks.clone();
        move |me, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let input: Vec<i64> = (0..len).map(|i| rs_input(me, i)).collect();
            let send = DeviceBuffer::from_slice(&s, &input).unwrap();
            let mut recv = DeviceBuffer::zeroed(&s, blocks.count(me)).unwrap();
            let op = if max { ReduceOp::Max } else { ReduceOp::Sum };
            comm.reduce_scatter_v(&send, &blocks, &mut recv, op, &s)
                .unwrap();
            let got = recv.to_vec(&s).unwrap();
            comm.close().unwrap();
            got
        }
    });
    for (me, got) in got.into_iter().enumerate() {
        let want: Vec<i64> = (0..counts[me])
            .map(|k| {
                let vals = (0..n).map(|r| rs_input(r, displs[me] + k));
                if max { vals.max().unwrap() } else { vals.sum() }
            })
            .collect();
        assert_eq!(got, want, "rank {me} of {n} (max: {max})");
    }
}

#[test]
fn reduce_scatter_v_matches_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        reduce_scatter_v_on(DriverKind::Sim, n, false);
        reduce_scatter_v_on(DriverKind::Sim, n, true);
    }
}

#[test]
fn blocks_are_built_checked_and_described() {
    let b = Blocks::packed(&[2, 0, 3]).unwrap();
    assert_eq!(b.displacements(), &[0, 2, 2]);
    assert_eq!((b.ranks(), b.total(), b.extent()), (3, 5, 5));
    assert_eq!((b.count(7), b.displacement(7)), (0, 0));
    let e = expect_err(Blocks::new(&[1, 2], &[0]), "lengths differ");
    assert!(
        matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("2 counts but 1"),
        "{e}"
    );
    let e = expect_err(Blocks::new(&[1, 2], &[0, usize::MAX]), "overflow");
    assert!(e.to_string().contains("rank 1"), "{e}");
    let e = expect_err(Blocks::packed(&[usize::MAX, 1]), "packed overflow");
    assert!(e.to_string().contains("rank 1"), "{e}");
    assert_eq!(Blocks::packed(&[0, 0]).unwrap().extent(), 0);
}

#[test]
fn bad_blocks_are_typed_errors_that_name_the_rank_and_launch_nothing() {
    let texts = on_ranks(DriverKind::Sim, 2, Config::new(), |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let buf = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        let two = Blocks::packed(&[4, 4]).unwrap();
        let mut errs = vec![
            // Three ranks described in a world of two.
            comm.all_to_allv(
                &buf,
                &Blocks::packed(&[2, 2, 2]).unwrap(),
                &mut out,
                &two,
                &s,
            ),
            // Rank 1's send block ends past the buffer.
            comm.all_to_allv(
                &buf,
                &Blocks::new(&[4, 4], &[0, 6]).unwrap(),
                &mut out,
                &two,
                &s,
            ),
            // Receive blocks of ranks 0 and 1 overlap.
            comm.all_to_allv(
                &buf,
                &two,
                &mut out,
                &Blocks::new(&[4, 4], &[0, 3]).unwrap(),
                &s,
            ),
            // all_gather_v: this rank's count is not send's length.
            comm.all_gather_v(&buf, &mut out, &Blocks::packed(&[3, 5]).unwrap(), &s),
            // all_gather_v: overlapping receive blocks.
            comm.all_gather_v(
                &buf.view(0..4).unwrap(),
                &mut out,
                &Blocks::new(&[4, 4], &[2, 0]).unwrap(),
                &s,
            ),
            // reduce_scatter_v: recv is not this rank's count.
            comm.reduce_scatter_v(
                &buf,
                &Blocks::packed(&[3, 5]).unwrap(),
                &mut out,
                ReduceOp::Sum,
                &s,
            ),
        ];
        // An empty block must start inside the buffer too.
        errs.push(comm.all_to_allv(
            &buf,
            &Blocks::new(&[8, 0], &[0, 100]).unwrap(),
            &mut out,
            &two,
            &s,
        ));
        // Inside the caller's group, a refused call collects nothing.
        let collected = group(|g| {
            let r = comm.all_gather_v(&buf, &mut out, &Blocks::new(&[4, 4], &[0, 5]).unwrap(), &s);
            assert!(r.is_err());
            Ok(g.len())
        })
        .unwrap();
        assert_eq!(collected, 0);
        // The world is untouched: a correct call still works on both ranks.
        let mut small = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        errs.push(comm.all_to_allv(&buf, &two, &mut small, &two, &s));
        let texts: Vec<String> = errs
            .iter()
            .map(|r| match r {
                Err(Error::InvalidArgument { op, reason }) => format!("{op}: {reason}"),
                Ok(()) => "ok".into(),
                Err(e) => panic!("untyped {e:?}"),
            })
            .collect();
        s.synchronize().unwrap();
        comm.close().unwrap();
        (me, texts)
    });
    for (me, t) in texts {
        assert!(
            t[0].contains("describes 3 ranks, the world size is 2"),
            "{}",
            t[0]
        );
        assert!(
            t[1].contains("send_blocks: rank 1's block [6, 10)"),
            "{}",
            t[1]
        );
        assert!(
            t[2].contains("recv_blocks: the blocks of rank 0 [0, 4) and rank 1 [3, 7) overlap"),
            "{}",
            t[2]
        );
        let mine = [3, 5][me];
        assert!(
            t[3].contains(&format!(
                "send has 8 elements, but recv_blocks gives this rank ({me}) {mine}"
            )),
            "{}",
            t[3]
        );
        assert!(
            t[4].contains("rank 1 [0, 4) and rank 0 [2, 6) overlap"),
            "{}",
            t[4]
        );
        assert!(
            t[5].starts_with("reduce_scatter_v: recv has 8 elements")
                && t[5].contains(&format!("this rank ({me}) {mine}")),
            "{}",
            t[5]
        );
        assert!(
            t[6].contains("send_blocks: rank 1's block [100, 100)"),
            "{}",
            t[6]
        );
        assert_eq!(t[7], "ok");
    }
}

#[test]
fn ranks_that_disagree_on_a_count_get_a_mismatch_naming_both() {
    let config = Config::new().call_timeout(Duration::from_secs(5));
    let errs = on_ranks(DriverKind::Sim, 2, config, |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let buf = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        // Rank 0 sends 2 elements to rank 1, which expects 3.
        let (send, recv) = if me == 0 {
            (
                Blocks::packed(&[1, 2]).unwrap(),
                Blocks::packed(&[1, 4]).unwrap(),
            )
        } else {
            (
                Blocks::packed(&[4, 3]).unwrap(),
                Blocks::packed(&[3, 3]).unwrap(),
            )
        };
        let r = comm
            .all_to_allv(&buf, &send, &mut out, &recv, &s)
            .and_then(|()| s.synchronize());
        let _ = comm.abort();
        r.err().map(|e| e.to_string())
    });
    let texts: Vec<String> = errs.into_iter().flatten().collect();
    assert!(!texts.is_empty(), "no rank saw the mismatch");
    assert!(
        texts.iter().any(|t| t.contains("from rank 0 to rank 1")),
        "{texts:?}"
    );
}

#[test]
fn ranks_that_disagree_on_a_gathered_or_scattered_count_get_a_mismatch() {
    let config = Config::new().call_timeout(Duration::from_secs(5));
    let errs = on_ranks(DriverKind::Sim, 2, config, |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let buf = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        // Rank 1 thinks it contributes 3 elements, rank 0 thinks 2.
        let blocks = Blocks::packed(&[2, 2 + me]).unwrap();
        let gather = comm
            .all_gather_v(
                &buf.view(0..blocks.count(me)).unwrap(),
                &mut out,
                &blocks,
                &s,
            )
            .and_then(|()| s.synchronize());
        let _ = comm.abort();
        gather.err().map(|e| e.to_string())
    });
    let texts: Vec<String> = errs.into_iter().flatten().collect();
    assert!(
        texts.iter().any(|t| t.contains("mismatch")),
        "no rank saw the mismatch: {texts:?}"
    );
    let errs = on_ranks(DriverKind::Sim, 2, Config::new(), |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let buf = DeviceBuffer::<u32>::zeroed(&s, 8).unwrap();
        let blocks = Blocks::packed(&[3 + me, 2]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&s, blocks.count(me)).unwrap();
        let scatter = comm
            .reduce_scatter_v(&buf, &blocks, &mut out, ReduceOp::Sum, &s)
            .and_then(|()| s.synchronize());
        let _ = comm.abort();
        scatter.err().map(|e| e.to_string())
    });
    let texts: Vec<String> = errs.into_iter().flatten().collect();
    assert!(
        texts.iter().any(|t| t.contains("mismatch")),
        "no rank saw the mismatch: {texts:?}"
    );
}

#[test]
fn a_v_collective_joins_an_open_group() {
    let got = on_ranks(DriverKind::Sim, 3, Config::new(), |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let blocks = Blocks::packed(&[1, 2, 3]).unwrap();
        let send = DeviceBuffer::from_slice(&s, &vec![me as u32 + 1; blocks.count(me)]).unwrap();
        let mut gathered = DeviceBuffer::zeroed(&s, 6).unwrap();
        let mut sum = DeviceBuffer::from_slice(&s, &[me as u32]).unwrap();
        let in_group = group(|g| {
            comm.all_gather_v(&send, &mut gathered, &blocks, &s)?;
            comm.all_reduce_in_place(&mut sum, ReduceOp::Sum, &s)?;
            Ok(g.len())
        })
        .unwrap();
        let got = (
            in_group,
            gathered.to_vec(&s).unwrap(),
            sum.to_vec(&s).unwrap(),
        );
        comm.close().unwrap();
        got
    });
    for (in_group, gathered, sum) in got {
        // Three broadcasts and the all-reduce were collected by the caller's group.
        assert_eq!(in_group, 4);
        assert_eq!(gathered, vec![1, 2, 2, 3, 3, 3]);
        assert_eq!(sum, vec![3]);
    }
}

#[test]
fn v_collectives_refuse_buffers_of_another_device() {
    let devs = [Device::sim(0).unwrap(), Device::sim(1).unwrap()];
    let comms = Communicator::init_all(&devs, &Config::new()).unwrap();
    let s0 = Stream::new(&devs[0]).unwrap();
    let s1 = Stream::new(&devs[1]).unwrap();
    let other = DeviceBuffer::<u8>::zeroed(&s1, 2).unwrap();
    let mut out = DeviceBuffer::<u8>::zeroed(&s0, 2).unwrap();
    let b = Blocks::packed(&[1, 1]).unwrap();
    let e = expect_err(
        comms[0].all_to_allv(&other, &b, &mut out, &b, &s0),
        "wrong device",
    );
    assert!(matches!(e, Error::WrongDevice { .. }), "{e:?}");
    let e = expect_err(
        comms[0].all_gather_v(&other.view(0..1).unwrap(), &mut out, &b, &s0),
        "wrong device",
    );
    assert!(matches!(e, Error::WrongDevice { .. }), "{e:?}");
    for c in comms {
        c.abort().unwrap();
    }
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_v_collectives_match_the_reference() {
    all_to_allv_on(DriverKind::Cuda, 2);
    all_gather_v_on(DriverKind::Cuda, 2);
    reduce_scatter_v_on(DriverKind::Cuda, 2, false);
}
