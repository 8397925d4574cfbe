//! SkeletonController: plays clips on a skeleton, cuts or crossfades between them, reports markers.
//!
//! `update(vsyncs, on_marker)` advances time (vsync delta through the [`TimeScale`]) and reports the
//! markers crossed; `evaluate(gte, out)` samples every channel and composes the model-space matrices.
//!
//! Time semantics (all in ticks, 4096 per clip frame):
//! - A clip of length `L` covers `[0, L)`. Looping clips wrap to `[0, L)` exactly (no overshoot) and
//!   interpolate from their last key back to their first across the wrap. Non-looping clips stop at
//!   `L` and show their last frame (`L - 1`) from then on.
//! - A marker at frame `m` is reported by the update whose interval `[before, after)` contains `m`:
//!   at most once per pass, in time order, across a wrap too. The first update after `play` reports
//!   markers at frame 0. When one update spans whole loops beyond the current pass, each marker is
//!   reported once for all of them. A marker at `L` (the clip's end) is reported at the wrap, or by
//!   the update that brings a non-looping clip to its end ([`crate::anim::Player`]).
//! - During a crossfade only the incoming clip reports markers; the outgoing one keeps playing.
//!
//! Clip sources ([`ClipSource`]): ANIMBIN clips are sampled key by key; compiled clips
//! ([`crate::clipbin`]) hold the pose of every clip frame, compiled on the host by this same code.
//! A compiled clip shows the frame under the playhead, `floor(time)`: at whole frames it equals the
//! ANIMBIN evaluation bit for bit; between frames (a time scale that is not whole frames per vsync,
//! e.g. 60 Hz clips on PAL) it holds the frame instead of interpolating. Alone it costs a copy of the
//! matrices; during a crossfade its stored local transforms are blended and composed like ANIMBIN's.

use super::channel::{lerp, segment_rotation, RotationChannel, TranslationChannel};
use super::prepared::{PreparedClip, Time};
use super::interp;
use super::player::{Markers, NoMarkers, Player, Voice};
use super::playhead::Playhead;
use super::skeleton::{compose_bone_words, compose_pose, LocalTransform, Skeleton, ROOT};
use super::words::{column_words, ColumnWords};
use super::time::{TimeScale, TICKS_PER_FRAME};
use crate::animbin::Clip;
use crate::clipbin::read::CompiledClip;
use crate::gte::{round_q14, Cop2, Gte, PoseQ14};
use crate::math::{Matrix, Quat, Vec3i32};
use crate::tables::{parent_step, ParentSteps};

pub use super::player::MarkerEvent;

/// Why a controller or a clip cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayError {
    /// The skeleton has more bones than the controller's `BONES` capacity.
    SkeletonTooLarge { bones: usize, capacity: usize },
    /// The clip animates joints this skeleton does not have.
    SkeletonMismatch { clip_joints: usize, skeleton_bones: usize },
    /// A compiled clip holds poses of another number of bones.
    CompiledBones { clip_bones: usize, skeleton_bones: usize },
    /// A compiled clip played with the other looping flag than it was compiled for (the frames
    /// after its last key differ).
    CompiledLooping { compiled: bool },
}

impl core::fmt::Display for PlayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PlayError::SkeletonTooLarge { bones, capacity } => {
                write!(f, "skeleton has {bones} bones, the controller holds {capacity}")
            }
            PlayError::SkeletonMismatch { clip_joints, skeleton_bones } => write!(
                f,
                "clip animates joints up to {}, the skeleton has {skeleton_bones} bones",
                clip_joints - 1
            ),
            PlayError::CompiledBones { clip_bones, skeleton_bones } => {
                write!(f, "compiled clip holds {clip_bones} bones, the skeleton has {skeleton_bones}")
            }
            PlayError::CompiledLooping { compiled } => {
                write!(f, "compiled clip was compiled with looping = {compiled}, played with {}", !compiled)
            }
        }
    }
}

