//! `psxanim preview`: pictures of a clip (PNG contact sheet, animated GIF) and a local web viewer.
//!
//! Every picture shows what the console computes: the pose comes from the compiled tables through the
//! runtime's render stages on the bit-exact GTE model ([`shot`]), and a small rasteriser that follows
//! the GPU's fill rule paints the triangles in ordering-table order ([`raster`]). The float pose of
//! ufbx ([`reference`]) can be shown beside it. The viewer ([`serve`]) shows the same pictures, with the
//! triangles as JSON for its overlay.

pub mod camera;
pub mod picture;
pub mod raster;
pub mod reference;
pub mod serve;
pub mod shot;
pub mod subject;
pub mod vram;

use camera::{Framing, Orbit, SCREEN_HEIGHT, SCREEN_WIDTH};
use raster::Canvas;
use subject::Subject;

use crate::compile::StorageMode;

/// How a preview lights the character: the one place `preview`'s flags and the web viewer's toggles
/// (`serve::LIGHT_SETTINGS`) set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LightOptions {
    /// Lit by `Framing::lit`'s light (tables with normals).
    pub light: bool,
    /// With `light`: fog over the framed box's depth toward the background (`Framing::fogged`).
    pub fog: bool,
}

impl LightOptions {
    /// `framing` with these settings' light and fog (or why the fog does not fit the GTE's depth cue).
    pub fn apply(self, framing: Framing) -> Result<Framing, String> {
        match (self.light, self.fog) {
            (false, _) => Ok(framing),
            (true, false) => Ok(framing.lit()),
            (true, true) => framing.lit().fogged(shot::BACKGROUND).map_err(|e| format!("--fog: {e}")),
        }
    }
}

/// How to draw the frames of a clip.
#[derive(Clone, Copy, Debug)]
pub struct FrameOptions {
    pub storage: StorageMode,
    pub orbit: Orbit,
    /// Skeleton overlay.
    pub bones: bool,
    /// The ufbx float pose to the right of the console's.
    pub compare: bool,
    pub light: LightOptions,
}

/// Draws `frames` of clip `clip`, one canvas per frame (twice as wide with `compare`), handing each
/// to `each` as soon as it is drawn.
pub fn for_each_frame(
    subject: &Subject,
    clip: usize,
    frames: std::ops::Range<usize>,
    options: &FrameOptions,
    mut each: impl FnMut(Canvas) -> Result<(), String>,
) -> Result<(), String> {
    let framing = options.light.apply(Framing::new(subject.bounds(), options.orbit))?;
    let character = match (options.compare, &subject.character) {
        (true, Some(c)) => Some(c),
        (true, None) => {
            return Err(format!(
                "{}: --compare needs an FBX input (compiled tables keep no float pose)",
                subject.source
            ))
        }
        (false, _) => None,
    };
    let vram = subject
        .drawn_tables(options.storage, framing.lighting.is_some())
        .ok()
        .and_then(|t| vram::Vram::of(&t));
    for f in frames {
        let shot = subject.shot(clip, f, options.storage, &framing)?;
        // A model without triangles is only a skeleton: always draw it.
        let bones = options.bones || shot.triangles.is_empty();
        let console = shot::paint(&shot, vram.as_ref(), SCREEN_WIDTH, SCREEN_HEIGHT, bones);
        each(match character {
            Some(c) => {
                let mut pair = Canvas::new(2 * SCREEN_WIDTH, SCREEN_HEIGHT, shot::BACKGROUND);
                pair.blit(&console, 0, 0);
                let float = reference::paint(c, clip, f, &framing, SCREEN_WIDTH, SCREEN_HEIGHT)
                    .ok_or_else(|| {
                        format!(
                            "{}: no float pose for clip {clip} frame {f}",
                            subject.source
                        )
                    })?;
                pair.blit(&float, SCREEN_WIDTH, 0);
                pair
            }
            None => console,
        })?;
    }
    Ok(())
}

/// Draws `frames` of clip `clip` into a list (for short ranges: a contact sheet).
pub fn render_frames(
    subject: &Subject,
    clip: usize,
    frames: std::ops::Range<usize>,
    options: &FrameOptions,
) -> Result<Vec<Canvas>, String> {
    let mut out = Vec::with_capacity(frames.len());
    for_each_frame(subject, clip, frames, options, |c| {
        out.push(c);
        Ok(())
    })?;
    Ok(out)
}

/// Writes an animated GIF of `frames` of clip `clip`, one picture in memory at a time.
pub fn gif(
    subject: &Subject,
    clip: usize,
    frames: std::ops::Range<usize>,
    options: &FrameOptions,
) -> Result<Vec<u8>, String> {
    let width = if options.compare {
        2 * SCREEN_WIDTH
    } else {
        SCREEN_WIDTH
    };
    let rate = subject.clips.get(clip).map(|c| c.rate).unwrap_or(30);
    let mut writer = picture::GifWriter::new(
        width,
        SCREEN_HEIGHT,
        Some(&palette(subject)),
        picture::gif_delay(rate),
    )?;
    for_each_frame(subject, clip, frames, options, |c| writer.add(&c))?;
    writer.finish()
}

/// Every colour a preview of `subject` can contain: the background, the overlay, and each material
/// as the GPU stores it.
pub fn palette(subject: &Subject) -> Vec<[u8; 3]> {
    let mut colours = vec![shot::BACKGROUND, shot::BONE_LINE, shot::JOINT_DOT];
    colours.extend(
        subject
            .material_colours()
            .into_iter()
            .map(raster::vram_colour),
    );
    let mut seen = std::collections::HashSet::new();
    colours.retain(|c| seen.insert(*c));
    colours
}
