//! Imported characters (`.pxsk`, `psxanim import`) and their instances: `psxanim_character_*`,
//! `psxanim_actor_*`, `psxanim_scratch_*`, and the ordering-table helpers `psxanim_ot_*`.
//!
//! A `psxanim_character` is the runtime's `Tables` over the game's blob (4-byte aligned). A
//! `psxanim_actor` is one instance: an `Animator` (play, crossfade, pause, events, vsync-delta update),
//! the forward decoder state of its rigid poses (`PoseStream`) and its world placement. Drawing is
//! `render::render_streamed` into the game's ordering table and packet buffer through
//! `console::ordering::FramePackets` and a flat `render::ot::OtSink`: the same contract as the Rust API
//! (the table reverse-linked as `psxanim_ot_clear` / PsyQ's `ClearOTagR` / DMA channel 6 make it, sent
//! from its last entry; packets spliced after entry `min(otz, entries - 2)`, the last entry left to the
//! game's background; `*packets_used` advanced by the words written). A `psxanim_scratch` is the
//! renderer's working memory, shared by every actor in turn; after a draw it holds the actor's bone
//! matrices (`psxanim_scratch_bone_matrices`).
use crate::animbin::EventSink;
use crate::types::play_flags;
use crate::{
    c_name, fail, ok, status, storage, with_gte, PsxanimCamera, PsxanimCharacterInfo, PsxanimDrawStats, PsxanimError,
    PsxanimEvent, PsxanimLight, PsxanimLighting, PsxanimMatrix, PsxanimPlayState,
};
use core::ffi::{c_char, c_void};
use psxanim_runtime::anim::{Animator, Sampling};
use psxanim_runtime::console::ordering::{clear_table, table_head, FramePackets};
use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
use psxanim_runtime::render::camera::{self, Camera};
use psxanim_runtime::render::light::{Fog, FogError, Light, Lighting};
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::{self, Outcome, PoseStream, Scratch};
use psxanim_runtime::tables::{stream, Storage, TableError, Tables};

/// Decoder words per voice of an actor (`PSXANIM_ACTOR_STREAM_WORDS`): 3 per animated rotation and 6
/// per animated translation or scale of a clip; a clip that needs more is refused by play/crossfade.
pub const STREAM_WORDS: usize = 192;
/// Vertices a drawn character may have (`PSXANIM_SCRATCH_VERTICES`): twice the runtime's default, for
/// characters split at UV seams and hard edges (a lit or textured one); 12 bytes of scratch each.
pub const SCRATCH_VERTICES: usize = 1024;
/// Longest clip name `psxanim_character_find_clip` compares.
const MAX_NAME: usize = 255;

const CHARACTER_MAGIC: u32 = u32::from_le_bytes(*b"pxCH");
const ACTOR_MAGIC: u32 = u32::from_le_bytes(*b"pxAC");
const SCRATCH_MAGIC: u32 = u32::from_le_bytes(*b"pxSR");

/// The storage of a `psxanim_character`.
#[repr(C)]
pub struct Character {
    magic: u32,
    file: *const u8,
    tables: Tables<'static>,
}

/// The storage of a `psxanim_actor`.
#[repr(C)]
pub struct Actor {
    magic: u32,
    /// The character it last played (its clips and events).
    character: *const Character,
    world: Matrix,
    animator: Animator,
    stream: PoseStream<STREAM_WORDS>,
}

/// The storage of a `psxanim_scratch`.
#[repr(C)]
pub struct ScratchStorage {
    magic: u32,
    scratch: Scratch<SCRATCH_VERTICES>,
}

unsafe fn character<'a>(c: *const c_void) -> Result<&'a Character, i32> {
    let c: &Character = storage(c as *mut c_void)?;
    if c.magic == CHARACTER_MAGIC {
        Ok(c)
    } else {
        Err(status::HANDLE)
    }
}

unsafe fn actor<'a>(a: *mut c_void) -> Result<&'a mut Actor, i32> {
    let a: &mut Actor = storage(a)?;
    if a.magic == ACTOR_MAGIC {
        Ok(a)
    } else {
        Err(status::HANDLE)
    }
}

unsafe fn scratch<'a>(s: *mut c_void) -> Result<&'a mut ScratchStorage, i32> {
    let s: &mut ScratchStorage = storage(s)?;
    if s.magic == SCRATCH_MAGIC {
        Ok(s)
    } else {
        Err(status::HANDLE)
    }
}

