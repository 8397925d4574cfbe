//! ANIMBIN, the PSX clip format the runtime loads: reader and writer.
//!
//! Layout (little-endian, packed): `"ANIMBIN"`, `u8 version`, `u8 numAnimations`; per clip `char[32]
//! name`, `u32 flags`, `u16 length`, `u16 numTracks`, `u16 numMarkers`, the tracks (`u8 type`, `u8
//! jointId`, `u16 numKeys`, keys), then the markers (`char[32] name`, `u16 frame`). A key is `u16 frame`,
//! `u8 keyType`, then `i16 w, x, y, z` (0, rotation) or `i32 x, y, z` (1, translation), both FP12.
//!
//! Reader choices (each tested): a name filling all 32 bytes is a 32-byte name; an empty track is
//! read as a track with no keys (`validate` rejects it, the original runtime would read `keys[-1]`);
//! an unknown `keyType` is an error. Bytes after the last clip are what the original loader never
//! reads (a track count smaller than the tracks written leaves the extra tracks there): the reader
//! loads the declared tracks, as the original does, and warns naming the offset and, when the bytes
//! are whole tracks, how many. Capacity limits are not the layout's: they are checked by `validate`
//! (see `profile`).
//!
//! Every record (file header, clip header, track header, key, marker) is one binrw declaration that
//! the reader and the writer share; only the counts' bounds checks and the text of the name fields
//! are code here.

use super::record::{put, Reader};
use binrw::{binrw, Endian};
use super::timebase::{bone_id, retime, whole, DEFAULT_FRAME_RATE};
use super::{write_error, AnimbinMode, Losses, ParseError, WriteError};
use crate::model::{
    decode_text, Animation, Bone, Clip, ClipExtras, Event, Format, Quat, RotationKey, Sampler, StoredRotation, TimeUnit,
    Track, VectorKey,
};

pub const MAGIC: &[u8] = b"ANIMBIN";
pub const NAME_BYTES: usize = 32;
const FP12: f64 = 4096.0;
const MIN_KEY_BYTES: usize = 3 + 8;
const TRACK_HEADER_BYTES: usize = 4;
const MARKER_BYTES: usize = NAME_BYTES + 2;

/// The file header; the magic is checked (and written) by the declaration.
#[binrw]
#[brw(little, magic = b"ANIMBIN")]
struct FileHeader {
    version: u8,
    clip_count: u8,
}

#[binrw]
#[brw(little)]
struct ClipHeader {
    name: [u8; NAME_BYTES],
    flags: u32,
    length: u16,
    track_count: u16,
    marker_count: u16,
}

#[binrw]
#[brw(little)]
struct TrackHeader {
    track_type: u8,
    joint: u8,
    key_count: u16,
}

#[binrw]
#[brw(little)]
struct Key {
    frame: u16,
    value: KeyValue,
}

/// The key type byte selects the payload.
#[binrw]
#[brw(little)]
enum KeyValue {
    #[brw(magic = 0u8)]
    Rotation([i16; 4]),
    #[brw(magic = 1u8)]
    Translation([i32; 3]),
}

#[binrw]
#[brw(little)]
struct Marker {
    name: [u8; NAME_BYTES],
    frame: u16,
}

