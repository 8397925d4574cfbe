//! SkeletonController behaviour: wrap, hold, markers, crossfade, time base, interpolation accuracy,
//! translation, pose composition.
mod animbin_support;

use animbin_support::*;
use psxanim_runtime::anim::{
    LocalTransform, MarkerEvent, PlayError, Skeleton, SkeletonController, SkeletonError, TimeScale, ROOT,
};
use psxanim_runtime::animbin::AnimationManager;
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::{Matrix, Quat, Vec3i32};

const BONES: usize = 4;
const PARENTS: [u8; BONES] = [ROOT, 0, 1, 1];

fn bind() -> [LocalTransform; BONES] {
    let t = |x| Vec3i32::new(x, 0, 0);
    [
        LocalTransform::new(Quat::IDENTITY, t(0)),
        LocalTransform::new(Quat::IDENTITY, t(4096)),
        LocalTransform::new(Quat::new(2896, 0, 2896, 0), t(8192)),
        LocalTransform::new(Quat::IDENTITY, t(-4096)),
    ]
}

/// FP12 quaternion of a rotation of `deg` degrees about the unit axis `axis`.
fn axis_angle(axis: [f64; 3], deg: f64) -> [i16; 4] {
    let h = deg.to_radians() / 2.0;
    let s = h.sin();
    let c = |v: f64| (v * 4096.0).round() as i16;
    [c(h.cos()), c(axis[0] * s), c(axis[1] * s), c(axis[2] * s)]
}

fn f64q(q: [i16; 4]) -> [f64; 4] {
    let v = q.map(|c| c as f64);
    let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    v.map(|c| c / n)
}

fn slerp_f64(a: [f64; 4], b: [f64; 4], t: f64) -> [f64; 4] {
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    let b = if d < 0.0 {
        d = -d;
        b.map(|c| -c)
    } else {
        b
    };
    let th = d.min(1.0).acos();
    if th < 1e-9 {
        return a;
    }
    let (wa, wb) = (((1.0 - t) * th).sin() / th.sin(), (t * th).sin() / th.sin());
    [0, 1, 2, 3].map(|i| wa * a[i] + wb * b[i])
}

/// Largest component difference in FP12 LSB, sign-insensitive (q and -q are one rotation).
fn lsb_error(got: Quat, want: [f64; 4]) -> f64 {
    let g = [got.w, got.x, got.y, got.z].map(|c| c as f64 / 4096.0);
    let err = |s: f64| (0..4).map(|i| (g[i] - s * want[i]).abs()).fold(0.0, f64::max) * 4096.0;
    err(1.0).min(err(-1.0))
}

struct Fixture {
    bytes: Vec<u8>,
    bind: [LocalTransform; BONES],
}

impl Fixture {
    fn new(f: FileB) -> Fixture {
        Fixture { bytes: f.to_bytes(), bind: bind() }
    }
    fn manager(&self) -> AnimationManager<'_> {
        AnimationManager::parse(&self.bytes, BONES).unwrap()
    }
    fn controller(&self) -> SkeletonController<'_, BONES> {
        SkeletonController::new(Skeleton::new(&PARENTS, &self.bind).unwrap()).unwrap()
    }
}

const Q90X: [i16; 4] = [2896, 2896, 0, 0];

/// Clip 0 "loop": length 10, looping, joint 1 rotates identity (frame 0) -> 90 degrees about X
/// (frame 5); markers at 8, 0, 3, 8 (file order). Clip 1 "once": length 6, joint 1 translation
/// keys and joint 2 rotation keys.
fn two_clips() -> FileB {
    let mut looping = clip("loop", true, 10, vec![track(1, vec![rot(0, IDENTITY), rot(5, Q90X)])]);
    looping.markers = vec![(name("land"), 8), (name("start"), 0), (name("lift"), 3), (name("land2"), 8)];
    let once = clip(
        "once",
        false,
        6,
        vec![
            track(1, vec![trans(0, [0, 0, 0]), trans(4, [4096 * 4, -400, 1 << 24])]),
            track(2, vec![rot(0, IDENTITY), rot(2, axis_angle([0.0, 0.0, 1.0], 40.0))]),
        ],
    );
    FileB::new(vec![looping, once])
}

