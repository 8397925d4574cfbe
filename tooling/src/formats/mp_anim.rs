//! Metroid Prime ANIM (big-endian): version 0 (quaternion arrays) read and write, version 2 (delta
//! bitstream) read and write.
//!
//! Version 0, after the `u32` version, six header words (PrimeWorldEditor's `ReadUncompressedANIM`,
//! metaforce and retro-data-structures agree): `f32 duration`, `u32` its differential state, `f32
//! interval`, `u32` its differential state, `u32 key count`, `u32 root bone id`. Then `u32` and that many
//! `u8` (bone id -> rotation channel, 0xFF = not animated; 100 in Retro's files), `u32` and that many
//! `u8` (for the n-th animated bone in bone order, its translation channel, 0xFF = none), `u32`
//! quaternion count and the `f32 w, x, y, z` keys channel-major, `u32` vector count and the `f32 x, y,
//! z` keys channel-major, then the `u32` EVNT id. Files in paks are padded with 0xFF bytes after it.
//!
//! Version 2, after the `u32` version: scratch size, EVNT id, unknown (1), `f32 duration`, `f32
//! interval`, root bone id, looping flag, rotation divisor, `f32` translation multiplier, channel
//! count, unknown (1), key bitmap bit count; the bitmap as `u32` words (bits LSB first, one per
//! frame), the channel count twice, the channel descriptors, then the bitstream: `u32` words, bits LSB
//! first, one q-bit two's-complement delta per component, each rotation key led by its W-sign bit.
//! Frame 0 comes from the descriptors' initial values (W positive); frames whose bitmap bit is clear
//! carry no bits and do not appear as keys.
//!
//! The headers of both versions, the version 0 key records (`f32` quaternions and vectors) and the
//! version 2 channel descriptors are binrw declarations shared by the reader and the writer. The
//! version 0 index maps (byte runs whose meaning is checked entry by entry), the counts (checked
//! against the rest of the file before allocating) and the version 2 bitstream (fields of any width
//! from 0 to 32 bits, packed LSB first across words, which is no fixed layout) are code here.

use super::record::{put, Finite, Reader};
use binrw::{binrw, Endian};
use super::timebase::{bone_id, frame_rate, retime, single_clip, whole};
use super::{write_error, Losses, ParseError, Tolerance, WriteError};
use crate::model::{Animation, Bone, Clip, ClipExtras, Format, MpExtras, Quat, RotationKey, Sampler, TimeUnit, Track, VectorKey};
use std::f64::consts::FRAC_PI_2;

/// Rotation divisor a correct encoder uses.
pub const ROTATION_DIVISOR: u32 = 0x7FFF;
/// Largest bone id the writers accept (the version 0 bone map has one byte per id up to it).
const MAX_BONE_ID: u32 = 4095;
const NO_EVENTS: u32 = 0xFFFF_FFFF;
/// Longest run of frames the key reduction bridges with one interpolation.
const MAX_SPAN: usize = 256;

/// The six header words of version 0, after the version word.
#[binrw]
#[brw(big)]
struct V0Header {
    duration: Finite,
    duration_state: u32,
    interval: Finite,
    interval_state: u32,
    key_count: u32,
    root_bone_id: u32,
}

/// The header of version 2, after the version word.
#[binrw]
#[brw(big)]
struct V2Header {
    scratch_size: u32,
    evnt_id: u32,
    unknown0: u32,
    duration: Finite,
    interval: Finite,
    root_bone_id: u32,
    looping: u32,
    rotation_divisor: u32,
    translation_multiplier: Finite,
    channel_count: u32,
    unknown3: u32,
    frame_count: u32,
}

/// Offsets in the file of the version 2 header fields that are checked.
const V2_INTERVAL_AT: usize = 4 + 16;
const V2_DIVISOR_AT: usize = 4 + 28;
const V2_FRAME_COUNT_AT: usize = 4 + 44;
const V0_INTERVAL_AT: usize = 4 + 8;

/// One version 2 channel descriptor: bone id, key count, initial value and bit width of rx, ry, rz,
/// translation key count, then (when it is not 0) those of tx, ty, tz.
#[binrw]
#[brw(big)]
struct ChannelDescriptor {
    bone: u32,
    key_count: u16,
    rotation: [Component; 3],
    translation_keys: u16,
    #[br(if(translation_keys != 0))]
    translation: Option<[Component; 3]>,
}

/// The initial value and bit width of one component of a channel.
#[binrw]
#[brw(big)]
#[derive(Clone, Copy)]
struct Component {
    initial: i16,
    width: BitWidth,
}

#[binrw]
#[brw(big)]
#[br(assert(bits <= 32, "a bit width of at most 32, found {}", bits))]
#[derive(Clone, Copy)]
struct BitWidth {
    bits: u8,
}

