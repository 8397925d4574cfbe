//! Culling a whole character before any pose work: its conservative model-space box against the view.
//!
//! The tables' bounds cover the bind pose and every sample of every clip, so a box outside the view
//! means no pose of that character can be seen: it costs eight RTPS (the corners projected by the
//! GTE, as the vertices will be) and a few compares, no 64-bit arithmetic. The test is
//! conservative: a box beside a frustum corner may be kept, and so is any box with a corner nearer
//! than the near depth unless every corner is (the projection of such a corner means nothing); it
//! never drops a visible character.

use super::camera::Camera;
use crate::gte::{Cop2, Gte, MAX_SPAN_X, MAX_SPAN_Y};

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
    /// triangle stage may skip those tests (`FlatPrimitives::clip_tests`). The margins cover a vertex
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
    // The corners' VXY and VZ words from these halves: corner `c` takes the minimum or maximum of
    // axis `a` by bit `a` of `c`, picked by masks (no loads, no branches).
    let [lo, hi] = *bounds;
    let (x0, x1) = (lo[0] as u16 as u32, hi[0] as u16 as u32);
    let (y0, y1) = ((lo[1] as u16 as u32) << 16, (hi[1] as u16 as u32) << 16);
    let (z0, z1) = (lo[2] as u16 as u32, hi[2] as u16 as u32);
    let pick = |c: u32, bit: u32, a: u32, b: u32| a ^ ((a ^ b) & 0u32.wrapping_sub((c >> bit) & 1));
    let (mut min, mut max) = ((i32::MAX, i32::MAX, i32::MAX), (i32::MIN, i32::MIN, i32::MIN));
    // One RTPS per corner in a loop kept rolled (the count goes through `black_box` once): this code
    // runs once per character, mostly from outside the instruction cache.
    let corners = core::hint::black_box(8u32);
    let mut c = 0;
    while c < corners {
        let p = gte.rtps_words(pick(c, 0, x0, x1) | pick(c, 1, y0, y1), pick(c, 2, z0, z1));
        let (x, y, z) = (p.xy.x as i32, p.xy.y as i32, p.z as i32);
        min = (min.0.min(x), min.1.min(y), min.2.min(z));
        max = (max.0.max(x), max.1.max(y), max.2.max(z));
        c += 1;
    }
    let near = camera.near as i32;
    let (w, h) = (camera.screen.0 as i32, camera.screen.1 as i32);
    // Every corner too near, or every corner in front and beyond one screen edge (SX, SY are
    // floor(exact), saturated to -1024..1023, which keeps their side of the screen); a box with a
    // corner too near is otherwise kept (that corner's projection means nothing).
    let beside = max.0 < 0 || min.0 >= w || max.1 < 0 || min.1 >= h;
    if max.2 < near || (min.2 >= near && beside) {
        Visibility::Hidden
    } else if min.2 >= near + NEAR_MARGIN && max.0 - min.0 <= MAX_SPAN_X - SPAN_MARGIN && max.1 - min.1 <= MAX_SPAN_Y - SPAN_MARGIN {
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
