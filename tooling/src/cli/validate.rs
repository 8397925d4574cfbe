//! `psxanim validate`: whether a file is well-formed and within a runtime profile.

use super::{finish, load, say, say_err, CliError};
use crate::formats::profile;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    about = "Check a file against its format and a runtime profile",
    long_about = "Parses the file completely (any error names the byte offset and what was expected), then \
checks what the player assumes beyond the layout.\n\nFor ANIMBIN the profile is the runtime's capacity: \
`original` (the default: the original runtime's arrays, 5 animations, 50 tracks, 30 keys per track, 5 \
markers) or `large` (32 / 256 / 2048 / 32). It also rejects empty tracks, key frames that do not \
increase, keys past the clip's length, 32-byte names with no terminator and two tracks animating one \
joint's channel. Other formats are checked for well-formedness only. Rotations far from unit \
length are reported as warnings (exit code unaffected).",
    after_help = "Examples:\n  psxanim validate walk.animbin\n  psxanim validate big.animbin --profile large\n\n\
Exit codes: 0 valid; 1 malformed or outside the profile (each reason on stderr, naming the limit); 2 usage."
)]
pub struct Args {
    /// The animation file
    pub file: PathBuf,
    /// Runtime profile: original or large
    #[arg(long, default_value = "original", value_parser = ["original", "large"])]
    pub profile: String,
}

pub fn run(args: Args) -> i32 {
    finish(validate(&args))
}

fn validate(args: &Args) -> Result<(), CliError> {
    let Some(p) = profile::by_name(&args.profile) else {
        return Err(CliError::usage(format!("unknown profile {:?} (original, large)", args.profile)));
    };
    let anim = load(&args.file)?;
    for warning in profile::warnings(&anim) {
        say_err(&format!("{}: warning: {warning}", args.file.display()));
    }
    let problems = profile::check(&anim, p);
    if problems.is_empty() {
        say(&format!("{}: valid {} (profile {})\n", args.file.display(), anim.format, p.name));
        return Ok(());
    }
    for problem in &problems {
        say_err(&format!("{}: {problem}", args.file.display()));
    }
    Err(CliError::invalid(format!("{}: invalid: {} problem(s)", args.file.display(), problems.len())))
}
