//! Points `include_bytes!` at the character tables that `cargo xtask build-exe psx-game` generates
//! with `psxanim import` (never committed). psx's own build script provides the linker script.
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-env-changed=PSXANIM_CHARACTER_TABLES");
    let tables = std::env::var_os("PSXANIM_CHARACTER_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("../../target/character-tables"));
    // The glTF export of the fixture character (tests/fixtures/gltf/blender_character.glb), and the
    // same character as one continuous skin of 2,946 vertices (tests/fixtures/fbx/dense_character.fbx).
    for (var, name, source) in [
        ("CHARACTER_RIGID", "blender_character.pxsk", "tests/fixtures/gltf/blender_character.glb"),
        ("CHARACTER_DENSE", "dense_character.pxsk", "tests/fixtures/fbx/dense_character.fbx"),
        ("CHARACTER_TEXTURED", "textured_embedded.pxsk", "tests/fixtures/fbx/textured_embedded.fbx"),
        ("CHARACTER_ATLAS", "textured_atlas.pxsk", "tests/fixtures/fbx/textured_atlas.fbx"),
        ("CHARACTER_TILED", "textured_tiled.pxsk", "tests/fixtures/fbx/textured_tiled.fbx"),
    ] {
        let blob = tables.join("rigid-gte").join(name);
        if !blob.is_file() {
            panic!(
                "{} is missing: build with `cargo xtask build-exe --example psx-game`, which generates it with \
                 `psxanim import {source} --storage rigid-gte`",
                blob.display()
            );
        }
        println!("cargo:rerun-if-changed={}", blob.display());
        println!("cargo:rustc-env={var}={}", blob.display());
    }
}
