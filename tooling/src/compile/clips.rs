//! Compiling ANIMBIN clips into CLIPBIN poses (`psxanim compile-clips`).
//!
//! The work is the runtime's own: `psxanim_runtime::clipbin::compile` plays every clip through the
//! `SkeletonController` on the bit-exact GTE model, so each stored frame is exactly what the console's
//! ANIMBIN path computes at that frame. This module adds what a file-based tool needs: the skeleton
//! as JSON, the large capacity profile, clip selection by name, and errors that name the input.
//!
//! Skeleton JSON: `{"bones": [{"parent": null, "rotation": [w, x, y, z], "translation": [x, y, z]}, ...]}`
//! with bones parent-first, `parent` a bone index (or null for a root), the rotation a unit FP12
//! quaternion (4096 = 1.0) and the translation FP12 integers in the clips' units.

use psxanim_runtime::anim::{LocalTransform, Skeleton, ROOT};
use psxanim_runtime::animbin::{Clip, LargeAnimationManager};
use psxanim_runtime::clipbin::{self, ClipBin};
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::{Quat, Vec3i32};
use serde::Deserialize;

/// The controller capacity used on the host: every skeleton a joint id can address.
const MAX_BONES: usize = psxanim_runtime::anim::skeleton::MAX_BONES;

/// A skeleton read from JSON: parent indices and bind-pose local transforms, parent-first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkeletonSpec {
    pub parents: Vec<u8>,
    pub bind: Vec<LocalTransform>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkeletonJson {
    bones: Vec<BoneJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoneJson {
    parent: Option<u32>,
    rotation: [i16; 4],
    translation: [i32; 3],
}

impl SkeletonSpec {
    /// Parses the skeleton JSON (see the module documentation); errors name the bone at fault.
    pub fn from_json(text: &str) -> Result<SkeletonSpec, String> {
        let json: SkeletonJson = serde_json::from_str(text).map_err(|e| format!("skeleton JSON: {e}"))?;
        let mut spec = SkeletonSpec { parents: Vec::new(), bind: Vec::new() };
        for (bone, b) in json.bones.iter().enumerate() {
            let parent = match b.parent {
                None => ROOT,
                Some(p) if (p as usize) < bone => p as u8,
                Some(p) => {
                    return Err(format!(
                        "bone {bone}: parent {p} is not an earlier bone (bones must come parent-first)"
                    ))
                }
            };
            let [w, x, y, z] = b.rotation;
            let [tx, ty, tz] = b.translation;
            spec.parents.push(parent);
            spec.bind.push(LocalTransform::new(Quat::new(w, x, y, z), Vec3i32::new(tx, ty, tz)));
        }
        spec.skeleton()?;
        Ok(spec)
    }

    /// The runtime's view of this skeleton (checks the count and unit bind rotations).
    pub fn skeleton(&self) -> Result<Skeleton<'_>, String> {
        Skeleton::new(&self.parents, &self.bind).map_err(|e| format!("skeleton: {e}"))
    }
}

