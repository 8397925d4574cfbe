//! The texture section (version 7): a character's textures, their CLUTs and each vertex's texture
//! coordinates, read in place like the rest of the blob.
//!
//! ```text
//! textures, at the header's textures offset (0 without textures):
//!   u16 texture count (1..=MAX_TEXTURES), u16 0
//!   entries, TEXTURE_ENTRY_SIZE (24) bytes each:
//!     u8 depth (4, 8: a CLUT of 16 or 256 colours; 15: direct colour)   u8 flags (bit 0: tiled)
//!     u16 width, u16 height (texels, 1..=256)                           u16 CLUT colours (16, 256, 0)
//!     u16 image x, u16 image y (the default VRAM place, in 16-bit units) u16 CLUT x, u16 CLUT y (the same)
//!     u32 data offset: the image's halfwords row by row (`image_width` a row), padded to 4 bytes,
//!                      then the CLUT's; 4-aligned, inside the blob (so a DMA can send either)
//!     u32 0
//! uvs, at the header's uvs offset (0 without textures): one u32 per vertex, u | v << 8 (texels from
//!   the texture's top-left corner, u right, v down), the high half 0; 0 for an untextured vertex
//! a material's texture: its entry's fourth byte, texture index + 1 (0: untextured)
//! ```
//! One word a vertex, not two bytes: the packet loops find a vertex's UV with the byte offset they
//! already use for its projected SXY word. A vertex has one UV: the importer splits vertices at UV
//! seams. The coordinates count from the texture's corner, not the texture page's, so a game may
//! place the texture anywhere ([`crate::vram::Placement`] adds the page offset and the CLUT and page
//! words once per texture). A tiled texture (UVs outside 0..1 on a power-of-two size of 8 to 256
//! texels each way) is drawn with the GPU's texture window, which repeats it: its UV words may reach
//! past its size (each triangle's corners keep their offsets, up to 255), and it sits in its page at
//! a multiple of its size (the window's offset is its corner: [`Rect::fits_window`]).
//!
//! [`Section::read`] checks every entry once at parse: depth, size, the default places inside VRAM and
//! inside one texture page, the data inside the blob, every material's texture index and every UV
//! word's high half; each failure is a [`TableError::BadTexture`] with its offset.

use super::{u16_at, u32_at, TableError};

/// Textures one character may have (its materials' distinct images).
pub const MAX_TEXTURES: usize = 8;
/// Bytes of a texture entry.
pub const TEXTURE_ENTRY_SIZE: usize = 24;
/// Bytes before the entries.
pub const TEXTURES_HEADER_SIZE: usize = 4;
/// A texture's `flags` bit: its UVs repeat it (the GPU's texture window).
pub const TEXTURE_TILED: u8 = 1;
/// The texture window's step (GP0(E2h) masks and offsets count 8 texels): the smallest size it repeats.
pub const WINDOW_STEP: u16 = 8;
/// VRAM, in 16-bit units.
pub const VRAM_WIDTH: u16 = 1024;
pub const VRAM_HEIGHT: u16 = 512;
/// A texture page: 64 halfwords wide (256 texels at 4 bits, 128 at 8, 64 at 15), 256 rows.
pub const PAGE_WIDTH: u16 = 64;
pub const PAGE_HEIGHT: u16 = 256;
/// A CLUT's x is a multiple of this.
pub const CLUT_X_UNIT: u16 = 16;

/// How many bits a texel takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelDepth {
    /// 4-bit indices into a 16-colour CLUT.
    Four,
    /// 8-bit indices into a 256-colour CLUT.
    Eight,
    /// 15-bit direct colour (and the STP bit).
    Fifteen,
}

impl TexelDepth {
    pub const fn from_bits(bits: u8) -> Option<TexelDepth> {
        match bits {
            4 => Some(TexelDepth::Four),
            8 => Some(TexelDepth::Eight),
            15 => Some(TexelDepth::Fifteen),
            _ => None,
        }
    }
    pub const fn bits(self) -> u8 {
        match self {
            TexelDepth::Four => 4,
            TexelDepth::Eight => 8,
            TexelDepth::Fifteen => 15,
        }
    }
    /// Texels in one 16-bit VRAM unit.
    pub const fn per_halfword(self) -> u16 {
        match self {
            TexelDepth::Four => 4,
            TexelDepth::Eight => 2,
            TexelDepth::Fifteen => 1,
        }
    }
    /// Colours in its CLUT (0: none).
    pub const fn clut_colours(self) -> u16 {
        match self {
            TexelDepth::Four => 16,
            TexelDepth::Eight => 256,
            TexelDepth::Fifteen => 0,
        }
    }
    /// The texture-page attribute's colour mode (bits 7-8).
    pub const fn page_mode(self) -> u16 {
        match self {
            TexelDepth::Four => 0,
            TexelDepth::Eight => 1,
            TexelDepth::Fifteen => 2,
        }
    }
}

