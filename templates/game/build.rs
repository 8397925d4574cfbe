//! Compiles the character for the console at build time: `psxanim import` turns assets/character.fbx
//! into tables (rigid-gte storage) in OUT_DIR, which src/main.rs embeds with `include_bytes!`.
//! `psxanim` is taken from $PSXANIM, else from PATH.
use std::path::PathBuf;
use std::process::Command;

const MODEL: &str = "assets/character.fbx";

fn main() {
    println!("cargo:rerun-if-changed={MODEL}");
    println!("cargo:rerun-if-env-changed=PSXANIM");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let psxanim = std::env::var_os("PSXANIM").unwrap_or_else(|| "psxanim".into());
    let status = Command::new(&psxanim).args(["import", MODEL, "--storage", "rigid-gte", "-o"]).arg(&out).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("`psxanim import {MODEL}` failed ({s}); its message is above"),
        Err(e) => panic!(
            "could not run {psxanim:?} ({e}): install the psxanim tool (`cargo install --path PSXANIM_REPO/tooling`) \
             or set PSXANIM to its path"
        ),
    }
}