pub fn read(bytes: &[u8]) -> Result<Animation, ParseError> {
    let mut c = Reader::new(bytes, Endian::Big);
    match c.read::<u32>("the version word (0 or 2)")? {
        0 => read_v0(&mut c),
        2 => read_v2(&mut c),
        v => Err(ParseError::new(0, format!("ANIM version 0 or 2, found {v}"))),
    }
}

fn positive_interval(interval: Finite, at: usize) -> Result<f64, ParseError> {
    let interval = interval.0 as f64;
    if interval <= 0.0 {
        return Err(ParseError::new(at, format!("a positive key interval in seconds, found {interval}")));
    }
    Ok(interval)
}

fn read_v0(c: &mut Reader) -> Result<Animation, ParseError> {
    let V0Header { duration, duration_state, interval, interval_state, key_count, root_bone_id } = c.read(
        "the version 0 header (f32 duration, u32 its state, f32 interval, u32 its state, u32 key count, u32 root bone id)",
    )?;
    let duration = duration.0 as f64;
    let interval = positive_interval(interval, V0_INTERVAL_AT)?;
    let bone_entry_count: u32 = c.read("the u32 rotation index count")?;
    let n = c.count(bone_entry_count as u64, 1, "rotation indices")?;
    let bone_map_at = c.pos();
    let bone_map = c.bytes(n, "the rotation indices (bone id -> rotation channel)")?.to_vec();
    // Bones with a rotation channel, in bone order, and each channel's bone.
    let animated: Vec<usize> = (0..n).filter(|&b| bone_map[b] != 0xFF).collect();
    let rotation_channels = animated.len();
    let mut channel_bone: Vec<Option<usize>> = vec![None; rotation_channels];
    for &bone in &animated {
        let ch = bone_map[bone];
        let at = bone_map_at + bone;
        match channel_bone.get_mut(ch as usize) {
            None => {
                return Err(ParseError::new(
                    at,
                    format!("a rotation channel below {rotation_channels} (the animated bones) or 0xFF for bone {bone}, found {ch}"),
                ))
            }
            Some(Some(other)) => {
                return Err(ParseError::new(at, format!("one bone per rotation channel; channel {ch} is already bone {other}'s")))
            }
            Some(slot) => *slot = Some(bone),
        }
    }
    let trans_map_count_at = c.pos();
    let trans_count: u32 = c.read("the u32 translation index count")?;
    let m = c.count(trans_count as u64, 1, "translation indices")?;
    if m < rotation_channels {
        return Err(ParseError::new(
            trans_map_count_at,
            format!("a translation index for each of the {rotation_channels} animated bones, found {m}"),
        ));
    }
    let trans_map_at = c.pos();
    let trans_map = c.bytes(m, "the translation indices (animated bone -> translation channel)")?.to_vec();
    let translation_channels = trans_map.iter().filter(|&&t| t != 0xFF).count();
    let mut translation_of: Vec<Option<usize>> = vec![None; rotation_channels];
    let mut used = vec![false; translation_channels];
    for (i, &t) in trans_map.iter().enumerate() {
        if t == 0xFF {
            continue;
        }
        let at = trans_map_at + i;
        if i >= rotation_channels {
            return Err(ParseError::new(
                at,
                format!("0xFF past the {rotation_channels} animated bones (a translation channel needs a bone), found {t}"),
            ));
        }
        match used.get_mut(t as usize) {
            None => {
                return Err(ParseError::new(at, format!("a translation channel below {translation_channels} or 0xFF, found {t}")))
            }
            Some(true) => return Err(ParseError::new(at, format!("one bone per translation channel; channel {t} is used twice"))),
            Some(slot) => *slot = true,
        }
        translation_of[i] = Some(t as usize);
    }

    let keys = key_count as usize;
    let quat_at = c.pos();
    let quat_count: u32 = c.read("the u32 quaternion count")?;
    if quat_count as u64 != rotation_channels as u64 * key_count as u64 {
        return Err(ParseError::new(
            quat_at,
            format!(
                "{rotation_channels} channels x {key_count} keys = {} quaternions, found {quat_count}",
                rotation_channels as u64 * key_count as u64
            ),
        ));
    }
    c.count(quat_count as u64, 16, "quaternions")?;
    let mut rotations: Vec<Vec<Quat>> = Vec::with_capacity(rotation_channels);
    for _ in 0..rotation_channels {
        let mut keys_of = Vec::with_capacity(keys);
        for _ in 0..keys {
            let [w, x, y, z] = c.read::<[Finite; 4]>("a quaternion (f32 w, x, y, z)")?.map(|v| v.0 as f64);
            keys_of.push(Quat::new(w, x, y, z));
        }
        rotations.push(keys_of);
    }
    let trans_at = c.pos();
    let vector_count: u32 = c.read("the u32 vector count")?;
    let expected = translation_channels as u64 * key_count as u64;
    if vector_count as u64 != expected {
        return Err(ParseError::new(
            trans_at,
            format!("{translation_channels} translation channels x {key_count} keys = {expected} vectors, found {vector_count}"),
        ));
    }
    c.count(vector_count as u64, 12, "vectors")?;
    let mut translations: Vec<Vec<[f64; 3]>> = Vec::with_capacity(translation_channels);
    for _ in 0..translation_channels {
        let mut keys_of = Vec::with_capacity(keys);
        for _ in 0..keys {
            keys_of.push(c.read::<[Finite; 3]>("a translation (f32 x, y, z)")?.map(|v| v.0 as f64));
        }
        translations.push(keys_of);
    }
    let evnt_id: u32 = c.read("the u32 EVNT id")?;
    let padding_at = c.pos();
    let padding = c.bytes(c.remaining(), "padding")?;
    if let Some(i) = padding.iter().position(|&b| b != 0xFF) {
        return Err(ParseError::new(
            padding_at + i,
            format!("the end of the file or 0xFF padding after the EVNT id, found 0x{:02X}", padding[i]),
        ));
    }

    let time = |k: usize| k as f64 * interval;
    let mut tracks = Vec::with_capacity(rotation_channels);
    for (n, &bone) in animated.iter().enumerate() {
        let mut track = Track::new(Bone::Id(bone as u32));
        let ch = bone_map[bone] as usize;
        track.rotation = rotations[ch].iter().enumerate().map(|(k, &q)| RotationKey { time: time(k), value: q, stored: None }).collect();
        if let Some(t) = translation_of[n] {
            track.translation = translations[t].iter().enumerate().map(|(k, &v)| VectorKey { time: time(k), value: v }).collect();
        }
        tracks.push(track);
    }
    let extras = MpExtras {
        evnt_id,
        scratch_size: 0,
        root_bone_id,
        unknown0: 1,
        unknown3: 1,
        rotation_divisor: ROTATION_DIVISOR,
        translation_multiplier: 1.0,
        bone_entry_count: Some(bone_entry_count),
        time_states: Some([duration_state, interval_state]),
        frame_count: Some(key_count),
    };
    Ok(Animation {
        format: Format::MpAnim,
        version: 0,
        clips: vec![mp_clip(duration, interval, false, tracks, extras)],
        warnings: Vec::new(),
    })
}

