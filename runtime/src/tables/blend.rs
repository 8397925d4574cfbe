//! The blend section (version 6, rigid-gte): vertices that follow two bones.
//!
//! A rigid vertex follows one bone: the renderer projects it with that bone's model-view matrix. A
//! blended vertex follows two, `a` (its strongest influence) and `b`, with `b`'s share `w` (FP12):
//! linear blend skinning, `(1 - w) * MV_a * p + w * MV_b * p_b`. The vertex is stored once, in `a`'s
//! bind-local space like a rigid vertex of `a`, and the pair carries `b`'s bind-local space from
//! `a`'s (`rel = inverse(bind b) * bind a`, so `p_b = rel * p`). Linear blend skinning being linear in
//! the matrices, the vertex goes through the GTE with one blended matrix
//! `M(w) = MV_a + w * (MV_b * rel - MV_a)`, entry by entry: the same RTPT as a rigid vertex.
//!
//! So the vertices of one pair are grouped by weight (the importer quantises `w` to a few levels), and
//! each group is a range of vertices sharing one `M(w)`. Groups are sorted by pair: the renderer
//! composes `MV_b * rel` once per pair ([`crate::render::blend`]).
//!
//! ```text
//! header (version 6): 64 u32 blend offset (0 without)  68 u16 pair count  70 u16 group count
//! at the blend offset, 4-aligned:
//!   pairs, 28 bytes each:  0 u16 bone a   2 u16 bone b   4 u32[6] rel as the GTE's register words
//!                          ([`PackedMatrix`]: FP12 rotation by columns, translation i16 GTE units)
//!   groups, 8 bytes each:  0 u16 pair     2 u16 weight (b's share, FP12, 0..=4096)
//!                          4 u16 first vertex   6 u16 vertex count
//! ```
//! Parsing checks the section against the blob, every bone, pair and vertex range against its
//! table and the order of the groups; a damaged section is a [`TableError::BadBlend`] (or
//! `SectionOutOfBounds` / `Misaligned`), never a read outside it.

use super::{section, u16_at, u32_at, Storage, TableError, Tables, HEADER_SIZE, HEADER_SIZE_V6};
use crate::gte::PackedMatrix;

pub const PAIR_SIZE: usize = 28;
pub const GROUP_SIZE: usize = 8;
/// The largest weight (all of `b`).
pub const WEIGHT_ONE: u16 = 1 << 12;

/// Where the section lies (all zero without one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Section {
    pairs: usize,
    pair_count: usize,
    groups: usize,
    group_count: usize,
}

impl Section {
    /// The section a version 6 header names (`bytes` is the blob, `size` its declared size).
    pub(super) fn read(bytes: &[u8], storage: Storage, size: usize) -> Result<Section, TableError> {
        if size < HEADER_SIZE_V6 {
            return Err(TableError::TooShort { needed: HEADER_SIZE_V6, len: size });
        }
        let offset = u32_at(bytes, HEADER_SIZE) as usize;
        let pair_count = u16_at(bytes, HEADER_SIZE + 4) as usize;
        let group_count = u16_at(bytes, HEADER_SIZE + 6) as usize;
        if offset == 0 {
            if pair_count != 0 || group_count != 0 {
                return Err(TableError::BadBlend { offset: HEADER_SIZE, what: "blend offset 0 with pairs or groups" });
            }
            return Ok(Section::default());
        }
        if storage != Storage::RigidGte {
            return Err(TableError::BadBlend { offset: HEADER_SIZE, what: "a blend section in a baked-vertices blob" });
        }
        let len = pair_count * PAIR_SIZE + group_count * GROUP_SIZE;
        let pairs = section("blend", offset, len, size)?;
        Ok(Section { pairs, pair_count, groups: pairs + pair_count * PAIR_SIZE, group_count })
    }
}

/// A bone pair: the two bones and `b`'s bind-local space from `a`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendPair {
    pub a: u16,
    pub b: u16,
    /// `inverse(bind b) * bind a`: FP12 rotation, translation in GTE units (within i16).
    pub rel: PackedMatrix,
}

/// A range of vertices of one pair sharing one weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendGroup {
    pub pair: u16,
    /// Bone `b`'s share, FP12 (0..=4096).
    pub weight: u16,
    pub first_vertex: u16,
    pub vertex_count: u16,
}

