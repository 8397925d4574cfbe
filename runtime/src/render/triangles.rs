//! Triangle set-up from the tables' primitive stream (`tables::primitives`): back faces culled by
//! NCLIP, depth by AVSZ3 (AVSZ4 for a quad), colour from the run, handed to a [`TriangleSink`] (the
//! console's ordering table, or a host collector).
//!
//! A sink that draws flat triangles into a GPU ordering table (the console's `OtSink`) offers its
//! table and free packet words ([`TriangleSink::flat_packet_list`]); the whole stage is then one
//! [`Cop2::flat_packets`] loop that writes and links the packets itself, with no per-triangle
//! round trip through the CPU. Any other sink gets [`DrawnTriangle`]s through `add`, in the same
//! order and with the same tests, so the host knows exactly what the console draws.
//!
//! A quad (a planar pair of triangles, alone or in a strip) is culled by the NCLIP of its facing
//! triangle and depth-sorted by AVSZ4 of its four points; the packet path draws it as one four-point
//! polygon, `add` gets its two triangles (points 0-1-2 and 1-2-3) with that depth.
//!
//! A front face is rejected when a vertex is nearer than the camera's near depth or when it is
//! larger than the GPU draws. A character whose box the cull found clear of both
//! (`cull::Visibility::Clear`: the usual case) skips those tests, on both paths.

use super::camera::Camera;
use crate::gte::packets::{all_within_limits, within_limits};
use crate::gte::{Cop2, FlatPrimitives, Gte, PacketList, ScreenXY};
use crate::tables::Tables;

/// NCLIP sign of a triangle facing the camera. The importer keeps the source winding (counter-clockwise
/// seen from outside); the change to the PlayStation's axes flips Y and Z together, a rotation, so
/// front faces stay counter-clockwise on the Y-down screen, where NCLIP is negative. (Checked on the
/// imported fixture by the xtask test `the_triangles_kept_are_nearer_than_the_ones_culled`.)
pub const FRONT_FACING_NCLIP_POSITIVE: bool = false;

/// One triangle ready to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawnTriangle {
    /// Index of the triangle among the primitive stream's (a quad's two are consecutive).
    pub index: u16,
    pub xy: [ScreenXY; 3],
    /// Per-vertex depth (SZ).
    pub z: [u16; 3],
    /// Ordering-table depth (AVSZ3's OTZ): larger is farther.
    pub otz: u16,
    /// Material base colour.
    pub colour: [u8; 3],
    /// The material's texture + 1 (0: untextured), and each corner's texture coordinates, `u | v << 8`
    /// from the texture's corner (`tables::textures`; the sink's `vram::Placement` adds the page's).
    pub texture: u8,
    pub uv: [u32; 3],
    /// Lit (`render::light`): each corner's light colour, `r | g << 8 | b << 16` (the sink draws a
    /// Gouraud packet); unlit: None.
    pub rgb: Option<[u32; 3]>,
}

/// Where triangles go. `add` returns false when the sink is full (the triangle is counted as dropped).
pub trait TriangleSink {
    fn add(&mut self, triangle: &DrawnTriangle) -> bool;

    /// The fast path of a sink that draws flat GPU triangles (the console's ordering table): where
    /// [`Cop2::flat_packets`] writes and links its packets, in the order `add` would have received
    /// the triangles; [`commit_flat_packets`](Self::commit_flat_packets) then takes them. `None` (the
    /// default) sends every triangle through `add`.
    fn flat_packet_list(&mut self) -> Option<PacketList<'_>> {
        None
    }

    /// Takes the packets written through `flat_packet_list`: its first `words` arena words.
    fn commit_flat_packets(&mut self, _words: usize) {}

    /// The fast path of an ordering-table sink for textured or lit characters
    /// ([`super::textured::surface_packets`]): its packet list and where the current character's
    /// textures are. `None` (the default) sends such triangles through `add`.
    fn surface_packet_list(&mut self) -> Option<(PacketList<'_>, Option<&crate::vram::Placement>)> {
        None
    }

    /// Where the next character's textures are in VRAM (None: draw its materials' colours). A sink
    /// that draws textures keeps it until told otherwise; the default ignores it.
    fn place_textures(&mut self, _placement: Option<&crate::vram::Placement>) {}
}

/// What happened to a character's triangles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriangleStats {
    pub back_facing: u32,
    /// Too near the camera, too large for the GPU, or refused by a full sink.
    pub rejected: u32,
    pub drawn: u32,
}

// `Cop2::flat_packets` keeps the primitives whose NCLIP is negative.
const _: () = assert!(!FRONT_FACING_NCLIP_POSITIVE);

