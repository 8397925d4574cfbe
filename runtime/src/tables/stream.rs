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
//! A block's first step reads two records (its first, then its second). [`prepare_boundary`] lets a
//! spare voice read the first ahead of time, on frames that read none (a 30 Hz clip at 60 Hz shows
//! every sample twice): half of its bones on the frame before the block's last, the other half on the
//! last, so that no frame reads more than one record, and those two frames half a record each.
//!
//! [`pose_voice_q14`] writes poses in the GTE's form (`PoseQ14`), what `render_streamed` composes
//! cheapest. On the console a forward step and the pose writing are one asm pass (`hw::fused`: a
//! rotation's new state stays in registers for its pose), a record alone (a restart, a prepared
//! boundary) and the writing alone (a frame the voice stands on) asm loops of their own (`hw`); the
//! Rust loops here are their exact model (the emulator checks compare them bit for bit).
//!
//! State per voice: 4 bytes per animated rotation component (value and difference as halfwords),
//! 8 per translation or scale component ([`words_needed`]).

use super::pose::TRANSLATION_FRAC;
use super::pose::{
    layout, layout_and_counts, rebuild_rotation, ChannelCounts, ClipLayout, ClipWords, Words, CHANNELS_PER_BONE, CHANNEL_ANIMATED, CHANNEL_IDENTITY, CHANNEL_NARROW,
    CLIP_POSE_HEADER_SIZE, FRACS, ROTATION_FRAC, ROTATION_STORED_FRAC, SCALE_FRAC, WIDTHS_DROPPED_SHIFT, WIDTHS_RESIDUAL_SHIFT, WIDTH_BITS,
};
use super::{u32_at, BoneSample, Storage, TableError, Tables, CLIP_SIZE, HEADER_SIZE};
use crate::gte::PoseQ14;

/// Where one voice stands: clip, frame, the bit of the next record (`frame + 1`'s), and the parts of
/// its clip's data (found once, at a seek).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Voice {
    clip: u16,
    frame: u16,
    bit: u32,
    ready: bool,
    /// Standing on its block's first frame in the next block's representation (its first record read,
    /// the second next: [`prepare_boundary`]): it can only move on, not show this frame.
    prepared: bool,
    /// The state words the clip needs ([`words_needed`]): every call checks the caller's words
    /// against it, so that no pass runs short of state.
    words: u16,
    layout: Layout,
}

impl Voice {
    /// Holding the first half of the bones of a block's first record ([`prepare_boundary`]): not
    /// ready (no frame to show or move on from) until the second half is read.
    fn half_prepared(&self) -> bool {
        !self.ready && self.prepared
    }

    /// Word index, from the clip data's start, of the first width word of the block holding the
    /// interval that ends on the frame the voice stands on (the block a record just read belongs to).
    fn widths_word(&self) -> usize {
        self.widths_at(self.block())
    }

    /// The block holding the interval that ends on the frame the voice stands on.
    #[inline(always)]
    fn block(&self) -> usize {
        (self.frame as usize).saturating_sub(1) / self.layout.block_frames as usize
    }

    /// Word index, from the clip data's start, of block `block`'s first width word.
    fn widths_at(&self, block: usize) -> usize {
        let l = &self.layout;
        (l.widths - l.start()) as usize / 4 + block * l.animated as usize
    }

    /// Where the console's record pass reads in the clip's words `clip` (stream from word `stream`)
    /// for `channels` channels, with block `block`'s widths.
    #[cfg(target_os = "psx")]
    #[inline(always)]
    fn pass<'a>(&self, clip: &'a [u32], stream: usize, channels: usize, block: usize) -> hw::Pass<'a> {
        let l = self.layout;
        let start = l.start();
        hw::Pass {
            clip,
            descriptors: (l.descriptors - start) as usize / 4,
            channels,
            widths: self.widths_at(block),
            animated: l.animated as usize,
            stream,
            bit: self.bit,
        }
    }

    /// Where the console's pose writing reads in the clip's words `clip`, with block `block`'s widths.
    #[cfg(target_os = "psx")]
    #[inline(always)]
    fn write<'a>(&self, clip: &'a [u32], block: usize) -> hw::Write<'a> {
        let l = self.layout;
        let start = l.start();
        hw::Write {
            clip,
            descriptors: (l.descriptors - start) as usize / 4,
            constants: (l.constants - start) as usize / 4,
            widths: self.widths_at(block),
        }
    }
}

/// The clip data's offsets a voice plays from (a [`ClipLayout`] in words the console loads cheaply).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    descriptors: u32,
    constants: u32,
    block_offsets: u32,
    widths: u32,
    stream: u32,
    end: u32,
    block_frames: u16,
    animated: u16,
    frame_count: u16,
    /// Bits of every block's first record (values at each channel's base width).
    record0_bits: u16,
}

const NO_LAYOUT: Layout = Layout {
    descriptors: 0,
    constants: 0,
    block_offsets: 0,
    widths: 0,
    stream: 0,
    end: 0,
    block_frames: 1,
    animated: 0,
    frame_count: 0,
    record0_bits: 0,
};
const IDLE: Voice = Voice { clip: 0, frame: 0, bit: 0, ready: false, prepared: false, words: 0, layout: NO_LAYOUT };

