//! The anim example's scenario: ANIMBIN clips played on a skeleton, pose matrices written as words.
//!
//! This one file is compiled twice: into the anim example (console GTE) and into the xtask
//! (`xtask/src/expect.rs`, the runtime's GTE model), so the expected words come from the same code.
//! It covers: a looping clip that wraps, a rotation step of 100 degrees between keys, a wrap step of
//! 160 degrees, translation keys (own track and mixed with rotations), markers, a crossfade, a
//! non-looping clip that ends and holds, the PAL time scale, and two malformed files whose errors are
//! reported as words while the program carries on. Cycle timings (update + evaluate for 15, 20 and
//! 50 bones) go to the probe's timing hook only: they are not compared.
//!
//! [`run_compiled`] plays the same clips compiled into CLIPBIN poses (compiled by the program itself
//! with `clipbin::compile`, the same function `psxanim compile-clips` runs on the host, so the blob is
//! the same bytes) through the same controller and steps, and times the compiled path.
use psxanim_runtime::anim::{ClipSource, LocalTransform, MarkerEvent, PreparedClip, Skeleton, SkeletonController, TimeScale, ROOT};
use psxanim_runtime::animbin::{AnimationManager, Clip};
use psxanim_runtime::clipbin::{self, ClipBin};
use psxanim_runtime::gte::{Cop2, Gte};
use psxanim_runtime::math::{Matrix, Quat, Vec3i32};

/// What the scenario reports to its host program.
pub trait Probe {
    /// One result word; `label` names it for reports.
    fn word(&mut self, label: Label, value: u32);
    /// Called before (`start`) and after a timed section of cycle slot `slot`.
    fn timing(&mut self, slot: usize, start: bool);
}

/// Where a result word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label {
    pub what: &'static str,
    /// Checkpoint number (or error case number).
    pub step: u32,
    pub bone: u32,
    /// Word within the bone's matrix: 0..=4 rotation pairs (RT11|RT12<<16, RT13|RT21<<16, ...,
    /// RT33), 5..=7 translation x, y, z.
    pub field: u32,
}

/// Cycle slots: 0..=2 average ticks (root counter 2, 8 cycles each) of update + evaluate for
/// 15, 20 and 50 bones, ANIMBIN keys prepared at load; 3..=5 the largest. The compiled path:
/// 6..=8 average and 9..=11 largest of update + evaluate (matrices copied out), 12..=14 and
/// 15..=17 of update + `pose` (borrowed in place). ANIMBIN keys read from the file: 18..=20 and
/// 21..=23. 24 and 27: an empty timed section (the measurement's own cost).
pub const TIMED_BONES: [usize; 3] = [15, 20, 50];
/// Timing slots the probe sees: 0..=2 ANIMBIN prepared, 3..=5 compiled `evaluate`, 6..=8 compiled
/// `pose`, 9..=11 ANIMBIN from the file (bones in `TIMED_BONES` order), 12 the empty section.
pub const TIMED_SLOTS: usize = 4 * TIMED_BONES.len() + 1;
/// The probe slots of the ANIMBIN path from the file.
const FILE_KEYS_SLOT: usize = 3 * TIMED_BONES.len();
const EMPTY_SLOT: usize = TIMED_SLOTS - 1;

/// Record cycle slots (average, largest) of probe timing slot `slot`.
pub const fn cycle_slots(slot: usize) -> (usize, usize) {
    let n = TIMED_BONES.len();
    let (group, i) = (slot / n, slot % n);
    (2 * n * group + i, 2 * n * group + n + i)
}

/// Bytes `run_compiled` needs as its work buffer (the largest compiled blob: 50 bones, 30 frames).
pub const COMPILE_BUFFER_BYTES: usize = 80 * 1024;
/// Words `run_prepared` needs for the prepared keys (the 50-bone baked clip's: 2 a joint, 3 a key).
pub const PREPARED_WORDS: usize = 2 * 50 + 3 * 50 * BAKED_KEYS as usize;
// The programs give `run_prepared` the compile buffer, as words.
const _: () = assert!(PREPARED_WORDS <= COMPILE_BUFFER_BYTES / 4);
pub const TIMED_FRAMES: u32 = 30;

// ---- ANIMBIN built at compile time ----

/// A fixed-capacity byte writer usable in `const` context.
struct Writer<const CAP: usize> {
    buf: [u8; CAP],
    len: usize,
}

