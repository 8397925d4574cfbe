//! A small software rasteriser that follows the PS1 GPU's rules for flat triangles: integer screen
//! vertices, a pixel is drawn when its top-left corner (the integer point) lies inside the triangle,
//! edges on the top or left are inside and those on the bottom or right are not, so triangles sharing
//! an edge never draw a pixel twice or leave a gap. Like the GPU it drops a triangle wider than 1023
//! or taller than 511 pixels, and colours are stored 15-bit (5 bits per channel) as in VRAM.

/// A textured polygon's corners' UVs and its texel fetch (the 15-bit texel, None where transparent).
pub type TexelSource<'a> = ([[u8; 2]; 3], &'a dyn Fn(u8, u8) -> Option<u16>);

/// Largest horizontal extent of a polygon the GPU draws (larger ones are skipped entirely).
pub const MAX_POLYGON_WIDTH: i32 = 1023;
/// Largest vertical extent of a polygon the GPU draws.
pub const MAX_POLYGON_HEIGHT: i32 = 511;

/// An RGB picture, row-major, 3 bytes per pixel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

/// What a 24-bit colour looks like after the GPU stores it in 15-bit VRAM and the display reads it
/// back (5 bits expanded to 8 by repeating the high bits, as emulators show it).
pub fn vram_colour(rgb: [u8; 3]) -> [u8; 3] {
    rgb.map(|c| {
        let v = c >> 3;
        (v << 3) | (v >> 2)
    })
}

