//! A game's own checks (`psxanim run --expect FILE`): the game fills the verification record the
//! examples use (`psxanim_runtime::record::Record`: a program code, a status, a frame count, result
//! words) and a JSON file says what it must hold after the run, so that a game's CI asserts what the
//! game computed and drew.
//!
//! ```json
//! {
//!   "program": "MYGM",
//!   "status": "done",
//!   "min_frames": 60,
//!   "results": [
//!     { "index": 0, "name": "clips", "equals": 3 },
//!     { "index": 1, "name": "triangles drawn", "min": 100, "max": 800 }
//!   ]
//! }
//! ```
//! `status` is `done`, `running` or `not-failed` (the default); every field but `program` may be left out.
use psxanim_runtime::record::{status, FindError, RecordView};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The expectation file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// The four-character code the game passed to `Record::begin`.
    pub program: String,
    #[serde(default)]
    pub status: ExpectedStatus,
    /// Frames the game must have counted in `Record::frames`.
    #[serde(default)]
    pub min_frames: u32,
    #[serde(default)]
    pub results: Vec<ExpectedWord>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExpectedStatus {
    Done,
    Running,
    #[default]
    NotFailed,
}

/// One result word: exactly `equals`, or within `min..=max` (unsigned).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedWord {
    pub index: usize,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub equals: Option<u32>,
    #[serde(default)]
    pub min: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

/// One check's outcome.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct GameCheck {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

impl GameCheck {
    fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> GameCheck {
        GameCheck { name: name.into(), passed, detail: detail.into() }
    }
}

/// Reads an expectation file, naming the file and what is wrong in it.
pub fn load(path: &Path) -> anyhow::Result<Expectation> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    let expectation: Expectation =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not an expectation file: {e}", path.display()))?;
    anyhow::ensure!(
        expectation.program.len() == 4 && expectation.program.is_ascii(),
        "{}: \"program\" must be the four ASCII characters given to Record::begin, not {:?}",
        path.display(),
        expectation.program
    );
    for word in &expectation.results {
        let name = word.name.clone().unwrap_or_else(|| format!("result {}", word.index));
        anyhow::ensure!(
            word.equals.is_some() != (word.min.is_some() || word.max.is_some()),
            "{}: {name}: give either \"equals\" or \"min\"/\"max\"",
            path.display()
        );
        anyhow::ensure!(
            word.index < psxanim_runtime::record::RESULT_WORDS,
            "{}: {name}: index {} is past the record's {} result words",
            path.display(),
            word.index,
            psxanim_runtime::record::RESULT_WORDS
        );
    }
    Ok(expectation)
}

