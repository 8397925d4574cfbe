//! character: the imported fixture character on the console, in both storage modes, and textured and lit.
//!
//! Four instances share two embedded blobs (rigid GTE and baked vertices, generated at build time by
//! `psxanim import`, see build.rs); one stands far below the floor and is culled every frame. A fifth
//! draws the atlas-textured character (`textured_atlas.fbx`) textured and lit: its textures are placed
//! clear of the frame buffers (`scene::texture_placement`), uploaded at start-up through GP0
//! (`console::gpu::load_image`) and read back through GPUREAD for the record. The camera orbits. The rigid instances pose from a pose cache built at start-up (`POSE_CACHE`, in `.bss`). The
//! scene is `scene.rs`, shared with the host's expectation.
//!
//! Verification record (program "CHAR"):
//! - results: the probe words of `scene::probe_words` (decoded baked positions, rigid SXY), then the
//!   error code and offset of each deliberately corrupted blob copy (`scene::corruption_words`), which
//!   must fail cleanly without stopping the demo, then the packet loop's words on synthetic triangles
//!   (`scene::flat_packet_words`), a hash of the pose cache (`scene::pose_cache_hash`), then the
//!   baked decoder's paths (`baked_paths::baked_path_words`), the crossfade and blended-vertex probes
//!   (`scene::fade_probe_words`, `scene::blend_probe_words`), all but the first computed at frame
//!   `LATE_WORDS_AT_FRAME` (the first picture is not kept waiting for them), then the stream bench's
//!   words at frame `stream_bench::RUN_AT_FRAME`, then at frame `scene::TEXTURED_FRAMES` the textures'
//!   words read back from VRAM (count and hash, `record::digest`) and, for every frame before it, the
//!   textured instance's packet words (count and hash of its GP0 words);
//! - cycles, in root counter 2 ticks (8 CPU cycles) at frame `scene::MEASURED_FRAME`: slot
//!   `scene::stage_slot(i, s)` is instance `i`'s stage `s` (0 bounds test, 1 decode, 2 bone matrices, 3
//!   projection and light, 4 triangles); slot `SLOT_SCENE` the whole scene (wraps past 65,535 ticks); slot
//!   `SLOT_FRAME` the measured frame number. That frame is timed from after the previous frame's
//!   list has left by DMA (on hardware it shares the bus with the CPU) and after the frame's camera
//!   and the instances' world matrices (game logic) are computed: the figures are the stages' own.
//!   Then figures measured once at start-up (scene.rs): the pose cache build (`SLOT_POSE_CACHE`), a 20-bone Pose stage (`SLOT_COMPOSE_BENCH`), blending two
//!   cached frames (`SLOT_BLEND_BENCH..`), the compact path's pose (`SLOT_COMPACT_BENCH`), the
//!   triangle stage's back- and front-face paths on synthetic triangles (`SLOT_FACE_BENCH..`),
//!   the baked decode of every frame of every clip, slowest first (`baked_paths::SLOT_BAKED_*`, at
//!   frame `LATE_WORDS_AT_FRAME` after the previous list's DMA), and
//!   the rigid pose construction of a 20-bone skeleton (`pose_bench`, slots 43 to 47);
//! - frames: rendered frames. The frame number is also drawn on the top rows (scene::FRAME_CODE_*).
//!
//! A blob that does not parse, or a sample that does not decode, marks the record FAILED with the
//! table error's offset as detail; the program keeps running (drawing what it can).
#![no_std]
#![no_main]

use psxanim_runtime::console::ordering::DoubleBuffered;
use psxanim_runtime::console::prim::{self, Color};
use psxanim_runtime::console::{dma, gpu, panic, timer, vsync};
use psxanim_runtime::gte::{Cop2, FlatPrimitives, Gte, PackedMatrix, PacketList, FLAT_PACKET_WORDS, GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE, LINK_MASK};
use psxanim_runtime::tables::primitives::{pack3, pack_pair, run_header, RUN_QUADS, RUN_STRIP, RUN_TRIANGLES, STREAM_END};
use psxanim_runtime::record::digest::{self, RectReader, WordHash};
use psxanim_runtime::record::{status, Record};
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::pose_cache::{self, PoseCache};
use psxanim_runtime::render::Stage;
use psxanim_runtime::tables::{TableError, Tables};
use scene::{error_offset, render_error_detail, SceneScratch};

#[allow(dead_code)] // the word counts and names serve the host only
mod baked_paths;
mod crossfade_paths;
mod scene;
#[allow(dead_code)] // the word counts serve the host only
mod stream_bench;
use scene::{
    FaceBench, Models, Scene, BLEND_BENCH_WEIGHTS, COMPOSE_BENCH_BONES, COMPOSE_BENCH_RUNS, FACE_BENCH_CASES, FACE_BENCH_RUNS, FACE_BENCH_TRIANGLES, FRAME_CODE_BITS,
    FRAME_CODE_BLOCK, INSTANCES, MEASURED_FRAME, OT_DEPTHS, PACKET_WORDS, SLOT_BLEND_BENCH, SLOT_COMPACT_BENCH, SLOT_COMPOSE_BENCH, SLOT_FACE_BENCH, SLOT_FADE_BENCH, SLOT_FRAME,
    SLOT_POSE_CACHE, SLOT_SCENE, STAGES,
};