/// What a controller plays: an ANIMBIN clip (sampled from its keys) or a compiled one (a pose per
/// frame). `play` and `crossfade` take either (`Clip` and `CompiledClip` convert into it).
#[derive(Clone, Copy)]
pub enum ClipSource<'m> {
    Keys(Clip<'m>),
    /// ANIMBIN keys converted at load ([`PreparedClip`]): the same clip, a cheaper frame.
    Prepared(PreparedClip<'m>),
    Compiled(CompiledClip<'m>),
}

impl<'m> From<Clip<'m>> for ClipSource<'m> {
    fn from(c: Clip<'m>) -> Self {
        ClipSource::Keys(c)
    }
}

impl<'m> From<PreparedClip<'m>> for ClipSource<'m> {
    fn from(c: PreparedClip<'m>) -> Self {
        ClipSource::Prepared(c)
    }
}

impl<'m> From<CompiledClip<'m>> for ClipSource<'m> {
    fn from(c: CompiledClip<'m>) -> Self {
        ClipSource::Compiled(c)
    }
}

impl<'m> ClipSource<'m> {
    /// Length in frames.
    pub fn length(&self) -> u16 {
        match self {
            ClipSource::Keys(c) => c.length(),
            ClipSource::Prepared(c) => c.clip().length(),
            ClipSource::Compiled(c) => c.frames(),
        }
    }
    pub fn marker_count(&self) -> usize {
        match self {
            ClipSource::Keys(c) => c.marker_count(),
            ClipSource::Prepared(c) => c.clip().marker_count(),
            ClipSource::Compiled(c) => c.marker_count(),
        }
    }
    /// Marker `index`: name and frame.
    pub fn marker(&self, index: usize) -> Option<(&'m [u8], u16)> {
        match self {
            ClipSource::Keys(c) => c.marker(index).map(|m| (m.name, m.frame)),
            ClipSource::Prepared(c) => c.clip().marker(index).map(|m| (m.name, m.frame)),
            ClipSource::Compiled(c) => c.marker(index),
        }
    }
}

/// A clip's ANIMBIN channels, one per animated joint and key type (none for a compiled clip). Its
/// time is the player's voice of the same clip.
#[derive(Clone, Copy)]
struct Layer<'m, const BONES: usize> {
    bytes: &'m [u8],
    rotation: [Option<RotationChannel>; BONES],
    translation: [Option<TranslationChannel>; BONES],
    /// One past the last joint with a translation channel: the loops over them stop there (baked
    /// rotation clips have none).
    translation_end: usize,
    /// A prepared clip's rotation keys (then `rotation` is empty) and each joint's last segment.
    prepared: Option<PreparedClip<'m>>,
    segments: [u16; BONES],
}

/// The player's markers of a [`ClipSource`]: the clip's own.
struct SourceMarkers;

impl<'m> Markers<'m, ClipSource<'m>> for SourceMarkers {
    fn marker_count(&self, clip: &ClipSource<'m>) -> usize {
        clip.marker_count()
    }
    fn marker(&self, clip: &ClipSource<'m>, index: usize) -> Option<(&'m [u8], u16)> {
        clip.marker(index)
    }
}

/// The time whose pose is shown: a finished non-looping clip shows its last frame. A playhead spans
/// the whole clip, `[0, length)` frames: looping wraps at `length`, otherwise holds there.
#[inline]
fn shown_time(playhead: &Playhead) -> u32 {
    let time = playhead.time();
    if playhead.looping() {
        time
    } else {
        time.min(playhead.span().saturating_sub(TICKS_PER_FRAME))
    }
}

impl<'m, const BONES: usize> Layer<'m, BONES> {
    const EMPTY: Self = Layer {
        bytes: &[],
        rotation: [None; BONES],
        translation: [None; BONES],
        translation_end: 0,
        prepared: None,
        segments: [0; BONES],
    };

