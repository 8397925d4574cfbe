//! `Cop2::nlerp_rotation` and `Cop2::nlerp_q14` on the console (`gte::backend` holds their
//! definitions): the keyframe path's local rotation in hand-scheduled blocks around
//! `gte::nlerp_scale` (whose products use HI and LO, which an asm block cannot name as clobbered:
//! the compiler's code does them). The rounding and packing run while the commands do.
//!
//! First block (shared): $4-$7 the keys' words, $8 t; leaves $10, $12, $14 the lerped x, y, z and
//! $11 the sum of their squares. `nlerp_rotation`'s second block: $11 the scale, $3 the result's w
//! (Q14, rounded there to FP12), $9 the matrix; $10, $12, $14 x, y, z; $6, $7, $11 xx, yy, zz, $13,
//! $15, $24 wx, wy, wz, $25, $10 xy, xz, $12 yz, $2 4096, $3 and $8 the entries; leaves the result's
//! words in $4, $5. `nlerp_q14`'s: the scale and w as there, the Q14 words left in $10 and $14.

use core::arch::asm;

use super::{cop2, mfc2_to, mtc2_from};
use crate::gte::backend::nlerp_scale;
use crate::gte::regs::{cmd, data};
use crate::gte::{GPF_SF0, SQR_SF0};

/// `lerp_squares`' register operations as asm text: $4-$7 the keys' words, $8 t; leaves $10, $12,
/// $14 the lerped x, y, z and $11 the sum of their squares ($13, $15 temporaries). Its operands'
/// names are `lerp_squares_asm!`'s.
macro_rules! lerp_squares_text {
    () => {
        concat!(
            // x, y, z of a into MAC1..3, b - a into IR1..3, t into IR0; GPL (sf=1).
            "sra $10, $4, 16\n",
            "sra $11, $6, 16\n",
            "sll $12, $5, 16\n",
            "subu $11, $11, $10\n",
            "sra $12, $12, 16\n",
            "sll $13, $7, 16\n",
            ".word {t_ir0}\n",
            "sra $13, $13, 16\n",
            "sra $14, $5, 16\n",
            ".word {d1_ir1}\n",
            "subu $13, $13, $12\n",
            "sra $15, $7, 16\n",
            ".word {d2_ir2}\n",
            "subu $15, $15, $14\n",
            ".word {d3_ir3}\n",
            ".word {a1_mac1}\n",
            ".word {a2_mac2}\n",
            ".word {a3_mac3}\n",
            "nop\n",
            "nop\n",
            ".word {gpl}\n",
            ".word {c1}\n",
            ".word {c2}\n",
            ".word {c3}\n",
            ".word {sqr}\n",
            ".word {sq1}\n",
            ".word {sq2}\n",
            ".word {sq3}\n",
            "addu $11, $11, $13\n",
            "addu $11, $11, $15\n",
        )
    };
}

/// `$inner!` (`asm`, or `scaled_asm` for a loop that also scales) with `lerp_squares_text!`'s
/// operand names (the caller's template and operands first).
macro_rules! lerp_squares_asm {
    ($inner:ident; $($body:tt)*) => {
        $inner!(
            $($body)*
            t_ir0 = const mtc2_from(8, data::IR0),
            d1_ir1 = const mtc2_from(11, data::IR1),
            d2_ir2 = const mtc2_from(13, data::IR2),
            d3_ir3 = const mtc2_from(15, data::IR3),
            a1_mac1 = const mtc2_from(10, data::MAC1),
            a2_mac2 = const mtc2_from(12, data::MAC2),
            a3_mac3 = const mtc2_from(14, data::MAC3),
            gpl = const cop2(cmd::GPL | cmd::SF),
            c1 = const mfc2_to(10, data::IR1),
            c2 = const mfc2_to(12, data::IR2),
            c3 = const mfc2_to(14, data::IR3),
            sqr = const cop2(SQR_SF0),
            sq1 = const mfc2_to(11, data::MAC1),
            sq2 = const mfc2_to(13, data::MAC2),
            sq3 = const mfc2_to(15, data::MAC3),
        )
    };
}

