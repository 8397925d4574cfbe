//! The psx-game example, a psx-sdk-rs game: the record its `play.rs` must leave, computed by the same
//! file on the runtime's GTE model with the same ordering-table sink, and its stage cycle figures.
use super::textured_cycles::{TexturedFigures, TexturedStages};
use super::{Expectation, Word};
use crate::report::Check;
use anyhow::{ensure, Context, Result};
use psxanim_runtime::console::ordering::DrawList;
use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::record::{digest, RecordView};
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::{Outcome, Scratch};
use psxanim_runtime::tables::Tables;
use serde::Serialize;
use std::path::Path;

#[path = "../../../examples/psx-game/src/play.rs"]
#[allow(dead_code)]
mod play;

/// CPU cycles per root counter 2 tick.
const CYCLES_PER_TICK: f64 = 8.0;

/// The game's characters' blobs, in `play::CHARACTERS` order.
type Blobs = [Vec<u8>; play::CHARACTERS.len()];

fn blobs(ws: &Path) -> Result<Blobs> {
    let read = |path: std::path::PathBuf| {
        std::fs::read(&path).with_context(|| format!("{} is missing: run `cargo xtask build-exe --example psx-game` first", path.display()))
    };
    use super::character::{atlas_path, dense_path, gltf_path, textured_path, tiled_path};
    Ok([read(gltf_path(ws))?, read(dense_path(ws))?, read(textured_path(ws))?, read(atlas_path(ws))?, read(tiled_path(ws))?])
}

/// The game's state at `play::MEASURED_FRAME` and its outcomes that frame, as the console computes them.
struct HostFrame {
    /// The textures' words in VRAM (`play::VRAM_FIELDS`).
    vram: [u32; play::VRAM_FIELDS.len()],
    probe: [u32; play::PROBE_WORDS],
    frame: [u32; play::FRAME_FIELDS.len()],
    /// Per actor: its character's vertex and triangle counts.
    vertices: [usize; play::ACTORS.len()],
    triangles: [usize; play::ACTORS.len()],
}

fn host_frame(blobs: &Blobs, model: GteModel) -> Result<HostFrame> {
    let tables = blobs_tables(blobs)?;
    let mut game = play::Game::new(tables).map_err(|e| anyhow::anyhow!("the game's clips: {e:?}"))?;
    for _ in 0..play::MEASURED_FRAME {
        game.update(1);
    }
    let mut list = Box::new(DrawList::<{ play::OT_DEPTHS }, { play::PACKET_WORDS }>::new());
    list.clear();
    let mut sink = OtSink::new(list.frame(), Shading::Flat);
    let mut scratch = Box::<Scratch<{ psxanim_runtime::tables::primitives::MAX_STREAM_VERTICES }>>::new(Scratch::new());
    let mut probe = [0u32; play::PROBE_WORDS];
    let outcomes = game.draw(&mut Gte::with_backend(model), &mut scratch, &mut sink, &mut |_, _| {}, Some(&mut probe));
    for (o, a) in outcomes.iter().zip(&play::ACTORS) {
        ensure!(matches!(o, Ok(Outcome::Drawn(_))), "the host does not draw {} at frame {}: {o:?}", a.clip, play::MEASURED_FRAME);
    }
    let uploads = game.placements.iter().zip(&tables).flat_map(|(p, t)| p.iter().flat_map(move |p| p.uploads(t)));
    let mut hash = digest::WordHash::new();
    uploads.flat_map(|(rect, bytes)| digest::upload_words(rect, bytes)).for_each(|w| hash.add(w));
    let vram = hash.words();
    ensure!(vram[0] > 0, "the textured character uploads no texture: the VRAM check proves nothing");
    let windowed = windowed_packets(list.packets());
    ensure!(windowed > 0, "no packet sets a texture window at frame {}: the tiled character's check proves nothing", play::MEASURED_FRAME);
    Ok(HostFrame {
        vram,
        probe,
        frame: digest::packet_words(list.packets()),
        vertices: play::ACTORS.map(|a| tables[a.character].vertex_count()),
        triangles: play::ACTORS.map(|a| tables[a.character].triangle_count()),
    })
}

