//! Byte builders for hand-made test files, written from the format documents (not from the writers
//! under test), and comparison helpers.
#![allow(dead_code)]

use psxanim::model::{Animation, Quat, Track};

/// Appends little- or big-endian fields.
#[derive(Default, Clone)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn new() -> Bytes {
        Bytes(Vec::new())
    }
    pub fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    pub fn u8(self, v: u8) -> Self {
        self.raw(&[v])
    }
    pub fn u16le(self, v: u16) -> Self {
        self.raw(&v.to_le_bytes())
    }
    pub fn i16le(self, v: i16) -> Self {
        self.raw(&v.to_le_bytes())
    }
    pub fn u32le(self, v: u32) -> Self {
        self.raw(&v.to_le_bytes())
    }
    pub fn i32le(self, v: i32) -> Self {
        self.raw(&v.to_le_bytes())
    }
    pub fn f32le(self, v: f32) -> Self {
        self.raw(&v.to_le_bytes())
    }
    pub fn u16be(self, v: u16) -> Self {
        self.raw(&v.to_be_bytes())
    }
    pub fn i16be(self, v: i16) -> Self {
        self.raw(&v.to_be_bytes())
    }
    pub fn u32be(self, v: u32) -> Self {
        self.raw(&v.to_be_bytes())
    }
    pub fn f32be(self, v: f32) -> Self {
        self.raw(&v.to_be_bytes())
    }
    /// A fixed-width, NUL-padded text field.
    pub fn fixed(self, s: &str, n: usize) -> Self {
        let mut b = s.as_bytes().to_vec();
        b.resize(n, 0);
        self.raw(&b)
    }
    /// An `.ani` string: `u32` length, then the bytes.
    pub fn ani_str(self, s: &str) -> Self {
        self.u32le(s.len() as u32).raw(s.as_bytes())
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn done(self) -> Vec<u8> {
        self.0
    }
}

/// ANIMBIN rotation key: frame, keyType 0, w x y z.
pub fn animbin_rot(b: Bytes, frame: u16, q: [i16; 4]) -> Bytes {
    b.u16le(frame).u8(0).i16le(q[0]).i16le(q[1]).i16le(q[2]).i16le(q[3])
}

/// ANIMBIN translation key: frame, keyType 1, x y z.
pub fn animbin_trans(b: Bytes, frame: u16, v: [i32; 3]) -> Bytes {
    b.u16le(frame).u8(1).i32le(v[0]).i32le(v[1]).i32le(v[2])
}

/// Rotation angle between two quaternions, in radians (q and -q are the same rotation).
pub fn angle(a: Quat, b: Quat) -> f64 {
    a.angle_to(b)
}

/// Largest rotation error between two tracks sampled at `times` (in their clips' units).
pub fn max_rotation_error(a: &Track, b: &Track, times: &[f64], scale_b: f64) -> f64 {
    times
        .iter()
        .map(|&t| angle(a.sample_rotation(t).unwrap(), b.sample_rotation(t * scale_b).unwrap()))
        .fold(0.0, f64::max)
}

pub fn max_translation_error(a: &Track, b: &Track, times: &[f64], scale_b: f64) -> f64 {
    times
        .iter()
        .map(|&t| {
            let (x, y) = (a.sample_translation(t).unwrap(), b.sample_translation(t * scale_b).unwrap());
            (0..3).map(|i| (x[i] - y[i]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// A unit quaternion from an axis (not necessarily normalised) and an angle.
pub fn axis_angle(axis: [f64; 3], radians: f64) -> Quat {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let (s, c) = (radians * 0.5).sin_cos();
    Quat::new(c, axis[0] / n * s, axis[1] / n * s, axis[2] / n * s)
}

pub fn track(anim: &Animation, clip: usize, index: usize) -> &Track {
    &anim.clips[clip].tracks[index]
}
