//! 3x3 FP12 rotation plus `i32` translation: the GTE's RT/TR pair, and its product.

use super::{saturate_i16, Vec3i16, Vec3i32, FRAC_BITS, ONE};

/// A 3x3 FP12 matrix, `[row][col]`; element `[i][j]` is the GTE's `RT(i+1)(j+1)`.
pub type Rotation = [[i16; 3]; 3];

/// An affine transform `v' = rotation * v + translation`, laid out like the GTE's RT and TR.
///
/// `rotation` need not be orthonormal (scale is allowed); its elements are FP12. `translation` is in
/// the units of the vectors it transforms.
///
/// `repr(C)`: nine `i16`, two bytes of padding, three `i32` (32 bytes, 4-aligned), so that compiled
/// clips (`crate::clipbin`) can hand out their stored matrices in place.
/// Any bit pattern is a matrix (`AnyBitPattern`), which is what lets a stored table of them be viewed in
/// place; the padding makes it unfit for the other direction (`Pod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, bytemuck::AnyBitPattern)]
#[repr(C)]
pub struct Matrix {
    pub rotation: Rotation,
    pub translation: Vec3i32,
}

/// The FP12 identity rotation.
pub const IDENTITY_ROTATION: Rotation = [[ONE as i16, 0, 0], [0, ONE as i16, 0], [0, 0, ONE as i16]];

impl Default for Matrix {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Matrix {
    pub const IDENTITY: Self = Self { rotation: IDENTITY_ROTATION, translation: Vec3i32::ZERO };

    pub const fn new(rotation: Rotation, translation: Vec3i32) -> Self {
        Self { rotation, translation }
    }

    /// The composition `self * rhs` (apply `rhs` first, then `self`).
    ///
    /// - rotation: element `[i][j] = saturate_i16((sum_k self[i][k] * rhs[k][j]) >> 12)`: exactly
    ///   IR1..3 of GTE MVMVA (sf=1, mx=RT, cv=none, lm=0) with RT = `self.rotation` and the vector =
    ///   column `j` of `rhs`, which is what [`crate::gte::Gte::compose`] runs on the console.
    /// - translation: `self.rotate_wide(rhs.translation) + self.translation`, wrapping on `i32`
    ///   overflow (computed on the CPU on both targets, so it is identical by construction).
    pub fn mul(&self, rhs: &Matrix) -> Matrix {
        Matrix {
            rotation: mul_rotation(&self.rotation, &rhs.rotation),
            translation: self.rotate_wide(rhs.translation).wrapping_add(self.translation),
        }
    }

    /// `rotation * v + translation`, i.e. MAC1..3 of MVMVA (sf=1, mx=RT, cv=TR): the sum is truncated
    /// toward minus infinity. Identical to the GTE unless `translation << 12` plus the products leaves
    /// the GTE's 44-bit accumulator (|translation| close to 2^31), where the GTE wraps differently.
    pub fn transform(&self, v: Vec3i16) -> Vec3i32 {
        self.rotate(v).wrapping_add(self.translation)
    }

    /// `rotation * v` truncated toward minus infinity (MAC1..3 of MVMVA sf=1, cv=none).
    pub fn rotate(&self, v: Vec3i16) -> Vec3i32 {
        self.rotate_wide(v.widen())
    }

    /// `rotation * v` for a full `i32` vector (exact 64-bit sum, truncated toward minus infinity,
    /// wrapped to `i32`): the translation part of [`Matrix::mul`].
    pub fn rotate_wide(&self, v: Vec3i32) -> Vec3i32 {
        let r = &self.rotation;
        let row = |i: usize| -> i32 {
            let sum = r[i][0] as i64 * v.x as i64 + r[i][1] as i64 * v.y as i64 + r[i][2] as i64 * v.z as i64;
            (sum >> FRAC_BITS) as i32
        };
        Vec3i32::new(row(0), row(1), row(2))
    }

    /// The transposed rotation (the inverse of an orthonormal one); translation is kept.
    pub fn transposed_rotation(&self) -> Rotation {
        transpose(&self.rotation)
    }
}

/// `a * b` for FP12 rotations with the GTE's truncation and `i16` saturation (see [`Matrix::mul`]).
pub fn mul_rotation(a: &Rotation, b: &Rotation) -> Rotation {
    let mut out = [[0i16; 3]; 3];
    for (i, out_row) in out.iter_mut().enumerate() {
        for (j, out_elem) in out_row.iter_mut().enumerate() {
            let sum: i64 = (0..3).map(|k| a[i][k] as i64 * b[k][j] as i64).sum();
            *out_elem = saturate_i16(sum >> FRAC_BITS);
        }
    }
    out
}

/// The transpose of `m`.
pub fn transpose(m: &Rotation) -> Rotation {
    let mut out = [[0i16; 3]; 3];
    for (i, row) in m.iter().enumerate() {
        for (j, &e) in row.iter().enumerate() {
            out[j][i] = e;
        }
    }
    out
}
