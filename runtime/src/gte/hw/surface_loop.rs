//! `Cop2::surface_runs` on the console: the runs of `render::textured::surface_packets` (its
//! definition) in one asm loop over the primitive stream, in two variants built from one template:
//! textured (POLY_FT3 / FT4, the texel as stored; an untextured material's runs as POLY_F3 / F4)
//! and lit (POLY_GT3 / GT4, each point's light colour; an untextured material's runs as POLY_G3 /
//! G4, its colour times each point's light by the GTE's CC). The walk is `packet_loop`'s (the same stream reads, NCLIP of the facing triangle,
//! AVSZ3 or AVSZ4 of the drawing order's depths, the same ordering-table link); a front face's UV
//! words (and colours) are loaded by `lw` while AVSZ runs, its points stored by `swc2` from the SXY
//! FIFO. No near or span test: the definition runs those itself.
//!
//! CC with LCM zero gives IR = BK, then each channel `RGBC * IR >> 12` saturated to a byte: with BK
//! the material's channels times 32 and RGBC the light, `light * material / 128`, the definition's
//! `render::light::modulate` (tested there on the model). The lit loop so overwrites LCM, BK,
//! RGBC, IR, MAC and the colour FIFO (the light stage loads its own for each character).
//!
//! Registers (both variants):
//!
//! ```text
//! $9   the stream (past the word in $12)      $12  the next stream word     $13  primitives left in the run
//! $11  the SXY address of the run's base vertex                            $15  sz - sxy (bytes)
//! $20  uvs - sxy (bytes; reloaded at each run header)   $2   rgb - sxy (lit; unlit: a temporary)
//! $24  the run's first UV addend (CLUT)       $3   its second (page); the first's low half is the UV offset
//! $25  the parameter block: the SXY array's address, uvs - sxy, then two words a material
//!      (`SurfaceRuns::textures`)
//! $17  triangles drawn (low half) and rejected (high half)
//! $18  the arena's next packet                $19  arena words left         $21  the ordering table
//! $22  the deepest table entry                $23  0x00FFFFFF
//! $14, $6, $7  a triangle's or quad's a, b, c SXY addresses; $10 a quad's d
//! $10, $16  a strip's previous pair (t, b) SXY addresses; $14, $6 its new pair (t', b')
//! $4, $5, $8 (and $10, $16 outside strips, $7 in strips)  temporaries
//! ```
//! An untextured run of the unlit loop has `$24` = [`NO_TEXTURE`] and its GP0 word in `$3`; its
//! front faces branch to their POLY_F3 / F4 sections (labels 16-18). An untextured run of the lit
//! loop has `$24` = [`NO_TEXTURE`] (`$3` unused), BK its colour; its triangles' and quads' front
//! faces branch to their POLY_G3 / G4 sections (labels 16, 17), its
//! strips have their own walk (19-24), where `$24` says whether `$3` and `$20` hold the colours of
//! the last quad's b' and t' (a front quad after a front quad: its b and t, whose depths are then
//! still SZ2 and SZ3).
//!
//! A run the loop leaves to its caller ([`LEFT_TO_CALLER`]) ends it with
//! `$9` past its header, as does the end word: the caller draws that run and calls again after it.

use super::{asm_clobbering, cop2, ctc2_from, lwc2, mfc2_to, mtc2_from, swc2};
use crate::console::prim::{GOURAUD_QUAD, GOURAUD_TRIANGLE, NEUTRAL, TEXTURED_GOURAUD_QUAD, TEXTURED_GOURAUD_TRIANGLE, TEXTURED_QUAD, TEXTURED_TRIANGLE};
use crate::gte::packets::{FlatPackets, PacketList, SurfaceRuns, FLAT_PACKET_WORDS, LEFT_TO_CALLER, NO_TEXTURE, QUAD_PACKET_WORDS};
use crate::gte::regs::{cmd, ctrl, data};

/// Materials the parameter block holds (the definition hands the loop no more).
const MATERIALS: usize = 32;

/// The parameter block's place: the scratchpad (0x1F800000), where the loop's loads of it take a
/// cycle (the renderer's scratchpad contract: nothing is kept there across a `render` call). After
/// the block's words (the SXY array's address, uvs - sxy, two words a material) come the lit strip
/// walk's cache (`strip_walk`) and the saved `$30` and `$31`, at these byte offsets.
const BLOCK: usize = 0x1F80_0000;
const BLOCK_WORDS: usize = 2 + 2 * MATERIALS;
const CACHE_UV_B: usize = 4 * BLOCK_WORDS;
const CACHE_UV_T: usize = CACHE_UV_B + 4;
const CACHE_RGB_B: usize = CACHE_UV_B + 8;
const CACHE_RGB_T: usize = CACHE_UV_B + 12;
const SAVE_30: usize = CACHE_UV_B + 16;
const SAVE_31: usize = CACHE_UV_B + 20;
// Clear of the blend stage's work area (which is done by the time triangles are drawn anyway).
const _: () = assert!(BLOCK + SAVE_31 + 4 <= crate::gte::blend::WORK_AT);

// The run header's base unit is 64 bytes of SXY words; a real first UV addend is non-negative.
const _: () = assert!(crate::tables::primitives::RUN_BASE_UNIT * 4 == 1 << 6);
const _: () = assert!((NO_TEXTURE as i32) == -1 && (LEFT_TO_CALLER as i32) < 0);

/// Links the packet at `$18` (its words `$words`, length bits in `$len`): clamps OTZ (`$8`) to
/// `$22`, takes the entry's link into the header, points the entry at the packet, moves the arena on
/// and counts `$triangles` drawn. Clobbers `$4`, `$5`, `$8`.
macro_rules! link {
    ($words:literal, $triangles:literal, $len:literal) => {
        concat!(
            "sltu $5, $22, $8\n",
            "beqz $5, 1f\n",
            "sll $8, $8, 2\n",
            "sll $8, $22, 2\n",
            "1:\n",
            "addu $8, $8, $21\n",
            "lw $5, 0($8)\n",
            "and $4, $18, $23\n",
            "addiu $17, $17, ", $triangles, "\n",
            "addiu $19, $19, -", $words, "\n",
            "and $5, $5, $23\n",
            "or $5, $5, ", $len, "\n",
            "sw $5, 0($18)\n",
            "sw $4, 0($8)\n",
            "addiu $18, $18, 4 * ", $words, "\n",
        )
    };
}

