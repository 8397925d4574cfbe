//! `.panim` (Pluto's SM64 DMA animation tables): reader and writer.
//!
//! Layout (big-endian): a 100-byte header (`char[64]` name, `char[32]` author, `u8` loop, `u16` length,
//! `u8` node count), the tag `"values"` and the `s16` value table, the tag `"indices"` and
//! `(bones + 1) * 3` `u16` pairs (frame count, offset): the root translation's three axes, then
//! three rotation axes per bone. Optional `"translations"` then `"scales"` sections follow, each `u16`
//! frame count, `u16` bone count, an LSB-first bitmask of the non-root bones present, and `s16 x, y, z`
//! per frame for each present bone.
//!
//! The node count byte is not authoritative: Pluto's `json2panim` copies it unchecked (the public files
//! say 95 for 20 bones) and Pluto's loader ignores it, taking the bone count from the index table. So
//! does this reader, with a warning when the byte disagrees.
//!
//! Time: one frame per SM64 game tick, 30 per second. Frames run `0 .. length - 1`; a value stored for
//! frame `length` or later (the public files often store `length + 1`) is never shown and is not a key.
//!
//! Parsing is by structure. The file stores neither the value table's length nor the index table's;
//! the reader takes the one split for which the indices, the optional sections and the end of the file
//! all fall exactly in place. A value table that happens to spell a tag is therefore read correctly,
//! and a split that does not account for every byte is rejected rather than guessed.
//!
//! The header, the index pairs and the section headers are binrw declarations shared by the reader
//! and the writer, and the value table and the sections' values are read as binrw runs of `s16`.
//! Finding the tables (scanning for the tags and trying each split), the section bitmasks and the
//! bounds of every count are code here: they are searches and checks, not fixed layouts.

use super::record::{put, Reader};
use binrw::{binrw, Endian};
use super::timebase::{bone_id, retime, round_time, single_clip};
use super::{write_error, Losses, ParseError, WriteError};
use crate::model::{
    decode_text, Animation, Bone, Clip, ClipExtras, Format, PanimExtras, Quat, RotationKey, Sampler, StoredRotation,
    TimeUnit, Track, VectorKey,
};
use std::f64::consts::TAU;

pub const HEADER_BYTES: usize = 100;
const NAME_BYTES: usize = 64;
const AUTHOR_BYTES: usize = 32;
const VALUES_TAG: &[u8] = b"values";
const INDICES_TAG: &[u8] = b"indices";
const TRANSLATIONS_TAG: &[u8] = b"translations";
const SCALES_TAG: &[u8] = b"scales";
/// Loop byte the Pluto exporter writes; any non-zero byte reads as looping.
pub const LOOP_BYTE: u8 = 0xA6;
/// Decoded keys allowed for any file, and per byte of file beyond that (see `read`).
const MIN_KEY_BUDGET: usize = 1 << 16;
const KEYS_PER_BYTE: usize = 4;
/// Fixed-point scale of the scales section.
const SCALE_ONE: f64 = 1024.0;
/// SM64 advances an animation one frame per game tick.
pub const FRAME_RATE: f64 = 30.0;
/// Bytes of index pairs per bone (three axes of a `(u16 count, u16 offset)` pair).
const BONE_INDEX_BYTES: usize = 12;
/// Work allowed to place the index table (placements tried plus index pairs read; a real file has
/// one placement, so this is its pair count).
const MAX_SPLIT_WORK: usize = 1 << 22;

/// Whether `bytes` has the values tag where a `.panim` has it (used for detection).
pub fn has_values_tag(bytes: &[u8]) -> bool {
    bytes.get(HEADER_BYTES..HEADER_BYTES + VALUES_TAG.len()) == Some(VALUES_TAG)
}

pub fn s16_to_radians(v: i16) -> f64 {
    v as f64 * TAU / 65536.0
}

pub fn radians_to_s16(r: f64) -> i16 {
    if !r.is_finite() {
        return 0;
    }
    let units = (r * 65536.0 / TAU).round().rem_euclid(65536.0) as u32;
    units as u16 as i16
}

pub fn euler_to_quat(e: [i16; 3]) -> Quat {
    Quat::from_euler_xyz(s16_to_radians(e[0]), s16_to_radians(e[1]), s16_to_radians(e[2]))
}

