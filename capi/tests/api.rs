//! The C API called as a C game calls it (the `extern "C"` functions, on the host's GTE model): every
//! entry point with null pointers, misaligned or unmade storage, out-of-range indices and damaged
//! files answers with a status, never a panic; and the happy paths agree with the runtime's Rust API.
use core::ffi::c_void;
use psxanim_capi::animbin::*;
use psxanim_capi::character::*;
use psxanim_capi::{
    sizes, status, PsxanimBind, PsxanimCamera, PsxanimDrawStats, PsxanimError, PsxanimEvent, PsxanimLight, PsxanimLighting, PsxanimMatrix, PsxanimPlayState,
};
use std::ptr::{null, null_mut};

#[path = "../../runtime/tests/render_support/mod.rs"]
mod render_support;

/// Caller storage of `bytes` bytes, 8-aligned (any C object's alignment on the host).
struct Storage(Vec<u64>);
impl Storage {
    fn new(bytes: usize) -> Self {
        Storage(vec![0xA5A5_A5A5_A5A5_A5A5; bytes / 8 + 1])
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr() as *mut c_void
    }
}

fn walk() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/formats/walk.animbin")).unwrap()
}

/// Six bones in a chain (walk.animbin animates joints 0 and 5).
fn skeleton() -> ([u8; 6], [PsxanimBind; 6]) {
    let parents = [0xFF, 0, 1, 2, 3, 4];
    let bind = [PsxanimBind { rotation: [4096, 0, 0, 0], translation: [0, 4096, 0] }; 6];
    (parents, bind)
}

fn err() -> PsxanimError {
    PsxanimError { status: 99, detail: 99, offset: 99 }
}

#[test]
fn animbin_loads_plays_crossfades_and_reports_markers() {
    let file = walk();
    let mut a = Storage::new(sizes::ANIMBIN);
    let mut e = err();
    unsafe {
        assert_eq!(psxanim_animbin_load(a.ptr(), file.as_ptr() as _, file.len() as u32, 6, &mut e), status::OK);
        assert_eq!(e, PsxanimError::default());
        assert_eq!(psxanim_animbin_clip_count(a.ptr()), 1);
        assert_eq!(psxanim_animbin_find_clip(a.ptr(), c"Walk".as_ptr()), 0);
        assert_eq!(psxanim_animbin_find_clip(a.ptr(), c"Run".as_ptr()), status::NOT_FOUND);
        let (parents, bind) = skeleton();
        let mut c = Storage::new(sizes::CONTROLLER);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 6, &mut e), status::OK);
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 0, 1, &mut e), status::OK);
        let mut events = [PsxanimEvent::default(); 4];
        let mut seen = Vec::new();
        for _ in 0..3 {
            let n = psxanim_controller_update(c.ptr(), 1, events.as_mut_ptr(), 4);
            assert!(n >= 0);
            seen.extend_from_slice(&events[..n as usize]);
        }
        // Marker "hit" at frame 2, its name inside the file.
        assert_eq!(seen.len(), 1, "{seen:?}");
        let hit = seen[0];
        assert_eq!((hit.frame, hit.index), (2, 0));
        assert_eq!(&file[hit.name_offset as usize..][..hit.name_len as usize], b"hit");
        let mut m = [PsxanimMatrix::default(); 8];
        assert_eq!(psxanim_controller_pose(c.ptr(), m.as_mut_ptr(), 8, &mut e), 6);
        assert!(m[..6].iter().all(|m| m.pad == 0));
        assert_eq!(m[6], PsxanimMatrix::default(), "only the skeleton's bones are written");
        // A crossfade into the same clip, paused: the clock stands still.
        assert_eq!(psxanim_controller_crossfade(c.ptr(), a.ptr(), 0, 0, 2, &mut e), status::OK);
        let mut st = PsxanimPlayState::default();
        assert_eq!(psxanim_controller_state(c.ptr(), &mut st), status::OK);
        assert_eq!(st.flags & 3, 3, "playing and fading: {st:?}");
        assert_eq!(psxanim_controller_pause(c.ptr(), 1), status::OK);
        assert_eq!(psxanim_controller_update(c.ptr(), 5, null_mut(), 0), 0);
        let mut st2 = PsxanimPlayState::default();
        psxanim_controller_state(c.ptr(), &mut st2);
        assert_eq!(st2.time, st.time);
        assert_eq!(psxanim_controller_pause(c.ptr(), 0), status::OK);
        assert_eq!(psxanim_controller_update(c.ptr(), 1, null_mut(), 0), 0);
        psxanim_controller_state(c.ptr(), &mut st2);
        assert_eq!(st2.time, st.time + 4096);
        // Events beyond the capacity are counted, not written.
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 0, 1, &mut e), status::OK);
        assert_eq!(psxanim_controller_update(c.ptr(), 3, null_mut(), 0), 1);
        assert_eq!(psxanim_controller_set_rates(c.ptr(), 60, 50), status::OK);
        assert_eq!(psxanim_controller_set_rates(c.ptr(), 60, 0), status::RANGE);
    }
}

