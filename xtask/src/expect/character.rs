//! The character example: its tables (generated before the build), its expected record words, and the
//! checks of its screenshots against the host's own rendering of the same frames.
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
use psxanim_runtime::render::{DrawnTriangle, Outcome, Scratch, TriangleSink};
use psxanim_runtime::tables::Tables;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../examples/character/src/scene.rs"]
#[allow(dead_code)]
mod scene;
#[path = "../../../examples/character/src/baked_paths.rs"]
#[allow(dead_code)]
mod baked_paths;

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

/// Runs `psxanim import` on the fixture in both storage modes (building the tool if needed). A blob is
/// replaced only when its bytes change, so an unchanged import does not relink the example.
pub fn generate_tables(ws: &Path) -> Result<()> {
    let staging = ws.join("target").join("character-tables-staging");
    for storage in STORAGES {
        let out = staging.join(storage);
        let mut cmd = Command::new("cargo");
        cmd.args(["run", "--quiet", "--release", "-p", "psxanim", "--bin", "psxanim", "--", "import"])
            .arg(ws.join(FIXTURE))
            .args(["--storage", storage, "--add-clips", ADDED_CLIPS, "-o"])
            .arg(&out)
            .current_dir(ws);
        for var in ["RUSTUP_TOOLCHAIN", "RUSTC", "RUSTC_WRAPPER", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"] {
            cmd.env_remove(var);
        }
        println!("character: psxanim import {FIXTURE} --storage {storage} --add-clips {ADDED_CLIPS}");
        let output = cmd.output().context("could not start cargo run -p psxanim")?;
        if !output.status.success() {
            bail!(
                "psxanim import --storage {storage} failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let fresh = out.join("character.pxsk");
        let bytes = std::fs::read(&fresh).with_context(|| format!("reading {}", fresh.display()))?;
        let dest = blob_path(ws, storage);
        if std::fs::read(&dest).ok().as_deref() != Some(&bytes[..]) {
            std::fs::create_dir_all(dest.parent().expect("blob path has a folder"))?;
            std::fs::write(&dest, &bytes).with_context(|| format!("writing {}", dest.display()))?;
        }
    }
    Ok(())
}

/// The two blobs, read from `tables_dir`.
struct Blobs {
    rigid: Vec<u8>,
    baked: Vec<u8>,
}

impl Blobs {
    fn read(ws: &Path) -> Result<Self> {
        let read = |storage| {
            let p = blob_path(ws, storage);
            std::fs::read(&p).with_context(|| format!("{} is missing: run `cargo xtask build-exe character` first", p.display()))
        };
        Ok(Blobs { rigid: read(STORAGES[0])?, baked: read(STORAGES[1])? })
    }

    /// A buffer for the rigid blob's pose cache, sized as the program sizes its static one.
    fn pose_buffer(&self) -> Vec<PackedMatrix> {
        vec![PackedMatrix::default(); pose_cache::entries_for_blob(&self.rigid)]
    }

    /// The tables, and the rigid pose cache built in `pose_buffer` as the program builds it at start-up.
    fn models<'b>(&'b self, pose_buffer: &'b mut [PackedMatrix]) -> Result<scene::Models<'b>> {
        fn parse<'b>(b: &'b [u8], what: &str) -> Result<Tables<'b>> {
            Tables::parse(b).map_err(|e| anyhow::anyhow!("{what} tables: {e:?}"))
        }
        let rigid = parse(&self.rigid, "rigid-gte")?;
        let mut scratch = Box::new(Scratch::new());
        let poses = PoseCache::build(&mut host_gte(), &rigid, pose_buffer, &mut scratch, &mut || {})
            .map_err(|e| anyhow::anyhow!("rigid pose cache: {e:?}"))?;
        Ok(scene::Models { rigid, baked: parse(&self.baked, "baked-vertices")?, rigid_poses: Some(poses) })
    }
}

fn host_gte() -> Gte<GteModel> {
    Gte::with_backend(GteModel::default())
}

