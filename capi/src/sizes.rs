//! The sizes of the opaque storage `psxanim.h` declares, on the console (32-bit pointers), and the
//! checks that they hold the Rust types: at compile time on the console build (exactly), and by the
//! host test `header_matches_the_rust_side` (the header's numbers are these).
use crate::animbin::{Animbin, Controller};
use crate::character::{Actor, Character, ScratchStorage};
use core::mem::{align_of, size_of};

/// `PSXANIM_API_VERSION`: bumped whenever a function, a structure or a size of the header changes.
pub const API_VERSION: u32 = 6;

/// Bytes of each handle's storage on the console (`PSXANIM_*_SIZE`).
pub mod psx {
    pub const ANIMBIN: usize = 1084;
    pub const CONTROLLER: usize = 12380;
    pub const CHARACTER: usize = 252;
    pub const ACTOR: usize = 1740;
    pub const SCRATCH: usize = 31804;
}

/// The same on this target: the console's numbers there, the types' own sizes on a 64-bit host.
#[cfg(target_pointer_width = "32")]
pub use psx::{ACTOR, ANIMBIN, CHARACTER, CONTROLLER, SCRATCH};
#[cfg(not(target_pointer_width = "32"))]
pub const ANIMBIN: usize = size_of::<Animbin>();
#[cfg(not(target_pointer_width = "32"))]
pub const CONTROLLER: usize = size_of::<Controller>();
#[cfg(not(target_pointer_width = "32"))]
pub const CHARACTER: usize = size_of::<Character>();
#[cfg(not(target_pointer_width = "32"))]
pub const ACTOR: usize = size_of::<Actor>();
#[cfg(not(target_pointer_width = "32"))]
pub const SCRATCH: usize = size_of::<ScratchStorage>();

// The header's storage is an array of `uint32_t`: 4-byte alignment is what a game's storage has.
#[cfg(target_pointer_width = "32")]
const _: () = {
    assert!(align_of::<Animbin>() <= 4 && align_of::<Controller>() <= 4 && align_of::<Character>() <= 4);
    assert!(align_of::<Actor>() <= 4 && align_of::<ScratchStorage>() <= 4);
};
#[cfg(target_pointer_width = "32")]
const _: [(); ANIMBIN] = [(); size_of::<Animbin>()];
#[cfg(target_pointer_width = "32")]
const _: [(); CONTROLLER] = [(); size_of::<Controller>()];
#[cfg(target_pointer_width = "32")]
const _: [(); CHARACTER] = [(); size_of::<Character>()];
#[cfg(target_pointer_width = "32")]
const _: [(); ACTOR] = [(); size_of::<Actor>()];
#[cfg(target_pointer_width = "32")]
const _: [(); SCRATCH] = [(); size_of::<ScratchStorage>()];

#[cfg(not(target_pointer_width = "32"))]
const _: () = assert!(align_of::<Animbin>() <= 8 && align_of::<Controller>() <= 8 && align_of::<ScratchStorage>() <= 8);
