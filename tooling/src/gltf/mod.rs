//! glTF 2.0 import (`.gltf` with `.bin` files or `data:` URIs, `.glb`) into the same canonical
//! character the FBX path produces ([`crate::fbx::Character`]), so that compilation, previews,
//! `inspect` and `--add-clips` treat both alike.
//!
//! # Convention (the FBX path's, see [`crate::fbx`])
//! - **Axes and units:** glTF is Y up, metres, right-handed, +Z toward the viewer, as Blender's
//!   default FBX export: model space is the file's space rotated by diag(1, -1, -1), 1 m = 4096 GTE
//!   units; triangles keep their winding.
//! - **Bind pose:** a joint's bind is the inverse of its inverse bind matrix (identity without
//!   them), placed where the scene draws the skin at rest (its root joint's rest world transform
//!   times that joint's inverse bind matrix: identity for Blender's world-space matrices, the `Z_UP`
//!   node and centimetre scale of COLLADA2GLTF's and Maya's exports); each vertex's bind position is
//!   its strongest joint's bind times that joint's inverse bind matrix times the vertex. The skinned
//!   mesh node's own transform plays no part, as the specification says. Bind scale is removed as in
//!   the FBX path ([`skin`]).
//! - **Bones:** the joints of the skins the meshes use, and the nodes props follow, parent-first in
//!   the scene's hierarchy ([`skin`]); nodes above or between them (armature objects, a skeleton root
//!   that is no joint, animated or not) are folded into the bones' model-space transforms.
//! - **Clips:** every animation (or those named by `--clips`), sampled from its first key to its last
//!   at the import rate ([`animation`]); losses are warnings. Each frame also carries this module's own
//!   evaluation of the glTF (each vertex on its strongest joint, and linear-blend skinning of every
//!   weight), which the compiler's accuracy check compares the tables with.
//! - **Refused** with the file and the node or accessor named ([`GltfError`]): truncated GLBs, buffers
//!   outside the document's folder or missing, accessors out of range or of the wrong type, non-finite
//!   numbers, joint indices past the skin, points and lines, morph targets a clip animates (or whose
//!   default weights are not 0); unanimated morph targets are ignored with a warning.
//! - **Events:** none (glTF has no place for them).

mod animation;
pub mod buffers;
mod error;
mod mesh;
mod nodes;
mod skin;

use std::collections::HashSet;
use std::path::Path;

pub use error::GltfError;

use crate::fbx::error::check_range;
use crate::fbx::limits::*;
use crate::fbx::{Affine, Character, Clip, ImportError, ImportOptions, Prop, Vertex, WeightReduction};
use mesh::Binding;

