//! Planar quads in the compiled fixture character: which triangle pairs the importer flags as one quad
//! (`QUAD_WITH_NEXT`), checked against the blob format and, independently of the importer's own test,
//! against the geometry the console will draw.

mod import_support;

use import_support::{drawn_triangles, fixtures, normalised};
use psxanim::compile::{compile, CompileOptions, Compiled, StorageMode};
use psxanim::fbx::{import, Character, ImportOptions};
use psxanim_runtime::tables::Tables;

fn load() -> Character {
    import(&fixtures().join("character.fbx"), &ImportOptions::default(), &mut |_, _, _| {})
        .expect("the fixture imports")
}

fn compiled(c: &Character, storage: StorageMode, max_error: Option<f64>) -> Compiled {
    compile(c, &CompileOptions { storage, max_error }).expect("the fixture compiles")
}

/// Each quad as its corners (a, b, c, d): its facing triangle (a, b, c), its other one (a, c, d).
fn quads(t: &Tables) -> Vec<[u16; 4]> {
    let mut out = Vec::new();
    for p in t.primitives().filter(|p| p.quad) {
        let [a, b, c] = p.facing;
        assert_eq!(p.second[..2], [a, c], "{p:?}");
        out.push([a, b, c, p.second[2]]);
    }
    out
}

/// The bend test written out in floating point: both halves have area and face the same way, and each
/// half's far corner lies within one unit (plus float slack) of the other half's plane.
fn flat(p: [[i16; 3]; 4]) -> bool {
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
        && distance(n1, d) <= 1.0 + 1e-9
        && distance(n2, b) <= 1.0 + 1e-9
}

fn source_triangles(c: &Character) -> Vec<([usize; 3], usize)> {
    let mut out: Vec<_> = c.triangles.iter().map(|t| normalised(t.vertices, t.material)).collect();
    out.sort();
    out
}

/// The file's vertex of each rigid blob vertex (ranges hold vertices by bone, file order within one).
fn rigid_order(c: &Character) -> Vec<usize> {
    let mut order: Vec<usize> = (0..c.vertices.len()).collect();
    order.sort_by_key(|&v| c.vertices[v].bone);
    order
}

#[test]
fn rigid_fixture_pairs_every_tube_quad_and_most_cap_triangles() {
    let c = load();
    let out = compiled(&c, StorageMode::RigidGte, None);
    let t = Tables::parse(&out.blob).unwrap();
    let quads = quads(&t);
    // 11 bones x (4 rings x 8 tube quads = 32, plus two 8-gon caps of 6 triangles, 3 pairs at best):
    // every tube quad and 57 of the 66 possible cap pairs (ufbx's ear clipping leaves 9 caps with two
    // triangles that share no edge once the greedy walk has paired the others).
    assert_eq!(quads.len(), 321);
    assert_eq!(out.report.quads, quads.len());
    assert_eq!(drawn_triangles(&t, |v| rigid_order(&c)[v as usize]), source_triangles(&c));
    let bone_of = |v: u16| (0..t.bone_count()).find(|&b| (v - t.bone(b).first_vertex) < t.bone(b).vertex_count);
    for q in &quads {
        assert!(q.iter().all(|&v| bone_of(v) == bone_of(q[0])), "{q:?} spans bones");
        assert!(flat(q.map(|v| t.vertex(v as usize))), "{q:?} is bent in its bone's space");
    }
}

#[test]
fn baked_fixture_pairs_only_quads_flat_in_every_decoded_frame() {
    let c = load();
    let out = compiled(&c, StorageMode::BakedVertices, None);
    let t = Tables::parse(&out.blob).unwrap();
    let quads = quads(&t);
    // Each vertex moves on its own, rounded to the Q8 step of 16 units: most quads that bend at a
    // joint, or by rounding, in any frame stay two triangles; the rigid blob pairs 321.
    assert!((20..150).contains(&quads.len()), "{}", quads.len());
    assert_eq!(out.report.quads, quads.len());
    assert_eq!(drawn_triangles(&t, |v| v as usize), source_triangles(&c));
    let mut frame = vec![[0i16; 3]; t.vertex_count()];
    for q in &quads {
        assert!(flat(q.map(|v| t.vertex(v as usize))), "{q:?} is bent in the bind pose");
    }
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            t.decode_baked_frame(ci, f, &mut frame).unwrap();
            for q in &quads {
                assert!(flat(q.map(|v| frame[v as usize])), "{q:?} is bent in clip {ci} frame {f}");
            }
        }
    }
}

#[test]
fn a_corner_pulled_out_of_its_quad_unpairs_it_in_both_modes() {
    let c = load();
    // Pull the Spine's first vertex 41 units away in a direction along no face of the fixture (which
    // are parallel or square to the bones), out of its tube quads and its cap alike.
    let pulled = c.vertices.iter().position(|v| c.bones[v.bone].name == "Spine").unwrap();
    let mut bent = c.clone();
    let p = &mut bent.vertices[pulled].bind;
    *p = [p[0] + 23.0, p[1] + 17.0, p[2] + 29.0];
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
        let source = |v: u16| if storage == StorageMode::RigidGte { rigid_order(&c)[v as usize] } else { v as usize };
        assert_eq!(drawn_triangles(&t, source), source_triangles(&c));
        if storage == StorageMode::RigidGte {
            assert!(before > 0, "{storage:?}: the pulled vertex was in no quad to begin with");
        }
        assert_eq!(holding(&after), 0, "{storage:?}: a quad still holds the pulled vertex ({before} before)");
    }
}
