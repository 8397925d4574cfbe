//! Blended vertices: the stage after the rigid projection that moves the vertices of two bones.
//!
//! # Contract
//! Reads: the tables' blend section ([`crate::tables::blend`]: bone pairs, groups of vertices that
//! share one weight), the vertex words of each group (bone `a`'s local space, like a rigid vertex)
//! and the bones' model-view matrices `matrices` the pose stage wrote (any pose source: compact
//! stream, pose cache, forward stream, crossfades: they all end in these matrices). Writes: `sxy` and
//! `sz` of every vertex a group covers, as raw SXY / SZ words, the same arrays the rigid ranges fill,
//! so the triangle stage indexes blended vertices like any other. Leaves RT and TR loaded with the
//! last group's matrix.
//!
//! # Steps (all integer, on the GTE, the same register operations on the console and the host model)
//! [`crate::gte::blend`] holds them: per pair (groups come sorted by pair) `B = MV_b * rel` as
//! `Gte::compose_packed` computes it; per group of weight `w` (FP12, bone `b`'s share) one INTPL a
//! column and one GPF give the blended matrix `M = A + (w (B - A)) >> 12` entry by entry (`A = MV_a`,
//! the rotation saturated to i16) into RT and TR, and the group's vertices go through RTPT like a
//! rigid range. Linear blend skinning is linear in the matrices: `M * p = (1 - w) * MV_a * p + w *
//! MV_b * rel * p`, up to the FP12 rounding of `M`'s entries. [`blend_matrix`] is that matrix in plain
//! integer steps; the GTE's equals it whenever the rotations' and the translations' differences fit
//! 16 bits (always on a skeleton, see `gte::blend`).
//!
//! With matrices for every bone and room for every vertex the whole section is one call to
//! [`Cop2::project_blend_groups`], on the console one hand-scheduled asm loop (`gte/hw/blend.rs`)
//! with nothing between the groups; otherwise the same register operations run group by group.
//!
//! The renderer passes the matrices the rigid ranges staged in the scratchpad as they loaded them
//! (`project::matrix_stage`, up to 30 bones), where a load takes one cycle instead of 5 to 7 from
//! main RAM: a pair's two matrices are 16 loads.
//!
//! Cost, measured on mednafen with the character example's bench (10 pairs of one 8-vertex group
//! each, the staging's share of the rigid ranges included): 58.9 cycles a blended vertex (58.6
//! before the textured loops joined the code; pcsx-rearmed 64.9, PCSX-Redux 77.0), against
//! 25.4 for a rigid one. It was 154 with the matrices blended in Rust, 68 with the loop reading the
//! matrices from main RAM and four MVMVA a group on light matrices built per pair, 60.3 with those
//! matrices staged; one INTPL a column took it to 58.6. Of a group's ~470 cycles its 8 vertices'
//! three RTPT take ~170 (two words a vertex from main RAM), the rest the pair's 7 words from main
//! RAM, 15 GTE commands run one after another (MVMVA, INTPL, GPF) and the transfers between them.

use crate::gte::blend::{self as gte_blend, BlendGroups};
use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Vec3i32};
use crate::tables::{Tables, VERTEX_SIZE};

/// One entry of a group's matrix: `a + ((b - a) * w) >> 12` (wrapping i32 steps, an arithmetic shift).
#[inline(always)]
fn lerp(a: i32, b: i32, w: i32) -> i32 {
    a.wrapping_add(b.wrapping_sub(a).wrapping_mul(w) >> 12)
}

/// A rotation entry saturated to i16, as its RT half-word.
#[inline(always)]
fn half(v: i32) -> u32 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u32
}

