//! Hand-assembled blobs: every field is placed here by the test, independently of the tooling's writer.
#![allow(clippy::manual_is_multiple_of)] // the runtime keeps to the console toolchain's std

extern crate std;
use std::vec;
use std::vec::Vec;

use super::*;

/// LSB-first bit writer (the test's own, independent of the tooling's).
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    n: usize,
}

impl Bits {
    fn put(&mut self, value: i64, width: u32) {
        for i in 0..width {
            if self.n % 8 == 0 {
                self.bytes.push(0);
            }
            if (value >> i) & 1 != 0 {
                let last = self.bytes.len() - 1;
                self.bytes[last] |= 1 << (self.n % 8);
            }
            self.n += 1;
        }
    }
}

const CLIP_DATA: usize = 132;

/// The primitive stream of `blob`: one run of one triangle (0, 1, 1), material 0, then the end word.
const PRIMITIVE_WORDS: [u32; 4] = [
    1 << 2,
    0x20 << 24 | 200 | 100 << 8 | 50 << 16,
    1 << 12 | 1 << 22,
    3,
];

/// Where `blob` puts the primitive stream: after the clip data and the tail, each padded to 4 bytes.
fn primitives_at(clip_data: &[u8], tail: &[u8]) -> usize {
    (CLIP_DATA + clip_data.len().next_multiple_of(4)) + tail.len().next_multiple_of(4)
}

/// One bone ("root"), two vertices, one triangle, one material, one clip ("clip") whose data start at
/// offset 132 (after the 20-byte clip entry); `tail` is appended after the clip data (baked payloads), the primitives after it.
fn blob(storage: u16, frames: u16, clip_data: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; CLIP_DATA];
    b[0..4].copy_from_slice(b"PXSK");
    let put16 =
        |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    let put32 =
        |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put16(&mut b, 4, 5); // the 64-byte header of version 5, still read (no blend section)
    put16(&mut b, 6, storage);
    for (at, n) in [(8, 1), (10, 2), (12, 1), (14, 1), (16, 1)] {
        put16(&mut b, at, n);
    }
    for (i, v) in [-10i16, -20, -30, 10, 20, 30].iter().enumerate() {
        b[20 + 2 * i..22 + 2 * i].copy_from_slice(&v.to_le_bytes());
    }
    // strings at 64 (10 bytes), bones 76, vertices 84, materials 108, clips 112; the primitives go
    // last (`primitives_at`)
    for (at, v) in [
        (36, 64),
        (40, 76),
        (44, 84),
        (48, 100),
        (52, 108),
        (56, 112),
        (60, 10),
    ] {
        put32(&mut b, at, v);
    }
    b[64..74].copy_from_slice(b"\x04root\x04clip");
    put16(&mut b, 76, NO_PARENT);
    put16(&mut b, 78, 0);
    put16(&mut b, 80, 2);
    put16(&mut b, 82, 0);
    for (i, v) in [100i16, -200, 300, 0, 1000, -1000, 0].iter().enumerate() {
        b[84 + 2 * i..86 + 2 * i].copy_from_slice(&v.to_le_bytes());
    }
    for (i, v) in [-1i16, 2, 3, 0].iter().enumerate() {
        b[92 + 2 * i..94 + 2 * i].copy_from_slice(&v.to_le_bytes());
    }
    put16(&mut b, 100, 0);
    put16(&mut b, 102, 1);
    put16(&mut b, 104, 1);
    b[108..111].copy_from_slice(&[200, 100, 50]);
    put16(&mut b, 112, 5); // name "clip"
    put16(&mut b, 114, frames);
    put16(&mut b, 116, 30);
    put32(&mut b, 120, CLIP_DATA as u32);
    put32(&mut b, 124, clip_data.len() as u32);
    b.extend_from_slice(clip_data);
    while b.len() % 4 != 0 {
        b.push(0);
    }
    b.extend_from_slice(tail);
    while b.len() % 4 != 0 {
        b.push(0);
    }
    if storage == 1 {
        // Baked: the vertices again, followed by their decode lanes, after the tail.
        let vertices = b[84..100].to_vec();
        let at = b.len() as u32;
        put32(&mut b, 44, at);
        b.extend_from_slice(&vertices);
        let coords: Vec<i16> = BAKED_BIND.iter().flatten().copied().collect();
        for c in 0..4 * delta_word_count(2) {
            let lane = coords.get(c).map_or(0, |&v| decode_lane(v));
            b.extend_from_slice(&lane.to_le_bytes());
        }
    }
    let at = b.len();
    if storage == 0 {
        assert_eq!(at, primitives_at(clip_data, tail));
    }
    put32(&mut b, 48, at as u32);
    put16(&mut b, 18, PRIMITIVE_WORDS.len() as u16);
    for w in PRIMITIVE_WORDS {
        b.extend_from_slice(&w.to_le_bytes());
    }
    let total = b.len() as u32;
    put32(&mut b, 32, total);
    b
}

