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

/// A looping animated GIF. The previews use a handful of flat colours, so one exact global palette
/// usually holds them all; otherwise each frame is quantised on its own.
pub fn encode_gif(frames: &[Canvas], delay_cs: u16) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("GIF: no frames")?;
    let (w, h) = (u16::try_from(first.width).map_err(|_| "GIF: too wide")?, u16::try_from(first.height).map_err(|_| "GIF: too tall")?);
    let palette = exact_palette(frames);
    let mut out = Vec::new();
    {
        let global: Vec<u8> = palette.as_ref().map(|p| p.iter().flatten().copied().collect()).unwrap_or_default();
        let mut enc = gif::Encoder::new(&mut out, w, h, &global).map_err(|e| format!("GIF: {e}"))?;
        enc.set_repeat(gif::Repeat::Infinite).map_err(|e| format!("GIF: {e}"))?;
        for f in frames {
            let mut frame = match &palette {
                Some(p) => {
                    let index: std::collections::HashMap<[u8; 3], u8> = p.iter().enumerate().map(|(i, c)| (*c, i as u8)).collect();
                    let buffer: Vec<u8> = f.rgb.chunks_exact(3).map(|c| index[&[c[0], c[1], c[2]]]).collect();
                    gif::Frame::from_indexed_pixels(w, h, buffer, None)
                }
                None => gif::Frame::from_rgb_speed(w, h, &f.rgb, 10),
            };
            frame.delay = delay_cs;
            enc.write_frame(&frame).map_err(|e| format!("GIF: {e}"))?;
        }
    }
    Ok(out)
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
        assert_eq!(got, vec![a.rgb, b.rgb]);
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
