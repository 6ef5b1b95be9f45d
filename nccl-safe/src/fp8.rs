//! The 8-bit float element types [`F8E4M3`] and [`F8E5M2`] (NCCL's `ncclFloat8e4m3`
//! and `ncclFloat8e5m2`, NCCL 2.24 and later): the OCP FP8 formats, with the
//! conversions and the arithmetic NCCL's kernels use.
//!
//! - **E4M3**: 1 sign, 4 exponent (bias 7), 3 mantissa bits. No infinity; NaN is
//!   `S.1111.111` (`0x7F`/`0xFF`); the largest finite value is 448 (`0x7E`); the
//!   smallest subnormal is 2^-9.
//! - **E5M2**: 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like: infinities
//!   `0x7C`/`0xFC`, NaNs `S.11111.xx` with `xx != 0`; the largest finite value is
//!   57344 (`0x7B`); the smallest subnormal is 2^-16.
//!
//! Conversions to fp8 round to nearest, ties to even, and **saturate**: a finite value
//! beyond the largest finite one, or an infinity, becomes the largest finite value of
//! its sign. That is CUDA's `__NV_SATFINITE` mode, which the fp8 types of
//! `cuda_fp8.h` use in their constructors, and so what NCCL's fp8 reductions produce;
//! the OCP specification leaves saturation to the implementation. A NaN becomes the
//! NaN `S.1111111` (`0x7F` with the input's sign), for both formats.
//!
//! Arithmetic rounds once: the exact result of one add or multiply of two fp8 values
//! (exact in `f32`, where NCCL 2.27.3 and later accumulate every floating-point
//! reduction: "Floating point summation is always done in fp32 accumulators (with
//! the exception of fp8 on NVLS, where it uses fp16 inside the switch)", NCCL
//! 2.27.3 release notes) is rounded to nearest even and saturated. NCCL 2.24 to
//! 2.27.2 computed fp8 in `f16` (a second rounding, which can change the last bit
//! where the exact sum needs more than 11 significant bits). An average multiplies
//! each input by `1/n` converted to the fp8 type (NCCL's PreMulSum for floats).

use std::cmp::Ordering;
use std::fmt;

use crate::{DType, DataType};

/// One fp8 format's layout.
struct Format {
    /// Mantissa bits.
    man: i32,
    /// Exponent bias.
    bias: i32,
    /// The bits of the largest finite value.
    max_bits: u8,
    /// Whether the format has infinities (E5M2) or not (E4M3).
    has_inf: bool,
}

const E4M3: Format = Format {
    man: 3,
    bias: 7,
    max_bits: 0x7E,
    has_inf: false,
};
const E5M2: Format = Format {
    man: 2,
    bias: 15,
    max_bits: 0x7B,
    has_inf: true,
};

/// The NaN the conversions produce (before the sign).
const NAN_BITS: u8 = 0x7F;

impl Format {
    fn exp_field(&self, b: u8) -> i32 {
        i32::from((b & 0x7F) >> self.man)
    }

    fn mantissa(&self, b: u8) -> i32 {
        i32::from(b) & ((1 << self.man) - 1)
    }

    fn is_nan(&self, b: u8) -> bool {
        let top = (1 << (7 - self.man)) - 1;
        if self.has_inf {
            self.exp_field(b) == top && self.mantissa(b) != 0
        } else {
            b & 0x7F == 0x7F
        }
    }

    fn is_inf(&self, b: u8) -> bool {
        self.has_inf && self.exp_field(b) == (1 << (7 - self.man)) - 1 && self.mantissa(b) == 0
    }

    /// The exact value of `b`.
    fn decode(&self, b: u8) -> f64 {
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        if self.is_nan(b) {
            return f64::NAN.copysign(sign);
        }
        if self.is_inf(b) {
            return sign * f64::INFINITY;
        }
        let (e, m) = (self.exp_field(b), f64::from(self.mantissa(b)));
        let scale = f64::from(1u32 << self.man);
        if e == 0 {
            sign * m / scale * pow2(1 - self.bias)
        } else {
            sign * (1.0 + m / scale) * pow2(e - self.bias)
        }
    }

