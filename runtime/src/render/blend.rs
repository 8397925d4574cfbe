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
//! (arithmetic shift; the rotation saturated to i16), loaded as RT / TR, and the group's vertices
//! projected by RTPT three at a time exactly as a rigid range ([`super::project`]). Linear blend
//! skinning is linear in the matrices: `M * p = (1 - w) * MV_a * p + w * MV_b * rel * p`, up to the
//! FP12 rounding of `M`'s entries.
//!
//! Cost: one compose per pair, twelve multiplies per group, and per vertex what a rigid vertex
//! costs; the importer quantises the weights (`--blend-levels`) so that groups stay large. Measured on
//! mednafen (the character example's bench, 10 pairs of one 8-vertex group each): about 27 cycles a
//! vertex for the RTPTs but about 2,000 a group for its matrix (main-RAM loads and stores of the
//! operands dominate), 250 cycles a blended vertex in all; the 60 needs that per-group
//! work in registers or the scratchpad (an asm loop), or fewer groups.

use super::project::{project_bytes, project_words};
use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Vec3i32};
use crate::tables::{Tables, VERTEX_SIZE};

/// A matrix as twelve i32 entries: the rotation row by row, then the translation.
type Entries = [i32; 12];

fn entries(m: &Matrix) -> Entries {
    let r = &m.rotation;
    let t = m.translation;
    [
        r[0][0] as i32, r[0][1] as i32, r[0][2] as i32, r[1][0] as i32, r[1][1] as i32, r[1][2] as i32,
        r[2][0] as i32, r[2][1] as i32, r[2][2] as i32, t.x, t.y, t.z,
    ]
}

/// `a + (d * w) >> 12` entry by entry (`w` FP12, clamped to 0..=4096; wrapping i32 steps, an
/// arithmetic shift), the rotation saturated to i16. Out of line and loop-shaped: the stage's loop
/// (this, the pair's compose and the RTPT loop) stays within the console's 4 KiB instruction cache.
#[inline(never)]
fn blend_entries(a: &Entries, d: &Entries, w: u16) -> Matrix {
    let w = w.min(1 << 12) as i32;
    let mut e = [0i32; 12];
    for k in 0..12 {
        e[k] = a[k].wrapping_add(d[k].wrapping_mul(w) >> 12);
    }
    let s = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    Matrix {
        rotation: [[s(e[0]), s(e[1]), s(e[2])], [s(e[3]), s(e[4]), s(e[5])], [s(e[6]), s(e[7]), s(e[8])]],
        translation: Vec3i32::new(e[9], e[10], e[11]),
    }
}

/// The blended matrix of one group, `a + ((b - a) * w) >> 12` entry by entry (`w` FP12, 0..=4096;
/// the rotation saturated to i16): what the stage loads for a group of weight `w` between `a` and
/// `b = MV_b * rel`.
pub fn blend_matrix(a: &Matrix, b: &Matrix, w: u16) -> Matrix {
    let (a, b) = (entries(a), entries(b));
    let mut d = [0i32; 12];
    for k in 0..12 {
        d[k] = b[k].wrapping_sub(a[k]);
    }
    blend_entries(&a, &d, w)
}

/// A pair's operands: `MV_a` and `MV_b * rel - MV_a` (entries; the compose by
/// [`Gte::compose_packed`], the console's hand-written loop), or false when a bone lies past
/// `matrices`.
#[inline(never)]
fn pair_operands<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], pair: u16, a: &mut Entries, d: &mut Entries) -> bool {
    let (bone_a, bone_b, rel) = tables.blend_pair_words(pair as usize);
    let (Some(ma), Some(mb)) = (matrices.get(bone_a as usize), matrices.get(bone_b as usize)) else {
        return false;
    };
    let mut composed = [Matrix::IDENTITY];
    gte.set_matrix(mb);
    gte.compose_packed(&[rel], &mut composed);
    let mb = entries(&composed[0]);
    *a = entries(ma);
    for k in 0..12 {
        d[k] = mb[k].wrapping_sub(a[k]);
    }
    true
}

/// The matrix the stage loads for group `g` (< `tables.blend_group_count()`) under the bones'
/// `matrices` (None for a pair naming a bone past them): for tools that place the blended vertices
/// as the console does (`psxanim inspect --frame`, previews).
pub fn group_matrix<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], g: usize) -> Option<Matrix> {
    let group = tables.blend_group(g);
    let (mut a, mut d) = ([0; 12], [0; 12]);
    pair_operands(gte, tables, matrices, group.pair, &mut a, &mut d).then(|| blend_entries(&a, &d, group.weight))
}

