//! Process groups on the sim driver (and, where one GPU fits, on cuda): orderings,
//! both waits, timeouts and abort, the watchdog, dumps and the hang report.
//! By concept: orderings and both waits in `group/waits.rs`; timeouts, abort and the
//! error policies in `group/timeouts.rs`; the watchdog, dumps and the hang report in
//! `group/watchdog.rs`; groups over given communicators and eager connection in
//! `group/communicators.rs`; the v-collectives, suspend and
//! resume, and graph replays in `group/newer.rs`.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use std::time::Duration;

use collectives::{Error, Options, ProcessGroup, WorkSet};
use nccl_safe::{DeviceBuffer, ReduceOp, Stream};

const PATIENCE: Duration = Duration::from_secs(30);

mod common;
use common::on_ranks;

#[path = "group/communicators.rs"]
mod communicators;
#[path = "group/newer.rs"]
mod newer;
#[path = "group/timeouts.rs"]
mod timeouts;
#[path = "group/waits.rs"]
mod waits;
#[path = "group/watchdog.rs"]
mod watchdog;

type Shared<T> = Arc<Mutex<Option<T>>>;

fn channel_pair() -> (Shared<mpsc::Sender<bool>>, Shared<mpsc::Receiver<bool>>) {
    let (tx, rx) = mpsc::channel();
    (
        Arc::new(Mutex::new(Some(tx))),
        Arc::new(Mutex::new(Some(rx))),
    )
}

#[test]
fn errors_of_arguments_come_back_typed_and_nothing_is_recorded_as_pending() {
    on_ranks(6, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
        let mut y = DeviceBuffer::<u8>::zeroed(&s, 3).unwrap();
        let e = pg.all_reduce_into(&x, &mut y, ReduceOp::Sum).unwrap_err();
        assert!(
            matches!(e, Error::Safe(nccl_safe::Error::InvalidArgument { .. })),
            "{e}"
        );
        assert!(pg.flight_record().iter().all(|e| !e.is_pending()));
        assert_eq!(pg.in_flight(), 0);
    });
}

#[test]
fn group_types_cross_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<ProcessGroup>();
    // Not `Sync` (one order of operations; a compile_fail doctest shows it): threads
    // share a group through `SharedGroup`.
    assert_send::<collectives::SharedGroup>();
    assert_sync::<collectives::SharedGroup>();
    assert_send::<collectives::Work>();
    assert_send::<WorkSet>();
    assert_send::<Error>();
    assert_sync::<Error>();
}

#[test]
fn each_operation_names_its_own_call_site_in_its_work_and_record() {
    // Call sites are made into text once per site and shared: two sites issued in
    // turn, from a helper's caller too, must each keep their own line.
    #[track_caller]
    fn from_caller(pg: &ProcessGroup, x: &mut DeviceBuffer<f32>) -> collectives::Work {
        pg.all_reduce(x, ReduceOp::Sum).unwrap()
    }
    on_ranks(6, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
        s.synchronize().unwrap();
        let here = line!();
        let mut works = WorkSet::new();
        let mut sites = Vec::new();
        for _ in 0..3 {
            let a = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap(); // here + 4
            let b = from_caller(&pg, &mut x); // here + 5
            sites.push(a.call_site().to_string());
            sites.push(b.call_site().to_string());
            works.push(a);
            works.push(b);
        }
        works.wait_host(PATIENCE).unwrap();
        let file = file!();
        let want: Vec<String> = (0..6)
            .map(|i| format!("{file}:{}", here + 4 + (i % 2)))
            .collect();
        assert_eq!(sites, want);
        let recorded: Vec<String> = pg
            .flight_record()
            .iter()
            .filter(|e| e.op == "all_reduce")
            .map(|e| e.call_site.clone())
            .collect();
        assert_eq!(recorded, want);
    });
}

#[test]
fn a_collective_of_the_group_hands_its_launch_to_an_enclosing_completion_capture() {
    // The group takes the launch's own event for its Work; a caller's capture
    // around the call still sees that launch.
    on_ranks(6, 1, Options::new(), |_, pg| {
        let s = Stream::new(pg.device()).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &[2.0f32; 3]).unwrap();
        s.synchronize().unwrap();
        let gate = nccl_safe::Gate::new(pg.device()).unwrap();
        pg.comm_stream().wait_gate(&gate).unwrap();
        let (work, done) =
            nccl_safe::with_completion_event(|| pg.all_reduce(&mut x, ReduceOp::Sum));
        let (work, done) = (work.unwrap(), done.expect("the all-reduce was launched"));
        std::thread::sleep(Duration::from_millis(30));
        assert!(!done.query().unwrap() && !work.is_completed().unwrap());
        gate.open();
        done.synchronize_timeout(PATIENCE).unwrap();
        work.wait_host(PATIENCE).unwrap();
        assert_eq!(x.to_vec(&s).unwrap(), vec![2.0; 3]);
    });
}
