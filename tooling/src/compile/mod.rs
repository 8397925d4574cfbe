//! Compilation of an imported character into the table blob the runtime embeds.
//!
//! One straight line: [`compile`] picks the storage mode's own compile (`rigid::compile`,
//! `baked::compile`), which lays out the vertices, encodes the clips, builds the primitive stream
//! (`quads`, `primitives`) and assembles the blob (`blob`); then the animation-size limit and the
//! accuracy threshold are checked here. This module keeps only the steps both modes share (clip
//! table, bounds, accuracy against ufbx, the report).
//!
//! The output is one binary blob per character (layout, units and axes: `psxanim_runtime::tables`),
//! read in place by `Tables::parse`; a program embeds it with `include_bytes!`. Two storage modes:
//! - **rigid-gte**: vertices grouped by their (single) bone into contiguous ranges in bone-local space
//!   (placed so that each triangle's vertices lie close: `vertex_order`),
//!   triangles remapped to the new order, and per-bone parent-relative pose samples in the compact
//!   format of `tables::pose` at a precision (and, for fast turns, a block size) searched per clip so
//!   that no vertex moves more than
//!   [`RIGID_FORMAT_BUDGET`] GTE unit (`--pose-tolerance`) from where the exact samples put it, or, when
//!   no precision can (a model too tall for the finest rotation step), at the closest one, with a warning;
//! - **baked-vertices**: model-space positions of every frame as Q8 deltas from the bind pose: ufbx's
//!   linear-blend skinning with every weight (true skinning), within the format's quantisation.
//!
//! In both, neighbouring triangles that form a planar quad are paired into one (`quads`), and the
//! triangles and quads are written as runs of triangles, quads and quad strips (`primitives`).
//!
//! Both store bounds covering the bind pose and every sample of every clip (exact and decoded, widened
//! by one unit for the GTE's truncation), and both are checked against ufbx's own evaluation
//! (`accuracy` in the report) before anything is written: baked frames against true skinning, rigid
//! poses against each vertex on its strongest bone (what one bone per vertex can show); the rigid
//! report also states its distance from true skinning, and warns when it exceeds
//! [`SKINNING_WARNING_SHARE`] of the model's height.

mod baked;
mod blob;
/// ANIMBIN clips compiled into per-frame poses (CLIPBIN).
pub mod clips;
mod pose;
mod primitives;
mod quads;
mod rigid;
mod rigid_layout;
pub mod normals;
pub mod seams;
pub mod textured;
mod write;
mod vertex_order;

pub use write::write_atomically;

use serde::Serialize;

use crate::fbx::limits::MAX_ANIMATION_BYTES;
use crate::fbx::{Character, ImportError};
use blob::{ClipData, ClipPart};
pub use textured::Textures;

/// What a character's surface adds to its blob: the textures and each vertex's UV word, and each
/// vertex's model-space unit normal (`--lighting`), both in the split character's vertex order.
#[derive(Clone, Copy, Default)]
pub struct Surface<'a> {
    pub textured: Option<(&'a Textures, &'a [u32])>,
    pub normals: Option<&'a [[f64; 3]]>,
}

/// Largest vertex error (GTE units, any axis) the pose-sample compression may add in rigid mode.
pub const RIGID_FORMAT_BUDGET: f64 = 1.0;
/// Default accuracy thresholds against ufbx's evaluation, GTE units: the format budget plus the
/// rounding of bone-local vertices to i16 (rigid; at most 0.87 under a rotation, more under an
/// animated scale-up, so a rig that scales bones up gets the larger bound [`rigid_threshold`] computes),
/// or the half Q8 step plus bind rounding (baked).
pub const DEFAULT_RIGID_THRESHOLD: f64 = 2.0;
pub const DEFAULT_BAKED_THRESHOLD: f64 = 9.0;
/// Share of the model's height beyond which rigid-gte's distance from true skinning is warned about.
pub const SKINNING_WARNING_SHARE: f64 = 0.02;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StorageMode {
    RigidGte,
    BakedVertices,
}

/// Default `--blend-threshold`: a second influence below this share stays rigid.
pub const DEFAULT_BLEND_THRESHOLD: f64 = 1.0 / 64.0;
/// Default `--blend-levels`: the weights of blended vertices are quantised to multiples of
/// `1 / levels` (a group of vertices per pair and level shares one blended matrix on the console).
pub const DEFAULT_BLEND_LEVELS: u16 = 32;

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub storage: StorageMode,
    /// Accuracy threshold in GTE units (None: the storage mode's default); `f64::INFINITY` disables it.
    pub max_error: Option<f64>,
    /// Rigid-gte: the error budget of the pose format in GTE units (None: [`RIGID_FORMAT_BUDGET`]).
    /// A clip no precision keeps within it is stored at the closest one, with a warning.
    pub pose_tolerance: Option<f64>,
    /// Rigid-gte: influences kept per vertex, 1 (the strongest) or 2 (the two strongest, renormalised,
    /// blended on the GTE: `tables::blend`; the default, as `import`'s).
    pub max_influences: u8,
    /// Rigid-gte with two influences: a vertex whose second share is below this stays rigid.
    pub blend_threshold: f64,
    /// Rigid-gte with two influences: weights are quantised to multiples of `1 / blend_levels`.
    pub blend_levels: u16,
    /// Rigid-gte: store a normal per vertex (`normals`) for the GTE's lighting (`import --lighting`).
    pub lighting: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            storage: StorageMode::RigidGte,
            max_error: None,
            pose_tolerance: None,
            max_influences: 2,
            blend_threshold: DEFAULT_BLEND_THRESHOLD,
            blend_levels: DEFAULT_BLEND_LEVELS,
            lighting: false,
        }
    }
}

