//! Planar quads and quad strips in the compiled fixture character's primitive stream, checked against
//! the blob format and, independently of the importer's own test, against the geometry the console will
//! draw.

mod import_support;

use import_support::{cover, fixtures, source_triangles, winding};
use psxanim::compile::{compile, CompileOptions, Compiled, StorageMode};
use psxanim::fbx::{import, Character, ImportOptions};
use psxanim_runtime::tables::Tables;

fn load() -> Character {
    import(&fixtures().join("character.fbx"), &ImportOptions::default(), &mut |_, _, _| {})
        .expect("the fixture imports")
}

fn compiled(c: &Character, storage: StorageMode, max_error: Option<f64>) -> Compiled {
    compile(c, &CompileOptions { storage, max_error, pose_tolerance: None, max_influences: 1, ..Default::default() }).expect("the fixture compiles")
}

/// Every quad of the stream in winding order (blob numbering).
fn quads(t: &Tables) -> Vec<[u16; 4]> {
    t.primitives()
        .filter(|p| p.quad)
        .map(|p| winding(&p).try_into().unwrap())
        .collect()
}

/// The stream's runs read from the blob's words, from the layout's definition: (kind, material, body
/// words) with kind 0 triangles, 1 quads, 2 quad strip.
fn runs(blob: &[u8]) -> Vec<(u32, u8, Vec<u32>)> {
    let word = |at: usize| u32::from_le_bytes(blob[at..at + 4].try_into().unwrap());
    let mut at = word(48) as usize;
    let mut out = Vec::new();
    loop {
        let header = word(at);
        if header == 3 {
            assert_eq!(
                at + 4,
                word(48) as usize + 4 * u16::from_le_bytes([blob[18], blob[19]]) as usize
            );
            return out;
        }
        let (kind, count) = (header & 3, (header >> 2 & 0x3FFF) as usize);
        let body = [count, 2 * count, count + 1][kind as usize];
        out.push((
            kind,
            (header >> 16) as u8,
            (0..body).map(|k| word(at + 8 + 4 * k)).collect(),
        ));
        at += 8 + 4 * body;
    }
}

/// The strips' pairs (t, b).
fn strips(blob: &[u8]) -> Vec<Vec<[u16; 2]>> {
    let pair = |w: u32| [(w & 0xFFFF) as u16 >> 2, (w >> 18) as u16];
    runs(blob)
        .into_iter()
        .filter(|r| r.0 == 2)
        .map(|r| r.2.into_iter().map(pair).collect())
        .collect()
}

