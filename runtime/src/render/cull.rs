//! Culling a whole character before any pose work: its conservative model-space box against the view.
//!
//! The tables' bounds cover the bind pose and every sample of every clip, so a box outside the view
//! means no pose of that character can be seen: it costs eight RTPS (the corners projected by the
//! GTE, as the vertices will be) and a few compares, no 64-bit arithmetic. The test is
//! conservative: a box beside a frustum corner may be kept, and so is any box with a corner nearer
//! than the near depth unless every corner is (the projection of such a corner means nothing); it
//! never drops a visible character.

use super::camera::Camera;
use crate::gte::{Cop2, Gte, Projected, MAX_SPAN_X, MAX_SPAN_Y};
use crate::math::Vec3i16;

/// One bit per way a projected corner can be out of view: nearer than `near`, left of, right of,
/// above or below the screen.
fn outside(p: &Projected, camera: &Camera) -> u32 {
    if p.z < camera.near {
        return 1;
    }
    // SX, SY are floor(exact) (saturated to -1024..1023, which keeps their side of the screen).
    let (x, y) = (p.xy.x as i32, p.xy.y as i32);
    let (w, h) = (camera.screen.0 as i32, camera.screen.1 as i32);
    ((x < 0) as u32 * 2) | ((x >= w) as u32 * 4) | ((y < 0) as u32 * 8) | ((y >= h) as u32 * 16)
}

/// What the view sees of a character's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Every corner is out the same way: nothing of the character can be on screen.
    Hidden,
    /// Some of it may be on screen.
    Visible,
    /// Visible, with every corner at least [`NEAR_MARGIN`] beyond the near depth and the projected
    /// corners within [`SPAN_MARGIN`] pixels less than the GPU's largest triangle on both axes. Every
    /// vertex projects inside the corners' hull, so no triangle can be too near or too large: the
    /// triangle stage may skip those tests (`FlatTriangles::clip_tests`). The margins cover a vertex
    /// lying a little outside the box (the FP12 rounding of its bone's matrices) and the GTE's pixel
    /// rounding.
    Clear,
}

/// Depth units a `Clear` box keeps beyond the near depth.
pub const NEAR_MARGIN: i32 = 64;
/// Pixels a `Clear` box's projection keeps below `MAX_SPAN_X` / `MAX_SPAN_Y`.
pub const SPAN_MARGIN: i32 = 16;

/// What of the box `bounds` (`[min, max]`, model space) may be on screen under the loaded object
/// matrix (`Gte::set_matrix` of view * world) and screen registers (`Camera::load`). Overwrites the
/// GTE's vertex, FIFO, MAC and IR registers.
pub fn box_visibility<B: Cop2>(gte: &mut Gte<B>, camera: &Camera, bounds: &[[i16; 3]; 2]) -> Visibility {
    // The box is out when every corner is out the same way. One RTPS per corner in a loop kept
    // rolled: this code runs once per character, mostly from outside the instruction cache, so its
    // cost follows its size more than its instruction count.
    let mut outside_all = 0x1F_u32;
    let (mut min, mut max) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
    let mut nearest = i32::MAX;
    let mut corner = 0;
    while corner < core::hint::black_box(8) {
        let pick = |axis: usize| bounds[(corner >> axis) & 1][axis];
        let p = gte.rtps(Vec3i16::new(pick(0), pick(1), pick(2)));
        outside_all &= outside(&p, camera);
        let (x, y) = (p.xy.x as i32, p.xy.y as i32);
        min = (min.0.min(x), min.1.min(y));
        max = (max.0.max(x), max.1.max(y));
        nearest = nearest.min(p.z as i32);
        corner += 1;
    }
    if outside_all != 0 {
        Visibility::Hidden
    } else if nearest >= camera.near as i32 + NEAR_MARGIN
        && max.0 - min.0 <= MAX_SPAN_X - SPAN_MARGIN
        && max.1 - min.1 <= MAX_SPAN_Y - SPAN_MARGIN
    {
        Visibility::Clear
    } else {
        Visibility::Visible
    }
}

