//! The subcommands of the `psxanim` binary, and what they share: loading a file of any format, exit
//! codes, atomic output.
//!
//! Exit codes: 0 success; 1 invalid input, failed validation or a loss under `--strict`; 2 a usage
//! error (clap's own, or an option value that makes no sense).

use crate::formats::{self, ParseError};
use crate::model::Animation;
use std::fmt;
use std::io::Write;
use std::path::Path;

pub mod added;
pub mod compile_clips;
pub mod convert;
pub mod import;
pub mod inspect;
pub mod inspect_tables;
pub mod preview;
pub mod run;
pub mod rust_source;
pub mod validate;

pub const EXIT_OK: i32 = 0;
pub const EXIT_INVALID: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    pub fn invalid(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_INVALID, message: message.into() }
    }
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_USAGE, message: message.into() }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Prints the error of a subcommand and turns the outcome into an exit code.
pub fn finish(result: Result<(), CliError>) -> i32 {
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            say_err(&format!("psxanim: {}", e.message));
            e.code
        }
    }
}

/// Prints to stdout; a closed pipe (`psxanim inspect --json | head`) is not a crash.
pub fn say(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}

/// Prints one line to stderr, ignoring a closed pipe.
pub fn say_err(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Reads and parses `path`, detecting its format by magic, then extension.
pub fn load(path: &Path) -> Result<Animation, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", path.display())))?;
    let Some(format) = formats::detect(&bytes, Some(path)) else {
        return Err(CliError::invalid(format!(
            "{}: at byte offset 0: expected a known format (magic \"ANIMBIN\", \"ANI\\0\", a .panim header with \
             \"values\" at offset 100, or an extension .animbin, .anim, .ani, .panim)",
            path.display()
        )));
    };
    let anim = formats::read(format, &bytes)
        .map_err(|e: ParseError| CliError::invalid(format!("{}: {format}: {e}", path.display())))?;
    for warning in &anim.warnings {
        say_err(&format!("{}: warning: {format}: {warning}", path.display()));
    }
    Ok(anim)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, then a rename, so a
/// failed write never leaves a half-written output.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.psxanim-tmp-{}", std::process::id()));
    let fail = |e: std::io::Error| CliError::invalid(format!("{}: cannot write: {e}", path.display()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}
