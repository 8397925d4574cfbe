//! Import + compile time of the fixture character (`cargo bench -p psxanim --bench import`).
//!
//! Target (issue 5): under 1 s per import and compile. Prints the median and minimum of several runs
//! for each storage mode, and the size figures of the closing note.

use std::path::Path;
use std::time::{Duration, Instant};

use psxanim::compile::{compile, CompileOptions, StorageMode};
use psxanim::fbx::{import, ImportOptions};

const RUNS: usize = 7;

fn main() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/character.fbx");
    let mut import_only: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            import(&fixture, &ImportOptions::default(), &mut |_, _, _| {}).expect("fixture imports");
            start.elapsed()
        })
        .collect();
    import_only.sort();
    println!("import only (load, validate, sample 152 frames with ufbx skinning): median {:.1} ms", import_only[RUNS / 2].as_secs_f64() * 1e3);
    for storage in [StorageMode::RigidGte, StorageMode::BakedVertices] {
        let mut times: Vec<Duration> = Vec::new();
        let mut last = None;
        for _ in 0..RUNS {
            let start = Instant::now();
            let character = import(&fixture, &ImportOptions::default(), &mut |_, _, _| {}).expect("fixture imports");
            let compiled = compile(&character, &CompileOptions { storage, max_error: None, pose_tolerance: None, ..Default::default() }).expect("fixture compiles");
            times.push(start.elapsed());
            last = Some(compiled.report);
        }
        times.sort();
        let r = last.expect("at least one run");
        println!(
            "{storage:?}: import+compile median {:.1} ms, min {:.1} ms ({RUNS} runs); blob {} bytes, animation {} bytes, \
             {} B/bone-s, {} B/frame, format error {:.3}, vs ufbx max {:.3} mean {:.3} GTE units",
            times[RUNS / 2].as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            r.blob_bytes,
            r.animation_bytes,
            r.bytes_per_bone_second.map_or("-".into(), |v| format!("{v:.1}")),
            r.bytes_per_frame.map_or("-".into(), |v| format!("{v:.1}")),
            r.max_format_error,
            r.accuracy.versus_rigid.max,
            r.accuracy.versus_rigid.mean,
        );
    }
}
