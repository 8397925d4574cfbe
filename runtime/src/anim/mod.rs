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
//! tick, slowest / average of 30 frames, in CPU cycles; `cargo xtask verify --example anim` writes
//! them to `artifacts/cycles-anim-EMULATOR.json`):
//!
//! | bones | ANIMBIN keys, mednafen | ANIMBIN keys, pcsx-rearmed | compiled, `evaluate` (copy), mednafen | compiled, `pose` (borrowed) |
//! |-------|------------------------|----------------------------|---------------------------------------|-----------------------------|
//! | 15    | 19,336 / 17,016        | 20,912 / 19,296            | 1,952 / 1,496                         | 456 / 368                   |
//! | 20    | 24,512 / 22,064        | 27,784 / 25,568            | 2,264 / 1,808                         | 456 / 368                   |
//! | 50    | 57,328 / 52,304        | 68,600 / 63,088            | 4,160 / 3,696                         | 456 / 368                   |
//!
//! (Before the three passes below: 20 bones 37,352 / 34,704 on mednafen, 36,384 / 33,112 on
//! pcsx-rearmed.) An ANIMBIN frame costs some 1,100 cycles per bone, about a third each for the
//! segment step (cursor, key decoding, hemisphere), the local rotation (nlerp and the matrix's
//! products on the GTE) and the composition. The R3000 has no data cache: every load from RAM costs
//! about 8 cycles on mednafen (a multiply about 11, a GTE register move 1), so the cost is mostly the
//! channel state and keys read per bone, not arithmetic. The evaluation runs in passes whose loops fit
//! the 4 KiB instruction cache (one loop over all the work per bone was slower). The first frame
//! after `play` is the slowest (cold instruction cache). A compiled clip costs the update plus a copy
//! of its matrices, or nothing per bone when borrowed.

pub mod animator;
mod channel;
pub mod controller;
mod cursor;
pub mod interp;
pub mod player;
pub mod playhead;
pub mod skeleton;
pub mod time;
mod words;

pub use animator::{Animator, Fade, FrameSample, PoseSample, Sampling};
pub use controller::{ClipSource, MarkerEvent, PlayError, SkeletonController};
pub use player::{Markers, NoMarkers, Player, Voice};
pub use playhead::Playhead;
pub use skeleton::{compose_pose, LocalTransform, Skeleton, SkeletonError, ROOT};
pub use time::{TimeScale, TICKS_PER_FRAME};