/// Loads the facing triangle of a triangle or quad word (`$12`): its SXY addresses into `$14`, `$6`,
/// `$7`, its SXY words by `lw` into SXY0..2, counts the primitive off `$13`, moves `$9` on by
/// `$stride` bytes and starts NCLIP.
macro_rules! load_facing {
    ($stride:literal) => {
        concat!(
            "andi $14, $12, 0xFFC\n",
            "srl $6, $12, 10\n",
            "addu $14, $14, $11\n",
            "lw $4, 0($14)\n",
            "andi $6, $6, 0xFFC\n",
            "srl $7, $12, 20\n",
            "andi $7, $7, 0xFFC\n",
            "addu $6, $6, $11\n",
            "lw $5, 0($6)\n",
            "addu $7, $7, $11\n",
            ".word {w_sxy0_4}\n",
            "lw $8, 0($7)\n",
            ".word {w_sxy1_5}\n",
            "addiu $13, $13, -1\n",
            ".word {w_sxy2_8}\n",
            "addiu $9, $9, ", $stride, "\n",
            "nop\n",
            ".word {nclip}\n",
        )
    };
}

/// A front triangle's command and colours, its points' SXY addresses in `$14`, `$6`, `$7`. Lit:
/// each point's colour (24 bits) before its point, the command in the first's top byte. Unlit: the
/// command with the neutral colour. Clobbers `$4`, `$5`, `$10`, `$16`.
macro_rules! triangle_colours {
    (unlit) => {
        concat!("lui $5, {cmd3}\n", "ori $5, $5, {neutral}\n", "sw $5, 4($18)\n")
    };
    (lit) => {
        concat!(
            "addu $10, $14, $2\n",
            "addu $16, $6, $2\n",
            "lw $10, 0($10)\n",
            "addu $4, $7, $2\n",
            "lw $16, 0($16)\n",
            "lw $4, 0($4)\n",
            "and $10, $10, $23\n",
            "lui $5, {cmd3}\n",
            "or $10, $10, $5\n",
            "sw $10, 4($18)\n",
            "and $16, $16, $23\n",
            "sw $16, 16($18)\n",
            "and $4, $4, $23\n",
            "sw $4, 28($18)\n",
            "# {neutral}\n",
        )
    };
}

/// A front quad's command and colours, its drawn points' SXY addresses in `$6`, `$7`, `$14`, `$10`
/// (b, c, a, d). Clobbers `$4`, `$5`, `$8`, `$10`, `$14`.
macro_rules! quad_colours {
    (unlit) => {
        concat!("lui $5, {cmd4}\n", "ori $5, $5, {neutral}\n", "sw $5, 4($18)\n")
    };
    (lit) => {
        concat!(
            "addu $4, $6, $2\n",
            "addu $5, $7, $2\n",
            "lw $4, 0($4)\n",
            "addu $8, $14, $2\n",
            "lw $5, 0($5)\n",
            "addu $10, $10, $2\n",
            "lw $8, 0($8)\n",
            "lw $10, 0($10)\n",
            "and $4, $4, $23\n",
            "lui $14, {cmd4}\n",
            "or $4, $4, $14\n",
            "sw $4, 4($18)\n",
            "and $5, $5, $23\n",
            "sw $5, 16($18)\n",
            "and $8, $8, $23\n",
            "sw $8, 28($18)\n",
            "and $10, $10, $23\n",
            "sw $10, 40($18)\n",
        )
    };
}

/// The branch from a front face's first instruction to its untextured section (lit: POLY_G3 / G4,
/// unlit: POLY_F3 / F4) when the run's first UV addend (`$24`) is [`NO_TEXTURE`]; the section's
/// first instruction is the branch's delay slot.
macro_rules! to_gouraud {
    ($v:tt, $label:literal) => {
        concat!("bltz $24, ", $label, "\n")
    };
}

/// The lit loop's dispatch of an untextured run's strip (`$24` negative) to its own walk (`19:`).
macro_rules! gouraud_strip {
    (unlit) => {
        ""
    };
    (lit) => {
        "bltz $24, 19f\nnop\n"
    };
}

/// The lit loop's set-up: LCM zero, so that CC's first step gives IR = BK, the run's material colour
/// times 32. (The unlit loop names the operands in a comment.)
macro_rules! gouraud_setup {
    (unlit) => {
        "# {z_lcm0} {z_lcm1} {z_lcm2} {z_lcm3} {z_lcm4} {w_rbk} {w_gbk} {w_bbk} {cc} {g3} {g4} {gtw} {gqw} {gtlen} {gqlen}\n"
    };
    (lit) => {
        concat!(".word {z_lcm0}\n", ".word {z_lcm1}\n", ".word {z_lcm2}\n", ".word {z_lcm3}\n", ".word {z_lcm4}\n")
    };
}

/// A run header whose first UV addend (`$24`) is negative. [`NO_TEXTURE`], lit: BK = the run's
/// GP0 colour (its word at `$9`), each channel times 32; unlit: `$3` = that GP0 word; then back to
/// the header's decoding (`14:`). Otherwise the loop ends (`9:`, which follows).
macro_rules! untextured_run {
    (unlit) => {
        concat!("addiu $5, $24, 1\n", "bnez $5, 9f\n", "nop\n", "lw $3, 0($9)\n", "b 14b\n", "nop\n")
    };
    (lit) => {
        concat!(
            "addiu $5, $24, 1\n",
            "bnez $5, 9f\n",
            "lw $5, 0($9)\n",
            "nop\n",
            "andi $7, $5, 0xFF\n",
            "sll $7, $7, 5\n",
            ".word {w_rbk}\n",
            "srl $7, $5, 8\n",
            "andi $7, $7, 0xFF\n",
            "sll $7, $7, 5\n",
            ".word {w_gbk}\n",
            "srl $7, $5, 16\n",
            "andi $7, $7, 0xFF\n",
            "sll $7, $7, 5\n",
            ".word {w_bbk}\n",
            "b 14b\n",
            "nop\n",
        )
    };
}

