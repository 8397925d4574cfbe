//! `build-exe` of the examples built against a C/C++ SDK the user points at (`--sdk DIR`, or the
//! environment variable the SDK is named by): `examples/psyqo-game` with psyqo (a PCSX-Redux
//! checkout, `PSYQO_DIR`) and `examples/psn00b-game` with PSn00bSDK (a PSn00bSDK checkout,
//! `PSN00BSDK_DIR`). Nothing of an SDK is committed; the build copies the example and the shared
//! scene (`examples/c-game/scene.*`, `assets.S`) into `target/NAME/` and builds there with psxanim's
//! C library and Debian's cross compiler:
//!
//! - psyqo: its own make files (`psyqo.mk`), which pick `mipsel-linux-gnu-gcc` when installed.
//! - PSn00bSDK: its libraries (`libpsn00b/`, CMake) configured for `mipsel-linux-gnu` into
//!   `target/psn00bsdk/` (the checkout is copied there first, with the `build.json` its top-level
//!   build would write: the top level also builds its tools from git submodules, which a snapshot
//!   lacks and which this build does not need), then the game compiled with the flags of its
//!   `flags.cmake` (executables without `$gp`) and linked with its `exe.ld`; the ELF becomes a PS-EXE
//!   here (`psexe::from_elf`) instead of with its `elf2x` tool.
use crate::built::{Built, Hazards};
use crate::psexe::Region;
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

pub const PSN00BSDK: Sdk = Sdk {
    name: "PSn00bSDK",
    env: "PSN00BSDK_DIR",
    marker: "libpsn00b/CMakeLists.txt",
    pinned: "5d9aa2d3dfc7d6e51c2eb942ab4cdbae5571a40a",
};

pub const PSYQO: Sdk = Sdk {
    name: "psyqo (PCSX-Redux)",
    env: "PSYQO_DIR",
    marker: "src/mips/psyqo/psyqo.mk",
    pinned: "9072da06f9ba737b7235356c4c62a6aedaece7b0",
};

/// The SDK examples and their SDK.
pub const SDK_EXAMPLES: [(&str, Sdk); 2] = [("psn00b-game", PSN00BSDK), ("psyqo-game", PSYQO)];

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
pub fn build(ws: &Path, example: &str, region: Region) -> Result<Built> {
    let sdk = sdk_of(example).context("not an SDK example")?;
    let sdk_dir = checkout(sdk)?;
    setup::ensure_tools(if sdk == PSYQO { &[setup::CROSS_GCC, setup::CROSS_GXX] } else { &[setup::CROSS_GCC] })?;
    crate::expect::character::generate_tables(ws)?;
    let library = crate::c_build::build_capi(ws)?;
    let work = copy_sources(ws, example)?;
    if sdk == PSN00BSDK {
        return build_psn00b(ws, example, &sdk_dir, &library, &work, region);
    }
    let (character, animbin) = crate::c_build::c_game_assets(ws);
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
    Built::copy(ws, example, &work.join(format!("{example}.ps-exe")))
}

/// `target/EXAMPLE/` holding the example's files and the shared scene (copied only when changed, so
/// that make rebuilds only what changed).
fn copy_sources(ws: &Path, example: &str) -> Result<PathBuf> {
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
    Ok(work)
}

/// PSn00bSDK's compile flags for an executable without `$gp`-relative addressing
/// (`libpsn00b/cmake/flags.cmake`, release), plus `-no-pie`: Debian's compiler links PIE by default,
/// the SDK's own `mipsel-none-elf` one does not.
pub const PSN00B_CFLAGS: [&str; 21] = [
    "-ffreestanding", "-fno-builtin", "-nostdlib", "-fdata-sections", "-ffunction-sections", "-fsigned-char",
    "-fno-strict-overflow", "-msoft-float", "-march=r3000", "-mtune=r3000", "-mabi=32", "-mno-mt", "-mno-llsc",
    "-O2", "-G0", "-fno-pic", "-mno-abicalls", "-mno-gpopt", "-DPSN00BSDK=1", "-DNDEBUG=1", "-no-pie",
];