/// 4-byte alignment for the embedded blobs (the tables' sections are aligned within the blob).
#[repr(C, align(4))]
struct Aligned<T: ?Sized>(T);
static RIGID: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_RIGID")));
static BAKED: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_BAKED")));
/// The painted character (textured, with normals), drawn textured and lit.
static TEXTURED: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_TEXTURED")));
/// The 20-bone character of the forward-decoding benches (`stream_bench`).
static TWENTY: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_TWENTY")));
/// Room for a damaged copy of the larger blob (`scene::corruption_words`).
const BLOB_COPY_BYTES: usize = {
    let (r, b) = (include_bytes!(env!("CHARACTER_RIGID")).len(), include_bytes!(env!("CHARACTER_BAKED")).len());
    if r > b {
        r
    } else {
        b
    }
};
static mut BLOB_COPY: Aligned<[u8; BLOB_COPY_BYTES]> = Aligned([0; BLOB_COPY_BYTES]);
/// The rigid blob's pose cache (model-space bone matrices of every clip frame), built at start-up.
const POSE_CACHE_ENTRIES: usize = pose_cache::entries_for_blob(include_bytes!(env!("CHARACTER_RIGID")));
static mut POSE_CACHE: [PackedMatrix; POSE_CACHE_ENTRIES] = [PackedMatrix { words: [0; 6] }; POSE_CACHE_ENTRIES];


static mut RECORD: Record = Record::ZERO;
static mut DRAW: DoubleBuffered<OT_DEPTHS, PACKET_WORDS> = DoubleBuffered::new();
static mut SCRATCH: SceneScratch = SceneScratch::new();

const BACKGROUND: Color = Color::new(16, 24, 64);
/// Error codes in `Record::error`.
const ERROR_TABLES: u32 = u32::from_le_bytes(*b"TBLE");
const ERROR_RENDER: u32 = u32::from_le_bytes(*b"REND");
/// VRAM refused the textures' place (`vram::PlacementError::code` as detail).
const ERROR_VRAM: u32 = u32::from_le_bytes(*b"VRAM");

fn load_models() -> Result<Models<'static>, TableError> {
    Ok(Models { rigid: Tables::parse(&RIGID.0)?, baked: Tables::parse(&BAKED.0)?, textured: Tables::parse(&TEXTURED.0)?, rigid_poses: None, textures: None })
}

/// Uploads the textures where `models.textures` places them (through GP0, at start-up), then reads
/// them back from VRAM: their words' count and hash (`record::digest`), for the record.
fn upload_textures(models: &Models) -> [u32; 2] {
    let mut hash = WordHash::new();
    let Some(placement) = models.textures.as_ref() else { return hash.words() };
    for (rect, bytes) in placement.uploads(&models.textured) {
        gpu::load_image(rect, bytes);
    }
    for (rect, _) in placement.uploads(&models.textured) {
        let mut read = RectReader::new(&mut hash, rect);
        gpu::read_image(rect, &mut |w| read.add(w));
    }
    hash.words()
}

/// Builds the rigid blob's pose cache; returns it (or `None`: the compact path then poses the rigid
/// instances, as on the host) and the root counter 2 ticks the build took, timed frame by frame.
fn build_pose_cache(gte: &mut Gte, rigid: &Tables<'static>, scratch: &mut SceneScratch) -> (Option<PoseCache<'static>>, u32) {
    // SAFETY: the only reference to this static, taken once.
    let buffer = unsafe { &mut *core::ptr::addr_of_mut!(POSE_CACHE) };
    let mut ticks = 0u32;
    let mut last = timer::now();
    let cache = PoseCache::build(gte, rigid, buffer, scratch, &mut || {
        let now = timer::now();
        ticks += now.wrapping_sub(last) as u32;
        last = now;
    });
    (cache.ok(), ticks)
}

/// Ticks of `COMPOSE_BENCH_RUNS` Pose stages of a `COMPOSE_BENCH_BONES`-bone skeleton (the first
/// cached entries stand in for its model-space bones), 0 without enough entries.
fn compose_bench(gte: &mut Gte, cache: &PoseCache, scratch: &mut SceneScratch) -> u32 {
    let (Some(poses), Some(out)) = (cache.entries().get(..COMPOSE_BENCH_BONES), scratch.matrices.get_mut(..COMPOSE_BENCH_BONES)) else {
        return 0;
    };
    let object = scene::camera_at(0).view;
    let started = timer::now();
    for _ in 0..COMPOSE_BENCH_RUNS {
        gte.set_matrix(&object);
        gte.compose_packed(poses, out);
    }
    timer::ticks_since(started) as u32
}

