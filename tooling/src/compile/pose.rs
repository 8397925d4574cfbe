//! Encoder of the compact rigid pose samples (the format is documented in `psxanim_runtime::tables`,
//! next to its decoder).
//!
//! Each channel's precision comes from one quality knob `alpha` (GTE units): a bone's rotation and
//! scale steps are `alpha / reach`, where reach is the farthest vertex the bone moves, and translation
//! steps are `alpha`. The rigid compiler searches for the coarsest `alpha` whose decoded poses keep every
//! vertex within the error budget, so the budget is measured, not estimated.
//!
//! A block stores a rotation as three components and rebuilds the fourth as a positive square root,
//! so one component must keep its sign over the whole block (q and -q are the same rotation: the
//! block may be negated). About a fixed axis x, y, z follow sin(angle / 2) and w cos(angle / 2), so a
//! block turning 180 degrees or more (a fast spin about a tilted axis) can have every component change
//! sign. Such a block negates single frames instead (the deltas jump there; the runtime's blending
//! already takes the short way between any two samples), and the compiler weighs that against fewer
//! frames per block for the clip ([`PoseData::sign_flips`]).

use psxanim_runtime::tables::{
    block_count_of, CHANNELS_PER_BONE, CHANNEL_ANIMATED, CHANNEL_IDENTITY, CHANNEL_NARROW, CHANNEL_DESCRIPTOR_SIZE, ROTATION_STORED_FRAC, SCALE_FRAC,
    TRANSLATION_FRAC, WIDTHS_DROPPED_SHIFT, WIDTHS_RESIDUAL_SHIFT, WIDTH_BITS,
};

use crate::fbx::Trs;

/// Frames per random-access block the compiler tries first; fast turns get fewer (the format allows
/// 1..=256 per clip; more would lengthen the console's random access, which decodes up to B values).
pub const MAX_BLOCK_FRAMES: usize = 16;
/// Rotations are stored in at most Q14 (the player keeps them in halfwords). A block turning past 180
/// degrees would rebuild its dropped component near zero from a square root, which magnifies rounding:
/// such clips get smaller blocks (see `encode_pose_clip`).
const MAX_ROTATION_BITS: i32 = ROTATION_STORED_FRAC as i32;
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
            if self.bits % 8 == 0 {
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
    /// A constant's descriptor flags (identity, narrow).
    flags: u8,
    k: u8,
    base_bits: u8,
    /// Per frame, the quantised components (4 for rotation, 3 otherwise).
    values: Vec<Vec<i64>>,
}

fn quantise(values: impl Iterator<Item = Vec<f64>>, k: i32) -> Vec<Vec<i64>> {
    let s = (k as f64).exp2();
    values.map(|v| v.iter().map(|c| (c * s).round() as i64).collect()).collect()
}

