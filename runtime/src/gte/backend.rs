//! The five coprocessor operations every GTE backend provides, with compile-time register numbers
//! and command words (on the console they are encoded into the instruction words).

use super::model::GteModel;
use super::regs::{cmd, data};
use super::{PackedMatrix, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::{Matrix, Vec3i32};

/// A triangle's screen data as the GTE holds it after NCLIP and AVSZ3 (raw register words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScreenTriangle {
    /// SXY0..2: `x` in the low half-word, `y` in the high one.
    pub sxy: [u32; 3],
    /// SZ1..3 (0..=0xFFFF).
    pub sz: [u32; 3],
    /// OTZ (0..=0xFFFF).
    pub otz: u32,
}

/// The widest and tallest triangle the GPU draws, in pixels (it drops larger ones).
pub const MAX_SPAN_X: i32 = 1023;
pub const MAX_SPAN_Y: i32 = 511;
/// GP0 command of a flat, opaque triangle (the colour goes in the low 24 bits).
pub const GP0_FLAT_TRIANGLE: u32 = 0x20 << 24;
/// GP0 command of a flat, opaque four-point polygon (drawn as the triangles 0-1-2 and 1-2-3).
pub const GP0_FLAT_QUAD: u32 = 0x28 << 24;
/// Words [`Cop2::flat_packets`] writes per triangle: header, command and colour, SXY0..2.
pub const FLAT_PACKET_WORDS: usize = 5;
/// Words [`Cop2::flat_packets`] writes per quad: header, command and colour, four SXY.
pub const QUAD_PACKET_WORDS: usize = 6;
/// Bit 24 of a triangle's second table word: `tables::QUAD_WITH_NEXT`, the flags byte's bit 0.
pub const QUAD_WORD_BIT: u32 = 1 << 24;

/// The inputs of [`Cop2::flat_packets`].
#[derive(Clone, Copy, Debug)]
pub struct FlatTriangles<'a> {
    /// Triangle table words: `a | b << 16`, `c | material << 16 | flags << 24`. A triangle whose flags
    /// hold `QUAD_WITH_NEXT` ([`QUAD_WORD_BIT`]) opens a planar quad that the next one, (a, c, d),
    /// completes.
    pub triangles: &'a [u32],
    /// Projected vertices (SXY words and SZ values), indexed like the tables' vertices.
    pub sxy: &'a [u32],
    pub sz: &'a [u32],
    /// Material colours, `r | g << 8 | b << 16` (the top byte is ignored).
    pub materials: &'a [u32],
    /// The nearest depth (SZ) a drawn vertex may have.
    pub near: u16,
    /// False: the caller knows no triangle is nearer than `near` or larger than the spans (its
    /// character's box is `render::cull::Visibility::Clear`), and the near and span tests are skipped.
    pub clip_tests: bool,
    /// Whether any triangle opens a quad (`Tables::quad_count`): false lets a backend use a loop
    /// that reads triangles only.
    pub quads: bool,
}

/// Where [`Cop2::flat_packets`] links its packets: a GPU ordering table and the free part of its
/// packet arena (`console::ordering::DrawList` describes the format).
#[derive(Debug)]
pub struct PacketList<'a> {
    /// Unused arena words; packets are written from the start, [`FLAT_PACKET_WORDS`] or
    /// [`QUAD_PACKET_WORDS`] each.
    pub arena: &'a mut [u32],
    /// The ordering table: entry `z` holds the 24-bit address of the first packet drawn at depth `z`.
    pub table: &'a mut [u32],
    /// The deepest entry a packet may go to (clamped to the table).
    pub max_depth: u32,
}

/// The address bits of a linked-list header word (the top 8 bits count the words that follow).
pub const LINK_MASK: u32 = 0x00FF_FFFF;

/// What [`Cop2::flat_packets`] did (the other triangles faced away).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlatPackets {
    /// Triangles drawn (a quad counts as its two).
    pub drawn: usize,
    /// Front-facing triangles not drawn: too near, too large, or no room (a quad counts as two).
    pub rejected: usize,
    /// Arena words the packets fill, from its start.
    pub words: usize,
}

