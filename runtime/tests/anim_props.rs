//! Playback properties over random valid clips and random vsync deltas: time stays in the clip,
//! every rotation is unit length, markers are reported exactly as often as they are crossed; keys
//! prepared at load give a pose that depends on the time only, near the file path's.
mod animbin_support;

use animbin_support::*;
use proptest::prelude::*;
use psxanim_runtime::anim::{ClipSource, LocalTransform, PreparedClip, Skeleton, SkeletonController, TimeScale, ROOT};
use psxanim_runtime::animbin::AnimationManager;
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::{Matrix, Quat, Vec3i32};

const BONES: usize = 6;

fn unit_quat() -> impl Strategy<Value = [i16; 4]> {
    (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0).prop_filter_map("zero", |(w, x, y, z)| {
        let n = (w * w + x * x + y * y + z * z).sqrt();
        (n > 0.1).then(|| [w, x, y, z].map(|c| (c / n * 4096.0) as i16))
    })
}

fn clip_strategy() -> impl Strategy<Value = ClipB> {
    (1u16..40, any::<bool>()).prop_flat_map(|(length, looping)| {
        let track = (0..BONES as u8, proptest::collection::btree_map(0..length, (unit_quat(), any::<[i16; 3]>()), 1..8))
            .prop_map(|(joint, keys)| {
                let keys = keys
                    .into_iter()
                    .flat_map(|(f, (q, t))| [rot(f, q), trans(f, t.map(|v| v as i32 * 64))])
                    .collect();
                track(joint, keys)
            });
        let tracks = proptest::collection::vec(track, 0..4).prop_map(|mut ts| {
            // One track per joint.
            ts.sort_by_key(|t| t.joint);
            ts.dedup_by_key(|t| t.joint);
            ts
        });
        let markers = proptest::collection::vec(0..length, 0..4);
        (tracks, markers).prop_map(move |(tracks, markers)| {
            let mut c = clip("p", looping, length, tracks);
            c.markers = markers.into_iter().map(|f| (name("m"), f)).collect();
            c
        })
    })
}

/// A clip, vsync deltas and a time scale's ratio.
fn playback() -> impl Strategy<Value = (ClipB, Vec<u32>, (u32, u32))> {
    (clip_strategy(), proptest::collection::vec(0u32..7, 1..40), (1u32..120, 1u32..120))
}

