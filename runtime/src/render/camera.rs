//! The view: a world-to-camera matrix and the GTE's screen set-up (offset, projection distance,
//! ordering-table scale), plus an integer orbit so a program and the host build the same camera.
//!
//! [`Camera::frame`] builds the whole camera from a box (a character's `Tables::bounds`, which cover
//! the bind pose and every sample of every clip): an orbit around the box's centre, as far as the box
//! needs to fit the screen with a margin, whatever the character's size. The rule, in integers only:
//! - projection `H` = the screen's width (a 53 degree horizontal field of view, the examples' 320 for
//!   320 pixels);
//! - the box's eight corners, turned by the orbit's rotation, each need a distance at which they land
//!   inside the screen less [`FRAME_MARGIN`] (an eighth of each half-screen): `|x| * H / depth` within
//!   the half-width, `|y| * H / depth` within the half-height; the camera takes the largest;
//! - no corner nearer than `H` (the GTE's division saturates for depths under `H / 2`: a box of a few
//!   units cannot be magnified, it is shown smaller), and none beyond [`FRAME_MAX_DEPTH`] (`SZ` is 16
//!   bits): a box that would need more gets a smaller `H` (a narrower view from nearer). A box whose
//!   diagonal is under 64,000 units (15 m) is framed whole;
//! - `near` = half the nearest corner's depth (nothing of the character is clipped, and no triangle
//!   nearer than the GTE can project is drawn);
//! - `zsf3` maps twice the farthest corner's depth to the ordering table's deepest entry but one (the
//!   last entry stays for a background, as `OtSink::deepest` leaves it): the character's own depths
//!   spread over the table's first half, the half beyond is for what stands behind it.

use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Vec3i16, Vec3i32, IDENTITY_ROTATION, ONE};

/// Angles are `u16` turns: 65,536 = 360 degrees.
pub type Angle = u16;

