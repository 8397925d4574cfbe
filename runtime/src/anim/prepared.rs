//! ANIMBIN rotation keys converted once, at load, into words the game provides
//! ([`PreparedClip`]): a frame then costs a segment index, the nlerp (straight to Q14,
//! [`PreparedClip::rotations_q14`]) and the compose of the poses, not a walk over the file's
//! unaligned 11-byte keys.
//!
//! Each key becomes three aligned words: the quaternion as `w | x << 16` and `y | z << 16` (as the
//! file path reads it: components within +/-2^13, else scaled to unit length) put in the previous
//! key's hemisphere, then `frame | flags << 16`. So every segment's two keys are already in one hemisphere, whatever
//! way playback reached it; only the loop's wrap segment (last key to first) may need the first key
//! negated, a flag of the channel. The pose is the file path's with that one difference: the file
//! path puts a segment's end in its start's hemisphere as the start was last decoded (its sign
//! depends on how playback got there), here the signs are fixed at load. nlerp's floors are not
//! symmetric under negation, so the two can differ by a few FP12 steps; and the controller composes
//! the prepared rotations in Q14 (`gte::PoseQ14`), the file path's rounded to FP12
//! (`runtime/tests/anim_prepared.rs` and `anim_props.rs` bound both).
//!
//! Layout of the words: two per joint of the clip (`0..joint_count`), the index of the joint's
//! first key word (0: no rotation keys) and `count | flags << 16`; then the keys.

use super::channel::{hemisphere, read_rotation, segment_q14};
use super::cursor::recip;
use super::time::TICKS_PER_FRAME;
use super::words::{components, words_of, QuatWords};
use crate::animbin::{key_at, Clip, KeyType};
use crate::gte::{Cop2, Gte, PoseQ14};

const JOINT_WORDS: usize = 2;
const KEY_WORDS: usize = 3;
/// Key word 2: the segment from this key to the next (the last key: to the first, across the wrap)
/// spans more than 30 degrees.
const KEY_WIDE: u32 = crate::gte::WIDE_KEY;
/// Joint word 1: key `i` lies at frame `i`, for every key.
const DENSE: u32 = crate::gte::DENSE_JOINT;
/// Joint word 1: the first key, as the wrap segment's end, is negated (the loop's keys change
/// hemisphere an odd number of times).
const WRAP_NEGATE: u32 = 1 << 17;

/// The buffer given to [`PreparedClip::new`] is too small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareError {
    /// Words the clip's rotation keys need ([`PreparedClip::words_needed`]).
    pub needed: usize,
    pub available: usize,
}

impl core::fmt::Display for PrepareError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "prepared ANIMBIN keys need {} words, the buffer holds {}", self.needed, self.available)
    }
}

/// An ANIMBIN clip with its rotation keys converted into the game's words; translations and
/// markers are read from the file as before. Played like any clip ([`super::ClipSource`]).
#[derive(Clone, Copy)]
pub struct PreparedClip<'m> {
    pub(crate) clip: Clip<'m>,
    words: &'m [u32],
}

/// A shown time (ticks, below `length` frames) and how its clip wraps.
#[derive(Clone, Copy)]
pub(crate) struct Time {
    pub ticks: u32,
    pub length: u16,
    pub looping: bool,
}

/// One rotation segment at a time: its keys' words (the second in the first's hemisphere), the
/// weight (FP12) and whether it spans more than 30 degrees.
#[derive(Clone, Copy)]
pub(crate) struct Segment {
    pub q0: QuatWords,
    pub q1: QuatWords,
    pub t: i32,
    pub wide: bool,
}

impl<'m> PreparedClip<'m> {
    /// Words [`PreparedClip::new`] needs for `clip`: two per joint, three per rotation key.
    pub fn words_needed(clip: &Clip<'_>) -> usize {
        let keys: usize =
            clip.tracks().map(|t| t.keys().filter(|k| k.value.key_type() == KeyType::Rotation).count()).sum();
        JOINT_WORDS * clip.joint_count() + KEY_WORDS * keys
    }

