//! ANIMBIN files and the skeleton controller that plays them: `psxanim_animbin_*`,
//! `psxanim_controller_*`.
//!
//! A `psxanim_animbin` is the runtime's `AnimationManager` (the original capacity profile: 5 clips,
//! 50 tracks a clip, 30 keys a track, 5 markers a clip) over the game's file bytes. A
//! `psxanim_controller` is a `SkeletonController` of up to [`MAX_BONES`] bones together with the
//! skeleton the game gave it (copied into the controller's storage, which the controller points
//! into: never copy or move one). Time, wrap, crossfade weight and markers follow
//! `psxanim_runtime::anim::player`; a paused controller's updates do nothing.
use crate::types::play_flags;
use crate::{fail, ok, status, storage, with_gte, PsxanimBind, PsxanimError, PsxanimEvent, PsxanimMatrix, PsxanimPlayState};
use core::ffi::{c_char, c_void};
use psxanim_runtime::anim::{LocalTransform, MarkerEvent, PlayError, Skeleton, SkeletonController, SkeletonError, TimeScale, ROOT};
use psxanim_runtime::animbin::{AnimationManager, NAME_BYTES};
use psxanim_runtime::math::{Matrix, Quat, Vec3i32};

/// Bones a controller holds (`PSXANIM_CONTROLLER_MAX_BONES`).
pub const MAX_BONES: usize = 32;

const ANIMBIN_MAGIC: u32 = u32::from_le_bytes(*b"pxAB");
const CONTROLLER_MAGIC: u32 = u32::from_le_bytes(*b"pxSC");

/// The storage of a `psxanim_animbin`.
#[repr(C)]
pub struct Animbin {
    magic: u32,
    /// The file's first byte (event names are given as offsets from it).
    file: *const u8,
    manager: AnimationManager<'static>,
}

/// The storage of a `psxanim_controller`.
#[repr(C)]
pub struct Controller {
    magic: u32,
    paused: u32,
    /// Start of the file whose clip plays (event names are given as offsets in it).
    file: *const u8,
    parents: [u8; MAX_BONES],
    bind: [LocalTransform; MAX_BONES],
    /// Borrows `parents` and `bind` above and the playing clips' `Animbin`s.
    controller: SkeletonController<'static, MAX_BONES>,
}

unsafe fn animbin<'a>(a: *const c_void) -> Result<&'a Animbin, i32> {
    let a: &Animbin = storage(a as *mut c_void)?;
    if a.magic == ANIMBIN_MAGIC {
        Ok(a)
    } else {
        Err(status::HANDLE)
    }
}

unsafe fn controller<'a>(c: *mut c_void) -> Result<&'a mut Controller, i32> {
    let c: &mut Controller = storage(c)?;
    if c.magic == CONTROLLER_MAGIC {
        Ok(c)
    } else {
        Err(status::HANDLE)
    }
}

/// Validates `len` bytes at `bytes` as an ANIMBIN file for a skeleton of `bone_count` bones and makes
/// `out` its handle. The bytes stay the game's and must outlive the handle.
#[no_mangle]
pub unsafe extern "C" fn psxanim_animbin_load(
    out: *mut c_void,
    bytes: *const c_void,
    len: u32,
    bone_count: u32,
    err: *mut PsxanimError,
) -> i32 {
    let out: &mut Animbin = match storage(out) {
        Ok(o) => o,
        Err(s) => return fail(err, s, 0, 0),
    };
    // A failed load leaves no usable handle behind.
    core::ptr::addr_of_mut!(out.magic).write(0);
    if bytes.is_null() {
        return fail(err, status::NULL, 0, 0);
    }
    if bone_count as usize > MAX_BONES {
        return fail(err, status::RANGE, MAX_BONES as u32, 0);
    }
    let file: &'static [u8] = core::slice::from_raw_parts(bytes as *const u8, len as usize);
    match AnimationManager::parse(file, bone_count as usize) {
        Ok(manager) => {
            core::ptr::addr_of_mut!(out.manager).write(manager);
            core::ptr::addr_of_mut!(out.file).write(file.as_ptr());
            out.magic = ANIMBIN_MAGIC;
            ok(err)
        }
        Err(e) => fail(err, status::ANIMBIN, e.code(), e.offset),
    }
}

/// Clips in the file, or a negative status.
#[no_mangle]
pub unsafe extern "C" fn psxanim_animbin_clip_count(a: *const c_void) -> i32 {
    match animbin(a) {
        Ok(a) => a.manager.len() as i32,
        Err(s) => s,
    }
}

/// The index of the clip named `name` (NUL-terminated, at most 32 bytes), or a negative status
/// (`PSXANIM_E_NOT_FOUND`).
#[no_mangle]
pub unsafe extern "C" fn psxanim_animbin_find_clip(a: *const c_void, name: *const c_char) -> i32 {
    let a = match animbin(a) {
        Ok(a) => a,
        Err(s) => return s,
    };
    let Some(name) = crate::c_name(name, NAME_BYTES) else {
        return status::NULL;
    };
    a.manager.clips().position(|c| c.name() == name).map_or(status::NOT_FOUND, |i| i as i32)
}

