//! Textures (issue 22): a material's image as the console stores it.
//!
//! ```text
//! find      the image a material names: embedded in the file, at the path the file gives (relative
//!           to the model), its file name beside the model or in --textures DIR
//! decode    PNG, JPEG, TGA, BMP (the `image` crate)
//! convert   fitted to a 256 x 256 texture page, to a 4- or 8-bit CLUT or 15-bit direct colour
//!           with the console's colour rules (`convert`)
//! place     a VRAM rectangle outside two 320 x 240 frame buffers (`place`)
//! write     a TIM file (`tim`), the format every PS1 tool reads
//! ```

pub mod convert;
pub mod find;
pub mod place;
pub mod tim;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::fbx::Character;
use convert::ConsoleTexture;
use find::Found;
use tim::{Depth, Rect, Tim};

/// What `import` asks of the textures.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--texture-depth`; None chooses from each image.
    pub depth: Option<Depth>,
    pub dither: bool,
    /// `--textures DIR`: one more folder to look in.
    pub dir: Option<PathBuf>,
    /// `--missing-textures flat`: a material whose image is missing keeps its colour, with a warning.
    pub missing_flat: bool,
}

/// One converted texture, as `import` reports it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub material: String,
    /// The image's file, or "embedded".
    pub source: String,
    pub depth_bits: u32,
    pub width: u32,
    pub height: u32,
    /// Distinct colours of the image (as the console's 15-bit colours), and in its CLUT.
    pub source_colours: usize,
    pub clut_colours: usize,
    pub quantised: bool,
    pub resized_from: Option<(u32, u32)>,
    /// The default VRAM placement (16-bit units).
    pub vram: Rect,
    pub clut: Option<Rect>,
    /// The texture coordinates its material's triangles use (u right, v down), None without UVs.
    pub uv_range: Option<[[f64; 2]; 2]>,
    /// How UVs outside 0..1 are drawn: "none" (all inside), "texture window" (the GPU repeats a
    /// power-of-two texture), "clamped" (another size: the GPU cannot repeat it; with a warning).
    pub tiling: &'static str,
}

/// A texture coordinate (0..1 across the image, `size` texels) as the texel the GPU reads: 0 and 1 land
/// on the first and last texels themselves (`round(uv * (size - 1))`), so the GPU's interpolation,
/// which truncates, never reaches past an island's edge texel into its neighbour across a seam.
/// Outside 0..1 it is clamped (a texture the texture window does not repeat).
pub fn texel(uv: f64, size: u32) -> u32 {
    let last = size.saturating_sub(1) as f64;
    (uv.clamp(0.0, 1.0) * last).round() as u32
}

/// The texels of one triangle's three corners along one axis of a tiled texture (`size` texels, a
/// power of two the texture window repeats), and whether the triangle spans more than a UV word
/// reaches (0..=255), its far corners then clamped to 255.
///
/// Each corner lands at `round(uv * size)` (one tile is exactly `size` texels, so the pattern repeats
/// at the file's scale) and the whole triangle moves by whole tiles until its smallest corner lies in
/// the first: the corners keep their offsets, so the GPU interpolates across tile edges (texel 100 of
/// a 64-texel texture is texel 36 of the second tile once the window masks it). Wrapping each corner
/// alone would fold a triangle that crosses a tile edge back over the texture. A far corner exactly at
/// 256 (four 64-texel tiles) is the edge the GPU does not draw: moved to 255 without a warning.
pub fn tiled_texels(uv: [f64; 3], size: u32) -> ([u32; 3], bool) {
    let size = size.max(1) as i64;
    let t = uv.map(|x| (x * size as f64).round() as i64);
    let shift = t.iter().min().copied().unwrap_or(0).div_euclid(size) * size;
    let t = t.map(|x| x - shift);
    let too_far = t.iter().any(|&x| x > 256);
    (t.map(|x| x.clamp(0, 255) as u32), too_far)
}

/// Whether a texture of `width` x `height` texels can be repeated by the GPU's texture window:
/// powers of two of 8 or more (its masks count 8 texels).
pub fn window_repeats(width: u32, height: u32) -> bool {
    let fits = |s: u32| s.is_power_of_two() && s >= psxanim_runtime::tables::textures::WINDOW_STEP as u32;
    fits(width) && fits(height)
}

