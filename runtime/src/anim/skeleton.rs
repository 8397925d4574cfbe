//! The skeleton (parents and bind pose) and the composition of local transforms into model space.

use super::interp;
use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Quat, Vec3i32};

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

/// Composes model-space matrices parent-first: `model[i] = model[parent(i)] * local(i)` on the GTE
/// (same bits as [`Matrix::mul`] on the host). Reloads the GTE's rotation only when the parent
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
        let parent = skeleton.parents[bone];
        out[bone] = if parent == ROOT {
            m
        } else {
            let p = out[parent as usize];
            if loaded != parent {
                gte.set_rotation(&p.rotation);
                loaded = parent;
            }
            Matrix {
                rotation: gte.mul_rotation(&m.rotation),
                translation: p.rotate_wide(m.translation).wrapping_add(p.translation),
            }
        };
    }
}