/// The blended matrix of one group, `a + ((b - a) * w) >> 12` entry by entry (`w` FP12, clamped to
/// 0..=4096; the rotation saturated to i16): what the stage loads for a group of weight `w` between
/// `a` and `b = MV_b * rel`.
pub fn blend_matrix(a: &Matrix, b: &Matrix, w: u16) -> Matrix {
    let w = w.min(1 << 12) as i32;
    let mut rotation = [[0i16; 3]; 3];
    for (i, row) in rotation.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = half(lerp(a.rotation[i][j] as i32, b.rotation[i][j] as i32, w)) as u16 as i16;
        }
    }
    let (ta, tb) = (a.translation, b.translation);
    Matrix { rotation, translation: Vec3i32::new(lerp(ta.x, tb.x, w), lerp(ta.y, tb.y, w), lerp(ta.z, tb.z, w)) }
}

/// A pair's operands as the stage reads them: the two bones' matrices and `rel`'s words, or None
/// when a bone lies past `matrices`.
fn pair_operands<'m>(tables: &Tables, matrices: &'m [Matrix], pair: u16) -> Option<(&'m Matrix, &'m Matrix, [u32; 6])> {
    let (a, b, rel) = tables.blend_pair_words(pair as usize);
    Some((matrices.get(a as usize)?, matrices.get(b as usize)?, rel.words))
}

/// The matrix the stage loads for group `g` (< `tables.blend_group_count()`) under the bones'
/// `matrices` (None for a pair naming a bone past them), by the stage's own register operations
/// ([`crate::gte::blend`]): for tools that place the blended vertices as the console does
/// (`psxanim inspect --frame`, previews). Equals [`blend_matrix`]`(MV_a, MV_b * rel, w)` whenever the
/// differences the GTE holds in 16 bits fit them (see `gte::blend`).
pub fn group_matrix<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], g: usize) -> Option<Matrix> {
    let group = tables.blend_group(g);
    let (a, b, rel) = pair_operands(tables, matrices, group.pair)?;
    let work = gte_blend::pair_registers(gte.backend_mut(), a, b, rel);
    gte_blend::group_registers(gte.backend_mut(), &work, group.weight as u32);
    Some(gte_blend::loaded_matrix(gte.backend_mut()))
}

/// Projects every blended vertex of `tables` with the bones' model-view `matrices` into `sxy` / `sz`
/// (see the module's contract). Pairs naming a bone past `matrices` are skipped.
///
/// With matrices for every bone and room for every vertex (the renderer's case) the whole section
/// goes to [`Cop2::project_blend_groups`] at once (on the console one asm loop); otherwise, or for a
/// blob that does not sit 4-aligned, the same register operations run group by group with checks.
pub fn project_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    if tables.blend_group_count() == 0 {
        return;
    }
    let vertices = crate::bytes::aligned_words(tables.bytes(), tables.vertices_offset(), 2 * tables.vertex_count());
    let (Some(pairs), Some(groups), Some(vertices)) = (tables.blend_pairs_words(), tables.blend_group_words(), vertices) else {
        return project_blended_unaligned(gte, tables, matrices, sxy, sz);
    };
    let job = BlendGroups { pairs, groups, vertices, matrices };
    let n = tables.vertex_count();
    if matrices.len() >= tables.bone_count() && sxy.len() >= n && sz.len() >= n {
        // SAFETY: `Tables::parse` checked every pair's bones (below `bone_count`, so within
        // `matrices`), every group's pair (below the pair count the pair words hold), weight (at most
        // 4096) and vertex range (within `vertex_count`, so within `vertices`, `sxy` and `sz`).
        unsafe { gte.backend_mut().project_blend_groups(&job, sxy, sz) }
    } else {
        gte_blend::project_blend_groups_registers(gte.backend_mut(), &job, sxy, sz)
    }
}

