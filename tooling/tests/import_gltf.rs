//! glTF 2.0 import (issue 24) on the fixtures of `tests/fixtures/gltf`: Blender's glTF exporter
//! (`make_blender_fixtures.py`) and the edge cases and bad inputs of `make_edge_fixtures.py`.
//!
//! The accuracy gate compares the console's decoded baked frames with an evaluation that is not the
//! importer's: Blender's own deformed mesh for the Blender fixtures, the generator's Python evaluation
//! (hierarchy, STEP / LINEAR / CUBICSPLINE, linear blend skinning) for the others. Vertices are matched
//! by their rest position, so the importer's vertex order and welding need not be known here.

use std::path::{Path, PathBuf};
use std::process::Command;

use psxanim::cli::inspect_tables::positions;
use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{Character, ImportOptions};
use psxanim_runtime::tables::Tables;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gltf").join(name)
}

fn load(name: &str) -> Result<Character, String> {
    psxanim::gltf::import(&fixture(name), &ImportOptions::default(), &mut |_, _, _| {}).map_err(|e| e.to_string())
}

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

/// A point of glTF space (Y up, metres) in model space (PSX axes, GTE units).
fn model(p: &Value) -> [f64; 3] {
    let c = |i: usize| p[i].as_f64().unwrap();
    [c(0) * 4096.0, -c(1) * 4096.0, -c(2) * 4096.0]
}

