//! Crossfades and events of imported characters, through the Animator (the player's per-instance
//! handle) into the renderers: a rigid crossfade blends bone poses along the shorter arc, also past
//! 90 and 180 degrees; a baked one blends decoded positions; events fire when crossed.

use psxanim_runtime::anim::{Animator, Fade, FrameSample, PoseSample, Sampling};
use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::math::{Matrix, IDENTITY_ROTATION};
use psxanim_runtime::render::{self, Outcome, Scratch};
use psxanim_runtime::tables::{Tables, CLIP_SIZE};

mod render_support;
use render_support::{blob, camera, two_squares_blob, BoneDef, RigidClip};

struct Keep;
impl render::TriangleSink for Keep {
    fn add(&mut self, _: &render::DrawnTriangle) -> bool {
        true
    }
}

fn gte() -> Gte<GteModel> {
    Gte::with_backend(GteModel::default())
}

/// Two clips of 9 samples at 30 Hz: the root bone turned `from` (clip 0) and `to` (clip 1) degrees
/// about Y (within +-180: the fixture's encoder stores the quaternion with a positive w).
fn turned(from: f64, to: f64) -> Vec<u8> {
    two_squares_blob(&[
        RigidClip { frames: 9, poses: vec![(from, [0, 0, 0]), (0.0, [0, 0, 0])] },
        RigidClip { frames: 9, poses: vec![(to, [0, 0, 0]), (0.0, [0, 0, 0])] },
    ])
}

/// `a - b` in degrees, wrapped to -180..180.
fn angle_diff(a: f64, b: f64) -> f64 {
    (a - b + 540.0).rem_euclid(360.0) - 180.0
}

/// The root bone's model-view rotation when `a` is drawn.
fn root_rotation(t: &Tables, a: &Animator, scratch: &mut Scratch) -> [[i16; 3]; 3] {
    let world = Matrix::new(IDENTITY_ROTATION, Default::default());
    let cam = camera();
    let mut g = gte();
    cam.load(&mut g);
    let out = render::render_animated(&mut g, t, None, &cam, &world, a, scratch, &mut Keep, &mut |_| {}).unwrap();
    assert!(matches!(out, Outcome::Drawn(_)));
    scratch.matrices[0].rotation
}

/// The angle about Y of a rotation matrix, in degrees.
fn yaw(r: &[[i16; 3]; 3]) -> f64 {
    (r[0][2] as f64).atan2(r[0][0] as f64).to_degrees()
}

#[test]
fn a_rigid_crossfade_turns_the_short_way_past_90_and_180_degrees() {
    // (from, to, the short way): 170 degrees apart (a quaternion arc of 85); +100 to -100, whose
    // quaternions lie in opposite hemispheres, the short way through 180; -80 to +90.
    for (from, to, short) in [(0.0, 170.0, 170.0), (100.0, -100.0, 160.0), (-80.0, 90.0, 170.0)] {
        let b = turned(from, to);
        let t = Tables::parse(&b).unwrap();
        let mut scratch = Box::<Scratch>::new(Scratch::new());
        let mut a = Animator::new(60, Sampling::Step);
        a.play(&t, 0, true).unwrap();
        a.update(2);
        a.crossfade(&t, 1, true, 4).unwrap();
        let start = yaw(&root_rotation(&t, &a, &mut scratch));
        assert!(angle_diff(start, from).abs() < 0.1, "weight 0 shows the outgoing pose: {start}");
        for step in 1..4 {
            // 30 Hz clip on a 60 Hz screen: one sample per two vsyncs, a quarter of the fade.
            a.update(2);
            let pose = a.pose().unwrap();
            assert_eq!(pose.fade.map(|f| f.weight), Some(1024 * step as u16));
            let got = yaw(&root_rotation(&t, &a, &mut scratch));
            let want = from + short * step as f64 / 4.0;
            assert!(angle_diff(got, want).abs() < 0.25, "{from} -> {to}, step {step}: {got} vs {want}");
        }
        a.update(2);
        assert!(!a.fading());
        let end = yaw(&root_rotation(&t, &a, &mut scratch));
        assert!(angle_diff(end, to).abs() < 0.1, "{end} vs {to}");
    }
}

