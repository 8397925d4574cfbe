//! A lit character (`import --lighting`): each vertex's normal in its bone's space, split at hard
//! edges, refused when damaged; the light stage's colours brighter on the side facing the light.

use std::path::{Path, PathBuf};
use std::process::Command;

use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
use psxanim_runtime::render::camera::placement;
use psxanim_runtime::render::light::{modulate, Lighting};
use psxanim_runtime::render::{render, DrawnTriangle, Outcome, Scratch, TriangleSink};
use psxanim_runtime::anim::FrameSample;
use psxanim_runtime::tables::{TableError, Tables, FLAGS_AT, FLAG_NORMALS_PACKED, NORMALS_AT, VERSION_TEXTURED};

mod import_support;
use import_support::front_camera;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx").join(name)
}

fn import(name: &str, extra: &[&str], dir: &Path) -> Result<Vec<u8>, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", fixture(&format!("{name}.fbx")).to_str().unwrap(), "-o", dir.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(std::fs::read(dir.join(format!("{name}.pxsk"))).unwrap())
}

struct Collect(Vec<DrawnTriangle>);
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push(*t);
        true
    }
}

#[test]
fn normals_are_unit_vectors_in_bone_space_and_a_damaged_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let blob = import("character", &["--storage", "rigid-gte", "--lighting"], dir.path()).unwrap();
    assert_eq!(u16::from_le_bytes([blob[4], blob[5]]), VERSION_TEXTURED);
    let t = Tables::parse(&blob).unwrap();
    assert!(t.has_normals());
    // The box character's faces meet at right angles: a corner vertex becomes one per face.
    assert!(t.vertex_count() > 352, "{} vertices", t.vertex_count());
    for v in 0..t.vertex_count() {
        let n = t.vertex_normal(v);
        let len2 = [n.x, n.y, n.z].iter().map(|&c| c as i64 * c as i64).sum::<i64>();
        assert!((len2 - 4096 * 4096).abs() <= 3 * 4096 + 3, "vertex {v}: {n:?}");
    }
    // Packed: x | y in the normals section, z in each vertex's fourth halfword.
    assert_eq!(word(&blob, FLAGS_AT), FLAG_NORMALS_PACKED);
    let (normals, vertices) = (word(&blob, NORMALS_AT) as usize, word(&blob, 44) as usize);
    for v in 0..t.vertex_count() {
        let z = i16::from_le_bytes([blob[vertices + 8 * v + 6], blob[vertices + 8 * v + 7]]);
        assert_eq!(z, t.vertex_normal(v).z, "vertex {v}");
    }
    // Vertex 1's normal made (0, 0, 100): refused at its normal's offset.
    let mut damaged = blob.clone();
    damaged[normals + 4..normals + 8].copy_from_slice(&[0; 4]);
    damaged[vertices + 14..vertices + 16].copy_from_slice(&100i16.to_le_bytes());
    assert!(matches!(Tables::parse(&damaged), Err(TableError::BadNormal { offset, .. }) if offset == normals + 4));
    // The longest normal a damaged blob can hold (the fuzzer's find: its squared length overflows i32).
    damaged[normals + 4..normals + 8].copy_from_slice(&[0, 0x80, 0, 0x80]);
    damaged[vertices + 14..vertices + 16].copy_from_slice(&i16::MIN.to_le_bytes());
    assert!(matches!(Tables::parse(&damaged), Err(TableError::BadNormal { offset, .. }) if offset == normals + 4));
    // A flag this reader does not know, or a flag without normals, is refused at the flags word.
    let mut flagged = blob.clone();
    flagged[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&3u32.to_le_bytes());
    assert!(matches!(Tables::parse(&flagged), Err(TableError::BadNormal { offset: FLAGS_AT, .. })));
    flagged[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&1u32.to_le_bytes());
    flagged[NORMALS_AT..NORMALS_AT + 4].copy_from_slice(&[0; 4]);
    assert!(matches!(Tables::parse(&flagged), Err(TableError::BadNormal { offset: FLAGS_AT, .. })));
    // Without --lighting nothing changes; baked-vertices refuses it, saying why.
    let plain = import("character", &["--storage", "rigid-gte"], &dir.path().join("plain")).unwrap();
    assert!(!Tables::parse(&plain).unwrap().has_normals());
    let err = import("character", &["--storage", "baked-vertices", "--lighting"], &dir.path().join("baked")).unwrap_err();
    assert!(err.contains("--lighting") && err.contains("rigid-gte"), "{err}");
}

fn word(blob: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(blob[at..at + 4].try_into().unwrap())
}

