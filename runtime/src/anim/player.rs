//! Player: the one implementation of clip time. Every clip source the runtime plays (ANIMBIN keys,
//! compiled clips, an imported character's compact pose stream, its pose cache, its baked frames)
//! goes through it: vsync deltas to ticks ([`Clock`]), loop wrap and one-shot hold ([`Playhead`]),
//! the crossfade's weight, and the markers crossed. [`super::SkeletonController`] owns one for
//! ANIMBIN and compiled clips on a skeleton; [`super::Animator`] is one for an imported character's
//! clips, read by the renderers.
//!
//! A player holds at most two voices: the playing clip and, during a crossfade, the outgoing one,
//! which keeps playing under it. Each voice is generic over how its owner names a clip (`C`): a
//! [`super::ClipSource`] for the controller, a clip index for an imported character. A voice is where
//! per-clip decoder state belongs (one per voice: a crossfade decodes two clips at once).
//!
//! Semantics (all in ticks, 4096 per clip frame, see [`Playhead`] for wrap and hold):
//! - Each voice has its own [`Clock`], so two clips of different sample rates advance each at its
//!   own speed; a new voice inherits the fractional remainder of the voice it replaces when their
//!   time scales are equal, so a cut or crossfade keeps the time base continuous (PAL included).
//! - A crossfade over `N` frames measures `N` frames of the incoming clip; its weight (FP12, the
//!   incoming clip's share) is `elapsed ticks / N`, reaching 4096 (and dropping the outgoing voice)
//!   after `N` frames. A crossfade started during another fades out from the newer clip only.
//! - A marker at frame `m` is reported by the update whose interval `[before, after)` of clip time
//!   contains `m * 4096`: at most once per pass, in time order (ties in table order), across a wrap
//!   too; when one update spans whole loops beyond the current pass, each marker is reported once
//!   for all of them. The first update after `play` reports markers at frame 0. A pass's end is
//!   part of it: a marker at the span (an imported clip's last sample) is reported at the wrap, before
//!   the next pass's frame 0, and by the update that brings a one-shot to its end. Only the incoming
//!   clip reports markers during a crossfade.
//! - Pausing freezes both voices and the crossfade.

use super::playhead::Playhead;
use super::time::{Clock, TimeScale, TICKS_PER_FRAME};

/// A marker crossed during an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerEvent<'m> {
    /// The marker's number in its clip (table or file order).
    pub index: usize,
    pub name: &'m [u8],
    pub frame: u16,
}

/// Where a player finds the markers of the clips it plays (`C` names a clip).
pub trait Markers<'m, C> {
    fn marker_count(&self, clip: &C) -> usize;
    /// Marker `index` of `clip`: name and frame.
    fn marker(&self, clip: &C, index: usize) -> Option<(&'m [u8], u16)>;
}

/// No markers at all (an update that reports nothing).
pub struct NoMarkers;

impl<'m, C> Markers<'m, C> for NoMarkers {
    fn marker_count(&self, _: &C) -> usize {
        0
    }
    fn marker(&self, _: &C, _: usize) -> Option<(&'m [u8], u16)> {
        None
    }
}

/// One playing clip: which, where, and its own time base.
#[derive(Clone, Copy, Debug)]
pub struct Voice<C> {
    pub clip: C,
    pub playhead: Playhead,
    clock: Clock,
}

/// Two voices and the crossfade between them. `Copy`, no heap: a few words plus two `C`.
#[derive(Clone, Copy, Debug)]
pub struct Player<C> {
    current: Option<Voice<C>>,
    outgoing: Option<Voice<C>>,
    fade_frames: u16,
    /// The incoming clip's share, FP12 (4096 when not fading).
    fade_weight: u16,
    fade_elapsed: u32,
}

impl<C: Copy> Default for Player<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Copy> Player<C> {
    /// Nothing playing.
    pub const fn new() -> Self {
        Player { current: None, outgoing: None, fade_frames: 0, fade_weight: TICKS_PER_FRAME as u16, fade_elapsed: 0 }
    }

    /// A voice for `clip`, whose pass lasts `span` ticks, advancing by `scale`.
    fn voice(&self, clip: C, span: u32, looping: bool, scale: TimeScale) -> Voice<C> {
        let clock = match self.current {
            Some(v) => v.clock.rescaled(scale),
            None => Clock::new(scale),
        };
        Voice { clip, playhead: Playhead::new(span, looping), clock }
    }

    /// Cuts to `clip` at time 0 (any crossfade in progress ends). `span`: ticks from time 0 to the
    /// wrap (looping) or hold point.
    pub fn play(&mut self, clip: C, span: u32, looping: bool, scale: TimeScale) {
        self.current = Some(self.voice(clip, span, looping, scale));
        self.outgoing = None;
        self.fade_weight = TICKS_PER_FRAME as u16;
    }

    /// Starts `clip` at time 0 and fades to it from the playing clip over `frames` of its frames;
    /// a cut when nothing plays or `frames == 0`.
    pub fn crossfade(&mut self, clip: C, span: u32, looping: bool, scale: TimeScale, frames: u16) {
        if frames == 0 || self.current.is_none() {
            return self.play(clip, span, looping, scale);
        }
        let incoming = self.voice(clip, span, looping, scale);
        self.outgoing = self.current.replace(incoming);
        self.fade_frames = frames;
        self.fade_elapsed = 0;
        self.fade_weight = 0;
    }

