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

use super::backend::{
    flat_packets_registers, Cop2, FlatPackets, FlatTriangles, PacketList, ScreenTriangle, FLAT_PACKET_WORDS, GP0_FLAT_QUAD,
    GP0_FLAT_TRIANGLE, MAX_SPAN_X, MAX_SPAN_Y, QUAD_PACKET_WORDS,
};
use super::regs::{cmd, data};
use super::{PackedMatrix, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::Matrix;

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

    /// One loop: two word loads, the indices scaled to byte offsets, three lwc2, NCLIP, and the MAC0
    /// sign test (a quad's flag, bit 24 of the second word, moves the pointer 8 bytes further); the
    /// first front face leaves the loop with its SXY0..2 loaded.
    #[inline(always)]
    unsafe fn skip_back_faces(&mut self, triangles: &[u32], sxy: &[u32]) -> usize {
        let start = triangles.as_ptr();
        // SAFETY: `end` is one past the last whole triangle of the slice.
        let end = unsafe { start.add(triangles.len() & !1) };
        let at: *const u32;
        // SAFETY: reads only whole triangles of `triangles` (the loop tests the end before loading)
        // and, by the caller's contract, words of `sxy`. Hazards: no loaded register is used by the
        // next instruction, two instructions separate the last lwc2 from NCLIP, and the mfc2 waits
        // for NCLIP (interlocked).
        unsafe {
            asm!(
                ".set push",
                ".set noreorder",
                "1:",
                "beq $9, $10, 2f",
                "nop",
                "lw $12, 0($9)",
                "lw $13, 4($9)",
                "andi $14, $12, 0xFFFF",
                "srl $12, $12, 16",
                "sll $14, $14, 2",
                "srl $15, $13, 21",
                "sll $12, $12, 2",
                "andi $13, $13, 0xFFFF",
                "andi $15, $15, 8",
                "sll $13, $13, 2",
                "addu $14, $14, $11",
                "addu $12, $12, $11",
                "addu $13, $13, $11",
                ".word {l0}",
                ".word {l1}",
                ".word {l2}",
                "addiu $9, $9, 8",
                "addu $9, $9, $15",
                ".word {nclip}",
                ".word {mac0}",
                "nop",
                "bgez $8, 1b",
                "nop",
                "addiu $9, $9, -8",
                "subu $9, $9, $15",
                "2:",
                ".set pop",
                l0 = const lwc2(14, data::SXY0, 0),
                l1 = const lwc2(12, data::SXY1, 0),
                l2 = const lwc2(13, data::SXY2, 0),
                nclip = const cop2(cmd::NCLIP),
                mac0 = const mfc2(data::MAC0),
                inout("$9") start => at,
                in("$10") end,
                in("$11") sxy.as_ptr(),
                out("$8") _,
                out("$12") _,
                out("$13") _,
                out("$14") _,
                out("$15") _,
                options(nostack, readonly),
            );
        }
        // SAFETY: `at` lies between `start` and `end`, in the same slice.
        (unsafe { at.offset_from(start) } as usize) / 2
    }

    /// One loop over the triangles ([`flat_packets_tested`], or [`flat_packets_untested`] when
    /// `job.clip_tests` is false), the material words first copied to the scratchpad as GP0 words;
    /// with the tests on a table that holds quads, the register-level definition.
    unsafe fn flat_packets(&mut self, job: &FlatTriangles, out: &mut PacketList) -> FlatPackets {
        let Some(max_depth) = out.table.len().checked_sub(1).map(|last| last.min(out.max_depth as usize)) else {
            return FlatPackets::default();
        };
        // SAFETY (all three): the caller's contract; `max_depth` is below the table's length.
        if job.clip_tests && job.quads {
            // The near and span tests on quads: the register-level definition (no asm loop yet).
            return unsafe { flat_packets_registers(self, job, out) };
        }
        load_materials(job.materials);
        unsafe {
            if job.clip_tests {
                flat_packets_tested(job, out, max_depth)
            } else {
                flat_packets_untested(job, out, max_depth)
            }
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

/// The scratchpad (1 KiB of 1-cycle RAM at 0x1F800000): [`flat_packets_untested`] keeps the GP0 word
/// of every material there (256 words: a material index is a byte).
const SCRATCHPAD: usize = 0x1F80_0000;

/// Writes the GP0 word (flat triangle command, colour) of every material, at most 256, to the
/// scratchpad, where the triangle loops read them.
fn load_materials(materials: &[u32]) {
    let pad = SCRATCHPAD as *mut u32;
    for (i, m) in materials.iter().take(256).enumerate() {
        // SAFETY: `i` < 256 words: inside the scratchpad, which nothing else uses across a triangle loop.
        unsafe { pad.add(i).write_volatile(GP0_FLAT_TRIANGLE | (m & 0x00FF_FFFF)) };
    }
}

/// `Cop2::flat_packets` without the near and span tests (`job.clip_tests` false), triangles and
/// quads: the loop of [`flat_packets_tested`] with a shorter front face, SXY0..2 stored into the
/// packet straight from the GTE (`swc2`), no GPR copies of SZ and SXY. A triangle whose flags open a
/// quad moves the table pointer past the quad's second triangle before the next one is loaded; its
/// front face reads the fourth vertex from that second triangle, runs AVSZ4 and writes a 6-word
/// four-point packet (points b, c, a, d).
///
/// # Safety
/// As `Cop2::flat_packets`; `max_depth` is below `out.table.len()`.
unsafe fn flat_packets_untested(job: &FlatTriangles, out: &mut PacketList, max_depth: usize) -> FlatPackets {
    let start = job.triangles.as_ptr();
    // SAFETY: one past the last whole triangle of the slice.
    let end = unsafe { start.add(job.triangles.len() & !1) };
    let room = out.arena.len();
    let sz_offset = (job.sz.as_ptr() as usize).wrapping_sub(job.sxy.as_ptr() as usize);
    let (room_left, rejected, drawn): (usize, usize, usize);
    // SAFETY: reads whole triangles of `job.triangles` (the next one only after testing that it
    // exists; a quad's second triangle exists by the caller's contract), by the caller's contract
    // words of `sxy` and `sz`, scratchpad words below 256, entries of `table` up to `max_depth`, and
    // writes packets into `arena` only while `$19` counts enough words left. Hazards: no register
    // loaded by lw/mfc2 is used by the next instruction; two instructions separate each lwc2 from the
    // command that reads it; mfc2 waits for the command (interlocked), and the swc2 of SXY come after
    // the mfc2 of OTZ.
    unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            "lui $23, 0x00FF",
            "ori $23, $23, 0xFFFF",
            "beq $9, $10, 9f",
            "nop",
            "lw $12, 0($9)",
            "lw $13, 4($9)",
            "addiu $9, $9, 8",
            "andi $2, $12, 0xFFFF",
            "b 1f",
            "sll $2, $2, 2",
            // No room left: one rejected triangle, two for a quad ($3 = 8).
            "8:",
            "srl $4, $3, 3",
            "addiu $20, $20, 1",
            "addu $20, $20, $4",
            "sltu $5, $10, $9",
            "beqz $5, 1f",
            "nop",
            "b 9f",
            "nop",
            // A front-facing quad: SZ1 (a) was loaded in the branch's delay slot; the fourth vertex d
            // is the low half of the second triangle's second word, 12 bytes below $9.
            "6:",
            "lw $4, -12($9)",
            "srl $24, $24, 14",
            "andi $24, $24, 0x3FC",
            "addu $24, $24, $16",
            ".word {l_sz2}",
            ".word {l_sz3}",
            "andi $4, $4, 0xFFFF",
            "sll $4, $4, 2",
            "addu $4, $4, $11",
            "lw $25, 0($4)",
            "addu $4, $4, $15",
            "lw $24, 0($24)",
            ".word {l_sz0}",
            "sltiu $5, $19, {quad_words}",
            "lui $8, {quad_cmd_hi}",
            ".word {avsz4}",
            "or $24, $24, $8",
            "bnez $5, 8b",
            ".word {r_otz}",
            ".word {s_b}",
            ".word {s_c}",
            ".word {s_a}",
            "sw $25, 20($18)",
            "lui $25, {quad_len_hi}",
            "b 2f",
            "addiu $4, $0, {quad_bytes}",
            // The last triangle: $9 moves as on the main path, so that it is past the end.
            "4:",
            "addiu $9, $9, 8",
            "nop",
            ".word {nclip}",
            "nop",
            "nop",
            ".word {mac0}",
            "nop",
            "bltz $8, 5f",
            "nop",
            "b 9f",
            "nop",
            // $12, $13: the current triangle's words, $2 its first index times 4; $9: one past it.
            // Each SXY comes by lw (the loads overlap the instructions that follow them, mtc2 later).
            "1:",
            "addu $14, $2, $11",
            "srl $6, $12, 16",
            "lw $4, 0($14)",
            "andi $7, $13, 0xFFFF",
            "sll $6, $6, 2",
            "sll $7, $7, 2",
            "addu $6, $6, $11",
            "srl $3, $13, 21",
            "lw $5, 0($6)",
            "addu $7, $7, $11",
            "andi $3, $3, 8",
            "addu $9, $9, $3",
            ".word {w_sxy0}",
            "move $24, $13",
            "lw $25, 0($7)",
            ".word {w_sxy1}",
            // The SXY addresses become SZ addresses.
            "addu $14, $14, $15",
            "addu $6, $6, $15",
            "addu $7, $7, $15",
            "beq $9, $10, 4b",
            ".word {w_sxy2}",
            "addiu $9, $9, 8",
            "lw $12, -8($9)",
            ".word {nclip}",
            "lw $13, -4($9)",
            "andi $2, $12, 0xFFFF",
            "sll $2, $2, 2",
            ".word {mac0}",
            "nop",
            "bgez $8, 1b",
            "nop",
            // Front face: depth, then the packet.
            "5:",
            "bnez $3, 6b",
            ".word {l_sz1}",
            ".word {l_sz2}",
            ".word {l_sz3}",
            "srl $24, $24, 14",
            "andi $24, $24, 0x3FC",
            ".word {avsz3}",
            "addu $24, $24, $16",
            "lw $24, 0($24)",
            "sltiu $5, $19, {tri_words}",
            "lui $25, {tri_len_hi}",
            "bnez $5, 8b",
            ".word {r_otz}",
            ".word {s_sxy0}",
            ".word {s_sxy1}",
            ".word {s_sxy2}",
            "addiu $4, $0, {tri_bytes}",
            // Both kinds: $8 OTZ, $24 the command word, $25 the header's length bits, $4 the packet's
            // bytes; clamp the depth, link, count.
            "2:",
            "sltu $5, $22, $8",
            "beqz $5, 3f",
            "sll $8, $8, 2",
            "sll $8, $22, 2",
            "3:",
            "addu $8, $8, $21",
            "lw $5, 0($8)",
            "sw $24, 4($18)",
            "and $24, $18, $23",
            "srl $3, $3, 3",
            "addiu $17, $17, 1",
            "addu $17, $17, $3",
            "and $5, $5, $23",
            "or $5, $5, $25",
            "sw $5, 0($18)",
            "sw $24, 0($8)",
            "addu $18, $18, $4",
            "srl $4, $4, 2",
            "subu $19, $19, $4",
            "sltu $5, $10, $9",
            "beqz $5, 1b",
            "nop",
            "9:",
            ".set pop",
            w_sxy0 = const mtc2_from(4, data::SXY0),
            w_sxy1 = const mtc2_from(5, data::SXY1),
            w_sxy2 = const mtc2_from(25, data::SXY2),
            nclip = const cop2(cmd::NCLIP),
            mac0 = const mfc2(data::MAC0),
            l_sz0 = const lwc2(4, data::SZ0, 0),
            l_sz1 = const lwc2(14, data::SZ1, 0),
            l_sz2 = const lwc2(6, data::SZ2, 0),
            l_sz3 = const lwc2(7, data::SZ3, 0),
            avsz3 = const cop2(cmd::AVSZ3),
            avsz4 = const cop2(cmd::AVSZ4),
            r_otz = const mfc2_to(8, data::OTZ),
            s_sxy0 = const swc2(18, data::SXY0, 8),
            s_sxy1 = const swc2(18, data::SXY1, 12),
            s_sxy2 = const swc2(18, data::SXY2, 16),
            s_b = const swc2(18, data::SXY1, 8),
            s_c = const swc2(18, data::SXY2, 12),
            s_a = const swc2(18, data::SXY0, 16),
            tri_words = const FLAT_PACKET_WORDS,
            tri_len_hi = const (FLAT_PACKET_WORDS as u32 - 1) << 8,
            tri_bytes = const 4 * FLAT_PACKET_WORDS,
            quad_words = const QUAD_PACKET_WORDS,
            quad_len_hi = const (QUAD_PACKET_WORDS as u32 - 1) << 8,
            quad_bytes = const 4 * QUAD_PACKET_WORDS,
            quad_cmd_hi = const (GP0_FLAT_QUAD ^ GP0_FLAT_TRIANGLE) >> 16,
            inout("$9") start => _,
            in("$10") end,
            in("$11") job.sxy.as_ptr(),
            in("$15") sz_offset,
            in("$16") SCRATCHPAD,
            inout("$17") 0usize => drawn,
            inout("$18") out.arena.as_mut_ptr() => _,
            inout("$19") room => room_left,
            inout("$20") 0usize => rejected,
            in("$21") out.table.as_mut_ptr(),
            in("$22") max_depth,
            out("$2") _,
            out("$3") _,
            out("$4") _,
            out("$5") _,
            out("$6") _,
            out("$7") _,
            out("$8") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$23") _,
            out("$24") _,
            out("$25") _,
            options(nostack),
        );
    }
    FlatPackets { drawn, rejected, words: room - room_left }
}

/// `Cop2::flat_packets` with the near and span tests. The back-face path: the triangle's words
/// (loaded one iteration ahead, while the previous NCLIP ran) scaled to SXY addresses, three lwc2,
/// NCLIP, and while NCLIP runs the next triangle's words; then the MAC0 sign. Its one end test is
/// the prefetch's, which also moves `$9` past the end for the front face's test. A front face:
/// SZ1..3 by lwc2 and AVSZ3, the GP0 word from the scratchpad ([`load_materials`]), the near and
/// span tests on SZ and SXY read back with mfc2, the packet stored from registers and linked into
/// the table. Branch delay slots are filled by hand (`noreorder`).
///
/// # Safety
/// As `Cop2::flat_packets`; `max_depth` is below `out.table.len()`; the scratchpad holds the
/// materials' GP0 words.
unsafe fn flat_packets_tested(job: &FlatTriangles, out: &mut PacketList, max_depth: usize) -> FlatPackets {
    let start = job.triangles.as_ptr();
    // SAFETY: one past the last whole triangle of the slice.
    let end = unsafe { start.add(job.triangles.len() & !1) };
    let room = out.arena.len() / FLAT_PACKET_WORDS;
    let sz_offset = (job.sz.as_ptr() as usize).wrapping_sub(job.sxy.as_ptr() as usize);
    let (room_left, rejected): (usize, usize);
    // SAFETY: reads whole triangles of `job.triangles` (the next one only after testing that it
    // exists), by the caller's contract words of `sxy` and `sz`, scratchpad words below 256, entries
    // of `table` up to `max_depth`, and writes at most `room` packets into `arena`. Hazards: no
    // register loaded by lw/mfc2 is used by the next instruction; two instructions separate each lwc2
    // from the command that reads it; mfc2 waits for the command (interlocked).
    unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            "lui $23, 0x00FF",
            "ori $23, $23, 0xFFFF",
            "beq $9, $10, 9f",
            "nop",
            "lw $12, 0($9)",
            "lw $13, 4($9)",
            "addiu $9, $9, 8",
            "b 1f",
            "andi $2, $12, 0xFFFF",
            // Rejected (too near, too large, or no room left).
            "8:",
            "addiu $20, $20, 1",
            "sltu $5, $10, $9",
            "beqz $5, 1f",
            "andi $2, $12, 0xFFFF",
            "b 9f",
            "nop",
            // The last triangle ($9 is now past the end).
            "4:",
            ".word {mac0}",
            "addu $7, $7, $15",
            "bltz $8, 5f",
            "nop",
            "b 9f",
            "nop",
            // $12, $13: the current triangle's words ($2 its first index, set in the previous branch's
            // delay slot); $9: one past it.
            "1:",
            "srl $6, $12, 16",
            "andi $7, $13, 0xFFFF",
            "sll $14, $2, 2",
            "sll $6, $6, 2",
            "sll $7, $7, 2",
            "addu $14, $14, $11",
            "addu $6, $6, $11",
            "addu $7, $7, $11",
            ".word {l_sxy0}",
            ".word {l_sxy1}",
            ".word {l_sxy2}",
            // The SXY addresses become SZ addresses once loaded.
            "addu $14, $14, $15",
            "addu $6, $6, $15",
            ".word {nclip}",
            "move $24, $13",
            "beq $9, $10, 4b",
            "addiu $9, $9, 8",
            "lw $12, -8($9)",
            "lw $13, -4($9)",
            ".word {mac0}",
            "addu $7, $7, $15",
            "bgez $8, 1b",
            "andi $2, $12, 0xFFFF",
            // Front face: depth.
            "5:",
            ".word {l_sz1}",
            ".word {l_sz2}",
            ".word {l_sz3}",
            "srl $24, $24, 14",
            "andi $24, $24, 0x3FC",
            ".word {avsz3}",
            "addu $24, $24, $16",
            "lw $24, 0($24)",
            ".word {r_sz1}",
            ".word {r_sz2}",
            ".word {r_sz3}",
            // Near test: a negative `z - near` for any vertex.
            "subu $2, $2, $17",
            "subu $3, $3, $17",
            "subu $4, $4, $17",
            "or $2, $2, $3",
            "or $2, $2, $4",
            "bltz $2, 8b",
            // Span test, first a box of 1024 x 512 pixels around the origin: adding
            // 256 << 16 | 512 to an SXY word leaves its low half below 1024 and its high half
            // below 512 only for a vertex inside (the GTE keeps x in -1024..=1023; a carry from
            // the low half can only make the box one row smaller), so one mask tests all three.
            ".word {r_sxy0}",
            ".word {r_sxy1}",
            ".word {r_sxy2}",
            "lui $8, 0x0100",
            "ori $8, $8, 0x0200",
            "addu $5, $2, $8",
            "addu $6, $3, $8",
            "addu $7, $4, $8",
            "or $5, $5, $6",
            "or $5, $5, $7",
            "lui $8, 0xFE00",
            "ori $8, $8, 0xFC00",
            "and $5, $5, $8",
            "bnez $5, 7f",
            "nop",
            "6:",
            "beqz $19, 8b",
            ".word {r_otz}",
            // The packet: depth entry (the store covers the mfc2's load delay), then the words and
            // the link.
            "sw $24, 4($18)",
            "sltu $5, $22, $8",
            "beqz $5, 3f",
            "sll $8, $8, 2",
            "sll $8, $22, 2",
            "3:",
            "addu $8, $8, $21",
            "lw $5, 0($8)",
            "sw $2, 8($18)",
            "sw $3, 12($18)",
            "sw $4, 16($18)",
            "and $5, $5, $23",
            "lui $25, {len_hi}",
            "or $5, $5, $25",
            "sw $5, 0($18)",
            "and $25, $18, $23",
            "sw $25, 0($8)",
            "addiu $18, $18, {bytes}",
            "addiu $19, $19, -1",
            "sltu $5, $10, $9",
            "beqz $5, 1b",
            "andi $2, $12, 0xFFFF",
            "b 9f",
            "nop",
            // Outside the box: the exact test, every pairwise |d| <= max as (d + max) < 2 * max + 1
            // unsigned.
            "7:",
            "sra $5, $2, 16",
            "sra $6, $3, 16",
            "sra $7, $4, 16",
            "subu $8, $5, $6",
            "addiu $8, $8, {my}",
            "sltiu $8, $8, {my2}",
            "subu $25, $6, $7",
            "addiu $25, $25, {my}",
            "sltiu $25, $25, {my2}",
            "and $8, $8, $25",
            "subu $25, $5, $7",
            "addiu $25, $25, {my}",
            "sltiu $25, $25, {my2}",
            "and $8, $8, $25",
            "sll $5, $2, 16",
            "sra $5, $5, 16",
            "sll $6, $3, 16",
            "sra $6, $6, 16",
            "sll $7, $4, 16",
            "sra $7, $7, 16",
            "subu $25, $5, $6",
            "addiu $25, $25, {mx}",
            "sltiu $25, $25, {mx2}",
            "and $8, $8, $25",
            "subu $25, $6, $7",
            "addiu $25, $25, {mx}",
            "sltiu $25, $25, {mx2}",
            "and $8, $8, $25",
            "subu $25, $5, $7",
            "addiu $25, $25, {mx}",
            "sltiu $25, $25, {mx2}",
            "and $8, $8, $25",
            "bnez $8, 6b",
            "nop",
            "b 8b",
            "nop",
            "9:",
            ".set pop",
            l_sxy0 = const lwc2(14, data::SXY0, 0),
            l_sxy1 = const lwc2(6, data::SXY1, 0),
            l_sxy2 = const lwc2(7, data::SXY2, 0),
            nclip = const cop2(cmd::NCLIP),
            mac0 = const mfc2(data::MAC0),
            l_sz1 = const lwc2(14, data::SZ1, 0),
            l_sz2 = const lwc2(6, data::SZ2, 0),
            l_sz3 = const lwc2(7, data::SZ3, 0),
            avsz3 = const cop2(cmd::AVSZ3),
            r_sz1 = const mfc2_to(2, data::SZ1),
            r_sz2 = const mfc2_to(3, data::SZ2),
            r_sz3 = const mfc2_to(4, data::SZ3),
            r_sxy0 = const mfc2_to(2, data::SXY0),
            r_sxy1 = const mfc2_to(3, data::SXY1),
            r_sxy2 = const mfc2_to(4, data::SXY2),
            r_otz = const mfc2_to(8, data::OTZ),
            my = const MAX_SPAN_Y,
            my2 = const 2 * MAX_SPAN_Y + 1,
            mx = const MAX_SPAN_X,
            mx2 = const 2 * MAX_SPAN_X + 1,
            len_hi = const (FLAT_PACKET_WORDS as u32 - 1) << 8,
            bytes = const 4 * FLAT_PACKET_WORDS,
            inout("$9") start => _,
            in("$10") end,
            in("$11") job.sxy.as_ptr(),
            in("$15") sz_offset,
            in("$16") SCRATCHPAD,
            in("$17") job.near as u32,
            inout("$18") out.arena.as_mut_ptr() => _,
            inout("$19") room => room_left,
            inout("$20") 0usize => rejected,
            in("$21") out.table.as_mut_ptr(),
            in("$22") max_depth,
            out("$2") _,
            out("$3") _,
            out("$4") _,
            out("$5") _,
            out("$6") _,
            out("$7") _,
            out("$8") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$23") _,
            out("$24") _,
            out("$25") _,
            options(nostack),
        );
    }
    let written = room - room_left;
    FlatPackets { drawn: written, rejected, words: FLAT_PACKET_WORDS * written }
}
