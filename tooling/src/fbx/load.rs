//! Reading a character out of a ufbx scene: validation, skeleton, skin reduction, mesh, clip sampling.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::affine::{Affine, Degenerate};
use super::limits::*;
use super::error::{check_range, degenerate};
use super::{
    AnimatedShape, Bone, Character, Clip, ImportError, ImportOptions, Material, Prop, TextureRef, Triangle, Vertex, WeightReduction,
};

/// Weights at or below this are treated as absent (exporters write tiny leftovers).
const WEIGHT_EPSILON: f64 = 1e-6;

/// One mesh instance of the character.
struct MeshInstance<'s> {
    node: &'s ufbx::Node,
    mesh: &'s ufbx::Mesh,
    binding: Binding<'s>,
    /// The node a skinned mesh's vertices without any weight follow rigidly, where it has such vertices:
    /// the bone above its node, or the scene's root (they stay on the mesh's node, as Blender and ufbx
    /// leave them).
    unweighted_bone: Option<&'s ufbx::Node>,
    /// Index of its first vertex in the character's vertex list.
    first_vertex: usize,
}

/// How a mesh's vertices follow the skeleton.
#[derive(Clone, Copy)]
enum Binding<'s> {
    /// Weighted to bones by its skin deformer.
    Skin(&'s ufbx::SkinDeformer),
    /// No skin: a prop, every vertex rigidly on this node (its nearest bone ancestor), weight 1.
    Prop(&'s ufbx::Node),
}

/// Loads `path`, validates it against the profile and samples its clips.
pub fn import(
    path: &Path,
    options: &ImportOptions,
    progress: &mut dyn FnMut(&str, usize, usize),
) -> Result<Character, ImportError> {
    let p = path.display().to_string();
    if options.rate == 0 || options.rate > 60 {
        return Err(ImportError::BadRate { path: p, rate: options.rate });
    }
    // Embedded media are kept: a binary FBX may carry its textures.
    let opts = ufbx::LoadOpts { load_external_files: false, ignore_embedded: false, ..Default::default() };
    let scene = ufbx::load_file(&p, opts)
        .map_err(|e| ImportError::Load { path: p.clone(), message: e.description.to_string() })?;
    let conv = options.scaled(file_to_model(&scene.settings));
    let mut warnings = Vec::new();
    if scene.settings.axes.up == ufbx::CoordinateAxis::Unknown {
        warnings.push("the file declares no axes; assumed Y up, right-handed".to_string());
    }

    let (meshes, skipped, unbound) = character_meshes(&p, &scene, options)?;
    if !unbound.is_empty() {
        warnings.push(super::error::skinned_only_warning(&unbound));
    }
    // Maya moves a skinned mesh with its own node when that node moved after binding (its .obj exports
    // show it); the FBX skin alone does not: apply it for files Maya wrote. Where every skinned mesh
    // moved alike and no prop rides the bones, the skeleton itself carries the move (`skeleton_move`),
    // which rigid-gte can store; otherwise only the skinned reference takes it.
    let skin_follows_mesh_node = scene.metadata.original_application.name.to_ascii_lowercase().contains("maya");
    let moves_skeleton = skin_follows_mesh_node && {
        let moves = node_moves(&scene, &meshes);
        let moved: Vec<&(&str, Affine)> = moves.iter().filter(|(_, m)| m.max_difference(&Affine::IDENTITY) > 1e-6).collect();
        let alike = moved.iter().all(|(_, m)| m.max_difference(&moved[0].1) <= 1e-6);
        let props = meshes.iter().any(|m| matches!(m.binding, Binding::Prop(_)));
        if !moved.is_empty() && (moved.len() < moves.len() || !alike || props) {
            let names: Vec<String> = moved.iter().map(|(n, _)| format!("'{n}'")).collect();
            warnings.push(format!(
                "mesh node(s) {} moved after binding: the skin follows the node in baked-vertices (as Maya shows it), \
                 but rigid-gte keeps it where it was bound (the other meshes or props follow the bones unmoved)",
                names.join(", ")
            ));
        }
        !moved.is_empty() && moved.len() == moves.len() && alike && !props
    };
    let rest_move = if moves_skeleton { skeleton_move(&scene, &meshes) } else { None };
    let world_conv = rest_move.map_or(conv, |m| conv.mul(&m));
    let Skeleton { bones, bone_of_node, bind_of_node } = skeleton(&p, &scene, &meshes, &world_conv)?;
    let BoundVertices { vertices, weights, clusters, props, unweighted } =
        bind_vertices(&p, &meshes, &bone_of_node, &bind_of_node, &world_conv)?;
    for (mesh, count, first, bone) in &unweighted {
        warnings.push(format!(
            "mesh '{mesh}': {count} vertices have no skin weight (first: vertex {first}); they stay on the mesh's \
             node as the file leaves them, rigidly on '{bone}'"
        ));
    }
    let (triangles, materials, uvs) = triangulate(&meshes, conv.determinant() < 0.0);

    let limit = |what, count, limit| {
        if count > limit {
            Err(ImportError::TooMany { path: p.clone(), what, count, limit })
        } else {
            Ok(())
        }
    };
    limit("vertices", vertices.len(), MAX_VERTICES)?;
    limit("triangles", triangles.len(), MAX_TRIANGLES)?;
    limit("skeleton bones", bones.len(), MAX_NODES)?;
    limit("nodes", character_nodes(&scene) - skipped, MAX_NODES)?;
    check_range(&p, &vertices, &vertices.iter().map(|v| v.bind).collect::<Vec<_>>(), "bind pose")?;

    let shapes = blend_channels(&meshes);
    let mut shape_used: Vec<Option<String>> = vec![None; shapes.len()];
    let stacks = select_stacks(&p, &scene, options)?;
    limit("clips", stacks.len(), MAX_CLIPS)?;
    let mut clips = Vec::new();
    for (name, stack) in &stacks {
        let (begin, end) = clip_span(stack);
        if (begin, end) != (stack.time_begin, stack.time_end) {
            warnings.push(format!("clip '{name}' declares no time span; sampled over its keys, {begin:.3} s to {end:.3} s"));
        }
        let seconds = end - begin;
        if seconds > MAX_CLIP_SECONDS {
            return Err(ImportError::ClipTooLong {
                path: p.clone(),
                clip: name.clone(),
                seconds,
                limit: MAX_CLIP_SECONDS,
            });
        }
        let frames = (seconds.max(0.0) * options.rate as f64).round() as usize + 1;
        let mut clip = Clip {
            name: name.clone(),
            rate: options.rate,
            poses: vec![],
            rigid_reference: vec![],
            skinned_reference: vec![],
            events: vec![],
        };
        for frame in 0..frames {
            progress(name, frame, frames);
            let time = (begin + frame as f64 / options.rate as f64).min(end.max(begin));
            let context = format!("clip '{name}' frame {frame} (t = {time:.3} s)");
            let eval_opts = ufbx::EvaluateOpts { evaluate_skinning: true, ..Default::default() };
            let evaluated = ufbx::evaluate_scene(&scene, &stack.anim, time, eval_opts).map_err(|e| {
                ImportError::Load { path: p.clone(), message: format!("evaluating {context}: {}", e.description) }
            })?;
            let frame_move = if moves_skeleton { skeleton_move(&evaluated, &meshes) } else { None };
            let frame_conv = frame_move.map_or(conv, |m| conv.mul(&m));
            clip.poses.push(sample_pose(&p, &evaluated, &bones, &bone_of_node, &frame_conv, &context)?);
            let (rigid, skinned) =
                reference_positions(&evaluated, &meshes, &clusters, &conv, skin_follows_mesh_node, frame_move.as_ref());
            for (used, (_, _, channel)) in shape_used.iter_mut().zip(&shapes) {
                let weight = evaluated.blend_channels[*channel as usize].weight;
                if used.is_none() && weight.abs() > WEIGHT_EPSILON {
                    *used = Some(name.clone());
                }
            }
            check_props_follow(&p, &evaluated, &meshes, &rigid, &conv, &context)?;
            check_range(&p, &vertices, &rigid, &context)?;
            clip.rigid_reference.push(rigid);
            clip.skinned_reference.push(skinned);
        }
        clip.events = super::events::clip_events(&p, &scene, stack, name, frames, options.rate, &mut warnings)?;
        clips.push(clip);
    }
    let mut blend_shapes = Vec::new();
    let mut ignored: Vec<String> = Vec::new();
    for ((mesh, shape, _), used) in shapes.into_iter().zip(shape_used) {
        match used {
            Some(clip) => blend_shapes.push(AnimatedShape { mesh, shape, clip }),
            None => ignored.push(format!("'{shape}' (mesh '{mesh}')")),
        }
    }
    if !ignored.is_empty() {
        warnings.push(format!("blend shapes no clip animates (weight 0 throughout), ignored: {}", ignored.join(", ")));
    }

    let instanced_skins = instanced_skins(&meshes);
    Ok(Character { source: p, bones, vertices, triangles, materials, clips, weights, props, blend_shapes, uvs, instanced_skins, warnings })
}

/// The linear map from the file's axes and units to model space (PSX axes, GTE units).
pub fn file_to_model(settings: &ufbx::SceneSettings) -> Affine {
    use ufbx::CoordinateAxis as A;
    let mut axes = settings.axes;
    if axes.up == A::Unknown || axes.right == A::Unknown || axes.front == A::Unknown {
        axes = ufbx::CoordinateAxes { right: A::PositiveX, up: A::PositiveY, front: A::PositiveZ };
    }
    let unit = if settings.unit_meters > 0.0 { settings.unit_meters } else { 0.01 };
    let scale = unit * GTE_UNITS_PER_METRE;
    // Where each role points in model space: right = +X, up = -Y, toward the viewer = -Z.
    let mut m = [[0.0; 3]; 3];
    for (axis, target) in [(axes.right, [1.0, 0.0, 0.0]), (axes.up, [0.0, -1.0, 0.0]), (axes.front, [0.0, 0.0, -1.0])] {
        let (index, sign) = match axis {
            A::PositiveX => (0, 1.0),
            A::NegativeX => (0, -1.0),
            A::PositiveY => (1, 1.0),
            A::NegativeY => (1, -1.0),
            A::PositiveZ => (2, 1.0),
            A::NegativeZ => (2, -1.0),
            A::Unknown => unreachable!("replaced above"),
        };
        for (row, t) in target.iter().enumerate() {
            m[row][index] = sign * t * scale;
        }
    }
    Affine::linear(m)
}

/// The nodes that count against the profile's node limit. Helper nodes (armature objects, empties,
/// leaf bones) and mesh nodes count; the scene root does not, and neither do cameras and lights,
/// which Blender's default scene exports next to the character but which are no part of it.
fn character_nodes(scene: &ufbx::Scene) -> usize {
    scene.nodes.as_ref().iter().filter(|n| !n.is_root && n.camera.is_none() && n.light.is_none()).count()
}

/// The meshes an import takes (see [`character_meshes`]): the chosen ones with their bindings, how
/// many mesh nodes were left out, and those `--skinned-only` left out (name, vertices).
type ChosenMeshes<'s> = (Vec<MeshInstance<'s>>, usize, Vec<(String, usize)>);

