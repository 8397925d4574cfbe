//! Compiled clips: bit-identical to the ANIMBIN path at whole frames (whatever the history of
//! updates), frame hold between frames, crossfades, markers, and every blob error with its offset.
#[path = "../../examples/anim/src/scenario.rs"]
#[allow(dead_code)]
mod scenario;

use proptest::prelude::*;
use psxanim_runtime::anim::{LocalTransform, PlayError, Skeleton, SkeletonController, TimeScale, ROOT};
use psxanim_runtime::animbin::{AnimationManager, Clip};
use psxanim_runtime::clipbin::{self, ClipBin, ErrorKind};
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::{Matrix, Quat, Vec3i32};
use scenario::{Label, Probe};

const BONES: usize = scenario::SCENE_BONES;

/// Compiles `clips` into a word-aligned buffer (or, with `shift`, one byte past alignment).
fn compile(skeleton: Skeleton<'_>, clips: &[Clip<'_>], shift: usize) -> (Vec<u32>, usize) {
    let size = clipbin::compiled_size(skeleton.len(), clips);
    let mut words = vec![0u32; size / 4 + 2];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    let written = clipbin::compile::<_, BONES>(&mut Gte::new(), skeleton, clips, &mut bytes[shift..]).unwrap();
    assert_eq!(written, size);
    (words, size)
}

fn bytes_of(words: &[u32]) -> &[u8] {
    bytemuck::cast_slice(words)
}

/// The scene: ANIMBIN manager, skeleton, and its compiled blob (aligned).
struct Scene {
    manager: AnimationManager<'static>,
    skeleton: Skeleton<'static>,
    blob: Vec<u32>,
    size: usize,
}

fn scene() -> Scene {
    let (manager, skeleton) = scenario::scene().unwrap();
    let clips: Vec<Clip<'_>> = manager.clips().collect();
    let (blob, size) = compile(skeleton, &clips, 0);
    Scene { manager, skeleton, blob, size }
}

fn pose(c: &mut SkeletonController<'_, BONES>) -> [Matrix; BONES] {
    let mut out = [Matrix::IDENTITY; BONES];
    c.evaluate(&mut Gte::new(), &mut out);
    out
}

/// Plays clip `index` both ways with the same vsync deltas and time scale; at every whole-frame time
/// the poses and markers must be equal. Returns how many whole-frame times were compared.
fn compare_playback(s: &Scene, index: usize, scale: TimeScale, deltas: &[u32]) -> usize {
    let bin = ClipBin::parse(&bytes_of(&s.blob)[..s.size], &s.skeleton).unwrap();
    let (clip, compiled) = (s.manager.clip(index).unwrap(), bin.clip(index).unwrap());
    let mut keys = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    let mut table = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    keys.play(clip, clip.looping()).unwrap();
    table.play(compiled, clip.looping()).unwrap();
    keys.set_time_scale(scale);
    table.set_time_scale(scale);
    let mut compared = 0;
    for &d in deltas {
        let (mut mk, mut mt) = (Vec::new(), Vec::new());
        keys.update(d, |e| mk.push((e.index, e.name.to_vec(), e.frame)));
        table.update(d, |e| mt.push((e.index, e.name.to_vec(), e.frame)));
        assert_eq!(mk, mt, "markers differ");
        assert_eq!(keys.time(), table.time());
        let frame = keys.time() / 4096;
        if keys.time().is_multiple_of(4096) {
            assert_eq!(pose(&mut keys), pose(&mut table), "clip {index} frame {frame}");
            compared += 1;
        } else {
            // Between frames the compiled clip holds floor(time).
            let mut at_frame = SkeletonController::<BONES>::new(s.skeleton).unwrap();
            at_frame.play(clip, clip.looping()).unwrap();
            at_frame.advance(frame);
            assert_eq!(pose(&mut at_frame), pose(&mut table), "clip {index} held frame {frame}");
        }
    }
    compared
}

