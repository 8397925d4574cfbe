//! Playback: one player (time, wrap, crossfade, markers) for ANIMBIN, compiled and imported clips.
//!
//! - [`time`]: vsync deltas to clip time, exact across PAL and NTSC.
//! - [`player`]: the one implementation of clip time: vsync deltas, wrap, hold, crossfade weight,
//!   markers ([`Player`]); [`playhead`] is one voice's position in it.
//! - `cursor`, `channel`: per-track key lookup with cached segments; sampling one rotation or
//!   translation channel.
//! - [`interp`]: division-free normalisation, nlerp, subdivision slerp, unit quaternion to matrix.
//! - [`skeleton`]: bones, bind pose, parent-first composition on the GTE.
//! - [`controller`]: [`SkeletonController`] (play, crossfade, update, markers, evaluate).
//!
//! Clips come from ANIMBIN keys or compiled poses ([`ClipSource`], [`crate::clipbin`]); one
//! controller plays both.
//!
//! Cost on the console (update + evaluate, clip baked at one key per frame played at the PAL rate,
//! so every channel enters a new segment every frame; `examples/anim`, root counter 2 at 8 cycles per
//! tick, mednafen / pcsx-rearmed, in CPU cycles):
//!
//! | bones | ANIMBIN keys      | compiled, `evaluate` (copy) | compiled, `pose` (borrowed) |
//! |-------|-------------------|-----------------------------|-----------------------------|
//! | 15    | 25,200 / 24,200   | 1,550 / 1,020               | 410 / 330                   |
//! | 20    | 33,000 / 32,200   | 1,860 / 1,200               | 410 / 330                   |
//! | 50    | 79,700 / 80,000   | 3,720 / 2,300               | 410 / 330                   |
//!
//! ANIMBIN costs some 1,600 cycles per bone when every channel enters a new segment (a frame inside
//! a segment about 940 per bone, of which the GTE composition is about 490). A compiled clip costs
//! the update (about 400 cycles, mostly the PAL time scale's division and the marker check) plus
//! 8 word loads and stores per bone to copy its matrices out, or nothing per bone when borrowed.

pub mod animator;
mod channel;
pub mod controller;
mod cursor;
pub mod interp;
pub mod player;
pub mod playhead;
pub mod skeleton;
pub mod time;

pub use animator::{Animator, Fade, FrameSample, PoseSample, Sampling};
pub use controller::{ClipSource, MarkerEvent, PlayError, SkeletonController};
pub use player::{Markers, NoMarkers, Player, Voice};
pub use playhead::Playhead;
pub use skeleton::{compose_pose, LocalTransform, Skeleton, SkeletonError, ROOT};
pub use time::{TimeScale, TICKS_PER_FRAME};
