//! Rigid GTE compilation: vertices grouped into one contiguous range per bone (its strongest influence),
//! stored in that bone's local space, and per-bone pose samples in the compact format.

use psxanim_runtime::tables::{BoneSample, Storage, Tables, ROTATION_FRAC, SCALE_FRAC, TRANSLATION_FRAC};

use super::blob::{assemble, BlobParts, ClipData, ClipPart, TexturedParts};
use super::Surface;
use super::rigid_layout::{BlendGroup, BlendPair, RigidLayout, Slot};
use super::pose::{self, make_continuous, BoneTrack};
use super::{
    accuracy, axis_error, clip_parts, common, compile_error, primitive_stream, primitives, quads, report_base,
    u16_of, Bounds, ClipReport, CompileReport, Compiled, ErrorAcc, StorageMode,
    SKINNING_WARNING_SHARE,
};
use crate::fbx::{Affine, Character, Clip, ImportError, Trs};

/// The rigid-gte blob of `c` and its report (the accuracy threshold is checked by the caller).
/// `tolerance`: the pose format's error budget ([`RIGID_FORMAT_BUDGET`] by default); `max_error`: the
/// accuracy threshold (None: [`super::rigid_threshold_for`] the larger of the budget and the format error
/// a clip had to accept).
/// `textured`: the textures and each vertex's UV word (in `c`'s vertex order), for a textured character.
pub(super) fn compile(
    c: &Character,
    max_error: Option<f64>,
    tolerance: f64,
    blending: &Blending,
    surface: Surface,
) -> Result<Compiled, ImportError> {
    if let Some(s) = c.blend_shapes.first() {
        let all: Vec<String> = c.blend_shapes.iter().map(|s| format!("'{}' (mesh '{}')", s.shape, s.mesh)).collect();
        return Err(compile_error(
            c,
            format!(
                "blend shape '{}' of mesh '{}' is animated (clip '{}'); rigid-gte moves vertices with bones only and \
                 cannot show blend shapes ({}): use --storage baked-vertices, which bakes them",
                s.shape,
                s.mesh,
                s.clip,
                all.join(", ")
            ),
        ));
    }
    if let Some(group) = c.instanced_skins.first() {
        let names: Vec<String> = group.iter().map(|n| format!("'{n}'")).collect();
        return Err(compile_error(
            c,
            format!(
                "meshes {} are instances of one skinned geometry (Maya's instances, Blender's linked duplicates), \
                 each placed by its own node; rigid-gte keeps one copy of a skin on its bones, so it cannot place \
                 them apart: keep one with --skip-mesh {}, or use --storage baked-vertices, which stores ufbx's \
                 skinning of each",
                names.join(", "),
                names[1..].join(",")
            ),
        ));
    }
    let layout = layout(c, blending).map_err(|m| compile_error(c, m))?;
    let reach = reaches(c);
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
    // A quad's four corners in one rigid range or one blend group: one matrix moves them all.
    let faces = quads::pair_quads(&triangles, quads::rigid_planar(&layout.local, &layout.slot_ranges()));
    // One matrix moves a quad's four corners (all on one bone): its bone-local shape is every pose's.
    let turnable = primitives::turnable(vec![&layout.local], quads::MAX_QUAD_BEND);
    let stream = primitive_stream(c, &faces, turnable)?;

    let mut bounds = Bounds::new();
    let bind_model: Vec<_> = c.bones.iter().map(|b| b.bind).collect();
    for p in positions(&bind_model, &layout) {
        bounds.add(p);
    }
    let mut clip_data = Vec::new();
    let mut clip_reports = Vec::new();
    let mut decoded_all = Vec::new();
    let mut warnings = Vec::new();
    for clip in &c.clips {
        let tracks = tracks(c, clip, &reach).map_err(|m| compile_error(c, m))?;
        let exact: Vec<Vec<[f64; 3]>> = clip.poses.iter().map(|pose| positions(pose, &layout)).collect();
        let EncodedClip { data, worst, decoded, .. } =
            encode_pose_clip(c, clip, &tracks, &exact, &bones, &layout, &parents, tolerance)?;
        if worst > tolerance {
            warnings.push(format!(
                "clip '{}': no pose precision keeps vertices within {tolerance} GTE unit of the exact samples; \
                 the closest is used, {worst:.3} GTE units (--pose-tolerance {} accepts it without this warning; \
                 --storage baked-vertices stores positions)",
                clip.name,
                (worst * 100.0).ceil() / 100.0
            ));
        }
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
        blend_pairs: layout.blend_parts().0,
        blend_groups: layout.blend_parts().1,
        textured: surface.textured.map(|(textures, uvs)| {
            let mut placed = vec![0; uvs.len()];
            for (old, w) in uvs.iter().enumerate() {
                placed[layout.remap[old]] = *w;
            }
            TexturedParts { textures, uvs: placed }
        }),
        normals: surface.normals.map(|normals| {
            // Each normal in its vertex's bone space (the bind rotation's inverse), FP12, in the
            // layout's order: the light stage turns it with the bone's pose.
            let mut placed = vec![[0i16; 3]; normals.len()];
            for (old, n) in normals.iter().enumerate() {
                let inv = c.bones[c.vertices[old].bone].bind.inverse();
                let local = inv.m.map(|row| row[0] * n[0] + row[1] * n[1] + row[2] * n[2]);
                let len = (local[0] * local[0] + local[1] * local[1] + local[2] * local[2]).sqrt().max(1e-12);
                placed[layout.remap[old]] = super::normals::fp12(local.map(|x| x / len));
            }
            placed
        }),
    };
    let assembled = assemble(&parts).map_err(|m| compile_error(c, m))?;
    Tables::parse(&assembled.blob)
        .map_err(|e| compile_error(c, format!("internal: compiled blob unreadable: {e:?}")))?;

    // Accuracy: decoded positions are in the new order; references in the original order.
    let worst_format = clip_reports.iter().map(|r| r.format_error).fold(tolerance, f64::max);
    let threshold = max_error.unwrap_or_else(|| super::rigid_threshold_for(c, worst_format));
    // The rigid figure's reference: ufbx's evaluation on the vertex's bone, or for a blended vertex
    // that and ufbx's pose of its second bone, blended with the stored weight.
    let second: Vec<Option<(usize, f64, [f64; 3])>> = (0..c.vertices.len())
        .map(|old| {
            let v = &c.vertices[old];
            blending.weight(v).map(|(b, w)| (b, w as f64 / 4096.0, c.bones[b].bind.inverse().apply(v.second_fix.apply(v.bind))))
        })
        .collect();
    let reference = |clip: usize, frame: usize, old: usize| {
        let on_a = c.clips[clip].rigid_reference[frame][old];
        match second[old] {
            None => on_a,
            Some((b, w, local)) => {
                let on_b = c.clips[clip].poses[frame][b].apply(local);
                [0, 1, 2].map(|k| on_a[k] + (on_b[k] - on_a[k]) * w)
            }
        }
    };
    let mut accuracy = accuracy(c, threshold, |clip, frame, old| decoded_all[clip][frame][layout.remap[old]], reference);
    let final_tables = Tables::parse(&assembled.blob).map_err(|e| compile_error(c, format!("internal: {e:?}")))?;
    let mut console = ErrorAcc::default();
    for (ci, clip) in c.clips.iter().enumerate() {
        for f in 0..clip.frame_count() {
            let p =
                console_positions(&final_tables, ci, f, &parents, &layout).map_err(|m| compile_error(c, m))?;
            for (old, v) in c.vertices.iter().enumerate() {
                console.add(axis_error(p[layout.remap[old]], reference(ci, f, old)), (ci, f, v.source_index), old);
            }
        }
    }
    accuracy.console_fp12 = Some(console.finish());
    let skinned = &accuracy.versus_skinned;
    if skinned.max > SKINNING_WARNING_SHARE * accuracy.model_height && !c.clips.is_empty() {
        let (clip, frame, _) = skinned.worst;
        let v = &c.vertices[skinned.worst_vertex];
        warnings.push(format!(
            "rigid-gte moves each vertex with at most two bones: vertex {} of mesh '{}' is {:.0} GTE units ({:.1}% of the \
             model's height) from true skinning (the file's own evaluation) at clip '{}' frame {frame}, beyond {}%; \
             --storage baked-vertices stores true skinning",
            v.source_index,
            v.mesh,
            skinned.max,
            accuracy.skinned_percent_of_height,
            c.clips[clip].name,
            SKINNING_WARNING_SHARE * 100.0
        ));
    }
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
        blended_vertices: layout.blended(),
        max_influences: if blending.two { 2 } else { 1 },
        blend_pairs: layout
            .pairs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let groups: Vec<&BlendGroup> = layout.groups.iter().filter(|g| g.pair == i).collect();
                super::BlendPairReport {
                    a: c.bones[p.a].name.clone(),
                    b: c.bones[p.b].name.clone(),
                    vertices: groups.iter().map(|g| g.count as usize).sum(),
                    groups: groups.len(),
                }
            })
            .collect(),
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
    let mut report = report;
    report.warnings.extend(warnings);
    Ok(Compiled { blob: assembled.blob, report })
}

