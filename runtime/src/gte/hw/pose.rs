//! The rigid pose's inner step on the console: `Cop2::compose_unit_sample` and `Cop2::compose_q14`
//! (`gte::backend` holds their definitions), hand-scheduled so that the CPU's work (loads, range
//! checks, rounding, stores) runs while GPF, SQR and MVMVA do; a GTE access waits for a running
//! command.
//!
//! Registers, both functions: $4 the input, $5 the parent, $6 the output matrix; $11-$13 x, y, z
//! (Q14; in `compose_q14` $11 and $13 hold `x | y << 16` and `z | w << 16`, whose low halves are
//! x and z to an IR write); $15, $24, $25 the translation (in `compose_q14` $15 holds `tx | ty << 16`
//! and $25 `tz`); $16-$23 the products wx, wy, wz, xx, yy, zz, xy, xz and $10 yz; $14 0x4000 and $3
//! the first entry when `columns!` starts.

use super::{asm_clobbering, cop2, ctc2_from, mfc2_to, mtc2_from, swc2};
use crate::gte::regs::{ctrl, data};
use crate::gte::{GPF_SF0, MVMVA_RT_IR, MVMVA_RT_IR_TR, SQR_SF0};
use crate::math::Matrix;
use crate::gte::PoseQ14;
use crate::tables::BoneSample;

/// Byte offsets of a `BoneSample`'s fields (not `repr(C)`: taken from the compiler).
const SAMPLE_ROTATION: usize = core::mem::offset_of!(BoneSample, rotation);
const SAMPLE_TRANSLATION: usize = core::mem::offset_of!(BoneSample, translation);
const SAMPLE_SCALE: usize = core::mem::offset_of!(BoneSample, scale);

/// The entries' rounding and the compose, once the products are in $16-$23 and $10, RT and TR hold
/// the parent, $14 = 0x4000 and column 0 is in $3, $7, $9 (`column0!`, or scheduled into the
/// products): each column goes to IR1..3 for MVMVA (RT * IR),
/// the next column's entries are rounded while it runs, and the composed columns are stored by `sh`
/// while the last column and the translation (MVMVA with TR, stored by `swc2`) run. `Matrix` is `repr(C)`:
/// rotation `[i16; 9]` row by row at 0, translation at 20, 24, 28.
/// Column 0 of the local rotation into $3, $7, $9 from the products ($14 = 0x4000):
/// 4096 + ((2^14 - (yy + zz)) >> 15), (xy + wz + 2^14) >> 15, (xz - wy + 2^14) >> 15.
macro_rules! column0 {
    () => {
        concat!(
            "addu $3, $20, $21\n",
            "subu $3, $14, $3\n",
            "sra $3, $3, 15\n",
            "addiu $3, $3, 4096\n",
            "addu $7, $22, $18\n",
            "addiu $7, $7, 0x4000\n",
            "sra $7, $7, 15\n",
            "subu $9, $23, $17\n",
            "addiu $9, $9, 0x4000\n",
            "sra $9, $9, 15\n",
        )
    };
}

/// The parent matrix at `$p` into RT and TR (through $3, $7, $9): every loaded register read two
/// instructions later at the earliest.
macro_rules! parent_rt_tr {
    ($p:literal) => {
        concat!(
            "lw $3, 0(", $p, ")\n",
            "lw $7, 4(", $p, ")\n",
            "lw $9, 8(", $p, ")\n",
            ".word {rt0}\n",
            "lw $3, 12(", $p, ")\n",
            ".word {rt1}\n",
            "lh $7, 16(", $p, ")\n",
            ".word {rt2}\n",
            "lw $9, 20(", $p, ")\n",
            ".word {rt3}\n",
            "lw $3, 24(", $p, ")\n",
            ".word {rt4}\n",
            "lw $7, 28(", $p, ")\n",
            ".word {trx}\n",
            ".word {try_}\n",
            ".word {trz}\n",
        )
    };
}

