//! Reading a CLIPBIN blob in place (see the module above for the layout).

use crate::anim::skeleton::{LocalTransform, Skeleton};
use crate::bytes;
use crate::math::{Matrix, Quat, Vec3i32};

pub const MAGIC: &[u8; 8] = b"PSXCLIPS";
pub const VERSION: u16 = 1;
pub const NAME_BYTES: usize = 32;
pub const HEADER_BYTES: usize = 20;
pub const CLIP_ENTRY_BYTES: usize = 48;
pub const MATRIX_BYTES: usize = 32;
pub const LOCAL_BYTES: usize = 20;
pub const MARKER_BYTES: usize = 36;
const MATRIX_WORDS: usize = MATRIX_BYTES / 4;

// A stored matrix is a `repr(C)` [`Matrix`] in memory (little-endian): the aligned table is read in place.
const _: () = {
    assert!(core::mem::size_of::<Matrix>() == MATRIX_BYTES && core::mem::align_of::<Matrix>() == 4);
    assert!(core::mem::offset_of!(Matrix, translation) == 20);
    assert!(core::mem::offset_of!(Vec3i32, y) == 4 && core::mem::offset_of!(Vec3i32, z) == 8);
};

/// What is wrong with a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The blob ends inside a field or section of `needed` bytes at the error offset.
    Truncated {
        needed: u32,
        available: u32,
    },
    BadMagic,
    UnsupportedVersion {
        found: u16,
    },
    /// The poses were composed for a skeleton of another size.
    BoneCount {
        found: u16,
        expected: u16,
    },
    /// The poses were composed on a skeleton with other parents or bind pose.
    SkeletonHash {
        found: u32,
        expected: u32,
    },
    /// A clip of no frames.
    ZeroFrames {
        clip: u16,
    },
    /// A section offset that is not a multiple of 4.
    Misaligned {
        clip: u16,
        offset: u32,
    },
    MarkerFrameOutOfRange {
        clip: u16,
        marker: u16,
        frame: u16,
        frames: u16,
    },
}

/// A blob error: what and the byte offset of the field at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    pub offset: u32,
    pub kind: ErrorKind,
}

impl Error {
    /// A stable number per kind, for the verification record.
    pub fn code(&self) -> u32 {
        match self.kind {
            ErrorKind::Truncated { .. } => 1,
            ErrorKind::BadMagic => 2,
            ErrorKind::UnsupportedVersion { .. } => 3,
            ErrorKind::BoneCount { .. } => 4,
            ErrorKind::SkeletonHash { .. } => 5,
            ErrorKind::ZeroFrames { .. } => 6,
            ErrorKind::Misaligned { .. } => 7,
            ErrorKind::MarkerFrameOutOfRange { .. } => 8,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "CLIPBIN offset {}: ", self.offset)?;
        match self.kind {
            ErrorKind::Truncated { needed, available } => {
                write!(f, "blob ends early: {needed} bytes needed, {available} left")
            }
            ErrorKind::BadMagic => write!(f, "magic is not \"PSXCLIPS\""),
            ErrorKind::UnsupportedVersion { found } => write!(f, "version {found}, expected {VERSION}"),
            ErrorKind::BoneCount { found, expected } => {
                write!(f, "poses of {found} bones, the skeleton has {expected}")
            }
            ErrorKind::SkeletonHash { found, expected } => write!(
                f,
                "poses composed on skeleton {found:#010x}, this skeleton is {expected:#010x} (other parents or bind pose)"
            ),
            ErrorKind::ZeroFrames { clip } => write!(f, "clip {clip} has no frame"),
            ErrorKind::Misaligned { clip, offset } => {
                write!(f, "clip {clip}: section offset {offset} is not a multiple of 4")
            }
            ErrorKind::MarkerFrameOutOfRange { clip, marker, frame, frames } => {
                write!(f, "clip {clip} marker {marker}: frame {frame} is not below the frame count {frames}")
            }
        }
    }
}

fn err(offset: usize, kind: ErrorKind) -> Error {
    Error { offset: offset as u32, kind }
}

fn need(bytes: &[u8], at: usize, len: usize) -> Result<&[u8], Error> {
    bytes::field(bytes, at, len).map_err(|s| err(at, ErrorKind::Truncated { needed: s.needed, available: s.available }))
}

/// Reads inside validated bounds (the fallback 0 never happens after `parse`).
fn u16_at(bytes: &[u8], at: usize) -> u16 {
    match bytes.get(at..at + 2) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]),
        None => 0,
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    match bytes.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

fn name_at(bytes: &[u8], at: usize) -> &[u8] {
    bytes::name(bytes, at, NAME_BYTES)
}

