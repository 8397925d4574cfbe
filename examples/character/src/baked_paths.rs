//! The baked decoder on every path, word for word against the host, and its cycle bench.
//!
//! Compiled into the PS-EXE and into the xtask (`xtask/src/expect/character.rs`), like `scene.rs`.
//! A copy of the baked blob gets two synthetic payloads in place of two "Turn" frames: a raw frame
//! (every vertex at a position of its own, the i16 extremes among them) and a delta frame whose
//! deltas run through -128..=127 and whose escapes land in every lane of a delta word, at both ends
//! of the frame and at the i16 extremes. The record then holds, for each probe, every decoded
//! coordinate (`x | y << 16`, then `z`, per vertex): the synthetic delta frame into word-aligned and
//! into half-word-aligned output (the console's asm loop and its Rust path), the raw frame, two
//! "Idle" frames sharing a payload; then the error and output hash of the delta frame with its last,
//! then its second escape pointing past the vertices.
use super::scene::SceneScratch;
use psxanim_runtime::tables::{delta_byte, delta_word_count, TableError, Tables, BAKED_DELTA_BIAS, FRAME_DELTA, FRAME_HEADER_SIZE, FRAME_RAW};

/// Cycle slots of the start-up bench: the slowest decode of every frame of every baked clip
/// (ticks), which frame it was (`clip << 16 | frame`), the slowest of the frames without escapes,
/// and the synthetic raw frame.
/// (After the crossfade bench, `scene::SLOT_FADE_BENCH` + `scene::FADE_BENCH_SLOTS` = 39.)
pub const SLOT_BAKED_BENCH: usize = 39;
pub const SLOT_BAKED_SLOWEST_FRAME: usize = SLOT_BAKED_BENCH + 1;
pub const SLOT_BAKED_NO_ESCAPES: usize = SLOT_BAKED_BENCH + 2;
pub const SLOT_BAKED_RAW: usize = SLOT_BAKED_BENCH + 3;

/// The synthetic delta frame's escapes: coordinates as offsets from 0 (non-negative) or from 3n
/// (negative), with their values.
/// An odd count, so that the console's loop takes its pairs and its last single one.
const ESCAPES: [(i32, i16); 9] = [(0, i16::MIN), (1, i16::MAX), (2, -1), (3, 0), (5, 1234), (6, -2048), (7, 77), (-2, 2047), (-1, 12345)];
/// Probes of `baked_path_words`: decodes of the synthetic delta frame (aligned, half-word aligned
/// output), the raw frame, and the two frames sharing a payload.
pub const PATH_PROBES: [&str; 5] = ["delta", "delta.unaligned", "raw", "shared.a", "shared.b"];
/// Escapes of the synthetic delta frame pointed one past the vertices, in turn: the last one (alone
/// in the console's loop) and the second one (the second of a pair).
pub const BAD_ESCAPES: [usize; 2] = [ESCAPES.len() - 1, 1];
/// Words after the probes, per `BAD_ESCAPES` entry: error code, error offset, hash of the output.
pub const ERROR_WORDS: usize = 3 * BAD_ESCAPES.len();

/// Puts the synthetic payloads into `bytes` (a copy of the baked blob): returns clip "Turn" and its
/// frames now holding the raw and the delta payload.
pub fn synthesize(bytes: &mut [u8]) -> Result<(usize, usize, usize), TableError> {
    let missing = TableError::ClipOutOfRange { clip: usize::MAX, clips: 0 };
    let (turn, raw_frame, delta_frame, payloads, n) = {
        let t = Tables::parse(bytes)?;
        let turn = t.find_clip("Turn").ok_or(missing)?;
        let clip = t.clip(turn)?;
        let at = |f: usize| clip.data_offset as usize + 4 * f;
        let offset = |f: usize| u32::from_le_bytes([bytes[at(f)], bytes[at(f) + 1], bytes[at(f) + 2], bytes[at(f) + 3]]) as usize;
        let n = t.vertex_count();
        // The raw frame overwrites the payloads after its own; the delta frame is one past them with
        // room for the escapes, and a delta frame.
        let raw_frame = 1;
        let raw_end = offset(raw_frame) + FRAME_HEADER_SIZE + 6 * n;
        let fits = |f: usize| {
            let p = offset(f);
            let escapes = u16::from_le_bytes([bytes[p + 2], bytes[p + 3]]) as usize;
            p >= raw_end && bytes[p] == FRAME_DELTA && escapes >= ESCAPES.len()
        };
        let delta_frame = (raw_frame + 1..clip.frame_count as usize).find(|&f| fits(f)).ok_or(missing)?;
        (turn, raw_frame, delta_frame, [offset(raw_frame), offset(delta_frame)], n)
    };
    let [raw, delta] = payloads;
    bytes[raw..raw + 4].copy_from_slice(&[FRAME_RAW, 0, 0, 0]);
    for c in 0..3 * n {
        let value = match c {
            0 => i16::MIN,
            1 => i16::MAX,
            _ => (c as i32 * 613 - 30_000) as i16,
        };
        bytes[raw + 4 + 2 * c..raw + 6 + 2 * c].copy_from_slice(&value.to_le_bytes());
    }
    bytes[delta + 2..delta + 4].copy_from_slice(&(ESCAPES.len() as u16).to_le_bytes());
    for c in 0..4 * delta_word_count(n) {
        let d = (c as i32 * 37) % 256 - BAKED_DELTA_BIAS;
        bytes[delta + FRAME_HEADER_SIZE + delta_byte(c)] = (d + BAKED_DELTA_BIAS) as u8;
    }
    let escapes = delta + FRAME_HEADER_SIZE + 4 * delta_word_count(n);
    for (e, (c, v)) in ESCAPES.iter().enumerate() {
        let c = if *c < 0 { 3 * n as i32 + c } else { *c } as u16;
        bytes[escapes + 4 * e..escapes + 4 * e + 2].copy_from_slice(&c.to_le_bytes());
        bytes[escapes + 4 * e + 2..escapes + 4 * e + 4].copy_from_slice(&v.to_le_bytes());
    }
    Ok((turn, raw_frame, delta_frame))
}

