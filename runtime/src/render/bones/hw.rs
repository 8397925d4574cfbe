//! [`super::crossfade_q14`] on the console: one asm loop over the bones for the blend's common case,
//! the exact integer steps of [`super::blend_q14`] (hence bit for bit the host's): equal rotations kept,
//! the dot product and the hemisphere's sign, for an arc past 30 degrees the first halving step
//! ([`super::normalize_q14`] of the sum, its root as `sqrt_q30` takes it from the table), the linear
//! blend, [`super::normalize_near_unit_q14`]'s series (no root, no division), the range test, and the
//! translation blended. Any other bone (a second halving step, a value past a register's 16 bits, a
//! length outside the series' window or the table's, a result past the form) stops the loop there
//! for the Rust path to take.
//!
//! The rotation's products run on the GTE, three lanes a command, the fourth component's on the CPU
//! (`mult`) meanwhile: the dot's x, y, z by MVMVA (sf=0, exact: RT's first row is a's x, y, z, V0
//! b's), the blend by GPL (sf=1: `MAC = a + ((IR * IR0) >> 12)` with a in MAC1..3, `b - a` in IR1..3
//! and t in IR0), the squares by SQR of GPL's IR1..3, the scale by GPF (sf=0); the halving's squares
//! by SQR and its `s * r` as `(s << 15) + s * (r - 2^15)` by GPF, its new dot by the CPU (the pose
//! kept may hold 2^15). The translation, which only a moving bone (the root) blends, by the CPU.
//! Overwrites RT, V0, IR0..3, MAC1..3 and the color FIFO.
//!
//! Registers: $4 the outgoing pose (`from`), $5 the incoming one (`to`, blended in place), $6 the
//! end of `to`, $7 the weight w (FP12, 0..=4096); $3 the smallest cosine taken (`NLERP_MIN_COS_Q28`),
//! $24 32,769 (the range test's bound), $2 2^15; per bone $8, $9 `from`'s words and $10, $11 `to`'s
//! (the rotation's, then the translation's), $9 the blend's t (w, or after halving 2w or
//! 2w - 4096) in between, $12-$15 a's x, y, z, w then the blend q, $16-$19 b's, $20 the dot, then
//! the sum of squares n, then e16, then `s - 2^16`; $8, $10, $11, $21-$23, $25 temporaries.
//!
//! HI/LO are not nameable as clobbered (as in `tables::stream::hw`). A `PoseQ14` is `repr(C)`:
//! rotation x y z w as halfwords (words 0, 1), translation x y z and a pad halfword (words 2, 3).

use super::{PoseQ14, NLERP_MIN_COS_Q28};
use crate::gte::hw::{asm_clobbering, cop2, ctc2_from, mfc2_to, mtc2_from};
use crate::gte::regs::{cmd, ctrl, data};
use crate::gte::{GPF_SF0, SQR_SF0};

/// `q_i += ((d_i) * w) >> 12` for `d_i` in `$d`, `q_i` in `$q` (the `mult` already issued for the
/// first: each step reads LO, then issues the next product two instructions later).
macro_rules! lerp_step {
    ($d:literal, $q:literal) => {
        concat!("mflo ", $d, "\n", "sra ", $d, ", ", $d, ", 12\n", "addu ", $q, ", ", $q, ", ", $d, "\n")
    };
}

/// `q_i += ((b_i - a_i) * w) >> 12` for x, y, z (b in $16-$18, a and q in $12-$14, the differences
/// in $21-$23): each `mult` (w first: its cost follows the first operand's size) two instructions
/// after the `mflo` before it.
macro_rules! lerp_xyz {
    () => {
        concat!(
            "subu $21, $16, $12\n",
            "mult $7, $21\n",
            "subu $22, $17, $13\n",
            "subu $23, $18, $14\n",
            "nop\n",
            lerp_step!("$21", "$12"),
            "mult $7, $22\n",
            "nop\n",
            "nop\n",
            lerp_step!("$22", "$13"),
            "mult $7, $23\n",
            "nop\n",
            "nop\n",
            lerp_step!("$23", "$14"),
        )
    };
}

