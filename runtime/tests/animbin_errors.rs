//! Every parse error kind, built from byte vectors, with the offset it must name.
mod animbin_support;

use animbin_support::*;
use psxanim_runtime::animbin::{AnimationManager, Error, ErrorKind, KeyType, KeyValue, LargeAnimationManager};

const BONES: usize = 4;

/// One looping clip, length 10: joint 0 rotation keys at 0 and 5, joint 1 one translation key.
fn base() -> FileB {
    let mut c = clip(
        "walk",
        true,
        10,
        vec![
            track(0, vec![rot(0, IDENTITY), rot(5, [0, 4096, 0, 0])]),
            track(1, vec![trans(0, [4096, -8192, 123456])]),
        ],
    );
    c.markers.push((name("step"), 3));
    FileB::new(vec![c])
}

// Offsets in `base()`.
const CLIP0: usize = HEADER;
const TRACK0: usize = CLIP0 + CLIP_HEADER;
const TRACK1: usize = TRACK0 + TRACK_HEADER + 2 * ROT_KEY;
const MARKERS: usize = TRACK1 + TRACK_HEADER + TRANS_KEY;

fn parse(bytes: &[u8]) -> Result<AnimationManager<'_>, Error> {
    AnimationManager::parse(bytes, BONES)
}

fn error(bytes: &[u8]) -> Error {
    match parse(bytes) {
        Ok(_) => panic!("parsed a file that should fail"),
        Err(e) => e,
    }
}

#[test]
fn base_file_parses_with_every_field_kept() {
    let bytes = base().to_bytes();
    assert_eq!(bytes.len(), MARKERS + MARKER);
    let m = parse(&bytes).unwrap();
    assert_eq!(m.len(), 1);
    let c = m.clip(0).unwrap();
    assert_eq!(c.name(), b"walk");
    assert!(c.looping());
    assert_eq!(c.length(), 10);
    assert_eq!(c.track_count(), 2);
    let keys: Vec<_> = c.track(0).unwrap().keys().collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[1].frame, 5);
    assert_eq!(keys[1].value, KeyValue::Rotation([0, 4096, 0, 0]));
    let t = c.track(1).unwrap();
    assert_eq!(t.joint(), 1);
    assert_eq!(t.keys().next().unwrap().value, KeyValue::Translation([4096, -8192, 123456]));
    let marker = c.marker(0).unwrap();
    assert_eq!((marker.name, marker.frame), (&b"step"[..], 3));
    assert!(m.find(b"walk").is_some());
    assert!(m.find(b"run").is_none());
    assert!(m.clip(1).is_none());
}

#[test]
fn bad_magic() {
    let mut bytes = base().to_bytes();
    bytes[3] = b'X';
    assert_eq!(error(&bytes), Error { offset: 0, kind: ErrorKind::BadMagic });
}

#[test]
fn unsupported_version() {
    let mut f = base();
    f.version = 2;
    assert_eq!(error(&f.to_bytes()), Error { offset: 7, kind: ErrorKind::UnsupportedVersion { found: 2 } });
}

#[test]
fn every_truncation_is_an_error_naming_a_field_inside_the_file() {
    let bytes = base().to_bytes();
    for len in 0..bytes.len() {
        let e = error(&bytes[..len]);
        match e.kind {
            ErrorKind::Truncated { needed, available } => {
                assert!(e.offset as usize <= len, "offset {} past the end {len}", e.offset);
                assert_eq!(available as usize, len - e.offset as usize);
                assert!(needed > available);
            }
            other => panic!("cut at {len}: expected Truncated, got {other:?}"),
        }
    }
    // A cut inside the second key's payload names that payload.
    let e = error(&bytes[..TRACK0 + TRACK_HEADER + ROT_KEY + 5]);
    assert_eq!(
        e,
        Error { offset: (TRACK0 + TRACK_HEADER + ROT_KEY + 3) as u32, kind: ErrorKind::Truncated { needed: 8, available: 2 } }
    );
}