    /// `clip.joint_count() <= BONES` is checked by the caller, so every joint fits.
    fn new(source: ClipSource<'m>) -> Self {
        let (clip, prepared) = match source {
            ClipSource::Keys(clip) => (clip, None),
            ClipSource::Prepared(p) => (p.clip(), Some(p)),
            ClipSource::Compiled(_) => return Self::EMPTY,
        };
        let bytes = clip.bytes();
        let mut layer = Layer { bytes, prepared, ..Self::EMPTY };
        for track in clip.tracks() {
            let j = track.joint() as usize;
            if let (None, Some(c)) = (prepared, RotationChannel::new(bytes, &track)) {
                layer.rotation[j] = Some(c);
            }
            if let Some(c) = TranslationChannel::new(bytes, &track) {
                layer.translation[j] = Some(c);
                layer.translation_end = layer.translation_end.max(j + 1);
            }
        }
        layer
    }

    /// Overwrites, in `locals` (one entry per bone, at most `BONES`), the channels the clip of
    /// `voice` animates at its time.
    ///
    /// Done pass by pass over all channels (segment lookup and key decoding, then interpolation) so
    /// that each pass's code stays within the R3000's 4 KiB instruction cache.
    fn sample_all(&mut self, voice: &Voice<ClipSource<'m>>, locals: &mut [LocalTransform]) {
        let t = shown_time(&voice.playhead);
        let n = locals.len().min(BONES);
        let source = voice.clip;
        if let ClipSource::Compiled(c) = source {
            let frame = (t / TICKS_PER_FRAME) as u16;
            for (bone, local) in locals.iter_mut().enumerate() {
                *local = c.local(frame, bone);
            }
            return;
        }
        let (bytes, length, looping) = (self.bytes, source.length(), voice.playhead.looping());
        prepare_pass(&mut self.rotation[..n], &mut self.translation[..n.min(self.translation_end)], bytes, t, length, looping);
        for (local, c) in locals.iter_mut().zip(&self.rotation[..n]) {
            if let Some(c) = c {
                local.rotation = c.value(t);
            }
        }
        if let Some(p) = self.prepared {
            for (joint, (local, cached)) in locals.iter_mut().zip(&mut self.segments[..n]).enumerate() {
                if let Some(s) = p.segment(joint, cached, t, length, looping) {
                    local.rotation = segment_rotation(s.q0, s.q1, s.wide, s.t);
                }
            }
        }
        for (local, c) in locals.iter_mut().zip(&self.translation[..n.min(self.translation_end)]) {
            if let Some(c) = c {
                local.translation = c.value(t);
            }
        }
    }
}

/// Blends two local transforms: `to` weighted by `w` (FP12), rotations along the shortest arc.
fn blend(from: LocalTransform, to: LocalTransform, w: i32) -> LocalTransform {
    // The ends are exact, not renormalised.
    if w <= 0 {
        return from;
    }
    if w >= TICKS_PER_FRAME as i32 {
        return to;
    }
    let a = from.rotation;
    let mut b = to.rotation;
    let mut d = interp::dot(a, b);
    if d < 0 {
        b = Quat::new(-b.w, -b.x, -b.y, -b.z);
        d = -d;
    }
    let rotation = if d < interp::NLERP_MIN_COS { interp::slerp(a, b, w) } else { interp::nlerp(a, b, w) };
    LocalTransform { rotation, translation: lerp(from.translation, to.translation, w) }
}

