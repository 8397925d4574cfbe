//! The anim example's cycle figures: update + evaluate of the baked clips (one key per frame, played
//! at the PAL rate so that every channel enters a new segment every frame), from the record's root
//! counter 2 slots (`scenario::cycle_slots`), written to `artifacts/cycles-anim-EMULATOR.json`.
use super::anim_scenario as scenario;
use crate::report::Check;
use anyhow::{ensure, Context, Result};
use psxanim_runtime::record::RecordView;
use serde::Serialize;
use std::path::Path;

const CYCLES_PER_TICK: f64 = 8.0;

/// One timed path for one skeleton size: the slowest of `frames` frames and their average.
#[derive(Debug, Serialize)]
pub struct Timed {
    pub bones: usize,
    pub slowest_cycles: f64,
    pub average_cycles: f64,
}

#[derive(Debug, Serialize)]
pub struct AnimCycles {
    /// Frames timed per figure (each one update + evaluate).
    pub frames: u32,
    /// ANIMBIN keys prepared at load (`anim::PreparedClip`, played by SkeletonController), 20
    /// bones, update + evaluate: the slowest frame (issues 14 and 27's figure) and the average.
    pub animbin_pose_20_bones_cycles: f64,
    pub animbin_pose_20_bones_average_cycles: f64,
    pub animbin_pose_15_bones_cycles: f64,
    pub animbin_pose_15_bones_average_cycles: f64,
    pub animbin_pose_50_bones_cycles: f64,
    pub animbin_pose_50_bones_average_cycles: f64,
    /// The same per skeleton size (15, 20, 50 bones): ANIMBIN prepared, compiled clips with
    /// `evaluate` (matrices copied out), compiled clips with `pose` (borrowed in place), ANIMBIN
    /// keys read from the file (`AnimationManager` clips played directly).
    pub animbin: Vec<Timed>,
    pub compiled_evaluate: Vec<Timed>,
    pub compiled_pose: Vec<Timed>,
    pub animbin_file_keys: Vec<Timed>,
    /// An empty timed section: the measurement's own cost (not subtracted above).
    pub empty_section_cycles: f64,
}

/// The figures of a record (`None` slots read as 0 are an error: the program did not time).
pub fn figures(view: &RecordView) -> Result<AnimCycles> {
    let n = scenario::TIMED_BONES.len();
    let timed = |slot: usize| -> Timed {
        let (average, largest) = scenario::cycle_slots(slot);
        Timed {
            bones: scenario::TIMED_BONES[slot % n],
            slowest_cycles: view.cycles(largest) as f64 * CYCLES_PER_TICK,
            average_cycles: view.cycles(average) as f64 * CYCLES_PER_TICK,
        }
    };
    let group = |g: usize| -> Vec<Timed> { (0..n).map(|i| timed(g * n + i)).collect() };
    let animbin = group(0);
    ensure!(animbin.iter().all(|t| t.slowest_cycles > 0.0), "the record holds no ANIMBIN timings (cycle slots 0..={})", 2 * n - 1);
    let of = |bones: usize| animbin.iter().find(|t| t.bones == bones).map(|t| (t.slowest_cycles, t.average_cycles)).unwrap_or_default();
    let ((s15, a15), (s20, a20), (s50, a50)) = (of(15), of(20), of(50));
    let (empty_avg, _) = scenario::cycle_slots(scenario::TIMED_SLOTS - 1);
    Ok(AnimCycles {
        frames: scenario::TIMED_FRAMES,
        animbin_pose_20_bones_cycles: s20,
        animbin_pose_20_bones_average_cycles: a20,
        animbin_pose_15_bones_cycles: s15,
        animbin_pose_15_bones_average_cycles: a15,
        animbin_pose_50_bones_cycles: s50,
        animbin_pose_50_bones_average_cycles: a50,
        compiled_evaluate: group(1),
        compiled_pose: group(2),
        animbin_file_keys: group(3),
        animbin,
        empty_section_cycles: view.cycles(empty_avg) as f64 * CYCLES_PER_TICK,
    })
}

/// The figures as a check, written to `artifacts/cycles-anim-EMULATOR.json`.
pub fn cycle_checks(emulator: &str, view: Option<&RecordView>, artifacts: &Path) -> Vec<Check> {
    let result = (|| -> Result<String> {
        let f = figures(view.context("no record")?)?;
        let path = artifacts.join(format!("cycles-anim-{emulator}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&f)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        Ok(format!(
            "ANIMBIN (prepared) update + evaluate, slowest / average of {} frames: 15 bones {:.0} / {:.0}, 20 bones {:.0} / {:.0}, 50 bones {:.0} / {:.0} cycles (from the file, 20 bones: {:.0} / {:.0}); {}",
            f.frames,
            f.animbin_pose_15_bones_cycles,
            f.animbin_pose_15_bones_average_cycles,
            f.animbin_pose_20_bones_cycles,
            f.animbin_pose_20_bones_average_cycles,
            f.animbin_pose_50_bones_cycles,
            f.animbin_pose_50_bones_average_cycles,
            f.animbin_file_keys[1].slowest_cycles,
            f.animbin_file_keys[1].average_cycles,
            path.display()
        ))
    })();
    match result {
        Ok(detail) => {
            println!("anim cycles: {detail}");
            vec![Check::new("anim.cycles", true, detail)]
        }
        Err(e) => vec![Check::new("anim.cycles", false, format!("{e:#}"))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxanim_runtime::record::Record;

    /// A record as the anim example leaves it: the slots of `scenario::cycle_slots` in ticks.
    #[test]
    fn figures_read_the_slowest_and_average_slots_in_cycles() {
        let mut r = Box::new(Record::ZERO);
        r.begin(*b"ANIM");
        for slot in 0..scenario::TIMED_SLOTS {
            let (average, largest) = scenario::cycle_slots(slot);
            r.set_cycles(average, 100 + slot as u32);
            r.set_cycles(largest, 200 + slot as u32);
        }
        let bytes = bytemuck::bytes_of(&*r);
        let f = figures(&RecordView::find(bytes).unwrap()).unwrap();
        // 20 bones is the second of TIMED_BONES: probe slot 1.
        assert_eq!(scenario::TIMED_BONES[1], 20);
        assert_eq!((f.animbin_pose_20_bones_cycles, f.animbin_pose_20_bones_average_cycles), (201.0 * 8.0, 101.0 * 8.0));
        assert_eq!(f.animbin_pose_50_bones_cycles, 202.0 * 8.0);
        assert_eq!(f.compiled_pose[0].average_cycles, 106.0 * 8.0);
        assert_eq!(f.animbin_file_keys[2].slowest_cycles, 211.0 * 8.0);
        assert_eq!(f.empty_section_cycles, (100 + scenario::TIMED_SLOTS as u32 - 1) as f64 * 8.0);
        let json = serde_json::to_value(&f).unwrap();
        assert!(json["animbin_pose_20_bones_cycles"].is_number());
    }

    #[test]
    fn a_record_without_timings_is_an_error() {
        let mut r = Box::new(Record::ZERO);
        r.begin(*b"ANIM");
        let bytes = bytemuck::bytes_of(&*r);
        assert!(figures(&RecordView::find(bytes).unwrap()).is_err());
    }
}
