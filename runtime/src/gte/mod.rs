//! The GTE (geometry transformation engine, coprocessor 2): one API, two backends.
//!
//! - On the console (`target_os = "psx"`) [`Gte`] drives the real coprocessor ([`hw::Cop2Hardware`]).
//! - Everywhere else it drives [`GteModel`], a register-level model that reproduces the emulators'
//!   ground truth bit for bit (all 4,304 vectors of `gte-vectors.bin`, `tests/gte_vectors.rs`).
//!
//! The high-level methods are written once over the [`Cop2`] trait, so the console and the host run
//! the same register writes, commands and reads. Values follow the GTE's formats: matrices FP12
//! (see [`crate::math`]), vertices `i16`, translations `i32`, screen coordinates `i16` pixels,
//! depths `u16`.
//!
//! Console hazards (load delays, the two-instruction gap before a command) are handled inside the
//! backend; callers need not add `nop`s. Every method that runs a command reads a result before it
//! returns, so the next register write cannot race a command still in flight.
//!
//! Any command, with any field combination, is reachable through [`Gte::command`] and the raw
//! register accessors; the words are compile-time constants because the console encodes them into the
//! instruction:
//!
//! ```
//! use psxanim_runtime::gte::{regs::{cmd, data}, Gte};
//! use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
//!
//! let mut gte = Gte::new();
//! gte.set_matrix(&Matrix::new([[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]], Vec3i32::new(0, 0, 100)));
//! gte.set_screen(160, 120, 300);
//! let p = gte.rtps(Vec3i16::new(50, 0, 200)); // rotated to (0, 50, 300)
//! assert_eq!((p.xy.x, p.xy.y, p.z), (160, 170, 300));
//!
//! // MVMVA sf=1, RT * IR, no translation, lm=1 (IR clamped at 0):
//! gte.write_data::<{ data::IR1 }>(4096);
//! gte.write_data::<{ data::IR2 }>(0);
//! gte.write_data::<{ data::IR3 }>(0);
//! gte.command::<{ cmd::mvmva(1, cmd::MX_RT, cmd::V_IR, cmd::CV_NONE, 1) }>();
//! assert_eq!(gte.mac123(), Vec3i32::new(0, 4096, 0));
//! ```

mod pose_q14;
pub use pose_q14::PoseQ14;
mod backend;
pub mod blend;
#[cfg(target_os = "psx")]
pub mod hw;
pub mod model;
pub mod packets;
pub mod regs;

pub use backend::{avsz4_of, Cop2, LitBones, ScreenTriangle, DENSE_JOINT, WIDE_KEY};
pub(crate) use backend::round_q14;
pub(crate) use backend::{rotation_words, rtpt_registers, unit_rotation, unit_sample};
pub use model::{unr_divide, GteModel};
pub use packets::{
    FlatPackets, FlatPrimitives, PacketList, FLAT_PACKET_WORDS, GP0_FLAT_QUAD, GP0_FLAT_TRIANGLE,
    LEFT_TO_CALLER, LINK_MASK, MAX_SPAN_X, MAX_SPAN_Y, NO_TEXTURE, QUAD_PACKET_WORDS, SurfaceRuns,
};
use regs::{cmd, ctrl, data};

use crate::math::{Matrix, Rotation, Vec3i16, Vec3i32};

/// Makes the GTE usable: on the console sets COP0 Status bit 30 (CU2) and only that bit (see
/// [`hw::enable_cop2`]; `psx`'s `Status::enable_gte` would also isolate the cache). A game calls it
/// once after its own start-up, before any GTE work ([`Gte::new`] calls it too). On the host: nothing.
pub fn enable() {
    #[cfg(target_os = "psx")]
    hw::enable_cop2();
}

/// The backend [`Gte::new`] uses on this target.
#[cfg(target_os = "psx")]
pub type Native = hw::Cop2Hardware;
/// The backend [`Gte::new`] uses on this target.
#[cfg(not(target_os = "psx"))]
pub type Native = GteModel;

/// A screen position as the GTE stores it (SXY: `x` in the low half-word, `y` in the high one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScreenXY {
    pub x: i16,
    pub y: i16,
}

