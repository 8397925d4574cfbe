//! Compiles the character for the console at build time: `psxanim import --rust` turns
//! assets/character.fbx into tables (rigid-gte storage) in OUT_DIR, `character.pxsk`, and the
//! `character.rs` that src/main.rs `include!`s: the tables embedded, and the `clip!` / `event!` macros
//! that check clip and event names against the model at build time.
//! `psxanim` is taken from $PSXANIM, else from PATH.
use std::path::PathBuf;
use std::process::Command;

const MODEL: &str = "assets/character.fbx";
/// The psxanim checkout this game was made from (`cargo xtask new-game`): its tool's source.
const TOOLING: &str = r#"{{tooling}}"#;

fn main() {
    // `import --rust` names its outputs and the blob's static after the model's file (character.rs,
    // CHARACTER), which src/main.rs includes and uses.
    let stem = std::path::Path::new(MODEL).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != "character" {
        panic!(
            "{MODEL}: src/main.rs includes character.rs and uses CHARACTER, the names `psxanim import --rust` gives \
             a model file named character.*: name it assets/character.<its extension> (a .gltf's buffers and \
             images keep their own names)"
        );
    }
    println!("cargo:rerun-if-changed={MODEL}");
    println!("cargo:rerun-if-env-changed=PSXANIM");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let psxanim = std::env::var_os("PSXANIM").unwrap_or_else(|| "psxanim".into());
    // A new psxanim (`cargo install` again) may write other tables: import again when it changes.
    if let Some(tool) = tool_path(&psxanim) {
        println!("cargo:rerun-if-changed={}", tool.display());
    }
    let status =
        Command::new(&psxanim).args(["import", MODEL, "--storage", "rigid-gte", "--rust", "-o"]).arg(&out).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("`psxanim import {MODEL}` failed ({s}); its message is above"),
        Err(e) => panic!(
            "could not run {psxanim:?} ({e}): install the psxanim tool first (`cargo install --path {TOOLING}`) \
             or set PSXANIM to its path"
        ),
    }
}

/// Where `tool` is: itself when it names a file, else the first match on PATH.
fn tool_path(tool: &std::ffi::OsStr) -> Option<PathBuf> {
    let path = PathBuf::from(tool);
    if path.components().count() > 1 {
        return path.is_file().then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(tool)).find(|p| p.is_file())
}