fn mp_clip(duration: f64, interval: f64, looping: bool, tracks: Vec<Track>, extras: MpExtras) -> Clip {
    Clip {
        name: String::new(),
        looping,
        time_unit: TimeUnit::S,
        length: duration,
        frame_rate: Some(1.0 / interval),
        tracks,
        events: Vec::new(),
        extras: ClipExtras { mp: Some(extras), ..ClipExtras::default() },
    }
}

/// One version 2 channel descriptor.
struct Channel {
    bone: u32,
    /// Initial value and bit width of rx, ry, rz.
    rotation: [(i16, u8); 3],
    /// Initial value and bit width of tx, ty, tz, when the channel is translated.
    translation: Option<[(i16, u8); 3]>,
}

impl Channel {
    fn key_bits(&self) -> u64 {
        let rot: u64 = 1 + self.rotation.iter().map(|r| r.1 as u64).sum::<u64>();
        rot + self.translation.map_or(0, |t| t.iter().map(|r| r.1 as u64).sum())
    }
}

/// Bits taken least-significant first from big-endian 32-bit words; a field may straddle two words.
/// The caller has checked that the stream holds every bit it will ask for.
struct BitReader<'a> {
    words: &'a [u8],
    bit: u64,
}

impl BitReader<'_> {
    fn word(&self, index: usize) -> u64 {
        match self.words.get(index * 4..index * 4 + 4) {
            Some(w) => u32::from_be_bytes([w[0], w[1], w[2], w[3]]) as u64,
            None => 0,
        }
    }

    /// The next `q` (at most 32) bits as an unsigned number.
    fn bits(&mut self, q: u8) -> u64 {
        if q == 0 {
            return 0;
        }
        let index = (self.bit / 32) as usize;
        let pair = self.word(index) | self.word(index + 1) << 32;
        self.bit += q as u64;
        (pair >> ((self.bit - q as u64) % 32)) & ((1u64 << q) - 1)
    }

    fn bit(&mut self) -> u32 {
        self.bits(1) as u32
    }

    /// A `q`-bit two's-complement value, sign-extended.
    fn signed(&mut self, q: u8) -> i64 {
        let v = self.bits(q);
        if q > 0 && v >> (q - 1) & 1 == 1 {
            v as i64 - (1i64 << q)
        } else {
            v as i64
        }
    }
}

