//! The light stage: each vertex's colour from up to three directional lights and an ambient colour,
//! computed by the GTE (NCS) from the vertex's normal, for a character imported with `--lighting`.
//!
//! ```text
//! per frame     each light's direction turned into view space by the camera's rotation
//! per bone      its light matrix LLM = directions (view) * the bone's model-view rotation, three MVMVA:
//!               the normals stay in their bone's space, as the positions do
//! per vertex    NCS: colour = ambient + colours * max(0, LLM * normal), saturated per channel
//! ```
//! [`light_rigid`] is the definition. A rigid character's ranges are usually lit in the projection's
//! pass instead ([`project_light_rigid`]: RTPT and NCT per triple of a bone's vertices, one asm loop
//! on the console), with the same results.
//! A colour channel of 128 draws a texel as stored (the GPU multiplies texel by colour / 128) and a
//! flat material at its own colour; 255 nearly doubles it. A light at full facing adds its `colour`;
//! the ambient is added everywhere. Blended vertices (`tables::blend`) are lit with their group's
//! blended matrix (`blend::group_matrix`), as they are projected. The stage runs after the projection
//! and before the triangles, only for an instance whose scratch holds a [`Lighting`] and whose tables
//! hold normals; the colours go to `Scratch::rgb` and each triangle's corners carry them (the sink
//! draws Gouraud packets).
//!
//! Fog (depth cueing toward a far colour) is not done yet.

use crate::gte::{Cop2, Gte};
use crate::math::{Matrix, Rotation, Vec3i16, Vec3i32};
use crate::tables::Tables;

/// One directional light.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Light {
    /// World-space direction from the surface toward the light, FP12 (4096 = 1), unit length.
    pub direction: Vec3i16,
    /// The colour it adds to a surface facing it squarely (128 = the texel or material as stored).
    pub colour: [u8; 3],
}

/// A scene's lights: up to three directional ones (an unused light has colour 0) and the ambient.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lighting {
    pub lights: [Light; 3],
    /// Added to every vertex (128 alone draws everything as stored).
    pub ambient: [u8; 3],
}

impl Lighting {
    /// One light and an ambient colour.
    pub const fn one(direction: Vec3i16, colour: [u8; 3], ambient: [u8; 3]) -> Lighting {
        let off = Light { direction: Vec3i16::new(0, 0, 0), colour: [0; 3] };
        Lighting { lights: [Light { direction, colour }, off, off], ambient }
    }

    /// LCM: row per channel, column per light; a colour byte is `LCM * IR / 4096 >> 4`.
    fn colour_matrix(&self) -> Rotation {
        let c = |channel: usize, light: usize| self.lights[light].colour[channel] as i16 * 16;
        [[c(0, 0), c(0, 1), c(0, 2)], [c(1, 0), c(1, 1), c(1, 2)], [c(2, 0), c(2, 1), c(2, 2)]]
    }

    /// The lights' directions in view space (rows), turned by `view`'s rotation: `Matrix::rotate`,
    /// by MVMVA (`Gte::rotate`, the same sums; RT = the view's rotation).
    fn view_directions<B: Cop2>(&self, gte: &mut Gte<B>, view: &Matrix) -> Rotation {
        gte.set_rotation(&view.rotation);
        let turned = self.lights.map(|l| {
            let v = gte.rotate(l.direction);
            [v.x, v.y, v.z].map(|c| c.clamp(-32768, 32767) as i16)
        });
        [turned[0], turned[1], turned[2]]
    }
}

/// Colours of every vertex of `tables` under `lighting`, seen through `view` (the camera's view
/// matrix), each bone's vertices with its model-view matrix `matrices[b]`: `rgb[v]` is vertex v's
/// `r | g << 8 | b << 16`. Loads the GTE's light, colour and background registers and RT.
pub fn light_rigid<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lighting: &Lighting, view: &Matrix, matrices: &[Matrix], rgb: &mut [u32]) {
    let directions = load_lights(gte, lighting, view);
    for bone in 0..tables.bone_count() {
        let b = tables.bone(bone);
        light_range(gte, tables, &directions, matrices.get(bone), b.first_vertex as usize, b.vertex_count as usize, rgb);
    }
    light_groups(gte, tables, &directions, matrices, rgb);
}

