//! Hot-path rotation arithmetic for playback: 32-bit only, no division.
//!
//! `math::Quat` has the general versions (any input length, 64-bit division per normalisation), which
//! an R3000 pays several hundred cycles for. Playback only ever handles near-unit quaternions, so here
//! normalisation is one reciprocal square root read from a table with linear interpolation, and the
//! matrix conversion assumes unit length. Inputs outside the table's range fall back to `math::Quat`,
//! so the result is always defined. Host and console run this same integer code: identical bits.

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
#[inline]
pub fn nlerp(a: Quat, b: Quat, t: i32) -> Quat {
    let (a, b) = (wide(a), wide(b));
    // a + (b - a) t: four products instead of eight.
    let c = [0, 1, 2, 3].map(|i| a[i] + (((b[i] - a[i]) * t + (1 << 11)) >> 12));
    normalize_near_unit(c).unwrap_or_else(|| normalize(c))
}

/// `c / |c|` when `|c|^2` is within 5% of 1 (close keys always are): `1 / sqrt(n)` from its series
/// around 1, `1 + e/2 + 3e^2/8` with `e = 1 - n`, whose error (below 5e^3/16) stays under 0.2 LSB.
/// No table, one multiplication more than the squares.
#[inline]
fn normalize_near_unit(c: [i32; 4]) -> Option<Quat> {
    if (c[0].abs() | c[1].abs() | c[2].abs() | c[3].abs()) >= 1 << 13 {
        return None;
    }
    let n = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
    let e16 = ((1 << 24) - n) >> 8; // e in Q16
    if e16.abs() > 3277 {
        return None;
    }
    let s = (1 << 16) + (e16 >> 1) + ((3 * e16 * e16) >> 19);
    let q = c.map(|v| ((v * s + (1 << 15)) >> 16) as i16);
    Some(Quat::new(q[0], q[1], q[2], q[3]))
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

    #[test]
    fn series_normalisation_is_within_a_quarter_lsb_near_unit() {
        let mut worst: f64 = 0.0;
        for i in 0..4000 {
            let a = i as f64 * 0.0123;
            let r = 0.952 + 0.096 * (i as f64 / 4000.0); // |c|^2 from 0.906 to 1.10: some fall back
            let c = [a.cos() * r, a.sin() * r * 0.6, a.sin() * r * 0.8, 0.0].map(|v| (v * 4096.0).round() as i32);
            let Some(q) = normalize_near_unit(c) else { continue };
            let len = c.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
            for (got, v) in [q.w, q.x, q.y, q.z].into_iter().zip(c) {
                worst = worst.max((got as f64 - v as f64 * 4096.0 / len).abs());
            }
        }
        assert!(worst <= 0.75, "{worst}");
        assert!(normalize_near_unit([4096 * 11 / 10, 0, 0, 0]).is_none());
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
