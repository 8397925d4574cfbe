//! Properties: every valid file parses and reads back what was written; arbitrary bytes never panic.
mod animbin_support;

use animbin_support::*;
use proptest::prelude::*;
use psxanim_runtime::animbin::{AnimationManager, KeyValue, LargeAnimationManager};

const BONES: usize = 50;

/// Keys of one type with strictly increasing frames below `length`.
fn keys(length: u16, translation: bool) -> impl Strategy<Value = Vec<KeyB>> {
    (proptest::collection::btree_set(0..length, 1..=(length as usize).min(15)), any::<[i16; 4]>(), any::<[i32; 3]>())
        .prop_map(move |(frames, q, t)| {
            frames
                .into_iter()
                .enumerate()
                .map(|(i, f)| {
                    let s = i as i16;
                    if translation {
                        trans(f, [t[0].wrapping_add(s as i32), t[1], t[2]])
                    } else {
                        rot(f, [q[0].wrapping_add(s), q[1], q[2], q[3]])
                    }
                })
                .collect()
        })
}

fn clip_strategy() -> impl Strategy<Value = ClipB> {
    (1u16..200, any::<bool>(), any::<[u8; 32]>()).prop_flat_map(|(length, looping, name)| {
        let joints = proptest::sample::subsequence((0..BONES as u8).collect::<Vec<_>>(), 0..=10);
        let tracks = joints.prop_flat_map(move |joints| {
            joints
                .into_iter()
                .map(|j| {
                    (keys(length, false), keys(length, true), 0u8..3, any::<u8>()).prop_map(move |(r, t, mode, ty)| {
                        // Rotation only, translation only, or both interleaved by frame in one track.
                        let mut keys = match mode {
                            0 => r,
                            1 => t,
                            _ => r.into_iter().chain(t).collect(),
                        };
                        keys.sort_by_key(|k| k.frame);
                        TrackB { ty, joint: j, keys }
                    })
                })
                .collect::<Vec<_>>()
        });
        let markers = proptest::collection::vec((any::<[u8; 32]>(), 0..length), 0..=5);
        (tracks, markers).prop_map(move |(tracks, markers)| ClipB { name, flags: looping as u32, length, tracks, markers })
    })
}

fn file_strategy() -> impl Strategy<Value = FileB> {
    proptest::collection::vec(clip_strategy(), 0..=5).prop_map(FileB::new)
}

fn name_of(field: &[u8; 32]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(32);
    &field[..end]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn valid_files_parse_and_read_back(f in file_strategy()) {
        let bytes = f.to_bytes();
        let m = <AnimationManager>::parse(&bytes, BONES).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(m.len(), f.clips.len());
        for (c, built) in m.clips().zip(&f.clips) {
            prop_assert_eq!(c.name(), name_of(&built.name));
            prop_assert_eq!(c.length(), built.length);
            prop_assert_eq!(c.looping(), built.flags & 1 != 0);
            prop_assert_eq!(c.track_count(), built.tracks.len());
            for (t, tb) in c.tracks().zip(&built.tracks) {
                prop_assert_eq!(t.joint(), tb.joint);
                prop_assert_eq!(t.track_type(), tb.ty);
                let read: Vec<_> = t.keys().collect();
                prop_assert_eq!(read.len(), tb.keys.len());
                for (k, kb) in read.iter().zip(&tb.keys) {
                    prop_assert_eq!(k.frame, kb.frame);
                    match (&k.value, &kb.payload) {
                        (KeyValue::Rotation(a), Payload::Rotation(b)) => prop_assert_eq!(a, b),
                        (KeyValue::Translation(a), Payload::Translation(b)) => prop_assert_eq!(a, b),
                        _ => prop_assert!(false, "key type changed"),
                    }
                }
            }
            let markers: Vec<_> = c.markers().map(|mk| (mk.name.to_vec(), mk.frame)).collect();
            let expected: Vec<_> = built.markers.iter().map(|(n, fr)| (name_of(n).to_vec(), *fr)).collect();
            prop_assert_eq!(markers, expected);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512), bones in 0usize..300) {
        let _ = <AnimationManager>::parse(&bytes, bones);
        let mut prefixed = b"ANIMBIN\x01".to_vec();
        prefixed.extend_from_slice(&bytes);
        let _ = LargeAnimationManager::parse(&prefixed, bones);
    }

    /// Mutations of valid files reach the deep checks; whatever they give, reading what parsed is safe.
    #[test]
    fn mutated_valid_files_never_panic(f in file_strategy(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>()) {
        let mut bytes = f.to_bytes();
        for (at, v) in edits {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        let keep = bytes.len() - cut % 8.min(bytes.len());
        bytes.truncate(keep);
        if let Ok(m) = <AnimationManager>::parse(&bytes, BONES) {
            for c in m.clips() {
                for t in c.tracks() {
                    prop_assert!(t.keys().all(|k| k.frame < c.length()));
                }
                prop_assert!(c.markers().all(|mk| mk.frame < c.length()));
            }
        }
    }
}