    /// Converts `clip`'s rotation keys into `buffer` (at least [`Self::words_needed`] words).
    pub fn new(clip: Clip<'m>, buffer: &'m mut [u32]) -> Result<Self, PrepareError> {
        let needed = Self::words_needed(&clip);
        if buffer.len() < needed {
            return Err(PrepareError { needed, available: buffer.len() });
        }
        let words = &mut buffer[..needed];
        words.fill(0);
        let bytes = clip.bytes();
        let mut at = JOINT_WORDS * clip.joint_count();
        for track in clip.tracks() {
            let first = at;
            let (mut offset, mut dense, mut previous) = (track.first_key_offset(), true, None);
            for _ in 0..track.key_count() {
                let (key, next) = key_at(bytes, offset);
                if key.value.key_type() == KeyType::Rotation {
                    let mut q = read_rotation(bytes, offset as u32);
                    if let Some(p) = previous {
                        q = hemisphere(p, q).0;
                    }
                    dense &= key.frame as usize == (at - first) / KEY_WORDS;
                    words[at..at + 2].copy_from_slice(&q);
                    words[at + 2] = key.frame as u32;
                    previous = Some(q);
                    at += KEY_WORDS;
                }
                offset = next;
            }
            let count = (at - first) / KEY_WORDS;
            if count == 0 {
                continue;
            }
            // Each segment's arc, the last key's across the wrap (to the first key, negated if
            // need be); a clip played without looping never reads that one.
            for k in 0..count {
                let (a, b) = (first + k * KEY_WORDS, first + (k + 1) % count * KEY_WORDS);
                let (q0, q1) = ([words[a], words[a + 1]], [words[b], words[b + 1]]);
                let (q1_here, wide) = hemisphere(q0, q1);
                words[a + 2] |= if wide { KEY_WIDE } else { 0 };
                if k + 1 == count && q1_here != q1 {
                    words[JOINT_WORDS * track.joint() as usize + 1] |= WRAP_NEGATE;
                }
            }
            let joint = JOINT_WORDS * track.joint() as usize;
            words[joint] = first as u32;
            words[joint + 1] |= count as u32 | if dense { DENSE } else { 0 };
        }
        Ok(PreparedClip { clip, words })
    }

