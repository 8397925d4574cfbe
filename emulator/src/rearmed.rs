//! pcsx_rearmed backend: the EmulatorJS WebAssembly build of RetroArch with the pcsx_rearmed core,
//! run under Node by `emulator/rearmed/run.mjs` (built into the binary and written beside each run's
//! outputs, so an installed `psxanim` needs no checkout). Needs no BIOS (the core's HLE BIOS starts the EXE) and
//! only registry packages, so it is the backend CI runs.
//!
//! What is pinned, and why:
//! - npm `@emulatorjs/core-pcsx_rearmed` at exactly 4.2.3, fetched with `npm pack` (never
//!   `npm install`: its dependency drags in every EmulatorJS core, about 330 MB).
//! - The SHA-256 of the two files extracted from its `pcsx_rearmed-wasm.data` (a 7-zip archive):
//!   the runner reads main RAM at a fixed offset of this build's save state (and checks the magic
//!   bytes around it), and this core's known GTE deviations were measured on this build; another
//!   build could move both without notice, so a mismatch stops the install.
//!
//! How a run works (details in the runner): frames are stepped one by one by calling the emscripten
//! main loop's animation-frame callback, so a run is deterministic and not tied to real time; the HLE
//! BIOS starts the EXE during frame 1. The screenshot of frame N is the image the core output in
//! frame N (the painter test below checks it against the program's own vsync count). Main RAM comes
//! from a save state (RetroArch's 16-byte "RASTATE" wrapper, the core's "STv4" state, RAM at byte
//! 36917; both magics checked) and is cross-checked against the live RAM the core's `psxMap` log line
//! points at. Known GTE deviations of this core: see /work/shared/notes/emulators.md.
use super::{tools_dir, FrameProbe, RunError, RunOutput, RunRequest, Screenshot};
use crate::process::run_with_timeout;
use crate::workspace_root;
use anyhow::{bail, ensure, Context};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The npm package and version holding the core.
pub const NPM_PACKAGE: &str = "@emulatorjs/core-pcsx_rearmed";
pub const NPM_VERSION: &str = "4.2.3";
/// The tarball `npm pack` writes for it.
const NPM_TARBALL: &str = "emulatorjs-core-pcsx_rearmed-4.2.3.tgz";
/// The 7-zip archive inside the tarball holding the single-threaded, non-legacy build.
const CORE_ARCHIVE: &str = "package/pcsx_rearmed-wasm.data";
/// The extracted files the runner loads, with their SHA-256 (computed from version 4.2.3).
const CORE_FILES: [(&str, &str); 2] = [
    ("pcsx_rearmed_libretro.js", "42f536af90108189a0747698acb20341d04f8ac02913daa6fd9bf238bdc97841"),
    ("pcsx_rearmed_libretro.wasm", "ce204a800ee0914cabddefe88448dfaa2b43864039c4f39a32d4872c1037b9ed"),
];
/// Main RAM size; the runner's `ram.bin` must be exactly this long.
const MAIN_RAM_BYTES: usize = 2 * 1024 * 1024;
/// Limits for the install steps (a registry that does not answer must not hang `setup`).
const NPM_TIMEOUT: Duration = Duration::from_secs(300);
const UNPACK_TIMEOUT: Duration = Duration::from_secs(120);
const APT_TIMEOUT: Duration = Duration::from_secs(600);

/// Where the pinned core files are unpacked.
pub fn core_dir(workspace: &Path) -> PathBuf {
    tools_dir(workspace).join(format!("pcsx_rearmed-{NPM_VERSION}"))
}

/// The Node runner, carried by the binary.
const RUNNER_SCRIPT: &str = include_str!("../rearmed/run.mjs");

