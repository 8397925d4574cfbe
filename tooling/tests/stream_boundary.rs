//! A block boundary prepared over two frames (`stream::prepare_boundary`), on the 20-bone fixture's
//! Walk: on the frame before the block's last, the spare voice reads the first half of the bones of
//! the next block's first record and stands nowhere; on the last frame it reads the second half. It
//! then holds exactly what a voice prepared at once holds, and the step across the boundary from it
//! gives the same poses.

use std::path::PathBuf;

use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{import, ImportOptions};
use psxanim_runtime::gte::PoseQ14;
use psxanim_runtime::tables::stream::{advance_voice, pose_voice_q14, prepare_boundary, words_needed, VoiceState};
use psxanim_runtime::tables::Tables;

#[test]
fn a_boundary_prepared_in_two_halves_is_the_boundary_prepared_at_once() {
    let fbx = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/twenty_bones.fbx");
    let c = import(&fbx, &ImportOptions::default(), &mut |_, _, _| {}).expect("the fixture imports");
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    let clip = t.find_clip("Walk").expect("the fixture's Walk");
    let frames = t.clip(clip).unwrap().frame_count as usize;
    let n = words_needed(&t, clip).unwrap();
    let (mut from, mut from_words) = (VoiceState::IDLE, vec![0u32; n]);
    // The first frame where a voice prepares at once is the first block's last frame.
    let boundary = (1..frames - 1)
        .find(|&g| {
            advance_voice(&t, &mut from, &mut from_words, clip, g).unwrap();
            let mut spare = VoiceState::IDLE;
            prepare_boundary(&t, &from, &mut spare, &mut vec![0; n])
        })
        .expect("the Walk crosses a block boundary");
    let (mut at_once, mut at_once_words) = (VoiceState::IDLE, vec![0u32; n]);
    assert!(prepare_boundary(&t, &from, &mut at_once, &mut at_once_words));

    let (mut before, mut before_words) = (VoiceState::IDLE, vec![0u32; n]);
    advance_voice(&t, &mut before, &mut before_words, clip, boundary - 1).unwrap();
    let (mut halves, mut halves_words) = (VoiceState::IDLE, vec![0u32; n]);
    assert!(!prepare_boundary(&t, &before, &mut halves, &mut halves_words), "half a record is not a prepared voice");
    assert_eq!(halves.clip(), None, "a half-prepared voice stands nowhere");
    let first_half = halves_words.clone();
    assert_ne!(first_half, vec![0; n], "the first half was read");
    assert_ne!(first_half, at_once_words, "only the first half was read");
    assert!(!prepare_boundary(&t, &before, &mut halves, &mut halves_words), "asked again, the first half is kept");
    assert_eq!(halves_words, first_half);
    assert!(prepare_boundary(&t, &from, &mut halves, &mut halves_words));
    assert_eq!((halves, &halves_words), (at_once, &at_once_words));

    let bones = t.bone_count();
    let (mut a, mut b) = (vec![PoseQ14::default(); bones], vec![PoseQ14::default(); bones]);
    assert!(pose_voice_q14(&t, &mut halves, &mut halves_words, clip, boundary + 1, 2048, &mut a).unwrap());
    assert!(pose_voice_q14(&t, &mut at_once, &mut at_once_words, clip, boundary + 1, 2048, &mut b).unwrap());
    assert_eq!(a, b);
}