    /// `x` rounded to nearest even and saturated (see the module's documentation).
    fn encode(&self, x: f64) -> u8 {
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        if x.is_nan() {
            // One NaN pattern whatever the input's sign: the sign of a NaN is not
            // specified (a conversion may flip it), so it must not decide the bits.
            return NAN_BITS;
        }
        let a = x.abs();
        if a.is_infinite() {
            return sign | self.max_bits;
        }
        let min_exp = 1 - self.bias; // the exponent of the smallest normal value
        // Anything below 2^-60 rounds to zero in both formats; this also keeps the
        // exponent below well defined.
        if a < pow2(-60) {
            return sign;
        }
        let e = (((a.to_bits() >> 52) & 0x7FF) as i32 - 1023).max(min_exp);
        let ulp = pow2(e - self.man);
        // Exact: a division by a power of two, then an integer rounding.
        let mut n = (a / ulp).round_ties_even() as i32;
        let mut e = e;
        if n == 1 << (self.man + 1) {
            n >>= 1;
            e += 1;
        }
        if n == 0 {
            return sign;
        }
        if n < 1 << self.man {
            return sign | n as u8; // subnormal (e is min_exp)
        }
        let field = e + self.bias;
        let bits = (field << self.man) | (n - (1 << self.man));
        if bits > i32::from(self.max_bits) {
            return sign | self.max_bits;
        }
        sign | bits as u8
    }
}

macro_rules! fp8_type {
    ($(#[$doc:meta])* $name:ident, $fmt:ident, $label:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// The largest finite value.
            pub const MAX: $name = $name($fmt.max_bits);
            /// The NaN that conversions produce.
            pub const NAN: $name = $name(NAN_BITS);
            /// Zero.
            pub const ZERO: $name = $name(0);

            /// The value with these bits.
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits)
            }

            /// The bits.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// `x` rounded to nearest even, saturating (the module's rules).
            pub fn from_f32(x: f32) -> $name {
                $name($fmt.encode(f64::from(x)))
            }

            /// `x` rounded to nearest even (once), saturating.
            pub fn from_f64(x: f64) -> $name {
                $name($fmt.encode(x))
            }

            /// The value, exactly.
            pub fn to_f32(self) -> f32 {
                $fmt.decode(self.0) as f32
            }

            /// The value, exactly.
            pub fn to_f64(self) -> f64 {
                $fmt.decode(self.0)
            }

            /// Whether this is a NaN.
            pub fn is_nan(self) -> bool {
                $fmt.is_nan(self.0)
            }

            /// `f` of the two exact values, rounded once (the module's rules).
            fn round(self, rhs: $name, f: fn(f64, f64) -> f64) -> $name {
                // One add or mul of two fp8 values is exact in f64 (and in f32).
                $name::from_f64(f(self.to_f64(), rhs.to_f64()))
            }
        }

        impl PartialEq for $name {
            /// Numeric equality, as for `f32`: `-0 == +0`, NaN is never equal.
            fn eq(&self, other: &$name) -> bool {
                self.to_f64() == other.to_f64()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                self.to_f64().partial_cmp(&other.to_f64())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({} = {:#04x})", $label, self.to_f64(), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f64(), f)
            }
        }

        impl crate::dtype::sealed::Sealed for $name {}

        impl DataType for $name {
            const DTYPE: DType = DType::$name;
            fn add(self, rhs: $name) -> $name {
                self.round(rhs, |a, b| a + b)
            }
            fn mul(self, rhs: $name) -> $name {
                self.round(rhs, |a, b| a * b)
            }
            fn div_count(self, n: usize) -> $name {
                // NCCL's Avg on floats: PreMulSum by 1/n, as a value of the type.
                self.round($name::from_f32((1.0 / n as f64) as f32), |a, b| a * b)
            }
            fn write_le(self, out: &mut [u8]) {
                out[0] = self.0;
            }
            fn read_le(bytes: &[u8]) -> $name {
                $name(bytes[0])
            }
            fn from_i64(v: i64) -> $name {
                $name::from_f64(v as f64)
            }
            fn to_f64(self) -> f64 {
                $fmt.decode(self.0)
            }
        }
    };
}

