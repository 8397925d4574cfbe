//! `Camera::frame` on the fixture character as `psxanim import` compiles it: every vertex of every frame
//! of every clip, posed by the runtime's own decoders and projected by the GTE model, lands on screen.

use psxanim::cli::inspect_tables::positions;
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::Vec3i16;
use psxanim_runtime::render::Camera;
use psxanim_runtime::tables::Tables;
use std::path::Path;
use std::process::Command;

#[test]
fn the_framed_fixture_is_on_screen_in_every_frame_of_every_clip() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/character.fbx");
    for storage in ["rigid-gte", "baked-vertices"] {
        let out = dir.path().join(storage);
        let status = Command::new(env!("CARGO_BIN_EXE_psxanim"))
            .args(["import", model.to_str().unwrap(), "--storage", storage, "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        let blob = std::fs::read(out.join("character.pxsk")).unwrap();
        let tables = Tables::parse(&blob).unwrap();
        let [lo, hi] = tables.bounds();
        for (yaw, pitch) in [(0x1000u16, 0x0400u16), (0x9000, 0x0C00), (0x4000, 0)] {
            let camera = Camera::frame(tables.bounds(), yaw, pitch, (320, 240), 1024);
            let mut gte = Gte::new();
            camera.load(&mut gte);
            gte.set_matrix(&camera.view);
            for clip in 0..tables.clip_count() {
                for frame in 0..tables.clip(clip).unwrap().frame_count as usize {
                    for (v, p) in positions(&tables, clip, frame).unwrap().into_iter().enumerate() {
                        let at = format!("{storage} clip {clip} frame {frame} vertex {v} at {p:?}");
                        assert!((0..3).all(|a| (lo[a] as i32..=hi[a] as i32).contains(&p[a])), "{at}: outside the bounds");
                        let s = gte.rtps(Vec3i16::new(p[0] as i16, p[1] as i16, p[2] as i16));
                        assert!((0..320).contains(&s.xy.x) && (0..240).contains(&s.xy.y), "{at}: projected to {s:?}");
                        assert!(s.z > camera.near, "{at}: nearer than {}", camera.near);
                    }
                }
            }
        }
    }
}
