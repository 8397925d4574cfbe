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
use super::packets::{FlatPackets, FlatPrimitives, PacketList, SurfaceRuns};
use super::regs::{cmd, ctrl, data};
use super::{LitBones, PackedMatrix, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::Matrix;
use crate::gte::PoseQ14;
use crate::tables::BoneSample;

/// `asm!` with the registers listed in `[...]` clobbered (each an `out(reg) _`) and `options(nostack)`,
/// after the caller's template and operands (the last of which ends with a comma): a hand-scheduled
/// block's clobbers on one line, in the order of its register map. The emitted code is that of the
/// same `asm!` with the clobbers written out.
macro_rules! asm_clobbering {
    ([$($r:tt),* $(,)?], $($body:tt)*) => {
        ::core::arch::asm!($($body)* $(out($r) _,)* options(nostack))
    };
}
pub(crate) use asm_clobbering;

/// The register operations of `Cop2::load_bone_light` as asm text: `$8` the directions' five words,
/// `$9` the matrix (`repr(C)`: its rotation's halfword pairs are RT's words, the columns are made
/// from them, VZ keeps a word's low half; the translation at 20); three MVMVA whose IR1..3 are
/// packed into LLM's words (TR's words loaded while the first runs); then RT and TR. Clobbers
/// `$2`-`$15`, `$18`, `$24`, `$25`.
macro_rules! bone_light_text {
    () => {
        concat!(
            // RT's words of the matrix: r00 r01, r02 r10, r11 r12, r20 r21, r22.
            "lw $2, 0($9)\n",
            "lw $3, 4($9)\n",
            "lw $4, 8($9)\n",
            "lw $5, 12($9)\n",
            "lhu $6, 16($9)\n",
            "lw $10, 0($8)\n",
            "lw $11, 4($8)\n",
            "lw $12, 8($8)\n",
            "lw $13, 12($8)\n",
            "lw $14, 16($8)\n",
            ".word {rt0_10}\n",
            ".word {rt1_11}\n",
            ".word {rt2_12}\n",
            ".word {rt3_13}\n",
            ".word {rt4_14}\n",
            // Columns: r00 | r10 << 16, r01 | r11 << 16, r02 | r12 << 16; z: r20, r21, r22.
            "lui $15, 0xFFFF\n",
            "andi $7, $2, 0xFFFF\n",
            "and $24, $3, $15\n",
            "or $7, $7, $24\n",
            "srl $24, $2, 16\n",
            "sll $25, $4, 16\n",
            "or $24, $24, $25\n",
            "andi $25, $3, 0xFFFF\n",
            "and $15, $4, $15\n",
            "or $25, $25, $15\n",
            "srl $15, $5, 16\n",
            ".word {v0_7}\n",
            ".word {z0_5}\n",
            ".word {v1_24}\n",
            ".word {z1_15}\n",
            ".word {v2_25}\n",
            ".word {z2_6}\n",
            "nop\n",
            "nop\n",
            ".word {mv0}\n",
            // TR's words while the first MVMVA runs ($9 last: the matrix pointer's last use).
            "lw $7, 20($9)\n",
            "lw $18, 24($9)\n",
            "lw $9, 28($9)\n",
            ".word {ir1_10}\n",
            ".word {ir2_11}\n",
            ".word {ir3_12}\n",
            ".word {mv1}\n",
            ".word {ir1_13}\n",
            ".word {ir2_14}\n",
            ".word {ir3_15}\n",
            ".word {mv2}\n",
            // LLM row by row: L11L12 = c0.x | c1.x, L13L21 = c2.x | c0.y, L22L23 = c1.y | c2.y,
            // L31L32 = c0.z | c1.z, L33 = c2.z (cj: IR1..3 after the MVMVA of column j).
            "andi $10, $10, 0xFFFF\n",
            "sll $13, $13, 16\n",
            "or $10, $10, $13\n",
            "sll $11, $11, 16\n",
            "andi $14, $14, 0xFFFF\n",
            "andi $12, $12, 0xFFFF\n",
            "sll $15, $15, 16\n",
            "or $12, $12, $15\n",
            ".word {ir1_8}\n",
            ".word {ir2_24}\n",
            ".word {ir3_25}\n",
            "andi $8, $8, 0xFFFF\n",
            "or $11, $8, $11\n",
            "sll $24, $24, 16\n",
            "or $14, $14, $24\n",
            "andi $25, $25, 0xFFFF\n",
            ".word {l0_10}\n",
            ".word {l1_11}\n",
            ".word {l2_14}\n",
            ".word {l3_12}\n",
            ".word {l4_25}\n",
            ".word {rt0_2}\n",
            ".word {rt1_3}\n",
            ".word {rt2_4}\n",
            ".word {rt3_5}\n",
            ".word {rt4_6}\n",
            ".word {trx_7}\n",
            ".word {try_18}\n",
            ".word {trz_9}\n",
        )
    };
}

/// `Cop2::rtpt_nct_range`'s loop as asm text. While RTPT runs the CPU loads the triple's three
/// normal words (x | y) and the next triple's first position word, and shifts each normal's z out of
/// its position's VZ word (packed normals); while NCT (NCDT with fog) runs, the next triple's other
/// five position words (the last triple's again at the end: nothing is read past the range, see
/// below), and steps to the triple after. Results leave by `swc2`. Per triple 9 loads from main RAM,
/// four in RTPT's 23 cycles, five in NCT's 30 (with fog three and six: NCDT takes 44).
/// `$9` the position words of the triple after the one in the registers, `$16` the normals, `$10`,
/// `$11`, `$17` SXY, SZ and colours, `$12` the triples (at least 1), `$18` 8 x the vertices left over
/// (0 to 2) - 24; the next triple's first word (`lw $13, 0($9)`) in `$in_rtpt` or `$in_light`, the
/// window with room (NCDT's 44 cycles take all six); `$single` the one-vertex ending ([`single_vertex_text`], or its operands named in
/// a comment); labels 0, 1, 3 and 7; clobbers `$2`-`$8`, `$13`-`$15`, `$24`, `$25`.
macro_rules! rtpt_nct_text {
    ($single:expr, $in_rtpt:literal, $in_light:literal) => {
        concat!(
            "0:\n",
            "lw $13, 0($9)\n",
            "lw $14, 4($9)\n",
            "lw $15, 8($9)\n",
            "lw $24, 12($9)\n",
            "lw $25, 16($9)\n",
            "lw $3, 20($9)\n",
            next_triple_text!(),
            // $12: the triples after the one in the registers; $9 the next one's words.
            "1:\n",
            ".word {m0}\n",
            ".word {m1}\n",
            ".word {m2}\n",
            ".word {m3}\n",
            ".word {m4}\n",
            ".word {m5}\n",
            "addiu $10, $10, 12\n",
            "addiu $11, $11, 12\n",
            ".word {rtpt}\n",
            "lw $2, 0($16)\n",
            "lw $5, 4($16)\n",
            "lw $7, 8($16)\n",
            $in_rtpt,
            "sra $4, $14, 16\n",
            "sra $6, $24, 16\n",
            "sra $8, $3, 16\n",
            "addiu $16, $16, 12\n",
            ".word {s0}\n",
            ".word {s1}\n",
            ".word {s2}\n",
            ".word {s3}\n",
            ".word {s4}\n",
            ".word {s5}\n",
            ".word {n0}\n",
            ".word {n1}\n",
            ".word {n2}\n",
            ".word {n3}\n",
            ".word {n4}\n",
            ".word {n5}\n",
            "addiu $17, $17, 12\n",
            "nop\n",
            ".word {nct}\n",
            $in_light,
            "lw $14, 4($9)\n",
            "lw $15, 8($9)\n",
            "lw $24, 12($9)\n",
            "lw $25, 16($9)\n",
            "lw $3, 20($9)\n",
            next_triple_text!(),
            ".word {c0}\n",
            ".word {c1}\n",
            "bgez $12, 1b\n",
            ".word {c2}\n",
            $single,
            // One or two vertices left: one more pass over the range's last three, whose positions
            // the last pass loaded from $9 - 24; the other pointers moved back by 3 minus them
            // (-$18 / 8 vertices, 4 bytes each).
            "addiu $2, $18, 24\n",
            "beqz $2, 3f\n",
            "sra $2, $18, 1\n",
            "addu $10, $10, $2\n",
            "addu $11, $11, $2\n",
            "addu $17, $17, $2\n",
            "addu $16, $16, $2\n",
            "addiu $9, $9, -24\n",
            "li $18, -24\n",
            "b 1b\n",
            "li $12, 0\n",
            "3:\n",
        )
    };
}

/// [`rtpt_nct_text`]'s ending for one vertex left without fog: RTPS and NCS of it alone (its
/// position words the last three's third, `$25` and `$3`, which the last pass loaded; its results'
/// and normal's pointers where the loop left them); otherwise on to `7:`.
macro_rules! single_vertex_text {
    () => {
        concat!(
            "addiu $2, $18, 16\n",
            "bnez $2, 7f\n",
            "sra $4, $3, 16\n",
            ".word {v0_25}\n",
            ".word {z0_3}\n",
            "lw $5, 0($16)\n",
            "nop\n",
            ".word {rtps}\n",
            ".word {one_xy}\n",
            ".word {one_z}\n",
            ".word {n0_5}\n",
            ".word {nz0_4}\n",
            "nop\n",
            "nop\n",
            ".word {ncs}\n",
            "b 3f\n",
            ".word {one_c}\n",
            "7:\n",
        )
    };
}

/// [`rtpt_nct_text`]'s step to the triple after: `$12` minus one, and `$9` forward by 24 while a
/// triple remains after it, else by 24 + `$18`: onto the range's last three when one or two vertices
/// are left over, else onto the same triple (read again, unused). Clobbers `$2`.
macro_rules! next_triple_text {
    () => {
        concat!(
            "addiu $12, $12, -1\n",
            "sltu $2, $0, $12\n",
            "addiu $2, $2, -1\n",
            "and $2, $2, $18\n",
            "addiu $2, $2, 24\n",
            "addu $9, $9, $2\n",
        )
    };
}

mod blend;
mod columns;
mod nlerp;
mod packet_loop;
mod pose;
mod surface_loop;

/// The GPR the encodings below use: $8 (t0).
const GPR: u32 = 8;

const fn mtc2(rd: u32) -> u32 {
    0x4880_0000 | GPR << 16 | (rd & 31) << 11
}
/// `mtc2` from any GPR (for asm that keeps several values in registers).
pub(crate) const fn mtc2_from(gpr: u32, rd: u32) -> u32 {
    0x4880_0000 | gpr << 16 | (rd & 31) << 11
}
const fn mfc2(rd: u32) -> u32 {
    0x4800_0000 | GPR << 16 | (rd & 31) << 11
}
/// `mfc2` into any GPR.
pub(crate) const fn mfc2_to(gpr: u32, rd: u32) -> u32 {
    0x4800_0000 | gpr << 16 | (rd & 31) << 11
}
const fn ctc2(rd: u32) -> u32 {
    0x48C0_0000 | GPR << 16 | (rd & 31) << 11
}
/// `ctc2` from any GPR.
pub(crate) const fn ctc2_from(gpr: u32, rd: u32) -> u32 {
    0x48C0_0000 | gpr << 16 | (rd & 31) << 11
}
const fn cfc2(rd: u32) -> u32 {
    0x4840_0000 | GPR << 16 | (rd & 31) << 11
}
pub(crate) const fn cop2(cmd: u32) -> u32 {
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

    /// Every bone in one asm block: per bone [`bone_light_text`] (LLM, RT, TR), then
    /// [`rtpt_nct_text`] over its range (the last one or two vertices by one more iteration);
    /// the pointers from a block of bases and offsets, the range's triples by a multiply (count *
    /// 0xAAAB >> 17 is count / 3 below 2^16).
    #[inline(always)]
    unsafe fn project_light_bones(&mut self, job: &LitBones, sxy: &mut [u32], sz: &mut [u32], rgb: &mut [u32]) {
        let n = job.matrices.len().min(job.bones.len() / 2);
        if n == 0 {
            return;
        }
        let base = sxy.as_mut_ptr() as usize;
        let d = job.directions;
        let words: [u32; 10] = [
            job.vertices.as_ptr() as usize as u32,
            (job.normals.as_ptr() as usize).wrapping_sub(base) as u32,
            (sz.as_mut_ptr() as usize).wrapping_sub(base) as u32,
            (rgb.as_mut_ptr() as usize).wrapping_sub(base) as u32,
            0,
            d[0],
            d[1],
            d[2],
            d[3],
            d[4],
        ];
        // The block the asm reads nine words of per bone, in the scratchpad (a load there takes one
        // cycle, from main RAM five to eight): the blend stage's work area, which nothing uses until
        // the blend stage runs, after this pass.
        let block = crate::gte::blend::WORK_AT as *mut [u32; 10];
        // SAFETY: the scratchpad is always-mapped RAM; the work area is 4-aligned and holds 12 words
        // (10 written), which no reference covers while the renderer runs this pass.
        unsafe { block.write_volatile(words) };
        // The block once with NCT and once with NCDT (fog): the command is an encoding constant, and
        // a branch per triple would cost the unfogged loop cycles.
        macro_rules! lit_block {
            ($light:expr, $single:expr, $in_rtpt:literal, $in_light:literal) => {
                // SAFETY: by the caller's contract every bone's range lies in the vertices, normals, `sxy`,
                // `sz` and `rgb` (and is empty or holds three vertices or more); reads the bone words, the
                // matrices and `block`, writes only into those ranges. Two instructions separate each write
                // to the GTE from the command that reads it; every mfc2 and swc2 waits for its command; no
                // loaded register is used by the instruction after its load; mflo waits for multu and no
                // multiply follows it within two instructions.
                unsafe {
                    asm_clobbering!(
                        ["$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$16", "$17", "$18", "$24", "$25"],
                        ".set push",
                        ".set noreorder",
                        // $19 the bone words, $20 the bones left, $21 the matrix, $22 the block, $23 sxy.
                        "5:",
                        "lw $2, 0($19)",
                        "lw $3, 4($19)",
                        "addiu $19, $19, 8",
                        "srl $16, $2, 16",
                        "andi $17, $3, 0xFFFF",
                        "beqz $17, 6f",
                        "addiu $8, $22, 20",
                        "move $9, $21",
                        bone_light_text!(),
                        "li $2, 0xAAAB",
                        "multu $17, $2",
                        "sll $2, $16, 3",
                        "lw $3, 0($22)",
                        "lw $4, 4($22)",
                        "addu $9, $3, $2",
                        "sll $2, $16, 2",
                        "lw $5, 8($22)",
                        "lw $6, 12($22)",
                        "addu $10, $23, $2",
                        "addu $16, $10, $4",
                        "addu $11, $10, $5",
                        "mflo $12",
                        "srl $12, $12, 17",
                        "sll $2, $12, 1",
                        "addu $2, $2, $12",
                        "subu $2, $17, $2",
                        "addu $17, $10, $6",
                        "sll $18, $2, 3",
                        "addiu $18, $18, -24",
                        rtpt_nct_text!($single, $in_rtpt, $in_light),
                        "6:",
                        "addiu $20, $20, -1",
                        "bnez $20, 5b",
                        "addiu $21, $21, 32",
                        ".set pop",
                        rt0_10 = const ctc2_from(10, ctrl::RT11RT12),
                        rt1_11 = const ctc2_from(11, ctrl::RT13RT21),
                        rt2_12 = const ctc2_from(12, ctrl::RT22RT23),
                        rt3_13 = const ctc2_from(13, ctrl::RT31RT32),
                        rt4_14 = const ctc2_from(14, ctrl::RT33),
                        rt0_2 = const ctc2_from(2, ctrl::RT11RT12),
                        rt1_3 = const ctc2_from(3, ctrl::RT13RT21),
                        rt2_4 = const ctc2_from(4, ctrl::RT22RT23),
                        rt3_5 = const ctc2_from(5, ctrl::RT31RT32),
                        rt4_6 = const ctc2_from(6, ctrl::RT33),
                        v0_7 = const mtc2_from(7, data::VXY0),
                        z0_5 = const mtc2_from(5, data::VZ0),
                        v1_24 = const mtc2_from(24, data::VXY1),
                        z1_15 = const mtc2_from(15, data::VZ1),
                        v2_25 = const mtc2_from(25, data::VXY2),
                        z2_6 = const mtc2_from(6, data::VZ2),
                        mv0 = const cop2(MVMVA_RT_V0),
                        mv1 = const cop2(MVMVA_RT_V1),
                        mv2 = const cop2(MVMVA_RT_V2),
                        ir1_10 = const mfc2_to(10, data::IR1),
                        ir2_11 = const mfc2_to(11, data::IR2),
                        ir3_12 = const mfc2_to(12, data::IR3),
                        ir1_13 = const mfc2_to(13, data::IR1),
                        ir2_14 = const mfc2_to(14, data::IR2),
                        ir3_15 = const mfc2_to(15, data::IR3),
                        ir1_8 = const mfc2_to(8, data::IR1),
                        ir2_24 = const mfc2_to(24, data::IR2),
                        ir3_25 = const mfc2_to(25, data::IR3),
                        l0_10 = const ctc2_from(10, ctrl::L11L12),
                        l1_11 = const ctc2_from(11, ctrl::L13L21),
                        l2_14 = const ctc2_from(14, ctrl::L22L23),
                        l3_12 = const ctc2_from(12, ctrl::L31L32),
                        l4_25 = const ctc2_from(25, ctrl::L33),
                        trx_7 = const ctc2_from(7, ctrl::TRX),
                        try_18 = const ctc2_from(18, ctrl::TRY),
                        trz_9 = const ctc2_from(9, ctrl::TRZ),
                        m0 = const mtc2_from(13, data::VXY0),
                        m1 = const mtc2_from(14, data::VZ0),
                        m2 = const mtc2_from(15, data::VXY1),
                        m3 = const mtc2_from(24, data::VZ1),
                        m4 = const mtc2_from(25, data::VXY2),
                        m5 = const mtc2_from(3, data::VZ2),
                        n0 = const mtc2_from(2, data::VXY0),
                        n1 = const mtc2_from(4, data::VZ0),
                        n2 = const mtc2_from(5, data::VXY1),
                        n3 = const mtc2_from(6, data::VZ1),
                        n4 = const mtc2_from(7, data::VXY2),
                        n5 = const mtc2_from(8, data::VZ2),
                        rtpt = const cop2(cmd::RTPT),
                        nct = const cop2($light),
                        v0_25 = const mtc2_from(25, data::VXY0),
                        z0_3 = const mtc2_from(3, data::VZ0),
                        n0_5 = const mtc2_from(5, data::VXY0),
                        nz0_4 = const mtc2_from(4, data::VZ0),
                        rtps = const cop2(cmd::RTPS),
                        ncs = const cop2(cmd::NCS),
                        one_xy = const swc2(10, data::SXY2, 0),
                        one_z = const swc2(11, data::SZ3, 0),
                        one_c = const swc2(17, data::RGB2, 0),
                        s0 = const swc2(10, data::SXY0, -12),
                        s1 = const swc2(10, data::SXY1, -8),
                        s2 = const swc2(10, data::SXY2, -4),
                        s3 = const swc2(11, data::SZ1, -12),
                        s4 = const swc2(11, data::SZ2, -8),
                        s5 = const swc2(11, data::SZ3, -4),
                        c0 = const swc2(17, data::RGB0, -12),
                        c1 = const swc2(17, data::RGB1, -8),
                        c2 = const swc2(17, data::RGB2, -4),
                        inout("$19") job.bones.as_ptr() => _,
                        inout("$20") n => _,
                        inout("$21") job.matrices.as_ptr() => _,
                        in("$22") block,
                        in("$23") base,
                    );
                }
            };
        }
        // One vertex left ends with RTPS and NCS where there is no fog (the fogged loop's last three
        // again keep the depth cue of the definition's).
        if job.fog {
            lit_block!(cmd::NCDT, "# {v0_25} {z0_3} {rtps} {one_xy} {one_z} {n0_5} {nz0_4} {ncs} {one_c}\n", "", "lw $13, 0($9)\n")
        } else {
            lit_block!(cmd::NCT, single_vertex_text!(), "lw $13, 0($9)\n", "")
        }
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

    /// Eight loads (the rotation's words are RT's words as they lie in a `Matrix`), each value
    /// written to the GTE and stored to `copy`.
    #[inline(always)]
    fn load_matrix_copying(&mut self, m: &Matrix, copy: &mut Matrix) {
        use super::regs::ctrl;
        // SAFETY: reads the 32 bytes of `m` (`repr(C)`: rotation words at 0..16, RT33 at 16,
        // translation at 20, 24, 28) and writes the same offsets of `copy`; no loaded register is
        // used by the instruction after its load.
        unsafe {
            asm_clobbering!(
                ["$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15"],
                ".set push",
                ".set noreorder",
                "lw $8, 0($4)",
                "lw $9, 4($4)",
                "lw $10, 8($4)",
                ".word {rt0}",
                "sw $8, 0($5)",
                "lw $11, 12($4)",
                ".word {rt1}",
                "sw $9, 4($5)",
                "lh $12, 16($4)",
                ".word {rt2}",
                "sw $10, 8($5)",
                "lw $13, 20($4)",
                ".word {rt3}",
                "sw $11, 12($5)",
                "lw $14, 24($4)",
                ".word {rt4}",
                "sw $12, 16($5)",
                "lw $15, 28($4)",
                ".word {trx}",
                "sw $13, 20($5)",
                ".word {try_}",
                "sw $14, 24($5)",
                ".word {trz}",
                "sw $15, 28($5)",
                ".set pop",
                rt0 = const ctc2_from(8, ctrl::RT11RT12),
                rt1 = const ctc2_from(9, ctrl::RT13RT21),
                rt2 = const ctc2_from(10, ctrl::RT22RT23),
                rt3 = const ctc2_from(11, ctrl::RT31RT32),
                rt4 = const ctc2_from(12, ctrl::RT33),
                trx = const ctc2_from(13, ctrl::TRX),
                try_ = const ctc2_from(14, ctrl::TRY),
                trz = const ctc2_from(15, ctrl::TRZ),
                in("$4") m as *const Matrix,
                in("$5") copy as *mut Matrix,
            );
        }
    }

    /// [`blend`]'s asm loop over every group.
    #[inline(always)]
    unsafe fn project_blend_groups(&mut self, job: &super::blend::BlendGroups, sxy: &mut [u32], sz: &mut [u32]) {
        // SAFETY: the caller's contract.
        unsafe { blend::project_blend_groups(job, sxy, sz) }
    }

    /// One of [`packet_loop`]'s two asm loops, with or without the near and span tests.
    unsafe fn flat_packets(&mut self, job: &FlatPrimitives, out: &mut PacketList) -> FlatPackets {
        // SAFETY (both): the caller's contract.
        if job.clip_tests {
            return unsafe { packet_loop::flat_packets_tested(job, out) };
        }
        unsafe { packet_loop::flat_packets_untested(job, out) }
    }

    /// One of [`surface_loop`]'s two asm loops, textured or textured and lit.
    unsafe fn surface_runs(&mut self, job: &SurfaceRuns, at: usize, out: &mut PacketList, done: &mut FlatPackets) -> usize {
        // SAFETY (both): the caller's contract.
        match job.rgb {
            Some(_) => unsafe { surface_loop::textured_lit_runs(job, at, out, done) },
            None => unsafe { surface_loop::textured_runs(job, at, out, done) },
        }
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

    #[inline(always)]
    fn compose_unit_sample(&mut self, parent: &Matrix, sample: &BoneSample, out: &mut Matrix) -> bool {
        pose::compose_unit_sample(parent, sample, out)
    }

    #[inline(always)]
    fn compose_q14(&mut self, parent: &Matrix, pose: &PoseQ14, out: &mut Matrix) {
        pose::compose_q14(parent, pose, out)
    }

    #[inline(always)]
    fn compose_q14_chain(&mut self, steps: crate::tables::ParentSteps, poses: &[PoseQ14], object: &Matrix, out: &mut [Matrix]) {
        pose::compose_q14_chain(steps.steps(), poses, object, out)
    }

    #[inline(always)]
    fn compose_columns(&mut self, parent: &Matrix, load: bool, words: &[u32; 5], t_xy: u32, t_z: u32, out: &mut Matrix) {
        columns::compose_columns(parent, load, words, t_xy, t_z, out)
    }

    fn compose_columns_run(&mut self, words: &[[u32; 5]], translations: &[[u32; 2]], parents: &[u8], start: usize, loaded: &mut u8, out: &mut [Matrix]) -> usize {
        columns::compose_columns_run(words, translations, parents, start, loaded, out)
    }

    #[inline(always)]
    fn nlerp_rotation(&mut self, a: [u32; 2], b: [u32; 2], t: i32, matrix: &mut [u32; 5]) -> Option<[u32; 2]> {
        nlerp::nlerp_rotation(a, b, t, matrix)
    }

    #[inline(always)]
    fn nlerp_q14(&mut self, a: [u32; 2], b: [u32; 2], t: i32) -> Option<[u32; 2]> {
        nlerp::nlerp_q14(a, b, t)
    }

    fn nlerp_q14_dense(&mut self, words: &[u32], from: usize, n: usize, keys_at: usize, frame: usize, t: i32, poses: &mut [PoseQ14]) -> usize {
        nlerp::nlerp_q14_dense(words, from, n, keys_at, frame, t, poses)
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