/// A per-bone optional section, as parsed.
struct Section {
    frame_count: u16,
    bone_count: u16,
    /// `(bone index from the first non-root bone, per-frame xyz)`.
    bones: Vec<(usize, Vec<[i16; 3]>)>,
}

/// Everything after the value table, for one candidate length of it.
struct Tail {
    indices: Vec<(u16, u16)>,
    translations: Option<Section>,
    scales: Option<Section>,
}

/// The 100-byte header.
#[binrw]
#[brw(big)]
struct Header {
    name: [u8; NAME_BYTES],
    author: [u8; AUTHOR_BYTES],
    loop_byte: u8,
    length: u16,
    node_count: u8,
}

/// One entry of the index table: a stream of `count` values from `offset` in the value table.
#[binrw]
#[brw(big)]
struct IndexPair {
    count: u16,
    offset: u16,
}

/// The counts that open a translations or scales section (after its tag).
#[binrw]
#[brw(big)]
struct SectionHeader {
    frame_count: u16,
    bone_count: u16,
}

/// The text of a fixed text field and, when the text alone would not give the field back, the field.
fn fixed_text(field: &[u8]) -> (String, Option<Vec<u8>>) {
    let n = field.len();
    let end = field.iter().position(|&b| b == 0).unwrap_or(n);
    let (text, raw) = decode_text(&field[..end]);
    let exact = raw.is_none() && field[end..].iter().all(|&b| b == 0);
    (text, if exact { None } else { Some(field.to_vec()) })
}

pub fn read(bytes: &[u8]) -> Result<Animation, ParseError> {
    let mut c = Reader::new(bytes, Endian::Big);
    let header: Header = c.read("the 100-byte header (char[64] name, char[32] author, u8 loop, u16 length, u8 node count)")?;
    let (name, raw_name) = fixed_text(&header.name);
    let (author, raw_author) = fixed_text(&header.author);
    let Header { loop_byte, length, node_count, .. } = header;
    let tag = c.bytes(VALUES_TAG.len(), "the \"values\" tag at offset 100")?;
    if tag != VALUES_TAG {
        return Err(ParseError::new(HEADER_BYTES, format!("the \"values\" tag, found {:?}", String::from_utf8_lossy(tag))));
    }
    let values_at = c.pos();
    let (value_count, tail) = split_values(bytes, values_at)?;
    let bones = tail.indices.len() / 3 - 1;
    let mut warnings = Vec::new();
    if bones != node_count as usize {
        warnings.push(format!(
            "at byte offset 99 (0x63): the node count byte says {node_count}, the index table holds {bones} bones; \
             read as {bones} (Pluto's loader ignores the byte)"
        ));
    }
    // Frames 0 .. length - 1 are the clip's; a zero length still shows frame 0.
    let shown = (length as usize).max(1);
    // Shared value runs let a small file describe many keys; keep the decoded size proportional to
    // the file's (a few hundred bytes of model per byte of file at most).
    let keys: usize =
        tail.indices.chunks(3).map(|axes| axes.iter().map(|p| (p.0 as usize).min(shown)).max().unwrap_or(0)).sum();
    let budget = MIN_KEY_BUDGET + KEYS_PER_BYTE * bytes.len();
    if keys > budget {
        let indices_at = values_at + value_count * 2 + INDICES_TAG.len();
        return Err(ParseError::new(
            indices_at,
            format!("index frame counts totalling at most {budget} keys for a {}-byte file, found {keys}", bytes.len()),
        ));
    }
    let values: Vec<i16> = Reader::at(bytes, values_at, Endian::Big).records(value_count as u64, 2, "s16 values")?;

    let mut tracks: Vec<Track> = (0..bones.max(1) as u32).map(|b| Track::new(Bone::Id(b))).collect();
    let stream = |pair: (u16, u16)| -> Vec<i16> {
        let (count, offset) = (pair.0 as usize, pair.1 as usize);
        values[offset..offset + count].to_vec()
    };
    // Root translation: the first three pairs, on bone 0.
    let axes: Vec<Vec<i16>> = (0..3).map(|a| stream(tail.indices[a])).collect();
    let frames = axes.iter().map(Vec::len).max().unwrap_or(1).min(shown);
    tracks[0].translation = (0..frames)
        .map(|f| VectorKey { time: f as f64, value: [0, 1, 2].map(|a| held(&axes[a], f) as f64) })
        .collect();
    for (node, track) in tracks.iter_mut().enumerate().take(bones) {
        let axes: Vec<Vec<i16>> = (0..3).map(|a| stream(tail.indices[3 + node * 3 + a])).collect();
        let frames = axes.iter().map(Vec::len).max().unwrap_or(1).min(shown);
        track.rotation = (0..frames)
            .map(|f| {
                let e = [0, 1, 2].map(|a| held(&axes[a], f));
                RotationKey { time: f as f64, value: euler_to_quat(e), stored: Some(StoredRotation::PanimEuler(e)) }
            })
            .collect();
    }
    let section_keys = |section: &Section, scale: bool| -> Vec<(usize, Vec<VectorKey>)> {
        section
            .bones
            .iter()
            .map(|(bone, frames)| {
                let keys = frames
                    .iter()
                    .take(shown)
                    .enumerate()
                    .map(|(f, v)| VectorKey {
                        time: f as f64,
                        value: v.map(|x| if scale { x as f64 / SCALE_ONE } else { x as f64 }),
                    })
                    .collect();
                (bone + 1, keys)
            })
            .collect()
    };
    if let Some(section) = &tail.translations {
        for (bone, keys) in section_keys(section, false) {
            tracks[bone].translation = keys;
        }
    }
    if let Some(section) = &tail.scales {
        for (bone, keys) in section_keys(section, true) {
            tracks[bone].scale = keys;
        }
    }
    let hidden = |section: &Option<Section>| -> Vec<(usize, Vec<[i16; 3]>)> {
        section.as_ref().map_or(Vec::new(), |s| {
            s.bones.iter().filter(|(_, f)| f.len() > shown).map(|(bone, f)| (bone + 1, f[shown..].to_vec())).collect()
        })
    };
    let extras = PanimExtras {
        hidden_section_frames: [hidden(&tail.translations), hidden(&tail.scales)],
        author,
        raw_author,
        loop_byte,
        node_count,
        values,
        indices: tail.indices,
        translations: tail.translations.as_ref().map(|s| (s.frame_count, s.bone_count)),
        scales: tail.scales.as_ref().map(|s| (s.frame_count, s.bone_count)),
    };
    let clip = Clip {
        name,
        looping: loop_byte != 0,
        time_unit: TimeUnit::Frame,
        length: length as f64,
        frame_rate: Some(FRAME_RATE),
        tracks,
        events: Vec::new(),
        extras: ClipExtras { raw_name, panim: Some(extras), ..ClipExtras::default() },
    };
    Ok(Animation { format: Format::Panim, version: 0, clips: vec![clip], warnings })
}