#[test]
fn compiled_frames_equal_animbin_at_whole_frames_in_order_and_with_jumps() {
    let s = scene();
    for index in 0..2 {
        let ones = vec![1; 40];
        assert_eq!(compare_playback(&s, index, TimeScale::NATIVE, &ones), 40);
        // Dropped frames, jumps over the end and whole loops: every history reaches the same bits.
        let jumps = [1, 1, 2, 1, 3, 7, 11, 25, 1, 13, 5, 2, 2, 40];
        assert_eq!(compare_playback(&s, index, TimeScale::NATIVE, &jumps), jumps.len());
        // PAL (6/5 frames per vsync): whole frames every fifth vsync, held frames in between.
        assert!(compare_playback(&s, index, TimeScale::from_rates(60, 50), &[1; 60]) >= 12);
    }
}

#[test]
fn crossfades_mix_sources_and_match_animbin_at_whole_frames() {
    let s = scene();
    let bin = ClipBin::parse(&bytes_of(&s.blob)[..s.size], &s.skeleton).unwrap();
    let (swing, wave) = (s.manager.find(b"swing").unwrap(), s.manager.find(b"wave").unwrap());
    let (cswing, cwave) = (bin.find(b"swing").unwrap(), bin.find(b"wave").unwrap());
    let mut keys = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    let mut table = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    let mut mixed = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    keys.play(swing, true).unwrap();
    table.play(cswing, true).unwrap();
    mixed.play(swing, true).unwrap();
    for c in [&mut keys, &mut table, &mut mixed] {
        c.advance(5);
    }
    keys.crossfade(wave, false, 6).unwrap();
    table.crossfade(cwave, false, 6).unwrap();
    mixed.crossfade(cwave, false, 6).unwrap();
    let mut faded = 0;
    for step in 0..10 {
        for c in [&mut keys, &mut table, &mut mixed] {
            c.advance(1);
        }
        faded += keys.fading() as u32;
        let expected = pose(&mut keys);
        assert_eq!(pose(&mut table), expected, "step {step}");
        assert_eq!(pose(&mut mixed), expected, "step {step}");
        for bone in 0..BONES {
            assert_eq!(table.local(bone), keys.local(bone));
        }
    }
    assert_eq!(faded, 5, "the blend ran through the compared steps");
}

#[test]
fn the_scenario_words_agree_between_paths_at_whole_frames() {
    #[derive(Default)]
    struct Words(Vec<(Label, u32)>);
    impl Probe for Words {
        fn word(&mut self, l: Label, v: u32) {
            self.0.push((l, v));
        }
        fn timing(&mut self, _: usize, _: bool) {}
    }
    let mut gte = Gte::new();
    let mut w = Words::default();
    scenario::run(&mut gte, &mut w);
    let mut buffer = vec![0u8; scenario::COMPILE_BUFFER_BYTES];
    scenario::run_compiled(&mut gte, &mut w, &mut buffer);
    let get = |what: &str, step: u32| -> Vec<u32> {
        w.0.iter().filter(|(l, _)| l.what == what && l.step == step).map(|(_, v)| *v).collect()
    };
    let size = get("c.size", 0);
    assert!(size[0] > 0);
    // The blob was checked against another skeleton: refused at the bone count's offset... or the
    // hash's when the counts agree (they do here: both have 6 bones).
    assert_eq!((get("c.error.code", 0), get("c.error.offset", 0)), (vec![5], vec![16]));
    let (mut same, mut held) = (0, 0);
    for step in 0..44 {
        let time = get("time", step);
        if time.is_empty() {
            continue;
        }
        assert_eq!(time, get("c.time", step));
        assert_eq!(get("markers", step), get("c.markers", step));
        let whole = time[0] % 4096 == 0;
        if whole {
            assert_eq!(get("pose", step), get("c.pose", step), "step {step}");
            same += 1;
        } else if get("pose", step) != get("c.pose", step) {
            held += 1;
        }
    }
    assert!(same >= 18, "{same} steps compared");
    assert!(held >= 1, "PAL steps between frames show the held frame");
}