/// A rigid clip of 3 frames: constant identity rotation, animated translation x = 10, 12, 15 (z = -5),
/// constant scale 1.
fn rigid_clip() -> Vec<u8> {
    let mut d = vec![];
    for v in [16u16, 1, 1, 0] {
        d.extend_from_slice(&v.to_le_bytes()); // block frames, blocks, animated channels
    }
    // rotation constant (k 15), translation animated (k 0, base 8 bits), scale constant
    d.extend_from_slice(&[0, 15, 16, 0, CHANNEL_ANIMATED, 0, 8, 0, 0, 0, 2, 0]);
    for c in [0i16, 0, 0, 32767] {
        d.extend_from_slice(&c.to_le_bytes());
    }
    for _ in 0..3 {
        d.extend_from_slice(&(1i32 << SCALE_FRAC).to_le_bytes());
    }
    d.extend_from_slice(&0u32.to_le_bytes()); // block 0 at bit 0
    // translation widths: x wb 3, wr 2; y and z 0
    d.extend_from_slice(&(3u32 | 2 << WIDTHS_RESIDUAL_SHIFT).to_le_bytes());
    // record 0: x 10, y 0, z -5 (8 bits each); record 1: x d1 2 (3 bits); record 2: x residual 1 (2 bits)
    let mut s = Bits::default();
    for (v, w) in [(10, 8), (0, 8), (-5, 8), (2, 3), (1, 2)] {
        s.put(v, w);
    }
    d.extend_from_slice(&s.bytes);
    d
}

#[test]
fn reads_the_tables_of_a_hand_assembled_blob() {
    let b = blob(0, 3, &rigid_clip(), &[]);
    let t = Tables::parse(&b).unwrap();
    assert_eq!(t.storage(), Storage::RigidGte);
    assert_eq!(
        (t.bone_count(), t.vertex_count(), t.triangle_count(), t.material_count(), t.clip_count()),
        (1, 2, 1, 1, 1)
    );
    assert_eq!(t.bounds(), [[-10, -20, -30], [10, 20, 30]]);
    assert_eq!(t.bone(0), Bone { parent: None, first_vertex: 0, vertex_count: 2, name_offset: 0 });
    assert_eq!(t.name(0), Ok("root"));
    assert_eq!(t.vertex(1), [-1, 2, 3]);
    let p: Vec<_> = t.primitives().collect();
    assert_eq!(
        p,
        [primitives::Primitive {
            first_triangle: 0,
            points: [0, 1, 1, 1],
            quad: false,
            facing: [0, 1, 1],
            second: [0, 1, 1],
            material: 0,
            gp0: PRIMITIVE_WORDS[1]
        }]
    );
    assert_eq!(t.material(0), [200, 100, 50]);
    assert_eq!(t.find_clip("clip"), Some(0));
    assert_eq!(t.find_clip("walk"), None);
    // The compile-time sizes a game takes from the embedded blob: its header's counts.
    assert_eq!((crate::tables::vertex_count_of(&b), crate::tables::triangle_count_of(&b)), (2, 1));
    assert_eq!((crate::tables::vertex_count_of(&b[..40]), crate::tables::triangle_count_of(&b[..40])), (0, 0));
}

#[test]
fn decodes_constant_and_second_order_delta_channels() {
    let b = blob(0, 3, &rigid_clip(), &[]);
    let t = Tables::parse(&b).unwrap();
    let mut out = [BoneSample::default(); 1];
    for (frame, x) in [(0, 10), (1, 12), (2, 15)] {
        t.decode_pose(0, frame, &mut out).unwrap();
        assert_eq!(out[0].rotation, [0, 0, 0, 32767 << (ROTATION_FRAC - ROTATION_STORED_FRAC)], "frame {frame}");
        assert_eq!(out[0].translation, [x << TRANSLATION_FRAC, 0, -5 << TRANSLATION_FRAC], "frame {frame}");
        assert_eq!(out[0].scale, [1 << SCALE_FRAC; 3]);
    }
    assert_eq!(t.decode_pose(0, 3, &mut out), Err(TableError::FrameOutOfRange { clip: 0, frame: 3, frames: 3 }));
    assert_eq!(t.decode_pose(1, 0, &mut out), Err(TableError::ClipOutOfRange { clip: 1, clips: 1 }));
    assert_eq!(t.decode_pose(0, 0, &mut []), Err(TableError::OutputTooSmall { needed: 1, len: 0 }));
    let mut frame = [[0i16; 3]; 2];
    assert_eq!(
        t.decode_baked_frame(0, 0, &mut frame),
        Err(TableError::WrongStorage { expected: Storage::BakedVertices, found: Storage::RigidGte })
    );
}

