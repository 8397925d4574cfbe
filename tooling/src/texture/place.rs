//! The default VRAM placement of a character's textures and CLUTs, outside two 320 x 240 frame
//! buffers (x 0-319, y 0-479): textures from x 320 on, column by column (a column starts at a texture
//! page's left edge, x a multiple of 64), stacked down a column without crossing the page rows' edge
//! at y 256 (a page spans 256 x 256 texels: 64 halfwords wide at 4 bits, 128 at 8, 256 at 15, so a
//! texture stays inside one page and its UVs count from the page's corner); CLUTs in the rows under the
//! frame buffers (y 480-511, x a multiple of 16). A tiled texture (drawn through the texture window)
//! starts at a multiple of its height down its column (its page's left edge is a multiple of its width
//! already), where the window's offset can name its corner. A game may place them itself; this is
//! what `import` states and the examples use.

use super::tim::{Depth, Rect};

/// A texture to place: its depth and size in texels.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    pub depth: Depth,
    pub width: u32,
    pub height: u32,
    /// Drawn through the texture window (a power-of-two size): aligned to its size.
    pub tiled: bool,
}

/// The image and CLUT rectangles of each texture (None for a 15-bit texture's CLUT), or why they do
/// not fit in VRAM.
pub fn place(needs: &[Need]) -> Result<Vec<(Rect, Option<Rect>)>, String> {
    let (mut x, mut y_top, mut y_bottom) = (320u32, 0u32, 256u32);
    let mut column_width = 0u32;
    let (mut clut_x, mut clut_y) = (0u32, 480u32);
    let mut out = Vec::new();
    for (i, n) in needs.iter().enumerate() {
        let w = n.width.div_ceil(n.depth.per_halfword() as u32);
        // A page's width: the next texture page boundary at or after x + w.
        let span = w.div_ceil(64) * 64;
        // A tiled texture's rows start at a multiple of its height (which divides 256).
        let align = |y: u32| if n.tiled { y.next_multiple_of(n.height) } else { y };
        let (tx, ty) = if align(y_top) + n.height <= 256 && column_width >= span {
            let at = (x, align(y_top));
            y_top = at.1 + n.height;
            at
        } else if align(y_bottom) + n.height <= 512 && column_width >= span {
            let at = (x, align(y_bottom));
            y_bottom = at.1 + n.height;
            at
        } else {
            x += column_width;
            column_width = span;
            y_top = n.height;
            y_bottom = 256;
            (x, 0)
        };
        if tx + w > 1024 {
            return Err(format!("texture {i} ({}x{} at {} bits) does not fit in VRAM beside the others", n.width, n.height, n.depth.bits()));
        }
        let image = Rect { x: tx as u16, y: ty as u16, w: w as u16, h: n.height as u16 };
        let clut = match n.depth.clut_entries() {
            0 => None,
            entries => {
                if clut_x + entries as u32 > 320 {
                    clut_x = 0;
                    clut_y += 1;
                }
                if clut_y >= 512 {
                    return Err(format!("texture {i}'s CLUT does not fit in the rows under the frame buffers"));
                }
                let r = Rect { x: clut_x as u16, y: clut_y as u16, w: entries as u16, h: 1 };
                clut_x += entries as u32;
                Some(r)
            }
        };
        out.push((image, clut));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textures_go_beside_the_frame_buffers_inside_one_page_each_and_never_overlap() {
        let n = |depth, width, height| Need { depth, width, height, tiled: false };
        let placed = place(&[n(Depth::Four, 256, 256), n(Depth::Eight, 64, 64), n(Depth::Eight, 128, 100), n(Depth::Fifteen, 32, 32)]).unwrap();
        assert_eq!(placed[0], (Rect { x: 320, y: 0, w: 64, h: 256 }, Some(Rect { x: 0, y: 480, w: 16, h: 1 })));
        assert_eq!(placed[1].0, Rect { x: 320, y: 256, w: 32, h: 64 });
        assert_eq!(placed[1].1, Some(Rect { x: 16, y: 480, w: 256, h: 1 }));
        // The third CLUT no longer fits in row 480 under the 320-wide frame buffers.
        assert_eq!(placed[2].1, Some(Rect { x: 0, y: 481, w: 256, h: 1 }));
        assert_eq!(placed[3].1, None);
        let rects: Vec<Rect> = placed.iter().flat_map(|(i, c)| std::iter::once(*i).chain(*c)).collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.in_vram() && !a.overlaps(&Rect { x: 0, y: 0, w: 320, h: 480 }), "{a:?}");
            for b in &rects[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} {b:?}");
            }
            // Each texture starts at a page column's edge and stays inside one page row.
            if a.h > 1 {
                assert!(a.x % 64 == 0 && a.y / 256 == (a.y + a.h - 1) / 256, "{a:?}");
            }
        }
        // Eleven 15-bit 256 x 256 textures need 11 x 256 halfwords of width: more than VRAM has.
        assert!(place(&[n(Depth::Fifteen, 256, 256); 11]).unwrap_err().contains("does not fit in VRAM"));
    }

    #[test]
    fn a_tiled_texture_starts_at_a_multiple_of_its_size_in_its_page() {
        // 40 rows of an untiled texture, then a tiled 32 x 32: down to row 64, not 40; the next
        // untiled one follows it directly.
        let tiled = Need { depth: Depth::Four, width: 32, height: 32, tiled: true };
        let placed = place(&[Need { depth: Depth::Eight, width: 64, height: 40, tiled: false }, tiled, Need { tiled: false, ..tiled }]).unwrap();
        assert_eq!(placed.iter().map(|(r, _)| (r.x, r.y)).collect::<Vec<_>>(), [(320, 0), (320, 64), (320, 96)]);
    }
}
