//! Rigid pose: decoded bone samples to model-view matrices, one per bone, composed on the GTE.

use crate::gte::regs::data;
use crate::gte::{Cop2, Gte, GPF_SF0, MVMVA_RT_IR, MVMVA_RT_IR_TR, SQR_SF0};
use crate::math::{Matrix, Rotation, Vec3i32};
use crate::tables::{sqrt_q30, BoneSample, Tables, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

/// Quaternion components are reduced to Q14 so every product below fits an `i32` (cheap on the R3000).
const Q14: u32 = 14;

/// `(v + 2^(shift-1)) >> shift` (round half up) without the 64-bit sum: the floor of `v >> shift`
/// plus the bit below it. `shift` is 1..=31.
fn round_shift(v: i32, shift: u32) -> i32 {
    (v >> shift) + ((v >> (shift - 1)) & 1)
}

/// The parent-relative transform of one sample: translation * rotation * scale (scale applies first,
/// along the bone's own axes), as an FP12 matrix and a translation in GTE units (rounded).
///
/// The definition: with the rotation's components `x, y, z, w` rounded to Q14 (clamped to +-1.0),
/// entry `[i][j]` is `round(R[i][j] * s[j])` where `R` is the rotation matrix of the quaternion in
/// Q28 (`1 - 2(y^2 + z^2)`, `2(xy - wz)`, ...) rounded to Q12 and `s[j]` the scale in Q12 (clamped
/// to +-8.0), saturated to `i16`; every rounding is half up. [`sample_matrix_gte`] and
/// [`compose_sample`] compute the same bits with the GTE's products.
pub fn sample_matrix(s: &BoneSample) -> Matrix {
    let [x, y, z, w] = q14(&s.rotation);
    let products = [x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z];
    Matrix::new(scaled_rotation(rotation_q12(products), &s.scale), Vec3i32::from_array(translation_units(&s.translation)))
}

/// [`sample_matrix`] with the quaternion's products from the GTE (GPF and SQR with sf=0: exact
/// 32-bit products, up to three per command; `y * z` on the CPU). Overwrites IR0..3, MAC1..3 and the color
/// FIFO.
pub fn sample_matrix_gte<B: Cop2>(gte: &mut Gte<B>, s: &BoneSample) -> Matrix {
    let e = rotation_q12(gte_products(gte, q14(&s.rotation)));
    Matrix::new(scaled_rotation(e, &s.scale), Vec3i32::from_array(translation_units(&s.translation)))
}

/// The rotation's components in Q14: `round_shift(c, 16)` as `((c >> 1) + 2^14) >> 15` (no
/// overflow), clamped to +-2^14 (the clamp only for out-of-range components, which a unit
/// quaternion has not).
#[inline(always)]
fn q14(rotation: &[i32; 4]) -> [i32; 4] {
    let shift = ROTATION_FRAC - Q14;
    let mut q = rotation.map(|c| ((c >> 1) + (1 << (shift - 2))) >> (shift - 1));
    let unit = 1i32 << Q14;
    if q.iter().any(|&c| (c + unit) as u32 > 2 * unit as u32) {
        q = q.map(|c| c.clamp(-unit, unit));
    }
    q
}

/// The translation in GTE units: `round_shift(v, 8)` as `((v >> 1) + 2^6) >> 7`.
#[inline(always)]
fn translation_units(t: &[i32; 3]) -> [i32; 3] {
    t.map(|v| ((v >> 1) + (1 << (TRANSLATION_FRAC - 2))) >> (TRANSLATION_FRAC - 1))
}

/// xx, yy, zz, xy, xz, yz, wx, wy, wz (Q28, exact) of Q14 components `[x, y, z, w]`, by GPF and SQR
/// with sf=0.
#[inline(always)]
fn gte_products<B: Cop2>(gte: &mut Gte<B>, [x, y, z, w]: [i32; 4]) -> [i32; 9] {
    gte.write_data::<{ data::IR0 }>(w as u32);
    write_irs(gte, [x, y, z]);
    gte.command::<GPF_SF0>();
    let [wx, wy, wz] = macs(gte);
    write_irs(gte, [x, y, z]);
    gte.command::<SQR_SF0>();
    let [xx, yy, zz] = macs(gte);
    gte.write_data::<{ data::IR0 }>(x as u32);
    gte.write_data::<{ data::IR1 }>(y as u32);
    gte.write_data::<{ data::IR2 }>(z as u32);
    gte.command::<GPF_SF0>();
    let xy = gte.read_data::<{ data::MAC1 }>() as i32;
    let xz = gte.read_data::<{ data::MAC2 }>() as i32;
    [xx, yy, zz, xy, xz, y * z, wx, wy, wz]
}

/// The rotation matrix in Q12 from the products (see [`crate::gte::unit_rotation`]).
#[inline(always)]
fn rotation_q12(products: [i32; 9]) -> [[i32; 3]; 3] {
    crate::gte::unit_rotation(products)
}

/// Column `j` times the scale's axis `j` in Q12 (`round_shift(v, 4)`, clamped to +-8.0), rounded and
/// saturated to `i16`. An axis of exactly 1.0 (`v` in 65528..=65543) changes nothing: all three are
/// (the common case), and the multiplies are skipped.
#[inline(always)]
fn scaled_rotation(mut e: [[i32; 3]; 3], scale: &[i32; 3]) -> Rotation {
    let unscaled = |v: i32| (v.wrapping_sub(65528) as u32) < 16;
    if !(unscaled(scale[0]) && unscaled(scale[1]) && unscaled(scale[2])) {
        let scale = scale.map(|v| round_shift(v, SCALE_FRAC - 12).clamp(-(8 << 12), 8 << 12));
        for row in e.iter_mut() {
            for (v, sc) in row.iter_mut().zip(scale) {
                *v = round_shift(*v * sc, 12).clamp(i16::MIN as i32, i16::MAX as i32);
            }
        }
    }
    e.map(|row| row.map(|v| v as i16))
}

/// `cos(15 degrees)` in Q28 (the dot product of two Q14 quaternions): arcs wider than this
/// (rotations of more than 30 degrees apart, e.g. two clips' poses in a crossfade, not neighbouring
/// frames) are halved before the linear blend.
const NLERP_MIN_COS_Q28: i32 = 259_288_740;

/// `q / |q|` in Q14 for a nonzero 4-vector whose squared length fits `u32` (components below 2^15):
/// one 32-bit square root (`sqrt_q30`: the floor root, from a table for the 2^28..=2^30 that a sum
/// of two unit quaternions up to 180 degrees apart has), one division for the reciprocal (2^30 /
/// length, 16 bits more than the result) and a 32 x 32 -> 64-bit product per component (one `mult`
/// on the R3000).
fn normalize_q14(q: [i32; 4]) -> [i32; 4] {
    let n = q.iter().fold(0u32, |acc, &c| acc.wrapping_add(c.wrapping_mul(c) as u32));
    let len = sqrt_q30(n).max(1) as i32; // Q14 length
    let r = (1i32 << 30) / len;
    q.map(|c| ((c as i64 * r as i64 + (1 << 15)) >> 16) as i32)
}

/// [`normalize_q14`] of a vector whose squared length is within 5% of 1 (a blend of two unit
/// quaternions at most 15 degrees apart always is): `1 / sqrt(n)` from its series around 1,
/// `1 + e/2 + 3e^2/8` with `e = 1 - n`, whose error (below `5e^3/16`, 4e-5) is far below a Q14 step;
/// no square root, no division. Any other length takes the general path.
///
/// For components within +-2^15 (a blend's) `n` is exact modulo 2^32, and lies in the window only
/// when the true squared length does (it is at most 2^32); every component is then below 16,800, so
/// the products below fit `i32`. The console's crossfade (`hw`) takes `n` from the GTE's squares
/// in the same 32 bits.
fn normalize_near_unit_q14(q: [i32; 4]) -> [i32; 4] {
    let n = q.iter().fold(0u32, |acc, &c| acc.wrapping_add(c.wrapping_mul(c) as u32)); // Q28
    let e16 = ((1u32 << 28).wrapping_sub(n) as i32) >> 12; // e in Q16
    if e16.abs() <= 3277 {
        let s = (1 << 16) + (e16 >> 1) + ((3 * e16 * e16) >> 19);
        return q.map(|c| (c * s + (1 << 15)) >> 16);
    }
    normalize_q14(q)
}

/// The dot product of two Q14 4-vectors (Q28), wrapping as the console's 32-bit sum does (components
/// past +-2^14 only).
fn dot_q28(a: &[i32; 4], b: &[i32; 4]) -> i32 {
    (0..4).fold(0i32, |acc, i| acc.wrapping_add(a[i].wrapping_mul(b[i])))
}

/// `p + (q - p) * w >> 12` with the product in 64 bits (one `mult` on the R3000, a dozen cycles:
/// skipped when the two are equal, as a bone's scale and length usually are in both clips).
#[inline(always)]
fn lerp_fp12(p: i32, q: i32, w: i32) -> i32 {
    if p == q {
        return p;
    }
    p.wrapping_add(((q.wrapping_sub(p) as i64 * w as i64) >> 12) as i32)
}

/// `a` blended toward `b` by `weight` (FP12): translation and scale linearly, the rotation by
/// [`blend_rotation_q14`] (along the shorter arc), the result that Q14 quaternion in `ROTATION_FRAC`
/// bits.
pub fn blend_samples(a: &BoneSample, b: &BoneSample, weight: u16) -> BoneSample {
    let w = weight.min(1 << 12) as i32;
    let unit = 1i32 << Q14;
    let q14 = |q: [i32; 4]| q.map(|c| round_shift(c, ROTATION_FRAC - Q14).clamp(-unit, unit));
    let translation = [0, 1, 2].map(|i| lerp_fp12(a.translation[i], b.translation[i], w));
    let scale = [0, 1, 2].map(|i| lerp_fp12(a.scale[i], b.scale[i], w));
    let rotation = blend_rotation_q14(q14(a.rotation), q14(b.rotation), w).map(|c| c << (ROTATION_FRAC - Q14));
    BoneSample { rotation, translation, scale }
}

/// The rotation of every rigid blend ([`blend_samples`], [`blend_q14`]): unit quaternions `qa`
/// toward `qb` (Q14, components within +-2^14) by `w` (FP12, 0..=4096), along the shorter arc (the
/// sign of `qb` flipped when the two lie in opposite hemispheres, so a turn past 180 degrees goes
/// the short way) by normalised linear interpolation; an arc of more than 30 degrees is first
/// halved (the normalised sum is the exact midpoint) until it is within 30 degrees, so the blend
/// stays within a fraction of a degree of spherical interpolation however far apart the poses are.
/// 32-bit arithmetic only (a 64-bit division is a long library call on the R3000). Equal rotations
/// (a bone neither clip turns) come back unchanged.
pub fn blend_rotation_q14(mut qa: [i32; 4], mut qb: [i32; 4], w: i32) -> [i32; 4] {
    // Compared word by word (`==` on the arrays becomes a byte-wise `memcmp` call on the console).
    if (qa[0] ^ qb[0]) | (qa[1] ^ qb[1]) | (qa[2] ^ qb[2]) | (qa[3] ^ qb[3]) == 0 {
        return qa;
    }
    let mut dot = dot_q28(&qa, &qb);
    if dot < 0 {
        qb = qb.map(|c| -c);
        dot = dot.wrapping_neg();
    }
    // Components within +-2^14, so every square and dot fits i32; a sum of two unit quaternions in
    // the same hemisphere has a squared length of at most 2^30.
    let mut t = w;
    let mut levels = 0;
    while levels < 4 && dot < NLERP_MIN_COS_Q28 {
        let mid = normalize_q14([0, 1, 2, 3].map(|i| qa[i] + qb[i]));
        if t <= 1 << 11 {
            qb = mid;
            t *= 2;
        } else {
            qa = mid;
            t = 2 * t - (1 << 12);
        }
        dot = dot_q28(&qa, &qb);
        levels += 1;
    }
    let q = [0, 1, 2, 3].map(|i| qa[i] + (((qb[i] - qa[i]) * t) >> 12));
    normalize_near_unit_q14(q)
}

/// [`blend_samples`] in the GTE's form: the same rotation ([`blend_rotation_q14`]), so the matrices
/// composed from it are those of the blended samples, and the translation blended in GTE units
/// (the samples' blend rounds after blending: the two differ by at most one unit). `None` when the
/// blended rotation leaves the form (a component past +-1.0 by rounding).
pub fn blend_q14(a: &PoseQ14, b: &PoseQ14, weight: u16) -> Option<PoseQ14> {
    let w = weight.min(1 << 12) as i32;
    let q = blend_rotation_q14(a.rotation.map(i32::from), b.rotation.map(i32::from), w);
    if q.iter().any(|&c| !(-(1 << Q14)..=1 << Q14).contains(&c)) {
        return None;
    }
    let t = [0, 1, 2].map(|i| lerp_fp12(a.translation[i] as i32, b.translation[i] as i32, w) as i16);
    Some(PoseQ14::new(q.map(|c| c as i16), t))
}

/// A crossfade of rigid poses: `to[b]` becomes `from[b]` blended toward it by `weight` (FP12, the
/// incoming clip's share), bone by bone ([`blend_samples`]).
pub fn crossfade_samples(from: &[BoneSample], to: &mut [BoneSample], weight: u16) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = blend_samples(f, t, weight);
    }
}