/// Whether `path` is a glTF file: the GLB magic, or a `.gltf` / `.glb` extension.
pub fn is_gltf(path: &Path, bytes: &[u8]) -> bool {
    bytes.starts_with(b"glTF")
        || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

/// glTF space (Y up, metres) to model space (PSX axes, GTE units).
pub fn file_to_model() -> Affine {
    let s = GTE_UNITS_PER_METRE;
    Affine::linear([[s, 0.0, 0.0], [0.0, -s, 0.0], [0.0, 0.0, -s]])
}

/// Loads `path`, validates it against the profile and samples its clips.
pub fn import(path: &Path, options: &ImportOptions, progress: &mut dyn FnMut(&str, usize, usize)) -> Result<Character, GltfError> {
    let p = path.display().to_string();
    if options.rate == 0 || options.rate > 60 {
        return Err(ImportError::BadRate { path: p, rate: options.rate }.into());
    }
    let src = buffers::open(path)?;
    from_source(&src, options, progress)
}

/// [`import`] of bytes in memory (external buffers refused): the fuzz target's and property tests' entry.
pub fn import_bytes(name: &str, bytes: &[u8], options: &ImportOptions) -> Result<Character, GltfError> {
    let src = buffers::parse(name, bytes, None)?;
    from_source(&src, options, &mut |_, _, _| {})
}

fn from_source(src: &buffers::Source, options: &ImportOptions, progress: &mut dyn FnMut(&str, usize, usize)) -> Result<Character, GltfError> {
    let p = src.path.clone();
    let conv = options.scaled(file_to_model());
    let nodes = nodes::Nodes::of(&p, &src.doc)?;
    let rest_world = nodes.world(&p, &[])?;

    // Mesh nodes (those `--meshes` / `--skip-mesh` choose, by node name) and their skins.
    // The name every message and the vertices' labels use (`node<index>` for a node without one).
    let name_of = |node: &gltf::Node| nodes.names[node.index()].clone();
    let mesh_names: Vec<String> = src.doc.nodes().filter(|n| n.mesh().is_some()).map(|n| name_of(&n)).collect();
    for (option, wanted) in [("--meshes", options.meshes.as_deref().unwrap_or(&[])), ("--skip-mesh", &options.skip_meshes[..])] {
        if let Some(unknown) = wanted.iter().find(|w| !mesh_names.contains(w)) {
            return Err(ImportError::UnknownMesh { path: p, option, name: unknown.clone(), available: mesh_names.join(", ") }.into());
        }
    }
    let chosen = |name: &str| {
        options.meshes.as_ref().is_none_or(|m| m.iter().any(|w| w == name)) && !options.skip_meshes.iter().any(|w| w == name)
    };
    let mut skins: Vec<skin::Skin> = Vec::new();
    let mut mesh_nodes = Vec::new();
    for &n in &nodes.order {
        let node = src.doc.nodes().nth(n).expect("node index from the document");
        if node.mesh().is_none() || !chosen(&name_of(&node)) {
            continue;
        }
        if let Some(s) = node.skin() {
            let at = match skins.iter().position(|k| k.index == s.index()) {
                Some(at) => at,
                None => {
                    skins.push(skin::read_skin(src, &nodes, &s)?);
                    skins.len() - 1
                }
            };
            mesh_nodes.push((n, Binding::Skin(at)));
        } else {
            mesh_nodes.push((n, Binding::Prop(usize::MAX)));
        }
    }
    if mesh_nodes.is_empty() {
        return Err(ImportError::NoMesh { path: p }.into());
    }
    let joints: HashSet<usize> = skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    let holders: HashSet<usize> = joints.iter().flat_map(|j| nodes.ancestors(*j)).collect();
    let mut prop_nodes = Vec::new();
    let mut unbound = Vec::new();
    for (n, binding) in mesh_nodes.iter_mut() {
        if let Binding::Prop(_) = binding {
            let bone = nodes.ancestors(*n).find(|a| joints.contains(a)).or_else(|| nodes.ancestors(*n).find(|a| holders.contains(a)));
            let Some(bone) = bone else {
                let vertices = src.doc.nodes().nth(*n).and_then(|m| m.mesh()).map_or(0, |m| {
                    m.primitives().filter_map(|pr| pr.get(&gltf::Semantic::Positions)).map(|a| a.count()).sum()
                });
                unbound.push((nodes.names[*n].clone(), vertices));
                continue;
            };
            *binding = Binding::Prop(bone);
            prop_nodes.push(bone);
        }
    }
    if !unbound.is_empty() {
        if !options.skinned_only {
            return Err(crate::fbx::error::meshes_without_skin(&p, &unbound, "").into());
        }
        let names: HashSet<&String> = unbound.iter().map(|(name, _)| name).collect();
        mesh_nodes.retain(|(n, _)| !names.contains(&nodes.names[*n]));
        if mesh_nodes.is_empty() {
            return Err(ImportError::NoMesh { path: p }.into());
        }
    }
    let skeleton = skin::skeleton(&p, &nodes, &skins, &prop_nodes, &rest_world, &conv)?;
    let geo = mesh::geometry(src, &nodes, &mesh_nodes, &skins)?;

    // Vertices on their strongest bone, in model space at bind.
    let mut vertices = Vec::with_capacity(geo.vertices.len());
    let mut weights = WeightReduction::default();
    let mut props: Vec<Prop> = Vec::new();
    for v in &geo.vertices {
        let (bone_node, local) = match v.binding {
            Binding::Skin(s) => {
                let slot = v.joint_slots[0];
                if v.influences.len() > 1 {
                    weights.reduced_vertices += 1;
                    let dropped = v.influences[1..].iter().map(|(_, w)| *w).fold(0.0, f64::max);
                    weights.largest_dropped_weight = weights.largest_dropped_weight.max(dropped);
                }
                if let Some(&(_, third)) = v.influences.get(2) {
                    weights.beyond_two_vertices += 1;
                    weights.largest_dropped_beyond_two = weights.largest_dropped_beyond_two.max(third);
                }
                (v.influences[0].0, skins[s].inverse_bind[slot])
            }
            Binding::Prop(bone) => {
                // Rigidly on its bone, placed where the file puts it relative to that bone at rest.
                match props.last_mut() {
                    Some(last) if last.mesh == v.label => last.vertices += 1,
                    _ => props.push(Prop { mesh: v.label.clone(), bone: skeleton.bone_of_node[&bone], vertices: 1 }),
                }
                (bone, rest_world[bone].inverse().mul(&rest_world[v.mesh_node]))
            }
        };
        let bind = conv.mul(&skeleton.bind_of_node[&bone_node]).mul(&local).apply(v.position);
        let bone = skeleton.bone_of_node[&bone_node];
        // The second strongest influence and its share of the two (influences come strongest first).
        let mut second_fix = Affine::IDENTITY;
        let second = match (v.binding, v.influences.get(1)) {
            (Binding::Skin(s), Some(&(node, w))) => {
                // Model from mesh through each joint's inverse bind: the second's place from the first's.
                let through = |n: usize, slot: usize| conv.mul(&skeleton.bind_of_node[&n]).mul(&skins[s].inverse_bind[slot]);
                if skeleton.bind_of_node.contains_key(&node) {
                    second_fix = through(node, v.joint_slots[1]).mul(&through(bone_node, v.joint_slots[0]).inverse());
                }
                skeleton.bone_of_node.get(&node).copied().filter(|&b| b != bone).map(|b| (b, w / (w + v.influences[0].1)))
            }
            _ => None,
        };
        vertices.push(Vertex { bind, bone, second, second_fix, mesh: v.label.clone(), source_index: v.source_index });
    }

    let limit = |what, count, limit| if count > limit { Err(ImportError::TooMany { path: p.clone(), what, count, limit }) } else { Ok(()) };
    limit("vertices", vertices.len(), MAX_VERTICES)?;
    limit("triangles", geo.triangles.len(), MAX_TRIANGLES)?;
    limit("skeleton bones", skeleton.bones.len(), MAX_NODES)?;
    // The scene's nodes but cameras and the mesh nodes left out (`--meshes`, `--skip-mesh`, `--skinned-only`).
    let kept: HashSet<usize> = mesh_nodes.iter().map(|(n, _)| *n).collect();
    let scene_nodes = nodes
        .order
        .iter()
        .filter(|&&n| src.doc.nodes().nth(n).is_some_and(|x| x.camera().is_none() && (x.mesh().is_none() || kept.contains(&n))))
        .count();
    limit("nodes", scene_nodes, MAX_NODES)?;
    check_range(&p, &vertices, &vertices.iter().map(|v| v.bind).collect::<Vec<_>>(), "bind pose")?;

    let mut warnings = geo.warnings.clone();
    if !unbound.is_empty() {
        warnings.push(crate::fbx::error::skinned_only_warning(&unbound));
    }
    let animations = animation::animations(src, &nodes.names)?;
    for a in &animations {
        if let Some(&n) = a.morph_nodes.iter().find(|n| geo.morph_nodes.contains(n)) {
            return Err(GltfError::Node {
                path: p.clone(),
                node: n,
                name: nodes.names[n].clone(),
                message: format!("its morph target weights are animated by '{}'; morph targets are not supported (the console stores rigid or skinned vertices only)", a.name),
            });
        }
    }
    let selected = select(&p, &animations, options)?;
    limit("clips", selected.len(), MAX_CLIPS)?;
    let mut clips = Vec::new();
    for (name, a) in selected {
        let seconds = a.end - a.begin;
        if seconds > MAX_CLIP_SECONDS {
            return Err(ImportError::ClipTooLong { path: p.clone(), clip: name, seconds, limit: MAX_CLIP_SECONDS }.into());
        }
        warnings.extend(a.losses(options.rate, &nodes.names));
        let frames = (seconds * options.rate as f64).round() as usize + 1;
        let mut clip = Clip { name: name.clone(), rate: options.rate, poses: vec![], rigid_reference: vec![], skinned_reference: vec![], events: vec![] };
        for frame in 0..frames {
            progress(&name, frame, frames);
            let time = (a.begin + frame as f64 / options.rate as f64).min(a.end);
            let context = format!("clip '{name}' frame {frame} (t = {time:.3} s)");
            let world = nodes.world(&p, &a.overrides(nodes.names.len(), time))?;
            let mut pose = Vec::with_capacity(skeleton.bones.len());
            for (n, bone) in nodes.order.iter().filter_map(|n| skeleton.bone_of_node.get(n).map(|b| (*n, *b))) {
                let g = conv.mul(&world[n]);
                g.check().map_err(|d| skin::degenerate(&p, &nodes.names[n], &context, d))?;
                debug_assert_eq!(bone, pose.len());
                pose.push(g.unscaled(skeleton.bones[bone].bind_scale));
            }
            let (rigid, skinned) = reference(&geo.vertices, &skins, &world, &conv);
            check_range(&p, &vertices, &rigid, &context)?;
            check_props_follow(&p, &geo.vertices, &vertices, &skeleton, &world, &conv, &pose, &rigid, &nodes.names, &context)?;
            clip.poses.push(pose);
            clip.rigid_reference.push(rigid);
            clip.skinned_reference.push(skinned);
        }
        clips.push(clip);
    }
    Ok(Character {
        source: p,
        bones: skeleton.bones,
        vertices,
        triangles: geo.triangles,
        uvs: if geo.uvs.iter().all(Option::is_none) { Vec::new() } else { geo.uvs },
        materials: geo.materials,
        clips,
        weights,
        props,
        // Animated morph targets are refused above, in both storage modes (only the FBX path bakes them).
        blend_shapes: Vec::new(),
        instanced_skins: Vec::new(),
        warnings,
    })
}

/// This module's evaluation of every vertex: on its strongest joint, and with every weight (linear
/// blend skinning: the sum of weight x joint world x inverse bind matrix). Props: their node's world.
fn reference(raw: &[mesh::RawVertex], skins: &[skin::Skin], world: &[Affine], conv: &Affine) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let mut rigid = Vec::with_capacity(raw.len());
    let mut skinned = Vec::with_capacity(raw.len());
    for v in raw {
        match v.binding {
            Binding::Skin(s) => {
                let joint = |k: usize| world[v.influences[k].0].mul(&skins[s].inverse_bind[v.joint_slots[k]]);
                rigid.push(conv.apply(joint(0).apply(v.position)));
                let mut sum = [0.0; 3];
                for (k, (_, w)) in v.influences.iter().enumerate() {
                    let q = joint(k).apply(v.position);
                    for c in 0..3 {
                        sum[c] += w * q[c];
                    }
                }
                skinned.push(conv.apply(sum));
            }
            Binding::Prop(_) => {
                let q = conv.apply(world[v.mesh_node].apply(v.position));
                rigid.push(q);
                skinned.push(q);
            }
        }
    }
    (rigid, skinned)
}

