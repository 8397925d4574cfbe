//! The five coprocessor operations every GTE backend provides, with compile-time register numbers
//! and command words (on the console they are encoded into the instruction words).

use super::model::GteModel;
use super::packets::{within_limits, FlatPackets, FlatPrimitives, PacketList, SurfaceRuns, LINK_MASK};
use super::regs::{cmd, data};
use crate::tables::primitives::{run_base, unpack3, unpack_pair, RUN_HEADER_WORDS, RUN_QUADS, RUN_TRIANGLES, STREAM_END};
use super::{PackedMatrix, GPF_SF0, MVMVA_RT_IR, MVMVA_RT_IR_TR, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2, SQR_SF0};
use crate::math::{Matrix, Vec3i32};
use super::PoseQ14;
use crate::tables::{BoneSample, ParentSteps, STEP_ROOT, STEP_SAME_PARENT};

/// A triangle's screen data as the GTE holds it after NCLIP and AVSZ3 (raw register words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScreenTriangle {
    /// SXY0..2: `x` in the low half-word, `y` in the high one.
    pub sxy: [u32; 3],
    /// SZ1..3 (0..=0xFFFF).
    pub sz: [u32; 3],
    /// OTZ (0..=0xFFFF).
    pub otz: u32,
}

/// One RTPT at register level, the definition both projection defaults share: `v` is VXY0, VZ0, VXY1,
/// VZ1, VXY2, VZ2; SXY0..2 go to `xy`, SZ1..3 to `z`.
pub(crate) fn rtpt_registers<C: Cop2 + ?Sized>(gte: &mut C, v: [u32; 6], xy: &mut [u32], z: &mut [u32]) {
    gte.write_data::<{ data::VXY0 }>(v[0]);
    gte.write_data::<{ data::VZ0 }>(v[1]);
    gte.write_data::<{ data::VXY1 }>(v[2]);
    gte.write_data::<{ data::VZ1 }>(v[3]);
    gte.write_data::<{ data::VXY2 }>(v[4]);
    gte.write_data::<{ data::VZ2 }>(v[5]);
    gte.command::<{ cmd::RTPT }>();
    xy[0] = gte.read_data::<{ data::SXY0 }>();
    xy[1] = gte.read_data::<{ data::SXY1 }>();
    xy[2] = gte.read_data::<{ data::SXY2 }>();
    z[0] = gte.read_data::<{ data::SZ1 }>();
    z[1] = gte.read_data::<{ data::SZ2 }>();
    z[2] = gte.read_data::<{ data::SZ3 }>();
}

/// [`Cop2::compose_unit_sample`]'s operands: the rotation's components in Q14 (`round_shift(c, 16)`,
/// as `((c >> 1) + 2^14) >> 15`) and the translation in GTE units (`round_shift(v, 8)`), or `None`
/// when a component lies beyond +-2^14, a scale axis is not exactly 1.0 in Q12 (`round_shift(v, 4)`
/// = 4096, i.e. `v` in 65528..=65543) or the translation does not fit `i16`.
pub(crate) fn unit_sample(s: &BoneSample) -> Option<([i32; 4], [i32; 3])> {
    let q = s.rotation.map(|c| ((c >> 1) + (1 << 14)) >> 15);
    let t = s.translation.map(|v| ((v >> 1) + (1 << 6)) >> 7);
    let in_range = q.iter().all(|&c| (c + (1 << 14)) as u32 <= 1 << 15)
        && t.iter().all(|&v| (v + 0x8000) as u32 <= 0xFFFF)
        && s.scale.iter().all(|&v| (v.wrapping_sub(65528) as u32) < 16);
    in_range.then_some((q, t))
}

/// The FP12 rotation of a quaternion from its products xx, yy, zz, xy, xz, yz, wx, wy, wz (Q28,
/// components within +-2^14): `round_shift(2^28 - 2d, 16)` = `4096 + ((2^14 - d) >> 15)` on the
/// diagonal, `round_shift(2s, 16)` = `(s + 2^14) >> 15` elsewhere (|d|, |s| <= 2^29): within +-16384.
pub(crate) fn unit_rotation([xx, yy, zz, xy, xz, yz, wx, wy, wz]: [i32; 9]) -> [[i32; 3]; 3] {
    // Wrapping, like the console's 32-bit adds: only a rotation beyond +-2^14 (`Cop2::compose_q14`
    // does not test) gets near the limits.
    let off = |v: i32| v.wrapping_add(1 << 14) >> 15;
    let diag = |d: i32| (1 << 12) + ((1i32 << 14).wrapping_sub(d) >> 15);
    [
        [diag(yy.wrapping_add(zz)), off(xy.wrapping_sub(wz)), off(xz.wrapping_add(wy))],
        [off(xy.wrapping_add(wz)), diag(xx.wrapping_add(zz)), off(yz.wrapping_sub(wx))],
        [off(xz.wrapping_sub(wy)), off(yz.wrapping_add(wx)), diag(xx.wrapping_add(yy))],
    ]
}

/// RT's five control words for a rotation.
pub(crate) fn rotation_words(r: &crate::math::Rotation) -> [u32; 5] {
    let pack = |lo: i16, hi: i16| lo as u16 as u32 | (hi as u16 as u32) << 16;
    [pack(r[0][0], r[0][1]), pack(r[0][2], r[1][0]), pack(r[1][1], r[1][2]), pack(r[2][0], r[2][1]), r[2][2] as u16 as u32]
}

/// RT from a rotation's five control words ([`rotation_words`]).
fn load_rt<C: Cop2 + ?Sized>(gte: &mut C, r: &crate::math::Rotation) {
    use super::regs::ctrl;
    let [rt0, rt1, rt2, rt3, rt4] = rotation_words(r);
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(rt0);
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(rt1);
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(rt2);
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(rt3);
    gte.write_ctrl::<{ ctrl::RT33 }>(rt4);
}

/// `out = RT * columns`: the three columns (x and y in one word, z apart) into V0..V2, one MVMVA
/// each, the result's columns read from IR1..3.
fn rotate_columns<C: Cop2 + ?Sized>(gte: &mut C, xy: [u32; 3], z: [u32; 3], out: &mut crate::math::Rotation) {
    gte.write_data::<{ data::VXY0 }>(xy[0]);
    gte.write_data::<{ data::VZ0 }>(z[0]);
    gte.write_data::<{ data::VXY1 }>(xy[1]);
    gte.write_data::<{ data::VZ1 }>(z[1]);
    gte.write_data::<{ data::VXY2 }>(xy[2]);
    gte.write_data::<{ data::VZ2 }>(z[2]);
    let mut column = |gte: &mut C, j: usize| {
        out[0][j] = gte.read_data::<{ data::IR1 }>() as i16;
        out[1][j] = gte.read_data::<{ data::IR2 }>() as i16;
        out[2][j] = gte.read_data::<{ data::IR3 }>() as i16;
    };
    gte.command::<{ MVMVA_RT_V0 }>();
    column(gte, 0);
    gte.command::<{ MVMVA_RT_V1 }>();
    column(gte, 1);
    gte.command::<{ MVMVA_RT_V2 }>();
    column(gte, 2);
}

