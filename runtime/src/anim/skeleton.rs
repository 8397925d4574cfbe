//! The skeleton (parents and bind pose) and the composition of local transforms into model space.

use super::interp;
use super::words::ColumnWords;
use crate::gte::regs::{cmd, data};
use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Quat, Rotation, Vec3i16, Vec3i32};

/// `parents[i]` of a root bone.
pub const ROOT: u8 = 0xFF;
/// Joint ids are `u8`: at most 255 bones (0xFF marks a root).
pub const MAX_BONES: usize = 255;

/// A bone's transform relative to its parent: unit FP12 rotation, translation in the clip's units
/// (ANIMBIN stores FP12 integers; they are used as stored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalTransform {
    pub rotation: Quat,
    pub translation: Vec3i32,
}

impl LocalTransform {
    pub const IDENTITY: LocalTransform = LocalTransform { rotation: Quat::IDENTITY, translation: Vec3i32::ZERO };

    pub const fn new(rotation: Quat, translation: Vec3i32) -> Self {
        LocalTransform { rotation, translation }
    }

    /// The matrix of this transform (rotation of the unit quaternion, then translation).
    #[inline]
    pub fn to_matrix(&self) -> Matrix {
        Matrix::new(interp::to_rotation(self.rotation), self.translation)
    }
}

/// Why a skeleton is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkeletonError {
    /// `parents` and `bind` differ in length.
    LengthMismatch { parents: usize, bind: usize },
    TooManyBones { count: usize, max: usize },
    /// Bones must come parent-first: `parents[bone]` is [`ROOT`] or below `bone`.
    ParentNotBefore { bone: u8, parent: u8 },
    /// A bind rotation whose squared length is not within 1% of 1.0 (4096^2).
    NotUnit { bone: u8 },
}

impl core::fmt::Display for SkeletonError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            SkeletonError::LengthMismatch { parents, bind } => {
                write!(f, "skeleton has {parents} parent entries but {bind} bind transforms")
            }
            SkeletonError::TooManyBones { count, max } => write!(f, "skeleton has {count} bones, at most {max} fit"),
            SkeletonError::ParentNotBefore { bone, parent } => {
                write!(f, "bone {bone} has parent {parent}: parents must come first (or be 0xFF for a root)")
            }
            SkeletonError::NotUnit { bone } => write!(f, "bone {bone}: bind rotation is not a unit quaternion"),
        }
    }
}

/// Bones in parent-first order: parent indices and bind-pose local transforms (borrowed, no heap).
#[derive(Clone, Copy, Debug)]
pub struct Skeleton<'s> {
    parents: &'s [u8],
    bind: &'s [LocalTransform],
}

impl<'s> Skeleton<'s> {
    pub fn new(parents: &'s [u8], bind: &'s [LocalTransform]) -> Result<Self, SkeletonError> {
        if parents.len() != bind.len() {
            return Err(SkeletonError::LengthMismatch { parents: parents.len(), bind: bind.len() });
        }
        if parents.len() > MAX_BONES {
            return Err(SkeletonError::TooManyBones { count: parents.len(), max: MAX_BONES });
        }
        for (bone, &parent) in parents.iter().enumerate() {
            if parent != ROOT && parent as usize >= bone {
                return Err(SkeletonError::ParentNotBefore { bone: bone as u8, parent });
            }
        }
        for (bone, b) in bind.iter().enumerate() {
            let norm2 = b.rotation.dot(b.rotation);
            if !(16_609_443..=16_944_988).contains(&norm2) {
                return Err(SkeletonError::NotUnit { bone: bone as u8 });
            }
        }
        Ok(Skeleton { parents, bind })
    }

    pub fn len(&self) -> usize {
        self.parents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    pub fn parent(&self, bone: usize) -> Option<usize> {
        match self.parents.get(bone) {
            Some(&p) if p != ROOT => Some(p as usize),
            _ => None,
        }
    }

    pub fn parents(&self) -> &'s [u8] {
        self.parents
    }

    pub fn bind(&self) -> &'s [LocalTransform] {
        self.bind
    }
}

