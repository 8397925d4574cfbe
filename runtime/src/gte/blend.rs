//! The blend stage's GTE work ([`Cop2::project_blend_groups`]): every blended vertex of a character
//! (`tables::blend`), at register level. This module is the definition the host model runs; the
//! console runs one hand-scheduled asm loop with the same register operations (`hw/blend.rs`).
//!
//! # Contract
//! Reads a [`BlendGroups`] job: the blend section's pair and group words, the vertex words and the
//! bones' model-view matrices. Writes the SXY and SZ words of every vertex a group covers. Overwrites
//! RT, TR, FC, V0..V2, IR0..3, MAC0..3, the colour and screen FIFOs (RT and TR end as the last group's
//! blended matrix) and, on the console, the scratchpad's work area ([`WORK_AT`], 48 bytes).
//!
//! # Steps
//! Per pair (groups come sorted by pair; a pair's work is done once for its run of groups), with
//! `A = MV_a` and `B = MV_b * rel`: RT and TR = `MV_b`; MVMVA (with TR) of `rel`'s translation gives
//! `Bt` in MAC1..3, and `d = Bt - At`; MVMVA of each of `rel`'s columns (in V0..V2) gives B's column in
//! IR1..3. The pair's work is B's three columns as IR1..3 read and `d` (the console keeps it in the
//! scratchpad's work area, [`WORK_AT`]).
//!
//! Per group of weight `w` (FP12, `b`'s share): IR0 = `4096 - w`; for each column j, FC = A's column j
//! and IR1..3 = B's, then INTPL (sf=1) gives `B + ((4096 - w) (A - B)) >> 12` =
//! `((4096 - w) A + w B) >> 12`, the blended column (saturated to i16). Then IR0 = `w`, IR1..3 = `d`
//! (its low 16 bits) and GPF (sf=1) gives `(w d) >> 12`, plus `At` the translation. They go to RT
//! and TR, and the group's vertices through RTPT: whole triples, then the last three again (their
//! results are the same); a group of one or two vertices takes one RTPT of (first, last, last).
//!
//! The result equals `render::blend::blend_matrix(A, B, w)` entry by entry whenever the differences
//! `A - B` of the rotations and the translation's `Bt - At` fit i16 (INTPL's difference and IR1..3
//! hold 16 bits): rotations' entries lie within +-4096 and a pair's two predictions of the same point
//! differ by far less than 8 m, so they always do on a skeleton; beyond, the rotation's difference
//! saturates and the translation's takes its low 16 bits, the same on the console and the host.

use super::{rtpt_registers, Cop2};
use super::regs::{cmd, ctrl, data};
use crate::math::{Matrix, Vec3i32};

/// MVMVA sf=1, lm=0 forms of the stage.
pub(crate) const MVMVA_RT_V0: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V1: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V1, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V2: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V2, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V0_TR: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_TR, 0);
/// INTPL and GPF with sf=1 (results shifted right by 12).
pub(crate) const INTPL_SF1: u32 = cmd::INTPL | cmd::SF;
pub(crate) const GPF_SF1: u32 = cmd::GPF | cmd::SF;

/// The scratchpad address of the console's work area (B's columns, then `d`: 12 words), after the
/// matrix stage's room (`render::project::STAGED_BONES` matrices).
pub const WORK_AT: usize = 0x1F80_03C0;

/// Words of one pair in the blend section: `a | b << 16`, then `rel` as a [`super::PackedMatrix`].
pub const PAIR_WORDS: usize = 7;
/// Words of one group: `pair | weight << 16`, `first | count << 16`.
pub const GROUP_WORDS: usize = 2;

/// What [`Cop2::project_blend_groups`] reads.
#[derive(Clone, Copy, Debug)]
pub struct BlendGroups<'a> {
    /// The pairs, [`PAIR_WORDS`] each.
    pub pairs: &'a [u32],
    /// The groups, [`GROUP_WORDS`] each, sorted by pair.
    pub groups: &'a [u32],
    /// Vertex words (`x | y << 16`, `z`), two a vertex.
    pub vertices: &'a [u32],
    /// The bones' model-view matrices.
    pub matrices: &'a [Matrix],
}

const fn pack(lo: i32, hi: i32) -> u32 {
    lo as u32 & 0xFFFF | (hi as u32) << 16
}

/// A matrix register's five words from its rows (entries as 16-bit halves).
fn matrix_words(m: [[i32; 3]; 3]) -> [u32; 5] {
    [pack(m[0][0], m[0][1]), pack(m[0][2], m[1][0]), pack(m[1][1], m[1][2]), pack(m[2][0], m[2][1]), m[2][2] as u32 & 0xFFFF]
}