/// `blob` (packed normals) in the layout written before the flag: an unpacked normals section (x, y,
/// z, 0 a vertex) appended, the vertices' fourth halfwords zero, the flags word zero.
fn unpacked(blob: &[u8]) -> Vec<u8> {
    let t = Tables::parse(blob).unwrap();
    let vertices = word(blob, 44) as usize;
    let mut old = blob.to_vec();
    for v in 0..t.vertex_count() {
        old[vertices + 8 * v + 6..vertices + 8 * v + 8].copy_from_slice(&[0, 0]);
    }
    let at = old.len();
    for v in 0..t.vertex_count() {
        let n = t.vertex_normal(v);
        for c in [n.x, n.y, n.z, 0] {
            old.extend_from_slice(&c.to_le_bytes());
        }
    }
    let size = old.len() as u32;
    old[32..36].copy_from_slice(&size.to_le_bytes());
    old[NORMALS_AT..NORMALS_AT + 4].copy_from_slice(&(at as u32).to_le_bytes());
    old[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&[0; 4]);
    old
}

/// A blob written before normals were packed is still read, its normals the same, and drawn lit
/// with the same colours (by the light stage: the fused pass needs the packed layout), fogged too.
#[test]
fn unpacked_normals_are_read_and_lit_as_packed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let blob = import("character", &["--storage", "rigid-gte", "--lighting"], dir.path()).unwrap();
    let old = unpacked(&blob);
    let (t, u) = (Tables::parse(&blob).unwrap(), Tables::parse(&old).unwrap());
    assert!(u.has_normals() && u.normal_xy_words().is_none() && t.normal_xy_words().is_some());
    assert!((0..t.vertex_count()).all(|v| t.vertex_normal(v) == u.vertex_normal(v) && t.vertex(v) == u.vertex(v)));
    let light = Lighting::one(Vec3i16::new(-2365, -2365, -2365), [150, 120, 90], [30, 30, 40]);
    let fog = psxanim_runtime::render::light::Fog::new([20, 30, 90], 1500, 6000, 300).unwrap();
    for lighting in [light, light.with_fog(fog)] {
        let draw = |tables: &Tables| {
            let mut gte = Gte::with_backend(GteModel::default());
            let camera = front_camera();
            camera.load(&mut gte);
            let mut scratch = Box::<Scratch<1024>>::new(Scratch::new());
            scratch.lighting = Some(lighting);
            let mut sink = Collect(Vec::new());
            let sample = FrameSample { clip: 0, frame: 3, next: 4, weight: 1000 };
            let outcome = render(&mut gte, tables, &camera, &placement(Vec3i32::ZERO, 300), Some(sample), &mut scratch, &mut sink, &mut |_| {});
            assert!(matches!(outcome, Ok(Outcome::Drawn(_))), "{outcome:?}");
            sink.0
        };
        let (packed, old) = (draw(&t), draw(&u));
        assert!(!packed.is_empty() && packed.iter().all(|t| t.rgb.is_some()));
        assert_eq!(packed, old);
    }
}

#[test]
fn the_light_stage_brightens_what_faces_the_light() {
    let dir = tempfile::tempdir().unwrap();
    let blob = import("character", &["--storage", "rigid-gte", "--lighting"], dir.path()).unwrap();
    let t = Tables::parse(&blob).unwrap();
    let camera = front_camera();
    let draw = |lighting: Option<Lighting>| {
        let mut gte = Gte::with_backend(GteModel::default());
        camera.load(&mut gte);
        // Lighting splits the box character's corners: 528 vertices, past the default 512.
        let mut scratch = Box::<Scratch<1024>>::new(Scratch::new());
        scratch.lighting = lighting;
        let mut sink = Collect(Vec::new());
        let sample = FrameSample { clip: 0, frame: 0, next: 0, weight: 0 };
        let outcome = render(&mut gte, &t, &camera, &placement(Vec3i32::ZERO, 0), Some(sample), &mut scratch, &mut sink, &mut |_| {});
        assert!(matches!(outcome, Ok(Outcome::Drawn(_))), "{outcome:?}");
        sink.0
    };
    // Unlit: no colours. Lit from the camera's side (toward the viewer: -z), everything drawn faces it.
    assert!(draw(None).iter().all(|t| t.rgb.is_none()));
    let toward_camera = Lighting::one(Vec3i16::new(0, 0, -4096), [128, 128, 128], [0, 0, 0]);
    let lit = draw(Some(toward_camera));
    assert!(lit.iter().all(|t| t.rgb.is_some()));
    let brightness = |t: &DrawnTriangle| t.rgb.unwrap().iter().map(|l| l & 0xFF).sum::<u32>();
    let mean = lit.iter().map(brightness).sum::<u32>() as f64 / (3 * lit.len()) as f64;
    assert!(mean > 60.0, "front faces lit from the front: mean red {mean}");
    // From behind, the faces the camera sees are dark but for the ambient.
    let behind = Lighting::one(Vec3i16::new(0, 0, 4096), [128, 128, 128], [16, 16, 16]);
    let back = draw(Some(behind));
    let mean_back = back.iter().map(brightness).sum::<u32>() as f64 / (3 * back.len()) as f64;
    assert!(mean_back < mean / 2.0, "lit from behind: {mean_back} vs {mean}");
    assert!(back.iter().all(|t| t.rgb.unwrap().iter().all(|l| (l & 0xFF) >= 16)), "the ambient everywhere");
    // An untextured corner's packet colour is its material's times the light / 128.
    assert_eq!(modulate([200, 100, 50], 0x0040_80FF), [255, 100, 25]);
    let _ = Matrix::IDENTITY;
}

