//! Import errors: each names the file, node, vertex or clip concerned and the numbers involved.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("{path}: cannot load FBX: {message}")]
    Load { path: String, message: String },
    #[error("{path}: no mesh (export the meshes together with their armature)")]
    NoMesh { path: String },
    #[error("{path}: mesh '{mesh}' has no skin deformer and no bone among its ancestors ({vertices} vertices){also}; every mesh of a character must be skinned to the armature, or parented to a bone (or the armature object) to follow it rigidly as a prop; to import without such meshes, pass --skip-mesh {skip} or --skinned-only (or --meshes NAME,... to choose the meshes)")]
    MeshWithoutSkin { path: String, mesh: String, vertices: usize, also: String, skip: String },
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
    #[error("{path}: vertex {vertex} of mesh '{mesh}' has weight {weight} on bone '{bone}'; skin weights must be positive (a vertex's weights sum to its share of each bone)")]
    BadWeight { path: String, mesh: String, vertex: usize, bone: String, weight: f64 },
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
    #[error("{path}: vertex {vertex} of mesh '{mesh}' reaches {metres:.3} m on {axis} at {context}, outside the profile limit of +-7.5 m; --scale draws the model smaller (this pose needs {:.3} of its size or less, the farthest vertex named: the file's units may not be metres)", 7.5 / metres.abs())]
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

/// The meshes that follow no bone, (name, vertices) in file order: an error naming the first and
/// giving the option that leaves them all out; `hint` (empty, or starting with ": ") says more of the first.
pub(crate) fn meshes_without_skin(p: &str, unbound: &[(String, usize)], hint: &str) -> ImportError {
    let (mesh, vertices) = unbound[0].clone();
    let also = hint.to_string()
        + &match unbound.len() {
            1 => String::new(),
            2 => format!(", and so does mesh '{}'", unbound[1].0),
            n => format!(", and so do {} more meshes ('{}', ...)", n - 1, unbound[1].0),
        };
    let skip = unbound.iter().map(|(name, _)| format!("'{name}'")).collect::<Vec<_>>().join(",");
    ImportError::MeshWithoutSkin { path: p.into(), mesh, vertices, also, skip }
}

/// The warning of `--skinned-only` when it left meshes out.
pub(crate) fn skinned_only_warning(unbound: &[(String, usize)]) -> String {
    let names: Vec<String> = unbound.iter().map(|(name, vertices)| format!("'{name}' ({vertices} vertices)")).collect();
    format!("--skinned-only left out {} mesh(es) that follow no bone: {}", unbound.len(), names.join(", "))
}

/// The error for a transform that is no rotation, translation and scale (any character format's).
pub(crate) fn degenerate(p: &str, node: &str, context: &str, d: super::Degenerate) -> ImportError {
    match d {
        super::Degenerate::Singular { det } => ImportError::Singular { path: p.into(), node: node.into(), context: context.into(), det },
        super::Degenerate::Shear { cosine } => ImportError::Shear {
            path: p.into(),
            node: node.into(),
            context: context.into(),
            degrees: 90.0 - cosine.clamp(-1.0, 1.0).acos().to_degrees(),
            hint: String::new(),
        },
    }
}

/// Every vertex position (`positions[i]` of `vertices[i]`) inside the profile's coordinate range (any
/// character format's); else the error names the farthest coordinate (a NaN first), so that the
/// `--scale` it states brings the whole pose inside.
pub(crate) fn check_range(p: &str, vertices: &[super::Vertex], positions: &[[f64; 3]], context: &str) -> Result<(), ImportError> {
    let mut worst: Option<(usize, usize, f64)> = None;
    for (i, pos) in positions.iter().enumerate() {
        for (axis, &c) in pos.iter().enumerate() {
            let farther = match worst {
                None => true,
                Some((_, _, w)) => !w.is_nan() && (c.is_nan() || c.abs() > w.abs()),
            };
            if (c.is_nan() || c.abs() > super::limits::MAX_COORDINATE) && farther {
                worst = Some((i, axis, c));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((i, axis, c)) => Err(ImportError::OutOfRange {
            path: p.into(),
            mesh: vertices[i].mesh.clone(),
            vertex: vertices[i].source_index,
            axis: ['x', 'y', 'z'][axis],
            metres: c / super::limits::GTE_UNITS_PER_METRE,
            context: context.into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mesh_without_a_bone_is_named_in_one_option_a_shell_takes() {
        let one = meshes_without_skin("s.fbx", &[("Rock".into(), 8)], "").to_string();
        assert!(one.contains("mesh 'Rock' has no skin deformer") && one.contains("(8 vertices);"), "{one}");
        assert!(one.contains("--skip-mesh 'Rock' or --skinned-only"), "{one}");
        let three = meshes_without_skin("s.fbx", &[("Rock".into(), 8), ("Tree Oak".into(), 90), ("Sky".into(), 4)], "").to_string();
        assert!(three.contains("(8 vertices), and so do 2 more meshes ('Tree Oak', ...);"), "{three}");
        assert!(three.contains("--skip-mesh 'Rock','Tree Oak','Sky' or --skinned-only"), "{three}");
        let warning = skinned_only_warning(&[("Rock".into(), 8), ("Sky".into(), 4)]);
        assert_eq!(warning, "--skinned-only left out 2 mesh(es) that follow no bone: 'Rock' (8 vertices), 'Sky' (4 vertices)");
    }
}