/// Ticks of the compact path's pose of "Walk" at `MEASURED_FRAME` (0 if it fails).
fn compact_bench(gte: &mut Gte, rigid: &Tables, scratch: &mut SceneScratch) -> u32 {
    let bones = rigid.bone_count().min(scratch.samples.len());
    let object = scene::camera_at(0).view;
    let clip = rigid.find_clip("Walk").unwrap_or(usize::MAX);
    let started = timer::now();
    if rigid.decode_pose(clip, MEASURED_FRAME as usize, &mut scratch.samples[..bones]).is_err() {
        return 0;
    }
    psxanim_runtime::render::bones::bone_matrices(gte, rigid, &scratch.samples[..bones], &object, &mut scratch.matrices[..bones]);
    timer::ticks_since(started) as u32
}

/// Ticks of `scene::PROJECT_BENCH_RUNS` runs of the rigid blob's rigid ranges (`project_rigid`),
/// then of its blended vertices (`blend::project_blended`, with what staging their matrices adds to
/// the rigid ranges), then of the blend groups' matrices alone
/// (`blend::group_matrix`), posed with "Walk" at `MEASURED_FRAME`
/// (`scene::SLOT_RIGID_PROJECT_BENCH`, `scene::SLOT_BLEND_PROJECT_BENCH`). Zeros if the decode fails.
fn project_bench(gte: &mut Gte, rigid: &Tables, scratch: &mut SceneScratch) -> [u32; 3] {
    use psxanim_runtime::render::{blend, bones, project};
    let bones_n = rigid.bone_count().min(scratch.samples.len());
    let n = rigid.vertex_count().min(scratch.sxy.len());
    let clip = rigid.find_clip("Walk").unwrap_or(usize::MAX);
    if rigid.decode_pose(clip, MEASURED_FRAME as usize, &mut scratch.samples[..bones_n]).is_err() {
        return [0; 3];
    }
    let object = scene::camera_at(0).view;
    bones::bone_matrices(gte, rigid, &scratch.samples[..bones_n], &object, &mut scratch.matrices[..bones_n]);
    let matrices = &scratch.matrices[..bones_n];
    let started = timer::now();
    for _ in 0..scene::PROJECT_BENCH_RUNS {
        project::project_rigid(gte, rigid, matrices, &mut scratch.sxy[..n], &mut scratch.sz[..n], None);
    }
    let rigid_ticks = timer::ticks_since(started) as u32;
    // The blend stage as the renderer runs it: the rigid ranges staging every bone's matrix in the
    // scratchpad (what that adds to them is the blend's), then the blended vertices from there.
    // SAFETY: nothing else uses the scratchpad during the bench.
    let mut stage = unsafe { project::matrix_stage(bones_n) };
    let started = timer::now();
    for _ in 0..scene::PROJECT_BENCH_RUNS {
        project::project_rigid(gte, rigid, matrices, &mut scratch.sxy[..n], &mut scratch.sz[..n], stage.as_deref_mut());
    }
    let staging_ticks = (timer::ticks_since(started) as u32).saturating_sub(rigid_ticks);
    let started = timer::now();
    for _ in 0..scene::PROJECT_BENCH_RUNS {
        blend::project_blended(gte, rigid, stage.as_deref().unwrap_or(matrices), &mut scratch.sxy[..n], &mut scratch.sz[..n]);
    }
    let blended_ticks = timer::ticks_since(started) as u32 + staging_ticks;
    // The groups' matrices alone, by the tools' path (`group_matrix`: pair and group registers).
    let started = timer::now();
    for _ in 0..scene::PROJECT_BENCH_RUNS {
        for g in 0..rigid.blend_group_count() {
            let _ = core::hint::black_box(blend::group_matrix(gte, rigid, matrices, g));
        }
    }
    [rigid_ticks, blended_ticks, timer::ticks_since(started) as u32]
}

