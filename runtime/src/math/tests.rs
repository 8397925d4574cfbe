//! Unit tests of the math module: integer results against f64 references and against the GTE model.

extern crate std;
use std::vec::Vec;

use super::*;
use crate::gte::{Gte, GteModel};

/// Deterministic xorshift32, so every run checks the same samples.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    fn i16(&mut self) -> i16 {
        self.next() as i16
    }
    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() as f64 / 4294967296.0) * 2.0 - 1.0
    }
    /// A random unit quaternion (f64).
    fn quat_f64(&mut self) -> [f64; 4] {
        loop {
            let q = [self.unit(), self.unit(), self.unit(), self.unit()];
            let n = q.iter().map(|v| v * v).sum::<f64>();
            if n > 0.01 && n <= 1.0 {
                return q.map(|v| v / n.sqrt());
            }
        }
    }
}

fn normalize_f64(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.map(|v| v / n)
}

fn quat_f64(q: Quat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z].map(|v| v as f64)
}

fn rotation_f64(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = normalize_f64(q);
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

fn slerp_f64(a: [f64; 4], b: [f64; 4], t: f64) -> [f64; 4] {
    let a = normalize_f64(a);
    let mut b = normalize_f64(b);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        b = b.map(|v| -v);
        d = -d;
    }
    let omega = d.min(1.0).acos();
    if omega < 1e-9 {
        return a;
    }
    let (sa, sb) = (((1.0 - t) * omega).sin() / omega.sin(), (t * omega).sin() / omega.sin());
    [0, 1, 2, 3].map(|i| sa * a[i] + sb * b[i])
}

/// Largest component difference in FP12 LSBs between an FP12 quaternion and a real one.
fn quat_error_lsb(q: Quat, r: [f64; 4]) -> f64 {
    let q = quat_f64(q);
    (0..4).map(|i| (q[i] - r[i] * 4096.0).abs()).fold(0.0, f64::max)
}

/// Angle (rad) between the rotations of two quaternions.
fn rotation_angle_between(a: [f64; 4], b: [f64; 4]) -> f64 {
    let (a, b) = (normalize_f64(a), normalize_f64(b));
    let d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    2.0 * d.abs().min(1.0).acos()
}

#[test]
fn fp_mul_truncates_toward_minus_infinity_like_the_gte() {
    assert_eq!(fp_mul(4096, 4096), 4096);
    assert_eq!(fp_mul(1, 1), 0);
    assert_eq!(fp_mul(-1, 1), -1);
    assert_eq!(fp_mul(-4096 * 3, 2048), -6144);
    assert_eq!(fp_mul_round(3, 2048), 2); // 1.5 -> 2
    assert_eq!(fp_mul_round(-3, 2048), -1); // -1.5 -> -1 (ties toward +infinity)
    assert_eq!(fp12_from_f64(0.5), 2048);
    assert_eq!(fp12_from_f64(-100.0), i16::MIN);
    assert_eq!(fp12_from_f64(f64::NAN), 0);
}

#[test]
fn isqrt_is_the_exact_floor() {
    let mut rng = Rng(0x1234_5678);
    let mut samples: Vec<u64> = (0..20_000).map(|_| (rng.next() as u64) << (rng.next() % 32) | rng.next() as u64).collect();
    samples.extend([0, 1, 2, 3, 4, 15, 16, 17, u32::MAX as u64, u64::MAX, u64::MAX - 1, (1 << 58) - 1]);
    for n in samples {
        let r = isqrt_u64(n) as u128;
        assert!(r * r <= n as u128 && (r + 1) * (r + 1) > n as u128, "isqrt_u64({n}) = {r}");
        let n32 = n as u32;
        let r32 = isqrt_u32(n32) as u64;
        assert!(r32 * r32 <= n32 as u64 && (r32 + 1) * (r32 + 1) > n32 as u64, "isqrt_u32({n32}) = {r32}");
    }
}