/// Every frame of every clip decoded forward by a [`crate::render::PoseStream`] (at whole frames)
/// against [`Tables::decode_pose`]: the same samples while both decode, and an error on the same frame
/// when one fails. Returns the frames compared.
fn sequential_equals_random_access(t: &Tables) -> usize {
    let mut stream = std::boxed::Box::new(crate::render::PoseStream::<256>::new());
    let (mut seq, mut random) = (vec![BoneSample::default(); t.bone_count()], vec![BoneSample::default(); t.bone_count()]);
    let mut compared = 0;
    for c in 0..t.clip_count() {
        for f in 0..t.clip(c).unwrap().frame_count {
            let s = crate::anim::FrameSample { clip: c as u16, frame: f, next: f, weight: 0 };
            let (a, b) = (stream.sample(t, &s, &mut seq), t.decode_pose(c, f as usize, &mut random));
            assert_eq!(a.is_ok(), b.is_ok(), "clip {c} frame {f}: {a:?} vs {b:?}");
            if a.is_err() {
                break;
            }
            assert_eq!(seq, random, "clip {c} frame {f}");
            compared += 1;
        }
    }
    compared
}

#[test]
fn sequential_decoding_gives_the_random_access_samples() {
    let b = blob(0, 3, &rigid_clip(), &[]);
    let t = Tables::parse(&b).unwrap();
    // Sized at compile time as at run time (a translation: 6 words); nothing for a truncated blob.
    assert_eq!((crate::tables::stream::words_for_blob(&b), crate::tables::stream::max_words_needed(&t)), (6, 6));
    assert_eq!(crate::tables::stream::words_for_blob(&b[..40]), 0);
    assert_eq!(sequential_equals_random_access(&t), 3);
    // Between frames: each stored component interpolated (x from 12 to 15, a quarter of the way).
    let mut stream = crate::render::PoseStream::<8>::new();
    let mut out = [BoneSample::default(); 1];
    let s = crate::anim::FrameSample { clip: 0, frame: 1, next: 2, weight: 1024 };
    stream.sample(&t, &s, &mut out).unwrap();
    assert_eq!(out[0].translation[0], (12 << TRANSLATION_FRAC) + (3 << TRANSLATION_FRAC) / 4);
    // Too little state for the clip's animated channels (a translation takes 6 words).
    let mut small = crate::render::PoseStream::<5>::new();
    assert_eq!(small.sample(&t, &s, &mut out), Err(TableError::OutputTooSmall { needed: 6, len: 5 }));
    // A voice standing in the clip still checks the words it is given on every call.
    let mut voice = crate::tables::stream::VoiceState::IDLE;
    let mut words = [0u32; 8];
    crate::tables::stream::sample_voice(&t, &mut voice, &mut words, 0, 1, 4096, &mut out).unwrap();
    assert_eq!(
        crate::tables::stream::sample_voice(&t, &mut voice, &mut words[..5], 0, 2, 4096, &mut out),
        Err(TableError::OutputTooSmall { needed: 6, len: 5 })
    );
    let far = crate::anim::FrameSample { clip: 0, frame: 3, next: 3, weight: 0 };
    assert_eq!(stream.sample(&t, &far, &mut out), Err(TableError::FrameOutOfRange { clip: 0, frame: 3, frames: 3 }));
}

/// Found by fuzzing: a scale flagged both animated and identity is animated (as the sample route
/// reads it), so the GTE-form route must not take it for 1.0.
#[test]
fn a_channel_flagged_animated_and_identity_is_animated_in_both_routes() {
    let mut d = vec![];
    for v in [16u16, 1, 2, 0] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    // rotation constant; translation animated (k 0, base 8); scale flagged animated and identity (k 0, base 8)
    d.extend_from_slice(&[0, 15, 16, 0, CHANNEL_ANIMATED, 0, 8, 0, CHANNEL_ANIMATED | CHANNEL_IDENTITY, 0, 8, 0]);
    for c in [0i16, 0, 0, 32767] {
        d.extend_from_slice(&c.to_le_bytes());
    }
    d.extend_from_slice(&0u32.to_le_bytes()); // block 0 at bit 0
    d.extend_from_slice(&[0u8; 8]); // widths: nothing changes
    let mut s = Bits::default();
    for v in [10, 0, -5, 2, 2, 2] {
        s.put(v, 8);
    }
    d.extend_from_slice(&s.bytes);
    d.resize(d.len().next_multiple_of(4), 0);
    let b = blob(0, 3, &d, &[]);
    let t = Tables::parse(&b).unwrap();
    let (mut samples, mut poses) = (crate::render::PoseStream::<16>::new(), crate::render::PoseStream::<16>::new());
    let (mut out, mut q14) = ([BoneSample::default(); 1], [crate::gte::PoseQ14::default(); 1]);
    for frame in 0..3u16 {
        for weight in [0, 2048] {
            let s = crate::anim::FrameSample { clip: 0, frame, next: (frame + 1).min(2), weight };
            samples.sample(&t, &s, &mut out).unwrap();
            assert_eq!(out[0].scale, [2 << SCALE_FRAC; 3], "frame {frame}");
            let fits = crate::render::PoseVoices::pose_q14(&mut poses, &t, &s, &mut q14).unwrap();
            assert_eq!(fits, crate::gte::PoseQ14::from_sample(&out[0]).is_some(), "frame {frame} weight {weight}");
        }
    }
}

