//! The character example's scene and probes, as a pure function of the rendered frame number.
//!
//! This one file is compiled twice: into the PS-EXE (GTE hardware, triangles into the ordering table)
//! and into the xtask (`xtask/src/expect/character.rs`, the runtime's GTE model), so the host knows
//! exactly what the console computed and drew at any frame. Game time advances a fixed
//! `VSYNCS_PER_FRAME` per rendered frame, never by wall-clock vsyncs, to keep it that way.
use psxanim_runtime::anim::{Animator, Sampling};
use psxanim_runtime::gte::{Cop2, Gte};
use psxanim_runtime::math::Vec3i32;
use psxanim_runtime::render::camera::{self, Angle, Camera};
use psxanim_runtime::render::{self, DrawnTriangle, Outcome, RenderError, Scratch, Stage, TriangleSink};
use psxanim_runtime::tables::{TableError, Tables};

/// The display rate the animators assume (NTSC).
pub const DISPLAY_HZ: u32 = 60;
/// Game time per rendered frame: 30 fps game logic on a 60 Hz display.
pub const VSYNCS_PER_FRAME: u32 = 2;
pub const SCREEN: (i16, i16) = (320, 240);
/// Ordering-table entries (the deepest is the background).
pub const OT_DEPTHS: usize = 1024;
/// The frame whose per-stage cycle counts the program records (so the host can pair them with counts).
pub const MEASURED_FRAME: u32 = 20;
/// Cycle slots per instance (bounds, decode, bone matrices, projection, triangles), then the scene
/// total and the measured frame number.
pub const STAGES: usize = 5;
pub const SLOT_SCENE: usize = STAGES * INSTANCES;
pub const SLOT_FRAME: usize = SLOT_SCENE + 1;
/// The frame number is drawn as `FRAME_CODE_BITS` blocks on the top rows (white = 1, black = 0), so a
/// screenshot says which frame it shows whatever the emulator's timing.
pub const FRAME_CODE_BITS: u32 = 16;
pub const FRAME_CODE_BLOCK: (u16, u16) = (16, 4);

/// Which table blob an instance uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Rigid,
    Baked,
}

/// One placed character.
pub struct Placement {
    pub model: Model,
    pub position: Vec3i32,
    pub yaw: Angle,
    pub clip: &'static str,
    pub sampling: Sampling,
}

/// Three visible instances and one far below the floor (always off screen: culled before any pose work).
pub const PLACEMENTS: [Placement; 4] = [
    Placement { model: Model::Rigid, position: Vec3i32::new(-4800, 0, 0), yaw: 0x2000, clip: "Walk", sampling: Sampling::Step },
    Placement { model: Model::Rigid, position: Vec3i32::new(0, 0, 3000), yaw: 0, clip: "Idle", sampling: Sampling::Interpolated },
    Placement { model: Model::Baked, position: Vec3i32::new(4800, 0, 0), yaw: 0xE000, clip: "Turn", sampling: Sampling::Step },
    Placement { model: Model::Rigid, position: Vec3i32::new(0, 60_000, 0), yaw: 0, clip: "Walk", sampling: Sampling::Step },
];
pub const INSTANCES: usize = PLACEMENTS.len();

/// The two embedded blobs.
#[derive(Clone, Copy)]
pub struct Models<'a> {
    pub rigid: Tables<'a>,
    pub baked: Tables<'a>,
}

impl<'a> Models<'a> {
    pub fn get(&self, m: Model) -> &Tables<'a> {
        match m {
            Model::Rigid => &self.rigid,
            Model::Baked => &self.baked,
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
    pub frame: u32,
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
        Ok(Scene { models, animators, frame: 0 })
    }

    /// Advances game time by one rendered frame.
    pub fn step(&mut self) {
        self.frame += 1;
        for a in self.animators.iter_mut() {
            a.update(VSYNCS_PER_FRAME);
        }
    }

    /// Draws every instance at the current frame. `mark(instance, stage)` runs after each stage.
    pub fn render<B: Cop2, S: TriangleSink + ?Sized>(
        &self,
        gte: &mut Gte<B>,
        scratch: &mut Scratch,
        sink: &mut S,
        mark: &mut dyn FnMut(usize, Stage),
    ) -> [Result<Outcome, RenderError>; INSTANCES] {
        let camera = camera_at(self.frame);
        camera.load(gte);
        let mut outcomes = [Ok(Outcome::Culled); INSTANCES];
        for (i, p) in PLACEMENTS.iter().enumerate() {
            let world = camera::placement(p.position, p.yaw);
            let tables = self.models.get(p.model);
            outcomes[i] = render::render(gte, tables, &camera, &world, self.animators[i].sample(), scratch, sink, &mut |s| mark(i, s));
        }
        outcomes
    }
}

/// Baked probe: every decoded position of these (clip name, frame) samples.
pub const BAKED_PROBES: [(&str, u16); 2] = [("Turn", 20), ("Walk", 7)];
/// Rigid probe: (clip name, frame, camera yaw); the SXY of every `RIGID_PROBE_STRIDE`-th vertex.
pub const RIGID_PROBES: [(&str, u16, Angle); 3] = [("Walk", 0, 0), ("Walk", 15, 0x3000), ("Idle", 30, 0xA000)];
pub const RIGID_PROBE_STRIDE: usize = 8;

/// The record's result words, computed by the renderer's own stages: decoded baked positions
/// (`x | y << 16`, then `z`, per vertex) and rigid SXY words. `name(i)` labels word `i` for reports.
pub fn probe_words<B: Cop2>(
    models: &Models,
    gte: &mut Gte<B>,
    scratch: &mut Scratch,
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
    for (clip, frame, yaw) in RIGID_PROBES {
        let camera = camera_with_yaw(yaw);
        camera.load(gte);
        let clip = rigid.find_clip(clip).unwrap_or(usize::MAX) as u16;
        let sample = psxanim_runtime::anim::FrameSample { clip, frame, next: frame, weight: 0 };
        let world = camera::placement(PLACEMENTS[0].position, PLACEMENTS[0].yaw);
        render::render(gte, rigid, &camera, &world, Some(sample), scratch, &mut Discard, &mut |_| {})?;
        for v in (0..rigid.vertex_count()).step_by(RIGID_PROBE_STRIDE) {
            push(scratch.sxy[v]);
        }
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
    let (clip, frame, _) = RIGID_PROBES[(rest / per_rigid).min(RIGID_PROBES.len() - 1)];
    (clip, frame, "rigid.sxy", (rest % per_rigid) * RIGID_PROBE_STRIDE)
}