/// The value at frame `f` of a stored stream: held at its last value past its end.
fn held(stream: &[i16], f: usize) -> i16 {
    stream.get(f).or(stream.last()).copied().unwrap_or(0)
}

/// Finds the value table's and the index table's lengths: the one pair for which everything after the
/// value table parses exactly.
fn split_values(bytes: &[u8], values_at: usize) -> Result<(usize, Tail), ParseError> {
    let mut found: Option<(usize, Tail)> = None;
    let mut best_error: Option<ParseError> = None;
    // Where an index table can end: the end of the file, or a section tag.
    let mut ends: Vec<usize> = (values_at..bytes.len())
        .filter(|&p| bytes[p..].starts_with(TRANSLATIONS_TAG) || bytes[p..].starts_with(SCALES_TAG))
        .collect();
    ends.push(bytes.len());
    // Data crafted to spell many tags could make the candidates quadratic: bound the work.
    let mut budget = MAX_SPLIT_WORK;
    let mut at = values_at;
    while at + INDICES_TAG.len() + BONE_INDEX_BYTES <= bytes.len() {
        if &bytes[at..at + INDICES_TAG.len()] == INDICES_TAG {
            let value_count = (at - values_at) / 2;
            let indices_at = at + INDICES_TAG.len();
            // The index table ends at the end of the file or where a section tag starts, after whole bones.
            let first = ends.partition_point(|&e| e < indices_at + BONE_INDEX_BYTES);
            for &end in &ends[first..] {
                // One step per placement, plus the index pairs it may read.
                budget = budget.checked_sub(1 + (end - indices_at) / 4).ok_or_else(|| {
                    ParseError::new(values_at, "a value table and an index table placed in a bounded number of ways; this file spells too many tags")
                })?;
                if (end - indices_at) % BONE_INDEX_BYTES != 0 {
                    continue;
                }
                match parse_tail(bytes, indices_at, end, value_count) {
                    Ok(tail) => {
                        if found.is_some() {
                            return Err(ParseError::new(
                                at,
                                "one way to place the value table, the index table and the sections, \
                                 but the file parses in two",
                            ));
                        }
                        found = Some((value_count, tail));
                    }
                    Err(e) => {
                        if best_error.as_ref().is_none_or(|b| e.offset > b.offset) {
                            best_error = Some(e);
                        }
                    }
                }
            }
            if best_error.is_none() && found.is_none() {
                best_error = Some(ParseError::new(
                    indices_at,
                    format!(
                        "index pairs in whole bones of {BONE_INDEX_BYTES} bytes up to the end of the file or a \
                         \"translations\" or \"scales\" tag; the {} bytes after the tag do not divide so",
                        bytes.len() - indices_at
                    ),
                ));
            }
        }
        at += 2;
    }
    match (found, best_error) {
        (Some(ok), _) => Ok(ok),
        (None, Some(e)) => Err(e),
        (None, None) => Err(ParseError::new(
            values_at,
            format!(
                "a table of whole s16 values followed by the \"indices\" tag and at least {BONE_INDEX_BYTES} bytes of \
                 indices; no such place in the {} bytes of the file",
                bytes.len()
            ),
        )),
    }
}

