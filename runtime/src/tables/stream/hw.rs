//! One pass over a record on the console: [`super::records_from`] for an in-place clip, as one asm
//! loop that keeps the bit window, the masks and the pointers in registers.
//!
//! Every mode is the same update of a component's (value, difference) by the field `x` it reads:
//! `step' = (step & smask) + x`, `value' = (value & vmask) + step'`, `step'` stored `& keep`:
//! a block's first record from nothing (masks 0, difference kept 0), its second (difference
//! replaced), later ones (both accumulate). A restart is the first then the second.
//!
//! Main RAM has no data cache (a load costs about six cycles, a store one): the window holds two
//! stream words and loads one per 32 bits read; each component loads its state once (a rotation
//! stores its value and difference as two halfwords, no masking).

use core::arch::asm;

use super::{FIRST_DIFFERENCES, FRESH, RESIDUALS};
use crate::gte::hw::{asm_clobbering, cop2, mfc2_to, mtc2_from};
use crate::gte::regs::data;
use crate::gte::{GPF_SF0, SQR_SF0};

/// Where a pass reads and writes, all within the clip's words and the voice's state (the caller's
/// bounds).
pub(super) struct Pass<'a> {
    /// The clip's words in place (4-aligned).
    pub clip: &'a [u32],
    /// Word indices in `clip`: the first channel descriptor, the first of this block's width words,
    /// the stream's first word.
    pub descriptors: usize,
    pub channels: usize,
    pub widths: usize,
    pub animated: usize,
    pub stream: usize,
    /// The stream bit of the record.
    pub bit: u32,
}

/// A constant rotation's pose words: four Q15 halfwords at the constants pointer `$c` (moved on),
/// each (h + 1) >> 1, into the pose at $5; then on to the translation (`40:`). $15-$18 temporaries.
macro_rules! constant_rotation {
    ($c:literal) => {
        concat!(
            "lw $15, 0(", $c, ")\n",
            "lw $16, 4(", $c, ")\n",
            "addiu ", $c, ", ", $c, ", 8\n",
            "sll $17, $15, 16\n",
            "sra $17, $17, 16\n",
            "addiu $17, $17, 1\n",
            "sra $17, $17, 1\n",
            "andi $17, $17, 0xFFFF\n",
            "sra $18, $15, 16\n",
            "addiu $18, $18, 1\n",
            "sra $18, $18, 1\n",
            "sll $18, $18, 16\n",
            "or $17, $17, $18\n",
            "sw $17, 0($5)\n",
            "sll $17, $16, 16\n",
            "sra $17, $17, 16\n",
            "addiu $17, $17, 1\n",
            "sra $17, $17, 1\n",
            "andi $17, $17, 0xFFFF\n",
            "sra $18, $16, 16\n",
            "addiu $18, $18, 1\n",
            "sra $18, $18, 1\n",
            "sll $18, $18, 16\n",
            "or $17, $17, $18\n",
            "b 40f\n",
            "sw $17, 4($5)\n",
        )
    };
}

/// The field at bit $11 of the window $9:$10 into $24 (`$10 << (32 - s)` in two shifts; `$t` and
/// $25 temporaries).
macro_rules! window_field {
    ($t:literal) => {
        concat!("srlv $24, $9, $11\n", "sll $25, $10, 1\n", "nor ", $t, ", $11, $zero\n", "sllv $25, $25, ", $t, "\n", "or $24, $24, $25\n")
    };
}

/// The window moved on one word once the bit $11 passed 32: the next stream word (`$8`) loaded while
/// it lies below the clip's end ($20), else 0. Falls through to (or branches to) `4:`.
macro_rules! window_refill {
    () => {
        concat!(
            "addiu $11, $11, -32\n",
            "move $9, $10\n",
            "sltu $25, $8, $20\n",
            "move $10, $zero\n",
            "beqz $25, 4f\n",
            "addiu $8, $8, 4\n",
            "lw $10, -4($8)\n",
        )
    };
}