#[test]
fn quaternion_to_matrix_is_within_half_an_lsb_of_f64() {
    let mut rng = Rng(0xC0FF_EE01);
    let mut worst: f64 = 0.0;
    for k in 0..20_000 {
        // Half quantised unit quaternions (what files hold), half arbitrary non-zero i16 quadruples.
        let q = if k % 2 == 0 {
            let r = rng.quat_f64();
            Quat::from_f64(r[0], r[1], r[2], r[3])
        } else {
            Quat::new(rng.i16(), rng.i16(), rng.i16(), rng.i16())
        };
        if q.dot(q) == 0 {
            continue;
        }
        let m = q.to_rotation();
        let r = rotation_f64(quat_f64(q));
        for i in 0..3 {
            for j in 0..3 {
                let err = (m[i][j] as f64 - r[i][j] * 4096.0).abs();
                worst = worst.max(err);
                assert!(err <= 0.51, "{q:?}: m[{i}][{j}] = {} vs {}", m[i][j], r[i][j] * 4096.0);
            }
        }
    }
    assert!(worst > 0.4, "the sample should reach the rounding bound, got {worst}");
    assert_eq!(Quat::new(0, 0, 0, 0).to_rotation(), IDENTITY_ROTATION);
    assert_eq!(Quat::IDENTITY.to_rotation(), IDENTITY_ROTATION);
    // 90 degrees about Z maps X to Y.
    let h = fp12_from_f64(core::f64::consts::FRAC_1_SQRT_2);
    assert_eq!(Quat::new(h, 0, 0, h).to_rotation(), [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]]);
}

#[test]
fn normalisation_is_within_half_an_lsb_of_f64() {
    let mut rng = Rng(0xBADC_0DE5);
    for _ in 0..20_000 {
        let q = Quat::new(rng.i16() >> (rng.next() % 14), rng.i16(), rng.i16() >> (rng.next() % 14), rng.i16());
        if q.dot(q) == 0 {
            continue;
        }
        let err = quat_error_lsb(q.normalized(), normalize_f64(quat_f64(q)));
        assert!(err <= 0.51, "{q:?} normalised to {:?}: {err} LSB", q.normalized());
    }
    assert_eq!(Quat::new(1, 0, 0, 0).normalized(), Quat::IDENTITY);
    assert_eq!(Quat::new(0, 0, 0, 0).normalized(), Quat::IDENTITY);
    assert_eq!(Quat::new(0, i16::MIN, 0, 0).normalized(), Quat::new(0, -4096, 0, 0));
}

#[test]
fn nlerp_takes_the_shortest_path_and_matches_f64() {
    let mut rng = Rng(0x5EED_0001);
    for _ in 0..10_000 {
        let (ra, rb) = (rng.quat_f64(), rng.quat_f64());
        let a = Quat::from_f64(ra[0], ra[1], ra[2], ra[3]);
        let b = Quat::from_f64(rb[0], rb[1], rb[2], rb[3]);
        let t = (rng.next() % 4097) as i32;
        let q = a.nlerp(b, t);
        // Shortest path: the far representative of b gives the same result.
        assert_eq!(q, a.nlerp(b.neg(), t), "{a:?} {b:?} t={t}");
        // f64 nlerp of the same integer inputs.
        let (fa, mut fb) = (quat_f64(a), quat_f64(b));
        if a.dot(b) < 0 {
            fb = fb.map(|v| -v);
        }
        let tf = t as f64 / 4096.0;
        let r = normalize_f64([0, 1, 2, 3].map(|i| fa[i] * (1.0 - tf) + fb[i] * tf));
        let err = quat_error_lsb(q, r);
        assert!(err <= 0.51, "nlerp({a:?}, {b:?}, {t}) = {q:?}: {err} LSB");
    }
    let (a, b) = (Quat::from_f64(0.6, 0.8, 0.0, 0.0), Quat::from_f64(0.0, 0.0, 0.6, -0.8));
    assert_eq!(a.nlerp(b, 0), a.normalized());
    assert_eq!(a.nlerp(b, 4096), b.normalized());
    assert_eq!(a.nlerp(b, -5), a.normalized());
    assert_eq!(a.nlerp(b, 99_999), b.normalized());
}

/// nlerp's documented angle error bound: at most 0.0046 * step^3 rad (plus FP12 rounding).
#[test]
fn nlerp_angle_error_grows_with_the_cube_of_the_step() {
    let a = [1.0, 0.0, 0.0, 0.0];
    for step_deg in [10.0f64, 45.0, 90.0, 180.0] {
        let half = step_deg.to_radians() / 2.0;
        let b = [half.cos(), 0.0, half.sin(), 0.0];
        let (qa, qb) = (Quat::from_f64(a[0], a[1], a[2], a[3]), Quat::from_f64(b[0], b[1], b[2], b[3]));
        let mut worst: f64 = 0.0;
        for t in (0..=4096).step_by(64) {
            let got = quat_f64(qa.nlerp(qb, t));
            let want = slerp_f64(a, b, t as f64 / 4096.0);
            worst = worst.max(rotation_angle_between(got, want));
        }
        let bound = 0.0046 * step_deg.to_radians().powi(3) + 0.002;
        assert!(worst <= bound, "{step_deg} degrees: nlerp is {worst} rad off slerp (bound {bound})");
        if step_deg >= 90.0 {
            assert!(worst > bound / 2.0, "{step_deg} degrees: the bound should be tight, error only {worst}");
        }
    }
}

