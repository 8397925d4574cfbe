//! The character example's scene and probes, as a pure function of the rendered frame number.
//!
//! This one file is compiled twice: into the PS-EXE (GTE hardware, triangles into the ordering table)
//! and into the xtask (`xtask/src/expect/character.rs`, the runtime's GTE model), so the host knows
//! exactly what the console computed and drew at any frame. Game time advances a fixed
//! `VSYNCS_PER_FRAME` per rendered frame, never by wall-clock vsyncs, to keep it that way.
use psxanim_runtime::anim::{Animator, MarkerEvent, Sampling};
use psxanim_runtime::gte::{
    Cop2, FlatPrimitives, Gte, PacketList, FLAT_PACKET_WORDS, GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE,
    LINK_MASK, QUAD_PACKET_WORDS,
};
use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
use psxanim_runtime::render::camera::{self, Angle, Camera};
use psxanim_runtime::render::light::Lighting;
use psxanim_runtime::render::{
    self, DrawnTriangle, Outcome, PoseCache, RenderError, Scratch, Stage, TriangleSink,
};
use psxanim_runtime::tables::textures::Rect;
use psxanim_runtime::vram::{self, PlacementError};
use psxanim_runtime::tables::primitives::{
    pack3, pack_pair, run_header, RUN_QUADS, RUN_STRIP, RUN_TRIANGLES, STREAM_END,
};
use psxanim_runtime::tables::{
    constant_size, TableError, Tables, CHANNELS_PER_BONE, CHANNEL_ANIMATED, CHANNEL_DESCRIPTOR_SIZE, CLIP_POSE_HEADER_SIZE,
};

/// The display rate the animators assume (NTSC).
pub const DISPLAY_HZ: u32 = 60;
/// Game time per rendered frame: 30 fps game logic on a 60 Hz display.
pub const VSYNCS_PER_FRAME: u32 = 2;
pub const SCREEN: (i16, i16) = (320, 240);
/// Ordering-table entries (the deepest is the background).
pub const OT_DEPTHS: usize = 1024;
/// Packet words per frame: three characters of 660 triangles and the textured one's, at most half
/// facing the camera, 5 words each (10 a textured, lit triangle), with room to spare.
pub const PACKET_WORDS: usize = 16 * 1024;
/// The frame whose per-stage cycle counts the program records (so the host can pair them with counts).
pub const MEASURED_FRAME: u32 = 20;
/// Cycle slots per instance (bounds, decode, bone matrices, projection, triangles: `stage_slot`), then
/// the scene total, the measured frame number, and the ticks the rigid blob's pose cache took to build
/// at load.
pub const STAGES: usize = 5;
pub const SLOT_SCENE: usize = STAGES * TEXTURED_INSTANCE;
/// The textured instance's stages, past the benches' slots.
pub const SLOT_TEXTURED_STAGES: usize = 69;

/// Cycle slot of instance `i`'s stage `s`: the untextured instances' from 0, the textured one's from
/// `SLOT_TEXTURED_STAGES`.
pub const fn stage_slot(i: usize, s: usize) -> usize {
    if i < TEXTURED_INSTANCE {
        STAGES * i + s
    } else {
        SLOT_TEXTURED_STAGES + s
    }
}
pub const SLOT_FRAME: usize = SLOT_SCENE + 1;
pub const SLOT_POSE_CACHE: usize = SLOT_FRAME + 1;
/// Slot of the ticks `COMPOSE_BENCH_RUNS` runs of the Pose stage for a `COMPOSE_BENCH_BONES`-bone
/// skeleton took at start-up (object matrix load plus one compose per bone, on cached entries): the
/// issue's 20-bone figure measured rather than extrapolated from the fixture's 11 bones.
pub const SLOT_COMPOSE_BENCH: usize = SLOT_POSE_CACHE + 1;
pub const COMPOSE_BENCH_BONES: usize = 20;
pub const COMPOSE_BENCH_RUNS: u32 = 8;
/// Slots of the ticks `COMPOSE_BENCH_RUNS` blends of two cached frames of the rigid blob took at
/// start-up (the extra Decode cost of an interpolated sample), at `BLEND_BENCH_WEIGHTS` (FP12): the
/// halfway weight a 30 Hz clip gets at 60 Hz, and any other.
pub const SLOT_BLEND_BENCH: usize = SLOT_COMPOSE_BENCH + 1;
pub const BLEND_BENCH_WEIGHTS: [u16; 2] = [2048, 1000];
/// Slot of the ticks the compact path (no cache) took at start-up to pose the rigid blob's "Walk" at
/// `MEASURED_FRAME` (samples decoded, bone matrices composed with the object matrix): the fallback's cost.
pub const SLOT_COMPACT_BENCH: usize = SLOT_BLEND_BENCH + BLEND_BENCH_WEIGHTS.len();
/// Slots of the triangle stage's paths, measured at start-up: ticks of `FACE_BENCH_RUNS` runs of
/// `Cop2::flat_packets` over `FACE_BENCH_TRIANGLES` triangles (as triangles, quads or one strip) held
/// in main RAM like the tables, for each `FACE_BENCH_CASES` entry (front-facing, or back-facing with
/// every vertex at one point, NCLIP 0; with the near and span tests or without).
pub const SLOT_FACE_BENCH: usize = SLOT_COMPACT_BENCH + 1;
/// Slots of the crossfade's own cost, measured at start-up on real poses (`fade_bench`): the rigid
/// blend of every bone's samples (Walk and Idle, far apart), and the baked blend of every vertex's
/// position; then the whole Decode stage of a fading rigid and baked instance (two clips decoded and
/// blended).
pub const SLOT_FADE_BENCH: usize = SLOT_FACE_BENCH + FACE_BENCH_CASES.len();
pub const FADE_BENCH_SLOTS: usize = 4;
/// Slots of the rigid pose construction bench (`pose_bench`, start-up): ticks of
/// `POSE_BENCH_RUNS` runs, on a `POSE_BENCH_BONES`-bone skeleton (the rigid blob's bones and "Walk"
/// samples at `MEASURED_FRAME`, repeated), of the local matrices alone (`bones::sample_matrix` of
/// every bone), then of the whole model-view matrices (`bones::pose_matrices`: local matrices
/// composed along the parent chain with the object matrix). Slots 43..=47 are this bench's
/// (48.. belong to the decoder's benches).
pub const SLOT_SAMPLE_MATRIX_BENCH: usize = 43;
pub const SLOT_POSE_MATRICES_BENCH: usize = SLOT_SAMPLE_MATRIX_BENCH + 1;
/// The `PoseQ14` model-view matrices (slot 46's run) with the poses, the object matrix and the
/// output in the scratchpad (1 KiB at 0x1F800000, one-cycle loads) instead of main RAM: what
/// placing the decoder's output there would give.
pub const SLOT_POSE_MATRICES_Q14_SCRATCHPAD_BENCH: usize = SLOT_SAMPLE_MATRIX_BENCH + 2;
/// The model-view matrices again from the same poses in the GTE's units (`bones::PoseQ14`,
/// `bones::pose_matrices_q14`): what a decoder emitting that form would pay.
pub const SLOT_POSE_MATRICES_Q14_BENCH: usize = SLOT_SAMPLE_MATRIX_BENCH + 3;
/// `bones::compose_q14` alone on the same poses, every one with the object as parent (no parent
/// lookup): the pose loop's own share is the difference.
pub const SLOT_COMPOSE_Q14_BENCH: usize = SLOT_SAMPLE_MATRIX_BENCH + 4;
/// Slots of the projection bench (`project_bench`, start-up): ticks of `PROJECT_BENCH_RUNS` runs of
/// the rigid blob's rigid ranges, then of its blended vertices (`render::blend`), one pose.
pub const SLOT_RIGID_PROJECT_BENCH: usize = 59;
pub const SLOT_BLEND_PROJECT_BENCH: usize = 60;
/// The blend groups' matrices alone by `render::blend::group_matrix` (the tools' path: every group's
/// pair and group registers, read back), `PROJECT_BENCH_RUNS` times.
pub const SLOT_BLEND_MATRICES_BENCH: usize = 61;
pub const PROJECT_BENCH_RUNS: u32 = 4;
pub const POSE_BENCH_BONES: usize = 20;
pub const POSE_BENCH_RUNS: u32 = 4;
pub const FACE_BENCH_TRIANGLES: usize = 64;
pub const FACE_BENCH_RUNS: u32 = 4;
/// The run kinds `face_bench` measures, each `FACE_BENCH_TRIANGLES` triangles: a triangle run, a quad
/// run, a quad strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceBench {
    Triangles,
    Quads,
    Strip,
}
/// (run kind, front-facing, clip tests) per slot from `SLOT_FACE_BENCH`.
pub const FACE_BENCH_CASES: [(FaceBench, bool, bool); 8] = [
    (FaceBench::Triangles, false, false),
    (FaceBench::Triangles, true, false),
    (FaceBench::Triangles, false, true),
    (FaceBench::Triangles, true, true),
    (FaceBench::Quads, false, false),
    (FaceBench::Quads, true, false),
    (FaceBench::Strip, false, false),
    (FaceBench::Strip, true, false),
];
/// An event crossed within the last `EVENT_FLASH_FRAMES` frames lights a block right of the frame
/// code (x from `EVENT_FLASH_X`, the frame code's height): the "wave" one-shot's "lift" and "wave".
pub const EVENT_FLASH_FRAMES: u32 = 8;
pub const EVENT_FLASH_X: u16 = 272;

