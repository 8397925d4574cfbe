//! Encoder of the compact rigid pose samples (the format is documented in `psxanim_runtime::tables`,
//! next to its decoder).
//!
//! Each channel's precision comes from one quality knob `alpha` (GTE units): a bone's rotation and
//! scale steps are `alpha / reach`, where reach is the farthest vertex the bone moves, and translation
//! steps are `alpha`. The rigid compiler searches for the coarsest `alpha` whose decoded poses keep every
//! vertex within the error budget, so the budget is measured, not estimated.

use psxanim_runtime::tables::{
    CHANNELS_PER_BONE, CHANNEL_ANIMATED, CHANNEL_DESCRIPTOR_SIZE, COMPONENT_WIDTH_BITS, ROTATION_INDEX_BITS,
};

use crate::fbx::Trs;

/// Frames per random-access block.
pub const BLOCK_FRAMES: usize = 16;
/// Rotations may use the runtime's full Q30: a block turning past 180 degrees rebuilds its dropped
/// component near zero from a square root, which magnifies rounding; 26 bits left 1.2 GTE units on a
/// 1.4 m reach in `tests/fixtures/fbx/fast_turn.fbx`.
const MAX_ROTATION_BITS: i32 = 30;
const MAX_TRANSLATION_BITS: i32 = 8;
const MAX_SCALE_BITS: i32 = 16;

/// Least-significant-bit-first bit writer (the runtime's `BitReader` reads it back).
#[derive(Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    bits: usize,
}

