//! `.ani` of the io3DEngine client (versions 4000, 4001, 4002): reader and writer.
//!
//! Layout (little-endian): `"ANI\0"`, `i32 version`, `i32 event count`, events (`string type`, `string
//! sub info`, `f32 time`), `i32 total time`, `i32 track count`, tracks (`string bone`, `f32 weight`, `i32
//! key count`, keys). A key is the rotation (4000: `f32 x, y, z, w`; 4001: one "small three" word; 4002:
//! two "eight bytes" words), `f32 x, y, z` position and `i32` time in milliseconds. A string is a `u32`
//! byte length and the bytes.
//!
//! Keys keep their stored rotation words: a key whose quaternion still equals the decoding of its
//! words is written back with those words, so unedited keys survive edits and re-saves bit for bit.
//! Events are sorted by time when read (as the client does), so a file with unsorted events is
//! rewritten sorted. Bytes after the last track are an error.
//!
//! The file header and the key records (one generic declaration over the version's rotation words)
//! are binrw declarations shared by the reader and the writer; the length-prefixed strings and the
//! counts are code here, because each length or count has to be checked against the rest of the file
//! before anything is allocated for it.

use super::record::{put, Finite, Reader};
use binrw::{binrw, BinRead, BinWrite, Endian};
use std::fmt::Display;
use super::timebase::{bone_name, retime, round_time, single_clip};
use super::{write_error, Losses, ParseError, WriteError};
use crate::model::{
    decode_text, encode_text, Animation, Bone, Clip, ClipExtras, Event, Format, Quat, RotationKey, Sampler,
    StoredRotation, TimeUnit, Track, VectorKey,
};

pub const MAGIC: &[u8] = b"ANI\0";
pub const VERSIONS: [u32; 3] = [4000, 4001, 4002];

fn rotation_bytes(version: u32) -> usize {
    match version {
        4000 => 16,
        4001 => 4,
        _ => 8,
    }
}

#[binrw]
#[brw(little, magic = b"ANI\0")]
struct FileHeader {
    version: i32,
}

/// One key; `Rot` is the version's rotation: `[Finite; 4]` (4000), `u32` (4001) or `[u32; 2]` (4002).
#[binrw]
#[brw(little)]
struct Key<Rot>
where
    Rot: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()> + 'static,
{
    rotation: Rot,
    position: [Finite; 3],
    time: i32,
}

const KEY_LAYOUT: &str = "rotation, f32 x, y, z position, i32 time in ms";

fn read_string(c: &mut Reader, what: impl Display) -> Result<(String, Option<Vec<u8>>), ParseError> {
    let len: u32 = c.read(format_args!("the u32 byte length of {what}"))?;
    // `bytes` checks the length against the rest of the file before anything is copied.
    Ok(decode_text(c.bytes(len as usize, what)?))
}

/// A signed `i32` count (`what`) of `items` taking at least `min_bytes` each: negative counts and counts
/// the rest of the file cannot hold are rejected before anything is allocated.
fn read_count(c: &mut Reader, what: &str, items: &str, min_bytes: usize) -> Result<usize, ParseError> {
    let at = c.pos();
    let n: i32 = c.read(format_args!("{what} (i32)"))?;
    if n < 0 {
        return Err(ParseError::new(at, format!("{what} >= 0, found {n}")));
    }
    c.count(n as u64, min_bytes, format_args!("{items} (read from {what})"))
}

