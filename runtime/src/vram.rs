//! Where a character's textures live in VRAM, chosen by the game: the one place that turns a texture's
//! rectangle into the words a textured packet carries.
//!
//! A blob stores texture-relative UVs and a default place for each texture and CLUT (outside two
//! 320 x 240 frame buffers; `psxanim import` and `inspect` state it). A game keeps that
//! ([`Placement::default_of`]) or puts each texture and CLUT where its own VRAM plan has room
//! ([`Placement::new`]), then uploads [`Placement::uploads`] once at start-up, through its own GPU DMA
//! or `console::gpu::load_image`. The renderer asks the placement for a material's words:
//!
//! ```text
//! clut word   the CLUT's place, (x / 16) | y << 6, in the first UV word's high half
//! page word   the texture page (x / 64, y / 256) and colour mode, in the second UV word's high half
//! uv offset   where the texture sits inside its page: (x % 64) * texels per halfword | (y % 256) << 8,
//!             added to each vertex's texture-relative u | v << 8 (no carry: a texture fits its page)
//! ```
//! so a packet's UV word is one add: `vertex uv + (clut or page word << 16 | uv offset)`.
//!
//! A tiled texture (`Texture::tiled`) is drawn through the GPU's texture window instead: its UV
//! offset is 0 (its vertices' UVs may reach past its size, up to 255, and a carry would spill into
//! the CLUT word) and [`Words::window`] is the GP0(E2h) word whose offset is its corner in the page,
//! which must be a multiple of its size ([`Rect::fits_window`]; [`Placement::new`] refuses another
//! place, [`Placement::first_fit`] finds one). The packet sets that window and restores it.
//!
//! [`Placement::new`] refuses what would draw garbage: a texture outside VRAM or one whose texels
//! lie further than 256 from its texture page's corner (the UVs' reach), a tiled texture off its
//! window grid, a CLUT off its 16-unit grid, any two of the character's rectangles overlapping, or one
//! overlapping an area the game reserves (its frame buffers). Nothing here touches the hardware.

use crate::console::prim::{texture_window, NO_TEXTURE_WINDOW};
use crate::tables::textures::{Rect, Texture, CLUT_X_UNIT, MAX_TEXTURES, PAGE_HEIGHT, PAGE_WIDTH, VRAM_HEIGHT, VRAM_WIDTH};
use crate::tables::Tables;

/// Where one texture and its CLUT go (the CLUT's place is ignored for a 15-bit texture).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub image_x: u16,
    pub image_y: u16,
    pub clut_x: u16,
    pub clut_y: u16,
}

/// Why a placement is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementError {
    /// The game gave `given` places for `textures` textures.
    WrongCount { given: usize, textures: usize },
    /// Texture `texture`'s image at `rect` is outside VRAM or crosses a texture page's edge.
    ImageOutside { texture: usize, rect: Rect },
    /// Texture `texture`'s CLUT at `rect` is outside VRAM or its x is no multiple of 16.
    ClutOutside { texture: usize, rect: Rect },
    /// Two of the character's rectangles overlap (texture indices; `clut` tells which is a CLUT).
    Overlap { a: usize, a_clut: bool, b: usize, b_clut: bool },
    /// Texture `texture`'s image (or CLUT) overlaps the reserved rectangle `reserved`.
    Reserved { texture: usize, clut: bool, reserved: Rect },
    /// The tables' texture section did not read (it was checked at parse, so: not the same tables).
    Tables,
    /// Tiled texture `texture`'s image at `rect` does not start at a multiple of its size within its
    /// texture page, where the texture window's offset could name its corner.
    WindowMisaligned { texture: usize, rect: Rect },
}

impl PlacementError {
    /// A number per kind, 1 up in declaration order (what a game's record can hold).
    pub fn code(&self) -> u32 {
        match self {
            PlacementError::WrongCount { .. } => 1,
            PlacementError::ImageOutside { .. } => 2,
            PlacementError::ClutOutside { .. } => 3,
            PlacementError::Overlap { .. } => 4,
            PlacementError::Reserved { .. } => 5,
            PlacementError::Tables => 6,
            PlacementError::WindowMisaligned { .. } => 7,
        }
    }
}

