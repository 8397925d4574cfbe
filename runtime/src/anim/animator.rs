//! Animator: the per-instance playback state of an imported character (`psxanim import` tables).
//!
//! The tables are immutable and shared by every instance; an `Animator` is only a playhead (a few
//! words): which clip, looping or not, paused or not, and the clip time. Time comes from vsync deltas
//! through the same [`Clock`] / [`TimeScale`] as [`super::SkeletonController`], in the same unit
//! (ticks, 4096 per clip sample), so both players advance identically on PAL and NTSC.
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

use super::playhead::Playhead;
use super::time::{Clock, TimeScale, TICKS_PER_FRAME};
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

/// One instance's playback state. Nothing is shown until [`Animator::play`] selects a clip.
#[derive(Clone, Copy, Debug)]
pub struct Animator {
    display_hz: u32,
    sampling: Sampling,
    clip: Option<u16>,
    samples: u16,
    clock: Clock,
    /// Spans samples `0..n-1`: the terminal sample `n-1` is where a pass ends (wrap or hold).
    playhead: Playhead,
}

impl Animator {
    /// An idle animator for a screen refreshing `display_hz` times a second (60 NTSC, 50 PAL).
    pub const fn new(display_hz: u32, sampling: Sampling) -> Self {
        Animator {
            display_hz,
            sampling,
            clip: None,
            samples: 0,
            clock: Clock::new(TimeScale::NATIVE),
            playhead: Playhead::IDLE,
        }
    }

    /// Starts clip `clip_index` of `tables` at its first sample, playing.
    pub fn play(&mut self, tables: &Tables, clip_index: usize, looping: bool) -> Result<(), TableError> {
        let clip = tables.clip(clip_index)?;
        self.clip = Some(clip_index as u16);
        self.samples = clip.frame_count;
        self.clock = Clock::new(TimeScale::from_rates(clip.rate_hz as u32, self.display_hz));
        self.playhead = Playhead::new(span(clip.frame_count), looping);
        Ok(())
    }

    /// Freezes the playhead where it is.
    pub fn pause(&mut self) {
        self.playhead.pause();
    }

    /// Continues from where `pause` left (no effect without a clip).
    pub fn resume(&mut self) {
        if self.clip.is_some() {
            self.playhead.resume();
        }
    }

    /// Back to the first sample of the selected clip, paused.
    pub fn stop(&mut self) {
        self.playhead.stop();
        self.clock = Clock::new(self.clock.scale());
    }

    pub fn set_sampling(&mut self, sampling: Sampling) {
        self.sampling = sampling;
    }

    pub fn is_paused(&self) -> bool {
        self.playhead.is_paused()
    }

    /// True when a non-looping clip has reached its final sample.
    pub fn finished(&self) -> bool {
        self.clip.is_some() && self.playhead.finished()
    }

    /// The playhead in ticks (4096 per sample).
    pub fn time(&self) -> u32 {
        self.playhead.time()
    }

    /// Advances by `vsyncs` vertical blanks (nothing while paused or without a clip).
    pub fn update(&mut self, vsyncs: u32) {
        if self.playhead.is_paused() || self.clip.is_none() {
            return;
        }
        let ticks = self.clock.advance(vsyncs);
        self.playhead.advance(ticks, |_, _| {});
    }

    /// The sample to show now, `None` before the first `play`.
    pub fn sample(&self) -> Option<FrameSample> {
        let clip = self.clip?;
        let time = self.playhead.time();
        let frame = (time / TICKS_PER_FRAME) as u16;
        let last = self.samples.saturating_sub(1);
        let (next, weight) = match self.sampling {
            Sampling::Step => (frame, 0),
            // The interval after `frame` ends on `frame + 1`, which exists: while looping it is at most
            // the endpoint sample `n-1` (the first pose again); otherwise the playhead stops on `n-1`.
            Sampling::Interpolated if frame < last => (frame + 1, (time % TICKS_PER_FRAME) as u16),
            Sampling::Interpolated => (frame, 0),
        };
        Some(FrameSample { clip, frame: frame.min(last), next, weight })
    }
}

/// Ticks from the first sample to the terminal sample `n-1` of a clip of `samples` samples.
fn span(samples: u16) -> u32 {
    (samples.max(1) as u32 - 1) * TICKS_PER_FRAME
}
