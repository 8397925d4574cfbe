//! Animator: the per-instance handle of an imported character (`psxanim import` tables): a
//! [`Player`] of clip indices, and how the renderer samples it.
//!
//! The tables are immutable and shared by every instance; an `Animator` is only the player's few
//! words (which clips, their playheads and clocks, the crossfade) and the sampling mode. Time,
//! looping, crossfades and events are the [`Player`]'s, the same code that drives
//! [`super::SkeletonController`]: both advance identically on PAL and NTSC.
//!
//! Semantics (clip of `n` samples at `rate_hz`, shown on a `display_hz` screen):
//! - Step mode (the default): one sample per `display_hz / rate_hz` vsyncs, i.e. a 30 Hz clip shows a
//!   new sample every two 60 Hz ticks, never a blend.
//! - Interpolated mode: [`FrameSample::weight`] blends toward the next sample (the renderer decides
//!   what blending costs).
//! - Looping wraps before the terminal endpoint sample: the last sample repeats the first pose, so the
//!   playhead covers samples `0..n-1` and interpolation of the last interval runs toward sample `n-1`.
//! - Non-looping playback stops on the final sample `n-1` and holds it ([`Animator::finished`]).
//! - `stop` shows the first pose of the selected clip, paused.
//! - [`Animator::crossfade`] blends from the playing clip to another over `N` frames of the new one
//!   ([`PoseSample::fade`]); [`Animator::update_events`] reports the clips' events crossed (the
//!   tables' event section) like ANIMBIN markers.

use super::player::{MarkerEvent, Markers, NoMarkers, Player, Voice};
use super::time::{TimeScale, TICKS_PER_FRAME};
use crate::tables::{TableError, Tables};

/// How the renderer turns the playhead into a pose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// The sample under the playhead, no blending.
    Step,
    /// The sample under the playhead blended toward the next by the time in between.
    Interpolated,
}

/// What to show now: sample `frame`, blended toward `next` by `weight` (FP12, 0 = exactly `frame`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSample {
    pub clip: u16,
    pub frame: u16,
    pub next: u16,
    pub weight: u16,
}

/// A crossfade in progress: the outgoing clip's sample, and the playing clip's share (FP12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fade {
    pub from: FrameSample,
    pub weight: u16,
}

/// Everything a renderer needs to pose one instance: the playing clip's sample, and during a
/// crossfade the outgoing clip's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoseSample {
    pub current: FrameSample,
    pub fade: Option<Fade>,
}

impl From<FrameSample> for PoseSample {
    fn from(current: FrameSample) -> Self {
        PoseSample { current, fade: None }
    }
}

/// One instance's playback state. Nothing is shown until [`Animator::play`] selects a clip.
///
/// A rigid instance's forward decoder state lives beside it in a `render::PoseStream`, one voice per
/// voice of this player (the outgoing clip of a crossfade is decoded too).
#[derive(Clone, Copy, Debug)]
pub struct Animator {
    display_hz: u16,
    sampling: Sampling,
    /// Voices name clips by index in the tables; a voice's playhead spans samples `0..n-1`: the
    /// terminal sample `n-1` is where a pass ends (wrap or hold).
    player: Player<u16>,
}

impl Animator {
    /// An idle animator for a screen refreshing `display_hz` times a second (60 NTSC, 50 PAL).
    pub const fn new(display_hz: u32, sampling: Sampling) -> Self {
        Animator { display_hz: display_hz as u16, sampling, player: Player::new() }
    }

    /// The span and time scale of clip `clip_index`.
    fn timing(&self, tables: &Tables, clip_index: usize) -> Result<(u16, u32, TimeScale), TableError> {
        let clip = tables.clip(clip_index)?;
        if clip_index > u16::MAX as usize {
            return Err(TableError::ClipOutOfRange { clip: clip_index, clips: tables.clip_count() });
        }
        let scale = TimeScale::from_rates(clip.rate_hz as u32, self.display_hz as u32);
        Ok((clip_index as u16, span(clip.frame_count), scale))
    }