impl ScreenXY {
    pub const fn new(x: i16, y: i16) -> Self {
        Self { x, y }
    }
    pub const fn from_word(w: u32) -> Self {
        Self { x: w as u16 as i16, y: (w >> 16) as u16 as i16 }
    }
    pub const fn to_word(self) -> u32 {
        self.x as u16 as u32 | (self.y as u16 as u32) << 16
    }
}

/// One projected vertex: screen position (SXY) and depth (SZ, saturated to 0..=0xFFFF).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Projected {
    pub xy: ScreenXY,
    pub z: u16,
}

/// MVMVA: rotation by RT with the vector in V0, FP12 (sf=1), IR saturated to -0x8000..0x7FFF.
const MVMVA_RT_V0_TR: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_TR, 0);
const MVMVA_RT_V0: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V0, cmd::CV_NONE, 0);
const MVMVA_RT_V1: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V1, cmd::CV_NONE, 0);
const MVMVA_RT_V2: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_V2, cmd::CV_NONE, 0);

/// MVMVA sf=1, RT * IR, without and with TR: a column and the translation of a composed matrix
/// whose child is in the CPU's registers.
pub(crate) const MVMVA_RT_IR: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_IR, cmd::CV_NONE, 0);
pub(crate) const MVMVA_RT_IR_TR: u32 = cmd::mvmva(1, cmd::MX_RT, cmd::V_IR, cmd::CV_TR, 0);
/// GPF and SQR with sf=0: MAC1..3 = IR0 * IR1..3 and IR1..3 squared, exact 32-bit products.
pub(crate) const GPF_SF0: u32 = cmd::GPF & !cmd::SF;
pub(crate) const SQR_SF0: u32 = cmd::SQR & !cmd::SF;

const fn pack(lo: i16, hi: i16) -> u32 {
    lo as u16 as u32 | (hi as u16 as u32) << 16
}

/// The GTE API. `Gte::new()` gives the target's native backend; [`Gte::with_backend`] any other.
///
/// On the console every `Gte` drives the same coprocessor: keep one and pass it around.
#[derive(Debug)]
pub struct Gte<B: Cop2 = Native> {
    backend: B,
}

impl Gte<Native> {
    /// On the console: enables the coprocessor (SR.CU2). On the host: a fresh model, all zeros.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self { backend: Native::new() }
    }
}

impl<B: Cop2> Gte<B> {
    pub fn with_backend(backend: B) -> Self {
        Self { backend }
    }

    /// The backend (on the host: the model, for inspecting registers).
    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    // ---- raw access ----

    pub fn write_data<const R: u32>(&mut self, v: u32) {
        self.backend.write_data::<R>(v)
    }
    pub fn read_data<const R: u32>(&mut self) -> u32 {
        self.backend.read_data::<R>()
    }
    pub fn write_ctrl<const R: u32>(&mut self, v: u32) {
        self.backend.write_ctrl::<R>(v)
    }
    pub fn read_ctrl<const R: u32>(&mut self) -> u32 {
        self.backend.read_ctrl::<R>()
    }
    /// Runs any command word (see [`regs::cmd`]).
    pub fn command<const CMD: u32>(&mut self) {
        self.backend.command::<CMD>()
    }

    // ---- state ----

    /// Loads RT (the rotation used by RTPS/RTPT/MVMVA mx=RT and OP).
    pub fn set_rotation(&mut self, r: &Rotation) {
        let b = &mut self.backend;
        b.write_ctrl::<{ ctrl::RT11RT12 }>(pack(r[0][0], r[0][1]));
        b.write_ctrl::<{ ctrl::RT13RT21 }>(pack(r[0][2], r[1][0]));
        b.write_ctrl::<{ ctrl::RT22RT23 }>(pack(r[1][1], r[1][2]));
        b.write_ctrl::<{ ctrl::RT31RT32 }>(pack(r[2][0], r[2][1]));
        b.write_ctrl::<{ ctrl::RT33 }>(r[2][2] as u16 as u32);
    }

    /// Loads TR.
    pub fn set_translation(&mut self, t: Vec3i32) {
        self.backend.write_ctrl::<{ ctrl::TRX }>(t.x as u32);
        self.backend.write_ctrl::<{ ctrl::TRY }>(t.y as u32);
        self.backend.write_ctrl::<{ ctrl::TRZ }>(t.z as u32);
    }

    /// Loads RT and TR.
    pub fn set_matrix(&mut self, m: &Matrix) {
        self.set_rotation(&m.rotation);
        self.set_translation(m.translation);
    }