/// Plays clips (ANIMBIN or compiled, see [`ClipSource`]) on a skeleton of at most `BONES` bones. No
/// heap: a [`Player`] (time, wrap, crossfade weight, markers) and two layers of `BONES` channel
/// slots (the playing clip and, during a crossfade, the outgoing one).
pub struct SkeletonController<'a, const BONES: usize> {
    skeleton: Skeleton<'a>,
    scale: TimeScale,
    player: Player<ClipSource<'a>>,
    /// Channels of the player's current and outgoing voices.
    layer: Layer<'a, BONES>,
    outgoing_layer: Layer<'a, BONES>,
    /// Local transforms of the last evaluation, and of the outgoing clip during a crossfade.
    locals: [LocalTransform; BONES],
    outgoing_locals: [LocalTransform; BONES],
    /// `locals` holds the bind pose except for the channels of `layer` (what the one-clip path,
    /// [`Self::evaluate_keys`], keeps up to date); false after a play, a crossfade or a blend.
    locals_fresh: bool,
    /// The bind rotations as matrices ([`ColumnWords`]), for the bones a clip does not rotate.
    bind_rotation: [ColumnWords; BONES],
    /// The local rotation matrices of the last [`Self::evaluate_keys`].
    rotation_words: [ColumnWords; BONES],
    /// The translations of `locals` as [`Cop2::compose_columns_run`] takes them.
    translation_words: [[u32; 2]; BONES],
    /// A prepared clip's local poses in the GTE's form (bind pose where it animates nothing),
    /// composed by [`Cop2::compose_q14_chain`]; a translation beyond `i16` is 0 here (see
    /// [`compose_wide`]).
    poses: [PoseQ14; BONES],
    /// The skeleton's parents as the chain walks them ([`crate::tables::Tables::parent_steps`]).
    steps: [u8; BONES],
    /// Every bind translation fits `i16`.
    bind_narrow: bool,
    /// `locals`' rotations are stale: the last evaluation (a prepared clip) wrote only `poses`
    /// ([`Self::evaluated_locals`] rounds them when asked).
    rotations_in_poses: bool,
}

impl<'a, const BONES: usize> SkeletonController<'a, BONES> {
    /// A controller with no clip (the skeleton shows its bind pose) and the native time scale.
    pub fn new(skeleton: Skeleton<'a>) -> Result<Self, PlayError> {
        if skeleton.len() > BONES {
            return Err(PlayError::SkeletonTooLarge { bones: skeleton.len(), capacity: BONES });
        }
        Ok(SkeletonController {
            skeleton,
            scale: TimeScale::NATIVE,
            player: Player::new(),
            layer: Layer::EMPTY,
            outgoing_layer: Layer::EMPTY,
            locals: [LocalTransform::IDENTITY; BONES],
            outgoing_locals: [LocalTransform::IDENTITY; BONES],
            locals_fresh: false,
            bind_rotation: core::array::from_fn(|bone| match skeleton.bind().get(bone) {
                Some(b) => column_words(&interp::to_rotation(b.rotation)),
                None => column_words(&Matrix::IDENTITY.rotation),
            }),
            rotation_words: [[0; 5]; BONES],
            translation_words: [[0; 2]; BONES],
            poses: [PoseQ14::default(); BONES],
            steps: core::array::from_fn(|bone| if bone < skeleton.len() { parent_step(skeleton.parents(), bone) } else { 0 }),
            bind_narrow: skeleton.bind().iter().all(|b| pose_translation(b.translation).is_some()),
            rotations_in_poses: false,
        })
    }

    /// How vsyncs become clip frames (e.g. `TimeScale::from_rates(60, 50)` on PAL for 60 Hz clips).
    pub fn set_time_scale(&mut self, scale: TimeScale) {
        self.scale = scale;
        self.player.set_time_scale(scale);
    }

