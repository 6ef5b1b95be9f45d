//! Communicators and collectives: results against a host reference, orderings, init,
//! abort, split, mismatches, misuse, groups. Multi-rank scenarios run one thread per
//! rank; on cuda they need one GPU per rank. Results and orderings are in
//! `comm/values.rs`; init, abort, split and unique ids in `comm/init.rs`; mismatches,
//! misuse and deadlocks in `comm/errors.rs`; world-size-1 scenarios with a gate as the
//! late peer in `comm/size_one.rs`; the sim's limits on pending operations in
//! `comm/limits.rs`; random world sizes and counts in `comm/props.rs`; revoke, shrink and
//! grow in `comm/reshape.rs`; the v-collectives in `comm/vcoll.rs`; suspend and resume in `comm/suspend.rs`; cost estimates in `comm/estimate.rs`; NCCL's memory and registration in
//! `comm/register.rs`; windows in `comm/window.rs`;
//! per-call configs in `comm/coll_config.rs`; launch-completion events in
//! `comm/launch_event.rs`; completion events in `comm/completion.rs`; one-sided puts and signals in `comm/onesided.rs`; graphs in
//! `comm/graph.rs`.

mod common;

use std::sync::Arc;
use std::thread;

use nccl_safe::{Communicator, Config, Device, DriverKind, UniqueId};

#[path = "comm/coll_config.rs"]
mod coll_config;
#[path = "comm/completion.rs"]
mod completion;
#[path = "comm/errors.rs"]
mod errors;
#[path = "comm/estimate.rs"]
mod estimate;
#[path = "comm/graph.rs"]
mod graph;
#[path = "comm/init.rs"]
mod init;
#[path = "comm/launch_event.rs"]
mod launch_event;
#[path = "comm/limits.rs"]
mod limits;
#[path = "comm/onesided.rs"]
mod onesided;
#[path = "comm/props.rs"]
mod props;
#[path = "comm/register.rs"]
mod register;
#[path = "comm/reshape.rs"]
mod reshape;
#[path = "comm/scalable.rs"]
mod scalable;
#[path = "comm/size_one.rs"]
mod size_one;
#[path = "comm/suspend.rs"]
mod suspend;
#[path = "comm/values.rs"]
mod values;
#[path = "comm/vcoll.rs"]
mod vcoll;
#[path = "comm/window.rs"]
mod window;

/// Runs `f(rank, device, comm)` on `n` ranks, one thread each, and returns their
/// results in rank order.
fn on_ranks<R: Send + 'static>(
    driver: DriverKind,
    n: usize,
    config: Config,
    f: impl Fn(usize, Device, Communicator) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let id = match driver {
        DriverKind::Sim => UniqueId::random(),
        DriverKind::Cuda => UniqueId::new().unwrap(),
    };
    let f = Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let (f, config) = (f.clone(), config.clone());
            thread::spawn(move || {
                let dev = Device::with_driver(driver, rank).unwrap();
                let comm = Communicator::init(&dev, rank, n, &id, &config).unwrap();
                f(rank, dev, comm)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("rank thread"))
        .collect()
}