/// Packets of `arena` that set a texture window (GP0 E2h first: a tiled texture's polygon follows).
fn windowed_packets(arena: &[u32]) -> usize {
    psxanim_runtime::record::digest::packets(arena).filter(|p| p.first().is_some_and(|w| w >> 24 == 0xE2 && w & 0x000F_FFFF != 0)).count()
}

/// The record the game must leave: each actor's words at the measured frame, then the damaged blob's
/// error code and offset.
pub fn expectation(ws: &Path) -> Result<Expectation> {
    expectation_on(ws, GteModel::default())
}

/// [`expectation`] computed on `model`.
fn expectation_on(ws: &Path, model: GteModel) -> Result<Expectation> {
    let blobs = blobs(ws)?;
    let host = host_frame(&blobs, model)?;
    let mut words: Vec<Word> = host
        .probe
        .iter()
        .enumerate()
        .map(|(i, &value)| {
            let a = &play::ACTORS[i / play::WORDS_PER_ACTOR];
            let name = format!("{}.{}.{}", play::CHARACTERS[a.character], a.clip, play::ACTOR_FIELDS[i % play::WORDS_PER_ACTOR]);
            Word { name, value }
        })
        .collect();
    for (name, &value) in play::FRAME_FIELDS.iter().zip(&host.frame) {
        words.push(Word { name: format!("frame.{name}"), value });
    }
    let mut damaged = blobs[0].clone();
    play::corrupt(&mut damaged);
    let [code, offset] = play::corruption_words(&damaged);
    ensure!(code != 0, "the damaged blob copy parses: the corruption proves nothing");
    words.push(Word { name: "damaged_blob.error_code".into(), value: code });
    words.push(Word { name: "damaged_blob.error_offset".into(), value: offset });
    for (name, &value) in play::VRAM_FIELDS.iter().zip(&host.vram) {
        words.push(Word { name: format!("textures.{name}"), value });
    }
    Ok(Expectation { program: play::PROGRAM, words })
}

/// The game's drawing costs at the measured frame, from its record (root counter 2 ticks).
#[derive(Debug, Serialize)]
pub struct GameCycles {
    pub measured_frame: u32,
    /// Per actor: decode, bone matrices, projection and triangle stages, in CPU cycles.
    pub actors: Vec<[f64; play::STAGES]>,
    /// The measured frame's whole draw, summed span by span on the console (it outlasts the root
    /// counter's 16-bit wrap), the record's hashing of each actor's projected vertices included.
    pub draw_cycles: f64,
    pub cycles_per_vertex: f64,
    pub cycles_per_triangle_considered: f64,
    pub cycles_per_drawn_triangle: f64,
    /// The textured, lit actor (`TEXTURED_CHARACTER`, every triangle textured: POLY_GT3 / GT4).
    #[serde(flatten)]
    pub textured: TexturedFigures,
    /// The fogged actor's projection stage per vertex (the mixed character again, lit with fog:
    /// NCDT instead of NCT).
    pub fogged_lit_cycles_per_vertex: f64,
    /// The lit actor of `MIXED_CHARACTER` (one textured material, three untextured: POLY_GT4 and
    /// POLY_G4, whose colours the GTE's CC makes per point): the same figures.
    pub mixed_lit_cycles_per_vertex: f64,
    pub mixed_lit_cycles_per_triangle_considered: f64,
    pub mixed_lit_cycles_per_drawn_triangle: f64,
}

/// The textured, lit character of `play::CHARACTERS` whose actor gives the textured figures.
const TEXTURED_CHARACTER: &str = "textured_atlas";
/// The lit character with textured and untextured materials.
const MIXED_CHARACTER: &str = "textured_embedded";
/// The character whose actor checks the texture window on the console (tiled UVs): left out of the
/// whole-game figures (its tiled material's packets are written by the Rust definition), which stay
/// those of the other actors.
const TILING_CHARACTER: &str = "textured_tiled";

