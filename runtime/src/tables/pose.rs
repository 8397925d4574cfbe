//! Compact rigid pose samples: one parent-relative rotation, translation and scale per bone and frame,
//! laid out so that playback decodes forward, one small delta per animated component and frame.
//!
//! # Clip data layout (tables version 4)
//! ```text
//!  0 u16 block frames B (1..=256)     2 u16 block count K (= ceil((frame count - 1) / B), at least 1)
//!  4 u16 animated channels A          6 u16 0
//!  8 channel descriptors, bone-major, 3 per bone (rotation, translation, scale), 4 bytes each:
//!      u8 flags (bit 0: animated; else constant; bit 1: constant identity, bit 2: narrow constant),
//!      u8 fraction bits k, u8 base width, u8 0
//!  . constants, one per constant channel in order (none for an identity): a rotation as i16 x, y, z,
//!      w (Q15), a translation or scale as i32 x, y, z (at TRANSLATION_FRAC / SCALE_FRAC), or when
//!      narrow as i16 x, y, z at k fraction bits and an i16 0
//!  . K x u32: bit offset of each block's records in the stream
//!  . K x A x u32: each block's widths, per animated channel: bits 0..15 the first-difference widths
//!      wb of its three components (5 bits each), bits 15..30 their residual widths wr, bits 30..32 a
//!      rotation's dropped component
//!  . the bit stream (u32 words, least-significant bit first) to the end of the clip data
//! ```
//! Block `k` holds frames `kB..=kB+B` (the last one fewer): neighbouring blocks share their boundary
//! frame, so that the interval between any two frames lies in one block, in one representation (a
//! rotation's dropped component and sign are chosen per block). Frame `kB` (k >= 1) decodes as the last
//! frame of block `k - 1`; the interval after it starts from block `k`'s first record.
//! A block of `n` frames is `n` records, each holding one field per animated component (channels in
//! order, three components each): record 0 the component's value (base width bits), record 1 its first
//! difference (wb bits), records 2.. its second difference (wr bits). So `v0 = base`, `d = d1`,
//! `v[i] = v[i-1] + d` where `d` grows by each residual: smooth motion costs a few bits per component
//! and frame, and a player keeping each component's value and difference ([`super::stream`]) advances
//! one frame by reading one record, in order. A jump restarts at a block (at most B records).
//!
//! A stored value `v` with `k` fraction bits means `v / 2^k` of the channel's unit. A rotation stores
//! three of the four quaternion components, in x, y, z, w order without the dropped one, with at most
//! 15 fraction bits; its arithmetic wraps at 16 bits (a player keeps it in halfwords) and a component
//! beyond +-32767/32768 is clamped. The dropped component is `sqrt(1 - a^2 - b^2 - c^2)` ([`rebuild_rotation`]),
//! positive. Translations and scales wrap at 32 bits.

use super::{u16_at, u32_at, Clip, TableError, Tables};
use crate::math::isqrt_u32;

/// Fraction bits of a decoded quaternion component (1.0 = 2^30).
pub const ROTATION_FRAC: u32 = 30;
/// Fraction bits of a rotation as the stream and the player hold it (1.0 = 2^15, held in halfwords: a
/// stored component is at most 32767; the three smallest of a unit quaternion are below 0.71).
pub const ROTATION_STORED_FRAC: u32 = 15;
/// Fraction bits of a decoded translation, in GTE units (1 unit = 2^8).
pub const TRANSLATION_FRAC: u32 = 8;
/// Fraction bits of a decoded scale ratio (1.0 = 2^16).
pub const SCALE_FRAC: u32 = 16;
/// Rotation, translation, scale.
pub const CHANNELS_PER_BONE: usize = 3;
pub const CLIP_POSE_HEADER_SIZE: usize = 8;
pub const CHANNEL_DESCRIPTOR_SIZE: usize = 4;
/// Flag bit of an animated (not constant) channel.
pub const CHANNEL_ANIMATED: u8 = 1;
/// Flag bit of a constant channel holding its identity (no rotation, no translation, scale 1.0):
/// nothing stored.
pub const CHANNEL_IDENTITY: u8 = 2;
/// Flag bit of a constant translation or scale stored as three i16 (at the descriptor's fraction
/// bits) and a pad, instead of three i32.
pub const CHANNEL_NARROW: u8 = 4;
/// Bytes of a narrow constant.
pub const CONSTANT_NARROW_SIZE: usize = 8;
/// Bytes of a constant rotation (four i16) and of a constant translation or scale (three i32).
pub const CONSTANT_ROTATION_SIZE: usize = 8;
pub const CONSTANT_VECTOR_SIZE: usize = 12;
/// Bit positions in a block's width word of a channel.
pub const WIDTHS_RESIDUAL_SHIFT: u32 = 15;
pub const WIDTHS_DROPPED_SHIFT: u32 = 30;
/// Bits of one width in a block's width word.
pub const WIDTH_BITS: u32 = 5;

