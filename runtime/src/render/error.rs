//! Why a character was not drawn: the one error type of the renderer's stages (the pose cache's
//! build and lookups, and `render` itself), kept below both.

use crate::tables::TableError;

/// Why a character was not drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderError {
    /// The tables hold more bones than the scratch (`MAX_BONES`).
    TooManyBones { bones: usize, max: usize },
    /// The tables hold more vertices than the scratch projects (its `VERTICES`; at most
    /// `MAX_BAKED_VERTICES` for a baked character).
    TooManyVertices { vertices: usize, max: usize },
    /// A sample could not be decoded (offset and cause inside).
    Table(TableError),
    /// The pose cache given was built from another blob.
    PoseCacheMismatch,
    /// The tables hold more clips than a pose cache can (`pose_cache::MAX_CLIPS`).
    TooManyClips { clips: usize, max: usize },
}

impl RenderError {
    /// A number per error kind, for a game to keep or show: a table error's own code
    /// ([`TableError::code`], 1 up), the renderer's own errors from 0x101.
    pub fn code(&self) -> u32 {
        match self {
            RenderError::Table(t) => t.code(),
            RenderError::TooManyBones { .. } => 0x101,
            RenderError::TooManyVertices { .. } => 0x102,
            RenderError::PoseCacheMismatch => 0x103,
            RenderError::TooManyClips { .. } => 0x104,
        }
    }
}

impl From<TableError> for RenderError {
    fn from(e: TableError) -> Self {
        RenderError::Table(e)
    }
}
