//! `.ani` 4000 / 4001 / 4002: hand-built files from lost-saga-ani.txt and the specs README, decoding of
//! each rotation encoding, byte-identical rewrites, stored words kept across edits, events, errors.

mod formats_support;
use formats_support::*;
use psxanim::formats::{ani, Losses};
use psxanim::model::{Bone, Quat, StoredRotation, TimeUnit};

/// Header, two events given out of time order, total time 200 ms, one track "Bip01" with `keys`
/// (rotation bytes, position, time).
fn file(version: i32, keys: &[(Vec<u8>, [f32; 3], i32)], events_sorted: bool) -> Vec<u8> {
    let mut b = Bytes::new().raw(b"ANI\0").i32le(version).i32le(2);
    let (first, second) = if events_sorted { (("sound", "step.wav", 10.0f32), ("hit", "", 30.0)) } else { (("hit", "", 30.0), ("sound", "step.wav", 10.0)) };
    for (ty, sub, t) in [first, second] {
        b = b.ani_str(ty).ani_str(sub).f32le(t);
    }
    b = b.i32le(200).i32le(1).ani_str("Bip01").f32le(1.0).i32le(keys.len() as i32);
    for (rot, pos, t) in keys {
        b = b.raw(rot).f32le(pos[0]).f32le(pos[1]).f32le(pos[2]).i32le(*t);
    }
    b.done()
}

fn small_three(largest: u32, a: u32, b: u32, c: u32) -> Vec<u8> {
    (largest << 30 | a << 20 | b << 10 | c).to_le_bytes().to_vec()
}

fn eight_bytes(x: u32, y: u32, z: u32, w: u32) -> Vec<u8> {
    let mut v = (x << 16 | y).to_le_bytes().to_vec();
    v.extend_from_slice(&(z << 16 | w).to_le_bytes());
    v
}