/// A VRAM rectangle, in 16-bit units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    pub x: u16,
    pub y: u16,
    pub w: u16,
    pub h: u16,
}

impl Rect {
    /// Whether it lies inside VRAM.
    pub const fn inside_vram(&self) -> bool {
        self.w > 0
            && self.h > 0
            && self.x as u32 + self.w as u32 <= VRAM_WIDTH as u32
            && self.y as u32 + self.h as u32 <= VRAM_HEIGHT as u32
    }
    /// Whether a texture of `width` texels at `depth` placed here can be read through one texture
    /// page: the page starts at the 64-unit column at or left of `x` and row 0 or 256, and its UVs
    /// reach 256 texels right (64 units at 4 bits, 128 at 8, 256 at 15) and 256 rows down.
    pub const fn fits_texture_page(&self, depth: TexelDepth, width: u16) -> bool {
        self.w > 0
            && self.h > 0
            && (self.x % PAGE_WIDTH) as u32 * depth.per_halfword() as u32 + width as u32 <= 256
            && (self.y % PAGE_HEIGHT) as u32 + self.h as u32 <= PAGE_HEIGHT as u32
    }
    /// Whether a tiled texture of `width` x `h` texels at `depth` placed here has its corner at a
    /// multiple of its size within its texture page, where the texture window's offset can name it
    /// (the window replaces a texel's high bits with the offset's: the low bits must start at 0).
    pub const fn fits_window(&self, depth: TexelDepth, width: u16) -> bool {
        width > 0
            && self.h > 0
            && ((self.x % PAGE_WIDTH) * depth.per_halfword()) % width == 0
            && (self.y % PAGE_HEIGHT) % self.h == 0
    }
    pub const fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
    /// Halfwords it holds.
    pub const fn halfwords(&self) -> usize {
        self.w as usize * self.h as usize
    }
}

/// One texture of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texture<'a> {
    pub depth: TexelDepth,
    /// Its UVs repeat it: drawn with the GPU's texture window.
    pub tiled: bool,
    /// Texels.
    pub width: u16,
    pub height: u16,
    /// The default places of the image and of its CLUT (None at 15 bits).
    pub image_at: Rect,
    pub clut_at: Option<Rect>,
    /// The image's halfwords, row by row, as VRAM holds them (little-endian bytes).
    pub image: &'a [u8],
    /// The CLUT's halfwords (empty at 15 bits).
    pub clut: &'a [u8],
}

impl Texture<'_> {
    /// The image's width in VRAM's 16-bit units.
    pub const fn image_width(&self) -> u16 {
        self.width.div_ceil(self.depth.per_halfword())
    }
}

/// Where the section is: the entries' offset, their count, and the UV words' offset (all 0 without).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Section {
    pub entries: usize,
    pub count: usize,
    pub uvs: usize,
}

fn bad(offset: usize, what: &'static str) -> TableError {
    TableError::BadTexture { offset, what }
}

impl Section {
    /// Reads and checks the section at `textures` (with UV words at `uvs`) in `bytes` (the blob, cut
    /// to its size): both 0, or both set. `materials` is the material table's offset.
    pub fn read(
        bytes: &[u8],
        textures: usize,
        uvs: usize,
        vertex_count: usize,
        materials: usize,
        material_count: usize,
    ) -> Result<Section, TableError> {
        let section = Section::locate(bytes, textures, uvs, vertex_count)?;
        for i in 0..section.count {
            section.entry(bytes, i)?;
        }
        for m in 0..material_count {
            let at = materials + m * super::MATERIAL_SIZE + 3;
            if bytes[at] as usize > section.count {
                return Err(bad(at, "a material's texture: an index + 1 of the texture section, or 0"));
            }
        }
        for v in 0..if uvs == 0 { 0 } else { vertex_count } {
            let at = uvs + 4 * v;
            if u32_at(bytes, at) >> 16 != 0 {
                return Err(bad(at, "a vertex's texture coordinates: u | v << 8"));
            }
        }
        Ok(section)
    }

