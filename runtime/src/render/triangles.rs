//! Triangle set-up: back faces culled by NCLIP, depth by AVSZ3, colour from the material, handed to a
//! [`TriangleSink`] (the console's ordering table, or a host collector).
//!
//! A sink that draws flat triangles into a GPU ordering table (the console's `OtSink`) offers its
//! table and free packet words ([`TriangleSink::flat_packet_list`]); the whole stage is then one
//! [`Cop2::flat_packets`] loop that writes and links the packets itself, with no per-triangle
//! round trip through the CPU. Any other sink gets [`DrawnTriangle`]s through `add`, in the same
//! order and with the same tests, so the host knows exactly what the console draws.
//!
//! A quad (two triangles the tables mark as one planar quad, `tables::QUAD_WITH_NEXT`) is culled by
//! its first triangle's NCLIP and depth-sorted by AVSZ4 of its four vertices; the packet path draws
//! it as one four-point polygon, `add` gets its two triangles with that depth.
//!
//! A front face is rejected when a vertex is nearer than the camera's near depth or when it is
//! larger than the GPU draws. A character whose box the cull found clear of both
//! (`cull::Visibility::Clear`: the usual case) skips those tests, on both paths.

use super::camera::Camera;
use crate::gte::{Cop2, FlatTriangles, Gte, PacketList, ScreenTriangle, ScreenXY, MAX_SPAN_X, MAX_SPAN_Y, QUAD_WORD_BIT};
use crate::tables::{Tables, TRIANGLE_SIZE};

/// NCLIP sign of a triangle facing the camera. The importer keeps the source winding (counter-clockwise
/// seen from outside); the change to the PlayStation's axes flips Y and Z together, a rotation, so
/// front faces stay counter-clockwise on the Y-down screen, where NCLIP is negative. (Checked on the
/// imported fixture by the xtask test `the_triangles_kept_are_nearer_than_the_ones_culled`.)
pub const FRONT_FACING_NCLIP_POSITIVE: bool = false;

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

    /// The fast path of a sink that draws flat GPU triangles (the console's ordering table): where
    /// [`Cop2::flat_packets`] writes and links its packets, in the order `add` would have received
    /// the triangles; [`commit_flat_packets`](Self::commit_flat_packets) then takes them. `None` (the
    /// default) sends every triangle through `add`.
    fn flat_packet_list(&mut self) -> Option<PacketList<'_>> {
        None
    }

    /// Takes the packets written through `flat_packet_list`: its first `words` arena words.
    fn commit_flat_packets(&mut self, _words: usize) {}
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

/// No side longer than the GPU draws (x span at most `MAX_SPAN_X`, y span at most `MAX_SPAN_Y`).
///
/// First a box test without branches: a box `MAX_SPAN + 1` wide around `center` holds every vertex
/// when each biased coordinate is in `0..=MAX_SPAN`, which one OR and one shift test for all three
/// (a coordinate outside has a bit above, or is negative). That implies the exact test, which runs
/// only for triangles that cross the box.
#[inline(always)]
fn span_ok<const N: usize>(xy: &[u32; N], center: (i16, i16)) -> bool {
    let bias_x = (MAX_SPAN_X + 1) / 2 - center.0 as i32;
    let bias_y = (MAX_SPAN_Y + 1) / 2 - center.1 as i32;
    let x = xy.iter().fold(0, |o, &w| o | (w as u16 as i16 as i32 + bias_x) as u32);
    let y = xy.iter().fold(0, |o, &w| o | ((w as i32 >> 16) + bias_y) as u32);
    let outside = (x & !(MAX_SPAN_X as u32)) | (y & !(MAX_SPAN_Y as u32));
    outside == 0 || span_exact(xy)
}

/// The span test proper: every pairwise difference within the limit (out of line: it is rare, and
/// inlined it would take registers from the common path).
#[inline(never)]
fn span_exact(xy: &[u32]) -> bool {
    let span = |c: &dyn Fn(u32) -> i32| {
        let (lo, hi) = xy.iter().fold((i32::MAX, i32::MIN), |(lo, hi), &w| (lo.min(c(w)), hi.max(c(w))));
        hi - lo
    };
    span(&|w| w as u16 as i16 as i32) <= MAX_SPAN_X && span(&|w| (w as i32) >> 16) <= MAX_SPAN_Y
}

/// No vertex nearer than `near`: depths are 0..=0xFFFF, so `z - near` is negative exactly for a vertex
/// too near, and one sign test covers all three.
#[inline(always)]
fn near_ok<const N: usize>(z: &[u32; N], near: u16) -> bool {
    let near = near as i32;
    z.iter().fold(0, |o, &z| o | (z as i32 - near)) >= 0
}

