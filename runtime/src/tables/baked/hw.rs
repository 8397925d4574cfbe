//! The delta words of a baked frame on the console: one asm loop doing [`super::delta_words`] four
//! words at a time, then one at a time for the rest.
//!
//! Main RAM has no data cache: a load costs several cycles, which the instructions after it hide as
//! long as they do not read its register. Each word's delta load and its two lane loads are issued
//! while the previous word is computed and stored.

use core::arch::asm;

use super::{delta_word_count, DeltaFrame, EVEN_BYTES, LANE_SIGNS};
use crate::tables::{Tables, VERTEX_SIZE};

/// One delta word: `$d` the delta word, `$p0`/`$p1` its lanes, into `$14`, `$15`, stored at `$o0`,
/// `$o1` off `$6`; the three instructions `$a`, `$b`, `$c` (the next word's loads) go between, each
/// followed by at least two instructions that do not read what it loads.
macro_rules! word {
    ($d:literal, $p0:literal, $p1:literal, $o0:literal, $o1:literal, $a:literal, $b:literal, $c:literal) => {
        concat!(
            "and $14, ", $d, ", $8\n",
            $a, "\n",
            "xor $15, ", $d, ", $14\n",
            "sll $14, $14, 4\n",
            "srl $15, $15, 4\n",
            $b, "\n",
            "addu $14, $14, ", $p0, "\n",
            "addu $15, $15, ", $p1, "\n",
            "xor $14, $14, $9\n",
            $c, "\n",
            "xor $15, $15, $9\n",
            "sw $14, ", $o0, "($6)\n",
            "sw $15, ", $o1, "($6)\n",
        )
    };
}

/// Decodes the frame's whole delta words (those whose four coordinates are all below 3n) into `out`
/// when the blob and `out` sit word-aligned in memory; returns how many (0: the caller decodes all).
pub(super) fn decode_deltas(t: &Tables, frame: &DeltaFrame, out: &mut [[i16; 3]]) -> usize {
    let bytes = t.bytes();
    let whole = 3 * out.len() / 4;
    if whole == 0 || bytes.as_ptr() as usize % 4 != 0 || out.as_ptr() as usize % 4 != 0 {
        return 0;
    }
    debug_assert!(whole <= delta_word_count(out.len()));
    let lanes = t.vertices_offset() + VERTEX_SIZE * t.vertex_count();
    let out_ptr = out.as_mut_ptr() as *mut u8;
    // SAFETY: the payload was checked to hold `delta_word_count` delta words from `frame.deltas`, and
    // the vertices section twice as many lane words from `lanes`, both at word-aligned addresses (the
    // blob is aligned, the offsets are multiples of 4); the loop writes 8 bytes per delta word, 8 *
    // `whole` <= 6 * out.len() bytes from the aligned `out`.
    // Hazards: no register loaded by lw is read by the next instruction.
    unsafe {
        let blocks_end = out_ptr.add(32 * (whole / 4));
        let words_end = out_ptr.add(8 * whole);
        asm!(
            ".set push",
            ".set noreorder",
            "beq $6, $7, 5f",
            "nop",
            // ---- four delta words per pass, in two register sets: $10-$12 and $13, $24, $25 (delta
            // word, lanes); each word's computation covers the next one's loads.
            "4:",
            "lw $10, 0($4)",
            "lw $11, 0($5)",
            "lw $12, 4($5)",
            word!("$10", "$11", "$12", "0", "4", "lw $13, 4($4)", "lw $24, 8($5)", "lw $25, 12($5)"),
            word!("$13", "$24", "$25", "8", "12", "lw $10, 8($4)", "lw $11, 16($5)", "lw $12, 20($5)"),
            word!("$10", "$11", "$12", "16", "20", "lw $13, 12($4)", "lw $24, 24($5)", "lw $25, 28($5)"),
            word!("$13", "$24", "$25", "-8", "-4", "addiu $4, $4, 16", "addiu $6, $6, 32", "addiu $5, $5, 32"),
            "bne $6, $7, 4b",
            "nop",
            // ---- the rest, one delta word per pass.
            "5:",
            "beq $6, $2, 9f",
            "nop",
            "lw $10, 0($4)",
            "lw $11, 0($5)",
            "lw $12, 4($5)",
            word!("$10", "$11", "$12", "0", "4", "addiu $4, $4, 4", "addiu $5, $5, 8", "nop"),
            "b 5b",
            "addiu $6, $6, 8",
            "9:",
            ".set pop",
            inout("$4") bytes.as_ptr().add(frame.deltas) => _,
            inout("$5") bytes.as_ptr().add(lanes) => _,
            inout("$6") out_ptr => _,
            in("$7") blocks_end,
            in("$2") words_end,
            in("$8") EVEN_BYTES,
            in("$9") LANE_SIGNS,
            out("$10") _,
            out("$11") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$15") _,
            out("$24") _,
            out("$25") _,
            options(nostack),
        );
    }
    whole
}