/// Installs the pinned core into `target/tools/` unless it is already there; says what it did.
pub fn ensure_installed(workspace: &Path) -> anyhow::Result<()> {
    match install(workspace)? {
        Install::AlreadyThere(dir) => println!("pcsx_rearmed {NPM_VERSION}: already installed in {}", dir.display()),
        Install::Installed(dir) => println!(
            "pcsx_rearmed {NPM_VERSION}: installed {} and {} (SHA-256 checked) into {}",
            CORE_FILES[0].0,
            CORE_FILES[1].0,
            dir.display()
        ),
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Install {
    AlreadyThere(PathBuf),
    Installed(PathBuf),
}

fn install(workspace: &Path) -> anyhow::Result<Install> {
    install_with(workspace, &[])
}

/// `install`, with extra environment for npm (tests point it at an unreachable registry).
fn install_with(workspace: &Path, npm_env: &[(&str, &str)]) -> anyhow::Result<Install> {
    let dir = core_dir(workspace);
    if check_core(&dir).is_ok() {
        return Ok(Install::AlreadyThere(dir));
    }
    require_tool("node", "--version", "Node.js 20 (Debian: apt-get install nodejs)")?;
    require_tool("npm", "--version", "npm (Debian: apt-get install npm)")?;

    // Unpack into a staging folder and move it into place only once every hash matched, so an
    // interrupted install never leaves a half-written core that looks installed.
    let staging = tools_dir(workspace).join(format!("pcsx_rearmed-{NPM_VERSION}.staging"));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).with_context(|| format!("removing {}", staging.display()))?;
    }
    std::fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
    if let Err(e) = fetch_and_unpack(&staging, npm_env) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing the stale {}", dir.display()))?;
    }
    std::fs::rename(&staging, &dir).with_context(|| format!("moving {} to {}", staging.display(), dir.display()))?;
    Ok(Install::Installed(dir))
}

/// Fetches the pinned tarball into `staging` and leaves there only the checked core files.
fn fetch_and_unpack(staging: &Path, npm_env: &[(&str, &str)]) -> anyhow::Result<()> {
    let spec = format!("{NPM_PACKAGE}@{NPM_VERSION}");
    let npm = run_with_timeout(
        Command::new("npm").args(["pack", &spec, "--pack-destination"]).arg(staging).envs(npm_env.iter().copied()),
        NPM_TIMEOUT,
    )
    .context("starting npm")?;
    if npm.timed_out() || npm.status.is_none_or(|s| !s.success()) {
        bail!(
            "`npm pack {spec}` failed{}: npm could not fetch the package. Check that the npm registry \
             is reachable (`npm config get registry`, proxy settings).\nnpm said:\n{}",
            if npm.timed_out() { format!(" (no answer within {} s)", NPM_TIMEOUT.as_secs()) } else { String::new() },
            tail(&npm.output(), 40)
        );
    }
    let tarball = staging.join(NPM_TARBALL);
    ensure!(tarball.is_file(), "npm pack succeeded but wrote no {}", tarball.display());
    ensure_7z()?;

    run_tool(Command::new("tar").arg("-xzf").arg(&tarball).arg("-C").arg(staging).arg(CORE_ARCHIVE), "tar")?;
    let mut sevenzip = Command::new("7z");
    sevenzip.args(["x", "-y"]).arg(format!("-o{}", staging.display())).arg(staging.join(CORE_ARCHIVE));
    sevenzip.args(CORE_FILES.map(|(name, _)| name));
    run_tool(&mut sevenzip, "7z")?;
    check_core(staging)?;

    // Keep only the pinned files.
    for entry in std::fs::read_dir(staging)? {
        let path = entry?.path();
        if !CORE_FILES.iter().any(|(name, _)| path.file_name() == Some(name.as_ref())) {
            if path.is_dir() {
                std::fs::remove_dir_all(&path)?
            } else {
                std::fs::remove_file(&path)?
            }
        }
    }
    Ok(())
}

/// Checks that `dir` holds the pinned core files, byte for byte.
/// Whether the pinned core files are unpacked (and match their hashes) under the tools folder.
pub fn is_installed(workspace: &Path) -> bool {
    check_core(&core_dir(workspace)).is_ok()
}