/// Error statistics in GTE units (largest per-axis difference per vertex).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErrorStats {
    pub max: f64,
    pub mean: f64,
    /// Where the maximum is: clip index, frame, vertex (source vertex index).
    pub worst: (usize, usize, usize),
    /// The character's index of the worst vertex (for messages naming its mesh).
    #[serde(skip)]
    pub worst_vertex: usize,
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
    /// Compiled pose vs ufbx's evaluation of each vertex on its strongest bone (rigid-gte's checked
    /// figure).
    pub versus_rigid: ErrorStats,
    /// Compiled pose vs ufbx's full linear-blend skinning (baked-vertices' checked figure; for
    /// rigid-gte it includes the cut to one bone per vertex).
    pub versus_skinned: ErrorStats,
    /// The model's height in GTE units (extent of the bind pose along Y, or its largest extent when
    /// it is flat along Y), and `versus_skinned.max` as a percentage of it.
    pub model_height: f64,
    pub skinned_percent_of_height: f64,
    /// ufbx's evaluation of each vertex on its strongest bone alone vs true skinning: the distance
    /// one influence per vertex leaves (rigid-gte with `--max-influences 1`, before blending).
    pub one_bone_versus_skinned: ErrorStats,
    pub one_bone_percent_of_height: f64,
    /// Which figure the threshold applies to: "rigid" or "skinned".
    pub checked: &'static str,
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
    /// Rigid with two influences: vertices blended between two bones, and per bone pair (strongest
    /// bone, second bone, vertices, weight groups).
    pub blended_vertices: usize,
    pub blend_pairs: Vec<BlendPairReport>,
    /// Influences kept per vertex (rigid: 1 or 2; baked: every one).
    pub max_influences: u8,
    /// Vertices with more than two influences and the largest weight dropped from them.
    pub beyond_two_vertices: usize,
    pub largest_dropped_beyond_two: f64,
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