fn table_error(err: *mut PsxanimError, e: TableError) -> i32 {
    fail(err, status::CHARACTER, e.code(), e.offset().unwrap_or(0) as u32)
}

/// Validates `len` bytes at `bytes` (4-byte aligned) as a compiled character and makes `out` its
/// handle. The bytes stay the game's and must outlive the handle and its actors.
#[no_mangle]
pub unsafe extern "C" fn psxanim_character_load(out: *mut c_void, bytes: *const c_void, len: u32, err: *mut PsxanimError) -> i32 {
    let out: &mut Character = match storage(out) {
        Ok(o) => o,
        Err(s) => return fail(err, s, 0, 0),
    };
    core::ptr::addr_of_mut!(out.magic).write(0);
    if bytes.is_null() {
        return fail(err, status::NULL, 0, 0);
    }
    if (bytes as usize) % 4 != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    let file: &'static [u8] = core::slice::from_raw_parts(bytes as *const u8, len as usize);
    match Tables::parse(file) {
        Ok(tables) => {
            core::ptr::addr_of_mut!(out.tables).write(tables);
            core::ptr::addr_of_mut!(out.file).write(file.as_ptr());
            out.magic = CHARACTER_MAGIC;
            ok(err)
        }
        Err(e) => table_error(err, e),
    }
}

/// The character's counts.
#[no_mangle]
pub unsafe extern "C" fn psxanim_character_get_info(c: *const c_void, out: *mut PsxanimCharacterInfo) -> i32 {
    let c = match character(c) {
        Ok(c) => c,
        Err(s) => return s,
    };
    let out: &mut PsxanimCharacterInfo = match storage(out as *mut c_void) {
        Ok(o) => o,
        Err(s) => return s,
    };
    let t = &c.tables;
    *out = PsxanimCharacterInfo {
        bones: t.bone_count() as u32,
        vertices: t.vertex_count() as u32,
        triangles: t.triangle_count() as u32,
        clips: t.clip_count() as u32,
        materials: t.material_count() as u32,
        storage: match t.storage() {
            Storage::RigidGte => 0,
            Storage::BakedVertices => 1,
        },
    };
    status::OK
}

/// The index of the clip named `name` (NUL-terminated), or `PSXANIM_E_NOT_FOUND`.
#[no_mangle]
pub unsafe extern "C" fn psxanim_character_find_clip(c: *const c_void, name: *const c_char) -> i32 {
    let c = match character(c) {
        Ok(c) => c,
        Err(s) => return s,
    };
    let Some(name) = c_name(name, MAX_NAME) else {
        return status::NULL;
    };
    match core::str::from_utf8(name).ok().and_then(|n| c.tables.find_clip(n)) {
        Some(i) => i as i32,
        None => status::NOT_FOUND,
    }
}

/// Makes `out` an idle actor for a display of `display_hz` vsyncs a second (60 NTSC, 50 PAL; 1..=1000),
/// sampling clips stepped (`interpolate` 0) or interpolated between samples (1), placed at the origin.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_init(out: *mut c_void, display_hz: u32, interpolate: u32) -> i32 {
    let out: &mut Actor = match storage(out) {
        Ok(o) => o,
        Err(s) => return s,
    };
    core::ptr::addr_of_mut!(out.magic).write(0);
    if !(1..=1000).contains(&display_hz) {
        return status::RANGE;
    }
    let sampling = if interpolate != 0 { Sampling::Interpolated } else { Sampling::Step };
    core::ptr::addr_of_mut!(out.character).write(core::ptr::null());
    core::ptr::addr_of_mut!(out.world).write(Matrix::IDENTITY);
    core::ptr::addr_of_mut!(out.animator).write(Animator::new(display_hz, sampling));
    core::ptr::addr_of_mut!(out.stream).write(PoseStream::new());
    out.magic = ACTOR_MAGIC;
    status::OK
}

/// Places the actor: turned `yaw` (65536 = one turn) about the vertical axis, at (x, y, z) GTE units.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_place(a: *mut c_void, x: i32, y: i32, z: i32, yaw: u32) -> i32 {
    match actor(a) {
        Ok(a) => {
            a.world = camera::placement(Vec3i32::new(x, y, z), yaw as u16);
            status::OK
        }
        Err(s) => s,
    }
}

