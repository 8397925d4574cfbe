//! The pose cache: every frame of every clip of a rigid character as model-space bone matrices,
//! expanded once at load time into a buffer the program provides.
//!
//! The compact pose stream ([`crate::tables`]) is small but costly to read: a frame is decoded from the
//! start of its block, then each bone's matrix is built from a quaternion and composed down the parent
//! chain. The cache does all of that once per clip frame and keeps the result, root-relative (parent
//! chain already composed), packed in 24 bytes per bone ([`PackedMatrix`]). A frame's pose at render
//! time is then one GTE compose per bone with the object (view * world) matrix
//! ([`crate::gte::Gte::compose_packed`]); an interpolated sample first blends two cached frames entry
//! by entry ([`PackedMatrix::lerp`]).
//!
//! The trade-off is RAM: `24 * bones * (sum of the clips' frame counts)` bytes, e.g. 40,128 bytes for
//! the fixture character (11 bones, 152 frames), against under 1 KiB per clip of compact samples. The
//! build decodes each clip in order ([`ClipFrames`]) and takes about 34,000 cycles per frame in
//! mednafen (5.1M cycles, 0.15 s, for the fixture; `examples/character` records it).
//! Model-space translations must fit `i16` (GTE units: +-8 m), which the import profile's +-7.5 m
//! bounds guarantee for bones inside the character; a blob that breaks this cannot be cached
//! (`TableError::ValueOverflow`) and renders through the compact path instead.

use super::bones;
use super::error::RenderError;
use super::scratch::{Scratch, MAX_BONES};
use crate::gte::{Cop2, Gte, PackedMatrix};
use crate::tables::stream::{sample_voice, VoiceState};
use crate::tables::{Storage, TableError, Tables, CHANNELS_PER_BONE, CLIP_SIZE, HEADER_SIZE};

/// Clips a cache can hold (the import profile's limit).
pub const MAX_CLIPS: usize = 32;

/// Cached bone poses of one rigid blob: for each clip, frame-major, `bones` entries per frame.
#[derive(Clone, Copy, Debug)]
pub struct PoseCache<'a> {
    /// The blob the poses were built from.
    blob: &'a [u8],
    poses: &'a [PackedMatrix],
    bones: usize,
    clips: usize,
    /// Per clip: the index in `poses` of its first frame's first bone, and its frame count (a
    /// lookup reads these two words instead of the blob's clip table).
    first_entry: [u32; MAX_CLIPS],
    frames: [u16; MAX_CLIPS],
}

/// Entries (one [`PackedMatrix`] per bone and clip frame) a rigid blob's cache needs.
pub fn entries_needed(tables: &Tables) -> Result<usize, TableError> {
    if tables.storage() != Storage::RigidGte {
        return Err(TableError::WrongStorage { expected: Storage::RigidGte, found: tables.storage() });
    }
    let mut frames = 0usize;
    for clip in 0..tables.clip_count() {
        frames += tables.clip(clip)?.frame_count as usize;
    }
    Ok(frames * tables.bone_count())
}

/// [`entries_needed`] of an embedded blob, at compile time, to size a `static` buffer: reads only the
/// header's bone and clip counts and the clips' frame counts (0 when the blob is too short to hold
/// them). [`PoseCache::build`] still checks the buffer against the parsed tables.
pub const fn entries_for_blob(blob: &[u8]) -> usize {
    const fn u16_at(b: &[u8], at: usize) -> usize {
        b[at] as usize | (b[at + 1] as usize) << 8
    }
    if blob.len() < HEADER_SIZE {
        return 0;
    }
    let (bones, clips) = (u16_at(blob, 8), u16_at(blob, 16));
    let table = u16_at(blob, 56) | u16_at(blob, 58) << 16;
    let mut frames = 0;
    let mut clip = 0;
    while clip < clips {
        let at = table + clip * CLIP_SIZE + 2;
        if at + 2 > blob.len() {
            return 0;
        }
        frames += u16_at(blob, at);
        clip += 1;
    }
    frames * bones
}

/// `out[i] = lerp(a[i], b[i], weight)` for as many entries as all three hold: an interpolated sample
/// between two cached frames (FP12 weight, see [`PackedMatrix::lerp`]). The halfway weight (a 30 Hz
/// clip sampled at 60 Hz) takes a multiply-free path with the same result.
pub fn blend(a: &[PackedMatrix], b: &[PackedMatrix], weight: u16, out: &mut [PackedMatrix]) {
    if weight == HALFWAY {
        for ((o, p), q) in out.iter_mut().zip(a).zip(b) {
            for (w, (x, y)) in o.words.iter_mut().zip(p.words.iter().zip(q.words.iter())) {
                *w = halfway(*x, *y);
            }
        }
        return;
    }
    for ((o, p), q) in out.iter_mut().zip(a).zip(b) {
        *o = PackedMatrix::lerp(p, q, weight);
    }
}