    /// Loads the light matrix LLM (NCS and friends, MVMVA mx=LLM).
    pub fn set_light_matrix(&mut self, r: &Rotation) {
        let b = &mut self.backend;
        b.write_ctrl::<{ ctrl::L11L12 }>(pack(r[0][0], r[0][1]));
        b.write_ctrl::<{ ctrl::L13L21 }>(pack(r[0][2], r[1][0]));
        b.write_ctrl::<{ ctrl::L22L23 }>(pack(r[1][1], r[1][2]));
        b.write_ctrl::<{ ctrl::L31L32 }>(pack(r[2][0], r[2][1]));
        b.write_ctrl::<{ ctrl::L33 }>(r[2][2] as u16 as u32);
    }

    /// Loads the light color matrix LCM (rows R, G, B; columns = lights).
    pub fn set_color_matrix(&mut self, r: &Rotation) {
        let b = &mut self.backend;
        b.write_ctrl::<{ ctrl::LR1LR2 }>(pack(r[0][0], r[0][1]));
        b.write_ctrl::<{ ctrl::LR3LG1 }>(pack(r[0][2], r[1][0]));
        b.write_ctrl::<{ ctrl::LG2LG3 }>(pack(r[1][1], r[1][2]));
        b.write_ctrl::<{ ctrl::LB1LB2 }>(pack(r[2][0], r[2][1]));
        b.write_ctrl::<{ ctrl::LB3 }>(r[2][2] as u16 as u32);
    }

    /// Loads the background color BK (added as `BK << 12` to LCM * IR, i.e. in the result's units).
    pub fn set_back_color(&mut self, bk: Vec3i32) {
        self.backend.write_ctrl::<{ ctrl::RBK }>(bk.x as u32);
        self.backend.write_ctrl::<{ ctrl::GBK }>(bk.y as u32);
        self.backend.write_ctrl::<{ ctrl::BBK }>(bk.z as u32);
    }

    /// Loads the far color FC (depth cueing target).
    pub fn set_far_color(&mut self, fc: Vec3i32) {
        self.backend.write_ctrl::<{ ctrl::RFC }>(fc.x as u32);
        self.backend.write_ctrl::<{ ctrl::GFC }>(fc.y as u32);
        self.backend.write_ctrl::<{ ctrl::BFC }>(fc.z as u32);
    }

    /// Screen offset (OFX, OFY, in whole pixels) and projection distance H.
    pub fn set_screen(&mut self, ofx: i16, ofy: i16, h: u16) {
        self.backend.write_ctrl::<{ ctrl::OFX }>((ofx as i32 as u32) << 16);
        self.backend.write_ctrl::<{ ctrl::OFY }>((ofy as i32 as u32) << 16);
        self.backend.write_ctrl::<{ ctrl::H }>(h as u32);
    }

    /// Depth cueing: IR0 = (DQB + DQA * H/SZ) >> 12 after RTPS/RTPT.
    pub fn set_depth_cue(&mut self, dqa: i16, dqb: i32) {
        self.backend.write_ctrl::<{ ctrl::DQA }>(dqa as u16 as u32);
        self.backend.write_ctrl::<{ ctrl::DQB }>(dqb as u32);
    }

    /// Ordering-table scales: OTZ = (ZSF3 * (SZ1+SZ2+SZ3)) >> 12 (AVSZ3), ZSF4 likewise for AVSZ4.
    pub fn set_ot_scale(&mut self, zsf3: i16, zsf4: i16) {
        self.backend.write_ctrl::<{ ctrl::ZSF3 }>(zsf3 as u16 as u32);
        self.backend.write_ctrl::<{ ctrl::ZSF4 }>(zsf4 as u16 as u32);
    }

    /// Loads the screen-XY FIFO (SXY0..2), e.g. to run [`Gte::nclip`] on given positions.
    pub fn set_screen_xy(&mut self, xy: &[ScreenXY; 3]) {
        self.backend.write_data::<{ data::SXY0 }>(xy[0].to_word());
        self.backend.write_data::<{ data::SXY1 }>(xy[1].to_word());
        self.backend.write_data::<{ data::SXY2 }>(xy[2].to_word());
    }