    fn locate(bytes: &[u8], textures: usize, uvs: usize, vertex_count: usize) -> Result<Section, TableError> {
        if textures == 0 && uvs == 0 {
            return Ok(Section::default());
        }
        if textures == 0 || uvs == 0 {
            return Err(bad(super::TEXTURES_AT, "the textures and uvs offsets: both set, or both 0"));
        }
        let head = super::section("textures", textures, TEXTURES_HEADER_SIZE, bytes.len())?;
        let count = u16_at(bytes, head) as usize;
        if count == 0 || count > MAX_TEXTURES {
            return Err(bad(head, "a texture count of 1 to 8"));
        }
        let entries = super::section("textures", head + TEXTURES_HEADER_SIZE, count * TEXTURE_ENTRY_SIZE, bytes.len())?;
        let uvs = super::section("uvs", uvs, 4 * vertex_count, bytes.len())?;
        Ok(Section { entries, count, uvs })
    }

    /// Texture `index` (below `count`), checked.
    pub fn entry<'a>(&self, bytes: &'a [u8], index: usize) -> Result<Texture<'a>, TableError> {
        let at = self.entries + index * TEXTURE_ENTRY_SIZE;
        let depth = TexelDepth::from_bits(bytes[at]).ok_or(bad(at, "a texel depth of 4, 8 or 15"))?;
        let flags = bytes[at + 1];
        if flags & !TEXTURE_TILED != 0 {
            return Err(bad(at + 1, "texture flags: bit 0 (tiled) only"));
        }
        let (width, height) = (u16_at(bytes, at + 2), u16_at(bytes, at + 4));
        if !(1..=256).contains(&width) || !(1..=256).contains(&height) {
            return Err(bad(at + 2, "a texture size of 1 to 256 texels each way"));
        }
        let tiled = flags & TEXTURE_TILED != 0;
        if tiled && !(width.is_power_of_two() && height.is_power_of_two() && width >= WINDOW_STEP && height >= WINDOW_STEP) {
            return Err(bad(at + 1, "a tiled texture's size: powers of two of 8 or more (the texture window repeats only those)"));
        }
        if u16_at(bytes, at + 6) != depth.clut_colours() {
            return Err(bad(at + 6, "a CLUT of 16 colours at 4 bits, 256 at 8, none at 15"));
        }
        let w = width.div_ceil(depth.per_halfword());
        let image_at = Rect { x: u16_at(bytes, at + 8), y: u16_at(bytes, at + 10), w, h: height };
        if !image_at.inside_vram() || !image_at.fits_texture_page(depth, width) {
            return Err(bad(at + 8, "a default image place inside VRAM, its texels within 256 of its texture page's corner each way"));
        }
        if tiled && !image_at.fits_window(depth, width) {
            return Err(bad(at + 8, "a tiled texture's default place at a multiple of its size within its texture page"));
        }
        let colours = depth.clut_colours();
        let clut_at = (colours > 0).then_some(Rect { x: u16_at(bytes, at + 12), y: u16_at(bytes, at + 14), w: colours, h: 1 });
        if let Some(c) = clut_at {
            if !c.inside_vram() || c.x % CLUT_X_UNIT != 0 {
                return Err(bad(at + 12, "a default CLUT place inside VRAM, x a multiple of 16"));
            }
            if c.overlaps(&image_at) {
                return Err(bad(at + 12, "a default CLUT place apart from the image's"));
            }
        }
        let image_bytes = 2 * image_at.halfwords();
        let clut_start = image_bytes.next_multiple_of(4);
        let clut_bytes = 2 * colours as usize;
        let data = super::section("texture data", u32_at(bytes, at + 16) as usize, clut_start + clut_bytes, bytes.len())?;
        if u32_at(bytes, at + 20) != 0 {
            return Err(bad(at + 20, "a zero word (reserved)"));
        }
        Ok(Texture {
            depth,
            tiled,
            width,
            height,
            image_at,
            clut_at,
            image: &bytes[data..data + image_bytes],
            clut: &bytes[data + clut_start..data + clut_start + clut_bytes],
        })
    }
}

/// Offset of a field `at` bytes into texture entry `index`, for the tooling's tests and messages.
pub const fn entry_field(entries: usize, index: usize, at: usize) -> usize {
    entries + index * TEXTURE_ENTRY_SIZE + at
}
