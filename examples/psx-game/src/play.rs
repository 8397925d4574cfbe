//! The game's logic apart from the hardware: the fixture character (its glTF export) walking, the same
//! character with a painted texture (`textured_embedded.fbx`, its image embedded in the FBX) idling,
//! textured and lit, the same character with one atlas texture over all of it
//! (`textured_atlas.fbx`, as PS1 characters are usually made) walking on the left, textured and lit,
//! and behind them the same character as one continuous skin of 2,946 vertices
//! (`dense_character.fbx`, whose primitive runs count from several base vertices), on the right
//! the character whose Shirt repeats a checker through the GPU's texture window
//! (`textured_tiled.fbx`, unlit, turning) and, further back on the left, the painted character again
//! walking in fog (`FOGGED_LIGHTING`), under a fixed camera; and what its verification record
//! holds. Each textured character's textures go where its blob proposes unless another's are there (`vram::Placement::first_fit`, clear of the game's two
//! frame buffers); the game uploads them at start-up and reads them back for the record.
//!
//! This file is compiled into the game and into the xtask (`xtask/src/expect/psx_game.rs`), which runs
//! it on the runtime's GTE model: the host knows exactly what the console computes at any frame. Game
//! time advances one vsync per rendered frame (the game draws at 60 fps), never by wall-clock vsyncs.
use psxanim_runtime::anim::{Animator, Sampling};
use psxanim_runtime::gte::{Cop2, Gte};
use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
use psxanim_runtime::record::digest;
use psxanim_runtime::render::light::{Fog, Lighting};
use psxanim_runtime::render::camera::{self, Angle, Camera};
use psxanim_runtime::render::{self, Outcome, PoseStream, RenderError, Scratch, Stage, TriangleSink};
use psxanim_runtime::tables::textures::{Rect, MAX_TEXTURES};
use psxanim_runtime::tables::{TableError, Tables};
use psxanim_runtime::vram::{Placement, PlacementError};

/// `Record::program` of the game.
pub const PROGRAM: [u8; 4] = *b"GAME";
/// The display rate the animators assume (NTSC).
pub const DISPLAY_HZ: u32 = 60;
pub const SCREEN: (i16, i16) = (320, 240);
/// Ordering-table entries; the character goes to depths `0..OT_DEPTHS - 1`.
pub const OT_DEPTHS: usize = 1024;
/// The frame whose results and stage cycles the game records.
pub const MEASURED_FRAME: u32 = 20;

/// The characters the game embeds (`Game::new` takes their tables in this order).
pub const CHARACTERS: [&str; 5] = ["blender_character", "dense_character", "textured_embedded", "textured_atlas", "textured_tiled"];

/// The scene's light: one warm light from above, to the left and in front of the characters (the
/// direction points from a surface toward the light: -x left, -y up, -z toward the camera), and a
/// cool ambient.
pub const LIGHTING: Lighting = Lighting::one(Vec3i16::new(-2365, -2365, -2365), [150, 140, 120], [56, 56, 72]);

/// The same light with fog toward the background's colour from view depth 20,000 (the front row)
/// to 60,000: the fogged actor, about 33,000 deep, is mixed about 60% of the way.
pub const FOGGED_LIGHTING: Lighting = LIGHTING.with_fog(match Fog::new([16, 24, 64], 20_000, 60_000, PROJECTION) {
    Ok(fog) => fog,
    Err(_) => panic!("the game's fog range does not fit the GTE's depth cue"),
});

/// The game's two 320 x 240 frame buffers, which no texture may overlap.
pub const FRAME_BUFFERS: [Rect; 1] = [Rect { x: 0, y: 0, w: 320, h: 480 }];

/// Packet words per frame: the glTF character's 660 triangles, the textured ones' four times 660 (10
/// words a lit textured triangle, 13 a quad, 2 more a tiled packet) and the dense one's 5,888, at most
/// half of each facing the camera, 5 words an untextured triangle (6 a quad), with room to spare.
pub const PACKET_WORDS: usize = 32 * 1024;

/// One character on stage.
pub struct Actor {
    /// Index in [`CHARACTERS`].
    pub character: usize,
    pub clip: &'static str,
    pub sampling: Sampling,
    pub position: Vec3i32,
    pub yaw: Angle,
    /// Lit with [`FOGGED_LIGHTING`] instead of [`LIGHTING`] (characters with normals only).
    pub fogged: bool,
}

