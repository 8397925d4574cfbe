//! Defects of real files (issue 24), each reproduced in a fixture of our own
//! (`tests/fixtures/fbx/make_fixtures.py`, `make_ascii_fixtures.py`): a character too tall for the rigid
//! pose format's 1-unit budget, blend shapes, an unskinned copy beside the character, a Maya mesh node
//! moved after binding. Run as a user runs `psxanim import`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx").join(name)
}

/// `psxanim import FIXTURE --storage STORAGE -o <temp> ARGS... --json`: exit code, the JSON summary (Null
/// on failure), stderr, and the files written.
fn import(name: &str, storage: &str, args: &[&str]) -> (i32, serde_json::Value, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture(name);
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", model.to_str().unwrap(), "--storage", storage, "-o", dir.path().to_str().unwrap(), "--json"])
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    let files = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into(), files)
}

fn warnings(json: &serde_json::Value) -> Vec<String> {
    json["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect()
}

#[test]
fn a_model_too_tall_for_the_pose_budget_imports_at_the_closest_precision_with_a_warning() {
    // About 24,500 GTE units tall on a swaying root bone at its feet: no precision keeps 1 unit.
    let (code, json, stderr, files) = import("tall_character.fbx", "rigid-gte", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files, ["tall_character.pxsk"]);
    let w = warnings(&json);
    for clip in ["Idle", "Walk", "Turn"] {
        let line = w.iter().find(|w| w.contains(&format!("clip '{clip}': no pose precision"))).unwrap_or_else(|| panic!("{w:?}"));
        assert!(line.contains("within 1 GTE unit") && line.contains("the closest is used") && line.contains("--pose-tolerance"), "{line}");
    }
    let worst = json["max_format_error"].as_f64().unwrap();
    assert!(worst > 1.0 && worst < 3.0, "{worst}");
    // The warning states the error the clip has.
    let walk = json["clips"].as_array().unwrap().iter().find(|c| c["name"] == "Walk").unwrap();
    let e = walk["format_error"].as_f64().unwrap();
    assert!(w.iter().any(|l| l.contains("clip 'Walk'") && l.contains(&format!("{e:.3} GTE units"))), "{w:?}");
    // The default accuracy threshold grows with the accepted format error (the check still runs).
    assert!(json["accuracy"]["threshold"].as_f64().unwrap() >= worst + 0.87, "{}", json["accuracy"]["threshold"]);

    // A tolerance the clips fit in: no warning; a stated --max-error still applies.
    let (code, json, stderr, _) = import("tall_character.fbx", "rigid-gte", &["--pose-tolerance", "3"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!warnings(&json).iter().any(|w| w.contains("no pose precision")), "{:?}", warnings(&json));
    let (code, _, stderr, files) = import("tall_character.fbx", "rigid-gte", &["--max-error", "1.5"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("tall_character.fbx") && stderr.contains("above the threshold of 1.5"), "{stderr}");
    assert!(files.is_empty(), "{files:?}");

    // An ordinary model keeps the 1-unit budget; a bad tolerance is a usage error.
    let (code, json, _, _) = import("character.fbx", "rigid-gte", &[]);
    assert_eq!(code, 0);
    assert!(json["max_format_error"].as_f64().unwrap() <= 1.0);
    for bad in ["0", "-1", "nan"] {
        let (code, _, stderr, files) = import("character.fbx", "rigid-gte", &[&format!("--pose-tolerance={bad}")]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(stderr.contains("--pose-tolerance"), "{stderr}");
        assert!(files.is_empty());
    }
}
