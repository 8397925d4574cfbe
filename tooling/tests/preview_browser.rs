//! The web viewer in a real browser: starts `psxanim preview FIXTURE --serve --port 0`, then runs
//! `tests/browser/viewer.test.mjs` (playwright-core driving headless Debian chromium), which checks
//! that the character is drawn within its projected bounds, that each canvas is the server's picture
//! (`/api/picture`) pixel for pixel, that scrubbing changes the picture where the bones move, that the
//! clip selector switches clips, that the skeleton and light toggles do what they say, and that a
//! textured character served with `--light` starts lit with its texels.
//!
//! Needs `/usr/bin/chromium` (or `$CHROMIUM`), `node`, and `npm ci` run in `tests/browser`. When any
//! is missing the test says so and passes, unless `CI` is set: then it fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Kills the server however the test ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn missing_prerequisite() -> Option<String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Some(format!("{chromium} not found (apt-get install chromium)"));
    }
    if Command::new("node")
        .arg("--version")
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        return Some("node not found".into());
    }
    if !repo()
        .join("tests/browser/node_modules/playwright-core")
        .exists()
    {
        return Some(
            "tests/browser/node_modules/playwright-core missing (run `npm ci` in tests/browser)"
                .into(),
        );
    }
    None
}

#[test]
fn viewer_in_headless_chromium() {
    if let Some(why) = missing_prerequisite() {
        if std::env::var_os("CI").is_some() {
            panic!("browser test cannot run under CI: {why}");
        }
        eprintln!("skipping the browser test: {why}");
        return;
    }
    let fixture = repo().join("tests/fixtures/fbx/character.fbx");
    let (server, url) = serve(&[fixture.to_str().unwrap()]);
    // A second viewer for the event markers: an `.ani` clip with two events, on the fixture's skeleton.
    let dir = tempfile::tempdir().unwrap();
    let ani = marked_clip(dir.path());
    let (markers_server, markers_url) = serve(&[
        ani.to_str().unwrap(),
        "--skeleton",
        fixture.to_str().unwrap(),
    ]);
    // A third for textures and light: the painted character, served lit.
    let textured = repo().join("tests/fixtures/fbx/textured_embedded.fbx");
    let (textured_server, textured_url) = serve(&[textured.to_str().unwrap(), "--light"]);

    let out = Command::new("node")
        .arg("viewer.test.mjs")
        .arg(&url)
        .arg(&markers_url)
        .arg(&textured_url)
        .current_dir(repo().join("tests/browser"))
        .output()
        .expect("node runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "browser test failed:\n{log}");
    assert!(log.contains("viewer test passed"), "{log}");
    drop((server, markers_server, textured_server));
}

/// Starts `psxanim preview ARGS --serve --port 0` and returns it with the address it prints.
fn serve(args: &[&str]) -> (Server, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .arg("preview")
        .args(args)
        .args(["--serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("psxanim starts");
    let mut server = Server(child);
    // The first line names the address; read it on a thread so a silent server cannot hang the test.
    let stdout = server.0.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(180))
        .expect("the server prints its address");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (server, url)
}

/// `dir/Wave.ani`: the left forearm turning over one second, with events at 250 and 750 ms.
fn marked_clip(dir: &Path) -> PathBuf {
    use psxanim::formats::{self, Losses, Target, Tolerance};
    use psxanim::model::{
        Animation, Bone, Clip, ClipExtras, Event, Format, Quat, RotationKey, TimeUnit, Track,
    };
    let key = |ms: f64, deg: f64| {
        let h = (deg.to_radians() / 2.0).sin_cos();
        RotationKey {
            time: ms,
            value: Quat {
                w: h.1,
                x: 0.0,
                y: 0.0,
                z: h.0,
            },
            stored: None,
        }
    };
    let clip = Clip {
        name: String::new(),
        looping: true,
        time_unit: TimeUnit::Ms,
        length: 1000.0,
        frame_rate: None,
        tracks: vec![Track {
            bone: Bone::Name("Forearm.L".into()),
            rotation: vec![key(0.0, 0.0), key(1000.0, 90.0)],
            ..Track::default()
        }],
        events: vec![
            Event::new(250.0, "step", None),
            Event::new(750.0, "clap", None),
        ],
        extras: ClipExtras::default(),
    };
    let anim = Animation {
        format: Format::Ani,
        version: 4000,
        clips: vec![clip],
        warnings: Vec::new(),
    };
    let bytes = formats::write(
        &anim,
        Target::Ani(Some(4000)),
        Tolerance::default(),
        &mut Losses::default(),
    )
    .unwrap();
    let path = dir.join("Wave.ani");
    std::fs::write(&path, bytes).unwrap();
    path
}