/// True when some part of the box may be on screen ([`box_visibility`] is not `Hidden`).
pub fn box_visible<B: Cop2>(gte: &mut Gte<B>, camera: &Camera, bounds: &[[i16; 3]; 2]) -> bool {
    box_visibility(gte, camera, bounds) != Visibility::Hidden
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Matrix, Vec3i32, IDENTITY_ROTATION};

    fn camera() -> Camera {
        Camera {
            view: Matrix::IDENTITY,
            center: (160, 120),
            projection: 320,
            screen: (320, 240),
            zsf3: 36,
            near: 1000,
        }
    }

    fn visible(at: Vec3i32, bounds: [[i16; 3]; 2]) -> bool {
        let mut gte = Gte::new();
        let camera = camera();
        camera.load(&mut gte);
        gte.set_matrix(&Matrix::new(IDENTITY_ROTATION, at));
        box_visible(&mut gte, &camera, &bounds)
    }

    const BOX: [[i16; 3]; 2] = [[-500, -2000, -500], [500, 0, 500]];

    #[test]
    fn a_box_ahead_is_kept_and_boxes_beside_below_or_behind_are_dropped() {
        assert!(visible(Vec3i32::new(0, 0, 20_000), BOX));
        // Beside: screen x = 160 + (x - 500) * 320 / (z + 500) >= 320 when x - 500 >= (z + 500) / 2.
        assert!(!visible(Vec3i32::new(11_000, 0, 20_000), BOX));
        assert!(!visible(Vec3i32::new(-11_000, 0, 20_000), BOX));
        assert!(!visible(Vec3i32::new(0, 60_000, 20_000), BOX));
        assert!(!visible(Vec3i32::new(0, -60_000, 20_000), BOX));
        assert!(!visible(Vec3i32::new(0, 0, -20_000), BOX));
        // Straddling the near depth, or the screen edge: kept.
        assert!(visible(Vec3i32::new(0, 0, 1200), BOX));
        assert!(visible(Vec3i32::new(9_000, 0, 20_000), BOX));
    }

    #[test]
    fn a_small_box_well_ahead_is_clear_and_a_near_or_huge_one_is_not() {
        let look = |at: Vec3i32, bounds: [[i16; 3]; 2]| {
            let mut gte = Gte::new();
            let camera = camera();
            camera.load(&mut gte);
            gte.set_matrix(&Matrix::new(IDENTITY_ROTATION, at));
            box_visibility(&mut gte, &camera, &bounds)
        };
        assert_eq!(look(Vec3i32::new(0, 0, 20_000), BOX), Visibility::Clear);
        // Nearest corner at 1050: within the margin of the near depth 1000.
        assert_eq!(look(Vec3i32::new(0, 0, 1550), BOX), Visibility::Visible);
        // Nearest corner at 1564: about 410 px tall, within the spans; a box 16,000 wide at 2500 is not.
        assert_eq!(look(Vec3i32::new(0, 0, 2064), BOX), Visibility::Clear);
        assert_eq!(look(Vec3i32::new(0, 0, 3000), [[-8000, -100, -500], [8000, 100, 500]]), Visibility::Visible);
        assert_eq!(look(Vec3i32::new(0, 0, -20_000), BOX), Visibility::Hidden);
    }

    /// Against the exact projection: a box with any corner in front of the near depth and on screen
    /// is never dropped.
    #[test]
    fn no_box_with_a_corner_on_screen_is_dropped() {
        let camera = camera();
        let mut seed = 0x1234_5678_u32;
        let mut next = |range: i32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as i32 % range
        };
        for _ in 0..4000 {
            let at = Vec3i32::new(next(60_000) - 30_000, next(40_000) - 20_000, next(60_000) - 10_000);
            let (lo, hi) = ([next(3000) - 3000, next(3000) - 3000, next(3000) - 3000], [next(3000), next(3000), next(3000)]);
            let bounds = [lo.map(|c| c as i16), hi.map(|c| c as i16)];
            let on_screen = (0..8).any(|c| {
                let pick = |axis: usize| if (c >> axis) & 1 == 0 { lo[axis] } else { hi[axis] } as f64;
                let (x, y, z) = (pick(0) + at.x as f64, pick(1) + at.y as f64, pick(2) + at.z as f64);
                let (sx, sy) = (160.0 + x * 320.0 / z, 120.0 + y * 320.0 / z);
                z >= camera.near as f64 + 1.0 && (1.0..319.0).contains(&sx) && (1.0..239.0).contains(&sy)
            });
            if on_screen {
                assert!(visible(at, bounds), "{at:?} {bounds:?}");
            }
        }
    }
}
