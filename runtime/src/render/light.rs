//! The light stage: each vertex's colour from up to three directional lights and an ambient colour,
//! computed by the GTE (NCS) from the vertex's normal, for a character imported with `--lighting`.
//!
//! ```text
//! per frame     each light's direction turned into view space by the camera's rotation
//! per bone      its light matrix LLM = directions (view) * the bone's model-view rotation, three MVMVA:
//!               the normals stay in their bone's space, as the positions do
//! per vertex    NCS: colour = ambient + colours * max(0, LLM * normal), saturated per channel
//!               (fog: NCDS, that colour mixed toward the far colour by IR0)
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
//! Fog ([`Fog`], depth cueing): with `Lighting::fog` set the GTE mixes each colour toward the far
//! colour by IR0, which RTPT/RTPS compute from the depth (`IR0 = (DQB + DQA * H / SZ) >> 12`, 0 at
//! `near`, 4096 at `far`): NCDT per triple instead of NCT (NCDS where the light stage lights alone),
//! one IR0 a triple, its last vertex's (see [`light_rigid`]). Without fog the code is today's.

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

/// A scene's lights: up to three directional ones (an unused light has colour 0), the ambient and
/// optional fog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lighting {
    pub lights: [Light; 3],
    /// Added to every vertex (128 alone draws everything as stored).
    pub ambient: [u8; 3],
    /// Depth cueing toward a far colour (None: no fog, the lit colours as they are).
    pub fog: Option<Fog>,
}

/// Depth cueing (fog): each lit colour mixed toward `colour`, not at all at view-space depth `near`
/// and nearer, wholly at `far` and beyond, linearly in 1 / depth between (the GTE's rule). Depths
/// are view-space Z in the model-view matrices' units, the GTE's SZ (not the ordering table's OTZ).
/// Made by [`Fog::new`] for the camera's projection distance H, since the GTE's DQA and DQB hold
/// `H / SZ`'s slope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fog {
    colour: [u8; 3],
    near: u16,
    far: u16,
    dqa: i16,
    dqb: i32,
}

/// Why [`Fog::new`] refuses a fog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FogError {
    /// `far` is not beyond `near`, or `near` is 0.
    FarNotBeyondNear { near: u16, far: u16 },
    /// The projection distance H is 0 (no depth reaches the GTE's cue).
    NoProjection,
    /// The range is too narrow for its depth: DQA = 256 * near * far / (H * (far - near)) beyond 16
    /// bits, or DQB = 2^24 * far / (far - near) beyond 31. Widen it (or raise H).
    RangeTooNarrow { near: u16, far: u16, projection: u16 },
}

impl core::fmt::Display for FogError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            FogError::FarNotBeyondNear { near, far } => write!(f, "fog: far ({far}) must be beyond near ({near}), and near above 0"),
            FogError::NoProjection => write!(f, "fog: the projection distance H is 0"),
            FogError::RangeTooNarrow { near, far, projection } => {
                write!(f, "fog: {near}..{far} is too narrow for the GTE's depth cue at H = {projection} (DQA would pass 16 bits); widen it")
            }
        }
    }
}

impl Fog {
    /// Fog toward `colour` (128 = the texel or material as stored) between view-space depths `near`
    /// and `far` (SZ units) for a camera of projection distance `projection` (H). DQB = 2^24 * far /
    /// (far - near) and DQA = -256 * near * far / (H * (far - near)), rounded: IR0 = 0 at `near`,
    /// 4096 at `far` (within a few units of 4096: the rounding).
    pub const fn new(colour: [u8; 3], near: u16, far: u16, projection: u16) -> Result<Fog, FogError> {
        if near == 0 || far <= near {
            return Err(FogError::FarNotBeyondNear { near, far });
        }
        if projection == 0 {
            return Err(FogError::NoProjection);
        }
        let (span, h) = ((far - near) as i64, projection as i64);
        let dqa = (256 * near as i64 * far as i64 + h * span / 2) / (h * span);
        let dqb = (((1i64 << 24) * far as i64) + span / 2) / span;
        if dqa > 32768 || dqb > i32::MAX as i64 {
            return Err(FogError::RangeTooNarrow { near, far, projection });
        }
        Ok(Fog { colour, near, far, dqa: -dqa as i16, dqb: dqb as i32 })
    }

