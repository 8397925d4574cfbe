//! `Cop2::compose_columns` on the console (`gte::backend` holds its definition): one bone of the
//! keyframe path's composition, the parent's rotation loaded only when it changed, the stores of a
//! column while the next MVMVA runs.
//!
//! Registers: $4 the parent, $5 the column words, $6 the output, $7 whether to load RT, $8 and $9
//! the translation's words; $10-$14 the words, then the columns; $24, $25, $2 the parent's
//! translation. `Matrix` is `repr(C)`: rotation `[i16; 9]` row by row at 0, translation at 20, 24, 28.

use core::arch::asm;

use super::{cop2, ctc2_from, mfc2_to, mtc2_from};
use crate::gte::regs::{ctrl, data};
use crate::gte::{MVMVA_RT_V0, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::Matrix;

#[inline(always)]
pub(super) fn compose_columns(parent: &Matrix, load: bool, words: &[u32; 5], t_xy: u32, t_z: u32, out: &mut Matrix) {
    // SAFETY: reads the parent matrix (its rotation's first 18 bytes as words and a half-word, its
    // translation) and the five words, writes the output matrix's rotation and translation (not its
    // padding). Two instructions separate each mtc2/ctc2 from the next command; no loaded register
    // is read by the next instruction (nor at the branch's target).
    unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            "beqz $7, 1f",
            "lw $10, 0($5)",
            "lw $11, 0($4)",
            "lw $12, 4($4)",
            "lw $13, 8($4)",
            "lw $14, 12($4)",
            "lhu $15, 16($4)",
            ".word {rt0}",
            ".word {rt1}",
            ".word {rt2}",
            ".word {rt3}",
            ".word {rt4}",
            "1:",
            "lw $11, 4($5)",
            "lw $12, 8($5)",
            "lw $13, 12($5)",
            "lw $14, 16($5)",
            ".word {v0xy}",
            ".word {v1xy}",
            ".word {v2xy}",
            ".word {v0z}",
            "srl $13, $13, 16",
            ".word {v2z}",
            ".word {v1z}",
            "lw $24, 20($4)",
            "lw $25, 24($4)",
            ".word {mv0}",
            "lw $2, 28($4)",
            ".word {c0}",
            ".word {c1}",
            ".word {c2}",
            ".word {mv1}",
            "sh $10, 0($6)",
            "sh $11, 6($6)",
            "sh $12, 12($6)",
            ".word {c0}",
            ".word {c1}",
            ".word {c2}",
            ".word {mv2}",
            "sh $10, 2($6)",
            "sh $11, 8($6)",
            "sh $12, 14($6)",
            ".word {c0}",
            ".word {c1}",
            ".word {c2}",
            ".word {txy}",
            ".word {tz}",
            "sh $10, 4($6)",
            "sh $11, 10($6)",
            ".word {mv0}",
            "sh $12, 16($6)",
            ".word {m1}",
            ".word {m2}",
            ".word {m3}",
            "addu $10, $10, $24",
            "addu $11, $11, $25",
            "addu $12, $12, $2",
            "sw $10, 20($6)",
            "sw $11, 24($6)",
            "sw $12, 28($6)",
            ".set pop",
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
            in("$4") parent as *const Matrix,
            in("$5") words.as_ptr(),
            in("$6") out as *mut Matrix,
            in("$7") load as u32,
            in("$8") t_xy,
            in("$9") t_z,
            out("$2") _,
            out("$10") _,
            out("$11") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$15") _,
            out("$24") _,
            out("$25") _,
            options(nostack, preserves_flags),
        );
    }
}
