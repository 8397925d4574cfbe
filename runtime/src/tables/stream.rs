//! Forward decoding of compact rigid clips: a playing instance keeps, per animated component, its
//! value and first difference at the frame it stands on, and one bit position per clip, so that
//! advancing one frame reads one record of the stream (one residual per component) and adds twice.
//!
//! [`sample_voice`] serves a request at the frame a voice stands on, or at most one block ahead, by
//! advancing it; anything else (a new clip, a jump back, a wrap) restarts at a block. What it shows
//! between two frames is each stored component interpolated linearly, the rotation's dropped component
//! rebuilt from the others: a unit quaternion without a normalisation. `render::PoseStream` keeps two
//! voices per instance (the playing clip and a crossfade's outgoing one).
//!
//! State per voice: 4 bytes per animated rotation component (value and difference as halfwords),
//! 8 per translation or scale component ([`words_needed`]).

use super::pose::{descriptor, layout, store_channel, wrap16, ChannelWidths, ClipLayout, StreamBits, CHANNELS_PER_BONE, FRACS};
use super::{u32_at, BoneSample, Storage, TableError, Tables};

/// Where one voice stands: clip, frame and the bit of the next record (`frame + 1`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Voice {
    clip: u16,
    frame: u16,
    bit: u32,
    ready: bool,
}

const IDLE: Voice = Voice { clip: 0, frame: 0, bit: 0, ready: false };

/// Decoder state words one voice of `clip` needs: 3 per animated rotation, 6 per animated translation
/// or scale.
pub fn words_needed(tables: &Tables, clip: usize) -> Result<usize, TableError> {
    let entry = tables.clip(clip)?;
    if tables.storage() != Storage::RigidGte {
        return Err(TableError::WrongStorage { expected: Storage::RigidGte, found: tables.storage() });
    }
    let l = layout(tables, clip, &entry)?;
    Ok((0..tables.bone_count() * CHANNELS_PER_BONE)
        .filter(|&ch| descriptor(tables, &l, ch).animated)
        .map(|ch| if ch % CHANNELS_PER_BONE == 0 { 3 } else { 6 })
        .sum())
}

/// The most [`words_needed`] of any clip of `tables` (0 for baked tables).
pub fn max_words_needed(tables: &Tables) -> usize {
    (0..tables.clip_count()).filter_map(|c| words_needed(tables, c).ok()).max().unwrap_or(0)
}

/// The frame a voice must stand on to show `frame` blended toward `next` by `weight` (FP12), and the
/// weight from the frame before it: an interval's end when `next` follows `frame`, else `frame` itself.
pub fn target(frame: u16, next: u16, weight: u16) -> (usize, u32) {
    if weight != 0 && next == frame.wrapping_add(1) {
        (next as usize, weight.min(4096) as u32)
    } else {
        (frame as usize, 4096)
    }
}

/// Whether `voice` can reach frame `g` of `clip` by advancing (no further than one block).
pub fn near(tables: &Tables, voice: &VoiceState, clip: usize, g: usize) -> bool {
    let v = &voice.0;
    v.ready
        && v.clip as usize == clip
        && g >= v.frame as usize
        && tables.clip(clip).ok().and_then(|e| layout(tables, clip, &e).ok()).is_some_and(|l| g - v.frame as usize <= l.block_frames)
}

/// One voice's position (its component states live in the caller's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VoiceState(Voice);

impl VoiceState {
    pub const IDLE: Self = VoiceState(IDLE);

    /// The clip this voice stands in, if any.
    pub fn clip(&self) -> Option<usize> {
        self.0.ready.then_some(self.0.clip as usize)
    }
}

/// Every bone's sample of `clip` at `weight` (FP12) between frames `g - 1` and `g` into `out`
/// (`weight` 4096: frame `g` itself): `voice` (with `words`) advanced to `g` when it stands at most one
/// block before it in the same clip, else restarted at `g`'s block.
pub fn sample_voice(
    tables: &Tables,
    voice: &mut VoiceState,
    words: &mut [u32],
    clip: usize,
    g: usize,
    weight: u32,
    out: &mut [BoneSample],
) -> Result<(), TableError> {
    sample(tables, &mut voice.0, words, clip, g, weight, out)
}

fn sample(
    tables: &Tables,
    voice: &mut Voice,
    words: &mut [u32],
    clip: usize,
    g: usize,
    weight: u32,
    out: &mut [BoneSample],
) -> Result<(), TableError> {
    let entry = tables.frame_clip(clip, g, Storage::RigidGte)?;
    let bones = tables.bone_count();
    if out.len() < bones {
        return Err(TableError::OutputTooSmall { needed: bones, len: out.len() });
    }
    let l = layout(tables, clip, &entry)?;
    let bits = StreamBits::new(tables, &l);
    let ahead = g.wrapping_sub(voice.frame as usize);
    if !(voice.ready && voice.clip as usize == clip && ahead <= l.block_frames) {
        let needed = words_needed(tables, clip)?;
        if words.len() < needed {
            return Err(TableError::OutputTooSmall { needed, len: words.len() });
        }
        seek(tables, &l, &bits, voice, words, clip as u16, g);
    } else {
        for _ in 0..ahead {
            advance(tables, &l, &bits, voice, words);
        }
    }
    write(tables, &l, voice, words, weight, &mut out[..bones]);
    Ok(())
}