    pub const fn colour(&self) -> [u8; 3] {
        self.colour
    }
    pub const fn near(&self) -> u16 {
        self.near
    }
    pub const fn far(&self) -> u16 {
        self.far
    }
    /// The GTE's DQA and DQB.
    pub const fn depth_cue(&self) -> (i16, i32) {
        (self.dqa, self.dqb)
    }
}

impl Lighting {
    /// One light and an ambient colour, no fog.
    pub const fn one(direction: Vec3i16, colour: [u8; 3], ambient: [u8; 3]) -> Lighting {
        let off = Light { direction: Vec3i16::new(0, 0, 0), colour: [0; 3] };
        Lighting { lights: [Light { direction, colour }, off, off], ambient, fog: None }
    }

    /// These lights with `fog`.
    pub const fn with_fog(self, fog: Fog) -> Lighting {
        Lighting { fog: Some(fog), ..self }
    }

    /// LCM: row per channel, column per light; a colour byte is `LCM * IR / 4096 >> 4`: each colour
    /// `<< shift`, 4 (x 16), with fog 5 (doubled, see [`load_lights`]).
    fn colour_matrix(&self, shift: u32) -> Rotation {
        let c = |channel: usize, light: usize| (self.lights[light].colour[channel] as i16) << shift;
        [[c(0, 0), c(0, 1), c(0, 2)], [c(1, 0), c(1, 1), c(1, 2)], [c(2, 0), c(2, 1), c(2, 2)]]
    }

    /// The lights' directions in view space (rows), turned by `view`'s rotation: `Matrix::rotate`,
    /// by MVMVA (`Gte::rotate`, the same sums; RT = the view's rotation).
    fn view_directions<B: Cop2>(&self, gte: &mut Gte<B>, view: &Matrix) -> Rotation {
        gte.set_rotation(&view.rotation);
        // A light without colour adds nothing (its LCM column is zero): its row stays zero, unturned.
        let turned = self.lights.map(|l| {
            if l.colour == [0; 3] {
                return [0; 3];
            }
            let v = gte.rotate(l.direction);
            [v.x, v.y, v.z].map(|c| c.clamp(-32768, 32767) as i16)
        });
        [turned[0], turned[1], turned[2]]
    }
}

/// Colours of every vertex of `tables` under `lighting`, seen through `view` (the camera's view
/// matrix), each bone's vertices with its model-view matrix `matrices[b]`: `rgb[v]` is vertex v's
/// `r | g << 8 | b << 16`. Loads the GTE's light, colour and background registers and RT. With fog,
/// each range's vertices go in threes from its first (its last three again for a remainder), each
/// three fogged by its last vertex's depth cue: what RTPT + NCDT give the projection's pass.
pub fn light_rigid<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lighting: &Lighting, view: &Matrix, matrices: &[Matrix], rgb: &mut [u32]) {
    let lit = Lit { directions: load_lights(gte, lighting, view), fog: lighting.fog };
    for bone in 0..tables.bone_count() {
        let b = tables.bone(bone);
        light_range(gte, tables, &lit, matrices.get(bone), b.first_vertex as usize, b.vertex_count as usize, rgb);
    }
    light_groups(gte, tables, &lit, matrices, rgb);
}

/// [`light_rigid`] of the blended vertices alone (their groups'), for [`project_light_rigid`]'s
/// callers.
pub fn light_blended<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lighting: &Lighting, view: &Matrix, matrices: &[Matrix], rgb: &mut [u32]) {
    if tables.blend_group_count() != 0 {
        let lit = Lit { directions: load_lights(gte, lighting, view), fog: lighting.fog };
        light_groups(gte, tables, &lit, matrices, rgb);
    }
}

/// What the light stage's ranges share: the lights' view-space directions and the fog.
struct Lit {
    directions: Rotation,
    fog: Option<Fog>,
}