/// One animated channel of a pass, for one mode: `$fields` sets `$14` (the widths of the three
/// fields) from the descriptor in `$13`, `$width` takes one field's width into `$15`, `$load` loads the
/// component's state (`$13`, and a vector's difference `$16`), `$sext` sign-extends the field in `$24`,
/// `$update` stores the component's new state; `$room` and `$stride` are the channel's and a
/// component's state bytes (12 and 4 for a rotation, 24 and 8 otherwise).
macro_rules! channel {
    ($fields:expr, $width:expr, $load:expr, $sext:expr, $update:expr, $room:literal, $stride:literal) => {
        concat!(
            $fields,
            "addiu $24, $7, ", $room, "\n",
            "sltu $24, $21, $24\n",
            "bnez $24, 9f\n",
            "li $17, 3\n",
            "3:\n",
            $load,
            $width,
            window_field!("$19"),
            $sext,
            "addu $11, $11, $15\n",
            "sltiu $25, $11, 32\n",
            "bnez $25, 4f\n",
            "addiu $17, $17, -1\n",
            window_refill!(),
            "4:\n",
            $update,
            "bnez $17, 3b\n",
            "addiu $7, $7, ", $stride, "\n",
        )
    };
}

/// A whole pass for one mode: bone by bone, its rotation, translation and scale descriptors loaded
/// together and each animated one read by [`channel!`].
macro_rules! pass_loop {
    ($fields:expr, $width:expr, $sext:expr, $rot_load:expr, $rot_update:expr, $vec_load:expr, $vec_update:expr) => {
        concat!(
            ".set push\n",
            ".set noreorder\n",
            "0:\n",
            "beq $4, $5, 9f\n",
            "nop\n",
            "lw $13, 0($4)\n",
            "lw $12, 4($4)\n",
            "lw $23, 8($4)\n",
            "addiu $4, $4, 12\n",
            "andi $24, $13, 1\n",
            "beqz $24, 1f\n",
            "or $22, $12, $23\n",
            channel!($fields, $width, $rot_load, $sext, $rot_update, "12", "4"),
            // a bone whose translation and scale are both constant (the common case) tested once
            "1:\n",
            "andi $24, $22, 1\n",
            "beqz $24, 0b\n",
            "andi $24, $12, 1\n",
            "beqz $24, 2f\n",
            "move $13, $12\n",
            channel!($fields, $width, $vec_load, $sext, $vec_update, "24", "8"),
            "2:\n",
            "andi $24, $23, 1\n",
            "beqz $24, 0b\n",
            "move $13, $23\n",
            channel!($fields, $width, $vec_load, $sext, $vec_update, "24", "8"),
            "b 0b\n",
            "nop\n",
            "9:\n",
            ".set pop\n",
        )
    };
}

/// A delta record's widths: 5-bit fields, each at most 31 bits (sign-extended in two shifts so that
/// width 0 gives 0).
macro_rules! delta_width {
    () => {
        "andi $15, $14, 31\nsrl $14, $14, 5\n"
    };
}
macro_rules! delta_sext {
    () => {
        "nor $25, $15, $zero\nsll $24, $24, 1\nsllv $24, $24, $25\nsrav $24, $24, $25\nsra $24, $24, 1\n"
    };
}

/// The record of `mode` (FRESH, FIRST_DIFFERENCES or RESIDUALS) at `p.bit` into `state` as
/// [`super::records_from`] reads it: a block's first record sets each component's value (difference
/// 0), its second adds the first difference and keeps it, a later one adds the residual to the
/// difference and the difference to the value. Returns the bit after the record, or `None` (nothing
/// done) when `p` does not lie within `p.clip`.
#[inline(always)]
pub(super) fn pass(p: &Pass, state: &mut [u32], mode: u8) -> Option<u32> {
    pass_counted(p, state, mode).map(|(bit, _)| bit)
}