    pub fn skeleton(&self) -> &Skeleton<'a> {
        &self.skeleton
    }

    fn check(&self, clip: &ClipSource<'a>, looping: bool) -> Result<(), PlayError> {
        let bones = self.skeleton.len();
        match clip {
            ClipSource::Keys(c) | ClipSource::Prepared(PreparedClip { clip: c, .. }) if c.joint_count() > bones => {
                Err(PlayError::SkeletonMismatch { clip_joints: c.joint_count(), skeleton_bones: bones })
            }
            ClipSource::Compiled(c) if c.bone_count() != bones => {
                Err(PlayError::CompiledBones { clip_bones: c.bone_count(), skeleton_bones: bones })
            }
            ClipSource::Compiled(c) if c.looping() != looping => Err(PlayError::CompiledLooping { compiled: c.looping() }),
            _ => Ok(()),
        }
    }

    /// Cuts to `clip` at frame 0 (any crossfade in progress ends).
    pub fn play(&mut self, clip: impl Into<ClipSource<'a>>, looping: bool) -> Result<(), PlayError> {
        let clip = clip.into();
        self.check(&clip, looping)?;
        self.player.play(clip, clip.length() as u32 * TICKS_PER_FRAME, looping, self.scale);
        self.layer = Layer::new(clip);
        self.refresh_locals();
        Ok(())
    }

    /// Starts `clip` at frame 0 and blends to it from the current pose over `frames` clip frames
    /// (measured with the time scale, like playback). With nothing playing, or `frames == 0`, it is a
    /// cut. A crossfade started during another one fades out from the newer clip only.
    pub fn crossfade(&mut self, clip: impl Into<ClipSource<'a>>, looping: bool, frames: u16) -> Result<(), PlayError> {
        let clip = clip.into();
        self.check(&clip, looping)?;
        if frames == 0 || self.player.current().is_none() {
            return self.play(clip, looping);
        }
        self.player.crossfade(clip, clip.length() as u32 * TICKS_PER_FRAME, looping, self.scale, frames);
        self.outgoing_layer = core::mem::replace(&mut self.layer, Layer::new(clip));
        self.locals_fresh = false;
        Ok(())
    }

    /// Advances by `vsyncs` (the difference of successive vsync counts) and reports every marker of
    /// the playing clip crossed on the way.
    pub fn update(&mut self, vsyncs: u32, mut on_marker: impl FnMut(MarkerEvent<'a>)) {
        self.player.update(vsyncs, &SourceMarkers, &mut on_marker);
    }

    /// [`update`](Self::update) ignoring markers.
    pub fn advance(&mut self, vsyncs: u32) {
        self.player.update(vsyncs, &NoMarkers, &mut |_| {});
    }

    /// Playing clip's time in ticks (4096 per frame), 0 with no clip.
    pub fn time(&self) -> u32 {
        self.player.time()
    }

    /// True when a non-looping clip has reached its end (it keeps showing its last frame).
    pub fn finished(&self) -> bool {
        self.player.finished()
    }

    /// True while a crossfade is blending.
    pub fn fading(&self) -> bool {
        self.player.fading()
    }

    /// Samples every bone's local transform into `self.locals`: bind pose, overwritten by the
    /// playing clip's channels, blended with the outgoing clip during a crossfade.
    fn sample_locals(&mut self) -> usize {
        let bind = self.skeleton.bind();
        let n = bind.len(); // <= BONES, checked in `new`
        self.locals[..n].copy_from_slice(bind);
        self.locals_fresh = false; // `rotation_words` not refreshed here
        self.rotations_in_poses = false;
        if let Some(voice) = self.player.current() {
            self.layer.sample_all(voice, &mut self.locals[..n]);
        }
        if let Some(voice) = self.player.outgoing() {
            self.outgoing_locals[..n].copy_from_slice(bind);
            self.outgoing_layer.sample_all(voice, &mut self.outgoing_locals[..n]);
            let w = self.player.fade_weight() as i32;
            for (local, old) in self.locals[..n].iter_mut().zip(&self.outgoing_locals[..n]) {
                *local = blend(*old, *local, w);
            }
        }
        n
    }

    /// Bone `bone`'s local transform now (the identity for a bone out of range).
    pub fn local(&mut self, bone: usize) -> LocalTransform {
        let n = self.sample_locals();
        if bone < n {
            self.locals[bone]
        } else {
            LocalTransform::IDENTITY
        }
    }

    /// The model-space matrices of every bone, borrowed: a compiled clip playing alone (blob 4-aligned
    /// in memory) hands out its stored pose in place, with no work at all; anything else is
    /// [`evaluate`](Self::evaluate)d into `scratch` (the first `min(bones, scratch.len())`).
    pub fn pose<'s, B: Cop2>(&'s mut self, gte: &mut Gte<B>, scratch: &'s mut [Matrix]) -> &'s [Matrix] {
        if let (Some(voice), None) = (self.player.current(), self.player.outgoing()) {
            if let ClipSource::Compiled(c) = voice.clip {
                if let Some(pose) = c.pose((shown_time(&voice.playhead) / TICKS_PER_FRAME) as u16) {
                    return pose;
                }
            }
        }
        let n = self.skeleton.len().min(scratch.len());
        self.evaluate(gte, &mut scratch[..n]);
        &scratch[..n]
    }

    /// Model-space matrices of every bone (the first `min(bones, out.len())`), composed parent-first
    /// on the GTE. A prepared clip playing alone composes in Q14 ([`Self::evaluate_prepared`]) and
    /// uses the scratchpad's first 512 bytes meanwhile (the chain's parent copies).
    pub fn evaluate<B: Cop2>(&mut self, gte: &mut Gte<B>, out: &mut [Matrix]) {
        // A compiled clip alone: its stored pose is the result.
        if let (Some(voice), None) = (self.player.current(), self.player.outgoing()) {
            if let ClipSource::Compiled(c) = voice.clip {
                let n = self.skeleton.len().min(out.len());
                c.write_pose((shown_time(&voice.playhead) / TICKS_PER_FRAME) as u16, &mut out[..n]);
                return;
            }
        }
        if let (Some(voice), None) = (self.player.current(), self.player.outgoing()) {
            if let ClipSource::Keys(clip) | ClipSource::Prepared(PreparedClip { clip, .. }) = voice.clip {
                // The three numbers the passes need, not a copy of the voice.
                let (t, looping) = (shown_time(&voice.playhead), voice.playhead.looping());
                self.evaluate_keys(gte, t, clip.length(), looping, out);
                return;
            }
        }
        self.sample_locals();
        let locals = &self.locals;
        compose_pose(gte, &self.skeleton, out, |bone| locals[bone]);
    }

    /// The bind pose into `locals`, `rotation_words` and `translation_words` (done by `play`, so that the frames after it
    /// do not pay for it).
    fn refresh_locals(&mut self) {
        // Element by element: word loads and stores, not a byte-looping memcpy.
        for (l, b) in self.locals.iter_mut().zip(self.skeleton.bind()) {
            *l = *b;
        }
        let n = self.skeleton.len().min(BONES);
        for (w, b) in self.rotation_words[..n].iter_mut().zip(&self.bind_rotation[..n]) {
            *w = *b;
        }
        for (w, l) in self.translation_words[..n].iter_mut().zip(&self.locals[..n]) {
            *w = translation_words(l.translation);
        }
        for (p, l) in self.poses[..n].iter_mut().zip(&self.locals[..n]) {
            let q = l.rotation;
            *p = PoseQ14::new([q.x, q.y, q.z, q.w].map(|c| c << 2), pose_translation(l.translation).unwrap_or([0; 3]));
        }
        self.locals_fresh = true;
        self.rotations_in_poses = false;
    }

    /// One ANIMBIN clip playing alone, at shown time `t` of a clip of `length` frames, in three
    /// passes over the bones, each small enough for the R3000's 4 KiB instruction cache (one loop
    /// over everything thrashed it): segments (cursor steps and key decoding), local rotation
    /// matrices (nlerp and the matrix's products on the GTE, [`Cop2::nlerp_rotation`]) and
    /// translations, then the composition with the parents ([`Cop2::compose_columns`]). Bones
    /// without a rotation channel keep the bind pose's matrix. The same results as
    /// [`Self::sample_locals`] then [`compose_pose`]. A prepared clip takes
    /// [`Self::evaluate_prepared`].
    fn evaluate_keys<B: Cop2>(&mut self, gte: &mut Gte<B>, t: u32, length: u16, looping: bool, out: &mut [Matrix]) {
        let parents = self.skeleton.parents();
        let n = parents.len().min(out.len()).min(BONES);
        if !self.locals_fresh {
            self.refresh_locals();
        }
        if let Some(p) = self.layer.prepared {
            return self.evaluate_prepared(gte, &p, Time { ticks: t, length, looping }, &mut out[..n]);
        }
        let bytes = self.layer.bytes;
        let m = n.min(self.layer.translation_end);
        prepare_pass(&mut self.layer.rotation[..n], &mut self.layer.translation[..m], bytes, t, length, looping);
        for ((local, w), c) in self.locals[..n].iter_mut().zip(&mut self.translation_words[..n]).zip(&self.layer.translation[..m]) {
            if let Some(c) = c {
                local.translation = c.value(t);
                *w = translation_words(local.translation);
            }
        }
        rotation_pass(gte, &self.layer.rotation[..n], t, &mut self.locals[..n], &mut self.rotation_words[..n]);
        let bones = ComposeBones { words: &self.rotation_words[..n], translations: &self.translation_words[..n], locals: &self.locals[..n], parents };
        compose_pass(gte, bones, out);
    }

    /// A prepared clip playing alone (`out`: at most the skeleton's bones, `locals` fresh): its
    /// translations into `locals` and `poses`, each rotation segment's normalised lerp into `poses`
    /// in Q14 ([`Cop2::nlerp_q14`], no matrix), then one [`Cop2::compose_q14_chain`] with the
    /// identity as the roots' parent: `out[b] = out[parent] * pose[b]`, the local matrix's entries
    /// from the Q14 quaternion's products. Where a translation does not fit `i16`, bone by bone
    /// ([`compose_wide`]).
    fn evaluate_prepared<B: Cop2>(&mut self, gte: &mut Gte<B>, prepared: &PreparedClip<'_>, at: Time, out: &mut [Matrix]) {
        let n = out.len();
        let m = n.min(self.layer.translation_end);
        prepare_pass(&mut [], &mut self.layer.translation[..m], self.layer.bytes, at.ticks, at.length, at.looping);
        let mut narrow = self.bind_narrow;
        for ((local, pose), c) in self.locals[..n].iter_mut().zip(&mut self.poses[..n]).zip(&self.layer.translation[..m]) {
            if let Some(c) = c {
                local.translation = c.value(at.ticks);
                let t = pose_translation(local.translation);
                narrow &= t.is_some();
                pose.translation = t.unwrap_or([0; 3]);
            }
        }
        prepared_pass(gte, prepared, at, &mut self.layer.segments[..n], &mut self.poses[..n]);
        self.rotations_in_poses = true;
        if narrow {
            let steps = ParentSteps::of_parent_first(&self.steps[..n]);
            gte.backend_mut().compose_q14_chain(steps, &self.poses[..n], &Matrix::IDENTITY, out);
        } else {
            compose_wide(gte, &self.poses[..n], &self.locals[..n], self.skeleton.parents(), out);
        }
    }
}

