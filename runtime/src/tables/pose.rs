//! Compact rigid pose samples: one parent-relative rotation, translation and scale per bone and frame.
//!
//! # Clip data layout
//! ```text
//!  0 u16 block frames B (1..=256)     2 u16 block count (= ceil(frame count / B))
//!  4 channel descriptors, bone-major, 3 per bone (rotation, translation, scale), 4 bytes each:
//!      u8 flags (bit 0: animated; else constant), u8 fraction bits k, u8 base width (1..=32), u8 0
//!  . u32 bit offset of each block in the stream (constants start at bit 0)
//!  . the bit stream (least-significant bit first) to the end of the clip data
//! ```
//! A stored value `v` with `k` fraction bits means `v / 2^k` of the channel's unit: a quaternion
//! component (1.0 = unit), GTE units (translation), or a scale ratio to the bind pose (1.0 = unchanged).
//!
//! The stream holds first every constant channel's value (bones in order, channels in order), then one
//! block per B frames holding every animated channel (same order). A rotation stores only three of the
//! four quaternion components ("smallest three" per block): a 2-bit index of the dropped component, then
//! the others in x, y, z, w order; the dropped one is `sqrt(1 - a^2 - b^2 - c^2)` (the encoder makes it
//! positive); a stored component beyond +-1.0 is an error (`ValueOverflow` at the channel). A constant
//! component is `base` (base width bits). An animated component in a block of `n` frames is
//! ```text
//! [wb: 5 bits][wr: 5 bits][base: base width][d1: wb bits, if n >= 2][n-2 residuals: wr bits each]
//! ```
//! a second-order delta code: `v0 = base`, `d = d1`, then `v[i] = v[i-1] + d` where `d` grows by the
//! residual of each frame from the third on. Smooth motion has tiny residuals, so most bits go to the
//! few headers; any frame is reached by decoding at most B values per component (random access by block).

use super::bits::BitReader;
use super::{u16_at, u32_at, Clip, Storage, TableError, Tables};
use crate::math::isqrt_u64;

/// Fraction bits of a decoded quaternion component (1.0 = 2^30).
pub const ROTATION_FRAC: u32 = 30;
/// Fraction bits of a decoded translation, in GTE units (1 unit = 2^8).
pub const TRANSLATION_FRAC: u32 = 8;
/// Fraction bits of a decoded scale ratio (1.0 = 2^16).
pub const SCALE_FRAC: u32 = 16;
/// Rotation, translation, scale.
pub const CHANNELS_PER_BONE: usize = 3;
pub const CLIP_POSE_HEADER_SIZE: usize = 4;
pub const CHANNEL_DESCRIPTOR_SIZE: usize = 4;
/// Flag bit of an animated (not constant) channel.
pub const CHANNEL_ANIMATED: u8 = 1;
/// Width of the wb / wr fields of an animated component.
pub const COMPONENT_WIDTH_BITS: u32 = 5;
/// Width of the index of a rotation's dropped component.
pub const ROTATION_INDEX_BITS: u32 = 2;

const FRACS: [u32; CHANNELS_PER_BONE] = [ROTATION_FRAC, TRANSLATION_FRAC, SCALE_FRAC];

/// One bone's parent-relative pose at one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoneSample {
    /// Unit quaternion x, y, z, w with `ROTATION_FRAC` fraction bits.
    pub rotation: [i32; 4],
    /// Translation in GTE units with `TRANSLATION_FRAC` fraction bits.
    pub translation: [i32; 3],
    /// Per-axis scale relative to the bind pose, `SCALE_FRAC` fraction bits.
    pub scale: [i32; 3],
}

/// A decoded channel descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelDescriptor {
    pub animated: bool,
    pub fraction_bits: u8,
    pub base_bits: u8,
}

struct ClipLayout {
    block_frames: usize,
    block_count: usize,
    descriptors: usize,
    block_offsets: usize,
    stream: usize,
    end: usize,
}

