//! A textured character's blob (tables version 7) as the console reads it: the textures, their
//! default places and CLUTs equal to the TIM files `import` writes beside it, every drawn corner's UV
//! the texel of the file's own UV, seams split into vertices, and a damaged texture section refused
//! with its offset.

use std::path::{Path, PathBuf};
use std::process::Command;

use psxanim::texture::tim::Tim;
use psxanim_runtime::tables::textures::{TexelDepth, TEXTURE_ENTRY_SIZE};
use psxanim_runtime::tables::{TableError, Tables, TEXTURES_AT, UVS_AT, VERSION_TEXTURED};
use psxanim_runtime::vram::{Placement, PlacementError};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx").join(name)
}

/// `psxanim import FIXTURE --storage STORAGE -o DIR`: the blob and the TIM.
fn import(name: &str, storage: &str, dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", fixture(&format!("{name}.fbx")).to_str().unwrap(), "--storage", storage, "-o", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (std::fs::read(dir.join(format!("{name}.pxsk"))).unwrap(), std::fs::read(dir.join(format!("{name}.Skin.tim"))).unwrap())
}

fn halfwords(bytes: &[u8]) -> Vec<u16> {
    bytes.chunks(2).map(|h| u16::from_le_bytes([h[0], h[1]])).collect()
}

#[test]
fn the_blob_holds_the_tim_s_texture_and_every_vertex_one_uv() {
    for storage in ["rigid-gte", "baked-vertices"] {
        let dir = tempfile::tempdir().unwrap();
        let (blob, tim) = import("textured_embedded", storage, dir.path());
        let t = Tables::parse(&blob).unwrap();
        assert_eq!(u16::from_le_bytes([blob[4], blob[5]]), VERSION_TEXTURED);
        let tim = Tim::parse(&tim).unwrap();
        assert_eq!(t.texture_count(), 1);
        let x = t.texture(0).unwrap();
        assert_eq!((x.depth, x.width, x.height, x.tiled), (TexelDepth::Eight, 64, 64, false));
        assert_eq!(halfwords(x.image), tim.image, "{storage}: the image words");
        assert_eq!(&halfwords(x.clut)[..tim.clut.len()], &tim.clut[..], "{storage}: the CLUT");
        let (image_at, clut_at) = (tim.image_at, tim.clut_at.unwrap());
        assert_eq!((x.image_at.x, x.image_at.y, x.image_at.w, x.image_at.h), (image_at.x, image_at.y, image_at.w, image_at.h));
        assert_eq!((x.clut_at.unwrap().x, x.clut_at.unwrap().y), (clut_at.x, clut_at.y));
        // The fixture's Skin material (index 0 of 4) is the textured one.
        let textured: Vec<Option<usize>> = (0..t.material_count()).map(|m| t.material_texture(m)).collect();
        assert_eq!(textured.iter().filter(|m| m.is_some()).count(), 1, "{textured:?}");
        // Every UV lies inside the texture; the seams split some vertices (the untextured character has 352).
        let uvs: Vec<u32> = (0..t.vertex_count()).map(|v| t.vertex_uv(v)).collect();
        assert!(uvs.iter().all(|w| (w & 0xFF) < 64 && (w >> 8) < 64), "{storage}");
        assert!(t.vertex_count() > 352, "{storage}: {} vertices", t.vertex_count());
        assert!(uvs.iter().any(|&w| w != 0));
    }
}

#[test]
fn the_corners_drawn_read_the_file_s_uvs_and_untextured_blobs_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (blob, _) = import("textured_embedded", "rigid-gte", dir.path());
    let t = Tables::parse(&blob).unwrap();
    // The textured primitives' corners read exactly the texels of the FBX's own UVs (a planar quad may
    // be split along its other diagonal, so corners, not triangles, are compared).
    let c = psxanim::character::import(&fixture("textured_embedded.fbx"), &Default::default(), &mut |_, _, _| {}).unwrap();
    let from_file: Vec<[u32; 3]> = c
        .triangles
        .iter()
        .zip(&c.uvs)
        .filter(|(tri, _)| c.materials[tri.material].texture.is_some())
        .map(|(_, uv)| {
            let grid = psxanim::compile::seams::TexelGrid { width: 64, height: 64, tiled: false };
            let mut w = psxanim::compile::seams::triangle_uv_words(uv.unwrap(), grid);
            w.sort();
            w
        })
        .collect();
    let mut drawn: Vec<[u32; 3]> = Vec::new();
    for p in t.primitives() {
        if t.material_texture(p.material as usize).is_none() {
            continue;
        }
        for tri in if p.quad { vec![p.facing, p.second] } else { vec![p.facing] } {
            let mut w = tri.map(|v| t.vertex_uv(v as usize));
            w.sort();
            drawn.push(w);
        }
    }
    let corners = |t: Vec<[u32; 3]>| {
        let mut c: Vec<u32> = t.into_iter().flatten().collect();
        c.sort();
        c.dedup();
        c
    };
    let (drawn, from_file) = (corners(drawn), corners(from_file));
    assert!(drawn.len() > 100, "{} distinct texels", drawn.len());
    assert_eq!(drawn, from_file);
    // Without a texture nothing changes: the plain character's blob is version 6 (`VERSION`), as before.
    let plain = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", fixture("character.fbx").to_str().unwrap(), "--storage", "rigid-gte", "-o", plain.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let b = std::fs::read(plain.path().join("character.pxsk")).unwrap();
    assert_eq!(u16::from_le_bytes([b[4], b[5]]), psxanim_runtime::tables::VERSION);
    assert_eq!(Tables::parse(&b).unwrap().texture_count(), 0);
}

