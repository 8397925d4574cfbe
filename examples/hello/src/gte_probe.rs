//! hello's GTE probe: one RTPS and one RTPT on fixed inputs, every output register read back.
//!
//! This one file is compiled twice: into hello (on the console's coprocessor) and into the xtask
//! (`xtask/src/expect.rs`, on the runtime's bit-exact GTE model), so the host's expectation comes from
//! the very same sequence of register writes and commands.
//!
//! Every register a command reads, or that is read back afterwards, is written first (including the
//! screen FIFOs), so the results do not depend on what the GTE held before.
use psxanim_runtime::gte::regs::{cmd, ctrl, data};
use psxanim_runtime::gte::Cop2;

/// Registers read back after each command, in the order of `read_outputs`.
pub const OUTPUT_NAMES: [&str; 16] = [
    "SXY0", "SXY1", "SXY2", "SZ0", "SZ1", "SZ2", "SZ3", "IR0", "IR1", "IR2", "IR3", "MAC0", "MAC1", "MAC2",
    "MAC3", "FLAG",
];

/// Number of result words: the outputs after RTPS, then after RTPT.
pub const WORDS: usize = 2 * OUTPUT_NAMES.len();

/// Command and register of result word `i` (("RTPS", "SXY2"), ("RTPT", "FLAG")...), for reports.
pub fn word_name(i: usize) -> (&'static str, &'static str) {
    let command = if i < OUTPUT_NAMES.len() { "RTPS" } else { "RTPT" };
    (command, OUTPUT_NAMES.get(i % OUTPUT_NAMES.len()).copied().unwrap_or("?"))
}

/// A rotation of about 30 degrees around Y (FP12: cos = 3547, sin = 2048), then 10 degrees around X.
const ROTATION: [[i16; 3]; 3] = [[3547, 0, 2048], [356, 4034, -617], [-2017, 711, 3493]];
const TRANSLATION: [i32; 3] = [-40, 25, 1200];
/// Screen centre (16.16) and projection distance.
const OFFSET: (i32, i32) = (160 << 16, 120 << 16);
const PROJECTION: u32 = 320;
const DEPTH_CUE: (i32, i32) = (-0x1000, 0x0140_0000);
/// RTPS vertex, then the three RTPT vertices.
const SINGLE: [i16; 3] = [100, -50, 200];
const TRIANGLE: [[i16; 3]; 3] = [[-300, 120, 50], [250, 300, -400], [0, -260, 900]];

fn pair(lo: i16, hi: i16) -> u32 {
    lo as u16 as u32 | (hi as u16 as u32) << 16
}

fn read_outputs<G: Cop2>(gte: &mut G) -> [u32; 16] {
    [
        gte.read_data::<{ data::SXY0 }>(),
        gte.read_data::<{ data::SXY1 }>(),
        gte.read_data::<{ data::SXY2 }>(),
        gte.read_data::<{ data::SZ0 }>(),
        gte.read_data::<{ data::SZ1 }>(),
        gte.read_data::<{ data::SZ2 }>(),
        gte.read_data::<{ data::SZ3 }>(),
        gte.read_data::<{ data::IR0 }>(),
        gte.read_data::<{ data::IR1 }>(),
        gte.read_data::<{ data::IR2 }>(),
        gte.read_data::<{ data::IR3 }>(),
        gte.read_data::<{ data::MAC0 }>(),
        gte.read_data::<{ data::MAC1 }>(),
        gte.read_data::<{ data::MAC2 }>(),
        gte.read_data::<{ data::MAC3 }>(),
        gte.read_ctrl::<{ ctrl::FLAG }>(),
    ]
}

/// Loads the fixed camera (rotation, translation, screen offset, projection, depth cue).
fn load_camera<G: Cop2>(gte: &mut G) {
    let m = ROTATION;
    gte.write_ctrl::<{ ctrl::RT11RT12 }>(pair(m[0][0], m[0][1]));
    gte.write_ctrl::<{ ctrl::RT13RT21 }>(pair(m[0][2], m[1][0]));
    gte.write_ctrl::<{ ctrl::RT22RT23 }>(pair(m[1][1], m[1][2]));
    gte.write_ctrl::<{ ctrl::RT31RT32 }>(pair(m[2][0], m[2][1]));
    gte.write_ctrl::<{ ctrl::RT33 }>(m[2][2] as u32);
    gte.write_ctrl::<{ ctrl::TRX }>(TRANSLATION[0] as u32);
    gte.write_ctrl::<{ ctrl::TRY }>(TRANSLATION[1] as u32);
    gte.write_ctrl::<{ ctrl::TRZ }>(TRANSLATION[2] as u32);
    gte.write_ctrl::<{ ctrl::OFX }>(OFFSET.0 as u32);
    gte.write_ctrl::<{ ctrl::OFY }>(OFFSET.1 as u32);
    gte.write_ctrl::<{ ctrl::H }>(PROJECTION);
    gte.write_ctrl::<{ ctrl::DQA }>(DEPTH_CUE.0 as u32);
    gte.write_ctrl::<{ ctrl::DQB }>(DEPTH_CUE.1 as u32);
}

/// Gives the screen FIFOs known contents (RTPS/RTPT shift them).
fn seed_fifos<G: Cop2>(gte: &mut G) {
    gte.write_data::<{ data::SXY0 }>(pair(11, 12));
    gte.write_data::<{ data::SXY1 }>(pair(21, 22));
    gte.write_data::<{ data::SXY2 }>(pair(31, 32));
    gte.write_data::<{ data::SZ0 }>(100);
    gte.write_data::<{ data::SZ1 }>(200);
    gte.write_data::<{ data::SZ2 }>(300);
    gte.write_data::<{ data::SZ3 }>(400);
}

/// Runs the probe; `timer` is called before and after each command with its index (0 = RTPS, 1 = RTPT)
/// so the console can time them. Returns the `WORDS` result words.
pub fn run<G: Cop2>(gte: &mut G, mut timer: impl FnMut(usize, bool)) -> [u32; WORDS] {
    let mut out = [0u32; WORDS];
    load_camera(gte);

    seed_fifos(gte);
    gte.write_data::<{ data::VXY0 }>(pair(SINGLE[0], SINGLE[1]));
    gte.write_data::<{ data::VZ0 }>(SINGLE[2] as u32);
    timer(0, true);
    gte.command::<{ cmd::RTPS }>();
    timer(0, false);
    out[..16].copy_from_slice(&read_outputs(gte));

    seed_fifos(gte);
    let t = TRIANGLE;
    gte.write_data::<{ data::VXY0 }>(pair(t[0][0], t[0][1]));
    gte.write_data::<{ data::VZ0 }>(t[0][2] as u32);
    gte.write_data::<{ data::VXY1 }>(pair(t[1][0], t[1][1]));
    gte.write_data::<{ data::VZ1 }>(t[1][2] as u32);
    gte.write_data::<{ data::VXY2 }>(pair(t[2][0], t[2][1]));
    gte.write_data::<{ data::VZ2 }>(t[2][2] as u32);
    timer(1, true);
    gte.command::<{ cmd::RTPT }>();
    timer(1, false);
    out[16..].copy_from_slice(&read_outputs(gte));
    out
}
