//! Tiled UVs (issue 22): `textured_tiled.fbx`'s Shirt repeats a 32 x 32 checker 3 times across each
//! tube (drawn through the GPU's texture window), its Pants reach outside 0..1 of a 48 x 24 texture
//! (clamped, with a warning). The corners keep their offsets per triangle, the packets set and reset
//! the window, the preview samples through it, and misplaced tiled textures are refused.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use psxanim::preview::shot::{self, Shot};
use psxanim::preview::vram::{texel_rgb, window_texel, Vram};
use psxanim::texture::tim::{texel_colour, Tim};
use psxanim_runtime::anim::FrameSample;
use psxanim_runtime::console::ordering::DrawList;
use psxanim_runtime::console::prim::NO_TEXTURE_WINDOW;
use psxanim_runtime::gte::{Gte, GteModel, ScreenXY};
use psxanim_runtime::math::Vec3i32;
use psxanim_runtime::render::camera::placement;
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::{render, DrawnTriangle, Outcome, Scratch};
use psxanim_runtime::tables::textures::{Rect, TEXTURE_TILED};
use psxanim_runtime::tables::{TableError, Tables, TEXTURES_AT};
use psxanim_runtime::vram::{Place, Placement, PlacementError};

/// Texture indices of the fixture (its materials' order: Skin, Shirt, Pants, Shoes untextured).
const SHIRT: usize = 1;
const PANTS: usize = 2;
/// The Shirt's window at its default place, (320, 64) at 4 bits: u 0, v 64 of page 5. psx-spx "GPU
/// Texture Window": masks (256 - 32) / 8 = 28 each way, offsets 0 and 64 / 8 = 8.
const SHIRT_WINDOW: u32 = 0xE2 << 24 | 28 | 28 << 5 | 8 << 15;

mod import_support;
use import_support::{fixture, front_camera};