/// Every mesh of the scene chosen by `--meshes` / `--skip-mesh` with its binding: skinned meshes, and
/// unskinned ones under a bone (props); how many mesh nodes were left out; and those `--skinned-only`
/// left out (name, vertices), which without it are an error naming them all.
fn character_meshes<'s>(p: &str, scene: &'s ufbx::Scene, options: &ImportOptions) -> Result<ChosenMeshes<'s>, ImportError> {
    let mesh_names: Vec<&str> =
        scene.nodes.as_ref().iter().filter(|n| n.mesh.is_some()).map(|n| &*n.element.name).collect();
    for (option, wanted) in [("--meshes", options.meshes.as_deref().unwrap_or(&[])), ("--skip-mesh", &options.skip_meshes[..])] {
        if let Some(unknown) = wanted.iter().find(|w| !mesh_names.contains(&w.as_str())) {
            return Err(ImportError::UnknownMesh {
                path: p.into(),
                option,
                name: unknown.clone(),
                available: mesh_names.join(", "),
            });
        }
    }
    let chosen = |name: &str| {
        options.meshes.as_ref().is_none_or(|m| m.iter().any(|w| w == name)) && !options.skip_meshes.iter().any(|w| w == name)
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    let mut unbound = Vec::new();
    let mut first_vertex = 0;
    let mut copy_hint = String::new();
    let skeleton_nodes = SkeletonNodes::of(scene);
    for node in scene.nodes.as_ref().iter() {
        let Some(mesh) = node.mesh.as_ref() else { continue };
        let mesh: &ufbx::Mesh = mesh;
        let name = node.element.name.to_string();
        if !chosen(&name) {
            skipped += 1;
            continue;
        }
        for skin in mesh.skin_deformers.as_ref().iter() {
            if uses_dual_quaternions(skin) {
                return Err(ImportError::DualQuaternion {
                    path: p.into(),
                    mesh: name,
                    deformer: skin.element.name.to_string(),
                });
            }
        }
        let binding = match mesh.skin_deformers.len() {
            0 => {
                let Some(bone) = skeleton_nodes.prop_bone(node) else {
                    if unbound.is_empty() {
                        // The error names the first of these meshes: say when it is such a copy.
                        copy_hint = skinned_original(scene, mesh)
                            .map(|original| {
                                format!(
                                    ": it holds a copy of the geometry '{}' of the skinned mesh '{original}' without \
                                     its skin, as FBX 6.1 writes an instance of a skinned mesh (re-export as FBX 2011 \
                                     or later, or skip the instance)",
                                    &*mesh.element.name
                                )
                            })
                            .unwrap_or_default();
                    }
                    unbound.push((name, mesh.num_vertices));
                    skipped += 1;
                    continue;
                };
                Binding::Prop(bone)
            }
            1 => Binding::Skin(&mesh.skin_deformers[0]),
            n => {
                let names: Vec<String> =
                    mesh.skin_deformers.as_ref().iter().map(|s| format!("'{}'", &*s.element.name)).collect();
                return Err(ImportError::MultipleSkins {
                    path: p.into(),
                    mesh: name,
                    count: n,
                    names: names.join(", "),
                });
            }
        };
        let unweighted_bone = match binding {
            // No bone above the mesh's node: they stay where the scene puts them, on its root.
            Binding::Skin(skin) if (0..mesh.num_vertices).any(|v| strongest_weight(skin, v).is_none()) => {
                Some(skeleton_nodes.prop_bone(node).unwrap_or(&scene.root_node))
            }
            _ => None,
        };
        out.push(MeshInstance { node, mesh, binding, unweighted_bone, first_vertex });
        first_vertex += mesh.num_vertices;
    }
    if !unbound.is_empty() && !options.skinned_only {
        return Err(super::error::meshes_without_skin(p, &unbound, &copy_hint));
    }
    if out.is_empty() {
        return Err(ImportError::NoMesh { path: p.into() });
    }
    Ok((out, skipped, unbound))
}

