//! Rigid pose: decoded bone samples to model-view matrices, one per bone, composed on the GTE.

use crate::gte::{Cop2, Gte, PackedMatrix};
use crate::math::{isqrt_u32, Matrix, Rotation, Vec3i32};
use crate::tables::{BoneSample, Tables, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

/// Quaternion components are reduced to Q14 so every product below fits an `i32` (cheap on the R3000).
const Q14: u32 = 14;

/// `(v + 2^(shift-1)) >> shift` (round half up) without the 64-bit sum: the floor of `v >> shift`
/// plus the bit below it. `shift` is 1..=31.
fn round_shift(v: i32, shift: u32) -> i32 {
    (v >> shift) + ((v >> (shift - 1)) & 1)
}

/// The parent-relative transform of one sample: translation * rotation * scale (scale applies first,
/// along the bone's own axes), as an FP12 matrix and a translation in GTE units (rounded).
pub fn sample_matrix(s: &BoneSample) -> Matrix {
    let unit = 1i32 << Q14;
    let [x, y, z, w] = s.rotation.map(|c| round_shift(c, ROTATION_FRAC - Q14).clamp(-unit, unit));
    // Entries of the rotation in Q28 (each product <= 2^28, each sum of two <= 2^29: fits i32).
    let one = 1i32 << (2 * Q14);
    let r = [
        [one - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), one - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), one - 2 * (x * x + y * y)],
    ];
    // Scale to Q12 (clamped to +-8.0, the largest an FP12 matrix entry holds), then column j * s[j].
    let scale = s.scale.map(|v| round_shift(v, SCALE_FRAC - 12).clamp(-(8 << 12), 8 << 12));
    let mut rotation: Rotation = [[0; 3]; 3];
    for (i, row) in rotation.iter_mut().enumerate() {
        for (j, out) in row.iter_mut().enumerate() {
            let e = round_shift(r[i][j], 2 * Q14 - 12); // Q12, |e| <= 4096
            *out = round_shift(e * scale[j], 12).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        }
    }
    let t = s.translation.map(|v| round_shift(v, TRANSLATION_FRAC));
    Matrix::new(rotation, Vec3i32::from_array(t))
}

/// `cos(15 degrees)` in Q28 (the dot product of two Q14 quaternions): arcs wider than this
/// (rotations of more than 30 degrees apart, e.g. two clips' poses in a crossfade, not neighbouring
/// frames) are halved before the linear blend.
const NLERP_MIN_COS_Q28: i32 = 259_288_740;

/// `q / |q|` in Q14 for a nonzero 4-vector whose squared length fits `u32` (components below 2^15):
/// one 32-bit square root, one division for the reciprocal (2^30 / length, 16 bits more than the
/// result) and a 32 x 32 -> 64-bit product per component (one `mult` on the R3000).
fn normalize_q14(q: [i32; 4]) -> [i32; 4] {
    let n = q.iter().fold(0u32, |acc, &c| acc.wrapping_add(c.wrapping_mul(c) as u32));
    let len = isqrt_u32(n).max(1) as i32; // Q14 length
    let r = (1i32 << 30) / len;
    q.map(|c| ((c as i64 * r as i64 + (1 << 15)) >> 16) as i32)
}

/// [`normalize_q14`] of a vector whose squared length is within 5% of 1 (a blend of two unit
/// quaternions at most 15 degrees apart always is): `1 / sqrt(n)` from its series around 1,
/// `1 + e/2 + 3e^2/8` with `e = 1 - n`, whose error (below `5e^3/16`, 4e-5) is far below a Q14 step;
/// no square root, no division. Any other length takes the general path.
fn normalize_near_unit_q14(q: [i32; 4]) -> [i32; 4] {
    // Components below 23,170 (2^14.5): the four squares sum below 2^31.
    if (q[0].abs() | q[1].abs() | q[2].abs() | q[3].abs()) < 23_170 {
        let n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]; // Q28
        let e16 = ((1 << 28) - n) >> 12; // e in Q16
        if e16.abs() <= 3277 {
            let s = (1 << 16) + (e16 >> 1) + ((3 * e16 * e16) >> 19);
            // |c| < 23,170 and s < 67,200: the product stays below 2^31.
            return q.map(|c| (c * s + (1 << 15)) >> 16);
        }
    }
    normalize_q14(q)
}

fn dot_q28(a: &[i32; 4], b: &[i32; 4]) -> i32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
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