pub fn read(bytes: &[u8]) -> Result<Animation, ParseError> {
    if !bytes.starts_with(MAGIC) {
        let found = &bytes[..bytes.len().min(MAGIC.len())];
        return Err(ParseError::new(0, format!("the magic \"ANIMBIN\", found {:?}", String::from_utf8_lossy(found))));
    }
    let mut c = Reader::new(bytes, Endian::Little);
    let header: FileHeader = c.read("the 9-byte file header (\"ANIMBIN\", u8 version, u8 animation count)")?;
    let mut clips = Vec::with_capacity(header.clip_count as usize);
    for clip_index in 0..header.clip_count {
        clips.push(read_clip(&mut c, clip_index)?);
    }
    let mut warnings = Vec::new();
    if c.remaining() != 0 {
        let at = c.pos();
        let tracks = whole_tracks(&bytes[at..]);
        let what = match tracks {
            Some(n) if clips.last().is_some_and(|clip| clip.events.is_empty()) => {
                format!(" (they are {n} whole track(s) beyond the last animation's declared {})", clips.last().map_or(0, |c| c.tracks.len()))
            }
            _ => String::new(),
        };
        warnings.push(format!(
            "at byte offset {at} (0x{at:x}): {} byte(s) after the last of {} animation(s){what} are not read; \
             the original loader stops after the declared tracks and markers, and so does this reader",
            c.remaining(),
            header.clip_count
        ));
    }
    Ok(Animation { format: Format::Animbin, version: header.version as u32, clips, warnings })
}

/// How many whole track records `bytes` holds exactly, if it is nothing else.
fn whole_tracks(bytes: &[u8]) -> Option<usize> {
    let mut c = Reader::new(bytes, Endian::Little);
    let mut n = 0;
    while c.remaining() > 0 {
        let track: TrackHeader = c.read("a track header").ok()?;
        for _ in 0..track.key_count {
            c.read::<Key>("a key").ok()?;
        }
        n += 1;
    }
    Some(n)
}

/// The text of a name field and, when the text alone would not give the field back, the field.
fn name_of(field: [u8; NAME_BYTES]) -> (String, Option<Vec<u8>>) {
    let end = field.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
    let (text, raw) = decode_text(&field[..end]);
    // Keep the whole field when the padding is not all zeros or the text is not UTF-8.
    let exact = raw.is_none() && field[end..].iter().all(|&b| b == 0);
    (text, if exact { None } else { Some(field.to_vec()) })
}

fn read_clip(c: &mut Reader, clip_index: u8) -> Result<Clip, ParseError> {
    let header: ClipHeader = c.read(format_args!(
        "the 42-byte header of animation {clip_index} (char[32] name, u32 flags, u16 length, u16 track count, u16 marker count)"
    ))?;
    let (name, raw_name) = name_of(header.name);
    let tracks_n = c.count(header.track_count as u64, TRACK_HEADER_BYTES, "tracks")?;
    let mut tracks = Vec::with_capacity(tracks_n);
    for track_index in 0..header.track_count {
        let TrackHeader { track_type, joint, key_count } =
            c.read(format_args!("the 4-byte header of track {track_index} (u8 type, u8 joint id, u16 key count)"))?;
        let keys_n = c.count(key_count as u64, MIN_KEY_BYTES, format_args!("keys of track {track_index} (joint {joint})"))?;
        let mut track = Track::new(Bone::Id(joint as u32));
        track.extras.animbin_type = Some(track_type);
        let mut order = Vec::with_capacity(keys_n);
        for _ in 0..key_count {
            let key: Key = c.read(format_args!(
                "a key of track {track_index} (joint {joint}): u16 frame, key type 0 (rotation) or 1 (translation), \
                 then i16 w, x, y, z or i32 x, y, z"
            ))?;
            let frame = key.frame as f64;
            match key.value {
                KeyValue::Rotation(w) => {
                    track.rotation.push(RotationKey { time: frame, value: decode_fp12(w), stored: Some(StoredRotation::Fp12(w)) });
                    order.push(false);
                }
                KeyValue::Translation(v) => {
                    track.translation.push(VectorKey { time: frame, value: v.map(|x| x as f64 / FP12) });
                    order.push(true);
                }
            }
        }
        if order.contains(&true) {
            track.extras.animbin_key_order = Some(order);
        }
        tracks.push(track);
    }
    let markers = c.records::<Marker>(header.marker_count as u64, MARKER_BYTES, "markers (char[32] name, u16 frame)")?;
    let events = markers
        .into_iter()
        .map(|m| {
            let (name, raw) = name_of(m.name);
            let mut event = Event::new(m.frame as f64, name, None);
            event.raw_name = raw;
            event
        })
        .collect();
    Ok(Clip {
        name,
        looping: header.flags & 1 != 0,
        time_unit: TimeUnit::Frame,
        length: header.length as f64,
        frame_rate: None,
        tracks,
        events,
        extras: ClipExtras { raw_name, animbin_flags: Some(header.flags), ..ClipExtras::default() },
    })
}