/// [`crossfade_samples`] in the GTE's form ([`blend_q14`] bone by bone): `false` when a bone's
/// blend leaves the form (`to` then partly blended: the caller blends samples instead).
/// On the console an asm loop (`hw`) blends the common case, its products on the GTE (it overwrites
/// RT, V0, IR0..3, MAC1..3 and the color FIFO), and hands any other bone to this loop.
pub fn crossfade_q14(from: &[PoseQ14], to: &mut [PoseQ14], weight: u16) -> bool {
    let n = from.len().min(to.len());
    let mut b = 0;
    while b < n {
        #[cfg(target_os = "psx")]
        {
            b += hw::crossfade_q14(&from[b..n], &mut to[b..n], weight);
            if b == n {
                break;
            }
        }
        match blend_q14(&from[b], &to[b], weight) {
            Some(p) => to[b] = p,
            None => return false,
        }
        b += 1;
    }
    true
}

#[cfg(target_os = "psx")]
mod hw;

/// Model-space matrix of every bone (`out[b] = out[parent] * sample_matrix(samples[b])`, roots as
/// sampled): bit-identical to [`bone_matrices`] with the identity as object. The pose cache's builder
/// (through [`compose_q14`] where the sample allows, so that the console's cache, checked word for
/// word against the host's, covers that path too).
pub fn model_matrices<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, samples: &[BoneSample], out: &mut [Matrix]) {
    let n = tables.bone_count().min(samples.len()).min(out.len());
    for (bone, sample) in samples.iter().enumerate().take(n) {
        let (done, rest) = out.split_at_mut(bone);
        match tables.parent(bone) {
            Some(p) if (p as usize) < bone => match PoseQ14::from_sample(sample) {
                Some(pose) => compose_q14(gte, &done[p as usize], &pose, &mut rest[0]),
                None => compose_sample_into(gte, &done[p as usize], sample, &mut rest[0]),
            },
            _ => rest[0] = sample_matrix_gte(gte, sample),
        }
    }
}

