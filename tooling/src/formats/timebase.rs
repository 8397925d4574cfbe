//! Moving a clip between time units and bone naming schemes, for writers whose format differs from the
//! source's. Every change that is not exact is reported as a loss.

use super::{write_error, Losses, WriteError};
use crate::model::{Animation, Bone, Clip, TimeUnit};

/// Frame rate assumed for a clip counted in frames that does not state one: ANIMBIN frames are vsync
/// ticks, 60 per second on NTSC.
pub const DEFAULT_FRAME_RATE: f64 = 60.0;

/// Frames per second of `clip` when counted in frames.
pub fn frame_rate(clip: &Clip) -> f64 {
    match clip.frame_rate {
        Some(r) if r.is_finite() && r > 0.0 => r,
        _ => DEFAULT_FRAME_RATE,
    }
}

fn seconds_per_unit(unit: TimeUnit, rate: f64) -> f64 {
    match unit {
        TimeUnit::Frame => 1.0 / rate,
        TimeUnit::Ms => 1e-3,
        TimeUnit::S => 1.0,
    }
}

/// A copy of `clip` with every time (keys, events, length) expressed in `unit`; for a frame unit, at
/// `rate` frames per second (`.panim` 30 Hz frames become twice as many 60 Hz ANIMBIN frames).
pub fn retime(clip: &Clip, unit: TimeUnit, rate: f64, losses: &mut Losses) -> Clip {
    let mut out = clip.clone();
    if clip.time_unit == unit && (unit != TimeUnit::Frame || frame_rate(clip) == rate) {
        return out;
    }
    if clip.time_unit == TimeUnit::Frame && clip.frame_rate.is_none() {
        losses.add(format!(
            "clip {:?}: its frames have no stated rate; {DEFAULT_FRAME_RATE} frames per second assumed",
            clip.name
        ));
    }
    let scale = seconds_per_unit(clip.time_unit, frame_rate(clip)) / seconds_per_unit(unit, rate);
    let map = |t: f64| t * scale;
    out.time_unit = unit;
    out.length = map(clip.length);
    out.frame_rate = if unit == TimeUnit::Frame { Some(rate) } else { clip.frame_rate.or(Some(frame_rate(clip))) };
    for track in &mut out.tracks {
        track.rotation.iter_mut().for_each(|k| k.time = map(k.time));
        track.translation.iter_mut().for_each(|k| k.time = map(k.time));
        track.scale.iter_mut().for_each(|k| k.time = map(k.time));
    }
    out.events.iter_mut().for_each(|e| e.time = map(e.time));
    out
}

/// `t` as a whole number when it is one (to within float noise of a unit conversion).
pub fn whole(t: f64) -> Option<i64> {
    let r = t.round();
    if (t - r).abs() <= 1e-6 * r.abs().max(1.0) && r.abs() < 9.0e15 {
        Some(r as i64)
    } else {
        None
    }
}

/// Rounds `t` to a whole number, reporting a loss when it was not one.
pub fn round_time(t: f64, what: &str, losses: &mut Losses) -> i64 {
    match whole(t) {
        Some(v) => v,
        None => {
            losses.add(format!("{what}: times rounded to whole units (resampled time)"));
            if t.is_finite() {
                t.round().clamp(-9.0e15, 9.0e15) as i64
            } else {
                0
            }
        }
    }
}

/// The numeric id of a bone: ids as they are, names that are decimal numbers as their number.
pub fn bone_id(bone: &Bone) -> Result<u32, WriteError> {
    match bone {
        Bone::Id(id) => Ok(*id),
        Bone::Name(name) => match name.parse::<u32>() {
            Ok(id) => Ok(id),
            Err(_) => write_error(format!(
                "bone {name:?} has a name, and the target format identifies bones by number; \
                 map names to ids with --bone-map"
            )),
        },
    }
}

/// The name of a bone: names as they are, ids as their decimal text (reported, since a skeleton
/// will not know such a name).
pub fn bone_name(bone: &Bone, losses: &mut Losses) -> String {
    match bone {
        Bone::Name(name) => name.clone(),
        Bone::Id(id) => {
            losses.add("bone ids written as decimal names (map them to skeleton names with --bone-map)");
            id.to_string()
        }
    }
}

/// The one clip of a single-clip format: the first, with the others reported as lost.
pub fn single_clip<'a>(anim: &'a Animation, target: &str, losses: &mut Losses) -> Result<&'a Clip, WriteError> {
    if anim.clips.len() > 1 {
        losses.add(format!(
            "{target} holds one clip: only the first of {} clips was written",
            anim.clips.len()
        ));
    }
    match anim.clips.first() {
        Some(clip) => Ok(clip),
        None => write_error(format!("{target} needs a clip, and the source has none")),
    }
}
