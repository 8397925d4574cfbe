//! Sampling one animated channel (a joint's rotation or translation) at a playback time.
//!
//! Each channel keeps its segment's two end values decoded (rotations as stored, in two words each,
//! the second put in the first's hemisphere) so that a frame inside the segment only interpolates;
//! stepping to the next segment reuses the decoded end and reads one key. Whether a rotation segment
//! needs the accurate path is decided once, when the segment is entered. Keys are not normalised
//! (nlerp normalises its result); only keys with a component past 2^13 are scaled to unit length, so
//! that the products stay within `i32`.

use super::cursor::{Cursor, Moved};
use super::interp;
use super::time::TICKS_PER_FRAME;
use crate::animbin::{KeyType, Track};
use crate::gte::{Cop2, Gte};
use super::words::{column_words, components, words2, words_of, ColumnWords, QuatWords};
use crate::math::{Quat, Vec3i32};

/// The payload of the validated key at `offset`, with one bounds check (the file was validated, so
/// the fallback never happens).
fn payload<const N: usize>(bytes: &[u8], offset: u32) -> [u8; N] {
    let p = offset as usize + 3;
    bytes.get(p..p + N).and_then(|s| s.try_into().ok()).unwrap_or([0; N])
}

#[inline(always)]
fn quat_of(q: QuatWords) -> Quat {
    let c = components(q);
    Quat::new(c[0] as i16, c[1] as i16, c[2] as i16, c[3] as i16)
}


/// A rotation key as stored when its components are within +/-2^13 (unit keys are), else scaled to
/// unit length, so that dot products and nlerp's squares stay within `i32`.
#[inline(always)]
pub(crate) fn read_rotation(bytes: &[u8], offset: u32) -> QuatWords {
    let [lo, hi] = words2(bytes, offset as usize + 3);
    // |v| < 2^13 for all four halves: v + 2^13 below 2^14, i.e. its top two bits clear (the high
    // half's sum cannot carry into the low one's bits).
    let out = |w: u32| (w.wrapping_add(0x2000) & 0xC000) | (w.wrapping_add(0x2000_0000) & 0xC000_0000);
    if out(lo) | out(hi) != 0 {
        unit_key([lo, hi])
    } else {
        [lo, hi]
    }
}

#[cold]
#[inline(never)]
pub(crate) fn unit_key(q: QuatWords) -> QuatWords {
    let u = interp::unit(quat_of(q));
    words_of([u.w as i32, u.x as i32, u.y as i32, u.z as i32])
}

fn read_translation(bytes: &[u8], offset: u32) -> Vec3i32 {
    let b: [u8; 12] = payload(bytes, offset);
    let c = |i: usize| i32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    Vec3i32::new(c(0), c(4), c(8))
}

