//! FBX import through ufbx: skeleton, skin, mesh, materials and sampled clips of one character.
//!
//! # Convention (what "model space" means everywhere in the import and the compiled tables)
//! - **Axes:** the PlayStation's: +X right, +Y down, +Z away from the viewer (into the screen). This is
//!   right-handed, so going from the FBX's own right-handed axes (read from its `GlobalSettings`: for
//!   Blender's default export +X right, +Y up, +Z toward the viewer) is a rotation (diag(1, -1, -1) for
//!   Y-up files, the same flip the ANIMBIN exporter applies to its root) and keeps triangle winding.
//!   A left-handed file gets a mirror and its triangles are re-wound.
//! - **Units:** 1 m = 4096 GTE units (Q12 metres), using the file's `UnitScaleFactor`. An `i16`
//!   coordinate then spans +-7.99 m, the profile's +-7.5 m limit leaves headroom for rounding, and one
//!   GTE unit is 0.24 mm: small enough that the 1-unit error budget is invisible on screen.
//! - **Bind pose:** each bone's bind transform is its skin cluster's `bind_to_world` (the file's
//!   `TransformLink`), and each vertex's bind position is `bind_to_world * geometry_to_bone * v` of its
//!   strongest cluster; ufbx's `bind_pose` (the FBX `Pose` element), often wrong in real files, is
//!   never read. The bind scale of each bone (e.g. Mixamo's 0.01 armature) is absorbed into the
//!   bone-local vertex positions, so a bone's transform at bind is a pure rotation + translation and an
//!   animated scale is stored as the ratio to the bind scale.
//! - **Bones:** the nodes referenced by skin clusters and the nodes props follow, parent-first
//!   (depth-first order of the file's hierarchy). A bone's parent is its nearest ancestor that is
//!   itself a bone; helper nodes in between (armature objects, transform helpers) are folded into the
//!   bones' model-space transforms.
//! - **Props:** a mesh without a skin deformer (a sword, a hat) follows its nearest ancestor that is a
//!   bone (a cluster's node or a `LimbNode`), through any plain transform nodes in between, or failing
//!   one, its nearest ancestor holding bones (a mesh parented to the armature object itself, which then
//!   joins the skeleton): every vertex rigidly on that node, weight 1. Its place on the node is measured in the scene as loaded (mesh
//!   `geometry_to_world` in the node's space, so node and geometric transforms count) and put on the
//!   node's bind; a node with no cluster binds where the file places it. A mesh with neither a skin nor
//!   such an ancestor is an error, and so is a prop keyed to move relative to its node (that motion
//!   would be lost).
//! - **Clips:** every animation stack (or those named by `--clips`), sampled at the import rate
//!   (30 Hz by default) from its start to its end inclusive with ufbx's `evaluate_scene`. A Blender
//!   stack name `Armature|Walk` becomes `Walk`.
//! - **Events:** from the user property `psxanim_events` ([`events`]: Blender's FBX exporter writes
//!   custom properties, not timeline or pose markers).
//! - **Meshes:** every mesh node, or those `--meshes` names, less those `--skip-mesh` names (a
//!   high-resolution copy beside the character); skipped meshes do not count against the node limit.
//! - **Blend shapes:** a shape every sampled clip leaves at weight 0 is ignored (a warning names it); one a
//!   clip weights is in ufbx's skinned positions, so baked-vertices stores it, and rigid-gte refuses
//!   it ([`AnimatedShape`]).
//! - **Mesh nodes moved after binding (Maya):** the skin follows its mesh node's move since binding (its
//!   geometry-to-world against the skin's bind placement), as Maya shows it. When every skinned mesh
//!   moved alike and no prop rides the bones, the move is applied to the skeleton itself (bones, bind
//!   positions, both references), so rigid-gte places the skin where baked-vertices does.
//! - **Instanced skins:** nodes sharing one skinned mesh are listed (`Character::instanced_skins`) for
//!   rigid-gte to refuse; an unskinned copy of a skinned mesh's geometry (FBX 6.1's instance) is named
//!   so in the error about meshes that follow no bone.
//! - **Added clips:** clips of other engines' files put onto the skeleton ([`clips_onto`]).

pub mod added;
mod affine;
pub(crate) mod error;
pub mod events;
mod load;

