//! The console's triangle sink: GPU packets linked into a `DrawList` ordering table.

use super::triangles::{shade, DrawnTriangle, TriangleSink};
use crate::console::ordering::{AddError, DrawList};
use crate::console::prim::{self, Color, Vertex};
use crate::gte::PacketList;

/// Flat: one material colour per triangle. Gouraud: each corner darkened with its depth
/// ([`shade`] between the sink's `near_z` and `far_z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    Flat,
    Gouraud { near_z: u16, far_z: u16 },
}

/// Links each triangle at depth `min(otz, DEPTHS - 2)`: the deepest entry stays free for the frame's
/// background, which must be drawn first.
pub struct OtSink<'a, const DEPTHS: usize, const WORDS: usize> {
    pub list: &'a mut DrawList<DEPTHS, WORDS>,
    pub shading: Shading,
}

impl<const DEPTHS: usize, const WORDS: usize> TriangleSink for OtSink<'_, DEPTHS, WORDS> {
    fn flat_packet_list(&mut self) -> Option<PacketList<'_>> {
        match self.shading {
            Shading::Flat => Some(self.list.packet_list(DEPTHS.saturating_sub(2))),
            Shading::Gouraud { .. } => None,
        }
    }

    fn commit_flat_packets(&mut self, words: usize) {
        self.list.commit(words);
    }

    // Inlined into the triangle loop: a call would spill the triangle to the stack, which is uncached RAM.
    #[inline(always)]
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        let depth = (t.otz as usize).min(DEPTHS.saturating_sub(2));
        let v = t.xy.map(|p| Vertex::new(p.x, p.y));
        let c = |rgb: [u8; 3]| Color::new(rgb[0], rgb[1], rgb[2]);
        let added = match self.shading {
            Shading::Flat => self.list.add_array(depth, prim::flat_triangle(c(t.colour), v)),
            Shading::Gouraud { near_z, far_z } => add_gouraud(self.list, depth, t, v, near_z, far_z),
        };
        added.is_ok()
    }
}

/// The gouraud packet, out of line: its divisions would otherwise take registers from the flat path.
#[inline(never)]
fn add_gouraud<const DEPTHS: usize, const WORDS: usize>(
    list: &mut DrawList<DEPTHS, WORDS>,
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
