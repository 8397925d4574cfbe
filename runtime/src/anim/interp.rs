//! Hot-path rotation arithmetic for playback: 32-bit only, no division.
//!
//! `math::Quat` has the general versions (any input length, 64-bit division per normalisation), which
//! an R3000 pays several hundred cycles for. Playback only ever handles near-unit quaternions, so here
//! normalisation is one reciprocal square root read from a table with linear interpolation, and the
//! matrix conversion assumes unit length. Inputs outside the table's range fall back to `math::Quat`,
//! so the result is always defined. Host and console run this same integer code: identical bits.

use crate::gte::{round_q14, Cop2, Gte};
use super::words::{column_words, components, words_of, ColumnWords, QuatWords};
use crate::math::{isqrt_u64, Quat, Rotation, ONE};

/// `cos(15 degrees)` in FP24: quaternion arcs above it (rotations above 30 degrees) are subdivided.
/// Over a 15-degree arc nlerp is within 1.2 FP12 LSB of slerp; after halving, within 0.5.
pub const NLERP_MIN_COS: i32 = 16_205_688;

/// Squared lengths (FP24) the table covers: 0.25 ..< 4.0.
const TABLE_MIN: u32 = 1 << 22;
const TABLE_END: u32 = 1 << 26;
const TABLE_SHIFT: u32 = 16;
const TABLE_LEN: usize = (TABLE_END >> TABLE_SHIFT) as usize + 1;

/// `RSQRT[i] = 2^28 / sqrt(i * 2^16)`, i.e. `2^16 / sqrt(n)` for `n = i * 2^16` read as FP24.
static RSQRT: [u32; TABLE_LEN] = rsqrt_table();

const fn rsqrt_table() -> [u32; TABLE_LEN] {
    let mut t = [0u32; TABLE_LEN];
    let mut i = 1;
    while i < TABLE_LEN {
        // 2^28 / sqrt(i * 2^16) = 2^20 / sqrt(i) = sqrt(2^40 / i); one more bit for rounding.
        let twice = isqrt_u64((1u64 << 42) / i as u64);
        t[i] = twice.div_ceil(2) as u32;
        i += 1;
    }
    t
}

/// `c / |c|` in FP12 for a 4-vector whose squared length (FP24) is in 0.25 ..< 4.0; anything else
/// takes the general path. Each component is within about 0.6 LSB of the exact value.
#[inline]
pub fn normalize(c: [i32; 4]) -> Quat {
    // |c_i| < 2^14 keeps every square below 2^28 and the sum below 2^30.
    if c.iter().all(|v| v.unsigned_abs() < 1 << 14) {
        let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]) as u32;
        if (TABLE_MIN..TABLE_END).contains(&n) {
            let i = (n >> TABLE_SHIFT) as usize;
            let f = n & ((1 << TABLE_SHIFT) - 1);
            let (hi, lo) = (RSQRT[i], RSQRT[i + 1]);
            let rs = (hi - (((hi - lo) * f) >> TABLE_SHIFT)) as i32;
            // |c_i| <= sqrt(n) and rs ~ 2^28 / sqrt(n): the product stays below 2^28.
            let q = c.map(|v| ((v * rs + (1 << 15)) >> 16) as i16);
            return Quat::new(q[0], q[1], q[2], q[3]);
        }
    }
    Quat::new(sat(c[0]), sat(c[1]), sat(c[2]), sat(c[3])).normalized()
}