/// FNV-1a over the parents and the bind pose: identifies the skeleton the poses belong to.
pub fn skeleton_hash(skeleton: &Skeleton<'_>) -> u32 {
    let mut h = 0x811C_9DC5u32;
    let mut eat = |b: &[u8]| {
        for &x in b {
            h = (h ^ x as u32).wrapping_mul(0x0100_0193);
        }
    };
    eat(skeleton.parents());
    for b in skeleton.bind() {
        let q = b.rotation;
        for v in [q.w, q.x, q.y, q.z] {
            eat(&v.to_le_bytes());
        }
        for v in [b.translation.x, b.translation.y, b.translation.z] {
            eat(&v.to_le_bytes());
        }
    }
    h
}

/// A validated blob of compiled clips for one skeleton.
#[derive(Clone, Copy)]
pub struct ClipBin<'a> {
    bytes: &'a [u8],
    bones: u16,
    clips: u16,
}

impl<'a> ClipBin<'a> {
    /// Validates `bytes` as clips compiled for `skeleton` (bone count and [`skeleton_hash`]).
    pub fn parse(bytes: &'a [u8], skeleton: &Skeleton<'_>) -> Result<Self, Error> {
        let header = need(bytes, 0, HEADER_BYTES)?;
        if &header[..8] != MAGIC {
            return Err(err(0, ErrorKind::BadMagic));
        }
        let version = u16_at(bytes, 8);
        if version != VERSION {
            return Err(err(8, ErrorKind::UnsupportedVersion { found: version }));
        }
        let bones = u16_at(bytes, 10);
        if bones as usize != skeleton.len() {
            return Err(err(10, ErrorKind::BoneCount { found: bones, expected: skeleton.len() as u16 }));
        }
        let clips = u16_at(bytes, 12);
        let hash = u32_at(bytes, 16);
        let expected = skeleton_hash(skeleton);
        if hash != expected {
            return Err(err(16, ErrorKind::SkeletonHash { found: hash, expected }));
        }
        for clip in 0..clips {
            let at = HEADER_BYTES + clip as usize * CLIP_ENTRY_BYTES;
            need(bytes, at, CLIP_ENTRY_BYTES)?;
            let frames = u16_at(bytes, at + 32);
            if frames == 0 {
                return Err(err(at + 32, ErrorKind::ZeroFrames { clip }));
            }
            let markers = u16_at(bytes, at + 36);
            let poses = u32_at(bytes, at + 40) as usize;
            let marker_table = u32_at(bytes, at + 44) as usize;
            for (field, offset) in [(at + 40, poses), (at + 44, marker_table)] {
                if offset % 4 != 0 {
                    return Err(err(field, ErrorKind::Misaligned { clip, offset: offset as u32 }));
                }
            }
            // frames, bones < 2^16 and 52 bytes each: below 2^38, fine in u64 then checked.
            let pose_bytes = frames as u64 * bones as u64 * (MATRIX_BYTES + LOCAL_BYTES) as u64;
            need(bytes, poses, usize::try_from(pose_bytes).unwrap_or(usize::MAX))?;
            need(bytes, marker_table, markers as usize * MARKER_BYTES)?;
            for marker in 0..markers {
                let m = marker_table + marker as usize * MARKER_BYTES;
                let frame = u16_at(bytes, m + NAME_BYTES);
                if frame >= frames {
                    return Err(err(m + NAME_BYTES, ErrorKind::MarkerFrameOutOfRange { clip, marker, frame, frames }));
                }
            }
        }
        Ok(ClipBin { bytes, bones, clips })
    }

    pub fn len(&self) -> usize {
        self.clips as usize
    }

    pub fn is_empty(&self) -> bool {
        self.clips == 0
    }

    pub fn bone_count(&self) -> usize {
        self.bones as usize
    }

    pub fn clip(&self, index: usize) -> Option<CompiledClip<'a>> {
        if index >= self.clips as usize {
            return None;
        }
        let at = HEADER_BYTES + index * CLIP_ENTRY_BYTES;
        let b = self.bytes;
        let frames = u16_at(b, at + 32);
        let bones = self.bones as usize;
        let poses = u32_at(b, at + 40) as usize;
        let pose_words = frames as usize * bones * MATRIX_WORDS;
        Some(CompiledClip {
            bytes: b,
            entry: at as u32,
            frames,
            bones: self.bones,
            looping: u16_at(b, at + 34) & 1 != 0,
            poses: poses as u32,
            locals: (poses + pose_words * 4) as u32,
            matrices: crate::bytes::aligned_words(b, poses, pose_words).map(as_matrices),
        })
    }

    pub fn find(&self, name: &[u8]) -> Option<CompiledClip<'a>> {
        (0..self.len()).filter_map(|i| self.clip(i)).find(|c| c.name() == name)
    }
}

/// The words of a pose table as the matrices they store (`len / 8` whole matrices).
fn as_matrices(words: &[u32]) -> &[Matrix] {
    let whole = words.len() / MATRIX_WORDS * MATRIX_WORDS;
    bytemuck::cast_slice(&words[..whole])
}

