//! Two influences per vertex in rigid-gte (`--max-influences 2`, the default): the fixture
//! character's joint rings blend their two bones on the console, and come within a unit of true
//! skinning, where one bone per vertex leaves them 56 units away.

mod import_support;

use import_support::fixture;
use psxanim::cli::inspect_tables::positions;
use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{import, ImportOptions};
use psxanim_runtime::tables::Tables;

fn character() -> psxanim::fbx::Character {
    import(&fixture("character.fbx"), &ImportOptions::default(), &mut |_, _, _| {}).unwrap()
}

#[test]
fn joints_blend_two_bones_and_come_within_a_unit_of_true_skinning() {
    let c = character();
    let two = compile(&c, &CompileOptions { max_influences: 2, ..Default::default() }).unwrap();
    let r = &two.report;
    assert_eq!((r.blended_vertices, r.blend_pairs.len(), r.max_influences), (80, 10, 2));
    assert!(r.blend_pairs.iter().all(|p| p.vertices == 8 && p.groups == 1), "{:?}", r.blend_pairs);
    let a = &r.accuracy;
    assert!(a.one_bone_versus_skinned.max > 50.0, "one bone: {}", a.one_bone_versus_skinned.max);
    assert!(a.versus_skinned.max < 2.0, "two bones: {}", a.versus_skinned.max);
    let t = Tables::parse(&two.blob).unwrap();
    assert_eq!((t.blend_pair_count(), t.blend_group_count(), t.blended_vertex_count()), (10, 10, 80));
    // The rigid ranges and the blend groups cover every vertex once, the groups after the ranges.
    let mut covered = vec![0u8; t.vertex_count()];
    let rigid_end = (0..t.bone_count()).map(|b| t.bone(b)).map(|b| (b.first_vertex + b.vertex_count) as usize).max().unwrap();
    for b in 0..t.bone_count() {
        let bone = t.bone(b);
        covered[bone.first_vertex as usize..(bone.first_vertex + bone.vertex_count) as usize].iter_mut().for_each(|c| *c += 1);
    }
    for g in 0..t.blend_group_count() {
        let group = t.blend_group(g);
        assert!(group.first_vertex as usize >= rigid_end);
        covered[group.first_vertex as usize..(group.first_vertex + group.vertex_count) as usize].iter_mut().for_each(|c| *c += 1);
    }
    assert!(covered.iter().all(|&c| c == 1));
    // What the console computes (inspect's positions: the runtime's stages on the GTE model) stays
    // within the reported console error of the two-bone pose everywhere: every blended vertex's place
    // is one of the skinned references of its frame within that bound.
    let bound = a.console_fp12.as_ref().unwrap().max + a.versus_skinned.max;
    let walk = t.find_clip("Walk").unwrap();
    for f in [0, 12] {
        let p = positions(&t, walk, f).unwrap();
        for (v, q) in p.iter().enumerate().skip(rigid_end) {
            let near = c.clips[walk].skinned_reference[f]
                .iter()
                .map(|s| (0..3).map(|k| (q[k] as f64 - s[k]).abs()).fold(0.0, f64::max))
                .fold(f64::INFINITY, f64::min);
            assert!(near <= bound + 1e-9, "frame {f} vertex {v}: {near} from true skinning, bound {bound}");
        }
    }
}

#[test]
fn one_influence_keeps_the_rigid_layout_without_a_blend_section() {
    let c = character();
    assert_eq!(CompileOptions::default().max_influences, 2, "two influences are the default");
    let one = compile(&c, &CompileOptions { max_influences: 1, ..Default::default() }).unwrap();
    assert_eq!(one.report.max_influences, 1);
    assert_eq!((one.report.blended_vertices, one.report.blend_pairs.len()), (0, 0));
    let t = Tables::parse(&one.blob).unwrap();
    assert_eq!(t.blend_group_count(), 0);
    assert!(one.report.accuracy.versus_skinned.max > 50.0);
    // A threshold above every second weight keeps every vertex rigid too.
    let high = compile(&c, &CompileOptions { max_influences: 2, blend_threshold: 0.5, ..Default::default() }).unwrap();
    assert_eq!(high.report.blended_vertices, 0);
    // Baked storage is true skinning, with no blend section.
    let baked = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_influences: 2, ..Default::default() }).unwrap();
    assert_eq!(Tables::parse(&baked.blob).unwrap().blend_group_count(), 0);
}

/// The renderer's matrix stage (`project::matrix_stage`, the console's scratchpad): the rigid ranges
/// copy every bone's matrix into it as they load it, and the blend stage reading the copies projects
/// every vertex as from the bones' own matrices.
#[test]
fn the_staged_matrices_project_as_the_bones_own() {
    use psxanim_runtime::gte::{Gte, GteModel};
    use psxanim_runtime::math::{Matrix, Vec3i32};
    use psxanim_runtime::render::{blend, bones, project};
    use psxanim_runtime::tables::BoneSample;
    let two = compile(&character(), &CompileOptions { max_influences: 2, ..Default::default() }).unwrap();
    let t = Tables::parse(&two.blob).unwrap();
    let mut samples = vec![BoneSample::default(); t.bone_count()];
    t.decode_pose(t.find_clip("Walk").unwrap(), 12, &mut samples).unwrap();
    let mut gte = Gte::with_backend(GteModel::new());
    let object = Matrix::new([[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], Vec3i32::new(0, 3000, 12000));
    gte.set_screen(160, 120, 300);
    let mut matrices = vec![Matrix::IDENTITY; t.bone_count()];
    bones::bone_matrices(&mut gte, &t, &samples, &object, &mut matrices);
    let n = t.vertex_count();
    let (mut sxy, mut sz) = (vec![0u32; n], vec![0u32; n]);
    project::project_rigid(&mut gte, &t, &matrices, &mut sxy, &mut sz, None);
    blend::project_blended(&mut gte, &t, &matrices, &mut sxy, &mut sz);
    // A stale stage: every entry must be overwritten.
    let mut stage = vec![Matrix::new([[1, 2, 3], [4, 5, 6], [7, 8, 9]], Vec3i32::new(1, 2, 3)); t.bone_count()];
    let (mut staged_xy, mut staged_z) = (vec![1u32; n], vec![1u32; n]);
    project::project_rigid(&mut gte, &t, &matrices, &mut staged_xy, &mut staged_z, Some(&mut stage));
    assert_eq!(stage, matrices);
    blend::project_blended(&mut gte, &t, &stage, &mut staged_xy, &mut staged_z);
    assert_eq!((staged_xy, staged_z), (sxy.clone(), sz.clone()));
    assert!(sz.iter().all(|&z| z > 0), "every vertex projected in front of the camera");
}