impl<const CAP: usize> Writer<CAP> {
    const fn new(clips: u8) -> Self {
        let mut w = Writer { buf: [0; CAP], len: 0 };
        let magic = *b"ANIMBIN";
        let mut i = 0;
        while i < 7 {
            w.u8(magic[i]);
            i += 1;
        }
        w.u8(1);
        w.u8(clips);
        w
    }
    const fn u8(&mut self, v: u8) {
        self.buf[self.len] = v;
        self.len += 1;
    }
    const fn u16(&mut self, v: u16) {
        self.u8(v as u8);
        self.u8((v >> 8) as u8);
    }
    const fn u32(&mut self, v: u32) {
        self.u16(v as u16);
        self.u16((v >> 16) as u16);
    }
    const fn name(&mut self, s: &[u8]) {
        let mut i = 0;
        while i < 32 {
            self.u8(if i < s.len() { s[i] } else { 0 });
            i += 1;
        }
    }
    const fn clip(&mut self, name: &[u8], looping: bool, length: u16, tracks: u16, markers: u16) {
        self.name(name);
        self.u32(looping as u32);
        self.u16(length);
        self.u16(tracks);
        self.u16(markers);
    }
    const fn track(&mut self, joint: u8, keys: u16) {
        self.u8(0);
        self.u8(joint);
        self.u16(keys);
    }
    const fn rot(&mut self, frame: u16, q: [i16; 4]) {
        self.u16(frame);
        self.u8(0);
        let mut i = 0;
        while i < 4 {
            self.u16(q[i] as u16);
            i += 1;
        }
    }
    const fn trans(&mut self, frame: u16, t: [i32; 3]) {
        self.u16(frame);
        self.u8(1);
        let mut i = 0;
        while i < 3 {
            self.u32(t[i] as u32);
            i += 1;
        }
    }
    const fn marker(&mut self, name: &[u8], frame: u16) {
        self.name(name);
        self.u16(frame);
    }
}

const IDENTITY: [i16; 4] = [4096, 0, 0, 0];
/// 100 and 200 degrees about (0.48, 0.6, 0.64): a 100-degree step, then 160 degrees back to 0.
const SW100: [i16; 4] = [2633, 1506, 1883, 2008];
const SW200: [i16; 4] = [-711, 1936, 2420, 2582];
/// 10..50 degrees about X, 60 about Z, 30 and -45 about Y.
const X_STEPS: [[i16; 4]; 6] =
    [IDENTITY, [4080, 357, 0, 0], [4034, 711, 0, 0], [3956, 1060, 0, 0], [3849, 1401, 0, 0], [3712, 1731, 0, 0]];
const Z60: [i16; 4] = [3547, 0, 0, 2048];
const Y30: [i16; 4] = [3956, 0, 1060, 0];
const YM45: [i16; 4] = [3784, 0, -1567, 0];

/// Clip 0 "swing" (looping, 12 frames) and clip 1 "wave" (not looping, 10 frames), 6 bones.
static SCENE: Writer<1024> = {
    let mut w = Writer::new(2);
    w.clip(b"swing", true, 12, 4, 2);
    w.track(0, 2); // root translation
    w.trans(0, [0, 0, 0]);
    w.trans(6, [8192, -4096, 2048]);
    w.track(1, 3);
    w.rot(0, IDENTITY);
    w.rot(4, SW100);
    w.rot(8, SW200);
    w.track(2, 6);
    let mut k = 0;
    while k < 6 {
        w.rot(2 * k as u16, X_STEPS[k]);
        k += 1;
    }
    w.track(4, 3); // rotation and translation keys in one track
    w.rot(0, IDENTITY);
    w.trans(3, [0, 4096, 0]);
    w.rot(6, Z60);
    w.marker(b"kick", 4);
    w.marker(b"loop", 0);
    w.clip(b"wave", false, 10, 3, 1);
    w.track(3, 2);
    w.rot(0, Y30);
    w.rot(9, YM45);
    w.track(5, 2);
    w.trans(0, [0, 0, 0]);
    w.trans(9, [-12288, 0, 100_000]);
    w.track(1, 2);
    w.rot(0, X_STEPS[2]);
    w.rot(5, X_STEPS[5]);
    w.marker(b"end", 9);
    w
};