pub(crate) const FRACS: [u32; CHANNELS_PER_BONE] = [ROTATION_STORED_FRAC, TRANSLATION_FRAC, SCALE_FRAC];
/// The largest stored rotation component.
const STORED_MAX: i32 = i16::MAX as i32;

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

/// Where the parts of one rigid clip's data are (blob offsets), checked by [`check_clip`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClipLayout {
    pub frame_count: usize,
    pub block_frames: usize,
    pub animated: usize,
    pub descriptors: usize,
    pub constants: usize,
    pub block_offsets: usize,
    pub widths: usize,
    pub stream: usize,
    pub end: usize,
}

impl ClipLayout {
    /// Frames in block `block` (its first is the previous block's last; the last block may be short).
    pub fn frames_in(&self, block: usize) -> usize {
        (self.frame_count - block * self.block_frames).min(self.block_frames + 1)
    }

    /// The block whose records reach frame `frame` from the frame before it (block 0 for frame 0).
    pub fn block_of(&self, frame: usize) -> usize {
        frame.saturating_sub(1) / self.block_frames
    }
}

pub(crate) fn layout(t: &Tables, clip_index: usize, clip: &Clip) -> Result<ClipLayout, TableError> {
    layout_and_counts(t, clip_index, clip).map(|(l, _)| l)
}

/// What a player needs of a clip beside its layout, counted in the same pass over the descriptors:
/// the bits of a block's first record, and the state words of a voice (3 per animated rotation, 6
/// per animated translation or scale).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChannelCounts {
    pub record0_bits: u32,
    pub state_words: usize,
}

/// [`layout`] and the clip's [`ChannelCounts`].
pub(crate) fn layout_and_counts(t: &Tables, clip_index: usize, clip: &Clip) -> Result<(ClipLayout, ChannelCounts), TableError> {
    let start = clip.data_offset as usize;
    let end = start + clip.data_size as usize;
    let bad = |offset, what| TableError::BadClipData { clip: clip_index, offset, what };
    if (clip.data_size as usize) < CLIP_POSE_HEADER_SIZE {
        return Err(bad(start, "pose data shorter than its header"));
    }
    if start % 4 != 0 {
        return Err(bad(start, "pose data not 4-aligned in the blob"));
    }
    let b = t.bytes();
    let block_frames = u16_at(b, start) as usize;
    let block_count = u16_at(b, start + 2) as usize;
    let animated = u16_at(b, start + 4) as usize;
    if block_frames == 0 || block_frames > 256 {
        return Err(bad(start, "block frames must be 1..=256"));
    }
    if block_count != block_count_of(clip.frame_count as usize, block_frames) {
        return Err(bad(start + 2, "block count does not match (frame count - 1) / block frames"));
    }
    let descriptors = start + CLIP_POSE_HEADER_SIZE;
    let constants = descriptors + t.bone_count() * CHANNELS_PER_BONE * CHANNEL_DESCRIPTOR_SIZE;
    if constants > end {
        return Err(bad(start, "descriptors run past the clip data"));
    }
    let (constant_bytes, animated_found, counts) = descriptor_counts(&b[descriptors..constants]);
    if animated_found != animated {
        return Err(bad(start + 4, "animated channel count does not match the descriptors"));
    }
    let block_offsets = constants + constant_bytes;
    let widths = block_offsets + 4 * block_count;
    let stream = widths + 4 * block_count * animated;
    if stream > end {
        return Err(bad(start, "constants, block offsets and widths run past the clip data"));
    }
    Ok((ClipLayout { frame_count: clip.frame_count as usize, block_frames, animated, descriptors, constants, block_offsets, widths, stream, end }, counts))
}