/// One clip's pose data, the largest vertex error it adds and the decoded positions (new order).
struct EncodedClip {
    data: Vec<u8>,
    sign_flips: usize,
    worst: f64,
    decoded: Vec<Vec<[f64; 3]>>,
}

/// Why no precision fitted one block size: the closest encoding reached, or the encoder's refusal.
struct Misses {
    closest: Option<EncodedClip>,
    refused: Option<String>,
}

/// The pose data of `clip` in blocks of [`pose::MAX_BLOCK_FRAMES`] at the coarsest precision that keeps
/// every vertex within `tolerance` of `exact`. A bone turning too fast for that block size
/// (a rotation changing sign within a block, see `pose`) makes the compiler try every block size from 15
/// frames down to 1 too and keep the smallest data: sign flips cost wide deltas, smaller blocks cost
/// headers for every animated channel, and a dropped component passing near zero a finer precision.
/// When no precision keeps the tolerance (a tall model whose vertices lie farther from their bones than
/// the finest rotation step can place within it), the closest encoding is returned (its `worst` says by
/// how much; the caller warns); only an encoder refusal with nothing encoded is an error.
#[allow(clippy::too_many_arguments)]
fn encode_pose_clip(
    c: &Character,
    clip: &crate::fbx::Clip,
    tracks: &[pose::BoneTrack],
    exact: &[Vec<[f64; 3]>],
    bones: &[(&str, Option<usize>, u16, u16)],
    layout: &RigidLayout,
    parents: &[Option<usize>],
    tolerance: f64,
) -> Result<EncodedClip, ImportError> {
    let mut misses = Misses { closest: None, refused: None };
    let mut search = |block_frames| {
        coarsest_precision(c, clip, tracks, exact, bones, layout, parents, block_frames, tolerance, &mut misses)
    };
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
    match (best, misses) {
        (Some(found), _) => Ok(found),
        (None, Misses { closest: Some(closest), .. }) => Ok(closest),
        (None, Misses { refused, .. }) => Err(compile_error(
            c,
            format!("clip '{}': {}", clip.name, refused.unwrap_or_else(|| "no pose precision was tried".into())),
        )),
    }
}