/// Ticks of the rigid pose construction bench (`scene::SLOT_SAMPLE_MATRIX_BENCH`,
/// `scene::SLOT_POSE_MATRICES_BENCH`): `POSE_BENCH_RUNS` runs of the local matrices of a
/// `POSE_BENCH_BONES`-bone skeleton, then of its model-view matrices, then of the model-view matrices
/// from the same poses as `PoseQ14` held in the scratchpad, in main RAM, and of `compose_q14` alone
/// on them (the object as every bone's parent). The skeleton is the rigid
/// blob's bones repeated (each copy's roots hang from the object), posed with "Walk" at
/// `MEASURED_FRAME`. Zeros if the decode fails.
fn pose_bench(gte: &mut Gte, rigid: &Tables, scratch: &mut SceneScratch) -> [u32; 5] {
    use psxanim_runtime::render::bones;
    const N: usize = scene::POSE_BENCH_BONES;
    let bones_n = rigid.bone_count().min(N);
    let clip = rigid.find_clip("Walk").unwrap_or(usize::MAX);
    if bones_n == 0 || rigid.decode_pose(clip, MEASURED_FRAME as usize, &mut scratch.samples[..bones_n]).is_err() {
        return [0; 5];
    }
    let mut parents = [None; N];
    for b in 0..N {
        let (copy, of) = (b / bones_n, b % bones_n);
        parents[b] = rigid.bone(of).parent.map(|p| p + (copy * bones_n) as u16);
        scratch.samples[b] = scratch.samples[of];
    }
    let object = scene::camera_at(0).view;
    let samples = &scratch.samples[..N];
    let started = timer::now();
    for _ in 0..scene::POSE_BENCH_RUNS {
        for s in samples {
            core::hint::black_box(bones::sample_matrix(core::hint::black_box(s)));
        }
    }
    let local = timer::ticks_since(started) as u32;
    let out = &mut scratch.matrices[..N];
    let started = timer::now();
    for _ in 0..scene::POSE_BENCH_RUNS {
        bones::pose_matrices(gte, |b| parents[b], samples, &object, out);
    }
    let posed = timer::ticks_since(started) as u32;
    let mut poses = [bones::PoseQ14::default(); N];
    for (p, s) in poses.iter_mut().zip(samples) {
        match bones::PoseQ14::from_sample(s) {
            Some(q) => *p = q,
            None => return [local, posed, 0, 0, 0],
        }
    }
    let started = timer::now();
    for _ in 0..scene::POSE_BENCH_RUNS {
        bones::pose_matrices_q14(gte, |b| parents[b], &poses, &object, out);
    }
    let posed_q14 = timer::ticks_since(started) as u32;
    let started = timer::now();
    for _ in 0..scene::POSE_BENCH_RUNS {
        // An opaque count: unrolled 20 times, the loop would not fit the instruction cache.
        for (pose, m) in poses.iter().zip(out.iter_mut()).take(core::hint::black_box(N)) {
            bones::compose_q14(gte, &object, pose, m);
        }
    }
    let composed_q14 = timer::ticks_since(started) as u32;
    // The same run from the scratchpad: poses (320 bytes), object (32) and output (640) fill 992 of
    // its 1,024 bytes. Nothing else uses it during start-up (rendering rewrites its first words).
    const SCRATCHPAD: usize = 0x1F80_0000;
    // SAFETY: the scratchpad is RAM of its own, 4-aligned, that no Rust object lives in; the three
    // regions do not overlap and hold plain data (any bits are a valid `Matrix` and `PoseQ14`).
    let (pad_poses, pad_object, pad_out) = unsafe {
        let poses_at = SCRATCHPAD as *mut bones::PoseQ14;
        let object_at = (SCRATCHPAD + N * 16) as *mut psxanim_runtime::math::Matrix;
        let out_at = (SCRATCHPAD + N * 16 + 32) as *mut psxanim_runtime::math::Matrix;
        poses_at.copy_from_nonoverlapping(poses.as_ptr(), N);
        object_at.write(object);
        (core::slice::from_raw_parts(poses_at, N), &*object_at, core::slice::from_raw_parts_mut(out_at, N))
    };
    let started = timer::now();
    for _ in 0..scene::POSE_BENCH_RUNS {
        bones::pose_matrices_q14(gte, |b| parents[b], pad_poses, pad_object, pad_out);
    }
    let padded = timer::ticks_since(started) as u32;
    [local, posed, padded, posed_q14, composed_q14]
}

