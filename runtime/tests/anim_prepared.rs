//! Prepared ANIMBIN keys (`anim::PreparedClip`) against the file path they replace: the same local
//! quaternions where the file path's hemispheres are the load-time ones, within two FP12 steps of a
//! component elsewhere; the prepared path composes them in Q14 (`gte::PoseQ14`), so its matrices
//! differ from the file path's FP12 ones in their low bits. Clips: the anim scenario's and the real
//! files of `shared/realfiles/animbin`.
#[path = "../../examples/anim/src/scenario.rs"]
#[allow(dead_code)]
mod scenario;

use psxanim_runtime::anim::{PrepareError, PreparedClip, Skeleton, SkeletonController, TimeScale, LocalTransform, ROOT};
use psxanim_runtime::animbin::{Clip, LargeAnimationManager};
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::Matrix;
use std::path::PathBuf;

const BONES: usize = 128;

/// The real ANIMBIN files, each with its name (none when `shared/` is not beside the checkout).
fn real_files() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/realfiles/animbin");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIP real files: {} not readable", dir.display());
        return Vec::new();
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "animbin")).collect();
    files.sort();
    files.into_iter().map(|p| (p.display().to_string(), std::fs::read(&p).unwrap())).collect()
}

/// Every clip of the scenario's scene and of the real files that parse, with a name.
fn with_clips(mut f: impl FnMut(&str, Clip<'_>)) {
    let (scene, _) = scenario::scene().unwrap();
    for clip in scene.clips() {
        f("scene", clip);
    }
    let files = real_files();
    for (name, bytes) in &files {
        let Ok(m) = LargeAnimationManager::parse(bytes, BONES) else { continue };
        for clip in m.clips() {
            f(name, clip);
        }
    }
}

/// A skeleton of `bones` bones in a chain (each the previous one's child), offset along y.
fn chain(bones: usize) -> (Vec<u8>, Vec<LocalTransform>) {
    let parents = (0..bones).map(|b| if b == 0 { ROOT } else { (b - 1) as u8 }).collect();
    let bind = vec![LocalTransform::new(Default::default(), psxanim_runtime::math::Vec3i32::new(0, -1024, 0)); bones];
    (parents, bind)
}

fn max_difference(a: &[Matrix], b: &[Matrix]) -> i32 {
    a.iter()
        .zip(b)
        .flat_map(|(a, b)| (0..9).map(move |i| (a.rotation[i / 3][i % 3] as i32 - b.rotation[i / 3][i % 3] as i32).abs()))
        .max()
        .unwrap_or(0)
}

/// Plays `clip` from its keys and prepared, side by side, through `deltas` (vsyncs per update) at
/// `scale`; returns the largest difference of a local rotation matrix entry (a skeleton of roots,
/// so each matrix is the bone's local one), of a model-space entry (a chain) and of a local
/// quaternion's component (up to sign) over all updates.
fn compare(clip: Clip<'_>, looping: bool, scale: TimeScale, deltas: &[u32]) -> (i32, i32, i32) {
    let bones = clip.joint_count().max(1);
    let mut words = vec![0u32; PreparedClip::words_needed(&clip)];
    let prepared = PreparedClip::new(clip, &mut words).unwrap();
    let (chain_parents, bind) = chain(bones);
    let roots = vec![ROOT; bones];
    let mut gte = Gte::new();
    let mut worst = (0, 0, 0);
    for (parents, slot) in [(&roots, 0), (&chain_parents, 1)] {
        let skeleton = Skeleton::new(parents, &bind).unwrap();
        let mut keys = SkeletonController::<BONES>::new(skeleton).unwrap();
        let mut fast = SkeletonController::<BONES>::new(skeleton).unwrap();
        keys.set_time_scale(scale);
        fast.set_time_scale(scale);
        keys.play(clip, looping).unwrap();
        fast.play(prepared, looping).unwrap();
        let (mut a, mut b) = (vec![Matrix::IDENTITY; bones], vec![Matrix::IDENTITY; bones]);
        for &d in deltas {
            keys.advance(d);
            fast.advance(d);
            keys.evaluate(&mut gte, &mut a);
            fast.evaluate(&mut gte, &mut b);
            let diff = max_difference(&a, &b);
            if slot == 0 {
                worst.0 = worst.0.max(diff);
            } else {
                worst.1 = worst.1.max(diff);
            }
            let (ta, tb) = (a.iter().map(|m| m.translation).collect::<Vec<_>>(), b.iter().map(|m| m.translation));
            if slot == 0 {
                assert!(ta.into_iter().eq(tb), "translations are read from the file either way");
                for (p, q) in keys.evaluated_locals().iter().zip(fast.evaluated_locals()) {
                    // The same rotation up to the quaternion's sign.
                    let (p, q) = (p.rotation, q.rotation);
                    let s = if p.dot(q) < 0 { -1 } else { 1 };
                    let pairs = [(p.w, q.w), (p.x, q.x), (p.y, q.y), (p.z, q.z)];
                    worst.2 = pairs.iter().map(|&(a, b)| (a as i32 - s * b as i32).abs()).fold(worst.2, i32::max);
                }
            }
        }
    }
    worst
}

/// Played from frame 0 a frame at a time up to the end (no wrap), the file path decodes each key
/// once in the hemisphere of the one before it, as the load-time conversion does: the same local
/// quaternions, bit for bit (the prepared Q14 ones rounded to FP12). The matrices come from the Q14
/// quaternion's products instead of the rounded FP12 one's: a local entry differs by at most 2 FP12
/// steps, a model-space entry of a chain by at most 5 (the largest seen, over the scene and the
/// real files).
#[test]
fn a_first_pass_frame_by_frame_has_the_file_path_s_quaternions() {
    let (mut clips, mut worst) = (0, (0, 0));
    with_clips(|name, clip| {
        let deltas = vec![1; clip.length() as usize - 1];
        for looping in [false, true] {
            let (local, model, quat) = compare(clip, looping, TimeScale::NATIVE, &deltas);
            assert_eq!(quat, 0, "{name} {:?}", clip.name());
            worst = (worst.0.max(local), worst.1.max(model));
        }
        clips += 1;
    });
    assert!(clips >= 2);
    assert!(worst.0 <= 2 && worst.1 <= 5, "{worst:?}");
    assert!(worst.0 > 0, "the prepared matrices are the Q14 quaternions', not the FP12 ones'");
}

/// Wraps, skipped frames and the PAL rate: the file path's hemispheres then depend on how playback
/// got there; the prepared keys' do not. nlerp's floors are not symmetric under negation: a local
/// quaternion's component differs by at most 2 FP12 steps (up to sign), which (with the Q14
/// composition's own difference) moves a local matrix entry by at most 5 steps and a model-space
/// entry of a chain by at most 6 (the largest seen, over the scene and the real files: the scene's
/// "swing", with its 100 and 160 degree steps, does).
#[test]
fn wraps_and_skips_stay_within_two_steps_of_a_component_of_the_file_path() {
    let deltas: Vec<u32> = [1, 1, 2, 1, 3].iter().cycle().take(400).copied().collect();
    let mut worst = (0, 0, 0);
    let mut scene_differs = false;
    with_clips(|name, clip| {
        for scale in [TimeScale::NATIVE, TimeScale::from_rates(60, 50), TimeScale::from_rates(25, 60)] {
            let (local, model, quat) = compare(clip, true, scale, &deltas);
            scene_differs |= name == "scene" && local > 0;
            worst = (worst.0.max(local), worst.1.max(model), worst.2.max(quat));
        }
    });
    assert!(worst.0 <= 5 && worst.1 <= 6 && worst.2 <= 2, "{worst:?}");
    assert!(scene_differs, "the scene's wide steps take the other hemisphere on some path");
}

#[test]
fn a_short_buffer_is_refused_with_the_words_needed() {
    let (scene, _) = scenario::scene().unwrap();
    let swing = scene.find(b"swing").unwrap();
    // Joints 0..=4 (two words each), 3 + 6 + 2 rotation keys (three words each).
    let needed = 2 * 5 + 3 * 11;
    assert_eq!(PreparedClip::words_needed(&swing), needed);
    let mut short = vec![0u32; needed - 1];
    let err = PreparedClip::new(swing, &mut short).err().unwrap();
    assert_eq!(err, PrepareError { needed, available: needed - 1 });
    assert_eq!(err.to_string(), format!("prepared ANIMBIN keys need {needed} words, the buffer holds {}", needed - 1));
    let mut enough = vec![0u32; needed + 3];
    assert!(PreparedClip::new(swing, &mut enough).is_ok());
}

/// The prepared pose depends on the time only: played step by step through wraps and skipped
/// frames, it equals a fresh controller's that jumps to the same time in one update.
#[test]
fn the_prepared_pose_does_not_depend_on_how_playback_got_there() {
    let mut gte = Gte::new();
    let mut checked = 0;
    with_clips(|name, clip| {
        let bones = clip.joint_count().max(1);
        let mut words = vec![0u32; PreparedClip::words_needed(&clip)];
        let prepared = PreparedClip::new(clip, &mut words).unwrap();
        let (parents, bind) = chain(bones);
        let skeleton = Skeleton::new(&parents, &bind).unwrap();
        let scale = TimeScale::from_rates(60, 50);
        let mut stepped = SkeletonController::<BONES>::new(skeleton).unwrap();
        stepped.set_time_scale(scale);
        stepped.play(prepared, true).unwrap();
        let (mut a, mut b) = (vec![Matrix::IDENTITY; bones], vec![Matrix::IDENTITY; bones]);
        let mut total = 0;
        for d in [1, 2, 1, 3, 1].iter().cycle().take(3 * clip.length() as usize) {
            stepped.advance(*d);
            total += d;
            stepped.evaluate(&mut gte, &mut a);
            let mut jumped = SkeletonController::<BONES>::new(skeleton).unwrap();
            jumped.set_time_scale(scale);
            jumped.play(prepared, true).unwrap();
            jumped.advance(total);
            assert_eq!(jumped.time(), stepped.time());
            jumped.evaluate(&mut gte, &mut b);
            assert_eq!(a, b, "{name} {:?} after {total} vsyncs", clip.name());
            checked += 1;
        }
    });
    assert!(checked > 0);
}

/// A translation beyond `i16` (which `PoseQ14` cannot hold) composes the prepared pose bone by bone:
/// the bones the chain could compose come out as the chain composes them, bit for bit, and the wide
/// bone and its child carry their translations in full.
#[test]
fn a_translation_beyond_i16_composes_bone_by_bone_like_the_chain() {
    use psxanim_runtime::math::Vec3i32;
    let (scene, _) = scenario::scene().unwrap();
    let swing = scene.find(b"swing").unwrap();
    let mut words = vec![0u32; PreparedClip::words_needed(&swing)];
    let prepared = PreparedClip::new(swing, &mut words).unwrap();
    let joints = swing.joint_count();
    let (parents, bind) = chain(joints);
    let narrow = Skeleton::new(&parents, &bind).unwrap();
    // The same bones, then a root far away and its child.
    let (mut far_parents, mut far_bind) = (parents.clone(), bind.clone());
    far_parents.extend([ROOT, joints as u8]);
    far_bind.push(LocalTransform::new(Default::default(), Vec3i32::new(0, 100_000, -70_000)));
    far_bind.push(LocalTransform::new(Default::default(), Vec3i32::new(0, -1024, 0)));
    let wide = Skeleton::new(&far_parents, &far_bind).unwrap();
    let mut gte = Gte::new();
    let (mut a, mut b) = (vec![Matrix::IDENTITY; joints], vec![Matrix::IDENTITY; joints + 2]);
    let mut chained = SkeletonController::<BONES>::new(narrow).unwrap();
    let mut each = SkeletonController::<BONES>::new(wide).unwrap();
    chained.play(prepared, true).unwrap();
    each.play(prepared, true).unwrap();
    for _ in 0..2 * swing.length() {
        chained.advance(1);
        each.advance(1);
        chained.evaluate(&mut gte, &mut a);
        each.evaluate(&mut gte, &mut b);
        assert_eq!(a[..], b[..joints]);
        assert_eq!(b[joints], Matrix::new(Matrix::IDENTITY.rotation, Vec3i32::new(0, 100_000, -70_000)));
        assert_eq!(b[joints + 1], Matrix::new(Matrix::IDENTITY.rotation, Vec3i32::new(0, 98_976, -70_000)));
    }
}
