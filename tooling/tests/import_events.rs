//! Clip events from the FBX (`tests/fixtures/fbx/events.fbx`, made by `make_fixtures.py events`):
//! Blender writes the armature's custom property `psxanim_events` (with "Custom Properties" ticked
//! in its FBX export), and neither its timeline markers nor the action's pose markers.

use std::path::{Path, PathBuf};
use std::process::Command;

use psxanim_runtime::tables::Tables;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/events.fbx")
}

#[test]
fn blender_writes_the_custom_property_and_not_its_markers() {
    let bytes = std::fs::read(fixture()).unwrap();
    let has = |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("psxanim_events") && has("step_l@4"));
    assert!(!has("timeline_marker_not_exported") && !has("pose_marker_not_exported"));
}

#[test]
fn events_reach_the_tables_in_both_storage_modes() {
    for storage in ["rigid-gte", "baked-vertices"] {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_psxanim"))
            .args(["import", fixture().to_str().unwrap(), "--storage", storage, "-o", dir.path().to_str().unwrap()])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Idle's blink at file frame 30.5 is between two 30 Hz samples: rounded, with a warning.
        assert!(out.contains("event 'blink' at file frame 30.5 (30 fps) rounded to sample 31 at 30 Hz"), "{out}");
        let b = std::fs::read(dir.path().join("events.pxsk")).unwrap();
        let t = Tables::parse(&b).unwrap();
        let (walk, idle, turn) = (t.find_clip("Walk").unwrap(), t.find_clip("Idle").unwrap(), t.find_clip("Turn").unwrap());
        assert_eq!((t.event(walk, 0), t.event(walk, 1), t.event_count(walk)), (Some(("step_l", 4)), Some(("step_r", 19)), 2));
        assert_eq!((t.event(idle, 0), t.event_count(idle)), (Some(("blink", 31)), 1));
        assert_eq!(t.event_count(turn), 0);
    }
}
