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
}

/// The textures of a character: each one's report and TIM, and the warnings.
pub type Converted = (Vec<(Report, Tim)>, Vec<String>);

/// Every textured material of `c` (a model in `model_dir`) converted and placed: the reports, their
/// TIM files' contents and the warnings; or an error naming the material (nothing is written then).
pub fn convert_all(c: &Character, model_dir: &Path, options: &Options) -> Result<Converted, String> {
    let mut warnings = Vec::new();
    let mut converted: Vec<(String, String, ConsoleTexture)> = Vec::new();
    for m in &c.materials {
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
        converted.push((m.name.clone(), source, t));
    }
    let needs: Vec<place::Need> =
        converted.iter().map(|(_, _, t)| place::Need { depth: t.depth, width: t.width, height: t.height }).collect();
    let placed = place::place(&needs)?;
    let out = converted
        .into_iter()
        .zip(placed)
        .map(|((material, source, t), (vram, clut))| {
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