/// [`encode_pose_clip`] at one block size: precisions alpha = 8 * 0.8^i from the coarsest, until one
/// keeps `tolerance` (Some), or none does or the encoder refuses a finer one (None; the closest encoding
/// is kept in `misses`).
#[allow(clippy::too_many_arguments)]
fn coarsest_precision(
    c: &Character,
    clip: &crate::fbx::Clip,
    tracks: &[pose::BoneTrack],
    exact: &[Vec<[f64; 3]>],
    bones: &[(&str, Option<usize>, u16, u16)],
    layout: &RigidLayout,
    parents: &[Option<usize>],
    block_frames: usize,
    tolerance: f64,
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
            blend_pairs: layout.blend_parts().0,
            blend_groups: layout.blend_parts().1,
            textured: None,
            normals: None,
        };
        let trial = assemble(&parts).map_err(|m| compile_error(c, m))?;
        let t = Tables::parse(&trial.blob)
            .map_err(|e| compile_error(c, format!("internal: trial blob unreadable: {e:?}")))?;
        let mut worst: f64 = 0.0;
        let mut decoded = Vec::new();
        for (f, ex) in exact.iter().enumerate() {
            let d = decoded_positions(&t, 0, f, parents, layout).map_err(|m| compile_error(c, m))?;
            worst = ex.iter().zip(&d).map(|(a, b)| axis_error(*a, *b)).fold(worst, f64::max);
            decoded.push(d);
        }
        let encoded = EncodedClip { data, sign_flips, worst, decoded };
        if worst <= tolerance {
            return Ok(Some(encoded));
        }
        let closer = misses
            .closest
            .as_ref()
            .is_none_or(|b| (worst, encoded.data.len()) < (b.worst, b.data.len()));
        if closer {
            misses.closest = Some(encoded);
        }
    }
    Ok(None)
}