    /// Every voice advances by `scale` from now on (the fractional remainder is kept).
    pub fn set_time_scale(&mut self, scale: TimeScale) {
        for v in self.current.iter_mut().chain(self.outgoing.iter_mut()) {
            v.clock = Clock::new(scale);
        }
    }

    /// Advances by `vsyncs` vertical blanks and reports the playing clip's markers crossed on the way
    /// (found through `markers`). The one place clip time moves.
    pub fn update<'m, M: Markers<'m, C> + ?Sized>(&mut self, vsyncs: u32, markers: &M, on_marker: &mut dyn FnMut(MarkerEvent<'m>)) {
        let Some(current) = self.current.as_mut() else { return };
        if current.playhead.is_paused() {
            return;
        }
        let ticks = current.clock.advance(vsyncs);
        let clip = current.clip;
        current.playhead.advance(ticks, |lo, hi| report_markers(markers, &clip, lo, hi, on_marker));
        if let Some(out) = self.outgoing.as_mut() {
            let own = out.clock.advance(vsyncs);
            out.playhead.advance(own, |_, _| {});
            let fade_ticks = self.fade_frames as u32 * TICKS_PER_FRAME;
            let elapsed = (self.fade_elapsed as u64 + ticks).min(fade_ticks as u64) as u32;
            self.fade_elapsed = elapsed;
            if elapsed >= fade_ticks {
                self.outgoing = None;
                self.fade_weight = TICKS_PER_FRAME as u16;
            } else {
                // Ticks are FP12 frames, so ticks / frames is the FP12 fraction.
                self.fade_weight = (elapsed / self.fade_frames as u32) as u16;
            }
        }
    }

    /// The playing voice, `None` before the first `play`.
    pub fn current(&self) -> Option<&Voice<C>> {
        self.current.as_ref()
    }

    /// The outgoing voice while a crossfade blends.
    pub fn outgoing(&self) -> Option<&Voice<C>> {
        self.outgoing.as_ref()
    }

    /// The playing clip's share of the pose, FP12 (4096 when not fading).
    pub fn fade_weight(&self) -> u16 {
        self.fade_weight
    }

    pub fn fading(&self) -> bool {
        self.outgoing.is_some()
    }

    /// Freezes both voices and the crossfade.
    pub fn pause(&mut self) {
        for v in self.current.iter_mut().chain(self.outgoing.iter_mut()) {
            v.playhead.pause();
        }
    }

    pub fn resume(&mut self) {
        for v in self.current.iter_mut().chain(self.outgoing.iter_mut()) {
            v.playhead.resume();
        }
    }

    pub fn is_paused(&self) -> bool {
        self.current.as_ref().is_none_or(|v| v.playhead.is_paused())
    }

    /// Back to time 0 of the playing clip, paused; a crossfade ends; the clock restarts.
    pub fn stop(&mut self) {
        self.outgoing = None;
        self.fade_weight = TICKS_PER_FRAME as u16;
        if let Some(v) = self.current.as_mut() {
            v.playhead.stop();
            v.clock = Clock::new(v.clock.scale());
        }
    }

    /// The playing clip's time in ticks (0 with no clip).
    pub fn time(&self) -> u32 {
        self.current.as_ref().map_or(0, |v| v.playhead.time())
    }

    /// True when a non-looping clip has reached its end.
    pub fn finished(&self) -> bool {
        self.current.as_ref().is_some_and(|v| v.playhead.finished())
    }
}

/// Reports the markers in `[lo, hi)` in time order (ties in table order). Clips hold few markers, so
/// a repeated minimum search beats sorting without any buffer. The common case (no marker, or an
/// empty interval) returns without a call.
#[inline]
fn report_markers<'m, C, M: Markers<'m, C> + ?Sized>(markers: &M, clip: &C, lo: u32, hi: u32, on_marker: &mut dyn FnMut(MarkerEvent<'m>)) {
    if lo < hi {
        let count = markers.marker_count(clip);
        if count != 0 {
            report_markers_in(&|i| markers.marker(clip, i), count, lo, hi, on_marker);
        }
    }
}

#[inline(never)]
fn report_markers_in<'m>(
    marker: &dyn Fn(usize) -> Option<(&'m [u8], u16)>,
    count: usize,
    lo: u32,
    hi: u32,
    on_marker: &mut dyn FnMut(MarkerEvent<'m>),
) {
    let mut done: Option<(u16, usize)> = None;
    loop {
        let mut best: Option<MarkerEvent<'m>> = None;
        for index in 0..count {
            let Some((name, frame)) = marker(index) else { continue };
            let at = frame as u32 * TICKS_PER_FRAME;
            let key = (frame, index);
            if at < lo || at >= hi || done.is_some_and(|d| key <= d) {
                continue;
            }
            if best.is_none_or(|b| key < (b.frame, b.index)) {
                best = Some(MarkerEvent { index, name, frame });
            }
        }
        match best {
            Some(e) => {
                on_marker(e);
                done = Some((e.frame, e.index));
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Clip `c` has markers at frames `c`, `c + 2` named "a", "b".
    struct Two;
    impl Markers<'static, u16> for Two {
        fn marker_count(&self, _: &u16) -> usize {
            2
        }
        fn marker(&self, c: &u16, i: usize) -> Option<(&'static [u8], u16)> {
            [(&b"a"[..], *c), (&b"b"[..], *c + 2)].get(i).copied()
        }
    }

    fn update(p: &mut Player<u16>, vsyncs: u32) -> Vec<(usize, u16)> {
        let mut seen = Vec::new();
        p.update(vsyncs, &Two, &mut |e| seen.push((e.index, e.frame)));
        seen
    }

    const F: u32 = TICKS_PER_FRAME;

    #[test]
    fn markers_fire_once_per_pass_across_wraps_and_long_deltas() {
        let mut p = Player::new();
        p.play(0u16, 4 * F, true, TimeScale::NATIVE);
        assert_eq!(update(&mut p, 1), [(0, 0)]);
        assert_eq!(update(&mut p, 1), []);
        // Across the wrap: frame 2 ("b"), then frame 0 ("a") of the next pass.
        assert_eq!(update(&mut p, 3), [(1, 2), (0, 0)]);
        assert_eq!(p.time(), F);
        // Ten loops at once: the rest of this pass, one whole pass, then the landing pass.
        assert_eq!(update(&mut p, 40), [(1, 2), (0, 0), (1, 2), (0, 0)]);
        assert_eq!(p.time(), F);
    }

    #[test]
    fn a_marker_on_the_last_sample_fires_at_the_wrap_and_at_a_one_shots_end() {
        // Clip 2: markers at frames 2 ("a") and 4 ("b"); a span of 4 frames puts "b" on the last sample.
        let mut p = Player::new();
        p.play(2u16, 4 * F, true, TimeScale::NATIVE);
        assert_eq!(update(&mut p, 3), [(0, 2)]);
        // The wrap passes over the last sample (the first's repeat): "b" once, then the next pass.
        assert_eq!(update(&mut p, 1), [(1, 4)]);
        assert_eq!(p.time(), 0);
        assert_eq!(update(&mut p, 3), [(0, 2)]);
        // Ten frames from frame 3: the rest of this pass (its end), one whole pass standing for the
        // loops, then the landing pass (up to frame 1).
        assert_eq!(update(&mut p, 10), [(1, 4), (0, 2), (1, 4)]);
        assert_eq!(p.time(), F);
        // A one-shot reports it on arriving at its end, then holds there without repeating it.
        p.play(2u16, 4 * F, false, TimeScale::NATIVE);
        assert_eq!(update(&mut p, 10), [(0, 2), (1, 4)]);
        assert!(p.finished());
        assert_eq!(update(&mut p, 10), []);
    }

    #[test]
    fn crossfade_weight_rises_over_the_incoming_frames_and_ends_exactly() {
        let mut p = Player::new();
        p.play(0u16, 10 * F, true, TimeScale::NATIVE);
        update(&mut p, 1);
        p.crossfade(1, 10 * F, false, TimeScale::from_rates(30, 60), 4);
        assert_eq!((p.fade_weight(), p.fading()), (0, true));
        // 30 Hz clip on a 60 Hz screen: half a frame per vsync; the outgoing clip keeps its own rate.
        assert_eq!(update(&mut p, 2), []);
        assert_eq!(p.fade_weight(), 1024);
        assert_eq!(p.outgoing().map(|v| v.playhead.time()), Some(3 * F));
        assert_eq!(update(&mut p, 5), [(0, 1), (1, 3)]);
        assert_eq!(p.fade_weight(), 3584);
        update(&mut p, 1);
        assert_eq!((p.fade_weight(), p.fading()), (4096, false));
    }

    #[test]
    fn one_shot_holds_and_pause_freezes_the_fade() {
        let mut p = Player::new();
        p.play(0u16, 3 * F, false, TimeScale::NATIVE);
        update(&mut p, 10);
        assert!(p.finished());
        assert_eq!(p.time(), 3 * F);
        p.crossfade(1, 3 * F, false, TimeScale::NATIVE, 2);
        p.pause();
        update(&mut p, 1);
        assert_eq!((p.time(), p.fade_weight()), (0, 0));
        p.resume();
        update(&mut p, 1);
        assert_eq!((p.time(), p.fade_weight()), (F, 2048));
    }

    #[test]
    fn a_new_voice_keeps_the_pal_remainder() {
        // 60 Hz clips on PAL: 1.2 frames per vsync. Cutting between clips every 2 vsyncs must still
        // advance exactly 60 frames a second in total.
        let scale = TimeScale::from_rates(60, 50);
        let mut p = Player::new();
        let mut total = 0u64;
        for i in 0..25u16 {
            p.play(i, 1000 * F, true, scale);
            update(&mut p, 2);
            total += p.time() as u64;
        }
        assert_eq!(total, 60 * F as u64);
    }
}
