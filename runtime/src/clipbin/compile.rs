//! Compiling ANIMBIN clips into a CLIPBIN blob: every frame played through the controller.

use super::read::*;
use crate::anim::controller::{PlayError, SkeletonController};
use crate::anim::skeleton::Skeleton;
use crate::animbin::Clip;
use crate::gte::{Cop2, Gte};
use crate::math::Matrix;

/// Why clips cannot be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileError {
    /// `out` holds `available` bytes, the blob needs `needed` ([`compiled_size`]).
    BufferTooSmall { needed: usize, available: usize },
    /// More clips or bones than the format's `u16` fields, or than the controller's `BONES`.
    TooLarge,
    /// The controller refused a clip (it animates joints the skeleton lacks).
    Play { clip: usize, error: PlayError },
}

impl core::fmt::Display for CompileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            CompileError::BufferTooSmall { needed, available } => {
                write!(f, "compiled clips need {needed} bytes, the buffer holds {available}")
            }
            CompileError::TooLarge => write!(f, "too many clips or bones for the compiled format or the controller"),
            CompileError::Play { clip, error } => write!(f, "clip {clip}: {error}"),
        }
    }
}

/// Bytes of the blob [`compile`] writes for these clips on a skeleton of `bones` bones (saturating:
/// a size past `usize` cannot fit any buffer).
pub fn compiled_size(bones: usize, clips: &[Clip<'_>]) -> usize {
    let mut size = HEADER_BYTES.saturating_add(clips.len().saturating_mul(CLIP_ENTRY_BYTES));
    for c in clips {
        let poses = (c.length() as usize).saturating_mul(bones).saturating_mul(MATRIX_BYTES + LOCAL_BYTES);
        size = size.saturating_add(poses).saturating_add(c.marker_count() * MARKER_BYTES);
    }
    size
}

/// Compiles `clips` for `skeleton` into `out` (each clip with its own looping flag), evaluating every
/// frame with a [`SkeletonController`] on `gte`; returns the bytes written. `BONES` must hold the
/// skeleton. Frame `f` is reached by playing from frame 0 one frame at a time.
pub fn compile<B: Cop2, const BONES: usize>(
    gte: &mut Gte<B>,
    skeleton: Skeleton<'_>,
    clips: &[Clip<'_>],
    out: &mut [u8],
) -> Result<usize, CompileError> {
    let bones = skeleton.len();
    if clips.len() > u16::MAX as usize || bones > BONES {
        return Err(CompileError::TooLarge);
    }
    let needed = compiled_size(bones, clips);
    let Some(out) = out.get_mut(..needed) else {
        return Err(CompileError::BufferTooSmall { needed, available: out.len() });
    };
    out.fill(0);
    let mut w = Cursor { out, at: 0 };
    w.bytes(MAGIC);
    w.u16(VERSION);
    w.u16(bones as u16);
    w.u16(clips.len() as u16);
    w.u16(0);
    w.u32(skeleton_hash(&skeleton));
    let mut data = HEADER_BYTES + clips.len() * CLIP_ENTRY_BYTES;
    let mut pose = [Matrix::IDENTITY; BONES];
    for (index, clip) in clips.iter().enumerate() {
        let frames = clip.length() as usize;
        let poses = data;
        let locals = poses + frames * bones * MATRIX_BYTES;
        let markers = locals + frames * bones * LOCAL_BYTES;
        w.at = HEADER_BYTES + index * CLIP_ENTRY_BYTES;
        let mut name = [0u8; NAME_BYTES];
        name[..clip.name().len()].copy_from_slice(clip.name());
        w.bytes(&name);
        w.u16(clip.length());
        w.u16(clip.looping() as u16);
        w.u16(clip.marker_count() as u16);
        w.u16(0);
        w.u32(poses as u32);
        w.u32(markers as u32);

        let mut c =
            SkeletonController::<BONES>::new(skeleton).map_err(|error| CompileError::Play { clip: index, error })?;
        c.play(*clip, clip.looping()).map_err(|error| CompileError::Play { clip: index, error })?;
        for frame in 0..frames {
            if frame > 0 {
                c.advance(1);
            }
            c.evaluate(gte, &mut pose[..bones]);
            w.at = poses + frame * bones * MATRIX_BYTES;
            for m in &pose[..bones] {
                for word in matrix_words(m) {
                    w.u32(word);
                }
            }
            w.at = locals + frame * bones * LOCAL_BYTES;
            for l in c.evaluated_locals() {
                let q = l.rotation;
                w.u32(q.w as u16 as u32 | (q.x as u16 as u32) << 16);
                w.u32(q.y as u16 as u32 | (q.z as u16 as u32) << 16);
                for v in [l.translation.x, l.translation.y, l.translation.z] {
                    w.u32(v as u32);
                }
            }
        }
        w.at = markers;
        for m in clip.markers() {
            let mut name = [0u8; NAME_BYTES];
            name[..m.name.len()].copy_from_slice(m.name);
            w.bytes(&name);
            w.u16(m.frame);
            w.u16(0);
        }
        data = w.at;
    }
    Ok(needed)
}

/// Writes inside a buffer sized by [`compiled_size`] (out-of-range writes cannot happen; they are
/// dropped rather than panicking).
struct Cursor<'o> {
    out: &'o mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn bytes(&mut self, b: &[u8]) {
        if let Some(d) = self.out.get_mut(self.at..self.at + b.len()) {
            d.copy_from_slice(b);
        }
        self.at += b.len();
    }
    fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
}
