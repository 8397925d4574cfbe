//! The blend stage's GTE work ([`Cop2::project_blend_groups`]): every blended vertex of a character
//! (`tables::blend`), at register level. This module is the definition the host model runs; the
//! console runs one hand-scheduled asm loop with the same register operations (`hw/blend.rs`).
//!
//! # Contract
//! Reads a [`BlendGroups`] job: the blend section's pair and group words, the vertex words and the
//! bones' model-view matrices. Writes the SXY and SZ words of every vertex a group covers. Overwrites
//! RT, TR, LLM, LCM, BK, V0..V2, IR0..3, MAC0..3 and the screen FIFOs (RT and TR end as the last
//! group's blended matrix).
//!
//! # Steps
//! Per pair (groups come sorted by pair; a pair's work is done once for its run of groups): with
//! `A = MV_a` and `B = MV_b * rel` (RT and TR = `MV_b`, `rel`'s columns in V0..V2, three MVMVA read
//! from IR1..3, the translation by MVMVA with TR read from MAC1..3, as `Gte::compose_packed`):
//!
//! ```text
//! LLM rows (A[0][j], B[0][j], B[2][j] - A[2][j])   j = 0, 1, 2   (entries as 16-bit halves)
//! LCM rows (A[1][j], B[1][j], Bt[j] - At[j])
//! BK = A's third row (A[2][0], A[2][1], A[2][2])
//! ```
//!
//! Per group of weight `w` (FP12, `b`'s share): V0 = (4096 - w, w, 0), V1 = (0, 0, w), TR = `At`;
//! MVMVA (sf=1, lm=0) LLM * V0 gives row 0 of the blended matrix, LCM * V0 row 1 (both
//! `((4096 - w) A + w B) >> 12`, saturated to i16), LLM * V1 + BK row 2 (`A + (w (B - A)) >> 12`),
//! LCM * V1 + TR the translation (`At + (w (Bt - At)) >> 12`, from MAC1..3). They go to RT and TR, and
//! the group's vertices through RTPT: whole triples, then the last three again (their results are
//! the same); a group of one or two vertices takes one RTPT of (first, last, last).
//!
//! The result equals `render::blend::blend_matrix(A, B, w)` entry by entry whenever the third row's
//! differences `B[2][j] - A[2][j]` and the translation's `Bt - At` fit i16 (the GTE's matrix
//! registers hold 16 bits): rotations' entries lie within +-4096 and a pair's two predictions of the
//! same point differ by far less than 8 m, so they always do on a skeleton; beyond, those entries take
//! the difference's low 16 bits, the same on the console and the host.

use super::{rtpt_registers, Cop2};
use super::regs::{cmd, ctrl, data};
use crate::math::{Matrix, Vec3i32};

/// MVMVA sf=1, lm=0 forms of the stage.
pub(crate) const MVMVA_RT_V0: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V1: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V1, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V2: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V2, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_V0_TR: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_TR, 0);
pub(crate) const MVMVA_LLM_V0: u32 = cmd::mvmva(1, cmd::MX_LLM, cmd::V_V0, cmd::CV_NONE, 0);
pub(crate) const MVMVA_LCM_V0: u32 = cmd::mvmva(1, cmd::MX_LCM, cmd::V_V0, cmd::CV_NONE, 0);
pub(crate) const MVMVA_LLM_V1_BK: u32 = cmd::mvmva(1, cmd::MX_LLM, cmd::V_V1, cmd::CV_BK, 0);
pub(crate) const MVMVA_LCM_V1_TR: u32 = cmd::mvmva(1, cmd::MX_LCM, cmd::V_V1, cmd::CV_TR, 0);

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