fn ir123<C: Cop2 + ?Sized>(gte: &mut C) -> [i32; 3] {
    [gte.read_data::<{ data::IR1 }>() as i32, gte.read_data::<{ data::IR2 }>() as i32, gte.read_data::<{ data::IR3 }>() as i32]
}

fn mac123<C: Cop2 + ?Sized>(gte: &mut C) -> [i32; 3] {
    [gte.read_data::<{ data::MAC1 }>() as i32, gte.read_data::<{ data::MAC2 }>() as i32, gte.read_data::<{ data::MAC3 }>() as i32]
}

/// What a pair's registers leave for its groups: `A` (read again by each group), B's columns as
/// IR1..3 read them, and `Bt - At`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairWork {
    a: Matrix,
    columns: [[u32; 3]; 3],
    d: [u32; 3],
}

/// A pair's registers (see the module's steps): `a = MV_a`, `b = MV_b`, `rel` its packed words.
pub(crate) fn pair_registers<C: Cop2 + ?Sized>(gte: &mut C, a: &Matrix, b: &Matrix, rel: [u32; 6]) -> PairWork {
    let rt = matrix_words(b.rotation.map(|row| row.map(|e| e as i32)));
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(rt[0]);
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(rt[1]);
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(rt[2]);
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(rt[3]);
    gte.write_ctrl::<{ ctrl::RT33 }>(rt[4]);
    gte.write_ctrl::<{ ctrl::TRX }>(b.translation.x as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(b.translation.y as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(b.translation.z as u32);
    let [c0, c1, c2, txy, z01, z2tz] = rel;
    gte.write_data::<{ data::VXY1 }>(c1);
    gte.write_data::<{ data::VXY2 }>(c2);
    gte.write_data::<{ data::VZ1 }>(z01 >> 16);
    gte.write_data::<{ data::VZ2 }>(z2tz);
    gte.write_data::<{ data::VXY0 }>(txy);
    gte.write_data::<{ data::VZ0 }>(z2tz >> 16);
    gte.command::<{ MVMVA_RT_V0_TR }>();
    let bt = mac123(gte);
    let at = [a.translation.x, a.translation.y, a.translation.z];
    let d = [0, 1, 2].map(|i| bt[i].wrapping_sub(at[i]) as u32);
    gte.write_data::<{ data::VXY0 }>(c0);
    gte.write_data::<{ data::VZ0 }>(z01);
    gte.command::<{ MVMVA_RT_V0 }>();
    let b0 = ir123(gte);
    gte.command::<{ MVMVA_RT_V1 }>();
    let b1 = ir123(gte);
    gte.command::<{ MVMVA_RT_V2 }>();
    let b2 = ir123(gte);
    PairWork { a: *a, columns: [b0, b1, b2].map(|c| c.map(|e| e as u32)), d }
}

/// A group's blended matrix into RT and TR, after [`pair_registers`] of its pair (`work` what that
/// returned, `weight` FP12 in 0..=4096).
pub(crate) fn group_registers<C: Cop2 + ?Sized>(gte: &mut C, work: &PairWork, weight: u32) {
    let a = &work.a;
    gte.write_data::<{ data::IR0 }>(4096u32.wrapping_sub(weight));
    let columns = [0, 1, 2].map(|j| {
        gte.write_ctrl::<{ ctrl::RFC }>(a.rotation[0][j] as i32 as u32);
        gte.write_ctrl::<{ ctrl::GFC }>(a.rotation[1][j] as i32 as u32);
        gte.write_ctrl::<{ ctrl::BFC }>(a.rotation[2][j] as i32 as u32);
        let [x, y, z] = work.columns[j];
        gte.write_data::<{ data::IR1 }>(x);
        gte.write_data::<{ data::IR2 }>(y);
        gte.write_data::<{ data::IR3 }>(z);
        gte.command::<{ INTPL_SF1 }>();
        ir123(gte)
    });
    // Row i of the blended matrix is entry i of each column.
    let rt = matrix_words([0, 1, 2].map(|i| columns.map(|c| c[i])));
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(rt[0]);
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(rt[1]);
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(rt[2]);
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(rt[3]);
    gte.write_ctrl::<{ ctrl::RT33 }>(rt[4]);
    gte.write_data::<{ data::IR0 }>(weight);
    gte.write_data::<{ data::IR1 }>(work.d[0]);
    gte.write_data::<{ data::IR2 }>(work.d[1]);
    gte.write_data::<{ data::IR3 }>(work.d[2]);
    gte.command::<{ GPF_SF1 }>();
    let t = ir123(gte);
    gte.write_ctrl::<{ ctrl::TRX }>(a.translation.x.wrapping_add(t[0]) as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(a.translation.y.wrapping_add(t[1]) as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(a.translation.z.wrapping_add(t[2]) as u32);
}

/// The matrix [`group_registers`] left in RT and TR.
pub(crate) fn loaded_matrix<C: Cop2 + ?Sized>(gte: &mut C) -> Matrix {
    let rt = [
        gte.read_ctrl::<{ ctrl::RT11RT12 }>(),
        gte.read_ctrl::<{ ctrl::RT13RT21 }>(),
        gte.read_ctrl::<{ ctrl::RT22RT23 }>(),
        gte.read_ctrl::<{ ctrl::RT31RT32 }>(),
        gte.read_ctrl::<{ ctrl::RT33 }>(),
    ];
    let (lo, hi) = (|w: u32| w as u16 as i16, |w: u32| (w >> 16) as u16 as i16);
    Matrix {
        rotation: [[lo(rt[0]), hi(rt[0]), lo(rt[1])], [hi(rt[1]), lo(rt[2]), hi(rt[2])], [lo(rt[3]), hi(rt[3]), lo(rt[4])]],
        translation: Vec3i32::new(
            gte.read_ctrl::<{ ctrl::TRX }>() as i32,
            gte.read_ctrl::<{ ctrl::TRY }>() as i32,
            gte.read_ctrl::<{ ctrl::TRZ }>() as i32,
        ),
    }
}

/// A group's vertices (`words`, two each) with the loaded matrix into `sxy` / `sz` (as many as both
/// hold): whole triples, then the last three again; one or two vertices by one RTPT of (first, last,
/// last).
pub(crate) fn project_group_registers<C: Cop2 + ?Sized>(gte: &mut C, words: &[u32], sxy: &mut [u32], sz: &mut [u32]) {
    let count = (words.len() / 2).min(sxy.len()).min(sz.len());
    if count == 0 {
        return;
    }
    if count < 3 {
        let l = 2 * (count - 1);
        let (mut xy, mut z) = ([0; 3], [0; 3]);
        rtpt_registers(gte, [words[0], words[1], words[l], words[l + 1], words[l], words[l + 1]], &mut xy, &mut z);
        sxy[..count].copy_from_slice(&xy[..count]);
        sz[..count].copy_from_slice(&z[..count]);
        return;
    }
    let mut k = 0;
    loop {
        let v = &words[2 * k..2 * k + 6];
        rtpt_registers(gte, [v[0], v[1], v[2], v[3], v[4], v[5]], &mut sxy[k..k + 3], &mut sz[k..k + 3]);
        let left = count - k - 3;
        if left == 0 {
            return;
        }
        k += left.min(3);
    }
}

/// [`Cop2::project_blend_groups`]'s definition, safe on any job: a group naming a pair or bone past
/// the job's slices is skipped, its vertices cut to what `vertices`, `sxy` and `sz` hold.
pub(crate) fn project_blend_groups_registers<C: Cop2 + ?Sized>(gte: &mut C, job: &BlendGroups, sxy: &mut [u32], sz: &mut [u32]) {
    let capacity = sxy.len().min(sz.len()).min(job.vertices.len() / 2);
    let (mut pair, mut work) = (u32::MAX, None);
    for g in job.groups.chunks_exact(GROUP_WORDS) {
        if g[0] & 0xFFFF != pair {
            pair = g[0] & 0xFFFF;
            work = pair_operands(job, pair as usize).map(|(a, b, rel)| pair_registers(gte, a, b, rel));
        }
        let Some(work) = &work else { continue };
        let first = (g[1] & 0xFFFF) as usize;
        let count = ((g[1] >> 16) as usize).min(capacity.saturating_sub(first));
        group_registers(gte, work, g[0] >> 16);
        if count != 0 {
            let end = first + count;
            project_group_registers(gte, &job.vertices[2 * first..2 * end], &mut sxy[first..end], &mut sz[first..end]);
        }
    }
}

/// Pair `p`'s matrices and `rel` words, or None when the pair or a bone lies past the job.
pub(crate) fn pair_operands<'a>(job: &BlendGroups<'a>, p: usize) -> Option<(&'a Matrix, &'a Matrix, [u32; 6])> {
    let w = job.pairs.get(PAIR_WORDS * p..PAIR_WORDS * (p + 1))?;
    let (a, b) = ((w[0] & 0xFFFF) as usize, (w[0] >> 16) as usize);
    Some((job.matrices.get(a)?, job.matrices.get(b)?, [w[1], w[2], w[3], w[4], w[5], w[6]]))
}