pub const SCENE_BONES: usize = 6;
const SCENE_PARENTS: [u8; SCENE_BONES] = [ROOT, 0, 1, 2, 1, 4];
const SCENE_BIND: [LocalTransform; SCENE_BONES] = [
    LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, 0, 0)),
    LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, -4096, 0)),
    LocalTransform::new(Quat::new(2896, 0, 2896, 0), Vec3i32::new(0, -6144, 0)),
    LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, -4096, 1024)),
    LocalTransform::new(Quat::IDENTITY, Vec3i32::new(3072, -2048, 0)),
    LocalTransform::new(Quat::IDENTITY, Vec3i32::new(4096, 0, 0)),
];

/// The scene's skeleton and, after it, a root whose translation does not fit `i16` and its child:
/// a prepared pose composed bone by bone (`run_prepared`'s `p.far`).
const FAR_BONES: usize = SCENE_BONES + 2;
const FAR_PARENTS: [u8; FAR_BONES] = [ROOT, 0, 1, 2, 1, 4, ROOT, SCENE_BONES as u8];
pub const FAR_ROOT: Vec3i32 = Vec3i32::new(0, 100_000, -70_000);
const FAR_BIND: [LocalTransform; FAR_BONES] = {
    let mut b = [LocalTransform::new(Quat::IDENTITY, FAR_ROOT); FAR_BONES];
    let mut i = 0;
    while i < SCENE_BONES {
        b[i] = SCENE_BIND[i];
        i += 1;
    }
    b[SCENE_BONES + 1] = LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, -4096, 0));
    b
};

/// `q * dq` rounded, for generating baked keys at compile time.
const fn r(v: i32) -> i16 {
    ((v + 2048) >> 12) as i16
}

const fn qmul(a: [i16; 4], b: [i16; 4]) -> [i16; 4] {
    let (aw, ax, ay, az) = (a[0] as i32, a[1] as i32, a[2] as i32, a[3] as i32);
    let (bw, bx, by, bz) = (b[0] as i32, b[1] as i32, b[2] as i32, b[3] as i32);
    [
        r(aw * bw - ax * bx - ay * by - az * bz),
        r(aw * bx + ax * bw + ay * bz - az * by),
        r(aw * by - ax * bz + ay * bw + az * bx),
        r(aw * bz + ax * by - ay * bx + az * bw),
    ]
}

/// 6-degree steps about four axes.
const STEPS: [[i16; 4]; 4] = [[4090, 214, 0, 0], [4090, 0, 214, 0], [4090, 0, 0, 214], [4090, 129, 0, 171]];
const BAKED_KEYS: u16 = 30;

/// Clips "b15", "b20", "b50": every bone of a 15/20/50-bone skeleton baked at one key per frame,
/// like the original exporter writes them (30 frames, looping).
static BAKED: Writer<29_000> = {
    let mut w = Writer::new(3);
    let mut c = 0;
    while c < 3 {
        let bones = TIMED_BONES[c];
        w.clip(if c == 0 { b"b15" } else if c == 1 { b"b20" } else { b"b50" }, true, BAKED_KEYS, bones as u16, 0);
        let mut b = 0;
        while b < bones {
            w.track(b as u8, BAKED_KEYS);
            let mut q = IDENTITY;
            let mut k = 0;
            while k < BAKED_KEYS {
                w.rot(k, q);
                q = qmul(q, STEPS[b % 4]);
                k += 1;
            }
            b += 1;
        }
        c += 1;
    }
    w
};

const MAX_TIMED: usize = 50;
/// A binary-tree skeleton: bone i hangs from (i - 1) / 2.
const TIMED_PARENTS: [u8; MAX_TIMED] = {
    let mut p = [ROOT; MAX_TIMED];
    let mut i = 1;
    while i < MAX_TIMED {
        p[i] = ((i - 1) / 2) as u8;
        i += 1;
    }
    p
};
const TIMED_BIND: [LocalTransform; MAX_TIMED] =
    [LocalTransform::new(Quat::IDENTITY, Vec3i32::new(0, -2048, 512)); MAX_TIMED];

// ---- the scenario ----

/// The scene's clips and skeleton, for programs that keep playing them.
pub fn scene() -> Option<(AnimationManager<'static>, Skeleton<'static>)> {
    let manager = <AnimationManager>::parse(&SCENE.buf[..SCENE.len], SCENE_BONES).ok()?;
    let skeleton = Skeleton::new(&SCENE_PARENTS, &SCENE_BIND).ok()?;
    Some((manager, skeleton))
}

