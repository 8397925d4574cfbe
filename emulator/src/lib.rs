//! Running a PS-EXE headless in a PlayStation emulator, for `psxanim run` and the xtask's checks.
//!
//! Each backend (PCSX-Redux, pcsx_rearmed built for WebAssembly, mednafen's core booting our own boot
//! ROM) runs an EXE for a number of frames and hands back main RAM, the screenshots asked for and what
//! it could see of the program's health; [`session`] turns that into PNG frames and a verdict (ran,
//! crashed, hung), and the xtask's `verify` compares RAM with the host's expectation. Also here because
//! both sides need them: PS-EXE checking and writing ([`psexe`], [`elf`]) and the boot ROM ([`bootrom`]).
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod bootrom;
pub mod elf;
pub mod frames;
pub mod game_checks;
pub mod mednafen;
pub mod process;
pub mod psexe;
pub mod rearmed;
pub mod redux;
pub mod session;

/// What to run and what to capture.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The PS-EXE to run.
    pub exe: PathBuf,
    /// Frames (vsyncs) to run after the program has started.
    pub frames: u32,
    /// Frame numbers (counted like `frames`) after which to take a screenshot, ascending.
    pub screenshot_frames: Vec<u32>,
    /// A scratch folder the backend may use (its config, logs, save states).
    pub work_dir: PathBuf,
    /// Wall-clock limit for the whole run; the emulator process is killed past it.
    pub timeout: Duration,
    /// Watch the program's health frame by frame ([`RunOutput::probes`]); costs a little per frame.
    pub probe: bool,
}

impl RunRequest {
    /// Screenshots are taken after a frame has been displayed, so their frame numbers must be
    /// ascending and run from 1 to `frames`.
    pub fn check_screenshot_frames(&self) -> anyhow::Result<()> {
        let mut previous = 0;
        for &frame in &self.screenshot_frames {
            anyhow::ensure!(
                frame > previous && frame <= self.frames,
                "screenshot frame {frame}: frames must be ascending, each between 1 and {} (the frames run)",
                self.frames
            );
            previous = frame;
        }
        Ok(())
    }
}

/// One captured frame of the displayed area, 8-bit RGB, row-major.
#[derive(Debug, Clone)]
pub struct Screenshot {
    pub frame: u32,
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

/// What a finished run gives back.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Main RAM (2 MiB), index = physical address.
    pub ram: Vec<u8>,
    pub screenshots: Vec<Screenshot>,
    /// Frames actually run.
    pub frames_run: u32,
    /// Anything the emulator printed that helps when a run goes wrong.
    pub log: String,
    /// What the program printed through the BIOS (`printf`, `putchar`), where the emulator keeps it
    /// (PCSX-Redux with OpenBIOS, mednafen with our boot ROM); `None` where it cannot (pcsx_rearmed).
    pub tty: Option<String>,
    /// Health seen frame by frame (empty where the backend cannot see it).
    pub probes: Vec<FrameProbe>,
    /// The first exception the program did not survive, where the backend sees exceptions (mednafen).
    pub fault: Option<Fault>,
    /// Where the CPU was when the run ended, where the backend gives it.
    pub final_pc: Option<u32>,
}

/// What a backend sees of the program at the end of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameProbe {
    /// Frame number, counted like `RunRequest::frames`.
    pub frame: u32,
    /// Whether the program acknowledged a vblank interrupt (wrote I_STAT) during the frame, where the
    /// backend can watch that write (PCSX-Redux). A program that waits for vsync does it every frame,
    /// or every few when a frame takes longer; one that has not for a second has stopped.
    pub vsync_acked: Option<bool>,
    /// A fingerprint of what a running program changes: main RAM above the kernel area and, where
    /// the backend has them, the GPU's display and DMA registers. Where acknowledgements cannot be
    /// watched (their sampling point is the vblank itself), a fingerprint that stays the same for a
    /// second means the program stopped (or draws a perfectly still picture without counting frames).
    pub activity: u64,
    /// The CPU's PC, where the backend gives it.
    pub pc: Option<u32>,
}

/// The activity fingerprint of some byte strings (std's hasher with its fixed keys: optimised even in
/// a debug build, and the same for the same bytes within a run, which is all a comparison needs).
pub fn fingerprint(parts: &[&[u8]]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    for part in parts {
        hasher.write(part);
    }
    hasher.finish()
}

/// Main RAM below this is the BIOS's (or our boot ROM's) kernel area: exception counters and
/// interrupt bookkeeping change there while a program is stuck, so activity ignores it.
pub const KERNEL_AREA_END: usize = 0x1_0000;

