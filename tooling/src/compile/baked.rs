//! Baked vertex compilation: each frame's model-space positions as Q8 deltas from the bind pose
//! (payload format documented in `psxanim_runtime::tables`), identical payloads stored once.

use std::collections::HashMap;

use psxanim_runtime::tables::{
    delta_byte, delta_word_count, Storage, Tables, BAKED_DELTA_BIAS, BAKED_DELTA_SCALE, FRAME_DELTA, FRAME_RAW,
};

use super::blob::{assemble, BlobParts, ClipData, TexturedParts};
use super::textured::Textures;
use super::{
    accuracy, axis_error, clip_parts, common, compile_error, primitive_stream, primitives, quads, report_base,
    Bounds, ClipReport, CompileReport, Compiled, StorageMode,
};
use crate::fbx::{Character, ImportError};

/// The baked-vertices blob of `c` and its report (the accuracy threshold is checked by the caller).
/// `textured`: the textures and each vertex's UV word, for a textured character.
pub(super) fn compile(c: &Character, threshold: f64, textured: Option<(&Textures, &[u32])>) -> Result<Compiled, ImportError> {
    use crate::fbx::limits::{MAX_BAKED_TRIANGLES, MAX_BAKED_VERTICES, MAX_TRIANGLES, MAX_VERTICES};
    for (what, count, limit, rigid) in [
        ("vertices", c.vertices.len(), MAX_BAKED_VERTICES, MAX_VERTICES),
        ("triangles", c.triangles.len(), MAX_BAKED_TRIANGLES, MAX_TRIANGLES),
    ] {
        if count > limit {
            return Err(compile_error(
                c,
                format!(
                    "{count} {what} exceed baked-vertices' limit of {limit} (the console decodes each frame into a \
                     {MAX_BAKED_VERTICES}-vertex scratch); --storage rigid-gte takes up to {rigid}"
                ),
            ));
        }
    }
    let com = common(c);
    let bind: Vec<[i16; 3]> = c.vertices.iter().map(|v| to_i16(v.bind)).collect();
    let mut bounds = Bounds::new();
    for v in &c.vertices {
        bounds.add(v.bind);
    }
    let mut payloads = Payloads::default();
    let mut tables = Vec::new();
    let mut decoded_all: Vec<Vec<Vec<[i16; 3]>>> = Vec::new();
    let mut clip_reports = Vec::new();
    for clip in &c.clips {
        let mut offsets = Vec::new();
        let mut decoded_clip = Vec::new();
        let mut worst: f64 = 0.0;
        for target in &clip.skinned_reference {
            let (payload, decoded) = encode_frame(&bind, target);
            offsets.push(payloads.add(payload));
            for (t, d) in target.iter().zip(&decoded) {
                bounds.add(*t);
                let d = d.map(|x| x as f64);
                bounds.add(d);
                worst = worst.max(axis_error(*t, d));
            }
            decoded_clip.push(decoded);
        }
        clip_reports.push(ClipReport::new(clip, worst));
        tables.push(offsets);
        decoded_all.push(decoded_clip);
    }
    let clips = clip_parts(c, tables.into_iter().map(ClipData::Frames))?;
    let triangles: Vec<([u16; 3], u8)> = c
        .triangles
        .iter()
        .map(|t| (t.vertices.map(|v| v as u16), t.material as u8))
        .collect();
    let faces = quads::pair_quads(&triangles, quads::baked_planar(&bind, &decoded_all));
    // Each vertex moves on its own: a quad turns only if it may in the bind pose and every decoded frame.
    let views = std::iter::once(&bind[..])
        .chain(decoded_all.iter().flatten().map(Vec::as_slice))
        .collect();
    let stream = primitive_stream(c, &faces, primitives::turnable(views, quads::MAX_BAKED_QUAD_BEND))?;
    let parts = BlobParts {
        storage: Storage::BakedVertices,
        bounds: bounds.to_i16(),
        bones: c.bones.iter().enumerate().map(|(i, b)| (com.bone_names[i], b.parent, 0, 0)).collect(),
        vertices: &bind,
        primitives: stream,
        materials: com.materials.clone(),
        clips,
        payloads: &payloads.bytes,
        blend_pairs: vec![],
        blend_groups: vec![],
        textured: textured.map(|(textures, uvs)| TexturedParts { textures, uvs: uvs.to_vec() }),
        normals: None,
    };
    let assembled = assemble(&parts).map_err(|m| compile_error(c, m))?;
    let t = Tables::parse(&assembled.blob)
        .map_err(|e| compile_error(c, format!("internal: compiled blob unreadable: {e:?}")))?;
    // The runtime's decoder must reproduce what the encoder predicted, bit for bit.
    let mut frame = vec![[0i16; 3]; c.vertices.len()];
    for (ci, clip) in decoded_all.iter().enumerate() {
        for (f, expected) in clip.iter().enumerate() {
            t.decode_baked_frame(ci, f, &mut frame)
                .map_err(|e| compile_error(c, format!("internal: frame {f} of clip {ci} unreadable: {e:?}")))?;
            if &frame != expected {
                return Err(compile_error(
                    c,
                    format!("internal: frame {f} of clip {ci} decodes differently from its encoding"),
                ));
            }
        }
    }
    for (r, bytes) in clip_reports.iter_mut().zip(&assembled.clip_bytes) {
        r.bytes = *bytes;
        r.bytes_per_frame = Some(*bytes as f64 / r.frames as f64);
    }
    let mut accuracy =
        accuracy(c, threshold, |clip, frame, v| decoded_all[clip][frame][v].map(|x| x as f64), |clip, frame, v| c.clips[clip].rigid_reference[frame][v]);
    accuracy.checked = "skinned";
    let animation_bytes: usize = assembled.clip_bytes.iter().sum();
    let frames: usize = c.clips.iter().map(|cl| cl.frame_count()).sum();
    let report = CompileReport {
        quads: parts.primitives.quads,
        strips: parts.primitives.strips,
        primitive_words: parts.primitives.words.len(),
        ranges: vec![],
        bytes_per_bone_second: None,
        bytes_per_frame: (frames > 0).then(|| animation_bytes as f64 / frames as f64),
        ..report_base(
            c,
            StorageMode::BakedVertices,
            clip_reports,
            parts.bounds,
            animation_bytes,
            assembled.blob.len(),
            accuracy,
        )
    };
    Ok(Compiled { blob: assembled.blob, report })
}

