//! The psx-game example, a psx-sdk-rs game: the record its `play.rs` must leave, computed by the same
//! file on the runtime's GTE model with the same ordering-table sink, and its stage cycle figures.
use super::{Expectation, Word};
use crate::report::Check;
use anyhow::{ensure, Context, Result};
use psxanim_runtime::console::ordering::DrawList;
use psxanim_runtime::gte::{Gte, GteModel};
use psxanim_runtime::record::RecordView;
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
fn blobs(ws: &Path) -> Result<[Vec<u8>; 3]> {
    let read = |path: std::path::PathBuf| {
        std::fs::read(&path).with_context(|| format!("{} is missing: run `cargo xtask build-exe --example psx-game` first", path.display()))
    };
    Ok([read(super::character::gltf_path(ws))?, read(super::character::dense_path(ws))?, read(super::character::textured_path(ws))?])
}

/// The game's state at `play::MEASURED_FRAME` and its outcomes that frame, as the console computes them.
struct HostFrame {
    /// The textures' words in VRAM (`play::vram_words`).
    vram: [u32; play::VRAM_FIELDS.len()],
    probe: [u32; play::PROBE_WORDS],
    frame: [u32; play::FRAME_FIELDS.len()],
    /// Per actor: its character's vertex and triangle counts.
    vertices: [usize; play::ACTORS.len()],
    triangles: [usize; play::ACTORS.len()],
}

fn host_frame(blobs: &[Vec<u8>; 3]) -> Result<HostFrame> {
    let parse = |i: usize| Tables::parse(&blobs[i]).map_err(|e| anyhow::anyhow!("{} tables: {e:?}", play::CHARACTERS[i]));
    let tables = [parse(0)?, parse(1)?, parse(2)?];
    let mut game = play::Game::new(tables).map_err(|e| anyhow::anyhow!("the game's clips: {e:?}"))?;
    for _ in 0..play::MEASURED_FRAME {
        game.update(1);
    }
    let mut list = Box::new(DrawList::<{ play::OT_DEPTHS }, { play::PACKET_WORDS }>::new());
    list.clear();
    let mut sink = OtSink::new(list.frame(), Shading::Flat);
    let mut scratch = Box::<Scratch<{ psxanim_runtime::tables::primitives::MAX_STREAM_VERTICES }>>::new(Scratch::new());
    let mut probe = [0u32; play::PROBE_WORDS];
    let outcomes = game.draw(&mut Gte::with_backend(GteModel::default()), &mut scratch, &mut sink, &mut |_, _| {}, Some(&mut probe));
    for (o, a) in outcomes.iter().zip(&play::ACTORS) {
        ensure!(matches!(o, Ok(Outcome::Drawn(_))), "the host does not draw {} at frame {}: {o:?}", a.clip, play::MEASURED_FRAME);
    }
    let uploads = game.placements.iter().zip(&tables).flat_map(|(p, t)| p.iter().flat_map(move |p| p.uploads(t)));
    let vram = play::vram_words(uploads.flat_map(|(rect, bytes)| play::upload_words(rect, bytes)));
    ensure!(vram[0] > 0, "the textured character uploads no texture: the VRAM check proves nothing");
    Ok(HostFrame {
        vram,
        probe,
        frame: play::frame_words(list.packets()),
        vertices: play::ACTORS.map(|a| tables[a.character].vertex_count()),
        triangles: play::ACTORS.map(|a| tables[a.character].triangle_count()),
    })
}

/// The record the game must leave: each actor's words at the measured frame, then the damaged blob's
/// error code and offset.
pub fn expectation(ws: &Path) -> Result<Expectation> {
    let blobs = blobs(ws)?;
    let host = host_frame(&blobs)?;
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
    pub draw_cycles: f64,
    pub cycles_per_vertex: f64,
    pub cycles_per_triangle_considered: f64,
    pub cycles_per_drawn_triangle: f64,
}

fn cycles(blobs: &[Vec<u8>; 3], view: &RecordView) -> Result<GameCycles> {
    let host = host_frame(blobs)?;
    let cyc = |slot: usize| view.cycles(slot) as f64 * CYCLES_PER_TICK;
    let actors: Vec<[f64; play::STAGES]> =
        (0..play::ACTORS.len()).map(|a| std::array::from_fn(|s| cyc(play::STAGES * a + s))).collect();
    ensure!(actors.iter().all(|a| a[2] > 0.0 && a[3] > 0.0), "the record holds no stage cycles of frame {}", play::MEASURED_FRAME);
    let drawn: u32 = (0..play::ACTORS.len()).map(|a| host.probe[a * play::WORDS_PER_ACTOR]).sum();
    let projection: f64 = actors.iter().map(|a| a[2]).sum();
    let triangles: f64 = actors.iter().map(|a| a[3]).sum();
    let (vertices, considered): (usize, usize) = (host.vertices.iter().sum(), host.triangles.iter().sum());
    Ok(GameCycles {
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
            "{:.1} cyc/vertex projected, {:.1} cyc/triangle considered, {:.1} per drawn triangle; whole draw {:.0} cyc; {}",
            figures.cycles_per_vertex,
            figures.cycles_per_triangle_considered,
            figures.cycles_per_drawn_triangle,
            figures.draw_cycles,
            path.display()
        ))
    })();
    match result {
        Ok(detail) => vec![Check::new("psx_game.cycles", true, detail)],
        Err(e) => vec![Check::new("psx_game.cycles", false, format!("{e:#}"))],
    }
}
