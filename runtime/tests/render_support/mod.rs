//! A minimal writer of character blobs (layout of runtime/src/tables/mod.rs, version 4) for the
//! render tests: constant rigid poses, baked frames as deltas/escapes or raw.
#![allow(dead_code)]

use psxanim_runtime::tables::primitives::{
    pack3, run_header, GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE, RUN_QUADS, RUN_TRIANGLES, STREAM_END,
};
use psxanim_runtime::tables::{block_count_of, decode_lane, delta_byte, delta_word_count, SCALE_FRAC, TRANSLATION_FRAC};

/// A bone: parent, vertices (bone-local for rigid, model-space for baked).
pub struct BoneDef {
    pub parent: Option<u16>,
    pub vertices: Vec<[i16; 3]>,
}

/// A rigid clip: per bone a constant pose (rotation about Y in degrees, translation in GTE units).
pub struct RigidClip {
    pub frames: u16,
    pub poses: Vec<(f64, [i32; 3])>,
}

fn align(b: &mut Vec<u8>) {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
}

fn u16le(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn pose_data(clip: &RigidClip) -> Vec<u8> {
    let mut d = Vec::new();
    let blocks = block_count_of(clip.frames as usize, 16) as u16;
    u16le(&mut d, 16); // block frames
    u16le(&mut d, blocks);
    u16le(&mut d, 0); // no animated channel
    u16le(&mut d, 0);
    // Descriptors: rotation k=15, translation k=0, scale k=0; all constant.
    for _ in &clip.poses {
        d.extend_from_slice(&[0, 15, 16, 0, 0, 0, 20, 0, 0, 0, 3, 0]);
    }
    // Constants: the rotation as i16 x, y, z, w (Q15), translation and scale as i32 at their fractions.
    for (degrees, t) in &clip.poses {
        let half = degrees.to_radians() / 2.0;
        for c in [0.0, half.sin(), 0.0, half.cos()] {
            d.extend_from_slice(&((c * 32768.0).round().clamp(-32767.0, 32767.0) as i16).to_le_bytes());
        }
        for c in t {
            d.extend_from_slice(&(c << TRANSLATION_FRAC).to_le_bytes());
        }
        for _ in 0..3 {
            d.extend_from_slice(&(1i32 << SCALE_FRAC).to_le_bytes());
        }
    }
    for _ in 0..blocks {
        d.extend_from_slice(&0u32.to_le_bytes());
    }
    d
}

/// Baked frame payloads: `Some(positions)` as deltas/escapes, `None` uses a raw frame of `raw`.
fn baked_payload(bind: &[[i16; 3]], frame: &[[i16; 3]], raw: bool) -> Vec<u8> {
    let mut p = vec![raw as u8, 0, 0, 0];
    if raw {
        for f in frame {
            for c in f {
                p.extend_from_slice(&c.to_le_bytes());
            }
        }
        align(&mut p);
        return p;
    }
    let mut words = vec![128u8; 4 * delta_word_count(bind.len())];
    let mut escapes = Vec::new();
    for (v, (b, f)) in bind.iter().zip(frame).enumerate() {
        for c in 0..3 {
            let d = f[c] as i32 - b[c] as i32;
            if d % 16 == 0 && (-128..=127).contains(&(d / 16)) {
                words[delta_byte(3 * v + c)] = (d / 16 + 128) as u8;
            } else {
                escapes.extend_from_slice(&((3 * v + c) as u16).to_le_bytes());
                escapes.extend_from_slice(&f[c].to_le_bytes());
            }
        }
    }
    p[2..4].copy_from_slice(&((escapes.len() / 4) as u16).to_le_bytes());
    p.extend(words);
    p.extend(escapes);
    p
}

/// `QUAD` in a triangle's material word of [`blob`]: it and the next triangle, (a, c, d), are a quad.
pub const QUAD: u16 = 1 << 8;

/// The primitive stream of `triangles` (see [`blob`]): a run per triangle or quad.
pub fn stream_of(triangles: &[[u16; 4]], materials: &[[u8; 3]]) -> Vec<u32> {
    let gp0 = |command: u32, m: usize| {
        command
            | materials[m][0] as u32
            | (materials[m][1] as u32) << 8
            | (materials[m][2] as u32) << 16
    };
    let mut w = Vec::new();
    let mut i = 0;
    while i < triangles.len() {
        let [a, b, c, m] = triangles[i].map(usize::from);
        let material = m & 0xFF;
        if m & QUAD as usize != 0 {
            let d = triangles[i + 1][2] as usize;
            w.extend([
                run_header(RUN_QUADS, 1, material as u8),
                gp0(GP0_FLAT_QUAD, material),
                pack3(a, b, c),
                (d as u32) << 2,
            ]);
            i += 2;
        } else {
            w.extend([
                run_header(RUN_TRIANGLES, 1, material as u8),
                gp0(GP0_FLAT_TRIANGLE, material),
                pack3(a, b, c),
            ]);
            i += 1;
        }
    }
    w.push(STREAM_END);
    w
}

/// Builds a blob. `rigid`: clips of poses; otherwise `frames`: baked frames (with the raw flag).
/// `triangles`: a, b, c, then the material, plus [`QUAD`] on a quad's first triangle.
pub fn blob(
    bones: &[BoneDef],
    triangles: &[[u16; 4]],
    materials: &[[u8; 3]],
    rigid: &[RigidClip],
    frames: &[(Vec<[i16; 3]>, bool)],
) -> Vec<u8> {
    blob_with_stream(
        bones,
        &stream_of(triangles, materials),
        triangles.len(),
        materials,
        rigid,
        frames,
    )
}

/// [`blob`] with its primitive stream given as words (`triangles` of them, a quad counting two).
pub fn blob_with_stream(
    bones: &[BoneDef],
    stream: &[u32],
    triangles: usize,
    materials: &[[u8; 3]],
    rigid: &[RigidClip],
    frames: &[(Vec<[i16; 3]>, bool)],
) -> Vec<u8> {
    let baked = rigid.is_empty();
    let mut out = vec![0u8; 64];
    let strings_at = out.len();
    out.extend_from_slice(&[1, b'b', 1, b'c']); // name "b" at 0, "c" at 2
    let strings_size = 4;
    align(&mut out);
    let bones_at = out.len();
    let mut first = 0u16;
    let mut all_vertices = Vec::new();
    for b in bones {
        u16le(&mut out, b.parent.unwrap_or(0xFFFF));
        let n = if baked { 0 } else { b.vertices.len() as u16 };
        u16le(&mut out, if baked { 0 } else { first });
        u16le(&mut out, n);
        u16le(&mut out, 0);
        first += b.vertices.len() as u16;
        all_vertices.extend_from_slice(&b.vertices);
    }
    let vertices_at = out.len();
    for v in &all_vertices {
        for c in v {
            out.extend_from_slice(&c.to_le_bytes());
        }
        u16le(&mut out, 0);
    }
    if baked {
        let coords: Vec<i16> = all_vertices.iter().flatten().copied().collect();
        for c in 0..4 * delta_word_count(all_vertices.len()) {
            u16le(&mut out, coords.get(c).map_or(0, |&b| decode_lane(b)));
        }
    }
    let triangles_at = out.len();
    for w in stream {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let materials_at = out.len();
    for m in materials {
        out.extend_from_slice(&[m[0], m[1], m[2], 0]);
    }
    let clips_at = out.len();
    let clip_count = if baked { 1 } else { rigid.len() };
    out.resize(out.len() + psxanim_runtime::tables::CLIP_SIZE * clip_count, 0);
    let mut entries = Vec::new();
    if baked {
        let table_at = out.len();
        out.resize(table_at + 4 * frames.len(), 0);
        for (k, (f, raw)) in frames.iter().enumerate() {
            let at = out.len() as u32;
            out[table_at + 4 * k..table_at + 4 * k + 4].copy_from_slice(&at.to_le_bytes());
            out.extend(baked_payload(&all_vertices, f, *raw));
        }
        entries.push((frames.len() as u16, table_at as u32, 4 * frames.len() as u32));
        align(&mut out);
    } else {
        for c in rigid {
            align(&mut out);
            let at = out.len();
            let d = pose_data(c);
            out.extend_from_slice(&d);
            entries.push((c.frames, at as u32, d.len() as u32));
        }
        align(&mut out);
    }
    for (k, (frames, at, size)) in entries.iter().enumerate() {
        let e = clips_at + psxanim_runtime::tables::CLIP_SIZE * k;
        out[e..e + 2].copy_from_slice(&2u16.to_le_bytes());
        out[e + 2..e + 4].copy_from_slice(&frames.to_le_bytes());
        out[e + 4..e + 6].copy_from_slice(&30u16.to_le_bytes());
        out[e + 8..e + 12].copy_from_slice(&at.to_le_bytes());
        out[e + 12..e + 16].copy_from_slice(&size.to_le_bytes());
    }
    // Header, with bounds covering every vertex generously (the tests move bones by at most 3000).
    let size = out.len() as u32;
    out[0..4].copy_from_slice(b"PXSK");
    out[4..6].copy_from_slice(&5u16.to_le_bytes()); // the 64-byte header of version 5 (no blend section), still read
    out[6..8].copy_from_slice(&(baked as u16).to_le_bytes());
    let counts = [
        bones.len(),
        all_vertices.len(),
        triangles,
        materials.len(),
        clip_count,
        stream.len(),
    ];
    for (i, c) in counts.iter().enumerate() {
        out[8 + 2 * i..10 + 2 * i].copy_from_slice(&(*c as u16).to_le_bytes());
    }
    for (i, b) in [-4000i16, -4000, -4000, 4000, 4000, 4000].iter().enumerate() {
        out[20 + 2 * i..22 + 2 * i].copy_from_slice(&b.to_le_bytes());
    }
    let words = [size, strings_at as u32, bones_at as u32, vertices_at as u32, triangles_at as u32, materials_at as u32, clips_at as u32, strings_size];
    for (i, w) in words.iter().enumerate() {
        out[32 + 4 * i..36 + 4 * i].copy_from_slice(&w.to_le_bytes());
    }
    out
}


/// A square of 1,000 units in the bone's XY plane.
pub const SQUARE: [[i16; 3]; 4] = [[-500, -500, 0], [500, -500, 0], [-500, 500, 0], [500, 500, 0]];

/// The render tests' rigid character: two bones (the second a child of the first) with a square
/// each, two materials, and `clips`. Front faces run counter-clockwise on screen (y down): 0,2,1 then
/// 1,2,3 on the first bone; on the second, triangle 3 (5,7,6) is reversed.
pub fn two_squares_blob(clips: &[RigidClip]) -> Vec<u8> {
    let bones = [BoneDef { parent: None, vertices: SQUARE.to_vec() }, BoneDef { parent: Some(0), vertices: SQUARE.to_vec() }];
    let triangles = [[0, 2, 1, 0], [1, 2, 3, 0], [4, 6, 5, 1], [5, 7, 6, 1]];
    blob(&bones, &triangles, &[[200, 10, 10], [10, 200, 10]], clips, &[])
}

/// Two squares as in `two_squares_blob` but both wound alike (there the second square's second
/// triangle faces the other way), each as two triangles, or (`quads`) as one quad: the same
/// triangles, the first rotated so that the pair reads (a, b, c) + (a, c, d).
pub fn squares_blob(clips: &[RigidClip], quads: bool) -> Vec<u8> {
    let bones = [
        BoneDef {
            parent: None,
            vertices: SQUARE.to_vec(),
        },
        BoneDef {
            parent: Some(0),
            vertices: SQUARE.to_vec(),
        },
    ];
    let q = QUAD;
    let triangles = if quads {
        [[1, 0, 2, q], [1, 2, 3, 0], [5, 4, 6, 1 | q], [5, 6, 7, 1]]
    } else {
        [[0, 2, 1, 0], [1, 2, 3, 0], [4, 6, 5, 1], [5, 6, 7, 1]]
    };
    blob(&bones, &triangles, &[[200, 10, 10], [10, 200, 10]], clips, &[])
}

/// The render tests' camera: looking down +Z from 8,000 units in front of the origin, 320 x 240.
pub fn camera() -> psxanim_runtime::render::Camera {
    psxanim_runtime::render::Camera {
        view: psxanim_runtime::math::Matrix::new(
            psxanim_runtime::math::IDENTITY_ROTATION,
            psxanim_runtime::math::Vec3i32::new(0, 0, 8000),
        ),
        center: (160, 120),
        projection: 300,
        screen: (320, 240),
        zsf3: 100,
        near: 100,
    }
}