#[test]
fn a_truncated_pose_stream_is_refused_at_parse() {
    let mut clip = rigid_clip();
    clip.truncate(clip.len() - 2);
    let b = blob(0, 3, &clip, &[]);
    // The blob's padding keeps some zero bits, but the clip data (its stream) ends early.
    assert!(matches!(Tables::parse(&b), Err(TableError::BadClipData { what: "block records run past the stream", .. })));
}

/// The baked test blob's bind positions (`blob` writes them as its vertices).
const BAKED_BIND: [[i16; 3]; 2] = [[100, -200, 300], [-1, 2, 3]];

/// A delta payload of `BAKED_BIND`'s two vertices: `deltas` per coordinate, then `escapes`.
fn delta_payload(deltas: [i8; 6], escapes: &[(u16, i16)]) -> Vec<u8> {
    let mut p = vec![FRAME_DELTA, 0];
    p.extend_from_slice(&(escapes.len() as u16).to_le_bytes());
    let mut words = [(BAKED_DELTA_BIAS as u8); 8];
    for (c, d) in deltas.iter().enumerate() {
        words[delta_byte(c)] = (*d as i32 + BAKED_DELTA_BIAS) as u8;
    }
    p.extend_from_slice(&words);
    for (c, v) in escapes {
        p.extend_from_slice(&c.to_le_bytes());
        p.extend_from_slice(&v.to_le_bytes());
    }
    p
}

fn baked_blob() -> Vec<u8> {
    // frame 0: deltas (+1, -1, escape 1234), (0, 0, -128); frame 1: raw; frame 2 shares frame 0's
    // payload
    let tail_start = CLIP_DATA + 12;
    let delta = delta_payload([1, -1, 0, 0, 0, -128], &[(2, 1234)]);
    let mut raw = vec![FRAME_RAW, 0, 0, 0];
    for v in [1i16, 2, 3, -4, -5, -6] {
        raw.extend_from_slice(&v.to_le_bytes());
    }
    let mut tail = delta.clone();
    tail.extend_from_slice(&raw);
    let mut table = vec![];
    for at in [tail_start, tail_start + delta.len(), tail_start] {
        table.extend_from_slice(&(at as u32).to_le_bytes());
    }
    blob(1, 3, &table, &tail)
}

#[test]
fn decodes_baked_delta_escape_and_raw_frames() {
    let b = baked_blob();
    let t = Tables::parse(&b).unwrap();
    let mut f = [[0i16; 3]; 2];
    t.decode_baked_frame(0, 0, &mut f).unwrap();
    assert_eq!(f, [[100 + 16, -200 - 16, 1234], [-1, 2, 3 - 2048]]);
    t.decode_baked_frame(0, 1, &mut f).unwrap();
    assert_eq!(f, [[1, 2, 3], [-4, -5, -6]]);
    let mut again = [[0i16; 3]; 2];
    t.decode_baked_frame(0, 2, &mut again).unwrap();
    assert_eq!(again, [[116, -216, 1234], [-1, 2, -2045]]);
    let mut pose = [BoneSample::default()];
    assert!(matches!(t.decode_pose(0, 0, &mut pose), Err(TableError::WrongStorage { .. })));
}

