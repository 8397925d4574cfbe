//! Double-precision affine transforms for the import (host only).
//!
//! The console math (FP12, GTE model) lives in `psxanim_runtime::math`; this is the f64 side the importer
//! needs before anything is quantised: composing ufbx matrices, inverting bind poses and splitting a
//! transform into translation, rotation and scale while detecting shear and singular matrices.

/// `m[row][col]` 3x3 part plus translation; acts on column vectors: `p' = m p + t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine {
    pub m: [[f64; 3]; 3],
    pub t: [f64; 3],
}

/// A transform split into translation, rotation (unit quaternion x, y, z, w) and per-axis scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    pub translation: [f64; 3],
    pub rotation: [f64; 4],
    pub scale: [f64; 3],
}

/// Why a transform cannot be split into translation, rotation and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Degenerate {
    /// Determinant (relative to the column lengths) below the tolerance.
    Singular { det: f64 },
    /// Largest cosine between two columns above the tolerance.
    Shear { cosine: f64 },
}

/// Relative determinant below which a matrix is treated as singular.
pub const SINGULAR_TOLERANCE: f64 = 1e-9;
/// Cosine between two axes above which a matrix is treated as sheared (about 0.06 degrees).
pub const SHEAR_TOLERANCE: f64 = 1e-3;