/// The controller's matrices are the runtime's SkeletonController's, bit for bit.
#[test]
fn controller_pose_is_the_runtime_pose() {
    use psxanim_runtime::anim::{LocalTransform, Skeleton, SkeletonController};
    use psxanim_runtime::animbin::AnimationManager;
    use psxanim_runtime::gte::{Gte, GteModel};
    use psxanim_runtime::math::{Matrix, Quat, Vec3i32};
    let file = walk();
    let (parents, bind) = skeleton();
    let locals: Vec<LocalTransform> =
        bind.iter().map(|b| LocalTransform::new(Quat { w: 4096, x: 0, y: 0, z: 0 }, Vec3i32::new(b.translation[0], b.translation[1], b.translation[2]))).collect();
    let manager = <AnimationManager>::parse(&file, 6).unwrap();
    let mut rust = SkeletonController::<32>::new(Skeleton::new(&parents, &locals).unwrap()).unwrap();
    rust.play(manager.clip(0).unwrap(), true).unwrap();
    let mut gte = Gte::with_backend(GteModel::default());
    let (mut a, mut c) = (Storage::new(sizes::ANIMBIN), Storage::new(sizes::CONTROLLER));
    unsafe {
        assert_eq!(psxanim_animbin_load(a.ptr(), file.as_ptr() as _, file.len() as u32, 6, null_mut()), 0);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 6, null_mut()), 0);
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 0, 1, null_mut()), 0);
        for _ in 0..5 {
            let mut want = [Matrix::IDENTITY; 6];
            rust.evaluate(&mut gte, &mut want);
            let mut got = [PsxanimMatrix::default(); 6];
            assert_eq!(psxanim_controller_pose(c.ptr(), got.as_mut_ptr(), 6, null_mut()), 6);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(*g, PsxanimMatrix::from(w));
            }
            rust.advance(1);
            psxanim_controller_update(c.ptr(), 1, null_mut(), 0);
        }
    }
}

#[test]
fn every_damaged_animbin_is_an_error_with_an_offset() {
    let file = walk();
    let mut a = Storage::new(sizes::ANIMBIN);
    for len in 0..file.len() {
        let mut e = err();
        let s = unsafe { psxanim_animbin_load(a.ptr(), file.as_ptr() as _, len as u32, 6, &mut e) };
        assert_eq!(s, status::ANIMBIN, "prefix {len}");
        assert_eq!(e.status, s);
        assert_eq!(e.detail, 1, "truncated, prefix {len}");
        assert!((e.offset as usize) <= len, "prefix {len}: offset {}", e.offset);
        // A failed load leaves no handle.
        assert_eq!(unsafe { psxanim_animbin_clip_count(a.ptr()) }, status::HANDLE);
    }
    // Every single byte flipped: an error with an offset inside the file, or a valid file.
    for at in 0..file.len() {
        let mut bad = file.clone();
        bad[at] ^= 0xFF;
        let mut e = err();
        let s = unsafe { psxanim_animbin_load(a.ptr(), bad.as_ptr() as _, bad.len() as u32, 6, &mut e) };
        assert!(s == status::OK || (s == status::ANIMBIN && (e.offset as usize) < bad.len()), "byte {at}: {s} {e:?}");
    }
    let mut bad = file.clone();
    bad[7] = 2;
    let mut e = err();
    assert_eq!(unsafe { psxanim_animbin_load(a.ptr(), bad.as_ptr() as _, bad.len() as u32, 6, &mut e) }, status::ANIMBIN);
    assert_eq!((e.detail, e.offset), (3, 7), "unsupported version at byte 7");
    // Joint 5 on a 5-bone skeleton.
    assert_eq!(unsafe { psxanim_animbin_load(a.ptr(), file.as_ptr() as _, file.len() as u32, 5, &mut e) }, status::ANIMBIN);
    assert_eq!(e.detail, 10);
    assert_eq!(unsafe { psxanim_animbin_load(a.ptr(), file.as_ptr() as _, file.len() as u32, 33, &mut e) }, status::RANGE);
}

