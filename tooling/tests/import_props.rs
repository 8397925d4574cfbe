//! Props: unskinned meshes parented to a bone (Blender's BONE parenting), to a helper under a bone, or
//! to the armature object, imported as rigid parts of the skeleton. Checked against ufbx's own
//! evaluation of the prop meshes, independently of the importer's references.

mod import_support;

use psxanim::compile::{compile, CompileOptions, StorageMode, DEFAULT_BAKED_THRESHOLD};
use psxanim::fbx::{import, Affine, Character, ImportError, ImportOptions, Prop};
use import_support::{fixture, sample_transform};
use psxanim_runtime::tables::{BoneSample, Tables};

fn load_props() -> Character {
    import(&fixture("prop.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).expect("prop.fbx imports")
}

fn bone(c: &Character, name: &str) -> usize {
    c.bones.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no bone {name}"))
}

/// File space to model space for Blender's default export (Y up, Z toward the viewer) in metres.
fn file_to_model(scene: &ufbx::Scene) -> Affine {
    let axes = scene.settings.axes;
    assert_eq!(
        (axes.right, axes.up, axes.front),
        (ufbx::CoordinateAxis::PositiveX, ufbx::CoordinateAxis::PositiveY, ufbx::CoordinateAxis::PositiveZ)
    );
    let s = scene.settings.unit_meters * 4096.0;
    Affine::linear([[s, 0.0, 0.0], [0.0, -s, 0.0], [0.0, 0.0, -s]])
}

/// ufbx's model-space positions of every prop vertex of clip `stack_suffix` at `frame` (30 Hz), keyed
/// like the importer's vertices: (mesh name, source index).
fn ufbx_prop_positions(
    scene: &ufbx::Scene,
    stack_suffix: &str,
    frame: usize,
    props: &[&str],
) -> Vec<((String, usize), [f64; 3])> {
    let conv = file_to_model(scene);
    let stack = scene.anim_stacks.as_ref().iter().find(|s| s.element.name.ends_with(stack_suffix)).unwrap();
    let time = (stack.time_begin + frame as f64 / 30.0).min(stack.time_end);
    let evaluated = ufbx::evaluate_scene(scene, &stack.anim, time, ufbx::EvaluateOpts::default()).unwrap();
    let mut out = Vec::new();
    for name in props {
        let node = ufbx::find_node(&evaluated, name).unwrap();
        let mesh = node.mesh.as_ref().unwrap();
        let to_model = conv.mul(&Affine::from_ufbx(&node.geometry_to_world));
        for (i, v) in mesh.vertices.iter().enumerate() {
            out.push(((name.to_string(), i), to_model.apply([v.x, v.y, v.z])));
        }
    }
    out
}

fn axis_error(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

const PROPS: [&str; 3] = ["Sword", "Hat", "Backpack"];
const FRAMES: [usize; 4] = [0, 8, 16, 24];

#[test]
fn props_bind_to_their_nearest_bone_ancestor_and_count_against_the_totals() {
    let c = load_props();
    let mut props = c.props.clone();
    props.sort_by(|a, b| a.mesh.cmp(&b.mesh));
    assert_eq!(
        props,
        [
            // Parented to the armature object itself: that node joins the skeleton, as its root.
            Prop { mesh: "Backpack".into(), bone: bone(&c, "Armature"), vertices: 8 },
            // Under the empty HatSocket, which is BONE-parented to the head.
            Prop { mesh: "Hat".into(), bone: bone(&c, "Head"), vertices: 16 },
            Prop { mesh: "Sword".into(), bone: bone(&c, "Forearm.R"), vertices: 16 },
        ]
    );
    assert_eq!(c.bones[0].name, "Armature");
    assert_eq!(c.bones[bone(&c, "Hips")].parent, Some(0));
    // The character's 352 skinned vertices plus 40 prop vertices; triangles: 660 + 12 + 12 + 28 + 12.
    assert_eq!(c.vertices.len(), 352 + 40);
    assert_eq!(c.triangles.len(), 660 + 12 * 3 + 28);
    for p in &c.props {
        let on_bone: Vec<_> = c.vertices.iter().filter(|v| v.mesh == p.mesh).collect();
        assert_eq!(on_bone.len(), p.vertices);
        assert!(on_bone.iter().all(|v| v.bone == p.bone), "{}", p.mesh);
    }
    // The weight reduction concerns the skinned body only.
    assert_eq!(c.weights.reduced_vertices, 80);
    // Bind positions: where Blender placed the prop at rest (the scene as loaded is the rest pose here).
    let scene = ufbx::load_file(fixture("prop.fbx").to_str().unwrap(), ufbx::LoadOpts::default()).unwrap();
    let conv = file_to_model(&scene);
    for name in PROPS {
        let node = ufbx::find_node(&scene, name).unwrap();
        let to_model = conv.mul(&Affine::from_ufbx(&node.geometry_to_world));
        for v in c.vertices.iter().filter(|v| v.mesh == name) {
            let p = node.mesh.as_ref().unwrap().vertices[v.source_index];
            // Blender computes the bind matrices in single precision: agreement to a thousandth of a unit.
            assert!(axis_error(v.bind, to_model.apply([p.x, p.y, p.z])) < 0.01, "{name} {}", v.source_index);
        }
    }
    // The sword's grip is in the right hand, about 0.76 m to the character's right (-X), 1.4 m up (-Y).
    let grip = c.vertices.iter().filter(|v| v.mesh == "Sword").map(|v| v.bind[1]).fold(f64::NEG_INFINITY, f64::max);
    assert!((grip + 1.40 * 4096.0).abs() < 0.1 * 4096.0, "{grip}");
}

#[test]
fn rigid_tables_carry_the_props_in_their_bones_ranges_and_move_them_as_ufbx_does() {
    let c = load_props();
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    // Range order: by bone, the file's order within a bone (`order[new] = old`).
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    let forearm = bone(&c, "Forearm.R");
    let range = |b: usize| {
        let bone = t.bone(b);
        bone.first_vertex as usize..(bone.first_vertex + bone.vertex_count) as usize
    };
    // The forearm's range holds its 32 skinned vertices and the sword's 16.
    assert_eq!(range(forearm).len(), 32 + 16);
    let swords = order[range(forearm)].iter().filter(|&&v| c.vertices[v].mesh == "Sword").count();
    assert_eq!(swords, 16);
    assert_eq!(range(bone(&c, "Head")).len(), 32 + 16);
    assert_eq!(range(bone(&c, "Armature")).len(), 8);
    let (sword_range, hat_range) = (
        out.report.ranges.iter().find(|r| r.0 == "Forearm.R").unwrap(),
        out.report.ranges.iter().find(|r| r.0 == "Head").unwrap(),
    );
    assert_eq!((sword_range.2, hat_range.2), (48, 48));

    let scene = ufbx::load_file(fixture("prop.fbx").to_str().unwrap(), ufbx::LoadOpts::default()).unwrap();
    let mut worst: f64 = 0.0;
    let mut sword_travel: f64 = 0.0;
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    for clip in ["Idle", "Walk"] {
        let ci = t.find_clip(clip).unwrap();
        let mut first_sword_tip = None;
        for f in FRAMES {
            t.decode_pose(ci, f, &mut samples).unwrap();
            let mut model: Vec<Affine> = Vec::new();
            for (b, sample) in samples.iter().enumerate() {
                let local = sample_transform(sample);
                model.push(match t.bone(b).parent {
                    Some(p) => model[p as usize].mul(&local),
                    None => local,
                });
            }
            for ((mesh, index), reference) in ufbx_prop_positions(&scene, &format!("|{clip}"), f, &PROPS) {
                let new = (0..order.len())
                    .find(|&n| c.vertices[order[n]].mesh == mesh && c.vertices[order[n]].source_index == index)
                    .unwrap();
                let b = c.vertices[order[new]].bone;
                assert!(range(b).contains(&new));
                let p = model[b].apply(t.vertex(new).map(|x| x as f64));
                worst = worst.max(axis_error(p, reference));
                if mesh == "Sword" && index == 0 {
                    let start = *first_sword_tip.get_or_insert(p);
                    sword_travel = sword_travel.max(axis_error(p, start));
                }
            }
        }
    }
    // The import's rigid budget (pose format + i16 rounding of bone-local vertices).
    assert!(worst <= out.report.accuracy.threshold && worst <= 2.0, "{worst}");
    // Not vacuous: the walk swings the forearm, and the sword with it, by more than 10 cm.
    assert!(sword_travel > 0.1 * 4096.0, "{sword_travel}");
}

#[test]
fn baked_frames_move_the_props_as_ufbx_does() {
    let c = load_props();
    let out = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    let t = Tables::parse(&out.blob).unwrap();
    let scene = ufbx::load_file(fixture("prop.fbx").to_str().unwrap(), ufbx::LoadOpts::default()).unwrap();
    let mut frame = vec![[0i16; 3]; t.vertex_count()];
    let mut worst: f64 = 0.0;
    for clip in ["Idle", "Walk"] {
        let ci = t.find_clip(clip).unwrap();
        for f in FRAMES {
            t.decode_baked_frame(ci, f, &mut frame).unwrap();
            for ((mesh, index), reference) in ufbx_prop_positions(&scene, &format!("|{clip}"), f, &PROPS) {
                let v = c.vertices.iter().position(|v| v.mesh == mesh && v.source_index == index).unwrap();
                worst = worst.max(axis_error(frame[v].map(|x| x as f64), reference));
            }
        }
    }
    // Half a Q8 delta step plus the bind rounding: the baked storage's stated budget.
    assert!(worst <= DEFAULT_BAKED_THRESHOLD, "{worst}");
}

/// A declared bone (`LimbNode`, no skin anywhere) with a mesh under it whose node and geometric
/// transforms both move it, and one clip ("Take", 1 s) moving one node 0.2 m along X. `PARENT` is
/// replaced by the mesh's parent id, `ANIMATED` by the animated node's.
const BOX_UNDER: &str = r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {
    FBXHeaderVersion: 1003
    FBXVersion: 7400
}
GlobalSettings:  {
    Version: 1000
    Properties70:  {
        P: "UpAxis", "int", "Integer", "",1
        P: "UpAxisSign", "int", "Integer", "",1
        P: "FrontAxis", "int", "Integer", "",2
        P: "FrontAxisSign", "int", "Integer", "",1
        P: "CoordAxis", "int", "Integer", "",0
        P: "CoordAxisSign", "int", "Integer", "",1
        P: "UnitScaleFactor", "double", "Number", "",100
    }
}
Objects:  {
    NodeAttribute: 2001, "NodeAttribute::Arm", "LimbNode" {
        TypeFlags: "Skeleton"
    }
    Model: 1001, "Model::Arm", "LimbNode" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
        }
    }
    Model: 1002, "Model::Crate", "Mesh" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",0.5,0,0
            P: "GeometricTranslation", "Vector3D", "Vector", "",0,0.25,0
        }
    }
    Geometry: 3001, "Geometry::Crate", "Mesh" {
        Vertices: *9 {
            a: 0,0,0,0.1,0,0,0,0.1,0
        }
        PolygonVertexIndex: *3 {
            a: 0,1,-3
        }
    }
    AnimationStack: 4001, "AnimStack::Take", "" {
        Properties70:  {
            P: "LocalStart", "KTime", "Time", "",0
            P: "LocalStop", "KTime", "Time", "",46186158000
        }
    }
    AnimationLayer: 4002, "AnimLayer::Base", "" {
    }
    AnimationCurveNode: 4003, "AnimCurveNode::T", "" {
        Properties70:  {
            P: "d|X", "Number", "", "A",0
            P: "d|Y", "Number", "", "A",REST_Y
            P: "d|Z", "Number", "", "A",0
        }
    }
    AnimationCurve: 4004, "AnimCurve::", "" {
        Default: 0
        KeyVer: 4009
        KeyTime: *2 {
            a: 0,46186158000
        }
        KeyValueFloat: *2 {
            a: KEYS
        }
        KeyAttrFlags: *1 {
            a: 8452
        }
        KeyAttrDataFloat: *4 {
            a: 0,0,0,0
        }
        KeyAttrRefCount: *1 {
            a: 2
        }
    }
}
Connections:  {
    C: "OO",1001,0
    C: "OO",2001,1001
    C: "OO",1002,PARENT
    C: "OO",3001,1002
    C: "OO",4002,4001
    C: "OO",4003,4002
    C: "OP",4003,ANIMATED,"Lcl Translation"
    C: "OP",4004,4003,"d|X"
}
"#;

