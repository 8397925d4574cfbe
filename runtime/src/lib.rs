//! psxanim runtime: what a PlayStation game links.
//!
//! Everything here is `no_std`, allocation-free and panic-free on bad data. The same code runs on the
//! host (tests, and the tooling's reference evaluation) where the GTE is replaced by a bit-exact model.
#![no_std]
// The console builds this crate with its pinned nightly, older than `is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]
#![cfg_attr(target_os = "psx", feature(asm_experimental_arch))]

/// Fixed-point scalars, vectors, matrices and quaternions shared by the console and the host.
pub mod math;
/// The GTE: one API, run on the coprocessor on the console and on a bit-exact model on the host.
pub mod gte;
/// ANIMBIN clip files: zero-copy parsing and validation (AnimationManager).
pub mod animbin;
/// Compiled clips (CLIPBIN): a pose per clip frame, compiled on the host, copied on the console.
pub mod clipbin;
/// Bounds-checked byte fields and NUL-terminated names shared by the blob parsers.
mod bytes;
/// Playback: SkeletonController, time base, interpolation, pose composition.
pub mod anim;
/// Console hardware used by the examples and renderers (boot, GPU, DMA, timers): PSX only, except the
/// GP0 packet encoders and draw lists (`console::prim`, `console::ordering`), which the host tests too.
pub mod console;
/// The verification record a program leaves in RAM for the host.
pub mod record;
/// Compiled character tables (`psxanim import`): zero-copy reader, pose-sample and baked-frame decoders.
pub mod tables;
/// Drawing imported characters: culling, bone matrices, GTE projection, triangles in ordering-table order.
pub mod render;
/// Where a character's textures go in VRAM: the game's choice, checked, and the packet words it gives.
pub mod vram;