/// The node of a skinned mesh whose geometry `copy` repeats (the same name and vertex count), if any:
/// what an FBX 6.1 exporter writes for an instance of a skinned mesh.
fn skinned_original(scene: &ufbx::Scene, copy: &ufbx::Mesh) -> Option<String> {
    scene
        .meshes
        .as_ref()
        .iter()
        .filter(|m| m.element.element_id != copy.element.element_id && !m.skin_deformers.is_empty())
        .filter(|m| *m.element.name == *copy.element.name && m.num_vertices == copy.num_vertices)
        .find_map(|m| m.element.instances.first().map(|n| n.element.name.to_string()))
}

/// Groups of meshes (node names) that instance one skinned geometry: the skin places each vertex once,
/// so every instance but the first would have to move with bones it is not bound to.
fn instanced_skins(meshes: &[MeshInstance]) -> Vec<Vec<String>> {
    let mut groups: Vec<(u32, Vec<String>)> = Vec::new();
    for m in meshes.iter().filter(|m| matches!(m.binding, Binding::Skin(_))) {
        let id = m.mesh.element.element_id;
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, names)) => names.push(m.node.element.name.to_string()),
            None => groups.push((id, vec![m.node.element.name.to_string()])),
        }
    }
    groups.into_iter().map(|(_, names)| names).filter(|n| n.len() > 1).collect()
}

/// The blend shape channels of the meshes: mesh name, channel name, the channel's typed id (its index in
/// an evaluated scene's `blend_channels`).
fn blend_channels(meshes: &[MeshInstance]) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for m in meshes {
        for deformer in m.mesh.blend_deformers.as_ref().iter() {
            for channel in deformer.channels.as_ref().iter() {
                out.push((m.node.element.name.to_string(), channel.element.name.to_string(), channel.element.typed_id));
            }
        }
    }
    out
}

/// Per skinned mesh (name): its node's move since binding in the file's world space (its
/// geometry-to-world now times the inverse of the skin's bind placement of the mesh, `TransformLink *
/// Transform` of its first cluster); identity when the node did not move.
fn node_moves<'a>(scene: &ufbx::Scene, meshes: &[MeshInstance<'a>]) -> Vec<(&'a str, Affine)> {
    meshes
        .iter()
        .filter_map(|m| {
            let Binding::Skin(_) = m.binding else { return None };
            let mesh: &ufbx::Mesh = &scene.meshes[m.mesh.element.typed_id as usize];
            let node: &ufbx::Node = &scene.nodes[m.node.element.typed_id as usize];
            let c0 = mesh.skin_deformers.first()?.clusters.first()?;
            let bound = Affine::from_ufbx(&c0.bind_to_world).mul(&Affine::from_ufbx(&c0.geometry_to_bone));
            Some((&*m.node.element.name, Affine::from_ufbx(&node.geometry_to_world).mul(&bound.inverse())))
        })
        .collect()
}

/// The move the skeleton carries in `scene` (as loaded or evaluated): the first skinned mesh's
/// ([`node_moves`]); the import checked at rest that every skinned mesh moved alike.
fn skeleton_move(scene: &ufbx::Scene, meshes: &[MeshInstance]) -> Option<Affine> {
    node_moves(scene, meshes).first().map(|(_, m)| *m)
}

/// Whether `skin` really blends in dual-quaternion skinning: 3ds Max's "Blend" method with every
/// vertex's blend weight 0 is plain linear skinning (ufbx evaluates it so), and imports as such.
fn uses_dual_quaternions(skin: &ufbx::SkinDeformer) -> bool {
    match skin.skinning_method {
        ufbx::SkinningMethod::DualQuaternion => true,
        ufbx::SkinningMethod::BlendedDqLinear => {
            skin.vertices.iter().any(|v| v.dq_weight > 0.0)
        }
        _ => false,
    }
}

/// The scene's skeleton nodes, by typed id, as far as props need them.
struct SkeletonNodes {
    /// Skin clusters' nodes and the nodes the file declares bones (`LimbNode`).
    bones: HashSet<u32>,
    /// The bones and every non-root node with a bone below it (armature objects, helpers in between).
    holders: HashSet<u32>,
}