/// The first block, which `nlerp_rotation` and `nlerp_q14` share: GPL (sf=1) and SQR; the lerped
/// x, y, z and the sum of their squares.
#[inline(always)]
fn lerp_squares(a: [u32; 2], b: [u32; 2], t: i32) -> ([i32; 3], i32) {
    let (c1, c2, c3, sq): (i32, i32, i32, i32);
    // SAFETY: GTE registers only. Two instructions separate each mtc2 from the next command; no
    // mfc2'd register is read by the next instruction.
    unsafe {
        lerp_squares_asm!(asm;
            ".set push",
            ".set noreorder",
            lerp_squares_text!(),
            ".set pop",
            in("$4") a[0],
            in("$5") a[1],
            in("$6") b[0],
            in("$7") b[1],
            in("$8") t,
            out("$10") c1,
            out("$11") sq,
            out("$12") c2,
            out("$13") _,
            out("$14") c3,
            out("$15") _,
            options(nostack, nomem, preserves_flags),
        );
    }
    ([c1, c2, c3], sq)
}

/// `lerp_squares`, then `nlerp_scale` on the CPU: the lerped x, y, z, the scale and w (Q14), `None`
/// outside the common case.
#[inline(always)]
fn lerp_scale(a: [u32; 2], b: [u32; 2], t: i32) -> Option<([i32; 3], i32, i32)> {
    let (c, sq) = lerp_squares(a, b, t);
    let (s, w) = nlerp_scale(a[0] as i16 as i32, b[0] as i16 as i32, t, c, sq)?;
    Some((c, s, w))
}

/// The second blocks' start: the scale ($11) into IR0, x, y, z ($10, $12, $14) into IR1..3 for
/// the GPF (sf=1) two instructions later.
macro_rules! scale_in {
    () => {
        concat!(".word {s_ir0}\n", ".word {c1_ir1}\n", ".word {c2_ir2}\n", ".word {c3_ir3}\n")
    };
}

/// A second block's `asm!`: the caller's template and operands, then the words `scale_in!` and the
/// scaled GPF use (`gpf_sf`; `x`, `y`, `z`: its IR1..3 into $10, $12, $14).
macro_rules! scaled_asm {
    ($($body:tt)*) => {
        asm!(
            $($body)*
            s_ir0 = const mtc2_from(11, data::IR0),
            c1_ir1 = const mtc2_from(10, data::IR1),
            c2_ir2 = const mtc2_from(12, data::IR2),
            c3_ir3 = const mtc2_from(14, data::IR3),
            gpf_sf = const cop2(cmd::GPF | cmd::SF),
            x = const mfc2_to(10, data::IR1),
            y = const mfc2_to(12, data::IR2),
            z = const mfc2_to(14, data::IR3),
        )
    };
}

