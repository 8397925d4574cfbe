//! ANIMBIN: hand-built files from animbin.txt and the specs README, read field by field, rewritten
//! byte for byte, written in both encoder modes, and every error kind.

mod formats_support;
use formats_support::*;
use psxanim::formats::{animbin, AnimbinMode, Losses};
use psxanim::model::{Bone, Quat, TimeUnit};

/// One clip "Walk" (looping, 3 frames): joint 0 with two rotations and a translation in between,
/// joint 5 with one rotation; one marker "hit" at frame 2.
fn walk() -> Vec<u8> {
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1);
    let b = b.fixed("Walk", 32).u32le(1).u16le(3).u16le(2).u16le(1);
    let b = b.u8(0).u8(0).u16le(3);
    let b = animbin_rot(b, 0, [4096, 0, 0, 0]);
    let b = animbin_trans(b, 0, [8192, -4096, 2048]);
    let b = animbin_rot(b, 2, [2896, 2896, 0, 0]);
    let b = b.u8(0).u8(5).u16le(1);
    let b = animbin_rot(b, 1, [0, 0, -4096, 0]);
    b.fixed("hit", 32).u16le(2).done()
}

#[test]
fn reads_every_field() {
    let anim = animbin::read(&walk()).unwrap();
    assert_eq!(anim.version, 1);
    assert_eq!(anim.clips.len(), 1);
    let clip = &anim.clips[0];
    assert_eq!(clip.name, "Walk");
    assert!(clip.looping);
    assert_eq!(clip.time_unit, TimeUnit::Frame);
    assert_eq!(clip.length, 3.0);
    assert_eq!(clip.tracks.len(), 2);
    let t0 = &clip.tracks[0];
    assert_eq!(t0.bone, Bone::Id(0));
    assert_eq!(t0.rotation.len(), 2);
    assert_eq!(t0.rotation[0].value, Quat::new(1.0, 0.0, 0.0, 0.0));
    assert_eq!(t0.rotation[1].time, 2.0);
    assert_eq!(t0.rotation[1].value, Quat::new(2896.0 / 4096.0, 2896.0 / 4096.0, 0.0, 0.0));
    assert_eq!(t0.translation.len(), 1);
    assert_eq!(t0.translation[0].value, [2.0, -1.0, 0.5]);
    assert_eq!(clip.tracks[1].bone, Bone::Id(5));
    assert_eq!(clip.tracks[1].rotation[0].value, Quat::new(0.0, 0.0, -1.0, 0.0));
    assert_eq!(clip.events.len(), 1);
    assert_eq!((clip.events[0].name.as_str(), clip.events[0].time), ("hit", 2.0));
}

#[test]
fn unedited_rewrite_is_byte_identical_in_both_modes() {
    let bytes = walk();
    let anim = animbin::read(&bytes).unwrap();
    for mode in [AnimbinMode::Correct, AnimbinMode::Original] {
        let mut losses = Losses::default();
        assert_eq!(animbin::write(&anim, mode, &mut losses).unwrap(), bytes, "{mode:?}");
        assert!(losses.is_empty(), "{:?}", losses.0);
    }
}

