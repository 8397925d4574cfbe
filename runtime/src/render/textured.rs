//! The triangle stage for textured and lit characters drawn into an ordering table: the primitive
//! stream walked run by run from its aligned words, each front face's packet written straight into
//! the packet buffer and linked at its depth, as `Cop2::flat_packets` does for flat ones.
//!
//! ```text
//! per run        the material's texture words (`vram::Placement`: CLUT, page, UV offset), or none
//! per primitive  NCLIP of its facing triangle, AVSZ3 (AVSZ4 for a quad), the near/span tests
//! packet         textured  unlit POLY_FT3 / FT4 (texel as stored)   lit POLY_GT3 / GT4 (texel x light)
//!                colour    unlit POLY_F3 / F4 (the run's GP0 word)  lit POLY_G3 / G4 (colour x light)
//! ```
//! A tiled texture's packet (`vram::Words::window` set) is one linked packet of three commands: its
//! texture window (GP0 E2h), the polygon, and E2h with no window, 2 words more: the window is global
//! GPU state and the ordering table interleaves the packets of every character, so each sets its own
//! and leaves none behind. The console's asm loop leaves tiled materials to this definition.
//!
//! A quad is one four-point packet, its points in the stream's drawing order with their UVs and
//! colours. The same depths, tests and order as [`super::triangles::emit`]'s `add` path, so a host
//! sink that collects triangles sees what the console draws (a quad as its two triangles).
//! [`surface_packets`] is the definition; on the console an asm loop (`Cop2::surface_runs`) draws
//! the runs it can, word for word the same.

use super::light::modulate;
use crate::gte::packets::within_limits;
use crate::gte::{Cop2, FlatPackets, Gte, PacketList, SurfaceRuns, LEFT_TO_CALLER, LINK_MASK, NO_TEXTURE};
use crate::tables::primitives::{run_base, unpack3, unpack_pair, RUN_HEADER_WORDS, RUN_QUADS, RUN_TRIANGLES, STREAM_END};
use crate::tables::Tables;
use crate::vram::{Placement, Words};

/// What the stage reads: the stream and the projected vertices (all indexed alike) and the optional
/// per-vertex UV words and light colours.
pub struct SurfacePrimitives<'a> {
    pub words: &'a [u32],
    pub sxy: &'a [u32],
    pub sz: &'a [u32],
    /// Each vertex's texture-relative UV word (`tables::textures`), when textures are drawn.
    pub uvs: Option<&'a [u32]>,
    /// Each vertex's light colour (`render::light`), when lit.
    pub rgb: Option<&'a [u32]>,
    pub near: u16,
    pub clip_tests: bool,
}

use crate::console::prim::{
    NO_TEXTURE_WINDOW, GOURAUD_QUAD as G4, GOURAUD_TRIANGLE as G3, TEXTURED_GOURAUD_QUAD as GT4, TEXTURED_GOURAUD_TRIANGLE as GT3, TEXTURED_QUAD as FT4,
    TEXTURED_TRIANGLE as FT3,
};
/// The texel as stored (0x80 in each channel).
const NEUTRAL: u32 = crate::console::prim::NEUTRAL.word();

/// How a run's primitives are drawn.
#[derive(Clone, Copy)]
struct RunStyle {
    /// The run's GP0 word (flat command and material colour).
    gp0: u32,
    /// The texture's words when drawn textured.
    texture: Option<Words>,
}

/// Materials whose texture words the console's asm loop takes (`Cop2::surface_runs`); a character
/// with more is drawn by the definition alone.
const MAX_LOOP_MATERIALS: usize = 32;

