//! `psxanim import` as a user runs it: exit codes, messages, output files, atomicity, JSON summary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx").join(name)
}

fn psxanim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn files_in(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => vec![],
    }
}

#[test]
fn every_rejection_fixture_fails_naming_its_defect_and_writes_nothing() {
    let cases = [
        ("reject_shear.fbx", "sheared transform"),
        ("reject_singular.fbx", "singular transform"),
        ("reject_dual_quaternion.fbx", "dual-quaternion skinning"),
        ("reject_two_skins.fbx", "2 skin deformers"),
        ("reject_too_many_vertices.fbx", "4577 vertices exceed the profile limit of 4096"),
        ("reject_too_large.fbx", "outside the profile limit of +-7.5 m"),
        ("reject_too_many_nodes.fbx", "65 nodes exceed the profile limit of 64"),
        ("reject_too_long_clip.fbx", "clip 'Idle' lasts 62.00 s, longer than the profile limit of 60 s"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (file, defect) in cases {
        for storage in ["rigid-gte", "baked-vertices"] {
            let out = dir.path().join(file);
            let (code, _, stderr) = psxanim(&[
                "import",
                fixture(file).to_str().unwrap(),
                "--storage",
                storage,
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 1, "{file} {storage}: {stderr}");
            assert!(stderr.contains(defect), "{file}: {stderr}");
            assert!(files_in(&out).is_empty(), "{file} wrote {:?}", files_in(&out));
        }
    }
    // The messages name the node or mesh concerned.
    let (_, _, stderr) = psxanim(&[
        "import",
        fixture("reject_singular.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(stderr.contains("node 'Head'") && stderr.contains("clip 'Walk' frame 15"), "{stderr}");
    // Shear names its usual cause: the fixture's armature object is scaled 1 x 1 x 2.5 (x100 cm).
    let (_, _, stderr) = psxanim(&[
        "import",
        fixture("reject_shear.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("its ancestor 'Armature' has non-uniform scale 100.000 x 100.000 x 250.000"),
        "{stderr}"
    );
}

#[test]
fn a_block_turning_past_180_degrees_imports_in_both_modes() {
    // Made with operators at 24 fps (automatic weights, Bezier keys 0 -> 200 -> -100 degrees).
    let dir = tempfile::tempdir().unwrap();
    for storage in ["rigid-gte", "baked-vertices"] {
        let out = dir.path().join(storage);
        let (code, stdout, stderr) = psxanim(&[
            "import",
            fixture("fast_turn.fbx").to_str().unwrap(),
            "--storage",
            storage,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{storage}: {stderr}");
        assert!(stdout.contains("bones 3  vertices 144  triangles 284"), "{stdout}");
        assert_eq!(files_in(&out).len(), 1, "{:?}", files_in(&out));
    }
}

#[test]
fn fast_spins_about_a_tilted_axis_import_in_rigid_mode() {
    // 20, 30 and 45 degrees a frame, and 30 with a drifting axis (Blender, quaternion keys at 30 fps).
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = psxanim(&[
        "import",
        fixture("fast_spin.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for clip in ["Spin20", "Spin30", "Spin45", "Drift"] {
        assert!(stdout.contains(&format!("clip {clip} ")), "{stdout}");
    }
    assert_eq!(files_in(dir.path()), vec!["fast_spin.pxsk"]);
}

#[test]
fn both_storage_modes_write_a_blob_and_print_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    for storage in ["rigid-gte", "baked-vertices"] {
        let out = dir.path().join(storage);
        let (code, stdout, stderr) = psxanim(&[
            "import",
            fixture("character.fbx").to_str().unwrap(),
            "--storage",
            storage,
            "-o",
            out.to_str().unwrap(),
            "--rust",
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("bones 11  vertices 352  triangles 660  materials 4  quads "), "{stdout}");
        if storage == "rigid-gte" {
            // Two influences by default: the 80 vertices of the joints' rings blend two bones.
            assert!(stdout.contains("blended 80 of 352 vertices (22.7%, two influences: --max-influences 2) in 10 bone pairs"), "{stdout}");
            assert!(stdout.contains("distance from true skinning: one bone per vertex max 56."), "{stdout}");
            assert!(!stdout.contains("several influences"), "{stdout}");
            // One influence: the joints' rings follow their strongest bone.
            let (code, stdout, stderr) = psxanim(&[
                "import",
                fixture("character.fbx").to_str().unwrap(),
                "--storage",
                storage,
                "-o",
                dir.path().join("one").to_str().unwrap(),
                "--max-influences",
                "1",
            ]);
            assert_eq!(code, 0, "{stderr}");
            assert!(stdout.contains("80 vertices had several influences"), "{stdout}");
            assert!(stdout.contains("one influence per vertex (--max-influences 1; the default 2 blends joints on the GTE)"), "{stdout}");
            assert!(stdout.contains("vs true skinning"), "{stdout}");
        } else {
            // Baked frames are true skinning: nothing was reduced.
            assert!(!stdout.contains("several influences"), "{stdout}");
            assert!(stdout.contains("accuracy vs ufbx's true skinning"), "{stdout}");
        }
        let mut files = files_in(&out);
        files.sort();
        assert_eq!(files, vec!["character.pxsk", "character.rs"]);
        let blob = std::fs::read(out.join("character.pxsk")).unwrap();
        psxanim_runtime::tables::Tables::parse(&blob).unwrap();
        let rust = std::fs::read_to_string(out.join("character.rs")).unwrap();
        assert!(rust.contains(&format!("[u8; {}]", blob.len())) && rust.contains("include_bytes!(\"character.pxsk\")"));
        // The clips' names, checked at build time (`cli::rust_source`).
        assert!(rust.contains("pub const WALK: usize = 2;") && rust.contains("(\"Walk\") => { 2usize };"), "{rust}");
    }
}

#[test]
fn props_are_listed_in_the_summary_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("prop.fbx");
    for storage in ["rigid-gte", "baked-vertices"] {
        let out = dir.path().join(storage);
        let args = ["import", model.to_str().unwrap(), "--storage", storage, "-o", out.to_str().unwrap()];
        let (code, stdout, stderr) = psxanim(&args);
        assert_eq!(code, 0, "{storage}: {stderr}");
        assert!(stdout.contains("bones 12  vertices 392  triangles 724  materials 5"), "{stdout}");
        assert!(stdout.contains("prop 'Sword' -> bone 'Forearm.R', 16 vertices"), "{stdout}");
        assert!(stdout.contains("prop 'Hat' -> bone 'Head', 16 vertices"), "{stdout}");
        assert!(stdout.contains("prop 'Backpack' -> bone 'Armature', 8 vertices"), "{stdout}");
        let (code, stdout, stderr) = psxanim(&[&args[..], &["--json"]].concat());
        assert_eq!(code, 0, "{storage}: {stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let sword = v["props"].as_array().unwrap().iter().find(|p| p["mesh"] == "Sword").unwrap();
        assert_eq!((&sword["bone"], &sword["vertices"]), (&serde_json::json!("Forearm.R"), &serde_json::json!(16)));
        assert_eq!(v["props"].as_array().unwrap().len(), 3);
    }
    // A character without props: an empty list.
    let (code, stdout, _) = psxanim(&[
        "import",
        fixture("character.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["props"], serde_json::json!([]));
}

#[test]
fn json_summary_reports_counts_sizes_and_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = psxanim(&[
        "import",
        fixture("character.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
        "--json",
        "--clips",
        "Walk,Idle",
        "--max-influences",
        "1",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["bones"], 11);
    assert_eq!(v["vertices"], 352);
    assert_eq!(
        (&v["triangles"], &v["quads"]),
        (&serde_json::json!(660), &serde_json::json!(321))
    );
    // 33 tube bands as rings and 14 short strips over the caps (tests/import_quads.rs).
    assert_eq!(
        (&v["strips"], &v["primitive_words"]),
        (&serde_json::json!(47), &serde_json::json!(524))
    );
    assert_eq!(v["ranges"].as_array().unwrap().len(), 11);
    let clips: Vec<&str> = v["clips"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(clips, ["Walk", "Idle"]);
    assert!(v["bytes_per_bone_second"].as_f64().unwrap() <= 100.0);
    assert!(v["max_format_error"].as_f64().unwrap() <= 1.0);
    assert!(v["accuracy"]["versus_rigid"]["max"].as_f64().unwrap() <= 2.0);
    assert_eq!(v["reduced_vertices"], 80);
}

#[test]
fn a_failed_import_leaves_the_previous_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = psxanim(&[
        "import",
        fixture("character.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let before = std::fs::read(out.join("character.pxsk")).unwrap();
    // A broken file under the same name: same output path, must not be touched.
    let broken = dir.path().join("src/character.fbx");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::copy(fixture("reject_two_skins.fbx"), &broken).unwrap();
    let (code, _, _) =
        psxanim(&["import", broken.to_str().unwrap(), "--storage", "baked-vertices", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(std::fs::read(out.join("character.pxsk")).unwrap(), before);
    assert_eq!(files_in(&out), vec!["character.pxsk"]);
    // Not an FBX at all.
    std::fs::write(&broken, b"not an fbx").unwrap();
    let (code, _, stderr) =
        psxanim(&["import", broken.to_str().unwrap(), "--storage", "rigid-gte", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("cannot load FBX"), "{stderr}");
    assert_eq!(std::fs::read(out.join("character.pxsk")).unwrap(), before);
}

#[test]
fn bad_options_are_usage_errors() {
    let (code, _, _) = psxanim(&["import", fixture("character.fbx").to_str().unwrap(), "--storage", "vertex-soup"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = psxanim(&[
        "import",
        fixture("character.fbx").to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "--rate",
        "0",
        "-o",
        "/nonexistent/never",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("sample rate must be 1..=60 Hz"), "{stderr}");
}