/// The FP12 weight 0.5.
const HALFWAY: u16 = 1 << 11;

/// `floor((x + y) / 2)` of both signed 16-bit halves of two words at once (= `lerp` at 0.5):
/// `(x & y) + ((x ^ y) >> 1)` per half, with the shift and the sum kept from crossing between halves.
#[inline(always)]
fn halfway(x: u32, y: u32) -> u32 {
    const SIGNS: u32 = 0x8000_8000;
    let t = x ^ y;
    let half = ((t >> 1) & !SIGNS) | (t & SIGNS); // arithmetic shift of each half
    let common = x & y;
    ((common & !SIGNS) + (half & !SIGNS)) ^ ((common ^ half) & SIGNS)
}

impl<'a> PoseCache<'a> {
    /// Decodes every frame of every clip of `tables` (in order, each frame from the previous one:
    /// [`sample_voice`]) and stores its model-space bone matrices in
    /// `buffer` (at least [`entries_needed`] entries). `scratch` is used as working memory;
    /// `after_frame` runs after each frame (the console times the build in pieces shorter than its
    /// cycle counter's wrap). The GTE's RT and TR are overwritten.
    pub fn build<B: Cop2, const V: usize>(
        gte: &mut Gte<B>,
        tables: &Tables<'a>,
        buffer: &'a mut [PackedMatrix],
        scratch: &mut Scratch<V>,
        after_frame: &mut dyn FnMut(),
    ) -> Result<Self, RenderError> {
        let bones = tables.bone_count();
        if bones > MAX_BONES {
            return Err(RenderError::TooManyBones { bones, max: MAX_BONES });
        }
        let clips = tables.clip_count();
        if clips > MAX_CLIPS {
            return Err(RenderError::TooManyClips { clips, max: MAX_CLIPS });
        }
        let needed = entries_needed(tables)?;
        if buffer.len() < needed {
            return Err(TableError::OutputTooSmall { needed, len: buffer.len() }.into());
        }
        let poses = &mut buffer[..needed];
        let (mut first_entry, mut frames) = ([0u32; MAX_CLIPS], [0u16; MAX_CLIPS]);
        // The most decoder state a clip can need: 6 words per channel.
        let mut words = [0u32; MAX_BONES * CHANNELS_PER_BONE * 6];
        let mut at = 0;
        for clip in 0..clips {
            let entry = tables.clip(clip)?;
            first_entry[clip] = at as u32;
            frames[clip] = entry.frame_count;
            let mut voice = VoiceState::IDLE;
            for frame in 0..entry.frame_count as usize {
                let samples = &mut scratch.samples[..bones];
                sample_voice(tables, &mut voice, &mut words, clip, frame, 4096, samples)?;
                let model = &mut scratch.matrices[..bones];
                bones::model_matrices(gte, tables, samples, model);
                for (out, m) in poses[at..at + bones].iter_mut().zip(model.iter()) {
                    *out = PackedMatrix::pack(m).ok_or(TableError::ValueOverflow { offset: entry.data_offset as usize })?;
                }
                at += bones;
                after_frame();
            }
        }
        Ok(PoseCache { blob: tables.bytes(), poses, bones, clips, first_entry, frames })
    }

    /// True when this cache was built from these tables (the same blob in memory).
    pub fn belongs_to(&self, tables: &Tables) -> bool {
        core::ptr::eq(self.blob, tables.bytes())
    }

    /// Every cached entry: clip by clip, frame by frame, bone by bone.
    pub fn entries(&self) -> &'a [PackedMatrix] {
        self.poses
    }

    /// Bytes of RAM the cached poses take.
    pub fn bytes(&self) -> usize {
        core::mem::size_of_val(self.poses)
    }

    /// The model-space matrix of every bone at `frame` of `clip`.
    pub fn pose(&self, clip: usize, frame: usize) -> Result<&'a [PackedMatrix], TableError> {
        if clip >= self.clips {
            return Err(TableError::ClipOutOfRange { clip, clips: self.clips });
        }
        let frames = self.frames[clip] as usize;
        if frame >= frames {
            return Err(TableError::FrameOutOfRange { clip, frame, frames });
        }
        let start = self.first_entry[clip] as usize + frame * self.bones;
        let end = start + self.bones;
        self.poses.get(start..end).ok_or(TableError::OutputTooSmall { needed: end, len: self.poses.len() })
    }
}
