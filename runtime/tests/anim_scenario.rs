//! The anim example's scenario on the host: what the console must reproduce, checked for meaning
//! (errors reported, wraps, crossfade, holds) rather than only replayed.
#[path = "../../examples/anim/src/scenario.rs"]
#[allow(dead_code)]
mod scenario;

use psxanim_runtime::anim::{Skeleton, SkeletonController};
use psxanim_runtime::animbin::AnimationManager;
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::Matrix;
use scenario::{Label, Probe};

#[derive(Default)]
struct Collect {
    words: Vec<(Label, u32)>,
    timed: [u32; scenario::TIMED_SLOTS],
}

impl Probe for Collect {
    fn word(&mut self, label: Label, value: u32) {
        self.words.push((label, value));
    }
    fn timing(&mut self, slot: usize, start: bool) {
        if !start {
            self.timed[slot] += 1;
        }
    }
}

fn run() -> Collect {
    let mut c = Collect::default();
    let mut gte = Gte::new();
    scenario::run(&mut gte, &mut c);
    scenario::run_prepared(&mut gte, &mut c, &mut vec![0; scenario::PREPARED_WORDS]);
    c
}

fn values(c: &Collect, what: &str) -> Vec<(u32, u32)> {
    c.words.iter().filter(|(l, _)| l.what == what).map(|(l, v)| (l.step, *v)).collect()
}

#[test]
fn malformed_files_are_reported_as_error_words() {
    let c = run();
    // Unknown key type 7 at offset 57; a file cut at 100 bytes ends right before the second key of track 1.
    assert_eq!(values(&c, "error.code"), vec![(0, 12), (1, 1)]);
    assert_eq!(values(&c, "error.offset")[0], (0, 57));
    assert_eq!(values(&c, "error.offset")[1], (1, 100));
}

#[test]
fn the_looping_clip_wraps_and_the_crossfade_lands_on_the_held_end() {
    let c = run();
    let times = values(&c, "time");
    assert!(times.iter().all(|&(_, t)| t < 12 * 4096));
    // Time goes down at least once before the crossfade (step 20): the loop wrapped.
    let before: Vec<u32> = times.iter().filter(|(s, _)| *s < 20).map(|(_, t)| *t).collect();
    assert!(before.windows(2).any(|w| w[1] < w[0]), "{before:?}");
    // "wave" is 10 frames long, not looping: by step 31 it has ended.
    assert!(times.contains(&(30, 10 * 4096)));
    // Markers were crossed, "kick" (frame 4) among them.
    assert!(values(&c, "markers").iter().any(|&(_, m)| m % 16 == 5));
    // Every step wrote 6 bones of 8 words; all 30 timed frames of 3 skeletons ran, keys from the
    // file (probe slots 9..=11) and prepared (0..=2).
    let poses = c.words.iter().filter(|(l, _)| l.what == "pose").count();
    assert_eq!(poses, times.len() * scenario::SCENE_BONES * 8);
    assert_eq!(c.timed[9..12], [scenario::TIMED_FRAMES; 3]);
    assert_eq!(c.timed[..3], [scenario::TIMED_FRAMES; 3]);
}

/// The prepared keys replay the scenario: the same times and markers, poses composed in Q14
/// (`gte::PoseQ14`) where the file path composes FP12 matrices: rotation entries within 2 FP12 steps
/// and translations within 3 units of the file path's, before the first wrap (where the file path's
/// hemispheres are the load-time ones) and after it (1 and 2 seen); a 4-word buffer is refused.
#[test]
fn the_prepared_scenario_follows_the_file_path() {
    let c = run();
    assert_eq!(values(&c, "p.time"), values(&c, "time"));
    assert_eq!(values(&c, "p.markers"), values(&c, "markers"));
    // "swing": joints 0..=4, 11 rotation keys.
    assert_eq!((values(&c, "p.error.needed"), values(&c, "p.error.available")), (vec![(0, 2 * 5 + 3 * 11)], vec![(0, 4)]));
    let pose = |what: &str| -> Vec<(Label, u32)> { c.words.iter().filter(|(l, _)| l.what == what).copied().collect() };
    let (file, prepared) = (pose("pose"), pose("p.pose"));
    assert_eq!(file.len(), prepared.len());
    let first_wrap = values(&c, "time").windows(2).find(|w| w[1].1 < w[0].1).unwrap()[1].0;
    let half = |w: u32, shift: u32| (w >> shift) as u16 as i16 as i32;
    let mut worst = [[0; 2]; 2];
    for ((l, a), (_, b)) in file.iter().zip(&prepared) {
        let d = match l.field {
            0..=4 => (half(*a, 0) - half(*b, 0)).abs().max((half(*a, 16) - half(*b, 16)).abs()),
            _ => (*a as i32).wrapping_sub(*b as i32).abs(),
        };
        let w = &mut worst[(l.step >= first_wrap) as usize][(l.field > 4) as usize];
        *w = (*w).max(d);
    }
    // The far root (a translation beyond i16) and its child, composed bone by bone: their
    // translations in full.
    let far = pose("p.far");
    assert_eq!(far.len(), 3 * (scenario::SCENE_BONES + 2) * 8);
    let word = |step: u32, bone: usize, field: u32| far.iter().find(|(l, _)| (l.step, l.bone as usize, l.field) == (step, bone, field)).unwrap().1;
    let root = scenario::FAR_ROOT;
    for step in 0..3 {
        let b = scenario::SCENE_BONES;
        let t = |bone: usize| [5, 6, 7].map(|f| word(step, bone, f) as i32);
        assert_eq!(t(b), [root.x, root.y, root.z]);
        assert_eq!(t(b + 1), [root.x, root.y - 4096, root.z]);
        assert_eq!([0, 1, 2, 3, 4].map(|f| word(step, b, f)), [4096, 0, 4096, 0, 4096], "identity rotation");
    }
    // The low bits differ before the wrap already.
    assert!(worst.iter().all(|w| w[0] <= 2 && w[1] <= 3), "{worst:?}");
    assert!(worst[0][0] > 0, "the prepared poses are composed in Q14");
}

#[test]
fn the_scenario_is_deterministic() {
    let (a, b) = (run(), run());
    assert_eq!(a.words, b.words);
}

/// The pose at the end of the crossfade equals the incoming clip played alone (checked through
/// the public API on the same scene).
#[test]
fn scene_pose_after_fade_matches_the_incoming_clip_alone() {
    let (manager, skeleton): (AnimationManager<'static>, Skeleton<'static>) = scenario::scene().unwrap();
    let mut faded = SkeletonController::<{ scenario::SCENE_BONES }>::new(skeleton).unwrap();
    let mut alone = SkeletonController::<{ scenario::SCENE_BONES }>::new(skeleton).unwrap();
    faded.play(manager.clip(0).unwrap(), true).unwrap();
    faded.advance(5);
    faded.crossfade(manager.clip(1).unwrap(), false, 8).unwrap();
    alone.play(manager.clip(1).unwrap(), false).unwrap();
    for _ in 0..8 {
        faded.advance(1);
        alone.advance(1);
    }
    let mut gte = Gte::new();
    let (mut a, mut b) = ([Matrix::IDENTITY; 6], [Matrix::IDENTITY; 6]);
    faded.evaluate(&mut gte, &mut a);
    alone.evaluate(&mut gte, &mut b);
    assert_eq!(a, b);
}
