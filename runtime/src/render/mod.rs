//! Drawing imported characters (`psxanim import` tables) with the GTE.
//!
//! The renderer is a chain of stages, each a plain function over the GTE API, so the same code runs on
//! the coprocessor on the console and on the bit-exact model on the host: whatever the host computes
//! with these functions is exactly what the console draws.
//!
//! ```text
//! cull        the tables' model-space bounds against the view          (before any pose work)
//! pose        rigid: decode the bone samples (forward, with a [`PoseStream`]: one frame's deltas),
//!             compose model-view matrices per bone on the GTE, or with a [`PoseCache`]: look up
//!             the model-space pose, one compose per bone
//!             baked: decode one frame into the shared position scratch
//!             crossfade (`render_animated` of a fading Animator): rigid blends the two clips' bone
//!             samples, baked the two frames' positions
//! project     RTPT three vertices at a time: rigid with one matrix per non-empty bone range,
//!             baked with the one object matrix                       -> SXY / SZ per vertex
//! light       rigid with normals and a `Scratch::lighting`: NCS per vertex with each bone's light
//!             matrix ([`light`]; with fog NCDS); the rigid ranges in the projection's pass where
//!             the tables allow (RTPT and NCT or NCDT per triple, [`light::project_light_rigid`])
//!                                                                     -> a colour per vertex
//! blend       rigid with a blend section: per bone pair MV_b * rel, per weight group one blended
//!             matrix, its vertices by RTPT like a rigid range          -> SXY / SZ after the rigid ones
//! triangles   NCLIP back-face test, AVSZ3 depth, colour               -> a TriangleSink
//!             (textured or lit into an ordering table: [`textured::surface_packets`])
//! ```
//! [`character::render`] runs them in order (the pose sources, compact stream, pose cache, forward
//! stream and crossfades, all end in the bones' model-view matrices the rigid and blend stages read) for one instance; a program owns one [`Scratch`] that all
//! its characters share, one after the other. On the console the sink is `ot::OtSink`, which links
//! GPU packets into an ordering table (the game's own, through `console::ordering::FramePackets`); on the host any sink can collect the triangles
//! and [`triangles::sort_draw_order`] puts them in the order the GPU will draw them.
//!
//! Units and axes are those of [`crate::tables`] (1 m = 4096 GTE units, +Y down, +Z into the screen).

pub mod blend;
pub mod bones;
pub mod camera;
pub mod character;
pub mod cull;
pub mod error;
pub mod fade;
pub mod light;
pub mod ot;
pub mod pose_cache;
pub mod pose_stream;
pub mod project;
pub mod scratch;
pub mod textured;
pub mod triangles;

pub use camera::Camera;
pub use character::{render, render_animated, render_cached, render_pose, render_streamed, Outcome, Stage};
pub use error::RenderError;
pub use pose_cache::PoseCache;
pub use pose_stream::{PoseStream, PoseVoices};
pub use scratch::{Scratch, DEFAULT_VERTICES, MAX_BAKED_VERTICES, MAX_BONES};
pub use triangles::{DrawnTriangle, TriangleSink, TriangleStats};
