//! Compilation of an imported character into the table blob the runtime embeds.
//!
//! The output is one binary blob per character (layout, units and axes: `psxanim_runtime::tables`),
//! read in place by `Tables::parse`; a program embeds it with `include_bytes!`. Two storage modes:
//! - **rigid-gte**: vertices grouped by their (single) bone into contiguous ranges in bone-local space,
//!   triangles remapped to the new order, and per-bone parent-relative pose samples in the compact
//!   format of `tables::pose` at a precision (and, for fast turns, a block size) searched per clip so
//!   that no vertex moves more than
//!   [`RIGID_FORMAT_BUDGET`] GTE unit from where the exact samples put it;
//! - **baked-vertices**: model-space positions of every frame as Q8 deltas from the bind pose.
//!
//! In both, neighbouring triangles that form a planar quad are paired into one (`quads`), and the
//! triangles and quads are written as runs of triangles, quads and quad strips (`primitives`).
//!
//! Both store bounds covering the bind pose and every sample of every clip (exact and decoded, widened
//! by one unit for the GTE's truncation), and both are checked against ufbx's own evaluation
//! (`accuracy` in the report) before anything is written.

mod baked;
mod blob;
/// ANIMBIN clips compiled into per-frame poses (CLIPBIN).
pub mod clips;
mod pose;
mod primitives;
mod quads;
mod rigid;
mod write;

pub use write::write_atomically;

use psxanim_runtime::tables::{Storage, Tables};
use serde::Serialize;

use crate::fbx::limits::MAX_ANIMATION_BYTES;
use crate::fbx::{Character, ImportError};
use blob::{assemble, BlobParts, ClipData, ClipPart};

/// Largest vertex error (GTE units, any axis) the pose-sample compression may add in rigid mode.
pub const RIGID_FORMAT_BUDGET: f64 = 1.0;
/// Default accuracy thresholds against ufbx's evaluation, GTE units: the format budget plus the
/// rounding of bone-local vertices to i16 (rigid; at most 0.87 under a rotation, more under an
/// animated scale-up, so a rig that scales bones up gets the larger bound [`rigid_threshold`] computes),
/// or the half Q8 step plus bind rounding (baked).
pub const DEFAULT_RIGID_THRESHOLD: f64 = 2.0;
pub const DEFAULT_BAKED_THRESHOLD: f64 = 9.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StorageMode {
    RigidGte,
    BakedVertices,
}

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub storage: StorageMode,
    /// Accuracy threshold in GTE units (None: the storage mode's default); `f64::INFINITY` disables it.
    pub max_error: Option<f64>,
}

/// Error statistics in GTE units (largest per-axis difference per vertex).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErrorStats {
    pub max: f64,
    pub mean: f64,
    /// Where the maximum is: clip index, frame, vertex (source vertex index).
    pub worst: (usize, usize, usize),
}

#[derive(Clone, Debug, Serialize)]
pub struct ClipReport {
    pub name: String,
    pub frames: usize,
    pub seconds: f64,
    /// Bytes of animation data (rigid: pose stream; baked: frame table + payloads first used here).
    pub bytes: usize,
    /// Rigid: bytes / (bones * seconds).
    pub bytes_per_bone_second: Option<f64>,
    /// Baked: bytes / frames.
    pub bytes_per_frame: Option<f64>,
    /// Largest error added by the storage format (decoded vs exact samples), GTE units.
    pub format_error: f64,
}