/// How rigid-gte treats a vertex's second influence (`--max-influences`, `--blend-threshold`,
/// `--blend-levels`).
#[derive(Clone, Copy, Debug)]
pub struct Blending {
    pub two: bool,
    pub threshold: f64,
    pub levels: u16,
}

impl Blending {
    pub fn of(o: &super::CompileOptions) -> Blending {
        Blending { two: o.max_influences >= 2, threshold: o.blend_threshold, levels: o.blend_levels.max(2) }
    }

    /// Vertex `v`'s second bone and its quantised share (FP12, 1..=2048), or None when it stays rigid
    /// (one influence kept, no second influence, a share below the threshold or rounding to 0).
    pub fn weight(&self, v: &crate::fbx::Vertex) -> Option<(usize, u16)> {
        let (b, share) = v.second.filter(|_| self.two)?;
        if share < self.threshold {
            return None;
        }
        let levels = self.levels as f64;
        let level = (share * levels).round();
        let w = (level * 4096.0 / levels).round() as u16;
        (w > 0).then_some((b, w.min(4096)))
    }
}

/// Each vertex's slot and the pairs they name (sorted by bones). A pair is two bones and one `rel`:
/// vertices whose clusters were bound at different poses (`Vertex::second_fix`) get pairs of their own.
pub fn slots(c: &Character, blending: &Blending) -> (Vec<Slot>, Vec<BlendPair>) {
    let weights: Vec<Option<(usize, u16)>> = c.vertices.iter().map(|v| blending.weight(v)).collect();
    let mut raw: Vec<(usize, usize, Affine)> = Vec::new();
    let mut of_vertex: Vec<Option<(usize, u16)>> = vec![None; c.vertices.len()];
    for (i, (v, w)) in c.vertices.iter().zip(&weights).enumerate() {
        let Some((b, weight)) = *w else { continue };
        let same = |p: &(usize, usize, Affine)| p.0 == v.bone && p.1 == b && p.2.max_difference(&v.second_fix) < 1e-6;
        let k = raw.iter().position(same).unwrap_or_else(|| {
            raw.push((v.bone, b, v.second_fix));
            raw.len() - 1
        });
        of_vertex[i] = Some((k, weight));
    }
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by_key(|&k| (raw[k].0, raw[k].1));
    let mut renumbered = vec![0; raw.len()];
    for (new, &old) in order.iter().enumerate() {
        renumbered[old] = new;
    }
    let pairs: Vec<BlendPair> = order
        .iter()
        .map(|&k| {
            let (a, b, fix) = raw[k];
            let rel = c.bones[b].bind.inverse().mul(&fix).mul(&c.bones[a].bind);
            let e = |i: usize, j: usize| (rel.m[i][j] * 4096.0).round().clamp(-32768.0, 32767.0) as i16;
            // Within i16 (the blob stores it so); a pair further apart fails when the blob is assembled.
            let t = |i: usize| rel.t[i].round().clamp(i32::MIN as f64, i32::MAX as f64) as i32;
            let rel_fixed = psxanim_runtime::math::Matrix::new(
                [[e(0, 0), e(0, 1), e(0, 2)], [e(1, 0), e(1, 1), e(1, 2)], [e(2, 0), e(2, 1), e(2, 2)]],
                psxanim_runtime::math::Vec3i32::new(t(0), t(1), t(2)),
            );
            BlendPair { a, b, rel, rel_fixed }
        })
        .collect();
    let slots = c
        .vertices
        .iter()
        .zip(&of_vertex)
        .map(|(v, p)| match p {
            Some((k, weight)) => Slot::Blend(renumbered[*k], *weight),
            None => Slot::Rigid(v.bone),
        })
        .collect();
    (slots, pairs)
}

