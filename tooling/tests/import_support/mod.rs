//! Helpers shared by the import tests: fixture paths and the f64 reading of decoded samples (written
//! here from the runtime's documented fraction bits, not taken from the importer under test).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use psxanim::fbx::{Affine, Trs};
use psxanim_runtime::tables::{BoneSample, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

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