fn cycles(blobs: &Blobs, view: &RecordView) -> Result<GameCycles> {
    let host = host_frame(blobs, GteModel::default())?;
    let cyc = |slot: usize| view.cycles(slot) as f64 * CYCLES_PER_TICK;
    let actors: Vec<[f64; play::STAGES]> =
        (0..play::ACTORS.len()).map(|a| std::array::from_fn(|s| cyc(play::STAGES * a + s))).collect();
    ensure!(actors.iter().all(|a| a[2] > 0.0 && a[3] > 0.0), "the record holds no stage cycles of frame {}", play::MEASURED_FRAME);
    // The whole-game figures: every actor but the texture window's check.
    let measured: Vec<usize> = (0..play::ACTORS.len()).filter(|&a| play::CHARACTERS[play::ACTORS[a].character] != TILING_CHARACTER).collect();
    let drawn: u32 = measured.iter().map(|&a| host.probe[a * play::WORDS_PER_ACTOR]).sum();
    let projection: f64 = measured.iter().map(|&a| actors[a][2]).sum();
    let triangles: f64 = measured.iter().map(|&a| actors[a][3]).sum();
    let (vertices, considered): (usize, usize) = (measured.iter().map(|&a| host.vertices[a]).sum(), measured.iter().map(|&a| host.triangles[a]).sum());
    // An actor's stages and counts (the first actor of the character that is not fogged).
    let stages = |character: &str| -> Result<TexturedStages> {
        let t = play::ACTORS
            .iter()
            .position(|a| play::CHARACTERS[a.character] == character && !a.fogged)
            .with_context(|| format!("no actor plays {character} without fog"))?;
        Ok(TexturedStages {
            pose: actors[t][0] + actors[t][1],
            projection: actors[t][2],
            triangles: actors[t][3],
            vertices: host.vertices[t],
            triangles_considered: host.triangles[t],
            triangles_drawn: host.probe[t * play::WORDS_PER_ACTOR],
        })
    };
    let textured = TexturedFigures::of(&stages(TEXTURED_CHARACTER)?);
    let mixed = TexturedFigures::of(&stages(MIXED_CHARACTER)?);
    let f = play::ACTORS.iter().position(|a| a.fogged).context("no actor is fogged")?;
    Ok(GameCycles {
        fogged_lit_cycles_per_vertex: actors[f][2] / host.vertices[f] as f64,
        mixed_lit_cycles_per_vertex: mixed.textured_lit_cycles_per_vertex,
        mixed_lit_cycles_per_triangle_considered: mixed.textured_cycles_per_triangle_considered,
        mixed_lit_cycles_per_drawn_triangle: mixed.textured_gouraud_cycles_per_drawn_triangle,
        textured,
        measured_frame: play::MEASURED_FRAME,
        draw_cycles: cyc(play::SLOT_DRAW),
        cycles_per_vertex: projection / vertices as f64,
        cycles_per_triangle_considered: triangles / considered as f64,
        cycles_per_drawn_triangle: triangles / drawn.max(1) as f64,
        actors,
    })
}

/// The cycle figures as a check, written to `artifacts/cycles-psx-game-EMULATOR.json`.
pub fn cycle_checks(ws: &Path, emulator: &str, view: Option<&RecordView>, artifacts: &Path) -> Vec<Check> {
    let result = (|| -> Result<String> {
        let view = view.context("no record")?;
        let figures = cycles(&blobs(ws)?, view)?;
        let path = artifacts.join(format!("cycles-psx-game-{emulator}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&figures)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        Ok(format!(
            "{:.1} cyc/vertex projected, {:.1} cyc/triangle considered, {:.1} per drawn triangle; textured lit: {:.1} cyc/vertex ({:.1} fogged), {:.1} per drawn triangle, four characters {:.1}% of a 30 fps frame; whole draw {:.0} cyc; {}",
            figures.cycles_per_vertex,
            figures.cycles_per_triangle_considered,
            figures.cycles_per_drawn_triangle,
            figures.textured.textured_lit_cycles_per_vertex,
            figures.fogged_lit_cycles_per_vertex,
            figures.textured.textured_gouraud_cycles_per_drawn_triangle,
            figures.textured.four_textured_lit_characters_percent_of_30fps_frame,
            figures.draw_cycles,
            path.display()
        ))
    })();
    match result {
        Ok(detail) => vec![Check::new("psx_game.cycles", true, detail)],
        Err(e) => vec![Check::new("psx_game.cycles", false, format!("{e:#}"))],
    }
}