/// Largest distance (GTE units) a prop may have from where its bone carries it (the FBX path's limit).
const PROP_DRIFT_LIMIT: f64 = 0.5;

/// Fails when a prop moves relative to its bone: its vertices only follow the bone.
#[allow(clippy::too_many_arguments)]
fn check_props_follow(
    p: &str,
    raw: &[mesh::RawVertex],
    vertices: &[Vertex],
    skeleton: &skin::Skeleton,
    _world: &[Affine],
    _conv: &Affine,
    pose: &[Affine],
    reference: &[[f64; 3]],
    names: &[String],
    context: &str,
) -> Result<(), GltfError> {
    for (i, v) in raw.iter().enumerate() {
        let Binding::Prop(bone_node) = v.binding else { continue };
        let b = skeleton.bone_of_node[&bone_node];
        let bone = &skeleton.bones[b];
        // Carried by the bone: pose * bind^-1 (both with the bind scale removed) applied to the bind position.
        let carried = pose[b].mul(&bone.bind.inverse()).apply(vertices[i].bind);
        let drift = (0..3).map(|k| (carried[k] - reference[i][k]).abs()).fold(0.0, f64::max);
        if drift > PROP_DRIFT_LIMIT {
            return Err(ImportError::PropMoves { path: p.into(), mesh: v.label.clone(), bone: names[bone_node].clone(), context: context.into(), units: drift }.into());
        }
    }
    Ok(())
}

/// The animations to import with their clip names (unique: a repeated name gets `#2`, `#3`...).
fn select<'a>(p: &str, animations: &'a [animation::Animation], options: &ImportOptions) -> Result<Vec<(String, &'a animation::Animation)>, GltfError> {
    let mut all: Vec<(String, &animation::Animation)> = Vec::new();
    for a in animations {
        let mut name = a.name.clone();
        let mut k = 1;
        while all.iter().any(|(n, _)| *n == name) {
            k += 1;
            name = format!("{}#{k}", a.name);
        }
        all.push((name, a));
    }
    let Some(wanted) = &options.clips else { return Ok(all) };
    wanted
        .iter()
        .map(|name| {
            all.iter().find(|(n, _)| n == name).map(|(n, a)| (n.clone(), *a)).ok_or_else(|| {
                ImportError::UnknownClip {
                    path: p.into(),
                    name: name.clone(),
                    available: all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                }
                .into()
            })
        })
        .collect()
}
