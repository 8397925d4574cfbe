//! `psxanim inspect`: the JSON document of a file, or a readable summary.

use super::{finish, load, say};
use crate::formats::json::to_json;
use crate::model::{Animation, Track};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    about = "Show what an animation file holds",
    long_about = "Reads an animation file of any supported format (detected by magic, then by extension) and \
prints a readable summary: clips, their length and time unit, one line per track with its key counts, and \
the events.\n\nWith --json it prints instead the animation document of specs/animation-json.md: one JSON \
shape for every format, with every stored key decoded (quaternions as [t, w, x, y, z]). Scripts should use \
--json; the summary may change.",
    after_help = "Examples:\n  psxanim inspect walk.animbin\n  psxanim inspect run.ani --json > run.json\n\n\
Exit codes: 0 read; 1 the file is malformed (the message names the byte offset and what was expected)."
)]
pub struct Args {
    /// The animation file (.animbin, .anim, .ani, .panim)
    pub file: PathBuf,
    /// Print the JSON animation document instead of the summary
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> i32 {
    finish(load(&args.file).map(|anim| {
        if args.json {
            say(&(to_json(&anim) + "\n"));
        } else {
            say(&summary(&anim));
        }
    }))
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
