//! `psxanim convert`: any supported format to any other, reporting what the conversion loses.

use super::{finish, load, say_err, write_atomic, CliError};
use crate::formats::bonemap::BoneMap;
use crate::formats::{self, Losses, Target, Tolerance};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    about = "Convert an animation between formats",
    long_about = "Reads IN (format detected by magic, then extension) and writes OUT in the format of --to, or \
of OUT's extension (.animbin, .anim, .ani, .panim). The output is written to a temporary file beside OUT \
and renamed, so OUT is never left half-written.\n\n\
Everything the target cannot hold is reported on stderr, one line each: scale dropped (ANIMBIN, ANIM, \
.ani), time resampled onto another grid, precision lost to quantisation, events or extra clips dropped. \
--strict turns any loss into an error (exit 1, nothing written).\n\n\
Formats for --to:\n  \
animbin            ANIMBIN, correct encoder (rounding, quaternion hemisphere continuity)\n  \
animbin-original   ANIMBIN as the original exporter wrote it (truncation, flags = 1)\n  \
mp-anim            Metroid Prime ANIM, keeping the source's version (2 for other formats)\n  \
mp-anim-v2         Metroid Prime ANIM version 2 (bitstream, key reduction)\n  \
mp-anim-v0         Metroid Prime ANIM version 0 (float quaternion arrays)\n  \
ani                .ani, keeping the source's version (4000 for other formats)\n  \
ani4000 | ani4001 | ani4002   .ani of that version\n  \
panim              .panim\n\n\
Unedited keys keep their stored words: rewriting an ANIMBIN, .ani or .panim file in its own format is \
byte-identical. A Metroid Prime file keeps its version (.anim or --to mp-anim), and a version 2 file its \
stored keys (no second key reduction unless --reduce).\n\n\
Times: ANIMBIN frames are vsync ticks, 60 per second; .panim frames are SM64 game ticks, 30 per second \
(so .panim -> ANIMBIN doubles the frame numbers); ANIM keys are its interval apart. Keys between two \
ANIMBIN frames (100 fps .ani) become one key per frame, sampled there, none past the clip's last frame; \
to ANIM, millisecond keys on a common grid (10 ms) keep that grid.\n\n\
BONE MAP FILE (--bone-map): one mapping per line, `FROM = TO`. Each side is a bone id (a decimal number) \
or a bone name (anything else; quote it with \" to keep spaces or make digits a name). `#` starts a \
comment. Bones not listed keep their id or name. Without a map, ids become decimal names in .ani and \
decimal names become ids in the id-based formats.\n  \
# ANIMBIN joints -> .ani bones\n  \
0 = Bip01\n  \
1 = \"Bip01 Spine\"",
    after_help = "Examples:\n  psxanim convert walk.animbin walk.ani --bone-map joints.txt\n  \
psxanim convert run.anim run.animbin --strict\n  psxanim convert a.ani b.ani --to ani4001\n\n\
Exit codes: 0 written; 1 malformed input, a target that cannot hold the clip, or a loss under --strict; 2 usage."
)]
pub struct Args {
    /// Input animation file
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Output file (replaced atomically)
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Target format (default: from OUT's extension); see the list above
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
    /// Bone map file renaming / re-indexing bones (format above)
    #[arg(long, value_name = "FILE")]
    pub bone_map: Option<PathBuf>,
    /// Fail instead of converting when anything would be lost
    #[arg(long)]
    pub strict: bool,
    /// ANIM v2 key reduction: largest rotation error in degrees where a key is dropped
    #[arg(long, value_name = "DEGREES", default_value_t = 0.5)]
    pub tolerance: f64,
    /// ANIM v2 to ANIM v2: reduce the keys again instead of keeping the stored ones
    #[arg(long)]
    pub reduce: bool,
}

pub fn run(args: Args) -> i32 {
    finish(convert(&args))
}

fn convert(args: &Args) -> Result<(), CliError> {
    let target = match &args.to {
        Some(name) => Target::parse(name).ok_or_else(|| CliError::usage(format!("--to {name:?}: unknown format (see --help)")))?,
        None => Target::from_extension(&args.output).ok_or_else(|| {
            CliError::usage(format!("{}: cannot tell the target format from the extension; pass --to", args.output.display()))
        })?,
    };
    if !(args.tolerance.is_finite() && args.tolerance >= 0.0) {
        return Err(CliError::usage(format!("--tolerance {}: expected a non-negative number of degrees", args.tolerance)));
    }
    let mut anim = load(&args.input)?;
    if let Some(path) = &args.bone_map {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", path.display())))?;
        let map = BoneMap::parse(&text).map_err(|e| CliError::invalid(format!("{}: {e}", path.display())))?;
        map.apply(&mut anim).map_err(|e| CliError::invalid(format!("{}: {e}", path.display())))?;
    }
    let tolerance = Tolerance { rotation: args.tolerance.to_radians(), reduce_stored: args.reduce, ..Tolerance::default() };
    let mut losses = Losses::default();
    let bytes = formats::write(&anim, target, tolerance, &mut losses)
        .map_err(|e| CliError::invalid(format!("{} -> {}: {e}", args.input.display(), target.format())))?;
    for loss in &losses.0 {
        say_err(&format!("psxanim: {} -> {}: lossy: {loss}", args.input.display(), args.output.display()));
    }
    if args.strict && !losses.is_empty() {
        return Err(CliError::invalid(format!("--strict: {} loss(es); nothing written", losses.0.len())));
    }
    write_atomic(&args.output, &bytes)
}
