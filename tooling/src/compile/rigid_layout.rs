//! The rigid-gte vertex layout as data: where each vertex goes (a bone's rigid range or a blend group),
//! the bone pairs of the blend section and the ranges the blob stores. `rigid` computes it, with
//! `vertex_order` placing the vertices; both read these types from here.

use crate::fbx::Affine;

/// A bone pair of the blend section: `a` the strongest bone, `b` the second, `rel` b's bind-local
/// space from a's (exact, and as the blob stores it: FP12 rotation, whole GTE units).
#[derive(Clone, Debug)]
pub struct BlendPair {
    pub a: usize,
    pub b: usize,
    pub rel: Affine,
    pub rel_fixed: psxanim_runtime::math::Matrix,
}

/// A range of blended vertices sharing a pair and a weight (FP12, b's share).
#[derive(Clone, Copy, Debug)]
pub struct BlendGroup {
    pub pair: usize,
    pub weight: u16,
    pub first: u16,
    pub count: u16,
}

/// Where a vertex goes in the layout: a bone's rigid range, or a blend group (pair, weight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    Rigid(usize),
    Blend(usize, u16),
}

/// Vertices reordered by bone and blend group ([`super::vertex_order`]): `remap[old] = new`.
pub struct RigidLayout {
    pub remap: Vec<usize>,
    /// Bone-local positions in the new order (GTE units, bind scale absorbed; a blended vertex in its
    /// strongest bone's space).
    pub local: Vec<[i16; 3]>,
    /// Per bone: first vertex and vertex count of its rigid range.
    pub ranges: Vec<(u16, u16)>,
    pub pairs: Vec<BlendPair>,
    /// Sorted by pair, then weight.
    pub groups: Vec<BlendGroup>,
}

impl RigidLayout {
    /// Every range one matrix moves: the bones' rigid ranges, then the blend groups.
    pub fn slot_ranges(&self) -> Vec<(u16, u16)> {
        self.ranges.iter().copied().chain(self.groups.iter().map(|g| (g.first, g.count))).collect()
    }

    /// The blend section as the blob stores it.
    pub fn blend_parts(&self) -> (Vec<super::blob::BlendPairPart>, Vec<super::blob::BlendGroupPart>) {
        (
            self.pairs.iter().map(|p| (p.a as u16, p.b as u16, p.rel_fixed)).collect(),
            self.groups.iter().map(|g| [g.pair as u16, g.weight, g.first, g.count]).collect(),
        )
    }

    /// The blended vertices.
    pub fn blended(&self) -> usize {
        self.groups.iter().map(|g| g.count as usize).sum()
    }
}

