//! Helpers shared by the import tests: fixture paths and the f64 reading of decoded samples (written
//! here from the runtime's documented fraction bits, not taken from the importer under test).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use psxanim::fbx::{Affine, Trs};
use psxanim_runtime::tables::{BoneSample, Tables, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

/// The folder of the Blender-made FBX fixtures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx")
}

/// One FBX fixture by file name.
pub fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

/// The transform a decoded bone sample stands for.
pub fn sample_transform(s: &BoneSample) -> Affine {
    let r = |v: i32, frac: u32| v as f64 / (frac as f64).exp2();
    Affine::from_trs(&Trs {
        translation: s.translation.map(|v| r(v, TRANSLATION_FRAC)),
        rotation: s.rotation.map(|v| r(v, ROTATION_FRAC)),
        scale: s.scale.map(|v| r(v, SCALE_FRAC)),
    })
}

/// A triangle as drawn: its corners rotated to put the smallest first (a rotation keeps the winding,
/// which is the facing), with its material.
pub fn normalised(v: [usize; 3], material: usize) -> ([usize; 3], usize) {
    let k = (0..3).min_by_key(|&k| v[k]).expect("three corners");
    ([v[k], v[(k + 1) % 3], v[(k + 2) % 3]], material)
}

/// The blob's triangles (a quad's two: `facing` and `second`) as a sorted multiset of [`normalised`]
/// triangles over the importer's vertex numbering (`source(blob index)`).
pub fn drawn_triangles(t: &Tables, source: impl Fn(u16) -> usize) -> Vec<([usize; 3], usize)> {
    let mut out: Vec<_> = t
        .primitives()
        .flat_map(|p| {
            [p.facing, p.second]
                .into_iter()
                .take(p.triangle_count())
                .map(move |v| (v, p.material))
        })
        .map(|(v, material)| normalised(v.map(&source), material as usize))
        .collect();
    out.sort();
    out
}
