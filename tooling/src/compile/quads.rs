//! Pairing of triangles into planar quads, which the primitive stream (`primitives`) draws as one
//! four-point polygon each.
//!
//! The renderer culls a quad by one NCLIP and draws it as one polygon, so a pair is only made where
//! that is safe: the two triangles share an edge in opposite directions (consistent winding), have the
//! same material, face the same way and lie in one plane ([`flat_quad`]) wherever the console will see
//! them. Triangles are only rotated, never re-wound (the winding is the facing), and the order stays the
//! importer's: a quad sits where its first triangle was.

use std::collections::HashMap;

use psxanim_runtime::tables::BAKED_DELTA_SCALE;

/// Largest distance (GTE units) of either triangle's far corner from the other triangle's plane, for
/// rigid-gte. Positions are stored as whole units, so a truly flat quad already bends by up to a unit
/// after rounding; beyond that, culling both halves by one NCLIP could drop a half that faces the camera.
pub const MAX_QUAD_BEND: f64 = 1.0;

/// The same for baked-vertices: each decoded frame rounds every coordinate to the decoder's step of
/// [`BAKED_DELTA_SCALE`] units, so a quad flat in the source bends by up to a step in some frame, and
/// two neighbouring corners rounded apart make two. A bend of two steps (32 units, 8 mm) is about a
/// pixel when the character fills the screen, and only shows when the quad is seen edge-on, where it
/// is a sliver: culling both halves by one NCLIP then drops or keeps at most that sliver. At one step
/// the fixture pairs 112 of its 321 possible quads, at two 304.
pub const MAX_BAKED_QUAD_BEND: f64 = 2.0 * BAKED_DELTA_SCALE as f64;

/// A face of the character after pairing, with its material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// The triangle (a, b, c) in winding order.
    Triangle([u16; 3], u8),
    /// The planar quad (a, b, c, d) in winding order: the triangles (a, b, c) and (a, c, d), split along
    /// the diagonal a-c.
    Quad([u16; 4], u8),
}

impl Face {
    pub fn material(&self) -> u8 {
        match *self {
            Face::Triangle(_, m) | Face::Quad(_, m) => m,
        }
    }

    /// Its source triangles in winding order: one, or a quad's (a, b, c) and (a, c, d).
    #[cfg(test)]
    pub fn triangles(&self) -> Vec<[u16; 3]> {
        match *self {
            Face::Triangle(t, _) => vec![t],
            Face::Quad([a, b, c, d], _) => vec![[a, b, c], [a, c, d]],
        }
    }
}

/// The triangles `(vertices, material)` as faces, with every pair that `planar` accepts made a quad: a
/// greedy, deterministic walk that gives each unpaired triangle T1 the first unpaired later partner T2
/// (the next triangle first, as the importer's triangulation puts a quad's halves side by side), made
/// the quad (a, b, c, d) with T1 = (a, b, c) and T2 = (a, c, d). `planar([a, b, c, d])` judges the
/// geometry.
pub fn pair_quads(triangles: &[([u16; 3], u8)], planar: impl Fn([u16; 4]) -> bool) -> Vec<Face> {
    let mut by_edge: HashMap<(u16, u16), Vec<usize>> = HashMap::new();
    for (i, (v, _)) in triangles.iter().enumerate() {
        for k in 0..3 {
            by_edge.entry((v[k], v[(k + 1) % 3])).or_default().push(i);
        }
    }
    let mut taken = vec![false; triangles.len()];
    let mut out = Vec::with_capacity(triangles.len());
    for i in 0..triangles.len() {
        if taken[i] {
            continue;
        }
        taken[i] = true;
        let (t1, material) = triangles[i];
        // Later unpaired triangles holding one of T1's edges reversed: the next one first, then in order.
        let mut candidates: Vec<usize> = (0..3)
            .filter_map(|k| by_edge.get(&(t1[(k + 1) % 3], t1[k])))
            .flatten()
            .copied()
            .filter(|&j| j > i && !taken[j] && triangles[j].1 == material)
            .collect();
        candidates.sort_by_key(|&j| (j != i + 1, j));
        candidates.dedup();
        let quad = candidates.into_iter().find_map(|j| {
            let corners = as_quad(t1, triangles[j].0)?;
            planar(corners).then_some((j, corners))
        });
        match quad {
            Some((j, corners)) => {
                taken[j] = true;
                out.push(Face::Quad(corners, material));
            }
            None => out.push(Face::Triangle(t1, material)),
        }
    }
    out
}