/// Over a clip's channel descriptors (bone-major, rotation, translation, scale): the bytes of its
/// constants, its animated channels and their [`ChannelCounts`]. Every seek of a player counts them:
/// a descriptor is one word load where the blob is 4-aligned in memory (byte loads otherwise).
fn descriptor_counts(descriptors: &[u8]) -> (usize, usize, ChannelCounts) {
    let (mut constant_bytes, mut animated, mut counts) = (0, 0, ChannelCounts::default());
    let mut count = |kind: usize, flags: u8, base_bits: u8| {
        if flags & CHANNEL_ANIMATED != 0 {
            animated += 1;
            counts.record0_bits += 3 * base_bits as u32;
            counts.state_words += if kind == 0 { 3 } else { 6 };
        } else {
            constant_bytes += constant_size(kind, flags);
        }
    };
    let bone_bytes = CHANNELS_PER_BONE * CHANNEL_DESCRIPTOR_SIZE;
    match bytemuck::pod_align_to::<u8, u32>(descriptors) {
        ([], words, []) if cfg!(target_endian = "little") && descriptors.len() % bone_bytes == 0 => {
            for bone in words.chunks_exact(CHANNELS_PER_BONE) {
                for (kind, &d) in bone.iter().enumerate() {
                    count(kind, d as u8, (d >> 16) as u8);
                }
            }
        }
        _ => {
            for bone in descriptors.chunks_exact(bone_bytes) {
                for (kind, d) in bone.chunks_exact(CHANNEL_DESCRIPTOR_SIZE).enumerate() {
                    count(kind, d[0], d[2]);
                }
            }
        }
    }
    (constant_bytes, animated, counts)
}

/// Blocks of a clip of `frames` frames (at least 1) in blocks of `block_frames` sharing their ends.
pub fn block_count_of(frames: usize, block_frames: usize) -> usize {
    frames.saturating_sub(1).div_ceil(block_frames).max(1)
}

/// Bytes a constant channel of kind `kind` (0 rotation, 1 translation, 2 scale) with `flags` stores.
pub fn constant_size(kind: usize, flags: u8) -> usize {
    match (flags & CHANNEL_IDENTITY != 0, kind, flags & CHANNEL_NARROW != 0) {
        (true, ..) => 0,
        (false, 0, _) => CONSTANT_ROTATION_SIZE,
        (false, _, true) => CONSTANT_NARROW_SIZE,
        (false, _, false) => CONSTANT_VECTOR_SIZE,
    }
}

pub(crate) fn descriptor(t: &Tables, l: &ClipLayout, channel_index: usize) -> ChannelDescriptor {
    let o = l.descriptors + channel_index * CHANNEL_DESCRIPTOR_SIZE;
    let b = t.bytes();
    ChannelDescriptor { animated: b[o] & CHANNEL_ANIMATED != 0, fraction_bits: b[o + 1], base_bits: b[o + 2] }
}

/// The three fields' widths of an animated channel in each record kind: [base, first difference,
/// residual] per component, and a rotation's dropped component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChannelWidths {
    pub fields: [[u32; 3]; 3],
    pub dropped: usize,
}

impl ChannelWidths {
    pub fn of(base_bits: u8, word: u32) -> Self {
        let width = |i: u32| (word >> (WIDTH_BITS * i)) & 31;
        ChannelWidths {
            fields: [[base_bits as u32; 3], [width(0), width(1), width(2)], [width(3), width(4), width(5)]],
            dropped: ((word >> WIDTHS_DROPPED_SHIFT) & 3) as usize,
        }
    }
}

/// Bits of each record kind of block `block` (record 0, record 1, each later one).
fn record_bits(t: &Tables, l: &ClipLayout, block: usize) -> [usize; 3] {
    let mut bits = [0usize; 3];
    let mut a = 0;
    for ch in 0..t.bone_count() * CHANNELS_PER_BONE {
        let d = descriptor(t, l, ch);
        if d.animated {
            let w = ChannelWidths::of(d.base_bits, u32_at(t.bytes(), l.widths + 4 * (block * l.animated + a)));
            for (kind, total) in bits.iter_mut().enumerate() {
                *total += w.fields[kind].iter().sum::<u32>() as usize;
            }
            a += 1;
        }
    }
    bits
}