/// The colours of a front untextured face, its points' lights in `$3`, `$4`, `$5` (and `$7`: a
/// quad), its AVSZ running: per point RGBC = the light, CC, the colour (24 bits) before its point,
/// the command in the first's top byte; while the CCs run, the ordering-table link (OTZ into `$10`,
/// clamped to `$22`) and the counts. Clobbers `$3`, `$4`, `$8`, `$10`, `$16`.
macro_rules! gouraud_chain {
    (3) => {
        concat!(
            ".word {w_rgbc_3}\n",
            ".word {r_otz_10}\n",
            "lui $16, {g3}\n",
            ".word {cc}\n",
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_4}\n",
            "and $3, $3, $23\n",
            "or $3, $3, $16\n",
            ".word {cc}\n",
            "sw $3, 4($18)\n",
            gouraud_chain!(link),
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_5}\n",
            "and $3, $3, $23\n",
            "sw $3, 12($18)\n",
            ".word {cc}\n",
            "and $8, $8, $23\n",
            "lui $4, {gtlen}\n",
            "or $8, $8, $4\n",
            "sw $8, 0($18)\n",
            "and $4, $18, $23\n",
            "sw $4, 0($10)\n",
            "addiu $17, $17, 1\n",
            "addiu $19, $19, -{gtw}\n",
            ".word {r_rgb_3}\n",
            "nop\n",
            "and $3, $3, $23\n",
            "sw $3, 20($18)\n",
            "addiu $18, $18, 4 * {gtw}\n",
        )
    };
    (4) => {
        concat!(
            ".word {w_rgbc_3}\n",
            ".word {r_otz_10}\n",
            "lui $16, {g4}\n",
            ".word {cc}\n",
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_4}\n",
            "and $3, $3, $23\n",
            "or $3, $3, $16\n",
            ".word {cc}\n",
            "sw $3, 4($18)\n",
            gouraud_chain!(link),
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_5}\n",
            "and $3, $3, $23\n",
            "sw $3, 12($18)\n",
            ".word {cc}\n",
            "and $8, $8, $23\n",
            "lui $4, {gqlen}\n",
            "or $8, $8, $4\n",
            "sw $8, 0($18)\n",
            "and $4, $18, $23\n",
            "sw $4, 0($10)\n",
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_7}\n",
            "and $3, $3, $23\n",
            "sw $3, 20($18)\n",
            ".word {cc}\n",
            "addiu $17, $17, 2\n",
            "addiu $19, $19, -{gqw}\n",
            ".word {r_rgb_3}\n",
            "nop\n",
            "and $3, $3, $23\n",
            "sw $3, 28($18)\n",
            "addiu $18, $18, 4 * {gqw}\n",
        )
    };
    // OTZ ($10) clamped to the deepest entry, the entry's address into $10 and its link into $8.
    (link) => {
        concat!(
            "sltu $8, $22, $10\n",
            "beqz $8, 1f\n",
            "sll $10, $10, 2\n",
            "sll $10, $22, 2\n",
            "1:\n",
            "addu $10, $10, $21\n",
            "lw $8, 0($10)\n",
        )
    };
}