/// Makes `out` a controller for the skeleton of `bones` bones: `parents[i]` is bone i's parent
/// (0xFF for a root; parents come first) and `bind[i]` its bind pose. Both are copied.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_init(
    out: *mut c_void,
    parents: *const u8,
    bind: *const PsxanimBind,
    bones: u32,
    err: *mut PsxanimError,
) -> i32 {
    let out: &mut Controller = match storage(out) {
        Ok(o) => o,
        Err(s) => return fail(err, s, 0, 0),
    };
    core::ptr::addr_of_mut!(out.magic).write(0);
    if parents.is_null() || bind.is_null() {
        return fail(err, status::NULL, 0, 0);
    }
    if (bind as usize) % core::mem::align_of::<PsxanimBind>() != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    let n = bones as usize;
    if n == 0 || n > MAX_BONES {
        return fail(err, status::RANGE, MAX_BONES as u32, 0);
    }
    let parents = core::slice::from_raw_parts(parents, n);
    let bind = core::slice::from_raw_parts(bind, n);
    let slots = core::ptr::addr_of_mut!(out.parents);
    slots.write([ROOT; MAX_BONES]);
    (&mut *slots)[..n].copy_from_slice(parents);
    let locals = core::ptr::addr_of_mut!(out.bind);
    locals.write([LocalTransform::IDENTITY; MAX_BONES]);
    for (slot, b) in (&mut *locals)[..n].iter_mut().zip(bind) {
        let [w, x, y, z] = b.rotation;
        *slot = LocalTransform::new(Quat { w, x, y, z }, Vec3i32::new(b.translation[0], b.translation[1], b.translation[2]));
    }
    // The skeleton borrows the copies in this storage, which the game must not move.
    let parents: &'static [u8] = core::slice::from_raw_parts(out.parents.as_ptr(), n);
    let bind: &'static [LocalTransform] = core::slice::from_raw_parts(out.bind.as_ptr(), n);
    let skeleton = match Skeleton::new(parents, bind) {
        Ok(s) => s,
        Err(SkeletonError::ParentNotBefore { bone, .. }) | Err(SkeletonError::NotUnit { bone }) => {
            return fail(err, status::SKELETON, bone as u32, 0)
        }
        Err(_) => return fail(err, status::RANGE, MAX_BONES as u32, 0),
    };
    let Ok(controller) = SkeletonController::new(skeleton) else {
        return fail(err, status::RANGE, MAX_BONES as u32, 0);
    };
    core::ptr::addr_of_mut!(out.controller).write(controller);
    core::ptr::addr_of_mut!(out.file).write(core::ptr::null());
    core::ptr::addr_of_mut!(out.paused).write(0);
    out.magic = CONTROLLER_MAGIC;
    ok(err)
}

fn play_error(err: *mut PsxanimError, e: PlayError) -> i32 {
    match e {
        PlayError::SkeletonMismatch { clip_joints, .. } => fail(err, status::PLAY, clip_joints as u32, 0),
        _ => fail(err, status::PLAY, 0, 0),
    }
}

/// Starts (`frames` 0: cuts to; else crossfades over `frames` clip frames to) clip `clip` of `a`.
unsafe fn start(c: *mut c_void, a: *const c_void, clip: u32, looping: u32, frames: u32, err: *mut PsxanimError) -> i32 {
    let c = match controller(c) {
        Ok(c) => c,
        Err(s) => return fail(err, s, 0, 0),
    };
    let a: &'static Animbin = match animbin(a) {
        Ok(a) => a,
        Err(s) => return fail(err, s, 0, 0),
    };
    let Some(source) = a.manager.clip(clip as usize) else {
        return fail(err, status::RANGE, a.manager.len() as u32, 0);
    };
    if frames > u16::MAX as u32 {
        return fail(err, status::RANGE, u16::MAX as u32, 0);
    }
    let result = if frames == 0 {
        c.controller.play(source, looping != 0)
    } else {
        c.controller.crossfade(source, looping != 0, frames as u16)
    };
    match result {
        Ok(()) => {
            c.file = a.file;
            ok(err)
        }
        Err(e) => play_error(err, e),
    }
}

/// Cuts to clip `clip` of `a` at its first frame (`looping` 0 or 1).
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_play(c: *mut c_void, a: *const c_void, clip: u32, looping: u32, err: *mut PsxanimError) -> i32 {
    start(c, a, clip, looping, 0, err)
}

/// Starts clip `clip` of `a` and blends to it from the current pose over `frames` of its frames.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_crossfade(
    c: *mut c_void,
    a: *const c_void,
    clip: u32,
    looping: u32,
    frames: u32,
    err: *mut PsxanimError,
) -> i32 {
    start(c, a, clip, looping, frames.max(1), err)
}