macro_rules! columns {
    () => {
        columns!("", "", "")
    };
    // `$copy01` runs while column 2 composes (columns 0 and 1 in $11-$13 and $16-$18, $19-$23 free),
    // `$copy2` while the translation does (column 2 in $11-$13), `$copy_t` after its stores.
    ($copy01:expr, $copy2:expr, $copy_t:expr) => {
        concat!(
            ".word {a_ir1}\n",
            ".word {b_ir2}\n",
            ".word {c_ir3}\n",
            // Column 1 while column 0 is composed: xy - wz, 4096 + ((2^14 - (xx + zz)) >> 15), yz + wx.
            "subu $3, $22, $18\n",
            "addiu $3, $3, 0x4000\n",
            ".word {mvmva}\n",
            "sra $3, $3, 15\n",
            "addu $7, $19, $21\n",
            "subu $7, $14, $7\n",
            "sra $7, $7, 15\n",
            "addiu $7, $7, 4096\n",
            "addu $9, $10, $16\n",
            "addiu $9, $9, 0x4000\n",
            "sra $9, $9, 15\n",
            ".word {ir1}\n",
            ".word {ir2}\n",
            ".word {ir3}\n",
            ".word {a_ir1}\n",
            ".word {b_ir2}\n",
            ".word {c_ir3}\n",
            // Column 2 while column 1 is composed: xz + wy, yz - wx, 4096 + ((2^14 - (xx + yy)) >> 15);
            // then the products are spent and column 1's result goes to $16-$18.
            "addu $3, $23, $17\n",
            "addiu $3, $3, 0x4000\n",
            ".word {mvmva}\n",
            "sra $3, $3, 15\n",
            "subu $7, $10, $16\n",
            "addiu $7, $7, 0x4000\n",
            "sra $7, $7, 15\n",
            "addu $9, $19, $20\n",
            "subu $9, $14, $9\n",
            "sra $9, $9, 15\n",
            "addiu $9, $9, 4096\n",
            ".word {ir1_b}\n",
            ".word {ir2_b}\n",
            ".word {ir3_b}\n",
            ".word {a_ir1}\n",
            ".word {b_ir2}\n",
            ".word {c_ir3}\n",
            // Columns 0 and 1 are stored while column 2 is composed, column 2 while the translation is.
            "sh $11, 0($6)\n",
            "sh $12, 6($6)\n",
            ".word {mvmva}\n",
            "sh $13, 12($6)\n",
            "sh $16, 2($6)\n",
            "sh $17, 8($6)\n",
            "sh $18, 14($6)\n",
            $copy01,
            ".word {ir1}\n",
            ".word {ir2}\n",
            ".word {ir3}\n",
            ".word {tx_ir1}\n",
            ".word {ty_ir2}\n",
            ".word {tz_ir3}\n",
            "sh $11, 4($6)\n",
            "sh $12, 10($6)\n",
            ".word {mvmva_tr}\n",
            "sh $13, 16($6)\n",
            $copy2,
            ".word {st_mac1}\n",
            ".word {st_mac2}\n",
            ".word {st_mac3}\n",
            $copy_t,
        )
    };
}

/// `compose_q14`'s pose into registers, once x | y << 16 and z | w << 16 are in $11 and $13: the
/// translation words into $15 and $25, y, w and ty split off into $12, $14 and $24, and w, x, y, z
/// into IR0..IR3 for the first GPF (two instructions after the last `mtc2`).
macro_rules! q14_in {
    () => {
        concat!(
            "lw $15, 8($4)\n",
            "lw $25, 12($4)\n",
            "sra $12, $11, 16\n",
            "sra $14, $13, 16\n",
            ".word {w_ir0}\n",
            ".word {x_ir1}\n",
            ".word {y_ir2}\n",
            ".word {z_ir3}\n",
            "sra $24, $15, 16\n",
        )
    };
}

