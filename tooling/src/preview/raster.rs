//! A small software rasteriser that follows the PS1 GPU's rules for triangles: integer screen
//! vertices, a pixel is drawn when its top-left corner (the integer point) lies inside the triangle,
//! edges on the top or left are inside and those on the bottom or right are not, so triangles sharing
//! an edge never draw a pixel twice or leave a gap. Like the GPU it drops a triangle wider than 1023
//! or taller than 511 pixels, and colours are stored 15-bit (5 bits per channel) as in VRAM.
//! Texture coordinates and Gouraud colours are interpolated with the GPU's own fixed-point
//! arithmetic ([`Plane`]), so each pixel gets the texel and the colour step the console gives it.

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

    /// The pixels the GPU fills for the triangle `v`, each painted with `pixel(x, y)` (None leaves it).
    /// A pixel exactly on an edge is inside only for top or left edges, so triangles sharing an edge
    /// never draw a pixel twice or leave a gap; like the GPU, a triangle wider than 1023 or taller
    /// than 511 pixels is dropped.
    fn cover(&mut self, v: [[i32; 2]; 3], mut pixel: impl FnMut(i32, i32) -> Option<[u8; 3]>) {
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
        // means every edge function is positive.
        let o = if area < 0 { [v[0], v[2], v[1]] } else { v };
        let edges = [(o[1], o[2]), (o[2], o[0]), (o[0], o[1])];
        let bias = edges.map(|(a, b)| if is_top_left(a, b) { 0 } else { -1 });
        for y in y0.max(0)..=y1.min(self.height as i32 - 1) {
            for x in x0.max(0)..=x1.min(self.width as i32 - 1) {
                let w = edges.map(|(a, b)| cross(a, b, [x, y]));
                if w.iter().zip(bias).all(|(w, bias)| w + bias >= 0) {
                    if let Some(c) = pixel(x, y) {
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
    /// GPU does (no perspective, its fixed-point steps: [`Plane`]); `texel` gives the colour of texel
    /// (u, v) or None (transparent: the pixel is left as it is).
    pub fn fill_textured(&mut self, v: [[i32; 2]; 3], uv: [[u8; 2]; 3], texel: impl Fn(u8, u8) -> Option<[u8; 3]>) {
        let Some([u, tv]) = Plane::of_pairs(v, uv) else { return };
        self.cover(v, |x, y| texel(u.at(x, y), tv.at(x, y)));
    }

    /// Fills the triangle `v` Gouraud-shaded: `colours` per corner interpolated over the screen as the
    /// GPU does ([`Plane`]); with `texture` (`uv` per corner and the texel fetch, a 15-bit texel or
    /// None for transparent) each texel's 5-bit channels times the colour / 128, saturated, as the GPU
    /// modulates; without, the colour itself stored in 15 bits (its top 5 bits: not dithered, as with
    /// GP0(E1h) bit 9 clear).
    pub fn fill_shaded(&mut self, v: [[i32; 2]; 3], colours: [[u8; 3]; 3], texture: Option<TexelSource>) {
        let widen = |c: u32| ((c << 3) | (c >> 2)) as u8;
        let Some(rgb) = Plane::of_triples(v, colours) else { return };
        let uv = texture.map(|(uv, texel)| (Plane::of_pairs(v, uv), texel));
        self.cover(v, |x, y| {
            let colour = rgb.map(|p| p.at(x, y) as u32);
            Some(match &uv {
                Some((Some([u, tv]), texel)) => {
                    let t = texel(u.at(x, y), tv.at(x, y))?;
                    let t5 = [t & 31, (t >> 5) & 31, (t >> 10) & 31];
                    [0, 1, 2].map(|c| widen(((t5[c] as u32 * colour[c]) >> 7).min(31)))
                }
                _ => colour.map(|c| widen(c >> 3)),
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

/// One per-corner byte (a texture coordinate or a colour channel) laid over a triangle the way the
/// PS1 GPU sets it up, so the preview picks the texel and the colour step the console does. The GPU
/// does not weigh the corners at each pixel: once per triangle it takes the attribute's gradients
/// along x and y from the plane through the three corners, each truncated toward zero to 12
/// fractional bits, starts at one corner with half a step added (rounding to nearest) and steps by
/// the gradients to every pixel; a pixel's value is the integer part, wrapped to a byte. Across a
/// wide triangle the truncated gradients drift from the exact plane, so where the exact value sits
/// near a texel boundary the GPU's stepping lands on the neighbouring texel; the exact-barycentric
/// floor this replaced disagreed there. This is the arithmetic mednafen's software GPU reproduces
/// (learnt from reading it, written anew here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plane {
    /// The corner the stepping starts from.
    origin: [i32; 2],
    /// Its value in 12-bit fixed point, plus the half that makes the integer part round.
    start: i64,
    /// Change per pixel along x and along y, 12-bit fixed point, truncated toward zero.
    dx: i64,
    dy: i64,
}

/// Fractional bits of the GPU's interpolation.
const PLANE_FRACTION: u32 = 12;

impl Plane {
    /// The plane of `at` (one value per corner of `v`); None for a triangle of no area.
    fn new(v: [[i32; 2]; 3], at: [u8; 3]) -> Option<Plane> {
        let [a, b, c] = v.map(|p| p.map(i64::from));
        let [va, vb, vc] = at.map(i64::from);
        // Twice the signed area, and the attribute's own cross products with y and with x: the
        // gradients are their ratios (Cramer's rule on the two edges from `a`).
        let area = (b[0] - a[0]) * (c[1] - b[1]) - (c[0] - b[0]) * (b[1] - a[1]);
        if area == 0 {
            return None;
        }
        let along_x = (vb - va) * (c[1] - b[1]) - (vc - vb) * (b[1] - a[1]);
        let along_y = (b[0] - a[0]) * (vc - vb) - (c[0] - b[0]) * (vb - va);
        // Rust's `/` truncates toward zero, as the GPU's divider does.
        let one = 1i64 << PLANE_FRACTION;
        let o = start_corner(v);
        let start = i64::from(at[o]) * one + one / 2;
        Some(Plane { origin: v[o], start, dx: along_x * one / area, dy: along_y * one / area })
    }

    /// The value at pixel (x, y): the start corner's plus whole steps, its integer part wrapped to
    /// a byte (the GPU keeps 8 integer bits: a value stepped past 255 or below 0 wraps).
    fn at(&self, x: i32, y: i32) -> u8 {
        let v = self.start + self.dx * i64::from(x - self.origin[0]) + self.dy * i64::from(y - self.origin[1]);
        (v >> PLANE_FRACTION) as u8
    }

    /// The planes of both coordinates of per-corner pairs (UVs).
    fn of_pairs(v: [[i32; 2]; 3], at: [[u8; 2]; 3]) -> Option<[Plane; 2]> {
        Some([Plane::new(v, at.map(|c| c[0]))?, Plane::new(v, at.map(|c| c[1]))?])
    }

    /// The planes of all three channels of per-corner colours.
    fn of_triples(v: [[i32; 2]; 3], at: [[u8; 3]; 3]) -> Option<[Plane; 3]> {
        Some([Plane::new(v, at.map(|c| c[0]))?, Plane::new(v, at.map(|c| c[1]))?, Plane::new(v, at.map(|c| c[2]))?])
    }
}

/// The corner the GPU starts its stepping from: the leftmost, comparing the corners in packet order
/// as the hardware does (of two with the same x, the later one when it is corner 1 or 2 against
/// its predecessor, corner 0 against corner 2 when corner 1 lies to the right). Which corner it is
/// matters: the truncated gradients are exact only there.
fn start_corner(v: [[i32; 2]; 3]) -> usize {
    let x = v.map(|p| p[0]);
    if x[1] <= x[0] {
        if x[2] <= x[1] {
            2
        } else {
            1
        }
    } else if x[2] < x[0] {
        2
    } else {
        0
    }
}

/// Twice the signed area of (a, b, p): positive when p is to the left of a->b in maths orientation.
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

    /// Row `y` (its first `n` pixels) of the triangle (0,0), (12,0), (0,2) painted with `uv`, as
    /// texel u numbers (each texel u painted red 40 + 80 u).
    fn texel_row(uv: [[u8; 2]; 3], y: usize, n: usize) -> Vec<u8> {
        let mut c = Canvas::new(12, 2, BG);
        c.fill_textured([[0, 0], [12, 0], [0, 2]], uv, |u, _| Some([40 + 80 * u, 0, 0]));
        (0..n).map(|x| (c.pixel(x, y)[0] - 40) / 80).collect()
    }

    #[test]
    fn texels_follow_the_gpus_fixed_point_steps() {
        // Corners (0,0), (12,0), (0,2) in packet order with u = 0, 2, 0 (v = 0): du/dx = 1/6 exactly,
        // which the GPU holds as trunc(4096 / 6) = 682 in 12-bit fixed point. It starts at the
        // leftmost corner, (0,0), with half a step added, so pixel x of row 0 takes texel
        // floor((2048 + 682 x) / 4096):
        //   x      0 1 2 3 4 5 6 7 8 9 10 11
        //   GPU    0 0 0 0 1 1 1 1 1 1 2  2
        // The exact plane floored (what the preview drew before) is floor(x / 6): 1 only from x = 6,
        // 2 never; rounded exactly it is 1 from x = 3 and 2 from x = 9, where the truncated step
        // (4094 and 8186, just short of 4096 and 8192) keeps the GPU on the texel before.
        let uv = [[0, 0], [2, 0], [0, 0]];
        assert_eq!(texel_row(uv, 0, 12), [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2]);
        // Row 1 (x < 6) steps from the same corner: dy = 0, so the same texels as row 0.
        assert_eq!(texel_row(uv, 1, 6), [0, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn gradients_truncate_toward_zero_from_the_leftmost_corner() {
        // The same triangle with u = 2, 0, 2: du/dx = -1/6, held as -682 (toward zero, not -683),
        // from corner (0,0) at 2 + 1/2: floor((10240 - 682 x) / 4096). At x = 3 that is 8194 (2;
        // floored exactly, 1.5 gives 1) and at x = 9 it is 4102 (1; floored exactly, 0.5 gives 0).
        assert_eq!(texel_row([[2, 0], [0, 0], [2, 0]], 0, 12), [2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0]);
        // Gouraud colours step the same way: red 0, 190, 0 gives dr/dx = 190/12, held as 64853
        // (exact 64853.33). Pixel 1 is floor((2048 + 64853) / 4096) = 16 (floored exactly, 15.83
        // gives 15), stored as 16 >> 3 = 2 and shown widened, (2 << 3) | (2 >> 2) = 16 (not 8);
        // pixel 3 is floor(196607 / 4096) = 47 (rounded exactly, 47.5 gives 48), stored as 5,
        // shown as 41 (not 49).
        let mut g = Canvas::new(12, 1, BG);
        g.fill_shaded([[0, 0], [12, 0], [0, 2]], [[0, 0, 0], [190, 0, 0], [0, 0, 0]], None);
        assert_eq!(g.pixel(1, 0), [16, 0, 0]);
        assert_eq!(g.pixel(3, 0), [41, 0, 0]);
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