#[test]
fn null_misaligned_and_unmade_handles_are_refused() {
    let file = walk();
    let mut a = Storage::new(sizes::ANIMBIN);
    let mut c = Storage::new(sizes::CONTROLLER);
    let (parents, bind) = skeleton();
    let mut e = err();
    unsafe {
        assert_eq!(psxanim_animbin_load(null_mut(), file.as_ptr() as _, 10, 6, &mut e), status::NULL);
        assert_eq!(e.status, status::NULL);
        assert_eq!(psxanim_animbin_load(a.ptr(), null(), 10, 6, null_mut()), status::NULL);
        let odd = (a.ptr() as *mut u8).add(1) as *mut c_void;
        assert_eq!(psxanim_animbin_load(odd, file.as_ptr() as _, file.len() as u32, 6, null_mut()), status::ALIGN);
        // A misaligned error pointer is not written.
        let mut words = [0u32; 4];
        let bad_err = (words.as_mut_ptr() as *mut u8).add(1) as *mut PsxanimError;
        assert_eq!(psxanim_animbin_load(a.ptr(), null(), 10, 6, bad_err), status::NULL);
        assert_eq!(words, [0; 4]);
        // Storage never made by _load/_init.
        assert_eq!(psxanim_animbin_clip_count(a.ptr()), status::HANDLE);
        assert_eq!(psxanim_animbin_find_clip(null(), c"Walk".as_ptr()), status::NULL);
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 0, 1, &mut e), status::HANDLE);
        assert_eq!(psxanim_controller_update(c.ptr(), 1, null_mut(), 0), status::HANDLE);
        assert_eq!(psxanim_controller_pose(c.ptr(), null_mut(), 0, null_mut()), status::HANDLE);
        assert_eq!(psxanim_controller_init(c.ptr(), null(), bind.as_ptr(), 6, null_mut()), status::NULL);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 0, null_mut()), status::RANGE);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 33, null_mut()), status::RANGE);
        let bad_parents = [0xFF, 2, 0, 0, 0, 0];
        assert_eq!(psxanim_controller_init(c.ptr(), bad_parents.as_ptr(), bind.as_ptr(), 6, &mut e), status::SKELETON);
        assert_eq!(e.detail, 1);
        let mut bad_bind = bind;
        bad_bind[3].rotation = [100, 0, 0, 0];
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bad_bind.as_ptr(), 6, &mut e), status::SKELETON);
        assert_eq!(e.detail, 3);
        // A clip with joints past the skeleton; a clip index past the file.
        assert_eq!(psxanim_animbin_load(a.ptr(), file.as_ptr() as _, file.len() as u32, 6, null_mut()), 0);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 3, null_mut()), 0);
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 0, 1, &mut e), status::PLAY);
        assert_eq!(psxanim_controller_init(c.ptr(), parents.as_ptr(), bind.as_ptr(), 6, null_mut()), 0);
        assert_eq!(psxanim_controller_play(c.ptr(), a.ptr(), 1, 1, &mut e), status::RANGE);
        assert_eq!(e.detail, 1);
        assert_eq!(psxanim_controller_crossfade(c.ptr(), a.ptr(), 0, 1, 70_000, &mut e), status::RANGE);
        assert_eq!(psxanim_controller_update(c.ptr(), 1, null_mut(), 3), status::NULL);
        assert_eq!(psxanim_controller_pose(c.ptr(), null_mut(), 6, null_mut()), status::NULL);
        // Handles of the other kind are not handles of this kind.
        assert_eq!(psxanim_controller_play(a.ptr(), c.ptr(), 0, 1, null_mut()), status::HANDLE);

        let mut ch = Storage::new(sizes::CHARACTER);
        let mut actor = Storage::new(sizes::ACTOR);
        let mut s = Storage::new(sizes::SCRATCH);
        assert_eq!(psxanim_character_load(ch.ptr(), null(), 0, null_mut()), status::NULL);
        assert_eq!(psxanim_character_find_clip(ch.ptr(), c"b".as_ptr()), status::HANDLE);
        assert_eq!(psxanim_actor_init(actor.ptr(), 0, 0), status::RANGE);
        assert_eq!(psxanim_actor_play(actor.ptr(), ch.ptr(), 0, 1, null_mut()), status::HANDLE);
        assert_eq!(psxanim_actor_update(actor.ptr(), 1, null_mut(), 0), status::HANDLE);
        assert_eq!(psxanim_scratch_bone_matrices(s.ptr(), null_mut(), 0), status::HANDLE);
        let mut ot = [0u32; 8];
        let mut packets = [0u32; 64];
        let mut used = 0u32;
        let cam = PsxanimCamera::default();
        let draw = |a: *mut c_void, ch: *mut c_void, cam: *const PsxanimCamera, s: *mut c_void, ot: *mut u32, used: *mut u32| {
            psxanim_actor_draw(a, ch, cam, s, ot, 8, packets.as_ptr() as *mut u32, 64, used, null_mut(), null_mut())
        };
        assert_eq!(draw(actor.ptr(), ch.ptr(), &cam, s.ptr(), ot.as_mut_ptr(), &mut used), status::HANDLE);
        assert_eq!(psxanim_ot_clear(null_mut(), 8), status::NULL);
        assert!(psxanim_ot_head(null(), 8).is_null());
        assert!(psxanim_ot_head(ot.as_ptr(), 0).is_null());
        assert_eq!(psxanim_ot_clear(ot.as_mut_ptr(), 8), 0);
        let _ = &mut packets;
    }
}