fn decode_rotation(v: [i64; 3], negative_w: bool, divisor: f64) -> Quat {
    let c = |v: i64| (v as f64 * FRAC_PI_2 / divisor).sin();
    let (x, y, z) = (c(v[0]), c(v[1]), c(v[2]));
    let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
    Quat::new(if negative_w { -w } else { w }, x, y, z)
}

fn read_v2(c: &mut Reader) -> Result<Animation, ParseError> {
    let V2Header {
        scratch_size,
        evnt_id,
        unknown0,
        duration,
        interval,
        root_bone_id,
        looping,
        rotation_divisor,
        translation_multiplier: Finite(translation_multiplier),
        channel_count,
        unknown3,
        frame_count,
    } = c.read("the 48-byte version 2 header (scratch size, EVNT id, unknown, f32 duration, f32 interval, root bone id, \
                looping flag, rotation divisor, f32 translation multiplier, channel count, unknown, key bitmap bit count)")?;
    let duration = duration.0 as f64;
    let interval = positive_interval(interval, V2_INTERVAL_AT)?;
    let looping = looping != 0;
    if rotation_divisor == 0 {
        return Err(ParseError::new(V2_DIVISOR_AT, "a non-zero rotation divisor"));
    }
    if frame_count == 0 {
        return Err(ParseError::new(V2_FRAME_COUNT_AT, "a key bitmap of at least one frame"));
    }
    let bitmap: Vec<u32> = c.records(frame_count.div_ceil(32) as u64, 4, "key bitmap words")?;
    let keyed = |f: u32| bitmap[(f / 32) as usize] >> (f % 32) & 1 == 1;
    for what in ["the first channel count", "the second channel count"] {
        let at = c.pos();
        let n: u32 = c.read(format_args!("{what} (u32)"))?;
        if n != channel_count {
            return Err(ParseError::new(at, format!("{what} equal to the header's {channel_count}, found {n}")));
        }
    }
    let n = c.count(channel_count as u64, 17, "bone channel descriptors")?;
    let mut channels = Vec::with_capacity(n);
    for i in 0..n {
        let d: ChannelDescriptor = c.read(format_args!(
            "the descriptor of channel {i} (u32 bone id, u16 key count, i16 initial value and u8 bit width of rx, ry, rz, \
             u16 translation key count, then those of tx, ty, tz when it is not 0)"
        ))?;
        let pair = |c: [Component; 3]| c.map(|c| (c.initial, c.width.bits));
        channels.push(Channel { bone: d.bone, rotation: pair(d.rotation), translation: d.translation.map(pair) });
    }
    let key_frames: Vec<u32> = (1..frame_count).filter(|&f| keyed(f)).collect();
    let frame_bits: u64 = channels.iter().map(Channel::key_bits).sum();
    let total_bits = frame_bits * key_frames.len() as u64;
    let stream_bytes = total_bits.div_ceil(32) * 4;
    if stream_bytes > c.remaining() as u64 {
        return Err(c.error(format!(
            "a bitstream of {total_bits} bits ({stream_bytes} bytes) for {} keyed frames, but only {} bytes remain",
            key_frames.len(),
            c.remaining()
        )));
    }
    let stream = c.bytes(stream_bytes as usize, "the bitstream")?;
    // Bytes after the bitstream are padding (files in paks are padded); they are not read.

    let divisor = rotation_divisor as f64;
    let mult = translation_multiplier as f64;
    let mut tracks: Vec<Track> = Vec::with_capacity(channels.len());
    let mut sums: Vec<([i64; 3], [i64; 3])> = Vec::with_capacity(channels.len());
    for ch in &channels {
        let r = ch.rotation.map(|(init, _)| init as i64);
        let t = ch.translation.map_or([0; 3], |t| t.map(|(init, _)| init as i64));
        let mut track = Track::new(Bone::Id(ch.bone));
        track.rotation.push(RotationKey { time: 0.0, value: decode_rotation(r, false, divisor), stored: None });
        if ch.translation.is_some() {
            track.translation.push(VectorKey { time: 0.0, value: t.map(|v| v as f64 * mult) });
        }
        tracks.push(track);
        sums.push((r, t));
    }
    let mut bits = BitReader { words: stream, bit: 0 };
    for &f in &key_frames {
        let time = f as f64 * interval;
        for (i, ch) in channels.iter().enumerate() {
            let negative_w = bits.bit() == 1;
            let (r, t) = &mut sums[i];
            for (axis, (_, q)) in ch.rotation.iter().enumerate() {
                r[axis] = r[axis].wrapping_add(bits.signed(*q));
            }
            tracks[i].rotation.push(RotationKey { time, value: decode_rotation(*r, negative_w, divisor), stored: None });
            if let Some(tr) = ch.translation {
                for (axis, (_, q)) in tr.iter().enumerate() {
                    t[axis] = t[axis].wrapping_add(bits.signed(*q));
                }
                tracks[i].translation.push(VectorKey { time, value: t.map(|v| v as f64 * mult) });
            }
        }
    }
    let extras = MpExtras {
        evnt_id,
        scratch_size,
        root_bone_id,
        unknown0,
        unknown3,
        rotation_divisor,
        translation_multiplier,
        bone_entry_count: None,
        time_states: None,
        frame_count: Some(frame_count),
    };
    Ok(Animation { format: Format::MpAnim, version: 2, clips: vec![mp_clip(duration, interval, looping, tracks, extras)], warnings: Vec::new() })
}

