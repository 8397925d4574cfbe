//! Validation profiles: what a runtime or engine accepts beyond the file layout.
//!
//! The ANIMBIN capacities (5 animations, 50 tracks, 30 keys, 5 markers) belong to the original runtime,
//! not to the layout: a larger file is readable and convertible, and `validate` with the default
//! profile rejects it, naming the limit. The `large` profile has the same figures as the runtime's
//! larger capacity profile. For the other formats a profile checks what their players assume.

use crate::model::{Animation, Format, Quat};

/// Capacity limits of an ANIMBIN runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub animations: usize,
    pub tracks: usize,
    pub keys: usize,
    pub markers: usize,
}

/// The original runtime's arrays (`animation.hh`): the default.
pub const ORIGINAL: Profile = Profile { name: "original", animations: 5, tracks: 50, keys: 30, markers: 5 };
/// The runtime's larger capacity profile.
pub const LARGE: Profile = Profile { name: "large", animations: 32, tracks: 256, keys: 2048, markers: 32 };

pub const PROFILES: [Profile; 2] = [ORIGINAL, LARGE];

pub fn by_name(name: &str) -> Option<Profile> {
    PROFILES.iter().copied().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Everything in `anim` the profile's runtime would not accept; empty when valid.
pub fn check(anim: &Animation, profile: Profile) -> Vec<String> {
    let mut problems = Vec::new();
    if anim.format == Format::Animbin {
        check_animbin(anim, profile, &mut problems);
    }
    problems
}

/// Things a player tolerates but that are probably mistakes: rotations far from unit length.
pub fn warnings(anim: &Animation) -> Vec<String> {
    let mut out = Vec::new();
    for (ci, clip) in anim.clips.iter().enumerate() {
        for track in &clip.tracks {
            if let Some(key) = track.rotation.iter().find(|k| !is_unit(k.value)) {
                out.push(format!(
                    "clip {ci} ({:?}), bone {}: the rotation at time {} has norm {:.4}, not 1",
                    clip.name,
                    track.bone,
                    key.time,
                    key.value.norm()
                ));
            }
        }
    }
    out
}

/// FP12 quaternions are off unit length by up to a few steps; floats by rounding.
fn is_unit(q: Quat) -> bool {
    (q.norm() - 1.0).abs() <= 0.01
}

fn check_animbin(anim: &Animation, p: Profile, problems: &mut Vec<String>) {
    let limit = |what: &str, n: usize, max: usize, name: &str| {
        format!("{what}: {n} exceeds the {} profile's limit of {max} ({name})", p.name)
    };
    if anim.version != 1 {
        problems.push(format!("version {} (the runtime knows version 1)", anim.version));
    }
    if anim.clips.len() > p.animations {
        problems.push(limit("animations per file", anim.clips.len(), p.animations, "MAX_ANIMATIONS"));
    }
    for (ci, clip) in anim.clips.iter().enumerate() {
        let at = format!("animation {ci} ({:?})", clip.name);
        if clip.tracks.len() > p.tracks {
            problems.push(limit(&format!("{at}: tracks"), clip.tracks.len(), p.tracks, "MAX_TRACKS"));
        }
        if clip.events.len() > p.markers {
            problems.push(limit(&format!("{at}: markers"), clip.events.len(), p.markers, "MAX_MARKERS"));
        }
        if clip.length < 1.0 {
            problems.push(format!("{at}: length 0; a clip needs at least one frame"));
        }
        if unterminated(&clip.name, clip.extras.raw_name.as_deref()) {
            problems.push(format!("{at}: the name fills all 32 bytes with no terminator; the original runtime reads past it"));
        }
        let mut channels = Vec::new();
        for (ti, track) in clip.tracks.iter().enumerate() {
            let tat = format!("{at}, track {ti} (joint {})", track.bone);
            let keys = track.rotation.len() + track.translation.len();
            if keys == 0 {
                problems.push(format!("{tat}: no keys; the original runtime reads keys[-1] for an empty track"));
            }
            if keys > p.keys {
                problems.push(limit(&format!("{tat}: keys"), keys, p.keys, "MAX_KEYS"));
            }
            for (kind, times) in [
                ("rotation", track.rotation.iter().map(|k| k.time).collect::<Vec<_>>()),
                ("translation", track.translation.iter().map(|k| k.time).collect()),
            ] {
                if times.is_empty() {
                    continue;
                }
                if channels.contains(&(track.bone.clone(), kind)) {
                    problems.push(format!("{tat}: a second track animating the {kind} of this joint"));
                }
                channels.push((track.bone.clone(), kind));
                if times.windows(2).any(|w| w[1] <= w[0]) {
                    problems.push(format!("{tat}: {kind} key frames are not strictly increasing"));
                }
                if let Some(t) = times.iter().find(|&&t| t >= clip.length) {
                    problems.push(format!("{tat}: a {kind} key at frame {t}, past the clip's last frame {}", clip.length - 1.0));
                }
            }
        }
        for (mi, e) in clip.events.iter().enumerate() {
            if unterminated(&e.name, e.raw_name.as_deref()) {
                problems.push(format!("{at}, marker {mi}: the name fills all 32 bytes with no terminator"));
            }
        }
    }
}

/// Whether a 32-byte ANIMBIN name field had no NUL: the whole field is the name.
fn unterminated(name: &str, raw: Option<&[u8]>) -> bool {
    match raw {
        Some(raw) => !raw.contains(&0),
        None => name.len() >= 32,
    }
}