pub fn read(bytes: &[u8]) -> Result<Animation, ParseError> {
    if !bytes.starts_with(MAGIC) {
        let found = &bytes[..bytes.len().min(MAGIC.len())];
        return Err(ParseError::new(0, format!("the magic \"ANI\\0\", found {:?}", String::from_utf8_lossy(found))));
    }
    let mut c = Reader::new(bytes, Endian::Little);
    let FileHeader { version } = c.read("the 8-byte header (\"ANI\\0\", i32 version)")?;
    if !VERSIONS.contains(&(version as u32)) || version < 0 {
        return Err(ParseError::new(4, format!("version 4000, 4001 or 4002, found {version}")));
    }
    let version = version as u32;

    let event_count = read_count(&mut c, "the event count", "events", 12)?;
    let mut events = Vec::with_capacity(event_count);
    for i in 0..event_count {
        let (name, raw_name) = read_string(&mut c, format_args!("the type of event {i}"))?;
        let (data, raw_data) = read_string(&mut c, format_args!("the sub info of event {i}"))?;
        let Finite(time) = c.read(format_args!("the f32 time of event {i}"))?;
        events.push(Event { time: time as f64, name, data: Some(data), raw_name, raw_data });
    }
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    let total: i32 = c.read("the i32 total time")?;

    let key_bytes = rotation_bytes(version) + 12 + 4;
    let track_count = read_count(&mut c, "the track count", "tracks", 12)?;
    let mut tracks = Vec::with_capacity(track_count);
    for i in 0..track_count {
        let (name, raw) = read_string(&mut c, format_args!("the bone name of track {i}"))?;
        let Finite(weight) = c.read(format_args!("the f32 weight of track {i}"))?;
        let key_count = read_count(&mut c, &format!("the key count of track {i} ({name:?})"), "keys", key_bytes)?;
        let mut track = Track::new(Bone::Name(name));
        track.extras.ani_weight = Some(weight);
        track.extras.raw_bone_name = raw;
        match version {
            4000 => read_keys(&mut c, &mut track, key_count, i, |r: [Finite; 4]| StoredRotation::Ani4000(r.map(|f| f.0.to_bits())))?,
            4001 => read_keys(&mut c, &mut track, key_count, i, StoredRotation::Ani4001)?,
            _ => read_keys(&mut c, &mut track, key_count, i, StoredRotation::Ani4002)?,
        }
        tracks.push(track);
    }
    if c.remaining() != 0 {
        return Err(c.error(format!("the end of the file after {track_count} tracks, found {} more bytes", c.remaining())));
    }
    let clip = Clip {
        name: String::new(),
        looping: false,
        time_unit: TimeUnit::Ms,
        length: total as f64,
        frame_rate: None,
        tracks,
        events,
        extras: ClipExtras::default(),
    };
    Ok(Animation { format: Format::Ani, version, clips: vec![clip], warnings: Vec::new() })
}

/// The `count` keys of track `index`, whose rotations are `R` words made into stored rotations by `stored`.
fn read_keys<R>(c: &mut Reader, track: &mut Track, count: usize, index: usize, stored: impl Fn(R) -> StoredRotation) -> Result<(), ParseError>
where
    R: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()> + 'static,
{
    track.rotation.reserve(count);
    track.translation.reserve(count);
    for k in 0..count {
        let key: Key<R> = c.read(format_args!("key {k} of track {index} ({KEY_LAYOUT})"))?;
        let time = key.time as f64;
        let stored = stored(key.rotation);
        track.rotation.push(RotationKey { time, value: decode_rotation(stored), stored: Some(stored) });
        track.translation.push(VectorKey { time, value: key.position.map(|f| f.0 as f64) });
    }
    Ok(())
}

