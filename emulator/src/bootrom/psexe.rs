//! The PS-EXE header: what the boot ROM needs to place a program in RAM and start it.
use anyhow::{bail, ensure, Result};

/// The header is one 2 KiB sector; the text follows it.
pub const HEADER_SIZE: usize = 0x800;
const MAGIC: &[u8; 8] = b"PS-X EXE";

/// Main RAM is 2 MiB, seen at three bases (cached, uncached, user).
pub const RAM_SIZE: u32 = 0x20_0000;
/// The first 64 KiB of RAM belong to the kernel; the boot ROM keeps its vectors and mailbox there.
pub const KERNEL_AREA: u32 = 0x1_0000;

/// A parsed PS-EXE: header fields and the text bytes (exactly `t_size` of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PsExe {
    pub pc: u32,
    pub gp: u32,
    pub t_addr: u32,
    pub b_addr: u32,
    pub b_size: u32,
    pub s_addr: u32,
    pub s_size: u32,
    pub text: Vec<u8>,
}

impl PsExe {
    /// Parses and checks a PS-EXE file; `name` names it in errors. Text past `t_size` is ignored, as the
    /// BIOS does; a program that does not fit in RAM above the kernel area is rejected.
    pub fn parse(bytes: &[u8], name: &str) -> Result<PsExe> {
        ensure!(
            bytes.len() >= HEADER_SIZE,
            "{name}: {} bytes, shorter than the 2048-byte PS-EXE header",
            bytes.len()
        );
        ensure!(
            &bytes[..8] == MAGIC,
            "{name}: offset 0: expected the magic \"PS-X EXE\", found {:02x?}",
            &bytes[..8]
        );
        let word =
            |offset: usize| u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap());
        let (pc, gp, t_addr, t_size) = (word(0x10), word(0x14), word(0x18), word(0x1C));
        let (b_addr, b_size, s_addr, s_size) = (word(0x28), word(0x2C), word(0x30), word(0x34));

        let available = bytes.len() - HEADER_SIZE;
        ensure!(
            t_size as usize <= available,
            "{name}: offset 0x1c: t_size is {t_size:#x} bytes but only {available:#x} follow the header"
        );
        ensure!(
            t_addr & 3 == 0,
            "{name}: offset 0x18: t_addr {t_addr:#010x} is not word-aligned"
        );
        ensure!(
            pc & 3 == 0,
            "{name}: offset 0x10: pc {pc:#010x} is not word-aligned"
        );
        check_ram_range(name, "0x18: text (t_addr, t_size)", t_addr, t_size)?;
        check_ram_range(name, "0x10: pc", pc, 4)?;
        if b_size != 0 {
            check_ram_range(name, "0x28: bss (b_addr, b_size)", b_addr, b_size)?;
        }
        Ok(PsExe {
            pc,
            gp,
            t_addr,
            b_addr,
            b_size,
            s_addr,
            s_size,
            text: bytes[HEADER_SIZE..HEADER_SIZE + t_size as usize].to_vec(),
        })
    }

    /// The stack pointer the BIOS hands over: `s_addr + s_size`, or its own default when `s_addr` is 0.
    pub fn initial_sp(&self) -> u32 {
        if self.s_addr == 0 {
            0x801F_FF00
        } else {
            self.s_addr.wrapping_add(self.s_size)
        }
    }

    /// The file image again (header + text), as the ROM embeds it.
    pub fn to_file_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; HEADER_SIZE];
        out[..8].copy_from_slice(MAGIC);
        let fields = [
            (0x10, self.pc),
            (0x14, self.gp),
            (0x18, self.t_addr),
            (0x1C, self.text.len() as u32),
            (0x28, self.b_addr),
            (0x2C, self.b_size),
            (0x30, self.s_addr),
            (0x34, self.s_size),
        ];
        for (offset, value) in fields {
            out[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.text);
        out
    }
}

/// `[address, address + size)` must lie in one view of main RAM, above the kernel area.
fn check_ram_range(name: &str, what: &str, address: u32, size: u32) -> Result<()> {
    let segment = address & 0xE000_0000;
    let physical = u64::from(address & 0x1FFF_FFFF);
    if !matches!(segment, 0x0000_0000 | 0x8000_0000 | 0xA000_0000)
        || physical >= u64::from(RAM_SIZE)
    {
        bail!("{name}: offset {what}: address {address:#010x} is not in main RAM");
    }
    ensure!(
        physical >= u64::from(KERNEL_AREA) && physical + u64::from(size) <= u64::from(RAM_SIZE),
        "{name}: offset {what}: {address:#010x}..+{size:#x} must lie within RAM between {KERNEL_AREA:#x} and {RAM_SIZE:#x} \
         (physical), the first 64 KiB being the kernel area"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PsExe {
        PsExe {
            pc: 0x8001_0000,
            gp: 0x8003_0000,
            t_addr: 0x8001_0000,
            b_addr: 0x8001_0800,
            b_size: 0x100,
            s_addr: 0x801F_FF00,
            s_size: 0,
            text: (0..0x800u32).map(|i| i as u8).collect(),
        }
    }

    #[test]
    fn round_trips_through_file_bytes() {
        let exe = sample();
        let bytes = exe.to_file_bytes();
        assert_eq!(bytes.len(), HEADER_SIZE + 0x800);
        assert_eq!(PsExe::parse(&bytes, "x.exe").unwrap(), exe);
        // Trailing bytes after t_size are ignored, like the BIOS does.
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0xAA; 16]);
        assert_eq!(PsExe::parse(&padded, "x.exe").unwrap(), exe);
    }

    #[test]
    fn stack_defaults_like_the_bios() {
        let mut exe = sample();
        assert_eq!(exe.initial_sp(), 0x801F_FF00);
        exe.s_addr = 0x8010_0000;
        exe.s_size = 0x100;
        assert_eq!(exe.initial_sp(), 0x8010_0100);
        exe.s_addr = 0;
        assert_eq!(exe.initial_sp(), 0x801F_FF00);
    }

    #[test]
    fn bad_headers_are_clear_errors() {
        let good = sample().to_file_bytes();
        let err = |bytes: &[u8]| PsExe::parse(bytes, "bad.exe").unwrap_err().to_string();

        assert!(err(&good[..100]).contains("shorter than the 2048-byte"));
        let mut b = good.clone();
        b[0] = b'X';
        assert!(err(&b).contains("magic"));
        assert!(err(&good[..HEADER_SIZE + 0x10]).contains("t_size is 0x800 bytes but only 0x10"));
        let mut b = good.clone();
        b[0x18..0x1C].copy_from_slice(&0x8000_1000u32.to_le_bytes());
        assert!(err(&b).contains("kernel area"));
        let mut b = good.clone();
        b[0x18..0x1C].copy_from_slice(&0x801F_FC00u32.to_le_bytes());
        assert!(err(&b).contains("0x801ffc00..+0x800"));
        let mut b = good.clone();
        b[0x18..0x1C].copy_from_slice(&0x1F00_0000u32.to_le_bytes());
        assert!(err(&b).contains("not in main RAM"));
        let mut b = good.clone();
        b[0x2C..0x30].copy_from_slice(&0x0020_0000u32.to_le_bytes());
        assert!(err(&b).contains("bss"));
        let mut b = good;
        b[0x10..0x14].copy_from_slice(&0x8001_0002u32.to_le_bytes());
        assert!(err(&b).contains("not word-aligned"));
    }
}
