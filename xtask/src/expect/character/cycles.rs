//! The character example's cycle figures: the record's root counter 2 readings paired with the host's
//! counts of the same frame.
use super::screen::host_frame;
use super::*;
use crate::expect::textured_cycles::{TexturedFigures, TexturedStages};
/// Cycle figures from the record (root counter 2 ticks at `scene::MEASURED_FRAME`) and the host's
/// counts of the same frame.
#[derive(Debug, Serialize)]
pub struct CycleFigures {
    pub measured_frame: u32,
    /// The textured, lit instance (`scene::TEXTURED_INSTANCE`: projection with the light, textured
    /// Gouraud triangles), under issue 22's names; the other figures are the untextured instances'.
    #[serde(flatten)]
    pub textured: TexturedFigures,
    pub instances: Vec<InstanceCycles>,
    /// The sum of every instance's stages (the program's own whole-scene slot wraps past 65,535 ticks).
    pub scene_cycles: f64,
    pub rigid_cycles_per_vertex: Option<f64>,
    /// The projection bench (start-up, one pose of the rigid blob): cycles per vertex of the rigid
    /// ranges, and per blended vertex of the blend stage (`render::blend`: a compose per bone pair, a
    /// blended matrix per weight group, RTPT per vertex), and the blob's blended vertices.
    pub rigid_vertex_cycles: Option<f64>,
    pub blended_vertex_cycles: Option<f64>,
    pub blended_vertices: usize,
    pub blend_groups: usize,
    /// `render::blend::group_matrix` per group (the tools' path: the stage's register operations for
    /// the group's pair and the group, run from Rust and read back), not the asm loop's share of
    /// `blended_vertex_cycles` (its module doc gives that split).
    pub blend_group_matrix_cycles: Option<f64>,
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
    /// Rigid pose construction of a 20-bone skeleton (the fixture's bones and "Walk" samples
    /// repeated), measured at start-up: the local matrices alone (`bones::sample_matrix`, quaternion
    /// to matrix), and the whole model-view matrices (`bones::pose_matrices`: local matrices composed
    /// along the parent chain with the object matrix), each also per bone.
    pub sample_matrix_20_bones_cycles: Option<f64>,
    pub sample_matrix_cycles_per_bone: Option<f64>,
    pub bone_matrices_20_bones_cycles: Option<f64>,
    pub bone_matrices_cycles_per_bone: Option<f64>,
    /// The model-view matrices from the same poses already in the GTE's units (`bones::PoseQ14`,
    /// `bones::pose_matrices_q14`): the cost if the decoder emits that form.
    pub bone_matrices_q14_20_bones_cycles: Option<f64>,
    pub bone_matrices_q14_cycles_per_bone: Option<f64>,
    /// `bones::compose_q14` alone per bone (the object as every bone's parent, no parent lookup).
    pub compose_q14_cycles_per_bone: Option<f64>,
    /// `bone_matrices_q14` with the poses, the object matrix and the output in the scratchpad.
    pub bone_matrices_q14_scratchpad_cycles_per_bone: Option<f64>,
    /// An Animator's RAM: the per-instance state of an imported character's player.
    pub animator_bytes: usize,
    /// Issue 14, on the 20-bone character (`stream_bench`): its 30 Hz Walk at 60 Hz, interpolated,
    /// decoded forward through a `PoseStream` (no pose cache) and composed into model-view matrices:
    /// the slowest of `stream_bench::FRAMES` frames, their average, the slowest decode and the
    /// slowest matrices alone; a restart at a block (seek); the slowest stepped frame.
    pub compact_pose_20_bones_cycles: Option<f64>,
    pub compact_pose_20_bones_average_cycles: Option<f64>,
    pub compact_decode_20_bones_cycles: Option<f64>,
    pub compact_bone_matrices_20_bones_cycles: Option<f64>,
    pub compact_seek_20_bones_cycles: Option<f64>,
    /// The slowest seek to a block's first frames (a play or crossfade from a clip's start): two records.
    pub compact_seek_block_start_20_bones_cycles: Option<f64>,
    pub compact_stepped_20_bones_cycles: Option<f64>,
    /// The slowest frame of a crossfade through the `PoseStream` (the Walk restarting into itself:
    /// both voices' poses, their blend in the GTE's form, the matrices), and its decode and blend alone.
    pub compact_crossfade_20_bones_cycles: Option<f64>,
    pub compact_crossfade_decode_20_bones_cycles: Option<f64>,
    /// The slowest blend alone of those frames (`bones::crossfade_q14` of the 20 poses), and per bone.
    pub compact_crossfade_blend_20_bones_cycles: Option<f64>,
    pub compact_crossfade_blend_cycles_per_bone: Option<f64>,
    /// The forward frames split (`stream_bench::split`: one voice, each part timed alone, slowest of
    /// the frames): the record pass, the pose writing (interpolation and the fourth component), and
    /// the compose of the 20 poses.
    pub compact_split_record_20_bones_cycles: Option<f64>,
    pub compact_split_write_20_bones_cycles: Option<f64>,
    pub compact_split_compose_20_bones_cycles: Option<f64>,
    /// The record pass and the pose writing averaged over the same frames.
    pub compact_split_record_20_bones_average_cycles: Option<f64>,
    pub compact_split_write_20_bones_average_cycles: Option<f64>,
    /// One voice's decoder state for the Walk (its words and position), per bone.
    pub decoder_state_bytes_per_bone: Option<f64>,
    /// Four 512-vertex, 1,024-triangle rigid characters with compact poses (the 20-bone figure) at
    /// the rigid rates, in % of a 60 Hz frame.
    pub four_512_vertex_characters_percent_of_60fps_frame_compact: Option<f64>,
    /// Rigid clip data (every clip) per bone and second of clip: the fixture character, the 20-bone one.
    pub storage_bytes_per_bone_second: Option<f64>,
    pub storage_bytes_per_bone_second_twenty_bones: Option<f64>,
}

