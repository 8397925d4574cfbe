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
    timed: [u32; 3],
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
    scenario::run(&mut Gte::new(), &mut c);
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
    // Every step wrote 6 bones of 8 words; all 60 timed frames of 3 skeletons ran.
    let poses = c.words.iter().filter(|(l, _)| l.what == "pose").count();
    assert_eq!(poses, times.len() * scenario::SCENE_BONES * 8);
    assert_eq!(c.timed, [scenario::TIMED_FRAMES; 3]);
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