#[inline(always)]
pub(super) fn nlerp_rotation(a: [u32; 2], b: [u32; 2], t: i32, matrix: &mut [u32; 5]) -> Option<[u32; 2]> {
    let ([c1, c2, c3], s, w) = lerp_scale(a, b, t)?;
    let (q01, q23): (u32, u32);
    // SAFETY: writes the five words of `matrix` and nothing else in memory. Two instructions
    // separate each mtc2 from the next command; no mfc2'd register is read by the next instruction.
    unsafe {
        scaled_asm!(
            ".set push",
            ".set noreorder",
            // GPF (sf=1) by the scale; x, y, z rounded to FP12.
            scale_in!(),
            // w from Q14 to FP12.
            "addiu $3, $3, 2",
            "sra $3, $3, 2",
            ".word {gpf_sf}",
            "andi $4, $3, 0xFFFF",
            ".word {x}",
            ".word {y}",
            ".word {z}",
            "addiu $10, $10, 2",
            "addiu $12, $12, 2",
            "addiu $14, $14, 2",
            "sra $10, $10, 2",
            "sra $12, $12, 2",
            "sra $14, $14, 2",
            // SQR: xx, yy, zz; the result's words meanwhile.
            ".word {x_ir1}",
            ".word {y_ir2}",
            ".word {z_ir3}",
            "sll $5, $10, 16",
            "or $4, $4, $5",
            ".word {sqr}",
            "andi $5, $12, 0xFFFF",
            "sll $6, $14, 16",
            "or $5, $5, $6",
            ".word {xx}",
            ".word {yy}",
            ".word {zz}",
            // GPF by w: wx, wy, wz; m22 = 1 - 2(xx + yy) meanwhile.
            ".word {w_ir0}",
            ".word {x_ir1}",
            ".word {y_ir2}",
            ".word {z_ir3}",
            "addiu $2, $0, 4096",
            "addu $8, $6, $7",
            ".word {gpf}",
            "addiu $8, $8, 1024",
            "sra $8, $8, 11",
            "subu $8, $2, $8",
            "andi $8, $8, 0xFFFF",
            "sw $8, 16($9)",
            ".word {wx}",
            ".word {wy}",
            ".word {wz}",
            // GPF by x: xy, xz; m00 = 1 - 2(yy + zz) meanwhile.
            ".word {x_ir0}",
            ".word {y_ir1}",
            ".word {z_ir2}",
            ".word {zero_ir3}",
            "addu $8, $7, $11",
            "addiu $8, $8, 1024",
            ".word {gpf}",
            "sra $8, $8, 11",
            "subu $8, $2, $8",
            "andi $8, $8, 0xFFFF",
            ".word {xy}",
            ".word {xz}",
            // GPF by y: yz; m10 = 2(xy + wz) meanwhile.
            ".word {y_ir0}",
            ".word {z_ir1}",
            "addu $3, $25, $24",
            "addiu $3, $3, 1024",
            ".word {gpf}",
            "sra $3, $3, 11",
            "sll $3, $3, 16",
            "or $8, $8, $3",
            "sw $8, 0($9)",
            // m01 = 2(xy - wz), m11 = 1 - 2(xx + zz).
            "subu $8, $25, $24",
            "addiu $8, $8, 1024",
            "sra $8, $8, 11",
            "andi $8, $8, 0xFFFF",
            "addu $3, $6, $11",
            "addiu $3, $3, 1024",
            "sra $3, $3, 11",
            "subu $3, $2, $3",
            "sll $3, $3, 16",
            "or $8, $8, $3",
            "sw $8, 4($9)",
            ".word {yz}",
            // m02 = 2(xz + wy), m12 = 2(yz - wx).
            "addu $8, $10, $15",
            "addiu $8, $8, 1024",
            "sra $8, $8, 11",
            "andi $8, $8, 0xFFFF",
            "subu $3, $12, $13",
            "addiu $3, $3, 1024",
            "sra $3, $3, 11",
            "sll $3, $3, 16",
            "or $8, $8, $3",
            "sw $8, 8($9)",
            // m20 = 2(xz - wy), m21 = 2(yz + wx).
            "subu $8, $10, $15",
            "addiu $8, $8, 1024",
            "sra $8, $8, 11",
            "andi $8, $8, 0xFFFF",
            "addu $3, $12, $13",
            "addiu $3, $3, 1024",
            "sra $3, $3, 11",
            "sll $3, $3, 16",
            "or $8, $8, $3",
            "sw $8, 12($9)",
            ".set pop",
            x_ir1 = const mtc2_from(10, data::IR1),
            y_ir2 = const mtc2_from(12, data::IR2),
            z_ir3 = const mtc2_from(14, data::IR3),
            sqr = const cop2(SQR_SF0),
            xx = const mfc2_to(6, data::MAC1),
            yy = const mfc2_to(7, data::MAC2),
            zz = const mfc2_to(11, data::MAC3),
            w_ir0 = const mtc2_from(3, data::IR0),
            gpf = const cop2(GPF_SF0),
            wx = const mfc2_to(13, data::MAC1),
            wy = const mfc2_to(15, data::MAC2),
            wz = const mfc2_to(24, data::MAC3),
            x_ir0 = const mtc2_from(10, data::IR0),
            y_ir1 = const mtc2_from(12, data::IR1),
            z_ir2 = const mtc2_from(14, data::IR2),
            zero_ir3 = const mtc2_from(0, data::IR3),
            xy = const mfc2_to(25, data::MAC1),
            xz = const mfc2_to(10, data::MAC2),
            y_ir0 = const mtc2_from(12, data::IR0),
            z_ir1 = const mtc2_from(14, data::IR1),
            yz = const mfc2_to(12, data::MAC1),
            in("$9") matrix.as_mut_ptr(),
            inout("$10") c1 => _,
            inout("$11") s => _,
            inout("$12") c2 => _,
            inout("$14") c3 => _,
            inout("$3") w => _,
            out("$2") _,
            out("$4") q01,
            out("$5") q23,
            out("$6") _,
            out("$7") _,
            out("$8") _,
            out("$13") _,
            out("$15") _,
            out("$24") _,
            out("$25") _,
            options(nostack, preserves_flags),
        );
    }
    Some([q01, q23])
}

