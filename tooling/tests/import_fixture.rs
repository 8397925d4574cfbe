//! The Blender fixture character through import and both compilers, checked against the counts the
//! authoring script recorded, ufbx's own evaluation and the runtime's table reader.

mod import_support;

use import_support::{cover, fixtures, sample_transform, source_triangles};
use psxanim::compile::{compile, CompileOptions, StorageMode, DEFAULT_BAKED_THRESHOLD};
use psxanim::fbx::{import, Affine, Character, ImportError, ImportOptions};
use psxanim_runtime::tables::{BoneSample, Storage, Tables, ROTATION_FRAC, SCALE_FRAC};

fn load(options: &ImportOptions) -> Character {
    import(&fixtures().join("character.fbx"), options, &mut |_, _, _| {}).expect("the fixture imports")
}

fn expected() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("character.expected.json")).unwrap()).unwrap()
}

#[test]
fn counts_equal_the_ones_the_blender_script_built() {
    let c = load(&ImportOptions::default());
    let e = expected();
    assert_eq!(c.bones.len(), e["bones"].as_u64().unwrap() as usize);
    let names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
    let want: Vec<&str> =
        e["bone_names_parent_first"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(names, want);
    for (i, b) in c.bones.iter().enumerate() {
        assert!(b.parent.is_none_or(|p| p < i), "bone {} is not parent-first", b.name);
    }
    assert_eq!(c.vertices.len(), e["vertices"].as_u64().unwrap() as usize);
    assert_eq!(c.triangles.len(), e["triangles"].as_u64().unwrap() as usize);
    assert_eq!(c.weights.reduced_vertices, e["reduced_vertices"].as_u64().unwrap() as usize);
    assert!((c.weights.largest_dropped_weight - e["largest_dropped_weight"].as_f64().unwrap()).abs() < 1e-6);

    let materials = e["materials"].as_object().unwrap();
    assert_eq!(c.materials.len(), materials.len());
    for m in &c.materials {
        let rgb = materials[&m.name].as_array().unwrap();
        for (got, want) in m.rgb.iter().zip(rgb) {
            assert!((*got as f64 - want.as_f64().unwrap() * 255.0).abs() <= 1.0, "{}: {:?}", m.name, m.rgb);
        }
    }
    let clips = e["clips"].as_object().unwrap();
    assert_eq!(c.clips.len(), clips.len());
    for clip in &c.clips {
        assert_eq!(clip.rate, 30);
        assert_eq!(
            clip.frame_count(),
            clips[&clip.name]["samples_at_30hz"].as_u64().unwrap() as usize,
            "{}",
            clip.name
        );
    }
}

#[test]
fn bind_pose_uses_psx_axes_and_gte_units() {
    let c = load(&ImportOptions { clips: Some(vec![]), ..Default::default() });
    assert!(c.clips.is_empty());
    // Blender authored the head's top at z = 1.75 m (up): PSX Y is down, 1 m = 4096 units.
    let top = c.vertices.iter().map(|v| v.bind[1]).fold(f64::INFINITY, f64::min);
    assert!((top - -1.75 * 4096.0).abs() < 1.0, "{top}");
    // The left arm (Blender +X) stays on +X.
    let arm = c.bones.iter().position(|b| b.name == "Forearm.L").unwrap();
    assert!(c.bones[arm].bind.t[0] > 1800.0);
    // Bind transforms are rigid: the bind scale (metres -> GTE units) went into bind_scale.
    for b in &c.bones {
        assert!(b.bind_scale.iter().all(|s| (s - 4096.0).abs() < 0.01), "{}: {:?}", b.name, b.bind_scale);
    }
}

#[test]
fn clip_selection_and_rate() {
    let c = load(&ImportOptions { rate: 15, clips: Some(vec!["Walk".into()]), ..Default::default() });
    assert_eq!(c.clips.len(), 1);
    assert_eq!(c.clips[0].name, "Walk");
    assert_eq!(c.clips[0].frame_count(), 16); // 1 s at 15 Hz, both ends
    let err = import(
        &fixtures().join("character.fbx"),
        &ImportOptions { rate: 30, clips: Some(vec!["Run".into()]), ..Default::default() },
        &mut |_, _, _| {},
    )
    .unwrap_err();
    assert!(matches!(err, ImportError::UnknownClip { .. }));
    assert!(err.to_string().contains("Idle, Walk, Turn") || err.to_string().contains("Idle, Turn, Walk"), "{err}");
}

fn inside(bounds: [[i16; 3]; 2], p: [f64; 3]) -> bool {
    (0..3).all(|c| bounds[0][c] as f64 <= p[c] && p[c] <= bounds[1][c] as f64)
}

#[test]
fn rigid_tables_decode_to_ufbx_positions_and_bounds_cover_every_sample() {
    let c = load(&ImportOptions::default());
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    assert_eq!(t.storage(), Storage::RigidGte);
    assert_eq!((t.bone_count(), t.vertex_count(), t.triangle_count(), t.clip_count()), (11, 352, 660, 3));
    // The file's vertices in range order: by bone, the file's order within a bone.
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    for b in 0..t.bone_count() {
        let bone = t.bone(b);
        let range = bone.first_vertex as usize..(bone.first_vertex + bone.vertex_count) as usize;
        assert!(order[range].iter().all(|&v| c.vertices[v].bone == b), "range of bone {b}");
        assert_eq!(t.name(bone.name_offset).unwrap(), c.bones[b].name);
    }
    let bounds = t.bounds();
    let mut worst: f64 = 0.0;
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    for (ci, clip) in c.clips.iter().enumerate() {
        assert_eq!(t.find_clip(&clip.name), Some(ci));
        for f in 0..clip.frame_count() {
            t.decode_pose(ci, f, &mut samples).unwrap();
            let mut model: Vec<Affine> = Vec::new();
            for (b, sample) in samples.iter().enumerate() {
                let local = sample_transform(sample);
                model.push(match t.bone(b).parent {
                    Some(p) => model[p as usize].mul(&local),
                    None => local,
                });
            }
            for (b, bone_model) in model.iter().enumerate() {
                let bone = t.bone(b);
                let vertices = bone.first_vertex as usize..(bone.first_vertex + bone.vertex_count) as usize;
                for (i, &at) in vertices.clone().zip(&order[vertices]) {
                    let p = bone_model.apply(t.vertex(i).map(|x| x as f64));
                    let reference = clip.rigid_reference[f][at];
                    worst = worst.max((0..3).map(|k| (p[k] - reference[k]).abs()).fold(0.0, f64::max));
                    assert!(inside(bounds, p) && inside(bounds, reference), "clip {} frame {f} vertex {i}", clip.name);
                }
            }
        }
    }
    // Stated budget: 1 unit of pose compression plus the i16 rounding of bone-local vertices.
    assert!(worst <= 2.0, "max error {worst}");
    assert!((worst - out.report.accuracy.versus_rigid.max).abs() < 1e-6);
    assert!(out.report.max_format_error <= 1.0);
    // The console's FP12/GTE evaluation of the same tables (runtime math) stays within a few units.
    let console = out.report.accuracy.console_fp12.clone().unwrap();
    assert!(console.max <= 6.0 && console.mean <= 2.0, "{console:?}");
    let bps = out.report.bytes_per_bone_second.unwrap();
    assert!(bps <= 100.0, "{bps} bytes per bone-second");
    // The turn spins the hips a full 360 degrees: relative to frame 0, the decoded root is turned by
    // 180 degrees at frame 30 (quaternion dot 0) and back at frame 60 (dot +-1).
    let turn = t.find_clip("Turn").unwrap();
    let root_at = |f: usize| {
        let mut s = vec![BoneSample::default(); t.bone_count()];
        t.decode_pose(turn, f, &mut s).unwrap();
        s[0].rotation.map(|v| v as f64 / (ROTATION_FRAC as f64).exp2())
    };
    let dot = |a: [f64; 4], b: [f64; 4]| (0..4).map(|i| a[i] * b[i]).sum::<f64>();
    let (q0, q30, q60) = (root_at(0), root_at(30), root_at(60));
    assert!(dot(q0, q30).abs() < 0.02, "half turn: {}", dot(q0, q30));
    assert!(dot(q0, q60).abs() > 0.9999, "full turn: {}", dot(q0, q60));
    // Turn scales the head by (1.25, 1, 1.25) in its own axes at mid-clip: kept as a ratio to the bind.
    // (Blender's key simplification on export moves the stored curve by a few thousandths.)
    let head = c.bones.iter().position(|b| b.name == "Head").unwrap();
    let mut s = vec![BoneSample::default(); t.bone_count()];
    t.decode_pose(turn, 30, &mut s).unwrap();
    let scale = s[head].scale.map(|v| v as f64 / (SCALE_FRAC as f64).exp2());
    assert!(
        (scale[0] - 1.25).abs() < 0.01 && (scale[1] - 1.0).abs() < 1e-3 && (scale[2] - 1.25).abs() < 0.01,
        "{scale:?}"
    );
    t.decode_pose(turn, 0, &mut s).unwrap();
    assert_eq!(s[head].scale, [1 << SCALE_FRAC; 3]);
    // Triangles keep their corners (remapped, same positions; a quad's halves may be rotated, a strip's
    // quad split along its other diagonal).
    cover(&t, |v| order[v as usize], &source_triangles(&c));
}

#[test]
fn baked_frames_decode_within_half_a_q8_step_and_share_identical_payloads() {
    let c = load(&ImportOptions::default());
    let out = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    assert_eq!(t.storage(), Storage::BakedVertices);
    let bounds = t.bounds();
    let mut frame = vec![[0i16; 3]; t.vertex_count()];
    let mut worst: f64 = 0.0;
    for (ci, clip) in c.clips.iter().enumerate() {
        // Random access: frames in reverse order.
        for f in (0..clip.frame_count()).rev() {
            t.decode_baked_frame(ci, f, &mut frame).unwrap();
            for (v, p) in frame.iter().enumerate() {
                let p = p.map(|x| x as f64);
                // Baked frames are ufbx's true skinning (every weight), not the strongest bone's pose.
                let r = clip.skinned_reference[f][v];
                worst = worst.max((0..3).map(|k| (p[k] - r[k]).abs()).fold(0.0, f64::max));
                assert!(inside(bounds, p) && inside(bounds, r));
            }
        }
    }
    assert!(worst <= 8.5, "{worst}");
    assert!(worst <= DEFAULT_BAKED_THRESHOLD);
    assert!((worst - out.report.accuracy.versus_skinned.max).abs() < 1e-9);
    // The fixture's 80 two-influence vertices are where the strongest bone's pose would differ.
    assert!(out.report.accuracy.versus_rigid.max > worst, "{:?}", out.report.accuracy.versus_rigid);
    // Turn starts and ends at the same pose (0 and 360 degrees): one payload for both.
    let turn = t.clip(t.find_clip("Turn").unwrap()).unwrap();
    let offset = |f: usize| {
        let at = turn.data_offset as usize + 4 * f;
        u32::from_le_bytes(out.blob[at..at + 4].try_into().unwrap())
    };
    assert_eq!(offset(0), offset(turn.frame_count as usize - 1));
    assert_ne!(offset(0), offset(15));
    let per_frame = out.report.bytes_per_frame.unwrap();
    // One byte per coordinate and the 4-byte header, plus a 4-byte word per escape (within 5 %).
    assert!(per_frame < 1.05 * (4.0 + 3.0 * 352.0), "{per_frame}");
}

#[test]
fn accuracy_threshold_fails_the_import_and_names_where() {
    let c = load(&ImportOptions { clips: Some(vec!["Walk".into()]), ..Default::default() });
    let err = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: Some(0.5), pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap_err();
    let ImportError::Accuracy { clip, max, threshold, .. } = &err else { panic!("{err}") };
    assert_eq!(clip, "Walk");
    assert!(*max > 0.5 && *threshold == 0.5);
    assert!(err.to_string().contains("--max-error"));
    // Overriding it accepts the same data.
    compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: Some(f64::INFINITY), pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
}

#[test]
fn a_z_up_export_of_the_same_scene_imports_to_the_same_positions() {
    let y_up = load(&ImportOptions::default());
    let z_up = import(&fixtures().join("character_z_up.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).unwrap();
    assert_eq!(y_up.vertices.len(), z_up.vertices.len());
    for (a, b) in y_up.vertices.iter().zip(&z_up.vertices) {
        assert!((0..3).all(|k| (a.bind[k] - b.bind[k]).abs() < 0.05), "{:?} vs {:?}", a.bind, b.bind);
    }
    for (ca, cb) in y_up.clips.iter().zip(&z_up.clips) {
        assert_eq!(ca.name, cb.name);
        for (fa, fb) in ca.rigid_reference.iter().zip(&cb.rigid_reference) {
            for (a, b) in fa.iter().zip(fb) {
                assert!((0..3).all(|k| (a[k] - b[k]).abs() < 0.05));
            }
        }
    }
}

#[test]
fn a_centimetre_rig_with_three_influences_and_a_270_degree_spin_compiles_within_budget() {
    let c = import(&fixtures().join("rig_variant.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).unwrap();
    // 80 two-influence vertices plus 56 three-influence ones (ring 1 of bones with a grandparent).
    assert_eq!(c.weights.reduced_vertices, 136);
    assert!((c.weights.largest_dropped_weight - 0.4).abs() < 1e-6);
    // The armature's 0.01 scale (centimetre skeleton) is absorbed: same size as the metre character.
    let reference = load(&ImportOptions { clips: Some(vec![]), ..Default::default() });
    for (a, b) in c.vertices.iter().zip(&reference.vertices) {
        assert!((0..3).all(|k| (a.bind[k] - b.bind[k]).abs() < 0.5), "{:?} vs {:?}", a.bind, b.bind);
    }
    for b in &c.bones {
        assert!(b.bind_scale.iter().all(|s| (s - 40.96).abs() < 1e-3), "{}: {:?}", b.name, b.bind_scale);
    }
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    assert!(out.report.max_format_error <= 1.0);
    assert!(out.report.accuracy.versus_rigid.max <= 2.0, "{:?}", out.report.accuracy);
    // The forearm turns 270 degrees about its own axis: at frame 20 it is half-way round (180 degrees,
    // quaternion dot 0 with the start) and the vertices follow it all the way (checked against ufbx
    // frame by frame in the accuracy figures above).
    let t = Tables::parse(&out.blob).unwrap();
    let forearm = c.bones.iter().position(|b| b.name == "Forearm.L").unwrap();
    let at = |f: usize| {
        let mut s = vec![BoneSample::default(); t.bone_count()];
        t.decode_pose(0, f, &mut s).unwrap();
        s[forearm].rotation.map(|v| v as f64 / (ROTATION_FRAC as f64).exp2())
    };
    let dot = |a: [f64; 4], b: [f64; 4]| (0..4).map(|i| a[i] * b[i]).sum::<f64>();
    assert!(dot(at(0), at(20)).abs() < 0.01, "{}", dot(at(0), at(20)));
    assert!((dot(at(0), at(30)).abs() - (135f64).to_radians().cos().abs()).abs() < 0.01);
}

#[test]
fn parent_steps_walk_the_fixtures_parents_and_the_chain_composes_like_the_bone_loop() {
    use psxanim_runtime::gte::{Gte, GteModel};
    use psxanim_runtime::math::Matrix;
    use psxanim_runtime::render::bones::{bone_matrices_q14, pose_matrices_q14, PoseQ14};
    use psxanim_runtime::tables::{STEP_ROOT, STEP_SAME_PARENT};
    for file in ["character.fbx", "twenty_bones.fbx"] {
        let c = import(&fixtures().join(file), &ImportOptions::default(), &mut |_, _, _| {}).expect("the fixture imports");
        let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
        let t = Tables::parse(&out.blob).unwrap();
        let steps = t.parent_steps().expect("at most 64 bones").steps().to_vec();
        assert_eq!(steps.len(), t.bone_count());
        let mut previous = None;
        let mut same = 0;
        for (b, &s) in steps.iter().enumerate() {
            let parent = match s {
                STEP_SAME_PARENT => {
                    assert!(b > 0, "{file}: bone 0 has no previous bone");
                    same += 1;
                    previous
                }
                STEP_ROOT => None,
                s => Some((b - s as usize) as u16),
            };
            assert_eq!(parent, t.parent(b), "{file}: bone {b}");
            previous = parent;
        }
        assert!(same > 0, "{file}: siblings share a parent");
        let object = Matrix::new([[4000, 100, -300], [-120, 4050, 200], [310, -190, 3990]], psxanim_runtime::math::Vec3i32::new(12, -900, 4000));
        let mut gte = Gte::with_backend(GteModel::new());
        let mut samples = vec![BoneSample::default(); t.bone_count()];
        let (mut chained, mut looped) = (vec![Matrix::IDENTITY; t.bone_count()], vec![Matrix::IDENTITY; t.bone_count()]);
        let mut frames = 0;
        for clip in 0..t.clip_count() {
            for f in 0..t.clip(clip).unwrap().frame_count as usize {
                t.decode_pose(clip, f, &mut samples).unwrap();
                let Some(poses) = samples.iter().map(PoseQ14::from_sample).collect::<Option<Vec<_>>>() else { continue };
                bone_matrices_q14(&mut gte, &t, &poses, &object, &mut chained);
                pose_matrices_q14(&mut gte, |b| t.parent(b), &poses, &object, &mut looped);
                assert_eq!(chained, looped, "{file}: clip {clip} frame {f}");
                frames += 1;
            }
        }
        assert!(frames > 20, "{file}: {frames} frames in the GTE's form");
    }
}
