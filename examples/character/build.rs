//! Links with psxanim's PS-EXE script, and points `include_bytes!` at the character tables that
//! `cargo xtask build-exe character` generates with `psxanim import` (never committed).
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let script = dir.join("../../linker/psexe.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bins=-T{}", script.display());

    println!("cargo:rerun-if-env-changed=PSXANIM_CHARACTER_TABLES");
    let tables = std::env::var_os("PSXANIM_CHARACTER_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("../../target/character-tables"));
    for (var, storage) in [("CHARACTER_RIGID", "rigid-gte"), ("CHARACTER_BAKED", "baked-vertices")] {
        let blob = tables.join(storage).join("character.pxsk");
        if !blob.is_file() {
            panic!(
                "{} is missing: build this example with `cargo xtask build-exe character` (or verify), which \
                 generates it with `psxanim import tests/fixtures/fbx/character.fbx --storage {storage}` \
                 (rigid-gte with --max-influences 2)",
                blob.display()
            );
        }
        println!("cargo:rerun-if-changed={}", blob.display());
        println!("cargo:rustc-env={var}={}", blob.display());
    }
    // The 20-bone character of the forward-decoding benches (tests/fixtures/fbx/twenty_bones.fbx), and
    // the character with one atlas texture over it all, drawn textured and lit
    // (tests/fixtures/fbx/textured_atlas.fbx, --lighting).
    for (var, name) in [("CHARACTER_TWENTY", "twenty_bones.pxsk"), ("CHARACTER_TEXTURED", "textured_atlas.pxsk")] {
        let blob = tables.join("rigid-gte").join(name);
        if !blob.is_file() {
            panic!("{} is missing: build this example with `cargo xtask build-exe character`", blob.display());
        }
        println!("cargo:rerun-if-changed={}", blob.display());
        println!("cargo:rustc-env={var}={}", blob.display());
    }
}