fn parents() -> [u8; BONES] {
    [ROOT, 0, 1, 1, 3, ROOT]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn playback_invariants((c, deltas, rate) in playback()) {
        let bytes = FileB::new(vec![c.clone()]).to_bytes();
        let m = <AnimationManager>::parse(&bytes, BONES).unwrap();
        let bind = [LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, 4096, 0)); BONES];
        let parents = parents();
        let mut ctl = SkeletonController::<BONES>::new(Skeleton::new(&parents, &bind).unwrap()).unwrap();
        let scale = TimeScale::from_ratio(rate.0, rate.1);
        ctl.set_time_scale(scale);
        ctl.play(m.clip(0).unwrap(), c.looping_flag()).unwrap();
        let end = c.length as u64 * 4096;
        let mut unwrapped = 0u64;
        let mut reported = 0u64;
        let mut clock_ticks = 0u64;
        let mut pose = [Matrix::IDENTITY; BONES];
        let mut gte = Gte::new();
        let mut reference = psxanim_runtime::anim::time::Clock::new(scale);
        let mut longest_step = 0u64;
        for d in deltas {
            ctl.update(d, |e| {
                assert!(e.frame < c.length);
                reported += 1;
            });
            let step = reference.advance(d);
            longest_step = longest_step.max(step);
            clock_ticks += step;
            let expected_time = if c.looping_flag() { clock_ticks % end } else { clock_ticks.min(end) };
            prop_assert_eq!(ctl.time() as u64, expected_time);
            unwrapped = clock_ticks;
            for b in 0..BONES {
                let q = ctl.local(b).rotation;
                let n = q.dot(q);
                prop_assert!((n - (1 << 24)).abs() < 1 << 14, "bone {} {:?} norm^2 {}", b, q, n);
            }
            ctl.evaluate(&mut gte, &mut pose);
        }
        // Markers crossed on [0, t): each marker once per pass over its frame. An update spanning
        // whole loops beyond its current pass reports them once (documented), so equality holds
        // when every step is shorter than the clip, a bound otherwise.
        let passes = |f: u16| -> u64 {
            let at = f as u64 * 4096;
            if c.looping_flag() {
                if unwrapped > at { (unwrapped - at - 1) / end + 1 } else { 0 }
            } else if unwrapped.min(end) > at { 1 } else { 0 }
        };
        let expected: u64 = c.markers.iter().map(|m| passes(m.1)).sum();
        prop_assert!(reported <= expected, "reported {} expected at most {}", reported, expected);
        if !c.looping_flag() || longest_step < end {
            prop_assert_eq!(reported, expected);
        }
    }

    /// Prepared keys: the pose after any steps is the pose of a fresh controller jumped to the same
    /// time, and each local rotation entry is near the file path's (the hemispheres' signs,
    /// nlerp's floors and the prepared path's Q14 composition, `anim_prepared.rs`): random keys have
    /// arcs past 30 degrees, halved up to five times, each halving a rounding of its own; at most 8
    /// FP12 steps were seen over 40,000 random clips (8 again with the Q14 composition), 12 is the
    /// bound.
    #[test]
    fn prepared_keys_depend_on_the_time_only((c, deltas, rate) in playback()) {
        let bytes = FileB::new(vec![c.clone()]).to_bytes();
        let m = <AnimationManager>::parse(&bytes, BONES).unwrap();
        let clip = m.clip(0).unwrap();
        let mut words = vec![0u32; PreparedClip::words_needed(&clip)];
        let prepared = PreparedClip::new(clip, &mut words).unwrap();
        let bind = [LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, 4096, 0)); BONES];
        let roots = [ROOT; BONES];
        let skeleton = Skeleton::new(&roots, &bind).unwrap();
        let scale = TimeScale::from_ratio(rate.0, rate.1);
        fn start<'a>(skeleton: Skeleton<'a>, scale: TimeScale, source: ClipSource<'a>, looping: bool) -> SkeletonController<'a, BONES> {
            let mut ctl = SkeletonController::<BONES>::new(skeleton).unwrap();
            ctl.set_time_scale(scale);
            ctl.play(source, looping).unwrap();
            ctl
        }
        let looping = c.looping_flag();
        let (mut stepped, mut file) = (start(skeleton, scale, prepared.into(), looping), start(skeleton, scale, clip.into(), looping));
        let mut gte = Gte::new();
        let (mut a, mut b, mut f) = ([Matrix::IDENTITY; BONES], [Matrix::IDENTITY; BONES], [Matrix::IDENTITY; BONES]);
        let mut total = 0;
        for d in deltas {
            stepped.advance(d);
            file.advance(d);
            total += d;
            let mut jumped = start(skeleton, scale, prepared.into(), looping);
            jumped.advance(total);
            prop_assert_eq!(jumped.time(), stepped.time());
            stepped.evaluate(&mut gte, &mut a);
            jumped.evaluate(&mut gte, &mut b);
            file.evaluate(&mut gte, &mut f);
            prop_assert_eq!(a, b);
            for (p, q) in a.iter().zip(&f) {
                prop_assert_eq!(p.translation, q.translation);
                for i in 0..9 {
                    let d = (p.rotation[i / 3][i % 3] as i32 - q.rotation[i / 3][i % 3] as i32).abs();
                    prop_assert!(d <= 12, "entry {} differs by {}: {:?} {:?} after {} vsyncs", i, d, p, q, total);
                }
            }
        }
    }
}

trait Looping {
    fn looping_flag(&self) -> bool;
}

impl Looping for ClipB {
    fn looping_flag(&self) -> bool {
        self.flags & 1 != 0
    }
}