/// Parses everything after the value table, for an index table from `indices_at` to `indices_end`.
/// The layout (section tags, sizes, end of file) is checked before the index pairs and before any
/// section data is decoded, so a rejected candidate costs little however large the file.
fn parse_tail(bytes: &[u8], indices_at: usize, indices_end: usize, value_count: usize) -> Result<Tail, ParseError> {
    let pairs = (indices_end - indices_at) / 4;
    let bones = pairs / 3 - 1;
    let mut c = Reader::at(bytes, indices_at, Endian::Big);
    c.bytes(pairs * 4, "the index pairs")?;
    let non_root = bones.saturating_sub(1);
    let sections_at = c.pos();
    let mut has = [false; 2];
    for (i, (tag, what)) in [(TRANSLATIONS_TAG, "translations"), (SCALES_TAG, "scales")].into_iter().enumerate() {
        if bytes[c.pos()..].starts_with(tag) {
            c.bytes(tag.len(), what)?;
            parse_section(&mut c, non_root, what, false)?;
            has[i] = true;
        }
    }
    if c.remaining() > 0 {
        return Err(c.error(format!(
            "the end of the file, the \"translations\" tag or the \"scales\" tag after the indices, found {} more bytes",
            c.remaining()
        )));
    }

    let mut c = Reader::at(bytes, indices_at, Endian::Big);
    let mut indices = Vec::with_capacity(pairs);
    for i in 0..pairs {
        let at = c.pos();
        let IndexPair { count, offset } = c.read("an index pair (u16 frame count, u16 offset)")?;
        let what = if i < 3 { format!("root translation axis {i}") } else { format!("node {} rotation axis {}", (i - 3) / 3, (i - 3) % 3) };
        if count == 0 {
            return Err(ParseError::new(at, format!("a frame count of at least 1 for {what}")));
        }
        if offset as usize + count as usize > value_count {
            return Err(ParseError::new(
                at,
                format!("{what}: values {offset}..{} inside the {value_count}-entry value table", offset as usize + count as usize),
            ));
        }
        indices.push((count, offset));
    }
    let mut c = Reader::at(bytes, sections_at, Endian::Big);
    let mut translations = None;
    if has[0] {
        c.bytes(TRANSLATIONS_TAG.len(), "the translations tag")?;
        translations = parse_section(&mut c, non_root, "translations", true)?;
    }
    let mut scales = None;
    if has[1] {
        c.bytes(SCALES_TAG.len(), "the scales tag")?;
        scales = parse_section(&mut c, non_root, "scales", true)?;
    }
    Ok(Tail { indices, translations, scales })
}

