//! Property tests of the glTF loader on damaged copies of the fixtures: whatever the bytes, it returns
//! (never panics), an error names the file, and an accepted file is a consistent character.

use proptest::prelude::*;
use psxanim::fbx::{limits, ImportOptions};
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gltf").join(name)).unwrap()
}

fn check(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    match psxanim::gltf::import_bytes(name, bytes, &ImportOptions::default()) {
        Ok(c) => {
            prop_assert!(c.vertices.len() <= limits::MAX_VERTICES && c.bones.len() <= limits::MAX_NODES);
            prop_assert!(c.triangles.iter().all(|t| t.vertices.iter().all(|v| *v < c.vertices.len())));
            prop_assert!(c.bones.iter().enumerate().all(|(b, bone)| bone.parent.is_none_or(|p| p < b)));
            for k in &c.clips {
                prop_assert!(k.poses.iter().all(|p| p.len() == c.bones.len()));
                prop_assert!(k.skinned_reference.iter().flatten().flatten().all(|x| x.is_finite()));
            }
        }
        Err(e) => prop_assert!(e.to_string().starts_with(name), "{e}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// Bytes of a GLB (header, JSON or binary chunk) overwritten.
    #[test]
    fn damaged_glb_files_are_refused_or_imported_consistently(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let mut bytes = fixture("rod_matrix_step.glb");
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        check("damaged.glb", &bytes)?;
    }

    /// A GLB cut anywhere.
    #[test]
    fn truncated_glb_files_are_refused(cut in 0usize..4604) {
        let bytes = fixture("rod_matrix_step.glb");
        let r = psxanim::gltf::import_bytes("cut.glb", &bytes[..cut.min(bytes.len() - 1)], &ImportOptions::default());
        prop_assert!(r.is_err());
        check("cut.glb", &bytes[..cut.min(bytes.len() - 1)])?;
    }

    /// Numbers of the JSON (accessor counts, offsets, indices, key values in the base64 buffer) changed.
    #[test]
    fn edited_gltf_numbers_are_refused_or_imported_consistently(edits in prop::collection::vec((any::<prop::sample::Index>(), 0u32..100_000), 1..4)) {
        let text = String::from_utf8(fixture("rod_cubic_embedded.gltf")).unwrap();
        let mut parts: Vec<String> = text.split(|c: char| c.is_ascii_digit()).map(str::to_string).collect();
        let digits: Vec<&str> = text.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).collect();
        prop_assume!(!digits.is_empty());
        // Rebuild the text with some digit runs replaced.
        let mut replaced: Vec<String> = digits.iter().map(|d| d.to_string()).collect();
        for (at, value) in edits {
            let i = at.index(replaced.len());
            replaced[i] = value.to_string();
        }
        let mut out = String::new();
        let mut r = replaced.into_iter();
        let mut prev_digit = false;
        for ch in text.chars() {
            let d = ch.is_ascii_digit();
            if d && !prev_digit {
                out.push_str(&r.next().unwrap());
            } else if !d {
                out.push(ch);
            }
            prev_digit = d;
        }
        parts.clear();
        check("edited.gltf", out.as_bytes())?;
    }
}

/// Found by the fuzz target: an image with neither a URI nor a MIME type made the gltf crate panic when
/// the texture's image was asked for; the import remembers it by name or index instead.
#[test]
fn a_texture_image_without_uri_or_mime_type_is_remembered_by_index() {
    let text = String::from_utf8(fixture("rod_cubic_embedded.gltf")).unwrap();
    let text = text.replace("\"uri\": \"rod_blue.png\"", "\"name\": \"blue\", \"bufferView\": 0").replacen("\"material\": 0", "\"material\": 1", 1);
    let c = psxanim::gltf::import_bytes("image.gltf", text.as_bytes(), &ImportOptions::default()).unwrap();
    assert_eq!(c.materials[0].name, "Blue");
    assert_eq!(c.materials[0].texture.as_ref().map(|t| t.name.as_str()), Some("blue"));
}