/// Ticks of the crossfade's stages (`scene::SLOT_FADE_BENCH`): the rigid blend of every bone's
/// samples (Walk frame 10 toward Idle frame 0, halfway), the baked blend of every vertex's position
/// (Turn frame 20 toward Walk frame 7, halfway), then a whole rigid and baked Decode stage of a
/// fading instance. 0 where a decode fails.
fn fade_bench(gte: &mut Gte, models: &scene::Models, scratch: &mut SceneScratch) -> [u32; scene::FADE_BENCH_SLOTS] {
    use psxanim_runtime::anim::{Fade, FrameSample, PoseSample};
    use psxanim_runtime::render::{bones, fade};
    let mut out = [0; scene::FADE_BENCH_SLOTS];
    let (rigid, baked) = (&models.rigid, &models.baked);
    let (bones_n, vertices) = (rigid.bone_count().min(scratch.samples.len()), baked.vertex_count().min(scratch.positions.len()));
    let (walk, idle) = (rigid.find_clip("Walk").unwrap_or(usize::MAX), rigid.find_clip("Idle").unwrap_or(usize::MAX));
    if rigid.decode_pose(walk, 10, &mut scratch.from_samples[..bones_n]).is_ok() && rigid.decode_pose(idle, 0, &mut scratch.samples[..bones_n]).is_ok() {
        let started = timer::now();
        bones::crossfade_samples(&scratch.from_samples[..bones_n], &mut scratch.samples[..bones_n], 2048);
        out[0] = timer::ticks_since(started) as u32;
    }
    let (turn, bwalk) = (baked.find_clip("Turn").unwrap_or(usize::MAX), baked.find_clip("Walk").unwrap_or(usize::MAX));
    if baked.decode_baked_frame(turn, 20, &mut scratch.from_positions[..vertices]).is_ok() && baked.decode_baked_frame(bwalk, 7, &mut scratch.positions[..vertices]).is_ok() {
        let started = timer::now();
        fade::blend_positions(&scratch.from_positions[..vertices], &mut scratch.positions[..vertices], 2048);
        out[1] = timer::ticks_since(started) as u32;
    }
    // Whole Decode stages: ticks from the start of the render call to the end of Decode, minus the
    // bounds test's.
    let camera = scene::camera_at(0);
    camera.load(gte);
    let world = psxanim_runtime::render::camera::placement(scene::PLACEMENTS[1].position, 0);
    for (slot, (tables, from, to)) in [(rigid, walk, idle), (baked, turn, bwalk)].into_iter().enumerate() {
        let sample = |clip: usize, frame: u16| FrameSample { clip: clip as u16, frame, next: frame, weight: 0 };
        let pose = PoseSample { current: sample(to, 0), fade: Some(Fade { from: sample(from, 10), weight: 2048 }) };
        let (mut decode, mut last) = (0u32, timer::now());
        let mut sink = scene::Discard;
        let done = psxanim_runtime::render::render_pose(gte, tables, None, &camera, &world, Some(pose), scratch, &mut sink, &mut |stage| {
            let now = timer::now();
            if stage == Stage::Decode {
                decode = now.wrapping_sub(last) as u32;
            }
            last = now;
        });
        out[2 + slot] = if done.is_ok() { decode } else { 0 };
    }
    out
}

/// Ticks of `COMPOSE_BENCH_RUNS` blends (FP12 `weight`) of the first two cached frames of the first clip.
fn blend_bench(cache: &PoseCache, weight: u16) -> u32 {
    let (Ok(a), Ok(b)) = (cache.pose(0, 0), cache.pose(0, 1)) else {
        return 0;
    };
    let mut out = [PackedMatrix { words: [0; 6] }; psxanim_runtime::render::MAX_BONES];
    let started = timer::now();
    for _ in 0..COMPOSE_BENCH_RUNS {
        pose_cache::blend(a, b, core::hint::black_box(weight), &mut out);
    }
    let ticks = timer::ticks_since(started) as u32;
    core::hint::black_box(&out);
    ticks
}

/// Quads and strip quads of `face_bench` (two triangles each).
const FACE_BENCH_QUADS: usize = FACE_BENCH_TRIANGLES / 2;

/// The synthetic streams of `face_bench`, material 0: a triangle run of `0, 1, 2`; a quad run of
/// `0, 1, 2` + `0, 2, 3`; a strip whose pair k is (2k, 2k + 1).
static FACE_BENCH_TRIANGLE_WORDS: [u32; FACE_BENCH_TRIANGLES + 3] = {
    let mut w = [pack3(0, 1, 2); FACE_BENCH_TRIANGLES + 3];
    w[0] = run_header(RUN_TRIANGLES, FACE_BENCH_TRIANGLES, 0);
    w[1] = GP0_FLAT_TRIANGLE | 0x0080_8080;
    w[FACE_BENCH_TRIANGLES + 2] = STREAM_END;
    w
};
static FACE_BENCH_QUAD_WORDS: [u32; 2 * FACE_BENCH_QUADS + 3] = {
    let mut w = [3 << 2; 2 * FACE_BENCH_QUADS + 3];
    let mut i = 0;
    while i < FACE_BENCH_QUADS {
        w[2 + 2 * i] = pack3(0, 1, 2);
        i += 1;
    }
    w[0] = run_header(RUN_QUADS, FACE_BENCH_QUADS, 0);
    w[1] = GP0_FLAT_QUAD | 0x0080_8080;
    w[2 * FACE_BENCH_QUADS + 2] = STREAM_END;
    w
};
static FACE_BENCH_STRIP_WORDS: [u32; FACE_BENCH_QUADS + 4] = {
    let mut w = [0; FACE_BENCH_QUADS + 4];
    let mut k = 0;
    while k <= FACE_BENCH_QUADS {
        w[2 + k] = pack_pair(2 * k, 2 * k + 1);
        k += 1;
    }
    w[0] = run_header(RUN_STRIP, FACE_BENCH_QUADS, 0);
    w[1] = GP0_FLAT_QUAD | 0x0080_8080;
    w[FACE_BENCH_QUADS + 3] = STREAM_END;
    w
};
/// Vertices of `face_bench`: every pair of the strip.
const FACE_BENCH_VERTICES: usize = 2 * FACE_BENCH_QUADS + 2;
/// Room for every front face of `face_bench`, and its ordering table.
static mut FACE_BENCH_ARENA: [u32; FLAT_PACKET_WORDS * FACE_BENCH_TRIANGLES] = [0; FLAT_PACKET_WORDS * FACE_BENCH_TRIANGLES];
static mut FACE_BENCH_TABLE: [u32; 16] = [LINK_MASK; 16];

