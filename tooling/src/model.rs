//! The canonical animation model: every format reads into it and writes from it.
//!
//! Times are kept in the unit of the clip (`TimeUnit`), values as `f64` so that every stored number of
//! every format (FP12 integers, `f32`, `s16`) converts in and out exactly. Keys stay in file order;
//! consumers that need time order sort (see [`Track::sorted_rotation`]).
//!
//! Where a format needs bit-exact round trips beyond what the values carry (the `.ani` rotation words,
//! the `.panim` Euler angles, ANIMBIN fixed-point words), a key keeps its stored words in
//! [`RotationKey::stored`]; writers reuse them only while the key still decodes to the same value, so an
//! edited key is re-encoded and an untouched one is not.

use std::fmt;

/// Which file format a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Animbin,
    MpAnim,
    Ani,
    Panim,
}

impl Format {
    /// The name used in the JSON document and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Animbin => "animbin",
            Format::MpAnim => "mp-anim",
            Format::Ani => "ani",
            Format::Panim => "panim",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The unit of every time of a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Integer frames (ANIMBIN vsync ticks, `.panim` game frames).
    Frame,
    /// Milliseconds (`.ani`).
    Ms,
    /// Seconds (Metroid Prime ANIM).
    S,
}

impl TimeUnit {
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Frame => "frame",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }
}

/// A whole file: one or more clips.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    pub format: Format,
    /// The file's own version field (ANIMBIN 1, ANIM 0 or 2, `.ani` 4000..4002, `.panim` 0).
    pub version: u32,
    pub clips: Vec<Clip>,
    /// What the reader accepted the way the original loader does but a writer would not write: a
    /// `.panim` node byte that disagrees with its index table, ANIMBIN bytes after the last animation.
    /// One sentence each, naming the offset.
    pub warnings: Vec<String>,
}

/// One animation clip.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    pub looping: bool,
    pub time_unit: TimeUnit,
    /// Length in `time_unit`.
    pub length: f64,
    /// Keys per second where the file says it (ANIM `1 / interval`).
    pub frame_rate: Option<f64>,
    pub tracks: Vec<Track>,
    pub events: Vec<Event>,
    /// Fields that only one format has; kept so that rewriting in that format is exact.
    pub extras: ClipExtras,
}

/// A bone, by numeric id or by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bone {
    Id(u32),
    Name(String),
}

impl fmt::Display for Bone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bone::Id(id) => write!(f, "{id}"),
            Bone::Name(name) => write!(f, "{name:?}"),
        }
    }
}

/// The keys of one bone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    pub bone: Bone,
    pub rotation: Vec<RotationKey>,
    /// In the format's own units (ANIMBIN: stored / 4096; `.panim`: raw s16 game units).
    pub translation: Vec<VectorKey>,
    pub scale: Vec<VectorKey>,
    pub extras: TrackExtras,
}

impl Default for Bone {
    fn default() -> Self {
        Bone::Id(0)
    }
}

/// A rotation key: a quaternion `[w, x, y, z]` at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct RotationKey {
    pub time: f64,
    pub value: Quat,
    /// The words the source file stored, when it stored something other than the value itself.
    pub stored: Option<StoredRotation>,
}

/// A translation or scale key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorKey {
    pub time: f64,
    pub value: [f64; 3],
}

/// Rotation words as a format stored them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredRotation {
    /// ANIMBIN: `i16 w, x, y, z`, FP12.
    Fp12([i16; 4]),
    /// `.ani` 4000: the `f32` bits of x, y, z, w.
    Ani4000([u32; 4]),
    /// `.ani` 4001: the "small three" word.
    Ani4001(u32),
    /// `.ani` 4002: the two "eight bytes" words.
    Ani4002([u32; 2]),
    /// `.panim`: the s16 angles x, y, z (0x10000 = 360 degrees).
    PanimEuler([i16; 3]),
}