/// Composes model-space matrices parent-first: `model[i] = model[parent(i)] * local(i)` on the GTE,
/// bit-identical to [`Matrix::mul`] on the host. Reloads the GTE's rotation only when the parent
/// changes. `local(i)` gives bone `i`'s local transform; writes `min(len, out.len())` matrices.
#[inline]
pub fn compose_pose<B: Cop2>(
    gte: &mut Gte<B>,
    skeleton: &Skeleton<'_>,
    out: &mut [Matrix],
    mut local: impl FnMut(usize) -> LocalTransform,
) {
    let n = skeleton.len().min(out.len());
    let mut loaded = ROOT;
    for bone in 0..n {
        let m = local(bone).to_matrix();
        compose_bone(gte, out, bone, skeleton.parents[bone], &mut loaded, &m.rotation, m.translation);
    }
}

/// `out[bone] = out[parent] * (rotation, translation)` on the GTE (`out[bone]` alone for a root):
/// one step of [`compose_pose`]. `loaded` is the bone whose rotation RT holds ([`ROOT`]: none).
#[inline(always)]
pub(crate) fn compose_bone<B: Cop2>(
    gte: &mut Gte<B>,
    out: &mut [Matrix],
    bone: usize,
    parent: u8,
    loaded: &mut u8,
    rotation: &Rotation,
    translation: Vec3i32,
) {
    let (done, rest) = out.split_at_mut(bone);
    let Some(slot) = rest.first_mut() else { return };
    *slot = match done.get(parent as usize) {
        None => Matrix::new(*rotation, translation), // a root
        Some(p) => {
            if *loaded != parent {
                gte.set_rotation(&p.rotation);
                *loaded = parent;
            }
            Matrix {
                rotation: gte.mul_rotation(rotation),
                translation: rotate_wide(gte, &p.rotation, translation).wrapping_add(p.translation),
            }
        }
    };
}


const MVMVA_RT_V0: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0);
const MVMVA_RT_V1: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V1, cmd::CV_NONE, 0);
const MVMVA_RT_V2: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V2, cmd::CV_NONE, 0);

/// [`compose_bone`] with the local rotation given as [`ColumnWords`]: one register write per
/// vector half, the same MVMVAs as [`Gte::mul_rotation`] (the same bits).
#[inline(always)]
pub(crate) fn compose_bone_words<B: Cop2>(
    gte: &mut Gte<B>,
    out: &mut [Matrix],
    bone: usize,
    parent: u8,
    loaded: &mut u8,
    words: &ColumnWords,
    translation: Vec3i32,
) {
    let (done, rest) = out.split_at_mut(bone);
    let Some(slot) = rest.first_mut() else { return };
    let Some(p) = done.get(parent as usize) else {
        // A root: its local transform.
        let lo = |w: u32| w as u16 as i16;
        let hi = |w: u32| (w >> 16) as u16 as i16;
        *slot = Matrix::new(
            [[lo(words[0]), lo(words[1]), lo(words[2])], [hi(words[0]), hi(words[1]), hi(words[2])], [lo(words[3]), hi(words[3]), lo(words[4])]],
            translation,
        );
        return;
    };
    // The usual translation, within `i16`: one register-level step (hand-scheduled on the console).
    let fits = |v: i32| (v.wrapping_add(0x8000) as u32) < 0x1_0000;
    if fits(translation.x) & fits(translation.y) & fits(translation.z) {
        let load = *loaded != parent;
        *loaded = parent;
        let t_xy = translation.x as u16 as u32 | (translation.y as u32) << 16;
        gte.backend_mut().compose_columns(p, load, words, t_xy, translation.z as u32, slot);
        return;
    }
    if *loaded != parent {
        gte.set_rotation(&p.rotation);
        *loaded = parent;
    }
    gte.write_data::<{ data::VXY0 }>(words[0]);
    gte.write_data::<{ data::VZ0 }>(words[3]);
    gte.write_data::<{ data::VXY1 }>(words[1]);
    gte.write_data::<{ data::VZ1 }>(words[3] >> 16);
    gte.write_data::<{ data::VXY2 }>(words[2]);
    gte.write_data::<{ data::VZ2 }>(words[4]);
    gte.command::<MVMVA_RT_V0>();
    let c0 = gte.ir123();
    gte.command::<MVMVA_RT_V1>();
    let c1 = gte.ir123();
    gte.command::<MVMVA_RT_V2>();
    let c2 = gte.ir123();
    slot.rotation = [[c0.x, c1.x, c2.x], [c0.y, c1.y, c2.y], [c0.z, c1.z, c2.z]];
    slot.translation = rotate_wide(gte, &p.rotation, translation).wrapping_add(p.translation);
}