/// The bend test written out in floating point: both halves have area and face the same way, and each
/// half's far corner lies within `bend` units (plus float slack) of the other half's plane.
fn flat(p: [[i16; 3]; 4], bend: f64) -> bool {
    let [a, b, c, d] = p.map(|v| v.map(f64::from));
    let sub = |u: [f64; 3], v: [f64; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let cross =
        |u: [f64; 3], v: [f64; 3]| [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    let dot = |u: [f64; 3], v: [f64; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let (n1, n2) = (cross(sub(b, a), sub(c, a)), cross(sub(c, a), sub(d, a)));
    let distance = |n: [f64; 3], p: [f64; 3]| dot(n, sub(p, a)).abs() / dot(n, n).sqrt();
    dot(n1, n1) > 0.0
        && dot(n2, n2) > 0.0
        && dot(n1, n2) > 0.0
        && distance(n1, d) <= bend + 1e-9
        && distance(n2, b) <= bend + 1e-9
}

/// Strictly convex, written out in floating point: the quad's normal (the cross product of its
/// diagonals) and each corner's turn point the same way.
fn convex(p: [[i16; 3]; 4]) -> bool {
    let p = p.map(|v| v.map(f64::from));
    let sub = |u: [f64; 3], v: [f64; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let cross = |u: [f64; 3], v: [f64; 3]| {
        [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ]
    };
    let dot = |u: [f64; 3], v: [f64; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let n = cross(sub(p[2], p[0]), sub(p[3], p[1]));
    (0..4).all(|k| {
        dot(
            cross(
                sub(p[(k + 1) % 4], p[k]),
                sub(p[(k + 2) % 4], p[(k + 1) % 4]),
            ),
            n,
        ) > 0.0
    })
}

/// The file's vertex of each rigid blob vertex (ranges hold vertices by bone, file order within one).
fn rigid_order(c: &Character) -> Vec<usize> {
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    order
}

#[test]
fn rigid_fixture_pairs_every_tube_quad_and_draws_each_tube_band_as_one_ring() {
    let c = load();
    let out = compiled(&c, StorageMode::RigidGte, None);
    let t = Tables::parse(&out.blob).unwrap();
    let quads = quads(&t);
    // 11 bones x (4 rings of 8 vertices: 3 bands of 8 tube quads, plus two 8-gon caps of 6 triangles,
    // 3 pairs at best): every tube quad and 57 of the 66 possible cap pairs (ufbx's ear clipping leaves
    // 9 caps with two triangles that share no edge once the greedy walk has paired the others).
    assert_eq!(quads.len(), 321);
    assert_eq!(
        (out.report.quads, t.quad_count(), t.triangle_count()),
        (321, 321, 660)
    );
    // Each of the 33 tube bands is a closed ring of 8 quads; the caps' quads that share an edge in line
    // make short open strips, the others stay lone quads.
    let strips = strips(&out.blob);
    let rings: Vec<_> = strips
        .iter()
        .filter(|s| s.len() == 9 && s[0] == s[8])
        .collect();
    assert_eq!(rings.len(), 33, "{strips:?}");
    assert_eq!(out.report.strips, strips.len());
    assert_eq!(
        out.report.primitive_words,
        u16::from_le_bytes([out.blob[18], out.blob[19]]) as usize
    );
    let open: usize = strips
        .iter()
        .filter(|s| s[0] != s[s.len() - 1])
        .map(|s| s.len() - 1)
        .sum();
    let lone: usize = runs(&out.blob)
        .iter()
        .filter(|r| r.0 == 1)
        .map(|r| r.2.len() / 2)
        .sum();
    assert_eq!(33 * 8 + open + lone, 321);
    let turned = cover(&t, |v| rigid_order(&c)[v as usize], &source_triangles(&c));
    let bone_of = |v: u16| {
        (0..t.bone_count()).find(|&b| (v - t.bone(b).first_vertex) < t.bone(b).vertex_count)
    };
    for q in &quads {
        assert!(
            q.iter().all(|&v| bone_of(v) == bone_of(q[0])),
            "{q:?} spans bones"
        );
        assert!(
            flat(q.map(|v| t.vertex(v as usize)), 1.0),
            "{q:?} is bent in its bone's space"
        );
    }
    for q in &turned {
        assert!(
            convex(q.map(|v| t.vertex(v as usize))),
            "{q:?} is split across its source diagonal but not convex"
        );
    }
}

#[test]
fn baked_fixture_pairs_only_quads_flat_within_two_decoder_steps_in_every_frame() {
    let c = load();
    let out = compiled(&c, StorageMode::BakedVertices, None);
    let t = Tables::parse(&out.blob).unwrap();
    let quads = quads(&t);
    // Each vertex moves on its own, rounded to the decoder's step of 16 units; the tolerated bend is
    // two steps: the quads that bend more at a joint in some frame stay two triangles (with a
    // one-unit tolerance only 37 paired, with one step 112; the rigid blob pairs 321). The frames are
    // true skinning, whose blended joints bend a few more quads than the strongest bone's pose did
    // (304 paired then).
    assert_eq!(quads.len(), 297);
    assert_eq!((out.report.quads, t.quad_count()), (297, 297));
    assert_eq!(out.report.strips, strips(&out.blob).len());
    let turned = cover(&t, |v| v as usize, &source_triangles(&c));
    let mut frames = vec![(0..t.vertex_count())
        .map(|v| t.vertex(v))
        .collect::<Vec<_>>()];
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            let mut frame = vec![[0i16; 3]; t.vertex_count()];
            t.decode_baked_frame(ci, f, &mut frame).unwrap();
            frames.push(frame);
        }
    }
    for (f, frame) in frames.iter().enumerate() {
        for q in &quads {
            assert!(
                flat(q.map(|v| frame[v as usize]), 32.0),
                "{q:?} is bent in frame {f} (0: bind)"
            );
        }
        for q in &turned {
            assert!(
                convex(q.map(|v| frame[v as usize])),
                "{q:?} is turned but not convex in frame {f} (0: bind)"
            );
        }
    }
}

#[test]
fn a_corner_pulled_out_of_its_quad_unpairs_it_in_both_modes() {
    let c = load();
    // Pull the Spine's first vertex 82 units away in a direction along no face of the fixture (which
    // are parallel or square to the bones), out of its tube quads and its cap alike (beyond the baked
    // tolerance of 32 units too).
    let pulled = c.vertices.iter().position(|v| c.bones[v.bone].name == "Spine").unwrap();
    let mut bent = c.clone();
    let p = &mut bent.vertices[pulled].bind;
    *p = [p[0] + 46.0, p[1] + 34.0, p[2] + 58.0];
    for storage in [StorageMode::RigidGte, StorageMode::BakedVertices] {
        let blob_vertex = |v: usize| match storage {
            StorageMode::RigidGte => rigid_order(&c).iter().position(|&o| o == v).unwrap() as u16,
            StorageMode::BakedVertices => v as u16,
        };
        let holding = |out: &Compiled| {
            let t = Tables::parse(&out.blob).unwrap();
            quads(&t).into_iter().filter(|q| q.contains(&blob_vertex(pulled))).count()
        };
        let before = holding(&compiled(&c, storage, None));
        // The accuracy check would (rightly) refuse the moved vertex; only the pairing is under test.
        let after = compiled(&bent, storage, Some(f64::INFINITY));
        let t = Tables::parse(&after.blob).unwrap();
        let source = |v: u16| {
            if storage == StorageMode::RigidGte {
                rigid_order(&c)[v as usize]
            } else {
                v as usize
            }
        };
        cover(&t, source, &source_triangles(&c));
        if storage == StorageMode::RigidGte {
            assert!(before > 0, "{storage:?}: the pulled vertex was in no quad to begin with");
        }
        assert_eq!(holding(&after), 0, "{storage:?}: a quad still holds the pulled vertex ({before} before)");
    }
}