/// A timed event: an ANIMBIN marker or an `.ani` event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub time: f64,
    pub name: String,
    pub data: Option<String>,
    /// The raw bytes of name and data where the file's bytes are not UTF-8 (written back unchanged).
    pub raw_name: Option<Vec<u8>>,
    pub raw_data: Option<Vec<u8>>,
}

impl Event {
    pub fn new(time: f64, name: impl Into<String>, data: Option<String>) -> Event {
        Event { time, name: name.into(), data, raw_name: None, raw_data: None }
    }
}

/// Per-clip fields of single formats.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipExtras {
    /// The stored name field, when it holds bytes the name string does not reproduce.
    pub raw_name: Option<Vec<u8>>,
    /// ANIMBIN `flags` word (bit 0 is looping; the other bits are kept).
    pub animbin_flags: Option<u32>,
    pub mp: Option<MpExtras>,
    pub panim: Option<PanimExtras>,
}

/// Metroid Prime ANIM header fields with no place in the common model.
#[derive(Debug, Clone, PartialEq)]
pub struct MpExtras {
    pub evnt_id: u32,
    pub scratch_size: u32,
    pub root_bone_id: u32,
    pub unknown0: u32,
    pub unknown3: u32,
    pub rotation_divisor: u32,
    pub translation_multiplier: f32,
    /// Version 0 only: the size of the bone -> rotation channel map (100 in Retro's files).
    pub bone_entry_count: Option<u32>,
    /// Version 0 only: the differential-state words after the duration and after the interval
    /// (CCharAnimTime's type; 0 in Retro's files).
    pub time_states: Option<[u32; 2]>,
    /// The number of frames: version 2's key bitmap bit count, version 0's key count.
    pub frame_count: Option<u32>,
}

/// `.panim` fields kept for an exact rewrite.
#[derive(Debug, Clone, PartialEq)]
pub struct PanimExtras {
    pub author: String,
    pub raw_author: Option<Vec<u8>>,
    pub loop_byte: u8,
    pub node_count: u8,
    /// The values and index tables as stored; reused while the clip still produces the same streams.
    pub values: Vec<i16>,
    pub indices: Vec<(u16, u16)>,
    /// `(frame_count, bone_count)` of the translations / scales sections when present.
    pub translations: Option<(u16, u16)>,
    pub scales: Option<(u16, u16)>,
    /// Section values stored for frames at or past the clip's length (never shown, not keys), per
    /// section (translations, scales) and bone index: written back unchanged.
    pub hidden_section_frames: [Vec<(usize, Vec<[i16; 3]>)>; 2],
}

/// Per-track fields of single formats.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrackExtras {
    /// ANIMBIN `Track.type` byte (parsed, never used by the runtime).
    pub animbin_type: Option<u8>,
    /// ANIMBIN key order when a track mixes key types: `true` for a translation key.
    pub animbin_key_order: Option<Vec<bool>>,
    /// `.ani` track weight.
    pub ani_weight: Option<f32>,
    /// Stored bone name bytes when they are not UTF-8.
    pub raw_bone_name: Option<Vec<u8>>,
}