/// Writes and links every front-facing primitive of `job` (from `tables`, textures placed by
/// `placement`) into `out`; the drawn and rejected triangle counts and the words written. Indices
/// past the projected vertices are rejected.
///
/// This is the definition, which the host runs. On the console, where no near or span test is
/// needed and `job` holds every vertex of `tables`' own stream, the runs go through
/// `Cop2::surface_runs` (an asm loop, `gte::hw::surface_loop`; a lit untextured material's colour
/// times the light by the GTE's CC, bit for bit [`modulate`]), but for a textured material whose
/// words it cannot add, which this code draws. The packets are the same, word for word.
pub fn surface_packets<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, job: &SurfacePrimitives, placement: Option<&Placement>, out: &mut PacketList) -> FlatPackets {
    let Some(max_depth) = out.deepest() else {
        return FlatPackets::default();
    };
    let n = job.sxy.len().min(job.sz.len()).min(job.uvs.map_or(usize::MAX, <[u32]>::len)).min(job.rgb.map_or(usize::MAX, <[u32]>::len));
    let words = job.words;
    let mut textures = [[NO_TEXTURE, 0]; MAX_LOOP_MATERIALS];
    let materials = tables.material_count();
    let own_stream = crate::bytes::aligned_words(tables.bytes(), tables.primitives_offset(), tables.primitive_words()).is_some_and(|t| core::ptr::eq(t, words));
    let runs = if !job.clip_tests && own_stream && n >= tables.vertex_count() && materials <= MAX_LOOP_MATERIALS {
        // Without a placement or UV words every material is drawn untextured (as `Writer::run`
        // does): the loop then reads no UV word, and an empty slice stands for them.
        let (placed, uvs) = match (placement, job.uvs) {
            (Some(p), Some(uvs)) => (Some(p), uvs),
            _ => (None, &[][..]),
        };
        for (m, entry) in textures.iter_mut().enumerate().take(materials) {
            // The loop adds the first addend's low half to the third and fourth points' UVs.
            *entry = match placed.and_then(|p| tables.material_texture(m).map(|t| p.words(t))) {
                Some(w) if w.clut_uv < LEFT_TO_CALLER && w.uv == w.clut_uv & 0xFFFF && w.window == 0 => [w.clut_uv, w.page_uv],
                Some(_) => [LEFT_TO_CALLER, 0],
                None => [NO_TEXTURE, 0],
            };
        }
        Some(SurfaceRuns { words, sxy: job.sxy, sz: job.sz, uvs, rgb: job.rgb, textures: &textures[..materials] })
    } else {
        None
    };
    let mut w = Writer { job, out, max_depth, done: FlatPackets::default(), n };
    let mut at = 0;
    loop {
        if let Some(runs) = &runs {
            // SAFETY: `runs.words` is the tables' own stream, which `Tables::parse` checked (every
            // index below the vertex count, which every per-vertex slice holds; every material below
            // the material count, which `textures` holds); `at` is 0 or the index after a whole run;
            // `done.words` only grows while packets fit the arena.
            at = unsafe { gte.backend_mut().surface_runs(runs, at, w.out, &mut w.done) };
        }
        match w.run(gte.backend_mut(), tables, placement, at) {
            Some(next) => at = next,
            None => return w.done,
        }
    }
}

struct Writer<'j, 'o, 'a, 'b> {
    job: &'j SurfacePrimitives<'a>,
    out: &'o mut PacketList<'b>,
    max_depth: usize,
    done: FlatPackets,
    /// Vertices every per-vertex slice holds.
    n: usize,
}

impl Writer<'_, '_, '_, '_> {
    /// The run whose header is `words[at]`: its primitives in stream order; the index after it, or
    /// None at the end.
    fn run<C: Cop2 + ?Sized>(&mut self, b: &mut C, tables: &Tables, placement: Option<&Placement>, at: usize) -> Option<usize> {
        let words = self.job.words;
        let &header = words.get(at)?;
        let &gp0 = words.get(at + 1).filter(|_| header != STREAM_END)?;
        let (kind, count, material, base) = (header & 3, ((header >> 2) & 0x3FFF) as usize, (header >> 16) as u8, run_base(header));
        let at = at + RUN_HEADER_WORDS;
        let texture = match (placement, self.job.uvs) {
            (Some(p), Some(_)) => tables.material_texture(material as usize).map(|t| p.words(t)),
            _ => None,
        };
        let style = RunStyle { gp0, texture };
        let from_base = |v: [usize; 3]| v.map(|i| base + i);
        Some(match kind {
            RUN_TRIANGLES => {
                for &t in words.get(at..at + count).unwrap_or(&[]) {
                    self.triangle(b, from_base(unpack3(t)), style);
                }
                at + count
            }
            RUN_QUADS => {
                for q in words.get(at..at + 2 * count).unwrap_or(&[]).chunks_exact(2) {
                    let [a, b2, c] = from_base(unpack3(q[0]));
                    let d = base + (q[1] >> 2) as usize;
                    self.quad(b, [a, b2, c], [b2, c, a, d], style);
                }
                at + 2 * count
            }
            _ => {
                let pair = |word: u32| unpack_pair(word).map(|i| base + i);
                for pw in words.get(at..at + count + 1).unwrap_or(&[]).windows(2) {
                    let ([t0, b0], [t1, b1]) = (pair(pw[0]), pair(pw[1]));
                    self.quad(b, [t0, b1, t1], [b0, t0, b1, t1], style);
                }
                at + count + 1
            }
        })
    }

