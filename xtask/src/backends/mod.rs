//! Emulator backends. Each one runs a PS-EXE headless for a number of frames and hands back main RAM
//! and the screenshots asked for; `verify` does everything else (record, comparison, PNGs, report).
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod mednafen;
pub mod rearmed;
pub mod redux;

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

/// The emulators `verify` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Emulator {
    PcsxRedux,
    PcsxRearmed,
    Mednafen,
}

/// Where downloaded emulator packages are unpacked (never committed): `target/tools/` of the workspace.
pub fn tools_dir(workspace: &Path) -> PathBuf {
    workspace.join("target").join("tools")
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
