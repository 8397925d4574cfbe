//! GP0 drawing commands encoded as packet words. Each function returns the exact words the GPU takes,
//! to be written directly (`gpu::send`) or queued in a `DrawList`.
//! Coordinates are relative to the drawing offset (`gpu::draw_to`), except `fill_rect`, which is absolute
//! in VRAM and ignores the drawing area (x and width are rounded to 16 pixels by the GPU).

/// A 24-bit colour (the GPU keeps 5 bits per channel when it writes VRAM).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Color {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Color {
    pub const fn new(r: u8, g: u8, b: u8) -> Self {
        Color { r, g, b }
    }
    /// The low 24 bits of a command word.
    pub const fn word(self) -> u32 {
        self.r as u32 | (self.g as u32) << 8 | (self.b as u32) << 16
    }
}

/// A screen vertex (signed 11-bit on the GPU).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Vertex {
    pub x: i16,
    pub y: i16,
}

impl Vertex {
    pub const fn new(x: i16, y: i16) -> Self {
        Vertex { x, y }
    }
    /// From a GTE SXY word (x in the low half, y in the high half).
    pub const fn from_sxy(sxy: u32) -> Self {
        Vertex { x: sxy as u16 as i16, y: (sxy >> 16) as u16 as i16 }
    }
    pub const fn word(self) -> u32 {
        self.x as u16 as u32 | (self.y as u16 as u32) << 16
    }
}

const FILL_RECT: u32 = 0x02 << 24;
/// The polygon commands (GP0 20h-3Fh, opaque), the colour in the low 24 bits.
pub const FLAT_TRIANGLE: u32 = 0x20 << 24;
pub const FLAT_QUAD: u32 = 0x28 << 24;
pub const GOURAUD_TRIANGLE: u32 = 0x30 << 24;
pub const GOURAUD_QUAD: u32 = 0x38 << 24;
/// Textured, opaque, the texel modulated by the colour (0x80 in each channel: the texel as stored).
pub const TEXTURED_TRIANGLE: u32 = 0x24 << 24;
pub const TEXTURED_QUAD: u32 = 0x2C << 24;
const COPY_TO_VRAM: u32 = 0xA0 << 24;
/// Textured and Gouraud-shaded: the texel modulated by each corner's colour.
pub const TEXTURED_GOURAUD_TRIANGLE: u32 = 0x34 << 24;
pub const TEXTURED_GOURAUD_QUAD: u32 = 0x3C << 24;
/// The colour that draws a texel as it is stored (the GPU multiplies by colour / 128).
pub const NEUTRAL: Color = Color::new(0x80, 0x80, 0x80);

/// GP0(E2h) with no window: texels are read where the UVs say (the GPU's state after reset).
pub const NO_TEXTURE_WINDOW: u32 = 0xE2 << 24;

/// GP0(E2h), a texture window that repeats a `width` x `height` texture (powers of two, 8 to 256)
/// whose corner is texel (`u`, `v`) of its page (multiples of its size). psx-spx "GPU Texture
/// Window": `texel = (texel AND NOT (mask * 8)) OR ((offset AND mask) * 8)`, mask and offset in
/// 8-texel units (bits 0-4 mask x, 5-9 mask y, 10-14 offset x, 15-19 offset y): each coordinate keeps
/// its bits below the size and takes the corner's above it. The setting is global GPU state.
pub const fn texture_window(width: u16, height: u16, u: u16, v: u16) -> u32 {
    NO_TEXTURE_WINDOW | window_mask(width) | window_mask(height) << 5 | window_offset(u) << 10 | window_offset(v) << 15
}

/// The window mask that repeats `size` texels: the bits above them, in 8-texel units.
const fn window_mask(size: u16) -> u32 {
    ((256u16.saturating_sub(size) >> 3) & 31) as u32
}

/// The window offset of a corner at texel `corner`, in 8-texel units.
const fn window_offset(corner: u16) -> u32 {
    ((corner >> 3) & 31) as u32
}

/// Fills a VRAM rectangle (absolute coordinates, no blending, no drawing area).
pub const fn fill_rect(color: Color, x: u16, y: u16, w: u16, h: u16) -> [u32; 3] {
    [FILL_RECT | color.word(), x as u32 | (y as u32) << 16, w as u32 | (h as u32) << 16]
}

pub const fn flat_triangle(color: Color, v: [Vertex; 3]) -> [u32; 4] {
    [FLAT_TRIANGLE | color.word(), v[0].word(), v[1].word(), v[2].word()]
}

/// A quad is drawn as triangles (0,1,2) and (1,2,3): give the corners in "Z" order.
pub const fn flat_quad(color: Color, v: [Vertex; 4]) -> [u32; 5] {
    [FLAT_QUAD | color.word(), v[0].word(), v[1].word(), v[2].word(), v[3].word()]
}

pub const fn gouraud_triangle(c: [Color; 3], v: [Vertex; 3]) -> [u32; 6] {
    [
        GOURAUD_TRIANGLE | c[0].word(),
        v[0].word(),
        c[1].word(),
        v[1].word(),
        c[2].word(),
        v[2].word(),
    ]
}

/// Corners in "Z" order, as for `flat_quad`.
pub const fn gouraud_quad(c: [Color; 4], v: [Vertex; 4]) -> [u32; 8] {
    [
        GOURAUD_QUAD | c[0].word(),
        v[0].word(),
        c[1].word(),
        v[1].word(),
        c[2].word(),
        v[2].word(),
        c[3].word(),
        v[3].word(),
    ]
}

