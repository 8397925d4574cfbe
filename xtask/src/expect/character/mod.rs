//! The character example: its tables (generated before the build, here), its expected record words
//! (`record`), the checks of its screenshots against the host's own rendering of the same frames
//! (`screen`) and its cycle figures (`cycles`).
//!
//! The scene (`examples/character/src/scene.rs`) is compiled into this crate and run on the runtime's
//! GTE model, so the host computes exactly what the console computed: the probe words in the record
//! and, for any frame number, the triangles drawn. Each screenshot carries the frame number it shows
//! (blocks on the top rows), so the checks do not depend on an emulator's frame timing.
use super::{Expectation, Word};
use crate::backends::Screenshot;
use crate::report::Check;
use anyhow::{bail, ensure, Context, Result};
use psxanim_runtime::gte::{Gte, GteModel, PackedMatrix};
use psxanim_runtime::record::RecordView;
use psxanim_runtime::render::pose_cache::{self, PoseCache};
use psxanim_runtime::render::{DrawnTriangle, Outcome, TriangleSink};
use scene::SceneScratch;
use psxanim_runtime::tables::Tables;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../../examples/character/src/scene.rs"]
#[allow(dead_code)]
mod scene;
#[path = "../../../../examples/character/src/stream_bench.rs"]
#[allow(dead_code)] // the console's scheduling constant
pub(super) mod stream_bench;
#[path = "../../../../examples/character/src/baked_paths.rs"]
#[allow(dead_code)]
mod baked_paths;
#[path = "../../../../examples/character/src/crossfade_paths.rs"]
mod crossfade_paths;
mod cycles;
mod record;
mod screen;

pub use record::expectation;

/// The fixture the example embeds, the clips added onto it from another engine's file (a one-shot
/// with events), and the storage modes it embeds it in.
const FIXTURE: &str = "tests/fixtures/fbx/character.fbx";
const ADDED_CLIPS: &str = "tests/fixtures/formats/wave.ani";
const STORAGES: [&str; 2] = ["rigid-gte", "baked-vertices"];
/// Pixels that must differ between two screenshots inside the characters' boxes.
const MIN_CHANGED_PIXELS: usize = 50;
/// CPU cycles per root counter 2 tick.
const CYCLES_PER_TICK: f64 = 8.0;
/// CPU cycles of one 30 fps frame (33.8688 MHz / 30).
const CYCLES_PER_30FPS_FRAME: f64 = 33_868_800.0 / 30.0;

/// Where the generated blobs go (the example's build.rs reads the same folder).
pub fn tables_dir(ws: &Path) -> PathBuf {
    ws.join("target").join("character-tables")
}

pub fn blob_path(ws: &Path, storage: &str) -> PathBuf {
    tables_dir(ws).join(storage).join("character.pxsk")
}

/// The 20-bone character (rigid only) the forward-decoding benches pose: issue 14's 20-bone figures
/// measured on a real clip, not extrapolated from the fixture's 11 bones.
const TWENTY: &str = "tests/fixtures/fbx/twenty_bones.fbx";

pub fn twenty_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("twenty_bones.pxsk")
}

/// The same character as Blender's glTF exporter wrote it (rigid only): the psx-game example plays it,
/// so a glTF import is drawn on the console and checked like the FBX one.
const GLTF: &str = "tests/fixtures/gltf/blender_character.glb";

pub fn gltf_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("blender_character.pxsk")
}

/// The character as one continuous skin of 2,946 vertices (rigid only: baked-vertices takes 512): the
/// psx-game example plays it beside the glTF one, sizing its scratch for it.
const DENSE: &str = "tests/fixtures/fbx/dense_character.fbx";

pub fn dense_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("dense_character.pxsk")
}

/// The character with a painted texture embedded in its FBX (rigid only, with normals): the psx-game
/// and character examples draw it textured and lit, its texture uploaded to VRAM at start-up.
const TEXTURED: &str = "tests/fixtures/fbx/textured_embedded.fbx";

pub fn textured_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("textured_embedded.pxsk")
}

/// The same character with one material over it all, its atlas image embedded: every triangle
/// textured, as a PS1 character usually is. The psx-game example draws it lit; issue 22's textured
/// figures come from it.
const ATLAS: &str = "tests/fixtures/fbx/textured_atlas.fbx";

pub fn atlas_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("textured_atlas.pxsk")
}

/// The same character with tiled UVs (its Shirt's checker repeated by the GPU's texture window) and a
/// clamped texture (rigid only): the psx-game example draws it unlit, to check the window on the console.
const TILED: &str = "tests/fixtures/fbx/textured_tiled.fbx";