    /// Loads the depth FIFO (SZ0..3), e.g. to run [`Gte::avsz3`] on given depths.
    pub fn set_screen_z(&mut self, z: &[u16; 4]) {
        self.backend.write_data::<{ data::SZ0 }>(z[0] as u32);
        self.backend.write_data::<{ data::SZ1 }>(z[1] as u32);
        self.backend.write_data::<{ data::SZ2 }>(z[2] as u32);
        self.backend.write_data::<{ data::SZ3 }>(z[3] as u32);
    }

    fn load_vertex<const XY: u32, const Z: u32>(&mut self, v: Vec3i16) {
        self.backend.write_data::<XY>(pack(v.x, v.y));
        self.backend.write_data::<Z>(v.z as u16 as u32);
    }

    // ---- reads ----

    /// FLAG of the last command (bit 31 = error summary).
    pub fn flag(&mut self) -> u32 {
        self.backend.read_ctrl::<{ ctrl::FLAG }>()
    }
    pub fn mac0(&mut self) -> i32 {
        self.backend.read_data::<{ data::MAC0 }>() as i32
    }
    /// IR0: the depth cue factor after RTPS/RTPT (0..=0x1000).
    pub fn ir0(&mut self) -> i16 {
        self.backend.read_data::<{ data::IR0 }>() as i16
    }
    pub fn mac123(&mut self) -> Vec3i32 {
        Vec3i32::new(
            self.backend.read_data::<{ data::MAC1 }>() as i32,
            self.backend.read_data::<{ data::MAC2 }>() as i32,
            self.backend.read_data::<{ data::MAC3 }>() as i32,
        )
    }
    pub fn ir123(&mut self) -> Vec3i16 {
        Vec3i16::new(
            self.backend.read_data::<{ data::IR1 }>() as i16,
            self.backend.read_data::<{ data::IR2 }>() as i16,
            self.backend.read_data::<{ data::IR3 }>() as i16,
        )
    }

    /// Sets RGBC (R, G, B in bits 0-23, the GPU command code in bits 24-31), the color NCCS, NCDS,
    /// CC and CDP modulate; the code byte is copied to every color they output.
    pub fn set_rgbc(&mut self, rgbc: u32) {
        self.backend.write_data::<{ data::RGBC }>(rgbc);
    }

    // ---- commands ----

    /// RTPS: projects one vertex with RT, TR, OFX/OFY and H (sf=1, lm=0).
    pub fn rtps(&mut self, v: Vec3i16) -> Projected {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(v);
        self.backend.command::<{ cmd::RTPS }>();
        Projected {
            xy: ScreenXY::from_word(self.backend.read_data::<{ data::SXY2 }>()),
            z: self.backend.read_data::<{ data::SZ3 }>() as u16,
        }
    }

    /// [`Gte::rtps`] of a vertex given as its VXY0 and VZ0 words (`x | y << 16`, `z`).
    pub fn rtps_words(&mut self, xy: u32, z: u32) -> Projected {
        self.backend.write_data::<{ data::VXY0 }>(xy);
        self.backend.write_data::<{ data::VZ0 }>(z);
        self.backend.command::<{ cmd::RTPS }>();
        Projected {
            xy: ScreenXY::from_word(self.backend.read_data::<{ data::SXY2 }>()),
            z: self.backend.read_data::<{ data::SZ3 }>() as u16,
        }
    }

    /// RTPT: projects three vertices (sf=1, lm=0); the FIFOs then hold them for NCLIP and AVSZ3.
    pub fn rtpt(&mut self, v: &[Vec3i16; 3]) -> [Projected; 3] {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(v[0]);
        self.load_vertex::<{ data::VXY1 }, { data::VZ1 }>(v[1]);
        self.load_vertex::<{ data::VXY2 }, { data::VZ2 }>(v[2]);
        self.backend.command::<{ cmd::RTPT }>();
        let b = &mut self.backend;
        let xy = [b.read_data::<{ data::SXY0 }>(), b.read_data::<{ data::SXY1 }>(), b.read_data::<{ data::SXY2 }>()];
        let z = [b.read_data::<{ data::SZ1 }>(), b.read_data::<{ data::SZ2 }>(), b.read_data::<{ data::SZ3 }>()];
        [0, 1, 2].map(|i| Projected { xy: ScreenXY::from_word(xy[i]), z: z[i] as u16 })
    }