pub fn layout(c: &Character, blending: &Blending) -> Result<RigidLayout, String> {
    let (slots, pairs) = slots(c, blending);
    let order = super::vertex_order::rigid_order(c, &slots, &pairs)?;
    let mut remap = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut local = Vec::with_capacity(order.len());
    for &old in &order {
        let v = &c.vertices[old];
        let p = c.bones[v.bone].bind.inverse().apply(v.bind);
        let mut q = [0i16; 3];
        for (o, x) in q.iter_mut().zip(p) {
            *o = i16::try_from(x.round() as i64).map_err(|_| {
                format!(
                    "vertex {} of mesh '{}' is {:.0} GTE units from bone '{}', beyond an i16",
                    v.source_index, v.mesh, x, c.bones[v.bone].name
                )
            })?;
        }
        local.push(q);
    }
    let mut ranges = vec![(0u16, 0u16); c.bones.len()];
    let mut groups: Vec<BlendGroup> = Vec::new();
    for (new, &old) in order.iter().enumerate() {
        match slots[old] {
            Slot::Rigid(b) => {
                if ranges[b].1 == 0 {
                    ranges[b].0 = new as u16;
                }
                ranges[b].1 += 1;
            }
            Slot::Blend(pair, weight) => match groups.last_mut() {
                Some(g) if g.pair == pair && g.weight == weight && (g.first + g.count) as usize == new => g.count += 1,
                _ => groups.push(BlendGroup { pair, weight, first: new as u16, count: 1 }),
            },
        }
    }
    groups.sort_by_key(|g| (g.pair, g.weight, g.first));
    Ok(RigidLayout { remap, local, ranges, pairs, groups })
}

/// How far each bone's motion reaches: the farthest vertex of the bone or its descendants from the
/// bone's origin, in GTE units (bind pose).
pub fn reaches(c: &Character) -> Vec<f64> {
    let mut reach = vec![0.0f64; c.bones.len()];
    for v in &c.vertices {
        let mut b = Some(v.bone);
        while let Some(i) = b {
            let o = c.bones[i].bind.t;
            let d = ((v.bind[0] - o[0]).powi(2) + (v.bind[1] - o[1]).powi(2) + (v.bind[2] - o[2]).powi(2)).sqrt();
            reach[i] = reach[i].max(d);
            b = c.bones[i].parent;
        }
    }
    reach
}

