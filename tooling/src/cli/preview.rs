//! `psxanim preview`: a PNG contact sheet or an animated GIF of a clip, or a local web viewer
//! (`--serve`), all showing the pose the console computes.

use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

use super::import::StorageArg;
use super::{finish, write_atomic, CliError};
use crate::compile::StorageMode;
use crate::preview::camera::Orbit;
use crate::preview::subject::{Normals, Subject};
use crate::preview::{picture, render_frames, serve, FrameOptions, LightOptions};

/// Most frames on one contact sheet; longer ranges are sampled evenly.
pub const MAX_SHEET_FRAMES: usize = 60;
/// Most frames of one GIF (a minute at 60 Hz); the preview refuses longer ranges rather than writing
/// a file no viewer plays smoothly.
pub const MAX_GIF_FRAMES: usize = 3600;

#[derive(clap::Args, Debug)]
#[command(
    about = "Draw a clip as the console computes it: PNG contact sheet, animated GIF, or a local web viewer"
)]
pub struct Args {
    /// An FBX, compiled tables (.pxsk), or an animation file (then give --skeleton).
    pub input: PathBuf,
    /// The clip to draw (required unless --serve).
    #[arg(long)]
    pub clip: Option<String>,
    /// Frames to draw: `a..b` (b excluded), `a..=b`, or one frame `a` (default: every frame).
    #[arg(long)]
    pub frames: Option<String>,
    /// Output picture: `.png` (contact sheet) or `.gif` (animation).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Which compiled storage to draw.
    #[arg(long, value_enum, default_value = "rigid-gte")]
    pub storage: StorageArg,
    /// Show ufbx's float pose (true skinning, every weight) to the right of the console's (FBX inputs).
    #[arg(long)]
    pub compare: bool,
    /// The FBX whose skeleton and mesh an animation file drives (bones matched by name or index).
    #[arg(long)]
    pub skeleton: Option<PathBuf>,
    /// Animation files whose clips are put onto the FBX's skeleton as `import --add-clips` puts them
    /// (then drawn like its own clips).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "FILE",
        conflicts_with = "skeleton"
    )]
    pub add_clips: Option<Vec<PathBuf>>,
    /// Bone map for --add-clips (`FROM = TO` per line).
    #[arg(long, value_name = "MAP", requires = "add_clips")]
    pub bone_map: Option<PathBuf>,
    #[command(flatten)]
    pub mesh_choice: super::import::MeshChoice,
    /// Draw the skeleton over the mesh.
    #[arg(long)]
    pub bones: bool,
    /// Light the character as a game would with `render::light` (the console's GTE lighting, Gouraud
    /// shaded, textures modulated): one white light from the camera's upper left and an ambient. An
    /// FBX or glTF is compiled with normals (as `import --lighting`); compiled tables must have been
    /// imported with `--lighting`. With --serve: the viewer's light toggle starts on.
    #[arg(long)]
    pub light: bool,
    /// With --light: fog as the GTE's depth cue draws it (NCDT), from the front of the framed
    /// character (no fog) to its back (all fog), toward the background's colour; textured triangles
    /// fade as the console fades them (each texel times the fogged colour / 128).
    #[arg(long, requires = "light")]
    pub fog: bool,
    /// Camera yaw in degrees.
    #[arg(long, default_value_t = Orbit::default().yaw, allow_negative_numbers = true)]
    pub yaw: f64,
    /// Camera pitch in degrees (positive looks down).
    #[arg(long, default_value_t = Orbit::default().pitch, allow_negative_numbers = true)]
    pub pitch: f64,
    /// Camera zoom (1 frames the whole animation).
    #[arg(long, default_value_t = 1.0)]
    pub zoom: f64,
    /// Serve the web viewer on localhost instead of writing a picture: every clip in both storage modes,
    /// each frame painted as `--out` paints it (textures, CLUTs, modulation, 15-bit colour), with a
    /// light toggle (on at start with --light) and a skeleton toggle.
    #[arg(long)]
    pub serve: bool,
    /// Port of the viewer (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8370)]
    pub port: u16,
}

pub fn run(args: Args) -> i32 {
    finish(execute(args))
}

/// Parses `a..b`, `a..=b` or `a` against a clip of `frames` frames.
pub fn parse_frames(text: &str, frames: usize) -> Result<Range<usize>, CliError> {
    let bad = || {
        CliError::usage(format!(
            "--frames {text}: expected a..b, a..=b or a single frame number"
        ))
    };
    let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
    let range = if let Some((a, b)) = text.split_once("..=") {
        num(a)?..num(b)?.checked_add(1).ok_or_else(bad)?
    } else if let Some((a, b)) = text.split_once("..") {
        num(a)?..num(b)?
    } else {
        let a = num(text)?;
        a..a.checked_add(1).ok_or_else(bad)?
    };
    if range.start >= range.end {
        return Err(CliError::usage(format!(
            "--frames {text}: the range is empty"
        )));
    }
    if range.end > frames {
        return Err(CliError::invalid(format!(
            "--frames {text}: the clip has {frames} frames (0..{frames})"
        )));
    }
    Ok(range)
}

/// The input, with `--add-clips` when given, the meshes `--meshes` / `--skip-mesh` choose, at `--scale`,
/// its rigid-gte tables with or without normals as `normals` says.
fn load_subject(args: &Args, modes: &[StorageMode], normals: Normals) -> Result<Subject, CliError> {
    let options = args
        .mesh_choice
        .options(crate::fbx::ImportOptions::default())?;
    match &args.add_clips {
        Some(files) => Subject::load_with_clips_with(
            &args.input,
            files,
            args.bone_map.as_deref(),
            modes,
            &options,
            normals,
        ),
        None => Subject::load_with(
            &args.input,
            args.skeleton.as_deref(),
            modes,
            &options,
            normals,
        ),
    }
}