#[test]
fn a_misaligned_blob_reads_the_same_poses() {
    let s = scene();
    let clips: Vec<Clip<'_>> = s.manager.clips().collect();
    let (shifted, size) = compile(s.skeleton, &clips, 1);
    let a = ClipBin::parse(&bytes_of(&s.blob)[..size], &s.skeleton).unwrap();
    let b = ClipBin::parse(&bytes_of(&shifted)[1..size + 1], &s.skeleton).unwrap();
    for index in 0..2 {
        let (ca, cb) = (a.clip(index).unwrap(), b.clip(index).unwrap());
        assert_eq!(ca.name(), cb.name());
        for frame in 0..ca.frames() + 2 {
            let (mut pa, mut pb) = ([Matrix::IDENTITY; BONES], [Matrix::IDENTITY; BONES]);
            ca.write_pose(frame, &mut pa);
            cb.write_pose(frame, &mut pb);
            assert_eq!(pa, pb);
            assert_ne!(pa[1], Matrix::IDENTITY);
            // In place only when aligned.
            assert_eq!(ca.pose(frame), Some(&pa[..]));
            assert_eq!(cb.pose(frame), None);
        }
        // The controller's borrowed pose: the table in place, or an evaluation into the scratch.
        let mut scratch = [Matrix::IDENTITY; BONES];
        let looping = ca.looping();
        for (clip, in_place) in [(ca, true), (cb, false)] {
            let mut c = SkeletonController::<BONES>::new(s.skeleton).unwrap();
            c.play(clip, looping).unwrap();
            c.advance(3);
            let expected = clip.pose(3).map(|p| p.as_ptr());
            let got = c.pose(&mut Gte::new(), &mut scratch);
            assert_eq!(got, &pose_at(&s, index, 3)[..]);
            assert_eq!(in_place, expected == Some(got.as_ptr()));
        }
    }
}

/// The ANIMBIN path's pose of clip `index` at `frame`.
fn pose_at(s: &Scene, index: usize, frame: u32) -> [Matrix; BONES] {
    let clip = s.manager.clip(index).unwrap();
    let mut c = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    c.play(clip, clip.looping()).unwrap();
    c.advance(frame);
    pose(&mut c)
}

#[test]
fn play_refuses_compiled_clips_of_another_skeleton_size_or_looping_flag() {
    let s = scene();
    let bin = ClipBin::parse(&bytes_of(&s.blob)[..s.size], &s.skeleton).unwrap();
    let swing = bin.find(b"swing").unwrap();
    assert!(swing.looping() && !bin.find(b"wave").unwrap().looping());
    let mut c = SkeletonController::<BONES>::new(s.skeleton).unwrap();
    assert_eq!(c.play(swing, false), Err(PlayError::CompiledLooping { compiled: true }));
    let parents = [ROOT, 0];
    let bind = [LocalTransform::IDENTITY; 2];
    let mut small = SkeletonController::<BONES>::new(Skeleton::new(&parents, &bind).unwrap()).unwrap();
    assert_eq!(small.play(swing, true), Err(PlayError::CompiledBones { clip_bones: 6, skeleton_bones: 2 }));
    assert_eq!(
        bin.find(b"swing").unwrap().marker(0),
        s.manager.find(b"swing").unwrap().marker(0).map(|m| (m.name, m.frame))
    );
}

fn error_of(bytes: &[u8], skeleton: &Skeleton<'_>) -> (u32, ErrorKind) {
    let e = ClipBin::parse(bytes, skeleton).err().expect("an error");
    (e.offset, e.kind)
}