/// LCM, BK and RGBC (code 0) for `lighting`, with fog FC, DQA and DQB too; the lights'
/// view-space directions.
///
/// With fog the colours go through NCDS/NCDT, which multiply the lit colour by RGBC before the
/// depth cue (`(RGBC << 4) * IR`, then `>> 12`): RGBC = 128 and LCM and BK doubled give NCS's
/// colour bit for bit where IR0 is 0 (floor(floor(2y) / 2) = floor(y)), so fog nearer than `near`
/// changes nothing. FC = the far colour x 16, in the colours' units.
fn load_lights<B: Cop2>(gte: &mut Gte<B>, lighting: &Lighting, view: &Matrix) -> Rotation {
    // Shifts, not multiplies (a multiply costs the console several cycles).
    let shift = if lighting.fog.is_some() { 5 } else { 4 };
    gte.set_color_matrix(&lighting.colour_matrix(shift));
    let [r, g, b] = lighting.ambient.map(|c| (c as i32) << shift);
    gte.set_back_color(Vec3i32::new(r, g, b));
    match &lighting.fog {
        None => gte.set_rgbc(0),
        Some(fog) => {
            gte.set_rgbc(0x0080_8080);
            load_far_colour(gte, fog);
            gte.set_depth_cue(fog.dqa, fog.dqb);
        }
    }
    lighting.view_directions(gte, view)
}

/// FC = the fog's far colour x 16, in the colours' units.
fn load_far_colour<B: Cop2>(gte: &mut Gte<B>, fog: &Fog) {
    let [r, g, b] = fog.colour.map(|c| c as i32 * 16);
    gte.set_far_color(Vec3i32::new(r, g, b));
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
fn light_range<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lit: &Lit, m: Option<&Matrix>, first: usize, count: usize, rgb: &mut [u32]) {
    let Some(m) = m else { return };
    load_light_matrix(gte, &lit.directions, m);
    let end = (first + count).min(rgb.len()).min(tables.vertex_count());
    let Some(out) = rgb.get_mut(first..end) else { return };
    if lit.fog.is_some() {
        return fog_range(gte, tables, m, first, out);
    }
    // The normals as the GTE's words when the blob is aligned in memory (the console's is): packed,
    // each z the high half of its vertex's VZ word (VZ keeps the low half of the word it is given).
    let words = crate::bytes::aligned_words(tables.bytes(), tables.vertices_offset(), 2 * tables.vertex_count());
    let normals = tables.normal_xy_words().and_then(|n| n.get(first..end));
    match (normals, words.and_then(|w| w.get(2 * first..2 * end))) {
        (Some(normals), Some(vertices)) => {
            for ((out, n), v) in out.iter_mut().zip(normals).zip(vertices.chunks_exact(2)) {
                *out = gte.ncs_words(*n, v[1] >> 16) & 0x00FF_FFFF;
            }
        }
        _ => {
            for (v, out) in (first..end).zip(out.iter_mut()) {
                *out = gte.ncs(tables.vertex_normal(v)) & 0x00FF_FFFF;
            }
        }
    }
}

/// Every blend group's vertices, lit with the group's blended matrix (`blend::group_matrix`): their
/// normals turn as their positions do (linear blend skinning's normals, not renormalised: about
/// cos(angle / 2) long at a joint bent by angle).
fn light_groups<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, lit: &Lit, matrices: &[Matrix], rgb: &mut [u32]) {
    for group in 0..tables.blend_group_count() {
        let m = super::blend::group_matrix(gte, tables, matrices, group);
        // The blend's INTPL runs with FC = a matrix column: the fog's far colour back for NCDS.
        if let Some(fog) = &lit.fog {
            load_far_colour(gte, fog);
        }
        let g = tables.blend_group(group);
        light_range(gte, tables, lit, m.as_ref(), g.first_vertex as usize, g.vertex_count as usize, rgb);
    }
}

/// The fogged colours of the vertices from `first` (`out`: as many as it holds) in threes from the
/// range's start, the range's last three again for a remainder (as `Cop2::rtpt_nct_range` does; a
/// range of one or two vertices is one group): each three's IR0 from its last vertex (RTPS with RT
/// and TR = `m`: RTPT's depth cue of that vertex), then NCDS per vertex (NCDT's operation, which the
/// projection's pass runs after each RTPT).
fn fog_range<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, m: &Matrix, first: usize, out: &mut [u32]) {
    gte.set_matrix(m);
    let n = out.len();
    for start in (0..n).step_by(3) {
        let from = if start + 3 > n { n.saturating_sub(3) } else { start };
        let to = (from + 3).min(n);
        let [x, y, z] = tables.vertex(first + to - 1);
        gte.rtps(Vec3i16::new(x, y, z));
        for (v, out) in (from..to).zip(&mut out[from..to]) {
            *out = gte.ncds(tables.vertex_normal(first + v)) & 0x00FF_FFFF;
        }
    }
}

