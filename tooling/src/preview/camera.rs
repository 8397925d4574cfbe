//! The preview camera: an orbit around the character's bounds, built with the runtime's own integer
//! orbit (`render::Camera::orbit`) so the view matrix is what a console program would load, plus the
//! same view in f64 for the ufbx float comparison.
//!
//! Model space is the PlayStation's (+X right, +Y down, +Z into the screen). Yaw turns about the
//! vertical axis, pitch tilts (positive looks down), both in degrees; zoom > 1 moves closer.

use psxanim_runtime::math::{Vec3i16, Vec3i32};
use psxanim_runtime::render::camera::Angle;
use psxanim_runtime::render::light::{Fog, FogError, Lighting};
use psxanim_runtime::render::Camera;

/// The console's usual 320x240 frame.
pub const SCREEN_WIDTH: usize = 320;
pub const SCREEN_HEIGHT: usize = 240;
/// Projection distance H (the GTE's focal length in pixels).
pub const PROJECTION_H: u16 = 240;
/// The character's bounding sphere fills this many pixels of radius at zoom 1.
const FIT_RADIUS_PIXELS: f64 = 105.0;
/// Ordering-table slots the framed depth range is spread over (AVSZ3 scale).
pub const OT_SLOTS: f64 = 1024.0;

/// Where the viewer stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub yaw: f64,
    pub pitch: f64,
    pub zoom: f64,
}

impl Default for Orbit {
    /// A three-quarter view from slightly above.
    fn default() -> Self {
        Orbit { yaw: 30.0, pitch: 12.0, zoom: 1.0 }
    }
}

/// A console camera framed on a box, and its view in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Framing {
    pub camera: Camera,
    /// `camera.view` as reals: rotation rows (FP12 / 4096) and translation.
    pub view_f64: ([[f64; 3]; 3], [f64; 3]),
    /// The light the render stages get (`preview --light`), or None: unlit.
    pub lighting: Option<Lighting>,
    /// View-space depths of the framed box's front and back (the camera's distance -/+ its radius).
    pub depths: (f64, f64),
}

fn degrees_to_angle(d: f64) -> Angle {
    let d = if d.is_finite() { d.rem_euclid(360.0) } else { 0.0 };
    ((d / 360.0 * 65536.0).round() as u32 & 0xFFFF) as Angle
}

impl Framing {
    /// Frames the model-space box `bounds` (`[min, max]`, GTE units) from `orbit`.
    pub fn new(bounds: [[i16; 3]; 2], orbit: Orbit) -> Framing {
        let center = [0, 1, 2].map(|c| (bounds[0][c] as i32 + bounds[1][c] as i32) / 2);
        let radius = (0..3)
            .map(|c| {
                let half = (bounds[1][c] as f64 - bounds[0][c] as f64) / 2.0;
                half * half
            })
            .sum::<f64>()
            .sqrt()
            .max(16.0);
        let zoom = if orbit.zoom.is_finite() { orbit.zoom.clamp(0.1, 20.0) } else { 1.0 };
        let distance = (radius * PROJECTION_H as f64 / (FIT_RADIUS_PIXELS * zoom)).max(radius * 1.05 + 64.0);
        let view = Camera::orbit(
            Vec3i32::new(center[0], center[1], center[2]),
            distance.round() as i32,
            degrees_to_angle(orbit.yaw),
            degrees_to_angle(orbit.pitch),
        );
        let far = distance + radius;
        let zsf3 = (OT_SLOTS * 4096.0 / (3.0 * far)).clamp(1.0, i16::MAX as f64) as i16;
        // Anything nearer than this is behind the framed box at the closest zoom: not drawn.
        let near = ((distance - radius) * 0.25).clamp(1.0, 65535.0) as u16;
        let camera = Camera {
            view,
            center: ((SCREEN_WIDTH / 2) as i16, (SCREEN_HEIGHT / 2) as i16),
            projection: PROJECTION_H,
            screen: (SCREEN_WIDTH as i16, SCREEN_HEIGHT as i16),
            zsf3,
            near,
        };
        let r = view.rotation.map(|row| row.map(|v| v as f64 / 4096.0));
        let t = [view.translation.x as f64, view.translation.y as f64, view.translation.z as f64];
        Framing { camera, view_f64: (r, t), lighting: None, depths: (distance - radius, distance + radius) }
    }