/// The UV range of the triangles of material `m` in `c`.
fn uv_range(c: &Character, m: usize) -> Option<[[f64; 2]; 2]> {
    let mut range: Option<[[f64; 2]; 2]> = None;
    for (t, uvs) in c.triangles.iter().zip(&c.uvs) {
        let Some(uvs) = uvs.filter(|_| t.material == m) else { continue };
        for uv in uvs {
            let r = range.get_or_insert([uv, uv]);
            for k in 0..2 {
                r[0][k] = r[0][k].min(uv[k]);
                r[1][k] = r[1][k].max(uv[k]);
            }
        }
    }
    range
}

/// Triangles of material `m` in `c` whose corners, on a tiled `width` x `height` texture, lie further
/// apart than a packet's UVs reach ([`tiled_texels`]).
fn too_far_triangles(c: &Character, m: usize, width: u32, height: u32) -> usize {
    c.triangles
        .iter()
        .zip(&c.uvs)
        .filter_map(|(t, uvs)| uvs.filter(|_| t.material == m))
        .filter(|uvs| tiled_texels(uvs.map(|p| p[0]), width).1 || tiled_texels(uvs.map(|p| p[1]), height).1)
        .count()
}

/// The textures of a character: each one's report and TIM, and the warnings.
pub type Converted = (Vec<(Report, Tim)>, Vec<String>);

