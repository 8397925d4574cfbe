//! Clips of another engine's animation file (ANIMBIN, Metroid Prime ANIM, `.ani`, `.panim`, read into
//! the canonical model) put onto an imported character's skeleton, so that they compile into its
//! tables beside its own clips (`psxanim import --add-clips`) and preview the same (`psxanim preview`).
//!
//! - Tracks are matched to bones by name, or by index for numeric ids (after the bone map renamed
//!   them), then by the rules of [`aliases`] for rigs that name bones differently (a `mixamorig:`
//!   prefix, `.L` against `Left`, `pelvis` against `Hips`); each match reports the rule that made it.
//!   Tracks matching no bone are ignored and listed; a clip none of whose tracks matches is an
//!   error. Bones without a track keep their bind pose and are listed.
//! - A matched track's rotation keys replace the bone's parent-relative bind rotation, interpolated
//!   along the shorter arc between keys; translations and scales stay at the bind pose (the formats'
//!   units are not the model's) and a file that has such keys reports them as lost.
//! - Times are converted to seconds in the clip's unit (frame-counted clips at their stated rate, else
//!   at [`crate::formats::timebase::DEFAULT_FRAME_RATE`], as `convert` reads them) and sampled at the
//!   character's rate from 0 to the clip's length inclusive, like an imported stack. Key, event and
//!   length times that do not fall on a sample are losses, reported as `convert` reports them.

use std::path::Path;

pub mod aliases;

use super::limits::MAX_CLIP_SECONDS;
use super::{Affine, Character, Clip, Trs};
use crate::formats::timebase::{frame_rate, DEFAULT_FRAME_RATE};
use crate::model::{Animation, TimeUnit};

/// What putting one clip onto the skeleton did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AddedClip {
    pub file: String,
    pub clip: String,
    pub frames: usize,
    pub rate: u32,
    pub events: usize,
    /// Model bones no track drives (they keep their bind pose).
    pub unmatched_bones: Vec<String>,
    /// Tracks matching no bone of the model (ignored), as `bone (track N)`.
    pub ignored_tracks: Vec<String>,
    /// How each matched track found its bone.
    pub matches: Vec<aliases::TrackMatch>,
    pub losses: Vec<String>,
}

/// Puts every clip of `anim` (read from `file`) onto `c`'s skeleton, sampled at `rate` Hz. The clips
/// are returned, not added; `model` names the model in errors. Errors name the file, clip, bone or
/// limit.
pub fn clips_onto(c: &Character, anim: &Animation, file: &Path, model: &Path, rate: u32) -> Result<Vec<(Clip, AddedClip)>, String> {
    let bone_names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
    let bind_local = bind_local(c, model)?;
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "clip".into());
    let mut out = Vec::new();
    for (ci, clip) in anim.clips.iter().enumerate() {
        // Some formats (`.ani`) name no clip: use the file's name.
        let name = match (clip.name.is_empty(), anim.clips.len()) {
            (false, _) => clip.name.clone(),
            (true, 1) => stem.clone(),
            (true, _) => format!("{stem}#{ci}"),
        };
        let mut losses = Vec::new();
        let (track_of_bone, ignored, matches) = aliases::match_tracks(c, clip);
        if track_of_bone.iter().all(Option::is_none) {
            return Err(format!(
                "{}: clip '{name}': no track matches a bone of {} (tracks: {}; bones by index 0..{}: {})",
                file.display(),
                model.display(),
                clip.tracks.iter().map(|t| t.bone.to_string()).collect::<Vec<_>>().join(", "),
                c.bones.len(),
                bone_names.join(", ")
            ));
        }
        let unmatched: Vec<String> = (0..c.bones.len()).filter(|&b| track_of_bone[b].is_none()).map(|b| bone_names[b].to_string()).collect();

        if clip.time_unit == TimeUnit::Frame && clip.frame_rate.is_none() {
            losses.push(format!("clip {name:?}: its frames have no stated rate; {DEFAULT_FRAME_RATE} frames per second assumed"));
        }
        let source_rate = frame_rate(clip);
        let seconds = |t: f64| match clip.time_unit {
            TimeUnit::Frame => t / source_rate,
            TimeUnit::Ms => t / 1000.0,
            TimeUnit::S => t,
        };
        let length = seconds(clip.length.max(0.0));
        if !length.is_finite() || length > MAX_CLIP_SECONDS {
            return Err(format!(
                "{}: clip '{name}' lasts {length:.2} s, longer than the profile limit of {MAX_CLIP_SECONDS} s",
                file.display()
            ));
        }
        // Times in samples of the character's rate; whole numbers are exact.
        let samples = |t: f64| seconds(t) * rate as f64;
        let on_grid = |s: f64| (s - s.round()).abs() <= 1e-6 * s.abs().max(1.0);
        let span = samples(clip.length.max(0.0));
        if !on_grid(span) {
            losses.push(format!("clip {name:?}: its length ({length} s) is not a whole number of {rate} Hz samples; rounded to {} samples", span.round()));
        }
        let frames = span.round() as usize + 1;
        let keys: Vec<Vec<(f64, [f64; 4])>> = clip
            .tracks
            .iter()
            .map(|t| {
                let mut k: Vec<(f64, [f64; 4])> =
                    t.rotation.iter().filter(|k| k.time.is_finite()).map(|k| (samples(k.time), [k.value.x, k.value.y, k.value.z, k.value.w])).collect();
                k.sort_by(|a, b| a.0.total_cmp(&b.0));
                k
            })
            .collect();
        let used = |ti: &usize| track_of_bone.contains(&Some(*ti));
        if keys.iter().enumerate().filter(|(ti, _)| used(ti)).any(|(_, k)| k.iter().any(|(s, _)| !on_grid(*s))) {
            losses.push(format!("clip {name:?}: resampled time: rotation keys between {rate} Hz samples are interpolated"));
        }
        let moved = clip.tracks.iter().enumerate().filter(|(ti, t)| used(ti) && !t.translation.is_empty()).count();
        if moved > 0 {
            losses.push(format!("clip {name:?}: translation keys of {moved} tracks dropped (the bind translations are kept: the file's units are not the model's)"));
        }
        let scaled = clip.tracks.iter().enumerate().filter(|(ti, t)| used(ti) && !t.scale.is_empty()).count();
        if scaled > 0 {
            losses.push(format!("clip {name:?}: scale keys of {scaled} tracks dropped"));
        }
        let (poses, reference) = pose_from_rotation_keys(c, &bind_local, &track_of_bone, &keys, frames, |f| f as f64);
        let mut events: Vec<(usize, String)> = Vec::new();
        for e in clip.events.iter().filter(|e| e.time.is_finite()) {
            let s = samples(e.time);
            if !on_grid(s) {
                losses.push(format!("clip {name:?}: event times rounded to {rate} Hz samples"));
            }
            events.push(((s.round().max(0.0) as usize).min(frames - 1), e.name.clone()));
        }
        if clip.events.iter().any(|e| e.data.as_deref().is_some_and(|d| !d.is_empty())) {
            losses.push(format!("clip {name:?}: event data dropped: the tables' events have only a name and a frame"));
        }
        events.sort_by_key(|e| e.0);
        losses.dedup();
        let report = AddedClip {
            file: file.display().to_string(),
            clip: name.clone(),
            frames,
            rate,
            events: events.len(),
            unmatched_bones: unmatched,
            ignored_tracks: ignored,
            matches,
            losses,
        };
        out.push((Clip { name, rate, poses, rigid_reference: reference.clone(), skinned_reference: reference, events }, report));
    }
    Ok(out)
}

