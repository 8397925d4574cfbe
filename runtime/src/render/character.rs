//! One character instance through every stage: cull, pose (or decode), project, triangles.

use super::camera::Camera;
use super::error::RenderError;
use super::pose_cache::{self, PoseCache};
use super::pose_stream::{self, PoseVoices};
use super::scratch::{Scratch, MAX_BAKED_VERTICES, MAX_BONES};
use super::triangles::{self, TriangleSink, TriangleStats};
use super::cull::{self, Visibility};
use super::{blend, bones, fade, light, project};
use crate::anim::animator::{Animator, FrameSample, PoseSample};
use crate::gte::{Cop2, Gte};
use crate::math::Matrix;
use crate::tables::{BoneSample, Storage, TableError, Tables};


/// The end of a stage, reported to the caller's `mark` callback (the console reads its cycle timer there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The bounds test is done (and was the last stage when the character is off screen).
    Bounds,
    /// Rigid: the bone samples decoded (and blended when interpolating), or with a pose cache the
    /// cached frame looked up (and two blended). Baked: the frame decoded.
    Decode,
    /// Rigid only: the model-view matrices composed (with a cache: one compose per bone).
    Pose,
    /// Every rigid vertex projected (baked: every vertex).
    Project,
    /// Rigid with a blend section only: every blended vertex projected ([`super::blend`]).
    Blend,
    /// A lit instance only: every vertex's colour ([`super::light`]).
    Light,
    /// Every triangle set up and handed to the sink.
    Triangles,
}

/// What `render` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Off screen (or nothing to show yet): no pose evaluated, nothing decoded.
    Culled,
    Drawn(TriangleStats),
}

/// Draws one instance: `world` places it, `sample` says which pose (from its `Animator`).
///
/// The camera's screen registers must be loaded (`Camera::load`). The scratch is overwritten; after a
/// `Drawn` outcome `scratch.sxy` / `scratch.sz` hold this character's projected vertices.
///
/// On the console, flat triangles read their material words from the scratchpad (0x1F800000): the
/// first `tables.material_count()` words of it are overwritten by every drawn character, so a program
/// must not keep data there across a `render` call.
#[allow(clippy::too_many_arguments)]
pub fn render<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    camera: &Camera,
    world: &Matrix,
    sample: Option<FrameSample>,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    render_cached(gte, tables, None, camera, world, sample, scratch, sink, mark)
}

/// [`render`], with the rigid poses taken from `poses` (built from these `tables`) when given, else
/// decoded from the compact stream.
#[allow(clippy::too_many_arguments)]
pub fn render_cached<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    poses: Option<&PoseCache>,
    camera: &Camera,
    world: &Matrix,
    sample: Option<FrameSample>,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    render_pose(gte, tables, poses, camera, world, sample.map(PoseSample::from), scratch, sink, mark)
}

/// Draws one instance in the pose its [`Animator`] shows now, crossfades included (see
/// [`render_pose`]).
#[allow(clippy::too_many_arguments)]
pub fn render_animated<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    poses: Option<&PoseCache>,
    camera: &Camera,
    world: &Matrix,
    animator: &Animator,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    render_pose(gte, tables, poses, camera, world, animator.pose(), scratch, sink, mark)
}

/// Decodes the rigid sample `s` into `out`, blended toward its next sample when it has one (`next`
/// is working memory).
fn decode_rigid(tables: &Tables, s: &FrameSample, out: &mut [BoneSample], next: &mut [BoneSample]) -> Result<(), TableError> {
    tables.decode_pose(s.clip as usize, s.frame as usize, out)?;
    if s.weight != 0 && s.next != s.frame {
        tables.decode_pose(s.clip as usize, s.next as usize, next)?;
        for (a, b) in out.iter_mut().zip(next.iter()) {
            *a = bones::blend_samples(a, b, s.weight);
        }
    }
    Ok(())
}

