//! `verify`, `test` and `demo`: build an example, run it in an emulator backend, compare what it left in
//! RAM and on screen with what the host expects, and report.
use crate::backends::{self, Emulator, RunError, RunRequest};
use crate::expect::{self, Expectation};
use crate::psexe::{self, Region};
use crate::report::{self, Check, RecordSummary, Report};
use crate::{build, setup, Exit};
use anyhow::{Context, Result};
use psxanim_runtime::record::{status, RecordView};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use xshell::cmd;

#[derive(Debug, Clone)]
pub struct Options {
    pub emulator: Option<Emulator>,
    pub example: String,
    pub frames: u32,
    pub artifacts: PathBuf,
    pub json: bool,
    pub timeout: Duration,
    pub region: Region,
    /// Flip one expected word on purpose: the run must then fail (proves the comparison bites).
    pub wrong_expectation: bool,
    /// Run this PS-EXE instead of building the example (it is checked first).
    pub exe: Option<PathBuf>,
}

/// Frames after which screenshots are taken: a third and two thirds of the way, so they differ.
pub fn screenshot_frames(frames: u32) -> Vec<u32> {
    vec![(frames / 3).max(1), (frames * 2 / 3).max(2)]
}

/// Compares a record with an expectation: program, status, frames, and every result word.
pub fn compare(view: &RecordView, expected: &Expectation) -> Vec<Check> {
    let mut checks = Vec::new();
    let program = view.program();
    checks.push(Check::new(
        "record.program",
        program == expected.program,
        format!(
            "expected {:?}, found {:?}",
            String::from_utf8_lossy(&expected.program),
            String::from_utf8_lossy(&program)
        ),
    ));
    let state = view.status();
    let detail = match state {
        status::FAILED if view.error() == psxanim_runtime::record::ERROR_PANIC_CODE => {
            format!("FAILED: error {}, {}", error_code(view.error()), panic_place(view.error_detail()))
        }
        status::FAILED => format!("FAILED: error {}, detail {}", error_code(view.error()), view.error_detail()),
        status::DONE => String::new(),
        other => format!("expected DONE ({}), found {other}", status::DONE),
    };
    checks.push(Check::new("record.status", state == status::DONE, detail));
    checks.push(Check::new("record.frames", view.frames() > 0, format!("{} frames counted by the program", view.frames())));
    let len_ok = view.result_len() as usize == expected.words.len();
    checks.push(Check::new(
        "record.result_len",
        len_ok,
        format!("expected {}, found {}", expected.words.len(), view.result_len()),
    ));
    for (i, word) in expected.words.iter().enumerate() {
        let found = view.result(i);
        let passed = i < view.result_len() as usize && found == word.value;
        let detail = if passed { String::new() } else { format!("expected {:#010x}, found {found:#010x}", word.value) };
        checks.push(Check::new(format!("result.{}", word.name), passed, detail));
    }
    checks
}

/// Where a console panic happened, from its record detail (`record::panic_detail`): the line and the
/// source file of the runtime or an example whose tag matches (or the tag, when none or several do).
fn panic_place(detail: u32) -> String {
    let (line, tag) = (detail & 0xFFFF, (detail >> 16) as u16);
    let ws = crate::workspace_root();
    let mut roots = vec![ws.join("runtime").join("src")];
    roots.extend(crate::build::examples(&ws).into_iter().map(|e| ws.join("examples").join(e).join("src")));
    let mut found = Vec::new();
    let mut stack = roots.clone();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let shown = path.strip_prefix(&ws).unwrap_or(&path).display().to_string();
                if psxanim_runtime::record::source_file_tag(&shown) == tag {
                    found.push(shown);
                }
            }
        }
    }
    match found.as_slice() {
        [file] => format!("panic at {file}:{line}"),
        _ => format!("panic at line {line} of a file tagged {tag:#06x} ({} candidates)", found.len()),
    }
}

/// An error code as hex, plus its four characters when it is a code like "PANC" (the panic handler's).
fn error_code(code: u32) -> String {
    let bytes = code.to_le_bytes();
    if bytes.iter().all(|b| b.is_ascii_alphanumeric()) {
        format!("{code:#010x} ({:?})", String::from_utf8_lossy(&bytes))
    } else {
        format!("{code:#010x}")
    }
}

