//! Playback: one player (time, wrap, crossfade, markers) for ANIMBIN, compiled and imported clips.
//!
//! - [`time`]: vsync deltas to clip time, exact across PAL and NTSC.
//! - [`player`]: the one implementation of clip time: vsync deltas, wrap, hold, crossfade weight,
//!   markers ([`Player`]); [`playhead`] is one voice's position in it.
//! - `cursor`, `channel`: per-track key lookup with cached segments; sampling one rotation or
//!   translation channel.
//! - [`prepared`]: a clip's rotation keys converted once into the game's words ([`PreparedClip`]).
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
//! | bones | ANIMBIN prepared ([`PreparedClip`]), mednafen / pcsx-rearmed / PCSX-Redux | ANIMBIN from the file, mednafen / pcsx-rearmed / PCSX-Redux | compiled, `evaluate` (copy), mednafen | compiled, `pose` (borrowed) |
//! |-------|------------------------------------------|------------------------------------------|----------------|-----------|
//! | 15    | 7,224 / 7,776 / 9,304 (avg 6,448)        | 14,000 / 13,680 / 15,680 (avg 12,808)    | 1,944 / 1,584  | 504 / 336 |
//! | 20    | 8,752 / 10,112 / 12,080 (avg 8,104)      | 17,728 / 17,976 / 20,552 (avg 16,352)    | 2,264 / 1,896  | 504 / 336 |
//! | 50    | 19,072 / 23,936 / 28,512 (avg 18,416)    | 40,320 / 43,640 / 49,664 (avg 37,536)    | 4,152 / 3,792  | 504 / 336 |
//!
//! (Before the three passes below: 20 bones 37,352 / 34,704 on mednafen, 36,384 / 33,112 on
//! pcsx-rearmed; before their hand-scheduled steps 24,512 / 22,064 and 27,784 / 25,568.) A frame
//! from the file costs some 710 cycles per bone and about 2,000 for the frame: the segment step
//! (cursor, key read, hemisphere test) about 300 per channel, the local rotation (nlerp and the
//! matrix's products on the GTE, [`crate::gte::Cop2::nlerp_rotation`]) about 300, the composition
//! (runs of [`crate::gte::Cop2::compose_columns`] in one loop, [`crate::gte::Cop2::compose_columns_run`])
//! about 170-220. Keys prepared at load ([`prepared`]) take some 370 a bone: a dense channel's
//! segment is two aligned keys at `3 * frame` words, and with the normalised lerp straight to a Q14
//! quaternion (no matrix) it is one asm loop over the joints ([`crate::gte::Cop2::nlerp_q14_dense`],
//! about 190 a bone; [`crate::gte::Cop2::nlerp_q14`] alone for any other joint), and the
//! composition of the [`crate::gte::PoseQ14`] poses by one [`crate::gte::Cop2::compose_q14_chain`]
//! (the compact path's loop) about 180 (it was 12,864 for 20 bones with FP12 matrices). The R3000 has no data cache: every load from RAM costs
//! about 8 cycles on mednafen (a multiply about 11, a GTE register move 1), so the cost is mostly
//! the channel state and keys read per bone, not arithmetic. The evaluation runs in passes whose
//! loops fit the 4 KiB instruction cache (one loop over all the work per bone was slower, also with
//! the hand-scheduled steps and with prepared keys). A frame whose time skips a key (60 Hz clips on
//! PAL) reads both of a segment's keys from the file, about 1,000 cycles more for 20 bones; the
//! first frame after `play` is the slowest (cold instruction cache, both keys read). A compiled
//! clip costs the update plus a copy of its matrices, or nothing per bone when borrowed.

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
