//! DMA channel 2 (GPU) in linked-list mode: sends a `DrawList` to GP0 without the CPU.

use super::gpu;
use super::mmio::{DMA2_BCR, DMA2_CHCR, DMA2_MADR, DPCR};

/// DPCR bit 11: channel 2 master enable.
const DPCR_GPU_ENABLE: u32 = 1 << 11;
/// CHCR: from RAM (bit 0), linked-list sync mode (bits 9-10 = 2), start/busy (bit 24).
const CHCR_LINKED_LIST_FROM_RAM: u32 = 0x0100_0401;
const CHCR_BUSY: u32 = 1 << 24;

/// Waits until channel 2 has finished its transfer.
pub fn wait_idle() {
    while DMA2_CHCR.read() & CHCR_BUSY != 0 {}
}

/// Starts sending the linked list whose first header is at `head`; returns at once.
/// The list must not change until `wait_idle` returns.
pub fn send_list(head: *const u32) {
    if head.is_null() {
        return;
    }
    wait_idle();
    gpu::wait_dma_ready();
    DPCR.write(DPCR.read() | DPCR_GPU_ENABLE);
    DMA2_MADR.write(head as usize as u32 & 0x00FF_FFFF);
    DMA2_BCR.write(0);
    DMA2_CHCR.write(CHCR_LINKED_LIST_FROM_RAM);
}