/// Parse-time checks of a rigid clip: header, descriptors, widths, and every block's records inside
/// the stream, so that playback ([`super::stream`]) reads without checking.
pub(super) fn check_clip(t: &Tables, clip_index: usize, clip: &Clip) -> Result<(), TableError> {
    let l = layout(t, clip_index, clip)?;
    let bad = |offset, what| TableError::BadClipData { clip: clip_index, offset, what };
    for ch in 0..t.bone_count() * CHANNELS_PER_BONE {
        let d = descriptor(t, &l, ch);
        let o = l.descriptors + ch * CHANNEL_DESCRIPTOR_SIZE;
        if d.fraction_bits as u32 > FRACS[ch % CHANNELS_PER_BONE] {
            return Err(bad(o + 1, "fraction bits too large"));
        }
        // A rotation's interpolation widens by at most 12 bits (its product with an FP12 weight).
        if ch % CHANNELS_PER_BONE == 0 && d.fraction_bits < 3 {
            return Err(bad(o + 1, "a rotation needs at least 3 fraction bits"));
        }
        let widest = if ch % CHANNELS_PER_BONE == 0 { 16 } else { 32 };
        if d.base_bits == 0 || d.base_bits > widest {
            return Err(bad(o + 2, "base width must be 1..=16 for a rotation, 1..=32 otherwise"));
        }
    }
    let stream_bits = (l.end - l.stream) * 8;
    for k in 0..block_count_of(l.frame_count, l.block_frames) {
        let at = l.block_offsets + 4 * k;
        let [r0, r1, rn] = record_bits(t, &l, k);
        let n = l.frames_in(k);
        let bits = r0 + if n >= 2 { r1 + (n - 2) * rn } else { 0 };
        if u32_at(t.bytes(), at) as usize + bits > stream_bits {
            return Err(bad(at, "block records run past the stream"));
        }
    }
    Ok(())
}

/// A clip's data as little-endian words from its start (every section of it is 4-aligned), read
/// without checks (a missing word reads as 0): parsing proved every block's records lie inside it.
/// In place when the blob is 4-aligned in memory (an embedded blob is); from bytes otherwise.
#[derive(Clone, Copy)]
pub(crate) struct ClipWords<'a> {
    words: &'a [u32],
    bytes: &'a [u8],
    /// Word index of the bit stream.
    stream: usize,
}

/// The stream part of [`ClipWords`] (what the random-access decoder reads).
pub(crate) type StreamBits<'a> = ClipWords<'a>;

/// Word access to a clip's data: [`InPlace`] (an aligned blob, a load per word, no call that would
/// make the decoders' loops save their registers) or [`ClipWords`] (either).
pub(crate) trait Words: Copy {
    fn word(&self, i: usize) -> u32;
    /// Word index of the bit stream.
    fn stream(&self) -> usize;

    /// The `width`-bit (0..=32) two's-complement field at bit `bit` of the stream.
    #[inline(always)]
    fn signed(&self, bit: u32, width: u32) -> i32 {
        if width == 0 {
            return 0;
        }
        let (i, s) = (self.stream() + (bit >> 5) as usize, bit & 31);
        let mut v = self.word(i) >> s;
        if s + width > 32 {
            v |= self.word(i + 1) << (32 - s);
        }
        ((v << (32 - width)) as i32) >> (32 - width)
    }
}

/// A 4-aligned clip's words in place.
#[derive(Clone, Copy)]
pub(crate) struct InPlace<'a> {
    words: &'a [u32],
    stream: usize,
}

impl<'a> InPlace<'a> {
    /// The clip's words.
    #[cfg_attr(not(target_os = "psx"), allow(dead_code))]
    pub fn words(&self) -> &'a [u32] {
        self.words
    }
}

impl Words for InPlace<'_> {
    #[inline(always)]
    fn word(&self, i: usize) -> u32 {
        self.words.get(i).copied().unwrap_or(0)
    }
    #[inline(always)]
    fn stream(&self) -> usize {
        self.stream
    }
}