impl Layout {
    fn of(l: &ClipLayout, counts: &ChannelCounts) -> Self {
        Layout {
            descriptors: l.descriptors as u32,
            constants: l.constants as u32,
            block_offsets: l.block_offsets as u32,
            widths: l.widths as u32,
            stream: l.stream as u32,
            end: l.end as u32,
            block_frames: l.block_frames as u16,
            animated: l.animated as u16,
            frame_count: l.frame_count as u16,
            record0_bits: counts.record0_bits.min(u16::MAX as u32) as u16,
        }
    }

    /// Blob offset of the clip data (its header).
    fn start(&self) -> u32 {
        self.descriptors - CLIP_POSE_HEADER_SIZE as u32
    }

    /// Whether this layout was found for the clip `entry` describes (its data where it was, as long,
    /// as many frames).
    fn describes(&self, entry: &super::Clip) -> bool {
        self.start() == entry.data_offset && self.end == entry.data_offset.wrapping_add(entry.data_size) && self.frame_count == entry.frame_count
    }

    fn clip_layout(&self) -> ClipLayout {
        ClipLayout {
            frame_count: self.frame_count as usize,
            block_frames: self.block_frames as usize,
            animated: self.animated as usize,
            descriptors: self.descriptors as usize,
            constants: self.constants as usize,
            block_offsets: self.block_offsets as usize,
            widths: self.widths as usize,
            stream: self.stream as usize,
            end: self.end as usize,
        }
    }
}

/// Decoder state words one voice of `clip` needs: 3 per animated rotation, 6 per animated translation
/// or scale.
pub fn words_needed(tables: &Tables, clip: usize) -> Result<usize, TableError> {
    let entry = tables.clip(clip)?;
    if tables.storage() != Storage::RigidGte {
        return Err(TableError::WrongStorage { expected: Storage::RigidGte, found: tables.storage() });
    }
    Ok(layout_and_counts(tables, clip, &entry)?.1.state_words)
}

/// The most [`words_needed`] of any clip of `tables` (0 for baked tables).
pub fn max_words_needed(tables: &Tables) -> usize {
    (0..tables.clip_count()).filter_map(|c| words_needed(tables, c).ok()).max().unwrap_or(0)
}

/// [`max_words_needed`] of an embedded rigid blob at compile time, to size a `PoseStream`
/// (`const WORDS: usize = words_for_blob(include_bytes!(...))`): reads only the header, the clip
/// table and each clip's channel descriptors; 0 for a baked blob or one too short to hold them. A
/// `PoseStream` still checks its words against the parsed tables on every call.
pub const fn words_for_blob(blob: &[u8]) -> usize {
    const fn u16_at(b: &[u8], at: usize) -> usize {
        b[at] as usize | (b[at + 1] as usize) << 8
    }
    if blob.len() < HEADER_SIZE || u16_at(blob, 6) != 0 {
        return 0;
    }
    let (bones, clips) = (u16_at(blob, 8), u16_at(blob, 16));
    let table = u16_at(blob, 56) | u16_at(blob, 58) << 16;
    let (mut most, mut clip) = (0, 0);
    while clip < clips {
        let at = table + clip * CLIP_SIZE + 8;
        if at + 4 > blob.len() {
            return 0;
        }
        let descriptors = (u16_at(blob, at) | u16_at(blob, at + 2) << 16) + CLIP_POSE_HEADER_SIZE;
        let (mut words, mut ch) = (0, 0);
        while ch < bones * CHANNELS_PER_BONE {
            let o = descriptors + ch * 4;
            if o >= blob.len() {
                return 0;
            }
            if blob[o] & CHANNEL_ANIMATED != 0 {
                words += if ch % CHANNELS_PER_BONE == 0 { 3 } else { 6 };
            }
            ch += 1;
        }
        if words > most {
            most = words;
        }
        clip += 1;
    }
    most
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
        && (g > v.frame as usize || (g == v.frame as usize && !v.prepared))
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

    /// The frame this voice stands on (meaningful when it stands in a clip).
    pub fn frame(&self) -> usize {
        self.0.frame as usize
    }

    /// Where this voice stands in the stream (frame and bit): the same after a call that read no
    /// record.
    pub fn position(&self) -> (u16, u32) {
        (self.0.frame, self.0.bit)
    }

    /// Whether this voice was prepared for the next block ([`prepare_boundary`]): it shows no frame
    /// before it has moved on.
    pub fn prepared(&self) -> bool {
        self.0.prepared
    }
}

