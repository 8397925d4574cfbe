//! Cross-format conversions: an ANIMBIN clip converted to each other format and back, with the
//! error measured at every frame against a stated bound (the coarsest quantisation on the way).
//!
//! Run with `--nocapture` to see the measured figures.

mod formats_support;
use formats_support::*;
use psxanim::formats::{self, animbin, AnimbinMode, Losses, Target, Tolerance};
use psxanim::model::{Animation, StoredRotation};

const FRAMES: u16 = 30;

/// A baked ANIMBIN clip as the exporter writes it: one key per frame for three joints, with a root
/// translation; values are FP12 words.
fn source() -> Vec<u8> {
    let mut b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("Walk", 32).u32le(1).u16le(FRAMES).u16le(3).u16le(0);
    for joint in 0..3u8 {
        let keys = if joint == 0 { 2 * FRAMES } else { FRAMES };
        b = b.u8(0).u8(joint).u16le(keys);
        for f in 0..FRAMES {
            let t = f as f64 / FRAMES as f64;
            let q = axis_angle([1.0, joint as f64 - 0.5, 0.7], 2.5 * t * (joint as f64 + 1.0) - 1.0);
            let w = [q.w, q.x, q.y, q.z].map(|v| (v * 4096.0).round() as i16);
            b = animbin_rot(b, f, w);
            if joint == 0 {
                b = animbin_trans(b, f, [(f as i32 * 1234) - 9000, 4096 * 3, -(f as i32 * f as i32 * 37)]);
            }
        }
    }
    b.done()
}

struct Measured {
    rotation: f64,
    translation: f64,
    frames_kept: bool,
    /// Whether every rotation key came back with the same FP12 words.
    words_equal: bool,
}

fn words(anim: &Animation) -> Vec<[i16; 4]> {
    anim.clips[0]
        .tracks
        .iter()
        .flat_map(|t| t.rotation.iter())
        .map(|k| match k.stored {
            Some(StoredRotation::Fp12(w)) => w,
            other => panic!("{other:?}"),
        })
        .collect()
}

fn round_trip(target: Target, step: usize) -> (Measured, Losses) {
    let src = animbin::read(&source()).unwrap();
    let mut losses = Losses::default();
    let bytes = formats::write(&src, target, Tolerance::default(), &mut losses).unwrap();
    let mid = formats::read(target.format(), &bytes).unwrap();
    let back_bytes = animbin::write(&mid, AnimbinMode::Correct, &mut losses).unwrap();
    let back = animbin::read(&back_bytes).unwrap();
    let frames: Vec<f64> = (0..FRAMES).step_by(step).map(f64::from).collect();
    let (a, b): (&Animation, &Animation) = (&src, &back);
    let mut rotation: f64 = 0.0;
    let mut translation: f64 = 0.0;
    for j in 0..3 {
        rotation = rotation.max(max_rotation_error(track(a, 0, j), track(b, 0, j), &frames, 1.0));
    }
    translation = translation.max(max_translation_error(track(a, 0, 0), track(b, 0, 0), &frames, 1.0));
    let frames_kept = (0..3).all(|j| track(b, 0, j).rotation.len() == FRAMES as usize);
    let words_equal = words(a) == words(b);
    (Measured { rotation, translation, frames_kept, words_equal }, losses)
}

/// One FP12 step on a component, as an angle: the rounding on the way back to ANIMBIN.
const FP12_ANGLE: f64 = 4.0 / 4096.0;

/// Angle noise of comparing two identical FP12 quaternions (they are not exactly unit length).
const NOISE: f64 = 1e-6;

fn check(target: Target, rotation_bound: f64, translation_bound: f64, frames_kept: Option<bool>) -> Losses {
    check_every(target, 1, rotation_bound, translation_bound, frames_kept)
}