pub fn tiled_path(ws: &Path) -> PathBuf {
    tables_dir(ws).join("rigid-gte").join("textured_tiled.pxsk")
}

/// Runs `psxanim import` on the fixture in both storage modes (rigid-gte with `--max-influences 2`, so
/// its joints blend and the blend stage is verified), and on the 20-bone, glTF, dense and textured
/// fixtures (the dense and textured ones with one influence, see below; building the tool if needed).
/// A blob is replaced only when its bytes change, so an unchanged import does not relink the example.
pub fn generate_tables(ws: &Path) -> Result<()> {
    let staging = ws.join("target").join("character-tables-staging");
    // (fixture, storage, added clips, the blob's name, lit: `--lighting`, written as NAME_lit.pxsk)
    let imports = STORAGES
        .map(|s| (FIXTURE, s, Some(ADDED_CLIPS), "character.pxsk", false))
        .into_iter()
        .chain([
            // c-game's character: the fixture lit (the C API's lighting).
            (FIXTURE, "rigid-gte", Some(ADDED_CLIPS), "character.pxsk", true),
            (TWENTY, "rigid-gte", None, "twenty_bones.pxsk", false),
            (GLTF, "rigid-gte", None, "blender_character.pxsk", false),
            (DENSE, "rigid-gte", None, "dense_character.pxsk", false),
            (TEXTURED, "rigid-gte", None, "textured_embedded.pxsk", false),
            (ATLAS, "rigid-gte", None, "textured_atlas.pxsk", false),
            (TILED, "rigid-gte", None, "textured_tiled.pxsk", false),
        ]);
    for (fixture, storage, added, name, lit) in imports {
        let out = staging.join(storage).join(if lit { "lit" } else { "" });
        let mut cmd = Command::new("cargo");
        cmd.args(["run", "--quiet", "--release", "-p", "psxanim", "--bin", "psxanim", "--", "import"])
            .arg(ws.join(fixture))
            .args(["--storage", storage, "-o"])
            .arg(&out)
            .current_dir(ws);
        if let Some(added) = added {
            cmd.args(["--add-clips", added]);
        }
        // psx-game and the character example light the textured characters but the tiled one: they
        // need their normals. (psx-game draws the tiled one unlit: its texture window's packets are
        // FT3/FT4, which every emulator draws as the host does.)
        if lit || fixture == TEXTURED || fixture == ATLAS {
            cmd.arg("--lighting");
        }
        // Rigid-gte blends two influences by default. The dense character (automatic weights: 969
        // vertices in 165 small groups, 347 of them reduced from more than two influences) and the textured one
        // (whose projection and lighting figures issue 22 measures) stay on one bone a vertex.
        let influences = match fixture {
            DENSE | TEXTURED | ATLAS | TILED => Some("1"),
            FIXTURE if storage == "rigid-gte" => Some("2"),
            _ => None,
        };
        if let Some(n) = influences {
            cmd.args(["--max-influences", n]);
        }
        for var in ["RUSTUP_TOOLCHAIN", "RUSTC", "RUSTC_WRAPPER", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"] {
            cmd.env_remove(var);
        }
        println!(
            "character: psxanim import {fixture} --storage {storage}{}{}{}",
            added.map(|a| format!(" --add-clips {a}")).unwrap_or_default(),
            influences.map(|n| format!(" --max-influences {n}")).unwrap_or_default(),
            if lit || fixture == TEXTURED || fixture == ATLAS { " --lighting" } else { "" }
        );
        let output = cmd.output().context("could not start cargo run -p psxanim")?;
        if !output.status.success() {
            bail!(
                "psxanim import --storage {storage} failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let fresh = out.join(name);
        let bytes = std::fs::read(&fresh).with_context(|| format!("reading {}", fresh.display()))?;
        let dest = tables_dir(ws).join(storage).join(if lit { name.replace(".pxsk", "_lit.pxsk") } else { name.to_string() });
        if std::fs::read(&dest).ok().as_deref() != Some(&bytes[..]) {
            std::fs::create_dir_all(dest.parent().expect("blob path has a folder"))?;
            std::fs::write(&dest, &bytes).with_context(|| format!("writing {}", dest.display()))?;
        }
    }
    Ok(())
}

/// The blobs, read from `tables_dir`.
pub(super) struct Blobs {
    rigid: Vec<u8>,
    baked: Vec<u8>,
    textured: Vec<u8>,
    pub(super) twenty: Vec<u8>,
}

impl Blobs {
    fn read(ws: &Path) -> Result<Self> {
        let read = |storage| {
            let p = blob_path(ws, storage);
            std::fs::read(&p).with_context(|| format!("{} is missing: run `cargo xtask build-exe character` first", p.display()))
        };
        let read_path = |p: PathBuf| std::fs::read(&p).with_context(|| format!("{} is missing: run `cargo xtask build-exe character` first", p.display()));
        Ok(Blobs { rigid: read(STORAGES[0])?, baked: read(STORAGES[1])?, textured: read_path(atlas_path(ws))?, twenty: read_path(twenty_path(ws))? })
    }

    /// A buffer for the rigid blob's pose cache, sized as the program sizes its static one.
    fn pose_buffer(&self) -> Vec<PackedMatrix> {
        vec![PackedMatrix::default(); pose_cache::entries_for_blob(&self.rigid)]
    }

    /// The tables, the rigid pose cache built in `pose_buffer` and the textures' place, as the program
    /// makes them at start-up.
    fn models<'b>(&'b self, pose_buffer: &'b mut [PackedMatrix]) -> Result<scene::Models<'b>> {
        fn parse<'b>(b: &'b [u8], what: &str) -> Result<Tables<'b>> {
            let t = Tables::parse(b).map_err(|e| anyhow::anyhow!("{what} tables: {e:?}"))?;
            ensure!(t.vertex_count() <= scene::SCENE_VERTICES, "{what}: {} vertices, the scene's scratch holds {}", t.vertex_count(), scene::SCENE_VERTICES);
            Ok(t)
        }
        let rigid = parse(&self.rigid, "rigid-gte")?;
        let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
        let poses = PoseCache::build(&mut host_gte(), &rigid, pose_buffer, &mut scratch, &mut || {})
            .map_err(|e| anyhow::anyhow!("rigid pose cache: {e:?}"))?;
        let textured = parse(&self.textured, "textured")?;
        ensure!(textured.texture_count() > 0 && textured.has_normals(), "{TEXTURED}: the character example draws it textured and lit");
        let textures = scene::texture_placement(&textured).map_err(|e| anyhow::anyhow!("{TEXTURED}'s textures in VRAM: {e:?}"))?;
        Ok(scene::Models { rigid, baked: parse(&self.baked, "baked-vertices")?, textured, rigid_poses: Some(poses), textures: Some(textures) })
    }
}

