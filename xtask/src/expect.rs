//! What each example must leave in its verification record, computed on the host.
//!
//! hello: its GTE probe (`examples/hello/src/gte_probe.rs`) is compiled into this crate too and run on
//! the runtime's GTE model, so the expected words come from the same code the console runs.
use anyhow::{bail, Result};
use psxanim_runtime::gte::GteModel;
use serde::Serialize;

/// The character example (tables generation, expectation, screenshot and cycle checks).
pub mod character;
/// The psx-sdk-rs game example (expectation and cycle figures).
pub mod psx_game;
/// The anim example's cycle figures.
pub mod anim_cycles;
/// The C example (expectation through the C API on the host, and cycle figures).
pub mod c_game;
/// A textured, lit character's cycle figures (psx-game's and the character example's).
pub mod textured_cycles;

#[path = "../../examples/hello/src/gte_probe.rs"]
#[allow(dead_code)]
mod hello_probe;

#[path = "../../examples/anim/src/scenario.rs"]
#[allow(dead_code)]
mod anim_scenario;

/// One expected result word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    pub name: String,
    pub value: u32,
}

/// The record contents an example must produce.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// `Record::program`.
    pub program: [u8; 4],
    pub words: Vec<Word>,
}

/// The expectation for `example`; an example without one cannot be verified.
pub fn for_example(example: &str) -> Result<Expectation> {
    match example {
        "hello" => Ok(hello()),
        "character" => character::expectation(&crate::workspace_root()),
        "anim" => Ok(anim()),
        "psx-game" => psx_game::expectation(&crate::workspace_root()),
        "c-game" => c_game::expectation(&crate::workspace_root(), c_game::PROGRAM),
        "psyqo-game" => c_game::expectation(&crate::workspace_root(), *b"QGAM"),
        "psn00b-game" => c_game::expectation(&crate::workspace_root(), *b"NGAM"),
        other => bail!("no host expectation is defined for example {other:?} (add it to xtask/src/expect.rs)"),
    }
}

fn hello() -> Expectation {
    let mut gte = GteModel::default();
    let values = hello_probe::run(&mut gte, |_, _| {});
    let words = values
        .iter()
        .enumerate()
        .map(|(i, &value)| {
            let (command, register) = hello_probe::word_name(i);
            Word { name: format!("{command}.{register}"), value }
        })
        .collect();
    Expectation { program: *b"HELO", words }
}

/// anim: its scenario (`examples/anim/src/scenario.rs`), ANIMBIN (keys from the file, then prepared)
/// then compiled clips, run on the GTE model; timings are not compared.
fn anim() -> Expectation {
    struct HostProbe(Vec<Word>);
    impl anim_scenario::Probe for HostProbe {
        fn word(&mut self, l: anim_scenario::Label, value: u32) {
            self.0.push(Word { name: format!("{}.{}.bone{}.{}", l.what, l.step, l.bone, l.field), value });
        }
        fn timing(&mut self, _slot: usize, _start: bool) {}
    }
    let mut gte = psxanim_runtime::gte::Gte::with_backend(GteModel::default());
    let mut probe = HostProbe(Vec::new());
    anim_scenario::run(&mut gte, &mut probe);
    // As words, like the console's static buffer: the compiled blob is 4-aligned on both sides.
    let mut buffer = vec![0u32; anim_scenario::COMPILE_BUFFER_BYTES / 4];
    anim_scenario::run_prepared(&mut gte, &mut probe, &mut buffer);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut buffer);
    anim_scenario::run_compiled(&mut gte, &mut probe, bytes);
    Expectation { program: *b"ANIM", words: probe.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(e: &Expectation, name: &str) -> u32 {
        e.words.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("no word {name}")).value
    }

    #[test]
    fn hello_expects_both_commands_in_full() {
        let e = for_example("hello").unwrap();
        assert_eq!(&e.program, b"HELO");
        assert_eq!(e.words.len(), hello_probe::WORDS);
        assert_eq!(e.words[0].name, "RTPS.SXY0");
        assert_eq!(e.words.last().unwrap().name, "RTPT.FLAG");
    }

    /// Independent of the model: psx-spx's RTPS formula worked by hand for the probe's vertex.
    #[test]
    fn hello_rtps_matches_the_documented_formula() {
        let e = for_example("hello").unwrap();
        // MAC = (TR << 12 + RT * V) >> 12 for V = (100, -50, 200).
        let mac = |row: [i64; 3], tr: i64| (tr * 4096 + row[0] * 100 + row[1] * -50 + row[2] * 200) >> 12;
        let (x, y, z) = (mac([3547, 0, 2048], -40), mac([356, 4034, -617], 25), mac([-2017, 711, 3493], 1200));
        assert_eq!(value(&e, "RTPS.MAC1") as i32 as i64, x);
        assert_eq!(value(&e, "RTPS.MAC2") as i32 as i64, y);
        assert_eq!(value(&e, "RTPS.MAC3") as i32 as i64, z);
        assert_eq!(value(&e, "RTPS.SZ3") as i64, z);
        // The FIFO shifted: the seeded SZ1..3 moved down one place.
        assert_eq!(value(&e, "RTPS.SZ0"), 200);
        // Screen x = OFX + IR1 * (H / SZ3), with the GTE's rounded reciprocal: within a pixel of exact.
        let sx = (value(&e, "RTPS.SXY2") & 0xFFFF) as i16 as f64;
        let exact = 160.0 + x as f64 * 320.0 / z as f64;
        assert!((sx - exact).abs() <= 1.0, "sx {sx} vs {exact}");
        // Depth cue: MAC0 = DQB + DQA * (H / SZ3) = 0x140_0000 - 0x1000 * ~0x45xx is negative, so IR0
        // clamps to 0 and FLAG has bit 12 (IR0 saturated) and nothing else.
        assert_eq!(value(&e, "RTPS.IR0"), 0);
        assert!((value(&e, "RTPS.MAC0") as i32) < 0);
        assert_eq!(value(&e, "RTPS.FLAG"), 1 << 12);
    }

    /// The compiled half of anim: a blob was compiled, and its poses at whole-frame steps are the
    /// ANIMBIN half's words.
    #[test]
    fn anim_expects_the_compiled_clips_to_repeat_the_animbin_poses() {
        let e = for_example("anim").unwrap();
        assert!(value(&e, "c.size.0.bone0.0") > 0);
        for step in [0, 3, 6] {
            assert_eq!(value(&e, &format!("time.{step}.bone0.0")) % 4096, 0);
            for bone in 0..6 {
                for field in 0..8 {
                    let name = format!("{step}.bone{bone}.{field}");
                    assert_eq!(value(&e, &format!("pose.{name}")), value(&e, &format!("c.pose.{name}")), "{name}");
                }
            }
        }
    }

    #[test]
    fn unknown_examples_have_no_expectation() {
        assert!(for_example("nope").unwrap_err().to_string().contains("nope"));
    }
}