/// The record the example must leave: its probe words, computed by the same code on the GTE model.
pub fn expectation(ws: &Path) -> Result<Expectation> {
    let blobs = Blobs::read(ws)?;
    let mut pose_buffer = blobs.pose_buffer();
    let models = blobs.models(&mut pose_buffer)?;
    let mut scratch = Box::new(Scratch::new());
    let mut values = Vec::new();
    scene::probe_words(&models, &mut host_gte(), &mut scratch, &mut |w| values.push(w))
        .map_err(|e| anyhow::anyhow!("host probe failed: {e:?}"))?;
    let (bv, rv) = (models.baked.vertex_count(), models.rigid.vertex_count());
    let words = values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let (clip, frame, what, vertex) = scene::probe_word_name(i, bv, rv);
            Word { name: format!("{what}.{clip}{frame}.v{vertex}"), value }
        })
        .collect::<Vec<_>>();
    let cache = Word { name: "pose_cache.hash".to_string(), value: scene::pose_cache_hash(&models) };
    let paths = baked_path_expectation(&blobs, bv)?;
    let mut fades = Vec::new();
    scene::fade_probe_words(&models, &mut host_gte(), &mut scratch, &mut |value, l| {
        fades.push(Word { name: format!("{}.step{}.{}", l.what, l.step, l.index), value })
    })
    .map_err(|e| anyhow::anyhow!("host fade probe failed: {e:?}"))?;
    Ok(Expectation {
        program: *b"CHAR",
        words: [words, corruption_expectation(&blobs)?, flat_packet_expectation(), vec![cache], paths, fades].concat(),
    })
}

/// The baked decoder's paths (`baked_paths`: synthetic delta and raw frames, shared frames, an
/// escape past the vertices), after the pose cache hash; checked here to take those paths.
fn baked_path_expectation(blobs: &Blobs, vertices: usize) -> Result<Vec<Word>> {
    let mut buffer = vec![0u8; blobs.baked.len()];
    let mut scratch = Box::new(Scratch::new());
    let mut values = Vec::new();
    baked_paths::baked_path_words(&blobs.baked, &mut buffer, &mut scratch, &mut |w| values.push(w));
    let per = 2 * vertices;
    ensure!(values.len() == baked_paths::PATH_PROBES.len() * per + baked_paths::ERROR_WORDS, "baked path words: {} words ({:x?})", values.len(), values.first());
    for error in values[values.len() - baked_paths::ERROR_WORDS..].chunks_exact(3) {
        ensure!(error[0] == 18 && error[1] > 64, "an escape past the vertices must fail (code 18), found {error:?}");
    }
    Ok(values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let name = if i < baked_paths::PATH_PROBES.len() * per {
                let within = i % per;
                let axis = if within & 1 == 0 { "xy" } else { "z" };
                format!("baked.path.{}.{axis}.v{}", baked_paths::PATH_PROBES[i / per], within / 2)
            } else {
                let k = i - baked_paths::PATH_PROBES.len() * per;
                let what = ["code", "offset", "output_hash"][k % 3];
                format!("baked.path.bad_escape{}.{what}", baked_paths::BAD_ESCAPES[k / 3])
            };
            Word { name, value }
        })
        .collect())
}

/// The words the corrupted blob copies leave after the probes (same code as the console's), checked
/// here to be real errors: a corruption the runtime accepted would prove nothing.
fn corruption_expectation(blobs: &Blobs) -> Result<Vec<Word>> {
    let mut buffer = vec![0u8; blobs.rigid.len().max(blobs.baked.len())];
    let mut scratch = Box::new(Scratch::new());
    let mut values = Vec::new();
    scene::corruption_words(&blobs.rigid, &blobs.baked, &mut buffer, &mut host_gte(), &mut scratch, &mut |w| values.push(w));
    ensure!(values.len() == scene::CORRUPTIONS.len() * scene::WORDS_PER_CORRUPTION, "corruption words: {} words", values.len());
    let mut words = Vec::new();
    for (c, pair) in scene::CORRUPTIONS.iter().zip(values.chunks_exact(scene::WORDS_PER_CORRUPTION)) {
        ensure!(pair[0] != 0, "corrupted blob {} was accepted by the runtime (no error to check)", c.name());
        words.push(Word { name: format!("corrupt.{}.code", c.name()), value: pair[0] });
        words.push(Word { name: format!("corrupt.{}.offset", c.name()), value: pair[1] });
    }
    Ok(words)
}

/// The packet loop's words on the synthetic triangles (same code as the console's, on the model).
fn flat_packet_expectation() -> Vec<Word> {
    let mut values = Vec::new();
    scene::flat_packet_words(&mut host_gte(), &mut |w| values.push(w));
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let (run, at) = (i / scene::FLAT_RUN_WORDS, i % scene::FLAT_RUN_WORDS);
            let what = match at {
                0 => "drawn".to_string(),
                1 => "rejected".to_string(),
                2 => "words".to_string(),
                t if t < 3 + 8 => format!("table{}", t - 3),
                w => format!("arena{}", w - 11),
            };
            Word { name: format!("flat.run{run}.{what}"), value }
        })
        .collect()
}

/// Keeps every triangle, in the order the renderer produced them.
#[derive(Default)]
struct Collect(Vec<DrawnTriangle>);
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push(*t);
        true
    }
}

