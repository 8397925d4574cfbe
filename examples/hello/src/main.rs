//! hello: the smallest psxanim program, and the first thing `cargo xtask verify` checks.
//!
//! It runs one GTE RTPS and one RTPT on fixed inputs and leaves their results in the verification record
//! (`RECORD`, program "HELO"); then, every frame, it clears the screen and draws the triangle RTPT
//! projected with a square sliding over it, and counts the frame. No BIOS calls. The host computes the
//! expected results with the same code (`gte_probe.rs`) on the runtime's GTE model (xtask/src/expect.rs).
#![no_std]
#![no_main]

use psxanim_runtime::console::ordering::DoubleBuffered;
use psxanim_runtime::console::prim::{self, Color, Vertex};
use psxanim_runtime::console::{display, timer};
use psxanim_runtime::gte;
use psxanim_runtime::record::{status, Record};

#[allow(dead_code)] // word_name serves the host reports only
mod gte_probe;

static mut RECORD: Record = Record::ZERO;
static mut DRAW: DoubleBuffered<8, 256> = DoubleBuffered::new();

const BACKGROUND: Color = Color::new(16, 24, 64);
/// Index of RTPT's SXY0 in the probe's results (the RTPS outputs come first).
const RTPT_SXY0: usize = gte_probe::WORDS / 2;

#[no_mangle]
extern "C" fn main() -> ! {
    // SAFETY: the only references to these statics, taken once; no interrupts, one thread.
    let record = unsafe { &mut *core::ptr::addr_of_mut!(RECORD) };
    let draw = unsafe { &mut *core::ptr::addr_of_mut!(DRAW) };
    display::start(record, *b"HELO");

    // The GTE probe; cycle slot 0 = RTPS, 1 = RTPT, in root counter 2 ticks (8 CPU cycles each),
    // including the two nops the backend puts before a command.
    let mut started = 0u16;
    let results = gte_probe::run(&mut gte::Native::new(), |slot, before| {
        if before {
            started = timer::now();
        } else {
            record.set_cycles(slot, timer::ticks_since(started) as u32);
        }
    });
    for word in results {
        record.push(word);
    }
    record.status = status::DONE;
    // RTPT's screen positions (SXY0..2 after the command), drawn every frame behind the square.
    let projected = [
        Vertex::from_sxy(results[RTPT_SXY0]),
        Vertex::from_sxy(results[RTPT_SXY0 + 1]),
        Vertex::from_sxy(results[RTPT_SXY0 + 2]),
    ];

    loop {
        let frame = record.frames;
        let list = display::begin(draw, BACKGROUND);
        // A square sliding left to right, one pixel-pair per frame.
        let x = (frame % 140) as i16 * 2;
        let corners = [
            Vertex::new(x, 80),
            Vertex::new(x + 40, 80),
            Vertex::new(x, 120),
            Vertex::new(x + 40, 120),
        ];
        let colors = [
            Color::new(255, 0, 0),
            Color::new(0, 255, 0),
            Color::new(0, 0, 255),
            Color::new(255, 255, 255),
        ];
        let _ = list.add(1, &prim::gouraud_quad(colors, corners));
        let _ = list.add(2, &prim::flat_triangle(Color::new(240, 200, 40), projected));

        display::present(draw);
        record.frames = frame + 1;
    }
}
