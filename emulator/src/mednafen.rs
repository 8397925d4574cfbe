//! mednafen backend: Debian's `libretro-beetle-psx` (mednafen's PSX core as a libretro `.so`) driven by
//! our own libretro frontend, booting our own boot ROM (`crate::bootrom`), which starts the PS-EXE.
//!
//! How a run goes: the ROM image (built for the EXE's header) is written under the three firmware names
//! into a temporary system folder; the core gets the PS-EXE itself as content (it insists on content,
//! and a PS-EXE is the only kind that needs no disc image). The core maps a loaded EXE's text at
//! expansion region 1 (`bootrom::TEXT_SOURCE`), from where the ROM copies it into RAM: a program may
//! be as large as RAM holds. The core's own side-loader hooks BIOS offset 0x6990, which our ROM never
//! executes. The core library is loaded once in the xtask process; each run then happens in a
//! forked child process (with a pristine copy of the core's globals), so a crash or hang of the core cannot
//! take the xtask down: the parent enforces the timeout and kills it. Frames are counted from the end of
//! the frame in which the ROM hands over to the program (seen in the ROM's mailbox in RAM, polled once a
//! frame): screenshot frame 0 is that frame, frame N the N-th after it. So the program has run N frames
//! plus the rest of the hand-over frame (the ROM copies about 77 KiB of text a frame: a 6 KiB hello
//! starts in frame 1, the largest EXE, 1,966,080 bytes of text, in frame 25). Screenshots are the core's output: overscan
//! cropped by the core (320 of 350 columns), scanlines 0..=239. RAM and VRAM come from `retro_serialize`
//! (this core's `retro_get_memory_data` gives no RAM), parsed by `state`; VRAM is left in the work
//! folder as `mednafen-vram.bin`. The core logs "Error opening file" for the memory cards it does not
//! find in the (empty) save folder; that is expected.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::{tools_dir, workspace_root, Fault, FrameProbe, RunError, RunOutput, RunRequest, Screenshot};
use crate::bootrom::{self, mailbox, PsExe};

mod frontend;
mod isolate;
mod state;

/// The Debian packages: the core and the one library it needs beyond libc/libstdc++.
const PACKAGES: [&str; 2] = ["libretro-beetle-psx", "libtrio2"];
const CORE_FILE: &str = "mednafen_psx_libretro.so";
const TRIO_FILE: &str = "libtrio.so.2";
/// Frames the boot ROM may take to hand over (copying the largest EXE, 1.9 MiB, takes 25).
const BOOT_FRAME_LIMIT: u32 = 120;
const MAIN_RAM_BYTES: usize = 2 * 1024 * 1024;
const VRAM_BYTES: usize = 1024 * 1024;
/// Core options: the displayed area is scanlines 0..=239 (NTSC), memory cards the libretro way (in the
/// temporary save folder, so nothing carries over between runs). This build has no BIOS sanity check.
const CORE_OPTIONS: [(&str, &str); 4] = [
    ("beetle_psx_initial_scanline", "0"),
    ("beetle_psx_last_scanline", "239"),
    ("beetle_psx_use_mednafen_memcard0_method", "libretro"),
    ("beetle_psx_analog_toggle", "disabled"),
];

fn install_dir(workspace: &Path) -> PathBuf {
    tools_dir(workspace).join("beetle-psx")
}

/// The unpacked core and library.
struct Installed {
    core: PathBuf,
    trio: PathBuf,
}

/// Whether the core and its library are unpacked under the workspace's tools folder.
pub fn is_installed(workspace: &Path) -> bool {
    locate(workspace).is_some()
}

fn locate(workspace: &Path) -> Option<Installed> {
    let root = install_dir(workspace).join("root");
    Some(Installed {
        core: find_file(&root, CORE_FILE)?,
        trio: find_file(&root, TRIO_FILE)?,
    })
}

/// Depth-first search for a file (or symlink to one) named `name` under `dir`.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in &entries {
        if path.file_name().is_some_and(|n| n == name) && path.is_file() {
            return Some(path.clone());
        }
    }
    entries
        .iter()
        .filter(|p| p.is_dir() && !p.is_symlink())
        .find_map(|p| find_file(p, name))
}