/// [`light_rigid`] of the blended vertices alone (their groups'), for [`project_light_rigid`]'s
/// callers.
pub fn light_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lighting: &Lighting, view: &Matrix, matrices: &[Matrix], rgb: &mut [u32]) {
    if tables.blend_group_count() != 0 {
        let directions = load_lights(gte, lighting, view);
        light_groups(gte, tables, &directions, matrices, rgb);
    }
}

/// LCM, BK and RGBC (code 0) for `lighting`; the lights' view-space directions.
fn load_lights<B: Cop2>(gte: &mut Gte<B>, lighting: &Lighting, view: &Matrix) -> Rotation {
    gte.set_color_matrix(&lighting.colour_matrix());
    let [r, g, b] = lighting.ambient.map(|c| c as i32 * 16);
    gte.set_back_color(Vec3i32::new(r, g, b));
    gte.set_rgbc(0);
    lighting.view_directions(gte, view)
}

/// LLM for the bone whose model-view matrix is `m`: the directions times its rotation (three MVMVA
/// with RT = the directions).
fn load_light_matrix<B: Cop2>(gte: &mut Gte<B>, directions: &Rotation, m: &Matrix) {
    gte.set_rotation(directions);
    let llm = gte.mul_rotation(&m.rotation);
    gte.set_light_matrix(&llm);
}

/// The colours of vertices `first..first + count` (as many as `rgb` and the tables hold) with the
/// light matrix of `m` (none: nothing), by NCS.
fn light_range<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, directions: &Rotation, m: Option<&Matrix>, first: usize, count: usize, rgb: &mut [u32]) {
    let Some(m) = m else { return };
    load_light_matrix(gte, directions, m);
    let end = (first + count).min(rgb.len()).min(tables.vertex_count());
    let Some(out) = rgb.get_mut(first..end) else { return };
    // The normals as the GTE's words when the blob is aligned in memory (the console's is).
    match tables.normal_words().and_then(|w| w.get(2 * first..2 * end)) {
        Some(normals) => {
            for (out, n) in out.iter_mut().zip(normals.chunks_exact(2)) {
                *out = gte.ncs_words(n[0], n[1]) & 0x00FF_FFFF;
            }
        }
        None => {
            for (v, out) in (first..end).zip(out.iter_mut()) {
                *out = gte.ncs(tables.vertex_normal(v)) & 0x00FF_FFFF;
            }
        }
    }
}

/// Every blend group's vertices, lit with the group's blended matrix (`blend::group_matrix`): their
/// normals turn as their positions do (linear blend skinning's normals, not renormalised: about
/// cos(angle / 2) long at a joint bent by angle).
fn light_groups<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, directions: &Rotation, matrices: &[Matrix], rgb: &mut [u32]) {
    for group in 0..tables.blend_group_count() {
        let m = super::blend::group_matrix(gte, tables, matrices, group);
        let g = tables.blend_group(group);
        light_range(gte, tables, directions, m.as_ref(), g.first_vertex as usize, g.vertex_count as usize, rgb);
    }
}

