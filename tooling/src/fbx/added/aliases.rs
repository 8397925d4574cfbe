//! Matching the tracks of another rig's clips to the model's bones when the two name bones differently.
//!
//! Each track is tried against the bones by these rules, strictest first; a rule only matches a bone no
//! stricter rule took, and a track two bones fit equally well under a rule is left for the next one:
//!
//! 1. `exact`: the same name, or a numeric id within the bone count (the bone's index).
//! 2. `case`: the same words, ignoring case and separators: a name splits into words at `_ - . : |`,
//!    spaces and lower-to-upper case changes (`UpperArm.L`, `upper_arm_l` and `upperArm_L` are all
//!    upper-arm-l).
//! 3. `prefix`: the same after dropping a namespace prefix up to the last `:` or `|` (Mixamo's
//!    `mixamorig:Hips`, Maya's `rig:Hips`, an `Armature|Hips` path) and 3ds Max Biped's `Bip01 `.
//! 4. `side`: the same side and the same other words, the side being a word `L`/`Left` or `R`/`Right`
//!    anywhere in the name (`LeftHand`, `Hand.L`, `hand_l`, `Hand_R`, `Bip01 L Hand`).
//! 5. `alias`: the same side (or none) and words that one line of [`ALIASES`] holds
//!    (`mixamorig:LeftUpLeg`, `thigh_l` and `Thigh.L`; `pelvis` and `Hips`).
//!
//! The table is deliberately small: the words common rigs (Mixamo, Unreal's mannequin, Unity's humanoid,
//! Blender's and 3ds Max Biped's defaults) use for the same limb. Anything else is for `--bone-map`,
//! which renames tracks before these rules run.

use serde::Serialize;

use crate::fbx::Character;
use crate::model::{Bone, Clip};

/// Words that name the same bone in common rigs, as joined lowercase words (`upleg` is `Up` + `Leg`).
pub const ALIASES: &[&[&str]] = &[
    &["hips", "pelvis", "hip"],
    &["upperarm", "arm"],
    &["forearm", "lowerarm"],
    &["thigh", "upleg", "upperleg"],
    &["shin", "leg", "calf", "lowerleg"],
    &["clavicle", "shoulder", "collar"],
    &["toe", "toebase", "ball"],
];

/// The rules in the order they are tried ([`TrackMatch::rule`] is one of them).
pub const RULES: [&str; 5] = ["exact", "case", "prefix", "side", "alias"];

/// A track and the bone it drives, with the rule that matched them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrackMatch {
    pub track: String,
    pub bone: String,
    pub rule: &'static str,
}

/// The track of each bone of `c`, the tracks matching none (as `"BONE (track N)"`) and every match with
/// its rule, in track order.
pub fn match_tracks(c: &Character, clip: &Clip) -> (Vec<Option<usize>>, Vec<String>, Vec<TrackMatch>) {
    let mut track_of_bone: Vec<Option<usize>> = vec![None; c.bones.len()];
    let mut rule_of_track: Vec<Option<&'static str>> = vec![None; clip.tracks.len()];
    for (level, rule) in RULES.iter().enumerate() {
        let bone_keys: Vec<Option<String>> = c.bones.iter().map(|b| key(&b.name, level)).collect();
        let mut found: Vec<(usize, usize)> = Vec::new();
        for (ti, track) in clip.tracks.iter().enumerate().filter(|(ti, _)| rule_of_track[*ti].is_none()) {
            let fits: Vec<usize> = match &track.bone {
                Bone::Id(id) if level == 0 => Some(*id as usize).filter(|&i| i < c.bones.len()).into_iter().collect(),
                Bone::Id(_) => Vec::new(),
                Bone::Name(n) => match key(n, level) {
                    Some(k) => (0..c.bones.len())
                        .filter(|&b| track_of_bone[b].is_none() && bone_keys[b].as_deref() == Some(k.as_str()))
                        .collect(),
                    None => Vec::new(),
                },
            };
            if let [b] = fits[..] {
                found.push((ti, b));
            }
        }
        // Two tracks fitting one bone under the same rule: the first (in file order) takes it, as an
        // exact name repeated in a file did before.
        for (ti, b) in found {
            if track_of_bone[b].is_none() {
                track_of_bone[b] = Some(ti);
                rule_of_track[ti] = Some(rule);
            }
        }
    }
    let mut unmatched = Vec::new();
    let mut matches = Vec::new();
    for (ti, track) in clip.tracks.iter().enumerate() {
        match rule_of_track[ti] {
            Some(rule) => {
                let b = track_of_bone.iter().position(|t| *t == Some(ti)).expect("a matched track has its bone");
                let name = match &track.bone {
                    Bone::Name(n) => n.clone(),
                    Bone::Id(id) => id.to_string(),
                };
                matches.push(TrackMatch { track: name, bone: c.bones[b].name.clone(), rule });
            }
            None => unmatched.push(format!("{} (track {ti})", track.bone)),
        }
    }
    (track_of_bone, unmatched, matches)
}

