//! Mutated copies of the fixture character's compiled tables (rigid and baked): a few bytes changed
//! in one section (header, strings, bones, vertices, primitives, materials, clip table, clip data)
//! never panic through parse, decoding, the pose cache and rendering; they give errors or a picture.
//! The harness is the fuzz target `tables_runtime`'s (runtime/tests/tables_support).

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{import, ImportOptions};
use psxanim_runtime::tables::Tables;

#[path = "../../runtime/tests/tables_support/mod.rs"]
mod tables_support;
use tables_support::exercise_aligned_and_odd;

/// The fixture character compiled rigid (index 0) and baked (index 1).
fn blobs() -> &'static [Vec<u8>; 2] {
    static BLOBS: OnceLock<[Vec<u8>; 2]> = OnceLock::new();
    BLOBS.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/character.fbx");
        let c = import(&path, &ImportOptions::default(), &mut |_, _, _| {}).expect("the fixture imports");
        [StorageMode::RigidGte, StorageMode::BakedVertices].map(|storage| compile(&c, &CompileOptions { storage, max_error: None, pose_tolerance: None, max_influences: 2, ..Default::default() }).unwrap().blob)
    })
}

/// Byte ranges of a blob's sections, from its header: header, strings, bones, vertices, primitive
/// stream, materials, clip table, then every clip's data.
fn sections(blob: &[u8]) -> Vec<(usize, usize)> {
    let u16_at = |at: usize| u16::from_le_bytes([blob[at], blob[at + 1]]) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(blob[at..at + 4].try_into().unwrap()) as usize;
    let (bones, vertices, materials, clips, words) =
        (u16_at(8), u16_at(10), u16_at(14), u16_at(16), u16_at(18));
    let mut s = vec![
        (0, 64),
        (u32_at(36), u32_at(60)),
        (u32_at(40), 8 * bones),
        (u32_at(44), 8 * vertices),
        (u32_at(48), 4 * words),
        (u32_at(52), 4 * materials),
        (u32_at(56), psxanim_runtime::tables::CLIP_SIZE * clips),
    ];
    let t = Tables::parse(blob).unwrap();
    for c in 0..clips {
        let clip = t.clip(c).unwrap();
        s.push((clip.data_offset as usize, clip.data_size as usize));
    }
    s
}

#[test]
fn the_unmutated_fixture_draws_and_caches() {
    for (i, blob) in blobs().iter().enumerate() {
        let [aligned, odd] = exercise_aligned_and_odd(blob);
        assert_eq!(aligned, odd);
        assert!(aligned.parsed && aligned.drawn > 0 && aligned.drawn_looking_away == 0, "{aligned:?}");
        assert_eq!(aligned.cache_built, i == 0);
        // Only the requests past the end fail: per clip the samples at its frame count (4; baked 3,
        // as a halfway sample from there to frame 0 draws frame 0) and the 3 interpolations towards
        // it, and the 18 renders of the clip past the last (17 samples and a crossfade into it); per
        // pass (rigid also renders from its cache).
        let clips = Tables::parse(blob).unwrap().clip_count();
        let expected = if i == 0 { 2 * (7 * clips + 18) } else { 6 * clips + 18 };
        assert_eq!(aligned.render_errors, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn bytes_changed_in_one_section_never_panic(
        baked in any::<bool>(),
        section in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..5),
    ) {
        let mut blob = blobs()[baked as usize].clone();
        let all = sections(&blob);
        let (start, len) = all[section.index(all.len())];
        prop_assume!(len > 0);
        for (at, flip) in &edits {
            blob[start + at.index(len)] ^= flip;
        }
        let [aligned, odd] = exercise_aligned_and_odd(&blob);
        prop_assert_eq!(aligned, odd);
        prop_assert_eq!(aligned.drawn_looking_away, 0);
    }
}