/// Compares the record found in `ram` with the expectation.
pub fn check(ram: &[u8], expected: &Expectation) -> Vec<GameCheck> {
    let view = match RecordView::find(ram) {
        Ok(view) => view,
        Err(e) => {
            let why = match e {
                FindError::NoMagic => "no verification record in RAM: did the game call Record::begin?".to_string(),
                FindError::Version { offset, found } => format!(
                    "the record at RAM {offset:#x} has layout version {found}, this psxanim reads {}: rebuild the \
                     game against the same psxanim-runtime",
                    psxanim_runtime::record::VERSION
                ),
                FindError::Truncated { offset } => format!("the record at RAM {offset:#x} runs past the end of RAM"),
                FindError::BadLength { offset } => format!("the record at RAM {offset:#x} claims more words than it holds"),
            };
            return vec![GameCheck::new("record.found", false, why)];
        }
    };
    let mut checks = vec![GameCheck::new("record.found", true, format!("at RAM {:#x}", view.offset))];
    let program = view.program();
    checks.push(GameCheck::new(
        "record.program",
        program == expected.program.as_bytes(),
        format!("expected {:?}, found {:?}", expected.program, String::from_utf8_lossy(&program)),
    ));
    let state = view.status();
    let status_ok = match expected.status {
        ExpectedStatus::Done => state == status::DONE,
        ExpectedStatus::Running => state == status::RUNNING,
        ExpectedStatus::NotFailed => matches!(state, status::RUNNING | status::DONE),
    };
    let state_name = match state {
        status::BOOTING => "booting".to_string(),
        status::RUNNING => "running".to_string(),
        status::DONE => "done".to_string(),
        status::FAILED => format!("failed (error {:#010x}, detail {:#x})", view.error(), view.error_detail()),
        other => format!("unknown status {other}"),
    };
    checks.push(GameCheck::new("record.status", status_ok, format!("expected {:?}, found {state_name}", expected.status)));
    checks.push(GameCheck::new(
        "record.frames",
        view.frames() >= expected.min_frames,
        format!("{} frames counted, at least {} expected", view.frames(), expected.min_frames),
    ));
    for word in &expected.results {
        let name = word.name.clone().unwrap_or_else(|| format!("{}", word.index));
        let present = word.index < view.result_len() as usize;
        let value = view.result(word.index);
        let (passed, wanted) = match (word.equals, word.min, word.max) {
            (Some(e), _, _) => (value == e, format!("{e} ({e:#x})")),
            (None, min, max) => {
                let (lo, hi) = (min.unwrap_or(0), max.unwrap_or(u32::MAX));
                (value >= lo && value <= hi, format!("{lo}..={hi}"))
            }
        };
        let detail = if present {
            format!("result[{}] = {value} ({value:#x}), expected {wanted}", word.index)
        } else {
            format!("result[{}] was never pushed (the game pushed {} words)", word.index, view.result_len())
        };
        checks.push(GameCheck::new(format!("result.{name}"), present && passed, detail));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxanim_runtime::record::Record;

    fn ram_with(record: &Record) -> Vec<u8> {
        let mut ram = vec![0u8; 2 * 1024 * 1024];
        let bytes = bytemuck::bytes_of(record);
        ram[0x4_0000..0x4_0000 + bytes.len()].copy_from_slice(bytes);
        ram
    }

    fn expectation(json: &str) -> anyhow::Result<Expectation> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("expect.json");
        std::fs::write(&path, json).unwrap();
        load(&path)
    }

    #[test]
    fn a_game_record_is_checked_word_by_word() {
        let mut record = Box::new(Record::ZERO);
        record.begin(*b"MYGM");
        record.push(3);
        record.push(420);
        record.frames = 90;
        record.status = status::DONE;
        let ram = ram_with(&record);
        let expected = expectation(
            r#"{ "program": "MYGM", "status": "done", "min_frames": 60,
                 "results": [ { "index": 0, "name": "clips", "equals": 3 },
                              { "index": 1, "name": "triangles", "min": 100, "max": 800 } ] }"#,
        )
        .unwrap();
        let checks = check(&ram, &expected);
        assert!(checks.iter().all(|c| c.passed), "{checks:#?}");
        assert_eq!(checks.len(), 6);

        let strict = expectation(
            r#"{ "program": "GAME", "min_frames": 100,
                 "results": [ { "index": 1, "max": 400 }, { "index": 5, "equals": 0 } ] }"#,
        )
        .unwrap();
        let failed: Vec<String> = check(&ram, &strict).into_iter().filter(|c| !c.passed).map(|c| c.name).collect();
        assert_eq!(failed, ["record.program", "record.frames", "result.1", "result.5"]);
    }

    #[test]
    fn a_missing_or_failed_record_says_why() {
        let expected = expectation(r#"{ "program": "MYGM" }"#).unwrap();
        let checks = check(&vec![0u8; 4096], &expected);
        assert_eq!(checks.len(), 1);
        assert!(!checks[0].passed && checks[0].detail.contains("Record::begin"), "{checks:?}");

        let mut record = Box::new(Record::ZERO);
        record.begin(*b"MYGM");
        record.fail(0x1234, 7);
        let checks = check(&ram_with(&record), &expected);
        let status = checks.iter().find(|c| c.name == "record.status").unwrap();
        assert!(!status.passed && status.detail.contains("failed (error 0x00001234"), "{status:?}");
    }

    #[test]
    fn bad_expectation_files_name_the_file_and_the_fault() {
        for (json, fault) in [
            (r#"{ "program": "TOOLONG" }"#, "four ASCII"),
            (r#"{ "program": "MYGM", "results": [ { "index": 0 } ] }"#, "either"),
            (r#"{ "program": "MYGM", "results": [ { "index": 0, "equals": 1, "min": 0 } ] }"#, "either"),
            (r#"{ "program": "MYGM", "results": [ { "index": 99999, "equals": 1 } ] }"#, "past the record"),
            (r#"{ "program": "MYGM", "extra": 1 }"#, "unknown field"),
            ("not json", "not an expectation file"),
        ] {
            let error = expectation(json).unwrap_err().to_string();
            assert!(error.contains("expect.json") && error.contains(fault), "{json}: {error}");
        }
    }
}
