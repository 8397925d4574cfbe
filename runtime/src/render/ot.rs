//! The console's triangle sink: GPU packets linked into an ordering table, the game's own
//! ([`FramePackets::new`] over its table and packet buffer) or an example's `DrawList`.
//!
//! Flat shading takes the fast path: one asm loop (`Cop2::flat_packets`) writes every front-facing
//! primitive's packet straight into the buffer, 5 words a triangle (header, colour+command, three
//! vertices) and 6 a quad drawn as one POLY_F4; gouraud packets (7 words) are written one by one.

use super::triangles::{shade, DrawnTriangle, TriangleSink};
use crate::console::ordering::{AddError, FramePackets};
use crate::console::prim::{self, Color, Vertex};
use crate::gte::PacketList;
use crate::vram::Placement;

/// Flat: one material colour per triangle. Gouraud: each corner darkened with its depth
/// ([`shade`] between the sink's `near_z` and `far_z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    Flat,
    Gouraud { near_z: u16, far_z: u16 },
}

/// Links each triangle at depth `min(otz, deepest)`, `otz` being the GTE's AVSZ3/AVSZ4 result
/// scaled by the tables' depth factor (`Camera`'s ZSF3/ZSF4).
pub struct OtSink<'a> {
    pub packets: FramePackets<'a>,
    pub shading: Shading,
    /// The deepest entry used; by default the table's last but one, so that the deepest entry stays
    /// free for the frame's background, which must be drawn first.
    pub deepest: usize,
    /// The current character's textures (`place_textures`): its textured triangles are drawn
    /// textured (POLY_FT3, the texel as stored); None draws every triangle in its colour.
    pub textures: Option<Placement>,
}

impl<'a> OtSink<'a> {
    pub fn new(packets: FramePackets<'a>, shading: Shading) -> Self {
        let deepest = packets.depths().saturating_sub(2);
        OtSink { packets, shading, deepest, textures: None }
    }

    /// Where the next character's textures are (`vram::Placement`); None draws its colours. Set it
    /// before each character: textures belong to one character's tables.
    pub fn place_textures(&mut self, placement: Option<&Placement>) {
        self.textures = placement.copied();
    }
}

impl TriangleSink for OtSink<'_> {
    fn flat_packet_list(&mut self) -> Option<PacketList<'_>> {
        match (self.shading, &self.textures) {
            (Shading::Flat, None) => Some(self.packets.packet_list(self.deepest)),
            _ => None,
        }
    }

    fn place_textures(&mut self, placement: Option<&Placement>) {
        OtSink::place_textures(self, placement);
    }

    fn surface_packet_list(&mut self) -> Option<(PacketList<'_>, Option<&Placement>)> {
        match self.shading {
            Shading::Flat => Some((self.packets.packet_list(self.deepest), self.textures.as_ref())),
            Shading::Gouraud { .. } => None,
        }
    }

    fn commit_flat_packets(&mut self, words: usize) {
        self.packets.commit(words);
    }

    // Inlined into the triangle loop: a call would spill the triangle to the stack, which is uncached RAM.
    #[inline(always)]
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        let depth = (t.otz as usize).min(self.deepest);
        let v = t.xy.map(|p| Vertex::new(p.x, p.y));
        let c = |rgb: [u8; 3]| Color::new(rgb[0], rgb[1], rgb[2]);
        if let (Some(p), true) = (&self.textures, t.texture != 0) {
            return add_textured(&mut self.packets, depth, t, v, p).is_ok();
        }
        if let Some(rgb) = t.rgb {
            // Lit, untextured: the material's colour times each corner's light.
            let colours = rgb.map(|l| c(super::light::modulate(t.colour, l)));
            return self.packets.add_array(depth, prim::gouraud_triangle(colours, v)).is_ok();
        }
        let added = match self.shading {
            Shading::Flat => self.packets.add_array(depth, prim::flat_triangle(c(t.colour), v)),
            Shading::Gouraud { near_z, far_z } => add_gouraud(&mut self.packets, depth, t, v, near_z, far_z),
        };
        added.is_ok()
    }
}

/// The textured packet: each corner's UV plus its texture's place (CLUT word, page word, the
/// texture's corner in its page); out of line, like the gouraud one. A tiled texture's polygon goes
/// between its texture window and the reset of it, in one packet (as `render::textured` writes it).
#[inline(never)]
fn add_textured(list: &mut FramePackets, depth: usize, t: &DrawnTriangle, v: [Vertex; 3], p: &Placement) -> Result<(), AddError> {
    let w = p.words(t.texture as usize - 1);
    let uv = w.triangle(t.uv);
    // Lit: each corner's texel times its light colour.
    let lit = t.rgb.map(|rgb| rgb.map(|l| Color::new(l as u8, (l >> 8) as u8, (l >> 16) as u8)));
    match (lit, w.window) {
        (Some(c), 0) => list.add_array(depth, prim::textured_gouraud_triangle(c, v, uv)),
        (None, 0) => list.add_array(depth, prim::textured_triangle(prim::NEUTRAL, v, uv)),
        (Some(c), window) => add_windowed(list, depth, window, &prim::textured_gouraud_triangle(c, v, uv)),
        (None, window) => add_windowed(list, depth, window, &prim::textured_triangle(prim::NEUTRAL, v, uv)),
    }
}

/// `polygon` between GP0(E2h) `window` and E2h with no window, as one packet.
fn add_windowed(list: &mut FramePackets, depth: usize, window: u32, polygon: &[u32]) -> Result<(), AddError> {
    // The longest polygon here: a textured Gouraud triangle's 9 words.
    let mut words = [0u32; 11];
    let n = polygon.len().min(9);
    words[0] = window;
    words[1..=n].copy_from_slice(&polygon[..n]);
    words[n + 1] = prim::NO_TEXTURE_WINDOW;
    list.add(depth, &words[..n + 2])
}

/// The gouraud packet, out of line: its divisions would otherwise take registers from the flat path.
#[inline(never)]
fn add_gouraud(
    list: &mut FramePackets,
    depth: usize,
    t: &DrawnTriangle,
    v: [Vertex; 3],
    near_z: u16,
    far_z: u16,
) -> Result<(), AddError> {
    let colours = t.z.map(|z| {
        let [r, g, b] = shade(t.colour, z, near_z, far_z);
        Color::new(r, g, b)
    });
    list.add_array(depth, prim::gouraud_triangle(colours, v))
}
