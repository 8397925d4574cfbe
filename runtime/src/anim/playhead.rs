//! Playhead: where one playing clip is, in ticks (4096 per clip frame), and how time moves it.
//!
//! Shared by [`super::SkeletonController`] (one per playing layer) and [`super::Animator`], so both
//! players wrap, hold and pause identically. The ticks come from a [`super::time::Clock`] owned by the
//! caller: a controller's layers share one clock, so a crossfade's two clips advance together.
//!
//! Semantics for a span of `s` ticks:
//! - Looping: the time stays in `[0, s)`, wrapping exactly (no overshoot, unlike the original
//!   player); a span of 0 stays at 0.
//! - Not looping: the time stops at `s` and holds there ([`Playhead::finished`]).
//! - The time `s` itself is passed over when a pass ends: at the wrap (an imported clip's last sample
//!   repeats its first there) and on arriving at a one-shot's end (its last sample, held), once.
//! - Paused: `advance` does nothing.

/// One clip's position and playback mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playhead {
    /// In `[0, span)` while looping (0 for an empty span), `<= span` otherwise.
    time: u32,
    span: u32,
    looping: bool,
    paused: bool,
}

impl Playhead {
    /// Nothing to play yet: an empty span, paused.
    pub const IDLE: Playhead = Playhead { time: 0, span: 0, looping: false, paused: true };

    /// At time 0 of a clip whose pass lasts `span` ticks, playing.
    pub const fn new(span: u32, looping: bool) -> Self {
        Playhead { time: 0, span, looping, paused: false }
    }

    /// The time in ticks.
    pub const fn time(&self) -> u32 {
        self.time
    }

    /// Ticks from time 0 to the wrap point (looping) or to the hold point (not looping).
    pub const fn span(&self) -> u32 {
        self.span
    }

    pub const fn looping(&self) -> bool {
        self.looping
    }

    pub const fn is_paused(&self) -> bool {
        self.paused
    }

    /// True when a non-looping playhead has reached its end (it holds there).
    pub const fn finished(&self) -> bool {
        !self.looping && self.time >= self.span
    }

    pub fn pause(&mut self) {
        self.paused = true;
    }

    pub fn resume(&mut self) {
        self.paused = false;
    }

    /// Back to time 0, paused.
    pub fn stop(&mut self) {
        self.time = 0;
        self.paused = true;
    }

    /// Moves forward by `ticks` (nothing while paused). `crossed(lo, hi)` is called with the
    /// intervals of clip time passed over, in order, each as `[lo, hi)` within one pass (it may be
    /// empty): the rest of this pass, one whole pass standing for any number of whole loops, then
    /// the start of the pass the playhead lands in. A pass that ends includes its end (`hi` is
    /// `span + 1`): the wrap, or the arrival at a one-shot's end.
    #[inline]
    pub fn advance(&mut self, ticks: u64, mut crossed: impl FnMut(u32, u32)) {
        if self.paused {
            return;
        }
        let (t0, span) = (self.time, self.span);
        let total = t0 as u64 + ticks;
        if !self.looping || total < span as u64 {
            let t1 = total.min(span as u64) as u32;
            let arrived = !self.looping && t1 == span && t0 < span;
            crossed(t0, if arrived { span + 1 } else { t1 });
            self.time = t1;
            return;
        }
        if span == 0 {
            crossed(t0, span);
            self.time = 0; // a loop of one sample stays on it, passing over nothing
            return;
        }
        crossed(t0, span + 1);
        let mut rest = total - span as u64;
        if rest >= span as u64 {
            crossed(0, span + 1);
            rest %= span as u64;
        }
        crossed(0, rest as u32);
        self.time = rest as u32;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn advance(p: &mut Playhead, ticks: u64) -> Vec<(u32, u32)> {
        let mut seen = Vec::new();
        p.advance(ticks, |lo, hi| seen.push((lo, hi)));
        seen
    }

    #[test]
    fn looping_wraps_exactly_and_reports_each_pass_once() {
        let mut p = Playhead::new(100, true);
        assert_eq!(advance(&mut p, 70), [(0, 70)]);
        assert_eq!(advance(&mut p, 30), [(70, 101), (0, 0)]);
        assert_eq!(p.time(), 0);
        assert_eq!(advance(&mut p, 90), [(0, 90)]);
        // Three whole loops and 20 more: the rest of this pass, one whole pass, then the landing pass.
        assert_eq!(advance(&mut p, 330), [(90, 101), (0, 101), (0, 20)]);
        assert_eq!(p.time(), 20);
        assert!(!p.finished());
    }

    #[test]
    fn non_looping_holds_at_the_end_and_finishes() {
        let mut p = Playhead::new(100, false);
        // Arriving at the end passes over it (its last sample), once; holding there passes nothing.
        assert_eq!(advance(&mut p, 250), [(0, 101)]);
        assert_eq!(p.time(), 100);
        assert!(p.finished());
        assert_eq!(advance(&mut p, 5), [(100, 100)]);
        assert_eq!(p.time(), 100);
    }

    #[test]
    fn empty_loop_stays_at_zero() {
        let mut p = Playhead::new(0, true);
        advance(&mut p, 12345);
        assert_eq!(p.time(), 0);
    }

    #[test]
    fn paused_playhead_does_not_move_and_stop_rewinds() {
        let mut p = Playhead::new(100, true);
        advance(&mut p, 40);
        p.pause();
        assert!(advance(&mut p, 40).is_empty());
        assert_eq!(p.time(), 40);
        p.resume();
        advance(&mut p, 10);
        assert_eq!(p.time(), 50);
        p.stop();
        assert_eq!((p.time(), p.is_paused()), (0, true));
    }
}