#[test]
fn bad_payloads_are_reported_with_their_offset() {
    let mut b = baked_blob();
    let payload = CLIP_DATA + 12;
    b[payload] = 7;
    let t = Tables::parse(&b).unwrap();
    let mut f = [[0i16; 3]; 2];
    assert_eq!(
        t.decode_baked_frame(0, 0, &mut f),
        Err(TableError::BadFramePayload { offset: payload, what: "unknown frame mode byte" })
    );
    let mut b = baked_blob();
    b[payload + 1] = 1;
    let t = Tables::parse(&b).unwrap();
    assert_eq!(
        t.decode_baked_frame(0, 0, &mut f),
        Err(TableError::BadFramePayload { offset: payload + 1, what: "reserved payload byte is not 0" })
    );
    // An escape of coordinate 6 (there are 6): found after the deltas are decoded.
    let mut b = baked_blob();
    b[payload + 12] = 6;
    let t = Tables::parse(&b).unwrap();
    assert_eq!(
        t.decode_baked_frame(0, 0, &mut f),
        Err(TableError::BadFramePayload { offset: payload + 12, what: "escape coordinate past 3 * vertex count" })
    );
    assert_eq!(f, [[116, -216, 300], [-1, 2, -2045]]);
    // An escape count past the blob's end.
    let mut b = baked_blob();
    b[payload + 2] = 200;
    let t = Tables::parse(&b).unwrap();
    assert!(matches!(t.decode_baked_frame(0, 0, &mut f), Err(TableError::BadFramePayload { what: "payload runs past the end of the blob", .. })));
    // A frame offset past the blob, or not a multiple of 4, is caught when parsing.
    for offset in [10_000u32, CLIP_DATA as u32 + 13] {
        let mut b = baked_blob();
        b[CLIP_DATA + 4..CLIP_DATA + 8].copy_from_slice(&offset.to_le_bytes());
        assert!(matches!(Tables::parse(&b), Err(TableError::BadIndex { index: 1, .. })), "{offset}");
    }
}

#[test]
fn a_payload_decodes_into_the_first_vertex_count_entries() {
    let b = baked_blob();
    let t = Tables::parse(&b).unwrap();
    let payload = CLIP_DATA + 12;
    let mut longer = [[7i16; 3]; 3];
    decode_baked_frame_payload(&t, payload, &mut longer).unwrap();
    assert_eq!(longer, [[116, -216, 1234], [-1, 2, -2045], [7, 7, 7]]);
    let mut short = [[0i16; 3]; 1];
    assert_eq!(decode_baked_frame_payload(&t, payload, &mut short), Err(TableError::OutputTooSmall { needed: 2, len: 1 }));
}

#[test]
fn baked_decode_lanes_must_match_a_bind_within_the_limit() {
    let b = baked_blob();
    let lanes = u32::from_le_bytes(b[44..48].try_into().unwrap()) as usize + 16;
    let mut bad = b.clone();
    bad[lanes + 2] ^= 1;
    assert_eq!(
        Tables::parse(&bad).unwrap_err(),
        TableError::BadFramePayload { offset: lanes + 2, what: "decode lane is not bind + 0x7800" }
    );
    // The lane past the last coordinate must be 0.
    let mut bad = b.clone();
    bad[lanes + 12] = 1;
    assert!(matches!(Tables::parse(&bad), Err(TableError::BadFramePayload { .. })));
    // A bind coordinate beyond 7.5 m, its lane consistent.
    let mut bad = b.clone();
    let vertices = lanes - 16;
    bad[vertices..vertices + 2].copy_from_slice(&(-30_721i16).to_le_bytes());
    bad[lanes..lanes + 2].copy_from_slice(&decode_lane(-30_721).to_le_bytes());
    assert_eq!(Tables::parse(&bad).unwrap_err(), TableError::ValueOverflow { offset: vertices });
}

/// The payload format by its words, the way a reader of the module docs would decode it: the
/// definition must agree on any deltas, escapes and bind within the limit.
fn reference_decode(bind: &[[i16; 3]], deltas: &[i8], escapes: &[(u16, i16)]) -> Vec<i16> {
    let mut out: Vec<i16> = bind.iter().flatten().zip(deltas).map(|(&b, &d)| (b as i32 + 16 * d as i32) as i16).collect();
    for &(c, v) in escapes {
        out[c as usize] = v;
    }
    out
}