fn check_core(dir: &Path) -> anyhow::Result<()> {
    for (name, expected) in CORE_FILES {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let found = hex(&Sha256::digest(&bytes));
        ensure!(
            found == expected,
            "{} has SHA-256 {found}, expected {expected} (the file pinned from {NPM_PACKAGE} {NPM_VERSION})",
            path.display()
        );
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn require_tool(program: &str, probe: &str, what: &str) -> anyhow::Result<()> {
    match Command::new(program).arg(probe).output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => bail!("`{program}` is not on PATH; the pcsx_rearmed backend needs {what}"),
    }
}

/// 7-Zip unpacks the core archive; Debian's `p7zip-full` is installed when it is missing.
fn ensure_7z() -> anyhow::Result<()> {
    if require_tool("7z", "i", "7z").is_ok() {
        return Ok(());
    }
    println!("7z not found: installing Debian package p7zip-full");
    let apt_install = || run_with_timeout(Command::new("apt-get").args(["install", "-y", "p7zip-full"]), APT_TIMEOUT);
    let mut done = apt_install().context("starting apt-get (7z is missing; install p7zip-full)")?;
    if done.status.is_none_or(|s| !s.success()) {
        // A fresh image has no package lists yet.
        run_with_timeout(Command::new("apt-get").arg("update"), APT_TIMEOUT).context("starting apt-get update")?;
        done = apt_install()?;
    }
    if done.status.is_none_or(|s| !s.success()) {
        bail!("installing p7zip-full failed (7z is needed to unpack the core):\n{}", tail(&done.output(), 20));
    }
    require_tool("7z", "i", "7z from p7zip-full")
}

fn run_tool(command: &mut Command, name: &str) -> anyhow::Result<()> {
    let done = run_with_timeout(command, UNPACK_TIMEOUT).with_context(|| format!("starting {name}"))?;
    if done.timed_out() || done.status.is_none_or(|s| !s.success()) {
        bail!("{name} failed unpacking the core:\n{}", tail(&done.output(), 20));
    }
    Ok(())
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// What the runner reads (`REQUEST.json`).
#[derive(Debug, serde::Serialize)]
struct RunnerRequest<'a> {
    core_dir: &'a Path,
    exe: &'a Path,
    frames: u32,
    screenshot_frames: &'a [u32],
    out_dir: &'a Path,
    probe: bool,
}

/// What the runner leaves (`manifest.json`).
#[derive(Debug, serde::Deserialize)]
struct Manifest {
    frames_run: u32,
    ram: String,
    screenshots: Vec<ManifestShot>,
    skipped_screenshots: Vec<u32>,
    /// (frame, fingerprint of main RAM above the kernel area as 16 hex digits) after each frame.
    #[serde(default)]
    probes: Vec<(u32, String)>,
    seconds: f64,
    log: Vec<String>,
}

#[derive(Debug, serde::Deserialize)]
struct ManifestShot {
    frame: u32,
    file: String,
}

/// A PS-EXE to run and screenshot frames it can take ([`RunRequest::check_screenshot_frames`]).
fn check_request(req: &RunRequest) -> anyhow::Result<()> {
    ensure!(req.exe.is_file(), "{}: no such PS-EXE", req.exe.display());
    let mut magic = [0u8; 8];
    std::io::Read::read_exact(&mut std::fs::File::open(&req.exe)?, &mut magic)
        .with_context(|| format!("{}: too short for a PS-EXE header", req.exe.display()))?;
    ensure!(&magic == b"PS-X EXE", "{}: starts with {magic:02x?}, expected \"PS-X EXE\"", req.exe.display());
    req.check_screenshot_frames()
}

/// Runs `req.exe` under the pinned core for `req.frames` frames.
pub fn run(req: &RunRequest) -> Result<RunOutput, RunError> {
    check_request(req)?;
    run_checked(req)
}

/// `run` after the request was checked.
fn run_checked(req: &RunRequest) -> Result<RunOutput, RunError> {
    let workspace = workspace_root();
    let core = core_dir(&workspace);
    if let Err(why) = check_core(&core) {
        return Err(RunError::NotInstalled(format!(
            "pcsx_rearmed {NPM_VERSION} is not installed ({why:#}); {}",
            crate::install_hint()
        )));
    }
    if require_tool("node", "--version", "").is_err() {
        return Err(RunError::NotInstalled("`node` is not on PATH; the pcsx_rearmed backend needs Node.js 20 (Debian: `apt-get install nodejs`)".into()));
    }

    let out_dir = req.work_dir.join("rearmed");
    if out_dir.exists() {
        std::fs::remove_dir_all(&out_dir).with_context(|| format!("clearing {}", out_dir.display()))?;
    }
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = std::path::absolute(&req.exe)?;
    let request_file = out_dir.join("request.json");
    let request = RunnerRequest {
        core_dir: &core,
        exe: &exe,
        frames: req.frames,
        screenshot_frames: &req.screenshot_frames,
        out_dir: &out_dir,
        probe: req.probe,
    };
    std::fs::write(&request_file, serde_json::to_vec_pretty(&request).context("encoding the runner request")?)?;

    let runner = out_dir.join("run.mjs");
    std::fs::write(&runner, RUNNER_SCRIPT).with_context(|| format!("writing {}", runner.display()))?;
    let node = run_with_timeout(Command::new("node").arg(&runner).arg(&request_file), req.timeout)
        .context("starting node")?;
    if node.timed_out() {
        return Err(RunError::TimedOut(req.timeout));
    }
    if !node.status.is_some_and(|s| s.success()) {
        let status = node.status.map_or("killed".to_string(), |s| s.to_string());
        return Err(RunError::Crashed(format!("the runner exited with {status}:\n{}", tail(&node.output(), 60))));
    }
    let runner_output = format!("[runner] node ran {:.2} s\n{}", node.elapsed.as_secs_f64(), node.output());
    Ok(read_outputs(&out_dir, req, &runner_output)?)
}

/// Reads what the runner left in `out_dir` and checks it matches the request.
fn read_outputs(out_dir: &Path, req: &RunRequest, runner_output: &str) -> anyhow::Result<RunOutput> {
    let manifest_file = out_dir.join("manifest.json");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(&manifest_file).with_context(|| format!("reading {}", manifest_file.display()))?,
    )
    .with_context(|| format!("{}: not a runner manifest", manifest_file.display()))?;

    ensure!(
        manifest.skipped_screenshots.is_empty(),
        "the runner could not take the screenshots of frames {:?} (an earlier screenshot took several frames)",
        manifest.skipped_screenshots
    );
    ensure!(
        manifest.frames_run >= req.frames,
        "{}: the runner stopped after {} of {} frames",
        manifest_file.display(),
        manifest.frames_run,
        req.frames
    );
    let ram_file = out_dir.join(&manifest.ram);
    let ram = std::fs::read(&ram_file).with_context(|| format!("reading {}", ram_file.display()))?;
    ensure!(ram.len() == MAIN_RAM_BYTES, "{}: {} bytes, expected {MAIN_RAM_BYTES}", ram_file.display(), ram.len());

    let screenshots = manifest
        .screenshots
        .iter()
        .map(|shot| decode_png(&out_dir.join(&shot.file), shot.frame))
        .collect::<anyhow::Result<Vec<_>>>()?;

    let mut log = manifest.log.join("\n");
    log.push_str(&format!("\n[runner] {} frames stepped in {:.2} s\n", manifest.frames_run, manifest.seconds));
    log.push_str(runner_output);
    let probes = manifest
        .probes
        .iter()
        .map(|(frame, hex)| {
            let activity = u64::from_str_radix(hex, 16).with_context(|| format!("probe of frame {frame}: {hex:?}"))?;
            Ok(FrameProbe { frame: *frame, vsync_acked: None, activity, pc: None })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(RunOutput { ram, screenshots, frames_run: manifest.frames_run, log, tty: None, probes, fault: None, final_pc: None })
}

/// Decodes a screenshot PNG into 8-bit RGB.
pub fn decode_png(path: &Path, frame: u32) -> anyhow::Result<Screenshot> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().with_context(|| format!("{}: not a readable PNG", path.display()))?;
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).with_context(|| format!("{}: corrupt PNG data", path.display()))?;
    ensure!(info.width > 0 && info.height > 0, "{}: empty {}x{} image", path.display(), info.width, info.height);
    let pixels = &buffer[..info.buffer_size()];
    let rgb = match info.color_type {
        png::ColorType::Rgb => pixels.to_vec(),
        png::ColorType::Rgba => pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect(),
        png::ColorType::Grayscale => pixels.iter().flat_map(|&g| [g, g, g]).collect(),
        png::ColorType::GrayscaleAlpha => pixels.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0]]).collect(),
        png::ColorType::Indexed => bail!("{}: palette left unexpanded", path.display()),
    };
    Ok(Screenshot { frame, width: info.width, height: info.height, rgb })
}

