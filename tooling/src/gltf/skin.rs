//! Skins: their joints and inverse bind matrices, and the bones of the runtime skeleton.
//!
//! A joint's bind is the inverse of its inverse bind matrix (identity when the skin has none, as the
//! specification says), placed in the file's world space by the skin's placement ([`placement`]):
//! the inverse bind matrices of COLLADA2GLTF's and Maya's exports are relative to a node above the
//! rig (a `Z_UP` rotation, a centimetre scale), and their mesh data is in that node's space. Joints of every skin the meshes use become bones,
//! with the nodes props follow; a joint listed by several skins binds where the first lists it. The
//! bones are ordered parent-first by the scene's hierarchy, whatever the skins' joint order, and a
//! bone's parent is its nearest ancestor that is a bone: nodes in between (the armature object, a
//! skeleton root that is no joint) are folded into the world transforms.

use std::collections::HashMap;

use gltf::accessor::Dimensions;

use super::buffers::{Expect, Source, FLOAT};
use super::nodes::Nodes;
use super::GltfError;
use crate::fbx::{Affine, Bone, Degenerate};

/// A skin as the vertices use it.
pub struct Skin {
    pub index: usize,
    pub name: String,
    /// Node of each joint, in the skin's order (the order JOINTS_n index).
    pub joints: Vec<usize>,
    /// Inverse bind matrix of each joint.
    pub inverse_bind: Vec<Affine>,
    /// Whether the file gives the inverse bind matrices (without them they are identity).
    pub has_inverse_bind: bool,
}

pub fn read_skin(src: &Source, nodes: &Nodes, skin: &gltf::Skin) -> Result<Skin, GltfError> {
    let name = skin.name().map(str::to_string).unwrap_or_else(|| format!("skin{}", skin.index()));
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let inverse_bind = match skin.inverse_bind_matrices() {
        None => vec![Affine::IDENTITY; joints.len()],
        Some(acc) => {
            let usage = format!("inverse bind matrices of skin '{name}'");
            let m = src.read(&acc, &Expect { usage: usage.clone(), dimensions: &[Dimensions::Mat4], types: &[FLOAT] })?;
            if acc.count() < joints.len() {
                return Err(GltfError::Accessor {
                    path: src.path.clone(),
                    accessor: acc.index(),
                    name: acc.name().map(|n| format!(" '{n}'")).unwrap_or_default(),
                    usage,
                    message: format!("holds {} matrices; expected one per joint, {}", acc.count(), joints.len()),
                });
            }
            (0..joints.len())
                .map(|j| {
                    let c = |k: usize| [m[j * 16 + k * 4] as f32, m[j * 16 + k * 4 + 1] as f32, m[j * 16 + k * 4 + 2] as f32, m[j * 16 + k * 4 + 3] as f32];
                    super::nodes::affine_of([c(0), c(1), c(2), c(3)])
                })
                .collect()
        }
    };
    for (j, &node) in joints.iter().enumerate() {
        if !nodes.in_scene[node] {
            return Err(GltfError::Node {
                path: src.path.clone(),
                node,
                name: nodes.names[node].clone(),
                message: format!("is joint {j} of skin '{name}' but not in the scene"),
            });
        }
        if let Err(d) = inverse_bind[j].check() {
            let what = match d {
                Degenerate::Singular { .. } => "singular",
                Degenerate::Shear { .. } => "sheared",
            };
            return Err(GltfError::Node {
                path: src.path.clone(),
                node,
                name: nodes.names[node].clone(),
                message: format!("its inverse bind matrix in skin '{name}' (joint {j}) is {what}; expected a rotation, translation and scale"),
            });
        }
    }
    Ok(Skin { index: skin.index(), name, joints, inverse_bind, has_inverse_bind: skin.inverse_bind_matrices().is_some() })
}

/// The runtime skeleton.
pub struct Skeleton {
    pub bones: Vec<Bone>,
    /// Node index -> bone index.
    pub bone_of_node: HashMap<usize, usize>,
    /// Node index -> the bone's bind in the file's world space.
    pub bind_of_node: HashMap<usize, Affine>,
}

/// Bones from the skins' joints and the nodes props follow (with their rest world transform as bind).
pub fn skeleton(
    p: &str,
    nodes: &Nodes,
    skins: &[Skin],
    prop_nodes: &[usize],
    rest_world: &[Affine],
    conv: &Affine,
) -> Result<Skeleton, GltfError> {
    let mut bind_of_node: HashMap<usize, Affine> = HashMap::new();
    for skin in skins {
        let place = placement(nodes, skin, rest_world);
        for (j, &node) in skin.joints.iter().enumerate() {
            bind_of_node.entry(node).or_insert_with(|| place.mul(&skin.inverse_bind[j].inverse()));
        }
    }
    for &node in prop_nodes {
        bind_of_node.entry(node).or_insert(rest_world[node]);
    }
    let mut bones = Vec::new();
    let mut bone_of_node = HashMap::new();
    for &n in &nodes.order {
        let Some(bind) = bind_of_node.get(&n) else { continue };
        let parent = nodes.ancestors(n).find_map(|a| bone_of_node.get(&a).copied());
        let g = conv.mul(bind);
        let name = nodes.names[n].clone();
        let trs = g.decompose().map_err(|d| degenerate(p, &name, "bind pose (inverse bind matrix)", d))?;
        bone_of_node.insert(n, bones.len());
        bones.push(Bone { name, parent, bind: g.unscaled(trs.scale), bind_scale: trs.scale });
    }
    Ok(Skeleton { bones, bone_of_node, bind_of_node })
}

/// Where the scene puts the skin's bind space: its root joint's rest world transform times that
/// joint's inverse bind matrix, the transform that carries the mesh as stored to where the scene
/// draws it at rest. Identity when the inverse bind matrices are in world space, as Blender writes
/// them; the `Z_UP` node (and a centimetre scale) of COLLADA2GLTF's and Maya's exports, whose mesh
/// and inverse bind matrices are in that node's space. Binds and bind-pose vertices placed by it are
/// the character as the scene shows it at rest, so the profile's range check, the model's height and
/// bounds, and the bind pose that `--add-clips` keeps are those of the drawn character. A skin without
/// inverse bind matrices binds every joint at the origin, its vertices as stored: identity.
fn placement(nodes: &Nodes, skin: &Skin, rest_world: &[Affine]) -> Affine {
    if !skin.has_inverse_bind {
        return Affine::IDENTITY;
    }
    let Some((slot, &root)) = nodes.order.iter().find_map(|n| skin.joints.iter().enumerate().find(|(_, j)| *j == n)) else {
        return Affine::IDENTITY;
    };
    let place = rest_world[root].mul(&skin.inverse_bind[slot]);
    // Consistent skins keep their binds bit for bit.
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * (1.0 + b.abs());
    let identity = (0..3).all(|r| (0..3).all(|c| near(place.m[r][c], if r == c { 1.0 } else { 0.0 })) && near(place.t[r], 0.0));
    if identity {
        Affine::IDENTITY
    } else {
        place
    }
}

/// The FBX path's error for a transform that is no rotation, translation and scale.
pub fn degenerate(p: &str, node: &str, context: &str, d: Degenerate) -> GltfError {
    crate::fbx::error::degenerate(p, node, context, d).into()
}