fn layout(t: &Tables, clip_index: usize, clip: &Clip) -> Result<ClipLayout, TableError> {
    let start = clip.data_offset as usize;
    let end = start + clip.data_size as usize;
    let bad = |offset, what| TableError::BadClipData { clip: clip_index, offset, what };
    if (clip.data_size as usize) < CLIP_POSE_HEADER_SIZE {
        return Err(bad(start, "pose data shorter than its header"));
    }
    let block_frames = u16_at(t.bytes(), start) as usize;
    let block_count = u16_at(t.bytes(), start + 2) as usize;
    if block_frames == 0 || block_frames > 256 {
        return Err(bad(start, "block frames must be 1..=256"));
    }
    if block_count != (clip.frame_count as usize).div_ceil(block_frames) {
        return Err(bad(start + 2, "block count does not match frame count / block frames"));
    }
    let descriptors = start + CLIP_POSE_HEADER_SIZE;
    let block_offsets = descriptors + t.bone_count() * CHANNELS_PER_BONE * CHANNEL_DESCRIPTOR_SIZE;
    let stream = block_offsets + 4 * block_count;
    if stream > end {
        return Err(bad(start, "descriptors and block offsets run past the clip data"));
    }
    Ok(ClipLayout { block_frames, block_count, descriptors, block_offsets, stream, end })
}

fn descriptor(t: &Tables, l: &ClipLayout, bone: usize, channel: usize) -> ChannelDescriptor {
    let o = l.descriptors + (bone * CHANNELS_PER_BONE + channel) * CHANNEL_DESCRIPTOR_SIZE;
    let b = t.bytes();
    ChannelDescriptor { animated: b[o] & CHANNEL_ANIMATED != 0, fraction_bits: b[o + 1], base_bits: b[o + 2] }
}

/// Parse-time checks of a rigid clip: header, descriptors, block offsets inside the stream.
pub(super) fn check_clip(t: &Tables, clip_index: usize, clip: &Clip) -> Result<(), TableError> {
    let l = layout(t, clip_index, clip)?;
    for bone in 0..t.bone_count() {
        for (channel, frac) in FRACS.iter().enumerate() {
            let d = descriptor(t, &l, bone, channel);
            let o = l.descriptors + (bone * CHANNELS_PER_BONE + channel) * CHANNEL_DESCRIPTOR_SIZE;
            if d.fraction_bits as u32 > *frac {
                return Err(TableError::BadClipData {
                    clip: clip_index,
                    offset: o + 1,
                    what: "fraction bits too large",
                });
            }
            if d.base_bits == 0 || d.base_bits > 32 {
                return Err(TableError::BadClipData {
                    clip: clip_index,
                    offset: o + 2,
                    what: "base width must be 1..=32",
                });
            }
        }
    }
    let stream_bits = (l.end - l.stream) * 8;
    for k in 0..l.block_count {
        let at = l.block_offsets + 4 * k;
        if u32_at(t.bytes(), at) as usize > stream_bits {
            return Err(TableError::BadClipData { clip: clip_index, offset: at, what: "block offset past the stream" });
        }
    }
    Ok(())
}

/// Shifts a value with `k` fraction bits to `frac` fraction bits.
/// A range test and a 32-bit shift: a checked 64-bit multiply is a library call on the R3000.
#[inline(always)]
fn widen(v: i64, k: u8, frac: u32, offset: usize) -> Result<i32, TableError> {
    let shift = frac.saturating_sub(k as u32);
    if v < (i32::MIN >> shift) as i64 || v > (i32::MAX >> shift) as i64 {
        return Err(TableError::ValueOverflow { offset });
    }
    Ok((v as i32) << shift)
}

/// Value at index `j` of an animated component in a block of `n` frames; leaves `r` after the component.
fn animated_component(r: &mut BitReader, base_bits: u8, n: usize, j: usize) -> Result<i64, TableError> {
    let wb = r.read(COMPONENT_WIDTH_BITS)?;
    let wr = r.read(COMPONENT_WIDTH_BITS)?;
    let mut v = r.read_signed(base_bits as u32)? as i64;
    if n < 2 {
        return Ok(v);
    }
    let mut d = r.read_signed(wb)? as i64;
    if j >= 1 {
        v += d;
    }
    for _ in 2..=j {
        d += r.read_signed(wr)? as i64;
        v += d;
    }
    let read = j.saturating_sub(1);
    r.skip((n - 2 - read) * wr as usize)?;
    Ok(v)
}

