//! glTF loader (`.glb` and `.gltf` bytes, external buffers refused): never panics, never allocates
//! past what the file holds; whatever it accepts is a character within the profile.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::fbx::{limits, ImportOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(c) = psxanim::gltf::import_bytes("fuzz.glb", data, &ImportOptions::default()) {
        assert!(c.vertices.len() <= limits::MAX_VERTICES && c.bones.len() <= limits::MAX_NODES);
        assert!(c.triangles.iter().all(|t| t.vertices.iter().all(|v| *v < c.vertices.len())));
        assert!(c.clips.iter().all(|k| k.poses.iter().all(|p| p.len() == c.bones.len())));
    }
});