/// pcsx_rearmed's documented GTE deviation (NCDS/NCDT's depth-cue step rounded one off: see
/// `GteModel::pcsx_rearmed` and /work/shared/notes/emulators.md) in the fogged actor's colours:
/// on pcsx-rearmed each record word that differs from the hardware's (the host's) passes as a known
/// deviation when it is exactly what the host computes with that rounding, and says so; any other
/// value still fails. Elsewhere nothing changes. One check counts the words so explained.
pub fn known_deviations(ws: &Path, emulator: &str, view: Option<&RecordView>, checks: &mut [Check]) -> Vec<Check> {
    if emulator != "pcsx-rearmed" {
        return Vec::new();
    }
    let (Some(view), Ok(hardware), Ok(rearmed)) = (view, expectation(ws), expectation_on(ws, GteModel::pcsx_rearmed())) else {
        return vec![Check::new("psx_game.known_deviations", false, "no record or no host expectation")];
    };
    let mut explained = Vec::new();
    for (i, (hw, re)) in hardware.words.iter().zip(&rearmed.words).enumerate() {
        let found = view.result(i);
        let name = format!("result.{}", hw.name);
        if hw.value == re.value || found != re.value || found == hw.value {
            continue;
        }
        if let Some(check) = checks.iter_mut().find(|c| c.name == name && !c.passed) {
            check.passed = true;
            check.detail = format!(
                "known pcsx_rearmed deviation (NCDT's depth-cue step rounded one off): the hardware's {:#010x}, found {found:#010x}, which the host model gives with pcsx_rearmed's rounding",
                hw.value
            );
            explained.push(hw.name.clone());
        }
    }
    vec![Check::new(
        "psx_game.known_deviations",
        true,
        format!("{} word(s) explained by pcsx_rearmed's depth-cue rounding: {}", explained.len(), explained.join(", ")),
    )]
}

/// The background psx's `Framebuffer` clears each frame to (`examples/psx-game/src/main.rs`).
const BACKGROUND: [u8; 3] = [16, 24, 64];
/// Share of the characters' pixels the console's picture and the host's must agree on (issue 22): on
/// mednafen, whose GPU draws by the hardware's rules. pcsx_rearmed's WebAssembly core draws with its
/// own rasteriser (edges, texel steps and Gouraud dithering differ: 95-97% of the pixels agree unlit,
/// 86-91% with the lit characters), so there the floor only catches a wrong picture. PCSX-Redux's
/// software GPU, with dithering off (psx's `DrawEnv`), takes a fast span path that modulates each
/// pair of neighbouring pixels by the first one's colour (its own source calls it an approximation):
/// steep light gradients on lit, textured faces then differ by more than a step (97.3-97.6%).
pub const PICTURE_AGREEMENT: f64 = 0.98;
pub const PICTURE_AGREEMENT_PCSX_REARMED: f64 = 0.85;
pub const PICTURE_AGREEMENT_PCSX_REDUX: f64 = 0.96;

/// Collects the frame's triangles with the packet words the game's sink writes for them (each
/// character's textures where the game placed them), numbered in emission order.
struct Painted {
    placement: Option<psxanim_runtime::vram::Placement>,
    triangles: Vec<(u32, psxanim_runtime::render::DrawnTriangle, psxanim::preview::shot::Fill)>,
}

impl psxanim_runtime::render::TriangleSink for Painted {
    fn add(&mut self, t: &psxanim_runtime::render::DrawnTriangle) -> bool {
        use psxanim::preview::shot::{packet_words, Fill};
        let words = self.placement.as_ref().filter(|_| t.texture != 0).map(|p| packet_words(t, p));
        let fill = Fill::of(t, words);
        self.triangles.push((self.triangles.len() as u32, *t, fill));
        true
    }
    fn place_textures(&mut self, placement: Option<&psxanim_runtime::vram::Placement>) {
        self.placement = placement.copied();
    }
}