pub const ACTORS: [Actor; 6] = [
    Actor { character: 0, clip: "Walk", sampling: Sampling::Step, position: Vec3i32::new(-3000, 0, 0), yaw: 0x2000, fogged: false },
    Actor { character: 2, clip: "Idle", sampling: Sampling::Interpolated, position: Vec3i32::new(3000, 0, 0), yaw: 0xE000, fogged: false },
    Actor { character: 1, clip: "Walk", sampling: Sampling::Interpolated, position: Vec3i32::new(0, 0, 6000), yaw: 0x1000, fogged: false },
    Actor { character: 3, clip: "Walk", sampling: Sampling::Interpolated, position: Vec3i32::new(-6500, 0, 0), yaw: 0x4000, fogged: false },
    Actor { character: 4, clip: "Turn", sampling: Sampling::Interpolated, position: Vec3i32::new(7000, 0, 0), yaw: 0xE000, fogged: false },
    Actor { character: 2, clip: "Walk", sampling: Sampling::Interpolated, position: Vec3i32::new(-6500, 0, 14000), yaw: 0x3000, fogged: true },
];

/// Cycle slots (root counter 2 ticks at `MEASURED_FRAME`): per actor its decode, pose, projection and
/// triangle stages, then the whole draw.
pub const STAGES: usize = 4;
pub const SLOT_DRAW: usize = STAGES * ACTORS.len();

/// The camera: fixed, looking at both actors from the front and a little above.
pub fn camera() -> Camera {
    Camera {
        view: Camera::orbit(Vec3i32::new(0, -3600, 0), 20_000, 0, 0x0400),
        center: (SCREEN.0 / 2, SCREEN.1 / 2),
        projection: PROJECTION,
        screen: SCREEN,
        zsf3: 36,
        near: 1000,
    }
}

/// The camera's projection distance H (the fog's DQA depends on it).
pub const PROJECTION: u16 = 320;

/// Decoder words per voice of an actor's `PoseStream` (the fixture's clips need at most 3 per animated
/// rotation and 6 per animated translation: `tables::stream::max_words_needed`).
pub const STREAM_WORDS: usize = 64;

/// The game's state: the characters' tables, one animator per actor (a few words each), its pose
/// stream (the forward decoder's state: each frame reads one record of deltas, not a block) and where
/// they stand.
pub struct Game<'a> {
    pub tables: [Tables<'a>; CHARACTERS.len()],
    pub animators: [Animator; ACTORS.len()],
    pub streams: [PoseStream<STREAM_WORDS>; ACTORS.len()],
    pub worlds: [Matrix; ACTORS.len()],
    /// Per character, where its textures are in VRAM (None: untextured).
    pub placements: [Option<Placement>; CHARACTERS.len()],
}

/// Why the game cannot start: a blob that does not parse or a clip it lacks, or a texture placement
/// VRAM refuses.
#[derive(Clone, Copy, Debug)]
pub enum SetupError {
    Tables(TableError),
    Placement(PlacementError),
}

impl From<TableError> for SetupError {
    fn from(e: TableError) -> Self {
        SetupError::Tables(e)
    }
}