proptest::proptest! {
    #[test]
    fn delta_words_decode_like_the_reference(
        bind in proptest::collection::vec(-30_720i16..=30_720, 1..40),
        seed in proptest::collection::vec(proptest::prelude::any::<(i8, bool, i16)>(), 120),
    ) {
        let n = bind.len() / 3;
        proptest::prop_assume!(n > 0);
        let bind: Vec<[i16; 3]> = bind.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        let deltas: Vec<i8> = seed[..3 * n].iter().map(|s| s.0).collect();
        let escapes: Vec<(u16, i16)> = seed[..3 * n].iter().enumerate().filter(|(_, s)| s.1).map(|(c, s)| (c as u16, s.2)).collect();
        let lanes: Vec<u16> = (0..4 * delta_word_count(n)).map(|c| bind.get(c / 3).map_or(0, |v| decode_lane(v[c % 3]))).collect();
        let mut words = vec![0u8; 4 * delta_word_count(n)];
        for (c, d) in deltas.iter().enumerate() {
            words[delta_byte(c)] = (*d as i32 + BAKED_DELTA_BIAS) as u8;
        }
        let lane = |c: usize| lanes[c] as u32;
        let mut out: Vec<i16> = vec![0; 4 * delta_word_count(n)];
        for w in 0..delta_word_count(n) {
            let d = u32::from_le_bytes(words[4 * w..4 * w + 4].try_into().unwrap());
            let [a, b] = delta_words(d, lane(4 * w) | lane(4 * w + 1) << 16, lane(4 * w + 2) | lane(4 * w + 3) << 16);
            out[4 * w..4 * w + 4].copy_from_slice(&[a as i16, (a >> 16) as i16, b as i16, (b >> 16) as i16]);
        }
        out.truncate(3 * n);
        for &(c, v) in &escapes {
            out[c as usize] = v;
        }
        proptest::prop_assert_eq!(out, reference_decode(&bind, &deltas, &escapes));
    }
}

#[test]
fn header_errors_name_what_is_wrong() {
    let good = blob(0, 3, &rigid_clip(), &[]);
    assert_eq!(Tables::parse(&good[..10]).err(), Some(TableError::TooShort { needed: HEADER_SIZE, len: 10 }));
    let mut b = good.clone();
    b[0] = b'X';
    assert_eq!(Tables::parse(&b).err(), Some(TableError::BadMagic { found: *b"XXSK" }));
    let mut b = good.clone();
    b[4] = 1;
    assert_eq!(
        Tables::parse(&b).err(),
        Some(TableError::UnsupportedVersion { found: 1 })
    );
    let mut b = good.clone();
    b[6] = 9;
    assert_eq!(Tables::parse(&b).err(), Some(TableError::BadStorage { found: 9 }));
    assert!(matches!(Tables::parse(&good[..good.len() - 4]), Err(TableError::TooShort { .. })));
    let mut b = good.clone();
    b[44] = 86; // vertices offset 86: not 4-aligned
    assert_eq!(Tables::parse(&b).err(), Some(TableError::Misaligned { what: "vertices", offset: 86 }));
    let mut b = good.clone();
    b[10] = 200; // 200 vertices do not fit
    assert!(matches!(Tables::parse(&b), Err(TableError::SectionOutOfBounds { what: "vertices", .. })));
}

#[test]
fn index_errors_name_the_table_entry_and_offset() {
    let mut b = blob(0, 3, &rigid_clip(), &[]);
    let word = primitives_at(&rigid_clip(), &[]) + 8;
    b[word + 1] = 2 << 4; // triangle corner 1 -> vertex 2 of 2
    assert_eq!(
        Tables::parse(&b).err(),
        Some(TableError::BadIndex {
            what: "triangle vertex",
            index: 2,
            offset: word,
            value: 2,
            limit: 2
        })
    );
    let mut b = blob(0, 3, &rigid_clip(), &[]);
    b[76..78].copy_from_slice(&0u16.to_le_bytes()); // the root is its own parent
    assert_eq!(Tables::parse(&b).err(), Some(TableError::ParentNotBefore { bone: 0, parent: 0, offset: 76 }));
    let mut b = blob(0, 3, &rigid_clip(), &[]);
    b[CLIP_DATA + 2] = 5; // block count != ceil((3 - 1) / 16)
    assert!(matches!(Tables::parse(&b), Err(TableError::BadClipData { clip: 0, .. })));
    let mut b = blob(0, 3, &rigid_clip(), &[]);
    b[CLIP_DATA + CLIP_POSE_HEADER_SIZE + 1] = 16; // rotation fraction bits above 15
    assert!(matches!(Tables::parse(&b), Err(TableError::BadClipData { what: "fraction bits too large", .. })));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Corrupting any bytes of a valid blob gives errors, never a panic or a hang.
        #[test]
        fn corrupted_blobs_never_panic(which in 0..2usize, edits in proptest::collection::vec((0..400usize, any::<u8>()), 1..8)) {
            let mut b = if which == 0 { blob(0, 3, &rigid_clip(), &[]) } else { baked_blob() };
            for (at, v) in edits {
                let n = b.len();
                b[at % n] = v;
            }
            if let Ok(t) = Tables::parse(&b) {
                let mut pose = [BoneSample::default(); 4];
                let mut frame = [[0i16; 3]; 8];
                for c in 0..t.clip_count() {
                    for f in 0..t.clip(c).unwrap().frame_count as usize {
                        let _ = t.decode_pose(c, f, &mut pose);
                        let _ = t.decode_baked_frame(c, f, &mut frame);
                    }
                }
                for i in 0..t.bone_count() { let _ = t.name(t.bone(i).name_offset); }
                if t.storage() == Storage::RigidGte && t.bone_count() <= 4 {
                    sequential_equals_random_access(&t);
                }
            }
        }
    }
}

