//! `psxanim run` as a user runs it: what is refused before an emulator starts (and with which exit
//! code), a missing emulator's message, and real runs of hand-assembled programs on mednafen: a
//! program that runs, prints and passes its checks; one that crashes; one that stops.

use psxanim_emulator::bootrom::mips::*;
use psxanim_emulator::bootrom::psexe::PsExe;
use std::path::{Path, PathBuf};
use std::process::Command;

fn psxanim(args: &[&str], env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_psxanim"));
    command.args(args).env_remove("PCSX_REDUX");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// What the program does after it has filled the screen.
#[derive(Clone, Copy)]
enum Then {
    /// Prints "hello" with putchar calls, leaves a verification record (program "TEST", 2 results,
    /// status done) and counts frames in it forever.
    Record,
    /// Stores to an odd address.
    Crash,
    /// Spins on one instruction, writing nothing.
    Stop,
}

/// A PS-EXE assembled here (no toolchain needed): display set up, screen filled, then `then`.
fn program(dir: &Path, name: &str, then: Then) -> PathBuf {
    let origin = 0x8001_0000;
    let record = 0x8010_0000u32;
    let mut a = Asm::new(origin);
    show_colour(&mut a, 0x00_8040);
    let spin = a.new_label();
    match then {
        Then::Record => {
            for c in b"hello\n" {
                a.li(A0, u32::from(*c));
                a.li(T1, 0x3C);
                a.li(T9, 0xA0);
                a.emit(jalr(T9));
                a.emit(NOP);
            }
            // Record: magic, version, program, frames, status, error, detail, result_len, cycle_len,
            // 80 cycle slots, then results (psxanim_runtime::record::Record).
            let r = psxanim_runtime::record::RESULTS_OFFSET as i16;
            a.li(T0, record);
            for (offset, value) in [
                (8, psxanim_runtime::record::VERSION),
                (12, u32::from_le_bytes(*b"TEST")),
                (20, psxanim_runtime::record::status::DONE),
                (32, 2),
                (r, 3),
                (r + 4, 420),
                (0, psxanim_runtime::record::MAGIC0),
                (4, psxanim_runtime::record::MAGIC1),
            ] {
                a.li(T1, value);
                a.emit(sw(T1, offset, T0));
            }
            a.bind(spin);
            a.emit(lw(T1, 16, T0));
            a.emit(NOP);
            a.emit(addiu(T1, T1, 1));
            a.emit(sw(T1, 16, T0));
        }
        Then::Crash => {
            a.li(T0, 0x8010_0001);
            a.bind(spin);
            a.emit(sw(ZERO, 0, T0));
        }
        Then::Stop => a.bind(spin),
    }
    a.j(spin);
    a.emit(NOP);
    let mut text = to_bytes(&a.finish().unwrap());
    text.resize(0x800, 0);
    let exe = PsExe { pc: origin, gp: 0, t_addr: origin, b_addr: 0, b_size: 0, s_addr: 0x801F_FF00, s_size: 0, text };
    let path = dir.join(name);
    std::fs::write(&path, exe.to_file_bytes()).unwrap();
    path
}

#[test]
fn files_that_are_not_runnable_are_refused_before_an_emulator_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (text, truncated, outside) = (dir.path().join("notes.exe"), dir.path().join("cut.exe"), dir.path().join("low.exe"));
    std::fs::write(&text, "PS-X EXE? no, a text file\n").unwrap();
    let good = std::fs::read(program(dir.path(), "good.exe", Then::Stop)).unwrap();
    std::fs::write(&truncated, &good[..good.len() - 100]).unwrap();
    let mut low = good.clone();
    low[0x18..0x1C].copy_from_slice(&0x0000_1000u32.to_le_bytes());
    std::fs::write(&outside, &low).unwrap();
    // An emulator that cannot be found would be exit 5: these stop before looking for one.
    let empty = tempfile::tempdir().unwrap();
    for (file, says) in [
        (&text, "shorter than the 2048-byte PS-EXE header"),
        (&truncated, "truncated"),
        (&outside, "load address"),
        (&dir.path().join("absent.exe"), "cannot read"),
    ] {
        let (code, _, err) =
            psxanim(&["run", file.to_str().unwrap(), "--emulator", "mednafen"], &[("PSXANIM_TOOLS", empty.path())]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(file.file_name().unwrap().to_str().unwrap()) && err.contains(says), "{err}");
    }
    let good = dir.path().join("good.exe");
    let (code, _, err) = psxanim(&["run", good.to_str().unwrap(), "--frames", "100", "--shots", "150"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1..=100"), "{err}");
    let (code, _, err) =
        psxanim(&["run", good.to_str().unwrap(), "--expect", text.to_str().unwrap()], &[("PSXANIM_TOOLS", empty.path())]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("notes.exe: not an expectation file"), "{err}");
}

#[test]
fn a_missing_emulator_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let exe = program(dir.path(), "stop.exe", Then::Stop);
    let empty = tempfile::tempdir().unwrap();
    for emulator in ["mednafen", "pcsx-rearmed"] {
        let (code, _, err) = psxanim(&["run", exe.to_str().unwrap(), "--emulator", emulator], &[("PSXANIM_TOOLS", empty.path())]);
        assert_eq!(code, 5, "{err}");
        assert!(err.contains("is not installed") && err.contains("cargo xtask setup"), "{err}");
    }
    let path = dir.path().join("nowhere");
    let (code, _, err) =
        psxanim(&["run", exe.to_str().unwrap(), "--emulator", "pcsx-redux"], &[("PATH", &path), ("PSXANIM_TOOLS", empty.path())]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("PCSX-Redux not found") && err.contains("--pcsx-redux"), "{err}");
}

/// True when mednafen's core is installed (else the test skips, or fails under CI).
fn mednafen() -> bool {
    if psxanim_emulator::mednafen::is_installed(&psxanim_emulator::workspace_root()) {
        return true;
    }
    assert!(std::env::var("CI").map_or(true, |v| v != "true"), "CI must install mednafen's core (cargo xtask setup)");
    eprintln!("skipped: mednafen's core is not installed (cargo xtask setup)");
    false
}

#[test]
fn a_program_that_runs_prints_and_passes_its_checks_exits_0_with_its_frames() {
    if !mednafen() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = program(dir.path(), "game.exe", Then::Record);
    let expect = dir.path().join("expect.json");
    std::fs::write(
        &expect,
        r#"{ "program": "TEST", "status": "done", "min_frames": 1,
             "results": [ { "index": 0, "equals": 3 }, { "index": 1, "name": "triangles", "min": 400, "max": 500 } ] }"#,
    )
    .unwrap();
    let out = dir.path().join("frames");
    let (code, stdout2, err) = psxanim(
        &[
            "run",
            exe.to_str().unwrap(),
            "--emulator",
            "mednafen",
            "--frames",
            "90",
            "--every",
            "30",
            "--gif",
            "--expect",
            expect.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stdout2}\n{err}");
    assert!(stdout2.contains("--- program output (TTY) ---\nhello\n"), "{stdout2}");
    assert!(stdout2.contains("pass result.triangles: result[1] = 420"), "{stdout2}");
    assert!(stdout2.contains("game.exe: ran (90 of 90 frames on mednafen"), "{stdout2}");
    for name in ["game-mednafen-frame00030.png", "game-mednafen-frame00090.png", "game-mednafen-sheet.png", "game-mednafen.gif"] {
        assert!(out.join(name).is_file(), "{name} in {stdout2}");
    }
    // A failed check is exit 1, naming it.
    std::fs::write(&expect, r#"{ "program": "TEST", "results": [ { "index": 0, "equals": 4 } ] }"#).unwrap();
    let (code, stdout, err) = psxanim(
        &["run", exe.to_str().unwrap(), "--emulator", "mednafen", "--frames", "30", "--expect", expect.to_str().unwrap(), "--json"],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "ran");
    assert_eq!(report["tty"], "hello\n");
    let failed: Vec<&str> =
        report["checks"].as_array().unwrap().iter().filter(|c| c["passed"] == false).map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(failed, ["result.0"]);
    assert!(err.contains("1 of 5 --expect checks failed"), "{err}");
}

#[test]
fn a_crash_and_a_hang_are_their_own_exit_codes_with_the_pc() {
    if !mednafen() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let crash = program(dir.path(), "crash.exe", Then::Crash);
    let (code, stdout, err) = psxanim(&["run", crash.to_str().unwrap(), "--emulator", "mednafen", "--frames", "120"], &[]);
    assert_eq!(code, 3, "{stdout}\n{err}");
    assert!(stdout.contains("crashed") && stdout.contains("address error on store at PC 0x8001"), "{stdout}");
    assert!(err.contains("the program crashed"), "{err}");

    let stop = program(dir.path(), "stop.exe", Then::Stop);
    let (code, stdout, err) = psxanim(&["run", stop.to_str().unwrap(), "--emulator", "mednafen", "--frames", "120"], &[]);
    assert_eq!(code, 4, "{stdout}\n{err}");
    assert!(stdout.contains("hung") && stdout.contains("nothing changed") && stdout.contains("PC 0x8001"), "{stdout}");
    // The judgement can be turned off.
    let (code, _, err) =
        psxanim(&["run", stop.to_str().unwrap(), "--emulator", "mednafen", "--frames", "120", "--hang-after", "0"], &[]);
    assert_eq!(code, 0, "{err}");
}