/// Ticks of `FACE_BENCH_RUNS` runs of `flat_packets` over one of the synthetic streams. Front-facing:
/// the triangle and the quad's first half at screen (0, 0), (0, 10), (10, 0) (NCLIP -100), the quad's
/// fourth corner at (10, 10), strip pair k at (k, 0) and (k, 10); depths 2000. Back-facing: every
/// vertex at (0, 0).
fn face_bench(gte: &mut Gte, kind: FaceBench, front: bool, clip_tests: bool) -> u32 {
    // In main RAM (statics of the call's frame would be too), as the projected vertices are.
    static mut SXY: [u32; FACE_BENCH_VERTICES] = [0; FACE_BENCH_VERTICES];
    static SZ: [u32; FACE_BENCH_VERTICES] = [2000; FACE_BENCH_VERTICES];
    // SAFETY: the only references to these statics, taken here, one call at a time.
    let (sxy, arena, table) = unsafe {
        (&mut *core::ptr::addr_of_mut!(SXY), &mut *core::ptr::addr_of_mut!(FACE_BENCH_ARENA), &mut *core::ptr::addr_of_mut!(FACE_BENCH_TABLE))
    };
    sxy.fill(0);
    if front {
        match kind {
            FaceBench::Strip => {
                for (k, pair) in sxy.chunks_exact_mut(2).enumerate() {
                    (pair[0], pair[1]) = (k as u32, k as u32 | 10 << 16);
                }
            }
            _ => sxy[..4].copy_from_slice(&[0, 10 << 16, 10, 10 | 10 << 16]),
        }
    }
    let words: &[u32] = match kind {
        FaceBench::Triangles => &FACE_BENCH_TRIANGLE_WORDS,
        FaceBench::Quads => &FACE_BENCH_QUAD_WORDS,
        FaceBench::Strip => &FACE_BENCH_STRIP_WORDS,
    };
    let job = FlatPrimitives { words, sxy: &*sxy, sz: &SZ, near: 100, clip_tests };
    let started = timer::now();
    for _ in 0..FACE_BENCH_RUNS {
        table.fill(LINK_MASK);
        let mut list = PacketList { arena: &mut arena[..], table: &mut table[..], max_depth: 14 };
        // SAFETY: well-formed streams whose indices are below the projected vertices.
        core::hint::black_box(unsafe { gte.backend_mut().flat_packets(&job, &mut list) });
    }
    timer::ticks_since(started) as u32
}

/// The baked decode bench (`baked_paths::SLOT_BAKED_*`): every frame of every baked clip decoded
/// and timed alone, then the synthetic raw frame from a copy in `buffer`.
fn baked_bench(baked: &Tables, buffer: &mut [u8], scratch: &mut SceneScratch, record: &mut Record) {
    let n = baked.vertex_count().min(scratch.positions.len());
    let (mut slowest, mut which, mut no_escapes) = (0u32, 0u32, 0u32);
    for clip in 0..baked.clip_count() {
        let frames = baked.clip(clip).map_or(0, |c| c.frame_count as usize);
        for frame in 0..frames {
            let started = timer::now();
            let ok = baked.decode_baked_frame(clip, frame, &mut scratch.positions[..n]).is_ok();
            let ticks = timer::ticks_since(started) as u32;
            if !ok {
                continue;
            }
            if ticks > slowest {
                (slowest, which) = (ticks, (clip as u32) << 16 | frame as u32);
            }
            if matches!(baked_paths::payload_header(baked, clip, frame), Some((_, 0))) {
                no_escapes = no_escapes.max(ticks);
            }
        }
    }
    record.set_cycles(baked_paths::SLOT_BAKED_BENCH, slowest);
    record.set_cycles(baked_paths::SLOT_BAKED_SLOWEST_FRAME, which);
    record.set_cycles(baked_paths::SLOT_BAKED_NO_ESCAPES, no_escapes);
    let Some(bytes) = buffer.get_mut(..BAKED.0.len()) else { return };
    bytes.copy_from_slice(&BAKED.0);
    let Ok((turn, raw_frame, _)) = baked_paths::synthesize(bytes) else { return };
    let Ok(copy) = Tables::parse(bytes) else { return };
    let started = timer::now();
    if copy.decode_baked_frame(turn, raw_frame, &mut scratch.positions[..n]).is_ok() {
        record.set_cycles(baked_paths::SLOT_BAKED_RAW, timer::ticks_since(started) as u32);
    }
}

/// The scene frame at which the record's later words are computed (`late_words`): once the first
/// frames are on screen, so that the verifier's first screenshot (vsync 40) finds a picture however
/// long they take (about 21 vsyncs on PCSX-Redux, which pushed the first picture past vsync 40 when
/// they ran at start-up). The screen keeps the last frame meanwhile.
const LATE_WORDS_AT_FRAME: u32 = 2;