#[test]
fn the_ordering_table_loop_draws_what_the_triangle_path_draws() {
    // The textured, lit fixture through the console's sink (one loop writing GT3/GT4 packets) and
    // through a collecting sink (triangle by triangle): the same counts, and each packet's corners
    // are the collected triangles' (a quad's two triangles 0-1-2 and 1-2-3).
    use psxanim_runtime::console::ordering::DrawList;
    use psxanim_runtime::render::ot::{OtSink, Shading};
    use psxanim_runtime::vram::Placement;
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", fixture("textured_embedded.fbx").to_str().unwrap(), "--storage", "rigid-gte", "--lighting", "-o", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let blob = std::fs::read(dir.path().join("textured_embedded.pxsk")).unwrap();
    // 4-aligned, as the console's embedded blob is (the loop reads the stream as words).
    let mut words = vec![0u32; blob.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..blob.len()].copy_from_slice(&blob);
    let t = Tables::parse(&bytemuck::cast_slice::<u32, u8>(&words)[..blob.len()]).unwrap();
    let placement = Placement::default_of(&t, &[]).unwrap();
    let camera = front_camera();
    let lighting = Lighting::one(Vec3i16::new(-2365, -2365, -2365), [150, 140, 120], [56, 56, 72]);
    let draw = |sink: &mut Drawing| {
        let mut gte = Gte::with_backend(GteModel::default());
        camera.load(&mut gte);
        let mut scratch = Box::<Scratch<1024>>::new(Scratch::new());
        scratch.lighting = Some(lighting);
        sink(&mut scratch, &mut gte).unwrap()
    };
    let sample = Some(FrameSample { clip: 0, frame: 3, next: 3, weight: 0 });
    let mut collected = Collect(Vec::new());
    let by_triangle = draw(&mut |s, g| render(g, &t, &camera, &placement_at(), sample, s, &mut collected, &mut |_| {}));
    let mut list = Box::new(DrawList::<1024, 16384>::new());
    list.clear();
    let by_loop = {
        let mut sink = OtSink::new(list.frame(), Shading::Flat);
        sink.place_textures(Some(&placement));
        draw(&mut |s, g| render(g, &t, &camera, &placement_at(), sample, s, &mut sink, &mut |_| {}))
    };
    assert_eq!(by_triangle, by_loop, "the same drawn, back-facing and rejected counts");
    let Outcome::Drawn(stats) = by_loop else { panic!("culled") };
    assert!(stats.drawn > 100);
    // Every packet is GT3 or GT4 (textured) or G3 / G4 (the untextured materials, lit), and its
    // corners' screen points are among the collected triangles'.
    let points: std::collections::HashSet<u32> = collected.0.iter().flat_map(|t| t.xy.map(|p| p.x as u16 as u32 | (p.y as u16 as u32) << 16)).collect();
    let (mut at, arena, mut seen) = (0, list.packets(), 0);
    while let Some(&tag) = arena.get(at) {
        let len = (tag >> 24) as usize;
        let p = &arena[at + 1..at + 1 + len];
        let xy: Vec<u32> = match (p[0] >> 24, len) {
            (0x34, 9) | (0x3C, 12) => p.chunks(3).map(|c| c[1]).collect(),
            (0x30, 6) | (0x38, 8) => p.chunks(2).map(|c| c[1]).collect(),
            other => panic!("packet {other:x?}"),
        };
        assert!(xy.iter().all(|w| points.contains(w)));
        seen += if xy.len() == 4 { 2 } else { 1 };
        at += 1 + len;
    }
    assert_eq!(seen, stats.drawn as usize);
}

/// One render call on a lit scratch and a loaded GTE.
type Drawing<'a> = dyn FnMut(&mut Scratch<1024>, &mut Gte<GteModel>) -> Result<Outcome, psxanim_runtime::render::RenderError> + 'a;

fn placement_at() -> Matrix {
    placement(Vec3i32::ZERO, 0)
}