/// The host's pictures of game frames 0..=`last`, each handed to `each` with its frame number: the
/// triangles in the order the ordering table draws them, painted by the preview's rasteriser from the
/// same VRAM the game uploads.
fn host_pictures(blobs: &Blobs, last: u32, each: &mut dyn FnMut(u32, &psxanim::preview::raster::Canvas)) -> Result<()> {
    use psxanim::preview::{raster::Canvas, shot, vram::Vram};
    let tables = blobs_tables(blobs)?;
    let mut game = play::Game::new(tables).map_err(|e| anyhow::anyhow!("the game's set-up: {e:?}"))?;
    let mut vram: Option<Vram> = None;
    for (p, t) in game.placements.iter().zip(&tables) {
        if let Some(p) = p {
            vram.get_or_insert_with(|| Vram::empty(*p)).upload_all(t, p);
        }
    }
    let mut scratch = Box::<Scratch<{ psxanim_runtime::tables::primitives::MAX_STREAM_VERTICES }>>::new(Scratch::new());
    for frame in 0..=last {
        let mut sink = Painted { placement: None, triangles: Vec::new() };
        let outcomes = game.draw(&mut Gte::with_backend(GteModel::default()), &mut scratch, &mut sink, &mut |_, _| {}, None);
        if let Some(e) = outcomes.iter().find_map(|o| o.err()) {
            anyhow::bail!("the host cannot draw game frame {frame}: {e:?}");
        }
        let mut list: Vec<(u32, (psxanim_runtime::render::DrawnTriangle, shot::Fill))> =
            sink.triangles.into_iter().map(|(i, t, f)| (i, (t, f))).collect();
        // The ordering table: the deepest entry the sink uses is its table's last but one.
        psxanim_runtime::render::triangles::sort_draw_order(&mut list, |(t, _)| t.otz.min(play::OT_DEPTHS as u16 - 2));
        let mut canvas = Canvas::new(play::SCREEN.0 as usize, play::SCREEN.1 as usize, psxanim::preview::raster::vram_colour(BACKGROUND));
        for (_, (t, fill)) in &list {
            shot::paint_triangle(&mut canvas, t, *fill, vram.as_ref());
        }
        each(frame, &canvas);
        game.update(1);
    }
    Ok(())
}

fn blobs_tables(blobs: &Blobs) -> Result<[Tables<'_>; play::CHARACTERS.len()]> {
    let parse = |i: usize| Tables::parse(&blobs[i]).map_err(|e| anyhow::anyhow!("{} tables: {e:?}", play::CHARACTERS[i]));
    Ok([parse(0)?, parse(1)?, parse(2)?, parse(3)?, parse(4)?])
}

/// Of the pixels either picture gives a character (not the background), the share whose colours
/// agree within one step of 5-bit colour in every channel, with the console's picture moved by up to
/// two pixels each way (an emulator's screenshot crops the display where its horizontal range puts
/// it: mednafen's is one pixel to the right, its first column black); the best shift counts.
fn agreement(console: &[u8], host: &[u8]) -> (f64, usize) {
    let (w, h) = (play::SCREEN.0 as i32, play::SCREEN.1 as i32);
    let five = |c: u8| c as i32 >> 3;
    let near = |a: &[u8], b: &[u8]| a.iter().zip(b).all(|(x, y)| (five(*x) - five(*y)).abs() <= 1);
    let bg = psxanim::preview::raster::vram_colour(BACKGROUND);
    let px = |img: &[u8], x: i32, y: i32| -> [u8; 3] {
        let o = 3 * (y * w + x) as usize;
        [img[o], img[o + 1], img[o + 2]]
    };
    let mut best = (0.0, 0usize);
    for (dx, dy) in (-2..=2).flat_map(|dx| (-2..=2).map(move |dy| (dx, dy))) {
        let (mut counted, mut agreed) = (0usize, 0usize);
        for y in 2..h - 2 {
            for x in 2..w - 2 {
                let (c, hp) = (px(console, x + dx, y + dy), px(host, x, y));
                if near(&c, &bg) && near(&hp, &bg) {
                    continue;
                }
                counted += 1;
                agreed += near(&c, &hp) as usize;
            }
        }
        let share = if counted == 0 { 0.0 } else { agreed as f64 / counted as f64 };
        if share > best.0 {
            best = (share, counted);
        }
    }
    best
}