fn collect(c: &mut SkeletonController<'_, BONES>, vsyncs: u32) -> Vec<(u16, Vec<u8>)> {
    let mut seen = vec![];
    c.update(vsyncs, |e: MarkerEvent<'_>| seen.push((e.frame, e.name.to_vec())));
    seen
}

#[test]
fn looping_clip_wraps_without_overshoot_and_interpolates_across_the_wrap() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(0).unwrap(), true).unwrap();
    let mut expected = 0u32;
    for step in [3, 3, 3, 3, 1, 7, 10, 23] {
        c.advance(step);
        expected = (expected + step * 4096) % (10 * 4096);
        assert_eq!(c.time(), expected);
        assert!(c.time() < 10 * 4096);
    }
    // Frame 7.5 lies between the key at 5 (90 degrees) and the first key again at 10: halfway.
    c.play(m.clip(0).unwrap(), true).unwrap();
    c.set_time_scale(TimeScale::from_ratio(1, 2));
    c.advance(15);
    assert_eq!(c.time(), 7 * 4096 + 2048);
    let half = slerp_f64(f64q(Q90X), f64q(IDENTITY), 0.5);
    assert!(lsb_error(c.local(1).rotation, half) <= 1.5);
    // Bones without a track keep their bind pose.
    assert_eq!(c.local(2), fx.bind[2]);
}

#[test]
fn non_looping_clip_holds_its_last_frame() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(1).unwrap(), false).unwrap();
    c.advance(5);
    assert!(!c.finished());
    let at_last = (c.local(1), c.local(2));
    c.advance(1);
    assert!(c.finished());
    assert_eq!(c.time(), 6 * 4096);
    c.advance(1000);
    assert_eq!(c.time(), 6 * 4096);
    assert_eq!((c.local(1), c.local(2)), at_last);
    assert_eq!(c.local(1).translation, Vec3i32::new(4096 * 4, -400, 1 << 24));
}

#[test]
fn translation_keys_are_interpolated() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(1).unwrap(), false).unwrap();
    c.advance(1);
    // A quarter of the way from the key at 0 to the key at 4.
    assert_eq!(c.local(1).translation, Vec3i32::new(4096, -100, 1 << 22));
    c.advance(2);
    assert_eq!(c.local(1).translation, Vec3i32::new(4096 * 3, -300, 3 << 22));
}

#[test]
fn markers_are_reported_in_order_across_wraps_and_several_per_update() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(0).unwrap(), true).unwrap();
    let n = |s: &str| s.as_bytes().to_vec();
    assert_eq!(collect(&mut c, 4), vec![(0, n("start")), (3, n("lift"))]);
    assert_eq!(collect(&mut c, 3), vec![]);
    // 7 -> 13: land and land2 (same frame, file order), wrap, start again.
    assert_eq!(collect(&mut c, 6), vec![(8, n("land")), (8, n("land2")), (0, n("start"))]);
    assert_eq!(c.time(), 3 * 4096);
    // 3 -> 3 + 25: the current pass from lift on, one report for the whole loop skipped, then 0..8.
    let seen = collect(&mut c, 25);
    let frames: Vec<u16> = seen.iter().map(|s| s.0).collect();
    assert_eq!(frames, vec![3, 8, 8, 0, 3, 8, 8, 0, 3]);
    assert_eq!(c.time(), 8 * 4096);
    // The marker at the exact end time is not yet crossed; the next update reports it.
    assert_eq!(collect(&mut c, 1), vec![(8, n("land")), (8, n("land2"))]);
}