/// The record's words after `scene::probe_words`, in the record's order: the corrupted blob copies,
/// the packet loop's synthetic triangles, the pose cache's hash, the baked decode bench and paths,
/// the crossfade probes, the blended vertices' probes and the blend loop's group shapes' hash.
fn late_words(models: &scene::Models, gte: &mut Gte, scratch: &mut SceneScratch, record: &mut Record) {
    // SAFETY: the only reference to this static, taken once (this runs at one frame).
    let copy = unsafe { &mut (*core::ptr::addr_of_mut!(BLOB_COPY)).0 };
    scene::corruption_words(&RIGID.0, &BAKED.0, copy, gte, scratch, &mut |w| record.push(w));
    scene::flat_packet_words(gte, &mut |w| record.push(w));
    record.push(scene::pose_cache_hash(models));
    baked_bench(&models.baked, copy, scratch, record);
    baked_paths::baked_path_words(&BAKED.0, copy, scratch, &mut |w| record.push(w));
    if let Err(e) = scene::fade_probe_words(models, gte, scratch, &mut |w, _| record.push(w)) {
        record.fail(ERROR_RENDER, render_error_detail(&e));
    }
    if let Err(e) = scene::blend_probe_words(models, gte, scratch, &mut |w, _| record.push(w)) {
        record.fail(ERROR_RENDER, render_error_detail(&e));
    }
    match scene::blend_shapes_word(&RIGID.0, copy, gte, scratch) {
        Ok(w) => record.push(w),
        Err(e) => record.fail(ERROR_RENDER, render_error_detail(&e)),
    }
}

