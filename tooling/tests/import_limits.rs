//! Compiler limits and the pose format's precision search on synthetic characters (no FBX needed).

use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{Affine, Bone, Character, Clip, ImportError, Material, Triangle, Trs, Vertex, WeightReduction};

/// One root bone and a child bone 2 m below it; `vertices` spread over +-`spread` units around the child.
fn character(vertices: usize, spread: f64, frames: usize, pose: impl Fn(usize) -> [Affine; 2]) -> Character {
    let bones = vec![
        Bone { name: "Root".into(), parent: None, bind: Affine::IDENTITY, bind_scale: [1.0; 3] },
        Bone {
            name: "Arm".into(),
            parent: Some(0),
            bind: Affine { t: [0.0, 8192.0, 0.0], ..Affine::IDENTITY },
            bind_scale: [1.0; 3],
        },
    ];
    let verts: Vec<Vertex> = (0..vertices)
        .map(|i| {
            let a = i as f64 * 0.37;
            let r = spread * ((i % 7) as f64 + 1.0) / 7.0;
            Vertex {
                bind: [r * a.cos(), 8192.0 + r * a.sin(), r * (a * 0.5).sin()],
                bone: i % 2,
                second: None,
                second_fix: psxanim::fbx::Affine::IDENTITY,
                mesh: "Synthetic".into(),
                source_index: i,
            }
        })
        .collect();
    let poses: Vec<Vec<Affine>> = (0..frames).map(|f| pose(f).to_vec()).collect();
    let reference: Vec<Vec<[f64; 3]>> = poses
        .iter()
        .map(|p| {
            verts
                .iter()
                .map(|v| p[v.bone].apply(bones[v.bone].bind.inverse().apply(v.bind).map(|c| c.round())))
                .collect()
        })
        .collect();
    Character {
        source: "synthetic".into(),
        bones,
        vertices: verts,
        triangles: vec![Triangle { vertices: [0, 1, 2], material: 0 }],
        materials: vec![Material { name: "Grey".into(), rgb: [128, 128, 128], texture: None }],
        clips: vec![Clip {
            name: "Spin".into(),
            rate: 30,
            poses,
            rigid_reference: reference.clone(),
            skinned_reference: reference,
            events: vec![],
        }],
        weights: WeightReduction::default(),
        props: vec![],
        blend_shapes: vec![],
        uvs: vec![],
        instanced_skins: vec![],
        warnings: vec![],
    }
}

/// Root spinning `turns` full turns about a tilted axis over the clip; the arm hangs below it.
fn spinning(frames: usize, turns: f64) -> impl Fn(usize) -> [Affine; 2] {
    move |f| {
        let angle = turns * std::f64::consts::TAU * f as f64 / frames as f64;
        let axis = [0.36, 0.48, 0.8];
        let (s, c) = (angle / 2.0).sin_cos();
        let root = Affine::from_trs(&Trs {
            translation: [100.0, 0.0, 0.0],
            rotation: [axis[0] * s, axis[1] * s, axis[2] * s, c],
            scale: [1.0; 3],
        });
        let local = Affine::from_trs(&Trs {
            translation: [0.0, 8192.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0, 1.0 + 0.2 * (angle).sin(), 1.0],
        });
        [root, root.mul(&local)]
    }
}

#[test]
fn rigid_precision_search_keeps_far_vertices_within_one_unit_through_two_full_turns() {
    let c = character(200, 4000.0, 120, spinning(120, 2.0));
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    let r = &out.report;
    assert!(r.max_format_error <= 1.0, "{}", r.max_format_error);
    assert!(r.accuracy.versus_rigid.max <= 2.0, "{:?}", r.accuracy);
    assert!(r.bounds[0][1] < -3000 && r.bounds[1][1] > 12000, "{:?}", r.bounds);
}