impl Canvas {
    pub fn new(width: usize, height: usize, background: [u8; 3]) -> Canvas {
        let mut rgb = Vec::with_capacity(width * height * 3);
        for _ in 0..width * height {
            rgb.extend_from_slice(&background);
        }
        Canvas { width, height, rgb }
    }

    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let o = (y * self.width + x) * 3;
        [self.rgb[o], self.rgb[o + 1], self.rgb[o + 2]]
    }

    fn put(&mut self, x: i32, y: i32, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let o = (y as usize * self.width + x as usize) * 3;
            self.rgb[o..o + 3].copy_from_slice(&c);
        }
    }

    /// The pixels the GPU fills for the triangle `v`, each painted with `pixel(w, area)` (None leaves
    /// it): `w[k]` is corner k's weight, `w / area` its barycentric share at the pixel's top-left
    /// corner. A pixel exactly on an edge is inside only for top or left edges, so triangles sharing an
    /// edge never draw a pixel twice or leave a gap; like the GPU, a triangle wider than 1023 or
    /// taller than 511 pixels is dropped.
    fn cover(&mut self, v: [[i32; 2]; 3], mut pixel: impl FnMut([i64; 3], i64) -> Option<[u8; 3]>) {
        let xs = v.map(|p| p[0]);
        let ys = v.map(|p| p[1]);
        let (x0, x1) = (*xs.iter().min().unwrap_or(&0), *xs.iter().max().unwrap_or(&0));
        let (y0, y1) = (*ys.iter().min().unwrap_or(&0), *ys.iter().max().unwrap_or(&0));
        if x1 - x0 > MAX_POLYGON_WIDTH || y1 - y0 > MAX_POLYGON_HEIGHT {
            return;
        }
        let area = cross(v[0], v[1], v[2]);
        if area == 0 {
            return;
        }
        // Orient counter-clockwise in maths terms (clockwise on a y-down screen) so that "inside"
        // means every edge function is positive; `order` maps the weights back to `v`'s corners.
        let (o, order) = if area < 0 { ([v[0], v[2], v[1]], [0, 2, 1]) } else { (v, [0, 1, 2]) };
        let edges = [(o[1], o[2]), (o[2], o[0]), (o[0], o[1])];
        let bias = edges.map(|(a, b)| if is_top_left(a, b) { 0 } else { -1 });
        for y in y0.max(0)..=y1.min(self.height as i32 - 1) {
            for x in x0.max(0)..=x1.min(self.width as i32 - 1) {
                let w = edges.map(|(a, b)| cross(a, b, [x, y]));
                if w.iter().zip(bias).all(|(w, bias)| w + bias >= 0) {
                    if let Some(c) = pixel(order.map(|k| w[k]), area.abs()) {
                        self.put(x, y, c);
                    }
                }
            }
        }
    }

    /// Fills the triangle `v` with the flat colour `c` (already in its final form).
    pub fn fill_triangle(&mut self, v: [[i32; 2]; 3], c: [u8; 3]) {
        self.cover(v, |_, _| Some(c));
    }

    /// Fills the triangle `v` with texels: `uv` per corner, interpolated affinely over the screen as the
    /// GPU does (no perspective), each pixel's (u, v) truncated to a texel; `texel` gives its colour or
    /// None (transparent: the pixel is left as it is).
    pub fn fill_textured(&mut self, v: [[i32; 2]; 3], uv: [[u8; 2]; 3], texel: impl Fn(u8, u8) -> Option<[u8; 3]>) {
        self.cover(v, |w, area| texel(mix(w, area, uv.map(|c| c[0])) as u8, mix(w, area, uv.map(|c| c[1])) as u8));
    }

    /// Fills the triangle `v` Gouraud-shaded: `colours` per corner interpolated over the screen (each
    /// pixel's value truncated); with `texture` (`uv` per corner and the texel fetch, a 15-bit texel or
    /// None for transparent) each texel's 5-bit channels times the colour / 128, saturated, as the GPU
    /// modulates; without, the colour itself stored in 15 bits.
    pub fn fill_shaded(&mut self, v: [[i32; 2]; 3], colours: [[u8; 3]; 3], texture: Option<TexelSource>) {
        let widen = |c: u32| ((c << 3) | (c >> 2)) as u8;
        self.cover(v, |w, area| {
            let colour = [0, 1, 2].map(|c| mix(w, area, colours.map(|k| k[c])));
            Some(match &texture {
                Some((uv, texel)) => {
                    let t = texel(mix(w, area, uv.map(|c| c[0])) as u8, mix(w, area, uv.map(|c| c[1])) as u8)?;
                    let t5 = [t & 31, (t >> 5) & 31, (t >> 10) & 31];
                    [0, 1, 2].map(|c| widen(((t5[c] as u32 * colour[c]) >> 7).min(31)))
                }
                None => colour.map(|c| widen(c >> 3)),
            })
        });
    }

    /// A line with both ends included (Bresenham), clipped to the canvas.
    pub fn draw_line(&mut self, a: [i32; 2], b: [i32; 2], c: [u8; 3]) {
        // Bound the work for far-off endpoints: nothing beyond the GPU's coordinate range is drawn.
        let limit = 2048;
        if a.iter().chain(b.iter()).any(|v| v.abs() > limit) {
            return;
        }
        let (mut x, mut y) = (a[0], a[1]);
        let dx = (b[0] - x).abs();
        let dy = -(b[1] - y).abs();
        let sx = if x < b[0] { 1 } else { -1 };
        let sy = if y < b[1] { 1 } else { -1 };
        let mut err = dx + dy;
        loop {
            self.put(x, y, c);
            if x == b[0] && y == b[1] {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// A filled square of side `2 * radius + 1` centred on `p`.
    pub fn draw_dot(&mut self, p: [i32; 2], radius: i32, c: [u8; 3]) {
        if p.iter().any(|v| v.abs() > 2048) {
            return;
        }
        for y in p[1] - radius..=p[1] + radius {
            for x in p[0] - radius..=p[0] + radius {
                self.put(x, y, c);
            }
        }
    }

    /// Copies `other` into this canvas with its top-left corner at `(x, y)` (clipped).
    pub fn blit(&mut self, other: &Canvas, x: usize, y: usize) {
        for row in 0..other.height {
            let ty = y + row;
            if ty >= self.height {
                break;
            }
            let w = other.width.min(self.width.saturating_sub(x));
            let src = row * other.width * 3;
            let dst = (ty * self.width + x) * 3;
            self.rgb[dst..dst + w * 3].copy_from_slice(&other.rgb[src..src + w * 3]);
        }
    }
}

/// Twice the signed area of (a, b, p): positive when p is to the left of a->b in maths orientation.
/// A per-corner byte value at a pixel: the weighted sum, floored, within 0..=255.
fn mix(w: [i64; 3], area: i64, at: [u8; 3]) -> u32 {
    (0..3).map(|i| w[i] * at[i] as i64).sum::<i64>().div_euclid(area).clamp(0, 255) as u32
}

fn cross(a: [i32; 2], b: [i32; 2], p: [i32; 2]) -> i64 {
    (b[0] as i64 - a[0] as i64) * (p[1] as i64 - a[1] as i64) - (b[1] as i64 - a[1] as i64) * (p[0] as i64 - a[0] as i64)
}

/// Whether edge a->b of a triangle oriented so that inside is positive is a top or a left edge. With
/// this orientation on a y-down screen the edges run clockwise as seen, so a top edge (horizontal,
/// interior below) runs toward +x and a left edge (interior to its right) runs toward -y.
fn is_top_left(a: [i32; 2], b: [i32; 2]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dy == 0 && dx > 0) || dy < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const BG: [u8; 3] = [0, 0, 0];
    const RED: [u8; 3] = [255, 0, 0];

    fn count(c: &Canvas, col: [u8; 3]) -> usize {
        (0..c.height).flat_map(|y| (0..c.width).map(move |x| (x, y))).filter(|&(x, y)| c.pixel(x, y) == col).count()
    }

    #[test]
    fn square_from_two_triangles_covers_each_pixel_once_without_bottom_right_edges() {
        // The 4x4 square [2,6) x [2,6): with the top-left rule it covers exactly 16 pixels, and the
        // two halves never overlap.
        let mut a = Canvas::new(10, 10, BG);
        a.fill_triangle([[2, 2], [6, 2], [6, 6]], RED);
        let mut b = Canvas::new(10, 10, BG);
        b.fill_triangle([[2, 2], [6, 6], [2, 6]], RED);
        let both: usize = (0..10)
            .flat_map(|y| (0..10).map(move |x| (x, y)))
            .filter(|&(x, y)| a.pixel(x, y) == RED && b.pixel(x, y) == RED)
            .count();
        assert_eq!(both, 0, "shared diagonal drawn twice");
        assert_eq!(count(&a, RED) + count(&b, RED), 16);
        let mut whole = Canvas::new(10, 10, BG);
        whole.fill_triangle([[2, 2], [6, 2], [6, 6]], RED);
        whole.fill_triangle([[2, 2], [6, 6], [2, 6]], RED);
        for y in 0..10 {
            for x in 0..10 {
                let inside = (2..6).contains(&x) && (2..6).contains(&y);
                assert_eq!(whole.pixel(x, y) == RED, inside, "pixel ({x}, {y})");
            }
        }
    }

    #[test]
    fn winding_does_not_matter() {
        let mut a = Canvas::new(16, 16, BG);
        a.fill_triangle([[1, 1], [12, 3], [4, 14]], RED);
        let mut b = Canvas::new(16, 16, BG);
        b.fill_triangle([[1, 1], [4, 14], [12, 3]], RED);
        assert_eq!(a, b);
        assert!(count(&a, RED) > 40);
    }

    #[test]
    fn oversized_and_degenerate_triangles_draw_nothing() {
        let mut c = Canvas::new(32, 32, BG);
        c.fill_triangle([[0, 0], [1100, 0], [0, 10]], RED);
        c.fill_triangle([[0, 0], [10, 0], [0, 600]], RED);
        c.fill_triangle([[0, 0], [5, 5], [10, 10]], RED);
        assert_eq!(count(&c, RED), 0);
    }

    #[test]
    fn vram_colour_keeps_five_bits() {
        assert_eq!(vram_colour([255, 0, 7]), [255, 0, 0]);
        assert_eq!(vram_colour([8, 16, 200]), [8, 16, 206]);
    }

    #[test]
    fn line_includes_both_ends_and_clips() {
        let mut c = Canvas::new(8, 8, BG);
        c.draw_line([-3, 2], [5, 2], RED);
        assert_eq!(count(&c, RED), 6); // x = 0..=5
        assert_eq!(c.pixel(5, 2), RED);
    }
}