impl<'a> ClipWords<'a> {
    pub fn new(t: &Tables<'a>, l: &ClipLayout) -> Self {
        let start = l.descriptors - CLIP_POSE_HEADER_SIZE;
        // Empty (every word 0) for a layout that does not fit the blob: never a panic.
        let bytes = t.bytes().get(start..l.end).unwrap_or(&[]);
        let stream = (l.stream - start) / 4;
        let (head, words, _) = bytemuck::pod_align_to::<u8, u32>(bytes);
        if head.is_empty() && cfg!(target_endian = "little") {
            ClipWords { words, bytes: &[], stream }
        } else {
            ClipWords { words: &[], bytes, stream }
        }
    }

    /// The words in place, when the clip is 4-aligned in memory.
    pub fn in_place(&self) -> Option<InPlace<'a>> {
        self.bytes.is_empty().then_some(InPlace { words: self.words, stream: self.stream })
    }

    /// Word `i` from bytes (a blob at an odd address), 0 past the end: out of line, so that the
    /// decoders' loops stay small.
    #[inline(never)]
    fn byte_word(&self, i: usize) -> u32 {
        let mut w = 0u32;
        for k in 0..4 {
            w |= (self.bytes.get(4 * i + k).copied().unwrap_or(0) as u32) << (8 * k);
        }
        w
    }
}

impl Words for ClipWords<'_> {
    /// Word `i` of the clip data.
    #[inline(always)]
    fn word(&self, i: usize) -> u32 {
        match self.words.get(i) {
            Some(w) => *w,
            None => self.byte_word(i),
        }
    }
    #[inline(always)]
    fn stream(&self) -> usize {
        self.stream
    }
}

/// The 16-bit wrap of a rotation component's arithmetic.
#[inline(always)]
pub(crate) fn wrap16(v: i32) -> i32 {
    v as i16 as i32
}

/// `floor(sqrt(n))` for `n <= 2^30`: a rotation's dropped component in Q15 from `2^30 - a^2 - b^2 - c^2`.
/// From n >= 2^28 (a component of at least 0.5: the largest of four always is) the chord between two
/// table roots with two fraction bits, then one correction step; below, the bit-by-bit root.
///
/// Why one step is enough: the chord of the true root between nodes 2^22 apart lies below the curve
/// by at most 1/8 (`(2^22)^2 / 8 * n^-1.5 / 4` at n = 2^28), the table's floors lower each node by
/// less than 1/4, and the chord's floor and the drop of the two fraction bits lose less than 1/4 + 1:
/// the estimate is `floor(sqrt(n))` or one less. The estimate never falls as `n` grows, so the tests
/// that check every square and the value before it check the whole range.
#[inline(always)]
pub fn sqrt_q30(n: u32) -> u32 {
    if !(1 << 28..=1 << 30).contains(&n) {
        return isqrt_rare(n);
    }
    let i = ((n >> 22) - 64) as usize; // 0..=192
    let (a, d) = (SQRT_TABLE[i] >> 9, SQRT_TABLE[i] & 511);
    // d <= 510 and the fraction < 2^22: the product fits u32 (the console's multu takes its high
    // word with the fraction shifted up 10 bits, the same floor).
    let r = (a + ((d * (n & 0x3F_FFFF)) >> 22)) >> 2;
    r + ((r + 1) * (r + 1) <= n) as u32
}

/// The bit-by-bit root out of line: a decoder's loop keeps only the table's path.
#[cold]
#[inline(never)]
fn isqrt_rare(n: u32) -> u32 {
    isqrt_u32(n)
}

/// Per i = 0..=192, `r(i) = floor(4 sqrt((64 + i) * 2^22))` shifted up 9 bits, and the step to the
/// next node's `r(i + 1) - r(i)` (at most 510) in the low 9: one load a root.
pub(crate) static SQRT_TABLE: [u32; 193] = sqrt_table();

const fn sqrt_table() -> [u32; 193] {
    let mut roots = [0u64; 194];
    let (mut i, mut r) = (0, 0u64);
    while i < 194 {
        let n = (64 + i as u64) << 26;
        while (r + 1) * (r + 1) <= n {
            r += 1;
        }
        roots[i] = r;
        i += 1;
    }
    let mut t = [0u32; 193];
    i = 0;
    while i < 193 {
        assert!(roots[i + 1] - roots[i] < 512);
        t[i] = (roots[i] << 9 | (roots[i + 1] - roots[i])) as u32;
        i += 1;
    }
    t
}

