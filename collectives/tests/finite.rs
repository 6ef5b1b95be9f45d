//! `Options::check_finite` on the sim: a NaN or infinity in an input fails that
//! operation's `Work` with `Error::NonFinite` naming the rank, op, call site and first
//! bad element; other ranks' works and later operations go on; what is an input
//! (roots only for broadcast and scatter); integers and the default (off) are not
//! checked; a work nobody host-waits for is failed by the watchdog.

use std::time::{Duration, Instant};

use collectives::{Error, Options, WaitMode};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

mod common;
use common::on_ranks;

const PATIENCE: Duration = Duration::from_secs(30);

fn checking() -> Options {
    Options::new().check_finite(true).timeout(PATIENCE)
}

#[test]
fn a_nan_fails_the_work_of_the_rank_that_had_it_and_the_group_goes_on() {
    let out = on_ranks(0, 2, checking(), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut data = vec![1.0f32; 64];
        if rank == 1 {
            data[5] = f32::NAN;
            data[9] = f32::INFINITY;
        }
        let mut x = DeviceBuffer::from_slice(&s, &data).unwrap();
        let work = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        let line = line!() - 1;
        let first = work.wait_host(PATIENCE);
        // The group goes on: a clean all-reduce next.
        let mut y = DeviceBuffer::from_slice(&s, &[2.0f32; 4]).unwrap();
        pg.all_reduce(&mut y, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
        assert_eq!(y.to_vec(&s).unwrap(), [4.0; 4]);
        assert!(pg.aborted().is_none());
        (first, line)
    });
    assert!(
        out[0].0.is_ok(),
        "rank 0's input was finite: {:?}",
        out[0].0
    );
    match &out[1].0 {
        Err(Error::NonFinite {
            rank,
            op,
            seq,
            call_site,
            index,
            ..
        }) => {
            assert_eq!((*rank, op.as_str(), *seq, *index), (1, "all_reduce", 1, 5));
            assert_eq!(call_site, &format!("{}:{}", file!(), out[1].1));
        }
        other => panic!("rank 1: {other:?}"),
    }
    let text = out[1].0.as_ref().unwrap_err().to_string();
    assert!(
        text.contains("rank 1") && text.contains("element 5") && text.contains("all_reduce #1"),
        "{text}"
    );
}

#[test]
fn off_by_default_and_integers_are_never_checked() {
    on_ranks(2, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[f64::NAN; 3]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Sum)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
    });
    on_ranks(2, 1, checking(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        // The bits of an f32 NaN, as integers: finite.
        let mut x = DeviceBuffer::from_slice(&s, &[0x7fc0_0000u32; 3]).unwrap();
        pg.all_reduce(&mut x, ReduceOp::Max)
            .unwrap()
            .wait_host(PATIENCE)
            .unwrap();
    });
}

#[test]
fn only_inputs_are_checked_roots_for_broadcast_and_scatter() {
    let out = on_ranks(3, 2, checking(), |rank, pg| {
        let s = Stream::new(pg.device()).unwrap();
        // A receiver's buffer is output: its NaNs are overwritten, not reported.
        let mut b =
            DeviceBuffer::from_slice(&s, &[if rank == 1 { f32::NAN } else { 3.0 }; 4]).unwrap();
        let bcast = pg.broadcast(&mut b, 0).unwrap().wait_host(PATIENCE);
        // The root's NaN is.
        let mut c =
            DeviceBuffer::from_slice(&s, &[if rank == 0 { f32::NAN } else { 1.0 }; 4]).unwrap();
        let root_nan = pg.broadcast(&mut c, 0).unwrap().wait_host(PATIENCE);
        // Out of place: the send side is checked, the receive side is not.
        let send = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
        let mut recv = DeviceBuffer::from_slice(&s, &[f32::NAN; 4]).unwrap();
        let gathered = pg.all_gather(&send, &mut recv).unwrap().wait_host(PATIENCE);
        (bcast, root_nan.map_err(|e| e.to_string()), gathered)
    });
    for (rank, (bcast, root_nan, gathered)) in out.iter().enumerate() {
        assert!(bcast.is_ok(), "rank {rank}: {bcast:?}");
        assert!(gathered.is_ok(), "rank {rank}: {gathered:?}");
        match rank {
            0 => assert!(
                root_nan.as_ref().unwrap_err().contains("broadcast #2"),
                "{root_nan:?}"
            ),
            _ => assert!(root_nan.is_ok(), "rank {rank}: {root_nan:?}"),
        }
    }
}

#[test]
fn a_work_only_stream_waited_is_failed_by_the_watchdog() {
    let opts = checking().watchdog_interval(Duration::from_millis(5));
    on_ranks(5, 1, opts, |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1.0f32, f32::NEG_INFINITY]).unwrap();
        let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
        w.wait(WaitMode::Stream(&s)).unwrap();
        let start = Instant::now();
        while pg.in_flight() > 0 && start.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(5));
        }
        let e = w.wait_host(PATIENCE).unwrap_err();
        assert!(matches!(e, Error::NonFinite { index: 1, .. }), "{e}");
        // The operation ran: its record says so (the hang report must not take it
        // for a stuck one).
        let record = pg.flight_record();
        let last = record.last().unwrap();
        assert_eq!(last.state, collectives::State::Completed);
        assert!(collectives::hang_report(&[pg.dump_flight_record("check")]).is_empty());
    });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_nan_fails_the_work_through_the_scan_kernel() {
    let dev = nccl_safe::Device::cuda(0).unwrap();
    let pg = collectives::ProcessGroup::new(&dev, 0, 1, &nccl_safe::UniqueId::random(), checking())
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    use nccl_safe::half::bf16;
    let mut data = vec![bf16::from_f32(1.0); 1 << 20];
    data[777_777] = bf16::NAN;
    let mut x = DeviceBuffer::from_slice(&s, &data).unwrap();
    let e = pg
        .all_reduce(&mut x, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap_err();
    assert!(matches!(e, Error::NonFinite { index: 777_777, .. }), "{e}");
    let mut y = DeviceBuffer::from_slice(&s, &[1.0f32; 8]).unwrap();
    pg.all_reduce(&mut y, ReduceOp::Sum)
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
}