#[test]
fn a_damaged_texture_section_is_refused_at_its_offset_and_placements_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (blob, _) = import("textured_embedded", "rigid-gte", dir.path());
    let at = u32::from_le_bytes(blob[TEXTURES_AT..TEXTURES_AT + 4].try_into().unwrap()) as usize;
    let uvs = u32::from_le_bytes(blob[UVS_AT..UVS_AT + 4].try_into().unwrap()) as usize;
    let entry = at + 4;
    let damaged = |offset: usize, value: &[u8]| {
        let mut b = blob.clone();
        b[offset..offset + value.len()].copy_from_slice(value);
        Tables::parse(&b).err()
    };
    let bad = |offset| Some(TableError::BadTexture { offset, what: "" });
    let same = |e: Option<TableError>, want: Option<TableError>| match (e, want) {
        (Some(TableError::BadTexture { offset: a, .. }), Some(TableError::BadTexture { offset: b, .. })) => a == b,
        (e, w) => e == w,
    };
    assert!(same(damaged(entry, &[5]), bad(entry)), "depth 5");
    assert!(same(damaged(entry + 2, &0u16.to_le_bytes()), bad(entry + 2)), "width 0");
    assert!(same(damaged(entry + 2, &300u16.to_le_bytes()), bad(entry + 2)), "width 300");
    assert!(same(damaged(entry + 6, &16u16.to_le_bytes()), bad(entry + 6)), "a 16-colour CLUT at 8 bits");
    assert!(same(damaged(entry + 8, &1000u16.to_le_bytes()), bad(entry + 8)), "image past VRAM");
    assert!(same(damaged(entry + 10, &230u16.to_le_bytes()), bad(entry + 8)), "image rows past the page's 256");
    assert!(same(damaged(entry + 12, &8u16.to_le_bytes()), bad(entry + 12)), "CLUT off its grid");
    assert!(same(damaged(at, &9u16.to_le_bytes()), bad(at)), "9 textures");
    assert!(same(damaged(uvs + 8, &[0, 0, 1, 0]), bad(uvs + 8)), "a UV word's high half");
    let materials = u32::from_le_bytes(blob[52..56].try_into().unwrap()) as usize;
    assert!(same(damaged(materials + 3, &[2]), bad(materials + 3)), "a material naming texture 1 of 1");
    assert!(matches!(
        damaged(entry + 16, &(blob.len() as u32).to_le_bytes()),
        Some(TableError::SectionOutOfBounds { what: "texture data", .. })
    ));
    assert_eq!(TEXTURE_ENTRY_SIZE, 24);

    // Placements: the default keeps clear of the frame buffers; a game's own place is checked.
    let t = Tables::parse(&blob).unwrap();
    let frame_buffers = [psxanim_runtime::tables::textures::Rect { x: 0, y: 0, w: 320, h: 480 }];
    let p = Placement::default_of(&t, &frame_buffers).unwrap();
    assert_eq!(p.rects(0).unwrap().0.x, 320);
    let place = |x, y, cx, cy| psxanim_runtime::vram::Place { image_x: x, image_y: y, clut_x: cx, clut_y: cy };
    assert!(matches!(Placement::new(&t, &[place(64, 0, 0, 480)], &frame_buffers), Err(PlacementError::Reserved { texture: 0, clut: false, .. })));
    assert!(matches!(Placement::new(&t, &[place(320, 230, 0, 480)], &[]), Err(PlacementError::ImageOutside { texture: 0, .. })));
    // Columns are free at 8 bits: 64 texels from x 360 reach texel 144 of the page at 320.
    assert!(Placement::new(&t, &[place(360, 0, 0, 480)], &[]).is_ok());
    assert!(matches!(Placement::new(&t, &[place(320, 0, 320, 10)], &[]), Err(PlacementError::Overlap { a: 0, a_clut: false, b: 0, b_clut: true })));
    assert!(matches!(Placement::new(&t, &[place(320, 0, 8, 480)], &[]), Err(PlacementError::ClutOutside { texture: 0, .. })));
    assert!(matches!(Placement::new(&t, &[], &[]), Err(PlacementError::WrongCount { given: 0, textures: 1 })));
    // A second copy of the character goes elsewhere: first_fit keeps clear of the first one's places.
    let taken: Vec<_> = frame_buffers.iter().copied().chain(p.taken()).collect();
    let q = Placement::first_fit(&t, &taken).unwrap();
    let (qi, qc) = q.rects(0).unwrap();
    assert!(p.taken().all(|r| !r.overlaps(&qi) && !r.overlaps(&qc.unwrap())), "{qi:?} {qc:?}");
    assert_eq!(q.uploads(&t).map(|(r, b)| (r.halfwords(), b.len())).collect::<Vec<_>>(), [(2048, 4096), (256, 512)]);
}

