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
//!
//! The bulk methods (`compose_packed`) are one asm loop each, with the GPRs of their encodings pinned
//! the same way and the hazards kept by instruction scheduling instead of `nop`s.

use core::arch::asm;

use super::backend::Cop2;
use super::regs::data;
use super::{PackedMatrix, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::Matrix;

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

    /// The default body's register operations in one software-pipelined loop. A GTE access waits
    /// for a running command, so each command's 8 cycles are filled with CPU-only work: the next
    /// pose's six words are loaded into GPRs ($2-$7) there, and results are stored around them.
    /// Results leave by `swc2` where an entry starts a word (the other half gets sign bits,
    /// overwritten afterwards by `sh`), else by `mfc2` + `sh`.
    ///
    /// $8 poses left, $9 the next pose to load (stays on the last one: nothing past the slice is
    /// read), $10 the output matrix, $11 the last pose, $12-$15 temporaries.
    fn compose_packed(&mut self, poses: &[PackedMatrix], out: &mut [Matrix]) {
        let n = poses.len().min(out.len());
        if n == 0 {
            return;
        }
        // Offsets in `Matrix` (repr(C)): rotation[i][j] at 2 * (3i + j), translation at 20, 24, 28.
        // SAFETY: reads the first `n` poses and writes the first `n` matrices, all inside the slices;
        // touches only the listed GPRs and GTE registers. Load delays and the two-instruction gap
        // between a register write and the command that reads it are kept instruction by instruction.
        unsafe {
            asm!(
                ".set push",
                ".set noreorder",
                "lw $2, 0($9)",
                "lw $3, 4($9)",
                "lw $4, 8($9)",
                "lw $5, 12($9)",
                "lw $6, 16($9)",
                "lw $7, 20($9)",
                // Advance $9 by one pose unless it is the last (branch-free: 24 & -(next < last)).
                "sltu $13, $9, $11",
                "subu $13, $0, $13",
                "andi $13, $13, 24",
                "addu $9, $9, $13",
                "1:",
                ".word {mt_xy0_col}",
                ".word {mt_z0_col}",
                ".word {mt_xy1}",
                "srl $6, $6, 16",
                ".word {mt_z1}",
                ".word {mt_xy2}",
                ".word {mt_z2}",
                "srl $7, $7, 16",
                ".word {rt_v0}",
                "lw $2, 0($9)",
                "lw $3, 4($9)",
                ".word {st_ir1_00}",
                ".word {mf_ir2_t6}",
                ".word {st_ir3_20}",
                ".word {rt_v1}",
                "lw $4, 8($9)",
                "lw $6, 16($9)",
                ".word {mf_ir1_t7}",
                ".word {st_ir2_11}",
                ".word {mf_ir3_t4}",
                ".word {mt_xy0_t}",
                ".word {mt_z0_t}",
                "sh $15, 2($10)",
                "sh $12, 14($10)",
                ".word {rt_v2}",
                "lw $5, 12($9)",
                "lw $7, 20($9)",
                ".word {st_ir1_02}",
                ".word {st_ir3_22}",
                ".word {mf_ir2_t7}",
                "sh $14, 6($10)",
                ".word {rt_v0_tr}",
                "sh $15, 10($10)",
                "sltu $13, $9, $11",
                "subu $13, $0, $13",
                "andi $13, $13, 24",
                "addu $9, $9, $13",
                "addiu $8, $8, -1",
                ".word {st_mac1}",
                ".word {st_mac2}",
                ".word {st_mac3}",
                "bne $8, $0, 1b",
                "addiu $10, $10, 32",
                ".set pop",
                mt_xy0_col = const mtc2_from(2, data::VXY0),
                mt_z0_col = const mtc2_from(6, data::VZ0),
                mt_xy1 = const mtc2_from(3, data::VXY1),
                mt_z1 = const mtc2_from(6, data::VZ1),
                mt_xy2 = const mtc2_from(4, data::VXY2),
                mt_z2 = const mtc2_from(7, data::VZ2),
                mt_xy0_t = const mtc2_from(5, data::VXY0),
                mt_z0_t = const mtc2_from(7, data::VZ0),
                rt_v0 = const cop2(MVMVA_RT_V0),
                rt_v1 = const cop2(MVMVA_RT_V1),
                rt_v2 = const cop2(MVMVA_RT_V2),
                rt_v0_tr = const cop2(MVMVA_RT_V0_TR),
                st_ir1_00 = const swc2(10, data::IR1, 0),
                st_ir3_20 = const swc2(10, data::IR3, 12),
                st_ir2_11 = const swc2(10, data::IR2, 8),
                st_ir1_02 = const swc2(10, data::IR1, 4),
                st_ir3_22 = const swc2(10, data::IR3, 16),
                mf_ir2_t6 = const mfc2_to(14, data::IR2),
                mf_ir1_t7 = const mfc2_to(15, data::IR1),
                mf_ir3_t4 = const mfc2_to(12, data::IR3),
                mf_ir2_t7 = const mfc2_to(15, data::IR2),
                st_mac1 = const swc2(10, data::MAC1, 20),
                st_mac2 = const swc2(10, data::MAC2, 24),
                st_mac3 = const swc2(10, data::MAC3, 28),
                inout("$8") n => _,
                inout("$9") poses.as_ptr() => _,
                inout("$10") out.as_mut_ptr() => _,
                in("$11") poses.as_ptr().add(n - 1),
                out("$2") _,
                out("$3") _,
                out("$4") _,
                out("$5") _,
                out("$6") _,
                out("$7") _,
                out("$12") _,
                out("$13") _,
                out("$14") _,
                out("$15") _,
                options(nostack),
            );
        }
    }
}

/// `swc2 reg, imm(base)`.
const fn swc2(base: u32, reg: u32, imm: u16) -> u32 {
    0x3A << 26 | base << 21 | (reg & 31) << 16 | imm as u32
}
/// `mtc2 gpr, rd` with any GPR (the register-level methods pin $8).
const fn mtc2_from(gpr: u32, rd: u32) -> u32 {
    0x4880_0000 | gpr << 16 | (rd & 31) << 11
}
/// `mfc2 gpr, rd` with any GPR.
const fn mfc2_to(gpr: u32, rd: u32) -> u32 {
    0x4800_0000 | gpr << 16 | (rd & 31) << 11
}
