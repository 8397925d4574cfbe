//! [`super::crossfade_q14`] on the console: one asm loop over the bones for the blend's common case,
//! the exact integer steps of [`super::blend_q14`] (hence bit for bit the host's): equal rotations kept,
//! the dot product and the hemisphere's sign, no halving (the poses within 30 degrees), the linear
//! blend, [`super::normalize_near_unit_q14`]'s series (no root, no division), the range test, and the
//! translation blended. Any other bone stops the loop there for the Rust path to take.
//!
//! Registers: $4 the outgoing pose (`from`), $5 the incoming one (`to`, blended in place), $6 the
//! end of `to`, $7 the weight w (FP12, 0..=4096); $3 the smallest cosine taken (`NLERP_MIN_COS_Q28`),
//! $24 32,769 (the range test's bound); per bone $8, $9 `from`'s words and $10, $11 `to`'s, $12-$15
//! a's x, y, z, w then the blend q, $16-$19 b's, $20 the dot, then the sum of squares n, then the
//! scale s; $21-$23, $25 temporaries.
//!
//! Products are the CPU's `mult` (HI/LO, not nameable as clobbered, as in `tables::stream::hw`):
//! two instructions separate each `mflo` from the next `mult`. A `PoseQ14` is `repr(C)`: rotation
//! x y z w as halfwords (words 0, 1), translation x y z and a pad halfword (words 2, 3).

use super::{PoseQ14, NLERP_MIN_COS_Q28};
use crate::gte::hw::asm_clobbering;

/// `q_i += ((d_i) * w) >> 12` for `d_i` in `$d`, `q_i` in `$q` (the `mult` already issued for the
/// first: each step reads LO, then issues the next product two instructions later).
macro_rules! lerp_step {
    ($d:literal, $q:literal) => {
        concat!("mflo ", $d, "\n", "sra ", $d, ", ", $d, ", 12\n", "addu ", $q, ", ", $q, ", ", $d, "\n")
    };
}

