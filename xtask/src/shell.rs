//! The commands whose output or exit status the xtask reads (cargo, rustup, nm, python3), run through
//! xshell and written as they would be typed. Installs and emulator runs that need a timeout and a
//! process-group kill go through `process::run_with_timeout` with `std::process::Command` instead
//! (xshell has neither), as do the PSX cargo builds whose environment a unit test inspects.
use anyhow::{Context, Result};
use std::path::Path;
use xshell::{Cmd, Shell};

/// What the outer cargo (`cargo xtask` runs inside stable cargo) exports and a child cargo must not
/// inherit: they would pick the outer toolchain, flags, target or target folder.
pub const OUTER_CARGO_VARS: [&str; 8] = [
    "RUSTUP_TOOLCHAIN",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
];

/// A shell working in `dir`.
pub fn at(dir: &Path) -> Result<Shell> {
    let sh = Shell::new().context("could not create a shell")?;
    sh.change_dir(dir);
    Ok(sh)
}

/// `cmd` without what the outer cargo exports: a child cargo or rustup then picks its own toolchain,
/// flags, target and target folder.
pub fn isolated(cmd: Cmd<'_>) -> Cmd<'_> {
    OUTER_CARGO_VARS.iter().fold(cmd, |c, var| c.env_remove(var))
}