/// A clip resampled onto a uniform frame grid: per track, per frame, the rotation and translation.
struct Grid {
    interval: f64,
    duration: f64,
    frames: usize,
    bones: Vec<u32>,
    rotation: Vec<Vec<Quat>>,
    translation: Vec<Option<Vec<[f64; 3]>>>,
    looping: bool,
    extras: Option<MpExtras>,
}

fn grid(anim: &Animation, losses: &mut Losses) -> Result<Grid, WriteError> {
    let source = single_clip(anim, "Metroid Prime ANIM", losses)?;
    let rate = frame_rate(source);
    let clip = retime(source, TimeUnit::S, rate, losses);
    let interval = match (source.frame_rate, millisecond_grid(source)) {
        // A source with no stated rate whose keys sit on a whole-millisecond grid keeps that grid
        // (100 fps `.ani` keys stay 10 ms apart).
        (None, Some(ms)) => ms / 1000.0,
        _ => match clip.frame_rate {
            Some(r) if r > 0.0 && r.is_finite() => 1.0 / r,
            _ => 1.0 / rate,
        },
    };
    let mut last = 0usize;
    let mut off_grid = false;
    let mut bones = Vec::new();
    for track in &clip.tracks {
        let id = bone_id(&track.bone)?;
        if id > MAX_BONE_ID {
            return write_error(format!("bone id {id}: the ANIM writers accept ids up to {MAX_BONE_ID}"));
        }
        if bones.contains(&id) {
            return write_error(format!("bone {id} has two tracks; ANIM holds one channel per bone"));
        }
        bones.push(id);
        if !track.scale.is_empty() {
            losses.add("scale dropped: ANIM has no scale keys");
        }
        for t in track.rotation.iter().map(|k| k.time).chain(track.translation.iter().map(|k| k.time)) {
            let f = t / interval;
            match whole(f) {
                Some(f) if f >= 0 => last = last.max(f as usize),
                _ => {
                    off_grid = true;
                    last = last.max(f.max(0.0).ceil().min(1e6) as usize);
                }
            }
        }
    }
    if off_grid {
        losses.add(format!("resampled time: keys moved onto ANIM's uniform grid of {interval} s"));
    }
    let extras = clip.extras.mp.clone();
    let frames = (last + 1).max(extras.as_ref().and_then(|e| e.frame_count).unwrap_or(0) as usize);
    if frames > 65535 {
        return write_error(format!("{frames} frames: more than ANIM's 65535 keys per channel"));
    }
    if !clip.events.is_empty() {
        losses.add("events dropped: ANIM refers to a separate EVNT resource");
    }
    let mut rotation = Vec::new();
    let mut translation = Vec::new();
    for track in &clip.tracks {
        let s = Sampler::new(track);
        rotation.push(
            (0..frames)
                .map(|f| {
                    let t = f as f64 * interval;
                    exact_rotation(&s, t).or_else(|| s.rotation(t)).unwrap_or(Quat::IDENTITY)
                })
                .collect(),
        );
        translation.push(if track.translation.is_empty() {
            None
        } else {
            Some((0..frames).map(|f| s.translation(f as f64 * interval).unwrap_or([0.0; 3])).collect())
        });
    }
    Ok(Grid { interval, duration: clip.length, frames, bones, rotation, translation, looping: clip.looping, extras })
}

/// The step of the grid the keys of a millisecond clip sit on: the greatest common divisor of their
/// times, when every time is a whole number of milliseconds and the grid is no finer than 1 ms nor
/// longer than ANIM's 65535 frames.
fn millisecond_grid(clip: &Clip) -> Option<f64> {
    if clip.time_unit != TimeUnit::Ms {
        return None;
    }
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut step = 0u64;
    let mut last = 0u64;
    for t in clip.tracks.iter().flat_map(|t| t.rotation.iter().map(|k| k.time).chain(t.translation.iter().map(|k| k.time))) {
        let ms = whole(t).filter(|&v| v >= 0)? as u64;
        step = gcd(step, ms);
        last = last.max(ms);
    }
    (step > 0 && last / step < 65535).then_some(step as f64)
}

