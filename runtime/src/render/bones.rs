//! Rigid pose: decoded bone samples to model-view matrices, one per bone, composed on the GTE.

use crate::gte::{Cop2, Gte, PackedMatrix};
use crate::math::{isqrt_u64, Matrix, Rotation, Vec3i32};
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

/// `cos(15 degrees)` with 60 fraction bits: quaternion arcs wider than this (rotations of more than
/// 30 degrees, e.g. between two clips' poses in a crossfade) are halved before the linear blend.
const NLERP_MIN_COS_Q60: i64 = 1_113_636_656_983_804_544;

/// `q / |q|` with `ROTATION_FRAC` fraction bits (`q` not zero: it is clamped to length 1 unit).
fn normalize_q30(q: [i64; 4]) -> [i64; 4] {
    let norm2: u64 = q.iter().map(|c| (c * c) as u64).fold(0u64, |acc, v| acc.saturating_add(v));
    let norm = isqrt_u64(norm2).max(1) as i64; // Q30 length, near 2^30
    q.map(|c| (c << ROTATION_FRAC) / norm)
}

fn dot_q60(a: &[i64; 4], b: &[i64; 4]) -> i64 {
    (0..4).map(|i| a[i] * b[i]).sum()
}

/// `a` blended toward `b` by `weight` (FP12): translation and scale linearly, the rotation along the
/// shorter arc (the sign of `b` flipped when the quaternions lie in opposite hemispheres, so a turn
/// past 180 degrees goes the short way) by normalised linear interpolation; an arc of more than
/// 30 degrees of rotation (two clips' poses in a crossfade, not neighbouring frames) is first halved
/// (the normalised sum is the exact midpoint) until it is within 30 degrees, so the blend stays
/// within a fraction of a degree of spherical interpolation however far apart the poses are.
pub fn blend_samples(a: &BoneSample, b: &BoneSample, weight: u16) -> BoneSample {
    let w = weight.min(1 << 12) as i64;
    let lerp = |p: i64, q: i64, w: i64| p + (((q - p) * w) >> 12);
    let mut qa = a.rotation.map(|c| c as i64);
    let mut qb = b.rotation.map(|c| c as i64);
    if dot_q60(&qa, &qb) < 0 {
        qb = qb.map(|c| -c);
    }
    // Components stay within +-2^30 (decoded samples are; a midpoint is unit), so products fit i64.
    let mut t = w;
    let mut levels = 0;
    while levels < 4 && dot_q60(&qa, &qb) < NLERP_MIN_COS_Q60 {
        let mid = normalize_q30([0, 1, 2, 3].map(|i| qa[i] + qb[i]));
        if t <= 1 << 11 {
            qb = mid;
            t *= 2;
        } else {
            qa = mid;
            t = 2 * t - (1 << 12);
        }
        levels += 1;
    }
    let q = [0, 1, 2, 3].map(|i| lerp(qa[i], qb[i], t));
    let rotation = normalize_q30(q).map(|c| c as i32);
    let lerp32 = |p: i32, q: i32| lerp(p as i64, q as i64, w) as i32;
    BoneSample {
        rotation,
        translation: [0, 1, 2].map(|i| lerp32(a.translation[i], b.translation[i])),
        scale: [0, 1, 2].map(|i| lerp32(a.scale[i], b.scale[i])),
    }
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
    for bone in 0..n {
        let local = sample_matrix(&samples[bone]);
        let parent = match tables.bone(bone).parent {
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
