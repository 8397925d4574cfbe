//! The working memory of the renderer: one instance per program, shared by every character in turn.
//!
//! Nothing in here survives from one character to the next; each stage overwrites what it uses.

use crate::gte::{PackedMatrix, PoseQ14};
use crate::math::Matrix;
use crate::tables::BoneSample;

/// Bones a rigid character may have (the import profile's node limit).
pub const MAX_BONES: usize = 64;
/// Vertices a baked character may have (the import profile's limit: one decoded frame, and a
/// crossfade's second, live here).
pub const MAX_BAKED_VERTICES: usize = 512;
/// The projected vertices a [`Scratch`] holds unless the game says otherwise.
pub const DEFAULT_VERTICES: usize = 512;

/// Buffers for one character at a time, projecting up to `VERTICES` vertices: the game sizes it at
/// compile time for its largest character (`Scratch<{ tables::vertex_count_of(BLOB) }>`, 8 bytes a
/// vertex; a rigid-gte character may have up to 4,096, a baked one 512). `repr(C)` so that the baked
/// positions lie word-aligned (the console's decode and copy loops store them a word at a time;
/// checked below at compile time).
#[repr(C)]
pub struct Scratch<const VERTICES: usize = DEFAULT_VERTICES> {
    /// Decoded bone samples (rigid), and the second pose when interpolating.
    pub samples: [BoneSample; MAX_BONES],
    pub next_samples: [BoneSample; MAX_BONES],
    /// Rigid crossfade: the outgoing clip's decoded samples.
    pub from_samples: [BoneSample; MAX_BONES],
    /// Rigid from a [`super::PoseStream`]: the poses in the GTE's form.
    pub poses: [PoseQ14; MAX_BONES],
    /// A crossfade through a [`super::PoseStream`]: the outgoing clip's poses in the GTE's form.
    pub from_poses: [PoseQ14; MAX_BONES],
    /// Rigid with a pose cache: two cached frames blended (interpolated samples).
    pub blended: [PackedMatrix; MAX_BONES],
    /// Model-view matrix of every bone (rigid).
    pub matrices: [Matrix; MAX_BONES],
    /// Decoded model-space positions of one baked frame.
    pub positions: [[i16; 3]; MAX_BAKED_VERTICES],
    /// Baked crossfade: the outgoing clip's decoded positions.
    pub from_positions: [[i16; 3]; MAX_BAKED_VERTICES],
    /// Screen position of every vertex as the GTE's SXY word (x low, y high).
    pub sxy: [u32; VERTICES],
    /// Depth of every vertex (SZ, 0..=0xFFFF), a word each so the GTE stores and loads it directly.
    pub sz: [u32; VERTICES],
    /// The lights of the next character rendered with this scratch (None: unlit). A game sets it
    /// before each `render` call: lighting is per instance. Used only for tables with normals.
    pub lighting: Option<super::light::Lighting>,
    /// Lit colour of every vertex (`light::light_rigid`), `r | g << 8 | b << 16`, the top byte zero
    /// (the console's textured strip loop stores these words as they are).
    pub rgb: [u32; VERTICES],
}

const _: () = {
    assert!(core::mem::align_of::<Scratch>() >= 4);
    assert!(core::mem::offset_of!(Scratch, positions) % 4 == 0);
    assert!(core::mem::offset_of!(Scratch, from_positions) % 4 == 0);
};

const ZERO_SAMPLE: BoneSample = BoneSample { rotation: [0; 4], translation: [0; 3], scale: [0; 3] };
/// Every entry zero (the pose stage writes the matrices before anything reads them), so that a
/// `static` scratch is all zero and goes to `.bss` instead of the program's file.
const ZERO_MATRIX: Matrix = Matrix { rotation: [[0; 3]; 3], translation: crate::math::Vec3i32::ZERO };

impl<const VERTICES: usize> Scratch<VERTICES> {
    /// All zero; `const` so a program can keep it in a `static` (`.bss`).
    pub const fn new() -> Self {
        Scratch {
            samples: [ZERO_SAMPLE; MAX_BONES],
            next_samples: [ZERO_SAMPLE; MAX_BONES],
            from_samples: [ZERO_SAMPLE; MAX_BONES],
            poses: [PoseQ14::new([0; 4], [0; 3]); MAX_BONES],
            from_poses: [PoseQ14::new([0; 4], [0; 3]); MAX_BONES],
            blended: [PackedMatrix { words: [0; 6] }; MAX_BONES],
            matrices: [ZERO_MATRIX; MAX_BONES],
            positions: [[0; 3]; MAX_BAKED_VERTICES],
            from_positions: [[0; 3]; MAX_BAKED_VERTICES],
            sxy: [0; VERTICES],
            sz: [0; VERTICES],
            lighting: None,
            rgb: [0; VERTICES],
        }
    }
}

impl<const VERTICES: usize> Default for Scratch<VERTICES> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    /// The size the README quotes for a game's `static mut SCRATCH` (the console's is the same:
    /// `repr(C)`, nothing wider than a word).
    #[test]
    fn scratch_takes_the_size_the_readme_gives() {
        assert_eq!(core::mem::size_of::<super::Scratch>(), 25_656);
        // 12 bytes more a projected vertex (SXY, SZ, lit colour).
        assert_eq!(core::mem::size_of::<super::Scratch<4096>>(), 25_656 + 12 * (4096 - 512));
    }
}
