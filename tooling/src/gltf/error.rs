//! glTF import errors: each names the file and the node, mesh, accessor or animation concerned, and
//! what was expected. Profile limits and checks shared with the FBX path stay [`ImportError`]s.

use thiserror::Error;

use crate::fbx::ImportError;

#[derive(Debug, Error)]
pub enum GltfError {
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("{path}: not a valid glTF 2.0 file: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: buffer {buffer}: {message}")]
    Buffer { path: String, buffer: usize, message: String },
    #[error("{path}: accessor {accessor}{name} ({usage}): {message}")]
    Accessor { path: String, accessor: usize, name: String, usage: String, message: String },
    #[error("{path}: node {node} '{name}': {message}")]
    Node { path: String, node: usize, name: String, message: String },
    #[error("{path}: animation '{animation}' channel {channel} (node '{node}'): {message}")]
    Channel { path: String, animation: String, channel: usize, node: String, message: String },
    #[error("{path}: {message}")]
    Scene { path: String, message: String },
    #[error(transparent)]
    Profile(#[from] ImportError),
}