/// `name`'s key under rule `level` (an index of [`RULES`]); None where the rule does not apply (no side
/// word for `side`, no alias line for `alias`), so such names only match by the stricter rules.
fn key(name: &str, level: usize) -> Option<String> {
    match level {
        0 => Some(name.to_string()),
        1 => Some(words(name).concat()),
        2 => Some(words(unprefixed(name)).concat()),
        _ => {
            let mut w = words(unprefixed(name));
            let side = match w.iter().position(|w| matches!(w.as_str(), "l" | "left" | "r" | "right")) {
                Some(i) if w.remove(i).starts_with('l') => "L",
                Some(_) => "R",
                None if level == 3 => return None,
                None => "",
            };
            let rest = w.concat();
            if rest.is_empty() {
                return None;
            }
            if level == 3 {
                return Some(format!("{side}:{rest}"));
            }
            let line = ALIASES.iter().position(|line| line.contains(&rest.as_str()))?;
            Some(format!("{side}:alias{line}"))
        }
    }
}

/// `name` without a namespace prefix up to its last `:` or `|`, and without 3ds Max Biped's leading
/// `Bip01 ` (the biped's name: `Bip01 L Hand`).
fn unprefixed(name: &str) -> &str {
    let name = name.rsplit([':', '|']).next().unwrap_or(name);
    match name.split_once(' ') {
        Some((first, rest)) if first.len() > 3 && first[..3].eq_ignore_ascii_case("bip") && first[3..].bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => name,
    }
}

/// Lowercase words of `name`: split at separators and where a lowercase letter or digit is followed by
/// an uppercase one (`LeftUpLeg` -> left, up, leg; `Bip01 L Hand` -> bip01, l, hand).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for ch in name.chars() {
        if matches!(ch, '_' | '-' | '.' | ':' | '|' | ' ') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous = None;
            continue;
        }
        if ch.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.extend(ch.to_lowercase());
        previous = Some(ch);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{key, words};

    fn same(a: &str, b: &str) -> Option<&'static str> {
        (0..5).find(|&l| key(a, l).is_some() && key(a, l) == key(b, l)).map(|l| super::RULES[l])
    }

    #[test]
    fn names_split_into_lowercase_words() {
        assert_eq!(words("LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(words("UpperArm.L"), ["upper", "arm", "l"]);
        assert_eq!(words("mixamorig:LeftForeArm"), ["mixamorig", "left", "fore", "arm"]);
        assert_eq!(words("Bip01 L UpperArm"), ["bip01", "l", "upper", "arm"]);
        assert_eq!(words("spine_01"), ["spine", "01"]);
        assert_eq!(words("HEAD"), ["head"]);
    }

    #[test]
    fn each_rule_matches_what_it_documents() {
        assert_eq!(same("Hips", "Hips"), Some("exact"));
        assert_eq!(same("upper_arm_l", "UpperArm.L"), Some("case"));
        assert_eq!(same("HEAD", "Head"), Some("case"));
        assert_eq!(same("mixamorig:Head", "Head"), Some("prefix"));
        assert_eq!(same("Armature|Spine", "Spine"), Some("prefix"));
        assert_eq!(same("Bip01 Head", "head"), Some("prefix"));
        assert_eq!(same("mixamorig:LeftHand", "Hand.L"), Some("side"));
        assert_eq!(same("hand_r", "RightHand"), Some("side"));
        assert_eq!(same("Bip01 L Hand", "Hand_L"), Some("side"));
        assert_eq!(same("mixamorig:LeftUpLeg", "Thigh.L"), Some("alias"));
        assert_eq!(same("calf_r", "Shin.R"), Some("alias"));
        assert_eq!(same("mixamorig:RightForeArm", "lowerarm_r"), Some("alias"));
        assert_eq!(same("pelvis", "Hips"), Some("alias"));
        assert_eq!(same("LeftArm", "upperarm_l"), Some("alias"));
    }

    #[test]
    fn sides_and_different_bones_never_match() {
        assert_eq!(same("LeftHand", "Hand.R"), None);
        assert_eq!(same("LeftUpLeg", "Shin.L"), None);
        assert_eq!(same("Spine", "Spine1"), None);
        assert_eq!(same("Hips", "Head"), None);
        assert_eq!(same("UpLeg", "Thigh.L"), None);
        // A side word alone is no bone.
        assert_eq!(same("L", "Left"), None);
    }
}
