//! Vertical blank, by polling: the interrupt controller latches the VBLANK request in I_STAT bit 0
//! whether or not the CPU takes interrupts (start-up leaves them disabled), so no handler is needed.

use super::mmio::{I_MASK, I_STAT};

const IRQ_VBLANK: u16 = 1 << 0;

/// Unmasks VBLANK in I_MASK (harmless: COP0 keeps interrupts off) and drops a stale request.
pub fn init() {
    I_MASK.write(I_MASK.read() | IRQ_VBLANK);
    I_STAT.write(!IRQ_VBLANK);
}

/// Waits for the next vertical blank (returns at once if one happened since the last call), then
/// acknowledges it. Writing 0 to an I_STAT bit clears it; writing 1 leaves it alone.
pub fn wait() {
    while I_STAT.read() & IRQ_VBLANK == 0 {}
    I_STAT.write(!IRQ_VBLANK);
}

/// Waits for the start of the next vertical blank, dropping one that already passed since the last
/// call. A program that switches the displayed buffer right after this never switches it mid-frame
/// (`wait` returns at once after a frame that took longer than a vsync, and a switch then tears the
/// picture: its top rows from one buffer, the rest from the other).
pub fn wait_next() {
    I_STAT.write(!IRQ_VBLANK);
    wait();
}