/// Colour of a material word (`r | g << 8 | b << 16`, pad byte ignored).
#[inline(always)]
fn colour_of(material: u32) -> [u8; 3] {
    [material as u8, (material >> 8) as u8, (material >> 16) as u8]
}

/// The vertex indices of a triangle entry (`a | b << 16`, `c | material << 16`).
#[inline(always)]
fn indices(ab: u32, cm: u32) -> [usize; 3] {
    [(ab & 0xFFFF) as usize, (ab >> 16) as usize, (cm & 0xFFFF) as usize]
}

// `Cop2::skip_back_faces` and `Cop2::flat_packets` keep the triangles whose NCLIP is negative.
const _: () = assert!(!FRONT_FACING_NCLIP_POSITIVE);

/// Sets up every triangle of `tables` from the projected vertices (`sxy`, `sz`, indexed like the
/// tables' vertices) and hands the front-facing ones to `sink` in table order. `clip_tests: false`
/// skips the near and span tests (the caller knows no triangle can fail them:
/// `cull::Visibility::Clear`).
pub fn emit<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    clip_tests: bool,
    sxy: &[u32],
    sz: &[u32],
    sink: &mut S,
) -> TriangleStats {
    let bytes = tables.bytes();
    let count = tables.triangle_count();
    let n = tables.vertex_count();
    let words = super::project::aligned_words(bytes, tables.triangles_offset(), 2 * count);
    let materials = super::project::aligned_words(bytes, tables.materials_offset(), tables.material_count());
    let (Some(words), Some(materials)) = (words, materials) else {
        return emit_bytes(gte, tables, camera, clip_tests, sxy, sz, sink);
    };
    if sxy.len() < n || sz.len() < n {
        return emit_bytes(gte, tables, camera, clip_tests, sxy, sz, sink);
    }
    if let Some(mut list) = sink.flat_packet_list() {
        let job = FlatTriangles { triangles: words, sxy, sz, materials, near: camera.near, clip_tests, quads: tables.quad_count() > 0 };
        // SAFETY: `Tables::parse` checked every triangle's vertex indices against the vertex count,
        // which `sxy` and `sz` hold, and its material index against the material count.
        let done = unsafe { gte.backend_mut().flat_packets(&job, &mut list) };
        sink.commit_flat_packets(done.words);
        let (drawn, rejected) = (done.drawn as u32, done.rejected as u32);
        return TriangleStats { back_facing: count as u32 - drawn - rejected, rejected, drawn };
    }
    // SAFETY: `Tables::parse` checked every triangle's vertex indices against the vertex count, which
    // `sxy` and `sz` hold, and its material index against the material count.
    unsafe { emit_words(gte, camera, clip_tests, words, count, sxy, sz, materials, sink) }
}

/// The triangle loop of `emit` on its own, so that its registers are not shared with the caller's.
///
/// # Safety
/// Every vertex index in `words` is below `sxy.len()` and `sz.len()`, every material index below
/// `materials.len()`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn emit_words<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    camera: &Camera,
    clip_tests: bool,
    words: &[u32],
    count: usize,
    sxy: &[u32],
    sz: &[u32],
    materials: &[u32],
    sink: &mut S,
) -> TriangleStats {
    let mut stats = TriangleStats::default();
    let mut at = 0;
    while at < count {
        // SAFETY: the caller's contract.
        at += unsafe { gte.backend_mut().skip_back_faces(&words[2 * at..], sxy) };
        let Some(&[ab, cm]) = words.get(2 * at..2 * at + 2) else {
            break;
        };
        let fourth = quad_fourth(words, at, cm);
        // SAFETY: the caller's contract.
        unsafe { front_face(gte, camera, clip_tests, at, (ab, cm), fourth, sxy, sz, materials, sink, &mut stats) };
        at += if fourth.is_some() { 2 } else { 1 };
    }
    stats.back_facing = count as u32 - stats.rejected - stats.drawn;
    stats
}

/// The fourth vertex of the quad that triangle `at` (second word `cm`) opens, if it opens one.
#[inline(always)]
fn quad_fourth(words: &[u32], at: usize, cm: u32) -> Option<usize> {
    if cm & QUAD_WORD_BIT == 0 {
        return None;
    }
    words.get(2 * at + 3).map(|&dm| (dm & 0xFFFF) as usize)
}