/// Screenshot checks: each one is a real image of the displayed area, and the first and last differ.
pub fn check_screenshots(requested: &[u32], shots: &[backends::Screenshot]) -> Vec<Check> {
    let mut checks = vec![Check::new(
        "screenshots.count",
        shots.len() == requested.len(),
        format!("asked for frames {requested:?}, got {:?}", shots.iter().map(|s| s.frame).collect::<Vec<_>>()),
    )];
    for s in shots {
        let colours = report::distinct_colours(s);
        let sane = s.width >= 256 && s.height >= 224 && s.rgb.len() == (s.width * s.height * 3) as usize;
        checks.push(Check::new(
            format!("screenshot.frame{}", s.frame),
            sane && colours > 1,
            format!("{}x{}, {colours} distinct colours", s.width, s.height),
        ));
    }
    if let (Some(first), Some(last)) = (shots.first(), shots.last()) {
        let differ = shots.len() >= 2 && first.rgb != last.rgb;
        checks.push(Check::new(
            "screenshots.differ",
            differ,
            format!("frames {} and {} {}", first.frame, last.frame, if differ { "differ" } else { "are identical" }),
        ));
    }
    checks
}

/// `cargo xtask verify`: returns the report when everything matched, an `Exit` error otherwise.
pub fn run(ws: &Path, o: &Options) -> Result<Report> {
    // With --json, stdout carries the report alone: every progress line (ours, the build's, the
    // backends') goes to stderr while the run lasts.
    let report = {
        let _progress_to_stderr = if o.json { Some(StdoutToStderr::new()) } else { None };
        run_checks(ws, o)
    };
    let report = report?;
    if o.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    if !report.passed {
        let failed = report.failed_checks().count();
        let emu_name = report.emulator.name();
        return Err(Exit::error(Exit::MISMATCH, format!("{} on {emu_name}: {failed} check(s) failed", o.example)));
    }
    Ok(report)
}

/// Points file descriptor 1 at stderr until dropped.
struct StdoutToStderr {
    saved: libc::c_int,
}

impl StdoutToStderr {
    fn new() -> Self {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // SAFETY: plain descriptor duplication; `saved` is restored and closed in drop.
        let saved = unsafe { libc::dup(1) };
        if saved >= 0 {
            unsafe { libc::dup2(2, 1) };
        }
        StdoutToStderr { saved }
    }
}

impl Drop for StdoutToStderr {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if self.saved >= 0 {
            // SAFETY: `saved` is the descriptor duplicated in `new`.
            unsafe {
                libc::dup2(self.saved, 1);
                libc::close(self.saved);
            }
        }
    }
}

