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
/// Outside 0..1 it is clamped (`tiled` false) or wrapped into the texture (`tiled`, a power-of-two
/// size the texture window repeats).
pub fn texel(uv: f64, size: u32, tiled: bool) -> u32 {
    let last = size.saturating_sub(1) as f64;
    if tiled {
        let t = (uv * size as f64).floor().rem_euclid(size as f64);
        return t as u32;
    }
    (uv.clamp(0.0, 1.0) * last).round() as u32
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
        let tiling = match (outside, t.width.is_power_of_two() && t.height.is_power_of_two()) {
            (false, _) => "none",
            (true, true) => "texture window",
            (true, false) => {
                warnings.push(format!(
                    "material '{}': its UVs reach {:?}, outside 0..1, but the {}x{} texture is no power of two for the \
                     GPU's texture window to repeat: they are clamped",
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
    let needs: Vec<place::Need> =
        converted.iter().map(|(_, _, t, _, _)| place::Need { depth: t.depth, width: t.width, height: t.height }).collect();
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
    use super::texel;

    #[test]
    fn texture_coordinates_land_on_texels_inside_the_island() {
        // 0 and 1 on the first and last texels; the middle rounds; outside is clamped.
        assert_eq!([0.0, 1.0, 0.5, 0.25, -0.2, 1.7].map(|u| texel(u, 64, false)), [0, 63, 32, 16, 0, 63]);
        // Tiled (a power of two the texture window repeats): wrapped, whole texels.
        assert_eq!([0.0, 0.999, 1.0, 1.5, -0.25].map(|u| texel(u, 64, true)), [0, 63, 0, 32, 48]);
        assert_eq!(texel(0.7, 1, false), 0);
    }
}