/// A pixel box, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PixelBox {
    pub min: (i32, i32),
    pub max: (i32, i32),
}

impl PixelBox {
    fn union(a: Option<PixelBox>, b: PixelBox) -> PixelBox {
        match a {
            None => b,
            Some(a) => PixelBox { min: (a.min.0.min(b.min.0), a.min.1.min(b.min.1)), max: (a.max.0.max(b.max.0), a.max.1.max(b.max.1)) },
        }
    }
    fn within(&self, o: &PixelBox, tolerance: i32) -> bool {
        (self.min.0 - o.min.0).abs() <= tolerance
            && (self.min.1 - o.min.1).abs() <= tolerance
            && (self.max.0 - o.max.0).abs() <= tolerance
            && (self.max.1 - o.max.1).abs() <= tolerance
    }
}

/// What the host renders at `frame`: per instance the outcome and the drawn triangles.
struct HostFrame {
    outcomes: Vec<Outcome>,
    triangles: Vec<Vec<DrawnTriangle>>,
}

fn host_frame(models: scene::Models, frame: u32) -> Result<HostFrame> {
    let mut s = scene::Scene::new(models).map_err(|e| anyhow::anyhow!("scene: {e:?}"))?;
    for _ in 0..frame {
        s.step();
    }
    let mut scratch = Box::new(Scratch::new());
    let mut gte = host_gte();
    let mut sinks: Vec<Collect> = (0..scene::INSTANCES).map(|_| Collect::default()).collect();
    // One sink per instance: render them one by one through the scene's own loop order.
    let mut all = Collect::default();
    let outcomes = s.render(&s.camera(), &mut gte, &mut scratch, &mut all, &mut |_, _| {});
    let mut outcomes_ok = Vec::new();
    let mut at = 0;
    for (i, o) in outcomes.iter().enumerate() {
        let o = o.map_err(|e| anyhow::anyhow!("host render of instance {i}: {e:?}"))?;
        if let Outcome::Drawn(stats) = o {
            let n = stats.drawn as usize;
            sinks[i].0.extend_from_slice(&all.0[at..at + n]);
            at += n;
        }
        outcomes_ok.push(o);
    }
    Ok(HostFrame { outcomes: outcomes_ok, triangles: sinks.into_iter().map(|c| c.0).collect() })
}

/// The pixels the GPU fills for these triangles: vertex extents, right and bottom edges exclusive,
/// clipped to the screen below the frame code.
fn drawn_box(triangles: &[DrawnTriangle]) -> Option<PixelBox> {
    let mut b: Option<PixelBox> = None;
    for t in triangles {
        let xs = t.xy.map(|p| p.x as i32);
        let ys = t.xy.map(|p| p.y as i32);
        let tri = PixelBox {
            min: (*xs.iter().min().unwrap(), *ys.iter().min().unwrap()),
            max: (*xs.iter().max().unwrap() - 1, *ys.iter().max().unwrap() - 1),
        };
        b = Some(PixelBox::union(b, tri));
    }
    let top = scene::FRAME_CODE_BLOCK.1 as i32;
    b.map(|b| PixelBox {
        min: (b.min.0.max(0), b.min.1.max(top)),
        max: (b.max.0.min(scene::SCREEN.0 as i32 - 1), b.max.1.min(scene::SCREEN.1 as i32 - 1)),
    })
}

fn pixel(shot: &Screenshot, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * shot.width + x) * 3) as usize;
    [shot.rgb[i], shot.rgb[i + 1], shot.rgb[i + 2]]
}

/// The frame number drawn on the top rows of a screenshot.
fn frame_code(shot: &Screenshot) -> Result<u32> {
    let (w, h) = scene::FRAME_CODE_BLOCK;
    ensure!(shot.width as u16 >= w * scene::FRAME_CODE_BITS as u16 && shot.height as u16 > h, "screenshot too small for the frame code");
    let mut frame = 0;
    for bit in 0..scene::FRAME_CODE_BITS {
        let p = pixel(shot, bit * w as u32 + w as u32 / 2, h as u32 / 2);
        let sum: u32 = p.iter().map(|&c| c as u32).sum();
        match sum {
            s if s >= 3 * 200 => frame |= 1 << bit,
            s if s <= 3 * 40 => {}
            _ => bail!("no frame code at the top left: block {bit} is {p:?}, neither black nor white"),
        }
    }
    Ok(frame)
}