#[test]
fn a_rigid_crossfade_ignores_the_pose_cache_and_blends_decoded_samples() {
    use psxanim_runtime::gte::PackedMatrix;
    use psxanim_runtime::render::PoseCache;
    let b = turned(0.0, 120.0);
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let mut buffer = vec![PackedMatrix::default(); render::pose_cache::entries_needed(&t).unwrap()];
    let cache = PoseCache::build(&mut gte(), &t, &mut buffer, &mut scratch, &mut || {}).unwrap();
    let world = Matrix::new(IDENTITY_ROTATION, Default::default());
    let cam = camera();
    let pose = PoseSample {
        current: FrameSample { clip: 1, frame: 2, next: 2, weight: 0 },
        fade: Some(Fade { from: FrameSample { clip: 0, frame: 4, next: 4, weight: 0 }, weight: 2048 }),
    };
    let mut sxy = Vec::new();
    for poses in [None, Some(&cache)] {
        let mut g = gte();
        cam.load(&mut g);
        render::render_pose(&mut g, &t, poses, &cam, &world, Some(pose), &mut scratch, &mut Keep, &mut |_| {}).unwrap();
        assert!((yaw(&scratch.matrices[0].rotation) - 60.0).abs() < 0.25);
        sxy.push(scratch.sxy[..8].to_vec());
    }
    assert_eq!(sxy[0], sxy[1]);
}

#[test]
fn a_baked_crossfade_blends_the_two_frames_positions() {
    let bind = vec![[0i16, 0, 0], [100, 0, 0], [0, 100, 0]];
    let frames: Vec<(Vec<[i16; 3]>, bool)> = (0..5i16).map(|f| (vec![[16 * f, 0, 0], [100, 32 * f, 0], [0, 100, -48 * f]], false)).collect();
    let b = blob(&[BoneDef { parent: None, vertices: bind }], &[[0, 1, 2, 0]], &[[1, 1, 1]], &[], &frames);
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Step);
    a.play(&t, 0, false).unwrap();
    a.update(4); // sample 2
    a.crossfade(&t, 0, false, 4).unwrap();
    a.update(2); // outgoing at sample 3, incoming at 1, a quarter of the way
    let pose = a.pose().unwrap();
    assert_eq!((pose.current.frame, pose.fade.unwrap().from.frame, pose.fade.unwrap().weight), (1, 3, 1024));
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let mut g = gte();
    let cam = camera();
    cam.load(&mut g);
    let world = Matrix::new(IDENTITY_ROTATION, Default::default());
    render::render_animated(&mut g, &t, None, &cam, &world, &a, &mut scratch, &mut Keep, &mut |_| {}).unwrap();
    // from + (to - from) / 4, floored: x 48 -> 16 is 40; y 96 -> 32 is 80; z -144 -> -48 is -120.
    assert_eq!(scratch.positions[..3], [[40, 0, 0], [100, 80, 0], [0, 100, -120]]);
}

/// `b` with events (frame, string offset) for clip `clip`, appended, and the header's size updated.
fn with_events(mut b: Vec<u8>, clip: usize, events: &[(u16, u16)]) -> Vec<u8> {
    let clips = u32::from_le_bytes(b[56..60].try_into().unwrap()) as usize;
    let entry = clips + clip * CLIP_SIZE;
    let at = b.len();
    for (frame, name) in events {
        b.extend_from_slice(&frame.to_le_bytes());
        b.extend_from_slice(&name.to_le_bytes());
    }
    b[entry + 6..entry + 8].copy_from_slice(&(events.len() as u16).to_le_bytes());
    b[entry + 16..entry + 20].copy_from_slice(&(at as u32).to_le_bytes());
    let total = b.len() as u32;
    b[32..36].copy_from_slice(&total.to_le_bytes());
    b
}

#[test]
fn events_fire_when_crossed_across_wraps_and_only_for_the_incoming_clip() {
    // Clip 0 (9 samples, a pass of 8): "b" at 6, "c" at 0. Clip 1: "b" at 2. Names: "b" at 0, "c" at 2.
    let b = with_events(with_events(turned(0.0, 30.0), 0, &[(6, 0), (0, 2)]), 1, &[(2, 0)]);
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Step);
    a.play(&t, 0, true).unwrap();
    let mut seen = Vec::new();
    let run = |a: &mut Animator, vsyncs: u32, seen: &mut Vec<(u32, &'static str, u16)>, step: u32| {
        a.update_events(vsyncs, &t, &mut |e| {
            let name = if e.name == b"b" { "b" } else { "c" };
            seen.push((step, name, e.frame));
        })
    };
    for step in 0..10 {
        run(&mut a, 2, &mut seen, step);
    }
    // One sample per update: frame 0 on the first, 6 on the seventh; the eighth ends on the wrap
    // point, so frame 0 of the next pass is crossed by the ninth.
    assert_eq!(seen, [(0, "c", 0), (6, "b", 6), (8, "c", 0)]);
    seen.clear();
    // A long delta (3 whole passes and 2 samples) reports each event once per pass kind.
    run(&mut a, 2 * 26, &mut seen, 10);
    assert_eq!(seen, [(10, "b", 6), (10, "c", 0), (10, "b", 6), (10, "c", 0)]);
    seen.clear();
    a.crossfade(&t, 1, true, 4).unwrap();
    for step in 11..16 {
        run(&mut a, 2, &mut seen, step);
    }
    // The outgoing clip passes its frame 6 during the fade: not reported.
    assert_eq!(seen, [(13, "b", 2)]);
}