impl SkeletonNodes {
    fn of(scene: &ufbx::Scene) -> Self {
        let clusters = scene.skin_clusters.as_ref().iter().filter_map(|c| c.bone_node.as_ref());
        let declared = scene.nodes.as_ref().iter().filter(|n| n.bone.is_some() && !n.is_root);
        let bones: HashSet<u32> =
            clusters.map(|n| n.element.typed_id).chain(declared.map(|n| n.element.typed_id)).collect();
        let mut holders = HashSet::new();
        for node in scene.nodes.as_ref().iter().filter(|n| bones.contains(&n.element.typed_id)) {
            let mut at: Option<&ufbx::Node> = Some(node);
            // Stops at the root, or where a previous walk already went up.
            while let Some(n) = at.filter(|n| !n.is_root && holders.insert(n.element.typed_id)) {
                at = n.parent.as_deref();
            }
        }
        Self { bones, holders }
    }

    /// The node an unskinned mesh follows rigidly: its nearest ancestor that is a bone, found through
    /// any plain transform nodes; failing that, its nearest ancestor holding bones (a mesh parented to
    /// the armature object itself follows that object, which then joins the skeleton as a bone).
    /// None: no bone above it.
    fn prop_bone<'s>(&self, mesh_node: &'s ufbx::Node) -> Option<&'s ufbx::Node> {
        let ancestors =
            || std::iter::successors(mesh_node.parent.as_deref(), |n| n.parent.as_deref()).filter(|n| !n.is_root);
        ancestors()
            .find(|n| self.bones.contains(&n.element.typed_id))
            .or_else(|| ancestors().find(|n| self.holders.contains(&n.element.typed_id)))
    }
}

/// `degenerate` for a node's own transform: a shear error also names its usual cause, an ancestor
/// (often the armature object itself, or a bone with scale keys) scaled non-uniformly while this node
/// is rotated relative to it. `node` is read at the same time as the failing matrix.
fn degenerate_node(p: &str, name: &str, context: &str, node: &ufbx::Node, d: Degenerate) -> ImportError {
    match degenerate(p, name, context, d) {
        ImportError::Shear { path, node: name, context, degrees, .. } => {
            ImportError::Shear { path, node: name, context, degrees, hint: scaled_ancestor(node) }
        }
        other => other,
    }
}

fn scaled_ancestor(node: &ufbx::Node) -> String {
    let mut ancestor = node.parent.as_ref();
    while let Some(a) = ancestor {
        let s = a.local_transform.scale;
        if non_uniform(s.x, s.y, s.z).is_some() {
            return format!(
                " (its ancestor '{}' has non-uniform scale {:.3} x {:.3} x {:.3}: apply or remove that scale before export)",
                &*a.element.name, s.x, s.y, s.z
            );
        }
        ancestor = a.parent.as_ref();
    }
    String::new()
}

/// Relative spread of three scale factors when it exceeds 0.1 %, else `None`.
fn non_uniform(x: f64, y: f64, z: f64) -> Option<f64> {
    let (lo, hi) = (x.abs().min(y.abs()).min(z.abs()), x.abs().max(y.abs()).max(z.abs()));
    let spread = if hi > 0.0 { (hi - lo) / hi } else { 0.0 };
    (spread > 1e-3).then_some(spread)
}

/// The bone name of the scene's root, when unweighted vertices follow it.
const SCENE_ROOT_BONE: &str = "(scene root)";

/// The runtime skeleton and where its bones come from.
struct Skeleton {
    /// Parent-first.
    bones: Vec<Bone>,
    /// Node typed id -> bone index.
    bone_of_node: HashMap<u32, usize>,
    /// Node typed id -> the bone's bind transform in the file's world space.
    bind_of_node: HashMap<u32, Affine>,
}

/// The bones: cluster nodes and the nodes props follow.
fn skeleton(p: &str, scene: &ufbx::Scene, meshes: &[MeshInstance], conv: &Affine) -> Result<Skeleton, ImportError> {
    let mut bind_of_node: HashMap<u32, Affine> = HashMap::new();
    for m in meshes {
        let Binding::Skin(skin) = m.binding else { continue };
        for cluster in skin.clusters.as_ref().iter() {
            // The mesh's own bind placement must be invertible. It only ever moves points (it is never
            // split into translation, rotation and scale), so it may shear: the inverse of a bone's
            // bind with non-uniform scale (MotionBuilder's RrSs, Maya's segment scale compensate) does.
            let bone_name = cluster.bone_node.as_ref().map(|n| n.element.name.to_string()).unwrap_or_default();
            if let Err(d @ Degenerate::Singular { .. }) = Affine::from_ufbx(&cluster.geometry_to_bone).check() {
                return Err(degenerate(p, &m.node.element.name, &format!("bind pose (mesh geometry to bone '{bone_name}')"), d));
            }
            if let Some(node) = cluster.bone_node.as_ref() {
                bind_of_node.entry(node.element.typed_id).or_insert_with(|| Affine::from_ufbx(&cluster.bind_to_world));
            }
        }
    }
    // A bone only props (or unweighted vertices) follow has no cluster: its bind is where the file places it.
    for m in meshes {
        let node = match (m.binding, m.unweighted_bone) {
            (Binding::Prop(node), _) | (Binding::Skin(_), Some(node)) => node,
            (Binding::Skin(_), None) => continue,
        };
        bind_of_node.entry(node.element.typed_id).or_insert_with(|| Affine::from_ufbx(&node.node_to_world));
    }
    let mut bones = Vec::new();
    let mut bone_of_node = HashMap::new();
    // Depth-first walk with the nearest bone ancestor carried along.
    let mut stack: Vec<(&ufbx::Node, Option<usize>)> = vec![(&scene.root_node, None)];
    while let Some((node, parent)) = stack.pop() {
        let mut here = parent;
        if let Some(bind_world) = bind_of_node.get(&node.element.typed_id) {
            // The scene's root is a bone only for unweighted vertices of a mesh with no bone above it.
            let name = if node.is_root { SCENE_ROOT_BONE.to_string() } else { node.element.name.to_string() };
            let g = conv.mul(bind_world);
            g.check().map_err(|d| degenerate_node(p, &name, "bind pose (skin cluster bind matrix)", node, d))?;
            let scale = g.decompose().map_err(|d| degenerate(p, &name, "bind pose", d))?.scale;
            bone_of_node.insert(node.element.typed_id, bones.len());
            here = Some(bones.len());
            bones.push(Bone { name, parent, bind: g.unscaled(scale), bind_scale: scale });
        }
        for child in node.children.as_ref().iter().rev() {
            stack.push((child, here));
        }
    }
    Ok(Skeleton { bones, bone_of_node, bind_of_node })
}