impl Affine {
    pub const IDENTITY: Affine = Affine { m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], t: [0.0; 3] };

    pub fn from_ufbx(m: &ufbx::Matrix) -> Self {
        Affine { m: [[m.m00, m.m01, m.m02], [m.m10, m.m11, m.m12], [m.m20, m.m21, m.m22]], t: [m.m03, m.m13, m.m23] }
    }

    pub fn linear(m: [[f64; 3]; 3]) -> Self {
        Affine { m, t: [0.0; 3] }
    }

    pub fn mul(&self, o: &Affine) -> Affine {
        let mut m = [[0.0; 3]; 3];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| self.m[r][k] * o.m[k][c]).sum();
            }
        }
        Affine { m, t: self.apply(o.t) }
    }

    /// Largest difference between two entries (matrix or translation) of `self` and `o`.
    pub fn max_difference(&self, o: &Affine) -> f64 {
        let m = (0..3).flat_map(|r| (0..3).map(move |c| (r, c))).map(|(r, c)| (self.m[r][c] - o.m[r][c]).abs());
        m.chain((0..3).map(|k| (self.t[k] - o.t[k]).abs())).fold(0.0, f64::max)
    }

    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let mut out = self.t;
        for (r, o) in out.iter_mut().enumerate() {
            *o += (0..3).map(|k| self.m[r][k] * p[k]).sum::<f64>();
        }
        out
    }

    pub fn determinant(&self) -> f64 {
        let m = &self.m;
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    fn column(&self, c: usize) -> [f64; 3] {
        [self.m[0][c], self.m[1][c], self.m[2][c]]
    }

    /// Determinant divided by the product of the column lengths (1 for a rotation, 0 when flat).
    fn relative_determinant(&self) -> f64 {
        let lengths: f64 = (0..3).map(|c| norm(self.column(c))).product();
        if lengths == 0.0 {
            0.0
        } else {
            self.determinant() / lengths
        }
    }

    /// Checks the 3x3 part is invertible and free of shear.
    pub fn check(&self) -> Result<(), Degenerate> {
        let det = self.relative_determinant();
        if !det.is_finite() || det.abs() < SINGULAR_TOLERANCE {
            return Err(Degenerate::Singular { det: self.determinant() });
        }
        let mut worst: f64 = 0.0;
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let (ca, cb) = (self.column(a), self.column(b));
            worst = worst.max((dot(ca, cb) / (norm(ca) * norm(cb))).abs());
        }
        if worst > SHEAR_TOLERANCE {
            return Err(Degenerate::Shear { cosine: worst });
        }
        Ok(())
    }

    /// The inverse; the caller has checked the matrix is not singular.
    pub fn inverse(&self) -> Affine {
        let m = &self.m;
        let det = self.determinant();
        let inv = [
            [
                (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det,
                (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det,
                (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det,
            ],
            [
                (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det,
                (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det,
                (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det,
            ],
            [
                (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det,
                (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det,
                (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det,
            ],
        ];
        let lin = Affine::linear(inv);
        let t = lin.apply(self.t);
        Affine { m: inv, t: [-t[0], -t[1], -t[2]] }
    }

    /// Splits into translation, rotation and scale (a mirror becomes a negative x scale).
    pub fn decompose(&self) -> Result<Trs, Degenerate> {
        self.check()?;
        let mut scale = [norm(self.column(0)), norm(self.column(1)), norm(self.column(2))];
        if self.determinant() < 0.0 {
            scale[0] = -scale[0];
        }
        let mut r = [[0.0; 3]; 3];
        for (c, s) in scale.iter().enumerate() {
            for (row, rr) in r.iter_mut().enumerate() {
                rr[c] = self.m[row][c] / s;
            }
        }
        Ok(Trs { translation: self.t, rotation: quat_from_rotation(&r), scale })
    }

    /// Rebuilds `T * R * S`.
    pub fn from_trs(trs: &Trs) -> Affine {
        let r = rotation_from_quat(trs.rotation);
        let mut m = [[0.0; 3]; 3];
        for (row, mr) in m.iter_mut().enumerate() {
            for (c, v) in mr.iter_mut().enumerate() {
                *v = r[row][c] * trs.scale[c];
            }
        }
        Affine { m, t: trs.translation }
    }

    /// The same transform with the 3x3 part's columns divided by `scale` (removes a bind scale).
    pub fn unscaled(&self, scale: [f64; 3]) -> Affine {
        let mut out = *self;
        for row in out.m.iter_mut() {
            for (c, v) in row.iter_mut().enumerate() {
                *v /= scale[c];
            }
        }
        out
    }
}

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method: stable for every angle).
pub fn quat_from_rotation(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [(r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s, 0.25 * s]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt() * 2.0;
        [0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s, (r[2][1] - r[1][2]) / s]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt() * 2.0;
        [(r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s, (r[0][2] - r[2][0]) / s]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt() * 2.0;
        [(r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s, (r[1][0] - r[0][1]) / s]
    };
    let n = (q.iter().map(|c| c * c).sum::<f64>()).sqrt();
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
}

/// Rotation matrix of a quaternion (x, y, z, w), normalised first.
pub fn rotation_from_quat(q: [f64; 4]) -> [[f64; 3]; 3] {
    let n2 = q.iter().map(|c| c * c).sum::<f64>();
    let s = if n2 > 0.0 { 2.0 / n2 } else { 0.0 };
    let [x, y, z, w] = q;
    [
        [1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
        [s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)],
        [s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Affine, b: &Affine) -> bool {
        (0..3).all(|r| (0..3).all(|c| (a.m[r][c] - b.m[r][c]).abs() < 1e-9) && (a.t[r] - b.t[r]).abs() < 1e-9)
    }

    #[test]
    fn decompose_round_trips_rotations_past_180_degrees_and_mirrors() {
        for (angle, scale) in [(0.3, [1.0, 2.0, 0.5]), (3.5, [1.0, 1.0, 1.0]), (-2.9, [-1.5, 1.0, 1.0])] {
            let s = (angle / 2.0f64).sin();
            let q = [0.6 * s, 0.0, 0.8 * s, (angle / 2.0f64).cos()];
            let a = Affine::from_trs(&Trs { translation: [1.0, -2.0, 3.0], rotation: q, scale });
            let back = Affine::from_trs(&a.decompose().unwrap());
            assert!(close(&a, &back), "{angle}");
        }
    }

    #[test]
    fn shear_and_singular_matrices_are_rejected() {
        let shear = Affine::linear([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        assert!(matches!(shear.check(), Err(Degenerate::Shear { .. })));
        let flat = Affine::linear([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
        assert!(matches!(flat.check(), Err(Degenerate::Singular { .. })));
        let inv = Affine { m: [[0.0, -2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 3.0]], t: [4.0, 5.0, 6.0] };
        assert!(close(&inv.mul(&inv.inverse()), &Affine::IDENTITY));
    }
}