/// Frame number of a tick count (times stay below `length * 4096 <= 2^28`).
#[inline]
fn frame_of(ticks: u32) -> u16 {
    (ticks / TICKS_PER_FRAME) as u16
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct RotationChannel {
    cursor: Cursor,
    /// Rotations of keys `a` and `b`, `q1` in `q0`'s hemisphere.
    q0: QuatWords,
    q1: QuatWords,
    /// The segment spans more than 30 degrees of rotation: interpolate by subdivision.
    wide: bool,
}

const IDENTITY_WORDS: QuatWords = [0x1000, 0];

impl RotationChannel {
    pub fn new(bytes: &[u8], track: &Track<'_>) -> Option<Self> {
        let cursor = Cursor::new(bytes, track, KeyType::Rotation)?;
        Some(RotationChannel { cursor, q0: IDENTITY_WORDS, q1: IDENTITY_WORDS, wide: false })
    }

    /// Moves to the segment holding `ticks` and decodes its ends when it changed (the first pass of
    /// an evaluation: cursor walking and key decoding for every channel, then interpolation).
    #[inline(always)]
    pub fn prepare(&mut self, bytes: &[u8], ticks: u32, length: u16, looping: bool) {
        const SIZE: u32 = 3 + KeyType::Rotation.payload_bytes() as u32;
        let frame = frame_of(ticks);
        if self.cursor.holds(frame) {
            return;
        }
        match self.cursor.seek_keys::<SIZE, { KeyType::Rotation as u32 }>(bytes, frame, length, looping) {
            Moved::Not => {}
            // Stepping one key on reuses the decoded end.
            Moved::Next => self.load(bytes, self.q1),
            Moved::Other => self.load(bytes, read_rotation(bytes, self.cursor.a.offset)),
        }
    }

    /// Keys are used as stored: nlerp normalises its result, and the hemisphere and arc tests only
    /// need the files' near-unit keys.
    #[inline(always)]
    fn load(&mut self, bytes: &[u8], q0: QuatWords) {
        self.q0 = q0;
        (self.q1, self.wide) = hemisphere(q0, read_rotation(bytes, self.cursor.b.offset));
    }

    /// The rotation at `ticks` (after [`prepare`](Self::prepare) with the same time): unit length.
    #[inline]
    pub fn value(&self, ticks: u32) -> Quat {
        segment_rotation(self.q0, self.q1, self.wide, self.cursor.alpha(ticks))
    }

    /// [`value`](Self::value) into `rotation` and its rotation matrix ([`interp::to_rotation`]) into
    /// `matrix`, the products on the GTE for the usual narrow segment: the same bits.
    #[inline(always)]
    pub fn value_matrix<B: Cop2>(&self, gte: &mut Gte<B>, ticks: u32, rotation: &mut Quat, matrix: &mut ColumnWords) {
        segment_matrix(gte, self.q0, self.q1, self.wide, self.cursor.alpha(ticks), rotation, matrix);
    }
}

/// `q1` put in `q0`'s hemisphere (negated when their dot product is negative), and whether the
/// two are more than 30 degrees of rotation apart (interpolated by subdivision then). Components
/// within +/-2^13 (as [`read_rotation`] gives them): no overflow.
#[inline(always)]
pub(crate) fn hemisphere(q0: QuatWords, q1: QuatWords) -> (QuatWords, bool) {
    let (a, mut b) = (components(q0), components(q1));
    let mut d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if d < 0 {
        b = b.map(|v| -v);
        d = -d;
    }
    (words_of(b), d < interp::NLERP_MIN_COS)
}

/// The rotation at weight `t` (FP12) of a segment from `q0` to `q1` (in `q0`'s hemisphere; `wide`:
/// more than 30 degrees apart, interpolated by subdivision): unit length.
#[inline]
pub(crate) fn segment_rotation(q0: QuatWords, q1: QuatWords, wide: bool, t: i32) -> Quat {
    let (q0, q1) = (quat_of(q0), quat_of(q1));
    if wide {
        interp::slerp(q0, q1, t)
    } else {
        // Also at t = 0: the keys are only near unit, nlerp normalises.
        interp::nlerp(q0, q1, t)
    }
}

/// [`segment_rotation`] into `rotation` and its rotation matrix ([`interp::to_rotation`]) into
/// `matrix`, the products on the GTE for the usual narrow segment: the same bits.
#[inline(always)]
pub(crate) fn segment_matrix<B: Cop2>(gte: &mut Gte<B>, q0: QuatWords, q1: QuatWords, wide: bool, t: i32, rotation: &mut Quat, matrix: &mut ColumnWords) {
    if wide {
        wide_value(q0, q1, t, rotation, matrix);
    } else {
        interp::nlerp_columns(gte, q0, q1, t, rotation, matrix);
    }
}

/// [`segment_rotation`] in Q14 as two words (`x | y << 16`, `z | w << 16`, see
/// [`crate::gte::Cop2::nlerp_q14`]): the usual narrow segment on the GTE, unrounded; anything else is
/// [`segment_rotation`]'s FP12 result times 4. Rounded to FP12 (`(v + 2) >> 2`), either is
/// [`segment_rotation`]'s.
#[inline(always)]
pub(crate) fn segment_q14<B: Cop2>(gte: &mut Gte<B>, q0: QuatWords, q1: QuatWords, wide: bool, t: i32) -> [u32; 2] {
    if !wide {
        if let Some(q) = gte.backend_mut().nlerp_q14(q0, q1, t) {
            return q;
        }
    }
    segment_q14_cpu(q0, q1, wide, t)
}

#[cold]
#[inline(never)]
fn segment_q14_cpu(q0: QuatWords, q1: QuatWords, wide: bool, t: i32) -> [u32; 2] {
    let q = segment_rotation(q0, q1, wide, t);
    let c = |v: i16| (v as i32) << 2;
    words_of([c(q.x), c(q.y), c(q.z), c(q.w)])
}

#[cold]
#[inline(never)]
fn wide_value(q0: QuatWords, q1: QuatWords, t: i32, rotation: &mut Quat, matrix: &mut ColumnWords) {
    let q = interp::slerp(quat_of(q0), quat_of(q1), t);
    *rotation = q;
    *matrix = column_words(&interp::to_rotation(q));
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct TranslationChannel {
    cursor: Cursor,
    t0: Vec3i32,
    t1: Vec3i32,
}

impl TranslationChannel {
    pub fn new(bytes: &[u8], track: &Track<'_>) -> Option<Self> {
        let cursor = Cursor::new(bytes, track, KeyType::Translation)?;
        Some(TranslationChannel { cursor, t0: Vec3i32::ZERO, t1: Vec3i32::ZERO })
    }

    /// Moves to the segment holding `ticks` and decodes its ends when it changed.
    #[inline]
    pub fn prepare(&mut self, bytes: &[u8], ticks: u32, length: u16, looping: bool) {
        if self.cursor.seek(bytes, frame_of(ticks), length, looping) != Moved::Not {
            self.t0 = read_translation(bytes, self.cursor.a.offset);
            self.t1 = read_translation(bytes, self.cursor.b.offset);
        }
    }

    /// The translation at `ticks`: a linear interpolation, rounded toward minus infinity.
    #[inline]
    pub fn value(&self, ticks: u32) -> Vec3i32 {
        let t = self.cursor.alpha(ticks);
        if t == 0 {
            return self.t0;
        }
        lerp(self.t0, self.t1, t)
    }
}

/// `a + (b - a) * t / 4096` per component, in 64 bits (translations use the whole `i32` range).
#[inline]
pub(crate) fn lerp(a: Vec3i32, b: Vec3i32, t: i32) -> Vec3i32 {
    let c = |a: i32, b: i32| (a as i64 + (((b as i64 - a as i64) * t as i64) >> 12)) as i32;
    Vec3i32::new(c(a.x, b.x), c(a.y, b.y), c(a.z, b.z))
}