/// Minimal PS-EXEs assembled word by word, for backend tests that must not wait for the PSX toolchain.
#[cfg(test)]
pub(crate) mod test_exe {
    /// Where the text is loaded and where execution starts.
    pub const LOAD_ADDRESS: u32 = 0x8001_0000;
    /// Where `frame_painter` keeps its magic word and vsync counter (KSEG0; physical 0x100000).
    pub const PAINTER_RECORD: u32 = 0x8010_0000;
    pub const PAINTER_MAGIC: u32 = 0x5041_494E; // "PAIN"
    const HEADER_BYTES: usize = 2048;
    const TEXT_ALIGN: usize = 2048;

    const ZERO: u32 = 0;
    const T0: u32 = 8;
    const T1: u32 = 9;
    const T2: u32 = 10;
    const T3: u32 = 11;
    const T4: u32 = 12;

    fn i_type(op: u32, rs: u32, rt: u32, imm: u16) -> u32 {
        op << 26 | rs << 21 | rt << 16 | u32::from(imm)
    }
    fn lui(rt: u32, imm: u16) -> u32 {
        i_type(0x0F, 0, rt, imm)
    }
    fn ori(rt: u32, rs: u32, imm: u16) -> u32 {
        i_type(0x0D, rs, rt, imm)
    }
    fn andi(rt: u32, rs: u32, imm: u16) -> u32 {
        i_type(0x0C, rs, rt, imm)
    }
    fn addiu(rt: u32, rs: u32, imm: u16) -> u32 {
        i_type(0x09, rs, rt, imm)
    }
    fn sw(rt: u32, offset: u16, base: u32) -> u32 {
        i_type(0x2B, base, rt, offset)
    }
    fn lw(rt: u32, offset: u16, base: u32) -> u32 {
        i_type(0x23, base, rt, offset)
    }
    /// `beq` from word index `at` to word index `target`.
    fn beq(rs: u32, rt: u32, at: usize, target: usize) -> u32 {
        i_type(0x04, rs, rt, (target as i32 - at as i32 - 1) as u16)
    }
    fn or(rd: u32, rs: u32, rt: u32) -> u32 {
        rs << 21 | rt << 16 | rd << 11 | 0x25
    }
    fn sll(rd: u32, rt: u32, shift: u32) -> u32 {
        rt << 16 | rd << 11 | shift << 6
    }
    /// `j` to word index `target` of the text.
    fn j(target: usize) -> u32 {
        0x02 << 26 | ((LOAD_ADDRESS + 4 * target as u32) >> 2 & 0x03FF_FFFF)
    }
    const NOP: u32 = 0;
    const MTC0_ZERO_TO_SR: u32 = 0x4080_6000;