/// The lit loop's untextured sections (POLY_G3 / G4), entered from a front face with its first
/// instruction done in the branch's delay slot: the depths by `lwc2` between the addresses' sums,
/// the lights by `lw` while AVSZ runs, the points from the SXY FIFO, then [`gouraud_chain`].
macro_rules! gouraud_sections {
    (unlit) => {
        concat!(
            "# {w_rgbc_3} {w_rgbc_4} {w_rgbc_5} {w_rgbc_7} {w_rgbc_20} {l_sz0_7} {l_sz1_8} {r_sz2_7} {r_sz3_8} {w_sz0_7} {w_sz1_8} {r_otz_10} {r_rgb_3} {r_rgb_20} {g_t0} {g_t1} {g_t2} {g_qb} {g_qc} {g_qa} {g_st} {g_sb1} {g_st1}\n",
            // A flat triangle (the run's GP0 word in $3): a, b, c at $14, $6, $7; $4 is a's SZ address.
            "16:\n",
            "addu $5, $6, $15\n",
            ".word {l_sz1_4}\n",
            "addu $8, $7, $15\n",
            ".word {l_sz2_5}\n",
            "sltiu $5, $19, {ftw}\n",
            ".word {l_sz3_8}\n",
            "bnez $5, 10b\n",
            "nop\n",
            ".word {avsz3}\n",
            "sw $3, 4($18)\n",
            ".word {r_otz}\n",
            ".word {f_t0}\n",
            ".word {f_t1}\n",
            ".word {f_t2}\n",
            "lui $10, {ftlen}\n",
            link!("{ftw}", "1", "$10"),
            "bnez $13, 2b\n",
            "nop\n",
            "b 0b\n",
            "nop\n",
            // A flat quad, drawn b, c, a, d ($6, $7, $14, the d word in $10 when read).
            "17:\n",
            "addu $4, $6, $15\n",
            "addu $5, $7, $15\n",
            "addu $10, $10, $11\n",
            ".word {l_sz0_4}\n",
            "addu $8, $14, $15\n",
            ".word {l_sz1_5}\n",
            "addu $16, $10, $15\n",
            ".word {l_sz2_8}\n",
            "sltiu $5, $19, {fqw}\n",
            ".word {l_sz3_16}\n",
            "lw $16, 0($10)\n",
            "bnez $5, 11b\n",
            "nop\n",
            ".word {avsz4}\n",
            "sw $3, 4($18)\n",
            "sw $16, 20($18)\n",
            ".word {r_otz}\n",
            ".word {f_qb}\n",
            ".word {f_qc}\n",
            ".word {f_qa}\n",
            "lui $10, {fqlen}\n",
            link!("{fqw}", "2", "$10"),
            "bnez $13, 3b\n",
            "nop\n",
            "b 0b\n",
            "nop\n",
            // A flat strip quad, drawn b, t, b', t' ($16, $10, $6, $14); $4 is b's SZ address.
            "18:\n",
            "addu $5, $10, $15\n",
            ".word {l_sz0_4}\n",
            "addu $7, $6, $15\n",
            ".word {l_sz1_5}\n",
            "addu $8, $14, $15\n",
            ".word {l_sz2_7}\n",
            "sltiu $5, $19, {fqw}\n",
            ".word {l_sz3_8}\n",
            "lw $7, 0($16)\n",
            "bnez $5, 12b\n",
            "nop\n",
            ".word {avsz4}\n",
            "sw $3, 4($18)\n",
            "sw $7, 8($18)\n",
            ".word {r_otz}\n",
            ".word {f_st}\n",
            ".word {f_sb1}\n",
            ".word {f_st1}\n",
            "lui $7, {fqlen}\n",
            link!("{fqw}", "2", "$7"),
            strip_next!(),
            "b 0b\n",
            "nop\n",
        )
    };
    (lit) => {
        concat!(
            "# {f_t0} {f_t1} {f_t2} {f_qb} {f_qc} {f_qa} {f_st} {f_sb1} {f_st1} {ftw} {fqw} {ftlen} {fqlen}\n",
            // A triangle: a, b, c at $14, $6, $7; $4 is a's SZ address.
            "16:\n",
            "addu $5, $6, $15\n",
            ".word {l_sz1_4}\n",
            "addu $8, $7, $15\n",
            "addu $3, $14, $2\n",
            ".word {l_sz2_5}\n",
            "addu $4, $6, $2\n",
            "addu $5, $7, $2\n",
            ".word {l_sz3_8}\n",
            "lw $3, 0($3)\n",
            "sltiu $8, $19, {gtw}\n",
            ".word {avsz3}\n",
            "bnez $8, 10b\n",
            "lw $4, 0($4)\n",
            "lw $5, 0($5)\n",
            ".word {g_t0}\n",
            ".word {g_t1}\n",
            ".word {g_t2}\n",
            gouraud_chain!(3),
            "bnez $13, 2b\n",
            "nop\n",
            "b 0b\n",
            "nop\n",
            // A quad, drawn b, c, a, d ($6, $7, $14, the d word in $10 when read).
            "17:\n",
            "addu $4, $6, $15\n",
            "addu $5, $7, $15\n",
            "addu $10, $10, $11\n",
            ".word {l_sz0_4}\n",
            "addu $8, $14, $15\n",
            "addu $3, $6, $2\n",
            ".word {l_sz1_5}\n",
            "addu $16, $10, $15\n",
            "addu $4, $7, $2\n",
            ".word {l_sz2_8}\n",
            "addu $5, $14, $2\n",
            "addu $7, $10, $2\n",
            ".word {l_sz3_16}\n",
            "lw $3, 0($3)\n",
            "lw $16, 0($10)\n",
            ".word {avsz4}\n",
            "sltiu $8, $19, {gqw}\n",
            "bnez $8, 11b\n",
            "lw $4, 0($4)\n",
            "lw $5, 0($5)\n",
            "lw $7, 0($7)\n",
            ".word {g_qb}\n",
            ".word {g_qc}\n",
            ".word {g_qa}\n",
            "sw $16, 32($18)\n",
            gouraud_chain!(4),
            "bnez $13, 3b\n",
            "nop\n",
            "b 0b\n",
            "nop\n",
            // ---- an untextured strip: the textured loop's walk, and each front quad's first two
            // points' colours are the previous quad's last two when it was a front face too
            // ($24 = 1: in $3 and $20), else made by CC; $24 = 0 otherwise.
            strip_start!("19"),
            "move $24, $0\n",
            strip_facing!("20"),
            // The front quad's first sums fill the load and branch delays (unused by a back face).
            "addu $4, $6, $2\n",
            "bltz $8, 21f\n",
            "addu $5, $14, $2\n",
            "move $24, $0\n",
            "move $10, $14\n",
            "bnez $13, 20b\n",
            "move $16, $6\n",
            "b 0b\n",
            "nop\n",
            // A front quad, drawn b, t, b', t' ($16, $10, $6, $14): SZ0..3, AVSZ4, the lights of
            // b' and t' ($4, $5: their addresses) while it runs.
            "21:\n",
            "bnez $24, 24f\n",
            "addu $7, $16, $15\n",
            // Not cached: all four depths from memory, b's and t's colours by CC into $3 and $20.
            "addu $8, $10, $15\n",
            ".word {l_sz0_7}\n",
            "addu $3, $16, $2\n",
            "addu $20, $10, $2\n",
            ".word {l_sz1_8}\n",
            "addu $7, $6, $15\n",
            "addu $8, $14, $15\n",
            ".word {l_sz2_7}\n",
            "sltiu $7, $19, {gqw}\n",
            ".word {l_sz3_8}\n",
            "lw $3, 0($3)\n",
            "lw $20, 0($20)\n",
            ".word {avsz4}\n",
            "bnez $7, 22f\n",
            "lw $4, 0($4)\n",
            "lw $5, 0($5)\n",
            "lw $8, 0($16)\n",
            ".word {w_rgbc_3}\n",
            "nop\n",
            "nop\n",
            ".word {cc}\n",
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_20}\n",
            "nop\n",
            "and $3, $3, $23\n",
            ".word {cc}\n",
            ".word {r_rgb_20}\n",
            "b 23f\n",
            "and $20, $20, $23\n",
            // Cached: b's and t's depths are the last quad's b' and t' (SZ2, SZ3 into SZ0, SZ1).
            "24:\n",
            ".word {r_sz2_7}\n",
            ".word {r_sz3_8}\n",
            "lw $4, 0($4)\n",
            ".word {w_sz0_7}\n",
            ".word {w_sz1_8}\n",
            "addu $7, $6, $15\n",
            "addu $8, $14, $15\n",
            ".word {l_sz2_7}\n",
            "lw $5, 0($5)\n",
            ".word {l_sz3_8}\n",
            "sltiu $7, $19, {gqw}\n",
            "lw $8, 0($16)\n",
            ".word {avsz4}\n",
            "bnez $7, 22f\n",
            "nop\n",
            "23:\n",
            ".word {w_rgbc_4}\n",
            ".word {g_st}\n",
            ".word {g_sb1}\n",
            ".word {g_st1}\n",
            ".word {r_otz_10}\n",
            ".word {cc}\n",
            "sw $8, 8($18)\n",
            "lui $7, {g4}\n",
            "or $7, $7, $3\n",
            "sw $7, 4($18)\n",
            "sw $20, 12($18)\n",
            gouraud_chain!(link),
            ".word {r_rgb_3}\n",
            ".word {w_rgbc_5}\n",
            "and $3, $3, $23\n",
            "sw $3, 20($18)\n",
            ".word {cc}\n",
            "and $8, $8, $23\n",
            "lui $4, {gqlen}\n",
            "or $8, $8, $4\n",
            "sw $8, 0($18)\n",
            "and $4, $18, $23\n",
            "sw $4, 0($10)\n",
            "addiu $17, $17, 2\n",
            "addiu $19, $19, -{gqw}\n",
            ".word {r_rgb_20}\n",
            "li $24, 1\n",
            "and $20, $20, $23\n",
            "sw $20, 28($18)\n",
            "addiu $18, $18, 4 * {gqw}\n",
            "move $10, $14\n",
            "bnez $13, 20b\n",
            "move $16, $6\n",
            "b 0b\n",
            "nop\n",
            "22:\n",
            "lui $5, 2\n",
            "addu $17, $17, $5\n",
            "move $24, $0\n",
            "move $10, $14\n",
            "bnez $13, 20b\n",
            "move $16, $6\n",
            "b 0b\n",
            "nop\n",
        )
    };
}

/// A strip quad's end: its new pair (`$14`, `$6`) becomes the next quad's previous one (`$10`, `$16`),
/// on to the next quad (`5:`) while the run has one; falls through after the last.
macro_rules! strip_next {
    () => {
        concat!("move $10, $14\n", "bnez $13, 5b\n", "move $16, $6\n")
    };
}

/// A strip's start (`4:`): its first pair (t, b) from `$12` pushed into the SXY FIFO, their SXY
/// addresses in `$10` and `$16`, the first quad's word into `$12`.
macro_rules! strip_start {
    ($label:literal) => {
        concat!(
            $label, ":\n",
            "andi $10, $12, 0xFFFF\n",
            "srl $16, $12, 16\n",
            "addu $16, $16, $11\n",
            ".word {p_b0}\n",
            "addu $10, $10, $11\n",
            ".word {p_t0}\n",
            "lw $12, 0($9)\n",
            "addiu $9, $9, 4\n",
        )
    };
}

