//! The blob's primitive stream (layout: `psxanim_runtime::tables::primitives`): the paired faces
//! ([`quads::pair_quads`](super::quads::pair_quads)) gathered into runs the console's triangle loop reads
//! with few loads: quad strips (one word and two new projected vertices per quad), quad runs (two words
//! per quad) and triangle runs (one word per triangle).
//!
//! Strips are greedy and deterministic: each quad not yet in a strip, in face order, seeds one, which
//! grows both ways through neighbours of its material along one of the seed's two axes. A first pass
//! keeps only the strips that close into rings (a tube's bands: every quad in a strip, no ends), a
//! second takes the longer axis for the rest (the one across the source diagonal on a tie). A strip
//! draws each quad split along its diagonal t_k - b_k+1; a quad takes the other axis (split along b-d
//! instead of its source diagonal a-c) only if [`turnable`] says it is strictly convex wherever the
//! console sees it, where both diagonals cover the same area, and flat along b-d too.
//!
//! Run order: rings then open strips, each in seed order; then one quad run per material (ascending)
//! of the quads left alone (strips of one quad among them: a quad run is cheaper); then one triangle
//! run per material. The order only changes the ordering table's tie-break at equal depths.

use std::collections::HashMap;

use psxanim_runtime::tables::primitives::{
    pack3, pack_pair, run_header_from, GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE, MAX_INDEXED_VERTICES, MAX_RUN_BASE,
    MAX_STREAM_VERTICES, MAX_STRIP_INDEXED_VERTICES, RUN_BASE_UNIT, RUN_QUADS, RUN_STRIP, RUN_TRIANGLES, STREAM_END,
};

use super::quads::{flat_quad, Face};

/// The body of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Triangles (a, b, c) in winding order.
    Triangles(Vec<[u16; 3]>),
    /// Quads (a, b, c, d) in winding order, split along a-c as paired.
    Quads(Vec<[u16; 4]>),
    /// The pairs (t_k, b_k): quad k is (t_k, b_k, b_k+1, t_k+1) in winding order, split along
    /// t_k - b_k+1. A closed ring repeats its first pair at the end.
    Strip(Vec<[u16; 2]>),
}

/// A run of one material, of any length (the encoder splits what a header cannot count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub material: u8,
    pub body: Body,
}

/// A quad in a strip: its index among the quads and the rotation r that starts it at t: (t_k, b_k, b_k+1, t_k+1) =
/// corners r, r + 1, r + 2, r + 3 (mod 4).
type Link = (usize, usize);

/// The quads of the faces with the directed edges of their windings, for walking strips.
struct Quads {
    corners: Vec<[u16; 4]>,
    material: Vec<u8>,
    /// Quads that may be split along b-d (rotations 1 and 3).
    turnable: Vec<bool>,
    /// Directed edge (u, v) -> the quads and corner positions k with corners k, k + 1 = u, v.
    by_edge: HashMap<(u16, u16), Vec<Link>>,
}

fn rotated(q: [u16; 4], r: usize) -> [u16; 4] {
    [q[r % 4], q[(r + 1) % 4], q[(r + 2) % 4], q[(r + 3) % 4]]
}

impl Quads {
    fn new(quads: Vec<([u16; 4], u8)>, turnable: impl Fn([u16; 4]) -> bool) -> Self {
        let mut by_edge: HashMap<(u16, u16), Vec<Link>> = HashMap::new();
        for (i, (q, _)) in quads.iter().enumerate() {
            for k in 0..4 {
                by_edge
                    .entry((q[k], q[(k + 1) % 4]))
                    .or_default()
                    .push((i, k));
            }
        }
        Quads {
            turnable: quads.iter().map(|(q, _)| turnable(*q)).collect(),
            corners: quads.iter().map(|(q, _)| *q).collect(),
            material: quads.iter().map(|(_, m)| *m).collect(),
            by_edge,
        }
    }

    fn allowed(&self, (q, r): Link) -> bool {
        r % 2 == 0 || self.turnable[q]
    }