/// The projection of every rigid range (`project::project_rigid`) and its colours
/// ([`light_rigid`]'s) in one pass, `Cop2::project_light_bones` (one asm block on the console): per
/// bone LLM, RT and TR (`Cop2::load_bone_light`, the light stage's and the projection's operations),
/// then RTPT and NCT per triple of its vertices (`Cop2::rtpt_nct_range`: a range whose length is no
/// multiple of three ends with its last three again). The same SXY, SZ and colours as the two
/// stages, which remain the definition. False (nothing done: the caller runs the two stages) unless
/// the bone table, the vertices and the normals lie 4-aligned in memory, `rgb` is as long as `sxy`
/// and `sz` and no bone's range has one or two vertices. The blended vertices are left to the blend
/// stage and [`light_blended`].
#[allow(clippy::too_many_arguments)]
pub fn project_light_rigid<B: Cop2>(
    gte: &mut Gte<B>,
    tables: &Tables,
    lighting: &Lighting,
    view: &Matrix,
    matrices: &[Matrix],
    sxy: &mut [u32],
    sz: &mut [u32],
    rgb: &mut [u32],
) -> bool {
    let bytes = tables.bytes();
    let bone_count = tables.bone_count().min(matrices.len());
    let bones = crate::bytes::aligned_words(bytes, tables.bones_offset(), 2 * bone_count);
    let vertices = crate::bytes::aligned_words(bytes, tables.vertices_offset(), 2 * tables.vertex_count());
    let capacity = sxy.len().min(sz.len());
    let (Some(bones), Some(vertices), Some(normals), true) = (bones, vertices, tables.normal_words(), rgb.len() >= capacity) else {
        return false;
    };
    // Every range empty or of three vertices or more, inside the slices: all bones in one call
    // (one asm block on the console); else the two stages do it.
    let within = capacity.min(tables.vertex_count());
    let whole = matrices.iter().zip(bones.chunks_exact(2)).all(|(_, b)| {
        let (first, count) = ((b[0] >> 16) as usize, (b[1] & 0xFFFF) as usize);
        count == 0 || (count >= 3 && first + count <= within)
    });
    if !whole {
        return false;
    }
    let rows = crate::gte::rotation_words(&load_lights(gte, lighting, view));
    let job = crate::gte::LitBones { bones, matrices, directions: rows, vertices, normals };
    // SAFETY: every range was just checked against the slices (the vertices' and normals' words
    // hold `tables.vertex_count()` vertices, `rgb` at least `capacity`).
    unsafe { gte.backend_mut().project_light_bones(&job, sxy, sz, rgb) };
    true
}

/// A lit corner of an untextured material: the material's colour times the light's / 128, per channel
/// (saturated), as the GPU would modulate a texel. The GTE's CC gives the same colour bytes with LCM
/// zero, BK the material's channels times 32 and RGBC the light (the console's surface loop computes
/// it so; tested below).
pub fn modulate(material: [u8; 3], light: u32) -> [u8; 3] {
    let m = |c: usize| ((material[c] as u32 * ((light >> (8 * c)) & 0xFF)) >> 7).min(255) as u8;
    [m(0), m(1), m(2)]
}

#[cfg(test)]
mod tests {
    use super::modulate;
    use crate::gte::regs::{cmd, ctrl, data};
    use crate::gte::{Cop2, GteModel};

    /// CC with LCM = 0: IR = BK, then each channel `(RGBC * IR) << 4 >> 12`, / 16 and saturated into
    /// the colour FIFO: `floor(light * material * 32 / 2^12) = floor(light * material / 128)`.
    #[test]
    fn cc_with_zero_lcm_modulates_as_the_definition() {
        let mut gte = GteModel::default();
        for reg in [ctrl::LR1LR2, ctrl::LR3LG1, ctrl::LG2LG3, ctrl::LB1LB2, ctrl::LB3] {
            GteModel::write_ctrl(&mut gte, reg, 0);
        }
        for m in 0..=255u32 {
            let material = [m as u8, (255 - m) as u8, (m * 7 % 256) as u8];
            Cop2::write_ctrl::<{ ctrl::RBK }>(&mut gte, (material[0] as u32) << 5);
            Cop2::write_ctrl::<{ ctrl::GBK }>(&mut gte, (material[1] as u32) << 5);
            Cop2::write_ctrl::<{ ctrl::BBK }>(&mut gte, (material[2] as u32) << 5);
            for l in 0..=255u32 {
                // The top byte (the GPU code) is ignored by the definition and masked by the loop.
                let light = l | (255 - l) << 8 | (l * 13 % 256) << 16 | 0x5A << 24;
                Cop2::write_data::<{ data::RGBC }>(&mut gte, light);
                Cop2::command::<{ cmd::CC }>(&mut gte);
                let [r, g, b] = modulate(material, light & 0x00FF_FFFF);
                let want = r as u32 | (g as u32) << 8 | (b as u32) << 16;
                assert_eq!(Cop2::read_data::<{ data::RGB2 }>(&mut gte) & 0x00FF_FFFF, want, "material {material:?}, light {light:#x}");
            }
        }
    }
}