/// `check` at every `step`-th ANIMBIN frame (the frames a coarser time base keeps).
fn check_every(target: Target, step: usize, rotation_bound: f64, translation_bound: f64, frames_kept: Option<bool>) -> Losses {
    let (m, losses) = round_trip(target, step);
    eprintln!(
        "animbin -> {target:?} -> animbin: rotation {:.3e} rad (bound {rotation_bound:.3e}), translation {:.3e} (bound {translation_bound:.3e})",
        m.rotation, m.translation
    );
    assert!(m.rotation <= rotation_bound, "{target:?}: rotation error {} > {rotation_bound}", m.rotation);
    assert!(m.translation <= translation_bound, "{target:?}: translation error {} > {translation_bound}", m.translation);
    if let Some(kept) = frames_kept {
        assert_eq!(m.frames_kept, kept, "{target:?}: one key per frame after the round trip");
    }
    if rotation_bound == NOISE {
        assert!(m.words_equal, "{target:?}: an exact path gives back the same FP12 words");
    }
    losses
}

#[test]
fn ani_4000_is_exact() {
    // FP12 words are exact in f32, frames -> ms -> frames rounds back to the same frame.
    let losses = check(Target::Ani(Some(4000)), NOISE, 0.0, Some(true));
    assert!(losses.0.iter().any(|l| l.contains("rounded to whole units")), "ms rounding reported: {:?}", losses.0);
}

#[test]
fn ani_4001_within_the_10_bit_step() {
    // Truncation to 2/1023 per component, then FP12 rounding.
    check(Target::Ani(Some(4001)), 2.0 * 2.0 * 2.0 / 1023.0 + FP12_ANGLE, 0.0, Some(true));
}

#[test]
fn ani_4002_within_the_16_bit_step() {
    check(Target::Ani(Some(4002)), 2.0 * 2.0 * 2.0 / 65535.0 + FP12_ANGLE, 0.0, Some(true));
}

#[test]
fn mp_anim_v0_is_exact() {
    check(Target::MpAnim(Some(0)), NOISE, 0.0, Some(true));
}

#[test]
fn mp_anim_v2_within_tolerance_and_step() {
    // Keys dropped where interpolation stays within the tolerance; the translation multiplier is the
    // largest translation / 32767, so its half-step bounds the translation error.
    let max_translation = 29.0 * 29.0 * 37.0 / 4096.0;
    let losses = check(
        Target::MpAnim(Some(2)),
        Tolerance::default().rotation + 4.0 * std::f64::consts::FRAC_PI_2 / 32767.0 + FP12_ANGLE,
        Tolerance::default().translation.max(max_translation / 32767.0) + 1.0 / 8192.0,
        None,
    );
    assert!(losses.0.iter().any(|l| l.contains("precision")), "{:?}", losses.0);
}

#[test]
fn panim_within_the_s16_angle_and_unit_steps() {
    // .panim frames are SM64 game ticks (30 Hz): the 60 Hz ANIMBIN frames 0, 2, 4, ... are kept, so the
    // error is measured there. Rotations through s16 Euler angles (2 pi / 65536 per angle, three
    // angles), translations rounded to whole s16 game units.
    let losses = check_every(Target::Panim, 2, 3.0 * std::f64::consts::TAU / 65536.0 + FP12_ANGLE, 0.5, None);
    assert!(losses.0.iter().any(|l| l.contains("s16")), "{:?}", losses.0);
    let src = animbin::read(&source()).unwrap();
    let bytes = formats::write(&src, Target::Panim, Tolerance::default(), &mut Losses::default()).unwrap();
    let mid = formats::read(psxanim::model::Format::Panim, &bytes).unwrap();
    assert_eq!(mid.clips[0].length, FRAMES as f64 / 2.0, "30 frames at 60 Hz are 15 SM64 ticks");
    let back = animbin::write(&mid, AnimbinMode::Correct, &mut Losses::default()).unwrap();
    let back = animbin::read(&back).unwrap();
    assert_eq!(back.clips[0].length, FRAMES as f64);
    let times: Vec<f64> = track(&back, 0, 1).rotation.iter().map(|k| k.time).collect();
    assert_eq!(times, (0..FRAMES / 2).map(|f| 2.0 * f as f64).collect::<Vec<_>>());
}