/// `psxanim import textured_tiled.fbx --storage rigid-gte --json`: the blob (4-aligned words, as the
/// console's embedded blob is), the report and the warnings.
fn import(dir: &Path) -> (Vec<u32>, usize, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["import", fixture("textured_tiled.fbx").to_str().unwrap(), "--storage", "rigid-gte", "--json", "-o", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let blob = std::fs::read(dir.join("textured_tiled.pxsk")).unwrap();
    let mut words = vec![0u32; blob.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..blob.len()].copy_from_slice(&blob);
    (words, blob.len(), serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn bytes(words: &[u32], len: usize) -> &[u8] {
    &bytemuck::cast_slice::<u32, u8>(words)[..len]
}

/// The blob's drawn triangles of texture `texture`, each as its corners' UV words.
fn triangles_of(t: &Tables, texture: usize) -> Vec<[u32; 3]> {
    t.primitives()
        .filter(|p| t.material_texture(p.material as usize) == Some(texture))
        .flat_map(|p| if p.quad { vec![p.facing, p.second] } else { vec![p.facing] })
        .map(|tri| tri.map(|v| t.vertex_uv(v as usize)))
        .collect()
}

#[test]
fn tiled_uvs_keep_each_triangle_s_offsets_and_a_texture_no_window_repeats_is_clamped() {
    let dir = tempfile::tempdir().unwrap();
    let (words, len, report, stderr) = import(dir.path());
    let textures = report["textures"].as_array().unwrap();
    let tiling: Vec<&str> = textures.iter().map(|t| t["tiling"].as_str().unwrap()).collect();
    assert_eq!(tiling, ["none", "texture window", "clamped"]);
    assert_eq!((textures[SHIRT]["width"].as_u64(), textures[SHIRT]["vram"]["y"].as_u64()), (Some(32), Some(64)));
    assert!(stderr.contains("material 'Pants'") && stderr.contains("48x24") && stderr.contains("clamped"), "{stderr}");
    assert!(!stderr.contains("'Shirt'"), "{stderr}");
    let t = Tables::parse(bytes(&words, len)).unwrap();
    let (shirt, pants) = (t.texture(SHIRT).unwrap(), t.texture(PANTS).unwrap());
    assert!(shirt.tiled && !pants.tiled && !t.texture(0).unwrap().tiled);

    // The Shirt's UVs are 3 x (the column's 0..1): 12 texels a ring step around (3/8 of 32), rings at
    // 3 x (0.125 + 0.25 r) of 32 texels down, 12, 36, 60 and 84. Each triangle moved by whole tiles to
    // start in the first: rings 0-1 stay at 12..36 (across the tile edge at 32), rings 1-2 are 4..28
    // and rings 2-3 28..52. Wrapped corner by corner they would all lie in 0..31.
    let shirt_triangles = triangles_of(&t, SHIRT);
    let v_spans: BTreeSet<(u32, u32)> = shirt_triangles
        .iter()
        .map(|w| w.map(|w| w >> 8))
        .filter(|v| v.iter().any(|&a| a != v[0]))
        .map(|v| (*v.iter().min().unwrap(), *v.iter().max().unwrap()))
        .collect();
    for span in [(12, 36), (4, 28), (28, 52)] {
        assert!(v_spans.contains(&span), "{span:?} not among {v_spans:?}");
    }
    // (A planar pair drawn along its other diagonal may start in a later tile: the window draws it alike.)
    assert!(shirt_triangles.iter().flatten().all(|w| (w & 0xFF) <= 96 && (w >> 8) <= 96), "within the 3 tiles the UVs span");
    // Every corner drawn is a corner of the file's triangles, moved with its triangle.
    let c = psxanim::character::import(&fixture("textured_tiled.fbx"), &Default::default(), &mut |_, _, _| {}).unwrap();
    let grid = psxanim::compile::seams::TexelGrid { width: 32, height: 32, tiled: true };
    let shirt_material = c.materials.iter().position(|m| m.name == "Shirt").unwrap();
    let from_file: BTreeSet<u32> = c
        .triangles
        .iter()
        .zip(&c.uvs)
        .filter(|(tri, _)| tri.material == shirt_material)
        .flat_map(|(_, uv)| psxanim::compile::seams::triangle_uv_words(uv.unwrap(), grid))
        .collect();
    let drawn: BTreeSet<u32> = shirt_triangles.iter().flatten().copied().collect();
    assert_eq!(drawn, from_file);

    // The Pants' UVs, -0.25..1.25, are clamped to the texture's edge texels.
    let pants_corners: BTreeSet<u32> = triangles_of(&t, PANTS).into_iter().flatten().collect();
    assert!(pants_corners.iter().all(|w| (w & 0xFF) < 48 && (w >> 8) < 24));
    assert!(pants_corners.iter().any(|w| w & 0xFF == 0) && pants_corners.iter().any(|w| w & 0xFF == 47));
}

/// Packets of one frame of the fixture through the console's ordering-table sink (`shading` Flat:
/// the surface loop's definition, `render::textured`; Gouraud: the per-triangle sink), each packet's
/// words.
fn packets(t: &Tables, textures: &Placement, shading: Shading) -> Vec<Vec<u32>> {
    let mut list = Box::new(DrawList::<1024, 16384>::new());
    list.clear();
    let mut sink = OtSink::new(list.frame(), shading);
    sink.place_textures(Some(textures));
    let camera = front_camera();
    let mut gte = Gte::with_backend(GteModel::default());
    camera.load(&mut gte);
    let mut scratch = Box::<Scratch<1024>>::new(Scratch::new());
    let sample = Some(FrameSample { clip: 0, frame: 3, next: 3, weight: 0 });
    let outcome = render(&mut gte, t, &camera, &placement(Vec3i32::ZERO, 0), sample, &mut scratch, &mut sink, &mut |_| {});
    assert!(matches!(outcome, Ok(Outcome::Drawn(_))), "{outcome:?}");
    let (mut at, arena, mut out) = (0, list.packets(), Vec::new());
    while let Some(&tag) = arena.get(at) {
        let len = (tag >> 24) as usize;
        out.push(arena[at + 1..at + 1 + len].to_vec());
        at += 1 + len;
    }
    out
}

#[test]
fn a_tiled_texture_s_packets_set_its_window_around_the_polygon_and_reset_it() {
    let dir = tempfile::tempdir().unwrap();
    let (words, len, _, _) = import(dir.path());
    let t = Tables::parse(bytes(&words, len)).unwrap();
    let placement = Placement::default_of(&t, &[]).unwrap();
    let shirt = placement.words(SHIRT);
    assert_eq!((shirt.window, shirt.uv), (SHIRT_WINDOW, 0), "the corner is the window's offset, not a UV add");
    assert_eq!(placement.words(PANTS).window, 0);
    let shirt_clut = shirt.clut_uv >> 16;
    for shading in [Shading::Flat, Shading::Gouraud { near_z: 1000, far_z: 30000 }] {
        let (mut windowed, mut plain) = (0, 0);
        for p in packets(&t, &placement, shading) {
            let command = p[0] >> 24;
            if command == 0xE2 {
                // E2(window), a textured polygon (FT3 7 words, FT4 9), E2 with no window: 2 words more.
                assert_eq!((p[0], *p.last().unwrap()), (SHIRT_WINDOW, NO_TEXTURE_WINDOW), "{p:x?}");
                let polygon = &p[1..p.len() - 1];
                assert!(matches!((polygon[0] >> 24, polygon.len()), (0x24, 7) | (0x2C, 9)), "{p:x?}");
                assert_eq!(polygon[2] >> 16, shirt_clut);
                // UVs as the blob stores them: each triangle's own texels, 0..=96.
                let uvs = polygon.chunks(2).skip(1).map(|c| c[0] & 0xFFFF);
                assert!(uvs.into_iter().all(|w| (w & 0xFF) <= 96 && (w >> 8) <= 96));
                windowed += 1;
            } else if command == 0x24 || command == 0x2C {
                assert!(matches!(p.len(), 7 | 9), "{p:x?}");
                assert_ne!(p[2] >> 16, shirt_clut, "{p:x?}: a Shirt polygon without its window");
                plain += 1;
            }
        }
        assert!(windowed > 20 && plain > 20, "{windowed} windowed, {plain} other textured packets");
    }
}

#[test]
fn the_preview_samples_a_tiled_texture_through_the_window() {
    // The window alone, by hand: (40, 100) on the Shirt's window keeps the low 5 bits and takes the
    // corner (0, 64): texel (8, 68). No window: unchanged.
    assert_eq!(window_texel(SHIRT_WINDOW, 40, 100), [8, 68]);
    assert_eq!(window_texel(0, 40, 100), [40, 100]);
    assert_eq!(window_texel(NO_TEXTURE_WINDOW, 200, 255), [200, 255]);

    let dir = tempfile::tempdir().unwrap();
    let (words, len, _, _) = import(dir.path());
    let t = Tables::parse(bytes(&words, len)).unwrap();
    let tim = Tim::parse(&std::fs::read(dir.path().join("textured_tiled.Shirt.tim")).unwrap()).unwrap();
    let vram = Vram::of(&t).unwrap();
    // A triangle 128 pixels wide and tall whose UVs run 0..128 (four tiles) along both edges: the
    // pixel (x, y) reads u = x, v = y, which the window folds to texel (x % 32, y % 32).
    let xy = |x: u32, y: u32| ScreenXY::from_word(x | y << 16);
    let drawn = DrawnTriangle {
        index: 0,
        xy: [xy(0, 0), xy(128, 0), xy(0, 128)],
        z: [0; 3],
        otz: 0,
        colour: [0; 3],
        texture: SHIRT as u8 + 1,
        uv: [0, 128, 128 << 8],
        rgb: None,
    };
    let painted = shot::paint(&Shot { triangles: vec![drawn], joints: vec![] }, Some(&vram), 160, 160, false);
    let texel = |x: usize, y: usize| texel_rgb(texel_colour(tim.depth, &tim.clut, &tim.image, tim.image_at.w as usize, x, y));
    for (x, y) in [(0, 0), (5, 3), (40, 9), (70, 40), (33, 90), (100, 2)] {
        assert_eq!(painted.pixel(x, y), texel(x % 32, y % 32), "pixel ({x}, {y})");
    }
    // The checker's 8-texel squares repeat every 32 pixels: pixels 8 and 40 differ from 0 and 32 alike.
    assert_ne!(painted.pixel(8, 0), painted.pixel(0, 0));
    assert_eq!((painted.pixel(32, 0), painted.pixel(40, 0)), (painted.pixel(0, 0), painted.pixel(8, 0)));
}

#[test]
fn misplaced_or_misshapen_tiled_textures_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (words, len, _, _) = import(dir.path());
    let blob = bytes(&words, len).to_vec();
    let entries = u32::from_le_bytes(blob[TEXTURES_AT..TEXTURES_AT + 4].try_into().unwrap()) as usize + 4;
    let entry = |i: usize| entries + i * psxanim_runtime::tables::textures::TEXTURE_ENTRY_SIZE;
    let damaged = |offset: usize, value: &[u8]| {
        let mut b = blob.clone();
        b[offset..offset + value.len()].copy_from_slice(value);
        Tables::parse(&b).err()
    };
    let at = |e: Option<TableError>| match e {
        Some(TableError::BadTexture { offset, .. }) => Some(offset),
        _ => None,
    };
    // The Pants' 48 x 24 texture marked tiled: no power of two, at its flags byte.
    assert_eq!(at(damaged(entry(PANTS) + 1, &[TEXTURE_TILED])), Some(entry(PANTS) + 1));
    // The Shirt's default place moved 8 rows down (72: no multiple of 32): at its place.
    assert_eq!(at(damaged(entry(SHIRT) + 10, &72u16.to_le_bytes())), Some(entry(SHIRT) + 8));

    // A game's own placement: the Shirt 8 rows down, or 2 halfwords (8 texels) right, is refused; 32
    // rows down is on the window's grid.
    let t = Tables::parse(&blob).unwrap();
    let default = Placement::default_of(&t, &[]).unwrap();
    let places = |shirt: (u16, u16)| -> Vec<Place> {
        (0..3)
            .map(|i| {
                let (image, clut) = default.rects(i).unwrap();
                let (x, y) = if i == SHIRT { shirt } else { (image.x, image.y) };
                Place { image_x: x, image_y: y, clut_x: clut.unwrap().x, clut_y: clut.unwrap().y }
            })
            .collect()
    };
    for (x, y) in [(320, 72), (322, 64)] {
        let e = Placement::new(&t, &places((x, y)), &[]).unwrap_err();
        assert_eq!(e, PlacementError::WindowMisaligned { texture: SHIRT, rect: Rect { x, y, w: 8, h: 32 } });
        assert_eq!(e.code(), 7);
    }
    let moved = Placement::new(&t, &places((328, 160)), &[]).unwrap();
    // (328, 160) at 4 bits: u 32, v 160 of the page, offsets 4 and 20.
    assert_eq!(moved.words(SHIRT).window, 0xE2 << 24 | 28 | 28 << 5 | 4 << 10 | 20 << 15);
    // A second copy of the character beside the first: first_fit puts the Shirt on the grid too.
    let q = Placement::first_fit(&t, &default.taken().collect::<Vec<_>>()).unwrap();
    let shirt = q.rects(SHIRT).unwrap().0;
    assert!(shirt.fits_window(t.texture(SHIRT).unwrap().depth, 32) && shirt != default.rects(SHIRT).unwrap().0, "{shirt:?}");
}