/// Restarts `voice` at a block so that it stands on `g` with the difference from `g - 1` (within the
/// block holding that interval; from nothing for frame 0).
fn seek(t: &Tables, l: &ClipLayout, bits: &StreamBits, voice: &mut Voice, words: &mut [u32], clip: u16, g: usize) {
    let block = l.block_of(g);
    let start = block * l.block_frames;
    *voice = Voice { clip, frame: start as u16, bit: u32_at(t.bytes(), l.block_offsets), ready: true };
    if block == 0 {
        apply_record(t, l, bits, voice, words, 0, 0, true);
    } // else the first advance starts the block (its first frame is the previous block's last)
    for _ in start..g {
        advance(t, l, bits, voice, words);
    }
}

/// Moves `voice` one frame on (the caller keeps it within the clip). From a block's last frame, the
/// next block starts over from its first record (the same frame in the next block's representation).
#[inline(always)]
fn advance(t: &Tables, l: &ClipLayout, bits: &StreamBits, voice: &mut Voice, words: &mut [u32]) {
    let frame = voice.frame as usize;
    let block = frame / l.block_frames;
    if frame % l.block_frames == 0 && frame > 0 {
        voice.bit = u32_at(t.bytes(), l.block_offsets + 4 * block);
        apply_record(t, l, bits, voice, words, block, 0, true);
    }
    let j = frame + 1 - block * l.block_frames;
    voice.frame = (frame + 1) as u16;
    apply_record(t, l, bits, voice, words, block, j.min(2), false);
}

/// Reads the record of kind `kind` (0: values, 1: first differences, 2: residuals) at `voice.bit`
/// into every animated component's (value, difference). A values record continues from the frame
/// before (the difference is new value - old), or starts from nothing (`fresh`: difference 0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn apply_record(t: &Tables, l: &ClipLayout, bits: &StreamBits, voice: &mut Voice, words: &mut [u32], block: usize, kind: usize, fresh: bool) {
    let b = t.bytes();
    let (mut bit, mut w, mut a) = (voice.bit, 0usize, 0usize);
    for ch in 0..t.bone_count() * CHANNELS_PER_BONE {
        let d = descriptor(t, l, ch);
        if !d.animated {
            continue;
        }
        let widths = ChannelWidths::of(d.base_bits, u32_at(b, l.widths + 4 * (block * l.animated + a)));
        a += 1;
        let rotation = ch % CHANNELS_PER_BONE == 0;
        for width in widths.fields[kind] {
            let x = bits.signed(bit, width);
            bit += width;
            if rotation {
                let Some(slot) = words.get_mut(w) else { return };
                let (value, step) = ((*slot as i32) << 16 >> 16, (*slot as i32) >> 16);
                let (value, step) = match kind {
                    0 if fresh => (x, 0),
                    0 => (x, x.wrapping_sub(value)),
                    1 => (value.wrapping_add(x), x),
                    _ => (value.wrapping_add(step.wrapping_add(x)), step.wrapping_add(x)),
                };
                *slot = (wrap16(value) as u32 & 0xFFFF) | ((step as u32) << 16);
                w += 1;
            } else {
                let [Some(value), Some(step)] = [w, w + 1].map(|i| words.get(i).map(|v| *v as i32)) else { return };
                let (value, step) = match kind {
                    0 if fresh => (x, 0),
                    0 => (x, x.wrapping_sub(value)),
                    1 => (value.wrapping_add(x), x),
                    _ => (value.wrapping_add(step.wrapping_add(x)), step.wrapping_add(x)),
                };
                words[w] = value as u32;
                words[w + 1] = step as u32;
                w += 2;
            }
        }
    }
    voice.bit = bit;
}

/// Every bone's sample at `weight` (FP12) between the voice's frame and the one before, the
/// constant channels from the tables.
fn write(t: &Tables, l: &ClipLayout, voice: &Voice, words: &[u32], weight: u32, out: &mut [BoneSample]) {
    super::pose::write_constants(t, l, out);
    let block = l.block_of(voice.frame as usize);
    let (mut w, mut a) = (0usize, 0usize);
    for (bone, sample) in out.iter_mut().enumerate() {
        for kind in 0..CHANNELS_PER_BONE {
            let d = descriptor(t, l, bone * CHANNELS_PER_BONE + kind);
            if !d.animated {
                continue;
            }
            // The dropped component of the interval's block (a block's last frame pairs with it).
            let widths = ChannelWidths::of(d.base_bits, u32_at(t.bytes(), l.widths + 4 * (block * l.animated + a)));
            a += 1;
            // Interpolated at the sample's own fraction (a translation stored in whole units still
            // moves smoothly between frames).
            let shift = FRACS[kind].saturating_sub(d.fraction_bits as u32);
            let mut values = [0i32; 3];
            for v in values.iter_mut() {
                let (value, step) = if kind == 0 {
                    let slot = words.get(w).copied().unwrap_or(0) as i32;
                    w += 1;
                    (slot << 16 >> 16, slot >> 16)
                } else {
                    let pair = (words.get(w).copied().unwrap_or(0) as i32, words.get(w + 1).copied().unwrap_or(0) as i32);
                    w += 2;
                    pair
                };
                let (before, step) = (value.wrapping_sub(step).wrapping_shl(shift), step.wrapping_shl(shift));
                *v = before.wrapping_add(((step as i64 * weight as i64) >> 12) as i32);
            }
            store_channel(kind, FRACS[kind] as u8, widths.dropped, values, sample);
        }
    }
}