    /// The clip the keys came from (length, markers, translations).
    pub fn clip(&self) -> Clip<'m> {
        self.clip
    }

    /// Joint `joint`'s rotation segment at `ticks` (a shown time: below `length` frames), `None`
    /// when the clip does not rotate it. `cached` is the channel's last segment start (any value is
    /// safe: it only shortens the search). A dense channel (a key at every frame) inside its keys
    /// reads its two keys directly; anything else takes [`Self::search`].
    #[inline(always)]
    pub(crate) fn segment(&self, joint: usize, cached: &mut u16, ticks: u32, length: u16, looping: bool) -> Option<Segment> {
        // Only the clip's joints have their two words (the keys follow).
        if joint >= self.clip.joint_count() {
            return None;
        }
        let joint = self.words.get(JOINT_WORDS * joint..JOINT_WORDS * joint + 2)?;
        let (first, info) = (joint[0] as usize, joint[1]);
        if first == 0 {
            return None;
        }
        let frame = (ticks / TICKS_PER_FRAME) as usize;
        if info & DENSE != 0 && frame + 1 < (info & 0xFFFF) as usize {
            // Segment `frame` of span 1: the weight is the tick within the frame (`recip(1)` is 2^24).
            let k = self.words.get(first + KEY_WORDS * frame..first + KEY_WORDS * frame + 5)?;
            let t = (ticks % TICKS_PER_FRAME) as i32;
            return Some(Segment { q0: [k[0], k[1]], q1: [k[3], k[4]], t, wide: k[2] & KEY_WIDE != 0 });
        }
        self.search(first, info, cached, ticks, length, looping)
    }

    /// Every joint's rotation at `at` into `poses` (Q14, [`segment_q14`]), the joints the clip does
    /// not rotate left as they are; `segments` are the channels' last segment starts (as in
    /// [`Self::segment`]). A dense channel inside its keys reads its two keys at `3 * frame` words
    /// here, in the loop; anything else takes [`Self::search_q14`].
    #[inline(always)]
    pub(crate) fn rotations_q14<B: Cop2>(&self, gte: &mut Gte<B>, at: Time, segments: &mut [u16], poses: &mut [PoseQ14]) {
        let joints = self.clip.joint_count();
        let frame = (at.ticks / TICKS_PER_FRAME) as usize;
        // The weight of segment `frame` of span 1: the tick within the frame (`recip(1)` is 2^24).
        let t = (at.ticks % TICKS_PER_FRAME) as i32;
        let keys_at = KEY_WORDS * frame;
        let n = joints.min(segments.len()).min(poses.len()).min(self.words.len() / JOINT_WORDS);
        let words = self.words;
        // The common joints in one backend step (one asm loop on the console), each other one here.
        let mut j = 0;
        while j < n {
            j = gte.backend_mut().nlerp_q14_dense(words, j, n, keys_at, frame, t, poses);
            if j >= n {
                break;
            }
            let (first, info) = (words[JOINT_WORDS * j] as usize, words[JOINT_WORDS * j + 1]);
            if info & DENSE != 0 && frame + 1 < (info & 0xFFFF) as usize {
                if let Some(k) = words.get(first + keys_at..first + keys_at + 5) {
                    poses[j].set_rotation_words(segment_q14(gte, [k[0], k[1]], [k[3], k[4]], k[2] & KEY_WIDE != 0, t));
                }
            } else {
                self.search_q14(gte, first, info, &mut segments[j], at, &mut poses[j]);
            }
            j += 1;
        }
    }

    /// [`Self::rotations_q14`] of one channel that is not dense at this frame (out of line: the
    /// loop stays small).
    #[inline(never)]
    fn search_q14<B: Cop2>(&self, gte: &mut Gte<B>, first: usize, info: u32, cached: &mut u16, at: Time, pose: &mut PoseQ14) {
        if let Some(s) = self.search(first, info, cached, at.ticks, at.length, at.looping) {
            pose.set_rotation_words(segment_q14(gte, s.q0, s.q1, s.wide, s.t));
        }
    }

    /// [`Self::segment`] of any channel: from the cached segment on (a few keys at most during
    /// playback), from the first key when time went back.
    #[inline(never)]
    fn search(&self, first: usize, info: u32, cached: &mut u16, ticks: u32, length: u16, looping: bool) -> Option<Segment> {
        let count = (info & 0xFFFF) as usize;
        let keys = self.words.get(first..first + KEY_WORDS * count)?;
        let frame = (ticks / TICKS_PER_FRAME) as usize;
        let key = |i: usize| -> [u32; 3] { keys.get(KEY_WORDS * i..KEY_WORDS * i + 3).and_then(|k| k.try_into().ok()).unwrap_or([0; 3]) };
        // Key `a` at or before the frame (the last key before the first one's frame: the wrap
        // segment, or a hold), `b` after it; `span` 0 holds `a`.
        let frame_of = |k: [u32; 3]| (k[2] & 0xFFFF) as usize;
        let mut a = *cached as usize;
        if a >= count || frame_of(key(a)) > frame {
            a = 0;
        }
        while a + 1 < count && frame_of(key(a + 1)) <= frame {
            a += 1;
        }
        *cached = a as u16;
        let ka = key(a);
        let (a, ka, b, a_frame, span) = if frame < frame_of(ka) {
            // Before the first key.
            let last = key(count - 1);
            match looping {
                true => (count - 1, last, 0, frame_of(last) as i32 - length as i32, frame_of(ka) + length as usize - frame_of(last)),
                false => (0, ka, 0, 0, 0),
            }
        } else if a + 1 < count {
            (a, ka, a + 1, frame_of(ka) as i32, frame_of(key(a + 1)) - frame_of(ka))
        } else if looping {
            (a, ka, 0, frame_of(ka) as i32, frame_of(key(0)) + length as usize - frame_of(ka))
        } else {
            (a, ka, a, frame_of(ka) as i32, 0)
        };
        let kb = key(b);
        let mut q1 = [kb[0], kb[1]];
        if b == 0 && a + 1 == count && span != 0 && info & WRAP_NEGATE != 0 {
            q1 = words_of(components(q1).map(|v| -v));
        }
        // The file path's weight (`Cursor::alpha`): 0 on a hold.
        let t = if span == 0 {
            0
        } else {
            let d = (ticks as i32).wrapping_sub(a_frame.wrapping_shl(12)) as u32;
            (((d as u64 * recip(span as u32) as u64) >> 24) as u32).min(4096) as i32
        };
        Some(Segment { q0: [ka[0], ka[1]], q1, t, wide: span != 0 && ka[2] & KEY_WIDE != 0 })
    }
}