/// The box of every pixel that is not the background (the most common colour), below the frame code.
/// A column or row of one uniform colour across the whole picture is the display's border (mednafen
/// shows the 320-pixel area one pixel late, with a black first column), not part of the scene; border
/// columns at the left edge shift the scene right, so the box is moved back by their number.
fn silhouette_box(shot: &Screenshot) -> Option<PixelBox> {
    let top = scene::FRAME_CODE_BLOCK.1 as u32;
    let mut counts = std::collections::HashMap::new();
    for y in top..shot.height {
        for x in 0..shot.width {
            *counts.entry(pixel(shot, x, y)).or_insert(0usize) += 1;
        }
    }
    let background = counts.into_iter().max_by_key(|&(_, n)| n)?.0;
    let border_column = |x: u32| {
        let c = pixel(shot, x, top);
        c != background && (top..shot.height).all(|y| pixel(shot, x, y) == c)
    };
    let border_row = |y: u32| {
        let c = pixel(shot, 0, y);
        c != background && (0..shot.width).all(|x| pixel(shot, x, y) == c)
    };
    let columns: Vec<bool> = (0..shot.width).map(border_column).collect();
    let rows: Vec<bool> = (0..shot.height).map(|y| y >= top && border_row(y)).collect();
    let mut b: Option<PixelBox> = None;
    for y in top..shot.height {
        for x in 0..shot.width {
            if !columns[x as usize] && !rows[y as usize] && pixel(shot, x, y) != background {
                b = Some(PixelBox::union(b, PixelBox { min: (x as i32, y as i32), max: (x as i32, y as i32) }));
            }
        }
    }
    let shift = columns.iter().take_while(|&&border| border).count() as i32;
    b.map(|b| PixelBox { min: (b.min.0 - shift, b.min.1), max: (b.max.0 - shift, b.max.1) })
}

/// Cycle figures from the record (root counter 2 ticks at `scene::MEASURED_FRAME`) and the host's
/// counts of the same frame.
#[derive(Debug, Serialize)]
pub struct CycleFigures {
    pub measured_frame: u32,
    pub instances: Vec<InstanceCycles>,
    /// The sum of every instance's stages (the program's own whole-scene slot wraps past 65,535 ticks).
    pub scene_cycles: f64,
    pub rigid_cycles_per_vertex: Option<f64>,
    pub baked_cycles_per_vertex: Option<f64>,
    /// Pose evaluation: sample decoding (with the pose cache: the cached frame's lookup) plus bone
    /// matrices (with the cache: one compose per bone).
    pub rigid_pose_cycles: Option<f64>,
    pub rigid_sample_decode_cycles: Option<f64>,
    pub rigid_bone_matrix_cycles: Option<f64>,
    /// Bone matrices per bone (the composes and the object matrix load, over the fixture's bones).
    pub rigid_bone_matrix_cycles_per_bone: Option<f64>,
    /// The Pose stage of a 20-bone skeleton, measured at start-up (object matrix load and 20 composes
    /// on cached entries), and per bone.
    pub compose_20_bones_cycles: Option<f64>,
    pub compose_cycles_per_bone: Option<f64>,
    /// The compact path (no cache) posing "Walk" at the measured frame, measured at start-up.
    pub compact_pose_cycles: Option<f64>,
    /// Blending two cached frames of the fixture (an interpolated sample's extra Decode cost),
    /// measured at start-up at the halfway weight and at another.
    pub blend_halfway_cycles: Option<f64>,
    pub blend_other_weight_cycles: Option<f64>,
    /// Pose evaluation of a 20-bone skeleton: the measured lookup (Decode stage) plus the measured
    /// 20-bone Pose stage.
    pub rigid_pose_20_bones_cycles: Option<f64>,
    /// Building the rigid pose cache at start-up (every frame of every clip), and the RAM it holds.
    pub pose_cache_build_cycles: Option<f64>,
    pub pose_cache_bytes: Option<usize>,
    pub baked_decode_cycles: Option<f64>,
    /// The slowest decode of every frame of every baked clip, measured alone at start-up, per vertex
    /// (the figure), which frame it was, the slowest of the frames without escapes and the
    /// synthetic raw frame, per vertex.
    pub baked_decode_cycles_per_vertex: Option<f64>,
    pub baked_decode_slowest_frame: Option<String>,
    pub baked_decode_no_escapes_cycles_per_vertex: Option<f64>,
    pub baked_decode_raw_cycles_per_vertex: Option<f64>,
    pub cycles_per_triangle_considered: Option<f64>,
    pub cycles_per_drawn_triangle: Option<f64>,
    pub offscreen_cycles: Option<f64>,
    /// Four characters of 512 vertices and 1,024 triangles at the rigid rates, in % of a 30 fps frame.
    pub four_512_vertex_characters_percent_of_30fps_frame: Option<f64>,
    /// The triangle stage's paths per triangle, measured at start-up on synthetic triangles: a back
    /// face and a front face (packet written and linked), without the near and span tests (a clear
    /// character) and with them.
    pub back_face_cycles: Option<f64>,
    pub front_face_cycles: Option<f64>,
    pub back_face_tested_cycles: Option<f64>,
    pub front_face_tested_cycles: Option<f64>,
    /// Per triangle of a quad run and of a strip (a quad is two), back- and front-facing.
    pub quad_back_face_cycles: Option<f64>,
    pub quad_front_face_cycles: Option<f64>,
    pub strip_back_face_cycles: Option<f64>,
    pub strip_front_face_cycles: Option<f64>,
    /// A crossfade's own cost, measured at start-up on the fixture's poses (Walk to Idle, Turn to
    /// Walk, halfway): the rigid blend per bone and the baked blend per vertex, and the whole Decode
    /// stage of a fading instance (both clips decoded, then blended; the rigid one from the compact
    /// stream, which a crossfade uses even with a pose cache).
    pub crossfade_rigid_blend_cycles_per_bone: Option<f64>,
    pub crossfade_baked_blend_cycles_per_vertex: Option<f64>,
    pub crossfade_rigid_decode_cycles: Option<f64>,
    pub crossfade_baked_decode_cycles: Option<f64>,
    /// An Animator's RAM: the per-instance state of an imported character's player.
    pub animator_bytes: usize,
}