    /// The strip seeded by `seed` among the quads not `taken`, and whether it closes into a ring.
    fn strip(&self, seed: Link, taken: &[bool]) -> (Vec<Link>, bool) {
        let material = self.material[seed.0];
        let mut inside = taken.to_vec();
        inside[seed.0] = true;
        let free = |inside: &[bool], (q, r): Link| {
            !inside[q] && self.material[q] == material && self.allowed((q, r))
        };
        let mut forward = vec![seed];
        loop {
            // The next quad holds the exit pair's edge t_k+1 -> b_k+1 as its corners r, r + 1.
            let (q, r) = forward[forward.len() - 1];
            let [_, _, b1, t1] = rotated(self.corners[q], r);
            let holders = self.by_edge.get(&(t1, b1)).map_or(&[][..], Vec::as_slice);
            if holders.contains(&seed) {
                return (forward, true);
            }
            match holders.iter().copied().find(|&l| free(&inside, l)) {
                Some(next) => {
                    inside[next.0] = true;
                    forward.push(next);
                }
                None => break,
            }
        }
        let mut backward = Vec::new();
        let mut first = seed;
        loop {
            // The previous quad holds the entry pair's edge b_k -> t_k as its corners r + 2, r + 3.
            let [t0, b0, _, _] = rotated(self.corners[first.0], first.1);
            let holders = self.by_edge.get(&(b0, t0)).map_or(&[][..], Vec::as_slice);
            match holders
                .iter()
                .map(|&(q, k)| (q, (k + 2) % 4))
                .find(|&l| free(&inside, l))
            {
                Some(previous) => {
                    inside[previous.0] = true;
                    backward.push(previous);
                    first = previous;
                }
                None => break,
            }
        }
        backward.reverse();
        backward.extend(forward);
        (backward, false)
    }

    /// The pairs of a strip of links.
    fn pairs(&self, links: &[Link]) -> Vec<[u16; 2]> {
        let [t0, b0, _, _] = rotated(self.corners[links[0].0], links[0].1);
        let mut out = vec![[t0, b0]];
        for &(q, r) in links {
            let [_, _, b1, t1] = rotated(self.corners[q], r);
            out.push([t1, b1]);
        }
        out
    }
}

/// The runs of `faces` (see the module's documentation). `turnable([a, b, c, d])` says whether the quad
/// (a, b, c) + (a, c, d) may be drawn split along b-d instead.
pub fn runs(faces: &[Face], turnable: impl Fn([u16; 4]) -> bool) -> Vec<Run> {
    let quads = Quads::new(
        faces
            .iter()
            .filter_map(|f| {
                if let Face::Quad(q, m) = *f {
                    Some((q, m))
                } else {
                    None
                }
            })
            .collect(),
        turnable,
    );
    let count = quads.corners.len();
    let mut taken = vec![false; count];
    let mut out = Vec::new();
    let mut lone = vec![false; count];
    // Closed rings first, so that no open strip cuts through a band it could have closed.
    for rings_only in [true, false] {
        for seed in 0..count {
            if taken[seed] {
                continue;
            }
            // Both axes: across the source diagonal (rotation 0), and along it if the quad may turn.
            // A ring wins, then the longer strip; on a tie the last maximum, rotation 0 (hence `rev`).
            let (links, closed) = [(seed, 0), (seed, 1)]
                .into_iter()
                .filter(|&l| quads.allowed(l))
                .map(|l| quads.strip(l, &taken))
                .rev()
                .max_by_key(|(links, closed)| (*closed, links.len()))
                .expect("rotation 0 is always allowed");
            if rings_only && !closed {
                continue;
            }
            for &(q, _) in &links {
                taken[q] = true;
            }
            if links.len() == 1 {
                lone[seed] = true;
            } else {
                out.push(Run {
                    material: quads.material[seed],
                    body: Body::Strip(quads.pairs(&links)),
                });
            }
        }
    }
    let mut materials: Vec<u8> = faces.iter().map(Face::material).collect();
    materials.sort();
    materials.dedup();
    for &m in &materials {
        let alone: Vec<[u16; 4]> = (0..count)
            .filter(|&q| lone[q] && quads.material[q] == m)
            .map(|q| quads.corners[q])
            .collect();
        if !alone.is_empty() {
            out.push(Run {
                material: m,
                body: Body::Quads(alone),
            });
        }
    }
    for &m in &materials {
        let triangles: Vec<[u16; 3]> = faces
            .iter()
            .filter_map(|f| {
                if let Face::Triangle(t, fm) = *f {
                    (fm == m).then_some(t)
                } else {
                    None
                }
            })
            .collect();
        if !triangles.is_empty() {
            out.push(Run {
                material: m,
                body: Body::Triangles(triangles),
            });
        }
    }
    out
}

/// Most primitives a run header counts (its 14-bit count field); longer runs are split.
const MAX_RUN_COUNT: usize = 0x3FFF;

/// The encoded stream and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// The runs' words, then the end word.
    pub words: Vec<u32>,
    /// Triangles, a quad counting two (the blob header's triangle count).
    pub triangles: usize,
    pub quads: usize,
    /// Strip runs (after splitting).
    pub strips: usize,
}

