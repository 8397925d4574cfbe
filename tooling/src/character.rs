//! Which loader reads a character file: glTF 2.0 (the GLB magic, `.gltf`, `.glb`) or FBX (everything
//! else). Both produce the same [`Character`]; nothing after this choice knows which file it was.

use std::path::Path;

use thiserror::Error;

use crate::fbx::{Character, ImportError, ImportOptions};
use crate::gltf::GltfError;

#[derive(Debug, Error)]
pub enum CharacterError {
    #[error(transparent)]
    Fbx(#[from] ImportError),
    #[error(transparent)]
    Gltf(#[from] GltfError),
}

/// Whether `path` (starting with `bytes`) is a character file: FBX or glTF.
pub fn is_character(path: &Path, bytes: &[u8]) -> bool {
    bytes.starts_with(b"Kaydara FBX Binary")
        || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx"))
        || crate::gltf::is_gltf(path, bytes)
}

/// Imports `path` with the loader its extension or magic names.
pub fn import(path: &Path, options: &ImportOptions, progress: &mut dyn FnMut(&str, usize, usize)) -> Result<Character, CharacterError> {
    let mut magic = [0u8; 4];
    let head = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut magic)).map(|n| &magic[..n]).unwrap_or(&[]);
    if crate::gltf::is_gltf(path, head) {
        Ok(crate::gltf::import(path, options, progress)?)
    } else {
        Ok(crate::fbx::import(path, options, progress)?)
    }
}
