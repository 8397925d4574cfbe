//! `--add-clips` and `--bone-map` of `import` and `preview`: clips of other engines' animation files
//! put onto the FBX character's skeleton ([`crate::fbx::clips_onto`]), checked before anything is
//! compiled or written.

use std::path::{Path, PathBuf};

use super::{load, say_err, CliError};
use crate::fbx::limits::MAX_CLIPS;
use crate::fbx::{clips_onto, AddedClip, Character};
use crate::formats::bonemap::BoneMap;
use crate::model::Bone;

/// Adds every clip of `files` to `c` (sampled at `rate` Hz), renaming tracks through the bone map at
/// `map` first. Errors (exit 1) name the file, the clip, the bone or the limit; nothing is changed
/// then.
pub fn add_clips(c: &mut Character, model: &Path, files: &[PathBuf], map: Option<&Path>, rate: u32) -> Result<Vec<AddedClip>, CliError> {
    let bone_map = match map {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", path.display())))?;
            let m = BoneMap::parse(&text).map_err(|e| CliError::invalid(format!("{}: {e}", path.display())))?;
            for target in m.targets() {
                let exists = match target {
                    Bone::Name(n) => c.bones.iter().any(|b| &b.name == n),
                    Bone::Id(id) => (*id as usize) < c.bones.len(),
                };
                if !exists {
                    let names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
                    return Err(CliError::invalid(format!(
                        "{}: maps to bone {target}, which {} does not have (bones by index 0..{}: {})",
                        path.display(),
                        model.display(),
                        names.len(),
                        names.join(", ")
                    )));
                }
            }
            Some((path, m))
        }
        None => None,
    };
    let mut clips = Vec::new();
    let mut reports = Vec::new();
    for file in files {
        let mut anim = load(file)?;
        if let Some((path, m)) = &bone_map {
            m.apply(&mut anim).map_err(|e| CliError::invalid(format!("{} (bone map {}): {e}", file.display(), path.display())))?;
        }
        for (clip, report) in clips_onto(c, &anim, file, model, rate).map_err(CliError::invalid)? {
            let taken = c.clips.iter().chain(clips.iter()).any(|k: &crate::fbx::Clip| k.name == clip.name);
            if taken {
                return Err(CliError::invalid(format!(
                    "{}: clip '{}': {} already has a clip of that name",
                    file.display(),
                    clip.name,
                    model.display()
                )));
            }
            clips.push(clip);
            reports.push(report);
        }
    }
    let total = c.clips.len() + clips.len();
    if total > MAX_CLIPS {
        return Err(CliError::invalid(format!(
            "{}: {total} clips with the added ones exceed the profile limit of {MAX_CLIPS}",
            model.display()
        )));
    }
    c.clips.extend(clips);
    Ok(reports)
}

/// Reports on stderr how tracks found bones of other names (the rule of each match, see
/// [`crate::fbx::added::aliases`]) and what each added clip leaves out, as `convert` reports its losses.
pub fn report(reports: &[AddedClip]) {
    for r in reports {
        let at = format!("psxanim: {}: clip '{}'", r.file, r.clip);
        let renamed: Vec<String> =
            r.matches.iter().filter(|m| m.rule != "exact").map(|m| format!("{} -> {} ({})", m.track, m.bone, m.rule)).collect();
        if !renamed.is_empty() {
            say_err(&format!("{at}: tracks matched to bones of other names: {}", renamed.join(", ")));
        }
        if !r.unmatched_bones.is_empty() {
            say_err(&format!("{at}: bones keeping the bind pose (no track): {}", r.unmatched_bones.join(", ")));
        }
        if !r.ignored_tracks.is_empty() {
            say_err(&format!("{at}: tracks matching no bone (ignored): {}", r.ignored_tracks.join(", ")));
        }
        for loss in &r.losses {
            say_err(&format!("{at}: lossy: {loss}"));
        }
    }
}
