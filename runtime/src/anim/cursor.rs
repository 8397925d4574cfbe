//! Where a playback time falls among the keys of one type in one track.
//!
//! A cursor remembers the current segment (key `a` at or before the time, key `b` after it) so that
//! the common case, time still inside the segment, is two comparisons; moving on steps over the next
//! few keys from `b` (or from the first key after a loop's wrap) without a search, and anything else
//! (a seek, a key of the other type in between) walks the track. The reciprocal of the segment's span is computed
//! once per segment (a table for short spans, one division otherwise), never per frame.

use crate::animbin::{le_u16, KeyType, Track};

/// A key's place in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyPos {
    pub offset: u32,
    pub index: u16,
    pub frame: u16,
}

/// `ceil(2^24 / span)` for the short spans of baked clips.
const RECIP_TABLE_LEN: usize = 33;
static RECIP: [u32; RECIP_TABLE_LEN] = recip_table();

const fn recip_table() -> [u32; RECIP_TABLE_LEN] {
    let mut t = [0u32; RECIP_TABLE_LEN];
    let mut i = 1;
    while i < RECIP_TABLE_LEN {
        t[i] = (1u32 << 24).div_ceil(i as u32);
        i += 1;
    }
    t
}

pub(crate) fn recip(span: u32) -> u32 {
    match RECIP.get(span as usize) {
        Some(&r) => r,
        None => (1u32 << 24).div_ceil(span), // span > 32 here, never 0
    }
}

/// What [`Cursor::seek`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Moved {
    Not,
    Next,
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor {
    ty: u8,
    /// Every key of the track is of this type and key `i` is at frame `i` (a clip baked at one key
    /// per frame): key `i` is found without reading the keys before it.
    dense: bool,
    /// Keys in the track, of every type.
    count: u16,
    /// The track's first key of this cursor's type.
    first: KeyPos,
    pub a: KeyPos,
    pub b: KeyPos,
    /// The segment `[a_frame, b_frame)` in unwrapped frames: before the first key of a looping clip
    /// `a` is the last key at `frame - length`; after the last key `b` is the first at
    /// `frame + length`. Holds use `i32::MIN` / `i32::MAX`.
    a_frame: i32,
    b_frame: i32,
    /// `ceil(2^24 / (b_frame - a_frame))`, 0 while holding one key.
    recip: u32,
}

fn key_type_at(bytes: &[u8], key: usize) -> u8 {
    bytes[key + 2]
}

fn payload_bytes(type_byte: u8) -> usize {
    if type_byte == KeyType::Rotation as u8 {
        KeyType::Rotation.payload_bytes()
    } else {
        KeyType::Translation.payload_bytes()
    }
}

impl Cursor {
    /// A cursor over the keys of type `ty` in `track`, or `None` when the track has none.
    pub fn new(bytes: &[u8], track: &Track<'_>, ty: KeyType) -> Option<Cursor> {
        let count = track.key_count() as u16;
        let at = track.first_key_offset();
        let zero = KeyPos { offset: at as u32, index: 0, frame: le_u16(bytes, at) };
        // The empty segment [0, 0) makes the first seek locate.
        let mut c = Cursor { ty: ty as u8, dense: false, count, first: zero, a: zero, b: zero, a_frame: 0, b_frame: 0, recip: 0 };
        let first = if bytes[at + 2] == c.ty { zero } else { c.next(bytes, zero)? };
        (c.first, c.a, c.b) = (first, first, first);
        c.dense = c.dense_keys(bytes);
        Some(c)
    }

    /// Whether the track's keys are all of this type at frames 0, 1, 2, ... (one header read per
    /// key, once per play).
    fn dense_keys(&self, bytes: &[u8]) -> bool {
        let mut k = self.first;
        if k.index != 0 || k.frame != 0 {
            return false;
        }
        while let Some(n) = self.next(bytes, k) {
            if n.index != k.index + 1 || n.frame != k.frame + 1 {
                return false;
            }
            k = n;
        }
        k.index + 1 == self.count
    }