/// An exception the program did not survive (not an interrupt, not a `syscall`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fault {
    /// The frame during which it happened.
    pub frame: u32,
    /// COP0 EPC (the faulting instruction) and CAUSE.
    pub epc: u32,
    pub cause: u32,
}

impl Fault {
    /// The exception's name from CAUSE's ExcCode (bits 2..6).
    pub fn name(&self) -> &'static str {
        match (self.cause >> 2) & 31 {
            0 => "interrupt",
            1..=3 => "TLB exception",
            4 => "address error on load or fetch",
            5 => "address error on store",
            6 => "bus error on fetch",
            7 => "bus error on load or store",
            8 => "syscall",
            9 => "break (a Rust panic or an explicit trap)",
            10 => "reserved instruction",
            11 => "coprocessor unusable (COP2 not enabled?)",
            12 => "arithmetic overflow",
            _ => "unknown exception",
        }
    }

    /// Whether an exception with this CAUSE ends the program: interrupts and syscalls are part of a
    /// running program's life, everything else is a crash.
    pub fn is_fatal(cause: u32) -> bool {
        !matches!((cause >> 2) & 31, 0 | 8)
    }
}

/// Why a run produced nothing to check. `NotInstalled` maps to exit code 2, the others to 3.
#[derive(Debug)]
pub enum RunError {
    /// The emulator is not installed; the message says how to get it.
    NotInstalled(String),
    /// It exited or crashed before the run finished.
    Crashed(String),
    /// It ran past `RunRequest::timeout` and was killed.
    TimedOut(Duration),
    /// Anything else (I/O, a malformed save state...).
    Other(anyhow::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::NotInstalled(m) => write!(f, "emulator not installed: {m}"),
            RunError::Crashed(m) => write!(f, "emulator crashed: {m}"),
            RunError::TimedOut(d) => write!(f, "emulator ran past the {:.0} s timeout and was killed", d.as_secs_f64()),
            RunError::Other(e) => write!(f, "{e:#}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<anyhow::Error> for RunError {
    fn from(e: anyhow::Error) -> Self {
        RunError::Other(e)
    }
}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> Self {
        RunError::Other(e.into())
    }
}

/// The emulators there is a backend for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Emulator {
    PcsxRedux,
    PcsxRearmed,
    Mednafen,
}

impl Emulator {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Emulator::PcsxRedux => "pcsx-redux",
            Emulator::PcsxRearmed => "pcsx-rearmed",
            Emulator::Mednafen => "mednafen",
        }
    }

    /// The emulator to use when none is asked for: PCSX-Redux, what users run, when it can be found;
    /// otherwise pcsx_rearmed, which needs nothing but Node and the npm core.
    pub fn default_available() -> Emulator {
        if redux::locate(None).is_some() {
            Emulator::PcsxRedux
        } else {
            Emulator::PcsxRearmed
        }
    }

    /// Runs a request on this emulator's backend.
    pub fn run(self, req: &RunRequest) -> Result<RunOutput, RunError> {
        match self {
            Emulator::PcsxRearmed => rearmed::run(req),
            Emulator::Mednafen => mednafen::run(req),
            Emulator::PcsxRedux => redux::run(req),
        }
    }
}

impl std::fmt::Display for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The checkout this crate was built from (the crate sits one level below it). An installed `psxanim`
/// keeps it: that is where `cargo xtask setup` put the emulators it fetched.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the emulator crate sits inside the workspace").to_path_buf()
}

/// The variable that moves the emulators' download folder elsewhere.
pub const TOOLS_ENV: &str = "PSXANIM_TOOLS";

/// Where downloaded emulator packages are unpacked (never committed): `$PSXANIM_TOOLS` when set,
/// otherwise `target/tools/` of the workspace.
pub fn tools_dir(workspace: &Path) -> PathBuf {
    match std::env::var_os(TOOLS_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => workspace.join("target").join("tools"),
    }
}

/// How to install what a backend fetches, for "not installed" messages: the xtask's setup, run in
/// the checkout the tools belong to.
pub fn install_hint() -> String {
    format!(
        "run `cargo xtask setup` in {} (it fetches pcsx_rearmed from npm and mednafen's core from Debian)",
        workspace_root().display()
    )
}

/// Helpers shared by the backends' tests.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::{Path, PathBuf};

    /// A scratch folder under the system temp dir, removed when dropped.
    pub struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// An empty folder `psxanim-{backend}-{pid}-{name}` (emptied first if a previous run left it).
    pub fn scratch(backend: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("psxanim-{backend}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}
