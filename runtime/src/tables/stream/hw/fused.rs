//! A forward step and the pose writing in one asm pass ([`step_write_q14`]): bone by bone, the
//! rotation's record fields are read into its state words, which stay in registers for the
//! interpolation, the rebuilt fourth component and the pose's store; the translation's record (the
//! root's) is read as `super::pass` reads it, then its pose words written as `super::write_q14`
//! writes them. One loop, one set-up and one load of each descriptor, state and width word a bone,
//! where the record pass and the writing each had their own.
//!
//! Registers kept for the whole pass: $2 the poses' end, $3 the flags (below), $4 the bone's
//! rotation descriptor, $5 its pose, $6 the next width word, $7 the next state word, $8-$11 the
//! stream (next word, window lo and hi, bit), $12 the next constant, $20 the clip's end, $21 the
//! state's end. Temporaries: $13-$19, $22-$25 (a rotation's state words in $18, $19, $22, its k + 1
//! in $16). IR0 holds weight - 4096, IR1..3 the steps for the interpolation's products.

use core::arch::asm;

use super::{Pass, Write, FIRST_DIFFERENCES, RESIDUALS};
use crate::gte::hw::{cop2, mfc2_to, mtc2_from};
use crate::gte::regs::data;
use crate::gte::{PoseQ14, GPF_SF0, SQR_SF0};

/// Flags ($3): the pose writing left the frame to the Rust loop (the pass stops with $4 at the first
/// bone whose records it has not read: after the bone whose rotation left the form, or at a bone
/// whose scale is not 1.0; `super::pass` reads the rest); a translation does not fit `i16`; the
/// weight is 4096 (set on entry); the state ran short (the pass stopped, as `super::pass` stops).
const BAILED: u32 = 1;
const BAD: u32 = 2;
const WHOLE_FRAME: u32 = 4;
const SHORT: u32 = 8;

/// One rotation component: its state word into `$s` (value | step << 16), its record field (in $24)
/// read, the new step into $23 by `$step_update` and the value into `$s`'s low half by adding
/// `$added`, both stored, and the step into IR`i` for the interpolation's product.
macro_rules! rot_component {
    ($s:literal, $value:literal, $step:literal, $ir:literal, ($step_update:expr, $added:literal)) => {
        concat!(
            "lw ", $s, ", ", $value, "($7)\n",
            delta_width!(),
            window_field!("$17"),
            delta_sext!(),
            "addu $11, $11, $15\n",
            "sltiu $25, $11, 32\n",
            "bnez $25, 4f\n",
            "sra $23, ", $s, ", 16\n",
            window_refill!(),
            "4:\n",
            $step_update,
            "addu ", $s, ", ", $s, ", ", $added, "\n",
            "sh ", $s, ", ", $value, "($7)\n",
            "sh $23, ", $step, "($7)\n",
            ".word {", $ir, "}\n",
        )
    };
}