/// Downloads the two Debian packages with `apt-get download` (which pulls no dependencies, so no
/// RetroArch) and unpacks them with `dpkg-deb -x` under `target/tools/beetle-psx/root`. Idempotent.
pub fn ensure_installed(workspace: &Path) -> anyhow::Result<()> {
    if let Some(found) = locate(workspace) {
        println!(
            "mednafen: beetle-psx core already installed: {}",
            found.core.display()
        );
        return Ok(());
    }
    let dir = install_dir(workspace);
    let debs = dir.join("debs");
    let staging = dir.join("root.partial");
    let _ = std::fs::remove_dir_all(&debs);
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&debs).with_context(|| format!("creating {}", debs.display()))?;

    if apt_download(&debs).is_err() {
        // A fresh machine may have no package lists yet.
        run_tool(
            Command::new("apt-get").arg("update").arg("-q"),
            "apt-get update",
        )
        .context("apt-get could not reach the Debian registry to refresh its package lists")?;
        apt_download(&debs)
            .context("apt-get could not download the beetle-psx core from the Debian registry")?;
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&debs)? {
        let deb = entry?.path();
        if deb.extension().is_some_and(|e| e == "deb") {
            run_tool(
                Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&staging),
                "dpkg-deb -x",
            )?;
            names.push(
                deb.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    let root = dir.join("root");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::rename(&staging, &root)
        .with_context(|| format!("moving {} to {}", staging.display(), root.display()))?;
    let _ = std::fs::remove_dir_all(&debs);
    let Some(found) = locate(workspace) else {
        bail!(
            "unpacked {names:?} into {} but found no {CORE_FILE} and {TRIO_FILE} there",
            root.display()
        );
    };
    names.sort();
    println!(
        "mednafen: installed {} -> {}",
        names.join(", "),
        found.core.display()
    );
    Ok(())
}

fn apt_download(into: &Path) -> anyhow::Result<()> {
    run_tool(
        Command::new("apt-get")
            .arg("download")
            .arg("-q")
            .args(PACKAGES)
            .current_dir(into),
        "apt-get download",
    )
}

fn run_tool(command: &mut Command, what: &str) -> anyhow::Result<()> {
    let output = command
        .env("DEBIAN_FRONTEND", "noninteractive")
        .output()
        .with_context(|| format!("could not start {what} (is this a Debian system with apt?)"))?;
    if !output.status.success() {
        bail!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

/// What the child reports back (beside the RAM, VRAM and screenshot files).
#[derive(Debug, Serialize, Deserialize)]
struct ChildReport {
    boot_frames: u32,
    frames_run: u32,
    seconds: f64,
    screenshots: Vec<ShotInfo>,
    exceptions: u32,
    last_epc: u32,
    last_cause: u32,
    final_pc: u32,
    /// (frame, activity fingerprint, PC) after each frame, when the request asked for probes.
    probes: Vec<(u32, u64, u32)>,
    fault: Option<Fault>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ShotInfo {
    frame: u32,
    width: u32,
    height: u32,
}

/// Files the child writes into the request's work folder.
struct OutFiles {
    dir: PathBuf,
}

impl OutFiles {
    fn log(&self) -> PathBuf {
        self.dir.join("mednafen-core.log")
    }
    fn report(&self) -> PathBuf {
        self.dir.join("mednafen-report.json")
    }
    fn error(&self) -> PathBuf {
        self.dir.join("mednafen-error.txt")
    }
    fn ram(&self) -> PathBuf {
        self.dir.join("mednafen-ram.bin")
    }
    fn vram(&self) -> PathBuf {
        self.dir.join("mednafen-vram.bin")
    }
    fn shot(&self, frame: u32) -> PathBuf {
        self.dir.join(format!("mednafen-frame-{frame:05}.rgb"))
    }
}

/// Everything the child needs.
struct Plan {
    library: &'static frontend::CoreLibrary,
    system_dir: PathBuf,
    save_dir: PathBuf,
    content: PathBuf,
    frames: u32,
    screenshot_frames: Vec<u32>,
    probe: bool,
    out: OutFiles,
}

pub fn run(req: &RunRequest) -> Result<RunOutput, RunError> {
    let workspace = workspace_root();
    let Some(installed) = locate(&workspace) else {
        return Err(RunError::NotInstalled(format!(
            "the beetle-psx libretro core (mednafen) is not in {}; {}",
            install_dir(&workspace).display(),
            crate::install_hint()
        )));
    };
    req.check_screenshot_frames()?;
    let name = req.exe.display().to_string();
    let bytes = std::fs::read(&req.exe).with_context(|| format!("reading {name}"))?;
    let exe = PsExe::parse(&bytes, &name)?;
    let rom = bootrom::build(&exe).with_context(|| format!("building the boot ROM for {name}"))?;

    let temp = tempfile::Builder::new()
        .prefix("psxanim-mednafen-")
        .tempdir()?;
    // libtrio uses libm (powl) without linking it, so libm goes first, global.
    let library =
        frontend::CoreLibrary::load(&installed.core, &[Path::new("libm.so.6"), &installed.trio])?;
    let plan = Plan {
        library,
        system_dir: temp.path().join("system"),
        save_dir: temp.path().join("save"),
        content: temp.path().join("program.exe"),
        frames: req.frames,
        screenshot_frames: req.screenshot_frames.clone(),
        probe: req.probe,
        out: OutFiles {
            dir: req.work_dir.clone(),
        },
    };
    bootrom::write_firmware(&plan.system_dir, &rom)?;
    std::fs::create_dir_all(&plan.save_dir)?;
    std::fs::write(&plan.content, content_exe(&exe))?;
    std::fs::create_dir_all(&req.work_dir)
        .with_context(|| format!("creating {}", req.work_dir.display()))?;
    for stale in [
        plan.out.log(),
        plan.out.report(),
        plan.out.error(),
        plan.out.ram(),
        plan.out.vram(),
    ] {
        let _ = std::fs::remove_file(stale);
    }

    let started = Instant::now();
    let ended = isolate::run_in_child(req.timeout, || child_main(&plan))?;
    let wall = started.elapsed();
    let log = std::fs::read_to_string(plan.out.log()).unwrap_or_default();
    match ended {
        isolate::Ended::Exited(0) => collect(&plan, log, wall),
        isolate::Ended::Exited(code) => {
            let error = std::fs::read_to_string(plan.out.error())
                .unwrap_or_else(|_| format!("the core process exited with status {code}"));
            Err(RunError::Crashed(format!(
                "{}\n{}",
                error.trim(),
                log_tail(&log)
            )))
        }
        isolate::Ended::Signaled(signal) => Err(RunError::Crashed(format!(
            "the core process died on signal {signal}{}\n{}",
            signal_name(signal),
            log_tail(&log)
        ))),
        isolate::Ended::TimedOut => Err(RunError::TimedOut(req.timeout)),
    }
}

fn collect(plan: &Plan, mut log: String, wall: Duration) -> Result<RunOutput, RunError> {
    let report: ChildReport = serde_json::from_slice(
        &std::fs::read(plan.out.report()).context("the core process ended without its report")?,
    )
    .context("reading the core process report")?;
    let ram =
        std::fs::read(plan.out.ram()).context("reading main RAM written by the core process")?;
    if ram.len() != MAIN_RAM_BYTES {
        return Err(anyhow::anyhow!(
            "main RAM dump is {} bytes, expected {MAIN_RAM_BYTES}",
            ram.len()
        )
        .into());
    }
    let mut screenshots = Vec::new();
    for shot in &report.screenshots {
        let path = plan.out.shot(shot.frame);
        let rgb = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let _ = std::fs::remove_file(&path);
        if rgb.len() != 3 * shot.width as usize * shot.height as usize {
            return Err(anyhow::anyhow!(
                "{}: {} bytes for {}x{}",
                path.display(),
                rgb.len(),
                shot.width,
                shot.height
            )
            .into());
        }
        screenshots.push(Screenshot {
            frame: shot.frame,
            width: shot.width,
            height: shot.height,
            rgb,
        });
    }
    log.push_str(&format!(
        "mednafen: boot ROM handed over after {} frame(s); {} frames in {:.2} s ({:.0} frames/s), {:.2} s wall \
         with setup; program exceptions: {} (last EPC {:#010x}, CAUSE {:#010x}); final PC {:#010x}; VRAM in {}\n",
        report.boot_frames,
        report.frames_run,
        report.seconds,
        f64::from(report.boot_frames + report.frames_run) / report.seconds.max(1e-9),
        wall.as_secs_f64(),
        report.exceptions,
        report.last_epc,
        report.last_cause,
        report.final_pc,
        plan.out.vram().display(),
    ));
    let tty = tty_text(&ram);
    Ok(RunOutput {
        ram,
        screenshots,
        frames_run: report.frames_run,
        log,
        tty: Some(tty),
        probes: report
            .probes
            .iter()
            .map(|&(frame, activity, pc)| FrameProbe { frame, vsync_acked: None, activity, pc: Some(pc) })
            .collect(),
        fault: report.fault,
        final_pc: Some(report.final_pc),
    })
}

/// What the program printed through the boot ROM's TTY calls (`bootrom::mailbox::TTY_BUFFER`).
fn tty_text(ram: &[u8]) -> String {
    let written = read_word(ram, mailbox::TTY_LEN) as usize;
    let kept = written.min(mailbox::TTY_CAPACITY);
    let mut text = String::from_utf8_lossy(&ram[mailbox::TTY_BUFFER..mailbox::TTY_BUFFER + kept]).into_owned();
    if written > kept {
        text.push_str(&format!("\n[psxanim: {} more characters were printed past the {kept}-byte TTY buffer]\n", written - kept));
    }
    text
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => " (SIGABRT: the core aborted, e.g. on an uncaught C++ exception)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGILL => " (SIGILL)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGKILL => " (SIGKILL)",
        _ => "",
    }
}

fn log_tail(log: &str) -> String {
    let lines: Vec<_> = log.lines().collect();
    let tail = &lines[lines.len().saturating_sub(20)..];
    if tail.is_empty() {
        "(the core logged nothing)".to_string()
    } else {
        format!("last lines of the core log:\n{}", tail.join("\n"))
    }
}

/// The PS-EXE the core loads as content: the program, its text padded to whole words (the ROM copies
/// words), exactly the header and `t_size` bytes (the core refuses anything else).
fn content_exe(exe: &PsExe) -> Vec<u8> {
    let mut padded = exe.clone();
    padded.text.resize(exe.text.len().next_multiple_of(4), 0);
    padded.to_file_bytes()
}

/// The child process: runs the core, writes the outputs, returns the exit status.
fn child_main(plan: &Plan) -> i32 {
    let log = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(plan.out.log())
    {
        Ok(file) => file,
        Err(_) => return 5,
    };
    isolate::redirect_output_to(&log);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| child_run(plan, log))) {
        Ok(Ok(())) => 0,
        Ok(Err(error)) => {
            let _ = std::fs::write(plan.out.error(), format!("{error:#}"));
            3
        }
        Err(_) => {
            let _ = std::fs::write(plan.out.error(), "the frontend panicked (see the core log)");
            4
        }
    }
}

fn child_run(plan: &Plan, log: std::fs::File) -> anyhow::Result<()> {
    let setup = frontend::Setup {
        system_dir: &plan.system_dir,
        save_dir: &plan.save_dir,
        options: &CORE_OPTIONS,
        log,
    };
    let core = frontend::Core::start(plan.library, &plan.content, setup)?;
    frontend::note("the core loaded the program as content; the boot ROM copies its text into RAM and starts it");
    let started = Instant::now();

    let mut boot_frames = 0;
    loop {
        core.run_frame();
        boot_frames += 1;
        let state = core.serialize()?;
        let ram = main_ram(&state)?;
        match read_word(&ram, mailbox::STATE) {
            mailbox::HANDED_OVER => break,
            mailbox::NO_TEXT => bail!(
                "the core does not show the program's text at {:#010x} (expansion region 1), where mednafen's \
                 PSX core maps a PS-EXE it loads and the boot ROM copies it from: this core build is not supported",
                bootrom::TEXT_SOURCE
            ),
            _ => {}
        }
        if boot_frames >= BOOT_FRAME_LIMIT {
            bail!("the boot ROM did not hand over to the program within {BOOT_FRAME_LIMIT} frames");
        }
    }
    frontend::note(&format!("boot ROM handed over during frame {boot_frames}"));

    let mut screenshots = Vec::new();
    let mut capture = |frame: u32| -> anyhow::Result<()> {
        if plan.screenshot_frames.contains(&frame) {
            let Some(image) = core.last_frame() else {
                bail!("no video frame by frame {frame}")
            };
            std::fs::write(plan.out.shot(frame), image.to_rgb8())?;
            screenshots.push(ShotInfo {
                frame,
                width: image.width,
                height: image.height,
            });
        }
        Ok(())
    };
    capture(0)?;
    let mut probes = Vec::new();
    let mut fault = None;
    let mut exceptions_seen = 0;
    let mut frames_run = 0;
    for frame in 1..=plan.frames {
        core.run_frame();
        frames_run = frame;
        capture(frame)?;
        if plan.probe {
            let state_bytes = core.serialize()?;
            let state = state::SaveState::parse(&state_bytes)?;
            let probe = Probe::read(&state)?;
            probes.push((frame, probe.activity, probe.pc));
            // The boot ROM's handler counts every exception and returns to the faulting instruction
            // (past it for a syscall): a fatal one repeats forever, so the run ends there.
            if probe.exceptions != exceptions_seen {
                exceptions_seen = probe.exceptions;
                if Fault::is_fatal(probe.last_cause) {
                    fault = Some(Fault { frame, epc: probe.last_epc, cause: probe.last_cause });
                    break;
                }
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();

    let state_bytes = core.serialize()?;
    let state = state::SaveState::parse(&state_bytes)?;
    let ram = state.sized("MAIN", "MainRAM.data8", MAIN_RAM_BYTES)?;
    let vram = state.sized("GPU", "&GPURAM[0][0]", VRAM_BYTES)?;
    let final_pc = read_word(state.sized("CPU", "BACKED_PC", 4)?, 0);
    std::fs::write(plan.out.ram(), ram)?;
    std::fs::write(plan.out.vram(), vram)?;
    let report = ChildReport {
        boot_frames,
        frames_run,
        seconds,
        screenshots,
        exceptions: read_word(ram, mailbox::EXCEPTIONS),
        last_epc: read_word(ram, mailbox::LAST_EPC),
        last_cause: read_word(ram, mailbox::LAST_CAUSE),
        final_pc,
        probes,
        fault,
    };
    // Written last: its presence means every other file is complete.
    std::fs::write(plan.out.report(), serde_json::to_vec_pretty(&report)?)?;
    Ok(())
}

/// What one frame's probe reads from a save state.
struct Probe {
    activity: u64,
    pc: u32,
    exceptions: u32,
    last_epc: u32,
    last_cause: u32,
}

impl Probe {
    /// Activity: main RAM above the kernel area, the GPU's display origin (a double-buffered program
    /// flips it every frame) and the GPU DMA channel's registers (a program that draws starts it).
    /// I_STAT cannot tell: this core ends a frame at the vblank that sets it.
    fn read(state: &state::SaveState) -> anyhow::Result<Probe> {
        let ram = state.sized("MAIN", "MainRAM.data8", MAIN_RAM_BYTES)?;
        let mut parts: Vec<&[u8]> = vec![&ram[crate::KERNEL_AREA_END..]];
        for (section, variable) in [
            ("GPU", "DisplayFB_XStart"),
            ("GPU", "DisplayFB_YStart"),
            ("DMA", "2BaseAddr"),
            ("DMA", "2BlockControl"),
            ("DMA", "2ChanControl"),
        ] {
            parts.push(state.variable(section, variable)?);
        }
        Ok(Probe {
            activity: crate::fingerprint(&parts),
            pc: read_word(state.sized("CPU", "BACKED_PC", 4)?, 0),
            exceptions: read_word(ram, mailbox::EXCEPTIONS),
            last_epc: read_word(ram, mailbox::LAST_EPC),
            last_cause: read_word(ram, mailbox::LAST_CAUSE),
        })
    }
}

fn main_ram(state_bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    Ok(state::SaveState::parse(state_bytes)?
        .sized("MAIN", "MainRAM.data8", MAIN_RAM_BYTES)?
        .to_vec())
}

fn read_word(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

#[cfg(test)]
mod tests;