/// Prepares the spare voice `to` (with `to_words`, as many as `from`'s) for `from`'s next step when
/// `from` stands on its block's last frame: `to` reads the next block's first record (the same frame)
/// now, so that the step across the boundary reads one record, not two. A player calls this on a
/// frame that read no record (at 60 Hz, every other frame of a 30 Hz clip), spreading the boundary's
/// two records over two frames. When `from` stands one frame before its block's last, `to` reads
/// that record's first half of the bones (it stands nowhere until the second half is read), so that
/// a 30 Hz clip at 60 Hz reads half a record on each of the two frames before the boundary. Whether
/// `to` was prepared (nothing else is done).
pub fn prepare_boundary(tables: &Tables, from: &VoiceState, to: &mut VoiceState, to_words: &mut [u32]) -> bool {
    let f = from.0;
    let (frame, bf) = (f.frame as usize, f.layout.block_frames as usize);
    let last = frame != 0 && frame % bf == 0;
    let boundary = if last { frame } else { frame + 1 };
    if !f.ready || f.prepared || boundary % bf != 0 || boundary + 1 >= f.layout.frame_count as usize || to_words.len() < f.words as usize {
        return false;
    }
    let v = &to.0;
    let ours = v.clip == f.clip && v.frame == boundary as u16 && v.layout == f.layout;
    if v.ready && v.prepared && ours {
        return true;
    }
    let split = tables.bone_count() / 2;
    let voice = &mut to.0;
    // A half-prepared voice keeps the state words its half went through in `words`.
    if !last {
        if !(voice.half_prepared() && ours) {
            *voice = Voice { ready: false, prepared: true, frame: boundary as u16, ..f };
            voice.bit = u32_at(tables.bytes(), f.layout.block_offsets as usize + 4 * (boundary / bf));
            voice.words = fresh_bones(tables, voice, to_words, 0..split, 0) as u16;
        }
        return false;
    }
    if voice.half_prepared() && ours {
        fresh_bones(tables, voice, to_words, split..tables.bone_count(), voice.words as usize);
        (voice.ready, voice.words) = (true, f.words);
        return true;
    }
    *voice = Voice { prepared: true, ..f };
    voice.bit = u32_at(tables.bytes(), f.layout.block_offsets as usize + 4 * (frame / bf));
    records(tables, voice, to_words, FRESH);
    true
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
    let bones = tables.bone_count();
    if out.len() < bones {
        return Err(TableError::OutputTooSmall { needed: bones, len: out.len() });
    }
    reach(tables, &mut voice.0, words, clip, g)?;
    write(tables, &voice.0, words, weight, &mut out[..bones]);
    Ok(())
}

/// Brings `voice` (with `words`) to frame `g` of `clip` as [`sample_voice`] does, writing nothing:
/// the record part of a decode alone (for benches that split a frame's cost).
pub fn advance_voice(tables: &Tables, voice: &mut VoiceState, words: &mut [u32], clip: usize, g: usize) -> Result<(), TableError> {
    reach(tables, &mut voice.0, words, clip, g)
}

/// [`sample_voice`] in the GTE's pose form ([`PoseQ14`]: what `render::bones::compose_q14` composes
/// cheapest), each pose equal to `PoseQ14::from_sample` of the sample `sample_voice` gives. `Ok(false)`
/// (`out` then partly written) when a bone's sample has no such form: a scale other than 1.0, or a
/// translation beyond +-32767 GTE units; the voice has advanced all the same.
pub fn pose_voice_q14(
    tables: &Tables,
    voice: &mut VoiceState,
    words: &mut [u32],
    clip: usize,
    g: usize,
    weight: u32,
    out: &mut [PoseQ14],
) -> Result<bool, TableError> {
    let bones = tables.bone_count();
    if out.len() < bones {
        return Err(TableError::OutputTooSmall { needed: bones, len: out.len() });
    }
    let voice = &mut voice.0;
    // On the console, a voice standing on `g` or the frame before it reads and writes in one pass; a
    // restart or a step of several frames takes all but the last step first (a crossfade into a
    // clip's start reads its second record so).
    #[cfg(target_os = "psx")]
    for before in [false, true] {
        if before {
            if g == 0 {
                break;
            }
            reach_before(tables, voice, words, clip, g, 1)?;
        }
        if let Some(fits) = forward_q14_hw(tables, voice, words, clip, g, weight, &mut out[..bones]) {
            return Ok(fits);
        }
    }
    reach(tables, voice, words, clip, g)?;
    let layout = voice.layout.clip_layout();
    let clip_words = ClipWords::new(tables, &layout);
    #[cfg(target_os = "psx")]
    if let Some(c) = clip_words.in_place() {
        let block = voice.block();
        if let Some(fits) = hw::write_q14(&voice.write(c.words(), block), words, weight, &mut out[..bones]) {
            return Ok(fits);
        }
    }
    Ok(match clip_words.in_place() {
        Some(in_place) => write_q14_from(in_place, voice, words, weight, &mut out[..bones]),
        None => write_q14_from(clip_words, voice, words, weight, &mut out[..bones]),
    })
}

