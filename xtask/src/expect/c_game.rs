//! The C example (`examples/c-game/main.c`): the record it must leave, computed by making the same C
//! API calls in the same order on the host (the library's `extern "C"` functions on the runtime's GTE
//! model), and its cycle figures. Keep this file in step with main.c: each `push` there is a word here,
//! named.
use super::{Expectation, Word};
use crate::report::Check;
use anyhow::{Context, Result};
use psxanim_capi::animbin::*;
use psxanim_capi::character::*;
use psxanim_capi::{
    sizes, PsxanimBind, PsxanimCamera, PsxanimCharacterInfo, PsxanimDrawStats, PsxanimError, PsxanimEvent, PsxanimLight, PsxanimLighting, PsxanimMatrix, PsxanimPlayState,
};
use psxanim_runtime::record::RecordView;
use serde::Serialize;
use std::ffi::c_void;
use std::path::Path;
use std::ptr::null_mut;

pub const PROGRAM: [u8; 4] = *b"CGAM";
const OT_ENTRIES: usize = 1024;
const PACKET_WORDS: usize = 4096;
const BONES: usize = 6;
const MAX_EVENTS: usize = 8;
const FRAME_DONE: u32 = 100;
pub const MEASURED: [u32; 4] = [20, 36, 64, 90];
/// CPU cycles per root counter 2 tick.
const CYCLES_PER_TICK: f64 = 8.0;

const PARENTS: [u8; BONES] = [0xFF, 0, 1, 2, 3, 4];
const fn bind(rotation: [i16; 4], translation: [i32; 3]) -> PsxanimBind {
    PsxanimBind { rotation, translation }
}
const BIND: [PsxanimBind; BONES] = [
    bind([4096, 0, 0, 0], [0, 0, 0]),
    bind([4096, 0, 0, 0], [0, -2048, 0]),
    bind([4096, 0, 0, 0], [0, -2048, 0]),
    bind([2896, 2896, 0, 0], [0, -2048, 0]),
    bind([4096, 0, 0, 0], [1024, -2048, 0]),
    bind([4096, 0, 0, 0], [0, -2048, 512]),
];

/// Caller storage, 8-aligned (the console's is 4-aligned words; the host's objects hold 8-byte pointers).
struct Storage(Vec<u64>);
impl Storage {
    fn new(bytes: usize) -> Self {
        Storage(vec![0; bytes / 8 + 1])
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr() as *mut c_void
    }
}

