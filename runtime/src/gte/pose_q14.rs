//! The rigid pose form the GTE composes cheapest (see `render::bones::compose_q14`): defined with the
//! coprocessor's backends that take it, re-exported by `render::bones`.

use crate::tables::{BoneSample, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

/// A rigid bone's parent-relative pose already in the GTE's units, for `render::bones::compose_q14`: the unit
/// quaternion x, y, z, w in Q14 (each within +-16384), the translation in GTE units, scale 1.0. 16
/// bytes, four words, the form a decoder can emit for the cheapest compose (no rounding, no tests,
/// four loads). [`PoseQ14::from_sample`] gives it for any sample in `render::bones::compose_sample`'s common case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C, align(4))]
pub struct PoseQ14 {
    pub rotation: [i16; 4],
    pub translation: [i16; 3],
    /// Keeps the size a whole number of words (the console loads the pose as four words).
    pub pad: i16,
}

impl PoseQ14 {
    pub const fn new(rotation: [i16; 4], translation: [i16; 3]) -> Self {
        Self { rotation, translation, pad: 0 }
    }

    /// The sample's rotation rounded to Q14 and translation to GTE units, when every rotation
    /// component is within +-1.0, the scale exactly 1.0 and the translation within `i16`; `None`
    /// otherwise. Then `compose_q14(parent, from_sample(s))` equals `compose_sample(parent, s)`.
    pub fn from_sample(s: &BoneSample) -> Option<Self> {
        let (q, t) = super::unit_sample(s)?;
        Some(Self::new(q.map(|c| c as i16), t.map(|c| c as i16)))
    }

    /// Sets the rotation from two words, `x | y << 16` and `z | w << 16` (as [`super::Cop2::nlerp_q14`]
    /// gives it): on the console two word stores into the layout the compose loads.
    #[inline(always)]
    pub(crate) fn set_rotation_words(&mut self, words: [u32; 2]) {
        #[cfg(target_os = "psx")]
        // SAFETY: `rotation` is the first field of a `repr(C, align(4))` struct: eight bytes at a
        // 4-aligned address, the two words in little-endian order are its four halves.
        unsafe {
            core::ptr::addr_of_mut!(self.rotation).cast::<[u32; 2]>().write(words)
        }
        #[cfg(not(target_os = "psx"))]
        {
            let [xy, zw] = words;
            self.rotation = [xy as i16, (xy >> 16) as i16, zw as i16, (zw >> 16) as i16];
        }
    }

    /// The sample this pose stands for (rotation in `ROTATION_FRAC` bits, translation in
    /// `TRANSLATION_FRAC` bits, scale 1.0).
    pub fn to_sample(&self) -> BoneSample {
        BoneSample {
            rotation: self.rotation.map(|c| (c as i32) << (ROTATION_FRAC - 14)),
            translation: self.translation.map(|c| (c as i32) << TRANSLATION_FRAC),
            scale: [1 << SCALE_FRAC; 3],
        }
    }
}

