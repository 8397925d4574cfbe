//! Time to render a 30-frame GIF of the fixture character (`cargo bench -p psxanim --bench preview`).
//!
//! Target (issue 7): under 2 s. Prints the median and minimum of several runs for the whole job as the
//! CLI does it (FBX import and compile, 30 frames through the render stages, rasterising, GIF
//! encoding) and for the drawing alone (tables already loaded), in both storage modes.

use std::path::Path;
use std::time::{Duration, Instant};

use psxanim::compile::StorageMode;
use psxanim::preview::camera::Orbit;
use psxanim::preview::subject::Subject;
use psxanim::preview::FrameOptions;

const RUNS: usize = 5;
const FRAMES: usize = 30;

fn gif(subject: &Subject, storage: StorageMode) -> usize {
    let clip = subject.clip_index("Walk").expect("fixture has Walk");
    let options = FrameOptions { storage, orbit: Orbit::default(), bones: true, compare: false, light: false, fog: false };
    psxanim::preview::gif(subject, clip, 0..FRAMES, &options).expect("GIF renders").len()
}

fn report(what: &str, mut times: Vec<Duration>, bytes: usize) {
    times.sort();
    println!(
        "{what}: median {:.1} ms, min {:.1} ms ({RUNS} runs), GIF {bytes} bytes",
        times[RUNS / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3
    );
}

fn main() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/character.fbx");
    for storage in [StorageMode::RigidGte, StorageMode::BakedVertices] {
        let (mut whole, mut drawing) = (Vec::new(), Vec::new());
        let mut bytes = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let subject = Subject::load(&fixture, None, &[storage]).expect("fixture loads");
            let loaded = Instant::now();
            bytes = gif(&subject, storage);
            let end = Instant::now();
            whole.push(end - start);
            drawing.push(end - loaded);
        }
        report(&format!("{storage:?} {FRAMES}-frame GIF, FBX to file"), whole, bytes);
        report(&format!("{storage:?} {FRAMES}-frame GIF, drawing and encoding only"), drawing, bytes);
    }
}