    /// The next key of this type after `from`, if any.
    fn next(&self, bytes: &[u8], from: KeyPos) -> Option<KeyPos> {
        let mut at = from.offset as usize;
        let mut ty = key_type_at(bytes, at);
        let mut index = from.index;
        loop {
            at += 3 + payload_bytes(ty);
            index += 1;
            if index >= self.count {
                return None;
            }
            // One bounds check per key header.
            let header: [u8; 3] = bytes[at..at + 3].try_into().unwrap_or([0; 3]);
            ty = header[2];
            if ty == self.ty {
                return Some(KeyPos { offset: at as u32, index, frame: u16::from_le_bytes([header[0], header[1]]) });
            }
        }
    }

    fn last(&self, bytes: &[u8]) -> KeyPos {
        let mut k = self.first;
        while let Some(n) = self.next(bytes, k) {
            k = n;
        }
        k
    }

    /// True when `frame` lies in the current segment.
    #[inline(always)]
    pub fn holds(&self, frame: u16) -> bool {
        let f = frame as i32;
        f >= self.a_frame && f < self.b_frame
    }

    /// [`Self::seek`] for a cursor over keys of `SIZE` bytes (header included) and type `TY`, the
    /// same segments: playback's moves (forward from `b`, from the first key after a loop's wrap,
    /// on to the track's end) walk the keys inline, one (unaligned) word per key header; anything
    /// else (a key of the other type on the way, a seek back) takes `locate`.
    #[inline(always)]
    pub fn seek_keys<const SIZE: u32, const TY: u32>(&mut self, bytes: &[u8], frame: u16, length: u16, looping: bool) -> Moved {
        let f = frame as i32;
        let (old_a, b) = (self.a.offset, self.b);
        // Keys at frames 0, 1, 2, ...: the segment from key `frame` to the next, whatever the move
        // (what the walk below or `locate` would find). The track's last key takes the walk.
        if self.dense && (frame as u32 + 1) < self.count as u32 {
            let at = self.first.offset + frame as u32 * SIZE;
            self.a = KeyPos { offset: at, index: frame, frame };
            self.b = KeyPos { offset: at + SIZE, index: frame + 1, frame: frame + 1 };
            self.a_frame = f;
            self.b_frame = f + 1;
            self.recip = recip(1);
            return self.moved(old_a, b.offset);
        }
        // The usual move first, its tests combined into one branch: `frame` lies past `b` (not a
        // wrapped first key), whose next key is of this type. (That header is read before the
        // tests: past the track it is another track's byte or 0, never used.)
        let at = b.offset + SIZE;
        let header = super::words::words2(bytes, at as usize)[0];
        let next = KeyPos { offset: at, index: b.index + 1, frame: header as u16 };
        let from_b = (f >= self.b_frame) & (self.b_frame == b.frame as i32);
        let start = if from_b & (next.index < self.count) & ((header >> 16) & 0xFF == TY) {
            if next.frame as i32 > f {
                self.a = b;
                self.b = next;
                self.a_frame = self.b_frame;
                self.b_frame = next.frame as i32;
                self.recip = recip((next.frame - b.frame) as u32);
                return self.moved(old_a, b.offset);
            }
            // A dropped frame: on from the next key.
            next
        } else if from_b {
            // `b` is the last key, or the next one is of the other type.
            b
        } else if looping && f < self.a_frame && f >= self.first.frame as i32 {
            // After a loop's wrap, from the first key.
            self.first
        } else {
            self.locate(bytes, frame, length, looping);
            return self.moved(old_a, b.offset);
        };
        let mut a = start;
        loop {
            if a.index + 1 >= self.count {
                // The track's last key: `locate` sets the same.
                if looping {
                    let first = self.first;
                    self.set(a, a.frame as i32, first, first.frame as i32 + length as i32);
                } else {
                    self.set(a, a.frame as i32, a, i32::MAX);
                }
                break;
            }
            let at = a.offset + SIZE;
            // Frame, type and the payload's first byte in one word.
            let header = super::words::words2(bytes, at as usize)[0];
            if (header >> 16) & 0xFF != TY {
                self.locate(bytes, frame, length, looping);
                break;
            }
            let next = KeyPos { offset: at, index: a.index + 1, frame: header as u16 };
            if next.frame as i32 > f {
                self.set(a, a.frame as i32, next, next.frame as i32);
                break;
            }
            a = next;
        }
        self.moved(old_a, b.offset)
    }

