//! The fuzz target `tables_runtime`'s harness on the host (`tables_support`): hand-built blobs and
//! the inputs fuzzing found, each kept as a regression test with what it broke.

mod render_support;
mod tables_support;

use psxanim_runtime::tables::{Tables, CLIP_POSE_HEADER_SIZE};
use render_support::{blob, two_squares_blob, BoneDef, RigidClip, SQUARE};
use tables_support::exercise_aligned_and_odd;

fn rigid_blob() -> Vec<u8> {
    two_squares_blob(&[
        RigidClip { frames: 3, poses: vec![(30.0, [100, -200, 0]), (0.0, [1500, 0, 0])] },
        RigidClip { frames: 20, poses: vec![(90.0, [0, 0, 0]), (-45.0, [0, 2000, 300])] },
    ])
}

fn baked_blob() -> Vec<u8> {
    let bones = [BoneDef { parent: None, vertices: SQUARE.to_vec() }];
    let moved: Vec<[i16; 3]> = SQUARE.iter().map(|v| [v[0] + 40, v[1], v[2] - 30]).collect();
    blob(&bones, &[[0, 2, 1, 0], [1, 2, 3, 0]], &[[200, 10, 10]], &[], &[(SQUARE.to_vec(), false), (moved, true)])
}

#[test]
fn the_harness_draws_a_sound_blob_only_through_the_camera_that_sees_it() {
    for (name, b) in [("rigid", rigid_blob()), ("baked", baked_blob())] {
        let [aligned, odd] = exercise_aligned_and_odd(&b);
        assert_eq!(aligned, odd, "{name}");
        assert!(aligned.parsed && aligned.drawn > 0, "{name}: {aligned:?}");
        assert_eq!(aligned.drawn_looking_away, 0, "{name}");
        assert_eq!(aligned.cache_built, name == "rigid");
    }
}

#[test]
fn truncated_blobs_whose_header_says_so_are_refused_or_render_safely() {
    for (baked, b) in [(false, rigid_blob()), (true, baked_blob())] {
        let [full, _] = exercise_aligned_and_odd(&b);
        let mut parsed = 0;
        for len in 64..b.len() {
            let mut cut = b[..len].to_vec();
            cut[32..36].copy_from_slice(&(len as u32).to_le_bytes());
            let [aligned, odd] = exercise_aligned_and_odd(&cut);
            assert_eq!(aligned, odd);
            if aligned.parsed {
                parsed += 1;
                // A cut frame payload fails when decoded, never draws garbage.
                assert!(aligned.render_errors >= full.render_errors && aligned.drawn <= full.drawn, "{len}: {aligned:?}");
            }
        }
        if baked {
            // The frame payloads lie outside the parser's sections (checked as they are decoded).
            assert!(parsed > 0);
        } else {
            // Every rigid section is bounded at parse time: only the alignment padding may go.
            assert!(parsed <= 3, "{parsed}");
        }
    }
}


/// Byte offset of clip `clip`'s constants (after its header and descriptors).
fn constants_offset(b: &[u8], clip: usize) -> usize {
    let t = Tables::parse(b).unwrap();
    t.clip(clip).unwrap().data_offset as usize + CLIP_POSE_HEADER_SIZE + 12 * t.bone_count()
}

/// Fuzzing found (crash-a4b8bcd8, from the fast_spin rigid seed): a stored rotation component of
/// nearly 2.0. The interpolated render blends two such samples and their dot product (four Q30 * Q30
/// products) overflowed `i64`. Rotations are now halfwords with 15 fraction bits: no stored value
/// exceeds 1.0 in magnitude, so the extremes of a halfword (no unit quaternion) decode, blend, cache
/// and draw without overflow.
#[test]
fn a_rotation_at_the_halfword_extremes_draws_without_overflow() {
    let mut b = rigid_blob();
    let at = constants_offset(&b, 0);
    // Bone 0's constant rotation: x, y, z, w all -32768 (-1.0).
    for k in 0..4 {
        b[at + 2 * k..at + 2 * k + 2].copy_from_slice(&i16::MIN.to_le_bytes());
    }
    let t = Tables::parse(&b).unwrap();
    let mut samples = [Default::default(); 2];
    assert_eq!(t.decode_pose(0, 0, &mut samples), Ok(()));
    assert_eq!(samples[0].rotation, [-(1 << 30); 4]);
    let [aligned, odd] = exercise_aligned_and_odd(&b);
    assert_eq!(aligned, odd);
    assert!(aligned.parsed && aligned.cache_built && aligned.drawn > 0, "{aligned:?}");
}

/// `b` with events (frame, string offset) appended for each of its clips, and the header's size.
fn with_events(mut b: Vec<u8>, events: &[(u16, u16)]) -> Vec<u8> {
    use psxanim_runtime::tables::CLIP_SIZE;
    let clips_at = u32::from_le_bytes(b[56..60].try_into().unwrap()) as usize;
    let clips = u16::from_le_bytes([b[16], b[17]]) as usize;
    for clip in 0..clips {
        let entry = clips_at + clip * CLIP_SIZE;
        let at = b.len();
        for (frame, name) in events {
            b.extend_from_slice(&frame.to_le_bytes());
            b.extend_from_slice(&name.to_le_bytes());
        }
        b[entry + 6..entry + 8].copy_from_slice(&(events.len() as u16).to_le_bytes());
        b[entry + 16..entry + 20].copy_from_slice(&(at as u32).to_le_bytes());
    }
    let total = b.len() as u32;
    b[32..36].copy_from_slice(&total.to_le_bytes());
    b
}

#[test]
fn events_are_reported_and_damaged_event_tables_fail_cleanly() {
    // Events at frames 0 and 2 of every clip ("b" and "c" of the string table).
    let b = with_events(rigid_blob(), &[(2, 0), (0, 2)]);
    let [aligned, odd] = exercise_aligned_and_odd(&b);
    assert_eq!(aligned, odd);
    assert!(aligned.parsed && aligned.events >= 4, "{aligned:?}");
    // Every byte of the clip table and the events, damaged in turn: refused or played safely.
    let clips_at = u32::from_le_bytes(b[56..60].try_into().unwrap()) as usize;
    let mut refused = 0;
    for at in (clips_at..clips_at + 2 * psxanim_runtime::tables::CLIP_SIZE).chain(b.len() - 16..b.len()) {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut d = b.clone();
            d[at] ^= flip;
            let [r, _] = exercise_aligned_and_odd(&d);
            refused += !r.parsed as usize;
        }
    }
    assert!(refused > 0);
}

/// The fuzzer's share of the work (a hash of the input picks it) still parses, builds the cache and
/// draws a sound blob, and reports what it drew the same at either address.
#[test]
fn the_fuzzers_hashed_share_still_draws_a_sound_blob() {
    use tables_support::{exercise_aligned_and_odd_with, Pick};
    let blob = rigid_blob();
    let [aligned, odd] = exercise_aligned_and_odd_with(&blob, Pick::hashed(&blob));
    assert_eq!(aligned, odd);
    assert!(aligned.parsed && aligned.cache_built && aligned.drawn > 0, "{aligned:?}");
    let [all, _] = tables_support::exercise_aligned_and_odd(&blob);
    assert!(aligned.drawn < all.drawn, "a share: {} of {} renders", aligned.drawn, all.drawn);
}
