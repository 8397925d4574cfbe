//! Character tables (PXSK) in the runtime: any bytes either fail to parse with an error or parse and
//! decode, cache and render safely (no panic, no hang, no out-of-bounds access; errors only).
//!
//! Input: the blob itself, read from a 4-aligned copy and from a copy at an odd address. What runs
//! on it is `runtime/tests/tables_support` (shared with the host regression tests, so a minimised
//! crash replays there as a plain `cargo test`).
//!
//! Seeds: the fixture blobs, e.g. `cargo run -p psxanim -- import tests/fixtures/fbx/character.fbx
//! --storage rigid-gte -o DIR` (and `baked-vertices`, `prop.fbx`, `fast_spin.fbx`), each `.pxsk`
//! copied into `fuzz-runtime/corpus/tables_runtime/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../runtime/tests/tables_support/mod.rs"]
mod tables_support;

fuzz_target!(|data: &[u8]| {
    // A share of the per-clip work picked by the input's hash: several times the inputs a second.
    let [aligned, odd] = tables_support::exercise_aligned_and_odd_with(data, tables_support::Pick::hashed(data));
    // The same bytes give the same results wherever they are.
    assert_eq!(aligned, odd);
    assert_eq!(aligned.drawn_looking_away, 0);
});
