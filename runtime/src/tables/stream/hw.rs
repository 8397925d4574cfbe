//! One pass over a record on the console: [`super::records_from`] for an in-place clip, as one asm
//! loop that keeps the bit window, the masks and the pointers in registers.
//!
//! Every mode is the same update of a component's (value, difference) by the field `x` it reads:
//! `step' = (step & smask) + x`, `value' = (value & vmask) + step'`, `step'` stored `& keep`:
//! a block's first record from nothing (masks 0, difference kept 0), its second (difference
//! replaced), later ones (both accumulate). A restart is the first then the second.
//!
//! Main RAM has no data cache (a load costs about six cycles, a store one): the window holds two
//! stream words and loads one per 32 bits read; each component loads and stores its state once.

use core::arch::asm;

use super::{FIRST_DIFFERENCES, FRESH, RESIDUALS};
use crate::tables::pose::{WIDTHS_RESIDUAL_SHIFT, WIDTH_BITS};

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

/// Reads the record of `mode` (FRESH, FIRST_DIFFERENCES or RESIDUALS) at `p.bit` into `state` as
/// [`super::records_from`] does; returns the bit after it, or `None` (nothing done) when `p` does not
/// lie within `p.clip`.
pub(super) fn pass(p: &Pass, state: &mut [u32], mode: u8) -> Option<u32> {
    let clip = p.clip;
    if p.descriptors + p.channels > clip.len() || p.widths + p.animated > clip.len() || p.stream > clip.len() {
        return None;
    }
    let (smask, vmask, keep, fshift) = match mode {
        FRESH => (0u32, 0u32, 0u32, 0u32),
        FIRST_DIFFERENCES => (0, !0, !0, 0),
        RESIDUALS => (!0, !0, !0, WIDTHS_RESIDUAL_SHIFT),
        _ => return None,
    };
    // A FRESH field's width is the descriptor's base width (6 bits, up to 32: the loop knows FRESH
    // by this mask's bit 5); the others are 5-bit fields of the width word.
    let (wmask, wshift) = if mode == FRESH { (63u32, 0u32) } else { (31, WIDTH_BITS) };
    let base = clip.as_ptr();
    let end = clip.as_ptr_range().end;
    let word = |i: usize| clip.get(i).copied().unwrap_or(0);
    let first = p.stream + (p.bit >> 5) as usize;
    let (lo, hi, mut s) = (word(first), word(first + 1), p.bit & 31);
    // SAFETY: pointers stay inside `clip` (descriptors and width words checked above; stream words
    // are loaded only below `end`), and `state` is written only below its end (checked per channel).
    // Hazards: no register loaded by lw is read by the next instruction.
    unsafe {
        let mut next = base.wrapping_add(first + 2);
        let state_end = state.as_mut_ptr_range().end;
        asm!(
            ".set push",
            ".set noreorder",
            "li $12, 0",
            // ---- channel loop: $4 descriptor, $12 this channel's kind (0 rotation) after it
            "0:",
            "beq $4, $5, 9f",
            "nop",
            "lw $13, 0($4)",
            "addiu $4, $4, 4",
            "move $23, $12",
            "addiu $12, $12, 1",
            "sltiu $24, $12, 3",
            "subu $24, $zero, $24",
            "and $12, $12, $24",
            "andi $24, $13, 1",
            "beqz $24, 0b",
            "srl $14, $13, 16",
            // animated: the fields ($14) are the base width (FRESH) or this block's width word
            "andi $24, $2, 32",
            "bnez $24, 6f",
            "nop",
            "lw $14, 0($6)",
            "addiu $6, $6, 4",
            "srlv $14, $14, $16",
            "6:",
            // room in the state for this channel (3 words for a rotation, 6 otherwise)?
            "addiu $24, $7, 12",
            "beqz $23, 7f",
            "nop",
            "addiu $24, $7, 24",
            "7:",
            "sltu $24, $21, $24",
            "bnez $24, 9f",
            "li $22, 3",
            "bnez $23, 5f",
            "nop",
            // ---- rotation component: (value, difference) as halfwords of one word
            "3:",
            "and $15, $14, $2",
            "srlv $14, $14, $3",
            "srlv $24, $9, $11",
            "sll $25, $10, 1",
            "nor $13, $11, $zero",
            "sllv $25, $25, $13",
            "or $24, $24, $25",
            "subu $25, $zero, $15",
            "sllv $24, $24, $25",
            "srav $24, $24, $25",
            "sltu $25, $zero, $15",
            "subu $25, $zero, $25",
            "and $24, $24, $25",
            "addu $11, $11, $15",
            "sltiu $25, $11, 32",
            "bnez $25, 4f",
            "lw $13, 0($7)",
            "addiu $11, $11, -32",
            "move $9, $10",
            "sltu $25, $8, $20",
            "move $10, $zero",
            "beqz $25, 4f",
            "addiu $8, $8, 4",
            "lw $10, -4($8)",
            "4:",
            "addiu $22, $22, -1",
            "sra $25, $13, 16",
            "and $25, $25, $17",
            "addu $25, $25, $24",
            "and $13, $13, $18",
            "addu $13, $13, $25",
            "andi $13, $13, 0xFFFF",
            "and $25, $25, $19",
            "sll $25, $25, 16",
            "or $13, $13, $25",
            "sw $13, 0($7)",
            "bnez $22, 3b",
            "addiu $7, $7, 4",
            "b 0b",
            "nop",
            // ---- translation or scale component: value and difference in two words
            "5:",
            "and $15, $14, $2",
            "srlv $14, $14, $3",
            "srlv $24, $9, $11",
            "sll $25, $10, 1",
            "nor $13, $11, $zero",
            "sllv $25, $25, $13",
            "or $24, $24, $25",
            "subu $25, $zero, $15",
            "sllv $24, $24, $25",
            "srav $24, $24, $25",
            "sltu $25, $zero, $15",
            "subu $25, $zero, $25",
            "and $24, $24, $25",
            "addu $11, $11, $15",
            "lw $13, 0($7)",
            "sltiu $25, $11, 32",
            "bnez $25, 8f",
            "lw $23, 4($7)",
            "addiu $11, $11, -32",
            "move $9, $10",
            "sltu $25, $8, $20",
            "move $10, $zero",
            "beqz $25, 8f",
            "addiu $8, $8, 4",
            "lw $10, -4($8)",
            "8:",
            "addiu $22, $22, -1",
            "and $23, $23, $17",
            "addu $23, $23, $24",
            "and $13, $13, $18",
            "addu $13, $13, $23",
            "and $23, $23, $19",
            "sw $13, 0($7)",
            "sw $23, 4($7)",
            "bnez $22, 5b",
            "addiu $7, $7, 8",
            "b 0b",
            "nop",
            "9:",
            ".set pop",
            inout("$4") base.add(p.descriptors) => _,
            in("$5") base.add(p.descriptors + p.channels),
            inout("$6") base.add(p.widths) => _,
            inout("$7") state.as_mut_ptr() => _,
            inout("$8") next,
            inout("$9") lo => _,
            inout("$10") hi => _,
            inout("$11") s,
            in("$16") fshift,
            in("$17") smask,
            in("$18") vmask,
            in("$19") keep,
            in("$20") end,
            in("$21") state_end,
            out("$22") _,
            in("$2") wmask,
            in("$3") wshift,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$15") _,
            out("$23") _,
            out("$24") _,
            out("$25") _,
            options(nostack),
        );
        let words_read = (next as usize - base as usize) / 4 - p.stream;
        Some((words_read as u32 - 2) * 32 + s)
    }
}