/// A translation as [`PoseQ14`] holds it, `None` beyond `i16`.
#[inline(always)]
fn pose_translation(t: Vec3i32) -> Option<[i16; 3]> {
    let fits = |v: i32| (v.wrapping_add(0x8000) as u32) < 0x1_0000;
    (fits(t.x) & fits(t.y) & fits(t.z)).then_some([t.x as i16, t.y as i16, t.z as i16])
}

/// [`Cop2::compose_q14_chain`] bone by bone, for a pose with a translation beyond `i16`: such a
/// bone is composed with translation 0 ([`Cop2::compose_q14`]), then its translation is the
/// parent's rotation times `locals[b].translation` (`Matrix::rotate_wide`) plus the parent's,
/// wrapping; every other bone as the chain composes it.
#[cold]
#[inline(never)]
fn compose_wide<B: Cop2>(gte: &mut Gte<B>, poses: &[PoseQ14], locals: &[LocalTransform], parents: &[u8], out: &mut [Matrix]) {
    let n = poses.len().min(locals.len()).min(parents.len()).min(out.len());
    for b in 0..n {
        let (done, rest) = out.split_at_mut(b);
        let parent = done.get(parents[b] as usize).copied().unwrap_or(Matrix::IDENTITY);
        gte.backend_mut().compose_q14(&parent, &poses[b], &mut rest[0]);
        let local = &locals[b];
        if pose_translation(local.translation).is_none() {
            rest[0].translation = parent.rotate_wide(local.translation).wrapping_add(parent.translation);
        }
    }
}