#[test]
fn pal_and_ntsc_play_at_the_same_speed_with_identical_poses() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut pal = fx.controller();
    let mut ntsc = fx.controller();
    pal.set_time_scale(TimeScale::from_rates(60, 50));
    ntsc.set_time_scale(TimeScale::from_rates(60, 60));
    pal.play(m.clip(0).unwrap(), true).unwrap();
    ntsc.play(m.clip(0).unwrap(), true).unwrap();
    let (mut pal_markers, mut ntsc_markers) = (0, 0);
    for _second in 0..3 {
        for _ in 0..50 {
            pal.update(1, |_| pal_markers += 1);
        }
        for _ in 0..60 {
            ntsc.update(1, |_| ntsc_markers += 1);
        }
        assert_eq!(pal.time(), ntsc.time());
        let mut gte = Gte::new();
        let (mut a, mut b) = ([Matrix::IDENTITY; BONES], [Matrix::IDENTITY; BONES]);
        pal.evaluate(&mut gte, &mut a);
        ntsc.evaluate(&mut gte, &mut b);
        assert_eq!(a, b);
    }
    // 180 clip frames = 18 loops of 4 markers.
    assert_eq!((pal_markers, ntsc_markers), (72, 72));
}

#[test]
fn crossfade_starts_at_the_outgoing_pose_and_ends_at_the_incoming_one() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    let mut reference = fx.controller();
    c.play(m.clip(0).unwrap(), true).unwrap();
    c.advance(2);
    let before: Vec<_> = (0..BONES).map(|b| c.local(b)).collect();
    c.crossfade(m.clip(1).unwrap(), false, 4).unwrap();
    assert!(c.fading());
    let at_start: Vec<_> = (0..BONES).map(|b| c.local(b)).collect();
    assert_eq!(at_start, before);
    reference.play(m.clip(1).unwrap(), false).unwrap();
    c.advance(2);
    reference.advance(2);
    assert!(c.fading());
    let mid = c.local(1);
    assert_ne!(mid, reference.local(1));
    // Halfway: translation is the average of the outgoing (bind) and incoming values.
    let incoming = reference.local(1).translation;
    assert_eq!(mid.translation.x, (fx.bind[1].translation.x + incoming.x) / 2);
    c.advance(2);
    reference.advance(2);
    assert!(!c.fading());
    let (mut gte, mut a, mut b) = (Gte::new(), [Matrix::IDENTITY; BONES], [Matrix::IDENTITY; BONES]);
    c.evaluate(&mut gte, &mut a);
    reference.evaluate(&mut gte, &mut b);
    assert_eq!(a, b);
}

/// One joint, keys `steps` degrees apart about a tilted axis, sampled every 1/16 frame.
fn max_error_over_steps(steps: &[f64]) -> f64 {
    let axis = [0.48, -0.6, 0.64];
    let mut angle = 0.0;
    let mut keys = vec![rot(0, axis_angle(axis, 0.0))];
    for (i, s) in steps.iter().enumerate() {
        angle += s;
        keys.push(rot(i as u16 + 1, axis_angle(axis, angle)));
    }
    let raw: Vec<[i16; 4]> = keys
        .iter()
        .map(|k| match k.payload {
            Payload::Rotation(q) => q,
            _ => unreachable!(),
        })
        .collect();
    let fx = Fixture::new(FileB::new(vec![clip("steps", false, steps.len() as u16 + 1, vec![track(0, keys)])]));
    let m = fx.manager();
    let mut c = fx.controller();
    c.set_time_scale(TimeScale::from_ratio(1, 16));
    c.play(m.clip(0).unwrap(), false).unwrap();
    let mut worst: f64 = 0.0;
    for i in 0..steps.len() * 16 {
        let (k, t) = (i / 16, (i % 16) as f64 / 16.0);
        let want = slerp_f64(f64q(raw[k]), f64q(raw[k + 1]), t);
        worst = worst.max(lsb_error(c.local(0).rotation, want));
        c.advance(1);
    }
    worst
}

#[test]
fn interpolation_error_against_f64_slerp() {
    // Close keys (nlerp) and wide steps up to 170 degrees (subdivision), including >90 degrees.
    let small = max_error_over_steps(&[2.0, 5.0, 10.0, 20.0, 29.0]);
    let large = max_error_over_steps(&[31.0, 45.0, 95.0, 135.0, 170.0]);
    assert!(small <= 2.0, "nlerp error {small} LSB");
    assert!(large <= 2.0, "slerp error {large} LSB");
    eprintln!("max error vs f64 slerp: close keys {small:.3} LSB, wide steps {large:.3} LSB");
}

