//! `build-exe` of the examples built against a C/C++ SDK the user points at (`--sdk DIR`, or the
//! environment variable the SDK is named by): `examples/psyqo-game` with psyqo (a PCSX-Redux
//! checkout, `PSYQO_DIR`). Nothing of an SDK is committed; the build copies the example and the
//! shared scene (`examples/c-game/scene.*`, `assets.S`) into `target/NAME/` and runs the SDK's own
//! build there with psxanim's C library.
use crate::build::Built;
use crate::psexe::{self, Region};
use crate::{setup, Exit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// An SDK an example is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sdk {
    pub name: &'static str,
    /// The variable naming its checkout (set by `--sdk DIR` too).
    pub env: &'static str,
    /// A file every checkout has, relative to its root: how a wrong folder is told.
    pub marker: &'static str,
    /// The commit the README pins (the one tested).
    pub pinned: &'static str,
}

pub const PSYQO: Sdk = Sdk {
    name: "psyqo (PCSX-Redux)",
    env: "PSYQO_DIR",
    marker: "src/mips/psyqo/psyqo.mk",
    pinned: "9072da06f9ba737b7235356c4c62a6aedaece7b0",
};

/// The SDK examples and their SDK.
pub const SDK_EXAMPLES: [(&str, Sdk); 1] = [("psyqo-game", PSYQO)];

/// The SDK `example` is built with, if it is an SDK example.
pub fn sdk_of(example: &str) -> Option<Sdk> {
    SDK_EXAMPLES.iter().find(|(e, _)| *e == example).map(|(_, s)| *s)
}

/// The SDK checkout from its environment variable, checked.
pub fn checkout(sdk: Sdk) -> Result<PathBuf> {
    let dir = std::env::var_os(sdk.env).map(PathBuf::from).ok_or_else(|| {
        Exit::error(
            Exit::FAILED,
            format!("{} is needed: pass --sdk DIR (a checkout at {}) or set {}", sdk.name, sdk.pinned, sdk.env),
        )
    })?;
    if !dir.join(sdk.marker).is_file() {
        return Err(Exit::error(Exit::FAILED, format!("{} is not a {} checkout (no {})", dir.display(), sdk.name, sdk.marker)));
    }
    Ok(dir)
}

/// Builds an SDK example and converts it to `target/psx/NAME.exe`.
pub fn build(ws: &Path, example: &str, _region: Region) -> Result<Built> {
    let sdk = sdk_of(example).context("not an SDK example")?;
    let sdk_dir = checkout(sdk)?;
    setup::ensure_tools(&[setup::CROSS_GCC, setup::CROSS_GXX])?;
    crate::expect::character::generate_tables(ws)?;
    let library = crate::c_build::build_capi(ws)?;
    let (character, animbin) = crate::c_build::c_game_assets(ws);
    let work = ws.join("target").join(example);
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let c_game = ws.join("examples").join("c-game");
    let own = ws.join("examples").join(example);
    let mut files: Vec<PathBuf> = ["scene.c", "scene.h", "assets.S"].iter().map(|f| c_game.join(f)).collect();
    for entry in std::fs::read_dir(&own).with_context(|| format!("reading {}", own.display()))? {
        files.push(entry?.path());
    }
    for file in files {
        let to = work.join(file.file_name().context("a file name")?);
        // Copied only when changed, so that make rebuilds only what changed.
        let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        if std::fs::read(&to).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&to, &bytes).with_context(|| format!("writing {}", to.display()))?;
        }
    }
    let mut make = Command::new("make");
    make.current_dir(&work)
        .arg(format!("-j{}", std::thread::available_parallelism().map_or(1, |n| n.get()).min(2)))
        .arg(format!("PSYQO_DIR={}", sdk_dir.display()))
        .arg(format!("CAPI={}", library.display()))
        .arg(format!("CAPI_INCLUDE={}", ws.join("capi").join("include").display()))
        .arg(format!("CHARACTER_PXSK={}", character.display()))
        .arg(format!("WALK_ANIMBIN={}", animbin.display()));
    println!("{example}: make in {} with {} at {}", work.display(), sdk.name, sdk_dir.display());
    let status = make.status().context("could not start make")?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("the {} build of {example} failed ({status})", sdk.name)));
    }
    // No hazard check here: the SDK's link script defines no __text_start/__text_end, and the code it
    // would check is the SDK's (its rules) and the library's, which examples/c-game's build checks.
    let exe_file = work.join(format!("{example}.ps-exe"));
    let file = std::fs::read(&exe_file).with_context(|| format!("reading {}", exe_file.display()))?;
    let header = psexe::validate(&file).map_err(|e| Exit::error(Exit::FAILED, format!("{}: {e}", exe_file.display())))?;
    let out_dir = ws.join("target").join("psx");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = out_dir.join(format!("{example}.exe"));
    std::fs::write(&exe, &file).with_context(|| format!("writing {}", exe.display()))?;
    let sizes = psexe::Sizes { text: header.t_size, data: 0, bss: header.b_size, file: file.len() as u32 };
    Ok(Built { example: example.to_string(), exe, header, sizes })
}
