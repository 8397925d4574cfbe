//! The packed words the ANIMBIN path keeps its quaternions and rotation matrices in: two or five
//! registers' worth instead of arrays that would travel through the (uncached) stack.

use crate::math::Rotation;

/// A quaternion as two words, `w | x << 16` and `y | z << 16` (the file's order): kept in words so
/// that it moves through two registers, never through the (uncached) stack.
pub(crate) type QuatWords = [u32; 2];

/// The four components of [`QuatWords`], sign-extended.
#[inline(always)]
pub(crate) fn components(q: QuatWords) -> [i32; 4] {
    [q[0] as i16 as i32, (q[0] >> 16) as i16 as i32, q[1] as i16 as i32, (q[1] >> 16) as i16 as i32]
}

#[inline(always)]
pub(crate) fn words_of(c: [i32; 4]) -> QuatWords {
    let p = |lo: i32, hi: i32| lo as u16 as u32 | (hi as u16 as u32) << 16;
    [p(c[0], c[1]), p(c[2], c[3])]
}

/// A rotation matrix as the GTE words of its columns (the rotation half of
/// [`crate::gte::PackedMatrix`]): `m00 | m10 << 16`, `m01 | m11 << 16`, `m02 | m12 << 16`,
/// `m20 | m21 << 16`, `m22`.
pub(crate) type ColumnWords = [u32; 5];

#[inline(always)]
pub(crate) fn column_words(r: &Rotation) -> ColumnWords {
    let p = |lo: i16, hi: i16| lo as u16 as u32 | (hi as u16 as u32) << 16;
    [p(r[0][0], r[1][0]), p(r[0][1], r[1][1]), p(r[0][2], r[1][2]), p(r[2][0], r[2][1]), r[2][2] as u16 as u32]
}

/// The two little-endian words at `at` of a validated file (0 past the end, which cannot happen):
/// one bounds check, unaligned word loads (keys are 11 or 15 bytes apart).
#[inline(always)]
pub(crate) fn words2(bytes: &[u8], at: usize) -> [u32; 2] {
    match bytes.get(at..at + 8) {
        // SAFETY: eight readable bytes; `read_unaligned` needs no alignment.
        Some(s) => unsafe {
            let p = s.as_ptr().cast::<u32>();
            [u32::from_le(core::ptr::read_unaligned(p)), u32::from_le(core::ptr::read_unaligned(p.add(1)))]
        },
        None => [0; 2],
    }
}
