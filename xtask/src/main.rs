//! `cargo xtask`: build automation for psxanim (setup, build-exe, verify, test, demo).
//!
//! Exit codes: 0 success; 1 a check failed (verify mismatch, a failing test); 2 the emulator asked for
//! is not installed; 3 a build or run failed (unknown example, bad EXE, emulator crash or timeout).
mod build;
mod built;
mod c_build;
mod sdk_build;
mod expect;
mod hazards;
mod new_game;
mod report;
mod setup;
mod shell;
mod test;
mod verify;

// The emulator crate's modules, under the names the xtask has always used for them.
pub(crate) use psxanim_emulator as backends;
pub(crate) use psxanim_emulator::{elf, process, psexe};

use backends::Emulator;
use clap::{Args, Parser, Subcommand};
use psexe::Region;
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "cargo xtask", about = "psxanim build automation: PSX toolchain, PS-EXE builds, emulator checks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Install the pinned nightly, the Debian packages and the emulators the backends need (idempotent).
    Setup,
    /// Build an example for the PlayStation and write target/psx/NAME.exe.
    BuildExe(BuildArgs),
    /// Build an example, run it in an emulator, check its record and screenshots, write a JSON report.
    Verify(VerifyArgs),
    /// PSX build of every example, host tests, every example verified on pcsx-rearmed and mednafen; ends with `N passed, N failed`.
    Test,
    /// Run the sample character in the default emulator (PNG frames) and write GIFs of its clips with `psxanim preview`.
    Demo(DemoArgs),
    /// Write a new psx-sdk-rs game crate at PATH that plays an imported character (templates/game/):
    /// Cargo.toml (psx, psxanim-runtime), build.rs (psxanim import of assets/character.fbx), src/main.rs, README.
    NewGame(NewGameArgs),
    /// The new-game check of `test` alone (a game from the template outside the repository, built,
    /// run by `psxanim run` on both CI emulators, and refused with a wrong clip name).
    #[command(hide = true)]
    CheckNewGame,
}

#[derive(Args, Debug, Clone)]
struct NewGameArgs {
    /// The folder to create (its name becomes the crate's name); must not exist.
    path: PathBuf,
    /// Take psxanim-runtime from this git repository instead of this checkout's runtime/ folder.
    #[arg(long, value_name = "URL")]
    runtime_git: Option<String>,
}

#[derive(Args, Debug, Clone)]
struct BuildArgs {
    /// Example to build (a folder of examples/).
    #[arg(long, default_value = "hello")]
    example: String,
    /// Region marker written in the PS-EXE header.
    #[arg(long, value_enum, default_value = "na")]
    region: Region,
    /// Build with the dev profile instead of release.
    #[arg(long)]
    debug: bool,
    /// The SDK checkout an SDK example builds with (psyqo-game: a PCSX-Redux checkout; else $PSYQO_DIR).
    #[arg(long, value_name = "DIR")]
    sdk: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
struct VerifyArgs {
    /// Emulator to run; default: pcsx-redux when found, otherwise pcsx-rearmed.
    #[arg(long, value_enum)]
    emulator: Option<Emulator>,
    #[arg(long, default_value = "hello")]
    example: String,
    /// Frames (vsyncs) to run.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    frames: u32,
    /// Where screenshots and the report go (default: artifacts/ in the workspace).
    #[arg(long)]
    artifacts: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Wall-clock limit for the emulator run, in seconds.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// The pcsx-redux binary (else $PCSX_REDUX, else `pcsx-redux` on PATH).
    #[arg(long)]
    pcsx_redux: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "na")]
    region: Region,
    /// Run this PS-EXE (checked first) instead of building the example; needs `--example`, which names
    /// the expectation its record is checked against. To run any EXE and look at its frames, use
    /// `psxanim run FILE`.
    #[arg(long, requires = "example")]
    exe: Option<PathBuf>,
    /// The SDK checkout an SDK example builds with (see build-exe).
    #[arg(long, value_name = "DIR")]
    sdk: Option<PathBuf>,
    /// Testing aid: flip one expected word so that the run must fail.
    #[arg(long, hide = true)]
    wrong_expectation: bool,
}

#[derive(Args, Debug, Clone)]
struct DemoArgs {
    /// Where the PNGs go (default: artifacts/demo in the workspace).
    #[arg(long)]
    artifacts: Option<PathBuf>,
}

/// An error that ends the program with a given exit code.
#[derive(Debug)]
pub struct Exit {
    pub code: i32,
    pub message: String,
}

impl Exit {
    pub const MISMATCH: i32 = 1;
    pub const NOT_INSTALLED: i32 = 2;
    pub const FAILED: i32 = 3;