impl BitWriter {
    pub fn write(&mut self, value: u64, width: u32) {
        for i in 0..width {
            if self.bits.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if (value >> i) & 1 != 0 {
                *self.bytes.last_mut().expect("pushed above") |= 1 << (self.bits % 8);
            }
            self.bits += 1;
        }
    }
    pub fn write_signed(&mut self, value: i64, width: u32) {
        self.write(value as u64 & mask(width), width);
    }
    pub fn bit_len(&self) -> usize {
        self.bits
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Bits needed to hold `v` in two's complement (0 for 0).
fn signed_bits(v: i64) -> u32 {
    if v == 0 {
        0
    } else if v > 0 {
        65 - v.leading_zeros()
    } else {
        65 - (!v).leading_zeros()
    }
}

/// One bone's parent-relative samples over a clip, and how far its farthest moved vertex reaches.
pub struct BoneTrack {
    pub samples: Vec<Trs>,
    /// GTE units from the bone's origin to the farthest vertex it moves (itself or its descendants).
    pub reach: f64,
}

struct Channel {
    animated: bool,
    k: u8,
    base_bits: u8,
    /// Per frame, the quantised components (4 for rotation, 3 otherwise).
    values: Vec<Vec<i64>>,
}

fn quantise(values: impl Iterator<Item = Vec<f64>>, k: i32) -> Vec<Vec<i64>> {
    let s = (k as f64).exp2();
    values.map(|v| v.iter().map(|c| (c * s).round() as i64).collect()).collect()
}

fn channel(values: Vec<Vec<i64>>, k: i32) -> Result<Channel, String> {
    let animated = values.iter().any(|v| *v != values[0]);
    let max_bits = values.iter().flatten().map(|v| signed_bits(*v)).max().unwrap_or(0).max(1);
    if max_bits > 32 {
        return Err(format!("a pose value needs {max_bits} bits (more than 32)"));
    }
    Ok(Channel { animated, k: k as u8, base_bits: max_bits as u8, values })
}

fn steps(alpha: f64, reach: f64) -> (i32, i32, i32) {
    let reach = reach.max(1.0);
    let k = |v: f64, lo: i32, hi: i32| (v.log2().ceil() as i32).clamp(lo, hi);
    (
        k(reach / alpha, 4, MAX_ROTATION_BITS),
        k(1.0 / alpha, 0, MAX_TRANSLATION_BITS),
        k(reach / alpha, 4, MAX_SCALE_BITS),
    )
}

/// The index of the component to drop for frames `range` (largest smallest magnitude, consistent sign)
/// and whether the block must be negated so that it is positive.
fn dropped_component(values: &[Vec<i64>]) -> (usize, bool) {
    let mut best = (0usize, false, -1i64);
    for c in 0..4 {
        let first = values[0][c];
        let same_sign = values.iter().all(|v| (v[c] >= 0) == (first >= 0));
        let smallest = values.iter().map(|v| v[c].abs()).min().unwrap_or(0);
        let score = if same_sign { smallest } else { -1 };
        if score > best.2 {
            best = (c, first < 0, score);
        }
    }
    (best.0, best.1)
}

fn write_component(w: &mut BitWriter, base_bits: u8, v: &[i64]) -> Result<(), String> {
    let d1 = if v.len() >= 2 { v[1] - v[0] } else { 0 };
    let residuals: Vec<i64> = (2..v.len()).map(|i| (v[i] - v[i - 1]) - (v[i - 1] - v[i - 2])).collect();
    let wb = signed_bits(d1);
    let wr = residuals.iter().map(|r| signed_bits(*r)).max().unwrap_or(0);
    if wb >= 1 << COMPONENT_WIDTH_BITS || wr >= 1 << COMPONENT_WIDTH_BITS {
        return Err(format!("a pose delta needs {} bits (at most 31)", wb.max(wr)));
    }
    w.write(wb as u64, COMPONENT_WIDTH_BITS);
    w.write(wr as u64, COMPONENT_WIDTH_BITS);
    w.write_signed(v[0], base_bits as u32);
    if v.len() >= 2 {
        w.write_signed(d1, wb);
    }
    for r in residuals {
        w.write_signed(r, wr);
    }
    Ok(())
}

/// Writes one channel's frames `range` (all of them for a constant channel, as one value).
fn write_channel(w: &mut BitWriter, ch: &Channel, rotation: bool, range: std::ops::Range<usize>) -> Result<(), String> {
    let mut frames: Vec<Vec<i64>> = ch.values[range].to_vec();
    let components: Vec<usize> = if rotation {
        let (drop, negate) = dropped_component(&frames);
        if negate {
            frames.iter_mut().flatten().for_each(|c| *c = -*c);
        }
        w.write(drop as u64, ROTATION_INDEX_BITS);
        (0..4).filter(|c| *c != drop).collect()
    } else {
        (0..3).collect()
    };
    for c in components {
        let column: Vec<i64> = frames.iter().map(|f| f[c]).collect();
        if ch.animated {
            write_component(w, ch.base_bits, &column)?;
        } else {
            w.write_signed(column[0], ch.base_bits as u32);
        }
    }
    Ok(())
}

/// Encodes the pose data of one clip (header, descriptors, block offsets, stream) at quality `alpha`.
pub fn encode_clip(tracks: &[BoneTrack], frame_count: usize, alpha: f64) -> Result<Vec<u8>, String> {
    let mut channels = Vec::new();
    for t in tracks {
        let (kr, kt, ks) = steps(alpha, t.reach);
        // Constant detection compares quantised values, so a rotation held to within a step is constant.
        let rot = quantise(t.samples.iter().map(|s| s.rotation.to_vec()), kr);
        channels.push(channel(rot, kr)?);
        channels.push(channel(quantise(t.samples.iter().map(|s| s.translation.to_vec()), kt), kt)?);
        channels.push(channel(quantise(t.samples.iter().map(|s| s.scale.to_vec()), ks), ks)?);
    }
    let mut w = BitWriter::default();
    for (i, ch) in channels.iter().enumerate() {
        if !ch.animated {
            let mut constant =
                Channel { animated: false, k: ch.k, base_bits: ch.base_bits, values: vec![ch.values[0].clone()] };
            if i % CHANNELS_PER_BONE == 0 {
                // A constant rotation drops its largest component.
                let v = &ch.values[0];
                let largest = (0..4).max_by_key(|c| v[*c].abs()).unwrap_or(3);
                let sign = if v[largest] < 0 { -1 } else { 1 };
                constant.values = vec![v.iter().map(|c| c * sign).collect()];
            }
            write_channel(&mut w, &constant, i % CHANNELS_PER_BONE == 0, 0..1)?;
        }
    }
    let blocks = frame_count.div_ceil(BLOCK_FRAMES);
    let mut block_offsets = Vec::with_capacity(blocks);
    for b in 0..blocks {
        block_offsets.push(w.bit_len() as u32);
        let range = b * BLOCK_FRAMES..((b + 1) * BLOCK_FRAMES).min(frame_count);
        for (i, ch) in channels.iter().enumerate() {
            if ch.animated {
                write_channel(&mut w, ch, i % CHANNELS_PER_BONE == 0, range.clone())?;
            }
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&(BLOCK_FRAMES as u16).to_le_bytes());
    out.extend_from_slice(&(blocks as u16).to_le_bytes());
    for ch in &channels {
        let mut d = [0u8; CHANNEL_DESCRIPTOR_SIZE];
        d[0] = if ch.animated { CHANNEL_ANIMATED } else { 0 };
        d[1] = ch.k;
        d[2] = ch.base_bits;
        out.extend_from_slice(&d);
    }
    for o in block_offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&w.into_bytes());
    Ok(out)
}

/// Makes consecutive rotations take the short way (q and -q are the same rotation), so deltas stay small.
pub fn make_continuous(samples: &mut [Trs]) {
    for i in 1..samples.len() {
        let prev = samples[i - 1].rotation;
        let q = &mut samples[i].rotation;
        if (0..4).map(|c| prev[c] * q[c]).sum::<f64>() < 0.0 {
            q.iter_mut().for_each(|c| *c = -*c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxanim_runtime::tables::BitReader;

    #[test]
    fn bit_writer_matches_the_runtime_reader() {
        let mut w = BitWriter::default();
        let values: [(i64, u32); 6] = [(3, 3), (-4, 3), (0, 0), (-70000, 18), (-1, 1), (i32::MIN as i64, 32)];
        for (v, width) in values {
            w.write_signed(v, width);
        }
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes, 0, 0);
        for (v, width) in values {
            assert_eq!(r.read_signed(width).unwrap() as i64, v, "{v}/{width}");
        }
    }

    #[test]
    fn signed_bit_counts() {
        assert_eq!(signed_bits(0), 0);
        assert_eq!(signed_bits(1), 2);
        assert_eq!(signed_bits(-1), 1);
        assert_eq!(signed_bits(127), 8);
        assert_eq!(signed_bits(-128), 8);
        assert_eq!(signed_bits(128), 9);
    }
}