/// The low halfword of `$lo` and the high of `$hi` into `$lo`.
macro_rules! pack {
    ($lo:literal, $hi:literal) => {
        concat!("andi ", $lo, ", ", $lo, ", 0xFFFF\n", "sll ", $hi, ", ", $hi, ", 16\n", "or ", $lo, ", ", $lo, ", ", $hi, "\n")
    };
}

/// `$q += ($m + 2^15) >> 16` ($2 = 2^15): a component times `s` rounded, from its product with
/// `s - 2^16` in `$m`.
macro_rules! scale_step {
    ($m:literal, $q:literal) => {
        concat!("addu ", $m, ", ", $m, ", $2\n", "sra ", $m, ", ", $m, ", 16\n", "addu ", $q, ", ", $q, ", ", $m, "\n")
    };
}

/// `$21 &= (-2^14 <= $q <= 2^14)` ($24 = 2^15 + 1).
macro_rules! and_within_unit {
    ($q:literal) => {
        concat!("addiu $22, ", $q, ", 0x4000\n", "sltu $22, $22, $24\n", "and $21, $21, $22\n")
    };
}

/// `$20 += $a * $b` by the CPU (two instructions after the `mflo` before it).
macro_rules! dot_step {
    ($a:literal, $b:literal) => {
        concat!("nop\n", "mult ", $a, ", ", $b, "\n", "nop\n", "nop\n", "mflo $8\n", "addu $20, $20, $8\n")
    };
}

/// `$r` = the low halfword of `$w`, sign-extended.
macro_rules! unpack_low {
    ($r:literal, $w:literal) => {
        concat!("sll ", $r, ", ", $w, ", 16\n", "sra ", $r, ", ", $r, ", 16\n")
    };
}

