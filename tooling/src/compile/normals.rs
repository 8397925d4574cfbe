//! Vertex normals for the GTE's lighting (`import --lighting`): each triangle corner's normal from
//! the bind pose's own geometry, smoothed across the triangles that share the vertex and meet at less
//! than [`SMOOTH_ANGLE_DEGREES`], so a rounded limb shades smoothly and a box keeps its hard edges.
//! The seam splitter (`seams`) then makes one vertex per distinct normal, as per UV.
//!
//! The file's own normals are not read: they live in each mesh's geometry space, which the skin
//! binding maps to the model differently per vertex; the bind geometry gives the same answer for the
//! smooth shapes PS1 characters have, and the same for FBX and glTF.

use crate::fbx::Character;

/// Triangles meeting at less than this share their corners' normal ("auto smooth").
pub const SMOOTH_ANGLE_DEGREES: f64 = 60.0;

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn unit(a: [f64; 3]) -> Option<[f64; 3]> {
    let l = dot(a, a).sqrt();
    (l > 1e-12).then(|| a.map(|x| x / l))
}

/// Each triangle's corners' unit normals, model space (PS1 axes), facing out of the surface (the
/// importer keeps the source winding, counter-clockwise seen from outside). A degenerate triangle's
/// corners take the smoothed normal of their neighbours, or +Z when they have none.
pub fn corner_normals(c: &Character) -> Vec<[[f64; 3]; 3]> {
    let p = |v: usize| c.vertices[v].bind;
    // Area-weighted face normals (the cross product's length is twice the area).
    let faces: Vec<[f64; 3]> = c.triangles.iter().map(|t| cross(sub(p(t.vertices[1]), p(t.vertices[0])), sub(p(t.vertices[2]), p(t.vertices[0])))).collect();
    let units: Vec<Option<[f64; 3]>> = faces.iter().map(|f| unit(*f)).collect();
    // The triangles around each vertex (by position: a mesh's vertices split for other reasons, UVs
    // or meshes, still share their surface).
    let key = |v: usize| p(v).map(|x| (x * 16.0).round() as i64);
    let mut around: std::collections::HashMap<[i64; 3], Vec<usize>> = std::collections::HashMap::new();
    for (t, tri) in c.triangles.iter().enumerate() {
        for &v in &tri.vertices {
            around.entry(key(v)).or_default().push(t);
        }
    }
    let cos_limit = SMOOTH_ANGLE_DEGREES.to_radians().cos();
    c.triangles
        .iter()
        .enumerate()
        .map(|(t, tri)| {
            tri.vertices.map(|v| {
                let mut sum = [0.0; 3];
                for &o in &around[&key(v)] {
                    let smooth = match (units[t], units[o]) {
                        (Some(a), Some(b)) => dot(a, b) >= cos_limit,
                        (None, _) => true,
                        _ => false,
                    };
                    if smooth {
                        sum = [sum[0] + faces[o][0], sum[1] + faces[o][1], sum[2] + faces[o][2]];
                    }
                }
                unit(sum).or(units[t]).unwrap_or([0.0, 0.0, 1.0])
            })
        })
        .collect()
}

/// A unit normal as FP12 (4096 = 1), each coordinate rounded.
pub fn fp12(n: [f64; 3]) -> [i16; 3] {
    n.map(|x| (x * 4096.0).round().clamp(-4096.0, 4096.0) as i16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fbx::{Material, Triangle, Vertex, WeightReduction};

    /// A unit cube's corner, three faces meeting at right angles, and a shallow fold.
    fn character(points: &[[f64; 3]], triangles: &[[usize; 3]]) -> Character {
        Character {
            source: "t".into(),
            bones: vec![],
            vertices: points
                .iter()
                .enumerate()
                .map(|(i, p)| Vertex { bind: *p, bone: 0, second: None, second_fix: crate::fbx::Affine::IDENTITY, mesh: "M".into(), source_index: i })
                .collect(),
            triangles: triangles.iter().map(|t| Triangle { vertices: *t, material: 0 }).collect(),
            materials: vec![Material { name: "m".into(), rgb: [1, 2, 3], texture: None }],
            clips: vec![],
            weights: WeightReduction::default(),
            props: vec![],
            blend_shapes: vec![],
            uvs: vec![],
            instanced_skins: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn hard_edges_keep_their_faces_normals_and_soft_ones_average() {
        // Two triangles at 90 degrees (the floor z = 0 facing +Z, a wall x = 0 facing +X) share the
        // edge (0,0,0)-(0,1,0).
        let c = character(
            &[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            &[[0, 2, 1], [0, 1, 3]],
        );
        let n = corner_normals(&c);
        for corner in n[0] {
            assert!(dot(corner, [0.0, 0.0, 1.0]) > 0.999, "{corner:?}");
        }
        assert!(n[0].iter().all(|a| (dot(*a, n[0][0]) - 1.0).abs() < 1e-9), "a hard edge: each face keeps its own");
        // A shallow fold (20 degrees) averages at the shared vertices only.
        let c = character(&[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.36]], &[[0, 2, 1], [0, 1, 3]]);
        let n = corner_normals(&c);
        let shared = n[0][0];
        assert!((dot(shared, n[1][0]) - 1.0).abs() < 1e-9, "both triangles give the shared vertex one normal");
        assert!(dot(shared, n[0][1]) > 0.9 && dot(shared, n[0][1]) < 0.9999, "the unshared corner keeps its face's");
        assert_eq!(fp12([0.0, -1.0, 0.5f64.sqrt()]), [0, -4096, 2896]);
    }
}