/// A unit quaternion (x, y, z, w in Q15) from its three stored components (Q15, in order without
/// `dropped`), each clamped to +-32767; the dropped one is the positive root of what is left.
#[inline(always)]
pub fn rebuild_rotation(stored: [i32; 3], dropped: usize) -> [i32; 4] {
    let a = stored[0].clamp(-STORED_MAX, STORED_MAX);
    let b = stored[1].clamp(-STORED_MAX, STORED_MAX);
    let c = stored[2].clamp(-STORED_MAX, STORED_MAX);
    let sum = (a * a) as u32 + (b * b) as u32 + (c * c) as u32;
    let e = sqrt_q30((1u32 << 30).saturating_sub(sum)) as i32;
    match dropped {
        0 => [e, a, b, c],
        1 => [a, e, b, c],
        2 => [a, b, e, c],
        _ => [a, b, c, e],
    }
}

/// A channel's three values (at its `k` fraction bits) into `out`: a rotation rebuilt from its three
/// stored components, a translation or scale widened to its fraction (wrapping).
#[inline(never)]
pub(crate) fn store_channel(kind: usize, k: u8, dropped: usize, values: [i32; 3], out: &mut BoneSample) {
    let shift = FRACS[kind].saturating_sub(k as u32);
    let (x, y, z) = (values[0].wrapping_shl(shift), values[1].wrapping_shl(shift), values[2].wrapping_shl(shift));
    match kind {
        0 => {
            let q = rebuild_rotation([x, y, z], dropped);
            const UP: u32 = ROTATION_FRAC - ROTATION_STORED_FRAC;
            out.rotation = [q[0] << UP, q[1] << UP, q[2] << UP, q[3] << UP];
        }
        1 => out.translation = [x, y, z],
        _ => out.scale = [x, y, z],
    }
}

/// Writes every constant channel of the clip into `out` (animated ones are left as they are).
pub(crate) fn write_constants(t: &Tables, l: &ClipLayout, out: &mut [BoneSample]) {
    let b = t.bytes();
    let mut at = l.constants;
    for (bone, sample) in out.iter_mut().enumerate().take(t.bone_count()) {
        for kind in 0..CHANNELS_PER_BONE {
            let o = l.descriptors + (bone * CHANNELS_PER_BONE + kind) * CHANNEL_DESCRIPTOR_SIZE;
            let (flags, k) = (b[o], b[o + 1]);
            if flags & CHANNEL_ANIMATED == 0 {
                at = write_constant(b, at, kind, flags, k, Some(&mut *sample));
            }
        }
    }
}

/// Writes the constant channel of kind `kind` stored at `at` (with its descriptor's `flags` and
/// fraction bits `k`) into `sample`; returns where the next constant is.
#[inline(never)]
pub(crate) fn write_constant(b: &[u8], at: usize, kind: usize, flags: u8, k: u8, sample: Option<&mut BoneSample>) -> usize {
    let next = at + constant_size(kind, flags);
    let Some(sample) = sample else { return next };
    let half = |i: usize| u16_at(b, at + 2 * i) as i16 as i32;
    let identity = flags & CHANNEL_IDENTITY != 0;
    if kind == 0 {
        sample.rotation = if identity {
            [0, 0, 0, 1 << ROTATION_FRAC]
        } else {
            const UP: u32 = ROTATION_FRAC - ROTATION_STORED_FRAC;
            [half(0) << UP, half(1) << UP, half(2) << UP, half(3) << UP]
        };
        return next;
    }
    let value = if identity {
        let v = if kind == 1 { 0 } else { 1 << SCALE_FRAC };
        [v, v, v]
    } else if flags & CHANNEL_NARROW != 0 {
        let shift = FRACS[kind].saturating_sub(k as u32);
        [half(0).wrapping_shl(shift), half(1).wrapping_shl(shift), half(2).wrapping_shl(shift)]
    } else {
        [u32_at(b, at) as i32, u32_at(b, at + 4) as i32, u32_at(b, at + 8) as i32]
    };
    if kind == 1 {
        sample.translation = value;
    } else {
        sample.scale = value;
    }
    next
}

