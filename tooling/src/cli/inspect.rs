//! `psxanim inspect`: the JSON document of an animation file, or a readable summary; for compiled
//! tables (`.pxsk`), what the character holds and, on request, one decoded frame (`inspect_tables`); for
//! a TIM texture, its depth, size and VRAM rectangles, and on request the texture as the GPU reads it.

use super::{finish, inspect_tables, load, say, CliError};
use crate::formats::json::to_json;
use crate::model::{Animation, Track};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    about = "Show what an animation file or a compiled character holds",
    long_about = "Reads an animation file of any supported format (detected by magic, then by extension) and \
prints a readable summary: clips, their length and time unit, one line per track with its key counts, and \
the events. Warnings (a .panim node byte that disagrees with its index table, ANIMBIN bytes after the last \
clip) go to stderr.\n\nWith --json it prints instead the animation document of specs/animation-json.md: one JSON \
shape for every format, with every stored key decoded (quaternions as [t, w, x, y, z]). Scripts should use \
--json; the summary may change.\n\n\
COMPILED CHARACTERS (.pxsk, magic \"PXSK\", written by `psxanim import`): the storage mode, size, bounds, \
bones (name, parent, vertex range), vertex, triangle, quad and primitive-stream counts, materials and clips \
(frames, rate, bytes). With --clip and/or --frame it also prints the model-space position of every vertex at \
that frame in GTE units (1 m = 4096; PSX axes +X right, +Y down, +Z into the screen), computed by the \
runtime's own code as the console computes it: baked frames by the frame decoder, rigid vertices by their \
bone's matrix (pose decoder and GTE composition on the bit-exact GTE model) and MVMVA. With --json the \
report is one JSON object (fields: format \"pxsk\", version, storage, bytes, bounds, bones, vertices, \
triangles, quads, primitive_words, materials, clips, and frame {clip, frame, positions} when asked).\n\n\
TIM TEXTURES (.tim, id 0x10, written by `psxanim import` for textured materials, or by any PS1 tool): depth, \
size in texels, VRAM rectangles of the image and CLUT; --png OUT writes the texture as the GPU reads it \
(through its CLUT, 15-bit colour, transparent texels with alpha 0).",
    after_help = "Examples:\n  psxanim inspect walk.animbin\n  psxanim inspect run.ani --json > run.json\n  \
psxanim inspect out/character.pxsk\n  psxanim inspect out/character.pxsk --clip Walk --frame 12 --json\n  \
psxanim inspect out/character.Skin.tim --png skin.png\n\n\
Exit codes: 0 read; 1 the file is malformed (the message names the byte offset and what was expected), or \
the clip or frame does not exist; 2 usage (--clip or --frame on an animation file)."
)]
pub struct Args {
    /// The animation file (.animbin, .anim, .ani, .panim) or compiled character (.pxsk)
    pub file: PathBuf,
    /// Print JSON instead of the summary (the animation document, or the compiled character's report)
    #[arg(long)]
    pub json: bool,
    /// Compiled characters: the clip to decode a frame of, by name or index (default 0)
    #[arg(long, value_name = "CLIP")]
    pub clip: Option<String>,
    /// Compiled characters: the frame to decode (default 0)
    #[arg(long, value_name = "FRAME")]
    pub frame: Option<usize>,
    /// TIM textures: also write the texture as the GPU reads it (through its CLUT, 15-bit colour,
    /// transparent texels with alpha 0) to this PNG
    #[arg(long, value_name = "PNG")]
    pub png: Option<PathBuf>,
}

