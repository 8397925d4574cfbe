//! Baked vertex frames: every frame's model-space vertex positions, decoded independently.
//!
//! # Clip data layout
//! `u32` per frame: the blob offset of that frame's payload, a multiple of 4. Frames with identical
//! payloads (held poses, the same pose in two clips) share one payload, so random access costs one
//! table read.
//!
//! # Payload (4-byte aligned; coordinate `c` is axis `c % 3` of vertex `c / 3`, `n` vertices)
//! ```text
//! u8 mode, u8 0, u16 escape count (0 in a raw frame)
//! FRAME_DELTA (0): ceil(3n / 4) delta words, then `escape count` escape words
//!   delta word w holds coordinates 4w, 4w+2, 4w+1, 4w+3 in its bytes 0, 1, 2, 3 (that order), each
//!   as u8 = delta + 128: a signed Q8 delta of a Q12 value, position = bind + delta * 16; the bytes
//!   of coordinates past 3n are unused (the writer puts 128)
//!   escape word: u16 coordinate index (< 3n), i16 absolute position: a coordinate whose move does
//!   not fit the delta (the writer puts delta 0 for it in the delta words and lists the escapes in
//!   increasing order; a later word for the same coordinate wins)
//! FRAME_RAW (1): per vertex x, y, z as little-endian i16 (3n values; chosen where smaller)
//! ```
//! The bind positions are the blob's vertex table, followed for a baked blob by its decode lanes
//! ([`decode_lane`]): coordinate `c`'s bind value plus [`LANE_BIAS`] as a u16, two to a word in
//! coordinate order, `2 * ceil(3n / 4)` words (the lanes past 3n are 0). The parser checks them
//! against the vertex table, and every bind coordinate within +-[`BAKED_BIND_LIMIT`].
//!
//! # Decoding at register level
//! Every delta word `d` and its two lane words `p0`, `p1` give two output words (two i16 positions
//! each, in coordinate order) with eight operations, [`delta_words`]:
//! `(((d & 0x00FF00FF) << 4) + p0) ^ 0x80008000` and `(((d & 0xFF00FF00) >> 4) + p1) ^ 0x80008000`.
//! A lane's sum is bind + 0x8000 + delta * 16, within 0..=0xFFFF since the bind is within
//! +-30,720: no carry crosses into the next lane, and the xor turns it back into the signed
//! position. The escapes then overwrite their coordinates. The console runs the same operations in
//! one asm loop (`hw`), the host runs [`decode_baked_frame_payload`] itself; the verification
//! record compares them word for word.

use super::{u16_at, u32_at, Clip, TableError, Tables};

/// Mode byte of a delta-coded frame.
pub const FRAME_DELTA: u8 = 0;
/// Mode byte of a frame stored as plain i16 positions.
pub const FRAME_RAW: u8 = 1;
/// Bytes before a payload's words: mode, 0, escape count.
pub const FRAME_HEADER_SIZE: usize = 4;
/// A delta unit in GTE units (Q8 delta applied to a Q12 value).
pub const BAKED_DELTA_SCALE: i32 = 16;
/// The stored delta byte is the delta plus this.
pub const BAKED_DELTA_BIAS: i32 = 128;
/// The largest bind coordinate magnitude of a baked blob (7.5 m, the import profile's limit): any
/// delta then gives a position within i16.
pub const BAKED_BIND_LIMIT: i32 = 30_720;
/// A decode lane holds the bind coordinate plus this (0x8000 minus the delta bias times the scale).
pub const LANE_BIAS: i32 = 0x8000 - BAKED_DELTA_BIAS * BAKED_DELTA_SCALE;
/// Low half-word of every delta word's even-coordinate bytes.
pub const EVEN_BYTES: u32 = 0x00FF_00FF;
/// Turns two biased lanes back into signed positions.
pub const LANE_SIGNS: u32 = 0x8000_8000;

/// The decode lane of a bind coordinate (within +-[`BAKED_BIND_LIMIT`]).
pub const fn decode_lane(bind: i16) -> u16 {
    (bind as i32 + LANE_BIAS) as u16
}

/// Delta words of a frame of `vertices` vertices (also the lane word pairs).
pub const fn delta_word_count(vertices: usize) -> usize {
    (3 * vertices).div_ceil(4)
}