/// `rotation`: a block may be stored negated, and -v can need one bit more than v (v = -2^n).
fn channel(values: Vec<Vec<i64>>, k: i32, rotation: bool) -> Result<Channel, String> {
    let animated = values.iter().any(|v| *v != values[0]);
    let bits = |v: i64| if rotation { signed_bits(v).max(signed_bits(-v)) } else { signed_bits(v) };
    let max_bits = values.iter().flatten().map(|v| bits(*v)).max().unwrap_or(0).max(1);
    if max_bits > 32 {
        return Err(format!("a pose value needs {max_bits} bits (more than 32)"));
    }
    Ok(Channel { animated, flags: 0, k: k as u8, base_bits: max_bits as u8, values })
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

/// How a block stores a rotation: the component it drops and, per frame, whether the quaternion is
/// stored negated (the same rotation) so that the dropped component is positive.
struct Dropped {
    component: usize,
    negated: Vec<bool>,
}

impl Dropped {
    /// Frames stored with the other sign than the frame before them (jumps the deltas must carry).
    fn sign_flips(&self) -> usize {
        self.negated.windows(2).filter(|w| w[0] != w[1]).count()
    }
}

/// The component to drop over a block's frames: of those keeping one sign in every frame (zero allowed),
/// the one staying farthest from zero, the block negated as a whole if that sign is negative. When every
/// component changes sign (a block turning 180 degrees or more), the one staying farthest from zero at
/// the samples, each frame negated where it is negative: the deltas then jump where the sign flips.
fn dropped_component(values: &[Vec<i64>]) -> Dropped {
    let smallest = |c: usize| values.iter().map(|v| v[c].abs()).min().unwrap_or(0);
    let mut best: Option<(usize, bool, i64)> = None;
    for c in 0..4 {
        let positive = values.iter().all(|v| v[c] >= 0);
        let negative = values.iter().all(|v| v[c] <= 0);
        if (positive || negative) && best.is_none_or(|b| smallest(c) > b.2) {
            best = Some((c, !positive, smallest(c)));
        }
    }
    // A component keeping its sign but passing near zero rebuilds imprecisely (a halfword's rounding
    // grows by 1 / (2 * component)): below 0.3, a component changing sign but staying far from zero
    // (stored negated on the frames where it is negative) is the better choice.
    let unit = values.iter().map(|v| v.iter().map(|c| (c * c) as f64).sum::<f64>().sqrt()).fold(0.0, f64::max);
    if let Some((component, negate, _)) = best.filter(|b| b.2 as f64 >= 0.3 * unit) {
        return Dropped { component, negated: vec![negate; values.len()] };
    }
    if let Some((component, negate, _)) = best.filter(|b| (0..4).all(|c| smallest(c) <= b.2)) {
        return Dropped { component, negated: vec![negate; values.len()] };
    }
    let component = (0..4).rev().max_by_key(|c| smallest(*c)).unwrap_or(0);
    Dropped { component, negated: values.iter().map(|v| v[component] < 0).collect() }
}

/// One animated component's fields in a block: its first value, first difference and second
/// differences, and the widths of the latter two (a rotation's arithmetic wraps at 16 bits, as the
/// player keeps it in halfwords).
struct ComponentFields {
    base: i64,
    d1: i64,
    residuals: Vec<i64>,
    wb: u32,
    wr: u32,
}

fn component_fields(v: &[i64], rotation: bool) -> Result<ComponentFields, String> {
    let wrap = |x: i64| if rotation { x as i16 as i64 } else { x as i32 as i64 };
    let d1 = if v.len() >= 2 { wrap(v[1] - v[0]) } else { 0 };
    let residuals: Vec<i64> = (2..v.len()).map(|i| wrap((v[i] - v[i - 1]) - (v[i - 1] - v[i - 2]))).collect();
    let wb = signed_bits(d1);
    let wr = residuals.iter().map(|r| signed_bits(*r)).max().unwrap_or(0);
    if wb > MAX_DELTA_BITS || wr > MAX_DELTA_BITS {
        return Err(format!("a pose delta needs {} bits (at most {MAX_DELTA_BITS})", wb.max(wr)));
    }
    Ok(ComponentFields { base: v[0], d1, residuals, wb, wr })
}

/// Widest first or second difference (a 5-bit width field).
const MAX_DELTA_BITS: u32 = 31;

/// One animated channel over one block: its three stored components' fields and a rotation's
/// dropped component; the rotation's sign flips within the block.
struct BlockChannel {
    components: Vec<ComponentFields>,
    dropped: usize,
    flips: usize,
}

fn block_channel(ch: &Channel, rotation: bool, range: std::ops::RangeInclusive<usize>) -> Result<BlockChannel, String> {
    let mut frames: Vec<Vec<i64>> = ch.values[range].to_vec();
    let (mut dropped, mut flips) = (0, 0);
    let components: Vec<usize> = if rotation {
        let d = dropped_component(&frames);
        for (f, negated) in frames.iter_mut().zip(&d.negated) {
            if *negated {
                f.iter_mut().for_each(|c| *c = -*c);
            }
        }
        (dropped, flips) = (d.component, d.sign_flips());
        (0..4).filter(|c| *c != d.component).collect()
    } else {
        (0..3).collect()
    };
    let components = components
        .into_iter()
        .map(|c| component_fields(&frames.iter().map(|f| f[c]).collect::<Vec<_>>(), rotation))
        .collect::<Result<_, _>>()?;
    Ok(BlockChannel { components, dropped, flips })
}

/// One clip's pose data, and how many times a rotation changes sign between two frames of a block.
pub struct PoseData {
    pub bytes: Vec<u8>,
    pub sign_flips: usize,
}

/// Encodes the pose data of one clip (header, descriptors, constants, block offsets, widths, stream;
/// layout in `psxanim_runtime::tables::pose`) in blocks of `block_frames` (1..=256) at quality
/// `alpha`. Fails when a value or a delta does not fit the format (a sign flip within a block makes
/// wide deltas: a smaller block may fit).
pub fn encode_clip(
    tracks: &[BoneTrack],
    frame_count: usize,
    block_frames: usize,
    alpha: f64,
) -> Result<PoseData, String> {
    if !(1..=256).contains(&block_frames) {
        return Err(format!("block frames {block_frames} outside 1..=256"));
    }
    if frame_count == 0 || tracks.iter().any(|t| t.samples.len() < frame_count) {
        return Err("a clip needs a sample of every bone at every frame".into());
    }
    let mut channels = Vec::new();
    let mut constants = Vec::new();
    for t in tracks {
        let (kr, kt, ks) = steps(alpha, t.reach);
        // Constant detection compares quantised values, so a rotation held to within a step is constant.
        // Stored rotation components are halfwords (1.0 at Q15 is clamped to 32767/32768).
        let rot: Vec<Vec<i64>> = quantise(t.samples.iter().map(|s| s.rotation.to_vec()), kr)
            .into_iter()
            .map(|q| q.into_iter().map(|c| c.clamp(-32767, 32767)).collect())
            .collect();
        let parts = [
            (channel(rot, kr, true)?, ROTATION_STORED_FRAC as i32),
            (channel(quantise(t.samples.iter().map(|s| s.translation.to_vec()), kt), kt, false)?, TRANSLATION_FRAC as i32),
            (channel(quantise(t.samples.iter().map(|s| s.scale.to_vec()), ks), ks, false)?, SCALE_FRAC as i32),
        ];
        for (kind, (ch, frac)) in parts.into_iter().enumerate() {
            if !ch.animated {
                // Stored at the runtime's own precision, from the first sample: nothing for an identity,
                // halfwords at the channel's precision when they hold it.
                let s = &t.samples[0];
                let v: &[f64] = match kind {
                    0 => &s.rotation,
                    1 => &s.translation,
                    _ => &s.scale,
                };
                let identity: &[f64] = match kind {
                    0 => &[0.0, 0.0, 0.0, 1.0],
                    1 => &[0.0; 3],
                    _ => &[1.0; 3],
                };
                let at = |f: i32| v.iter().map(move |c| (c * (f as f64).exp2()).round() as i64);
                let mut flags = 0;
                if at(frac).eq(identity.iter().map(|c| (c * (frac as f64).exp2()).round() as i64)) {
                    flags = CHANNEL_IDENTITY;
                } else if kind == 0 {
                    at(frac).for_each(|c| constants.extend_from_slice(&(c.clamp(-32767, 32767) as i16).to_le_bytes()));
                } else if at(ch.k as i32).all(|c| i16::try_from(c).is_ok()) {
                    flags = CHANNEL_NARROW;
                    at(ch.k as i32).for_each(|c| constants.extend_from_slice(&(c as i16).to_le_bytes()));
                    constants.extend_from_slice(&[0, 0]);
                } else {
                    for c in at(frac) {
                        let c = i32::try_from(c).map_err(|_| format!("a constant pose value {c} does not fit 32 bits"))?;
                        constants.extend_from_slice(&c.to_le_bytes());
                    }
                }
                channels.push(Channel { flags, ..ch });
                continue;
            }
            channels.push(ch);
        }
    }
    let animated: Vec<usize> = (0..channels.len()).filter(|i| channels[*i].animated).collect();
    let blocks = block_count_of(frame_count, block_frames);
    let mut w = BitWriter::default();
    let (mut block_offsets, mut widths) = (Vec::with_capacity(blocks), Vec::new());
    let mut sign_flips = 0;
    for b in 0..blocks {
        block_offsets.push(w.bit_len() as u32);
        let range = b * block_frames..=((b + 1) * block_frames).min(frame_count - 1);
        let n = range.end() - range.start() + 1;
        let mut fields = Vec::with_capacity(animated.len());
        for &i in &animated {
            let bc = block_channel(&channels[i], i % CHANNELS_PER_BONE == 0, range.clone())?;
            sign_flips += bc.flips;
            let mut word = (bc.dropped as u32) << WIDTHS_DROPPED_SHIFT;
            for (c, f) in bc.components.iter().enumerate() {
                word |= f.wb << (WIDTH_BITS * c as u32) | f.wr << (WIDTHS_RESIDUAL_SHIFT + WIDTH_BITS * c as u32);
            }
            widths.extend_from_slice(&word.to_le_bytes());
            fields.push((channels[i].base_bits, bc));
        }
        for (base_bits, bc) in &fields {
            bc.components.iter().for_each(|f| w.write_signed(f.base, *base_bits as u32));
        }
        if n >= 2 {
            for (_, bc) in &fields {
                bc.components.iter().for_each(|f| w.write_signed(f.d1, f.wb));
            }
        }
        for r in 0..n.saturating_sub(2) {
            for (_, bc) in &fields {
                bc.components.iter().for_each(|f| w.write_signed(f.residuals[r], f.wr));
            }
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&(block_frames as u16).to_le_bytes());
    out.extend_from_slice(&(blocks as u16).to_le_bytes());
    out.extend_from_slice(&(animated.len() as u16).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    for ch in &channels {
        let mut d = [0u8; CHANNEL_DESCRIPTOR_SIZE];
        d[0] = if ch.animated { CHANNEL_ANIMATED } else { ch.flags };
        d[1] = ch.k;
        d[2] = ch.base_bits;
        out.extend_from_slice(&d);
    }
    out.extend_from_slice(&constants);
    for o in block_offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&widths);
    out.extend_from_slice(&w.into_bytes());
    Ok(PoseData { bytes: out, sign_flips })
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
    fn the_dropped_component_keeps_one_sign_over_the_block_and_stays_farthest_from_zero() {
        let v = |rows: &[[i64; 4]]| rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
        let of = |d: Dropped| (d.component, d.sign_flips(), d.negated);
        // x keeps its sign (smallest 2), z is zero throughout (smallest 0), y and w change sign.
        assert_eq!(of(dropped_component(&v(&[[3, -1, 0, 5], [2, 1, 0, -4]]))), (0, 0, vec![false, false]));
        assert_eq!(of(dropped_component(&v(&[[-3, 1, 0, 5], [-2, -1, 0, -4]]))), (0, 0, vec![true, true]));
        // Zero belongs to either sign: 0 then -5 is stored negated.
        assert_eq!(of(dropped_component(&v(&[[0, 1, 0, 9], [-5, -1, 1, 9]]))), (3, 0, vec![false, false]));
        // A component keeping its sign near zero (x: 0) is worse than one changing sign far from it
        // (w: 4 and 5, stored with w positive).
        assert_eq!(of(dropped_component(&v(&[[0, 1, 0, 5], [-5, -1, 1, -4]]))), (3, 1, vec![false, true]));
        // Every component changes sign: the one farthest from zero at the samples (w: 4), each frame
        // stored with it positive.
        let turning = v(&[[1, -2, 1, 5], [-1, 2, -3, -4], [-2, 3, 1, 6]]);
        assert_eq!(of(dropped_component(&turning)), (3, 2, vec![false, true, false]));
    }

    #[test]
    fn a_rotation_base_is_wide_enough_for_its_negation() {
        // -4 fits 3 bits; a negated block stores 4, which needs 4.
        let rotation = channel(vec![vec![-4, 1, 0, 2], vec![-3, 2, 0, 2]], 3, true).unwrap();
        assert_eq!(rotation.base_bits, 4);
        let translation = channel(vec![vec![-4, 1, 0], vec![-3, 2, 0]], 3, false).unwrap();
        assert_eq!(translation.base_bits, 3);
    }

    #[test]
    fn a_spin_too_fast_for_its_blocks_flips_signs_within_them_and_not_in_smaller_ones() {
        // 45 degrees a frame about a tilted axis: 16 frames turn the half-angle through 337 degrees.
        let axis = [0.7, 0.7, 0.2f64];
        let n = axis.iter().map(|c| c * c).sum::<f64>().sqrt();
        let samples = (0..16)
            .map(|f| {
                let (s, c) = (f as f64 * 45f64.to_radians() / 2.0).sin_cos();
                Trs {
                    translation: [0.0; 3],
                    rotation: [axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, c],
                    scale: [1.0; 3],
                }
            })
            .collect();
        let tracks = [BoneTrack { samples, reach: 4096.0 }];
        assert!(encode_clip(&tracks, 16, 16, 1.0).unwrap().sign_flips > 0);
        let small = encode_clip(&tracks, 16, 2, 1.0).unwrap();
        assert_eq!(small.sign_flips, 0);
        assert_eq!(u16::from_le_bytes([small.bytes[0], small.bytes[1]]), 2);
        assert_eq!(u16::from_le_bytes([small.bytes[2], small.bytes[3]]), 8);
        assert!(encode_clip(&tracks, 16, 257, 1.0).is_err());
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
