//! psxanim's runtime for C and C++ games: `extern "C"` functions over caller-provided storage, declared
//! in `include/psxanim.h`.
//!
//! The contract, written once here and repeated for C readers in the header:
//! - No heap, no libc calls of its own, no BIOS calls. Every object lives in storage the game provides
//!   (`psxanim_animbin`, `psxanim_controller`, `psxanim_character`, `psxanim_actor`,
//!   `psxanim_scratch`: word arrays of the sizes the header states, checked against the Rust types at
//!   compile time in [`sizes`]). An object is made by its `_load` / `_init` function and must not be
//!   copied or moved afterwards (a controller points into its own storage; handles point at the
//!   file bytes and at each other). The file bytes must outlive every object made from them.
//! - Every entry point checks its pointers (null, alignment), its handles (a magic word written by
//!   `_load` / `_init`), its indices and its lengths, and answers with a status: 0, or a negative
//!   `PSXANIM_E_*` code ([`status`]); with a non-null `psxanim_error *` it also gets the runtime's own
//!   error code (`detail`) and the byte offset in the file at fault. Bad input never reaches a panic
//!   (the runtime's parsers are panic-free on bad data).
//! - The GTE: functions that pose or draw use the coprocessor and leave its registers changed
//!   (rotation/translation matrices, screen offset, H, ZSF3/ZSF4, the data registers). The game sets
//!   its own state again after calling them. Nothing else is kept between calls.
//! - The scratchpad (0x1F800000): a draw overwrites its first `material_count` words (the flat
//!   triangles' colour words) and, with blended vertices, 32 bytes a bone (the staged matrices, up
//!   to 30 bones) and the blend stage's 48-byte work area at 0x3C0, with a streamed rigid pose its
//!   first 960 bytes, and for a lit character its first 288 bytes and 40 at 0x3C0 (the lit passes'
//!   parameters); nothing else of it is touched.
//!
//! On the host the same functions run on the runtime's bit-exact GTE model, one per thread, kept
//! between calls as the coprocessor keeps its registers: the tests and the xtask's expectation of
//! `examples/c-game` call them exactly as the console game does. The crate is `no_std` on the console
//! (its panic handler in `panic.rs`); on the host it links std, whose test harness and panic handler
//! the tests need.
//!
//! Where the data flows: `animbin.rs` (ANIMBIN files, the skeleton controller) and `character.rs`
//! (characters, actors, drawing) over the runtime; `types.rs` the structures the header lays out;
//! `sizes.rs` the storage sizes the header states, checked against the Rust types.
#![cfg_attr(target_os = "psx", no_std)]
#![cfg_attr(target_os = "psx", feature(asm_experimental_arch))]
// The console builds this crate with its pinned nightly, older than `is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]
// Every entry point checks its raw pointers itself (null, alignment, magic) before using them.
#![allow(clippy::missing_safety_doc)]

pub mod animbin;
pub mod character;
pub mod sizes;
pub mod types;

#[cfg(target_os = "psx")]
mod panic;

pub use types::*;

/// The statuses every entry point returns (`PSXANIM_OK`, `PSXANIM_E_*` in the header).
pub mod status {
    pub const OK: i32 = 0;
    /// A pointer the function needs is null.
    pub const NULL: i32 = -1;
    /// A pointer is not aligned as its type needs (handles and characters: 4 bytes).
    pub const ALIGN: i32 = -2;
    /// A handle was not made by its `_load` / `_init` function (or its storage was overwritten).
    pub const HANDLE: i32 = -3;
    /// The ANIMBIN file is invalid: `detail` is the runtime's error code, `offset` the byte at fault.
    pub const ANIMBIN: i32 = -4;
    /// The character (`.pxsk`) is invalid: `detail` is the runtime's table error code, `offset` the byte.
    pub const CHARACTER: i32 = -5;
    /// An index, count or rate is out of range: `detail` holds the limit.
    pub const RANGE: i32 = -6;
    /// The skeleton is invalid: `detail` is the bone at fault.
    pub const SKELETON: i32 = -7;
    /// The clip does not fit the skeleton (joints past its bones).
    pub const PLAY: i32 = -8;
    /// The frame could not be drawn: `detail` is the runtime's render error code.
    pub const RENDER: i32 = -9;
    /// A name was not found.
    pub const NOT_FOUND: i32 = -10;
}

/// Writes `e` to `err` when the caller gave one, and returns `e.status`.
pub(crate) fn fail(err: *mut PsxanimError, status: i32, detail: u32, offset: u32) -> i32 {
    if !err.is_null() && (err as usize) % core::mem::align_of::<PsxanimError>() == 0 {
        // SAFETY: non-null and aligned; the caller promises it points at a psxanim_error.
        unsafe { *err = PsxanimError { status, detail, offset } };
    }
    status
}

/// Clears `err` (a success) and returns `OK`.
pub(crate) fn ok(err: *mut PsxanimError) -> i32 {
    fail(err, status::OK, 0, 0)
}

/// `ptr` as a reference to `T` when it is non-null and aligned for `T`, else the status to return.
///
/// # Safety
/// A non-null, aligned `ptr` must point at storage of at least `size_of::<T>()` bytes.
pub(crate) unsafe fn storage<'a, T>(ptr: *mut core::ffi::c_void) -> Result<&'a mut T, i32> {
    if ptr.is_null() {
        Err(status::NULL)
    } else if (ptr as usize) % core::mem::align_of::<T>() != 0 {
        Err(status::ALIGN)
    } else {
        Ok(&mut *(ptr as *mut T))
    }
}

/// A NUL-terminated name of at most `max` bytes as a byte slice (`None` when null or longer).
///
/// # Safety
/// A non-null `name` must point at readable bytes up to its NUL or `max` bytes, whichever is first.
pub(crate) unsafe fn c_name<'a>(name: *const core::ffi::c_char, max: usize) -> Option<&'a [u8]> {
    if name.is_null() {
        return None;
    }
    let p = name as *const u8;
    let mut len = 0;
    while len <= max {
        if *p.add(len) == 0 {
            return Some(core::slice::from_raw_parts(p, len));
        }
        len += 1;
    }
    None
}

/// Runs `f` with the GTE: the coprocessor on the console, this thread's model on the host.
#[cfg(target_os = "psx")]
pub(crate) fn with_gte<R>(f: impl FnOnce(&mut psxanim_runtime::gte::Gte) -> R) -> R {
    f(&mut psxanim_runtime::gte::Gte::new())
}

#[cfg(not(target_os = "psx"))]
std::thread_local! {
    static GTE: core::cell::RefCell<psxanim_runtime::gte::Gte> = core::cell::RefCell::new(psxanim_runtime::gte::Gte::new());
}

/// Runs `f` with the GTE: the coprocessor on the console, this thread's model on the host.
#[cfg(not(target_os = "psx"))]
pub(crate) fn with_gte<R>(f: impl FnOnce(&mut psxanim_runtime::gte::Gte) -> R) -> R {
    GTE.with(|g| f(&mut g.borrow_mut()))
}

/// Sets COP0 Status bit 30 (CU2) and nothing else, so that GTE instructions run (never bit 16, which
/// isolates the cache). Call once after start-up; the posing and drawing functions call it too.
#[no_mangle]
pub extern "C" fn psxanim_gte_enable() {
    psxanim_runtime::gte::enable();
}

/// The library's version, `PSXANIM_API_VERSION` of the header it was built with.
#[no_mangle]
pub extern "C" fn psxanim_api_version() -> u32 {
    sizes::API_VERSION
}