/// The packet words of one placed texture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Words {
    /// The first UV word's addend: the CLUT word << 16 | the UV offset.
    pub clut_uv: u32,
    /// The second UV word's addend: the texture-page word << 16 | the UV offset.
    pub page_uv: u32,
    /// The UV offset alone (the third UV word's addend).
    pub uv: u32,
    /// A tiled texture's GP0(E2h) texture-window word (`prim::texture_window`), which its packets set
    /// before the polygon and reset after it; 0 for a texture drawn without a window.
    pub window: u32,
}

impl Words {
    /// A triangle's three packet UV words from its corners' texture-relative `uv` words.
    pub const fn triangle(&self, uv: [u32; 3]) -> [u32; 3] {
        [uv[0] + self.clut_uv, uv[1] + self.page_uv, uv[2] + self.uv]
    }
}

/// The places of a character's textures, checked, and the packet words they give.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    count: usize,
    rects: [(Rect, Option<Rect>); MAX_TEXTURES],
    words: [Words; MAX_TEXTURES],
}

impl Placement {
    /// The places the blob proposes (checked at parse, and again here against `reserved`).
    pub fn default_of(tables: &Tables, reserved: &[Rect]) -> Result<Placement, PlacementError> {
        let mut places = [Place::default(); MAX_TEXTURES];
        let count = tables.texture_count();
        for (i, p) in places.iter_mut().enumerate().take(count) {
            let t = tables.texture(i).map_err(|_| PlacementError::Tables)?;
            let clut = t.clut_at.unwrap_or_default();
            *p = Place { image_x: t.image_at.x, image_y: t.image_at.y, clut_x: clut.x, clut_y: clut.y };
        }
        Placement::new(tables, &places[..count], reserved)
    }

    /// Each texture where the blob proposes if that is free (apart from `taken`: the game's frame
    /// buffers and the textures already placed, [`Placement::taken`]), else at the first free place:
    /// images scanned page row by page row, left to right in 16-unit steps, top to bottom in 8-row
    /// steps; CLUTs from row 480 down, then from row 0. How a game with several textured characters
    /// keeps each one's textures apart (each blob proposes its places alone).
    pub fn first_fit(tables: &Tables, taken: &[Rect]) -> Result<Placement, PlacementError> {
        let count = tables.texture_count();
        let mut places = [Place::default(); MAX_TEXTURES];
        let mut mine = [Rect::default(); 2 * MAX_TEXTURES];
        let mut n = 0;
        for (i, p) in places.iter_mut().enumerate().take(count) {
            let t = tables.texture(i).map_err(|_| PlacementError::Tables)?;
            let free = |r: &Rect, mine: &[Rect]| r.inside_vram() && !taken.iter().chain(mine).any(|o| o.overlaps(r));
            let image = core::iter::once(t.image_at)
                .chain((0..2u16).flat_map(|row| {
                    (0..VRAM_WIDTH / 16).flat_map(move |x| {
                        (0..PAGE_HEIGHT / 8).map(move |y| Rect { x: 16 * x, y: row * PAGE_HEIGHT + 8 * y, ..t.image_at })
                    })
                }))
                .find(|r| r.fits_texture_page(t.depth, t.width) && (!t.tiled || r.fits_window(t.depth, t.width)) && free(r, &mine[..n]))
                .ok_or(PlacementError::ImageOutside { texture: i, rect: t.image_at })?;
            mine[n] = image;
            n += 1;
            *p = Place { image_x: image.x, image_y: image.y, ..Place::default() };
            if let Some(c) = t.clut_at {
                let clut = core::iter::once(c)
                    .chain((0..VRAM_HEIGHT).flat_map(|y| {
                        let y = (y + 480) % VRAM_HEIGHT;
                        (0..VRAM_WIDTH / CLUT_X_UNIT).map(move |x| Rect { x: CLUT_X_UNIT * x, y, ..c })
                    }))
                    .find(|r| free(r, &mine[..n]))
                    .ok_or(PlacementError::ClutOutside { texture: i, rect: c })?;
                mine[n] = clut;
                n += 1;
                (p.clut_x, p.clut_y) = (clut.x, clut.y);
            }
        }
        Placement::new(tables, &places[..count], taken)
    }