    /// Starts clip `clip_index` of `tables` at its first sample, playing (a cut).
    pub fn play(&mut self, tables: &Tables, clip_index: usize, looping: bool) -> Result<(), TableError> {
        let (clip, span, scale) = self.timing(tables, clip_index)?;
        self.player.play(clip, span, looping, scale);
        Ok(())
    }

    /// Starts clip `clip_index` at its first sample and fades to it from the playing clip over
    /// `frames` of its samples (a cut when nothing plays or `frames == 0`).
    pub fn crossfade(&mut self, tables: &Tables, clip_index: usize, looping: bool, frames: u16) -> Result<(), TableError> {
        let (clip, span, scale) = self.timing(tables, clip_index)?;
        self.player.crossfade(clip, span, looping, scale, frames);
        Ok(())
    }

    /// Freezes the playhead (and a crossfade) where it is.
    pub fn pause(&mut self) {
        self.player.pause();
    }

    /// Continues from where `pause` left (no effect without a clip).
    pub fn resume(&mut self) {
        self.player.resume();
    }

    /// Back to the first sample of the selected clip, paused.
    pub fn stop(&mut self) {
        self.player.stop();
    }

    pub fn set_sampling(&mut self, sampling: Sampling) {
        self.sampling = sampling;
    }

    pub fn is_paused(&self) -> bool {
        self.player.is_paused()
    }

    /// True when a non-looping clip has reached its final sample.
    pub fn finished(&self) -> bool {
        self.player.finished()
    }

    /// True while a crossfade blends.
    pub fn fading(&self) -> bool {
        self.player.fading()
    }

    /// The playhead in ticks (4096 per sample).
    pub fn time(&self) -> u32 {
        self.player.time()
    }

    /// Advances by `vsyncs` vertical blanks (nothing while paused or without a clip).
    pub fn update(&mut self, vsyncs: u32) {
        self.player.update(vsyncs, &NoMarkers, &mut |_| {});
    }

    /// [`update`](Self::update), reporting the playing clip's events crossed (from `tables`, the
    /// tables it plays).
    pub fn update_events<'t>(&mut self, vsyncs: u32, tables: &Tables<'t>, on_event: &mut dyn FnMut(MarkerEvent<'t>)) {
        self.player.update(vsyncs, tables, on_event);
    }

    /// The playing clip's sample now, `None` before the first `play`.
    pub fn sample(&self) -> Option<FrameSample> {
        self.player.current().map(|v| self.voice_sample(v))
    }

    /// The pose to show now: the playing clip's sample and, during a crossfade, the outgoing one's.
    pub fn pose(&self) -> Option<PoseSample> {
        let current = self.sample()?;
        let fade = self.player.outgoing().map(|v| Fade { from: self.voice_sample(v), weight: self.player.fade_weight() });
        Some(PoseSample { current, fade })
    }

    fn voice_sample(&self, voice: &Voice<u16>) -> FrameSample {
        let time = voice.playhead.time();
        let frame = (time / TICKS_PER_FRAME) as u16;
        let last = (voice.playhead.span() / TICKS_PER_FRAME) as u16;
        let (next, weight) = match self.sampling {
            Sampling::Step => (frame, 0),
            // The interval after `frame` ends on `frame + 1`, which exists: while looping it is at most
            // the endpoint sample `n-1` (the first pose again); otherwise the playhead stops on `n-1`.
            Sampling::Interpolated if frame < last => (frame + 1, (time % TICKS_PER_FRAME) as u16),
            Sampling::Interpolated => (frame, 0),
        };
        FrameSample { clip: voice.clip, frame: frame.min(last), next, weight }
    }
}

/// Ticks from the first sample to the terminal sample `n-1` of a clip of `samples` samples.
fn span(samples: u16) -> u32 {
    (samples.max(1) as u32 - 1) * TICKS_PER_FRAME
}

/// A character's clips are named by index; their events are the player's markers.
impl<'a> Markers<'a, u16> for Tables<'a> {
    fn marker_count(&self, clip: &u16) -> usize {
        self.event_count(*clip as usize)
    }
    fn marker(&self, clip: &u16, index: usize) -> Option<(&'a [u8], u16)> {
        self.event(*clip as usize, index).map(|(name, frame)| (name.as_bytes(), frame))
    }
}