/// The frame number is drawn as `FRAME_CODE_BITS` blocks on the top rows (white = 1, black = 0), so a
/// screenshot says which frame it shows whatever the emulator's timing.
pub const FRAME_CODE_BITS: u32 = 16;
pub const FRAME_CODE_BLOCK: (u16, u16) = (16, 4);

/// Which table blob an instance uses: the fixture character rigid or baked, or the same character
/// with one atlas texture over it all (`tests/fixtures/fbx/textured_atlas.fbx`, rigid, with normals), drawn
/// textured and lit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Rigid,
    Baked,
    Textured,
}

/// Projected vertices the scene's scratch holds: the textured character's 540 and room to spare (the
/// host checks every blob fits).
pub const SCENE_VERTICES: usize = 640;
pub type SceneScratch = Scratch<SCENE_VERTICES>;

/// The textured instance's light: one warm light from the upper left, in front of the characters (the
/// direction points from a surface toward the light), and a cool ambient.
pub const LIGHTING: Lighting = Lighting::one(Vec3i16::new(-2365, -2365, -2365), [150, 140, 120], [56, 56, 72]);

/// The example's two 320 x 240 frame buffers (`console::gpu::buffer_y`), which no texture may overlap.
pub const FRAME_BUFFERS: [Rect; 1] = [Rect { x: 0, y: 0, w: 320, h: 480 }];

/// Where the textured character's textures go in VRAM: the first free place clear of the frame buffers.
pub fn texture_placement(textured: &Tables) -> Result<vram::Placement, PlacementError> {
    vram::Placement::first_fit(textured, &FRAME_BUFFERS)
}

/// One placed character.
pub struct Placement {
    pub model: Model,
    pub position: Vec3i32,
    pub yaw: Angle,
    pub clip: &'static str,
    pub sampling: Sampling,
}

/// Three visible instances, one far below the floor (always off screen: culled before any pose work),
/// and the textured, lit one left of the others (clear of them on screen while the camera turns).
pub const PLACEMENTS: [Placement; 5] = [
    Placement { model: Model::Rigid, position: Vec3i32::new(-4800, 0, 0), yaw: 0x2000, clip: "Walk", sampling: Sampling::Step },
    Placement { model: Model::Rigid, position: Vec3i32::new(0, 0, 3000), yaw: 0, clip: "Idle", sampling: Sampling::Interpolated },
    Placement { model: Model::Baked, position: Vec3i32::new(4800, 0, 0), yaw: 0xE000, clip: "Turn", sampling: Sampling::Step },
    Placement { model: Model::Rigid, position: Vec3i32::new(0, 60_000, 0), yaw: 0, clip: "Walk", sampling: Sampling::Step },
    Placement { model: Model::Textured, position: Vec3i32::new(-8400, 0, -1500), yaw: 0x1000, clip: "Idle", sampling: Sampling::Interpolated },
];
pub const INSTANCES: usize = PLACEMENTS.len();
/// The textured instance (the last drawn, so its packets end the frame's).
pub const TEXTURED_INSTANCE: usize = 4;
/// The record holds the textured instance's packet words (`record::digest::packet_words`) of every
/// frame below this one (the measured frame and the screenshots' among them), pushed at this frame.
pub const TEXTURED_FRAMES: u32 = 40;

