//! GPU packets straight from a primitive stream: the inputs and outputs of [`Cop2::flat_packets`] and
//! its definition at register level, which the host model runs and the console's asm loops follow
//! operation for operation.

use super::backend::{Cop2, ScreenTriangle};
use super::regs::{cmd, data};
use crate::tables::primitives::{
    unpack3, unpack_pair, RUN_HEADER_WORDS, RUN_QUADS, RUN_TRIANGLES, STREAM_END,
};

pub use crate::tables::primitives::{GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE};

/// The widest and tallest triangle the GPU draws, in pixels (it drops larger ones).
pub const MAX_SPAN_X: i32 = 1023;
pub const MAX_SPAN_Y: i32 = 511;
/// Words of a triangle's packet: header, command and colour, three points.
pub const FLAT_PACKET_WORDS: usize = 5;
/// Words of a quad's packet: header, command and colour, four points.
pub const QUAD_PACKET_WORDS: usize = 6;
/// The address bits of a linked-list header word (the top 8 bits count the words that follow).
pub const LINK_MASK: u32 = 0x00FF_FFFF;

/// The inputs of [`Cop2::flat_packets`].
#[derive(Clone, Copy, Debug)]
pub struct FlatPrimitives<'a> {
    /// The primitive stream's words (`tables::primitives`), its end word included.
    pub words: &'a [u32],
    /// Projected vertices (SXY words and SZ values), indexed like the tables' vertices.
    pub sxy: &'a [u32],
    pub sz: &'a [u32],
    /// The nearest depth (SZ) a drawn point may have.
    pub near: u16,
    /// False: the caller knows no point is nearer than `near` and no primitive larger than the spans
    /// (its character's box is `render::cull::Visibility::Clear`), and those tests are skipped.
    pub clip_tests: bool,
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

impl PacketList<'_> {
    /// The deepest table entry a packet goes to: `max_depth` clamped to the table (none when it is
    /// empty).
    pub fn deepest(&self) -> Option<usize> {
        self.table.len().checked_sub(1).map(|last| last.min(self.max_depth as usize))
    }
}

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

/// [`Cop2::flat_packets`] at register level: the definition.
///
/// # Safety
/// As [`Cop2::flat_packets`].
pub(crate) unsafe fn flat_packets_registers<C: Cop2 + ?Sized>(
    gte: &mut C,
    job: &FlatPrimitives,
    out: &mut PacketList,
) -> FlatPackets {
    let Some(max_depth) = out.deepest() else {
        return FlatPackets::default();
    };
    let mut packets = Packets {
        job,
        out,
        max_depth,
        done: FlatPackets::default(),
    };
    let w = job.words;
    let mut at = 0;
    while let Some(&header) = w.get(at) {
        let Some(&gp0) = w.get(at + 1).filter(|_| header != STREAM_END) else {
            break;
        };
        let (kind, count) = (header & 3, ((header >> 2) & 0x3FFF) as usize);
        at += RUN_HEADER_WORDS;
        // SAFETY (each primitive): the caller's contract.
        match kind {
            RUN_TRIANGLES => {
                for &t in w.get(at..at + count).unwrap_or(&[]) {
                    unsafe { packets.triangle(gte, unpack3(t), gp0) };
                }
                at += count;
            }
            RUN_QUADS => {
                for q in w.get(at..at + 2 * count).unwrap_or(&[]).chunks_exact(2) {
                    let [a, b, c] = unpack3(q[0]);
                    unsafe { packets.quad(gte, [a, b, c], [b, c, a, (q[1] >> 2) as usize], gp0) };
                }
                at += 2 * count;
            }
            _ => {
                for pair in w.get(at..at + count + 1).unwrap_or(&[]).windows(2) {
                    let ([t0, b0], [t1, b1]) = (unpack_pair(pair[0]), unpack_pair(pair[1]));
                    unsafe { packets.quad(gte, [t0, b1, t1], [b0, t0, b1, t1], gp0) };
                }
                at += count + 1;
            }
        }
    }
    packets.done
}