/// `q_i += ((b_i - a_i) * w) >> 12` for x, y, z (b in $16-$18, a and q in $12-$14, the differences
/// in $21-$23), `$fill` in the first product's shadow: each `mult` two instructions after the
/// `mflo` before it.
macro_rules! lerp_xyz {
    ($fill:literal) => {
        concat!(
            "subu $21, $16, $12\n",
            "mult $21, $7\n",
            "subu $22, $17, $13\n",
            "subu $23, $18, $14\n",
            $fill, "\n",
            lerp_step!("$21", "$12"),
            "mult $22, $7\n",
            "nop\n",
            "nop\n",
            lerp_step!("$22", "$13"),
            "mult $23, $7\n",
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

/// `|$r|` ORed into `$20`.
macro_rules! or_abs {
    ($r:literal) => {
        concat!("sra $21, ", $r, ", 31\n", "xor $22, ", $r, ", $21\n", "subu $22, $22, $21\n", "or $20, $20, $22\n")
    };
}

/// `$q = ($q * s + 2^15) >> 16` (s in $20, 2^15 in $25), the `mult` issued first.
macro_rules! scale_step {
    ($q:literal) => {
        concat!("mult ", $q, ", $20\n", "nop\n", "nop\n", "mflo ", $q, "\n", "addu ", $q, ", ", $q, ", $25\n", "sra ", $q, ", ", $q, ", 16\n")
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
    // long), writes `to`'s words of those bones. Hazards: no register loaded by lw is read by the next
    // instruction; two instructions between each mflo and the next mult.
    unsafe {
        asm_clobbering!(
            ["$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$16", "$17", "$18", "$19", "$20", "$21", "$22", "$23", "$24", "$25"],
            ".set push",
            ".set noreorder",
            "lui $3, {min_hi}",
            "ori $3, $3, {min_lo}",
            "ori $24, $zero, 32769",
            "0:",
            "beq $5, $6, 9f",
            "nop",
            "lw $8, 0($4)",
            "lw $9, 4($4)",
            "lw $10, 0($5)",
            "lw $11, 4($5)",
            "sll $12, $8, 16",
            "sra $12, $12, 16",
            "sra $13, $8, 16",
            "sll $14, $9, 16",
            "sra $14, $14, 16",
            "sra $15, $9, 16",
            // Equal rotations (a bone neither clip turns) come back unchanged: only the range test.
            "xor $21, $8, $10",
            "xor $22, $9, $11",
            "or $21, $21, $22",
            "beqz $21, 30f",
            "sll $16, $10, 16",
            "sra $16, $16, 16",
            "mult $12, $16",
            "sra $17, $10, 16",
            "sll $18, $11, 16",
            "sra $18, $18, 16",
            "sra $19, $11, 16",
            // The dot product (Q28), and b's sign flipped when it is negative.
            "mflo $20",
            "nop",
            "nop",
            "mult $13, $17",
            "nop",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "nop",
            "mult $14, $18",
            "nop",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "nop",
            "mult $15, $19",
            "nop",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "bgez $20, 10f",
            "nop",
            "subu $16, $zero, $16",
            "subu $17, $zero, $17",
            "subu $18, $zero, $18",
            "subu $19, $zero, $19",
            "subu $20, $zero, $20",
            // Farther apart than 30 degrees: the halving steps, in Rust.
            "10:",
            "slt $21, $20, $3",
            "bnez $21, 9f",
            // q = a + (((b - a) * w) >> 12), component by component.
            lerp_xyz!("subu $16, $19, $15"),
            "mult $16, $7",
            "move $20, $zero",
            or_abs!("$12"),
            lerp_step!("$16", "$15"),
            // The series wants |q_i| OR-ed below 23,170 (the four squares below 2^31).
            or_abs!("$13"),
            or_abs!("$14"),
            or_abs!("$15"),
            "sltiu $21, $20, 23170",
            "beqz $21, 9f",
            // n = the sum of the squares (Q28), e16 = (2^28 - n) >> 12 within +-3277.
            "mult $12, $12",
            "nop",
            "nop",
            "mflo $20",
            "nop",
            "nop",
            "mult $13, $13",
            "nop",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "nop",
            "mult $14, $14",
            "nop",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "nop",
            "mult $15, $15",
            "lui $22, 0x1000",
            "nop",
            "mflo $21",
            "addu $20, $20, $21",
            "subu $20, $22, $20",
            "sra $20, $20, 12",
            "addiu $21, $20, 3277",
            "sltiu $21, $21, 6555",
            "beqz $21, 9f",
            // s = 2^16 + (e16 >> 1) + ((3 * e16 * e16) >> 19).
            "mult $20, $20",
            "sra $22, $20, 1",
            "lui $23, 1",
            "addu $22, $22, $23",
            "mflo $21",
            "sll $23, $21, 1",
            "addu $21, $21, $23",
            "sra $21, $21, 19",
            "addu $20, $22, $21",
            "ori $25, $zero, 0x8000",
            scale_step!("$12"),
            scale_step!("$13"),
            scale_step!("$14"),
            scale_step!("$15"),
            // Each component within +-2^14, or the form cannot take it (the Rust path says so).
            "30:",
            "addiu $21, $12, 0x4000",
            "sltu $21, $21, $24",
            "addiu $22, $13, 0x4000",
            "sltu $22, $22, $24",
            "and $21, $21, $22",
            "addiu $22, $14, 0x4000",
            "sltu $22, $22, $24",
            "and $21, $21, $22",
            "addiu $22, $15, 0x4000",
            "sltu $22, $22, $24",
            "and $21, $21, $22",
            "beqz $21, 9f",
            "nop",
            pack!("$12", "$13"),
            pack!("$14", "$15"),
            "sw $12, 0($5)",
            "sw $14, 4($5)",
            // The translation: a + (((b - a) * w) >> 12) per axis (a when equal), the pad 0.
            "lw $8, 8($4)",
            "lw $9, 12($4)",
            "lw $10, 8($5)",
            "lw $11, 12($5)",
            "sll $12, $8, 16",
            "sra $12, $12, 16",
            "sra $13, $8, 16",
            "sll $14, $9, 16",
            "sra $14, $14, 16",
            "sll $16, $10, 16",
            "sra $16, $16, 16",
            "sra $17, $10, 16",
            "sll $18, $11, 16",
            "sra $18, $18, 16",
            lerp_xyz!("nop"),
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
            inout("$4") from.as_ptr() => _,
            inout("$5") range.start => stopped,
            in("$6") range.end,
            in("$7") weight.min(1 << 12) as u32,
        );
    }
    (stopped as usize - range.start as usize) / core::mem::size_of::<PoseQ14>()
}