#[cold]
#[inline(never)]
fn rotate_wide_cpu(rt: &Rotation, t: Vec3i32) -> Vec3i32 {
    Matrix::new(*rt, Vec3i32::ZERO).rotate_wide(t)
}

/// MVMVA, RT times V0, no shift: the exact product (low 32 bits of the sum).
const MVMVA_RT_V0_NO_SHIFT: u32 = cmd::mvmva(0, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0);

/// `RT * t >> 12` for the loaded RT (`rt`, the same matrix) and a full `i32` vector, rounded toward minus infinity and
/// wrapped to `i32`: exactly [`Matrix::rotate_wide`], on the GTE instead of nine 64-bit products.
///
/// `t = hi * 2^16 + lo` with `lo` the sign-extended low half, so `RT * t >> 12` is
/// `16 * (RT * hi) + (RT * lo >> 12)`: the shift distributes exactly because `RT * hi * 2^16` is a
/// multiple of 2^12. `RT * lo >> 12` is MVMVA with sf=1; `RT * hi` is MVMVA with sf=0, whose
/// 32-bit MAC is the product modulo 2^32, which is all a wrapped `i32` result needs.
///
/// The one value whose high half does not fit `i16` (from `0x7FFF_8000` up) takes the CPU formula.
#[inline(always)]
fn rotate_wide<B: Cop2>(gte: &mut Gte<B>, rt: &Rotation, t: Vec3i32) -> Vec3i32 {
    const TOP: i32 = 0x7FFF_8000;
    if t.x >= TOP || t.y >= TOP || t.z >= TOP {
        return rotate_wide_cpu(rt, t);
    }
    let lo = Vec3i16::new(t.x as i16, t.y as i16, t.z as i16);
    // Below TOP, (v - lo) / 2^16 lies in -32768..=32767.
    let high = |v: i32, l: i16| ((v - l as i32) >> 16) as i16;
    let hi = Vec3i16::new(high(t.x, lo.x), high(t.y, lo.y), high(t.z, lo.z));
    let low = gte.rotate(lo);
    if hi == Vec3i16::ZERO {
        return low;
    }
    gte.write_data::<{ data::VXY0 }>(hi.x as u16 as u32 | (hi.y as u16 as u32) << 16);
    gte.write_data::<{ data::VZ0 }>(hi.z as u16 as u32);
    gte.command::<{ MVMVA_RT_V0_NO_SHIFT }>();
    let h = gte.mac123();
    Vec3i32::new(
        low.x.wrapping_add(h.x.wrapping_mul(16)),
        low.y.wrapping_add(h.y.wrapping_mul(16)),
        low.z.wrapping_add(h.z.wrapping_mul(16)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GTE path against the 64-bit CPU formula, over the whole range of both operands.
    #[test]
    fn gte_rotate_wide_matches_the_cpu_product_bit_for_bit() {
        let mut gte = Gte::new();
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for i in 0..20_000 {
            let r: [[i16; 3]; 3] = core::array::from_fn(|_| core::array::from_fn(|_| next() as i16));
            let t = match i % 4 {
                0 => Vec3i32::new(next() as i32, next() as i32, next() as i32),
                1 => Vec3i32::new(i32::MIN, i32::MAX, 0x7FFF_7FFF - (next() & 0xFFFF) as i32),
                2 => Vec3i32::new((next() as i16) as i32, -(next() as i16 as i32), 65536),
                _ => Vec3i32::new(next() as i32 >> 8, next() as i32 >> 12, 0),
            };
            let m = Matrix::new(r, Vec3i32::ZERO);
            gte.set_rotation(&r);
            assert_eq!(rotate_wide(&mut gte, &r, t), m.rotate_wide(t), "R {r:?} t {t:?}");
        }
    }
}
