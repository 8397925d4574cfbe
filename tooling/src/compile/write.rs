//! Atomic output: every file is written to a temporary name in its destination directory and renamed
//! over the target only once all of them are complete, so a failed import leaves the previous output.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes every `(path, bytes)`; on any failure removes the temporaries and leaves existing files alone.
pub fn write_atomically(files: &[(PathBuf, Vec<u8>)]) -> std::io::Result<()> {
    let mut staged: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| {
        for (path, bytes) in files {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            fs::create_dir_all(dir)?;
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
            let mut f = fs::File::create(&tmp)?;
            staged.push((tmp.clone(), path));
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        for (tmp, path) in &staged {
            fs::rename(tmp, path)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (tmp, _) in &staged {
            let _ = fs::remove_file(tmp);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_all_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("out/a.bin");
        write_atomically(&[(a.clone(), vec![1, 2, 3])]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), vec![1, 2, 3]);
        let names: Vec<_> = fs::read_dir(dir.path().join("out")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_failure_keeps_the_previous_output() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.bin");
        fs::write(&a, b"old").unwrap();
        // The second target's directory is a file, so staging it fails before anything is renamed.
        let blocker = dir.path().join("blocker");
        fs::write(&blocker, b"").unwrap();
        let err = write_atomically(&[(a.clone(), b"new".to_vec()), (blocker.join("b.bin"), b"x".to_vec())]);
        assert!(err.is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old");
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }
}