/// `Cop2::nlerp_q14`: `lerp_squares`, the scale on the CPU, then GPF (sf=1) by the scale, its IR1..3
/// packed with w (Q14) while nothing else waits.
#[inline(always)]
pub(super) fn nlerp_q14(a: [u32; 2], b: [u32; 2], t: i32) -> Option<[u32; 2]> {
    let ([c1, c2, c3], s, w) = lerp_scale(a, b, t)?;
    let (xy, zw): (u32, u32);
    // SAFETY: GTE registers only. Two instructions separate the last mtc2 from the command; no
    // mfc2'd register is read by the next instruction.
    unsafe {
        scaled_asm!(
            ".set push",
            ".set noreorder",
            scale_in!(),
            "sll $3, $3, 16",
            "nop",
            ".word {gpf_sf}",
            ".word {x}",
            ".word {y}",
            ".word {z}",
            "andi $10, $10, 0xFFFF",
            "sll $12, $12, 16",
            "andi $14, $14, 0xFFFF",
            "or $10, $10, $12",
            "or $14, $14, $3",
            ".set pop",
            inout("$10") c1 => xy,
            in("$11") s,
            inout("$12") c2 => _,
            inout("$14") c3 => zw,
            inout("$3") w => _,
            options(nostack, nomem, preserves_flags),
        );
    }
    Some([xy, zw])
}

