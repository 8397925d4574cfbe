//! Sampling glTF animation channels at the import rate.
//!
//! - STEP holds a key's value until the next key; LINEAR interpolates (rotations by shortest-path
//!   slerp); CUBICSPLINE evaluates the Hermite spline of each key's (in-tangent, value, out-tangent)
//!   triple, the tangents scaled by the key interval, rotations normalised after.
//! - Before its first key a channel holds the first value, after its last key the last one.
//! - A clip spans its channels' keys, first to last; it is sampled at `rate` Hz from its start, the
//!   last sample at its end.
//! - What resampling loses is reported: keys between samples (their exact values are not stored),
//!   STEP changes between samples (moved to the next sample) and cubic curves (the console
//!   interpolates linearly between samples).

use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation, Property};

use super::buffers::{Expect, Source, FLOAT};
use super::nodes::Override;
use super::GltfError;
use crate::model::Quat;

/// The part of a node a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Translation,
    Rotation,
    Scale,
}

pub struct Channel {
    pub node: usize,
    pub path: Path,
    pub interpolation: Interpolation,
    pub times: Vec<f64>,
    /// Per key: 3 or 4 numbers, or for CUBICSPLINE 3 times that (in-tangent, value, out-tangent).
    pub values: Vec<f64>,
}

/// One glTF animation, ready to sample.
pub struct Animation {
    pub name: String,
    pub channels: Vec<Channel>,
    /// Nodes whose morph target weights it animates.
    pub morph_nodes: Vec<usize>,
    pub begin: f64,
    pub end: f64,
}

const ROTATION_TYPES: &[(DataType, Option<bool>)] =
    &[FLOAT, (DataType::I8, Some(true)), (DataType::U8, Some(true)), (DataType::I16, Some(true)), (DataType::U16, Some(true))];

/// Reads every animation of the document.
pub fn animations(src: &Source, names: &[String]) -> Result<Vec<Animation>, GltfError> {
    let mut out = Vec::new();
    for anim in src.doc.animations() {
        let name = anim.name().map(str::to_string).unwrap_or_else(|| format!("Animation{}", anim.index()));
        let mut channels = Vec::new();
        let mut morph_nodes = Vec::new();
        let (mut begin, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
        for (ci, channel) in anim.channels().enumerate() {
            // In range: checked when the file was parsed (`buffers::parse`).
            let node = channel.target().node().index();
            let bad = |message: String| GltfError::Channel {
                path: src.path.clone(),
                animation: name.clone(),
                channel: ci,
                node: names[node].clone(),
                message,
            };
            let path = match channel.target().property() {
                Property::Translation => Path::Translation,
                Property::Rotation => Path::Rotation,
                Property::Scale => Path::Scale,
                Property::MorphTargetWeights => {
                    morph_nodes.push(node);
                    continue;
                }
            };
            let sampler = channel.sampler();
            let usage = format!("{path:?} keys of animation '{name}' channel {ci}, node '{}'", names[node]);
            let times = src.read(
                &sampler.input(),
                &Expect { usage: format!("times of {usage}"), dimensions: &[Dimensions::Scalar], types: &[FLOAT] },
            )?;
            let (dims, types): (&'static [Dimensions], _) = match path {
                Path::Rotation => (&[Dimensions::Vec4], ROTATION_TYPES),
                _ => (&[Dimensions::Vec3], &[FLOAT][..]),
            };
            let values = src.read(&sampler.output(), &Expect { usage: format!("values of {usage}"), dimensions: dims, types })?;
            let n = if path == Path::Rotation { 4 } else { 3 };
            let per_key = if sampler.interpolation() == Interpolation::CubicSpline { 3 * n } else { n };
            if times.is_empty() {
                return Err(bad("has no keys; expected at least one".into()));
            }
            if values.len() != times.len() * per_key {
                return Err(bad(format!(
                    "has {} keys but {} output values; expected {} ({:?} interpolation)",
                    times.len(),
                    values.len() / n,
                    times.len() * per_key / n,
                    sampler.interpolation()
                )));
            }
            if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
                return Err(bad(format!("key times must increase; key {} is at {} s after {} s", k + 1, times[k + 1], times[k])));
            }
            if times[0] < 0.0 {
                return Err(bad(format!("key 0 is at {} s; expected times of 0 or more", times[0])));
            }
            begin = begin.min(times[0]);
            end = end.max(times[times.len() - 1]);
            channels.push(Channel { node, path, interpolation: sampler.interpolation(), times, values });
        }
        if channels.is_empty() {
            begin = 0.0;
            end = 0.0;
        }
        out.push(Animation { name, channels, morph_nodes, begin, end });
    }
    Ok(out)
}

