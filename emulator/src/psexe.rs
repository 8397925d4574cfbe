//! PS-EXE files: written from the linked ELF, and checked before anything runs them.
//!
//! Layout (psx-spx, "CDROM File Formats"): a 2 KiB header, then the text (code and data) that the loader
//! copies to `t_addr`. Header fields used here, all little-endian words:
//!
//! | offset | field  | what we write                                            |
//! |--------|--------|----------------------------------------------------------|
//! | 0x00   | magic  | "PS-X EXE"                                               |
//! | 0x10   | pc0    | ELF entry (`__start`)                                    |
//! | 0x14   | gp0    | `_gp` from the ELF symbols (0 when absent)               |
//! | 0x18   | t_addr | lowest loadable address (0x80010000 with linker/psexe.ld)|
//! | 0x1C   | t_size | text bytes, a multiple of 2048 = file size - 2048        |
//! | 0x28   | b_addr | start of the zero-initialised tail (`.bss`)              |
//! | 0x2C   | b_size | its size                                                 |
//! | 0x30   | s_addr | 0x801FFF00 (initial stack pointer)                       |
//! | 0x34   | s_size | 0                                                        |
//! | 0x4C   | marker | "Sony Computer Entertainment Inc. for <region> area"     |
use crate::elf::Elf;
use anyhow::{ensure, Result};
use std::fmt;

pub const HEADER_SIZE: usize = 2048;
/// Text sizes are whole sectors (a power of two: the checks below mask with it, as the fuzz toolchain's
/// nightly has no `is_multiple_of`).
pub const SECTOR: u32 = 2048;
pub const MAGIC: &[u8; 8] = b"PS-X EXE";

/// End of KSEG0 main RAM (2 MiB from 0x80000000).
pub const RAM_END: u32 = 0x8020_0000;
/// Below this the BIOS keeps its vectors and variables; a program must load above.
pub const LOAD_MIN: u32 = 0x8001_0000;
pub const STACK_TOP: u32 = 0x801F_FF00;
const REGION_MARKER_AT: usize = 0x4C;

/// The region named by the header's marker string (the BIOS ignores it for a side-loaded EXE; a CD boot
/// checks it against the console's region).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Region {
    Na,
    Eu,
    Jp,
}

impl Region {
    pub fn marker(self) -> &'static str {
        match self {
            Region::Na => "Sony Computer Entertainment Inc. for North America area",
            Region::Eu => "Sony Computer Entertainment Inc. for Europe area",
            Region::Jp => "Sony Computer Entertainment Inc. for Japan area",
        }
    }
}

/// The header fields a reader cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub pc0: u32,
    pub gp0: u32,
    pub t_addr: u32,
    pub t_size: u32,
    pub b_addr: u32,
    pub b_size: u32,
    pub s_addr: u32,
    pub s_size: u32,
}

/// What is wrong with a PS-EXE. Each names the header offset of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderError {
    TooShort { len: usize },
    BadMagic { found: [u8; 8] },
    TextSizeNotSectorMultiple { t_size: u32 },
    TextSizeMismatch { t_size: u32, after_header: usize },
    Truncated { t_size: u32, after_header: usize },
    LoadAddress { t_addr: u32 },
    TextPastRam { t_addr: u32, t_size: u32 },
    PcOutsideText { pc0: u32, t_addr: u32, t_end: u32 },
    BssOutsideRam { b_addr: u32, b_size: u32 },
    StackOutsideRam { sp: u32 },
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HeaderError::TooShort { len } => write!(f, "{len} bytes: shorter than the 2048-byte PS-EXE header"),
            HeaderError::BadMagic { found } => {
                write!(f, "offset 0x00: magic is {:?}, expected \"PS-X EXE\"", String::from_utf8_lossy(&found))
            }
            HeaderError::TextSizeNotSectorMultiple { t_size } => {
                write!(f, "offset 0x1C: t_size {t_size:#x} is not a multiple of 2048")
            }
            HeaderError::TextSizeMismatch { t_size, after_header } => write!(
                f,
                "offset 0x1C: t_size {t_size:#x} differs from the {after_header:#x} bytes after the header"
            ),
            HeaderError::Truncated { t_size, after_header } => write!(
                f,
                "offset 0x1C: truncated: t_size promises {t_size:#x} bytes of text, the file holds {after_header:#x} \
                 after its header"
            ),
            HeaderError::LoadAddress { t_addr } => write!(
                f,
                "offset 0x18: load address t_addr {t_addr:#010x} is not a word-aligned RAM address at or above \
                 {LOAD_MIN:#010x} (was the program linked with linker/psexe.ld?)"
            ),
            HeaderError::TextPastRam { t_addr, t_size } => {
                write!(f, "offset 0x1C: text {t_addr:#010x} + {t_size:#x} runs past the end of RAM ({RAM_END:#010x})")
            }
            HeaderError::PcOutsideText { pc0, t_addr, t_end } => write!(
                f,
                "offset 0x10: initial pc {pc0:#010x} is not a word inside the text {t_addr:#010x}..{t_end:#010x}"
            ),
            HeaderError::BssOutsideRam { b_addr, b_size } => {
                write!(f, "offset 0x28: bss {b_addr:#010x} + {b_size:#x} is not inside RAM above the load address")
            }
            HeaderError::StackOutsideRam { sp } => {
                write!(f, "offset 0x30: initial stack pointer {sp:#010x} (s_addr + s_size) is not inside RAM")
            }
        }
    }
}