/// The value of a key at exactly `t` (up to float noise), so grid frames that are keys are not resampled.
fn exact_rotation(s: &Sampler, t: f64) -> Option<Quat> {
    let eps = 1e-9 * t.abs().max(1.0);
    let i = s.rotation.partition_point(|k| k.time < t - eps);
    s.rotation.get(i).filter(|k| (k.time - t).abs() <= eps).map(|k| k.value)
}

fn f32_exact(v: f64, losses: &mut Losses) -> f32 {
    let f = v as f32;
    if f as f64 != v {
        losses.add("precision: values rounded to f32");
    }
    f
}

/// Slots of the version 0 bone -> rotation channel map in Retro's files (PrimeWorldEditor asserts it).
const V0_BONE_SLOTS: usize = 100;

pub fn write_v0(anim: &Animation, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    let g = grid(anim, losses)?;
    if g.looping {
        losses.add("looping dropped: ANIM version 0 has no looping flag");
    }
    if g.bones.len() > 255 {
        return write_error("ANIM version 0 holds at most 255 channels (u8 channel indices)");
    }
    // Channels in bone order: the translation indices are listed per animated bone in that order.
    let mut order: Vec<usize> = (0..g.bones.len()).collect();
    order.sort_by_key(|&i| g.bones[i]);
    let extras = g.extras.as_ref();
    let [duration_state, interval_state] = extras.and_then(|e| e.time_states).unwrap_or([0, 0]);
    let mut out = Vec::new();
    let word = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_be_bytes());
    word(&mut out, 0);
    let header = V0Header {
        duration: Finite(f32_exact(g.duration, losses)),
        duration_state,
        interval: Finite(f32_exact(g.interval, losses)),
        interval_state,
        key_count: g.frames as u32,
        root_bone_id: extras.map_or(order.first().map_or(0, |&i| g.bones[i]), |e| e.root_bone_id),
    };
    put(&mut out, Endian::Big, &header)?;
    let entries = g
        .bones
        .iter()
        .map(|&b| b as usize + 1)
        .max()
        .unwrap_or(0)
        .max(extras.and_then(|e| e.bone_entry_count).map_or(V0_BONE_SLOTS, |n| n as usize));
    word(&mut out, entries as u32);
    let mut map = vec![0xFFu8; entries];
    for (ch, &i) in order.iter().enumerate() {
        map[g.bones[i] as usize] = ch as u8;
    }
    out.extend_from_slice(&map);
    word(&mut out, order.len() as u32);
    let mut next = 0u8;
    for &i in &order {
        out.push(if g.translation[i].is_some() {
            next += 1;
            next - 1
        } else {
            0xFF
        });
    }
    word(&mut out, (order.len() * g.frames) as u32);
    for &i in &order {
        for q in &g.rotation[i] {
            for v in q.to_array() {
                out.extend_from_slice(&f32_exact(v, losses).to_be_bytes());
            }
        }
    }
    let translated: Vec<&Vec<[f64; 3]>> = order.iter().filter_map(|&i| g.translation[i].as_ref()).collect();
    word(&mut out, (translated.len() * g.frames) as u32);
    for keys in translated {
        for v in keys.iter().flatten() {
            out.extend_from_slice(&f32_exact(*v, losses).to_be_bytes());
        }
    }
    word(&mut out, extras.map_or(NO_EVENTS, |e| e.evnt_id));
    Ok(out)
}

/// The quantised rotation vector of a unit quaternion with `w >= 0` implied: `asin(c) / (pi/2) * divisor`.
fn quantise_rotation(q: Quat, divisor: f64) -> [i64; 3] {
    [q.x, q.y, q.z].map(|c| (c.clamp(-1.0, 1.0).asin() / FRAC_PI_2 * divisor).round() as i64)
}

/// Smallest two's-complement width holding every value: `-2^(q-1) <= d <= 2^(q-1) - 1`.
pub fn bit_width(deltas: impl Iterator<Item = i64>) -> u8 {
    let mut q = 1u8;
    for d in deltas {
        while q < 64 && !(-(1i64 << (q - 1)) <= d && d < (1i64 << (q - 1))) {
            q += 1;
        }
    }
    q
}

/// A channel's quantised per-frame data.
struct Quantised {
    rotation: Vec<([i64; 3], bool)>,
    translation: Option<Vec<[i64; 3]>>,
}

