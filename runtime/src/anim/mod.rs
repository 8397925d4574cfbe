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
//! | 15    | 14,088 / 12,600        | 14,120 / 13,432            | 1,904 / 1,528                         | 488 / 344                   |
//! | 20    | 17,840 / 16,328        | 18,616 / 17,696            | 2,216 / 1,840                         | 496 / 344                   |
//! | 50    | 41,000 / 38,272        | 45,496 / 43,208            | 4,112 / 3,728                         | 496 / 344                   |
//!
//! (Before the three passes below: 20 bones 37,352 / 34,704 on mednafen, 36,384 / 33,112 on
//! pcsx-rearmed; before their hand-scheduled steps 24,512 / 22,064 and 27,784 / 25,568.) An ANIMBIN
//! frame costs some 750 cycles per bone and about 2,000 for the frame: the segment step (cursor,
//! key read, hemisphere test) about 290 per channel, the local rotation (nlerp and the matrix's
//! products on the GTE, [`crate::gte::Cop2::nlerp_rotation`]) about 310, the composition
//! ([`crate::gte::Cop2::compose_columns`]) about 190. The R3000 has no data cache: every load from
//! RAM costs about 8 cycles on mednafen (a multiply about 11, a GTE register move 1), so the cost is
//! mostly the channel state and keys read per bone, not arithmetic. The evaluation runs in passes
//! whose loops fit the 4 KiB instruction cache (one loop over all the work per bone was slower, also
//! with the hand-scheduled steps). A frame whose time skips a key (60 Hz clips on PAL) reads both of
//! a segment's keys, about 1,000 cycles more for 20 bones; the first frame after `play` is the
//! slowest (cold instruction cache, both keys read). A compiled clip costs the update plus a copy of
//! its matrices, or nothing per bone when borrowed.

pub mod animator;
mod channel;
pub mod controller;
mod cursor;
pub mod interp;
pub mod player;
pub mod playhead;
pub mod prepared;
pub mod skeleton;
pub mod time;
mod words;

pub use animator::{Animator, Fade, FrameSample, PoseSample, Sampling};
pub use controller::{ClipSource, MarkerEvent, PlayError, SkeletonController};
pub use player::{Markers, NoMarkers, Player, Voice};
pub use playhead::Playhead;
pub use prepared::{PrepareError, PreparedClip};
pub use skeleton::{compose_pose, LocalTransform, Skeleton, SkeletonError, ROOT};
pub use time::{TimeScale, TICKS_PER_FRAME};