/// Every textured material of `c` (a model in `model_dir`) converted and placed: the reports, their
/// TIM files' contents and the warnings; or an error naming the material (nothing is written then).
pub fn convert_all(c: &Character, model_dir: &Path, options: &Options) -> Result<Converted, String> {
    let mut warnings = Vec::new();
    // Per texture: material, source, the converted image, its UV range and tiling.
    type One = (String, String, ConsoleTexture, Option<[[f64; 2]; 2]>, &'static str);
    let mut converted: Vec<One> = Vec::new();
    for (index, m) in c.materials.iter().enumerate() {
        let Some(texture) = &m.texture else { continue };
        let (bytes, found) = match find::find(texture, model_dir, options.dir.as_deref()) {
            Ok(f) => f,
            Err(tried) if options.missing_flat => {
                warnings.push(format!(
                    "material '{}': image '{}' not found (tried {}); it keeps its colour (--missing-textures flat)",
                    m.name,
                    texture.name,
                    tried.join(", ")
                ));
                continue;
            }
            Err(tried) => {
                return Err(format!(
                    "material '{}': image '{}' not found; tried {} (--textures DIR names another folder; \
                     --missing-textures flat keeps the material's colour)",
                    m.name,
                    texture.name,
                    if tried.is_empty() { "nothing: the file gives no path".to_string() } else { tried.join(", ") }
                ))
            }
        };
        let source = match &found {
            Found::Embedded => "embedded".to_string(),
            Found::File(p) => p.display().to_string(),
        };
        let image = image::load_from_memory(&bytes)
            .map_err(|e| format!("material '{}': image '{}' ({source}, {} bytes) cannot be decoded: {e}", m.name, texture.name, bytes.len()))?
            .to_rgba8();
        let t = convert::convert(&image, options.depth, options.dither)
            .map_err(|e| format!("material '{}': image '{}' ({source}): {e}", m.name, texture.name))?;
        if let Some((w, h)) = t.resized_from {
            warnings.push(format!(
                "material '{}': image '{}' is {w}x{h}, larger than a 256x256 texture page: resized to {}x{}",
                m.name, texture.name, t.width, t.height
            ));
        }
        let range = uv_range(c, index);
        let outside = range.is_some_and(|[lo, hi]| lo.iter().chain(&hi).any(|&x| !(-1e-6..=1.0 + 1e-6).contains(&x)));
        let tiling = match (outside, window_repeats(t.width, t.height)) {
            (false, _) => "none",
            (true, true) => {
                let far = too_far_triangles(c, index, t.width, t.height);
                if far > 0 {
                    warnings.push(format!(
                        "material '{}': {far} of its triangles span more than 256 texels of its {}x{} tiled texture, \
                         more than a packet's UVs reach: their far corners are clamped",
                        m.name, t.width, t.height
                    ));
                }
                "texture window"
            }
            (true, false) => {
                warnings.push(format!(
                    "material '{}': its UVs reach {:?}, outside 0..1, but the {}x{} texture is no power of two of 8 \
                     texels or more for the GPU's texture window to repeat: they are clamped",
                    m.name,
                    range.expect("outside implies a range"),
                    t.width,
                    t.height
                ));
                "clamped"
            }
        };
        converted.push((m.name.clone(), source, t, range, tiling));
    }
    let needs: Vec<place::Need> = converted
        .iter()
        .map(|(_, _, t, _, tiling)| place::Need { depth: t.depth, width: t.width, height: t.height, tiled: *tiling == "texture window" })
        .collect();
    let placed = place::place(&needs)?;
    let out = converted
        .into_iter()
        .zip(placed)
        .map(|((material, source, t, uv_range, tiling), (vram, clut))| {
            let report = Report {
                material,
                source,
                depth_bits: t.depth.bits().min(15),
                width: t.width,
                height: t.height,
                source_colours: t.source_colours,
                clut_colours: match (t.depth, t.quantised) {
                    (Depth::Fifteen, _) => 0,
                    (_, true) => t.clut.len(),
                    (_, false) => t.source_colours,
                },
                quantised: t.quantised,
                resized_from: t.resized_from,
                vram,
                clut,
                uv_range,
                tiling,
            };
            let tim = Tim { depth: t.depth, clut_at: clut, clut: t.clut, image_at: vram, image: t.halfwords };
            (report, tim)
        })
        .collect();
    Ok((out, warnings))
}

/// A file-name-safe form of a material name, for `<model>.<material>.tim`.
pub fn file_part(material: &str) -> String {
    let s: String = material.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if s.is_empty() {
        "material".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::{texel, tiled_texels, too_far_triangles, window_repeats};

    #[test]
    fn texture_coordinates_land_on_texels_inside_the_island() {
        // 0 and 1 on the first and last texels; the middle rounds; outside is clamped.
        assert_eq!([0.0, 1.0, 0.5, 0.25, -0.2, 1.7].map(|u| texel(u, 64)), [0, 63, 32, 16, 0, 63]);
        assert_eq!(texel(0.7, 1), 0);
    }

    #[test]
    fn a_tiled_triangle_keeps_its_corners_offsets() {
        // Spanning 0..2 of a 64-texel texture: texels 0..128, both tiles, not folded back to 0..63.
        assert_eq!(tiled_texels([0.0, 2.0, 1.0], 64), ([0, 128, 64], false));
        // Crossing the edge between tiles 2 and 3 (u 2.75 .. 3.25): moved by two whole tiles.
        assert_eq!(tiled_texels([2.75, 3.25, 3.0], 64), ([48, 80, 64], false));
        // Below 0 too: -0.25 .. 0.25 is 48 .. 80 of the tile below.
        assert_eq!(tiled_texels([-0.25, 0.25, 0.0], 64), ([48, 80, 64], false));
        // Four whole tiles: the far edge at 256 becomes 255, quietly; further is clamped and told.
        assert_eq!(tiled_texels([0.0, 4.0, 1.0], 64), ([0, 255, 64], false));
        assert_eq!(tiled_texels([0.5, 4.5, 1.0], 64), ([32, 255, 64], true));
        assert!(window_repeats(32, 256) && !window_repeats(48, 64) && !window_repeats(4, 64));
    }

    #[test]
    fn triangles_past_a_uv_word_s_reach_are_counted_for_the_warning() {
        // On a 64 x 64 tiled texture: 0..4 tiles reaches texel 256 (kept, at 255); 0.5..4.5 is past it,
        // in u or in v.
        let c = crate::compile::seams::tests::character(vec![
            Some([[0.0, 0.0], [4.0, 0.0], [0.0, 1.0]]),
            Some([[0.5, 0.0], [1.0, 4.5], [0.0, 1.0]]),
        ]);
        assert_eq!(too_far_triangles(&c, 0, 64, 64), 1);
        // Of 32 rows, 4.5 tiles are 144: within reach.
        assert_eq!(too_far_triangles(&c, 0, 64, 32), 0);
        assert_eq!(too_far_triangles(&c, 1, 64, 64), 0, "another material's triangles");
    }
}