/// The quad (a, b, c, d) with `t1` rotated to (a, b, c) and `t2` to (a, c, d), if `t2` holds `t1`'s
/// edge c -> a as a -> c and the four corners are distinct vertices.
fn as_quad(t1: [u16; 3], t2: [u16; 3]) -> Option<[u16; 4]> {
    if t1[0] == t1[1] || t1[1] == t1[2] || t1[2] == t1[0] {
        return None;
    }
    for k in 0..3 {
        let [c, a, b] = [t1[k], t1[(k + 1) % 3], t1[(k + 2) % 3]];
        for m in 0..3 {
            if t2[m] == a && t2[(m + 1) % 3] == c {
                let d = t2[(m + 2) % 3];
                return (d != a && d != b && d != c).then_some([a, b, c, d]);
            }
        }
    }
    None
}

/// Whether the quad (a, b, c) + (a, c, d) at positions `p = [a, b, c, d]` is safe to cull by one NCLIP:
/// neither triangle has zero area, both face the same way, and d lies within `max_bend` units of
/// (a, b, c)'s plane and b within it of (a, c, d)'s (both ways, so a sliver cannot hide a bend).
pub fn flat_quad(p: [[i16; 3]; 4], max_bend: f64) -> bool {
    let [a, b, c, d] = p.map(|v| v.map(i128::from));
    let sub = |u: [i128; 3], v: [i128; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let cross =
        |u: [i128; 3], v: [i128; 3]| [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    let dot = |u: [i128; 3], v: [i128; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let (ab, ac, ad) = (sub(b, a), sub(c, a), sub(d, a));
    let (n1, n2) = (cross(ab, ac), cross(ac, ad));
    let within = |n: [i128; 3], corner: [i128; 3]| {
        (dot(n, corner) as f64).abs() <= max_bend * (dot(n, n) as f64).sqrt()
    };
    dot(n1, n1) != 0 && dot(n2, n2) != 0 && dot(n1, n2) > 0 && within(n1, ad) && within(n2, ab)
}

/// Rigid-gte: all four corners in one bone's range (one matrix moves them, so a quad flat in the
/// bone-local positions stays flat in every pose) and flat there within [`MAX_QUAD_BEND`].
pub fn rigid_planar<'a>(
    local: &'a [[i16; 3]],
    ranges: &[(u16, u16)],
) -> impl Fn([u16; 4]) -> bool + 'a {
    let mut bone_of = vec![usize::MAX; local.len()];
    for (bone, &(first, count)) in ranges.iter().enumerate() {
        bone_of[first as usize..first as usize + count as usize].fill(bone);
    }
    move |q: [u16; 4]| {
        let bone = bone_of[q[0] as usize];
        q.iter().all(|&v| bone_of[v as usize] == bone)
            && flat_quad(q.map(|v| local[v as usize]), MAX_QUAD_BEND)
    }
}

/// Baked-vertices: flat within [`MAX_BAKED_QUAD_BEND`] in the bind positions and in every decoded frame
/// of every clip (each vertex moves on its own, so each frame the console draws is checked).
pub fn baked_planar<'a>(
    bind: &'a [[i16; 3]],
    frames: &'a [Vec<Vec<[i16; 3]>>],
) -> impl Fn([u16; 4]) -> bool + 'a {
    move |q: [u16; 4]| {
        std::iter::once(bind)
            .chain(frames.iter().flatten().map(Vec::as_slice))
            .all(|positions| flat_quad(q.map(|v| positions[v as usize]), MAX_BAKED_QUAD_BEND))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The triangle with its smallest vertex first (a rotation, so the winding is kept).
    fn normalised(v: [u16; 3]) -> [u16; 3] {
        let k = (0..3).min_by_key(|&k| v[k]).unwrap();
        [v[k], v[(k + 1) % 3], v[(k + 2) % 3]]
    }

    fn drawn(triangles: impl IntoIterator<Item = ([u16; 3], u8)>) -> Vec<([u16; 3], u8)> {
        let mut out: Vec<_> = triangles.into_iter().map(|(v, m)| (normalised(v), m)).collect();
        out.sort();
        out
    }

    /// The faces' triangles in order, a quad's two in a row.
    fn as_input(out: &[Face]) -> Vec<([u16; 3], u8)> {
        out.iter()
            .flat_map(|f| f.triangles().into_iter().map(move |t| (t, f.material())))
            .collect()
    }

    fn is_quad(f: &Face) -> bool {
        matches!(f, Face::Quad(..))
    }

    fn flat_at(p: Vec<[i16; 3]>) -> impl Fn([u16; 4]) -> bool {
        move |q: [u16; 4]| flat_quad(q.map(|v| p[v as usize]), MAX_QUAD_BEND)
    }

    /// A square of 100 units a side split along its diagonal a-c, with d lifted by `lift` units.
    fn square(lift: i16) -> Vec<[i16; 3]> {
        vec![[0, 0, 0], [100, 0, 0], [100, 100, 0], [0, 100, lift]]
    }

    #[test]
    fn a_flat_square_split_in_two_becomes_one_quad_rotated_not_rewound() {
        let tris = [([0, 1, 2], 0), ([0, 2, 3], 0)];
        // The shared edge 2 -> 0 of T1 becomes its (c, a) edge.
        assert_eq!(
            pair_quads(&tris, flat_at(square(0))),
            vec![Face::Quad([0, 1, 2, 3], 0)]
        );
        let rotated = [([1, 2, 0], 0), ([3, 0, 2], 0)];
        assert_eq!(
            pair_quads(&rotated, flat_at(square(0))),
            vec![Face::Quad([0, 1, 2, 3], 0)]
        );
    }

    #[test]
    fn a_bent_pair_a_material_change_or_a_reversed_neighbour_stays_two_triangles() {
        let tris = [([0, 1, 2], 0), ([0, 2, 3], 0)];
        // One unit is the rounding of the stored positions; two units is a bend.
        assert!(is_quad(&pair_quads(&tris, flat_at(square(1)))[0]));
        assert!(is_quad(&pair_quads(&tris, flat_at(square(-1)))[0]));
        for lift in [2, -2, 30] {
            let out = pair_quads(&tris, flat_at(square(lift)));
            assert_eq!(as_input(&out), tris.to_vec(), "lift {lift}");
        }
        let two_materials = [([0, 1, 2], 0), ([0, 2, 3], 1)];
        assert!(!pair_quads(&two_materials, flat_at(square(0)))
            .iter()
            .any(is_quad));
        // (2, 0, 3) runs the shared edge the same way: its winding disagrees, it faces the other way.
        let inconsistent = [([0, 1, 2], 0), ([2, 0, 3], 0)];
        assert!(!pair_quads(&inconsistent, flat_at(square(0)))
            .iter()
            .any(is_quad));
        // The same corners behind each other (a double-sided sheet): never one quad.
        let double_sided = [([0, 1, 2], 0), ([0, 2, 1], 0)];
        assert!(!pair_quads(&double_sided, flat_at(square(0)))
            .iter()
            .any(is_quad));
    }

    #[test]
    fn flat_quad_rejects_zero_area_and_folded_halves() {
        let flat = |p| flat_quad(p, MAX_QUAD_BEND);
        // d on b's side of the diagonal: flat, but the second half faces away.
        assert!(!flat([[0, 0, 0], [100, 0, 0], [100, 100, 0], [90, 10, 0]]));
        // A duplicated position (zero-area first half) and collinear corners.
        assert!(!flat([[0, 0, 0], [0, 0, 0], [100, 100, 0], [0, 100, 0]]));
        assert!(!flat([[0, 0, 0], [50, 50, 0], [100, 100, 0], [0, 100, 0]]));
        assert!(flat([[0, 0, 0], [100, 0, 0], [100, 100, 0], [0, 100, 0]]));
        // The far ends of the i16 range do not overflow.
        let m = i16::MAX;
        let n = i16::MIN;
        assert!(flat([[n, n, 0], [m, n, 0], [m, m, 0], [n, m, 0]]));
        assert!(!flat([[n, n, n], [m, n, n], [m, m, n], [n, m, m]]));
    }

    #[test]
    fn the_baked_tolerance_is_two_decoder_steps() {
        // d 32 units off (a, b, c)'s plane, b about 31 off (a, c, d)'s: two steps, accepted; 60 is a bend.
        let off = |lift: i16| {
            flat_quad(
                [[0, 0, 0], [100, 0, 0], [100, 100, 0], [0, 100, lift]],
                MAX_BAKED_QUAD_BEND,
            )
        };
        assert!(off(32) && off(-32));
        assert!(!off(60));
        assert_eq!(MAX_BAKED_QUAD_BEND, 32.0);
    }

    #[test]
    fn the_next_triangle_is_preferred_and_quads_sit_where_their_first_half_was() {
        // A fan 0-1-2-3-4 around vertex 0 in the plane z = 0, and one unrelated triangle between.
        let p: Vec<[i16; 3]> = vec![
            [0, 0, 0],
            [100, 0, 0],
            [100, 100, 0],
            [0, 100, 0],
            [-100, 50, 0],
            [500, 500, 9],
        ];
        let tris = [
            ([0, 1, 2], 0),
            ([5, 1, 0], 1),
            ([0, 2, 3], 0),
            ([0, 3, 4], 0),
        ];
        let out = pair_quads(&tris, flat_at(p.clone()));
        assert_eq!(
            out,
            vec![
                Face::Quad([0, 1, 2, 3], 0),
                Face::Triangle([5, 1, 0], 1),
                Face::Triangle([0, 3, 4], 0)
            ]
        );
        // Without the stranger, the next triangle wins, leaving the fan's last triangle single.
        let fan = [([0, 1, 2], 0), ([0, 2, 3], 0), ([0, 3, 4], 0)];
        assert_eq!(
            pair_quads(&fan, flat_at(p)),
            vec![Face::Quad([0, 1, 2, 3], 0), Face::Triangle([0, 3, 4], 0)]
        );
    }

    #[test]
    fn rigid_quads_stay_within_one_bone_and_baked_ones_flat_in_every_frame() {
        let local = square(0);
        let tris = [([0, 1, 2], 0), ([0, 2, 3], 0)];
        assert!(is_quad(
            &pair_quads(&tris, rigid_planar(&local, &[(0, 4)]))[0]
        ));
        assert!(!is_quad(
            &pair_quads(&tris, rigid_planar(&local, &[(0, 3), (3, 1)]))[0]
        ));
        let bind = square(0);
        let flat_clip = vec![vec![square(0), square(16)]];
        assert!(is_quad(
            &pair_quads(&tris, baked_planar(&bind, &flat_clip))[0]
        ));
        let bent_clip = vec![vec![square(0)], vec![square(0), square(-40)]];
        assert!(!is_quad(
            &pair_quads(&tris, baked_planar(&bind, &bent_clip))[0]
        ));
    }

    /// Corner positions and (vertices, material) triangles.
    pub(crate) type Mesh = (Vec<[i16; 3]>, Vec<([u16; 3], u8)>);

    /// Small random meshes: corners on a coarse grid (many flat and many bent neighbours), triangles
    /// over few vertices (many shared edges, both windings) and two materials.
    pub(crate) fn mesh() -> impl Strategy<Value = Mesh> {
        (4usize..10).prop_flat_map(|n| {
            let corner = prop::array::uniform3(-2i16..=2).prop_map(|v| v.map(|c| c * 50));
            let triangle = (prop::array::uniform3(0..n as u16), 0u8..2);
            (prop::collection::vec(corner, n), prop::collection::vec(triangle, 0..24))
        })
    }

    /// A 3 x 3 grid of corners, some lifted (flat, rounding-bent or bent), whose four cells are split
    /// along either diagonal, rotated, sometimes re-wound or split between materials, maybe shuffled.
    pub(crate) fn grid() -> impl Strategy<Value = Mesh> {
        let lift = prop::sample::select(vec![0i16, 0, 0, 1, -1, 2, 40]);
        let cell = (any::<bool>(), 0u8..3, 0usize..3, 0usize..3, prop::bool::weighted(0.1));
        (prop::collection::vec(lift, 9), prop::collection::vec(cell, 4)).prop_flat_map(|(lifts, cells)| {
            let p: Vec<[i16; 3]> = (0..9).map(|k| [(k % 3) as i16 * 50, (k / 3) as i16 * 50, lifts[k]]).collect();
            let rot = |t: [u16; 3], r: usize| [t[r], t[(r + 1) % 3], t[(r + 2) % 3]];
            let mut tris = Vec::new();
            for (cell, &(diagonal, materials, r1, r2, rewind)) in cells.iter().enumerate() {
                let v = |dx: u16, dy: u16| (cell as u16 / 2 + dy) * 3 + cell as u16 % 2 + dx;
                let [a, b, c, d] = [v(0, 0), v(1, 0), v(1, 1), v(0, 1)];
                let (t1, mut t2) = if diagonal { ([a, b, c], [a, c, d]) } else { ([b, c, d], [b, d, a]) };
                if rewind {
                    t2.swap(1, 2);
                }
                tris.push((rot(t1, r1), materials.min(1)));
                tris.push((rot(t2, r2), materials % 2));
            }
            (Just(p), prop_oneof![Just(tris.clone()), Just(tris).prop_shuffle()])
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn pairing_keeps_the_triangle_set_and_only_pairs_flat_quads(
            (p, tris) in prop_oneof![mesh(), grid()]
        ) {
            let out = pair_quads(&tris, flat_at(p.clone()));
            prop_assert_eq!(drawn(as_input(&out)), drawn(tris.iter().copied()));
            for f in &out {
                if let Face::Quad(q, _) = f {
                    prop_assert!(flat_quad(q.map(|v| p[v as usize]), MAX_QUAD_BEND));
                }
            }
            // Unpaired triangles keep their relative order and corners exactly.
            let kept: Vec<([u16; 3], u8)> =
                out.iter().filter_map(|f| if let Face::Triangle(t, m) = f { Some((*t, *m)) } else { None }).collect();
            let mut it = tris.iter();
            for k in &kept {
                prop_assert!(it.any(|t| t == k), "{:?} out of order", k);
            }
        }
    }
}