/// Model-view matrix of every bone: `out[b] = out[parent] * sample_matrix(samples[b])`, with
/// `object` (view * world) as the parent of the roots. Rotations are composed on the GTE
/// ([`Gte::compose`]); bones are parent-first (checked by `Tables::parse`).
pub fn bone_matrices<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, samples: &[BoneSample], object: &Matrix, out: &mut [Matrix]) {
    let n = tables.bone_count().min(samples.len()).min(out.len());
    pose_matrices(gte, |b| tables.parent(b), &samples[..n], object, out);
}

/// [`bone_matrices`] for any skeleton: `parent(b)` is bone `b`'s parent (a parent that is not an
/// earlier bone counts as none: `object` is its parent), for as many bones as `samples` and `out` hold.
/// Each bone is [`compose_sample`].
pub fn pose_matrices<B: Cop2>(
    gte: &mut Gte<B>,
    parent: impl Fn(usize) -> Option<u16>,
    samples: &[BoneSample],
    object: &Matrix,
    out: &mut [Matrix],
) {
    let n = samples.len().min(out.len());
    for (bone, sample) in samples.iter().enumerate().take(n) {
        let (done, rest) = out.split_at_mut(bone);
        let parent = match parent(bone) {
            Some(p) if (p as usize) < bone => &done[p as usize],
            _ => object,
        };
        compose_sample_into(gte, parent, sample, &mut rest[0]);
    }
}