/// The quaternion a stored rotation decodes to (the omitted "small three" component is clamped to be
/// real, where the original client could produce NaN).
pub fn decode_rotation(stored: StoredRotation) -> Quat {
    match stored {
        StoredRotation::Ani4000([x, y, z, w]) => {
            let f = |b: u32| f32::from_bits(b) as f64;
            Quat::new(f(w), f(x), f(y), f(z))
        }
        StoredRotation::Ani4001(word) => {
            let largest = (word >> 30) as usize;
            let unpack = |n: u32| 2.0 * (n & 0x3FF) as f64 / 1023.0 - 1.0;
            let stored = [unpack(word >> 20), unpack(word >> 10), unpack(word)];
            let mut xyzw = [0f64; 4];
            let mut next = stored.iter();
            for (i, v) in xyzw.iter_mut().enumerate() {
                if i != largest {
                    *v = *next.next().unwrap_or(&0.0);
                }
            }
            let sum: f64 = stored.iter().map(|v| v * v).sum();
            xyzw[largest] = (1.0 - sum).max(0.0).sqrt();
            Quat::new(xyzw[3], xyzw[0], xyzw[1], xyzw[2])
        }
        StoredRotation::Ani4002([a, b]) => {
            let s = |n: u32| 2.0 * (n & 0xFFFF) as f64 / 65535.0 - 1.0;
            Quat::new((b & 0xFFFF) as f64 / 65535.0, s(a >> 16), s(a), s(b >> 16))
        }
        // Other formats' words are not .ani words; callers never pass them.
        _ => Quat::IDENTITY,
    }
}

fn stored_matches(stored: StoredRotation, version: u32) -> bool {
    matches!(
        (stored, version),
        (StoredRotation::Ani4000(_), 4000) | (StoredRotation::Ani4001(_), 4001) | (StoredRotation::Ani4002(_), 4002)
    )
}

/// The stored rotation of `q` in `version`, reusing the key's own words while it is unedited.
pub fn encode_rotation(key_value: Quat, stored: Option<StoredRotation>, version: u32, losses: &mut Losses) -> StoredRotation {
    if let Some(s) = stored {
        if stored_matches(s, version) && decode_rotation(s) == key_value {
            return s;
        }
    }
    let out = match version {
        4000 => {
            let q = key_value;
            StoredRotation::Ani4000([q.x, q.y, q.z, q.w].map(|v| (v as f32).to_bits()))
        }
        4001 => {
            let q = key_value.normalized();
            let mut xyzw = [q.x, q.y, q.z, q.w];
            let largest = (0..4).fold(0, |best, i| if xyzw[i].abs() > xyzw[best].abs() { i } else { best });
            if xyzw[largest] < 0.0 {
                xyzw.iter_mut().for_each(|v| *v = -*v);
            }
            let mut word = (largest as u32) << 30;
            let mut shift = 20;
            for (i, v) in xyzw.iter().enumerate() {
                if i != largest {
                    let n = ((v + 1.0) * 0.5 * 1023.0).trunc().clamp(0.0, 1023.0) as u32;
                    word |= n << shift;
                    shift -= 10;
                }
            }
            StoredRotation::Ani4001(word)
        }
        _ => {
            let mut q = key_value.normalized();
            if q.w < 0.0 {
                q = q.neg();
            }
            let s = |v: f64| (((v + 1.0) * 0.5 * 65535.0).round().clamp(0.0, 65535.0)) as u32;
            let w = (q.w * 65535.0).round().clamp(0.0, 65535.0) as u32;
            StoredRotation::Ani4002([s(q.x) << 16 | s(q.y), s(q.z) << 16 | w])
        }
    };
    let back = decode_rotation(out);
    if back != key_value && back != key_value.neg() {
        losses.add(format!("precision: rotations quantised to .ani {version} words"));
    }
    out
}

fn put_string(out: &mut Vec<u8>, text: &str, raw: Option<&[u8]>) {
    let bytes = encode_text(text, raw);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
}

fn to_f32(v: f64, losses: &mut Losses) -> f32 {
    let f = v as f32;
    if f as f64 != v {
        losses.add("precision: values rounded to f32");
    }
    f
}

fn put_f32(out: &mut Vec<u8>, v: f64, losses: &mut Losses) {
    out.extend_from_slice(&to_f32(v, losses).to_le_bytes());
}

fn to_i32(v: i64, what: &str) -> Result<i32, WriteError> {
    i32::try_from(v).or_else(|_| write_error(format!("{what} {v} does not fit .ani's i32")))
}

