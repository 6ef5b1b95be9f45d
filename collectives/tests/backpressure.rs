//! Backpressure: `Options::max_in_flight` is where the host first waits. Every check
//! is a count (how many calls returned while the stream was held), never a timing; the
//! only clock is a generous bound on how long a call that must not block may take.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use collectives::{Error, Options, ProcessGroup, WorkSet};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};

const PATIENCE: Duration = Duration::from_secs(60);

/// Issues `cap` all-reduces on a held stream, then one more: the first `cap` return
/// without waiting (none of them can complete while the gate is closed), the next one
/// waits for room and, since none comes before the group's timeout, fails with the
/// cap. Each test uses a device of its own (a held stream holds up a device's
/// teardown). Then the gate opens and every issued operation completes with its value.
fn the_cap_is_where_the_host_first_waits(ordinal: usize, cap: Option<usize>) {
    let (tx, rx) = mpsc::channel();
    let (open_tx, open_rx) = mpsc::channel::<()>();
    let issuer = thread::spawn(move || {
        let dev = Device::sim(ordinal).unwrap();
        // The watchdog must not time the held operations out during the test.
        let mut options = Options::new()
            .timeout(Duration::from_millis(500))
            .watchdog_interval(Duration::from_secs(3600));
        if let Some(c) = cap {
            options = options.max_in_flight(c);
        }
        let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options).unwrap();
        let s = Stream::new(&dev).unwrap();
        let gate = Gate::new(&dev).unwrap();
        pg.comm_stream().wait_gate(&gate).unwrap();
        let want = cap.unwrap_or(1024);
        let mut bufs: Vec<DeviceBuffer<i32>> = (0..want + 1)
            .map(|i| DeviceBuffer::from_slice(&s, &[i as i32; 2]).unwrap())
            .collect();
        s.synchronize().unwrap();
        let mut works = WorkSet::new();
        let (last, first) = bufs.split_last_mut().unwrap();
        for b in first.iter_mut() {
            works.push(pg.all_reduce(b, ReduceOp::Sum).unwrap());
        }
        tx.send(("issued", works.len(), pg.in_flight())).unwrap();
        let refused = pg.all_reduce(last, ReduceOp::Sum).unwrap_err();
        let (in_flight, at) = match refused {
            Error::InFlightCap { in_flight, cap, .. } => (in_flight, cap),
            other => panic!("expected the in-flight cap, got {other}"),
        };
        tx.send(("refused", in_flight, at)).unwrap();
        open_rx.recv().unwrap(); // the test thread saw the counts
        gate.open();
        works.wait_host(PATIENCE).unwrap();
        bufs[..want]
            .iter()
            .enumerate()
            .all(|(i, b)| b.to_vec(&s).unwrap() == vec![i as i32; 2])
    });
    let want = cap.unwrap_or(1024);
    let issued = rx
        .recv_timeout(PATIENCE)
        .expect("the calls below the cap returned while the stream was held");
    assert_eq!(issued, ("issued", want, want));
    let refused = rx.recv_timeout(PATIENCE).unwrap();
    assert_eq!(
        refused,
        ("refused", want, want),
        "the next call waited at the cap"
    );
    open_tx.send(()).unwrap();
    assert!(
        issuer.join().unwrap(),
        "every held operation completed with its value"
    );
}

#[test]
fn the_default_cap_is_where_the_host_first_waits() {
    // The default cap (1024) equals the sim's default launch-queue depth: each
    // operation of a group takes one place in the queue, so all 1024 fit.
    the_cap_is_where_the_host_first_waits(0, None);
}

#[test]
fn a_lower_cap_is_where_the_host_first_waits() {
    the_cap_is_where_the_host_first_waits(1, Some(100));
}

#[test]
fn a_cap_above_what_the_sim_holds_pending_is_refused_naming_both() {
    let dev = Device::sim(2).unwrap();
    let too_many = nccl_safe::SIM_PENDING_COLLECTIVES + 1;
    let options = Options::new().max_in_flight(too_many);
    let e = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options).unwrap_err();
    match &e {
        Error::InvalidOption {
            option,
            value,
            reason,
        } => {
            assert_eq!((*option, value.as_str()), ("max_in_flight", "2049"));
            assert!(reason.contains("at most 2048 pending collectives"), "{e}");
        }
        other => panic!("expected InvalidOption, got {other}"),
    }
}

#[test]
fn sends_past_the_sims_limit_between_two_ranks_fail_within_the_timeout_and_the_group_goes_on() {
    // Rank 0 sends more messages than the sim holds between two ranks while rank 1
    // posts no receive (below the group's cap): the call past the limit waits for room
    // at most the group's timeout, fails naming the limit, and takes no sequence
    // number; made again once rank 1 receives, it runs, and every message arrives in
    // order.
    let n = nccl_safe::SIM_PENDING_MESSAGES;
    let id = UniqueId::random();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let mut ends = [(Some(go_tx), None), (None, Some(go_rx))];
    let ranks: Vec<_> = (0..2)
        .map(|rank| {
            let (go_tx, go_rx) = std::mem::take(&mut ends[rank]);
            thread::spawn(move || {
                let dev = Device::sim(3 + rank).unwrap();
                let options = Options::new()
                    .timeout(Duration::from_secs(1))
                    .watchdog_interval(Duration::from_secs(3600));
                let pg = ProcessGroup::new(&dev, rank, 2, &id, options).unwrap();
                let s = Stream::new(&dev).unwrap();
                let mut works = WorkSet::new();
                if rank == 0 {
                    let msgs: Vec<_> = (0..=n)
                        .map(|i| DeviceBuffer::from_slice(&s, &[i as i32; 3]).unwrap())
                        .collect();
                    s.synchronize().unwrap();
                    for m in &msgs[..n] {
                        works.push(pg.send(m, 1).unwrap());
                    }
                    let e = pg.send(&msgs[n], 1).unwrap_err();
                    let text = e.to_string();
                    assert!(
                        matches!(
                            &e,
                            Error::Safe(nccl_safe::Error::PendingLimit { limit, .. }) if *limit == n
                        ) && text.contains("rank 1 has not posted it"),
                        "{text}"
                    );
                    go_tx.unwrap().send(()).unwrap();
                    let start = std::time::Instant::now();
                    let last = loop {
                        match pg.send(&msgs[n], 1) {
                            Err(Error::Safe(nccl_safe::Error::PendingLimit { .. }))
                                if start.elapsed() < PATIENCE => {}
                            other => break other.unwrap(),
                        }
                    };
                    assert_eq!(last.seq(), n as u64, "the refused call took no number");
                    works.push(last);
                    works.wait_host(PATIENCE).unwrap();
                    Vec::new()
                } else {
                    go_rx.unwrap().recv().unwrap();
                    let mut bufs: Vec<_> = (0..=n)
                        .map(|_| DeviceBuffer::<i32>::alloc(&dev, 3).unwrap())
                        .collect();
                    for b in &mut bufs {
                        works.push(pg.recv(b, 0).unwrap());
                    }
                    works.wait_host(PATIENCE).unwrap();
                    bufs.iter().map(|b| b.to_vec(&s).unwrap()[0]).collect()
                }
            })
        })
        .collect();
    // A broken wait would hang the ranks: give them a deadline.
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        let got: Vec<Vec<i32>> = ranks.into_iter().map(|h| h.join().unwrap()).collect();
        done_tx.send(got).unwrap();
    });
    let got = done_rx
        .recv_timeout(2 * PATIENCE)
        .expect("both ranks finished (a panic or a hang otherwise)");
    assert_eq!(got[1], (0..=n as i32).collect::<Vec<_>>());
}