fn push_matrices(probe: &mut impl Probe, what: &'static str, step: u32, pose: &[Matrix]) {
    for (bone, m) in pose.iter().enumerate() {
        let words = clipbin::matrix_words(m);
        for (field, w) in words.into_iter().enumerate() {
            probe.word(Label { what, step, bone: bone as u32, field: field as u32 }, w);
        }
    }
}

fn push(probe: &mut impl Probe, what: &'static str, step: u32, value: u32) {
    probe.word(Label { what, step, bone: 0, field: 0 }, value);
}

/// A malformed file must give an error word pair (code, offset) and leave the program running.
fn check_malformed(probe: &mut impl Probe) {
    let good = &SCENE.buf[..SCENE.len];
    let mut bad = [0u8; 1024];
    bad[..good.len()].copy_from_slice(good);
    // Key type of the first key of track 0 of clip 0: header 9 + clip 42 + track 4 + frame 2.
    bad[9 + 42 + 4 + 2] = 7;
    let cases: [&[u8]; 2] = [&bad[..good.len()], &good[..100]];
    for (case, bytes) in cases.into_iter().enumerate() {
        let (code, offset) = match <AnimationManager>::parse(bytes, SCENE_BONES) {
            Ok(_) => (0, 0),
            Err(e) => (e.code(), e.offset),
        };
        push(probe, "error.code", case as u32, code);
        push(probe, "error.offset", case as u32, offset);
    }
}

/// Runs the whole scenario: results through `probe.word`, timings through `probe.timing`.
pub fn run<B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe) {
    check_malformed(probe);

    let manager = match <AnimationManager>::parse(&SCENE.buf[..SCENE.len], SCENE_BONES) {
        Ok(m) => m,
        Err(e) => {
            push(probe, "scene.error", e.code(), e.offset);
            return;
        }
    };
    let (Some(swing), Some(wave)) = (manager.find(b"swing"), manager.find(b"wave")) else {
        return;
    };
    let Ok(skeleton) = Skeleton::new(&SCENE_PARENTS, &SCENE_BIND) else {
        return;
    };
    let Ok(mut c) = SkeletonController::<SCENE_BONES>::new(skeleton) else {
        return;
    };
    let _ = c.play(swing, true);
    play_steps(gte, probe, &mut c, "", swing, wave);

    timed(gte, probe);
}

/// The scenario's playback: 44 updates with game-like vsync deltas, a crossfade to `wave` at step
/// 20, the PAL rate and a cut back to `swing` at step 32; time, markers and pose at chosen steps
/// (word names prefixed with `prefix`).
fn play_steps<'a, B: Cop2, C: Copy + Into<ClipSource<'a>>>(
    gte: &mut Gte<B>,
    probe: &mut impl Probe,
    c: &mut SkeletonController<'a, SCENE_BONES>,
    prefix: &'static str,
    swing: C,
    wave: C,
) {
    let names: [&'static str; 3] = match prefix {
        "" => ["time", "markers", "pose"],
        "p." => ["p.time", "p.markers", "p.pose"],
        _ => ["c.time", "c.markers", "c.pose"],
    };
    let mut pose = [Matrix::IDENTITY; SCENE_BONES];
    // Vsync deltas as a game sees them: mostly 1, sometimes a dropped frame.
    const DELTAS: [u32; 5] = [1, 1, 2, 1, 3];
    for step in 0..44u32 {
        if step == 20 {
            let _ = c.crossfade(wave, false, 8);
        }
        if step == 32 {
            // PAL: 60 Hz clip frames on a 50 Hz display.
            c.set_time_scale(TimeScale::from_rates(60, 50));
            let _ = c.play(swing, true);
        }
        let mut markers = 0u32;
        c.update(DELTAS[step as usize % 5], |e: MarkerEvent<'_>| {
            markers = markers.wrapping_mul(16).wrapping_add(e.frame as u32 + 1);
        });
        if step % 3 == 0 || (20..=30).contains(&step) {
            c.evaluate(gte, &mut pose);
            push(probe, names[0], step, c.time());
            push(probe, names[1], step, markers);
            push_matrices(probe, names[2], step, &pose);
        }
    }
}