    /// A PS-EXE whose text is `words`, loaded and started at `LOAD_ADDRESS`.
    pub fn ps_exe(words: &[u32]) -> Vec<u8> {
        let mut text: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        text.resize(text.len().div_ceil(TEXT_ALIGN) * TEXT_ALIGN, 0);
        let mut exe = vec![0u8; HEADER_BYTES];
        exe[..8].copy_from_slice(b"PS-X EXE");
        let mut put = |at: usize, value: u32| exe[at..at + 4].copy_from_slice(&value.to_le_bytes());
        put(0x10, LOAD_ADDRESS); // pc0
        put(0x18, LOAD_ADDRESS); // t_addr
        put(0x1C, text.len() as u32); // t_size
        put(0x30, 0x801F_FF00); // s_addr (stack top)
        let region = b"Sony Computer Entertainment Inc. for North America area";
        exe[0x4C..0x4C + region.len()].copy_from_slice(region);
        exe.extend_from_slice(&text);
        exe
    }

    /// Stores `magic` at `address` (KSEG0), then counts forever in the word after it.
    pub fn magic_writer(address: u32, magic: u32) -> Vec<u8> {
        let (hi, lo) = ((address >> 16) as u16, address as u16);
        ps_exe(&[
            lui(T0, hi),
            ori(T0, T0, lo),
            lui(T1, (magic >> 16) as u16),
            ori(T1, T1, magic as u16),
            sw(T1, 0, T0),
            ori(T2, ZERO, 0),
            addiu(T2, T2, 1), // word 6: loop
            sw(T2, 4, T0),
            j(6),
            NOP,
        ])
    }