/// The scene's crossfades, every `FADE_PERIOD` frames: (frame within the period, instance, clip,
/// looping, frames of the fade). Walk to Idle and back on the first rigid instance, Turn to Walk and
/// back on the baked one, and the second rigid instance's one-shot "wave" (a clip of
/// `tests/fixtures/formats/wave.ani`, compiled onto the character by `psxanim import --add-clips`)
/// from Idle and back; none touches `MEASURED_FRAME`.
pub const FADE_PERIOD: u32 = 120;
pub const FADES: [(u32, usize, &str, bool, u16); 6] = [
    (30, 0, "Idle", true, 8),
    (70, 0, "Walk", true, 8),
    (40, 2, "Walk", true, 8),
    (90, 2, "Turn", true, 8),
    (45, 1, "wave", false, 4),
    (85, 1, "Idle", true, 6),
];

/// The embedded blobs, the rigid one's pose cache (the rigid instances render from it) and where the
/// textured one's textures are in VRAM (`texture_placement`; None: drawn in its colours).
#[derive(Clone, Copy)]
pub struct Models<'a> {
    pub rigid: Tables<'a>,
    pub baked: Tables<'a>,
    pub textured: Tables<'a>,
    pub rigid_poses: Option<PoseCache<'a>>,
    pub textures: Option<vram::Placement>,
}

impl<'a> Models<'a> {
    pub fn get(&self, m: Model) -> &Tables<'a> {
        match m {
            Model::Rigid => &self.rigid,
            Model::Baked => &self.baked,
            Model::Textured => &self.textured,
        }
    }

    /// The pose cache of model `m`, if it has one.
    pub fn poses(&self, m: Model) -> Option<&PoseCache<'a>> {
        match m {
            Model::Rigid => self.rigid_poses.as_ref(),
            Model::Baked | Model::Textured => None,
        }
    }
}

/// The camera at `frame`: orbiting the group, one turn every 328 frames.
pub fn camera_at(frame: u32) -> Camera {
    camera_with_yaw((frame as u16).wrapping_mul(200))
}

fn camera_with_yaw(yaw: Angle) -> Camera {
    Camera {
        view: Camera::orbit(Vec3i32::new(0, -3600, 1000), 26_000, yaw, 0x0500),
        center: (SCREEN.0 / 2, SCREEN.1 / 2),
        projection: 320,
        screen: SCREEN,
        zsf3: 36,
        near: 1000,
    }
}

/// Every instance's playback state; the tables stay shared in `Models`.
pub struct Scene<'a> {
    pub models: Models<'a>,
    pub animators: [Animator; INSTANCES],
    /// Each instance's world matrix (`PLACEMENTS` never move: computed once).
    pub worlds: [Matrix; INSTANCES],
    pub frame: u32,
    /// Events the instances' clips have crossed so far, and the frame of the last one.
    pub events: u32,
    pub last_event_frame: Option<u32>,
}

/// A sink that keeps nothing (the probes need only the projected vertices).
pub struct Discard;
impl TriangleSink for Discard {
    fn add(&mut self, _: &DrawnTriangle) -> bool {
        true
    }
}

impl<'a> Scene<'a> {
    /// Frame 0: every instance playing its clip from the start.
    pub fn new(models: Models<'a>) -> Result<Self, TableError> {
        let mut animators = [Animator::new(DISPLAY_HZ, Sampling::Step); INSTANCES];
        for (a, p) in animators.iter_mut().zip(PLACEMENTS.iter()) {
            let tables = models.get(p.model);
            let clip = tables.find_clip(p.clip).ok_or(TableError::ClipOutOfRange { clip: usize::MAX, clips: tables.clip_count() })?;
            a.set_sampling(p.sampling);
            a.play(tables, clip, true)?;
        }
        let worlds = PLACEMENTS.map(|p| camera::placement(p.position, p.yaw));
        Ok(Scene { models, animators, worlds, frame: 0, events: 0, last_event_frame: None })
    }

    /// Advances game time by one rendered frame: every instance's clip (counting the events it
    /// crosses in `events`), then the crossfades scheduled for the new frame.
    pub fn step(&mut self) {
        self.frame += 1;
        let before = self.events;
        for (a, p) in self.animators.iter_mut().zip(PLACEMENTS.iter()) {
            let events = &mut self.events;
            a.update_events(VSYNCS_PER_FRAME, self.models.get(p.model), &mut |_| *events += 1);
        }
        if self.events != before {
            self.last_event_frame = Some(self.frame);
        }
        for &(at, i, clip, looping, frames) in FADES.iter() {
            if self.frame % FADE_PERIOD == at {
                let tables = self.models.get(PLACEMENTS[i].model);
                if let Some(c) = tables.find_clip(clip) {
                    let _ = self.animators[i].crossfade(tables, c, looping, frames);
                }
            }
        }
    }

    /// The camera of the current frame (game logic: the console computes it before timing the stages).
    pub fn camera(&self) -> Camera {
        camera_at(self.frame)
    }

    /// Draws every instance at the current frame, seen by `camera` (`Scene::camera`), the textured one
    /// textured where `Models::textures` placed them, and lit. `mark(instance, stage)` runs after each
    /// stage. Returns the outcomes and what the textured instance added to the sink: `written(sink)`
    /// before it and after it (an ordering-table sink's packet words).
    pub fn render<B: Cop2, S: TriangleSink + ?Sized>(
        &self,
        camera: &Camera,
        gte: &mut Gte<B>,
        scratch: &mut SceneScratch,
        sink: &mut S,
        written: &dyn Fn(&S) -> usize,
        mark: &mut dyn FnMut(usize, Stage),
    ) -> ([Result<Outcome, RenderError>; INSTANCES], core::ops::Range<usize>) {
        camera.load(gte);
        let mut outcomes = [Ok(Outcome::Culled); INSTANCES];
        let mut textured = 0..0;
        for (i, p) in PLACEMENTS.iter().enumerate() {
            let (tables, poses) = (self.models.get(p.model), self.models.poses(p.model));
            let animator = &self.animators[i];
            // Only the textured instance changes the sink's textures and the scratch's light (a
            // placement is some 300 bytes to copy): the others draw with neither.
            let painted = p.model == Model::Textured;
            let before = if painted {
                sink.place_textures(self.models.textures.as_ref());
                scratch.lighting = Some(LIGHTING);
                written(sink)
            } else {
                0
            };
            outcomes[i] = render::render_animated(gte, tables, poses, camera, &self.worlds[i], animator, scratch, sink, &mut |s| mark(i, s));
            if painted {
                textured = before..written(sink);
                sink.place_textures(None);
                scratch.lighting = None;
            }
        }
        (outcomes, textured)
    }
}

