//! `setup`: everything a fresh Debian 12 machine needs beyond stable Rust, installed only when missing.
//! 1. the pinned nightly (minimal profile + rust-src) for the PSX builds, via rustup;
//! 2. the Debian packages the backends call (7z, node, luajit) and the C examples' cross compiler
//!    (gcc-mipsel-linux-gnu), via apt-get;
//! 3. each backend's own files (`ensure_installed`: the pinned npm core, the beetle-psx core...);
//! 4. cargo-psx 0.1.4 (`cargo install --locked`), which builds the psx-sdk-rs game example and the game
//!    template the way their users build them;
//! 5. what the viewer's browser test drives: Debian's chromium and `npm ci` in `tests/browser`
//!    (playwright-core only; it downloads no browser of its own).
//!
//! The other commands call the part they need (`ensure_toolchain`, `ensure_emulator`) on their own.
use crate::backends::{self, Emulator};
use crate::process::run_with_timeout;
use crate::Exit;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xshell::cmd;

/// The nightly the PSX target builds with (psx 0.1.8 and the mipsel-sony-psx target agree on it).
pub const NIGHTLY: &str = "nightly-2024-12-21";
const RUSTUP_TIMEOUT: Duration = Duration::from_secs(1200);
const APT_TIMEOUT: Duration = Duration::from_secs(1200);

/// A program a backend runs, and the Debian package that provides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    pub command: &'static str,
    pub package: &'static str,
}

const SEVEN_ZIP: Tool = Tool { command: "7z", package: "p7zip-full" };
const NODE: Tool = Tool { command: "node", package: "nodejs" };
const LUAJIT: Tool = Tool { command: "luajit", package: "luajit" };
const CHROMIUM: Tool = Tool { command: "chromium", package: "chromium" };
/// Debian's MIPS little-endian cross compiler, which builds the C examples (`examples/c-game`).
pub const CROSS_GCC: Tool = Tool { command: "mipsel-linux-gnu-gcc", package: "gcc-mipsel-linux-gnu" };
/// CMake, which PSn00bSDK's libraries build with: installed by the PSn00bSDK example's build only.
pub const CMAKE: Tool = Tool { command: "cmake", package: "cmake" };
/// Its C++ compiler, which psyqo (C++20) needs: installed by the SDK examples' builds only.
pub const CROSS_GXX: Tool = Tool { command: "mipsel-linux-gnu-g++", package: "g++-mipsel-linux-gnu" };

/// The Debian tools a backend runs (the mednafen backend fetches its libretro core itself; pcsx-redux
/// comes from the user, luajit checks the Lua script generated for it).
pub fn tools_for(emulator: Emulator) -> &'static [Tool] {
    match emulator {
        Emulator::PcsxRearmed => &[NODE, SEVEN_ZIP],
        Emulator::Mednafen => &[],
        Emulator::PcsxRedux => &[LUAJIT],
    }
}

/// `command` found in a folder of $PATH.
pub fn find_on_path(command: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(command)).find(|p| p.is_file())
}

/// `cargo xtask setup`: all of it, saying what was installed and what was already there.
pub fn run(ws: &Path) -> Result<()> {
    ensure_toolchain()?;
    println!("setup: {NIGHTLY} with rust-src is installed");
    ensure_cargo_psx()?;
    println!("setup: cargo-psx {CARGO_PSX_VERSION} is installed");
    let mut tools: Vec<Tool> = Vec::new();
    for emulator in [Emulator::PcsxRearmed, Emulator::Mednafen, Emulator::PcsxRedux] {
        for tool in tools_for(emulator) {
            if !tools.contains(tool) {
                tools.push(*tool);
            }
        }
    }
    tools.push(CROSS_GCC);
    ensure_tools(&tools)?;
    for tool in &tools {
        let at = find_on_path(tool.command).map(|p| p.display().to_string()).unwrap_or_default();
        println!("setup: {} ({}) is installed: {at}", tool.command, tool.package);
    }
    for emulator in [Emulator::PcsxRearmed, Emulator::Mednafen, Emulator::PcsxRedux] {
        ensure_backend_files(ws, emulator)?;
    }
    ensure_browser_test(ws)?;
    println!("setup: done");
    Ok(())
}