/// The scenario again through compiled clips (`buffer`: at least [`COMPILE_BUFFER_BYTES`], best
/// 4-aligned), then the compiled path's timings. Words: `c.size` (blob bytes or 0), a blob checked
/// against the wrong skeleton (`c.error.code`, `c.error.offset`), then `c.time`, `c.markers`,
/// `c.pose` like [`run`]'s; at whole-frame times they equal [`run`]'s words.
pub fn run_compiled<B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe, buffer: &mut [u8]) {
    let Some((manager, skeleton)) = scene() else {
        return;
    };
    let Some((swing, wave)) = manager.find(b"swing").zip(manager.find(b"wave")) else {
        return;
    };
    let size = clipbin::compile::<B, SCENE_BONES>(gte, skeleton, &[swing, wave], buffer).unwrap_or_default();
    push(probe, "c.size", 0, size as u32);
    let blob = &buffer[..size];
    // The poses belong to this skeleton only: another one is refused with the header's offset.
    let (code, offset) = match Skeleton::new(&TIMED_PARENTS[..SCENE_BONES], &TIMED_BIND[..SCENE_BONES]) {
        Ok(other) => match ClipBin::parse(blob, &other) {
            Ok(_) => (0, 0),
            Err(e) => (e.code(), e.offset),
        },
        Err(_) => (u32::MAX, 0),
    };
    push(probe, "c.error.code", 0, code);
    push(probe, "c.error.offset", 0, offset);
    let clips = match ClipBin::parse(blob, &skeleton) {
        Ok(c) => c,
        Err(e) => {
            push(probe, "c.scene.error", e.code(), e.offset);
            return;
        }
    };
    let (Some(swing), Some(wave)) = (clips.find(b"swing"), clips.find(b"wave")) else {
        return;
    };
    let Ok(mut c) = SkeletonController::<SCENE_BONES>::new(skeleton) else {
        return;
    };
    let _ = c.play(swing, true);
    play_steps(gte, probe, &mut c, "c.", swing, wave);

    timed_compiled(gte, probe, buffer);
}

/// Update + evaluate cycles of the baked clips compiled (probe slots 3..=5), update + borrowed pose
/// (6..=8), and an empty section (9).
fn timed_compiled<B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe, buffer: &mut [u8]) {
    let Ok(manager) = <AnimationManager>::parse(&BAKED.buf[..BAKED.len], MAX_TIMED) else {
        return;
    };
    let mut pose = [Matrix::IDENTITY; MAX_TIMED];
    for (slot, &bones) in TIMED_BONES.iter().enumerate() {
        let Some((clip, skeleton)) = baked(&manager, slot) else {
            return;
        };
        let Ok(size) = clipbin::compile::<B, MAX_TIMED>(gte, skeleton, &[clip], buffer) else {
            return;
        };
        let Some(compiled) = ClipBin::parse(&buffer[..size], &skeleton).ok().and_then(|b| b.clip(0)) else {
            return;
        };
        let Ok(mut c) = SkeletonController::<MAX_TIMED>::new(skeleton) else {
            return;
        };
        let _ = c.play(compiled, true);
        c.set_time_scale(TimeScale::from_rates(60, 50));
        let n = TIMED_BONES.len();
        for _ in 0..TIMED_FRAMES {
            probe.timing(n + slot, true);
            c.advance(1);
            c.evaluate(gte, &mut pose[..bones]);
            probe.timing(n + slot, false);
        }
        for _ in 0..TIMED_FRAMES {
            probe.timing(2 * n + slot, true);
            c.advance(1);
            core::hint::black_box(c.pose(gte, &mut pose[..bones]));
            probe.timing(2 * n + slot, false);
        }
    }
    for _ in 0..TIMED_FRAMES {
        probe.timing(EMPTY_SLOT, true);
        probe.timing(EMPTY_SLOT, false);
    }
}

/// Update + evaluate cycles of the baked clips read from the file (probe slots 9..=11; timings
/// differ between machines: no result words), and one frame's pose as words (`timed.pose`, step =
/// bones).
fn timed<B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe) {
    let Ok(manager) = <AnimationManager>::parse(&BAKED.buf[..BAKED.len], MAX_TIMED) else {
        return;
    };
    for slot in 0..TIMED_BONES.len() {
        let Some((clip, skeleton)) = baked(&manager, slot) else {
            return;
        };
        time_baked(gte, probe, clip, skeleton, FILE_KEYS_SLOT + slot, "timed.pose");
    }
}

