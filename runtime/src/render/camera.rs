//! The view: a world-to-camera matrix and the GTE's screen set-up (offset, projection distance,
//! ordering-table scale), plus an integer orbit so a program and the host build the same camera.

use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Vec3i32, IDENTITY_ROTATION, ONE};

/// Angles are `u16` turns: 65,536 = 360 degrees.
pub type Angle = u16;

/// A camera: everything the GTE needs besides the per-object matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Camera {
    /// World to camera space (camera space: +X right, +Y down, +Z forward).
    pub view: Matrix,
    /// Screen position of the optical axis, in pixels.
    pub center: (i16, i16),
    /// Projection distance H: a point at depth `z` and offset `x` lands `x * H / z` pixels from the centre.
    pub projection: u16,
    /// Screen size in pixels (what culling tests against).
    pub screen: (i16, i16),
    /// AVSZ3 scale: ordering-table depth = `zsf3 * (sz0 + sz1 + sz2) >> 12`.
    pub zsf3: i16,
    /// Depth (SZ) below which a triangle is not drawn (too near: its projection explodes).
    pub near: u16,
}

impl Camera {
    /// Loads the screen registers (offset, H, ZSF3/ZSF4); the matrices are loaded per object.
    pub fn load<B: Cop2>(&self, gte: &mut Gte<B>) {
        gte.set_screen(self.center.0, self.center.1, self.projection);
        gte.set_ot_scale(self.zsf3, self.zsf3.saturating_mul(3) / 4);
    }

    /// A camera `distance` units from `target`, turned `yaw` around the vertical axis and tilted `pitch`
    /// (positive looks down on the target).
    pub fn orbit(target: Vec3i32, distance: i32, yaw: Angle, pitch: Angle) -> Matrix {
        let to_target = Matrix::new(IDENTITY_ROTATION, Vec3i32::new(-target.x, -target.y, -target.z));
        let (sy, cy) = (sin(yaw), cos(yaw));
        let (sp, cp) = (sin(pitch), cos(pitch));
        let turn = Matrix::new([[cy, 0, sy], [0, ONE as i16, 0], [-sy, 0, cy]], Vec3i32::ZERO);
        let tilt = Matrix::new([[ONE as i16, 0, 0], [0, cp, sp], [0, -sp, cp]], Vec3i32::ZERO);
        let back = Matrix::new(IDENTITY_ROTATION, Vec3i32::new(0, 0, distance));
        back.mul(&tilt.mul(&turn.mul(&to_target)))
    }
}

/// A world transform: turned `yaw` around the vertical axis, then placed at `position`.
pub fn placement(position: Vec3i32, yaw: Angle) -> Matrix {
    let (s, c) = (sin(yaw), cos(yaw));
    Matrix::new([[c, 0, s], [0, ONE as i16, 0], [-s, 0, c]], position)
}

/// FP12 sine of a `u16` angle (65,536 = one turn), within 1.5/4096 of the true value (fit error plus rounding).
///
/// A fifth-order odd polynomial on the quarter wave; integer only, so the console and the host agree
/// bit for bit.
pub fn sin(angle: Angle) -> i16 {
    let quadrant = angle >> 14;
    let within = (angle & 0x3FFF) as i64; // 0..16384 within the quadrant
    let x = if quadrant & 1 == 0 { within } else { 16384 - within }; // Q14, 1.0 = 90 degrees
    // s(x) = x (a - x^2 (b - c x^2)), a minimax fit of sin(x * pi/2) on [0, 1] (error < 1e-4), in Q28.
    const A: i64 = 421_554_476; // 1.5704128
    const B: i64 = 172_485_484; // 0.6425585
    const C: i64 = 19_361_605; // 0.0721276
    let x2 = (x * x) >> 14;
    let poly = A - ((x2 * (B - ((x2 * C) >> 14))) >> 14); // Q28
    let s = (x * poly + (1 << 29)) >> 30; // Q14 * Q28 -> Q12
    let s = s.min(ONE as i64) as i16;
    if quadrant >= 2 {
        -s
    } else {
        s
    }
}

/// FP12 cosine of a `u16` angle.
pub fn cos(angle: Angle) -> i16 {
    sin(angle.wrapping_add(0x4000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sine_is_within_two_units_of_the_real_one_everywhere() {
        for a in (0..=u16::MAX).step_by(7) {
            let exact = (a as f64 / 65536.0 * core::f64::consts::TAU).sin() * 4096.0;
            let got = sin(a) as f64;
            assert!((got - exact).abs() <= 1.5, "angle {a}: {got} vs {exact}");
        }
        assert_eq!((sin(0), sin(0x4000), sin(0x8000), sin(0xC000)), (0, 4096, 0, -4096));
        assert_eq!(cos(0), 4096);
    }

    #[test]
    fn orbit_puts_the_target_straight_ahead_at_the_distance() {
        let target = Vec3i32::new(300, -3000, 100);
        for yaw in [0u16, 9000, 40000] {
            let view = Camera::orbit(target, 20000, yaw, 2000);
            let t = view.transform(crate::math::Vec3i16::new(300, -3000, 100));
            // Within the truncations of the composed FP12 rotations.
            assert!(t.x.abs() <= 2 && t.y.abs() <= 2, "yaw {yaw}: {t:?}");
            assert!((t.z - 20000).abs() <= 4, "yaw {yaw}: {t:?}");
        }
    }
}