impl Stream {
    /// No primitives: the end word alone.
    pub fn empty() -> Self {
        Stream {
            words: vec![STREAM_END],
            triangles: 0,
            quads: 0,
            strips: 0,
        }
    }
}

/// The base of a window that starts at vertex `v`: the run header's unit below it.
fn base_below(v: usize) -> usize {
    v / RUN_BASE_UNIT * RUN_BASE_UNIT
}

/// The base from which every vertex of `lo..=hi` lies below `reach`, if any: 0 when it can be (a
/// character within one window keeps every base 0), else the unit below `lo`.
fn window(lo: usize, hi: usize, reach: usize) -> Option<usize> {
    let base = if hi < reach { 0 } else { base_below(lo) };
    (hi - base < reach && base <= MAX_RUN_BASE).then_some(base)
}

/// `items` (a primitive's vertices each) split greedily into pieces of at most [`MAX_RUN_COUNT`]
/// primitives whose vertices all lie within `reach` of one base: `(base, first, count)`. A strip's
/// pieces (`shared`) share their boundary pair, so a piece of `count` quads spans `count + 1` items.
fn pieces<const N: usize>(items: &[[u16; N]], reach: usize, shared: bool) -> Result<Vec<(usize, usize, usize)>, String> {
    let span = |t: &[u16; N]| (*t.iter().min().unwrap_or(&0) as usize, *t.iter().max().unwrap_or(&0) as usize);
    let extra = shared as usize;
    let mut out = Vec::new();
    let mut first = 0;
    while first + extra < items.len() {
        let (mut lo, mut hi) = span(&items[first]);
        let mut base = None;
        let mut end = first;
        while end < items.len() && end - first < MAX_RUN_COUNT + extra {
            let (a, b) = span(&items[end]);
            match window(lo.min(a), hi.max(b), reach) {
                Some(w) => {
                    (lo, hi, base) = (lo.min(a), hi.max(b), Some(w));
                    end += 1;
                }
                None => break,
            }
        }
        let count = (end - first).saturating_sub(extra);
        let Some(base) = base.filter(|_| count > 0) else {
            let (a, b) = (span(&items[first]), span(&items[(first + extra).min(items.len() - 1)]));
            return Err(format!(
                "a primitive uses vertices {} and {}, {} apart; one run reaches {} vertices from a base that is a \
                 multiple of {RUN_BASE_UNIT}, at most {MAX_STREAM_VERTICES}",
                a.0.min(b.0),
                a.1.max(b.1),
                a.1.max(b.1) - a.0.min(b.0),
                reach
            ));
        };
        out.push((base, first, count));
        first += count;
    }
    Ok(out)
}

/// Triangles or quads in the order of their first vertex when any reaches past one window (so that
/// runs split into few windows), else as they are (a character within one window keeps its order).
fn by_first_vertex<const N: usize>(items: &[[u16; N]]) -> Vec<[u16; N]> {
    let mut out = items.to_vec();
    if items.iter().flatten().any(|&v| v as usize >= MAX_INDEXED_VERTICES) {
        out.sort_by_key(|t| *t.iter().min().unwrap_or(&0));
    }
    out
}

