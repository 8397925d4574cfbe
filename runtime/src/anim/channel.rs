//! Sampling one animated channel (a joint's rotation or translation) at a playback time.
//!
//! Each channel keeps its segment's two end values decoded (rotations normalised and put in the same
//! hemisphere) so that a frame inside the segment only interpolates. Whether a rotation segment needs
//! the accurate path is decided once, when the segment is entered.

use super::cursor::Cursor;
use super::interp;
use super::time::TICKS_PER_FRAME;
use crate::animbin::{le_i16, le_i32, KeyType, Track};
use crate::math::{Quat, Vec3i32};

fn read_rotation(bytes: &[u8], offset: u32) -> Quat {
    let p = offset as usize + 3;
    Quat::new(le_i16(bytes, p), le_i16(bytes, p + 2), le_i16(bytes, p + 4), le_i16(bytes, p + 6))
}

fn read_translation(bytes: &[u8], offset: u32) -> Vec3i32 {
    let p = offset as usize + 3;
    Vec3i32::new(le_i32(bytes, p), le_i32(bytes, p + 4), le_i32(bytes, p + 8))
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

    /// The rotation at `ticks` of a clip of `length` frames.
    #[inline]
    pub fn sample(&mut self, bytes: &[u8], ticks: u32, length: u16, looping: bool) -> Quat {
        let (old_a, old_b) = (self.cursor.a, self.cursor.b);
        if self.cursor.seek(bytes, frame_of(ticks), length, looping) {
            // Stepping one key on reuses the decoded end.
            self.q0 = if self.cursor.a == old_b && old_a != old_b {
                self.q1
            } else {
                interp::unit(read_rotation(bytes, self.cursor.a.offset))
            };
            let mut q1 = interp::unit(read_rotation(bytes, self.cursor.b.offset));
            let mut d = interp::dot(self.q0, q1);
            if d < 0 {
                q1 = Quat::new(-q1.w, -q1.x, -q1.y, -q1.z); // unit components never reach -32768
                d = -d;
            }
            self.q1 = q1;
            self.wide = d < interp::NLERP_MIN_COS;
        }
        let t = self.cursor.alpha(ticks);
        if t == 0 {
            self.q0
        } else if self.wide {
            interp::slerp(self.q0, self.q1, t)
        } else {
            interp::nlerp(self.q0, self.q1, t)
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

    /// The translation at `ticks`: a linear interpolation, rounded toward minus infinity.
    #[inline]
    pub fn sample(&mut self, bytes: &[u8], ticks: u32, length: u16, looping: bool) -> Vec3i32 {
        if self.cursor.seek(bytes, frame_of(ticks), length, looping) {
            self.t0 = read_translation(bytes, self.cursor.a.offset);
            self.t1 = read_translation(bytes, self.cursor.b.offset);
        }
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