/// [`pass`], and the state words it went through.
#[inline(always)]
pub(super) fn pass_counted(p: &Pass, state: &mut [u32], mode: u8) -> Option<(u32, usize)> {
    let clip = p.clip;
    if p.descriptors + p.channels > clip.len() || p.channels % 3 != 0 || p.widths + p.animated > clip.len() || p.stream > clip.len() {
        return None;
    }
    let base = clip.as_ptr();
    let end = clip.as_ptr_range().end;
    let word = |i: usize| clip.get(i).copied().unwrap_or(0);
    let first = p.stream + (p.bit >> 5) as usize;
    let (lo, hi, mut s) = (word(first), word(first + 1), p.bit & 31);
    let mut next = base.wrapping_add(first + 2);
    let state_end = state.as_mut_ptr_range().end;
    let state_at: *mut u32;
    // SAFETY: pointers stay inside `clip` (descriptors and width words checked above; stream words
    // are loaded only below `end`), and `state` is written only below its end (checked per channel).
    // Hazards: no register loaded by lw is read by the next instruction.
    macro_rules! run {
        ($code:expr) => {
            unsafe {
                asm!(
                    $code,
                    inout("$4") base.add(p.descriptors) => _,
                    in("$5") base.add(p.descriptors + p.channels),
                    inout("$6") base.add(p.widths) => _,
                    inout("$7") state.as_mut_ptr() => state_at,
                    inout("$8") next,
                    inout("$9") lo => _,
                    inout("$10") hi => _,
                    inout("$11") s,
                    in("$20") end,
                    in("$21") state_end,
                    out("$12") _,
                    out("$13") _,
                    out("$14") _,
                    out("$15") _,
                    out("$16") _,
                    out("$17") _,
                    out("$19") _,
                    out("$22") _,
                    out("$23") _,
                    out("$24") _,
                    out("$25") _,
                    options(nostack),
                )
            }
        };
    }
    match mode {
        // A block's first record: fields of the descriptor's base width (1..=32), no state read.
        FRESH => run!(pass_loop!(
            "srl $14, $13, 16\nandi $14, $14, 63\n",
            "move $15, $14\n",
            "subu $25, $zero, $15\nsllv $24, $24, $25\nsrav $24, $24, $25\n",
            "",
            "andi $19, $24, 0xFFFF\nsw $19, 0($7)\n",
            "",
            "sw $24, 0($7)\nsw $zero, 4($7)\n"
        )),
        FIRST_DIFFERENCES => run!(pass_loop!(
            "lw $14, 0($6)\naddiu $6, $6, 4\n",
            delta_width!(),
            delta_sext!(),
            "lw $13, 0($7)\n",
            "addu $13, $13, $24\nsh $13, 0($7)\nsh $24, 2($7)\n",
            "lw $13, 0($7)\n",
            "addu $13, $13, $24\nsw $13, 0($7)\nsw $24, 4($7)\n"
        )),
        RESIDUALS => run!(pass_loop!(
            "lw $14, 0($6)\naddiu $6, $6, 4\nsrl $14, $14, 15\n",
            delta_width!(),
            delta_sext!(),
            "lw $13, 0($7)\n",
            "sra $19, $13, 16\naddu $19, $19, $24\naddu $13, $13, $19\nsh $13, 0($7)\nsh $19, 2($7)\n",
            "lw $13, 0($7)\nlw $16, 4($7)\n",
            "addu $16, $16, $24\naddu $13, $13, $16\nsw $13, 0($7)\nsw $16, 4($7)\n"
        )),
        _ => return None,
    }
    let words_read = (next as usize - base as usize) / 4 - p.stream;
    Some(((words_read as u32 - 2) * 32 + s, (state_at as usize - state.as_ptr() as usize) / 4))
}

mod fused;
pub(super) use fused::step_write_q14;

/// The translation `$18`..`$20` (Q8) to GTE units as `unit_sample` rounds: `((v >> 1) + 64) >> 7`.
macro_rules! to_gte_units {
    () => {
        "sra $18, $18, 1\naddiu $18, $18, 64\nsra $18, $18, 7\nsra $19, $19, 1\naddiu $19, $19, 64\nsra $19, $19, 7\nsra $20, $20, 1\naddiu $20, $20, 64\nsra $20, $20, 7\n"
    };
}

