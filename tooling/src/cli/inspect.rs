//! `psxanim inspect`: the JSON document of an animation file, or a readable summary; for compiled
//! tables (`.pxsk`), what the character holds and, on request, one decoded frame (`inspect_tables`).

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
triangles, quads, primitive_words, materials, clips, and frame {clip, frame, positions} when asked).",
    after_help = "Examples:\n  psxanim inspect walk.animbin\n  psxanim inspect run.ani --json > run.json\n  \
psxanim inspect out/character.pxsk\n  psxanim inspect out/character.pxsk --clip Walk --frame 12 --json\n\n\
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
}

pub fn run(args: Args) -> i32 {
    finish(inspect(&args))
}

fn inspect(args: &Args) -> Result<(), CliError> {
    let bytes = std::fs::read(&args.file).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", args.file.display())))?;
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