impl ClipReport {
    /// `clip`'s report with its format error; the sizes are the storage's to fill in.
    fn new(clip: &crate::fbx::Clip, format_error: f64) -> Self {
        ClipReport {
            name: clip.name.clone(),
            frames: clip.frame_count(),
            seconds: clip.seconds(),
            bytes: 0,
            bytes_per_bone_second: None,
            bytes_per_frame: None,
            format_error,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Accuracy {
    /// Compiled pose vs ufbx's evaluation of each vertex on its strongest bone (the checked figure).
    pub versus_rigid: ErrorStats,
    /// Compiled pose vs ufbx's full linear-blend skinning (includes the weight reduction).
    pub versus_skinned: ErrorStats,
    /// Rigid only: the console's FP12/GTE evaluation of the same samples vs ufbx (strongest bone).
    /// Informative: it measures the FP12 matrices' precision, which no pose format can improve.
    pub console_fp12: Option<ErrorStats>,
    pub threshold: f64,
}

/// An unskinned mesh bound rigidly to a bone (its vertices are in `vertices`).
#[derive(Clone, Debug, Serialize)]
pub struct PropReport {
    pub mesh: String,
    pub bone: String,
    pub vertices: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompileReport {
    pub source: String,
    pub storage: StorageMode,
    pub bones: usize,
    pub bone_names: Vec<String>,
    pub vertices: usize,
    pub triangles: usize,
    /// Triangle pairs stored as one planar quad (each counts two of `triangles`).
    pub quads: usize,
    /// Quad strips among the primitive stream's runs (the quads they hold are among `quads`).
    pub strips: usize,
    /// Words of the primitive stream, its end word included.
    pub primitive_words: usize,
    pub materials: Vec<(String, [u8; 3])>,
    /// Meshes without a skin, each on the bone it follows.
    pub props: Vec<PropReport>,
    /// Rigid: non-empty bone ranges (bone name, first vertex, count).
    pub ranges: Vec<(String, u16, u16)>,
    pub clips: Vec<ClipReport>,
    pub reduced_vertices: usize,
    pub largest_dropped_weight: f64,
    pub bounds: [[i16; 3]; 2],
    pub animation_bytes: usize,
    pub blob_bytes: usize,
    /// Rigid: over all clips.
    pub bytes_per_bone_second: Option<f64>,
    /// Baked: over all frames.
    pub bytes_per_frame: Option<f64>,
    pub max_format_error: f64,
    pub accuracy: Accuracy,
    pub warnings: Vec<String>,
}

#[derive(Debug)]
pub struct Compiled {
    pub blob: Vec<u8>,
    pub report: CompileReport,
}

/// Running bounds of model-space positions.
struct Bounds {
    min: [f64; 3],
    max: [f64; 3],
}

impl Bounds {
    fn new() -> Self {
        Self { min: [f64::INFINITY; 3], max: [f64::NEG_INFINITY; 3] }
    }
    fn add(&mut self, p: [f64; 3]) {
        self.min = [0, 1, 2].map(|c| self.min[c].min(p[c]));
        self.max = [0, 1, 2].map(|c| self.max[c].max(p[c]));
    }
    /// Rounded outwards and widened by one unit (the GTE truncates); clamped to i16.
    fn to_i16(&self) -> [[i16; 3]; 2] {
        let clamp = |v: f64| v.clamp(i16::MIN as f64, i16::MAX as f64) as i16;
        [self.min.map(|v| clamp(v.floor() - 1.0)), self.max.map(|v| clamp(v.ceil() + 1.0))]
    }
}

fn axis_error(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f64::max)
}

/// Accumulates error statistics.
#[derive(Default)]
struct ErrorAcc {
    stats: ErrorStats,
    sum: f64,
    n: usize,
}

impl ErrorAcc {
    fn add(&mut self, e: f64, at: (usize, usize, usize)) {
        if e > self.stats.max {
            self.stats.max = e;
            self.stats.worst = at;
        }
        self.sum += e;
        self.n += 1;
    }
    fn finish(mut self) -> ErrorStats {
        self.stats.mean = if self.n > 0 { self.sum / self.n as f64 } else { 0.0 };
        self.stats
    }
}

fn compile_error(c: &Character, message: String) -> ImportError {
    ImportError::Compile { path: c.source.clone(), message }
}

/// Compiles `c`; fails on the animation-size limit or the accuracy threshold.
pub fn compile(c: &Character, options: &CompileOptions) -> Result<Compiled, ImportError> {
    let threshold = options.max_error.unwrap_or(match options.storage {
        StorageMode::RigidGte => rigid_threshold(c),
        StorageMode::BakedVertices => DEFAULT_BAKED_THRESHOLD,
    });
    let out = match options.storage {
        StorageMode::RigidGte => compile_rigid(c, threshold)?,
        StorageMode::BakedVertices => compile_baked(c, threshold)?,
    };
    if out.report.animation_bytes > MAX_ANIMATION_BYTES {
        return Err(ImportError::AnimationTooLarge {
            path: c.source.clone(),
            bytes: out.report.animation_bytes,
            limit: MAX_ANIMATION_BYTES,
        });
    }
    let acc = &out.report.accuracy.versus_rigid;
    if acc.max > threshold {
        let (clip, frame, vertex) = acc.worst;
        return Err(ImportError::Accuracy {
            path: c.source.clone(),
            clip: c.clips[clip].name.clone(),
            frame,
            vertex,
            max: acc.max,
            threshold,
        });
    }
    Ok(out)
}

/// The default rigid threshold: the format budget plus the largest per-axis displacement that rounding a
/// bone-local vertex by half a unit per axis can cause under any sampled bone transform (0.87 for a pure
/// rotation; proportionally more under an animated scale-up), and never below [`DEFAULT_RIGID_THRESHOLD`].
pub fn rigid_threshold(c: &Character) -> f64 {
    let mut rounding: f64 = 0.5 * 3f64.sqrt();
    for clip in &c.clips {
        for pose in &clip.poses {
            for m in pose {
                let row = m.m.iter().map(|r| r.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
                rounding = rounding.max(0.5 * row);
            }
        }
    }
    DEFAULT_RIGID_THRESHOLD.max(RIGID_FORMAT_BUDGET + rounding + 0.01)
}

struct Common<'a> {
    bone_names: Vec<&'a str>,
    materials: Vec<(&'a str, [u8; 3])>,
}

fn common(c: &Character) -> Common<'_> {
    Common {
        bone_names: c.bones.iter().map(|b| b.name.as_str()).collect(),
        materials: c.materials.iter().map(|m| (m.name.as_str(), m.rgb)).collect(),
    }
}

fn u16_of(c: &Character, what: &str, n: usize) -> Result<u16, ImportError> {
    u16::try_from(n).map_err(|_| compile_error(c, format!("{what} {n} does not fit in 16 bits")))
}

/// The blob's clip table: one part per clip of `c`, in order, holding its compiled `data`.
fn clip_parts(c: &Character, data: impl IntoIterator<Item = ClipData>) -> Result<Vec<ClipPart<'_>>, ImportError> {
    c.clips
        .iter()
        .zip(data)
        .map(|(clip, data)| {
            Ok(ClipPart {
                name: &clip.name,
                frame_count: u16_of(c, "frame count", clip.frame_count())?,
                rate_hz: clip.rate as u16,
                data,
                events: &clip.events,
            })
        })
        .collect()
}

fn compile_rigid(c: &Character, threshold: f64) -> Result<Compiled, ImportError> {
    let layout = rigid::layout(c).map_err(|m| compile_error(c, m))?;
    let reach = rigid::reaches(c);
    let parents: Vec<Option<usize>> = c.bones.iter().map(|b| b.parent).collect();
    let com = common(c);
    let bones: Vec<(&str, Option<usize>, u16, u16)> = c
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| (com.bone_names[i], b.parent, layout.ranges[i].0, layout.ranges[i].1))
        .collect();
    let triangles: Vec<([u16; 3], u8)> =
        c.triangles.iter().map(|t| (t.vertices.map(|v| layout.remap[v] as u16), t.material as u8)).collect();
    let faces = quads::pair_quads(&triangles, quads::rigid_planar(&layout.local, &layout.ranges));
    // One matrix moves a quad's four corners (all on one bone): its bone-local shape is every pose's.
    let turnable = primitives::turnable(vec![&layout.local], quads::MAX_QUAD_BEND);
    let stream = primitive_stream(c, &faces, turnable, |v| layout.remap[v])?;

    let mut bounds = Bounds::new();
    let bind_model: Vec<_> = c.bones.iter().map(|b| b.bind).collect();
    for p in rigid::positions(&bind_model, &layout) {
        bounds.add(p);
    }
    let mut clip_data = Vec::new();
    let mut clip_reports = Vec::new();
    let mut decoded_all = Vec::new();
    for clip in &c.clips {
        let tracks = rigid::tracks(c, clip, &reach).map_err(|m| compile_error(c, m))?;
        let exact: Vec<Vec<[f64; 3]>> = clip.poses.iter().map(|pose| rigid::positions(pose, &layout)).collect();
        let EncodedClip { data, worst, decoded, .. } =
            encode_pose_clip(c, clip, &tracks, &exact, &bones, &layout, &parents)?;
        for p in exact.iter().chain(&decoded).flatten() {
            bounds.add(*p);
        }
        for p in clip.rigid_reference.iter().flatten() {
            bounds.add(*p);
        }
        clip_reports.push(ClipReport {
            bytes: data.len(),
            bytes_per_bone_second: Some(data.len() as f64 / (c.bones.len() as f64 * clip.seconds())),
            ..ClipReport::new(clip, worst)
        });
        clip_data.push(data);
        decoded_all.push(decoded);
    }

    let clips = clip_parts(c, clip_data.into_iter().map(ClipData::Pose))?;
    let parts = BlobParts {
        storage: Storage::RigidGte,
        bounds: bounds.to_i16(),
        bones,
        vertices: &layout.local,
        primitives: stream,
        materials: com.materials.clone(),
        clips,
        payloads: &[],
    };
    let assembled = assemble(&parts).map_err(|m| compile_error(c, m))?;
    Tables::parse(&assembled.blob)
        .map_err(|e| compile_error(c, format!("internal: compiled blob unreadable: {e:?}")))?;

    // Accuracy: decoded positions are in the new order; references in the original order.
    let mut accuracy = accuracy(c, threshold, |clip, frame, old| decoded_all[clip][frame][layout.remap[old]]);
    let final_tables = Tables::parse(&assembled.blob).map_err(|e| compile_error(c, format!("internal: {e:?}")))?;
    let mut console = ErrorAcc::default();
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            let p =
                rigid::console_positions(&final_tables, ci, f, &parents, &layout).map_err(|m| compile_error(c, m))?;
            for (old, v) in c.vertices.iter().enumerate() {
                console.add(axis_error(p[layout.remap[old]], clip.rigid_reference[f][old]), (ci, f, v.source_index));
            }
        }
    }
    accuracy.console_fp12 = Some(console.finish());
    let animation_bytes: usize = assembled.clip_bytes.iter().sum();
    let seconds: f64 = c.clips.iter().map(|cl| cl.seconds()).sum();
    let report = CompileReport {
        quads: parts.primitives.quads,
        strips: parts.primitives.strips,
        primitive_words: parts.primitives.words.len(),
        ranges: c
            .bones
            .iter()
            .zip(&layout.ranges)
            .filter(|(_, r)| r.1 > 0)
            .map(|(b, r)| (b.name.clone(), r.0, r.1))
            .collect(),
        bytes_per_bone_second: (seconds > 0.0).then(|| animation_bytes as f64 / (c.bones.len() as f64 * seconds)),
        bytes_per_frame: None,
        ..report_base(
            c,
            StorageMode::RigidGte,
            clip_reports,
            parts.bounds,
            animation_bytes,
            assembled.blob.len(),
            accuracy,
        )
    };
    Ok(Compiled { blob: assembled.blob, report })
}

