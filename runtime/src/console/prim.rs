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
const FLAT_TRIANGLE: u32 = 0x20 << 24;
const FLAT_QUAD: u32 = 0x28 << 24;
const GOURAUD_TRIANGLE: u32 = 0x30 << 24;
const GOURAUD_QUAD: u32 = 0x38 << 24;

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
