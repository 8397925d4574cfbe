//! Property tests per parser: a random valid model written and read back is the same model (within
//! the format's quantisation where it has one), and random or mutated bytes never panic.

mod formats_support;
use formats_support::*;
use proptest::prelude::*;
use psxanim::formats::{ani, animbin, mp_anim, panim, AnimbinMode, Losses, Tolerance};
use psxanim::model::*;

fn clip(name: String, looping: bool, unit: TimeUnit, length: f64, tracks: Vec<Track>, events: Vec<Event>) -> Clip {
    Clip { name, looping, time_unit: unit, length, frame_rate: None, tracks, events, extras: ClipExtras::default() }
}

fn fp12_quat(w: [i16; 4]) -> Quat {
    Quat::new(w[0] as f64 / 4096.0, w[1] as f64 / 4096.0, w[2] as f64 / 4096.0, w[3] as f64 / 4096.0)
}

prop_compose! {
    fn animbin_track()(joint in any::<u8>(), rot in prop::collection::vec(any::<[i16; 4]>(), 0..6),
                       trans in prop::collection::vec(any::<[i32; 3]>(), 0..4)) -> Track {
        let mut t = Track::new(Bone::Id(joint as u32));
        t.rotation = rot.iter().enumerate().map(|(i, w)| RotationKey { time: i as f64 * 2.0, value: fp12_quat(*w), stored: None }).collect();
        t.translation = trans.iter().enumerate().map(|(i, v)| VectorKey { time: i as f64, value: v.map(|x| x as f64 / 4096.0) }).collect();
        t
    }
}

prop_compose! {
    fn animbin_model()(clips in prop::collection::vec(("[a-zA-Z0-9_]{0,31}", 1u16..500, prop::collection::vec(animbin_track(), 0..4),
                                                          prop::collection::vec(("[a-z]{1,31}", any::<u16>()), 0..3)), 0..4)) -> Animation {
        let clips = clips.into_iter().map(|(name, length, tracks, markers)| {
            let events = markers.into_iter().map(|(n, f)| Event::new(f as f64, n, None)).collect();
            clip(name, true, TimeUnit::Frame, length as f64, tracks, events)
        }).collect();
        Animation { format: Format::Animbin, version: 1, clips, warnings: Vec::new() }
    }
}

type TrackEssence = (Bone, Vec<(f64, [f64; 4])>, Vec<(f64, [f64; 3])>);
type ClipEssence = (String, bool, f64, Vec<TrackEssence>, Vec<(f64, String)>);

