//! Animation file formats: one module per format with its reader and writer side by side, plus format
//! detection, the JSON document, bone maps and the validation profiles.
//!
//! Readers never panic and never allocate from a count in the file before checking that the count's
//! elements fit in the bytes that remain. Every error names the byte offset and what was expected.
//! Each format declares its fixed-layout records once with binrw, for reading and writing; `record`
//! reads them and turns binrw's errors into `ParseError`s.

use crate::model::{Animation, Format};
use std::fmt;
use std::path::Path;

pub mod animbin;
pub mod ani;
pub mod bonemap;
mod record;
pub mod json;
pub mod mp_anim;
pub mod panim;
pub mod profile;
pub mod timebase;

/// A malformed input: where, and what the reader expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub expected: String,
}

impl ParseError {
    pub fn new(offset: usize, expected: impl Into<String>) -> ParseError {
        ParseError { offset, expected: expected.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {} (0x{:x}): expected {}", self.offset, self.offset, self.expected)
    }
}

impl std::error::Error for ParseError {}

/// A model the target format cannot hold at all (as opposed to a loss, which is reported and allowed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError(pub String);

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteError {}

pub(crate) fn write_error<T>(msg: impl Into<String>) -> Result<T, WriteError> {
    Err(WriteError(msg.into()))
}

/// What a conversion lost (scale dropped, time resampled, precision), one sentence each.
#[derive(Debug, Default, Clone)]
pub struct Losses(pub Vec<String>);

impl Losses {
    pub fn add(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        if !self.0.contains(&msg) {
            self.0.push(msg);
        }
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// How the ANIMBIN writer encodes values it has to quantise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnimbinMode {
    /// Rounding to nearest, quaternion hemisphere continuity, the clip's own looping flag.
    #[default]
    Correct,
    /// The original Blender exporter: truncation `int(v * 4096)`, `flags = 1`, no hemisphere fix.
    Original,
}

/// A format and version to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Animbin(AnimbinMode),
    /// Metroid Prime ANIM, version 0 or 2; `None` keeps the source's version (2 for other formats).
    MpAnim(Option<u32>),
    /// `.ani` 4000, 4001 or 4002; `None` keeps the source's version (4000 for other formats).
    Ani(Option<u32>),
    Panim,
}

impl Target {
    pub fn format(self) -> Format {
        match self {
            Target::Animbin(_) => Format::Animbin,
            Target::MpAnim(_) => Format::MpAnim,
            Target::Ani(_) => Format::Ani,
            Target::Panim => Format::Panim,
        }
    }

    /// Parses a `--to` value.
    pub fn parse(name: &str) -> Option<Target> {
        Some(match name.to_ascii_lowercase().as_str() {
            "animbin" => Target::Animbin(AnimbinMode::Correct),
            "animbin-original" => Target::Animbin(AnimbinMode::Original),
            "mp-anim" | "anim" => Target::MpAnim(None),
            "mp-anim2" | "mp-anim-v2" => Target::MpAnim(Some(2)),
            "mp-anim0" | "mp-anim-v0" => Target::MpAnim(Some(0)),
            "ani" => Target::Ani(None),
            "ani4000" => Target::Ani(Some(4000)),
            "ani4001" => Target::Ani(Some(4001)),
            "ani4002" => Target::Ani(Some(4002)),
            "panim" => Target::Panim,
            _ => return None,
        })
    }

    /// The target implied by a file extension.
    pub fn from_extension(path: &Path) -> Option<Target> {
        Some(match extension_format(path)? {
            Format::Animbin => Target::Animbin(AnimbinMode::Correct),
            Format::MpAnim => Target::MpAnim(None),
            Format::Ani => Target::Ani(None),
            Format::Panim => Target::Panim,
        })
    }
}

/// Tuning of the Metroid Prime version 2 key reduction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Largest rotation error, in radians, that interpolation may leave where a key is dropped.
    pub rotation: f64,
    /// Largest translation error, in the clip's units.
    pub translation: f64,
    /// Reduce the keys of a source that is already ANIM version 2 (by default its stored keys are
    /// kept as they are).
    pub reduce_stored: bool,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { rotation: 0.5f64.to_radians(), translation: 1e-3, reduce_stored: false }
    }
}

fn extension_format(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "animbin" => Format::Animbin,
        "anim" => Format::MpAnim,
        "ani" => Format::Ani,
        "panim" => Format::Panim,
        _ => return None,
    })
}

/// The format of a file: by magic first (ANIMBIN, `ANI\0`, the `.panim` values tag), then by
/// extension, then by a Metroid Prime version word (that format has no magic).
pub fn detect(bytes: &[u8], path: Option<&Path>) -> Option<Format> {
    if bytes.starts_with(animbin::MAGIC) {
        return Some(Format::Animbin);
    }
    if bytes.starts_with(ani::MAGIC) {
        return Some(Format::Ani);
    }
    if panim::has_values_tag(bytes) {
        return Some(Format::Panim);
    }
    if let Some(format) = path.and_then(extension_format) {
        return Some(format);
    }
    match bytes.get(..4) {
        Some([0, 0, 0, 0]) | Some([0, 0, 0, 2]) => Some(Format::MpAnim),
        _ => None,
    }
}

/// Reads a file of a known format.
pub fn read(format: Format, bytes: &[u8]) -> Result<Animation, ParseError> {
    match format {
        Format::Animbin => animbin::read(bytes),
        Format::MpAnim => mp_anim::read(bytes),
        Format::Ani => ani::read(bytes),
        Format::Panim => panim::read(bytes),
    }
}

/// Writes `anim` as `target`, adding what the target cannot hold to `losses`.
pub fn write(anim: &Animation, target: Target, tolerance: Tolerance, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    match target {
        Target::Animbin(mode) => animbin::write(anim, mode, losses),
        Target::MpAnim(version) => {
            match version.unwrap_or(if anim.format == Format::MpAnim { anim.version } else { 2 }) {
                0 => mp_anim::write_v0(anim, losses),
                _ => mp_anim::write_v2(anim, tolerance, losses),
            }
        }
        Target::Ani(version) => {
            let version = version.unwrap_or(if anim.format == Format::Ani { anim.version } else { 4000 });
            ani::write(anim, version, losses)
        }
        Target::Panim => panim::write(anim, losses),
    }
}
