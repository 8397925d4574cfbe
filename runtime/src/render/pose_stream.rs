//! The per-instance memory of forward decoding: two voices (the playing clip, and during a crossfade
//! the outgoing one), each standing on a frame of its clip with the state of every animated component
//! ([`crate::tables::stream`]). Rendering an instance through its `PoseStream` advances a voice one
//! frame where a decode from the block start would read up to a block of records. While no crossfade
//! needs it, the second voice prepares the next block boundary on a frame that read no record, so
//! that playback reads at most one record a frame.

use crate::anim::FrameSample;
use crate::gte::PoseQ14;
use crate::tables::stream::{pose_voice_q14, prepare_boundary, sample_voice, target, VoiceState};
use crate::tables::{BoneSample, TableError, Tables};

/// Bones whose poses fit the console's pose stages ([`pose_stage`], [`from_pose_stage`]): 16 bytes
/// each, the crossfade's outgoing poses from the scratchpad's byte 0, the poses composed from byte
/// 512 up to the blend stage's work area (`gte::blend::WORK_AT`).
pub const STAGED_POSES: usize = 28;
const FROM_POSE_STAGE: usize = 0x1F80_0000;
const POSE_STAGE: usize = 0x1F80_0200;
const _: () = assert!(FROM_POSE_STAGE + STAGED_POSES * core::mem::size_of::<PoseQ14>() <= POSE_STAGE);
const _: () = assert!(POSE_STAGE + STAGED_POSES * core::mem::size_of::<PoseQ14>() <= crate::gte::blend::WORK_AT);

/// Where a frame's poses in the GTE's form wait between the decode that writes them and the compose
/// that reads them (`bones::bone_matrices_q14`): on the console, for up to [`STAGED_POSES`] bones,
/// as many poses as `poses` holds in the scratchpad from byte 512 on (below it the compose keeps its
/// parents' copies), where the compose's four loads a bone take a cycle each instead of about six;
/// else (and on the host) `poses` itself. `render_streamed` poses through it.
///
/// # Safety
/// No other reference to the scratchpad's bytes 512..512 + 16 * `poses.len()` may be used while the
/// returned one lives (the renderer takes it only between its decode and its compose; its later
/// stages rewrite the scratchpad).
pub unsafe fn pose_stage(poses: &mut [PoseQ14]) -> &mut [PoseQ14] {
    // SAFETY: the caller's contract.
    unsafe { staged(POSE_STAGE, poses) }
}

/// [`pose_stage`] for a crossfade's outgoing poses, from the scratchpad's byte 0 (where the compose,
/// which runs after their blend, keeps its parents' copies), so that the blend
/// (`bones::crossfade_q14`) loads both poses from the scratchpad.
///
/// # Safety
/// As [`pose_stage`], for the scratchpad's bytes 0..16 * `poses.len()`.
pub unsafe fn from_pose_stage(poses: &mut [PoseQ14]) -> &mut [PoseQ14] {
    // SAFETY: the caller's contract.
    unsafe { staged(FROM_POSE_STAGE, poses) }
}

/// The stage at `at` for as many poses as `poses` holds, or `poses` (see [`pose_stage`]).
unsafe fn staged(at: usize, poses: &mut [PoseQ14]) -> &mut [PoseQ14] {
    #[cfg(target_arch = "mips")]
    if poses.len() <= STAGED_POSES {
        // SAFETY: the scratchpad is 1 KiB of always-mapped RAM at 0x1F800000; both stages are
        // 4-aligned and hold `STAGED_POSES` poses; every bit pattern is a `PoseQ14`; the caller's
        // contract rules out other references.
        return unsafe { core::slice::from_raw_parts_mut(at as *mut PoseQ14, poses.len()) };
    }
    let _ = at;
    poses
}

/// Two voices' decoder states, `WORDS` words each ([`crate::tables::stream::max_words_needed`] of the
/// tables it plays: 3 per animated rotation, 6 per animated translation or scale).
#[derive(Clone, Debug)]
pub struct PoseStream<const WORDS: usize> {
    voices: [VoiceState; 2],
    words: [[u32; WORDS]; 2],
}