/// Compiles the clips of `animbin` named in `only` (every clip when empty, in file order) for
/// `skeleton`. The ANIMBIN is read with the large capacity profile; the blob is read back with
/// `ClipBin::parse` before it is returned.
pub fn compile_clips(animbin: &[u8], skeleton: &SkeletonSpec, only: &[String]) -> Result<Vec<u8>, String> {
    let sk = skeleton.skeleton()?;
    let manager = LargeAnimationManager::parse(animbin, sk.len()).map_err(|e| e.to_string())?;
    let mut clips: Vec<Clip<'_>> = Vec::new();
    if only.is_empty() {
        clips.extend(manager.clips());
    } else {
        for name in only {
            let clip = manager.find(name.as_bytes()).ok_or_else(|| {
                let names: Vec<String> =
                    manager.clips().map(|c| String::from_utf8_lossy(c.name()).into_owned()).collect();
                format!("no clip named {name:?} (the file has {})", names.join(", "))
            })?;
            clips.push(clip);
        }
    }
    let mut out = vec![0u8; clipbin::compiled_size(sk.len(), &clips)];
    let size = clipbin::compile::<_, MAX_BONES>(&mut Gte::new(), sk, &clips, &mut out).map_err(|e| e.to_string())?;
    out.truncate(size);
    ClipBin::parse(&out, &sk).map_err(|e| format!("compiled blob does not read back: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxanim_runtime::anim::SkeletonController;
    use psxanim_runtime::math::Matrix;

    const SKELETON: &str = r#"{"bones": [
        {"parent": null, "rotation": [4096, 0, 0, 0], "translation": [0, 0, 0]},
        {"parent": 0, "rotation": [4096, 0, 0, 0], "translation": [0, -4096, 0]}
    ]}"#;

    /// One looping clip "bend" of 4 frames: bone 1 turns 90 degrees about X by frame 2; marker "mid".
    fn animbin() -> Vec<u8> {
        let mut b = b"ANIMBIN\x01\x01".to_vec();
        let mut name = [0u8; 32];
        name[..4].copy_from_slice(b"bend");
        b.extend_from_slice(&name);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&4u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[0, 1]);
        b.extend_from_slice(&2u16.to_le_bytes());
        for (frame, q) in [(0u16, [4096i16, 0, 0, 0]), (2, [2896, 2896, 0, 0])] {
            b.extend_from_slice(&frame.to_le_bytes());
            b.push(0);
            for c in q {
                b.extend_from_slice(&c.to_le_bytes());
            }
        }
        let mut marker = [0u8; 32];
        marker[..3].copy_from_slice(b"mid");
        b.extend_from_slice(&marker);
        b.extend_from_slice(&2u16.to_le_bytes());
        b
    }

    #[test]
    fn compiled_frames_are_the_controllers_poses() {
        let spec = SkeletonSpec::from_json(SKELETON).unwrap();
        let bytes = animbin();
        let blob = compile_clips(&bytes, &spec, &[]).unwrap();
        let sk = spec.skeleton().unwrap();
        let bin = ClipBin::parse(&blob, &sk).unwrap();
        let clip = bin.find(b"bend").unwrap();
        assert_eq!((clip.frames(), clip.looping(), clip.marker(0)), (4, true, Some((&b"mid"[..], 2))));
        let manager = LargeAnimationManager::parse(&bytes, 2).unwrap();
        let mut c = SkeletonController::<2>::new(sk).unwrap();
        c.play(manager.clip(0).unwrap(), true).unwrap();
        for frame in 0..4 {
            let (mut expected, mut stored) = ([Matrix::IDENTITY; 2], [Matrix::IDENTITY; 2]);
            c.evaluate(&mut Gte::new(), &mut expected);
            clip.write_pose(frame, &mut stored);
            assert_eq!(stored, expected, "frame {frame}");
            c.advance(1);
        }
        // Frame 2: bone 1 turned 90 degrees about X (rows y and z swapped, within FP12 rounding).
        let mut p = [Matrix::IDENTITY; 2];
        clip.write_pose(2, &mut p);
        assert!(p[1].rotation[1][1].abs() < 8 && (p[1].rotation[2][1] - 4096).abs() < 8, "{:?}", p[1]);
    }

    #[test]
    fn bad_inputs_are_named() {
        let spec = SkeletonSpec::from_json(SKELETON).unwrap();
        let e = compile_clips(&animbin(), &spec, &["walk".into()]).unwrap_err();
        assert!(e.contains("\"walk\"") && e.contains("bend"), "{e}");
        let e = compile_clips(&animbin()[..60], &spec, &[]).unwrap_err();
        assert!(e.contains("offset"), "{e}");
        let e =
            SkeletonSpec::from_json(r#"{"bones": [{"parent": 0, "rotation": [4096,0,0,0], "translation": [0,0,0]}]}"#)
                .unwrap_err();
        assert!(e.contains("bone 0") && e.contains("parent-first"), "{e}");
        let e = SkeletonSpec::from_json(
            r#"{"bones": [{"parent": null, "rotation": [100,0,0,0], "translation": [0,0,0]}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("bone 0") && e.contains("unit"), "{e}");
        // A clip animating joint 1 does not fit a one-bone skeleton.
        let one = SkeletonSpec::from_json(
            r#"{"bones": [{"parent": null, "rotation": [4096,0,0,0], "translation": [0,0,0]}]}"#,
        )
        .unwrap();
        assert!(compile_clips(&animbin(), &one, &[]).unwrap_err().contains("joint 1"));
    }
}