fn run_checks(ws: &Path, o: &Options) -> Result<Report> {
    build::check_example(ws, &o.example)?;
    let emulator = match o.emulator {
        Some(e) => e,
        None => {
            let e = Emulator::default_available();
            println!("verify: no --emulator given, using {}", e.name());
            e
        }
    };
    let emu_name = emulator.name();
    setup::ensure_emulator(ws, emulator)?;
    let exe = match &o.exe {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            psexe::validate(&bytes).map_err(|e| Exit::error(Exit::FAILED, format!("{}: {e}", path.display())))?;
            path.clone()
        }
        None => {
            let built = build::build_exe(ws, &o.example, o.region, false)?;
            built.print();
            built.exe
        }
    };
    // After the build: an example's expectation may read what its build generates (the tables).
    let mut expected = expect::for_example(&o.example).map_err(|e| Exit::error(Exit::FAILED, format!("{e:#}")))?;
    if o.wrong_expectation {
        if let Some(w) = expected.words.first_mut() {
            w.value ^= 1;
        }
    }

    std::fs::create_dir_all(&o.artifacts).with_context(|| format!("creating {}", o.artifacts.display()))?;
    let work_dir = ws.join("target").join("verify").join(format!("{}-{emu_name}", o.example));
    std::fs::create_dir_all(&work_dir).with_context(|| format!("creating {}", work_dir.display()))?;
    let shots_wanted = screenshot_frames(o.frames);
    let req = RunRequest {
        exe: exe.clone(),
        frames: o.frames,
        screenshot_frames: shots_wanted.clone(),
        work_dir,
        timeout: o.timeout,
        probe: false,
    };
    println!("verify: running {} on {emu_name} for {} frames", o.example, o.frames);
    let started = Instant::now();
    let output = emulator.run(&req).map_err(|e| {
        let code = if matches!(e, RunError::NotInstalled(_)) { Exit::NOT_INSTALLED } else { Exit::FAILED };
        Exit::error(code, format!("{emu_name}: {e}"))
    })?;
    let run_seconds = started.elapsed().as_secs_f64();

    let mut screenshots = Vec::new();
    for shot in &output.screenshots {
        let path = o.artifacts.join(format!("{}-{emu_name}-frame{:04}.png", o.example, shot.frame));
        report::write_png(&path, shot)?;
        screenshots.push(path.display().to_string());
    }
    let mut checks = Vec::new();
    let record = match RecordView::find(&output.ram) {
        Ok(view) => {
            checks.extend(compare(&view, &expected));
            Some(RecordSummary::of(&view))
        }
        Err(e) => {
            checks.push(Check::new("record.found", false, format!("{e:?} in the {} bytes of RAM", output.ram.len())));
            None
        }
    };
    checks.extend(check_screenshots(&shots_wanted, &output.screenshots));
    if o.example == "character" {
        let view = RecordView::find(&output.ram).ok();
        checks.extend(expect::character::screen_checks(ws, emu_name, view.as_ref(), &output.screenshots, &o.artifacts));
    }
    if o.example == "anim" {
        let view = RecordView::find(&output.ram).ok();
        checks.extend(expect::anim_cycles::cycle_checks(emu_name, view.as_ref(), &o.artifacts));
    }
    if o.example == "psx-game" {
        let view = RecordView::find(&output.ram).ok();
        let explained = expect::psx_game::known_deviations(ws, emu_name, view.as_ref(), &mut checks);
        checks.extend(explained);
        checks.extend(expect::psx_game::cycle_checks(ws, emu_name, view.as_ref(), &o.artifacts));
        checks.extend(expect::psx_game::picture_checks(ws, emu_name, &output.screenshots, &o.artifacts));
    }
    if ["c-game", "psyqo-game", "psn00b-game"].contains(&o.example.as_str()) {
        let view = RecordView::find(&output.ram).ok();
        checks.extend(expect::c_game::cycle_checks(&o.example, emu_name, view.as_ref(), &o.artifacts));
    }
    let passed = checks.iter().all(|c| c.passed);
    let report = Report {
        example: o.example.clone(),
        emulator,
        exe: exe.display().to_string(),
        frames_requested: o.frames,
        frames_run: output.frames_run,
        run_seconds,
        record,
        screenshots,
        checks,
        passed,
    };
    let report_path = o.artifacts.join(format!("report-{}-{emu_name}.json", o.example));
    report.write_json(&report_path)?;
    let failed: Vec<_> = report.failed_checks().collect();
    println!(
        "verify: {} on {emu_name}: {} of {} checks passed, {} frames in {run_seconds:.1} s; report {}",
        o.example,
        report.checks.len() - failed.len(),
        report.checks.len(),
        output.frames_run,
        report_path.display()
    );
    const SHOWN: usize = 12;
    for c in failed.iter().take(SHOWN) {
        println!("  FAILED {}: {}", c.name, c.detail);
    }
    if failed.len() > SHOWN {
        println!("  ... and {} more failed checks in the report", failed.len() - SHOWN);
    }
    if !failed.is_empty() && !output.log.trim().is_empty() {
        let tail: String = output.log.lines().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
        println!("  emulator log (last lines):\n{tail}");
    }
    Ok(report)
}

/// `cargo xtask demo`: the fixture character in the default emulator (its frames as PNG), then a GIF of
/// each of its clips drawn by `psxanim preview` with the same fixed-point code, beside the PNGs.
pub fn demo(ws: &Path, artifacts: PathBuf) -> Result<()> {
    let options = Options {
        emulator: None,
        example: "character".into(),
        frames: 120,
        artifacts: artifacts.clone(),
        json: false,
        timeout: Duration::from_secs(300),
        region: Region::Na,
        wrong_expectation: false,
        exe: None,
    };
    let report = run(ws, &options)?;
    println!("demo: frames written to:");
    for s in &report.screenshots {
        println!("  {s}");
    }
    for clip in DEMO_CLIPS {
        let gif = artifacts.join(format!("character-{}.gif", clip.to_lowercase()));
        let sh = crate::shell::at(ws)?;
        cmd!(sh, "cargo run --quiet --release -p psxanim --bin psxanim -- preview {DEMO_MODEL} --clip {clip} --bones --out {gif}")
            .run()
            .map_err(|e| Exit::error(Exit::FAILED, format!("psxanim preview --clip {clip} failed: {e}")))?;
        println!("  {}", gif.display());
    }
    Ok(())
}

