//! Mesh primitives to the character's vertices, triangles and materials.
//!
//! - Every primitive of every mesh node of the scene; POSITION is required. TRIANGLES, TRIANGLE_STRIP
//!   and TRIANGLE_FAN become triangles (strips alternate their winding as the specification says);
//!   points and lines are refused naming the node.
//! - The vertices the triangles use; within a mesh node (across its primitives), vertices with the
//!   same position and the same joints and weights are one vertex (exporters split them for normals
//!   and texture coordinates, which the tables do not hold), so that neighbouring triangles share
//!   edges. Triangles left with a repeated vertex are dropped.
//! - A skinned vertex keeps every influence (JOINTS_n / WEIGHTS_n, weights normalised to sum 1) for
//!   the true-skinning reference, and its strongest one (ties to the lower joint) as its bone.
//! - A mesh node without a skin is a prop on its nearest joint ancestor, or failing one its nearest
//!   ancestor holding joints, as in the FBX path.
//! - Materials: `baseColorFactor` (linear 0..1) times 255; the base-colour texture's image is
//!   remembered by URI or name. A primitive without a material gets "(default)", grey.

use std::collections::HashMap;

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;

use super::buffers::{Expect, Source, FLOAT};
use super::nodes::Nodes;
use super::skin::Skin;
use super::GltfError;
use crate::fbx::{ImportError, Material, TextureRef, Triangle};

/// Weights at or below this are treated as absent.
const WEIGHT_EPSILON: f64 = 1e-6;

/// How a mesh node's vertices follow the skeleton.
#[derive(Clone, Copy, Debug)]
pub enum Binding {
    /// Index into the skins.
    Skin(usize),
    /// A prop on this node.
    Prop(usize),
}

/// One vertex of a primitive, before it is put on the skeleton.
#[derive(Clone, Debug)]
pub struct RawVertex {
    /// Position in the mesh's space (file units).
    pub position: [f64; 3],
    /// Node and weight of each influence (normalised), strongest first; empty for props.
    pub influences: Vec<(usize, f64)>,
    /// Inverse bind matrix index of each influence in its skin (same order).
    pub joint_slots: Vec<usize>,
    pub mesh_node: usize,
    pub binding: Binding,
    /// "Body" or "Body primitive 1".
    pub label: String,
    pub source_index: usize,
}

