//! Picture files: a PNG contact sheet of frames and an animated GIF.

use super::raster::Canvas;

/// Columns of a contact sheet.
pub const SHEET_COLUMNS: usize = 6;
/// Gap between the cells of a contact sheet, in pixels.
const SHEET_GAP: usize = 2;

/// Lays `frames` (all the same size) out in rows of [`SHEET_COLUMNS`].
pub fn contact_sheet(frames: &[Canvas], gap_colour: [u8; 3]) -> Canvas {
    let (w, h) = frames.first().map(|f| (f.width, f.height)).unwrap_or((1, 1));
    let cols = frames.len().clamp(1, SHEET_COLUMNS);
    let rows = frames.len().div_ceil(cols).max(1);
    let mut sheet = Canvas::new(cols * (w + SHEET_GAP) - SHEET_GAP, rows * (h + SHEET_GAP) - SHEET_GAP, gap_colour);
    for (i, f) in frames.iter().enumerate() {
        sheet.blit(f, (i % cols) * (w + SHEET_GAP), (i / cols) * (h + SHEET_GAP));
    }
    sheet
}

/// An 8-bit RGB PNG of `canvas`.
pub fn encode_png(canvas: &Canvas) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, canvas.width as u32, canvas.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
        w.write_image_data(&canvas.rgb).map_err(|e| format!("PNG: {e}"))?;
    }
    Ok(out)
}

/// GIF frame delay in hundredths of a second for a clip at `rate_hz` (browsers slow down delays below 2).
pub fn gif_delay(rate_hz: u32) -> u16 {
    ((100.0 / rate_hz.max(1) as f64).round() as u16).max(2)
}

/// A looping animated GIF written frame by frame, so that a long clip never holds more than one
/// picture in memory. With a palette that holds every colour (the previews use a handful of flat
/// colours known in advance) frames are stored exactly; a frame with a colour outside it, or a writer
/// without a palette, is quantised on its own.
pub struct GifWriter {
    encoder: gif::Encoder<Vec<u8>>,
    index: std::collections::HashMap<[u8; 3], u8>,
    width: u16,
    height: u16,
    delay_cs: u16,
}

impl GifWriter {
    pub fn new(width: usize, height: usize, palette: Option<&[[u8; 3]]>, delay_cs: u16) -> Result<GifWriter, String> {
        let w = u16::try_from(width).map_err(|_| "GIF: too wide")?;
        let h = u16::try_from(height).map_err(|_| "GIF: too tall")?;
        let palette = palette.filter(|p| !p.is_empty() && p.len() <= 256).unwrap_or(&[]);
        let global: Vec<u8> = palette.iter().flatten().copied().collect();
        let mut encoder = gif::Encoder::new(Vec::new(), w, h, &global).map_err(|e| format!("GIF: {e}"))?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| format!("GIF: {e}"))?;
        let index = palette.iter().enumerate().map(|(i, c)| (*c, i as u8)).collect();
        Ok(GifWriter { encoder, index, width: w, height: h, delay_cs })
    }

    pub fn add(&mut self, canvas: &Canvas) -> Result<(), String> {
        if (canvas.width, canvas.height) != (self.width as usize, self.height as usize) {
            return Err(format!("GIF: frame of {}x{} in a {}x{} animation", canvas.width, canvas.height, self.width, self.height));
        }
        let indexed: Option<Vec<u8>> = canvas.rgb.chunks_exact(3).map(|c| self.index.get(&[c[0], c[1], c[2]]).copied()).collect();
        let mut frame = match indexed {
            Some(buffer) => gif::Frame::from_indexed_pixels(self.width, self.height, buffer, None),
            None => gif::Frame::from_rgb_speed(self.width, self.height, &canvas.rgb, 10),
        };
        frame.delay = self.delay_cs;
        self.encoder.write_frame(&frame).map_err(|e| format!("GIF: {e}"))
    }

    pub fn finish(self) -> Result<Vec<u8>, String> {
        self.encoder.into_inner().map_err(|e| format!("GIF: {e}"))
    }
}

/// A looping animated GIF of `frames` (all the same size), exact when they use at most 256 colours.
pub fn encode_gif(frames: &[Canvas], delay_cs: u16) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("GIF: no frames")?;
    let palette = exact_palette(frames);
    let mut w = GifWriter::new(first.width, first.height, palette.as_deref(), delay_cs)?;
    for f in frames {
        w.add(f)?;
    }
    w.finish()
}

/// Every colour of every frame, when there are at most 256 of them.
fn exact_palette(frames: &[Canvas]) -> Option<Vec<[u8; 3]>> {
    let mut seen = std::collections::HashSet::new();
    let mut palette = Vec::new();
    for f in frames {
        for c in f.rgb.chunks_exact(3) {
            let c = [c[0], c[1], c[2]];
            if seen.insert(c) {
                if palette.len() == 256 {
                    return None;
                }
                palette.push(c);
            }
        }
    }
    Some(palette)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gif_round_trips_frames_exactly() {
        let mut a = Canvas::new(8, 4, [1, 2, 3]);
        a.fill_triangle([[0, 0], [8, 0], [0, 4]], [200, 10, 10]);
        let b = Canvas::new(8, 4, [9, 9, 9]);
        let bytes = encode_gif(&[a.clone(), b.clone()], gif_delay(30)).unwrap();
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = opts.read_info(bytes.as_slice()).unwrap();
        let mut got = Vec::new();
        while let Some(f) = dec.read_next_frame().unwrap() {
            assert_eq!(f.delay, 3);
            got.push(f.buffer.chunks_exact(4).flat_map(|c| [c[0], c[1], c[2]]).collect::<Vec<u8>>());
        }
        assert_eq!(got, vec![a.rgb.clone(), b.rgb.clone()]);

        // A colour missing from a given palette is quantised, not dropped or mis-indexed.
        let mut w = GifWriter::new(8, 4, Some(&[[1, 2, 3]]), 5).unwrap();
        w.add(&b).unwrap();
        assert!(w.add(&Canvas::new(4, 4, [0; 3])).is_err(), "frame size is checked");
        let bytes = w.finish().unwrap();
        let mut dec = gif::DecodeOptions::new();
        dec.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = dec.read_info(bytes.as_slice()).unwrap();
        let f = dec.read_next_frame().unwrap().unwrap();
        assert!(f.buffer.chunks_exact(4).all(|c| c[..3].iter().zip([9u8, 9, 9]).all(|(x, y)| x.abs_diff(y) <= 8)));
    }

    #[test]
    fn sheet_places_frames_in_rows() {
        let frames: Vec<Canvas> = (0..8).map(|i| Canvas::new(4, 3, [i as u8, 0, 0])).collect();
        let s = contact_sheet(&frames, [255; 3]);
        assert_eq!((s.width, s.height), (6 * 6 - 2, 2 * 5 - 2));
        assert_eq!(s.pixel(6 * 5, 0), [5, 0, 0]);
        assert_eq!(s.pixel(6, 5), [7, 0, 0]);
        assert_eq!(s.pixel(4, 0), [255; 3]);
    }
}