/// Every mesh's vertices, each on one bone (skinned meshes: the strongest influence; props: their bone).
#[derive(Default)]
struct BoundVertices {
    vertices: Vec<Vertex>,
    weights: WeightReduction,
    /// Per vertex: its strongest cluster (None in props, and for a skinned mesh's unweighted vertices).
    clusters: Vec<Option<usize>>,
    props: Vec<Prop>,
    /// Skinned meshes' vertices without a weight, which follow the mesh's node: (mesh, count, first
    /// vertex, bone name).
    unweighted: Vec<(String, usize, usize, String)>,
}

fn bind_vertices(
    p: &str,
    meshes: &[MeshInstance],
    bone_of_node: &HashMap<u32, usize>,
    bind_of_node: &HashMap<u32, Affine>,
    conv: &Affine,
) -> Result<BoundVertices, ImportError> {
    let mut out = BoundVertices::default();
    for m in meshes {
        match m.binding {
            Binding::Skin(skin) => reduce_skin(p, m, skin, bone_of_node, bind_of_node, conv, &mut out)?,
            Binding::Prop(node) => {
                let mesh_name = m.node.element.name.to_string();
                let bone = bone_of_node[&node.element.typed_id];
                // Rigidly attached, the prop sits on its bone the same way at every time: measured in the
                // scene as loaded, then put on the bone's bind.
                let bone_world = Affine::from_ufbx(&node.node_to_world);
                bone_world.check().map_err(|d| {
                    degenerate(p, &node.element.name, &format!("the file's rest placement (prop '{mesh_name}')"), d)
                })?;
                let on_bone = bone_world.inverse().mul(&Affine::from_ufbx(&m.node.geometry_to_world));
                let to_model = conv.mul(&bind_of_node[&node.element.typed_id]).mul(&on_bone);
                for (v, pos) in m.mesh.vertices.iter().enumerate() {
                    out.vertices.push(Vertex {
                        bind: to_model.apply([pos.x, pos.y, pos.z]),
                        bone,
                        second: None,
                        second_fix: Affine::IDENTITY,
                        mesh: mesh_name.clone(),
                        source_index: v,
                    });
                    out.clusters.push(None);
                }
                out.props.push(Prop { mesh: mesh_name, bone, vertices: m.mesh.num_vertices });
            }
        }
    }
    Ok(out)
}

/// Strongest-bone vertices of a skinned mesh, appended with their strongest cluster index.
///
/// A vertex's bind position is its place on the bone (the cluster's `geometry_to_bone`) put on the
/// bone's bind, the one the skeleton uses: meshes bound at different bind poses (each cluster its own
/// `TransformLink`) then all sit on one consistent skeleton, as ufbx's evaluation places them.
fn reduce_skin(
    p: &str,
    m: &MeshInstance,
    skin: &ufbx::SkinDeformer,
    bone_of_node: &HashMap<u32, usize>,
    bind_of_node: &HashMap<u32, Affine>,
    conv: &Affine,
    out: &mut BoundVertices,
) -> Result<(), ImportError> {
    let report = &mut out.weights;
    let mesh_name = m.node.element.name.to_string();
    let (mut unweighted, mut first_unweighted) = (0usize, None);
    // Unweighted vertices stay on the mesh's node: rigidly on the bone it hangs under, as props do.
    let on_node = m.unweighted_bone.map(|node| {
        let on_bone = Affine::from_ufbx(&node.node_to_world).inverse().mul(&Affine::from_ufbx(&m.node.geometry_to_world));
        (bone_of_node[&node.element.typed_id], conv.mul(&bind_of_node[&node.element.typed_id]).mul(&on_bone), node)
    });
    for v in 0..m.mesh.num_vertices {
        if let Some((weight, cluster)) = negative_weight(skin, v) {
            let bone = cluster.bone_node.as_ref().map_or_else(|| cluster.element.name.to_string(), |n| n.element.name.to_string());
            return Err(ImportError::BadWeight { path: p.into(), mesh: mesh_name, vertex: v, bone, weight });
        }
        let usable = usable_weights(skin, v);
        let Some(strongest) = strongest_weight(skin, v) else {
            unweighted += 1;
            first_unweighted.get_or_insert(v);
            if let Some((bone, to_model, _)) = &on_node {
                let pos = m.mesh.vertices[v];
                out.vertices.push(Vertex { bind: to_model.apply([pos.x, pos.y, pos.z]), bone: *bone, second: None, second_fix: Affine::IDENTITY, mesh: mesh_name.clone(), source_index: v });
                out.clusters.push(None);
            }
            continue;
        };
        if usable.len() > 1 {
            report.reduced_vertices += 1;
            let largest = usable.iter().filter(|w| !std::ptr::eq(**w, strongest)).map(|w| w.weight).fold(0.0, f64::max);
            report.largest_dropped_weight = report.largest_dropped_weight.max(largest);
        }
        if usable.len() > 2 {
            let mut w: Vec<f64> = usable.iter().map(|w| w.weight).collect();
            w.sort_by(|a, b| b.total_cmp(a));
            report.beyond_two_vertices += 1;
            report.largest_dropped_beyond_two = report.largest_dropped_beyond_two.max(w[2]);
        }
        let cluster: &ufbx::SkinCluster = &skin.clusters[strongest.cluster_index as usize];
        let node = cluster.bone_node.as_ref().expect("filtered above");
        let bone = bone_of_node[&node.element.typed_id];
        let bone_bind = bind_of_node.get(&node.element.typed_id).copied().unwrap_or_else(|| Affine::from_ufbx(&cluster.bind_to_world));
        let world = bone_bind.mul(&Affine::from_ufbx(&cluster.geometry_to_bone));
        let pos = m.mesh.vertices[v];
        // The second strongest influence (ties: the lower cluster index), its share of the two.
        let mut second_fix = Affine::IDENTITY;
        let second = usable
            .iter()
            .filter(|w| !std::ptr::eq(**w, strongest))
            .max_by(|a, b| a.weight.total_cmp(&b.weight).then(b.cluster_index.cmp(&a.cluster_index)))
            .and_then(|w| {
                let other_cluster: &ufbx::SkinCluster = &skin.clusters[w.cluster_index as usize];
                let node = other_cluster.bone_node.as_ref()?;
                let other = bone_of_node[&node.element.typed_id];
                let other_bind =
                    bind_of_node.get(&node.element.typed_id).copied().unwrap_or_else(|| Affine::from_ufbx(&other_cluster.bind_to_world));
                // Model from geometry through each cluster: the second's place from the first's.
                let through = |bind: Affine, g2b: &ufbx::Matrix| conv.mul(&bind).mul(&Affine::from_ufbx(g2b));
                second_fix = through(other_bind, &other_cluster.geometry_to_bone).mul(&through(bone_bind, &cluster.geometry_to_bone).inverse());
                (other != bone).then_some((other, w.weight / (w.weight + strongest.weight)))
            });
        out.vertices.push(Vertex {
            bind: conv.mul(&world).apply([pos.x, pos.y, pos.z]),
            bone,
            second,
            second_fix,
            mesh: mesh_name.clone(),
            source_index: v,
        });
        out.clusters.push(Some(strongest.cluster_index as usize));
    }
    if let (true, Some((_, _, node))) = (unweighted > 0, &on_node) {
        let bone = if node.is_root { SCENE_ROOT_BONE.to_string() } else { node.element.name.to_string() };
        out.unweighted.push((mesh_name, unweighted, first_unweighted.unwrap_or(0), bone));
    } else if unweighted > 0 {
        return Err(ImportError::UnweightedVertices {
            path: p.into(),
            mesh: mesh_name,
            count: unweighted,
            first: first_unweighted.unwrap_or(0),
        });
    }
    Ok(())
}