pub fn write_v2(anim: &Animation, tolerance: Tolerance, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    let g = grid(anim, losses)?;
    // A version 2 source keeps its keys, its rotation divisor and its W signs unless asked to reduce.
    let stored = if anim.format == Format::MpAnim && anim.version == 2 && !tolerance.reduce_stored {
        stored_key_frames(anim, &g)
    } else {
        None
    };
    let divisor = match (&stored, g.extras.as_ref()) {
        (Some(_), Some(e)) if e.rotation_divisor > 0 => e.rotation_divisor,
        _ => ROTATION_DIVISOR,
    };
    let divisor_word = divisor;
    let divisor = divisor as f64;
    // Translation multiplier: the kept one when every value still fits the i16 initial values, else the
    // smallest f32 step that fits the largest value.
    let max_abs = g.translation.iter().flatten().flatten().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    let kept = g.extras.as_ref().map(|e| e.translation_multiplier as f64).filter(|&m| m > 0.0 && max_abs / m <= 32767.0);
    let mult = match kept {
        Some(m) => m,
        None if max_abs == 0.0 => 1.0,
        None => {
            let mut m = (max_abs / 32767.0) as f32;
            while max_abs / m as f64 > 32767.0 {
                m = f32::from_bits(m.to_bits() + 1);
            }
            m as f64
        }
    };

    // Quantise absolute values first, with hemisphere continuity so deltas stay small.
    let mut channels = Vec::with_capacity(g.bones.len());
    for (i, keys) in g.rotation.iter().enumerate() {
        let mut prev: Option<Quat> = None;
        let rotation = keys
            .iter()
            .map(|q| {
                let mut q = q.normalized();
                if stored.is_some() {
                    return (quantise_rotation(q, divisor), q.w.is_sign_negative());
                }
                if prev.map_or(q.w < 0.0, |p| p.dot(q) < 0.0) {
                    q = q.neg();
                }
                prev = Some(q);
                (quantise_rotation(q, divisor), q.w < 0.0)
            })
            .collect();
        let translation = g.translation[i].as_ref().map(|t| t.iter().map(|v| v.map(|x| (x / mult).round() as i64)).collect());
        channels.push(Quantised { rotation, translation });
    }
    if stored.is_none() {
        losses.add("precision: ANIM version 2 quantises rotations to 1/32767 of a quarter turn and translations to the multiplier");
    }

    let keeps_stored = stored.is_some();
    let kept_frames = match stored {
        Some(frames) => frames,
        None => select_keys(&g, &channels, divisor, mult, tolerance),
    };
    if kept_frames.len() < g.frames && !keeps_stored {
        losses.add(format!(
            "keys reduced: {} of {} frames kept; interpolation restores the rest within the tolerance",
            kept_frames.len(),
            g.frames
        ));
    }

    let mut out = Vec::new();
    let word = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_be_bytes());
    let extras = g.extras.clone();
    word(&mut out, 2);
    let mut header = V2Header {
        scratch_size: 0,
        evnt_id: extras.as_ref().map_or(NO_EVENTS, |e| e.evnt_id),
        unknown0: extras.as_ref().map_or(1, |e| e.unknown0),
        duration: Finite(f32_exact(g.duration, losses)),
        interval: Finite(f32_exact(g.interval, losses)),
        root_bone_id: extras.as_ref().map_or(3, |e| e.root_bone_id),
        looping: g.looping as u32,
        rotation_divisor: divisor_word,
        translation_multiplier: Finite(mult as f32),
        channel_count: g.bones.len() as u32,
        unknown3: extras.as_ref().map_or(1, |e| e.unknown3),
        frame_count: g.frames as u32,
    };
    put(&mut out, Endian::Big, &header)?;
    let mut bitmap = vec![0u32; g.frames.div_ceil(32)];
    for &f in &kept_frames {
        bitmap[f / 32] |= 1 << (f % 32);
    }
    bitmap.iter().for_each(|w| word(&mut out, *w));
    word(&mut out, g.bones.len() as u32);
    word(&mut out, g.bones.len() as u32);

    let mut writer = BitWriter::default();
    let key_count = u16::try_from(kept_frames.len()).or_else(|_| write_error("more than 65535 keys per channel"))?;
    let mut widths = Vec::new();
    for (i, ch) in channels.iter().enumerate() {
        let r: Vec<[i64; 3]> = kept_frames.iter().map(|&f| ch.rotation[f].0).collect();
        let rq = axis_widths(&r);
        let t: Option<Vec<[i64; 3]>> = ch.translation.as_ref().map(|t| kept_frames.iter().map(|&f| t[f]).collect());
        let tq = t.as_ref().map(|t| axis_widths(t));
        let component = |initial: i64, bits: u8| Component { initial: initial.clamp(-32768, 32767) as i16, width: BitWidth { bits } };
        let translation = match (&t, tq) {
            (Some(t), Some(tq)) => Some([0, 1, 2].map(|axis| component(t[0][axis], tq[axis]))),
            _ => None,
        };
        let descriptor = ChannelDescriptor {
            bone: g.bones[i],
            key_count,
            // The initial rotation is written as its low 16 bits, as quantised.
            rotation: [0, 1, 2].map(|axis| Component { initial: r[0][axis] as i16, width: BitWidth { bits: rq[axis] } }),
            translation_keys: if translation.is_some() { key_count } else { 0 },
            translation,
        };
        put(&mut out, Endian::Big, &descriptor)?;
        widths.push((rq, tq));
    }
    for k in 1..kept_frames.len() {
        let (f, prev) = (kept_frames[k], kept_frames[k - 1]);
        for (i, ch) in channels.iter().enumerate() {
            let (rq, tq) = widths[i];
            writer.push(ch.rotation[f].1 as u64, 1);
            for (axis, &width) in rq.iter().enumerate() {
                writer.push((ch.rotation[f].0[axis] - ch.rotation[prev].0[axis]) as u64, width);
            }
            if let (Some(t), Some(tq)) = (&ch.translation, tq) {
                for axis in 0..3 {
                    writer.push((t[f][axis] - t[prev][axis]) as u64, tq[axis]);
                }
            }
        }
    }
    writer.words.iter().for_each(|w| word(&mut out, *w));
    if writer.bit % 32 != 0 {
        word(&mut out, writer.current);
    }
    // The header again, now that the scratch size (the file's size for a new file) is known.
    header.scratch_size = extras.as_ref().map_or(out.len() as u32, |e| e.scratch_size);
    let mut head = Vec::new();
    put(&mut head, Endian::Big, &header)?;
    out[4..4 + head.len()].copy_from_slice(&head);
    Ok(out)
}