impl<const WORDS: usize> Default for PoseStream<WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

/// What the renderer asks of a [`PoseStream`] (any `WORDS`).
pub trait PoseVoices {
    /// The samples of `current` into `out`, and those of `from` (a crossfade's outgoing clip) into
    /// `from_out`, each from the voice already in its clip when there is one.
    fn sample_pair(
        &mut self,
        tables: &Tables,
        current: &FrameSample,
        out: &mut [BoneSample],
        from: Option<(&FrameSample, &mut [BoneSample])>,
    ) -> Result<(), TableError>;

    /// The poses of `current` in the GTE's form (no crossfade), from the voice already in its clip
    /// when there is one: `Ok(false)` when a bone has no such form (see
    /// [`crate::tables::stream::pose_voice_q14`]); then [`PoseVoices::sample_pair`] gives its samples.
    fn pose_q14(&mut self, tables: &Tables, current: &FrameSample, out: &mut [PoseQ14]) -> Result<bool, TableError>;

    /// A crossfade's two poses in the GTE's form: `current` into `out`, `from` (the outgoing clip)
    /// into `from_out`, each from the voice already in its clip when there is one (as
    /// [`PoseVoices::sample_pair`]): `Ok(false)` when a bone of either has no such form.
    fn pose_q14_pair(
        &mut self,
        tables: &Tables,
        current: &FrameSample,
        out: &mut [PoseQ14],
        from: &FrameSample,
        from_out: &mut [PoseQ14],
    ) -> Result<bool, TableError>;
}

impl<const WORDS: usize> PoseStream<WORDS> {
    pub const fn new() -> Self {
        PoseStream { voices: [VoiceState::IDLE; 2], words: [[0; WORDS]; 2] }
    }

    /// Bytes of state one voice keeps per bone of a `bones`-bone character (its words and position).
    pub const fn voice_bytes() -> usize {
        core::mem::size_of::<Self>() / 2
    }

    /// Forgets both voices (the next sample restarts at a block).
    pub fn reset(&mut self) {
        self.voices = [VoiceState::IDLE; 2];
    }

    /// [`PoseVoices::sample_pair`] without a crossfade.
    pub fn sample(&mut self, tables: &Tables, s: &FrameSample, out: &mut [BoneSample]) -> Result<(), TableError> {
        self.sample_pair(tables, s, out, None)
    }
}

impl<const WORDS: usize> PoseStream<WORDS> {
    /// Of the voices standing in `clip`, the one that reaches frame `g` with the fewest records: the
    /// nearest at or before it (a prepared voice only to move on, and first among equals), if any.
    fn nearest(&self, clip: usize, g: usize) -> Option<usize> {
        (0..2).filter(|&i| self.reach(i, clip, g).is_some()).max_by_key(|&i| (self.voices[i].frame(), self.voices[i].prepared()))
    }

    /// Frames voice `i` moves forward to stand on frame `g` of `clip`, or `None` when it cannot (not
    /// in that clip, past `g`, or prepared on `g`, which it cannot show): it would restart.
    fn reach(&self, i: usize, clip: usize, g: usize) -> Option<usize> {
        let v = &self.voices[i];
        (v.clip() == Some(clip) && (v.frame() < g || (v.frame() == g && !v.prepared()))).then(|| g - v.frame())
    }

    /// Voice `mine` and the other one, each with its words.
    #[allow(clippy::type_complexity)]
    fn split(&mut self, mine: usize) -> ((&mut VoiceState, &mut [u32]), (&mut VoiceState, &mut [u32])) {
        let ([a, b], [va, vb]) = (&mut self.words, &mut self.voices);
        if mine == 0 {
            ((va, a), (vb, b))
        } else {
            ((vb, b), (va, a))
        }
    }