pub use added::{clips_onto, AddedClip};

pub use affine::{Affine, Degenerate, Trs};
pub use error::ImportError;
pub use load::{file_to_model, import};

/// Profile limits of the first PSX profile (fbx-skeletal-pipeline.txt, "First PSX profile").
pub mod limits {
    /// Vertices and triangles of a character (rigid-gte's limits: the game sizes its projected-vertex
    /// scratch and packet buffer for them; the primitive stream reaches 5,104 vertices).
    pub const MAX_VERTICES: usize = 4096;
    pub const MAX_TRIANGLES: usize = 8192;
    /// Baked-vertices' limits (the profile's): one decoded frame lives in the console's 512-vertex
    /// scratch. Checked when compiling, so a large character still loads for rigid-gte and previews.
    pub const MAX_BAKED_VERTICES: usize = 512;
    pub const MAX_BAKED_TRIANGLES: usize = 1024;
    /// Bones of the runtime skeleton (the rigid renderer's 64-matrix pose scratch).
    pub const MAX_NODES: usize = 64;
    pub const MAX_CLIPS: usize = 32;
    pub const MAX_CLIP_SECONDS: f64 = 60.0;
    pub const MAX_ANIMATION_BYTES: usize = 512 * 1024;
    /// +-7.5 m in GTE units.
    pub const MAX_COORDINATE: f64 = 7.5 * GTE_UNITS_PER_METRE;
    pub const GTE_UNITS_PER_METRE: f64 = 4096.0;
}

/// What the importer is asked to do.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Sample rate of the clips in Hz.
    pub rate: u32,
    /// Only these clips, in this order (None: every stack in file order).
    pub clips: Option<Vec<String>>,
    /// Only the meshes of these node names (None: every mesh).
    pub meshes: Option<Vec<String>>,
    /// Meshes (node names) left out.
    pub skip_meshes: Vec<String>,
    /// Leave out every mesh that follows no bone (no skin, no bone among its ancestors: the static
    /// scenery of a scene file), with a warning naming them, instead of refusing the file.
    pub skinned_only: bool,
    /// Uniform scale applied to the whole scene (bones, meshes, animation) on top of the file's units: a
    /// model too large for the profile's +-7.5 m, or drawn at another size.
    pub scale: f64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self { rate: 30, clips: None, meshes: None, skip_meshes: Vec::new(), skinned_only: false, scale: 1.0 }
    }
}

impl ImportOptions {
    /// `file_to_model` with the scale applied after it.
    pub fn scaled(&self, file_to_model: Affine) -> Affine {
        let s = self.scale;
        Affine::linear([[s, 0.0, 0.0], [0.0, s, 0.0], [0.0, 0.0, s]]).mul(&file_to_model)
    }
}

/// A blend shape (shape key) some clip gives a non-zero weight: baked-vertices stores it (ufbx's
/// skinned positions include it); rigid-gte, whose vertices only follow bones, refuses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnimatedShape {
    pub mesh: String,
    pub shape: String,
    /// The first clip that weights it.
    pub clip: String,
}

/// A bone of the runtime skeleton.
#[derive(Clone, Debug)]
pub struct Bone {
    pub name: String,
    /// Index of the parent bone (always smaller than this bone's index).
    pub parent: Option<usize>,
    /// Model-space transform at bind with the bind scale removed (rotation + translation only).
    pub bind: Affine,
    /// The bind scale removed from `bind` (negative x for a mirrored bone).
    pub bind_scale: [f64; 3],
}

/// A mesh vertex: its strongest influence, and its second strongest, if any.
#[derive(Clone, Debug)]
pub struct Vertex {
    /// Model-space bind position (GTE units).
    pub bind: [f64; 3],
    /// The strongest influence (rigid-gte's bone when the vertex stays rigid).
    pub bone: usize,
    /// The second strongest influence and its share of the two, `w2 / (w1 + w2)` (0 < share <= 0.5),
    /// when the vertex has one: rigid-gte blends the two (`--max-influences 2`); further influences are
    /// dropped (counted in [`WeightReduction`]).
    pub second: Option<(usize, f64)>,
    /// Where the second influence's cluster places the vertex at bind, from where the strongest's does
    /// (model space; the identity when the file binds both at one pose, which Maya's bind poses need
    /// not): rigid-gte's pair maps the vertex into the second bone's space through it.
    pub second_fix: Affine,
    /// Which mesh (by name) and which of its vertices this came from, for messages.
    pub mesh: String,
    pub source_index: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    pub vertices: [usize; 3],
    pub material: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    /// Base colour as stored in the file (linear 0..1), scaled to 0..255.
    pub rgb: [u8; 3],
    /// The base-colour texture's image, where the file gives one (`crate::texture` finds and converts it).
    pub texture: Option<TextureRef>,
}