/// The register operations of [`Cop2::compose_q14`]: the nine products by GPF (IR0 = w, IR = x y z),
/// SQR (x y z), GPF (IR0 = x, IR = y z) and GPF (IR0 = y, IR = z), all with sf=0; the parent into RT
/// and TR; the entries ([`unit_rotation`]) column by column into IR1..3 for MVMVA (RT * IR, read from
/// IR1..3); the translation into IR1..3 for MVMVA with TR (read from MAC1..3).
fn compose_q14_registers<C: Cop2 + ?Sized>(gte: &mut C, q: [i32; 4], t: [i32; 3], parent: &Matrix, out: &mut Matrix) {
    use super::regs::ctrl;
    let [x, y, z, w] = q;
    let irs = |gte: &mut C, v: [i32; 3]| {
        gte.write_data::<{ data::IR1 }>(v[0] as u32);
        gte.write_data::<{ data::IR2 }>(v[1] as u32);
        gte.write_data::<{ data::IR3 }>(v[2] as u32);
    };
    let macs = |gte: &mut C| {
        [gte.read_data::<{ data::MAC1 }>() as i32, gte.read_data::<{ data::MAC2 }>() as i32, gte.read_data::<{ data::MAC3 }>() as i32]
    };
    gte.write_data::<{ data::IR0 }>(w as u32);
    irs(gte, [x, y, z]);
    gte.command::<{ GPF_SF0 }>();
    let [wx, wy, wz] = macs(gte);
    irs(gte, [x, y, z]);
    gte.command::<{ SQR_SF0 }>();
    let [xx, yy, zz] = macs(gte);
    gte.write_data::<{ data::IR0 }>(x as u32);
    gte.write_data::<{ data::IR1 }>(y as u32);
    gte.write_data::<{ data::IR2 }>(z as u32);
    gte.command::<{ GPF_SF0 }>();
    let xy = gte.read_data::<{ data::MAC1 }>() as i32;
    let xz = gte.read_data::<{ data::MAC2 }>() as i32;
    gte.write_data::<{ data::IR0 }>(y as u32);
    gte.write_data::<{ data::IR1 }>(z as u32);
    gte.command::<{ GPF_SF0 }>();
    let yz = gte.read_data::<{ data::MAC1 }>() as i32;
    load_rt(gte, &parent.rotation);
    gte.write_ctrl::<{ ctrl::TRX }>(parent.translation.x as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(parent.translation.y as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(parent.translation.z as u32);
    let e = unit_rotation([xx, yy, zz, xy, xz, yz, wx, wy, wz]);
    let mut composed = [[0i16; 3]; 3];
    for (j, column) in composed.iter_mut().enumerate() {
        irs(gte, [e[0][j], e[1][j], e[2][j]]);
        gte.command::<{ MVMVA_RT_IR }>();
        *column = [
            gte.read_data::<{ data::IR1 }>() as i16,
            gte.read_data::<{ data::IR2 }>() as i16,
            gte.read_data::<{ data::IR3 }>() as i16,
        ];
    }
    out.rotation = crate::math::transpose(&composed);
    irs(gte, t);
    gte.command::<{ MVMVA_RT_IR_TR }>();
    let [tx, ty, tz] = macs(gte);
    out.translation = Vec3i32::new(tx, ty, tz);
}

/// The CPU's part of [`Cop2::nlerp_rotation`], between SQR and the scaling GPF: `w = a0 +
/// ((b0 - a0) t >> 12)`, the squared length `n = w^2 + sq` (FP24, `sq` the lerped x, y, z's);
/// `None` unless `w` and `c` (the lerped x, y, z) lie within +-8191 and `n` within 2^18 of 2^24.
/// Else the scale `s = 2^14 + (2^24 - n) >> 11` (Q14, the first-order `1 / sqrt(n)`) and the
/// result's `w` in Q14, `w s >> 12` (within +-2^14 there: `|w| <= sqrt(n)` and `s <= 2^26 / sqrt(n)`).
#[inline(always)]
pub(crate) fn nlerp_scale(a0: i32, b0: i32, t: i32, c: [i32; 3], sq: i32) -> Option<(i32, i32)> {
    let w = a0 + (((b0 - a0) * t) >> 12);
    let n = w.wrapping_mul(w).wrapping_add(sq);
    let e = (1i32 << 24).wrapping_sub(n);
    let within = |v: i32| (v.wrapping_add(8191) as u32) < 16383;
    if !(within(w) & within(c[0]) & within(c[1]) & within(c[2])) || e.wrapping_add(1 << 18) as u32 > 1 << 19 {
        return None;
    }
    let s = (1 << 14) + (e >> 11);
    Some((s, (w * s) >> 12))
}

/// A Q14 component rounded to FP12 (`(v + 2) >> 2`), as [`Cop2::nlerp_rotation`] rounds.
#[inline(always)]
pub(crate) fn round_q14(v: i32) -> i32 {
    (v + 2) >> 2
}

/// [`Cop2::nlerp_q14_dense`]'s flags: a joint whose key `i` lies at frame `i` (joint word 1), a key
/// whose segment to the next spans more than 30 degrees (key word 2).
pub const DENSE_JOINT: u32 = 1 << 16;
pub const WIDE_KEY: u32 = 1 << 16;

/// The register operations [`Cop2::nlerp_rotation`] and [`Cop2::nlerp_q14`] share: GPL (sf=1) lerps
/// x, y, z, SQR (sf=0) squares them, [`nlerp_scale`] on the CPU, GPF (sf=1, IR0 = the scale) scales
/// x, y, z. The normalised quaternion in Q14 (x, y, z as IR1..3 hold them, w), `None` outside the
/// common case.
fn nlerp_registers<C: Cop2 + ?Sized>(gte: &mut C, a: [u32; 2], b: [u32; 2], t: i32) -> Option<([i32; 3], i32)> {
    let parts = |q: [u32; 2]| [q[0] as i16 as i32, (q[0] >> 16) as i16 as i32, q[1] as i16 as i32, (q[1] >> 16) as i16 as i32];
    let (a, b) = (parts(a), parts(b));
    gte.write_data::<{ data::IR0 }>(t as u32);
    gte.write_data::<{ data::IR1 }>((b[1] - a[1]) as u32);
    gte.write_data::<{ data::IR2 }>((b[2] - a[2]) as u32);
    gte.write_data::<{ data::IR3 }>((b[3] - a[3]) as u32);
    gte.write_data::<{ data::MAC1 }>(a[1] as u32);
    gte.write_data::<{ data::MAC2 }>(a[2] as u32);
    gte.write_data::<{ data::MAC3 }>(a[3] as u32);
    gte.command::<{ cmd::GPL | cmd::SF }>();
    let c = [
        gte.read_data::<{ data::IR1 }>() as i16 as i32,
        gte.read_data::<{ data::IR2 }>() as i16 as i32,
        gte.read_data::<{ data::IR3 }>() as i16 as i32,
    ];
    gte.command::<{ SQR_SF0 }>();
    let sq = (gte.read_data::<{ data::MAC1 }>() as i32)
        .wrapping_add(gte.read_data::<{ data::MAC2 }>() as i32)
        .wrapping_add(gte.read_data::<{ data::MAC3 }>() as i32);
    let (s, w) = nlerp_scale(a[0], b[0], t, c, sq)?;
    gte.write_data::<{ data::IR0 }>(s as u32);
    gte.write_data::<{ data::IR1 }>(c[0] as u32);
    gte.write_data::<{ data::IR2 }>(c[1] as u32);
    gte.write_data::<{ data::IR3 }>(c[2] as u32);
    gte.command::<{ cmd::GPF | cmd::SF }>();
    let ir = |v: u32| v as i16 as i32;
    Some(([ir(gte.read_data::<{ data::IR1 }>()), ir(gte.read_data::<{ data::IR2 }>()), ir(gte.read_data::<{ data::IR3 }>())], w))
}

/// What [`Cop2::project_light_bones`] reads: a lit rigid character's bones, their matrices and the
/// lights, and its vertices' positions and normals.
#[derive(Clone, Copy, Debug)]
pub struct LitBones<'a> {
    /// The tables' bone entries, two words a bone: `parent | first << 16`, `count | name << 16`.
    pub bones: &'a [u32],
    /// Each bone's model-view matrix (the bones beyond them are not drawn).
    pub matrices: &'a [Matrix],
    /// RT's five words of the lights' view-space directions (rows).
    pub directions: [u32; 5],
    /// The positions' VXY, VZ words, two a vertex; each VZ word's high half is the vertex's normal's z.
    pub vertices: &'a [u32],
    /// The normals' x | y << 16, one word a vertex (packed normals).
    pub normals: &'a [u32],
    /// Depth cueing: NCDT instead of NCT (the light registers FC, DQA, DQB and RGBC already loaded).
    pub fog: bool,
}

/// Raw access to a GTE: register transfers and commands.
///
/// Register numbers are masked to 0..31; the command word is the `cop2` imm25 operand.
pub trait Cop2 {
    /// `mtc2`: write data register `R`.
    fn write_data<const R: u32>(&mut self, v: u32);
    /// `mfc2`: read data register `R`.
    fn read_data<const R: u32>(&mut self) -> u32;
    /// `ctc2`: write control register `R`.
    fn write_ctrl<const R: u32>(&mut self, v: u32);
    /// `cfc2`: read control register `R`.
    fn read_ctrl<const R: u32>(&mut self) -> u32;
    /// `cop2 CMD`: run one command.
    fn command<const CMD: u32>(&mut self);

    /// Loads RT and TR with `m` and writes `m` to `copy` too: the rigid ranges' matrix load, which
    /// stages each bone's matrix where the blend stage reads it cheaply (`render::project`'s
    /// matrix stage). The console reads each word of `m` once, for both.
    fn load_matrix_copying(&mut self, m: &Matrix, copy: &mut Matrix) {
        load_rt(self, &m.rotation);
        self.write_ctrl::<{ super::regs::ctrl::TRX }>(m.translation.x as u32);
        self.write_ctrl::<{ super::regs::ctrl::TRY }>(m.translation.y as u32);
        self.write_ctrl::<{ super::regs::ctrl::TRZ }>(m.translation.z as u32);
        *copy = *m;
    }

    // ---- bulk operations: the default bodies are the register operations the console's versions
    // run (`hw.rs`), so the host model computes exactly what the console does ----

    /// RTPT over whole triples of vertices given as VXY, VZ word pairs (6 words a triple): SXY0..2 go
    /// to `sxy`, SZ1..3 to `sz`, for as many triples as all three slices hold. Returns the number of
    /// vertices projected (a multiple of three).
    fn rtpt_words(&mut self, vertices: &[u32], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (vertices.len() / 6).min(sxy.len() / 3).min(sz.len() / 3);
        for ((v, xy), z) in vertices.chunks_exact(6).zip(sxy.chunks_exact_mut(3)).zip(sz.chunks_exact_mut(3)).take(triples) {
            rtpt_registers(self, [v[0], v[1], v[2], v[3], v[4], v[5]], xy, z);
        }
        3 * triples
    }

    /// [`rtpt_words`](Self::rtpt_words) and the light of each triple: after its RTPT, its three
    /// normals into V0..V2 (VXY the normal's word, one a vertex; VZ its position's VZ word shifted
    /// right 16: packed normals keep z in the position word's high half) and NCT, whose
    /// RGB0..2 (the code byte RGBC's) go to `rgb`; for as many triples as all five slices hold. NCT
    /// is NCS of each normal in turn; with `fog` NCDT instead (NCDS of each, all with the IR0 the
    /// RTPT left: its last vertex's depth cue). Returns the number of vertices done (a multiple of
    /// three).
    fn rtpt_nct_words(&mut self, vertices: &[u32], normals: &[u32], sxy: &mut [u32], sz: &mut [u32], rgb: &mut [u32], fog: bool) -> usize {
        let triples = (vertices.len() / 6).min(normals.len() / 3).min(sxy.len() / 3).min(sz.len() / 3).min(rgb.len() / 3);
        for t in 0..triples {
            let (v, n) = (&vertices[6 * t..6 * t + 6], &normals[3 * t..3 * t + 3]);
            rtpt_registers(self, [v[0], v[1], v[2], v[3], v[4], v[5]], &mut sxy[3 * t..3 * t + 3], &mut sz[3 * t..3 * t + 3]);
            self.write_data::<{ data::VXY0 }>(n[0]);
            self.write_data::<{ data::VZ0 }>(v[1] >> 16);
            self.write_data::<{ data::VXY1 }>(n[1]);
            self.write_data::<{ data::VZ1 }>(v[3] >> 16);
            self.write_data::<{ data::VXY2 }>(n[2]);
            self.write_data::<{ data::VZ2 }>(v[5] >> 16);
            if fog {
                self.command::<{ cmd::NCDT }>();
            } else {
                self.command::<{ cmd::NCT }>();
            }
            rgb[3 * t] = self.read_data::<{ data::RGB0 }>();
            rgb[3 * t + 1] = self.read_data::<{ data::RGB1 }>();
            rgb[3 * t + 2] = self.read_data::<{ data::RGB2 }>();
        }
        3 * triples
    }

    /// [`rtpt_nct_words`](Self::rtpt_nct_words) over a whole range of at least three vertices (as
    /// many as all five slices hold): whole triples, then when one or two vertices remain the
    /// range's last three again (the same registers give the same results); one vertex left without
    /// fog goes alone, RTPS and NCS (the same results as the last three's, for a third of the GTE's
    /// time; with fog the last three again, whose depth cue is its). Returns the number of vertices
    /// done (0 for fewer than three). This body is the definition; a backend may override it only with
    /// the same register operations.
    fn rtpt_nct_range(&mut self, vertices: &[u32], normals: &[u32], sxy: &mut [u32], sz: &mut [u32], rgb: &mut [u32], fog: bool) -> usize {
        let count = (vertices.len() / 2).min(normals.len()).min(sxy.len()).min(sz.len()).min(rgb.len());
        if count < 3 {
            return 0;
        }
        let done = self.rtpt_nct_words(&vertices[..2 * count], &normals[..count], &mut sxy[..count], &mut sz[..count], &mut rgb[..count], fog);
        if done + 1 == count && !fog {
            let v = count - 1;
            self.write_data::<{ data::VXY0 }>(vertices[2 * v]);
            self.write_data::<{ data::VZ0 }>(vertices[2 * v + 1]);
            self.command::<{ cmd::RTPS }>();
            sxy[v] = self.read_data::<{ data::SXY2 }>();
            sz[v] = self.read_data::<{ data::SZ3 }>();
            self.write_data::<{ data::VXY0 }>(normals[v]);
            self.write_data::<{ data::VZ0 }>(vertices[2 * v + 1] >> 16);
            self.command::<{ cmd::NCS }>();
            rgb[v] = self.read_data::<{ data::RGB2 }>();
        } else if done < count {
            let last = count - 3;
            self.rtpt_nct_words(&vertices[2 * last..2 * count], &normals[last..count], &mut sxy[last..count], &mut sz[last..count], &mut rgb[last..count], fog);
        }
        count
    }

    /// The lit projection of every bone of `job` ([`LitBones`]): per bone whose range is not empty,
    /// [`load_bone_light`](Self::load_bone_light) with its matrix, then
    /// [`rtpt_nct_range`](Self::rtpt_nct_range) over its vertices into `sxy`, `sz` and `rgb` at
    /// the same indices. This body is the definition; a backend may override it only with the same
    /// register operations.
    ///
    /// # Safety
    /// Every bone's range (`first .. first + count`, from its two words) is empty or holds three
    /// vertices or more, within the vertices (two words a vertex), the normals (one) and `sxy`, `sz` and
    /// `rgb` (the console reads and writes without checking).
    unsafe fn project_light_bones(&mut self, job: &LitBones, sxy: &mut [u32], sz: &mut [u32], rgb: &mut [u32]) {
        for (m, bone) in job.matrices.iter().zip(job.bones.chunks_exact(2)) {
            let (first, count) = ((bone[0] >> 16) as usize, (bone[1] & 0xFFFF) as usize);
            if count == 0 {
                continue;
            }
            self.load_bone_light(&job.directions, m);
            let (v, r) = (2 * first..2 * (first + count), first..first + count);
            self.rtpt_nct_range(&job.vertices[v], &job.normals[r.clone()], &mut sxy[r.clone()], &mut sz[r.clone()], &mut rgb[r], job.fog);
        }
    }

    /// A lit bone's registers before [`rtpt_nct_words`](Self::rtpt_nct_words): LLM = the lights'
    /// directions (`directions`: RT's five words of them) times `m`'s rotation, by three MVMVA (sf=1,
    /// lm=0, RT = the directions, V0..V2 = the rotation's columns, read from IR1..3: the operations
    /// of `Gte::mul_rotation`), then RT and TR = `m`. This body is the definition; a backend may
    /// override it only with the same register operations.
    fn load_bone_light(&mut self, directions: &[u32; 5], m: &Matrix) {
        use super::regs::ctrl;
        self.write_ctrl::<{ ctrl::RT11RT12 }>(directions[0]);
        self.write_ctrl::<{ ctrl::RT13RT21 }>(directions[1]);
        self.write_ctrl::<{ ctrl::RT22RT23 }>(directions[2]);
        self.write_ctrl::<{ ctrl::RT31RT32 }>(directions[3]);
        self.write_ctrl::<{ ctrl::RT33 }>(directions[4]);
        let r = &m.rotation;
        let xy = |j: usize| r[0][j] as u16 as u32 | (r[1][j] as u16 as u32) << 16;
        let z = |j: usize| r[2][j] as u16 as u32;
        let mut llm = [[0i16; 3]; 3];
        rotate_columns(self, [xy(0), xy(1), xy(2)], [z(0), z(1), z(2)], &mut llm);
        let [l0, l1, l2, l3, l4] = rotation_words(&llm);
        self.write_ctrl::<{ ctrl::L11L12 }>(l0);
        self.write_ctrl::<{ ctrl::L13L21 }>(l1);
        self.write_ctrl::<{ ctrl::L22L23 }>(l2);
        self.write_ctrl::<{ ctrl::L31L32 }>(l3);
        self.write_ctrl::<{ ctrl::L33 }>(l4);
        load_rt(self, &m.rotation);
        self.write_ctrl::<{ ctrl::TRX }>(m.translation.x as u32);
        self.write_ctrl::<{ ctrl::TRY }>(m.translation.y as u32);
        self.write_ctrl::<{ ctrl::TRZ }>(m.translation.z as u32);
    }

    /// [`rtpt_words`](Self::rtpt_words) for positions given as `[x, y, z]`: the same register
    /// writes once each position is packed (`x | y << 16`, `z`).
    fn rtpt_positions(&mut self, positions: &[[i16; 3]], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (positions.len() / 3).min(sxy.len() / 3).min(sz.len() / 3);
        for ((p, xy), z) in positions.chunks_exact(3).zip(sxy.chunks_exact_mut(3)).zip(sz.chunks_exact_mut(3)).take(triples) {
            let pack = |v: [i16; 3]| (v[0] as u16 as u32 | (v[1] as u16 as u32) << 16, v[2] as u16 as u32);
            let w = [pack(p[0]), pack(p[1]), pack(p[2])];
            rtpt_registers(self, [w[0].0, w[0].1, w[1].0, w[1].1, w[2].0, w[2].1], xy, z);
        }
        3 * triples
    }

    /// Loads SXY0..2 with `sxy[v[0]]`, `sxy[v[1]]`, `sxy[v[2]]` and runs NCLIP: returns MAC0 (twice the
    /// signed screen area).
    ///
    /// # Safety
    /// Every index in `v` is below `sxy.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn nclip_indexed(&mut self, sxy: &[u32], v: [usize; 3]) -> i32 {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SXY0 }>(*sxy.get_unchecked(v[0]));
            self.write_data::<{ data::SXY1 }>(*sxy.get_unchecked(v[1]));
            self.write_data::<{ data::SXY2 }>(*sxy.get_unchecked(v[2]));
        }
        self.command::<{ cmd::NCLIP }>();
        self.read_data::<{ data::MAC0 }>() as i32
    }

    /// Flat-shaded GPU packets straight from a primitive stream (`tables::primitives`): for each
    /// triangle or quad in order, NCLIP of its facing triangle (zero or positive: it faces away and
    /// is skipped), then its depth (a triangle: SZ1..3 and AVSZ3; a quad: SZ0..3 = its points' depths
    /// in drawing order, and AVSZ4); a front face is rejected (with `job.clip_tests`) when a point is
    /// nearer than `job.near`, when its screen extent is wider than `MAX_SPAN_X` or taller than
    /// `MAX_SPAN_Y` pixels, and (always) when `out.arena` has no room left. Otherwise it becomes a
    /// GPU linked-list packet at the start of the arena's unused part: the header (the number of
    /// words that follow, then the 24-bit link read from `out.table[z]`, with `z` = min(OTZ,
    /// `out.max_depth`)), the run's GP0 word, then the points' screen words (SXY0..2 for a triangle);
    /// `out.table[z]` then holds the 24-bit address of that header. `gte::packets` holds the
    /// definition.
    ///
    /// # Safety
    /// `job.words` is a stream `tables::primitives::check` accepted, every vertex it names (an index
    /// from its run's base) below `job.sxy.len()` and `job.sz.len()` (the console loads without checking).
    unsafe fn flat_packets(&mut self, job: &FlatPrimitives, out: &mut PacketList) -> FlatPackets {
        // SAFETY: the caller's contract.
        unsafe { flat_packets_registers(self, job, out) }
    }

    /// The textured triangle stage's fast path (`render::textured::surface_packets` is the
    /// definition): from the run header at `job.words[at]`, every run whose material has texture
    /// words in `job.textures` and of every untextured one written and linked into `out` exactly as
    /// that definition writes it without the near and span tests (Gouraud when `job.rgb` is given),
    /// the counts and words added to `done`; stops at the first run it leaves to the caller
    /// ([`LEFT_TO_CALLER`](super::LEFT_TO_CALLER)) or at the end word, and returns that word's index. May overwrite any GTE register but the
    /// matrices RT and LLM, TR, the screen and depth registers. The default does nothing (returns
    /// `at`): the caller's definition draws every run.
    ///
    /// # Safety
    /// `job.words` is a stream `tables::primitives::check` accepted with `at` the index of a run
    /// header or its end word; every vertex it names lies below the length of `sxy`, `sz` and `rgb`,
    /// and of `uvs` when some material has texture words (untextured runs read no UV word); every
    /// material it names has an entry in `job.textures`; `done.words` is at most
    /// `out.arena.len()` (the console reads and writes without checking).
    unsafe fn surface_runs(&mut self, job: &SurfaceRuns, at: usize, out: &mut PacketList, done: &mut FlatPackets) -> usize {
        let _ = (job, out, done);
        at
    }

    /// The blend stage: every group of `job` projected with its pair's blended matrix into `sxy` /
    /// `sz` at the group's vertices (`gte::blend` holds the definition and the steps). This body is
    /// the definition (the host model runs it); a backend may override it only with the same register
    /// operations, in any order that gives the same results.
    ///
    /// # Safety
    /// Every group's pair lies within `job.pairs`, both bones of every pair within `job.matrices`,
    /// every weight within 0..=4096 and every group's vertex range within `job.vertices` (two words a
    /// vertex), `sxy` and `sz` (what `tables::blend::check` accepted, with matrices for every bone and
    /// room for every vertex): the console reads and writes without checking.
    unsafe fn project_blend_groups(&mut self, job: &super::blend::BlendGroups, sxy: &mut [u32], sz: &mut [u32]) {
        super::blend::project_blend_groups_registers(self, job, sxy, sz)
    }

    /// Loads SZ0..3 with `sz[v[0]]` .. `sz[v[3]]` and runs AVSZ4: returns SXY0..2 (as loaded for NCLIP),
    /// SZ1..3 and OTZ (SZ0 is the caller's `sz[v[0]]`).
    ///
    /// # Safety
    /// Every index in `v` is below `sz.len()`.
    #[inline(always)]
    unsafe fn avsz4_indexed(&mut self, sz: &[u32], v: [usize; 4]) -> ScreenTriangle {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SZ0 }>(*sz.get_unchecked(v[0]));
            self.write_data::<{ data::SZ1 }>(*sz.get_unchecked(v[1]));
            self.write_data::<{ data::SZ2 }>(*sz.get_unchecked(v[2]));
            self.write_data::<{ data::SZ3 }>(*sz.get_unchecked(v[3]));
        }
        self.command::<{ cmd::AVSZ4 }>();
        ScreenTriangle {
            sxy: [self.read_data::<{ data::SXY0 }>(), self.read_data::<{ data::SXY1 }>(), self.read_data::<{ data::SXY2 }>()],
            sz: [self.read_data::<{ data::SZ1 }>(), self.read_data::<{ data::SZ2 }>(), self.read_data::<{ data::SZ3 }>()],
            otz: self.read_data::<{ data::OTZ }>(),
        }
    }

    /// Loads SZ1..3 with `sz[v[0]]`, `sz[v[1]]`, `sz[v[2]]` and runs AVSZ3: returns the triangle as the
    /// GTE then holds it (SXY0..2 as loaded for NCLIP, SZ1..3, OTZ).
    ///
    /// # Safety
    /// Every index in `v` is below `sz.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn avsz3_indexed(&mut self, sz: &[u32], v: [usize; 3]) -> ScreenTriangle {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SZ1 }>(*sz.get_unchecked(v[0]));
            self.write_data::<{ data::SZ2 }>(*sz.get_unchecked(v[1]));
            self.write_data::<{ data::SZ3 }>(*sz.get_unchecked(v[2]));
        }
        self.command::<{ cmd::AVSZ3 }>();
        ScreenTriangle {
            sxy: [self.read_data::<{ data::SXY0 }>(), self.read_data::<{ data::SXY1 }>(), self.read_data::<{ data::SXY2 }>()],
            sz: [self.read_data::<{ data::SZ1 }>(), self.read_data::<{ data::SZ2 }>(), self.read_data::<{ data::SZ3 }>()],
            otz: self.read_data::<{ data::OTZ }>(),
        }
    }

    /// `crate::render::bones::compose_sample` in its common case, the rigid pose's inner step:
    /// `*out = parent * sample_matrix(sample)` when the sample's rotation components round to Q14
    /// within +-1.0, its scale is exactly 1.0 on every axis (Q12) and its translation fits `i16`;
    /// otherwise returns false and leaves `out` as it was. Either way RT, TR, IR0..3, MAC1..3 and the
    /// color FIFO may be overwritten (the console runs the products before its test). This body is
    /// the definition (the host model runs it); a backend may override it only with the same
    /// register operations, in any order that gives the same results.
    ///
    /// The quaternion's products come from GPF and SQR with sf=0 (exact); each FP12 entry is one
    /// add and one shift of them; the entries go to the GTE as IR1..3, a column at a time, for
    /// MVMVA with RT = the parent's rotation; the translation likewise with TR.
    fn compose_unit_sample(&mut self, parent: &Matrix, sample: &BoneSample, out: &mut Matrix) -> bool {
        let Some((q, t)) = unit_sample(sample) else {
            return false;
        };
        compose_q14_registers(self, q, t, parent, out);
        true
    }

    /// `*out = parent * pose` for a pose in the GTE's units ([`PoseQ14`]): the register operations of
    /// [`Cop2::compose_unit_sample`] without its tests and rounding, so bit-identical to
    /// `crate::render::bones::compose_sample` of `pose.to_sample()` when the rotation's components lie
    /// within +-2^14 (a normalised quaternion's do); beyond, the entries follow the same formula
    /// with 32-bit wrapping. Overwrites RT, TR, IR0..3, MAC1..3 and the color FIFO. This body is the
    /// definition; a backend may override it only with the same register operations.
    fn compose_q14(&mut self, parent: &Matrix, pose: &PoseQ14, out: &mut Matrix) {
        let q = pose.rotation.map(|c| c as i32);
        let t = pose.translation.map(|c| c as i32);
        compose_q14_registers(self, q, t, parent, out);
    }

    /// `out[b] = parent * poses[b]` ([`Cop2::compose_q14`]) for every bone of a chain, the parent
    /// named by `steps` ([`crate::tables::Tables::parent_steps`]: `STEP_ROOT` the `object`,
    /// `STEP_SAME_PARENT` the previous bone's parent, else `out[b - step]`), for as many bones as all
    /// three hold. This body is the definition; a backend may override it only with the same register
    /// operations (it may leave RT and TR as they are where a bone's parent is the previous bone's).
    fn compose_q14_chain(&mut self, steps: ParentSteps, poses: &[PoseQ14], object: &Matrix, out: &mut [Matrix]) {
        let steps = steps.steps();
        let n = steps.len().min(poses.len()).min(out.len());
        let mut parent = None;
        for b in 0..n {
            parent = match steps[b] {
                STEP_SAME_PARENT if b > 0 => parent,
                s if s != STEP_ROOT && s != STEP_SAME_PARENT && (s as usize) <= b => Some(b - s as usize),
                _ => None,
            };
            let (done, rest) = out.split_at_mut(b);
            self.compose_q14(parent.map_or(object, |p| &done[p]), &poses[b], &mut rest[0]);
        }
    }

    /// The keyframe path's local rotation: the normalised lerp of two FP12 quaternions and its
    /// rotation matrix, for the common case only. `a`, `b`: `w | x << 16`, `y | z << 16`, every
    /// component within +-2^13, same hemisphere; `t` FP12 in 0..=4096.
    ///
    /// GPL (sf=1) lerps x, y, z (`a + floor((b - a) t / 4096)`), SQR (sf=0) squares them; then
    /// `gte::nlerp_scale` on the CPU (`None`, with `matrix` untouched, outside the common case); GPF
    /// (sf=1, IR0 = the scale) scales x, y, z, each rounded `(v + 2) >> 2` to FP12: the result, as
    /// words. Then the matrix's products by SQR (x y z), GPF by `w` (x y z), GPF by `x` (y z 0) and
    /// GPF by `y` (IR1 = z), all sf=0, each entry `1 - 2(..)` or `2(..)` rounded `(p + 2^10) >> 11`,
    /// into `matrix` as column words (`m00 | m10 << 16`, `m01 | m11 << 16`, `m02 | m12 << 16`,
    /// `m20 | m21 << 16`, `m22`). Overwrites IR0..3, MAC1..3 and the colour FIFO. This body is the
    /// definition (the host model runs it); a backend may override it only with the same register
    /// operations.
    fn nlerp_rotation(&mut self, a: [u32; 2], b: [u32; 2], t: i32, matrix: &mut [u32; 5]) -> Option<[u32; 2]> {
        let ([x, y, z], w) = nlerp_registers(self, a, b, t)?;
        let [x, y, z, w] = [x, y, z, w].map(round_q14);
        let irs = |gte: &mut Self, v: [i32; 3]| {
            gte.write_data::<{ data::IR1 }>(v[0] as u32);
            gte.write_data::<{ data::IR2 }>(v[1] as u32);
            gte.write_data::<{ data::IR3 }>(v[2] as u32);
        };
        let macs = |gte: &mut Self| {
            [gte.read_data::<{ data::MAC1 }>() as i32, gte.read_data::<{ data::MAC2 }>() as i32, gte.read_data::<{ data::MAC3 }>() as i32]
        };
        irs(self, [x, y, z]);
        self.command::<{ SQR_SF0 }>();
        let [xx, yy, zz] = macs(self);
        self.write_data::<{ data::IR0 }>(w as u32);
        irs(self, [x, y, z]);
        self.command::<{ GPF_SF0 }>();
        let [wx, wy, wz] = macs(self);
        self.write_data::<{ data::IR0 }>(x as u32);
        irs(self, [y, z, 0]);
        self.command::<{ GPF_SF0 }>();
        let [xy, xz, _] = macs(self);
        self.write_data::<{ data::IR0 }>(y as u32);
        self.write_data::<{ data::IR1 }>(z as u32);
        self.command::<{ GPF_SF0 }>();
        let yz = self.read_data::<{ data::MAC1 }>() as i32;
        let two = |p: i32| (p + (1 << 10)) >> 11;
        let pair = |lo: i32, hi: i32| lo as u16 as u32 | (hi as u16 as u32) << 16;
        const ONE: i32 = 4096;
        *matrix = [
            pair(ONE - two(yy + zz), two(xy + wz)),
            pair(two(xy - wz), ONE - two(xx + zz)),
            pair(two(xz + wy), two(yz - wx)),
            pair(two(xz - wy), two(yz + wx)),
            (ONE - two(xx + yy)) as u16 as u32,
        ];
        Some([pair(w, x), pair(y, z)])
    }

    /// [`Cop2::nlerp_rotation`]'s quaternion before its rounding, and no matrix: the normalised lerp
    /// of two FP12 quaternions (`w | x << 16`, `y | z << 16`, components within +-2^13, same
    /// hemisphere; `t` FP12 in 0..=4096) in Q14, as [`PoseQ14`] holds it: `x | y << 16`,
    /// `z | w << 16`, each component within +-2^14 (rounded to FP12, `(v + 2) >> 2`, it is
    /// `nlerp_rotation`'s). The register operations up to its GPF by the scale; `None` outside the
    /// common case. Overwrites IR0..3 and MAC1..3. This body is the definition; a backend may
    /// override it only with the same register operations.
    fn nlerp_q14(&mut self, a: [u32; 2], b: [u32; 2], t: i32) -> Option<[u32; 2]> {
        let ([x, y, z], w) = nlerp_registers(self, a, b, t)?;
        let pair = |lo: i32, hi: i32| lo as u16 as u32 | (hi as u16 as u32) << 16;
        Some([pair(x, y), pair(z, w)])
    }

    /// [`Cop2::nlerp_q14`] of prepared keyframe joints, joint after joint from `from` below `n`,
    /// while each is the common case; returns the first joint it leaves (or `n`). `words` holds two
    /// words a joint (the index of its first key word, 0 for a joint without keys, and its key count
    /// in the low half with [`DENSE_JOINT`]) and then the keys, three words each (the quaternion's
    /// two, then a word with [`WIDE_KEY`]). A joint without keys is passed over (its pose left as it
    /// is). A common joint is dense, `frame + 1` is below its key count, its two keys at word
    /// `first + keys_at` lie within `words`, the first is not wide, and `nlerp_q14` of the two by
    /// `t` has the common case: its pose's rotation takes the result. This body is the definition;
    /// a backend may override it only with the same register operations.
    #[allow(clippy::too_many_arguments)]
    fn nlerp_q14_dense(&mut self, words: &[u32], from: usize, n: usize, keys_at: usize, frame: usize, t: i32, poses: &mut [PoseQ14]) -> usize {
        let n = n.min(words.len() / 2).min(poses.len());
        for j in from..n {
            let (first, info) = (words[2 * j] as usize, words[2 * j + 1]);
            if first == 0 {
                continue;
            }
            if info & DENSE_JOINT == 0 || frame + 1 >= (info & 0xFFFF) as usize || first >= words.len() {
                return j;
            }
            let Some(k) = words.get(first + keys_at..first + keys_at + 5) else { return j };
            if k[2] & WIDE_KEY != 0 {
                return j;
            }
            match self.nlerp_q14([k[0], k[1]], [k[3], k[4]], t) {
                Some(q) => poses[j].set_rotation_words(q),
                None => return j,
            }
        }
        n
    }

    /// `*out = parent * local` for a local rotation given as column words (`m00 | m10 << 16`,
    /// `m01 | m11 << 16`, `m02 | m12 << 16`, `m20 | m21 << 16`, `m22`) and a translation within
    /// `i16` (`t_xy = x | y << 16`, `t_z = z`): RT = `parent.rotation` is loaded here when `load`,
    /// else it must already be. The rotation by MVMVA (sf=1, lm=0, RT * V0..V2, read from
    /// IR1..3), the translation by MVMVA (sf=1, RT * V0) plus the parent's, wrapping: the
    /// operations of `Gte::mul_rotation` and `Gte::rotate`, so bit-identical to `Matrix::mul`.
    /// Overwrites V0..V2, IR1..3 and MAC1..3 (and RT when `load`). This body is the definition;
    /// a backend may override it only with the same register operations.
    fn compose_columns(&mut self, parent: &Matrix, load: bool, words: &[u32; 5], t_xy: u32, t_z: u32, out: &mut Matrix) {
        if load {
            load_rt(self, &parent.rotation);
        }
        rotate_columns(self, [words[0], words[1], words[2]], [words[3], words[3] >> 16, words[4]], &mut out.rotation);
        self.write_data::<{ data::VXY0 }>(t_xy);
        self.write_data::<{ data::VZ0 }>(t_z);
        self.command::<{ MVMVA_RT_V0 }>();
        let p = parent.translation;
        out.translation = Vec3i32::new(
            (self.read_data::<{ data::MAC1 }>() as i32).wrapping_add(p.x),
            (self.read_data::<{ data::MAC2 }>() as i32).wrapping_add(p.y),
            (self.read_data::<{ data::MAC3 }>() as i32).wrapping_add(p.z),
        );
    }

    /// [`Cop2::compose_columns`] bone after bone from `start`: `out[b] = out[parents[b]] * (words[b],
    /// translations[b])`, RT loaded only when the parent differs from `loaded` (the bone whose
    /// rotation RT holds, 0xFF none; updated). `translations[b]` is `[x | y << 16, z]`, its z
    /// sign-extended from 16 bits when the translation fits `i16`. Stops at the first bone whose
    /// parent is not an earlier bone (a root), whose z word is not such a halfword (a translation
    /// beyond `i16`), or at the end (the shortest slice): returns that bone. This body is the
    /// definition; a backend may override it only with the same register operations.
    fn compose_columns_run(&mut self, words: &[[u32; 5]], translations: &[[u32; 2]], parents: &[u8], start: usize, loaded: &mut u8, out: &mut [Matrix]) -> usize {
        let n = words.len().min(translations.len()).min(parents.len()).min(out.len());
        for b in start..n {
            let (parent, [t_xy, t_z]) = (parents[b], translations[b]);
            if parent as usize >= b || t_z.wrapping_add(0x8000) >> 16 != 0 {
                return b;
            }
            let load = *loaded != parent;
            *loaded = parent;
            let (done, rest) = out.split_at_mut(b);
            self.compose_columns(&done[parent as usize], load, &words[b], t_xy, t_z, &mut rest[0]);
        }
        n
    }

    /// [`super::Gte::compose_packed`]: `out[i] = (RT, TR) * poses[i]`. This body is the definition
    /// (the host model runs it); a backend may override it only with the same register operations.
    fn compose_packed(&mut self, poses: &[PackedMatrix], out: &mut [Matrix]) {
        for (p, o) in poses.iter().zip(out.iter_mut()) {
            let [col0, col1, col2, txy, z01, z2tz] = p.words;
            rotate_columns(self, [col0, col1, col2], [z01, z01 >> 16, z2tz], &mut o.rotation);
            self.write_data::<{ data::VXY0 }>(txy);
            self.write_data::<{ data::VZ0 }>(z2tz >> 16);
            self.command::<{ MVMVA_RT_V0_TR }>();
            o.translation = Vec3i32::new(
                self.read_data::<{ data::MAC1 }>() as i32,
                self.read_data::<{ data::MAC2 }>() as i32,
                self.read_data::<{ data::MAC3 }>() as i32,
            );
        }
    }
}