/// Baked probe: every decoded position of these (clip name, frame) samples.
pub const BAKED_PROBES: [(&str, u16); 2] = [("Turn", 20), ("Walk", 7)];
/// One rigid probe: the SXY of every `RIGID_PROBE_STRIDE`-th vertex of clip `clip` at `frame`
/// (blended toward `frame + 1` by `weight`, FP12), seen from camera yaw `yaw`, posed from the pose
/// cache or (`cached: false`) from the compact samples.
pub struct RigidProbe {
    pub clip: &'static str,
    pub frame: u16,
    pub weight: u16,
    pub yaw: Angle,
    pub cached: bool,
}
pub const RIGID_PROBES: [RigidProbe; 4] = [
    RigidProbe { clip: "Walk", frame: 0, weight: 0, yaw: 0, cached: true },
    RigidProbe { clip: "Walk", frame: 15, weight: 0, yaw: 0x3000, cached: true },
    RigidProbe { clip: "Idle", frame: 30, weight: 1024, yaw: 0xA000, cached: true },
    RigidProbe { clip: "Walk", frame: 15, weight: 0, yaw: 0x3000, cached: false },
];
pub const RIGID_PROBE_STRIDE: usize = 8;

/// The record's result words, computed by the renderer's own stages: decoded baked positions
/// (`x | y << 16`, then `z`, per vertex) and rigid SXY words. `name(i)` labels word `i` for reports.
pub fn probe_words<B: Cop2>(
    models: &Models,
    gte: &mut Gte<B>,
    scratch: &mut SceneScratch,
    push: &mut dyn FnMut(u32),
) -> Result<(), RenderError> {
    let baked = &models.baked;
    for (clip, frame) in BAKED_PROBES {
        let clip = baked.find_clip(clip).unwrap_or(usize::MAX);
        let n = baked.vertex_count().min(scratch.positions.len());
        baked.decode_baked_frame(clip, frame as usize, &mut scratch.positions[..n])?;
        for p in &scratch.positions[..n] {
            push(p[0] as u16 as u32 | (p[1] as u16 as u32) << 16);
            push(p[2] as u16 as u32);
        }
    }
    let rigid = &models.rigid;
    for p in RIGID_PROBES.iter() {
        let camera = camera_with_yaw(p.yaw);
        camera.load(gte);
        let clip = rigid.find_clip(p.clip).unwrap_or(usize::MAX) as u16;
        let next = if p.weight == 0 { p.frame } else { p.frame + 1 };
        let sample = psxanim_runtime::anim::FrameSample { clip, frame: p.frame, next, weight: p.weight };
        let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
        let poses = models.rigid_poses.as_ref().filter(|_| p.cached);
        render::render_cached(gte, rigid, poses, &camera, &world, Some(sample), scratch, &mut Discard, &mut |_| {})?;
        for v in (0..rigid.vertex_count()).step_by(RIGID_PROBE_STRIDE) {
            push(scratch.sxy[v]);
        }
    }
    Ok(())
}

/// What a word of `fade_probe_words` holds (for reports; the console ignores it).
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // read by the host only
pub struct FadeLabel {
    pub what: &'static str,
    pub step: u32,
    pub index: usize,
}

/// A timeline the fade probes play on one model: `from` looping for `FADE_LEAD` game frames, then a
/// crossfade to `to` over `frames` clip frames; the pose is probed after each step in `probe_steps`.
pub struct FadeProbe {
    pub model: Model,
    pub from: &'static str,
    pub to: &'static str,
    pub to_looping: bool,
    pub frames: u16,
    pub sampling: Sampling,
    pub probe_steps: &'static [u32],
}
pub const FADE_LEAD: u32 = 3;
pub const FADE_PROBES: [FadeProbe; 4] = [
    // Walk to Idle, stepped and interpolated (the interpolated one decodes four poses).
    FadeProbe { model: Model::Rigid, from: "Walk", to: "Idle", to_looping: true, frames: 6, sampling: Sampling::Step, probe_steps: &[1, 3, 5] },
    FadeProbe { model: Model::Rigid, from: "Walk", to: "Idle", to_looping: true, frames: 6, sampling: Sampling::Interpolated, probe_steps: &[2] },
    FadeProbe { model: Model::Baked, from: "Turn", to: "Walk", to_looping: true, frames: 6, sampling: Sampling::Step, probe_steps: &[3] },
    // Into the one-shot from the `.ani` file, and on to where it holds its last pose.
    FadeProbe { model: Model::Rigid, from: "Idle", to: "wave", to_looping: false, frames: 4, sampling: Sampling::Step, probe_steps: &[2, 40] },
];
/// The event timeline: `EVENT_CLIP` (the one-shot from `wave.ani`, events "lift" at frame 6 and
/// "wave" at 15) played once on the rigid model after `FADE_LEAD` frames of Walk, crossfaded over 4
/// frames, for `EVENT_STEPS` game frames (past its end, where it holds); every event crossed is
/// reported as (step, event index, frame).
pub const EVENT_CLIP: &str = "wave";
pub const EVENT_STEPS: u32 = 40;

/// Words of a matrix: the rotation's nine entries packed two to a word, then the translation.
fn matrix_words(m: &Matrix, push: &mut dyn FnMut(u32)) {
    let r = m.rotation;
    let e = [r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2], 0];
    for pair in e.chunks_exact(2) {
        push(pair[0] as u16 as u32 | (pair[1] as u16 as u32) << 16);
    }
    for t in [m.translation.x, m.translation.y, m.translation.z] {
        push(t as u32);
    }
}

