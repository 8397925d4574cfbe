//! Replays the GTE ground-truth vectors (`shared/data/gte-vectors.bin`, see its `.md`) on the model
//! and checks all 64 output registers of every vector.
//!
//! The file is found at `$PSXANIM_SHARED/data/gte-vectors.bin`, else at
//! `<CARGO_MANIFEST_DIR>/../../shared/data/gte-vectors.bin`. When it is missing the test prints a skip,
//! except under `CI`, where it fails.

use std::collections::BTreeMap;
use std::path::PathBuf;

use psxanim_runtime::gte::GteModel;

const MAGIC: &[u8; 8] = b"GTEVEC01";
const WORDS_PER_RECORD: usize = 129;
const NO_COMMAND: u32 = 0xFFFF_FFFF;
/// The data-register write order the vectors were recorded with (see gte-vectors.md).
const DATA_WRITE_ORDER: [u32; 32] = [15, 28, 29, 31, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 30];

const DATA_NAMES: [&str; 32] = [
    "VXY0", "VZ0", "VXY1", "VZ1", "VXY2", "VZ2", "RGBC", "OTZ", "IR0", "IR1", "IR2", "IR3", "SXY0", "SXY1", "SXY2", "SXYP",
    "SZ0", "SZ1", "SZ2", "SZ3", "RGB0", "RGB1", "RGB2", "RES1", "MAC0", "MAC1", "MAC2", "MAC3", "IRGB", "ORGB", "LZCS", "LZCR",
];
const CTRL_NAMES: [&str; 32] = [
    "RT11RT12", "RT13RT21", "RT22RT23", "RT31RT32", "RT33", "TRX", "TRY", "TRZ", "L11L12", "L13L21", "L22L23", "L31L32", "L33",
    "RBK", "GBK", "BBK", "LR1LR2", "LR3LG1", "LG2LG3", "LB1LB2", "LB3", "RFC", "GFC", "BFC", "OFX", "OFY", "H", "DQA", "DQB",
    "ZSF3", "ZSF4", "FLAG",
];

fn vectors_path() -> PathBuf {
    match std::env::var_os("PSXANIM_SHARED") {
        Some(dir) => PathBuf::from(dir).join("data/gte-vectors.bin"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/gte-vectors.bin"),
    }
}

/// Name of a command word for the report (MVMVA by its fields).
fn command_name(word: u32) -> String {
    if word == NO_COMMAND {
        return "(none)".into();
    }
    let sf = (word >> 19) & 1;
    let lm = (word >> 10) & 1;
    let base = match word & 0x3F {
        0x01 => "RTPS",
        0x30 => "RTPT",
        0x06 => "NCLIP",
        0x2D => "AVSZ3",
        0x2E => "AVSZ4",
        0x28 => "SQR",
        0x0C => "OP",
        0x3D => "GPF",
        0x3E => "GPL",
        0x1E => "NCS",
        0x20 => "NCT",
        0x13 => "NCDS",
        0x16 => "NCDT",
        0x1B => "NCCS",
        0x3F => "NCCT",
        0x1C => "CC",
        0x14 => "CDP",
        0x29 => "DCPL",
        0x10 => "DPCS",
        0x2A => "DPCT",
        0x11 => "INTPL",
        0x12 => {
            let mx = ["RT", "LLM", "LCM", "GARBAGE"][((word >> 17) & 3) as usize];
            let v = ["V0", "V1", "V2", "IR"][((word >> 15) & 3) as usize];
            let cv = ["TR", "BK", "FC", "NONE"][((word >> 13) & 3) as usize];
            return format!("MVMVA sf{sf} {mx} {v} {cv} lm{lm}");
        }
        _ => return format!("unknown {word:#09x}"),
    };
    format!("{base} sf{sf} lm{lm}")
}

/// Replays one record; returns the 64 registers read back (data 0..31, then control 0..31).
fn replay(words: &[u32]) -> [u32; 64] {
    let mut gte = GteModel::new();
    for reg in 0..32 {
        gte.write_ctrl(reg, words[33 + reg as usize]);
    }
    for reg in DATA_WRITE_ORDER {
        gte.write_data(reg, words[1 + reg as usize]);
    }
    if words[0] != NO_COMMAND {
        gte.execute(words[0]);
    }
    let mut out = [0u32; 64];
    for reg in 0..32 {
        out[reg as usize] = gte.read_data(reg);
        out[32 + reg as usize] = gte.read_ctrl(reg);
    }
    out
}

fn register_name(i: usize) -> String {
    if i < 32 {
        format!("data {i} {}", DATA_NAMES[i])
    } else {
        format!("ctrl {} {}", i - 32, CTRL_NAMES[i - 32])
    }
}

#[test]
fn model_matches_all_ground_truth_vectors() {
    let path = vectors_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "CI is set but {} cannot be read: {e}", path.display());
            eprintln!("SKIP: {} not readable ({e}); set PSXANIM_SHARED to the shared/ directory", path.display());
            return;
        }
    };
    assert!(bytes.len() >= 12 && &bytes[..8] == MAGIC, "{}: not a GTEVEC01 file", path.display());
    let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let expected_len = 12 + count * WORDS_PER_RECORD * 4;
    assert_eq!(bytes.len(), expected_len, "{}: {count} records need {expected_len} bytes", path.display());
    assert_eq!(count, 4304, "{}: the documented file holds 4304 vectors", path.display());

    let words: Vec<u32> = bytes[12..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // Per command: (passed, total).
    let mut per_command: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut first_failure: Option<String> = None;
    let mut failures = 0;
    for (index, record) in words.chunks_exact(WORDS_PER_RECORD).enumerate() {
        let got = replay(record);
        let expected = &record[65..129];
        let name = command_name(record[0]);
        let entry = per_command.entry(name.clone()).or_default();
        entry.1 += 1;
        let mismatches: Vec<usize> = (0..64).filter(|&i| got[i] != expected[i]).collect();
        if mismatches.is_empty() {
            entry.0 += 1;
            continue;
        }
        failures += 1;
        if first_failure.is_none() {
            let mut report = format!("first mismatch: vector {index} (file offset {:#x}), command {name} ({:#09x})\n", 12 + index * WORDS_PER_RECORD * 4, record[0]);
            for &i in &mismatches {
                report += &format!("  {:<16} expected {:#010x} got {:#010x}\n", register_name(i), expected[i], got[i]);
            }
            report += "  inputs:\n";
            for i in 0..64 {
                report += &format!("    {:<16} {:#010x}\n", register_name(i), record[1 + i]);
            }
            first_failure = Some(report);
        }
    }
    let mut summary = String::new();
    for (name, (pass, total)) in &per_command {
        summary += &format!("  {name:<32} {pass:>4}/{total}\n");
    }
    println!("GTE vectors per command:\n{summary}total: {}/{count} pass", count - failures);
    if let Some(report) = first_failure {
        panic!("{failures} of {count} vectors differ\n{summary}{report}");
    }
}