fn floats(v: [f32; 4]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn close(a: Quat, b: Quat) {
    assert!((a.w - b.w).abs() < 1e-12 && (a.x - b.x).abs() < 1e-12 && (a.y - b.y).abs() < 1e-12 && (a.z - b.z).abs() < 1e-12, "{a:?} != {b:?}");
}

#[test]
fn decodes_4000_floats_xyzw() {
    let anim = ani::read(&file(4000, &[(floats([0.5, -0.5, 0.5, 0.5]), [1.0, 2.0, 3.0], 0)], true)).unwrap();
    assert_eq!(anim.version, 4000);
    let clip = &anim.clips[0];
    assert_eq!((clip.time_unit, clip.length), (TimeUnit::Ms, 200.0));
    let t = &clip.tracks[0];
    assert_eq!(t.bone, Bone::Name("Bip01".into()));
    assert_eq!(t.extras.ani_weight, Some(1.0));
    assert_eq!(t.rotation[0].value, Quat::new(0.5, 0.5, -0.5, 0.5));
    assert_eq!(t.translation[0].value, [1.0, 2.0, 3.0]);
}

#[test]
fn decodes_4001_small_three() {
    let n = |v: u32| 2.0 * v as f64 / 1023.0 - 1.0;
    // Largest = w (3): x, y, z stored in that order.
    let anim = ani::read(&file(4001, &[(small_three(3, 767, 511, 300), [0.0; 3], 0)], true)).unwrap();
    let (x, y, z) = (n(767), n(511), n(300));
    close(anim.clips[0].tracks[0].rotation[0].value, Quat::new((1.0 - x * x - y * y - z * z).sqrt(), x, y, z));
    // Largest = x (0): y, z, w stored in that order.
    let anim = ani::read(&file(4001, &[(small_three(0, 600, 100, 700), [0.0; 3], 0)], true)).unwrap();
    let (y, z, w) = (n(600), n(100), n(700));
    close(anim.clips[0].tracks[0].rotation[0].value, Quat::new(w, (1.0 - y * y - z * z - w * w).sqrt(), y, z));
    // Stored values whose squares exceed 1: the omitted component is clamped to 0, never NaN.
    let anim = ani::read(&file(4001, &[(small_three(1, 0, 0, 0), [0.0; 3], 0)], true)).unwrap();
    let q = anim.clips[0].tracks[0].rotation[0].value;
    assert_eq!(q, Quat::new(-1.0, -1.0, 0.0, -1.0));
}

/// Largest = z (2): x, y, w stored in that order; the one index the other cases leave out.
#[test]
fn decodes_4001_small_three_with_z_omitted() {
    let n = |v: u32| 2.0 * v as f64 / 1023.0 - 1.0;
    let anim = ani::read(&file(4001, &[(small_three(2, 400, 650, 200), [0.0; 3], 0)], true)).unwrap();
    let (x, y, w) = (n(400), n(650), n(200));
    close(anim.clips[0].tracks[0].rotation[0].value, Quat::new(w, x, y, (1.0 - x * x - y * y - w * w).sqrt()));
}

#[test]
fn decodes_4002_eight_bytes() {
    let anim = ani::read(&file(4002, &[(eight_bytes(49151, 32767, 0, 65535), [0.0; 3], 0)], true)).unwrap();
    let s = |v: u32| 2.0 * v as f64 / 65535.0 - 1.0;
    close(anim.clips[0].tracks[0].rotation[0].value, Quat::new(1.0, s(49151), s(32767), -1.0));
}

fn three_keys(version: i32) -> Vec<(Vec<u8>, [f32; 3], i32)> {
    let rot = |i: u32| match version {
        4000 => floats([0.1 * i as f32, 0.0, 0.0, 0.99]),
        4001 => small_three(3, 512 + i * 40, 500, 520),
        _ => eight_bytes(33000 + i * 500, 32000, 32767, 65000),
    };
    (0..3).map(|i| (rot(i), [i as f32, 0.5, -2.25], i as i32 * 33)).collect()
}

#[test]
fn unedited_rewrite_is_byte_identical_for_every_version() {
    for version in [4000, 4001, 4002] {
        let bytes = file(version, &three_keys(version), true);
        let anim = ani::read(&bytes).unwrap();
        let mut losses = Losses::default();
        assert_eq!(ani::write(&anim, version as u32, &mut losses).unwrap(), bytes, "version {version}");
        assert!(losses.is_empty(), "{:?}", losses.0);
    }
}

fn stored(anim: &psxanim::model::Animation) -> Vec<Option<StoredRotation>> {
    anim.clips[0].tracks[0].rotation.iter().map(|k| k.stored).collect()
}

#[test]
fn edited_clip_keeps_untouched_rotation_words() {
    for version in [4000u32, 4001, 4002] {
        let mut anim = ani::read(&file(version as i32, &three_keys(version as i32), true)).unwrap();
        let before = stored(&anim);
        // Edit the middle key's rotation and every key's position.
        let track = &mut anim.clips[0].tracks[0];
        track.rotation[1].value = axis_angle([1.0, 2.0, 3.0], 1.0);
        track.translation.iter_mut().for_each(|k| k.value[0] += 1.0);
        let out = ani::read(&ani::write(&anim, version, &mut Losses::default()).unwrap()).unwrap();
        let after = stored(&out);
        assert_eq!(after[0], before[0], "version {version}");
        assert_eq!(after[2], before[2], "version {version}");
        assert_ne!(after[1], before[1], "version {version}");
        let err = out.clips[0].tracks[0].rotation[1].value.angle_to(axis_angle([1.0, 2.0, 3.0], 1.0));
        assert!(err < 0.01, "re-encoded key within the encoding's step: {err}");
    }
}

#[test]
fn converting_between_versions_and_back_keeps_words() {
    // 4001 -> 4000 -> 4001 in memory: the 4000 writer re-encodes, the model keeps the 4001 words, so
    // writing 4001 again is byte-identical.
    let bytes = file(4001, &three_keys(4001), true);
    let anim = ani::read(&bytes).unwrap();
    let mut losses = Losses::default();
    let as_4000 = ani::write(&anim, 4000, &mut losses).unwrap();
    assert!(ani::read(&as_4000).is_ok());
    assert_eq!(ani::write(&anim, 4001, &mut Losses::default()).unwrap(), bytes);
}

#[test]
fn encoders_follow_the_sign_conventions() {
    // 4001 negates so that the omitted (largest) component is positive; 4002 so that w >= 0.
    let q = Quat::new(-0.1, -0.9, 0.3, 0.3).normalized();
    let mut losses = Losses::default();
    match ani::encode_rotation(q, None, 4001, &mut losses) {
        StoredRotation::Ani4001(w) => {
            assert_eq!(w >> 30, 0, "x is the largest");
            let back = ani::decode_rotation(StoredRotation::Ani4001(w));
            assert!(back.x > 0.0 && back.angle_to(q) < 0.01, "{back:?}");
        }
        other => panic!("{other:?}"),
    }
    match ani::encode_rotation(q, None, 4002, &mut losses) {
        StoredRotation::Ani4002(w) => {
            let back = ani::decode_rotation(StoredRotation::Ani4002(w));
            assert!(back.w >= 0.0 && back.angle_to(q) < 1e-3, "{back:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(losses.0.iter().any(|l| l.contains("precision")));
}

#[test]
fn events_are_kept_and_sorted_by_time() {
    let anim = ani::read(&file(4000, &three_keys(4000), false)).unwrap();
    let events = &anim.clips[0].events;
    assert_eq!(events.len(), 2);
    assert_eq!((events[0].name.as_str(), events[0].data.as_deref(), events[0].time), ("sound", Some("step.wav"), 10.0));
    assert_eq!((events[1].name.as_str(), events[1].time), ("hit", 30.0));
    // Written sorted: the same bytes as the file that was sorted to begin with.
    let out = ani::write(&anim, 4000, &mut Losses::default()).unwrap();
    assert_eq!(out, file(4000, &three_keys(4000), true));
}

fn err(bytes: &[u8]) -> psxanim::formats::ParseError {
    ani::read(bytes).expect_err("malformed input must be rejected")
}

#[test]
fn errors_name_offset_and_expectation() {
    let good = file(4002, &three_keys(4002), true);
    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&4003i32.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.offset, 4);
    assert!(e.expected.contains("4000, 4001 or 4002"), "{e}");

    let e = err(b"ANI\x01\x00\x00\x00\x00");
    assert_eq!(e.offset, 0);

    // A string claiming 2^31 bytes.
    let mut bad = good.clone();
    bad[12..16].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.offset, 16);
    assert!(e.expected.starts_with("the type of event 0 (2147483648 bytes), but only"), "{e}");
    assert!(e.expected.contains("bytes remain"), "{e}");

    // A negative key count.
    let key_count_at = good.len() - 3 * 24 - 4;
    let mut bad = good.clone();
    bad[key_count_at..key_count_at + 4].copy_from_slice(&(-1i32).to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.offset, key_count_at);

    // A NaN position.
    let mut bad = good.clone();
    let pos_at = good.len() - 24 + 8;
    bad[pos_at..pos_at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.offset, pos_at);
    assert!(e.expected.contains("finite"), "{e}");

    for cut in 0..good.len() {
        assert!(err(&good[..cut]).offset <= cut);
    }
    let mut long = good;
    long.push(0);
    assert!(err(&long).expected.contains("end of the file"));
}

/// A count larger than the file can hold names the items, the count field and the bytes left.
#[test]
fn oversized_counts_name_what_they_count() {
    // Magic, version 4000, event count 100,000,000, then nothing more.
    let mut bytes = b"ANI\0".to_vec();
    bytes.extend_from_slice(&4000i32.to_le_bytes());
    bytes.extend_from_slice(&100_000_000i32.to_le_bytes());
    bytes.extend_from_slice(&[0; 8]);
    let e = err(&bytes);
    assert_eq!(e.offset, 12);
    assert!(e.expected.starts_with("100000000 events (read from the event count) of 12 bytes each"), "{e}");
    assert!(e.expected.contains("only 8 bytes remain"), "{e}");

    // No events, total time 0, one track "B" whose key count (50,000,000) exceeds the file.
    let mut bytes = b"ANI\0".to_vec();
    for v in [4001i32, 0, 0, 1, 1] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.push(b'B');
    bytes.extend_from_slice(&1f32.to_le_bytes());
    bytes.extend_from_slice(&50_000_000i32.to_le_bytes());
    let e = err(&bytes);
    assert_eq!(e.offset, bytes.len());
    assert!(e.expected.starts_with("50000000 keys (read from the key count of track 0 (\"B\")) of 20 bytes each"), "{e}");
}
