//! psxanim host tooling: the canonical animation model, the format readers and writers, FBX import and
//! compilation to the tables the runtime embeds.
// The fuzz targets build this crate with the console's pinned nightly, older than `is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]

/// The canonical in-memory animation model every format converts through.
pub mod model;
/// One module per animation file format, reader and writer side by side.
pub mod formats;
/// FBX import through ufbx: skeleton, skin, mesh and clips.
pub mod fbx;
/// glTF 2.0 import into the same character model as the FBX path.
pub mod gltf;
/// Which loader reads a character file (FBX or glTF).
pub mod character;
/// Compilation of an imported character into the runtime's tables (rigid GTE ranges, baked frames).
pub mod compile;
/// The subcommands of the `psxanim` binary.
pub mod cli;
/// Pictures of a clip and the local web viewer, from the console's own render stages.
pub mod preview;
/// Textures: finding, converting and placing a material's image; TIM files.
pub mod texture;