    /// NCLIP on SXY0..2: twice the signed area; > 0 when the points run clockwise on screen (y down).
    pub fn nclip(&mut self) -> i32 {
        self.backend.command::<{ cmd::NCLIP }>();
        self.mac0()
    }

    /// AVSZ3: OTZ from SZ1..3 and ZSF3.
    pub fn avsz3(&mut self) -> u16 {
        self.backend.command::<{ cmd::AVSZ3 }>();
        self.backend.read_data::<{ data::OTZ }>() as u16
    }

    /// AVSZ4: OTZ from SZ0..3 and ZSF4.
    pub fn avsz4(&mut self) -> u16 {
        self.backend.command::<{ cmd::AVSZ4 }>();
        self.backend.read_data::<{ data::OTZ }>() as u16
    }

    /// NCS (sf=1, lm=1): the color `BK + LCM * max(0, LLM * normal)` for an FP12 normal, as the
    /// RGB2 word (R, G, B bytes saturated, RGBC's code byte on top).
    pub fn ncs(&mut self, normal: Vec3i16) -> u32 {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(normal);
        self.backend.command::<{ cmd::NCS }>();
        self.backend.read_data::<{ data::RGB2 }>()
    }

    /// [`Gte::ncs`] of a normal given as its VXY0 and VZ0 words (`x | y << 16`, `z`; the high half of
    /// `z` is ignored), as the tables store normals.
    pub fn ncs_words(&mut self, xy: u32, z: u32) -> u32 {
        self.backend.write_data::<{ data::VXY0 }>(xy);
        self.backend.write_data::<{ data::VZ0 }>(z);
        self.backend.command::<{ cmd::NCS }>();
        self.backend.read_data::<{ data::RGB2 }>()
    }

    /// NCCS (sf=1, lm=1): like [`Gte::ncs`], then modulated by RGBC (see [`Gte::set_rgbc`]).
    pub fn nccs(&mut self, normal: Vec3i16) -> u32 {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(normal);
        self.backend.command::<{ cmd::NCCS }>();
        self.backend.read_data::<{ data::RGB2 }>()
    }

    /// NCDS (sf=1, lm=1): like [`Gte::nccs`], then blended toward FC by IR0 (depth cueing).
    pub fn ncds(&mut self, normal: Vec3i16) -> u32 {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(normal);
        self.backend.command::<{ cmd::NCDS }>();
        self.backend.read_data::<{ data::RGB2 }>()
    }

    /// `RT * v + TR` by MVMVA (sf=1): equals [`Matrix::transform`] of the loaded matrix.
    pub fn transform(&mut self, v: Vec3i16) -> Vec3i32 {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(v);
        self.backend.command::<{ MVMVA_RT_V0_TR }>();
        self.mac123()
    }

    /// `RT * v` by MVMVA (sf=1, no translation): equals [`Matrix::rotate`].
    pub fn rotate(&mut self, v: Vec3i16) -> Vec3i32 {
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(v);
        self.backend.command::<{ MVMVA_RT_V0 }>();
        self.mac123()
    }

    /// `RT * rhs` with the loaded RT: three MVMVA (sf=1, lm=0) on the columns of `rhs`, read from
    /// IR1..3. Bit-identical to [`crate::math::mul_rotation`]. Overwrites V0..V2, MAC and IR.
    pub fn mul_rotation(&mut self, rhs: &Rotation) -> Rotation {
        let col = |j: usize| Vec3i16::new(rhs[0][j], rhs[1][j], rhs[2][j]);
        self.load_vertex::<{ data::VXY0 }, { data::VZ0 }>(col(0));
        self.load_vertex::<{ data::VXY1 }, { data::VZ1 }>(col(1));
        self.load_vertex::<{ data::VXY2 }, { data::VZ2 }>(col(2));
        self.backend.command::<{ MVMVA_RT_V0 }>();
        let c0 = self.ir123();
        self.backend.command::<{ MVMVA_RT_V1 }>();
        let c1 = self.ir123();
        self.backend.command::<{ MVMVA_RT_V2 }>();
        let c2 = self.ir123();
        [[c0.x, c1.x, c2.x], [c0.y, c1.y, c2.y], [c0.z, c1.z, c2.z]]
    }

