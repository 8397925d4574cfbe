//! `psxanim compile-clips`: ANIMBIN clips compiled into per-frame poses (CLIPBIN) for a skeleton.

use super::{finish, say, write_atomic, CliError};
use crate::compile::clips::{compile_clips, SkeletonSpec};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    about = "Compile ANIMBIN clips into per-frame poses the console copies (CLIPBIN)",
    long_about = "Evaluates every frame of each clip with the runtime's own SkeletonController on the bit-exact \
GTE model and stores the model-space matrices (and local transforms, for crossfades) of every bone. On the \
console a compiled clip costs a copy of the matrices, or nothing with SkeletonController::pose; at whole \
frames it equals the ANIMBIN evaluation bit for bit, between frames it holds the frame. Layout: \
psxanim_runtime::clipbin.\n\nThe skeleton is JSON: {\"bones\": [{\"parent\": null, \"rotation\": [4096, 0, 0, 0], \
\"translation\": [0, 0, 0]}, ...]}, bones parent-first, FP12 integers.",
    after_help = "Examples:\n  psxanim compile-clips hero.animbin --skeleton hero.json -o hero.clipbin\n  \
psxanim compile-clips hero.animbin --skeleton hero.json --clip walk --clip run -o moves.clipbin\n\n\
Exit codes: 0 written; 1 unreadable or invalid input (the message names the file, offset or bone); 2 usage."
)]
pub struct Args {
    /// The ANIMBIN file (read with the large capacity profile)
    pub input: PathBuf,
    /// Skeleton JSON: parents and bind pose the clips play on
    #[arg(long)]
    pub skeleton: PathBuf,
    /// Compile only this clip (repeatable; default: every clip, in file order)
    #[arg(long = "clip")]
    pub clips: Vec<String>,
    /// Output blob
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: Args) -> i32 {
    finish(compile(&args))
}

fn compile(args: &Args) -> Result<(), CliError> {
    let read =
        |p: &PathBuf| std::fs::read(p).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", p.display())));
    let animbin = read(&args.input)?;
    let json = String::from_utf8(read(&args.skeleton)?)
        .map_err(|_| CliError::invalid(format!("{}: not UTF-8 text", args.skeleton.display())))?;
    let skeleton =
        SkeletonSpec::from_json(&json).map_err(|e| CliError::invalid(format!("{}: {e}", args.skeleton.display())))?;
    let blob = compile_clips(&animbin, &skeleton, &args.clips)
        .map_err(|e| CliError::invalid(format!("{}: {e}", args.input.display())))?;
    write_atomic(&args.output, &blob)?;
    say(&format!("{}: {} bytes, {} bones\n", args.output.display(), blob.len(), skeleton.parents.len()));
    Ok(())
}
