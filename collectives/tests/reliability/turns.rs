//! `SharedGroup`'s numbered turns: threads that take them compute right values; a turn
//! is given once and a wait for one is bounded.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use collectives::{Error, Options};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

use super::{PATIENCE, on_ranks, single};

/// Issue 18 item 2, the scenario: on each of two ranks, two threads take turns on one
/// group, each waiting for its own operation before issuing the next. With a
/// `SharedGroup` and the same turns on every rank, every value is right.
#[test]
fn threads_that_take_numbered_turns_on_a_shared_group_compute_right_values() {
    let wrong = on_ranks(5, 2, Options::new().name("turns"), |rank, pg| {
        let shared = Arc::new(collectives::SharedGroup::new(pg));
        let threads: Vec<_> = (0..2u64)
            .map(|t| {
                let shared = shared.clone();
                thread::spawn(move || {
                    let dev = shared.turn(t).map(|g| g.device().clone()).unwrap();
                    let s = Stream::new(&dev).unwrap();
                    let mut wrong = 0;
                    for k in 1..300u64 {
                        let v = (t * 1_000_000 + k * 10 + rank as u64) as i64;
                        let mut x = DeviceBuffer::from_slice(&s, &[v; 2]).unwrap();
                        let w = shared
                            .turn(2 * k + t)
                            .unwrap()
                            .all_reduce(&mut x, ReduceOp::Sum)
                            .unwrap();
                        w.wait_host(PATIENCE).unwrap();
                        let want = (2 * (t * 1_000_000 + k * 10) + 1) as i64;
                        wrong += x.to_vec(&s).unwrap().iter().filter(|&&y| y != want).count();
                    }
                    wrong
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(wrong, vec![0, 0]);
}

/// A turn is given once: asked again while held, or after, it is refused; a turn
/// whose predecessors never come times out naming the turn due.
#[test]
fn shared_group_turns_are_given_once_and_waits_for_them_are_bounded() {
    let shared = collectives::SharedGroup::new(single(
        2,
        Options::new()
            .name("turns")
            .timeout(Duration::from_millis(300)),
    ));
    let held = shared.turn(0).unwrap();
    let again = shared.turn(0).unwrap_err();
    assert!(
        matches!(&again, Error::Turn { turn: 0, .. })
            && again.to_string().contains("taken already"),
        "{again}"
    );
    drop(held);
    assert!(shared.turn(0).is_err(), "turn 0 is over");
    let started = Instant::now();
    let late = shared.turn(5).unwrap_err();
    assert!(late.to_string().contains("waiting for turn 1"), "{late}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(shared.next_turn(), 1);
    shared
        .turn(1)
        .unwrap()
        .barrier()
        .unwrap()
        .wait_host(PATIENCE)
        .unwrap();
    assert_eq!(shared.into_inner().rank(), 0);
}