/// `emit` for a blob that does not sit 4-aligned in memory, or projections shorter than the tables'
/// vertex count: the same results, read byte by byte and with every index checked.
fn emit_bytes<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    clip_tests: bool,
    sxy: &[u32],
    sz: &[u32],
    sink: &mut S,
) -> TriangleStats {
    let bytes = tables.bytes();
    let base = tables.triangles_offset();
    let mut materials = [0u32; MATERIALS_CACHED];
    for (m, w) in materials.iter_mut().enumerate().take(tables.material_count()) {
        let [r, g, b] = tables.material(m);
        *w = r as u32 | (g as u32) << 8 | (b as u32) << 16;
    }
    let materials = &materials[..tables.material_count().min(MATERIALS_CACHED)];
    let n = sxy.len().min(sz.len());
    let count = tables.triangle_count();
    let mut stats = TriangleStats::default();
    let mut index = 0;
    while index < count {
        let o = base + index * TRIANGLE_SIZE;
        let (ab, cm) = (word(bytes, o), word(bytes, o + 4));
        let fourth = if cm & QUAD_WORD_BIT != 0 && index + 1 < count { Some((word(bytes, o + 12) & 0xFFFF) as usize) } else { None };
        let triangles = if fourth.is_some() { 2 } else { 1 };
        index += triangles as usize;
        let v = indices(ab, cm);
        if v.iter().chain(&fourth).any(|&v| v >= n) || ((cm >> 16) & 0xFF) as usize >= materials.len() {
            stats.rejected += triangles;
            continue;
        }
        // SAFETY: every index was just checked against both slices and the material table.
        if unsafe { gte.backend_mut().nclip_indexed(sxy, v) } >= 0 {
            stats.back_facing += triangles;
            continue;
        }
        // SAFETY: as above.
        let first = index - triangles as usize;
        unsafe { front_face(gte, camera, clip_tests, first, (ab, cm), fourth, sxy, sz, materials, sink, &mut stats) };
    }
    stats
}

/// Materials `emit_bytes` reads (a triangle's material is a byte).
const MATERIALS_CACHED: usize = 256;

/// One front face, whose SXY0..2 the GTE holds from NCLIP: `words` are its table entry, `fourth` the
/// fourth vertex when it opens a quad, `materials` the material words (`r | g << 8 | b << 16`). Depth
/// by AVSZ3 (a quad: AVSZ4), then (with `clip_tests`) the near and span tests, then the sink (a
/// quad's two triangles, each counted).
///
/// # Safety
/// The vertex indices are below `sxy.len()` and `sz.len()`, the material index below
/// `materials.len()`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn front_face<B: Cop2, S: TriangleSink + ?Sized>(
    gte: &mut Gte<B>,
    camera: &Camera,
    clip_tests: bool,
    index: usize,
    (ab, cm): (u32, u32),
    fourth: Option<usize>,
    sxy: &[u32],
    sz: &[u32],
    materials: &[u32],
    sink: &mut S,
    stats: &mut TriangleStats,
) {
    let v = indices(ab, cm);
    // SAFETY: the caller's contract.
    let material = unsafe { *materials.get_unchecked(((cm >> 16) & 0xFF) as usize) };
    let Some(d) = fourth else {
        // SAFETY: the caller's contract.
        let t = unsafe { gte.backend_mut().avsz3_indexed(sz, v) };
        if clip_tests && (!near_ok(&t.sz, camera.near) || !span_ok(&t.sxy, camera.center)) {
            stats.rejected += 1;
            return;
        }
        add_counted(sink, &drawn(index, &t, material), stats);
        return;
    };
    // SAFETY: the caller's contract.
    let (t, xy_d, z_d) = unsafe { (gte.backend_mut().avsz4_indexed(sz, [d, v[0], v[1], v[2]]), *sxy.get_unchecked(d), *sz.get_unchecked(d)) };
    let xy = [t.sxy[0], t.sxy[1], t.sxy[2], xy_d];
    if clip_tests && (!near_ok(&[t.sz[0], t.sz[1], t.sz[2], z_d], camera.near) || !span_ok(&xy, camera.center)) {
        stats.rejected += 2;
        return;
    }
    // The second triangle (a, c, d): a and c from the GTE, d as loaded.
    let second = ScreenTriangle { sxy: [xy[0], xy[2], xy_d], sz: [t.sz[0], t.sz[2], z_d], otz: t.otz };
    add_counted(sink, &drawn(index, &t, material), stats);
    add_counted(sink, &drawn(index + 1, &second, material), stats);
}

/// The sink's triangle for table entry `index`.
#[inline(always)]
fn drawn(index: usize, t: &ScreenTriangle, material: u32) -> DrawnTriangle {
    DrawnTriangle {
        index: index as u16,
        xy: t.sxy.map(ScreenXY::from_word),
        z: t.sz.map(|z| z as u16),
        otz: t.otz as u16,
        colour: colour_of(material),
    }
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