/// The crossfade and event probes: per `FADE_PROBES` step, the crossfaded pose the renderer drew
/// (rigid: every bone's model-view matrix; baked: every blended position), then the events of the
/// event timeline, then the Animator's size in bytes (its per-instance RAM).
pub fn fade_probe_words<B: Cop2>(models: &Models, gte: &mut Gte<B>, scratch: &mut SceneScratch, push: &mut dyn FnMut(u32, FadeLabel)) -> Result<(), RenderError> {
    let missing = |t: &Tables| TableError::ClipOutOfRange { clip: usize::MAX, clips: t.clip_count() };
    let camera = camera_with_yaw(0x1000);
    let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
    for probe in FADE_PROBES.iter() {
        let tables = models.get(probe.model);
        let from = tables.find_clip(probe.from).ok_or(missing(tables))?;
        let to = tables.find_clip(probe.to).ok_or(missing(tables))?;
        let mut a = Animator::new(DISPLAY_HZ, probe.sampling);
        a.play(tables, from, true)?;
        for _ in 0..FADE_LEAD {
            a.update(VSYNCS_PER_FRAME);
        }
        a.crossfade(tables, to, probe.to_looping, probe.frames)?;
        let mut step = 0;
        for &at in probe.probe_steps {
            while step < at {
                a.update(VSYNCS_PER_FRAME);
                step += 1;
            }
            camera.load(gte);
            render::render_animated(gte, tables, models.poses(probe.model), &camera, &world, &a, scratch, &mut Discard, &mut |_| {})?;
            match probe.model {
                // (Every fade probe plays the fixture itself; a textured one would be rigid-gte too.)
                Model::Rigid | Model::Textured => {
                    for (bone, m) in scratch.matrices[..tables.bone_count()].iter().enumerate() {
                        matrix_words(m, &mut |w| push(w, FadeLabel { what: "fade.rigid.matrix", step, index: bone }));
                    }
                }
                Model::Baked => {
                    for (v, p) in scratch.positions[..tables.vertex_count()].iter().enumerate() {
                        push(p[0] as u16 as u32 | (p[1] as u16 as u32) << 16, FadeLabel { what: "fade.baked.xy", step, index: v });
                        push(p[2] as u16 as u32, FadeLabel { what: "fade.baked.z", step, index: v });
                    }
                }
            }
        }
    }
    let rigid = &models.rigid;
    let clip = rigid.find_clip(EVENT_CLIP).ok_or(missing(rigid))?;
    let walk = rigid.find_clip("Walk").ok_or(missing(rigid))?;
    let mut a = Animator::new(DISPLAY_HZ, Sampling::Step);
    a.play(rigid, walk, true)?;
    for _ in 0..FADE_LEAD {
        a.update(VSYNCS_PER_FRAME);
    }
    a.crossfade(rigid, clip, false, 4)?;
    let mut count = 0;
    for step in 0..EVENT_STEPS {
        a.update_events(VSYNCS_PER_FRAME, rigid, &mut |e: MarkerEvent| {
            push(step << 16 | e.index as u32, FadeLabel { what: "event.step_index", step, index: count });
            push(e.frame as u32, FadeLabel { what: "event.frame", step, index: count });
            count += 1;
        });
    }
    push(count as u32, FadeLabel { what: "event.count", step: EVENT_STEPS, index: 0 });
    push(core::mem::size_of::<Animator>() as u32, FadeLabel { what: "animator.bytes", step: 0, index: 0 });
    Ok(())
}

/// The blended vertices' probes: per step, the SXY and SZ of every vertex of every blend group of the
/// rigid blob (`render::blend`), from each pose source: the compact samples and the pose cache
/// (stepped and interpolated frames), and crossfades (stepped and interpolated, compact samples).
pub const BLEND_PROBES: [RigidProbe; 3] = [
    RigidProbe { clip: "Walk", frame: 15, weight: 0, yaw: 0x3000, cached: false },
    RigidProbe { clip: "Walk", frame: 15, weight: 0, yaw: 0x3000, cached: true },
    RigidProbe { clip: "Idle", frame: 30, weight: 1024, yaw: 0xA000, cached: true },
];

/// Words of the blended vertices' probes (`BLEND_PROBES`, then the first step of each rigid
/// `FADE_PROBES`' crossfade): SXY
/// then SZ of every blended vertex, group by group.
pub fn blend_probe_words<B: Cop2>(models: &Models, gte: &mut Gte<B>, scratch: &mut SceneScratch, push: &mut dyn FnMut(u32, FadeLabel)) -> Result<(), RenderError> {
    let rigid = &models.rigid;
    let blended = |scratch: &SceneScratch, what: &'static str, step: u32, push: &mut dyn FnMut(u32, FadeLabel)| {
        for g in 0..rigid.blend_group_count() {
            let group = rigid.blend_group(g);
            for v in group.first_vertex as usize..(group.first_vertex + group.vertex_count) as usize {
                push(scratch.sxy[v], FadeLabel { what, step, index: v });
                push(scratch.sz[v], FadeLabel { what, step, index: v });
            }
        }
    };
    for (i, p) in BLEND_PROBES.iter().enumerate() {
        let camera = camera_with_yaw(p.yaw);
        camera.load(gte);
        let clip = rigid.find_clip(p.clip).unwrap_or(usize::MAX) as u16;
        let next = if p.weight == 0 { p.frame } else { p.frame + 1 };
        let sample = psxanim_runtime::anim::FrameSample { clip, frame: p.frame, next, weight: p.weight };
        let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
        let poses = models.rigid_poses.as_ref().filter(|_| p.cached);
        render::render_cached(gte, rigid, poses, &camera, &world, Some(sample), scratch, &mut Discard, &mut |_| {})?;
        blended(scratch, if p.cached { "blend.cached" } else { "blend.compact" }, i as u32, push);
    }
    let camera = camera_with_yaw(0x1000);
    let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
    let missing = |t: &Tables| TableError::ClipOutOfRange { clip: usize::MAX, clips: t.clip_count() };
    for probe in FADE_PROBES.iter().filter(|p| p.model == Model::Rigid) {
        let from = rigid.find_clip(probe.from).ok_or(missing(rigid))?;
        let to = rigid.find_clip(probe.to).ok_or(missing(rigid))?;
        let mut a = Animator::new(DISPLAY_HZ, probe.sampling);
        a.play(rigid, from, true)?;
        for _ in 0..FADE_LEAD {
            a.update(VSYNCS_PER_FRAME);
        }
        a.crossfade(rigid, to, probe.to_looping, probe.frames)?;
        // The first step of each (the record's room): mid-fade, stepped and interpolated.
        for _ in 0..probe.probe_steps[0] {
            a.update(VSYNCS_PER_FRAME);
        }
        camera.load(gte);
        render::render_animated(gte, rigid, models.poses(Model::Rigid), &camera, &world, &a, scratch, &mut Discard, &mut |_| {})?;
        blended(scratch, "blend.fade", probe.probe_steps[0], push);
    }
    Ok(())
}