/// Sets up every triangle and quad of `tables` (its primitive stream) from the projected vertices
/// (`sxy`, `sz`, indexed like the tables' vertices) and hands the front-facing ones to `sink` in
/// stream order. `clip_tests: false` skips the near and span tests (the caller knows nothing can
/// fail them: `cull::Visibility::Clear`). `rgb`: a lit instance's vertex colours (`render::light`),
/// which each triangle's corners carry (then every primitive goes through `add`).
#[allow(clippy::too_many_arguments)]
pub fn emit<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    clip_tests: bool,
    sxy: &[u32],
    sz: &[u32],
    rgb: Option<&[u32]>,
    sink: &mut S,
) -> TriangleStats {
    let n = tables.vertex_count();
    // A box too near or too large on screen for `Clear` (it covers every pose of every clip) often
    // holds a pose whose projected points all pass the tests: then no triangle can fail them, and
    // the asm loops that skip them draw it (the surface loop has no tested variant).
    let clip_tests = clip_tests && !(sxy.len() >= n && sz.len() >= n && all_within_limits(&sxy[..n], &sz[..n], camera.near));
    let count = tables.triangle_count() as u32;
    let stats = |done: crate::gte::FlatPackets| TriangleStats {
        back_facing: count - done.drawn as u32 - done.rejected as u32,
        rejected: done.rejected as u32,
        drawn: done.drawn as u32,
    };
    // Textured or lit: the surface loop where the sink offers it, else the per-primitive path.
    if rgb.is_some() || tables.texture_count() > 0 {
        let words = crate::bytes::aligned_words(tables.bytes(), tables.primitives_offset(), tables.primitive_words());
        if let (Some(words), Some((mut list, placement))) = (words, sink.surface_packet_list()) {
            if rgb.is_some() || placement.is_some() {
                let uvs = placement.and_then(|_| tables.uv_words());
                let job = super::textured::SurfacePrimitives { words, sxy, sz, uvs, rgb, near: camera.near, clip_tests };
                let done = super::textured::surface_packets(gte, tables, &job, placement, &mut list);
                sink.commit_flat_packets(done.words);
                return stats(done);
            }
        }
        if rgb.is_some() {
            return emit_each(gte, tables, camera, clip_tests, sxy, sz, rgb, sink);
        }
    }
    let count = tables.triangle_count() as u32;
    let words = crate::bytes::aligned_words(
        tables.bytes(),
        tables.primitives_offset(),
        tables.primitive_words(),
    );
    if let (Some(words), true) = (words, sxy.len() >= n && sz.len() >= n) {
        if let Some(mut list) = sink.flat_packet_list() {
            let job = FlatPrimitives {
                words,
                sxy,
                sz,
                near: camera.near,
                clip_tests,
            };
            // SAFETY: `Tables::parse` checked the stream and every vertex index in it against the
            // vertex count, which `sxy` and `sz` hold.
            let done = unsafe { gte.backend_mut().flat_packets(&job, &mut list) };
            sink.commit_flat_packets(done.words);
            let (drawn, rejected) = (done.drawn as u32, done.rejected as u32);
            return TriangleStats {
                back_facing: count - drawn - rejected,
                rejected,
                drawn,
            };
        }
    }
    emit_each(gte, tables, camera, clip_tests, sxy, sz, None, sink)
}

/// `emit` one primitive at a time, read from the blob's bytes (any alignment): for sinks that take
/// triangles through `add`, and projections shorter than the vertex count (a primitive with a
/// vertex past them is rejected). The same tests and depths as `Cop2::flat_packets`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn emit_each<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    clip_tests: bool,
    sxy: &[u32],
    sz: &[u32],
    rgb: Option<&[u32]>,
    sink: &mut S,
) -> TriangleStats {
    let n = sxy.len().min(sz.len()).min(rgb.map_or(usize::MAX, <[u32]>::len));
    let mut stats = TriangleStats::default();
    // Each run's texture looked up once; UVs read as words where the blob is aligned.
    let (mut last_material, mut texture) = (u8::MAX, 0u8);
    let uv_words = tables.uv_words();
    for p in tables.primitives() {
        let triangles = p.triangle_count() as u32;
        let count = if p.quad { 4 } else { 3 };
        if p.points[..count].iter().any(|&v| v as usize >= n) {
            stats.rejected += triangles;
            continue;
        }
        let facing = p.facing.map(usize::from);
        // SAFETY: every index was just checked against both slices.
        if unsafe { gte.backend_mut().nclip_indexed(sxy, facing) } >= 0 {
            stats.back_facing += triangles;
            continue;
        }
        let colour = [p.gp0 as u8, (p.gp0 >> 8) as u8, (p.gp0 >> 16) as u8];
        if p.material != last_material {
            last_material = p.material;
            texture = tables.material_texture(p.material as usize).map_or(0, |t| t as u8 + 1);
        }
        let uv_of = |v: usize| uv_words.and_then(|w| w.get(v).copied()).unwrap_or_else(|| tables.vertex_uv(v));
        let points = p.points.map(usize::from);
        let drawn = |index: usize, corners: [usize; 3], otz: u32| DrawnTriangle {
            index: index as u16,
            xy: corners.map(|v| ScreenXY::from_word(sxy[v])),
            z: corners.map(|v| sz[v] as u16),
            otz: otz as u16,
            colour,
            texture,
            uv: if texture == 0 { [0; 3] } else { corners.map(uv_of) },
            rgb: rgb.map(|rgb| corners.map(|v| rgb[v])),
        };
        if !p.quad {
            // SAFETY: as above.
            let t = unsafe { gte.backend_mut().avsz3_indexed(sz, facing) };
            if clip_tests && !within_limits(t.sxy, t.sz, camera.near) {
                stats.rejected += 1;
                continue;
            }
            add_counted(sink, &drawn(p.first_triangle, facing, t.otz), &mut stats);
            continue;
        }
        // SAFETY: as above.
        let t = unsafe { gte.backend_mut().avsz4_indexed(sz, points) };
        let (xy, z) = (points.map(|v| sxy[v]), points.map(|v| sz[v]));
        if clip_tests && !within_limits(xy, z, camera.near) {
            stats.rejected += 2;
            continue;
        }
        add_counted(
            sink,
            &drawn(p.first_triangle, [points[0], points[1], points[2]], t.otz),
            &mut stats,
        );
        add_counted(
            sink,
            &drawn(
                p.first_triangle + 1,
                [points[1], points[2], points[3]],
                t.otz,
            ),
            &mut stats,
        );
    }
    stats
}

#[inline(always)]
fn add_counted<S: TriangleSink + ?Sized>(sink: &mut S, t: &DrawnTriangle, stats: &mut TriangleStats) {
    if sink.add(t) {
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
