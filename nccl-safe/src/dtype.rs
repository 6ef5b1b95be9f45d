//! Element types that live in device buffers and that NCCL reduces.

use std::fmt;

use nccl_sys as sys;

/// The element types NCCL knows, as run-time values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `i8` (`ncclInt8`).
    I8,
    /// `u8` (`ncclUint8`).
    U8,
    /// `i32` (`ncclInt32`).
    I32,
    /// `u32` (`ncclUint32`).
    U32,
    /// `i64` (`ncclInt64`).
    I64,
    /// `u64` (`ncclUint64`).
    U64,
    /// IEEE half precision (`ncclFloat16`).
    F16,
    /// bfloat16 (`ncclBfloat16`).
    BF16,
    /// `f32` (`ncclFloat32`).
    F32,
    /// `f64` (`ncclFloat64`).
    F64,
    /// fp8 E4M3 (`ncclFloat8e4m3`, NCCL 2.24+): [`F8E4M3`](crate::F8E4M3).
    F8E4M3,
    /// fp8 E5M2 (`ncclFloat8e5m2`, NCCL 2.24+): [`F8E5M2`](crate::F8E5M2).
    F8E5M2,
}

impl DType {
    /// The types of every NCCL 2.x release, in NCCL's order (the fp8 types, which
    /// need NCCL 2.24, are in [`DType::FP8`]; [`DType::EVERY`] has both).
    pub const ALL: [DType; 10] = [
        DType::I8,
        DType::U8,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::BF16,
    ];

    /// The fp8 types (NCCL 2.24 and later).
    pub const FP8: [DType; 2] = [DType::F8E4M3, DType::F8E5M2];