/// The rigid stages after the pose: every rigid range projected (`Stage::Project`), the blended
/// vertices (`Stage::Blend`, marked only when the tables have them) and, for a lit instance of
/// tables with normals, every vertex's colour (`Stage::Light`). The rigid ranges are lit in the
/// projection's pass ([`light::project_light_rigid`]) where the tables allow, else by the light
/// stage after the blend. Whether the triangles carry colours.
fn project_rigid_stages<B: Cop2, const V: usize>(gte: &mut Gte<B>, tables: &Tables, camera: &Camera, scratch: &mut Scratch<V>, mark: &mut dyn FnMut(Stage)) -> bool {
    let (bones, vertices) = (tables.bone_count().min(MAX_BONES), tables.vertex_count());
    let lit = scratch.lighting.is_some() && tables.has_normals();
    let matrices = &scratch.matrices[..bones];
    let (sxy, sz) = (&mut scratch.sxy[..vertices], &mut scratch.sz[..vertices]);
    let fused = lit && scratch.lighting.as_ref().is_some_and(|l| light::project_light_rigid(gte, tables, l, &camera.view, matrices, sxy, sz, &mut scratch.rgb));
    // With blended vertices the rigid ranges stage every bone's matrix where the blend stage reads it
    // cheaply (`project::matrix_stage`: the console's scratchpad, a load there one cycle instead of
    // 5 to 7 from main RAM). The lit pass does not stage: its blend reads main RAM.
    let blend = tables.blend_group_count() != 0;
    // SAFETY: nothing else of the renderer touches the scratchpad until the blend stage returns.
    let mut stage = if blend && !fused { unsafe { project::matrix_stage(matrices.len()) } } else { None };
    if !fused {
        project::project_rigid(gte, tables, matrices, sxy, sz, stage.as_deref_mut());
    }
    mark(Stage::Project);
    if blend {
        blend::project_blended(gte, tables, stage.as_deref().unwrap_or(matrices), sxy, sz);
        mark(Stage::Blend);
    }
    let Some(lighting) = scratch.lighting.as_ref().filter(|_| lit) else { return false };
    if fused {
        light::light_blended(gte, tables, lighting, &camera.view, matrices, &mut scratch.rgb);
    } else {
        light::light_rigid(gte, tables, lighting, &camera.view, matrices, &mut scratch.rgb);
    }
    mark(Stage::Light);
    true
}

/// The baked frame shown for `s`: one scratch frame cannot interpolate, so the nearer sample.
fn baked_frame(s: &FrameSample) -> usize {
    (if s.weight >= 2048 { s.next } else { s.frame }) as usize
}

/// Draws one instance in the pose its [`Animator`] shows now, the rigid samples decoded forward
/// through the instance's own `stream` ([`super::PoseStream`]): a frame's deltas instead of a decode
/// from the block start (crossfades too: the outgoing clip keeps its voice). Poses are written and
/// blended in the GTE's form ([`bones::crossfade_q14`]: a crossfade's translations blend in GTE
/// units, within one unit of [`render_pose`]'s) unless a bone has none (a scale, a translation past
/// `i16`): then as samples. Baked tables ignore it.
#[allow(clippy::too_many_arguments)]
pub fn render_streamed<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    stream: &mut dyn PoseVoices,
    camera: &Camera,
    world: &Matrix,
    animator: &Animator,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    render_with(gte, tables, Rigid::Streamed(stream), camera, world, animator.pose(), scratch, sink, mark)
}

/// Where a rigid instance's pose comes from.
enum Rigid<'s> {
    /// Decoded from the compact stream at random access (each frame from its block start).
    Compact,
    Cached(&'s PoseCache<'s>),
    Streamed(&'s mut dyn PoseVoices),
}

/// [`render_cached`] of a [`PoseSample`]: during a crossfade (`pose.fade`) the outgoing clip's pose
/// is blended in. Rigid: both clips' bone samples are decoded from the compact stream (a pose cache
/// holds model-space matrices, whose entry-wise blend is no rotation once the poses are far apart)
/// and blended bone by bone along the shorter arc ([`bones::crossfade_samples`]). Baked: both frames
/// are decoded into the scratch and their positions blended ([`fade::blend_positions`]).
#[allow(clippy::too_many_arguments)]
pub fn render_pose<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    poses: Option<&PoseCache>,
    camera: &Camera,
    world: &Matrix,
    pose: Option<PoseSample>,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    let rigid = match poses {
        Some(p) => Rigid::Cached(p),
        None => Rigid::Compact,
    };
    render_with(gte, tables, rigid, camera, world, pose, scratch, sink, mark)
}

