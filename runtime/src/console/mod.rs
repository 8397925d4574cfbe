//! Console hardware, driven directly (no BIOS calls anywhere): start-up, GPU, DMA, vsync, root counter 2,
//! and the panic handler. Only built for the PlayStation (`target_os = "psx"`).
//!
//! Typical frame loop (see `examples/hello`):
//! ```text
//! start-up (start.rs) -> gpu::init -> loop { build a DrawList; vsync::wait; gpu::show; dma::send_list; flip }
//! ```

/// Entry point `__start`: COP2 on, `.bss` zeroed, `$gp`/`$sp` set, then `main`.
pub mod start;
/// Memory-mapped I/O registers (volatile access by physical address).
pub mod mmio;
/// GPU set-up and direct GP0/GP1 commands.
pub mod gpu;
/// GP0 drawing commands as packet words (fill, flat/gouraud triangles and quads).
pub mod prim;
/// Ordering table + packet arena, double-buffered, sent by DMA.
pub mod ordering;
/// DMA channel 2 (GPU) in linked-list mode.
pub mod dma;
/// Waiting for vertical blank by polling the interrupt status register.
pub mod vsync;
/// Root counter 2 as a cycle timer.
pub mod timer;
/// The panic handler: writes the failure into the verification record and stops.
pub mod panic;
