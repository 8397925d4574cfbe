//! UV seams: a vertex whose triangles give it different texture coordinates becomes one vertex per
//! coordinate, so that each vertex of the blob has exactly one UV (the console finds a corner's UV with
//! the vertex's index, as it finds its projected position).
//!
//! The texel a corner lands on decides, not the float: corners that round to the same texel of their
//! texture are one vertex. A vertex keeps its place; its extra copies follow it, so an untextured
//! character's vertices (and so its blob) stay as they were. Every per-vertex array of the character
//! (its vertices, each clip's reference positions) is split the same way, so accuracy is still
//! measured vertex by vertex.

use crate::fbx::Character;
use crate::texture::{texel, tiled_texels};

/// A texture as the splitter sees it: its size in texels and whether its UVs repeat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelGrid {
    pub width: u32,
    pub height: u32,
    pub tiled: bool,
}

/// The UV words (`u | v << 8`, texels from the texture's corner) of a triangle's corners at `uv` on
/// `grid`: each corner alone on an untiled texture (clamped), the three together on a tiled one (their
/// offsets kept, [`tiled_texels`]), so a vertex may take different words in different triangles.
pub fn triangle_uv_words(uv: [[f64; 2]; 3], grid: TexelGrid) -> [u32; 3] {
    if !grid.tiled {
        return uv.map(|p| texel(p[0], grid.width) | texel(p[1], grid.height) << 8);
    }
    let (u, v) = (tiled_texels(uv.map(|p| p[0]), grid.width).0, tiled_texels(uv.map(|p| p[1]), grid.height).0);
    [0, 1, 2].map(|k| u[k] | v[k] << 8)
}

/// `c` with its vertices split at UV seams, and each new vertex's UV word (0 for a vertex no
/// textured triangle uses). `grids[m]` is material m's texture (None: untextured).
pub fn split(c: &Character, grids: &[Option<TexelGrid>]) -> (Character, Vec<u32>) {
    let (out, keys) = split_corners(c, |t, k| corner_uv(c, grids, t, k));
    (out, keys.into_iter().map(|k| k.unwrap_or(0)).collect())
}

/// Corner `k` of triangle `t`'s UV word, where its material is textured and its mesh has UVs.
pub fn corner_uv(c: &Character, grids: &[Option<TexelGrid>], t: usize, k: usize) -> Option<u32> {
    let grid = grids.get(c.triangles[t].material).copied().flatten()?;
    let uvs = c.uvs.get(t).copied().flatten()?;
    Some(triangle_uv_words(uvs, grid)[k])
}