    /// What a move did, from the old segment's `a` and `b` offsets.
    #[inline(always)]
    fn moved(&self, old_a: u32, old_b: u32) -> Moved {
        // `b` was a decoded key of the old segment (not its only key) and starts the new one.
        if self.a.offset == old_b && old_a != old_b {
            Moved::Next
        } else {
            Moved::Other
        }
    }

    /// Moves to the segment that holds `frame` (in `0..length`): [`Moved::Not`] when it is still
    /// the same, [`Moved::Next`] when the new segment starts at the old one's end (its decoded end
    /// can be reused), [`Moved::Other`] otherwise.
    #[inline(always)]
    pub fn seek(&mut self, bytes: &[u8], frame: u16, length: u16, looping: bool) -> Moved {
        let f = frame as i32;
        if f >= self.a_frame && f < self.b_frame {
            return Moved::Not;
        }
        let (old_a, b) = (self.a.offset, self.b);
        // Forward from `b` (its frame is not wrapped), or after a loop's wrap from the first key.
        let stepped = if f >= self.b_frame && self.b_frame == b.frame as i32 {
            self.step(bytes, f, b)
        } else if looping && f < self.a_frame && f >= self.first.frame as i32 {
            self.step(bytes, f, self.first)
        } else {
            false
        };
        if !stepped {
            self.locate(bytes, frame, length, looping);
        }
        // `b` was a decoded key of the old segment (not its only key) and starts the new one.
        if self.a.offset == b.offset && old_a != b.offset {
            Moved::Next
        } else {
            Moved::Other
        }
    }

    /// The usual moves of playback: `f` lies in one of the few segments after key `start` (at or
    /// before `f`), whose keys follow it in the file. False when anything else holds (a key of the
    /// other type next, the last key, a longer jump): `locate` searches then.
    #[inline(always)]
    fn step(&mut self, bytes: &[u8], f: i32, start: KeyPos) -> bool {
        let mut a = start;
        let size = 3 + payload_bytes(self.ty);
        // A few keys at most (a dropped frame, a fast time scale); longer jumps take `locate`.
        for _ in 0..4 {
            if a.index + 1 >= self.count {
                return false;
            }
            let at = a.offset as usize + size;
            // One bounds check for the next key's header.
            let Some(header) = bytes.get(at..at + 3) else { return false };
            let next = KeyPos { offset: at as u32, index: a.index + 1, frame: u16::from_le_bytes([header[0], header[1]]) };
            if header[2] != self.ty {
                return false;
            }
            if next.frame as i32 > f {
                self.set(a, a.frame as i32, next, next.frame as i32);
                return true;
            }
            a = next;
        }
        false
    }

    #[inline(never)]
    fn locate(&mut self, bytes: &[u8], frame: u16, length: u16, looping: bool) {
        let first = self.first;
        if frame < first.frame {
            if looping {
                let last = self.last(bytes);
                self.set(last, last.frame as i32 - length as i32, first, first.frame as i32);
            } else {
                self.set(first, i32::MIN, first, first.frame as i32);
            }
            return;
        }
        // Walk on from the segment's end (the usual step), else its start, unless time went back
        // (a wrap). `b_frame == b.frame` says `b` is the key after `a`, not the wrapped first key.
        let forward = self.a_frame >= 0;
        let mut a = if forward && self.b_frame == self.b.frame as i32 && self.b.frame <= frame {
            self.b
        } else if forward && self.a.frame <= frame {
            self.a
        } else {
            first
        };
        let mut after = self.next(bytes, a);
        while let Some(n) = after {
            if n.frame > frame {
                break;
            }
            a = n;
            after = self.next(bytes, a);
        }
        match after {
            Some(b) => self.set(a, a.frame as i32, b, b.frame as i32),
            None if looping => self.set(a, a.frame as i32, first, first.frame as i32 + length as i32),
            None => self.set(a, a.frame as i32, a, i32::MAX),
        }
    }

    #[inline(always)]
    fn set(&mut self, a: KeyPos, a_frame: i32, b: KeyPos, b_frame: i32) {
        self.a = a;
        self.b = b;
        self.a_frame = a_frame;
        self.b_frame = b_frame;
        self.recip = if a_frame == i32::MIN || b_frame == i32::MAX { 0 } else { recip((b_frame - a_frame) as u32) };
    }

