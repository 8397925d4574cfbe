//! A small reader for the ELF files the PSX link produces: 32-bit, little-endian, MIPS executables.
//! It reads what the PS-EXE converter needs (entry point, loadable segments, a few symbols) and checks
//! every offset against the file, so a truncated or corrupted ELF gives an error, never a panic.
use anyhow::{bail, ensure, Context, Result};

const EM_MIPS: u16 = 8;
const ET_EXEC: u16 = 2;
const PT_LOAD: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const ELF_HEADER_SIZE: usize = 52;
const PROGRAM_HEADER_SIZE: usize = 32;
const SECTION_HEADER_SIZE: usize = 40;
const SYMBOL_SIZE: usize = 16;

/// One `PT_LOAD` program header and its file bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u32,
    /// Bytes from the file (`p_filesz` of them).
    pub data: Vec<u8>,
    /// Size in memory (`p_memsz`); bytes past `data` are zero (`.bss`).
    pub mem_size: u32,
}

/// The parts of an executable the converter uses.
#[derive(Debug, Clone)]
pub struct Elf {
    pub entry: u32,
    pub segments: Vec<Segment>,
    /// (name, value) of every symbol in `.symtab` (empty when the file is stripped).
    pub symbols: Vec<(String, u32)>,
}

impl Elf {
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }
}

fn u16_at(bytes: &[u8], at: usize) -> Result<u16> {
    let b = bytes.get(at..at + 2).with_context(|| format!("offset {at:#x}: file ends inside a 16-bit field"))?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    let b = bytes.get(at..at + 4).with_context(|| format!("offset {at:#x}: file ends inside a 32-bit field"))?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The `len` bytes at `offset`, or an error saying what ran past the end.
fn slice<'a>(bytes: &'a [u8], offset: u32, len: u32, what: &str) -> Result<&'a [u8]> {
    let start = offset as usize;
    let end = start.checked_add(len as usize).context("size overflows")?;
    bytes.get(start..end).with_context(|| {
        format!("{what} at offset {offset:#x}, {len:#x} bytes, runs past the end of the file ({:#x} bytes)", bytes.len())
    })
}

/// Parses an ELF32 little-endian MIPS executable.
pub fn parse(bytes: &[u8]) -> Result<Elf> {
    ensure!(bytes.len() >= ELF_HEADER_SIZE, "{} bytes: too short for an ELF header", bytes.len());
    ensure!(&bytes[..4] == b"\x7fELF", "offset 0: not an ELF file (magic {:02x?})", &bytes[..4]);
    ensure!(bytes[4] == 1, "offset 4: ELF class {} (expected 1, 32-bit)", bytes[4]);
    ensure!(bytes[5] == 1, "offset 5: ELF data encoding {} (expected 1, little-endian)", bytes[5]);
    let kind = u16_at(bytes, 16)?;
    ensure!(kind == ET_EXEC, "offset 0x10: ELF type {kind} (expected {ET_EXEC}, an executable)");
    let machine = u16_at(bytes, 18)?;
    ensure!(machine == EM_MIPS, "offset 0x12: machine {machine} (expected {EM_MIPS}, MIPS)");
    let entry = u32_at(bytes, 24)?;
    let phoff = u32_at(bytes, 28)?;
    let shoff = u32_at(bytes, 32)?;
    let phentsize = u16_at(bytes, 42)? as usize;
    let phnum = u16_at(bytes, 44)? as u32;
    let shentsize = u16_at(bytes, 46)? as usize;
    let shnum = u16_at(bytes, 48)? as u32;
    ensure!(phentsize == PROGRAM_HEADER_SIZE, "offset 0x2a: program header size {phentsize} (expected 32)");

    let table = slice(bytes, phoff, phnum * PROGRAM_HEADER_SIZE as u32, "program header table")?;
    let mut segments = Vec::new();
    for i in 0..phnum as usize {
        let ph = &table[i * PROGRAM_HEADER_SIZE..];
        if u32_at(ph, 0)? != PT_LOAD {
            continue;
        }
        let (offset, vaddr, filesz, memsz) = (u32_at(ph, 4)?, u32_at(ph, 8)?, u32_at(ph, 16)?, u32_at(ph, 20)?);
        ensure!(memsz >= filesz, "program header {i}: memory size {memsz:#x} below file size {filesz:#x}");
        let data = slice(bytes, offset, filesz, &format!("program header {i}'s data"))?.to_vec();
        segments.push(Segment { vaddr, data, mem_size: memsz });
    }

    let mut symbols = Vec::new();
    if shoff != 0 && shnum != 0 {
        ensure!(shentsize == SECTION_HEADER_SIZE, "offset 0x2e: section header size {shentsize} (expected 40)");
        let sections = slice(bytes, shoff, shnum * SECTION_HEADER_SIZE as u32, "section header table")?;
        let section = |i: u32| &sections[i as usize * SECTION_HEADER_SIZE..];
        for i in 0..shnum {
            let sh = section(i);
            if u32_at(sh, 4)? != SHT_SYMTAB {
                continue;
            }
            let link = u32_at(sh, 24)?;
            ensure!(link < shnum, "section {i} (.symtab): string table index {link} out of range");
            let strtab = section(link);
            let names = slice(bytes, u32_at(strtab, 16)?, u32_at(strtab, 20)?, "symbol string table")?;
            let table = slice(bytes, u32_at(sh, 16)?, u32_at(sh, 20)?, "symbol table")?;
            for sym in table.chunks_exact(SYMBOL_SIZE) {
                let name_at = u32_at(sym, 0)? as usize;
                let Some(rest) = names.get(name_at..) else {
                    bail!("symbol name offset {name_at:#x} is past the string table ({:#x} bytes)", names.len());
                };
                let name = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
                symbols.push((String::from_utf8_lossy(name).into_owned(), u32_at(sym, 4)?));
            }
        }
    }
    Ok(Elf { entry, segments, symbols })
}

