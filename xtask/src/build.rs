//! `build-exe`: builds an example of `examples/` for mipsel-sony-psx with the pinned nightly and turns the
//! ELF into `target/psx/NAME.exe` (psexe.rs), checked and with its sizes printed.
use crate::psexe::Region;
use crate::{elf, setup, Exit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use xshell::cmd;

pub use crate::built::{Built, Hazards, TARGET};

/// The examples: folders of `examples/` with a Cargo.toml (Rust) or a main.c (C, [`crate::c_build`]),
/// sorted.
pub fn examples(ws: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ws.join("examples"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file() || e.path().join("main.c").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// Fails with exit code 3 and the list of examples when `name` is not one of them.
pub fn check_example(ws: &Path, name: &str) -> Result<()> {
    let mut known = examples(ws);
    known.extend(crate::sdk_build::SDK_EXAMPLES.iter().map(|(e, _)| e.to_string()));
    if known.iter().any(|k| k == name) {
        Ok(())
    } else {
        Err(Exit::error(Exit::FAILED, format!("unknown example {name:?}; the examples are: {}", known.join(", "))))
    }
}

/// The cargo command that builds `example`: pinned nightly, build-std, its own target dir, and none of
/// the outer cargo's settings (`cargo xtask` runs inside a stable cargo that exports them).
pub fn cargo_command(ws: &Path, example: &str, debug: bool) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg(format!("+{}", setup::NIGHTLY))
        .arg("build")
        .arg("--manifest-path")
        .arg(ws.join("examples").join("Cargo.toml"))
        .args(["-p", example, "--bin", example, "--target", TARGET])
        .args(["-Zbuild-std=core", "-Zbuild-std-features=compiler-builtins-mem"]);
    if !debug {
        cmd.arg("--release");
    }
    for var in crate::shell::OUTER_CARGO_VARS {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TARGET_DIR", ws.join("target").join("psx-build"));
    cmd.env("RUSTFLAGS", PSX_RUSTFLAGS);
    cmd
}


/// The examples that are psx-sdk-rs games: built by `cargo psx build` with psx's own start-up,
/// panic handler and linker script, as their users build them.
pub const CARGO_PSX_EXAMPLES: [&str; 1] = ["psx-game"];

/// `cargo psx build` of a psx-sdk-rs crate in `dir`: the pinned nightly, the delay slot filler off
/// (cargo-psx puts its own link arguments after these flags), the target folder `target_dir`.
pub fn cargo_psx_command(dir: &Path, target_dir: &Path) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.args(["psx", "build", "--toolchain", setup::NIGHTLY]).current_dir(dir);
    for var in crate::shell::OUTER_CARGO_VARS {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TARGET_DIR", target_dir);
    cmd.env("RUSTFLAGS", CARGO_PSX_RUSTFLAGS);
    cmd
}

/// RUSTFLAGS of a cargo-psx build: cargo-psx's own default (one codegen unit, which it drops when
/// RUSTFLAGS is set) and the delay slot filler off.
pub const CARGO_PSX_RUSTFLAGS: &str = "-Ccodegen-units=1 -Cllvm-args=-disable-mips-delay-filler";

/// Code generation flags of every PSX build (core included, through build-std). The pinned nightly's
/// LLVM fills branch delay slots with loads whose result the branch target reads at once, which MIPS I
/// does not allow (the value arrives one instruction late; LLVM fixed its delay slot filler in 2026,
/// llvm-project#185427): with the filler off, every delay slot holds a nop instead. The hand-scheduled
/// asm loops (`.set noreorder`) are not affected.
pub const PSX_RUSTFLAGS: &str = "-Cllvm-args=-disable-mips-delay-filler";

/// Where cargo leaves the linked ELF (the target's executable suffix is ".exe", but it is an ELF).
pub fn elf_path(ws: &Path, example: &str, debug: bool) -> PathBuf {
    let profile = if debug { "debug" } else { "release" };
    ws.join("target").join("psx-build").join(TARGET).join(profile).join(format!("{example}.exe"))
}

/// Builds, converts and checks one example.
pub fn build_exe(ws: &Path, example: &str, region: Region, debug: bool) -> Result<Built> {
    check_example(ws, example)?;
    if crate::c_build::C_EXAMPLES.contains(&example) {
        return crate::c_build::build(ws, example, region);
    }
    if crate::sdk_build::sdk_of(example).is_some() {
        return crate::sdk_build::build(ws, example, region);
    }
    setup::ensure_toolchain()?;
    if example == "character" || CARGO_PSX_EXAMPLES.contains(&example) {
        crate::expect::character::generate_tables(ws)?;
    }
    if CARGO_PSX_EXAMPLES.contains(&example) {
        return build_with_cargo_psx(ws, example);
    }
    let status = cargo_command(ws, example, debug).status().context("could not start cargo")?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("the PSX build of {example} failed ({status})")));
    }
    Built::from_elf(ws, example, &elf_path(ws, example, debug), region, Hazards::Checked)
}

/// Code of the `psx` crate (0.1.8), whose hazards are its own: its panic handler (`rust_begin_unwind`)
/// stores the `mfc0` result of `cop0::Status::new` in the very next instruction.
fn is_psx_code(symbol: &str) -> bool {
    symbol == "rust_begin_unwind" || symbol.starts_with("_ZN3psx")
}