    /// Serves `current` alone (no crossfade) with `serve` on the nearest voice; when that read no
    /// record, the other voice, free, prepares the coming block boundary ([`prepare_boundary`]).
    fn solo<T>(
        &mut self,
        tables: &Tables,
        current: &FrameSample,
        serve: impl FnOnce(&mut VoiceState, &mut [u32], usize, u32) -> Result<T, TableError>,
    ) -> Result<T, TableError> {
        let clip = current.clip as usize;
        let (g, w) = target(current.frame, current.next, current.weight);
        let mine = self.nearest(clip, g).or_else(|| self.voices.iter().position(|v| v.clip() == Some(clip))).unwrap_or(0);
        let before = self.voices[mine].position();
        let ((voice, mine_words), (other, other_words)) = self.split(mine);
        let served = serve(voice, mine_words, g, w)?;
        if voice.position() == before {
            prepare_boundary(tables, voice, other, other_words);
        }
        Ok(served)
    }

    /// Serves a crossfade: `serve` for `current` and `serve_from` for `from`, on the voices that reach
    /// them forward with the fewest frames (a clip crossfading into itself keeps both voices moving
    /// forward), else on the voice already in `current`'s clip (or one not in `from`'s).
    fn pair<T, U>(
        &mut self,
        current: &FrameSample,
        from: &FrameSample,
        serve: impl FnOnce(&mut VoiceState, &mut [u32], usize, u32) -> Result<T, TableError>,
        serve_from: impl FnOnce(&mut VoiceState, &mut [u32], usize, u32) -> Result<U, TableError>,
    ) -> Result<(T, U), TableError> {
        let (g, w) = target(current.frame, current.next, current.weight);
        let (from_g, from_w) = target(from.frame, from.next, from.weight);
        let restart = usize::MAX / 4;
        let cost = |mine: usize| {
            self.reach(mine, current.clip as usize, g).unwrap_or(restart) + self.reach(1 - mine, from.clip as usize, from_g).unwrap_or(restart)
        };
        let on = |v: &VoiceState, s: &FrameSample| v.clip() == Some(s.clip as usize);
        let mine = match cost(0).cmp(&cost(1)) {
            core::cmp::Ordering::Less => 0,
            core::cmp::Ordering::Greater => 1,
            core::cmp::Ordering::Equal => match self.voices.iter().position(|v| on(v, current)) {
                Some(c) => c,
                None => usize::from(on(&self.voices[0], from)),
            },
        };
        let ((voice, mine_words), (other, other_words)) = self.split(mine);
        let served = serve(voice, mine_words, g, w)?;
        Ok((served, serve_from(other, other_words, from_g, from_w)?))
    }
}

impl<const WORDS: usize> PoseVoices for PoseStream<WORDS> {
    fn sample_pair(
        &mut self,
        tables: &Tables,
        current: &FrameSample,
        out: &mut [BoneSample],
        from: Option<(&FrameSample, &mut [BoneSample])>,
    ) -> Result<(), TableError> {
        let Some((f, from_out)) = from else {
            return self.solo(tables, current, |voice, words, g, w| sample_voice(tables, voice, words, current.clip as usize, g, w, out));
        };
        self.pair(
            current,
            f,
            |voice, words, g, w| sample_voice(tables, voice, words, current.clip as usize, g, w, out),
            |voice, words, g, w| sample_voice(tables, voice, words, f.clip as usize, g, w, from_out),
        )
        .map(|_| ())
    }

    fn pose_q14_pair(
        &mut self,
        tables: &Tables,
        current: &FrameSample,
        out: &mut [PoseQ14],
        from: &FrameSample,
        from_out: &mut [PoseQ14],
    ) -> Result<bool, TableError> {
        let (a, b) = self.pair(
            current,
            from,
            |voice, words, g, w| pose_voice_q14(tables, voice, words, current.clip as usize, g, w, out),
            |voice, words, g, w| pose_voice_q14(tables, voice, words, from.clip as usize, g, w, from_out),
        )?;
        Ok(a && b)
    }

    fn pose_q14(&mut self, tables: &Tables, current: &FrameSample, out: &mut [PoseQ14]) -> Result<bool, TableError> {
        self.solo(tables, current, |voice, words, g, w| pose_voice_q14(tables, voice, words, current.clip as usize, g, w, out))
    }
}