/// One optional section; with `decode` false only its layout is checked and skipped.
fn parse_section(c: &mut Reader, non_root: usize, what: &str, decode: bool) -> Result<Option<Section>, ParseError> {
    let count_at = c.pos() + 2;
    let SectionHeader { frame_count, bone_count } = c.read(format_args!("the {what} header (u16 frame count, u16 bone count)"))?;
    if bone_count as usize > non_root {
        return Err(ParseError::new(
            count_at,
            format!("a {what} bone count of at most {non_root} (the non-root nodes), found {bone_count}"),
        ));
    }
    let mask_at = c.pos();
    let mask = c.bytes((bone_count as usize).div_ceil(8), format_args!("the {what} bitmask"))?;
    let present: Vec<usize> = (0..bone_count as usize).filter(|&b| mask[b / 8] >> (b % 8) & 1 == 1).collect();
    let set_bits: u32 = mask.iter().map(|b| b.count_ones()).sum();
    if set_bits as usize != present.len() {
        return Err(ParseError::new(mask_at, format!("no {what} bitmask bits beyond bone {bone_count}")));
    }
    let per_bone = frame_count as usize * 6;
    c.count(present.len() as u64, per_bone, format_args!("{what} bone tracks"))?;
    if !decode {
        c.bytes(present.len() * per_bone, what)?;
        return Ok(None);
    }
    let mut bones = Vec::with_capacity(present.len());
    for bone in present {
        let flat: Vec<i16> = c.records(frame_count as u64 * 3, 2, format_args!("s16 {what} of bone {}", bone + 1))?;
        bones.push((bone, flat.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect()));
    }
    Ok(Some(Section { frame_count, bone_count, bones }))
}

/// A fixed text field: its kept bytes while the text is unchanged, else the text, zero-padded.
fn fixed_field<const N: usize>(text: &str, raw: Option<&[u8]>, losses: &mut Losses) -> [u8; N] {
    let n = N;
    let mut field = match raw {
        Some(raw) if raw.len() == n && {
            let end = raw.iter().position(|&b| b == 0).unwrap_or(n);
            decode_text(&raw[..end]).0 == text
        } =>
        {
            raw.to_vec()
        }
        _ => text.as_bytes().to_vec(),
    };
    if field.len() > n {
        losses.add(format!("text {text:?} truncated to {n} bytes"));
        field.truncate(n);
    }
    let mut out = [0u8; N];
    out[..field.len()].copy_from_slice(&field);
    out
}

fn to_s16(v: f64, what: &str, losses: &mut Losses) -> i16 {
    let r = v.round();
    if r != v {
        losses.add(format!("precision: {what} rounded to whole s16 units"));
    }
    if !(i16::MIN as f64..=i16::MAX as f64).contains(&r) {
        losses.add(format!("{what} outside the s16 range clamped"));
    }
    if r.is_nan() { 0 } else { r.clamp(i16::MIN as f64, i16::MAX as f64) as i16 }
}

/// The s16 Euler angles of a track at frame `f`: a key's stored angles where the key is unedited and
/// holds at `f`, else the angles of the interpolated rotation.
fn euler_at(s: &Sampler, f: usize) -> [i16; 3] {
    let t = f as f64;
    let last = s.rotation.last().map_or(f64::NEG_INFINITY, |k| k.time);
    if let Some(k) = s.rotation_key_at_or_before(t) {
        if k.time == t || (t >= last && k.time <= t) {
            if let Some(StoredRotation::PanimEuler(e)) = k.stored {
                if euler_to_quat(e) == k.value {
                    return e;
                }
            }
        }
    }
    match s.rotation(t) {
        Some(q) => {
            let (x, y, z) = q.to_euler_xyz();
            [radians_to_s16(x), radians_to_s16(y), radians_to_s16(z)]
        }
        None => [0, 0, 0],
    }
}

/// Appends `stream` (already trimmed) to `values`, sharing an existing identical run when there is one.
fn place_stream(values: &mut Vec<i16>, stream: &[i16]) -> usize {
    if let Some(at) = values.windows(stream.len()).position(|w| w == stream) {
        return at;
    }
    // The tail of the table may already hold a prefix of the stream.
    let overlap = (1..stream.len()).rev().find(|&k| values.len() >= k && values[values.len() - k..] == stream[..k]).unwrap_or(0);
    let at = values.len() - overlap;
    values.extend_from_slice(&stream[overlap..]);
    at
}

