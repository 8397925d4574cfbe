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

fn load(name: &str, options: &ImportOptions) -> Result<Character, String> {
    psxanim::fbx::import(&fixture(name), options, &mut |_, _, _| {}).map_err(|e| e.to_string())
}

fn build(c: &Character, storage: StorageMode) -> Result<Compiled, String> {
    compile(c, &CompileOptions { storage, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).map_err(|e| e.to_string())
}

use psxanim::cli::inspect_tables::positions;
use psxanim::compile::{compile, CompileOptions, Compiled, StorageMode, DEFAULT_BAKED_THRESHOLD};
use psxanim::fbx::{Character, ImportOptions};
use psxanim_runtime::tables::Tables;

#[test]
fn a_shape_key_no_clip_animates_is_ignored_with_a_warning_naming_it() {
    // One shape key, "Smile", at weight 0 in every clip (this file was `reject_blend_shape.fbx`).
    for storage in ["rigid-gte", "baked-vertices"] {
        let (code, json, stderr, files) = import("blend_shape_unused.fbx", storage, &[]);
        assert_eq!(code, 0, "{storage}: {stderr}");
        assert_eq!(files, ["blend_shape_unused.pxsk"]);
        let w = warnings(&json);
        assert!(w.iter().any(|w| w.contains("blend shapes no clip animates") && w.contains("'Smile' (mesh 'Body')")), "{w:?}");
        assert_eq!(json["vertices"], 352);
    }
}

#[test]
fn an_animated_shape_key_is_baked_in_baked_vertices_and_refused_by_rigid_gte() {
    // Hair on the head: Sway keyed 0 -> 1 -> 0 over Idle (its top vertices 6 cm along Blender's Y at
    // weight 1), Curl never keyed.
    let c = load("blend_shape_hair.fbx", &ImportOptions::default()).unwrap();
    assert_eq!(c.blend_shapes.len(), 1, "{:?}", c.blend_shapes);
    assert_eq!((c.blend_shapes[0].mesh.as_str(), c.blend_shapes[0].shape.as_str()), ("Hair", "Sway"));
    assert!(c.warnings.iter().any(|w| w.contains("'Curl' (mesh 'Hair')")), "{:?}", c.warnings);
    // ufbx's skinned positions carry the shape: at Idle's frame 29 (weight 1) the hair's top vertices
    // are 0.06 m (246 GTE units) from where the head alone carries them; the bottom ones are not moved.
    let idle = c.clips.iter().find(|k| k.name == "Idle").unwrap();
    let hair: Vec<usize> = (0..c.vertices.len()).filter(|&v| c.vertices[v].mesh == "Hair").collect();
    assert_eq!(hair.len(), 8);
    let shift = |f: usize, v: usize| -> f64 {
        let (a, b) = (idle.skinned_reference[f][v], idle.rigid_reference[f][v]);
        (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
    };
    let moved = hair.iter().filter(|&&v| (shift(29, v) - 0.06 * 4096.0).abs() < 2.0).count();
    let still = hair.iter().filter(|&&v| shift(29, v) < 0.5).count();
    assert_eq!((moved, still), (4, 4), "{:?}", hair.iter().map(|&v| shift(29, v)).collect::<Vec<_>>());
    assert!(hair.iter().all(|&v| shift(0, v) < 0.5));
    // Baked-vertices stores them (within its threshold of the skinned positions).
    let baked = build(&c, StorageMode::BakedVertices).unwrap();
    let ci = c.clips.iter().position(|k| k.name == "Idle").unwrap();
    let frame = positions(&Tables::parse(&baked.blob).unwrap(), ci, 29).unwrap();
    for &v in &hair {
        let e = (0..3).map(|k| (frame[v][k] as f64 - idle.skinned_reference[29][v][k]).abs()).fold(0.0, f64::max);
        assert!(e <= DEFAULT_BAKED_THRESHOLD, "hair vertex {v}: {e}");
    }
    // Rigid-gte refuses, naming the shape, its mesh and the clip; nothing is written.
    let (code, _, stderr, files) = import("blend_shape_hair.fbx", "rigid-gte", &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("blend_shape_hair.fbx") && stderr.contains("blend shape 'Sway' of mesh 'Hair'") && stderr.contains("clip 'Idle'")
            && stderr.contains("--storage baked-vertices"),
        "{stderr}"
    );
    assert!(files.is_empty());
}

#[test]
fn meshes_and_skip_mesh_choose_what_to_import_and_the_error_names_them() {
    // The character beside an unskinned, subdivided copy of its body (1,232 vertices, no bone above it).
    for storage in ["rigid-gte", "baked-vertices"] {
        let (code, _, stderr, files) = import("high_res_copy.fbx", storage, &[]);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("high_res_copy.fbx") && stderr.contains("mesh 'BodyHighRes' has no skin deformer")
                && stderr.contains("--skip-mesh 'BodyHighRes'") && stderr.contains("--meshes"),
            "{stderr}"
        );
        assert!(files.is_empty());
    }
    let reference = import("character.fbx", "rigid-gte", &[]).1;
    for args in [&["--skip-mesh", "BodyHighRes"][..], &["--meshes", "Body"][..], &["--skinned-only"][..]] {
        let (code, json, stderr, files) = import("high_res_copy.fbx", "rigid-gte", args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(files, ["high_res_copy.pxsk"]);
        for key in ["bones", "vertices", "triangles", "quads"] {
            assert_eq!(json[key], reference[key], "{args:?}: {key}");
        }
        let left_out = warnings(&json).into_iter().any(|w| w.contains("--skinned-only left out 1 mesh(es)") && w.contains("'BodyHighRes' (1232 vertices)"));
        assert_eq!(left_out, args == ["--skinned-only"], "{args:?}: {:?}", warnings(&json));
    }
    // Names the file does not have are errors listing the meshes it has.
    for (option, name) in [("--meshes", "Bod"), ("--skip-mesh", "Copy")] {
        let (code, _, stderr, files) = import("high_res_copy.fbx", "rigid-gte", &[option, name]);
        assert_eq!(code, 1);
        assert!(stderr.contains(&format!("{option} names mesh '{name}'")) && stderr.contains("(meshes: Body, BodyHighRes)"), "{stderr}");
        assert!(files.is_empty());
    }
    // Leaving out every mesh leaves nothing to import.
    let (code, _, stderr, _) = import("character.fbx", "rigid-gte", &["--skip-mesh", "Body"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no mesh"), "{stderr}");
}

#[test]
fn a_maya_mesh_node_moved_after_binding_is_placed_alike_in_both_storage_modes() {
    // The box was bound at the origin, then its node moved 1 m along X; Maya shows it moved. Rigid-gte
    // used to leave it where it was bound (and blamed the 1 m on one-bone skinning).
    let c = load("maya_moved_skin.fbx", &ImportOptions::default()).unwrap();
    let other = load("moved_skin.fbx", &ImportOptions::default()).unwrap();
    for storage in [StorageMode::RigidGte, StorageMode::BakedVertices] {
        let maya = build(&c, storage).unwrap();
        let plain = build(&other, storage).unwrap();
        assert!(!maya.report.warnings.iter().any(|w| w.contains("true skinning")), "{storage:?}: {:?}", maya.report.warnings);
        assert!(maya.report.accuracy.versus_skinned.max <= 2.0 || storage == StorageMode::BakedVertices, "{:?}", maya.report.accuracy);
        let (tm, tp) = (Tables::parse(&maya.blob).unwrap(), Tables::parse(&plain.blob).unwrap());
        for frame in [0, 15, 30] {
            let (m, p) = (positions(&tm, 0, frame).unwrap(), positions(&tp, 0, frame).unwrap());
            for (a, b) in m.iter().zip(&p) {
                // One bone turning about Y at the origin: the moved box turns about the same axis, 1 m
                // further along X in model space.
                assert!((a[0] - b[0] - 4096).abs() <= 16 && (a[1] - b[1]).abs() <= 16 && (a[2] - b[2]).abs() <= 16, "{storage:?} frame {frame}: {a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn preview_draws_a_baked_character_with_animated_blend_shapes() {
    // The skeleton overlay reads rigid pose samples; the animated shape must not stop a baked preview.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("hair.png");
    let run = |storage: &str| {
        Command::new(env!("CARGO_BIN_EXE_psxanim"))
            .args(["preview", fixture("blend_shape_hair.fbx").to_str().unwrap(), "--clip", "Idle", "--frames", "0..30"])
            .args(["--storage", storage, "--out", png.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let o = run("baked-vertices");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(png.exists());
    std::fs::remove_file(&png).unwrap();
    let o = run("rigid-gte");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("blend shape 'Sway'"));
    assert!(!png.exists());
}

#[test]
fn a_maya_move_the_skeleton_cannot_carry_is_stated_and_baked_only() {
    // Two boxes on one bone, only one of whose nodes moved after binding: the bones cannot carry the move
    // for one mesh alone, so rigid-gte keeps the moved box where it was bound, and says why.
    let c = load("maya_moved_one_of_two.fbx", &ImportOptions::default()).unwrap();
    let w = c.warnings.iter().find(|w| w.contains("moved after binding")).unwrap_or_else(|| panic!("{:?}", c.warnings));
    assert!(w.contains("'Box'") && !w.contains("'Still'") && w.contains("rigid-gte keeps it where it was bound"), "{w}");
    let baked = build(&c, StorageMode::BakedVertices).unwrap();
    assert!(baked.report.accuracy.versus_skinned.max <= DEFAULT_BAKED_THRESHOLD);
    let rigid = build(&c, StorageMode::RigidGte).unwrap();
    assert!((rigid.report.accuracy.versus_skinned.max - 4096.0).abs() < 2.0, "{:?}", rigid.report.accuracy.versus_skinned);
}

#[test]
fn preview_chooses_meshes_as_import_does() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("copy.png");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_psxanim"))
            .args(["preview", fixture("high_res_copy.fbx").to_str().unwrap(), "--clip", "Idle", "--frames", "0..4"])
            .args(["--out", png.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--skip-mesh 'BodyHighRes'"));
    assert!(!png.exists());
    for extra in [&["--skip-mesh", "BodyHighRes"][..], &["--meshes", "Body"][..]] {
        let o = run(extra);
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(png.exists());
        std::fs::remove_file(&png).unwrap();
    }
}

#[test]
fn vertices_without_a_weight_stay_on_the_meshs_node_as_the_file_leaves_them() {
    // Vertex 70 of the body has no weight; the body hangs under no bone (Blender exports an
    // Armature-modified mesh beside the armature), so the vertex stays where the scene puts it.
    let reference = import("character.fbx", "rigid-gte", &[]).1;
    for storage in ["rigid-gte", "baked-vertices"] {
        let (code, json, stderr, files) = import("unweighted_vertex.fbx", storage, &[]);
        assert_eq!(code, 0, "{storage}: {stderr}");
        assert_eq!(files, ["unweighted_vertex.pxsk"]);
        assert_eq!(json["vertices"], reference["vertices"], "{storage}");
        assert_eq!(json["bones"].as_u64().unwrap(), reference["bones"].as_u64().unwrap() + 1, "{storage}: the scene's root joins");
        let w = warnings(&json);
        assert!(
            w.iter().any(|w| w.contains("mesh 'Body': 1 vertices have no skin weight (first: vertex 70)") && w.contains("'(scene root)'")),
            "{storage}: {w:?}"
        );
    }
}

#[test]
fn a_character_past_one_primitive_window_imports_in_rigid_gte_and_baked_vertices_names_the_limit() {
    // One continuous skin of 2,946 vertices: its triangles join the hips to both thighs and the spine
    // to both arms, so the bones' vertex ranges must be laid out for every triangle to fit one window.
    let (code, json, stderr, files) = import("dense_character.fbx", "rigid-gte", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files, ["dense_character.pxsk"]);
    assert_eq!(json["vertices"], 2946, "{json}");
    let c = load("dense_character.fbx", &ImportOptions::default()).unwrap();
    let blob = build(&c, StorageMode::RigidGte).unwrap().blob;
    let t = Tables::parse(&blob).unwrap();
    assert_eq!(t.vertex_count(), 2946);
    // Every triangle drawn once, through runs counting from several bases (the header's top byte).
    assert_eq!(t.primitives().map(|p| p.triangle_count()).sum::<usize>(), c.triangles.len());
    let start = psxanim_runtime::tables::Header::read(&blob).unwrap().primitives_offset as usize;
    let words: Vec<u32> = blob[start..].chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
    let mut bases = std::collections::BTreeSet::new();
    let mut at = 0;
    while words[at] != psxanim_runtime::tables::primitives::STREAM_END {
        let h = words[at];
        bases.insert(psxanim_runtime::tables::primitives::run_base(h));
        let count = ((h >> 2) & 0x3FFF) as usize;
        at += 2 + match h & 3 { 0 => count, 1 => 2 * count, _ => count + 1 };
    }
    assert!(bases.len() >= 3 && *bases.iter().max().unwrap() >= 2048, "{bases:?}");
    // Every bone's range is one block; together they cover every vertex once.
    let mut covered = vec![false; t.vertex_count()];
    for b in 0..t.bone_count() {
        let r = t.bone(b);
        for (v, c) in covered.iter_mut().enumerate().skip(r.first_vertex as usize).take(r.vertex_count as usize) {
            assert!(!*c, "vertex {v} in two ranges");
            *c = true;
        }
    }
    assert!(covered.iter().all(|&c| c));

    let (code, _, stderr, files) = import("dense_character.fbx", "baked-vertices", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("2946 vertices exceed baked-vertices' limit of 512") && stderr.contains("--storage rigid-gte takes up to 4096"), "{stderr}");
    assert!(files.is_empty(), "{files:?}");
}

#[test]
fn instances_of_one_skinned_mesh_are_refused_by_rigid_gte_naming_the_option_that_keeps_one() {
    // Blender's linked duplicate of a skinned mesh: one geometry and skin, two model nodes (Maya's
    // instanced skins load alike: ufbx gives the nodes one mesh).
    let (code, _, stderr, files) = import("instanced_skin.fbx", "rigid-gte", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("meshes 'Tuft', 'TuftTwin' are instances of one skinned geometry") && stderr.contains("--skip-mesh 'TuftTwin'"), "{stderr}");
    assert!(files.is_empty(), "{files:?}");
    let (code, json, stderr, _) = import("instanced_skin.fbx", "rigid-gte", &["--skip-mesh", "TuftTwin"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["vertices"], 352 + 8);
    let (code, json, stderr, _) = import("instanced_skin.fbx", "baked-vertices", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["vertices"], 352 + 16);
    // FBX 6.1 has no instances: Maya writes the instance as an unskinned copy of the geometry, which
    // the error about meshes that follow no bone names as such.
    for storage in ["rigid-gte", "baked-vertices"] {
        let (code, _, stderr, _) = import("instance_copy.fbx", storage, &[]);
        assert_eq!(code, 1, "{stderr}");
        assert!(
            stderr.contains("mesh 'BoxInstance' has no skin deformer")
                && stderr.contains("a copy of the geometry 'Box_ncl1_1' of the skinned mesh 'Box' without its skin"),
            "{stderr}"
        );
        let (code, _, stderr, _) = import("instance_copy.fbx", storage, &["--skip-mesh", "BoxInstance"]);
        assert_eq!(code, 0, "{stderr}");
    }
}

#[test]
fn scale_draws_a_model_too_large_for_the_profile_smaller() {
    // The character 5x (its head at 8.75 m): refused, the message naming --scale and the factor its
    // first vertex out of range needs; at --scale 0.5 it imports, its bounds half of 5x the fixture's.
    let (code, _, stderr, _) = import("reject_too_large.fbx", "rigid-gte", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("outside the profile limit of +-7.5 m; --scale draws the model smaller"), "{stderr}");
    let (code, large, stderr, _) = import("reject_too_large.fbx", "rigid-gte", &["--scale", "0.5"]);
    assert_eq!(code, 0, "{stderr}");
    let (_, plain, _, _) = import("character.fbx", "rigid-gte", &["--clips", "Idle"]);
    let height = |j: &serde_json::Value| {
        let b = j["bounds"].as_array().unwrap();
        (b[1][1].as_i64().unwrap() - b[0][1].as_i64().unwrap()) as f64
    };
    let ratio = height(&large) / height(&plain);
    assert!((ratio - 2.5).abs() < 0.01, "{ratio}");
    for storage in ["rigid-gte", "baked-vertices"] {
        let (code, small, stderr, _) = import("character.fbx", storage, &["--scale", "0.5", "--clips", "Idle"]);
        assert_eq!(code, 0, "{stderr}");
        assert!((height(&small) / height(&plain) - 0.5).abs() < 0.01, "{storage}");
    }
    for bad in ["0", "-2", "nan", "inf"] {
        let (code, _, stderr, files) = import("character.fbx", "rigid-gte", &[&format!("--scale={bad}")]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(stderr.contains("--scale must be a positive number"), "{stderr}");
        assert!(files.is_empty());
    }
}