    /// Every rectangle this placement takes (images and CLUTs), for the next [`Placement::first_fit`].
    pub fn taken(&self) -> impl Iterator<Item = Rect> + '_ {
        self.rects[..self.count].iter().flat_map(|(image, clut)| [Some(*image), *clut]).flatten()
    }

    /// `places[i]` for texture `i`: every rectangle inside VRAM, each image inside one texture page
    /// (a tiled one at a multiple of its size in it), CLUTs on their grid, nothing overlapping another
    /// or a `reserved` rectangle.
    pub fn new(tables: &Tables, places: &[Place], reserved: &[Rect]) -> Result<Placement, PlacementError> {
        let count = tables.texture_count();
        if places.len() != count {
            return Err(PlacementError::WrongCount { given: places.len(), textures: count });
        }
        let mut out = Placement { count, rects: [(Rect::default(), None); MAX_TEXTURES], words: [Words::default(); MAX_TEXTURES] };
        for (i, p) in places.iter().enumerate() {
            let t = tables.texture(i).map_err(|_| PlacementError::Tables)?;
            let image = Rect { x: p.image_x, y: p.image_y, w: t.image_width(), h: t.height };
            if !image.inside_vram() || !image.fits_texture_page(t.depth, t.width) {
                return Err(PlacementError::ImageOutside { texture: i, rect: image });
            }
            if t.tiled && !image.fits_window(t.depth, t.width) {
                return Err(PlacementError::WindowMisaligned { texture: i, rect: image });
            }
            let clut = t.clut_at.map(|c| Rect { x: p.clut_x, y: p.clut_y, ..c });
            if let Some(c) = clut {
                if !c.inside_vram() || c.x % CLUT_X_UNIT != 0 {
                    return Err(PlacementError::ClutOutside { texture: i, rect: c });
                }
            }
            out.rects[i] = (image, clut);
            out.words[i] = words_of(&t, image, clut);
        }
        out.check_apart(reserved)?;
        Ok(out)
    }

    fn check_apart(&self, reserved: &[Rect]) -> Result<(), PlacementError> {
        let rects = || {
            self.rects[..self.count]
                .iter()
                .enumerate()
                .flat_map(|(i, (image, clut))| [Some((i, false, *image)), clut.map(|c| (i, true, c))])
                .flatten()
        };
        for (n, (a, a_clut, ra)) in rects().enumerate() {
            if let Some(r) = reserved.iter().find(|r| r.overlaps(&ra)) {
                return Err(PlacementError::Reserved { texture: a, clut: a_clut, reserved: *r });
            }
            if let Some((b, b_clut, _)) = rects().skip(n + 1).find(|(_, _, rb)| rb.overlaps(&ra)) {
                return Err(PlacementError::Overlap { a, a_clut, b, b_clut });
            }
        }
        Ok(())
    }

    pub fn texture_count(&self) -> usize {
        self.count
    }

    /// Texture `index`'s image and CLUT rectangles.
    pub fn rects(&self, index: usize) -> Option<(Rect, Option<Rect>)> {
        self.rects[..self.count].get(index).copied()
    }

    /// The packet words of texture `index` (zero words past the count).
    #[inline(always)]
    pub fn words(&self, index: usize) -> Words {
        self.words[..self.count].get(index).copied().unwrap_or_default()
    }

    /// What to upload once: each rectangle and the blob bytes (little-endian halfwords, row by row)
    /// that fill it, images then CLUTs.
    pub fn uploads<'a>(&self, tables: &Tables<'a>) -> impl Iterator<Item = (Rect, &'a [u8])> + 'a {
        let (tables, rects) = (*tables, self.rects);
        (0..self.count).flat_map(move |i| {
            let t = tables.texture(i).ok();
            let (image, clut) = rects[i];
            let image = t.map(|t| (image, t.image));
            let clut = t.and_then(|t| clut.map(|c| (c, t.clut)));
            [image, clut].into_iter().flatten()
        })
    }
}

/// The CLUT word, page word, UV offset and texture window of texture `t` at `image` (CLUT at `clut`).
/// A tiled texture's corner goes into the window, not the UVs.
pub fn words_of(t: &Texture, image: Rect, clut: Option<Rect>) -> Words {
    let clut_word = clut.map_or(0, |c| (c.x / CLUT_X_UNIT) as u32 | (c.y as u32) << 6);
    let page = page_word(image.x, image.y, t.depth.page_mode());
    let (u, v) = ((image.x % PAGE_WIDTH) * t.depth.per_halfword(), image.y % PAGE_HEIGHT);
    let (uv, window) = match t.tiled {
        false => (u as u32 | (v as u32) << 8, 0),
        true => match texture_window(t.width, t.height, u, v) {
            NO_TEXTURE_WINDOW => (0, 0),
            window => (0, window),
        },
    };
    Words { clut_uv: clut_word << 16 | uv, page_uv: (page as u32) << 16 | uv, uv, window }
}

