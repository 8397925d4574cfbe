//! `psxanim inspect MODEL.pxsk`: what a compiled character holds, and the model-space vertex positions
//! of one frame as the console computes them.
//!
//! Everything is read back through the runtime's own code (`psxanim_runtime::tables` parses and
//! decodes, `render::bones::model_matrices` composes the rigid pose on the host's bit-exact GTE model,
//! `Gte::transform` is the MVMVA the console runs on each vertex), so what is printed is what the
//! console would compute, not what the importer meant to store.

use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::math::{Matrix, Vec3i16};
use psxanim_runtime::render::bones::model_matrices;
use crate::texture::tim::Rect;
use psxanim_runtime::tables::{BoneSample, Header, Storage, Tables, VERSION};
use serde::Serialize;

use super::CliError;

#[derive(Serialize)]
pub struct TablesReport {
    pub format: &'static str,
    pub version: u16,
    pub storage: &'static str,
    pub bytes: usize,
    pub bounds: [[i16; 3]; 2],
    pub bones: Vec<BoneReport>,
    pub vertices: usize,
    pub triangles: usize,
    pub quads: usize,
    pub primitive_words: usize,
    /// Base colour of every material.
    pub materials: Vec<[u8; 3]>,
    /// Per material, the texture it draws with (None: its colour alone).
    pub material_textures: Vec<Option<usize>>,
    pub textures: Vec<TextureReport>,
    pub clips: Vec<ClipReport>,
    /// Rigid-gte version 6: the blend section's groups (vertices between two bones, one weight each).
    pub blend_groups: Vec<BlendGroupReport>,
    /// The decoded frame, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameReport>,
}

#[derive(Serialize)]
pub struct BlendGroupReport {
    /// The pair's bones (indices): `a` the strongest, `b` the second.
    pub a: usize,
    pub b: usize,
    /// Bone b's share, FP12.
    pub weight: u16,
    pub first_vertex: u16,
    pub vertex_count: u16,
}

#[derive(Serialize)]
pub struct BoneReport {
    pub name: String,
    pub parent: Option<u16>,
    /// The bone's vertex range (rigid-gte: the vertices the GTE transforms with its matrix).
    pub first_vertex: u16,
    pub vertex_count: u16,
}

/// A texture of the blob and the VRAM place it proposes (a game may place it elsewhere).
#[derive(Serialize)]
pub struct TextureReport {
    pub depth_bits: u8,
    pub width: u16,
    pub height: u16,
    pub tiled: bool,
    /// The default places, in VRAM's 16-bit units.
    pub vram: Rect,
    pub clut: Option<Rect>,
}

#[derive(Serialize)]
pub struct ClipReport {
    pub name: String,
    pub frames: u16,
    pub rate_hz: u16,
    /// Bytes of the clip's data section (pose stream, or frame table).
    pub bytes: u32,
}

#[derive(Serialize)]
pub struct FrameReport {
    pub clip: String,
    pub frame: usize,
    /// Model-space position of every vertex, in GTE units (1 m = 4096), PSX axes.
    pub positions: Vec<[i32; 3]>,
}

fn storage_name(s: Storage) -> &'static str {
    match s {
        Storage::RigidGte => "rigid-gte",
        Storage::BakedVertices => "baked-vertices",
    }
}