/// A pair's registers (see the module's steps): `a = MV_a`, `b = MV_b`, `rel` its packed words.
/// Returns `At`, the translation each group of the pair loads into TR.
pub(crate) fn pair_registers<C: Cop2 + ?Sized>(gte: &mut C, a: &Matrix, b: &Matrix, rel: [u32; 6]) -> [i32; 3] {
    let r = &b.rotation;
    let rt = matrix_words(r.map(|row| row.map(|e| e as i32)));
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
    gte.write_data::<{ data::VXY0 }>(c0);
    gte.write_data::<{ data::VZ0 }>(z01);
    gte.command::<{ MVMVA_RT_V0 }>();
    let b0 = ir123(gte);
    gte.command::<{ MVMVA_RT_V1 }>();
    let b1 = ir123(gte);
    gte.command::<{ MVMVA_RT_V2 }>();
    let b2 = ir123(gte);
    // B[i][j] = column j's entry i.
    let bm = [[b0[0], b1[0], b2[0]], [b0[1], b1[1], b2[1]], [b0[2], b1[2], b2[2]]];
    let am = a.rotation.map(|row| row.map(|e| e as i32));
    let at = [a.translation.x, a.translation.y, a.translation.z];
    let llm = matrix_words([0, 1, 2].map(|j| [am[0][j], bm[0][j], bm[2][j].wrapping_sub(am[2][j])]));
    let lcm = matrix_words([0, 1, 2].map(|j| [am[1][j], bm[1][j], bt[j].wrapping_sub(at[j])]));
    gte.write_ctrl::<{ ctrl::L11L12 }>(llm[0]);
    gte.write_ctrl::<{ ctrl::L13L21 }>(llm[1]);
    gte.write_ctrl::<{ ctrl::L22L23 }>(llm[2]);
    gte.write_ctrl::<{ ctrl::L31L32 }>(llm[3]);
    gte.write_ctrl::<{ ctrl::L33 }>(llm[4]);
    gte.write_ctrl::<{ ctrl::LR1LR2 }>(lcm[0]);
    gte.write_ctrl::<{ ctrl::LR3LG1 }>(lcm[1]);
    gte.write_ctrl::<{ ctrl::LG2LG3 }>(lcm[2]);
    gte.write_ctrl::<{ ctrl::LB1LB2 }>(lcm[3]);
    gte.write_ctrl::<{ ctrl::LB3 }>(lcm[4]);
    gte.write_ctrl::<{ ctrl::RBK }>(am[2][0] as u32);
    gte.write_ctrl::<{ ctrl::GBK }>(am[2][1] as u32);
    gte.write_ctrl::<{ ctrl::BBK }>(am[2][2] as u32);
    at
}

/// A group's blended matrix into RT and TR, after [`pair_registers`] of its pair (`at` what that
/// returned, `weight` FP12 in 0..=4096).
pub(crate) fn group_registers<C: Cop2 + ?Sized>(gte: &mut C, at: [i32; 3], weight: u32) {
    let w = weight as i32;
    gte.write_data::<{ data::VXY0 }>(pack(4096 - w, w));
    gte.write_data::<{ data::VZ0 }>(0);
    gte.write_data::<{ data::VXY1 }>(0);
    gte.write_data::<{ data::VZ1 }>(weight);
    gte.write_ctrl::<{ ctrl::TRX }>(at[0] as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(at[1] as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(at[2] as u32);
    gte.command::<{ MVMVA_LLM_V0 }>();
    let m0 = ir123(gte);
    gte.command::<{ MVMVA_LCM_V0 }>();
    let m1 = ir123(gte);
    gte.command::<{ MVMVA_LLM_V1_BK }>();
    let m2 = ir123(gte);
    gte.command::<{ MVMVA_LCM_V1_TR }>();
    let t = mac123(gte);
    let rt = matrix_words([m0, m1, m2]);
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(rt[0]);
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(rt[1]);
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(rt[2]);
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(rt[3]);
    gte.write_ctrl::<{ ctrl::RT33 }>(rt[4]);
    gte.write_ctrl::<{ ctrl::TRX }>(t[0] as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(t[1] as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(t[2] as u32);
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
    let (mut pair, mut at) = (u32::MAX, None);
    for g in job.groups.chunks_exact(GROUP_WORDS) {
        if g[0] & 0xFFFF != pair {
            pair = g[0] & 0xFFFF;
            at = pair_operands(job, pair as usize).map(|(a, b, rel)| pair_registers(gte, a, b, rel));
        }
        let Some(at) = at else { continue };
        let first = (g[1] & 0xFFFF) as usize;
        let count = ((g[1] >> 16) as usize).min(capacity.saturating_sub(first));
        group_registers(gte, at, g[0] >> 16);
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