/// `c` with its vertices split wherever the corners that share one give it different keys
/// (`corner(t, k)`: corner k of triangle t's UV word, normal, or both), and each new vertex's key
/// (None for a vertex no corner gives one).
pub fn split_corners<K: Copy + PartialEq>(c: &Character, corner: impl Fn(usize, usize) -> Option<K>) -> (Character, Vec<Option<K>>) {
    // Per old vertex, its distinct keys in the order its triangles first use them.
    let mut keys: Vec<Vec<K>> = vec![Vec::new(); c.vertices.len()];
    for (t, tri) in c.triangles.iter().enumerate() {
        for (k, &v) in tri.vertices.iter().enumerate() {
            if let Some(w) = corner(t, k) {
                if !keys[v].contains(&w) {
                    keys[v].push(w);
                }
            }
        }
    }
    // New indices: each old vertex in order, then its copies.
    let mut first = Vec::with_capacity(c.vertices.len());
    let mut old_of = Vec::new();
    let mut key = Vec::new();
    for (v, ks) in keys.iter().enumerate() {
        first.push(old_of.len());
        if ks.is_empty() {
            old_of.push(v);
            key.push(None);
        }
        for &w in ks {
            old_of.push(v);
            key.push(Some(w));
        }
    }
    let mut out = c.clone();
    out.vertices = old_of.iter().map(|&v| c.vertices[v].clone()).collect();
    for (t, tri) in out.triangles.iter_mut().enumerate() {
        for k in 0..3 {
            let v = tri.vertices[k];
            let copy = corner(t, k).map_or(0, |w| keys[v].iter().position(|&x| x == w).expect("collected above"));
            tri.vertices[k] = first[v] + copy;
        }
    }
    let spread = |per_vertex: &Vec<[f64; 3]>| old_of.iter().map(|&v| per_vertex[v]).collect::<Vec<_>>();
    for clip in &mut out.clips {
        clip.rigid_reference = clip.rigid_reference.iter().map(spread).collect();
        clip.skinned_reference = clip.skinned_reference.iter().map(spread).collect();
    }
    (out, key)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fbx::{Affine, Clip, Material, Triangle, Vertex, WeightReduction};

    /// Four vertices, two triangles of material 0 sharing the edge 1-2, with `uvs`.
    pub(crate) fn character(uvs: Vec<Option<[[f64; 2]; 3]>>) -> Character {
        let v = |x: f64| Vertex {
            bind: [x, 0.0, 0.0],
            bone: 0,
            second: None,
            second_fix: Affine::IDENTITY,
            mesh: "M".into(),
            source_index: x as usize,
        };
        Character {
            source: "t".into(),
            bones: vec![],
            vertices: (0..4).map(|i| v(i as f64)).collect(),
            // Two triangles sharing the edge 1-2.
            triangles: vec![
                Triangle { vertices: [0, 1, 2], material: 0 },
                Triangle { vertices: [2, 1, 3], material: 0 },
            ],
            materials: vec![Material { name: "Skin".into(), rgb: [1, 2, 3], texture: None }],
            clips: vec![Clip {
                name: "c".into(),
                rate: 30,
                poses: vec![],
                rigid_reference: vec![(0..4).map(|i| [i as f64, 1.0, 0.0]).collect()],
                skinned_reference: vec![(0..4).map(|i| [i as f64, 2.0, 0.0]).collect()],
                events: vec![],
            }],
            weights: WeightReduction::default(),
            props: vec![],
            blend_shapes: vec![],
            uvs,
            instanced_skins: vec![],
            warnings: vec![],
        }
    }

    const GRID: TexelGrid = TexelGrid { width: 64, height: 32, tiled: false };

    #[test]
    fn a_seam_splits_its_vertices_and_nothing_else() {
        // Vertex 1 has the same UV in both triangles; vertex 2 lies on a seam (0.5 vs 1.0 across).
        let c = character(vec![
            Some([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]]),
            Some([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]),
        ]);
        let (s, uv) = split(&c, &[Some(GRID)]);
        assert_eq!(s.vertices.len(), 5);
        assert_eq!(s.vertices.iter().map(|v| v.source_index).collect::<Vec<_>>(), [0, 1, 2, 2, 3]);
        assert_eq!(s.triangles[0].vertices, [0, 1, 2]);
        assert_eq!(s.triangles[1].vertices, [3, 1, 4]);
        // u | v << 8 in texels: 1.0 lands on the last texel (63, 31), 0.5 rounds to 32 of 0..63.
        assert_eq!(uv, [0, 63, 32 | 31 << 8, 63 | 31 << 8, 31 << 8]);
        assert_eq!(s.clips[0].rigid_reference[0][3], [2.0, 1.0, 0.0]);
        assert_eq!(s.clips[0].skinned_reference[0][4], [3.0, 2.0, 0.0]);
    }

    #[test]
    fn a_tiled_triangle_moves_by_whole_tiles_and_splits_the_vertices_it_no_longer_shares() {
        // u 0.5..1.0 (texels 32..64 of 64) and 1.0..1.5: the second triangle moves back one tile, so
        // vertices 1 and 2 (u = 1.0) are texel 64 in the first and 0 in the second.
        let c = character(vec![
            Some([[0.5, 0.0], [1.0, 0.0], [1.0, 0.5]]),
            Some([[1.0, 0.5], [1.0, 0.0], [1.5, 0.5]]),
        ]);
        let tiled = TexelGrid { width: 64, height: 32, tiled: true };
        let (s, uv) = split(&c, &[Some(tiled)]);
        assert_eq!(s.vertices.iter().map(|v| v.source_index).collect::<Vec<_>>(), [0, 1, 1, 2, 2, 3]);
        assert_eq!(uv, [32, 64, 0, 64 | 16 << 8, 16 << 8, 32 | 16 << 8]);
        assert_eq!(s.triangles[1].vertices, [4, 2, 5]);
    }

    #[test]
    fn a_split_vertex_keeps_both_influences() {
        // Vertex 2 (on the seam) follows bones 0 and 1: both its copies still blend the two.
        let mut c = character(vec![
            Some([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]]),
            Some([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]),
        ]);
        c.vertices[2].second = Some((1, 0.25));
        let (s, _) = split(&c, &[Some(GRID)]);
        assert_eq!(s.vertices.iter().map(|v| v.second).collect::<Vec<_>>(), [None, None, Some((1, 0.25)), Some((1, 0.25)), None]);
    }

    #[test]
    fn untextured_characters_and_materials_keep_their_vertices() {
        let uvs = vec![Some([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]]), Some([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])];
        let c = character(uvs.clone());
        let (s, uv) = split(&c, &[None]);
        assert_eq!((s.vertices.len(), &uv[..]), (4, &[0, 0, 0, 0][..]));
        assert_eq!(s.triangles, c.triangles);
        // Corners a texel apart are two vertices; the same texel from different floats is one.
        let c = character(vec![Some([[0.0, 0.0], [0.5, 0.0], [0.5, 1.0]]), Some([[0.501, 1.0], [0.5, 0.0], [0.0, 1.0]])]);
        assert_eq!(split(&c, &[Some(GRID)]).0.vertices.len(), 4);
    }
}