#[test]
fn the_preview_paints_textured_triangles_with_the_texels_the_console_reads() {
    use psxanim::preview::camera::{SCREEN_HEIGHT, SCREEN_WIDTH};
    use psxanim::preview::shot::{self, packet_words, Shot};
    use psxanim::preview::vram::{texel_rgb, Vram};
    use psxanim_runtime::gte::ScreenXY;
    let dir = tempfile::tempdir().unwrap();
    let (blob, tim) = import("textured_embedded", "rigid-gte", dir.path());
    let tim = Tim::parse(&tim).unwrap();
    let t = Tables::parse(&blob).unwrap();
    let vram = Vram::of(&t).expect("one texture at its default place");
    // The preview's VRAM reads every texel of the TIM as the GPU would (4 or 8 bits through the CLUT).
    let triangle = t.primitives().find(|p| t.material_texture(p.material as usize).is_some()).unwrap();
    let mut drawn = psxanim_runtime::render::DrawnTriangle {
        index: 0,
        xy: [ScreenXY::from_word(0); 3],
        z: [0; 3],
        otz: 0,
        colour: [0; 3],
        texture: 1,
        uv: triangle.facing.map(|v| t.vertex_uv(v as usize)),
        rgb: None,
    };
    let words = packet_words(&drawn, &vram.placement).uv;
    let (clut, page) = ((words[0] >> 16) as u16, (words[1] >> 16) as u16);
    for (y, x) in (0..64).flat_map(|y| (0..64).map(move |x| (y, x))) {
        let want = psxanim::texture::tim::texel_colour(tim.depth, &tim.clut, &tim.image, tim.image_at.w as usize, x, y);
        assert_eq!(vram.texel(page, clut, x as u8, y as u8).unwrap_or(0), want, "texel ({x}, {y})");
    }
    // A triangle covering the screen with UVs spanning the texture shows many of its colours; the
    // same triangle untextured is one colour.
    drawn.xy = [ScreenXY::from_word(0), ScreenXY::from_word(319), ScreenXY::from_word(239 << 16)];
    drawn.uv = [0, 63, 63 << 8];
    let painted = shot::paint(&Shot { triangles: vec![drawn], joints: vec![] }, Some(&vram), SCREEN_WIDTH, SCREEN_HEIGHT, false);
    let colours: std::collections::HashSet<[u8; 3]> = painted.rgb.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    assert!(colours.len() > 20, "{} colours", colours.len());
    // Its top-left pixel is texel (0, 0).
    let first = vram.texel(page, clut, 0, 0).map(texel_rgb);
    assert_eq!(Some(painted.pixel(0, 0)), first);
}

#[test]
fn a_full_page_wide_texture_is_placed_and_read_back() {
    // An 8-bit texture of 256 texels a row is 128 halfwords: it reaches past its page's 64-unit
    // column, as the GPU reads it (CesiumMan's image, resized from 1024, made the blob's own check
    // refuse it). The fixture's character with such a texture in place of its own.
    use psxanim::compile::{compile_textured, textured::BlobTexture, CompileOptions, Textures};
    use psxanim::texture::tim::{Depth, Rect as TimRect};
    let c = psxanim::character::import(&fixture("textured_embedded.fbx"), &Default::default(), &mut |_, _, _| {}).unwrap();
    let skin = c.materials.iter().position(|m| m.texture.is_some()).unwrap();
    let tim = Tim {
        depth: Depth::Eight,
        clut_at: Some(TimRect { x: 0, y: 480, w: 256, h: 1 }),
        clut: (0..256).map(|i| 0x8000 | i as u16).collect(),
        image_at: TimRect { x: 320, y: 0, w: 128, h: 32 },
        image: (0..128 * 32).map(|i| i as u16).collect(),
    };
    let mut by_material = vec![None; c.materials.len()];
    by_material[skin] = Some(0);
    let textures = Textures { textures: vec![BlobTexture { tim, width: 256, height: 32, tiled: false }], by_material };
    let blob = compile_textured(&c, &CompileOptions::default(), &textures).unwrap().blob;
    let t = Tables::parse(&blob).unwrap();
    let x = t.texture(0).unwrap();
    assert_eq!((x.width, x.image_at.w), (256, 128));
    let p = Placement::default_of(&t, &[]).unwrap();
    assert_eq!(p.words(0).uv, 0, "at the page's corner: no UV offset");
    assert!(t.primitives().any(|p| t.material_texture(p.material as usize).is_some() && p.facing.iter().any(|&v| t.vertex_uv(v as usize) & 0xFF > 127)));
}