impl std::error::Error for HeaderError {}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Checks a PS-EXE file to run it: as [`validate`], except that bytes after the text (padding some
/// tools add) are allowed; a file shorter than its header promises is truncated.
pub fn validate_for_running(file: &[u8]) -> Result<Header, HeaderError> {
    match validate(file) {
        Err(HeaderError::TextSizeMismatch { t_size, after_header }) if (t_size as usize) < after_header => {
            let text_end = HEADER_SIZE + t_size as usize;
            validate(&file[..text_end])
        }
        Err(HeaderError::TextSizeMismatch { t_size, after_header }) => Err(HeaderError::Truncated { t_size, after_header }),
        other => other,
    }
}

/// Checks a PS-EXE file and returns its header.
pub fn validate(file: &[u8]) -> Result<Header, HeaderError> {
    if file.len() < HEADER_SIZE {
        return Err(HeaderError::TooShort { len: file.len() });
    }
    let mut found = [0u8; 8];
    found.copy_from_slice(&file[..8]);
    if &found != MAGIC {
        return Err(HeaderError::BadMagic { found });
    }
    let h = Header {
        pc0: word(file, 0x10),
        gp0: word(file, 0x14),
        t_addr: word(file, 0x18),
        t_size: word(file, 0x1C),
        b_addr: word(file, 0x28),
        b_size: word(file, 0x2C),
        s_addr: word(file, 0x30),
        s_size: word(file, 0x34),
    };
    if h.t_size & (SECTOR - 1) != 0 {
        return Err(HeaderError::TextSizeNotSectorMultiple { t_size: h.t_size });
    }
    let after_header = file.len() - HEADER_SIZE;
    if h.t_size as usize != after_header {
        return Err(HeaderError::TextSizeMismatch { t_size: h.t_size, after_header });
    }
    if h.t_addr < LOAD_MIN || h.t_addr >= RAM_END || h.t_addr & 3 != 0 {
        return Err(HeaderError::LoadAddress { t_addr: h.t_addr });
    }
    let t_end = h.t_addr as u64 + h.t_size as u64;
    if t_end > RAM_END as u64 {
        return Err(HeaderError::TextPastRam { t_addr: h.t_addr, t_size: h.t_size });
    }
    if h.pc0 < h.t_addr || h.pc0 as u64 >= t_end || h.pc0 & 3 != 0 {
        return Err(HeaderError::PcOutsideText { pc0: h.pc0, t_addr: h.t_addr, t_end: t_end as u32 });
    }
    if h.b_size != 0 && (h.b_addr < h.t_addr || h.b_addr as u64 + h.b_size as u64 > RAM_END as u64) {
        return Err(HeaderError::BssOutsideRam { b_addr: h.b_addr, b_size: h.b_size });
    }
    // s_addr 0 asks the loader for its default stack (0x801FFF00).
    let sp = if h.s_addr == 0 { STACK_TOP } else { h.s_addr.wrapping_add(h.s_size) };
    if !(LOAD_MIN < sp && sp <= RAM_END) {
        return Err(HeaderError::StackOutsideRam { sp });
    }
    Ok(h)
}

/// Sizes of the parts of a program, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Code (`__text_start..__text_end`; the whole image when those symbols are missing).
    pub text: u32,
    /// Read-only and initialised data: the rest of the loaded image.
    pub data: u32,
    /// Zero-initialised data (`.bss`), not stored in the file.
    pub bss: u32,
    /// The file: header + text padded to 2048.
    pub file: u32,
}

