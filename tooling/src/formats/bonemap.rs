//! Bone maps: renaming or re-indexing bones between two skeletons.
//!
//! A bone map is a text file, one mapping per line: `FROM = TO`. Each side is a bone id (a decimal
//! number) or a bone name (anything else; quote it with `"` to keep spaces or to force a number to be
//! read as a name). `#` starts a comment; blank lines are ignored. Bones the map does not mention keep
//! their id or name. Example:
//!
//! ```text
//! # ANIMBIN joint ids -> .ani bone names
//! 0 = Bip01
//! 1 = "Bip01 Spine"
//! ```

use crate::model::{Animation, Bone};
use std::collections::HashMap;

/// A parsed bone map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoneMap {
    map: HashMap<Bone, Bone>,
}

fn parse_side(text: &str) -> Result<Bone, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("a bone id or name".into());
    }
    if let Some(inner) = t.strip_prefix('"') {
        return match inner.strip_suffix('"') {
            Some(name) => Ok(Bone::Name(name.to_string())),
            None => Err(format!("a closing quote in {t}")),
        };
    }
    Ok(match t.parse::<u32>() {
        Ok(id) => Bone::Id(id),
        Err(_) => Bone::Name(t.to_string()),
    })
}

impl BoneMap {
    /// Parses the text of a bone map; errors name the line and what was expected.
    pub fn parse(text: &str) -> Result<BoneMap, String> {
        let mut map = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let content = strip_comment(line).trim();
            if content.is_empty() {
                continue;
            }
            let Some((from, to)) = content.split_once('=') else {
                return Err(format!("line {line_no}: expected `FROM = TO`, found {content:?}"));
            };
            let from = parse_side(from).map_err(|e| format!("line {line_no}: expected {e} before `=`"))?;
            let to = parse_side(to).map_err(|e| format!("line {line_no}: expected {e} after `=`"))?;
            if map.insert(from.clone(), to).is_some() {
                return Err(format!("line {line_no}: bone {from} is mapped twice"));
            }
        }
        Ok(BoneMap { map })
    }

    /// The bones the map renames to (its right-hand sides).
    pub fn targets(&self) -> impl Iterator<Item = &Bone> {
        self.map.values()
    }

    /// Renames the tracks of every clip; two tracks ending on one bone is an error.
    pub fn apply(&self, anim: &mut Animation) -> Result<(), String> {
        for clip in &mut anim.clips {
            let mut seen = std::collections::HashSet::new();
            for track in &mut clip.tracks {
                if let Some(to) = self.map.get(&track.bone) {
                    track.bone = to.clone();
                    track.extras.raw_bone_name = None;
                }
                if !seen.insert(track.bone.clone()) {
                    return Err(format!("clip {:?}: two tracks map to bone {}", clip.name, track.bone));
                }
            }
        }
        Ok(())
    }
}

/// The line without a `#` comment (a `#` inside quotes is kept).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, ch) in line.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}