/// Blends `to[b]` from `from[b]` toward it by `weight` for the bones from the first on while each is
/// the common case; the number blended (a bone left over is untouched: the caller's Rust path takes it).
pub(super) fn crossfade_q14(from: &[PoseQ14], to: &mut [PoseQ14], weight: u16) -> usize {
    let n = from.len().min(to.len());
    let to = &mut to[..n];
    let range = to.as_mut_ptr_range();
    let stopped: *mut PoseQ14;
    // SAFETY: reads `from` and `to` for bones below `n` (the loop stops at `to`'s end, `from` is as
    // long), writes `to`'s words of those bones, and only once every test of the bone has passed.
    // Hazards: no register loaded by lw, mfc2 is read by the next instruction (nor, after a load in
    // a branch's delay slot, by the branch target's); two instructions between each mtc2/ctc2 and
    // the next command.
    unsafe {
        asm_clobbering!(
            ["$2", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$16", "$17", "$18", "$19", "$20", "$21", "$22", "$23", "$24", "$25"],
            ".set push",
            ".set noreorder",
            "lui $3, {min_hi}",
            "ori $3, $3, {min_lo}",
            "ori $24, $zero, 32769",
            "ori $2, $zero, 0x8000",
            "0:",
            "beq $5, $6, 9f",
            "nop",
            "lw $8, 0($4)",
            "lw $9, 4($4)",
            "lw $10, 0($5)",
            "lw $11, 4($5)",
            // The dot's x, y, z: RT11..RT13 = a's x, y, z (RT21 = a's w, unused), V0 = b's x, y, z.
            ".word {a01_rt}",
            ".word {a23_rt}",
            ".word {b01_v0}",
            ".word {b23_v0}",
            "xor $21, $8, $10",
            "xor $22, $9, $11",
            ".word {dot3}",
            "or $21, $21, $22",
            unpack_low!("$12", "$8"),
            "sra $13, $8, 16",
            unpack_low!("$14", "$9"),
            // Equal rotations (a bone neither clip turns) come back unchanged: only the range test.
            "beqz $21, 30f",
            "sra $15, $9, 16",
            "sra $19, $11, 16",
            "mult $15, $19",
            "move $9, $7",
            unpack_low!("$16", "$10"),
            "sra $17, $10, 16",
            unpack_low!("$18", "$11"),
            ".word {dot3_mac1}",
            "subu $21, $16, $12",
            "mflo $22",
            "addu $20, $20, $22",
            // A negative dot: b's sign flipped (out of line).
            "bltz $20, 20f",
            "subu $22, $17, $13",
            "21:",
            // Farther apart than 30 degrees: a halving step (out of line).
            "slt $25, $20, $3",
            "bnez $25, 50f",
            "subu $23, $18, $14",
            // q = a + (((b - a) * t) >> 12), t = w unless halved: x, y, z by GPL, each b - a within
            // i16 (else Rust: IR1..3 keep 16 bits); w by the CPU.
            "22:",
            ".word {t_ir0}",
            ".word {v21_ir1}",
            ".word {v22_ir2}",
            ".word {v23_ir3}",
            ".word {ax_mac1}",
            ".word {ay_mac2}",
            ".word {az_mac3}",
            "addu $21, $21, $2",
            "addu $22, $22, $2",
            ".word {gpl}",
            "addu $23, $23, $2",
            "or $21, $21, $22",
            "or $21, $21, $23",
            "srl $21, $21, 16",
            "subu $25, $19, $15",
            "bnez $21, 9f",
            "mult $9, $25",
            ".word {qx}",
            ".word {qy}",
            ".word {qz}",
            "mflo $25",
            // n = |q|^2: x, y, z by SQR of GPL's IR1..3 (q saturated to i16 only where n leaves the
            // window either way), w by the CPU; the translation's words meanwhile.
            ".word {sqr}",
            "sra $25, $25, 12",
            "addu $15, $15, $25",
            "mult $15, $15",
            "lw $8, 8($4)",
            "lw $9, 12($4)",
            "lw $10, 8($5)",
            "lw $11, 12($5)",
            ".word {xx}",
            ".word {yy}",
            ".word {zz}",
            "addu $20, $20, $21",
            "mflo $23",
            "addu $20, $20, $22",
            "addu $20, $20, $23",
            // e16 = (2^28 - n) >> 12 within +-3277 (n modulo 2^32 as the model's), else Rust.
            "lui $21, 0x1000",
            "subu $20, $21, $20",
            "sra $20, $20, 12",
            "addiu $21, $20, 3277",
            "sltiu $21, $21, 6555",
            "beqz $21, 9f",
            "mult $20, $20",
            // s = 2^16 + (e16 >> 1) + ((3 * e16 * e16) >> 19), and (q * s + 2^15) >> 16 as
            // q + ((q * (s - 2^16) + 2^15) >> 16): x, y, z by GPF, w by the CPU.
            ".word {qx_ir1}",
            ".word {qy_ir2}",
            ".word {qz_ir3}",
            "sra $22, $20, 1",
            "mflo $21",
            "sll $23, $21, 1",
            "addu $21, $21, $23",
            "sra $21, $21, 19",
            "addu $20, $22, $21",
            ".word {s_ir0}",
            "mult $20, $15",
            "nop",
            ".word {gpf}",
            ".word {mx}",
            ".word {my}",
            ".word {mz}",
            scale_step!("$21", "$12"),
            scale_step!("$22", "$13"),
            scale_step!("$23", "$14"),
            "mflo $20",
            scale_step!("$20", "$15"),
            // Each component within +-2^14, or the form cannot take it (the Rust path says so).
            "31:",
            "addiu $21, $12, 0x4000",
            "sltu $21, $21, $24",
            and_within_unit!("$13"),
            and_within_unit!("$14"),
            and_within_unit!("$15"),
            "beqz $21, 9f",
            "nop",
            pack!("$12", "$13"),
            pack!("$14", "$15"),
            "sw $12, 0($5)",
            "sw $14, 4($5)",
            // The translation: kept when the two are equal (the pad 0), else blended (out of line).
            "xor $21, $8, $10",
            "xor $22, $9, $11",
            "or $21, $21, $22",
            "bnez $21, 40f",
            "andi $11, $11, 0xFFFF",
            "sw $11, 12($5)",
            "addiu $4, $4, 16",
            "b 0b",
            "addiu $5, $5, 16",
            // b's sign flipped, and the dot's; x and y's differences again.
            "20:",
            "subu $16, $zero, $16",
            "subu $17, $zero, $17",
            "subu $18, $zero, $18",
            "subu $19, $zero, $19",
            "subu $20, $zero, $20",
            "subu $21, $16, $12",
            "b 21b",
            "subu $22, $17, $13",
            // Equal rotations: the translation's words, then the range test.
            "30:",
            "lw $8, 8($4)",
            "lw $9, 12($4)",
            "lw $10, 8($5)",
            "b 31b",
            "lw $11, 12($5)",
            // The translation blended: a + (((b - a) * w) >> 12) per axis, the pad 0.
            // Past 30 degrees: the model's first halving step (the midpoint s = a + b normalized as
            // `normalize_q14` does, then the half of the arc that holds t), Rust for any further one.
            // s's x, y, z within i16 (else Rust), squared by SQR, w by the CPU.
            "50:",
            "addu $21, $12, $16",
            "addu $22, $13, $17",
            "addu $23, $14, $18",
            "addu $25, $15, $19",
            ".word {v21_ir1}",
            ".word {v22_ir2}",
            ".word {v23_ir3}",
            "addu $8, $21, $2",
            "addu $10, $22, $2",
            ".word {sqr}",
            "addu $11, $23, $2",
            "or $8, $8, $10",
            "or $8, $8, $11",
            "srl $8, $8, 16",
            "bnez $8, 9f",
            "mult $25, $25",
            ".word {ssx}",
            ".word {ssy}",
            ".word {ssz}",
            "mflo $20",
            "addu $8, $8, $10",
            "addu $8, $8, $11",
            "addu $8, $8, $20",
            // The length floor(sqrt(n)) as `sqrt_q30` takes it for n in 2^28..=2^30 (else Rust): the
            // chord between two table nodes, then one correction.
            "lui $10, 0x1000",
            "subu $10, $8, $10",
            "lui $11, 0x3000",
            "sltu $11, $11, $10",
            "bnez $11, 9f",
            "srl $10, $8, 22",
            "addiu $10, $10, -64",
            "sll $10, $10, 2",
            "lui $11, %hi({table})",
            "addu $10, $10, $11",
            "lw $10, %lo({table})($10)",
            "lui $11, 0x3F",
            "ori $11, $11, 0xFFFF",
            "and $11, $8, $11",
            "andi $20, $10, 511",
            "multu $20, $11",
            "srl $10, $10, 9",
            "mflo $11",
            "srl $11, $11, 22",
            "addu $10, $10, $11",
            "srl $10, $10, 2",
            "addiu $11, $10, 1",
            "multu $11, $11",
            ".word {v21_ir1}",
            ".word {v22_ir2}",
            ".word {v23_ir3}",
            "mflo $11",
            "sltu $11, $8, $11",
            "xori $11, $11, 1",
            "addu $10, $10, $11",
            // r = 2^30 / length, 2^15 + r' with r' within i16 (else Rust); the midpoint
            // (s * r + 2^15) >> 16 with s * r' by GPF (x, y, z) and s_w * r by the CPU.
            "lui $11, 0x4000",
            "divu $11, $10",
            "mflo $20",
            "srl $8, $20, 16",
            "bnez $8, 9f",
            "addiu $8, $20, -32768",
            ".word {r_ir0}",
            "mult $25, $20",
            "sll $10, $21, 15",
            ".word {gpf}",
            "sll $11, $22, 15",
            "sll $20, $23, 15",
            ".word {mx}",
            ".word {my}",
            ".word {mz}",
            "addu $21, $21, $10",
            "addu $21, $21, $2",
            "sra $21, $21, 16",
            "addu $22, $22, $11",
            "addu $22, $22, $2",
            "sra $22, $22, 16",
            "addu $23, $23, $20",
            "addu $23, $23, $2",
            "sra $23, $23, 16",
            "mflo $25",
            "addu $25, $25, $2",
            "sra $25, $25, 16",
            // t <= 2048: b = the midpoint, t = 2t; else a = the midpoint, t = 2t - 4096.
            "slti $8, $9, 2049",
            "beqz $8, 51f",
            "sll $9, $9, 1",
            "move $16, $21",
            "move $17, $22",
            "move $18, $23",
            "b 52f",
            "move $19, $25",
            "51:",
            "addiu $9, $9, -4096",
            "move $12, $21",
            "move $13, $22",
            "move $14, $23",
            "move $15, $25",
            // The new dot by the CPU (the pose kept may hold 2^15, past IR's 16 bits), the
            // differences meanwhile; past 30 degrees still: Rust.
            "52:",
            "mult $12, $16",
            "subu $21, $16, $12",
            "subu $22, $17, $13",
            "mflo $20",
            "subu $23, $18, $14",
            dot_step!("$13", "$17"),
            dot_step!("$14", "$18"),
            dot_step!("$15", "$19"),
            "slt $25, $20, $3",
            "bnez $25, 9f",
            "nop",
            "b 22b",
            "nop",
            "40:",
            unpack_low!("$12", "$8"),
            "sra $13, $8, 16",
            unpack_low!("$14", "$9"),
            unpack_low!("$16", "$10"),
            "sra $17, $10, 16",
            unpack_low!("$18", "$11"),
            lerp_xyz!(),
            pack!("$12", "$13"),
            "andi $14, $14, 0xFFFF",
            "sw $12, 8($5)",
            "sw $14, 12($5)",
            "addiu $4, $4, 16",
            "b 0b",
            "addiu $5, $5, 16",
            "9:",
            ".set pop",
            min_hi = const (NLERP_MIN_COS_Q28 as u32) >> 16,
            min_lo = const (NLERP_MIN_COS_Q28 as u32) & 0xFFFF,
            a01_rt = const ctc2_from(8, ctrl::RT11RT12),
            a23_rt = const ctc2_from(9, ctrl::RT13RT21),
            b01_v0 = const mtc2_from(10, data::VXY0),
            b23_v0 = const mtc2_from(11, data::VZ0),
            dot3 = const cop2(cmd::mvmva(0, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0)),
            dot3_mac1 = const mfc2_to(20, data::MAC1),
            t_ir0 = const mtc2_from(9, data::IR0),
            // $21-$23 into IR1..3: the blend's differences, the halving's sum.
            v21_ir1 = const mtc2_from(21, data::IR1),
            v22_ir2 = const mtc2_from(22, data::IR2),
            v23_ir3 = const mtc2_from(23, data::IR3),
            ax_mac1 = const mtc2_from(12, data::MAC1),
            ay_mac2 = const mtc2_from(13, data::MAC2),
            az_mac3 = const mtc2_from(14, data::MAC3),
            gpl = const cop2(cmd::GPL | cmd::SF),
            qx = const mfc2_to(12, data::MAC1),
            qy = const mfc2_to(13, data::MAC2),
            qz = const mfc2_to(14, data::MAC3),
            sqr = const cop2(SQR_SF0),
            xx = const mfc2_to(20, data::MAC1),
            yy = const mfc2_to(21, data::MAC2),
            zz = const mfc2_to(22, data::MAC3),
            qx_ir1 = const mtc2_from(12, data::IR1),
            qy_ir2 = const mtc2_from(13, data::IR2),
            qz_ir3 = const mtc2_from(14, data::IR3),
            s_ir0 = const mtc2_from(20, data::IR0),
            gpf = const cop2(GPF_SF0),
            mx = const mfc2_to(21, data::MAC1),
            my = const mfc2_to(22, data::MAC2),
            mz = const mfc2_to(23, data::MAC3),
            ssx = const mfc2_to(8, data::MAC1),
            ssy = const mfc2_to(10, data::MAC2),
            ssz = const mfc2_to(11, data::MAC3),
            r_ir0 = const mtc2_from(8, data::IR0),
            table = sym crate::tables::SQRT_TABLE,
            inout("$4") from.as_ptr() => _,
            inout("$5") range.start => stopped,
            in("$6") range.end,
            in("$7") weight.min(1 << 12) as u32,
        );
    }
    (stopped as usize - range.start as usize) / core::mem::size_of::<PoseQ14>()
}