#[derive(Debug, Serialize)]
pub struct InstanceCycles {
    pub instance: usize,
    pub storage: String,
    pub culled: bool,
    pub bounds: f64,
    /// Rigid: bone samples decoded (and blended); baked: the frame decoded.
    pub decode: f64,
    /// Rigid: model-view matrices from the samples, composed on the GTE.
    pub bone_matrices: f64,
    pub projection: f64,
    pub triangles: f64,
    pub vertices: usize,
    pub bones: usize,
    pub triangles_considered: usize,
    pub triangles_drawn: u32,
}

fn cycle_figures(models: scene::Models, view: &RecordView) -> Result<CycleFigures> {
    let at = view.cycles(scene::SLOT_FRAME);
    ensure!(
        at == scene::MEASURED_FRAME,
        "the record holds no cycle counts of frame {} (slot {} = {at})",
        scene::MEASURED_FRAME,
        scene::SLOT_FRAME
    );
    let host = host_frame(models, scene::MEASURED_FRAME)?;
    let cyc = |slot: usize| view.cycles(slot) as f64 * CYCLES_PER_TICK;
    let mut instances = Vec::new();
    for (i, p) in scene::PLACEMENTS.iter().enumerate() {
        let t = models.get(p.model);
        let drawn = match host.outcomes[i] {
            Outcome::Drawn(s) => Some(s.drawn),
            Outcome::Culled => None,
        };
        instances.push(InstanceCycles {
            instance: i,
            storage: format!("{:?}", p.model),
            culled: drawn.is_none(),
            bounds: cyc(scene::STAGES * i),
            decode: cyc(scene::STAGES * i + 1),
            bone_matrices: cyc(scene::STAGES * i + 2),
            projection: cyc(scene::STAGES * i + 3),
            triangles: cyc(scene::STAGES * i + 4),
            vertices: t.vertex_count(),
            bones: t.bone_count(),
            triangles_considered: t.triangle_count(),
            triangles_drawn: drawn.unwrap_or(0),
        });
    }
    let drawn: Vec<&InstanceCycles> = instances.iter().filter(|c| !c.culled).collect();
    let mean = |f: &dyn Fn(&InstanceCycles) -> Option<f64>, model: Option<&str>| -> Option<f64> {
        let v: Vec<f64> = drawn.iter().filter(|c| model.is_none_or(|m| c.storage == m)).filter_map(|c| f(c)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let rigid_cpv = mean(&|c| Some(c.projection / c.vertices as f64), Some("Rigid"));
    let baked_cpv = mean(&|c| Some(c.projection / c.vertices as f64), Some("Baked"));
    let rigid_pose = mean(&|c| Some(c.decode + c.bone_matrices), Some("Rigid"));
    let per_bone = mean(&|c| Some(c.bone_matrices / c.bones as f64), Some("Rigid"));
    let bench_ticks = view.cycles(scene::SLOT_COMPOSE_BENCH);
    let blend = |i: usize| {
        let ticks = view.cycles(scene::SLOT_BLEND_BENCH + i);
        (ticks != 0).then_some(ticks as f64 * CYCLES_PER_TICK / scene::COMPOSE_BENCH_RUNS as f64)
    };
    let compact_ticks = view.cycles(scene::SLOT_COMPACT_BENCH);
    let compose_20 = (bench_ticks != 0).then(|| bench_ticks as f64 * CYCLES_PER_TICK / scene::COMPOSE_BENCH_RUNS as f64);
    let lookup = mean(&|c| Some(c.decode), Some("Rigid"));
    let pose_20 = lookup.zip(compose_20).map(|(l, c)| l + c);
    let cache_ticks = view.cycles(scene::SLOT_POSE_CACHE);
    let face = |kind: scene::FaceBench, front: bool, clip_tests: bool| {
        let i = scene::FACE_BENCH_CASES.iter().position(|&c| c == (kind, front, clip_tests))?;
        let ticks = view.cycles(scene::SLOT_FACE_BENCH + i);
        let per = scene::FACE_BENCH_RUNS as f64 * scene::FACE_BENCH_TRIANGLES as f64;
        (ticks != 0).then(|| ticks as f64 * CYCLES_PER_TICK / per)
    };
    let baked_bench = |slot: usize| {
        let ticks = view.cycles(slot);
        (ticks != 0).then(|| ticks as f64 * CYCLES_PER_TICK / models.baked.vertex_count() as f64)
    };
    let fade = |i: usize| {
        let ticks = view.cycles(scene::SLOT_FADE_BENCH + i);
        (ticks != 0).then_some(ticks as f64 * CYCLES_PER_TICK)
    };
    let per_tri = mean(&|c| Some(c.triangles / c.triangles_considered as f64), None);
    let per_drawn = mean(&|c| (c.triangles_drawn > 0).then(|| c.triangles / c.triangles_drawn as f64), None);
    let four = match (rigid_cpv, per_tri, rigid_pose) {
        (Some(v), Some(t), Some(p)) => Some(100.0 * 4.0 * (512.0 * v + 1024.0 * t + p) / CYCLES_PER_30FPS_FRAME),
        _ => None,
    };
    Ok(CycleFigures {
        measured_frame: scene::MEASURED_FRAME,
        scene_cycles: instances.iter().map(|c| c.bounds + c.decode + c.bone_matrices + c.projection + c.triangles).sum(),
        rigid_cycles_per_vertex: rigid_cpv,
        baked_cycles_per_vertex: baked_cpv,
        rigid_pose_cycles: rigid_pose,
        rigid_sample_decode_cycles: mean(&|c| Some(c.decode), Some("Rigid")),
        rigid_bone_matrix_cycles: mean(&|c| Some(c.bone_matrices), Some("Rigid")),
        rigid_bone_matrix_cycles_per_bone: per_bone,
        compose_20_bones_cycles: compose_20,
        compose_cycles_per_bone: compose_20.map(|c| c / scene::COMPOSE_BENCH_BONES as f64),
        rigid_pose_20_bones_cycles: pose_20,
        compact_pose_cycles: (compact_ticks != 0).then_some(compact_ticks as f64 * CYCLES_PER_TICK),
        blend_halfway_cycles: blend(0),
        blend_other_weight_cycles: blend(1),
        pose_cache_build_cycles: (cache_ticks != 0).then_some(cache_ticks as f64 * CYCLES_PER_TICK),
        pose_cache_bytes: models.rigid_poses.map(|p| p.bytes()),
        baked_decode_cycles: mean(&|c| Some(c.decode), Some("Baked")),
        baked_decode_cycles_per_vertex: baked_bench(baked_paths::SLOT_BAKED_BENCH),
        baked_decode_slowest_frame: (view.cycles(baked_paths::SLOT_BAKED_BENCH) != 0).then(|| {
            let which = view.cycles(baked_paths::SLOT_BAKED_SLOWEST_FRAME) as usize;
            let name = models.baked.clip(which >> 16).ok().and_then(|c| models.baked.name(c.name_offset).ok()).unwrap_or("?");
            format!("{name} frame {}", which & 0xFFFF)
        }),
        baked_decode_no_escapes_cycles_per_vertex: baked_bench(baked_paths::SLOT_BAKED_NO_ESCAPES),
        baked_decode_raw_cycles_per_vertex: baked_bench(baked_paths::SLOT_BAKED_RAW),
        cycles_per_triangle_considered: per_tri,
        cycles_per_drawn_triangle: per_drawn,
        offscreen_cycles: instances.iter().find(|c| c.culled).map(|c| c.bounds + c.decode + c.bone_matrices + c.projection + c.triangles),
        four_512_vertex_characters_percent_of_30fps_frame: four,
        back_face_cycles: face(scene::FaceBench::Triangles, false, false),
        front_face_cycles: face(scene::FaceBench::Triangles, true, false),
        back_face_tested_cycles: face(scene::FaceBench::Triangles, false, true),
        front_face_tested_cycles: face(scene::FaceBench::Triangles, true, true),
        quad_back_face_cycles: face(scene::FaceBench::Quads, false, false),
        quad_front_face_cycles: face(scene::FaceBench::Quads, true, false),
        strip_back_face_cycles: face(scene::FaceBench::Strip, false, false),
        strip_front_face_cycles: face(scene::FaceBench::Strip, true, false),
        crossfade_rigid_blend_cycles_per_bone: fade(0).map(|c| c / models.rigid.bone_count() as f64),
        crossfade_baked_blend_cycles_per_vertex: fade(1).map(|c| c / models.baked.vertex_count() as f64),
        crossfade_rigid_decode_cycles: fade(2),
        crossfade_baked_decode_cycles: fade(3),
        animator_bytes: std::mem::size_of::<psxanim_runtime::anim::Animator>(),
        instances,
    })
}

/// The checks beyond the record words: (a) the screenshots differ where the characters are, (d) the
/// silhouette's box matches the host's projected box within 1 pixel, and the cycle figures (reported,
/// written to `artifacts/cycles-character-EMULATOR.json`; present or not is the check).
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
    let mut checks = Vec::new();
    let mut host_boxes = Vec::new();
    for shot in shots {
        let name = format!("character.silhouette.frame{}", shot.frame);
        let result = (|| -> Result<(PixelBox, String)> {
            ensure!(
                (shot.width, shot.height) == (scene::SCREEN.0 as u32, scene::SCREEN.1 as u32),
                "screenshot is {}x{}, expected the 320x240 display",
                shot.width,
                shot.height
            );
            let frame = frame_code(shot)?;
            let host = host_frame(models, frame)?;
            let all: Vec<DrawnTriangle> = host.triangles.concat();
            let expected = drawn_box(&all).context("the host draws nothing at this frame")?;
            let found = silhouette_box(shot).context("the screenshot is one flat colour")?;
            let detail = format!("program frame {frame}: host box {expected:?}, screenshot box {found:?}");
            ensure!(found.within(&expected, 1), "{detail}");
            Ok((expected, detail))
        })();
        match result {
            Ok((b, detail)) => {
                host_boxes.push(b);
                checks.push(Check::new(name, true, detail));
            }
            Err(e) => checks.push(Check::new(name, false, format!("{e:#}"))),
        }
    }
    if let (Some(first), Some(last), true) = (shots.first(), shots.last(), host_boxes.len() == shots.len() && shots.len() >= 2) {
        let region = host_boxes.iter().fold(None, |acc, b| Some(PixelBox::union(acc, *b))).expect("two boxes");
        let mut changed = 0;
        for y in region.min.1..=region.max.1 {
            for x in region.min.0..=region.max.0 {
                if pixel(first, x as u32, y as u32) != pixel(last, x as u32, y as u32) {
                    changed += 1;
                }
            }
        }
        checks.push(Check::new(
            "character.frames_differ_at_characters",
            changed >= MIN_CHANGED_PIXELS,
            format!("{changed} pixels differ inside {region:?} (at least {MIN_CHANGED_PIXELS} wanted)"),
        ));
    } else {
        checks.push(Check::new("character.frames_differ_at_characters", false, "needs two screenshots with a readable frame code"));
    }
    match view.context("no record").and_then(|v| cycle_figures(models, v)) {
        Ok(f) => {
            let path = artifacts.join(format!("cycles-character-{emulator}.json"));
            let written = serde_json::to_string_pretty(&f)
                .map_err(anyhow::Error::from)
                .and_then(|t| std::fs::write(&path, t + "\n").with_context(|| format!("writing {}", path.display())));
            let fmt = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.1}"));
            let detail = format!(
                "rigid {} cyc/vertex, baked {} cyc/vertex, rigid pose {} cyc ({} decoding samples, {} bone matrices = {} per bone; 20 bones {} = lookup + {} for 20 composes ({} per bone); blending two frames {} at weight 0.5, {} at others; without the cache {}; cache {} bytes built in {} cyc), baked decode {} cyc, {} cyc/triangle ({} per drawn; per triangle, back / front: triangle run {} / {}, with the near/span tests {} / {}, quad run {} / {}, strip {} / {}), off-screen {} cyc, 4x512v/1024t = {}% of a 30 fps frame; crossfade: rigid blend {} cyc/bone, baked blend {} cyc/vertex, fading Decode rigid {} / baked {} cyc; Animator {} bytes; {}",
                fmt(f.rigid_cycles_per_vertex),
                fmt(f.baked_cycles_per_vertex),
                fmt(f.rigid_pose_cycles),
                fmt(f.rigid_sample_decode_cycles),
                fmt(f.rigid_bone_matrix_cycles),
                fmt(f.rigid_bone_matrix_cycles_per_bone),
                fmt(f.rigid_pose_20_bones_cycles),
                fmt(f.compose_20_bones_cycles),
                fmt(f.compose_cycles_per_bone),
                fmt(f.blend_halfway_cycles),
                fmt(f.blend_other_weight_cycles),
                fmt(f.compact_pose_cycles),
                f.pose_cache_bytes.map_or("n/a".to_string(), |b| b.to_string()),
                fmt(f.pose_cache_build_cycles),
                fmt(f.baked_decode_cycles),
                fmt(f.cycles_per_triangle_considered),
                fmt(f.cycles_per_drawn_triangle),
                fmt(f.back_face_cycles),
                fmt(f.front_face_cycles),
                fmt(f.back_face_tested_cycles),
                fmt(f.front_face_tested_cycles),
                fmt(f.quad_back_face_cycles),
                fmt(f.quad_front_face_cycles),
                fmt(f.strip_back_face_cycles),
                fmt(f.strip_front_face_cycles),
                fmt(f.offscreen_cycles),
                fmt(f.four_512_vertex_characters_percent_of_30fps_frame),
                fmt(f.crossfade_rigid_blend_cycles_per_bone),
                fmt(f.crossfade_baked_blend_cycles_per_vertex),
                fmt(f.crossfade_rigid_decode_cycles),
                fmt(f.crossfade_baked_decode_cycles),
                f.animator_bytes,
                path.display()
            );
            println!("character cycles: {detail}");
            checks.push(Check::new("character.cycles", written.is_ok(), detail));
        }
        Err(e) => checks.push(Check::new("character.cycles", false, format!("{e:#}"))),
    }
    checks
}

