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

/// Polls `f` until it holds, for at most `PATIENCE`.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(start.elapsed() < PATIENCE, "never: {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn launch_events_tell_launched_from_completed_in_works_records_and_the_report() {
    let met = std::sync::Arc::new(std::sync::Barrier::new(2));
    let options = Options::new()
        .launch_events(true)
        .watchdog_interval(Duration::from_millis(5));
    let dumps = on_ranks(2, 2, options, move |me, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[me as f32 + 1.0; 4]).unwrap();
        // Behind earlier work on the group's stream: not launched.
        let gate = nccl_safe::Gate::new(pg.device()).unwrap();
        pg.comm_stream().wait_gate(&gate).unwrap();
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(w.is_launched().unwrap(), Some(false));
        gate.open();
        w.wait_host(PATIENCE).unwrap();
        assert_eq!(w.is_launched().unwrap(), Some(true));
        // Rank 1 comes late: rank 0's all-reduce is launched and not complete.
        let late = if me == 0 {
            let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
            // The watchdog notes the launch in the record, unasked.
            eventually("the watchdog noted the launch", || {
                pg.flight_record().last().unwrap().started_ms.is_some()
            });
            assert_eq!(w.is_launched().unwrap(), Some(true));
            assert!(!w.is_completed().unwrap());
            let record = pg.flight_record();
            let last = record.last().unwrap();
            assert!(last.tracks_launch && last.started_ms.is_some(), "{last:?}");
            assert!(last.is_pending());
            let dump = pg.dump_flight_record("check");
            met.wait();
            w.wait_host(PATIENCE).unwrap();
            dump
        } else {
            let dump = pg.dump_flight_record("check");
            met.wait();
            pg.all_reduce(&mut x, ReduceOp::Sum)
                .unwrap()
                .wait_host(PATIENCE)
                .unwrap();
            dump
        };
        assert_eq!(x.to_vec(&s).unwrap(), vec![6.0; 4]);
        // Point-to-point calls carry no launch event.
        let peer = 1 - me;
        let w = if me == 0 {
            pg.send(&x, peer).unwrap()
        } else {
            pg.recv(&mut x, peer).unwrap()
        };
        w.wait_host(PATIENCE).unwrap();
        assert_eq!(w.is_launched().unwrap(), None);
        assert!(!pg.flight_record().last().unwrap().tracks_launch);
        late
    });
    let report = collectives::hang_report(&dumps);
    assert!(
        report.iter().any(|l| l.starts_with("all_reduce #2")
            && l.contains("rank 1 never issued it")
            && l.contains("[launched on rank 0 (running, waiting for peers)]")),
        "{report:#?}"
    );
}

#[test]
fn without_launch_events_a_work_does_not_know_its_launch() {
    on_ranks(6, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        w.wait_host(PATIENCE).unwrap();
        assert_eq!(w.is_launched().unwrap(), None);
        assert!(pg.flight_record().iter().all(|e| !e.tracks_launch));
    });
}

#[test]
fn launch_events_need_nccl_2_32_3() {
    let dev = nccl_safe::Device::sim(7).unwrap();
    let config = nccl_safe::Config::new().emulate_nccl_version(nccl_safe::Version::new(2, 32, 2));
    let comm =
        nccl_safe::Communicator::init(&dev, 0, 1, &nccl_safe::UniqueId::random(), &config).unwrap();
    let e = collectives::ProcessGroup::from_communicator(comm, Options::new().launch_events(true))
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Safe(nccl_safe::Error::UnsupportedByNccl {
                feature: "launch-completion event",
                ..
            })
        ),
        "{e}"
    );
}

/// One rank on `dev` with launch events: a collective behind a closed gate is not
/// launched; once the gate opens it is launched and completes.
fn gated_launch(dev: nccl_safe::Device) {
    let id = nccl_safe::UniqueId::for_driver(dev.driver()).unwrap();
    let pg =
        match collectives::ProcessGroup::new(&dev, 0, 1, &id, Options::new().launch_events(true)) {
            Err(Error::Safe(nccl_safe::Error::UnsupportedByNccl { .. })) => {
                eprintln!("the loaded NCCL has no launch-completion events");
                return;
            }
            other => other.unwrap(),
        };
    let gate = nccl_safe::Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 256]).unwrap();
    let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(w.is_launched().unwrap(), Some(false));
    gate.open();
    w.wait_host(PATIENCE).unwrap();
    assert_eq!(w.is_launched().unwrap(), Some(true));
    assert_eq!(x.to_vec(&s).unwrap(), vec![1.0; 256]);
}