fn read_channel(
    r: &mut BitReader,
    d: ChannelDescriptor,
    channel: usize,
    animated: Option<(usize, usize)>,
    out: &mut BoneSample,
) -> Result<(), TableError> {
    let offset = r.byte_offset();
    let dropped = if channel == 0 { r.read(ROTATION_INDEX_BITS)? as usize } else { 0 };
    let mut values = [0i32; 3];
    for v in values.iter_mut() {
        let raw = match animated {
            Some((n, j)) => animated_component(r, d.base_bits, n, j)?,
            None => r.read_signed(d.base_bits as u32)? as i64,
        };
        *v = widen(raw, d.fraction_bits, FRACS[channel], offset)?;
    }
    store_channel(channel, dropped, values, offset, out)
}

/// Puts a channel's three stored values (already widened) into `out`; a rotation's dropped
/// component (index `dropped`) is rebuilt from the other three. A stored rotation component above
/// 1.0 in magnitude is no unit quaternion's: `ValueOverflow` at `offset` (the channel's), so users
/// of samples can rely on every component being within +-2^30 (the blend's products fit `i64`).
#[inline(always)]
fn store_channel(channel: usize, dropped: usize, values: [i32; 3], offset: usize, out: &mut BoneSample) -> Result<(), TableError> {
    match channel {
        0 => {
            const ONE: i32 = 1 << ROTATION_FRAC;
            if values.iter().any(|&c| !(-ONE..=ONE).contains(&c)) {
                return Err(TableError::ValueOverflow { offset });
            }
            let mut q = [0i32; 4];
            let mut sum: u64 = 0;
            let mut k = 0;
            for (i, c) in q.iter_mut().enumerate() {
                if i != dropped && k < 3 {
                    *c = values[k];
                    k += 1;
                    sum = sum.saturating_add((*c as i64 * *c as i64) as u64);
                }
            }
            let one = 1u64 << (2 * ROTATION_FRAC);
            q[dropped & 3] = isqrt_q60(one.saturating_sub(sum)) as i32;
            out.rotation = q;
        }
        1 => out.translation = values,
        _ => out.scale = values,
    }
    Ok(())
}

pub(super) fn decode(
    t: &Tables,
    clip_index: usize,
    clip: &Clip,
    frame: usize,
    out: &mut [BoneSample],
) -> Result<(), TableError> {
    let l = layout(t, clip_index, clip)?;
    let stream = &t.bytes()[l.stream..l.end];
    let block = frame / l.block_frames;
    let j = frame % l.block_frames;
    let n = (clip.frame_count as usize - block * l.block_frames).min(l.block_frames);
    let block_bit = u32_at(t.bytes(), l.block_offsets + 4 * block) as usize;
    let mut constants = BitReader::new(stream, l.stream, 0);
    let mut animated = BitReader::new(stream, l.stream, block_bit);
    for (bone, sample) in out.iter_mut().enumerate() {
        for channel in 0..CHANNELS_PER_BONE {
            let d = descriptor(t, &l, bone, channel);
            if d.animated {
                read_channel(&mut animated, d, channel, Some((n, j)), sample)?;
            } else {
                read_channel(&mut constants, d, channel, None, sample)?;
            }
        }
    }
    Ok(())
}

/// `floor(sqrt(n))` (= [`isqrt_u64`]) with 32-bit steps for `n < 2^62` (a rotation's dropped
/// component: `n <= 2^60`): two result bits' worth of `n` per step, the remainder kept in 32 bits
/// (it stays below `2 * root`; a remainder of 2^30 or more would pass 32 bits when shifted, and is
/// then larger than the trial value anyway). 64-bit arithmetic is a long sequence on the R3000.
fn isqrt_q60(n: u64) -> u64 {
    if n >> 62 != 0 {
        return isqrt_u64(n);
    }
    let (mut root, mut rem) = (0u32, 0u32);
    for word in [(n >> 32) as u32, n as u32] {
        for pair in (0..16).rev() {
            let big = rem >= 1 << 30;
            let shifted = (rem << 2) | ((word >> (2 * pair)) & 3);
            let trial = (root << 2) | 1;
            root <<= 1;
            if big || shifted >= trial {
                rem = shifted.wrapping_sub(trial);
                root |= 1;
            } else {
                rem = shifted;
            }
        }
    }
    root as u64
}

