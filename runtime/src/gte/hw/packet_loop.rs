//! `Cop2::flat_packets` on the console: one asm loop over the primitive stream
//! (`tables::primitives`), doing the register operations of `gte::backend::flat_packets_registers`
//! in the same order, in two variants built from one template: without the near and span tests
//! (a character whose box is clear of them, the usual case) and with them.
//!
//! Main RAM has no data cache, so a load costs several cycles: the loop reads one stream word per
//! triangle, quad or strip quad ahead of time (the next one is loaded while NCLIP runs; the stream's
//! end word makes that read safe at the last primitive), fetches a triangle's or quad's projected
//! vertices with `lw` so that the instructions after each load overlap it, pushes a strip's new pair
//! into the GTE's SXY FIFO, and loads depths only for a front face.

use core::arch::asm;

use super::{cop2, lwc2, mfc2, mfc2_to, mtc2_from, swc2};
use crate::gte::packets::{FlatPackets, FlatPrimitives, PacketList, FLAT_PACKET_WORDS, MAX_SPAN_X, MAX_SPAN_Y, QUAD_PACKET_WORDS};
use crate::gte::regs::{cmd, data};

// The span test below has these limits written out, and the run header's base its unit.
const _: () = assert!(MAX_SPAN_X == 1023 && MAX_SPAN_Y == 511);
const _: () = assert!(crate::tables::primitives::RUN_BASE_UNIT * 4 == 1 << 6);

/// Links the packet at `$18` into the table: clamps OTZ (`$8`) to the deepest entry (`$22`; its low
/// half in the tested loop, which keeps the near depth in the high half), takes the entry's link
/// (`$21` is the table) into the header with the length bits in `$25`, stores the GP0 word (`$24`),
/// points the entry at the packet, moves the arena on by `$words` words and counts `$triangles`
/// drawn (in the low half of `$17`). Clobbers `$2`, `$5`, `$8`.
macro_rules! link_packet {
    (untested, $words:literal, $triangles:literal) => {
        concat!("sltu $5, $22, $8\n", "beqz $5, 1f\n", "sll $8, $8, 2\n", "sll $8, $22, 2\n", link_packet!(tail, $words, $triangles))
    };
    (tested, $words:literal, $triangles:literal) => {
        concat!(
            "andi $2, $22, 0xFFFF\n",
            "sltu $5, $2, $8\n",
            "beqz $5, 1f\n",
            "sll $8, $8, 2\n",
            "sll $8, $2, 2\n",
            link_packet!(tail, $words, $triangles)
        )
    };
    (tail, $words:literal, $triangles:literal) => {
        concat!(
            "1:\n",
            "addu $8, $8, $21\n",
            "lw $5, 0($8)\n",
            "sw $24, 4($18)\n",
            "and $2, $18, $23\n",
            "addiu $17, $17, ",
            $triangles,
            "\n",
            "addiu $19, $19, -",
            $words,
            "\n",
            "and $5, $5, $23\n",
            "or $5, $5, $25\n",
            "sw $5, 0($18)\n",
            "sw $2, 0($8)\n",
            "addiu $18, $18, 4 * ",
            $words,
            "\n",
        )
    };
}

/// Loads the facing triangle of a triangle or quad word (`$12`): its SXY words by `lw` into SXY0..2
/// (and kept in `$4`, `$5`, `$25`), leaves the SZ addresses of a, b, c in `$14`, `$6`, `$7`, counts
/// the primitive off `$13`, and starts NCLIP.
macro_rules! load_facing {
    () => {
        concat!(
            "andi $14, $12, 0xFFC\n",
            "srl $6, $12, 10\n",
            "addu $14, $14, $11\n",
            "lw $4, 0($14)\n",
            "andi $6, $6, 0xFFC\n",
            "srl $7, $12, 20\n",
            "andi $7, $7, 0xFFC\n",
            "addu $6, $6, $11\n",
            "addu $7, $7, $11\n",
            "lw $5, 0($6)\n",
            "addu $14, $14, $15\n",
            ".word {w_sxy0_4}\n",
            "addu $6, $6, $15\n",
            "lw $25, 0($7)\n",
            ".word {w_sxy1_5}\n",
            ".word {w_sxy2_25}\n",
            "addu $7, $7, $15\n",
            "addiu $13, $13, -1\n",
            ".word {nclip}\n",
        )
    };
}