    fn triangle<C: Cop2 + ?Sized>(&mut self, gte: &mut C, v: [usize; 3], style: RunStyle) {
        if v.iter().any(|&i| i >= self.n) {
            self.done.rejected += 1;
            return;
        }
        // SAFETY: every index was just checked against the slices.
        if unsafe { gte.nclip_indexed(self.job.sxy, v) } >= 0 {
            return;
        }
        // SAFETY: as above.
        let t = unsafe { gte.avsz3_indexed(self.job.sz, v) };
        self.packet(v, t.sxy, t.sz, t.otz, style, 1);
    }

    fn quad<C: Cop2 + ?Sized>(&mut self, gte: &mut C, facing: [usize; 3], points: [usize; 4], style: RunStyle) {
        if points.iter().any(|&i| i >= self.n) {
            self.done.rejected += 2;
            return;
        }
        // SAFETY: every index was just checked (a quad's facing corners are among its points).
        if unsafe { gte.nclip_indexed(self.job.sxy, facing) } >= 0 {
            return;
        }
        let (sxy, sz) = (points.map(|p| self.job.sxy[p]), points.map(|p| self.job.sz[p]));
        let otz = crate::gte::avsz4_of(gte, sz);
        self.packet(points, sxy, sz, otz, style, 2);
    }

    /// The tests, then the packet of the primitive whose points are `v` (drawing order).
    fn packet<const N: usize>(&mut self, v: [usize; N], sxy: [u32; N], sz: [u32; N], otz: u32, style: RunStyle, triangles: usize) {
        if self.job.clip_tests && !within_limits(sxy, sz, self.job.near) {
            self.done.rejected += triangles;
            return;
        }
        let lit = self.job.rgb.map(|rgb| v.map(|i| rgb[i] & 0x00FF_FFFF));
        let quad = N == 4;
        let textured = style.texture.zip(self.job.uvs);
        // Words after the header: textured 2 a point and the command word, lit 1 more a point but
        // the first; untextured lit 2 a point, flat 1 a point and the command word.
        let len = match (textured.is_some(), lit.is_some()) {
            (true, false) => 2 * N + 1,
            (true, true) => 3 * N,
            (false, true) => 2 * N,
            (false, false) => N + 1,
        };
        // A tiled texture's window set before the polygon and reset after it.
        let window = textured.map_or(0, |(tex, _)| tex.window);
        let len = if window != 0 { len + 2 } else { len };
        let size = 1 + len;
        let done = &mut self.done;
        if self.out.arena.len() - done.words < size {
            done.rejected += triangles;
            return;
        }
        // Written straight into the packet buffer (the console has no data cache: no staging copy).
        let mut words = &mut self.out.arena[done.words + 1..][..len];
        if window != 0 {
            words[0] = window;
            words[len - 1] = NO_TEXTURE_WINDOW;
            words = &mut words[1..len - 1];
        }
        match (textured, lit) {
            (Some((tex, uvs)), _) => {
                // UV words: the CLUT's on the first, the page's on the second, the offset on the rest.
                let add = [tex.clut_uv, tex.page_uv, tex.uv, tex.uv];
                let command = match (lit.is_some(), quad) {
                    (false, false) => FT3,
                    (false, true) => FT4,
                    (true, false) => GT3,
                    (true, true) => GT4,
                };
                let mut k = 0;
                for i in 0..N {
                    if i == 0 {
                        words[0] = command | lit.map_or(NEUTRAL, |c| c[0]);
                        k = 1;
                    } else if let Some(c) = lit {
                        words[k] = c[i];
                        k += 1;
                    }
                    words[k] = sxy[i];
                    let uv = uvs[v[i]] + add[i];
                    words[k + 1] = if i < 2 { uv } else { uv & 0xFFFF };
                    k += 2;
                }
            }
            (None, Some(light)) => {
                let material = [style.gp0 as u8, (style.gp0 >> 8) as u8, (style.gp0 >> 16) as u8];
                for i in 0..N {
                    let [r, g, b] = modulate(material, light[i]);
                    let command = if i > 0 { 0 } else if quad { G4 } else { G3 };
                    words[2 * i] = command | r as u32 | (g as u32) << 8 | (b as u32) << 16;
                    words[2 * i + 1] = sxy[i];
                }
            }
            (None, None) => {
                words[0] = style.gp0;
                words[1..=N].copy_from_slice(&sxy);
            }
        }
        let z = (otz as usize).min(self.max_depth);
        let header = &mut self.out.arena[done.words];
        *header = ((len as u32) << 24) | (self.out.table[z] & LINK_MASK);
        self.out.table[z] = (header as *const u32 as usize as u32) & LINK_MASK;
        done.drawn += triangles;
        done.words += size;
    }
}
