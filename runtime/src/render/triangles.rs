//! Triangle set-up: back faces culled by NCLIP, depth by AVSZ3, colour from the material, handed to a
//! [`TriangleSink`] (the console's ordering table, or a host collector).

use super::camera::Camera;
use crate::gte::regs::{cmd, data};
use crate::gte::{Cop2, Gte, ScreenXY};
use crate::tables::{Tables, TRIANGLE_SIZE};

/// NCLIP sign of a triangle facing the camera. The importer keeps the source winding (counter-clockwise
/// seen from outside); the change to the PlayStation's axes flips Y and Z together, a rotation, so
/// front faces stay counter-clockwise on the Y-down screen, where NCLIP is negative. (Checked on the
/// imported fixture by the xtask test `the_triangles_kept_are_nearer_than_the_ones_culled`.)
pub const FRONT_FACING_NCLIP_POSITIVE: bool = false;

/// The GPU drops a triangle wider than 1,023 or taller than 511 pixels.
const MAX_SPAN_X: i32 = 1023;
const MAX_SPAN_Y: i32 = 511;

/// One triangle ready to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawnTriangle {
    /// Index in the character's triangle table.
    pub index: u16,
    pub xy: [ScreenXY; 3],
    /// Per-vertex depth (SZ).
    pub z: [u16; 3],
    /// Ordering-table depth (AVSZ3's OTZ): larger is farther.
    pub otz: u16,
    /// Material base colour.
    pub colour: [u8; 3],
}

/// Where triangles go. `add` returns false when the sink is full (the triangle is counted as dropped).
pub trait TriangleSink {
    fn add(&mut self, triangle: &DrawnTriangle) -> bool;
}

/// What happened to a character's triangles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriangleStats {
    pub back_facing: u32,
    /// Too near the camera, too large for the GPU, or refused by a full sink.
    pub rejected: u32,
    pub drawn: u32,
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn span_ok(xy: &[u32; 3]) -> bool {
    let x = xy.map(|w| w as u16 as i16 as i32);
    let y = xy.map(|w| (w >> 16) as u16 as i16 as i32);
    let span = |c: [i32; 3]| c[0].max(c[1]).max(c[2]) - c[0].min(c[1]).min(c[2]);
    span(x) <= MAX_SPAN_X && span(y) <= MAX_SPAN_Y
}

/// Sets up every triangle of `tables` from the projected vertices (`sxy`, `sz`, indexed like the
/// tables' vertices) and hands the front-facing ones to `sink` in table order.
pub fn emit<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    sxy: &[u32],
    sz: &[u32],
    sink: &mut S,
) -> TriangleStats {
    let bytes = tables.bytes();
    let base = tables.triangles_offset();
    let count = tables.triangle_count();
    // The material colours, read once per character rather than once per triangle.
    let mut colours = [[255u8, 0, 255]; MATERIALS_CACHED];
    for (m, c) in colours.iter_mut().enumerate().take(tables.material_count()) {
        *c = tables.material(m);
    }
    let mut stats = TriangleStats::default();
    match super::project::aligned_words(bytes, base, 2 * count) {
        Some(w) => {
            for (index, entry) in w.chunks_exact(2).enumerate() {
                setup(gte, camera, index, (entry[0], entry[1]), sxy, sz, &colours, sink, &mut stats);
            }
        }
        None => {
            for index in 0..count {
                let o = base + index * TRIANGLE_SIZE;
                setup(gte, camera, index, (word(bytes, o), word(bytes, o + 4)), sxy, sz, &colours, sink, &mut stats);
            }
        }
    }
    stats
}

/// Materials whose colour `emit` caches (a triangle's material is a byte).
const MATERIALS_CACHED: usize = 256;

/// One triangle: `words` are its table entry (`a | b << 16`, `c | material << 16`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn setup<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    camera: &Camera,
    index: usize,
    words: (u32, u32),
    sxy: &[u32],
    sz: &[u32],
    colours: &[[u8; 3]; MATERIALS_CACHED],
    sink: &mut S,
    stats: &mut TriangleStats,
) {
    let (ab, cm) = words;
    let n = sxy.len().min(sz.len());
    let v = [(ab & 0xFFFF) as usize, (ab >> 16) as usize, (cm & 0xFFFF) as usize];
    if v[0] >= n || v[1] >= n || v[2] >= n {
        stats.rejected += 1;
        return;
    }
    let xy = [sxy[v[0]], sxy[v[1]], sxy[v[2]]];
    gte.write_data::<{ data::SXY0 }>(xy[0]);
    gte.write_data::<{ data::SXY1 }>(xy[1]);
    gte.write_data::<{ data::SXY2 }>(xy[2]);
    gte.command::<{ cmd::NCLIP }>();
    let area = gte.read_data::<{ data::MAC0 }>() as i32;
    if (area > 0) != FRONT_FACING_NCLIP_POSITIVE || area == 0 {
        stats.back_facing += 1;
        return;
    }
    let z = [sz[v[0]] as u16, sz[v[1]] as u16, sz[v[2]] as u16];
    if z[0] < camera.near || z[1] < camera.near || z[2] < camera.near || !span_ok(&xy) {
        stats.rejected += 1;
        return;
    }
    gte.write_data::<{ data::SZ1 }>(z[0] as u32);
    gte.write_data::<{ data::SZ2 }>(z[1] as u32);
    gte.write_data::<{ data::SZ3 }>(z[2] as u32);
    gte.command::<{ cmd::AVSZ3 }>();
    let otz = gte.read_data::<{ data::OTZ }>() as u16;
    let colour = colours[((cm >> 16) & 0xFF) as usize];
    let t = DrawnTriangle { index: index as u16, xy: xy.map(ScreenXY::from_word), z, otz, colour };
    if sink.add(&t) {
        stats.drawn += 1;
    } else {
        stats.rejected += 1;
    }
}

/// Depth shading for gouraud primitives: full colour at `near_z` and nearer, fading linearly to half
/// at `far_z` and beyond.
pub fn shade(colour: [u8; 3], z: u16, near_z: u16, far_z: u16) -> [u8; 3] {
    let span = far_z.saturating_sub(near_z).max(1) as u32;
    let into = (z.saturating_sub(near_z) as u32).min(span);
    let factor = 256 - (128 * into) / span; // 256 .. 128
    colour.map(|c| ((c as u32 * factor) >> 8) as u8)
}

/// Orders triangles as the ordering table draws them: farthest depth first and, within one depth,
/// the last added first (each packet is linked in at the head of its depth's list).
///
/// `seq` is each triangle's position in the order it was added to the sink.
pub fn sort_draw_order<T>(triangles: &mut [(u32, T)], depth: impl Fn(&T) -> u16) {
    triangles.sort_unstable_by(|a, b| depth(&b.1).cmp(&depth(&a.1)).then(b.0.cmp(&a.0)));
}
