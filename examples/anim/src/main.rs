//! anim: ANIMBIN playback on the console, checked word for word against the host.
//!
//! At start-up it runs the scenario (`scenario.rs`, program "ANIM"): two malformed files whose errors
//! go into the record, then clips played with wraps, large steps, translations, markers, a crossfade
//! and the PAL rate, every bone matrix of chosen frames pushed as result words; then it times update
//! + evaluate for 15, 20 and 50 bones (cycle slots 0..=2 average, 3..=5 largest, in root counter 2
//! ticks of 8 CPU cycles). Then the same scenario through compiled clips (`scenario::run_compiled`),
//! timed in slots 6..=17 (see `scenario::cycle_slots`). Afterwards it keeps playing the looping clip
//! and draws each bone as a square, driven by the vsync count. No BIOS calls.
#![no_std]
#![no_main]

use psxanim_runtime::anim::SkeletonController;
use psxanim_runtime::console::ordering::DoubleBuffered;
use psxanim_runtime::console::prim::{self, Color, Vertex};
use psxanim_runtime::console::{display, timer};
use psxanim_runtime::gte::Gte;
use psxanim_runtime::math::Matrix;
use psxanim_runtime::record::{status, Record, CYCLE_SLOTS};

mod scenario;

static mut RECORD: Record = Record::ZERO;
static mut DRAW: DoubleBuffered<8, 256> = DoubleBuffered::new();

const BACKGROUND: Color = Color::new(24, 24, 32);
const TIMED: usize = scenario::TIMED_SLOTS;
/// `scenario::run_prepared`'s words, then `scenario::run_compiled`'s work buffer (as words so that
/// the compiled blob is 4-aligned).
static mut COMPILE_BUFFER: [u32; scenario::COMPILE_BUFFER_BYTES / 4] = [0; scenario::COMPILE_BUFFER_BYTES / 4];

/// Sends words to the record and accumulates the cycle timings.
struct ConsoleProbe<'r> {
    record: &'r mut Record,
    started: u16,
    total: [u32; TIMED],
    worst: [u32; TIMED],
}

impl scenario::Probe for ConsoleProbe<'_> {
    fn word(&mut self, _label: scenario::Label, value: u32) {
        self.record.push(value);
    }
    fn timing(&mut self, slot: usize, start: bool) {
        if start {
            self.started = timer::now();
        } else if slot < TIMED {
            let ticks = timer::ticks_since(self.started) as u32;
            self.total[slot] += ticks;
            self.worst[slot] = self.worst[slot].max(ticks);
        }
    }
}

#[no_mangle]
extern "C" fn main() -> ! {
    // SAFETY: the only references to these statics, taken once; no interrupts, one thread.
    let record = unsafe { &mut *core::ptr::addr_of_mut!(RECORD) };
    let draw = unsafe { &mut *core::ptr::addr_of_mut!(DRAW) };
    display::start(record, *b"ANIM");

    let mut gte = Gte::new();
    let mut probe = ConsoleProbe { record, started: 0, total: [0; TIMED], worst: [0; TIMED] };
    scenario::run(&mut gte, &mut probe);
    // SAFETY: the only reference to the buffer; every bit pattern is a valid u8 and u32.
    let words = unsafe { &mut *core::ptr::addr_of_mut!(COMPILE_BUFFER) };
    scenario::run_prepared(&mut gte, &mut probe, words);
    let (_, buffer, _) = unsafe { words.align_to_mut::<u8>() };
    scenario::run_compiled(&mut gte, &mut probe, buffer);
    let ConsoleProbe { record, total, worst, .. } = probe;
    for slot in 0..TIMED {
        let (average, largest) = scenario::cycle_slots(slot);
        if largest < CYCLE_SLOTS {
            record.set_cycles(average, total[slot] / scenario::TIMED_FRAMES);
            record.set_cycles(largest, worst[slot]);
        }
    }
    record.status = status::DONE;

    let Some((manager, skeleton)) = scenario::scene() else {
        record.fail(1, 0);
        loop {}
    };
    let mut controller = SkeletonController::<{ scenario::SCENE_BONES }>::new(skeleton).ok();
    if let (Some(c), Some(clip)) = (controller.as_mut(), manager.clip(0)) {
        let _ = c.play(clip, true);
    }
    let mut pose = [Matrix::IDENTITY; scenario::SCENE_BONES];
    let mut last_frame = record.frames;

    loop {
        let frame = record.frames;
        if let Some(c) = controller.as_mut() {
            c.advance(frame.wrapping_sub(last_frame));
            c.evaluate(&mut gte, &mut pose);
        }
        last_frame = frame;

        let list = display::begin(draw, BACKGROUND);
        for (bone, m) in pose.iter().enumerate() {
            // Orthographic view: 24 pixels per unit (4096), origin at the screen's lower middle.
            let x = (160 + m.translation.x * 24 / 4096) as i16;
            let y = (200 + m.translation.y * 24 / 4096) as i16;
            let c = Color::new(255, 64 + 32 * bone as u8, 64);
            let corners = [Vertex::new(x - 3, y - 3), Vertex::new(x + 3, y - 3), Vertex::new(x - 3, y + 3), Vertex::new(x + 3, y + 3)];
            let _ = list.add(1, &prim::flat_quad(c, corners));
        }

        display::present(draw);
        record.frames = frame + 1;
    }
}