/// [`project_blended`] for a blob that does not sit 4-aligned: the same results, read byte by byte.
#[cold]
#[inline(never)]
fn project_blended_unaligned<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    let capacity = sxy.len().min(sz.len());
    let (mut pair, mut work) = (None, None);
    for g in 0..tables.blend_group_count() {
        let group = tables.blend_group(g);
        if pair != Some(group.pair) {
            pair = Some(group.pair);
            work = pair_operands(tables, matrices, group.pair).map(|(a, b, rel)| gte_blend::pair_registers(gte.backend_mut(), a, b, rel));
        }
        let Some(work) = &work else { continue };
        let first = group.first_vertex as usize;
        let count = (group.vertex_count as usize).min(capacity.saturating_sub(first));
        gte_blend::group_registers(gte.backend_mut(), work, group.weight as u32);
        if count == 0 {
            continue;
        }
        // The group's vertex words gathered a chunk at a time (a vertex's SXY and SZ do not depend
        // on the triple it goes through).
        let mut words = [0u32; 2 * GROUP_CHUNK];
        for from in (0..count).step_by(GROUP_CHUNK) {
            let take = (count - from).min(GROUP_CHUNK);
            for (i, w) in words.chunks_exact_mut(2).take(take).enumerate() {
                let at = tables.vertices_offset() + (first + from + i) * VERTEX_SIZE;
                w[0] = u32_le(tables.bytes(), at);
                w[1] = u32_le(tables.bytes(), at + 4);
            }
            let range = first + from..first + from + take;
            gte_blend::project_group_registers(gte.backend_mut(), &words[..2 * take], &mut sxy[range.clone()], &mut sz[range]);
        }
    }
}

/// Vertices gathered at once by the unaligned path.
const GROUP_CHUNK: usize = 24;

fn u32_le(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blend_of_a_matrix_with_itself_is_itself_and_the_ends_are_the_bones() {
        let a = Matrix::new([[4096, 0, 0], [0, 0, -4096], [0, 4096, 0]], Vec3i32::new(100, -200, 3000));
        let b = Matrix::new([[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]], Vec3i32::new(-50, 70, 2900));
        assert_eq!(blend_matrix(&a, &b, 0), a);
        assert_eq!(blend_matrix(&a, &b, 4096), b);
        let half = blend_matrix(&a, &b, 2048);
        assert_eq!(half.rotation, [[2048, -2048, 0], [2048, 0, -2048], [0, 2048, 2048]]);
        assert_eq!(half.translation, Vec3i32::new(25, -65, 2950));
        assert_eq!(blend_matrix(&a, &a, 1234), a);
    }
    /// The stage's register operations give `blend_matrix(MV_a, MV_b * rel, w)` entry by entry when the
    /// differences fit 16 bits, at every weight level, for scattered matrices.
    #[test]
    fn the_registers_blend_as_blend_matrix() {
        use crate::gte::{GteModel, PackedMatrix};
        let mut seed = 0x1234_5678u32;
        let mut next = |range: i32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((seed >> 8) as i32).rem_euclid(2 * range + 1) - range
        };
        let (mut gte, mut tested) = (GteModel::new(), 0);
        for _ in 0..200 {
            let mut m = || Matrix::new([[0; 3]; 3].map(|r: [i16; 3]| r.map(|_| next(4096) as i16)), Vec3i32::new(next(30000), next(30000), next(30000)));
            let (a, b) = (m(), m());
            let rel = Matrix::new([[0; 3]; 3].map(|r: [i16; 3]| r.map(|_| next(4096) as i16)), Vec3i32::new(next(800), next(800), next(800)));
            let packed = PackedMatrix::pack(&rel).unwrap();
            let b_rel = b.mul(&rel);
            let fits = |v: i32| (i16::MIN as i32..=i16::MAX as i32).contains(&v);
            let t = |m: &Matrix| [m.translation.x, m.translation.y, m.translation.z];
            if !(0..3).all(|j| fits(b_rel.rotation[2][j] as i32 - a.rotation[2][j] as i32) && fits(t(&b_rel)[j].wrapping_sub(t(&a)[j]))) {
                continue;
            }
            tested += 1;
            for w in [0u16, 1, 128, 1024, 2048, 3000, 4095, 4096] {
                let work = gte_blend::pair_registers(&mut gte, &a, &b, packed.words);
                gte_blend::group_registers(&mut gte, &work, w as u32);
                assert_eq!(gte_blend::loaded_matrix(&mut gte), blend_matrix(&a, &b_rel, w), "weight {w}");
            }
        }
        assert!(tested > 50, "{tested} of 200 pairs within the 16-bit differences");
    }
}