/// The FP12 word of one component: rounded (correct) or truncated (original exporter), clamped to i16.
fn fp12_i16(v: f64, mode: AnimbinMode) -> i16 {
    let scaled = v * FP12;
    let q = match mode {
        AnimbinMode::Correct => scaled.round(),
        AnimbinMode::Original => scaled.trunc(),
    };
    if q.is_nan() { 0 } else { q.clamp(i16::MIN as f64, i16::MAX as f64) as i16 }
}

fn fp12_i32(v: f64, mode: AnimbinMode, losses: &mut Losses) -> i32 {
    let scaled = v * FP12;
    let q = match mode {
        AnimbinMode::Correct => scaled.round(),
        AnimbinMode::Original => scaled.trunc(),
    };
    if q != scaled {
        losses.add("precision: translations quantised to FP12 (1/4096)");
    }
    if !(i32::MIN as f64..=i32::MAX as f64).contains(&q) {
        losses.add("translation outside the i32 FP12 range clamped");
    }
    if q.is_nan() { 0 } else { q.clamp(i32::MIN as f64, i32::MAX as f64) as i32 }
}

fn decode_fp12(w: [i16; 4]) -> Quat {
    Quat::new(w[0] as f64 / FP12, w[1] as f64 / FP12, w[2] as f64 / FP12, w[3] as f64 / FP12)
}

/// The stored words of a rotation key: its kept words while it is unedited, else a new encoding.
fn encode_rotation(key: &RotationKey, prev: Option<Quat>, mode: AnimbinMode, losses: &mut Losses) -> [i16; 4] {
    if let Some(StoredRotation::Fp12(w)) = key.stored {
        if decode_fp12(w) == key.value {
            return w;
        }
    }
    let mut q = key.value;
    if mode == AnimbinMode::Correct {
        q = q.normalized();
        if prev.is_some_and(|p| p.dot(q) < 0.0) {
            q = q.neg();
        }
    }
    let w = [fp12_i16(q.w, mode), fp12_i16(q.x, mode), fp12_i16(q.y, mode), fp12_i16(q.z, mode)];
    if decode_fp12(w) != q {
        losses.add("precision: rotations quantised to FP12 (1/4096)");
    }
    w
}

fn frame_u16(t: f64, what: &str, losses: &mut Losses) -> Result<u16, WriteError> {
    let f = match whole(t) {
        Some(f) => f,
        None => {
            losses.add("resampled time: key and marker times rounded to whole frames");
            t.round() as i64
        }
    };
    u16::try_from(f).or_else(|_| write_error(format!("{what} {t} is outside ANIMBIN's u16 frame range")))
}

/// The 32-byte field of a name: its kept field while the text is unchanged, else the text, padded.
fn name_field(text: &str, raw: Option<&[u8]>, losses: &mut Losses) -> [u8; NAME_BYTES] {
    let mut field = match raw {
        Some(raw) if raw.len() == NAME_BYTES && read_field_text(raw) == text => raw.to_vec(),
        _ => text.as_bytes().to_vec(),
    };
    if field.len() > NAME_BYTES {
        losses.add(format!("name {text:?} truncated to ANIMBIN's {NAME_BYTES} bytes"));
        field.truncate(NAME_BYTES);
    }
    let mut out = [0u8; NAME_BYTES];
    out[..field.len()].copy_from_slice(&field);
    out
}

fn read_field_text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    decode_text(&field[..end]).0
}