impl Channel {
    fn width(&self) -> usize {
        if self.path == Path::Rotation { 4 } else { 3 }
    }

    /// The key's value (the middle of a cubic triple).
    fn value(&self, k: usize) -> &[f64] {
        let n = self.width();
        match self.interpolation {
            Interpolation::CubicSpline => &self.values[k * 3 * n + n..k * 3 * n + 2 * n],
            _ => &self.values[k * n..k * n + n],
        }
    }

    /// The channel's value at `time`.
    pub fn sample(&self, time: f64) -> Vec<f64> {
        let n = self.width();
        let last = self.times.len() - 1;
        if time <= self.times[0] {
            return self.finish(self.value(0).to_vec());
        }
        if time >= self.times[last] {
            return self.finish(self.value(last).to_vec());
        }
        let k = self.times.partition_point(|t| *t <= time) - 1;
        let dt = self.times[k + 1] - self.times[k];
        let s = (time - self.times[k]) / dt;
        let out = match self.interpolation {
            Interpolation::Step => self.value(k).to_vec(),
            Interpolation::Linear if self.path == Path::Rotation => {
                let q = |v: &[f64]| Quat::new(v[3], v[0], v[1], v[2]).normalized();
                let r = q(self.value(k)).slerp(q(self.value(k + 1)), s);
                vec![r.x, r.y, r.z, r.w]
            }
            Interpolation::Linear => {
                let (a, b) = (self.value(k), self.value(k + 1));
                (0..n).map(|c| a[c] + (b[c] - a[c]) * s).collect()
            }
            Interpolation::CubicSpline => {
                let key = |k: usize, part: usize| &self.values[k * 3 * n + part * n..k * 3 * n + (part + 1) * n];
                let (v0, b0, a1, v1) = (key(k, 1), key(k, 2), key(k + 1, 0), key(k + 1, 1));
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                (0..n).map(|c| h00 * v0[c] + h10 * dt * b0[c] + h01 * v1[c] + h11 * dt * a1[c]).collect()
            }
        };
        self.finish(out)
    }

    /// Rotations normalised.
    fn finish(&self, mut v: Vec<f64>) -> Vec<f64> {
        if self.path == Path::Rotation {
            let q = Quat::new(v[3], v[0], v[1], v[2]).normalized();
            v = vec![q.x, q.y, q.z, q.w];
        }
        v
    }
}

impl Animation {
    /// Every node's animated parts at `time`.
    pub fn overrides(&self, node_count: usize, time: f64) -> Vec<Override> {
        let mut out = vec![Override::default(); node_count];
        for c in &self.channels {
            let v = c.sample(time);
            let o = &mut out[c.node];
            match c.path {
                Path::Translation => o.translation = Some([v[0], v[1], v[2]]),
                Path::Rotation => o.rotation = Some([v[0], v[1], v[2], v[3]]),
                Path::Scale => o.scale = Some([v[0], v[1], v[2]]),
            }
        }
        out
    }

