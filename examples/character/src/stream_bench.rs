//! Issue 14's forward-decoding figures on the 20-bone character (`tests/fixtures/fbx/twenty_bones.fbx`,
//! rigid): its 30 Hz Walk played at 60 Hz, interpolated, through one instance's `PoseStream` with no
//! pose cache, each frame's samples decoded forward and composed into model-view matrices; then restarts
//! (seeks) at the costliest frames of a block. The same code runs on the host (xtask includes this
//! file), so every frame's matrices are also probe words the host checks bit for bit.

use psxanim_runtime::anim::{Animator, Fade, FrameSample, Sampling};
use psxanim_runtime::gte::{Cop2, Gte};
use psxanim_runtime::math::Matrix;
use psxanim_runtime::render::bones::{bone_matrices, bone_matrices_q14, crossfade_q14, crossfade_samples};
use super::crossfade_paths;
use super::scene::SceneScratch;
use psxanim_runtime::render::pose_stream::{from_pose_stage, pose_stage};
use psxanim_runtime::render::{PoseStream, PoseVoices};
use psxanim_runtime::tables::stream::{advance_voice, pose_voice_q14, target, words_needed, VoiceState};
use psxanim_runtime::tables::{TableError, Tables};

/// Record cycle slots (root counter 2 ticks): the slowest and the total of `FRAMES` interpolated
/// frames (decode + pose), the slowest decode and the slowest pose alone, the slowest seek (decode +
/// pose), and the slowest stepped (not interpolated) frame.
pub const SLOT_POSE_SLOWEST: usize = 48;
pub const SLOT_POSE_TOTAL: usize = 49;
pub const SLOT_DECODE_SLOWEST: usize = 50;
pub const SLOT_MATRICES_SLOWEST: usize = 51;
pub const SLOT_SEEK_SLOWEST: usize = 52;
pub const SLOT_STEPPED_SLOWEST: usize = 53;
/// Not cycles: the decoder words one voice of the Walk needs (state bytes = 4 x this).
pub const SLOT_STATE_WORDS: usize = 54;
/// The slowest decode of a frame whose voice stays on the frame it stood on (poses written, no record
/// of the playing voice read; the spare voice may prepare a block boundary).
pub const SLOT_DECODE_IN_PLACE_SLOWEST: usize = 55;
/// The slowest frame of a crossfade (both clips' poses, their blend and the matrices), and its
/// slowest decode and blend alone.
pub const SLOT_CROSSFADE_SLOWEST: usize = 56;
pub const SLOT_CROSSFADE_DECODE_SLOWEST: usize = 57;
/// The slowest blend alone of those frames (`crossfade_q14` of the 20 poses).
pub const SLOT_CROSSFADE_BLEND_SLOWEST: usize = 62;
/// The scene frame the example runs this bench at (after the record's late words): its several
/// frames of work hold the last picture on screen; the verifier's screenshots need only differ.
pub const RUN_AT_FRAME: u32 = 24;
/// Display frames measured (60 Hz: 15 samples of the 30 Hz clip, and the frames between them), after
/// the one that starts the voice.
pub const FRAMES: u32 = 30;
/// The clip frame forward playback is measured from (the first block ends at frame 16).
pub const START_FRAME: u16 = 8;
/// Frames the seeks restart at (interpolated halfway toward the next): a block's first frames (what
/// a play or a crossfade from a clip's start reads: two records), the last frame of the first block
/// (the most records to read) and one near the end of the second.
pub const SEEKS: [u16; 4] = [0, 15, 16, 29];
/// The Walk's block frames (the host's expectation checks the blob says so).
pub const BLOCK_FRAMES: u16 = 16;
/// The slowest seek to a block's first frames (`SEEKS` 0 and 16).
pub const SLOT_SEEK_BLOCK_START_SLOWEST: usize = 58;
/// The forward frames' cost split (one voice, no `PoseStream`, the same `FRAMES` frames): the slowest
/// record pass (advancing the voice), the slowest pose writing (interpolation and the fourth
/// component into `PoseQ14`, the voice standing on its frame) and the slowest compose of the 20 poses.
pub const SLOT_SPLIT_RECORD_SLOWEST: usize = 64;
pub const SLOT_SPLIT_WRITE_SLOWEST: usize = 65;
pub const SLOT_SPLIT_COMPOSE_SLOWEST: usize = 66;
/// The record passes' and the pose writings' totals over those frames (their averages).
pub const SLOT_SPLIT_RECORD_TOTAL: usize = 67;
pub const SLOT_SPLIT_WRITE_TOTAL: usize = 68;
/// Stepped frames measured (each sample shown twice at 60 Hz).
pub const STEPPED_FRAMES: u32 = 12;
/// Display frames of the crossfade measured: the Walk restarting into itself, blended over
/// `FADE_CLIP_FRAMES` clip frames (30 Hz) from clip frame `START_FRAME`, as `render_streamed` poses it.
pub const FADE_FRAMES: u32 = 16;
pub const FADE_CLIP_FRAMES: u16 = 8;
/// Decoder words per voice offered (the 20-bone Walk needs 66).
pub const STREAM_WORDS: usize = 96;
/// Words the probes leave: a hash of every frame's matrices, of each seek's, of each stepped frame's,
/// of each crossfade frame's, the crossfade's paths (`crossfade_paths`), and the state words.
pub const WORDS: usize = FRAMES as usize + SEEKS.len() + STEPPED_FRAMES as usize + FADE_FRAMES as usize + crossfade_paths::WORDS + 1 + CLIP_HASHES;
/// Clips of the fixture character played through [`clip_hashes`] (a word each, 0 past its clips).
pub const CLIP_HASHES: usize = 4;
/// Frames of each of those clips played at 60 Hz (each frame shown, then halfway to the next).
pub const CLIP_FRAMES: u16 = 40;