/// The projection of every rigid range (`project::project_rigid`) and its colours
/// ([`light_rigid`]'s) in one pass, `Cop2::project_light_bones` (one asm block on the console): per
/// bone LLM, RT and TR (`Cop2::load_bone_light`, the light stage's and the projection's operations),
/// then RTPT and NCT (NCDT with fog) per triple of its vertices (`Cop2::rtpt_nct_range`: a range whose length is no
/// multiple of three ends with its last three again). The same SXY, SZ and colours as the two
/// stages, which remain the definition. False (nothing done: the caller runs the two stages) unless
/// the normals are packed (z in the vertices' words: three loads a vertex), the bone table, the
/// vertices and the normals lie 4-aligned in memory, `sxy`, `sz` and `rgb` hold every vertex and no
/// bone's range has one or two vertices. The blended vertices are left to the blend
/// stage and [`light_blended`]. On the console it overwrites the blend stage's scratchpad work area
/// (`gte::blend::WORK_AT`, 40 bytes), as `render` may: a game keeps nothing there across it.
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
    // Every range empty or of three vertices or more (checked at parse), inside the slices (the
    // parser keeps each range within the vertices): all bones in one call (one asm block on the
    // console); else the two stages do it.
    let whole = tables.ranges_in_triples() && capacity >= tables.vertex_count() && rgb.len() >= capacity;
    let (Some(bones), Some(vertices), Some(normals), true) = (bones, vertices, tables.normal_xy_words(), whole) else {
        return false;
    };
    let rows = crate::gte::rotation_words(&load_lights(gte, lighting, view));
    let job = crate::gte::LitBones { bones, matrices, directions: rows, vertices, normals, fog: lighting.fog.is_some() };
    // SAFETY: the parser keeps every range within `tables.vertex_count()` vertices and checked it
    // empty or of three or more; the vertices' and normals' words hold that many vertices, `sxy`,
    // `sz` and `rgb` at least as many (just checked).
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
    use super::{load_light_matrix, load_lights, modulate, Fog, FogError, Lighting};
    use crate::gte::regs::{cmd, ctrl, data};
    use crate::gte::{Cop2, Gte, GteModel};
    use crate::math::{Matrix, Vec3i16, Vec3i32, IDENTITY_ROTATION};

    /// A light straight from the camera's side, colour (100, 50, 200), ambient (20, 30, 40); fog
    /// toward (16, 24, 64) from depth 1,000 to 3,000 at H = 300.
    fn scene(fog: bool) -> Lighting {
        let lighting = Lighting::one(Vec3i16::new(0, 0, -4096), [100, 50, 200], [20, 30, 40]);
        if fog { lighting.with_fog(Fog::new([16, 24, 64], 1000, 3000, 300).unwrap()) } else { lighting }
    }

    /// The GTE with `lighting` loaded for an identity view and bone (RT identity, TR 0, H 300).
    fn loaded(lighting: &Lighting) -> Gte<GteModel> {
        let mut gte = Gte::with_backend(GteModel::default());
        let identity = Matrix::new(IDENTITY_ROTATION, Vec3i32::ZERO);
        let directions = load_lights(&mut gte, lighting, &identity);
        load_light_matrix(&mut gte, &directions, &identity);
        gte.set_matrix(&identity);
        gte.set_screen(160, 120, 300);
        gte
    }

    fn bytes(word: u32) -> [u32; 3] {
        [word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF]
    }

    /// Worked by hand from psx-spx's NCDS: facing the light, IR = 2 x (ambient + light) x 16 (LCM and
    /// BK doubled, RGBC 128), e.g. red 3,840; the lit MAC (128 << 4) x 3,840 = 7,864,320; the step
    /// toward FC (16 x 16 << 12 = 1,048,576) is -6,815,744 >> 12 = -1,664; with IR0 = 2,048 (half)
    /// (7,864,320 - 1,664 x 2,048) >> 12 = 1,088, / 16 = 68, halfway between 120 and 16. Green
    /// 80 -> 52, blue 240 -> 152 the same way. IR0 = 0 gives NCS's colour without fog (120, 80, 240).
    #[test]
    fn ncds_with_fog_gives_the_hand_worked_colours() {
        let facing = Vec3i16::new(0, 0, -4096);
        let mut plain = loaded(&scene(false));
        assert_eq!(bytes(plain.ncs(facing)), [120, 80, 240]);
        let mut fogged = loaded(&scene(true));
        fogged.write_data::<{ data::IR0 }>(2048);
        assert_eq!(bytes(fogged.ncds(facing)), [68, 52, 152]);
        fogged.write_data::<{ data::IR0 }>(4096);
        assert_eq!(bytes(fogged.ncds(facing)), [16, 24, 64]);
    }

    /// Where IR0 is 0 (nearer than `near`) fog changes nothing: NCDS with RGBC 128 and LCM, BK doubled
    /// is NCS's colour bit for bit, for every normal direction and light strength tried (saturated
    /// channels included).
    #[test]
    fn fog_at_ir0_zero_is_the_unfogged_colour() {
        for (light, ambient) in [([100, 50, 200], [20, 30, 40]), ([255, 255, 255], [255, 128, 0]), ([3, 7, 131], [1, 0, 77])] {
            let base = Lighting::one(Vec3i16::new(-2365, -2365, -2365), light, ambient);
            let (mut plain, mut fogged) = (loaded(&base), loaded(&base.with_fog(Fog::new([255, 0, 9], 1000, 3000, 300).unwrap())));
            for i in 0..2000i32 {
                let n = Vec3i16::new(((i * 37) % 8191 - 4095) as i16, ((i * 91) % 8191 - 4095) as i16, ((i * 53) % 8191 - 4095) as i16);
                fogged.write_data::<{ data::IR0 }>(0);
                assert_eq!(fogged.ncds(n) & 0xFF_FFFF, plain.ncs(n) & 0xFF_FFFF, "normal {n:?}, light {light:?}");
            }
        }
    }

    /// RTPS's depth cue with the fog's DQA and DQB: IR0 0 at `near` and nearer, 4096 at `far` and
    /// beyond (within the rounding of DQA), rising in between.
    #[test]
    fn the_depth_cue_runs_from_near_to_far() {
        let mut gte = loaded(&scene(true));
        let mut ir0 = |z: i16| {
            gte.rtps(Vec3i16::new(0, 0, z));
            gte.ir0() as i32
        };
        assert_eq!(ir0(500), 0);
        assert!(ir0(1000) <= 4, "{}", ir0(1000));
        assert!((1950..2150).contains(&ir0(1500)), "{}", ir0(1500));
        assert!(ir0(3000) >= 4090, "{}", ir0(3000));
        assert_eq!(ir0(6000), 4096);
        assert_eq!(Fog::new([0; 3], 1000, 3000, 300).unwrap().depth_cue(), (-1280, 25_165_824));
    }

    /// A fog whose far depth is not beyond its near one, a zero H or a range too narrow for the
    /// GTE's 16-bit DQA is refused with an error that says which, never a panic.
    #[test]
    fn bad_fog_ranges_are_refused() {
        assert_eq!(Fog::new([0; 3], 3000, 3000, 300), Err(FogError::FarNotBeyondNear { near: 3000, far: 3000 }));
        assert_eq!(Fog::new([0; 3], 3000, 1000, 300), Err(FogError::FarNotBeyondNear { near: 3000, far: 1000 }));
        assert_eq!(Fog::new([0; 3], 0, 1000, 300), Err(FogError::FarNotBeyondNear { near: 0, far: 1000 }));
        assert_eq!(Fog::new([0; 3], 1000, 3000, 0), Err(FogError::NoProjection));
        assert_eq!(Fog::new([0; 3], 30_000, 31_000, 320), Err(FogError::RangeTooNarrow { near: 30_000, far: 31_000, projection: 320 }));
        let e = Fog::new([0; 3], 3000, 1000, 300).unwrap_err();
        extern crate std;
        use std::string::ToString;
        assert_eq!(e.to_string(), "fog: far (1000) must be beyond near (3000), and near above 0");
    }

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