pub fn write(anim: &Animation, mode: AnimbinMode, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::new();
    let version = if anim.format == Format::Animbin { anim.version.min(255) as u8 } else { 1 };
    let clip_count = u8::try_from(anim.clips.len()).or_else(|_| write_error("ANIMBIN holds at most 255 animations"))?;
    put(&mut out, Endian::Little, &FileHeader { version, clip_count })?;
    let from_animbin = anim.format == Format::Animbin;
    for source in &anim.clips {
        let mut clip = retime(source, TimeUnit::Frame, DEFAULT_FRAME_RATE, losses);
        if !from_animbin {
            onto_frames(&mut clip, losses);
        }
        write_clip(&mut out, &clip, mode, from_animbin, losses)?;
    }
    Ok(out)
}

/// Keys this close to a frame (in frames) are that frame's key rounded to a coarser clock (a 60 Hz
/// frame written in whole milliseconds is at most 0.03 frames off): they move onto it unchanged.
const SNAP_FRAMES: f64 = 0.05;

/// Moves keys that fall between frames, or at or past the clip's last frame, onto frames `0 ..
/// length - 1`. Each frame that keys round to gets one key: a lone key within `SNAP_FRAMES` of it is
/// moved there with its stored words; otherwise (two 10 ms `.ani` keys in one 60 Hz frame, a key
/// between frames, a key past the end) the source is sampled at the frame's time. So no frame has two
/// keys and none lies past the end. Tracks whose keys all sit on frames within the clip are left as
/// they are.
fn onto_frames(clip: &mut Clip, losses: &mut Losses) {
    let length = clip.length.round();
    let last = if length >= 1.0 { length - 1.0 } else { 0.0 };
    let fits = |t: f64| whole(t).is_some_and(|f| f >= 0 && f as f64 <= last);
    let frame_of = |t: f64| if t.is_finite() { t.round().clamp(0.0, last) } else { 0.0 };
    for track in &mut clip.tracks {
        if track.rotation.iter().map(|k| k.time).chain(track.translation.iter().map(|k| k.time)).all(fits) {
            continue;
        }
        let sampler = Sampler::new(track);
        let mut sampled = false;
        // Per frame: the keys (by index in time order) that round to it.
        let groups = |times: Vec<f64>| -> Vec<(f64, Vec<usize>)> {
            let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
            for (i, t) in times.into_iter().enumerate() {
                let f = frame_of(t);
                match groups.last_mut() {
                    Some((g, members)) if *g == f => members.push(i),
                    _ => groups.push((f, vec![i])),
                }
            }
            groups
        };
        let lone = |members: &[usize], times: &[f64], f: f64| members.len() == 1 && (times[members[0]] - f).abs() <= SNAP_FRAMES;
        let rotation_times: Vec<f64> = sampler.rotation.iter().map(|k| k.time).collect();
        track.rotation = groups(rotation_times.clone())
            .into_iter()
            .filter_map(|(f, members)| {
                if lone(&members, &rotation_times, f) {
                    return Some(RotationKey { time: f, ..sampler.rotation[members[0]].clone() });
                }
                sampled = true;
                sampler.rotation(f).map(|value| RotationKey { time: f, value, stored: None })
            })
            .collect();
        let translation_times: Vec<f64> = sampler.translation.iter().map(|k| k.time).collect();
        track.translation = groups(translation_times.clone())
            .into_iter()
            .filter_map(|(f, members)| {
                if lone(&members, &translation_times, f) {
                    return Some(VectorKey { time: f, ..sampler.translation[members[0]] });
                }
                sampled = true;
                sampler.translation(f).map(|value| VectorKey { time: f, value })
            })
            .collect();
        track.extras.animbin_key_order = None;
        losses.add(if sampled {
            "resampled time: keys moved onto whole frames within the clip (values sampled at each frame)"
        } else {
            "resampled time: key and marker times rounded to whole frames"
        });
    }
}