/// Bytes of clip data per bone and second over every clip of `t`.
fn storage_per_bone_second(t: &Tables) -> Option<f64> {
    let (mut bytes, mut bone_seconds) = (0.0, 0.0);
    for c in 0..t.clip_count() {
        let clip = t.clip(c).ok()?;
        bytes += clip.data_size as f64;
        bone_seconds += t.bone_count() as f64 * clip.frame_count as f64 / clip.rate_hz.max(1) as f64;
    }
    (bone_seconds > 0.0).then(|| bytes / bone_seconds)
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

pub(super) fn cycle_figures(models: scene::Models, twenty_blob: Option<&[u8]>, view: &RecordView) -> Result<CycleFigures> {
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
            bounds: cyc(scene::stage_slot(i, 0)),
            decode: cyc(scene::stage_slot(i, 1)),
            bone_matrices: cyc(scene::stage_slot(i, 2)),
            projection: cyc(scene::stage_slot(i, 3)),
            triangles: cyc(scene::stage_slot(i, 4)),
            vertices: t.vertex_count(),
            bones: t.bone_count(),
            triangles_considered: t.triangle_count(),
            triangles_drawn: drawn.unwrap_or(0),
        });
    }
    let drawn: Vec<&InstanceCycles> = instances.iter().filter(|c| !c.culled).collect();
    // Of the drawn instances of one storage, or of every untextured one (the flat figures).
    let mean = |f: &dyn Fn(&InstanceCycles) -> Option<f64>, model: Option<&str>| -> Option<f64> {
        let flat = |c: &&&InstanceCycles| c.storage != "Textured";
        let v: Vec<f64> = drawn.iter().filter(|c| model.map_or(flat(c), |m| c.storage == m)).filter_map(|c| f(c)).collect();
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
    let pose_bench = |slot: usize| {
        let ticks = view.cycles(slot);
        (ticks != 0).then(|| ticks as f64 * CYCLES_PER_TICK / scene::POSE_BENCH_RUNS as f64)
    };
    let (sample_20, posed_20) = (pose_bench(scene::SLOT_SAMPLE_MATRIX_BENCH), pose_bench(scene::SLOT_POSE_MATRICES_BENCH));
    let padded_q14_20 = pose_bench(scene::SLOT_POSE_MATRICES_Q14_SCRATCHPAD_BENCH);
    let posed_q14_20 = pose_bench(scene::SLOT_POSE_MATRICES_Q14_BENCH);
    let composed_q14_20 = pose_bench(scene::SLOT_COMPOSE_Q14_BENCH);
    let per_tri = mean(&|c| Some(c.triangles / c.triangles_considered as f64), None);
    let stream = |slot: usize| {
        let ticks = view.cycles(slot);
        (ticks != 0).then_some(ticks as f64 * CYCLES_PER_TICK)
    };
    let state_words = view.cycles(stream_bench::SLOT_STATE_WORDS);
    let twenty = twenty_blob.and_then(|b| Tables::parse(b).ok());
    let twenty_bones = twenty.as_ref().map_or(0, |t| t.bone_count());
    let per_drawn = mean(&|c| (c.triangles_drawn > 0).then(|| c.triangles / c.triangles_drawn as f64), None);
    let four = match (rigid_cpv, per_tri, rigid_pose) {
        (Some(v), Some(t), Some(p)) => Some(100.0 * 4.0 * (512.0 * v + 1024.0 * t + p) / CYCLES_PER_30FPS_FRAME),
        _ => None,
    };
    let painted = &instances[scene::TEXTURED_INSTANCE];
    ensure!(!painted.culled, "the textured instance is not drawn at frame {}", scene::MEASURED_FRAME);
    let textured = TexturedFigures::of(&TexturedStages {
        pose: painted.decode + painted.bone_matrices,
        projection: painted.projection,
        triangles: painted.triangles,
        vertices: painted.vertices,
        triangles_considered: painted.triangles_considered,
        triangles_drawn: painted.triangles_drawn,
    });
    Ok(CycleFigures {
        textured,
        measured_frame: scene::MEASURED_FRAME,
        scene_cycles: instances.iter().map(|c| c.bounds + c.decode + c.bone_matrices + c.projection + c.triangles).sum(),
        rigid_cycles_per_vertex: rigid_cpv,
        rigid_vertex_cycles: {
            let ticks = view.cycles(scene::SLOT_RIGID_PROJECT_BENCH);
            let rigid_vertices = models.rigid.vertex_count() - models.rigid.blended_vertex_count();
            (ticks != 0 && rigid_vertices > 0)
                .then(|| ticks as f64 * CYCLES_PER_TICK / scene::PROJECT_BENCH_RUNS as f64 / rigid_vertices as f64)
        },
        blended_vertex_cycles: {
            let ticks = view.cycles(scene::SLOT_BLEND_PROJECT_BENCH);
            let blended = models.rigid.blended_vertex_count();
            (ticks != 0 && blended > 0).then(|| ticks as f64 * CYCLES_PER_TICK / scene::PROJECT_BENCH_RUNS as f64 / blended as f64)
        },
        blended_vertices: models.rigid.blended_vertex_count(),
        blend_groups: models.rigid.blend_group_count(),
        blend_group_matrix_cycles: {
            let ticks = view.cycles(scene::SLOT_BLEND_MATRICES_BENCH);
            let groups = models.rigid.blend_group_count();
            (ticks != 0 && groups > 0).then(|| ticks as f64 * CYCLES_PER_TICK / scene::PROJECT_BENCH_RUNS as f64 / groups as f64)
        },
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
        sample_matrix_20_bones_cycles: sample_20,
        sample_matrix_cycles_per_bone: sample_20.map(|c| c / scene::POSE_BENCH_BONES as f64),
        bone_matrices_20_bones_cycles: posed_20,
        bone_matrices_cycles_per_bone: posed_20.map(|c| c / scene::POSE_BENCH_BONES as f64),
        bone_matrices_q14_20_bones_cycles: posed_q14_20,
        bone_matrices_q14_cycles_per_bone: posed_q14_20.map(|c| c / scene::POSE_BENCH_BONES as f64),
        compose_q14_cycles_per_bone: composed_q14_20.map(|c| c / scene::POSE_BENCH_BONES as f64),
        bone_matrices_q14_scratchpad_cycles_per_bone: padded_q14_20.map(|c| c / scene::POSE_BENCH_BONES as f64),
        animator_bytes: std::mem::size_of::<psxanim_runtime::anim::Animator>(),
        compact_pose_20_bones_cycles: stream(stream_bench::SLOT_POSE_SLOWEST),
        compact_pose_20_bones_average_cycles: stream(stream_bench::SLOT_POSE_TOTAL).map(|c| c / stream_bench::FRAMES as f64),
        compact_decode_20_bones_cycles: stream(stream_bench::SLOT_DECODE_SLOWEST),
        compact_bone_matrices_20_bones_cycles: stream(stream_bench::SLOT_MATRICES_SLOWEST),
        compact_seek_20_bones_cycles: stream(stream_bench::SLOT_SEEK_SLOWEST),
        compact_seek_block_start_20_bones_cycles: stream(stream_bench::SLOT_SEEK_BLOCK_START_SLOWEST),
        compact_stepped_20_bones_cycles: stream(stream_bench::SLOT_STEPPED_SLOWEST),
        compact_crossfade_20_bones_cycles: stream(stream_bench::SLOT_CROSSFADE_SLOWEST),
        compact_crossfade_decode_20_bones_cycles: stream(stream_bench::SLOT_CROSSFADE_DECODE_SLOWEST),
        compact_crossfade_blend_20_bones_cycles: stream(stream_bench::SLOT_CROSSFADE_BLEND_SLOWEST),
        compact_crossfade_blend_cycles_per_bone: stream(stream_bench::SLOT_CROSSFADE_BLEND_SLOWEST).and_then(|c| (twenty_bones != 0).then(|| c / twenty_bones as f64)),
        compact_split_record_20_bones_cycles: stream(stream_bench::SLOT_SPLIT_RECORD_SLOWEST),
        compact_split_write_20_bones_cycles: stream(stream_bench::SLOT_SPLIT_WRITE_SLOWEST),
        compact_split_compose_20_bones_cycles: stream(stream_bench::SLOT_SPLIT_COMPOSE_SLOWEST),
        compact_split_record_20_bones_average_cycles: stream(stream_bench::SLOT_SPLIT_RECORD_TOTAL).map(|c| c / stream_bench::FRAMES as f64),
        compact_split_write_20_bones_average_cycles: stream(stream_bench::SLOT_SPLIT_WRITE_TOTAL).map(|c| c / stream_bench::FRAMES as f64),
        decoder_state_bytes_per_bone: (state_words != 0 && twenty_bones != 0).then(|| {
            (4 * state_words as usize + std::mem::size_of::<psxanim_runtime::tables::stream::VoiceState>()) as f64 / twenty_bones as f64
        }),
        four_512_vertex_characters_percent_of_60fps_frame_compact: match (rigid_cpv, per_tri, stream(stream_bench::SLOT_POSE_SLOWEST)) {
            (Some(v), Some(t), Some(p)) => Some(100.0 * 4.0 * (512.0 * v + 1024.0 * t + p) / (CYCLES_PER_30FPS_FRAME / 2.0)),
            _ => None,
        },
        storage_bytes_per_bone_second: storage_per_bone_second(&models.rigid),
        storage_bytes_per_bone_second_twenty_bones: twenty.as_ref().and_then(storage_per_bone_second),
        instances,
    })
}