#[test]
fn a_turn_of_20_degrees_a_frame_about_a_tilted_axis_imports_in_smaller_blocks() {
    // Far vertices: every quaternion component crosses zero within a 16-frame block (this was rejected
    // with "no pose precision keeps vertices within 1 GTE unit"); the compiler takes fewer frames per block.
    let c = character(200, 4000.0, 36, spinning(36, 2.0));
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    let r = &out.report;
    assert!(r.max_format_error <= 1.0, "{}", r.max_format_error);
    assert!(r.accuracy.versus_rigid.max <= 2.0, "{:?}", r.accuracy);
    let t = psxanim_runtime::tables::Tables::parse(&out.blob).unwrap();
    let at = t.clip(0).unwrap().data_offset as usize;
    let block_frames = u16::from_le_bytes([out.blob[at], out.blob[at + 1]]);
    assert!((1..16).contains(&block_frames), "{block_frames}");
    // Baked vertices hold it too, at many times the size.
    let baked = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    assert!(baked.report.max_format_error <= 8.0, "{}", baked.report.max_format_error);
    assert!(out.report.animation_bytes * 10 < baked.report.animation_bytes);
}

#[test]
fn baked_animation_over_512_kib_is_rejected_with_its_size() {
    // 512 vertices, 60 s at 30 Hz, every frame different: about 2.7 MB of frames.
    let c = character(512, 1000.0, 1800, spinning(1800, 3.0));
    let err = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap_err();
    let ImportError::AnimationTooLarge { bytes, limit, .. } = &err else { panic!("{err}") };
    assert_eq!(*limit, 512 * 1024);
    assert!(*bytes > *limit);
    assert!(err.to_string().contains("512 KiB"), "{err}");
    // The same motion as rigid pose samples fits easily.
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    assert!(out.report.animation_bytes < 64 * 1024, "{}", out.report.animation_bytes);
}

#[test]
fn rigid_threshold_grows_with_animated_scale_ups_only() {
    let still = character(20, 500.0, 10, spinning(10, 0.5));
    assert_eq!(psxanim::compile::rigid_threshold(&still), psxanim::compile::DEFAULT_RIGID_THRESHOLD);
    // The arm scaled 3x along one axis: rounding a local vertex by 0.5 can move it 1.5 units.
    let grown = character(20, 500.0, 10, |f| {
        let s = 1.0 + 2.0 * f as f64 / 9.0;
        let local = Affine::from_trs(&Trs {
            translation: [0.0, 8192.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0, s, 1.0],
        });
        [Affine::IDENTITY, local]
    });
    let t = psxanim::compile::rigid_threshold(&grown);
    assert!((t - (1.0 + 0.5 * 3.0 + 0.01)).abs() < 1e-9, "{t}");
    let out = compile(&grown, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, ..Default::default() }).unwrap();
    assert!(out.report.accuracy.versus_rigid.max <= t);
    assert_eq!(out.report.accuracy.threshold, t);
}

#[test]
fn rigid_takes_past_1024_vertices_and_refuses_only_a_triangle_no_window_can_hold() {
    let options = |storage| CompileOptions { storage, max_error: Some(f64::INFINITY), pose_tolerance: None, ..Default::default() };
    let tri = |vertices| Triangle { vertices, material: 0 };
    // Vertex 1099 is the last of the plain order (by bone: it is on the second), vertex 0 the first:
    // the ranges are laid out again so that the triangle joining them fits one window.
    let mut c = character(1100, 500.0, 2, spinning(2, 0.1));
    c.triangles = vec![tri([0, 1, 2]), tri([0, 1099, 2])];
    assert!(compile(&c, &options(StorageMode::RigidGte)).is_ok());
    let err = compile(&c, &options(StorageMode::BakedVertices)).unwrap_err().to_string();
    assert!(err.contains("1100 vertices exceed baked-vertices' limit of 512"), "{err}");
    // A fan: vertex 0 in a triangle with each of 2,099 others, so some lies 1,050 or more from it in
    // any order; the message names the mesh, the vertices and the reach.
    let mut c = character(2100, 500.0, 2, spinning(2, 0.1));
    c.triangles = (1..2099).map(|i| tri([0, i, i + 1])).collect();
    let err = compile(&c, &options(StorageMode::RigidGte)).unwrap_err().to_string();
    assert!(
        err.contains("mesh 'Synthetic'") && err.contains("a triangle of vertices 0, ") && err.contains("within 1009 of each other"),
        "{err}"
    );
}
