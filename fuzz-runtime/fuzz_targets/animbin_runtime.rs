//! ANIMBIN in the runtime: any bytes either fail to parse with an error or parse and play safely.
//!
//! Input: byte 0 = bone count, byte 1 = vsync delta pattern seed, the rest = the file. Every parsed
//! clip is played (looping and not, then crossfaded) for a few updates and evaluated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use psxanim_runtime::anim::{LocalTransform, Skeleton, SkeletonController, TimeScale, ROOT};
use psxanim_runtime::animbin::{AnimationManager, LargeAnimationManager};
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::Matrix;

const BONES: usize = 64;

fn play_all<'a>(clips: impl Iterator<Item = psxanim_runtime::animbin::Clip<'a>>, skeleton: Skeleton<'a>, seed: u8) {
    let mut c = SkeletonController::<'a, BONES>::new(skeleton).expect("skeleton fits");
    c.set_time_scale(TimeScale::from_ratio(1 + (seed as u32 & 7), 1 + (seed as u32 >> 5)));
    let mut gte = Gte::new();
    let mut out = [Matrix::IDENTITY; BONES];
    for (i, clip) in clips.enumerate() {
        if i % 2 == 0 {
            c.play(clip, seed & 1 == 0).expect("bone count matches");
        } else {
            c.crossfade(clip, seed & 2 == 0, (seed as u16 & 3) * 3).expect("bone count matches");
        }
        for step in 0..6u32 {
            let mut markers = 0u32;
            c.update((step * seed as u32) % 40, |e| {
                assert!(e.index < 64);
                markers += 1;
            });
            c.evaluate(&mut gte, &mut out);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let bones = (data[0] as usize % BONES).max(1);
    let seed = data[1];
    let file = &data[2..];
    let parents: [u8; BONES] = core::array::from_fn(|i| if i == 0 { ROOT } else { (i as u8 - 1) / 2 });
    let bind = [LocalTransform::IDENTITY; BONES];
    let skeleton = Skeleton::new(&parents[..bones], &bind[..bones]).expect("valid skeleton");
    if let Ok(m) = <AnimationManager>::parse(file, bones) {
        play_all(m.clips(), skeleton, seed);
    }
    if let Ok(m) = LargeAnimationManager::parse(file, bones) {
        play_all(m.clips(), skeleton, seed);
    }
});