pub use crate::gte::PoseQ14;

/// `*out = parent * pose` ([`Cop2::compose_q14`]): for a rotation within +-2^14, bit-identical to
/// [`compose_sample`] of `pose.to_sample()`, i.e. to `sample_matrix` then `Gte::compose`.
#[inline(always)]
pub fn compose_q14<B: Cop2>(gte: &mut Gte<B>, parent: &Matrix, pose: &PoseQ14, out: &mut Matrix) {
    gte.backend_mut().compose_q14(parent, pose, out);
}

/// [`pose_matrices`] for poses in the GTE's units ([`compose_q14`] per bone).
pub fn pose_matrices_q14<B: Cop2>(
    gte: &mut Gte<B>,
    parent: impl Fn(usize) -> Option<u16>,
    poses: &[PoseQ14],
    object: &Matrix,
    out: &mut [Matrix],
) {
    let n = poses.len().min(out.len());
    for (bone, pose) in poses.iter().enumerate().take(n) {
        let (done, rest) = out.split_at_mut(bone);
        let parent = match parent(bone) {
            Some(p) if (p as usize) < bone => &done[p as usize],
            _ => object,
        };
        compose_q14(gte, parent, pose, &mut rest[0]);
    }
}

/// [`pose_matrices_q14`] for `tables`' skeleton: one [`Cop2::compose_q14_chain`] (on the console one
/// asm loop that loads a parent only when it changes) when the tables keep its parent steps (up to 64
/// bones), else bone by bone.
pub fn bone_matrices_q14<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, poses: &[PoseQ14], object: &Matrix, out: &mut [Matrix]) {
    match tables.parent_steps() {
        Some(steps) => gte.backend_mut().compose_q14_chain(steps, poses, object, out),
        None => pose_matrices_q14(gte, |b| tables.parent(b), poses, object, out),
    }
}

