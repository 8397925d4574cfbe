//! Volatile access to the I/O registers. Addresses are the KUSEG ones (0x1F80_xxxx), which reach the same
//! hardware as KSEG1 on a CPU without an MMU.

/// A 32-bit I/O register at a fixed address.
#[derive(Clone, Copy)]
pub struct Reg32(pub usize);

impl Reg32 {
    #[inline(always)]
    pub fn read(self) -> u32 {
        // SAFETY: the address is one of the fixed I/O registers named in this module's users.
        unsafe { core::ptr::read_volatile(self.0 as *const u32) }
    }
    #[inline(always)]
    pub fn write(self, value: u32) {
        // SAFETY: as for `read`; I/O writes have no Rust-visible aliasing.
        unsafe { core::ptr::write_volatile(self.0 as *mut u32, value) }
    }
}

/// A 16-bit I/O register (the interrupt controller and the root counters are 16 bits wide).
#[derive(Clone, Copy)]
pub struct Reg16(pub usize);

impl Reg16 {
    #[inline(always)]
    pub fn read(self) -> u16 {
        // SAFETY: see `Reg32::read`.
        unsafe { core::ptr::read_volatile(self.0 as *const u16) }
    }
    #[inline(always)]
    pub fn write(self, value: u16) {
        // SAFETY: see `Reg32::write`.
        unsafe { core::ptr::write_volatile(self.0 as *mut u16, value) }
    }
}

pub const GP0: Reg32 = Reg32(0x1F80_1810);
/// Writes go to GP1 (display control); reads return GPUSTAT.
pub const GP1: Reg32 = Reg32(0x1F80_1814);
/// GPUREAD: VRAM words after a copy-to-CPU command (read at GP0's address).
pub const GPUREAD: Reg32 = Reg32(0x1F80_1810);
pub const GPUSTAT: Reg32 = Reg32(0x1F80_1814);

pub const I_STAT: Reg16 = Reg16(0x1F80_1070);
pub const I_MASK: Reg16 = Reg16(0x1F80_1074);

pub const DMA2_MADR: Reg32 = Reg32(0x1F80_10A0);
pub const DMA2_BCR: Reg32 = Reg32(0x1F80_10A4);
pub const DMA2_CHCR: Reg32 = Reg32(0x1F80_10A8);
pub const DPCR: Reg32 = Reg32(0x1F80_10F0);

pub const T2_VALUE: Reg16 = Reg16(0x1F80_1120);
pub const T2_MODE: Reg16 = Reg16(0x1F80_1124);
pub const T2_TARGET: Reg16 = Reg16(0x1F80_1128);