/// [`pose_voice_q14`] on the console for a voice standing on `g` or on the frame before it within a
/// block (every frame of forward playback but a restart): what `reach` and the pose writing do, with
/// one set-up for the record's pass and the writing. `None`, nothing done, for any other voice or a
/// clip not in place (or a record the pass leaves to the Rust loop).
#[cfg(target_os = "psx")]
fn forward_q14_hw(t: &Tables, voice: &mut Voice, words: &mut [u32], clip: usize, g: usize, weight: u32, out: &mut [PoseQ14]) -> Option<bool> {
    let ahead = g.wrapping_sub(voice.frame as usize);
    if !voice.ready
        || voice.clip as usize != clip
        || ahead > 1
        || (ahead == 0 && voice.prepared)
        || g >= voice.layout.frame_count as usize
        || words.len() < voice.words as usize
    {
        return None;
    }
    let clip_words = ClipWords::new(t, &voice.layout.clip_layout());
    let c = clip_words.in_place()?;
    let block = if ahead == 1 {
        let (mode, block) = next_step(voice);
        if mode == RESTART {
            return None;
        }
        let channels = t.bone_count() * CHANNELS_PER_BONE;
        let pass = voice.pass(c.words(), c.stream(), channels, block);
        if let Some(stepped) = hw::step_write_q14(&pass, &voice.write(c.words(), block), words, weight, out, mode) {
            voice.bit = stepped.bit;
            voice.prepared = false;
            voice.frame += 1;
            return Some(match stepped.fits {
                Some(fits) => fits,
                None => write_q14_from(c, voice, words, weight, out),
            });
        }
        voice.bit = hw::pass(&pass, words, mode)?;
        voice.prepared = false;
        voice.frame += 1;
        block
    } else {
        voice.block()
    };
    Some(match hw::write_q14(&voice.write(c.words(), block), words, weight, out) {
        Some(fits) => fits,
        None => write_q14_from(c, voice, words, weight, out),
    })
}

/// Brings `voice` to frame `g` of `clip`: advanced when it stands at most one block before it in the
/// same clip, else restarted at `g`'s block.
fn reach(tables: &Tables, voice: &mut Voice, words: &mut [u32], clip: usize, g: usize) -> Result<(), TableError> {
    reach_before(tables, voice, words, clip, g, 0)
}

/// [`reach`] leaving out the last `last` (0 or 1) steps to `g`: the voice then stands on `g - last`,
/// or on `g`'s block's first frame when that is later (prepared for the block's first step).
fn reach_before(tables: &Tables, voice: &mut Voice, words: &mut [u32], clip: usize, g: usize, last: usize) -> Result<(), TableError> {
    let ahead = g.wrapping_sub(voice.frame as usize);
    let near = voice.ready && voice.clip as usize == clip && ahead <= voice.layout.block_frames as usize && !(voice.prepared && ahead == 0);
    if !near || g >= voice.layout.frame_count as usize {
        let entry = tables.frame_clip(clip, g, Storage::RigidGte)?;
        // A voice restarting in the clip it stands in (a crossfade into the playing clip, a seek)
        // keeps the layout it found, when the clip's entry still says where it was: the pass over
        // the descriptors is most of a restart's set-up.
        if !(voice.ready && voice.clip as usize == clip && voice.layout.describes(&entry)) {
            let (l, counts) = layout_and_counts(tables, clip, &entry)?;
            *voice = Voice { clip: clip as u16, words: counts.state_words as u16, layout: Layout::of(&l, &counts), ..IDLE };
        }
        if words.len() < voice.words as usize {
            return Err(TableError::OutputTooSmall { needed: voice.words as usize, len: words.len() });
        }
        *voice = Voice { frame: 0, bit: 0, ready: true, prepared: false, ..*voice };
        seek(tables, voice, words, g, last);
    } else {
        if words.len() < voice.words as usize {
            return Err(TableError::OutputTooSmall { needed: voice.words as usize, len: words.len() });
        }
        for _ in 0..ahead.saturating_sub(last) {
            step(tables, voice, words);
        }
    }
    Ok(())
}

/// Restarts `voice` at a block so that it stands on `g` with the difference from `g - 1` (within the
/// block holding that interval; from nothing for frame 0), or `last` frames before it (never before
/// the block's first frame).
fn seek(t: &Tables, voice: &mut Voice, words: &mut [u32], g: usize, last: usize) {
    let bf = voice.layout.block_frames as usize;
    let block = g.saturating_sub(1) / bf;
    let start = block * bf;
    // The block's first record; past the first block, its first frame is the previous block's last,
    // so the voice stands on it prepared (in this block's representation: it only moves on).
    voice.frame = start as u16;
    voice.bit = u32_at(t.bytes(), voice.layout.block_offsets as usize + 4 * block);
    records(t, voice, words, FRESH);
    voice.prepared = block > 0;
    for _ in start..g.saturating_sub(last).max(start) {
        step(t, voice, words);
    }
}

/// Moves `voice` one frame on (the caller keeps it within the clip). From a block's last frame, the
/// next block starts over from its first record (the same frame in the next block's representation)
/// and its second.
fn step(t: &Tables, voice: &mut Voice, words: &mut [u32]) {
    let (mode, block) = next_step(voice);
    if mode == RESTART {
        voice.bit = u32_at(t.bytes(), voice.layout.block_offsets as usize + 4 * block);
    }
    voice.prepared = false;
    voice.frame += 1;
    records(t, voice, words, mode);
}

