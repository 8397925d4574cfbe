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
//! The bulk methods are one asm loop each, with the GPRs of their encodings pinned the same way and
//! the hazards kept by instruction scheduling instead of `nop`s.

use core::arch::asm;

use super::backend::{Cop2, ScreenTriangle};
use super::packets::{FlatPackets, FlatPrimitives, PacketList};
use super::regs::{cmd, data};
use super::regs::ctrl;
use super::{PackedMatrix, GPF_SF0, MVMVA_RT_IR, MVMVA_RT_IR_TR, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2, SQR_SF0};
use crate::math::Matrix;
use crate::tables::BoneSample;

mod packet_loop;

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
/// `mfc2` into any GPR.
const fn mfc2_to(gpr: u32, rd: u32) -> u32 {
    0x4800_0000 | gpr << 16 | (rd & 31) << 11
}
const fn ctc2(rd: u32) -> u32 {
    0x48C0_0000 | GPR << 16 | (rd & 31) << 11
}
/// `ctc2` from any GPR.
const fn ctc2_from(gpr: u32, rd: u32) -> u32 {
    0x48C0_0000 | gpr << 16 | (rd & 31) << 11
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

/// Byte offsets of a `BoneSample`'s fields (not `repr(C)`: taken from the compiler).
const SAMPLE_ROTATION: usize = core::mem::offset_of!(BoneSample, rotation);
const SAMPLE_TRANSLATION: usize = core::mem::offset_of!(BoneSample, translation);
const SAMPLE_SCALE: usize = core::mem::offset_of!(BoneSample, scale);

/// The GTE of the running console. Zero-sized: the state lives in the coprocessor.
#[derive(Debug)]
pub struct Cop2Hardware {
    _private: (),
}

impl Cop2Hardware {
    /// Enables coprocessor 2 ([`enable_cop2`]) and returns the handle.
    pub fn new() -> Self {
        enable_cop2();
        Self { _private: () }
    }
}

/// Sets COP0 Status bit 30 (CU2), so GTE instructions run, and nothing else: a read-modify-write
/// that keeps the game's interrupt, cache and boot-vector bits as they are. Idempotent.
///
/// `psx` 0.1.8's `cop0::Status::enable_gte()` must not be used for this: it also sets bit 16
/// (isolate cache), after which stores no longer reach RAM (mednafen drops every one of them).
pub fn enable_cop2() {
    // SAFETY: read-modify-write of the status register that only sets the CU2 enable bit; the nops
    // cover mfc0's load delay and the two instructions before the new status takes effect.
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

    /// `rtpt_words`'s pipelined loop, with the next triple's nine halfwords loaded and packed into
    /// VXY/VZ words while RTPT runs.
    #[inline(always)]
    fn rtpt_positions(&mut self, positions: &[[i16; 3]], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (positions.len() / 3).min(sxy.len() / 3).min(sz.len() / 3);
        if triples == 0 {
            return 0;
        }
        // SAFETY: reads 9 halfwords a triple from `positions` (2-aligned) and writes 3 words to each
        // of `sxy` and `sz`, for `triples` triples, which all three slices hold. Hazards as in
        // `rtpt_words`; each packing `or` uses halfwords loaded at least two instructions before.
        unsafe {
            asm!(
                ".set push",
                ".set noreorder",
                "lhu $13, 0($9)",
                "lhu $2, 2($9)",
                "lhu $14, 4($9)",
                "lhu $15, 6($9)",
                "lhu $4, 8($9)",
                "lhu $24, 10($9)",
                "lhu $25, 12($9)",
                "lhu $5, 14($9)",
                "lhu $3, 16($9)",
                "sll $2, $2, 16",
                "or $13, $13, $2",
                "sll $4, $4, 16",
                "or $15, $15, $4",
                "sll $5, $5, 16",
                "or $25, $25, $5",
                "addiu $12, $12, -1",
                "beqz $12, 2f",
                "nop",
                "1:",
                ".word {m0}", ".word {m1}", ".word {m2}", ".word {m3}", ".word {m4}", ".word {m5}",
                "addiu $9, $9, 18",
                "addiu $12, $12, -1",
                ".word {rtpt}",
                "lhu $13, 0($9)",
                "lhu $2, 2($9)",
                "lhu $14, 4($9)",
                "lhu $15, 6($9)",
                "lhu $4, 8($9)",
                "lhu $24, 10($9)",
                "lhu $25, 12($9)",
                "lhu $5, 14($9)",
                "lhu $3, 16($9)",
                "sll $2, $2, 16",
                "or $13, $13, $2",
                "sll $4, $4, 16",
                "or $15, $15, $4",
                "sll $5, $5, 16",
                "or $25, $25, $5",
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
                inout("$9") positions.as_ptr() => _,
                inout("$10") sxy.as_mut_ptr() => _,
                inout("$11") sz.as_mut_ptr() => _,
                inout("$12") triples => _,
                out("$2") _,
                out("$3") _,
                out("$4") _,
                out("$5") _,
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
    unsafe fn nclip_indexed(&mut self, sxy: &[u32], v: [usize; 3]) -> i32 {
        let p = sxy.as_ptr();
        let area: u32;
        // SAFETY: the caller guarantees the indices are in bounds. Two instructions between the last
        // lwc2 and the command; the mfc2 waits for NCLIP; a nop covers its load delay.
        unsafe {
            asm!(
                ".word {l0}", ".word {l1}", ".word {l2}", "nop", "nop", ".word {nclip}", ".word {mac0}", "nop",
                l0 = const lwc2(9, data::SXY0, 0),
                l1 = const lwc2(10, data::SXY1, 0),
                l2 = const lwc2(11, data::SXY2, 0),
                nclip = const cop2(cmd::NCLIP),
                mac0 = const mfc2(data::MAC0),
                in("$9") p.add(v[0]),
                in("$10") p.add(v[1]),
                in("$11") p.add(v[2]),
                out("$8") area,
                options(nostack, readonly, preserves_flags),
            );
        }
        area as i32
    }

    /// One of [`packet_loop`]'s two asm loops, with or without the near and span tests.
    unsafe fn flat_packets(&mut self, job: &FlatPrimitives, out: &mut PacketList) -> FlatPackets {
        // SAFETY (both): the caller's contract.
        if job.clip_tests {
            return unsafe { packet_loop::flat_packets_tested(job, out) };
        }
        unsafe { packet_loop::flat_packets_untested(job, out) }
    }

    #[inline(always)]
    unsafe fn avsz3_indexed(&mut self, sz: &[u32], v: [usize; 3]) -> ScreenTriangle {
        let p = sz.as_ptr();
        let (sxy0, sxy1, sxy2, sz1, sz2, sz3, otz): (u32, u32, u32, u32, u32, u32, u32);
        // SAFETY: as for `nclip_indexed`; each mfc2 names its own GPR, the last one's delay is covered.
        unsafe {
            asm!(
                ".word {l0}", ".word {l1}", ".word {l2}", "nop", "nop", ".word {avsz3}",
                ".word {r0}", ".word {r1}", ".word {r2}", ".word {r3}", ".word {r4}", ".word {r5}", ".word {r6}", "nop",
                l0 = const lwc2(9, data::SZ1, 0),
                l1 = const lwc2(10, data::SZ2, 0),
                l2 = const lwc2(11, data::SZ3, 0),
                avsz3 = const cop2(cmd::AVSZ3),
                r0 = const mfc2_to(12, data::SXY0),
                r1 = const mfc2_to(13, data::SXY1),
                r2 = const mfc2_to(14, data::SXY2),
                r3 = const mfc2_to(15, data::SZ1),
                r4 = const mfc2_to(24, data::SZ2),
                r5 = const mfc2_to(25, data::SZ3),
                r6 = const mfc2_to(3, data::OTZ),
                in("$9") p.add(v[0]),
                in("$10") p.add(v[1]),
                in("$11") p.add(v[2]),
                out("$12") sxy0,
                out("$13") sxy1,
                out("$14") sxy2,
                out("$15") sz1,
                out("$24") sz2,
                out("$25") sz3,
                out("$3") otz,
                options(nostack, readonly, preserves_flags),
            );
        }
        ScreenTriangle { sxy: [sxy0, sxy1, sxy2], sz: [sz1, sz2, sz3], otz }
    }

    /// The default body's register operations, scheduled by hand: the range checks, the
    /// translation's rounding, the parent's loads and the entries' rounding run while GPF, SQR and
    /// MVMVA do (a GTE access waits for a running command); the common-case test comes after the
    /// products (a sample outside it leaves with nothing stored, and the general path then rewrites
    /// every register it reads).
    ///
    /// $4 sample, $5 parent, $6 out; $11-$14 x, y, z, w (Q14); $15, $24, $25 the translation;
    /// $16-$23 wx, wy, wz, xx, yy, zz, xy, xz and $10 yz; $7 the out-of-range bits, $8 0x8000,
    /// $14 then 0x4000; $2 the result.
    #[inline(always)]
    fn compose_unit_sample(&mut self, parent: &Matrix, sample: &BoneSample, out: &mut Matrix) -> bool {
        let done: u32;
        // SAFETY: reads the sample's fields (at their compiler-given offsets) and the parent matrix
        // (its rotation's first 18 bytes as words and a half-word, its translation), writes the
        // output matrix's rotation and translation (not its padding); `repr(C)` layouts: rotation
        // [i16; 9] at 0, translation at 20, 24, 28. Two instructions separate each mtc2/ctc2 from the
        // command that reads it; no loaded register is read by the next instruction.
        unsafe {
            asm!(
                ".set push",
                ".set noreorder",
                "lw $11, {r0}($4)",
                "lw $12, {r1}($4)",
                "lw $13, {r2}($4)",
                "lw $14, {r3}($4)",
                "sra $11, $11, 1",
                "sra $12, $12, 1",
                "sra $13, $13, 1",
                "sra $14, $14, 1",
                "addiu $11, $11, 0x4000",
                "addiu $12, $12, 0x4000",
                "addiu $13, $13, 0x4000",
                "addiu $14, $14, 0x4000",
                "sra $11, $11, 15",
                "sra $12, $12, 15",
                "sra $13, $13, 15",
                "sra $14, $14, 15",
                ".word {w_ir0}",
                ".word {x_ir1}",
                ".word {y_ir2}",
                ".word {z_ir3}",
                "ori $8, $0, 0x8000",
                "addiu $7, $11, 0x4000",
                ".word {gpf}",
                // A component is in range when it plus 2^14 is at most 2^15 (unsigned).
                "sltu $7, $8, $7",
                "addiu $9, $12, 0x4000",
                "sltu $9, $8, $9",
                "or $7, $7, $9",
                "addiu $9, $13, 0x4000",
                "sltu $9, $8, $9",
                "or $7, $7, $9",
                "addiu $9, $14, 0x4000",
                "sltu $9, $8, $9",
                "or $7, $7, $9",
                ".word {wx}",
                ".word {wy}",
                ".word {wz}",
                ".word {x_ir1}",
                ".word {y_ir2}",
                ".word {z_ir3}",
                "lw $15, {t0}($4)",
                "lw $24, {t1}($4)",
                ".word {sqr}",
                "lw $25, {t2}($4)",
                "sra $15, $15, 1",
                "sra $24, $24, 1",
                "sra $25, $25, 1",
                "addiu $15, $15, 64",
                "addiu $24, $24, 64",
                "addiu $25, $25, 64",
                ".word {xx}",
                ".word {yy}",
                ".word {zz}",
                ".word {x_ir0}",
                ".word {y_ir1}",
                ".word {z_ir2}",
                "sra $15, $15, 7",
                "sra $24, $24, 7",
                ".word {gpf}",
                "sra $25, $25, 7",
                // A translation fits i16 when it plus 2^15 has no bit above 15.
                "addu $9, $15, $8",
                "srl $9, $9, 16",
                "or $7, $7, $9",
                "addu $9, $24, $8",
                "srl $9, $9, 16",
                "or $7, $7, $9",
                ".word {xy}",
                ".word {xz}",
                ".word {y_ir0}",
                ".word {z_ir1}",
                "addu $9, $25, $8",
                "srl $9, $9, 16",
                ".word {gpf}",
                "or $7, $7, $9",
                // Scale 1.0 on an axis: v - 65528 below 16 (unsigned).
                "lw $2, {s0}($4)",
                "lw $3, {s1}($4)",
                "lw $10, {s2}($4)",
                "lui $9, 0xFFFF",
                "ori $9, $9, 8",
                "addu $2, $2, $9",
                "addu $3, $3, $9",
                "addu $10, $10, $9",
                "sltiu $2, $2, 16",
                "sltiu $3, $3, 16",
                "sltiu $10, $10, 16",
                "and $2, $2, $3",
                "and $2, $2, $10",
                "sltiu $7, $7, 1",
                "and $2, $2, $7",
                ".word {yz}",
                "beqz $2, 9f",
                "nop",
                // The parent into RT and TR.
                "lw $3, 0($5)",
                "lw $7, 4($5)",
                "lw $9, 8($5)",
                ".word {rt0}",
                "lw $3, 12($5)",
                ".word {rt1}",
                "lh $7, 16($5)",
                ".word {rt2}",
                "lw $9, 20($5)",
                ".word {rt3}",
                "lw $3, 24($5)",
                ".word {rt4}",
                "lw $7, 28($5)",
                ".word {trx}",
                ".word {try_}",
                ".word {trz}",
                // Column 0: 4096 + ((2^14 - (yy + zz)) >> 15), (xy + wz + 2^14) >> 15, (xz - wy + 2^14) >> 15.
                "ori $14, $0, 0x4000",
                "addu $3, $20, $21",
                "subu $3, $14, $3",
                "sra $3, $3, 15",
                "addiu $3, $3, 4096",
                "addu $7, $22, $18",
                "addiu $7, $7, 0x4000",
                "sra $7, $7, 15",
                "subu $9, $23, $17",
                "addiu $9, $9, 0x4000",
                "sra $9, $9, 15",
                ".word {a_ir1}",
                ".word {b_ir2}",
                ".word {c_ir3}",
                // Column 1 while column 0 is composed: xy - wz, xx + zz, yz + wx.
                "subu $3, $22, $18",
                "addiu $3, $3, 0x4000",
                ".word {mvmva}",
                "sra $3, $3, 15",
                "addu $7, $19, $21",
                "subu $7, $14, $7",
                "sra $7, $7, 15",
                "addiu $7, $7, 4096",
                "addu $9, $10, $16",
                "addiu $9, $9, 0x4000",
                "sra $9, $9, 15",
                ".word {ir1}",
                ".word {ir2}",
                ".word {ir3}",
                ".word {a_ir1}",
                ".word {b_ir2}",
                ".word {c_ir3}",
                "sh $11, 0($6)",
                "sh $12, 6($6)",
                ".word {mvmva}",
                "sh $13, 12($6)",
                // Column 2 while column 1 is composed: xz + wy, yz - wx, xx + yy.
                "addu $3, $23, $17",
                "addiu $3, $3, 0x4000",
                "sra $3, $3, 15",
                "subu $7, $10, $16",
                "addiu $7, $7, 0x4000",
                "sra $7, $7, 15",
                "addu $9, $19, $20",
                "subu $9, $14, $9",
                "sra $9, $9, 15",
                "addiu $9, $9, 4096",
                ".word {ir1}",
                ".word {ir2}",
                ".word {ir3}",
                ".word {a_ir1}",
                ".word {b_ir2}",
                ".word {c_ir3}",
                "sh $11, 2($6)",
                "sh $12, 8($6)",
                ".word {mvmva}",
                "sh $13, 14($6)",
                ".word {ir1}",
                ".word {ir2}",
                ".word {ir3}",
                ".word {tx_ir1}",
                ".word {ty_ir2}",
                ".word {tz_ir3}",
                "sh $11, 4($6)",
                "sh $12, 10($6)",
                ".word {mvmva_tr}",
                "sh $13, 16($6)",
                ".word {st_mac1}",
                ".word {st_mac2}",
                ".word {st_mac3}",
                "9:",
                ".set pop",
                r0 = const SAMPLE_ROTATION,
                r1 = const SAMPLE_ROTATION + 4,
                r2 = const SAMPLE_ROTATION + 8,
                r3 = const SAMPLE_ROTATION + 12,
                t0 = const SAMPLE_TRANSLATION,
                t1 = const SAMPLE_TRANSLATION + 4,
                t2 = const SAMPLE_TRANSLATION + 8,
                s0 = const SAMPLE_SCALE,
                s1 = const SAMPLE_SCALE + 4,
                s2 = const SAMPLE_SCALE + 8,
                w_ir0 = const mtc2_from(14, data::IR0),
                x_ir1 = const mtc2_from(11, data::IR1),
                y_ir2 = const mtc2_from(12, data::IR2),
                z_ir3 = const mtc2_from(13, data::IR3),
                x_ir0 = const mtc2_from(11, data::IR0),
                y_ir1 = const mtc2_from(12, data::IR1),
                z_ir2 = const mtc2_from(13, data::IR2),
                y_ir0 = const mtc2_from(12, data::IR0),
                z_ir1 = const mtc2_from(13, data::IR1),
                gpf = const cop2(GPF_SF0),
                sqr = const cop2(SQR_SF0),
                wx = const mfc2_to(16, data::MAC1),
                wy = const mfc2_to(17, data::MAC2),
                wz = const mfc2_to(18, data::MAC3),
                xx = const mfc2_to(19, data::MAC1),
                yy = const mfc2_to(20, data::MAC2),
                zz = const mfc2_to(21, data::MAC3),
                xy = const mfc2_to(22, data::MAC1),
                xz = const mfc2_to(23, data::MAC2),
                yz = const mfc2_to(10, data::MAC1),
                rt0 = const ctc2_from(3, ctrl::RT11RT12),
                rt1 = const ctc2_from(7, ctrl::RT13RT21),
                rt2 = const ctc2_from(9, ctrl::RT22RT23),
                rt3 = const ctc2_from(3, ctrl::RT31RT32),
                rt4 = const ctc2_from(7, ctrl::RT33),
                trx = const ctc2_from(9, ctrl::TRX),
                try_ = const ctc2_from(3, ctrl::TRY),
                trz = const ctc2_from(7, ctrl::TRZ),
                a_ir1 = const mtc2_from(3, data::IR1),
                b_ir2 = const mtc2_from(7, data::IR2),
                c_ir3 = const mtc2_from(9, data::IR3),
                tx_ir1 = const mtc2_from(15, data::IR1),
                ty_ir2 = const mtc2_from(24, data::IR2),
                tz_ir3 = const mtc2_from(25, data::IR3),
                ir1 = const mfc2_to(11, data::IR1),
                ir2 = const mfc2_to(12, data::IR2),
                ir3 = const mfc2_to(13, data::IR3),
                mvmva = const cop2(MVMVA_RT_IR),
                mvmva_tr = const cop2(MVMVA_RT_IR_TR),
                st_mac1 = const swc2(6, data::MAC1, 20),
                st_mac2 = const swc2(6, data::MAC2, 24),
                st_mac3 = const swc2(6, data::MAC3, 28),
                in("$4") sample as *const BoneSample,
                in("$5") parent as *const Matrix,
                in("$6") out as *mut Matrix,
                out("$2") done,
                out("$3") _,
                out("$7") _,
                out("$8") _,
                out("$9") _,
                out("$10") _,
                out("$11") _,
                out("$12") _,
                out("$13") _,
                out("$14") _,
                out("$15") _,
                out("$16") _,
                out("$17") _,
                out("$18") _,
                out("$19") _,
                out("$20") _,
                out("$21") _,
                out("$22") _,
                out("$23") _,
                out("$24") _,
                out("$25") _,
                options(nostack),
            );
        }
        done != 0
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
