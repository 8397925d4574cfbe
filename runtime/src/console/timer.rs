//! Root counter 2 as a cycle timer.
//!
//! Units: one tick = 8 CPU cycles (system clock 33.8688 MHz / 8 = 4.2336 MHz, about 236 ns).
//! The counter is 16 bits wide and wraps every 65,536 ticks (524,288 cycles, about 15.5 ms, a little less
//! than one NTSC frame), so measure only spans shorter than that; `ticks_since` handles one wrap.

use super::mmio::{T2_MODE, T2_VALUE};

/// CPU cycles per tick.
pub const CYCLES_PER_TICK: u32 = 8;
/// Mode: clock source system clock / 8 (bits 8-9 = 2), no synchronisation, counts up to 0xFFFF and wraps.
const MODE_SYSCLK_DIV8_FREE_RUNNING: u16 = 0x0200;

/// Sets the counter running (writing the mode also resets the count to 0).
pub fn start() {
    T2_MODE.write(MODE_SYSCLK_DIV8_FREE_RUNNING);
}

/// The current count.
pub fn now() -> u16 {
    T2_VALUE.read()
}

/// Ticks elapsed since `start_count` (a value of `now`), modulo 65,536.
pub fn ticks_since(start_count: u16) -> u16 {
    now().wrapping_sub(start_count)
}