/// Cuts (`frames` 0) or crossfades over `frames` samples of the new clip to clip `clip` of `c`.
unsafe fn start(a: *mut c_void, c: *const c_void, clip: u32, looping: u32, frames: u32, err: *mut PsxanimError) -> i32 {
    let a = match actor(a) {
        Ok(a) => a,
        Err(s) => return fail(err, s, 0, 0),
    };
    let c = match character(c) {
        Ok(c) => c,
        Err(s) => return fail(err, s, 0, 0),
    };
    let clips = c.tables.clip_count() as u32;
    if clip >= clips {
        return fail(err, status::RANGE, clips, 0);
    }
    if frames > u16::MAX as u32 {
        return fail(err, status::RANGE, u16::MAX as u32, 0);
    }
    if c.tables.storage() == Storage::RigidGte {
        match stream::words_needed(&c.tables, clip as usize) {
            Ok(words) if words <= STREAM_WORDS => {}
            Ok(words) => return fail(err, status::RANGE, words as u32, 0),
            Err(e) => return table_error(err, e),
        }
    }
    if !core::ptr::eq(a.character, c) {
        // Another character: its voices start afresh (a crossfade from another character's clip is a cut).
        a.stream.reset();
        a.character = c;
        let r = a.animator.play(&c.tables, clip as usize, looping != 0);
        return r.map_or_else(|e| table_error(err, e), |_| ok(err));
    }
    let r = if frames == 0 {
        a.animator.play(&c.tables, clip as usize, looping != 0)
    } else {
        a.animator.crossfade(&c.tables, clip as usize, looping != 0, frames as u16)
    };
    r.map_or_else(|e| table_error(err, e), |_| ok(err))
}

/// Cuts to clip `clip` of character `c` at its first sample (`looping` 0 or 1).
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_play(a: *mut c_void, c: *const c_void, clip: u32, looping: u32, err: *mut PsxanimError) -> i32 {
    start(a, c, clip, looping, 0, err)
}

/// Starts clip `clip` and fades to it from the playing clip over `frames` samples of the new clip
/// (a cut when nothing plays).
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_crossfade(
    a: *mut c_void,
    c: *const c_void,
    clip: u32,
    looping: u32,
    frames: u32,
    err: *mut PsxanimError,
) -> i32 {
    start(a, c, clip, looping, frames.max(1), err)
}

/// Freezes (`paused` 1) or resumes (0) the playhead and any crossfade.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_pause(a: *mut c_void, paused: u32) -> i32 {
    match actor(a) {
        Ok(a) => {
            if paused != 0 {
                a.animator.pause()
            } else {
                a.animator.resume()
            }
            status::OK
        }
        Err(s) => s,
    }
}

/// Advances by `vsyncs` vertical blanks (nothing while paused) and writes the playing clip's events
/// crossed to `events[0..capacity]`; returns how many were crossed, or a negative status.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_update(a: *mut c_void, vsyncs: u32, events: *mut PsxanimEvent, capacity: u32) -> i32 {
    let a = match actor(a) {
        Ok(a) => a,
        Err(s) => return s,
    };
    let Some(c) = a.character.as_ref() else {
        return 0;
    };
    let mut sink = match EventSink::new(events, capacity, c.file) {
        Ok(s) => s,
        Err(s) => return s,
    };
    a.animator.update_events(vsyncs, &c.tables, &mut |e| sink.push(e));
    sink.count as i32
}

/// The actor's clock.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_state(a: *const c_void, out: *mut PsxanimPlayState) -> i32 {
    let a = match actor(a as *mut c_void) {
        Ok(a) => a,
        Err(s) => return s,
    };
    let out: &mut PsxanimPlayState = match storage(out as *mut c_void) {
        Ok(o) => o,
        Err(s) => return s,
    };
    let an = &a.animator;
    let mut flags = 0;
    if an.sample().is_some() {
        flags |= play_flags::PLAYING;
    }
    if an.fading() {
        flags |= play_flags::FADING;
    }
    if an.finished() {
        flags |= play_flags::FINISHED;
    }
    if an.is_paused() {
        flags |= play_flags::PAUSED;
    }
    *out = PsxanimPlayState { time: an.time(), flags };
    status::OK
}