/// What an emulator needs, installed when missing. Failures map to exit code 2 (not installed).
pub fn ensure_emulator(ws: &Path, emulator: Emulator) -> Result<()> {
    let result = ensure_tools(tools_for(emulator)).and_then(|_| ensure_backend_files(ws, emulator));
    result.map_err(|e| Exit::error(Exit::NOT_INSTALLED, format!("{} cannot be installed: {e:#}", emulator.name())))
}

/// The viewer's browser test (tooling/tests/preview_browser.rs): chromium from Debian and the pinned
/// playwright-core from `tests/browser/package-lock.json`.
pub fn ensure_browser_test(ws: &Path) -> Result<()> {
    ensure_tools(&[NODE, CHROMIUM])?;
    let dir = ws.join("tests").join("browser");
    if dir.join("node_modules").join("playwright-core").is_dir() {
        println!("setup: playwright-core is installed in {}", dir.display());
        return Ok(());
    }
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir);
    run_install(&mut npm, APT_TIMEOUT, "npm ci in tests/browser (is the npm registry reachable?)")?;
    println!("setup: installed playwright-core into {}", dir.join("node_modules").display());
    Ok(())
}

fn ensure_backend_files(ws: &Path, emulator: Emulator) -> Result<()> {
    match emulator {
        Emulator::PcsxRearmed => backends::rearmed::ensure_installed(ws),
        Emulator::Mednafen => backends::mednafen::ensure_installed(ws),
        // PCSX-Redux has no package: this only reports where the user's binary is.
        Emulator::PcsxRedux => backends::redux::ensure_installed(ws),
    }
}

/// The cargo-psx release the game example and template are built with.
pub const CARGO_PSX_VERSION: &str = "0.1.4";

/// Installs cargo-psx `CARGO_PSX_VERSION` (from crates.io, `--locked`) unless `cargo install --list`
/// already shows it.
pub fn ensure_cargo_psx() -> Result<()> {
    let sh = crate::shell::at(Path::new("."))?;
    let list = cmd!(sh, "cargo install --list").quiet().read().context("could not run cargo install --list")?;
    let wanted = format!("cargo-psx v{CARGO_PSX_VERSION}:");
    if list.lines().any(|l| l.trim() == wanted) {
        return Ok(());
    }
    println!("setup: installing cargo-psx {CARGO_PSX_VERSION}");
    let mut cmd = Command::new("cargo");
    cmd.args(["install", "cargo-psx", "--version", CARGO_PSX_VERSION, "--locked"]);
    for var in crate::shell::OUTER_CARGO_VARS {
        cmd.env_remove(var);
    }
    run_install(&mut cmd, RUSTUP_TIMEOUT, "cargo install cargo-psx (is crates.io reachable?)")?;
    println!("setup: installed cargo-psx {CARGO_PSX_VERSION}");
    Ok(())
}

/// Installs the pinned nightly with rust-src when either is missing.
pub fn ensure_toolchain() -> Result<()> {
    let sh = crate::shell::at(Path::new("."))?;
    let rustup = |args: &[&str]| -> Result<String> {
        cmd!(sh, "rustup {args...}")
            .env_remove("RUSTUP_TOOLCHAIN")
            .quiet()
            .read()
            .with_context(|| format!("rustup {} failed (is rustup on PATH? https://rustup.rs)", args.join(" ")))
    };
    let installed = rustup(&["toolchain", "list"])?;
    if installed.lines().any(|l| l.starts_with(NIGHTLY)) {
        let components = rustup(&["component", "list", "--installed", "--toolchain", NIGHTLY])?;
        if components.lines().any(|l| l.trim() == "rust-src") {
            return Ok(());
        }
        println!("setup: adding rust-src to {NIGHTLY}");
        run_install(Command::new("rustup").args(["component", "add", "rust-src", "--toolchain", NIGHTLY]), RUSTUP_TIMEOUT, "rustup")?;
        println!("setup: installed rust-src for {NIGHTLY}");
        return Ok(());
    }
    println!("setup: installing {NIGHTLY} (minimal profile + rust-src)");
    run_install(
        Command::new("rustup").args(["toolchain", "install", NIGHTLY, "--profile", "minimal", "--component", "rust-src"]),
        RUSTUP_TIMEOUT,
        "rustup (is static.rust-lang.org reachable?)",
    )?;
    println!("setup: installed {NIGHTLY}");
    Ok(())
}