/// The words of `runs`, material `m` coloured `colours[m]`. Each run's indices count from a base
/// vertex: a run whose primitives reach past one window ([`MAX_INDEXED_VERTICES`] from a base; a
/// strip's [`MAX_STRIP_INDEXED_VERTICES`]) is split into runs of one window each, its triangles and
/// quads taken in the order of their first vertex (a character under 1,024 vertices keeps one base,
/// 0, and its order). Fails on a primitive no window holds or a material without a colour.
pub fn encode(runs: &[Run], colours: &[[u8; 3]]) -> Result<Stream, String> {
    let mut out = Stream::empty();
    out.words.clear();
    for run in runs {
        let m = run.material;
        let [r, g, b] = *colours
            .get(m as usize)
            .ok_or_else(|| format!("material {m} has no colour"))?;
        let colour = r as u32 | (g as u32) << 8 | (b as u32) << 16;
        let head = |kind: u32, count: usize, base: usize, gp0: u32, words: &mut Vec<u32>| {
            words.push(run_header_from(kind, count, m, base));
            words.push(gp0 | colour);
        };
        match &run.body {
            Body::Triangles(ts) => {
                let ts = by_first_vertex(ts);
                for (base, first, count) in pieces(&ts, MAX_INDEXED_VERTICES, false)? {
                    head(RUN_TRIANGLES, count, base, GP0_FLAT_TRIANGLE, &mut out.words);
                    out.words.extend(ts[first..first + count].iter().map(|t| {
                        let [a, b, c] = t.map(|v| v as usize - base);
                        pack3(a, b, c)
                    }));
                    out.triangles += count;
                }
            }
            Body::Quads(qs) => {
                let qs = by_first_vertex(qs);
                for (base, first, count) in pieces(&qs, MAX_INDEXED_VERTICES, false)? {
                    head(RUN_QUADS, count, base, GP0_FLAT_QUAD, &mut out.words);
                    for q in &qs[first..first + count] {
                        let [a, b, c, d] = q.map(|v| v as usize - base);
                        out.words.extend([pack3(a, b, c), pack3(d, 0, 0)]);
                    }
                    out.quads += count;
                }
            }
            Body::Strip(pairs) => {
                // Consecutive pieces share their boundary pair.
                for (base, first, count) in pieces(pairs, MAX_STRIP_INDEXED_VERTICES, true)? {
                    head(RUN_STRIP, count, base, GP0_FLAT_QUAD, &mut out.words);
                    out.words.extend(
                        pairs[first..=first + count]
                            .iter()
                            .map(|&[t, b]| pack_pair(t as usize - base, b as usize - base)),
                    );
                    out.quads += count;
                    out.strips += 1;
                }
            }
        }
    }
    out.words.push(STREAM_END);
    out.triangles += 2 * out.quads;
    Ok(out)
}