/// MAC1..3 of the last command (the exact products of GPF/SQR with sf=0).
#[inline(always)]
fn macs<B: Cop2>(gte: &mut Gte<B>) -> [i32; 3] {
    [
        gte.read_data::<{ data::MAC1 }>() as i32,
        gte.read_data::<{ data::MAC2 }>() as i32,
        gte.read_data::<{ data::MAC3 }>() as i32,
    ]
}

/// IR1..3 (a composed column: MVMVA saturates them to `i16`).
#[inline(always)]
fn irs<B: Cop2>(gte: &mut Gte<B>) -> [i16; 3] {
    [
        gte.read_data::<{ data::IR1 }>() as i16,
        gte.read_data::<{ data::IR2 }>() as i16,
        gte.read_data::<{ data::IR3 }>() as i16,
    ]
}

#[inline(always)]
fn write_irs<B: Cop2>(gte: &mut Gte<B>, v: [i32; 3]) {
    gte.write_data::<{ data::IR1 }>(v[0] as u32);
    gte.write_data::<{ data::IR2 }>(v[1] as u32);
    gte.write_data::<{ data::IR3 }>(v[2] as u32);
}

/// `parent * sample_matrix(s)`: bit-identical to `gte.compose(parent, &sample_matrix(s))` for every
/// sample and parent, at a fraction of its cost. The quaternion's nine products come from the GTE
/// (GPF and SQR with sf=0 give exact 32-bit products, up to three at a time), the
/// rounding to FP12 is one add and one shift per entry, the scale multiply is skipped when every axis
/// is 1.0, and the local matrix goes to the GTE as IR1..3 column by column (MVMVA with RT = the
/// parent's rotation), its translation too (MVMVA with TR = the parent's translation) when it fits
/// `i16`; otherwise the translation is summed on the CPU as [`Gte::compose`] does.
///
/// Loads RT and TR with `parent`; overwrites IR0..3, MAC1..3 and the color FIFO.
pub fn compose_sample<B: Cop2>(gte: &mut Gte<B>, parent: &Matrix, s: &BoneSample) -> Matrix {
    let mut out = Matrix::IDENTITY;
    compose_sample_into(gte, parent, s, &mut out);
    out
}

/// [`compose_sample`] into `out`: the common case (rotation within range, scale 1.0, translation
/// within `i16`) in one backend step ([`Cop2::compose_unit_sample`], hand-scheduled on the console),
/// any other sample by the general path.
#[inline(always)]
pub fn compose_sample_into<B: Cop2>(gte: &mut Gte<B>, parent: &Matrix, s: &BoneSample, out: &mut Matrix) {
    if !gte.backend_mut().compose_unit_sample(parent, s, out) {
        *out = compose_general(gte, parent, s);
    }
}