/// Name of probe word `i` (for reports), given the two blobs' vertex counts.
#[allow(dead_code)] // used by the host only
pub fn probe_word_name(i: usize, baked_vertices: usize, rigid_vertices: usize) -> (&'static str, u16, &'static str, usize) {
    let per_baked = 2 * baked_vertices;
    if i < BAKED_PROBES.len() * per_baked {
        let (clip, frame) = BAKED_PROBES[i / per_baked];
        let within = i % per_baked;
        return (clip, frame, if within & 1 == 0 { "baked.xy" } else { "baked.z" }, within / 2);
    }
    let rest = i - BAKED_PROBES.len() * per_baked;
    let per_rigid = rigid_vertices.div_ceil(RIGID_PROBE_STRIDE).max(1);
    let p = &RIGID_PROBES[(rest / per_rigid).min(RIGID_PROBES.len() - 1)];
    let what = if p.cached { "rigid.sxy" } else { "rigid.compact.sxy" };
    (p.clip, p.frame, what, (rest % per_rigid) * RIGID_PROBE_STRIDE)
}

/// Deliberate corruptions of a copy of an embedded blob, run once at start-up: each must end in a
/// table error (code and offset in the record), and the demo must carry on regardless.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corruption {
    /// Rigid blob, first magic byte flipped: the parser refuses it.
    RigidBadMagic,
    /// Rigid blob, clip table offset moved past the blob's end: the parser refuses it.
    RigidClipsPastEnd,
    /// Rigid blob, the first block offset of clip "Walk" set to the end of its bit stream: its records
    /// would run past the stream, which the parser refuses (playback then reads without checks).
    RigidBlockAtStreamEnd,
    /// Baked blob, the mode byte of clip "Turn" frame 20 set to 0xFF: found by the renderer's decode.
    BakedBadFrameMode,
}

pub const CORRUPTIONS: [Corruption; 4] =
    [Corruption::RigidBadMagic, Corruption::RigidClipsPastEnd, Corruption::RigidBlockAtStreamEnd, Corruption::BakedBadFrameMode];
/// Record words per corruption: the error code (`error_code`), then the offset (`error_offset`).
#[allow(dead_code)] // used by the host only
pub const WORDS_PER_CORRUPTION: usize = 2;
const CORRUPT_WALK_FRAME: u16 = 0;
const CORRUPT_TURN_FRAME: u16 = 20;

impl Corruption {
    #[allow(dead_code)] // used by the host only
    pub fn name(self) -> &'static str {
        match self {
            Corruption::RigidBadMagic => "rigid.bad-magic",
            Corruption::RigidClipsPastEnd => "rigid.clips-past-end",
            Corruption::RigidBlockAtStreamEnd => "rigid.block-at-stream-end",
            Corruption::BakedBadFrameMode => "baked.bad-frame-mode",
        }
    }

    fn model(self) -> Model {
        match self {
            Corruption::BakedBadFrameMode => Model::Baked,
            _ => Model::Rigid,
        }
    }

    /// Damages `bytes` (a copy of a valid blob). The pose and frame corruptions read the valid blob's
    /// tables to find their byte; `Err` if the blob does not hold what they look for.
    fn apply(self, bytes: &mut [u8]) -> Result<(), TableError> {
        let missing = TableError::ClipOutOfRange { clip: usize::MAX, clips: 0 };
        match self {
            Corruption::RigidBadMagic => bytes[0] ^= 0xFF,
            Corruption::RigidClipsPastEnd => {
                let past = (bytes.len() as u32 + 3) & !3;
                bytes[56..60].copy_from_slice(&past.to_le_bytes());
            }
            Corruption::RigidBlockAtStreamEnd => {
                let (offsets, stream_bits) = {
                    let t = Tables::parse(bytes)?;
                    let clip = t.clip(t.find_clip("Walk").ok_or(missing)?)?;
                    let start = clip.data_offset as usize;
                    let block_count = u16::from_le_bytes([bytes[start + 2], bytes[start + 3]]) as usize;
                    let descriptors = start + CLIP_POSE_HEADER_SIZE;
                    let channels = t.bone_count() * CHANNELS_PER_BONE;
                    let constants: usize = (0..channels)
                        .map(|ch| bytes[descriptors + ch * CHANNEL_DESCRIPTOR_SIZE])
                        .enumerate()
                        .filter(|(_, flags)| flags & CHANNEL_ANIMATED == 0)
                        .map(|(ch, flags)| constant_size(ch % CHANNELS_PER_BONE, flags))
                        .sum();
                    let animated = u16::from_le_bytes([bytes[start + 4], bytes[start + 5]]) as usize;
                    let offsets = descriptors + channels * CHANNEL_DESCRIPTOR_SIZE + constants;
                    let stream = offsets + 4 * block_count + 4 * block_count * animated;
                    (offsets, (start + clip.data_size as usize - stream) as u32 * 8)
                };
                bytes[offsets..offsets + 4].copy_from_slice(&stream_bits.to_le_bytes());
            }
            Corruption::BakedBadFrameMode => {
                let payload = {
                    let t = Tables::parse(bytes)?;
                    let clip = t.clip(t.find_clip("Turn").ok_or(missing)?)?;
                    let at = clip.data_offset as usize + 4 * CORRUPT_TURN_FRAME as usize;
                    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
                };
                bytes[payload] = 0xFF;
            }
        }
        Ok(())
    }

    /// Copies `source` into `buffer` (which must hold it), damages it, then parses and renders it as the
    /// probes do.
    fn run<B: Cop2>(self, source: &[u8], buffer: &mut [u8], gte: &mut Gte<B>, scratch: &mut SceneScratch) -> Result<Outcome, RenderError> {
        let Some(bytes) = buffer.get_mut(..source.len()) else {
            return Err(TableError::OutputTooSmall { needed: source.len(), len: buffer.len() }.into());
        };
        bytes.copy_from_slice(source);
        // Damage only a blob that parses: its offsets are then known to lie inside it.
        Tables::parse(bytes)?;
        self.apply(bytes)?;
        let tables = Tables::parse(bytes)?;
        let (clip, frame) = match self.model() {
            Model::Baked => ("Turn", CORRUPT_TURN_FRAME),
            Model::Rigid | Model::Textured => ("Walk", CORRUPT_WALK_FRAME),
        };
        let clip = tables.find_clip(clip).unwrap_or(usize::MAX) as u16;
        let sample = psxanim_runtime::anim::FrameSample { clip, frame, next: frame, weight: 0 };
        let camera = camera_with_yaw(0);
        camera.load(gte);
        let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
        render::render(gte, &tables, &camera, &world, Some(sample), scratch, &mut Discard, &mut |_| {})
    }
}

