//! Clip events from the FBX.
//!
//! What reaches an FBX file: Blender's FBX exporter writes neither the timeline's markers nor an
//! action's pose markers (they exist in no FBX element ufbx reads; ufbx's `Marker` elements are
//! motion-capture markers, a kind of node). What does reach it is a custom property: Blender writes
//! the custom properties of objects (and bones) as user-defined FBX properties when "Custom
//! Properties" is ticked in its FBX export options (`use_custom_props`), and ufbx exposes them in the
//! element's `props`. Other tools can set one on the animation stack (take) itself. So events are
//! read from a string property called [`EVENTS_PROPERTY`]:
//!
//! - on any node (e.g. Blender's armature object): `Clip: name@frame, name@frame; Clip2: ...`, the
//!   clips by their imported names (`Armature|Walk` is `Walk`);
//! - on an animation stack: `name@frame, name@frame` for that stack.
//!
//! `frame` is a number (fractions allowed) of the file's frames (its `frames_per_second`) from the
//! clip's start; it becomes the nearest sample at the import rate (a warning says so when it is not
//! exactly on one). An event outside the clip, or text that does not parse, is an error naming the
//! file, the node or stack and what was expected.

use super::ImportError;

/// The user property holding a clip's events.
pub const EVENTS_PROPERTY: &str = "psxanim_events";

/// `name@frame` pairs of one clip, as written.
fn parse_list(text: &str) -> Result<EventList, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, frame)) = item.rsplit_once('@') else {
            return Err(format!("expected name@frame, found {item:?}"));
        };
        let name = name.trim();
        let frame: f64 = frame.trim().parse().map_err(|_| format!("expected a frame number after '@' in {item:?}"))?;
        if name.is_empty() || name.len() > 255 || !frame.is_finite() || frame < 0.0 {
            return Err(format!("expected a name of 1..=255 bytes and a frame of 0 or more in {item:?}"));
        }
        out.push((name.to_string(), frame));
    }
    Ok(out)
}

/// A clip's events as written: (name, frame).
type EventList = Vec<(String, f64)>;

/// Per clip name, the events a node's property lists (`Clip: a@1, b@2; Clip2: ...`).
fn parse_by_clip(text: &str) -> Result<Vec<(String, EventList)>, String> {
    let mut out = Vec::new();
    for part in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((clip, list)) = part.split_once(':') else {
            return Err(format!("expected Clip: name@frame, ... but found {part:?}"));
        };
        out.push((clip.trim().to_string(), parse_list(list)?));
    }
    Ok(out)
}

fn property(element: &ufbx::Element) -> Option<&str> {
    let prop = element.props.find_prop(EVENTS_PROPERTY)?;
    Some(&prop.value_str)
}

/// The events of clip `clip` (stack `stack`, `frames` samples at `rate` Hz): from the stack's own
/// property and from every node's. Sorted by frame; `warnings` gets the rounded ones.
pub fn clip_events(
    path: &str,
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    clip: &str,
    frames: usize,
    rate: u32,
    warnings: &mut Vec<String>,
) -> Result<Vec<(usize, String)>, ImportError> {
    let bad = |owner: String, message: String| ImportError::Events { path: path.into(), owner, message };
    let mut found: Vec<(String, f64, String)> = Vec::new();
    if let Some(text) = property(&stack.element) {
        let owner = format!("animation stack '{}'", &*stack.element.name);
        for (name, frame) in parse_list(text).map_err(|m| bad(owner.clone(), m))? {
            found.push((name, frame, owner.clone()));
        }
    }
    for node in scene.nodes.as_ref().iter() {
        let Some(text) = property(&node.element) else { continue };
        let owner = format!("node '{}'", &*node.element.name);
        for (c, list) in parse_by_clip(text).map_err(|m| bad(owner.clone(), m))? {
            if c == clip || c.rsplit('|').next() == Some(clip) {
                found.extend(list.into_iter().map(|(n, f)| (n, f, owner.clone())));
            }
        }
    }
    let fps = if scene.settings.frames_per_second > 0.0 { scene.settings.frames_per_second } else { 30.0 };
    let mut events = Vec::new();
    for (name, frame, owner) in found {
        let sample = frame / fps * rate as f64;
        let at = sample.round();
        if at as usize >= frames {
            return Err(bad(owner, format!("event '{name}' at frame {frame} is past the end of clip '{clip}' ({frames} samples at {rate} Hz)")));
        }
        if (sample - at).abs() > 1e-6 {
            warnings.push(format!("clip '{clip}': event '{name}' at file frame {frame} ({fps} fps) rounded to sample {at} at {rate} Hz"));
        }
        events.push((at as usize, name));
    }
    events.sort_by_key(|e| e.0);
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_bad_text_is_named() {
        assert_eq!(parse_list(" step_l@4, step_r @ 19.5 ,").unwrap(), [("step_l".to_string(), 4.0), ("step_r".to_string(), 19.5)]);
        assert_eq!(
            parse_by_clip("Walk: a@1; Idle: b@2, c@3").unwrap(),
            [("Walk".to_string(), vec![("a".to_string(), 1.0)]), ("Idle".to_string(), vec![("b".to_string(), 2.0), ("c".to_string(), 3.0)])]
        );
        assert!(parse_list("a@x").unwrap_err().contains("frame number"));
        assert!(parse_list("a4").unwrap_err().contains("name@frame"));
        assert!(parse_list("@4").is_err() && parse_list("a@-1").is_err());
        assert!(parse_by_clip("Walk a@1").unwrap_err().contains("Clip:"));
    }
}