/// One RTPT at register level, the definition both projection defaults share: `v` is VXY0, VZ0, VXY1,
/// VZ1, VXY2, VZ2; SXY0..2 go to `xy`, SZ1..3 to `z`.
fn rtpt_registers<C: Cop2 + ?Sized>(gte: &mut C, v: [u32; 6], xy: &mut [u32], z: &mut [u32]) {
    gte.write_data::<{ data::VXY0 }>(v[0]);
    gte.write_data::<{ data::VZ0 }>(v[1]);
    gte.write_data::<{ data::VXY1 }>(v[2]);
    gte.write_data::<{ data::VZ1 }>(v[3]);
    gte.write_data::<{ data::VXY2 }>(v[4]);
    gte.write_data::<{ data::VZ2 }>(v[5]);
    gte.command::<{ cmd::RTPT }>();
    xy[0] = gte.read_data::<{ data::SXY0 }>();
    xy[1] = gte.read_data::<{ data::SXY1 }>();
    xy[2] = gte.read_data::<{ data::SXY2 }>();
    z[0] = gte.read_data::<{ data::SZ1 }>();
    z[1] = gte.read_data::<{ data::SZ2 }>();
    z[2] = gte.read_data::<{ data::SZ3 }>();
}

/// The body of [`Cop2::flat_packets`] at register level: the definition the host model runs, and the
/// console's path for what its asm loops do not cover.
///
/// # Safety
/// As [`Cop2::flat_packets`].
pub(crate) unsafe fn flat_packets_registers<C: Cop2 + ?Sized>(gte: &mut C, job: &FlatTriangles, out: &mut PacketList) -> FlatPackets {
    let Some(max_depth) = out.table.len().checked_sub(1).map(|last| last.min(out.max_depth as usize)) else {
        return FlatPackets::default();
    };
    let mut done = FlatPackets::default();
    let words = job.triangles;
    let mut at = 0;
    while let Some(&[ab, cm]) = words.get(at..at + 2) {
        let fourth = if cm & QUAD_WORD_BIT != 0 { words.get(at + 3).map(|&dm| (dm & 0xFFFF) as usize) } else { None };
        at += if fourth.is_some() { 4 } else { 2 };
        let v = [(ab & 0xFFFF) as usize, (ab >> 16) as usize, (cm & 0xFFFF) as usize];
        // SAFETY: the caller's contract.
        if unsafe { gte.nclip_indexed(job.sxy, v) } >= 0 {
            continue;
        }
        // SAFETY: the caller's contract.
        let (s, d) = unsafe {
            match fourth {
                Some(d) => (gte.avsz4_indexed(job.sz, [d, v[0], v[1], v[2]]), Some((*job.sxy.get_unchecked(d), *job.sz.get_unchecked(d)))),
                None => (gte.avsz3_indexed(job.sz, v), None),
            }
        };
        let (count, size) = if d.is_some() { (2, QUAD_PACKET_WORDS) } else { (1, FLAT_PACKET_WORDS) };
        let mut sxy = [s.sxy[0], s.sxy[1], s.sxy[2], s.sxy[0]];
        let mut sz = [s.sz[0], s.sz[1], s.sz[2], s.sz[0]];
        if let Some((xy, z)) = d {
            (sxy[3], sz[3]) = (xy, z);
        }
        let near = job.near as u32;
        let span = |c: [i32; 4]| c.iter().max().unwrap_or(&0) - c.iter().min().unwrap_or(&0);
        let fails_clip = sz.iter().any(|&z| z < near)
            || span(sxy.map(|w| w as u16 as i16 as i32)) > MAX_SPAN_X
            || span(sxy.map(|w| (w as i32) >> 16)) > MAX_SPAN_Y;
        if (job.clip_tests && fails_clip) || out.arena.len() - done.words < size {
            done.rejected += count;
            continue;
        }
        // SAFETY: the caller's contract.
        let colour = unsafe { *job.materials.get_unchecked(((cm >> 16) & 0xFF) as usize) } & 0x00FF_FFFF;
        let z = (s.otz as usize).min(max_depth);
        let packet = &mut out.arena[done.words..][..size];
        let header = ((size as u32 - 1) << 24) | (out.table[z] & LINK_MASK);
        if d.is_some() {
            packet.copy_from_slice(&[header, GP0_FLAT_QUAD | colour, s.sxy[1], s.sxy[2], s.sxy[0], sxy[3]]);
        } else {
            packet.copy_from_slice(&[header, GP0_FLAT_TRIANGLE | colour, s.sxy[0], s.sxy[1], s.sxy[2]]);
        }
        out.table[z] = (&packet[0] as *const u32 as usize as u32) & LINK_MASK;
        done.drawn += count;
        done.words += size;
    }
    done
}