/// A per-frame stream with its repeated trailing values dropped (at least one value stays).
fn trim(stream: &[i16]) -> &[i16] {
    let mut n = stream.len();
    while n > 1 && stream[n - 1] == stream[n - 2] {
        n -= 1;
    }
    &stream[..n]
}

pub fn write(anim: &Animation, losses: &mut Losses) -> Result<Vec<u8>, WriteError> {
    let source = single_clip(anim, ".panim", losses)?;
    let clip = retime(source, TimeUnit::Frame, FRAME_RATE, losses);
    let extras = clip.extras.panim.as_ref();
    if !clip.events.is_empty() {
        losses.add("events dropped: .panim has none");
    }

    // Tracks by node index.
    let mut by_node: Vec<Option<&Track>> = Vec::new();
    for track in &clip.tracks {
        let id = bone_id(&track.bone)? as usize;
        if id >= 255 {
            return write_error(format!("bone {id}: .panim holds at most 255 nodes (ids 0..254)"));
        }
        if by_node.len() <= id {
            by_node.resize(id + 1, None);
        }
        if by_node[id].is_some() {
            return write_error(format!("bone {id} has two tracks; .panim holds one per node"));
        }
        by_node[id] = Some(track);
    }
    // The index table's bone count is the file's (the node byte is not; see the module comment).
    let stored_bones = extras.map(|e| (e.indices.len() / 3).saturating_sub(1));
    let node_count = by_node.len().max(stored_bones.unwrap_or(0)).max(1);
    by_node.resize(node_count, None);

    let length = round_time(clip.length, "clip length", losses);
    let length = u16::try_from(length.max(0)).or_else(|_| write_error(format!("clip length {length} does not fit .panim's u16")))?;
    let last_key = clip
        .tracks
        .iter()
        .flat_map(|t| t.rotation.iter().map(|k| k.time).chain(t.translation.iter().map(|k| k.time)))
        .fold(0.0f64, f64::max);
    let frames = (length as usize).max(round_time(last_key, "key time", losses).max(0) as usize + 1);
    if frames > 65535 {
        return write_error(format!("{frames} frames: .panim counts frames in u16"));
    }

    // Per-frame streams: root translation axes, then three rotation axes per node.
    let mut streams: Vec<Vec<i16>> = Vec::with_capacity((node_count + 1) * 3);
    let samplers: Vec<Option<Sampler>> = by_node.iter().map(|t| t.map(Sampler::new)).collect();
    let root = samplers[0].as_ref();
    for axis in 0..3 {
        streams.push(
            (0..frames)
                .map(|f| {
                    let v = root.and_then(|s| s.translation(f as f64)).map_or(0.0, |v| v[axis]);
                    to_s16(v, "root translation", losses)
                })
                .collect(),
        );
    }
    for (track, sampler) in by_node.iter().zip(&samplers) {
        let angles: Vec<[i16; 3]> = (0..frames).map(|f| sampler.as_ref().map_or([0; 3], |s| euler_at(s, f))).collect();
        for axis in 0..3 {
            streams.push(angles.iter().map(|e| e[axis]).collect());
        }
        if track.is_some_and(|t| t.rotation.iter().any(|k| !matches!(k.stored, Some(StoredRotation::PanimEuler(_))))) {
            losses.add("precision: rotations converted to s16 Euler angles (360/65536 degrees)");
        }
    }

    let (values, indices) = match extras {
        Some(e) if e.indices.len() == streams.len() && tables_match(e, &streams) => (e.values.clone(), e.indices.clone()),
        _ => build_tables(&streams)?,
    };

    let mut out = Vec::new();
    let name = fixed_field(&clip.name, clip.extras.raw_name.as_deref(), losses);
    let (author, raw_author) = extras.map_or(("", None), |e| (e.author.as_str(), e.raw_author.as_deref()));
    let author = fixed_field(author, raw_author, losses);
    let loop_byte = match (clip.looping, extras.map(|e| e.loop_byte)) {
        (true, Some(b)) if b != 0 => b,
        (true, _) => LOOP_BYTE,
        (false, _) => 0,
    };
    let node_byte = match extras {
        // An unchanged table keeps the byte it was read with, so a rewrite is exact.
        Some(e) if stored_bones == Some(node_count) => e.node_count,
        _ => u8::try_from(node_count).or_else(|_| write_error("more than 255 nodes"))?,
    };
    put(&mut out, Endian::Big, &Header { name, author, loop_byte, length, node_count: node_byte })?;
    out.extend_from_slice(VALUES_TAG);
    values.iter().for_each(|v| out.extend_from_slice(&v.to_be_bytes()));
    out.extend_from_slice(INDICES_TAG);
    for &(count, offset) in &indices {
        put(&mut out, Endian::Big, &IndexPair { count, offset })?;
    }

    let from_panim = extras.is_some();
    let section = |scale: bool, losses: &mut Losses| -> Result<Option<Vec<u8>>, WriteError> {
        let kept = extras.and_then(|e| if scale { e.scales } else { e.translations });
        let keys_of = |t: &Track| if scale { t.scale.clone() } else { t.translation.clone() };
        let fc = kept.map_or(frames, |k| k.0 as usize);
        let bc = kept.map_or(node_count - 1, |k| k.1 as usize).max(node_count - 1);
        let mut mask = vec![0u8; bc.div_ceil(8)];
        let mut data = Vec::new();
        for bone in 0..bc {
            let Some(track) = by_node.get(bone + 1).copied().flatten() else { continue };
            let mut keys = keys_of(track);
            if keys.is_empty() {
                continue;
            }
            keys.sort_by(|a, b| a.time.total_cmp(&b.time));
            let sorted = Sampler { rotation: Vec::new(), translation: keys, scale: Vec::new() };
            let hidden = extras.and_then(|e| e.hidden_section_frames[scale as usize].iter().find(|h| h.0 == bone + 1));
            let per_frame: Vec<[i16; 3]> = (0..fc)
                .map(|f| {
                    // Frames past the clip are never shown: the stored values stay.
                    if let Some(v) = f.checked_sub(length.max(1) as usize).and_then(|i| hidden.and_then(|h| h.1.get(i))) {
                        return *v;
                    }
                    let v = sorted.translation(f as f64).unwrap_or([0.0; 3]);
                    if scale {
                        v.map(|x| to_s16(x * SCALE_ONE, "scale", losses))
                    } else {
                        v.map(|x| to_s16(x, "translation", losses))
                    }
                })
                .collect();
            let identity = if scale { 1024 } else { 0 };
            if !from_panim && per_frame.iter().all(|v| v.iter().all(|&x| x == identity)) {
                continue;
            }
            mask[bone / 8] |= 1 << (bone % 8);
            per_frame.iter().flatten().for_each(|x| data.extend_from_slice(&x.to_be_bytes()));
        }
        if data.is_empty() && kept.is_none() {
            return Ok(None);
        }
        let mut out = Vec::new();
        put(&mut out, Endian::Big, &SectionHeader { frame_count: fc as u16, bone_count: bc as u16 })?;
        out.extend_from_slice(&mask);
        out.extend_from_slice(&data);
        Ok(Some(out))
    };
    if let Some(bytes) = section(false, losses)? {
        out.extend_from_slice(TRANSLATIONS_TAG);
        out.extend_from_slice(&bytes);
    }
    if let Some(bytes) = section(true, losses)? {
        out.extend_from_slice(SCALES_TAG);
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// Whether the kept tables produce exactly `streams` on every frame (then they are written back as is).
fn tables_match(e: &PanimExtras, streams: &[Vec<i16>]) -> bool {
    e.indices.iter().zip(streams).all(|(&(count, offset), stream)| {
        let (count, offset) = (count as usize, offset as usize);
        let Some(stored) = e.values.get(offset..offset + count) else { return false };
        // Values past the clip's last frame (public files store frame `length`) are never shown.
        count >= 1 && (0..stream.len()).all(|f| held(stored, f) == stream[f])
    })
}

/// A value table and its `(frame count, offset)` index pairs.
type Tables = (Vec<i16>, Vec<(u16, u16)>);

fn build_tables(streams: &[Vec<i16>]) -> Result<Tables, WriteError> {
    let mut values = Vec::new();
    let mut indices = Vec::with_capacity(streams.len());
    for stream in streams {
        let s = trim(stream);
        let at = place_stream(&mut values, s);
        let offset = u16::try_from(at).or_else(|_| write_error("the value table outgrew .panim's u16 offsets"))?;
        indices.push((s.len() as u16, offset));
    }
    Ok((values, indices))
}
