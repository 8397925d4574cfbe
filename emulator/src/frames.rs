//! Captured frames as files: PNG per frame, a contact sheet of several, an animated GIF. Every file is
//! written beside its final name and renamed, so an interrupted run leaves no half-written image.
use crate::Screenshot;
use anyhow::{ensure, Context, Result};
use std::io::Write;
use std::path::Path;

/// Writes a screenshot as an 8-bit RGB PNG.
pub fn write_png(path: &Path, shot: &Screenshot) -> Result<()> {
    check(shot)?;
    write_atomic(path, |out| {
        let mut encoder = png::Encoder::new(out, shot.width, shot.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&shot.rgb)?;
        writer.finish()?;
        Ok(())
    })
}

/// Number of distinct colours in a screenshot (1 means a blank image).
pub fn distinct_colours(shot: &Screenshot) -> usize {
    let mut seen: Vec<[u8; 3]> = shot.rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// Gap between the sheet's tiles and around them, in pixels.
const SHEET_GAP: u32 = 4;
const SHEET_BACKGROUND: [u8; 3] = [24, 24, 24];
/// Frame numbers are drawn in each tile's corner with this 3x5 digit font (a tile is otherwise
/// anonymous), two sheet pixels per font pixel.
const DIGITS: [u16; 10] = [0x7B6F, 0x2C97, 0x73E7, 0x73CF, 0x5BC9, 0x79CF, 0x79EF, 0x7249, 0x7BEF, 0x7BCF];
const DIGIT_SCALE: u32 = 2;

/// Half-size tiles of the shots, `columns` to a row, each labelled with its frame number.
pub fn contact_sheet(shots: &[Screenshot], columns: u32) -> Result<Screenshot> {
    ensure!(!shots.is_empty(), "a contact sheet needs at least one frame");
    for shot in shots {
        check(shot)?;
    }
    let columns = columns.clamp(1, shots.len() as u32);
    let rows = (shots.len() as u32).div_ceil(columns);
    let tile_w = shots.iter().map(|s| s.width / 2).max().unwrap_or(1);
    let tile_h = shots.iter().map(|s| s.height / 2).max().unwrap_or(1);
    let width = columns * tile_w + (columns + 1) * SHEET_GAP;
    let height = rows * tile_h + (rows + 1) * SHEET_GAP;
    let mut rgb: Vec<u8> = SHEET_BACKGROUND.iter().copied().cycle().take((width * height * 3) as usize).collect();
    for (i, shot) in shots.iter().enumerate() {
        let (col, row) = (i as u32 % columns, i as u32 / columns);
        let (x0, y0) = (SHEET_GAP + col * (tile_w + SHEET_GAP), SHEET_GAP + row * (tile_h + SHEET_GAP));
        for y in 0..shot.height / 2 {
            for x in 0..shot.width / 2 {
                let from = (((2 * y) * shot.width + 2 * x) * 3) as usize;
                let to = (((y0 + y) * width + x0 + x) * 3) as usize;
                rgb[to..to + 3].copy_from_slice(&shot.rgb[from..from + 3]);
            }
        }
        label(&mut rgb, width, x0 + 2, y0 + 2, shot.frame);
    }
    Ok(Screenshot { frame: shots[shots.len() - 1].frame, width, height, rgb })
}

/// Draws `number` in white on a black box at (x, y) of an RGB image `width` pixels wide.
fn label(rgb: &mut [u8], width: u32, x: u32, y: u32, number: u32) {
    let text = number.to_string();
    let (glyph_w, glyph_h) = (4 * DIGIT_SCALE, 5 * DIGIT_SCALE);
    let box_w = text.len() as u32 * glyph_w + DIGIT_SCALE;
    let box_h = glyph_h + 2 * DIGIT_SCALE;
    let mut put = |px: u32, py: u32, colour: [u8; 3]| {
        let at = ((py * width + px) * 3) as usize;
        if let Some(pixel) = rgb.get_mut(at..at + 3) {
            pixel.copy_from_slice(&colour);
        }
    };
    for py in 0..box_h {
        for px in 0..box_w {
            put(x + px, y + py, [0, 0, 0]);
        }
    }
    for (i, digit) in text.bytes().enumerate() {
        let bits = DIGITS[usize::from(digit - b'0')];
        for row in 0..5u32 {
            for col in 0..3u32 {
                if bits >> (14 - (row * 3 + col)) & 1 == 1 {
                    for sy in 0..DIGIT_SCALE {
                        for sx in 0..DIGIT_SCALE {
                            let gx = x + DIGIT_SCALE + i as u32 * glyph_w + col * DIGIT_SCALE + sx;
                            put(gx, y + DIGIT_SCALE + row * DIGIT_SCALE + sy, [255, 255, 255]);
                        }
                    }
                }
            }
        }
    }
}

/// An animated GIF of the shots, each shown for `delay_frames` vsyncs (`vsync_hz` a second), looping.
/// Shots of different sizes (a program that changed video mode) are placed top-left on the largest.
pub fn write_gif(path: &Path, shots: &[Screenshot], delay_frames: u32, vsync_hz: u32) -> Result<()> {
    ensure!(!shots.is_empty(), "a GIF needs at least one frame");
    for shot in shots {
        check(shot)?;
    }
    let width = shots.iter().map(|s| s.width).max().unwrap_or(1);
    let height = shots.iter().map(|s| s.height).max().unwrap_or(1);
    ensure!(width <= u32::from(u16::MAX) && height <= u32::from(u16::MAX), "{width}x{height} is too large for a GIF");
    let delay = (delay_frames * 100).div_ceil(vsync_hz.max(1)).clamp(2, u32::from(u16::MAX)) as u16;
    write_atomic(path, |out| {
        let mut encoder = gif::Encoder::new(out, width as u16, height as u16, &[])?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        for shot in shots {
            let mut canvas = vec![0u8; (width * height * 3) as usize];
            for y in 0..shot.height {
                let from = (y * shot.width * 3) as usize;
                let to = (y * width * 3) as usize;
                canvas[to..to + (shot.width * 3) as usize].copy_from_slice(&shot.rgb[from..from + (shot.width * 3) as usize]);
            }
            // Speed 10: NeuQuant's usual trade of quality for time on 320x240 pictures.
            let mut frame = gif::Frame::from_rgb_speed(width as u16, height as u16, &canvas, 10);
            frame.delay = delay;
            encoder.write_frame(&frame)?;
        }
        Ok(())
    })
}

fn check(shot: &Screenshot) -> Result<()> {
    let expected = shot.width as usize * shot.height as usize * 3;
    ensure!(
        shot.width > 0 && shot.height > 0 && shot.rgb.len() == expected,
        "screenshot of frame {}: {}x{} needs {expected} RGB bytes, got {}",
        shot.frame,
        shot.width,
        shot.height,
        shot.rgb.len()
    );
    Ok(())
}

/// Writes through `write` into a temporary file beside `path`, then renames it to `path`.
fn write_atomic(path: &Path, write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<()>) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "frame".into());
    let temp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let result = (|| -> Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&temp)?);
        write(&mut out)?;
        out.flush()?;
        std::fs::rename(&temp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(frame: u32, w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> Screenshot {
        let rgb = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| f(x, y)).collect();
        Screenshot { frame, width: w, height: h, rgb }
    }

    #[test]
    fn png_round_trips_through_a_decoder() {
        let s = shot(7, 5, 3, |x, y| [x as u8 * 40, y as u8 * 80, 9]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.png");
        write_png(&path, &s).unwrap();
        let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height, info.color_type), (5, 3, png::ColorType::Rgb));
        assert_eq!(&buf[..info.buffer_size()], &s.rgb[..]);
        // Nothing but the PNG is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn short_pixel_data_is_refused_and_nothing_is_written() {
        let mut s = shot(1, 4, 4, |_, _| [0; 3]);
        s.rgb.pop();
        let dir = tempfile::tempdir().unwrap();
        assert!(write_png(&dir.path().join("x.png"), &s).is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn colour_count() {
        assert_eq!(distinct_colours(&shot(1, 4, 4, |_, _| [1, 2, 3])), 1);
        assert_eq!(distinct_colours(&shot(1, 4, 4, |x, _| [x as u8, 0, 0])), 4);
    }

    #[test]
    fn a_sheet_places_half_size_tiles_in_rows_with_labels() {
        let red = shot(60, 320, 240, |_, _| [200, 0, 0]);
        let blue = shot(120, 320, 240, |_, _| [0, 0, 200]);
        let green = shot(180, 320, 240, |_, _| [0, 200, 0]);
        let sheet = contact_sheet(&[red, blue, green], 2).unwrap();
        assert_eq!((sheet.width, sheet.height), (2 * 160 + 3 * SHEET_GAP, 2 * 120 + 3 * SHEET_GAP));
        let at = |x: u32, y: u32| {
            let i = ((y * sheet.width + x) * 3) as usize;
            [sheet.rgb[i], sheet.rgb[i + 1], sheet.rgb[i + 2]]
        };
        // Tiles in reading order, away from the labels; the gaps keep the background.
        assert_eq!(at(SHEET_GAP + 100, SHEET_GAP + 100), [200, 0, 0]);
        assert_eq!(at(2 * SHEET_GAP + 160 + 100, SHEET_GAP + 100), [0, 0, 200]);
        assert_eq!(at(SHEET_GAP + 100, 2 * SHEET_GAP + 120 + 100), [0, 200, 0]);
        assert_eq!(at(1, 1), SHEET_BACKGROUND);
        assert_eq!(at(2 * SHEET_GAP + 160 + 100, 2 * SHEET_GAP + 120 + 100), SHEET_BACKGROUND);
        // The label of the first tile ("60") has white pixels in its corner.
        let corner = (0..20).flat_map(|y| (0..24).map(move |x| (x, y)));
        assert!(corner.clone().any(|(x, y)| at(SHEET_GAP + x, SHEET_GAP + y) == [255, 255, 255]));
        assert!(contact_sheet(&[], 2).is_err());
    }

    #[test]
    fn a_gif_has_one_frame_per_shot_with_the_delay() {
        let shots: Vec<Screenshot> =
            (1..=3).map(|i| shot(i * 30, 64, 48, move |x, _| [(x * 4) as u8, (i * 60) as u8, 0])).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.gif");
        write_gif(&path, &shots, 30, 60).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(std::fs::File::open(&path).unwrap()).unwrap();
        let mut frames = 0;
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!((frame.width, frame.height, frame.delay), (64, 48, 50));
            frames += 1;
        }
        assert_eq!(frames, 3);
    }
}
