//! Typed arithmetic on raw little-endian bytes: the reductions of collectives (in a
//! permuted rank order, as NCCL's rings and trees add in varying orders), PreMulSum,
//! and the built-in elementwise ops.

use crate::comm::op::{Kind, OpDesc, RedOp};
use crate::driver::types::Elementwise;
use crate::{DType, DataType};

/// A permutation of `0..n` that depends on the collective's position: reductions add
/// ranks in a shuffled order, as NCCL's trees and rings do.
pub(super) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p.swap(i, (x % (i as u64 + 1)) as usize);
    }
    p
}

macro_rules! with_type {
    ($dtype:expr, $f:ident, $($args:expr),*) => {
        match $dtype {
            DType::I8 => $f::<i8>($($args),*),
            DType::U8 => $f::<u8>($($args),*),
            DType::I32 => $f::<i32>($($args),*),
            DType::U32 => $f::<u32>($($args),*),
            DType::I64 => $f::<i64>($($args),*),
            DType::U64 => $f::<u64>($($args),*),
            DType::F32 => $f::<f32>($($args),*),
            DType::F64 => $f::<f64>($($args),*),
            DType::F16 => $f::<half::f16>($($args),*),
            DType::BF16 => $f::<half::bf16>($($args),*),
        }
    };
}

fn premultiply_t<T: DataType>(data: &mut [u8], scalar: &[u8]) {
    let s = T::read_le(scalar);
    for chunk in data.chunks_exact_mut(T::DTYPE.size()) {
        T::read_le(chunk).mul(s).write_le(chunk);
    }
}

pub(super) fn premultiply(dtype: DType, data: &mut [u8], scalar: &[u8]) {
    with_type!(dtype, premultiply_t, data, scalar)
}

/// Reduces `inputs` (equal lengths) elementwise in rank order `order`.
fn reduce_t<T: DataType>(op: &RedOp, inputs: &[&[u8]], order: &[usize], n: usize) -> Vec<u8> {
    let size = T::DTYPE.size();
    let len = inputs.first().map_or(0, |i| i.len());
    let mut out = vec![0u8; len];
    for (e, chunk) in out.chunks_exact_mut(size).enumerate() {
        let at = |r: usize| T::read_le(&inputs[r][e * size..(e + 1) * size]);
        let prep = |x: T| match op {
            RedOp::Avg if T::DTYPE.is_float() => x.div_count(n),
            _ => x,
        };
        let mut acc = prep(at(order[0]));
        for &r in &order[1..] {
            let x = prep(at(r));
            acc = match op {
                RedOp::Prod => acc.mul(x),
                RedOp::Max => {
                    if x > acc {
                        x
                    } else {
                        acc
                    }
                }
                RedOp::Min => {
                    if x < acc {
                        x
                    } else {
                        acc
                    }
                }
                _ => acc.add(x),
            };
        }
        if matches!(op, RedOp::Avg) && !T::DTYPE.is_float() {
            acc = acc.div_count(n);
        }
        acc.write_le(chunk);
    }
    out
}

fn reduce(dtype: DType, op: &RedOp, inputs: &[&[u8]], order: &[usize], n: usize) -> Vec<u8> {
    with_type!(dtype, reduce_t, op, inputs, order, n)
}

/// Every rank's output of a collective from every rank's input.
pub(super) fn compute(
    descs: &[&OpDesc],
    inputs: &[&[u8]],
    size: usize,
    seq: u64,
) -> Vec<Option<Vec<u8>>> {
    let d = descs[0];
    let esz = d.dtype.size();
    let block = d.count * esz;
    let order = permutation(size, seq);
    let root = d.root.unwrap_or(0);
    match d.kind {
        Kind::AllReduce => {
            let r = reduce(d.dtype, &d.op, inputs, &order, size);
            vec![Some(r); size]
        }
        Kind::Reduce => {
            let r = reduce(d.dtype, &d.op, inputs, &order, size);
            (0..size).map(|i| (i == root).then(|| r.clone())).collect()
        }
        Kind::Broadcast => vec![Some(inputs[root].to_vec()); size],
        Kind::AllGather => vec![Some(inputs.concat()); size],
        Kind::Gather => {
            let all = inputs.concat();
            (0..size)
                .map(|i| (i == root).then(|| all.clone()))
                .collect()
        }
        Kind::ReduceScatter => {
            let r = reduce(d.dtype, &d.op, inputs, &order, size);
            (0..size)
                .map(|i| Some(r[i * block..(i + 1) * block].to_vec()))
                .collect()
        }
        Kind::Scatter => (0..size)
            .map(|i| Some(inputs[root][i * block..(i + 1) * block].to_vec()))
            .collect(),
        Kind::AllToAll => (0..size)
            .map(|i| {
                Some(
                    (0..size)
                        .flat_map(|s| inputs[s][i * block..(i + 1) * block].iter().copied())
                        .collect(),
                )
            })
            .collect(),
        Kind::Send | Kind::Recv => vec![None; size],
    }
}

fn elementwise_t<T: DataType>(op: Elementwise, data: &mut [u8], scalar: &[u8]) {
    let s = T::read_le(scalar);
    for chunk in data.chunks_exact_mut(T::DTYPE.size()) {
        let x = T::read_le(chunk);
        match op {
            Elementwise::AddScalar => x.add(s),
            Elementwise::Scale => x.mul(s),
        }
        .write_le(chunk);
    }
}

/// Applies `op` with the scalar `scalar` (one element's bytes) to every element of
/// `data`.
pub(super) fn elementwise(op: Elementwise, dtype: DType, data: &mut [u8], scalar: &[u8]) {
    with_type!(dtype, elementwise_t, op, data, scalar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_permutations() {
        for seed in 0..50 {
            let mut p = permutation(7, seed);
            p.sort_unstable();
            assert_eq!(p, (0..7).collect::<Vec<_>>());
        }
        assert_ne!(permutation(8, 1), permutation(8, 2));
    }
}