#[test]
fn shortest_path_is_taken_when_keys_are_in_opposite_hemispheres() {
    let q = axis_angle([0.0, 1.0, 0.0], 20.0);
    let neg = q.map(|c| -c);
    let fx = Fixture::new(FileB::new(vec![clip("hemi", false, 3, vec![track(0, vec![rot(0, IDENTITY), rot(2, neg)])])]));
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(0).unwrap(), false).unwrap();
    c.advance(1);
    let want = slerp_f64(f64q(IDENTITY), f64q(q), 0.5); // 10 degrees, not 170
    assert!(lsb_error(c.local(0).rotation, want) <= 1.5);
}

#[test]
fn a_looping_clip_before_its_first_key_comes_from_its_last_key() {
    let a = axis_angle([1.0, 0.0, 0.0], 10.0);
    let b = axis_angle([1.0, 0.0, 0.0], 30.0);
    let fx = Fixture::new(FileB::new(vec![clip("late", true, 10, vec![track(0, vec![rot(2, a), rot(6, b)])])]));
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(0).unwrap(), true).unwrap();
    // Frame 0 is 4/6 of the way from the key at 6 (as -4) to the key at 2.
    let want = slerp_f64(f64q(b), f64q(a), 4.0 / 6.0);
    assert!(lsb_error(c.local(0).rotation, want) <= 1.5);
    // Frame 9 is 3/6 of the way from the key at 6 to the key at 2 (as 12).
    c.advance(9);
    assert!(lsb_error(c.local(0).rotation, slerp_f64(f64q(b), f64q(a), 0.5)) <= 1.5);
    c.advance(3);
    assert!(lsb_error(c.local(0).rotation, f64q(a)) <= 0.75);
    c.play(m.clip(0).unwrap(), false).unwrap();
    assert!(lsb_error(c.local(0).rotation, f64q(a)) <= 0.75);
}

#[test]
fn pose_composes_parent_first_like_matrix_mul() {
    let fx = Fixture::new(two_clips());
    let m = fx.manager();
    let mut c = fx.controller();
    c.play(m.clip(1).unwrap(), false).unwrap();
    c.advance(3);
    let mut out = [Matrix::IDENTITY; BONES];
    c.evaluate(&mut Gte::new(), &mut out);
    for bone in 0..BONES {
        let local = c.local(bone).to_matrix();
        let want = match PARENTS[bone] {
            ROOT => local,
            p => out[p as usize].mul(&local),
        };
        assert_eq!(out[bone], want, "bone {bone}");
    }
    assert_ne!(out[2], out[3]);
    // A rotation of bone 1 moves its children.
    assert_eq!(out[3].translation, out[1].mul(&fx.bind[3].to_matrix()).translation);
}

#[test]
fn skeleton_and_clip_mismatches_are_errors() {
    let fx = Fixture::new(two_clips());
    let bind = bind();
    assert_eq!(
        Skeleton::new(&[ROOT, 1], &bind[..2]).unwrap_err(),
        SkeletonError::ParentNotBefore { bone: 1, parent: 1 }
    );
    assert_eq!(
        Skeleton::new(&PARENTS, &bind[..3]).unwrap_err(),
        SkeletonError::LengthMismatch { parents: 4, bind: 3 }
    );
    let mut bad = bind;
    bad[2].rotation = Quat::new(4096, 4096, 0, 0);
    assert_eq!(Skeleton::new(&PARENTS, &bad).unwrap_err(), SkeletonError::NotUnit { bone: 2 });
    let skeleton = Skeleton::new(&PARENTS, &bind).unwrap();
    assert_eq!(
        SkeletonController::<2>::new(skeleton).err(),
        Some(PlayError::SkeletonTooLarge { bones: 4, capacity: 2 })
    );
    let small = Skeleton::new(&PARENTS[..2], &bind[..2]).unwrap();
    let m = fx.manager();
    let mut c = SkeletonController::<BONES>::new(small).unwrap();
    assert_eq!(m.clip(0).unwrap().joint_count(), 2);
    c.play(m.clip(0).unwrap(), true).unwrap();
    assert_eq!(
        c.play(m.clip(1).unwrap(), true),
        Err(PlayError::SkeletonMismatch { clip_joints: 3, skeleton_bones: 2 })
    );
}