fn character_blob() -> Vec<u8> {
    use render_support::{two_squares_blob, RigidClip};
    two_squares_blob(&[
        RigidClip { frames: 8, poses: vec![(0.0, [0, 0, 0]), (30.0, [0, -1000, 0])] },
        RigidClip { frames: 4, poses: vec![(20.0, [100, 0, 0]), (-30.0, [0, -1000, 0])] },
    ])
}

/// A blob in 4-aligned memory.
fn aligned(bytes: &[u8]) -> Vec<u32> {
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    bytemuck_copy(&mut words, bytes);
    words
}

fn bytemuck_copy(words: &mut [u32], bytes: &[u8]) {
    for (i, b) in bytes.iter().enumerate() {
        words[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
}

/// A character's, an actor's and a scratch's storage, unmade.
fn drawing_storage() -> (Storage, Storage, Storage) {
    (Storage::new(sizes::CHARACTER), Storage::new(sizes::ACTOR), Storage::new(sizes::SCRATCH))
}

/// A 320 x 240 screen, H 300, near depth 100 (the view matrix still to set).
fn screen_camera() -> PsxanimCamera {
    PsxanimCamera { center_x: 160, center_y: 120, projection: 300, screen_w: 320, screen_h: 240, zsf3: 10, near_z: 100, ..Default::default() }
}

#[test]
fn a_character_plays_crossfades_and_draws_into_the_games_ordering_table() {
    let blob = character_blob();
    let words = aligned(&blob);
    let (mut ch, mut actor, mut s) = drawing_storage();
    let mut e = err();
    let mut ot = [0u32; 16];
    let mut packets = [0u32; 256];
    let mut used = 3u32;
    let mut stats = PsxanimDrawStats::default();
    let mut cam = screen_camera();
    unsafe {
        assert_eq!(psxanim_character_load(ch.ptr(), words.as_ptr() as _, blob.len() as u32, &mut e), status::OK);
        let mut info = psxanim_capi::PsxanimCharacterInfo::default();
        assert_eq!(psxanim_character_get_info(ch.ptr(), &mut info), 0);
        assert_eq!((info.bones, info.vertices, info.clips, info.storage), (2, 8, 2, 0));
        assert_eq!(psxanim_character_find_clip(ch.ptr(), c"zz".as_ptr()), status::NOT_FOUND);
        assert_eq!(psxanim_camera_orbit(&mut cam, 0, 0, 0, 8000, 0, 0), 0);
        assert_eq!(psxanim_actor_init(actor.ptr(), 60, 1), 0);
        assert_eq!(psxanim_scratch_init(s.ptr()), 0);
        assert_eq!(psxanim_ot_clear(ot.as_mut_ptr(), 16), 0);
        // Nothing played yet: culled, nothing written.
        let draw = |actor: &mut Storage, ch: &mut Storage, s: &mut Storage, ot: &mut [u32; 16], packets: &mut [u32; 256], used: &mut u32, stats: &mut PsxanimDrawStats, e: &mut PsxanimError| {
            psxanim_actor_draw(actor.ptr(), ch.ptr(), &cam, s.ptr(), ot.as_mut_ptr(), 16, packets.as_mut_ptr(), 256, used, stats, e)
        };
        assert_eq!(draw(&mut actor, &mut ch, &mut s, &mut ot, &mut packets, &mut used, &mut stats, &mut e), 0);
        assert_eq!((stats.culled, used), (1, 3));
        assert_eq!(psxanim_actor_play(actor.ptr(), ch.ptr(), 0, 1, &mut e), 0);
        assert_eq!(psxanim_actor_update(actor.ptr(), 2, null_mut(), 0), 0);
        assert_eq!(draw(&mut actor, &mut ch, &mut s, &mut ot, &mut packets, &mut used, &mut stats, &mut e), 0);
        assert_eq!(stats.culled, 0);
        assert!(stats.drawn >= 2, "{stats:?}");
        assert!(used > 3, "packets written after the words already used");
        assert_eq!(ot[0], 0x00FF_FFFF, "entry 0 still ends the list");
        let mut m = [PsxanimMatrix::default(); 4];
        assert_eq!(psxanim_scratch_bone_matrices(s.ptr(), m.as_mut_ptr(), 4), 4);
        assert_ne!(m[0], m[1]);
        // Crossfade, pause, resume.
        assert_eq!(psxanim_actor_crossfade(actor.ptr(), ch.ptr(), 1, 1, 4, &mut e), 0);
        let mut st = PsxanimPlayState::default();
        psxanim_actor_state(actor.ptr(), &mut st);
        assert_eq!(st.flags & 3, 3);
        assert_eq!(psxanim_actor_pause(actor.ptr(), 1), 0);
        psxanim_actor_update(actor.ptr(), 9, null_mut(), 0);
        let mut st2 = PsxanimPlayState::default();
        psxanim_actor_state(actor.ptr(), &mut st2);
        assert_eq!((st2.time, st2.flags & 8), (st.time, 8));
        psxanim_actor_pause(actor.ptr(), 0);
        used = 0;
        psxanim_ot_clear(ot.as_mut_ptr(), 16);
        assert_eq!(draw(&mut actor, &mut ch, &mut s, &mut ot, &mut packets, &mut used, &mut stats, &mut e), 0);
        assert!(stats.drawn >= 2);
        // A packet buffer already full: the triangles are rejected, nothing is overrun.
        used = 256;
        assert_eq!(draw(&mut actor, &mut ch, &mut s, &mut ot, &mut packets, &mut used, &mut stats, &mut e), 0);
        assert_eq!((stats.drawn, used), (0, 256));
        used = 257;
        assert_eq!(draw(&mut actor, &mut ch, &mut s, &mut ot, &mut packets, &mut used, &mut stats, &mut e), status::RANGE);
        assert_eq!(psxanim_actor_play(actor.ptr(), ch.ptr(), 2, 1, &mut e), status::RANGE);
        assert_eq!(e.detail, 2);
    }
}

#[test]
fn every_damaged_character_is_an_error_or_draws_safely() {
    let blob = character_blob();
    let (mut ch, mut actor, mut s) = drawing_storage();
    let mut ot = [0u32; 16];
    let mut packets = [0u32; 256];
    let cam = PsxanimCamera {
        view: PsxanimMatrix { m: [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], pad: 0, t: [0, 0, 8000] },
        center_x: 160,
        center_y: 120,
        projection: 300,
        screen_w: 320,
        screen_h: 240,
        zsf3: 10,
        near_z: 100,
        reserved: 0,
    };
    let odd = aligned(&blob);
    let odd_ptr = unsafe { (odd.as_ptr() as *const u8).add(1) };
    assert_eq!(unsafe { psxanim_character_load(ch.ptr(), odd_ptr as _, 8, null_mut()) }, status::ALIGN);
    let mut cases: Vec<Vec<u8>> = (0..blob.len()).map(|n| blob[..n].to_vec()).collect();
    for at in 0..blob.len() {
        let mut bad = blob.clone();
        bad[at] ^= 0x5A;
        cases.push(bad);
    }
    for bad in cases {
        let words = aligned(&bad);
        let mut e = err();
        let s_ = unsafe { psxanim_character_load(ch.ptr(), words.as_ptr() as _, bad.len() as u32, &mut e) };
        if s_ != status::OK {
            assert_eq!(s_, status::CHARACTER);
            assert!(e.detail > 0, "{e:?}");
            continue;
        }
        unsafe {
            assert_eq!(psxanim_actor_init(actor.ptr(), 60, 1), 0);
            assert_eq!(psxanim_scratch_init(s.ptr()), 0);
            psxanim_ot_clear(ot.as_mut_ptr(), 16);
            let mut used = 0;
            let clips = { let mut i = psxanim_capi::PsxanimCharacterInfo::default(); psxanim_character_get_info(ch.ptr(), &mut i); i.clips };
            for clip in 0..clips {
                if psxanim_actor_crossfade(actor.ptr(), ch.ptr(), clip, 1, 2, null_mut()) == 0 {
                    psxanim_actor_update(actor.ptr(), 1, null_mut(), 0);
                    let r = psxanim_actor_draw(actor.ptr(), ch.ptr(), &cam, s.ptr(), ot.as_mut_ptr(), 16, packets.as_mut_ptr(), 256, &mut used, null_mut(), &mut e);
                    assert!(r == 0 || r == status::RENDER, "{r}");
                    assert!(used <= 256);
                }
            }
        }
    }
}

/// The header's sizes and constants are the library's.
#[test]
fn header_matches_the_rust_side() {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/psxanim.h")).unwrap();
    let define = |name: &str| -> i64 {
        let line = header
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name) && l.starts_with("#define"))
            .unwrap_or_else(|| panic!("no #define {name}"));
        let value = line.split_whitespace().nth(2).unwrap().trim_matches(|c| c == '(' || c == ')');
        value.parse().unwrap_or_else(|_| panic!("{name}: {value}"))
    };
    for (name, value) in [
        ("PSXANIM_ANIMBIN_SIZE", sizes::psx::ANIMBIN),
        ("PSXANIM_CONTROLLER_SIZE", sizes::psx::CONTROLLER),
        ("PSXANIM_CHARACTER_SIZE", sizes::psx::CHARACTER),
        ("PSXANIM_ACTOR_SIZE", sizes::psx::ACTOR),
        ("PSXANIM_SCRATCH_SIZE", sizes::psx::SCRATCH),
        ("PSXANIM_CONTROLLER_MAX_BONES", MAX_BONES),
        ("PSXANIM_ACTOR_STREAM_WORDS", STREAM_WORDS),
        ("PSXANIM_SCRATCH_VERTICES", SCRATCH_VERTICES),
        ("PSXANIM_MAX_BONES", psxanim_runtime::render::MAX_BONES),
    ] {
        assert_eq!(define(name) as usize, value, "{name}");
        if name.ends_with("_SIZE") {
            assert_eq!(value % 4, 0, "{name} is a whole number of words");
        }
    }
    assert_eq!(define("PSXANIM_API_VERSION") as u32, sizes::API_VERSION);
    for (name, value) in [
        ("PSXANIM_OK", status::OK),
        ("PSXANIM_E_NULL", status::NULL),
        ("PSXANIM_E_ALIGN", status::ALIGN),
        ("PSXANIM_E_HANDLE", status::HANDLE),
        ("PSXANIM_E_ANIMBIN", status::ANIMBIN),
        ("PSXANIM_E_CHARACTER", status::CHARACTER),
        ("PSXANIM_E_RANGE", status::RANGE),
        ("PSXANIM_E_SKELETON", status::SKELETON),
        ("PSXANIM_E_PLAY", status::PLAY),
        ("PSXANIM_E_RENDER", status::RENDER),
        ("PSXANIM_E_NOT_FOUND", status::NOT_FOUND),
    ] {
        assert_eq!(define(name) as i32, value, "{name}");
    }
    // The structures the header lays out (its _Static_asserts state the same numbers).
    for (name, size) in [
        ("psxanim_error", 12),
        ("psxanim_matrix", 32),
        ("psxanim_bind", 20),
        ("psxanim_event", 12),
        ("psxanim_camera", 48),
        ("psxanim_light", 12),
        ("psxanim_lighting", 48),
        ("psxanim_draw_stats", 16),
        ("psxanim_play_state", 8),
        ("psxanim_character_info", 24),
    ] {
        assert!(header.contains(&format!("sizeof({name}) == {size},")), "{name}: {size}");
    }
    use std::mem::size_of;
    assert_eq!(
        [
            size_of::<PsxanimError>(),
            size_of::<PsxanimMatrix>(),
            size_of::<PsxanimBind>(),
            size_of::<PsxanimEvent>(),
            size_of::<PsxanimCamera>(),
            size_of::<PsxanimLight>(),
            size_of::<PsxanimLighting>()
        ],
        [12, 32, 20, 12, 48, 12, 48]
    );
    // Every function the library exports is declared, and every declared function exported.
    let lib: String = ["lib.rs", "animbin.rs", "character.rs"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{}/src/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap())
        .collect();
    let exported: Vec<&str> = lib
        .split("extern \"C\" fn ")
        .skip(1)
        .map(|s| s.split('(').next().unwrap())
        .filter(|n| n.starts_with("psxanim_"))
        .collect();
    assert!(exported.len() > 25, "{exported:?}");
    for f in &exported {
        assert!(header.contains(&format!(" {f}(")) || header.contains(&format!("*{f}(")), "{f} is not declared in psxanim.h");
    }
    for line in header.lines().filter(|l| l.contains(" psxanim_") && l.trim_end().ends_with(',') || l.ends_with(");")) {
        if let Some(name) = line.split('(').next().and_then(|s| s.split_whitespace().last()) {
            let name = name.trim_start_matches('*');
            if name.starts_with("psxanim_") && name != "psxanim_panic" {
                assert!(exported.contains(&name), "{name} declared but not exported");
            }
        }
    }
}