/// Copies the frame's raw positions at blob offset `at` into `out` two coordinates (a word) at a
/// time when the blob and `out` sit word-aligned; returns how many coordinates it copied.
pub(super) fn copy_raw(t: &Tables, at: usize, out: &mut [[i16; 3]]) -> usize {
    let bytes = t.bytes();
    let words = 3 * out.len() / 2;
    if words == 0 || bytes.as_ptr() as usize % 4 != 0 || out.as_ptr() as usize % 4 != 0 {
        return 0;
    }
    let out_ptr = out.as_mut_ptr() as *mut u8;
    // SAFETY: the payload was checked to hold 6 * out.len() bytes from `at` (a multiple of 4 in an
    // aligned blob); 4 * `words` <= 6 * out.len() bytes are written to the aligned `out`.
    // Hazards: each loaded word is stored two instructions or more after its load.
    unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            "beq $6, $7, 5f",
            "nop",
            "4:",
            "lw $10, 0($4)",
            "lw $11, 4($4)",
            "sw $10, 0($6)",
            "lw $12, 8($4)",
            "sw $11, 4($6)",
            "lw $13, 12($4)",
            "sw $12, 8($6)",
            "addiu $4, $4, 16",
            "sw $13, 12($6)",
            "addiu $6, $6, 16",
            "bne $6, $7, 4b",
            "nop",
            "5:",
            "beq $6, $2, 9f",
            "nop",
            "lw $10, 0($4)",
            "addiu $4, $4, 4",
            "sw $10, 0($6)",
            "b 5b",
            "addiu $6, $6, 4",
            "9:",
            ".set pop",
            inout("$4") bytes.as_ptr().add(at) => _,
            inout("$6") out_ptr => _,
            in("$7") out_ptr.add(16 * (words / 4)),
            in("$2") out_ptr.add(4 * words),
            out("$10") _,
            out("$11") _,
            out("$12") _,
            out("$13") _,
            options(nostack),
        );
    }
    2 * words
}

/// Writes the frame's escapes into `out` (every coordinate of the frame) in order, up to the first
/// one whose coordinate is past `out` ([`super::apply_escapes`]); returns how many it wrote, or
/// `None` when the blob is not word-aligned in memory (the caller writes them).
pub(super) fn apply_escapes(t: &Tables, frame: &DeltaFrame, out: &mut [i16]) -> Option<usize> {
    let bytes = t.bytes();
    if bytes.as_ptr() as usize % 4 != 0 {
        return None;
    }
    let first = bytes[frame.escapes..].as_ptr();
    let end: *const u8;
    // SAFETY: the payload was checked to hold `escape_count` words from `frame.escapes` (aligned);
    // each store goes to coordinate `c` of `out` after the check `c < out.len()`.
    // Hazards: no loaded word is read by the next instruction.
    unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            // ---- two escapes per pass.
            "beq $4, $13, 5f",
            "nop",
            "1:",
            "lw $10, 0($4)",
            "lw $14, 4($4)",
            "andi $11, $10, 0xFFFF",
            "sltu $12, $11, $7",
            "beqz $12, 9f",
            "sll $11, $11, 1",
            "addu $11, $11, $6",
            "sra $10, $10, 16",
            "sh $10, 0($11)",
            "andi $15, $14, 0xFFFF",
            "sltu $12, $15, $7",
            "beqz $12, 8f",
            "sll $15, $15, 1",
            "addu $15, $15, $6",
            "sra $14, $14, 16",
            "addiu $4, $4, 8",
            "bne $4, $13, 1b",
            "sh $14, 0($15)",
            // ---- the last one.
            "5:",
            "beq $4, $5, 9f",
            "nop",
            "lw $10, 0($4)",
            "nop",
            "andi $11, $10, 0xFFFF",
            "sltu $12, $11, $7",
            "beqz $12, 9f",
            "sll $11, $11, 1",
            "addu $11, $11, $6",
            "sra $10, $10, 16",
            "sh $10, 0($11)",
            "b 9f",
            "addiu $4, $4, 4",
            // The second escape of a pair failed: point at it.
            "8:",
            "addiu $4, $4, 4",
            "9:",
            ".set pop",
            inout("$4") first => end,
            in("$5") first.add(4 * frame.escape_count),
            in("$13") first.add(8 * (frame.escape_count / 2)),
            in("$6") out.as_mut_ptr(),
            in("$7") out.len(),
            out("$10") _,
            out("$11") _,
            out("$12") _,
            out("$14") _,
            out("$15") _,
            options(nostack),
        );
        Some(end.offset_from(first) as usize / 4)
    }
}