/// Pauses (`paused` 1) or resumes (0) the controller's clock.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_pause(c: *mut c_void, paused: u32) -> i32 {
    match controller(c) {
        Ok(c) => {
            c.paused = (paused != 0) as u32;
            status::OK
        }
        Err(s) => s,
    }
}

/// Clip frames per second `clip_hz` shown at `display_hz` vsyncs a second (60/50 for 60 Hz clips on
/// PAL); both 1..=1000. The default is one clip frame per vsync.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_set_rates(c: *mut c_void, clip_hz: u32, display_hz: u32) -> i32 {
    let c = match controller(c) {
        Ok(c) => c,
        Err(s) => return s,
    };
    if !(1..=1000).contains(&clip_hz) || !(1..=1000).contains(&display_hz) {
        return status::RANGE;
    }
    c.controller.set_time_scale(TimeScale::from_rates(clip_hz, display_hz));
    status::OK
}

/// Advances by `vsyncs` (nothing while paused) and writes the markers crossed, in time order, to
/// `events[0..capacity]`. Returns how many were crossed (more than `capacity` when some did not fit),
/// or a negative status.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_update(c: *mut c_void, vsyncs: u32, events: *mut PsxanimEvent, capacity: u32) -> i32 {
    let c = match controller(c) {
        Ok(c) => c,
        Err(s) => return s,
    };
    if c.paused != 0 {
        return 0;
    }
    let sink = EventSink::new(events, capacity, c.file);
    let mut sink = match sink {
        Ok(s) => s,
        Err(s) => return s,
    };
    c.controller.update(vsyncs, |e| sink.push(e));
    sink.count as i32
}

/// Where an update's events go.
pub(crate) struct EventSink {
    out: *mut PsxanimEvent,
    capacity: u32,
    base: *const u8,
    pub(crate) count: u32,
}

impl EventSink {
    pub(crate) fn new(out: *mut PsxanimEvent, capacity: u32, base: *const u8) -> Result<Self, i32> {
        if out.is_null() && capacity > 0 {
            return Err(status::NULL);
        }
        if (out as usize) % core::mem::align_of::<PsxanimEvent>() != 0 {
            return Err(status::ALIGN);
        }
        Ok(EventSink { out, capacity, base, count: 0 })
    }

    pub(crate) fn push(&mut self, e: MarkerEvent<'_>) {
        if self.count < self.capacity {
            let offset = (e.name.as_ptr() as usize).wrapping_sub(self.base as usize) as u32;
            let event = PsxanimEvent {
                name_offset: offset,
                name_len: e.name.len() as u16,
                index: e.index as u16,
                frame: e.frame,
                reserved: 0,
            };
            // SAFETY: `out` holds `capacity` events (the caller's promise), checked non-null and aligned.
            unsafe { self.out.add(self.count as usize).write(event) };
        }
        self.count = self.count.saturating_add(1);
    }
}

/// The controller's clock.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_state(c: *const c_void, out: *mut PsxanimPlayState) -> i32 {
    let c = match controller(c as *mut c_void) {
        Ok(c) => c,
        Err(s) => return s,
    };
    let out: &mut PsxanimPlayState = match storage(out as *mut c_void) {
        Ok(o) => o,
        Err(s) => return s,
    };
    let mut flags = 0;
    if !c.file.is_null() {
        flags |= play_flags::PLAYING;
    }
    if c.controller.fading() {
        flags |= play_flags::FADING;
    }
    if c.controller.finished() {
        flags |= play_flags::FINISHED;
    }
    if c.paused != 0 {
        flags |= play_flags::PAUSED;
    }
    *out = PsxanimPlayState { time: c.controller.time(), flags };
    status::OK
}

/// Samples the playing clip(s) and writes the model-space matrix of the first `min(count, bones)`
/// bones to `out` (composed parent-first on the GTE). Returns how many were written.
#[no_mangle]
pub unsafe extern "C" fn psxanim_controller_pose(c: *mut c_void, out: *mut PsxanimMatrix, count: u32, err: *mut PsxanimError) -> i32 {
    let c = match controller(c) {
        Ok(c) => c,
        Err(s) => return fail(err, s, 0, 0),
    };
    if out.is_null() {
        return fail(err, status::NULL, 0, 0);
    }
    if (out as usize) % core::mem::align_of::<Matrix>() != 0 {
        return fail(err, status::ALIGN, 0, 0);
    }
    let n = (count as usize).min(c.controller.skeleton().len());
    // SAFETY: `PsxanimMatrix` has `Matrix`'s layout (both repr(C), asserted in types.rs); any bit
    // pattern is a Matrix.
    let matrices = core::slice::from_raw_parts_mut(out as *mut Matrix, n);
    with_gte(|gte| c.controller.evaluate(gte, matrices));
    for m in core::slice::from_raw_parts_mut(out, n) {
        m.pad = 0;
    }
    ok(err);
    n as i32
}

const _: () = {
    assert!(core::mem::offset_of!(PsxanimMatrix, t) == core::mem::offset_of!(Matrix, translation));
    assert!(core::mem::align_of::<PsxanimMatrix>() == core::mem::align_of::<Matrix>());
};