/// One bone pair of the blend section.
#[derive(Clone, Debug, Serialize)]
pub struct BlendPairReport {
    pub a: String,
    pub b: String,
    pub vertices: usize,
    pub groups: usize,
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
    fn add(&mut self, e: f64, at: (usize, usize, usize), vertex: usize) {
        if e > self.stats.max {
            self.stats.max = e;
            self.stats.worst = at;
            self.stats.worst_vertex = vertex;
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
    compile_textured(c, options, &Textures::default())
}

/// [`compile`] with `textures` (from `crate::texture::convert_all`, [`Textures::from_converted`]):
/// vertices split at UV seams (`seams`), the textures, their default places and each vertex's UV in
/// the blob. Without textures it is [`compile`]: the same blob, byte for byte.
pub fn compile_textured(c: &Character, options: &CompileOptions, textures: &Textures) -> Result<Compiled, ImportError> {
    if options.lighting && options.storage == StorageMode::BakedVertices {
        return Err(compile_error(
            c,
            "--lighting: baked-vertices stores positions only, and its normals would have to be decoded with them \
             each frame; lighting is offered for rigid-gte, whose normals turn with their bone"
                .into(),
        ));
    }
    // One vertex per distinct (UV, normal) of its corners: split at UV seams and hard edges.
    let grids = textures.grids();
    let normals = options.lighting.then(|| normals::corner_normals(c));
    let split;
    let (c, uvs, vertex_normals) = if textures.is_empty() && normals.is_none() {
        (c, None, None)
    } else {
        split = seams::split_corners(c, |t, k| {
            let uv = seams::corner_uv(c, &grids, t, k);
            let n = normals.as_ref().map(|n| normals::fp12(n[t][k]));
            (uv.is_some() || n.is_some()).then_some((uv.unwrap_or(0), n))
        });
        let uvs: Vec<u32> = split.1.iter().map(|k| k.map_or(0, |k| k.0)).collect();
        let ns: Option<Vec<[f64; 3]>> = normals.as_ref().map(|_| {
            split.1.iter().map(|k| k.and_then(|k| k.1).map_or([0.0, 0.0, 1.0], |n| n.map(|x| x as f64 / 4096.0))).collect()
        });
        (&split.0, (!textures.is_empty()).then_some(uvs), ns)
    };
    let surface = Surface {
        textured: uvs.as_deref().map(|uvs| (textures, uvs)),
        normals: vertex_normals.as_deref(),
    };
    let out = match options.storage {
        StorageMode::RigidGte => {
            let tolerance = options.pose_tolerance.unwrap_or(RIGID_FORMAT_BUDGET);
            rigid::compile(c, options.max_error, tolerance, &rigid::Blending::of(options), surface)?
        }
        StorageMode::BakedVertices => baked::compile(c, options.max_error.unwrap_or(DEFAULT_BAKED_THRESHOLD), surface.textured)?,
    };
    let threshold = out.report.accuracy.threshold;
    if out.report.animation_bytes > MAX_ANIMATION_BYTES {
        return Err(ImportError::AnimationTooLarge {
            path: c.source.clone(),
            bytes: out.report.animation_bytes,
            limit: MAX_ANIMATION_BYTES,
        });
    }
    let acc = match options.storage {
        StorageMode::RigidGte => &out.report.accuracy.versus_rigid,
        StorageMode::BakedVertices => &out.report.accuracy.versus_skinned,
    };
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
    rigid_threshold_for(c, RIGID_FORMAT_BUDGET)
}

/// [`rigid_threshold`] with another pose format budget (`--pose-tolerance`, or the error a clip had to
/// accept when no precision kept the budget).
pub fn rigid_threshold_for(c: &Character, format_budget: f64) -> f64 {
    let mut rounding: f64 = 0.5 * 3f64.sqrt();
    for clip in &c.clips {
        for pose in &clip.poses {
            for m in pose {
                let row = m.m.iter().map(|r| r.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
                rounding = rounding.max(0.5 * row);
            }
        }
    }
    DEFAULT_RIGID_THRESHOLD.max(format_budget + rounding + 0.01)
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

/// The primitive stream of the paired `faces`: strips through the quads `turnable` lets turn (see
/// `primitives`). Fails if a primitive's vertices lie too far apart for one run's window (the vertex
/// order of [`rigid::layout`] keeps a skeleton's joints together).
fn primitive_stream(
    c: &Character,
    faces: &[quads::Face],
    turnable: impl Fn([u16; 4]) -> bool,
) -> Result<primitives::Stream, ImportError> {
    let colours: Vec<[u8; 3]> = c.materials.iter().map(|m| m.rgb).collect();
    primitives::encode(&primitives::runs(faces, turnable), &colours)
        .map_err(|m| compile_error(c, format!("the primitive stream cannot hold the mesh: {m}")))
}

/// Compares `compiled(clip, frame, vertex)` with ufbx's references for every sample.
/// `reference(clip, frame, vertex)`: where the storage's own evaluation should put the vertex (rigid:
/// ufbx's evaluation on its bone, or its two bones blended; baked: unused, true skinning is checked).
fn accuracy(
    c: &Character,
    threshold: f64,
    compiled: impl Fn(usize, usize, usize) -> [f64; 3],
    reference: impl Fn(usize, usize, usize) -> [f64; 3],
) -> Accuracy {
    let (mut rigid, mut skinned, mut one_bone) = (ErrorAcc::default(), ErrorAcc::default(), ErrorAcc::default());
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            for v in 0..c.vertices.len() {
                let p = compiled(ci, f, v);
                let at = (ci, f, c.vertices[v].source_index);
                rigid.add(axis_error(p, reference(ci, f, v)), at, v);
                skinned.add(axis_error(p, clip.skinned_reference[f][v]), at, v);
                one_bone.add(axis_error(clip.rigid_reference[f][v], clip.skinned_reference[f][v]), at, v);
            }
        }
    }
    let model_height = model_height(c);
    let versus_skinned = skinned.finish();
    let one_bone = one_bone.finish();
    let percent = |e: f64| if model_height > 0.0 { 100.0 * e / model_height } else { 0.0 };
    Accuracy {
        one_bone_percent_of_height: percent(one_bone.max),
        one_bone_versus_skinned: one_bone,
        versus_rigid: rigid.finish(),
        skinned_percent_of_height: if model_height > 0.0 { 100.0 * versus_skinned.max / model_height } else { 0.0 },
        versus_skinned,
        model_height,
        checked: "rigid",
        console_fp12: None,
        threshold,
    }
}

/// The model's height in GTE units: the bind pose's extent along Y (PSX up/down), or its largest
/// extent when the model lies flat (Y extent under a tenth of it).
pub fn model_height(c: &Character) -> f64 {
    let mut b = Bounds::new();
    for v in &c.vertices {
        b.add(v.bind);
    }
    let extent = [0, 1, 2].map(|k| (b.max[k] - b.min[k]).max(0.0));
    let largest = extent.iter().copied().fold(0.0, f64::max);
    if extent[1] >= 0.1 * largest { extent[1] } else { largest }
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
        blended_vertices: 0,
        blend_pairs: vec![],
        max_influences: 1,
        beyond_two_vertices: c.weights.beyond_two_vertices,
        largest_dropped_beyond_two: c.weights.largest_dropped_beyond_two,
        bounds,
        animation_bytes,
        blob_bytes,
        bytes_per_bone_second: None,
        bytes_per_frame: None,
        accuracy,
        warnings: c.warnings.clone(),
    }
}
