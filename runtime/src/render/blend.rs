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
//! Per pair (groups come sorted by pair): `MV_b' = MV_b * rel` by [`Gte::compose`] (the rotation by
//! MVMVA, bit-identical to [`Matrix::mul`]), and the difference `D = MV_b' - MV_a`, entry by entry
//! (i32). Per group of weight `w` (FP12, bone `b`'s share): `M = MV_a + (D * w) >> 12` entry by entry
//! (arithmetic shift; the rotation saturated to i16), loaded as RT / TR, and the group's vertices
//! projected by RTPT three at a time exactly as a rigid range ([`super::project`]). Linear blend
//! skinning is linear in the matrices: `M * p = (1 - w) * MV_a * p + w * MV_b * rel * p`, up to the
//! FP12 rounding of `M`'s entries.
//!
//! Cost: one compose per pair, twelve multiplies per group, and per vertex what a rigid vertex
//! costs; the importer quantises the weights (`--blend-levels`) so that groups stay large.

use super::project::{project_bytes, project_words};
use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Vec3i32};
use crate::tables::{Tables, VERTEX_SIZE};

/// `MV_b' - MV_a`, entry by entry.
#[derive(Clone, Copy, Debug, Default)]
struct Delta {
    rotation: [[i32; 3]; 3],
    translation: [i32; 3],
}

impl Delta {
    fn between(a: &Matrix, b: &Matrix) -> Delta {
        let mut rotation = [[0; 3]; 3];
        for (i, row) in rotation.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e = b.rotation[i][j] as i32 - a.rotation[i][j] as i32;
            }
        }
        let (ta, tb) = (a.translation, b.translation);
        Delta { rotation, translation: [tb.x.wrapping_sub(ta.x), tb.y.wrapping_sub(ta.y), tb.z.wrapping_sub(ta.z)] }
    }
}

/// The blended matrix of one group, `a + ((b - a) * w) >> 12` entry by entry (`w` FP12, 0..=4096;
/// the rotation saturated to i16): what the stage loads for a group of weight `w` between `a` and
/// `b = MV_b * rel`.
pub fn blend_matrix(a: &Matrix, b: &Matrix, w: u16) -> Matrix {
    blend_with(a, &Delta::between(a, b), w)
}

#[inline(never)]
fn blend_with(a: &Matrix, d: &Delta, w: u16) -> Matrix {
    let w = w.min(1 << 12) as i32;
    let mut rotation = [[0i16; 3]; 3];
    for (i, row) in rotation.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            let v = a.rotation[i][j] as i32 + ((d.rotation[i][j] * w) >> 12);
            *e = v.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        }
    }
    let t = |a: i32, d: i32| a.wrapping_add(d.wrapping_mul(w) >> 12);
    let (ta, dt) = (a.translation, d.translation);
    Matrix { rotation, translation: Vec3i32::new(t(ta.x, dt[0]), t(ta.y, dt[1]), t(ta.z, dt[2])) }
}

/// Projects every blended vertex of `tables` with the bones' model-view `matrices` into `sxy` / `sz`
/// (see the module's contract). Pairs naming a bone past `matrices` are skipped.
pub fn project_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    let groups = tables.blend_group_count();
    if groups == 0 {
        return;
    }
    let bytes = tables.bytes();
    let base = tables.vertices_offset();
    let words = crate::bytes::aligned_words(bytes, base, 2 * tables.vertex_count());
    let capacity = sxy.len().min(sz.len());
    let mut current: Option<(u16, Matrix, Delta)> = None;
    for g in 0..groups {
        let group = tables.blend_group(g);
        let first = group.first_vertex as usize;
        let count = (group.vertex_count as usize).min(capacity.saturating_sub(first));
        if count == 0 {
            continue;
        }
        if current.as_ref().is_none_or(|c| c.0 != group.pair) {
            let pair = tables.blend_pair(group.pair as usize);
            let (Some(a), Some(b)) = (matrices.get(pair.a as usize), matrices.get(pair.b as usize)) else {
                current = None;
                continue;
            };
            let b = gte.compose(b, &pair.rel);
            current = Some((group.pair, *a, Delta::between(a, &b)));
        }
        let Some((_, a, d)) = current.as_ref() else { continue };
        let m = blend_with(a, d, group.weight);
        let (sxy, sz) = (&mut sxy[first..first + count], &mut sz[first..first + count]);
        match words.as_ref().and_then(|w| w.get(2 * first..2 * (first + count))) {
            Some(w) => project_words(gte, &m, w, sxy, sz),
            None => project_bytes(gte, &m, bytes, base + first * VERTEX_SIZE, count, sxy, sz),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blend_of_a_matrix_with_itself_is_itself_and_the_ends_are_the_bones() {
        let a = Matrix::new([[4096, 0, 0], [0, 0, -4096], [0, 4096, 0]], Vec3i32::new(100, -200, 3000));
        let b = Matrix::new([[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]], Vec3i32::new(-50, 70, 2900));
        let d = Delta::between(&a, &b);
        assert_eq!(blend_with(&a, &d, 0), a);
        assert_eq!(blend_with(&a, &d, 4096), b);
        let half = blend_with(&a, &d, 2048);
        assert_eq!(half.rotation, [[2048, -2048, 0], [2048, 0, -2048], [0, 2048, 2048]]);
        assert_eq!(half.translation, Vec3i32::new(25, -65, 2950));
        assert_eq!(blend_with(&a, &Delta::between(&a, &a), 1234), a);
    }
}