/// The frames a version 2 source stores keys at (frame 0 always), when every key sits on the grid.
fn stored_key_frames(anim: &Animation, g: &Grid) -> Option<Vec<usize>> {
    let clip = anim.clips.first()?;
    let mut frames = vec![0usize];
    for track in &clip.tracks {
        for t in track.rotation.iter().map(|k| k.time).chain(track.translation.iter().map(|k| k.time)) {
            let f = whole(t / g.interval).filter(|&f| f >= 0 && (f as usize) < g.frames)?;
            frames.push(f as usize);
        }
    }
    frames.sort_unstable();
    frames.dedup();
    Some(frames)
}

fn axis_widths(values: &[[i64; 3]]) -> [u8; 3] {
    [0, 1, 2].map(|axis| bit_width(values.windows(2).map(|w| w[1][axis] - w[0][axis])))
}

#[derive(Default)]
struct BitWriter {
    words: Vec<u32>,
    current: u32,
    bit: u64,
}

impl BitWriter {
    /// Appends the low `q` bits of `v`, least-significant first.
    fn push(&mut self, v: u64, q: u8) {
        for i in 0..q {
            self.current |= (((v >> i) & 1) as u32) << (self.bit % 32);
            self.bit += 1;
            if self.bit % 32 == 0 {
                self.words.push(self.current);
                self.current = 0;
            }
        }
    }
}

/// Frames to keep: the first, the last, and every frame interpolation between its kept neighbours
/// cannot reproduce within the tolerance (greedy: each span is extended as far as it stays within).
fn select_keys(g: &Grid, channels: &[Quantised], divisor: f64, mult: f64, tol: Tolerance) -> Vec<usize> {
    let decoded: Vec<Vec<Quat>> =
        channels.iter().map(|ch| ch.rotation.iter().map(|&(v, neg)| decode_rotation(v, neg, divisor)).collect()).collect();
    let reproduces = |a: usize, b: usize| -> bool {
        (a + 1..b).all(|j| {
            let t = (j - a) as f64 / (b - a) as f64;
            channels.iter().enumerate().all(|(i, ch)| {
                let q = decoded[i][a].slerp(decoded[i][b], t);
                if q.angle_to(g.rotation[i][j]) > tol.rotation {
                    return false;
                }
                match (&ch.translation, &g.translation[i]) {
                    (Some(tq), Some(orig)) => (0..3).all(|axis| {
                        let (va, vb) = (tq[a][axis] as f64 * mult, tq[b][axis] as f64 * mult);
                        (va + (vb - va) * t - orig[j][axis]).abs() <= tol.translation.max(mult)
                    }),
                    _ => true,
                }
            })
        })
    };
    let mut kept = vec![0];
    let mut start = 0;
    let mut end = 1;
    while end < g.frames {
        // Spans are capped so a long static clip costs linear, not quadratic, time.
        if end + 1 < g.frames && end + 1 - start <= MAX_SPAN && reproduces(start, end + 1) {
            end += 1;
            continue;
        }
        kept.push(end);
        start = end;
        end += 1;
    }
    kept
}