impl Cop2 for GteModel {
    #[inline]
    fn write_data<const R: u32>(&mut self, v: u32) {
        GteModel::write_data(self, R, v)
    }
    #[inline]
    fn read_data<const R: u32>(&mut self) -> u32 {
        GteModel::read_data(self, R)
    }
    #[inline]
    fn write_ctrl<const R: u32>(&mut self, v: u32) {
        GteModel::write_ctrl(self, R, v)
    }
    #[inline]
    fn read_ctrl<const R: u32>(&mut self) -> u32 {
        GteModel::read_ctrl(self, R)
    }
    #[inline]
    fn command<const CMD: u32>(&mut self) {
        self.execute(CMD)
    }
}

/// [`Cop2::flat_packets`] at register level: the definition.
///
/// # Safety
/// As [`Cop2::flat_packets`].
unsafe fn flat_packets_registers<C: Cop2 + ?Sized>(
    gte: &mut C,
    job: &FlatPrimitives,
    out: &mut PacketList,
) -> FlatPackets {
    let Some(max_depth) = out.deepest() else {
        return FlatPackets::default();
    };
    let mut packets = Packets {
        job,
        out,
        max_depth,
        done: FlatPackets::default(),
    };
    let w = job.words;
    let mut at = 0;
    while let Some(&header) = w.get(at) {
        let Some(&gp0) = w.get(at + 1).filter(|_| header != STREAM_END) else {
            break;
        };
        let (kind, count, base) = (header & 3, ((header >> 2) & 0x3FFF) as usize, run_base(header));
        at += RUN_HEADER_WORDS;
        let from_base = |v: [usize; 3]| v.map(|i| base + i);
        // SAFETY (each primitive): the caller's contract.
        match kind {
            RUN_TRIANGLES => {
                for &t in w.get(at..at + count).unwrap_or(&[]) {
                    unsafe { packets.triangle(gte, from_base(unpack3(t)), gp0) };
                }
                at += count;
            }
            RUN_QUADS => {
                for q in w.get(at..at + 2 * count).unwrap_or(&[]).chunks_exact(2) {
                    let [a, b, c] = from_base(unpack3(q[0]));
                    let d = base + (q[1] >> 2) as usize;
                    unsafe { packets.quad(gte, [a, b, c], [b, c, a, d], gp0) };
                }
                at += 2 * count;
            }
            _ => {
                let pair = |w: u32| unpack_pair(w).map(|i| base + i);
                for words in w.get(at..at + count + 1).unwrap_or(&[]).windows(2) {
                    let ([t0, b0], [t1, b1]) = (pair(words[0]), pair(words[1]));
                    unsafe { packets.quad(gte, [t0, b1, t1], [b0, t0, b1, t1], gp0) };
                }
                at += count + 1;
            }
        }
    }
    packets.done
}