    /// Stores `PAINTER_MAGIC` at `PAINTER_RECORD`, turns the display on (256x240), then for every
    /// vsync (polled in I_STAT, interrupts off) counts it in the next word and fills the screen with
    /// red = count * 8 (so a screenshot's 5-bit red channel is the count modulo 32).
    pub fn frame_painter() -> Vec<u8> {
        let mut words = vec![
            MTC0_ZERO_TO_SR,
            lui(T0, 0x1F80), // I/O base
            lui(T3, (PAINTER_RECORD >> 16) as u16),
            ori(T2, ZERO, 0),
            lui(T1, (PAINTER_MAGIC >> 16) as u16),
            ori(T1, T1, PAINTER_MAGIC as u16),
            sw(T1, 0, T3),
            sw(ZERO, 0x1814, T0), // GP1(00h): reset
            lui(T1, 0x0300),
            sw(T1, 0x1814, T0), // GP1(03h): display on
            lui(T1, 0x0800),
            sw(T1, 0x1814, T0), // GP1(08h): 256x240, NTSC, 15-bit
        ];
        let wait = words.len();
        words.extend([lw(T1, 0x1070, T0), NOP, andi(T1, T1, 1)]); // I_STAT bit 0: vblank
        words.push(beq(T1, ZERO, words.len(), wait));
        words.extend([
            NOP,
            lui(T1, 0xFFFF),
            ori(T1, T1, 0xFFFE),
            sw(T1, 0x1070, T0), // acknowledge vblank only
            addiu(T2, T2, 1),
            sw(T2, 4, T3),
            sll(T4, T2, 3),
            andi(T4, T4, 0xF8),
            lui(T1, 0x0200),
            or(T1, T1, T4),
            sw(T1, 0x1810, T0),   // GP0(02h): fill rectangle, colour 0x0000RR
            sw(ZERO, 0x1810, T0), // at 0,0
            lui(T1, 240),
            ori(T1, T1, 256),
            sw(T1, 0x1810, T0), // 256x240
            j(wait),
            NOP,
        ]);
        ps_exe(&words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, Scratch};

    fn scratch(name: &str) -> Scratch {
        test_support::scratch("rearmed", name)
    }

    fn request(exe: PathBuf, frames: u32, screenshot_frames: Vec<u32>, work_dir: PathBuf) -> RunRequest {
        RunRequest { exe, frames, screenshot_frames, work_dir, timeout: Duration::from_secs(300), probe: false }
    }

    /// The installed core, or `None` (after saying why) when tests needing it should be skipped.
    /// Under `CI` a missing core is a failure.
    fn installed_core() -> Option<PathBuf> {
        let dir = core_dir(&workspace_root());
        match check_core(&dir) {
            Ok(()) => Some(dir),
            Err(why) if std::env::var_os("CI").is_some() => panic!("CI is set but pcsx_rearmed is missing: {why:#}"),
            Err(why) => {
                eprintln!("skipping: pcsx_rearmed not installed ({why:#}); run `cargo xtask setup`");
                None
            }
        }
    }

    fn write_png(path: &Path, color: png::ColorType, width: u32, height: u32, data: &[u8]) {
        let file = std::fs::File::create(path).unwrap();
        let mut encoder = png::Encoder::new(file, width, height);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.write_header().unwrap().write_image_data(data).unwrap();
    }

    #[test]
    fn decodes_rgb_and_rgba_pngs_to_rgb() {
        let dir = scratch("png");
        write_png(&dir.join("rgb.png"), png::ColorType::Rgb, 2, 1, &[1, 2, 3, 4, 5, 6]);
        write_png(&dir.join("rgba.png"), png::ColorType::Rgba, 1, 2, &[7, 8, 9, 255, 10, 11, 12, 0]);
        let rgb = decode_png(&dir.join("rgb.png"), 5).unwrap();
        assert_eq!((rgb.frame, rgb.width, rgb.height, rgb.rgb), (5, 2, 1, vec![1, 2, 3, 4, 5, 6]));
        let rgba = decode_png(&dir.join("rgba.png"), 6).unwrap();
        assert_eq!((rgba.width, rgba.height, rgba.rgb), (1, 2, vec![7, 8, 9, 10, 11, 12]));
    }

    #[test]
    fn rejects_the_empty_png_taken_before_any_frame() {
        // What the core writes for a screenshot asked for before its first frame: a bare 0x0 header.
        let dir = scratch("empty-png");
        let mut empty = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        empty.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0, 0xb4, 0xe9, 0xeb, 0x45]);
        std::fs::write(dir.join("empty.png"), &empty).unwrap();
        let err = decode_png(&dir.join("empty.png"), 0).unwrap_err();
        assert!(format!("{err:#}").contains("empty.png"), "{err:#}");
    }

    #[test]
    fn refuses_screenshot_frames_out_of_order_or_range() {
        let dir = scratch("check");
        let exe = dir.join("game.exe");
        std::fs::write(&exe, test_exe::magic_writer(0x8010_0000, 0x1234_5678)).unwrap();
        assert!(check_request(&request(exe.clone(), 10, vec![1, 5, 10], dir.to_path_buf())).is_ok());
        for bad in [vec![0], vec![11], vec![5, 5], vec![6, 2]] {
            let err = check_request(&request(exe.clone(), 10, bad.clone(), dir.to_path_buf())).unwrap_err();
            assert!(err.to_string().contains("ascending"), "{bad:?}: {err}");
        }
        let err = check_request(&request(dir.join("missing.exe"), 10, vec![], dir.to_path_buf())).unwrap_err();
        assert!(err.to_string().contains("missing.exe"), "{err}");
        std::fs::write(dir.join("elf.exe"), b"\x7fELF\x01\x01\x01\0").unwrap();
        let err = check_request(&request(dir.join("elf.exe"), 10, vec![], dir.to_path_buf())).unwrap_err();
        assert!(err.to_string().contains("expected \"PS-X EXE\""), "{err}");
    }

    #[test]
    fn runner_failures_and_short_dumps_are_clear_errors() {
        let dir = scratch("outputs");
        let req = request(dir.join("game.exe"), 3, vec![], dir.to_path_buf());
        let err = read_outputs(&dir, &req, "").unwrap_err();
        assert!(format!("{err:#}").contains("manifest.json"), "{err:#}");
        let manifest =
            r#"{"frames_run":3,"ram":"ram.bin","screenshots":[],"skipped_screenshots":[],"seconds":0.1,"log":[]}"#;
        std::fs::write(dir.join("manifest.json"), manifest).unwrap();
        std::fs::write(dir.join("ram.bin"), vec![0u8; 1000]).unwrap();
        let err = read_outputs(&dir, &req, "").unwrap_err();
        assert!(format!("{err:#}").contains("1000 bytes, expected 2097152"), "{err:#}");
    }

    /// Fetches from npm, so it runs only when asked: `cargo test -p xtask -- --ignored installs_`.
    #[test]
    #[ignore = "downloads about 4 MB from the npm registry"]
    fn installs_the_pinned_core_once() {
        let workspace = scratch("install");
        let dir = core_dir(&workspace);
        assert_eq!(install(&workspace).unwrap(), Install::Installed(dir.to_path_buf()));
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, CORE_FILES.map(|(name, _)| std::ffi::OsString::from(name)));
        assert_eq!(install(&workspace).unwrap(), Install::AlreadyThere(dir.to_path_buf()));
        // A damaged file is noticed and replaced.
        std::fs::write(dir.join(CORE_FILES[1].0), b"not wasm").unwrap();
        assert!(check_core(&dir).unwrap_err().to_string().contains("expected ce204a80"));
        assert_eq!(install(&workspace).unwrap(), Install::Installed(dir.to_path_buf()));
        check_core(&dir).unwrap();
    }

    #[test]
    fn screenshot_of_frame_n_shows_what_the_program_drew_after_its_nth_vsync() {
        let Some(_) = installed_core() else { return };
        let dir = scratch("painter");
        let exe = dir.join("painter.exe");
        std::fs::write(&exe, test_exe::frame_painter()).unwrap();
        let shots = vec![1, 2, 3, 7, 8, 30, 40];
        let out = run(&request(exe, 40, shots.clone(), dir.join("work"))).unwrap();
        let at = (test_exe::PAINTER_RECORD & 0x1F_FFFF) as usize;
        let word = |offset: usize| u32::from_le_bytes(out.ram[at + offset..at + offset + 4].try_into().unwrap());
        assert_eq!(word(0), test_exe::PAINTER_MAGIC);
        assert_eq!(word(4), 40, "one vsync per frame stepped");
        for shot in &out.screenshots {
            assert_eq!((shot.width, shot.height), (256, 240), "frame {}", shot.frame);
            let red5 = u32::from(shot.rgb[0] >> 3);
            assert_eq!(red5, shot.frame % 32, "frame {}: red {}", shot.frame, shot.rgb[0]);
            assert_eq!(&shot.rgb[1..3], &[0, 0]);
        }
        assert_eq!(out.screenshots.iter().map(|s| s.frame).collect::<Vec<_>>(), shots);
    }

    #[test]
    fn an_exe_the_core_rejects_is_reported_with_its_reason() {
        let Some(_) = installed_core() else { return };
        let dir = scratch("rejected");
        let exe = dir.join("bad.exe");
        // Past `check_request` (which refuses a wrong magic up front), to see the runner's own check.
        std::fs::write(&exe, [0x5Au8; 4096]).unwrap();
        match run_checked(&request(exe, 5, vec![], dir.join("work"))) {
            Err(RunError::Crashed(message)) => assert!(message.contains("could not load"), "{message}"),
            other => panic!("expected the load failure, got {other:?}"),
        }
    }

    #[test]
    fn a_run_past_its_timeout_is_killed_and_reported() {
        let Some(_) = installed_core() else { return };
        let dir = scratch("timeout");
        let exe = dir.join("magic.exe");
        std::fs::write(&exe, test_exe::magic_writer(0x8010_0000, 1)).unwrap();
        // A zero limit expires before Node can even start the core.
        let mut req = request(exe, 1_000_000, vec![], dir.join("work"));
        req.timeout = Duration::ZERO;
        assert!(matches!(run(&req), Err(RunError::TimedOut(limit)) if limit == Duration::ZERO));
    }

    #[test]
    fn an_unreachable_registry_is_a_clear_install_error() {
        if require_tool("npm", "--version", "").is_err() {
            assert!(std::env::var_os("CI").is_none(), "CI is set but npm is missing");
            eprintln!("skipping: npm not on PATH");
            return;
        }
        let workspace = scratch("no-registry");
        let cache = workspace.join("npm-cache").display().to_string();
        let npm_env = [
            ("npm_config_registry", "http://127.0.0.1:9/"),
            ("npm_config_fetch_retries", "0"),
            ("npm_config_cache", cache.as_str()),
        ];
        let err = format!("{:#}", install_with(&workspace, &npm_env).unwrap_err());
        assert!(err.contains("npm could not fetch the package") && err.contains("registry"), "{err}");
        let leftovers: Vec<_> =
            std::fs::read_dir(tools_dir(&workspace)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(leftovers.is_empty(), "a failed install left {leftovers:?}");
    }

    /// The real thing, once `cargo xtask build-exe hello` has been run: its verification record must
    /// be in the RAM dump, finished, with the frames its main loop counted.
    #[test]
    fn runs_hello_and_finds_its_record() {
        use psxanim_runtime::record::{status, MAGIC0, MAGIC1, VERSION};
        let Some(_) = installed_core() else { return };
        let exe = workspace_root().join("target").join("psx").join("hello.exe");
        if !exe.is_file() {
            eprintln!("skipping: {} not built (cargo xtask build-exe hello)", exe.display());
            return;
        }
        let dir = scratch("hello");
        let out = run(&request(exe, 120, vec![60, 120], dir.to_path_buf())).unwrap();
        let magic: Vec<u8> = [MAGIC0, MAGIC1].iter().flat_map(|w| w.to_le_bytes()).collect();
        let at = out.ram.windows(8).position(|w| w == magic.as_slice()).expect("no record magic in the RAM dump");
        let word = |i: usize| u32::from_le_bytes(out.ram[at + 4 * i..at + 4 * i + 4].try_into().unwrap());
        assert_eq!(word(2), VERSION);
        assert_eq!(word(3), u32::from_le_bytes(*b"HELO"));
        assert_eq!(word(5), status::DONE, "status; error {} detail {}", word(6), word(7));
        // The main loop starts within the first frames and then sees one vsync per frame.
        assert!((110..=120).contains(&word(4)), "frames counted by hello: {}", word(4));
        // The frames differ: something on screen moves.
        assert!(out.screenshots[0].rgb != out.screenshots[1].rgb, "frames 60 and 120 look the same");
    }

    #[test]
    fn runs_a_hand_built_exe_and_reads_its_ram_and_screenshots() {
        let Some(_) = installed_core() else { return };
        let dir = scratch("e2e");
        let exe = dir.join("magic.exe");
        std::fs::write(&exe, test_exe::magic_writer(0x8010_0000, 0xC0DE_F00D)).unwrap();
        let run_once = |name: &str| run(&request(exe.clone(), 120, vec![1, 2, 60, 120], dir.join(name))).unwrap();
        let first = run_once("first");
        assert_eq!(first.frames_run, 120);
        assert_eq!(first.ram.len(), MAIN_RAM_BYTES);
        let word = |ram: &[u8], at: usize| u32::from_le_bytes(ram[at..at + 4].try_into().unwrap());
        assert_eq!(word(&first.ram, 0x10_0000), 0xC0DE_F00D, "magic missing from the RAM dump");
        assert!(word(&first.ram, 0x10_0004) > 1000, "the program's loop counter did not run");
        // The loader copied the EXE's text to its load address.
        assert_eq!(
            &first.ram[0x1_0000..0x1_0000 + 16],
            &test_exe::magic_writer(0x8010_0000, 0xC0DE_F00D)[2048..2048 + 16]
        );
        let frames: Vec<u32> = first.screenshots.iter().map(|s| s.frame).collect();
        assert_eq!(frames, [1, 2, 60, 120]);
        for shot in &first.screenshots {
            assert!(shot.width > 0 && shot.height > 0);
            assert_eq!(shot.rgb.len(), (shot.width * shot.height * 3) as usize);
        }
        // Frame stepping makes runs repeatable: the same EXE gives the same RAM, byte for byte.
        let second = run_once("second");
        assert!(first.ram == second.ram, "two runs of the same EXE left different RAM");
    }
}
