//! The animation document of `psxanim inspect --json` (specs/animation-json.md): one shape for every
//! format. Field order follows the specification; keys are listed in time order.

use crate::model::{Animation, Bone, Clip, Format, StoredRotation, Track};
use serde::Serialize;

/// A time or length: written as an integer when it is one (frames, milliseconds), else as a float.
#[derive(Clone, Copy)]
struct Time(f64);

impl Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

#[derive(Serialize)]
struct Document {
    format: &'static str,
    version: u32,
    clips: Vec<ClipDoc>,
}

#[derive(Serialize)]
struct ClipDoc {
    name: String,
    looping: bool,
    time_unit: &'static str,
    length: Time,
    frame_rate: Option<f64>,
    tracks: Vec<TrackDoc>,
    events: Vec<EventDoc>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum BoneDoc {
    Id(u32),
    Name(String),
}

#[derive(Serialize)]
struct TrackDoc {
    bone: BoneDoc,
    rotation: Vec<(Time, f64, f64, f64, f64)>,
    translation: Vec<(Time, f64, f64, f64)>,
    scale: Vec<(Time, f64, f64, f64)>,
    euler_s16: Vec<(Time, i16, i16, i16)>,
}

#[derive(Serialize)]
struct EventDoc {
    time: Time,
    name: String,
    data: Option<String>,
}

fn track_doc(track: &Track, format: Format) -> TrackDoc {
    let rotation = track.sorted_rotation();
    let mut translation = track.translation.clone();
    translation.sort_by(|a, b| a.time.total_cmp(&b.time));
    let mut scale = track.scale.clone();
    scale.sort_by(|a, b| a.time.total_cmp(&b.time));
    let euler_s16 = if format == Format::Panim {
        rotation
            .iter()
            .filter_map(|k| match k.stored {
                Some(StoredRotation::PanimEuler(e)) => Some((Time(k.time), e[0], e[1], e[2])),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    TrackDoc {
        bone: match &track.bone {
            Bone::Id(id) => BoneDoc::Id(*id),
            Bone::Name(name) => BoneDoc::Name(name.clone()),
        },
        rotation: rotation.iter().map(|k| (Time(k.time), k.value.w, k.value.x, k.value.y, k.value.z)).collect(),
        translation: translation.iter().map(|k| (Time(k.time), k.value[0], k.value[1], k.value[2])).collect(),
        scale: scale.iter().map(|k| (Time(k.time), k.value[0], k.value[1], k.value[2])).collect(),
        euler_s16,
    }
}

fn clip_doc(clip: &Clip, format: Format) -> ClipDoc {
    let mut events = clip.events.clone();
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    ClipDoc {
        name: clip.name.clone(),
        looping: clip.looping,
        time_unit: clip.time_unit.name(),
        length: Time(clip.length),
        frame_rate: clip.frame_rate,
        tracks: clip.tracks.iter().map(|t| track_doc(t, format)).collect(),
        events: events.into_iter().map(|e| EventDoc { time: Time(e.time), name: e.name, data: e.data }).collect(),
    }
}

/// The JSON document of `anim`, pretty-printed.
pub fn to_json(anim: &Animation) -> String {
    let doc = Document {
        format: anim.format.name(),
        version: anim.version,
        clips: anim.clips.iter().map(|c| clip_doc(c, anim.format)).collect(),
    };
    // Serialising plain structs of numbers and strings cannot fail.
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