/// AVSZ4 of a quad's four depths in drawing order (SZ0..3): its OTZ.
pub fn avsz4_of<C: Cop2 + ?Sized>(gte: &mut C, sz: [u32; 4]) -> u32 {
    gte.write_data::<{ data::SZ0 }>(sz[0]);
    gte.write_data::<{ data::SZ1 }>(sz[1]);
    gte.write_data::<{ data::SZ2 }>(sz[2]);
    gte.write_data::<{ data::SZ3 }>(sz[3]);
    gte.command::<{ cmd::AVSZ4 }>();
    gte.read_data::<{ data::OTZ }>()
}

/// The packet writer of [`flat_packets_registers`].
struct Packets<'j, 'o, 'a, 'b> {
    job: &'j FlatPrimitives<'a>,
    out: &'o mut PacketList<'b>,
    max_depth: usize,
    done: FlatPackets,
}

impl Packets<'_, '_, '_, '_> {
    /// A triangle (a, b, c): NCLIP, then SZ1..3 and AVSZ3; its packet's points are SXY0..2.
    ///
    /// # Safety
    /// Every index is below the job's `sxy.len()` and `sz.len()`.
    unsafe fn triangle<C: Cop2 + ?Sized>(&mut self, gte: &mut C, v: [usize; 3], gp0: u32) {
        // SAFETY: the caller's contract.
        if unsafe { gte.nclip_indexed(self.job.sxy, v) } >= 0 {
            return;
        }
        // SAFETY: the caller's contract.
        let ScreenTriangle { sxy, sz, otz } = unsafe { gte.avsz3_indexed(self.job.sz, v) };
        self.packet(sxy, sz, otz, gp0, 1);
    }