/// The record words of every corruption: (error code, offset), or (0, 0) if nothing failed. `buffer`
/// must hold the larger blob; it is left damaged.
pub fn corruption_words<B: Cop2>(
    rigid: &[u8],
    baked: &[u8],
    buffer: &mut [u8],
    gte: &mut Gte<B>,
    scratch: &mut SceneScratch,
    push: &mut dyn FnMut(u32),
) {
    for c in CORRUPTIONS {
        let source = match c.model() {
            Model::Baked => baked,
            Model::Rigid | Model::Textured => rigid,
        };
        match c.run(source, buffer, gte, scratch) {
            Ok(_) => {
                push(0);
                push(0);
            }
            Err(e) => {
                push(error_code(&e));
                push(render_error_detail(&e));
            }
        }
    }
}

/// A number per error kind for the record: table errors their own code (`TableError::code`, 1 up),
/// render errors from 0x100.
pub fn error_code(e: &RenderError) -> u32 {
    e.code()
}

/// The byte offset a table error points at (0 when it has none).
pub fn error_offset(e: &TableError) -> u32 {
    e.offset().unwrap_or(0) as u32
}

/// The record detail of a render error: the table error's offset, or the count that was too large.
pub fn render_error_detail(e: &RenderError) -> u32 {
    match e {
        RenderError::Table(t) => error_offset(t),
        RenderError::TooManyBones { bones, .. } => *bones as u32,
        RenderError::TooManyVertices { vertices, .. } => *vertices as u32,
        RenderError::PoseCacheMismatch => 0,
        RenderError::TooManyClips { clips, .. } => *clips as u32,
    }
}

/// Synthetic screen vertices of `flat_packet_words`: x, y (SXY) and depth (SZ).
const FLAT_VERTICES: [(i16, i16, u16); 14] = [
    (0, 0, 2000),
    (0, 10, 2000),
    (10, 0, 2000),
    // 3: nearer than `FLAT_NEAR`.
    (0, 10, 50),
    // 4-7: with 4 and 5, 6 makes a triangle 1,000 px wide (outside the loop's quick box, within the
    // GPU's span), 7 one 1,100 px wide.
    (-600, 0, 8000),
    (-600, 10, 8000),
    (400, 0, 8000),
    (500, 0, 8000),
    // 8-10: a triangle 600 px tall.
    (0, -300, 2000),
    (0, 300, 2000),
    (10, -300, 2000),
    // 11-13: with 0-2, a row of squares (11 far, so that AVSZ4 differs from AVSZ3).
    (10, 10, 6000),
    (20, 0, 2000),
    (20, 10, 2000),
];
const fn tri_run(material: u8, count: usize) -> u32 {
    run_header(RUN_TRIANGLES, count, material)
}
const fn gp0(command: u32, material: usize) -> u32 {
    command | FLAT_MATERIALS[material]
}
/// Triangles (vertices a, b, c): front, back (material 0); too near, wide but drawable (1); too wide
/// (0); too tall, then another front face (1); then a front face (0).
const FLAT_TRIANGLES: [u32; 19] = [
    tri_run(0, 2),
    gp0(GP0_FLAT_TRIANGLE, 0),
    pack3(0, 1, 2),
    pack3(0, 2, 1),
    tri_run(1, 2),
    gp0(GP0_FLAT_TRIANGLE, 1),
    pack3(0, 3, 2),
    pack3(4, 5, 6),
    tri_run(0, 1),
    gp0(GP0_FLAT_TRIANGLE, 0),
    pack3(4, 5, 7),
    tri_run(1, 2),
    gp0(GP0_FLAT_TRIANGLE, 1),
    pack3(8, 9, 10),
    pack3(0, 1, 2),
    tri_run(0, 1),
    gp0(GP0_FLAT_TRIANGLE, 0),
    pack3(4, 5, 6),
    STREAM_END,
];
/// Every run kind: a front quad (a, b, c) + (a, c, d); a front triangle; a back quad, a quad whose
/// fourth corner is too near, one whose fourth corner makes it too wide; a strip of two front quads
/// (material 1); a back strip quad; a strip quad with a corner too near.
const FLAT_QUADS: [u32; 29] = [
    run_header(RUN_QUADS, 1, 0),
    gp0(GP0_FLAT_QUAD, 0),
    pack3(0, 1, 2),
    11 << 2,
    tri_run(1, 1),
    gp0(GP0_FLAT_TRIANGLE, 1),
    pack3(0, 1, 2),
    run_header(RUN_QUADS, 3, 0),
    gp0(GP0_FLAT_QUAD, 0),
    pack3(0, 2, 1),
    11 << 2,
    pack3(0, 1, 2),
    3 << 2,
    pack3(4, 5, 6),
    7 << 2,
    run_header(RUN_STRIP, 2, 1),
    gp0(GP0_FLAT_QUAD, 1),
    pack_pair(0, 1),
    pack_pair(2, 11),
    pack_pair(12, 13),
    run_header(RUN_STRIP, 1, 0),
    gp0(GP0_FLAT_QUAD, 0),
    pack_pair(1, 0),
    pack_pair(11, 2),
    run_header(RUN_STRIP, 1, 0),
    gp0(GP0_FLAT_QUAD, 0),
    pack_pair(0, 3),
    pack_pair(2, 11),
    STREAM_END,
];
const FLAT_MATERIALS: [u32; 2] = [0x0010_2030, 0x0040_5060];
const FLAT_NEAR: u16 = 100;
const FLAT_DEPTHS: usize = 8;
/// Arena words: room for every packet, or for three triangles' worth.
const FLAT_ROOMS: [usize; 2] = [FLAT_ARENA_WORDS, 3 * FLAT_PACKET_WORDS];
const FLAT_ARENA_WORDS: usize = 8 * QUAD_PACKET_WORDS;
/// Record words per `flat_packet_words` run: drawn, rejected, words, the table, then the arena.
#[allow(dead_code)] // used by the host only
pub const FLAT_RUN_WORDS: usize = 3 + FLAT_DEPTHS + FLAT_ARENA_WORDS;
#[allow(dead_code)] // used by the host only
pub const FLAT_RUNS: usize = 4 * FLAT_ROOMS.len();

