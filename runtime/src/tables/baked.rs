//! Baked vertex frames: every frame's model-space vertex positions, decoded independently.
//!
//! # Clip data layout
//! `u32` per frame: the blob offset of that frame's payload. Frames with identical payloads (held poses,
//! the same pose in two clips) share one payload, so random access costs one table read.
//!
//! # Payload
//! ```text
//! u8 mode
//!   FRAME_DELTA (0): per vertex, per coordinate x, y, z: i8 delta, position = bind + delta * 16
//!                    (a Q8 delta of a Q12 value); delta -128 is an escape followed by the absolute
//!                    position as a little-endian i16
//!   FRAME_RAW (1):   per vertex x, y, z as little-endian i16 (used where smaller than the delta form)
//! ```
//! The bind positions are the blob's vertex table. Payloads are byte-packed (no alignment needed: every
//! field is read byte by byte).

use super::{i16_at, u32_at, Clip, TableError, Tables};

/// Mode byte of a delta-coded frame.
pub const FRAME_DELTA: u8 = 0;
/// Mode byte of a frame stored as plain i16 positions.
pub const FRAME_RAW: u8 = 1;
/// The delta byte announcing an absolute i16.
pub const BAKED_DELTA_ESCAPE: i8 = -128;
/// A delta unit in GTE units (Q8 delta applied to a Q12 value).
pub const BAKED_DELTA_SCALE: i32 = 16;

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
        if payload >= t.bytes().len() {
            return Err(TableError::BadIndex {
                what: "baked frame offset",
                index: f,
                offset: start + 4 * f,
                value: payload,
                limit: t.bytes().len(),
            });
        }
    }
    Ok(())
}

/// Decodes the payload at blob offset `payload` into `out` (one entry per vertex).
pub fn decode_baked_frame_payload(t: &Tables, payload: usize, out: &mut [[i16; 3]]) -> Result<(), TableError> {
    let bytes = t.bytes();
    let end_err = |offset| TableError::BadFramePayload { offset, what: "payload runs past the end of the blob" };
    let mode = *bytes.get(payload).ok_or(end_err(payload))?;
    let at = payload + 1;
    match mode {
        FRAME_RAW => {
            let need = out.len() * 6;
            if at + need > bytes.len() {
                return Err(end_err(at));
            }
            for (i, v) in out.iter_mut().enumerate() {
                for (c, coord) in v.iter_mut().enumerate() {
                    *coord = i16_at(bytes, at + 6 * i + 2 * c);
                }
            }
        }
        FRAME_DELTA => {
            let bind = t.vertices_offset();
            // at <= len: the mode byte was there.
            let mut rest = &bytes[at..];
            // Bind positions read as two words per vertex (x | y << 16, z | pad) when the table sits
            // aligned in memory: two loads instead of six byte loads.
            match crate::bytes::aligned_words(bytes, bind, 2 * out.len()) {
                Some(words) => {
                    for (v, w) in out.iter_mut().zip(words.chunks_exact(2)) {
                        let base = [w[0] as i16, (w[0] >> 16) as i16, w[1] as i16];
                        for (coord, base) in v.iter_mut().zip(base) {
                            *coord = delta_coordinate(bytes.len(), &mut rest, base)?;
                        }
                    }
                }
                None => {
                    for (i, v) in out.iter_mut().enumerate() {
                        for (c, coord) in v.iter_mut().enumerate() {
                            let base = i16_at(bytes, bind + 8 * i + 2 * c);
                            *coord = delta_coordinate(bytes.len(), &mut rest, base)?;
                        }
                    }
                }
            }
        }
        _ => return Err(TableError::BadFramePayload { offset: payload, what: "unknown frame mode byte" }),
    }
    Ok(())
}

/// One coordinate of a delta frame from the front of `rest` (the blob from the delta byte to its end,
/// `blob_len` bytes long in all): `base + delta * 16`, or the escaped absolute value. Advances `rest`.
#[inline(always)]
fn delta_coordinate(blob_len: usize, rest: &mut &[u8], base: i16) -> Result<i16, TableError> {
    let offset = blob_len - rest.len();
    let end_err = |offset| TableError::BadFramePayload { offset, what: "payload runs past the end of the blob" };
    let (&delta, tail) = rest.split_first().ok_or_else(|| end_err(offset))?;
    if delta as i8 == BAKED_DELTA_ESCAPE {
        let [lo, hi, ..] = *tail else {
            return Err(end_err(offset + 1));
        };
        *rest = &tail[2..];
        return Ok(i16::from_le_bytes([lo, hi]));
    }
    *rest = tail;
    let value = base as i32 + (delta as i8) as i32 * BAKED_DELTA_SCALE;
    i16::try_from(value).map_err(|_| TableError::ValueOverflow { offset })
}