/// A strip quad's facing test (`5:`): its new pair (t', b') from `$12`, their SXY addresses in `$14`
/// and `$6` and their SXY words (`$5`, `$4`) pushed, NCLIP of (t, b', t'), the next word into `$12`
/// and MAC0 into `$8` (its load delay the caller's).
macro_rules! strip_facing {
    ($label:literal) => {
        concat!(
            $label, ":\n",
            "andi $14, $12, 0xFFFF\n",
            "srl $6, $12, 16\n",
            "addu $6, $6, $11\n",
            "lw $4, 0($6)\n",
            "addu $14, $14, $11\n",
            "lw $5, 0($14)\n",
            ".word {w_sxyp_4}\n",
            ".word {w_sxyp_5}\n",
            "addiu $13, $13, -1\n",
            "addiu $9, $9, 4\n",
            ".word {nclip}\n",
            "lw $12, -4($9)\n",
            ".word {mac0}\n",
        )
    };
}

/// A front strip quad's end, its words written and AVSZ4 run: its last three points from the SXY
/// FIFO, the link, the next quad (`5:`) or run (`0:`); `12:` counts a quad the arena had no room for.
macro_rules! strip_quad_tail {
    () => {
        concat!(
            ".word {r_otz}\n",
            ".word {s_s_t}\n",
            ".word {s_s_b1}\n",
            ".word {s_s_t1}\n",
            "lui $7, {qlen}\n",
            link!("{qw}", "2", "$7"),
            strip_next!(),
            "b 0f\n",
            "nop\n",
            "12:\n",
            "lui $5, 2\n",
            "addu $17, $17, $5\n",
            strip_next!(),
        )
    };
}

/// A strip run's walk, entered at `4:` with `$12` its first pair (t, b) and `$9` past it; it falls
/// through to the next run's header (`0:`) when its quads are done.
///
/// Unlit: each quad pushes its new pair (b', t') into the SXY FIFO, which then holds its facing
/// triangle (t, b', t'); the previous pair's SXY addresses stay in `$10` (t) and `$16` (b).
///
/// Lit (textured runs: POLY_GT4): the same walk, and the words a front quad's b' and t' give the
/// next quad's b and t carried over: b's SXY word in `$31` (every quad: the delay slots of the
/// facing test), and after a front quad its b' and t' UV words (with their addends) and colours in
/// the scratchpad's cache words, their depths in SZ2 and SZ3, and `$30` = the stream position at
/// which the next quad finds them (`$9` there). A front quad after a front quad so loads two depths,
/// two UV words and two colours from main RAM instead of four, and its b's SXY word never: a load
/// from main RAM takes about 6 cycles, one from the scratchpad 1. The colours are stored as the
/// light stage wrote them (`Scratch::rgb`: top byte zero).
macro_rules! strip_walk {
    (unlit) => {
        concat!(
            // ---- a strip: $12 its first pair (t, b), $9 past it. Each quad pushes its new
            // pair (b', t') into the SXY FIFO, which then holds its facing triangle (t, b',
            // t'); the previous pair's SXY addresses stay in $10 (t) and $16 (b).
            strip_start!("4"),
            // Quad k: $12 the pair (t', b') that ends it.
            // (The new pair by `lw` and `mtc2` to SXYP, which pushes as `lwc2` does: the
            // instructions after each load overlap it.)
            strip_facing!("5"),
            "nop\n",
            "bltz $8, 8f\n",
            "nop\n",
            strip_next!(),
            "b 0f\n",
            "nop\n",
            // A front-facing strip quad, drawn b, t, b', t': SZ0..3 in that order, AVSZ4; b's
            // SXY from memory (the FIFO has moved past it), t, b', t' from SXY0..2.
            "8:\n",
            // A flat (untextured) run's quad to its section (`18:`), its first instruction in the
            // branch's delay slot; else the textured quad's depths, AVSZ4, UV words, command (the
            // neutral colour) and first point.
            "bltz $24, 18f\n",
            "addu $4, $16, $15\n",
            "addu $5, $10, $15\n",
            ".word {l_sz0_4}\n",
            "addu $7, $6, $15\n",
            ".word {l_sz1_5}\n",
            "addu $8, $14, $15\n",
            ".word {l_sz2_7}\n",
            "addu $4, $16, $20\n",
            ".word {l_sz3_8}\n",
            "addu $5, $10, $20\n",
            "sltiu $8, $19, {qw}\n",
            ".word {avsz4}\n",
            "bnez $8, 12f\n",
            "addu $7, $6, $20\n",
            "lw $4, 0($4)\n",
            "lw $5, 0($5)\n",
            "lw $7, 0($7)\n",
            "addu $4, $4, $24\n",
            "sw $4, {qu0}($18)\n",
            "addu $8, $14, $20\n",
            "lw $8, 0($8)\n",
            "addu $5, $5, $3\n",
            "sw $5, {qu1}($18)\n",
            "addu $7, $7, $24\n",
            "andi $7, $7, 0xFFFF\n",
            "sw $7, {qu2}($18)\n",
            "addu $8, $8, $24\n",
            "andi $8, $8, 0xFFFF\n",
            "sw $8, {qu3}($18)\n",
            "lw $4, 0($16)\n",
            "lui $5, {cmd4}\n",
            "ori $5, $5, {neutral}\n",
            "sw $5, 4($18)\n",
            "sw $4, 8($18)\n",
            strip_quad_tail!(),
        )
    };
    (lit) => {
        concat!(
            strip_start!("4"),
            ".word {r_sxy1_31}\n",
            // Quad k: $12 the pair (t', b') that ends it, $31 b's SXY word.
            strip_facing!("5"),
            "move $7, $31\n",
            "bltz $8, 8f\n",
            "move $31, $4\n",
            strip_next!(),
            "b 0f\n",
            "nop\n",
            // A front quad, drawn b, t, b', t' ($16, $10, $6, $14), b's SXY word in $7.
            "8:\n",
            "bne $30, $9, 25f\n",
            "addu $5, $6, $15\n",
            // After a front quad: b's and t's depths from SZ2 and SZ3, their words from the cache.
            ".word {r_sz2_4}\n",
            ".word {r_sz3_8}\n",
            ".word {w_sz0_4}\n",
            ".word {w_sz1_8}\n",
            "addu $4, $14, $15\n",
            ".word {l_sz2_5}\n",
            ".word {l_sz3_4}\n",
            "sltiu $4, $19, {qw}\n",
            "bnez $4, 12f\n",
            "lw $4, {cache_uv_b}($25)\n",
            ".word {avsz4}\n",
            "lw $5, {cache_uv_t}($25)\n",
            "sw $7, 8($18)\n",
            "sw $4, {qu0}($18)\n",
            "lw $4, {cache_rgb_b}($25)\n",
            "sw $5, {qu1}($18)\n",
            "lw $5, {cache_rgb_t}($25)\n",
            "sw $4, 4($18)\n",
            "b 26f\n",
            "sw $5, 16($18)\n",
            // Otherwise all four depths, and b's and t's UV words and colours, from main RAM.
            "25:\n",
            "addu $4, $16, $15\n",
            "addu $8, $10, $15\n",
            ".word {l_sz0_4}\n",
            "addu $4, $14, $15\n",
            ".word {l_sz1_8}\n",
            "addu $8, $16, $20\n",
            ".word {l_sz2_5}\n",
            "addu $5, $10, $20\n",
            ".word {l_sz3_4}\n",
            "sltiu $4, $19, {qw}\n",
            "bnez $4, 12f\n",
            "lw $8, 0($8)\n",
            ".word {avsz4}\n",
            "lw $5, 0($5)\n",
            "addu $4, $16, $2\n",
            "lw $4, 0($4)\n",
            "addu $8, $8, $24\n",
            "sw $8, {qu0}($18)\n",
            "addu $8, $10, $2\n",
            "lw $8, 0($8)\n",
            "addu $5, $5, $3\n",
            "sw $5, {qu1}($18)\n",
            "lui $5, {cmd4}\n",
            "or $4, $4, $5\n",
            "sw $4, 4($18)\n",
            "sw $7, 8($18)\n",
            "sw $8, 16($18)\n",
            // b' and t': their words into the packet and the cache, for the next quad's b and t.
            "26:\n",
            "addu $4, $6, $20\n",
            "lw $4, 0($4)\n",
            "addu $5, $14, $20\n",
            "lw $5, 0($5)\n",
            "addu $7, $6, $2\n",
            "lw $7, 0($7)\n",
            "addu $4, $4, $24\n",
            "sw $4, {cache_uv_b}($25)\n",
            "andi $4, $4, 0xFFFF\n",
            "sw $4, {qu2}($18)\n",
            "addu $8, $14, $2\n",
            "lw $8, 0($8)\n",
            "addu $4, $5, $3\n",
            "sw $4, {cache_uv_t}($25)\n",
            "addu $5, $5, $24\n",
            "andi $5, $5, 0xFFFF\n",
            "sw $5, {qu3}($18)\n",
            "sw $7, 28($18)\n",
            "lui $4, {cmd4}\n",
            "or $7, $7, $4\n",
            "sw $7, {cache_rgb_b}($25)\n",
            "sw $8, 40($18)\n",
            "sw $8, {cache_rgb_t}($25)\n",
            "addiu $30, $9, 4\n",
            strip_quad_tail!(),
        )
    };
}

