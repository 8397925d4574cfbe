//! The web viewer in a real browser: starts `psxanim preview FIXTURE --serve --port 0`, then runs
//! `tests/browser/viewer.test.mjs` (playwright-core driving headless Debian chromium), which checks
//! that the character is drawn within its projected bounds, that scrubbing changes the picture where
//! the bones move, that the clip selector switches clips and that the skeleton toggle shows bones.
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
    if Command::new("node").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        return Some("node not found".into());
    }
    if !repo().join("tests/browser/node_modules/playwright-core").exists() {
        return Some("tests/browser/node_modules/playwright-core missing (run `npm ci` in tests/browser)".into());
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
    let child = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["preview", fixture.to_str().unwrap(), "--serve", "--port", "0"])
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
    let line = rx.recv_timeout(Duration::from_secs(180)).expect("the server prints its address");
    let url = line.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();

    let out = Command::new("node")
        .arg("viewer.test.mjs")
        .arg(&url)
        .current_dir(repo().join("tests/browser"))
        .output()
        .expect("node runs");
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "browser test failed:\n{log}");
    assert!(log.contains("viewer test passed"), "{log}");
    drop(server);
}
