//! `new-game`: writes a standalone psx-sdk-rs game crate that plays an imported character, from
//! `templates/game/`, anywhere on disk; and the check that such a game builds with cargo-psx and
//! animates in an emulator.
use crate::backends::{self, Emulator};
use crate::{build, setup, verify, Exit};
use anyhow::{bail, ensure, Context, Result};
use std::path::{Path, PathBuf};
use xshell::cmd;

/// Where the new game takes psxanim's runtime from.
#[derive(Debug, Clone)]
pub enum RuntimeSource {
    /// A local checkout's `runtime/` folder.
    Path(PathBuf),
    /// A git repository holding this workspace (cargo finds the `psxanim-runtime` package in it).
    Git(String),
}

impl RuntimeSource {
    fn dependency(&self) -> String {
        match self {
            RuntimeSource::Path(p) => format!("{{ path = {} }}", toml_string(&p.display().to_string())),
            RuntimeSource::Git(url) => format!("{{ git = {} }}", toml_string(url)),
        }
    }
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The template's files: (path in the new crate, path under `templates/game/`, filled in).
const FILES: [(&str, &str); 6] = [
    ("Cargo.toml", "Cargo.toml.in"),
    ("build.rs", "build.rs"),
    ("src/main.rs", "src/main.rs"),
    ("README.md", "README.md"),
    // `cargo psx run`'s runner: `psxanim run`.
    (".cargo/config.toml", ".cargo/config.toml"),
    // What `psxanim run --expect` checks in the game's verification record.
    ("expect.json", "expect.json"),
];
/// The character the template starts with: the repository's own Blender-made fixture.
const MODEL: &str = "tests/fixtures/fbx/character.fbx";

/// A crate name from the folder's name (cargo's rules: ASCII letters, digits, `-` and `_`).
fn crate_name(dir: &Path) -> Result<String> {
    let name = dir.file_name().and_then(|n| n.to_str()).context("the new game's path has no folder name")?;
    ensure!(
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit()),
        "{name:?} is not a crate name (letters, digits, '-' and '_', not starting with a digit): choose another folder name"
    );
    Ok(name.to_string())
}