/// Reads `bytes` (a `.pxsk` blob) and, if `clip` or `frame` is given, decodes that frame (clip by
/// name or index, default 0; frame default 0).
pub fn report(path: &str, bytes: &[u8], clip: Option<&str>, frame: Option<usize>) -> Result<TablesReport, CliError> {
    let version = Header::read(bytes).map(|h| h.version).unwrap_or(VERSION);
    let t = Tables::parse(bytes).map_err(|e| CliError::invalid(format!("{path}: compiled tables (PXSK version {version}): {e:?}")))?;
    let mut textures = Vec::with_capacity(t.texture_count());
    for i in 0..t.texture_count() {
        let x = t.texture(i).map_err(|e| CliError::invalid(format!("{path}: texture {i}: {e:?}")))?;
        textures.push(TextureReport {
            depth_bits: x.depth.bits(),
            width: x.width,
            height: x.height,
            tiled: x.tiled,
            vram: x.image_at.into(),
            clut: x.clut_at.map(Into::into),
        });
    }
    let name = |offset: u16, what: String| -> Result<String, CliError> {
        t.name(offset).map(str::to_string).map_err(|e| CliError::invalid(format!("{path}: the name of {what}: {e:?}")))
    };
    let mut bones = Vec::with_capacity(t.bone_count());
    for b in 0..t.bone_count() {
        let bone = t.bone(b);
        bones.push(BoneReport {
            name: name(bone.name_offset, format!("bone {b}"))?,
            parent: bone.parent,
            first_vertex: bone.first_vertex,
            vertex_count: bone.vertex_count,
        });
    }
    let mut clips = Vec::with_capacity(t.clip_count());
    for c in 0..t.clip_count() {
        let entry = t.clip(c).map_err(|e| CliError::invalid(format!("{path}: clip {c}: {e:?}")))?;
        clips.push(ClipReport {
            name: name(entry.name_offset, format!("clip {c}"))?,
            frames: entry.frame_count,
            rate_hz: entry.rate_hz,
            bytes: entry.data_size,
        });
    }
    let frame = match (clip, frame) {
        (None, None) => None,
        (clip, frame) => {
            let index = match clip {
                None => 0,
                Some(c) => t.find_clip(c).or_else(|| c.parse::<usize>().ok().filter(|&i| i < t.clip_count())).ok_or_else(|| {
                    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
                    CliError::invalid(format!("{path}: no clip named or numbered '{c}' (clips: {})", names.join(", ")))
                })?,
            };
            let Some(info) = clips.get(index) else {
                return Err(CliError::invalid(format!("{path}: the tables hold no clip to decode a frame of")));
            };
            let frame = frame.unwrap_or(0);
            if frame >= info.frames as usize {
                return Err(CliError::invalid(format!(
                    "{path}: clip '{}' has frames 0..{}, not frame {frame}",
                    info.name,
                    info.frames.saturating_sub(1)
                )));
            }
            let positions = positions(&t, index, frame).map_err(|e| CliError::invalid(format!("{path}: clip '{}' frame {frame}: {e}", info.name)))?;
            Some(FrameReport { clip: info.name.clone(), frame, positions })
        }
    };
    Ok(TablesReport {
        format: "pxsk",
        version,
        storage: storage_name(t.storage()),
        bytes: bytes.len(),
        bounds: t.bounds(),
        bones,
        vertices: t.vertex_count(),
        triangles: t.triangle_count(),
        quads: t.quad_count(),
        primitive_words: t.primitive_words(),
        materials: (0..t.material_count()).map(|m| t.material(m)).collect(),
        material_textures: (0..t.material_count()).map(|m| t.material_texture(m)).collect(),
        textures,
        clips,
        blend_groups: (0..t.blend_group_count())
            .map(|g| {
                let group = t.blend_group(g);
                let pair = t.blend_pair(group.pair as usize);
                BlendGroupReport {
                    a: pair.a as usize,
                    b: pair.b as usize,
                    weight: group.weight,
                    first_vertex: group.first_vertex,
                    vertex_count: group.vertex_count,
                }
            })
            .collect(),
        frame,
    })
}