pub fn write(anim: &Animation, version: u32, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    if !VERSIONS.contains(&version) {
        return write_error(format!(".ani version must be 4000, 4001 or 4002, not {version}"));
    }
    let source = single_clip(anim, ".ani", losses)?;
    let clip = retime(source, TimeUnit::Ms, 1.0, losses);
    let mut out = Vec::new();
    put(&mut out, Endian::Little, &FileHeader { version: version as i32 })?;

    let mut events = clip.events.clone();
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    out.extend_from_slice(&to_i32(events.len() as i64, "event count")?.to_le_bytes());
    for e in &events {
        put_string(&mut out, &e.name, e.raw_name.as_deref());
        put_string(&mut out, e.data.as_deref().unwrap_or(""), e.raw_data.as_deref());
        put_f32(&mut out, e.time, losses);
    }
    let total = round_time(clip.length, "total time", losses);
    out.extend_from_slice(&to_i32(total, "total time")?.to_le_bytes());
    out.extend_from_slice(&to_i32(clip.tracks.len() as i64, "track count")?.to_le_bytes());
    for track in &clip.tracks {
        write_track(&mut out, track, version, losses)?;
    }
    if anim.format != Format::Ani && clip.looping {
        losses.add(".ani has no looping flag: looping dropped");
    }
    Ok(out)
}

fn write_track(out: &mut Vec<u8>, track: &Track, version: u32, losses: &mut Losses) -> Result<(), WriteError> {
    let name = bone_name(&track.bone, losses);
    put_string(out, &name, track.extras.raw_bone_name.as_deref());
    put_f32(out, track.extras.ani_weight.unwrap_or(1.0) as f64, losses);
    if !track.scale.is_empty() {
        losses.add("scale dropped: .ani keys have no scale");
    }
    // Every .ani key carries a rotation and a position: pair them directly when the times agree,
    // else sample both at the union of the times.
    let paired = track.rotation.len() == track.translation.len()
        && track.rotation.iter().zip(&track.translation).all(|(r, t)| r.time == t.time);
    let keys: Vec<(f64, Quat, Option<StoredRotation>, [f64; 3])> = if paired {
        track.rotation.iter().zip(&track.translation).map(|(r, t)| (r.time, r.value, r.stored, t.value)).collect()
    } else {
        if track.translation.is_empty() && !track.rotation.is_empty() {
            losses.add("tracks without translation written with position (0, 0, 0)");
        }
        let mut times: Vec<f64> = track.rotation.iter().map(|k| k.time).chain(track.translation.iter().map(|k| k.time)).collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        let s = Sampler::new(track);
        times
            .into_iter()
            .map(|t| {
                let (value, stored) = match s.rotation_key_at_or_before(t).filter(|k| k.time == t) {
                    Some(k) => (k.value, k.stored),
                    None => (s.rotation(t).unwrap_or(Quat::IDENTITY), None),
                };
                (t, value, stored, s.translation(t).unwrap_or([0.0; 3]))
            })
            .collect()
    };
    out.extend_from_slice(&to_i32(keys.len() as i64, "key count")?.to_le_bytes());
    for (time, value, stored, pos) in keys {
        let rotation = encode_rotation(value, stored, version, losses);
        let position = pos.map(|v| Finite(to_f32(v, losses)));
        let time = to_i32(round_time(time, "key time", losses), "key time")?;
        match rotation {
            StoredRotation::Ani4000(bits) => {
                put(out, Endian::Little, &Key { rotation: bits.map(|b| Finite(f32::from_bits(b))), position, time })?
            }
            StoredRotation::Ani4001(rotation) => put(out, Endian::Little, &Key { rotation, position, time })?,
            StoredRotation::Ani4002(rotation) => put(out, Endian::Little, &Key { rotation, position, time })?,
            _ => return write_error("a rotation that is not .ani words"),
        }
    }
    Ok(())
}