/// What [`Camera::frame`] leaves free on each side: this share of each half-screen (an eighth).
pub const FRAME_MARGIN: (i32, i32) = (1, 8);
/// The deepest corner depth [`Camera::frame`] uses (SZ saturates at 65,535).
pub const FRAME_MAX_DEPTH: i32 = 64_000;

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

    /// The orbit camera (turned `yaw`, tilted `pitch`, as [`Camera::orbit`]) that frames the box
    /// `bounds` (`[min, max]` in world space: for a character placed at the origin unturned, its
    /// `Tables::bounds()`) on a screen of `screen` pixels drawn into an ordering table of `depths`
    /// entries; the rule is in the module doc. Integers only; any input gives a camera (a degenerate
    /// box or screen a usable one).
    pub fn frame(bounds: [[i16; 3]; 2], yaw: Angle, pitch: Angle, screen: (i16, i16), depths: usize) -> Camera {
        let [lo, hi] = bounds;
        let centre = |a: usize| (lo[a] as i32 + hi[a] as i32).div_euclid(2);
        let target = Vec3i32::new(centre(0), centre(1), centre(2));
        // The corners around the target, in the camera's axes (the camera at depth 0 for now: the
        // orbit at distance d only adds d to every depth).
        let turn = Camera::orbit(target, 0, yaw, pitch);
        let corners: [Vec3i32; 8] = core::array::from_fn(|c| {
            let pick = |a: usize| if (c >> a) & 1 == 0 { lo[a] } else { hi[a] };
            turn.transform(Vec3i16::new(pick(0), pick(1), pick(2)))
        });
        let (w, h) = (screen.0.max(2) as i64, screen.1.max(2) as i64);
        let (keep, of) = (FRAME_MARGIN.1 - FRAME_MARGIN.0, FRAME_MARGIN.1);
        let fit = ((w / 2 * keep as i64 / of as i64).max(1), (h / 2 * keep as i64 / of as i64).max(1));
        let z_min = corners.iter().map(|c| c.z as i64).min().unwrap_or(0);
        let z_max = corners.iter().map(|c| c.z as i64).max().unwrap_or(0);
        let max_depth = FRAME_MAX_DEPTH as i64;

        // The largest H under which every corner fits before the deepest one reaches max_depth.
        let mut projection = w;
        for c in &corners {
            let room = (max_depth - z_max + c.z as i64).max(1);
            for (offset, fit) in [(c.x as i64, fit.0), (c.y as i64, fit.1)] {
                if offset != 0 {
                    projection = projection.min(room * fit / offset.abs());
                }
            }
        }
        let projection = projection.clamp(1, u16::MAX as i64);
        // The distance: every corner within the fit, and none nearer than H.
        let mut distance = projection - z_min;
        for c in &corners {
            for (offset, fit) in [(c.x as i64, fit.0), (c.y as i64, fit.1)] {
                let depth = (offset.abs() * projection + fit - 1) / fit;
                distance = distance.max(depth - c.z as i64);
            }
        }
        let distance = distance.min(max_depth - z_max).max(1 - z_min);
        let (nearest, farthest) = (distance + z_min, distance + z_max);
        // AVSZ3 of a triangle at depth z is zsf3 * 3z >> 12: 2 * farthest goes to the deepest entry.
        let deepest = depths.saturating_sub(2).clamp(1, i16::MAX as usize) as i64;
        let zsf3 = (deepest * 4096 / (6 * farthest.max(1))).clamp(1, i16::MAX as i64);
        Camera {
            view: Camera::orbit(target, distance as i32, yaw, pitch),
            center: ((w / 2) as i16, (h / 2) as i16),
            projection: projection as u16,
            screen: (w as i16, h as i16),
            zsf3: zsf3 as i16,
            near: (nearest / 2).clamp(1, u16::MAX as i64) as u16,
        }
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
    extern crate std;
    use super::*;
    use std::format;

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

    /// `tests/fixtures/fbx/character.fbx` as `psxanim import --storage rigid-gte` bounds it (every
    /// sample of Walk, Idle and Turn): 1.7 m tall, feet at the origin, +Y down.
    const CHARACTER: [[i16; 3]; 2] = [[-2957, -7287, -2669], [2957, -203, 2867]];

    fn scaled(b: [[i16; 3]; 2], num: i32, den: i32) -> [[i16; 3]; 2] {
        b.map(|c| c.map(|v| (v as i32 * num / den) as i16))
    }

    /// Frames `bounds` and projects its corners through the GTE model as the renderer does (the
    /// camera's screen registers, view * world with the character at the origin); returns how much of
    /// the half-screen the farthest corner reaches on its axis, in 1/1000.
    fn framed(bounds: [[i16; 3]; 2], yaw: Angle, pitch: Angle, screen: (i16, i16)) -> i32 {
        let camera = Camera::frame(bounds, yaw, pitch, screen, 1024);
        let mut gte = Gte::new();
        camera.load(&mut gte);
        gte.set_matrix(&camera.view.mul(&placement(Vec3i32::ZERO, 0)));
        let case = format!("{bounds:?} yaw {yaw:#x} pitch {pitch:#x} on {screen:?}: {camera:?}");
        let [lo, hi] = bounds;
        let mut reach = 0;
        for c in 0..8 {
            let pick = |a: usize| if (c >> a) & 1 == 0 { lo[a] } else { hi[a] };
            let p = gte.rtps(Vec3i16::new(pick(0), pick(1), pick(2)));
            let (x, y) = (p.xy.x as i32, p.xy.y as i32);
            assert!((0..screen.0 as i32).contains(&x) && (0..screen.1 as i32).contains(&y), "corner {c} at {p:?}: {case}");
            assert!(p.z >= camera.near && p.z >= camera.projection / 2, "corner {c} too near, {p:?}: {case}");
            let otz = (camera.zsf3 as i32 * 3 * p.z as i32) >> 12;
            assert!(otz <= 1022 / 2 + 1, "corner {c} at ordering depth {otz}: {case}");
            let (cx, cy) = (camera.center.0 as i32, camera.center.1 as i32);
            reach = reach.max((x - cx).abs() * 1000 / cx).max((y - cy).abs() * 1000 / cy);
        }
        reach
    }

    #[test]
    fn a_framed_character_lands_on_screen_and_fills_it_whatever_its_size() {
        let tall = CHARACTER;
        let small = scaled(CHARACTER, 1, 8); // 21 cm
        let flat = [[-8000, -600, -1500], [8000, 0, 1500]]; // a 4 m crocodile
        let giant = scaled(CHARACTER, 7, 2); // 6 m
        for screen in [(320, 240), (640, 480), (256, 240), (512, 240)] {
            for yaw in [0u16, 0x2000, 0x6000, 0xA000, 0xF000] {
                for pitch in [0u16, 0x0400, 0x0C00, 0xF800] {
                    for bounds in [tall, small, flat, giant] {
                        let reach = framed(bounds, yaw, pitch, screen);
                        // The limiting corner sits at the margin (7/8 of the half-screen), within
                        // the GTE's rounding (a pixel).
                        assert!((850..=890).contains(&reach), "{bounds:?} yaw {yaw:#x} pitch {pitch:#x} {screen:?}: reach {reach}");
                    }
                }
            }
        }
        // The template's view of the fixture: about the hand-placed camera it replaces.
        let c = Camera::frame(CHARACTER, 0x1000, 0x0400, (320, 240), 1024);
        assert_eq!((c.projection, c.center, c.screen), (320, (160, 120), (320, 240)));
        assert!((12_000..20_000).contains(&c.view.translation.z), "{c:?}");
    }

    #[test]
    fn a_tiny_or_degenerate_box_is_shown_no_nearer_than_the_gte_projects() {
        // A 2.7 cm character: the GTE cannot magnify it to the screen's size; it is on screen, smaller.
        for yaw in [0u16, 0x3000] {
            let reach = framed(scaled(CHARACTER, 1, 64), yaw, 0x0400, (320, 240));
            assert!((100..=890).contains(&reach), "{reach}");
        }
        let point = Camera::frame([[5, 5, 5], [5, 5, 5]], 0, 0, (320, 240), 1024);
        assert!(point.view.transform(Vec3i16::new(5, 5, 5)).z >= 320 && point.near >= 160, "{point:?}");
        let nothing = Camera::frame([[0; 3]; 2], 0, 0, (0, -5), 0);
        assert!(nothing.zsf3 >= 1 && nothing.projection >= 1 && nothing.near >= 1, "{nothing:?}");
        // The widest box there is: framed with a narrower view, SZ still in range.
        let all = Camera::frame([[-32768; 3], [32767; 3]], 0x1234, 0x0800, (320, 240), 1024);
        assert!(all.projection < 320 && all.zsf3 >= 1, "{all:?}");
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
