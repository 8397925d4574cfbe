//! The staticlib's panic handler (console builds only; a Rust game links the runtime crate instead,
//! whose library build has none, so nothing collides).
//!
//! The library does not panic on bad input: every entry point checks what it is given and the
//! runtime's parsers are panic-free on bad data. Should a bug panic anyway, the handler calls the C
//! hook `psxanim_panic(line)`, a weak symbol the game may define (report, then reset or halt; it must
//! not return into the library). Without one, the weak default spins forever with interrupts as they
//! were, leaving the line in `$a0`.
use core::panic::PanicInfo;

extern "C" {
    fn psxanim_panic(line: u32) -> !;
}

core::arch::global_asm!(
    ".weak psxanim_panic",
    ".type psxanim_panic, @function",
    ".section .text.psxanim_panic_default,\"ax\",@progbits",
    "psxanim_panic:",
    "1: b 1b",
    "nop",
    ".previous",
);

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    let line = info.location().map_or(0, |l| l.line());
    // SAFETY: the hook takes a line number and never returns.
    unsafe { psxanim_panic(line) }
}