/// `BOX_UNDER` with the crate under `parent` and `animated` moving.
fn import_text(parent: &str, animated: &str) -> Result<Character, ImportError> {
    // x from the node's rest (the bone's 0, the crate's 0.5 m) to 0.2 m further; y stays at its rest.
    let (keys, rest_y) = if animated == "1002" { ("0.5,0.7", "0") } else { ("0,0.2", "1") };
    let text = BOX_UNDER
        .replace("PARENT", parent)
        .replace("ANIMATED", animated)
        .replace("KEYS", keys)
        .replace("REST_Y", rest_y);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crate.fbx");
    std::fs::write(&path, &text).unwrap();
    import(&path, &ImportOptions::default(), &mut |_, _, _| {})
}

#[test]
fn a_mesh_under_a_declared_bone_follows_it_with_its_node_and_geometric_transforms() {
    // The bone moves (its translation is keyed: x from 0 at bind to 0.2 m).
    let c = import_text("1001", "1001").unwrap();
    assert_eq!(c.bones.len(), 1);
    assert_eq!(c.props, [Prop { mesh: "Crate".into(), bone: 0, vertices: 3 }]);
    // Bone at 1 m up, mesh 0.5 m right of it, geometry another 0.25 m up: vertex 0 at (0.5, 1.25, 0) m.
    let want = [0.5 * 4096.0, -1.25 * 4096.0, 0.0];
    assert!(axis_error(c.vertices[0].bind, want) < 1e-6, "{:?}", c.vertices[0].bind);
    // ufbx's evaluation: the crate went 0.2 m right with its bone over the clip's 31 samples.
    let take = &c.clips[0];
    assert_eq!((take.name.as_str(), take.frame_count()), ("Take", 31));
    let end = take.rigid_reference[30][0];
    assert!(axis_error(end, [0.7 * 4096.0, -1.25 * 4096.0, 0.0]) < 1e-3, "{end:?}");
    let out = compile(&c, &CompileOptions { storage: StorageMode::RigidGte, max_error: None, pose_tolerance: None, max_influences: 1, ..Default::default() }).unwrap();
    assert!(out.report.accuracy.versus_rigid.max <= 2.0, "{:?}", out.report.accuracy);
    assert_eq!(out.report.ranges, [("Arm".to_string(), 0, 3)]);
    // Stored in the bone's own axes (the file's: Y up), 0.5 m right of and 0.25 m above its origin.
    assert_eq!(Tables::parse(&out.blob).unwrap().vertex(0), [2048, 1024, 0]);
}

#[test]
fn a_mesh_with_neither_a_skin_nor_a_bone_above_it_is_rejected_by_name() {
    // At the scene root, next to the bone rather than under it.
    let err = import_text("0", "1001").unwrap_err();
    assert!(matches!(err, ImportError::MeshWithoutSkin { ref mesh, vertices: 3, .. } if mesh == "Crate"), "{err}");
    let message = err.to_string();
    assert!(message.contains("mesh 'Crate' has no skin deformer and no bone among its ancestors"), "{message}");
    assert!(message.contains("parented to a bone"), "{message}");
}

#[test]
fn a_prop_keyed_relative_to_its_bone_is_rejected_naming_both() {
    // The crate's own translation is keyed: its bone would not carry that motion.
    let err = import_text("1001", "1002").unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ImportError::PropMoves { .. }), "{message}");
    assert!(
        message.contains("prop 'Crate' moves relative to its bone 'Arm' at clip 'Take' frame 1 (t = 0.033 s)"),
        "{message}"
    );
}