    /// Every type, in NCCL's order.
    pub const EVERY: [DType; 12] = [
        DType::I8,
        DType::U8,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::BF16,
        DType::F8E4M3,
        DType::F8E5M2,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::F8E4M3 | DType::F8E5M2 => 1,
            DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// NCCL's `ncclDataType_t` for this type.
    pub const fn to_nccl(self) -> sys::ncclDataType_t {
        match self {
            DType::I8 => sys::ncclInt8,
            DType::U8 => sys::ncclUint8,
            DType::I32 => sys::ncclInt32,
            DType::U32 => sys::ncclUint32,
            DType::I64 => sys::ncclInt64,
            DType::U64 => sys::ncclUint64,
            DType::F16 => sys::ncclFloat16,
            DType::BF16 => sys::ncclBfloat16,
            DType::F32 => sys::ncclFloat32,
            DType::F64 => sys::ncclFloat64,
            // The values nccl.h gives them since 2.24, written out so that the
            // bindings of an older header still build.
            DType::F8E4M3 => 10,
            DType::F8E5M2 => 11,
        }
    }

    /// Whether this is a floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::F8E4M3 | DType::F8E5M2
        )
    }

    /// The bits that are all set exactly in a value that is not finite (NaN or
    /// infinity); `None` for integers. fp8 E4M3 has no
    /// infinity: its NaN is the one pattern with every exponent and mantissa bit set.
    pub(crate) const fn non_finite_mask(self) -> Option<u64> {
        match self {
            DType::F16 => Some(0x7c00),
            DType::BF16 => Some(0x7f80),
            DType::F32 => Some(0x7f80_0000),
            DType::F64 => Some(0x7ff0_0000_0000_0000),
            DType::F8E4M3 => Some(0x7f),
            DType::F8E5M2 => Some(0x7c),
            _ => None,
        }
    }

    /// The Rust name of the type.
    pub const fn name(self) -> &'static str {
        match self {
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A type that device buffers hold and NCCL reduces: `i8 u8 i32 u32 i64 u64 f32 f64`,
/// `half::f16` / `half::bf16` (re-exported as `nccl_safe::half`), and the fp8 types
/// [`F8E4M3`](crate::F8E4M3) / [`F8E5M2`](crate::F8E5M2) (NCCL 2.24+). Sealed:
/// every implementation must match an NCCL type bit for bit. There is no `char`.
///
/// The arithmetic methods define what the elementwise ops compute, on every driver:
/// integers wrap, floats round to nearest even.
pub trait DataType:
    sealed::Sealed + Copy + Default + PartialEq + PartialOrd + fmt::Debug + Send + Sync + 'static
{
    /// The run-time tag of this type.
    const DTYPE: DType;

    /// `self + rhs` as the elementwise ops compute it.
    fn add(self, rhs: Self) -> Self;

    /// `self * rhs` as the elementwise ops compute it.
    fn mul(self, rhs: Self) -> Self;

    /// `self / n`, as NCCL's `Avg` finishes integer sums (truncating); floats
    /// multiply by `1/n`.
    fn div_count(self, n: usize) -> Self;

    /// Little-endian bytes of the value (`DTYPE.size()` of them).
    fn write_le(self, out: &mut [u8]);

    /// The value from its little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;

    /// Converts from a small integer, for tests and examples (`ranks`, counts).
    fn from_i64(v: i64) -> Self;

    /// The value as `f64`, for comparisons with tolerances.
    fn to_f64(self) -> f64;
}

/// A plain numeric `DataType`: `$add` and `$mul` name the arithmetic (wrapping for
/// integers, IEEE for floats).
macro_rules! numeric_type {
    ($t:ty, $d:ident, $add:path, $mul:path, $div:expr) => {
        impl sealed::Sealed for $t {}
        impl DataType for $t {
            const DTYPE: DType = DType::$d;
            fn add(self, rhs: Self) -> Self {
                $add(self, rhs)
            }
            fn mul(self, rhs: Self) -> Self {
                $mul(self, rhs)
            }
            fn div_count(self, n: usize) -> Self {
                let div: fn($t, usize) -> $t = $div;
                div(self, n)
            }
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(bytes);
                <$t>::from_le_bytes(a)
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

numeric_type!(i8, I8, i8::wrapping_add, i8::wrapping_mul, |x, n| x
    .wrapping_div(n as i8));
numeric_type!(u8, U8, u8::wrapping_add, u8::wrapping_mul, |x, n| x
    .wrapping_div(n as u8));
numeric_type!(i32, I32, i32::wrapping_add, i32::wrapping_mul, |x, n| x
    .wrapping_div(n as i32));
numeric_type!(u32, U32, u32::wrapping_add, u32::wrapping_mul, |x, n| x
    .wrapping_div(n as u32));
numeric_type!(i64, I64, i64::wrapping_add, i64::wrapping_mul, |x, n| x
    .wrapping_div(n as i64));
numeric_type!(u64, U64, u64::wrapping_add, u64::wrapping_mul, |x, n| x
    .wrapping_div(n as u64));
numeric_type!(f32, F32, std::ops::Add::add, std::ops::Mul::mul, |x, n| x
    * (1.0 / n as f32));
numeric_type!(f64, F64, std::ops::Add::add, std::ops::Mul::mul, |x, n| x
    * (1.0 / n as f64));

macro_rules! half_type {
    ($t:ty, $d:ident) => {
        impl sealed::Sealed for $t {}
        impl DataType for $t {
            const DTYPE: DType = DType::$d;
            // Computed in f32 and rounded once to nearest even: what the cuda kernels
            // do, and exact for one add or mul (f32 carries more than twice the bits).
            fn add(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() + rhs.to_f32())
            }
            fn mul(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() * rhs.to_f32())
            }
            fn div_count(self, n: usize) -> Self {
                <$t>::from_f32(self.to_f32() * (1.0 / n as f32))
            }
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes([bytes[0], bytes[1]])
            }
            fn from_i64(v: i64) -> Self {
                <$t>::from_f64(v as f64)
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
        }
    };
}

half_type!(half::f16, F16);
half_type!(half::bf16, BF16);

/// Bytes of `values` in little-endian order.
#[cfg(test)]
fn to_bytes<T: DataType>(values: &[T]) -> Vec<u8> {
    let size = T::DTYPE.size();
    let mut out = vec![0u8; values.len() * size];
    for (v, chunk) in values.iter().zip(out.chunks_exact_mut(size)) {
        v.write_le(chunk);
    }
    out
}

/// Values from little-endian bytes.
#[cfg(test)]
fn from_bytes<T: DataType>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(T::DTYPE.size())
        .map(T::read_le)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_rust_and_nccl() {
        assert_eq!(DType::I8.size(), std::mem::size_of::<i8>());
        assert_eq!(DType::F64.size(), std::mem::size_of::<f64>());
        assert_eq!(DType::ALL.len(), 10);
        let codes: std::collections::HashSet<_> =
            DType::EVERY.iter().map(|d| d.to_nccl()).collect();
        assert_eq!(codes.len(), 12, "distinct NCCL codes");
        assert_eq!(DType::F8E4M3.to_nccl(), sys::ncclFloat8e4m3);
        assert_eq!(DType::F8E5M2.to_nccl(), sys::ncclFloat8e5m2);
        for (i, d) in DType::EVERY.iter().enumerate() {
            assert_eq!(d.to_nccl() as usize, i, "{d} in NCCL's order");
        }
    }

    #[test]
    fn float_math_is_ieee() {
        assert_eq!(DataType::add(1.5f32, 2.25), 3.75);
        assert_eq!(DataType::mul(-3.0f64, 0.5), -1.5);
    }

    #[test]
    fn integer_math_wraps_like_the_gpu() {
        assert_eq!(DataType::add(i8::MAX, 1), i8::MIN);
        assert_eq!(DataType::mul(200u8, 2), 144);
        assert_eq!(DataType::add(u64::MAX, 2), 1);
    }

    #[test]
    fn half_types_round_through_f32() {
        let a = half::f16::from_f32(1.0);
        assert_eq!(DataType::add(a, half::f16::from_f32(0.5)).to_f32(), 1.5);
        let b = half::bf16::from_f32(3.0);
        assert_eq!(DataType::mul(b, half::bf16::from_f32(2.0)).to_f32(), 6.0);
        let bytes = to_bytes(&[a, a]);
        assert_eq!(from_bytes::<half::f16>(&bytes), vec![a, a]);
    }
}