/// Parent-relative samples of every bone over a clip.
pub fn tracks(c: &Character, clip: &Clip, reach: &[f64]) -> Result<Vec<BoneTrack>, String> {
    let mut out = Vec::new();
    for (b, bone) in c.bones.iter().enumerate() {
        let mut samples = Vec::with_capacity(clip.frame_count());
        for (f, pose) in clip.poses.iter().enumerate() {
            let local = match bone.parent {
                Some(p) => pose[p].inverse().mul(&pose[b]),
                None => pose[b],
            };
            let sample = local.decompose().map_err(|e| match (e, bone.parent) {
                (crate::fbx::Degenerate::Shear { cosine }, Some(p)) => format!(
                    "bone '{}' at clip '{}' frame {f}: its transform relative to its parent '{}' is sheared (axes \
                     {:.2} degrees off square), as where the file's inheritance mode (Maya segment scale \
                     compensate, MotionBuilder RrSs) undoes a parent's non-uniform scale; rigid-gte stores \
                     parent-relative translation, rotation and scale and cannot hold it: use --storage baked-vertices",
                    bone.name,
                    clip.name,
                    c.bones[p].name,
                    90.0 - cosine.clamp(-1.0, 1.0).acos().to_degrees()
                ),
                (e, _) => format!("bone '{}' clip '{}' frame {f}: {e:?}", bone.name, clip.name),
            })?;
            samples.push(sample);
        }
        make_continuous(&mut samples);
        out.push(BoneTrack { samples, reach: reach[b] });
    }
    Ok(out)
}

/// The f64 transform of a decoded sample (what the console rebuilds in fixed point).
pub fn sample_transform(s: &BoneSample) -> Affine {
    let r = |v: i32, frac: u32| v as f64 / (frac as f64).exp2();
    Affine::from_trs(&Trs {
        translation: s.translation.map(|v| r(v, TRANSLATION_FRAC)),
        rotation: s.rotation.map(|v| r(v, ROTATION_FRAC)),
        scale: s.scale.map(|v| r(v, SCALE_FRAC)),
    })
}

/// Model-space positions (new vertex order) of a decoded frame, composing bones parent-first.
pub fn decoded_positions(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    l: &RigidLayout,
) -> Result<Vec<[f64; 3]>, String> {
    let model = decoded_model(t, clip, frame, parents, sample_transform, Affine::mul)?;
    Ok(positions(&model, l))
}

/// Per-bone model transforms of a decoded frame: each sample made `local`, composed parent-first
/// with `mul(parent, local)`.
fn decoded_model<T>(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    local: impl Fn(&BoneSample) -> T,
    mul: impl Fn(&T, &T) -> T,
) -> Result<Vec<T>, String> {
    let mut samples = vec![BoneSample::default(); parents.len()];
    t.decode_pose(clip, frame, &mut samples).map_err(|e| format!("decoding clip {clip} frame {frame}: {e:?}"))?;
    let mut model: Vec<T> = Vec::with_capacity(parents.len());
    for (b, s) in samples.iter().enumerate() {
        let local = local(s);
        let m = match parents[b] {
            Some(p) => mul(&model[p], &local),
            None => local,
        };
        model.push(m);
    }
    Ok(model)
}

/// Positions (new vertex order) of the local vertices under per-bone model transforms; a blended
/// vertex at `(1 - w) * model[a] * p + w * model[b] * rel * p` (exact `rel`, the group's weight).
pub fn positions(model: &[Affine], l: &RigidLayout) -> Vec<[f64; 3]> {
    transform_vertices(model, l, |m, v| m.apply(v.map(|c| c as f64)), |a, b, pair, w| {
        let b = b.mul(&pair.rel);
        let w = w as f64 / 4096.0;
        let mut m = *a;
        for i in 0..3 {
            for j in 0..3 {
                m.m[i][j] = a.m[i][j] + (b.m[i][j] - a.m[i][j]) * w;
            }
            m.t[i] = a.t[i] + (b.t[i] - a.t[i]) * w;
        }
        m
    })
}

/// `apply(bone's model transform, local vertex)` for every local vertex, in the new vertex order;
/// a blended vertex with `blend(model[a], model[b], pair, weight)`.
fn transform_vertices<T>(
    model: &[T],
    l: &RigidLayout,
    apply: impl Fn(&T, &[i16; 3]) -> [f64; 3],
    blend: impl Fn(&T, &T, &BlendPair, u16) -> T,
) -> Vec<[f64; 3]> {
    let mut out = vec![[0.0; 3]; l.local.len()];
    // The ranges and groups cover every vertex once (in any order: `vertex_order`).
    for (b, &(first, count)) in l.ranges.iter().enumerate() {
        let range = first as usize..first as usize + count as usize;
        for (o, v) in out[range.clone()].iter_mut().zip(&l.local[range]) {
            *o = apply(&model[b], v);
        }
    }
    for g in &l.groups {
        let pair = &l.pairs[g.pair];
        let m = blend(&model[pair.a], &model[pair.b], pair, g.weight);
        let range = g.first as usize..g.first as usize + g.count as usize;
        for (o, v) in out[range.clone()].iter_mut().zip(&l.local[range]) {
            *o = apply(&m, v);
        }
    }
    out
}

