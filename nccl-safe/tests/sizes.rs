//! The sim has two data paths: a collective of at most 32 KiB (the most bytes any
//! rank reads or writes) is done whole by the rank that arrives last, a bigger one
//! is split across every rank's thread. Both are checked here against the host
//! reference, on sizes just below and just above that threshold for every
//! collective, every reduction op and several types, with the sim's guards on
//! (outputs poisoned at enqueue, reductions in a permuted rank order, the scheduling
//! jitter that tests get by default).

mod common;

use std::thread;

use common::reference::check_all;
use nccl_safe::{Communicator, Config, DataType, Device, UniqueId};

/// The sim's one-rank threshold (`ONE_RANK_MAX` in `nccl-safe/src/sim/collective.rs`).
const ONE_RANK_MAX: usize = 32 << 10;

/// Element counts that put each collective of `n` ranks on both sides of the
/// threshold: all-reduce, reduce and broadcast move `count` elements per rank;
/// all-gather, reduce-scatter, all-to-all, gather and scatter `n * count`.
fn counts<T: DataType>(n: usize) -> [usize; 4] {
    let esz = std::mem::size_of::<T>();
    let per_rank = ONE_RANK_MAX / esz;
    let times_n = ONE_RANK_MAX / (n * esz);
    [times_n, times_n + 1, per_rank, per_rank + 1]
}

fn on_ranks(n: usize, f: impl Fn(usize, &Device, &Communicator) + Send + Sync + 'static) {
    let id = UniqueId::random();
    let f = std::sync::Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|rank| {
            let f = f.clone();
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                let comm = Communicator::init(&dev, rank, n, &id, &Config::new()).unwrap();
                f(rank, &dev, &comm);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("rank thread");
    }
}

#[test]
fn collectives_on_both_sides_of_the_sims_one_rank_size_agree_with_the_reference() {
    for n in [2, 3] {
        on_ranks(n, move |rank, dev, comm| {
            for count in counts::<f32>(n) {
                check_all::<f32>(rank, dev, comm, count);
            }
            for count in counts::<i32>(n) {
                check_all::<i32>(rank, dev, comm, count);
            }
            for count in counts::<u8>(n) {
                check_all::<u8>(rank, dev, comm, count);
            }
            for count in counts::<f64>(n) {
                check_all::<f64>(rank, dev, comm, count);
            }
        });
    }
}
