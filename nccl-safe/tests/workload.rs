//! A random workload: 2000 mixed collectives and point-to-point exchanges on 8 sim
//! ranks, with random counts (zero among them), types, reductions, roots, in place and
//! out of place, alone and in groups, each result checked against a host model.
//! Count 0 is a valid no-op in NCCL (an empty collective is discarded, an empty
//! message still pairs with its peer), and so it is here.

mod common;

use std::thread;

use nccl_safe::{
    Communicator, Config, DataType, Device, DeviceBuffer, DriverKind, ReduceOp, Stream, UniqueId,
    group,
};

/// The same pseudo-random sequence on every rank (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}

/// Input element `i` of rank `r` at step `k`: small and non-negative, so that sums of 8
/// ranks are exact in every type used (u8 included).
fn input(r: usize, k: usize, i: usize) -> i64 {
    ((r * 7 + k * 3 + i * 5) % 11) as i64
}

#[derive(Clone, Copy, Debug)]
enum Red {
    Sum,
    Max,
    Min,
}

fn red<T: DataType>(r: Red) -> ReduceOp<'static, T> {
    match r {
        Red::Sum => ReduceOp::Sum,
        Red::Max => ReduceOp::Max,
        Red::Min => ReduceOp::Min,
    }
}

fn fold(r: Red, values: impl Iterator<Item = i64>) -> i64 {
    let v: Vec<i64> = values.collect();
    match r {
        Red::Sum => v.iter().sum(),
        Red::Max => *v.iter().max().expect("ranks"),
        Red::Min => *v.iter().min().expect("ranks"),
    }
}

fn vals<T: DataType>(v: impl Iterator<Item = i64>) -> Vec<T> {
    v.map(T::from_i64).collect()
}