    /// Position of `ticks` (FP12 frames) between `a` (0) and `b` (4096).
    #[inline]
    pub fn alpha(&self, ticks: u32) -> i32 {
        // Without a branch: a hold's `recip` is 0, and so is the product. Otherwise a_frame >=
        // -65535 and ticks < 2^28, so d is below span * 4096 <= 2^28 and the product below 2^52.
        let d = (ticks as i32).wrapping_sub(self.a_frame.wrapping_shl(12)) as u32;
        let t = ((d as u64 * self.recip as u64) >> 24) as u32;
        t.min(4096) as i32
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::animbin::AnimationManager;
    use std::vec::Vec;

    /// An ANIMBIN file of one clip, one track of joint 0: rotation keys at `frames` (a translation
    /// key after the one at `translation_after`, if any).
    fn file(length: u16, looping: bool, frames: &[u16], translation_after: Option<u16>) -> Vec<u8> {
        let mut b = b"ANIMBIN".to_vec();
        b.extend([1, 1]);
        b.extend([0; 32]);
        b.extend((looping as u32).to_le_bytes());
        b.extend(length.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend(0u16.to_le_bytes());
        let keys = frames.len() + translation_after.is_some() as usize;
        b.extend([0, 0]);
        b.extend((keys as u16).to_le_bytes());
        for &f in frames {
            b.extend(f.to_le_bytes());
            b.push(0);
            for c in [4096i16, f as i16, 0, 0] {
                b.extend(c.to_le_bytes());
            }
            if translation_after == Some(f) {
                b.extend(f.to_le_bytes());
                b.push(1);
                b.extend([0; 12]);
            }
        }
        b
    }

    fn state(c: &Cursor) -> (KeyPos, KeyPos, i32, i32, u32) {
        (c.a, c.b, c.a_frame, c.b_frame, c.recip)
    }

    /// A dense track's direct segments are the walk's and `locate`'s, move for move, over
    /// playback (steps of 1 to 3 frames, wraps) and seeks back and forth.
    #[test]
    fn dense_keys_give_the_segments_of_the_walk() {
        const SIZE: u32 = 3 + KeyType::Rotation.payload_bytes() as u32;
        let frames: Vec<u16> = (0..12).collect();
        let mut sequence: Vec<u16> = Vec::new();
        let mut f = 0u16;
        for step in [1u16, 1, 2, 1, 3, 1, 1, 2, 2, 1, 3, 3, 1] {
            f += step;
            sequence.push(f);
        }
        sequence.extend([5, 0, 11, 3, 3, 4, 10, 1]);
        for (length, looping) in [(12, true), (12, false), (15, true), (15, false)] {
            let bytes = file(length, looping, &frames, None);
            let m = <AnimationManager>::parse(&bytes, 1).unwrap();
            let clip = m.clip(0).unwrap();
            let track = clip.track(0).unwrap();
            let data = clip.bytes();
            let dense = Cursor::new(data, &track, KeyType::Rotation).unwrap();
            assert!(dense.dense);
            let mut walked = dense;
            walked.dense = false;
            let mut general = walked;
            let mut dense = dense;
            for &frame in &sequence {
                let frame = frame % length;
                if dense.holds(frame) {
                    assert!(walked.holds(frame) && general.holds(frame));
                    continue;
                }
                let d = dense.seek_keys::<SIZE, 0>(data, frame, length, looping);
                let w = walked.seek_keys::<SIZE, 0>(data, frame, length, looping);
                let g = general.seek(data, frame, length, looping);
                assert_eq!((d, state(&dense)), (w, state(&walked)), "frame {frame}");
                assert_eq!((d, state(&dense)), (g, state(&general)), "frame {frame}");
            }
        }
    }

    #[test]
    fn only_keys_at_every_frame_of_one_type_are_dense() {
        let dense = |length, frames: &[u16], translation_after| {
            let bytes = file(length, true, frames, translation_after);
            let m = <AnimationManager>::parse(&bytes, 1).unwrap();
            let clip = m.clip(0).unwrap();
            Cursor::new(clip.bytes(), &clip.track(0).unwrap(), KeyType::Rotation).unwrap().dense
        };
        assert!(dense(4, &[0, 1, 2, 3], None));
        assert!(dense(9, &[0, 1, 2, 3], None));
        assert!(!dense(4, &[1, 2, 3], None));
        assert!(!dense(4, &[0, 1, 3], None));
        assert!(!dense(4, &[0, 1, 2, 3], Some(1)));
    }
}
