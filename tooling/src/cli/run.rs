//! `psxanim run`: any PS-EXE headless in an emulator, its frames saved as PNG, its fate judged (ran,
//! crashed, hung), and optionally the game's own checks (`--expect`). The work is the emulator
//! crate's `session`; this module is the command line around it.

use std::path::PathBuf;
use std::time::Duration;

use psxanim_emulator::game_checks::{self, GameCheck};
use psxanim_emulator::session::{self, Plan, SavedFrame, Verdict};
use psxanim_emulator::{redux, Emulator, RunError};
use serde::Serialize;

use super::{finish, say, say_err, CliError, EXIT_INVALID};

/// Frames between the PNGs saved by default.
const DEFAULT_EVERY: u32 = 50;

/// The program crashed (a fatal exception).
pub const EXIT_CRASHED: i32 = 3;
/// The program hung (no sign of life for `--hang-after` frames).
pub const EXIT_HUNG: i32 = 4;
/// The emulator is missing, could not start, crashed itself or ran past `--timeout`.
pub const EXIT_EMULATOR: i32 = 5;

#[derive(clap::Args, Debug)]
#[command(
    about = "Run a PS-EXE headless in an emulator: PNG frames, the program's output, crash and hang detection",
    long_about = "Run a PS-EXE headless in an emulator: PNG frames, the program's output, crash and hang detection.\n\n\
        Works on any PS-EXE (a psx-sdk-rs game built with cargo-psx, a C program, an example), from any folder. \
        The frames go to --out (default: psxanim-run/ beside the EXE): one PNG per --shots/--every frame, a contact \
        sheet of them, and with --gif an animated GIF. What the program printed through the BIOS (printf, \
        psx::println!) is shown where the emulator keeps it (PCSX-Redux with OpenBIOS; mednafen, whose boot ROM \
        serves the TTY calls: putc, putchar, puts, write, printf with %s %c %%).\n\n\
        Emulators: pcsx-redux (what players run; `pcsx-redux` on PATH, $PCSX_REDUX or --pcsx-redux), pcsx-rearmed \
        (WebAssembly under Node, HLE BIOS), mednafen (its PSX core, booted by psxanim's own boot ROM, which offers the \
        BIOS's TTY calls and nothing else). Without --emulator: PCSX-Redux when found, else pcsx-rearmed.\n\n\
        Crash and hang: a fatal exception (address or bus error, break, reserved instruction...) is a crash, seen on \
        mednafen; a program that acknowledges no vsync (PCSX-Redux watches I_STAT) or, where that cannot be watched, \
        changes nothing for --hang-after frames is hung.\n\n\
        As a cargo runner (the game template's .cargo/config.toml): `cargo psx run` builds, then runs `psxanim run EXE`.\n\n\
        Exit codes: 0 the program ran (and --expect passed); 1 not a PS-EXE, a bad --expect file, or a failed \
        --expect check; 2 usage; 3 the program crashed; 4 it hung; 5 the emulator is missing, failed, or ran past --timeout."
)]
pub struct Args {
    /// The PS-EXE to run.
    pub exe: PathBuf,
    /// Emulator (default: pcsx-redux when installed, else pcsx-rearmed).
    #[arg(long, value_enum)]
    pub emulator: Option<Emulator>,
    /// Frames (vsyncs) to run after the program starts.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=36_000))]
    pub frames: u32,
    /// Frames to save as PNG, comma-separated (e.g. 60,120,180).
    #[arg(long, value_delimiter = ',', value_name = "FRAME,...")]
    pub shots: Vec<u32>,
    /// Save a PNG every K frames (default 50 when --shots is not given: no multiple of a 1 s or 2 s
    /// loop at 60 Hz, so a looping clip shows different poses).
    #[arg(long, value_name = "K")]
    pub every: Option<u32>,
    /// Folder for the frames (created when missing; default: psxanim-run/ beside the EXE).
    #[arg(short = 'o', long)]
    pub out: Option<PathBuf>,
    /// Also write an animated GIF of the saved frames.
    #[arg(long)]
    pub gif: bool,
    /// Check the verification record the game left in RAM against this JSON file (see `psxanim run --help`
    /// in the README: program code, status, frames, result words).
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
    /// Frames without a sign of life after which the program counts as hung (0: never).
    #[arg(long, default_value_t = 60, value_name = "FRAMES")]
    pub hang_after: u32,
    /// Wall-clock limit of the emulator run, in seconds.
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// The PCSX-Redux binary (else $PCSX_REDUX, else `pcsx-redux` on PATH).
    #[arg(long, value_name = "PATH")]
    pub pcsx_redux: Option<PathBuf>,
    /// Open PCSX-Redux with its window instead (needs a display); nothing is captured or judged.
    #[arg(long, conflicts_with_all = ["json", "expect", "gif"])]
    pub window: bool,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    exe: String,
    emulator: Emulator,
    verdict: &'static str,
    reason: Option<String>,
    frames_run: u32,
    frames: &'a [SavedFrame],
    contact_sheet: Option<String>,
    gif: Option<String>,
    tty: Option<&'a str>,
    final_pc: Option<String>,
    checks: &'a [GameCheck],
}