/// The tested loop's near test: the depth at each address (plus `$offset`, to turn an SXY address into
/// an SZ one; empty when the addresses are SZ addresses) is at least the near depth (the high half of
/// `$22`), else to `$reject`. Clobbers `$2`, `$3`, `$8`.
macro_rules! near_test {
    (untested, $reject:literal, $offset:literal, $($at:literal),+) => {
        ""
    };
    (tested, $reject:literal, "", $($at:literal),+) => {
        concat!(
            "srl $3, $22, 16\n",
            "move $8, $0\n",
            $("lw $2, 0(", $at, ")\n", "nop\n", "sltu $2, $2, $3\n", "or $8, $8, $2\n",)+
            "bnez $8, ", $reject, "\n",
            "nop\n",
        )
    };
    (tested, $reject:literal, $offset:literal, $($at:literal),+) => {
        concat!(
            "srl $3, $22, 16\n",
            "move $8, $0\n",
            $("addu $2, ", $at, ", ", $offset, "\n", "lw $2, 0($2)\n", "nop\n", "sltu $2, $2, $3\n", "or $8, $8, $2\n",)+
            "bnez $8, ", $reject, "\n",
            "nop\n",
        )
    };
}

/// Two points (SXY words in `$a`, `$b`) at most 1,023 pixels apart across and 511 down, else to
/// `$reject`. The GTE saturates screen coordinates to -1024..1023, so differences fit 16 bits.
/// Clobbers `$2`, `$3`.
macro_rules! span_pair {
    ($reject:literal, $a:literal, $b:literal) => {
        concat!(
            "sll $2, ", $a, ", 16\n",
            "sll $3, ", $b, ", 16\n",
            "subu $2, $2, $3\n",
            "sra $2, $2, 16\n",
            "addiu $2, $2, 1023\n",
            "sltiu $2, $2, 2047\n",
            "beqz $2, ", $reject, "\n",
            "sra $2, ", $a, ", 16\n",
            "sra $3, ", $b, ", 16\n",
            "subu $2, $2, $3\n",
            "addiu $2, $2, 511\n",
            "sltiu $2, $2, 1023\n",
            "beqz $2, ", $reject, "\n",
            "nop\n",
        )
    };
}

/// The tested loop's span test over a triangle's or a quad's points: every pair (the largest
/// extent is the largest pairwise difference).
macro_rules! span_test {
    (untested, $($args:tt)*) => {
        ""
    };
    (tested, $reject:literal, $a:literal, $b:literal, $c:literal) => {
        concat!(span_pair!($reject, $a, $b), span_pair!($reject, $b, $c), span_pair!($reject, $a, $c))
    };
    (tested, $reject:literal, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            span_test!(tested, $reject, $a, $b, $c),
            span_pair!($reject, $a, $d),
            span_pair!($reject, $b, $d),
            span_pair!($reject, $c, $d)
        )
    };
}

/// The tested loop's strip quad points for the span test: t, b', t' from SXY0..2 into `$4`, `$5`,
/// `$25`, b from memory into `$7` (the untested loop names the encodings in a comment only).
macro_rules! strip_points {
    (untested) => {
        "# {r_sxy0_4} {r_sxy1_5} {r_sxy2_25}\n"
    };
    (tested) => {
        concat!(".word {r_sxy0_4}\n", ".word {r_sxy1_5}\n", ".word {r_sxy2_25}\n", "lw $7, 0($16)\n", "nop\n")
    };
}

/// `$22`: the deepest table entry, with the near depth in the high half for the tested loop.
macro_rules! depth_word {
    (untested, $deepest:expr, $near:expr) => {
        $deepest
    };
    (tested, $deepest:expr, $near:expr) => {
        $deepest.min(0xFFFF) | ($near as usize) << 16
    };
}