/// Rounds a model-space position to i16 GTE units (the import already checked the +-7.5 m range).
pub fn to_i16(p: [f64; 3]) -> [i16; 3] {
    p.map(|c| c.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16)
}

/// One frame's payload (4-byte aligned size) and the positions the runtime will decode from it.
pub fn encode_frame(bind: &[[i16; 3]], target: &[[f64; 3]]) -> (Vec<u8>, Vec<[i16; 3]>) {
    let mut words = vec![BAKED_DELTA_BIAS as u8; 4 * delta_word_count(bind.len())];
    let mut escapes = Vec::new();
    let mut decoded = Vec::with_capacity(bind.len());
    for (v, (b, t)) in bind.iter().zip(target).enumerate() {
        let mut d = [0i16; 3];
        for c in 0..3 {
            let step = ((t[c] - b[c] as f64) / BAKED_DELTA_SCALE as f64).round();
            if (-128.0..=127.0).contains(&step) {
                words[delta_byte(3 * v + c)] = (step as i32 + BAKED_DELTA_BIAS) as u8;
                d[c] = b[c] + step as i16 * BAKED_DELTA_SCALE as i16;
            } else {
                let abs = to_i16(*t)[c];
                escapes.push((3 * v + c) as u16);
                escapes.push(abs as u16);
                d[c] = abs;
            }
        }
        decoded.push(d);
    }
    let mut delta = vec![FRAME_DELTA, 0];
    delta.extend_from_slice(&((escapes.len() / 2) as u16).to_le_bytes());
    delta.extend_from_slice(&words);
    for h in &escapes {
        delta.extend_from_slice(&h.to_le_bytes());
    }
    let raw_len = (4 + 6 * bind.len()).next_multiple_of(4);
    if raw_len < delta.len() {
        let mut raw = vec![FRAME_RAW, 0, 0, 0];
        let exact: Vec<[i16; 3]> = target.iter().map(|t| to_i16(*t)).collect();
        for v in &exact {
            for c in v {
                raw.extend_from_slice(&c.to_le_bytes());
            }
        }
        raw.resize(raw_len, 0);
        return (raw, exact);
    }
    (delta, decoded)
}

/// Shared payload storage: identical payloads get one offset.
#[derive(Default)]
pub struct Payloads {
    pub bytes: Vec<u8>,
    index: HashMap<Vec<u8>, u32>,
    pub frames: usize,
    pub shared: usize,
}

impl Payloads {
    pub fn add(&mut self, payload: Vec<u8>) -> u32 {
        self.frames += 1;
        if let Some(&at) = self.index.get(&payload) {
            self.shared += 1;
            return at;
        }
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(&payload);
        self.index.insert(payload, at);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_moves_are_deltas_and_large_ones_escape() {
        let bind = [[0i16, 100, -100], [1000, 0, 0]];
        let target = [[16.0 * 127.0, 100.0 - 17.0, -100.0 - 16.0 * 128.0], [1000.0 + 16.0 * 128.0, 3.0, 0.0]];
        let (payload, decoded) = encode_frame(&bind, &target);
        assert_eq!(payload[..4], [FRAME_DELTA, 0, 1, 0]);
        // Coordinates 0, 2, 1, 3 then 4, 6, 5, 7 (6 and 7 unused), as delta + 128; coordinate 3 escapes.
        assert_eq!(payload[4..12], [127 + 128, 0, 128 - 1, 128, 128, 128, 128, 128]);
        assert_eq!(payload[12..16], [3, 0, 0xE8, 0x0B]);
        assert_eq!(payload.len(), 16);
        assert_eq!(decoded, vec![[2032, 84, -2148], [3048, 0, 0]]);
    }

    #[test]
    fn frames_where_everything_escapes_are_stored_raw() {
        let bind = [[0i16; 3]; 4];
        let target = [[20000.0, -20000.0, 5000.0]; 4];
        let (payload, decoded) = encode_frame(&bind, &target);
        assert_eq!(payload[..4], [FRAME_RAW, 0, 0, 0]);
        assert_eq!(payload.len(), 4 + 6 * 4);
        assert_eq!(decoded[3], [20000, -20000, 5000]);
        let mut p = Payloads::default();
        let a = p.add(payload.clone());
        assert_eq!(p.add(payload), a);
        assert_eq!((p.frames, p.shared), (2, 1));
    }
}
