//! Every collective checked against a host reference written apart from the drivers,
//! shared by the in-process (threads) and the multi-process tests.
#![allow(dead_code)]

use nccl_safe::half::{bf16, f16};
use nccl_safe::{Communicator, DataType, Device, DeviceBuffer, ReduceOp, Stream, group};

/// The input element `i` of rank `r`: small, so that sums and products of up to 8
/// ranks stay exact or close in every type.
pub fn input(r: usize, i: usize) -> i64 {
    ((r * 5 + i * 3) % 3 + 1) as i64
}

fn close<T: DataType>(a: T, b: T) -> bool {
    let (x, y) = (a.to_f64(), b.to_f64());
    let tol = match T::DTYPE {
        nccl_safe::DType::F16 => 0.01,
        nccl_safe::DType::BF16 => 0.05,
        nccl_safe::DType::F32 => 1e-5,
        nccl_safe::DType::F64 => 1e-12,
        _ => return a == b,
    };
    (x - y).abs() <= tol * x.abs().max(y.abs()) + tol || (x.is_nan() && y.is_nan())
}

pub fn assert_close<T: DataType>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w), "{what}: element {i}: got {g:?}, want {w:?}");
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Op {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
    PreMul,
}

pub const OPS: [Op; 6] = [Op::Sum, Op::Prod, Op::Max, Op::Min, Op::Avg, Op::PreMul];

/// The reference reduction over ranks `0..n` of element `i`, written independently of
/// the sim (rank order, f64 for float averages).
pub fn reference<T: DataType>(op: Op, n: usize, i: usize) -> T {
    let x = |r: usize| T::from_i64(input(r, i));
    let scalar = |r: usize| T::from_i64(r as i64 + 1);
    match op {
        Op::Sum => (1..n).fold(x(0), |a, r| a.add(x(r))),
        Op::Prod => (1..n).fold(x(0), |a, r| a.mul(x(r))),
        Op::Max => (1..n).map(x).fold(x(0), |a, b| if b > a { b } else { a }),
        Op::Min => (1..n).map(x).fold(x(0), |a, b| if b < a { b } else { a }),
        Op::Avg if T::DTYPE.is_float() => {
            let sum: i64 = (0..n).map(|r| input(r, i)).sum();
            T::from_i64(sum).div_count(n)
        }
        Op::Avg => (1..n).fold(x(0), |a, r| a.add(x(r))).div_count(n),
        Op::PreMul => (1..n).fold(x(0).mul(scalar(0)), |a, r| a.add(x(r).mul(scalar(r)))),
    }
}

pub fn reduce_op<T: DataType>(op: Op, rank: usize) -> ReduceOp<'static, T> {
    match op {
        Op::Sum => ReduceOp::Sum,
        Op::Prod => ReduceOp::Prod,
        Op::Max => ReduceOp::Max,
        Op::Min => ReduceOp::Min,
        Op::Avg => ReduceOp::Avg,
        Op::PreMul => ReduceOp::PreMulSum(T::from_i64(rank as i64 + 1)),
    }
}