/// The baked clip of timed skeleton `slot` (`TIMED_BONES[slot]` bones) and that skeleton.
fn baked<'m>(manager: &'m AnimationManager<'static>, slot: usize) -> Option<(Clip<'m>, Skeleton<'static>)> {
    let bones = *TIMED_BONES.get(slot)?;
    Some((manager.clip(slot)?, Skeleton::new(&TIMED_PARENTS[..bones], &TIMED_BIND[..bones]).ok()?))
}

/// Times update + evaluate of `clip` (looping, PAL rate) on `skeleton` for [`TIMED_FRAMES`] frames
/// in probe slot `slot`; one pose between keys (29 vsyncs: frame 4.8 after the wrap), the path the
/// timings measure, goes out as `what` words (step = bones) to be checked word for word.
fn time_baked<'a, B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe, clip: impl Into<ClipSource<'a>>, skeleton: Skeleton<'a>, slot: usize, what: &'static str) {
    let Ok(mut c) = SkeletonController::<MAX_TIMED>::new(skeleton) else {
        return;
    };
    let bones = skeleton.len();
    let mut pose = [Matrix::IDENTITY; MAX_TIMED];
    let _ = c.play(clip, true);
    c.set_time_scale(TimeScale::from_rates(60, 50));
    for frame in 0..TIMED_FRAMES {
        probe.timing(slot, true);
        c.advance(1);
        c.evaluate(gte, &mut pose[..bones]);
        probe.timing(slot, false);
        if frame == TIMED_FRAMES - 2 {
            push_matrices(probe, what, bones as u32, &pose[..bones]);
        }
    }
}

/// The scenario's playback again with both clips' rotation keys prepared in `words` (at least
/// [`PREPARED_WORDS`]): words `p.time`, `p.markers`, `p.pose` like [`run`]'s (equal to them up to
/// the hemispheres, see `anim::prepared`), a short buffer's error (`p.error`: needed, available
/// words), "swing" prepared on [`FAR_PARENTS`]' skeleton at three times (`p.far`, steps 0..=2),
/// then the timings of the baked clips prepared (probe slots 0..=2) and their `timed.p.pose` words.
pub fn run_prepared<B: Cop2>(gte: &mut Gte<B>, probe: &mut impl Probe, words: &mut [u32]) {
    let Some((manager, skeleton)) = scene() else {
        return;
    };
    let Some((swing, wave)) = manager.find(b"swing").zip(manager.find(b"wave")) else {
        return;
    };
    let (needed, available) = match PreparedClip::new(swing, &mut words[..4]) {
        Ok(_) => (0, 0),
        Err(e) => (e.needed as u32, e.available as u32),
    };
    push(probe, "p.error.needed", 0, needed);
    push(probe, "p.error.available", 0, available);
    let (swing_words, rest) = words.split_at_mut(PreparedClip::words_needed(&swing).min(words.len()));
    let (Ok(swing), Ok(wave), Ok(mut c)) =
        (PreparedClip::new(swing, swing_words), PreparedClip::new(wave, rest), SkeletonController::<SCENE_BONES>::new(skeleton))
    else {
        return;
    };
    let _ = c.play(swing, true);
    play_steps(gte, probe, &mut c, "p.", swing, wave);
    let far = Skeleton::new(&FAR_PARENTS, &FAR_BIND).ok().and_then(|s| SkeletonController::<FAR_BONES>::new(s).ok());
    if let Some(mut far) = far {
        let mut pose = [Matrix::IDENTITY; FAR_BONES];
        let _ = far.play(swing, true);
        for step in 0..3 {
            far.advance(7);
            far.evaluate(gte, &mut pose);
            push_matrices(probe, "p.far", step, &pose);
        }
    }

    let Ok(manager) = <AnimationManager>::parse(&BAKED.buf[..BAKED.len], MAX_TIMED) else {
        return;
    };
    for slot in 0..TIMED_BONES.len() {
        let Some((clip, skeleton)) = baked(&manager, slot) else {
            return;
        };
        let Ok(clip) = PreparedClip::new(clip, words) else {
            return;
        };
        time_baked(gte, probe, clip, skeleton, slot, "timed.p.pose");
    }
}
