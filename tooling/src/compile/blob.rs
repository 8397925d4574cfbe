//! Assembly of the table blob (layout documented in `psxanim_runtime::tables`).

use psxanim_runtime::math::Matrix;
use psxanim_runtime::tables::{
    decode_lane, delta_word_count, Header, Storage, CLIP_SIZE, FLAGS_AT, FLAG_NORMALS_PACKED, HEADER_SIZE, HEADER_SIZE_V6, HEADER_SIZE_V7, MAGIC, NORMALS_AT, NO_PARENT, TEXTURES_AT, UVS_AT, VERSION,
    VERSION_TEXTURED,
};

use super::primitives::Stream;
use super::textured::{write_section, Textures};

/// A blend pair as the blob stores it: bone a, bone b, b's bind-local space from a's.
pub type BlendPairPart = (u16, u16, Matrix);
/// A blend group as the blob stores it: pair, weight (FP12), first vertex, vertex count.
pub type BlendGroupPart = [u16; 4];

/// Everything the blob holds, already encoded; [`assemble`] only lays it out.
pub struct BlobParts<'a> {
    pub storage: Storage,
    pub bounds: [[i16; 3]; 2],
    /// (name, parent, first vertex, vertex count)
    pub bones: Vec<(&'a str, Option<usize>, u16, u16)>,
    pub vertices: &'a [[i16; 3]],
    /// The primitive stream (triangles, quads and quad strips).
    pub primitives: Stream,
    /// (name, rgb) - names are kept for tools; the runtime only reads the colour.
    pub materials: Vec<(&'a str, [u8; 3])>,
    pub clips: Vec<ClipPart<'a>>,
    /// Baked frame payloads (referenced by the clips' frame tables), empty for rigid.
    pub payloads: &'a [u8],
    /// Rigid: the blend section's pairs (bone a, bone b, b's bind-local space from a's) and groups
    /// (pair, weight, first vertex, vertex count; sorted by pair): `tables::blend`.
    pub blend_pairs: Vec<BlendPairPart>,
    pub blend_groups: Vec<BlendGroupPart>,
    /// The textures and each vertex's UV word (in `vertices`' order), for a textured character.
    pub textured: Option<TexturedParts<'a>>,
    /// Each vertex's normal, FP12 in its bone's space (in `vertices`' order), for a lit character.
    pub normals: Option<Vec<[i16; 3]>>,
}

/// A textured character's part of the blob.
pub struct TexturedParts<'a> {
    pub textures: &'a Textures,
    /// Per vertex, `u | v << 8`.
    pub uvs: Vec<u32>,
}

pub struct ClipPart<'a> {
    pub name: &'a str,
    pub frame_count: u16,
    pub rate_hz: u16,
    pub data: ClipData,
    /// (frame, name), frames below `frame_count`.
    pub events: &'a [(usize, String)],
}

pub enum ClipData {
    /// Pose sample data, stored as they are.
    Pose(Vec<u8>),
    /// Per frame, the offset of its payload within `BlobParts::payloads`.
    Frames(Vec<u32>),
}

fn align4(v: &mut Vec<u8>) {
    while v.len() % 4 != 0 {
        v.push(0);
    }
}

fn put_u16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn put_u32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// Offsets and the sizes of the parts of the blob, for the summary.
pub struct Assembled {
    pub blob: Vec<u8>,
    /// Bytes of animation data of each clip (pose stream, or frame table plus the payloads first used by it).
    pub clip_bytes: Vec<usize>,
}