/// One step of the workload on this rank, checked.
#[allow(clippy::too_many_arguments)]
fn step<T: DataType>(
    k: usize,
    what: usize,
    count: usize,
    r: Red,
    root: usize,
    rank: usize,
    n: usize,
    comm: &Communicator,
    s: &Stream,
) {
    let mine = |len: usize| vals::<T>((0..len).map(|i| input(rank, k, i)));
    let of = |p: usize, i: usize| input(p, k, i);
    let ctx = format!("step {k} ({what}) count {count} {} {r:?}", T::DTYPE);
    match what {
        0 => {
            // all_reduce, out of place
            let send = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut recv = DeviceBuffer::<T>::zeroed(s, count).unwrap();
            comm.all_reduce(&send, &mut recv, red(r), s).unwrap();
            let want = vals::<T>((0..count).map(|i| fold(r, (0..n).map(|p| of(p, i)))));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        1 => {
            // all_reduce, in place
            let mut buf = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            comm.all_reduce_in_place(&mut buf, red(r), s).unwrap();
            let want = vals::<T>((0..count).map(|i| fold(r, (0..n).map(|p| of(p, i)))));
            assert_eq!(buf.to_vec(s).unwrap(), want, "{ctx}");
        }
        2 => {
            let mut buf = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            comm.broadcast(&mut buf, root, s).unwrap();
            let want = vals::<T>((0..count).map(|i| of(root, i)));
            assert_eq!(buf.to_vec(s).unwrap(), want, "{ctx}");
        }
        3 => {
            let send = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut out = DeviceBuffer::<T>::zeroed(s, count).unwrap();
            let recv: Option<&mut dyn nccl_safe::AsDeviceViewMut<T>> =
                (rank == root).then_some(&mut out as _);
            comm.reduce(&send, recv, red(r), root, s).unwrap();
            if rank == root {
                let want = vals::<T>((0..count).map(|i| fold(r, (0..n).map(|p| of(p, i)))));
                assert_eq!(out.to_vec(s).unwrap(), want, "{ctx}");
            }
        }
        4 => {
            let send = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut recv = DeviceBuffer::<T>::zeroed(s, n * count).unwrap();
            comm.all_gather(&send, &mut recv, s).unwrap();
            let want = vals::<T>((0..n).flat_map(|p| (0..count).map(move |i| of(p, i))));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        5 => {
            let send = DeviceBuffer::from_slice(s, &mine(n * count)).unwrap();
            let mut recv = DeviceBuffer::<T>::zeroed(s, count).unwrap();
            comm.reduce_scatter(&send, &mut recv, red(r), s).unwrap();
            let want =
                vals::<T>((0..count).map(|i| fold(r, (0..n).map(|p| of(p, rank * count + i)))));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        6 => {
            let send = DeviceBuffer::from_slice(s, &mine(n * count)).unwrap();
            let mut recv = DeviceBuffer::<T>::zeroed(s, n * count).unwrap();
            comm.all_to_all(&send, &mut recv, s).unwrap();
            let want =
                vals::<T>((0..n).flat_map(|p| (0..count).map(move |i| of(p, rank * count + i))));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        7 => {
            let send = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut out = DeviceBuffer::<T>::zeroed(s, n * count).unwrap();
            let recv: Option<&mut dyn nccl_safe::AsDeviceViewMut<T>> =
                (rank == root).then_some(&mut out as _);
            comm.gather(&send, recv, root, s).unwrap();
            if rank == root {
                let want = vals::<T>((0..n).flat_map(|p| (0..count).map(move |i| of(p, i))));
                assert_eq!(out.to_vec(s).unwrap(), want, "{ctx}");
            }
        }
        8 => {
            let src = DeviceBuffer::from_slice(s, &mine(n * count)).unwrap();
            let send: Option<&dyn nccl_safe::AsDeviceView<T>> = (rank == root).then_some(&src as _);
            let mut recv = DeviceBuffer::<T>::zeroed(s, count).unwrap();
            comm.scatter(send, &mut recv, root, s).unwrap();
            let want = vals::<T>((0..count).map(|i| of(root, rank * count + i)));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        9 => {
            // A ring of sends and receives in one group.
            let (next, prev) = ((rank + 1) % n, (rank + n - 1) % n);
            let send = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut recv = DeviceBuffer::<T>::zeroed(s, count).unwrap();
            group(|_| {
                comm.send(&send, next, s)?;
                comm.recv(&mut recv, prev, s)
            })
            .unwrap();
            let want = vals::<T>((0..count).map(|i| of(prev, i)));
            assert_eq!(recv.to_vec(s).unwrap(), want, "{ctx}");
        }
        _ => {
            // Two all-reduces fused in one group, the second of another count (zero
            // when the first is not, and the other way round).
            let other = if count == 0 { 3 } else { 0 };
            let mut a = DeviceBuffer::from_slice(s, &mine(count)).unwrap();
            let mut b = DeviceBuffer::from_slice(s, &mine(other)).unwrap();
            group(|_| {
                comm.all_reduce_in_place(&mut a, red(r), s)?;
                comm.all_reduce_in_place(&mut b, red(r), s)
            })
            .unwrap();
            for (buf, len) in [(&a, count), (&b, other)] {
                let want = vals::<T>((0..len).map(|i| fold(r, (0..n).map(|p| of(p, i)))));
                assert_eq!(buf.to_vec(s).unwrap(), want, "{ctx}");
            }
        }
    }
}

fn workload(rank: usize, n: usize, dev: &Device, comm: &Communicator, steps: usize) -> usize {
    let s = Stream::new(dev).unwrap();
    let mut rng = Rng(0x5eed);
    let mut zeros = 0;
    for k in 0..steps {
        let what = rng.below(11);
        let count = if rng.below(4) == 0 {
            0
        } else {
            1 + rng.below(48)
        };
        zeros += usize::from(count == 0);
        let r = [Red::Sum, Red::Max, Red::Min][rng.below(3)];
        let root = rng.below(n as u64);
        match rng.below(4) {
            0 => step::<i32>(k, what, count, r, root, rank, n, comm, &s),
            1 => step::<f32>(k, what, count, r, root, rank, n, comm, &s),
            2 => step::<u8>(k, what, count, r, root, rank, n, comm, &s),
            _ => step::<i64>(k, what, count, r, root, rank, n, comm, &s),
        }
    }
    s.synchronize().unwrap();
    zeros
}

#[test]
fn two_thousand_mixed_collectives_on_eight_ranks_with_empty_ones_match_the_model() {
    const N: usize = 8;
    let id = UniqueId::random();
    let ranks: Vec<_> = (0..N)
        .map(|rank| {
            thread::spawn(move || {
                let dev = Device::sim(rank).unwrap();
                let comm = Communicator::init(&dev, rank, N, &id, &Config::new()).unwrap();
                let zeros = workload(rank, N, &dev, &comm, 2000);
                comm.close().unwrap();
                zeros
            })
        })
        .collect();
    let zeros: Vec<usize> = ranks.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(
        zeros[0] > 300,
        "the workload has empty operations: {zeros:?}"
    );
}

/// Each kind with count 0 on `n` ranks, then a real all-reduce on the same stream: the
/// empty ones must neither fail the stream nor shift the positions.
fn empty_operations(driver: DriverKind, n: usize) {
    let id = match driver {
        DriverKind::Sim => UniqueId::random(),
        DriverKind::Cuda => UniqueId::new().unwrap(),
    };
    let ranks: Vec<_> = (0..n)
        .map(|rank| {
            thread::spawn(move || {
                let dev = Device::with_driver(driver, rank).unwrap();
                let comm = Communicator::init(&dev, rank, n, &id, &Config::new()).unwrap();
                let s = Stream::new(&dev).unwrap();
                for what in 0..11 {
                    step::<f32>(what, what, 0, Red::Sum, n - 1, rank, n, &comm, &s);
                    s.synchronize().unwrap();
                }
                // Outside a group an empty send and its receive still pair.
                if n == 2 {
                    let e = DeviceBuffer::<u8>::zeroed(&s, 0).unwrap();
                    let mut f = DeviceBuffer::<u8>::zeroed(&s, 0).unwrap();
                    if rank == 0 {
                        comm.send(&e, 1, &s).unwrap();
                    } else {
                        comm.recv(&mut f, 0, &s).unwrap();
                    }
                    s.synchronize().unwrap();
                }
                assert_eq!(comm.outstanding(), 0);
                step::<i32>(99, 1, 5, Red::Sum, 0, rank, n, &comm, &s);
                s.synchronize().unwrap();
            })
        })
        .collect();
    for h in ranks {
        h.join().unwrap();
    }
}

#[test]
fn every_empty_collective_and_message_is_a_no_op_that_leaves_the_stream_usable() {
    for n in 1..=3 {
        empty_operations(DriverKind::Sim, n);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_every_empty_collective_is_a_no_op_that_leaves_the_stream_usable() {
    empty_operations(DriverKind::Cuda, 1);
}