/// A negative weight of vertex `v` (and its cluster): no skinning can place that vertex.
fn negative_weight(skin: &ufbx::SkinDeformer, v: usize) -> Option<(f64, &ufbx::SkinCluster)> {
    let sv = skin.vertices.get(v).copied().unwrap_or_default();
    let begin = sv.weight_begin as usize;
    let weights = skin.weights.get(begin..begin + sv.num_weights as usize).unwrap_or(&[]);
    weights.iter().find(|w| w.weight < -WEIGHT_EPSILON).and_then(|w| Some((w.weight, &**skin.clusters.get(w.cluster_index as usize)?)))
}

/// The weights of vertex `v` that count: above the epsilon, on a cluster with a bone.
fn usable_weights(skin: &ufbx::SkinDeformer, v: usize) -> Vec<&ufbx::SkinWeight> {
    let sv = skin.vertices.get(v).copied().unwrap_or_default();
    let begin = sv.weight_begin as usize;
    let weights = skin.weights.get(begin..begin + sv.num_weights as usize).unwrap_or(&[]);
    weights
        .iter()
        .filter(|w| w.weight > WEIGHT_EPSILON)
        .filter(|w| skin.clusters.get(w.cluster_index as usize).and_then(|c| c.bone_node.as_ref()).is_some())
        .collect()
}

/// The strongest usable weight of vertex `v` (ties: the lower cluster index); None when it has none.
fn strongest_weight(skin: &ufbx::SkinDeformer, v: usize) -> Option<&ufbx::SkinWeight> {
    usable_weights(skin, v)
        .into_iter()
        .max_by(|a, b| a.weight.total_cmp(&b.weight).then(b.cluster_index.cmp(&a.cluster_index)))
}

/// The material's base-colour texture (PBR base colour, else the FBX diffuse colour's), with its
/// embedded content and the file names the FBX gives for it.
fn base_texture(mat: &ufbx::Material) -> Option<TextureRef> {
    let t: &ufbx::Texture = mat.pbr.base_color.texture.as_ref().or(mat.fbx.diffuse_color.texture.as_ref())?;
    let mut paths: Vec<String> = Vec::new();
    for p in [&t.relative_filename, &t.absolute_filename, &t.filename] {
        if !p.is_empty() && !paths.iter().any(|q| q == &**p) {
            paths.push(p.to_string());
        }
    }
    let embedded = (!t.content.is_empty()).then(|| t.content.to_vec());
    let name = paths.first().cloned().unwrap_or_else(|| t.element.name.to_string());
    Some(TextureRef { name, embedded, paths })
}

/// Each triangle's corners' UVs, or None (`Character::uvs`).
type CornerUvs = Vec<Option<[[f64; 2]; 3]>>;

/// Triangles (fans/ear-clipping by ufbx) with global material indices and their corners' UVs (see
/// `Character::uvs`; empty when no mesh has UVs); `flip` re-winds them.
fn triangulate(meshes: &[MeshInstance], flip: bool) -> (Vec<Triangle>, Vec<Material>, CornerUvs) {
    let mut triangles = Vec::new();
    let mut uvs = Vec::new();
    let mut materials: Vec<Material> = Vec::new();
    let mut material_of_element: HashMap<u32, usize> = HashMap::new();
    for m in meshes {
        let mut local_materials = Vec::new();
        for mat in m.mesh.materials.as_ref().iter() {
            let index = *material_of_element.entry(mat.element.element_id).or_insert_with(|| {
                materials.push(Material { name: mat.element.name.to_string(), rgb: base_colour(mat), texture: base_texture(mat) });
                materials.len() - 1
            });
            local_materials.push(index);
        }
        let default_material = |materials: &mut Vec<Material>| {
            if let Some(i) = materials.iter().position(|m| m.name == "(default)") {
                return i;
            }
            materials.push(Material { name: "(default)".into(), rgb: [128, 128, 128], texture: None });
            materials.len() - 1
        };
        let mut scratch = vec![0u32; m.mesh.max_face_triangles * 3];
        for (f, face) in m.mesh.faces.iter().enumerate() {
            if face.num_indices < 3 {
                continue;
            }
            let material = match m.mesh.face_material.get(f).and_then(|i| local_materials.get(*i as usize)) {
                Some(i) => *i,
                None => default_material(&mut materials),
            };
            let n = ufbx::triangulate_face(&mut scratch, m.mesh, *face) as usize;
            let uv_set = &m.mesh.vertex_uv;
            for tri in scratch[..n * 3].chunks(3) {
                let v = |k: usize| m.first_vertex + m.mesh.vertex_indices[tri[k] as usize] as usize;
                let order = if flip { [0, 2, 1] } else { [0, 1, 2] };
                triangles.push(Triangle { vertices: order.map(v), material });
                uvs.push(uv_set.exists.then(|| {
                    order.map(|k| {
                        let uv = uv_set.values[uv_set.indices[tri[k] as usize] as usize];
                        [uv.x, 1.0 - uv.y]
                    })
                }));
            }
        }
    }
    if uvs.iter().all(Option::is_none) {
        uvs.clear();
    }
    (triangles, materials, uvs)
}

