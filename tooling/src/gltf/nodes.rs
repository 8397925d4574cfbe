//! The node hierarchy of the scene: parents, names, rest transforms, and world transforms at rest or
//! under an animation's overrides (in the file's space: Y up, metres).

use crate::fbx::{Affine, Trs};

use super::GltfError;

/// A node's own transform as the file gives it.
#[derive(Clone, Copy, Debug)]
pub enum Local {
    Matrix(Affine),
    Trs(Trs),
}

/// Per node, the animated parts that replace the rest values (None: not animated).
#[derive(Clone, Copy, Debug, Default)]
pub struct Override {
    pub translation: Option<[f64; 3]>,
    /// Quaternion x, y, z, w.
    pub rotation: Option<[f64; 4]>,
    pub scale: Option<[f64; 3]>,
}

pub struct Nodes {
    pub names: Vec<String>,
    pub parent: Vec<Option<usize>>,
    pub local: Vec<Local>,
    /// The scene's nodes, parent-first (depth-first in the file's child order).
    pub order: Vec<usize>,
    /// Whether the node is in the scene that is imported.
    pub in_scene: Vec<bool>,
}

/// The 4x4 column-major matrix of the file as an affine transform (its last row is ignored).
pub fn affine_of(cols: [[f32; 4]; 4]) -> Affine {
    let mut m = [[0.0; 3]; 3];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = cols[c][r] as f64;
        }
    }
    Affine { m, t: [cols[3][0] as f64, cols[3][1] as f64, cols[3][2] as f64] }
}

impl Nodes {
    /// The nodes of the default scene (or the first; with no scene at all, every root node).
    pub fn of(p: &str, doc: &gltf::Document) -> Result<Nodes, GltfError> {
        let count = doc.nodes().count();
        let mut names = Vec::with_capacity(count);
        let mut local = Vec::with_capacity(count);
        let mut parent: Vec<Option<usize>> = vec![None; count];
        for node in doc.nodes() {
            let name = node.name().map(str::to_string).unwrap_or_else(|| format!("node{}", node.index()));
            let bad = |message: String| GltfError::Node { path: p.into(), node: node.index(), name: name.clone(), message };
            let l = match node.transform() {
                gltf::scene::Transform::Matrix { matrix } => {
                    if matrix.iter().flatten().any(|v| !v.is_finite()) {
                        return Err(bad(format!("its matrix holds a non-finite number ({matrix:?}); expected finite numbers")));
                    }
                    Local::Matrix(affine_of(matrix))
                }
                gltf::scene::Transform::Decomposed { translation: t, rotation: r, scale: s } => {
                    if t.iter().chain(&r).chain(&s).any(|v| !v.is_finite()) {
                        return Err(bad(format!(
                            "its translation {t:?}, rotation {r:?} or scale {s:?} holds a non-finite number; expected finite numbers"
                        )));
                    }
                    Local::Trs(Trs { translation: t.map(f64::from), rotation: r.map(f64::from), scale: s.map(f64::from) })
                }
            };
            for child in node.children() {
                if parent[child.index()].is_some() || child.index() == node.index() {
                    return Err(bad(format!("node {} has more than one parent; expected a tree", child.index())));
                }
                parent[child.index()] = Some(node.index());
            }
            names.push(name);
            local.push(l);
        }
        let roots: Vec<usize> = match doc.default_scene().or_else(|| doc.scenes().next()) {
            Some(scene) => scene.nodes().map(|n| n.index()).collect(),
            None => (0..count).filter(|n| parent[*n].is_none()).collect(),
        };
        let mut order = Vec::new();
        let mut in_scene = vec![false; count];
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(n) = stack.pop() {
            if in_scene[n] {
                return Err(GltfError::Node {
                    path: p.into(),
                    node: n,
                    name: names[n].clone(),
                    message: "is reached twice from the scene (a cycle, or a scene root that is also a child)".into(),
                });
            }
            in_scene[n] = true;
            order.push(n);
            let children: Vec<usize> = doc.nodes().nth(n).map(|node| node.children().map(|c| c.index()).collect()).unwrap_or_default();
            stack.extend(children.into_iter().rev());
        }
        Ok(Nodes { names, parent, local, order, in_scene })
    }

    /// Ancestors of `n`, nearest first.
    pub fn ancestors(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parent[n], move |a| self.parent[*a])
    }

    /// The node's transform with `o` applied. A node given by a matrix is split into translation,
    /// rotation and scale when animated (glTF forbids animating one; exporters sometimes do).
    fn local_with(&self, p: &str, n: usize, o: &Override) -> Result<Affine, GltfError> {
        let animated = o.translation.is_some() || o.rotation.is_some() || o.scale.is_some();
        let base = match self.local[n] {
            Local::Matrix(m) if !animated => return Ok(m),
            Local::Matrix(m) => m.decompose().map_err(|_| GltfError::Node {
                path: p.into(),
                node: n,
                name: self.names[n].clone(),
                message: "is animated but its matrix is sheared or singular, so it has no translation, rotation and scale to animate".into(),
            })?,
            Local::Trs(trs) => trs,
        };
        let trs = Trs {
            translation: o.translation.unwrap_or(base.translation),
            rotation: o.rotation.unwrap_or(base.rotation),
            scale: o.scale.unwrap_or(base.scale),
        };
        Ok(Affine::from_trs(&trs))
    }

    /// World transform of every node of the scene (identity for nodes outside it).
    pub fn world(&self, p: &str, overrides: &[Override]) -> Result<Vec<Affine>, GltfError> {
        let mut world = vec![Affine::IDENTITY; self.names.len()];
        let none = Override::default();
        for &n in &self.order {
            let local = self.local_with(p, n, overrides.get(n).unwrap_or(&none))?;
            world[n] = match self.parent[n] {
                Some(parent) => world[parent].mul(&local),
                None => local,
            };
        }
        Ok(world)
    }
}