/// A translation as [`Cop2::compose_columns_run`] takes it: `x | y << 16` and `z` when all three fit
/// `i16`, else a z word that is not a sign-extended halfword (the run leaves that bone to
/// [`compose_bone_words`]).
fn translation_words(t: Vec3i32) -> [u32; 2] {
    let fits = |v: i32| (v.wrapping_add(0x8000) as u32) < 0x1_0000;
    if fits(t.x) & fits(t.y) & fits(t.z) {
        [t.x as u16 as u32 | (t.y as u32) << 16, t.z as u32]
    } else {
        [0, 0x1_0000]
    }
}

/// What [`compose_pass`] composes: each bone's local rotation words, translation words and local
/// transform, and its parent.
struct ComposeBones<'p> {
    words: &'p [ColumnWords],
    translations: &'p [[u32; 2]],
    locals: &'p [LocalTransform],
    parents: &'p [u8],
}

/// `out[bone] = out[parent] * local` for every bone, the local rotations given as [`ColumnWords`].
#[inline(never)]
fn compose_pass<B: Cop2>(gte: &mut Gte<B>, bones: ComposeBones<'_>, out: &mut [Matrix]) {
    let ComposeBones { words, translations, locals, parents } = bones;
    let n = words.len().min(translations.len()).min(locals.len()).min(parents.len()).min(out.len());
    let (mut loaded, mut bone) = (ROOT, 0);
    // Runs of bones with an earlier parent and a translation within `i16` in one step; roots and
    // wide translations one by one.
    while bone < n {
        bone = gte.backend_mut().compose_columns_run(&words[..n], &translations[..n], &parents[..n], bone, &mut loaded, &mut out[..n]);
        if bone >= n {
            break;
        }
        compose_bone_words(gte, out, bone, parents[bone], &mut loaded, &words[bone], locals[bone].translation);
        bone += 1;
    }
}