/// The track of each bone of `c` and the tracks that match none, as `"BONE (track N)"` ([`aliases`]'s
/// rules; the matches themselves are [`aliases::match_tracks`]'s).
pub(crate) fn match_tracks(c: &Character, clip: &crate::model::Clip) -> (Vec<Option<usize>>, Vec<String>) {
    let (track_of_bone, unmatched, _) = aliases::match_tracks(c, clip);
    (track_of_bone, unmatched)
}

/// Each bone's bind transform relative to its parent, decomposed; errors name the model and bone.
pub(crate) fn bind_local(c: &Character, model: &Path) -> Result<Vec<Trs>, String> {
    c.bones
        .iter()
        .map(|bone| {
            let local = match bone.parent {
                Some(p) => c.bones[p].bind.inverse().mul(&bone.bind),
                None => bone.bind,
            };
            local.decompose().map_err(|e| format!("{}: bone '{}': bind transform: {e:?}", model.display(), bone.name))
        })
        .collect()
}

/// `c` posed at `frames` samples by rotation key tracks (`[x, y, z, w]` keys sorted by time): bone
/// `b` keeps its bind-local transform but takes the rotation of track `track_of_bone[b]` at
/// `time(f)` (nlerp between the keys around it, held past the ends), at scale 1. Returns each
/// sample's model-space bone matrices and vertex positions (one bone per vertex).
#[allow(clippy::type_complexity)]
pub(crate) fn pose_from_rotation_keys(
    c: &Character,
    bind_local: &[Trs],
    track_of_bone: &[Option<usize>],
    keys: &[Vec<(f64, [f64; 4])>],
    frames: usize,
    time: impl Fn(usize) -> f64,
) -> (Vec<Vec<Affine>>, Vec<Vec<[f64; 3]>>) {
    let mut poses = Vec::with_capacity(frames);
    let mut reference = Vec::with_capacity(frames);
    for f in 0..frames {
        let t = time(f);
        let mut model: Vec<Affine> = Vec::with_capacity(c.bones.len());
        for (b, bone) in c.bones.iter().enumerate() {
            let mut trs = bind_local[b];
            if let Some(k) = track_of_bone[b].map(|ti| &keys[ti]).filter(|k| !k.is_empty()) {
                let i = k.partition_point(|(kt, _)| *kt <= t);
                trs.rotation = match (i.checked_sub(1).map(|j| k[j]), k.get(i)) {
                    (Some((t0, q0)), Some(&(t1, q1))) if t1 > t0 => nlerp(q0, q1, (t - t0) / (t1 - t0)),
                    (Some((_, q)), _) | (None, Some(&(_, q))) => q,
                    (None, None) => trs.rotation,
                };
            }
            trs.scale = [1.0; 3];
            let local = Affine::from_trs(&trs);
            model.push(match bone.parent {
                Some(p) => model[p].mul(&local),
                None => local,
            });
        }
        reference.push(c.vertices.iter().map(|v| model[v.bone].mul(&c.bones[v.bone].bind.inverse()).apply(v.bind)).collect());
        poses.push(model);
    }
    (poses, reference)
}

/// Normalised nlerp of `[x, y, z, w]` quaternions along the shorter arc.
fn nlerp(a: [f64; 4], b: [f64; 4], t: f64) -> [f64; 4] {
    let dot: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    let s = if dot < 0.0 { -1.0 } else { 1.0 };
    let q = [0, 1, 2, 3].map(|i| a[i] + (s * b[i] - a[i]) * t);
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    if n > 1e-12 {
        q.map(|c| c / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