    /// What sampling at `rate` Hz from `begin` loses, one sentence each (empty: nothing).
    pub fn losses(&self, rate: u32, names: &[String]) -> Vec<String> {
        let on_sample = |t: f64| {
            let f = (t - self.begin) * rate as f64;
            (f - f.round()).abs() < 1e-4
        };
        let mut out = Vec::new();
        let (mut between, mut total, mut first) = (0usize, 0usize, None);
        for c in &self.channels {
            for &t in &c.times {
                total += 1;
                if !on_sample(t) {
                    between += 1;
                    first.get_or_insert((c.node, c.path, t, c.interpolation));
                }
            }
        }
        if let Some((node, path, t, interpolation)) = first {
            let what = if interpolation == Interpolation::Step { "STEP changes move to the next sample" } else { "their exact values are not stored" };
            out.push(format!(
                "clip '{}': {between} of {total} keys fall between the {rate} Hz samples (first: node '{}' {path:?} at {t:.4} s); {what}",
                self.name, names[node]
            ));
        }
        let cubic = self.channels.iter().filter(|c| c.interpolation == Interpolation::CubicSpline).count();
        if cubic > 0 {
            out.push(format!(
                "clip '{}': {cubic} cubic-spline channel(s) sampled at {rate} Hz; the console interpolates linearly between samples",
                self.name
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(path: Path, interpolation: Interpolation, times: &[f64], values: &[f64]) -> Channel {
        Channel { node: 0, path, interpolation, times: times.to_vec(), values: values.to_vec() }
    }

    #[test]
    fn step_holds_linear_interpolates_and_ends_hold() {
        let step = channel(Path::Translation, Interpolation::Step, &[0.0, 1.0], &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0]);
        assert_eq!(step.sample(0.99), [0.0, 0.0, 0.0]);
        assert_eq!(step.sample(1.0), [2.0, 4.0, 6.0]);
        let linear = channel(Path::Translation, Interpolation::Linear, &[1.0, 3.0], &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0]);
        assert_eq!(linear.sample(2.0), [1.0, 2.0, 3.0]);
        assert_eq!(linear.sample(0.0), [0.0, 0.0, 0.0]);
        assert_eq!(linear.sample(9.0), [2.0, 4.0, 6.0]);
    }

    #[test]
    fn linear_rotation_is_a_slerp() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        // 0 to 90 degrees about Y: halfway is 45 degrees.
        let c = channel(Path::Rotation, Interpolation::Linear, &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h]);
        let q = c.sample(0.5);
        let half = (std::f64::consts::PI / 8.0).sin();
        assert!((q[1] - half).abs() < 1e-12 && (q[3] - (std::f64::consts::PI / 8.0).cos()).abs() < 1e-12, "{q:?}");
    }

    #[test]
    fn cubic_spline_is_the_hermite_curve_with_tangents_scaled_by_the_interval() {
        // One component x(t) = t^2 on keys 0 and 2 s: values 0 and 4, slopes 0 and 4 (tangents per second).
        let key = |a: f64, v: f64, b: f64| [a, 0.0, 0.0, v, 0.0, 0.0, b, 0.0, 0.0];
        let values: Vec<f64> = key(9.0, 0.0, 0.0).into_iter().chain(key(4.0, 4.0, 9.0)).collect();
        let c = channel(Path::Translation, Interpolation::CubicSpline, &[0.0, 2.0], &values);
        for t in [0.25, 0.5, 1.0, 1.5] {
            assert!((c.sample(t)[0] - t * t).abs() < 1e-12, "{t}: {:?}", c.sample(t));
        }
        // The in-tangent of the first key and the out-tangent of the last play no part.
        assert_eq!(c.sample(2.0)[0], 4.0);
    }

    #[test]
    fn cubic_rotations_come_out_normalised() {
        let values = [0.0, 0.0, 0.0, 0.0, /* value */ 0.0, 0.0, 0.0, 1.0, /* out */ 0.0, 3.0, 0.0, 0.0,
            /* in */ 0.0, 3.0, 0.0, 0.0, /* value */ 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let c = channel(Path::Rotation, Interpolation::CubicSpline, &[0.0, 1.0], &values);
        let q = c.sample(0.5);
        let n: f64 = q.iter().map(|v| v * v).sum();
        assert!((n - 1.0).abs() < 1e-12, "{q:?}");
    }
}