/// The triangle stage's packet loop (`Cop2::flat_packets`: on the console its asm variants, and the
/// register-level definition for tested quads) on synthetic triangles and quads that take every
/// path: back face, front face, too near, the span's quick box and exact test, a full arena; with
/// the near and span tests and without, with room for every packet and for three triangles. Per
/// run: drawn, rejected, arena words used, the table's entries, then every arena word (unwritten
/// ones zero), links as word offsets in the arena (an end marker as `LINK_MASK`), so the words do
/// not depend on where the buffers are. Sets ZSF3 and ZSF4 to 1 (OTZ = sum of SZ >> 12).
pub fn flat_packet_words<B: Cop2>(gte: &mut Gte<B>, push: &mut dyn FnMut(u32)) {
    let sxy = FLAT_VERTICES.map(|(x, y, _)| x as u16 as u32 | (y as u16 as u32) << 16);
    let sz = FLAT_VERTICES.map(|(_, _, z)| z as u32);
    gte.set_ot_scale(1, 1);
    for words in [&FLAT_TRIANGLES[..], &FLAT_QUADS[..]] {
        for clip_tests in [true, false] {
            for room in FLAT_ROOMS {
                let mut arena = [0u32; FLAT_ARENA_WORDS];
                let mut table = [LINK_MASK; FLAT_DEPTHS];
                let base = arena.as_ptr() as usize as u32;
                let job = FlatPrimitives {
                    words,
                    sxy: &sxy,
                    sz: &sz,
                    near: FLAT_NEAR,
                    clip_tests,
                };
                let mut list = PacketList {
                    arena: &mut arena[..room],
                    table: &mut table,
                    max_depth: FLAT_DEPTHS as u32 - 2,
                };
                // SAFETY: well-formed streams (a host test checks them), every vertex index below 14.
                let done = unsafe { gte.backend_mut().flat_packets(&job, &mut list) };
                let offset = |link: u32| if link & LINK_MASK == LINK_MASK { LINK_MASK } else { (link.wrapping_sub(base) & LINK_MASK) / 4 };
                push(done.drawn as u32);
                push(done.rejected as u32);
                push(done.words as u32);
                for t in table {
                    push(offset(t));
                }
                let mut header = 0;
                for (i, &w) in arena.iter().enumerate() {
                    let is_header = i == header && i < done.words;
                    if is_header {
                        header += (w >> 24) as usize + 1;
                    }
                    push(if is_header { w & !LINK_MASK | offset(w) } else { w });
                }
            }
        }
    }
}

/// A hash of every word of the rigid blob's pose cache (0 without a cache): the record's last word,
/// so a cache built differently on the console than on the host shows up as such (the probes would
/// only show its consequences).
pub fn pose_cache_hash(models: &Models) -> u32 {
    let words = models.rigid_poses.iter().flat_map(|c| c.entries().iter()).flat_map(|e| e.words.iter());
    words.fold(0x811C_9DC5_u32, |h, &w| (h ^ w).wrapping_mul(0x0100_0193))
}

/// Blend groups of every shape the blend stage's loop takes, as (pair, weight, vertex count): none,
/// one and two vertices, whole triples, triples and one or two more, several groups of one pair, the
/// end weights. [`blend_shapes_word`] lays them out one after the other from the first blended vertex.
pub const RESHAPED_GROUPS: [(u16, u16, u16); 10] =
    [(0, 0, 0), (0, 4096, 1), (0, 1000, 2), (1, 2048, 3), (1, 3, 4), (2, 4095, 5), (3, 1234, 6), (3, 777, 7), (3, 3500, 8), (4, 64, 9)];

/// A hash of the SXY and SZ of every vertex up to the last rewritten group's end (FNV-1a over the
/// words) drawn from a copy of the rigid blob
/// (`copy`, at least as long) whose first blend groups are rewritten as [`RESHAPED_GROUPS`] (same
/// count, pairs kept below the pair count), posed with Walk frame 15: the console's blend loop against
/// the host's definition on the group shapes the fixture does not have. 0 without a blend section.
pub fn blend_shapes_word<B: Cop2>(rigid_blob: &[u8], copy: &mut [u8], gte: &mut Gte<B>, scratch: &mut SceneScratch) -> Result<u32, RenderError> {
    let original = Tables::parse(rigid_blob)?;
    let (groups, pairs) = (original.blend_group_count(), original.blend_pair_count());
    let Some(copy) = copy.get_mut(..rigid_blob.len()).filter(|_| groups != 0) else {
        return Ok(0);
    };
    copy.copy_from_slice(rigid_blob);
    // The version 6 header's blend section: offset at 64, pair and group counts at 68 and 70.
    let section = u32::from_le_bytes([copy[64], copy[65], copy[66], copy[67]]) as usize;
    let groups_at = section + pairs * psxanim_runtime::tables::blend::PAIR_SIZE;
    let mut first = original.blend_group(0).first_vertex;
    for (k, &(pair, weight, count)) in RESHAPED_GROUPS.iter().enumerate().take(groups) {
        let count = count.min((original.vertex_count() as u16).saturating_sub(first));
        let at = groups_at + k * psxanim_runtime::tables::blend::GROUP_SIZE;
        for (i, v) in [pair.min(pairs as u16 - 1), weight, first, count].into_iter().enumerate() {
            copy[at + 2 * i..at + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
        }
        first += count;
    }
    let tables = Tables::parse(copy)?;
    let camera = camera_with_yaw(0x3000);
    camera.load(gte);
    let clip = tables.find_clip("Walk").unwrap_or(usize::MAX) as u16;
    let sample = psxanim_runtime::anim::FrameSample { clip, frame: 15, next: 15, weight: 0 };
    let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
    render::render_cached(gte, &tables, None, &camera, &world, Some(sample), scratch, &mut Discard, &mut |_| {})?;
    // The rigid ranges and the rewritten groups (vertices past them keep an earlier render's results).
    let n = (first as usize).min(tables.vertex_count());
    let words = scratch.sxy[..n].iter().chain(scratch.sz[..n].iter());
    Ok(words.fold(0x811C_9DC5_u32, |h, &w| (h ^ w).wrapping_mul(0x0100_0193)))
}
