//! Playback of ANIMBIN clips on a skeleton.
//!
//! - [`time`]: vsync deltas to clip time, exact across PAL and NTSC.
//! - `cursor`, `channel`: per-track key lookup with cached segments; sampling one rotation or
//!   translation channel.
//! - [`interp`]: division-free normalisation, nlerp, subdivision slerp, unit quaternion to matrix.
//! - [`skeleton`]: bones, bind pose, parent-first composition on the GTE.
//! - [`controller`]: [`SkeletonController`] (play, crossfade, update, markers, evaluate).

pub mod animator;
mod channel;
pub mod controller;
mod cursor;
pub mod interp;
pub mod skeleton;
pub mod time;

pub use animator::{Animator, FrameSample, Sampling};
pub use controller::{MarkerEvent, PlayError, SkeletonController};
pub use skeleton::{compose_pose, LocalTransform, Skeleton, SkeletonError, ROOT};
pub use time::{TimeScale, TICKS_PER_FRAME};