impl<'a> Game<'a> {
    /// Every actor playing its clip, looping, from the first frame.
    pub fn new(tables: [Tables<'a>; CHARACTERS.len()]) -> Result<Self, SetupError> {
        let mut animators = [Animator::new(DISPLAY_HZ, Sampling::Step); ACTORS.len()];
        for (animator, actor) in animators.iter_mut().zip(&ACTORS) {
            let tables = &tables[actor.character];
            let clip = tables.find_clip(actor.clip).unwrap_or(usize::MAX);
            animator.set_sampling(actor.sampling);
            animator.play(tables, clip, true)?;
        }
        let worlds = ACTORS.map(|a| camera::placement(a.position, a.yaw));
        // Each blob proposes its places alone: the characters' textures are kept apart here.
        let mut placements = [None; CHARACTERS.len()];
        let mut taken = [Rect::default(); FRAME_BUFFERS.len() + 2 * MAX_TEXTURES * CHARACTERS.len()];
        taken[..FRAME_BUFFERS.len()].copy_from_slice(&FRAME_BUFFERS);
        let mut n = FRAME_BUFFERS.len();
        for ((p, t), name) in placements.iter_mut().zip(&tables).zip(CHARACTERS) {
            // The glTF export's texture is a 4 x 4 colour swatch: drawn in its materials' colours it
            // looks the same and keeps the flat asm path (a textured character still goes through
            // the per-triangle path: see the README's textures section).
            if t.texture_count() > 0 && name != "blender_character" {
                let placed = Placement::first_fit(t, &taken[..n]).map_err(SetupError::Placement)?;
                for r in placed.taken() {
                    taken[n] = r;
                    n += 1;
                }
                *p = Some(placed);
            }
        }
        Ok(Game { tables, animators, streams: [const { PoseStream::new() }; ACTORS.len()], worlds, placements })
    }

    /// Advances every actor by `vsyncs` vertical blanks.
    pub fn update(&mut self, vsyncs: u32) {
        for a in &mut self.animators {
            a.update(vsyncs);
        }
    }

    /// Draws every actor into `sink`; `mark(actor, stage)` is called at the end of each stage. With
    /// `probe`, each actor's record words (`actor_words`) are written there.
    pub fn draw<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
        &mut self,
        gte: &mut Gte<B>,
        scratch: &mut Scratch<V>,
        sink: &mut S,
        mark: &mut dyn FnMut(usize, Stage),
        mut probe: Option<&mut [u32; PROBE_WORDS]>,
    ) -> [Result<Outcome, RenderError>; ACTORS.len()] {
        let camera = camera();
        camera.load(gte);
        let mut outcomes = [Ok(Outcome::Culled); ACTORS.len()];
        for (i, outcome) in outcomes.iter_mut().enumerate() {
            let (tables, stream, animator) = (&self.tables[ACTORS[i].character], &mut self.streams[i], &self.animators[i]);
            sink.place_textures(self.placements[ACTORS[i].character].as_ref());
            // Characters imported with normals are lit by the scene's light.
            let lighting = if ACTORS[i].fogged { FOGGED_LIGHTING } else { LIGHTING };
            scratch.lighting = tables.has_normals().then_some(lighting);
            *outcome = render::render_streamed(gte, tables, stream, &camera, &self.worlds[i], animator, scratch, sink, &mut |s| mark(i, s));
            if let Some(words) = probe.as_deref_mut() {
                // While the scratch still holds this actor's projected vertices.
                let at = i * WORDS_PER_ACTOR;
                words[at..at + WORDS_PER_ACTOR].copy_from_slice(&actor_words(outcome, scratch, tables.vertex_count()));
            }
        }
        outcomes
    }
}

/// The record words of one actor at the measured frame (`ACTOR_FIELDS`): triangles drawn,
/// back-facing and rejected (or `u32::MAX` and the error code), vertex count, and an FNV-1a hash of its
/// projected SXY and SZ.
pub const ACTOR_FIELDS: [&str; 5] = ["drawn", "back_facing", "rejected", "vertices", "sxy_sz_hash"];
pub const WORDS_PER_ACTOR: usize = ACTOR_FIELDS.len();
pub const PROBE_WORDS: usize = WORDS_PER_ACTOR * ACTORS.len();

fn actor_words<const V: usize>(outcome: &Result<Outcome, RenderError>, scratch: &Scratch<V>, vertices: usize) -> [u32; WORDS_PER_ACTOR] {
    match outcome {
        Ok(Outcome::Drawn(s)) => {
            let n = vertices.min(scratch.sxy.len());
            let hash = digest::fnv(scratch.sxy[..n].iter().chain(&scratch.sz[..n]).copied());
            [s.drawn, s.back_facing, s.rejected, n as u32, hash]
        }
        Ok(Outcome::Culled) => [0; WORDS_PER_ACTOR],
        Err(e) => [u32::MAX, e.code(), 0, 0, 0],
    }
}

/// The record words of the frame's packets (`record::digest::packet_words` of the words written): their
/// count and a hash of every packet's GP0 words, the headers left out.
pub const FRAME_FIELDS: [&str; 2] = ["packet_words", "packets_hash"];

/// The record words of the textures in VRAM (`record::digest::WordHash`): the words uploaded and a
/// hash of them, images then CLUTs, character by character. The host hashes the blob's words
/// (`digest::upload_words`); the console hashes what it reads back from VRAM after the upload.
pub const VRAM_FIELDS: [&str; 2] = ["vram_words", "vram_hash"];

/// A damaged copy of the blob: its second bone made its own parent (the bones must be parent-first),
/// as a stray write or a bad patch would. The game must report the parse error and keep playing.
pub fn corrupt(copy: &mut [u8]) {
    // Header offset 40: the bone table's offset; a bone is 8 bytes, its parent the first u16.
    let Some(&[a, b, c, d]) = copy.get(40..44) else {
        return;
    };
    let second_bone = u32::from_le_bytes([a, b, c, d]) as usize + 8;
    if let Some(parent) = copy.get_mut(second_bone..second_bone + 2) {
        parent.copy_from_slice(&1u16.to_le_bytes());
    }
}

/// The record words of a parse of the damaged copy: error code and offset (0, 0 if it parsed).
pub fn corruption_words(copy: &[u8]) -> [u32; 2] {
    match Tables::parse(copy) {
        Ok(_) => [0, 0],
        Err(e) => [e.code(), e.offset().unwrap_or(0) as u32],
    }
}