/// Byte of delta word `c / 4` that holds coordinate `c`.
pub const fn delta_byte(c: usize) -> usize {
    4 * (c / 4) + [0, 2, 1, 3][c % 4]
}

/// The two output words of delta word `d` with lane words `p0`, `p1`: coordinates 4w, 4w+1 (low,
/// high half) and 4w+2, 4w+3.
#[inline(always)]
pub const fn delta_words(d: u32, p0: u32, p1: u32) -> [u32; 2] {
    let even = d & EVEN_BYTES;
    let odd = d ^ even;
    [((even << 4).wrapping_add(p0)) ^ LANE_SIGNS, ((odd >> 4).wrapping_add(p1)) ^ LANE_SIGNS]
}

/// Bytes of the lane words that follow the bind positions of a baked blob.
pub(super) const fn lane_bytes(vertices: usize) -> usize {
    8 * delta_word_count(vertices)
}

/// Checks the bind positions of a baked blob and its decode lanes (at `lanes`).
pub(super) fn check_lanes(t: &Tables, lanes: usize) -> Result<(), TableError> {
    let n = t.vertex_count();
    for v in 0..n {
        for (axis, b) in t.vertex(v).into_iter().enumerate() {
            let at = t.vertices_offset() + 8 * v + 2 * axis;
            if (b as i32).abs() > BAKED_BIND_LIMIT {
                return Err(TableError::ValueOverflow { offset: at });
            }
        }
    }
    for c in 0..2 * lane_bytes(n) / 4 {
        let at = lanes + 2 * c;
        let expected = if c < 3 * n { decode_lane(t.vertex(c / 3)[c % 3]) } else { 0 };
        if u16_at(t.bytes(), at) != expected {
            return Err(TableError::BadFramePayload { offset: at, what: "decode lane is not bind + 0x7800" });
        }
    }
    Ok(())
}

pub(super) fn check_clip(t: &Tables, clip_index: usize, clip: &Clip) -> Result<(), TableError> {
    let start = clip.data_offset as usize;
    if clip.data_size as usize != 4 * clip.frame_count as usize {
        return Err(TableError::BadClipData {
            clip: clip_index,
            offset: start,
            what: "frame table size != 4 * frame count",
        });
    }
    for f in 0..clip.frame_count as usize {
        let payload = u32_at(t.bytes(), start + 4 * f) as usize;
        if payload >= t.bytes().len() || payload % 4 != 0 {
            return Err(TableError::BadIndex {
                what: "baked frame offset (a multiple of 4 inside the blob)",
                index: f,
                offset: start + 4 * f,
                value: payload,
                limit: t.bytes().len(),
            });
        }
    }
    Ok(())
}

/// A checked delta frame: where its words are, for a decoder.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DeltaFrame {
    /// Blob offsets of the delta words and of the escape words.
    pub deltas: usize,
    pub escapes: usize,
    pub escape_count: usize,
}

/// What a payload holds, once its header and size are checked against the blob.
enum Payload {
    Raw(usize),
    Delta(DeltaFrame),
}

fn check_payload(t: &Tables, payload: usize, vertices: usize) -> Result<Payload, TableError> {
    let bytes = t.bytes();
    let end_err = |offset| TableError::BadFramePayload { offset, what: "payload runs past the end of the blob" };
    if payload + FRAME_HEADER_SIZE > bytes.len() {
        return Err(end_err(payload));
    }
    if bytes[payload + 1] != 0 {
        return Err(TableError::BadFramePayload { offset: payload + 1, what: "reserved payload byte is not 0" });
    }
    let escape_count = u16_at(bytes, payload + 2) as usize;
    let at = payload + FRAME_HEADER_SIZE;
    match bytes[payload] {
        FRAME_RAW => {
            if escape_count != 0 {
                return Err(TableError::BadFramePayload { offset: payload + 2, what: "a raw frame has escapes" });
            }
            if at + 6 * vertices > bytes.len() {
                return Err(end_err(at));
            }
            Ok(Payload::Raw(at))
        }
        FRAME_DELTA => {
            let escapes = at + 4 * delta_word_count(vertices);
            if escapes + 4 * escape_count > bytes.len() {
                return Err(end_err(at));
            }
            Ok(Payload::Delta(DeltaFrame { deltas: at, escapes, escape_count }))
        }
        _ => Err(TableError::BadFramePayload { offset: payload, what: "unknown frame mode byte" }),
    }
}