fn sat(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

fn wide(q: Quat) -> [i32; 4] {
    [q.w as i32, q.x as i32, q.y as i32, q.z as i32]
}

/// FP24 dot product of two quaternions with components within +/-2^14 (no overflow).
#[inline]
pub fn dot(a: Quat, b: Quat) -> i32 {
    let (a, b) = (wide(a), wide(b));
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `q` scaled to unit length: cheap when `q` is near unit (file keys are), general otherwise.
pub fn unit(q: Quat) -> Quat {
    normalize(wide(q))
}

/// Normalised lerp between near-unit quaternions already in the same hemisphere; `t` FP12 in
/// 0..=4096.
///
/// The same integer steps as [`nlerp_matrix`] on the GTE, so both give the same bits:
/// `c = a + floor((b - a) t / 4096)`, `n = |c|^2` (FP24), and when `n` is within 1/64 of 1 the
/// first-order series `s = 1 + (1 - n) / 2` (Q14, below 0.4 LSB from `1 / sqrt(n)` there),
/// `q14 = floor(c s / 4096)` (Q14), rounded to FP12. Anything else takes the general normalisation.
#[inline]
pub fn nlerp(a: Quat, b: Quat, t: i32) -> Quat {
    let (a, b) = (wide(a), wide(b));
    let c = [0, 1, 2, 3].map(|i| a[i] + (((b[i] - a[i]) * t) >> 12));
    match series_scale(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]) {
        Some(s) if small(c) => {
            let q = c.map(|v| round_q14((v * s) >> 12) as i16);
            Quat::new(q[0], q[1], q[2], q[3])
        }
        _ => normalize(c),
    }
}

/// All components within +/-2^13: squares and their sum fit `i32`, products with a Q14 scale too.
#[inline(always)]
fn small(c: [i32; 4]) -> bool {
    (c[0].abs() | c[1].abs() | c[2].abs() | c[3].abs()) < 1 << 13
}

/// `1 + (1 - n) / 2` in Q14 for a squared length `n` (FP24) within 1/64 of 1.
#[inline(always)]
fn series_scale(n: i32) -> Option<i32> {
    let e = (1 << 24) - n;
    if e.abs() > 1 << 18 {
        return None;
    }
    Some((1 << 14) + (e >> 11))
}


/// [`nlerp`] and [`to_rotation`] of its result, the products on the GTE (GPL for the lerp, SQR for
/// the length, GPF for the scale and the matrix's products): bit for bit the CPU functions' results.
/// `a`, `b` unit and in the same hemisphere, `t` FP12 in 0..=4096. Uses IR0..3, MAC1..3 (and the
/// colour FIFO); RT and the vectors stay.
pub fn nlerp_matrix<B: Cop2>(gte: &mut Gte<B>, a: Quat, b: Quat, t: i32) -> (Quat, Rotation) {
    let (mut q, mut words) = (Quat::IDENTITY, [0; 5]);
    let (qa, qb) = (words_of(wide(a)), words_of(wide(b)));
    if !small(wide(a)) || !small(wide(b)) {
        nlerp_cpu(qa, qb, t, &mut q, &mut words);
    } else {
        nlerp_columns(gte, qa, qb, t, &mut q, &mut words);
    }
    let lo = |w: u32| w as u16 as i16;
    let hi = |w: u32| (w >> 16) as u16 as i16;
    let r = [[lo(words[0]), lo(words[1]), lo(words[2])], [hi(words[0]), hi(words[1]), hi(words[2])], [lo(words[3]), hi(words[3]), lo(words[4])]];
    (q, r)
}

/// [`nlerp_matrix`] of keys whose components are within +/-2^13 (as the channels keep them),
/// writing the quaternion and the matrix's [`ColumnWords`] in place.
#[inline(always)]
pub(crate) fn nlerp_columns<B: Cop2>(gte: &mut Gte<B>, qa: QuatWords, qb: QuatWords, t: i32, rotation: &mut Quat, matrix: &mut ColumnWords) {
    // The register operations of `Cop2::nlerp_rotation` (hand-scheduled on the console), which
    // are the steps of `nlerp` and `to_rotation`; the rare rest on the CPU.
    match gte.backend_mut().nlerp_rotation(qa, qb, t, matrix) {
        Some(q) => {
            let c = components(q);
            *rotation = Quat::new(c[0] as i16, c[1] as i16, c[2] as i16, c[3] as i16);
        }
        None => nlerp_cpu(qa, qb, t, rotation, matrix),
    }
}

/// The general case of [`nlerp_columns`] (keys far from unit length) on the CPU.
#[cold]
#[inline(never)]
fn nlerp_cpu(a: QuatWords, b: QuatWords, t: i32, rotation: &mut Quat, matrix: &mut ColumnWords) {
    let q = |w: QuatWords| {
        let c = components(w);
        Quat::new(c[0] as i16, c[1] as i16, c[2] as i16, c[3] as i16)
    };
    let r = nlerp(q(a), q(b), t);
    *rotation = r;
    *matrix = column_words(&to_rotation(r));
}

/// Unit-quaternion interpolation accurate for any arc: halves the arc (the normalised sum is the
/// exact great-circle midpoint) until it is at most 15 degrees, then nlerps. `a` and `b` must be unit
/// and in the same hemisphere (dot >= 0); `t` FP12 in 0..=4096.
pub fn slerp(mut a: Quat, mut b: Quat, mut t: i32) -> Quat {
    // A hemisphere arc is at most 90 degrees: three halvings reach 11.25; the cap only bounds the loop.
    let mut levels = 0;
    while levels < 5 && dot(a, b) < NLERP_MIN_COS {
        let (wa, wb) = (wide(a), wide(b));
        let mid = normalize([0, 1, 2, 3].map(|i| wa[i] + wb[i]));
        if t <= ONE / 2 {
            b = mid;
            t *= 2;
        } else {
            a = mid;
            t = 2 * t - ONE;
        }
        levels += 1;
    }
    nlerp(a, b, t)
}

/// Rotation matrix of a unit FP12 quaternion (Hamilton convention, the same matrix as
/// `Quat::to_rotation` for unit input), each element rounded to nearest; ten multiplications.
#[inline]
pub fn to_rotation(q: Quat) -> Rotation {
    let (w, x, y, z) = (q.w as i32, q.x as i32, q.y as i32, q.z as i32);
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    // 2p in FP12 from an FP24 product p, rounded: (p + 2^10) >> 11.
    let two = |p: i32| (p + (1 << 10)) >> 11;
    let e = |v: i32| v as i16; // within -4097..=4097 for unit input
    [
        [e(ONE - two(yy + zz)), e(two(xy - wz)), e(two(xz + wy))],
        [e(two(xy + wz)), e(ONE - two(xx + zz)), e(two(yz - wx))],
        [e(two(xz - wy)), e(two(yz + wx)), e(ONE - two(xx + yy))],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_normalisation_matches_the_general_one_within_one_lsb() {
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            ((seed >> 16) as i32 & 0x3FFF) - 0x2000
        };
        for _ in 0..20000 {
            let c = [next(), next(), next(), next()];
            let n: i64 = c.iter().map(|&v| v as i64 * v as i64).sum();
            if !(1 << 22..1 << 26).contains(&n) {
                continue;
            }
            let fast = normalize(c);
            let len = (n as f64).sqrt();
            for (got, v) in [fast.w, fast.x, fast.y, fast.z].into_iter().zip(c) {
                let exact = v as f64 * 4096.0 / len;
                assert!((got as f64 - exact).abs() <= 0.75, "{c:?}: {got} vs {exact}");
            }
        }
    }

    /// The series normalisation of nlerp against the exact one, over lengths on both sides of 1.
    #[test]
    fn nlerp_normalisation_is_within_an_lsb_of_exact() {
        let mut worst: f64 = 0.0;
        let mut series = 0;
        for i in 0..4000 {
            let a = i as f64 * 0.0123;
            let r = 0.985 + 0.03 * (i as f64 / 4000.0); // |c|^2 from 0.97 to 1.03: some fall back
            let c = [a.cos() * r, a.sin() * r * 0.6, a.sin() * r * 0.8, 0.0].map(|v| (v * 4096.0).round() as i16);
            let q = Quat::new(c[0], c[1], c[2], c[3]);
            // t = 0: nlerp normalises `a` itself.
            let got = nlerp(q, q, 0);
            let n: i32 = c.iter().map(|&v| v as i32 * v as i32).sum();
            series += series_scale(n).is_some() as u32;
            let len = c.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
            for (g, v) in [got.w, got.x, got.y, got.z].into_iter().zip(c) {
                worst = worst.max((g as f64 - v as f64 * 4096.0 / len).abs());
            }
        }
        assert!(worst <= 1.0, "{worst}");
        assert!((1000..4000).contains(&series), "{series}");
    }

    /// The GTE version (on the model) gives the CPU functions' bits, across arcs, weights and lengths.
    #[test]
    fn nlerp_matrix_on_the_gte_matches_the_cpu() {
        let mut gte = Gte::new();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as i32
        };
        for i in 0..5000 {
            let a = unit(Quat::new(next() as i16, next() as i16, next() as i16, next() as i16));
            let d = |n: i32| (n % 700) as i16;
            let mut b = Quat::new(a.w.saturating_add(d(next())), a.x.saturating_add(d(next())), a.y + d(next()) / 2, a.z - d(next()) / 2);
            if i % 3 != 0 {
                b = unit(b);
            }
            if dot(a, b) < 0 {
                b = Quat::new(-b.w, -b.x, -b.y, -b.z);
            }
            let t = next().rem_euclid(4097);
            let (q, r) = nlerp_matrix(&mut gte, a, b, t);
            assert_eq!(q, nlerp(a, b, t), "{a:?} {b:?} {t}");
            assert_eq!(r, to_rotation(q), "{a:?} {b:?} {t}");
        }
    }

    #[test]
    fn out_of_range_input_takes_the_general_path() {
        assert_eq!(normalize([0; 4]), Quat::IDENTITY);
        assert_eq!(normalize([100_000, 0, 0, 0]), Quat::new(4096, 0, 0, 0));
        assert_eq!(normalize([0, 0, -3, 0]), Quat::new(0, 0, -4096, 0));
    }

    #[test]
    fn unit_matrix_matches_the_general_conversion() {
        for q in [
            Quat::IDENTITY,
            Quat::new(2896, 2896, 0, 0),
            Quat::new(0, 0, 4096, 0),
            unit(Quat::new(1000, -2000, 3000, 500)),
            unit(Quat::new(-4000, 300, -200, 100)),
        ] {
            let fast = to_rotation(q);
            let general = q.to_rotation();
            for i in 0..3 {
                for j in 0..3 {
                    assert!((fast[i][j] as i32 - general[i][j] as i32).abs() <= 2, "{q:?}: {fast:?} vs {general:?}");
                }
            }
        }
    }
}
