//! Fast spins in rigid mode: a bone turning 20 to 90 degrees a frame about a tilted axis has every
//! quaternion component cross zero within a 16-frame block, so the compiler gives its clip smaller
//! blocks. Checked on the Blender fixture `fast_spin.fbx` against ufbx, and on random spins through the
//! runtime's decoder.

mod import_support;

use proptest::prelude::*;
use psxanim::compile::{compile, CompileOptions, StorageMode, RIGID_FORMAT_BUDGET};
use psxanim::fbx::{
    import, Affine, Bone, Character, Clip, ImportOptions, Material, Triangle, Trs, Vertex, WeightReduction,
};
use import_support::{fixture, sample_transform};
use psxanim_runtime::tables::{BoneSample, Tables, ROTATION_FRAC};

/// Model-space position of every blob vertex (range order) at `frame`, from the runtime's decoder.
fn decoded_positions(t: &Tables, clip: usize, frame: usize) -> Vec<[f64; 3]> {
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    t.decode_pose(clip, frame, &mut samples).unwrap();
    let mut model: Vec<Affine> = Vec::new();
    let mut out = vec![[0.0; 3]; t.vertex_count()];
    for (b, s) in samples.iter().enumerate() {
        let local = sample_transform(s);
        model.push(match t.bone(b).parent {
            Some(p) => model[p as usize].mul(&local),
            None => local,
        });
        let bone = t.bone(b);
        let first = bone.first_vertex as usize;
        for (i, p) in out[first..first + bone.vertex_count as usize].iter_mut().enumerate() {
            *p = model[b].apply(t.vertex(first + i).map(|x| x as f64));
        }
    }
    out
}

/// Frames per block of a rigid clip (the first u16 of its pose data).
fn block_frames(blob: &[u8], t: &Tables, clip: usize) -> usize {
    let at = t.clip(clip).unwrap().data_offset as usize;
    u16::from_le_bytes([blob[at], blob[at + 1]]) as usize
}

/// Frames whose decoded rotation of some bone has the other sign than in the frame before, within a
/// block (a block turning 180 degrees or more negates single frames; between blocks the sign is free).
fn sign_flips_within_blocks(blob: &[u8], t: &Tables, clip: usize) -> usize {
    let b = block_frames(blob, t, clip);
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    let mut previous = samples.clone();
    let mut flips = 0;
    for f in 0..t.clip(clip).unwrap().frame_count as usize {
        t.decode_pose(clip, f, &mut samples).unwrap();
        let dot =
            |a: &BoneSample, b: &BoneSample| (0..4).map(|k| a.rotation[k] as i64 * b.rotation[k] as i64).sum::<i64>();
        if f % b != 0 && samples.iter().zip(&previous).any(|(a, b)| dot(a, b) < 0) {
            flips += 1;
        }
        previous.clone_from(&samples);
    }
    flips
}

