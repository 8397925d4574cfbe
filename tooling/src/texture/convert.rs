//! An RGBA image as the console's texture: 4-bit or 8-bit CLUT, or 15-bit direct colour, within one
//! 256 x 256 texture page.
//!
//! The console's colour rules: a colour is BGR555 (5 bits each, red lowest), the value `0x0000` is
//! transparent (the GPU skips the texel), so an opaque black is written `0x8000` (the STP bit set); a
//! texel whose alpha is under half is transparent. Channels round to the nearest of 32 steps.
//!
//! Depth (`--texture-depth`, or chosen from the image): an image of at most 16 colours (as BGR555,
//! transparency counting as one) is 4-bit and exact; more is 8-bit, exact up to 256 and quantised
//! above; 15-bit is only taken when asked (twice an 8-bit texture's VRAM, no CLUT). Quantising
//! (quantette's Wu quantiser in Oklab, with its Floyd-Steinberg dithering on request) builds the CLUT
//! from the opaque texels; a transparent texel takes entry 0, kept `0x0000`.
//!
//! An image larger than 256 in either direction is resized (Lanczos) to fit, keeping its proportions,
//! and the caller warns. The width is padded to whole halfwords (4 texels at 4-bit, 2 at 8-bit) with
//! transparent texels.

use image::RgbaImage;
use quantette::deps::palette::Srgb;
use quantette::dither::FloydSteinberg;
use quantette::{ImageRef, PaletteSize, Pipeline};

use super::tim::Depth;

/// Largest texture side: one texture page.
pub const MAX_SIDE: u32 = 256;

/// The texture the console stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleTexture {
    pub depth: Depth,
    /// Texels (the image's size after any resize; the stored rows are padded to whole halfwords).
    pub width: u32,
    pub height: u32,
    /// 16 or 256 BGR555 entries (unused ones 0), none at 15-bit.
    pub clut: Vec<u16>,
    /// Halfwords, `row_halfwords()` a row, texels packed lowest bits first.
    pub halfwords: Vec<u16>,
    /// Distinct colours of the image as BGR555 (transparency counting as one), before any quantising.
    pub source_colours: usize,
    /// The image's size when it had to be resized to fit a texture page.
    pub resized_from: Option<(u32, u32)>,
    /// The CLUT holds fewer colours than the image had.
    pub quantised: bool,
}

impl ConsoleTexture {
    pub fn row_halfwords(&self) -> u32 {
        self.width.div_ceil(self.depth.per_halfword() as u32)
    }

    /// The BGR555 colour of texel (x, y), 0 for transparent (what the GPU reads through the CLUT).
    pub fn texel(&self, x: u32, y: u32) -> u16 {
        super::tim::texel_colour(self.depth, &self.clut, &self.halfwords, self.row_halfwords() as usize, x as usize, y as usize)
    }
}

/// A colour as the console stores it (see the module's documentation).
pub fn bgr555(r: u8, g: u8, b: u8, a: u8) -> u16 {
    if a < 128 {
        return 0;
    }
    let five = |c: u8| (c as u16 * 31 + 127) / 255;
    let v = five(r) | five(g) << 5 | five(b) << 10;
    if v == 0 {
        0x8000
    } else {
        v
    }
}

/// Converts `image` at `depth` (None: chosen from the image), dithering when quantised if `dither`.
/// Fails on an empty image.
pub fn convert(image: &RgbaImage, depth: Option<Depth>, dither: bool) -> Result<ConsoleTexture, String> {
    let (w0, h0) = image.dimensions();
    if w0 == 0 || h0 == 0 {
        return Err(format!("the image is {w0}x{h0}"));
    }
    let (image, resized_from) = if w0 > MAX_SIDE || h0 > MAX_SIDE {
        let scale = MAX_SIDE as f64 / w0.max(h0) as f64;
        let (w, h) = (((w0 as f64 * scale).round() as u32).max(1), ((h0 as f64 * scale).round() as u32).max(1));
        (image::imageops::resize(image, w, h, image::imageops::FilterType::Lanczos3), Some((w0, h0)))
    } else {
        (image.clone(), None)
    };
    let (width, height) = image.dimensions();
    let colours: Vec<u16> = image.pixels().map(|p| bgr555(p[0], p[1], p[2], p[3])).collect();
    let mut distinct = colours.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let depth = depth.unwrap_or(if distinct.len() <= 16 { Depth::Four } else { Depth::Eight });
    let per = depth.per_halfword() as u32;
    let row = width.div_ceil(per);
    let mut out = ConsoleTexture {
        depth,
        width,
        height,
        clut: vec![0; depth.clut_entries()],
        halfwords: vec![0; (row * height) as usize],
        source_colours: distinct.len(),
        resized_from,
        quantised: false,
    };
    // The index of every texel (or its colour at 15-bit).
    let indices: Vec<u16> = match depth {
        Depth::Fifteen => colours,
        _ if distinct.len() <= depth.clut_entries() => {
            // Exact: the CLUT is the image's colours (transparent first, when present).
            out.clut[..distinct.len()].copy_from_slice(&distinct);
            colours.iter().map(|c| distinct.binary_search(c).expect("a colour of the image") as u16).collect()
        }
        _ => {
            out.quantised = true;
            quantise(&image, &colours, depth.clut_entries(), dither, &mut out.clut)
        }
    };
    for y in 0..height {
        for x in 0..width {
            let i = indices[(y * width + x) as usize];
            let at = (y * row + x / per) as usize;
            out.halfwords[at] |= match depth {
                Depth::Fifteen => i,
                _ => i << (depth.bits() * (x % per)),
            };
        }
    }
    Ok(out)
}