/// What moving `voice` one frame on reads, and the block holding the interval it moves across: a
/// prepared voice's block's second record (its first is read), a residual record within a block, the
/// next block's first two records from a block's last frame, the first block's second from frame 0.
#[inline(always)]
fn next_step(voice: &Voice) -> (u8, usize) {
    let frame = voice.frame as usize;
    let bf = voice.layout.block_frames as usize;
    let (block, within) = (frame / bf, frame % bf);
    let mode = if voice.prepared {
        FIRST_DIFFERENCES
    } else if within != 0 {
        RESIDUALS
    } else if frame > 0 {
        RESTART
    } else {
        FIRST_DIFFERENCES
    };
    (mode, block)
}

/// What a pass over the records reads: a block's first record from nothing (difference 0); its
/// second record (first differences); a later record (residuals); or a block's first two records at
/// once, continuing from the previous block's last frame.
const FRESH: u8 = 1;
const FIRST_DIFFERENCES: u8 = 2;
const RESIDUALS: u8 = 3;
const RESTART: u8 = 4;

/// Reads the record(s) of `mode` at `voice.bit` into every animated component's (value, difference).
/// One loop per mode, no calls: the console keeps its state in registers.
fn records(t: &Tables, voice: &mut Voice, words: &mut [u32], mode: u8) {
    let clip = ClipWords::new(t, &voice.layout.clip_layout());
    let channels = t.bone_count() * CHANNELS_PER_BONE;
    #[cfg(target_os = "psx")]
    if let Some(bit) = clip.in_place().and_then(|c| records_hw(c.words(), c.stream(), channels, voice, words, mode)) {
        voice.bit = bit;
        return;
    }
    match (clip.in_place(), mode) {
        (Some(c), FRESH) => records_from::<_, FRESH>(c, 0, channels, voice, words, mode),
        (Some(c), FIRST_DIFFERENCES) => records_from::<_, FIRST_DIFFERENCES>(c, 0, channels, voice, words, mode),
        (Some(c), RESIDUALS) => records_from::<_, RESIDUALS>(c, 0, channels, voice, words, mode),
        (Some(c), _) => records_from::<_, RESTART>(c, 0, channels, voice, words, mode),
        (None, _) => records_from::<_, 0>(clip, 0, channels, voice, words, mode),
    }
}

/// A block's first record for the bones `bones` only, at `voice.bit` (the bit after them then), the
/// bones before them holding the first `used` state words; the state words the bones up to
/// `bones.end` hold.
fn fresh_bones(t: &Tables, voice: &mut Voice, words: &mut [u32], bones: core::ops::Range<usize>, used: usize) -> usize {
    let clip = ClipWords::new(t, &voice.layout.clip_layout());
    let (first, channels) = (bones.start * CHANNELS_PER_BONE, bones.end.min(t.bone_count()) * CHANNELS_PER_BONE);
    if first >= channels {
        return used;
    }
    #[cfg(target_os = "psx")]
    if let Some(c) = clip.in_place() {
        let mut p = voice.pass(c.words(), c.stream(), channels, 0);
        p.descriptors += first;
        p.channels -= first;
        if let Some((bit, n)) = words.get_mut(used..).and_then(|w| hw::pass_counted(&p, w, FRESH)) {
            voice.bit = bit;
            return used + n;
        }
    }
    let descriptors = ((voice.layout.descriptors - voice.layout.start()) / 4) as usize;
    let state_words = |clip: &dyn Fn(usize) -> u32| {
        (0..channels).filter(|&ch| clip(descriptors + ch) & CHANNEL_ANIMATED as u32 != 0).map(|ch| if ch % CHANNELS_PER_BONE == 0 { 3 } else { 6 }).sum()
    };
    match clip.in_place() {
        Some(c) => {
            records_from::<_, FRESH>(c, first, channels, voice, words, FRESH);
            state_words(&|i| c.word(i))
        }
        None => {
            records_from::<_, FRESH>(clip, first, channels, voice, words, FRESH);
            state_words(&|i| clip.word(i))
        }
    }
}

/// [`records_from`] on the console ([`hw::pass`]; a restart is a block's first record then its
/// second): the bit after the record(s), or `None` (nothing read) for the Rust loop to do it.
#[cfg(target_os = "psx")]
fn records_hw(clip: &[u32], stream: usize, channels: usize, voice: &Voice, words: &mut [u32], mode: u8) -> Option<u32> {
    let block = voice.block();
    let mut p = voice.pass(clip, stream, channels, block);
    if mode == RESTART {
        p.bit = hw::pass(&p, words, FRESH)?;
        hw::pass(&p, words, FIRST_DIFFERENCES)
    } else {
        hw::pass(&p, words, mode)
    }
}

#[cfg(target_os = "psx")]
mod hw;

/// The stream's bits from a position on, read in order through a two-word window (one load per
/// word crossed, not two per field).
struct Bits<W: Words> {
    clip: W,
    /// Word index of the word after `hi`.
    next: usize,
    lo: u32,
    hi: u32,
    /// Bit position in `lo` (0..32).
    s: u32,
}

