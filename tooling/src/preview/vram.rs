//! The preview's VRAM: a character's textures uploaded where the console puts them by default
//! (`vram::Placement::default_of`), and the GPU's texel fetch from it, so that a textured triangle is
//! painted from the same words the console's packets name (texture page, CLUT, UV), not from the
//! image the importer started with.

use psxanim_runtime::tables::textures::{Rect, VRAM_HEIGHT, VRAM_WIDTH};
use psxanim_runtime::tables::Tables;
use psxanim_runtime::vram::Placement;

/// 1024 x 512 halfwords, and the placement whose words the packets carry.
pub struct Vram {
    halfwords: Vec<u16>,
    pub placement: Placement,
}

impl Vram {
    /// `tables`' textures at their default places (None without textures, or when they do not fit).
    pub fn of(tables: &Tables) -> Option<Vram> {
        if tables.texture_count() == 0 {
            return None;
        }
        let placement = Placement::default_of(tables, &[]).ok()?;
        let mut vram = Vram { halfwords: vec![0; VRAM_WIDTH as usize * VRAM_HEIGHT as usize], placement };
        vram.upload_all(tables, &placement);
        Some(vram)
    }

    /// An empty VRAM for several characters' textures ([`upload_all`](Self::upload_all) each one
    /// with its own placement); `placement` is the one [`Vram::of`] would use, here `first`'s.
    pub fn empty(first: Placement) -> Vram {
        Vram { halfwords: vec![0; VRAM_WIDTH as usize * VRAM_HEIGHT as usize], placement: first }
    }

    /// Uploads `tables`' textures where `placement` puts them.
    pub fn upload_all(&mut self, tables: &Tables, placement: &Placement) {
        for (rect, bytes) in placement.uploads(tables) {
            self.upload(rect, bytes);
        }
    }

    fn upload(&mut self, r: Rect, bytes: &[u8]) {
        for (i, h) in bytes.chunks_exact(2).take(r.halfwords()).enumerate() {
            let (x, y) = (r.x as usize + i % r.w as usize, r.y as usize + i / r.w as usize);
            self.halfwords[y * VRAM_WIDTH as usize + x] = u16::from_le_bytes([h[0], h[1]]);
        }
    }

    fn at(&self, x: usize, y: usize) -> u16 {
        self.halfwords[(y % VRAM_HEIGHT as usize) * VRAM_WIDTH as usize + x % VRAM_WIDTH as usize]
    }

    /// The texel (u, v) of texture page `page` through CLUT `clut` (the packets' attribute words), as
    /// the GPU reads it: None for the transparent 0x0000.
    pub fn texel(&self, page: u16, clut: u16, u: u8, v: u8) -> Option<u16> {
        let (px, py) = ((page & 0xF) as usize * 64, ((page >> 4) & 1) as usize * 256);
        let (cx, cy) = ((clut & 0x3F) as usize * 16, (clut >> 6) as usize);
        let (u, v) = (u as usize, v as usize);
        let c = match (page >> 7) & 3 {
            0 => self.at(cx + ((self.at(px + u / 4, py + v) >> (4 * (u % 4))) & 0xF) as usize, cy),
            1 => self.at(cx + ((self.at(px + u / 2, py + v) >> (8 * (u % 2))) & 0xFF) as usize, cy),
            _ => self.at(px + u, py + v),
        };
        (c != 0).then_some(c)
    }
}

/// The texel coordinates the GPU reads for (`u`, `v`) through texture window `window` (a GP0(E2h)
/// word, 0 for none): psx-spx "GPU Texture Window", `texel = (texel AND NOT (mask * 8)) OR ((offset
/// AND mask) * 8)` on each axis, masks and offsets in 8-texel units (bits 0-4 mask x, 5-9 mask y,
/// 10-14 offset x, 15-19 offset y). After the interpolation, before the fetch: a tiled texture
/// repeats.
pub fn window_texel(window: u32, u: u8, v: u8) -> [u8; 2] {
    let field = |shift: u32| ((window >> shift) & 31) as u8;
    let axis = |t: u8, mask: u8, offset: u8| (t & !(mask << 3)) | ((offset & mask) << 3);
    [axis(u, field(0), field(10)), axis(v, field(5), field(15))]
}

/// A 15-bit texel as the display shows it (5 bits a channel widened to 8 by repeating its high bits),
/// the texel drawn as stored (the packets' neutral colour 0x80).
pub fn texel_rgb(c: u16) -> [u8; 3] {
    [c & 31, (c >> 5) & 31, (c >> 10) & 31].map(|v| ((v << 3) | (v >> 2)) as u8)
}