/// Stored components per bone (three per channel): the cursors a [`ClipFrames`] needs per bone.
pub const COMPONENTS_PER_BONE: usize = 3 * CHANNELS_PER_BONE;

/// Where one animated component stands inside its block: its value and first difference at the
/// current frame, and the bit of its next residual.
#[derive(Clone, Copy, Debug, Default)]
pub struct ComponentCursor {
    value: i64,
    step: i64,
    next_residual: usize,
    residual_bits: u32,
    /// Of the channel: its byte offset (for errors) and, for a rotation, the dropped component.
    channel_offset: usize,
    dropped: u8,
}

impl ComponentCursor {
    pub const ZERO: Self = Self { value: 0, step: 0, next_residual: 0, residual_bits: 0, channel_offset: 0, dropped: 0 };
}

/// Decodes the frames of a rigid clip in order, each from the previous one: the second-order delta
/// code is a running sum, so frame `j` of a block costs one residual per animated component where
/// [`Tables::decode_pose`] re-reads `j` of them, and constant channels are decoded once per clip
/// (a rotation's dropped component is a 64-bit square root). Gives exactly what `decode_pose` gives
/// (the tests hold it to that). For building caches at load time.
pub struct ClipFrames<'a, 'c> {
    tables: Tables<'a>,
    clip_index: usize,
    clip: Clip,
    layout: ClipLayout,
    cursors: &'c mut [ComponentCursor],
    /// Every bone's constant channels (its animated ones are overwritten frame by frame).
    constants: &'c mut [BoneSample],
    frame: usize,
}

impl<'a, 'c> ClipFrames<'a, 'c> {
    /// Starts at frame 0 of `clip`, decoding its constant channels. `cursors` needs
    /// `COMPONENTS_PER_BONE * bone_count` entries, `constants` `bone_count`.
    pub fn new(
        tables: &Tables<'a>,
        clip: usize,
        cursors: &'c mut [ComponentCursor],
        constants: &'c mut [BoneSample],
    ) -> Result<Self, TableError> {
        let entry = tables.frame_clip(clip, 0, Storage::RigidGte)?;
        let bones = tables.bone_count();
        let needed = COMPONENTS_PER_BONE * bones;
        if cursors.len() < needed {
            return Err(TableError::OutputTooSmall { needed, len: cursors.len() });
        }
        if constants.len() < bones {
            return Err(TableError::OutputTooSmall { needed: bones, len: constants.len() });
        }
        let layout = layout(tables, clip, &entry)?;
        let mut r = BitReader::new(&tables.bytes()[layout.stream..layout.end], layout.stream, 0);
        for (bone, sample) in constants[..bones].iter_mut().enumerate() {
            for channel in 0..CHANNELS_PER_BONE {
                let d = descriptor(tables, &layout, bone, channel);
                if !d.animated {
                    read_channel(&mut r, d, channel, None, sample)?;
                }
            }
        }
        Ok(Self {
            tables: *tables,
            clip_index: clip,
            clip: entry,
            layout,
            cursors: &mut cursors[..needed],
            constants: &mut constants[..bones],
            frame: 0,
        })
    }

    /// Decodes the next frame into `out[..bone_count]`; `FrameOutOfRange` past the last.
    pub fn next_frame(&mut self, out: &mut [BoneSample]) -> Result<(), TableError> {
        let t = self.tables;
        let frames = self.clip.frame_count as usize;
        if self.frame >= frames {
            return Err(TableError::FrameOutOfRange { clip: self.clip_index, frame: self.frame, frames });
        }
        if out.len() < t.bone_count() {
            return Err(TableError::OutputTooSmall { needed: t.bone_count(), len: out.len() });
        }
        let j = self.frame % self.layout.block_frames;
        if j == 0 {
            self.start_block()?;
        }
        let l = &self.layout;
        let mut residuals = BitReader::new(&t.bytes()[l.stream..l.end], l.stream, 0);
        for (bone, sample) in out[..t.bone_count()].iter_mut().enumerate() {
            *sample = self.constants[bone];
            for (channel, frac) in FRACS.iter().enumerate() {
                let d = descriptor(&t, l, bone, channel);
                if !d.animated {
                    continue;
                }
                let first = (bone * CHANNELS_PER_BONE + channel) * 3;
                let (dropped, offset) = (self.cursors[first].dropped as usize, self.cursors[first].channel_offset);
                let mut values = [0i32; 3];
                for (c, v) in self.cursors[first..first + 3].iter_mut().zip(values.iter_mut()) {
                    if j >= 2 {
                        residuals.seek(c.next_residual);
                        c.step += residuals.read_signed(c.residual_bits)? as i64;
                        c.next_residual += c.residual_bits as usize;
                    }
                    if j >= 1 {
                        c.value += c.step;
                    }
                    *v = widen(c.value, d.fraction_bits, *frac, offset)?;
                }
                store_channel(channel, dropped, values, offset, sample)?;
            }
        }
        self.frame += 1;
        Ok(())
    }