/// The cycle figures, reported and written to `artifacts/cycles-character-EMULATOR.json` (present or
/// not is the check).
pub(super) fn cycle_checks(models: scene::Models, twenty_blob: Option<&[u8]>, emulator: &str, view: Option<&RecordView>, artifacts: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    match view.context("no record").and_then(|v| cycle_figures(models, twenty_blob, v)) {
        Ok(f) => {
            let path = artifacts.join(format!("cycles-character-{emulator}.json"));
            let written = serde_json::to_string_pretty(&f)
                .map_err(anyhow::Error::from)
                .and_then(|t| std::fs::write(&path, t + "\n").with_context(|| format!("writing {}", path.display())));
            let fmt = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.1}"));
            let detail = format!(
                "textured lit {:.1} cyc/vertex, {:.1} per drawn textured triangle, four such characters {:.1}% of a 30 fps frame; rigid {} cyc/vertex (rigid ranges {} per vertex, blended {} per vertex: {} in {} groups), baked {} cyc/vertex, rigid pose {} cyc ({} decoding samples, {} bone matrices = {} per bone; 20 bones {} = lookup + {} for 20 composes ({} per bone); blending two frames {} at weight 0.5, {} at others; without the cache {}; cache {} bytes built in {} cyc), baked decode {} cyc, {} cyc/triangle ({} per drawn; per triangle, back / front: triangle run {} / {}, with the near/span tests {} / {}, quad run {} / {}, strip {} / {}), off-screen {} cyc, 4x512v/1024t = {}% of a 30 fps frame; crossfade: rigid blend {} cyc/bone, baked blend {} cyc/vertex, fading Decode rigid {} / baked {} cyc; 20-bone pose construction: local matrices {} cyc, model-view matrices {} cyc ({} per bone; {} per bone from PoseQ14); 20-bone compact pose (forward, interpolated, slowest of {}): {} cyc = decode {} + matrices {}, seek {} ({} to a block's start), crossfade frame {} (decode and blend {}, blend {} = {} per bone), split: record {} + write {} + compose {}, state {} bytes/bone, storage {} bytes/bone-s ({} for the 20-bone Walk), 4x512v/1024t compact = {}% of a 60 Hz frame; Animator {} bytes; {}",
                f.textured.textured_lit_cycles_per_vertex,
                f.textured.textured_gouraud_cycles_per_drawn_triangle,
                f.textured.four_textured_lit_characters_percent_of_30fps_frame,
                fmt(f.rigid_cycles_per_vertex),
                fmt(f.rigid_vertex_cycles),
                fmt(f.blended_vertex_cycles),
                f.blended_vertices,
                f.blend_groups,
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
                fmt(f.sample_matrix_20_bones_cycles),
                fmt(f.bone_matrices_20_bones_cycles),
                fmt(f.bone_matrices_cycles_per_bone),
                fmt(f.bone_matrices_q14_cycles_per_bone),
                stream_bench::FRAMES,
                fmt(f.compact_pose_20_bones_cycles),
                fmt(f.compact_decode_20_bones_cycles),
                fmt(f.compact_bone_matrices_20_bones_cycles),
                fmt(f.compact_seek_20_bones_cycles),
                fmt(f.compact_seek_block_start_20_bones_cycles),
                fmt(f.compact_crossfade_20_bones_cycles),
                fmt(f.compact_crossfade_decode_20_bones_cycles),
                fmt(f.compact_crossfade_blend_20_bones_cycles),
                fmt(f.compact_crossfade_blend_cycles_per_bone),
                fmt(f.compact_split_record_20_bones_cycles),
                fmt(f.compact_split_write_20_bones_cycles),
                fmt(f.compact_split_compose_20_bones_cycles),
                fmt(f.decoder_state_bytes_per_bone),
                fmt(f.storage_bytes_per_bone_second),
                fmt(f.storage_bytes_per_bone_second_twenty_bones),
                fmt(f.four_512_vertex_characters_percent_of_60fps_frame_compact),
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
