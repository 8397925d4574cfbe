//! Playback of ANIMBIN clips on a skeleton.
//!
//! - [`time`]: vsync deltas to clip time, exact across PAL and NTSC.
//! - `cursor`, `channel`: per-track key lookup with cached segments; sampling one rotation or
//!   translation channel.
//! - [`interp`]: division-free normalisation, nlerp, subdivision slerp, unit quaternion to matrix.
//! - [`skeleton`]: bones, bind pose, parent-first composition on the GTE.
//! - [`controller`]: [`SkeletonController`] (play, crossfade, update, markers, evaluate).
//!
//! Cost on the console (update + evaluate, clip baked at one key per frame played at the PAL rate,
//! so every channel enters a new segment every frame; `examples/anim`, root counter 2, mednafen):
//! about 29,600 cycles for 15 bones, 39,200 for 20, 96,500 for 50, i.e. some 1,950 cycles per bone;
//! a frame inside a segment costs about 940 per bone, of which the GTE composition is about 490.

pub mod animator;
mod channel;
pub mod controller;
mod cursor;
pub mod interp;
pub mod skeleton;
pub mod time;

pub use animator::{Animator, FrameSample, Sampling};
pub use controller::{ClipSource, MarkerEvent, PlayError, SkeletonController};
pub use skeleton::{compose_pose, LocalTransform, Skeleton, SkeletonError, ROOT};
pub use time::{TimeScale, TICKS_PER_FRAME};