#[cfg(test)]
mod tests {
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
    fn the_host_scene_draws_three_characters_and_culls_the_fourth() {
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        for frame in [0, 45, 200] {
            let h = host_frame(models, frame).unwrap();
            assert_eq!(h.outcomes[3], Outcome::Culled, "frame {frame}");
            for i in 0..3 {
                assert!(h.triangles[i].len() > 100, "frame {frame} instance {i}: {} triangles", h.triangles[i].len());
            }
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
        let frames = [30u32, 90];
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
        let wrong = vec![shot_of(&host_frame(models, 30).unwrap().triangles.concat(), 95), shots[1].clone()];
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
            let mut scratch = Box::new(Scratch::new());
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

    /// The pose cache's builder decodes frames in order ([`ClipFrames`]) and composes with
    /// `compose_packed`: on the real fixture (animated rotations, several blocks) it must give exactly
    /// the random-access samples and the per-register compose chain, frame by frame.
    #[test]
    fn the_fixture_decodes_the_same_in_order_and_at_random() {
        use psxanim_runtime::tables::{BoneSample, ClipFrames, ComponentCursor, COMPONENTS_PER_BONE};
        let blobs = blobs();
        let mut pose_buffer = Vec::new();
        let Some(models) = models_or_skip(&blobs, &mut pose_buffer) else { return };
        let t = &models.rigid;
        let mut cursors = vec![ComponentCursor::ZERO; COMPONENTS_PER_BONE * t.bone_count()];
        let (mut seq, mut random) = (vec![BoneSample::default(); t.bone_count()], vec![BoneSample::default(); t.bone_count()]);
        let mut frames = 0;
        for c in 0..t.clip_count() {
            let mut constants = vec![BoneSample::default(); t.bone_count()];
            let mut decoder = ClipFrames::new(t, c, &mut cursors, &mut constants).unwrap();
            for f in 0..t.clip(c).unwrap().frame_count as usize {
                decoder.next_frame(&mut seq).unwrap();
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
        assert_eq!(e.words.len(), cache_at + 1 + paths + fades + events.len() + 1);
        assert_eq!(e.words[cache_at].name, "pose_cache.hash");
        assert_eq!(e.words[cache_at + paths].name, "baked.path.bad_escape1.output_hash");
        let tail: Vec<u32> = e.words[cache_at + 1 + paths + fades..].iter().map(|w| w.value).collect();
        assert_eq!(tail[..events.len()], events);
        assert_eq!(e.words.last().map(|w| w.name.as_str()), Some("animator.bytes.step0.0"));
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
        assert_eq!((values[4].0, values[4].1), ("corrupt.rigid.block-at-stream-end.code", 16), "bit stream end");
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
