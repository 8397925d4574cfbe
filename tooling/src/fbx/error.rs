//! Import errors: each names the file, node, vertex or clip concerned and the numbers involved.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("{path}: cannot load FBX: {message}")]
    Load { path: String, message: String },
    #[error("{path}: no mesh (export the meshes together with their armature)")]
    NoMesh { path: String },
    #[error("{path}: mesh '{mesh}' has no skin deformer and no bone among its ancestors ({vertices} vertices); every mesh of a character must be skinned to the armature, or parented to a bone (or the armature object) to follow it rigidly as a prop; to import without it, pass --skip-mesh '{mesh}' (or --meshes NAME,... to choose the meshes)")]
    MeshWithoutSkin { path: String, mesh: String, vertices: usize },
    #[error("{path}: prop '{mesh}' moves relative to its bone '{bone}' at {context} (by {units:.1} GTE units); a prop follows its bone rigidly: key the bone instead, or skin the mesh")]
    PropMoves { path: String, mesh: String, bone: String, context: String, units: f64 },
    #[error(
        "{path}: mesh '{mesh}' has {count} skin deformers ({names}); at most 1 skin deformer per mesh is supported"
    )]
    MultipleSkins { path: String, mesh: String, count: usize, names: String },
    #[error("{path}: skin deformer '{deformer}' of mesh '{mesh}' uses dual-quaternion skinning; only linear/rigid skinning is supported")]
    DualQuaternion { path: String, mesh: String, deformer: String },
    #[error("{path}: {option} names mesh '{name}', which the file does not have (meshes: {available})")]
    UnknownMesh { path: String, option: &'static str, name: String, available: String },
    #[error("{path}: mesh '{mesh}' has {count} unweighted vertices (first: vertex {first}); every vertex needs a skin weight")]
    UnweightedVertices { path: String, mesh: String, count: usize, first: usize },
    #[error("{path}: node '{node}' has a sheared transform at {context} (axes {degrees:.2} degrees off square); shear is not supported{hint}")]
    Shear { path: String, node: String, context: String, degrees: f64, hint: String },
    #[error("{path}: node '{node}' has a singular transform at {context} (determinant {det:e}); zero scale is not supported")]
    Singular { path: String, node: String, context: String, det: f64 },
    #[error("{path}: {count} {what} exceed the profile limit of {limit}")]
    TooMany { path: String, what: &'static str, count: usize, limit: usize },
    #[error("{path}: clip '{clip}' lasts {seconds:.2} s, longer than the profile limit of {limit} s")]
    ClipTooLong { path: String, clip: String, seconds: f64, limit: f64 },
    #[error("{path}: vertex {vertex} of mesh '{mesh}' reaches {metres:.3} m on {axis} at {context}, outside the profile limit of +-7.5 m")]
    OutOfRange { path: String, mesh: String, vertex: usize, axis: char, metres: f64, context: String },
    #[error("{path}: {bytes} bytes of animation data exceed the profile limit of 512 KiB ({limit} bytes)")]
    AnimationTooLarge { path: String, bytes: usize, limit: usize },
    #[error("{path}: no clip named '{name}' (available: {available})")]
    UnknownClip { path: String, name: String, available: String },
    #[error("{path}: the sample rate must be 1..=60 Hz, not {rate}")]
    BadRate { path: String, rate: u32 },
    #[error(
        "{path}: compiled pose differs from the file's own evaluation (ufbx's for FBX) by {max:.2} GTE units (clip '{clip}', frame {frame}, vertex {vertex}), above the threshold of {threshold} (override with --max-error)"
    )]
    Accuracy { path: String, clip: String, frame: usize, vertex: usize, max: f64, threshold: f64 },
    #[error("{path}: {message}")]
    Compile { path: String, message: String },
    #[error("{path}: {owner}: property psxanim_events: {message}")]
    Events { path: String, owner: String, message: String },
}