fn apart(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

/// For every vertex of the character, the index of the reference vertex at its rest position.
fn match_rest(c: &Character, rest: &[Value]) -> Vec<usize> {
    let rest: Vec<[f64; 3]> = rest.iter().map(model).collect();
    c.vertices
        .iter()
        .enumerate()
        .map(|(v, vert)| {
            let (i, d) = rest.iter().enumerate().map(|(i, r)| (i, apart(*r, vert.bind))).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
            assert!(d < 1.0, "{}: vertex {v} (bind {:?}) is {d} GTE units from every reference rest position", c.source, vert.bind);
            i
        })
        .collect()
}

/// The gate: every checked frame of every clip, baked and decoded as the console decodes it, within
/// max(10 GTE units, 1% of the model's height) of the reference. Returns the largest error.
fn gate(c: &Character, rest: &[Value], clips: &Value, every: usize) -> f64 {
    let of = match_rest(c, rest);
    let out = compile(c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    let tables = Tables::parse(&out.blob).unwrap();
    let height = out.report.accuracy.model_height;
    let threshold = (0.01 * height).max(10.0);
    let mut worst: f64 = 0.0;
    let mut checked = 0;
    for (ci, clip) in c.clips.iter().enumerate() {
        let frames = clips[&clip.name]["frames"].as_array().or_else(|| clips[&clip.name]["reference"].as_array()).unwrap();
        for (k, reference) in frames.iter().enumerate() {
            let frame = k * every;
            let decoded = positions(&tables, ci, frame).unwrap();
            for (v, p) in decoded.iter().enumerate() {
                let e = apart(p.map(f64::from), model(&reference[of[v]]));
                assert!(e <= threshold, "{} clip '{}' frame {frame} vertex {v}: {e:.1} GTE units from the reference (gate {threshold:.1})", c.source, clip.name);
                worst = worst.max(e);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    worst
}

#[test]
fn blender_export_imports_with_the_fbx_fixtures_counts_and_within_the_gate() {
    let reference = json("blender_character.reference.json");
    let counts = &reference["counts"];
    for name in ["blender_character.glb", "blender_character.gltf"] {
        let c = load(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.bones.len() as u64, counts["bones"].as_u64().unwrap(), "{name}");
        assert_eq!(c.vertices.len() as u64, counts["vertices"].as_u64().unwrap(), "{name}: welded to Blender's vertices");
        assert_eq!(c.triangles.len() as u64, counts["triangles"].as_u64().unwrap(), "{name}");
        // Joints are listed out of hierarchy order in the file; bones come parent-first, with the
        // parents the FBX script gave them.
        let mut names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
        for (b, bone) in c.bones.iter().enumerate() {
            assert!(bone.parent.is_none_or(|p| p < b), "{name}: bone {b} before its parent");
        }
        let parent = |n: &str| c.bones.iter().find(|b| b.name == n).and_then(|b| b.parent).map(|p| c.bones[p].name.as_str());
        for (child, p) in [("Spine", "Hips"), ("Head", "Spine"), ("Forearm.L", "UpperArm.L"), ("UpperArm.R", "Spine"), ("Shin.R", "Thigh.R")] {
            assert_eq!(parent(child), Some(p), "{name}: parent of {child}");
        }
        assert_eq!(parent("Hips"), None);
        names.sort();
        let mut want: Vec<&str> = counts["bone_names_parent_first"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        want.sort();
        assert_eq!(names, want);
        // Base colours (linear, as Blender wrote them) and the textured material's image.
        for (mat, rgb) in counts["materials"].as_object().unwrap() {
            let m = c.materials.iter().find(|m| &m.name == mat).unwrap_or_else(|| panic!("{name}: material {mat}"));
            if mat == counts["textured_material"].as_str().unwrap() {
                assert_eq!(m.texture.as_ref().map(|t| t.name.as_str()), Some(if name.ends_with(".glb") { "skin_texture" } else { "skin_texture.png" }), "{name}");
                continue;
            }
            let want: Vec<u8> = rgb.as_array().unwrap().iter().map(|v| (v.as_f64().unwrap() * 255.0).round() as u8).collect();
            assert_eq!(m.rgb.to_vec(), want, "{name}: {mat}");
        }
        let clips: Vec<(String, usize)> = c.clips.iter().map(|k| (k.name.clone(), k.frame_count())).collect();
        assert_eq!(clips, [("Idle".to_string(), 60), ("Turn".to_string(), 61), ("Walk".to_string(), 31)], "{name}");
        for k in &c.clips {
            assert_eq!(k.frame_count() as u64, reference["clips"][&k.name]["samples_at_30hz"].as_u64().unwrap());
        }
        assert!(c.warnings.is_empty(), "{name}: keys on every frame lose nothing: {:?}", c.warnings);
        let every = reference["every"].as_u64().unwrap() as usize;
        let worst = gate(&c, reference["rest"].as_array().unwrap(), &reference["clips"], every);
        // Blender's float evaluation against the console's Q8 baked frames: a few units.
        eprintln!("{name}: worst {worst:.2} GTE units from Blender's evaluation");
        assert!(worst < 12.0, "{name}: worst {worst}");
    }
}

#[test]
fn edge_fixtures_import_with_their_counts_warnings_and_within_the_gate() {
    let expected = json("edge.expected.json");
    for (name, e) in expected.as_object().unwrap() {
        let c = load(name).unwrap_or_else(|err| panic!("{err}"));
        let n = |k: &str| e[k].as_u64().unwrap() as usize;
        assert_eq!((c.bones.len(), c.vertices.len(), c.triangles.len()), (n("bones"), n("vertices"), n("triangles")), "{name}");
        let names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["Root", "Mid", "Tip"], "{name}: parent-first whatever the skin's joint order");
        for w in e["warnings"].as_array().unwrap() {
            let w = w.as_str().unwrap();
            assert!(c.warnings.iter().any(|have| have.contains(w)), "{name}: no warning with {w:?} in {:?}", c.warnings);
        }
        if e["warnings"].as_array().unwrap().is_empty() {
            assert!(c.warnings.is_empty(), "{name}: {:?}", c.warnings);
        }
        if let Some(mats) = e.get("materials") {
            let have: Vec<&str> = c.materials.iter().map(|m| m.name.as_str()).collect();
            let want: Vec<&str> = mats.as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
            assert_eq!(have, want, "{name}");
            assert_eq!(c.materials[0].rgb, [204, 26, 26]);
            assert_eq!(c.materials[1].texture.as_ref().map(|t| t.name.as_str()), e["texture"].as_str());
        }
        for (clip, want) in e["clips"].as_object().unwrap() {
            let k = c.clips.iter().find(|k| &k.name == clip).unwrap_or_else(|| panic!("{name}: clip {clip}"));
            assert_eq!(k.frame_count() as u64, want["frames"].as_u64().unwrap(), "{name}: {clip}");
        }
        let worst = gate(&c, e["rest"].as_array().unwrap(), &e["clips"], 1);
        eprintln!("{name}: worst {worst:.2} GTE units from the generator's evaluation");
        assert!(worst < 10.0, "{name}: worst {worst}");
        // Rigid storage compiles too, within its own check.
        compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap_or_else(|err| panic!("{name}: {err}"));
    }
}

#[test]
fn the_skinned_mesh_nodes_own_transform_and_the_sparse_positions_are_honoured() {
    // The Rod node sits 5 m along X; glTF ignores a skinned mesh node's transform, and so must we:
    // every rest vertex stays within the rod's 5 cm half-width about the joints' axis.
    let c = load("rod_linear.gltf").unwrap();
    let rod: Vec<_> = c.vertices.iter().filter(|v| v.mesh.starts_with("Rod")).collect();
    assert_eq!(rod.len(), 24);
    let max_x = rod.iter().map(|v| v.bind[0].abs()).fold(0.0, f64::max);
    assert!(max_x < 0.2 * 4096.0, "{max_x}");
    // The sparse accessor moves the stored top ring from 2 m back to 1.25 m.
    let c = load("rod_sparse_strip.gltf").unwrap();
    let top = c.vertices.iter().map(|v| -v.bind[1]).fold(f64::MIN, f64::max);
    assert!((top / 4096.0 - 1.25).abs() < 0.01, "top ring at {} m", top / 4096.0);
}

#[test]
fn a_rig_bound_in_a_z_up_centimetre_parent_space_is_upright_at_its_drawn_size() {
    // COLLADA2GLTF's layout (Khronos' RiggedFigure, CesiumMan): mesh and inverse bind matrices in the
    // space of a Z_UP node above the rig, here in centimetres as well. The bind pose is where the scene
    // draws the rod at rest (1.4 m tall, upright), not the stored data (lying, 140 units long), which
    // was refused as out of range before.
    let c = load("rod_zup_centimetres.gltf").unwrap_or_else(|e| panic!("{e}"));
    let top = c.vertices.iter().map(|v| -v.bind[1]).fold(f64::MIN, f64::max);
    assert!((top / 4096.0 - 1.4).abs() < 0.01, "top of the cap at {} m", top / 4096.0);
    let depth = c.vertices.iter().map(|v| v.bind[2].abs()).fold(0.0, f64::max);
    assert!(depth < 0.5 * 4096.0, "lying along z: {depth}");
    // The Tip joint at rest: 0.5 m up the Root, then 0.5 m up the Mid turned 10 degrees about z.
    let tip = c.bones.iter().find(|b| b.name == "Tip").unwrap();
    let want_y = -(0.5 + 0.5 * 10f64.to_radians().cos()) * 4096.0;
    assert!((tip.bind.t[1] - want_y).abs() < 1.0, "Tip bind {:?}, expected y {want_y}", tip.bind.t);
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    let height = out.report.accuracy.model_height;
    assert!((height / 4096.0 - 1.4).abs() < 0.01, "model height {} m", height / 4096.0);
}

fn psxanim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_input_fails_naming_the_file_the_node_or_accessor_and_the_expectation_and_writes_nothing() {
    let cases: &[(&str, &[&str])] = &[
        ("reject_truncated.glb", &["truncated", "header says 4604 bytes, the file has 4504"]),
        ("reject_buffer_escapes.gltf", &["buffer 0", "'../fbx/character.fbx' leaves the document's folder"]),
        ("reject_missing_buffer.gltf", &["buffer 0", "missing.bin does not exist"]),
        ("reject_accessor_range.gltf", &["accessor 0", "POSITION of mesh node 'Rod'", "4000 elements", "buffer view 0 has 288"]),
        ("reject_component_type.gltf", &["accessor 0", "POSITION", "is VEC3 UNSIGNED_SHORT; expected VEC3 of FLOAT"]),
        ("reject_nan_key.gltf", &["accessor 5", "animation 'Bend' channel 0, node 'Mid'", "is NaN; expected finite numbers"]),
        ("reject_nan_transform.gltf", &["node 3 'Mid'", "inf", "expected finite numbers"]),
        ("reject_joint_index.gltf", &["accessor 1", "JOINTS_0 of mesh node 'Rod'", "vertex 9 names joint 7; skin 'RodSkin' has 3 joints"]),
        ("reject_points.gltf", &["node 2 'Rod'", "draws POINTS; only triangles"]),
        ("reject_morph_animated.gltf", &["node 2 'Rod'", "morph target weights are animated by 'Blink'"]),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, parts) in cases {
        let path = fixture(name);
        for storage in ["rigid-gte", "baked-vertices"] {
            let out = dir.path().join(storage);
            let (code, stdout, stderr) = psxanim(&["import", path.to_str().unwrap(), "--storage", storage, "-o", out.to_str().unwrap()]);
            assert_eq!(code, 1, "{name}: {stdout}{stderr}");
            assert!(stderr.contains(name), "{name}: the message names the file: {stderr}");
            for part in *parts {
                assert!(stderr.contains(part), "{name}: {part:?} missing from: {stderr}");
            }
            assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(), "{name}: wrote output");
        }
    }
}

#[test]
fn import_preview_inspect_and_added_clips_work_on_gltf_as_on_fbx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let glb = fixture("blender_character.glb");
    let glb = glb.to_str().unwrap();
    let wave = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/formats/wave.ani");
    for storage in ["rigid-gte", "baked-vertices"] {
        let out = format!("{d}/{storage}");
        let (code, stdout, stderr) =
            psxanim(&["import", glb, "--storage", storage, "-o", &out, "--json", "--add-clips", wave.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["vertices"], 352);
        assert_eq!(report["added_clips"][0]["clip"], "wave");
        let blob = format!("{out}/blender_character.pxsk");
        let (code, stdout, stderr) = psxanim(&["inspect", &blob, "--clip", "Walk", "--frame", "8"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("Walk") && stdout.contains("wave"), "{stdout}");
        let png = format!("{d}/{storage}.png");
        let (code, _, stderr) = psxanim(&["preview", glb, "--clip", "Walk", "--frames", "0..3", "--storage", storage, "--out", &png, "--compare"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    }
    let (code, _, stderr) = psxanim(&["preview", glb, "--clip", "wave", "--frames", "0", "--out", &format!("{d}/wave.png"), "--add-clips", wave.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn meshes_are_chosen_by_node_name_as_in_an_fbx() {
    let options = |meshes: Option<&[&str]>, skip: &[&str]| ImportOptions {
        meshes: meshes.map(|m| m.iter().map(|s| s.to_string()).collect()),
        skip_meshes: skip.iter().map(|s| s.to_string()).collect(),
        ..ImportOptions::default()
    };
    let with = |o: &ImportOptions| psxanim::gltf::import(&fixture("rod_linear.gltf"), o, &mut |_, _, _| {});
    let all = with(&ImportOptions::default()).unwrap().vertices.len();
    let rod = with(&options(Some(&["Rod"]), &[])).unwrap().vertices.len();
    let without_cap = with(&options(None, &["Cap"])).unwrap().vertices.len();
    assert!(rod < all && rod == without_cap, "all {all}, --meshes Rod {rod}, --skip-mesh Cap {without_cap}");
    let unknown = with(&options(None, &["Hat"])).map(|_| ()).unwrap_err().to_string();
    assert!(unknown.contains("--skip-mesh") && unknown.contains("Hat") && unknown.contains("Rod, Cap"), "{unknown}");
    // A mesh node without a name is called `node<index>` in the vertices' labels, the messages and
    // the options alike (COLLADA2GLTF names no node: RiggedFigure's mesh is `node1`).
    let unnamed = |o: &ImportOptions| psxanim::gltf::import(&fixture("rod_unnamed_cap.gltf"), o, &mut |_, _, _| {});
    let labels: Vec<String> = unnamed(&ImportOptions::default()).unwrap().vertices.iter().map(|v| v.mesh.clone()).collect();
    assert!(labels.iter().any(|l| l.starts_with("node5")), "{labels:?}");
    let skipped = unnamed(&options(None, &["node5"])).unwrap_or_else(|e| panic!("{e}")).vertices.len();
    let only = unnamed(&options(Some(&["node5"]), &[])).unwrap_or_else(|e| panic!("{e}")).vertices.len();
    assert_eq!((skipped, only), (rod, all - rod));
    let unknown = unnamed(&options(None, &["Hat"])).map(|_| ()).unwrap_err().to_string();
    assert!(unknown.contains("Rod, node5"), "{unknown}");
}

#[test]
fn texture_coordinates_come_per_triangle_corner_and_a_primitive_without_them_has_none() {
    // rod_linear's Rod primitives carry TEXCOORD_0 (make_edge_fixtures.py: `rod_uvs`, by file vertex);
    // its Cap primitive has none.
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("edge.expected.json")).unwrap()).unwrap();
    let uvs = expected["rod_linear.gltf"]["rod_uvs"].as_array().unwrap();
    let c = load("rod_linear.gltf").unwrap();
    assert_eq!(c.uvs.len(), c.triangles.len());
    let (mut rod, mut cap) = (0, 0);
    for (t, corners) in c.triangles.iter().zip(&c.uvs) {
        let v = &c.vertices[t.vertices[0]];
        match corners {
            Some(corners) => {
                rod += 1;
                assert!(v.mesh.starts_with("Rod"), "{}", v.mesh);
                for (&i, uv) in t.vertices.iter().zip(corners) {
                    let want = &uvs[c.vertices[i].source_index];
                    assert!((uv[0] - want[0].as_f64().unwrap()).abs() < 1e-6 && (uv[1] - want[1].as_f64().unwrap()).abs() < 1e-6, "{uv:?} {want}");
                }
            }
            None => {
                cap += 1;
                assert!(!v.mesh.starts_with("Rod"), "{}", v.mesh);
            }
        }
    }
    assert_eq!((rod, cap), (40, 4));
}