pub fn run(args: Args) -> i32 {
    finish(execute(args))
}

fn execute(args: Args) -> Result<(), CliError> {
    if let Some(path) = &args.pcsx_redux {
        if !path.is_file() {
            return Err(CliError { code: EXIT_EMULATOR, message: format!("--pcsx-redux {}: no such file", path.display()) });
        }
        // The Redux backend finds its binary through this variable; nothing else runs yet.
        std::env::set_var(redux::ENV_VAR, path);
    }
    // Everything about the input is checked before an emulator starts.
    session::check_exe(&args.exe).map_err(|e| CliError::invalid(format!("{e:#}")))?;
    let expectation = match &args.expect {
        Some(path) => Some(game_checks::load(path).map_err(|e| CliError::invalid(format!("{e:#}")))?),
        None => None,
    };
    let every = if args.shots.is_empty() && args.every.is_none() { Some(DEFAULT_EVERY.min(args.frames)) } else { args.every };
    let shots = session::shot_frames(args.frames, &args.shots, every).map_err(CliError::usage)?;

    let emulator = match args.emulator {
        Some(e) => e,
        None => {
            let chosen = Emulator::default_available();
            if chosen != Emulator::PcsxRedux {
                say_err("psxanim run: PCSX-Redux not found (pcsx-redux on PATH, $PCSX_REDUX or --pcsx-redux): using pcsx-rearmed");
            }
            chosen
        }
    };
    if args.window {
        return open_window(&args);
    }
    let out_dir = args.out.clone().unwrap_or_else(|| {
        args.exe.parent().filter(|p| !p.as_os_str().is_empty()).map_or_else(|| PathBuf::from("psxanim-run"), |p| p.join("psxanim-run"))
    });
    let plan = Plan {
        emulator,
        exe: args.exe.clone(),
        frames: args.frames,
        shots,
        out_dir,
        timeout: Duration::from_secs(args.timeout),
        hang_frames: args.hang_after,
        gif: args.gif,
    };
    say_err(&format!("psxanim run: {} on {emulator}, {} frames", args.exe.display(), args.frames));
    let started = std::time::Instant::now();
    let outcome = session::run(&plan).map_err(|e| emulator_error(emulator, e))?;
    let seconds = started.elapsed().as_secs_f64();

    let checks = match &expectation {
        Some(expected) => game_checks::check(&outcome.output.ram, expected),
        None => Vec::new(),
    };
    let (verdict, reason, code) = match &outcome.verdict {
        Verdict::Ran => ("ran", None, 0),
        Verdict::Crashed(fault) => (
            "crashed",
            Some(format!(
                "{} at PC {:#010x} during frame {} (CAUSE {:#010x})",
                fault.name(),
                fault.epc,
                fault.frame,
                fault.cause
            )),
            EXIT_CRASHED,
        ),
        Verdict::Hung { since, pc, how } => (
            "hung",
            Some(format!(
                "from frame {since}: {how}{}",
                pc.map(|pc| format!("; the CPU was at PC {pc:#010x}")).unwrap_or_default()
            )),
            EXIT_HUNG,
        ),
    };
    let failed_checks = checks.iter().filter(|c| !c.passed).count();
    let code = if code == 0 && failed_checks > 0 { EXIT_INVALID } else { code };

    let tty = outcome.output.tty.as_deref();
    if args.json {
        let report = Report {
            exe: args.exe.display().to_string(),
            emulator,
            verdict,
            reason: reason.clone(),
            frames_run: outcome.frames_run,
            frames: &outcome.saved,
            contact_sheet: outcome.sheet.as_ref().map(|p| p.display().to_string()),
            gif: outcome.gif.as_ref().map(|p| p.display().to_string()),
            tty,
            final_pc: outcome.output.final_pc.map(|pc| format!("{pc:#010x}")),
            checks: &checks,
        };
        say(&(serde_json::to_string_pretty(&report).expect("the report serialises") + "\n"));
    } else {
        if let Some(text) = tty.filter(|t| !t.is_empty()) {
            say("--- program output (TTY) ---\n");
            say(text);
            if !text.ends_with('\n') {
                say("\n");
            }
            say("---\n");
        }
        for frame in &outcome.saved {
            let blank = if frame.colours <= 1 { "  (blank: one colour)" } else { "" };
            say(&format!("frame {:>5}: {}{blank}\n", frame.frame, frame.path.display()));
        }
        if let Some(sheet) = &outcome.sheet {
            say(&format!("contact sheet: {}\n", sheet.display()));
        }
        if let Some(gif) = &outcome.gif {
            say(&format!("gif: {}\n", gif.display()));
        }
        for c in &checks {
            say(&format!("{} {}: {}\n", if c.passed { "pass" } else { "FAIL" }, c.name, c.detail));
        }
        say(&format!(
            "{}: {verdict} ({} of {} frames on {emulator} in {seconds:.1} s){}\n",
            args.exe.display(),
            outcome.frames_run,
            args.frames,
            reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default()
        ));
    }
    match code {
        0 => Ok(()),
        EXIT_INVALID => Err(CliError::invalid(format!("{failed_checks} of {} --expect checks failed", checks.len()))),
        code => Err(CliError { code, message: format!("the program {verdict}: {}", reason.unwrap_or_default()) }),
    }
}