#[test]
fn keeps_unusual_fields_exactly() {
    // Flags with more than bit 0, a track type of 7, a 32-byte name with no terminator, garbage after a
    // name's NUL, version 9: all written back unchanged.
    let b = Bytes::new().raw(b"ANIMBIN").u8(9).u8(1);
    let b = b.raw(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345").u32le(0x8000_0002).u16le(1).u16le(1).u16le(1);
    let b = animbin_rot(b.u8(7).u8(1).u16le(1), 0, [4096, 0, 0, 0]);
    let mut marker = b"m\0garbage".to_vec();
    marker.resize(32, 0xAA);
    let bytes = b.raw(&marker).u16le(0).done();
    let anim = animbin::read(&bytes).unwrap();
    assert_eq!(anim.clips[0].name.len(), 32);
    assert!(!anim.clips[0].looping);
    assert_eq!(anim.clips[0].events[0].name, "m");
    let out = animbin::write(&anim, AnimbinMode::Correct, &mut Losses::default()).unwrap();
    assert_eq!(out, bytes);
}

#[test]
fn empty_track_is_read_as_no_keys() {
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("e", 32).u32le(0).u16le(1).u16le(1).u16le(0);
    let anim = animbin::read(&b.u8(0).u8(3).u16le(0).done()).unwrap();
    assert!(anim.clips[0].tracks[0].rotation.is_empty());
}

fn err(bytes: &[u8]) -> psxanim::formats::ParseError {
    animbin::read(bytes).expect_err("malformed input must be rejected")
}

#[test]
fn errors_name_offset_and_expectation() {
    let e = err(b"ANIMBIX\x01\x00");
    assert_eq!(e.offset, 0);
    assert!(e.expected.contains("ANIMBIN"), "{e}");

    // Unknown keyType 2 on the first key: offset 9 + 42 + 4 + 2 = 57.
    let mut bytes = walk();
    bytes[57] = 2;
    let e = err(&bytes);
    assert_eq!(e.offset, 57);
    assert!(e.expected.contains("key type 0 (rotation) or 1 (translation)"), "{e}");

}

#[test]
fn tracks_past_the_declared_count_are_not_read_and_warned() {
    // The original loader reads `numTracks` tracks and `numMarkers` markers and stops: a clip that
    // declares one track of the two written loads one, and the second is left unread.
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("Walk", 32).u32le(1).u16le(3).u16le(1).u16le(0);
    let b = animbin_rot(b.u8(0).u8(0).u16le(1), 0, [4096, 0, 0, 0]);
    let declared_end = b.len();
    let bytes = animbin_rot(b.u8(0).u8(5).u16le(1), 1, [0, 0, -4096, 0]).done();
    let anim = animbin::read(&bytes).unwrap();
    assert_eq!(anim.clips[0].tracks.len(), 1);
    assert_eq!(anim.clips[0].tracks[0].bone, Bone::Id(0));
    assert_eq!(anim.warnings.len(), 1);
    let w = &anim.warnings[0];
    assert!(w.contains(&format!("at byte offset {declared_end}")) && w.contains("1 whole track(s)"), "{w}");
    // Any other bytes after the last clip: the same choice, without the track count.
    let mut bytes = walk();
    bytes.push(0);
    let anim = animbin::read(&bytes).unwrap();
    assert_eq!(anim.clips, animbin::read(&walk()).unwrap().clips);
    assert!(anim.warnings[0].contains(&format!("at byte offset {}", walk().len())), "{:?}", anim.warnings);
    assert!(animbin::read(&walk()).unwrap().warnings.is_empty());
}

#[test]
fn every_truncation_is_an_error_at_or_before_the_cut() {
    let bytes = walk();
    for cut in 0..bytes.len() {
        let e = err(&bytes[..cut]);
        assert!(e.offset <= cut, "cut {cut}: {e}");
    }
}

#[test]
fn counts_are_checked_before_allocating() {
    // 65535 tracks and 65535 keys claimed in a tiny file.
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("big", 32).u32le(1).u16le(1).u16le(65535).u16le(0);
    let e = err(&b.done());
    assert!(e.expected.contains("65535 tracks"), "{e}");
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("big", 32).u32le(1).u16le(1).u16le(1).u16le(0);
    let e = err(&b.u8(0).u8(0).u16le(65535).done());
    assert!(e.expected.contains("65535 keys"), "{e}");
}

fn one_rotation_clip(values: &[Quat], looping: bool) -> psxanim::model::Animation {
    let mut anim = animbin::read(&walk()).unwrap();
    let clip = &mut anim.clips[0];
    clip.looping = looping;
    clip.events.clear();
    clip.tracks.truncate(1);
    clip.tracks[0].translation.clear();
    clip.tracks[0].extras.animbin_key_order = None;
    clip.tracks[0].rotation = values
        .iter()
        .enumerate()
        .map(|(i, &value)| psxanim::model::RotationKey { time: i as f64, value, stored: None })
        .collect();
    anim
}

fn written_rotations(bytes: &[u8]) -> Vec<[i16; 4]> {
    let anim = animbin::read(bytes).unwrap();
    anim.clips[0].tracks[0]
        .rotation
        .iter()
        .map(|k| [k.value.w, k.value.x, k.value.y, k.value.z].map(|v| (v * 4096.0) as i16))
        .collect()
}

#[test]
fn original_mode_truncates_and_forces_flags() {
    let q = Quat::new(0.99999, -0.0002, 0.0, 0.0);
    let anim = one_rotation_clip(&[q], false);
    let mut losses = Losses::default();
    let orig = animbin::write(&anim, AnimbinMode::Original, &mut losses).unwrap();
    assert_eq!(written_rotations(&orig), vec![[4095, 0, 0, 0]]);
    assert_eq!(u32::from_le_bytes(orig[41..45].try_into().unwrap()), 1, "flags = 1");
    assert!(losses.0.iter().any(|l| l.contains("flags = 1")), "{:?}", losses.0);
    let correct = animbin::write(&anim, AnimbinMode::Correct, &mut Losses::default()).unwrap();
    // Correct mode normalises, then rounds: w to 4096, -0.0002 * 4096 = -0.82 to -1 (truncation gives 0).
    assert_eq!(written_rotations(&correct), vec![[4096, -1, 0, 0]]);
    assert_eq!(u32::from_le_bytes(correct[41..45].try_into().unwrap()), 0, "non-looping kept");
}

#[test]
fn correct_mode_keeps_hemisphere_continuity() {
    let a = axis_angle([0.0, 1.0, 0.0], 0.3);
    let b = axis_angle([0.0, 1.0, 0.0], 0.35).neg();
    let anim = one_rotation_clip(&[a, b], true);
    let correct = written_rotations(&animbin::write(&anim, AnimbinMode::Correct, &mut Losses::default()).unwrap());
    assert!(correct[1][0] > 0, "second key flipped into the first's hemisphere: {correct:?}");
    let orig = written_rotations(&animbin::write(&anim, AnimbinMode::Original, &mut Losses::default()).unwrap());
    assert!(orig[1][0] < 0, "the original exporter does not fix the hemisphere: {orig:?}");
}

#[test]
fn original_profile_rejects_what_the_original_runtime_mishandles() {
    use psxanim::formats::profile::{check, LARGE, ORIGINAL};
    assert!(check(&animbin::read(&walk()).unwrap(), ORIGINAL).is_empty());
    // Empty track, unterminated 32-byte name, frames out of order, a key past the length.
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).raw(&[b'N'; 32]).u32le(1).u16le(2).u16le(2).u16le(0);
    let b = b.u8(0).u8(0).u16le(0);
    let b = animbin_rot(animbin_rot(b.u8(0).u8(1).u16le(2), 1, [4096, 0, 0, 0]), 1, [4096, 0, 0, 0]);
    let anim = animbin::read(&b.done()).unwrap();
    let problems = check(&anim, LARGE).join("\n");
    assert!(problems.contains("no keys"), "{problems}");
    assert!(problems.contains("no terminator"), "{problems}");
    assert!(problems.contains("not strictly increasing"), "{problems}");
    // Two tracks on one joint's rotation.
    let b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(1).fixed("d", 32).u32le(1).u16le(2).u16le(2).u16le(0);
    let b = animbin_rot(b.u8(0).u8(4).u16le(1), 0, [4096, 0, 0, 0]);
    let b = animbin_rot(b.u8(0).u8(4).u16le(1), 1, [4096, 0, 0, 0]);
    let problems = check(&animbin::read(&b.done()).unwrap(), ORIGINAL).join("\n");
    assert!(problems.contains("a second track animating the rotation"), "{problems}");
}
