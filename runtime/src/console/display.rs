//! The frame cycle every example shares: start-up, a list begun with a cleared screen, and presenting
//! the finished list at vertical blank.
//!
//! ```text
//! display::start(record, *b"NAME");
//! loop { let list = display::begin(draw, BACKGROUND); /* add packets */; display::present(draw); }
//! ```

use super::ordering::{DoubleBuffered, DrawList};
use super::prim::{self, Color};
use super::{dma, gpu, panic, timer, vsync};
use crate::record::Record;

/// Start-up: the panic handler reports into `record` (which must be a static: the handler keeps a
/// pointer to it), the record begins as `program`, then the GPU, vsync polling and the cycle timer.
pub fn start(record: &mut Record, program: [u8; 4]) {
    panic::attach_record(record);
    record.begin(program);
    gpu::init();
    vsync::init();
    timer::start();
}

/// The list of the buffer being built, cleared, with a full-screen fill of `background` at the
/// farthest depth (drawn first).
pub fn begin<const DEPTHS: usize, const WORDS: usize>(
    draw: &mut DoubleBuffered<DEPTHS, WORDS>,
    background: Color,
) -> &mut DrawList<DEPTHS, WORDS> {
    let buffer_y = gpu::buffer_y(draw.building_index()) as u16;
    let list = draw.building();
    list.clear();
    let (width, height) = (gpu::SCREEN_WIDTH as u16, gpu::SCREEN_HEIGHT as u16);
    let _ = list.add(DEPTHS - 1, &prim::fill_rect(background, 0, buffer_y, width, height));
    list
}

/// Presents the list just built: once the previous list's DMA and the GPU are done, at vertical
/// blank, shows the buffer drawn last frame and sends the new list to draw into the buffer it was built for.
pub fn present<const DEPTHS: usize, const WORDS: usize>(draw: &mut DoubleBuffered<DEPTHS, WORDS>) {
    let buffer = draw.building_index();
    let head = draw.building().head();
    dma::wait_idle();
    gpu::wait_cmd_ready();
    vsync::wait();
    gpu::show(buffer ^ 1);
    gpu::draw_to(buffer);
    dma::send_list(head);
    draw.flip();
}