/// The whole pass for one mode: `$widths` takes the record's widths from the width word in $14
/// (the dropped component's index left in its low bits by `$dropped`), `$update` as
/// [`rot_component!`]'s (a pair), and the translation channel's `$fields`, `$load`, `$vec_update` as
/// `super::pass`'s.
macro_rules! fused_loop {
    ($widths:expr, $dropped:expr, ($step_update:expr, $added:literal), $fields:expr, $vec_load:expr, $vec_update:expr) => {
        concat!(
            ".set push\n",
            ".set noreorder\n",
            "addiu $13, $13, -4096\n",
            ".word {weight_ir0}\n",
            "beq $5, $2, 89f\n",
            "nop\n",
            "lw $15, 8($4)\n",
            "lw $14, 4($4)\n",
            "lw $13, 0($4)\n",
            // ---- a bone: its descriptors in $13 (rotation), $14 (translation), $15 (scale); a scale
            // other than the identity stops here (this bone's records then the pass's)
            "0:\n",
            "andi $24, $15, 3\n",
            "xori $24, $24, 2\n",
            "bnez $24, 8f\n",
            "andi $15, $13, 1\n",
            "bnez $15, 20f\n",
            "srl $16, $13, 8\n",
            "andi $15, $13, 2\n",
            "beqz $15, 10f\n",
            "nop\n",
            // identity rotation
            "sw $zero, 0($5)\n",
            "lui $15, 0x4000\n",
            "b 40f\n",
            "sw $15, 4($5)\n",
            // constant rotation: four Q15 halfwords, each (h + 1) >> 1
            "10:\n",
            constant_rotation!("$12"),
            // ---- animated rotation: its record, then the pose from the new state in registers
            "20:\n",
            "addiu $24, $7, 12\n",
            "sltu $24, $21, $24\n",
            "bnez $24, 7f\n",
            "andi $16, $16, 255\n",
            "lw $14, 0($6)\n",
            "addiu $6, $6, 4\n",
            "addiu $16, $16, 1\n",
            $widths,
            rot_component!("$18", "0", "2", "step_ir1", ($step_update, $added)),
            rot_component!("$19", "4", "6", "step_ir2", ($step_update, $added)),
            rot_component!("$22", "8", "10", "step_ir3", ($step_update, $added)),
            "addiu $7, $7, 12\n",
            $dropped,
            // value << shift (shift = 15 - k): the value halfword shifted up 16 then down k + 1
            "sll $18, $18, 16\n",
            "srav $18, $18, $16\n",
            "sll $19, $19, 16\n",
            "srav $19, $19, $16\n",
            "sll $22, $22, 16\n",
            "srav $22, $22, $16\n",
            // weight 4096: no products; else value << shift + ((step * (weight - 4096)) >> (k - 3))
            // (`super::write_q14`'s form), the three products by GPF
            "andi $13, $3, {whole}\n",
            "bnez $13, 22f\n",
            "addiu $17, $16, -4\n",
            ".word {gpf}\n",
            ".word {mac1_13}\n",
            ".word {mac2_15}\n",
            ".word {mac3_23}\n",
            "srav $13, $13, $17\n",
            "srav $15, $15, $17\n",
            "srav $23, $23, $17\n",
            "addu $18, $18, $13\n",
            "addu $19, $19, $15\n",
            "addu $22, $22, $23\n",
            // each within -32768..=32767 and the squares' sum below 2^30, else the Rust loop writes the
            // frame; n = 2^30 - sum by SQR; the root as `super::write_q14` takes it
            "22:\n",
            "ori $24, $zero, 0x8000\n",
            "addu $13, $18, $24\n",
            "addu $15, $19, $24\n",
            "or $13, $13, $15\n",
            "addu $15, $22, $24\n",
            "or $13, $13, $15\n",
            "srl $13, $13, 16\n",
            "bnez $13, 91f\n",
            ".word {a_ir1}\n",
            ".word {b_ir2}\n",
            ".word {c_ir3}\n",
            "lui $24, 0x4000\n",
            "lui $25, 0x1000\n",
            ".word {sqr}\n",
            "addiu $18, $18, 1\n",
            "sra $18, $18, 1\n",
            "addiu $19, $19, 1\n",
            "sra $19, $19, 1\n",
            "addiu $22, $22, 1\n",
            "sra $22, $22, 1\n",
            ".word {mac1_13}\n",
            ".word {mac2_15}\n",
            ".word {mac3_23}\n",
            "addu $13, $13, $15\n",
            "addu $13, $13, $23\n",
            "sltu $23, $13, $24\n",
            "beqz $23, 91f\n",
            "subu $13, $24, $13\n",
            "sltu $23, $13, $25\n",
            "bnez $23, 25f\n",
            "srl $15, $13, 22\n",
            "addiu $15, $15, -64\n",
            "sll $15, $15, 2\n",
            "lui $23, %hi({table})\n",
            "addu $15, $15, $23\n",
            "lw $16, %lo({table})($15)\n",
            "sll $23, $13, 10\n",
            "andi $24, $18, 0xFFFF\n",
            "sll $25, $19, 16\n",
            "or $24, $24, $25\n",
            "andi $22, $22, 0xFFFF\n",
            "xori $15, $14, 3\n",
            "andi $17, $16, 511\n",
            "multu $17, $23\n",
            "srl $16, $16, 9\n",
            "mfhi $17\n",
            "addu $16, $16, $17\n",
            "srl $16, $16, 2\n",
            "addiu $17, $16, 1\n",
            "multu $17, $17\n",
            "mflo $23\n",
            "sltu $23, $13, $23\n",
            "xori $23, $23, 1\n",
            "b 30f\n",
            "addu $16, $16, $23\n",
            // below 2^28: the bit-by-bit root
            "25:\n",
            "move $16, $zero\n",
            "lui $17, 0x0400\n",
            "26:\n",
            "addu $23, $16, $17\n",
            "sltu $24, $13, $23\n",
            "bnez $24, 27f\n",
            "srl $16, $16, 1\n",
            "subu $13, $13, $23\n",
            "addu $16, $16, $17\n",
            "27:\n",
            "srl $17, $17, 2\n",
            "bnez $17, 26b\n",
            "nop\n",
            "andi $24, $18, 0xFFFF\n",
            "sll $25, $19, 16\n",
            "or $24, $24, $25\n",
            "andi $22, $22, 0xFFFF\n",
            "xori $15, $14, 3\n",
            // the rebuilt one to Q14 at the dropped place (w dropped: two words)
            "30:\n",
            "addiu $16, $16, 1\n",
            "sra $16, $16, 1\n",
            "bnez $15, 32f\n",
            "sll $25, $16, 16\n",
            "or $22, $22, $25\n",
            "sw $24, 0($5)\n",
            "sw $22, 4($5)\n",
            // ---- translation: a narrow constant (three halfwords at k <= 8 fraction bits, each
            // (h + (2^k >> 1)) >> k), else as `super::write_q14`
            "40:\n",
            "lw $13, 4($4)\n",
            "nop\n",
            "andi $15, $13, 1\n",
            "bnez $15, 50f\n",
            "andi $15, $13, 7\n",
            "xori $15, $15, 4\n",
            "bnez $15, 41f\n",
            "srl $17, $13, 8\n",
            "lw $18, 0($12)\n",
            "andi $17, $17, 255\n",
            "li $15, 1\n",
            "sllv $15, $15, $17\n",
            "srl $15, $15, 1\n",
            "addiu $12, $12, 8\n",
            "lw $22, -4($12)\n",
            "sra $19, $18, 16\n",
            "sll $18, $18, 16\n",
            "sra $18, $18, 16\n",
            "addu $18, $18, $15\n",
            "addu $19, $19, $15\n",
            "srav $18, $18, $17\n",
            "srav $19, $19, $17\n",
            "sll $22, $22, 16\n",
            "sra $22, $22, 16\n",
            "addu $22, $22, $15\n",
            "b 65f\n",
            "srav $22, $22, $17\n",
            // another constant: identity, or three words as stored
            "41:\n",
            "andi $15, $13, 2\n",
            "bnez $15, 46f\n",
            "nop\n",
            "lw $18, 0($12)\n",
            "lw $19, 4($12)\n",
            "lw $22, 8($12)\n",
            "b 60f\n",
            "addiu $12, $12, 12\n",
            "46:\n",
            "sw $zero, 8($5)\n",
            "sw $zero, 12($5)\n",
            "b 70f\n",
            "lw $15, 20($4)\n",
            // animated: its record as the pass reads it, then ((value - step) << shift) + (((step <<
            // shift) * weight) >> 12) from its six state words (64-bit products), shift = 8 - k
            "50:\n",
            "move $13, $14\n",
            channel!($fields, delta_width!(), $vec_load, delta_sext!(), $vec_update, "24", "8"),
            // (the channel's state check leaves by 9f)
            "b 51f\n",
            "nop\n",
            "9:\n",
            "b 89f\n",
            "ori $3, $3, {short}\n",
            "51:\n",
            "lw $13, 4($4)\n",
            ".word {ir0_25}\n",
            "lw $18, -24($7)\n",
            "srl $17, $13, 8\n",
            "andi $17, $17, 255\n",
            "li $16, 8\n",
            "subu $16, $16, $17\n",
            "addiu $25, $25, 4096\n",
            "lw $13, -20($7)\n",
            "nop\n",
            "subu $18, $18, $13\n",
            "sllv $13, $13, $16\n",
            "mult $13, $25\n",
            "sllv $18, $18, $16\n",
            "lw $19, -16($7)\n",
            "lw $13, -12($7)\n",
            "mflo $23\n",
            "mfhi $24\n",
            "srl $23, $23, 12\n",
            "sll $24, $24, 20\n",
            "or $23, $23, $24\n",
            "addu $18, $18, $23\n",
            "subu $19, $19, $13\n",
            "sllv $13, $13, $16\n",
            "mult $13, $25\n",
            "sllv $19, $19, $16\n",
            "lw $22, -8($7)\n",
            "lw $13, -4($7)\n",
            "mflo $23\n",
            "mfhi $24\n",
            "srl $23, $23, 12\n",
            "sll $24, $24, 20\n",
            "or $23, $23, $24\n",
            "addu $19, $19, $23\n",
            "subu $22, $22, $13\n",
            "sllv $13, $13, $16\n",
            "mult $13, $25\n",
            "sllv $22, $22, $16\n",
            "nop\n",
            "nop\n",
            "mflo $23\n",
            "mfhi $24\n",
            "srl $23, $23, 12\n",
            "sll $24, $24, 20\n",
            "or $23, $23, $24\n",
            "addu $22, $22, $23\n",
            // to GTE units, ((v >> 1) + 64) >> 7, each within i16 or the pose does not fit
            "60:\n",
            "sra $18, $18, 1\n",
            "addiu $18, $18, 64\n",
            "sra $18, $18, 7\n",
            "sra $19, $19, 1\n",
            "addiu $19, $19, 64\n",
            "sra $19, $19, 7\n",
            "sra $22, $22, 1\n",
            "addiu $22, $22, 64\n",
            "sra $22, $22, 7\n",
            "ori $13, $zero, 0x8000\n",
            "addu $15, $18, $13\n",
            "addu $23, $19, $13\n",
            "or $15, $15, $23\n",
            "addu $23, $22, $13\n",
            "or $15, $15, $23\n",
            "srl $15, $15, 16\n",
            "beqz $15, 65f\n",
            "nop\n",
            "ori $3, $3, {bad}\n",
            // the translation stored while the next bone's descriptors load (past the last bone too:
            // the clip holds them, checked by the caller); a bone whose pose the Rust loop must write
            // stops the pass after its records
            "65:\n",
            "lw $15, 20($4)\n",
            "andi $18, $18, 0xFFFF\n",
            "sll $19, $19, 16\n",
            "or $18, $18, $19\n",
            "andi $22, $22, 0xFFFF\n",
            "sw $18, 8($5)\n",
            "sw $22, 12($5)\n",
            "70:\n",
            "lw $14, 16($4)\n",
            "andi $24, $3, {bailed}\n",
            "addiu $4, $4, 12\n",
            "bnez $24, 89f\n",
            "addiu $5, $5, 16\n",
            "bne $5, $2, 0b\n",
            "lw $13, 0($4)\n",
            "b 89f\n",
            "nop\n",
            // x, y or z dropped: four halfwords
            "32:\n",
            "sltiu $23, $14, 1\n",
            "sll $23, $23, 1\n",
            "addu $23, $23, $5\n",
            "sh $18, 0($23)\n",
            "sltiu $23, $14, 2\n",
            "sll $23, $23, 1\n",
            "addu $23, $23, $5\n",
            "sh $19, 2($23)\n",
            "sltiu $23, $14, 3\n",
            "sll $23, $23, 1\n",
            "addu $23, $23, $5\n",
            "sh $22, 4($23)\n",
            "sll $23, $14, 1\n",
            "addu $23, $23, $5\n",
            "b 40b\n",
            "sh $16, 0($23)\n",
            // a rotation the Rust loop must write: this bone's translation record still read
            "91:\n",
            "b 40b\n",
            "ori $3, $3, {bailed}\n",
            "7:\n",
            "b 89f\n",
            "ori $3, $3, {short}\n",
            "8:\n",
            "ori $3, $3, {bailed}\n",
            "89:\n",
            ".set pop\n",
        )
    };
}