    /// `parent * child`, bit-identical to [`Matrix::mul`]: the rotation on the GTE (loads RT =
    /// `parent.rotation`, which stays loaded), the translation on the CPU with the same code as the host.
    pub fn compose(&mut self, parent: &Matrix, child: &Matrix) -> Matrix {
        self.set_rotation(&parent.rotation);
        Matrix {
            rotation: self.mul_rotation(&child.rotation),
            translation: parent.rotate_wide(child.translation).wrapping_add(parent.translation),
        }
    }
}

/// A rigid transform whose translation fits `i16`, packed as the GTE register words of its columns
/// (24 bytes): what the pose cache stores per bone and frame, read by [`Cop2::compose_packed`] with
/// one load per register.
///
/// ```text
/// words[0] = m00 | m10 << 16   VXY0: column 0, x y      words[3] = tx | ty << 16    VXY0 (translation)
/// words[1] = m01 | m11 << 16   VXY1: column 1, x y      words[4] = m20 | m21 << 16  VZ0, VZ1
/// words[2] = m02 | m12 << 16   VXY2: column 2, x y      words[5] = m22 | tz << 16   VZ2, VZ0 (translation)
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct PackedMatrix {
    pub words: [u32; 6],
}

impl PackedMatrix {
    pub const IDENTITY: Self = Self { words: [0x1000, 0x1000 << 16, 0, 0, 0, 0x1000] };

    /// `None` when a translation component does not fit `i16`.
    pub fn pack(m: &Matrix) -> Option<Self> {
        let t = m.translation;
        let fits = |v: i32| v >= i16::MIN as i32 && v <= i16::MAX as i32;
        if !(fits(t.x) && fits(t.y) && fits(t.z)) {
            return None;
        }
        let r = &m.rotation;
        Some(Self {
            words: [
                pack(r[0][0], r[1][0]),
                pack(r[0][1], r[1][1]),
                pack(r[0][2], r[1][2]),
                pack(t.x as i16, t.y as i16),
                pack(r[2][0], r[2][1]),
                pack(r[2][2], t.z as i16),
            ],
        })
    }

    pub fn unpack(&self) -> Matrix {
        let lo = |w: u32| w as u16 as i16;
        let hi = |w: u32| (w >> 16) as u16 as i16;
        let w = &self.words;
        Matrix {
            rotation: [[lo(w[0]), lo(w[1]), lo(w[2])], [hi(w[0]), hi(w[1]), hi(w[2])], [lo(w[4]), hi(w[4]), lo(w[5])]],
            translation: Vec3i32::new(lo(w[3]) as i32, hi(w[3]) as i32, hi(w[5]) as i32),
        }
    }

    /// Entry by entry `a + (b - a) * weight / 4096` (FP12 weight, clamped to 0..=4096, the product
    /// shifted down arithmetically): 32-bit integer steps, identical on every target.
    pub fn lerp(a: &Self, b: &Self, weight: u16) -> Self {
        let w = weight.min(1 << 12) as i32;
        let mut words = [0u32; 6];
        for (i, out) in words.iter_mut().enumerate() {
            *out = lerp_word(a.words[i], b.words[i], w);
        }
        Self { words }
    }
}

/// Both halves of one [`PackedMatrix::lerp`] word. Out of line: unrolled over the six words, the two
/// multiplies per word ran out of registers and spilled HI/LO and temporaries to the (uncached) stack.
#[inline(never)]
fn lerp_word(p: u32, q: u32, w: i32) -> u32 {
    let half = |shift: u32| -> u32 {
        let (p, q) = ((p >> shift) as u16 as i16 as i32, (q >> shift) as u16 as i16 as i32);
        ((p + (((q - p) * w) >> 12)) as u16 as u32) << shift
    };
    half(0) | half(16)
}


impl<B: Cop2> Gte<B> {
    /// `out[i] = object * poses[i]` for every pose (as many as both slices hold), where `object` is
    /// the matrix loaded last ([`Gte::set_matrix`]): per pose three MVMVA for the rotation columns
    /// (sf=1, lm=0: bit-identical to [`Gte::mul_rotation`]) and one MVMVA with TR for the translation
    /// (`object.rotation * t + object.translation`, MAC1..3). Keeps RT and TR; overwrites V0..V2, IR, MAC.
    pub fn compose_packed(&mut self, poses: &[PackedMatrix], out: &mut [Matrix]) {
        self.backend.compose_packed(poses, out)
    }
}

#[cfg(test)]
mod tests;