/// The CLUT indices of `image`'s texels, the CLUT (`entries` long) written into `clut`: quantette's
/// palette of the opaque texels, entry 0 transparent when any texel is.
fn quantise(image: &RgbaImage, colours: &[u16], entries: usize, dither: bool, clut: &mut [u16]) -> Vec<u16> {
    let transparent = colours.contains(&0);
    let shift = transparent as u16;
    // Transparent texels take an opaque neighbour's colour for the quantiser (their index is then 0).
    let fill = image.pixels().find(|p| p[3] >= 128).map_or([0, 0, 0], |p| [p[0], p[1], p[2]]);
    let rgb: Vec<Srgb<u8>> = image
        .pixels()
        .map(|p| if p[3] >= 128 { Srgb::new(p[0], p[1], p[2]) } else { Srgb::new(fill[0], fill[1], fill[2]) })
        .collect();
    let (w, h) = image.dimensions();
    let input = ImageRef::new(w, h, rgb.as_slice()).expect("one colour a texel");
    let indexed = Pipeline::new()
        .palette_size(PaletteSize::from_usize_clamped(entries - transparent as usize))
        .ditherer(dither.then(FloydSteinberg::new))
        .input_image(input)
        .output_srgb8_indexed_image();
    for (entry, c) in clut.iter_mut().skip(shift as usize).zip(indexed.palette()) {
        *entry = bgr555(c.red, c.green, c.blue, 255);
    }
    indexed
        .indices()
        .iter()
        .zip(colours)
        .map(|(&i, &c)| if c == 0 { 0 } else { i as u16 + shift })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| image::Rgba(f(x, y)))
    }

    #[test]
    fn colours_follow_the_consoles_rules() {
        assert_eq!(bgr555(0, 0, 0, 255), 0x8000, "opaque black keeps the STP bit");
        assert_eq!(bgr555(255, 0, 0, 127), 0, "alpha under half is transparent");
        assert_eq!(bgr555(255, 0, 0, 128), 0x001F);
        assert_eq!(bgr555(0, 255, 0, 255), 0x03E0);
        assert_eq!(bgr555(0, 0, 255, 255), 0x7C00);
        assert_eq!(bgr555(4, 4, 4, 255), 0x8000, "rounds to black");
        assert_eq!(bgr555(5, 5, 5, 255), 1 | 1 << 5 | 1 << 10);
    }

    #[test]
    fn few_colours_make_an_exact_4_bit_texture_and_more_an_8_bit_one() {
        // 3 x 2: red, transparent, black / green, red, blue.
        let px = [[255, 0, 0, 255], [9, 9, 9, 0], [0, 0, 0, 255], [0, 255, 0, 255], [255, 0, 0, 255], [0, 0, 255, 255]];
        let img = image(3, 2, |x, y| px[(y * 3 + x) as usize]);
        let t = convert(&img, None, false).unwrap();
        assert_eq!((t.depth, t.width, t.height, t.row_halfwords(), t.source_colours, t.quantised), (Depth::Four, 3, 2, 1, 5, false));
        assert_eq!(&t.clut[..5], &[0, 0x001F, 0x03E0, 0x7C00, 0x8000]);
        let texels: Vec<u16> = (0..2).flat_map(|y| (0..3).map(move |x| (x, y))).map(|(x, y)| t.texel(x, y)).collect();
        assert_eq!(texels, [0x001F, 0, 0x8000, 0x03E0, 0x001F, 0x7C00]);
        // Row 0 packs indices 1, 0, 4 lowest bits first.
        assert_eq!(t.halfwords[0], 1 | 4 << 8);
        // Asked for 8 bits: the same texels, two a halfword.
        let e = convert(&img, Some(Depth::Eight), false).unwrap();
        assert_eq!((e.depth, e.row_halfwords(), e.clut.len()), (Depth::Eight, 2, 256));
        assert!((0..2).all(|y| (0..3).all(|x| e.texel(x, y) == t.texel(x, y))));
        // 15-bit: the colours themselves.
        let f = convert(&img, Some(Depth::Fifteen), false).unwrap();
        assert_eq!((f.clut.len(), f.halfwords.len(), f.halfwords[2]), (0, 6, 0x8000));
    }

    #[test]
    fn many_colours_are_quantised_with_transparency_kept_and_large_images_fit_a_page() {
        // A 300 x 20 gradient with a transparent column: resized to 256 x 17, 8-bit, quantised.
        let img = image(300, 20, |x, y| if x == 150 { [0, 0, 0, 0] } else { [(x % 256) as u8, (y * 12) as u8, 255 - (x % 200) as u8, 255] });
        for dither in [false, true] {
            let t = convert(&img, None, dither).unwrap();
            assert_eq!((t.depth, t.width, t.height, t.resized_from, t.quantised), (Depth::Eight, 256, 17, Some((300, 20)), true));
            assert!(t.source_colours > 256);
            assert_eq!(t.clut[0], 0, "entry 0 is transparent");
            assert!(t.clut[1..].iter().all(|&c| c != 0), "every other entry opaque");
            // The resized transparent column (x = 128 of 256) stays transparent.
            assert!((0..17).all(|y| t.texel(128, y) == 0));
            assert!((0..17).all(|y| t.texel(5, y) != 0));
        }
        // 4-bit asked of a many-coloured image: 15 colours and transparency.
        let t = convert(&img, Some(Depth::Four), false).unwrap();
        assert_eq!((t.clut.len(), t.clut[0], t.row_halfwords()), (16, 0, 64));
        assert!(convert(&image(0, 5, |_, _| [0; 4]), None, false).unwrap_err().contains("0x5"));
    }
}