/// Groups whose matrices are made, then projected, in one go: each of the two loops (and what it
/// calls) stays within the console's 4 KiB instruction cache, which the whole stage in one loop does not.
const BATCH: usize = 16;

/// The pair whose operands are loaded.
struct PairState {
    pair: Option<u16>,
    usable: bool,
    a: Entries,
    d: Entries,
}

/// Group `g`: pair, weight, first vertex, vertex count.
#[inline(always)]
fn group_at(tables: &Tables, words: Option<&[u32]>, g: usize) -> (u16, u16, usize, usize) {
    match words {
        Some(w) => (w[2 * g] as u16, (w[2 * g] >> 16) as u16, (w[2 * g + 1] & 0xFFFF) as usize, (w[2 * g + 1] >> 16) as usize),
        None => {
            let group = tables.blend_group(g);
            (group.pair, group.weight, group.first_vertex as usize, group.vertex_count as usize)
        }
    }
}

/// The blended matrices of groups `from..from + out.len()` (`usable[i]` false for a pair naming a
/// bone past `matrices`).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn blend_batch<B: Cop2>(
    gte: &mut Gte<B>,
    tables: &Tables,
    words: Option<&[u32]>,
    matrices: &[Matrix],
    from: usize,
    out: &mut [Matrix],
    usable: &mut [bool],
    state: &mut PairState,
) {
    for (i, (m, ok)) in out.iter_mut().zip(usable.iter_mut()).enumerate() {
        let (pair, weight, ..) = group_at(tables, words, from + i);
        if state.pair != Some(pair) {
            state.pair = Some(pair);
            state.usable = pair_operands(gte, tables, matrices, pair, &mut state.a, &mut state.d);
        }
        *ok = state.usable;
        if state.usable {
            *m = blend_entries(&state.a, &state.d, weight);
        }
    }
}

/// Projects groups `from..from + batch.len()` with their matrices: RTPT three at a time from the
/// vertex words (or byte by byte for a blob not 4-aligned), as a rigid range.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn project_batch<B: Cop2>(
    gte: &mut Gte<B>,
    tables: &Tables,
    words: Option<&[u32]>,
    vertex_words: Option<&[u32]>,
    from: usize,
    batch: &[Matrix],
    usable: &[bool],
    sxy: &mut [u32],
    sz: &mut [u32],
) {
    let capacity = sxy.len().min(sz.len());
    for (i, (m, &ok)) in batch.iter().zip(usable).enumerate() {
        let (_, _, first, count) = group_at(tables, words, from + i);
        let count = count.min(capacity.saturating_sub(first));
        if !ok || count == 0 {
            continue;
        }
        let (sxy, sz) = (&mut sxy[first..first + count], &mut sz[first..first + count]);
        match vertex_words.and_then(|w| w.get(2 * first..2 * (first + count))) {
            Some(w) => project_words(gte, m, w, sxy, sz),
            None => project_bytes(gte, m, tables.bytes(), tables.vertices_offset() + first * VERTEX_SIZE, count, sxy, sz),
        }
    }
}

/// Projects every blended vertex of `tables` with the bones' model-view `matrices` into `sxy` / `sz`
/// (see the module's contract). Pairs naming a bone past `matrices` are skipped.
pub fn project_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32]) {
    let groups = tables.blend_group_count();
    if groups == 0 {
        return;
    }
    let words = tables.blend_group_words();
    let vertex_words = crate::bytes::aligned_words(tables.bytes(), tables.vertices_offset(), 2 * tables.vertex_count());
    let mut state = PairState { pair: None, usable: false, a: [0; 12], d: [0; 12] };
    let (mut batch, mut usable) = ([Matrix::IDENTITY; BATCH], [false; BATCH]);
    let mut from = 0;
    while from < groups {
        let n = (groups - from).min(BATCH);
        blend_batch(gte, tables, words, matrices, from, &mut batch[..n], &mut usable[..n], &mut state);
        project_batch(gte, tables, words, vertex_words, from, &batch[..n], &usable[..n], sxy, sz);
        from += n;
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
