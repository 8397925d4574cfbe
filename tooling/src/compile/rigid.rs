//! Rigid GTE compilation: vertices grouped into one contiguous range per bone (its strongest influence),
//! stored in that bone's local space, and per-bone pose samples in the compact format.

use psxanim_runtime::tables::{BoneSample, Tables, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

use super::pose::{make_continuous, BoneTrack};
use crate::fbx::{Affine, Character, Clip, Trs};

/// Vertices reordered by bone: `remap[old] = new`.
pub struct RigidLayout {
    pub remap: Vec<usize>,
    /// Bone-local positions in the new order (GTE units, bind scale absorbed).
    pub local: Vec<[i16; 3]>,
    /// Per bone: first vertex and vertex count.
    pub ranges: Vec<(u16, u16)>,
}

pub fn layout(c: &Character) -> Result<RigidLayout, String> {
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone); // stable: keeps the file's order within a bone
    let mut remap = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut local = Vec::with_capacity(order.len());
    for &old in &order {
        let v = &c.vertices[old];
        let p = c.bones[v.bone].bind.inverse().apply(v.bind);
        let mut q = [0i16; 3];
        for (o, x) in q.iter_mut().zip(p) {
            *o = i16::try_from(x.round() as i64).map_err(|_| {
                format!(
                    "vertex {} of mesh '{}' is {:.0} GTE units from bone '{}', beyond an i16",
                    v.source_index, v.mesh, x, c.bones[v.bone].name
                )
            })?;
        }
        local.push(q);
    }
    let mut ranges = vec![(0u16, 0u16); c.bones.len()];
    for (new, &old) in order.iter().enumerate() {
        let b = c.vertices[old].bone;
        if ranges[b].1 == 0 {
            ranges[b].0 = new as u16;
        }
        ranges[b].1 += 1;
    }
    Ok(RigidLayout { remap, local, ranges })
}

/// How far each bone's motion reaches: the farthest vertex of the bone or its descendants from the
/// bone's origin, in GTE units (bind pose).
pub fn reaches(c: &Character) -> Vec<f64> {
    let mut reach = vec![0.0f64; c.bones.len()];
    for v in &c.vertices {
        let mut b = Some(v.bone);
        while let Some(i) = b {
            let o = c.bones[i].bind.t;
            let d = ((v.bind[0] - o[0]).powi(2) + (v.bind[1] - o[1]).powi(2) + (v.bind[2] - o[2]).powi(2)).sqrt();
            reach[i] = reach[i].max(d);
            b = c.bones[i].parent;
        }
    }
    reach
}

/// Parent-relative samples of every bone over a clip.
pub fn tracks(c: &Character, clip: &Clip, reach: &[f64]) -> Result<Vec<BoneTrack>, String> {
    let mut out = Vec::new();
    for (b, bone) in c.bones.iter().enumerate() {
        let mut samples = Vec::with_capacity(clip.frame_count());
        for (f, pose) in clip.poses.iter().enumerate() {
            let local = match bone.parent {
                Some(p) => pose[p].inverse().mul(&pose[b]),
                None => pose[b],
            };
            let sample = local.decompose().map_err(|e| match (e, bone.parent) {
                (crate::fbx::Degenerate::Shear { cosine }, Some(p)) => format!(
                    "bone '{}' at clip '{}' frame {f}: its transform relative to its parent '{}' is sheared (axes \
                     {:.2} degrees off square), as where the file's inheritance mode (Maya segment scale \
                     compensate, MotionBuilder RrSs) undoes a parent's non-uniform scale; rigid-gte stores \
                     parent-relative translation, rotation and scale and cannot hold it: use --storage baked-vertices",
                    bone.name,
                    clip.name,
                    c.bones[p].name,
                    90.0 - cosine.clamp(-1.0, 1.0).acos().to_degrees()
                ),
                (e, _) => format!("bone '{}' clip '{}' frame {f}: {e:?}", bone.name, clip.name),
            })?;
            samples.push(sample);
        }
        make_continuous(&mut samples);
        out.push(BoneTrack { samples, reach: reach[b] });
    }
    Ok(out)
}