/// A quaternion `w + xi + yj + zk`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    pub w: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Quat {
    pub const IDENTITY: Quat = Quat { w: 1.0, x: 0.0, y: 0.0, z: 0.0 };

    pub fn new(w: f64, x: f64, y: f64, z: f64) -> Quat {
        Quat { w, x, y, z }
    }

    pub fn to_array(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z]
    }

    pub fn dot(self, o: Quat) -> f64 {
        self.w * o.w + self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[allow(clippy::should_implement_trait)]
    pub fn neg(self) -> Quat {
        Quat::new(-self.w, -self.x, -self.y, -self.z)
    }

    pub fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }

    /// The unit quaternion in the same direction; identity for a zero or non-finite one.
    pub fn normalized(self) -> Quat {
        let n = self.norm();
        if n > 1e-12 && n.is_finite() {
            Quat::new(self.w / n, self.x / n, self.y / n, self.z / n)
        } else {
            Quat::IDENTITY
        }
    }

    /// Hamilton product `self * o` (apply `o` first, then `self`).
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, o: Quat) -> Quat {
        Quat::new(
            self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        )
    }

    /// Angle in radians of the rotation that takes `self` to `o` (sign of either ignored).
    pub fn angle_to(self, o: Quat) -> f64 {
        let d = (self.normalized().dot(o.normalized())).abs().min(1.0);
        2.0 * d.acos()
    }

    /// Shortest-path spherical interpolation between unit quaternions.
    pub fn slerp(self, o: Quat, t: f64) -> Quat {
        let mut b = o;
        let mut d = self.dot(o);
        if d < 0.0 {
            b = o.neg();
            d = -d;
        }
        if d > 0.9995 {
            let q = Quat::new(
                self.w + (b.w - self.w) * t,
                self.x + (b.x - self.x) * t,
                self.y + (b.y - self.y) * t,
                self.z + (b.z - self.z) * t,
            );
            return q.normalized();
        }
        let theta = d.min(1.0).acos();
        let s = theta.sin();
        let (wa, wb) = (((1.0 - t) * theta).sin() / s, (t * theta).sin() / s);
        Quat::new(
            wa * self.w + wb * b.w,
            wa * self.x + wb * b.x,
            wa * self.y + wb * b.y,
            wa * self.z + wb * b.z,
        )
    }

    fn axis_angle(axis: usize, radians: f64) -> Quat {
        let (s, c) = (radians * 0.5).sin_cos();
        match axis {
            0 => Quat::new(c, s, 0.0, 0.0),
            1 => Quat::new(c, 0.0, s, 0.0),
            _ => Quat::new(c, 0.0, 0.0, s),
        }
    }

    /// The rotation of SM64 Euler angles in radians: X applied first, then Y, then Z (`Rz * Ry * Rx`),
    /// the order of `mtxf_rotate_xyz_and_translate`.
    pub fn from_euler_xyz(x: f64, y: f64, z: f64) -> Quat {
        Quat::axis_angle(2, z).mul(Quat::axis_angle(1, y)).mul(Quat::axis_angle(0, x))
    }

    /// Inverse of [`Quat::from_euler_xyz`]: angles `(x, y, z)` in radians, y within [-pi/2, pi/2].
    pub fn to_euler_xyz(self) -> (f64, f64, f64) {
        let q = self.normalized();
        let (w, x, y, z) = (q.w, q.x, q.y, q.z);
        // Column-vector matrix entries of R = Rz * Ry * Rx.
        let m20 = 2.0 * (x * z - w * y);
        let m21 = 2.0 * (y * z + w * x);
        let m22 = 1.0 - 2.0 * (x * x + y * y);
        let m10 = 2.0 * (x * y + w * z);
        let m00 = 1.0 - 2.0 * (y * y + z * z);
        let ry = (-m20).clamp(-1.0, 1.0).asin();
        if m20.abs() < 0.999_999 {
            (m21.atan2(m22), ry, m10.atan2(m00))
        } else {
            // Gimbal lock: only x - z (or x + z) is determined; put it all in x.
            let m01 = 2.0 * (x * y - w * z);
            let m11 = 1.0 - 2.0 * (x * x + z * z);
            let rx = if m20 < 0.0 { m01.atan2(m11) } else { (-m01).atan2(m11) };
            (rx, ry, 0.0)
        }
    }
}

impl Track {
    pub fn new(bone: Bone) -> Track {
        Track { bone, ..Track::default() }
    }

    /// Rotation keys in time order (stable: equal times keep file order).
    pub fn sorted_rotation(&self) -> Vec<RotationKey> {
        let mut keys = self.rotation.clone();
        keys.sort_by(|a, b| a.time.total_cmp(&b.time));
        keys
    }

    /// The rotation at `time`: shortest-path slerp between the neighbouring keys, held past the ends.
    /// `None` when the track has no rotation keys. (To sample many times, build a [`Sampler`].)
    pub fn sample_rotation(&self, time: f64) -> Option<Quat> {
        Sampler::new(self).rotation(time)
    }