/// Bytes in 4-aligned memory, as assets.S places them.
fn aligned(bytes: &[u8]) -> Vec<u32> {
    let mut words = vec![0u32; bytes.len().div_ceil(4) + 1];
    for (i, b) in bytes.iter().enumerate() {
        words[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    words
}

fn fnv(mut h: u32, w: u32) -> u32 {
    for b in w.to_le_bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    h
}
const FNV_START: u32 = 0x811C_9DC5;

fn matrix_words(m: &PsxanimMatrix) -> [u32; 8] {
    let p = |a: i16, b: i16| a as u16 as u32 | (b as u16 as u32) << 16;
    let r = m.m;
    [p(r[0][0], r[0][1]), p(r[0][2], r[1][0]), p(r[1][1], r[1][2]), p(r[2][0], r[2][1]), p(r[2][2], m.pad), m.t[0] as u32, m.t[1] as u32, m.t[2] as u32]
}

fn hash_matrices(m: &[PsxanimMatrix]) -> u32 {
    m.iter().flat_map(matrix_words).fold(FNV_START, fnv)
}

fn hash_packets(packets: &[u32], used: usize) -> u32 {
    let (mut h, mut i) = (FNV_START, 0);
    while i < used {
        let len = (packets[i] >> 24) as usize;
        let mut k = 1;
        while k <= len && i + k < used {
            h = fnv(h, packets[i + k]);
            k += 1;
        }
        i += 1 + len;
    }
    h
}

struct Words(Vec<Word>);
impl Words {
    fn push(&mut self, name: impl Into<String>, value: u32) {
        self.0.push(Word { name: name.into(), value });
    }
    fn error(&mut self, name: &str, status: i32, e: &PsxanimError) {
        self.push(format!("{name}.status"), status as u32);
        self.push(format!("{name}.detail"), e.detail);
        self.push(format!("{name}.offset"), e.offset);
    }
}

#[derive(Default)]
struct EventLog {
    count: u32,
    words: Vec<u32>,
}
impl EventLog {
    fn log(&mut self, frame: u32, events: &[PsxanimEvent], n: i32) {
        for e in events.iter().take(n.clamp(0, 4) as usize) {
            if (self.count as usize) < MAX_EVENTS {
                self.words.extend([frame, e.name_offset, e.frame as u32, e.index as u32]);
            }
            self.count += 1;
        }
    }
}

/// The words of main.c, in its order.
pub fn run(character_blob: &[u8], walk: &[u8]) -> Vec<Word> {
    let mut w = Words(Vec::new());
    let mut e = PsxanimError::default();
    let (mut anim, mut scratch_anim, mut controller) = (Storage::new(sizes::ANIMBIN), Storage::new(sizes::ANIMBIN), Storage::new(sizes::CONTROLLER));
    let (mut character, mut scratch_character) = (Storage::new(sizes::CHARACTER), Storage::new(sizes::CHARACTER));
    let (mut actor, mut unmade_actor, mut scratch) = (Storage::new(sizes::ACTOR), Storage::new(sizes::ACTOR), Storage::new(sizes::SCRATCH));
    let walk_words = aligned(walk);
    let walk_ptr = walk_words.as_ptr() as *const c_void;
    let walk_len = walk.len() as u32;
    let char_words = aligned(character_blob);
    let char_ptr = char_words.as_ptr() as *const c_void;
    let char_len = character_blob.len() as u32;
    let mut ot = vec![0u32; OT_ENTRIES];
    let mut packets = vec![0u32; PACKET_WORDS];
    // SAFETY: the storage and buffers above are the sizes the header states and outlive every call.
    unsafe {
        w.push("api_version", psxanim_capi::psxanim_api_version());
        let s = psxanim_animbin_load(scratch_anim.ptr(), walk_ptr, 40, BONES as u32, &mut e);
        w.error("animbin_truncated", s, &e);
        let mut bad = walk.to_vec();
        bad[7] = 2;
        let bad_words = aligned(&bad);
        let s = psxanim_animbin_load(scratch_anim.ptr(), bad_words.as_ptr() as _, walk_len, BONES as u32, &mut e);
        w.error("animbin_version", s, &e);
        let s = psxanim_animbin_load(anim.ptr(), walk_ptr, walk_len, BONES as u32, &mut e);
        w.error("animbin", s, &e);
        w.push("animbin.clips", psxanim_animbin_clip_count(anim.ptr()) as u32);
        w.push("animbin.walk", psxanim_animbin_find_clip(anim.ptr(), c"Walk".as_ptr()) as u32);

        let mut bad = character_blob.to_vec();
        let bones_at = u32::from_le_bytes(bad[40..44].try_into().unwrap()) as usize;
        bad[bones_at + 8] = 1;
        bad[bones_at + 9] = 0;
        let bad_words = aligned(&bad);
        let s = psxanim_character_load(scratch_character.ptr(), bad_words.as_ptr() as _, char_len, &mut e);
        w.error("character_damaged", s, &e);
        let s = psxanim_character_load(scratch_character.ptr(), (char_ptr as *const u8).add(2) as _, char_len - 2, &mut e);
        w.error("character_misaligned", s, &e);
        let s = psxanim_character_load(scratch_character.ptr(), std::ptr::null(), char_len, &mut e);
        w.error("character_null", s, &e);
        let s = psxanim_character_load(character.ptr(), char_ptr, char_len, &mut e);
        w.error("character", s, &e);
        let mut info = PsxanimCharacterInfo::default();
        w.push("character.info", psxanim_character_get_info(character.ptr(), &mut info) as u32);
        w.push("character.bones", info.bones);
        w.push("character.vertices", info.vertices);
        w.push("character.triangles", info.triangles);
        w.push("character.clips", info.clips);
        let walk_clip = psxanim_character_find_clip(character.ptr(), c"Walk".as_ptr());
        let idle = psxanim_character_find_clip(character.ptr(), c"Idle".as_ptr());
        let wave = psxanim_character_find_clip(character.ptr(), c"wave".as_ptr());
        w.push("clip.Walk", walk_clip as u32);
        w.push("clip.Idle", idle as u32);
        w.push("clip.wave", wave as u32);
        w.push("clip.Run", psxanim_character_find_clip(character.ptr(), c"Run".as_ptr()) as u32);
        w.push("unmade_actor.update", psxanim_actor_update(unmade_actor.ptr(), 1, null_mut(), 0) as u32);

        let s = psxanim_controller_init(controller.ptr(), PARENTS.as_ptr(), BIND.as_ptr(), BONES as u32, &mut e);
        w.error("controller_init", s, &e);
        let s = psxanim_controller_play(controller.ptr(), anim.ptr(), 0, 1, &mut e);
        w.error("controller_play", s, &e);
        let s = psxanim_controller_play(controller.ptr(), anim.ptr(), 3, 1, &mut e);
        w.error("controller_play_clip3", s, &e);
        w.push("actor_init", psxanim_actor_init(actor.ptr(), 60, 1) as u32);
        w.push("actor_place", psxanim_actor_place(actor.ptr(), 0, 0, 0, 0x2000) as u32);
        w.push("scratch_init", psxanim_scratch_init(scratch.ptr()) as u32);
        let s = psxanim_actor_play(actor.ptr(), character.ptr(), walk_clip as u32, 1, &mut e);
        w.error("actor_play", s, &e);
        let mut camera = PsxanimCamera {
            center_x: 160,
            center_y: 120,
            projection: 320,
            screen_w: 320,
            screen_h: 240,
            zsf3: 36,
            near_z: 1000,
            ..Default::default()
        };
        w.push("camera_orbit", psxanim_camera_orbit(&mut camera, 0, -3600, 0, 14000, 0, 0x0400) as u32);
        let sun = PsxanimLight { dx: -2365, dy: -2365, dz: -2365, r: 150, g: 140, b: 120, ..Default::default() };
        let mut lighting = PsxanimLighting { lights: [sun, PsxanimLight::default(), PsxanimLight::default()], ambient: [56, 56, 72], ..Default::default() };
        let s = psxanim_scratch_set_lighting(scratch.ptr(), &lighting, &camera, &mut e);
        w.error("lighting", s, &e);
        (lighting.fog, lighting.fog_colour, lighting.fog_near, lighting.fog_far) = (1, [16, 24, 64], 30_000, 31_000);
        let s = psxanim_scratch_set_lighting(scratch.ptr(), &lighting, &camera, &mut e);
        w.error("lighting_fog_too_narrow", s, &e);

        let (mut actor_events, mut controller_events) = (EventLog::default(), EventLog::default());
        let mut events = [PsxanimEvent::default(); 4];
        let mut bones = [PsxanimMatrix::default(); 64];
        let mut pose = [PsxanimMatrix::default(); BONES];
        for frame in 0..=FRAME_DONE {
            match frame {
                30 => drop(psxanim_actor_crossfade(actor.ptr(), character.ptr(), idle as u32, 1, 12, null_mut())),
                60 => drop(psxanim_actor_crossfade(actor.ptr(), character.ptr(), wave as u32, 0, 8, null_mut())),
                80 => drop(psxanim_actor_pause(actor.ptr(), 1)),
                84 => drop(psxanim_actor_pause(actor.ptr(), 0)),
                _ => {}
            }
            match frame {
                35 => drop(psxanim_controller_crossfade(controller.ptr(), anim.ptr(), 0, 1, 4, null_mut())),
                45 => drop(psxanim_controller_pause(controller.ptr(), 1)),
                50 => drop(psxanim_controller_pause(controller.ptr(), 0)),
                _ => {}
            }
            psxanim_ot_clear(ot.as_mut_ptr(), OT_ENTRIES as u32);
            let mut used = 0u32;
            let mut stats = PsxanimDrawStats::default();
            let drawn = psxanim_actor_draw(
                actor.ptr(),
                character.ptr(),
                &camera,
                scratch.ptr(),
                ot.as_mut_ptr(),
                OT_ENTRIES as u32,
                packets.as_mut_ptr(),
                PACKET_WORDS as u32,
                &mut used,
                &mut stats,
                &mut e,
            );
            let posed = psxanim_controller_pose(controller.ptr(), pose.as_mut_ptr(), BONES as u32, &mut e);
            if let Some(k) = MEASURED.iter().position(|&m| m == frame) {
                let at = |field: &str| format!("frame{}.{field}", MEASURED[k]);
                w.push(at("draw"), drawn as u32);
                w.push(at("drawn"), stats.drawn);
                w.push(at("back_facing"), stats.back_facing);
                w.push(at("rejected"), stats.rejected);
                w.push(at("culled"), stats.culled);
                w.push(at("packet_words"), used);
                w.push(at("packets_hash"), hash_packets(&packets, used as usize));
                let n = psxanim_scratch_bone_matrices(scratch.ptr(), bones.as_mut_ptr(), info.bones);
                w.push(at("bone_matrices"), n as u32);
                w.push(at("bone_matrices_hash"), hash_matrices(&bones[..n.max(0) as usize]));
                w.push(at("animbin_pose"), posed as u32);
                w.push(at("animbin_pose_hash"), hash_matrices(&pose[..posed.max(0) as usize]));
                let mut st = PsxanimPlayState::default();
                psxanim_actor_state(actor.ptr(), &mut st);
                w.push(at("actor.time"), st.time);
                w.push(at("actor.flags"), st.flags);
                psxanim_controller_state(controller.ptr(), &mut st);
                w.push(at("controller.time"), st.time);
                w.push(at("controller.flags"), st.flags);
            }
            let n = psxanim_actor_update(actor.ptr(), 1, events.as_mut_ptr(), 4);
            actor_events.log(frame, &events, n);
            let n = psxanim_controller_update(controller.ptr(), 1, events.as_mut_ptr(), 4);
            controller_events.log(frame, &events, n);
        }
        for (name, log) in [("actor_events", &actor_events), ("controller_events", &controller_events)] {
            w.push(format!("{name}.count"), log.count);
            for i in 0..MAX_EVENTS * 4 {
                let field = ["game_frame", "name_offset", "clip_frame", "index"][i % 4];
                w.push(format!("{name}.{}.{field}", i / 4), log.words.get(i).copied().unwrap_or(0));
            }
        }
    }
    w.0
}

fn assets(ws: &Path) -> Result<(Vec<u8>, Vec<u8>)> {
    let (character, walk) = crate::c_build::c_game_assets(ws);
    let c = std::fs::read(&character).with_context(|| format!("{} is missing: run `cargo xtask build-exe --example c-game` first", character.display()))?;
    let w = std::fs::read(&walk).with_context(|| format!("reading {}", walk.display()))?;
    Ok((c, w))
}

/// The record the scene must leave in the game `program` (c-game "CGAM", psyqo-game "QGAM").
pub fn expectation(ws: &Path, program: [u8; 4]) -> Result<Expectation> {
    let (character, walk) = assets(ws)?;
    Ok(Expectation { program, words: run(&character, &walk) })
}

/// The C game's costs, from its record (root counter 2 ticks, 8 CPU cycles each).
#[derive(Debug, Serialize)]
pub struct CGameCycles {
    /// Per measured frame: the character's draw (decode, pose, projection, triangles, packets) and the
    /// ANIMBIN controller's pose (sampling 6 bones, matrices), in CPU cycles.
    pub frames: Vec<(u32, f64, f64)>,
    /// The slowest of frames 10..=100.
    pub max_draw_cycles: f64,
    pub max_animbin_pose_cycles: f64,
}

fn cycles(view: &RecordView) -> Result<CGameCycles> {
    let cyc = |slot: usize| view.cycles(slot) as f64 * CYCLES_PER_TICK;
    let frames: Vec<(u32, f64, f64)> = MEASURED.iter().enumerate().map(|(k, &f)| (f, cyc(2 * k), cyc(2 * k + 1))).collect();
    anyhow::ensure!(frames.iter().all(|f| f.1 > 0.0 && f.2 > 0.0), "the record holds no cycles");
    Ok(CGameCycles { frames, max_draw_cycles: cyc(8), max_animbin_pose_cycles: cyc(9) })
}

/// The cycle figures as a check, written to `artifacts/cycles-EXAMPLE-EMULATOR.json`.
pub fn cycle_checks(example: &str, emulator: &str, view: Option<&RecordView>, artifacts: &Path) -> Vec<Check> {
    let result = (|| -> Result<String> {
        let figures = cycles(view.context("no record")?)?;
        let path = artifacts.join(format!("cycles-{example}-{emulator}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&figures)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        let each: Vec<String> = figures.frames.iter().map(|(f, d, p)| format!("frame {f}: draw {d:.0}, ANIMBIN pose {p:.0}")).collect();
        Ok(format!(
            "{}; slowest draw {:.0}, slowest ANIMBIN pose {:.0} cycles; {}",
            each.join("; "),
            figures.max_draw_cycles,
            figures.max_animbin_pose_cycles,
            path.display()
        ))
    })();
    match result {
        Ok(detail) => vec![Check::new("c_game.cycles", true, detail)],
        Err(e) => vec![Check::new("c_game.cycles", false, format!("{e:#}"))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent of the blob: the ANIMBIN half and the refusals, as the library documents them.
    #[test]
    fn the_c_game_expectation_shows_errors_with_offsets_and_the_scene_playing() {
        let ws = crate::workspace_root();
        let Ok((character, walk)) = assets(&ws) else {
            eprintln!("skipped: the character tables are generated by cargo xtask build-exe --example c-game");
            return;
        };
        let words = run(&character, &walk);
        let value = |name: &str| words.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("no {name}")).value;
        assert_eq!(value("animbin_truncated.status") as i32, psxanim_capi::status::ANIMBIN);
        assert_eq!((value("animbin_version.detail"), value("animbin_version.offset")), (3, 7));
        assert_eq!(value("character_damaged.status") as i32, psxanim_capi::status::CHARACTER);
        assert_eq!(value("character_misaligned.status") as i32, psxanim_capi::status::ALIGN);
        assert_eq!(value("unmade_actor.update") as i32, psxanim_capi::status::HANDLE);
        assert_eq!(value("controller_play_clip3.status") as i32, psxanim_capi::status::RANGE);
        for f in MEASURED {
            assert_eq!(value(&format!("frame{f}.culled")), 0, "frame {f}");
            assert!(value(&format!("frame{f}.drawn")) > 100, "frame {f}");
        }
        assert_eq!(value("frame36.actor.flags") & 2, 2, "the actor fades at frame 36");
        assert_eq!(value("frame36.controller.flags") & 2, 2, "the controller fades at frame 36");
        // The wave's two events and the ANIMBIN marker "hit" were reported.
        assert!(value("actor_events.count") >= 2);
        assert!(value("controller_events.count") >= 1);
        let at = value("controller_events.0.name_offset") as usize;
        assert_eq!(&walk[at..at + 3], b"hit");
    }
}