/// `b` with events (frame, string offset) appended for its one clip, and the header's size updated.
fn with_events(mut b: Vec<u8>, events: &[(u16, u16)]) -> Vec<u8> {
    let at = b.len();
    for (frame, name) in events {
        b.extend_from_slice(&frame.to_le_bytes());
        b.extend_from_slice(&name.to_le_bytes());
    }
    b[118..120].copy_from_slice(&(events.len() as u16).to_le_bytes());
    b[128..132].copy_from_slice(&(at as u32).to_le_bytes());
    let total = b.len() as u32;
    b[32..36].copy_from_slice(&total.to_le_bytes());
    b
}

#[test]
fn clip_events_are_read_and_checked() {
    // Names: 0 "root", 5 "clip".
    let b = with_events(blob(0, 3, &rigid_clip(), &[]), &[(2, 0), (0, 5)]);
    let t = Tables::parse(&b).unwrap();
    assert_eq!(t.event_count(0), 2);
    assert_eq!((t.event(0, 0), t.event(0, 1), t.event(0, 2)), (Some(("root", 2)), Some(("clip", 0)), None));
    assert_eq!((t.event_count(1), t.event(1, 0)), (0, None));

    let events = b.len() - 8;
    let past = with_events(blob(0, 3, &rigid_clip(), &[]), &[(3, 0)]);
    assert_eq!(
        Tables::parse(&past).unwrap_err(),
        TableError::BadIndex { what: "event frame", index: 0, offset: events, value: 3, limit: 3 }
    );
    let bad_name = with_events(blob(0, 3, &rigid_clip(), &[]), &[(1, 3)]);
    assert_eq!(Tables::parse(&bad_name).unwrap_err(), TableError::BadName { offset: events + 2 });
    // An offset without events, and events past the blob, are refused.
    let mut stray = blob(0, 3, &rigid_clip(), &[]);
    stray[128..132].copy_from_slice(&4u32.to_le_bytes());
    assert!(matches!(Tables::parse(&stray), Err(TableError::BadClipData { offset: 128, .. })));
    let mut outside = blob(0, 3, &rigid_clip(), &[]);
    outside[118] = 1;
    let end = outside.len() as u32;
    outside[128..132].copy_from_slice(&end.to_le_bytes());
    assert!(matches!(Tables::parse(&outside), Err(TableError::SectionOutOfBounds { what: "clip events", .. })));
}

