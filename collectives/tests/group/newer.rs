//! NCCL's newer surface through a process group: the v-collectives (values on 1-8 ranks, one flight-record entry
//! each with the counts it was called with, a refused call records nothing, and a
//! rank that never joins is named by the timeout), a suspended group's refusals, and
//! graph replays under the watchdog.

use std::time::Duration;

use collectives::{Error, Options};
use nccl_safe::{Blocks, DeviceBuffer, ReduceOp, Stream};

use super::{PATIENCE, on_ranks};

#[test]
fn v_collectives_of_a_group_match_the_reference_and_are_recorded_once_each() {
    for n in 1..=8usize {
        let got = on_ranks(0, n, Options::new(), move |me, pg| {
            let s = Stream::new(pg.device()).unwrap();
            // Rank i sends i + 2j elements, each `100 i + j`, to rank j.
            let sends = Blocks::packed(&(0..n).map(|j| me + 2 * j).collect::<Vec<_>>()).unwrap();
            let recvs = Blocks::packed(&(0..n).map(|i| i + 2 * me).collect::<Vec<_>>()).unwrap();
            let mut out = Vec::new();
            for j in 0..n {
                out.extend(std::iter::repeat_n((100 * me + j) as i32, me + 2 * j));
            }
            let send = DeviceBuffer::from_slice(&s, &out).unwrap();
            let mut recv = DeviceBuffer::<i32>::zeroed(&s, recvs.total()).unwrap();
            let a2a = pg.all_to_allv(&send, &sends, &mut recv, &recvs).unwrap();
            let blocks = Blocks::packed(&(0..n).map(|r| r % 3).collect::<Vec<_>>()).unwrap();
            let mine = DeviceBuffer::from_slice(&s, &vec![me as i32; blocks.count(me)]).unwrap();
            let mut all = DeviceBuffer::<i32>::zeroed(&s, blocks.total()).unwrap();
            let ag = pg.all_gather_v(&mine, &mut all, &blocks).unwrap();
            let mut part = DeviceBuffer::<i32>::zeroed(&s, blocks.count(me)).unwrap();
            let rs = pg
                .reduce_scatter_v(&all, &blocks, &mut part, ReduceOp::Max)
                .unwrap();
            for w in [a2a, ag, rs] {
                w.wait_host(PATIENCE).unwrap();
            }
            let record: Vec<_> = pg
                .flight_record()
                .into_iter()
                .filter(|e| e.op.ends_with('v'))
                .map(|e| (e.op, e.count, e.out_count, e.seq.is_some()))
                .collect();
            (
                recv.to_vec(&s).unwrap(),
                all.to_vec(&s).unwrap(),
                part.to_vec(&s).unwrap(),
                record,
            )
        });
        let blocks = Blocks::packed(&(0..n).map(|r| r % 3).collect::<Vec<_>>()).unwrap();
        let mut gathered = Vec::new();
        for r in 0..n {
            gathered.extend(std::iter::repeat_n(r as i32, r % 3));
        }
        for (me, (recv, all, part, record)) in got.into_iter().enumerate() {
            let mut want = Vec::new();
            for i in 0..n {
                want.extend(std::iter::repeat_n((100 * i + me) as i32, i + 2 * me));
            }
            assert_eq!(recv, want, "all_to_allv, rank {me} of {n}");
            assert_eq!(all, gathered, "all_gather_v, rank {me} of {n}");
            let d = blocks.displacement(me);
            assert_eq!(
                part,
                gathered[d..d + me % 3].to_vec(),
                "reduce_scatter_v, rank {me}"
            );
            let sent: usize = (0..n).map(|j| me + 2 * j).sum();
            let received: usize = (0..n).map(|i| i + 2 * me).sum();
            assert_eq!(
                record,
                vec![
                    ("all_to_allv".to_string(), sent, Some(received), true),
                    ("all_gather_v".to_string(), blocks.total(), None, true),
                    ("reduce_scatter_v".to_string(), blocks.total(), None, true),
                ],
                "rank {me} of {n}"
            );
        }
    }
}