#[test]
fn every_blob_error_names_its_offset() {
    let s = scene();
    let good = bytes_of(&s.blob)[..s.size].to_vec();
    let sk = &s.skeleton;
    let patched = |at: usize, b: &[u8]| {
        let mut v = good.clone();
        v[at..at + b.len()].copy_from_slice(b);
        v
    };
    assert_eq!(error_of(&good[..10], sk), (0, ErrorKind::Truncated { needed: 20, available: 10 }));
    assert_eq!(error_of(&patched(0, b"X"), sk), (0, ErrorKind::BadMagic));
    assert_eq!(error_of(&patched(8, &[2, 0]), sk), (8, ErrorKind::UnsupportedVersion { found: 2 }));
    assert_eq!(error_of(&patched(10, &[7, 0]), sk), (10, ErrorKind::BoneCount { found: 7, expected: 6 }));
    let mut bind = [LocalTransform::IDENTITY; BONES];
    bind.copy_from_slice(sk.bind());
    bind[3].translation = Vec3i32::new(1, 2, 3);
    let other = Skeleton::new(sk.parents(), &bind).unwrap();
    assert!(matches!(error_of(&good, &other), (16, ErrorKind::SkeletonHash { .. })));
    // Clip 1's entry starts at 20 + 48.
    let e1 = 20 + 48;
    assert_eq!(error_of(&patched(e1 + 32, &[0, 0]), sk), (e1 as u32 + 32, ErrorKind::ZeroFrames { clip: 1 }));
    let poses = u32::from_le_bytes(good[e1 + 40..e1 + 44].try_into().unwrap());
    assert_eq!(
        error_of(&patched(e1 + 40, &[2]), sk),
        (e1 as u32 + 40, ErrorKind::Misaligned { clip: 1, offset: poses & !0xFF | 2 })
    );
    assert_eq!(
        error_of(&patched(e1 + 32, &[0xFF, 0x7F]), sk).1,
        ErrorKind::Truncated { needed: 0x7FFF * 6 * 52, available: s.size as u32 - poses }
    );
    // The wave's marker at frame 9 moved to frame 10 (its length).
    let markers = u32::from_le_bytes(good[e1 + 44..e1 + 48].try_into().unwrap()) as usize;
    assert_eq!(
        error_of(&patched(markers + 32, &[10, 0]), sk),
        (markers as u32 + 32, ErrorKind::MarkerFrameOutOfRange { clip: 1, marker: 0, frame: 10, frames: 10 })
    );
    assert!(matches!(error_of(&good[..s.size - 1], sk), (_, ErrorKind::Truncated { .. })));
}

#[test]
fn unit_rotations_survive_the_local_table() {
    let s = scene();
    let bin = ClipBin::parse(&bytes_of(&s.blob)[..s.size], &s.skeleton).unwrap();
    let wave = bin.find(b"wave").unwrap();
    // Bone 0 is not animated by "wave": its stored local transform is the bind pose.
    assert_eq!(wave.local(3, 0), s.skeleton.bind()[0]);
    assert_eq!(wave.local(0, 99), LocalTransform::IDENTITY);
    let q: Quat = wave.local(4, 3).rotation;
    let n = q.dot(q);
    assert!((16_000_000..17_600_000).contains(&n), "{q:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    /// Corrupted blobs are either refused or read within bounds: never a panic.
    #[test]
    fn corrupted_blobs_never_panic(edits in prop::collection::vec((0usize..8000, any::<u8>()), 1..8), cut in 0usize..8000) {
        let s = scene();
        let mut bytes = bytes_of(&s.blob)[..s.size].to_vec();
        for (at, v) in edits {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        bytes.truncate(cut.max(1).min(bytes.len()));
        if let Ok(bin) = ClipBin::parse(&bytes, &s.skeleton) {
            for clip in (0..bin.len()).filter_map(|i| bin.clip(i)) {
                let mut c = SkeletonController::<BONES>::new(s.skeleton).unwrap();
                if c.play(clip, clip.looping()).is_ok() {
                    c.update(7, |_| {});
                    pose(&mut c);
                    let _ = clip.local(clip.frames(), 2);
                }
            }
        }
    }
}