    pub fn sample_translation(&self, time: f64) -> Option<[f64; 3]> {
        sample_vectors(&self.translation, time)
    }

    pub fn sample_scale(&self, time: f64) -> Option<[f64; 3]> {
        sample_vectors(&self.scale, time)
    }
}

/// A track's keys sorted once by time, for sampling it at many times (writers resample every frame).
pub struct Sampler {
    pub rotation: Vec<RotationKey>,
    pub translation: Vec<VectorKey>,
    pub scale: Vec<VectorKey>,
}

impl Sampler {
    pub fn new(track: &Track) -> Sampler {
        let mut translation = track.translation.clone();
        translation.sort_by(|a, b| a.time.total_cmp(&b.time));
        let mut scale = track.scale.clone();
        scale.sort_by(|a, b| a.time.total_cmp(&b.time));
        Sampler { rotation: track.sorted_rotation(), translation, scale }
    }

    /// The last key at or before `time` (the first key before the start).
    pub fn rotation_key_at_or_before(&self, time: f64) -> Option<&RotationKey> {
        let i = self.rotation.partition_point(|k| k.time <= time);
        self.rotation.get(i.saturating_sub(1))
    }

    pub fn rotation(&self, time: f64) -> Option<Quat> {
        let keys = &self.rotation;
        let (i, t) = bracket(keys, |k| k.time, time)?;
        if t == 0.0 || i + 1 >= keys.len() {
            return Some(keys[i].value);
        }
        Some(keys[i].value.normalized().slerp(keys[i + 1].value.normalized(), t))
    }

    pub fn translation(&self, time: f64) -> Option<[f64; 3]> {
        lerp_sorted(&self.translation, time)
    }

    pub fn scale(&self, time: f64) -> Option<[f64; 3]> {
        lerp_sorted(&self.scale, time)
    }
}

fn lerp_sorted(sorted: &[VectorKey], time: f64) -> Option<[f64; 3]> {
    let (i, t) = bracket(sorted, |k| k.time, time)?;
    if t == 0.0 || i + 1 >= sorted.len() {
        return Some(sorted[i].value);
    }
    let (a, b) = (sorted[i].value, sorted[i + 1].value);
    Some([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t])
}

/// Linear interpolation over vector keys, held past the ends.
pub fn sample_vectors(keys: &[VectorKey], time: f64) -> Option<[f64; 3]> {
    let mut sorted = keys.to_vec();
    sorted.sort_by(|a, b| a.time.total_cmp(&b.time));
    lerp_sorted(&sorted, time)
}

/// For keys sorted by time, the index of the key at or before `time` and the fraction towards the next.
fn bracket<K>(keys: &[K], time_of: impl Fn(&K) -> f64, time: f64) -> Option<(usize, f64)> {
    let last = keys.len().checked_sub(1)?;
    if time <= time_of(&keys[0]) {
        return Some((0, 0.0));
    }
    if time >= time_of(&keys[last]) {
        return Some((last, 0.0));
    }
    // keys[i].time <= time < keys[i + 1].time
    let i = keys.partition_point(|k| time_of(k) <= time) - 1;
    let span = time_of(&keys[i + 1]) - time_of(&keys[i]);
    let t = if span > 0.0 { (time - time_of(&keys[i])) / span } else { 0.0 };
    Some((i, t))
}

/// Text of a fixed or length-prefixed string field: UTF-8 when valid, else each byte as one Latin-1
/// character (lossless, so the raw bytes are kept beside it for an exact rewrite).
pub fn decode_text(bytes: &[u8]) -> (String, Option<Vec<u8>>) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), None),
        Err(_) => (bytes.iter().map(|&b| b as char).collect(), Some(bytes.to_vec())),
    }
}

/// The bytes to store for `text`: the kept raw bytes while they still decode to `text`, else UTF-8.
pub fn encode_text(text: &str, raw: Option<&[u8]>) -> Vec<u8> {
    match raw {
        Some(raw) if decode_text(raw).0 == text => raw.to_vec(),
        _ => text.as_bytes().to_vec(),
    }
}
