//! Fixed-point math shared by the console runtime and the host tooling.
//!
//! # Conventions
//! - **FP12** (the GTE's 1.3.12 format): a real `r` is stored as the integer `r * 4096`, so
//!   [`ONE`] = 4096 = 1.0. Rotation matrices, quaternions and interpolation factors use it, in `i16`
//!   (range -8.0 .. +7.99976). Translations are `i32` in the model's own units (ANIMBIN stores them
//!   FP12 too, but the math here never rescales a translation).
//! - **Matrices** are `m[row][col]` and act on column vectors: `v' = M v`, exactly like the GTE's
//!   RT11..RT33 (`RT11 = m[0][0]`, `RT12 = m[0][1]`, ...) and TR (`t`).
//! - **Rounding:** whatever the GTE computes is *truncated toward minus infinity* (arithmetic shift
//!   right by 12) and saturated to `i16`, as MVMVA does with sf=1 and lm=0; [`Matrix::mul`] and
//!   [`Matrix::transform`] follow it bit for bit so the console's GTE path and the host agree.
//!   Everything the CPU computes alone (quaternion to matrix, normalisation, interpolation) rounds to
//!   nearest (ties toward +infinity) because it has no hardware result to match.
//! - No floating point in the runtime path; the `*_f64` helpers exist for the host conversions and
//!   tests only (they are plain functions the console never calls).
//! - Nothing here panics on any input: overflowing results saturate or wrap as documented per function.

mod isqrt;
mod matrix;
mod quat;
mod vec;

pub use isqrt::{isqrt_u32, isqrt_u64};
pub use matrix::{mul_rotation, transpose, Matrix, Rotation, IDENTITY_ROTATION};
pub use quat::Quat;
pub use vec::{Vec3i16, Vec3i32};

/// Number of fraction bits of FP12.
pub const FRAC_BITS: u32 = 12;
/// 1.0 in FP12.
pub const ONE: i32 = 1 << FRAC_BITS;

/// FP12 product, truncated toward minus infinity (the GTE's `(a * b) >> 12`).
#[inline]
pub const fn fp_mul(a: i32, b: i32) -> i32 {
    ((a as i64 * b as i64) >> FRAC_BITS) as i32
}

/// FP12 product rounded to nearest (ties toward +infinity).
#[inline]
pub const fn fp_mul_round(a: i32, b: i32) -> i32 {
    ((a as i64 * b as i64 + (1 << (FRAC_BITS - 1))) >> FRAC_BITS) as i32
}

/// Saturates to the `i16` range (what the GTE does to IR1..3 with lm=0).
#[inline]
pub const fn saturate_i16(v: i64) -> i16 {
    if v > i16::MAX as i64 {
        i16::MAX
    } else if v < i16::MIN as i64 {
        i16::MIN
    } else {
        v as i16
    }
}

/// Host helper: the FP12 value nearest to `v` (ties away from zero), saturated to `i16`.
/// NaN maps to 0.
pub fn fp12_from_f64(v: f64) -> i16 {
    saturate_i16(round_f64(v * ONE as f64))
}

/// Host helper: an FP12 value as a real number.
pub fn fp12_to_f64(v: i32) -> f64 {
    v as f64 / ONE as f64
}

/// Rounds to nearest, ties away from zero, saturating to `i64` (`f64::round` is not in `core`).
pub(crate) fn round_f64(v: f64) -> i64 {
    if v >= 0.0 {
        (v + 0.5) as i64
    } else {
        -((-v + 0.5) as i64)
    }
}

#[cfg(test)]
mod tests;