/// One variant of the loop. `$9` walks the stream, `$12` holds the next word, `$13` the primitives
/// left in the run, `$24` the run's GP0 word; `$20` is the SXY array, `$11` the SXY word of the run's
/// base vertex (moved at each run header) and `$15` the distance to the SZ array. `$17` counts the
/// triangles drawn in its low half and those rejected in its high half (each below 65,536: the
/// tables' triangle count is 16 bits).
macro_rules! packet_loop {
    ($(#[$doc:meta])* $name:ident, $t:tt) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As `Cop2::flat_packets`: `job.words` is a checked stream whose vertices (base plus
        /// index) are below `job.sxy.len()` and `job.sz.len()`; the screen coordinates are the GTE's (-1024..1023).
        pub(super) unsafe fn $name(job: &FlatPrimitives, out: &mut PacketList) -> FlatPackets {
            let Some(max_depth) = out.deepest() else {
                return FlatPackets::default();
            };
            if job.words.is_empty() {
                return FlatPackets::default();
            }
            let room = out.arena.len();
            let sz_offset = (job.sz.as_ptr() as usize).wrapping_sub(job.sxy.as_ptr() as usize);
            let (room_left, counts): (usize, usize);
            // SAFETY: reads the stream's words up to its end word (every read, the look-ahead
            // included, is at or before it: a checked stream ends with it and every run's body is
            // whole), by the caller's contract words of `sxy` and `sz`, entries of `table` up to
            // `max_depth`, and writes packets into `arena` only while `$19` counts enough words left.
            // Hazards: no register loaded by lw/mfc2 is used by the next instruction; two
            // instructions separate each mtc2/lwc2 from the command that reads it; mfc2 waits for the
            // command (interlocked); the swc2 of SXY come after the mfc2 of OTZ.
            unsafe {
        asm!(
            ".set push",
            ".set noreorder",
            "lui $23, 0x00FF",
            "ori $23, $23, 0xFFFF",
            "lw $12, 0($9)",
            "b 0f",
            "addiu $9, $9, 4",
            // ---- a triangle run: $12 the triangle's word, $9 past it.
            "2:",
            load_facing!(),
            "lw $12, 0($9)",
            "addiu $9, $9, 4",
            ".word {mac0}",
            "nop",
            "bltz $8, 6f",
            "nop",
            "bnez $13, 2b",
            "nop",
            "b 0f",
            "nop",
            // A front-facing triangle: SZ1..3, AVSZ3, the packet's points from SXY0..2.
            "6:",
            near_test!($t, "10f", "", "$14", "$6", "$7"),
            span_test!($t, "10f", "$4", "$5", "$25"),
            ".word {l_sz1_14}",
            ".word {l_sz2_6}",
            ".word {l_sz3_7}",
            "sltiu $5, $19, {tri_words}",
            "lui $25, {tri_len_hi}",
            ".word {avsz3}",
            "bnez $5, 10f",
            "nop",
            ".word {r_otz}",
            ".word {s_sxy0_8}",
            ".word {s_sxy1_12}",
            ".word {s_sxy2_16}",
            link_packet!($t, "5", "1"),
            "bnez $13, 2b",
            "nop",
            "b 0f",
            "nop",
            "10:",
            "lui $2, 1",
            "addu $17, $17, $2",
            "bnez $13, 2b",
            "nop",
            "b 0f",
            "nop",
            // ---- a quad run: $12 the quad's first word, $9 past it (at its d word).
            "3:",
            load_facing!(),
            "lw $12, 4($9)",
            "addiu $9, $9, 8",
            ".word {mac0}",
            "nop",
            "bltz $8, 7f",
            "nop",
            "bnez $13, 3b",
            "nop",
            "b 0f",
            "nop",
            // A front-facing quad (a, b, c) + (a, c, d), drawn b, c, a, d: SZ0..3 in that order, AVSZ4.
            "7:",
            "lw $10, -8($9)",
            "nop",
            "addu $10, $10, $11",
            "lw $16, 0($10)",
            "addu $10, $10, $15",
            near_test!($t, "11f", "", "$14", "$6", "$7", "$10"),
            span_test!($t, "11f", "$4", "$5", "$25", "$16"),
            ".word {l_sz0_6}",
            ".word {l_sz1_7}",
            ".word {l_sz2_14}",
            ".word {l_sz3_10}",
            "sltiu $5, $19, {quad_words}",
            "lui $25, {quad_len_hi}",
            ".word {avsz4}",
            "bnez $5, 11f",
            "nop",
            ".word {r_otz}",
            ".word {s_sxy1_8}",
            ".word {s_sxy2_12}",
            ".word {s_sxy0_16}",
            "sw $16, 20($18)",
            link_packet!($t, "6", "2"),
            "bnez $13, 3b",
            "nop",
            "b 0f",
            "nop",
            "11:",
            "lui $2, 2",
            "addu $17, $17, $2",
            "bnez $13, 3b",
            "nop",
            "b 0f",
            "nop",
            // ---- a strip: $12 its first pair (t, b), $9 past it. Each quad pushes its new pair (b', t')
            // into the GTE's SXY FIFO, which then holds its facing triangle (t, b', t'); the previous
            // pair's SXY addresses stay in $10 (t) and $16 (b).
            "4:",
            "andi $10, $12, 0xFFFF",
            "srl $16, $12, 16",
            "addu $16, $16, $11",
            ".word {p_b0}",
            "addu $10, $10, $11",
            ".word {p_t0}",
            "lw $12, 0($9)",
            "addiu $9, $9, 4",
            // Quad k: $12 the pair (t', b') that ends it.
            "5:",
            "andi $14, $12, 0xFFFF",
            "srl $6, $12, 16",
            "addu $6, $6, $11",
            ".word {p_b}",
            "addu $14, $14, $11",
            ".word {p_t}",
            "addiu $13, $13, -1",
            "addiu $9, $9, 4",
            ".word {nclip}",
            "lw $12, -4($9)",
            ".word {mac0}",
            "nop",
            "bltz $8, 8f",
            "nop",
            "move $10, $14",
            "bnez $13, 5b",
            "move $16, $6",
            "b 0f",
            "nop",
            // A front-facing strip quad, drawn b, t, b', t': SZ0..3 in that order, AVSZ4; b's SXY again
            // from memory (the FIFO has moved past it), t, b', t' from SXY0..2.
            "8:",
            strip_points!($t),
            near_test!($t, "12f", "$15", "$16", "$10", "$6", "$14"),
            span_test!($t, "12f", "$7", "$4", "$5", "$25"),
            "addu $7, $16, $15",
            "addu $25, $10, $15",
            ".word {l_sz0_7}",
            ".word {l_sz1_25}",
            "addu $7, $6, $15",
            "addu $25, $14, $15",
            ".word {l_sz2_7}",
            ".word {l_sz3_25}",
            "lw $2, 0($16)",
            "sltiu $7, $19, {quad_words}",
            ".word {avsz4}",
            "lui $25, {quad_len_hi}",
            "bnez $7, 12f",
            "nop",
            ".word {r_otz}",
            "sw $2, 8($18)",
            ".word {s_sxy0_12}",
            ".word {s_sxy1_16}",
            ".word {s_sxy2_20}",
            link_packet!($t, "6", "2"),
            "move $10, $14",
            "bnez $13, 5b",
            "move $16, $6",
            "b 0f",
            "nop",
            "12:",
            "lui $2, 2",
            "addu $17, $17, $2",
            "move $10, $14",
            "bnez $13, 5b",
            "move $16, $6",
            // ---- the next run: $12 its header (or the end word), $9 past it; $11 moves to the SXY
            // word of its base vertex (16 vertices, 64 bytes, per unit of the header's top byte).
            "0:",
            "xori $5, $12, 3",
            "beqz $5, 9f",
            "srl $13, $12, 2",
            "lw $24, 0($9)",
            "andi $13, $13, 0x3FFF",
            "andi $3, $12, 3",
            "srl $5, $12, 24",
            "sll $5, $5, 6",
            "addu $11, $20, $5",
            "lw $12, 4($9)",
            "addiu $9, $9, 8",
            "beqz $3, 2b",
            "addiu $3, $3, -1",
            "beqz $3, 3b",
            "nop",
            "b 4b",
            "nop",
            "9:",
            ".set pop",
            w_sxy0_4 = const mtc2_from(4, data::SXY0),
            w_sxy1_5 = const mtc2_from(5, data::SXY1),
            w_sxy2_25 = const mtc2_from(25, data::SXY2),
            p_b0 = const lwc2(16, data::SXYP, 0),
            p_t0 = const lwc2(10, data::SXYP, 0),
            p_b = const lwc2(6, data::SXYP, 0),
            p_t = const lwc2(14, data::SXYP, 0),
            l_sz0_7 = const lwc2(7, data::SZ0, 0),
            l_sz1_25 = const lwc2(25, data::SZ1, 0),
            l_sz2_7 = const lwc2(7, data::SZ2, 0),
            l_sz3_25 = const lwc2(25, data::SZ3, 0),
            s_sxy0_12 = const swc2(18, data::SXY0, 12),
            s_sxy1_16 = const swc2(18, data::SXY1, 16),
            s_sxy2_20 = const swc2(18, data::SXY2, 20),
            nclip = const cop2(cmd::NCLIP),
            mac0 = const mfc2(data::MAC0),
            l_sz0_6 = const lwc2(6, data::SZ0, 0),
            l_sz1_7 = const lwc2(7, data::SZ1, 0),
            l_sz1_14 = const lwc2(14, data::SZ1, 0),
            l_sz2_6 = const lwc2(6, data::SZ2, 0),
            l_sz2_14 = const lwc2(14, data::SZ2, 0),
            l_sz3_7 = const lwc2(7, data::SZ3, 0),
            l_sz3_10 = const lwc2(10, data::SZ3, 0),
            avsz3 = const cop2(cmd::AVSZ3),
            avsz4 = const cop2(cmd::AVSZ4),
            r_otz = const mfc2_to(8, data::OTZ),
            r_sxy0_4 = const mfc2_to(4, data::SXY0),
            r_sxy1_5 = const mfc2_to(5, data::SXY1),
            r_sxy2_25 = const mfc2_to(25, data::SXY2),
            s_sxy0_8 = const swc2(18, data::SXY0, 8),
            s_sxy1_12 = const swc2(18, data::SXY1, 12),
            s_sxy2_16 = const swc2(18, data::SXY2, 16),
            s_sxy1_8 = const swc2(18, data::SXY1, 8),
            s_sxy2_12 = const swc2(18, data::SXY2, 12),
            s_sxy0_16 = const swc2(18, data::SXY0, 16),
            tri_words = const FLAT_PACKET_WORDS,
            tri_len_hi = const (FLAT_PACKET_WORDS as u32 - 1) << 8,
            quad_words = const QUAD_PACKET_WORDS,
            quad_len_hi = const (QUAD_PACKET_WORDS as u32 - 1) << 8,
            inout("$9") job.words.as_ptr() => _,
            out("$11") _,
            in("$15") sz_offset,
            inout("$17") 0usize => counts,
            inout("$18") out.arena.as_mut_ptr() => _,
            inout("$19") room => room_left,
            in("$20") job.sxy.as_ptr(),
            in("$21") out.table.as_mut_ptr(),
            in("$22") depth_word!($t, max_depth, job.near),
            out("$2") _,
            out("$3") _,
            out("$4") _,
            out("$5") _,
            out("$6") _,
            out("$7") _,
            out("$8") _,
            out("$10") _,
            out("$12") _,
            out("$13") _,
            out("$14") _,
            out("$16") _,
            out("$23") _,
            out("$24") _,
            out("$25") _,
            options(nostack),
        );
            }
            FlatPackets { drawn: counts & 0xFFFF, rejected: counts >> 16, words: room - room_left }
        }
    };
}

packet_loop!(
    /// `Cop2::flat_packets` without the near and span tests (`job.clip_tests` false).
    flat_packets_untested,
    untested
);

packet_loop!(
    /// `Cop2::flat_packets` with the near and span tests: a front face's depths and points are
    /// checked before its packet, as the definition does (the same rejections, counted alike).
    flat_packets_tested,
    tested
);
