//! TIM, the PlayStation's own image file (what Sony's tools, PSn00bSDK's and psyqo's converters and
//! every PS1 texture viewer read): reader and writer.
//!
//! Layout (little-endian): `u32 id` (0x10), `u32 flags` (bits 0-1 the texel depth: 0 4-bit CLUT, 1
//! 8-bit CLUT, 2 15-bit direct, 3 24-bit; bit 3 a CLUT block follows), then the CLUT block if flagged
//! and the image block. A block is `u32 size` (its bytes, these 12 included), `u16 x, y, w, h` (its
//! VRAM rectangle in 16-bit units) and `w * h` halfwords. An image block's width counts halfwords: a
//! 4-bit texture of 64 texels is 16 wide, an 8-bit one 32.
//!
//! Reader choices: 24-bit images are refused (no texture uses them); a block whose size disagrees with
//! its rectangle, or that runs past the file, is an error naming its offset; bytes after the image
//! block are ignored, as the console's loaders ignore them.

use binrw::{binrw, BinRead, BinWrite};
use std::io::Cursor;

pub const ID: u32 = 0x10;
const FLAG_CLUT: u32 = 1 << 3;

/// A VRAM rectangle in 16-bit units: x 0..1024, y 0..512.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rect {
    pub x: u16,
    pub y: u16,
    pub w: u16,
    pub h: u16,
}

/// The runtime's rectangle (`tables::textures::Rect`) is the one whose rules count: this one adds the
/// serialisation the reports need.
impl From<psxanim_runtime::tables::textures::Rect> for Rect {
    fn from(r: psxanim_runtime::tables::textures::Rect) -> Rect {
        Rect { x: r.x, y: r.y, w: r.w, h: r.h }
    }
}

impl Rect {
    fn runtime(&self) -> psxanim_runtime::tables::textures::Rect {
        psxanim_runtime::tables::textures::Rect { x: self.x, y: self.y, w: self.w, h: self.h }
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.runtime().overlaps(&o.runtime())
    }

    /// Inside the console's 1024 x 512 VRAM.
    pub fn in_vram(&self) -> bool {
        self.runtime().inside_vram()
    }
}

/// How many bits a texel takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Depth {
    Four,
    Eight,
    Fifteen,
}

impl Depth {
    pub fn bits(self) -> u32 {
        match self {
            Depth::Four => 4,
            Depth::Eight => 8,
            Depth::Fifteen => 16,
        }
    }

    /// Texels in one 16-bit VRAM unit.
    pub fn per_halfword(self) -> u16 {
        (16 / self.bits()) as u16
    }

    /// CLUT entries (0 for direct colour).
    pub fn clut_entries(self) -> usize {
        match self {
            Depth::Four => 16,
            Depth::Eight => 256,
            Depth::Fifteen => 0,
        }
    }

    fn mode(self) -> u32 {
        match self {
            Depth::Four => 0,
            Depth::Eight => 1,
            Depth::Fifteen => 2,
        }
    }
}

/// The colour of texel (x, y) of packed `image` (`row` halfwords a row, texels lowest bits first) as
/// the GPU reads it: through `clut` at 4 and 8 bits, the halfword itself at 15; 0 (transparent) where
/// the image or the CLUT does not reach.
pub fn texel_colour(depth: Depth, clut: &[u16], image: &[u16], row: usize, x: usize, y: usize) -> u16 {
    let word = image.get(y * row + x / depth.per_halfword() as usize).copied().unwrap_or(0);
    match depth {
        Depth::Fifteen => word,
        Depth::Four => clut.get(((word >> (4 * (x % 4))) & 0xF) as usize).copied().unwrap_or(0),
        Depth::Eight => clut.get(((word >> (8 * (x % 2))) & 0xFF) as usize).copied().unwrap_or(0),
    }
}

/// A block header: size, then the rectangle.
#[binrw]
#[brw(little)]
struct BlockHeader {
    size: u32,
    x: u16,
    y: u16,
    w: u16,
    h: u16,
}

#[binrw]
#[brw(little)]
struct FileHeader {
    id: u32,
    flags: u32,
}

/// A TIM image: its depth, its CLUT (placed at `clut_at`, one row) and its halfwords (placed at
/// `image_at`, `image_at.w` halfwords a row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tim {
    pub depth: Depth,
    pub clut_at: Option<Rect>,
    pub clut: Vec<u16>,
    pub image_at: Rect,
    pub image: Vec<u16>,
}

impl Tim {
    /// The texture's width in texels.
    pub fn texel_width(&self) -> u32 {
        self.image_at.w as u32 * self.depth.per_halfword() as u32
    }

    /// The texels as the GPU reads them, RGBA8 row by row: through the CLUT, 5-bit channels widened,
    /// `0x0000` transparent (alpha 0).
    pub fn rgba(&self) -> Vec<u8> {
        let (w, h) = (self.texel_width() as usize, self.image_at.h as usize);
        let mut out = Vec::with_capacity(4 * w * h);
        for y in 0..h {
            for x in 0..w {
                let c = texel_colour(self.depth, &self.clut, &self.image, self.image_at.w as usize, x, y);
                let five = |v: u16| ((v & 31) * 255 / 31) as u8;
                out.extend([five(c), five(c >> 5), five(c >> 10), if c == 0 { 0 } else { 255 }]);
            }
        }
        out
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        let flags = self.depth.mode() | if self.clut_at.is_some() { FLAG_CLUT } else { 0 };
        FileHeader { id: ID, flags }.write(&mut out).expect("writing to a Vec cannot fail");
        let block = |at: Rect, words: &[u16], out: &mut Cursor<Vec<u8>>| {
            BlockHeader { size: 12 + 2 * words.len() as u32, x: at.x, y: at.y, w: at.w, h: at.h }
                .write(out)
                .expect("writing to a Vec cannot fail");
            for w in words {
                w.write_le(out).expect("writing to a Vec cannot fail");
            }
        };
        if let Some(at) = self.clut_at {
            block(at, &self.clut, &mut out);
        }
        block(self.image_at, &self.image, &mut out);
        out.into_inner()
    }

