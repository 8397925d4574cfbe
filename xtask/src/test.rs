//! `cargo xtask test`: every check in one run (PSX builds, host tests, each example verified on both CI
//! emulators, the runtime as a library, a new game outside the repository, import circles), ending
//! with `N passed, N failed`.
use crate::backends::Emulator;
use crate::psexe::Region;
use crate::verify::{run, Options};
use crate::{build, setup, Exit};
use anyhow::{Context, Result};
use std::path::Path;
use std::time::Duration;
use xshell::cmd;

/// `cargo xtask test`: host tests, PSX builds, verify on both CI backends, and the proof that a wrong
/// expectation fails. Prints `N passed, N failed`.
pub fn test_all(ws: &Path) -> Result<()> {
    // Everything the steps below need, installed when missing (a fresh clone runs this with nothing before it).
    setup::run(ws)?;
    let mut results: Vec<(String, Result<()>)> = Vec::new();
    results.push((
        "the runtime is a library: no __start, panic handler or other unmangled symbol with default features (nm)".into(),
        build::check_runtime_is_a_library(ws),
    ));
    // PSX builds first: building `character` generates the tables its host-side tests read.
    for example in build::examples(ws) {
        let built = build::build_exe(ws, &example, Region::Na, false);
        let step = built.and_then(|b| {
            b.print();
            independent_header_check(ws, &b.exe)
        });
        results.push((format!("PSX build of {example} + independent header check"), step));
    }
    let host = crate::shell::at(ws).and_then(|sh| {
        cmd!(sh, "cargo test --workspace --no-fail-fast").run().map_err(|e| Exit::error(Exit::MISMATCH, format!("{e}")))
    });
    results.push(("host tests (cargo test --workspace --no-fail-fast)".into(), host));
    let artifacts = ws.join("artifacts").join("test");
    let options = |emulator, example: &str, wrong_expectation| Options {
        emulator: Some(emulator),
        example: example.into(),
        frames: 120,
        artifacts: artifacts.clone(),
        json: false,
        timeout: Duration::from_secs(300),
        region: Region::Na,
        wrong_expectation,
        exe: None,
    };
    for example in build::examples(ws) {
        for emulator in [Emulator::PcsxRearmed, Emulator::Mednafen] {
            let step = run(ws, &options(emulator, &example, false)).map(|_| ());
            results.push((format!("verify {example} on {}", emulator.name()), step));
        }
    }
    // The SDK examples, when their SDK checkout is named ($PSYQO_DIR, $PSN00BSDK_DIR). Both SDKs run on
    // the BIOS kernel's interrupt and event services, which mednafen's boot ROM here does not provide
    // (no Sony BIOS is used anywhere): they are verified on pcsx-rearmed (its HLE BIOS), and on
    // PCSX-Redux with OpenBIOS in local runs (`cargo xtask verify --emulator pcsx-redux`).
    let mut not_run = Vec::new();
    for (example, sdk) in crate::sdk_build::SDK_EXAMPLES {
        if std::env::var_os(sdk.env).is_none() {
            not_run.push(format!("{example}: {} is not set (a {} checkout, tested at {})", sdk.env, sdk.name, sdk.pinned));
            continue;
        }
        let step = build::build_exe(ws, example, Region::Na, false).and_then(|b| {
            b.print();
            independent_header_check(ws, &b.exe)
        });
        results.push((format!("{} build of {example} + independent header check", sdk.name), step));
        let step = run(ws, &options(Emulator::PcsxRearmed, example, false)).map(|_| ());
        results.push((format!("verify {example} on {}", Emulator::PcsxRearmed.name()), step));
    }
    let circles = crate::shell::at(ws).and_then(|sh| {
        cmd!(sh, "python3 tests/imports/check_cycles.py runtime/src tooling/src emulator/src xtask/src")
            .run()
            .map_err(|e| Exit::error(Exit::MISMATCH, format!("{e}")))
    });
    results.push(("no import circle between the files of runtime, tooling, emulator and xtask (tests/imports/check_cycles.py)".into(), circles));
    results.push((
        "a new game outside the repository (cargo xtask new-game) builds with cargo-psx, runs under `psxanim run` on mednafen and pcsx-rearmed with its expect.json and animates, and a wrong clip name stops its build".into(),
        crate::new_game::check_outside_the_repo(ws),
    ));
    // A deliberately wrong expectation must be caught (exit code 1), or the checks prove nothing.
    let wrong = match run(ws, &options(Emulator::PcsxRearmed, "hello", true)) {
        Err(e) if crate::exit_code(&e) == Exit::MISMATCH => Ok(()),
        Err(e) => Err(e.context("expected a mismatch, got another failure")),
        Ok(_) => Err(anyhow::anyhow!("verify passed with a wrong expectation")),
    };
    results.push(("verify rejects a wrong expectation (pcsx-rearmed)".into(), wrong));

    println!();
    for line in &not_run {
        println!("NOT RUN  {line}");
    }
    let mut failed = 0;
    for (name, result) in &results {
        match result {
            Ok(()) => println!("PASS  {name}"),
            Err(e) => {
                failed += 1;
                println!("FAIL  {name}: {e:#}");
            }
        }
    }
    println!("{} passed, {failed} failed", results.len() - failed);
    if failed > 0 {
        return Err(Exit::error(Exit::MISMATCH, format!("{failed} test step(s) failed")));
    }
    Ok(())
}

/// Runs tests/psexe/check_psexe.py, a header parser written separately from psexe.rs.
fn independent_header_check(ws: &Path, exe: &Path) -> Result<()> {
    let script = ws.join("tests").join("psexe").join("check_psexe.py");
    let sh = crate::shell::at(ws)?;
    let out = cmd!(sh, "python3 {script} {exe}")
        .quiet()
        .ignore_status()
        .output()
        .with_context(|| format!("could not run python3 {}", script.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    print!("{text}");
    if !out.status.success() {
        return Err(Exit::error(Exit::MISMATCH, format!("{} rejected {}: {}", script.display(), exe.display(), text.trim())));
    }
    Ok(())
}