/// Builders for synthetic ELF files, used by the tests of this module and of `psexe`.
#[cfg(test)]
pub mod synth {
    /// A minimal MIPS ELF32 executable: `segments` as (vaddr, bytes, memsz), the given symbols.
    pub fn elf(entry: u32, segments: &[(u32, &[u8], u32)], symbols: &[(&str, u32)]) -> Vec<u8> {
        let mut out = vec![0u8; 52];
        out[..4].copy_from_slice(b"\x7fELF");
        out[4] = 1;
        out[5] = 1;
        out[6] = 1;
        out[16..18].copy_from_slice(&2u16.to_le_bytes());
        out[18..20].copy_from_slice(&8u16.to_le_bytes());
        out[20..24].copy_from_slice(&1u32.to_le_bytes());
        out[24..28].copy_from_slice(&entry.to_le_bytes());
        out[28..32].copy_from_slice(&52u32.to_le_bytes());
        out[40..42].copy_from_slice(&52u16.to_le_bytes());
        out[42..44].copy_from_slice(&32u16.to_le_bytes());
        out[44..46].copy_from_slice(&(segments.len() as u16).to_le_bytes());
        out[46..48].copy_from_slice(&40u16.to_le_bytes());
        let data_start = 52 + 32 * segments.len();
        let mut data = Vec::new();
        for &(vaddr, bytes, memsz) in segments {
            let mut ph = [0u8; 32];
            ph[0..4].copy_from_slice(&1u32.to_le_bytes());
            ph[4..8].copy_from_slice(&((data_start + data.len()) as u32).to_le_bytes());
            ph[8..12].copy_from_slice(&vaddr.to_le_bytes());
            ph[12..16].copy_from_slice(&vaddr.to_le_bytes());
            ph[16..20].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
            ph[20..24].copy_from_slice(&memsz.to_le_bytes());
            out.extend_from_slice(&ph);
            data.extend_from_slice(bytes);
        }
        out.extend_from_slice(&data);
        // String table, symbol table, then 3 section headers: null, .symtab, .strtab.
        let mut strtab = vec![0u8];
        let mut symtab = vec![0u8; 16];
        for &(name, value) in symbols {
            let mut sym = [0u8; 16];
            sym[0..4].copy_from_slice(&(strtab.len() as u32).to_le_bytes());
            sym[4..8].copy_from_slice(&value.to_le_bytes());
            symtab.extend_from_slice(&sym);
            strtab.extend_from_slice(name.as_bytes());
            strtab.push(0);
        }
        let symtab_at = out.len() as u32;
        out.extend_from_slice(&symtab);
        let strtab_at = out.len() as u32;
        out.extend_from_slice(&strtab);
        let shoff = out.len() as u32;
        out.extend_from_slice(&[0u8; 40]);
        let section = |kind: u32, offset: u32, size: u32, link: u32| {
            let mut sh = [0u8; 40];
            sh[4..8].copy_from_slice(&kind.to_le_bytes());
            sh[16..20].copy_from_slice(&offset.to_le_bytes());
            sh[20..24].copy_from_slice(&size.to_le_bytes());
            sh[24..28].copy_from_slice(&link.to_le_bytes());
            sh
        };
        out.extend_from_slice(&section(2, symtab_at, symtab.len() as u32, 2));
        out.extend_from_slice(&section(3, strtab_at, strtab.len() as u32, 0));
        out[32..36].copy_from_slice(&shoff.to_le_bytes());
        out[48..50].copy_from_slice(&3u16.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entry_segments_and_symbols() {
        let bytes = synth::elf(0x8001_0000, &[(0x8001_0000, &[1, 2, 3, 4], 4), (0x8001_0004, &[], 64)], &[("_gp", 0x8001_8000)]);
        let elf = parse(&bytes).unwrap();
        assert_eq!(elf.entry, 0x8001_0000);
        assert_eq!(elf.segments.len(), 2);
        assert_eq!(elf.segments[0].data, [1, 2, 3, 4]);
        assert_eq!(elf.segments[1].mem_size, 64);
        assert_eq!(elf.symbol("_gp"), Some(0x8001_8000));
        assert_eq!(elf.symbol("nope"), None);
    }

    #[test]
    fn truncation_and_foreign_files_are_errors() {
        let bytes = synth::elf(0x8001_0000, &[(0x8001_0000, &[0; 64], 64)], &[]);
        // Cut inside the segment data: the error names the program header.
        let err = parse(&bytes[..100]).unwrap_err().to_string();
        assert!(err.contains("program header 0"), "{err}");
        let mut wrong_machine = bytes.clone();
        wrong_machine[18] = 3;
        assert!(parse(&wrong_machine).unwrap_err().to_string().contains("machine 3"));
        assert!(parse(b"#!/bin/sh\n").is_err());
        let mut not_elf = bytes;
        not_elf[0] = b'M';
        assert!(parse(&not_elf).unwrap_err().to_string().contains("not an ELF"));
    }
}