/// Raw access to a GTE: register transfers and commands.
///
/// Register numbers are masked to 0..31; the command word is the `cop2` imm25 operand.
pub trait Cop2 {
    /// `mtc2`: write data register `R`.
    fn write_data<const R: u32>(&mut self, v: u32);
    /// `mfc2`: read data register `R`.
    fn read_data<const R: u32>(&mut self) -> u32;
    /// `ctc2`: write control register `R`.
    fn write_ctrl<const R: u32>(&mut self, v: u32);
    /// `cfc2`: read control register `R`.
    fn read_ctrl<const R: u32>(&mut self) -> u32;
    /// `cop2 CMD`: run one command.
    fn command<const CMD: u32>(&mut self);

    // ---- bulk operations: the default bodies are the register operations the console's versions
    // run (`hw.rs`), so the host model computes exactly what the console does ----

    /// RTPT over whole triples of vertices given as VXY, VZ word pairs (6 words a triple): SXY0..2 go
    /// to `sxy`, SZ1..3 to `sz`, for as many triples as all three slices hold. Returns the number of
    /// vertices projected (a multiple of three).
    fn rtpt_words(&mut self, vertices: &[u32], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (vertices.len() / 6).min(sxy.len() / 3).min(sz.len() / 3);
        for ((v, xy), z) in vertices.chunks_exact(6).zip(sxy.chunks_exact_mut(3)).zip(sz.chunks_exact_mut(3)).take(triples) {
            rtpt_registers(self, [v[0], v[1], v[2], v[3], v[4], v[5]], xy, z);
        }
        3 * triples
    }

    /// [`rtpt_words`](Self::rtpt_words) for positions given as `[x, y, z]`: the same register
    /// writes once each position is packed (`x | y << 16`, `z`).
    fn rtpt_positions(&mut self, positions: &[[i16; 3]], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (positions.len() / 3).min(sxy.len() / 3).min(sz.len() / 3);
        for ((p, xy), z) in positions.chunks_exact(3).zip(sxy.chunks_exact_mut(3)).zip(sz.chunks_exact_mut(3)).take(triples) {
            let pack = |v: [i16; 3]| (v[0] as u16 as u32 | (v[1] as u16 as u32) << 16, v[2] as u16 as u32);
            let w = [pack(p[0]), pack(p[1]), pack(p[2])];
            rtpt_registers(self, [w[0].0, w[0].1, w[1].0, w[1].1, w[2].0, w[2].1], xy, z);
        }
        3 * triples
    }