/// `cargo xtask new-game PATH`: creates PATH (which must not exist yet) with the game crate.
pub fn create(ws: &Path, dir: &Path, runtime: &RuntimeSource) -> Result<()> {
    if dir.exists() {
        bail!("{} already exists: new-game writes a new folder", dir.display());
    }
    let name = crate_name(dir)?;
    let tooling = ws.join("tooling");
    // Written next to the target and renamed at the end: a failure leaves no half-made game.
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let staging = parent.join(format!(".{name}.new-game"));
    let _ = std::fs::remove_dir_all(&staging);
    let result = (|| -> Result<()> {
        for (to, from) in FILES {
            let source = ws.join("templates").join("game").join(from);
            let text = std::fs::read_to_string(&source).with_context(|| format!("reading {}", source.display()))?;
            let text = text
                .replace("{{name}}", &name)
                .replace("{{runtime}}", &runtime.dependency())
                .replace("{{tooling}}", &tooling.display().to_string())
                .replace("{{checkout}}", &ws.display().to_string());
            let path = staging.join(to);
            std::fs::create_dir_all(path.parent().expect("template files sit in folders"))?;
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        let assets = staging.join("assets");
        std::fs::create_dir_all(&assets)?;
        std::fs::copy(ws.join(MODEL), assets.join("character.fbx")).with_context(|| format!("copying {MODEL}"))?;
        std::fs::rename(&staging, dir).with_context(|| format!("moving the new game to {}", dir.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    result?;
    // Absolute, so that every printed command works from wherever it is typed.
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    print!("{}", next_steps(ws, &dir, &name, setup::find_on_path("psxanim").as_deref()));
    Ok(())
}

/// What `create` prints: every command from here to a running game, with this checkout's paths, and
/// whether the psxanim tool is installed yet (`psxanim`: where PATH has it, if it does).
fn next_steps(ws: &Path, dir: &Path, name: &str, psxanim: Option<&Path>) -> String {
    let (nightly, flags) = (setup::NIGHTLY, build::CARGO_PSX_RUSTFLAGS);
    let tooling = ws.join("tooling");
    let installed = match psxanim {
        Some(p) => format!("psxanim is on PATH ({}): if it was installed from another checkout, install it again as above", p.display()),
        None => "psxanim is not on PATH yet: install it as above before the first build (or give the build PSXANIM=/path/to/psxanim)"
            .to_string(),
    };
    format!(
        "new-game: wrote {dir} ({name}) from the psxanim checkout {ws}.\n\
         Once per machine, in the checkout: the nightly with rust-src, cargo-psx and the emulators `psxanim run`\n\
         uses, then the psxanim tool (the game's build.rs runs it):\n\
         \x20 cd {ws} && cargo xtask setup\n\
         \x20 cargo install --path {tooling}\n\
         (by hand instead of setup: rustup toolchain install {nightly} --component rust-src;\n\
         \x20cargo install cargo-psx --version {cargo_psx} --locked)\n\
         {installed}.\n\
         Then build it, and run it headless in an emulator (`psxanim run`, the runner of .cargo/config.toml):\n\
         \x20 cd {dir}\n\
         \x20 RUSTFLAGS=\"{flags}\" cargo psx build --toolchain {nightly}\n\
         \x20 RUSTFLAGS=\"{flags}\" cargo psx run --toolchain {nightly}\n\
         \x20 psxanim run {exe} --emulator mednafen --every 30 --gif\n\
         The frames go to {frames}; the game's README says the rest.\n",
        dir = dir.display(),
        ws = ws.display(),
        cargo_psx = setup::CARGO_PSX_VERSION,
        tooling = tooling.display(),
        exe = dir.join("target").join(build::TARGET).join("release").join(format!("{name}.exe")).display(),
        frames = dir.join("target").join(build::TARGET).join("release").join("psxanim-run").display(),
    )
}

/// The out-of-repo game check, as a user goes: a new game in a temporary folder outside the
/// workspace, built with cargo-psx (psxanim from this workspace, as `PSXANIM`), run by `psxanim run`
/// on each CI emulator with the template's own `expect.json`; its frames must be real pictures that
/// differ (the character animates). Then a clip name the model does not have must stop the build with
/// a message naming it and the clips there are.
pub fn check_outside_the_repo(ws: &Path) -> Result<()> {
    setup::ensure_toolchain()?;
    setup::ensure_cargo_psx()?;
    let psxanim = build_psxanim(ws)?;
    let temp = std::env::temp_dir().join(format!("psxanim-new-game-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&temp);
    ensure!(!temp.starts_with(ws), "the temporary folder {} is inside the workspace", temp.display());
    let dir = temp.join("my-game");
    let result = (|| -> Result<()> {
        create(ws, &dir, &RuntimeSource::Path(ws.join("runtime")))?;
        let build = |what: &str| -> Result<std::process::Output> {
            let mut cmd = build::cargo_psx_command(&dir, &dir.join("target"));
            cmd.env("PSXANIM", &psxanim);
            cmd.output().with_context(|| format!("could not start cargo psx ({what})"))
        };
        let built = build("the new game")?;
        ensure!(
            built.status.success(),
            "cargo psx build of the new game failed ({}):\n{}",
            built.status,
            String::from_utf8_lossy(&built.stderr)
        );
        let exe = dir.join("target").join(build::TARGET).join("release").join("my-game.exe");
        for emulator in [Emulator::Mednafen, Emulator::PcsxRearmed] {
            setup::ensure_emulator(ws, emulator)?;
            run_with_psxanim(&psxanim, &exe, &dir, emulator, &temp.join(format!("frames-{emulator}")))?;
        }

        // A clip the character does not have: the build stops, naming it and the clips there are.
        let main_rs = dir.join("src").join("main.rs");
        let source = std::fs::read_to_string(&main_rs)?;
        ensure!(source.contains("clip!(\"Idle\")"), "the template no longer plays clip!(\"Idle\")");
        std::fs::write(&main_rs, source.replace("clip!(\"Idle\")", "clip!(\"Run\")"))?;
        let refused = build("with a wrong clip name")?;
        let stderr = String::from_utf8_lossy(&refused.stderr);
        let wanted = "character.fbx has no clip named \"Run\"; its clips: \"Idle\", \"Turn\", \"Walk\"";
        ensure!(
            !refused.status.success() && stderr.contains(wanted),
            "a wrong clip name: expected the build to fail with `{wanted}`; it {}:\n{stderr}",
            if refused.status.success() { "succeeded" } else { "failed otherwise" }
        );
        println!("new game: clip!(\"Run\") stops the build: {wanted}");
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&temp);
    result
}

/// What `psxanim run --json` prints (the fields this check reads).
#[derive(serde::Deserialize)]
struct RunReport {
    verdict: String,
    frames: Vec<RunFrame>,
    checks: Vec<RunCheck>,
}

#[derive(serde::Deserialize)]
struct RunFrame {
    frame: u32,
    path: PathBuf,
}

#[derive(serde::Deserialize)]
struct RunCheck {
    name: String,
    passed: bool,
    detail: String,
}

/// `psxanim run EXE --expect expect.json` on one emulator, as the game's README says: it must exit 0
/// with every check passed, and its saved frames must be pictures that change (not a multiple of the
/// template's two-second Walk apart).
fn run_with_psxanim(psxanim: &Path, exe: &Path, game: &Path, emulator: Emulator, out: &Path) -> Result<()> {
    let output = std::process::Command::new(psxanim)
        .arg("run")
        .arg(exe)
        .args(["--emulator", emulator.name(), "--frames", "200", "--shots", "50,125,200", "--json", "--expect"])
        .arg(game.join("expect.json"))
        .arg("--out")
        .arg(out)
        .current_dir(game)
        .output()
        .context("could not start psxanim run")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.success(), "psxanim run on {emulator} exited with {}:\n{stderr}", output.status);
    let report: RunReport = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("psxanim run --json on {emulator}: {}", String::from_utf8_lossy(&output.stdout)))?;
    ensure!(report.verdict == "ran", "psxanim run on {emulator}: the game {}", report.verdict);
    for check in &report.checks {
        ensure!(check.passed, "psxanim run --expect on {emulator}: {}: {}", check.name, check.detail);
    }
    let shots = report
        .frames
        .iter()
        .map(|f| backends::rearmed::decode_png(&f.path, f.frame))
        .collect::<Result<Vec<_>>>()?;
    let wanted: Vec<u32> = vec![50, 125, 200];
    let checks = verify::check_screenshots(&wanted, &shots);
    let failed: Vec<String> = checks.iter().filter(|c| !c.passed).map(|c| format!("{}: {}", c.name, c.detail)).collect();
    ensure!(failed.is_empty(), "the new game's frames on {emulator}: {}", failed.join("; "));
    println!(
        "new game on {emulator}: psxanim run ran 200 frames, {} --expect checks passed, frames 50/125/200 differ",
        report.checks.len()
    );
    Ok(())
}

/// Builds the psxanim tool (release) and returns its path.
fn build_psxanim(ws: &Path) -> Result<PathBuf> {
    let sh = crate::shell::at(ws)?;
    crate::shell::isolated(cmd!(sh, "cargo build --quiet --release -p psxanim --bin psxanim"))
        .run()
        .map_err(|e| Exit::error(Exit::FAILED, format!("building psxanim failed: {e}")))?;
    Ok(ws.join("target").join("release").join("psxanim"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_game_has_every_file_filled_in_and_an_existing_folder_is_refused() {
        let ws = crate::workspace_root();
        let temp = std::env::temp_dir().join(format!("psxanim-new-game-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&temp);
        let dir = temp.join("tiny_game");
        create(&ws, &dir, &RuntimeSource::Git("https://example.org/psxanim.git".into())).unwrap();
        for (to, _) in FILES {
            let text = std::fs::read_to_string(dir.join(to)).unwrap();
            assert!(!text.contains("{{"), "{to} keeps a placeholder");
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"tiny_game\""), "{manifest}");
        assert!(manifest.contains("psxanim-runtime = { git = \"https://example.org/psxanim.git\" }"), "{manifest}");
        assert!(dir.join("assets/character.fbx").is_file());
        let config = std::fs::read_to_string(dir.join(".cargo/config.toml")).unwrap();
        assert!(config.contains("[target.mipsel-sony-psx]") && config.contains("runner = [\"psxanim\", \"run\""), "{config}");
        let tooling = ws.join("tooling").display().to_string();
        let (build_rs, readme) =
            (std::fs::read_to_string(dir.join("build.rs")).unwrap(), std::fs::read_to_string(dir.join("README.md")).unwrap());
        assert!(build_rs.contains(&format!("r#\"{tooling}\"#")) && build_rs.contains("\"--rust\""), "{build_rs}");
        assert!(readme.contains(&format!("cargo install --path {tooling}")), "{readme}");
        let again = create(&ws, &dir, &RuntimeSource::Path(ws.join("runtime"))).unwrap_err();
        assert!(again.to_string().contains("already exists"), "{again}");
        assert!(create(&ws, &temp.join("9lives"), &RuntimeSource::Path(ws.join("runtime"))).is_err());
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn the_next_steps_name_every_command_with_real_paths_and_say_whether_psxanim_is_installed() {
        let (ws, dir) = (Path::new("/src/psxanim"), Path::new("/games/tiny_game"));
        let missing = next_steps(ws, dir, "tiny_game", None);
        for line in [
            "from the psxanim checkout /src/psxanim",
            "cd /src/psxanim && cargo xtask setup",
            "psxanim run /games/tiny_game/target/mipsel-sony-psx/release/tiny_game.exe --emulator mednafen",
            "The frames go to /games/tiny_game/target/mipsel-sony-psx/release/psxanim-run",
            "rustup toolchain install nightly-2024-12-21 --component rust-src",
            "cargo install cargo-psx --version 0.1.4 --locked",
            "cargo install --path /src/psxanim/tooling",
            "psxanim is not on PATH yet",
            "cd /games/tiny_game",
            "RUSTFLAGS=\"-Ccodegen-units=1 -Cllvm-args=-disable-mips-delay-filler\" cargo psx build --toolchain nightly-2024-12-21",
            "cargo psx run --toolchain nightly-2024-12-21",
            "/games/tiny_game/target/mipsel-sony-psx/release/tiny_game.exe",
        ] {
            assert!(missing.contains(line), "{line:?} missing from:\n{missing}");
        }
        let found = next_steps(ws, dir, "tiny_game", Some(Path::new("/home/me/.cargo/bin/psxanim")));
        assert!(found.contains("psxanim is on PATH (/home/me/.cargo/bin/psxanim)") && !found.contains("not on PATH"), "{found}");
    }
}
