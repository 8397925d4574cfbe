//! GPU set-up and direct command writes (GP0 drawing port, GP1 display control).
//!
//! The screen is 320x240, NTSC, 15-bit colour. Two 320x240 buffers sit in VRAM at y = 0 and y = 240:
//! one is displayed while the other is drawn (`show` / `draw_to`).

use super::mmio::{GP0, GP1, GPUREAD, GPUSTAT};

pub const SCREEN_WIDTH: i16 = 320;
pub const SCREEN_HEIGHT: i16 = 240;

/// GPUSTAT bit 26: ready to receive a command word.
const STAT_CMD_READY: u32 = 1 << 26;
/// GPUSTAT bit 28: ready to receive a DMA block.
const STAT_DMA_READY: u32 = 1 << 28;

/// GP1(0x08) value: 320 wide (bits 0-1 = 1), 240 lines, NTSC, 15-bit, not interlaced.
const DISPLAY_MODE_320X240_NTSC: u32 = 0x0000_0001;
/// Horizontal display range in GPU clocks (x1 = 0x260, 8 clocks per pixel at 320 wide).
const H_RANGE_START: u32 = 0x260;
/// Vertical display range in scanlines, centred on NTSC line 0x88.
const V_RANGE_START: u32 = 0x88 - 120;

/// GP1 command: reset the GPU (display off, FIFO cleared).
const GP1_RESET: u32 = 0x00 << 24;
const GP1_DISPLAY_ENABLE: u32 = 0x03 << 24;
const GP1_DMA_DIRECTION: u32 = 0x04 << 24;
const GP1_DISPLAY_START: u32 = 0x05 << 24;
const GP1_H_RANGE: u32 = 0x06 << 24;
const GP1_V_RANGE: u32 = 0x07 << 24;
const GP1_DISPLAY_MODE: u32 = 0x08 << 24;
/// GP1(0x04) argument: DMA direction CPU -> GP0.
const DMA_CPU_TO_GP0: u32 = 2;

/// Sends one GP1 (display control) command.
pub fn gp1(command: u32) {
    GP1.write(command);
}

/// The GPU status register.
pub fn status() -> u32 {
    GPUSTAT.read()
}

/// Waits until the GPU takes a new command word (its FIFO has room and the last command is under way).
pub fn wait_cmd_ready() {
    while status() & STAT_CMD_READY == 0 {}
}

/// Waits until the GPU is ready for a DMA block.
pub fn wait_dma_ready() {
    while status() & STAT_DMA_READY == 0 {}
}

/// Writes one GP0 command (all its words) directly, without DMA.
pub fn send(words: &[u32]) {
    wait_cmd_ready();
    for &w in words {
        GP0.write(w);
    }
}

/// Resets the GPU and sets the 320x240 NTSC 15-bit display on buffer 0, drawing into buffer 1.
pub fn init() {
    gp1(GP1_RESET);
    gp1(GP1_DISPLAY_MODE | DISPLAY_MODE_320X240_NTSC);
    gp1(GP1_H_RANGE | H_RANGE_START | ((H_RANGE_START + 320 * 8) << 12));
    gp1(GP1_V_RANGE | V_RANGE_START | ((V_RANGE_START + 240) << 10));
    gp1(GP1_DMA_DIRECTION | DMA_CPU_TO_GP0);
    // Draw mode: drawing into the displayed area allowed (bit 10), dithering on (bit 9).
    send(&[0xE100_0600]);
    // Mask bit: neither set nor test.
    send(&[0xE600_0000]);
    show(0);
    draw_to(1);
    gp1(GP1_DISPLAY_ENABLE); // argument 0 = on
}

/// VRAM y of buffer `index` (0 or 1).
pub const fn buffer_y(index: usize) -> i16 {
    (index & 1) as i16 * SCREEN_HEIGHT
}

/// Displays buffer `index`.
pub fn show(index: usize) {
    gp1(GP1_DISPLAY_START | ((buffer_y(index) as u32) << 10));
}

/// Makes buffer `index` the drawing area, with the drawing offset at its top-left corner, so the
/// primitives use screen coordinates (0..320, 0..240).
pub fn draw_to(index: usize) {
    let y = buffer_y(index) as u32;
    send(&[0xE300_0000 | (y << 10)]);
    send(&[0xE400_0000 | (SCREEN_WIDTH as u32 - 1) | ((y + SCREEN_HEIGHT as u32 - 1) << 10)]);
    send(&[0xE500_0000 | (y << 11)]);
}

/// Copies `rect` of VRAM from `halfwords` (little-endian, row by row, at any alignment; an odd count is
/// padded with one zero halfword) through the GP0 port, word by word: what a standalone program uses
/// to upload textures at start-up (a game may send the same words through its own DMA).
pub fn load_image(rect: crate::tables::textures::Rect, halfwords: &[u8]) {
    send(&super::prim::copy_to_vram(rect.x, rect.y, rect.w, rect.h));
    let count = rect.halfwords().min(halfwords.len() / 2);
    let half = |i: usize| if i < count { u16::from_le_bytes([halfwords[2 * i], halfwords[2 * i + 1]]) as u32 } else { 0 };
    for w in 0..rect.halfwords().div_ceil(2) {
        while status() & STAT_DMA_READY == 0 {}
        GP0.write(half(2 * w) | half(2 * w + 1) << 16);
    }
}

/// GPUSTAT bit 27: a VRAM word is ready to be read.
const STAT_READ_READY: u32 = 1 << 27;

/// Reads `rect` of VRAM back through GPUREAD, handing each word (two halfwords, row by row; the last
/// one's high half past the rectangle when its size is odd) to `word`: how a program checks what its
/// upload left in VRAM. Waits for the GPU to finish drawing first.
pub fn read_image(rect: crate::tables::textures::Rect, word: &mut dyn FnMut(u32)) {
    send(&[0xC000_0000, rect.x as u32 | (rect.y as u32) << 16, rect.w as u32 | (rect.h as u32) << 16]);
    for _ in 0..rect.halfwords().div_ceil(2) {
        while status() & STAT_READ_READY == 0 {}
        word(GPUREAD.read());
    }
}
