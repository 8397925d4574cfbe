//! `psxanim inspect MODEL.pxsk`: the report of a compiled character and the model-space vertex
//! positions of a frame, checked against ufbx's evaluation of the Blender fixture and across the two
//! storage modes, through the binary as a user runs it.

mod import_support;

use std::process::Command;

use import_support::fixture;
use psxanim::cli::inspect_tables::positions;
use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{import, ImportOptions};
use psxanim_runtime::tables::Tables;

fn psxanim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Imports the fixture character in `storage` into `dir` and returns the blob's path.
fn imported(dir: &std::path::Path, storage: &str) -> String {
    let out = dir.join(storage);
    let (code, _, stderr) =
        psxanim(&["import", fixture("character.fbx").to_str().unwrap(), "--storage", storage, "-o", out.to_str().unwrap(), "--max-influences", "1"]);
    assert_eq!(code, 0, "{stderr}");
    out.join("character.pxsk").to_str().unwrap().to_string()
}

#[test]
fn report_lists_bones_ranges_clips_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let blob = imported(dir.path(), "rigid-gte");
    let (code, stdout, stderr) = psxanim(&["inspect", &blob, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["format"], "pxsk");
    assert_eq!(r["storage"], "rigid-gte");
    assert_eq!(r["bytes"].as_u64().unwrap(), std::fs::metadata(&blob).unwrap().len());
    assert_eq!((r["vertices"].as_u64(), r["triangles"].as_u64()), (Some(352), Some(660)));
    let bones = r["bones"].as_array().unwrap();
    assert_eq!(bones.len(), 11);
    assert_eq!((bones[0]["name"].as_str(), bones[0]["parent"].is_null()), (Some("Hips"), true));
    assert_eq!(bones.iter().map(|b| b["vertex_count"].as_u64().unwrap()).sum::<u64>(), 352);
    let clips: Vec<&str> = r["clips"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(clips, vec!["Idle", "Turn", "Walk"]);
    assert!(r.get("frame").is_none(), "no frame unless asked");
    let (code, text, _) = psxanim(&["inspect", &blob]);
    assert_eq!(code, 0);
    assert!(text.contains("rigid-gte") && text.contains("Forearm.L") && text.contains("Walk"), "{text}");
}

#[test]
fn frame_positions_are_the_consoles_and_match_ufbx() {
    let dir = tempfile::tempdir().unwrap();
    let rigid = imported(dir.path(), "rigid-gte");
    let baked = imported(dir.path(), "baked-vertices");
    let frame_of = |blob: &str| -> Vec<[i64; 3]> {
        let (code, stdout, stderr) = psxanim(&["inspect", blob, "--clip", "Walk", "--frame", "12", "--json"]);
        assert_eq!(code, 0, "{stderr}");
        let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!((r["frame"]["clip"].as_str(), r["frame"]["frame"].as_u64()), (Some("Walk"), Some(12)));
        r["frame"]["positions"].as_array().unwrap().iter().map(|p| [0, 1, 2].map(|k| p[k].as_i64().unwrap())).collect()
    };
    let (r, b) = (frame_of(&rigid), frame_of(&baked));
    assert_eq!(r.len(), 352);
    let apart = r.iter().zip(&b).map(|(p, q)| (0..3).map(|k| (p[k] - q[k]).abs()).max().unwrap()).max().unwrap();

    // Against ufbx's evaluation: the rigid positions are the console's FP12/GTE path, whose error the
    // import reports (console_fp12).
    let c = import(&fixture("character.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).unwrap();
    let compiled = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&compiled.blob).unwrap();
    let walk = t.find_clip("Walk").unwrap();
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    let bound = compiled.report.accuracy.console_fp12.as_ref().unwrap().max;
    // The same vertices in both modes (range order): baked is true skinning, rigid one bone per vertex;
    // apart by at most rigid's distance from true skinning plus the two storage budgets (2 and 9).
    let cut = compiled.report.accuracy.versus_skinned.max;
    assert!(apart as f64 <= cut + 11.0, "rigid and baked positions {apart} units apart (rigid vs skinning {cut})");
    for f in 0..c.clips[walk].frame_count() {
        let p = positions(&t, walk, f).unwrap();
        for (i, v) in p.iter().enumerate() {
            let reference = c.clips[walk].rigid_reference[f][order[i]];
            let e = (0..3).map(|k| (v[k] as f64 - reference[k]).abs()).fold(0.0, f64::max);
            assert!(e <= bound + 1e-9, "frame {f} vertex {i}: {e} > reported console error {bound}");
        }
    }
    assert_eq!(positions(&t, walk, 12).unwrap().iter().map(|v| v.map(i64::from)).collect::<Vec<_>>(), r);
}

#[test]
fn errors_name_the_file_clip_and_frame() {
    let dir = tempfile::tempdir().unwrap();
    let blob = imported(dir.path(), "baked-vertices");
    let (code, _, stderr) = psxanim(&["inspect", &blob, "--clip", "Run"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no clip named or numbered 'Run'") && stderr.contains("Idle, Turn, Walk"), "{stderr}");
    let (code, _, stderr) = psxanim(&["inspect", &blob, "--clip", "1", "--frame", "61"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("clip 'Turn' has frames 0..60, not frame 61"), "{stderr}");
    // A damaged blob is an error naming the file, never a panic.
    let bytes = std::fs::read(&blob).unwrap();
    let cut = dir.path().join("cut.pxsk");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, stderr) = psxanim(&["inspect", cut.to_str().unwrap(), "--frame", "0"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cut.pxsk") && stderr.contains("compiled tables"), "{stderr}");
    // --clip on an animation file is a usage error.
    let walk = fixture("../formats/walk.animbin");
    let (code, _, _) = psxanim(&["inspect", walk.to_str().unwrap(), "--clip", "0"]);
    assert_eq!(code, 2);
}
