//! One frame of one character as the console computes it: the runtime's render stages
//! (`psxanim_runtime::render`) on the host's bit-exact GTE model give the triangles in the order the
//! GPU draws them, and the bone origins for the skeleton overlay. No projection is redone here.

use psxanim_runtime::anim::FrameSample;
use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::math::{Matrix, Vec3i16};
use psxanim_runtime::render::triangles::sort_draw_order;
use psxanim_runtime::render::{bones, render, DrawnTriangle, Outcome, Scratch, TriangleSink};
use psxanim_runtime::tables::{BoneSample, Storage, Tables};
use psxanim_runtime::vram::Placement;

use super::camera::Framing;
use super::raster::{vram_colour, Canvas};
use super::vram::{texel_rgb, window_texel, Vram};

/// What the console would draw for one frame.
#[derive(Clone, Debug, Default)]
pub struct Shot {
    /// Triangles in GPU draw order (far ordering-table slots first).
    pub triangles: Vec<DrawnTriangle>,
    /// Every bone's origin on screen (for the overlay); empty when unknown.
    pub joints: Vec<Joint>,
}

/// A textured triangle's packet words, as the console's sink writes them (`placement`'s `vram::Words`):
/// its three final UV words (each corner's UV plus its texture's place; the page and CLUT words ride
/// in the first two's high halves) and its texture window (a GP0(E2h) word, 0 for none).
pub fn packet_words(t: &DrawnTriangle, placement: &Placement) -> TexturedWords {
    let w = placement.words(t.texture as usize - 1);
    TexturedWords { uv: w.triangle(t.uv), window: w.window }
}

/// What a textured packet names: its UV words and its texture window (0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexturedWords {
    pub uv: [u32; 3],
    pub window: u32,
}

/// A bone's origin on screen and the index of its parent bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Joint {
    pub xy: [i32; 2],
    pub parent: Option<usize>,
}

/// Collects what the triangle stage emits, numbered in emission order.
struct Collect(Vec<(u32, DrawnTriangle)>);

impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push((self.0.len() as u32, *t));
        true
    }
}

/// Runs the render stages for `frame` of clip `clip` (sample exactly, no blending).
pub fn triangles(tables: &Tables, clip: usize, frame: usize, framing: &Framing) -> Result<Vec<DrawnTriangle>, String> {
    let mut gte = Gte::with_backend(GteModel::new());
    framing.camera.load(&mut gte);
    let frame16 = u16::try_from(frame).map_err(|_| format!("frame {frame} is beyond the tables' 16-bit frame numbers"))?;
    let sample = FrameSample { clip: clip as u16, frame: frame16, next: frame16, weight: 0 };
    // Every character the importer takes (rigid-gte: up to 4,096 vertices).
    let mut scratch = Box::<Scratch<{ crate::fbx::limits::MAX_VERTICES }>>::new(Scratch::new());
    scratch.lighting = framing.lighting;
    let mut sink = Collect(Vec::with_capacity(tables.triangle_count()));
    let outcome = render(&mut gte, tables, &framing.camera, &Matrix::IDENTITY, Some(sample), &mut scratch, &mut sink, &mut |_| {})
        .map_err(|e| format!("clip {clip} frame {frame}: the render stages failed: {e:?}"))?;
    if outcome == Outcome::Culled {
        return Ok(Vec::new());
    }
    let mut list = sink.0;
    sort_draw_order(&mut list, |t| t.otz);
    Ok(list.into_iter().map(|(_, t)| t).collect())
}

/// Screen positions of every bone origin of a rigid-gte blob at `frame`, from the same decoded samples
/// and GTE composition the renderer uses.
pub fn joints(tables: &Tables, clip: usize, frame: usize, framing: &Framing) -> Result<Vec<Joint>, String> {
    if tables.storage() != Storage::RigidGte {
        return Ok(Vec::new());
    }
    let mut gte = Gte::with_backend(GteModel::new());
    framing.camera.load(&mut gte);
    let mut samples = vec![BoneSample::default(); tables.bone_count()];
    tables.decode_pose(clip, frame, &mut samples).map_err(|e| format!("clip {clip} frame {frame}: {e:?}"))?;
    let mut matrices = vec![Matrix::IDENTITY; tables.bone_count()];
    bones::bone_matrices(&mut gte, tables, &samples, &framing.camera.view, &mut matrices);
    Ok(matrices
        .iter()
        .enumerate()
        .map(|(b, m)| {
            gte.set_matrix(m);
            let p = gte.rtps(Vec3i16::new(0, 0, 0));
            Joint { xy: [p.xy.x as i32, p.xy.y as i32], parent: tables.bone(b).parent.map(|p| p as usize) }
        })
        .collect())
}