/// The header compiles as C99 and as C++20 with every warning an error (host compilers, and the
/// console's when Debian's mipsel cross compiler is installed).
#[test]
fn header_compiles_as_c99_and_cxx20() {
    let dir = std::env::temp_dir().join(format!("psxanim-capi-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("use.c");
    std::fs::write(&src, "#include \"psxanim.h\"\nint main(void) { psxanim_error e; psxanim_animbin a; return (int)psxanim_animbin_load(&a, 0, 0, 0, &e); }\n").unwrap();
    let include = concat!(env!("CARGO_MANIFEST_DIR"), "/include");
    let run = |compiler: &str, args: &[&str], required: bool| {
        let out = std::process::Command::new(compiler).args(args).arg("-I").arg(include).arg("-fsyntax-only").arg(&src).output();
        match out {
            Ok(o) => assert!(o.status.success(), "{compiler} {args:?}: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => assert!(!required, "{compiler}: {e}"),
        }
    };
    run("cc", &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"], true);
    run("c++", &["-x", "c++", "-std=c++20", "-Wall", "-Wextra", "-Werror", "-pedantic"], true);
    let psx = ["-ffreestanding", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-march=r3000", "-EL", "-msoft-float", "-mno-abicalls", "-fno-pic", "-G0"];
    run("mipsel-linux-gnu-gcc", &psx, false);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lighting a scratch: a fog the GTE cannot hold is refused with why (the lighting unchanged), a
/// null lighting turns it off; a character without normals draws the same packets lit or not.
#[test]
fn lighting_is_set_checked_and_leaves_a_character_without_normals_unlit() {
    let blob = character_blob();
    let words = aligned(&blob);
    let (mut ch, mut actor, mut s) = drawing_storage();
    let mut e = err();
    let mut cam = screen_camera();
    let sun = PsxanimLight { dx: -2365, dy: -2365, dz: -2365, r: 150, g: 140, b: 120, ..Default::default() };
    let mut lighting = PsxanimLighting { lights: [sun, PsxanimLight::default(), PsxanimLight::default()], ambient: [56, 56, 72], ..Default::default() };
    unsafe {
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), &lighting, &cam, &mut e), status::HANDLE);
        assert_eq!(psxanim_scratch_init(s.ptr()), 0);
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), &lighting, null(), &mut e), status::OK, "no fog: no camera needed");
        lighting.fog = 1;
        lighting.fog_colour = [16, 24, 64];
        for ((near, far, h), detail) in [((3000, 1000, 300), 1), ((0, 1000, 300), 1), ((1000, 3000, 0), 2), ((30_000, 31_000, 320), 3)] {
            (lighting.fog_near, lighting.fog_far, cam.projection) = (near, far, h);
            assert_eq!(psxanim_scratch_set_lighting(s.ptr(), &lighting, &cam, &mut e), status::RANGE);
            assert_eq!(e.detail, detail, "fog {near}..{far} at H {h}");
        }
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), &lighting, null(), &mut e), status::NULL, "fog needs the camera's H");
        (lighting.fog_near, lighting.fog_far, cam.projection) = (1000, 30_000, 300);
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), &lighting, &cam, &mut e), status::OK);
        let odd = (&mut [0u32; 13] as *mut [u32; 13] as *mut u8).add(1) as *const PsxanimLighting;
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), odd, &cam, &mut e), status::ALIGN);
        // The two squares have no normals: lit or unlit, the same packets.
        assert_eq!(psxanim_character_load(ch.ptr(), words.as_ptr() as _, blob.len() as u32, &mut e), status::OK);
        assert_eq!(psxanim_camera_orbit(&mut cam, 0, 0, 0, 8000, 0, 0), 0);
        assert_eq!(psxanim_actor_init(actor.ptr(), 60, 1), 0);
        assert_eq!(psxanim_actor_play(actor.ptr(), ch.ptr(), 0, 1, &mut e), 0);
        let mut draw = |s: &mut Storage| {
            let (mut ot, mut packets, mut used, mut stats) = ([0u32; 16], [0u32; 256], 0u32, PsxanimDrawStats::default());
            psxanim_ot_clear(ot.as_mut_ptr(), 16);
            let r = psxanim_actor_draw(actor.ptr(), ch.ptr(), &cam, s.ptr(), ot.as_mut_ptr(), 16, packets.as_mut_ptr(), 256, &mut used, &mut stats, null_mut());
            assert_eq!(r, 0);
            assert!(stats.drawn >= 2, "{stats:?}");
            packets[..used as usize].to_vec()
        };
        let lit = draw(&mut s);
        assert_eq!(psxanim_scratch_set_lighting(s.ptr(), null(), null(), &mut e), status::OK);
        assert_eq!(draw(&mut s), lit);
    }
}