pub struct Geometry {
    pub vertices: Vec<RawVertex>,
    pub triangles: Vec<Triangle>,
    /// Each triangle's corners' TEXCOORD_0 (see `Character::uvs`).
    pub uvs: Vec<Option<[[f64; 2]; 3]>>,
    pub materials: Vec<Material>,
    /// Warnings (morph targets ignored).
    pub warnings: Vec<String>,
    /// Mesh nodes with morph targets.
    pub morph_nodes: Vec<usize>,
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

pub fn geometry(
    src: &Source,
    nodes: &Nodes,
    meshes: &[(usize, Binding)],
    skins: &[Skin],
) -> Result<Geometry, GltfError> {
    let p = &src.path;
    let mut g = Geometry { vertices: vec![], triangles: vec![], uvs: vec![], materials: vec![], warnings: vec![], morph_nodes: vec![] };
    let mut material_index: HashMap<Option<usize>, usize> = HashMap::new();
    for &(node_index, binding) in meshes {
        let node = src.doc.nodes().nth(node_index).expect("mesh node index from the document");
        let mesh = node.mesh().expect("a mesh node");
        let node_name = &nodes.names[node_index];
        let node_err = |message: String| GltfError::Node { path: p.clone(), node: node_index, name: node_name.clone(), message };
        let primitives: Vec<gltf::Primitive> = mesh.primitives().collect();
        let mesh_name = mesh.name().map(str::to_string).unwrap_or_else(|| format!("mesh{}", mesh.index()));
        let targets: usize = primitives.iter().map(|pr| pr.morph_targets().count()).max().unwrap_or(0);
        if targets > 0 {
            let weights = node.weights().or(mesh.weights()).unwrap_or(&[]);
            if weights.iter().any(|w| *w != 0.0) {
                return Err(node_err(format!(
                    "mesh '{mesh_name}' has {targets} morph target(s) with default weights {weights:?}; morph targets are not supported (set the weights to 0 or apply the shapes)"
                )));
            }
            g.morph_nodes.push(node_index);
            g.warnings.push(format!("node '{node_name}': mesh '{mesh_name}' has {targets} morph target(s); ignored (no clip animates them)"));
        }
        // Vertex of the node by exact position and influences (skin slot, weight bits).
        let mut welded: HashMap<Vec<u64>, usize> = HashMap::new();
        for (k, prim) in primitives.iter().enumerate() {
            let label = if primitives.len() > 1 { format!("{node_name} primitive {k}") } else { node_name.clone() };
            let what = format!("mesh node '{node_name}' primitive {k}");
            let mode = prim.mode();
            if !matches!(mode, Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
                return Err(node_err(format!(
                    "mesh '{mesh_name}' primitive {k} draws {}; only triangles (TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN) are supported",
                    mode_name(mode)
                )));
            }
            let pos_acc = prim.get(&gltf::Semantic::Positions).ok_or_else(|| node_err(format!("mesh '{mesh_name}' primitive {k} has no POSITION")))?;
            let positions = src.read(&pos_acc, &Expect { usage: format!("POSITION of {what}"), dimensions: &[Dimensions::Vec3], types: &[FLOAT] })?;
            let count = pos_acc.count();
            // Influences per glTF vertex: (slot in the skin, weight).
            let mut influences: Vec<Vec<(usize, f64)>> = vec![Vec::new(); count];
            if let Binding::Skin(s) = binding {
                let skin = &skins[s];
                let mut set = 0;
                while let (Some(ja), Some(wa)) = (prim.get(&gltf::Semantic::Joints(set)), prim.get(&gltf::Semantic::Weights(set))) {
                    let joints = src.read(&ja, &Expect {
                        usage: format!("JOINTS_{set} of {what}"),
                        dimensions: &[Dimensions::Vec4],
                        types: &[(DataType::U8, Some(false)), (DataType::U16, Some(false))],
                    })?;
                    let weights = src.read(&wa, &Expect {
                        usage: format!("WEIGHTS_{set} of {what}"),
                        dimensions: &[Dimensions::Vec4],
                        types: &[FLOAT, (DataType::U8, Some(true)), (DataType::U16, Some(true))],
                    })?;
                    for (acc, n) in [(&ja, joints.len() / 4), (&wa, weights.len() / 4)] {
                        if n != count {
                            return Err(accessor_err(p, acc, format!("JOINTS_{set}/WEIGHTS_{set} of {what}"), format!("holds {n} elements; expected one per vertex, {count}")));
                        }
                    }
                    for v in 0..count {
                        for c in 0..4 {
                            let (j, w) = (joints[v * 4 + c] as usize, weights[v * 4 + c]);
                            if w <= WEIGHT_EPSILON {
                                continue;
                            }
                            if j >= skin.joints.len() {
                                return Err(accessor_err(p, &ja, format!("JOINTS_{set} of {what}"), format!(
                                    "vertex {v} names joint {j}; skin '{}' has {} joints (0..{})",
                                    skin.name,
                                    skin.joints.len(),
                                    skin.joints.len().saturating_sub(1)
                                )));
                            }
                            if w < 0.0 {
                                return Err(accessor_err(p, &wa, format!("WEIGHTS_{set} of {what}"), format!("vertex {v} has weight {w}; expected 0 or more")));
                            }
                            match influences[v].iter_mut().find(|(s, _)| *s == j) {
                                Some(e) => e.1 += w,
                                None => influences[v].push((j, w)),
                            }
                        }
                    }
                    set += 1;
                }
                if set == 0 {
                    return Err(node_err(format!("mesh '{mesh_name}' primitive {k} has a skin but no JOINTS_0 and WEIGHTS_0")));
                }
                let unweighted: Vec<usize> = (0..count).filter(|v| influences[*v].is_empty()).collect();
                if let Some(&first) = unweighted.first() {
                    return Err(GltfError::Profile(ImportError::UnweightedVertices { path: p.clone(), mesh: label, count: unweighted.len(), first }));
                }
            }
            let texcoords = match prim.get(&gltf::Semantic::TexCoords(0)) {
                Some(acc) => {
                    let usage = format!("TEXCOORD_0 of {what}");
                    let t = src.read(&acc, &Expect {
                        usage: usage.clone(),
                        dimensions: &[Dimensions::Vec2],
                        types: &[FLOAT, (DataType::U8, Some(true)), (DataType::U16, Some(true))],
                    })?;
                    if t.len() / 2 != count {
                        return Err(accessor_err(p, &acc, usage, format!("holds {} elements; expected one per vertex, {count}", t.len() / 2)));
                    }
                    if let Some(i) = t.iter().position(|c| !c.is_finite()) {
                        return Err(accessor_err(p, &acc, usage, format!("vertex {} has a texture coordinate of {}", i / 2, t[i])));
                    }
                    Some(t)
                }
                None => None,
            };
            let indices: Vec<usize> = match prim.indices() {
                Some(acc) => {
                    let usage = format!("indices of {what}");
                    let raw = src.read(&acc, &Expect {
                        usage: usage.clone(),
                        dimensions: &[Dimensions::Scalar],
                        types: &[(DataType::U8, Some(false)), (DataType::U16, Some(false)), (DataType::U32, Some(false))],
                    })?;
                    if let Some(i) = raw.iter().position(|i| *i as usize >= count) {
                        return Err(accessor_err(p, &acc, usage, format!("index {i} is {}; the primitive has {count} vertices", raw[i])));
                    }
                    raw.into_iter().map(|i| i as usize).collect()
                }
                None => (0..count).collect(),
            };
            let corners: Vec<[usize; 3]> = match mode {
                Mode::TriangleStrip => (2..indices.len())
                    .map(|i| if i % 2 == 0 { [indices[i - 2], indices[i - 1], indices[i]] } else { [indices[i - 1], indices[i - 2], indices[i]] })
                    .collect(),
                Mode::TriangleFan => (2..indices.len()).map(|i| [indices[0], indices[i - 1], indices[i]]).collect(),
                _ => indices.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
            };
            // Only the vertices the triangles use, welded across the node's primitives by the exact
            // position and influences.
            let mut remap: HashMap<usize, usize> = HashMap::new();
            for &v in corners.iter().flatten() {
                if remap.contains_key(&v) {
                    continue;
                }
                let position = [positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]];
                let mut inf = influences[v].clone();
                let total: f64 = inf.iter().map(|(_, w)| w).sum();
                for e in inf.iter_mut() {
                    e.1 /= total;
                }
                inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                let key: Vec<u64> = position.iter().map(|c| c.to_bits()).chain(inf.iter().flat_map(|(j, w)| [*j as u64, w.to_bits()])).collect();
                let index = *welded.entry(key).or_insert_with(|| {
                    let (influences, joint_slots) = match binding {
                        Binding::Skin(s) => (inf.iter().map(|(j, w)| (skins[s].joints[*j], *w)).collect(), inf.iter().map(|(j, _)| *j).collect()),
                        Binding::Prop(_) => (Vec::new(), Vec::new()),
                    };
                    g.vertices.push(RawVertex { position, influences, joint_slots, mesh_node: node_index, binding, label: label.clone(), source_index: v });
                    g.vertices.len() - 1
                });
                remap.insert(v, index);
            }
            let material = *material_index.entry(prim.material().index()).or_insert_with(|| {
                g.materials.push(material(src, &prim.material()));
                g.materials.len() - 1
            });
            for c in corners {
                let v = c.map(|i| remap[&i]);
                if v[0] != v[1] && v[1] != v[2] && v[0] != v[2] {
                    g.triangles.push(Triangle { vertices: v, material });
                    g.uvs.push(texcoords.as_ref().map(|t| c.map(|i| [t[2 * i], t[2 * i + 1]])));
                }
            }
        }
    }
    Ok(g)
}