/// Background of every picture (not a material colour: tests tell the character from it).
pub const BACKGROUND: [u8; 3] = [24, 28, 36];
/// Skeleton overlay colours.
pub const BONE_LINE: [u8; 3] = [255, 232, 64];
pub const JOINT_DOT: [u8; 3] = [255, 64, 160];

/// How a triangle is filled: its material's colour, or texels through the packet's UV words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Flat([u8; 3]),
    Textured(Texturing),
    /// Lit (`render::light`): each corner's colour, Gouraud-shaded; textured, each texel modulated by it.
    Gouraud([[u8; 3]; 3]),
    TexturedGouraud(Texturing, [[u8; 3]; 3]),
}

/// Where a textured triangle's texels come from: each corner's `u | v << 8`, the texture page and
/// CLUT words (`vram::Words` applied) and the texture window (a GP0(E2h) word, 0 for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texturing {
    pub uv: [[u8; 2]; 3],
    pub page: u16,
    pub clut: u16,
    pub window: u32,
}

impl Texturing {
    /// From a textured packet's words (CLUT word in the first UV word's high half, page in the second's).
    pub fn of(words: TexturedWords) -> Texturing {
        let uv = words.uv;
        Texturing { uv: uv.map(|w| [w as u8, (w >> 8) as u8]), page: (uv[1] >> 16) as u16, clut: (uv[0] >> 16) as u16, window: words.window }
    }

    /// The texel the GPU reads at (u, v), through the window: None where transparent.
    fn texel(&self, vram: &Vram, u: u8, v: u8) -> Option<u16> {
        let [u, v] = window_texel(self.window, u, v);
        vram.texel(self.page, self.clut, u, v)
    }
}

impl Fill {
    /// What the console's ordering-table sink draws for `t` (`render::ot`): with `words` (its textured
    /// packet's words, when its texture is placed), textured; with the triangle's light colours,
    /// Gouraud (an untextured material's colour modulated by them); else flat.
    pub fn of(t: &DrawnTriangle, words: Option<TexturedWords>) -> Fill {
        let rgb = |l: u32| [l as u8, (l >> 8) as u8, (l >> 16) as u8];
        match (words, t.rgb) {
            (Some(words), None) => Fill::Textured(Texturing::of(words)),
            (Some(words), Some(light)) => Fill::TexturedGouraud(Texturing::of(words), light.map(rgb)),
            (None, Some(light)) => Fill::Gouraud(light.map(|l| psxanim_runtime::render::light::modulate(t.colour, l))),
            (None, None) => Fill::Flat(t.colour),
        }
    }
}

/// Paints one triangle as the GPU draws it (a textured one needs `vram`; without it, its colour).
pub fn paint_triangle(canvas: &mut Canvas, t: &DrawnTriangle, fill: Fill, vram: Option<&Vram>) {
    let xy = t.xy.map(|p| [p.x as i32, p.y as i32]);
    match (fill, vram) {
        (Fill::Textured(t), Some(vram)) => canvas.fill_textured(xy, t.uv, |u, v| t.texel(vram, u, v).map(texel_rgb)),
        (Fill::TexturedGouraud(t, colours), Some(vram)) => canvas.fill_shaded(xy, colours, Some((t.uv, &|u, v| t.texel(vram, u, v)))),
        (Fill::Gouraud(colours) | Fill::TexturedGouraud(_, colours), _) => canvas.fill_shaded(xy, colours, None),
        _ => canvas.fill_triangle(xy, vram_colour(t.colour)),
    }
}

/// Rasterises a shot the way the GPU draws it (15-bit colours, fill rule, draw order), with the
/// skeleton on top when `bones` is set.
/// Textured triangles (with `vram`) are painted from the texels their packet words name.
pub fn paint(shot: &Shot, vram: Option<&Vram>, width: usize, height: usize, bones: bool) -> Canvas {
    let mut canvas = Canvas::new(width, height, BACKGROUND);
    for t in &shot.triangles {
        let fill = Fill::of(t, vram.filter(|_| t.texture != 0).map(|vram| packet_words(t, &vram.placement)));
        paint_triangle(&mut canvas, t, fill, vram);
    }
    if bones {
        paint_skeleton(&mut canvas, &shot.joints);
    }
    canvas
}

/// Lines from each bone's origin to its parent's, and a dot on every joint.
pub fn paint_skeleton(canvas: &mut Canvas, joints: &[Joint]) {
    for j in joints {
        if let Some(parent) = j.parent.and_then(|i| joints.get(i)) {
            canvas.draw_line(parent.xy, j.xy, BONE_LINE);
        }
    }
    for j in joints {
        canvas.draw_dot(j.xy, 1, JOINT_DOT);
    }
}
