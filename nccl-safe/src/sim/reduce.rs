//! Typed arithmetic on raw little-endian bytes: the reductions of collectives (in a
//! permuted rank order, as NCCL's rings and trees add in varying orders), PreMulSum,
//! and the built-in elementwise ops.

use crate::base::op::RedOp;
use crate::base::types::Elementwise;
use crate::{DType, DataType};

/// Writes into `p` (its contents replaced) a permutation of `0..n` that depends on the
/// collective's position: reductions add ranks in a shuffled order, as NCCL's trees
/// and rings do.
pub(super) fn permutation_into(n: usize, seed: u64, p: &mut Vec<usize>) {
    p.clear();
    p.extend(0..n);
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p.swap(i, (x % (i as u64 + 1)) as usize);
    }
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
            DType::F8E4M3 => $f::<crate::F8E4M3>($($args),*),
            DType::F8E5M2 => $f::<crate::F8E5M2>($($args),*),
        }
    };
}

/// How a reduction combines (a copy of `RedOp` without the scalar's bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Combine {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
    /// Each input times its own rank's scalar, then summed.
    PreMulSum,
}

impl Combine {
    pub(super) fn of(op: &RedOp) -> Combine {
        match op {
            RedOp::Prod => Combine::Prod,
            RedOp::Max => Combine::Max,
            RedOp::Min => Combine::Min,
            RedOp::Avg => Combine::Avg,
            RedOp::PreMulSumHost(_) | RedOp::PreMulSumDevice => Combine::PreMulSum,
            RedOp::Sum | RedOp::None => Combine::Sum,
        }
    }
}

/// Views private, 8-byte aligned scratch as elements of `T`.
fn typed<T: DataType>(bytes: &mut [u8]) -> &mut [T] {
    let size = std::mem::size_of::<T>();
    assert!(
        bytes.as_ptr().align_offset(std::mem::align_of::<T>()) == 0 && bytes.len() % size == 0,
        "scratch is aligned and whole elements"
    );
    // SAFETY: aligned for `T` and a whole number of elements (checked above); every
    // `DataType` is a plain number for which any bit pattern is a valid value (the
    // trait is sealed to such types), and the host is little-endian like the device
    // layout (checked at compile time in `sim/mod.rs`).
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), bytes.len() / size) }
}

fn accumulate_t<T: DataType>(
    op: Combine,
    acc: &mut [u8],
    x: &mut [u8],
    first: bool,
    n: usize,
    scalar: u64,
) {
    let (acc, x) = (typed::<T>(acc), typed::<T>(x));
    let scale = T::read_le(&scalar.to_le_bytes()[..T::DTYPE.size()]);
    // Each input's own transformation first (PreMulSum's scalar, a float average's
    // division), then the fold: one tight loop per case, so that it vectorizes.
    match op {
        Combine::PreMulSum => x.iter_mut().for_each(|v| *v = v.mul(scale)),
        Combine::Avg if T::DTYPE.is_float() => x.iter_mut().for_each(|v| *v = v.div_count(n)),
        _ => {}
    }
    if first {
        acc.copy_from_slice(x);
        return;
    }
    let pairs = acc.iter_mut().zip(x.iter());
    match op {
        Combine::Prod => pairs.for_each(|(a, v)| *a = a.mul(*v)),
        Combine::Max => pairs.for_each(|(a, v)| {
            if *v > *a {
                *a = *v
            }
        }),
        Combine::Min => pairs.for_each(|(a, v)| {
            if *v < *a {
                *a = *v
            }
        }),
        Combine::Sum | Combine::Avg | Combine::PreMulSum => pairs.for_each(|(a, v)| *a = a.add(*v)),
    }
}

/// Folds the input block `x` into `acc` (element-wise, both the same length and
/// 8-byte aligned): `first` starts the fold. `n` is the number of ranks (for averages),
/// `scalar` the input's rank's PreMulSum scalar (its little-endian bytes).
pub(super) fn accumulate(
    dtype: DType,
    op: Combine,
    acc: &mut [u8],
    x: &mut [u8],
    first: bool,
    n: usize,
    scalar: u64,
) {
    with_type!(dtype, accumulate_t, op, acc, x, first, n, scalar)
}

fn finish_t<T: DataType>(op: Combine, acc: &mut [u8], n: usize) {
    if op == Combine::Avg && !T::DTYPE.is_float() {
        for a in typed::<T>(acc) {
            *a = a.div_count(n);
        }
    }
}

/// Completes a fold: integer averages divide the sum (floats divided each input).
pub(super) fn finish(dtype: DType, op: Combine, acc: &mut [u8], n: usize) {
    with_type!(dtype, finish_t, op, acc, n)
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
        let permutation = |n, seed| {
            let mut p = vec![99; 3]; // replaced, whatever it held
            permutation_into(n, seed, &mut p);
            p
        };
        for seed in 0..50 {
            let mut p = permutation(7, seed);
            p.sort_unstable();
            assert_eq!(p, (0..7).collect::<Vec<_>>());
        }
        assert_ne!(permutation(8, 1), permutation(8, 2));
    }
}