#[no_mangle]
extern "C" fn main() -> ! {
    // SAFETY: the only references to these statics, taken once; no interrupts, one thread.
    let record = unsafe { &mut *core::ptr::addr_of_mut!(RECORD) };
    let draw = unsafe { &mut *core::ptr::addr_of_mut!(DRAW) };
    let scratch = unsafe { &mut *core::ptr::addr_of_mut!(SCRATCH) };
    panic::attach_record(record);
    record.begin(*b"CHAR");

    gpu::init();
    vsync::init();
    timer::start();
    let mut gte = Gte::new();

    let mut vram_words = [0; 2];
    let mut scene = match load_models().and_then(Scene::new) {
        Ok(mut scene) => {
            match scene::texture_placement(&scene.models.textured) {
                Ok(p) => scene.models.textures = Some(p),
                Err(e) => record.fail(ERROR_VRAM, e.code()),
            }
            vram_words = upload_textures(&scene.models);
            let (poses, ticks) = build_pose_cache(&mut gte, &scene.models.rigid, scratch);
            scene.models.rigid_poses = poses;
            record.set_cycles(SLOT_POSE_CACHE, ticks);
            if let Some(cache) = poses.as_ref() {
                record.set_cycles(SLOT_COMPOSE_BENCH, compose_bench(&mut gte, cache, scratch));
                for (i, weight) in BLEND_BENCH_WEIGHTS.iter().enumerate() {
                    record.set_cycles(SLOT_BLEND_BENCH + i, blend_bench(cache, *weight));
                }
            }
            record.set_cycles(SLOT_COMPACT_BENCH, compact_bench(&mut gte, &scene.models.rigid, scratch));
            let [rigid_projection, blended_projection, group_matrices] = project_bench(&mut gte, &scene.models.rigid, scratch);
            record.set_cycles(scene::SLOT_RIGID_PROJECT_BENCH, rigid_projection);
            record.set_cycles(scene::SLOT_BLEND_PROJECT_BENCH, blended_projection);
            record.set_cycles(scene::SLOT_BLEND_MATRICES_BENCH, group_matrices);
            let [local, posed, padded, posed_q14, composed_q14] = pose_bench(&mut gte, &scene.models.rigid, scratch);
            record.set_cycles(scene::SLOT_SAMPLE_MATRIX_BENCH, local);
            record.set_cycles(scene::SLOT_POSE_MATRICES_BENCH, posed);
            record.set_cycles(scene::SLOT_POSE_MATRICES_Q14_SCRATCHPAD_BENCH, padded);
            record.set_cycles(scene::SLOT_POSE_MATRICES_Q14_BENCH, posed_q14);
            record.set_cycles(scene::SLOT_COMPOSE_Q14_BENCH, composed_q14);
            for (i, ticks) in fade_bench(&mut gte, &scene.models, scratch).into_iter().enumerate() {
                record.set_cycles(SLOT_FADE_BENCH + i, ticks);
            }
            for (i, &(kind, front, clip_tests)) in FACE_BENCH_CASES.iter().enumerate() {
                record.set_cycles(SLOT_FACE_BENCH + i, face_bench(&mut gte, kind, front, clip_tests));
            }
            match scene::probe_words(&scene.models, &mut gte, scratch, &mut |w| record.push(w)) {
                Ok(()) if record.status == status::RUNNING => record.status = status::DONE,
                Ok(()) => {}
                Err(e) => record.fail(ERROR_RENDER, render_error_detail(&e)),
            }
            Some(scene)
        }
        Err(e) => {
            record.fail(ERROR_TABLES, error_offset(&e));
            None
        }
    };

    let mut textured_words = [[0u32; 2]; scene::TEXTURED_FRAMES as usize];
    loop {
        let frame = scene.as_ref().map_or(record.frames, |s| s.frame);
        let buffer = draw.building_index();
        let buffer_y = gpu::buffer_y(buffer) as u16;
        let list = draw.building();
        list.clear();
        let _ = list.add(OT_DEPTHS - 1, &prim::fill_rect(BACKGROUND, 0, buffer_y, 320, 240));
        for bit in 0..FRAME_CODE_BITS {
            let on = frame >> bit & 1 != 0;
            let c = if on { Color::new(255, 255, 255) } else { Color::new(0, 0, 0) };
            let (w, h) = FRAME_CODE_BLOCK;
            let _ = list.add(0, &prim::fill_rect(c, bit as u16 * w, buffer_y, w, h));
        }
        if let Some(scene) = scene.as_ref() {
            if scene.last_event_frame.is_some_and(|f| scene.frame - f < scene::EVENT_FLASH_FRAMES) {
                let h = FRAME_CODE_BLOCK.1;
                let _ = list.add(0, &prim::fill_rect(Color::new(255, 220, 0), scene::EVENT_FLASH_X, buffer_y, 320 - scene::EVENT_FLASH_X, h));
            }
        }

        if let Some(scene) = scene.as_mut() {
            if scene.frame == MEASURED_FRAME {
                // The previous frame's list is still going out by DMA: let it finish, so the figures
                // describe the stages and not the bus they would share with it.
                dma::wait_idle();
            }
            let mut ticks = [[0u16; STAGES]; INSTANCES];
            let camera = scene.camera();
            let started = timer::now();
            let mut last = started;
            let mut sink = OtSink::new(list.frame(), Shading::Flat);
            let (outcomes, textured) = scene.render(&camera, &mut gte, scratch, &mut sink, &|s| s.packets.used_words(), &mut |i, stage| {
                let now = timer::now();
                let s = match stage {
                    Stage::Bounds => 0,
                    Stage::Decode => 1,
                    Stage::Pose => 2,
                    // The blended vertices count with the rigid ones (the bench splits them).
                    Stage::Project | Stage::Blend | Stage::Light => 3,
                    Stage::Triangles => 4,
                };
                ticks[i][s] = ticks[i][s].wrapping_add(now.wrapping_sub(last));
                last = now;
            });
            let total = timer::ticks_since(started);
            if let Some(words) = textured_words.get_mut(scene.frame as usize) {
                *words = digest::packet_words(list.packets().get(textured).unwrap_or(&[]));
            }
            if scene.frame == scene::TEXTURED_FRAMES {
                for &w in vram_words.iter().chain(textured_words.iter().flatten()) {
                    record.push(w);
                }
            }
            for outcome in outcomes.iter() {
                if let Err(e) = outcome {
                    record.fail(ERROR_RENDER, render_error_detail(e));
                }
            }
            if scene.frame == MEASURED_FRAME {
                for (i, stages) in ticks.iter().enumerate() {
                    for (s, &t) in stages.iter().enumerate() {
                        record.set_cycles(scene::stage_slot(i, s), t as u32);
                    }
                }
                record.set_cycles(SLOT_SCENE, total as u32);
                record.set_cycles(SLOT_FRAME, MEASURED_FRAME);
            }
            if scene.frame == LATE_WORDS_AT_FRAME {
                // The previous frame's list has left by DMA before the baked bench is timed.
                dma::wait_idle();
                late_words(&scene.models, &mut gte, scratch, record);
            }
            if scene.frame == stream_bench::RUN_AT_FRAME {
                // After both screenshots (the bench takes several frames' time); its words end the record.
                let object = scene::camera_at(0).view;
                let mut figures = [(0usize, 0u32); 16];
                let mut n = 0;
                let streamed = Tables::parse(&TWENTY.0).and_then(|twenty| {
                    stream_bench::stream_words(&twenty, &scene.models.rigid, &object, &mut gte, scratch, &mut timer::now, &mut |slot, v| {
                        if n < figures.len() {
                            figures[n] = (slot, v);
                            n += 1;
                        }
                    }, &mut |w| record.push(w))
                });
                for &(slot, v) in &figures[..n] {
                    record.set_cycles(slot, v);
                }
                if let Err(e) = streamed {
                    record.fail(ERROR_TABLES, error_offset(&e));
                }
            }
            scene.step();
        }
        let head = draw.building().head();

        dma::wait_idle();
        gpu::wait_cmd_ready();
        vsync::wait_next();
        gpu::show(buffer ^ 1);
        gpu::draw_to(buffer);
        dma::send_list(head);
        draw.flip();
        record.frames += 1;
    }
}