/// `compose_q14`'s last products, once SQR has run: xx, yy, zz read and x, y, z into IR0..IR2 for
/// the GPF giving xy and xz, then y, z into IR0, IR1 for the one giving yz; column 0 (`column0!`)
/// while the last two GPF run, with $14 = 0x4000.
macro_rules! q14_products_last {
    () => {
        concat!(
            ".word {xx}\n",
            ".word {yy}\n",
            ".word {zz}\n",
            ".word {x_ir0}\n",
            ".word {y_ir1}\n",
            ".word {z_ir2}\n",
            "ori $14, $0, 0x4000\n",
            "addu $3, $20, $21\n",
            ".word {gpf}\n",
            "subu $3, $14, $3\n",
            "sra $3, $3, 15\n",
            "addiu $3, $3, 4096\n",
            ".word {xy}\n",
            ".word {xz}\n",
            ".word {y_ir0}\n",
            ".word {z_ir1}\n",
            "addu $7, $22, $18\n",
            "subu $9, $23, $17\n",
            ".word {gpf}\n",
            "addiu $7, $7, 0x4000\n",
            "addiu $9, $9, 0x4000\n",
            "sra $7, $7, 15\n",
            "sra $9, $9, 15\n",
            ".word {yz}\n",
        )
    };
}

/// A compose's `asm!`: the caller's template and operands, then the GTE words of the register map
/// above (the names the products, `parent_rt_tr!` and `columns!` use) and the clobbers $3, $7 and
/// $9-$25.
macro_rules! compose_asm {
    ($($body:tt)*) => {
        asm_clobbering!(
            [
                "$3", "$7", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$16", "$17", "$18", "$19",
                "$20", "$21", "$22", "$23", "$24", "$25",
            ],
            $($body)*
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
            ir1_b = const mfc2_to(16, data::IR1),
            ir2_b = const mfc2_to(17, data::IR2),
            ir3_b = const mfc2_to(18, data::IR3),
            mvmva = const cop2(MVMVA_RT_IR),
            mvmva_tr = const cop2(MVMVA_RT_IR_TR),
            st_mac1 = const swc2(6, data::MAC1, 20),
            st_mac2 = const swc2(6, data::MAC2, 24),
            st_mac3 = const swc2(6, data::MAC3, 28),
        )
    };
}

/// `Cop2::compose_unit_sample`: the products first (the sample's range, scale and translation tests
/// run while GPF and SQR do), then the test; a sample outside the common case leaves with nothing
/// stored (the general path then rewrites every register it reads). Then the parent into RT and TR
/// and `columns!`. $7 collects out-of-range bits, $8 holds 0x8000, $2 the result.
#[inline(always)]
pub(super) fn compose_unit_sample(parent: &Matrix, sample: &BoneSample, out: &mut Matrix) -> bool {
    let done: u32;
    // SAFETY: reads the sample's fields (at their compiler-given offsets) and the parent matrix (its
    // rotation's first 18 bytes as words and a half-word, its translation), writes the output
    // matrix's rotation and translation (not its padding). Two instructions separate each mtc2/ctc2
    // from the next command; no loaded register is read by the next instruction.
    unsafe {
        compose_asm!(
            ".set push",
            ".set noreorder",
            "lw $11, {r0}($4)",
            "lw $12, {r1}($4)",
            "lw $13, {r2}($4)",
            "lw $14, {r3}($4)",
            // round_shift(c, 16) = ((c >> 1) + 2^14) >> 15.
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
            // round_shift(v, 8) = ((v >> 1) + 2^6) >> 7.
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
            parent_rt_tr!("$5"),
            "ori $14, $0, 0x4000",
            column0!(),
            columns!(),
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
            in("$4") sample as *const BoneSample,
            in("$5") parent as *const Matrix,
            in("$6") out as *mut Matrix,
            out("$2") done,
            out("$8") _,
        );
    }
    done != 0
}