/// A material's base-colour texture as the file names it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// Its name in messages: the file name as written, or the image's name when embedded.
    pub name: String,
    /// The image's bytes, when the file embeds them.
    pub embedded: Option<Vec<u8>>,
    /// Where the file says the image is, as written (absolute paths from the artist's machine are
    /// normal; relative ones are relative to the model's folder), in the order to try them.
    pub paths: Vec<String>,
}

impl TextureRef {
    /// A texture the file names by `name` only (a URI, or an embedded image's name).
    pub fn named(name: impl Into<String>) -> Self {
        let name = name.into();
        TextureRef { paths: vec![name.clone()], name, embedded: None }
    }
}

/// One clip sampled at a fixed rate.
#[derive(Clone, Debug)]
pub struct Clip {
    pub name: String,
    pub rate: u32,
    /// Per frame, per bone: model-space transform with the bind scale removed (scale = animated ratio).
    pub poses: Vec<Vec<Affine>>,
    /// Per frame, per vertex: ufbx's evaluation of the vertex on its strongest bone (skin cluster
    /// `geometry_to_world` of the evaluated scene), model space.
    pub rigid_reference: Vec<Vec<[f64; 3]>>,
    /// Per frame, per vertex: ufbx's skinned position with every weight (linear blend skinning).
    pub skinned_reference: Vec<Vec<[f64; 3]>>,
    /// Events: frame (below the frame count) and name, in time order.
    pub events: Vec<(usize, String)>,
}

impl Clip {
    pub fn frame_count(&self) -> usize {
        self.poses.len()
    }
    pub fn seconds(&self) -> f64 {
        self.poses.len() as f64 / self.rate as f64
    }
}

/// An unskinned mesh bound rigidly to a bone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prop {
    /// The mesh node's name.
    pub mesh: String,
    pub bone: usize,
    pub vertices: usize,
}

/// How the skin weights were reduced to one bone per vertex.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeightReduction {
    /// Vertices that had more than one non-zero weight.
    pub reduced_vertices: usize,
    /// The largest weight that was dropped (0 when nothing was reduced).
    pub largest_dropped_weight: f64,
    /// Vertices with more than two non-zero weights (two influences kept: the rest dropped).
    pub beyond_two_vertices: usize,
    /// The largest weight dropped when two are kept (the third strongest; 0 when none).
    pub largest_dropped_beyond_two: f64,
}

/// A character as imported, before compilation.
#[derive(Clone, Debug)]
pub struct Character {
    pub source: String,
    pub bones: Vec<Bone>,
    pub vertices: Vec<Vertex>,
    pub triangles: Vec<Triangle>,
    pub materials: Vec<Material>,
    pub clips: Vec<Clip>,
    pub weights: WeightReduction,
    /// The props among the meshes, in vertex order.
    pub props: Vec<Prop>,
    /// Blend shapes the clips animate (those they leave at weight 0 are ignored, with a warning).
    pub blend_shapes: Vec<AnimatedShape>,
    /// Each triangle's texture coordinates (first UV set), one per corner in its winding order, in the
    /// image's own axes (u right, v down from the top row: FBX's v is flipped, glTF's kept); None for a
    /// triangle whose mesh has none. Empty when no mesh has any.
    pub uvs: Vec<Option<[[f64; 2]; 3]>>,
    /// Groups of meshes (node names) that instance one skinned geometry (Maya's instancing): baked-vertices
    /// stores ufbx's evaluation of each; rigid-gte, which moves each vertex with one bone, refuses them.
    pub instanced_skins: Vec<Vec<String>>,
    pub warnings: Vec<String>,
}