/// [`compose_sample`] for any sample.
#[inline(never)]
fn compose_general<B: Cop2>(gte: &mut Gte<B>, parent: &Matrix, s: &BoneSample) -> Matrix {
    let e = scaled_rotation(rotation_q12(gte_products(gte, q14(&s.rotation))), &s.scale);
    gte.set_matrix(parent);
    let mut rotation: Rotation = [[0; 3]; 3];
    for j in 0..3 {
        write_irs(gte, [e[0][j] as i32, e[1][j] as i32, e[2][j] as i32]);
        gte.command::<MVMVA_RT_IR>();
        let c = irs(gte);
        rotation[0][j] = c[0];
        rotation[1][j] = c[1];
        rotation[2][j] = c[2];
    }
    let t = translation_units(&s.translation);
    let short = |v: i32| (v + 0x8000) as u32 <= 0xFFFF;
    let translation = if short(t[0]) && short(t[1]) && short(t[2]) {
        // MAC = bits 12..43 of TR * 2^12 + RT * t: whether or not the 44-bit sum wraps, that is the
        // CPU's `(RT * t) >> 12` plus TR, wrapped to 32 bits.
        write_irs(gte, t);
        gte.command::<MVMVA_RT_IR_TR>();
        let [tx, ty, tz] = macs(gte);
        Vec3i32::new(tx, ty, tz)
    } else {
        parent.rotate_wide(Vec3i32::from_array(t)).wrapping_add(parent.translation)
    };
    Matrix { rotation, translation }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    /// The original `sample_matrix`, kept as the oracle of the fast paths.
    fn reference_sample_matrix(s: &BoneSample) -> Matrix {
        let unit = 1i32 << Q14;
        let [x, y, z, w] = s.rotation.map(|c| round_shift(c, ROTATION_FRAC - Q14).clamp(-unit, unit));
        let one = 1i32 << (2 * Q14);
        let r = [
            [one - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), one - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), one - 2 * (x * x + y * y)],
        ];
        let scale = s.scale.map(|v| round_shift(v, SCALE_FRAC - 12).clamp(-(8 << 12), 8 << 12));
        let mut rotation: Rotation = [[0; 3]; 3];
        for (i, row) in rotation.iter_mut().enumerate() {
            for (j, out) in row.iter_mut().enumerate() {
                let e = round_shift(r[i][j], 2 * Q14 - 12);
                *out = round_shift(e * scale[j], 12).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
            }
        }
        let t = s.translation.map(|v| round_shift(v, TRANSLATION_FRAC));
        Matrix::new(rotation, Vec3i32::from_array(t))
    }

    /// The original `bone_matrices` loop: `sample_matrix`, then `Gte::compose`.
    fn reference_pose(parents: &[Option<u16>], samples: &[BoneSample], object: &Matrix) -> std::vec::Vec<Matrix> {
        let mut gte = Gte::with_backend(crate::gte::GteModel::new());
        let mut out = std::vec![Matrix::IDENTITY; samples.len()];
        for bone in 0..samples.len() {
            let local = reference_sample_matrix(&samples[bone]);
            let parent = match parents[bone] {
                Some(p) if (p as usize) < bone => out[p as usize],
                _ => *object,
            };
            out[bone] = gte.compose(&parent, &local);
        }
        out
    }

    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        fn pick<T: Copy>(&mut self, v: &[T]) -> T {
            v[self.next() as usize % v.len()]
        }
        fn below(&mut self, n: u32) -> i32 {
            (self.next() % n) as i32
        }
    }

    const EDGES: [i32; 14] = [0, 1, -1, i32::MIN, i32::MAX, 1 << 30, -(1 << 30), (1 << 30) + (1 << 15), (1 << 30) + (1 << 15) - 1, -(1 << 30) - (1 << 15), -(1 << 30) - (1 << 15) - 1, 1 << 15, -(1 << 15), 0x7FFF_8000];

    /// A sample: mostly unit quaternions and unit scales (what clips hold), with every field also
    /// drawn from the edges (out-of-range components, scale at and around 1.0, extreme translations).
    fn sample(r: &mut Rng) -> BoneSample {
        let rotation = match r.below(4) {
            0 => [0; 4].map(|_| r.pick(&EDGES)),
            1 => [0; 4].map(|_| r.next() as i32),
            _ => {
                let v = [0; 4].map(|_| r.below(2001) as f64 - 1000.0);
                let len = v.iter().map(|c| c * c).sum::<f64>().sqrt().max(1.0);
                v.map(|c| (c / len * (1u32 << 30) as f64).round() as i32)
            }
        };
        let scale_axis = |r: &mut Rng| match r.below(6) {
            0 | 1 => 65536,
            2 => 65528 + r.below(16),
            3 => r.pick(&[65527, 65544, 65520, 65551, -65536, 0, 1 << 20, i32::MIN, i32::MAX]),
            4 => 32768 + r.below(65536),
            _ => r.next() as i32,
        };
        let scale = match r.below(3) {
            0 => [0; 3].map(|_| scale_axis(r)),
            _ => [65536; 3],
        };
        let translation = [0; 3].map(|_| match r.below(5) {
            0 => r.pick(&EDGES),
            1 => r.next() as i32,
            2 => (32767 << 8) + r.below(1024) - 512,
            _ => r.below(1 << 20) - (1 << 19),
        });
        BoneSample { rotation, translation, scale }
    }

    fn parent_matrix(r: &mut Rng) -> Matrix {
        let entry = |r: &mut Rng| match r.below(4) {
            0 => r.pick(&[i16::MIN, i16::MAX, 0, 4096, -4096]),
            1 => r.next() as i16,
            _ => (r.below(8193) - 4096) as i16,
        };
        let rotation = [[0; 3]; 3].map(|row| row.map(|_| entry(r)));
        let t = |r: &mut Rng| match r.below(4) {
            0 => r.pick(&[i32::MIN, i32::MAX, 1 << 30, -(1 << 30), (1 << 30) + 1, -(1 << 30) - 1, 0]),
            1 => r.next() as i32,
            _ => r.below(1 << 16) - (1 << 15),
        };
        Matrix::new(rotation, Vec3i32::new(t(r), t(r), t(r)))
    }

    #[test]
    fn fast_sample_matrices_equal_the_original_formula_bit_for_bit() {
        let mut r = Rng(0x1234_5678);
        let mut gte = Gte::with_backend(crate::gte::GteModel::new());
        let mut scaled = 0;
        for _ in 0..200_000 {
            let s = sample(&mut r);
            let reference = reference_sample_matrix(&s);
            assert_eq!(sample_matrix(&s), reference, "{s:?}");
            assert_eq!(sample_matrix_gte(&mut gte, &s), reference, "{s:?}");
            scaled += (s.scale != [65536; 3]) as u32;
        }
        assert!(scaled > 50_000, "{scaled}");
    }

    #[test]
    fn composed_samples_equal_sample_matrix_then_compose_bit_for_bit() {
        let mut r = Rng(0x8765_4321);
        let mut gte = Gte::with_backend(crate::gte::GteModel::new());
        let mut oracle = Gte::with_backend(crate::gte::GteModel::new());
        let mut common = 0;
        for _ in 0..200_000 {
            let (s, parent) = (sample(&mut r), parent_matrix(&mut r));
            let reference = oracle.compose(&parent, &reference_sample_matrix(&s));
            assert_eq!(compose_sample(&mut gte, &parent, &s), reference, "{parent:?} * {s:?}");
            common += crate::gte::unit_sample(&s).is_some() as u32;
        }
        // Both paths taken many times: the common case (Cop2::compose_unit_sample) and the general one.
        assert!((10_000..190_000).contains(&common), "{common}");
    }

    #[test]
    fn q14_poses_compose_like_their_samples_and_wrap_alike_beyond_range() {
        let mut r = Rng(0x5EED_1234);
        let mut gte = Gte::with_backend(crate::gte::GteModel::new());
        let mut oracle = Gte::with_backend(crate::gte::GteModel::new());
        let mut converted = 0;
        for _ in 0..200_000 {
            let (s, parent) = (sample(&mut r), parent_matrix(&mut r));
            let Some(pose) = PoseQ14::from_sample(&s) else {
                continue;
            };
            converted += 1;
            assert_eq!(pose.to_sample().rotation.map(|c| c >> 16), s.rotation.map(|c| ((c >> 1) + (1 << 14)) >> 15));
            let reference = oracle.compose(&parent, &reference_sample_matrix(&s));
            let mut out = Matrix::IDENTITY;
            compose_q14(&mut gte, &parent, &pose, &mut out);
            assert_eq!(out, reference, "{parent:?} * {pose:?}");
            assert_eq!(compose_sample(&mut gte, &parent, &pose.to_sample()), reference, "{pose:?}");
        }
        assert!(converted > 10_000, "{converted}");
        // Components beyond +-2^14 (no test on this path): no panic, and the documented formula with
        // 32-bit wrapping, the entries cut to i16 as an IR write does, composed like `Matrix::mul`.
        for _ in 0..20_000 {
            let pose = PoseQ14::new([0; 4].map(|_| r.next() as i16), [0; 3].map(|_| r.next() as i16));
            let parent = parent_matrix(&mut r);
            let [x, y, z, w] = pose.rotation.map(|c| c as i32);
            let e = crate::gte::unit_rotation([x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z]);
            let local = Matrix::new(e.map(|row| row.map(|v| v as i16)), Vec3i32::from_array(pose.translation.map(|c| c as i32)));
            let mut out = Matrix::IDENTITY;
            compose_q14(&mut gte, &parent, &pose, &mut out);
            assert_eq!(out, parent.mul(&local), "{parent:?} * {pose:?}");
        }
    }

    #[test]
    fn pose_matrices_equal_the_original_loop_on_random_skeletons() {
        let mut r = Rng(0x0BAD_F00D);
        let mut gte = Gte::with_backend(crate::gte::GteModel::new());
        for _ in 0..3000 {
            let n = 1 + r.below(40) as usize;
            // Parents: earlier bones, none, or (ignored) later bones and itself.
            let parents: std::vec::Vec<Option<u16>> = (0..n)
                .map(|b| match r.below(6) {
                    0 => None,
                    1 => Some((b + r.below(3) as usize) as u16),
                    _ if b > 0 => Some(r.below(b as u32) as u16),
                    _ => None,
                })
                .collect();
            let samples: std::vec::Vec<BoneSample> = (0..n).map(|_| sample(&mut r)).collect();
            let object = match r.below(3) {
                0 => parent_matrix(&mut r),
                _ => Matrix::new([[4096, 0, 0], [0, 2896, -2896], [0, 2896, 2896]], Vec3i32::new(r.below(4000) - 2000, 300, 8000)),
            };
            let mut out = std::vec![Matrix::IDENTITY; n];
            pose_matrices(&mut gte, |b| parents[b], &samples, &object, &mut out);
            assert_eq!(out, reference_pose(&parents, &samples, &object), "{parents:?}");
        }
    }

    #[test]
    fn series_normalisation_agrees_with_the_square_root_near_unit_and_defers_elsewhere() {
        let mut x = 0x2545_F491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut near = 0;
        for _ in 0..20_000 {
            // A unit quaternion, scaled by 0.93..1.07.
            let v = [0; 4].map(|_| (next() % 2001) as f64 - 1000.0);
            let len = v.iter().map(|c| c * c).sum::<f64>().sqrt().max(1.0);
            let scale = 0.93 + 0.14 * (next() % 1000) as f64 / 1000.0;
            let q = v.map(|c| (c / len * 16384.0 * scale).round() as i32);
            let (fast, exact) = (normalize_near_unit_q14(q), normalize_q14(q));
            for (f, e) in fast.iter().zip(exact) {
                assert!((f - e).abs() <= 2, "{q:?}: {fast:?} vs {exact:?}");
            }
            near += (fast == exact) as u32;
        }
        assert!(near > 10_000, "{near}");
        // Far from unit, or out of range: the general path, no overflow.
        assert_eq!(normalize_near_unit_q14([30_000, 0, 0, 0]), [16384, 0, 0, 0]);
        assert_eq!(normalize_near_unit_q14([8000, 0, 0, 0]), [16384, 0, 0, 0]);
    }

    /// The series normalisation as first written: a bound on the components (OR-ed magnitudes below
    /// 23,170), the squares summed in `i32`, then the window.
    fn reference_normalize_near_unit_q14(q: [i32; 4]) -> [i32; 4] {
        if (q[0].abs() | q[1].abs() | q[2].abs() | q[3].abs()) < 23_170 {
            let n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            let e16 = ((1 << 28) - n) >> 12;
            if e16.abs() <= 3277 {
                let s = (1 << 16) + (e16 >> 1) + ((3 * e16 * e16) >> 19);
                return q.map(|c| (c * s + (1 << 15)) >> 16);
            }
        }
        normalize_q14(q)
    }

    #[test]
    fn series_window_on_the_wrapped_square_sum_equals_the_bounded_original() {
        let mut r = Rng(0x0DDB_A115);
        let mut series = 0;
        for i in 0..400_000 {
            let q: [i32; 4] = match i % 4 {
                // Near unit (the series' window and just outside it), one axis dominant or not.
                0 | 1 => {
                    let v = [0; 4].map(|_| r.below(2001) as f64 - 1000.0);
                    let len = v.iter().map(|c| c * c).sum::<f64>().sqrt().max(1.0);
                    let scale = 0.9 + 0.2 * r.below(1000) as f64 / 1000.0;
                    v.map(|c| (c / len * 16384.0 * scale).round() as i32)
                }
                // Anywhere a blend's components can be, and their edges.
                2 => [0; 4].map(|_| r.below(65537) - 32768),
                _ => [0; 4].map(|_| r.pick(&[0, 1, -1, 16384, -16384, 16385, 16800, -16800, 23169, 23170, 32767, -32768, 32768])),
            };
            let (fast, reference) = (normalize_near_unit_q14(q), reference_normalize_near_unit_q14(q));
            assert_eq!(fast, reference, "{q:?}");
            let n: i64 = q.iter().map(|&c| c as i64 * c as i64).sum();
            series += (((1i64 << 28) - n) >> 12).abs().le(&3277) as u32;
        }
        assert!(series > 40_000, "{series}");
    }

    #[test]
    fn round_shift_rounds_half_up_like_the_wide_sum() {
        let wide = |v: i32, shift: u32| ((v as i64 + (1i64 << (shift - 1))) >> shift) as i32;
        let mut x = 0x9E37_79B9u32;
        let values = (0..2000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as i32
        });
        for v in values.chain([i32::MIN, i32::MAX, -1, 0, 1, 2047, 2048, -2048, -2049]) {
            for shift in 1..=31 {
                assert_eq!(round_shift(v, shift), wide(v, shift), "{v} >> {shift}");
            }
        }
    }
}