/// A backend failure as the exit code and message a user can act on.
fn emulator_error(emulator: Emulator, error: RunError) -> CliError {
    let message = match &error {
        RunError::NotInstalled(how) => format!("{emulator} is not installed: {how}"),
        RunError::TimedOut(limit) => format!(
            "{emulator} ran past the {} s --timeout and was stopped (PCSX-Redux sometimes misses its BIOS and waits \
             forever: run again)",
            limit.as_secs()
        ),
        RunError::Crashed(why) => format!("{emulator} failed: {why}"),
        RunError::Other(e) => format!("{emulator}: {e:#}"),
    };
    CliError { code: EXIT_EMULATOR, message }
}

/// `--window`: PCSX-Redux with its user interface, running the EXE until the user closes it.
fn open_window(args: &Args) -> Result<(), CliError> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(CliError::usage("--window needs a display (DISPLAY or WAYLAND_DISPLAY is not set)"));
    }
    let Some(binary) = redux::locate(None) else {
        return Err(CliError { code: EXIT_EMULATOR, message: "--window opens PCSX-Redux, which was not found".into() });
    };
    let status = redux::window_command(&binary, &args.exe)
        .status()
        .map_err(|e| CliError { code: EXIT_EMULATOR, message: format!("could not start {}: {e}", binary.display()) })?;
    if status.success() {
        Ok(())
    } else {
        Err(CliError { code: EXIT_EMULATOR, message: format!("{} exited with {status}", binary.display()) })
    }
}