/// The lit loop keeps two words in `$30` and `$31` (the strip walk's carried values), which the
/// compiler reserves: saved in the scratchpad on entry, restored on the way out (`$30` starts 0: no
/// quad finds the cache filled). The unlit loop names the operands in a comment.
macro_rules! carried_registers {
    (unlit, enter) => {
        "# {save_30} {save_31} {r_sxy1_31} {r_sz2_4} {w_sz0_4} {l_sz3_4} {cache_uv_b} {cache_uv_t} {cache_rgb_b} {cache_rgb_t}\n"
    };
    (unlit, leave) => {
        ""
    };
    (lit, enter) => {
        concat!("sw $30, {save_30}($25)\n", "sw $31, {save_31}($25)\n", "move $30, $0\n")
    };
    (lit, leave) => {
        concat!("lw $30, {save_30}($25)\n", "lw $31, {save_31}($25)\n", "nop\n")
    };
}

/// One variant of the loop (`$v`: `lit` or `unlit`) and its packets: `$tw` / `$qw` the words of a
/// triangle's / quad's packet (header included), `$tri_uv` the byte offsets of a triangle's three UV
/// words and `$tri_xy` of its second and third points (the first's is 8), `$quad_uv` and `$quad_xy`
/// likewise for a quad's four points, `$cmd3` / `$cmd4` the command words' high halves.
macro_rules! surface_loop {
    ($(#[$doc:meta])* $name:ident, $v:tt, $tw:expr, $qw:expr, $tri_uv:expr, $tri_xy:expr, $quad_uv:expr, $quad_xy:expr, $cmd3:expr, $cmd4:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As `Cop2::surface_runs`.
        pub(super) unsafe fn $name(job: &SurfaceRuns, at: usize, out: &mut PacketList, done: &mut FlatPackets) -> usize {
            let Some(max_depth) = out.deepest() else {
                return at;
            };
            if job.textures.len() > MATERIALS || at >= job.words.len() {
                return at;
            }
            let base = job.sxy.as_ptr() as usize;
            let uv_offset = (job.uvs.as_ptr() as usize).wrapping_sub(base);
            // SAFETY: the scratchpad is 1 KiB of always-mapped RAM, 4-aligned; the renderer keeps
            // nothing there while the triangles are drawn, and the block lies in its first 264 bytes.
            let block = unsafe { core::slice::from_raw_parts_mut(BLOCK as *mut u32, BLOCK_WORDS) };
            block[0] = base as u32;
            block[1] = uv_offset as u32;
            for (m, t) in job.textures.iter().enumerate() {
                block[2 + 2 * m] = t[0];
                block[3 + 2 * m] = t[1];
            }
            let rgb_offset = job.rgb.map_or(0, |r| (r.as_ptr() as usize).wrapping_sub(base));
            let room = out.arena.len() - done.words;
            let (room_left, counts, end): (usize, usize, usize);
            const TRI_UV: [i16; 3] = $tri_uv;
            const TRI_XY: [i16; 2] = $tri_xy;
            const QUAD_UV: [i16; 4] = $quad_uv;
            const QUAD_XY: [i16; 3] = $quad_xy;
            // SAFETY: reads the stream's words from `at` up to its end word or the first run left
            // to the caller (every read, the look-ahead included, is at or before the end word: a
            // checked stream ends with it and every run's body is whole), by the caller's contract
            // words of `sxy`, `sz`, `uvs` and `rgb`, `block`, entries of `table` up to
            // `max_depth`, and writes packets into the arena's free part only while `$19` counts
            // enough words left. Hazards: no register loaded by lw/mfc2 is used by the next
            // instruction; two instructions separate each mtc2/lwc2 from the command that reads
            // it; mfc2 and swc2 wait for the command (interlocked).
            unsafe {
                asm_clobbering!(
                    ["$3", "$4", "$5", "$6", "$7", "$8", "$10", "$11", "$12", "$13", "$14", "$16", "$23", "$24"],
                    ".set push",
                    ".set noreorder",
                    "lui $23, 0x00FF",
                    "ori $23, $23, 0xFFFF",
                    carried_registers!($v, enter),
                    gouraud_setup!($v),
                    "lw $12, 0($9)",
                    "b 0f",
                    "addiu $9, $9, 4",
                    // ---- a triangle run: $12 the triangle's word, $9 past it.
                    "2:",
                    load_facing!("4"),
                    "lw $12, -4($9)",
                    ".word {mac0}",
                    "nop",
                    "bltz $8, 6f",
                    "nop",
                    "bnez $13, 2b",
                    "nop",
                    "b 0f",
                    "nop",
                    // A front-facing triangle: SZ1..3, AVSZ3; UVs (and colours) while it runs.
                    "6:",
                    to_gouraud!($v, "16f"),
                    "addu $4, $14, $15",
                    "addu $5, $6, $15",
                    ".word {l_sz1_4}",
                    "addu $8, $7, $15",
                    ".word {l_sz2_5}",
                    "addu $10, $14, $20",
                    ".word {l_sz3_8}",
                    "addu $16, $6, $20",
                    "sltiu $5, $19, {tw}",
                    ".word {avsz3}",
                    "bnez $5, 10f",
                    "addu $4, $7, $20",
                    "lw $10, 0($10)",
                    "lw $16, 0($16)",
                    "lw $4, 0($4)",
                    "addu $10, $10, $24",
                    "sw $10, {tu0}($18)",
                    "addu $16, $16, $3",
                    "sw $16, {tu1}($18)",
                    "addu $4, $4, $24",
                    "andi $4, $4, 0xFFFF",
                    "sw $4, {tu2}($18)",
                    triangle_colours!($v),
                    ".word {r_otz}",
                    ".word {s_t0}",
                    ".word {s_t1}",
                    ".word {s_t2}",
                    "lui $10, {tlen}",
                    link!("{tw}", "1", "$10"),
                    "bnez $13, 2b",
                    "nop",
                    "b 0f",
                    "nop",
                    "10:",
                    "lui $5, 1",
                    "addu $17, $17, $5",
                    "bnez $13, 2b",
                    "nop",
                    "b 0f",
                    "nop",
                    // ---- a quad run: $12 the quad's first word, $9 past it (at its d word).
                    "3:",
                    load_facing!("8"),
                    "lw $12, -4($9)",
                    ".word {mac0}",
                    "nop",
                    "bltz $8, 7f",
                    "nop",
                    "bnez $13, 3b",
                    "nop",
                    "b 0f",
                    "nop",
                    // A front-facing quad (a, b, c) + (a, c, d), drawn b, c, a, d: SZ0..3 in that
                    // order, AVSZ4.
                    "7:",
                    to_gouraud!($v, "17f"),
                    "lw $10, -8($9)",
                    "addu $4, $6, $15",
                    "addu $5, $7, $15",
                    "addu $10, $10, $11",
                    ".word {l_sz0_4}",
                    "addu $8, $14, $15",
                    ".word {l_sz1_5}",
                    "addu $16, $10, $15",
                    ".word {l_sz2_8}",
                    "addu $4, $6, $20",
                    ".word {l_sz3_16}",
                    "addu $5, $7, $20",
                    "sltiu $8, $19, {qw}",
                    ".word {avsz4}",
                    "bnez $8, 11f",
                    "addu $16, $14, $20",
                    "lw $4, 0($4)",
                    "lw $5, 0($5)",
                    "lw $16, 0($16)",
                    "addu $4, $4, $24",
                    "sw $4, {qu0}($18)",
                    "addu $8, $10, $20",
                    "lw $8, 0($8)",
                    "addu $5, $5, $3",
                    "sw $5, {qu1}($18)",
                    "addu $16, $16, $24",
                    "andi $16, $16, 0xFFFF",
                    "sw $16, {qu2}($18)",
                    "addu $8, $8, $24",
                    "andi $8, $8, 0xFFFF",
                    "sw $8, {qu3}($18)",
                    "lw $16, 0($10)",
                    quad_colours!($v),
                    "sw $16, {qx3}($18)",
                    ".word {r_otz}",
                    ".word {s_q_b}",
                    ".word {s_q_c}",
                    ".word {s_q_a}",
                    "lui $10, {qlen}",
                    link!("{qw}", "2", "$10"),
                    "bnez $13, 3b",
                    "nop",
                    "b 0f",
                    "nop",
                    "11:",
                    "lui $5, 2",
                    "addu $17, $17, $5",
                    "bnez $13, 3b",
                    "nop",
                    "b 0f",
                    "nop",
                    strip_walk!($v),
                    // ---- the next run: $12 its header (or the end word), $9 past it; its material's
                    // UV addends into $24 and $3 (a material without: the loop ends), $11 to the SXY
                    // word of its base vertex (16 vertices, 64 bytes, per unit of the header's top byte).
                    "0:",
                    "xori $5, $12, 3",
                    "beqz $5, 9f",
                    "srl $5, $12, 13",
                    "andi $5, $5, 0x7F8",
                    "addu $5, $5, $25",
                    "lw $24, 8($5)",
                    "lw $3, 12($5)",
                    "lw $4, 0($25)",
                    "lw $20, 4($25)",
                    "bltz $24, 13f",
                    "srl $13, $12, 2",
                    "14:",
                    "andi $13, $13, 0x3FFF",
                    "andi $7, $12, 3",
                    "srl $5, $12, 24",
                    "sll $5, $5, 6",
                    "addu $11, $4, $5",
                    "lw $12, 4($9)",
                    "addiu $9, $9, 8",
                    "beqz $7, 2b",
                    "addiu $7, $7, -1",
                    "beqz $7, 3b",
                    "nop",
                    gouraud_strip!($v),
                    "b 4b",
                    "nop",
                    "13:",
                    untextured_run!($v),
                    gouraud_sections!($v),
                    "9:",
                    carried_registers!($v, leave),
                    ".set pop",
                    w_sxy0_4 = const mtc2_from(4, data::SXY0),
                    w_sxy1_5 = const mtc2_from(5, data::SXY1),
                    w_sxy2_8 = const mtc2_from(8, data::SXY2),
                    nclip = const cop2(cmd::NCLIP),
                    mac0 = const mfc2_to(8, data::MAC0),
                    avsz3 = const cop2(cmd::AVSZ3),
                    avsz4 = const cop2(cmd::AVSZ4),
                    r_otz = const mfc2_to(8, data::OTZ),
                    l_sz1_4 = const lwc2(4, data::SZ1, 0),
                    l_sz2_5 = const lwc2(5, data::SZ2, 0),
                    l_sz3_8 = const lwc2(8, data::SZ3, 0),
                    l_sz0_4 = const lwc2(4, data::SZ0, 0),
                    l_sz1_5 = const lwc2(5, data::SZ1, 0),
                    l_sz2_8 = const lwc2(8, data::SZ2, 0),
                    l_sz3_16 = const lwc2(16, data::SZ3, 0),
                    l_sz2_7 = const lwc2(7, data::SZ2, 0),
                    p_b0 = const lwc2(16, data::SXYP, 0),
                    p_t0 = const lwc2(10, data::SXYP, 0),
                    w_sxyp_4 = const mtc2_from(4, data::SXYP),
                    w_sxyp_5 = const mtc2_from(5, data::SXYP),
                    s_t0 = const swc2(18, data::SXY0, 8),
                    s_t1 = const swc2(18, data::SXY1, TRI_XY[0]),
                    s_t2 = const swc2(18, data::SXY2, TRI_XY[1]),
                    s_q_b = const swc2(18, data::SXY1, 8),
                    s_q_c = const swc2(18, data::SXY2, QUAD_XY[0]),
                    s_q_a = const swc2(18, data::SXY0, QUAD_XY[1]),
                    s_s_t = const swc2(18, data::SXY0, QUAD_XY[0]),
                    s_s_b1 = const swc2(18, data::SXY1, QUAD_XY[1]),
                    s_s_t1 = const swc2(18, data::SXY2, QUAD_XY[2]),
                    qx3 = const QUAD_XY[2],
                    tu0 = const TRI_UV[0],
                    tu1 = const TRI_UV[1],
                    tu2 = const TRI_UV[2],
                    qu0 = const QUAD_UV[0],
                    qu1 = const QUAD_UV[1],
                    qu2 = const QUAD_UV[2],
                    qu3 = const QUAD_UV[3],
                    tw = const $tw,
                    qw = const $qw,
                    tlen = const ($tw - 1) << 8,
                    qlen = const ($qw - 1) << 8,
                    cmd3 = const $cmd3 >> 16,
                    cmd4 = const $cmd4 >> 16,
                    neutral = const NEUTRAL.word() & 0xFFFF,
                    z_lcm0 = const ctc2_from(0, ctrl::LR1LR2),
                    z_lcm1 = const ctc2_from(0, ctrl::LR3LG1),
                    z_lcm2 = const ctc2_from(0, ctrl::LG2LG3),
                    z_lcm3 = const ctc2_from(0, ctrl::LB1LB2),
                    z_lcm4 = const ctc2_from(0, ctrl::LB3),
                    w_rbk = const ctc2_from(7, ctrl::RBK),
                    w_gbk = const ctc2_from(7, ctrl::GBK),
                    w_bbk = const ctc2_from(7, ctrl::BBK),
                    cc = const cop2(cmd::CC),
                    w_rgbc_3 = const mtc2_from(3, data::RGBC),
                    w_rgbc_4 = const mtc2_from(4, data::RGBC),
                    w_rgbc_5 = const mtc2_from(5, data::RGBC),
                    w_rgbc_7 = const mtc2_from(7, data::RGBC),
                    r_otz_10 = const mfc2_to(10, data::OTZ),
                    r_rgb_3 = const mfc2_to(3, data::RGB2),
                    w_rgbc_20 = const mtc2_from(20, data::RGBC),
                    l_sz0_7 = const lwc2(7, data::SZ0, 0),
                    l_sz1_8 = const lwc2(8, data::SZ1, 0),
                    r_sz2_7 = const mfc2_to(7, data::SZ2),
                    r_sz3_8 = const mfc2_to(8, data::SZ3),
                    w_sz0_7 = const mtc2_from(7, data::SZ0),
                    w_sz1_8 = const mtc2_from(8, data::SZ1),
                    r_rgb_20 = const mfc2_to(20, data::RGB2),
                    g_t0 = const swc2(18, data::SXY0, 8),
                    g_t1 = const swc2(18, data::SXY1, 16),
                    g_t2 = const swc2(18, data::SXY2, 24),
                    g_qb = const swc2(18, data::SXY1, 8),
                    g_qc = const swc2(18, data::SXY2, 16),
                    g_qa = const swc2(18, data::SXY0, 24),
                    g_st = const swc2(18, data::SXY0, 16),
                    g_sb1 = const swc2(18, data::SXY1, 24),
                    g_st1 = const swc2(18, data::SXY2, 32),
                    g3 = const GOURAUD_TRIANGLE >> 16,
                    g4 = const GOURAUD_QUAD >> 16,
                    f_t0 = const swc2(18, data::SXY0, 8),
                    f_t1 = const swc2(18, data::SXY1, 12),
                    f_t2 = const swc2(18, data::SXY2, 16),
                    f_qb = const swc2(18, data::SXY1, 8),
                    f_qc = const swc2(18, data::SXY2, 12),
                    f_qa = const swc2(18, data::SXY0, 16),
                    f_st = const swc2(18, data::SXY0, 12),
                    f_sb1 = const swc2(18, data::SXY1, 16),
                    f_st1 = const swc2(18, data::SXY2, 20),
                    ftw = const FLAT_PACKET_WORDS,
                    fqw = const QUAD_PACKET_WORDS,
                    ftlen = const (FLAT_PACKET_WORDS - 1) << 8,
                    fqlen = const (QUAD_PACKET_WORDS - 1) << 8,
                    save_30 = const SAVE_30,
                    save_31 = const SAVE_31,
                    cache_uv_b = const CACHE_UV_B,
                    cache_uv_t = const CACHE_UV_T,
                    cache_rgb_b = const CACHE_RGB_B,
                    cache_rgb_t = const CACHE_RGB_T,
                    r_sxy1_31 = const mfc2_to(31, data::SXY1),
                    r_sz2_4 = const mfc2_to(4, data::SZ2),
                    w_sz0_4 = const mtc2_from(4, data::SZ0),
                    l_sz3_4 = const lwc2(4, data::SZ3, 0),
                    gtw = const 7,
                    gqw = const 9,
                    gtlen = const 6 << 8,
                    gqlen = const 8 << 8,
                    inout("$9") job.words.as_ptr().add(at) as usize => end,
                    in("$15") (job.sz.as_ptr() as usize).wrapping_sub(base),
                    inout("$20") uv_offset => _,
                    inout("$2") rgb_offset => _,
                    inout("$17") 0usize => counts,
                    inout("$18") out.arena.as_mut_ptr().add(done.words) as usize => _,
                    inout("$19") room => room_left,
                    in("$21") out.table.as_mut_ptr() as usize,
                    in("$22") max_depth,
                    in("$25") BLOCK,
                );
            }
            done.drawn += counts & 0xFFFF;
            done.rejected += counts >> 16;
            done.words += room - room_left;
            // `$9` is past the word the loop stopped at.
            (end - job.words.as_ptr() as usize) / 4 - 1
        }
    };
}

surface_loop!(
    /// The textured runs, unlit: POLY_FT3 (8 words with its header) and POLY_FT4 (10).
    textured_runs,
    unlit,
    8u32,
    10u32,
    [12, 20, 28],
    [16, 24],
    [12, 20, 28, 36],
    [16, 24, 32],
    TEXTURED_TRIANGLE | NEUTRAL.word(),
    TEXTURED_QUAD | NEUTRAL.word()
);

surface_loop!(
    /// The textured runs, lit: POLY_GT3 (10 words with its header) and POLY_GT4 (13).
    textured_lit_runs,
    lit,
    10u32,
    13u32,
    [12, 24, 36],
    [20, 32],
    [12, 24, 36, 48],
    [20, 32, 44],
    TEXTURED_GOURAUD_TRIANGLE,
    TEXTURED_GOURAUD_QUAD
);
