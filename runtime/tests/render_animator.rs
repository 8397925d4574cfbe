//! Animator: sample selection on 60 Hz and 50 Hz screens, loop wrap before the endpoint sample,
//! holding the final pose, pause / resume / stop, interpolation weights.

use psxanim_runtime::anim::{Animator, FrameSample, Sampling};
use psxanim_runtime::tables::{TableError, Tables};

mod render_support;
use render_support::{blob, BoneDef, RigidClip};

/// Clip 0: 5 samples, clip 1: 1 sample, both 30 Hz.
fn tables_bytes() -> Vec<u8> {
    let bones = [BoneDef { parent: None, vertices: vec![[0, 0, 0], [1, 0, 0], [0, 1, 0]] }];
    let clips = [
        RigidClip { frames: 5, poses: vec![(0.0, [0, 0, 0])] },
        RigidClip { frames: 1, poses: vec![(0.0, [0, 0, 0])] },
    ];
    blob(&bones, &[[0, 1, 2, 0]], &[[1, 1, 1]], &clips, &[])
}

fn frames(a: &mut Animator, updates: usize, vsyncs: u32) -> Vec<u16> {
    (0..updates)
        .map(|_| {
            let f = a.sample().unwrap().frame;
            a.update(vsyncs);
            f
        })
        .collect()
}

#[test]
fn a_30hz_clip_shows_each_sample_for_two_60hz_ticks_and_wraps_before_the_endpoint() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Step);
    assert_eq!(a.sample(), None, "nothing before play");
    a.play(&t, 0, true).unwrap();
    // Samples 0..=3 then back to 0: sample 4 is the endpoint (the first pose again), never shown.
    assert_eq!(frames(&mut a, 10, 1), [0, 0, 1, 1, 2, 2, 3, 3, 0, 0]);
    assert!(!a.finished());
}

#[test]
fn pal_reaches_the_same_sample_after_the_same_time() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let (mut ntsc, mut pal) = (Animator::new(60, Sampling::Step), Animator::new(50, Sampling::Step));
    ntsc.play(&t, 0, false).unwrap();
    pal.play(&t, 0, false).unwrap();
    for _ in 0..6 {
        ntsc.update(1);
    }
    for _ in 0..5 {
        pal.update(1);
    }
    // A tenth of a second: three samples at 30 Hz on both.
    assert_eq!(ntsc.time(), 3 * 4096);
    assert_eq!(pal.time(), ntsc.time());
}

#[test]
fn non_looping_playback_holds_the_final_sample() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Step);
    a.play(&t, 0, false).unwrap();
    assert_eq!(frames(&mut a, 12, 1), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 4, 4]);
    assert!(a.finished());
    a.update(100_000);
    assert_eq!(a.sample().unwrap().frame, 4);
}

#[test]
fn pause_resume_and_stop() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Step);
    a.play(&t, 0, true).unwrap();
    a.update(4);
    a.pause();
    a.update(10);
    assert_eq!(a.sample().unwrap().frame, 2, "paused: time stands still");
    a.resume();
    a.update(2);
    assert_eq!(a.sample().unwrap().frame, 3);
    a.stop();
    assert!(a.is_paused());
    assert_eq!(a.sample(), Some(FrameSample { clip: 0, frame: 0, next: 0, weight: 0 }));
    a.update(10);
    assert_eq!(a.sample().unwrap().frame, 0, "stopped means paused on the first pose");
    a.resume();
    a.update(2);
    assert_eq!(a.sample().unwrap().frame, 1);
}

#[test]
fn interpolation_blends_toward_the_next_sample_including_the_endpoint() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Interpolated);
    a.play(&t, 0, true).unwrap();
    a.update(1);
    assert_eq!(a.sample(), Some(FrameSample { clip: 0, frame: 0, next: 1, weight: 2048 }));
    a.update(6);
    // 3.5 samples in: between sample 3 and the endpoint sample 4.
    assert_eq!(a.sample(), Some(FrameSample { clip: 0, frame: 3, next: 4, weight: 2048 }));
    a.update(1);
    assert_eq!(a.sample(), Some(FrameSample { clip: 0, frame: 0, next: 1, weight: 0 }));
    // Non-looping: no blend past the final sample.
    a.play(&t, 0, false).unwrap();
    a.update(100);
    assert_eq!(a.sample(), Some(FrameSample { clip: 0, frame: 4, next: 4, weight: 0 }));
}

#[test]
fn one_sample_clips_and_bad_clip_indices() {
    let b = tables_bytes();
    let t = Tables::parse(&b).unwrap();
    let mut a = Animator::new(60, Sampling::Interpolated);
    a.play(&t, 1, true).unwrap();
    a.update(7);
    assert_eq!(a.sample(), Some(FrameSample { clip: 1, frame: 0, next: 0, weight: 0 }));
    assert_eq!(a.play(&t, 2, true), Err(TableError::ClipOutOfRange { clip: 2, clips: 2 }));
}
