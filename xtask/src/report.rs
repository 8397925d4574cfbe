//! The outcome of one verify run: the checks, the record read back, the screenshots; written as JSON
//! (`report-EXAMPLE-EMULATOR.json`) and as PNG files.
use crate::backends::{Emulator, Screenshot};
use anyhow::{ensure, Context, Result};
use psxanim_runtime::record::RecordView;
use serde::Serialize;
use std::path::Path;

/// One comparison.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    /// What was expected and what was found, when that helps.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Check {
    pub fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> Self {
        Check { name: name.into(), passed, detail: detail.into() }
    }
}

/// The record as found in RAM.
#[derive(Debug, Clone, Serialize)]
pub struct RecordSummary {
    pub offset: String,
    pub program: String,
    pub status: u32,
    pub frames: u32,
    pub error: u32,
    pub error_detail: u32,
    pub result_len: u32,
    /// Root counter 2 readings (ticks of 8 CPU cycles).
    pub cycles: Vec<u32>,
}

impl RecordSummary {
    pub fn of(view: &RecordView) -> Self {
        RecordSummary {
            offset: format!("{:#08x}", view.offset),
            program: String::from_utf8_lossy(&view.program()).into_owned(),
            status: view.status(),
            frames: view.frames(),
            error: view.error(),
            error_detail: view.error_detail(),
            result_len: view.result_len(),
            cycles: (0..view.cycle_len() as usize).map(|i| view.cycles(i)).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub example: String,
    pub emulator: Emulator,
    pub exe: String,
    pub frames_requested: u32,
    pub frames_run: u32,
    /// Wall-clock time of the emulator run (informative only).
    pub run_seconds: f64,
    pub record: Option<RecordSummary>,
    pub screenshots: Vec<String>,
    pub checks: Vec<Check>,
    pub passed: bool,
}

impl Report {
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed)
    }

    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
    }
}

/// Writes a screenshot as an 8-bit RGB PNG.
pub fn write_png(path: &Path, shot: &Screenshot) -> Result<()> {
    let expected = shot.width as usize * shot.height as usize * 3;
    ensure!(
        shot.width > 0 && shot.height > 0 && shot.rgb.len() == expected,
        "screenshot of frame {}: {}x{} needs {expected} RGB bytes, got {}",
        shot.frame,
        shot.width,
        shot.height,
        shot.rgb.len()
    );
    let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), shot.width, shot.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().with_context(|| format!("writing {}", path.display()))?;
    writer.write_image_data(&shot.rgb).with_context(|| format!("writing {}", path.display()))?;
    writer.finish().with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Number of distinct colours in a screenshot (1 means a blank image).
pub fn distinct_colours(shot: &Screenshot) -> usize {
    let mut seen: Vec<[u8; 3]> = shot.rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
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
    }

    #[test]
    fn short_pixel_data_is_refused() {
        let mut s = shot(1, 4, 4, |_, _| [0; 3]);
        s.rgb.pop();
        let dir = tempfile::tempdir().unwrap();
        assert!(write_png(&dir.path().join("x.png"), &s).is_err());
    }

    #[test]
    fn colour_count() {
        assert_eq!(distinct_colours(&shot(1, 4, 4, |_, _| [1, 2, 3])), 1);
        assert_eq!(distinct_colours(&shot(1, 4, 4, |x, _| [x as u8, 0, 0])), 4);
    }
}
