//! Textures (issue 22) as `psxanim import` finds, converts and writes them: the Blender fixtures with the
//! Skin material painted (`tests/fixtures/fbx/make_fixtures.py`: `textured_embedded.fbx` carries the
//! image, `textured_absolute.fbx` names the artist's absolute path, absent here, with the image beside it).

use std::path::{Path, PathBuf};
use std::process::Command;

use psxanim::texture::convert::bgr555;
use psxanim::texture::tim::{Depth, Tim};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx").join(name)
}

/// `psxanim ARGS`: exit code, stdout, stderr.
fn psxanim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn import(model: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["import", model.to_str().unwrap(), "--storage", "rigid-gte", "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    psxanim(&args)
}

fn files(dir: &Path) -> Vec<String> {
    let mut f: Vec<String> = std::fs::read_dir(dir).map_or(vec![], |d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect());
    f.sort();
    f
}

#[test]
fn an_embedded_image_and_one_found_beside_the_model_become_the_same_tim_holding_the_pictures_colours() {
    let dir = tempfile::tempdir().unwrap();
    let mut tims = Vec::new();
    for name in ["textured_embedded", "textured_absolute"] {
        let out = dir.path().join(name);
        let (code, stdout, stderr) = import(&fixture(&format!("{name}.fbx")), &out, &["--json"]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(files(&out), [format!("{name}.Skin.tim"), format!("{name}.pxsk")]);
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let t = &json["textures"][0];
        assert_eq!((t["material"].as_str(), t["depth_bits"].as_u64(), t["width"].as_u64(), t["height"].as_u64()), (Some("Skin"), Some(8), Some(64), Some(64)), "{t}");
        assert_eq!(t["source"], if name == "textured_embedded" { "embedded".to_string() } else { fixture("painted_skin.png").display().to_string() });
        assert_eq!((t["vram"]["x"].as_u64(), t["vram"]["w"].as_u64(), t["clut"]["y"].as_u64()), (Some(320), Some(32), Some(480)));
        tims.push(std::fs::read(out.join(format!("{name}.Skin.tim"))).unwrap());
    }
    assert_eq!(tims[0], tims[1]);
    // Every texel is the painted image's colour in 15 bits: 40 colours, exact in an 8-bit CLUT.
    let tim = Tim::parse(&tims[0]).unwrap();
    let png = image::open(fixture("painted_skin.png")).unwrap().to_rgba8();
    let rgba = tim.rgba();
    for (i, p) in png.pixels().enumerate() {
        let c = bgr555(p[0], p[1], p[2], p[3]);
        let five = |v: u16| ((v & 31) * 255 / 31) as u8;
        assert_eq!(&rgba[4 * i..4 * i + 3], &[five(c), five(c >> 5), five(c >> 10)], "texel {i}");
    }
    // The summary states it too.
    let (_, stdout, _) = import(&fixture("textured_embedded.fbx"), &dir.path().join("again"), &[]);
    assert!(stdout.contains("texture 'Skin' (embedded): 64x64, 8-bit, 40 colours; VRAM (320, 0) 32x64 halfwords, CLUT 40 colours at (0, 480)"), "{stdout}");
}

#[test]
fn a_missing_or_broken_image_names_every_place_tried_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("alone.fbx");
    std::fs::copy(fixture("textured_absolute.fbx"), &model).unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = import(&model, &out, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("material 'Skin': image '") && stderr.contains("/tmp/psxanim-artist-folder/textures/painted_skin.png (")
            && stderr.contains(&format!("{} (", dir.path().join("painted_skin.png").display()))
            && stderr.contains("--missing-textures flat"),
        "{stderr}"
    );
    assert!(files(&out).is_empty());
    // Kept flat, with a warning; or found in --textures DIR.
    let (code, _, stderr) = import(&model, &out, &["--missing-textures", "flat"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("it keeps its colour (--missing-textures flat)"), "{stderr}");
    assert_eq!(files(&out), ["alone.pxsk"]);
    let (code, _, stderr) = import(&model, &dir.path().join("dir"), &["--textures", fixture("").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files(&dir.path().join("dir")), ["alone.Skin.tim", "alone.pxsk"]);
    // Not an image.
    std::fs::write(dir.path().join("painted_skin.png"), b"not a PNG at all").unwrap();
    let (code, _, stderr) = import(&model, &dir.path().join("broken"), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("material 'Skin': image '") && stderr.contains(", 16 bytes) cannot be decoded"), "{stderr}");
    assert!(files(&dir.path().join("broken")).is_empty());
}

#[test]
fn texture_depth_chooses_4_8_or_15_bits_and_inspect_draws_the_tim() {
    let dir = tempfile::tempdir().unwrap();
    for (bits, depth, clut) in [("4", Depth::Four, 16), ("8", Depth::Eight, 256), ("15", Depth::Fifteen, 0)] {
        let out = dir.path().join(bits);
        let (code, _, stderr) = import(&fixture("textured_embedded.fbx"), &out, &["--texture-depth", bits, "--dither"]);
        assert_eq!(code, 0, "{stderr}");
        let tim = Tim::parse(&std::fs::read(out.join("textured_embedded.Skin.tim")).unwrap()).unwrap();
        assert_eq!((tim.depth, tim.clut.len(), tim.texel_width(), tim.image_at.h), (depth, clut, 64, 64));
    }
    let (code, _, stderr) = import(&fixture("textured_embedded.fbx"), &dir.path().join("x"), &["--texture-depth", "16"]);
    assert_eq!(code, 2, "{stderr}");
    let tim = dir.path().join("4/textured_embedded.Skin.tim");
    let png = dir.path().join("skin.png");
    let (code, stdout, stderr) = psxanim(&["inspect", tim.to_str().unwrap(), "--png", png.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("TIM, 64x64 texels at 4 bits; VRAM (320, 0) 16x64 halfwords; CLUT of 16 at (0, 480)"), "{stdout}");
    assert_eq!(image::open(&png).unwrap().to_rgba8().dimensions(), (64, 64));
    let (code, _, stderr) = psxanim(&["inspect", fixture("textured_embedded.fbx").to_str().unwrap(), "--png", png.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn uvs_come_per_triangle_corner_in_the_images_axes_with_their_seams() {
    // The fixture unrolls each bone's tube into its own column of the image (see make_mesh's `uvs`).
    let c = psxanim::fbx::import(&fixture("textured_embedded.fbx"), &psxanim::fbx::ImportOptions::default(), &mut |_, _, _| {}).unwrap();
    assert_eq!(c.uvs.len(), c.triangles.len());
    let columns = c.bones.len() as f64;
    let mut seen: std::collections::HashMap<usize, Vec<[f64; 2]>> = std::collections::HashMap::new();
    for (t, uvs) in c.triangles.iter().zip(&c.uvs) {
        let uvs = uvs.expect("every triangle has UVs");
        // A triangle lies in its bone's column: all corners within one column's width.
        let column = (uvs.iter().map(|uv| uv[0]).sum::<f64>() / 3.0 * columns).floor();
        for (&v, uv) in t.vertices.iter().zip(uvs) {
            assert!((0.0..=1.0).contains(&uv[0]) && (0.0..=1.0).contains(&uv[1]), "{uv:?}");
            assert!(uv[0] >= column / columns - 1e-6 && uv[0] <= (column + 1.0) / columns + 1e-6, "{uv:?} outside column {column}");
            let list = seen.entry(v).or_default();
            if !list.iter().any(|o| (o[0] - uv[0]).abs() < 1e-6 && (o[1] - uv[1]).abs() < 1e-6) {
                list.push(uv);
            }
        }
    }
    // The tubes' seams: a vertex on a seam has a UV on each side of it (and a third on its cap).
    let seams = seen.values().filter(|l| l.iter().map(|uv| (uv[0] * 1e4).round() as i64).collect::<std::collections::BTreeSet<_>>().len() >= 2).count();
    assert!(seams >= 2 * c.bones.len(), "{seams}");
    // v runs down the image: the tubes take the middle three quarters, in Blender's top-down order.
    let vs: Vec<f64> = c.uvs.iter().flatten().flatten().map(|uv| uv[1]).collect();
    assert!(vs.iter().any(|&v| v < 0.2) && vs.iter().any(|&v| v > 0.8));
    // The summary gives the texture's UV range and that nothing tiles.
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = import(&fixture("textured_embedded.fbx"), dir.path(), &["--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let t = &json["textures"][0];
    assert_eq!(t["tiling"], "none");
    let range = t["uv_range"].as_array().unwrap();
    assert!(range[0][0].as_f64().unwrap() >= 0.0 && range[1][0].as_f64().unwrap() <= 1.0, "{range:?}");
}

#[test]
fn a_textured_character_with_two_influences_is_version_7_with_its_blend_section_and_seam_copies_blend_alike() {
    use psxanim_runtime::tables::{Tables, HEADER_SIZE_V7, VERSION_TEXTURED};
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = import(&fixture("textured_embedded.fbx"), dir.path(), &["--max-influences", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("blended ") && stdout.contains("texture 'Skin'"), "{stdout}");
    let blob = std::fs::read(dir.path().join("textured_embedded.pxsk")).unwrap();
    let t = Tables::parse(&blob).unwrap();
    assert_eq!(u16::from_le_bytes([blob[4], blob[5]]), VERSION_TEXTURED);
    assert_eq!((t.texture_count(), t.material_texture(0)), (1, Some(0)));
    assert!(t.blend_group_count() > 0 && t.blended_vertex_count() > 0);
    // Blend at 64..72, textures at 72..80: the blend section sits past the header.
    assert!(u32::from_le_bytes(blob[64..68].try_into().unwrap()) as usize >= HEADER_SIZE_V7);
    // A vertex split at a UV seam is one vertex per UV with one place and one pair: every copy of a
    // (first bone, bone-local place) is blended by the same pair and weight, or none is.
    let mut follows = vec![None; t.vertex_count()];
    for g in 0..t.blend_group_count() {
        let group = t.blend_group(g);
        let pair = t.blend_pair(group.pair as usize);
        for v in group.first_vertex..group.first_vertex + group.vertex_count {
            follows[v as usize] = Some((pair.a, Some((pair.b, group.weight))));
        }
    }
    for b in 0..t.bone_count() {
        let bone = t.bone(b);
        for v in bone.first_vertex..bone.first_vertex + bone.vertex_count {
            follows[v as usize] = Some((b as u16, None));
        }
    }
    let mut seen = std::collections::HashMap::new();
    let mut blended_copies = 0;
    for (v, f) in follows.iter().enumerate() {
        let (a, second) = f.expect("every vertex is a bone's or a group's");
        let prior = seen.insert((a, t.vertex(v)), (second, t.vertex_uv(v)));
        if let Some((other, uv)) = prior {
            assert_eq!(other, second, "vertex {v}: a copy of one place blended differently");
            blended_copies += usize::from(second.is_some() && uv != t.vertex_uv(v));
        }
    }
    assert!(blended_copies > 0, "no seam copy among the blended vertices");
    // inspect lists both.
    let (code, stdout, stderr) = psxanim(&["inspect", dir.path().join("textured_embedded.pxsk").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("PXSK version 7") && stdout.contains("  blend 0 ") && stdout.contains("  texture 0 "), "{stdout}");
}