/// The SDK's libraries, in its link order (`PSN00BSDK_LIBRARIES`).
const PSN00B_LIBRARIES: [&str; 11] = ["psxgpu", "psxgte", "psxspu", "psxcd", "psxpress", "psxsio", "psxetc", "psxapi", "smd", "lzp", "c"];

fn build_psn00b(ws: &Path, example: &str, sdk_dir: &Path, library: &Path, work: &Path, region: Region) -> Result<Built> {
    let sdk_copy = ws.join("target").join("psn00bsdk").join("src");
    let libs = ws.join("target").join("psn00bsdk").join("build");
    if !libs.join("libc_exe_nogprel.a").is_file() {
        setup::ensure_tools(&[setup::CMAKE])?;
        let _ = std::fs::remove_dir_all(&sdk_copy);
        std::fs::create_dir_all(&sdk_copy).with_context(|| format!("creating {}", sdk_copy.display()))?;
        let status = Command::new("cp").arg("-r").arg(sdk_dir.join("libpsn00b")).arg(&sdk_copy).status().context("could not start cp")?;
        anyhow::ensure!(status.success(), "copying {} failed", sdk_dir.join("libpsn00b").display());
        let json = format!(
            "{{\"version\":\"0.24\",\"build_date\":\"unknown\",\"git_tag\":\"unknown\",\"git_commit\":\"{}\"}}\n",
            PSN00BSDK.pinned
        );
        std::fs::write(sdk_copy.join("libpsn00b").join("build.json"), json)?;
        let configure = Command::new("cmake")
            .arg("-S")
            .arg(sdk_copy.join("libpsn00b"))
            .arg("-B")
            .arg(&libs)
            .args(["-G", "Unix Makefiles", "-DPSN00BSDK_TARGET=mipsel-linux-gnu", "-DCMAKE_BUILD_TYPE=Release"])
            .status()
            .context("could not start cmake")?;
        anyhow::ensure!(configure.success(), "configuring PSn00bSDK's libraries for mipsel-linux-gnu failed");
        let make = Command::new("make").arg("-C").arg(&libs).arg("-j2").status().context("could not start make")?;
        anyhow::ensure!(make.success(), "building PSn00bSDK's libraries failed");
    }
    let include = sdk_dir.join("libpsn00b").join("include");
    let (character, animbin) = crate::c_build::c_game_assets(ws);
    let elf_file = work.join(format!("{example}.elf"));
    let mut gcc = Command::new(setup::CROSS_GCC.command);
    gcc.args(PSN00B_CFLAGS)
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(ws.join("capi").join("include"))
        .arg(format!("-DCHARACTER_PXSK=\"{}\"", character.display()))
        .arg(format!("-DWALK_ANIMBIN=\"{}\"", animbin.display()))
        .args(["-static", "-Wl,--gc-sections", "-Wl,--build-id=none", "-T"])
        .arg(sdk_dir.join("libpsn00b").join("ldscripts").join("exe.ld"))
        .arg("-o")
        .arg(&elf_file);
    for source in [format!("{example}.c"), "scene.c".into(), "assets.S".into()] {
        gcc.arg(work.join(source));
    }
    gcc.arg(library).arg("-L").arg(&libs).arg("-Wl,--start-group");
    for lib in PSN00B_LIBRARIES {
        gcc.arg(format!("-l{lib}_exe_nogprel"));
    }
    gcc.args(["-lgcc", "-Wl,--end-group"]);
    println!("{example}: {} with PSn00bSDK's flags and exe.ld ({})", setup::CROSS_GCC.command, sdk_dir.display());
    let status = gcc.status().with_context(|| format!("could not start {}", setup::CROSS_GCC.command))?;
    if !status.success() {
        return Err(Exit::error(Exit::FAILED, format!("the PSn00bSDK build of {example} failed ({status})")));
    }
    Built::from_elf(ws, example, &elf_file, region, Hazards::Unchecked)
}