/// What [`step_write_q14`] did: the bit after the record, and the poses' fit as `super::write_q14`
/// gives it, or `None` when the Rust loop must write the frame's poses (the records are read).
pub(in crate::tables::stream) struct Stepped {
    pub bit: u32,
    pub fits: Option<bool>,
}

/// `super::pass` of `mode` (FIRST_DIFFERENCES or RESIDUALS) and then `super::write_q14` at `weight`
/// for the same block, in one pass: the same state, bit and poses. `None` (nothing done) when the
/// inputs are outside what the pass handles: `p` and `wr` must describe the same clip words, block
/// and bones (`p.channels` = 3 x `out.len()`).
pub(in crate::tables::stream) fn step_write_q14(p: &Pass, wr: &Write, state: &mut [u32], weight: u32, out: &mut [PoseQ14], mode: u8) -> Option<Stepped> {
    let clip = p.clip;
    if p.descriptors + p.channels + 3 > clip.len()
        || p.channels != 3 * out.len()
        || p.widths + p.animated > clip.len()
        || p.stream > clip.len()
        || wr.constants > clip.len()
        || wr.descriptors != p.descriptors
        || wr.widths != p.widths
        || weight > 4096
    {
        return None;
    }
    let base = clip.as_ptr();
    let end = clip.as_ptr_range().end;
    let word = |i: usize| clip.get(i).copied().unwrap_or(0);
    let first = p.stream + (p.bit >> 5) as usize;
    let (lo, hi, s) = (word(first), word(first + 1), p.bit & 31);
    let next = base.wrapping_add(first + 2);
    let state_range = state.as_mut_ptr_range();
    let out_range = out.as_mut_ptr_range();
    let flags = if weight == 4096 { WHOLE_FRAME } else { 0 };
    let (mut flags_out, mut next_out, mut s_out, mut desc_out, mut widths_out, mut state_out): (u32, *const u32, u32, *const u32, *const u32, *mut u32);
    // SAFETY: descriptors are read for `out.len()` bones and the one after (checked above); width
    // words and constants as the descriptors say, which parsing proved lie inside the clip; stream
    // words only below `end`; state words only below the state's end (checked per channel); `out`
    // written 16 bytes a bone below its end. Hazards: no register loaded by lw/mfc2 is read by the
    // next instruction; two instructions between an mtc2 and the next GTE command and between an
    // mflo/mfhi and the next mult.
    macro_rules! run {
        ($code:expr) => {
            unsafe {
                asm!(
                    $code,
                    inout("$13") weight => _,
                    inout("$3") flags => flags_out,
                    inout("$4") base.add(p.descriptors) => desc_out,
                    inout("$5") out_range.start => _,
                    in("$2") out_range.end,
                    inout("$6") base.add(p.widths) => widths_out,
                    inout("$7") state_range.start => state_out,
                    inout("$8") next => next_out,
                    inout("$9") lo => _,
                    inout("$10") hi => _,
                    inout("$11") s => s_out,
                    inout("$12") base.add(wr.constants) => _,
                    in("$20") end,
                    in("$21") state_range.end,
                    out("$14") _,
                    out("$15") _,
                    out("$16") _,
                    out("$17") _,
                    out("$18") _,
                    out("$19") _,
                    out("$22") _,
                    out("$23") _,
                    out("$24") _,
                    out("$25") _,
                    table = sym crate::tables::pose::SQRT_TABLE,
                    whole = const WHOLE_FRAME,
                    bailed = const BAILED,
                    bad = const BAD,
                    short = const SHORT,
                    weight_ir0 = const mtc2_from(13, data::IR0),
                    step_ir1 = const mtc2_from(23, data::IR1),
                    step_ir2 = const mtc2_from(23, data::IR2),
                    step_ir3 = const mtc2_from(23, data::IR3),
                    a_ir1 = const mtc2_from(18, data::IR1),
                    b_ir2 = const mtc2_from(19, data::IR2),
                    c_ir3 = const mtc2_from(22, data::IR3),
                    mac1_13 = const mfc2_to(13, data::MAC1),
                    mac2_15 = const mfc2_to(15, data::MAC2),
                    mac3_23 = const mfc2_to(23, data::MAC3),
                    ir0_25 = const mfc2_to(25, data::IR0),
                    gpf = const cop2(GPF_SF0),
                    sqr = const cop2(SQR_SF0),
                    options(nostack),
                )
            }
        };
    }
    match mode {
        FIRST_DIFFERENCES => run!(fused_loop!(
            "",
            "srl $14, $14, 15\n",
            ("move $23, $24\n", "$24"),
            "lw $14, 0($6)\naddiu $6, $6, 4\n",
            "lw $13, 0($7)\n",
            "addu $13, $13, $24\nsw $13, 0($7)\nsw $24, 4($7)\n"
        )),
        RESIDUALS => run!(fused_loop!(
            "srl $14, $14, 15\n",
            "",
            ("addu $23, $23, $24\n", "$23"),
            "lw $14, 0($6)\naddiu $6, $6, 4\nsrl $14, $14, 15\n",
            "lw $13, 0($7)\nlw $16, 4($7)\n",
            "addu $16, $16, $24\naddu $13, $13, $16\nsw $13, 0($7)\nsw $16, 4($7)\n"
        )),
        _ => return None,
    }
    let words_read = (next_out as usize - base as usize) / 4 - p.stream;
    let bit = (words_read as u32 - 2) * 32 + s_out;
    if flags_out & SHORT != 0 {
        return Some(Stepped { bit, fits: None });
    }
    if flags_out & BAILED == 0 {
        return Some(Stepped { bit, fits: Some(flags_out & BAD == 0) });
    }
    // The writing stopped after the bone before `desc_out`: the rest of the record by the pass.
    let done = (desc_out as usize - base as usize) / 4 - p.descriptors;
    if done >= p.channels {
        return Some(Stepped { bit, fits: None });
    }
    let rest = Pass {
        clip,
        descriptors: p.descriptors + done,
        channels: p.channels - done,
        widths: (widths_out as usize - base as usize) / 4,
        animated: p.animated,
        stream: p.stream,
        bit,
    };
    let used = (state_out as usize - state_range.start as usize) / 4;
    let bit = super::pass(&rest, state.get_mut(used..)?, mode)?;
    Some(Stepped { bit, fits: None })
}