/// Documented bound: slerp is within 0.6 LSB per component of f64 slerp of the same inputs, whatever the
/// angle (up to the 180-degree maximum of a shortest path).
#[test]
fn slerp_error_bound() {
    let mut rng = Rng(0x0DDB_A11D);
    let mut worst: f64 = 0.0;
    let mut worst_angle: f64 = 0.0;
    for k in 0..20_000 {
        let ra = rng.quat_f64();
        // Every fourth pair is nearly opposite (close to the largest shortest-path arc).
        let rb = if k % 4 == 0 {
            let p = rng.quat_f64();
            normalize_f64([0, 1, 2, 3].map(|i| -ra[i] * 0.0 + p[i] * 0.02 + [ra[1], -ra[0], ra[3], -ra[2]][i]))
        } else {
            rng.quat_f64()
        };
        let a = Quat::from_f64(ra[0], ra[1], ra[2], ra[3]);
        let b = Quat::from_f64(rb[0], rb[1], rb[2], rb[3]);
        let t = (rng.next() % 4097) as i32;
        let q = a.slerp(b, t);
        let want = slerp_f64(quat_f64(a), quat_f64(b), t as f64 / 4096.0);
        let err = quat_error_lsb(q, want);
        worst = worst.max(err);
        worst_angle = worst_angle.max(rotation_angle_between(quat_f64(q), want));
        assert!(err <= 0.6, "slerp({a:?}, {b:?}, {t}) = {q:?}: {err} LSB from f64 {want:?}");
    }
    std::println!("slerp: worst {worst:.3} LSB, worst rotation angle error {worst_angle:.6} rad");
    // Ends are exact (up to normalisation), and the midpoint of a 180-degree turn is exact.
    let (a, b) = (Quat::IDENTITY, Quat::new(0, 0, 4096, 0));
    assert_eq!(a.slerp(b, 0), a);
    assert_eq!(a.slerp(b, 4096), b);
    assert_eq!(a.slerp(b, 2048), Quat::new(2896, 0, 2896, 0));
}

#[test]
fn slerp_is_uniform_in_angle_where_nlerp_is_not() {
    // A 170-degree turn about X: slerp's angle grows linearly with t, nlerp's does not.
    let half = 85f64.to_radians();
    let (a, b) = (Quat::IDENTITY, Quat::from_f64(half.cos(), half.sin(), 0.0, 0.0));
    let angle = |q: Quat| rotation_angle_between([1.0, 0.0, 0.0, 0.0], quat_f64(q));
    let quarter = 170f64.to_radians() / 4.0;
    assert!((angle(a.slerp(b, 1024)) - quarter).abs() < 0.001);
    assert!((angle(a.nlerp(b, 1024)) - quarter).abs() > 0.05);
}

#[test]
fn quaternion_product_matches_matrix_product() {
    let mut rng = Rng(0xFACE_FEED);
    for _ in 0..5_000 {
        let (ra, rb) = (rng.quat_f64(), rng.quat_f64());
        let a = Quat::from_f64(ra[0], ra[1], ra[2], ra[3]);
        let b = Quat::from_f64(rb[0], rb[1], rb[2], rb[3]);
        let via_quat = (a * b).to_rotation();
        let via_matrix = mul_rotation(&a.to_rotation(), &b.to_rotation());
        for i in 0..3 {
            for j in 0..3 {
                let d = (via_quat[i][j] as i32 - via_matrix[i][j] as i32).abs();
                assert!(d <= 4, "{a:?} * {b:?}: [{i}][{j}] {} vs {}", via_quat[i][j], via_matrix[i][j]);
            }
        }
        // The conjugate undoes the rotation.
        let back = (a * a.conjugate()).normalized();
        assert!(quat_error_lsb(back, [1.0, 0.0, 0.0, 0.0]) <= 3.0, "{a:?} * conj = {back:?}");
    }
}

