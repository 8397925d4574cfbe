//! `Cop2::compose_columns` on the console (`gte::backend` holds its definition): one bone of the
//! keyframe path's composition, the parent's rotation loaded only when it changed, the stores of a
//! column while the next MVMVA runs.
//!
//! Registers: $4 the parent, $5 the column words, $6 the output, $7 whether to load RT, $8 and $9
//! the translation's words; $10-$14 the words, then the columns; $24, $25, $2 the parent's
//! translation. `Matrix` is `repr(C)`: rotation `[i16; 9]` row by row at 0, translation at 20, 24, 28.

use super::{asm_clobbering, cop2, ctc2_from, mfc2_to, mtc2_from};
use crate::gte::regs::{ctrl, data};
use crate::gte::{MVMVA_RT_V0, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::Matrix;

/// One bone's compose as asm text (the registers above; `1:` a local label): RT loaded from the
/// parent when $7 is not 0, the columns by MVMVA with RT, the translation by MVMVA plus the
/// parent's. Clobbers $2, $10-$15, $24, $25.
macro_rules! compose_text {
    () => {
        concat!(
            "beqz $7, 1f\n",
            "lw $10, 0($5)\n",
            "lw $11, 0($4)\n",
            "lw $12, 4($4)\n",
            "lw $13, 8($4)\n",
            "lw $14, 12($4)\n",
            "lhu $15, 16($4)\n",
            ".word {rt0}\n",
            ".word {rt1}\n",
            ".word {rt2}\n",
            ".word {rt3}\n",
            ".word {rt4}\n",
            "1:\n",
            "lw $11, 4($5)\n",
            "lw $12, 8($5)\n",
            "lw $13, 12($5)\n",
            "lw $14, 16($5)\n",
            ".word {v0xy}\n",
            ".word {v1xy}\n",
            ".word {v2xy}\n",
            ".word {v0z}\n",
            "srl $13, $13, 16\n",
            ".word {v2z}\n",
            ".word {v1z}\n",
            "lw $24, 20($4)\n",
            "lw $25, 24($4)\n",
            ".word {mv0}\n",
            "lw $2, 28($4)\n",
            ".word {c0}\n",
            ".word {c1}\n",
            ".word {c2}\n",
            ".word {mv1}\n",
            "sh $10, 0($6)\n",
            "sh $11, 6($6)\n",
            "sh $12, 12($6)\n",
            ".word {c0}\n",
            ".word {c1}\n",
            ".word {c2}\n",
            ".word {mv2}\n",
            "sh $10, 2($6)\n",
            "sh $11, 8($6)\n",
            "sh $12, 14($6)\n",
            ".word {c0}\n",
            ".word {c1}\n",
            ".word {c2}\n",
            ".word {txy}\n",
            ".word {tz}\n",
            "sh $10, 4($6)\n",
            "sh $11, 10($6)\n",
            ".word {mv0}\n",
            "sh $12, 16($6)\n",
            ".word {m1}\n",
            ".word {m2}\n",
            ".word {m3}\n",
            "addu $10, $10, $24\n",
            "addu $11, $11, $25\n",
            "addu $12, $12, $2\n",
            "sw $10, 20($6)\n",
            "sw $11, 24($6)\n",
            "sw $12, 28($6)\n",
        )
    };
}

/// An `asm!` of [`compose_text!`]: the caller's template and operands, then the GTE words the text
/// names and its clobbers.
macro_rules! compose_asm {
    ($($body:tt)*) => {
        asm_clobbering!(
            ["$2", "$10", "$11", "$12", "$13", "$14", "$15", "$24", "$25"],
            $($body)*
            rt0 = const ctc2_from(11, ctrl::RT11RT12),
            rt1 = const ctc2_from(12, ctrl::RT13RT21),
            rt2 = const ctc2_from(13, ctrl::RT22RT23),
            rt3 = const ctc2_from(14, ctrl::RT31RT32),
            rt4 = const ctc2_from(15, ctrl::RT33),
            v0xy = const mtc2_from(10, data::VXY0),
            v1xy = const mtc2_from(11, data::VXY1),
            v2xy = const mtc2_from(12, data::VXY2),
            v0z = const mtc2_from(13, data::VZ0),
            v1z = const mtc2_from(13, data::VZ1),
            v2z = const mtc2_from(14, data::VZ2),
            mv0 = const cop2(MVMVA_RT_V0),
            mv1 = const cop2(MVMVA_RT_V1),
            mv2 = const cop2(MVMVA_RT_V2),
            c0 = const mfc2_to(10, data::IR1),
            c1 = const mfc2_to(11, data::IR2),
            c2 = const mfc2_to(12, data::IR3),
            txy = const mtc2_from(8, data::VXY0),
            tz = const mtc2_from(9, data::VZ0),
            m1 = const mfc2_to(10, data::MAC1),
            m2 = const mfc2_to(11, data::MAC2),
            m3 = const mfc2_to(12, data::MAC3),
        )
    };
}

#[inline(always)]
pub(super) fn compose_columns(parent: &Matrix, load: bool, words: &[u32; 5], t_xy: u32, t_z: u32, out: &mut Matrix) {
    // SAFETY: reads the parent matrix (its rotation's first 18 bytes as words and a half-word, its
    // translation) and the five words, writes the output matrix's rotation and translation (not its
    // padding). Two instructions separate each mtc2/ctc2 from the next command; no loaded register
    // is read by the next instruction (nor at the branch's target).
    unsafe {
        compose_asm!(
            ".set push",
            ".set noreorder",
            compose_text!(),
            ".set pop",
            in("$4") parent as *const Matrix,
            in("$5") words.as_ptr(),
            in("$6") out as *mut Matrix,
            in("$7") load as u32,
            in("$8") t_xy,
            in("$9") t_z,
        );
    }
}

/// `Cop2::compose_columns_run`: [`compose_columns`] bone after bone from `start` in one loop, until
/// a root, a translation that does not fit `i16` (its word 1 not a sign-extended halfword) or the
/// end. Loop registers beyond the text's: $16 the translations' words, $17 the parents, $18 the
/// output's end, $19 the first matrix, $3 the parent RT holds; the parent's matrix goes to $4, the
/// load flag (the parent differs from $3) to $7.
pub(super) fn compose_columns_run(words: &[[u32; 5]], translations: &[[u32; 2]], parents: &[u8], start: usize, loaded: &mut u8, out: &mut [Matrix]) -> usize {
    let n = words.len().min(translations.len()).min(parents.len()).min(out.len());
    if start >= n {
        return n;
    }
    let base = out.as_mut_ptr();
    let mut at: *mut Matrix;
    let mut held = *loaded as u32;
    // SAFETY: reads words, translations and parents of bones `start..n` and the matrices of earlier
    // bones (a parent is below its bone: checked), writes the matrices of bones `start..n`. Two
    // instructions separate each mtc2/ctc2 from the next command; no loaded register is read by the
    // next instruction (nor at a branch's target).
    unsafe {
        compose_asm!(
            ".set push",
            ".set noreorder",
            "0:",
            "beq $6, $18, 9f",
            "nop",
            "lbu $4, 0($17)",
            "lw $8, 0($16)",
            "lw $9, 4($16)",
            // The parent's matrix, before this bone (a root's 0xFF lands past every bone).
            "sll $10, $4, 5",
            "addu $10, $19, $10",
            "sltu $11, $10, $6",
            // The translation fits: its z word plus 2^15 has no bit above 15.
            "ori $12, $0, 0x8000",
            "addu $12, $9, $12",
            "srl $12, $12, 16",
            "sltiu $12, $12, 1",
            "and $11, $11, $12",
            "beqz $11, 9f",
            "xor $7, $4, $3",
            "move $3, $4",
            "move $4, $10",
            compose_text!(),
            "addiu $5, $5, 20",
            "addiu $16, $16, 8",
            "addiu $17, $17, 1",
            "b 0b",
            "addiu $6, $6, 32",
            "9:",
            ".set pop",
            out("$4") _,
            inout("$5") words.as_ptr().add(start) => _,
            inout("$6") base.add(start) => at,
            out("$7") _,
            out("$8") _,
            out("$9") _,
            inout("$16") translations.as_ptr().add(start) => _,
            inout("$17") parents.as_ptr().add(start) => _,
            in("$18") base.add(n),
            in("$19") base,
            inout("$3") held,
        );
        *loaded = held as u8;
        at.offset_from(base) as usize
    }
}