/// The parts of a model every format carries (extras and stored words aside).
fn essence(anim: &Animation) -> Vec<ClipEssence> {
    anim.clips
        .iter()
        .map(|c| {
            let tracks = c
                .tracks
                .iter()
                .map(|t| {
                    (
                        t.bone.clone(),
                        t.rotation.iter().map(|k| (k.time, k.value.to_array())).collect(),
                        t.translation.iter().map(|k| (k.time, k.value)).collect(),
                    )
                })
                .collect();
            let mut events: Vec<(f64, String)> = c.events.iter().map(|e| (e.time, e.name.clone())).collect();
            events.sort_by(|a, b| a.0.total_cmp(&b.0));
            (c.name.clone(), c.looping, c.length, tracks, events)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn animbin_model_round_trips(anim in animbin_model()) {
        let bytes = animbin::write(&anim, AnimbinMode::Original, &mut Losses::default()).unwrap();
        let back = animbin::read(&bytes).unwrap();
        prop_assert_eq!(essence(&back), essence(&anim));
        // And the rewrite of what was read is byte-identical, in the correct mode too.
        prop_assert_eq!(animbin::write(&back, AnimbinMode::Correct, &mut Losses::default()).unwrap(), bytes);
    }

    #[test]
    fn ani_model_round_trips(version in 4000u32..4003, words in prop::collection::vec((any::<[u32; 2]>(), any::<[i16; 3]>(), any::<i32>()), 0..8),
                             events in prop::collection::vec(("[a-z]{0,8}", "[a-z.]{0,12}", -1000i32..1000), 0..4), total in any::<i32>()) {
        let mut track = Track::new(Bone::Name("Bip01".into()));
        for (w, p, t) in &words {
            let stored = match version {
                4000 => StoredRotation::Ani4000([w[0] % 1000, w[1] % 1000, 0x3F00_0000, 0x3F00_0000].map(|b| (b as f32 / 999.0).to_bits())),
                4001 => StoredRotation::Ani4001(w[0]),
                _ => StoredRotation::Ani4002(*w),
            };
            track.rotation.push(RotationKey { time: *t as f64, value: ani::decode_rotation(stored), stored: Some(stored) });
            track.translation.push(VectorKey { time: *t as f64, value: p.map(|x| x as f64 / 16.0) });
        }
        let events: Vec<Event> = events.into_iter().map(|(n, d, t)| Event::new(t as f64, n, Some(d))).collect();
        let anim = Animation { format: Format::Ani, version, clips: vec![clip(String::new(), false, TimeUnit::Ms, total as f64, vec![track], events)], warnings: Vec::new() };
        let mut losses = Losses::default();
        let bytes = ani::write(&anim, version, &mut losses).unwrap();
        prop_assert!(losses.is_empty(), "{:?}", losses.0);
        let back = ani::read(&bytes).unwrap();
        prop_assert_eq!(essence(&back), essence(&anim));
        prop_assert_eq!(ani::write(&back, version, &mut Losses::default()).unwrap(), bytes);
    }

    #[test]
    fn panim_model_round_trips(nodes in 1usize..6, frames in 1usize..12, seed in prop::collection::vec(any::<[i16; 3]>(), 72),
                               translated in any::<u8>(), looping in any::<bool>()) {
        let mut tracks = Vec::new();
        for n in 0..nodes {
            let mut t = Track::new(Bone::Id(n as u32));
            t.rotation = (0..frames).map(|f| {
                let e = seed[(n * 11 + f) % 72];
                RotationKey { time: f as f64, value: panim::euler_to_quat(e), stored: Some(StoredRotation::PanimEuler(e)) }
            }).collect();
            if n == 0 || translated >> n & 1 == 1 {
                t.translation = (0..frames).map(|f| VectorKey { time: f as f64, value: seed[(n * 5 + f * 3) % 72].map(|x| x as f64) }).collect();
            }
            tracks.push(t);
        }
        let mut anim = Animation { format: Format::Panim, version: 0, clips: vec![clip("a".into(), looping, TimeUnit::Frame, frames as f64, tracks, vec![])], warnings: Vec::new() };
        // .panim frames are SM64 ticks.
        anim.clips[0].frame_rate = Some(panim::FRAME_RATE);
        let bytes = panim::write(&anim, &mut Losses::default()).unwrap();
        let back = panim::read(&bytes).unwrap();
        // Stored keys are trimmed; every frame holds the same angles and translations.
        for n in 0..nodes {
            let (a, b) = (&anim.clips[0].tracks[n], &back.clips[0].tracks[n]);
            for f in 0..frames {
                let t = f as f64;
                let held = |tr: &Track| tr.rotation.iter().rev().find(|k| k.time <= t).or(tr.rotation.last()).and_then(|k| k.stored);
                prop_assert_eq!(held(a), held(b), "node {} frame {}", n, f);
                prop_assert_eq!(a.sample_translation(t), b.sample_translation(t), "node {} frame {}", n, f);
            }
        }
        prop_assert_eq!(back.clips[0].looping, looping);
        prop_assert_eq!(panim::write(&back, &mut Losses::default()).unwrap(), bytes);
    }

    #[test]
    fn mp_anim_v0_model_round_trips(frames in 1usize..10, values in prop::collection::vec(any::<[i16; 7]>(), 1..5)) {
        let tracks: Vec<Track> = values.iter().enumerate().map(|(i, v)| {
            let mut t = Track::new(Bone::Id(i as u32 * 3));
            t.rotation = (0..frames).map(|f| RotationKey { time: f as f64 * 0.25, value: Quat::new(v[0] as f64 / 64.0, v[1] as f64, v[2] as f64 + f as f64, v[3] as f64), stored: None }).collect();
            if i % 2 == 0 {
                t.translation = (0..frames).map(|f| VectorKey { time: f as f64 * 0.25, value: [v[4] as f64, v[5] as f64 / 8.0, v[6] as f64 - f as f64] }).collect();
            }
            t
        }).collect();
        let mut c = clip(String::new(), false, TimeUnit::S, (frames - 1) as f64 * 0.25, tracks, vec![]);
        c.frame_rate = Some(4.0);
        let anim = Animation { format: Format::MpAnim, version: 0, clips: vec![c], warnings: Vec::new() };
        let mut losses = Losses::default();
        let back = mp_anim::read(&mp_anim::write_v0(&anim, &mut losses).unwrap()).unwrap();
        prop_assert!(losses.is_empty(), "{:?}", losses.0);
        prop_assert_eq!(essence(&back), essence(&anim));
    }

    #[test]
    fn mp_anim_v2_model_round_trips_within_the_step(frames in 2usize..20, axes in prop::collection::vec(any::<[i8; 4]>(), 1..4)) {
        let tracks: Vec<Track> = axes.iter().enumerate().map(|(i, a)| {
            let mut t = Track::new(Bone::Id(i as u32));
            t.rotation = (0..frames).map(|f| {
                let q = axis_angle([a[0] as f64 + 0.5, a[1] as f64, a[2] as f64], (a[3] as f64 / 64.0) * f as f64);
                RotationKey { time: f as f64 / 30.0, value: q, stored: None }
            }).collect();
            t.translation = (0..frames).map(|f| VectorKey { time: f as f64 / 30.0, value: [a[0] as f64 * f as f64, a[1] as f64, 0.5] }).collect();
            t
        }).collect();
        let mut c = clip(String::new(), true, TimeUnit::S, (frames - 1) as f64 / 30.0, tracks, vec![]);
        c.frame_rate = Some(30.0);
        let anim = Animation { format: Format::MpAnim, version: 2, clips: vec![c], warnings: Vec::new() };
        let tol = Tolerance { rotation: 0.0, translation: 0.0, ..Tolerance::default() };
        let back = mp_anim::read(&mp_anim::write_v2(&anim, tol, &mut Losses::default()).unwrap()).unwrap();
        let mult = back.clips[0].extras.mp.as_ref().unwrap().translation_multiplier as f64;
        for (a, b) in anim.clips[0].tracks.iter().zip(&back.clips[0].tracks) {
            // Frames whose keys interpolation reproduces may be dropped: compare every frame as played.
            for (f, ka) in a.rotation.iter().enumerate() {
                let got = b.sample_rotation(ka.time).unwrap();
                let bound = 4.0 * std::f64::consts::FRAC_PI_2 / 32767.0 / ka.value.w.abs().max(0.01) + 1e-9;
                prop_assert!(ka.value.angle_to(got) <= bound, "frame {}: {:?} vs {:?}", f, ka.value, got);
                let (ta, tb) = (a.translation[f].value, b.sample_translation(ka.time).unwrap());
                for i in 0..3 {
                    prop_assert!((ta[i] - tb[i]).abs() <= mult + 1e-9, "frame {}: {:?} vs {:?}", f, ta, tb);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), prefix in 0usize..5) {
        // Give each parser a chance past its magic.
        let heads: [&[u8]; 5] = [b"", b"ANIMBIN\x01", b"ANI\0\xa0\x0f\0\0", b"\0\0\0\x02", b"\0\0\0\0"];
        let mut data = heads[prefix].to_vec();
        data.extend_from_slice(&bytes);
        let _ = animbin::read(&data);
        let _ = ani::read(&data);
        let _ = mp_anim::read(&data);
        let _ = panim::read(&data);
        let mut p = vec![0u8; 100];
        p.extend_from_slice(b"values");
        p.extend_from_slice(&bytes);
        let _ = panim::read(&p);
    }

    #[test]
    fn mutated_files_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let walk = {
            let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("W", 32).u32le(1).u16le(2).u16le(1).u16le(1);
            let b = animbin_trans(animbin_rot(b.u8(0).u8(0).u16le(2), 0, [4096, 0, 0, 0]), 1, [1, 2, 3]);
            b.fixed("m", 32).u16le(1).done()
        };
        let anim = animbin::read(&walk).unwrap();
        let mut files = vec![walk];
        for target in [psxanim::formats::Target::Ani(Some(4001)), psxanim::formats::Target::MpAnim(Some(2)), psxanim::formats::Target::MpAnim(Some(0)), psxanim::formats::Target::Panim] {
            files.push(psxanim::formats::write(&anim, target, Tolerance::default(), &mut Losses::default()).unwrap());
        }
        for mut f in files {
            for (i, v) in &flips {
                let at = i.index(f.len());
                f[at] = *v;
            }
            let _ = animbin::read(&f);
            let _ = ani::read(&f);
            let _ = mp_anim::read(&f);
            let _ = panim::read(&f);
        }
    }
}
