//! `build-exe` of the C examples (`examples/c-game`): psxanim's C library (`capi/`, a staticlib for
//! mipsel-sony-psx built with the pinned nightly) linked into a C99 program by Debian's
//! `mipsel-linux-gnu-gcc` with psxanim's linker script, then checked and converted like every
//! example (hazards, PS-EXE).
//!
//! ```text
//! cargo +nightly rustc -p psxanim-capi --crate-type staticlib   -> target/psx-capi/.../libpsxanim_capi.a
//! mipsel-linux-gnu-gcc PSX_CFLAGS start.S main.c libc.c assets.S libpsxanim_capi.a -T linker/psexe.ld
//!                                                                 -> target/psx-c/c-game.elf -> target/psx/c-game.exe
//! ```
use crate::built::{Built, Hazards, TARGET};
use crate::psexe::Region;
use crate::{setup, Exit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The examples written in C, built by [`build`].
pub const C_EXAMPLES: [&str; 1] = ["c-game"];

/// Code generation flags of C code that links with the library: MIPS I (R3000), little-endian, no FPU,
/// no abicalls / PIC (the console runs one static image), no gp-relative small data (`-G0`: the library
/// addresses its data absolutely, and the linker script's `_gp` then needs no care).
pub const PSX_CFLAGS: [&str; 6] = ["-march=r3000", "-EL", "-msoft-float", "-mno-abicalls", "-fno-pic", "-G0"];

/// What the C examples add: freestanding C99 with every warning an error, one section per function
/// for `--gc-sections`, and no calls to the C library the compiler would invent from loops.
const EXAMPLE_CFLAGS: [&str; 12] = [
    "-std=c99",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
    "-ffreestanding",
    "-fno-builtin",
    "-fno-tree-loop-distribute-patterns",
    "-ffunction-sections",
    "-fdata-sections",
    "-nostdlib",
];

/// RUSTFLAGS of the library: the delay slot filler off (as every PSX build) and objects marked
/// non-abicalls, so that GNU ld links them with C built `-mno-abicalls` without a warning (the code is
/// the same: the target's relocation model is static).
pub const CAPI_RUSTFLAGS: &str = "-Cllvm-args=-disable-mips-delay-filler -Ctarget-feature=+noabicalls";

/// The cargo command that builds the C library for the console: a staticlib only (cargo would give
/// up LTO for the rlib beside it), the examples' release profile (opt-level 2, fat LTO, one codegen
/// unit, panic abort), core built without its `mem` functions, which the game provides.
pub fn capi_command(ws: &Path) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg(format!("+{}", setup::NIGHTLY))
        .args(["rustc", "--lib", "--crate-type", "staticlib", "--release", "--manifest-path"])
        .arg(ws.join("capi").join("Cargo.toml"))
        .args(["--target", TARGET, "-Zbuild-std=core"]);
    for var in crate::shell::OUTER_CARGO_VARS {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TARGET_DIR", ws.join("target").join("psx-capi"));
    cmd.env("RUSTFLAGS", CAPI_RUSTFLAGS);
    for (key, value) in [("OPT_LEVEL", "2"), ("LTO", "fat"), ("CODEGEN_UNITS", "1"), ("PANIC", "abort"), ("DEBUG", "false")] {
        cmd.env(format!("CARGO_PROFILE_RELEASE_{key}"), value);
    }
    cmd
}

/// Builds `libpsxanim_capi.a` for the console and returns its path.
pub fn build_capi(ws: &Path) -> Result<PathBuf> {
    setup::ensure_toolchain()?;
    let status = capi_command(ws).status().context("could not start cargo")?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("the PSX build of the C library (capi) failed ({status})")));
    }
    Ok(ws.join("target").join("psx-capi").join(TARGET).join("release").join("libpsxanim_capi.a"))
}

/// The files the C game embeds: the rigid fixture character imported with `--lighting` (generated)
/// and the ANIMBIN clip.
pub fn c_game_assets(ws: &Path) -> (PathBuf, PathBuf) {
    (
        crate::expect::character::tables_dir(ws).join("rigid-gte").join("character_lit.pxsk"),
        ws.join("tests").join("fixtures").join("formats").join("walk.animbin"),
    )
}

/// Builds, checks and converts a C example.
pub fn build(ws: &Path, example: &str, region: Region) -> Result<Built> {
    setup::ensure_tools(&[setup::CROSS_GCC])?;
    crate::expect::character::generate_tables(ws)?;
    let library = build_capi(ws)?;
    let dir = ws.join("examples").join(example);
    let out_dir = ws.join("target").join("psx-c");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let elf_file = out_dir.join(format!("{example}.elf"));
    let (character, animbin) = c_game_assets(ws);
    let mut gcc = Command::new(setup::CROSS_GCC.command);
    gcc.args(PSX_CFLAGS)
        .args(EXAMPLE_CFLAGS)
        .arg("-I")
        .arg(ws.join("capi").join("include"))
        .arg(format!("-DCHARACTER_PXSK=\"{}\"", character.display()))
        .arg(format!("-DWALK_ANIMBIN=\"{}\"", animbin.display()))
        .args(["-no-pie", "-static", "-Wl,--gc-sections", "-Wl,--build-id=none", "-T"])
        .arg(ws.join("linker").join("psexe.ld"))
        .arg("-o")
        .arg(&elf_file);
    for source in ["start.S", "main.c", "scene.c", "libc.c", "assets.S"] {
        gcc.arg(dir.join(source));
    }
    gcc.arg(&library).arg("-lgcc");
    println!("{example}: {} {} ...", setup::CROSS_GCC.command, PSX_CFLAGS.join(" "));
    let status = gcc.status().with_context(|| format!("could not start {}", setup::CROSS_GCC.command))?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("the C build of {example} failed ({status})")));
    }
    Built::from_elf(ws, example, &elf_file, region, Hazards::Checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_build_is_a_staticlib_of_the_pinned_nightly_isolated_from_the_outer_cargo() {
        let cmd = capi_command(Path::new("/ws"));
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args[0], "+nightly-2024-12-21");
        assert!(args.windows(2).any(|w| w == ["--crate-type", "staticlib"]));
        assert!(args.iter().any(|a| a == "-Zbuild-std=core"));
        // No compiler-builtins-mem: memcpy and friends are the game's (the SDK's or its own).
        assert!(!args.iter().any(|a| a.contains("compiler-builtins-mem")));
        let envs: Vec<_> = cmd.get_envs().map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_owned()))).collect();
        assert!(envs.contains(&("RUSTFLAGS".into(), Some(CAPI_RUSTFLAGS.into()))));
        assert!(envs.contains(&("RUSTUP_TOOLCHAIN".into(), None)));
        assert!(envs.contains(&("CARGO_PROFILE_RELEASE_OPT_LEVEL".into(), Some("2".into()))));
    }
}
