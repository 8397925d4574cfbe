//! The console backend: the real coprocessor 2 through inline assembly.
//!
//! LLVM's MIPS I assembler knows neither `ctc2`/`cfc2` nor the `cop2` command encodings, so every
//! coprocessor instruction is emitted as a raw `.word`, with the GPR it names pinned to `$8` (t0)
//! through an explicit register operand so the hard-coded encoding is right.
//!
//! Hazards (R3000A): a value loaded by `mfc2`/`cfc2` is not usable by the next instruction, so each
//! read is followed by a `nop`; a command must not start within two instructions of a `mtc2`/`ctc2`
//! that it reads, so each command is preceded by two `nop`s. Reading a result while a command still
//! runs is interlocked by the hardware.

use core::arch::asm;

use super::backend::Cop2;

/// The GPR the encodings below use: $8 (t0).
const GPR: u32 = 8;

const fn mtc2(rd: u32) -> u32 {
    0x4880_0000 | GPR << 16 | (rd & 31) << 11
}
const fn mfc2(rd: u32) -> u32 {
    0x4800_0000 | GPR << 16 | (rd & 31) << 11
}
const fn ctc2(rd: u32) -> u32 {
    0x48C0_0000 | GPR << 16 | (rd & 31) << 11
}
const fn cfc2(rd: u32) -> u32 {
    0x4840_0000 | GPR << 16 | (rd & 31) << 11
}
const fn cop2(cmd: u32) -> u32 {
    0x4A00_0000 | (cmd & 0x01FF_FFFF)
}
/// `mfc0 $8, $12` / `mtc0 $8, $12`: the status register, where bit 30 (CU2) enables the GTE.
const MFC0_T0_SR: u32 = 0x4000_0000 | GPR << 16 | 12 << 11;
const MTC0_T0_SR: u32 = 0x4080_0000 | GPR << 16 | 12 << 11;

/// The GTE of the running console. Zero-sized: the state lives in the coprocessor.
#[derive(Debug)]
pub struct Cop2Hardware {
    _private: (),
}

impl Cop2Hardware {
    /// Enables coprocessor 2 (sets SR.CU2; idempotent) and returns the handle.
    pub fn new() -> Self {
        // SAFETY: read-modify-write of the status register that only sets the CU2 enable bit.
        unsafe {
            asm!(
                ".word {mfc0}",
                "nop",
                "lui $9, 0x4000",
                "or $8, $8, $9",
                ".word {mtc0}",
                "nop",
                "nop",
                mfc0 = const MFC0_T0_SR,
                mtc0 = const MTC0_T0_SR,
                out("$8") _,
                out("$9") _,
                options(nostack),
            );
        }
        Self { _private: () }
    }
}

impl Cop2 for Cop2Hardware {
    #[inline(always)]
    fn write_data<const R: u32>(&mut self, v: u32) {
        // SAFETY: a register transfer to the GTE; touches no memory.
        unsafe { asm!(".word {w}", w = const mtc2(R), in("$8") v, options(nostack, preserves_flags)) }
    }

    #[inline(always)]
    fn read_data<const R: u32>(&mut self) -> u32 {
        let v: u32;
        // SAFETY: as above; the nop covers the load delay.
        unsafe { asm!(".word {w}", "nop", w = const mfc2(R), out("$8") v, options(nostack, preserves_flags)) }
        v
    }

    #[inline(always)]
    fn write_ctrl<const R: u32>(&mut self, v: u32) {
        // SAFETY: a register transfer to the GTE; touches no memory.
        unsafe { asm!(".word {w}", w = const ctc2(R), in("$8") v, options(nostack, preserves_flags)) }
    }

    #[inline(always)]
    fn read_ctrl<const R: u32>(&mut self) -> u32 {
        let v: u32;
        // SAFETY: as above; the nop covers the load delay.
        unsafe { asm!(".word {w}", "nop", w = const cfc2(R), out("$8") v, options(nostack, preserves_flags)) }
        v
    }

    #[inline(always)]
    fn command<const CMD: u32>(&mut self) {
        // SAFETY: a GTE command only changes GTE registers; the nops keep it clear of the last writes.
        unsafe { asm!("nop", "nop", ".word {w}", w = const cop2(CMD), options(nostack, preserves_flags)) }
    }
}