/// Every collective on type `T` on this rank, checked against the reference.
pub fn check_all<T: DataType>(rank: usize, dev: &Device, comm: &Communicator, count: usize) {
    let n = comm.size();
    let s = Stream::new(dev).unwrap();
    let t = T::DTYPE;
    let mine: Vec<T> = (0..count).map(|i| T::from_i64(input(rank, i))).collect();
    let send = DeviceBuffer::from_slice(&s, &mine).unwrap();

    for op in OPS {
        let want: Vec<T> = (0..count).map(|i| reference::<T>(op, n, i)).collect();
        // all_reduce, out of place and in place
        let mut recv = DeviceBuffer::<T>::alloc(dev, count).unwrap();
        comm.all_reduce(&send, &mut recv, reduce_op(op, rank), &s)
            .unwrap();
        assert_close(
            &recv.to_vec(&s).unwrap(),
            &want,
            &format!("all_reduce {op:?} {t} n={n}"),
        );
        let mut inplace = DeviceBuffer::from_slice(&s, &mine).unwrap();
        comm.all_reduce_in_place(&mut inplace, reduce_op(op, rank), &s)
            .unwrap();
        assert_close(
            &inplace.to_vec(&s).unwrap(),
            &want,
            &format!("all_reduce in place {op:?} {t}"),
        );
        // reduce to the last rank
        let root = n - 1;
        let mut out = DeviceBuffer::<T>::zeroed(&s, count).unwrap();
        comm.reduce(
            &send,
            if rank == root { Some(&mut out) } else { None },
            reduce_op(op, rank),
            root,
            &s,
        )
        .unwrap();
        if rank == root {
            assert_close(
                &out.to_vec(&s).unwrap(),
                &want,
                &format!("reduce {op:?} {t}"),
            );
        }
        // reduce_scatter: each rank contributes n blocks; block b of rank r is
        // mine shifted, and rank r receives the reduction of block r.
        let big: Vec<T> = (0..n * count)
            .map(|i| T::from_i64(input(rank, i)))
            .collect();
        let big_send = DeviceBuffer::from_slice(&s, &big).unwrap();
        let mut part = DeviceBuffer::<T>::alloc(dev, count).unwrap();
        comm.reduce_scatter(&big_send, &mut part, reduce_op(op, rank), &s)
            .unwrap();
        let want_part: Vec<T> = (0..count)
            .map(|i| reference::<T>(op, n, rank * count + i))
            .collect();
        assert_close(
            &part.to_vec(&s).unwrap(),
            &want_part,
            &format!("reduce_scatter {op:?} {t}"),
        );
        let mut whole = DeviceBuffer::from_slice(&s, &big).unwrap();
        comm.reduce_scatter_in_place(&mut whole, reduce_op(op, rank), &s)
            .unwrap();
        let got = whole
            .view(rank * count..(rank + 1) * count)
            .unwrap()
            .to_vec(&s)
            .unwrap();
        assert_close(
            &got,
            &want_part,
            &format!("reduce_scatter in place {op:?} {t}"),
        );
    }

    // broadcast from rank 0
    let mut b = DeviceBuffer::from_slice(&s, &mine).unwrap();
    comm.broadcast(&mut b, 0, &s).unwrap();
    let root_data: Vec<T> = (0..count).map(|i| T::from_i64(input(0, i))).collect();
    assert_eq!(b.to_vec(&s).unwrap(), root_data, "broadcast {t}");

    // all_gather, out of place and in place
    let all: Vec<T> = (0..n)
        .flat_map(|r| (0..count).map(move |i| T::from_i64(input(r, i))))
        .collect();
    let mut gathered = DeviceBuffer::<T>::alloc(dev, n * count).unwrap();
    comm.all_gather(&send, &mut gathered, &s).unwrap();
    assert_eq!(gathered.to_vec(&s).unwrap(), all, "all_gather {t}");
    let mut g2 = DeviceBuffer::<T>::zeroed(&s, n * count).unwrap();
    g2.view_mut(rank * count..(rank + 1) * count)
        .unwrap()
        .copy_from_slice(&s, &mine)
        .unwrap();
    comm.all_gather_in_place(&mut g2, &s).unwrap();
    assert_eq!(g2.to_vec(&s).unwrap(), all, "all_gather in place {t}");

    // all_to_all: block p of my send is input(rank, p*count + i)
    let a2a_send: Vec<T> = (0..n * count)
        .map(|i| T::from_i64(input(rank, i) + 10 * rank as i64))
        .collect();
    let a2a_buf = DeviceBuffer::from_slice(&s, &a2a_send).unwrap();
    let mut a2a_recv = DeviceBuffer::<T>::alloc(dev, n * count).unwrap();
    comm.all_to_all(&a2a_buf, &mut a2a_recv, &s).unwrap();
    let want_a2a: Vec<T> = (0..n)
        .flat_map(|p| {
            (0..count).map(move |i| T::from_i64(input(p, rank * count + i) + 10 * p as i64))
        })
        .collect();
    assert_eq!(a2a_recv.to_vec(&s).unwrap(), want_a2a, "all_to_all {t}");

    // gather to rank 0, scatter from rank 0
    let mut gat = DeviceBuffer::<T>::zeroed(&s, n * count).unwrap();
    comm.gather(&send, if rank == 0 { Some(&mut gat) } else { None }, 0, &s)
        .unwrap();
    if rank == 0 {
        assert_eq!(gat.to_vec(&s).unwrap(), all, "gather {t}");
    }
    let sc_src = DeviceBuffer::from_slice(&s, &all).unwrap();
    let mut sc = DeviceBuffer::<T>::alloc(dev, count).unwrap();
    comm.scatter(if rank == 0 { Some(&sc_src) } else { None }, &mut sc, 0, &s)
        .unwrap();
    assert_eq!(sc.to_vec(&s).unwrap(), mine, "scatter {t}");

    // send/recv around a ring, in a group
    let (next, prev) = ((rank + 1) % n, (rank + n - 1) % n);
    let mut got = DeviceBuffer::<T>::alloc(dev, count).unwrap();
    group(|_| {
        comm.send(&send, next, &s)?;
        comm.recv(&mut got, prev, &s)
    })
    .unwrap();
    let want_prev: Vec<T> = (0..count).map(|i| T::from_i64(input(prev, i))).collect();
    assert_eq!(got.to_vec(&s).unwrap(), want_prev, "send/recv ring {t}");
}

pub fn check_every_type(rank: usize, dev: &Device, comm: &Communicator, count: usize) {
    check_all::<i8>(rank, dev, comm, count);
    check_all::<u8>(rank, dev, comm, count);
    check_all::<i32>(rank, dev, comm, count);
    check_all::<u32>(rank, dev, comm, count);
    check_all::<i64>(rank, dev, comm, count);
    check_all::<u64>(rank, dev, comm, count);
    check_all::<f16>(rank, dev, comm, count);
    check_all::<bf16>(rank, dev, comm, count);
    check_all::<f32>(rank, dev, comm, count);
    check_all::<f64>(rank, dev, comm, count);
}