/// Makes `out` the renderer's scratch (zeroed). One is enough for every actor, drawn one at a time.
#[no_mangle]
pub unsafe extern "C" fn psxanim_scratch_init(out: *mut c_void) -> i32 {
    let out: &mut ScratchStorage = match storage(out) {
        Ok(o) => o,
        Err(s) => return s,
    };
    // All zero is a valid scratch (integers only), written without a copy through the stack.
    core::ptr::write_bytes(out as *mut ScratchStorage as *mut u8, 0, core::mem::size_of::<ScratchStorage>());
    out.magic = SCRATCH_MAGIC;
    status::OK
}

/// Lights every character drawn with this scratch that was imported with `--lighting` (its
/// vertices carry normals; one without stays unlit); `lighting` null: unlit again. With fog, `camera`
/// gives the projection distance H the GTE's depth cue needs (the fog holds for that H). A fog whose
/// far depth is not beyond its near one (or near 0), or a camera with H 0, is `PSXANIM_E_RANGE`
/// (detail 1: the depths, 2: H, 3: too narrow a range for the GTE's 16-bit DQA; widen it); the
/// scratch's lighting is then unchanged.
#[no_mangle]
pub unsafe extern "C" fn psxanim_scratch_set_lighting(
    s: *mut c_void,
    lighting: *const PsxanimLighting,
    camera: *const PsxanimCamera,
    err: *mut PsxanimError,
) -> i32 {
    let s = match scratch(s) {
        Ok(s) => s,
        Err(st) => return fail(err, st, 0, 0),
    };
    if lighting.is_null() {
        s.scratch.lighting = None;
        return ok(err);
    }
    if (lighting as usize) % core::mem::align_of::<PsxanimLighting>() != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    let l = &*lighting;
    let light = |l: &PsxanimLight| Light { direction: Vec3i16::new(l.dx, l.dy, l.dz), colour: [l.r, l.g, l.b] };
    let mut lit = Lighting { lights: l.lights.each_ref().map(light), ambient: l.ambient, fog: None };
    if l.fog != 0 {
        let camera: &PsxanimCamera = match storage(camera as *mut c_void) {
            Ok(c) => c,
            Err(st) => return fail(err, st, 0, 0),
        };
        match Fog::new(l.fog_colour, l.fog_near, l.fog_far, camera.projection) {
            Ok(fog) => lit.fog = Some(fog),
            Err(FogError::FarNotBeyondNear { .. }) => return fail(err, status::RANGE, 1, 0),
            Err(FogError::NoProjection) => return fail(err, status::RANGE, 2, 0),
            Err(FogError::RangeTooNarrow { .. }) => return fail(err, status::RANGE, 3, 0),
        }
    }
    s.scratch.lighting = Some(lit);
    ok(err)
}

/// Copies the model-view matrices of the first `min(count, bones)` bones of the rigid character drawn
/// last with this scratch (valid after a draw that drew it, `culled` 0). Returns how many.
#[no_mangle]
pub unsafe extern "C" fn psxanim_scratch_bone_matrices(s: *const c_void, out: *mut PsxanimMatrix, count: u32) -> i32 {
    let s = match scratch(s as *mut c_void) {
        Ok(s) => s,
        Err(st) => return st,
    };
    if out.is_null() {
        return status::NULL;
    }
    if (out as usize) % core::mem::align_of::<PsxanimMatrix>() != 0 {
        return status::ALIGN;
    }
    let n = (count as usize).min(s.scratch.matrices.len());
    for (i, m) in s.scratch.matrices[..n].iter().enumerate() {
        out.add(i).write(PsxanimMatrix::from(m));
    }
    n as i32
}

/// Writes a view matrix `distance` units from (tx, ty, tz), turned `yaw` about the vertical axis and
/// tilted down by `pitch` (65536 = one turn), into `camera->view`.
#[no_mangle]
pub unsafe extern "C" fn psxanim_camera_orbit(camera: *mut PsxanimCamera, tx: i32, ty: i32, tz: i32, distance: i32, yaw: u32, pitch: u32) -> i32 {
    let camera: &mut PsxanimCamera = match storage(camera as *mut c_void) {
        Ok(c) => c,
        Err(s) => return s,
    };
    camera.view = PsxanimMatrix::from(&Camera::orbit(Vec3i32::new(tx, ty, tz), distance, yaw as u16, pitch as u16));
    status::OK
}