/// The model-view matrix of every bone of `t` (which must have blended vertices) at Walk's frame 12,
/// seen through `view`.
fn blended_walk_matrices(t: &Tables, gte: &mut Gte<GteModel>, view: &Matrix) -> Vec<Matrix> {
    use psxanim_runtime::render::bones;
    use psxanim_runtime::tables::BoneSample;
    assert!(t.blend_group_count() > 0, "two influences are the default");
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    t.decode_pose(t.find_clip("Walk").unwrap(), 12, &mut samples).unwrap();
    let mut matrices = vec![Matrix::IDENTITY; t.bone_count()];
    bones::bone_matrices(gte, t, &samples, view, &mut matrices);
    matrices
}

/// A blended vertex's normal turns with its group's blended matrix, as its position does: lit with
/// one bone's matrix, vertices of a bent joint would take another colour.
#[test]
fn blended_normals_turn_with_the_blended_matrix() {
    use psxanim_runtime::render::{blend, light::light_rigid};
    let dir = tempfile::tempdir().unwrap();
    let blob = import("character", &["--storage", "rigid-gte", "--lighting"], dir.path()).unwrap();
    let t = Tables::parse(&blob).unwrap();
    let view = front_camera().view;
    let mut gte = Gte::with_backend(GteModel::default());
    let matrices = blended_walk_matrices(&t, &mut gte, &view);
    let lighting = Lighting::one(Vec3i16::new(2365, -2365, -2365), [160, 160, 160], [8, 8, 8]);
    let mut rgb = vec![0u32; t.vertex_count()];
    light_rigid(&mut gte, &t, &lighting, &view, &matrices, &mut rgb);
    // The same stage with every group moved to its first bone's matrix alone.
    let (mut moved, mut differ) = (0, 0);
    for g in 0..t.blend_group_count() {
        let group = t.blend_group(g);
        let blended = blend::group_matrix(&mut gte, &t, &matrices, g).unwrap();
        let a = &matrices[t.blend_pair(group.pair as usize).a as usize];
        for (m, count) in [(&blended, &mut moved), (a, &mut differ)] {
            let directions = [lighting.lights[0].direction, Vec3i16::new(0, 0, 0), Vec3i16::new(0, 0, 0)]
                .map(|d| view.rotate(d))
                .map(|v| [v.x, v.y, v.z].map(|c| c.clamp(-32768, 32767) as i16));
            gte.set_rotation(&directions);
            let llm = gte.mul_rotation(&m.rotation);
            gte.set_light_matrix(&llm);
            let first = group.first_vertex as usize;
            for (v, &colour) in rgb.iter().enumerate().skip(first).take(group.vertex_count as usize) {
                *count += usize::from(gte.ncs(t.vertex_normal(v)) & 0x00FF_FFFF != colour);
            }
        }
    }
    assert_eq!(moved, 0, "every blended vertex lit with its group's matrix");
    assert!(differ > 0, "the bent joints' colours depend on the blend");
}

/// Fog over blended vertices: the blend's register operations run INTPL with FC holding a matrix
/// column, so the light stage must give FC back the far colour before each group's NCDS. Fog that is
/// whole in front of the character (IR0 = 4096 for every vertex) turns every colour, the blended
/// vertices' among them, into the far colour (within the step NCDS's truncation may take off).
#[test]
fn full_fog_gives_blended_vertices_the_far_colour() {
    use psxanim_runtime::render::light::{light_rigid, Fog};
    let dir = tempfile::tempdir().unwrap();
    let blob = import("character", &["--storage", "rigid-gte", "--lighting"], dir.path()).unwrap();
    let t = Tables::parse(&blob).unwrap();
    let camera = front_camera();
    let mut gte = Gte::with_backend(GteModel::default());
    let matrices = blended_walk_matrices(&t, &mut gte, &camera.view);
    let far = [40, 90, 200];
    let fog = Fog::new(far, 100, 200, camera.projection).expect("a range the GTE's DQA holds");
    let lighting = Lighting::one(Vec3i16::new(2365, -2365, -2365), [160, 160, 160], [8, 8, 8]).with_fog(fog);
    let mut rgb = vec![0u32; t.vertex_count()];
    light_rigid(&mut gte, &t, &lighting, &camera.view, &matrices, &mut rgb);
    let near_far = |c: u32| (0..3).all(|k| (((c >> (8 * k)) & 0xFF) as i32 - far[k] as i32).abs() <= 1);
    let wrong: Vec<usize> = (0..t.vertex_count()).filter(|&v| !near_far(rgb[v])).collect();
    assert!(wrong.is_empty(), "{} of {} vertices not the far colour (first {:?}: {:#08x})", wrong.len(), t.vertex_count(), wrong.first(), wrong.first().map_or(0, |&v| rgb[v]));
}
