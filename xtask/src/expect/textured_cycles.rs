//! Issue 22's figures of a textured, lit character, from its stages' cycles at one frame: what the
//! examples that draw one (psx-game, character) write into their cycles JSON under the same names.
use serde::Serialize;

/// CPU cycles of one frame at 30 fps (33.8688 MHz / 30).
pub const FRAME_30FPS_CYCLES: f64 = 33_868_800.0 / 30.0;

/// Its projection stage (lighting included) per vertex, its triangle stage per triangle considered
/// and per triangle drawn, and issue 22's budget: four such characters of 512 vertices and 1,024
/// triangles, each costing 512 x the per-vertex figure + 1,024 x the per-triangle-considered figure
/// (its back faces as many as this one's, as the four-character figures of the untextured path count)
/// plus its pose (decode and bone matrices), as a share of a 30 fps frame, in percent; and the same
/// with all 1,024 triangles charged at the per-drawn-triangle figure (every triangle facing the
/// camera: the bound no view exceeds).
#[derive(Debug, Clone, Serialize)]
pub struct TexturedFigures {
    pub textured_lit_cycles_per_vertex: f64,
    pub textured_cycles_per_triangle_considered: f64,
    pub textured_gouraud_cycles_per_drawn_triangle: f64,
    pub four_textured_lit_characters_percent_of_30fps_frame: f64,
    pub four_textured_lit_characters_percent_of_30fps_frame_all_drawn: f64,
}

/// One textured, lit character at the measured frame: its stages in CPU cycles and its counts.
pub struct TexturedStages {
    pub pose: f64,
    pub projection: f64,
    pub triangles: f64,
    pub vertices: usize,
    pub triangles_considered: usize,
    pub triangles_drawn: u32,
}

impl TexturedFigures {
    pub fn of(s: &TexturedStages) -> Self {
        let per_vertex = s.projection / s.vertices.max(1) as f64;
        let per_considered = s.triangles / s.triangles_considered.max(1) as f64;
        let per_drawn = s.triangles / s.triangles_drawn.max(1) as f64;
        let four = |per_triangle: f64| 100.0 * 4.0 * (512.0 * per_vertex + 1024.0 * per_triangle + s.pose) / FRAME_30FPS_CYCLES;
        TexturedFigures {
            textured_lit_cycles_per_vertex: per_vertex,
            textured_cycles_per_triangle_considered: per_considered,
            textured_gouraud_cycles_per_drawn_triangle: per_drawn,
            four_textured_lit_characters_percent_of_30fps_frame: four(per_considered),
            four_textured_lit_characters_percent_of_30fps_frame_all_drawn: four(per_drawn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_follow_the_issues_formula() {
        let f = TexturedFigures::of(&TexturedStages { pose: 10_000.0, projection: 20_000.0, triangles: 33_000.0, vertices: 500, triangles_considered: 660, triangles_drawn: 300 });
        assert_eq!((f.textured_lit_cycles_per_vertex, f.textured_gouraud_cycles_per_drawn_triangle), (40.0, 110.0));
        assert_eq!(f.textured_cycles_per_triangle_considered, 50.0);
        let four = |per_triangle: f64| 400.0 * (512.0 * 40.0 + 1024.0 * per_triangle + 10_000.0) / FRAME_30FPS_CYCLES;
        assert!((f.four_textured_lit_characters_percent_of_30fps_frame - four(50.0)).abs() < 1e-9, "{f:?}");
        assert!((f.four_textured_lit_characters_percent_of_30fps_frame_all_drawn - four(110.0)).abs() < 1e-9, "{f:?}");
        assert!((50.0..51.0).contains(&four(110.0)) && (28.0..30.0).contains(&four(50.0)), "{} {}", four(110.0), four(50.0));
    }
}