pub(super) fn host_gte() -> Gte<GteModel> {
    Gte::with_backend(GteModel::default())
}

/// The checks beyond the record words: the screenshots (`screen`) and the cycle figures (`cycles`).
pub fn screen_checks(ws: &Path, emulator: &str, view: Option<&RecordView>, shots: &[Screenshot], artifacts: &Path) -> Vec<Check> {
    let blobs = match Blobs::read(ws) {
        Ok(b) => b,
        Err(e) => return vec![Check::new("character.tables", false, format!("{e:#}"))],
    };
    let mut pose_buffer = blobs.pose_buffer();
    let models = match blobs.models(&mut pose_buffer) {
        Ok(m) => m,
        Err(e) => return vec![Check::new("character.tables", false, format!("{e:#}"))],
    };
    let mut checks = screen::silhouette_checks(models, shots);
    checks.extend(cycles::cycle_checks(models, Some(&blobs.twenty), emulator, view, artifacts));
    checks
}

/// The fuzz targets' harness, shared with the runtime's tests (the tests below run it on the fixtures).
#[cfg(test)]
#[path = "../../../../runtime/tests/tables_support/mod.rs"]
mod tables_support;

#[cfg(test)]
mod tests {
    use super::record::*;
    use super::screen::*;
    use super::*;

    fn models_or_skip<'b>(blobs: &'b Option<Blobs>, pose_buffer: &'b mut Vec<PackedMatrix>) -> Option<scene::Models<'b>> {
        let b = blobs.as_ref()?;
        *pose_buffer = b.pose_buffer();
        Some(b.models(pose_buffer).expect("generated tables parse"))
    }

    /// Needs the generated tables (`cargo xtask build-exe character`); says so instead of passing silently.
    fn blobs() -> Option<Blobs> {
        let b = Blobs::read(&crate::workspace_root()).ok();
        if b.is_none() {
            eprintln!("SKIPPED: no generated character tables; run `cargo xtask build-exe character`");
        }
        b
    }