    /// The error to return (an `Exit` inside an `anyhow::Error`, found again by `exit_code`).
    pub fn error(code: i32, message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Exit { code, message: message.into() })
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The exit code an error maps to: its own for `Exit`, 3 for anything else.
pub fn exit_code(error: &anyhow::Error) -> i32 {
    error.downcast_ref::<Exit>().map_or(Exit::FAILED, |e| e.code)
}

/// The host workspace (the folder holding the top-level Cargo.toml).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits inside the workspace").to_path_buf()
}

/// `--sdk DIR` for an SDK example: its SDK's variable, which the build reads (set before any thread starts).
fn use_sdk(example: &str, dir: Option<&Path>) {
    if let (Some(sdk), Some(dir)) = (sdk_build::sdk_of(example), dir) {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        std::env::set_var(sdk.env, dir);
    }
}

fn main() {
    let cli = Cli::parse();
    let ws = workspace_root();
    let result = match cli.command {
        Command::Setup => setup::run(&ws),
        Command::BuildExe(a) => {
            use_sdk(&a.example, a.sdk.as_deref());
            build::build_exe(&ws, &a.example, a.region, a.debug).map(|built| built.print())
        }
        Command::Verify(a) => {
            use_sdk(&a.example, a.sdk.as_deref());
            if let Some(path) = &a.pcsx_redux {
                // The redux backend finds its binary through this variable; set before any thread starts.
                std::env::set_var("PCSX_REDUX", path);
            }
            let options = verify::Options {
                emulator: a.emulator,
                example: a.example,
                frames: a.frames,
                artifacts: a.artifacts.unwrap_or_else(|| ws.join("artifacts")),
                json: a.json,
                timeout: std::time::Duration::from_secs(a.timeout),
                region: a.region,
                wrong_expectation: a.wrong_expectation,
                exe: a.exe,
            };
            verify::run(&ws, &options).map(|_| ())
        }
        Command::Test => test::test_all(&ws),
        Command::CheckNewGame => new_game::check_outside_the_repo(&ws),
        Command::Demo(a) => verify::demo(&ws, a.artifacts.unwrap_or_else(|| ws.join("artifacts").join("demo"))),
        Command::NewGame(a) => {
            let runtime = match a.runtime_git {
                Some(url) => new_game::RuntimeSource::Git(url),
                None => new_game::RuntimeSource::Path(ws.join("runtime")),
            };
            // A relative path is the user's, from where they ran cargo (cargo runs the xtask there too).
            new_game::create(&ws, &a.path, &runtime)
        }
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(exit_code(&e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
    }

    #[test]
    fn build_exe_defaults_and_options() {
        let Command::BuildExe(a) = parse(&["build-exe"]).unwrap().command else { panic!("not build-exe") };
        assert_eq!((a.example.as_str(), a.region, a.debug), ("hello", Region::Na, false));
        let Command::BuildExe(a) = parse(&["build-exe", "--example", "anim", "--region", "jp", "--debug"]).unwrap().command
        else {
            panic!("not build-exe")
        };
        assert_eq!((a.example.as_str(), a.region, a.debug), ("anim", Region::Jp, true));
        assert!(parse(&["build-exe", "--region", "us"]).is_err());
    }

    #[test]
    fn verify_options() {
        let Command::Verify(a) = parse(&["verify"]).unwrap().command else { panic!("not verify") };
        assert_eq!((a.emulator, a.frames, a.json, a.timeout), (None, 120, false, 300));
        let Command::Verify(a) = parse(&[
            "verify", "--emulator", "pcsx-rearmed", "--frames", "60", "--artifacts", "out", "--json", "--timeout", "9",
        ])
        .unwrap()
        .command
        else {
            panic!("not verify")
        };
        assert_eq!(a.emulator, Some(Emulator::PcsxRearmed));
        assert_eq!((a.frames, a.json, a.timeout), (60, true, 9));
        assert_eq!(a.artifacts, Some(PathBuf::from("out")));
        for name in ["pcsx-redux", "mednafen"] {
            assert!(parse(&["verify", "--emulator", name]).is_ok(), "{name}");
        }
        assert!(parse(&["verify", "--emulator", "duckstation"]).is_err());
        // Any EXE is `psxanim run`'s business: verify needs the example whose expectation applies.
        let error = parse(&["verify", "--exe", "game.exe"]).unwrap_err().to_string();
        assert!(error.contains("--example"), "{error}");
        assert!(parse(&["verify", "--exe", "game.exe", "--example", "hello"]).is_ok());
        // One frame cannot give two different screenshots.
        assert!(parse(&["verify", "--frames", "1"]).is_err());
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code(&Exit::error(Exit::NOT_INSTALLED, "x")), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("plain")), 3);
        assert!(parse(&["frobnicate"]).is_err());
    }
}