/// Lays the parts out; fails if a name is longer than 255 bytes, the string table exceeds 64 KiB or a
/// count (the primitive stream's words among them) exceeds its u16.
pub fn assemble(parts: &BlobParts) -> Result<Assembled, String> {
    let mut strings = Vec::new();
    let mut name = |s: &str| -> Result<u16, String> {
        let at = u16::try_from(strings.len()).map_err(|_| "names exceed the 64 KiB string table".to_string())?;
        let len = u8::try_from(s.len()).map_err(|_| format!("name '{s}' is longer than 255 bytes"))?;
        strings.push(len);
        strings.extend_from_slice(s.as_bytes());
        Ok(at)
    };
    let bone_names: Vec<u16> = parts.bones.iter().map(|b| name(b.0)).collect::<Result<_, _>>()?;
    let clip_names: Vec<u16> = parts.clips.iter().map(|c| name(c.name)).collect::<Result<_, _>>()?;
    let mut event_names = Vec::new();
    for c in &parts.clips {
        let names: Vec<u16> = c.events.iter().map(|(_, n)| name(n)).collect::<Result<_, _>>()?;
        event_names.push(names);
    }
    for m in &parts.materials {
        name(m.0)?;
    }

    // A textured blob is version 7: the version 6 header (the blend section's offset and counts at
    // 64..72), then the texture section's offsets; any other keeps version 6's layout, byte for byte.
    let has_textures = parts.textured.as_ref().is_some_and(|t| !t.textures.is_empty());
    let textured = has_textures || parts.normals.is_some();
    let header_size = if textured { HEADER_SIZE_V7 } else { HEADER_SIZE_V6 };
    let mut out = vec![0u8; header_size];
    let strings_offset = out.len();
    out.extend_from_slice(&strings);
    align4(&mut out);
    let bones_offset = out.len();
    for (b, n) in parts.bones.iter().zip(&bone_names) {
        put_u16(&mut out, b.1.map_or(NO_PARENT, |p| p as u16));
        put_u16(&mut out, b.2);
        put_u16(&mut out, b.3);
        put_u16(&mut out, *n);
    }
    let vertices_offset = out.len();
    if parts.normals.as_ref().is_some_and(|n| n.len() != parts.vertices.len()) {
        return Err(format!("internal: {} normals for {} vertices", parts.normals.as_ref().map_or(0, |n| n.len()), parts.vertices.len()));
    }
    for (i, v) in parts.vertices.iter().enumerate() {
        for c in v {
            out.extend_from_slice(&c.to_le_bytes());
        }
        // Packed normals: the normal's z in the fourth halfword (the lit pass's VZ word for both).
        put_u16(&mut out, parts.normals.as_ref().map_or(0, |n| n[i][2] as u16));
    }
    if parts.storage == Storage::BakedVertices {
        // The decode lanes: bind + LANE_BIAS per coordinate, two to a word, whole delta words.
        let coords: Vec<i16> = parts.vertices.iter().flatten().copied().collect();
        for c in 0..4 * delta_word_count(parts.vertices.len()) {
            put_u16(&mut out, coords.get(c).map_or(0, |&b| decode_lane(b)));
        }
    }
    let primitives_offset = out.len();
    for w in &parts.primitives.words {
        put_u32(&mut out, *w);
    }
    let materials_offset = out.len();
    for (m, (_, rgb)) in parts.materials.iter().enumerate() {
        out.extend_from_slice(rgb);
        out.push(parts.textured.as_ref().map_or(0, |t| t.textures.material_byte(m)));
    }
    let clips_offset = out.len();
    out.resize(out.len() + CLIP_SIZE * parts.clips.len(), 0);

    // Clip data; frame tables are filled once the payload section's offset is known.
    let mut data_ranges = Vec::new();
    for c in &parts.clips {
        align4(&mut out);
        let start = out.len();
        match &c.data {
            ClipData::Pose(bytes) => out.extend_from_slice(bytes),
            ClipData::Frames(offsets) => out.resize(out.len() + 4 * offsets.len(), 0),
        }
        data_ranges.push((start, out.len() - start));
    }
    // Events: per clip, (u16 frame, u16 name).
    let mut event_ranges = Vec::new();
    for (c, names) in parts.clips.iter().zip(&event_names) {
        align4(&mut out);
        let start = if c.events.is_empty() { 0 } else { out.len() };
        for ((frame, _), n) in c.events.iter().zip(names) {
            if *frame >= c.frame_count as usize {
                return Err(format!("clip '{}': event at frame {frame}, past its {} frames", c.name, c.frame_count));
            }
            put_u16(&mut out, *frame as u16);
            put_u16(&mut out, *n);
        }
        let count = u16::try_from(c.events.len()).map_err(|_| format!("clip '{}': more than 65535 events", c.name))?;
        event_ranges.push((start, count));
    }
    align4(&mut out);
    let blend_offset = if parts.blend_groups.is_empty() { 0 } else { out.len() };
    if blend_offset != 0 {
        for (a, b, rel) in &parts.blend_pairs {
            put_u16(&mut out, *a);
            put_u16(&mut out, *b);
            let packed = psxanim_runtime::gte::PackedMatrix::pack(rel)
                .ok_or_else(|| format!("bones {a} and {b} lie more than 32,767 GTE units apart; a blend pair's offset is an i16"))?;
            for w in packed.words {
                put_u32(&mut out, w);
            }
        }
        for g in &parts.blend_groups {
            for v in g {
                put_u16(&mut out, *v);
            }
        }
    }
    align4(&mut out);
    let payloads_offset = out.len();
    out.extend_from_slice(parts.payloads);
    align4(&mut out);
    let (textures_offset, uvs_offset) = match &parts.textured {
        Some(t) if !t.textures.is_empty() => {
            if t.uvs.len() != parts.vertices.len() {
                return Err(format!("internal: {} UV words for {} vertices", t.uvs.len(), parts.vertices.len()));
            }
            let uvs = out.len();
            for w in &t.uvs {
                put_u32(&mut out, *w);
            }
            (write_section(&mut out, &t.textures.textures)?, uvs)
        }
        _ => (0, 0),
    };
    // Packed: x and y, the z went with the vertex.
    let normals_offset = match &parts.normals {
        Some(normals) => {
            let at = out.len();
            for n in normals {
                put_u16(&mut out, n[0] as u16);
                put_u16(&mut out, n[1] as u16);
            }
            at
        }
        None => 0,
    };

    let mut clip_bytes = Vec::new();
    let mut first_use = std::collections::HashSet::new();
    for (i, (c, (start, size))) in parts.clips.iter().zip(&data_ranges).enumerate() {
        let mut bytes = *size;
        if let ClipData::Frames(offsets) = &c.data {
            for (f, o) in offsets.iter().enumerate() {
                let abs = (payloads_offset + *o as usize) as u32;
                out[start + 4 * f..start + 4 * f + 4].copy_from_slice(&abs.to_le_bytes());
                if first_use.insert(*o) {
                    bytes += payload_len(parts.payloads, *o as usize, parts.vertices.len());
                }
            }
        }
        clip_bytes.push(bytes);
        let e = clips_offset + i * CLIP_SIZE;
        let mut entry = Vec::with_capacity(CLIP_SIZE);
        put_u16(&mut entry, clip_names[i]);
        put_u16(&mut entry, c.frame_count);
        put_u16(&mut entry, c.rate_hz);
        put_u16(&mut entry, event_ranges[i].1);
        put_u32(&mut entry, *start as u32);
        put_u32(&mut entry, *size as u32);
        put_u32(&mut entry, event_ranges[i].0 as u32);
        out[e..e + CLIP_SIZE].copy_from_slice(&entry);
    }

    let count = |what: &str, n: usize| u16::try_from(n).map_err(|_| format!("{n} {what} exceed a u16 count"));
    let offset = |n: usize| n as u32;
    let b = parts.bounds;
    let header = Header {
        magic: MAGIC,
        version: if textured { VERSION_TEXTURED } else { VERSION },
        storage: parts.storage as u16,
        bone_count: count("bones", parts.bones.len())?,
        vertex_count: count("vertices", parts.vertices.len())?,
        triangle_count: count("triangles", parts.primitives.triangles)?,
        material_count: count("materials", parts.materials.len())?,
        clip_count: count("clips", parts.clips.len())?,
        primitive_words: count("primitive stream words", parts.primitives.words.len())?,
        bounds: [b[0][0], b[0][1], b[0][2], b[1][0], b[1][1], b[1][2]],
        size: offset(out.len()),
        strings_offset: offset(strings_offset),
        bones_offset: offset(bones_offset),
        vertices_offset: offset(vertices_offset),
        primitives_offset: offset(primitives_offset),
        materials_offset: offset(materials_offset),
        clips_offset: offset(clips_offset),
        strings_size: offset(strings.len()),
    };
    // The struct's in-memory bytes are the stored ones on this little-endian host.
    const { assert!(cfg!(target_endian = "little")) };
    out[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
    let (pairs, groups) = if blend_offset == 0 { (0, 0) } else { (parts.blend_pairs.len(), parts.blend_groups.len()) };
    out[HEADER_SIZE..HEADER_SIZE + 4].copy_from_slice(&(blend_offset as u32).to_le_bytes());
    out[HEADER_SIZE + 4..HEADER_SIZE + 6].copy_from_slice(&count("blend pairs", pairs)?.to_le_bytes());
    out[HEADER_SIZE + 6..HEADER_SIZE_V6].copy_from_slice(&count("blend groups", groups)?.to_le_bytes());
    if textured {
        out[TEXTURES_AT..TEXTURES_AT + 4].copy_from_slice(&(textures_offset as u32).to_le_bytes());
        out[UVS_AT..UVS_AT + 4].copy_from_slice(&(uvs_offset as u32).to_le_bytes());
        out[NORMALS_AT..NORMALS_AT + 4].copy_from_slice(&(normals_offset as u32).to_le_bytes());
        let flags = if normals_offset != 0 { FLAG_NORMALS_PACKED } else { 0 };
        out[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&flags.to_le_bytes());
    }
    Ok(Assembled { blob: out, clip_bytes })
}

/// Size of the baked payload at `at` (header included).
fn payload_len(payloads: &[u8], at: usize, vertex_count: usize) -> usize {
    use psxanim_runtime::tables::{FRAME_HEADER_SIZE, FRAME_RAW};
    if payloads[at] == FRAME_RAW {
        return (FRAME_HEADER_SIZE + 6 * vertex_count).next_multiple_of(4);
    }
    let escapes = u16::from_le_bytes([payloads[at + 2], payloads[at + 3]]) as usize;
    FRAME_HEADER_SIZE + 4 * delta_word_count(vertex_count) + 4 * escapes
}