fn execute(args: Args) -> Result<(), CliError> {
    let storage = match args.storage {
        StorageArg::RigidGte => StorageMode::RigidGte,
        StorageArg::BakedVertices => StorageMode::BakedVertices,
    };
    if args.serve {
        if args.out.is_some() || args.clip.is_some() || args.frames.is_some() {
            return Err(CliError::usage(
                "--serve shows every clip in the browser; drop --out, --clip and --frames",
            ));
        }
        // Bind before the (slower) import, so a busy port is reported at once.
        let listener = serve::bind(args.port)?;
        // Both kinds of rigid tables: the page's light toggle shows either. A model only rigid-gte
        // takes (more vertices than baked-vertices' scratch) is served in rigid-gte alone.
        let subject = match load_subject(&args, &[StorageMode::RigidGte, StorageMode::BakedVertices], Normals::Both) {
            Ok(subject) => subject,
            Err(both) => match load_subject(&args, &[StorageMode::RigidGte], Normals::Both) {
                Ok(subject) => {
                    eprintln!("psxanim: note: serving rigid-gte only; baked-vertices: {}", both.message);
                    subject
                }
                Err(_) => return Err(both),
            },
        };
        let addr = listener
            .local_addr()
            .map_err(|e| CliError::invalid(format!("cannot read the listening address: {e}")))?;
        println!(
            "psxanim: serving {} at http://{addr}/ (Ctrl-C stops)",
            subject.source
        );
        let _ = std::io::stdout().flush();
        return serve::run(
            serve::Viewer {
                subject,
                initial_light: LightOptions { light: args.light, fog: args.fog },
            },
            listener,
        );
    }
    let out = args
        .out
        .as_ref()
        .ok_or_else(|| CliError::usage("give --out FILE.png or --out FILE.gif (or --serve)"))?;
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "png" && ext != "gif" {
        return Err(CliError::usage(format!(
            "{}: the output must end in .png (contact sheet) or .gif (animation)",
            out.display()
        )));
    }
    let clip_name = args
        .clip
        .as_deref()
        .ok_or_else(|| CliError::usage("give --clip NAME"))?;
    let subject = load_subject(
        &args,
        &[storage],
        if args.light {
            Normals::With
        } else {
            Normals::Without
        },
    )?;
    let clip = subject.clip_index(clip_name)?;
    let info = &subject.clips[clip];
    let range = match &args.frames {
        Some(text) => parse_frames(text, info.frames)?,
        None => 0..info.frames,
    };
    if !subject.has(storage) {
        return Err(CliError::invalid(format!(
            "{}: holds no {} tables",
            subject.source,
            crate::preview::subject::storage_name(storage)
        )));
    }
    if args.bones && !subject.has(StorageMode::RigidGte) {
        eprintln!(
            "psxanim: warning: {} holds no rigid pose samples, so there is no skeleton to overlay",
            subject.source
        );
    }
    if args.light && !subject.tables(storage).is_ok_and(|t| t.has_normals()) {
        let why = match storage {
            StorageMode::BakedVertices => {
                "baked-vertices tables carry no normals (the console lights rigid-gte characters)"
            }
            StorageMode::RigidGte => "the tables were imported without --lighting",
        };
        eprintln!(
            "psxanim: warning: {}: {why}; drawing it unlit",
            subject.source
        );
    }
    let options = FrameOptions {
        storage,
        orbit: Orbit {
            yaw: args.yaw,
            pitch: args.pitch,
            zoom: args.zoom,
        },
        bones: args.bones,
        compare: args.compare,
        light: LightOptions { light: args.light, fog: args.fog },
    };
    let bytes = if ext == "gif" {
        if range.len() > MAX_GIF_FRAMES {
            return Err(CliError::invalid(format!(
                "--frames: {} frames; a GIF holds at most {MAX_GIF_FRAMES} (choose a range)",
                range.len()
            )));
        }
        crate::preview::gif(&subject, clip, range, &options).map_err(CliError::invalid)?
    } else {
        let picked: Vec<usize> = if range.len() > MAX_SHEET_FRAMES {
            eprintln!("psxanim: {} frames; the contact sheet shows {MAX_SHEET_FRAMES} of them, evenly spaced", range.len());
            (0..MAX_SHEET_FRAMES)
                .map(|i| range.start + i * (range.len() - 1) / (MAX_SHEET_FRAMES - 1))
                .collect()
        } else {
            range.collect()
        };
        let mut cells = Vec::with_capacity(picked.len());
        for f in picked {
            cells.extend(
                render_frames(&subject, clip, f..f + 1, &options).map_err(CliError::invalid)?,
            );
        }
        picture::encode_png(&picture::contact_sheet(&cells, [0, 0, 0]))
            .map_err(CliError::invalid)?
    };
    write_atomic(out, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ranges() {
        assert_eq!(parse_frames("2..5", 10).unwrap(), 2..5);
        assert_eq!(parse_frames("2..=5", 10).unwrap(), 2..6);
        assert_eq!(parse_frames("9", 10).unwrap(), 9..10);
        assert_eq!(
            parse_frames("0..11", 10).unwrap_err().code,
            super::super::EXIT_INVALID
        );
        for bad in ["5..2", "x", "1..", "..3", "3..3"] {
            assert_eq!(
                parse_frames(bad, 10).unwrap_err().code,
                super::super::EXIT_USAGE,
                "{bad}"
            );
        }
    }
}