fn accessor_err(p: &str, acc: &gltf::Accessor, usage: String, message: String) -> GltfError {
    GltfError::Accessor { path: p.into(), accessor: acc.index(), name: acc.name().map(|n| format!(" '{n}'")).unwrap_or_default(), usage, message }
}

fn material(src: &Source, m: &gltf::Material) -> Material {
    let Some(index) = m.index() else {
        return Material { name: "(default)".into(), rgb: [128, 128, 128], texture: None };
    };
    let pbr = m.pbr_metallic_roughness();
    let c = pbr.base_color_factor();
    let to_u8 = |v: f32| (v.clamp(0.0, 1.0) as f64 * 255.0).round() as u8;
    // The image's JSON is read directly: the crate's `Image::source` panics on an image with neither a
    // URI nor a MIME type.
    let texture = pbr.base_color_texture().map(|info| {
        let image = info.texture().source();
        match src.image_file(image.index()) {
            Some(file) => TextureRef::named(file),
            None => TextureRef {
                name: image.name().map(str::to_string).unwrap_or_else(|| format!("image{} (embedded)", image.index())),
                embedded: src.embedded_image(image.index()),
                paths: Vec::new(),
            },
        }
    });
    Material { name: m.name().map(str::to_string).unwrap_or_else(|| format!("material{index}")), rgb: [to_u8(c[0]), to_u8(c[1]), to_u8(c[2])], texture }
}