/// A texture-page attribute: page x (bits 0-3), page y (bit 4), semi-transparency 0 (bits 5-6),
/// colour mode (bits 7-8).
pub const fn page_word(x: u16, y: u16, mode: u16) -> u16 {
    (x / PAGE_WIDTH) | (y / PAGE_HEIGHT) << 4 | mode << 7
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::textures::TexelDepth;

    fn texture(depth: TexelDepth, width: u16, height: u16) -> Texture<'static> {
        let image_at = Rect { x: 320, y: 0, w: width.div_ceil(depth.per_halfword()), h: height };
        let clut_at = (depth.clut_colours() > 0).then_some(Rect { x: 0, y: 480, w: depth.clut_colours(), h: 1 });
        Texture { depth, tiled: false, width, height, image_at, clut_at, image: &[], clut: &[] }
    }

    #[test]
    fn packet_words_follow_the_gpu_s_layout() {
        // psx-spx "GPU Texture Attributes": CLUT word = x/16 | y << 6; page = x/64 | (y/256) << 4 |
        // mode << 7; the UV offset counts texels from the page's corner.
        let t = texture(TexelDepth::Eight, 64, 64);
        let image = Rect { x: 352, y: 300, w: 32, h: 64 };
        let w = words_of(&t, image, Some(Rect { x: 32, y: 481, w: 256, h: 1 }));
        let uv = ((352 % 64) * 2) | ((300 - 256) << 8);
        assert_eq!(w.uv, uv);
        assert_eq!(w.clut_uv, (2 | 481 << 6) << 16 | uv);
        assert_eq!(w.page_uv, (5 | 1 << 4 | 1 << 7) << 16 | uv);
        // A 4-bit texture: four texels a halfword; a 15-bit one has no CLUT.
        let four = words_of(&texture(TexelDepth::Four, 16, 16), Rect { x: 644, y: 0, w: 4, h: 16 }, None);
        assert_eq!((four.uv, four.page_uv >> 16), (4 * 4, 10));
        assert_eq!(page_word(960, 256, TexelDepth::Fifteen.page_mode()), 15 | 1 << 4 | 2 << 7);
        // Adding a vertex's UV never carries into the CLUT word: the texture fits its page.
        let last = (t.width as u32 - 1) | (t.height as u32 - 1) << 8;
        assert_eq!((last + w.clut_uv) >> 16, 2 | 481 << 6);
    }

    #[test]
    fn rectangles_are_checked_against_vram_pages_and_each_other() {
        let a = Rect { x: 320, y: 0, w: 32, h: 64 };
        let eight = TexelDepth::Eight;
        assert!(a.inside_vram() && a.fits_texture_page(eight, 64));
        assert!(!Rect { x: 1000, y: 0, w: 32, h: 8 }.inside_vram());
        // UVs reach 256 texels from the page's corner: a 64-texel 8-bit texture at x 360 starts 48
        // texels in (fits), a 256-texel one must start at the corner; rows stop at 256.
        assert!(Rect { x: 360, y: 0, w: 32, h: 8 }.fits_texture_page(eight, 64));
        assert!(Rect { x: 320, y: 0, w: 128, h: 8 }.fits_texture_page(eight, 256));
        assert!(!Rect { x: 336, y: 0, w: 128, h: 8 }.fits_texture_page(eight, 256));
        assert!(!Rect { x: 320, y: 250, w: 8, h: 8 }.fits_texture_page(eight, 16));
        // 15 bits: a 256-texel row is 256 units, across four 64-unit columns, from one corner.
        assert!(Rect { x: 256, y: 256, w: 256, h: 256 }.fits_texture_page(TexelDepth::Fifteen, 256));
        assert!(a.overlaps(&Rect { x: 351, y: 63, w: 1, h: 1 }));
        assert!(!a.overlaps(&Rect { x: 352, y: 0, w: 1, h: 64 }));
    }
}