fn axis_error(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

#[test]
fn the_fast_spin_fixture_imports_in_rigid_mode_within_the_stated_accuracy_at_every_frame() {
    let c = import(&fixture("fast_spin.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).unwrap();
    let names: Vec<&str> = c.clips.iter().map(|cl| cl.name.as_str()).collect();
    for (name, frames) in [("Spin20", 37), ("Spin30", 25), ("Spin45", 19), ("Drift", 41)] {
        let clip = c.clips.iter().find(|cl| cl.name == name).unwrap_or_else(|| panic!("{name} in {names:?}"));
        assert_eq!(clip.frame_count(), frames, "{name}");
    }
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    let threshold = out.report.accuracy.threshold;
    assert_eq!(threshold, 2.0);
    // The file's vertices in range order: by bone, the file's order within a bone.
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    let spinner = c.bones.iter().position(|b| b.name == "Spinner").unwrap();
    let mut worst: f64 = 0.0;
    for (ci, clip) in c.clips.iter().enumerate() {
        assert_eq!(t.find_clip(&clip.name), Some(ci));
        // Every frame against ufbx's evaluation of the vertex on its strongest bone.
        for f in 0..clip.frame_count() {
            let p = decoded_positions(&t, ci, f);
            let e = p
                .iter()
                .enumerate()
                .map(|(i, p)| axis_error(*p, clip.rigid_reference[f][order[i]]))
                .fold(0.0, f64::max);
            assert!(e <= threshold, "clip {} frame {f}: {e}", clip.name);
            worst = worst.max(e);
        }
        // The spinner really turns that fast between samples (its parent stands still): the decoded
        // quaternions of consecutive frames are cos(half the step) apart.
        let degrees: f64 = clip.name.trim_start_matches("Spin").parse().unwrap_or(30.0);
        let at = |f: usize| {
            let mut s = vec![BoneSample::default(); t.bone_count()];
            t.decode_pose(ci, f, &mut s).unwrap();
            s[spinner].rotation.map(|v| v as f64 / (ROTATION_FRAC as f64).exp2())
        };
        for f in 1..clip.frame_count() {
            let dot = (0..4).map(|k| at(f - 1)[k] * at(f)[k]).sum::<f64>().abs();
            // (Drift turns its axis between steps, not within one: its steps are 30 degrees too.)
            assert!((dot - (degrees.to_radians() / 2.0).cos()).abs() < 1e-4, "{} {f}: {dot}", clip.name);
        }
        // 16 frames turn 160 degrees or more about the tilted axis: a block of 16 cannot keep one sign, so
        // the clip has smaller blocks or negates single frames.
        let b = block_frames(&out.blob, &t, ci);
        assert!(b < 16 || sign_flips_within_blocks(&out.blob, &t, ci) > 0, "{}: {b}", clip.name);
    }
    assert!((worst - out.report.accuracy.versus_rigid.max).abs() < 1e-6, "{worst}");
    assert!(out.report.max_format_error <= RIGID_FORMAT_BUDGET);
    // Still far smaller than the same clips as baked vertices.
    let baked = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    assert!(out.report.animation_bytes * 10 < baked.report.animation_bytes, "{}", out.report.animation_bytes);
}

/// Quaternion product `a * b` (x, y, z, w).
fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

fn axis_angle(axis: [f64; 3], radians: f64) -> [f64; 4] {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if n == 0.0 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let (s, c) = (radians / 2.0).sin_cos();
    [axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, c]
}

fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let r = qmul(qmul(q, [v[0], v[1], v[2], 0.0]), [-q[0], -q[1], -q[2], q[3]]);
    [r[0], r[1], r[2]]
}

/// A synthetic character of one 30 Hz clip, its references the exact rigid positions of `poses`.
fn one_clip_character(bones: Vec<Bone>, vertices: Vec<Vertex>, clip: &str, poses: Vec<Vec<Affine>>) -> Character {
    let reference: Vec<Vec<[f64; 3]>> = poses
        .iter()
        .map(|p| vertices.iter().map(|v| p[v.bone].apply(bones[v.bone].bind.inverse().apply(v.bind))).collect())
        .collect();
    Character {
        source: "synthetic".into(),
        bones,
        vertices,
        triangles: vec![Triangle { vertices: [0, 1, 2], material: 0 }],
        materials: vec![Material { name: "Grey".into(), rgb: [128, 128, 128], texture: None }],
        clips: vec![Clip { name: clip.into(), rate: 30, poses, rigid_reference: reference.clone(), skinned_reference: reference, events: vec![] }],
        weights: WeightReduction::default(),
        props: vec![],
        blend_shapes: vec![],
        uvs: vec![],
        instanced_skins: vec![],
        warnings: vec![],
    }
}

/// A root bone spinning `degrees` a frame about `axis` (which itself turns `drift` degrees a frame about
/// Y) from the orientation `start`, and a child 2,048 units along its Y carrying the far vertices.
/// Vertices sit at whole bone-local units, so the exact poses are the reference (format error only).
fn spinning(axis: [f64; 3], degrees: f64, drift: f64, start: [f64; 3], frames: usize) -> Character {
    let child_offset = [0.0, 2048.0, 0.0];
    let bones = vec![
        Bone { name: "Root".into(), parent: None, bind: Affine::IDENTITY, bind_scale: [1.0; 3] },
        Bone {
            name: "Arm".into(),
            parent: Some(0),
            bind: Affine { t: child_offset, ..Affine::IDENTITY },
            bind_scale: [1.0; 3],
        },
    ];
    let vertices: Vec<Vertex> = (0..24)
        .map(|i| {
            let a = i as f64 * 0.7;
            let r = [600.0, 1500.0, 2900.0][i % 3];
            let local = [(r * a.cos()).round(), (r * a.sin()).round(), (r * (0.5 * a).sin()).round()];
            let bone = i % 2;
            let bind = if bone == 1 { [local[0], local[1] + child_offset[1], local[2]] } else { local };
            Vertex { bind, bone, second: None, second_fix: psxanim::fbx::Affine::IDENTITY, mesh: "Spinner".into(), source_index: i }
        })
        .collect();
    let mut q = axis_angle(start, start.iter().map(|c| c * c).sum::<f64>().sqrt());
    let mut axis = axis;
    let mut poses = Vec::new();
    for _ in 0..frames {
        let root = Affine::from_trs(&Trs { translation: [50.0, -20.0, 10.0], rotation: q, scale: [1.0; 3] });
        let arm = Affine::from_trs(&Trs { translation: child_offset, rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] });
        poses.push(vec![root, root.mul(&arm)]);
        q = qmul(axis_angle(axis, degrees.to_radians()), q);
        axis = rotate(axis_angle([0.0, 1.0, 0.0], drift.to_radians()), axis);
    }
    one_clip_character(bones, vertices, "Spin", poses)
}

/// Encodes `c` in rigid mode and returns the largest per-axis distance, over every frame and vertex,
/// between the runtime's decoded pose and the exact one, the clip's frames per block and its sign flips
/// within blocks.
fn format_error(c: &Character) -> (f64, usize, usize) {
    let out = compile(c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    let clip = &c.clips[0];
    let mut worst: f64 = 0.0;
    for f in 0..clip.frame_count() {
        let p = decoded_positions(&t, 0, f);
        worst =
            p.iter().enumerate().map(|(i, p)| axis_error(*p, clip.rigid_reference[f][order[i]])).fold(worst, f64::max);
    }
    (worst, block_frames(&out.blob, &t, 0), sign_flips_within_blocks(&out.blob, &t, 0))
}

#[test]
fn a_60_degree_spin_a_frame_is_stored_with_small_blocks_or_sign_flips_and_a_slow_one_with_neither() {
    let (e, b, flips) = format_error(&spinning([1.0, 1.0, 0.3], 60.0, 0.0, [0.3, -0.2, 0.1], 40));
    assert!(e <= RIGID_FORMAT_BUDGET, "{e}");
    assert!(b < 16 || flips > 0, "{b} frames per block, {flips} flips");
    // Rotations are stored in halfwords (Q15, what the player keeps): a block of two frames 90 degrees
    // apart can leave its rebuilt component near zero, where rounding grows past the budget. Such a clip
    // is stored at the closest precision with a warning stating its error (or refused with the way out),
    // never silently out of budget.
    assert!(within_budget_or_warned(&spinning([1.0, 1.0, 0.3], 90.0, 0.0, [0.3, -0.2, 0.1], 40)));
    let (e, b, flips) = format_error(&spinning([1.0, 1.0, 0.3], 5.0, 0.0, [0.3, -0.2, 0.1], 40));
    assert!(e <= RIGID_FORMAT_BUDGET, "{e}");
    assert_eq!(flips, 0, "{b} frames per block");
}

/// Compiles `c` in rigid mode: true when its decoded poses keep the format budget, when a clip out of it
/// comes with the warning stating its error (the closest precision, issue 24; `e` is measured against
/// ufbx's positions, so it may add the rounding of bone-local vertices, 0.87), or when the compiler
/// refused it pointing at baked storage (never a clip silently stored out of budget).
fn within_budget_or_warned(c: &Character) -> bool {
    match compile(c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }) {
        Ok(out) => {
            let e = format_error(c).0;
            e <= RIGID_FORMAT_BUDGET
                || out.report.warnings.iter().any(|w| {
                    w.contains("no pose precision keeps vertices within 1 GTE unit") && w.contains("--storage baked-vertices")
                }) && e <= out.report.max_format_error + 0.87
        }
        Err(e) => format!("{e:?}").contains("--storage baked-vertices"),
    }
}

/// Eleven bones swinging slowly on a root, the last one instead spinning `degrees` a frame about the
/// tilted axis (1, 1, 0.3): a spinning prop on a character. 60 frames; vertices at whole local units.
fn prop_spinning_among_slow_bones(degrees: f64) -> Character {
    let mut bones = vec![Bone { name: "Root".into(), parent: None, bind: Affine::IDENTITY, bind_scale: [1.0; 3] }];
    for i in 1..12 {
        let bind = Affine { t: [300.0 * i as f64, 0.0, 0.0], ..Affine::IDENTITY };
        bones.push(Bone { name: format!("B{i}"), parent: Some(0), bind, bind_scale: [1.0; 3] });
    }
    let mut vertices = Vec::new();
    for (b, bone) in bones.iter().enumerate() {
        for k in 0..16 {
            let a = k as f64 * 0.4;
            let local = [(800.0 * a.cos()).round(), (1200.0 * a.sin()).round(), (500.0 * (0.5 * a).sin()).round()];
            let bind = [local[0] + bone.bind.t[0], local[1], local[2]];
            vertices.push(Vertex { bind, bone: b, second: None, second_fix: psxanim::fbx::Affine::IDENTITY, mesh: "Body".into(), source_index: vertices.len() });
        }
    }
    let poses: Vec<Vec<Affine>> = (0..60)
        .map(|f| {
            let mut pose = vec![Affine::IDENTITY];
            for (i, bone) in bones.iter().enumerate().skip(1) {
                let rotation = if i == 11 {
                    axis_angle([1.0, 1.0, 0.3], (degrees * f as f64).to_radians())
                } else {
                    axis_angle([0.2 * i as f64, 1.0, 0.1], 0.5 * (f as f64 / 5.0 + i as f64).sin())
                };
                pose.push(Affine::from_trs(&Trs { translation: bone.bind.t, rotation, scale: [1.0; 3] }));
            }
            pose
        })
        .collect();
    one_clip_character(bones, vertices, "Attack", poses)
}

#[test]
fn one_fast_spinning_bone_costs_its_clip_little_more_than_a_slow_one() {
    // Smaller blocks for the whole clip would give every slow bone more block headers; negating single
    // frames of the spinning bone costs only it (with halfword rotations its deltas are wide: 45 degrees
    // a frame took 1.6 times the bytes of 5).
    let bytes = |degrees: f64| {
        let c = prop_spinning_among_slow_bones(degrees);
        let (e, _, _) = format_error(&c);
        assert!(e <= RIGID_FORMAT_BUDGET, "{degrees}: {e}");
        compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap().report.animation_bytes
    };
    let slow = bytes(5.0);
    for degrees in [20.0, 45.0] {
        let fast = bytes(degrees);
        assert!((fast as f64) < 1.8 * slow as f64, "{degrees} degrees a frame: {fast} bytes, 5 degrees: {slow}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_fast_spins_decode_within_the_format_budget(
        axis in prop::array::uniform3(-1.0f64..1.0).prop_filter("an axis", |a| a.iter().map(|c| c * c).sum::<f64>() > 0.01),
        degrees in 0.5f64..50.0,
        drift in prop_oneof![Just(0.0), -6.0f64..6.0],
        start in prop::array::uniform3(-3.0f64..3.0),
        frames in 2usize..70,
    ) {
        // Rotations are halfwords (Q15, what the forward player keeps): a spin fast enough to leave a
        // block's rebuilt component near zero can miss the budget even in blocks of two frames; the
        // compiler then refuses the clip with the way out.
        prop_assert!(within_budget_or_warned(&spinning(axis, degrees, drift, start, frames)));
    }
}