    fn shot_of(triangles: &[DrawnTriangle], frame: u32) -> Screenshot {
        let (w, h) = (320u32, 240u32);
        let mut rgb = vec![0u8; (w * h * 3) as usize];
        for px in rgb.chunks_mut(3) {
            px.copy_from_slice(&[16, 24, 64]);
        }
        for bit in 0..16 {
            let c = if frame >> bit & 1 != 0 { 255 } else { 0 };
            for y in 0..4 {
                for x in bit * 16..bit * 16 + 16 {
                    let i = ((y * w + x) * 3) as usize;
                    rgb[i..i + 3].copy_from_slice(&[c, c, c]);
                }
            }
        }
        if let Some(b) = drawn_box(triangles) {
            for y in b.min.1..=b.max.1 {
                for x in [b.min.0, b.max.0] {
                    let i = ((y as u32 * w + x as u32) * 3) as usize;
                    rgb[i..i + 3].copy_from_slice(&[200, 100, 50]);
                }
            }
        }
        Screenshot { frame, width: w, height: h, rgb }
    }

    #[test]
    fn frame_codes_read_back_and_garbage_is_refused() {
        for f in [0, 1, 45, 0xBEEF] {
            assert_eq!(frame_code(&shot_of(&[], f)).unwrap(), f);
        }
        let mut s = shot_of(&[], 3);
        let at = (2 * 320 + 8) * 3;
        s.rgb[at..at + 3].copy_from_slice(&[128, 128, 128]);
        assert!(frame_code(&s).unwrap_err().to_string().contains("block 0"));
    }