/// `a` blended toward `b` by `weight` (FP12): translation and scale linearly, the rotation along the
/// shorter arc (the sign of `b` flipped when the quaternions lie in opposite hemispheres, so a turn
/// past 180 degrees goes the short way) by normalised linear interpolation; an arc of more than
/// 30 degrees of rotation is first halved (the normalised sum is the exact midpoint) until it is
/// within 30 degrees, so the blend stays within a fraction of a degree of spherical interpolation
/// however far apart the poses are.
///
/// The rotation is blended in Q14, the precision [`sample_matrix`] builds the matrix from, with 32-bit
/// arithmetic only (a 64-bit division is a long library call on the R3000); the result is that Q14
/// quaternion in `ROTATION_FRAC` bits.
pub fn blend_samples(a: &BoneSample, b: &BoneSample, weight: u16) -> BoneSample {
    let w = weight.min(1 << 12) as i32;
    let unit = 1i32 << Q14;
    let q14 = |q: [i32; 4]| q.map(|c| round_shift(c, ROTATION_FRAC - Q14).clamp(-unit, unit));
    let (mut qa, mut qb) = (q14(a.rotation), q14(b.rotation));
    let translation = [0, 1, 2].map(|i| lerp_fp12(a.translation[i], b.translation[i], w));
    let scale = [0, 1, 2].map(|i| lerp_fp12(a.scale[i], b.scale[i], w));
    if qa == qb {
        // The same rotation in both (a bone neither clip turns): nothing to blend.
        return BoneSample { rotation: qa.map(|c| c << (ROTATION_FRAC - Q14)), translation, scale };
    }
    let mut dot = dot_q28(&qa, &qb);
    if dot < 0 {
        qb = qb.map(|c| -c);
        dot = -dot;
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
    let rotation = normalize_near_unit_q14(q).map(|c| c << (ROTATION_FRAC - Q14));
    BoneSample { rotation, translation, scale }
}

/// A crossfade of rigid poses: `to[b]` becomes `from[b]` blended toward it by `weight` (FP12, the
/// incoming clip's share), bone by bone ([`blend_samples`]).
pub fn crossfade_samples(from: &[BoneSample], to: &mut [BoneSample], weight: u16) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = blend_samples(f, t, weight);
    }
}

/// Model-space matrix of every bone (`out[b] = out[parent] * sample_matrix(samples[b])`, roots as
/// sampled): bit-identical to [`bone_matrices`] with the identity as object, but composed with
/// [`Gte::compose_packed`] (translation by MVMVA with TR, no 64-bit arithmetic) whenever the local
/// translation fits `i16`. The pose cache's builder.
pub fn model_matrices<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, samples: &[BoneSample], out: &mut [Matrix]) {
    let n = tables.bone_count().min(samples.len()).min(out.len());
    for bone in 0..n {
        let local = sample_matrix(&samples[bone]);
        out[bone] = match (tables.bone(bone).parent, PackedMatrix::pack(&local)) {
            (Some(p), Some(packed)) if (p as usize) < bone => {
                gte.set_matrix(&out[p as usize]);
                let mut composed = [Matrix::IDENTITY];
                gte.compose_packed(&[packed], &mut composed);
                composed[0]
            }
            (Some(p), None) if (p as usize) < bone => gte.compose(&out[p as usize], &local),
            _ => local,
        };
    }
}

/// Model-view matrix of every bone: `out[b] = out[parent] * sample_matrix(samples[b])`, with
/// `object` (view * world) as the parent of the roots. Rotations are composed on the GTE
/// ([`Gte::compose`]); bones are parent-first (checked by `Tables::parse`).
pub fn bone_matrices<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, samples: &[BoneSample], object: &Matrix, out: &mut [Matrix]) {
    let n = tables.bone_count().min(samples.len()).min(out.len());
    pose_matrices(gte, |b| tables.bone(b).parent, &samples[..n], object, out);
}

/// [`bone_matrices`] for any skeleton: `parent(b)` is bone `b`'s parent (a parent that is not an
/// earlier bone counts as none: `object` is its parent), for as many bones as `samples` and `out` hold.
pub fn pose_matrices<B: Cop2>(
    gte: &mut Gte<B>,
    parent: impl Fn(usize) -> Option<u16>,
    samples: &[BoneSample],
    object: &Matrix,
    out: &mut [Matrix],
) {
    let n = samples.len().min(out.len());
    for bone in 0..n {
        let local = sample_matrix(&samples[bone]);
        let parent = match parent(bone) {
            Some(p) if (p as usize) < bone => out[p as usize],
            _ => *object,
        };
        out[bone] = gte.compose(&parent, &local);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
