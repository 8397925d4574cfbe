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
//! # Steps (all integer, on the GTE and the CPU, the same code on the console and the host model)
//! Per pair (groups come sorted by pair): `MV_b' = MV_b * rel` by [`Gte::compose_packed`] (three
//! MVMVA for the rotation, one with TR for the translation), and the difference `D = MV_b' - MV_a`, entry by entry
//! (i32). Per group of weight `w` (FP12, bone `b`'s share): `M = MV_a + (D * w) >> 12` entry by entry
//! (arithmetic shift; the rotation saturated to i16), each entry computed into its RT / TR register, and the group's vertices
//! projected by RTPT three at a time exactly as a rigid range ([`super::project`]). Linear blend
//! skinning is linear in the matrices: `M * p = (1 - w) * MV_a * p + w * MV_b * rel * p`, up to the
//! FP12 rounding of `M`'s entries.
//!
//! Cost: one compose per pair, twelve multiplies per group, and per vertex what a rigid vertex
//! costs; the importer quantises the weights (`--blend-levels`) so that groups stay large. Measured on
//! mednafen (the character example's bench, 10 pairs of one 8-vertex group each): about 27 cycles a
//! vertex for the RTPTs but about 1,000 a group for its matrix (the pair's compose and loads of both
//! matrices from main RAM, twelve multiplies), 154 cycles a blended vertex in all; the 60
//! needs that per-group work in registers or the scratchpad (an asm loop), or fewer groups.

use super::project::{project_loaded_bytes, project_loaded_words};
use crate::gte::regs::ctrl;
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

/// Loads RT and TR with [`blend_matrix`]`(a, b, w)`, each entry computed and written straight to its
/// register (no matrix in memory: the console has no data cache, and the operands' loads and stores
/// were most of a group's cost).
#[inline(never)]
fn load_blend<B: Cop2>(gte: &mut Gte<B>, a: &Matrix, b: &Matrix, w: u16) {
    let w = w.min(1 << 12) as i32;
    let (ra, rb) = (&a.rotation, &b.rotation);
    let e = |i: usize, j: usize| half(lerp(ra[i][j] as i32, rb[i][j] as i32, w));
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(e(0, 0) | e(0, 1) << 16);
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(e(0, 2) | e(1, 0) << 16);
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(e(1, 1) | e(1, 2) << 16);
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(e(2, 0) | e(2, 1) << 16);
    gte.write_ctrl::<{ ctrl::RT33 }>(e(2, 2));
    let (ta, tb) = (a.translation, b.translation);
    gte.write_ctrl::<{ ctrl::TRX }>(lerp(ta.x, tb.x, w) as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(lerp(ta.y, tb.y, w) as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(lerp(ta.z, tb.z, w) as u32);
}

/// A pair's bone a and `MV_b * rel` (by [`Gte::compose_packed`], the console's hand-written loop),
/// or None when a bone lies past `matrices`.
#[inline(never)]
fn pair_operands<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], pair: u16, b_rel: &mut Matrix) -> Option<usize> {
    let (bone_a, bone_b, rel) = tables.blend_pair_words(pair as usize);
    let (a, b) = (bone_a as usize, bone_b as usize);
    let mb = matrices.get(b)?;
    matrices.get(a)?;
    gte.set_matrix(mb);
    gte.compose_packed(&[rel], core::slice::from_mut(b_rel));
    Some(a)
}

/// The matrix the stage loads for group `g` (< `tables.blend_group_count()`) under the bones'
/// `matrices` (None for a pair naming a bone past them): for tools that place the blended vertices
/// as the console does (`psxanim inspect --frame`, previews).
pub fn group_matrix<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], g: usize) -> Option<Matrix> {
    let group = tables.blend_group(g);
    let mut b_rel = Matrix::IDENTITY;
    let a = pair_operands(gte, tables, matrices, group.pair, &mut b_rel)?;
    Some(blend_matrix(&matrices[a], &b_rel, group.weight))
}

/// One group's vertices with the loaded matrix, as [`project_loaded_words`] projects them (whole
/// triples, then the last three again, or a short group apart): kept small, the stage's loop stays
/// within the console's 4 KiB instruction cache. `words`, `sxy` and `sz` hold the group's vertices.
#[inline(never)]
fn project_group<B: Cop2>(gte: &mut Gte<B>, words: &[u32], sxy: &mut [u32], sz: &mut [u32]) {
    let count = sxy.len();
    if count < 3 {
        return project_short(gte, words, sxy, sz);
    }
    let done = gte.backend_mut().rtpt_words(words, sxy, sz);
    if done < count {
        let last = count - 3;
        gte.backend_mut().rtpt_words(&words[2 * last..], &mut sxy[last..], &mut sz[last..]);
    }
}

/// A group of one or two vertices.
#[cold]
#[inline(never)]
fn project_short<B: Cop2>(gte: &mut Gte<B>, words: &[u32], sxy: &mut [u32], sz: &mut [u32]) {
    project_loaded_words(gte, words, sxy, sz)
}

/// Projects every blended vertex of `tables` with the bones' model-view `matrices` into `sxy` / `sz`
/// (see the module's contract). Pairs naming a bone past `matrices` are skipped.
pub fn project_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    if tables.blend_group_count() == 0 {
        return;
    }
    let vertex_words = crate::bytes::aligned_words(tables.bytes(), tables.vertices_offset(), 2 * tables.vertex_count());
    let (Some(groups), Some(vertex_words)) = (tables.blend_group_words(), vertex_words) else {
        return project_blended_unaligned(gte, tables, matrices, sxy, sz);
    };
    let capacity = sxy.len().min(sz.len());
    let mut b_rel = Matrix::IDENTITY;
    let (mut pair, mut a) = (u32::MAX, None);
    for g in groups.chunks_exact(2) {
        let (first, count) = ((g[1] & 0xFFFF) as usize, (g[1] >> 16) as usize);
        let count = count.min(capacity.saturating_sub(first));
        if count == 0 {
            continue;
        }
        if g[0] & 0xFFFF != pair {
            pair = g[0] & 0xFFFF;
            a = pair_operands(gte, tables, matrices, pair as u16, &mut b_rel);
        }
        let (Some(ma), Some(words)) = (a.and_then(|a| matrices.get(a)), vertex_words.get(2 * first..2 * (first + count))) else {
            continue;
        };
        load_blend(gte, ma, &b_rel, (g[0] >> 16) as u16);
        project_group(gte, words, &mut sxy[first..first + count], &mut sz[first..first + count]);
    }
}

/// [`project_blended`] for a blob that does not sit 4-aligned: the same results, read byte by byte.
#[cold]
#[inline(never)]
fn project_blended_unaligned<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    let capacity = sxy.len().min(sz.len());
    let mut b_rel = Matrix::IDENTITY;
    let (mut pair, mut a) = (None, None);
    for g in 0..tables.blend_group_count() {
        let group = tables.blend_group(g);
        let first = group.first_vertex as usize;
        let count = (group.vertex_count as usize).min(capacity.saturating_sub(first));
        if count == 0 {
            continue;
        }
        if pair != Some(group.pair) {
            pair = Some(group.pair);
            a = pair_operands(gte, tables, matrices, group.pair, &mut b_rel);
        }
        let Some(ma) = a.and_then(|a| matrices.get(a)) else { continue };
        load_blend(gte, ma, &b_rel, group.weight);
        let start = tables.vertices_offset() + first * VERTEX_SIZE;
        project_loaded_bytes(gte, tables.bytes(), start, count, &mut sxy[first..first + count], &mut sz[first..first + count]);
    }
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
}