impl<W: Words> Bits<W> {
    #[inline(always)]
    fn at(clip: W, bit: u32) -> Self {
        let i = clip.stream() + (bit >> 5) as usize;
        Bits { clip, next: i + 2, lo: clip.word(i), hi: clip.word(i + 1), s: bit & 31 }
    }

    /// The next `width`-bit (0..=32) two's-complement field.
    #[inline(always)]
    fn signed(&mut self, width: u32) -> i32 {
        // `hi << (32 - s)` in two steps: 0 for s = 0, as no single shift of 32 bits gives.
        let v = (self.lo >> self.s) | ((self.hi << 1) << (31 - self.s));
        self.s += width;
        if self.s >= 32 {
            self.s -= 32;
            self.lo = self.hi;
            self.hi = self.clip.word(self.next);
            self.next += 1;
        }
        if width >= 32 {
            v as i32
        } else {
            // The low `width` bits sign-extended (0 for width 0), again in two shifts.
            (((v << 1) << (31 - width)) as i32 >> (31 - width)) >> 1
        }
    }

    /// The stream bit of the next field.
    #[inline(always)]
    fn bit(&self) -> u32 {
        ((self.next - 2 - self.clip.stream()) as u32) * 32 + self.s
    }
}

/// [`records`] for one `MODE` (0: `mode` at run time, for the rare clip read from bytes). Components
/// in state order; a rotation's (value, difference) as halfwords of one word.
#[inline(never)]
fn records_from<W: Words, const MODE: u8>(clip: W, first: usize, channels: usize, voice: &mut Voice, words: &mut [u32], mode: u8) {
    let mode = if MODE == 0 { mode } else { MODE };
    let l = voice.layout;
    let start = l.start();
    let descriptors = (l.descriptors - start) as usize / 4;
    let widths_at = voice.widths_word();
    // The record being read, and for RESTART record 1 (after the whole record 0).
    let mut bits = Bits::at(clip, voice.bit);
    let mut bits1 = Bits::at(clip, if mode == RESTART { voice.bit + l.record0_bits as u32 } else { 0 });
    let (mut w, mut a) = (0usize, 0usize);
    let mut kind = 0;
    for ch in 0..first {
        if clip.word(descriptors + ch) & CHANNEL_ANIMATED as u32 != 0 {
            (w, a) = (w + if ch % CHANNELS_PER_BONE == 0 { 3 } else { 6 }, a + 1);
        }
    }
    for ch in first..channels {
        let d = clip.word(descriptors + ch);
        let rotation = kind == 0;
        kind = if kind == 2 { 0 } else { kind + 1 };
        if d & CHANNEL_ANIMATED as u32 == 0 {
            continue;
        }
        let widths = if mode == FRESH { 0 } else { clip.word(widths_at + a) };
        a += 1;
        // The record's field widths of the three components, five bits each (a base width, up to 32,
        // is the same for all three).
        let (fields, base) = match mode {
            FIRST_DIFFERENCES => (widths, 0),
            RESIDUALS => (widths >> WIDTHS_RESIDUAL_SHIFT, 0),
            _ => (0, (d >> 16) & 63),
        };
        let width = |c: u32| if mode == FRESH || mode == RESTART { base } else { (fields >> (WIDTH_BITS * c)) & 31 };
        if rotation {
            let Some(slots) = words.get_mut(w..w + 3) else { return };
            w += 3;
            for (c, slot) in (0..3u32).zip(slots.iter_mut()) {
                let x = bits.signed(width(c));
                let d1 = if mode == RESTART { bits1.signed((widths >> (WIDTH_BITS * c)) & 31) } else { 0 };
                let (value, step) = ((*slot as i32) << 16 >> 16, (*slot as i32) >> 16);
                let (value, step) = advance_component(mode, value, step, x, d1);
                *slot = (value as u32 & 0xFFFF) | ((step as u32) << 16);
            }
        } else {
            let Some(slots) = words.get_mut(w..w + 6) else { return };
            w += 6;
            for (c, pair) in (0..3u32).zip(slots.chunks_exact_mut(2)) {
                let x = bits.signed(width(c));
                let d1 = if mode == RESTART { bits1.signed((widths >> (WIDTH_BITS * c)) & 31) } else { 0 };
                let (value, step) = advance_component(mode, pair[0] as i32, pair[1] as i32, x, d1);
                (pair[0], pair[1]) = (value as u32, step as u32);
            }
        }
    }
    voice.bit = if mode == RESTART { bits1.bit() } else { bits.bit() };
}

/// A component's (value, difference) after a record: `x` the field read, `d1` record 1's difference
/// (RESTART). Rotations keep halfwords: their callers store the low 16 bits of each.
#[inline(always)]
fn advance_component(mode: u8, value: i32, step: i32, x: i32, d1: i32) -> (i32, i32) {
    match mode {
        FRESH => (x, 0),
        FIRST_DIFFERENCES => (value.wrapping_add(x), x),
        RESIDUALS => (value.wrapping_add(step.wrapping_add(x)), step.wrapping_add(x)),
        _ => (x.wrapping_add(d1), d1),
    }
}

