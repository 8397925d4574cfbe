//! Helpers shared by the import tests: fixture paths and the f64 reading of decoded samples (written
//! here from the runtime's documented fraction bits, not taken from the importer under test).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use std::collections::HashMap;

use psxanim::fbx::{Affine, Character, Trs};
use psxanim_runtime::tables::primitives::Primitive;
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

/// A primitive's corners in winding order, written from the stream's definition: a triangle's (a, b, c);
/// a quad run's (a, b, c, d), drawn as the points b, c, a, d and facing as (a, b, c); a strip's
/// (t_k, b_k, b_k+1, t_k+1), drawn as b_k, t_k, b_k+1, t_k+1 and facing as (t_k, b_k+1, t_k+1). Either
/// quad is drawn split along its corners 0-2.
pub fn winding(p: &Primitive) -> Vec<u16> {
    let q = p.points;
    if !p.quad {
        assert_eq!(q[..3], p.facing, "{p:?}");
        p.facing.to_vec()
    } else if p.facing == [q[2], q[0], q[1]] {
        vec![q[2], q[0], q[1], q[3]]
    } else {
        assert_eq!(
            p.facing,
            [q[1], q[2], q[3]],
            "{p:?}: neither a quad run's nor a strip's"
        );
        vec![q[1], q[0], q[2], q[3]]
    }
}

/// Checks that the blob's primitives draw exactly the source triangles (`sources`, [`normalised`], over
/// the importer's numbering `source(blob index)`): each triangle primitive one of them, each quad two,
/// its halves (w0, w1, w2) + (w0, w2, w3) along the diagonal it is drawn with or, for a strip quad
/// turned across the diagonal it was paired along, (w1, w2, w3) + (w1, w3, w0). Returns the turned
/// quads' windings (blob numbering), which must be convex to draw the same area.
pub fn cover(
    t: &Tables,
    source: impl Fn(u16) -> usize,
    sources: &[([usize; 3], usize)],
) -> Vec<[u16; 4]> {
    let mut left: HashMap<([usize; 3], usize), usize> = HashMap::new();
    for s in sources {
        *left.entry(*s).or_default() += 1;
    }
    let mut take = |halves: &[[u16; 3]], material: usize| {
        let halves: Vec<_> = halves
            .iter()
            .map(|h| normalised(h.map(&source), material))
            .collect();
        let mut trial = left.clone();
        for h in &halves {
            match trial.get_mut(h) {
                Some(n) if *n > 0 => *n -= 1,
                _ => return false,
            }
        }
        left = trial;
        true
    };
    let mut turned = Vec::new();
    for p in t.primitives() {
        let w = winding(&p);
        let m = p.material as usize;
        let covered = match w[..] {
            [a, b, c] => take(&[[a, b, c]], m),
            [a, b, c, d] => {
                take(&[[a, b, c], [a, c, d]], m)
                    || (take(&[[b, c, d], [b, d, a]], m) && {
                        turned.push([a, b, c, d]);
                        true
                    })
            }
            _ => unreachable!(),
        };
        assert!(
            covered,
            "{p:?} draws triangles the source does not have (or has fewer of)"
        );
    }
    let extra: Vec<_> = left.into_iter().filter(|(_, n)| *n > 0).collect();
    assert!(extra.is_empty(), "source triangles not drawn: {extra:?}");
    turned
}

/// The importer's triangles as a sorted multiset of [`normalised`] triangles.
pub fn source_triangles(c: &Character) -> Vec<([usize; 3], usize)> {
    let mut out: Vec<_> = c
        .triangles
        .iter()
        .map(|t| normalised(t.vertices, t.material))
        .collect();
    out.sort();
    out
}

/// psx-game's camera: in front of the character, a little above.
pub fn front_camera() -> psxanim_runtime::render::camera::Camera {
    use psxanim_runtime::math::Vec3i32;
    use psxanim_runtime::render::camera::Camera;
    Camera {
        view: Camera::orbit(Vec3i32::new(0, -3600, 0), 20_000, 0, 0x0400),
        center: (160, 120),
        projection: 320,
        screen: (320, 240),
        zsf3: 36,
        near: 1000,
    }
}