fn base_colour(mat: &ufbx::Material) -> [u8; 3] {
    let map = if mat.fbx.diffuse_color.has_value { &mat.fbx.diffuse_color } else { &mat.pbr.base_color };
    let c = map.value_vec4;
    let to_u8 = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [to_u8(c.x), to_u8(c.y), to_u8(c.z)]
}

fn select_stacks<'s>(
    p: &str,
    scene: &'s ufbx::Scene,
    options: &ImportOptions,
) -> Result<Vec<(String, &'s ufbx::AnimStack)>, ImportError> {
    // ufbx adds a take named "(internal)" for animation stored outside any take of old files (FBX 5000
    // and earlier); it is not the file's, and becomes no clip when the file has takes of its own.
    let all_stacks: Vec<&ufbx::AnimStack> = scene.anim_stacks.as_ref().iter().map(|s| &**s).collect();
    let own: Vec<&ufbx::AnimStack> = all_stacks.iter().copied().filter(|s| &*s.element.name != INTERNAL_TAKE).collect();
    let stacks = if own.is_empty() { all_stacks } else { own };
    let names = clip_names(&stacks.iter().map(|s| &*s.element.name).collect::<Vec<_>>());
    let all: Vec<(String, &ufbx::AnimStack)> = names.into_iter().zip(stacks).collect();
    let Some(wanted) = &options.clips else { return Ok(all) };
    wanted
        .iter()
        .map(|name| {
            all.iter()
                .find(|(n, s)| n == name || &*s.element.name == name.as_str())
                .map(|(n, s)| (n.clone(), *s))
                .ok_or_else(|| ImportError::UnknownClip {
                    path: p.into(),
                    name: name.clone(),
                    available: all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                })
        })
        .collect()
}

/// The name ufbx gives the take it synthesises.
const INTERNAL_TAKE: &str = "(internal)";

/// The stack's declared time span, or the span of its keys when it declares an empty one (some
/// exporters leave LocalStart/LocalStop at 0).
fn clip_span(stack: &ufbx::AnimStack) -> (f64, f64) {
    if stack.time_end > stack.time_begin {
        return (stack.time_begin, stack.time_end);
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for layer in stack.layers.as_ref().iter() {
        for value in layer.anim_values.as_ref().iter() {
            for curve in value.curves.iter().flatten() {
                if !curve.keyframes.is_empty() {
                    lo = lo.min(curve.min_time);
                    hi = hi.max(curve.max_time);
                }
            }
        }
    }
    if hi > lo { (lo, hi) } else { (stack.time_begin, stack.time_end) }
}

/// `Armature|Walk` (Blender's object|action naming) -> `Walk`.
fn clip_name(stack: &str) -> String {
    stack.rsplit('|').next().unwrap_or(stack).to_string()
}

/// One unique clip name per stack. The short name is kept unless another stack shortens to the same
/// one (Blender with "all actions" + NLA strips writes both `Armature|Walk` and `Walk`); those keep
/// their full stack name, and stacks whose full names collide too get a `#2`, `#3`... suffix, so
/// that `--clips` and the summary can always tell clips apart.
fn clip_names(stacks: &[&str]) -> Vec<String> {
    let short: Vec<String> = stacks.iter().map(|s| clip_name(s)).collect();
    let mut names: Vec<String> = short
        .iter()
        .zip(stacks)
        .map(|(n, full)| if short.iter().filter(|m| *m == n).count() > 1 { full.to_string() } else { n.clone() })
        .collect();
    for i in 0..names.len() {
        let mut k = 1;
        while names[..i].contains(&names[i]) || (k > 1 && names[i + 1..].contains(&names[i])) {
            k += 1;
            names[i] = format!("{}#{k}", stacks[i]);
        }
    }
    names
}

fn sample_pose(
    p: &str,
    evaluated: &ufbx::Scene,
    bones: &[Bone],
    bone_of_node: &HashMap<u32, usize>,
    conv: &Affine,
    context: &str,
) -> Result<Vec<Affine>, ImportError> {
    let mut pose = vec![Affine::IDENTITY; bones.len()];
    for node in evaluated.nodes.as_ref().iter() {
        let Some(&b) = bone_of_node.get(&node.element.typed_id) else { continue };
        let g = conv.mul(&Affine::from_ufbx(&node.node_to_world));
        g.check().map_err(|d| degenerate_node(p, &bones[b].name, context, node, d))?;
        pose[b] = g.unscaled(bones[b].bind_scale);
    }
    // Parent-relative transforms may shear where ufbx's inheritance modes (Maya's segment scale
    // compensate, MotionBuilder's RrSs) undo a parent's non-uniform scale while the world matrices
    // above do not: baked-vertices stores ufbx's positions and does not care; rigid-gte, which stores
    // parent-relative samples, checks them when it compiles.
    Ok(pose)
}

/// ufbx's own positions of every vertex: on its strongest cluster, and fully skinned. A prop's vertices
/// are where ufbx puts its mesh node in the evaluated scene (both figures). With
/// `skin_follows_mesh_node` (files from Maya), the skinned positions also take the mesh node's move
/// since binding (its geometry-to-world now times the inverse of the skin's bind placement of the
/// mesh, `TransformLink * Transform`), as Maya shows them; identity when the node did not move.
/// `skeleton_move`: the move the skeleton carries this frame (files from Maya whose skinned meshes all
/// moved alike): it is the skinned meshes' own, and their rigid positions take it too.
fn reference_positions(
    evaluated: &ufbx::Scene,
    meshes: &[MeshInstance],
    clusters: &[Option<usize>],
    conv: &Affine,
    skin_follows_mesh_node: bool,
    skeleton_move: Option<&Affine>,
) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let mut rigid = Vec::new();
    let mut skinned = Vec::new();
    for m in meshes {
        let mesh: &ufbx::Mesh = &evaluated.meshes[m.mesh.element.typed_id as usize];
        let node: &ufbx::Node = &evaluated.nodes[m.node.element.typed_id as usize];
        let local_to_model = conv.mul(&Affine::from_ufbx(&node.geometry_to_world));
        let Binding::Skin(_) = m.binding else {
            for pos in mesh.vertices.iter() {
                rigid.push(local_to_model.apply([pos.x, pos.y, pos.z]));
            }
            skinned.extend_from_slice(&rigid[rigid.len() - mesh.num_vertices..]);
            continue;
        };
        let skin: &ufbx::SkinDeformer = &mesh.skin_deformers[0];
        let node_move = match (skin_follows_mesh_node, skin.clusters.first()) {
            (true, Some(c0)) => {
                let bound = Affine::from_ufbx(&c0.bind_to_world).mul(&Affine::from_ufbx(&c0.geometry_to_bone));
                Some(Affine::from_ufbx(&node.geometry_to_world).mul(&bound.inverse()))
            }
            _ => None,
        };
        for v in 0..mesh.num_vertices {
            let pos = mesh.vertices[v];
            let Some(cluster) = clusters[m.first_vertex + v] else {
                // An unweighted vertex stays on the mesh's node (ufbx leaves it unskinned): both ways.
                let on_node = local_to_model.apply([pos.x, pos.y, pos.z]);
                rigid.push(on_node);
                skinned.push(on_node);
                continue;
            };
            let cluster: &ufbx::SkinCluster = &skin.clusters[cluster];
            let on_bone = Affine::from_ufbx(&cluster.geometry_to_world);
            let on_bone = skeleton_move.map_or(on_bone, |m| m.mul(&on_bone));
            rigid.push(conv.mul(&on_bone).apply([pos.x, pos.y, pos.z]));
            let s = mesh.skinned_position.values.get(v).copied().unwrap_or(pos);
            let s = [s.x, s.y, s.z];
            let world = if mesh.skinned_is_local { Affine::from_ufbx(&node.geometry_to_world).apply(s) } else { s };
            skinned.push(conv.apply(node_move.as_ref().map_or(world, |m| m.apply(world))));
        }
    }
    (rigid, skinned)
}