/// `Cop2::nlerp_q14_dense` on the console: one loop over the joints, each common one's two keys
/// loaded, `lerp_squares`, `gte::backend::nlerp_scale` (its three products by `mult`) and
/// `nlerp_q14`'s second block, the result stored into the joint's pose; any other joint stops it.
///
/// Registers: $2 the words, $24 the joint's two words, $25 the end of the joints, $9 its pose, $8 t,
/// $20 `keys_at` in bytes, $21 `frame + 1`, $22 the words' length, $23 that in bytes; per joint $4-$7
/// the keys' words, $10-$15 `lerp_squares`', $16 w, $17 n then e then e >> 11, $11 the scale, $3
/// the result's w; $18, $19 temporaries.
#[allow(clippy::too_many_arguments)]
pub(super) fn nlerp_q14_dense(words: &[u32], from: usize, n: usize, keys_at: usize, frame: usize, t: i32, poses: &mut [crate::gte::PoseQ14]) -> usize {
    let n = n.min(words.len() / 2).min(poses.len());
    if from >= n || words.len() >= 1 << 28 || keys_at >= 1 << 20 || !(0..=4096).contains(&t) {
        return from.min(n);
    }
    const _: () = assert!(crate::gte::DENSE_JOINT == 1 << 16 && crate::gte::WIDE_KEY == 1 << 16);
    let base = words.as_ptr();
    let stopped: *const u32;
    // SAFETY: reads the joints' two words below `n` (checked above), and a joint's five key words only
    // when they lie within `words` (first < len, then first + keys_at + 5 <= len: no wrap, the length
    // below 2^28); writes the rotation words of the poses below `n`. Hazards: no register loaded by
    // lw/mfc2 is read by the next instruction; two instructions between an mtc2 and the next command
    // and between an mflo and the next mult.
    unsafe {
        lerp_squares_asm!(scaled_asm;
            ".set push",
            ".set noreorder",
            "0:",
            "beq $24, $25, 9f",
            "nop",
            "lw $10, 0($24)",
            "lw $11, 4($24)",
            "beqz $10, 8f",
            "srl $12, $11, 16",
            "andi $12, $12, 1",
            "beqz $12, 9f",
            "andi $13, $11, 0xFFFF",
            "sltu $12, $21, $13",
            "beqz $12, 9f",
            "sltu $12, $10, $22",
            "beqz $12, 9f",
            "sll $13, $10, 2",
            "addu $13, $13, $20",
            "addiu $14, $13, 20",
            "sltu $15, $23, $14",
            "bnez $15, 9f",
            "addu $13, $13, $2",
            "lw $4, 0($13)",
            "lw $5, 4($13)",
            "lw $14, 8($13)",
            "lw $6, 12($13)",
            "lw $7, 16($13)",
            "srl $14, $14, 16",
            "andi $14, $14, 1",
            "bnez $14, 9f",
            "nop",
            lerp_squares_text!(),
            // nlerp_scale: w = a0 + ((b0 - a0) t >> 12), n = w^2 + sq, e = 2^24 - n; w, x, y, z
            // within +-8191 and e within 2^18 of 0, else the joint is Rust's
            "sll $16, $4, 16",
            "sra $16, $16, 16",
            "sll $17, $6, 16",
            "sra $17, $17, 16",
            "subu $17, $17, $16",
            "mult $17, $8",
            "mflo $17",
            "sra $17, $17, 12",
            "addu $16, $16, $17",
            "mult $16, $16",
            "addiu $18, $16, 8191",
            "sltiu $18, $18, 16383",
            "addiu $19, $10, 8191",
            "sltiu $19, $19, 16383",
            "and $18, $18, $19",
            "addiu $19, $12, 8191",
            "sltiu $19, $19, 16383",
            "and $18, $18, $19",
            "addiu $19, $14, 8191",
            "sltiu $19, $19, 16383",
            "and $18, $18, $19",
            "mflo $17",
            "addu $17, $17, $11",
            "lui $19, 0x0100",
            "beqz $18, 9f",
            "subu $17, $19, $17",
            "lui $19, 4",
            "addu $19, $17, $19",
            "lui $18, 8",
            "sltu $19, $18, $19",
            "bnez $19, 9f",
            "sra $17, $17, 11",
            "addiu $11, $17, 16384",
            "mult $16, $11",
            // the second block: GPF (sf=1) by the scale, the Q14 words
            scale_in!(),
            "nop",
            "nop",
            ".word {gpf_sf}",
            "mflo $3",
            "sra $3, $3, 12",
            "sll $3, $3, 16",
            ".word {x}",
            ".word {y}",
            ".word {z}",
            "andi $10, $10, 0xFFFF",
            "sll $12, $12, 16",
            "andi $14, $14, 0xFFFF",
            "or $10, $10, $12",
            "or $14, $14, $3",
            "sw $10, 0($9)",
            "sw $14, 4($9)",
            "8:",
            "addiu $24, $24, 8",
            "b 0b",
            "addiu $9, $9, 16",
            "9:",
            ".set pop",
            in("$2") base,
            inout("$24") base.add(2 * from) => stopped,
            in("$25") base.add(2 * n),
            inout("$9") poses.as_mut_ptr().add(from) => _,
            in("$8") t,
            in("$20") (4 * keys_at) as u32,
            in("$21") (frame + 1) as u32,
            in("$22") words.len() as u32,
            in("$23") (4 * words.len()) as u32,
            out("$3") _,
            out("$4") _,
            out("$5") _,
            out("$6") _,
            out("$7") _,
            out("$10") _,
            out("$11") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$15") _,
            out("$16") _,
            out("$17") _,
            out("$18") _,
            out("$19") _,
            options(nostack),
        );
    }
    (stopped as usize - base as usize) / 8
}