/// Model-space vertex positions of `frame` of `clip`: baked frames as the console's decoder writes them
/// into its scratch; rigid vertices through their bone's model matrix (the runtime's composition on the
/// GTE model, identity object) by MVMVA.
pub fn positions(t: &Tables, clip: usize, frame: usize) -> Result<Vec<[i32; 3]>, String> {
    match t.storage() {
        Storage::BakedVertices => {
            let mut out = vec![[0i16; 3]; t.vertex_count()];
            t.decode_baked_frame(clip, frame, &mut out).map_err(|e| format!("{e:?}"))?;
            Ok(out.into_iter().map(|v| v.map(i32::from)).collect())
        }
        Storage::RigidGte => {
            let mut samples = vec![BoneSample::default(); t.bone_count()];
            t.decode_pose(clip, frame, &mut samples).map_err(|e| format!("{e:?}"))?;
            let mut gte = Gte::with_backend(GteModel::new());
            let mut matrices = vec![Matrix::IDENTITY; t.bone_count()];
            model_matrices(&mut gte, t, &samples, &mut matrices);
            let mut out = vec![[0i32; 3]; t.vertex_count()];
            for (b, m) in matrices.iter().enumerate() {
                let bone = t.bone(b);
                gte.set_matrix(m);
                let first = (bone.first_vertex as usize).min(out.len());
                let end = (first + bone.vertex_count as usize).min(out.len());
                for (v, p) in out.iter_mut().enumerate().take(end).skip(first) {
                    *p = gte.transform(Vec3i16::from_array(t.vertex(v))).to_array();
                }
            }
            // Blended vertices (two bones): each group's blended matrix, as the console's blend stage.
            for g in 0..t.blend_group_count() {
                let group = t.blend_group(g);
                let Some(m) = psxanim_runtime::render::blend::group_matrix(&mut gte, t, &matrices, g) else { continue };
                gte.set_matrix(&m);
                let first = (group.first_vertex as usize).min(out.len());
                let end = (first + group.vertex_count as usize).min(out.len());
                for (v, p) in out.iter_mut().enumerate().take(end).skip(first) {
                    *p = gte.transform(Vec3i16::from_array(t.vertex(v))).to_array();
                }
            }
            Ok(out)
        }
    }
}

/// The readable summary.
pub fn summary(r: &TablesReport) -> String {
    let mut s = format!(
        "compiled character (PXSK version {}), {}, {} bytes\nbones {}  vertices {}  triangles {}  quads {}  primitive stream {} words  materials {}\nbounds {:?} .. {:?}\n",
        r.version,
        r.storage,
        r.bytes,
        r.bones.len(),
        r.vertices,
        r.triangles,
        r.quads,
        r.primitive_words,
        r.materials.len(),
        r.bounds[0],
        r.bounds[1]
    );
    for (i, b) in r.bones.iter().enumerate() {
        let parent = b.parent.map_or("-".to_string(), |p| p.to_string());
        s += &format!("  bone {i:<3} {:<24} parent {parent:<4} vertices {}+{}\n", b.name, b.first_vertex, b.vertex_count);
    }
    for (i, g) in r.blend_groups.iter().enumerate() {
        s += &format!(
            "  blend {i:<3} {} + {} weight {:.3} vertices {}+{}\n",
            r.bones[g.a].name,
            r.bones[g.b].name,
            g.weight as f64 / 4096.0,
            g.first_vertex,
            g.vertex_count
        );
    }
    for (i, x) in r.textures.iter().enumerate() {
        let users: Vec<String> =
            r.material_textures.iter().enumerate().filter(|(_, t)| **t == Some(i)).map(|(m, _)| m.to_string()).collect();
        let clut = x.clut.as_ref().map_or("no CLUT".to_string(), |c| format!("CLUT at ({}, {})", c.x, c.y));
        s += &format!(
            "  texture {i:<3} {}x{} {}-bit{}, VRAM ({}, {}) {}x{} halfwords, {clut} (default place), materials {}\n",
            x.width,
            x.height,
            x.depth_bits,
            if x.tiled { " tiled" } else { "" },
            x.vram.x,
            x.vram.y,
            x.vram.w,
            x.vram.h,
            users.join(",")
        );
    }
    for (i, c) in r.clips.iter().enumerate() {
        s += &format!("  clip {i:<3} {:<24} {:>5} frames at {} Hz, {} bytes\n", c.name, c.frames, c.rate_hz, c.bytes);
    }
    if let Some(f) = &r.frame {
        s += &format!("clip '{}' frame {}: model-space vertex positions (GTE units)\n", f.clip, f.frame);
        for (i, p) in f.positions.iter().enumerate() {
            s += &format!("  v{i:<4} {:>7} {:>7} {:>7}\n", p[0], p[1], p[2]);
        }
    }
    s
}
