//! Every reader of a character blob on one input, as the fuzz target `tables_runtime` runs it (it
//! includes this file): parse; decode the first, middle, last and one-past-the-end frame of each clip
//! (random access and frame after frame); read every blend pair and group and make each group's
//! matrix; build a pose cache into a bounded buffer; render with and
//! without it, stepped and interpolated, through a camera that sees the bounds and one that looks
//! away, into a collecting sink and into a flat-packet sink; crossfade between clips and play each
//! clip's events through an Animator. Only errors may come out: any panic, hang or out-of-bounds
//! access is a bug.
#![allow(dead_code)] // each includer uses part of it

use psxanim_runtime::anim::{Animator, Fade, FrameSample, PoseSample, Sampling};
use psxanim_runtime::gte::{Gte, GteModel, PackedMatrix, PacketList, PoseQ14, FLAT_PACKET_WORDS};
use psxanim_runtime::math::{Matrix, Vec3i32};
use psxanim_runtime::render::camera::{placement, Camera};
use psxanim_runtime::render::pose_cache::{entries_for_blob, entries_needed};
use psxanim_runtime::render::{
    render_animated, render_cached, render_pose, render_streamed, DrawnTriangle, Outcome, PoseCache, PoseStream, PoseVoices, Scratch, TriangleSink,
    MAX_BONES,
};
use psxanim_runtime::render::bones::{crossfade_q14, crossfade_samples};
use psxanim_runtime::tables::{BoneSample, Storage, Tables, CHANNELS_PER_BONE};

/// Decoder words per voice for any blob the runtime can draw (6 per channel of 64 bones).
pub const STREAM_WORDS: usize = MAX_BONES * CHANNELS_PER_BONE * 6;

/// Pose cache entries offered (the fixture character needs 1,672): a blob asking for more gets
/// `OutputTooSmall`, and the build stays short.
pub const CACHE_ENTRIES: usize = 4096;
/// Clips decoded and rendered per blob (the others only parse): bounds the time per input.
pub const CLIPS_EXERCISED: usize = 8;

/// How much of the per-clip work one input gets: everything (the host tests), or for the fuzzer a
/// share picked by a hash of the input (one of the four frames and two of the four sample weights a
/// clip renders, eight frames played at 60 Hz instead of forty), so that it runs several times as many
/// inputs while every path stays reachable from some input.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    All,
    Hashed(u32),
}

impl Pick {
    /// The `keep` of `items` this pick runs (all of them for `All`).
    fn of<T: Copy, const N: usize>(self, items: [T; N], keep: usize, salt: u32) -> impl Iterator<Item = T> {
        let (start, keep) = match self {
            Pick::All => (0, N),
            Pick::Hashed(h) => ((h.rotate_left(salt) as usize) % N, keep.min(N)),
        };
        (0..keep).map(move |i| items[(start + i) % N])
    }

    fn played_frames(self) -> u16 {
        match self {
            Pick::All => 40,
            Pick::Hashed(_) => 8,
        }
    }

    /// FNV-1a of `data`.
    pub fn hashed(data: &[u8]) -> Pick {
        Pick::Hashed(data.iter().fold(0x811C_9DC5u32, |h, &b| (h ^ b as u32).wrapping_mul(0x0100_0193)))
    }
}

/// What one blob did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub parsed: bool,
    pub cache_built: bool,
    /// Renders through the camera that sees the bounds that drew, and that failed.
    pub drawn: usize,
    pub render_errors: usize,
    /// Events the Animators reported.
    pub events: usize,
    /// Renders through the camera looking away that drew anything (must be 0).
    pub drawn_looking_away: usize,
}

/// Collects every triangle, checking the index the renderer reports.
struct Collect {
    triangles: usize,
    index_limit: usize,
}
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        assert!((t.index as usize) < self.index_limit, "triangle {} of {}", t.index, self.index_limit);
        self.triangles += 1;
        self.triangles < 2000
    }
}

/// The console's fast path: flat packets written straight into an arena and an ordering table.
struct Packets {
    arena: Vec<u32>,
    table: Vec<u32>,
    used: usize,
}
impl TriangleSink for Packets {
    fn add(&mut self, _t: &DrawnTriangle) -> bool {
        false
    }
    fn flat_packet_list(&mut self) -> Option<PacketList<'_>> {
        Some(PacketList { arena: &mut self.arena[self.used..], table: &mut self.table, max_depth: 200 })
    }
    fn commit_flat_packets(&mut self, words: usize) {
        self.used += words;
        assert!(self.used <= self.arena.len());
    }
}