#[test]
fn a_refused_v_collective_records_nothing_and_a_missing_rank_is_named() {
    let opts = Options::new().timeout(Duration::from_millis(800));
    let texts = on_ranks(3, 3, opts, |me, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::<u8>::zeroed(&s, 6).unwrap();
        let mut y = DeviceBuffer::<u8>::zeroed(&s, 6).unwrap();
        let before = pg.flight_record().len();
        let bad = Blocks::packed(&[2, 2]).unwrap(); // two ranks in a group of three
        let e = pg.all_to_allv(&x, &bad, &mut y, &bad).unwrap_err();
        assert!(
            matches!(e, Error::Safe(nccl_safe::Error::InvalidArgument { .. }))
                && e.to_string()
                    .contains("describes 2 ranks, the world size is 3"),
            "{e}"
        );
        assert_eq!(pg.flight_record().len(), before);
        if me == 2 {
            // Rank 2 never joins the exchange; the others time out.
            std::thread::sleep(Duration::from_millis(2500));
            return (String::new(), pg.dump_flight_record("test"));
        }
        let b = Blocks::packed(&[2, 2, 2]).unwrap();
        let w = pg.all_to_allv(&x, &b, &mut y, &b).unwrap();
        let e = w.wait_host(PATIENCE).unwrap_err().to_string();
        (e, pg.dump_flight_record("test"))
    });
    for (t, _) in &texts[..2] {
        assert!(t.contains("all_to_allv #1"), "{t}");
    }
    // The hang report of the three dumps names the rank that never issued it.
    let dumps: Vec<_> = texts.into_iter().map(|(_, d)| d).collect();
    let report = collectives::hang_report(&dumps);
    assert!(
        report
            .iter()
            .any(|l| l.starts_with("all_to_allv #1") && l.contains("rank 2 never issued it")),
        "{report:#?}"
    );
}

#[test]
fn a_suspended_group_refuses_work_without_taking_a_sequence_number() {
    let got = on_ranks(0, 3, Options::new(), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[rank as u32 + 1; 4]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        let recorded = pg.flight_record().len();
        pg.suspend().unwrap();
        assert!(pg.is_suspended() && pg.mem_stats().unwrap().suspended);
        let e = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap_err();
        assert!(
            matches!(e, Error::Safe(nccl_safe::Error::InvalidUsage { .. }))
                && e.to_string().contains("suspended"),
            "{e}"
        );
        assert_eq!((pg.flight_record().len(), pg.in_flight()), (recorded, 0));
        pg.resume().unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        let seqs: Vec<_> = pg
            .flight_record()
            .iter()
            .filter(|e| e.op == "all_reduce")
            .filter_map(|e| e.seq)
            .collect();
        (x.to_vec(&s).unwrap(), seqs)
    });
    for (x, seqs) in got {
        // 1 + 2 + 3 = 6, then 6 × 3: the refused call never reached a peer.
        assert_eq!(x, vec![18; 4]);
        assert!(seqs.len() == 2 && seqs[1] == seqs[0] + 1, "{seqs:?}");
    }
}

#[test]
fn a_graph_replay_is_a_work_that_the_watchdog_covers() {
    let opts = Options::new().timeout(Duration::from_millis(800));
    let got = on_ranks(3, 3, opts, |rank, pg| {
        let s = pg.comm_stream().clone();
        let mut x = DeviceBuffer::from_slice(&s, &[1u32; 4]).unwrap();
        let graph = pg
            .capture(|c, st| c.all_reduce_in_place(&mut x, ReduceOp::Sum, st))
            .unwrap();
        pg.replay(&graph).unwrap().wait_host(PATIENCE).unwrap();
        if rank == 2 {
            // Rank 2 never replays a second time.
            std::thread::sleep(Duration::from_millis(2500));
            return (String::new(), pg.dump_flight_record("test"));
        }
        let e = pg.replay(&graph).unwrap().wait_host(PATIENCE).unwrap_err();
        (e.to_string(), pg.dump_flight_record("test"))
    });
    for (t, _) in &got[..2] {
        assert!(t.contains("graph #"), "{t}");
    }
    let dumps: Vec<_> = got.into_iter().map(|(_, d)| d).collect();
    let report = collectives::hang_report(&dumps);
    assert!(
        report
            .iter()
            .any(|l| l.starts_with("graph #") && l.contains("rank 2 never issued it")),
        "{report:#?}"
    );
}