fp8_type!(
    /// An fp8 E4M3 value (`ncclFloat8e4m3`, NCCL 2.24+): no infinity, saturating
    /// conversions (the module's rules).
    ///
    /// ```
    /// use nccl_safe::F8E4M3;
    /// assert_eq!(F8E4M3::from_f32(1.0).to_bits(), 0x38);
    /// assert_eq!(F8E4M3::from_f32(1000.0).to_bits(), 0x7E); // saturates at 448
    /// assert_eq!(F8E4M3::from_f32(f32::INFINITY), F8E4M3::MAX);
    /// assert!(F8E4M3::from_f32(f32::NAN).is_nan());
    /// ```
    F8E4M3,
    E4M3,
    "f8e4m3"
);

fp8_type!(
    /// An fp8 E5M2 value (`ncclFloat8e5m2`, NCCL 2.24+): IEEE-like with infinities,
    /// but conversions saturate (the module's rules).
    ///
    /// ```
    /// use nccl_safe::F8E5M2;
    /// assert_eq!(F8E5M2::from_f32(1.0).to_bits(), 0x3C);
    /// assert_eq!(F8E5M2::from_f32(1e6).to_bits(), 0x7B); // saturates at 57344
    /// assert_eq!(F8E5M2::from_bits(0x7C).to_f32(), f32::INFINITY);
    /// ```
    F8E5M2,
    E5M2,
    "f8e5m2"
);