/// Every bone's sample at `weight` (FP12) between the voice's frame and the one before into `out`:
/// animated channels interpolated from their (value, difference), a rotation's dropped component
/// rebuilt, constants from the tables. One loop, no calls (but the rare square root below a half).
fn write(t: &Tables, voice: &Voice, words: &[u32], weight: u32, out: &mut [BoneSample]) {
    let clip = ClipWords::new(t, &voice.layout.clip_layout());
    match clip.in_place() {
        Some(words_in_place) => write_from(words_in_place, voice, words, weight, out),
        None => write_from(clip, voice, words, weight, out),
    }
}

#[inline(never)]
fn write_from<W: Words>(clip: W, voice: &Voice, words: &[u32], weight: u32, out: &mut [BoneSample]) {
    const UP: u32 = ROTATION_FRAC - ROTATION_STORED_FRAC;
    let l = voice.layout;
    let start = l.start();
    let widths_at = voice.widths_word();
    let (mut w, mut a, mut at) = (0usize, 0usize, (l.constants - start) as usize / 4);
    let mut ch = (l.descriptors - start) as usize / 4;
    for sample in out.iter_mut() {
        // Rotation.
        let d = clip.word(ch);
        sample.rotation = if d & CHANNEL_ANIMATED as u32 != 0 {
            let widths = clip.word(widths_at + a);
            a += 1;
            let slots = [0, 1, 2].map(|i| words.get(w + i).copied().unwrap_or(0));
            w += 3;
            let q = animated_rotation(slots, d, widths, weight);
            [q[0] << UP, q[1] << UP, q[2] << UP, q[3] << UP]
        } else if d & CHANNEL_IDENTITY as u32 != 0 {
            [0, 0, 0, 1 << ROTATION_FRAC]
        } else {
            let (w0, w1) = (clip.word(at), clip.word(at + 1));
            at += 2;
            // Each halfword's sign moved to bit 31 and shifted down to Q30.
            [((w0 << 16) as i32) >> (16 - UP), (w0 as i32) >> 16 << UP, ((w1 << 16) as i32) >> (16 - UP), (w1 as i32) >> 16 << UP]
        };
        // Translation, then scale.
        sample.translation = vector_channel(&clip, clip.word(ch + 1), 1, words, weight, &mut w, &mut a, &mut at);
        sample.scale = vector_channel(&clip, clip.word(ch + 2), 2, words, weight, &mut w, &mut a, &mut at);
        ch += CHANNELS_PER_BONE;
    }
}

/// A translation (`kind` 1) or scale (2) channel of descriptor `d` at `weight`, at its fraction
/// (`FRACS[kind]`): interpolated from the state words at `w`, or the constant at word `at` (both
/// moved on past what it read; `a` counts animated channels).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn vector_channel<W: Words>(clip: &W, d: u32, kind: usize, words: &[u32], weight: u32, w: &mut usize, a: &mut usize, at: &mut usize) -> [i32; 3] {
    let shift = FRACS[kind].saturating_sub((d >> 8) & 255);
    if d & CHANNEL_ANIMATED as u32 != 0 {
        *a += 1;
        let mut v = [0i32; 3];
        for c in v.iter_mut() {
            let (value, step) = (words.get(*w).copied().unwrap_or(0) as i32, words.get(*w + 1).copied().unwrap_or(0) as i32);
            *w += 2;
            *c = interpolate_vector(value, step, shift, weight);
        }
        v
    } else if d & CHANNEL_IDENTITY as u32 != 0 {
        let v = if kind == 1 { 0 } else { 1 << SCALE_FRAC };
        [v, v, v]
    } else if d & CHANNEL_NARROW as u32 != 0 {
        let (w0, w1) = (clip.word(*at), clip.word(*at + 1));
        *at += 2;
        [((w0 << 16) as i32 >> 16).wrapping_shl(shift), ((w0 as i32) >> 16).wrapping_shl(shift), ((w1 << 16) as i32 >> 16).wrapping_shl(shift)]
    } else {
        *at += 3;
        [clip.word(*at - 3) as i32, clip.word(*at - 2) as i32, clip.word(*at - 1) as i32]
    }
}