/// One compiled clip: a pose per frame, its looping flag and markers.
#[derive(Clone, Copy)]
pub struct CompiledClip<'a> {
    bytes: &'a [u8],
    entry: u32,
    frames: u16,
    bones: u16,
    looping: bool,
    poses: u32,
    locals: u32,
    /// The model-space matrices in place when the blob is 4-aligned in memory (little-endian).
    matrices: Option<&'a [Matrix]>,
}

impl<'a> CompiledClip<'a> {
    pub fn name(&self) -> &'a [u8] {
        name_at(self.bytes, self.entry as usize)
    }
    /// Frames compiled: the ANIMBIN clip's length.
    pub fn frames(&self) -> u16 {
        self.frames
    }
    /// The looping flag the frames were compiled for (it changes the frames after the last key).
    pub fn looping(&self) -> bool {
        self.looping
    }
    pub fn bone_count(&self) -> usize {
        self.bones as usize
    }
    /// Byte offset of the clip's directory entry (identifies the clip cheaply).
    pub fn offset(&self) -> u32 {
        self.entry
    }
    pub fn marker_count(&self) -> usize {
        u16_at(self.bytes, self.entry as usize + 36) as usize
    }
    /// Marker `index`: name (NUL padding removed) and frame.
    pub fn marker(&self, index: usize) -> Option<(&'a [u8], u16)> {
        if index >= self.marker_count() {
            return None;
        }
        let at = u32_at(self.bytes, self.entry as usize + 44) as usize + index * MARKER_BYTES;
        Some((name_at(self.bytes, at), u16_at(self.bytes, at + NAME_BYTES)))
    }

    /// The model-space matrices of `frame` (clamped to the last) read in place, one per bone; `None`
    /// when the blob is not 4-aligned in memory (then use [`write_pose`](Self::write_pose)).
    #[inline]
    pub fn pose(&self, frame: u16) -> Option<&'a [Matrix]> {
        let frame = frame.min(self.frames - 1) as usize;
        let bones = self.bones as usize;
        self.matrices?.get(frame * bones..(frame + 1) * bones)
    }

    /// Writes the model-space matrices of `frame` (clamped to the last) into `out` (the first
    /// `min(bones, out.len())`).
    #[inline]
    pub fn write_pose(&self, frame: u16, out: &mut [Matrix]) {
        if let Some(pose) = self.pose(frame) {
            // Element by element: each 32-byte copy becomes eight word loads and stores, where
            // `copy_from_slice` calls a looping `memcpy` about half as fast on the R3000.
            for (o, m) in out.iter_mut().zip(pose) {
                *o = *m;
            }
            return;
        }
        let frame = frame.min(self.frames - 1) as usize;
        let bones = self.bones as usize;
        let base = self.poses as usize + frame * bones * MATRIX_BYTES;
        for (bone, m) in out.iter_mut().take(bones).enumerate() {
            let at = base + bone * MATRIX_BYTES;
            *m = matrix_of(|i| u32_at(self.bytes, at + 4 * i));
        }
    }

    /// Bone `bone`'s local transform at `frame` (clamped to the last frame), as the ANIMBIN path
    /// sampled it (bind pose for bones the clip does not animate); the identity out of range.
    pub fn local(&self, frame: u16, bone: usize) -> LocalTransform {
        if bone >= self.bones as usize {
            return LocalTransform::IDENTITY;
        }
        let frame = frame.min(self.frames - 1) as usize;
        let at = self.locals as usize + (frame * self.bones as usize + bone) * LOCAL_BYTES;
        let w = |i: usize| u32_at(self.bytes, at + 4 * i);
        let (a, b) = (w(0), w(1));
        LocalTransform::new(
            Quat::new(a as i16, (a >> 16) as i16, b as i16, (b >> 16) as i16),
            Vec3i32::new(w(2) as i32, w(3) as i32, w(4) as i32),
        )
    }
}

#[inline(always)]
fn matrix_of(w: impl Fn(usize) -> u32) -> Matrix {
    let lo = |v: u32| v as i16;
    let hi = |v: u32| (v >> 16) as i16;
    let (a, b, c, d, e) = (w(0), w(1), w(2), w(3), w(4));
    Matrix::new(
        [[lo(a), hi(a), lo(b)], [hi(b), lo(c), hi(c)], [lo(d), hi(d), lo(e)]],
        Vec3i32::new(w(5) as i32, w(6) as i32, w(7) as i32),
    )
}

/// The words of a matrix as stored (also the verification record's order).
pub fn matrix_words(m: &Matrix) -> [u32; MATRIX_WORDS] {
    let r = m.rotation;
    let pair = |a: i16, b: i16| a as u16 as u32 | (b as u16 as u32) << 16;
    [
        pair(r[0][0], r[0][1]),
        pair(r[0][2], r[1][0]),
        pair(r[1][1], r[1][2]),
        pair(r[2][0], r[2][1]),
        r[2][2] as u16 as u32,
        m.translation.x as u32,
        m.translation.y as u32,
        m.translation.z as u32,
    ]
}