/// The segments of every channel at `t` (one instance for every controller size: it is the same
/// loop).
#[inline(never)]
fn prepare_pass(
    rotation: &mut [Option<RotationChannel>],
    translation: &mut [Option<TranslationChannel>],
    bytes: &[u8],
    t: u32,
    length: u16,
    looping: bool,
) {
    for c in rotation.iter_mut().flatten() {
        c.prepare(bytes, t, length, looping);
    }
    for c in translation.iter_mut().flatten() {
        c.prepare(bytes, t, length, looping);
    }
}

/// Each prepared rotation segment's normalised lerp into `poses`, in Q14
/// ([`PreparedClip::rotations_q14`]).
#[inline(never)]
fn prepared_pass<B: Cop2>(gte: &mut Gte<B>, prepared: &PreparedClip<'_>, at: Time, segments: &mut [u16], poses: &mut [PoseQ14]) {
    prepared.rotations_q14(gte, at, segments, poses);
}

/// The local rotation (quaternion and matrix) of every bone with a rotation channel.
#[inline(never)]
fn rotation_pass<B: Cop2>(
    gte: &mut Gte<B>,
    channels: &[Option<RotationChannel>],
    t: u32,
    locals: &mut [LocalTransform],
    words: &mut [ColumnWords],
) {
    for ((c, local), w) in channels.iter().zip(locals).zip(words) {
        if let Some(c) = c {
            c.value_matrix(gte, t, &mut local.rotation, w);
        }
    }
}

impl<'a, const BONES: usize> SkeletonController<'a, BONES> {
    /// The local transforms the last [`evaluate`](Self::evaluate) composed (one per bone). Not
    /// refreshed when a compiled clip plays alone (its evaluation composes nothing).
    /// After a prepared clip's evaluation, whose rotations are Q14 ([`PoseQ14`]), these are
    /// rounded to FP12 (`(v + 2) >> 2`) here: the clip's [`segment_rotation`]s.
    pub fn evaluated_locals(&mut self) -> &[LocalTransform] {
        let n = self.skeleton.len();
        if self.rotations_in_poses {
            self.rotations_in_poses = false;
            for (l, p) in self.locals[..n].iter_mut().zip(&self.poses[..n]) {
                let [x, y, z, w] = p.rotation.map(|c| round_q14(c as i32) as i16);
                l.rotation = Quat::new(w, x, y, z);
            }
        }
        &self.locals[..n]
    }
}