#[test]
fn too_many_animations_for_the_profile_but_fine_for_a_larger_one() {
    let f = FileB::new(vec![base().clips[0].clone(); 6]);
    let bytes = f.to_bytes();
    assert_eq!(error(&bytes), Error { offset: 8, kind: ErrorKind::TooManyAnimations { count: 6, max: 5 } });
    let large = LargeAnimationManager::parse(&bytes, BONES).unwrap();
    assert_eq!(large.len(), 6);
    assert_eq!(large.clip(5).unwrap().name(), b"walk");
}

#[test]
fn zero_length() {
    let mut f = base();
    f.clips[0].length = 0;
    f.clips[0].markers.clear();
    assert_eq!(error(&f.to_bytes()), Error { offset: (CLIP0 + 36) as u32, kind: ErrorKind::ZeroLength { clip: 0 } });
}

#[test]
fn too_many_tracks() {
    let mut f = base();
    f.clips[0].tracks = (0..51).map(|j| track(j as u8, vec![rot(0, IDENTITY)])).collect();
    let bytes = f.to_bytes();
    assert_eq!(
        <AnimationManager>::parse(&bytes, 64).err().unwrap(),
        Error { offset: (CLIP0 + 38) as u32, kind: ErrorKind::TooManyTracks { clip: 0, count: 51, max: 50 } }
    );
    assert!(LargeAnimationManager::parse(&bytes, 64).is_ok());
}

#[test]
fn too_many_markers() {
    let mut f = base();
    f.clips[0].markers = vec![(name("m"), 1); 6];
    assert_eq!(
        error(&f.to_bytes()),
        Error { offset: (CLIP0 + 40) as u32, kind: ErrorKind::TooManyMarkers { clip: 0, count: 6, max: 5 } }
    );
}

#[test]
fn empty_track() {
    let mut f = base();
    f.clips[0].tracks[1].keys.clear();
    assert_eq!(
        error(&f.to_bytes()),
        Error { offset: (TRACK1 + 2) as u32, kind: ErrorKind::EmptyTrack { clip: 0, track: 1 } }
    );
}

#[test]
fn too_many_keys() {
    let mut f = base();
    f.clips[0].length = 100;
    f.clips[0].tracks[0].keys = (0..31).map(|i| rot(i, IDENTITY)).collect();
    assert_eq!(
        error(&f.to_bytes()),
        Error { offset: (TRACK0 + 2) as u32, kind: ErrorKind::TooManyKeys { clip: 0, track: 0, count: 31, max: 30 } }
    );
    f.clips[0].tracks[0].keys.pop();
    assert!(parse(&f.to_bytes()).is_ok());
}

#[test]
fn joint_out_of_range() {
    let mut f = base();
    f.clips[0].tracks[1].joint = BONES as u8;
    assert_eq!(
        error(&f.to_bytes()),
        Error { offset: (TRACK1 + 1) as u32, kind: ErrorKind::JointOutOfRange { clip: 0, track: 1, joint: 4, bones: 4 } }
    );
}

#[test]
fn duplicate_channel_but_rotation_and_translation_of_one_joint_may_share_or_split_tracks() {
    let mut f = base();
    f.clips[0].tracks[1].keys.push(rot(1, IDENTITY)); // joint 1: translation and rotation in one track
    f.clips[0].tracks.push(track(0, vec![trans(2, [1, 2, 3])])); // joint 0 translation in its own track
    assert!(parse(&f.to_bytes()).is_ok());
    let mut dup = base();
    dup.clips[0].tracks[1].joint = 0;
    dup.clips[0].tracks[1].keys = vec![rot(1, IDENTITY)];
    assert_eq!(
        error(&dup.to_bytes()),
        Error {
            offset: (TRACK1 + 1) as u32,
            kind: ErrorKind::DuplicateChannel { clip: 0, track: 1, joint: 0, key_type: KeyType::Rotation }
        }
    );
}

#[test]
fn unknown_key_type() {
    let mut f = base();
    f.clips[0].tracks[0].keys[1].payload = Payload::Raw(2, vec![0; 8]);
    assert_eq!(
        error(&f.to_bytes()),
        Error {
            offset: (TRACK0 + TRACK_HEADER + ROT_KEY + 2) as u32,
            kind: ErrorKind::UnknownKeyType { clip: 0, track: 0, key: 1, found: 2 }
        }
    );
}

