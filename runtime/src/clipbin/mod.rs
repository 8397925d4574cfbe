//! Compiled clips (CLIPBIN): ANIMBIN clips evaluated ahead of time into one pose per clip frame, so
//! that the console only copies matrices (see [`crate::anim::ClipSource`]).
//!
//! The host compiles with [`compile`], which plays each clip through the same
//! [`SkeletonController`] (ANIMBIN sampling, interpolation, `compose_pose` on the GTE model) the console
//! would run; the table entry of frame `f` is therefore bit-identical to the ANIMBIN path's evaluation
//! at clip time `f` (exactly `f * 4096` ticks). [`ClipBin::parse`] reads a blob in place: no heap, no
//! copy, every violation an [`Error`] with the byte offset of the field at fault.
//!
//! Layout, version 1 (little-endian; every section starts at a multiple of 4):
//! - header, 16 bytes: `"PSXCLIPS"`, `u16 version` (1), `u16 bones`, `u16 clips`, `u16 0`, then
//!   `u32 skeleton` (the [`skeleton_hash`] of the skeleton the poses were composed on).
//! - clip directory at 20, 48 bytes per clip: `char[32] name` (NUL padded, all 32 bytes usable),
//!   `u16 frames`, `u16 flags` (bit 0 = looping), `u16 markers`, `u16 0`, `u32 poses` (offset),
//!   `u32 marker_table` (offset).
//! - poses of a clip: `frames * bones` model-space matrices (frame-major, 32 bytes each: words
//!   `r11|r12<<16`, `r13|r21<<16`, `r22|r23<<16`, `r31|r32<<16`, `r33`, `tx`, `ty`, `tz`), then
//!   `frames * bones` local transforms (20 bytes each: `w|x<<16`, `y|z<<16`, `tx`, `ty`, `tz`), used
//!   only when a crossfade blends local transforms.
//! - markers of a clip: 36 bytes each, `char[32] name`, `u16 frame`, `u16 0`.
//!
//! Embedded blobs should be 4-aligned in memory: the reader then loads whole words (one load per
//! field on the console); a misaligned blob is still read correctly, byte by byte.
//!
//! `read` is the zero-copy reader (which [`crate::anim::ClipSource`] plays); `compile` writes the
//! format by playing ANIMBIN clips through the controller. The controller needs the reader and the
//! compiler needs the controller, so the two live apart (no import circle).

mod compile;
pub(crate) mod read;

pub use compile::{compile, compiled_size, CompileError};
pub use read::*;