/// A converted program: the file bytes, its header and sizes.
pub struct Converted {
    pub file: Vec<u8>,
    pub header: Header,
    pub sizes: Sizes,
}

/// Builds a PS-EXE from a linked ELF: its loadable segments become the text (gaps zero-filled), the
/// zero-size tail in memory becomes the bss, then the result goes through `validate`.
pub fn from_elf(elf: &Elf, region: Region) -> Result<Converted> {
    let mut segments: Vec<_> = elf.segments.iter().filter(|s| s.mem_size > 0).collect();
    segments.sort_by_key(|s| s.vaddr);
    ensure!(!segments.is_empty(), "the ELF has no loadable segment");
    // Bounds first, so the image allocated below is at most 2 MiB whatever the ELF says.
    for s in &segments {
        let end = s.vaddr as u64 + s.mem_size as u64;
        ensure!(
            s.vaddr >= LOAD_MIN && end <= STACK_TOP as u64,
            "segment {:#010x}..{end:#010x} is outside {LOAD_MIN:#010x}..{STACK_TOP:#010x} \
             (was the program linked with linker/psexe.ld?)",
            s.vaddr
        );
    }
    for pair in segments.windows(2) {
        let end = pair[0].vaddr as u64 + pair[0].mem_size as u64;
        ensure!(end <= pair[1].vaddr as u64, "segments overlap at {:#010x}", pair[1].vaddr);
    }
    let t_addr = segments[0].vaddr;
    let image_end = segments
        .iter()
        .filter(|s| !s.data.is_empty())
        .map(|s| s.vaddr + s.data.len() as u32)
        .max()
        .unwrap_or(t_addr);
    let mem_end = segments.iter().map(|s| s.vaddr + s.mem_size).max().unwrap_or(t_addr);
    let image_len = (image_end - t_addr) as usize;
    let t_size = (image_len as u32).div_ceil(SECTOR) * SECTOR;

    let mut file = vec![0u8; HEADER_SIZE + t_size as usize];
    for s in &segments {
        let at = HEADER_SIZE + (s.vaddr - t_addr) as usize;
        file[at..at + s.data.len()].copy_from_slice(&s.data);
    }
    let (b_addr, b_size) = if mem_end > image_end { (image_end, mem_end - image_end) } else { (0, 0) };
    let header = Header {
        pc0: elf.entry,
        gp0: elf.symbol("_gp").unwrap_or(0),
        t_addr,
        t_size,
        b_addr,
        b_size,
        s_addr: STACK_TOP,
        s_size: 0,
    };
    file[..8].copy_from_slice(MAGIC);
    let fields = [
        (0x10, header.pc0),
        (0x14, header.gp0),
        (0x18, header.t_addr),
        (0x1C, header.t_size),
        (0x28, header.b_addr),
        (0x2C, header.b_size),
        (0x30, header.s_addr),
        (0x34, header.s_size),
    ];
    for (at, value) in fields {
        file[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    let marker = region.marker().as_bytes();
    file[REGION_MARKER_AT..REGION_MARKER_AT + marker.len()].copy_from_slice(marker);

    let checked = validate(&file)?;
    ensure!(checked == header, "internal error: the header read back differs from the one written");
    let text = match (elf.symbol("__text_start"), elf.symbol("__text_end")) {
        (Some(start), Some(end)) if start <= end && end <= image_end => end - start,
        _ => image_len as u32,
    };
    let sizes = Sizes { text, data: image_len as u32 - text, bss: b_size, file: file.len() as u32 };
    Ok(Converted { file, header, sizes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::{self, synth};
    use proptest::prelude::*;

    /// A header with the fields `validate` reads, followed by `text_len` bytes.
    fn file(pc0: u32, t_addr: u32, t_size: u32, b: (u32, u32), s: (u32, u32), text_len: usize) -> Vec<u8> {
        let mut f = vec![0u8; HEADER_SIZE + text_len];
        f[..8].copy_from_slice(MAGIC);
        for (at, v) in [(0x10, pc0), (0x18, t_addr), (0x1C, t_size), (0x28, b.0), (0x2C, b.1), (0x30, s.0), (0x34, s.1)] {
            f[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        f
    }

    proptest! {
        /// Whatever the bytes, checking never panics, and whatever it accepts loads inside RAM with its
        /// entry point in its text (what `psxanim run` promises before starting an emulator).
        #[test]
        fn any_accepted_exe_runs_inside_ram(
            pc0 in prop_oneof![any::<u32>(), 0x8001_0000u32..0x8002_0000],
            t_addr in prop_oneof![any::<u32>(), (0x8001_0000u32..0x801F_0000).prop_map(|a| a & !3)],
            sectors in 0u32..4,
            extra in 0usize..3000,
            b in (any::<u32>(), 0u32..0x10_0000),
            s in (prop_oneof![Just(0u32), any::<u32>()], 0u32..0x1000),
            noise in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut f = file(pc0, t_addr, sectors * SECTOR, b, s, (sectors * SECTOR) as usize + extra);
            let cut = f.len().saturating_sub(noise.len() % 7);
            f.truncate(cut);
            for (i, byte) in noise.iter().enumerate().skip(1) {
                let at = (usize::from(*byte) * 8 + i) % f.len();
                if at >= 0x40 { f[at] = *byte; }
            }
            if let Ok(h) = validate_for_running(&f) {
                prop_assert!(h.t_addr >= LOAD_MIN && u64::from(h.t_addr) + u64::from(h.t_size) <= u64::from(RAM_END));
                prop_assert!(h.pc0 >= h.t_addr && h.pc0 < h.t_addr + h.t_size);
                prop_assert!(f.len() >= HEADER_SIZE + h.t_size as usize, "the text is all there");
            }
            let _ = validate(&f);
        }
    }

    #[test]
    fn trailing_padding_runs_and_a_short_file_is_truncated() {
        let exact = file(0x8001_0000, 0x8001_0000, SECTOR, (0, 0), (0, 0), SECTOR as usize);
        assert!(validate(&exact).is_ok() && validate_for_running(&exact).is_ok());
        let padded = file(0x8001_0000, 0x8001_0000, SECTOR, (0, 0), (0, 0), SECTOR as usize + 100);
        assert!(matches!(validate(&padded), Err(HeaderError::TextSizeMismatch { .. })));
        assert!(validate_for_running(&padded).is_ok());
        let short = file(0x8001_0000, 0x8001_0000, 2 * SECTOR, (0, 0), (0, 0), SECTOR as usize);
        assert_eq!(validate_for_running(&short), Err(HeaderError::Truncated { t_size: 2 * SECTOR, after_header: SECTOR as usize }));
    }

    /// A program like the real ones: code at 0x80010000 with the entry first, data, then bss.
    fn good_elf() -> Vec<u8> {
        let code: Vec<u8> = (0..300u32).flat_map(|i| i.to_le_bytes()).collect();
        synth::elf(
            0x8001_0000,
            &[(0x8001_0000, &code, code.len() as u32), (0x8001_04B0, &[7; 20], 20 + 4096)],
            &[("_gp", 0x8001_84C0), ("__text_start", 0x8001_0000), ("__text_end", 0x8001_04B0)],
        )
    }

    fn good_exe() -> Vec<u8> {
        from_elf(&elf::parse(&good_elf()).unwrap(), Region::Na).unwrap().file
    }

    fn set(file: &mut [u8], at: usize, value: u32) {
        file[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn converts_a_synthetic_elf() {
        let done = from_elf(&elf::parse(&good_elf()).unwrap(), Region::Eu).unwrap();
        let h = done.header;
        assert_eq!((h.pc0, h.gp0, h.t_addr, h.t_size), (0x8001_0000, 0x8001_84C0, 0x8001_0000, 2048));
        assert_eq!((h.b_addr, h.b_size), (0x8001_04C4, 4096));
        assert_eq!(h.s_addr, STACK_TOP);
        assert_eq!(done.file.len(), 4096);
        // Code, then data right behind it, then zero padding to the sector.
        assert_eq!(&done.file[2048..2052], &0u32.to_le_bytes());
        assert_eq!(&done.file[2048 + 4 * 299..2048 + 4 * 300], &299u32.to_le_bytes());
        assert_eq!(&done.file[2048 + 0x4B0..2048 + 0x4C4], &[7; 20]);
        assert!(done.file[2048 + 0x4C4..].iter().all(|&b| b == 0));
        assert_eq!(&done.file[0x4C..0x4C + 48], Region::Eu.marker().as_bytes());
        assert_eq!(done.sizes, Sizes { text: 0x4B0, data: 20, bss: 4096, file: 4096 });
    }

    #[test]
    fn rejects_elfs_linked_elsewhere() {
        // psx's own script puts a header segment at 0x8000F800: below the load address.
        let low = synth::elf(0x8001_0000, &[(0x8000_F800, &[0; 2048], 2048), (0x8001_0000, &[0; 16], 16)], &[]);
        let err = from_elf(&elf::parse(&low).unwrap(), Region::Na).err().unwrap().to_string();
        assert!(err.contains("linker/psexe.ld"), "{err}");
        let overlap = synth::elf(0x8001_0000, &[(0x8001_0000, &[0; 16], 16), (0x8001_0008, &[0; 16], 16)], &[]);
        assert!(from_elf(&elf::parse(&overlap).unwrap(), Region::Na).is_err());
        let entry_outside = synth::elf(0x8002_0000, &[(0x8001_0000, &[0; 16], 16)], &[]);
        let err = from_elf(&elf::parse(&entry_outside).unwrap(), Region::Na).err().unwrap().to_string();
        assert!(err.contains("offset 0x10"), "{err}");
    }

    #[test]
    fn accepts_the_good_exe() {
        let h = validate(&good_exe()).unwrap();
        assert_eq!(h.t_addr, LOAD_MIN);
    }

    #[test]
    fn each_corrupted_field_is_named() {
        let good = good_exe();
        let corrupt = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut f = good.clone();
            edit(&mut f);
            validate(&f).unwrap_err()
        };
        assert_eq!(corrupt(&|f| f.truncate(100)), HeaderError::TooShort { len: 100 });
        assert!(matches!(corrupt(&|f| f[3] = b'Y'), HeaderError::BadMagic { found } if &found == b"PS-Y EXE"));
        assert_eq!(corrupt(&|f| set(f, 0x1C, 2047)), HeaderError::TextSizeNotSectorMultiple { t_size: 2047 });
        assert_eq!(corrupt(&|f| set(f, 0x1C, 4096)), HeaderError::TextSizeMismatch { t_size: 4096, after_header: 2048 });
        assert_eq!(corrupt(&|f| f.extend_from_slice(&[0; 2048])), HeaderError::TextSizeMismatch { t_size: 2048, after_header: 4096 });
        assert_eq!(corrupt(&|f| set(f, 0x18, 0x8000_F800)), HeaderError::LoadAddress { t_addr: 0x8000_F800 });
        assert_eq!(corrupt(&|f| set(f, 0x18, 0x0001_0000)), HeaderError::LoadAddress { t_addr: 0x0001_0000 });
        assert_eq!(corrupt(&|f| set(f, 0x18, 0x801F_FC00)), HeaderError::TextPastRam { t_addr: 0x801F_FC00, t_size: 2048 });
        assert!(matches!(corrupt(&|f| set(f, 0x10, 0x8001_0800)), HeaderError::PcOutsideText { pc0: 0x8001_0800, .. }));
        assert!(matches!(corrupt(&|f| set(f, 0x10, 0x8001_0002)), HeaderError::PcOutsideText { .. }));
        assert_eq!(corrupt(&|f| set(f, 0x2C, 0x0100_0000)), HeaderError::BssOutsideRam { b_addr: 0x8001_04C4, b_size: 0x0100_0000 });
        assert_eq!(corrupt(&|f| set(f, 0x30, 0x0000_1000)), HeaderError::StackOutsideRam { sp: 0x1000 });
        assert_eq!(corrupt(&|f| set(f, 0x34, 0x0010_0000)), HeaderError::StackOutsideRam { sp: 0x802F_FF00 });
        // Every error message names the header offset (or the size) at fault.
        let msg = corrupt(&|f| set(f, 0x1C, 2047)).to_string();
        assert!(msg.starts_with("offset 0x1C"), "{msg}");
    }

    /// tests/psexe/check_psexe.py, written separately from this module, agrees with it.
    #[test]
    fn the_independent_checker_accepts_ours_and_rejects_a_corrupt_one() {
        let script = crate::workspace_root().join("tests/psexe/check_psexe.py");
        let dir = tempfile::tempdir().unwrap();
        let run = |file: &[u8]| {
            let path = dir.path().join("t.exe");
            std::fs::write(&path, file).unwrap();
            let out = std::process::Command::new("python3").arg(&script).arg(&path).output().expect("python3 runs");
            (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let mut file = good_exe();
        // The checker wants a real first instruction at pc0.
        file[HEADER_SIZE..HEADER_SIZE + 4].copy_from_slice(&0x2408_0001u32.to_le_bytes());
        let (code, text) = run(&file);
        assert_eq!(code, Some(0), "{text}");
        set(&mut file, 0x1C, 4096);
        let (code, text) = run(&file);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("t_size"), "{text}");
    }
}