/// `blob`'s rigid tables made version 6 with a blend section: the strings moved to the end (the
/// header's 8 new bytes take their place at 64), a second bone ("root" again, child of the first,
/// no rigid vertices), no clip, then the `pairs` (rel: identity rotation, translation 10, 20, 30) and
/// `groups` (pair, weight, first vertex, vertex count).
fn v6(pairs: &[(u16, u16)], groups: &[[u16; 4]]) -> Vec<u8> {
    let mut b = blob(0, 3, &rigid_clip(), &[]);
    let put16 = |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    let put32 = |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let strings = b[64..74].to_vec();
    let strings_at = b.len();
    b.extend_from_slice(&strings);
    while b.len() % 4 != 0 {
        b.push(0);
    }
    let bones_at = b.len();
    for v in [NO_PARENT, 0, 2, 0, 0, 0, 0, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let blend_at = b.len();
    for &(a, bone_b) in pairs {
        for v in [a, bone_b] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let rel = crate::math::Matrix::new([[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], crate::math::Vec3i32::new(10, 20, 30));
        for w in crate::gte::PackedMatrix::pack(&rel).unwrap().words {
            b.extend_from_slice(&w.to_le_bytes());
        }
    }
    for g in groups {
        for v in g {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    put16(&mut b, 4, 6);
    put16(&mut b, 8, 2);
    put16(&mut b, 16, 0);
    put32(&mut b, 36, strings_at as u32);
    put32(&mut b, 40, bones_at as u32);
    put32(&mut b, 64, if groups.is_empty() && pairs.is_empty() { 0 } else { blend_at as u32 });
    put16(&mut b, 68, pairs.len() as u16);
    put16(&mut b, 70, groups.len() as u16);
    let size = b.len() as u32;
    put32(&mut b, 32, size);
    b
}

#[test]
fn reads_the_blend_section_of_a_version_6_blob() {
    let b = v6(&[(0, 1)], &[[0, 2048, 0, 2]]);
    let t = Tables::parse(&b).unwrap();
    assert_eq!((t.blend_pair_count(), t.blend_group_count(), t.blended_vertex_count()), (1, 1, 2));
    let pair = t.blend_pair(0);
    assert_eq!((pair.a, pair.b), (0, 1));
    assert_eq!(pair.rel.unpack(), crate::math::Matrix::new([[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], crate::math::Vec3i32::new(10, 20, 30)));
    assert_eq!(t.blend_group(0), blend::BlendGroup { pair: 0, weight: 2048, first_vertex: 0, vertex_count: 2 });
    // Without a section: nothing blended, and a version 5 blob reads the same way.
    let empty = v6(&[], &[]);
    let none = Tables::parse(&empty).unwrap();
    assert_eq!((none.blend_pair_count(), none.blend_group_count()), (0, 0));
    assert_eq!(Tables::parse(&blob(0, 3, &rigid_clip(), &[])).unwrap().blend_group_count(), 0);
}

#[test]
fn a_damaged_blend_section_is_a_table_error_naming_its_offset() {
    let at = |b: &[u8]| u32_at(b, 64) as usize;
    let b = v6(&[(0, 2)], &[[0, 2048, 0, 2]]);
    assert_eq!(Tables::parse(&b).err(), Some(TableError::BadIndex { what: "blend pair bone", index: 0, offset: at(&b) + 2, value: 2, limit: 2 }));
    let b = v6(&[(1, 1)], &[[0, 2048, 0, 2]]);
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::BadBlend { offset, .. }) if offset == at(&b)));
    let b = v6(&[(0, 1)], &[[1, 2048, 0, 2]]);
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::BadIndex { what: "blend group pair", .. })));
    let b = v6(&[(0, 1)], &[[0, 4097, 0, 2]]);
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::BadBlend { offset, .. }) if offset == at(&b) + 28 + 2));
    let b = v6(&[(0, 1)], &[[0, 2048, 1, 2]]);
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::BadIndex { what: "blend group vertex range", value: 3, limit: 3, .. })));
    let b = v6(&[(0, 1), (1, 0)], &[[1, 2048, 0, 1], [0, 2048, 1, 1]]);
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::BadBlend { what: "groups sorted by pair", .. })));
    // The section itself: misaligned, past the end, counts without an offset.
    let mut b = v6(&[(0, 1)], &[[0, 2048, 0, 2]]);
    let o = at(&b) as u32;
    b[64..68].copy_from_slice(&(o + 2).to_le_bytes());
    assert_eq!(Tables::parse(&b).err(), Some(TableError::Misaligned { what: "blend", offset: o as usize + 2 }));
    b[64..68].copy_from_slice(&(o + 4).to_le_bytes());
    assert!(matches!(Tables::parse(&b).err(), Some(TableError::SectionOutOfBounds { what: "blend", .. })));
    b[64..68].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(Tables::parse(&b).err(), Some(TableError::BadBlend { offset: 64, what: "blend offset 0 with pairs or groups" }));
    // Versions before 4 are refused by number.
    let mut old = v6(&[], &[]);
    old[4..6].copy_from_slice(&3u16.to_le_bytes());
    assert_eq!(Tables::parse(&old).err(), Some(TableError::UnsupportedVersion { found: 3 }));
}

/// A blended vertex of weight 0 lands where bone a's matrix puts it, of weight 4096 where bone b's
/// matrix times `rel` does, on the GTE model, bit for bit.
#[test]
fn the_blend_stage_ends_on_each_bone() {
    use crate::gte::Gte;
    use crate::math::{Matrix, Vec3i16, Vec3i32};
    let a = Matrix::new([[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], Vec3i32::new(0, 0, 2000));
    let b = Matrix::new([[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]], Vec3i32::new(100, 50, 2100));
    let mut gte = Gte::new();
    gte.set_screen(160, 120, 300);
    for (weight, expect) in [(0u16, a), (4096, b.mul(&Matrix::new([[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]], Vec3i32::new(10, 20, 30))))] {
        let blob = v6(&[(0, 1)], &[[0, weight, 0, 2]]);
        let t = Tables::parse(&blob).unwrap();
        let (mut sxy, mut sz) = ([0u32; 2], [0u32; 2]);
        crate::render::blend::project_blended(&mut gte, &t, &[a, b], &mut sxy, &mut sz);
        gte.set_matrix(&expect);
        for v in 0..2 {
            let p = gte.rtps(Vec3i16::from_array(t.vertex(v)));
            assert_eq!((sxy[v], sz[v]), (p.xy.to_word(), p.z as u32), "weight {weight} vertex {v}");
        }
    }
}