    #[test]
    fn the_host_scene_draws_four_characters_and_culls_the_fifth_textured_and_lit_last() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        for frame in [0, 45, 200] {
            let h = host_frame(models, frame).unwrap();
            assert_eq!(h.outcomes[3], Outcome::Culled, "frame {frame}");
            for i in [0, 1, 2, scene::TEXTURED_INSTANCE] {
                assert!(h.triangles[i].len() > 100, "frame {frame} instance {i}: {} triangles", h.triangles[i].len());
            }
            // Only the textured instance's triangles carry light (every one) and texels.
            // (lit, textured) triangles of instance `i`.
            let count = |i: usize| {
                let t = &h.triangles[i];
                (t.iter().filter(|t| t.rgb.is_some()).count(), t.iter().filter(|t| t.texture != 0).count())
            };
            let all = h.triangles[scene::TEXTURED_INSTANCE].len();
            let (lit, textured) = count(scene::TEXTURED_INSTANCE);
            assert_eq!(lit, all, "frame {frame}");
            // (The atlas character is textured all over.)
            assert_eq!(textured, all, "frame {frame}: {textured} of {all} textured");
            assert_eq!([0, 1, 2].map(count), [(0, 0); 3]);
        }
    }

    #[test]
    fn the_live_scene_fires_the_one_shots_events() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let mut s = scene::Scene::new(models).unwrap();
        let mut fired = Vec::new();
        for _ in 0..scene::FADE_PERIOD {
            let before = s.events;
            s.step();
            if s.events != before {
                fired.push(s.frame);
            }
        }
        // "wave" starts at frame 45 (crossfaded from Idle): "lift" at its frame 6, "wave" at 15.
        assert_eq!(fired, [52, 61]);
        assert_eq!(s.last_event_frame, Some(61));
    }

    #[test]
    fn screenshots_matching_the_host_pass_and_shifted_ones_fail() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let ws = crate::workspace_root();
        let frames = [10u32, 35];
        let shots: Vec<Screenshot> = frames.iter().map(|&f| shot_of(&host_frame(models, f).unwrap().triangles.concat(), f)).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut bordered = shots.clone();
        // As mednafen shows it: the picture one pixel to the right, behind a black first column.
        for s in bordered.iter_mut() {
            for y in 0..240 {
                let row = &mut s.rgb[y * 320 * 3..(y + 1) * 320 * 3];
                row.copy_within(0..319 * 3, 3);
                row[..3].copy_from_slice(&[0, 0, 0]);
            }
        }
        assert_eq!(silhouette_box(&bordered[0]), silhouette_box(&shots[0]), "a border column is not the scene");
        let checks = screen_checks(&ws, "test", None, &shots, dir.path());
        let failed: Vec<_> = checks.iter().filter(|c| !c.passed).map(|c| c.name.as_str()).collect();
        assert_eq!(failed, ["character.cycles"], "{checks:?}"); // no record given
                                                                // The same picture labelled with another frame must not match.
        let wrong = vec![shot_of(&host_frame(models, 10).unwrap().triangles.concat(), 30), shots[1].clone()];
        let checks = screen_checks(&ws, "test", None, &wrong, dir.path());
        assert!(!checks[0].passed, "{checks:?}");
    }

    /// Guards `FRONT_FACING_NCLIP_POSITIVE` with the real fixture: the triangles kept are the near side.
    #[test]
    fn the_triangles_kept_are_nearer_than_the_ones_culled() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        for (model, tables) in [("rigid", &models.rigid), ("baked", &models.baked)] {
            let camera = scene::camera_at(0);
            let mut gte = host_gte();
            camera.load(&mut gte);
            let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
            let mut kept = Collect::default();
            let sample = psxanim_runtime::anim::FrameSample {
                clip: 0,
                frame: 0,
                next: 0,
                weight: 0,
            };
            let world = psxanim_runtime::render::camera::placement(
                psxanim_runtime::math::Vec3i32::new(0, 0, 0),
                0x1000,
            );
            psxanim_runtime::render::render(
                &mut gte,
                tables,
                &camera,
                &world,
                Some(sample),
                &mut scratch,
                &mut kept,
                &mut |_| {},
            )
            .unwrap();
            // Each triangle's corners: a quad's two halves are points 0-1-2 and 1-2-3.
            let corners: Vec<[u16; 3]> = tables
                .primitives()
                .flat_map(|p| {
                    let [a, b, c, d] = p.points;
                    [[a, b, c], [b, c, d]].into_iter().take(p.triangle_count())
                })
                .collect();
            let depth = |i: usize| {
                corners[i]
                    .iter()
                    .map(|&v| scratch.sz[v as usize] as f64)
                    .sum::<f64>()
                    / 3.0
            };
            let kept_set: std::collections::HashSet<u16> = kept.0.iter().map(|t| t.index).collect();
            let (mut near, mut far) = (Vec::new(), Vec::new());
            for i in 0..tables.triangle_count() {
                if kept_set.contains(&(i as u16)) {
                    near.push(depth(i))
                } else {
                    far.push(depth(i))
                }
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            assert!(near.len() > 100 && far.len() > 100, "{model}: {} kept, {} culled", near.len(), far.len());
            assert!(mean(&near) < mean(&far), "{model}: kept triangles at mean depth {}, culled at {}", mean(&near), mean(&far));
        }
    }

    /// The pose cache's builder and a playing instance decode frames in order (a voice advanced frame
    /// by frame, `render::PoseStream`) and the cache composes with `compose_packed`: on the real
    /// fixture (animated rotations, several blocks) it must give exactly the random-access samples and
    /// the per-register compose chain, frame by frame.
    #[test]
    fn the_fixture_decodes_the_same_in_order_and_at_random() {
        use psxanim_runtime::anim::FrameSample;
        use psxanim_runtime::render::PoseStream;
        use psxanim_runtime::tables::BoneSample;
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let t = &models.rigid;
        let mut stream = Box::new(PoseStream::<256>::new());
        let (mut seq, mut random) = (vec![BoneSample::default(); t.bone_count()], vec![BoneSample::default(); t.bone_count()]);
        let mut frames = 0;
        for c in 0..t.clip_count() {
            for f in 0..t.clip(c).unwrap().frame_count as usize {
                let s = FrameSample { clip: c as u16, frame: f as u16, next: f as u16, weight: 0 };
                stream.sample(t, &s, &mut seq).unwrap();
                t.decode_pose(c, f, &mut random).unwrap();
                assert_eq!(seq, random, "clip {c} frame {f}");
                // The cached entry: the per-register compose chain (64-bit translation) gives the same.
                let mut model = vec![psxanim_runtime::math::Matrix::IDENTITY; t.bone_count()];
                let identity = psxanim_runtime::math::Matrix::IDENTITY;
                psxanim_runtime::render::bones::bone_matrices(&mut host_gte(), t, &random, &identity, &mut model);
                let cached: Vec<_> = models.rigid_poses.unwrap().pose(c, f).unwrap().iter().map(|p| p.unpack()).collect();
                assert_eq!(cached, model, "cached clip {c} frame {f}");
                frames += 1;
            }
        }
        assert_eq!(frames * t.bone_count(), pose_cache::entries_for_blob(&blobs.as_ref().unwrap().rigid));
        assert!(frames > 16, "several blocks compared ({frames} frames)");
    }

    /// `render_streamed`'s route: a voice's poses in the GTE's form (`PoseVoices::pose_q14`) are
    /// `PoseQ14::from_sample` of its samples, at whole frames and between them, played forward.
    #[test]
    fn the_fixture_poses_in_the_gtes_form_as_its_samples_round() {
        use psxanim_runtime::anim::FrameSample;
        use psxanim_runtime::render::bones::PoseQ14;
        use psxanim_runtime::render::{PoseStream, PoseVoices};
        use psxanim_runtime::tables::BoneSample;
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let t = &models.rigid;
        let (mut samples, mut poses) = (Box::new(PoseStream::<256>::new()), Box::new(PoseStream::<256>::new()));
        let (mut seq, mut q14) = (vec![BoneSample::default(); t.bone_count()], vec![PoseQ14::default(); t.bone_count()]);
        let mut compared = 0;
        for c in 0..t.clip_count() {
            let frames = t.clip(c).unwrap().frame_count;
            for f in 0..frames {
                for weight in [0u16, 1024, 2048, 3000] {
                    let next = if f + 1 < frames { f + 1 } else { f };
                    let s = FrameSample { clip: c as u16, frame: f, next, weight };
                    samples.sample(t, &s, &mut seq).unwrap();
                    let fits = poses.pose_q14(t, &s, &mut q14).unwrap();
                    let expected: Option<Vec<_>> = seq.iter().map(PoseQ14::from_sample).collect();
                    assert_eq!(fits, expected.is_some(), "clip {c} frame {f} weight {weight}: has the GTE's form");
                    if let Some(expected) = expected {
                        assert_eq!(q14, expected, "clip {c} frame {f} weight {weight}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 64, "{compared} poses compared");
        // A PoseStream sized at compile time fits every clip, the 20-bone Walk too.
        let twenty = Tables::parse(&blobs.as_ref().unwrap().twenty).unwrap();
        for (blob, t) in [(&blobs.as_ref().unwrap().rigid, t), (&blobs.as_ref().unwrap().twenty, &twenty)] {
            assert_eq!(psxanim_runtime::tables::stream::words_for_blob(blob), psxanim_runtime::tables::stream::max_words_needed(t));
        }
        assert_eq!(psxanim_runtime::tables::stream::words_for_blob(&blobs.as_ref().unwrap().baked), 0);
    }

    /// `render_streamed`'s crossfade: the two voices' poses blended in the GTE's form
    /// (`crossfade_q14`) are `PoseQ14::from_sample` of the blended samples (`crossfade_samples`), the
    /// rotation exactly, the translation within one GTE unit (blended after rounding), for every pair
    /// of the fixture's clips played forward, a clip into itself too.
    #[test]
    fn the_fixtures_crossfades_blend_in_the_gtes_form_as_their_samples() {
        use psxanim_runtime::anim::FrameSample;
        use psxanim_runtime::render::bones::{crossfade_q14, crossfade_samples, PoseQ14};
        use psxanim_runtime::render::{PoseStream, PoseVoices};
        use psxanim_runtime::tables::BoneSample;
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let t = &models.rigid;
        let n = t.bone_count();
        let (mut compared, mut rounded) = (0, 0);
        for to in 0..t.clip_count() {
            for from in 0..t.clip_count() {
                let (mut samples, mut poses) = (Box::new(PoseStream::<256>::new()), Box::new(PoseStream::<256>::new()));
                let frames = |c: usize| t.clip(c).unwrap().frame_count;
                for step in 0..24u16 {
                    // The incoming clip from its start, the outgoing from frame 5, both at 60 Hz.
                    let at = |c: usize, f: u16| {
                        let (frame, last) = (f / 2 % frames(c), frames(c) - 1);
                        FrameSample { clip: c as u16, frame, next: (frame + 1).min(last), weight: if f % 2 == 1 && frame < last { 2048 } else { 0 } }
                    };
                    let (current, outgoing) = (at(to, step), at(from, step + 10));
                    let weight = (step as u32 * 4096 / 24).min(4096) as u16;
                    let (mut seq, mut from_seq) = (vec![BoneSample::default(); n], vec![BoneSample::default(); n]);
                    samples.sample_pair(t, &current, &mut seq, Some((&outgoing, &mut from_seq))).unwrap();
                    crossfade_samples(&from_seq, &mut seq, weight);
                    let (mut q14, mut from_q14) = (vec![PoseQ14::default(); n], vec![PoseQ14::default(); n]);
                    let fits = poses.pose_q14_pair(t, &current, &mut q14, &outgoing, &mut from_q14).unwrap() && crossfade_q14(&from_q14, &mut q14, weight);
                    let expected: Option<Vec<_>> = seq.iter().map(PoseQ14::from_sample).collect();
                    let (Some(expected), true) = (expected, fits) else { continue };
                    for (b, (got, want)) in q14.iter().zip(&expected).enumerate() {
                        assert_eq!(got.rotation, want.rotation, "{from} -> {to} step {step} bone {b}");
                        for (g, w) in got.translation.iter().zip(&want.translation) {
                            assert!((g - w).abs() <= 1, "{from} -> {to} step {step} bone {b}: {:?} vs {:?}", got.translation, want.translation);
                        }
                        rounded += usize::from(got.translation != want.translation);
                    }
                    compared += 1;
                }
            }
        }
        assert!(compared > 200, "{compared} crossfade poses compared in the GTE's form ({rounded} translations a unit apart)");
    }

    /// The fuzz targets' harness (`runtime/tests/tables_support`, what `tables_runtime` runs on every
    /// input) on the fixtures' real blobs, at a 4-aligned and at an odd address: its properties (forward
    /// decoding equals random access, the GTE's form equals the samples' rounding, crossfades in both
    /// forms agree) hold, everything draws through the camera that sees it and nothing through the
    /// one looking away, a rigid blob's pose cache builds, events fire.
    #[test]
    fn the_fuzz_harness_holds_on_the_fixtures() {
        let Some(blobs) = blobs() else { return };
        for (name, blob) in [("character rigid", &blobs.rigid), ("twenty_bones", &blobs.twenty), ("character baked", &blobs.baked)] {
            let [aligned, odd] = tables_support::exercise_aligned_and_odd(blob);
            assert_eq!(aligned, odd, "{name}: the same wherever the blob lies");
            // (The harness also asks for frames and clips past the end: those renders fail, as they must.)
            assert!(aligned.parsed && aligned.drawn > 0 && aligned.drawn_looking_away == 0, "{name}: {aligned:?}");
            assert_eq!(aligned.cache_built, name != "character baked", "{name}: a rigid blob's pose cache builds");
            assert_eq!(aligned.events > 0, name.starts_with("character"), "{name}: the character's clip events fire (the Walk has none)");
        }
    }

    #[test]
    fn the_expectation_holds_every_probe_word() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let e = expectation(&crate::workspace_root()).unwrap();
        let baked = 2 * models.baked.vertex_count() * scene::BAKED_PROBES.len();
        let rigid = models.rigid.vertex_count().div_ceil(scene::RIGID_PROBE_STRIDE) * scene::RIGID_PROBES.len();
        let corrupt = scene::CORRUPTIONS.len() * scene::WORDS_PER_CORRUPTION;
        let flat = scene::FLAT_RUNS * scene::FLAT_RUN_WORDS;
        let paths = baked_paths::PATH_PROBES.len() * 2 * models.baked.vertex_count() + baked_paths::ERROR_WORDS;
        let fade_steps = |m: scene::Model| scene::FADE_PROBES.iter().filter(|p| p.model == m).map(|p| p.probe_steps.len()).sum::<usize>();
        let fades = 8 * models.rigid.bone_count() * fade_steps(scene::Model::Rigid) + 2 * models.baked.vertex_count() * fade_steps(scene::Model::Baked);
        // The one-shot from wave.ani: "lift" at frame 6 and "wave" at 15, crossed on those steps of
        // the event timeline (it starts at time 0), then the count and the Animator's bytes.
        let events = [6 << 16, 6, 15 << 16 | 1, 15, 2];
        let cache_at = baked + rigid + corrupt + flat;
        let stream = stream_bench::WORDS;
        // Every blended vertex's SXY and SZ per blend probe and per rigid crossfade's first step.
        let rigid_fades = scene::FADE_PROBES.iter().filter(|p| p.model == scene::Model::Rigid).count();
        let blends = 2 * models.rigid.blended_vertex_count() * (scene::BLEND_PROBES.len() + rigid_fades);
        assert!(models.rigid.blended_vertex_count() > 0, "the fixture character blends its joints");
        // Then the textures read back from VRAM and the textured instance's packets, frame by frame.
        let textured = 2 + 2 * scene::TEXTURED_FRAMES as usize;
        assert_eq!(e.words.len(), cache_at + 1 + paths + fades + events.len() + 1 + blends + 1 + stream + textured);
        let (textured_at, stream_end) = (e.words.len() - textured, e.words.len() - textured);
        assert_eq!(e.words[textured_at].name, "textured.vram_words");
        assert!(e.words[textured_at].value > 1000, "{:?}", e.words[textured_at]);
        let frame_hashes: std::collections::HashSet<u32> = e.words[textured_at + 2..].iter().skip(1).step_by(2).map(|w| w.value).collect();
        assert_eq!(frame_hashes.len(), scene::TEXTURED_FRAMES as usize, "each frame's textured packets differ");
        let blend_at = cache_at + 1 + paths + fades + events.len() + 1;
        assert!(e.words[blend_at].name.starts_with("blend.compact.step0.sxy.v"), "{}", e.words[blend_at].name);
        assert!(e.words[blend_at + blends - 1].name.starts_with("blend.fade."), "{}", e.words[blend_at + blends - 1].name);
        assert_eq!(e.words[cache_at].name, "pose_cache.hash");
        assert_eq!(e.words[cache_at + paths].name, "baked.path.bad_escape1.output_hash");
        let tail: Vec<u32> = e.words[cache_at + 1 + paths + fades..].iter().map(|w| w.value).collect();
        assert_eq!(tail[..events.len()], events);
        assert_eq!(e.words[blend_at + blends].name, "blend.shapes.hash");
        let fades_end = stream_end - stream;
        assert_eq!(e.words[blend_at - 1].name, "animator.bytes.step0.0");
        // The 20-bone forward decoding: distinct frames hash differently, and the Walk's state fits.
        let hashes: std::collections::HashSet<u32> = e.words[fades_end..fades_end + stream_bench::FRAMES as usize].iter().map(|w| w.value).collect();
        assert!(hashes.len() > stream_bench::FRAMES as usize / 2, "{} distinct frame hashes", hashes.len());
        let state = &e.words[stream_end - stream_bench::CLIP_HASHES - 1];
        assert_eq!((state.name.as_str(), state.value <= stream_bench::STREAM_WORDS as u32), ("stream.state_words", true));
        // Then each clip of the fixture character played through a PoseStream: four clips, distinct.
        let clips: std::collections::HashSet<u32> = e.words[stream_end - stream_bench::CLIP_HASHES..stream_end].iter().map(|w| w.value).collect();
        assert_eq!((clips.len(), clips.contains(&0)), (stream_bench::CLIP_HASHES, false), "clip hashes");
        assert_eq!(e.words[stream_end - 1].name, "stream.clip3.hash");
        assert_eq!(e.words.last().map(|w| w.name.as_str()), Some("textured.frame39.packets_hash"));
        // The packet loop's runs (drawn, rejected, words). Triangles, with the tests, room for all: the
        // front, wide-but-drawable and two more front faces drawn, near, too wide and too tall
        // rejected; room for three: one more rejected. Without the tests, room for all: everything
        // that faces the camera drawn. Every run kind (a quad counts two triangles), with the tests:
        // the quad, the triangle and the two-quad strip drawn; the near quad, the too-wide quad and
        // the near strip quad rejected; room for 15 words: the quad and the triangle, then no room.
        // Without the tests: everything facing the camera drawn (41 words).
        let counts = |run: usize| {
            let at = baked + rigid + corrupt + run * scene::FLAT_RUN_WORDS;
            (e.words[at].value, e.words[at + 1].value, e.words[at + 2].value)
        };
        let runs: Vec<_> = (0..scene::FLAT_RUNS).map(counts).collect();
        assert_eq!(
            runs,
            [
                (4, 3, 20),
                (3, 4, 15),
                (7, 0, 35),
                (3, 4, 15),
                (7, 6, 23),
                (3, 10, 11),
                (13, 0, 41),
                (3, 10, 11)
            ]
        );
        assert_eq!(e.words[0].name, "baked.xy.Turn20.v0");
        // Each corrupted copy fails with the error its damage calls for (codes of scene::error_code).
        let values: Vec<(&str, u32)> = e.words[baked + rigid..].iter().map(|w| (w.name.as_str(), w.value)).collect();
        let b = blobs.as_ref().expect("models came from the blobs");
        let clips_past_end = (b.rigid.len() as u32 + 3) & !3;
        assert_eq!(
            values[..4],
            [
                ("corrupt.rigid.bad-magic.code", 2),
                ("corrupt.rigid.bad-magic.offset", 0),
                ("corrupt.rigid.clips-past-end.code", 5),
                ("corrupt.rigid.clips-past-end.offset", clips_past_end),
            ]
        );
        // Refused at parse: the block's records would run past the stream (BadClipData).
        assert_eq!((values[4].0, values[4].1), ("corrupt.rigid.block-at-stream-end.code", 14), "records past the stream");
        assert!(values[5].1 > 64 && (values[5].1 as usize) < b.rigid.len(), "{:?}", values[5]);
        assert_eq!((values[6].0, values[6].1), ("corrupt.baked.bad-frame-mode.code", 18), "bad frame payload");
        assert!(values[7].1 > 64 && (values[7].1 as usize) < b.baked.len(), "{:?}", values[7]);
        // Rigid probes land on screen (a culled probe would leave stale or zero SXY words).
        for w in &e.words[baked..baked + rigid] {
            let (x, y) = (w.value as u16 as i16, (w.value >> 16) as u16 as i16);
            assert!((0..320).contains(&x) && (0..240).contains(&y), "{}: ({x}, {y})", w.name);
        }
    }
}