/// Bones, pairs, weights and vertex ranges inside their tables, groups sorted by pair.
pub(super) fn check(t: &Tables) -> Result<(), TableError> {
    let s = &t.blend;
    for i in 0..s.pair_count {
        let o = s.pairs + i * PAIR_SIZE;
        let (a, b) = (u16_at(t.bytes, o) as usize, u16_at(t.bytes, o + 2) as usize);
        for (at, bone) in [(o, a), (o + 2, b)] {
            if bone >= t.bone_count {
                return Err(TableError::BadIndex { what: "blend pair bone", index: i, offset: at, value: bone, limit: t.bone_count });
            }
        }
        if a == b {
            return Err(TableError::BadBlend { offset: o, what: "a pair of two different bones" });
        }
    }
    let mut last_pair = 0;
    for i in 0..s.group_count {
        let o = s.groups + i * GROUP_SIZE;
        let g = read_group(t.bytes, o);
        if g.pair as usize >= s.pair_count {
            return Err(TableError::BadIndex { what: "blend group pair", index: i, offset: o, value: g.pair as usize, limit: s.pair_count });
        }
        if g.pair < last_pair {
            return Err(TableError::BadBlend { offset: o, what: "groups sorted by pair" });
        }
        last_pair = g.pair;
        if g.weight > WEIGHT_ONE {
            return Err(TableError::BadBlend { offset: o + 2, what: "a weight of at most 4096 (FP12 1.0)" });
        }
        let end = g.first_vertex as usize + g.vertex_count as usize;
        if end > t.vertex_count {
            return Err(TableError::BadIndex { what: "blend group vertex range", index: i, offset: o + 4, value: end, limit: t.vertex_count + 1 });
        }
    }
    Ok(())
}

fn read_group(bytes: &[u8], o: usize) -> BlendGroup {
    BlendGroup { pair: u16_at(bytes, o), weight: u16_at(bytes, o + 2), first_vertex: u16_at(bytes, o + 4), vertex_count: u16_at(bytes, o + 6) }
}

impl<'a> Tables<'a> {
    /// Bone pairs of the blend section (0 without one).
    pub fn blend_pair_count(&self) -> usize {
        self.blend.pair_count
    }

    /// Groups of the blend section (0 without one).
    pub fn blend_group_count(&self) -> usize {
        self.blend.group_count
    }

    /// Vertices the blend section's groups cover.
    pub fn blended_vertex_count(&self) -> usize {
        (0..self.blend.group_count).map(|g| self.blend_group(g).vertex_count as usize).sum()
    }

    /// Pair `index` (< `blend_pair_count()`; panics otherwise like slice indexing).
    pub fn blend_pair(&self, index: usize) -> BlendPair {
        assert!(index < self.blend.pair_count);
        let o = self.blend.pairs + index * PAIR_SIZE;
        let mut rel = PackedMatrix { words: [0; 6] };
        for (k, w) in rel.words.iter_mut().enumerate() {
            *w = u32_at(self.bytes, o + 4 + 4 * k);
        }
        BlendPair { a: u16_at(self.bytes, o), b: u16_at(self.bytes, o + 2), rel }
    }

    /// Pair `index`'s bones and `rel` as a [`PackedMatrix`] read word by word (a 4-aligned blob; else
    /// as [`Tables::blend_pair`]): the renderer's per-pair read.
    #[inline]
    pub(crate) fn blend_pair_words(&self, index: usize) -> (u16, u16, PackedMatrix) {
        let o = self.blend.pairs + index * PAIR_SIZE;
        match crate::bytes::aligned_words(self.bytes, o, PAIR_SIZE / 4) {
            Some(w) => (w[0] as u16, (w[0] >> 16) as u16, PackedMatrix { words: [w[1], w[2], w[3], w[4], w[5], w[6]] }),
            None => {
                let p = self.blend_pair(index);
                (p.a, p.b, p.rel)
            }
        }
    }

    /// The pairs as words, seven each (`a | b << 16`, then `rel`'s six), when the blob sits
    /// 4-aligned: the blend stage's input.
    #[inline]
    pub(crate) fn blend_pairs_words(&self) -> Option<&'a [u32]> {
        crate::bytes::aligned_words(self.bytes, self.blend.pairs, (PAIR_SIZE / 4) * self.blend.pair_count)
    }

    /// The groups as words, two each (`pair | weight << 16`, `first | count << 16`), when the blob
    /// sits 4-aligned: the renderer's per-group read.
    #[inline]
    pub(crate) fn blend_group_words(&self) -> Option<&'a [u32]> {
        crate::bytes::aligned_words(self.bytes, self.blend.groups, 2 * self.blend.group_count)
    }

    /// Group `index` (< `blend_group_count()`; panics otherwise like slice indexing).
    pub fn blend_group(&self, index: usize) -> BlendGroup {
        assert!(index < self.blend.group_count);
        read_group(self.bytes, self.blend.groups + index * GROUP_SIZE)
    }
}
