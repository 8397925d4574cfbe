//! The outcome of one verify run: the checks, the record read back, the screenshots; written as JSON
//! (`report-EXAMPLE-EMULATOR.json`) and as PNG files.
use crate::backends::Emulator;
use anyhow::{Context, Result};
use psxanim_runtime::record::RecordView;
use serde::Serialize;
use std::path::Path;

/// One comparison.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    /// What was expected and what was found, when that helps.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Check {
    pub fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> Self {
        Check { name: name.into(), passed, detail: detail.into() }
    }
}

/// The record as found in RAM.
#[derive(Debug, Clone, Serialize)]
pub struct RecordSummary {
    pub offset: String,
    pub program: String,
    pub status: u32,
    pub frames: u32,
    pub error: u32,
    pub error_detail: u32,
    pub result_len: u32,
    /// Root counter 2 readings (ticks of 8 CPU cycles).
    pub cycles: Vec<u32>,
}

impl RecordSummary {
    pub fn of(view: &RecordView) -> Self {
        RecordSummary {
            offset: format!("{:#08x}", view.offset),
            program: String::from_utf8_lossy(&view.program()).into_owned(),
            status: view.status(),
            frames: view.frames(),
            error: view.error(),
            error_detail: view.error_detail(),
            result_len: view.result_len(),
            cycles: (0..view.cycle_len() as usize).map(|i| view.cycles(i)).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub example: String,
    pub emulator: Emulator,
    pub exe: String,
    pub frames_requested: u32,
    pub frames_run: u32,
    /// Wall-clock time of the emulator run (informative only).
    pub run_seconds: f64,
    pub record: Option<RecordSummary>,
    pub screenshots: Vec<String>,
    pub checks: Vec<Check>,
    pub passed: bool,
}

impl Report {
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed)
    }

    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
    }
}

// PNG frames are the emulator crate's business (`psxanim run` writes them too).
pub use psxanim_emulator::frames::{distinct_colours, write_png};