#[allow(clippy::too_many_arguments)]
fn render_with<B: Cop2, S: TriangleSink + ?Sized, const V: usize>(
    gte: &mut Gte<B>,
    tables: &Tables,
    rigid: Rigid,
    camera: &Camera,
    world: &Matrix,
    pose: Option<PoseSample>,
    scratch: &mut Scratch<V>,
    sink: &mut S,
    mark: &mut dyn FnMut(Stage),
) -> Result<Outcome, RenderError> {
    let bone_count = tables.bone_count();
    let vertex_count = tables.vertex_count();
    if bone_count > MAX_BONES {
        return Err(RenderError::TooManyBones { bones: bone_count, max: MAX_BONES });
    }
    let max = match tables.storage() {
        Storage::RigidGte => V,
        Storage::BakedVertices => V.min(MAX_BAKED_VERTICES),
    };
    if vertex_count > max {
        return Err(RenderError::TooManyVertices { vertices: vertex_count, max });
    }
    let object = gte.compose(&camera.view, world);
    gte.set_matrix(&object);
    let visibility = cull::box_visibility(gte, camera, &tables.bounds());
    mark(Stage::Bounds);
    let Some(pose) = pose.filter(|_| visibility != Visibility::Hidden) else {
        return Ok(Outcome::Culled);
    };
    let sample = pose.current;
    let clip = sample.clip as usize;
    let lit = match tables.storage() {
        Storage::RigidGte if matches!(rigid, Rigid::Cached(_)) && pose.fade.is_none() => {
            let cache = match rigid {
                Rigid::Cached(c) if c.belongs_to(tables) => c,
                _ => return Err(RenderError::PoseCacheMismatch),
            };
            let matrices = &mut scratch.matrices[..bone_count];
            let pose = cache.pose(clip, sample.frame as usize)?;
            if sample.weight != 0 && sample.next != sample.frame {
                let next = cache.pose(clip, sample.next as usize)?;
                let blended = &mut scratch.blended[..bone_count];
                pose_cache::blend(pose, next, sample.weight, blended);
                mark(Stage::Decode);
                gte.set_matrix(&object);
                gte.compose_packed(blended, matrices);
            } else {
                mark(Stage::Decode);
                gte.set_matrix(&object);
                gte.compose_packed(pose, matrices);
            }
            mark(Stage::Pose);
            project_rigid_stages(gte, tables, camera, scratch, mark)
        }
        Storage::RigidGte => {
            let samples = &mut scratch.samples[..bone_count];
            let from = &mut scratch.from_samples[..bone_count];
            if let Rigid::Streamed(stream) = rigid {
                // The cheapest route: poses in the GTE's form (a crossfade's two blended in that
                // form), composed with no conversion.
                // SAFETY: the stage is used only until the compose below, before any other stage.
                let poses = unsafe { pose_stream::pose_stage(&mut scratch.poses[..bone_count]) };
                let q14 = match &pose.fade {
                    None => stream.pose_q14(tables, &sample, poses)?,
                    Some(fade) => {
                        // SAFETY: as `poses`: until the blend, before the compose.
                        let from_poses = unsafe { pose_stream::from_pose_stage(&mut scratch.from_poses[..bone_count]) };
                        stream.pose_q14_pair(tables, &sample, poses, &fade.from, from_poses)? && bones::crossfade_q14(from_poses, poses, fade.weight)
                    }
                };
                if q14 {
                    mark(Stage::Decode);
                    bones::bone_matrices_q14(gte, tables, poses, &object, &mut scratch.matrices[..bone_count]);
                    mark(Stage::Pose);
                    let lit = project_rigid_stages(gte, tables, camera, scratch, mark);
                    let clip_tests = visibility != Visibility::Clear;
                    let rgb = lit.then_some(&scratch.rgb[..vertex_count]);
                    let stats = triangles::emit(gte, tables, camera, clip_tests, &scratch.sxy[..vertex_count], &scratch.sz[..vertex_count], rgb, sink);
                    mark(Stage::Triangles);
                    return Ok(Outcome::Drawn(stats));
                }
                stream.sample_pair(tables, &sample, samples, pose.fade.as_ref().map(|f| (&f.from, &mut from[..])))?;
            } else {
                let next = &mut scratch.next_samples[..bone_count];
                decode_rigid(tables, &sample, samples, next)?;
                if let Some(fade) = pose.fade {
                    decode_rigid(tables, &fade.from, from, next)?;
                }
            }
            if let Some(fade) = pose.fade {
                bones::crossfade_samples(from, samples, fade.weight);
            }
            mark(Stage::Decode);
            bones::bone_matrices(gte, tables, samples, &object, &mut scratch.matrices[..bone_count]);
            mark(Stage::Pose);
            project_rigid_stages(gte, tables, camera, scratch, mark)
        }
        Storage::BakedVertices => {
            let positions = &mut scratch.positions[..vertex_count];
            tables.decode_baked_frame(clip, baked_frame(&sample), positions)?;
            if let Some(fade) = pose.fade {
                let from = &mut scratch.from_positions[..vertex_count];
                tables.decode_baked_frame(fade.from.clip as usize, baked_frame(&fade.from), from)?;
                fade::blend_positions(from, positions, fade.weight);
            }
            mark(Stage::Decode);
            project::project_positions(gte, &object, positions, &mut scratch.sxy[..vertex_count], &mut scratch.sz[..vertex_count]);
            mark(Stage::Project);
            false
        }
    };
    // A clear box: no triangle can fail the near or span tests, skip them.
    let clip_tests = visibility != Visibility::Clear;
    let rgb = lit.then_some(&scratch.rgb[..vertex_count]);
    let stats = triangles::emit(gte, tables, camera, clip_tests, &scratch.sxy[..vertex_count], &scratch.sz[..vertex_count], rgb, sink);
    mark(Stage::Triangles);
    Ok(Outcome::Drawn(stats))
}