    /// Loads SXY0..2 with `sxy[v[0]]`, `sxy[v[1]]`, `sxy[v[2]]` and runs NCLIP: returns MAC0 (twice the
    /// signed screen area).
    ///
    /// # Safety
    /// Every index in `v` is below `sxy.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn nclip_indexed(&mut self, sxy: &[u32], v: [usize; 3]) -> i32 {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SXY0 }>(*sxy.get_unchecked(v[0]));
            self.write_data::<{ data::SXY1 }>(*sxy.get_unchecked(v[1]));
            self.write_data::<{ data::SXY2 }>(*sxy.get_unchecked(v[2]));
        }
        self.command::<{ cmd::NCLIP }>();
        self.read_data::<{ data::MAC0 }>() as i32
    }

    /// NCLIP over a run of triangles given as table words (`a | b << 16`, `c | material << 16 | flags
    /// << 24`, two words a triangle), the screen positions loaded from `sxy`: skips the triangles whose
    /// NCLIP is zero or positive (facing away, see `render::triangles`; a quad's first triangle decides
    /// for both of its triangles) and returns the index of the first one whose NCLIP is negative, with
    /// its SXY0..2 still loaded; the triangle count if there is none.
    ///
    /// # Safety
    /// Every vertex index of every triangle is below `sxy.len()` (the console loads without checking),
    /// and a quad's first triangle is followed by its second.
    #[inline(always)]
    unsafe fn skip_back_faces(&mut self, triangles: &[u32], sxy: &[u32]) -> usize {
        let mut at = 0;
        while let Some(&[ab, cm]) = triangles.get(2 * at..2 * at + 2) {
            let v = [(ab & 0xFFFF) as usize, (ab >> 16) as usize, (cm & 0xFFFF) as usize];
            // SAFETY: the caller's contract.
            if unsafe { self.nclip_indexed(sxy, v) } < 0 {
                return at;
            }
            at += if cm & QUAD_WORD_BIT != 0 { 2 } else { 1 };
        }
        triangles.len() / 2
    }

    /// Flat-shaded GPU triangles and quads straight from the tables: for each triangle of
    /// `job.triangles` in order, NCLIP (a triangle whose NCLIP is zero or positive faces away and is
    /// skipped; a quad's first triangle decides for the quad), then SZ1..3 and AVSZ3 (a quad: SZ0 =
    /// its fourth vertex's, and AVSZ4); a front face is rejected (with `job.clip_tests`) when a vertex
    /// is nearer than `job.near`, when its screen extent is wider than [`MAX_SPAN_X`] or taller than
    /// [`MAX_SPAN_Y`] pixels, and (always) when `out.arena` has no room left. Otherwise it becomes a
    /// GPU linked-list packet at the start of the arena's unused part: the header (the number of
    /// words that follow, then the 24-bit link read from `out.table[z]`, with `z` = min(OTZ,
    /// `out.max_depth`)), the flat command with the material's colour, then the points: SXY0..2 for a
    /// triangle ([`FLAT_PACKET_WORDS`] words); for a quad (a, b, c) + (a, c, d) the points b, c, a, d
    /// ([`QUAD_PACKET_WORDS`] words: the GPU draws b-c-a and c-a-d, the two triangles). `out.table[z]`
    /// then holds the 24-bit address of that header.
    ///
    /// # Safety
    /// Every vertex index of every triangle is below `job.sxy.len()` and `job.sz.len()`, every
    /// material index below `job.materials.len()`, and a triangle marked as a quad's first half is
    /// followed by its second (`Tables::parse` checks all three; the console loads without checking).
    unsafe fn flat_packets(&mut self, job: &FlatTriangles, out: &mut PacketList) -> FlatPackets {
        // SAFETY: the caller's contract.
        unsafe { flat_packets_registers(self, job, out) }
    }

    /// Loads SZ0..3 with `sz[v[0]]` .. `sz[v[3]]` and runs AVSZ4: returns SXY0..2 (as loaded for NCLIP),
    /// SZ1..3 and OTZ (SZ0 is the caller's `sz[v[0]]`).
    ///
    /// # Safety
    /// Every index in `v` is below `sz.len()`.
    #[inline(always)]
    unsafe fn avsz4_indexed(&mut self, sz: &[u32], v: [usize; 4]) -> ScreenTriangle {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SZ0 }>(*sz.get_unchecked(v[0]));
            self.write_data::<{ data::SZ1 }>(*sz.get_unchecked(v[1]));
            self.write_data::<{ data::SZ2 }>(*sz.get_unchecked(v[2]));
            self.write_data::<{ data::SZ3 }>(*sz.get_unchecked(v[3]));
        }
        self.command::<{ cmd::AVSZ4 }>();
        ScreenTriangle {
            sxy: [self.read_data::<{ data::SXY0 }>(), self.read_data::<{ data::SXY1 }>(), self.read_data::<{ data::SXY2 }>()],
            sz: [self.read_data::<{ data::SZ1 }>(), self.read_data::<{ data::SZ2 }>(), self.read_data::<{ data::SZ3 }>()],
            otz: self.read_data::<{ data::OTZ }>(),
        }
    }

    /// Loads SZ1..3 with `sz[v[0]]`, `sz[v[1]]`, `sz[v[2]]` and runs AVSZ3: returns the triangle as the
    /// GTE then holds it (SXY0..2 as loaded for NCLIP, SZ1..3, OTZ).
    ///
    /// # Safety
    /// Every index in `v` is below `sz.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn avsz3_indexed(&mut self, sz: &[u32], v: [usize; 3]) -> ScreenTriangle {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SZ1 }>(*sz.get_unchecked(v[0]));
            self.write_data::<{ data::SZ2 }>(*sz.get_unchecked(v[1]));
            self.write_data::<{ data::SZ3 }>(*sz.get_unchecked(v[2]));
        }
        self.command::<{ cmd::AVSZ3 }>();
        ScreenTriangle {
            sxy: [self.read_data::<{ data::SXY0 }>(), self.read_data::<{ data::SXY1 }>(), self.read_data::<{ data::SXY2 }>()],
            sz: [self.read_data::<{ data::SZ1 }>(), self.read_data::<{ data::SZ2 }>(), self.read_data::<{ data::SZ3 }>()],
            otz: self.read_data::<{ data::OTZ }>(),
        }
    }

    /// [`super::Gte::compose_packed`]: `out[i] = (RT, TR) * poses[i]`. This body is the definition
    /// (the host model runs it); a backend may override it only with the same register operations.
    fn compose_packed(&mut self, poses: &[PackedMatrix], out: &mut [Matrix]) {
        for (p, o) in poses.iter().zip(out.iter_mut()) {
            let [col0, col1, col2, txy, z01, z2tz] = p.words;
            self.write_data::<{ data::VXY0 }>(col0);
            self.write_data::<{ data::VZ0 }>(z01);
            self.write_data::<{ data::VXY1 }>(col1);
            self.write_data::<{ data::VZ1 }>(z01 >> 16);
            self.write_data::<{ data::VXY2 }>(col2);
            self.write_data::<{ data::VZ2 }>(z2tz);
            let mut column = |b: &mut Self, j: usize| {
                o.rotation[0][j] = b.read_data::<{ data::IR1 }>() as i16;
                o.rotation[1][j] = b.read_data::<{ data::IR2 }>() as i16;
                o.rotation[2][j] = b.read_data::<{ data::IR3 }>() as i16;
            };
            self.command::<{ MVMVA_RT_V0 }>();
            column(self, 0);
            self.command::<{ MVMVA_RT_V1 }>();
            column(self, 1);
            self.command::<{ MVMVA_RT_V2 }>();
            column(self, 2);
            self.write_data::<{ data::VXY0 }>(txy);
            self.write_data::<{ data::VZ0 }>(z2tz >> 16);
            self.command::<{ MVMVA_RT_V0_TR }>();
            o.translation = Vec3i32::new(
                self.read_data::<{ data::MAC1 }>() as i32,
                self.read_data::<{ data::MAC2 }>() as i32,
                self.read_data::<{ data::MAC3 }>() as i32,
            );
        }
    }
}

impl Cop2 for GteModel {
    #[inline]
    fn write_data<const R: u32>(&mut self, v: u32) {
        GteModel::write_data(self, R, v)
    }
    #[inline]
    fn read_data<const R: u32>(&mut self) -> u32 {
        GteModel::read_data(self, R)
    }
    #[inline]
    fn write_ctrl<const R: u32>(&mut self, v: u32) {
        GteModel::write_ctrl(self, R, v)
    }
    #[inline]
    fn read_ctrl<const R: u32>(&mut self) -> u32 {
        GteModel::read_ctrl(self, R)
    }
    #[inline]
    fn command<const CMD: u32>(&mut self) {
        self.execute(CMD)
    }
}
