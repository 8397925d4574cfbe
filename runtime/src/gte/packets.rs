//! GPU packets straight from a primitive stream: the inputs and outputs of
//! [`Cop2::flat_packets`](super::Cop2::flat_packets)(super::Cop2::flat_packets), and the near and span test it applies. Its
//! definition at register level, which the host model runs and the console's asm loops follow
//! operation for operation, is the trait's default body (`backend.rs`).

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

/// The inputs of [`Cop2::flat_packets`](super::Cop2::flat_packets).
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

/// Where [`Cop2::flat_packets`](super::Cop2::flat_packets) links its packets: a GPU ordering table and the free part of its
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

/// What [`Cop2::flat_packets`](super::Cop2::flat_packets) did (the other triangles faced away).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlatPackets {
    /// Triangles drawn (a quad counts as its two).
    pub drawn: usize,
    /// Front-facing triangles not drawn: too near, too large, or no room (a quad counts as two).
    pub rejected: usize,
    /// Arena words the packets fill, from its start.
    pub words: usize,
}

/// No point nearer than `near`, and the points' screen extent within `MAX_SPAN_X` x `MAX_SPAN_Y`.
#[inline(always)]
pub(crate) fn within_limits<const N: usize>(sxy: [u32; N], sz: [u32; N], near: u16) -> bool {
    all_within_limits(&sxy, &sz, near)
}

/// [`within_limits`] of all the points at once (as many as both slices hold): when it holds, no
/// triangle among them can fail the near or span tests, which a caller may then skip.
#[inline(always)]
pub(crate) fn all_within_limits(sxy: &[u32], sz: &[u32], near: u16) -> bool {
    if sxy.is_empty() || sz.is_empty() {
        return true;
    }
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    let mut nearest = u32::MAX;
    for (&xy, &z) in sxy.iter().zip(sz) {
        let (x, y) = (xy as u16 as i16 as i32, (xy as i32) >> 16);
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        nearest = nearest.min(z);
    }
    nearest >= near as u32 && x1 - x0 <= MAX_SPAN_X && y1 - y0 <= MAX_SPAN_Y
}

/// What [`Cop2::surface_runs`](super::Cop2::surface_runs) reads: the primitive stream, the projected
/// vertices and every vertex's UV word and light colour (all indexed like the tables' vertices), and
/// per material the texture words its runs take ([`NO_TEXTURE`]: untextured, [`LEFT_TO_CALLER`]:
/// runs the loop does not draw).
#[derive(Clone, Copy, Debug)]
pub struct SurfaceRuns<'a> {
    /// The primitive stream's words (`tables::primitives`), its end word included.
    pub words: &'a [u32],
    pub sxy: &'a [u32],
    pub sz: &'a [u32],
    /// Every vertex's UV word; may be empty when no material has texture words (nothing reads it).
    pub uvs: &'a [u32],
    /// Lit: each vertex's light colour (`r | g << 8 | b << 16`, the top byte ignored).
    pub rgb: Option<&'a [u32]>,
    /// Per material: its texture's first and second UV addends (`vram::Words::clut_uv`, `page_uv`),
    /// whose low halves are the UV offset the third and fourth points add; `[NO_TEXTURE, 0]` for an
    /// untextured material (drawn in its colour, times the light when lit), `[LEFT_TO_CALLER, 0]`
    /// for a material the loop leaves to its caller.
    pub textures: &'a [[u32; 2]],
}

/// The first UV addend of an untextured material in [`SurfaceRuns::textures`]: a lit loop draws its
/// runs as POLY_G3 / G4 (the material's colour times each point's light), an unlit one as POLY_F3 /
/// F4 (the run's GP0 word). (A real addend is below 2^31: a CLUT word's y is below 512.)
pub const NO_TEXTURE: u32 = u32::MAX;
/// The first UV addend of a material whose runs [`SurfaceRuns`] leaves to its caller.
pub const LEFT_TO_CALLER: u32 = 1 << 31;

#[cfg(test)]
mod tests {
    use super::{all_within_limits, within_limits};

    fn xy(x: i16, y: i16) -> u32 {
        x as u16 as u32 | (y as u16 as u32) << 16
    }

    /// The extent of all the points, signed coordinates included, against the largest triangle the
    /// GPU draws (1,023 x 511) and the near depth; one triangle's test is the same rule.
    #[test]
    fn all_within_limits_takes_the_whole_extent_and_the_nearest_depth() {
        let near = 100;
        let sxy = [xy(-500, -200), xy(523, 311), xy(0, 0), xy(17, -3)];
        let sz = [100, 4000, 250, 101];
        assert!(all_within_limits(&sxy, &sz, near));
        // One pixel wider or taller, or one depth unit nearer, and it does not hold.
        assert!(!all_within_limits(&[sxy[0], xy(524, 0)], &[500, 500], near));
        assert!(!all_within_limits(&[sxy[0], xy(0, 312)], &[500, 500], near));
        assert!(!all_within_limits(&sxy, &[100, 4000, 99, 101], near));
        // The GTE's saturated corners are 2,047 apart: too wide whatever the rest.
        assert!(!all_within_limits(&[xy(-1024, 0), xy(1023, 0)], &[500, 500], near));
        // One triangle: the same answer as the whole set of its points.
        let t = [sxy[0], sxy[1], sxy[3]];
        assert_eq!(within_limits(t, [100, 4000, 101], near), all_within_limits(&t, &[100, 4000, 101], near));
        assert!(all_within_limits(&[], &[], near), "no points: nothing can fail");
    }
}