/// Largest per-axis distance (GTE units) a prop may have from where its bone carries it: Blender's
/// single-precision matrices put it within a thousandth of a unit; the rigid accuracy threshold is 2.
const PROP_DRIFT_LIMIT: f64 = 0.5;

/// Fails when a prop moves relative to its bone (keys on the prop or on a node between it and the bone):
/// its vertices only follow the bone, so the motion would be lost.
fn check_props_follow(
    p: &str,
    evaluated: &ufbx::Scene,
    meshes: &[MeshInstance],
    reference: &[[f64; 3]],
    conv: &Affine,
    context: &str,
) -> Result<(), ImportError> {
    for m in meshes {
        let Binding::Prop(bone) = m.binding else { continue };
        let on_bone =
            Affine::from_ufbx(&bone.node_to_world).inverse().mul(&Affine::from_ufbx(&m.node.geometry_to_world));
        let carried = conv.mul(&Affine::from_ufbx(&evaluated.nodes[bone.element.typed_id as usize].node_to_world));
        let carried = carried.mul(&on_bone);
        let drift = m
            .mesh
            .vertices
            .iter()
            .zip(&reference[m.first_vertex..])
            .map(|(v, r)| {
                let c = carried.apply([v.x, v.y, v.z]);
                (0..3).map(|k| (c[k] - r[k]).abs()).fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        if drift > PROP_DRIFT_LIMIT {
            return Err(ImportError::PropMoves {
                path: p.into(),
                mesh: m.node.element.name.to_string(),
                bone: bone.element.name.to_string(),
                context: context.into(),
                units: drift,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{character_nodes, clip_names, non_uniform};

    /// A scene of three top-level nodes: an empty (a helper), a camera and a light.
    const HELPER_CAMERA_LIGHT: &str = r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {
    FBXHeaderVersion: 1003
    FBXVersion: 7400
}
Objects:  {
    Model: 1001, "Model::Helper", "Null" {
    }
    NodeAttribute: 2001, "NodeAttribute::Camera", "Camera" {
        TypeFlags: "Camera"
    }
    Model: 1002, "Model::Camera", "Camera" {
    }
    NodeAttribute: 2002, "NodeAttribute::Light", "Light" {
        TypeFlags: "Light"
    }
    Model: 1003, "Model::Light", "Light" {
    }
}
Connections:  {
    C: "OO",1001,0
    C: "OO",1002,0
    C: "OO",1003,0
    C: "OO",2001,1002
    C: "OO",2002,1003
}
"#;

    #[test]
    fn cameras_and_lights_do_not_count_against_the_node_limit() {
        let scene = ufbx::load_memory(HELPER_CAMERA_LIGHT.as_bytes(), ufbx::LoadOpts::default()).unwrap();
        // The file parsed as written: root + 3 nodes, one camera, one light.
        assert_eq!((scene.nodes.len(), scene.cameras.len(), scene.lights.len()), (4, 1, 1));
        assert_eq!(character_nodes(&scene), 1);
    }

    #[test]
    fn non_uniform_scale_is_told_apart_from_uniform_and_mirrored_scale() {
        assert!(non_uniform(1.0, 2.0, 0.5).is_some());
        assert!(non_uniform(1.0, 1.0, 1.002).is_some());
        assert_eq!(non_uniform(2.0, 2.0, 2.0), None);
        // A mirror is not a stretch.
        assert_eq!(non_uniform(-1.0, 1.0, 1.0), None);
        assert_eq!(non_uniform(0.0, 0.0, 0.0), None);
    }

    #[test]
    fn clip_names_strip_the_object_prefix_when_unique() {
        assert_eq!(clip_names(&["Armature|Idle", "Armature|Walk"]), ["Idle", "Walk"]);
    }

    #[test]
    fn clip_names_keep_full_names_when_short_names_collide() {
        // Blender, all actions + NLA strips: the actions and the strips' tracks share action names.
        assert_eq!(
            clip_names(&["Rig|Wave", "Rig|Nod", "Wave", "Nod", "Rig|Idle"]),
            ["Rig|Wave", "Rig|Nod", "Wave", "Nod", "Idle"]
        );
    }

    #[test]
    fn clip_names_number_identical_stack_names() {
        assert_eq!(clip_names(&["Take 001", "Take 001", "Take 001"]), ["Take 001", "Take 001#2", "Take 001#3"]);
    }
}
