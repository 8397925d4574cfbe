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
use super::regs::{cmd, data};

/// The GPR the encodings below use: $8 (t0).
const GPR: u32 = 8;

const fn mtc2(rd: u32) -> u32 {
    0x4880_0000 | GPR << 16 | (rd & 31) << 11
}
/// `mtc2` from any GPR (for asm that keeps several values in registers).
const fn mtc2_from(gpr: u32, rd: u32) -> u32 {
    0x4880_0000 | gpr << 16 | (rd & 31) << 11
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
/// `lwc2 reg, offset(base)` / `swc2 reg, offset(base)`: a GTE data register from / to memory.
const fn lwc2(base: u32, reg: u32, offset: i16) -> u32 {
    0xC800_0000 | base << 21 | reg << 16 | offset as u16 as u32
}
const fn swc2(base: u32, reg: u32, offset: i16) -> u32 {
    0xE800_0000 | base << 21 | reg << 16 | offset as u16 as u32
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

    /// Software-pipelined: while RTPT runs, the CPU loads the next triple's words into registers; the
    /// first swc2 of the results waits for the command (interlocked). The last triple is projected
    /// after the loop, so nothing is read past `vertices`.
    #[inline(always)]
    fn rtpt_words(&mut self, vertices: &[u32], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (vertices.len() / 6).min(sxy.len() / 3).min(sz.len() / 3);
        if triples == 0 {
            return 0;
        }
        // SAFETY: reads 6 words a triple from `vertices` and writes 3 to each of `sxy` and `sz`, for
        // `triples` triples, which all three slices hold; the GTE changes no other memory. Two
        // instructions separate the last mtc2 from each RTPT; no loaded register is used by the
        // instruction after its load.
        unsafe {
            asm!(
                ".set push",
                ".set noreorder",
                "lw $13, 0($9)",
                "lw $14, 4($9)",
                "lw $15, 8($9)",
                "lw $24, 12($9)",
                "lw $25, 16($9)",
                "lw $3, 20($9)",
                "addiu $12, $12, -1",
                "beqz $12, 2f",
                "nop",
                "1:",
                ".word {m0}", ".word {m1}", ".word {m2}", ".word {m3}", ".word {m4}", ".word {m5}",
                "addiu $9, $9, 24",
                "addiu $12, $12, -1",
                ".word {rtpt}",
                "lw $13, 0($9)",
                "lw $14, 4($9)",
                "lw $15, 8($9)",
                "lw $24, 12($9)",
                "lw $25, 16($9)",
                "lw $3, 20($9)",
                "addiu $10, $10, 12",
                "addiu $11, $11, 12",
                ".word {s0}", ".word {s1}", ".word {s2}", ".word {s3}", ".word {s4}",
                "bnez $12, 1b",
                ".word {s5}",
                "2:",
                ".word {m0}", ".word {m1}", ".word {m2}", ".word {m3}", ".word {m4}", ".word {m5}",
                "nop",
                "nop",
                ".word {rtpt}",
                "addiu $10, $10, 12",
                "addiu $11, $11, 12",
                ".word {s0}", ".word {s1}", ".word {s2}", ".word {s3}", ".word {s4}", ".word {s5}",
                ".set pop",
                m0 = const mtc2_from(13, data::VXY0),
                m1 = const mtc2_from(14, data::VZ0),
                m2 = const mtc2_from(15, data::VXY1),
                m3 = const mtc2_from(24, data::VZ1),
                m4 = const mtc2_from(25, data::VXY2),
                m5 = const mtc2_from(3, data::VZ2),
                rtpt = const cop2(cmd::RTPT),
                s0 = const swc2(10, data::SXY0, -12),
                s1 = const swc2(10, data::SXY1, -8),
                s2 = const swc2(10, data::SXY2, -4),
                s3 = const swc2(11, data::SZ1, -12),
                s4 = const swc2(11, data::SZ2, -8),
                s5 = const swc2(11, data::SZ3, -4),
                inout("$9") vertices.as_ptr() => _,
                inout("$10") sxy.as_mut_ptr() => _,
                inout("$11") sz.as_mut_ptr() => _,
                inout("$12") triples => _,
                out("$3") _,
                out("$13") _,
                out("$14") _,
                out("$15") _,
                out("$24") _,
                out("$25") _,
                options(nostack),
            );
        }
        3 * triples
    }

    #[inline(always)]
    unsafe fn nclip_indexed(&mut self, sxy: &[u32], v: [usize; 3]) {
        let p = sxy.as_ptr();
        // SAFETY: the caller guarantees the indices are in bounds; two instructions between the last
        // lwc2 and the command.
        unsafe {
            asm!(
                ".word {l0}", ".word {l1}", ".word {l2}", "nop", "nop", ".word {nclip}",
                l0 = const lwc2(9, data::SXY0, 0),
                l1 = const lwc2(10, data::SXY1, 0),
                l2 = const lwc2(11, data::SXY2, 0),
                nclip = const cop2(cmd::NCLIP),
                in("$9") p.add(v[0]),
                in("$10") p.add(v[1]),
                in("$11") p.add(v[2]),
                options(nostack, readonly, preserves_flags),
            );
        }
    }

    #[inline(always)]
    unsafe fn avsz3_indexed(&mut self, sz: &[u32], v: [usize; 3]) {
        let p = sz.as_ptr();
        // SAFETY: as for `nclip_indexed`.
        unsafe {
            asm!(
                ".word {l0}", ".word {l1}", ".word {l2}", "nop", "nop", ".word {avsz3}",
                l0 = const lwc2(9, data::SZ1, 0),
                l1 = const lwc2(10, data::SZ2, 0),
                l2 = const lwc2(11, data::SZ3, 0),
                avsz3 = const cop2(cmd::AVSZ3),
                in("$9") p.add(v[0]),
                in("$10") p.add(v[1]),
                in("$11") p.add(v[2]),
                options(nostack, readonly, preserves_flags),
            );
        }
    }
}