fn random_rotation(rng: &mut Rng, full_range: bool) -> Rotation {
    if full_range {
        [[0; 3]; 3].map(|row| row.map(|_: i16| rng.i16()))
    } else {
        let r = rng.quat_f64();
        Quat::from_f64(r[0], r[1], r[2], r[3]).to_rotation()
    }
}

#[test]
fn matrix_product_is_bit_identical_to_the_gte_model() {
    let mut rng = Rng(0xABCD_1234);
    let mut gte = Gte::with_backend(GteModel::new());
    for k in 0..5_000 {
        // Rotations, and full-range i16 matrices that make the GTE saturate IR.
        let parent = Matrix::new(random_rotation(&mut rng, k % 3 == 0), Vec3i32::new(rng.next() as i32, rng.next() as i32 >> 8, -5));
        let child = Matrix::new(random_rotation(&mut rng, k % 5 == 0), Vec3i32::new(rng.next() as i32, 77, rng.next() as i32 >> 12));
        let host = parent.mul(&child);
        assert_eq!(gte.compose(&parent, &child), host, "{parent:?} * {child:?}");

        // The same rotation product with raw MVMVA (sf=1, RT, IR vector, no translation) per column.
        for j in 0..3 {
            let m = gte.backend_mut();
            for i in 0..3 {
                m.write_data(9 + i as u32, child.rotation[i][j] as i32 as u32);
            }
            m.execute(crate::gte::regs::cmd::mvmva(1, 0, 3, 3, 0));
            for i in 0..3 {
                assert_eq!(m.read_data(9 + i as u32) as i16, host.rotation[i][j]);
            }
        }

        // Vector transforms agree with MVMVA's MAC1..3 (translations small enough for the 44-bit sum).
        let v = Vec3i16::new(rng.i16(), rng.i16(), rng.i16());
        let small = Matrix::new(parent.rotation, Vec3i32::new(rng.next() as i32 >> 4, -(rng.next() as i32 >> 4), 3));
        gte.set_matrix(&small);
        assert_eq!(gte.transform(v), small.transform(v));
        assert_eq!(gte.rotate(v), small.rotate(v));
    }
}

#[test]
fn matrix_product_saturates_and_wraps_without_panicking() {
    let big = Matrix::new([[i16::MIN; 3]; 3], Vec3i32::new(i32::MAX, i32::MIN, 0));
    let p = big.mul(&big);
    assert_eq!(p.rotation, [[i16::MAX; 3]; 3]); // 3 * 2^30 >> 12 saturates
    // Translation: (-32768 * 3 * t) >> 12 wraps, plus t, with no overflow panic.
    let _ = p.translation;
    assert_eq!(Matrix::IDENTITY.mul(&big), big);
    let id_t = Matrix::new(IDENTITY_ROTATION, Vec3i32::new(5, -7, 9));
    assert_eq!(id_t.mul(&id_t).translation, Vec3i32::new(10, -14, 18));
    // Truncation toward minus infinity: (4095 * -1) >> 12 = -1.
    let r = Matrix::new([[4095, 0, 0], [0, 4096, 0], [0, 0, 4096]], Vec3i32::ZERO);
    assert_eq!(r.rotate(Vec3i16::new(-1, 0, 0)), Vec3i32::new(-1, 0, 0));
    assert_eq!(r.rotate(Vec3i16::new(1, 0, 0)), Vec3i32::new(0, 0, 0));
}

#[test]
fn extreme_and_degenerate_quaternions_are_handled() {
    let edges = [0i16, 1, -1, 4096, -4096, i16::MAX, i16::MIN];
    let mut quats = Vec::new();
    for &w in &edges {
        for &x in &edges {
            for &y in &edges {
                for &z in &edges {
                    quats.push(Quat::new(w, x, y, z));
                }
            }
        }
    }
    for &a in quats.iter().step_by(7) {
        let m = a.to_rotation();
        assert!(m.iter().flatten().all(|e| (-4096..=4096).contains(e)), "{a:?} -> {m:?}");
        let n = a.normalized();
        let len2 = n.dot(n);
        assert!((len2 - (1 << 24)).abs() <= 3 * 4096, "{a:?} normalised to {n:?}");
        for &b in quats.iter().step_by(53) {
            for t in [-1, 0, 1, 2048, 4095, 4096, i32::MAX, i32::MIN] {
                for q in [a.nlerp(b, t), a.slerp(b, t)] {
                    let len2 = q.dot(q);
                    assert!((len2 - (1 << 24)).abs() <= 3 * 4096, "{a:?} {b:?} t={t}: {q:?} not unit");
                }
            }
        }
    }
}
