//! Console hardware, driven directly (no BIOS calls anywhere): GPU, DMA, vsync, root counter 2. Only
//! built for the PlayStation (`target_os = "psx"`), except `prim` and `ordering`, which touch no
//! hardware and are unit-tested on the host.
//!
//! Nothing here runs unless called: a game that links the runtime keeps its own start-up, GPU set-up
//! and frame loop, and only hands its ordering table and packet buffer to the renderer
//! ([`ordering::FramePackets`]). The machine-owning parts (the entry point `__start`, the panic
//! handler and the examples' frame cycle) exist only with the `standalone` feature.
//!
//! Typical frame loop (see `examples/hello`):
//! ```text
//! start-up (start.rs) -> gpu::init -> loop { build a DrawList; vsync::wait; gpu::show; dma::send_list; flip }
//! ```

/// Entry point `__start`: COP2 on, `.bss` zeroed, `$gp`/`$sp` set, then `main`.
#[cfg(all(target_os = "psx", feature = "standalone"))]
pub mod start;
/// Memory-mapped I/O registers (volatile access by physical address).
#[cfg(target_os = "psx")]
pub mod mmio;
/// GPU set-up and direct GP0/GP1 commands.
#[cfg(target_os = "psx")]
pub mod gpu;
/// GP0 drawing commands as packet words (fill, flat/gouraud triangles and quads).
pub mod prim;
/// Ordering table + packet arena, double-buffered, sent by DMA.
pub mod ordering;
/// DMA channel 2 (GPU) in linked-list mode.
#[cfg(target_os = "psx")]
pub mod dma;
/// Waiting for vertical blank by polling the interrupt status register.
#[cfg(target_os = "psx")]
pub mod vsync;
/// Root counter 2 as a cycle timer.
#[cfg(target_os = "psx")]
pub mod timer;
/// The panic handler: writes the failure into the verification record and stops.
#[cfg(all(target_os = "psx", feature = "standalone"))]
pub mod panic;
/// The examples' shared frame cycle: start-up, a list begun on a cleared screen, presenting it.
#[cfg(all(target_os = "psx", feature = "standalone"))]
pub mod display;