fn write_clip(out: &mut Vec<u8>, clip: &Clip, mode: AnimbinMode, keep_order: bool, losses: &mut Losses) -> Result<(), WriteError> {
    let name = name_field(&clip.name, clip.extras.raw_name.as_deref(), losses);
    let flags = match mode {
        AnimbinMode::Original => {
            if !clip.looping {
                losses.add("original exporter mode writes flags = 1: non-looping clips become looping");
            }
            1
        }
        AnimbinMode::Correct => (clip.extras.animbin_flags.unwrap_or(0) & !1) | clip.looping as u32,
    };
    let length = frame_u16(clip.length, "clip length", losses)?;

    let mut tracks = Vec::new();
    for track in &clip.tracks {
        let joint = bone_id(&track.bone)?;
        let joint = u8::try_from(joint).or_else(|_| write_error(format!("joint id {joint} does not fit ANIMBIN's u8 jointId")))?;
        if !track.scale.is_empty() {
            losses.add("scale dropped: ANIMBIN has no scale keys");
        }
        if track.rotation.is_empty() && track.translation.is_empty() && !track.scale.is_empty() {
            continue;
        }
        tracks.push((joint, track));
    }
    let track_count = u16::try_from(tracks.len()).or_else(|_| write_error("more than 65535 tracks in a clip"))?;
    let marker_count = u16::try_from(clip.events.len()).or_else(|_| write_error("more than 65535 markers in a clip"))?;
    put(out, Endian::Little, &ClipHeader { name, flags, length, track_count, marker_count })?;

    for (joint, track) in tracks {
        write_track(out, joint, track, mode, keep_order, losses)?;
    }
    let mut events = clip.events.clone();
    if !keep_order {
        events.sort_by(|a, b| a.time.total_cmp(&b.time));
    }
    for event in &events {
        let name = name_field(&event.name, event.raw_name.as_deref(), losses);
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            losses.add("event data dropped: ANIMBIN markers have only a name and a frame");
        }
        put(out, Endian::Little, &Marker { name, frame: frame_u16(event.time, "marker time", losses)? })?;
    }
    Ok(())
}

fn write_track(out: &mut Vec<u8>, joint: u8, track: &Track, mode: AnimbinMode, keep_order: bool, losses: &mut Losses) -> Result<(), WriteError> {
    let mut rotation = track.rotation.clone();
    let mut translation = track.translation.clone();
    if !keep_order {
        rotation.sort_by(|a, b| a.time.total_cmp(&b.time));
        translation.sort_by(|a, b| a.time.total_cmp(&b.time));
    }
    // Key kinds in the order to write: the file's when it is still consistent, else rotations first.
    let order: Vec<bool> = match &track.extras.animbin_key_order {
        Some(order)
            if order.iter().filter(|&&t| t).count() == translation.len()
                && order.iter().filter(|&&t| !t).count() == rotation.len() =>
        {
            order.clone()
        }
        _ => std::iter::repeat_n(false, rotation.len()).chain(std::iter::repeat_n(true, translation.len())).collect(),
    };
    let key_count = u16::try_from(order.len()).or_else(|_| write_error(format!("joint {joint}: more than 65535 keys")))?;
    put(out, Endian::Little, &TrackHeader { track_type: track.extras.animbin_type.unwrap_or(0), joint, key_count })?;
    let (mut r, mut t) = (0, 0);
    let mut prev: Option<Quat> = None;
    for is_translation in order {
        if is_translation {
            let key = &translation[t];
            t += 1;
            let value = KeyValue::Translation(key.value.map(|v| fp12_i32(v, mode, losses)));
            put(out, Endian::Little, &Key { frame: frame_u16(key.time, "key time", losses)?, value })?;
        } else {
            let key = &rotation[r];
            r += 1;
            let frame = frame_u16(key.time, "key time", losses)?;
            let w = encode_rotation(key, prev, mode, losses);
            prev = Some(decode_fp12(w));
            put(out, Endian::Little, &Key { frame, value: KeyValue::Rotation(w) })?;
        }
    }
    Ok(())
}
