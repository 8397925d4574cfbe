//! The ufbx float pose (`--compare`): ufbx's true skinning of each vertex (linear blend of every
//! weight), projected in f64 through the same view and painted with the same rasteriser, so that the
//! two pictures differ by what the console's fixed point changes and, for rigid-gte, by the cut to one
//! bone per vertex.

use super::camera::Framing;
use super::raster::{vram_colour, Canvas};
use super::shot::BACKGROUND;
use crate::fbx::Character;

/// Paints frame `frame` of clip `clip` of the float evaluation; `None` when out of range.
pub fn paint(c: &Character, clip: usize, frame: usize, framing: &Framing, width: usize, height: usize) -> Option<Canvas> {
    let positions = c.clips.get(clip)?.skinned_reference.get(frame)?;
    let screen: Vec<[f64; 3]> = positions.iter().map(|p| framing.project_f64(*p)).collect();
    let near = framing.camera.near as f64;
    // Painter's order by mean depth, far first; back faces (counter-clockwise on screen) dropped like
    // the console's NCLIP test does.
    let mut order: Vec<(f64, usize)> = Vec::with_capacity(c.triangles.len());
    for (i, t) in c.triangles.iter().enumerate() {
        let p = t.vertices.map(|v| screen.get(v).copied().unwrap_or([0.0, 0.0, -1.0]));
        if p.iter().any(|q| q[2] < near) {
            continue;
        }
        let area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
        if area <= 0.0 {
            continue;
        }
        order.push(((p[0][2] + p[1][2] + p[2][2]) / 3.0, i));
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut canvas = Canvas::new(width, height, BACKGROUND);
    for (_, i) in order {
        let t = &c.triangles[i];
        let xy = t.vertices.map(|v| [screen[v][0].round() as i32, screen[v][1].round() as i32]);
        let rgb = c.materials.get(t.material).map(|m| m.rgb).unwrap_or([255, 0, 255]);
        canvas.fill_triangle(xy, vram_colour(rgb));
    }
    Some(canvas)
}