    pub fn parse(bytes: &[u8]) -> Result<Tim, String> {
        let mut r = Cursor::new(bytes);
        let header = FileHeader::read(&mut r).map_err(|_| "offset 0: shorter than a TIM header (8 bytes)".to_string())?;
        if header.id != ID {
            return Err(format!("offset 0: id {:#x}, expected 0x10 (a TIM file)", header.id));
        }
        let depth = match header.flags & 3 {
            0 => Depth::Four,
            1 => Depth::Eight,
            2 => Depth::Fifteen,
            _ => return Err("offset 4: a 24-bit TIM, which no texture uses".into()),
        };
        let block = |r: &mut Cursor<&[u8]>| -> Result<(Rect, Vec<u16>), String> {
            let at = r.position() as usize;
            let h = BlockHeader::read(r).map_err(|_| format!("offset {at}: a block header runs past the file"))?;
            let count = h.w as usize * h.h as usize;
            if h.size as usize != 12 + 2 * count {
                return Err(format!("offset {at}: block size {} for a {}x{} rectangle (expected {})", h.size, h.w, h.h, 12 + 2 * count));
            }
            let data = bytes.get(at + 12..at + 12 + 2 * count).ok_or_else(|| format!("offset {at}: the block runs past the file"))?;
            r.set_position((at + 12 + 2 * count) as u64);
            Ok((Rect { x: h.x, y: h.y, w: h.w, h: h.h }, data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()))
        };
        let (clut_at, clut) = if header.flags & FLAG_CLUT != 0 {
            let (at, words) = block(&mut r)?;
            (Some(at), words)
        } else {
            (None, Vec::new())
        };
        let (image_at, image) = block(&mut r)?;
        Ok(Tim { depth, clut_at, clut, image_at, image })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(depth: Depth) -> Tim {
        let clut_at = (depth != Depth::Fifteen).then_some(Rect { x: 0, y: 480, w: depth.clut_entries() as u16, h: 1 });
        Tim {
            depth,
            clut_at,
            clut: (0..depth.clut_entries() as u16).map(|i| (i * 3) | 0x8000).collect(),
            image_at: Rect { x: 320, y: 0, w: 2, h: 3 },
            image: vec![1, 2, 3, 4, 5, 6],
        }
    }

    #[test]
    fn a_written_tim_reads_back_and_has_the_layout_of_the_format() {
        for depth in [Depth::Four, Depth::Eight, Depth::Fifteen] {
            let t = sample(depth);
            let b = t.to_bytes();
            assert_eq!(Tim::parse(&b).unwrap(), t);
            assert_eq!(&b[..4], &[0x10, 0, 0, 0]);
            let clut_bytes = t.clut_at.map_or(0, |_| 12 + 2 * depth.clut_entries());
            assert_eq!(b.len(), 8 + clut_bytes + 12 + 12);
            assert_eq!(b[4] as u32, depth.mode() | if t.clut_at.is_some() { 8 } else { 0 });
        }
        // A 4-bit texture of 2 halfwords a row is 8 texels wide.
        assert_eq!(sample(Depth::Four).texel_width(), 8);
        assert_eq!(sample(Depth::Eight).texel_width(), 4);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_read_without_panicking_and_what_reads_writes_back(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), flags in 0u8..16) {
            // Half the cases start as a TIM, so that blocks are reached.
            let mut b = bytes;
            if flags % 2 == 0 && b.len() >= 8 {
                b[..8].copy_from_slice(&[0x10, 0, 0, 0, flags, 0, 0, 0]);
            }
            if let Ok(t) = Tim::parse(&b) {
                proptest::prop_assert_eq!(Tim::parse(&t.to_bytes()).unwrap(), t.clone());
                proptest::prop_assert_eq!(t.rgba().len(), 4 * t.texel_width() as usize * t.image_at.h as usize);
            }
        }
    }

    #[test]
    fn damaged_files_are_refused_naming_the_offset() {
        let b = sample(Depth::Four).to_bytes();
        assert!(Tim::parse(&b[..6]).unwrap_err().contains("offset 0"));
        assert!(Tim::parse(&b[..b.len() - 1]).unwrap_err().contains("runs past the file"), "{}", Tim::parse(&b[..b.len() - 1]).unwrap_err());
        let mut wrong = b.clone();
        wrong[8] = 0;
        assert!(Tim::parse(&wrong).unwrap_err().starts_with("offset 8: block size"));
        let mut not = b.clone();
        not[0] = 0x11;
        assert!(Tim::parse(&not).unwrap_err().contains("expected 0x10"));
        let mut deep = b;
        deep[4] = 3;
        assert!(Tim::parse(&deep).unwrap_err().contains("24-bit"));
        let r = |x, y, w, h| Rect { x, y, w, h };
        assert!(r(0, 0, 10, 10).overlaps(&r(9, 9, 1, 1)) && !r(0, 0, 10, 10).overlaps(&r(10, 0, 5, 5)));
        assert!(r(960, 0, 64, 512).in_vram() && !r(961, 0, 64, 1).in_vram());
    }
}