#[test]
fn key_frame_out_of_range() {
    let mut f = base();
    f.clips[0].tracks[0].keys[1].frame = 10;
    assert_eq!(
        error(&f.to_bytes()),
        Error {
            offset: (TRACK0 + TRACK_HEADER + ROT_KEY) as u32,
            kind: ErrorKind::KeyFrameOutOfRange { clip: 0, track: 0, key: 1, frame: 10, length: 10 }
        }
    );
}

#[test]
fn key_frames_must_increase_per_key_type() {
    let mut f = base();
    f.clips[0].tracks[0].keys[1].frame = 0;
    assert_eq!(
        error(&f.to_bytes()),
        Error {
            offset: (TRACK0 + TRACK_HEADER + ROT_KEY) as u32,
            kind: ErrorKind::KeyFrameOrder { clip: 0, track: 0, key: 1, frame: 0, previous: 0 }
        }
    );
    // A translation key at an earlier frame than a rotation key of the same track is fine.
    let mut mixed = base();
    mixed.clips[0].tracks[0].keys.push(trans(1, [0; 3]));
    assert!(parse(&mixed.to_bytes()).is_ok());
}

#[test]
fn marker_frame_out_of_range() {
    let mut f = base();
    f.clips[0].markers[0].1 = 10;
    assert_eq!(
        error(&f.to_bytes()),
        Error {
            offset: (MARKERS + 32) as u32,
            kind: ErrorKind::MarkerFrameOutOfRange { clip: 0, marker: 0, frame: 10, length: 10 }
        }
    );
}

#[test]
fn a_name_using_all_32_bytes_is_an_unterminated_name() {
    let mut f = base();
    f.clips[0].name = [b'A'; 32];
    f.clips[0].markers[0].0 = [b'B'; 32];
    let bytes = f.to_bytes();
    let m = parse(&bytes).unwrap();
    let c = m.clip(0).unwrap();
    assert_eq!(c.name(), &[b'A'; 32][..]);
    assert_eq!(c.marker(0).unwrap().name, &[b'B'; 32][..]);
    assert!(m.find(&[b'A'; 32]).is_some());
}

#[test]
fn trailing_sector_padding_is_ignored() {
    let mut bytes = base().to_bytes();
    bytes.resize(2048, 0);
    assert_eq!(parse(&bytes).unwrap().clip(0).unwrap().marker_count(), 1);
}

#[test]
fn every_error_has_a_distinct_code_and_a_message_with_its_offset() {
    let kinds = [
        ErrorKind::Truncated { needed: 1, available: 0 },
        ErrorKind::BadMagic,
        ErrorKind::UnsupportedVersion { found: 0 },
        ErrorKind::TooManyAnimations { count: 0, max: 0 },
        ErrorKind::ZeroLength { clip: 0 },
        ErrorKind::TooManyTracks { clip: 0, count: 0, max: 0 },
        ErrorKind::TooManyMarkers { clip: 0, count: 0, max: 0 },
        ErrorKind::EmptyTrack { clip: 0, track: 0 },
        ErrorKind::TooManyKeys { clip: 0, track: 0, count: 0, max: 0 },
        ErrorKind::JointOutOfRange { clip: 0, track: 0, joint: 0, bones: 0 },
        ErrorKind::DuplicateChannel { clip: 0, track: 0, joint: 0, key_type: KeyType::Rotation },
        ErrorKind::UnknownKeyType { clip: 0, track: 0, key: 0, found: 0 },
        ErrorKind::KeyFrameOutOfRange { clip: 0, track: 0, key: 0, frame: 0, length: 0 },
        ErrorKind::KeyFrameOrder { clip: 0, track: 0, key: 0, frame: 0, previous: 0 },
        ErrorKind::MarkerFrameOutOfRange { clip: 0, marker: 0, frame: 0, length: 0 },
    ];
    let mut codes: Vec<u32> = kinds.iter().map(|&kind| Error { offset: 77, kind }.code()).collect();
    for kind in kinds {
        assert!(Error { offset: 77, kind }.to_string().starts_with("ANIMBIN offset 77: "));
    }
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), kinds.len());
    assert!(!codes.contains(&0), "0 means no error in the record");
}