/// `Cop2::compose_q14`: no tests and no rounding (the pose is in the GTE's units already); the
/// parent's loads into RT and TR run while GPF and SQR do, then `columns!`.
#[inline(always)]
pub(super) fn compose_q14(parent: &Matrix, pose: &PoseQ14, out: &mut Matrix) {
    // SAFETY: reads the pose (16 bytes, `repr(C)`, 4-aligned: rotation x y z w, translation x y z and
    // a pad half-word, as four words) and the parent matrix, writes the output matrix's rotation and
    // translation, as in `compose_unit_sample`. Two instructions separate each mtc2/ctc2 from the
    // next command; no loaded register is read by the next instruction.
    unsafe {
        compose_asm!(
            ".set push",
            ".set noreorder",
            "lw $11, 0($4)",
            "lw $13, 4($4)",
            q14_in!(),
            "lw $3, 0($5)",
            ".word {gpf}",
            "lw $7, 4($5)",
            "lw $9, 8($5)",
            ".word {rt0}",
            "lw $3, 12($5)",
            ".word {rt1}",
            ".word {rt2}",
            "lh $7, 16($5)",
            ".word {rt3}",
            ".word {wx}",
            ".word {wy}",
            ".word {wz}",
            ".word {rt4}",
            ".word {x_ir1}",
            ".word {y_ir2}",
            ".word {z_ir3}",
            "lw $9, 20($5)",
            "lw $3, 24($5)",
            ".word {sqr}",
            "lw $7, 28($5)",
            ".word {trx}",
            ".word {try_}",
            ".word {trz}",
            q14_products_last!(),
            columns!(),
            ".set pop",
            in("$4") pose as *const PoseQ14,
            in("$5") parent as *const Matrix,
            in("$6") out as *mut Matrix,
        );
    }
}

/// Where `compose_q14_chain` keeps a copy of each matrix it composes, for the bones after it whose
/// parent it is: 16 slots of 32 bytes in the scratchpad (a load there takes one cycle, from main RAM
/// about six), slot `(address of the output matrix >> 5) % 16`, so that any of the previous 15 bones'
/// is found there. Nothing else uses the scratchpad while a pose is composed (the renderer's stages
/// that do run after it).
const PARENT_RING: usize = 0x1F80_0000;
const PARENT_RING_BYTES: usize = 512;