fn push_positions(p: &[[i16; 3]], push: &mut dyn FnMut(u32)) {
    for v in p {
        push(v[0] as u16 as u32 | (v[1] as u16 as u32) << 16);
        push(v[2] as u16 as u32);
    }
}

/// Two frames of "Idle" that share one payload.
fn shared_pair(t: &Tables) -> Option<(usize, usize, usize)> {
    let idle = t.find_clip("Idle")?;
    let clip = t.clip(idle).ok()?;
    let b = t.bytes();
    let offset = |f: usize| {
        let at = clip.data_offset as usize + 4 * f;
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    };
    let frames = clip.frame_count as usize;
    (0..frames).flat_map(|a| (a + 1..frames).map(move |b| (a, b))).find(|&(a, b)| offset(a) == offset(b)).map(|(a, b)| (idle, a, b))
}

/// The record words of the baked paths (module docs): `buffer` (word-aligned on the console) must
/// hold the baked blob; it is left damaged. On a failure to build the probes, one word: 0xBAD0 plus
/// the error code.
pub fn baked_path_words(baked: &[u8], buffer: &mut [u8], scratch: &mut SceneScratch, push: &mut dyn FnMut(u32)) {
    if let Err(e) = path_words(baked, buffer, scratch, push) {
        push(0xBAD0 + e.code());
    }
}

fn path_words(baked: &[u8], buffer: &mut [u8], scratch: &mut SceneScratch, push: &mut dyn FnMut(u32)) -> Result<(), TableError> {
    let short = TableError::OutputTooSmall { needed: baked.len(), len: buffer.len() };
    let bytes = buffer.get_mut(..baked.len()).ok_or(short)?;
    bytes.copy_from_slice(baked);
    let (turn, raw_frame, delta_frame) = synthesize(bytes)?;
    {
        let t = Tables::parse(bytes)?;
        let n = t.vertex_count();
        let (idle, a, b) = shared_pair(&t).ok_or(TableError::ClipOutOfRange { clip: usize::MAX, clips: 0 })?;
        for (clip, frame, skip) in [(turn, delta_frame, 0), (turn, delta_frame, 1), (turn, raw_frame, 0), (idle, a, 0), (idle, b, 0)] {
            let out = &mut scratch.positions[skip..skip + n];
            t.decode_baked_frame(clip, frame, out)?;
            push_positions(out, push);
        }
    }
    // One escape at a time one past the vertices.
    let (n, escapes) = {
        let t = Tables::parse(bytes)?;
        let clip = t.clip(turn)?;
        let at = clip.data_offset as usize + 4 * delta_frame;
        let p = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        (t.vertex_count(), p + FRAME_HEADER_SIZE + 4 * delta_word_count(t.vertex_count()))
    };
    for bad in BAD_ESCAPES {
        let at = escapes + 4 * bad;
        let good = [bytes[at], bytes[at + 1]];
        bytes[at..at + 2].copy_from_slice(&(3 * n as u16).to_le_bytes());
        let t = Tables::parse(bytes)?;
        let out = &mut scratch.positions[..n];
        match t.decode_baked_frame(turn, delta_frame, out) {
            Ok(()) => {
                push(0);
                push(0);
            }
            Err(e) => {
                push(e.code());
                push(e.offset().unwrap_or(0) as u32);
            }
        }
        let hash = out.iter().flatten().fold(0x811C_9DC5_u32, |h, &c| (h ^ c as u16 as u32).wrapping_mul(0x0100_0193));
        push(hash);
        bytes[at..at + 2].copy_from_slice(&good);
    }
    Ok(())
}

/// The mode byte and escape count of a frame's payload (`None` if the clip or frame is not there).
pub fn payload_header(t: &Tables, clip: usize, frame: usize) -> Option<(u8, u16)> {
    let c = t.clip(clip).ok()?;
    let b = t.bytes();
    let at = c.data_offset as usize + 4 * frame;
    let p = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize;
    let h = b.get(p..p + 4)?;
    Some((h[0], u16::from_le_bytes([h[2], h[3]])))
}