/// Every clip of `rigid` (the fixture character: an animated root translation, a clip whose poses
/// the GTE's form cannot take, the added wave clip) played at 60 Hz through a `PoseStream` as
/// `render_streamed` poses it, in the GTE's form or else as samples: per clip, one hash of every
/// pose or sample written and of the route taken. On the console these are the asm loops.
fn clip_hashes(rigid: &Tables, scratch: &mut SceneScratch, push: &mut dyn FnMut(u32)) -> Result<(), TableError> {
    let bones = rigid.bone_count().min(scratch.poses.len());
    for clip in 0..CLIP_HASHES {
        if clip >= rigid.clip_count() {
            push(0);
            continue;
        }
        let frames = rigid.clip(clip)?.frame_count;
        let mut stream = PoseStream::<STREAM_WORDS>::new();
        let mut h = 0x811C_9DC5u32;
        let mut mix = |w: u32| h = (h ^ w).wrapping_mul(0x0100_0193);
        for frame in 0..frames.min(CLIP_FRAMES) {
            let next = if frame + 1 < frames { frame + 1 } else { frame };
            for (next, weight) in [(frame, 0), (next, 2048)] {
                let s = FrameSample { clip: clip as u16, frame, next, weight };
                if stream.pose_q14(rigid, &s, &mut scratch.poses[..bones])? {
                    mix(1);
                    for p in &scratch.poses[..bones] {
                        p.rotation.iter().chain(&p.translation).for_each(|&c| mix(c as u16 as u32));
                    }
                } else {
                    stream.sample(rigid, &s, &mut scratch.samples[..bones])?;
                    mix(2);
                    for b in &scratch.samples[..bones] {
                        b.rotation.iter().chain(&b.translation).chain(&b.scale).for_each(|&c| mix(c as u32));
                    }
                }
            }
        }
        push(h);
    }
    Ok(())
}

/// The forward frames of `stream_words` on one voice, each frame's three parts timed alone: the
/// slowest record pass, pose writing and compose, and the record passes' and writings' totals (see
/// `SLOT_SPLIT_RECORD_SLOWEST`).
fn split<B: Cop2>(
    twenty: &Tables,
    clip: usize,
    object: &Matrix,
    gte: &mut Gte<B>,
    scratch: &mut SceneScratch,
    clock: &mut dyn FnMut() -> u16,
) -> Result<[u32; 5], TableError> {
    let bones = twenty.bone_count().min(scratch.poses.len());
    let (mut voice, mut words) = (VoiceState::IDLE, [0u32; STREAM_WORDS]);
    let mut a = Animator::new(60, Sampling::Interpolated);
    a.play(twenty, clip, true)?;
    a.update(2 * START_FRAME as u32);
    let (mut record, mut write, mut compose, mut record_total, mut write_total) = (0, 0, 0, 0, 0);
    for i in 0..=FRAMES {
        let s = a.pose().map(|p| p.current).unwrap_or(FrameSample { clip: clip as u16, frame: 0, next: 0, weight: 0 });
        let (g, w) = target(s.frame, s.next, s.weight);
        let t0 = clock();
        advance_voice(twenty, &mut voice, &mut words, clip, g)?;
        let t1 = clock();
        // SAFETY: as `stream_words`' frames (the stage is used only until the compose below).
        let poses = unsafe { pose_stage(&mut scratch.poses[..bones]) };
        pose_voice_q14(twenty, &mut voice, &mut words, clip, g, w, poses)?;
        let t2 = clock();
        bone_matrices_q14(gte, twenty, poses, object, &mut scratch.matrices[..bones]);
        let t3 = clock();
        // The first frame is a seek (the voice stands nowhere yet).
        if i > 0 {
            record = record.max(t1.wrapping_sub(t0) as u32);
            write = write.max(t2.wrapping_sub(t1) as u32);
            record_total += t1.wrapping_sub(t0) as u32;
            write_total += t2.wrapping_sub(t1) as u32;
            compose = compose.max(t3.wrapping_sub(t2) as u32);
        }
        a.update(1);
    }
    Ok([record, write, compose, record_total, write_total])
}