/// The f64 transform of a decoded sample (what the console rebuilds in fixed point).
pub fn sample_transform(s: &BoneSample) -> Affine {
    let r = |v: i32, frac: u32| v as f64 / (frac as f64).exp2();
    Affine::from_trs(&Trs {
        translation: s.translation.map(|v| r(v, TRANSLATION_FRAC)),
        rotation: s.rotation.map(|v| r(v, ROTATION_FRAC)),
        scale: s.scale.map(|v| r(v, SCALE_FRAC)),
    })
}

/// Model-space positions (new vertex order) of a decoded frame, composing bones parent-first.
pub fn decoded_positions(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    l: &RigidLayout,
) -> Result<Vec<[f64; 3]>, String> {
    let model = decoded_model(t, clip, frame, parents, sample_transform, Affine::mul)?;
    Ok(positions(&model, l))
}

/// Per-bone model transforms of a decoded frame: each sample made `local`, composed parent-first
/// with `mul(parent, local)`.
fn decoded_model<T>(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    local: impl Fn(&BoneSample) -> T,
    mul: impl Fn(&T, &T) -> T,
) -> Result<Vec<T>, String> {
    let mut samples = vec![BoneSample::default(); parents.len()];
    t.decode_pose(clip, frame, &mut samples).map_err(|e| format!("decoding clip {clip} frame {frame}: {e:?}"))?;
    let mut model: Vec<T> = Vec::with_capacity(parents.len());
    for (b, s) in samples.iter().enumerate() {
        let local = local(s);
        let m = match parents[b] {
            Some(p) => mul(&model[p], &local),
            None => local,
        };
        model.push(m);
    }
    Ok(model)
}

/// Positions (new vertex order) of the local vertices under per-bone model transforms.
pub fn positions(model: &[Affine], l: &RigidLayout) -> Vec<[f64; 3]> {
    transform_vertices(model, l, |m, v| m.apply(v.map(|c| c as f64)))
}

/// `apply(bone's model transform, local vertex)` for every local vertex, in the new vertex order.
fn transform_vertices<T>(model: &[T], l: &RigidLayout, apply: impl Fn(&T, &[i16; 3]) -> [f64; 3]) -> Vec<[f64; 3]> {
    let mut out = Vec::with_capacity(l.local.len());
    // Ranges are contiguous and in bone order, so this yields the new vertex order.
    for (b, &(first, count)) in l.ranges.iter().enumerate() {
        for v in &l.local[first as usize..first as usize + count as usize] {
            out.push(apply(&model[b], v));
        }
    }
    out
}

/// Rounds `v / 2^shift` to nearest.
fn round_shift(v: i64, shift: u32) -> i64 {
    (v + (1 << (shift - 1))) >> shift
}

/// Model-space positions (new vertex order) the console computes for a decoded frame with the
/// runtime's fixed-point math: FP12 quaternion to matrix, scale folded into the columns, composition
/// and vertex transform exactly as the GTE truncates them. Reported next to the format's own error:
/// the FP12 matrices, not the pose format, bound the console's precision.
pub fn console_positions(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    l: &RigidLayout,
) -> Result<Vec<[f64; 3]>, String> {
    use psxanim_runtime::math::{saturate_i16, Matrix, Quat, Vec3i16, Vec3i32, FRAC_BITS};
    let local = |s: &BoneSample| {
        let q = s.rotation.map(|v| saturate_i16(round_shift(v as i64, ROTATION_FRAC - FRAC_BITS)));
        let r = Quat::new(q[3], q[0], q[1], q[2]).to_rotation();
        let mut m = r;
        for row in m.iter_mut() {
            for (c, e) in row.iter_mut().enumerate() {
                *e = saturate_i16(round_shift(*e as i64 * s.scale[c] as i64, SCALE_FRAC));
            }
        }
        let tr = s.translation.map(|v| round_shift(v as i64, TRANSLATION_FRAC) as i32);
        Matrix::new(m, Vec3i32::new(tr[0], tr[1], tr[2]))
    };
    let model = decoded_model(t, clip, frame, parents, local, Matrix::mul)?;
    Ok(transform_vertices(&model, l, |m, v| m.transform(Vec3i16::from_array(*v)).to_array().map(|c| c as f64)))
}