/// The character the demo shows, and the clips its GIFs show.
const DEMO_MODEL: &str = "tests/fixtures/fbx/character.fbx";
const DEMO_CLIPS: [&str; 3] = ["Idle", "Walk", "Turn"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::Screenshot;
    use psxanim_runtime::record::Record;

    /// A RAM dump holding a record filled as hello fills it, with `words` as results.
    fn ram_with(words: &[u32], state: u32) -> Vec<u8> {
        let mut r = Box::new(Record::ZERO);
        r.begin(*b"HELO");
        for &w in words {
            r.push(w);
        }
        r.frames = 120;
        r.status = state;
        let bytes = bytemuck::bytes_of(&*r);
        let mut ram = vec![0u8; 0x10000];
        ram.extend_from_slice(bytes);
        ram
    }

    fn failed(checks: &[Check]) -> Vec<String> {
        checks.iter().filter(|c| !c.passed).map(|c| c.name.clone()).collect()
    }

    #[test]
    fn a_matching_record_passes_and_a_wrong_expectation_fails() {
        let expected = expect::for_example("hello").unwrap();
        let values: Vec<u32> = expected.words.iter().map(|w| w.value).collect();
        let ram = ram_with(&values, status::DONE);
        let view = RecordView::find(&ram).unwrap();
        assert!(failed(&compare(&view, &expected)).is_empty());

        let mut wrong = expected.clone();
        wrong.words[5].value ^= 0x8000;
        let name = format!("result.{}", wrong.words[5].name);
        assert_eq!(failed(&compare(&view, &wrong)), [name]);
    }

    #[test]
    fn missing_words_and_a_failed_program_are_reported() {
        let expected = expect::for_example("hello").unwrap();
        let values: Vec<u32> = expected.words.iter().map(|w| w.value).collect();
        let ram = ram_with(&values[..3], status::FAILED);
        let view = RecordView::find(&ram).unwrap();
        let names = failed(&compare(&view, &expected));
        assert!(names.contains(&"record.status".to_string()));
        let status = compare(&view, &expected).into_iter().find(|c| c.name == "record.status").unwrap();
        assert!(status.detail.starts_with("FAILED"), "{}", status.detail);
        assert!(names.contains(&"record.result_len".to_string()));
        assert_eq!(names.len(), 2 + expected.words.len() - 3);
    }

    fn shot(frame: u32, square_x: u32) -> Screenshot {
        let (w, h) = (320u32, 240u32);
        let rgb = (0..w * h)
            .flat_map(|i| if (i % w).abs_diff(square_x) < 10 { [255, 0, 0] } else { [0, 0, 64] })
            .collect();
        Screenshot { frame, width: w, height: h, rgb }
    }

    #[test]
    fn panic_codes_read_as_text() {
        assert_eq!(error_code(u32::from_le_bytes(*b"PANC")), "0x434e4150 (\"PANC\")");
        // A console panic's detail names the file and line.
        let detail = psxanim_runtime::record::panic_detail("/anywhere/runtime/src/tables/primitives.rs", 216);
        assert_eq!(panic_place(detail), "panic at runtime/src/tables/primitives.rs:216");
        assert_eq!(error_code(7), "0x00000007");
    }

    #[test]
    fn screenshots_must_be_images_and_differ() {
        assert!(failed(&check_screenshots(&[40, 80], &[shot(40, 50), shot(80, 150)])).is_empty());
        assert_eq!(failed(&check_screenshots(&[40, 80], &[shot(40, 50), shot(80, 50)])), ["screenshots.differ"]);
        let blank = Screenshot { frame: 80, width: 320, height: 240, rgb: vec![0; 320 * 240 * 3] };
        assert_eq!(failed(&check_screenshots(&[40, 80], &[shot(40, 50), blank])), ["screenshot.frame80"]);
        assert_eq!(failed(&check_screenshots(&[40, 80], &[shot(40, 50)])), ["screenshots.count", "screenshots.differ"]);
    }

    #[test]
    fn screenshot_frames_are_distinct_and_within_the_run() {
        for frames in [2, 3, 120, 1000] {
            let f = screenshot_frames(frames);
            assert!(f[0] < f[1] && f[1] <= frames, "{frames}: {f:?}");
        }
    }
}