    /// The same framing lit as a game might light it: one white light from the camera's upper left
    /// (it turns with the camera) and an ambient, faces toward the light about 1.4 times as bright as
    /// stored, faces away half.
    pub fn lit(self) -> Framing {
        // Toward the light in view space (x right, y down, z away from the viewer), turned back into
        // the world by the transposed view rotation.
        let toward = [-0.45, -0.6, -0.66];
        let (r, _) = self.view_f64;
        let world = [0, 1, 2].map(|j| (0..3).map(|i| r[i][j] * toward[i]).sum::<f64>());
        let len = world.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-9);
        let d = world.map(|c| (c / len * 4096.0).round() as i16);
        let lighting = Lighting::one(Vec3i16::new(d[0], d[1], d[2]), [112, 112, 112], [64, 64, 64]);
        Framing { lighting: Some(lighting), ..self }
    }

    /// The lit framing (see [`Framing::lit`]) with fog toward `colour` from the framed box's front
    /// (no fog) to its back (all fog), as a game sets it (`render::light::Fog`): the console's depth
    /// cue, so the front of the character keeps its colours and its far side fades. Unlit: as it is.
    pub fn fogged(self, colour: [u8; 3]) -> Result<Framing, FogError> {
        let depth = |d: f64| d.round().clamp(1.0, u16::MAX as f64) as u16;
        let fog = Fog::new(colour, depth(self.depths.0), depth(self.depths.1), self.camera.projection)?;
        Ok(Framing { lighting: self.lighting.map(|l| l.with_fog(fog)), ..self })
    }

    /// The f64 perspective projection of a model-space point: screen x, y and camera depth.
    pub fn project_f64(&self, p: [f64; 3]) -> [f64; 3] {
        let (r, t) = &self.view_f64;
        let c = [0, 1, 2].map(|i| r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + t[i]);
        let z = c[2].max(1.0);
        let h = self.camera.projection as f64;
        [self.camera.center.0 as f64 + c[0] * h / z, self.camera.center.1 as f64 + c[1] * h / z, c[2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_centre_projects_to_screen_centre_and_box_stays_on_screen() {
        let bounds = [[-1000, -7000, -500], [1000, 0, 500]];
        for (yaw, pitch) in [(0.0, 0.0), (90.0, -30.0), (200.0, 45.0)] {
            let f = Framing::new(bounds, Orbit { yaw, pitch, zoom: 1.0 });
            let p = f.project_f64([0.0, -3500.0, 0.0]);
            assert!((p[0] - 160.0).abs() < 0.5 && (p[1] - 120.0).abs() < 0.5, "{p:?}");
            for corner in 0..8 {
                let c = [0, 1, 2].map(|a| bounds[(corner >> a) & 1][a] as f64);
                let q = f.project_f64(c);
                assert!((0.0..320.0).contains(&q[0]) && (0.0..240.0).contains(&q[1]), "corner {c:?} -> {q:?}");
            }
        }
    }

    #[test]
    fn zoom_enlarges_and_garbage_orbit_is_tamed() {
        let bounds = [[-1000, -1000, -1000], [1000, 1000, 1000]];
        let near = Framing::new(bounds, Orbit { yaw: 0.0, pitch: 0.0, zoom: 2.0 });
        let far = Framing::new(bounds, Orbit { yaw: 0.0, pitch: 0.0, zoom: 1.0 });
        let x = |f: &Framing| f.project_f64([1000.0, 0.0, 0.0])[0] - 160.0;
        assert!(x(&near) > 1.5 * x(&far));
        let odd = Framing::new(bounds, Orbit { yaw: f64::NAN, pitch: f64::INFINITY, zoom: f64::NAN });
        assert_eq!(odd.camera, far.camera);
        assert_eq!(degrees_to_angle(-90.0), 0xC000);
    }
}