/// A textured triangle. `uv[k]` is corner k's `u | v << 8` in its texture page; the CLUT word rides in
/// the first's high half and the texture-page word in the second's (`vram::Words` adds both).
pub const fn textured_triangle(color: Color, v: [Vertex; 3], uv: [u32; 3]) -> [u32; 7] {
    [TEXTURED_TRIANGLE | color.word(), v[0].word(), uv[0], v[1].word(), uv[1], v[2].word(), uv[2] & 0xFFFF]
}

/// A textured, Gouraud-shaded triangle: corner k's texel times `c[k]` / 128; UV words as for
/// `textured_triangle`.
pub const fn textured_gouraud_triangle(c: [Color; 3], v: [Vertex; 3], uv: [u32; 3]) -> [u32; 9] {
    [
        TEXTURED_GOURAUD_TRIANGLE | c[0].word(),
        v[0].word(),
        uv[0],
        c[1].word(),
        v[1].word(),
        uv[1],
        c[2].word(),
        v[2].word(),
        uv[2] & 0xFFFF,
    ]
}

/// A textured four-point polygon, corners in "Z" order as for `flat_quad`, UV words as for
/// `textured_triangle`.
pub const fn textured_quad(color: Color, v: [Vertex; 4], uv: [u32; 4]) -> [u32; 9] {
    [
        TEXTURED_QUAD | color.word(),
        v[0].word(),
        uv[0],
        v[1].word(),
        uv[1],
        v[2].word(),
        uv[2] & 0xFFFF,
        v[3].word(),
        uv[3] & 0xFFFF,
    ]
}

/// The three words that start a copy of a `w` x `h` rectangle at (`x`, `y`) from the CPU to VRAM;
/// `ceil(w * h / 2)` data words follow, two halfwords each, row by row.
pub const fn copy_to_vram(x: u16, y: u16, w: u16, h: u16) -> [u32; 3] {
    [COPY_TO_VRAM, x as u32 | (y as u32) << 16, w as u32 | (h as u32) << 16]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected words follow psx-spx "GPU Render Polygon Commands" / "GPU Memory Transfer Commands".
    #[test]
    fn command_words() {
        let red = Color::new(0xFF, 0x10, 0x01);
        assert_eq!(red.word(), 0x0001_10FF, "colour is 0xBBGGRR");
        assert_eq!(fill_rect(red, 16, 240, 320, 240), [0x0201_10FF, 240 << 16 | 16, 240 << 16 | 320]);
        let v = [Vertex::new(-1, 2), Vertex::new(300, -20), Vertex::new(0, 0), Vertex::new(5, 6)];
        assert_eq!(v[0].word(), 0x0002_FFFF, "x in the low half, both signed 16-bit");
        assert_eq!(v[1].word(), 0xFFEC_012C);
        assert_eq!(flat_triangle(red, [v[0], v[1], v[2]]), [0x2001_10FF, 0x0002_FFFF, 0xFFEC_012C, 0]);
        assert_eq!(flat_quad(red, v)[0] >> 24, 0x28);
        // A 32 x 64 texture at (64, 128) of its page: masks (256 - 32) / 8 = 28 and 24, offsets 8 and 16.
        assert_eq!(texture_window(32, 64, 64, 128), 0xE2 << 24 | 28 | 24 << 5 | 8 << 10 | 16 << 15);
        assert_eq!(texture_window(256, 256, 0, 0), NO_TEXTURE_WINDOW, "a whole page needs no window");
        let c = [Color::new(1, 0, 0), Color::new(0, 2, 0), Color::new(0, 0, 3), Color::new(4, 4, 4)];
        assert_eq!(
            gouraud_triangle([c[0], c[1], c[2]], [v[0], v[1], v[2]]),
            [0x3000_0001, 0x0002_FFFF, 0x0000_0200, 0xFFEC_012C, 0x0003_0000, 0]
        );
        let quad = gouraud_quad(c, v);
        assert_eq!((quad[0], quad[6], quad[7]), (0x3800_0001, 0x0004_0404, 0x0006_0005));
        // Textured: UV words after each vertex, CLUT and page words in the first two's high halves.
        let uv = [0x7FC0_1002, 0x0085_3020, 0xDEAD_4040, 0xBEEF_0101];
        let t = textured_triangle(NEUTRAL, [v[0], v[1], v[2]], [uv[0], uv[1], uv[2]]);
        assert_eq!(t, [0x2480_8080, 0x0002_FFFF, 0x7FC0_1002, 0xFFEC_012C, 0x0085_3020, 0, 0x4040]);
        let q = textured_quad(NEUTRAL, v, uv);
        assert_eq!((q[0], q[6], q[7], q[8]), (0x2C80_8080, 0x4040, 0x0006_0005, 0x0101));
        assert_eq!(copy_to_vram(320, 256, 16, 64), [0xA000_0000, 256 << 16 | 320, 64 << 16 | 16]);
        let g = textured_gouraud_triangle([c[0], c[1], c[2]], [v[0], v[1], v[2]], [uv[0], uv[1], uv[2]]);
        assert_eq!(g, [0x3400_0001, 0x0002_FFFF, 0x7FC0_1002, 0x0000_0200, 0xFFEC_012C, 0x0085_3020, 0x0003_0000, 0, 0x4040]);
    }

    #[test]
    fn gte_screen_words_round_trip() {
        for (x, y) in [(0i16, 0i16), (-1024, 1023), (319, -240)] {
            let v = Vertex::new(x, y);
            assert_eq!(Vertex::from_sxy(v.word()), v);
        }
    }
}