/// Rounds `v / 2^shift` to nearest.
fn round_shift(v: i64, shift: u32) -> i64 {
    (v + (1 << (shift - 1))) >> shift
}

/// Model-space positions (new vertex order) the console computes for a decoded frame with the
/// runtime's fixed-point math: FP12 quaternion to matrix, scale folded into the columns, composition
/// and vertex transform exactly as the GTE truncates them. Reported next to the format's own error:
/// the FP12 matrices, not the pose format, bound the console's precision.
pub fn console_positions(
    t: &Tables,
    clip: usize,
    frame: usize,
    parents: &[Option<usize>],
    l: &RigidLayout,
) -> Result<Vec<[f64; 3]>, String> {
    use psxanim_runtime::math::{saturate_i16, Matrix, Quat, Vec3i16, Vec3i32, FRAC_BITS};
    let local = |s: &BoneSample| {
        let q = s.rotation.map(|v| saturate_i16(round_shift(v as i64, ROTATION_FRAC - FRAC_BITS)));
        let r = Quat::new(q[3], q[0], q[1], q[2]).to_rotation();
        let mut m = r;
        for row in m.iter_mut() {
            for (c, e) in row.iter_mut().enumerate() {
                *e = saturate_i16(round_shift(*e as i64 * s.scale[c] as i64, SCALE_FRAC));
            }
        }
        let tr = s.translation.map(|v| round_shift(v as i64, TRANSLATION_FRAC) as i32);
        Matrix::new(m, Vec3i32::new(tr[0], tr[1], tr[2]))
    };
    let model = decoded_model(t, clip, frame, parents, local, Matrix::mul)?;
    Ok(transform_vertices(
        &model,
        l,
        |m, v| m.transform(Vec3i16::from_array(*v)).to_array().map(|c| c as f64),
        |a, b, pair, w| psxanim_runtime::render::blend::blend_matrix(a, &b.mul(&pair.rel_fixed), w),
    ))
}

#[cfg(test)]
mod tests {
    use super::Blending;
    use crate::fbx::{Affine, Vertex};

    fn vertex(second: Option<(usize, f64)>) -> Vertex {
        Vertex { bind: [0.0; 3], bone: 0, second, second_fix: Affine::IDENTITY, mesh: "m".into(), source_index: 0 }
    }

    #[test]
    fn the_second_share_is_quantised_to_the_levels_and_below_the_threshold_stays_rigid() {
        let two = Blending { two: true, threshold: 1.0 / 64.0, levels: 32 };
        assert_eq!(two.weight(&vertex(Some((1, 0.25)))), Some((1, 1024)));
        assert_eq!(two.weight(&vertex(Some((1, 0.5)))), Some((1, 2048)));
        // 0.3 is nearest 10/32.
        assert_eq!(two.weight(&vertex(Some((2, 0.3)))), Some((2, 1280)));
        assert_eq!(two.weight(&vertex(Some((1, 0.01)))), None, "below the threshold");
        assert_eq!(two.weight(&vertex(None)), None);
        assert_eq!(Blending { threshold: 0.0, ..two }.weight(&vertex(Some((1, 0.01)))), None, "rounds to level 0");
        assert_eq!(Blending { two: false, ..two }.weight(&vertex(Some((1, 0.25)))), None, "--max-influences 1");
        assert_eq!(Blending { levels: 4, ..two }.weight(&vertex(Some((1, 0.3)))), Some((1, 1024)));
    }
}