/// Where [`write_q14`] reads: word indices in the clip's words (in place) of the first channel
/// descriptor, the first constant, and this block's first width word.
pub(super) struct Write<'a> {
    pub clip: &'a [u32],
    pub descriptors: usize,
    pub constants: usize,
    pub widths: usize,
}

/// [`super::write_q14_from`] on the console for the common case: every bone's scale the identity,
/// every rotation component within +-32767. `Some(fits)` as the Rust loop gives it, or `None` (`out` partly
/// written) for the Rust loop to do the whole frame.
pub(super) fn write_q14(wr: &Write, state: &[u32], weight: u32, out: &mut [super::PoseQ14]) -> Option<bool> {
    let clip = wr.clip;
    if wr.descriptors + 3 * out.len() + 3 > clip.len() || wr.constants > clip.len() || wr.widths > clip.len() || weight > 4096 {
        return None;
    }
    let base = clip.as_ptr();
    let table = crate::tables::pose::SQRT_TABLE.as_ptr();
    // The last place a rotation's three state words may start (null, below any, when there is none):
    // each animated channel checks its start against it.
    let last_rotation = if state.len() >= 3 { state.as_ptr_range().end.wrapping_sub(3) } else { core::ptr::null() };
    let bail: u32;
    let bad: u32;
    // SAFETY: descriptors are read for `out.len()` bones and the one after (checked above); constants and width words
    // are read as the descriptors say, which parsing proved lie inside the clip; state words are read
    // only below the state's end (checked per channel); `out` is written 16 bytes per bone below its
    // end; the table is indexed 0..=193 (n within [2^28, 2^30]).
    // Hazards: no register loaded by lw/lhu/mfc2 is read by the next instruction; two instructions
    // between an mflo/mfhi and the next mult, and between an mtc2 and the next GTE command. The GTE
    // products replace CPU multiplies (IR0 holds the weight - 4096 for the whole loop; GPF and SQR
    // leave it).
    unsafe {
        let out_range = out.as_mut_ptr_range();
        asm_clobbering!(
            ["$13", "$14", "$15", "$16", "$17", "$18", "$19", "$20", "$21", "$22", "$23", "$24", "$25"],
            ".set push",
            ".set noreorder",
            "addiu $13, $10, -4096",
            ".word {weight_ir0}",
            "move $3, $zero",
            "beq $5, $6, 90f",
            "nop",
            "lw $15, 8($4)",
            "lw $14, 4($4)",
            "lw $13, 0($4)",
            // ---- bone loop: $4 its rotation descriptor, $5 its pose; its three descriptors loaded
            // (rotation $13, translation $14, scale $15) while the bone before was written. A scale
            // other than the identity goes to the Rust loop.
            "0:",
            "andi $24, $15, 3",
            "xori $24, $24, 2",
            "bnez $24, 91f",
            "andi $15, $13, 1",
            "bnez $15, 20f",
            "andi $15, $13, 2",
            "beqz $15, 10f",
            "nop",
            // identity rotation: (0, 0, 0, 1.0)
            "sw $zero, 0($5)",
            "lui $15, 0x4000",
            "b 40f",
            "sw $15, 4($5)",
            // constant rotation: four Q15 halfwords, each (h + 1) >> 1
            "10:",
            constant_rotation!("$8"),
            // ---- animated rotation: three Q15 components interpolated, the fourth rebuilt
            // Each state word, each width word is loaded with independent work after it: a main RAM load's
            // wait is spent on the instructions that follow it and do not read it (mednafen's model).
            "20:",
            "sltu $16, $2, $7",
            "bnez $16, 91f",
            "srl $16, $13, 8",
            "lw $18, 0($7)",
            "andi $16, $16, 255",
            "addiu $17, $16, -3",
            "addiu $16, $16, 1",
            "xori $25, $10, 4096",
            "lw $19, 4($7)",
            // value << shift (shift = 15 - k) for a, b and c: the state word shifted up 16 then down
            // k + 1; the steps into $21-$23
            "sra $21, $18, 16",
            "sll $18, $18, 16",
            "srav $18, $18, $16",
            "addiu $9, $9, 4",
            "addiu $7, $7, 12",
            "lw $20, -4($7)",
            "sra $22, $19, 16",
            "sll $19, $19, 16",
            "srav $19, $19, $16",
            "lw $15, -4($9)",
            "sra $23, $20, 16",
            "sll $20, $20, 16",
            // weight 4096 (a frame itself, every other frame at 60 Hz of a 30 Hz clip): a = value <<
            // shift, no products
            "beqz $25, 22f",
            "srav $20, $20, $16",
            // a = ((value - step) << shift) + ((step * weight) >> (k - 3)), as value << shift +
            // ((step * (weight - 4096)) >> (k - 3)) (step << shift is step * 4096 >> (k - 3) exactly,
            // so the floors agree); likewise b and c: the three products by GPF (IR0 = weight - 4096,
            // IR = the steps, sf=0: MAC exact)
            ".word {step_a}",
            ".word {step_b}",
            ".word {step_c}",
            "nop",
            "nop",
            ".word {gpf}",
            ".word {mac1_21}",
            ".word {mac2_22}",
            ".word {mac3_23}",
            "srav $21, $21, $17",
            "srav $22, $22, $17",
            "srav $23, $23, $17",
            "addu $18, $18, $21",
            "addu $19, $19, $22",
            "addu $20, $20, $23",
            "22:",
            // each within -32768..=32767 (a bail past it: the Rust loop clamps), then n = 2^30 -
            // (a^2 + b^2 + c^2) by SQR (sf=0: MAC exact); a sum of 2^30 or more bails too (within
            // +-32767 the sum is never 2^30 exactly, so -32768, which the Rust loop clamps, bails
            // here); n within [2^28, 2^30] for the table, below for the bit-by-bit root
            "ori $24, $zero, 0x8000",
            "addu $21, $18, $24",
            "addu $22, $19, $24",
            "or $21, $21, $22",
            "addu $22, $20, $24",
            "or $21, $21, $22",
            "srl $21, $21, 16",
            "bnez $21, 91f",
            ".word {a_ir1}",
            ".word {b_ir2}",
            ".word {c_ir3}",
            "lui $24, 0x4000",
            "lui $25, 0x1000",
            ".word {sqr}",
            // while SQR runs: the dropped component's index, the three stored ones to Q14, (v + 1) >> 1
            "srl $15, $15, 30",
            "addiu $18, $18, 1",
            "sra $18, $18, 1",
            "addiu $19, $19, 1",
            "sra $19, $19, 1",
            "addiu $20, $20, 1",
            "sra $20, $20, 1",
            ".word {mac1_21}",
            ".word {mac2_22}",
            ".word {mac3_23}",
            "addu $21, $21, $22",
            "addu $21, $21, $23",
            "sltu $23, $21, $24",
            "beqz $23, 91f",
            "subu $21, $24, $21",
            "sltu $23, $21, $25",
            "bnez $23, 25f",
            // the root: the chord from the table's node i = (n >> 22) - 64 (its root in quarters and
            // the step to the next; multu's high word with the fraction shifted up 10 is the product
            // >> 22), then one correction; a w-dropped pose's words built while the products run
            "srl $22, $21, 22",
            "sll $22, $22, 2",
            "addu $22, $22, $11",
            "lw $16, -256($22)",
            "sll $23, $21, 10",
            "andi $24, $18, 0xFFFF",
            "sll $25, $19, 16",
            "or $24, $24, $25",
            "andi $20, $20, 0xFFFF",
            "xori $22, $15, 3",
            "andi $17, $16, 511",
            "multu $17, $23",
            "srl $16, $16, 9",
            "mfhi $17",
            "addu $16, $16, $17",
            "srl $16, $16, 2",
            "addiu $17, $16, 1",
            "multu $17, $17",
            "mflo $23",
            "sltu $23, $21, $23",
            "xori $23, $23, 1",
            "b 30f",
            "addu $16, $16, $23",
            // below 2^28 (a rebuilt component under 0.5): the bit-by-bit root
            "25:",
            "move $16, $zero",
            "lui $17, 0x0400",
            "26:",
            "addu $23, $16, $17",
            "sltu $24, $21, $23",
            "bnez $24, 27f",
            "srl $16, $16, 1",
            "subu $21, $21, $23",
            "addu $16, $16, $17",
            "27:",
            "srl $17, $17, 2",
            "bnez $17, 26b",
            "nop",
            "andi $24, $18, 0xFFFF",
            "sll $25, $19, 16",
            "or $24, $24, $25",
            "andi $20, $20, 0xFFFF",
            "xori $22, $15, 3",
            // the rebuilt one to Q14 at the dropped place, the others in order around it (w dropped,
            // the common case: $24 and $20 | w << 16 as two words)
            "30:",
            "addiu $16, $16, 1",
            "sra $16, $16, 1",
            "bnez $22, 32f",
            "sll $25, $16, 16",
            "or $20, $20, $25",
            "sw $24, 0($5)",
            "sw $20, 4($5)",
            // ---- translation ($14). A narrow constant (the common case): three halfwords at k <= 8
            // fraction bits, each (h + (2^k >> 1)) >> k in GTE units (what `unit_sample`'s rounding
            // of h << (8 - k) gives; an i16 always fits, no test)
            "40:",
            "andi $15, $14, 7",
            "xori $15, $15, 4",
            "bnez $15, 41f",
            "srl $17, $14, 8",
            "lw $18, 0($8)",
            "andi $17, $17, 255",
            "li $21, 1",
            "sllv $21, $21, $17",
            "srl $21, $21, 1",
            "addiu $8, $8, 8",
            "lw $20, -4($8)",
            "sra $19, $18, 16",
            "sll $18, $18, 16",
            "sra $18, $18, 16",
            "addu $18, $18, $21",
            "addu $19, $19, $21",
            "srav $18, $18, $17",
            "srav $19, $19, $17",
            "sll $20, $20, 16",
            "sra $20, $20, 16",
            "addu $20, $20, $21",
            "b 65f",
            "srav $20, $20, $17",
            // otherwise shift = 8 - k
            "41:",
            "andi $17, $17, 255",
            "li $16, 8",
            "subu $16, $16, $17",
            "andi $15, $14, 1",
            "bnez $15, 50f",
            "andi $15, $14, 2",
            "bnez $15, 46f",
            "nop",
            // three words as stored
            "lw $18, 0($8)",
            "lw $19, 4($8)",
            "lw $20, 8($8)",
            "b 60f",
            "addiu $8, $8, 12",
            // identity
            "46:",
            "sw $zero, 8($5)",
            "b 70f",
            "sw $zero, 12($5)",
            // animated: ((value - step) << shift) + (((step << shift) * weight) >> 12), 64-bit product
            "50:",
            "addiu $9, $9, 4",
            "addiu $15, $7, 12",
            "sltu $15, $2, $15",
            "bnez $15, 91f",
            "lw $21, 0($7)",
            "lw $22, 4($7)",
            "nop",
            "subu $21, $21, $22",
            "sllv $22, $22, $16",
            "mult $22, $10",
            "sllv $18, $21, $16",
            "lw $21, 8($7)",
            "lw $22, 12($7)",
            "mflo $23",
            "mfhi $24",
            "srl $23, $23, 12",
            "sll $24, $24, 20",
            "or $23, $23, $24",
            "addu $18, $18, $23",
            "subu $21, $21, $22",
            "sllv $22, $22, $16",
            "mult $22, $10",
            "sllv $19, $21, $16",
            "lw $21, 16($7)",
            "lw $22, 20($7)",
            "mflo $23",
            "mfhi $24",
            "srl $23, $23, 12",
            "sll $24, $24, 20",
            "or $23, $23, $24",
            "addu $19, $19, $23",
            "subu $21, $21, $22",
            "sllv $22, $22, $16",
            "mult $22, $10",
            "sllv $20, $21, $16",
            "addiu $7, $7, 24",
            "nop",
            "mflo $23",
            "mfhi $24",
            "srl $23, $23, 12",
            "sll $24, $24, 20",
            "or $23, $23, $24",
            "addu $20, $20, $23",
            // to GTE units, ((v >> 1) + 64) >> 7, each within i16 or the pose does not fit
            "60:",
            to_gte_units!(),
            "ori $21, $zero, 0x8000",
            "addu $22, $18, $21",
            "srl $22, $22, 16",
            "or $12, $12, $22",
            "addu $22, $19, $21",
            "srl $22, $22, 16",
            "or $12, $12, $22",
            "addu $22, $20, $21",
            "srl $22, $22, 16",
            "or $12, $12, $22",
            // the translation stored while the next bone's descriptors load (past the last bone too: the
            // clip holds them, checked above)
            "65:",
            "lw $15, 20($4)",
            "andi $18, $18, 0xFFFF",
            "sll $19, $19, 16",
            "or $18, $18, $19",
            "andi $20, $20, 0xFFFF",
            "sw $18, 8($5)",
            "sw $20, 12($5)",
            "lw $14, 16($4)",
            "addiu $4, $4, 12",
            "addiu $5, $5, 16",
            "bne $5, $6, 0b",
            "lw $13, 0($4)",
            "b 90f",
            "nop",
            "70:",
            "lw $15, 20($4)",
            "lw $14, 16($4)",
            "addiu $4, $4, 12",
            "addiu $5, $5, 16",
            "bne $5, $6, 0b",
            "lw $13, 0($4)",
            "b 90f",
            "nop",
            // x, y or z dropped: four halfwords
            "32:",
            "sltiu $22, $15, 1",
            "sll $22, $22, 1",
            "addu $22, $22, $5",
            "sh $18, 0($22)",
            "sltiu $22, $15, 2",
            "sll $22, $22, 1",
            "addu $22, $22, $5",
            "sh $19, 2($22)",
            "sltiu $22, $15, 3",
            "sll $22, $22, 1",
            "addu $22, $22, $5",
            "sh $20, 4($22)",
            "sll $22, $15, 1",
            "addu $22, $22, $5",
            "b 40b",
            "sh $16, 0($22)",
            "91:",
            "li $3, 1",
            "90:",
            ".set pop",
            inout("$4") base.add(wr.descriptors) => _,
            inout("$5") out_range.start => _,
            in("$6") out_range.end,
            inout("$7") state.as_ptr() => _,
            inout("$8") base.add(wr.constants) => _,
            inout("$9") base.add(wr.widths) => _,
            in("$10") weight,
            in("$11") table,
            inout("$12") 0u32 => bad,
            in("$2") last_rotation,
            out("$3") bail,
            weight_ir0 = const mtc2_from(13, data::IR0),
            step_a = const mtc2_from(21, data::IR1),
            step_b = const mtc2_from(22, data::IR2),
            step_c = const mtc2_from(23, data::IR3),
            a_ir1 = const mtc2_from(18, data::IR1),
            b_ir2 = const mtc2_from(19, data::IR2),
            c_ir3 = const mtc2_from(20, data::IR3),
            mac1_21 = const mfc2_to(21, data::MAC1),
            mac2_22 = const mfc2_to(22, data::MAC2),
            mac3_23 = const mfc2_to(23, data::MAC3),
            gpf = const cop2(GPF_SF0),
            sqr = const cop2(SQR_SF0),
        );
    }
    (bail == 0).then_some(bad == 0)
}