/// Each screenshot against the host's picture of the game frame it shows (the one that agrees best
/// among the frames the game can have drawn by then): at least [`PICTURE_AGREEMENT`] of the
/// characters' pixels, textured and flat, within one step of 5-bit colour.
pub fn picture_checks(ws: &Path, emulator: &str, shots: &[psxanim_emulator::Screenshot], artifacts: &Path) -> Vec<Check> {
    let result = (|| -> Result<Vec<(f64, usize, u32)>> {
        let blobs = blobs(ws)?;
        let last = shots.iter().map(|s| s.frame).max().unwrap_or(0);
        let mut best = vec![(0.0, 0usize, 0u32); shots.len()];
        host_pictures(&blobs, last, &mut |frame, host| {
            for (shot, best) in shots.iter().zip(&mut best) {
                if frame <= shot.frame && host.rgb.len() == shot.rgb.len() {
                    let (share, pixels) = agreement(&shot.rgb, &host.rgb);
                    if share > best.0 {
                        *best = (share, pixels, frame);
                        // The host's picture beside the emulator's screenshot, for a person to compare.
                        let path = artifacts.join(format!("psx-game-{emulator}-frame{:04}-host.png", shot.frame));
                        if let Ok(png) = psxanim::preview::picture::encode_png(host) {
                            let _ = std::fs::write(path, png);
                        }
                    }
                }
            }
        })?;
        Ok(best)
    })();
    match result {
        Err(e) => vec![Check::new("picture.host", false, format!("{e:#}"))],
        Ok(best) => shots
            .iter()
            .zip(best)
            .map(|(shot, (share, pixels, frame))| {
                let floor = match emulator {
                    "pcsx-rearmed" => PICTURE_AGREEMENT_PCSX_REARMED,
                    "pcsx-redux" => PICTURE_AGREEMENT_PCSX_REDUX,
                    _ => PICTURE_AGREEMENT,
                };
                Check::new(
                    format!("picture.frame{}", shot.frame),
                    share >= floor,
                    format!("{emulator}: {:.2}% of {pixels} character pixels agree with the host's picture of game frame {frame}", 100.0 * share),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxanim_runtime::math::{Matrix, Vec3i32};
    use psxanim_runtime::render::{camera, light, project};

    /// The lit projection in one pass (`light::project_light_rigid`, RTPT and NCT per triple: on the
    /// console one asm loop) gives the SXY, SZ and colours of its definition, the projection stage
    /// then the light stage (RTPT, then NCS per vertex), on the textured character with a matrix per
    /// bone that differs from the others.
    #[test]
    fn the_lit_projection_in_one_pass_matches_the_two_stages() {
        let Ok(blobs) = blobs(&crate::workspace_root()) else {
            eprintln!("SKIPPED: no generated character tables; run `cargo xtask build-exe --example psx-game`");
            return;
        };
        let t = play::CHARACTERS.iter().position(|&c| c == TEXTURED_CHARACTER).unwrap();
        let tables = Tables::parse(&blobs[t]).unwrap();
        assert!(tables.has_normals());
        let camera = play::camera();
        let matrices: Vec<Matrix> = (0..tables.bone_count())
            .map(|b| {
                let world = camera::placement(Vec3i32::new(300 * b as i32 - 1500, 100, 40 * b as i32), (0x1700 * b) as u16);
                camera.view.mul(&world)
            })
            .collect();
        let n = tables.vertex_count();
        let run = |lighting: &light::Lighting, fused: bool| {
            let mut gte = Gte::with_backend(GteModel::default());
            camera.load(&mut gte);
            let (mut sxy, mut sz, mut rgb) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
            if fused {
                assert!(light::project_light_rigid(&mut gte, &tables, lighting, &camera.view, &matrices, &mut sxy, &mut sz, &mut rgb));
                light::light_blended(&mut gte, &tables, lighting, &camera.view, &matrices, &mut rgb);
            } else {
                project::project_rigid(&mut gte, &tables, &matrices, &mut sxy, &mut sz, None);
                light::light_rigid(&mut gte, &tables, lighting, &camera.view, &matrices, &mut rgb);
            }
            (sxy, sz, rgb)
        };
        // The game's lights, its fog, and a fog whose range spans these bones' depths.
        let spanning = light::Fog::new([200, 40, 90], 14_000, 26_000, play::PROJECTION).unwrap();
        for lighting in [play::LIGHTING, play::FOGGED_LIGHTING, play::LIGHTING.with_fog(spanning)] {
            let (one, two) = (run(&lighting, true), run(&lighting, false));
            assert!(two.2.iter().any(|&c| c != two.2[0]), "the colours vary");
            assert_eq!(one, two, "{lighting:?}");
        }
        // The spanning fog changes most colours.
        let (plain, fogged) = (run(&play::LIGHTING, true).2, run(&play::LIGHTING.with_fog(spanning), true).2);
        let changed = plain.iter().zip(&fogged).filter(|(a, b)| a != b).count();
        assert!(changed > n / 2, "{changed} of {n} colours fogged");
    }
}