/// Decodes the payload at blob offset `payload` into `out[..vertex count]` (one entry per vertex).
/// On an error, those entries hold what was decoded up to it.
pub fn decode_baked_frame_payload(t: &Tables, payload: usize, out: &mut [[i16; 3]]) -> Result<(), TableError> {
    let bytes = t.bytes();
    let len = out.len();
    let out = out.get_mut(..t.vertex_count()).ok_or(TableError::OutputTooSmall { needed: t.vertex_count(), len })?;
    match check_payload(t, payload, out.len())? {
        Payload::Raw(at) => {
            let done = copy_raw_fast(t, at, out);
            for (c, coord) in out.as_flattened_mut().iter_mut().enumerate().skip(done) {
                *coord = super::i16_at(bytes, at + 2 * c);
            }
            Ok(())
        }
        Payload::Delta(frame) => {
            let done = decode_deltas_fast(t, &frame, out);
            let out = out.as_flattened_mut();
            delta_words_from(t, &frame, done, out);
            apply_escapes(t, &frame, out)
        }
    }
}

/// The console's asm loop over the whole delta words when `out` is word-aligned; the number of
/// delta words it decoded.
#[cfg(target_os = "psx")]
fn decode_deltas_fast(t: &Tables, frame: &DeltaFrame, out: &mut [[i16; 3]]) -> usize {
    hw::decode_deltas(t, frame, out)
}

#[cfg(not(target_os = "psx"))]
fn decode_deltas_fast(_: &Tables, _: &DeltaFrame, _: &mut [[i16; 3]]) -> usize {
    0
}

/// The console's asm copy of a raw frame's coordinate pairs when `out` is word-aligned; the number of
/// coordinates it copied.
#[cfg(target_os = "psx")]
fn copy_raw_fast(t: &Tables, at: usize, out: &mut [[i16; 3]]) -> usize {
    hw::copy_raw(t, at, out)
}

#[cfg(not(target_os = "psx"))]
fn copy_raw_fast(_: &Tables, _: usize, _: &mut [[i16; 3]]) -> usize {
    0
}

/// The delta words from `first` on ([`delta_words`]), the last one cut at coordinate 3n.
fn delta_words_from(t: &Tables, frame: &DeltaFrame, first: usize, out: &mut [i16]) {
    let bytes = t.bytes();
    let lanes = t.vertices_offset() + 8 * t.vertex_count();
    for w in first..delta_word_count(out.len() / 3) {
        let d = u32_at(bytes, frame.deltas + 4 * w);
        let words = delta_words(d, u32_at(bytes, lanes + 8 * w), u32_at(bytes, lanes + 8 * w + 4));
        for (k, word) in words.iter().enumerate() {
            for (h, half) in [*word as u16 as i16, (*word >> 16) as u16 as i16].into_iter().enumerate() {
                if let Some(coord) = out.get_mut(4 * w + 2 * k + h) {
                    *coord = half;
                }
            }
        }
    }
}

/// Overwrites the escaped coordinates in order (`out` is every coordinate of the frame); fails at the
/// first escape whose coordinate is past `out`.
fn apply_escapes(t: &Tables, frame: &DeltaFrame, out: &mut [i16]) -> Result<(), TableError> {
    let bytes = t.bytes();
    #[cfg(target_os = "psx")]
    let first = match hw::apply_escapes(t, frame, out) {
        Some(done) if done == frame.escape_count => return Ok(()),
        // The escape that stopped the loop: report it below.
        Some(done) => done,
        None => 0,
    };
    #[cfg(not(target_os = "psx"))]
    let first = 0;
    for e in first..frame.escape_count {
        let at = frame.escapes + 4 * e;
        let c = u16_at(bytes, at) as usize;
        let coord = out.get_mut(c).ok_or(TableError::BadFramePayload { offset: at, what: "escape coordinate past 3 * vertex count" })?;
        *coord = super::i16_at(bytes, at + 2);
    }
    Ok(())
}

#[cfg(target_os = "psx")]
mod hw;