/// Writes the reverse-linked empty ordering table of `entries` words (entry 0 ends the list).
#[no_mangle]
pub unsafe extern "C" fn psxanim_ot_clear(ot: *mut u32, entries: u32) -> i32 {
    if ot.is_null() {
        return status::NULL;
    }
    if (ot as usize) % 4 != 0 {
        return status::ALIGN;
    }
    clear_table(core::slice::from_raw_parts_mut(ot, entries as usize));
    status::OK
}

/// The entry the GPU's linked-list DMA starts from: the table's last (null for an empty table).
#[no_mangle]
pub unsafe extern "C" fn psxanim_ot_head(ot: *const u32, entries: u32) -> *const u32 {
    if ot.is_null() || (ot as usize) % 4 != 0 {
        return core::ptr::null();
    }
    table_head(core::slice::from_raw_parts(ot, entries as usize))
}

/// Poses actor `a` (character `c`) and draws it with flat shading into the ordering table `ot`
/// (`ot_entries`, cleared by the game) and the packet buffer `packets` (`packet_words`), from word
/// `*packets_used` on, which it advances. Loads the camera's screen registers on the GTE. `stats`
/// may be null. Returns 0 (drawn or culled, see `stats->culled`) or a negative status.
#[no_mangle]
pub unsafe extern "C" fn psxanim_actor_draw(
    a: *mut c_void,
    c: *const c_void,
    camera: *const PsxanimCamera,
    s: *mut c_void,
    ot: *mut u32,
    ot_entries: u32,
    packets: *mut u32,
    packet_words: u32,
    packets_used: *mut u32,
    stats: *mut PsxanimDrawStats,
    err: *mut PsxanimError,
) -> i32 {
    let a = match actor(a) {
        Ok(a) => a,
        Err(st) => return fail(err, st, 0, 0),
    };
    let c = match character(c) {
        Ok(c) => c,
        Err(st) => return fail(err, st, 0, 0),
    };
    let s = match scratch(s) {
        Ok(s) => s,
        Err(st) => return fail(err, st, 0, 0),
    };
    let camera: &PsxanimCamera = match storage(camera as *mut c_void) {
        Ok(cam) => cam,
        Err(st) => return fail(err, st, 0, 0),
    };
    if ot.is_null() || packets.is_null() || packets_used.is_null() {
        return fail(err, status::NULL, 0, 0);
    }
    if (ot as usize) % 4 != 0 || (packets as usize) % 4 != 0 || (packets_used as usize) % 4 != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    if ot_entries == 0 {
        return fail(err, status::RANGE, 1, 0);
    }
    if *packets_used > packet_words {
        return fail(err, status::RANGE, packet_words, 0);
    }
    if !stats.is_null() && (stats as usize) % 4 != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    let cam = Camera {
        view: Matrix::from(&camera.view),
        center: (camera.center_x, camera.center_y),
        projection: camera.projection,
        screen: (camera.screen_w, camera.screen_h),
        zsf3: camera.zsf3,
        near: camera.near_z,
    };
    let table = core::slice::from_raw_parts_mut(ot, ot_entries as usize);
    let buffer = core::slice::from_raw_parts_mut(packets, packet_words as usize);
    let mut used = *packets_used as usize;
    let mut sink = OtSink::new(FramePackets::new(table, buffer, &mut used), Shading::Flat);
    // An actor that never played shows nothing (the renderer culls a pose-less instance).
    let tables = &c.tables;
    let outcome = with_gte(|gte| {
        cam.load(gte);
        render::render_streamed(gte, tables, &mut a.stream, &cam, &a.world, &a.animator, &mut s.scratch, &mut sink, &mut |_| {})
    });
    *packets_used = used as u32;
    let result = match outcome {
        Ok(Outcome::Drawn(t)) => PsxanimDrawStats { drawn: t.drawn, back_facing: t.back_facing, rejected: t.rejected, culled: 0 },
        Ok(Outcome::Culled) => PsxanimDrawStats { culled: 1, ..Default::default() },
        Err(e) => return fail(err, status::RENDER, e.code(), 0),
    };
    if !stats.is_null() {
        *stats = result;
    }
    ok(err)
}
