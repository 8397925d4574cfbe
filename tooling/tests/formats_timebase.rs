//! Conversions between time bases: a 100 fps `.ani` (keys every 10 ms, as the io3DEngine tools write
//! them) to 60 Hz ANIMBIN frames and to Metroid Prime ANIM, built byte by byte.

mod formats_support;
use formats_support::*;
use psxanim::formats::{self, animbin, ani, mp_anim, profile, Losses, Target, Tolerance};
use psxanim::model::Format;

const KEYS: i32 = 1087;
const STEP_MS: i32 = 10;

/// One track "0" (a decimal name, so the id formats take it as bone 0), 4000 floats, keys every 10
/// ms turning about Y, total time the last key's.
fn hundred_fps() -> Vec<u8> {
    let total = (KEYS - 1) * STEP_MS;
    let mut b = Bytes::new().raw(b"ANI\0").i32le(4000).i32le(0).i32le(total).i32le(1).ani_str("0").f32le(1.0).i32le(KEYS);
    for k in 0..KEYS {
        let half = (k as f64 * 0.01).sin() * 0.5;
        let (s, c) = half.sin_cos();
        for v in [0.0, s as f32, 0.0, c as f32] {
            b = b.f32le(v);
        }
        b = b.f32le(k as f32).f32le(0.0).f32le(0.0).i32le(k * STEP_MS);
    }
    b.done()
}

#[test]
fn to_animbin_one_key_per_frame_none_past_the_end() {
    let anim = ani::read(&hundred_fps()).unwrap();
    let mut losses = Losses::default();
    let bytes = animbin::write(&anim, Default::default(), &mut losses).unwrap();
    assert!(losses.0.iter().any(|l| l.contains("resampled time")), "{:?}", losses.0);
    let out = animbin::read(&bytes).unwrap();
    let clip = &out.clips[0];
    // 10.86 s at 60 Hz.
    assert_eq!(clip.length, 652.0);
    for times in [clip.tracks[0].rotation.iter().map(|k| k.time).collect::<Vec<_>>(), clip.tracks[0].translation.iter().map(|k| k.time).collect()] {
        assert!(times.windows(2).all(|w| w[0] < w[1]), "frames strictly increase: no duplicate frame");
        assert!(times.iter().all(|&t| t < clip.length), "no key at or past the length");
        assert_eq!(times.len(), 652);
    }
    // Values are the source's at each frame's time (frame 3 = 50 ms = key 5).
    let x = clip.tracks[0].translation[3].value[0];
    assert!((x - 5.0).abs() <= 1.0 / 4096.0, "{x}");
    assert_eq!(profile::check(&out, profile::by_name("large").unwrap()), Vec::<String>::new());
}

#[test]
fn to_metroid_prime_keeps_the_10_ms_grid() {
    let anim = ani::read(&hundred_fps()).unwrap();
    let tolerance = Tolerance { rotation: 0.0, translation: 0.0, ..Tolerance::default() };
    let mut losses = Losses::default();
    let bytes = formats::write(&anim, Target::MpAnim(Some(2)), tolerance, &mut losses).unwrap();
    assert!(!losses.0.iter().any(|l| l.contains("resampled")), "{:?}", losses.0);
    let out = mp_anim::read(&bytes).unwrap();
    let clip = &out.clips[0];
    assert_eq!(clip.frame_rate, Some(1.0 / 0.01f32 as f64));
    assert_eq!(clip.extras.mp.as_ref().unwrap().frame_count, Some(KEYS as u32));
    // Keys stay on the 10 ms grid (a reduction at tolerance 0 only drops what slerp restores exactly).
    let rotation = &clip.tracks[0].rotation;
    assert!(rotation.len() > 1000, "{} keys", rotation.len());
    assert!(rotation.iter().all(|k| (k.time * 100.0 - (k.time * 100.0).round()).abs() < 1e-3));
    let v0 = formats::write(&anim, Target::MpAnim(Some(0)), tolerance, &mut Losses::default()).unwrap();
    let v0 = formats::read(Format::MpAnim, &v0).unwrap();
    assert_eq!(v0.clips[0].tracks[0].rotation.len(), KEYS as usize);
}