/// A psx-sdk-rs example: `cargo psx build` writes the PS-EXE itself (psx's linker script holds the
/// header); it is checked and copied to `target/psx/NAME.exe`, and its ELF build goes through the
/// hazard checks. psx's script leaves the bss out of the
/// header (its `__start` does not zero it either), so the sizes show text and data together.
fn build_with_cargo_psx(ws: &Path, example: &str) -> Result<Built> {
    setup::ensure_cargo_psx()?;
    let dir = ws.join("examples").join(example);
    let target_dir = ws.join("target").join("psx-cargo-psx");
    let status = cargo_psx_command(&dir, &target_dir).status().context("could not start cargo psx")?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("cargo psx build of {example} failed ({status})")));
    }
    let built = Built::copy(ws, example, &target_dir.join(TARGET).join("release").join(format!("{example}.exe")))?;
    // The same build as an ELF (`--elf`, with symbols) for the hazard checks the EXE has no room for.
    let elf_dir = ws.join("target").join("psx-cargo-psx-elf");
    let mut elf_build = cargo_psx_command(&dir, &elf_dir);
    elf_build.arg("--elf");
    let status = elf_build.status().context("could not start cargo psx")?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("cargo psx build --elf of {example} failed ({status})")));
    }
    let elf_file = elf_dir.join(TARGET).join("release").join(format!("{example}.exe"));
    let bytes = std::fs::read(&elf_file).with_context(|| format!("reading {}", elf_file.display()))?;
    let parsed = elf::parse(&bytes).with_context(|| format!("{}", elf_file.display()))?;
    crate::hazards::check_except(&parsed, is_psx_code).with_context(|| format!("{}", elf_file.display()))?;
    Ok(built)
}

/// The symbols a PSX build of the runtime library defines outside Rust's mangling (`#[no_mangle]`,
/// `global_asm!` globals, the panic handler's `rust_begin_unwind`), read with `nm` from its rlib:
/// whatever a game's own start-up and panic handler could collide with.
pub fn runtime_unmangled_symbols(ws: &Path, features: &[&str]) -> Result<Vec<String>> {
    setup::ensure_toolchain()?;
    let target_dir = ws.join("target").join("psx-runtime-lib");
    let sh = crate::shell::at(ws)?;
    let (toolchain, features) = (format!("+{}", setup::NIGHTLY), features.join(","));
    let feature_args = if features.is_empty() { vec![] } else { vec!["--features", features.as_str()] };
    crate::shell::isolated(cmd!(
        sh,
        "cargo {toolchain} build --release --manifest-path runtime/Cargo.toml --target {TARGET} -Zbuild-std=core {feature_args...}"
    ))
    .env("CARGO_TARGET_DIR", &target_dir)
    .env("RUSTFLAGS", PSX_RUSTFLAGS)
    .run()
    .context("the PSX build of the runtime library failed")?;
    let rlib = target_dir.join(TARGET).join("release").join("libpsxanim_runtime.rlib");
    let symbols = cmd!(sh, "nm --defined-only --extern-only --format=posix {rlib}").quiet().read().context("nm (binutils) failed")?;
    let mut names: Vec<String> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        // Rust-mangled names, and LLVM's promoted constants (`anon.HASH.N.llvm.HASH`), cannot collide.
        .filter(|n| !n.ends_with(':') && !n.starts_with("_ZN") && !n.starts_with("_R") && !n.starts_with("anon."))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// A game links the runtime next to its own start-up and panic handler: with default features the
/// runtime defines no unmangled symbol at all, and with `standalone` the same reading finds `__start`
/// and the panic handler (so the check is not blind).
pub fn check_runtime_is_a_library(ws: &Path) -> Result<()> {
    let default = runtime_unmangled_symbols(ws, &[])?;
    anyhow::ensure!(default.is_empty(), "the runtime (default features) defines unmangled symbols a game would collide with: {default:?}");
    let standalone = runtime_unmangled_symbols(ws, &["standalone"])?;
    for wanted in ["__start", "rust_begin_unwind"] {
        anyhow::ensure!(standalone.iter().any(|s| s == wanted), "nm does not find {wanted} in the standalone build ({standalone:?}): the check is blind");
    }
    println!("runtime library: no unmangled symbols with default features; standalone defines {}", standalone.join(", "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_cargo_is_isolated_from_the_outer_one() {
        let ws = Path::new("/ws");
        let cmd = cargo_command(ws, "hello", false);
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args[0], "+nightly-2024-12-21");
        assert!(args.iter().any(|a| a == "--release"));
        assert!(args.iter().any(|a| a == "-Zbuild-std=core"));
        let envs: Vec<_> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_owned())))
            .collect();
        // The outer flags are replaced by ours (the delay slot filler off).
        assert!(envs.contains(&("RUSTFLAGS".into(), Some(PSX_RUSTFLAGS.into()))));
        assert!(envs.contains(&("CARGO_ENCODED_RUSTFLAGS".into(), None)));
        assert!(envs.contains(&("RUSTUP_TOOLCHAIN".into(), None)));
        assert!(envs.contains(&("CARGO_TARGET_DIR".into(), Some("/ws/target/psx-build".into()))));
        assert!(!cargo_command(ws, "hello", true).get_args().any(|a| a == "--release"));
    }

    #[test]
    fn unknown_example_lists_the_known_ones() {
        let ws = crate::workspace_root();
        assert!(examples(&ws).contains(&"hello".to_string()));
        let err = check_example(&ws, "nope").unwrap_err();
        assert_eq!(crate::exit_code(&err), 3);
        assert!(err.to_string().contains("hello"), "{err}");
    }
}
