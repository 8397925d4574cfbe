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
        let c = [Color::new(1, 0, 0), Color::new(0, 2, 0), Color::new(0, 0, 3), Color::new(4, 4, 4)];
        assert_eq!(
            gouraud_triangle([c[0], c[1], c[2]], [v[0], v[1], v[2]]),
            [0x3000_0001, 0x0002_FFFF, 0x0000_0200, 0xFFEC_012C, 0x0003_0000, 0]
        );
        let quad = gouraud_quad(c, v);
        assert_eq!((quad[0], quad[6], quad[7]), (0x3800_0001, 0x0004_0404, 0x0006_0005));
    }

    #[test]
    fn gte_screen_words_round_trip() {
        for (x, y) in [(0i16, 0i16), (-1024, 1023), (319, -240)] {
            let v = Vertex::new(x, y);
            assert_eq!(Vertex::from_sxy(v.word()), v);
        }
    }
}