/// A camera looking at the centre of `bounds` from far enough to see all of it, or the same camera
/// turned around (the character behind it).
pub fn camera_on(bounds: [[i16; 3]; 2], looking_away: bool) -> Camera {
    let [min, max] = bounds.map(|c| c.map(i32::from));
    let target = Vec3i32::new((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
    let extent = (0..3).map(|i| (max[i] - min[i]).abs()).max().unwrap_or(0);
    let distance = 2 * extent + 2000;
    Camera {
        view: Camera::orbit(target, if looking_away { -distance } else { distance }, 0x1800, 0x0800),
        center: (160, 120),
        projection: 300,
        screen: (320, 240),
        zsf3: 100,
        near: 100,
    }
}

/// Frames worth sampling in a clip of `frames`: first, middle, last and one past the end.
fn frames_of(frames: u16) -> [u16; 4] {
    [0, frames / 2, frames.saturating_sub(1), frames]
}

fn decode_clips(tables: &Tables, scratch: &mut Scratch, pick: Pick) {
    let bones = tables.bone_count().min(MAX_BONES);
    for clip in 0..=tables.clip_count().min(CLIPS_EXERCISED) {
        let frames = tables.clip(clip).map(|c| c.frame_count).unwrap_or(1);
        for frame in frames_of(frames) {
            let _ = match tables.storage() {
                Storage::RigidGte => tables.decode_pose(clip, frame as usize, &mut scratch.samples[..bones]),
                Storage::BakedVertices => tables.decode_baked_frame(clip, frame as usize, &mut scratch.positions),
            };
        }
        if tables.storage() == Storage::RigidGte {
            played_at_60hz_equals_random_access(tables, clip, frames.min(pick.played_frames()), scratch);
            crossfades_blend_in_the_gtes_form_as_samples(tables, clip, frames, scratch);
        }
        // Frame after frame from the start, interpolated, as a playing instance decodes them (a few
        // frames, then past the end for short clips), then a jump back.
        let mut stream = Box::new(PoseStream::<STREAM_WORDS>::new());
        for frame in (0..=frames.min(6)).chain([0]) {
            let s = FrameSample { clip: clip as u16, frame, next: frame + 1, weight: 2048 };
            if stream.sample(tables, &s, &mut scratch.samples[..bones]).is_err() {
                break;
            }
        }
    }
}

/// A 30 Hz clip played at 60 Hz through two `PoseStream`s, one giving samples and one poses in the
/// GTE's form (each frame shown, then halfway to the next: the spare voice prepares block boundaries
/// on the frames that read no record), for up to 40 frames: at whole frames the samples are
/// `decode_pose`'s, and the poses are always `PoseQ14::from_sample` of the samples.
fn played_at_60hz_equals_random_access(tables: &Tables, clip: usize, frames: u16, scratch: &mut Scratch) {
    let bones = tables.bone_count().min(MAX_BONES);
    let (mut samples, mut poses) = (Box::new(PoseStream::<STREAM_WORDS>::new()), Box::new(PoseStream::<STREAM_WORDS>::new()));
    let mut q14 = vec![PoseQ14::default(); bones];
    for frame in 0..frames.min(40) {
        let next = if frame + 1 < frames { frame + 1 } else { frame };
        for (next, weight) in [(frame, 0), (next, 2048)] {
            let s = FrameSample { clip: clip as u16, frame, next, weight };
            let Ok(()) = samples.sample(tables, &s, &mut scratch.samples[..bones]) else { return };
            if weight == 0 && tables.decode_pose(clip, frame as usize, &mut scratch.next_samples[..bones]).is_ok() {
                assert_eq!(scratch.samples[..bones], scratch.next_samples[..bones], "clip {clip} frame {frame}");
            }
            let fits = poses.pose_q14(tables, &s, &mut q14).expect("the sample route decoded it");
            let expected: Option<Vec<PoseQ14>> = scratch.samples[..bones].iter().map(PoseQ14::from_sample).collect();
            assert_eq!(fits, expected.is_some(), "clip {clip} frame {frame} weight {weight}");
            if let Some(expected) = expected {
                assert_eq!(q14, expected, "clip {clip} frame {frame} weight {weight}");
            }
        }
    }
}

/// A crossfade into `clip` from the next clip (itself when it is the only one), played at 60 Hz through
/// two `PoseStream`s: one blends samples (`crossfade_samples`), one poses in the GTE's form
/// (`crossfade_q14`). Where both voices have that form, the blend has it exactly when the blended
/// samples do, with the same rotation and the translation within one GTE unit.
fn crossfades_blend_in_the_gtes_form_as_samples(tables: &Tables, clip: usize, frames: u16, scratch: &mut Scratch) {
    let bones = tables.bone_count().min(MAX_BONES);
    let from_clip = (clip + 1) % tables.clip_count().max(1);
    let from_frames = tables.clip(from_clip).map_or(1, |c| c.frame_count);
    let (mut samples, mut poses) = (Box::new(PoseStream::<STREAM_WORDS>::new()), Box::new(PoseStream::<STREAM_WORDS>::new()));
    let (mut q14, mut from_q14) = (vec![PoseQ14::default(); bones], vec![PoseQ14::default(); bones]);
    let mut from_samples = vec![BoneSample::default(); bones];
    let at = |c: usize, frames: u16, step: u16| {
        let (frame, last) = (step / 2 % frames.max(1), frames.saturating_sub(1));
        FrameSample { clip: c as u16, frame, next: (frame + 1).min(last), weight: if step % 2 == 1 && frame < last { 2048 } else { 0 } }
    };
    for step in 0..12u16 {
        let (current, from) = (at(clip, frames, step), at(from_clip, from_frames, step + 5));
        let weight = step * 341;
        let Ok(()) = samples.sample_pair(tables, &current, &mut scratch.samples[..bones], Some((&from, &mut from_samples[..]))) else { return };
        crossfade_samples(&from_samples, &mut scratch.samples[..bones], weight);
        let both = poses.pose_q14_pair(tables, &current, &mut q14, &from, &mut from_q14).expect("the sample route decoded it");
        if !both {
            continue;
        }
        let blended = crossfade_q14(&from_q14, &mut q14, weight);
        let expected: Option<Vec<PoseQ14>> = scratch.samples[..bones].iter().map(PoseQ14::from_sample).collect();
        assert_eq!(blended, expected.is_some(), "{from_clip} -> {clip} step {step}: has the GTE's form");
        for (got, want) in q14.iter().zip(expected.iter().flatten()) {
            assert_eq!(got.rotation, want.rotation, "{from_clip} -> {clip} step {step}");
            assert!(got.translation.iter().zip(&want.translation).all(|(g, w)| (g - w).abs() <= 1), "{from_clip} -> {clip} step {step}");
        }
    }
}

fn render_all(tables: &Tables, cache: Option<&PoseCache>, scratch: &mut Scratch, report: &mut Report, pick: Pick) {
    for looking_away in [false, true] {
        let camera = camera_on(tables.bounds(), looking_away);
        let mut gte = Gte::with_backend(GteModel::default());
        camera.load(&mut gte);
        let world = placement(Vec3i32::ZERO, 0);
        let mut tally = |r: Result<Outcome, _>| match (r, looking_away) {
            (Ok(Outcome::Drawn(_)), false) => report.drawn += 1,
            (Ok(Outcome::Drawn(_)), true) => report.drawn_looking_away += 1,
            (Err(_), false) => report.render_errors += 1,
            _ => {}
        };
        for clip in 0..=tables.clip_count().min(CLIPS_EXERCISED) as u16 {
            let frames = tables.clip(clip as usize).map(|c| c.frame_count).unwrap_or(1);
            for frame in pick.of(frames_of(frames), 1, clip as u32) {
                let next = if frame + 1 >= frames { 0 } else { frame + 1 };
                // Stepped, halfway, another weight, and towards a frame past the end.
                for (next, weight) in pick.of([(frame, 0), (next, 2048), (next, 1000), (frames, 3000)], 2, 8 + clip as u32) {
                    let sample = FrameSample { clip, frame, next, weight };
                    let mut sink = Collect { triangles: 0, index_limit: tables.triangle_count() };
                    tally(render_cached(&mut gte, tables, cache, &camera, &world, Some(sample), scratch, &mut sink, &mut |_| {}));
                }
            }
            // A crossfade from the first clip's first frame (fails only for the clip past the last).
            let from = FrameSample { clip: 0, frame: 0, next: 0, weight: 0 };
            let pose = PoseSample { current: FrameSample { clip, frame: 0, next: 1.min(frames - 1), weight: 1000 }, fade: Some(Fade { from, weight: 1500 }) };
            let mut sink = Collect { triangles: 0, index_limit: tables.triangle_count() };
            tally(render_pose(&mut gte, tables, cache, &camera, &world, Some(pose), scratch, &mut sink, &mut |_| {}));
            // The flat-packet path, once per clip.
            let sample = FrameSample { clip, frame: 0, next: 0, weight: 0 };
            let mut packets = Packets { arena: vec![0; FLAT_PACKET_WORDS * 300], table: vec![0; 201], used: 0 };
            tally(render_cached(&mut gte, tables, cache, &camera, &world, Some(sample), scratch, &mut packets, &mut |_| {}));
        }
        // Nothing to show yet.
        let mut sink = Collect { triangles: 0, index_limit: tables.triangle_count() };
        let r = render_cached(&mut gte, tables, cache, &camera, &Matrix::IDENTITY, None, scratch, &mut sink, &mut |_| {});
        assert!(!matches!(r, Ok(Outcome::Drawn(_))), "drew without a sample");
    }
}

/// Every clip played through an Animator with its events, crossfaded into the next, and drawn.
fn play_all(tables: &Tables, scratch: &mut Scratch, report: &mut Report) {
    let camera = camera_on(tables.bounds(), false);
    let mut gte = Gte::with_backend(GteModel::default());
    camera.load(&mut gte);
    let world = placement(Vec3i32::ZERO, 0);
    for clip in 0..tables.clip_count().min(CLIPS_EXERCISED) {
        let mut a = Animator::new(60, Sampling::Interpolated);
        if a.play(tables, clip, true).is_err() {
            continue;
        }
        let mut events = 0usize;
        for vsyncs in [1, 7, 1000] {
            a.update_events(vsyncs, tables, &mut |e| {
                assert!((e.frame as usize) < tables.clip(clip).map_or(0, |c| c.frame_count as usize));
                events += 1;
            });
        }
        let mut stream = Box::new(PoseStream::<STREAM_WORDS>::new());
        for step in 0..4 {
            if step == 2 {
                let _ = a.crossfade(tables, (clip + 1) % tables.clip_count(), false, 3);
            }
            a.update_events(2, tables, &mut |_| events += 1);
            let mut sink = Collect { triangles: 0, index_limit: tables.triangle_count() };
            if render_streamed(&mut gte, tables, &mut *stream, &camera, &world, &a, scratch, &mut sink, &mut |_| {}).is_err() {
                report.render_errors += 1;
            }
        }
        let mut sink = Collect { triangles: 0, index_limit: tables.triangle_count() };
        if render_animated(&mut gte, tables, None, &camera, &world, &a, scratch, &mut sink, &mut |_| {}).is_err() {
            report.render_errors += 1;
        }
        report.events += events;
    }
}

/// The texture section: every texture, material and UV read; the blob's own places and a first fit
/// beside them accepted or refused (never a panic); the first clip drawn textured into an ordering
/// table, each packet a whole textured or flat one.
fn textures_all(tables: &Tables) {
    use psxanim_runtime::console::ordering::DrawList;
    use psxanim_runtime::render::ot::{OtSink, Shading};
    use psxanim_runtime::vram::Placement;
    for i in 0..tables.texture_count() {
        let t = tables.texture(i).expect("checked at parse");
        assert!(t.image.len() >= 2 * t.image_at.halfwords() && t.clut.len() == 2 * t.depth.clut_colours() as usize);
    }
    assert!(tables.texture(tables.texture_count()).is_err());
    for m in 0..tables.material_count() {
        assert!(tables.material_texture(m).is_none_or(|t| t < tables.texture_count()));
    }
    for v in 0..tables.vertex_count() + 1 {
        assert_eq!(tables.vertex_uv(v) >> 16, 0);
    }
    let Ok(own) = Placement::default_of(tables, &[]) else { return };
    let taken: Vec<_> = own.taken().collect();
    if let Ok(beside) = Placement::first_fit(tables, &taken) {
        for r in beside.taken() {
            assert!(r.inside_vram() && taken.iter().all(|o| !o.overlaps(&r)));
        }
    }
    for (rect, bytes) in own.uploads(tables) {
        assert!(bytes.len() >= 2 * rect.halfwords());
    }
    if tables.clip_count() == 0 || tables.storage() != Storage::RigidGte {
        return;
    }
    let camera = camera_on(tables.bounds(), false);
    let mut gte = Gte::with_backend(GteModel::default());
    camera.load(&mut gte);
    let mut list = Box::new(DrawList::<201, 16384>::new());
    list.clear();
    let mut sink = OtSink::new(list.frame(), Shading::Flat);
    sink.place_textures(Some(&own));
    let sample = FrameSample { clip: 0, frame: 0, next: 0, weight: 0 };
    // Lit where the tables hold normals (GT3 / G3 packets then); lighting splits vertices at hard
    // edges, so a scratch for 1,024.
    let light = psxanim_runtime::math::Vec3i16::new(0, -2896, -2896);
    let mut lit = Box::new(psxanim_runtime::render::Scratch::<1024>::new());
    let lighting = psxanim_runtime::render::light::Lighting::one(light, [160, 150, 140], [40, 40, 40]);
    // Half the blobs (by vertex count) fogged: NCDS and the depth cue then (a range the GTE holds).
    let fog = psxanim_runtime::render::light::Fog::new([16, 24, 64], 1000, 30_000, camera.projection);
    lit.lighting = Some(match fog {
        Ok(fog) if tables.vertex_count() % 2 == 1 => lighting.with_fog(fog),
        _ => lighting,
    });
    let _ = render_cached(&mut gte, tables, None, &camera, &placement(Vec3i32::ZERO, 0), Some(sample), &mut *lit, &mut sink, &mut |_| {});
    let mut at = 0;
    let packets = list.packets();
    while let Some(&tag) = packets.get(at) {
        let len = (tag >> 24) as usize;
        let word = |i: usize| packets.get(at + i).copied().unwrap_or(0);
        // A tiled material's packet: its texture window, the polygon, the window reset.
        let windowed = word(1) >> 24 == 0xE2;
        let (command, words) = if windowed { (word(2) >> 24, len - 2) } else { (word(1) >> 24, len) };
        let known = [(0x20, 4), (0x28, 5), (0x24, 7), (0x2C, 9), (0x30, 6), (0x38, 8), (0x34, 9), (0x3C, 12)];
        assert!(known.contains(&(command, words)), "packet {command:#x} of {words} words");
        assert!(!windowed || (command & 0x04 != 0 && word(len) == psxanim_runtime::console::prim::NO_TEXTURE_WINDOW), "a windowed packet is textured and resets the window");
        at += 1 + len;
    }
}

/// Runs every reader on `blob` (at whatever address it is).
pub fn exercise(blob: &[u8], scratch: &mut Scratch, cache_buffer: &mut [PackedMatrix], pick: Pick) -> Report {
    let mut report = Report::default();
    let Ok(tables) = Tables::parse(blob) else { return report };
    report.parsed = true;
    for b in 0..tables.bone_count() {
        let _ = tables.name(tables.bone(b).name_offset);
    }
    // The blend section (version 6): every pair and group in range, each group's matrix made from
    // any bone matrices (identity here) without a read outside the blob.
    for p in 0..tables.blend_pair_count() {
        let pair = tables.blend_pair(p);
        assert!((pair.a as usize) < tables.bone_count() && (pair.b as usize) < tables.bone_count() && pair.a != pair.b);
    }
    let identity = vec![Matrix::IDENTITY; tables.bone_count()];
    let mut gte = Gte::with_backend(GteModel::new());
    for g in 0..tables.blend_group_count() {
        let group = tables.blend_group(g);
        assert!(group.first_vertex as usize + group.vertex_count as usize <= tables.vertex_count());
        let _ = psxanim_runtime::render::blend::group_matrix(&mut gte, &tables, &identity, g);
    }
    decode_clips(&tables, scratch, pick);
    render_all(&tables, None, scratch, &mut report, pick);
    play_all(&tables, scratch, &mut report);
    textures_all(&tables);
    // The compile-time sizing of a cache buffer reads the same counts as the parsed tables.
    let needed = entries_needed(&tables);
    if let Ok(n) = needed {
        assert_eq!(entries_for_blob(blob), n);
    }
    if needed.is_ok() {
        let mut gte = Gte::with_backend(GteModel::default());
        if let Ok(cache) = PoseCache::build(&mut gte, &tables, cache_buffer, scratch, &mut || {}) {
            report.cache_built = true;
            render_all(&tables, Some(&cache), scratch, &mut report, pick);
        }
    }
    report
}

/// [`exercise`] on a 4-aligned copy of `data`, then on a copy at an odd address; the two reports.
pub fn exercise_aligned_and_odd(data: &[u8]) -> [Report; 2] {
    exercise_aligned_and_odd_with(data, Pick::All)
}

/// [`exercise_aligned_and_odd`] with the share of the work `pick` gives.
pub fn exercise_aligned_and_odd_with(data: &[u8], pick: Pick) -> [Report; 2] {
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let mut cache_buffer = vec![PackedMatrix::IDENTITY; CACHE_ENTRIES];
    let mut words = vec![0u32; data.len().div_ceil(4)];
    let aligned: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    aligned[..data.len()].copy_from_slice(data);
    let a = exercise(&aligned[..data.len()], &mut scratch, &mut cache_buffer, pick);
    let mut odd = vec![0u8; data.len() + 1];
    odd[1..].copy_from_slice(data);
    let b = exercise(&odd[1..], &mut scratch, &mut cache_buffer, pick);
    [a, b]
}
