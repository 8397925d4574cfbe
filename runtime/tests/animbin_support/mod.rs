//! Builds ANIMBIN byte vectors for tests, including deliberately wrong ones.
#![allow(dead_code)]

#[derive(Clone, Debug)]
pub enum Payload {
    Rotation([i16; 4]),
    Translation([i32; 3]),
    /// A key type byte other than 0 and 1, with these payload bytes.
    Raw(u8, Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct KeyB {
    pub frame: u16,
    pub payload: Payload,
}

#[derive(Clone, Debug)]
pub struct TrackB {
    pub ty: u8,
    pub joint: u8,
    pub keys: Vec<KeyB>,
}

#[derive(Clone, Debug)]
pub struct ClipB {
    pub name: [u8; 32],
    pub flags: u32,
    pub length: u16,
    pub tracks: Vec<TrackB>,
    pub markers: Vec<([u8; 32], u16)>,
}

#[derive(Clone, Debug)]
pub struct FileB {
    pub version: u8,
    pub clips: Vec<ClipB>,
}

pub fn name(s: &str) -> [u8; 32] {
    let mut n = [0u8; 32];
    n[..s.len()].copy_from_slice(s.as_bytes());
    n
}

pub fn rot(frame: u16, q: [i16; 4]) -> KeyB {
    KeyB { frame, payload: Payload::Rotation(q) }
}

pub fn trans(frame: u16, t: [i32; 3]) -> KeyB {
    KeyB { frame, payload: Payload::Translation(t) }
}

pub fn track(joint: u8, keys: Vec<KeyB>) -> TrackB {
    TrackB { ty: 0, joint, keys }
}

pub fn clip(n: &str, looping: bool, length: u16, tracks: Vec<TrackB>) -> ClipB {
    ClipB { name: name(n), flags: looping as u32, length, tracks, markers: vec![] }
}

pub const IDENTITY: [i16; 4] = [4096, 0, 0, 0];

impl FileB {
    pub fn new(clips: Vec<ClipB>) -> FileB {
        FileB { version: 1, clips }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = b"ANIMBIN".to_vec();
        b.push(self.version);
        b.push(self.clips.len() as u8);
        for c in &self.clips {
            b.extend_from_slice(&c.name);
            b.extend_from_slice(&c.flags.to_le_bytes());
            b.extend_from_slice(&c.length.to_le_bytes());
            b.extend_from_slice(&(c.tracks.len() as u16).to_le_bytes());
            b.extend_from_slice(&(c.markers.len() as u16).to_le_bytes());
            for t in &c.tracks {
                b.push(t.ty);
                b.push(t.joint);
                b.extend_from_slice(&(t.keys.len() as u16).to_le_bytes());
                for k in &t.keys {
                    b.extend_from_slice(&k.frame.to_le_bytes());
                    match &k.payload {
                        Payload::Rotation(q) => {
                            b.push(0);
                            q.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
                        }
                        Payload::Translation(t) => {
                            b.push(1);
                            t.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
                        }
                        Payload::Raw(ty, bytes) => {
                            b.push(*ty);
                            b.extend_from_slice(bytes);
                        }
                    }
                }
            }
            for (n, f) in &c.markers {
                b.extend_from_slice(n);
                b.extend_from_slice(&f.to_le_bytes());
            }
        }
        b
    }
}

/// Offsets of the fixed-size parts, for asserting error offsets.
pub const HEADER: usize = 9;
pub const CLIP_HEADER: usize = 42;
pub const TRACK_HEADER: usize = 4;
pub const ROT_KEY: usize = 11;
pub const TRANS_KEY: usize = 15;
pub const MARKER: usize = 34;