fn compile_baked(c: &Character, threshold: f64) -> Result<Compiled, ImportError> {
    let com = common(c);
    let bind: Vec<[i16; 3]> = c.vertices.iter().map(|v| baked::to_i16(v.bind)).collect();
    let mut bounds = Bounds::new();
    for v in &c.vertices {
        bounds.add(v.bind);
    }
    let mut payloads = baked::Payloads::default();
    let mut tables = Vec::new();
    let mut decoded_all: Vec<Vec<Vec<[i16; 3]>>> = Vec::new();
    let mut clip_reports = Vec::new();
    for clip in &c.clips {
        let mut offsets = Vec::new();
        let mut decoded_clip = Vec::new();
        let mut worst: f64 = 0.0;
        for target in &clip.rigid_reference {
            let (payload, decoded) = baked::encode_frame(&bind, target);
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
    let stream = primitive_stream(
        c,
        &faces,
        primitives::turnable(views, quads::MAX_BAKED_QUAD_BEND),
        |v| v,
    )?;
    let parts = BlobParts {
        storage: Storage::BakedVertices,
        bounds: bounds.to_i16(),
        bones: c.bones.iter().enumerate().map(|(i, b)| (com.bone_names[i], b.parent, 0, 0)).collect(),
        vertices: &bind,
        primitives: stream,
        materials: com.materials.clone(),
        clips,
        payloads: &payloads.bytes,
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
    let accuracy = accuracy(c, threshold, |clip, frame, v| decoded_all[clip][frame][v].map(|x| x as f64));
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

/// One clip's pose data, the largest vertex error it adds and the decoded positions (new order).
struct EncodedClip {
    data: Vec<u8>,
    sign_flips: usize,
    worst: f64,
    decoded: Vec<Vec<[f64; 3]>>,
}

/// Why no precision fitted one block size: the closest error reached, or the encoder's refusal.
struct Misses {
    closest: f64,
    refused: Option<String>,
}

/// The pose data of `clip` in blocks of [`pose::MAX_BLOCK_FRAMES`] at the coarsest precision that keeps
/// every vertex within [`RIGID_FORMAT_BUDGET`] of `exact`. A bone turning too fast for that block size
/// (a rotation changing sign within a block, see `pose`) makes the compiler try every block size from 15
/// frames down to 1 too and keep the smallest data: sign flips cost wide deltas, smaller blocks cost
/// headers for every animated channel, and a dropped component passing near zero a finer precision.
fn encode_pose_clip(
    c: &Character,
    clip: &crate::fbx::Clip,
    tracks: &[pose::BoneTrack],
    exact: &[Vec<[f64; 3]>],
    bones: &[(&str, Option<usize>, u16, u16)],
    layout: &rigid::RigidLayout,
    parents: &[Option<usize>],
) -> Result<EncodedClip, ImportError> {
    let mut misses = Misses { closest: f64::INFINITY, refused: None };
    let mut search =
        |block_frames| coarsest_precision(c, clip, tracks, exact, bones, layout, parents, block_frames, &mut misses);
    let mut best = search(pose::MAX_BLOCK_FRAMES)?;
    if let Some(found) = best.take_if(|b| b.sign_flips == 0) {
        return Ok(found);
    }
    for block_frames in (1..pose::MAX_BLOCK_FRAMES).rev() {
        if let Some(found) = search(block_frames)? {
            if best.as_ref().is_none_or(|b| found.data.len() < b.data.len()) {
                best = Some(found);
            }
        }
    }
    best.ok_or_else(|| {
        compile_error(
            c,
            match misses.refused {
                Some(m) if misses.closest.is_infinite() => format!("clip '{}': {m}", clip.name),
                _ => format!(
                    "clip '{}': no pose precision keeps vertices within {RIGID_FORMAT_BUDGET} GTE unit (closest: \
                     {:.3}), even with one frame per block: use --storage baked-vertices",
                    clip.name, misses.closest
                ),
            },
        )
    })
}

/// [`encode_pose_clip`] at one block size: precisions alpha = 8 * 0.8^i from the coarsest, until one
/// keeps the budget (Some), or none does or the encoder refuses a finer one (None, noted in `misses`).
#[allow(clippy::too_many_arguments)]
fn coarsest_precision(
    c: &Character,
    clip: &crate::fbx::Clip,
    tracks: &[pose::BoneTrack],
    exact: &[Vec<[f64; 3]>],
    bones: &[(&str, Option<usize>, u16, u16)],
    layout: &rigid::RigidLayout,
    parents: &[Option<usize>],
    block_frames: usize,
    misses: &mut Misses,
) -> Result<Option<EncodedClip>, ImportError> {
    let frame_count = u16_of(c, "frame count", clip.frame_count())?;
    for step in 0..60 {
        let alpha = 8.0 * 0.8f64.powi(step);
        let pose::PoseData { bytes: data, sign_flips } =
            match pose::encode_clip(tracks, clip.frame_count(), block_frames, alpha) {
                Ok(data) => data,
                Err(m) => {
                    misses.refused = Some(m);
                    return Ok(None);
                }
            };
        let parts = BlobParts {
            storage: Storage::RigidGte,
            bounds: [[0; 3]; 2],
            bones: bones.to_vec(),
            vertices: &layout.local,
            primitives: primitives::Stream::empty(),
            materials: vec![],
            clips: vec![ClipPart {
                name: &clip.name,
                frame_count,
                rate_hz: clip.rate as u16,
                data: ClipData::Pose(data.clone()),
                events: &[],
            }],
            payloads: &[],
        };
        let trial = assemble(&parts).map_err(|m| compile_error(c, m))?;
        let t = Tables::parse(&trial.blob)
            .map_err(|e| compile_error(c, format!("internal: trial blob unreadable: {e:?}")))?;
        let mut worst: f64 = 0.0;
        let mut decoded = Vec::new();
        for (f, ex) in exact.iter().enumerate() {
            let d = rigid::decoded_positions(&t, 0, f, parents, layout).map_err(|m| compile_error(c, m))?;
            worst = ex.iter().zip(&d).map(|(a, b)| axis_error(*a, *b)).fold(worst, f64::max);
            decoded.push(d);
        }
        if worst <= RIGID_FORMAT_BUDGET {
            return Ok(Some(EncodedClip { data, sign_flips, worst, decoded }));
        }
        misses.closest = misses.closest.min(worst);
    }
    Ok(None)
}

/// The primitive stream of the paired `faces`: strips through the quads `turnable` lets turn (see
/// `primitives`). Fails, naming the mesh, if a triangle uses a vertex (`blob_vertex(v)` in the blob)
/// the stream cannot index.
fn primitive_stream(
    c: &Character,
    faces: &[quads::Face],
    turnable: impl Fn([u16; 4]) -> bool,
    blob_vertex: impl Fn(usize) -> usize,
) -> Result<primitives::Stream, ImportError> {
    use psxanim_runtime::tables::primitives::MAX_INDEXED_VERTICES;
    let beyond = c
        .triangles
        .iter()
        .flat_map(|t| t.vertices)
        .find(|&v| blob_vertex(v) >= MAX_INDEXED_VERTICES);
    if let Some(v) = beyond {
        let vertex = &c.vertices[v];
        return Err(compile_error(
            c,
            format!(
                "mesh '{}': vertex {} is number {} of the character's {} and in a triangle, but triangles can \
                 only use the first {MAX_INDEXED_VERTICES}",
                vertex.mesh,
                vertex.source_index,
                blob_vertex(v),
                c.vertices.len()
            ),
        ));
    }
    let colours: Vec<[u8; 3]> = c.materials.iter().map(|m| m.rgb).collect();
    primitives::encode(&primitives::runs(faces, turnable), &colours)
        .map_err(|m| compile_error(c, format!("internal: {m}")))
}

/// Compares `compiled(clip, frame, vertex)` with ufbx's references for every sample.
fn accuracy(c: &Character, threshold: f64, compiled: impl Fn(usize, usize, usize) -> [f64; 3]) -> Accuracy {
    let (mut rigid, mut skinned) = (ErrorAcc::default(), ErrorAcc::default());
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            for v in 0..c.vertices.len() {
                let p = compiled(ci, f, v);
                let at = (ci, f, c.vertices[v].source_index);
                rigid.add(axis_error(p, clip.rigid_reference[f][v]), at);
                skinned.add(axis_error(p, clip.skinned_reference[f][v]), at);
            }
        }
    }
    Accuracy { versus_rigid: rigid.finish(), versus_skinned: skinned.finish(), console_fp12: None, threshold }
}

fn report_base(
    c: &Character,
    storage: StorageMode,
    clips: Vec<ClipReport>,
    bounds: [[i16; 3]; 2],
    animation_bytes: usize,
    blob_bytes: usize,
    accuracy: Accuracy,
) -> CompileReport {
    CompileReport {
        source: c.source.clone(),
        storage,
        bones: c.bones.len(),
        bone_names: c.bones.iter().map(|b| b.name.clone()).collect(),
        vertices: c.vertices.len(),
        triangles: c.triangles.len(),
        quads: 0,
        strips: 0,
        primitive_words: 0,
        materials: c
            .materials
            .iter()
            .map(|m| (m.name.clone(), m.rgb))
            .collect(),
        props: c
            .props
            .iter()
            .map(|p| PropReport { mesh: p.mesh.clone(), bone: c.bones[p.bone].name.clone(), vertices: p.vertices })
            .collect(),
        ranges: vec![],
        max_format_error: clips.iter().map(|r| r.format_error).fold(0.0, f64::max),
        clips,
        reduced_vertices: c.weights.reduced_vertices,
        largest_dropped_weight: c.weights.largest_dropped_weight,
        bounds,
        animation_bytes,
        blob_bytes,
        bytes_per_bone_second: None,
        bytes_per_frame: None,
        accuracy,
        warnings: c.warnings.clone(),
    }
}