/// [`write_from`] in the GTE's pose form, rounded as `PoseQ14::from_sample` rounds (a Q15 rotation
/// component `v` is `(v + 1) >> 1` in Q14): whether every bone has that form.
#[inline(never)]
fn write_q14_from<W: Words>(clip: W, voice: &Voice, words: &[u32], weight: u32, out: &mut [PoseQ14]) -> bool {
    let l = voice.layout;
    let start = l.start();
    let widths_at = voice.widths_word();
    let (mut w, mut a, mut at) = (0usize, 0usize, (l.constants - start) as usize / 4);
    let mut ch = (l.descriptors - start) as usize / 4;
    let mut fits = true;
    let q14 = |v: i32| ((v + 1) >> 1) as i16;
    for pose in out.iter_mut() {
        let d = clip.word(ch);
        pose.rotation = if d & CHANNEL_ANIMATED as u32 != 0 {
            let widths = clip.word(widths_at + a);
            a += 1;
            let Some(&[s0, s1, s2]) = words.get(w..w + 3) else { return false };
            w += 3;
            animated_rotation([s0, s1, s2], d, widths, weight).map(q14)
        } else if d & CHANNEL_IDENTITY as u32 != 0 {
            [0, 0, 0, 1 << 14]
        } else {
            let (w0, w1) = (clip.word(at), clip.word(at + 1));
            at += 2;
            [w0 as i32 as i16, (w0 >> 16) as i16, w1 as i32 as i16, (w1 >> 16) as i16].map(|h| q14(h as i32))
        };
        let t = vector_channel(&clip, clip.word(ch + 1), 1, words, weight, &mut w, &mut a, &mut at);
        // Rounded to GTE units as `unit_sample` rounds; the scale must be 1.0 within its rounding.
        let t = t.map(|v| ((v >> 1) + (1 << (TRANSLATION_FRAC - 2))) >> (TRANSLATION_FRAC - 1));
        fits &= t.iter().all(|&v| (v + 0x8000) as u32 <= 0xFFFF);
        pose.translation = t.map(|v| v as i16);
        pose.pad = 0;
        // As `vector_channel` reads it: animated before identity (a channel flagged both is animated).
        let d = clip.word(ch + 2);
        if d & CHANNEL_ANIMATED as u32 != 0 || d & CHANNEL_IDENTITY as u32 == 0 {
            let s = vector_channel(&clip, d, 2, words, weight, &mut w, &mut a, &mut at);
            fits &= s.iter().all(|&v| (v.wrapping_sub(65528) as u32) < 16);
        }
        ch += CHANNELS_PER_BONE;
    }
    fits
}

/// An animated rotation channel (descriptor `d`, this block's width word `widths`) at `weight`
/// from its three state words: each stored component interpolated, the dropped one rebuilt; Q15.
#[inline(always)]
fn animated_rotation(slots: [u32; 3], d: u32, widths: u32, weight: u32) -> [i32; 4] {
    let shift = ROTATION_STORED_FRAC.saturating_sub((d >> 8) & 255);
    let q = slots.map(|slot| interpolate_rotation((slot as i32) << 16 >> 16, (slot as i32) >> 16, shift, weight));
    rebuild_rotation(q, (widths >> WIDTHS_DROPPED_SHIFT) as usize)
}

/// A rotation component between the frame before (`value - step`) and this one, at `weight` (FP12),
/// in Q15 (`shift` <= 12, checked at parse): the product of a halfword difference and a weight fits
/// `i32` and keeps its fraction bits below the shift.
#[inline(always)]
fn interpolate_rotation(value: i32, step: i32, shift: u32, weight: u32) -> i32 {
    (value.wrapping_sub(step) << shift).wrapping_add((step * weight as i32) >> (12 - shift.min(12)))
}

/// A translation or scale component between frames, at its sample's own fraction (a translation
/// stored in whole units still moves smoothly between frames).
#[inline(always)]
fn interpolate_vector(value: i32, step: i32, shift: u32, weight: u32) -> i32 {
    let (before, step) = (value.wrapping_sub(step).wrapping_shl(shift), step.wrapping_shl(shift));
    before.wrapping_add(((step as i64 * weight as i64) >> 12) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The console's pose writing (`hw::write_q14`) computes a rotation component as
    /// `value << shift + (step * (weight - 4096)) >> (k - 3)`, at weight 4096 as the state word
    /// shifted up 16 then down k + 1: the model's [`interpolate_rotation`] either way.
    #[test]
    fn the_console_forms_of_a_rotation_component_are_the_models() {
        let halves = [-32768, -32767, -20000, -4097, -4096, -1, 0, 1, 2, 4095, 4096, 12345, 32766, 32767];
        for k in 3..=15u32 {
            let shift = ROTATION_STORED_FRAC - k;
            for &value in &halves {
                for &step in &halves {
                    let word = (value as u32 & 0xFFFF) | (step as u32) << 16;
                    for weight in [0u32, 1, 2047, 2048, 2049, 4095, 4096] {
                        let model = interpolate_rotation(value, step, shift, weight);
                        let console = (value << shift) + ((step * (weight as i32 - 4096)) >> (k - 3));
                        assert_eq!(console, model, "value {value} step {step} k {k} weight {weight}");
                        if weight == 4096 {
                            assert_eq!(((word << 16) as i32) >> (k + 1), model, "value {value} step {step} k {k}");
                        }
                    }
                }
            }
        }
    }

    /// A narrow constant translation (an i16 `h` at k <= 8 fraction bits) in GTE units: the console's
    /// `(h + (2^k >> 1)) >> k` is what the model's widening and `unit_sample` rounding give.
    #[test]
    fn the_console_rounding_of_a_narrow_translation_is_the_models() {
        for k in 0..=TRANSLATION_FRAC {
            for h in i16::MIN..=i16::MAX {
                let v = (h as i32).wrapping_shl(TRANSLATION_FRAC - k);
                let model = ((v >> 1) + (1 << (TRANSLATION_FRAC - 2))) >> (TRANSLATION_FRAC - 1);
                assert_eq!((h as i32 + ((1 << k) >> 1)) >> k, model, "h {h} k {k}");
            }
        }
    }
}