#[test]
fn sim_gated_launch_is_seen_launched_only_once_the_gate_opens() {
    gated_launch(nccl_safe::Device::sim(5).unwrap());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_gated_launch_is_seen_launched_only_once_the_gate_opens() {
    gated_launch(nccl_safe::Device::cuda(0).unwrap());
}

#[test]
fn one_sided_puts_of_a_group_arrive_and_are_recorded_per_peer() {
    let n = 3;
    let got = on_ranks(0, n, Options::new(), move |me, pg| {
        let dev = pg.device().clone();
        let s = pg.comm_stream();
        let mut buf = DeviceBuffer::<i32>::alloc_nccl(&dev, 2048).unwrap();
        buf.fill(s, -1).unwrap();
        buf.view_mut(1024..2048)
            .unwrap()
            .fill(s, 10 * me as i32)
            .unwrap();
        let window = pg
            .register_window(&buf, nccl_safe::WindowFlags::new().symmetric())
            .unwrap();
        let (next, prev) = ((me + 1) % n, (me + n - 1) % n);
        let put = pg
            .put_signal(&buf.view(1024..1030).unwrap(), next, &window, 0)
            .unwrap();
        let signal = pg.signal(next).unwrap();
        let wait = pg
            .wait_signal(&mut buf.view_mut(0..6).unwrap(), prev, 2)
            .unwrap();
        for w in [put, signal, wait] {
            w.wait_host(PATIENCE).unwrap();
        }
        let v = buf.view(0..8).unwrap().to_vec(s).unwrap();
        // The collective sequence is untouched: the next all-reduce is #1.
        let mut x = DeviceBuffer::from_slice(s, &[1u8]).unwrap();
        let ar = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        assert_eq!(ar.seq(), 1);
        ar.wait_host(PATIENCE).unwrap();
        let record: Vec<_> = pg
            .flight_record()
            .into_iter()
            .filter(|e| e.op.contains("signal"))
            .map(|e| (e.op, e.p2p, e.count, e.seq))
            .collect();
        drop(window);
        (v, record)
    });
    for (me, (v, record)) in got.into_iter().enumerate() {
        let prev = (me + n - 1) % n;
        let mut want = vec![10 * prev as i32; 6];
        want.extend([-1, -1]);
        assert_eq!(v, want, "rank {me}");
        let next = (me + 1) % n;
        assert_eq!(
            record,
            vec![
                ("put_signal".to_string(), Some((next, 0)), 6, None),
                ("signal".to_string(), Some((next, 0)), 0, None),
                ("wait_signal".to_string(), Some((prev, 0)), 2, None),
            ],
            "rank {me}"
        );
    }
}

#[test]
fn a_wait_for_signals_that_never_come_times_out_and_the_report_names_it() {
    let options = Options::new()
        .timeout(Duration::from_millis(500))
        .watchdog_interval(Duration::from_millis(10));
    let met = std::sync::Arc::new(std::sync::Barrier::new(2));
    let got = on_ranks(3, 2, options, move |me, pg| {
        let dev = pg.device().clone();
        let mut buf = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap();
        let window = pg
            .register_window(&buf, nccl_safe::WindowFlags::new().symmetric())
            .unwrap();
        let r = if me == 0 {
            // One signal where rank 1 waits for two.
            pg.signal(1).unwrap().wait_host(PATIENCE).map(|()| None)
        } else {
            let e = pg
                .wait_signal(&mut buf.view_mut(0..1).unwrap(), 0, 2)
                .unwrap()
                .wait_host(PATIENCE)
                .unwrap_err();
            Ok(Some((e.to_string(), pg.dump_flight_record("check"))))
        };
        // Rank 0 stays until rank 1 timed out (gone, it would be named at once).
        met.wait();
        drop(window);
        r.unwrap()
    });
    let (err, dump) = got[1].clone().unwrap();
    assert!(
        err.contains("wait_signal #0") && err.contains("timed out"),
        "{err}"
    );
    let report = collectives::hang_report(&[dump]);
    assert!(
        report
            .iter()
            .any(|l| l.starts_with("rank 1: wait_signal #0 with rank 0 (")
                && l.ends_with("still pending")),
        "{report:#?}"
    );
}
