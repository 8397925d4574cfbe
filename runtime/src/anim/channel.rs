//! Sampling one animated channel (a joint's rotation or translation) at a playback time.
//!
//! Each channel keeps its segment's two end values decoded (rotations normalised and put in the same
//! hemisphere) so that a frame inside the segment only interpolates. Whether a rotation segment needs
//! the accurate path is decided once, when the segment is entered.

use super::cursor::Cursor;
use super::interp;
use super::time::TICKS_PER_FRAME;
use crate::animbin::{KeyType, Track};
use crate::gte::{Cop2, Gte};
use crate::math::{Quat, Rotation, Vec3i32};

/// The payload of the validated key at `offset`, with one bounds check (the file was validated, so
/// the fallback never happens).
fn payload<const N: usize>(bytes: &[u8], offset: u32) -> [u8; N] {
    let p = offset as usize + 3;
    bytes.get(p..p + N).and_then(|s| s.try_into().ok()).unwrap_or([0; N])
}

/// A rotation key as stored when its components are within +/-2^13 (unit keys are), else scaled to
/// unit length, so that dot products and nlerp's squares stay within `i32`.
#[inline(always)]
fn read_rotation(bytes: &[u8], offset: u32) -> Quat {
    let b: [u8; 8] = payload(bytes, offset);
    let c = |i: usize| i16::from_le_bytes([b[i], b[i + 1]]);
    let q = Quat::new(c(0), c(2), c(4), c(6));
    let m = |v: i16| (v as i32).abs();
    if (m(q.w) | m(q.x) | m(q.y) | m(q.z)) < 1 << 13 {
        q
    } else {
        unit_key(q)
    }
}

#[cold]
#[inline(never)]
fn unit_key(q: Quat) -> Quat {
    interp::unit(q)
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
    /// Unit rotations of keys `a` and `b`, `q1` in `q0`'s hemisphere.
    q0: Quat,
    q1: Quat,
    /// The segment spans more than 30 degrees of rotation: interpolate by subdivision.
    wide: bool,
}

impl RotationChannel {
    pub fn new(bytes: &[u8], track: &Track<'_>) -> Option<Self> {
        let cursor = Cursor::new(bytes, track, KeyType::Rotation)?;
        Some(RotationChannel { cursor, q0: Quat::IDENTITY, q1: Quat::IDENTITY, wide: false })
    }

    /// Moves to the segment holding `ticks` and decodes its ends when it changed (the first pass of
    /// an evaluation: cursor walking and key decoding for every channel, then interpolation).
    #[inline]
    pub fn prepare(&mut self, bytes: &[u8], ticks: u32, length: u16, looping: bool) {
        let (old_a, old_b) = (self.cursor.a.offset, self.cursor.b.offset);
        if self.cursor.seek(bytes, frame_of(ticks), length, looping) {
            // Stepping one key on reuses the decoded end.
            let q0 = if self.cursor.a.offset == old_b && old_a != old_b {
                self.q1
            } else {
                read_rotation(bytes, self.cursor.a.offset)
            };
            self.load(bytes, q0);
        }
    }

    /// Keys are used as stored: nlerp normalises its result, and the hemisphere and arc tests only
    /// need the files' near-unit keys.
    #[inline(always)]
    fn load(&mut self, bytes: &[u8], q0: Quat) {
        self.q0 = q0;
        let mut q1 = read_rotation(bytes, self.cursor.b.offset);
        let mut d = interp::dot(self.q0, q1);
        if d < 0 {
            q1 = Quat::new(-q1.w, -q1.x, -q1.y, -q1.z); // never -32768: |component| <= 2^14
            d = -d;
        }
        self.q1 = q1;
        self.wide = d < interp::NLERP_MIN_COS;
    }

    /// The rotation at `ticks` (after [`prepare`](Self::prepare) with the same time): unit length.
    #[inline]
    pub fn value(&self, ticks: u32) -> Quat {
        let t = self.cursor.alpha(ticks);
        if self.wide {
            interp::slerp(self.q0, self.q1, t)
        } else {
            // Also at t = 0: the keys are only near unit, nlerp normalises.
            interp::nlerp(self.q0, self.q1, t)
        }
    }
}

impl RotationChannel {
    /// [`value`](Self::value) and its rotation matrix ([`interp::to_rotation`]), the products on
    /// the GTE for the usual narrow segment: the same bits.
    #[inline]
    pub fn value_matrix<B: Cop2>(&self, gte: &mut Gte<B>, ticks: u32) -> (Quat, Rotation) {
        let t = self.cursor.alpha(ticks);
        if self.wide {
            let q = interp::slerp(self.q0, self.q1, t);
            (q, interp::to_rotation(q))
        } else {
            interp::nlerp_matrix(gte, self.q0, self.q1, t)
        }
    }
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
        if self.cursor.seek(bytes, frame_of(ticks), length, looping) {
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