/// A TIM texture: depth, size, VRAM rectangles (and `--png`, the texture as the GPU reads it).
fn inspect_tim(args: &Args, bytes: &[u8]) -> Result<(), CliError> {
    let name = args.file.display();
    let tim = crate::texture::tim::Tim::parse(bytes).map_err(|e| CliError::invalid(format!("{name}: {e}")))?;
    let (w, h) = (tim.texel_width(), tim.image_at.h as u32);
    let rgba = tim.rgba();
    if args.json {
        let j = serde_json::json!({
            "format": "tim", "depth_bits": tim.depth.bits().min(15), "width": w, "height": h,
            "vram": tim.image_at, "clut": tim.clut_at, "clut_entries": tim.clut.len(),
            "transparent_texels": rgba.chunks_exact(4).filter(|p| p[3] == 0).count(),
        });
        say(&(serde_json::to_string_pretty(&j).expect("JSON") + "\n"));
    } else {
        let clut = tim.clut_at.map_or("no CLUT".into(), |c| format!("CLUT of {} at ({}, {})", tim.clut.len(), c.x, c.y));
        say(&format!(
            "{name}: TIM, {w}x{h} texels at {} bits; VRAM ({}, {}) {}x{} halfwords; {clut}\n",
            tim.depth.bits().min(15),
            tim.image_at.x,
            tim.image_at.y,
            tim.image_at.w,
            tim.image_at.h
        ));
    }
    if let Some(png) = &args.png {
        let write = || -> std::io::Result<()> {
            let mut out = Vec::new();
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.write_header().map_err(std::io::Error::other)?.write_image_data(&rgba).map_err(std::io::Error::other)?;
            crate::compile::write_atomically(&[(png.clone(), out)])
        };
        write().map_err(|e| CliError::invalid(format!("{}: cannot write: {e}", png.display())))?;
    }
    Ok(())
}

pub fn run(args: Args) -> i32 {
    finish(inspect(&args))
}

fn inspect(args: &Args) -> Result<(), CliError> {
    let bytes = std::fs::read(&args.file).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", args.file.display())))?;
    if bytes.starts_with(&crate::texture::tim::ID.to_le_bytes()) || args.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("tim")) {
        return inspect_tim(args, &bytes);
    }
    if args.png.is_some() {
        return Err(CliError::usage(format!("{}: --png draws a TIM texture; this is not one", args.file.display())));
    }
    if bytes.starts_with(&psxanim_runtime::tables::MAGIC) {
        let r = inspect_tables::report(&args.file.display().to_string(), &bytes, args.clip.as_deref(), args.frame)?;
        if args.json {
            say(&(serde_json::to_string_pretty(&r).expect("the report serialises") + "\n"));
        } else {
            say(&inspect_tables::summary(&r));
        }
        return Ok(());
    }
    if args.clip.is_some() || args.frame.is_some() {
        return Err(CliError::usage(format!(
            "{}: --clip and --frame decode a frame of compiled tables (.pxsk); this is not one",
            args.file.display()
        )));
    }
    let anim = load(&args.file)?;
    if args.json {
        say(&(to_json(&anim) + "\n"));
    } else {
        say(&summary(&anim));
    }
    Ok(())
}

fn span(times: impl Iterator<Item = f64>) -> String {
    let t: Vec<f64> = times.collect();
    match (t.iter().copied().reduce(f64::min), t.iter().copied().reduce(f64::max)) {
        (Some(a), Some(b)) => format!(" {a}..{b}"),
        _ => String::new(),
    }
}

fn track_line(t: &Track) -> String {
    let times = t.rotation.iter().map(|k| k.time).chain(t.translation.iter().map(|k| k.time)).chain(t.scale.iter().map(|k| k.time));
    format!(
        "    bone {:<12} rotation {:>4}  translation {:>4}  scale {:>4}  time{}\n",
        t.bone.to_string(),
        t.rotation.len(),
        t.translation.len(),
        t.scale.len(),
        span(times)
    )
}

/// The readable summary.
pub fn summary(anim: &Animation) -> String {
    let mut s = format!("format {} version {}, {} clip(s)\n", anim.format, anim.version, anim.clips.len());
    for (i, c) in anim.clips.iter().enumerate() {
        let rate = c.frame_rate.map(|r| format!(", {r} keys/s")).unwrap_or_default();
        s += &format!(
            "clip {i} {:?}: {} {}{}, {}, {} track(s), {} event(s)\n",
            c.name,
            c.length,
            c.time_unit.name(),
            rate,
            if c.looping { "looping" } else { "one-shot" },
            c.tracks.len(),
            c.events.len()
        );
        for t in &c.tracks {
            s += &track_line(t);
        }
        for e in &c.events {
            s += &format!("    event at {}: {:?}{}\n", e.time, e.name, e.data.as_ref().map(|d| format!(" ({d:?})")).unwrap_or_default());
        }
    }
    s
}