    /// Reads the headers of every animated component of the current frame's block (value and first
    /// difference at its frame 0) and skips their residuals, as `decode_pose` does for any frame.
    fn start_block(&mut self) -> Result<(), TableError> {
        let t = self.tables;
        let l = &self.layout;
        let block = self.frame / l.block_frames;
        let n = (self.clip.frame_count as usize - block * l.block_frames).min(l.block_frames);
        let block_bit = u32_at(t.bytes(), l.block_offsets + 4 * block) as usize;
        let mut r = BitReader::new(&t.bytes()[l.stream..l.end], l.stream, block_bit);
        for bone in 0..t.bone_count() {
            for channel in 0..CHANNELS_PER_BONE {
                let d = descriptor(&t, l, bone, channel);
                if !d.animated {
                    continue;
                }
                let channel_offset = r.byte_offset();
                let dropped = if channel == 0 { r.read(ROTATION_INDEX_BITS)? as u8 } else { 0 };
                let first = (bone * CHANNELS_PER_BONE + channel) * 3;
                for c in self.cursors[first..first + 3].iter_mut() {
                    let wb = r.read(COMPONENT_WIDTH_BITS)?;
                    let wr = r.read(COMPONENT_WIDTH_BITS)?;
                    let value = r.read_signed(d.base_bits as u32)? as i64;
                    let step = if n >= 2 { r.read_signed(wb)? as i64 } else { 0 };
                    let next_residual = r.bit();
                    r.skip(n.saturating_sub(2) * wr as usize)?;
                    *c = ComponentCursor { value, step, next_residual, residual_bits: wr, channel_offset, dropped };
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_32_bit_square_root_is_the_64_bit_one() {
        extern crate std;
        let mut x = 0x853C_49E6_748F_EA9Bu64;
        let mut values = std::vec![0, 1, 2, 3, 4, 1 << 60, (1 << 60) - 1, (1 << 62) - 1, 1 << 62, u64::MAX, (1 << 30) - 1, 1 << 32];
        for r in [(1u64 << 30) - 1, 1 << 30, (1 << 31) - 1, 65_535, 3_037_000_499] {
            values.extend([r * r - 1, r * r, r * r + 1, r * r + 2 * r]);
        }
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        for n in values {
            assert_eq!(isqrt_q60(n), isqrt_u64(n), "sqrt({n})");
        }
    }

    #[test]
    fn widen_shifts_in_range_values_and_refuses_the_rest() {
        assert_eq!(widen(3, 2, 8, 0), Ok(3 << 6));
        assert_eq!(widen(-5, 8, 8, 0), Ok(-5));
        assert_eq!(widen(-1, 0, 30, 0), Ok(-(1 << 30)));
        assert_eq!(widen(-2, 0, 30, 0), Ok(i32::MIN));
        assert_eq!(widen(2, 0, 30, 9), Err(TableError::ValueOverflow { offset: 9 }));
        assert_eq!(widen(1, 0, 30, 0), Ok(1 << 30));
        assert_eq!(widen(-3, 0, 30, 4), Err(TableError::ValueOverflow { offset: 4 }));
        assert_eq!(widen(i32::MAX as i64 + 1, 0, 0, 1), Err(TableError::ValueOverflow { offset: 1 }));
        assert_eq!(widen(i32::MIN as i64, 4, 4, 1), Ok(i32::MIN));
    }
}