/// Random access: every bone's sample at `frame`, each animated component walked from its block's
/// first record (the positions of its fields come from the block's record sizes). For tools, tests and
/// one-off poses; playback decodes forward ([`super::stream`]).
pub(super) fn decode(t: &Tables, clip_index: usize, clip: &Clip, frame: usize, out: &mut [BoneSample]) -> Result<(), TableError> {
    let l = layout(t, clip_index, clip)?;
    write_constants(t, &l, out);
    let bits = StreamBits::new(t, &l);
    let block = l.block_of(frame);
    let j = frame - block * l.block_frames;
    let sizes = record_bits(t, &l, block);
    let block_bit = u32_at(t.bytes(), l.block_offsets + 4 * block);
    // Bit of record `i` of the block.
    let record = |i: usize| -> u32 {
        block_bit
            + match i {
                0 => 0,
                1 => sizes[0] as u32,
                _ => (sizes[0] + sizes[1] + (i - 2) * sizes[2]) as u32,
            }
    };
    let mut before = [0u32; 3]; // bits of the earlier channels' fields in each record kind
    let mut a = 0;
    for (bone, sample) in out.iter_mut().enumerate().take(t.bone_count()) {
        for kind in 0..CHANNELS_PER_BONE {
            let d = descriptor(t, &l, bone * CHANNELS_PER_BONE + kind);
            if !d.animated {
                continue;
            }
            let w = ChannelWidths::of(d.base_bits, u32_at(t.bytes(), l.widths + 4 * (block * l.animated + a)));
            a += 1;
            let mut values = [0i32; 3];
            for (c, v) in values.iter_mut().enumerate() {
                let field = |kind: usize| before[kind] + w.fields[kind][..c].iter().sum::<u32>();
                let mut value = bits.signed(record(0) + field(0), w.fields[0][c]);
                let mut step = 0i32;
                for i in 1..=j {
                    let k = if i == 1 { 1 } else { 2 };
                    let x = bits.signed(record(i) + field(k), w.fields[k][c]);
                    step = if i == 1 { x } else { step.wrapping_add(x) };
                    value = value.wrapping_add(step);
                    if kind == 0 {
                        (step, value) = (wrap16(step), wrap16(value));
                    }
                }
                *v = if kind == 0 { wrap16(value) } else { value };
            }
            for (kind, b) in before.iter_mut().enumerate() {
                *b += w.fields[kind].iter().sum::<u32>();
            }
            store_channel(kind, d.fraction_bits, w.dropped, values, sample);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_square_root_is_the_floor_root() {
        let mut n = 0u32;
        while n <= 1 << 30 {
            assert_eq!(sqrt_q30(n), isqrt_u32(n), "sqrt({n})");
            n += if n < 1 << 16 { 1 } else { 3989 };
        }
        for n in [(1 << 28) - 1, 1 << 28, (1 << 28) + 1, (1 << 30) - 1, 1 << 30, 0x3FFF_FFFF] {
            assert_eq!(sqrt_q30(n), isqrt_u32(n), "sqrt({n})");
        }
    }

    /// The table's path with its one correction step wherever the floor root changes (each square and
    /// the value before it): the estimate never falls as `n` grows, so between two squares it lies
    /// within those two ends' and one step corrects it over the whole range. Then each node's ends.
    #[test]
    fn one_correction_step_reaches_the_floor_root_at_every_square() {
        for k in 1u32 << 14..=1 << 15 {
            for n in [k * k - 1, k * k, k * k + 1] {
                if (1 << 28..=1 << 30).contains(&n) {
                    assert_eq!(sqrt_q30(n), isqrt_u32(n), "sqrt({n})");
                }
            }
        }
        for i in 64u32..256 {
            for n in [(i << 22) - 1, i << 22, ((i + 1) << 22) - 1] {
                if (1 << 28..=1 << 30).contains(&n) {
                    assert_eq!(sqrt_q30(n), isqrt_u32(n), "sqrt({n})");
                }
            }
        }
    }

    #[test]
    fn a_rebuilt_rotation_is_unit_and_clamps_what_is_not_a_component() {
        assert_eq!(rebuild_rotation([0, 0, 0], 3), [0, 0, 0, 1 << 15]);
        assert_eq!(rebuild_rotation([16384, 16384, 16384], 0), [16384, 16384, 16384, 16384]);
        assert_eq!(rebuild_rotation([40000, 0, 0], 1), [32767, 255, 0, 0]);
    }
}