/// `2^e`, exactly: built from its bits, since `powi` promises no precision (Miri
/// perturbs it). `e` must be a normal `f64` exponent (-1022..=1023).
pub(crate) fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e), "2^{e} is not a normal f64");
    f64::from_bits(((e + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_e4m3_pattern_decodes_and_round_trips() {
        for b in 0..=255u8 {
            let v = F8E4M3::from_bits(b);
            if b & 0x7F == 0x7F {
                assert!(v.is_nan(), "{b:#x}");
                continue;
            }
            assert!(v.to_f64().is_finite(), "{b:#x}");
            assert_eq!(F8E4M3::from_f64(v.to_f64()).to_bits(), b, "{b:#x}");
        }
        assert_eq!(F8E4M3::from_bits(0x7E).to_f64(), 448.0);
        assert_eq!(F8E4M3::from_bits(0x01).to_f64(), pow2(-9));
        assert_eq!(F8E4M3::from_bits(0x08).to_f64(), pow2(-6));
        assert_eq!(F8E4M3::from_bits(0xB8).to_f64(), -1.0);
    }

    #[test]
    fn every_e5m2_pattern_decodes_and_round_trips() {
        for b in 0..=255u8 {
            let v = F8E5M2::from_bits(b);
            match b & 0x7F {
                0x7C => assert!(v.to_f64().is_infinite(), "{b:#x}"),
                0x7D..=0x7F => assert!(v.is_nan(), "{b:#x}"),
                _ => assert_eq!(F8E5M2::from_f64(v.to_f64()).to_bits(), b, "{b:#x}"),
            }
        }
        assert_eq!(F8E5M2::from_bits(0x7B).to_f64(), 57344.0);
        assert_eq!(F8E5M2::from_bits(0x01).to_f64(), pow2(-16));
        assert_eq!(F8E5M2::from_bits(0x04).to_f64(), pow2(-14));
    }

    #[test]
    fn e4m3_rounds_to_nearest_even_and_saturates() {
        let bits = |x: f32| F8E4M3::from_f32(x).to_bits();
        // 1.0625 is halfway between 1.0 (0x38) and 1.125 (0x39): even mantissa wins.
        assert_eq!(bits(1.0625), 0x38);
        // 1.1875 is halfway between 1.125 (0x39) and 1.25 (0x3A): even is 0x3A.
        assert_eq!(bits(1.1875), 0x3A);
        assert_eq!(bits(1.07), 0x39); // above the midpoint
        assert_eq!(bits(-1.0625), 0xB8);
        // 464 is halfway between 448 (0x7E) and 480 (not finite: NaN's pattern).
        assert_eq!(bits(464.0), 0x7E);
        assert_eq!(bits(465.0), 0x7E); // saturates
        assert_eq!(bits(-1e9), 0xFE);
        assert_eq!(bits(f32::NEG_INFINITY), 0xFE);
        assert_eq!(bits(f32::NAN), 0x7F);
        // Subnormals: 2^-10 is halfway between 0 and 2^-9: ties to even (zero).
        assert_eq!(bits(pow2(-10) as f32), 0x00);
        assert_eq!(bits(1.5 * (pow2(-9) as f32)), 0x02); // 1.5 units: even is 2
        assert_eq!(bits(-0.0), 0x80);
        // The largest subnormal rounds up into the smallest normal.
        assert_eq!(bits(0.99 * (pow2(-6) as f32)), 0x08);
    }

    #[test]
    fn e5m2_rounds_to_nearest_even_and_saturates() {
        let bits = |x: f32| F8E5M2::from_f32(x).to_bits();
        assert_eq!(bits(1.125), 0x3C); // halfway 1.0/1.25: even (1.0)
        assert_eq!(bits(1.375), 0x3E); // halfway 1.25/1.5: even (1.5)
        assert_eq!(bits(61440.0), 0x7B); // halfway 57344/65536: saturates
        assert_eq!(bits(f32::INFINITY), 0x7B);
        assert_eq!(bits(-70000.0), 0xFB);
        assert_eq!(bits(pow2(-17) as f32), 0x00); // halfway 0/2^-16: even (zero)
        assert_eq!(bits(3.0 * (pow2(-17) as f32)), 0x02);
        assert!(F8E5M2::from_f32(f32::NAN).is_nan());
    }

    #[test]
    fn arithmetic_rounds_once_and_saturates() {
        let e4 = F8E4M3::from_f32;
        // 448 + 448 overflows the format: saturates.
        assert_eq!(e4(448.0).add(e4(448.0)).to_bits(), 0x7E);
        // 1 + 0.0625 = 1.0625: a tie, to even (1.0).
        assert_eq!(e4(1.0).add(e4(0.0625)).to_bits(), 0x38);
        assert_eq!(
            e4(1.5).mul(e4(3.0)).to_bits(),
            F8E4M3::from_f32(4.5).to_bits()
        );
        // E5M2: 57344 + 57344 saturates to 57344; an infinity saturates too.
        let e5 = F8E5M2::from_f32;
        assert_eq!(e5(57344.0).add(e5(57344.0)).to_bits(), 0x7B);
        // Average of 3 ranks: x * fp8(1/3) = x * 0.34375 in E4M3.
        assert_eq!(F8E4M3::from_f32(1.0 / 3.0).to_f64(), 0.34375);
        assert_eq!(e4(6.0).div_count(3).to_f64(), 2.0); // 6 * 0.34375 = 2.0625 -> 2
        assert_eq!(F8E5M2::from_bits(0x7C).add(e5(1.0)).to_bits(), 0x7B);
        assert!(F8E4M3::NAN.add(e4(1.0)).is_nan());
        // A sum whose exact value needs 13 bits: 256 + 2^-4 * 1.125 rounds to 256.
        assert_eq!(e4(256.0).add(e4(0.0703125)).to_bits(), e4(256.0).to_bits());
    }
}