/// `Cop2::compose_q14_chain`: `compose_q14` bone after bone in one loop, the parent loaded into RT
/// and TR only when it is not the previous bone's (siblings share it), from its copy in the
/// scratchpad ([`PARENT_RING`]) when it is at most 15 bones back. Where `poses`, `object` or `out`
/// lie in that part of the scratchpad, `compose_q14` bone by bone instead (the same matrices).
///
/// Registers (beyond `compose_q14`'s map, which the body keeps: $4 the pose, $6 the output): $2 the
/// output's end, $8 the next parent step (`tables::Tables::parent_steps`), $5 the object matrix,
/// $10 the parent while it loads (then `yz`), $19 the output's copy while the columns are stored.
pub(super) fn compose_q14_chain(steps: &[u8], poses: &[PoseQ14], object: &Matrix, out: &mut [Matrix]) {
    let n = steps.len().min(poses.len()).min(out.len());
    let out = &mut out[..n];
    let ring = PARENT_RING..PARENT_RING + PARENT_RING_BYTES;
    let overlaps = |r: core::ops::Range<usize>| r.start < ring.end && ring.start < r.end;
    let range = out.as_mut_ptr_range();
    if overlaps(range.start as usize..range.end as usize)
        || overlaps(poses.as_ptr_range().start as usize..poses.as_ptr_range().end as usize)
        || overlaps(object as *const Matrix as usize..object as *const Matrix as usize + core::mem::size_of::<Matrix>())
    {
        return compose_q14_each(steps, poses, object, out);
    }
    // SAFETY: reads `n` steps and poses, the object and the matrices already written or their copies
    // (each step, from `ParentSteps`, names an earlier bone, the object, or for a bone after the first
    // the previous bone's parent, whose RT and TR are loaded; a copy at most 15 bones back is still in
    // its slot); writes the `n` output matrices' rotation and translation, and their copies in the
    // scratchpad's first 512 bytes, which no Rust object covers and the inputs were checked not to
    // lie in. Two instructions separate each mtc2/ctc2 from the next command; no loaded register is
    // read by the next instruction.
    unsafe {
        compose_asm!(
            ".set push",
            ".set noreorder",
            "0:",
            "beq $6, $2, 9f",
            "nop",
            "lbu $10, 0($8)",
            "addiu $8, $8, 1",
            "lw $11, 0($4)",
            "lw $13, 4($4)",
            // Step 0: the previous bone's parent, in RT and TR already; 255: the object; 1..=15: the
            // matrix that many bones back, from its copy; else from the output.
            "beqz $10, 5f",
            "xori $3, $10, 0xFF",
            "bnez $3, 2f",
            "sltiu $3, $10, 16",
            "b 4f",
            "move $10, $5",
            "2:",
            "sll $10, $10, 5",
            "beqz $3, 4f",
            "subu $10, $6, $10",
            "andi $7, $10, 0x1E0",
            "lui $10, {ring_hi}",
            "or $10, $10, $7",
            "4:",
            parent_rt_tr!("$10"),
            // `compose_q14` from its products on.
            "5:",
            q14_in!(),
            "nop",
            ".word {gpf}",
            ".word {wx}",
            ".word {wy}",
            ".word {wz}",
            ".word {x_ir1}",
            ".word {y_ir2}",
            ".word {z_ir3}",
            "nop",
            "nop",
            ".word {sqr}",
            q14_products_last!(),
            columns!(
                concat!(
                    "andi $19, $6, 0x1E0\n",
                    "lui $20, {ring_hi}\n",
                    "or $19, $19, $20\n",
                    "sh $11, 0($19)\n",
                    "sh $12, 6($19)\n",
                    "sh $13, 12($19)\n",
                    "sh $16, 2($19)\n",
                    "sh $17, 8($19)\n",
                    "sh $18, 14($19)\n",
                ),
                "sh $11, 4($19)\nsh $12, 10($19)\nsh $13, 16($19)\n",
                ".word {copy_mac1}\n.word {copy_mac2}\n.word {copy_mac3}\n"
            ),
            "addiu $4, $4, 16",
            "b 0b",
            "addiu $6, $6, 32",
            "9:",
            ".set pop",
            inout("$4") poses.as_ptr() => _,
            in("$5") object as *const Matrix,
            inout("$6") range.start => _,
            in("$2") range.end,
            inout("$8") steps.as_ptr() => _,
            ring_hi = const PARENT_RING >> 16,
            copy_mac1 = const swc2(19, data::MAC1, 20),
            copy_mac2 = const swc2(19, data::MAC2, 24),
            copy_mac3 = const swc2(19, data::MAC3, 28),
        );
    }
}

/// [`compose_q14_chain`] bone by bone (`compose_q14` with each step's parent), for inputs in the
/// scratchpad's parent copies (out of line: the chain's loop stays small).
#[cold]
#[inline(never)]
fn compose_q14_each(steps: &[u8], poses: &[PoseQ14], object: &Matrix, out: &mut [Matrix]) {
    let mut parent: Option<usize> = None;
    for (i, (&step, pose)) in steps.iter().zip(poses).enumerate().take(out.len()) {
        parent = match step {
            crate::tables::STEP_SAME_PARENT => parent,
            crate::tables::STEP_ROOT => None,
            s => i.checked_sub(s as usize),
        };
        let (done, rest) = out.split_at_mut(i);
        let p = parent.and_then(|p| done.get(p)).map_or(*object, |m| *m);
        compose_q14(&p, pose, &mut rest[0]);
    }
}
