//! The playback time base: vsync deltas in, clip time out, exactly.
//!
//! Clip time is counted in ticks, FP12 frames (4096 ticks = one clip frame), so a tick is also the
//! interpolation factor's unit. A [`TimeScale`] turns vsyncs into ticks as an exact fraction: the
//! whole part per vsync plus a remainder carried between updates, so 50 PAL vsyncs at
//! `from_rates(60, 50)` advance exactly as far as 60 NTSC vsyncs at `from_rates(60, 60)`.

/// Ticks per clip frame.
pub const TICKS_PER_FRAME: u32 = 1 << 12;

/// Largest vsync delta one update accepts; longer gaps are clamped (a paused game resuming).
pub const MAX_DELTA: u32 = 1 << 15;

/// Clip frames per vsync as an exact fraction `num / den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeScale {
    whole: u32,
    rem: u32,
    den: u32,
}

impl TimeScale {
    /// One clip frame per vsync: the original engine's time base.
    pub const NATIVE: TimeScale = TimeScale { whole: TICKS_PER_FRAME, rem: 0, den: 1 };

    /// `frames / vsyncs` clip frames per vsync. `vsyncs` is clamped to 1..=65536 and the rate to at
    /// most 256 frames per vsync. A clip authored for 60 Hz plays at the same speed everywhere with
    /// `from_ratio(60, 50)` on PAL and `from_ratio(60, 60)` on NTSC; a 16.16 speed factor `s` is
    /// `from_ratio(s, 65536)`.
    pub const fn from_ratio(frames: u32, vsyncs: u32) -> TimeScale {
        let den = if vsyncs == 0 { 1 } else if vsyncs > 1 << 16 { 1 << 16 } else { vsyncs };
        let frames = if frames / den > 256 { 256 * den } else { frames };
        // frames * 4096 may pass 2^32: split it as (q * den + r) * 4096.
        let (q, r) = (frames / den, frames % den);
        let r_ticks = r as u64 * TICKS_PER_FRAME as u64;
        TimeScale {
            whole: q * TICKS_PER_FRAME + (r_ticks / den as u64) as u32,
            rem: (r_ticks % den as u64) as u32,
            den,
        }
    }

    /// Clip frames per second `clip_hz` shown on a display refreshing `display_hz` times a second.
    pub const fn from_rates(clip_hz: u32, display_hz: u32) -> TimeScale {
        TimeScale::from_ratio(clip_hz, display_hz)
    }

    /// Whole ticks per vsync (the fraction's integer part).
    pub const fn ticks_per_vsync(&self) -> u32 {
        self.whole
    }
}

/// Converts vsync deltas to ticks, carrying the fractional remainder between calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    scale: TimeScale,
    carry: u32,
}

impl Clock {
    pub const fn new(scale: TimeScale) -> Clock {
        Clock { scale, carry: 0 }
    }

    pub const fn scale(&self) -> TimeScale {
        self.scale
    }

    /// This clock at `scale`: the fractional remainder kept when the scale is the same, else dropped
    /// (it counts fractions of another denominator).
    pub const fn rescaled(self, scale: TimeScale) -> Clock {
        let same = self.scale.whole == scale.whole && self.scale.rem == scale.rem && self.scale.den == scale.den;
        Clock { scale, carry: if same { self.carry } else { 0 } }
    }

    /// Ticks for `vsyncs` more vsyncs (clamped to [`MAX_DELTA`]). At most one division, none for
    /// scales that are whole ticks per vsync.
    pub fn advance(&mut self, vsyncs: u32) -> u64 {
        let d = vsyncs.min(MAX_DELTA);
        let mut ticks = d as u64 * self.scale.whole as u64;
        if self.scale.rem != 0 {
            // carry < den <= 2^16 and d * rem < 2^15 * 2^16: no overflow.
            let acc = self.carry + d * self.scale.rem;
            let more = acc / self.scale.den;
            self.carry = acc - more * self.scale.den;
            ticks += more as u64;
        }
        ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pal_and_ntsc_reach_the_same_time_after_each_second() {
        let mut pal = Clock::new(TimeScale::from_rates(60, 50));
        let mut ntsc = Clock::new(TimeScale::from_rates(60, 60));
        let (mut tp, mut tn) = (0u64, 0u64);
        for second in 1..=10u64 {
            for _ in 0..50 {
                tp += pal.advance(1);
            }
            for _ in 0..30 {
                tn += ntsc.advance(2);
            }
            assert_eq!(tp, second * 60 * TICKS_PER_FRAME as u64);
            assert_eq!(tn, tp);
        }
    }

    #[test]
    fn native_is_one_frame_per_vsync_and_deltas_are_clamped() {
        let mut c = Clock::new(TimeScale::NATIVE);
        assert_eq!(c.advance(3), 3 * 4096);
        assert_eq!(c.advance(u32::MAX), MAX_DELTA as u64 * 4096);
        let mut half = Clock::new(TimeScale::from_ratio(1 << 15, 1 << 16));
        assert_eq!(half.advance(1), 2048);
    }

    #[test]
    fn degenerate_ratios_are_clamped_not_divided_by_zero() {
        assert_eq!(TimeScale::from_ratio(5, 0).ticks_per_vsync(), 5 * 4096);
        assert_eq!(TimeScale::from_ratio(u32::MAX, 1).ticks_per_vsync(), 256 * 4096);
        let mut c = Clock::new(TimeScale::from_ratio(7, 3));
        let total: u64 = (0..3).map(|_| c.advance(1)).sum();
        assert_eq!(total, 7 * 4096);
    }
}