/// FNV-1a over every matrix's words.
fn hash(matrices: &[Matrix]) -> u32 {
    let mut h = 0x811C_9DC5u32;
    for m in matrices {
        let r = m.rotation;
        let words = [r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2]]
            .map(|e| e as u16 as u32)
            .into_iter()
            .chain([m.translation.x as u32, m.translation.y as u32, m.translation.z as u32]);
        for w in words {
            h = (h ^ w).wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// Plays, times and probes (see the module). `clock` reads root counter 2 (the host's returns 0);
/// `cycles(slot, ticks)` records a figure; `push` a probe word.
#[allow(clippy::too_many_arguments)]
pub fn stream_words<B: Cop2>(
    twenty: &Tables,
    character: &Tables,
    object: &Matrix,
    gte: &mut Gte<B>,
    scratch: &mut SceneScratch,
    clock: &mut dyn FnMut() -> u16,
    cycles: &mut dyn FnMut(usize, u32),
    push: &mut dyn FnMut(u32),
) -> Result<(), TableError> {
    let clip = twenty.find_clip("Walk").ok_or(TableError::ClipOutOfRange { clip: usize::MAX, clips: twenty.clip_count() })?;
    let bones = twenty.bone_count().min(scratch.samples.len());
    let mut stream = PoseStream::<STREAM_WORDS>::new();
    let mut faded = |stream: &mut PoseStream<STREAM_WORDS>, s: &FrameSample, fade: Option<&Fade>, scratch: &mut SceneScratch, gte: &mut Gte<B>| {
        let started = clock();
        let mut blend = 0;
        // As `render_streamed` poses: in the GTE's form when every bone has it (a crossfade's two
        // poses blended in that form), else as samples.
        // SAFETY: the stage is used only until the compose below.
        let poses = unsafe { pose_stage(&mut scratch.poses[..bones]) };
        let q14 = match fade {
            None => stream.pose_q14(twenty, s, poses)?,
            Some(f) => {
                // SAFETY: as `poses`: until the blend, before the compose.
                let from = unsafe { from_pose_stage(&mut scratch.from_poses[..bones]) };
                stream.pose_q14_pair(twenty, s, poses, &f.from, from)? && {
                    let t = clock();
                    let blended = crossfade_q14(from, poses, f.weight);
                    blend = clock().wrapping_sub(t) as u32;
                    blended
                }
            }
        };
        if !q14 {
            let from = fade.map(|f| (&f.from, &mut scratch.from_samples[..bones]));
            stream.sample_pair(twenty, s, &mut scratch.samples[..bones], from)?;
            if let Some(f) = fade {
                crossfade_samples(&scratch.from_samples[..bones], &mut scratch.samples[..bones], f.weight);
            }
        }
        let decoded = clock();
        if q14 {
            bone_matrices_q14(gte, twenty, poses, object, &mut scratch.matrices[..bones]);
        } else {
            bone_matrices(gte, twenty, &scratch.samples[..bones], object, &mut scratch.matrices[..bones]);
        }
        let done = clock();
        Ok::<_, TableError>((decoded.wrapping_sub(started) as u32, done.wrapping_sub(decoded) as u32, blend))
    };
    let mut pose = |stream: &mut PoseStream<STREAM_WORDS>, s: &FrameSample, scratch: &mut SceneScratch, gte: &mut Gte<B>| {
        faded(stream, s, None, scratch, gte).map(|(decode, matrices, _)| (decode, matrices))
    };
    let (mut slowest, mut total, mut slowest_decode, mut slowest_matrices, mut slowest_in_place) = (0, 0, 0, 0, 0);
    let mut a = Animator::new(60, Sampling::Interpolated);
    a.play(twenty, clip, true)?;
    // Playback measured from clip frame `START_FRAME` on (across a block boundary); the first pose
    // there is a seek (the voice stands nowhere yet) and is timed as one.
    a.update(2 * START_FRAME as u32);
    let mut slowest_seek = 0;
    let first = a.pose().map(|p| p.current).unwrap_or(FrameSample { clip: clip as u16, frame: 0, next: 0, weight: 0 });
    let (decode, matrices) = pose(&mut stream, &first, scratch, gte)?;
    slowest_seek = slowest_seek.max(decode + matrices);
    a.update(1);
    let mut stood = target(first.frame, first.next, first.weight).0;
    for _ in 0..FRAMES {
        let s = a.pose().map(|p| p.current).unwrap_or(FrameSample { clip: clip as u16, frame: 0, next: 0, weight: 0 });
        let (decode, matrices) = pose(&mut stream, &s, scratch, gte)?;
        push(hash(&scratch.matrices[..bones]));
        // A frame whose voice stays where it stood (60 Hz between two samples): no record of the
        // playing voice read (the spare voice may prepare a block boundary).
        let g = target(s.frame, s.next, s.weight).0;
        if g == stood {
            slowest_in_place = slowest_in_place.max(decode);
        }
        stood = g;
        slowest = slowest.max(decode + matrices);
        total += decode + matrices;
        slowest_decode = slowest_decode.max(decode);
        slowest_matrices = slowest_matrices.max(matrices);
        a.update(1);
    }
    let mut slowest_block_start = 0;
    for frame in SEEKS {
        stream.reset();
        let s = FrameSample { clip: clip as u16, frame, next: frame + 1, weight: 2048 };
        let (decode, matrices) = pose(&mut stream, &s, scratch, gte)?;
        push(hash(&scratch.matrices[..bones]));
        slowest_seek = slowest_seek.max(decode + matrices);
        if frame % BLOCK_FRAMES == 0 {
            slowest_block_start = slowest_block_start.max(decode + matrices);
        }
    }
    let mut slowest_stepped = 0;
    let mut a = Animator::new(60, Sampling::Step);
    a.play(twenty, clip, true)?;
    stream.reset();
    for _ in 0..STEPPED_FRAMES {
        let s = a.pose().map(|p| p.current).unwrap_or(FrameSample { clip: clip as u16, frame: 0, next: 0, weight: 0 });
        let (decode, matrices) = pose(&mut stream, &s, scratch, gte)?;
        push(hash(&scratch.matrices[..bones]));
        slowest_stepped = slowest_stepped.max(decode + matrices);
        a.update(1);
    }
    // A crossfade: the Walk restarting into itself (both voices in one clip, each moving forward).
    let (mut slowest_fade, mut slowest_fade_decode, mut slowest_blend) = (0, 0, 0);
    let mut a = Animator::new(60, Sampling::Interpolated);
    a.play(twenty, clip, true)?;
    stream.reset();
    a.update(2 * START_FRAME as u32);
    let start = a.pose().map(|p| p.current).unwrap_or(FrameSample { clip: clip as u16, frame: 0, next: 0, weight: 0 });
    pose(&mut stream, &start, scratch, gte)?;
    a.crossfade(twenty, clip, true, FADE_CLIP_FRAMES)?;
    for _ in 0..FADE_FRAMES {
        a.update(1);
        let Some(p) = a.pose() else { break };
        let (decode, matrices, blend) = faded(&mut stream, &p.current, p.fade.as_ref(), scratch, gte)?;
        push(hash(&scratch.matrices[..bones]));
        slowest_fade = slowest_fade.max(decode + matrices);
        slowest_fade_decode = slowest_fade_decode.max(decode);
        slowest_blend = slowest_blend.max(blend);
    }
    crossfade_paths::words(push);
    let [record, write, compose, record_total, write_total] = split(twenty, clip, object, gte, scratch, clock)?;
    let state = words_needed(twenty, clip)? as u32;
    push(state);
    clip_hashes(character, scratch, push)?;
    for (slot, v) in [
        (SLOT_POSE_SLOWEST, slowest),
        (SLOT_POSE_TOTAL, total),
        (SLOT_DECODE_SLOWEST, slowest_decode),
        (SLOT_MATRICES_SLOWEST, slowest_matrices),
        (SLOT_SEEK_SLOWEST, slowest_seek),
        (SLOT_STEPPED_SLOWEST, slowest_stepped),
        (SLOT_STATE_WORDS, state),
        (SLOT_DECODE_IN_PLACE_SLOWEST, slowest_in_place),
        (SLOT_CROSSFADE_SLOWEST, slowest_fade),
        (SLOT_CROSSFADE_DECODE_SLOWEST, slowest_fade_decode),
        (SLOT_CROSSFADE_BLEND_SLOWEST, slowest_blend),
        (SLOT_SEEK_BLOCK_START_SLOWEST, slowest_block_start),
        (SLOT_SPLIT_RECORD_SLOWEST, record),
        (SLOT_SPLIT_WRITE_SLOWEST, write),
        (SLOT_SPLIT_COMPOSE_SLOWEST, compose),
        (SLOT_SPLIT_RECORD_TOTAL, record_total),
        (SLOT_SPLIT_WRITE_TOTAL, write_total),
    ] {
        cycles(slot, v);
    }
    Ok(())
}