/// The packet writer of [`flat_packets_registers`].
struct Packets<'j, 'o, 'a, 'b> {
    job: &'j FlatPrimitives<'a>,
    out: &'o mut PacketList<'b>,
    max_depth: usize,
    done: FlatPackets,
}

impl Packets<'_, '_, '_, '_> {
    /// A triangle (a, b, c): NCLIP, then SZ1..3 and AVSZ3; its packet's points are SXY0..2.
    ///
    /// # Safety
    /// Every index is below the job's `sxy.len()` and `sz.len()`.
    unsafe fn triangle<C: Cop2 + ?Sized>(&mut self, gte: &mut C, v: [usize; 3], gp0: u32) {
        // SAFETY: the caller's contract.
        if unsafe { gte.nclip_indexed(self.job.sxy, v) } >= 0 {
            return;
        }
        // SAFETY: the caller's contract.
        let ScreenTriangle { sxy, sz, otz } = unsafe { gte.avsz3_indexed(self.job.sz, v) };
        self.packet(sxy, sz, otz, gp0, 1);
    }

    /// A quad: NCLIP of `facing`, then SZ0..3 = the depths of `points` (drawing order) and AVSZ4;
    /// its packet's points are `points`.
    ///
    /// # Safety
    /// Every index is below the job's `sxy.len()` and `sz.len()`.
    unsafe fn quad<C: Cop2 + ?Sized>(
        &mut self,
        gte: &mut C,
        facing: [usize; 3],
        points: [usize; 4],
        gp0: u32,
    ) {
        // SAFETY: the caller's contract.
        if unsafe { gte.nclip_indexed(self.job.sxy, facing) } >= 0 {
            return;
        }
        // SAFETY: the caller's contract.
        let (sxy, sz) = unsafe {
            (
                points.map(|p| *self.job.sxy.get_unchecked(p)),
                points.map(|p| *self.job.sz.get_unchecked(p)),
            )
        };
        gte.write_data::<{ data::SZ0 }>(sz[0]);
        gte.write_data::<{ data::SZ1 }>(sz[1]);
        gte.write_data::<{ data::SZ2 }>(sz[2]);
        gte.write_data::<{ data::SZ3 }>(sz[3]);
        gte.command::<{ cmd::AVSZ4 }>();
        let otz = gte.read_data::<{ data::OTZ }>();
        self.packet(sxy, sz, otz, gp0, 2);
    }

    /// The near, span and room tests, then the packet (`triangles`: 1 or 2, for the counts).
    fn packet<const N: usize>(&mut self, sxy: [u32; N], sz: [u32; N], otz: u32, gp0: u32, triangles: usize) {
        let size = 2 + N;
        let done = &mut self.done;
        if (self.job.clip_tests && !within_limits(sxy, sz, self.job.near)) || self.out.arena.len() - done.words < size {
            done.rejected += triangles;
            return;
        }
        let z = (otz as usize).min(self.max_depth);
        let packet = &mut self.out.arena[done.words..][..size];
        packet[0] = ((size as u32 - 1) << 24) | (self.out.table[z] & LINK_MASK);
        packet[1] = gp0;
        for (to, xy) in packet[2..].iter_mut().zip(sxy) {
            *to = xy;
        }
        self.out.table[z] = (&packet[0] as *const u32 as usize as u32) & LINK_MASK;
        done.drawn += triangles;
        done.words += size;
    }
}

/// No point nearer than `near`, and the points' screen extent within `MAX_SPAN_X` x `MAX_SPAN_Y`.
#[inline(always)]
pub(crate) fn within_limits<const N: usize>(sxy: [u32; N], sz: [u32; N], near: u16) -> bool {
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    let mut nearest = u32::MAX;
    for (xy, z) in sxy.into_iter().zip(sz) {
        let (x, y) = (xy as u16 as i16 as i32, (xy as i32) >> 16);
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        nearest = nearest.min(z);
    }
    nearest >= near as u32 && x1 - x0 <= MAX_SPAN_X && y1 - y0 <= MAX_SPAN_Y
}
