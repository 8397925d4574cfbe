//! The program entry `__start` (named by `ENTRY` in linker/psexe.ld).
//!
//! It runs before any Rust code, so nothing it does may depend on `.bss` being zero or on a stack:
//! 1. COP0 Status = 0x4000_0000: only CU2 (bit 30) so GTE instructions work. Interrupts stay disabled
//!    and bit 16 (isolate cache) stays clear: with it set, RAM writes go nowhere (mednafen drops them).
//! 2. Zero `.bss` word by word, from `__bss_start` to `__bss_end` (both 4-byte aligned by the script);
//!    the loader may or may not have done it (the header's b_addr/b_size are only a request).
//! 3. Set `$gp` (small-data base `_gp`) and `$sp`/`$fp` (`__stack_top`, 0x801FFF00), call `main`.
//!
//! A program provides `#[no_mangle] extern "C" fn main() -> !`. If it ever returns, the CPU spins.

/// COP0 Status value written at start-up: COP2 usable, nothing else.
pub const STATUS_COP2_ONLY: u32 = 0x4000_0000;

core::arch::global_asm!(
    ".section .text.__start, \"ax\", @progbits",
    ".globl __start",
    ".type __start, @function",
    ".set push",
    ".set noreorder",
    ".set noat",
    "__start:",
    "    lui   $t0, 0x4000",
    "    mtc0  $t0, $12",
    "    nop",
    "    nop",
    "    lui   $t0, %hi(__bss_start)",
    "    addiu $t0, $t0, %lo(__bss_start)",
    "    lui   $t1, %hi(__bss_end)",
    "    addiu $t1, $t1, %lo(__bss_end)",
    "1:  beq   $t0, $t1, 2f",
    "    nop",
    "    sw    $zero, 0($t0)",
    "    b     1b",
    "    addiu $t0, $t0, 4",
    "2:  lui   $gp, %hi(_gp)",
    "    addiu $gp, $gp, %lo(_gp)",
    "    lui   $sp, %hi(__stack_top)",
    "    addiu $sp, $sp, %lo(__stack_top)",
    "    move  $fp, $sp",
    "    jal   main",
    "    nop",
    "3:  b     3b",
    "    nop",
    ".set pop",
    ".size __start, . - __start",
);