/// Whether the quad at positions `p` (winding order) is strictly convex: every corner turns the same way
/// as the quad's normal (the cross product of its diagonals), so both diagonals lie inside it. Exact
/// (integer) for a planar quad; a quad bent within the pairing tolerance is judged by its projection
/// onto that normal.
pub fn convex_quad(p: [[i16; 3]; 4]) -> bool {
    let p = p.map(|v| v.map(i128::from));
    let sub = |u: [i128; 3], v: [i128; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let cross = |u: [i128; 3], v: [i128; 3]| {
        [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ]
    };
    let dot = |u: [i128; 3], v: [i128; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let normal = cross(sub(p[2], p[0]), sub(p[3], p[1]));
    (0..4).all(|k| {
        let turn = cross(
            sub(p[(k + 1) % 4], p[k]),
            sub(p[(k + 2) % 4], p[(k + 1) % 4]),
        );
        dot(turn, normal) > 0
    })
}

/// A `turnable` for [`runs`]: in each of `views` (the vertex positions of every pose the console draws:
/// rigid-gte's bone-local positions, as one matrix moves a quad's four corners; baked-vertices' bind
/// positions and every decoded frame) the quad is strictly convex and, split along b-d, as flat as the
/// pairing asked of its split along a-c (`max_bend`): the console culls it by a triangle of that split.
pub fn turnable<'a>(views: Vec<&'a [[i16; 3]]>, max_bend: f64) -> impl Fn([u16; 4]) -> bool + 'a {
    move |q: [u16; 4]| {
        views.iter().all(|positions| {
            let p = q.map(|v| positions[v as usize]);
            convex_quad(p) && flat_quad([p[1], p[2], p[3], p[0]], max_bend)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::blob::{assemble, BlobParts};
    use crate::compile::quads::tests::{grid, mesh, Mesh};
    use crate::compile::quads::{pair_quads, MAX_QUAD_BEND};
    use proptest::prelude::*;
    use psxanim_runtime::tables::{Storage, Tables};

    /// A face's outline (3 or 4 corners in winding order) rotated to start at its smallest vertex: a
    /// rotation keeps the winding, which is the facing.
    fn outline(corners: &[u16]) -> Vec<u16> {
        let k = (0..corners.len()).min_by_key(|&k| corners[k]).unwrap();
        (0..corners.len())
            .map(|i| corners[(k + i) % corners.len()])
            .collect()
    }

    /// The faces the runs draw, written from the stream's definition: a triangle (a, b, c), a quad
    /// (a, b, c, d), strip quad k (t_k, b_k, b_k+1, t_k+1); as a sorted multiset of outlines.
    fn drawn(runs: &[Run]) -> Vec<(Vec<u16>, u8)> {
        let mut out = Vec::new();
        for run in runs {
            let m = run.material;
            match &run.body {
                Body::Triangles(ts) => out.extend(ts.iter().map(|t| (outline(t), m))),
                Body::Quads(qs) => out.extend(qs.iter().map(|q| (outline(q), m))),
                Body::Strip(pairs) => out.extend(
                    pairs
                        .windows(2)
                        .map(|w| (outline(&[w[0][0], w[0][1], w[1][1], w[1][0]]), m)),
                ),
            }
        }
        out.sort();
        out
    }

    fn source(faces: &[Face]) -> Vec<(Vec<u16>, u8)> {
        let mut out: Vec<_> = faces
            .iter()
            .map(|f| match f {
                Face::Triangle(t, m) => (outline(t), *m),
                Face::Quad(q, m) => (outline(q), *m),
            })
            .collect();
        out.sort();
        out
    }

    /// The triangle with its smallest vertex first.
    fn normalised(v: [u16; 3]) -> [u16; 3] {
        outline(&v).try_into().unwrap()
    }

    /// Each strip's quads (t_k, b_k, b_k+1, t_k+1).
    fn strip_quads(runs: &[Run]) -> Vec<Vec<[u16; 4]>> {
        let strips = runs.iter().filter_map(|r| {
            if let Body::Strip(p) = &r.body {
                Some(p)
            } else {
                None
            }
        });
        strips
            .map(|p| {
                p.windows(2)
                    .map(|w| [w[0][0], w[0][1], w[1][1], w[1][0]])
                    .collect()
            })
            .collect()
    }

    fn convex_at(p: &[[i16; 3]]) -> impl Fn([u16; 4]) -> bool + '_ {
        turnable(vec![p], MAX_QUAD_BEND)
    }

    /// A tube of `around` quads per ring and `rings` rings along z (vertex ring * around + k), wound
    /// outwards, each quad split along either diagonal (`diagonal(quad)`), in ring order.
    fn tube(around: u16, rings: u16, diagonal: impl Fn(u16) -> bool) -> (Vec<[i16; 3]>, Vec<Face>) {
        let mut p = Vec::new();
        for ring in 0..=rings {
            for k in 0..around {
                let angle = k as f64 * std::f64::consts::TAU / around as f64;
                p.push([
                    (400.0 * angle.cos()).round() as i16,
                    (400.0 * angle.sin()).round() as i16,
                    ring as i16 * 300,
                ]);
            }
        }
        let mut faces = Vec::new();
        for ring in 0..rings {
            for k in 0..around {
                let v = |r: u16, k: u16| r * around + k % around;
                let q = [
                    v(ring, k),
                    v(ring, k + 1),
                    v(ring + 1, k + 1),
                    v(ring + 1, k),
                ];
                let q = if diagonal(ring * around + k) {
                    q
                } else {
                    [q[1], q[2], q[3], q[0]]
                };
                faces.push(Face::Quad(q, 0));
            }
        }
        (p, faces)
    }

    #[test]
    fn a_tube_band_is_one_closed_ring_of_eight_whichever_diagonals_its_quads_had() {
        for pattern in [0u16, 0xFF, 0b1010_0110] {
            let (p, faces) = tube(8, 1, |q| pattern >> q & 1 == 1);
            let out = runs(&faces, convex_at(&p));
            assert_eq!(out.len(), 1, "pattern {pattern:#x}: {out:?}");
            let Body::Strip(pairs) = &out[0].body else {
                panic!("{out:?}")
            };
            assert_eq!(pairs.len(), 9);
            assert_eq!(pairs[0], pairs[8], "a ring repeats its first pair");
            assert_eq!(drawn(&out), source(&faces));
        }
    }

    #[test]
    fn a_tube_of_four_rings_is_four_rings_not_eight_lengthwise_strips() {
        let (p, faces) = tube(8, 4, |q| q % 3 == 0);
        let out = runs(&faces, convex_at(&p));
        let strips = strip_quads(&out);
        assert_eq!(
            strips.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![8; 4],
            "{out:?}"
        );
        assert_eq!(out.len(), 4);
        assert_eq!(drawn(&out), source(&faces));
    }

    #[test]
    fn a_strip_grows_both_ways_from_its_seed_and_keeps_one_material() {
        // A row of 5 squares along x; the middle one comes first in face order.
        let p: Vec<[i16; 3]> = (0..12)
            .map(|v| [(v / 2) as i16 * 100, (v % 2) as i16 * 100, 0])
            .collect();
        let square = |k: u16| [2 * k, 2 * k + 2, 2 * k + 3, 2 * k + 1];
        let faces: Vec<Face> = [2, 0, 4, 1, 3].map(|k| Face::Quad(square(k), 0)).to_vec();
        let out = runs(&faces, convex_at(&p));
        assert_eq!(
            strip_quads(&out).iter().map(Vec::len).collect::<Vec<_>>(),
            vec![5]
        );
        assert_eq!(drawn(&out), source(&faces));
        // Square 3 of another material splits the row: squares 0-2, and 3 and 4 as lone quads.
        let mut mixed = faces.clone();
        mixed[4] = Face::Quad(square(3), 1);
        let out = runs(&mixed, convex_at(&p));
        assert_eq!(
            out.iter()
                .map(|r| (r.material, std::mem::discriminant(&r.body)))
                .collect::<Vec<_>>(),
            vec![
                (0, std::mem::discriminant(&Body::Strip(vec![]))),
                (0, std::mem::discriminant(&Body::Quads(vec![]))),
                (1, std::mem::discriminant(&Body::Quads(vec![]))),
            ]
        );
        assert_eq!(strip_quads(&out)[0].len(), 3);
        assert_eq!(drawn(&out), source(&mixed));
    }

    #[test]
    fn a_concave_quad_never_enters_a_strip_across_its_inner_diagonal() {
        // Square A = 0-1-2-3 and, on its right edge, the dart B = 1-4-5-2, concave at 5 (130, 50): only
        // its diagonal 1-5 lies inside it, and that is how it was paired. A strip from A enters B at the
        // pair (2, 1) and would split it along 2-4, outside it.
        let dart: Vec<[i16; 3]> = vec![
            [0, 0, 0],
            [100, 0, 0],
            [100, 100, 0],
            [0, 100, 0],
            [200, 0, 0],
            [130, 50, 0],
        ];
        let faces = vec![Face::Quad([0, 1, 2, 3], 0), Face::Quad([1, 4, 5, 2], 0)];
        assert!(flat_quad([1, 4, 5, 2].map(|v| dart[v]), MAX_QUAD_BEND));
        assert!(!convex_quad([1, 4, 5, 2].map(|v| dart[v])));
        let out = runs(&faces, convex_at(&dart));
        assert_eq!(
            out,
            vec![Run {
                material: 0,
                body: Body::Quads(vec![[0, 1, 2, 3], [1, 4, 5, 2]])
            }]
        );
        // With 5 at (170, 80) B is convex and both are one strip.
        let mut kite = dart.clone();
        kite[5] = [170, 80, 0];
        assert!(convex_quad([1, 4, 5, 2].map(|v| kite[v])));
        let out = runs(&faces, convex_at(&kite));
        assert_eq!(
            strip_quads(&out).iter().map(Vec::len).collect::<Vec<_>>(),
            vec![2]
        );
        assert_eq!(drawn(&out), source(&faces));
    }

    #[test]
    fn convex_quad_wants_every_corner_to_turn_the_same_way() {
        let square = [[0, 0, 0], [100, 0, 0], [100, 100, 0], [0, 100, 0]];
        assert!(convex_quad(square));
        // Either winding, any orientation in space.
        assert!(convex_quad([square[3], square[2], square[1], square[0]]));
        assert!(convex_quad([
            [0, 0, 0],
            [0, 100, 0],
            [0, 100, 100],
            [0, 0, 100]
        ]));
        // Three collinear corners (not strictly convex), a dart, a bow tie.
        assert!(!convex_quad([
            [0, 0, 0],
            [50, 0, 0],
            [100, 0, 0],
            [0, 100, 0]
        ]));
        assert!(!convex_quad([
            [0, 0, 0],
            [100, 0, 0],
            [30, 30, 0],
            [0, 100, 0]
        ]));
        assert!(!convex_quad([
            [0, 0, 0],
            [100, 100, 0],
            [100, 0, 0],
            [0, 100, 0]
        ]));
        let (m, n) = (i16::MAX, i16::MIN);
        assert!(convex_quad([[n, n, n], [m, n, n], [m, m, m], [n, m, m]]));
    }

    #[test]
    fn runs_come_as_strips_then_lone_quads_then_triangles_by_material() {
        let p: Vec<[i16; 3]> = (0..12)
            .map(|v| [(v / 2) as i16 * 100, (v % 2) as i16 * 100, 0])
            .collect();
        let square = |k: u16| [2 * k, 2 * k + 2, 2 * k + 3, 2 * k + 1];
        let faces = vec![
            Face::Triangle([0, 2, 3], 1),
            Face::Quad(square(4), 1),
            Face::Triangle([4, 6, 7], 0),
            Face::Quad(square(1), 0),
            Face::Quad(square(2), 0),
        ];
        let out = runs(&faces, convex_at(&p));
        let kinds: Vec<(u8, &str)> = out
            .iter()
            .map(|r| match r.body {
                Body::Strip(_) => (r.material, "strip"),
                Body::Quads(_) => (r.material, "quads"),
                Body::Triangles(_) => (r.material, "triangles"),
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                (0, "strip"),
                (1, "quads"),
                (0, "triangles"),
                (1, "triangles")
            ]
        );
        assert_eq!(drawn(&out), source(&faces));
    }

    /// Random tubes: 3 to 6 quads around, 1 to 3 rings, random diagonals, a random corner pulled inwards
    /// (making its quads bent or concave), faces shuffled.
    fn tubes() -> impl Strategy<Value = Mesh> {
        (3u16..7, 1u16..4, any::<u16>(), any::<usize>(), -300i16..300).prop_flat_map(
            |(around, rings, pattern, pulled, by)| {
                let (mut p, faces) = tube(around, rings, |q| pattern >> (q % 16) & 1 == 1);
                let pulled = pulled % p.len();
                p[pulled][0] = p[pulled][0].saturating_add(by);
                let tris: Vec<([u16; 3], u8)> = faces
                    .iter()
                    .flat_map(|f| f.triangles().into_iter().map(move |t| (t, f.material())))
                    .collect();
                (Just(p), Just(tris).prop_shuffle())
            },
        )
    }

    /// A one-bone rigid blob over `vertices` holding `primitives`, two materials, no clips.
    fn blob_of(vertices: &[[i16; 3]], primitives: Stream) -> Vec<u8> {
        let parts = BlobParts {
            storage: Storage::RigidGte,
            bounds: [[-100; 3], [100; 3]],
            bones: vec![("root", None, 0, vertices.len() as u16)],
            vertices,
            primitives,
            materials: vec![("a", [255, 0, 0]), ("b", [0, 255, 0])],
            clips: vec![],
            payloads: &[],
            blend_pairs: vec![],
            blend_groups: vec![],
            textured: None,
            normals: None,
        };
        assemble(&parts).unwrap().blob
    }

    /// The faces the parsed blob draws as outlines: a quad run's points b, c, a, d are the quad (a, b, c,
    /// d), a strip's b_k, t_k, b_k+1, t_k+1 the quad (t_k, b_k, b_k+1, t_k+1); a quad facing as (a, b, c)
    /// is a quad run's, as (t_k, b_k+1, t_k+1) a strip's.
    fn parsed(blob: &[u8]) -> Vec<(Vec<u16>, u8)> {
        let t = Tables::parse(blob).unwrap();
        let mut out: Vec<_> = t
            .primitives()
            .map(|p| {
                let q = p.points;
                let w = match (p.quad, p.facing == [q[2], q[0], q[1]]) {
                    (false, _) => p.facing.to_vec(),
                    (true, true) => vec![q[2], q[0], q[1], q[3]],
                    (true, false) => {
                        assert_eq!(p.facing, [q[1], q[2], q[3]]);
                        vec![q[1], q[0], q[2], q[3]]
                    }
                };
                (outline(&w), p.material)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn encoding_splits_runs_past_the_header_count_and_strips_share_the_boundary_pair() {
        let triangles = Run {
            material: 1,
            body: Body::Triangles(vec![[1, 2, 3]; MAX_RUN_COUNT + 2]),
        };
        let strip: Vec<[u16; 2]> = (0..MAX_RUN_COUNT as u16 + 3)
            .map(|k| [k % 1000, 1000 + k % 7])
            .collect();
        let stream = encode(
            &[
                triangles,
                Run {
                    material: 0,
                    body: Body::Strip(strip.clone()),
                },
            ],
            &[[1, 2, 3], [4, 5, 6]],
        )
        .unwrap();
        let w = &stream.words;
        assert_eq!(w[0], 1 << 16 | (MAX_RUN_COUNT as u32) << 2);
        assert_eq!(w[1], 0x20 << 24 | 0x06_05_04);
        assert_eq!(w[2], 1 << 2 | 2 << 12 | 3 << 22);
        let second = 2 + MAX_RUN_COUNT;
        assert_eq!(
            w[second..second + 3],
            [1 << 16 | 2 << 2, 0x20 << 24 | 0x06_05_04, w[2]]
        );
        let strip_at = second + 4;
        assert_eq!(
            w[strip_at..strip_at + 3],
            [
                2 | (MAX_RUN_COUNT as u32) << 2,
                0x28 << 24 | 0x03_02_01,
                1000 << 18
            ]
        );
        let next = strip_at + 2 + MAX_RUN_COUNT + 1;
        // The second piece starts at the first's last pair and holds the remaining 2 quads.
        assert_eq!(w[next..next + 2], [2 | 2 << 2, 0x28 << 24 | 0x03_02_01]);
        assert_eq!(w[next + 2], w[next - 1]);
        assert_eq!(w[next + 5..], [3]);
        assert_eq!((stream.quads, stream.strips), (MAX_RUN_COUNT + 2, 2));
        assert_eq!(
            stream.triangles,
            MAX_RUN_COUNT + 2 + 2 * (MAX_RUN_COUNT + 2)
        );
        // Past one window: runs from the unit below their first vertex, in the order of it.
        let far = encode(
            &[Run { material: 0, body: Body::Triangles(vec![[3000, 3001, 3900], [0, 1, 1023], [1500, 1501, 1502]]) }],
            &[[0; 3]],
        )
        .unwrap();
        let gp0 = 0x20 << 24;
        assert_eq!(
            far.words,
            [
                1 << 2,
                gp0,
                pack3(0, 1, 1023),
                (1488 / 16) << 24 | 1 << 2,
                gp0,
                pack3(12, 13, 14),
                (2992 / 16) << 24 | 1 << 2,
                gp0,
                pack3(8, 9, 908),
                STREAM_END
            ]
        );
        // No window holds a triangle whose vertices lie 1,024 apart.
        let err = encode(&[Run { material: 0, body: Body::Triangles(vec![[0, 1, 2], [1000, 2030, 2031]]) }], &[[0; 3]]).unwrap_err();
        assert!(err.contains("vertices 1000 and 2031, 1031 apart"), "{err}");
        assert!(encode(
            &[Run {
                material: 2,
                body: Body::Triangles(vec![[0, 1, 2]])
            }],
            &[[0; 3]]
        )
        .is_err());
        assert_eq!(encode(&[], &[]).unwrap(), Stream::empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn a_mesh_past_one_window_is_drawn_through_runs_of_several_bases(
            (p, tris) in prop_oneof![mesh(), grid(), tubes()], reversed in any::<bool>()
        ) {
            // Copies of the mesh side by side until they pass 1,024 vertices (each copy's faces stay
            // within its own vertices, as a rigid character's stay near their bones' ranges): the last
            // copies' indices fit no 10-bit field from base 0.
            prop_assume!(!tris.is_empty());
            let n = p.len();
            let copies = (1100 / n + 1).min(4000 / n);
            let all: Vec<[i16; 3]> = (0..copies).flat_map(|_| p.iter().copied()).collect();
            let mut order: Vec<usize> = (0..copies).collect();
            if reversed {
                order.reverse();
            }
            let all_tris: Vec<([u16; 3], u8)> = order
                .iter()
                .flat_map(|&j| tris.iter().map(move |(t, m)| (t.map(|v| v + (j * n) as u16), *m)))
                .collect();
            let faces = pair_quads(&all_tris, |q| flat_quad(q.map(|v| all[v as usize]), MAX_QUAD_BEND));
            let stream = encode(&runs(&faces, convex_at(&all)), &[[255, 0, 0], [0, 255, 0]]).unwrap();
            prop_assert_eq!(parsed(&blob_of(&all, stream)), source(&faces));
        }

        #[test]
        fn runs_draw_the_source_triangles_and_strips_split_quads_inside_them(
            (p, tris) in prop_oneof![mesh(), grid(), tubes()]
        ) {
            let faces = pair_quads(&tris, |q| flat_quad(q.map(|v| p[v as usize]), MAX_QUAD_BEND));
            let out = runs(&faces, convex_at(&p));
            prop_assert_eq!(drawn(&out), source(&faces));
            // Through the words, the blob and the runtime's reader: the same faces.
            prop_assert_eq!(parsed(&blob_of(&p, encode(&out, &[[255, 0, 0], [0, 255, 0]]).unwrap())), source(&faces));
            let halves: Vec<[u16; 3]> = faces.iter().flat_map(Face::triangles).map(normalised).collect();
            for strip in strip_quads(&out) {
                prop_assert!(strip.len() >= 2);
                for [t0, b0, b1, t1] in strip {
                    // Split along t0 - b1: inside a convex quad, or the diagonal it was paired along.
                    let paired_so = halves.contains(&normalised([t0, b0, b1])) && halves.contains(&normalised([t0, b1, t1]));
                    prop_assert!(convex_quad([t0, b0, b1, t1].map(|v| p[v as usize])) || paired_so);
                }
            }
        }
    }
}
