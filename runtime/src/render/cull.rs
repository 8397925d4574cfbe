//! Culling a whole character before any pose work: its conservative model-space box against the view.
//!
//! The tables' bounds cover the bind pose and every sample of every clip, so a box outside the view
//! frustum means no pose of that character can be seen: it costs eight corner transforms and nothing
//! else. The test is conservative (a box beside a frustum corner may be kept); it never drops a visible
//! character.

use super::camera::Camera;
use crate::gte::{Cop2, Gte};
use crate::math::Vec3i16;

/// True when some part of the box `bounds` (`[min, max]`, model space) may be on screen under the
/// loaded object matrix (`Gte::set_matrix` of view * world). Uses the GTE (MVMVA) per corner.
pub fn box_visible<B: Cop2>(gte: &mut Gte<B>, camera: &Camera, bounds: &[[i16; 3]; 2]) -> bool {
    let (w, h) = (camera.screen.0 as i64, camera.screen.1 as i64);
    let (cx, cy) = (camera.center.0 as i64, camera.center.1 as i64);
    let hp = camera.projection as i64;
    let near = camera.near as i64;
    // Each bit of a mask: this corner is outside that plane. The box is out when all corners share one.
    let mut outside_all = 0x1F_u32;
    for corner in 0..8 {
        let pick = |axis: usize| bounds[(corner >> axis) & 1][axis];
        let p = gte.transform(Vec3i16::new(pick(0), pick(1), pick(2)));
        let (x, y, z) = (p.x as i64, p.y as i64, p.z as i64);
        // Screen x = cx + x * hp / z is inside [0, w) when -cx * z <= x * hp < (w - cx) * z (z > 0);
        // as half-spaces these hold for any z, which keeps the test convex and conservative.
        let mut out = 0;
        if z < near {
            out |= 1;
        }
        if x * hp < -cx * z {
            out |= 2;
        }
        if x * hp > (w - cx) * z {
            out |= 4;
        }
        if y * hp < -cy * z {
            out |= 8;
        }
        if y * hp > (h - cy) * z {
            out |= 16;
        }
        outside_all &= out;
    }
    outside_all == 0
}