/// Installs the Debian packages of the tools missing from PATH (one apt-get run for all).
pub fn ensure_tools(tools: &[Tool]) -> Result<()> {
    let missing: Vec<&Tool> = tools.iter().filter(|t| find_on_path(t.command).is_none()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|t| t.package).collect();
    println!("setup: installing Debian packages {}", packages.join(" "));
    let sudo = if is_root() { None } else { find_on_path("sudo") };
    if !is_root() && sudo.is_none() {
        bail!("missing {}; run as root or install them: apt-get install {}", packages.join(", "), packages.join(" "));
    }
    let apt = |args: &[&str]| {
        let mut cmd = match &sudo {
            Some(s) => {
                let mut c = Command::new(s);
                c.arg("apt-get");
                c
            }
            None => Command::new("apt-get"),
        };
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    let update = run_install(&mut apt(&["update"]), APT_TIMEOUT, "apt-get update")?;
    // apt-get update exits 0 even when no mirror answers; its warnings say so.
    if update.contains("Failed to fetch") || update.contains("Could not resolve") || update.contains("Temporary failure") {
        bail!("the Debian archive cannot be reached (apt-get update):\n{}", update.trim());
    }
    let mut args = vec!["install", "-y", "--no-install-recommends"];
    args.extend(&packages);
    run_install(&mut apt(&args), APT_TIMEOUT, "apt-get install (is the Debian archive reachable?)")?;
    for tool in missing {
        match find_on_path(tool.command) {
            Some(p) => println!("setup: installed {} ({})", tool.package, p.display()),
            None => bail!("installed {} but {} is still not on PATH", tool.package, tool.command),
        }
    }
    Ok(())
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs an installer with a time limit; returns its output, or an error naming `what` with the output.
fn run_install(cmd: &mut Command, timeout: Duration, what: &str) -> Result<String> {
    let done = run_with_timeout(cmd, timeout).with_context(|| format!("could not start {what}"))?;
    if done.timed_out() {
        bail!("{what} did not finish within {} s and was stopped", timeout.as_secs());
    }
    let output = done.output();
    if !done.status.is_some_and(|s| s.success()) {
        bail!("{what} failed:\n{}", output.trim());
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_names_its_debian_tools() {
        assert!(tools_for(Emulator::PcsxRearmed).contains(&SEVEN_ZIP));
        assert!(tools_for(Emulator::PcsxRearmed).contains(&NODE));
        assert!(tools_for(Emulator::Mednafen).is_empty());
    }

    #[test]
    fn path_lookup() {
        assert!(find_on_path("sh").is_some());
        assert!(find_on_path("surely-no-such-program-psxanim").is_none());
    }

    #[test]
    fn a_failing_installer_is_an_error_with_its_output() {
        let err = run_install(Command::new("sh").args(["-c", "echo boom >&2; exit 100"]), Duration::from_secs(30), "fake apt")
            .unwrap_err()
            .to_string();
        assert!(err.contains("fake apt failed") && err.contains("boom"), "{err}");
        let err = run_install(Command::new("sleep").arg("30"), Duration::from_millis(200), "slow").unwrap_err().to_string();
        assert!(err.contains("did not finish"), "{err}");
    }
}
