//! The structures the header exposes by layout (everything else is opaque storage). Fixed-width
//! fields, no pointers, no floating point: the same size on the console and the host, asserted here
//! and by `_Static_assert` in `psxanim.h` (the test `header_matches_the_rust_side` compares both).
use psxanim_runtime::math::Matrix;

/// `psxanim_error`: what went wrong. `status` is the function's return value, `detail` the runtime's
/// own code (ANIMBIN error kind, table error kind, render error, bone...), `offset` the byte offset in
/// the file at fault (0 when the error has none).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimError {
    pub status: i32,
    pub detail: u32,
    pub offset: u32,
}

/// `psxanim_matrix`: a bone matrix, as the GTE takes it: FP12 rotation (row-major), two bytes of
/// padding, translation in GTE units. The runtime's `Matrix` layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimMatrix {
    pub m: [[i16; 3]; 3],
    pub pad: i16,
    pub t: [i32; 3],
}

impl From<&Matrix> for PsxanimMatrix {
    fn from(m: &Matrix) -> Self {
        PsxanimMatrix { m: m.rotation, pad: 0, t: [m.translation.x, m.translation.y, m.translation.z] }
    }
}

impl From<&PsxanimMatrix> for Matrix {
    fn from(m: &PsxanimMatrix) -> Self {
        Matrix::new(m.m, psxanim_runtime::math::Vec3i32::new(m.t[0], m.t[1], m.t[2]))
    }
}

/// `psxanim_bind`: a bone's bind-pose transform relative to its parent: unit FP12 quaternion
/// (w, x, y, z; 4096 = 1.0) and translation (FP12, as ANIMBIN stores them).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimBind {
    pub rotation: [i16; 4],
    pub translation: [i32; 3],
}

/// `psxanim_event`: a marker (ANIMBIN) or clip event (character) crossed by an update. The name is
/// `name_len` bytes at `name_offset` in the file it was loaded from (not NUL-terminated).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimEvent {
    pub name_offset: u32,
    pub name_len: u16,
    /// The marker's number in its clip.
    pub index: u16,
    /// The clip frame it sits on.
    pub frame: u16,
    pub reserved: u16,
}

/// `psxanim_camera`: what the GTE needs besides each actor's matrix (the runtime's `Camera`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimCamera {
    /// World to camera space (+X right, +Y down, +Z forward).
    pub view: PsxanimMatrix,
    /// Screen position of the optical axis, pixels.
    pub center_x: i16,
    pub center_y: i16,
    /// Projection distance H.
    pub projection: u16,
    pub screen_w: i16,
    pub screen_h: i16,
    /// AVSZ3 scale: ordering-table depth = zsf3 * (sz0 + sz1 + sz2) >> 12.
    pub zsf3: i16,
    /// Depth (SZ) below which a triangle is not drawn.
    pub near_z: u16,
    pub reserved: u16,
}

/// `psxanim_light`: one directional light (the runtime's `Light`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimLight {
    /// World-space direction from the surface toward the light, FP12 (4096 = 1), unit length.
    pub dx: i16,
    pub dy: i16,
    pub dz: i16,
    /// The colour it adds to a surface facing it squarely (128 = the texel or material as stored;
    /// 0, 0, 0: the light is off).
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub reserved: [u8; 3],
}

/// `psxanim_lighting`: up to three lights, the ambient colour and optional fog (the runtime's
/// `Lighting`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimLighting {
    pub lights: [PsxanimLight; 3],
    /// Added to every vertex (128, 128, 128 alone draws everything as stored).
    pub ambient: [u8; 3],
    /// 1: fog toward `fog_colour` from view-space depth `fog_near` to `fog_far` (SZ units); 0: none.
    pub fog: u8,
    pub fog_colour: [u8; 3],
    pub reserved: u8,
    pub fog_near: u16,
    pub fog_far: u16,
}

/// `psxanim_draw_stats`: what a draw did.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimDrawStats {
    pub drawn: u32,
    pub back_facing: u32,
    /// Too near, too large for the GPU, or refused by a full packet buffer.
    pub rejected: u32,
    /// 1 when the actor was off screen (nothing posed or drawn).
    pub culled: u32,
}

/// `psxanim_play_state`: a player's clock.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimPlayState {
    /// The playing clip's time, 4096 ticks per clip frame (sample).
    pub time: u32,
    /// `PSXANIM_PLAYING`, `PSXANIM_FADING`, `PSXANIM_FINISHED`, `PSXANIM_PAUSED` bits.
    pub flags: u32,
}

pub mod play_flags {
    pub const PLAYING: u32 = 1;
    pub const FADING: u32 = 2;
    pub const FINISHED: u32 = 4;
    pub const PAUSED: u32 = 8;
}

/// `psxanim_character_info`: counts of a loaded character.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsxanimCharacterInfo {
    pub bones: u32,
    pub vertices: u32,
    pub triangles: u32,
    pub clips: u32,
    pub materials: u32,
    /// 0 rigid-gte, 1 baked-vertices.
    pub storage: u32,
}

const _: () = {
    use core::mem::{align_of, size_of};
    assert!(size_of::<PsxanimError>() == 12);
    assert!(size_of::<PsxanimMatrix>() == 32 && size_of::<Matrix>() == 32);
    assert!(size_of::<PsxanimBind>() == 20);
    assert!(size_of::<PsxanimEvent>() == 12);
    assert!(size_of::<PsxanimCamera>() == 48);
    assert!(size_of::<PsxanimDrawStats>() == 16);
    assert!(size_of::<PsxanimPlayState>() == 8);
    assert!(size_of::<PsxanimCharacterInfo>() == 24);
    assert!(align_of::<PsxanimMatrix>() == 4 && align_of::<PsxanimCamera>() == 4);
};