    /// A quad: NCLIP of `facing`, then SZ0..3 = the depths of `points` (drawing order) and AVSZ4;
    /// its packet's points are `points`.
    ///
    /// # Safety
    /// Every index is below the job's `sxy.len()` and `sz.len()`.
    unsafe fn quad<C: Cop2 + ?Sized>(
        &mut self,
        gte: &mut C,
        facing: [usize; 3],
        points: [usize; 4],
        gp0: u32,
    ) {
        // SAFETY: the caller's contract.
        if unsafe { gte.nclip_indexed(self.job.sxy, facing) } >= 0 {
            return;
        }
        // SAFETY: the caller's contract.
        let (sxy, sz) = unsafe {
            (
                points.map(|p| *self.job.sxy.get_unchecked(p)),
                points.map(|p| *self.job.sz.get_unchecked(p)),
            )
        };
        let otz = avsz4_of(gte, sz);
        self.packet(sxy, sz, otz, gp0, 2);
    }

    /// The near, span and room tests, then the packet (`triangles`: 1 or 2, for the counts).
    fn packet<const N: usize>(&mut self, sxy: [u32; N], sz: [u32; N], otz: u32, gp0: u32, triangles: usize) {
        let size = 2 + N;
        let done = &mut self.done;
        if (self.job.clip_tests && !within_limits(sxy, sz, self.job.near)) || self.out.arena.len() - done.words < size {
            done.rejected += triangles;
            return;
        }
        let z = (otz as usize).min(self.max_depth);
        let packet = &mut self.out.arena[done.words..][..size];
        packet[0] = ((size as u32 - 1) << 24) | (self.out.table[z] & LINK_MASK);
        packet[1] = gp0;
        for (to, xy) in packet[2..].iter_mut().zip(sxy) {
            *to = xy;
        }
        self.out.table[z] = (&packet[0] as *const u32 as usize as u32) & LINK_MASK;
        done.drawn += triangles;
        done.words += size;
    }
}
